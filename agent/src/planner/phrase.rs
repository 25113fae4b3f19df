//! Target phrases: "the red circle", "the notes in the Done frame", "Alice's notes", "the arrow
//! between Login and Dashboard", "these", "it" — to a [`Target`], without the board.

use super::parse::{Author, Desc, Target};
use super::vocab::{color_at, extreme, kind_word, side};

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
            | "single"
            | "clean"
            | "completely"
            | "entirely"
            | "off"
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
    // "the red circle and the blue square", "Login and the red circle": each on its own.
    if let Some(k) = ws.iter().position(|w| *w == "and" || *w == "&")
        && k > 0
        && ws.get(k + 1).is_some_and(|w| {
            matches!(
                *w,
                "the" | "my" | "all" | "every" | "this" | "that" | "these" | "those"
            )
        })
    {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        if let (Some(Target::Desc(mut a)), Some(Target::Desc(b))) =
            (target(&v(&ws[..k])), target(&v(&ws[k + 1..])))
        {
            a.also.push(b);
            return Some(Target::Desc(a));
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
        // "the two orange notes": a count in a description names nothing.
        if w.parse::<f64>().is_ok()
            && ws[i + 1..]
                .iter()
                .take(2)
                .any(|n| kind_word(n).is_some_and(|k| k.plural))
        {
            i += 1;
            continue;
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
            i += 2;
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
        } else if let Some(name) = w.strip_suffix("'s").filter(|_| {
            // "Buy milk's color": the object's property, not an author.
            ws.get(i + 1).is_some_and(|n| {
                matches!(
                    *n,
                    "color" | "colour" | "text" | "size" | "label" | "title" | "name" | "shape"
                )
            })
        }) {
            names.push(name);
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
