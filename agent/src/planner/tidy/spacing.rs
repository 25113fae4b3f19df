//! "distribute these horizontally", "space these evenly", "space them 50 px apart", "stack these
//! in a column 20 px apart": equal gaps, a given gap, a row or column with a given gap.

use super::{Tidy, axis_in, subject, without};
use crate::lang::vocab::kind_word;
use crate::planner::syntax::Target;
use layout::arrange::Axis;

/// Words that say a number is a gap.
const GAP: &[&str] = &[
    "apart", "gap", "gaps", "spacing", "space", "spaced", "between",
];

/// Words that ask for a row or a column.
const STACK: &[&str] = &["stack", "stacked", "row", "column", "side"];

/// Words of a spacing command that name no object.
const SPACING_WORDS: &[&str] = &[
    "lay",
    "laid",
    "place",
    "set",
    "distribute",
    "evenly",
    "even",
    "equal",
    "equally",
    "uniformly",
    "out",
    "space",
    "spacing",
    "spaced",
    "spread",
    "make",
    "put",
    "leave",
    "arrange",
    "line",
    "up",
    "gaps",
    "gap",
    "between",
    "each",
    "of",
    "apart",
    "px",
    "pixels",
    "pixel",
    "with",
    "in",
    "a",
    "stack",
    "stacked",
    "row",
    "column",
    "side",
    "by",
    "horizontally",
    "horizontal",
    "vertically",
    "vertical",
    "across",
    "down",
    "page",
    "top",
    "to",
    "bottom",
    "left",
    "right",
    "other",
    "them",
    "so",
    "are",
    "they",
    "there",
    "is",
    "sideways",
];

pub(super) fn parse(ws: &[String]) -> Option<(Target, Tidy)> {
    // "add 3 notes 40 px apart" creates.
    if ws
        .windows(2)
        .any(|p| p[0].parse::<f64>().is_ok() && kind_word(&p[1]).is_some())
    {
        return None;
    }
    let has = |set: &[&str]| ws.iter().any(|w| set.contains(&w.as_str()));
    let gap = gap(ws);
    let axis = axis_in(ws).or_else(|| {
        let top_bottom = has(&["top"]) && has(&["bottom"]);
        top_bottom.then_some(Axis::Vertical)
    });
    let even = has(&["distribute", "evenly", "uniformly"])
        || has(&["equal", "equally", "even"]) && has(&["gaps", "spacing", "space", "spaced"]);
    let how = match gap {
        Some(g) if has(STACK) => Tidy::Stack(axis.unwrap_or(Axis::Vertical), g),
        Some(g) if has(GAP) => Tidy::Space(axis, g),
        None if even => Tidy::Distribute(axis),
        _ => return None,
    };
    let subj = without(ws, SPACING_WORDS);
    Some((subject(&subj)?, how))
}

/// The gap a command names: a number before "px", "pixels" or "apart", or after "gap of",
/// "gaps of", "spacing of"; "40px" too.
fn gap(ws: &[String]) -> Option<f64> {
    ws.iter().enumerate().find_map(|(k, w)| {
        if let Some(n) = w.strip_suffix("px").and_then(|n| n.parse::<f64>().ok()) {
            return Some(n);
        }
        let n = w.parse::<f64>().ok()?;
        let unit = ws.get(k + 1).is_some_and(|u| {
            matches!(
                u.as_str(),
                "px" | "pixels" | "pixel" | "apart" | "gap" | "gaps"
            )
        });
        let of = k >= 2
            && ws[k - 1] == "of"
            && matches!(ws[k - 2].as_str(), "gap" | "gaps" | "spacing" | "space");
        (unit || of).then_some(n)
    })
}
