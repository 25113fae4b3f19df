//! Same size, scaling one axis, rotation and flips.

use serde::{Deserialize, Serialize};

use super::{ArrangeError, Axis, Change, Obj, diff, find, moved, nonempty, rect_of, snap};
use crate::geom::Rect;

/// Which sizes [`same_size`] makes equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dimension {
    /// Widths only.
    Width,
    /// Heights only.
    Height,
    /// Widths and heights.
    Both,
}

/// Where [`rotate`] turns the objects about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pivot {
    /// Each object about its own centre: only rotations change.
    Each,
    /// The selection as one rigid piece about the centre of its bounds, as a multi-selection
    /// turns in a drawing tool: the objects' centres turn with it and each object turns as much.
    Selection,
}

/// The mirror [`flip`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Flip {
    /// Left and right change places (mirrored across the vertical centre line).
    Horizontal,
    /// Top and bottom change places (mirrored across the horizontal centre line).
    Vertical,
}

/// Makes the widths, heights or both equal (LAYOUT-21): to the size of the object `to`, or to the
/// largest width and the largest height among the objects. Each object keeps its top-left corner
/// (as setting w and h does); only w and h change.
pub fn same_size(
    objs: &[Obj],
    dim: Dimension,
    to: Option<&str>,
) -> Result<Vec<Change>, ArrangeError> {
    let (w, h) = match to {
        Some(key) => {
            let r = rect_of(&objs[find(objs, key)?]);
            (r.w, r.h)
        }
        None => objs
            .iter()
            .map(rect_of)
            .fold((0.0, 0.0), |(w, h), r| (f64::max(w, r.w), f64::max(h, r.h))),
    };
    let (sw, sh) = match dim {
        Dimension::Width => (true, false),
        Dimension::Height => (false, true),
        Dimension::Both => (true, true),
    };
    Ok(nonempty(objs.iter().map(|o| Change {
        key: o.key.clone(),
        w: if sw { diff(o.rect.w, w) } else { None },
        h: if sh { diff(o.rect.h, h) } else { None },
        ..Change::default()
    })))
}

/// Scales each object along one axis by `factor` about its own centre ("twice as wide" is
/// `Horizontal`, 2.0) (LAYOUT-21): w and x change for `Horizontal`, h and y for `Vertical`.
/// A factor that is not a finite number above zero is refused. Sizes are not clamped to the
/// board's limits: the board does that when it applies them.
pub fn scale_axis(objs: &[Obj], axis: Axis, factor: f64) -> Result<Vec<Change>, ArrangeError> {
    if !(factor.is_finite() && factor > 0.0) {
        return Err(ArrangeError::BadFactor);
    }
    Ok(nonempty(objs.iter().map(|o| {
        let r = rect_of(o);
        let to = match axis {
            Axis::Horizontal => Rect::centered(r.cx(), r.cy(), snap(r.w * factor), r.h),
            Axis::Vertical => Rect::centered(r.cx(), r.cy(), r.w, snap(r.h * factor)),
        };
        moved(o, to)
    })))
}

/// Turns the objects by `degrees` (clockwise; a non-finite angle counts as 0) (LAYOUT-22). Every
/// rotation is normalised to `[0, 360)`, rounded to 0.01°. With [`Pivot::Selection`] the
/// objects' centres also turn about the centre of the selection's bounds, so the drawing turns
/// as one rigid piece: distances between centres are kept and drawn objects that were apart stay
/// apart (their stored, unrotated boxes may come closer).
pub fn rotate(objs: &[Obj], degrees: f64, pivot: Pivot) -> Vec<Change> {
    let d = if degrees.is_finite() { degrees } else { 0.0 };
    let centre = Rect::union_all(&objs.iter().map(rect_of).collect::<Vec<_>>())
        .map_or((0.0, 0.0), |b| b.center());
    let (sin, cos) = d.to_radians().sin_cos();
    nonempty(objs.iter().map(|o| {
        let r = rect_of(o);
        let mut c = match pivot {
            Pivot::Each => Change {
                key: o.key.clone(),
                ..Change::default()
            },
            Pivot::Selection => {
                let (dx, dy) = (r.cx() - centre.0, r.cy() - centre.1);
                let (cx, cy) = (
                    centre.0 + dx * cos - dy * sin,
                    centre.1 + dx * sin + dy * cos,
                );
                moved(o, Rect::centered(cx, cy, r.w, r.h))
            }
        };
        c.rotation = turn(o.rotation, norm_degrees(o.rotation + d));
        c
    }))
}

/// Mirrors the selection (LAYOUT-22): each object's box is mirrored across the centre line of the
/// selection's bounds, so the objects change places left to right (or top to bottom) and every
/// distance between two objects is kept. An object has no mirror property, so its contents
/// (text, a triangle's point) are not mirrored; its outline is: a rotation `r` becomes `-r`. A
/// single unrotated object does not change.
pub fn flip(objs: &[Obj], how: Flip) -> Vec<Change> {
    let Some(b) = Rect::union_all(&objs.iter().map(rect_of).collect::<Vec<_>>()) else {
        return Vec::new();
    };
    nonempty(objs.iter().map(|o| {
        let r = rect_of(o);
        let to = match how {
            Flip::Horizontal => Rect::new(b.x + b.right() - r.right(), r.y, r.w, r.h),
            Flip::Vertical => Rect::new(r.x, b.y + b.bottom() - r.bottom(), r.w, r.h),
        };
        let mut c = moved(o, to);
        c.rotation = turn(o.rotation, norm_degrees(-o.rotation));
        c
    }))
}

/// An angle in degrees rounded to 0.01 and brought into `[0, 360)` (non-finite: 0), as the
/// board normalises rotations.
pub(crate) fn norm_degrees(v: f64) -> f64 {
    if !v.is_finite() {
        return 0.0;
    }
    let r = snap(v).rem_euclid(360.0);
    // `-0.0 + 0.0` is `0.0`; a value that rounds up to 360 is 0.
    if r >= 360.0 - 1e-9 { 0.0 } else { r + 0.0 }
}

/// `Some(new)` when the rotation changes (an un-normalised old value counts as a change).
fn turn(old: f64, new: f64) -> Option<f64> {
    (!old.is_finite() || (new - old).abs() > 1e-9).then_some(new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrange::apply;

    #[test]
    fn layout_22_rotation_is_normalised() {
        assert_eq!(norm_degrees(-90.0), 270.0);
        assert_eq!(norm_degrees(720.0), 0.0);
        assert_eq!(norm_degrees(359.999), 0.0);
        assert_eq!(norm_degrees(f64::NAN), 0.0);
        let objs = [Obj::new("a", Rect::new(0.0, 0.0, 10.0, 10.0)).with_rotation(300.0)];
        let c = rotate(&objs, 90.0, Pivot::Each);
        assert_eq!(c[0].rotation, Some(30.0));
        assert_eq!((c[0].x, c[0].y), (None, None));
    }

    #[test]
    fn layout_22_selection_turns_as_one_piece() {
        // Two squares side by side turn a quarter about their common centre: one above the other.
        let objs = [
            Obj::new("a", Rect::new(0.0, 0.0, 10.0, 10.0)),
            Obj::new("b", Rect::new(20.0, 0.0, 10.0, 10.0)),
        ];
        let out = apply(&objs, &rotate(&objs, 90.0, Pivot::Selection));
        assert_eq!(out[0].rect, Rect::new(10.0, -10.0, 10.0, 10.0));
        assert_eq!(out[1].rect, Rect::new(10.0, 10.0, 10.0, 10.0));
        assert!(out.iter().all(|o| o.rotation == 90.0));
    }

    #[test]
    fn layout_22_flip_mirrors_positions_and_rotations() {
        let objs = [
            Obj::new("a", Rect::new(0.0, 0.0, 10.0, 10.0)).with_rotation(30.0),
            Obj::new("b", Rect::new(40.0, 5.0, 20.0, 10.0)),
        ];
        let out = apply(&objs, &flip(&objs, Flip::Horizontal));
        assert_eq!(out[0].rect, Rect::new(50.0, 0.0, 10.0, 10.0));
        assert_eq!(out[0].rotation, 330.0);
        assert_eq!(out[1].rect, Rect::new(0.0, 5.0, 20.0, 10.0));
        let single = [Obj::new("a", Rect::new(3.0, 4.0, 10.0, 10.0))];
        assert!(flip(&single, Flip::Vertical).is_empty());
    }
}
