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
use super::question::{BoardQuestion, parse_question};
use super::relative::Relation;
use crate::lang::lexicon::{canonical, drop_filler, is_leading_filler};
use crate::lang::strip_front;
use crate::lang::verbs::{Verb, verb};
use crate::lang::vocab::{Extreme, KindWord, Side, color_at, extreme, kind_word};
use crate::schema::{ArrangeLayout, ArrowKind, LayoutDirective};

/// Which objects a command acts on.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Ids written in the command.
    Ids(Vec<String>),
    /// "this", "these", "selected".
    Selection,
    /// "it".
    It,
    /// "them", "those".
    Them,
    /// A description: kind, color, size and position words, text, frame.
    Desc(Desc),
}

/// A description of objects on the board.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Desc {
    pub kind: Option<KindWord>,
    pub color: Option<&'static str>,
    pub extreme: Option<Extreme>,
    pub side: Option<Side>,
    /// Words naming the object by its text ("Login", "the Risks frame").
    pub text: Option<String>,
    /// "all", "every", a plural kind: every match rather than one.
    pub all: bool,
    /// "in the Risks frame": only objects inside frames matching this.
    pub within: Option<Box<Desc>>,
    /// "my notes", "Alice's notes": who created them.
    pub author: Option<Author>,
    /// "the arrow between Login and Dashboard": a connector by the names of its ends.
    pub ends: Option<(Box<Desc>, Box<Desc>)>,
    /// "the red circle and the blue square": more descriptions, each matched on its own.
    pub also: Vec<Desc>,
    /// "at the top left": a second side, across the first.
    pub cross: Option<Side>,
    /// "the second note", "the last note in Done": a place in reading order (1-based; negative
    /// counts from the end).
    pub ordinal: Option<i32>,
    /// "the note right of Hello world": on that side of another object, the nearest.
    pub near: Option<(Relation, Box<Target>)>,
    /// "this and the red circle": the objects a pronoun means, besides the description's.
    pub with: Option<Box<Target>>,
    /// "all the notes except Hello world": descriptions of objects left out.
    pub except: Vec<Desc>,
    /// "the first two notes", "the top 3 boxes": how many, with an order.
    pub count: Option<usize>,
    /// "on the left side", "in the top half": the half of the matches toward `side` (else the
    /// row or column furthest that way).
    pub half: bool,
    /// "the empty notes", "blank stickies": objects with no text.
    pub blank: bool,
}

/// Who created the objects a description means.
#[derive(Debug, Clone, PartialEq)]
pub enum Author {
    /// "my", "mine": the requester.
    Me,
    /// "Alice's": a user id (case-insensitive, or its first part).
    Named(String),
}

impl Desc {
    /// True when the description names nothing (no kind, color, text, frame or "all").
    pub fn is_empty(&self) -> bool {
        self.kind.is_none()
            && self.color.is_none()
            && self.text.is_none()
            && !self.all
            && self.within.is_none()
            && self.extreme.is_none()
            && self.side.is_none()
            && self.author.is_none()
            && self.ends.is_none()
            && self.ordinal.is_none()
            && self.near.is_none()
            && !self.blank
    }
}

/// How to move.
#[derive(Debug, Clone, PartialEq)]
pub enum MoveSpec {
    To(f64, f64),
    By(f64, f64),
    /// "under Dashboard", "next to the blue square".
    Beside(Relation, Box<Target>),
    /// "into the Ideas frame": the objects join that frame.
    Into(Box<Target>),
}

/// How to resize.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SizeSpec {
    Scale(f64),
    To(Option<f64>, Option<f64>),
}

/// What to create.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateSpec {
    pub count: usize,
    pub kind: KindWord,
    pub color: Option<&'static str>,
    pub texts: Vec<String>,
    pub at: Option<(f64, f64)>,
    pub size: Option<(f64, f64)>,
    pub layout: Option<LayoutDirective>,
    /// Columns of a grid ("a 3x4 grid of notes": 4).
    pub columns: Option<usize>,
    /// The existing frame the objects go in ("… to the Risks frame").
    pub parent: Option<Target>,
    /// Where, relative to another object ("below the Login box").
    pub beside: Option<(Relation, Target)>,
    /// The objects go in the frame the batch's first create makes ("a frame with 3 notes").
    pub in_new_frame: bool,
}

/// A parsed command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Create(CreateSpec),
    /// "a red and a blue circle", "a green note and a red note".
    Creates(Vec<CreateSpec>),
    Move(Target, MoveSpec),
    Resize(Target, SizeSpec),
    Recolor(Target, &'static str),
    Retext(Target, String),
    Delete(Target),
    /// Copies, `n` times.
    Duplicate(Target, usize),
    /// Connect a chain (or A to B), with a style (line, arrow, double arrow).
    Connect(Target, Option<Target>, Option<ArrowKind>),
    Arrange(Target, ArrangeLayout),
    /// Change what a thing is: a shape's geo, note ↔ shape.
    Reshape(Target, KindWord),
    /// A connector's arrowheads.
    Restyle(Target, ArrowKind),
    /// Put the objects in a new frame with this name.
    Group(Target, String),
    /// Take a frame's children out and remove the frame.
    Ungroup(Target),
    /// A question about the board, answered without changing it.
    Ask(BoardQuestion),
    /// "bring X to the front" (true), "send X to the back" (false): the drawing order.
    Layer(Target, bool),
    /// Two commands in one ("copy X and put it below Y").
    Then(Box<Command>, Box<Command>),
    /// A menu command: align, distribute, space, same size, rotate, flip, relative layering.
    Tidy(Target, super::tidy::Tidy),
    /// Objects out of their frame (of this frame only, when one is named).
    TakeOut(Target, Option<Box<Target>>),
    /// New texts for objects the board was read for (a word replaced, typos fixed).
    SetTexts(Vec<(protocol::ObjectId, String)>),
}

impl Command {
    /// The objects a command acts on, when it acts on one target (not a connector's two ends).
    pub(super) fn target_mut(&mut self) -> Option<&mut Target> {
        match self {
            Command::Move(t, _)
            | Command::Resize(t, _)
            | Command::Recolor(t, _)
            | Command::Retext(t, _)
            | Command::Delete(t)
            | Command::Duplicate(t, _)
            | Command::Reshape(t, _)
            | Command::Restyle(t, _)
            | Command::Group(t, _)
            | Command::Ungroup(t)
            | Command::Arrange(t, _)
            | Command::Layer(t, _)
            | Command::Tidy(t, _)
            | Command::TakeOut(t, _) => Some(t),
            _ => None,
        }
    }
}

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
    if let Some(c) = super::sequence::parse_arrow(text) {
        return Some(c);
    }
    if let Some(c) = super::tidy::parse(text) {
        return Some(c);
    }
    if let Some(c) = super::membership::parse(&ws) {
        return Some(c);
    }
    if let Some(two) = super::sequence::parse_two(text) {
        return Some(two);
    }
    let Some(mut c) = parse_one(ws, text) else {
        return super::sequence::parse_topic(text);
    };
    // "the note in Ideas, change it to say …": "it" is the topic before the comma.
    if super::sequence::target_mut(&mut c).is_some_and(|t| matches!(t, Target::It | Target::Them))
        && let Some(t) = super::sequence::parse_topic(text)
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
    }) && (super::relative::find(rest).is_some_and(|(i, ..)| i > 0)
        || motion::into_frame_at(rest).is_some())
}
