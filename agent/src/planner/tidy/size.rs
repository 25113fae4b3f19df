//! Same size ("make these the same width", "make Gamma the same size as Alpha"), one axis
//! scaled ("twice as wide", "double the height of X"), rotation ("rotate X by 45 degrees") and
//! flips ("flip these horizontally").

use super::{Tidy, axis_in, subject, without};
use crate::planner::phrase::target;
use crate::planner::syntax::Target;
use layout::arrange::{Axis, Dimension, Flip};

/// Words naming a dimension, with the dimension.
const DIMENSIONS: &[(&str, Dimension)] = &[
    ("size", Dimension::Both),
    ("sizes", Dimension::Both),
    ("dimensions", Dimension::Both),
    ("big", Dimension::Both),
    ("large", Dimension::Both),
    ("width", Dimension::Width),
    ("widths", Dimension::Width),
    ("wide", Dimension::Width),
    ("height", Dimension::Height),
    ("heights", Dimension::Height),
    ("tall", Dimension::Height),
    ("high", Dimension::Height),
];

/// Words naming one axis of a size, for scaling.
const AXES: &[(&str, Axis)] = &[
    ("wide", Axis::Horizontal),
    ("wider", Axis::Horizontal),
    ("width", Axis::Horizontal),
    ("tall", Axis::Vertical),
    ("taller", Axis::Vertical),
    ("height", Axis::Vertical),
    ("high", Axis::Vertical),
    ("higher", Axis::Vertical),
];

/// Words of a size command that name no object.
const SIZE_WORDS: &[&str] = &[
    "make",
    "give",
    "set",
    "match",
    "resize",
    "change",
    "stretch",
    "double",
    "halve",
    "same",
    "as",
    "equally",
    "equal",
    "for",
    "of",
    "to",
    "twice",
    "half",
    "times",
    "its",
    "their",
    "x",
    "wide",
    "wider",
    "width",
    "widths",
    "tall",
    "taller",
    "height",
    "heights",
    "high",
    "higher",
    "size",
    "sizes",
    "dimensions",
    "big",
    "large",
    "them",
    "all",
    "one",
];

/// The reference a size phrase ends with ("as Alpha"): none for "the biggest one".
fn reference(ws: &[String]) -> Option<Option<Box<Target>>> {
    let k = ws.iter().rposition(|w| w == "as")?;
    let rest = &ws[k + 1..];
    let largest = rest.iter().any(|w| {
        matches!(
            w.as_str(),
            "biggest" | "largest" | "widest" | "tallest" | "highest"
        )
    });
    if rest.is_empty() || largest {
        return Some(None);
    }
    Some(Some(Box::new(target(rest)?)))
}

/// "the same size", "equally wide", "as wide as": same size.
pub(super) fn parse(ws: &[String]) -> Option<(Target, Tidy)> {
    let dim_of = |w: &str| DIMENSIONS.iter().find(|(d, _)| *d == w).map(|(_, d)| *d);
    let at = ws.iter().enumerate().find_map(|(k, w)| {
        // "equal in size", "the same in height".
        let next = ws.get(k + 1).and_then(|n| dim_of(n)).or_else(|| {
            (ws.get(k + 1)? == "in")
                .then(|| dim_of(ws.get(k + 2)?))
                .flatten()
        });
        match w.as_str() {
            "same" | "equally" | "equal" | "matching" => next.map(|d| (k, d)),
            "match" => ws[k + 1..].iter().find_map(|n| dim_of(n)).map(|d| (k, d)),
            // "as wide as Gamma", "as big as the biggest one".
            "as" if ws.get(k + 2).is_some_and(|a| a == "as") => next.map(|d| (k, d)),
            _ => None,
        }
    });
    let Some((k, dim)) = at else {
        return parse_scale(ws);
    };
    let after = &ws[k..];
    let reference = if after.iter().skip(1).any(|w| w == "as") {
        reference(&after[1..])?
    } else {
        None
    };
    let end = after
        .iter()
        .skip(1)
        .position(|w| w == "as")
        .map_or(ws.len(), |p| k + 1 + p);
    // The subject: before the phrase, or after "for"/"of" ("same height for the selected notes").
    let before = without(&ws[..k], SIZE_WORDS);
    let tail = &ws[k..end];
    let tail = match tail.iter().position(|w| w == "for" || w == "of") {
        Some(p) => without(&tail[p + 1..], SIZE_WORDS),
        None => Vec::new(),
    };
    let subj = if before.is_empty() { tail } else { before };
    Some((subject(&subj)?, Tidy::SameSize(dim, reference)))
}

/// "twice as wide", "half as tall", "double the width of Beta", "2x wider": one axis scaled.
fn parse_scale(ws: &[String]) -> Option<(Target, Tidy)> {
    let axis = ws
        .iter()
        .find_map(|w| AXES.iter().find(|(a, _)| a == w).map(|(_, x)| *x))?;
    let factor = factor(ws)?;
    let subj = without(ws, SIZE_WORDS);
    Some((subject(&subj)?, Tidy::ScaleAxis(axis, factor)))
}

/// The factor a size phrase names: "twice", "double", "half", "halve", "3 times".
fn factor(ws: &[String]) -> Option<f64> {
    for (k, w) in ws.iter().enumerate() {
        match w.as_str() {
            "twice" | "double" => return Some(2.0),
            "half" | "halve" => return Some(0.5),
            n if ws.get(k + 1).is_some_and(|t| t == "times") => {
                return n.parse::<f64>().ok().filter(|f| *f > 0.0 && *f <= 20.0);
            }
            _ => {}
        }
    }
    None
}

/// Words of a rotation or flip that name no object.
const TURN_WORDS: &[&str] = &[
    "rotate",
    "turn",
    "tilt",
    "spin",
    "flip",
    "mirror",
    "by",
    "degrees",
    "degree",
    "deg",
    "°",
    "clockwise",
    "counterclockwise",
    "anticlockwise",
    "counter",
    "anti",
    "upside",
    "down",
    "horizontally",
    "vertically",
    "horizontal",
    "vertical",
    "around",
    "round",
    "to",
    "the",
    "left",
    "right",
    "over",
];

/// "rotate X by 45 degrees", "turn the selection 90 degrees", "rotate X upside down", "flip
/// these horizontally", "mirror X".
pub(super) fn parse_turn(ws: &[String]) -> Option<(Target, Tidy)> {
    let verb = ws.first()?.as_str();
    let subj = without(&ws[1..], TURN_WORDS);
    if matches!(verb, "flip" | "mirror") {
        let how = match axis_in(ws) {
            Some(Axis::Vertical) => Flip::Vertical,
            _ => Flip::Horizontal,
        };
        return Some((subject(&subj)?, Tidy::Flip(how)));
    }
    if !matches!(verb, "rotate" | "turn" | "tilt" | "spin") {
        return None;
    }
    let number = ws[1..].iter().find_map(|w| w.parse::<f64>().ok());
    let degrees_word = ws
        .iter()
        .any(|w| matches!(w.as_str(), "degrees" | "degree" | "deg"));
    let upside = ws.windows(2).any(|p| p[0] == "upside" && p[1] == "down");
    let deg = match number {
        Some(n) if verb != "turn" || degrees_word => n,
        None if upside => 180.0,
        _ => return None,
    };
    let back = ws.iter().any(|w| {
        matches!(
            w.as_str(),
            "counterclockwise" | "anticlockwise" | "counter" | "anti"
        )
    });
    let deg = if back { -deg } else { deg };
    Some((subject(&subj)?, Tidy::Rotate(deg)))
}
