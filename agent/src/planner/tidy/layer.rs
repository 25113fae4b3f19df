//! "put X behind Y", "bring X in front of Y", "X should be behind Y": layering relative to
//! another object (to the front or back of everything is `motion::parse_layer`).

use super::{Tidy, subject, trim_end, trim_front};
use crate::planner::phrase::target;
use crate::planner::syntax::Target;
use layout::arrange::Layer;

/// The phrases that place objects relative to another in the drawing order; those marked
/// `true` only after the verb "layer" (elsewhere they are positions: "put X above Y").
const RELATIONS: &[(&[&str], Layer, bool)] = &[
    (&["in", "front", "of"], Layer::InFront, false),
    (&["on", "top", "of"], Layer::InFront, false),
    (&["to", "the", "front", "of"], Layer::InFront, false),
    (&["to", "the", "back", "of"], Layer::Behind, false),
    (&["behind"], Layer::Behind, false),
    (&["above"], Layer::InFront, true),
    (&["over"], Layer::InFront, true),
    (&["below"], Layer::Behind, true),
    (&["beneath"], Layer::Behind, true),
    (&["under"], Layer::Behind, true),
];

/// Verbs that start a layering command.
const VERBS: &[&str] = &[
    "put", "send", "bring", "move", "place", "layer", "drop", "push", "pull", "set", "make",
];

/// Words between the subject and the relation ("to behind", "forward in front of").
const BETWEEN: &[&str] = &[
    "needs",
    "need",
    "has",
    "have",
    "must",
    "can",
    "could",
    "would",
    "will",
    "ought",
    "so",
    "to",
    "forward",
    "forwards",
    "backward",
    "backwards",
    "back",
    "should",
    "be",
    "is",
    "go",
    "goes",
    "sit",
    "sits",
];

/// Words that mean every other object ("behind everything"): not a reference.
const EVERYTHING: &[&str] = &[
    "everything",
    "all",
    "others",
    "else",
    "rest",
    "the",
    "other",
    "objects",
];

pub(super) fn parse(ws: &[String]) -> Option<(Target, Tidy)> {
    let layer_verb = ws.first().is_some_and(|w| w == "layer");
    let (k, len, how) = ws.iter().enumerate().find_map(|(k, _)| {
        RELATIONS.iter().find_map(|(phrase, how, needs_verb)| {
            let hit = ws[k..].starts_with_words(phrase) && (!needs_verb || layer_verb);
            hit.then_some((k, phrase.len(), *how))
        })
    })?;
    let rest = &ws[k + len..];
    if rest.is_empty() || rest.iter().all(|w| EVERYTHING.contains(&w.as_str())) {
        return None;
    }
    let reference = target(rest)?;
    let head = trim_front(&ws[..k], VERBS);
    let head = trim_end(head, BETWEEN);
    // "put a note behind X" creates; only existing objects are layered.
    if head
        .first()
        .is_some_and(|w| matches!(w.as_str(), "a" | "an" | "new" | "another"))
    {
        return None;
    }
    let verb = ws.first().is_some_and(|w| VERBS.contains(&w.as_str()));
    if !verb && head.is_empty() {
        return None;
    }
    Some((subject(head)?, Tidy::Layer(how, Box::new(reference))))
}

trait Words {
    fn starts_with_words(&self, phrase: &[&str]) -> bool;
}

impl Words for [String] {
    fn starts_with_words(&self, phrase: &[&str]) -> bool {
        self.len() >= phrase.len() && self.iter().zip(phrase).all(|(w, p)| w == p)
    }
}
