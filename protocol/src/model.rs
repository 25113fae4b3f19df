//! The board model: objects, their kinds, and the lenient inputs edits arrive as.

use crate::ids::{ObjectId, UserId};
use crate::num::{Num, cap_text, clamp_coord, clamp_size, norm_rotation};
use crate::palette::resolve_color;
use serde::{Deserialize, Deserializer, Serialize};

/// What an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Note,
    Shape,
    Text,
    Frame,
    Connector,
    /// A picture: its bytes are a stored asset of the board, named by their SHA-256.
    Image,
}

impl Kind {
    /// Default `(w, h)` of a new object of this kind.
    pub fn default_size(self) -> (f64, f64) {
        match self {
            Kind::Note => (200.0, 200.0),
            Kind::Shape => (200.0, 120.0),
            Kind::Text => (200.0, 40.0),
            Kind::Frame => (400.0, 300.0),
            Kind::Connector => (10.0, 10.0),
            Kind::Image => (320.0, 240.0),
        }
    }

    /// The wire name (`note`, `shape`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Note => "note",
            Kind::Shape => "shape",
            Kind::Text => "text",
            Kind::Frame => "frame",
            Kind::Connector => "connector",
            Kind::Image => "image",
        }
    }
}

/// The outline of a shape. A circle is an ellipse with w = h, a square a rectangle with w = h;
/// `circle`, `oval`, `square` and `rect` are accepted on input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Geo {
    Rectangle,
    Ellipse,
    Diamond,
    Triangle,
    Hexagon,
    Star,
    Cloud,
}

impl Geo {
    /// Parses a geo name or one of its synonyms.
    pub fn parse(s: &str) -> Option<Geo> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "rectangle" | "rect" | "square" | "box" => Geo::Rectangle,
            "ellipse" | "circle" | "oval" => Geo::Ellipse,
            "diamond" | "rhombus" => Geo::Diamond,
            "triangle" => Geo::Triangle,
            "hexagon" => Geo::Hexagon,
            "star" => Geo::Star,
            "cloud" => Geo::Cloud,
            _ => return None,
        })
    }
}

impl<'de> Deserialize<'de> for Geo {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Geo::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown geo {s:?}")))
    }
}

/// Arrowheads of a connector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrow {
    #[default]
    End,
    Both,
    None,
}

/// One end of a connector: bound to an object (follows it) or a free point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Endpoint {
    Bound { id: ObjectId },
    Free { x: f64, y: f64 },
}

impl Endpoint {
    /// The object this end is bound to, if any.
    pub fn bound_id(&self) -> Option<&ObjectId> {
        match self {
            Endpoint::Bound { id } => Some(id),
            Endpoint::Free { .. } => None,
        }
    }
}

/// A connector end as a client sends it (numbers may be strings).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EndpointInput {
    Bound { id: ObjectId },
    Free { x: Num, y: Num },
}

impl EndpointInput {
    /// The normalized end (free points clamped).
    pub fn normalize(&self) -> Endpoint {
        match self {
            EndpointInput::Bound { id } => Endpoint::Bound { id: id.clone() },
            EndpointInput::Free { x, y } => Endpoint::Free {
                x: clamp_coord(x.0),
                y: clamp_coord(y.0),
            },
        }
    }
}

/// An object on a board, as stored and as sent to clients.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoardObject {
    pub id: ObjectId,
    pub kind: Kind,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    #[serde(default)]
    pub rotation: f64,
    #[serde(default)]
    pub z: i64,
    #[serde(default)]
    pub parent: Option<ObjectId>,
    #[serde(default)]
    pub text: String,
    pub color: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geo: Option<Geo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Endpoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Endpoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrow: Option<Arrow>,
    /// An image's picture: the SHA-256 of its stored bytes, 64 lowercase hex (images only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset: Option<String>,
    /// An image's description for people who cannot see it (at most 1,000 characters).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub alt: String,
    /// The part of an image's picture that shows, in fractions of the picture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crop: Option<Crop>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<UserId>,
    /// The seq of the command that last changed this object.
    #[serde(default)]
    pub version: u64,
}

/// Most characters of an image's `alt`.
pub const MAX_ALT_CHARS: usize = 1_000;

/// The part of a picture that shows: fractions of its width and height, inside 0..1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Crop {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Crop {
    /// Clamped inside the picture, at least 1 % of it on each side.
    pub fn normalize(self) -> Crop {
        let fin = |v: f64| if v.is_finite() { v } else { 0.0 };
        let x = fin(self.x).clamp(0.0, 0.99);
        let y = fin(self.y).clamp(0.0, 0.99);
        let w = fin(self.w).clamp(0.01, 1.0 - x);
        let h = fin(self.h).clamp(0.01, 1.0 - y);
        Crop { x, y, w, h }
    }
}

/// Whether `s` is an asset name: 64 lowercase hex digits (a SHA-256).
pub fn is_asset_name(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `alt` cut to [`MAX_ALT_CHARS`].
fn cap_alt(s: &str) -> String {
    match s.char_indices().nth(MAX_ALT_CHARS) {
        Some((i, _)) => s[..i].to_owned(),
        None => s.to_owned(),
    }
}

impl BoardObject {
    /// The ids this object refers to (parent and bound connector ends).
    pub fn references(&self) -> impl Iterator<Item = &ObjectId> {
        self.parent
            .iter()
            .chain(self.from.as_ref().and_then(Endpoint::bound_id))
            .chain(self.to.as_ref().and_then(Endpoint::bound_id))
    }
}

/// A create as a client sends it: everything but `kind` optional, numbers may be strings, colors
/// may be names, aliases or hex.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectInput {
    #[serde(default)]
    pub id: Option<ObjectId>,
    pub kind: Kind,
    #[serde(default)]
    pub x: Option<Num>,
    #[serde(default)]
    pub y: Option<Num>,
    #[serde(default)]
    pub w: Option<Num>,
    #[serde(default)]
    pub h: Option<Num>,
    #[serde(default)]
    pub rotation: Option<Num>,
    #[serde(default)]
    pub z: Option<Num>,
    #[serde(default)]
    pub parent: Option<ObjectId>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub color: Option<String>,
    #[serde(default)]
    pub geo: Option<Geo>,
    #[serde(default)]
    pub from: Option<EndpointInput>,
    #[serde(default)]
    pub to: Option<EndpointInput>,
    #[serde(default)]
    pub arrow: Option<Arrow>,
    #[serde(default)]
    pub asset: Option<String>,
    #[serde(default)]
    pub alt: Option<String>,
    #[serde(default)]
    pub crop: Option<Crop>,
    /// Accepted and ignored (the server sets it), so a client may send back what it received.
    #[serde(default)]
    pub created_by: Option<serde_json::Value>,
    /// Accepted and ignored (the server sets it).
    #[serde(default)]
    pub version: Option<serde_json::Value>,
}

impl ObjectInput {
    /// A minimal input of `kind` (all defaults).
    pub fn new(kind: Kind) -> Self {
        ObjectInput {
            id: None,
            kind,
            x: None,
            y: None,
            w: None,
            h: None,
            rotation: None,
            z: None,
            parent: None,
            text: None,
            color: None,
            geo: None,
            from: None,
            to: None,
            arrow: None,
            asset: None,
            alt: None,
            crop: None,
            created_by: None,
            version: None,
        }
    }

    /// Applies type defaults, clamping and color resolution. The id, z, author and version are
    /// filled in by the board.
    pub fn normalize(&self, id: ObjectId, z: i64) -> BoardObject {
        let (dw, dh) = self.kind.default_size();
        let is_connector = self.kind == Kind::Connector;
        BoardObject {
            id,
            kind: self.kind,
            x: clamp_coord(self.x.map_or(0.0, |n| n.0)),
            y: clamp_coord(self.y.map_or(0.0, |n| n.0)),
            w: clamp_size(self.w.map_or(dw, |n| n.0)),
            h: clamp_size(self.h.map_or(dh, |n| n.0)),
            rotation: norm_rotation(self.rotation.map_or(0.0, |n| n.0)),
            z: self.z.map_or(z, |n| clamp_z(n.0)),
            parent: self.parent.clone(),
            text: cap_text(self.text.as_deref().unwrap_or("")),
            color: resolve_color(self.color.as_deref().unwrap_or(""), self.kind),
            geo: match self.kind {
                Kind::Shape => Some(self.geo.unwrap_or(Geo::Rectangle)),
                _ => None,
            },
            from: self.from.as_ref().map(EndpointInput::normalize),
            to: self.to.as_ref().map(EndpointInput::normalize),
            arrow: is_connector.then(|| self.arrow.unwrap_or_default()),
            asset: self.asset.clone(),
            alt: cap_alt(self.alt.as_deref().unwrap_or("")),
            crop: self.crop.map(Crop::normalize),
            created_by: None,
            version: 0,
        }
    }
}

/// Clamps a z order to a safe integer range.
pub fn clamp_z(v: f64) -> i64 {
    v.clamp(-1e12, 1e12) as i64
}

/// `null` → `Some(None)` (clear), absent (with `default`) → `None` (leave as is).
pub(crate) fn double_option<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// An update as a client sends it. Unknown fields (including `id`, `kind`) are refused.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatchInput {
    #[serde(default)]
    pub x: Option<Num>,
    #[serde(default)]
    pub y: Option<Num>,
    #[serde(default)]
    pub w: Option<Num>,
    #[serde(default)]
    pub h: Option<Num>,
    #[serde(default)]
    pub rotation: Option<Num>,
    #[serde(default)]
    pub z: Option<Num>,
    /// `null` removes the object from its frame.
    #[serde(default, deserialize_with = "double_option")]
    pub parent: Option<Option<ObjectId>>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub color: Option<String>,
    #[serde(default)]
    pub geo: Option<Geo>,
    #[serde(default)]
    pub from: Option<EndpointInput>,
    #[serde(default)]
    pub to: Option<EndpointInput>,
    #[serde(default)]
    pub arrow: Option<Arrow>,
    #[serde(default)]
    pub asset: Option<String>,
    #[serde(default)]
    pub alt: Option<String>,
    /// `null` shows the whole picture again.
    #[serde(default, deserialize_with = "double_option")]
    pub crop: Option<Option<Crop>>,
}

/// A normalized update: final, clamped values of the fields it sets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Patch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub h: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z: Option<i64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "double_option"
    )]
    pub parent: Option<Option<ObjectId>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geo: Option<Geo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Endpoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Endpoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrow: Option<Arrow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "double_option"
    )]
    pub crop: Option<Option<Crop>>,
}

impl PatchInput {
    /// Clamps and resolves values for an object of `kind`.
    pub fn normalize(&self, kind: Kind) -> Patch {
        Patch {
            x: self.x.map(|n| clamp_coord(n.0)),
            y: self.y.map(|n| clamp_coord(n.0)),
            w: self.w.map(|n| clamp_size(n.0)),
            h: self.h.map(|n| clamp_size(n.0)),
            rotation: self.rotation.map(|n| norm_rotation(n.0)),
            z: self.z.map(|n| clamp_z(n.0)),
            parent: self.parent.clone(),
            text: self.text.as_deref().map(cap_text),
            color: self.color.as_deref().map(|c| resolve_color(c, kind)),
            geo: self.geo,
            from: self.from.as_ref().map(EndpointInput::normalize),
            to: self.to.as_ref().map(EndpointInput::normalize),
            arrow: self.arrow,
            asset: self.asset.clone(),
            alt: self.alt.as_deref().map(cap_alt),
            crop: self.crop.map(|c| c.map(Crop::normalize)),
        }
    }
}

impl Patch {
    /// True when the patch sets nothing.
    pub fn is_empty(&self) -> bool {
        *self == Patch::default()
    }

    /// Writes every field the patch sets into `o`.
    pub fn apply_to(&self, o: &mut BoardObject) {
        if let Some(v) = self.x {
            o.x = v;
        }
        if let Some(v) = self.y {
            o.y = v;
        }
        if let Some(v) = self.w {
            o.w = v;
        }
        if let Some(v) = self.h {
            o.h = v;
        }
        if let Some(v) = self.rotation {
            o.rotation = v;
        }
        if let Some(v) = self.z {
            o.z = v;
        }
        if let Some(v) = &self.parent {
            o.parent = v.clone();
        }
        if let Some(v) = &self.text {
            o.text = v.clone();
        }
        if let Some(v) = &self.color {
            o.color = v.clone();
        }
        if let Some(v) = self.geo {
            o.geo = Some(v);
        }
        if let Some(v) = &self.from {
            o.from = Some(v.clone());
        }
        if let Some(v) = &self.to {
            o.to = Some(v.clone());
        }
        if let Some(v) = self.arrow {
            o.arrow = Some(v);
        }
        if let Some(v) = &self.asset {
            o.asset = Some(v.clone());
        }
        if let Some(v) = &self.alt {
            o.alt = v.clone();
        }
        if let Some(v) = self.crop {
            o.crop = v;
        }
    }

    /// The patch that turns `current` back into `before` for each property where `current` still
    /// holds the value `after` gave it. Properties changed since by anyone else are left alone.
    pub fn revert(before: &BoardObject, after: &BoardObject, current: &BoardObject) -> Patch {
        fn pick<T: PartialEq + Clone>(b: &T, a: &T, c: &T) -> Option<T> {
            (b != a && c == a).then(|| b.clone())
        }
        Patch {
            x: pick(&before.x, &after.x, &current.x),
            y: pick(&before.y, &after.y, &current.y),
            w: pick(&before.w, &after.w, &current.w),
            h: pick(&before.h, &after.h, &current.h),
            rotation: pick(&before.rotation, &after.rotation, &current.rotation),
            z: pick(&before.z, &after.z, &current.z),
            parent: pick(&before.parent, &after.parent, &current.parent),
            text: pick(&before.text, &after.text, &current.text),
            color: pick(&before.color, &after.color, &current.color),
            geo: pick(&before.geo, &after.geo, &current.geo).flatten(),
            from: pick(&before.from, &after.from, &current.from).flatten(),
            to: pick(&before.to, &after.to, &current.to).flatten(),
            arrow: pick(&before.arrow, &after.arrow, &current.arrow).flatten(),
            asset: pick(&before.asset, &after.asset, &current.asset).flatten(),
            alt: pick(&before.alt, &after.alt, &current.alt),
            crop: pick(&before.crop, &after.crop, &current.crop),
        }
    }
}

/// One property of an object with its value: the sparse form of an update that undo history
/// keeps (a move is two numbers, not two whole objects).
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    X(f64),
    Y(f64),
    W(f64),
    H(f64),
    Rotation(f64),
    Z(i64),
    Parent(Option<ObjectId>),
    Text(String),
    Color(String),
    Geo(Option<Geo>),
    From(Option<Endpoint>),
    To(Option<Endpoint>),
    Arrow(Option<Arrow>),
    Asset(Option<String>),
    Alt(String),
    Crop(Option<Crop>),
}

impl Field {
    /// The properties an update may change that differ between `before` and `after`, as
    /// `(before, after)` pairs. (`id`, `kind` and `created_by` never change; `version` is
    /// bookkeeping.)
    pub fn diff(before: &BoardObject, after: &BoardObject) -> Vec<(Field, Field)> {
        let mut out = Vec::new();
        macro_rules! field {
            ($f:ident, $v:ident) => {
                if before.$f != after.$f {
                    out.push((Field::$v(before.$f.clone()), Field::$v(after.$f.clone())));
                }
            };
        }
        field!(x, X);
        field!(y, Y);
        field!(w, W);
        field!(h, H);
        field!(rotation, Rotation);
        field!(z, Z);
        field!(parent, Parent);
        field!(text, Text);
        field!(color, Color);
        field!(geo, Geo);
        field!(from, From);
        field!(to, To);
        field!(arrow, Arrow);
        field!(asset, Asset);
        field!(alt, Alt);
        field!(crop, Crop);
        out
    }

    /// Sets this property on `o`.
    pub fn set_on(&self, o: &mut BoardObject) {
        match self {
            Field::X(v) => o.x = *v,
            Field::Y(v) => o.y = *v,
            Field::W(v) => o.w = *v,
            Field::H(v) => o.h = *v,
            Field::Rotation(v) => o.rotation = *v,
            Field::Z(v) => o.z = *v,
            Field::Parent(v) => o.parent = v.clone(),
            Field::Text(v) => o.text = v.clone(),
            Field::Color(v) => o.color = v.clone(),
            Field::Geo(v) => o.geo = *v,
            Field::From(v) => o.from = v.clone(),
            Field::To(v) => o.to = v.clone(),
            Field::Arrow(v) => o.arrow = *v,
            Field::Asset(v) => o.asset = v.clone(),
            Field::Alt(v) => o.alt = v.clone(),
            Field::Crop(v) => o.crop = *v,
        }
    }
}

/// A point on the page.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// A visible area of the page.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Viewport {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn val_3_create_defaults_and_clamps() {
        let input: ObjectInput = serde_json::from_str(
            r#"{"kind":"note","x":"-100000","y":5,"w":99999,"color":"blue","text":"hi"}"#,
        )
        .unwrap();
        let o = input.normalize(ObjectId::try_from("n1").unwrap(), 3);
        assert_eq!(o.x, -50000.0);
        assert_eq!(o.w, 5000.0);
        assert_eq!(o.h, 200.0);
        assert_eq!(o.color, "#90CAF9");
        assert_eq!(o.z, 3);
        assert!(o.geo.is_none() && o.arrow.is_none());
        let shape: ObjectInput =
            serde_json::from_str(r#"{"kind":"shape","geo":"circle","color":"nope"}"#).unwrap();
        let s = shape.normalize(ObjectId::random(), 0);
        assert_eq!(s.geo, Some(Geo::Ellipse));
        assert_eq!(s.color, "#81D4FA");
    }

    #[test]
    fn val_4_patch_refuses_unknown_fields_and_nan() {
        assert!(serde_json::from_str::<PatchInput>(r#"{"kind":"note"}"#).is_err());
        assert!(serde_json::from_str::<PatchInput>(r#"{"x":"NaN"}"#).is_err());
        let p: PatchInput = serde_json::from_str(r#"{"parent":null,"w":"3"}"#).unwrap();
        let n = p.normalize(Kind::Note);
        assert_eq!(n.parent, Some(None));
        assert_eq!(n.w, Some(10.0));
        let json = serde_json::to_string(&n).unwrap();
        assert_eq!(json, r#"{"w":10.0,"parent":null}"#);
        let back: Patch = serde_json::from_str(&json).unwrap();
        assert_eq!(back, n);
    }
}
