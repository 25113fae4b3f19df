//! Create commands: count, kind, color, text, position ("at 100, 200") and size ("200x300").

use super::parse::{Command, CreateSpec, has, parse_connect};
use super::vocab::{color_at, dims, kind_word};
use crate::lex::{number, quoted};
use crate::schema::LayoutDirective;

/// Text the object should carry: a quoted string, or what follows "that says", "saying",
/// "with text", "labeled", "called", "named", "titled" (original case).
fn text_after_marker(raw: &str) -> Option<String> {
    if let Some(q) = quoted(raw) {
        return Some(q);
    }
    let lower = raw.to_lowercase();
    for m in [
        " that says ",
        " which says ",
        " saying ",
        " with the text ",
        " with text ",
        " labeled ",
        " labelled ",
        " called ",
        " named ",
        " titled ",
        " that reads ",
        " reading ",
        " says ",
    ] {
        if let Some(i) = lower.find(m) {
            let t = raw[i + m.len()..]
                .trim()
                .trim_end_matches(['.', '!'])
                .trim();
            if !t.is_empty() {
                return Some(t.to_string());
            }
        }
    }
    None
}

fn topic_after_about(raw: &str) -> Option<String> {
    let lower = raw.to_lowercase();
    let i = lower.find(" about ").or_else(|| lower.find(" for "))?;
    let m = if lower[i..].starts_with(" about ") {
        7
    } else {
        5
    };
    let t = raw[i + m..].trim().trim_end_matches(['.', '!']).trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Two numbers after position words: "at 100, 200", "at position (100, 200)", "at x 100 y 200".
fn position(ws: &[String]) -> Option<((f64, f64), usize, usize)> {
    let at = ws.iter().position(|w| w == "at" || w == "position")?;
    let mut nums = Vec::new();
    let mut end = at + 1;
    for (k, w) in ws.iter().enumerate().skip(at + 1) {
        if matches!(
            w.as_str(),
            "position" | "pos" | "x" | "y" | "coordinates" | "point" | "the"
        ) {
            end = k + 1;
            continue;
        }
        match w.parse::<f64>() {
            Ok(n) if n.is_finite() => {
                nums.push(n);
                end = k + 1;
                if nums.len() == 2 {
                    break;
                }
            }
            _ => break,
        }
    }
    (nums.len() == 2).then(|| ((nums[0], nums[1]), at, end))
}

/// "200x300", "200 x 300", "200 by 300".
pub(super) fn size(ws: &[String]) -> Option<((f64, f64), usize, usize)> {
    for (i, w) in ws.iter().enumerate() {
        if let Some(d) = dims(w) {
            return Some((d, i, i + 1));
        }
        if let (Some(a), Some(sep), Some(b)) = (
            w.parse::<f64>().ok(),
            ws.get(i + 1),
            ws.get(i + 2).and_then(|b| b.parse::<f64>().ok()),
        ) && (sep == "x" || sep == "by" || sep == "×")
            && a > 0.0
            && b > 0.0
        {
            return Some(((a, b), i, i + 3));
        }
    }
    None
}

pub(super) fn parse_create(rest: &[String], raw: &str) -> Option<Command> {
    let mut ws: Vec<String> = rest.to_vec();
    let at = position(&ws).map(|(p, s, e)| {
        ws.drain(s..e);
        p
    });
    let size = size(&ws).map(|(d, s, e)| {
        ws.drain(s..e);
        d
    });
    // Only the words before a text marker describe the object.
    let cut = ws
        .iter()
        .position(|w| {
            matches!(
                w.as_str(),
                "that"
                    | "saying"
                    | "says"
                    | "with"
                    | "labeled"
                    | "labelled"
                    | "called"
                    | "named"
                    | "titled"
                    | "about"
                    | "reading"
            )
        })
        .unwrap_or(ws.len());
    let head = &ws[..cut];
    let ki = head.iter().position(|w| kind_word(w).is_some())?;
    let kind = kind_word(&head[ki])?;
    if kind.kind == protocol::Kind::Connector {
        return None;
    }
    let count = head[..ki]
        .iter()
        .rev()
        .find_map(|w| number(w))
        .map(|n| n.clamp(1.0, crate::schema::MAX_OPERATIONS as f64) as usize)
        .unwrap_or(if kind.plural { 3 } else { 1 });
    let color = (0..head.len()).find_map(|i| color_at(head, i).map(|c| c.0));
    let size = size.or_else(|| {
        let big = head
            .iter()
            .any(|w| matches!(w.as_str(), "big" | "large" | "huge"));
        let small = head
            .iter()
            .any(|w| matches!(w.as_str(), "small" | "tiny" | "little"));
        let (w, h) = match kind.kind {
            protocol::Kind::Shape => (200.0, if kind.equal_sides { 200.0 } else { 120.0 }),
            protocol::Kind::Frame => (400.0, 300.0),
            _ => (200.0, 200.0),
        };
        if big {
            Some((w * 2.0, h * 2.0))
        } else if small {
            Some((w / 2.0, h / 2.0))
        } else {
            None
        }
    });
    let texts = match (text_after_marker(raw), topic_after_about(raw)) {
        (Some(t), _) if count == 1 => vec![t],
        (Some(t), _) => vec![t; count],
        (None, Some(topic)) if count == 1 => vec![topic],
        (None, Some(topic)) => (1..=count).map(|i| format!("{topic} {i}")).collect(),
        (None, None) => Vec::new(),
    };
    let layout = if has(&ws, "grid") || count > 4 {
        Some(LayoutDirective::Grid)
    } else {
        None
    };
    Some(Command::Create(CreateSpec {
        count,
        kind,
        color,
        texts,
        at,
        size,
        layout,
    }))
}

/// "draw an arrow from A to B".
pub(super) fn parse_draw_connector(rest: &[String]) -> Option<Command> {
    if !rest
        .iter()
        .any(|w| kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Connector))
    {
        return None;
    }
    let from = rest.iter().position(|w| w == "from" || w == "between")?;
    parse_connect(&rest[from + 1..])
}
