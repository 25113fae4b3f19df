//! Connectors in a command: the arrowheads a phrase asks for ("line", "double arrow") and the
//! ends of "connect A to B", "link each to the next".

use super::phrase::target;
use super::syntax::{Command, Target};
use crate::lang::vocab::kind_word;
use crate::schema::ArrowKind;

/// The arrowheads a phrase asks for: "line" → none, "double arrow" → both, "arrow" → end.
pub(super) fn arrow_style(ws: &[String]) -> Option<ArrowKind> {
    let both = ws.iter().any(|w| {
        matches!(
            w.as_str(),
            "double" | "two-way" | "bidirectional" | "both" | "double-headed" | "two-headed"
        )
    });
    if both
        && ws
            .iter()
            .any(|w| w.starts_with("arrow") || w.starts_with("line") || w == "connector")
    {
        return Some(ArrowKind::Both);
    }
    if ws
        .iter()
        .any(|w| w == "line" || w == "lines" || w == "plain")
    {
        return Some(ArrowKind::None);
    }
    if ws.iter().any(|w| w == "arrow" || w == "arrows") {
        return Some(ArrowKind::End);
    }
    None
}

pub(super) fn parse_connect(rest: &[String]) -> Option<Command> {
    let style = arrow_style(rest);
    // The part naming the connector ("with a line", "using double arrows") is not an end.
    let cut = rest
        .iter()
        .position(|w| matches!(w.as_str(), "with" | "using" | "by" | "via"))
        .filter(|&i| {
            rest[i + 1..]
                .iter()
                .any(|w| kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Connector))
        })
        .unwrap_or(rest.len());
    let rest = crate::lang::strip_front(&rest[..cut], &["from", "between"]);
    // "connect each to the next", "connect each one to the one after": a chain.
    if rest.first().is_some_and(|w| w == "each")
        && rest
            .iter()
            .any(|w| matches!(w.as_str(), "next" | "after" | "following"))
    {
        return Some(Command::Connect(Target::Them, None, style));
    }
    for sep in ["to", "and", "with", "&"] {
        if let Some(i) = rest.iter().position(|w| w == sep)
            && i > 0
            && i + 1 < rest.len()
            && let (Some(a), Some(b)) = (target(&rest[..i]), target(&rest[i + 1..]))
        {
            return Some(Command::Connect(a, Some(b), style));
        }
    }
    Some(Command::Connect(target(rest)?, None, style))
}
