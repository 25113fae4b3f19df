//! Positions relative to another object: "below the Login box", "to the right of Checkout",
//! "next to the blue square", "above it". [`find`] reads the phrase; [`slot`] finds a free place
//! on that side of the reference object.

use super::parse::{Target, target};
pub use crate::lang::relation::Relation;
use crate::lang::relation::phrase_at;
use crate::resolve::GAP;
use protocol::{BoardObject, BoardState, Kind, ObjectId};

/// Space between the reference object and the placed one.
const SPACE: f64 = 40.0;

/// How far from the reference object a free place is looked for.
pub const REACH: f64 = 400.0;

/// The search's step.
const STEP: f64 = 20.0;

/// Words that end a reference object's description ("… saying Hi", "… that says Hi").
fn ends_reference(w: &str) -> bool {
    matches!(
        w,
        "that"
            | "which"
            | "saying"
            | "says"
            | "labeled"
            | "labelled"
            | "called"
            | "named"
            | "titled"
            | "reading"
            | "with"
            | "and"
    )
}

/// A relation phrase in `ws` and the object it names: (start, end, relation, reference). "under
/// the Risks frame" is where a new object goes, not a relation.
pub fn find(ws: &[String]) -> Option<(usize, usize, Relation, Target)> {
    (0..ws.len()).find_map(|i| {
        let (rel, n) = phrase_at(ws, i)?;
        // "the arrow between Login and Dashboard" names a connector by its ends.
        let connector = |w: &String| {
            crate::lang::vocab::kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Connector)
        };
        if rel == Relation::Between && i > 0 && connector(&ws[i - 1]) {
            return None;
        }
        let from = i + n;
        // "between A and B": the reference is both objects.
        let end = ws[from..]
            .iter()
            .position(|w| ends_reference(w) && (rel != Relation::Between || w != "and"))
            .map_or(ws.len(), |k| from + k);
        if end == from {
            return None;
        }
        let t = target(&ws[from..end])?;
        let into_frame =
            matches!(ws[i].as_str(), "under" | "on") && ws[end - 1].starts_with("frame");
        (!into_frame).then_some((i, end, rel, t))
    })
}

/// Text that ends with a relation phrase and an object ("Later next to Buy milk"): the text
/// before it, the relation and the object.
pub fn split_text(text: &str) -> Option<(String, Relation, Target)> {
    let spans: Vec<(usize, &str)> = text
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .collect();
    let lows: Vec<String> = spans
        .iter()
        .map(|(_, w)| {
            w.to_lowercase()
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_string()
        })
        .collect();
    (1..lows.len()).find_map(|k| {
        let (rel, n) = phrase_at(&lows, k)?;
        let tail = &lows[(k + n).min(lows.len())..];
        if tail.is_empty() || tail.len() > 6 {
            return None;
        }
        let t = target(tail)?;
        let head = text[..spans[k].0].trim_end().to_string();
        (!head.is_empty()).then_some((head, rel, t))
    })
}

fn clear(r: (f64, f64, f64, f64), busy: &[(f64, f64, f64, f64)]) -> bool {
    busy.iter().all(|b| {
        r.0 + r.2 + GAP <= b.0
            || b.0 + b.2 + GAP <= r.0
            || r.1 + r.3 + GAP <= b.1
            || b.1 + b.3 + GAP <= r.1
    })
}

/// A top-left corner for something of `size` on `rel`'s side of `reference`, clear of the other
/// objects (those in `ignore` aside, and frames that hold the reference): the nearest free place
/// on that side, first on the reference's centre line, then shifted along that side (still
/// facing it), then further out. When no place is free within [`REACH`], the first candidate
/// (the resolver then pushes it clear).
pub fn slot(
    board: &BoardState,
    reference: &BoardObject,
    size: (f64, f64),
    rel: Relation,
    ignore: &[ObjectId],
) -> (f64, f64) {
    let mut holders: Vec<&ObjectId> = Vec::new();
    let mut p = reference.parent.as_ref();
    while let Some(f) = p.filter(|f| !holders.contains(f)) {
        holders.push(f);
        p = board.get(f.as_str()).and_then(|o| o.parent.as_ref());
    }
    let r = reference;
    let (w, h) = size;
    // Only objects near the reference can be in the way.
    let (mx, my) = (REACH + w + GAP, REACH + h + GAP);
    let busy: Vec<(f64, f64, f64, f64)> = board
        .objects()
        .filter(|o| {
            o.kind != Kind::Connector
                && o.x < r.x + r.w + mx
                && o.x + o.w > r.x - mx
                && o.y < r.y + r.h + my
                && o.y + o.h > r.y - my
                && !ignore.contains(&o.id)
                && !holders.contains(&&o.id)
        })
        .map(|o| (o.x, o.y, o.w, o.h))
        .collect();
    let sides: &[Relation] = match rel {
        Relation::Beside => &[
            Relation::Right,
            Relation::Left,
            Relation::Below,
            Relation::Above,
        ],
        _ => std::slice::from_ref(&rel),
    };
    // Offsets along the side, nearest the centre line first, while still facing the reference.
    let across = |start: f64, len: f64, own: f64| -> Vec<f64> {
        let c = start + (len - own) / 2.0;
        let mut v = vec![c, start, start + len - own];
        let mut d = STEP;
        while d < (len + own) / 2.0 {
            v.extend([c - d, c + d]);
            d += STEP;
        }
        v
    };
    let mut first = None;
    let mut out = 0.0;
    // Within reach first; on a crowded board further out on the same side rather than elsewhere.
    while out <= 2.0 * REACH - SPACE {
        for side in sides {
            let offsets = match side {
                Relation::Below | Relation::Above => across(r.x, r.w, w),
                _ => across(r.y, r.h, h),
            };
            for a in offsets {
                let corner = match side {
                    Relation::Below => (a, r.y + r.h + SPACE + out),
                    Relation::Above => (a, r.y - SPACE - out - h),
                    Relation::Right => (r.x + r.w + SPACE + out, a),
                    _ => (r.x - SPACE - out - w, a),
                };
                first.get_or_insert(corner);
                if clear((corner.0, corner.1, w, h), &busy) {
                    return corner;
                }
            }
        }
        out += STEP;
    }
    first.unwrap_or((r.x, r.y + r.h + SPACE))
}

/// Of `found`, those on `rel`'s side of the object `reference` names, the nearest first (only the
/// nearest unless `all`): first those facing it (overlapping it across that side), else any on
/// that side. Objects that hold the reference (its frame) and connectors are never "next to" it.
pub fn nearest<'b>(
    found: Vec<&'b BoardObject>,
    rel: Relation,
    reference: &Target,
    all: bool,
    s: &super::targets::Scope<'b>,
) -> Vec<&'b BoardObject> {
    let Some(r) = super::targets::resolve_target(reference, s)
        .ok()
        .and_then(|ids| ids.first().and_then(|i| s.board.get(i.as_str())))
    else {
        return Vec::new();
    };
    let (rx, ry) = (r.x + r.w / 2.0, r.y + r.h / 2.0);
    let side = |o: &BoardObject| {
        let (cx, cy) = (o.x + o.w / 2.0, o.y + o.h / 2.0);
        let across_x = o.x < r.x + r.w && o.x + o.w > r.x;
        let across_y = o.y < r.y + r.h && o.y + o.h > r.y;
        match rel {
            Relation::Below => (cy > r.y + r.h).then_some(across_x),
            Relation::Above => (cy < r.y).then_some(across_x),
            Relation::Left => (cx < r.x).then_some(across_y),
            Relation::Right => (cx > r.x + r.w).then_some(across_y),
            Relation::Beside | Relation::Between => Some(true),
        }
    };
    let holds = |o: &BoardObject| {
        o.x <= r.x && o.y <= r.y && o.x + o.w >= r.x + r.w && o.y + o.h >= r.y + r.h
    };
    let mut near: Vec<(bool, f64, &BoardObject)> = found
        .into_iter()
        .filter(|o| o.id != r.id && o.kind != Kind::Connector && !holds(o))
        .filter_map(|o| {
            let d = (o.x + o.w / 2.0 - rx).hypot(o.y + o.h / 2.0 - ry);
            side(o).map(|facing| (facing, d, o))
        })
        .collect();
    if near.iter().any(|(f, ..)| *f) {
        near.retain(|(f, ..)| *f);
    }
    near.sort_by(|a, b| a.1.total_cmp(&b.1));
    if !all {
        near.truncate(1);
    }
    near.into_iter().map(|(.., o)| o).collect()
}
