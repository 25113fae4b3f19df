//! The planner's lexicon: the words its grammar is built from (verbs, object nouns, colors,
//! shapes, sizes, positions, counts, connectives, references), the filler people add around a
//! command, number words, and typo tolerance.
//!
//! Typo tolerance applies to lexicon words only and never to text that becomes content: a word is
//! corrected when it is not itself a known word, is not capitalized (a name), comes before any
//! text marker ("saying", "called", …), and is within an edit distance of exactly one lexicon
//! word (a swap for 4-letter words, one edit for 5-7 letters, two from 8).

use std::sync::LazyLock;

/// Words a command is built from; typos of these are corrected.
const LEXICON: &[&str] = &[
    // verbs
    "create",
    "add",
    "draw",
    "insert",
    "generate",
    "build",
    "place",
    "make",
    "put",
    "move",
    "drag",
    "shift",
    "nudge",
    "slide",
    "resize",
    "scale",
    "grow",
    "shrink",
    "enlarge",
    "expand",
    "double",
    "halve",
    "color",
    "colour",
    "recolor",
    "paint",
    "turn",
    "fill",
    "rename",
    "relabel",
    "label",
    "write",
    "change",
    "update",
    "edit",
    "delete",
    "remove",
    "erase",
    "clear",
    "trash",
    "destroy",
    "duplicate",
    "copy",
    "clone",
    "replicate",
    "connect",
    "link",
    "join",
    "arrange",
    "organize",
    "organise",
    "align",
    "layout",
    "stack",
    "sort",
    "distribute",
    "group",
    "ungroup",
    "convert",
    "transform",
    "replace",
    "select",
    "count",
    "show",
    "list",
    "copies",
    // nouns
    "note",
    "notes",
    "sticky",
    "stickies",
    "rectangle",
    "rectangles",
    "square",
    "squares",
    "circle",
    "circles",
    "ellipse",
    "ellipses",
    "diamond",
    "diamonds",
    "triangle",
    "triangles",
    "hexagon",
    "hexagons",
    "star",
    "stars",
    "cloud",
    "clouds",
    "text",
    "frame",
    "frames",
    "section",
    "sections",
    "connector",
    "connectors",
    "arrow",
    "arrows",
    "line",
    "lines",
    "shape",
    "shapes",
    "box",
    "boxes",
    "heading",
    "title",
    "object",
    "objects",
    "everything",
    // colors
    "yellow",
    "orange",
    "red",
    "violet",
    "purple",
    "pink",
    "blue",
    "green",
    "gray",
    "grey",
    "black",
    "white",
    "lavender",
    "light",
    // others
    "between",
    "horizontally",
    "vertically",
    "grid",
    "column",
    "columns",
    "row",
    "rows",
    "times",
    "bigger",
    "smaller",
    "larger",
    "twice",
    "kanban",
    "retrospective",
    "timeline",
    "journey",
    "matrix",
    "eisenhower",
    "flowchart",
    "diagram",
    "board",
    "selected",
    "selection",
    "these",
    "those",
    "please",
    "another",
    "inside",
    "stickie",
    "postit",
    "post-it",
    "left",
    "right",
    "top",
    "bottom",
    "above",
    "below",
    "colors",
    "colours",
    "adding",
    "creating",
    "making",
    "drawing",
    "deleting",
    "removing",
    "moving",
    "everything",
    "connecting",
    "changing",
    "duplicating",
    "grouping",
];

/// Known words that are one edit from a lexicon word but mean something else.
const NOT_TYPOS: &[&str] = &[
    "take",
    "like",
    "mode",
    "node",
    "nodes",
    "vote",
    "votes",
    "noted",
    "lane",
    "fine",
    "mine",
    "live",
    "lime",
    "next",
    "test",
    "tent",
    "share",
    "phase",
    "flame",
    "array",
    "point",
    "points",
    "print",
    "colon",
    "greet",
    "queen",
    "block",
    "blocks",
    "slack",
    "while",
    "plane",
    "plate",
    "space",
    "peace",
    "built",
    "tile",
    "case",
    "cases",
    "stare",
    "start",
    "stats",
    "state",
    "states",
    "scare",
    "spare",
    "reader",
    "leader",
    "aside",
    "sides",
    "tiles",
    "names",
    "named",
    "rename",
    "later",
    "liner",
    "liners",
    "lined",
    "clean",
    "cleaner",
    "flow",
    "glow",
    "grown",
    "brown",
    "crown",
    "sort",
    "store",
    "score",
    "scores",
    "order",
    "other",
    "others",
    "bored",
    "board",
    "boards",
    "horse",
    "house",
    "mouse",
    "done",
    "none",
    "nose",
    "home",
    "hone",
    "tone",
    "note",
    "row",
    "rows",
    "text",
    "texts",
    "move",
    "moves",
    "love",
    "more",
    "model",
    "models",
    "chart",
    "charts",
    "shade",
    "shaped",
    "drew",
    "drawn",
    "raw",
    "saw",
    "law",
    "added",
    "adding",
    "made",
    "making",
    "moved",
    "doing",
    "copy",
    "list",
    "lists",
    "lost",
    "last",
    "least",
    "first",
    "item",
    "items",
    "team",
    "teams",
    "them",
    "then",
    "than",
    "there",
    "their",
    "here",
    "where",
    "were",
    "when",
    "what",
    "with",
    "this",
    "that",
    "these",
    "those",
    "thing",
    "things",
    "stop",
    "step",
    "steps",
    "user",
    "users",
    "goal",
    "goals",
    "risk",
    "risks",
    "idea",
    "ideas",
    "plan",
    "plans",
    "task",
    "tasks",
    "stage",
    "stages",
    "period",
    "periods",
    "create",
    "draws",
    "drags",
    "label",
    "labels",
    "linked",
    "joined",
    "group",
    "groups",
    "word",
    "words",
    "world",
    "hello",
    "cards",
    "card",
    "login",
    "logout",
    "sign",
    "signup",
    "about",
    "above",
    "below",
    "left",
    "right",
    "top",
    "bottom",
    "middle",
    "center",
    "centre",
    "corner",
    "small",
    "large",
    "huge",
    "tiny",
    "little",
    "big",
    "blank",
    "empty",
    "new",
    "old",
    "same",
    "each",
    "every",
    "all",
    "some",
    "few",
    "many",
    "much",
    "one",
    "ones",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "twenty",
    "dozen",
    "hundred",
    "pros",
    "cons",
    "mind",
    "map",
    "org",
    "chart",
    "axes",
    "axis",
    "vs",
    "versus",
    "quadrant",
    "quadrants",
    "urgent",
    "important",
    "called",
    "saying",
    "says",
    "titled",
    "reading",
    "reads",
    "sized",
    "size",
    "wide",
    "tall",
    "width",
    "height",
    "pixels",
    "pixel",
    "side",
    "way",
    "ways",
    "back",
    "front",
    "under",
    "over",
    "into",
    "onto",
    "from",
    "form",
    "forms",
    "lines",
    "liner",
];

/// Text markers: the words after them are content, never corrected.
pub const TEXT_MARKERS: &[&str] = &[
    "saying",
    "says",
    "say",
    "called",
    "named",
    "titled",
    "labeled",
    "labelled",
    "reading",
    "reads",
    "text",
    "containing",
    "contains",
    "with",
];

static KNOWN: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut v: Vec<&'static str> = LEXICON.iter().chain(NOT_TYPOS.iter()).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
});

/// True when `w` is a word of the command lexicon (not a name).
pub fn is_lexicon(w: &str) -> bool {
    LEXICON.contains(&w)
}

/// True when `w` is a lexicon word or a known English word that is not a typo of one.
pub fn is_known(w: &str) -> bool {
    KNOWN.binary_search(&w).is_ok()
}

/// The lexicon word `w` is a typo of, if exactly one is close enough.
pub fn correct(w: &str) -> Option<&'static str> {
    let n = w.chars().count();
    if n < 4 || is_known(w) || !w.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let allowed = match n {
        4 => 1,
        5..=7 => 1,
        _ => 2,
    };
    let mut best: Option<(&'static str, usize)> = None;
    let mut tie = false;
    let b = w.as_bytes();
    for cand in LEXICON {
        let c = cand.as_bytes();
        // A typo keeps the first or the second letter (cheap filter before the edit distance).
        if cand.len().abs_diff(n) > allowed
            || c[0] != b[0] && c.get(1) != b.get(1)
            || letters_apart(b, c) > 2 * allowed
        {
            continue;
        }
        let d = strsim::osa_distance(w, cand);
        if d > allowed || n == 4 && !is_swap(w, cand) {
            continue;
        }
        match best {
            Some((_, bd)) if bd < d => {}
            Some((b, bd)) if bd == d => tie |= b != *cand,
            _ => {
                best = Some((cand, d));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie).map(|(c, _)| c)
}

/// How many letters differ between two words, ignoring order (an edit changes at most two; a
/// cheap bound before the edit distance).
fn letters_apart(a: &[u8], b: &[u8]) -> usize {
    let mut h = [0i16; 26];
    for &x in a {
        if x.is_ascii_lowercase() {
            h[(x - b'a') as usize] += 1;
        }
    }
    for &x in b {
        if x.is_ascii_lowercase() {
            h[(x - b'a') as usize] -= 1;
        }
    }
    h.iter().map(|d| d.unsigned_abs() as usize).sum()
}

/// Two adjacent letters swapped ("bleu" → "blue").
fn is_swap(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() != b.len() {
        return false;
    }
    let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    diff.len() == 2
        && diff[1] == diff[0] + 1
        && a[diff[0]] == b[diff[1]]
        && a[diff[1]] == b[diff[0]]
}

/// Words people put around a command ("could you please", "I'd like", "for me, thanks").
const LEADING_FILLER: &[&str] = &[
    "please", "pls", "plz", "kindly", "can", "could", "would", "will", "you", "hey", "hi", "hello",
    "ok", "okay", "so", "now", "then", "and", "also", "just", "i", "i'd", "id", "i'm", "im", "we",
    "we'd", "like", "want", "wanna", "to", "need", "let's", "lets", "let", "us", "me", "go",
    "ahead", "quickly", "quick", "maybe", "try", "help", "mind", "um", "uh", "alright", "right",
    "yes", "yeah", "sure", "hmm", "oh", "actually", "first", "next", "finally", "should", "must",
    "gonna", "going", "love", "there", "is", "be", "able", "oops", "u", "ya", "yo", "yall", "ur",
    "hiya",
];

const ANYWHERE_FILLER: &[&str] = &[
    "please", "pls", "plz", "kindly", "thanks", "thank", "thx", "ty", "cheers", "quickly", "asap",
];

/// Drops politeness anywhere ("please", "thanks") and "for me" at the end.
pub fn drop_filler(ws: &mut Vec<String>) {
    ws.retain(|w| !ANYWHERE_FILLER.contains(&w.as_str()));
    while let Some(last) = ws.last() {
        let l = last.as_str();
        let tail2 = ws.len() >= 2 && matches!(ws[ws.len() - 2].as_str(), "for" | "thank");
        if matches!(l, "me" | "us" | "you" | "now" | "here" | "too") && tail2 {
            ws.truncate(ws.len() - 2);
        } else if matches!(
            l,
            "ok" | "okay" | "now" | "real" | "quick" | "and" | "then" | "also"
        ) {
            ws.pop();
        } else {
            break;
        }
    }
}

/// True for a word that may precede a command's verb ("could you please …").
pub fn is_leading_filler(w: &str) -> bool {
    LEADING_FILLER.contains(&w)
}

const UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

fn unit(w: &str) -> Option<u64> {
    UNITS.iter().position(|x| *x == w).map(|i| i as u64)
}

fn tens(w: &str) -> Option<u64> {
    TENS.iter()
        .position(|x| *x == w)
        .map(|i| 20 + 10 * i as u64)
}

/// A number written in words, one token ("twelve", "twenty-five", "forty").
fn word_number(w: &str) -> Option<u64> {
    if let Some(n) = unit(w).or_else(|| tens(w)) {
        return Some(n);
    }
    let (a, b) = w.split_once('-')?;
    Some(tens(a)? + unit(b).filter(|u| (1..10).contains(u))?)
}

/// Rewrites number words as digits: "twenty five" → "25", "a hundred" → "100",
/// "two hundred and fifty" → "250", "a dozen" → "12".
pub fn merge_numbers(ws: &mut Vec<String>) {
    let mut out: Vec<String> = Vec::with_capacity(ws.len());
    let mut i = 0;
    while i < ws.len() {
        let w = ws[i].as_str();
        // "one" stays a word ("the red one"); the parser reads it as 1 where a count fits.
        let start = word_number(w).filter(|_| w != "one");
        // "a hundred", "a dozen"
        if matches!(w, "a" | "an")
            && let Some(next) = ws.get(i + 1)
            && matches!(next.as_str(), "hundred" | "dozen")
        {
            let mut n: u64 = if next == "hundred" { 100 } else { 12 };
            i += 2;
            if n == 100 {
                n += tail_number(ws, &mut i);
            }
            out.push(n.to_string());
            continue;
        }
        let Some(mut n) = start else {
            if w == "dozen" {
                out.push("12".into());
            } else {
                out.push(ws[i].clone());
            }
            i += 1;
            continue;
        };
        i += 1;
        if n >= 20
            && n % 10 == 0
            && let Some(u) = ws
                .get(i)
                .and_then(|x| unit(x))
                .filter(|u| (1..10).contains(u))
        {
            n += u;
            i += 1;
        }
        if ws.get(i).is_some_and(|x| x == "hundred") && n < 100 {
            n *= 100;
            i += 1;
            n += tail_number(ws, &mut i);
        } else if ws.get(i).is_some_and(|x| x == "dozen") {
            n *= 12;
            i += 1;
        }
        out.push(n.to_string());
    }
    *ws = out;
}

/// "… hundred [and] fifty": the part after "hundred".
fn tail_number(ws: &[String], i: &mut usize) -> u64 {
    let mut j = *i;
    if ws.get(j).is_some_and(|x| x == "and") {
        j += 1;
    }
    let Some(mut n) = ws.get(j).and_then(|x| word_number(x)) else {
        return 0;
    };
    j += 1;
    if n >= 20
        && let Some(u) = ws
            .get(j)
            .and_then(|x| unit(x))
            .filter(|u| (1..10).contains(u))
    {
        n += u;
        j += 1;
    }
    *i = j;
    n
}

/// Canonical words of a command: lowercased, number words as digits, typos of lexicon words
/// corrected (never after a text marker, never a capitalized name).
pub fn canonical(text: &str) -> Vec<String> {
    let lower = crate::lex::words(text);
    let cased = crate::lex::words_cased(text);
    let aligned = lower.len() == cased.len();
    let mut out = Vec::with_capacity(lower.len());
    let mut content = false;
    for (i, w) in lower.into_iter().enumerate() {
        let capitalized =
            aligned && i > 0 && cased[i].chars().next().is_some_and(char::is_uppercase);
        if content || capitalized {
            out.push(w);
        } else {
            let c = correct(&w).map(str::to_string).unwrap_or(w);
            content = TEXT_MARKERS.contains(&c.as_str()) && c != "with" && c != "text";
            out.push(c);
        }
    }
    merge_numbers(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn typos_are_corrected_only_on_lexicon_words() {
        assert_eq!(correct("creat"), Some("create"));
        assert_eq!(correct("stiky"), Some("sticky"));
        assert_eq!(correct("bleu"), Some("blue"));
        assert_eq!(correct("rectangel"), Some("rectangle"));
        assert_eq!(correct("take"), None);
        assert_eq!(correct("node"), None);
        assert_eq!(correct("dashboard"), None);
    }

    #[test]
    fn number_words_become_digits() {
        let mut w = s(&["twenty", "five", "notes"]);
        merge_numbers(&mut w);
        assert_eq!(w, s(&["25", "notes"]));
        let mut w = s(&["a", "hundred", "and", "twenty", "notes"]);
        merge_numbers(&mut w);
        assert_eq!(w, s(&["120", "notes"]));
        let mut w = s(&["a", "dozen", "notes"]);
        merge_numbers(&mut w);
        assert_eq!(w, s(&["12", "notes"]));
        let mut w = s(&["sixty-two"]);
        merge_numbers(&mut w);
        assert_eq!(w, s(&["62"]));
    }
}
