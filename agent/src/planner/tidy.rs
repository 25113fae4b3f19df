//! The menu's commands in words: align, distribute and space, same size and one-axis scaling,
//! rotate and flip, layering relative to another object. One rule per family reads the command
//! (`align.rs`, `spacing.rs`, `size.rs`, `layer.rs`); the objects are named as in any other
//! command ([`target`]) and the geometry is `layout::arrange`'s (`build.rs`), so every family
//! is one `updateElements` call: one command, one undo.
//!
//! ```text
//! align   := verb? edge-words subject? (("to" | "with") edge? "of"? reference)?
//! spacing := ("distribute" | "evenly" | "equal" gaps | gap-number ("apart" | "gap" | …)) subject axis?
//! size    := subject ("the same" dimension | "as" dimension-word "as") reference?
//!          | factor ("as" axis-word | "the" axis-noun "of") subject
//! turn    := ("rotate" | "turn" | "tilt") subject "by"? degrees direction? | ("flip" | "mirror") subject axis?
//! layer   := verb? subject ("behind" | "in front of" | "on top of" | …) reference
//! ```

mod align;
pub(super) mod build;
mod layer;
mod size;
mod spacing;

use super::phrase::target;
pub use super::syntax::Tidy;
use super::syntax::{Command, Target};
use crate::lang::lexicon::{canonical, drop_filler, is_leading_filler};
use layout::arrange::Axis;

/// Reads a menu command, or `None` when the text is none of them.
pub(super) fn parse(text: &str) -> Option<Command> {
    // Cheap first (the words of the command are read once per command): a family's word.
    if !canonical(text).iter().any(|w| family_word(w)) && !text.contains("-align") {
        return None;
    }
    // "Alpha, Beta and Gamma": the commas are gone from the words, so they become "and".
    // "left-align": the edge and the verb.
    let listed = text
        .replace(", and ", " and ")
        .replace(',', " and ")
        .replace("-align", " align")
        .replace("-Align", " align");
    let mut ws: Vec<String> = canonical(&listed)
        .into_iter()
        .map(|w| possessive(&w).to_string())
        .collect();
    drop_filler(&mut ws);
    // "could you", "I want": a polite start ("right" is an edge here).
    let start = ws
        .iter()
        .position(|w| !is_leading_filler(w) || w == "right")
        .unwrap_or(ws.len());
    let ws = trim_end(&ws[start..], &["please", "thanks", "now"]);
    if ws.is_empty() {
        return None;
    }
    let (t, how) = layer::parse(ws)
        .or_else(|| size::parse_turn(ws))
        .or_else(|| size::parse(ws))
        .or_else(|| spacing::parse(ws))
        .or_else(|| align::parse(ws))?;
    Some(Command::Tidy(t, how))
}

/// "Test's" names Test.
fn possessive(w: &str) -> &str {
    w.strip_suffix("'s")
        .or_else(|| w.strip_suffix("’s"))
        .filter(|s| !s.is_empty())
        .unwrap_or(w)
}

/// A word one of the families needs; a command without any is none of them (a `match`: this
/// runs on every command).
fn family_word(w: &str) -> bool {
    matches!(
        w,
        "align"
            | "aligned"
            | "snap"
            | "line"
            | "lined"
            | "center"
            | "centre"
            | "middle"
            | "distribute"
            | "evenly"
            | "even"
            | "equal"
            | "equally"
            | "uniformly"
            | "space"
            | "spacing"
            | "spaced"
            | "spread"
            | "apart"
            | "gap"
            | "gaps"
            | "stack"
            | "stacked"
            | "same"
            | "match"
            | "wide"
            | "wider"
            | "width"
            | "tall"
            | "taller"
            | "height"
            | "high"
            | "higher"
            | "rotate"
            | "turn"
            | "tilt"
            | "spin"
            | "flip"
            | "mirror"
            | "behind"
            | "front"
            | "top"
            | "back"
            | "layer"
            | "above"
            | "over"
            | "below"
            | "under"
            | "beneath"
            | "as"
            | "px"
            | "pixels"
            | "row"
            | "column"
            | "side"
    ) || w
        .strip_suffix("px")
        .is_some_and(|n| n.parse::<f64>().is_ok())
}

/// The objects a part of the command names: the selection when it names none.
fn subject(ws: &[String]) -> Option<Target> {
    let ws = trim_end(trim_front(ws, LEAD), NOISE);
    if ws.is_empty() {
        return Some(Target::Selection);
    }
    target(ws)
}

/// Words around a subject that name nothing.
const NOISE: &[&str] = &[
    "the", "to", "at", "along", "by", "their", "its", "with", "of", "for", "on", "in", "and",
    "all", "a", "an", "so", "they", "are", "is", "be", "should", "each", "other",
];

/// Words before a subject that name nothing (articles stay: "the selection").
const LEAD: &[&str] = &[
    "to", "at", "along", "by", "their", "its", "with", "of", "for", "on", "in", "and", "so",
    "they", "are", "is", "be", "should", "each", "other",
];

/// Each word of `ws` that is one of `words` left out, and "the", "a", "all" before one.
fn without(ws: &[String], words: &[&str]) -> Vec<String> {
    let number = |w: &str| w.trim_end_matches("px").parse::<f64>().is_ok();
    let gone = |w: &str| words.contains(&w) || number(w);
    let mut out = Vec::new();
    for (i, w) in ws.iter().enumerate() {
        let article = matches!(w.as_str(), "the" | "a" | "an" | "all");
        let next_gone = ws.get(i + 1).is_none_or(|n| gone(n));
        if gone(w) || article && next_gone {
            continue;
        }
        out.push(w.clone());
    }
    out
}

fn trim_front<'a>(ws: &'a [String], skip: &[&str]) -> &'a [String] {
    let n = ws.iter().take_while(|w| skip.contains(&w.as_str())).count();
    &ws[n..]
}

fn trim_end<'a>(ws: &'a [String], skip: &[&str]) -> &'a [String] {
    let n = ws
        .iter()
        .rev()
        .take_while(|w| skip.contains(&w.as_str()))
        .count();
    &ws[..ws.len() - n]
}

/// The axis a word names ("horizontally", "across", "row"; "vertically", "down", "column").
fn axis_word(w: &str) -> Option<Axis> {
    AXIS_WORDS
        .iter()
        .find(|(word, _)| *word == w)
        .map(|(_, a)| *a)
}

const AXIS_WORDS: &[(&str, Axis)] = &[
    ("horizontally", Axis::Horizontal),
    ("horizontal", Axis::Horizontal),
    ("across", Axis::Horizontal),
    ("sideways", Axis::Horizontal),
    ("row", Axis::Horizontal),
    ("side", Axis::Horizontal),
    ("vertically", Axis::Vertical),
    ("vertical", Axis::Vertical),
    ("down", Axis::Vertical),
    ("column", Axis::Vertical),
    ("upside", Axis::Vertical),
];

/// The first axis the words name.
fn axis_in(ws: &[String]) -> Option<Axis> {
    ws.iter().find_map(|w| axis_word(w))
}
