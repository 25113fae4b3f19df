//! Questions about the board, answered without changing it: counts, the selection, what a frame
//! contains, the colors in use.

use super::asking;
use super::phrase::target;
pub use super::syntax::BoardQuestion;
use super::syntax::{Author, Desc, Target};
use super::targets::{Scope, describe, matching};
use crate::reply::{name_of, noun};
use protocol::palette::nearest_name;
use protocol::{BoardObject, Kind};
use std::collections::BTreeMap;

/// Recognizes a board question.
pub fn parse_question(ws: &[String], raw: &str) -> Option<BoardQuestion> {
    let mut s: Vec<&str> = ws.iter().map(String::as_str).collect();
    s.drain(..asking::prelude_end(&s));
    asking::trim_time(&mut s);
    let maker = asking::maker(&mut s);
    let q = question(&s, raw)?;
    Some(match (q, maker) {
        (BoardQuestion::Count(mut d), Some(who)) => {
            d.author = Some(who);
            BoardQuestion::Count(d)
        }
        (q, _) => q,
    })
}

/// The words of a count: "how many notes does Risks have" as the notes in Risks, without "in
/// total" or "in all".
fn counted_words<'a>(s: &[&'a str], counting: bool) -> Vec<&'a str> {
    // "how many notes does Risks have": the notes in Risks.
    let mut s = s.to_vec();
    if counting
        && let Some(d) = s.iter().position(|w| matches!(*w, "does" | "do"))
        && d > 2
        && let Some(h) = s
            .iter()
            .rposition(|w| matches!(*w, "have" | "has" | "hold" | "contain" | "include"))
        && h > d + 1
        && !s[d + 1..h]
            .iter()
            .all(|w| matches!(*w, "i" | "we" | "you" | "they" | "it"))
    {
        let mut v: Vec<&str> = s[..d].to_vec();
        v.push("in");
        v.extend_from_slice(&s[d + 1..h]);
        s = v;
    }
    s.iter()
        .enumerate()
        .filter(|(i, w)| {
            // "in total", "in all"
            !(**w == "in" && matches!(s.get(i + 1).copied(), Some("total" | "all")))
        })
        .map(|(_, w)| *w)
        .collect()
}

/// "what is in the Risks frame", "what does Risks contain", "list the notes in Ideas": a
/// frame's contents.
fn contents_question(s: &[&str], first: &str) -> Option<BoardQuestion> {
    let contain = s
        .iter()
        .position(|w| matches!(*w, "in" | "inside" | "within"));
    if let Some(i) = contain
        && i + 1 < s.len()
        && !matches!(s[i + 1..], ["it"] | ["them"])
        && matches!(
            first,
            "what" | "what's" | "whats" | "list" | "show" | "which"
        )
    {
        let frame: Vec<String> = s[i + 1..].iter().map(|w| w.to_string()).collect();
        if let Some(t) = target(&frame) {
            return Some(BoardQuestion::Contents(t));
        }
    }
    if let Some(i) = s.iter().position(|w| {
        matches!(*w, "contain" | "contains" | "hold" | "holds")
            || matches!(*w, "have" | "has") && matches!(first, "what" | "what's" | "whats")
    }) && i > 1
    {
        let frame: Vec<String> = s[1..i]
            .iter()
            .filter(|w| !matches!(**w, "does" | "do" | "is"))
            .map(|w| w.to_string())
            .collect();
        if let Some(t) = target(&frame) {
            return Some(BoardQuestion::Contents(t));
        }
    }
    None
}

/// A count: what follows "how many" (or "count", "number of"), each of two kinds joined by
/// "and" on its own.
fn count_question(s: &[&str], many: Option<usize>, listed: bool, first: &str) -> BoardQuestion {
    let from = many.map_or(1, |i| if listed { 1 } else { i + 2 });
    let from = s
        .iter()
        .position(|w| *w == "of")
        .filter(|_| many.is_none() && first != "count")
        .map_or(from, |i| i + 1);
    let tail: Vec<String> = s[from.min(s.len())..]
        .iter()
        .filter(|w| {
            !matches!(
                **w,
                "are"
                    | "is"
                    | "there"
                    | "we"
                    | "i"
                    | "have"
                    | "do"
                    | "does"
                    | "exist"
                    | "this"
                    | "that"
                    | "got"
                    | "total"
                    | "in-total"
                    | "altogether"
                    | "currently"
                    | "right"
            )
        })
        .map(|w| w.to_string())
        .collect();
    // "notes and shapes": one count each.
    if let Some(a) = tail.iter().position(|w| w == "and")
        && let (Some(Target::Desc(x)), Some(Target::Desc(y))) =
            (target(&tail[..a]), target(&tail[a + 1..]))
        && x.kind.is_some()
        && y.kind.is_some()
    {
        let all = |mut d: Desc| {
            d.all = true;
            d
        };
        return BoardQuestion::Counts(vec![all(x), all(y)]);
    }
    let mut d = match target(&tail) {
        Some(Target::Desc(d)) => d,
        _ => Desc::default(),
    };
    d.all = true;
    BoardQuestion::Count(d)
}

fn question(s: &[&str], raw: &str) -> Option<BoardQuestion> {
    let has = |w: &str| s.contains(&w);
    let first = *s.first()?;
    let asks = raw.trim_end().ends_with('?')
        || first == "number" && s.get(1) == Some(&"of")
        || matches!(
            first,
            "how"
                | "what"
                | "what's"
                | "whats"
                | "which"
                | "count"
                | "list"
                | "show"
                | "tell"
                | "is"
                | "are"
                | "do"
                | "does"
        );
    if !asks {
        return None;
    }
    // "what color is the Checkout box?", "what colour is Login"
    if matches!(first, "what" | "what's" | "whats" | "which")
        && let Some(rest) = color_of(s)
        && let Some(t) = target(&rest)
    {
        return Some(BoardQuestion::ColorOf(t));
    }
    if matches!(first, "what" | "what's" | "whats")
        && let Some(rest) = text_of(s)
        && let Some(t) = target(&rest)
    {
        return Some(BoardQuestion::TextOf(t));
    }
    if has("colors") || has("colours") || (has("color") || has("colour")) && has("which") {
        return Some(BoardQuestion::Colors);
    }
    // "what's on the board?": a count of everything, by kind.
    if matches!(first, "what" | "what's" | "whats")
        && (has("board") || has("canvas"))
        && s.iter().all(|w| crate::lang::vocab::kind_word(w).is_none())
    {
        return Some(BoardQuestion::Count(Desc {
            all: true,
            ..Desc::default()
        }));
    }
    if (has("selected") || has("selection") || has("select")) && !has("how") {
        return Some(BoardQuestion::Selected);
    }
    // "which frames are there?", "list the notes": a count that names them.
    let listed = s
        .iter()
        .skip(1)
        .find(|w| !matches!(**w, "the" | "all" | "are" | "my" | "of"))
        .and_then(|w| crate::lang::vocab::kind_word(w))
        .filter(|k| k.plural)
        .is_some()
        && matches!(first, "which" | "what" | "list" | "show");
    // "how many (red) notes are (there|in the Risks frame)", "count the circles"; "are there
    // any circles?", "is there a red note?".
    let any = matches!(first, "are" | "is") && s.get(1) == Some(&"there");
    // "do I have any frames?", "do we have notes": a count of what follows "have".
    let have = matches!(first, "do" | "does")
        .then(|| s.iter().position(|w| matches!(*w, "have" | "got")))
        .flatten()
        .filter(|h| {
            s.get(h + 1)
                .is_some_and(|w| *w == "any" || crate::lang::vocab::kind_word(w).is_some())
        });
    // "how much notes are from alice": "much" for a count, when what it counts follows ("how
    // much bigger is it" is not one).
    let much = s
        .windows(3)
        .position(|w| w[..2] == ["how", "much"] && counted(w[2]));
    let many = s
        .windows(2)
        .position(|w| w == ["how", "many"])
        .or(much)
        .or_else(|| any.then_some(0))
        .or_else(|| have.map(|h| h.saturating_sub(1)))
        .or_else(|| listed.then_some(usize::MAX));
    let s = counted_words(s, many.is_some());
    let many = many.map(|m| if m == usize::MAX { 0 } else { m });
    if many.is_some() || first == "count" || s.windows(2).any(|w| w == ["number", "of"]) {
        return Some(count_question(&s, many, listed, first));
    }
    contents_question(&s, first)
}

/// A word that may follow "how much" in a count: a kind, a color, "stuff", "of".
fn counted(w: &str) -> bool {
    crate::lang::vocab::kind_word(w).is_some()
        || crate::lang::vocab::color_at(&[w.to_string()], 0).is_some()
        || matches!(
            w,
            "stuff" | "things" | "objects" | "items" | "elements" | "of" | "my" | "the"
        )
}

/// "what color is X", "what colour's X", "(tell me) what colour X is": the words naming X.
/// The object a text question names: "what does X say / read", "what is written on X", "what
/// text is on X", "what is the text of X".
fn text_of(s: &[&str]) -> Option<Vec<String>> {
    let own = |ws: &[&str]| -> Option<Vec<String>> {
        let ws = ws.strip_suffix(&["?"][..]).unwrap_or(ws);
        (!ws.is_empty()).then(|| ws.iter().map(|w| w.to_string()).collect())
    };
    if matches!(s.get(1), Some(&"does" | &"do"))
        && let Some((last, mid)) = s[2..].split_last()
        && matches!(*last, "say" | "read" | "show")
    {
        return own(mid);
    }
    let k = s
        .iter()
        .position(|w| matches!(*w, "written" | "text" | "label" | "wording"))?;
    if k > 3 || !matches!(s.get(k + 1), Some(&"on" | &"in" | &"inside" | &"of")) {
        // "what text is on X"
        return (s.get(k + 1) == Some(&"is")
            && matches!(s.get(k + 2), Some(&"on" | &"in" | &"inside")))
        .then(|| own(&s[k + 3..]))
        .flatten();
    }
    own(&s[k + 2..])
}

fn color_of(s: &[&str]) -> Option<Vec<String>> {
    let c = s
        .iter()
        .position(|w| matches!(*w, "color" | "colour" | "color's" | "colour's"))?;
    // "what is the colour of …"
    if c > 3 {
        return None;
    }
    let mut rest: &[&str] = &s[c + 1..];
    let linked = s[c].ends_with("'s");
    // "what's the colour of Checkout"
    if rest.first() == Some(&"of") {
        rest = &rest[1..];
        rest = rest.strip_suffix(&["is"][..]).unwrap_or(rest);
    } else if !linked
        && rest
            .first()
            .is_some_and(|w| matches!(*w, "is" | "are" | "does"))
    {
        rest = &rest[1..];
    } else if !linked {
        // "what colour Checkout is": the verb at the end.
        rest = rest
            .strip_suffix(&["is"][..])
            .or(rest.strip_suffix(&["are"][..]))?;
    }
    let rest: Vec<String> = rest
        .iter()
        .filter(|w| !matches!(**w, "have" | "has"))
        .map(|w| w.to_string())
        .collect();
    (!rest.is_empty()).then_some(rest)
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else if one.ends_with('x') {
        format!("{n} {one}es")
    } else {
        format!("{n} {one}s")
    }
}

fn kind_noun(o: &BoardObject) -> &'static str {
    noun(o.kind, o.geo.filter(|_| o.kind == Kind::Shape), false)
}

/// A short list of objects: "2 notes, 1 circle".
fn tally(objs: &[&BoardObject]) -> String {
    let mut by: BTreeMap<&str, usize> = BTreeMap::new();
    for o in objs {
        *by.entry(kind_noun(o)).or_default() += 1;
    }
    let parts: Vec<String> = by.into_iter().map(|(k, n)| plural(n, k)).collect();
    parts.join(", ")
}

fn named(objs: &[&BoardObject]) -> String {
    let texts: Vec<String> = objs
        .iter()
        .filter(|o| !name_of(o).trim().is_empty())
        .take(8)
        .map(|o| {
            format!(
                "\"{}\"",
                name_of(o).trim().chars().take(40).collect::<String>()
            )
        })
        .collect();
    if texts.is_empty() {
        String::new()
    } else {
        format!(": {}", texts.join(", "))
    }
}

/// "There are 3 notes in the Risks frame: …" (names up to ten; by kind for everything).
fn count_answer(d: &Desc, s: &Scope) -> String {
    let mut found = matching(d, s);
    if d.kind.is_none() {
        found.retain(|o| o.kind != Kind::Connector);
    }
    let what = if d.kind.is_none() && d.color.is_none() && d.text.is_none() {
        "object".to_string()
    } else {
        describe(d)
    };
    let by = match &d.author {
        Some(Author::Me) => " created by you".to_string(),
        Some(Author::Named(n)) => format!(" created by {n}"),
        None => String::new(),
    };
    let place = match &d.within {
        Some(f) => format!("{by} in the {}", describe(f)),
        None => format!("{by} on the board"),
    };
    let n = found.len();
    let verb = if n == 1 { "is" } else { "are" };
    if d.kind.is_none() && d.color.is_none() && d.text.is_none() && d.within.is_none() && n > 0 {
        return format!(
            "There {verb} {}{place}: {}.",
            plural(n, &what),
            tally(&found)
        );
    }
    let names = if n <= 10 {
        named(&found).trim_start_matches(':').to_string()
    } else {
        String::new()
    };
    let names = if names.is_empty() {
        names
    } else {
        format!(":{names}")
    };
    format!("There {verb} {}{place}{names}.", plural(n, &what))
}

/// "\"Login\" is light-blue, the circle is red."
fn color_answer(t: &Target, s: &Scope) -> Result<String, String> {
    let ids = super::targets::resolve_target(t, s).map_err(|m| m.message())?;
    let objs: Vec<&BoardObject> = ids.iter().filter_map(|i| s.board.get(i.as_str())).collect();
    let parts: Vec<String> = objs
        .iter()
        .take(10)
        .map(|o| {
            let name = name_of(o).trim();
            let what = if name.is_empty() {
                format!("the {}", kind_noun(o))
            } else {
                format!("\"{}\"", name.chars().take(40).collect::<String>())
            };
            if o.kind == Kind::Image {
                return format!("{what} is a picture with its own colors");
            }
            format!("{what} is {}", nearest_name(&o.color))
        })
        .collect();
    let mut m = parts.join(", ");
    if let Some(c) = m.get(..1) {
        m = c.to_uppercase() + &m[1..];
    }
    Ok(format!("{m}."))
}

/// The answer to a board question, or why it cannot be answered.
pub fn answer(q: &BoardQuestion, s: &Scope) -> Result<String, String> {
    Ok(match q {
        BoardQuestion::Count(d) => count_answer(d, s),
        BoardQuestion::Counts(ds) => {
            let parts: Vec<String> = ds
                .iter()
                .map(|d| plural(matching(d, s).len(), &describe(d)))
                .collect();
            format!("There are {} on the board.", parts.join(" and "))
        }
        BoardQuestion::ColorOf(t) => color_answer(t, s)?,
        BoardQuestion::TextOf(t) => {
            let ids = super::targets::resolve_target(t, s).map_err(|m| m.message())?;
            let parts: Vec<String> = ids
                .iter()
                .filter_map(|i| s.board.get(i.as_str()))
                .take(10)
                .map(|o| {
                    if o.kind == Kind::Image {
                        return match o.alt.trim() {
                            "" => "the image has no alt text".to_string(),
                            t => format!(
                                "the image shows \"{}\"",
                                t.chars().take(200).collect::<String>()
                            ),
                        };
                    }
                    let what = format!("the {} {}", nearest_name(&o.color), kind_noun(o));
                    match o.text.trim() {
                        "" => format!("{what} has no text"),
                        t => format!(
                            "{what} says \"{}\"",
                            t.chars().take(200).collect::<String>()
                        ),
                    }
                })
                .collect();
            let mut m = parts.join("; ");
            if let Some(c) = m.get(..1) {
                m = c.to_uppercase() + &m[1..];
            }
            format!("{m}.")
        }
        BoardQuestion::Selected => {
            let objs: Vec<&BoardObject> = s
                .selection
                .iter()
                .filter_map(|i| s.board.get(i.as_str()))
                .collect();
            if objs.is_empty() {
                "Nothing is selected.".to_string()
            } else {
                format!("Selected: {}{}.", tally(&objs), named(&objs))
            }
        }
        BoardQuestion::Contents(t) => {
            let ids = super::targets::resolve_target(t, s).map_err(|m| m.message())?;
            let frame = ids
                .iter()
                .filter_map(|i| s.board.get(i.as_str()))
                .find(|o| o.kind == Kind::Frame)
                .ok_or_else(|| "That is not a frame.".to_string())?;
            let kids: Vec<&BoardObject> = s
                .board
                .children_of(frame.id.as_str())
                .filter_map(|i| s.board.get(i.as_str()))
                .collect();
            if kids.is_empty() {
                format!("The frame \"{}\" is empty.", frame.text)
            } else {
                format!(
                    "The frame \"{}\" contains {}{}.",
                    frame.text,
                    tally(&kids),
                    named(&kids)
                )
            }
        }
        BoardQuestion::Colors => {
            let mut by: BTreeMap<&str, usize> = BTreeMap::new();
            for o in s.board.objects().filter(|o| o.kind != Kind::Connector) {
                *by.entry(nearest_name(&o.color)).or_default() += 1;
            }
            if by.is_empty() {
                "The board is empty.".to_string()
            } else {
                let mut v: Vec<(&str, usize)> = by.into_iter().collect();
                v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                let parts: Vec<String> = v.iter().map(|(c, n)| format!("{c} ({n})")).collect();
                format!("Colors in use: {}.", parts.join(", "))
            }
        }
    })
}
