//! Frame membership: new objects placed into a frame's free space (the frame growing when they
//! do not fit) and an object taken out of its frame (placed just outside it).

use serde::{Deserialize, Serialize};

use super::{Change, Obj, clean_gap, moved, rect_of, snap, snap_up};
use crate::geom::Rect;
use crate::place::open_spot;
use crate::spatial::SpatialIndex;
use crate::templates::{FRAME_HEADER, NOTE_PADDING};

/// Where [`place_in_frame`] put the new objects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FramePlacement {
    /// One box per requested size, in order.
    pub rects: Vec<Rect>,
    /// The frame's box afterwards: the same corner, as large or larger.
    pub frame: Rect,
    /// Whether the frame had to grow.
    pub grown: bool,
}

/// Places new objects of `sizes` into the frame `frame` whose contents are `occupied`
/// (LAYOUT-24). Each goes, in turn, to the first free spot in reading order (top to bottom,
/// then left to right) inside the frame's padded area below its title strip, at least `gap` from
/// the contents and from the objects placed before it. When none is free it goes below
/// everything, at the left, and the frame grows down (and right when the object is wider than
/// the frame) to hold it with its padding; the frame's corner and the contents never move. A
/// grown frame may reach objects outside it: run the collision pass on what it covers.
pub fn place_in_frame(
    frame: Rect,
    occupied: &[Rect],
    sizes: &[(f64, f64)],
    gap: f64,
) -> FramePlacement {
    let start = frame.sanitized();
    let mut f = start;
    let gap = clean_gap(gap);
    let clean: Vec<Rect> = occupied.iter().map(Rect::sanitized).collect();
    let mut idx = SpatialIndex::new(&clean);
    let mut tops: Vec<f64> = clean.iter().map(|r| r.bottom() + gap).collect();
    let mut rects = Vec::with_capacity(sizes.len());
    for &(w, h) in sizes {
        let Rect { w, h, .. } = Rect::new(0.0, 0.0, w, h).sanitized();
        let area = inner(&f);
        let r = first_free(&idx, &area, &tops, (w, h), gap).unwrap_or_else(|| {
            let below = tops.iter().copied().fold(area.y, f64::max);
            Rect::new(area.x, snap_up(below), w, h)
        });
        f = Rect::new(
            f.x,
            f.y,
            f.w.max(r.right() + NOTE_PADDING - f.x),
            f.h.max(r.bottom() + NOTE_PADDING - f.y),
        );
        idx.insert(clean.len() + rects.len(), r);
        tops.push(r.bottom() + gap);
        rects.push(r);
    }
    FramePlacement {
        rects,
        frame: f,
        grown: f != start,
    }
}

/// Moves `obj` out of the frame `frame` to the nearest spot (to where it is now) at least `gap`
/// from the frame and from every rectangle of `obstacles` (LAYOUT-24): just outside the frame,
/// beside or below or above it. `obstacles` are the objects around the frame (not `obj`, nor its
/// own contents). An object already clear of all of them does not move. Only x and y change.
pub fn take_out(obj: &Obj, frame: Rect, obstacles: &[Rect], gap: f64) -> Change {
    let r = rect_of(obj);
    let mut all: Vec<Rect> = obstacles.iter().map(Rect::sanitized).collect();
    all.push(frame.sanitized());
    let gap = clean_gap(gap);
    let idx = SpatialIndex::new(&all);
    let blockers = |q: &Rect| idx.near(q, gap).into_iter().map(|i| all[i]).collect();
    let spot = |g: f64| {
        let (x, y) = open_spot(&blockers, idx.bounds(), (r.w, r.h), r.center(), g);
        Rect::new(snap(x), snap(y), r.w, r.h)
    };
    let mut to = spot(gap);
    if !idx.near(&to, gap).is_empty() {
        // Rounding to 0.01 px brought it a hair too close: keep a hundredth more.
        to = spot(gap + 0.01);
    }
    moved(obj, to)
}

/// The padded area of a frame below its title strip.
fn inner(f: &Rect) -> Rect {
    let top = FRAME_HEADER + NOTE_PADDING;
    Rect::new(
        f.x + NOTE_PADDING,
        f.y + top,
        (f.w - 2.0 * NOTE_PADDING).max(0.0),
        (f.h - top - NOTE_PADDING).max(0.0),
    )
}

/// The first spot in reading order inside `area` for a `size` box at least `gap` from everything
/// in `idx`. Rows start at the area's top and `gap` below each object (`tops`); along a row the
/// box jumps past whatever is in its way, so each row costs a query per object in it.
fn first_free(
    idx: &SpatialIndex,
    area: &Rect,
    tops: &[f64],
    (w, h): (f64, f64),
    gap: f64,
) -> Option<Rect> {
    let mut ys: Vec<f64> = std::iter::once(area.y)
        .chain(tops.iter().copied().filter(|&t| t > area.y))
        .map(snap_up)
        .collect();
    ys.sort_by(f64::total_cmp);
    ys.dedup();
    for y in ys {
        if y + h > area.bottom() + 1e-9 {
            break;
        }
        let mut x = snap_up(area.x);
        while x + w <= area.right() + 1e-9 {
            let probe = Rect::new(x, y, w, h);
            match idx
                .first_blocker(&probe, gap, None)
                .and_then(|b| idx.get(b))
            {
                None => return Some(probe),
                Some(b) => x = snap_up(b.right() + gap).max(x + 0.01),
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_24_fills_free_space_then_grows() {
        // A 500x400 frame: content area from (30, 80), 440 wide, 290 tall; one note at its start.
        let frame = Rect::new(0.0, 0.0, 500.0, 400.0);
        let note = Rect::new(30.0, 80.0, 200.0, 200.0);
        let p = place_in_frame(frame, &[note], &[(200.0, 200.0), (200.0, 200.0)], 20.0);
        assert_eq!(p.rects[0], Rect::new(250.0, 80.0, 200.0, 200.0));
        assert_eq!(p.rects[1], Rect::new(30.0, 300.0, 200.0, 200.0));
        assert_eq!(p.frame, Rect::new(0.0, 0.0, 500.0, 530.0));
        assert!(p.grown);
    }

    #[test]
    fn layout_24_take_out_lands_just_outside() {
        let frame = Rect::new(0.0, 0.0, 500.0, 400.0);
        let o = Obj::new("n", Rect::new(400.0, 100.0, 80.0, 80.0));
        let c = take_out(&o, frame, &[], 20.0);
        assert_eq!((c.x, c.y), (Some(520.0), None));
    }
}
