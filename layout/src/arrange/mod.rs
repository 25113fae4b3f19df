//! Arrangement operations on existing objects, as a board tool's menu has them: align, distribute,
//! space, stack, same size, scale one axis, rotate, flip, relative layering, and placing objects
//! into or out of a frame.
//!
//! Every operation takes [`Obj`]s (a key, the stored box, its rotation and z order) and returns
//! [`Change`]s: one per object that changes, in input order, holding only the properties that
//! change (LAYOUT-17); [`apply`] writes them back. Positions and sizes are rounded to 0.01 px as
//! the browser client rounds them, and a value is reported only when it differs from the current
//! one (a value that only rounds to another hundredth does not change).
//!
//! Boxes are the stored, unrotated `x, y, w, h` (the client's align and distribute use the same).
//! Pass the objects that move as a unit: a frame's contents follow the frame on the board, so a
//! child whose frame is also passed should be left out (the client's "move roots").
//!
//! | operation | what changes | promises no new overlap |
//! |---|---|---|
//! | [`align`] | x or y only (one axis) | no |
//! | [`distribute`] | the axis, for the objects between the outer two | yes, when the objects fit between the outer two |
//! | [`space`] | the axis, for every object but the first | yes: every pair at least the gap apart |
//! | [`stack`] | x and y of every object but the first | yes: every pair at least the gap apart |
//! | [`same_size`] | w and/or h (top-left corner kept) | no |
//! | [`scale_axis`] | w or h about the centre, so x or y too | no |
//! | [`rotate`] | rotation; with [`Pivot::Selection`] also x, y | no; about the selection the turn is rigid, so drawn objects that were apart stay apart (their stored boxes may not) |
//! | [`flip`] | x or y (mirrored positions) and rotation | yes: every pairwise separation is kept |
//! | [`layer`] | z | — |
//! | [`place_in_frame`] | new boxes; the frame's w, h when it grows | yes, inside the frame |
//! | [`take_out`] | x, y of the object | yes, against the frame and the obstacles given |

mod align;
mod frame;
mod layer;
mod resize;

pub use align::{Align, align, distribute, space, stack};
pub use frame::{FramePlacement, place_in_frame, take_out};
pub use layer::{Layer, Z_LIMIT, layer};
pub use resize::{Dimension, Flip, Pivot, flip, rotate, same_size, scale_axis};

use serde::{Deserialize, Serialize};

use crate::geom::Rect;

/// An existing object to arrange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Obj {
    /// Caller's key (the object's id), echoed in [`Change::key`].
    pub key: String,
    /// The stored box: top-left corner and size, before rotation.
    pub rect: Rect,
    /// Rotation in degrees (clockwise, about the box's centre).
    pub rotation: f64,
    /// Z order: higher is drawn in front; ties are ordered by key.
    pub z: i64,
}

impl Obj {
    /// An unrotated object at z 0.
    pub fn new(key: impl Into<String>, rect: Rect) -> Self {
        Self {
            key: key.into(),
            rect,
            rotation: 0.0,
            z: 0,
        }
    }

    /// The same object rotated by `degrees`.
    pub fn with_rotation(mut self, degrees: f64) -> Self {
        self.rotation = degrees;
        self
    }

    /// The same object at z order `z`.
    pub fn with_z(mut self, z: i64) -> Self {
        self.z = z;
        self
    }
}

/// The properties of one object that an operation changes; `None` means unchanged.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Change {
    /// Key of the object.
    pub key: String,
    /// New left edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    /// New top edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    /// New width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w: Option<f64>,
    /// New height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub h: Option<f64>,
    /// New rotation in degrees, in `[0, 360)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<f64>,
    /// New z order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z: Option<i64>,
}

impl Change {
    /// Whether nothing changes.
    pub fn is_empty(&self) -> bool {
        self.x.is_none()
            && self.y.is_none()
            && self.w.is_none()
            && self.h.is_none()
            && self.rotation.is_none()
            && self.z.is_none()
    }

    /// Writes the change into `obj`.
    pub fn apply_to(&self, obj: &mut Obj) {
        let r = &mut obj.rect;
        for (field, v) in [
            (&mut r.x, self.x),
            (&mut r.y, self.y),
            (&mut r.w, self.w),
            (&mut r.h, self.h),
            (&mut obj.rotation, self.rotation),
        ] {
            if let Some(v) = v {
                *field = v;
            }
        }
        if let Some(z) = self.z {
            obj.z = z;
        }
    }
}

/// `objs` with `changes` applied (matched by key; the first object of a key).
pub fn apply(objs: &[Obj], changes: &[Change]) -> Vec<Obj> {
    let mut out = objs.to_vec();
    for c in changes {
        if let Some(o) = out.iter_mut().find(|o| o.key == c.key) {
            c.apply_to(o);
        }
    }
    out
}

/// Why an operation did nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArrangeError {
    /// A key the operation was asked to refer to is not among the objects.
    UnknownKey(String),
    /// A scale factor that is not a finite number above zero.
    BadFactor,
}

impl std::fmt::Display for ArrangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::UnknownKey(k) => write!(f, "no object with key '{k}' among the objects"),
            Self::BadFactor => f.write_str("a scale factor must be a finite number above zero"),
        }
    }
}

impl std::error::Error for ArrangeError {}

/// The axis an operation works along: `Horizontal` is left to right (x), `Vertical` top to
/// bottom (y).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Axis {
    /// Along x (a row).
    Horizontal,
    /// Along y (a column).
    Vertical,
}

impl Axis {
    /// Start and length of `r` along this axis.
    fn span(self, r: &Rect) -> (f64, f64) {
        match self {
            Self::Horizontal => (r.x, r.w),
            Self::Vertical => (r.y, r.h),
        }
    }
}

/// Rounds to 0.01 px, as the browser client does.
fn snap(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Rounds up to 0.01 px: never below `v` (by more than float noise).
fn snap_up(v: f64) -> f64 {
    let s = snap(v);
    if s < v - 1e-9 { s + 0.01 } else { s }
}

/// `Some(new)` (rounded) when it differs from `old`: a value that stays (or only rounds to
/// another hundredth) is not a change, so sizes and positions off the 0.01 grid are left alone.
fn diff(old: f64, new: f64) -> Option<f64> {
    let same = |v: f64| old.is_finite() && (v - old).abs() <= 1e-9;
    let snapped = snap(new);
    (!same(new) && !same(snapped)).then_some(snapped)
}

/// The object's box made finite with a non-negative size.
fn rect_of(o: &Obj) -> Rect {
    o.rect.sanitized()
}

/// A change of `o` to the box `to` (fields that differ only).
fn moved(o: &Obj, to: Rect) -> Change {
    Change {
        key: o.key.clone(),
        x: diff(o.rect.x, to.x),
        y: diff(o.rect.y, to.y),
        w: diff(o.rect.w, to.w),
        h: diff(o.rect.h, to.h),
        ..Change::default()
    }
}

/// The non-empty changes, in input order.
fn nonempty(changes: impl IntoIterator<Item = Change>) -> Vec<Change> {
    changes.into_iter().filter(|c| !c.is_empty()).collect()
}

/// Index of the first object with `key`.
fn find(objs: &[Obj], key: &str) -> Result<usize, ArrangeError> {
    objs.iter()
        .position(|o| o.key == key)
        .ok_or_else(|| ArrangeError::UnknownKey(key.to_string()))
}

/// A gap made finite and non-negative.
fn clean_gap(gap: f64) -> f64 {
    if gap.is_finite() { gap.max(0.0) } else { 0.0 }
}

/// Indices of `objs` by the centre along `axis`, ties in input order.
fn by_centre(objs: &[Obj], axis: Axis) -> Vec<usize> {
    let mut order: Vec<usize> = (0..objs.len()).collect();
    let centre = |i: usize| {
        let (s, l) = axis.span(&rect_of(&objs[i]));
        s + l / 2.0
    };
    order.sort_by(|&a, &b| centre(a).total_cmp(&centre(b)).then(a.cmp(&b)));
    order
}
