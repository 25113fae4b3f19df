//! Objects on one side of another: "the note right of Hello world".

use super::{Scope, resolve_target};
use crate::lang::relation::Relation;
use crate::planner::syntax::Target;
use protocol::{BoardObject, Kind};

/// Of `found`, those on `rel`'s side of the object `reference` names, the nearest first (only the
/// nearest unless `all`): first those facing it (overlapping it across that side), else any on
/// that side. Objects that hold the reference (its frame) and connectors are never "next to" it.
pub fn nearest<'b>(
    found: Vec<&'b BoardObject>,
    rel: Relation,
    reference: &Target,
    all: bool,
    s: &Scope<'b>,
) -> Vec<&'b BoardObject> {
    let Some(r) = resolve_target(reference, s)
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
