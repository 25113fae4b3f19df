//! Commands that look like a template request but act on one object or on existing objects.

use crate::lang::lex::{number, words};

/// "add a note saying Retro at 4", "drop a note to the right of the Roadmap text": a note, shape
/// or text named before its content, or as the object of the command; the other words name no
/// template.
pub(super) fn one_object_with_content(text: &str) -> bool {
    let object = |w: &str| {
        let w = crate::lang::lexicon::correct(w).unwrap_or(w);
        crate::lang::vocab::kind_word(w).is_some_and(|k| {
            matches!(
                k.kind,
                protocol::Kind::Note | protocol::Kind::Shape | protocol::Kind::Text
            )
        })
    };
    let lower = crate::lang::lex::lower_aligned(text);
    if lower.len() == text.len()
        && let Some(i) = crate::lang::content::MARKERS
            .iter()
            .filter_map(|m| lower.find(m))
            .min()
        && words(&text[..i]).iter().any(|w| object(w))
    {
        return true;
    }
    // The verb's object: the first word after the verb that is not an article, a count, a
    // color or a size.
    let ws = words(text);
    let mut it = ws
        .iter()
        .skip_while(|w| crate::lang::lexicon::is_leading_filler(w));
    let Some(v) = it.next() else {
        return false;
    };
    let v = crate::lang::lexicon::correct(v).unwrap_or(v);
    // "a note above the Roadmap text": no verb, a new object first.
    let bare = matches!(v, "a" | "an" | "one" | "another");
    if !bare
        && !matches!(
            v,
            "add" | "create" | "draw" | "put" | "place" | "drop" | "stick" | "insert" | "make"
        )
    {
        return false;
    }
    // "make the Roadmap text red": an existing object.
    let mut it = it.peekable();
    if matches!(v, "make" | "put" | "place" | "drop")
        && it.peek().is_some_and(|w| {
            matches!(
                w.as_str(),
                "the" | "this" | "that" | "these" | "those" | "it" | "my" | "our"
            )
        })
    {
        return true;
    }
    it.find(|w| {
        !matches!(
            w.as_str(),
            "a" | "an"
                | "one"
                | "another"
                | "new"
                | "me"
                | "us"
                | "single"
                | "big"
                | "small"
                | "little"
                | "large"
                | "tiny"
                | "quick"
        ) && number(w).is_none()
            && protocol::palette::canonical_name(w).is_none()
    })
    .is_some_and(|w| object(w))
}

/// A command that starts with a verb acting on existing objects ("delete the Roadmap text") is
/// not a template request.
/// A command about something already on the board: an editing verb, or "make the …" ("make the
/// Login -> Dashboard arrow double-headed", "delete the A -> B connector").
pub(super) fn names_existing(ws: &[String]) -> bool {
    let start = ws
        .iter()
        .position(|w| !crate::lang::lexicon::is_leading_filler(w));
    let definite = start.is_some_and(|i| {
        matches!(ws[i].as_str(), "make" | "turn" | "set")
            && ws
                .get(i + 1)
                .is_some_and(|w| matches!(w.as_str(), "the" | "that" | "this" | "my" | "our"))
    });
    definite || edits_existing(ws)
}

pub(super) fn edits_existing(ws: &[String]) -> bool {
    let Some(i) = ws
        .iter()
        .position(|w| !crate::lang::lexicon::is_leading_filler(w))
    else {
        return false;
    };
    let w = crate::lang::lexicon::correct(&ws[i]).unwrap_or(&ws[i]);
    // "get rid of the Roadmap"
    w == "get" && ws.get(i + 1).is_some_and(|n| n == "rid")
        || matches!(
            w,
            "delete"
                | "remove"
                | "erase"
                | "clear"
                | "empty"
                | "kill"
                | "nuke"
                | "del"
                | "scrap"
                | "ditch"
                | "move"
                | "drag"
                | "nudge"
                | "shift"
                | "rename"
                | "relabel"
                | "label"
                | "color"
                | "colour"
                | "recolor"
                | "recolour"
                | "paint"
                | "resize"
                | "shrink"
                | "enlarge"
                | "duplicate"
                | "copy"
                | "clone"
                | "dup"
                | "dupe"
                | "connect"
                | "link"
                | "ungroup"
                | "group"
                | "wrap"
                | "arrange"
                | "align"
                | "wipe"
                | "trash"
                | "change"
                | "turn"
                | "convert"
                | "swap"
                | "replace"
        )
}
