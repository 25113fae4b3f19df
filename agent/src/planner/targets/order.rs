//! Which of several matches a description means: the most recent, the largest or smallest, the
//! one furthest toward a side of the board, a place in reading order, a row or column.

use super::super::syntax::Desc;
use crate::lang::vocab::{Extreme, Side};
use protocol::{BoardObject, ObjectId};

/// How far an object is toward a side of the board.
fn toward(o: &BoardObject, side: Option<Side>) -> f64 {
    match side {
        Some(Side::Left) => -o.x,
        Some(Side::Right) => o.x + o.w,
        Some(Side::Top) => -o.y,
        Some(Side::Bottom) => o.y + o.h,
        None => 0.0,
    }
}

pub(super) fn pick(mut c: Vec<&BoardObject>, d: &Desc) -> Vec<ObjectId> {
    if d.ordinal == Some(0) && !c.is_empty() {
        let centre = |o: &BoardObject| (o.x + o.w / 2.0, o.y + o.h / 2.0);
        let k = c.len() as f64;
        let (mx, my) = c.iter().fold((0.0, 0.0), |(x, y), o| {
            let (cx, cy) = centre(o);
            (x + cx / k, y + cy / k)
        });
        let dist = |o: &BoardObject| {
            let (cx, cy) = centre(o);
            (cx - mx).hypot(cy - my)
        };
        return c
            .into_iter()
            .min_by(|a, b| dist(a).total_cmp(&dist(b)))
            .map(|o| vec![o.id.clone()])
            .unwrap_or_default();
    }
    if let Some(n) = d.ordinal {
        // Reading order: top to bottom, then left to right; "the last note" with no frame or
        // neighbour: the last made.
        if n < 0 && d.within.is_none() && d.near.is_none() {
            c.sort_by(|a, b| a.z.cmp(&b.z).then_with(|| a.version.cmp(&b.version)));
        } else {
            c.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
        }
        // "the first two", "the last 3": that many from there.
        let many = d.count.unwrap_or(1).max(1);
        let k = if n > 0 {
            n as usize - 1
        } else {
            c.len().wrapping_sub(n.unsigned_abs() as usize + many - 1)
        };
        return c
            .iter()
            .skip(k)
            .take(if k < c.len() { many } else { 0 })
            .map(|o| o.id.clone())
            .collect();
    }
    if d.all
        && let Some(side) = d.side
        && (d.count.is_some() || d.half)
    {
        return toward_side(c, d, side);
    }
    if d.all {
        // "the boxes in the bottom row": those level with the one furthest that way.
        if let Some(side) = d.side
            && let Some(far) = c
                .iter()
                .copied()
                .max_by(|a, b| toward(a, Some(side)).total_cmp(&toward(b, Some(side))))
        {
            let across = matches!(side, Side::Top | Side::Bottom);
            let (lo, hi) = if across {
                (far.y, far.y + far.h)
            } else {
                (far.x, far.x + far.w)
            };
            c.retain(|o| {
                let (a, b) = if across {
                    (o.y, o.y + o.h)
                } else {
                    (o.x, o.x + o.w)
                };
                a < hi && b > lo
            });
        }
        c.sort_by(|a, b| a.z.cmp(&b.z).then_with(|| a.id.cmp(&b.id)));
        return c.into_iter().map(|o| o.id.clone()).collect();
    }
    let key = |o: &BoardObject| -> f64 {
        match d.extreme {
            Some(Extreme::Largest) => o.w * o.h,
            Some(Extreme::Smallest) => -(o.w * o.h),
            None => toward(o, d.side) + toward(o, d.cross),
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

/// "the top two notes": that many furthest toward the side; "the notes on the left side": those
/// past the middle of the matches that way.
fn toward_side(mut c: Vec<&BoardObject>, d: &Desc, side: Side) -> Vec<ObjectId> {
    c.sort_by(|a, b| toward(b, Some(side)).total_cmp(&toward(a, Some(side))));
    if let Some(n) = d.count {
        c.truncate(n);
    } else {
        let centre = |o: &BoardObject| match side {
            Side::Left | Side::Right => o.x + o.w / 2.0,
            Side::Top | Side::Bottom => o.y + o.h / 2.0,
        };
        let lo = c.iter().map(|o| centre(o)).fold(f64::INFINITY, f64::min);
        let hi = c
            .iter()
            .map(|o| centre(o))
            .fold(f64::NEG_INFINITY, f64::max);
        let mid = (lo + hi) / 2.0;
        let far = |o: &BoardObject| match side {
            Side::Left | Side::Top => centre(o) <= mid,
            Side::Right | Side::Bottom => centre(o) >= mid,
        };
        c.retain(|o| far(o));
    }
    c.into_iter().map(|o| o.id.clone()).collect()
}
