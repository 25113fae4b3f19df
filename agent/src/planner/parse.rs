//! The offline planner's grammar: an everyday command to a [`Command`], without the board.
//!
//! ```text
//! command  := filler* (verb args | noun-phrase)      -- a bare noun phrase creates
//! args     := target? (connective target)* modifiers  -- per verb, see `edits` and `create`
//! target   := selection | memory | description
//! desc     := (quantifier | color | size | side | kind | name)* ("in" frame-desc)?
//! content  := "quoted" | ": text" | marker text       -- taken from the raw text, never corrected
//! ```
//! Words come from the [`lexicon`](super::lexicon) (typos of lexicon words corrected, number words
//! as digits, politeness dropped).

use super::create::{parse_create, parse_draw_connector};
use super::edits;
use super::lexicon::{canonical, drop_filler, is_leading_filler};
use super::motion;
use super::question::{BoardQuestion, parse_question};
use super::relative::Relation;
use super::vocab::{Extreme, KindWord, Side, color_at, extreme, kind_word, side};
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
    }
}

/// How to move.
#[derive(Debug, Clone, PartialEq)]
pub enum MoveSpec {
    To(f64, f64),
    By(f64, f64),
    /// "under Dashboard", "next to the blue square".
    Beside(Relation, Box<Target>),
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
}

/// A parsed command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Create(CreateSpec),
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verb {
    Create,
    Make,
    Move,
    Resize,
    Recolor,
    Retext,
    Change,
    Delete,
    Duplicate,
    Connect,
    Arrange,
    Group,
    Ungroup,
}

pub(super) fn verb(w: &str) -> Option<Verb> {
    // "adding", "making", "dropping": the verb's stem.
    if let Some(stem) = w.strip_suffix("ing").filter(|s| s.len() >= 2) {
        let b = stem.as_bytes();
        let undoubled =
            (b.len() >= 2 && b[b.len() - 1] == b[b.len() - 2]).then(|| &stem[..stem.len() - 1]);
        return verb_word(stem)
            .or_else(|| verb_word(&format!("{stem}e")))
            .or_else(|| undoubled.and_then(verb_word));
    }
    verb_word(w)
}

fn verb_word(w: &str) -> Option<Verb> {
    Some(match w {
        "ad" => Verb::Create,
        "create" | "add" | "draw" | "insert" | "new" | "generate" | "build" | "give" | "place"
        | "get" | "have" | "sketch" | "drop" | "stick" | "throw" | "jot" => Verb::Create,
        "make" | "put" => Verb::Make,
        "move" | "drag" | "shift" | "nudge" | "push" | "slide" | "bring" | "position" => Verb::Move,
        "resize" | "scale" | "grow" | "shrink" | "enlarge" | "expand" | "double" | "halve" => {
            Verb::Resize
        }
        "color" | "colour" | "recolor" | "recolour" | "paint" | "fill" | "highlight" => {
            Verb::Recolor
        }
        "rename" | "retitle" | "relabel" | "label" | "write" | "title" | "retext" | "reword" => {
            Verb::Retext
        }
        "change" | "set" | "update" | "edit" | "turn" | "convert" | "transform" | "switch"
        | "replace" => Verb::Change,
        "delete" | "remove" | "erase" | "clear" | "trash" | "destroy" | "wipe" | "kill"
        | "discard" | "nuke" | "scrap" | "ditch" | "zap" | "drop-" => Verb::Delete,
        "duplicate" | "copy" | "clone" | "replicate" | "repeat" => Verb::Duplicate,
        "connect" | "link" | "join" | "wire" | "attach" => Verb::Connect,
        "arrange" | "organize" | "organise" | "align" | "layout" | "lay" | "line" | "stack"
        | "sort" | "distribute" | "tidy" | "order" | "rearrange" => Verb::Arrange,
        "group" | "wrap" | "frame" | "enclose" | "bundle" => Verb::Group,
        "ungroup" | "unframe" | "ungrouped" => Verb::Ungroup,
        _ => return None,
    })
}

/// Words that start a bare noun phrase ("a red circle", "3 notes"); a bare kind word only with
/// content ("sticky note: buy milk", "note saying hi"), so "notes" alone is not a command.
fn starts_noun_phrase(w: &str, raw: &str) -> bool {
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
        ]
        .iter()
        .any(|m| raw.to_lowercase().contains(m));
    matches!(w, "a" | "an" | "another" | "new" | "grid")
        || w.parse::<f64>().is_ok()
        || color_at(std::slice::from_ref(&w.to_string()), 0).is_some()
        || kind_word(w).is_some() && content
        || extreme(w).is_some()
        || super::vocab::dims(w).is_some()
}

/// Parses a command; `None` when it is not an everyday command this grammar knows.
pub fn parse(text: &str) -> Option<Command> {
    let mut ws = canonical(text);
    drop_filler(&mut ws);
    if let Some(q) = parse_question(&ws, text) {
        return Some(Command::Ask(q));
    }
    let start = ws
        .iter()
        .position(|w| !is_leading_filler(w) || verb(w).is_some())?;
    let Some(v) = verb(&ws[start]) else {
        // "(I want) the blue square to be a circle", "the note should be red": make.
        if let Some(b) = ws.iter().position(|w| w == "be")
            && b > start + 1
            && matches!(ws[b - 1].as_str(), "to" | "should" | "must" | "will")
        {
            let mut rest: Vec<String> = ws[start..b - 1].to_vec();
            rest.extend_from_slice(&ws[b + 1..]);
            if let Some(c) = edits::parse_make(&rest, text) {
                return Some(c);
            }
        }
        // A bare noun phrase creates: "a red circle", "sticky note: buy milk".
        return starts_noun_phrase(&ws[start], text)
            .then(|| parse_create(text))
            .flatten();
    };
    // "make me a square", "draw us a timeline", "put down a note".
    let rest = strip_front(&ws[start + 1..], &["me", "us"]);
    let rest = if ws[start] == "put" {
        strip_front(rest, &["down", "up"])
    } else {
        rest
    };
    let v = if ws[start] == "get" && rest.first().is_some_and(|w| w == "rid") {
        Verb::Delete
    } else {
        v
    };
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
        Verb::Create => parse_create(text).or_else(|| parse_draw_connector(rest)),
        Verb::Make if moves_existing(rest) => motion::parse_move(rest),
        Verb::Make => edits::parse_make(rest, text),
        Verb::Move => motion::parse_move(rest),
        Verb::Resize => motion::parse_resize(rest, verb_word),
        Verb::Recolor => edits::parse_recolor(rest),
        Verb::Retext => edits::parse_retext(rest, text),
        Verb::Change => edits::parse_change(rest, text),
        Verb::Delete => {
            let rest = strip_front(rest, &["get", "rid", "of", "out"]);
            if rest.is_empty() {
                return None;
            }
            // "remove the Done frame but keep its notes": the frame goes, its contents stay.
            if let Some(k) = rest.iter().position(|w| w == "keep" || w == "keeping") {
                let end = rest[..k]
                    .iter()
                    .rposition(|w| !matches!(w.as_str(), "but" | "and" | "while" | "yet"))
                    .map_or(0, |i| i + 1);
                return Some(Command::Ungroup(target(&rest[..end])?));
            }
            Some(Command::Delete(target(rest)?))
        }
        Verb::Duplicate => edits::parse_duplicate(rest),
        Verb::Connect => edits::parse_connect(rest),
        Verb::Arrange => edits::parse_arrange(rest),
        Verb::Group => edits::parse_group(rest, text),
        Verb::Ungroup => Some(Command::Ungroup(target(rest)?)),
    }
}

/// "the red circle next to Login", "it under the Risks frame's title": a definite object, then
/// where it goes relative to another.
fn moves_existing(rest: &[String]) -> bool {
    rest.first().is_some_and(|w| {
        matches!(
            w.as_str(),
            "the" | "this" | "it" | "these" | "them" | "that"
        ) || !super::lexicon::is_lexicon(w)
            && kind_word(w).is_none()
            && color_at(rest, 0).is_none()
            && crate::lex::number(w).is_none()
            && !matches!(w.as_str(), "some" | "new" | "another" | "more")
    }) && super::relative::find(rest).is_some_and(|(i, ..)| i > 0)
}

pub(super) fn strip_front<'a>(ws: &'a [String], skip: &[&str]) -> &'a [String] {
    let n = ws.iter().take_while(|w| skip.contains(&w.as_str())).count();
    &ws[n..]
}

/// Words a target phrase may contain that name nothing.
fn is_noise(w: &str) -> bool {
    matches!(
        w,
        "the"
            | "a"
            | "an"
            | "our"
            | "your"
            | "one"
            | "object"
            | "objects"
            | "thing"
            | "things"
            | "item"
            | "items"
            | "element"
            | "elements"
            | "of"
            | "on"
            | "board"
            | "canvas"
            | "again"
            | "too"
            | "there"
            | "here"
            | "stuff"
            | "whole"
            | "entire"
            | "please"
            | "existing"
            | "current"
            | "also"
            | "just"
            | "now"
            | "ones"
            | "page"
            | "quoted"
            | "qquoted"
            | "please-"
            | "then"
            | "so"
            | "up"
            | "please."
            | "out"
            | "which"
            | "is"
            | "are"
            | "with"
            | "for"
            | "me"
            | "that's"
            | "whose"
            | "has"
            | "from"
            | "shape"
            | "currently"
    )
}

/// Parses a target phrase.
pub fn target(ws: &[String]) -> Option<Target> {
    let ws: Vec<&str> = ws.iter().map(String::as_str).collect();
    // "the arrow between Login and Dashboard", "the line from A to B".
    let is_conn = |w: &str| kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Connector);
    if let Some(c) = ws.iter().position(|w| is_conn(w))
        && let Some(k) = ws[c + 1..]
            .iter()
            .position(|w| *w == "between" || *w == "from")
            .map(|k| k + c + 1)
        && let Some(m) = ws[k + 1..]
            .iter()
            .position(|w| *w == "and" || *w == "to" || *w == "&")
            .map(|m| m + k + 1)
    {
        let part = |a: usize, b: usize| -> Option<Box<Desc>> {
            let v: Vec<String> = ws[a..b].iter().map(|s| s.to_string()).collect();
            match target(&v)? {
                Target::Desc(d) => Some(Box::new(d)),
                _ => None,
            }
        };
        if let (Some(a), Some(b)) = (part(k + 1, m), part(m + 1, ws.len())) {
            let head: Vec<String> = ws[..k].iter().map(|s| s.to_string()).collect();
            if let Some(Target::Desc(mut d)) = target(&head) {
                d.ends = Some((a, b));
                return Some(Target::Desc(d));
            }
        }
    }
    // "the notes in the Done frame", "everything inside Risks".
    if let Some(k) = ws
        .iter()
        .position(|w| matches!(*w, "in" | "inside" | "within" | "from"))
        && k + 1 < ws.len()
    {
        let inner: Vec<String> = ws[k + 1..].iter().map(|s| s.to_string()).collect();
        if let Some(Target::Desc(mut frame)) = target(&inner)
            && frame.kind.is_none_or(|f| f.kind == protocol::Kind::Frame)
            && !frame.all
        {
            let outer: Vec<String> = ws[..k].iter().map(|s| s.to_string()).collect();
            let mut d = match target(&outer) {
                Some(Target::Desc(d)) => d,
                None => Desc {
                    all: true,
                    ..Desc::default()
                },
                Some(_) => return None,
            };
            frame.kind = kind_word("frame");
            if ws[..k].iter().any(|w| matches!(*w, "everything" | "all")) || d.kind.is_none() {
                d.all = true;
            }
            d.within = Some(Box::new(frame));
            return Some(Target::Desc(d));
        }
    }
    let relative = |i: usize| {
        ws.get(i + 1).is_some_and(|n| {
            matches!(
                *n,
                "says" | "say" | "reads" | "read" | "is" | "has" | "contains" | "mentions" | "said"
            )
        })
    };
    if ws.iter().enumerate().any(|(i, w)| {
        matches!(
            *w,
            "this" | "these" | "selected" | "selection" | "highlighted"
        ) || *w == "that" && !relative(i)
    }) {
        return Some(Target::Selection);
    }
    if ws.iter().any(|w| *w == "it" || *w == "its") {
        return Some(Target::It);
    }
    if ws
        .iter()
        .any(|w| matches!(*w, "them" | "those" | "they" | "both"))
    {
        return Some(Target::Them);
    }
    let mut d = Desc::default();
    let mut names: Vec<&str> = Vec::new();
    let mut i = 0;
    let owned: Vec<String> = ws.iter().map(|s| s.to_string()).collect();
    while i < ws.len() {
        let w = ws[i];
        if let Some((c, n)) = color_at(&owned, i) {
            d.color = d.color.or(Some(c));
            i += n;
            continue;
        }
        if w == "sticky" && ws.get(i + 1).is_some_and(|n| n.starts_with("note")) {
            i += 1;
            continue;
        }
        if let Some(k) = kind_word(w) {
            if d.kind.is_none() || d.kind.is_some_and(|p| p.kind == k.kind && k.geo.is_some()) {
                d.all |= k.plural;
                d.kind = Some(k);
            }
        } else if let Some(e) = extreme(w) {
            d.extreme = Some(e);
        } else if let Some(s) = side(w) {
            d.side = Some(s);
        } else if matches!(w, "all" | "every" | "everything" | "each" | "any") {
            d.all = true;
        } else if matches!(
            w,
            "says"
                | "saying"
                | "labeled"
                | "labelled"
                | "called"
                | "titled"
                | "named"
                | "reading"
                | "containing"
                | "text"
                | "reads"
                | "mentions"
                | "mentioning"
        ) && i + 1 < ws.len()
        {
            d.text = Some(ws[i + 1..].join(" "));
            break;
        } else if matches!(w, "my" | "mine") {
            d.author = Some(Author::Me);
        } else if let Some(name) = w.strip_suffix("'s").filter(|n| {
            !matches!(
                *n,
                "it" | "that" | "let" | "what" | "there" | "he" | "she" | "who" | "here"
            )
        }) {
            d.author = Some(Author::Named(name.to_string()));
        } else if matches!(w, "that" | "which") {
        } else if !is_noise(w) && w != "most" {
            names.push(w);
        }
        i += 1;
    }
    if d.text.is_none() && !names.is_empty() {
        d.text = Some(names.join(" "));
    }
    // "clear the board", "wipe the canvas": everything.
    if d.is_empty()
        && ws
            .iter()
            .any(|w| matches!(*w, "board" | "canvas" | "page" | "whiteboard"))
    {
        d.all = true;
    }
    if d.is_empty() {
        return None;
    }
    Some(Target::Desc(d))
}
