//! The offline planner's parser: an everyday command to a [`Command`], without the board.

use super::create::{parse_create, parse_draw_connector, size};
use super::vocab::{Extreme, KindWord, Side, color_at, dims, extreme, is_unit, kind_word, side};
use crate::lex::{number, quoted, words};
use crate::schema::{ArrangeLayout, LayoutDirective};

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
    /// A description: kind, color, size and position words, text.
    Desc(Desc),
}

/// A description of objects on the board.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Desc {
    pub kind: Option<KindWord>,
    pub color: Option<&'static str>,
    pub extreme: Option<Extreme>,
    pub side: Option<Side>,
    pub text: Option<String>,
    /// "all", "every", a plural kind: every match rather than one.
    pub all: bool,
}

/// How to move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MoveSpec {
    To(f64, f64),
    By(f64, f64),
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
    Duplicate(Target),
    Connect(Target, Option<Target>),
    Arrange(Target, ArrangeLayout),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
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
}

fn verb(w: &str) -> Option<Verb> {
    Some(match w {
        "create" | "add" | "draw" | "insert" | "new" | "generate" | "build" | "give" | "place" => {
            Verb::Create
        }
        "make" | "put" => Verb::Make,
        "move" | "drag" | "shift" | "nudge" | "push" | "slide" => Verb::Move,
        "resize" | "scale" | "grow" | "shrink" | "enlarge" | "expand" | "double" | "halve" => {
            Verb::Resize
        }
        "color" | "colour" | "recolor" | "recolour" | "paint" | "turn" | "fill" => Verb::Recolor,
        "rename" | "retitle" | "relabel" | "label" | "write" | "title" => Verb::Retext,
        "change" | "set" | "update" | "edit" => Verb::Change,
        "delete" | "remove" | "erase" | "clear" | "trash" | "destroy" => Verb::Delete,
        "duplicate" | "copy" | "clone" | "replicate" => Verb::Duplicate,
        "connect" | "link" | "join" | "wire" => Verb::Connect,
        "arrange" | "organize" | "organise" | "align" | "layout" | "lay" | "line" | "stack"
        | "sort" | "distribute" | "tidy" => Verb::Arrange,
        _ => return None,
    })
}

const FILLER: [&str; 17] = [
    "please", "can", "could", "would", "you", "hey", "now", "then", "and", "also", "just", "i",
    "want", "to", "need", "let's", "lets",
];

/// Parses a command; `None` when it is not an everyday command this parser knows.
pub fn parse(text: &str) -> Option<Command> {
    let ws = words(text);
    let start = ws.iter().position(|w| !FILLER.contains(&w.as_str()))?;
    let v = verb(&ws[start])?;
    let rest = &ws[start + 1..];
    match v {
        Verb::Create => parse_create(rest, text).or_else(|| parse_draw_connector(rest)),
        Verb::Make => parse_make(rest, text),
        Verb::Move => parse_move(rest),
        Verb::Resize => parse_resize(rest, &ws[start]),
        Verb::Recolor => parse_recolor(rest),
        Verb::Retext => parse_retext(rest, text, &ws[start]),
        Verb::Change => parse_change(rest, text),
        Verb::Delete => Some(Command::Delete(target(strip_front(
            rest,
            &["get", "rid", "of"],
        ))?)),
        Verb::Duplicate => Some(Command::Duplicate(target(rest)?)),
        Verb::Connect => parse_connect(rest),
        Verb::Arrange => parse_arrange(rest),
    }
}

fn strip_front<'a>(ws: &'a [String], skip: &[&str]) -> &'a [String] {
    let n = ws.iter().take_while(|w| skip.contains(&w.as_str())).count();
    &ws[n..]
}

/// Parses a target phrase.
pub fn target(ws: &[String]) -> Option<Target> {
    let ws: Vec<&str> = ws.iter().map(String::as_str).collect();
    if ws
        .iter()
        .any(|w| matches!(*w, "this" | "these" | "selected" | "selection" | "that"))
    {
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
    let mut i = 0;
    let owned: Vec<String> = ws.iter().map(|s| s.to_string()).collect();
    while i < ws.len() {
        let w = ws[i];
        if let Some((c, n)) = color_at(&owned, i) {
            d.color = d.color.or(Some(c));
            i += n;
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
        } else if matches!(w, "all" | "every" | "everything" | "each") {
            d.all = true;
        } else if (w == "says"
            || w == "saying"
            || w == "labeled"
            || w == "labelled"
            || w == "called"
            || w == "titled"
            || w == "named")
            && i + 1 < ws.len()
        {
            d.text = Some(ws[i + 1..].join(" "));
            break;
        }
        i += 1;
    }
    if d.kind.is_none() && d.color.is_none() && d.text.is_none() && !d.all {
        return None;
    }
    Some(Target::Desc(d))
}

pub(super) fn has(ws: &[String], w: &str) -> bool {
    ws.iter().any(|x| x == w)
}

fn size_words(ws: &[String]) -> bool {
    ws.iter().any(|w| {
        extreme(w).is_some()
            || dims(w).is_some()
            || matches!(
                w.as_str(),
                "twice" | "double" | "half" | "times" | "size" | "wider" | "taller" | "%"
            )
            || w.ends_with('%')
    })
}

fn parse_make(rest: &[String], raw: &str) -> Option<Command> {
    let first = rest.first()?;
    let creates = number(first).is_some() && first != "it"
        || dims(first).is_some()
        || matches!(first.as_str(), "new" | "some" | "another");
    if creates {
        return parse_create(rest, raw);
    }
    // "make it blue", "make the circle twice as big", "make the note say hi".
    if let Some(i) = rest
        .iter()
        .position(|w| matches!(w.as_str(), "say" | "read" | "says"))
    {
        let t = quoted(raw).unwrap_or_else(|| rest[i + 1..].join(" "));
        return Some(Command::Retext(target(&rest[..i])?, t));
    }
    if size_words(&rest[1..]) || size_words(rest) && !rest.iter().any(|w| kind_word(w).is_some()) {
        let split = rest
            .iter()
            .position(|w| {
                matches!(
                    w.as_str(),
                    "twice" | "double" | "half" | "bigger" | "smaller" | "larger" | "to" | "be"
                ) || number(w).is_some() && w != "a"
            })
            .unwrap_or(rest.len());
        if let (Some(t), Some(spec)) = (target(&rest[..split]), size_spec(&rest[split..])) {
            return Some(Command::Resize(t, spec));
        }
    }
    parse_recolor(rest)
}

fn directions(ws: &[String]) -> Option<(f64, f64)> {
    let mut dist = 100.0;
    for (i, w) in ws.iter().enumerate() {
        if let Some(n) = w
            .strip_suffix("px")
            .and_then(|n| n.parse::<f64>().ok())
            .or_else(|| {
                let n = number(w)?;
                let unit = ws.get(i + 1).is_some_and(|u| is_unit(u));
                let by = i > 0 && ws[i - 1] == "by";
                (unit || by).then_some(n)
            })
        {
            dist = n;
        }
    }
    let (mut dx, mut dy) = (0.0, 0.0);
    for w in ws {
        match side(w) {
            Some(Side::Left) => dx = -dist,
            Some(Side::Right) => dx = dist,
            Some(Side::Top) => dy = -dist,
            Some(Side::Bottom) => dy = dist,
            None => {}
        }
    }
    (dx != 0.0 || dy != 0.0).then_some((dx, dy))
}

fn parse_move(rest: &[String]) -> Option<Command> {
    // The target ends where the movement starts.
    let stop = rest
        .iter()
        .position(|w| {
            matches!(w.as_str(), "to" | "by" | "at" | "towards" | "toward")
                || number(w).is_some() && w != "a"
                || side(w).is_some()
                    && !matches!(
                        w.as_str(),
                        "top" | "bottom" | "upper" | "lower" | "above" | "below"
                    )
        })
        .unwrap_or(rest.len());
    let t = target(&rest[..stop])?;
    let tail = &rest[stop..];
    let nums: Vec<f64> = tail.iter().filter_map(|w| w.parse::<f64>().ok()).collect();
    let has_dir = tail.iter().any(|w| side(w).is_some());
    if !has_dir && nums.len() >= 2 {
        return Some(Command::Move(t, MoveSpec::To(nums[0], nums[1])));
    }
    let (dx, dy) = directions(tail)?;
    Some(Command::Move(t, MoveSpec::By(dx, dy)))
}

/// "twice as big", "half the size", "3 times bigger", "by 50%", "to 300x200", "bigger".
fn size_spec(ws: &[String]) -> Option<SizeSpec> {
    if let Some(((w, h), _, _)) = size(ws) {
        return Some(SizeSpec::To(Some(w), Some(h)));
    }
    let bigger = ws.iter().any(|w| {
        matches!(
            w.as_str(),
            "bigger" | "larger" | "big" | "large" | "grow" | "up" | "enlarge"
        )
    });
    let smaller = ws
        .iter()
        .any(|w| matches!(w.as_str(), "smaller" | "small" | "shrink" | "down" | "tiny"));
    if ws.iter().any(|w| w == "twice" || w == "double") {
        return Some(SizeSpec::Scale(2.0));
    }
    if ws.iter().any(|w| w == "half" || w == "halve") {
        return Some(SizeSpec::Scale(0.5));
    }
    if let Some(p) = ws
        .iter()
        .find_map(|w| w.strip_suffix('%').and_then(|n| n.parse::<f64>().ok()))
    {
        let f = p / 100.0;
        return Some(SizeSpec::Scale(if smaller {
            (1.0 - f).max(0.05)
        } else if bigger {
            1.0 + f
        } else {
            f
        }));
    }
    if let Some(i) = ws.iter().position(|w| w == "times" || w == "x") {
        let n = i.checked_sub(1).and_then(|j| number(&ws[j]))?;
        return Some(SizeSpec::Scale(if smaller { 1.0 / n.max(0.01) } else { n }));
    }
    for (key, is_w) in [
        ("wide", true),
        ("width", true),
        ("tall", false),
        ("height", false),
    ] {
        if let Some(i) = ws.iter().position(|w| w == key) {
            let n = ws[i.saturating_sub(1)..(i + 3).min(ws.len())]
                .iter()
                .find_map(|w| w.parse::<f64>().ok())?;
            return Some(if is_w {
                SizeSpec::To(Some(n), None)
            } else {
                SizeSpec::To(None, Some(n))
            });
        }
    }
    if bigger {
        return Some(SizeSpec::Scale(1.5));
    }
    if smaller {
        return Some(SizeSpec::Scale(1.0 / 1.5));
    }
    None
}

fn parse_resize(rest: &[String], verb_word: &str) -> Option<Command> {
    let stop = rest
        .iter()
        .position(|w| {
            matches!(w.as_str(), "to" | "by" | "twice" | "half" | "so" | "into")
                || number(w).is_some() && w != "a"
        })
        .unwrap_or(rest.len());
    let t = target(&rest[..stop])?;
    let spec = match verb_word {
        "double" => Some(SizeSpec::Scale(2.0)),
        "halve" => Some(SizeSpec::Scale(0.5)),
        "grow" | "enlarge" | "expand" => size_spec(&rest[stop..]).or(Some(SizeSpec::Scale(1.5))),
        "shrink" => size_spec(&rest[stop..])
            .map(|s| match s {
                SizeSpec::Scale(f) if f > 1.0 => SizeSpec::Scale(1.0 / f),
                s => s,
            })
            .or(Some(SizeSpec::Scale(1.0 / 1.5))),
        _ => size_spec(&rest[stop..]),
    }?;
    Some(Command::Resize(t, spec))
}

/// The new color is the last color mentioned; the target is what comes before it.
fn parse_recolor(rest: &[String]) -> Option<Command> {
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
    let head: Vec<String> = rest[..at]
        .iter()
        .filter(|w| !matches!(w.as_str(), "to" | "into" | "in" | "color" | "colour" | "of"))
        .cloned()
        .collect();
    Some(Command::Recolor(target(&head)?, color))
}

fn parse_retext(rest: &[String], raw: &str, verb_word: &str) -> Option<Command> {
    let to = rest
        .iter()
        .position(|w| w == "to" || w == "as" || w == "with");
    let (head, text) = match (quoted(raw), to) {
        (Some(q), Some(i)) => (&rest[..i], q),
        (Some(q), None) => (rest, q),
        (None, Some(i)) => {
            let lower = raw.to_lowercase();
            let marker = format!(" {} ", rest[i]);
            let t = lower.rfind(&marker).map(|k| {
                raw[k + marker.len()..]
                    .trim()
                    .trim_end_matches(['.', '!'])
                    .to_string()
            })?;
            (&rest[..i], t)
        }
        (None, None) => return None,
    };
    if text.is_empty() {
        return None;
    }
    let _ = verb_word;
    Some(Command::Retext(target(head)?, text))
}

fn parse_change(rest: &[String], raw: &str) -> Option<Command> {
    let about_text = rest
        .iter()
        .any(|w| matches!(w.as_str(), "text" | "title" | "label" | "name" | "wording"));
    let about_size = rest.iter().any(|w| w == "size")
        || size_words(rest)
            && !rest
                .iter()
                .any(|w| color_at(std::slice::from_ref(w), 0).is_some());
    if about_text {
        let head: Vec<String> = rest
            .iter()
            .filter(|w| {
                !matches!(
                    w.as_str(),
                    "text" | "title" | "label" | "name" | "wording" | "of" | "the"
                )
            })
            .cloned()
            .collect();
        return parse_retext(&head, raw, "change");
    }
    if about_size {
        let head: Vec<String> = rest
            .iter()
            .filter(|w| *w != "size" && *w != "of")
            .cloned()
            .collect();
        return parse_resize(&head, "resize");
    }
    parse_recolor(rest)
}

pub(super) fn parse_connect(rest: &[String]) -> Option<Command> {
    for sep in ["to", "and", "with"] {
        if let Some(i) = rest.iter().position(|w| w == sep)
            && i > 0
            && i + 1 < rest.len()
            && let (Some(a), Some(b)) = (target(&rest[..i]), target(&rest[i + 1..]))
        {
            // "connect them with arrows": the second phrase names the connector, not an end.
            if let Target::Desc(d) = &b
                && d.kind.is_some_and(|k| k.kind == protocol::Kind::Connector)
            {
                return Some(Command::Connect(a, None));
            }
            return Some(Command::Connect(a, Some(b)));
        }
    }
    Some(Command::Connect(target(rest)?, None))
}

fn parse_arrange(rest: &[String]) -> Option<Command> {
    let layout = if has(rest, "grid") {
        ArrangeLayout::Grid
    } else if rest
        .iter()
        .any(|w| matches!(w.as_str(), "row" | "horizontally" | "horizontal" | "up"))
    {
        ArrangeLayout::Row
    } else if rest.iter().any(|w| {
        matches!(
            w.as_str(),
            "column" | "vertically" | "vertical" | "stack" | "stacked"
        )
    }) {
        ArrangeLayout::Column
    } else if rest.iter().any(|w| matches!(w.as_str(), "circle" | "ring")) {
        ArrangeLayout::Circle
    } else if has(rest, "tree") {
        ArrangeLayout::Tree
    } else if has(rest, "flowchart") {
        ArrangeLayout::FlowchartTopDown
    } else {
        ArrangeLayout::Grid
    };
    let stop = rest
        .iter()
        .position(|w| {
            matches!(
                w.as_str(),
                "in" | "into" | "as" | "on" | "up" | "horizontally" | "vertically"
            )
        })
        .unwrap_or(rest.len());
    let t = target(&rest[..stop]).or_else(|| target(rest))?;
    Some(Command::Arrange(t, layout))
}
