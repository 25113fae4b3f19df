//! Edit commands on existing objects: make, recolor, retext, change, reshape, duplicate, group,
//! connect (moves, resizes and arranging are in `motion`).

use super::motion::{parse_resize, size_spec};
use super::phrase::target;
use super::syntax::Command;
use crate::lang::lex::number;
use crate::lang::vocab::{color_at, dims, extreme, kind_word};
use crate::schema::ArrowKind;

mod arrows;
pub(super) use super::connectors::{arrow_style, parse_connect};
pub(super) use arrows::parse_add_heads;

fn size_words(ws: &[String]) -> bool {
    (super::create::size(ws).is_some() || super::motion::one_side(ws).is_some_and(|s| s.is_some()))
        && ws.iter().all(|w| w != "copies" && w != "of")
        || ws.iter().any(|w| {
            extreme(w).is_some()
                || dims(w).is_some()
                || matches!(
                    w.as_str(),
                    "twice" | "double" | "half" | "times" | "size" | "wider" | "taller" | "%"
                )
                || w.ends_with('%')
        })
}

pub(super) fn parse_make(rest: &[String], raw: &str) -> Option<Command> {
    let first = rest.first()?;
    // "make 3 copies of the red circle"
    if rest
        .iter()
        .any(|w| matches!(w.as_str(), "copies" | "copy" | "duplicates" | "duplicate"))
    {
        let n = rest
            .iter()
            .find_map(|w| number(w).filter(|_| w != "a" && w != "an"));
        let of = rest.iter().position(|w| w == "of")?;
        let t = target(&rest[of + 1..])?;
        return Some(Command::Duplicate(
            t,
            n.map_or(1, |n| n.clamp(1.0, 1000.0) as usize),
        ));
    }
    // "make a line between these", "make an arrow from A to B" (not "make the arrow between A
    // and B a line": that one exists)
    if matches!(first.as_str(), "a" | "an" | "another" | "new" | "one")
        && rest
            .iter()
            .any(|w| matches!(w.as_str(), "between" | "from"))
        && rest
            .iter()
            .any(|w| kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Connector))
        && let Some(c) = super::create::parse_draw_connector(rest)
    {
        return Some(c);
    }
    let creates = number(first).is_some() && first != "it"
        || dims(first).is_some()
        || matches!(first.as_str(), "new" | "some" | "another");
    if creates {
        return super::create::parse_create(raw);
    }
    // "make it blue", "make the circle twice as big", "make the note say hi".
    if let Some(i) = rest
        .iter()
        .position(|w| matches!(w.as_str(), "say" | "read"))
    {
        let t = last_quote(raw).unwrap_or_else(|| text_after(raw, &rest[i]).unwrap_or_default());
        if t.is_empty() {
            return None;
        }
        return Some(Command::Retext(target(&rest[..i])?, t));
    }
    // "put these in a frame named Auth"
    if let Some(i) = rest
        .iter()
        .position(|w| w == "in" || w == "into" || w == "inside")
        && rest
            .get(i + 1)
            .is_some_and(|w| matches!(w.as_str(), "a" | "an" | "new" | "one"))
        && rest[i + 1..]
            .iter()
            .any(|w| kind_word(w).is_some_and(|k| k.kind == protocol::Kind::Frame))
        && i > 0
    {
        return parse_group(rest, raw);
    }
    // "make this a circle", "make the arrow a double arrow", "make it a note".
    if let Some(c) = parse_reshape(rest) {
        return Some(c);
    }
    if matches!(first.as_str(), "a" | "an") {
        return super::create::parse_create(raw);
    }
    if let Some(c) = make_resize(rest) {
        return Some(c);
    }
    parse_recolor(rest).or_else(|| {
        // "make a red circle" with a color or size first.
        (color_at(rest, 0).is_some() || extreme(first).is_some() || kind_word(first).is_some())
            .then(|| super::create::parse_create(raw))
            .flatten()
    })
}

/// "make the circle twice as big", "make it a bit smaller": a resize, when size words follow the
/// object.
fn make_resize(rest: &[String]) -> Option<Command> {
    if !(size_words(&rest[1..]) || size_words(rest) && !rest.iter().any(|w| kind_word(w).is_some()))
    {
        return None;
    }
    // "next to", "close to": part of the object's description.
    let beside = |i: usize| {
        i > 0
            && matches!(
                rest[i - 1].as_str(),
                "next" | "close" | "closest" | "nearest" | "adjacent" | "near"
            )
    };
    let mut split = rest
        .iter()
        .enumerate()
        .position(|(i, w)| {
            matches!(
                w.as_str(),
                "twice"
                    | "double"
                    | "half"
                    | "bigger"
                    | "smaller"
                    | "larger"
                    | "to"
                    | "be"
                    | "slightly"
                    | "bit"
                    | "little"
            ) && !(w == "to" && beside(i))
                || number(w).is_some() && w != "a"
                || dims(w).is_some()
        })
        .unwrap_or(rest.len());
    // "a bit bigger", "a little smaller"
    if split > 0 && rest[split - 1] == "a" && matches!(rest[split].as_str(), "bit" | "little") {
        split -= 1;
    }
    Some(Command::Resize(
        target(&rest[..split])?,
        size_spec(&rest[split..])?,
    ))
}

/// "X a circle", "X into a note", "X to a diamond": the target, then the kind it becomes (the
/// kind word ends the command).
pub(super) fn parse_reshape(rest: &[String]) -> Option<Command> {
    // "… a rectangle instead of a note", "… rather than a circle": what it was goes.
    if let Some(k) = rest
        .windows(2)
        .position(|w| w[0] == "instead" && w[1] == "of" || w[0] == "rather" && w[1] == "than")
        && k > 0
        && kind_word(rest.last()?).is_some()
    {
        return parse_reshape(&rest[..k]);
    }
    if let Some(c) = both_ways(rest) {
        return Some(c);
    }
    // "make the arrow double-headed", "make that connector plain".
    if let Some(last) = rest.last()
        && rest.len() >= 2
    {
        if matches!(last.as_str(), "round" | "circular" | "rounded") {
            return Some(Command::Reshape(
                target(&rest[..rest.len() - 1])?,
                kind_word("ellipse")?,
            ));
        }
        let style = match last.as_str() {
            "double-headed" | "two-headed" | "two-way" | "bidirectional" | "double-ended" => {
                Some(ArrowKind::Both)
            }
            "headless" | "plain" | "arrowless" => Some(ArrowKind::None),
            "one-way" | "directed" => Some(ArrowKind::End),
            _ => None,
        };
        if let Some(style) = style {
            return Some(Command::Restyle(target(&rest[..rest.len() - 1])?, style));
        }
    }
    let mut k = rest.iter().rposition(|w| kind_word(w).is_some())?;
    // "a diamond shape": the shape's kind is the word before.
    if matches!(rest[k].as_str(), "shape" | "shapes")
        && k > 0
        && kind_word(&rest[k - 1]).is_some_and(|p| p.geo.is_some())
    {
        k -= 1;
    }
    // "a round shape", "a rounded shape": an ellipse.
    let round = k > 0
        && matches!(rest[k].as_str(), "shape" | "shapes")
        && matches!(rest[k - 1].as_str(), "round" | "rounded" | "circular");
    if rest[k + 1..]
        .iter()
        .any(|w| !matches!(w.as_str(), "instead" | "shape" | "please" | "now"))
    {
        return None;
    }
    let kw = if round {
        k -= 1;
        kind_word("ellipse")?
    } else {
        kind_word(&rest[k])?
    };
    let mut cut = k;
    while cut > 0
        && matches!(
            rest[cut - 1].as_str(),
            "a" | "an"
                | "into"
                | "to"
                | "for"
                | "double"
                | "two-way"
                | "plain"
                | "bidirectional"
                | "as"
                | "be"
                | "double-headed"
                | "regular"
                | "normal"
                | "simple"
                | "sticky"
                | "simple-"
        )
    {
        cut -= 1;
    }
    let pronoun = |w: &str| matches!(w, "these" | "this" | "it" | "them" | "those" | "selection");
    if cut == k && !(k > 0 && pronoun(&rest[k - 1])) || cut == 0 {
        return None;
    }
    let t = target(&rest[..cut])?;
    if kw.kind == protocol::Kind::Connector {
        return Some(Command::Restyle(t, arrow_style(&rest[cut..])?));
    }
    Some(Command::Reshape(t, kw))
}

/// "make the arrow point both ways", "… go in both directions", "… have heads on both ends".
fn both_ways(rest: &[String]) -> Option<Command> {
    let [head @ .., both, ways] = rest else {
        return None;
    };
    let ends = matches!(
        ways.as_str(),
        "ways" | "directions" | "ends" | "sides" | "way" | "direction" | "end" | "side"
    );
    if both != "both" || !ends {
        return None;
    }
    let verbs = [
        "point", "pointing", "go", "going", "in", "at", "on", "have", "with", "to",
    ];
    let heads = [
        "head",
        "heads",
        "arrowheads",
        "arrowhead",
        "arrows",
        "arrow",
        "tips",
    ];
    let end = head.len()
        - head
            .iter()
            .rev()
            .take_while(|w| verbs.contains(&w.as_str()) || heads.contains(&w.as_str()))
            .count();
    // "the arrow point both ways": the last word stripped may be the object itself.
    let t = target(&head[..end]).or_else(|| target(&head[..(end + 1).min(head.len())]))?;
    Some(Command::Restyle(t, ArrowKind::Both))
}

fn strip_front_words(ws: &[String], phrases: &[&str]) -> Vec<String> {
    for p in phrases {
        let p: Vec<&str> = p.split(' ').collect();
        if ws.len() >= p.len() && ws.iter().zip(&p).all(|(a, b)| a == b) {
            return ws[p.len()..].to_vec();
        }
    }
    ws.to_vec()
}

/// The raw text after the first ` word ` (original case), trimmed.
pub(super) fn text_after(raw: &str, word: &str) -> Option<String> {
    let lower = crate::lang::lex::lower_aligned(raw);
    let marker = format!(" {word} ");
    let k = lower.find(&marker)?;
    // "… to Preferences please", "… to Plan, thanks": the politeness is not the text.
    let t = crate::lang::content::trailing_clauses(&raw[k + marker.len()..]).0;
    let t = t.trim().trim_end_matches(['.', '!']).trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The last quoted string of the text.
pub(super) fn last_quote(raw: &str) -> Option<String> {
    crate::lang::content::quotes(raw).0.pop()
}

/// "duplicate this 3 times", "copy the red circle twice".
pub(super) fn parse_duplicate(rest: &[String]) -> Option<Command> {
    let mut n = 1usize;
    let mut end = rest.len();
    // "2x", "x3": that many times.
    let short = |w: &str| {
        w.strip_suffix('x')
            .or_else(|| w.strip_prefix('x'))
            .and_then(|n| n.parse::<usize>().ok())
    };
    if let Some(i) = rest.iter().position(|w| short(w).is_some()) {
        n = short(&rest[i]).map_or(1, |v| v.clamp(1, 1000));
        end = i;
    } else if let Some(i) = rest.iter().position(|w| w == "times" || w == "x") {
        n = i
            .checked_sub(1)
            .and_then(|j| number(&rest[j]))
            .map_or(1, |v| v.clamp(1.0, 1000.0) as usize);
        end = i.saturating_sub(1);
    } else if let Some(i) = rest
        .iter()
        .position(|w| matches!(w.as_str(), "twice" | "thrice"))
    {
        n = if rest[i] == "twice" { 2 } else { 3 };
        end = i;
    }
    let head = &rest[..end];
    let head: Vec<String> = head
        .iter()
        .filter(|w| !matches!(w.as_str(), "over" | "again"))
        .cloned()
        .collect();
    Some(Command::Duplicate(target(&head)?, n))
}

/// "group these into a frame called Team", "wrap the notes in a frame named Ideas".
pub(super) fn parse_group(rest: &[String], raw: &str) -> Option<Command> {
    let stop = rest
        .iter()
        .position(|w| w == "into")
        .or_else(|| {
            rest.iter().position(|w| {
                matches!(
                    w.as_str(),
                    "in" | "as" | "under" | "inside" | "called" | "named" | "titled"
                )
            })
        })
        .unwrap_or(rest.len());
    let t = target(&rest[..stop])?;
    let name = last_quote(raw)
        .or_else(|| {
            ["called", "named", "titled", "labeled", "labelled"]
                .iter()
                .find_map(|m| text_after(raw, m))
        })
        .unwrap_or_else(|| "Group".to_string());
    Some(Command::Group(t, name))
}

/// The new color is the last color mentioned; the target is what comes before it.
pub(super) fn parse_recolor(rest: &[String]) -> Option<Command> {
    let mut last = None;
    let mut i = 0;
    while i < rest.len() {
        if let Some((c, n)) = color_at(rest, i) {
            last = Some((c, i));
            i += n;
        } else {
            i += 1;
        }
    }
    let (color, at) = last?;
    let mut head: Vec<String> = rest[..at].to_vec();
    while head.last().is_some_and(|w| {
        matches!(
            w.as_str(),
            "to" | "into" | "in" | "color" | "colour" | "of" | "be" | "is"
        )
    }) {
        // "Buy milk's color": the object's name, not an author.
        if matches!(head.pop().as_deref(), Some("color" | "colour"))
            && let Some(w) = head.last_mut()
            && let Some(n) = w.strip_suffix("'s")
        {
            *w = n.to_string();
        }
    }
    let head: Vec<String> = strip_front_words(
        &head,
        &["the color of", "the colour of", "color of", "colour of"],
    );
    Some(Command::Recolor(target(&head)?, color))
}

pub(super) fn parse_retext(rest: &[String], raw: &str) -> Option<Command> {
    let to = rest
        .iter()
        .position(|w| w == "to" || w == "as" || w == "with" || w == "into");
    let (head, text) = match (last_quote(raw), to) {
        (Some(q), Some(i)) => (&rest[..i], q),
        (Some(q), None) => (rest, q),
        (None, Some(i)) => (&rest[..i], text_after(raw, &rest[i])?),
        // "label the blue square Customers", "rename the Ideas frame Parking lot": the object
        // ends at its kind word.
        (None, None) => {
            let k = rest.iter().position(|w| kind_word(w).is_some())?;
            let indefinite = matches!(rest[0].as_str(), "a" | "an" | "new" | "another" | "some");
            let marker = |w: &str| {
                crate::lang::lexicon::TEXT_MARKERS.contains(&w) || matches!(w, "that" | "which")
            };
            if indefinite || k + 1 >= rest.len() || marker(&rest[k + 1]) {
                return None;
            }
            (&rest[..=k], text_after(raw, &rest[k])?)
        }
    };
    // "change the note to say Hi", "… to read Hi"
    let lower = crate::lang::lex::lower_aligned(&text);
    let text = ["say ", "read ", "says ", "reads "]
        .iter()
        .find(|p| lower.starts_with(**p) && text.len() > p.len())
        .map_or(text.clone(), |p| text[p.len()..].trim().to_string());
    if text.is_empty() {
        return None;
    }
    Some(Command::Retext(target(head)?, text))
}

pub(super) fn parse_change(rest: &[String], raw: &str) -> Option<Command> {
    // "turn the square into a circle", "change the arrow to a line", "convert this note to a shape".
    let shape_of = rest
        .iter()
        .any(|w| w == "shape" || w == "type" || w == "kind")
        && rest.iter().any(|w| w == "of");
    {
        let cleaned: Vec<String> = rest
            .iter()
            .filter(|w| !matches!(w.as_str(), "type" | "kind" | "of"))
            .cloned()
            .collect();
        let cleaned = if shape_of
            && cleaned.first().is_some_and(|w| w == "the")
            && cleaned.get(1).is_some_and(|w| w == "shape")
        {
            cleaned[2..].to_vec()
        } else {
            cleaned
        };
        if let Some(c) = parse_reshape(&cleaned) {
            return Some(c);
        }
    }
    // Words after "say" are the new text ("… to say 'Dark mode + big font'"), never a size.
    let said = rest
        .iter()
        .position(|w| matches!(w.as_str(), "say" | "says" | "read" | "reads" | "saying"))
        .map_or(rest, |k| &rest[..k]);
    let about_text = said
        .iter()
        .any(|w| matches!(w.as_str(), "text" | "title" | "label" | "name" | "wording"));
    let about_size = said.iter().any(|w| w == "size")
        || size_words(said)
            && !said
                .iter()
                .any(|w| color_at(std::slice::from_ref(w), 0).is_some());
    if about_text {
        // "Hello world's text": the object's name, not an author.
        let property = |w: &str| matches!(w, "text" | "title" | "label" | "name" | "wording");
        let head: Vec<String> = rest
            .iter()
            .enumerate()
            .filter(|(_, w)| !property(w) && !matches!(w.as_str(), "of" | "the"))
            .map(|(i, w)| match w.strip_suffix("'s") {
                Some(n) if rest.get(i + 1).is_some_and(|p| property(p)) => n.to_string(),
                _ => w.clone(),
            })
            .collect();
        return parse_retext(&head, raw);
    }
    if about_size {
        let head: Vec<String> = rest
            .iter()
            .filter(|w| *w != "size" && *w != "of")
            .cloned()
            .collect();
        return parse_resize(&head, "resize");
    }
    parse_recolor(rest).or_else(|| parse_retext(rest, raw))
}
