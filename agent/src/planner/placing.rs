//! Where objects go relative to others: into a frame, beside an object (joining the frame that
//! holds it), between two objects, a corner of the board.

use super::common::{nf, update};
use super::relative::slot;
use super::syntax::{CreateSpec, Target};
use super::targets::{Miss, Scope, resolve_target};
use crate::intent::StagedCall;
use crate::lang::relation::Relation;
use crate::lang::vocab::Side;
use crate::schema::UpdateElements;
use protocol::{BoardObject, Kind, ObjectId};

/// Objects join an existing frame: stacked below its other contents, the frame grown to hold
/// them.
pub(super) fn into_frame(ids: &[ObjectId], f: &Target, s: &Scope) -> Result<StagedCall, Miss> {
    let Some(frame) = resolve_target(f, s)?
        .iter()
        .filter_map(|i| s.board.get(i.as_str()))
        .find(|o| o.kind == Kind::Frame)
    else {
        return nf("I couldn't find that frame on the board.");
    };
    let pad = layout::templates::NOTE_PADDING;
    let kids: Vec<&BoardObject> = s
        .board
        .children_of(frame.id.as_str())
        .filter_map(|i| s.board.get(i.as_str()))
        .filter(|o| !ids.contains(&o.id) && o.kind != Kind::Connector)
        .collect();
    let mut y = kids
        .iter()
        .map(|o| o.y + o.h + crate::resolve::GAP)
        .fold(frame.y + layout::templates::FRAME_HEADER + pad, f64::max);
    let (mut right, mut bottom) = (frame.x + frame.w, frame.y + frame.h);
    let mut ups = Vec::new();
    // The frame itself and the frames holding it cannot go inside it.
    let movable: Vec<&ObjectId> = ids
        .iter()
        .filter(|i| !s.board.is_self_or_ancestor(i, &frame.id))
        .collect();
    if movable.is_empty() && !ids.is_empty() {
        return nf("A frame can't go inside itself or a frame it holds.");
    }
    for id in movable {
        let Some(o) = s.board.get(id.as_str()) else {
            continue;
        };
        let mut u = update(id);
        u.parent_id = Some(frame.id.to_string());
        u.x = Some(frame.x + pad);
        u.y = Some(y);
        right = right.max(frame.x + pad + o.w + pad);
        bottom = bottom.max(y + o.h + pad);
        y += o.h + crate::resolve::GAP;
        ups.push(u);
    }
    if right > frame.x + frame.w || bottom > frame.y + frame.h {
        let mut u = update(&frame.id);
        u.w = Some(right - frame.x);
        u.h = Some(bottom - frame.y);
        ups.push(u);
    }
    Ok(StagedCall::UpdateElements(UpdateElements { updates: ups }))
}

/// Where objects going "to the top left" (a corner of the board) put their top-left corner:
/// just outside the bounds of everything else (above them for a top corner, below for a bottom
/// one), lined up with the side named, so nothing is covered.
pub(super) fn corner_spot(
    ids: &[ObjectId],
    v: Side,
    h: Side,
    s: &Scope,
) -> Result<(f64, f64), Miss> {
    let moving: Vec<&BoardObject> = ids.iter().filter_map(|i| s.board.get(i.as_str())).collect();
    let inside_moved = |o: &BoardObject| {
        let mut p = o.parent.clone();
        for _ in 0..64 {
            match p {
                Some(id) if ids.contains(&id) => return true,
                Some(id) => p = s.board.get(id.as_str()).and_then(|f| f.parent.clone()),
                None => break,
            }
        }
        false
    };
    let others: Vec<&BoardObject> = s
        .board
        .objects()
        .filter(|o| o.kind != Kind::Connector && !ids.contains(&o.id) && !inside_moved(o))
        .collect();
    let (Some(g), Some(area)) = (bounds(&moving), bounds(&others)) else {
        return nf(
            "There is nothing else on the board to place it by; say how far to move it              (e.g. \"200 px to the left\").",
        );
    };
    let gap = 2.0 * crate::resolve::GAP;
    let x = match h {
        Side::Left => area.0,
        _ => area.2 - (g.2 - g.0),
    };
    let y = match v {
        Side::Top => area.1 - gap - (g.3 - g.1),
        _ => area.3 + gap,
    };
    Ok((x, y))
}

/// Left, top, right and bottom of objects, if any.
fn bounds(objs: &[&BoardObject]) -> Option<(f64, f64, f64, f64)> {
    let first = objs.first()?;
    Some(objs.iter().fold(
        (first.x, first.y, first.x + first.w, first.y + first.h),
        |b, o| {
            (
                b.0.min(o.x),
                b.1.min(o.y),
                b.2.max(o.x + o.w),
                b.3.max(o.y + o.h),
            )
        },
    ))
}

/// The object a relative position names (the first when a description matches several).
pub(super) fn reference<'b>(t: &Target, s: &Scope<'b>) -> Result<&'b BoardObject, Miss> {
    resolve_target(t, s)?
        .iter()
        .find_map(|i| s.board.get(i.as_str()))
        .map_or_else(|| nf("I couldn't find that object on the board."), Ok)
}

/// A create "below the Login box": a free place on that side of the object, inside the frame
/// that holds it.
pub(super) fn place_beside(
    spec: &mut CreateSpec,
    rel: Relation,
    t: &Target,
    s: &Scope,
) -> Result<(), Miss> {
    let r = reference(t, s)?;
    let k = spec.kind;
    // Beside an object of the same kind, the same size ("a sticky under Budget overrun").
    let alike = r.kind == k.kind && k.kind != Kind::Text && (!k.equal_sides || r.w == r.h);
    let (w, h) = spec
        .size
        .or(alike.then_some((r.w, r.h)))
        .unwrap_or(match k.kind {
            Kind::Shape if k.equal_sides => (200.0, 200.0),
            Kind::Shape => (200.0, 120.0),
            Kind::Text => layout::text::estimate_size(
                spec.texts.first().map_or("Text", String::as_str),
                layout::text::TextKind::Text,
            ),
            Kind::Frame => (400.0, 300.0),
            _ => (200.0, 200.0),
        });
    let n = spec.count.clamp(1, 10) as f64;
    let row = (w * n + 40.0 * (n - 1.0), h);
    spec.at = Some(match between(rel, t, s)? {
        Some((cx, cy)) => (cx - row.0 / 2.0, cy - row.1 / 2.0),
        None => slot(s.board, r, row, rel, &[]),
    });
    if k.kind != Kind::Text {
        spec.size.get_or_insert((w, h));
    }
    if spec.parent.is_none()
        && let Some(p) = r
            .parent
            .as_ref()
            .filter(|p| s.board.get(p.as_str()).is_some())
    {
        spec.parent = Some(Target::Ids(vec![p.to_string()]));
    }
    Ok(())
}

/// "between Login and Settings": the midpoint of the two objects' centres (`None` for any other
/// relation).
fn between(rel: Relation, t: &Target, s: &Scope) -> Result<Option<(f64, f64)>, Miss> {
    if rel != Relation::Between {
        return Ok(None);
    }
    let objs: Vec<&BoardObject> = resolve_target(t, s)?
        .iter()
        .filter_map(|i| s.board.get(i.as_str()))
        .take(2)
        .collect();
    let [a, b] = objs.as_slice() else {
        return nf("Between which two objects? Name both, as in \"between Login and Settings\".");
    };
    let c = |o: &BoardObject| (o.x + o.w / 2.0, o.y + o.h / 2.0);
    let ((ax, ay), (bx, by)) = (c(a), c(b));
    Ok(Some(((ax + bx) / 2.0, (ay + by) / 2.0)))
}

/// A top-left corner for something of `size` on `rel`'s side of what `t` names (or between the
/// two objects it names).
pub(super) fn spot(
    size: (f64, f64),
    rel: Relation,
    t: &Target,
    s: &Scope,
    ignore: &[ObjectId],
) -> Result<(f64, f64), Miss> {
    let r = reference(t, s)?;
    Ok(match between(rel, t, s)? {
        Some((cx, cy)) => (cx - size.0 / 2.0, cy - size.1 / 2.0),
        None => slot(s.board, r, size, rel, ignore),
    })
}

/// Existing objects move beside (or between) others: to the nearest free place on that side,
/// and into the frame that holds the reference (out of their frame when it has none); the frame
/// grows to hold them.
pub(super) fn move_beside(
    ids: &[ObjectId],
    rel: Relation,
    t: &Target,
    s: &Scope,
) -> Result<StagedCall, Miss> {
    let objs: Vec<&BoardObject> = ids.iter().filter_map(|i| s.board.get(i.as_str())).collect();
    let r = reference(t, s)?;
    let x0 = objs.iter().map(|o| o.x).fold(f64::INFINITY, f64::min);
    let y0 = objs.iter().map(|o| o.y).fold(f64::INFINITY, f64::min);
    let x1 = objs.iter().map(|o| o.x + o.w).fold(x0, f64::max);
    let y1 = objs.iter().map(|o| o.y + o.h).fold(y0, f64::max);
    let (w, h) = (x1 - x0, y1 - y0);
    let mut ignore = ids.to_vec();
    for i in ids {
        ignore.extend(s.board.children_of(i.as_str()).cloned());
    }
    let (x, y) = spot((w, h), rel, t, s, &ignore)?;
    let frame = r
        .parent
        .as_ref()
        .and_then(|p| s.board.get(p.as_str()))
        .filter(|f| f.kind == Kind::Frame && !ids.contains(&f.id));
    let mut ups = Vec::new();
    for o in &objs {
        let mut u = update(&o.id);
        u.x = Some(x + (o.x - x0));
        u.y = Some(y + (o.y - y0));
        // Only the objects at the top of what moves change frame (a frame's contents go with it).
        let top = o.parent.as_ref().is_none_or(|p| !ids.contains(p));
        if top && o.parent.as_ref() != frame.map(|f| &f.id) {
            u.parent_id = Some(frame.map_or(String::new(), |f| f.id.to_string()));
        }
        ups.push(u);
    }
    if let Some(f) = frame {
        let pad = layout::templates::NOTE_PADDING;
        let (right, bottom) = ((x + w + pad).max(f.x + f.w), (y + h + pad).max(f.y + f.h));
        let (left, top) = ((x - pad).min(f.x), (y - pad).min(f.y));
        if (left, top, right, bottom) != (f.x, f.y, f.x + f.w, f.y + f.h) {
            let mut u = update(&f.id);
            u.x = (left != f.x).then_some(left);
            u.y = (top != f.y).then_some(top);
            u.w = Some(right - left);
            u.h = Some(bottom - top);
            ups.push(u);
        }
    }
    Ok(StagedCall::UpdateElements(UpdateElements { updates: ups }))
}
