//! Target resolution: ids written in the command, the selection ("this", "these"), session
//! memory ("it", "them", "those") or a description (kind + color + size/spatial words + text +
//! frame). Several matches of a kind/color description → the most recent (seed 004 FR-12);
//! several objects named by the same text → [`Miss::Ambiguous`], and the agent asks which.

use super::syntax::{Desc, Target};
use crate::lang::vocab::Picture;
use crate::memory::SessionMemory;
use crate::reply::{name_of, noun};
use protocol::palette::nearest_name;
use protocol::{BoardObject, BoardState, Geo, Kind, ObjectId, UserId};
use std::time::Instant;

mod names;
mod near;
mod order;
use names::{fuzzy_tier, text_tier};
use order::pick;

/// What the planner knows besides the text.
pub struct Scope<'a> {
    pub board: &'a BoardState,
    pub selection: &'a [ObjectId],
    pub memory: &'a SessionMemory,
    pub now: Instant,
    /// Who asks (objects created by others need a confirmation before they are overwritten).
    pub requester: Option<&'a UserId>,
    /// The user's answers to the agent's last question (choices and confirmations).
    pub answers: &'a serde_json::Map<String, serde_json::Value>,
}

impl<'a> Scope<'a> {
    /// A scope with no requester and no answers.
    pub fn new(
        board: &'a BoardState,
        selection: &'a [ObjectId],
        memory: &'a SessionMemory,
        now: Instant,
    ) -> Self {
        static NONE: std::sync::LazyLock<serde_json::Map<String, serde_json::Value>> =
            std::sync::LazyLock::new(serde_json::Map::new);
        Scope {
            board,
            selection,
            memory,
            now,
            requester: None,
            answers: &NONE,
        }
    }

    /// Ids the user picked in answer to "which one?".
    pub fn chosen(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for v in self.answers.values() {
            match v {
                serde_json::Value::String(s) => out.push(s.as_str()),
                serde_json::Value::Array(a) => out.extend(a.iter().filter_map(|x| x.as_str())),
                _ => {}
            }
        }
        out
    }
}

/// Why a target did not resolve.
#[derive(Debug, Clone, PartialEq)]
pub enum Miss {
    /// Nothing matches: what to tell the user.
    NotFound(String),
    /// Several objects match a name equally well: ask which.
    Ambiguous { what: String, ids: Vec<ObjectId> },
}

impl Miss {
    /// A sentence for the user.
    pub fn message(&self) -> String {
        match self {
            Miss::NotFound(m) => m.clone(),
            Miss::Ambiguous { what, ids } => {
                format!("{} objects match {what}. Which one do you mean?", ids.len())
            }
        }
    }
}

fn square_ish(o: &BoardObject) -> bool {
    (o.w - o.h).abs() <= 0.05 * o.w.max(o.h)
}

/// Palette "families": a "blue" request also matches light-blue when nothing is plain blue.
fn family(c: &str) -> &str {
    c.strip_prefix("light-").unwrap_or(c)
}

/// Palette names of board colors, computed once per distinct color in a scan.
#[derive(Default)]
struct Names<'b>(std::collections::HashMap<&'b str, &'static str>);

impl<'b> Names<'b> {
    fn of(&mut self, o: &'b BoardObject) -> &'static str {
        self.0
            .entry(o.color.as_str())
            .or_insert_with(|| nearest_name(&o.color))
    }
}

fn matches<'b>(o: &'b BoardObject, d: &Desc, strict: bool, names: &mut Names<'b>) -> bool {
    if d.blank && (!o.text.trim().is_empty() || o.kind == Kind::Connector) {
        return false;
    }
    if let Some(k) = d.kind {
        if o.kind != k.kind {
            return false;
        }
        if let Some(g) = k.geo
            && o.geo != Some(g)
        {
            return false;
        }
        if strict && k.equal_sides && !square_ish(o) {
            return false;
        }
    }
    if let Some(c) = d.color {
        let name = names.of(o);
        if strict && name != c || !strict && family(name) != family(c) {
            return false;
        }
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
        Some(k) if k.kind == Kind::Shape && k.geo.is_none() => s.push_str("shape"),
        Some(k) => s.push_str(noun(k.kind, k.geo, k.equal_sides)),
        None => s.push_str("object"),
    }
    if let Some(t) = &d.text {
        s.push_str(&format!(" \"{t}\""));
    }
    s
}

fn is_inside(o: &BoardObject, frames: &[ObjectId], board: &BoardState) -> bool {
    let mut p = o.parent.clone();
    let mut hops = 0;
    while let Some(pid) = p {
        if frames.contains(&pid) {
            return true;
        }
        hops += 1;
        if hops > 64 {
            break;
        }
        p = board.get(pid.as_str()).and_then(|f| f.parent.clone());
    }
    false
}

/// Every object a description matches (strict first, then relaxed), best text matches only; a
/// name with a container word ("the Done column", "the Ideas box") also means the frame of that
/// name when nothing else has it; "right of Hello world": the nearest on that side.
pub fn matching<'b>(d: &Desc, s: &Scope<'b>) -> Vec<&'b BoardObject> {
    let mut found = matching_exact(d, s);
    if found.is_empty()
        && let Some(f) = as_frame(d)
    {
        found = matching_exact(&f, s);
    }
    match &d.near {
        Some((rel, r)) => near::nearest(found, *rel, r, d.all, s),
        None => found,
    }
}

/// A description naming a container ("the Done column", "the Ideas box", "the Risks list") as
/// the frame of that name.
fn as_frame(d: &Desc) -> Option<Desc> {
    let text = d.text.as_deref()?;
    let words = [
        "column", "lane", "list", "section", "box", "area", "group", "bucket",
    ];
    let stripped = text
        .rsplit_once(' ')
        .filter(|(_, last)| words.contains(last))
        .map(|(head, _)| head.to_string());
    let boxy = d
        .kind
        .is_some_and(|k| k.geo == Some(Geo::Rectangle) && !k.equal_sides);
    let frame_or_none = d.kind.is_none_or(|k| k.kind == Kind::Frame);
    if !(boxy || frame_or_none && stripped.is_some()) {
        return None;
    }
    Some(Desc {
        kind: crate::lang::vocab::kind_word(if d.all { "frames" } else { "frame" }),
        text: stripped.or_else(|| Some(text.to_string())),
        color: None,
        ..d.clone()
    })
}

fn matching_exact<'b>(d: &Desc, s: &Scope<'b>) -> Vec<&'b BoardObject> {
    let frames: Option<Vec<ObjectId>> = d.within.as_ref().map(|f| {
        let mut f = (**f).clone();
        f.all = true;
        matching(&f, s).into_iter().map(|o| o.id.clone()).collect()
    });
    let by = |o: &BoardObject| match &d.author {
        None => true,
        Some(super::syntax::Author::Me) => o.created_by.as_ref() == s.requester,
        Some(super::syntax::Author::Named(n)) => o.created_by.as_ref().is_some_and(|c| {
            let c = c.as_str().to_lowercase();
            c == *n || c.split(['.', '@', '-', '_', ' ']).next() == Some(n.as_str())
        }),
    };
    // A connector by its ends: the ids each end's description matches.
    let ends: Option<(Vec<ObjectId>, Vec<ObjectId>)> = d.ends.as_ref().map(|(a, b)| {
        let ids = |e: &Desc| -> Vec<ObjectId> {
            let mut e = e.clone();
            e.all = true;
            matching(&e, s).into_iter().map(|o| o.id.clone()).collect()
        };
        (ids(a), ids(b))
    });
    let joins = |o: &BoardObject| {
        let Some((a, b)) = &ends else {
            return true;
        };
        let end = |e: &Option<protocol::Endpoint>| e.as_ref().and_then(|e| e.bound_id()).cloned();
        match (end(&o.from), end(&o.to)) {
            (Some(f), Some(t)) => {
                a.contains(&f) && b.contains(&t) || a.contains(&t) && b.contains(&f)
            }
            _ => false,
        }
    };
    let in_scope = |o: &BoardObject| {
        by(o) && joins(o) && frames.as_ref().is_none_or(|fs| is_inside(o, fs, s.board))
    };
    let mut names = Names::default();
    let mut found: Vec<&BoardObject> = Vec::new();
    for strict in [true, false] {
        for o in s.board.objects() {
            if matches(o, d, strict, &mut names) && in_scope(o) {
                found.push(o);
            }
        }
        if !found.is_empty() {
            break;
        }
    }
    if let Some(t) = &d.text {
        let n = t.trim().to_lowercase();
        let mut tiers: Vec<u8> = found.iter().map(|o| text_tier(name_of(o), &n)).collect();
        if tiers.iter().all(|k| *k == 0) {
            tiers = found.iter().map(|o| fuzzy_tier(name_of(o), &n)).collect();
        }
        let best = tiers.iter().copied().max().unwrap_or(0);
        found = found
            .into_iter()
            .zip(tiers)
            .filter(|(_, k)| best > 0 && *k == best)
            .map(|(o, _)| o)
            .collect();
    }
    match d.kind.and_then(|k| k.hint) {
        Some(hint) => prefer_hinted(found, hint.word()),
        None => found,
    }
}

/// True when an image's alt text says `what` ("logo", "logos"; "photograph" for "photo").
fn alt_says(o: &BoardObject, what: &str) -> bool {
    o.alt.split(|c: char| !c.is_alphanumeric()).any(|w| {
        let w = w.to_lowercase();
        let rest = w.strip_prefix(what);
        rest.is_some_and(|r| matches!(r, "" | "s" | "graph" | "graphs"))
    })
}

/// "the logo", "the photos": the images whose alt text says so when there are any, else those
/// whose alt text names no other kind of picture ("the photos" leaves the "Company logo" out),
/// else every image.
fn prefer_hinted<'b>(found: Vec<&'b BoardObject>, hint: &str) -> Vec<&'b BoardObject> {
    let named: Vec<&BoardObject> = found
        .iter()
        .copied()
        .filter(|o| alt_says(o, hint))
        .collect();
    if !named.is_empty() {
        return named;
    }
    let plain: Vec<&BoardObject> = found
        .iter()
        .copied()
        .filter(|o| !Picture::ALL.iter().any(|h| alt_says(o, h.word())))
        .collect();
    if plain.is_empty() { found } else { plain }
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

/// What "these"/the selection, "it" and "them" mean: the selection or session memory.
fn pronoun(t: &Target, s: &Scope) -> Result<Vec<ObjectId>, Miss> {
    let live = |ids: Vec<ObjectId>| -> Vec<ObjectId> {
        ids.into_iter()
            .filter(|i| s.board.get(i.as_str()).is_some())
            .collect()
    };
    let nf = |m: &str| Err(Miss::NotFound(m.to_string()));
    match t {
        Target::Selection => {
            let sel = live(s.selection.to_vec());
            if !sel.is_empty() {
                return Ok(sel);
            }
            let mem = live(s.memory.them(s.now));
            if mem.is_empty() {
                nf("Select the objects you mean first, then try again.")
            } else {
                Ok(mem)
            }
        }
        Target::It => match s
            .memory
            .it(s.now)
            .filter(|i| s.board.get(i.as_str()).is_some())
        {
            Some(id) => Ok(vec![id]),
            None => match live(s.selection.to_vec()).as_slice() {
                [one] => Ok(vec![one.clone()]),
                _ => nf(
                    "I'm not sure what \"it\" refers to. Select the object or describe it (e.g. \"the blue square\").",
                ),
            },
        },
        Target::Them => {
            let mem = live(s.memory.them(s.now));
            if !mem.is_empty() {
                return Ok(mem);
            }
            let sel = live(s.selection.to_vec());
            if sel.is_empty() {
                nf("I'm not sure which objects you mean. Select them or describe them.")
            } else {
                Ok(sel)
            }
        }
        _ => Ok(Vec::new()),
    }
}

/// The objects a description matches: the best tier of names, a "which one?" when several match
/// a name equally, "the first one" among the selection.
fn described(d: &Desc, s: &Scope) -> Result<Vec<ObjectId>, Miss> {
    let found = match only_order(d) {
        // "the first one", "the left one": among the selection, else any object.
        true => {
            let sel: Vec<&BoardObject> = s
                .selection
                .iter()
                .filter_map(|i| s.board.get(i.as_str()))
                .collect();
            if sel.is_empty() {
                let mut all = matching(d, s);
                all.retain(|o| o.kind != Kind::Connector);
                all
            } else {
                sel
            }
        }
        false => matching(d, s),
    };
    // "Hello world and Buy milk": each name on its own.
    if found.is_empty()
        && let Some(parts) = d.text.as_deref().and_then(split_names)
    {
        let mut out: Vec<ObjectId> = Vec::new();
        for p in parts {
            let one = Desc {
                text: Some(p),
                ..d.clone()
            };
            for id in resolve_target(&Target::Desc(one), s)? {
                if !out.contains(&id) {
                    out.push(id);
                }
            }
        }
        return Ok(out);
    }
    if found.is_empty() {
        let place = d
            .within
            .as_ref()
            .map(|f| format!(" in the {}", describe(f)))
            .unwrap_or_else(|| " on the board".into());
        let what = describe(d);
        let a = if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        return Err(Miss::NotFound(format!(
            "I couldn't find {a} {what}{place}."
        )));
    }
    if d.text.is_some()
        && !d.all
        && d.extreme.is_none()
        && d.side.is_none()
        && d.ordinal.is_none()
        && found.len() > 1
    {
        let chosen = s.chosen();
        let picked: Vec<ObjectId> = found
            .iter()
            .filter(|o| chosen.contains(&o.id.as_str()))
            .map(|o| o.id.clone())
            .collect();
        if !picked.is_empty() {
            return Ok(picked);
        }
        let mut ids: Vec<&BoardObject> = found;
        ids.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
        return Err(Miss::Ambiguous {
            what: describe(d),
            ids: ids.into_iter().take(10).map(|o| o.id.clone()).collect(),
        });
    }
    Ok(pick(found, d))
}

/// Resolves a target to ids, or says what could not be found or is ambiguous.
pub fn resolve_target(t: &Target, s: &Scope) -> Result<Vec<ObjectId>, Miss> {
    let nf = |m: &str| Err(Miss::NotFound(m.to_string()));
    match t {
        Target::Ids(ids) => {
            let found: Vec<ObjectId> = ids
                .iter()
                .filter_map(|i| s.board.get(i).map(|o| o.id.clone()))
                .collect();
            if found.is_empty() {
                nf("I couldn't find those objects on the board.")
            } else {
                Ok(found)
            }
        }
        Target::Selection | Target::It | Target::Them => pronoun(t, s),
        Target::Desc(d) if d.with.is_some() => {
            let mut out = resolve_target(&d.with.clone().map_or(Target::Selection, |t| *t), s)?;
            let rest = Desc {
                with: None,
                ..d.clone()
            };
            for id in resolve_target(&Target::Desc(rest), s)? {
                if !out.contains(&id) {
                    out.push(id);
                }
            }
            Ok(out)
        }
        Target::Desc(d) if !d.except.is_empty() => {
            let main = Desc {
                except: Vec::new(),
                ..d.clone()
            };
            let mut out = resolve_target(&Target::Desc(main), s)?;
            for ex in &d.except {
                let ex = Desc {
                    all: true,
                    ..ex.clone()
                };
                if let Ok(gone) = resolve_target(&Target::Desc(ex), s) {
                    out.retain(|i| !gone.contains(i));
                }
            }
            Ok(out)
        }
        Target::Desc(d) if !d.also.is_empty() => {
            let first = Desc {
                also: Vec::new(),
                ..d.clone()
            };
            let mut out = resolve_target(&Target::Desc(first), s)?;
            for more in &d.also {
                for id in resolve_target(&Target::Desc(more.clone()), s)? {
                    if !out.contains(&id) {
                        out.push(id);
                    }
                }
            }
            Ok(out)
        }
        Target::Desc(d) => described(d, s),
    }
}

/// True for a description that only orders ("the first one", "the one on the right", "the
/// bigger one"): no kind, color, name, frame, author or neighbour.
fn only_order(d: &Desc) -> bool {
    d.kind.is_none()
        && d.color.is_none()
        && d.text.is_none()
        && d.within.is_none()
        && d.author.is_none()
        && d.ends.is_none()
        && d.near.is_none()
        && (d.ordinal.is_some() || d.side.is_some() || d.extreme.is_some())
}

/// A name list ("A and B", "A, B & C") as its names, when it has two or more.
fn split_names(t: &str) -> Option<Vec<String>> {
    let parts: Vec<String> = t
        .split(',')
        .flat_map(|p| p.split(" and "))
        .flat_map(|p| p.split(" & "))
        .map(|p| p.trim().trim_start_matches("and ").trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    (parts.len() >= 2).then_some(parts)
}

/// The geo of an object when it is a shape (for replies).
pub fn geo_of(o: &BoardObject) -> Option<Geo> {
    (o.kind == Kind::Shape).then_some(o.geo).flatten()
}

/// A label for an object among candidates: its text, kind, color and position.
pub fn label(o: &BoardObject) -> String {
    let text: String = name_of(o).trim().chars().take(40).collect();
    let noun = noun(o.kind, geo_of(o), square_ish(o) && o.kind == Kind::Shape);
    if o.kind == Kind::Image {
        // A picture has no color of its own: its size tells it apart.
        return format!(
            "\"{text}\" ({:.0}×{:.0} image at {:.0}, {:.0})",
            o.w, o.h, o.x, o.y
        );
    }
    format!(
        "\"{text}\" ({} {noun} at {:.0}, {:.0})",
        nearest_name(&o.color),
        o.x,
        o.y
    )
}
