//! "align these to the left", "top-align the selection", "centre these horizontally", "line up
//! the left edges", "align Beta and Gamma to the top of Alpha": alignment along one axis.

use super::{LEAD, NOISE, Tidy, subject, trim_end, trim_front};
use crate::planner::phrase::target;
use crate::planner::syntax::Target;
use layout::arrange::Align;

/// Edge and centre-line words, with the alignment they ask for ("centre" is horizontal unless
/// the command says "vertically").
const EDGES: &[(&str, Align)] = &[
    ("left", Align::Left),
    ("lefts", Align::Left),
    ("right", Align::Right),
    ("rights", Align::Right),
    ("top", Align::Top),
    ("tops", Align::Top),
    ("bottom", Align::Bottom),
    ("bottoms", Align::Bottom),
    ("middle", Align::Middle),
    ("middles", Align::Middle),
    ("center", Align::Center),
    ("centre", Align::Center),
    ("centers", Align::Center),
    ("centres", Align::Center),
    ("centered", Align::Center),
    ("centred", Align::Center),
];

/// Words of an alignment that name no object.
const ALIGN_WORDS: &[&str] = &[
    "snap",
    "together",
    "align",
    "aligned",
    "line",
    "lined",
    "up",
    "edge",
    "edges",
    "side",
    "sides",
    "horizontally",
    "vertically",
    "please",
    "make",
    "same",
];

fn edge(w: &str) -> Option<Align> {
    EDGES.iter().find(|(e, _)| *e == w).map(|(_, a)| *a)
}

pub(super) fn parse(ws: &[String]) -> Option<(Target, Tidy)> {
    let has = |w: &str| ws.iter().any(|x| x == w);
    let centre_verb = ws.first().is_some_and(|w| {
        matches!(w.as_str(), "center" | "centre" | "middle")
            || matches!(w.as_str(), "horizontally" | "vertically")
                && ws.get(1).is_some_and(|n| n == "center" || n == "centre")
    });
    let line_up = (has("line") || has("lined")) && has("up");
    if !(has("align") || has("aligned") || has("snap") || line_up || centre_verb) {
        return None;
    }
    let k = ws.iter().position(|w| edge(w).is_some())?;
    let mut how = edge(&ws[k])?;
    if matches!(how, Align::Center) && has("vertically") {
        how = Align::Middle;
    }
    let pre = clean(&ws[..k]);
    let post = &ws[k + 1..];
    // "… to the top of Alpha", "… with Design": a reference after the edge.
    let joint = post.iter().position(|w| w == "of" || w == "with");
    let (subj, reference) = match joint {
        Some(j) if !pre.is_empty() => (pre, Some(clean(&post[j + 1..]))),
        Some(j) => (clean(&post[j + 1..]), None),
        None if pre.is_empty() => (clean(post), None),
        None => (pre, None),
    };
    let reference = match reference.filter(|r| !r.is_empty()) {
        Some(r) => Some(Box::new(target(&r)?)),
        None => None,
    };
    Some((subject(&subj)?, Tidy::Align(how, reference)))
}

/// The words of a part that may name objects: alignment words left out, noise trimmed.
fn clean(ws: &[String]) -> Vec<String> {
    let kept: Vec<String> = ws
        .iter()
        .filter(|w| !ALIGN_WORDS.contains(&w.as_str()) && edge(w).is_none())
        .cloned()
        .collect();
    trim_end(trim_front(&kept, LEAD), NOISE).to_vec()
}
