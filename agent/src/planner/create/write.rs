//! "write 'Welcome!' in big letters": a new text written on the board.

use super::super::syntax::{Command, CreateSpec};
use crate::lang::lexicon::canonical;
use crate::lang::vocab::kind_word;

/// "write 'Welcome!' in big letters", "write Hello team in huge letters", "write 'Hi'": a new
/// text (unquoted only with "in … letters": "write me a poem" is not one), unless the command
/// says where or on what ("write 'hi' on the Login box" changes that object's text).
pub(in crate::planner) fn parse_write(raw: &str) -> Option<Command> {
    let lower = crate::lang::lex::lower_aligned(raw);
    if lower.len() != raw.len() {
        return None;
    }
    let at = lower.find("write ")? + "write ".len();
    let (mut body, mut scale, mut letters) = (raw[at..].trim(), 1.0, false);
    // "… in big letters", "… in huge font"
    let low = crate::lang::lex::lower_aligned(body);
    for unit in [" letters", " font", " caps", " capitals", " type", " print"] {
        let Some(k) = low
            .trim_end_matches(['.', '!'])
            .strip_suffix(unit)
            .map(str::len)
        else {
            continue;
        };
        let head = low[..k].trim_end();
        let Some((before, size)) = head.rsplit_once(" in ") else {
            continue;
        };
        scale = match size.trim_start_matches("really ").trim() {
            "big" | "bigger" | "large" | "capital" | "block" | "bold" => 2.0,
            "huge" | "giant" | "massive" | "enormous" | "very big" => 3.0,
            "small" | "tiny" | "little" => 0.5,
            "" => 1.0,
            _ => continue,
        };
        body = body[..before.len()].trim();
        letters = true;
        break;
    }
    // "write hello on the board": a new text wherever there is room.
    let low = crate::lang::lex::lower_aligned(body);
    for place in [
        " on the board",
        " on the whiteboard",
        " on the canvas",
        " somewhere",
    ] {
        if let Some(k) = low.trim_end_matches(['.', '!']).strip_suffix(place) {
            body = body[..k.len()].trim();
            letters = true;
            break;
        }
    }
    let (quoted, rest) = crate::lang::content::quotes(body);
    if placed_or_object(&canonical(&rest)) {
        return None;
    }
    let text = match quoted.as_slice() {
        [q] => q.clone(),
        [] if letters => body.to_string(),
        _ => return None,
    };
    if text.trim().is_empty() {
        return None;
    }
    let (w, h) = layout::text::estimate_size(&text, layout::text::TextKind::Text);
    Some(Command::Create(CreateSpec {
        count: 1,
        kind: kind_word("text")?,
        color: None,
        texts: vec![text],
        at: None,
        size: (scale != 1.0).then_some((w * scale, h * scale)),
        layout: None,
        columns: None,
        parent: None,
        beside: None,
        in_new_frame: false,
    }))
}

/// Words that say where the text goes ("on the Login box") or that it is an object ("write a
/// note saying …", "write it on …"): not a text of its own.
fn placed_or_object(words: &[String]) -> bool {
    let placed = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "on" | "onto"
                | "to"
                | "as"
                | "into"
                | "in"
                | "inside"
                | "under"
                | "below"
                | "above"
                | "next"
                | "beside"
                | "near"
                | "at"
        )
    });
    // "write a note saying …", "write it on …": not the text itself.
    let object = |w: &String| {
        kind_word(w).is_some()
            || matches!(
                w.as_str(),
                "a" | "an"
                    | "another"
                    | "new"
                    | "the"
                    | "some"
                    | "this"
                    | "that"
                    | "it"
                    | "these"
                    | "them"
            )
    };
    placed || words.first().is_some_and(object)
}
