//! The planner's vocabulary: kinds, shapes, colors, size and position words.

use protocol::palette::canonical_name;
use protocol::{Geo, Kind};

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
}

fn kw(kind: Kind, geo: Option<Geo>, eq: bool, geo_name: Option<&'static str>) -> KindWord {
    KindWord {
        kind,
        geo,
        equal_sides: eq,
        plural: false,
        geo_name,
    }
}

/// Parses a kind word (singular or plural).
pub fn kind_word(w: &str) -> Option<KindWord> {
    let (stem, plural) = match w {
        "boxes" => ("box", true),
        "stickies" => ("sticky", true),
        "post-its" => ("post-it", true),
        "texts" => ("text", true),
        // "rhombuses"; "rhombus" itself is singular.
        _ if w.ends_with("uses") => (&w[..w.len() - 2], true),
        _ => match w.strip_suffix('s') {
            Some(s) if s.len() > 2 && !w.ends_with("ss") && !w.ends_with("us") => (s, true),
            _ => (w, false),
        },
    };
    let mut k = match stem {
        "note" | "sticky" | "stickie" | "post-it" | "postit" | "card" => {
            kw(Kind::Note, None, false, None)
        }
        "shape" => kw(Kind::Shape, None, false, None),
        "rectangle" | "rect" | "box" => {
            kw(Kind::Shape, Some(Geo::Rectangle), false, Some("rectangle"))
        }
        "square" | "sqr" | "sq" => kw(Kind::Shape, Some(Geo::Rectangle), true, Some("square")),
        "circle" | "circ" => kw(Kind::Shape, Some(Geo::Ellipse), true, Some("circle")),
        "ellipse" | "oval" => kw(Kind::Shape, Some(Geo::Ellipse), false, Some("ellipse")),
        "diamond" | "rhombus" => kw(Kind::Shape, Some(Geo::Diamond), false, Some("diamond")),
        "triangle" => kw(Kind::Shape, Some(Geo::Triangle), false, Some("triangle")),
        "hexagon" => kw(Kind::Shape, Some(Geo::Hexagon), false, Some("hexagon")),
        "star" => kw(Kind::Shape, Some(Geo::Star), false, Some("star")),
        "cloud" => kw(Kind::Shape, Some(Geo::Cloud), false, Some("cloud")),
        "text" | "txt" | "textbox" | "heading" | "title" | "label" | "caption" | "subtitle"
        | "headline" | "subheading" => kw(Kind::Text, None, false, None),
        "frame" | "section" | "container" | "area" => kw(Kind::Frame, None, false, None),
        "connector" | "arrow" | "line" => kw(Kind::Connector, None, false, None),
        _ => return None,
    };
    k.plural = plural;
    Some(k)
}

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
        && matches!(
            w.as_str(),
            "dark" | "deep" | "bright" | "vivid" | "sky" | "baby"
        )
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

pub fn extreme(w: &str) -> Option<Extreme> {
    match w {
        "big" | "bigger" | "biggest" | "large" | "larger" | "largest" | "huge" => {
            Some(Extreme::Largest)
        }
        "small" | "smaller" | "smallest" | "little" | "tiny" => Some(Extreme::Smallest),
        _ => None,
    }
}

/// Sides of the board used to pick among matches ("the left note") or to move ("to the left").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
    Top,
    Bottom,
}

pub fn side(w: &str) -> Option<Side> {
    match w {
        "left" | "leftmost" | "west" => Some(Side::Left),
        "right" | "rightmost" | "east" => Some(Side::Right),
        "top" | "topmost" | "upper" | "up" | "upward" | "upwards" | "north" | "above" => {
            Some(Side::Top)
        }
        "bottom" | "bottommost" | "lower" | "down" | "downward" | "downwards" | "south"
        | "below" => Some(Side::Bottom),
        _ => None,
    }
}

/// Parses `200x300` / `200×300`.
pub fn dims(w: &str) -> Option<(f64, f64)> {
    let (a, b) = w.split_once(['x', '×'])?;
    let (a, b) = (a.parse::<f64>().ok()?, b.parse::<f64>().ok()?);
    (a.is_finite() && b.is_finite() && a > 0.0 && b > 0.0).then_some((a, b))
}

/// Unit words after a distance.
pub fn is_unit(w: &str) -> bool {
    matches!(
        w,
        "px" | "pixel" | "pixels" | "pt" | "points" | "units" | "unit"
    )
}
