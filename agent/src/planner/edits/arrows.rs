//! Connector arrowheads: the style a phrase asks for, and "add arrowheads to …".

use super::super::phrase::target;
use super::super::syntax::Command;
use crate::schema::ArrowKind;

/// "add arrowheads to both ends of the line between A and B", "put an arrowhead on the arrow
/// from A to B", "give the line heads at both ends": a connector's arrowheads.
pub(in crate::planner) fn parse_add_heads(rest: &[String]) -> Option<Command> {
    let is_head = |w: &str| matches!(w, "arrowhead" | "arrowheads" | "heads" | "head");
    let both = rest
        .iter()
        .any(|w| matches!(w.as_str(), "both" | "each" | "either"));
    let style = if both {
        ArrowKind::Both
    } else {
        ArrowKind::End
    };
    // "give the line heads at both ends": the object first.
    if let Some(h) = rest.iter().position(|w| is_head(w))
        && h > 1
        && rest[0] == "the"
    {
        // "the line from A to B have arrowheads …": the verb is not part of the name.
        let mut head = &rest[..h];
        while let [before @ .., last] = head
            && matches!(
                last.as_str(),
                "have" | "has" | "get" | "gets" | "with" | "show"
            )
        {
            head = before;
        }
        return Some(Command::Restyle(target(head)?, style));
    }
    let ws = crate::lang::strip_front(rest, &["a", "an", "the", "some", "two"]);
    if !ws.first().is_some_and(|w| is_head(w)) {
        return None;
    }
    let ws = crate::lang::strip_front(&ws[1..], &["to", "on", "onto", "at", "for"]);
    let ws = crate::lang::strip_front(
        ws,
        &[
            "both", "each", "either", "ends", "end", "sides", "side", "of",
        ],
    );
    let t = target(ws)?;
    let super::super::syntax::Target::Desc(d) = &t else {
        return Some(Command::Restyle(t, style));
    };
    (d.kind.is_some_and(|k| k.kind == protocol::Kind::Connector) || d.ends.is_some())
        .then_some(Command::Restyle(t, style))
}
