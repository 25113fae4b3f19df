//! Pushing boxes apart from fixed obstacles and from each other, with relocation to open space
//! as the fallback.

use crate::geom::Rect;
use crate::place::open_spot;
use crate::spatial::SpatialIndex;

/// Extra distance added to every push so float rounding never leaves a pair exactly at the limit.
const SLACK: f64 = 0.01;
/// Above this many boxes still in conflict after pushing, they are relocated as one pack.
const PACK_THRESHOLD: usize = 8;
/// Consecutive iterations pushed by fixed objects after which a box counts as wedged.
const WEDGED_AFTER: usize = 4;
/// Push iterations without fewer boxes in conflict before relocation takes over.
const STALL_LIMIT: usize = 6;

/// Outcome of [`separate`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Separation {
    /// Push iterations that moved something.
    pub iterations: usize,
    /// Boxes moved to open space because pushing did not clear them.
    pub relocated: usize,
    /// Whether every box ended `gap` clear of the fixed rectangles and of each other.
    pub clear: bool,
}

/// How far `b` must move in each direction (right, down, left, up) to be `gap` clear of `a`.
fn escapes(a: &Rect, b: &Rect, gap: f64) -> [(f64, f64, f64); 4] {
    [
        (a.right() + gap - b.x, 1.0, 0.0),
        (a.bottom() + gap - b.y, 0.0, 1.0),
        (b.right() + gap - a.x, -1.0, 0.0),
        (b.bottom() + gap - a.y, 0.0, -1.0),
    ]
}

/// The shortest move of `b` that clears it from `a` by `gap`: `(dx, dy)`. Ties go toward the side
/// `b`'s centre already leans to, then right, down, left, up.
fn min_push(a: &Rect, b: &Rect, gap: f64) -> (f64, f64) {
    let lean_x = b.cx() - a.cx();
    let lean_y = b.cy() - a.cy();
    let mut best = (f64::INFINITY, 0.0, 0.0, 0u8);
    for (d, ux, uy) in escapes(a, b, gap) {
        let agrees = ux * lean_x + uy * lean_y;
        let rank = if agrees > 0.0 {
            0
        } else if agrees == 0.0 {
            1
        } else {
            2
        };
        if d < best.0 - 1e-9 || ((d - best.0).abs() <= 1e-9 && rank < best.3) {
            best = (d, ux, uy, rank);
        }
    }
    let m = best.0.max(0.0) + SLACK;
    (best.1 * m, best.2 * m)
}

/// Moves `boxes` (never `fixed`) until every box is at least `gap` from every fixed rectangle
/// and every other box, pushing for at most `max_iter` iterations (fewer when the number of
/// boxes in conflict stops falling); boxes still in conflict then go to the nearest open spot
/// when `relocate` is set (one by one, or as one packed block when there are many).
pub(crate) fn separate(
    fixed: &[Rect],
    ignore: &[Option<usize>],
    boxes: &mut [Rect],
    gap: f64,
    max_iter: usize,
    relocate: bool,
) -> Separation {
    let fixed_idx = SpatialIndex::new(fixed);
    // The fixed frame a box sits in (if any) is not an obstacle for it.
    let ign = |i: usize| ignore.get(i).copied().flatten();
    let mut out = Separation::default();
    let mut best_conflicts = usize::MAX;
    let mut stalled = 0;
    // Boxes pushed by fixed objects in many consecutive iterations are wedged between them:
    // they stop taking part (others no longer bounce off them) and are relocated at the end.
    let mut wedged = vec![0usize; boxes.len()];
    let active = |w: usize| w < WEDGED_AFTER;
    // Boxes are handled from the centre of the batch outwards and, of two boxes in conflict,
    // the outer one moves: conflicts travel outwards as a wave instead of bouncing back.
    let n = boxes.len();
    let (mx, my) = boxes
        .iter()
        .fold((0.0, 0.0), |a, b| (a.0 + b.cx(), a.1 + b.cy()));
    let (mx, my) = (mx / n.max(1) as f64, my / n.max(1) as f64);
    let d2 = |b: &Rect| (b.cx() - mx).powi(2) + (b.cy() - my).powi(2);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| d2(&boxes[a]).total_cmp(&d2(&boxes[b])).then(a.cmp(&b)));
    let mut rank = vec![0; n];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    // Only boxes that moved (or start out) can be in a new conflict: the others are skipped.
    let mut dirty = vec![true; n];
    for _ in 0..max_iter {
        let unit_idx = SpatialIndex::new(boxes);
        let mut moved = vec![false; n];
        let mut conflicts = 0;
        for &i in &order {
            if !dirty[i] || !active(wedged[i]) {
                continue;
            }
            let mut hit = false;
            let mut by_fixed = false;
            for h in fixed_idx.near(&boxes[i], gap) {
                if Some(h) == ign(i) {
                    continue;
                }
                let f = fixed[h];
                if f.intersects_with_gap(&boxes[i], gap) {
                    let (dx, dy) = min_push(&f, &boxes[i], gap);
                    boxes[i] = boxes[i].translated(dx, dy);
                    hit = true;
                    by_fixed = true;
                }
            }
            wedged[i] = if by_fixed { wedged[i] + 1 } else { 0 };
            moved[i] |= hit;
            for j in unit_idx.near(&boxes[i], gap) {
                if j == i || !active(wedged[j]) {
                    continue;
                }
                if boxes[i].intersects_with_gap(&boxes[j], gap) {
                    let (anchor, mover) = if rank[i] < rank[j] { (i, j) } else { (j, i) };
                    let (dx, dy) = min_push(&boxes[anchor], &boxes[mover], gap);
                    boxes[mover] = boxes[mover].translated(dx, dy);
                    moved[mover] = true;
                    hit = true;
                }
            }
            conflicts += usize::from(hit);
        }
        dirty = moved;
        if conflicts == 0 {
            break;
        }
        out.iterations += 1;
        // Pushing that no longer helps hands over to relocation early.
        if conflicts < best_conflicts {
            best_conflicts = conflicts;
            stalled = 0;
        } else {
            stalled += 1;
            if stalled >= STALL_LIMIT {
                break;
            }
        }
    }
    let mut unit_idx = SpatialIndex::new(boxes);
    let blocked = |r: &Rect, unit_idx: &SpatialIndex, skip: Option<usize>| {
        fixed_idx
            .first_blocker(r, gap, skip.and_then(ign))
            .is_some()
            || unit_idx.first_blocker(r, gap, skip).is_some()
    };
    let stuck: Vec<usize> = (0..boxes.len())
        .filter(|&i| blocked(&boxes[i], &unit_idx, Some(i)))
        .collect();
    out.clear = stuck.is_empty();
    if out.clear || !relocate {
        return out;
    }
    // Relocation only ever moves a box to a spot free of everything else: all clear after it.
    out.clear = true;

    let mut bounds = Rect::union_all(fixed.iter().chain(boxes.iter()));
    if stuck.len() > PACK_THRESHOLD {
        // Many stuck boxes: pack them together (rows, in index order) and move the pack to the
        // open space nearest their centroid, with one search.
        stuck.iter().for_each(|&i| unit_idx.remove(i));
        let k = stuck.len() as f64;
        let (cx, cy) = stuck.iter().fold((0.0, 0.0), |a, &i| {
            (a.0 + boxes[i].cx() / k, a.1 + boxes[i].cy() / k)
        });
        let area: f64 = stuck
            .iter()
            .map(|&i| (boxes[i].w + gap) * (boxes[i].h + gap))
            .sum();
        let widest = stuck.iter().map(|&i| boxes[i].w).fold(0.0, f64::max);
        let limit = widest.max(area.sqrt() * 1.2);
        let (mut x, mut y, mut row_h, mut pack_w) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
        for &i in &stuck {
            let b = boxes[i];
            if x > 0.0 && x + b.w > limit {
                x = 0.0;
                y += row_h + gap;
                row_h = 0.0;
            }
            boxes[i] = Rect::new(x, y, b.w, b.h);
            pack_w = pack_w.max(x + b.w);
            x += b.w + gap;
            row_h = row_h.max(b.h);
        }
        let pack_h = y + row_h;
        let obstacles = |r: &Rect| near_rects(&fixed_idx, None, &unit_idx, r, gap);
        let (px, py) = open_spot(&obstacles, bounds, (pack_w, pack_h), (cx, cy), gap);
        for &i in &stuck {
            boxes[i] = boxes[i].translated(px, py);
        }
        out.relocated += stuck.len();
        return out;
    }
    for i in stuck {
        if !blocked(&boxes[i], &unit_idx, Some(i)) {
            continue;
        }
        unit_idx.remove(i);
        let b = boxes[i];
        let obstacles = |r: &Rect| near_rects(&fixed_idx, ign(i), &unit_idx, r, gap);
        let (x, y) = open_spot(&obstacles, bounds, (b.w, b.h), b.center(), gap);
        boxes[i] = Rect::new(x, y, b.w, b.h);
        unit_idx.insert(i, boxes[i]);
        bounds = bounds.map(|bb| bb.union(&boxes[i]));
        out.relocated += 1;
    }
    out
}

/// Rectangles of both indexes closer than `gap` to `r` (`skip_a` of the first excepted).
fn near_rects(
    a: &SpatialIndex,
    skip_a: Option<usize>,
    b: &SpatialIndex,
    r: &Rect,
    gap: f64,
) -> Vec<Rect> {
    a.near(r, gap)
        .into_iter()
        .filter(|&i| Some(i) != skip_a)
        .filter_map(|i| a.get(i))
        .chain(b.near(r, gap).into_iter().filter_map(|i| b.get(i)))
        .collect()
}
