//! Positions relative to another object: "below the Login box", "to the right of Checkout",
//! "next to the blue square", "above it". The phrase is read by the phrase layer; [`slot`] finds
//! a free place on that side of the reference object.

pub use crate::lang::relation::Relation;
use crate::resolve::GAP;
use protocol::{BoardObject, BoardState, Kind, ObjectId};

/// Space between the reference object and the placed one.
const SPACE: f64 = 40.0;

/// How far from the reference object a free place is looked for.
pub const REACH: f64 = 400.0;

/// The search's step.
const STEP: f64 = 20.0;

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
