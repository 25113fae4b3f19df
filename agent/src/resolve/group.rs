//! Frames around existing objects: `groupElements` (a new frame drawn around them, children
//! re-parented in the same command) and new objects placed inside an existing frame
//! (`parentId` on a create), the frame growing when they do not fit.

use super::edit::info;
use super::shadow::{Shadow, rect_of};
use super::{Change, CreatedInfo, GAP, Resolved};
use crate::schema::GroupElements;
use layout::Rect;
use layout::templates::{FRAME_HEADER, NOTE_PADDING};
use protocol::num::Num;
use protocol::palette::nearest_name;
use protocol::{BoardObject, Kind, ObjectId, ObjectInput, OpInput, PatchInput};
use std::collections::HashSet;

pub(super) fn resolve_group(g: &GroupElements, shadow: &mut Shadow, out: &mut Resolved) {
    let mut seen = HashSet::new();
    let mut objs: Vec<BoardObject> = Vec::new();
    for id in &g.ids {
        match shadow.get(id) {
            Some(o) if o.kind != Kind::Connector && seen.insert(o.id.clone()) => {
                objs.push(o.clone())
            }
            Some(_) => {}
            None => out
                .warnings
                .push(format!("No object with id '{id}' — group skipped for it")),
        }
    }
    // Objects inside a listed frame move with it.
    let listed: HashSet<ObjectId> = objs.iter().map(|o| o.id.clone()).collect();
    objs.retain(|o| o.parent.as_ref().is_none_or(|p| !listed.contains(p)));
    let Some(b) = Rect::union_all(objs.iter().map(rect_of).collect::<Vec<_>>().iter()) else {
        return;
    };
    let rect = Rect::new(
        b.x - NOTE_PADDING,
        b.y - FRAME_HEADER - NOTE_PADDING,
        b.w + 2.0 * NOTE_PADDING,
        b.h + FRAME_HEADER + 2.0 * NOTE_PADDING,
    );
    let common_parent = objs
        .first()
        .and_then(|o| o.parent.clone())
        .filter(|p| objs.iter().all(|o| o.parent.as_ref() == Some(p)));
    let id = ObjectId::random();
    let mut input = ObjectInput::new(Kind::Frame);
    input.id = Some(id.clone());
    input.text = Some(g.name.clone());
    input.x = Some(Num(rect.x));
    input.y = Some(Num(rect.y));
    input.w = Some(Num(rect.w));
    input.h = Some(Num(rect.h));
    input.parent = common_parent;
    let frame = input.clone().normalize(id.clone(), 0);
    out.summary.created.push(CreatedInfo {
        id: id.clone(),
        kind: Kind::Frame,
        geo: None,
        equal_sides: false,
        color: nearest_name(&frame.color).to_string(),
        x: frame.x,
        y: frame.y,
        w: frame.w,
        h: frame.h,
        text: g.name.clone(),
        explicit_position: true,
        in_frame: false,
    });
    shadow.put(frame);
    out.created.push(id.clone());
    out.ops.push(OpInput::Create { object: input });
    for o in objs {
        let p = PatchInput {
            parent: Some(Some(id.clone())),
            ..PatchInput::default()
        };
        let mut after = o.clone();
        after.parent = Some(id.clone());
        out.summary.edited.push(info(&o, vec![Change::Reparented]));
        shadow.put(after);
        out.ops.push(OpInput::Update {
            id: o.id.clone(),
            set: p,
        });
    }
}

/// A place for a new object of `size` inside `frame`: its explicit position when that is below
/// the frame's title and clear of the frame's children and of `taken`, else the first free cell
/// (rows of cells the object's size, left to right, top to bottom); when none is free, below
/// everything. With the frame's new rect when it grows to hold the object.
pub(super) fn slot_in_frame(
    shadow: &Shadow,
    frame: &BoardObject,
    size: (f64, f64),
    explicit: Option<(f64, f64)>,
    taken: &[Rect],
) -> (Rect, Option<Rect>) {
    let mut busy: Vec<Rect> = shadow
        .descendants(frame.id.as_str())
        .iter()
        .filter_map(|i| shadow.get(i.as_str()))
        .filter(|o| o.kind != Kind::Connector)
        .map(rect_of)
        .collect();
    busy.extend_from_slice(taken);
    let (w, h) = size;
    let x0 = frame.x + NOTE_PADDING;
    let y0 = frame.y + FRAME_HEADER + NOTE_PADDING;
    let free = |r: &Rect| {
        busy.iter().all(|b| {
            r.right() + GAP <= b.x
                || b.right() + GAP <= r.x
                || r.bottom() + GAP <= b.y
                || b.bottom() + GAP <= r.y
        })
    };
    let grow = |r: Rect| {
        let grown = Rect::new(
            frame.x,
            frame.y,
            frame.w.max(r.right() + NOTE_PADDING - frame.x),
            frame.h.max(r.bottom() + NOTE_PADDING - frame.y),
        );
        (r, grown)
    };
    if let Some((x, y)) = explicit
        && x >= frame.x
        && y >= frame.y + FRAME_HEADER
        && free(&Rect::new(x, y, w, h))
    {
        let (r, grown) = grow(Rect::new(x, y, w, h));
        let bigger = grown.w > frame.w || grown.h > frame.h;
        return (r, bigger.then_some(grown));
    }
    let mut y = y0;
    while y + h <= frame.y + frame.h - NOTE_PADDING {
        let mut x = x0;
        while x + w <= frame.x + frame.w - NOTE_PADDING {
            let r = Rect::new(x, y, w, h);
            if free(&r) {
                return (r, None);
            }
            x += w + GAP;
        }
        y += h + GAP;
    }
    let bottom = busy.iter().map(|b| b.bottom() + GAP).fold(y0, f64::max);
    let (r, grown) = grow(Rect::new(x0, bottom, w, h));
    (r, Some(grown))
}

/// Grows a frame to `r` (an update op), keeping the shadow current.
pub(super) fn grow_frame(frame: &BoardObject, r: Rect, shadow: &mut Shadow, out: &mut Resolved) {
    let p = PatchInput {
        w: Some(Num(r.w)),
        h: Some(Num(r.h)),
        ..PatchInput::default()
    };
    let mut after = frame.clone();
    after.w = r.w;
    after.h = r.h;
    shadow.put(after);
    out.ops.push(OpInput::Update {
        id: frame.id.clone(),
        set: p,
    });
}
