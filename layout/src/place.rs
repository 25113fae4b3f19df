//! Open-space search: where a group of a given size can go near a point without touching
//! anything already on the board.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};

use crate::geom::Rect;
use crate::spatial::SpatialIndex;

/// Expansions of the best-first search before it settles for the nearest guaranteed-free spot
/// beside the bounding box of all obstacles.
const MAX_EXPANSIONS: usize = 2048;
/// Obstacles examined by the search before it settles for the fallback (bounds the cost of
/// searching for a very large group on a crowded board).
const MAX_VISITS: usize = 40_000;

/// The top-left corner at which a `size` box can be placed, as close as possible to the centre of
/// the viewport `near`, at least `gap` away from every rectangle of `existing` (LAYOUT-9).
///
/// The viewport centre itself is tried first; then positions flush beside the objects in the way
/// (best-first by distance); the search always ends, at worst beside the bounding box of
/// everything. Sizes are clamped to be non-negative; non-finite input is treated as zero.
pub fn find_open_space(existing: &[Rect], size: (f64, f64), near: Rect, gap: f64) -> (f64, f64) {
    let clean: Vec<Rect> = existing.iter().map(Rect::sanitized).collect();
    let idx = SpatialIndex::new(&clean);
    let near = near.sanitized();
    let blockers = |r: &Rect| idx.near(r, gap).into_iter().map(|i| clean[i]).collect();
    open_spot(&blockers, Rect::union_all(&clean), size, near.center(), gap)
}

/// Like [`find_open_space`] for a whole group: returns the `(dx, dy)` that moves `group` (the
/// bounding box of the group's objects) to open space near the viewport.
pub fn place_group(existing: &[Rect], group: Rect, near: Rect, gap: f64) -> (f64, f64) {
    let g = group.sanitized();
    let (x, y) = find_open_space(existing, (g.w, g.h), near, gap);
    (x - g.x, y - g.y)
}

#[derive(PartialEq)]
struct Cand {
    dist: f64,
    x: f64,
    y: f64,
}

impl Eq for Cand {}

impl Ord for Cand {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the nearest first.
        o.dist
            .total_cmp(&self.dist)
            .then_with(|| o.y.total_cmp(&self.y))
            .then_with(|| o.x.total_cmp(&self.x))
    }
}

impl PartialOrd for Cand {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Best-first search for a free top-left corner for a `size` box whose centre should be near
/// `target`. `blockers(r)` lists the obstacles closer than `gap` to `r`; `bounds` must contain
/// every obstacle (a superset is fine).
pub(crate) fn open_spot(
    blockers: &dyn Fn(&Rect) -> Vec<Rect>,
    bounds: Option<Rect>,
    size: (f64, f64),
    target: (f64, f64),
    gap: f64,
) -> (f64, f64) {
    let fin = |v: f64| if v.is_finite() { v } else { 0.0 };
    let (w, h) = (fin(size.0).max(0.0), fin(size.1).max(0.0));
    let gap = fin(gap).max(0.0);
    let (tx, ty) = (fin(target.0), fin(target.1));
    let dist = |x: f64, y: f64| ((x + w / 2.0 - tx).powi(2) + (y + h / 2.0 - ty).powi(2)).sqrt();
    let (sx, sy) = (tx - w / 2.0, ty - h / 2.0);

    // Spots beside the bounding box of everything are always free: the nearest one bounds
    // the search (nothing farther is ever considered).
    let mut fallback = (sx, sy);
    let mut limit = f64::INFINITY;
    if let Some(b) = bounds {
        let cy = sy.clamp(b.y - h - gap, b.bottom() + gap);
        let cx = sx.clamp(b.x - w - gap, b.right() + gap);
        for (x, y) in [
            (b.right() + gap, cy),
            (b.x - gap - w, cy),
            (cx, b.bottom() + gap),
            (cx, b.y - gap - h),
        ] {
            if dist(x, y) < limit {
                limit = dist(x, y);
                fallback = (x, y);
            }
        }
    }

    let mut heap = BinaryHeap::new();
    let mut seen: HashSet<(i64, i64)> = HashSet::new();
    let mut push = |heap: &mut BinaryHeap<Cand>, x: f64, y: f64| {
        let d = dist(x, y);
        // Quantised to a tenth of a pixel so float noise does not defeat the visited set.
        let key = ((x * 10.0).round() as i64, (y * 10.0).round() as i64);
        if d <= limit && seen.insert(key) {
            heap.push(Cand { dist: d, x, y });
        }
    };
    push(&mut heap, sx, sy);
    let (mut expansions, mut visits) = (0, 0);
    while let Some(c) = heap.pop() {
        let bs = blockers(&Rect::new(c.x, c.y, w, h));
        if bs.is_empty() {
            return (c.x, c.y);
        }
        expansions += 1;
        visits += bs.len();
        if expansions > MAX_EXPANSIONS || visits > MAX_VISITS {
            break;
        }
        // Flush past every blocker, in each direction.
        let fold = |f: fn(&Rect) -> f64, pick: fn(f64, f64) -> f64, init: f64| {
            bs.iter().map(f).fold(init, pick)
        };
        let right = fold(Rect::right, f64::max, f64::NEG_INFINITY);
        let left = fold(|r| r.x, f64::min, f64::INFINITY);
        let below = fold(Rect::bottom, f64::max, f64::NEG_INFINITY);
        let above = fold(|r| r.y, f64::min, f64::INFINITY);
        push(&mut heap, right + gap, c.y);
        push(&mut heap, left - gap - w, c.y);
        push(&mut heap, c.x, below + gap);
        push(&mut heap, c.x, above - gap - h);
    }
    if blockers(&Rect::new(fallback.0, fallback.1, w, h)).is_empty() {
        fallback
    } else {
        // Only reachable when `bounds` missed an obstacle; stay total anyway.
        let b = bounds.unwrap_or_default();
        (b.right() + gap, b.y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_9_viewport_centre_when_free() {
        let (x, y) = find_open_space(&[], (100.0, 50.0), Rect::new(0.0, 0.0, 1000.0, 800.0), 20.0);
        assert_eq!((x, y), (450.0, 375.0));
    }

    #[test]
    fn layout_9_never_on_top_of_existing() {
        let existing: Vec<Rect> = (0..10)
            .flat_map(|i| {
                (0..10).map(move |j| Rect::new(i as f64 * 110.0, j as f64 * 110.0, 100.0, 100.0))
            })
            .collect();
        let vp = Rect::new(0.0, 0.0, 1000.0, 1000.0);
        let (x, y) = find_open_space(&existing, (300.0, 300.0), vp, 20.0);
        let r = Rect::new(x, y, 300.0, 300.0);
        assert!(existing.iter().all(|e| !e.intersects_with_gap(&r, 20.0)));
    }
}
