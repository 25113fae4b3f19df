//! Target phrases: "the red circle", "the notes in the Done frame", "Alice's notes", "the arrow
//! between Login and Dashboard", "these", "it" — to a [`Target`], without the board.

use super::syntax::{Author, Desc, Target};
use crate::lang::vocab::{color_at, extreme, kind_word, side};
use crate::lang::words::TARGET_NOISE;
use std::collections::HashSet;
use std::sync::LazyLock;

mod place;
mod reference;
use place::{board_place, ordinal};
pub(super) use reference::{find_relation, split_relation};

/// Words a target phrase may contain that name nothing.
fn is_noise(w: &str) -> bool {
    static SET: LazyLock<HashSet<&'static str>> =
        LazyLock::new(|| TARGET_NOISE.iter().copied().collect());
    SET.contains(w)
}

/// "added", "made": who created the objects ("the notes I added", "the ones alice made"); a
/// corrected "created" reads "create".
fn author_verb(w: &str) -> bool {
    matches!(
        w,
        "added" | "made" | "created" | "create" | "wrote" | "drew" | "put" | "placed"
    )
}

/// Parses a target phrase.
pub fn target(ws: &[String]) -> Option<Target> {
    if let Some(place) = board_place(ws) {
        return target(&place);
    }
    if let Some(t) = except(ws)
        .or_else(|| with_on_it(ws))
        .or_else(|| near_other(ws))
    {
        return Some(t);
    }
    let ws: Vec<&str> = ws.iter().map(String::as_str).collect();
    if let Some(t) = arrow_named(&ws)
        .or_else(|| connector_between(&ws))
        .or_else(|| joined(&ws))
    {
        return Some(t);
    }
    if let Some(t) = within_frame(&ws) {
        return t;
    }
    pronoun_of(&ws).or_else(|| description(&ws))
}

/// "all the notes except Hello world", "every shape but the red circle".
fn except(ws: &[String]) -> Option<Target> {
    if let Some(k) = ws.iter().enumerate().position(|(k, w)| {
        k > 0
            && (matches!(w.as_str(), "except" | "excluding" | "but")
                || matches!(w.as_str(), "other" | "apart" | "aside")
                    && ws.get(k + 1).is_some_and(|n| n == "than" || n == "from"))
    }) {
        let skip = if matches!(ws[k].as_str(), "other" | "apart" | "aside") {
            2
        } else {
            1
        };
        let rest = crate::lang::strip_front(&ws[k + skip..], &["for", "not"]);
        if let (Some(Target::Desc(mut d)), Some(Target::Desc(ex))) =
            (target(&ws[..k]), target(rest))
        {
            d.all = true;
            d.except.push(ex);
            return Some(Target::Desc(d));
        }
    }
    None
}

/// "the note with Buy milk (written) on it": the words on it name the note.
fn with_on_it(ws: &[String]) -> Option<Target> {
    if let [head @ .., on, it] = ws
        && matches!(on.as_str(), "on" | "in" | "inside")
        && it == "it"
        && head.iter().any(|w| w == "with")
    {
        let head: Vec<String> = head
            .iter()
            .filter(|w| !matches!(w.as_str(), "written" | "printed"))
            .cloned()
            .collect();
        return target(&head);
    }
    None
}

/// "the note right of Hello world", "the item below Buy milk": the nearest on that side.
fn near_other(ws: &[String]) -> Option<Target> {
    if let Some((i, end, rel, reference)) = find_relation(ws)
        && i > 0
        && end == ws.len()
        && rel != crate::lang::relation::Relation::Between
        && let Some(Target::Desc(mut d)) = target(&ws[..i]).or_else(|| {
            // "the one below Login", "the item right of it": anything there.
            ws[..i]
                .iter()
                .all(|w| is_noise(w))
                .then(|| Target::Desc(Desc::default()))
        })
    {
        d.near = Some((rel, Box::new(reference)));
        return Some(Target::Desc(d));
    }
    None
}

/// "the Login -> Dashboard arrow", "the connector login->dashboard": a connector by its ends.
fn arrow_named(ws: &[&str]) -> Option<Target> {
    let is_conn = |w: &str| kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Connector);
    if let Some(c) = ws.iter().position(|w| is_conn(w))
        && let Some(p) = ws.iter().position(|w| matches!(*w, "->" | "→" | "=>"))
    {
        let (a, b) = if c > p {
            (0..p, p + 1..c)
        } else {
            (c + 1..p, p + 1..ws.len())
        };
        let part = |r: std::ops::Range<usize>| -> Option<Box<Desc>> {
            let v: Vec<String> = ws[r].iter().map(|s| s.to_string()).collect();
            match target(&v)? {
                Target::Desc(d) => Some(Box::new(d)),
                _ => None,
            }
        };
        if let (Some(a), Some(b)) = (part(a), part(b)) {
            return Some(Target::Desc(Desc {
                kind: kind_word(ws[c]),
                ends: Some((a, b)),
                ..Desc::default()
            }));
        }
    }
    None
}

/// "the arrow between Login and Dashboard", "the line from A to B", "the arrow that connects A
/// and B".
fn connector_between(ws: &[&str]) -> Option<Target> {
    let is_conn = |w: &str| kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Connector);
    if let Some(c) = ws.iter().position(|w| is_conn(w))
        && let Some(k) = ws[c + 1..]
            .iter()
            .position(|w| {
                matches!(
                    *w,
                    "between"
                        | "from"
                        | "connecting"
                        | "joining"
                        | "linking"
                        | "connects"
                        | "joins"
                        | "links"
                        | "connect"
                        | "join"
                        | "link"
                )
            })
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
            // "the arrow that connects A and B", "the line that goes from A to B".
            let mut end = k;
            while end > 0 && matches!(ws[end - 1], "that" | "which" | "goes" | "runs") {
                end -= 1;
            }
            let head: Vec<String> = ws[..end].iter().map(|s| s.to_string()).collect();
            if let Some(Target::Desc(mut d)) = target(&head) {
                d.ends = Some((a, b));
                return Some(Target::Desc(d));
            }
        }
    }
    None
}

/// "the red circle and the blue square", "Login and the red circle": each on its own; "this and
/// the red circle": the pronoun's objects too.
fn joined(ws: &[&str]) -> Option<Target> {
    if let Some(k) = ws.iter().position(|w| *w == "and" || *w == "&")
        && k > 0
        && ws.get(k + 1).is_some_and(|w| {
            matches!(
                *w,
                "the"
                    | "my"
                    | "all"
                    | "every"
                    | "this"
                    | "that"
                    | "these"
                    | "those"
                    | "it"
                    | "them"
            )
        })
    {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        match (target(&v(&ws[..k])), target(&v(&ws[k + 1..]))) {
            (Some(Target::Desc(mut a)), Some(Target::Desc(b))) => {
                a.also.push(b);
                return Some(Target::Desc(a));
            }
            // "this and the red circle", "the blue square and it".
            (Some(Target::Desc(mut d)), Some(p)) | (Some(p), Some(Target::Desc(mut d))) => {
                d.with = Some(Box::new(p));
                return Some(Target::Desc(d));
            }
            _ => {}
        }
    }
    None
}

/// "the notes in the Done frame", "everything inside Risks": objects within a frame (`Some(None)`
/// when what is inside names nothing).
fn within_frame(ws: &[&str]) -> Option<Option<Target>> {
    if let Some(k) = ws
        .iter()
        .position(|w| matches!(*w, "in" | "inside" | "within" | "from"))
        && k + 1 < ws.len()
    {
        let inner: Vec<String> = ws[k + 1..].iter().map(|s| s.to_string()).collect();
        // "the Login box from a rectangle (to a circle)": what it was, not where.
        let indefinite = matches!(ws[k + 1], "a" | "an");
        if !indefinite
            && let Some(Target::Desc(mut frame)) = target(&inner)
            // "the notes in the Ideas box": only frames hold objects.
            && frame.kind.is_none_or(|f| {
                f.kind == protocol::Kind::Frame
                    || f.geo == Some(protocol::Geo::Rectangle)
                        && !f.equal_sides
                        && frame.text.is_some()
            })
            && !frame.all
        {
            let outer: Vec<String> = ws[..k].iter().map(|s| s.to_string()).collect();
            let mut d = match target(&outer) {
                Some(Target::Desc(d)) => d,
                None => Desc {
                    all: true,
                    ..Desc::default()
                },
                Some(_) => return Some(None),
            };
            frame.kind = kind_word("frame");
            if ws[..k].iter().any(|w| matches!(*w, "everything" | "all")) || d.kind.is_none() {
                d.all = true;
            }
            d.within = Some(Box::new(frame));
            return Some(Some(Target::Desc(d)));
        }
    }
    None
}

/// "this", "these", "the selection": the selection; "it", "its": memory; "them", "those",
/// "both": the last ones.
fn pronoun_of(ws: &[&str]) -> Option<Target> {
    let relative = |i: usize| {
        ws.get(i + 1).is_some_and(|n| {
            matches!(
                *n,
                "says"
                    | "say"
                    | "reads"
                    | "read"
                    | "is"
                    | "has"
                    | "contains"
                    | "mentions"
                    | "said"
                    | "i"
                    | "we"
                    | "you"
            ) || ws.get(i + 2).is_some_and(|n| author_verb(n))
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
    // "both notes in Risks" names them; "both", "them both" alone are the last ones.
    let named = ws.iter().any(|w| kind_word(w).is_some());
    if ws
        .iter()
        .any(|w| matches!(*w, "them" | "those" | "they") || *w == "both" && !named)
    {
        return Some(Target::Them);
    }
    None
}

/// One word's attribute of a description: kind, extreme, side, "half", "empty", order, "round",
/// "word", "all". False when the word is none of them.
fn attribute(d: &mut Desc, ws: &[&str], i: usize) -> bool {
    let w = ws[i];
    if let Some(k) = kind_word(w) {
        if d.kind.is_none() || d.kind.is_some_and(|p| p.kind == k.kind && k.geo.is_some()) {
            d.all |= k.plural;
            d.kind = Some(k);
        }
    } else if let Some(e) = extreme(w) {
        d.extreme = Some(e);
    } else if let Some(s) = side(w)
        .or_else(|| w.strip_suffix("-hand").and_then(side))
        .or(match w {
            "highest" | "uppermost" => Some(crate::lang::vocab::Side::Top),
            "lowest" | "lowermost" => Some(crate::lang::vocab::Side::Bottom),
            _ => None,
        })
    {
        // "top left": a second side across the first.
        let vertical = |s: crate::lang::vocab::Side| {
            matches!(
                s,
                crate::lang::vocab::Side::Top | crate::lang::vocab::Side::Bottom
            )
        };
        match d.side {
            Some(p) if vertical(p) != vertical(s) => d.cross = Some(s),
            _ => d.side = Some(s),
        }
    } else if w == "half" {
        d.half = true;
    } else if matches!(
        w,
        "empty" | "blank" | "unlabeled" | "unlabelled" | "untitled"
    ) {
        // "the empty notes", "the blank ones".
        d.blank = true;
        if ws.get(i + 1).is_some_and(|n| *n == "ones") {
            d.all = true;
        }
    } else if let Some(n) = ordinal(w) {
        d.ordinal = Some(n);
    } else if matches!(w, "round" | "circular" | "rounded")
        && d.kind
            .is_none_or(|k| k.kind == protocol::Kind::Shape && k.geo.is_none())
    {
        d.kind = kind_word("ellipse");
    } else if matches!(w, "word" | "words") && d.kind.is_none() && i + 1 < ws.len() {
        // "the word Roadmap": a text.
        d.kind = kind_word("text");
    } else if matches!(
        w,
        "all" | "every" | "everything" | "each" | "any" | "anything" | "guys"
    ) {
        d.all = true;
    } else {
        return false;
    }
    true
}

/// Words of a description that take more than their own place: a color ("light blue"),
/// "sticky note", a count before a plural kind, an author ("the notes alice made", "by me").
/// How many words they take.
fn phrase_word(d: &mut Desc, ws: &[&str], owned: &[String], i: usize) -> Option<usize> {
    let w = ws[i];
    if let Some((c, n)) = color_at(owned, i) {
        d.color = d.color.or(Some(c));
        return Some(n);
    }
    if w == "sticky" && ws.get(i + 1).is_some_and(|n| n.starts_with("note")) {
        return Some(1);
    }
    // "the two orange notes", "the first 2 notes": how many.
    if let Ok(n) = w.parse::<usize>()
        && ws[i + 1..]
            .iter()
            .take(3)
            .any(|n| kind_word(n).is_some_and(|k| k.plural))
    {
        d.count = Some(n);
        return Some(1);
    }
    // "the notes I added", "the ones alice made": who created them.
    if ws.get(i + 1).is_some_and(|n| author_verb(n))
        && !is_noise(w)
        && kind_word(w).is_none()
        && !matches!(w, "that" | "which" | "just" | "recently" | "you")
    {
        d.author = Some(if matches!(w, "i" | "me" | "we") {
            Author::Me
        } else {
            Author::Named(w.to_string())
        });
        return Some(2);
    }
    // "the notes by alice"
    if w == "by"
        && let Some(n) = ws
            .get(i + 1)
            .filter(|n| **n == "me" || !is_noise(n) && kind_word(n).is_none())
    {
        d.author = Some(if matches!(*n, "me" | "myself") {
            Author::Me
        } else {
            Author::Named(n.to_string())
        });
        return Some(2);
    }
    None
}

/// "the Photos frame", "the logo note": a picture word before another kind word is part of the
/// name, and the last noun says what the object is. True when word `i` was that noun.
fn picture_as_name<'a>(d: &mut Desc, ws: &[&'a str], i: usize, names: &mut Vec<&'a str>) -> bool {
    let picture = |w: &str| kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Image);
    let Some(k) = kind_word(ws[i]).filter(|k| k.kind != protocol::Kind::Image) else {
        return false;
    };
    let Some(j) = ws[..i].iter().rposition(|w| picture(w)) else {
        return false;
    };
    if d.kind.is_none_or(|p| p.kind != protocol::Kind::Image) {
        return false;
    }
    names.push(ws[j]);
    d.kind = Some(k);
    d.all = k.plural
        || ws[..i]
            .iter()
            .any(|w| matches!(*w, "all" | "every" | "each" | "everything"));
    true
}

/// A description word by word: color, count, author, kind, place, order, text.
fn description(ws: &[&str]) -> Option<Target> {
    let mut d = Desc::default();
    let mut names: Vec<&str> = Vec::new();
    let mut i = 0;
    let owned: Vec<String> = ws.iter().map(|s| s.to_string()).collect();
    while i < ws.len() {
        let w = ws[i];
        if let Some(n) = phrase_word(&mut d, ws, &owned, i) {
            i += n;
            continue;
        }
        if picture_as_name(&mut d, ws, i, &mut names) || attribute(&mut d, ws, i) {
            i += 1;
            continue;
        }
        if matches!(
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
        } else if let Some(name) = w.strip_suffix("'s").filter(|_| {
            // "Buy milk's color": the object's property, not an author.
            ws.get(i + 1).is_some_and(|n| {
                matches!(
                    *n,
                    "color" | "colour" | "text" | "size" | "label" | "title" | "name" | "shape"
                )
            })
        }) {
            // "the red circle's shape": a kind, not a name.
            match kind_word(name) {
                Some(k) if d.kind.is_none() => d.kind = Some(k),
                _ => names.push(name),
            }
            i += 2;
            continue;
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
