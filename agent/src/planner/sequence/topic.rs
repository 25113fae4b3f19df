//! Commands written around their object: the object first ("the notes in Risks, make them
//! red"), an arrow for "to" ("red circle -> triangle"), a wish ("the note should be red", "the
//! line to have arrowheads at both ends", "the frame should be called Done").

use super::super::syntax::Command;
use super::super::syntax::Parser;
use crate::lang::lexicon::canonical;
use crate::lang::verbs::verb;

/// Pronouns a second clause uses for what the first clause named.
fn is_pronoun(w: &str) -> bool {
    matches!(
        w,
        "it" | "them" | "they" | "those" | "these" | "this" | "that"
    )
}

/// True when the words name what a command acts on: a color or a kind word, alone or after
/// "a" / "an".
fn is_value(ws: &[String]) -> bool {
    let ws = crate::lang::strip_front(ws, &["a", "an", "into", "to"]);
    let ws = match ws {
        [head @ .., last] if matches!(last.as_str(), "instead" | "now" | "too") => head,
        _ => ws,
    };
    match ws {
        [w] => {
            crate::lang::vocab::kind_word(w).is_some()
                || crate::lang::vocab::color_at(ws, 0).is_some_and(|(_, n)| n == 1)
        }
        [_, _] => crate::lang::vocab::color_at(ws, 0).is_some_and(|(_, n)| n == 2),
        _ => false,
    }
}

/// "red circle -> triangle", "all notes in Risks -> red", "recolor Hello world -> pink": the
/// arrow means "to" when what follows it is one color or kind.
pub(in crate::planner) fn parse_arrow(text: &str, parse: Parser) -> Option<Command> {
    let (left, r) = arrow_edit(text)?;
    let l = canonical(left);
    let lead = l
        .iter()
        .find(|w| !crate::lang::lexicon::is_leading_filler(w))?;
    let rewritten = if verb(lead).is_some() {
        format!("{} to {}", left.trim(), r.join(" "))
    } else {
        format!("turn {} into {}", left.trim(), r.join(" "))
    };
    parse(&rewritten)
}

/// "X -> Y" where Y is one color or kind: the part before the arrow and Y's words.
fn arrow_edit(text: &str) -> Option<(&str, Vec<String>)> {
    let (left, right) = text.split_once("->").or_else(|| text.split_once('→'))?;
    if right.contains("->") || right.contains('→') || left.trim().is_empty() {
        return None;
    }
    let r: Vec<String> = canonical(right)
        .into_iter()
        .filter(|w| !crate::lang::lexicon::is_leading_filler(w) && w != "please")
        .collect();
    is_value(&r).then_some((left, r))
}

/// A command written with the object first: "the notes in Risks, make them red" (the pronoun is
/// the phrase before the comma), "the line between A and B, arrow both sides" (the rest says what
/// it becomes), "as for the Login box, make it orange", "the blue square - make it red", "take
/// the red circle and make it bigger", "the blue square into a star".
pub(in crate::planner) fn parse_topic(text: &str, parse: Parser) -> Option<Command> {
    if let Some(c) = take_and(text, parse).or_else(|| bare_change(text, parse)) {
        return Some(c);
    }
    let (left, right) = [", ", " -> ", " - ", " — ", " – "]
        .iter()
        .find_map(|s| text.split_once(s))?;
    topic_then(strip_topic_marker(left), right, true, parse)
}

/// "as for X", "for X", "regarding X": X.
fn strip_topic_marker(left: &str) -> &str {
    let lower = crate::lang::lex::lower_aligned(left.trim_start());
    let left = left.trim_start();
    for m in ["as for ", "as to ", "for ", "regarding ", "about ", "re "] {
        if lower.starts_with(m) && lower.len() == left.len() {
            return &left[m.len()..];
        }
    }
    left
}

/// "take the red circle and make it bigger", "select Checkout and delete it".
fn take_and(text: &str, parse: Parser) -> Option<Command> {
    let lower = crate::lang::lex::lower_aligned(text);
    if lower.len() != text.len() {
        return None;
    }
    let start = ["take ", "grab ", "select ", "pick ", "find ", "choose "]
        .iter()
        .find(|v| lower.trim_start().starts_with(**v))?;
    let from = lower.find(start)? + start.len();
    let and = lower[from..].find(" and ")? + from;
    topic_then(&text[from..and], &text[and + 5..], false, parse)
}

/// "the blue square into a star please", "the Login box as a hexagon": a change with no verb.
fn bare_change(text: &str, parse: Parser) -> Option<Command> {
    let ws: Vec<String> = canonical(text)
        .into_iter()
        .filter(|w| !crate::lang::lexicon::is_leading_filler(w) && w != "please")
        .collect();
    let definite = ws
        .first()
        .is_some_and(|w| matches!(w.as_str(), "the" | "this" | "these" | "my" | "that"));
    let k = ws.iter().rposition(|w| w == "into" || w == "as")?;
    let shape_or_color = ws[k + 1..].iter().all(|w| {
        crate::lang::vocab::kind_word(w)
            .is_none_or(|k| !matches!(k.kind, protocol::Kind::Frame | protocol::Kind::Connector))
    });
    if !definite || k < 2 || !shape_or_color || !is_value(&ws[k + 1..]) {
        return None;
    }
    let cmd = parse(&format!("turn {text}"))?;
    matches!(cmd, Command::Reshape(..) | Command::Recolor(..)).then_some(cmd)
}

/// The topic `left`, then `right`: a command on "it" / "them" (the topic), or what the topic
/// becomes. `definite`: the topic must start with "the", "all", …
fn topic_then(left: &str, right: &str, definite: bool, parse: Parser) -> Option<Command> {
    if left.matches(['"', '“', '”']).count() % 2 == 1 {
        return None;
    }
    let l = canonical(left);
    let first = l
        .iter()
        .find(|w| !crate::lang::lexicon::is_leading_filler(w))?;
    let the = matches!(
        first.as_str(),
        "the" | "all" | "every" | "each" | "my" | "those" | "these" | "whichever"
    );
    if definite && !the || verb(first).is_some() || super::super::phrase::target(&l).is_none() {
        return None;
    }
    let r = canonical(right);
    let lead = r
        .iter()
        .find(|w| !crate::lang::lexicon::is_leading_filler(w))?;
    let cmd = if verb(lead).is_some() {
        // "make them red": the pronoun is the topic.
        let mut at = None;
        for w in right.split_whitespace() {
            let bare = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if is_pronoun(&bare) {
                at = Some((w.as_ptr() as usize - right.as_ptr() as usize, w.len()));
                break;
            }
        }
        match at {
            Some((k, n)) => parse(&format!(
                "{}{}{}",
                &right[..k],
                left.trim(),
                &right[k + n..]
            ))?,
            // "the yellow notes -> delete": the verb alone acts on the topic.
            None if r.len() == 1 => parse(&format!("{} {}", right.trim(), left.trim()))?,
            None => return None,
        }
    } else if definite {
        // "arrow both sides", "pink": what the topic becomes.
        parse(&format!("make {} {}", left.trim(), right.trim()))?
    } else {
        return None;
    };
    (!matches!(
        cmd,
        Command::Create(_) | Command::Creates(_) | Command::Ask(_)
    ))
    .then_some(cmd)
}

/// "the note that says X to say Y", "the line to have arrowheads at both ends", "the boxes be
/// made orange", "the note should be red": the object, then what it becomes (as after "make").
pub(in crate::planner) fn wish(ws: &[String]) -> Option<Vec<String>> {
    let modal = |w: &str| {
        matches!(
            w,
            "to" | "should" | "must" | "will" | "could" | "would" | "can"
        )
    };
    let done = |w: &str| {
        matches!(
            w,
            "made"
                | "turned"
                | "changed"
                | "colored"
                | "coloured"
                | "painted"
                | "converted"
                | "set"
        )
    };
    // "(could) the line have arrowheads at both ends": the modal was polite filler.
    let both = ws.len() >= 2
        && ws[ws.len() - 2] == "both"
        && matches!(
            ws[ws.len() - 1].as_str(),
            "ends" | "ways" | "sides" | "directions"
        );
    let b = (1..ws.len()).find(|&b| {
        let w = ws[b].as_str();
        modal(&ws[b - 1]) && matches!(w, "be" | "say" | "read" | "have" | "point" | "become")
            || w == "be" && ws.get(b + 1).is_some_and(|n| done(n))
            // "(can) the red circle be a star", "(could) Checkout become a cloud".
            || matches!(w, "be" | "become") && is_value(&ws[b + 1..])
            || both && matches!(w, "have" | "point" | "go")
    })?;
    let mut head = if modal(&ws[b - 1]) { b - 1 } else { b };
    // "the shape in the corner needs to be green", "the note has to say Hi".
    while head > 1
        && matches!(
            ws[head - 1].as_str(),
            "needs" | "need" | "has" | "have" | "ought" | "got" | "is" | "are" | "supposed"
        )
    {
        head -= 1;
    }
    let mut rest: Vec<String> = ws[..head].to_vec();
    let mut tail = &ws[b..];
    if tail[0] == "be" || tail[0] == "become" {
        tail = &tail[1..];
        if tail.first().is_some_and(|n| done(n)) {
            tail = crate::lang::strip_front(&tail[1..], &["to", "into"]);
        }
    }
    rest.extend_from_slice(tail);
    Some(rest)
}

/// "the frame on the right should be called Finished", "the note needs to be named Later": a
/// new text.
pub(in crate::planner) fn wish_named(ws: &[String], raw: &str) -> Option<Command> {
    let b = (1..ws.len().saturating_sub(2)).find(|&b| {
        ws[b] == "be"
            && matches!(
                ws[b + 1].as_str(),
                "called" | "named" | "renamed" | "titled" | "labeled" | "labelled" | "retitled"
            )
    })?;
    let mut head = b;
    while head > 1
        && matches!(
            ws[head - 1].as_str(),
            "to" | "should"
                | "must"
                | "will"
                | "could"
                | "would"
                | "can"
                | "needs"
                | "need"
                | "has"
                | "have"
                | "ought"
                | "is"
                | "are"
        )
    {
        head -= 1;
    }
    let text = super::super::edits::last_quote(raw)
        .or_else(|| super::super::edits::text_after(raw, &ws[b + 1]))?;
    Some(Command::Retext(
        super::super::phrase::target(&ws[..head])?,
        text,
    ))
}
