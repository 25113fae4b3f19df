//! Align, distribute, space and stack: positions along one axis (and, for a stack, the other).

use serde::{Deserialize, Serialize};

use super::{
    ArrangeError, Axis, Change, Obj, by_centre, clean_gap, diff, find, moved, nonempty, rect_of,
    snap_up,
};
use crate::geom::Rect;

/// Which edge or centre line the objects share after [`align`]. The names are the browser
/// client's: `Center` is "centre horizontally" (the centres share one x), `Middle` is "centre
/// vertically" (the centres share one y).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Align {
    /// Left edges (x).
    Left,
    /// Horizontal centres (x).
    Center,
    /// Right edges (x).
    Right,
    /// Top edges (y).
    Top,
    /// Vertical centres (y).
    Middle,
    /// Bottom edges (y).
    Bottom,
}

/// Aligns the objects to the edge or centre line `how` of the selection's bounds, or of the
/// object `to` (which stays where it is) (LAYOUT-18). Only x changes for `Left`, `Center`,
/// `Right`, only y for `Top`, `Middle`, `Bottom`; sizes never change. Matches the browser
/// client's align.
pub fn align(objs: &[Obj], how: Align, to: Option<&str>) -> Result<Vec<Change>, ArrangeError> {
    let reference = match to {
        Some(key) => rect_of(&objs[find(objs, key)?]),
        None => match Rect::union_all(&objs.iter().map(rect_of).collect::<Vec<_>>()) {
            Some(b) => b,
            None => return Ok(Vec::new()),
        },
    };
    let b = reference;
    Ok(nonempty(objs.iter().map(|o| {
        let r = rect_of(o);
        let mut c = Change {
            key: o.key.clone(),
            ..Change::default()
        };
        match how {
            Align::Left => c.x = diff(o.rect.x, b.x),
            Align::Center => c.x = diff(o.rect.x, b.cx() - r.w / 2.0),
            Align::Right => c.x = diff(o.rect.x, b.right() - r.w),
            Align::Top => c.y = diff(o.rect.y, b.y),
            Align::Middle => c.y = diff(o.rect.y, b.cy() - r.h / 2.0),
            Align::Bottom => c.y = diff(o.rect.y, b.bottom() - r.h),
        }
        c
    })))
}

/// Spaces three or more objects evenly along `axis`: ordered by their centres, the first and
/// the last stay and every gap between neighbours becomes the same (LAYOUT-19). Only the axis
/// changes. When the objects are wider (taller) together than the span of the outer two, the
/// gaps are equal and negative. Matches the browser client's distribute.
pub fn distribute(objs: &[Obj], axis: Axis) -> Vec<Change> {
    let order = by_centre(objs, axis);
    let (Some(&first), Some(&last)) = (order.first(), order.last()) else {
        return Vec::new();
    };
    if order.len() < 3 {
        return Vec::new();
    }
    let (fs, fl) = axis.span(&rect_of(&objs[first]));
    let (ls, ll) = axis.span(&rect_of(&objs[last]));
    let used: f64 = order.iter().map(|&i| axis.span(&rect_of(&objs[i])).1).sum();
    let gap = (ls + ll - fs - used) / (order.len() - 1) as f64;
    let mut starts = vec![None; objs.len()];
    let mut at = fs + fl + gap;
    for &i in &order[1..order.len() - 1] {
        starts[i] = Some(at);
        at += axis.span(&rect_of(&objs[i])).1 + gap;
    }
    along(objs, axis, &starts)
}

/// Puts the objects `gap` px apart along `axis` (a negative gap counts as 0): ordered by their
/// centres, the first stays and each next one starts `gap` after the previous one ends
/// (LAYOUT-20). Only the axis changes, so no two objects overlap afterwards (every pair is at
/// least `gap` apart along the axis).
pub fn space(objs: &[Obj], axis: Axis, gap: f64) -> Vec<Change> {
    along(objs, axis, &chain(objs, axis, clean_gap(gap)))
}

/// Stacks the objects in a row (`Horizontal`) or a column (`Vertical`) `gap` px apart (a negative
/// gap counts as 0): ordered by their centres along the axis, the first stays, the others follow
/// it `gap` apart and are centred on its centre line across the axis (LAYOUT-20). No two objects
/// overlap afterwards.
pub fn stack(objs: &[Obj], axis: Axis, gap: f64) -> Vec<Change> {
    let starts = chain(objs, axis, clean_gap(gap));
    let Some(first) = by_centre(objs, axis).first().map(|&i| rect_of(&objs[i])) else {
        return Vec::new();
    };
    nonempty(objs.iter().zip(&starts).map(|(o, s)| {
        let r = rect_of(o);
        let to = match (axis, s) {
            (_, None) => r,
            (Axis::Horizontal, Some(x)) => Rect::new(*x, first.cy() - r.h / 2.0, r.w, r.h),
            (Axis::Vertical, Some(y)) => Rect::new(first.cx() - r.w / 2.0, *y, r.w, r.h),
        };
        moved(o, to)
    }))
}

/// New starts along `axis` for every object but the first by centre: each `gap` after the end
/// of the previous one (rounded up to 0.01 px, so rounding never brings two closer than `gap`).
fn chain(objs: &[Obj], axis: Axis, gap: f64) -> Vec<Option<f64>> {
    let order = by_centre(objs, axis);
    let mut starts = vec![None; objs.len()];
    let Some(&first) = order.first() else {
        return starts;
    };
    let (s, l) = axis.span(&rect_of(&objs[first]));
    let mut end = s + l;
    for &i in &order[1..] {
        let start = snap_up(end + gap);
        starts[i] = Some(start);
        end = start + axis.span(&rect_of(&objs[i])).1;
    }
    starts
}

/// Changes that move each object with a new start to it along `axis`.
fn along(objs: &[Obj], axis: Axis, starts: &[Option<f64>]) -> Vec<Change> {
    nonempty(objs.iter().zip(starts).map(|(o, s)| {
        let mut c = Change {
            key: o.key.clone(),
            ..Change::default()
        };
        if let Some(s) = *s {
            match axis {
                Axis::Horizontal => c.x = diff(o.rect.x, s),
                Axis::Vertical => c.y = diff(o.rect.y, s),
            }
        }
        c
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrange::apply;

    fn obj(k: &str, x: f64, y: f64, w: f64, h: f64) -> Obj {
        Obj::new(k, Rect::new(x, y, w, h))
    }

    #[test]
    fn layout_18_align_left_to_bounds_and_to_key() {
        let objs = [
            obj("a", 10.0, 0.0, 50.0, 50.0),
            obj("b", 100.0, 80.0, 20.0, 20.0),
        ];
        let c = align(&objs, Align::Left, None).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].key.as_str(), c[0].x, c[0].y), ("b", Some(10.0), None));
        let c = align(&objs, Align::Right, Some("b")).unwrap();
        assert_eq!((c[0].key.as_str(), c[0].x), ("a", Some(70.0)));
        assert_eq!(
            align(&objs, Align::Top, Some("zz")),
            Err(ArrangeError::UnknownKey("zz".into()))
        );
    }

    #[test]
    fn layout_19_distribute_matches_the_client() {
        // As server/static/js/commands.js computes it: span 0..300, used 150, gap 75.
        let objs = [
            obj("a", 0.0, 0.0, 50.0, 10.0),
            obj("c", 250.0, 0.0, 50.0, 10.0),
            obj("b", 60.0, 40.0, 50.0, 10.0),
        ];
        let c = distribute(&objs, Axis::Horizontal);
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].key.as_str(), c[0].x, c[0].y),
            ("b", Some(125.0), None)
        );
    }

    #[test]
    fn layout_20_stack_a_column() {
        let objs = [
            obj("a", 0.0, 0.0, 100.0, 40.0),
            obj("b", 300.0, 10.0, 50.0, 40.0),
        ];
        let out = apply(&objs, &stack(&objs, Axis::Vertical, 20.0));
        assert_eq!(out[0].rect, objs[0].rect);
        assert_eq!(out[1].rect, Rect::new(25.0, 60.0, 50.0, 40.0));
    }
}
