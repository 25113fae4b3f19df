//! The planner's vocabulary: kinds, shapes, colors, size and position words.

use protocol::palette::canonical_name;
use protocol::{Geo, Kind};
use std::collections::HashMap;
use std::sync::LazyLock;

/// What a kind word names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindWord {
    pub kind: Kind,
    pub geo: Option<Geo>,
    /// A circle or a square: w = h.
    pub equal_sides: bool,
    /// The word was plural ("notes", "circles").
    pub plural: bool,
    /// The geo name to put in a batch ("circle", "square", "diamond", …).
    pub geo_name: Option<&'static str>,
    /// A picture word that also says what the picture is ("logo", "screenshot", "photo",
    /// "icon"): images whose alt text says it are the ones meant.
    pub hint: Option<Picture>,
}

/// What a picture word says a picture is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Picture {
    Photo,
    Screenshot,
    Logo,
    Icon,
}

impl Picture {
    /// Every kind of picture a word names.
    pub const ALL: [Picture; 4] = [
        Picture::Photo,
        Picture::Screenshot,
        Picture::Logo,
        Picture::Icon,
    ];

    /// The word alt text says it with ("photo" also in "photograph").
    pub fn word(self) -> &'static str {
        match self {
            Picture::Photo => "photo",
            Picture::Screenshot => "screenshot",
            Picture::Logo => "logo",
            Picture::Icon => "icon",
        }
    }
}

const fn kw(kind: Kind, geo: Option<Geo>, eq: bool, geo_name: Option<&'static str>) -> KindWord {
    KindWord {
        kind,
        geo,
        equal_sides: eq,
        plural: false,
        geo_name,
        hint: None,
    }
}

/// A picture word: an image, and what its alt text may say it is.
const fn pic(hint: Option<Picture>) -> KindWord {
    KindWord {
        hint,
        ..kw(Kind::Image, None, false, None)
    }
}

/// Each kind word family (singular forms) and what it names.
#[rustfmt::skip]
pub const KIND_WORDS: &[(&[&str], KindWord)] = &[
    (&["note", "sticky", "stickie", "post-it", "postit", "card"], kw(Kind::Note, None, false, None)),
    (&["shape"], kw(Kind::Shape, None, false, None)),
    (&["rectangle", "rect", "box"], kw(Kind::Shape, Some(Geo::Rectangle), false, Some("rectangle"))),
    (&["square", "sqr", "sq"], kw(Kind::Shape, Some(Geo::Rectangle), true, Some("square"))),
    (&["circle", "circ"], kw(Kind::Shape, Some(Geo::Ellipse), true, Some("circle"))),
    (&["ellipse", "oval"], kw(Kind::Shape, Some(Geo::Ellipse), false, Some("ellipse"))),
    (&["diamond", "rhombus"], kw(Kind::Shape, Some(Geo::Diamond), false, Some("diamond"))),
    (&["triangle"], kw(Kind::Shape, Some(Geo::Triangle), false, Some("triangle"))),
    (&["hexagon"], kw(Kind::Shape, Some(Geo::Hexagon), false, Some("hexagon"))),
    (&["star"], kw(Kind::Shape, Some(Geo::Star), false, Some("star"))),
    (&["cloud"], kw(Kind::Shape, Some(Geo::Cloud), false, Some("cloud"))),
    (
        &["text", "txt", "textbox", "heading", "title", "label", "caption", "subtitle", "headline",
          "subheading"],
        kw(Kind::Text, None, false, None),
    ),
    (&["frame", "section", "container", "area"], kw(Kind::Frame, None, false, None)),
    (&["connector", "arrow", "line"], kw(Kind::Connector, None, false, None)),
    (&["image", "picture", "pic", "img", "graphic"], pic(None)),
    (&["photo", "photograph"], pic(Some(Picture::Photo))),
    (&["screenshot", "screengrab", "screencap"], pic(Some(Picture::Screenshot))),
    (&["logo"], pic(Some(Picture::Logo))),
    (&["icon"], pic(Some(Picture::Icon))),
];

/// Plurals that are not the singular plus "s".
const IRREGULAR_PLURALS: &[(&str, &str)] = &[
    ("boxes", "box"),
    ("stickies", "sticky"),
    ("post-its", "post-it"),
    ("texts", "text"),
];

/// Parses a kind word (singular or plural).
pub fn kind_word(w: &str) -> Option<KindWord> {
    static BY_WORD: LazyLock<HashMap<&'static str, KindWord>> = LazyLock::new(|| {
        KIND_WORDS
            .iter()
            .flat_map(|(ws, k)| ws.iter().map(move |w| (*w, *k)))
            .collect()
    });
    let (stem, plural) = match IRREGULAR_PLURALS.iter().find(|(p, _)| *p == w) {
        Some((_, s)) => (*s, true),
        // "rhombuses"; "rhombus" itself is singular.
        None if w.ends_with("uses") => (&w[..w.len() - 2], true),
        None => match w.strip_suffix('s') {
            Some(s) if s.len() > 2 && !w.ends_with("ss") && !w.ends_with("us") => (s, true),
            _ => (w, false),
        },
    };
    let mut k = *BY_WORD.get(stem)?;
    k.plural = plural;
    Some(k)
}

/// Words that go before a color name and belong to it ("dark green", "sky blue").
pub const COLOR_PREFIXES: &[&str] = &["dark", "deep", "bright", "vivid", "sky", "baby"];

/// A color mention at word `i` (one or two words): the palette name and how many words it used.
pub fn color_at(ws: &[String], i: usize) -> Option<(&'static str, usize)> {
    let w = ws.get(i)?;
    if let Some(next) = ws.get(i + 1)
        && (w == "light" || w == "pale")
        && let Some(n) = canonical_name(&format!("light-{next}"))
    {
        return Some((n, 2));
    }
    // "dark green", "bright red", "sky blue": the color itself.
    if let Some(next) = ws.get(i + 1)
        && COLOR_PREFIXES.contains(&w.as_str())
        && let Some(n) = canonical_name(&format!("{w}{next}")).or_else(|| canonical_name(next))
    {
        return Some((n, 2));
    }
    if w.starts_with('#') {
        return None;
    }
    const NOT_COLORS: [&str; 3] = ["a", "an", "the"];
    if NOT_COLORS.contains(&w.as_str()) {
        return None;
    }
    canonical_name(w).map(|n| (n, 1))
}

/// Size superlatives and comparatives used to pick among matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extreme {
    Largest,
    Smallest,
}

/// Size words and the extreme they pick.
#[rustfmt::skip]
pub const EXTREMES: &[(Extreme, &[&str])] = &[
    (Extreme::Largest, &["big", "bigger", "biggest", "large", "larger", "largest", "huge"]),
    (Extreme::Smallest, &["small", "smaller", "smallest", "little", "tiny"]),
];

pub fn extreme(w: &str) -> Option<Extreme> {
    EXTREMES
        .iter()
        .find(|(_, ws)| ws.contains(&w))
        .map(|(e, _)| *e)
}

/// Sides of the board used to pick among matches ("the left note") or to move ("to the left").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
    Top,
    Bottom,
}

/// Side words and the side they name.
#[rustfmt::skip]
pub const SIDES: &[(Side, &[&str])] = &[
    (Side::Left, &["left", "leftmost", "west"]),
    (Side::Right, &["right", "rightmost", "east"]),
    (Side::Top, &["top", "topmost", "upper", "up", "upward", "upwards", "north", "above"]),
    (Side::Bottom, &[
        "bottom", "bottommost", "lower", "down", "downward", "downwards", "south", "below",
    ]),
];

pub fn side(w: &str) -> Option<Side> {
    SIDES
        .iter()
        .find(|(_, ws)| ws.contains(&w))
        .map(|(s, _)| *s)
}

/// Parses `200x300` / `200×300`.
pub fn dims(w: &str) -> Option<(f64, f64)> {
    let (a, b) = w.split_once(['x', '×'])?;
    let (a, b) = (a.parse::<f64>().ok()?, b.parse::<f64>().ok()?);
    (a.is_finite() && b.is_finite() && a > 0.0 && b > 0.0).then_some((a, b))
}

/// True for a unit word after a distance ("px", "points").
pub fn is_unit(w: &str) -> bool {
    UNIT_WORDS.contains(&w)
}

/// Unit words after a distance.
pub const UNIT_WORDS: &[&str] = &["px", "pixel", "pixels", "pt", "points", "units", "unit"];
