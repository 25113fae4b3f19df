//! A relation phrase and the object it names: "below the Login box", "text next to Buy milk".

use super::target;
use crate::lang::relation::{Relation, phrase_at};
use crate::planner::syntax::Target;

/// Words that end a reference object's description ("… saying Hi", "… that says Hi").
fn ends_reference(w: &str) -> bool {
    matches!(
        w,
        "that"
            | "which"
            | "saying"
            | "says"
            | "labeled"
            | "labelled"
            | "called"
            | "named"
            | "titled"
            | "reading"
            | "with"
            | "and"
    )
}

/// A relation phrase in `ws` and the object it names: (start, end, relation, reference). "under
/// the Risks frame" is where a new object goes, not a relation.
pub fn find_relation(ws: &[String]) -> Option<(usize, usize, Relation, Target)> {
    (0..ws.len()).find_map(|i| {
        let (rel, n) = phrase_at(ws, i)?;
        // "the arrow between Login and Dashboard" names a connector by its ends.
        let connector = |w: &String| {
            crate::lang::vocab::kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Connector)
        };
        if rel == Relation::Between && i > 0 && connector(&ws[i - 1]) {
            return None;
        }
        let from = i + n;
        // "between A and B": the reference is both objects.
        let end = ws[from..]
            .iter()
            .position(|w| ends_reference(w) && (rel != Relation::Between || w != "and"))
            .map_or(ws.len(), |k| from + k);
        if end == from {
            return None;
        }
        let t = target(&ws[from..end])?;
        let into_frame =
            matches!(ws[i].as_str(), "under" | "on") && ws[end - 1].starts_with("frame");
        (!into_frame).then_some((i, end, rel, t))
    })
}

/// Text that ends with a relation phrase and an object ("Later next to Buy milk"): the text
/// before it, the relation and the object.
pub fn split_relation(text: &str) -> Option<(String, Relation, Target)> {
    let spans: Vec<(usize, &str)> = text
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
        .collect();
    let lows: Vec<String> = spans
        .iter()
        .map(|(_, w)| {
            w.to_lowercase()
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_string()
        })
        .collect();
    (1..lows.len()).find_map(|k| {
        let (rel, n) = phrase_at(&lows, k)?;
        let tail = &lows[(k + n).min(lows.len())..];
        if tail.is_empty() || tail.len() > 6 {
            return None;
        }
        let t = target(tail)?;
        let head = text[..spans[k].0].trim_end().to_string();
        (!head.is_empty()).then_some((head, rel, t))
    })
}
