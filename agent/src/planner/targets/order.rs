//! Which of several matches a description means: the most recent, the largest or smallest, the
//! one furthest toward a side of the board, a place in reading order, a row or column.

use super::super::parse::Desc;
use super::super::vocab::{Extreme, Side};
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
    if let Some(n) = d.ordinal {
        // Reading order: top to bottom, then left to right.
        c.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
        let k = if n > 0 {
            n as usize - 1
        } else {
            c.len().wrapping_sub(n.unsigned_abs() as usize)
        };
        return c.get(k).map(|o| vec![o.id.clone()]).unwrap_or_default();
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
