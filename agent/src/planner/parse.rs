//! The offline planner's grammar: an everyday command to a [`Command`], without the board.
//!
//! ```text
//! command  := filler* (verb args | noun-phrase)      -- a bare noun phrase creates
//! args     := target? (connective target)* modifiers  -- per verb, see `edits` and `create`
//! target   := selection | memory | description
//! desc     := (quantifier | color | size | side | kind | name)* ("in" frame-desc)?
//! content  := "quoted" | ": text" | marker text       -- taken from the raw text, never corrected
//! ```
//! Words come from the [`lexicon`](crate::lang::lexicon) (typos of lexicon words corrected, number words
//! as digits, politeness dropped).

use super::create::{parse_create, parse_draw_connector};
use super::edits;
use super::motion;
pub use super::phrase::target;
use super::question::parse_question;
pub use super::syntax::{Author, Command, CreateSpec, Desc, MoveSpec, SizeSpec, Target};
use crate::lang::lexicon::{canonical, drop_filler, is_leading_filler};
use crate::lang::strip_front;
use crate::lang::verbs::{Verb, verb};
use crate::lang::vocab::{color_at, extreme, kind_word};
use crate::schema::ArrowKind;

/// Words that start a bare noun phrase ("a red circle", "3 notes"); a bare kind word only with
/// content ("sticky note: buy milk", "note saying hi"), so "notes" alone is not a command.
fn starts_noun_phrase(w: &str, raw: &str) -> bool {
    let lower = raw.to_lowercase();
    let content = raw.contains(':')
        || raw.contains(" - ")
        || raw.contains('"')
        || raw.contains('“')
        || [
            " saying ",
            " that says ",
            " called ",
            " named ",
            " titled ",
            " with text ",
            " for each ",
            " for every ",
            " per ",
        ]
        .iter()
        .any(|m| crate::lang::lex::find_short(&lower, m).is_some());
    // "note", "circle pls": a lone singular kind word.
    let alone = raw
        .split_whitespace()
        .filter(|x| !crate::lang::lexicon::is_leading_filler(&x.to_lowercase()))
        .count()
        <= 1;
    // "star shape, yellow", "circle, red, big": a kind word and attributes only.
    let attributes = || {
        let ws = canonical(raw);
        ws.iter().enumerate().all(|(i, x)| {
            kind_word(x).is_some()
                || color_at(&ws, i).is_some()
                || extreme(x).is_some()
                || crate::lang::lexicon::is_leading_filler(x)
                || matches!(x.as_str(), "and" | "dark" | "light" | "pale" | "bright")
        })
    };
    // "arrow from Login to Settings": a connector between two objects.
    let joins = || {
        kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Connector)
            && [" from ", " between "]
                .iter()
                .any(|m| crate::lang::lex::find_short(&lower, m).is_some())
    };
    matches!(w, "a" | "an" | "another" | "new" | "grid" | "one")
        || joins()
        || alone && kind_word(w).is_some_and(|k| !k.plural)
        || kind_word(w).is_some_and(|k| !k.plural) && attributes()
        || w.parse::<f64>().is_ok()
        || color_at(std::slice::from_ref(&w.to_string()), 0).is_some()
        || kind_word(w).is_some() && content
        || extreme(w).is_some()
        || crate::lang::vocab::dims(w).is_some()
}

/// Parses a command; `None` when it is not an everyday command this grammar knows.
pub fn parse(text: &str) -> Option<Command> {
    let mut ws = canonical(text);
    drop_filler(&mut ws);
    if let Some(q) = parse_question(&ws, text) {
        return Some(Command::Ask(q));
    }
    if let Some(c) = super::sequence::parse_arrow(text, parse) {
        return Some(c);
    }
    if let Some(c) = super::tidy::parse(text) {
        return Some(c);
    }
    if let Some(c) = super::membership::parse(&ws) {
        return Some(c);
    }
    if let Some(two) = super::sequence::parse_two(text, parse) {
        return Some(two);
    }
    let Some(mut c) = parse_one(ws, text) else {
        return super::sequence::parse_topic(text, parse);
    };
    // "the note in Ideas, change it to say …": "it" is the topic before the comma.
    if super::sequence::target_mut(&mut c).is_some_and(|t| matches!(t, Target::It | Target::Them))
        && let Some(t) = super::sequence::parse_topic(text, parse)
    {
        return Some(t);
    }
    Some(c)
}

fn parse_one(ws: Vec<String>, text: &str) -> Option<Command> {
    let start = ws
        .iter()
        .position(|w| !is_leading_filler(w) || verb(w).is_some())?;
    let Some(v) = verb(&ws[start]) else {
        // "(I want) the blue square to be a circle", "the note should be red": make.
        if let Some(c) = super::sequence::wish_named(&ws[start..], text) {
            return Some(c);
        }
        if let Some(rest) = super::sequence::wish(&ws[start..])
            && let Some(c) = edits::parse_make(&rest, text)
        {
            return Some(c);
        }
        // A bare noun phrase creates: "a red circle", "sticky note: buy milk".
        return starts_noun_phrase(&ws[start], text)
            .then(|| parse_create(text))
            .flatten();
    };
    // "line between A and B", "line from A to B": a new connector, not "line up".
    if ws[start] == "line"
        && ws
            .get(start + 1)
            .is_some_and(|w| matches!(w.as_str(), "between" | "from" | "connecting"))
    {
        return super::create::parse_draw_connector(&ws[start..]);
    }
    // "make me a square", "draw us a timeline", "put down a note".
    let rest = strip_front(&ws[start + 1..], &["me", "us"]);
    let rest = if matches!(ws[start].as_str(), "put" | "whip" | "pop" | "jot") {
        strip_front(rest, &["down", "up"])
    } else {
        rest
    };
    let v = if ws[start] == "get" && rest.first().is_some_and(|w| w == "rid") {
        Verb::Delete
    } else {
        v
    };
    // "write 'hello' on a note", "put "Call Mom" on a sticky": the quote goes on a new object.
    let on_new = rest.windows(3).any(|w| {
        matches!(w[0].as_str(), "on" | "onto" | "in" | "as")
            && matches!(w[1].as_str(), "a" | "an" | "new")
            && kind_word(&w[2]).is_some()
    });
    if on_new
        && matches!(v, Verb::Retext | Verb::Make | Verb::Create)
        && !crate::lang::content::quotes(text).0.is_empty()
    {
        return parse_create(text);
    }
    // "title: Q4 planning": a kind word that is also a verb, with its content.
    if kind_word(&ws[start]).is_some()
        && text.contains(':')
        && start + 1 < ws.len()
        && let Some(c) = parse_create(text)
    {
        return Some(c);
    }
    if ws[start] == "write"
        && let Some(c) = super::create::parse_write(text)
    {
        return Some(c);
    }
    let parsed = dispatch(v, &ws[start], rest, text);
    // "write a note saying …", "make a note …": a verb that also creates.
    if parsed.is_none()
        && matches!(v, Verb::Retext | Verb::Make | Verb::Change)
        && rest.first().is_some_and(|w| starts_noun_phrase(w, text))
    {
        return parse_create(text);
    }
    parsed
}

fn dispatch(v: Verb, verb_word: &str, rest: &[String], text: &str) -> Option<Command> {
    match v {
        // "place the red circle next to Login": an existing object moves.
        Verb::Create if moves_existing(rest) => motion::parse_move(rest),
        Verb::Create | Verb::Make if let Some(c) = edits::parse_add_heads(rest) => Some(c),
        Verb::Create => compound_create(text)
            .or_else(|| parse_create(text))
            .or_else(|| parse_draw_connector(rest)),
        // "make the shape above Dashboard green" recolors: only "put" moves.
        Verb::Make if moves_existing(rest) && !matches!(verb_word, "make" | "mk") => {
            motion::parse_move(rest)
        }
        Verb::Make => compound_create(text)
            .or_else(|| edits::parse_make(rest, text))
            .or_else(|| put_in_a_line(rest)),
        Verb::Move => motion::parse_layer(verb_word, rest).or_else(|| motion::parse_move(rest)),
        Verb::Resize => motion::parse_resize(rest, verb_word),
        Verb::Recolor => edits::parse_recolor(rest),
        Verb::Retext => edits::parse_retext(rest, text),
        Verb::Change => edits::parse_change(rest, text),
        Verb::Delete => {
            let rest = strip_front(rest, &["get", "rid", "of", "out"]);
            if rest.is_empty() {
                return None;
            }
            // "remove the arrowheads from the line between A and B": the line stays, plain.
            let heads = strip_front(rest, &["the", "all", "both"]);
            if heads.len() > 2
                && matches!(
                    heads[0].as_str(),
                    "arrowheads" | "arrowhead" | "heads" | "head" | "arrows" | "tips"
                )
                && matches!(heads[1].as_str(), "from" | "on" | "of" | "off")
            {
                return Some(Command::Restyle(target(&heads[2..])?, ArrowKind::None));
            }
            // "the Done frame and everything in it", "… with its contents": a frame goes with
            // its contents anyway.
            let contents = |w: &String| matches!(w.as_str(), "it" | "its" | "contents" | "inside");
            let rest = match rest
                .iter()
                .position(|w| matches!(w.as_str(), "and" | "with" | "including" | "plus"))
            {
                Some(k) if k > 0 && rest[k + 1..].iter().any(contents) => &rest[..k],
                _ => rest,
            };
            // "remove the Done frame but keep its notes": the frame goes, its contents stay.
            if let Some(k) = rest.iter().position(|w| w == "keep" || w == "keeping") {
                let end = rest[..k]
                    .iter()
                    .rposition(|w| !matches!(w.as_str(), "but" | "and" | "while" | "yet"))
                    .map_or(0, |i| i + 1);
                return Some(Command::Ungroup(target(&rest[..end])?));
            }
            let t = target(rest)?;
            // "empty the Done frame", "clear the Risks frame": its contents go, the frame stays.
            // ("the Done column": a frame by what it is used as, see `fit`.)
            let used_as = |d: &Desc| {
                let last = d.text.as_deref().and_then(|t| t.rsplit_once(' '));
                d.kind.is_none() && last.is_some_and(|(_, w)| super::fit::is_container(w))
            };
            // "wipe the Done frame clean": its contents go too.
            let wipe_clean = verb_word == "wipe" && rest.iter().any(|w| w == "clean");
            if (matches!(verb_word, "empty" | "clear") || wipe_clean)
                && let Target::Desc(d) = &t
                && (d.kind.is_some_and(|k| k.kind == protocol::Kind::Frame) || used_as(d))
                && !d.all
            {
                return Some(Command::Delete(Target::Desc(Desc {
                    all: true,
                    within: Some(Box::new(d.clone())),
                    ..Desc::default()
                })));
            }
            Some(Command::Delete(t))
        }
        Verb::Duplicate => edits::parse_duplicate(rest),
        Verb::Connect => edits::parse_connect(rest),
        // "unlink Login and Dashboard", "disconnect A from B": the connectors between them go.
        Verb::Disconnect => {
            let k = rest
                .iter()
                .position(|w| matches!(w.as_str(), "and" | "from" | "with" | "&" | "to"))?;
            let end = |ws: &[String]| match target(ws)? {
                Target::Desc(d) => Some(Box::new(d)),
                _ => None,
            };
            let (a, b) = (end(&rest[..k])?, end(&rest[k + 1..])?);
            Some(Command::Delete(Target::Desc(Desc {
                kind: kind_word("connector"),
                ends: Some((a, b)),
                all: true,
                ..Desc::default()
            })))
        }
        Verb::Arrange => motion::parse_arrange(rest),
        Verb::Group => edits::parse_group(rest, text),
        Verb::Ungroup => Some(Command::Ungroup(target(rest)?)),
    }
}

/// "add a red and a blue circle", "make a green note and a red note": creates joined by "and"
/// (a part without a kind takes the next part's), only when the command has no content.
fn compound_create(text: &str) -> Option<Command> {
    if crate::lang::content::split_create(text).text.is_some() {
        return None;
    }
    let lower = crate::lang::lex::lower_aligned(text);
    if lower.len() != text.len() {
        return None;
    }
    let mut cuts = Vec::new();
    for m in [
        " and a ",
        " and an ",
        " and one ",
        " plus a ",
        " and another ",
    ] {
        let mut from = 0;
        while let Some(i) = crate::lang::lex::find_short(&lower[from..], m) {
            cuts.push((from + i, 5));
            from += i + m.len();
        }
    }
    if cuts.is_empty() {
        return None;
    }
    cuts.sort_unstable();
    let mut parts: Vec<String> = Vec::new();
    let mut from = 0;
    for (i, skip) in cuts {
        parts.push(text[from..i].to_string());
        from = i + skip;
    }
    parts.push(text[from..].to_string());
    let verb = text.split_whitespace().next().unwrap_or_default();
    let mut specs = Vec::new();
    for (k, p) in parts.iter().enumerate() {
        let p = if k == 0 {
            p.clone()
        } else {
            format!("{verb} {p}")
        };
        let spec = match parse_create(&p) {
            Some(Command::Create(c)) => c,
            _ => {
                let kind = parts.get(k + 1)?.split_whitespace().last()?;
                match parse_create(&format!("{p} {kind}"))? {
                    Command::Create(c) => c,
                    _ => return None,
                }
            }
        };
        specs.push(spec);
    }
    (specs.len() >= 2).then_some(Command::Creates(specs))
}

/// "put them in a row", "put these in a column": an arrangement.
fn put_in_a_line(rest: &[String]) -> Option<Command> {
    let k = rest.iter().position(|w| w == "in")?;
    let layout = rest[k + 1..].iter().any(|w| {
        matches!(
            w.as_str(),
            "row" | "column" | "grid" | "circle" | "line" | "stack"
        )
    });
    if k == 0 || !layout {
        return None;
    }
    motion::parse_arrange(rest)
}

/// "the red circle next to Login", "it under the Risks frame's title": a definite object, then
/// where it goes relative to another.
fn moves_existing(rest: &[String]) -> bool {
    rest.first().is_some_and(|w| {
        matches!(
            w.as_str(),
            "the" | "this" | "it" | "these" | "them" | "that"
        ) || !crate::lang::lexicon::is_lexicon(w)
            && kind_word(w).is_none()
            && color_at(rest, 0).is_none()
            && crate::lang::lex::number(w).is_none()
            && !matches!(w.as_str(), "some" | "new" | "another" | "more")
    }) && (super::phrase::find_relation(rest).is_some_and(|(i, ..)| i > 0)
        || motion::into_frame_at(rest).is_some())
}
