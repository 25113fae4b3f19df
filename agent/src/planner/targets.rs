//! Target resolution: ids written in the command, the selection ("this", "these"), session
//! memory ("it", "them", "those") or a description (kind + color + size/spatial words + text;
//! several matches → the most recent, seed 004 FR-12).

use super::parse::{Desc, Target};
use super::vocab::{Extreme, Side};
use crate::memory::SessionMemory;
use crate::reply::noun;
use protocol::palette::nearest_name;
use protocol::{BoardObject, BoardState, Geo, Kind, ObjectId};
use std::time::Instant;

/// What the planner knows besides the text.
pub struct Scope<'a> {
    pub board: &'a BoardState,
    pub selection: &'a [ObjectId],
    pub memory: &'a SessionMemory,
    pub now: Instant,
}

fn square_ish(o: &BoardObject) -> bool {
    (o.w - o.h).abs() <= 0.05 * o.w.max(o.h)
}

/// Palette "families": a "blue" request also matches light-blue when nothing is plain blue.
fn family(c: &str) -> &str {
    c.strip_prefix("light-").unwrap_or(c)
}

fn matches(o: &BoardObject, d: &Desc, strict: bool) -> bool {
    if let Some(k) = d.kind {
        if o.kind != k.kind {
            return false;
        }
        if let Some(g) = k.geo
            && o.geo != Some(g)
        {
            // An ellipse asked for as "circle" may be any ellipse when relaxed; a square a rectangle.
            return false;
        }
        if strict && k.equal_sides && !square_ish(o) {
            return false;
        }
    }
    if let Some(c) = d.color {
        let name = nearest_name(&o.color);
        if strict && name != c || !strict && family(name) != family(c) {
            return false;
        }
    }
    if let Some(t) = &d.text
        && !o.text.to_lowercase().contains(&t.to_lowercase())
    {
        return false;
    }
    true
}

/// A phrase for a description, for "I couldn't find …".
pub fn describe(d: &Desc) -> String {
    let mut s = String::new();
    if let Some(c) = d.color {
        s.push_str(c);
        s.push(' ');
    }
    match d.kind {
        Some(k) => s.push_str(noun(k.kind, k.geo, k.equal_sides)),
        None => s.push_str("object"),
    }
    if let Some(t) = &d.text {
        s.push_str(&format!(" saying \"{t}\""));
    }
    s
}

fn pick(mut c: Vec<&BoardObject>, d: &Desc) -> Vec<ObjectId> {
    if d.all {
        c.sort_by(|a, b| a.z.cmp(&b.z).then_with(|| a.id.cmp(&b.id)));
        return c.into_iter().map(|o| o.id.clone()).collect();
    }
    let key = |o: &BoardObject| -> f64 {
        match (d.extreme, d.side) {
            (Some(Extreme::Largest), _) => o.w * o.h,
            (Some(Extreme::Smallest), _) => -(o.w * o.h),
            (_, Some(Side::Left)) => -o.x,
            (_, Some(Side::Right)) => o.x + o.w,
            (_, Some(Side::Top)) => -o.y,
            (_, Some(Side::Bottom)) => o.y + o.h,
            (None, None) => 0.0,
        }
    };
    // Highest key, then the most recent (highest z, then last changed).
    c.into_iter()
        .max_by(|a, b| {
            key(a)
                .total_cmp(&key(b))
                .then_with(|| a.z.cmp(&b.z))
                .then_with(|| a.version.cmp(&b.version))
                .then_with(|| b.id.cmp(&a.id))
        })
        .map(|o| vec![o.id.clone()])
        .unwrap_or_default()
}

/// Ids written in the text that name objects on the board.
pub fn ids_in(text: &str, board: &BoardState) -> Vec<ObjectId> {
    let mut out = Vec::new();
    for tok in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_')) {
        if tok.len() >= 6
            && let Some(o) = board.get(tok)
            && !out.contains(&o.id)
        {
            out.push(o.id.clone());
        }
    }
    out
}

/// Resolves a target to ids, or says what could not be found.
pub fn resolve_target(t: &Target, s: &Scope) -> Result<Vec<ObjectId>, String> {
    let live = |ids: Vec<ObjectId>| -> Vec<ObjectId> {
        ids.into_iter()
            .filter(|i| s.board.get(i.as_str()).is_some())
            .collect()
    };
    match t {
        Target::Ids(ids) => {
            let found: Vec<ObjectId> = ids
                .iter()
                .filter_map(|i| s.board.get(i).map(|o| o.id.clone()))
                .collect();
            if found.is_empty() {
                Err("I couldn't find those objects on the board.".into())
            } else {
                Ok(found)
            }
        }
        Target::Selection => {
            let sel = live(s.selection.to_vec());
            if !sel.is_empty() {
                return Ok(sel);
            }
            let mem = live(s.memory.them(s.now));
            if mem.is_empty() {
                Err("Select the objects you mean first, then try again.".into())
            } else {
                Ok(mem)
            }
        }
        Target::It => match s.memory.it(s.now).filter(|i| s.board.get(i.as_str()).is_some()) {
            Some(id) => Ok(vec![id]),
            None => match live(s.selection.to_vec()).as_slice() {
                [one] => Ok(vec![one.clone()]),
                _ => Err("I'm not sure what \"it\" refers to. Select the object or describe it (e.g. \"the blue square\").".into()),
            },
        },
        Target::Them => {
            let mem = live(s.memory.them(s.now));
            if !mem.is_empty() {
                return Ok(mem);
            }
            let sel = live(s.selection.to_vec());
            if sel.is_empty() {
                Err("I'm not sure which objects you mean. Select them or describe them.".into())
            } else {
                Ok(sel)
            }
        }
        Target::Desc(d) => {
            let mut found: Vec<&BoardObject> = s.board.objects().filter(|o| matches(o, d, true)).collect();
            if found.is_empty() {
                found = s.board.objects().filter(|o| matches(o, d, false)).collect();
            }
            if found.is_empty() {
                return Err(format!("I couldn't find a {} on the board.", describe(d)));
            }
            Ok(pick(found, d))
        }
    }
}

/// The geo of an object when it is a shape (for replies).
pub fn geo_of(o: &BoardObject) -> Option<Geo> {
    (o.kind == Kind::Shape).then_some(o.geo).flatten()
}
