//! Content of a create command, taken from the raw text before the grammar sees it: quoted text
//! and colon forms set content exactly; otherwise what follows a text marker ("that says",
//! "called", "about", …). Clauses a person adds after the content ("to the Risks frame",
//! "at 100, 200", "in red") go back to the command.

use protocol::palette::canonical_name;

/// A create command split into the part the grammar parses and the content.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Split {
    /// The command without its content.
    pub command: String,
    /// The new object's text, exactly as written.
    pub text: Option<String>,
    /// The text came after "about"/"for": a topic, numbered when several objects are made.
    pub topic: bool,
    /// Every quoted text, when there are several (one object each when several are made).
    pub quoted: Vec<String>,
}

pub(crate) const MARKERS: &[&str] = &[
    " that says ",
    " which says ",
    " saying ",
    " with the text ",
    " with text ",
    " with the words ",
    " with the label ",
    " with label ",
    " labeled ",
    " labelled ",
    " called ",
    " named ",
    " titled ",
    " that reads ",
    " reading ",
    " says ",
    " containing ",
    " numbered ",
    " with the title ",
    " with title ",
];

/// Content without a closing full stop ("?" and "!" are the person's own: "Decision?").
fn trim_content(s: &str) -> &str {
    s.trim().trim_end_matches('.').trim()
}

/// The command without the "?" of a request put as a question ("could you add a note saying
/// hi?"), and without a closing sentence that only thanks ("… Margaret. Thank you").
fn closing(raw: &str) -> &str {
    let mut t = raw.trim_end();
    // ". Thank you", "! Cheers", ". Thanks!"
    if let Some(k) = t.trim_end_matches(['.', '!']).rfind(['.', '!', '?'])
        && t[k + 1..].split_whitespace().all(|w| {
            let w = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            THANKS.contains(&w.as_str())
        })
        && !t[k + 1..].trim().is_empty()
    {
        t = t[..=k].trim_end();
    }
    let first = t
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .find(|w| !super::lexicon::is_leading_filler(w) || QUESTION_REQUESTS.contains(&w.as_str()));
    // Only a request that starts as a question: "add a note saying Can we talk?" keeps its "?".
    let asks = first.is_some_and(|w| QUESTION_REQUESTS.contains(&w.as_str()));
    if asks && t.ends_with('?') {
        t = t[..t.len() - 1].trim_end();
    }
    t
}

/// Words that make a request a question ("could you …?").
const QUESTION_REQUESTS: &[&str] = &["can", "could", "would", "will", "may", "might", "possible"];

/// Words of a closing sentence that only thanks.
const THANKS: &[&str] = &[
    "thank",
    "thanks",
    "you",
    "so",
    "much",
    "very",
    "a",
    "lot",
    "cheers",
    "ty",
    "thx",
    "please",
    "pls",
    "x",
    "xx",
    "xo",
    "love",
    "bye",
    "best",
    "regards",
    "kind",
    "many",
    "in",
    "advance",
    "appreciated",
    "appreciate",
    "it",
    "ta",
];

/// Every quoted string of `text`, in order, and the text with them blanked out.
pub fn quotes(text: &str) -> (Vec<String>, String) {
    let mut out = Vec::new();
    let mut rest = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let close = match c {
            '"' => Some('"'),
            '“' => Some('”'),
            '‘' => Some('’'),
            '\'' if i == 0 || !chars[i - 1].is_alphanumeric() => Some('\''),
            _ => None,
        };
        if let Some(close) = close
            && let Some(len) = chars[i + 1..]
                .iter()
                .position(|&x| x == close || close == '"' && x == '”')
        {
            let q: String = chars[i + 1..i + 1 + len].iter().collect();
            let q = q.trim().to_string();
            if !q.is_empty() {
                out.push(q);
                rest.push_str(" QUOTED ");
                i += len + 2;
                continue;
            }
        }
        rest.push(c);
        i += 1;
    }
    (out, rest)
}

/// Splits a create command into its grammar part and its content.
pub fn split_create(raw: &str) -> Split {
    super::lexicon::per_command(&SPLITS, raw, 16, || split_uncached(raw))
}

thread_local! {
    /// The splits of the texts read for the command being planned ([`forget`]).
    static SPLITS: std::cell::RefCell<Vec<(String, Split)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Starts a new command: the splits of earlier ones are not kept.
pub fn forget() {
    SPLITS.with(|c| c.borrow_mut().clear());
}

fn split_uncached(raw: &str) -> Split {
    let raw = closing(raw);
    // "add notes Apples, Pears and Plums": the names listed after a plural kind word.
    let named = named_list(raw);
    let raw = named.as_deref().unwrap_or(raw);
    let fixed = marker_typo(raw);
    let raw = fixed.as_deref().unwrap_or(raw);
    let (qs, unquoted) = quotes(raw);
    if let Some(q) = qs.first() {
        return Split {
            command: unquoted.replace(" QUOTED ", " "),
            text: Some(q.clone()),
            topic: false,
            quoted: if qs.len() > 1 { qs } else { Vec::new() },
        };
    }
    // "sticky note: buy milk", "add a note to Risks: review budget", "note - call Bob"; not
    // when a text marker comes first ("a note saying Owner: Sam").
    let lower_raw = super::lex::lower_aligned(raw);
    let colon = raw
        .find(':')
        .map(|i| (i, 1))
        .or_else(|| raw.find(" - ").map(|i| (i, 3)))
        .or_else(|| raw.find(" – ").map(|i| (i, " – ".len())));
    if let Some((i, n)) = colon
        && !MARKERS
            .iter()
            .any(|m| super::lex::find_short(&lower_raw[..i], m).is_some())
    {
        let (tail, moved) = trailing_clauses(&raw[i + n..]);
        let (head, tail) = (&raw[..i], trim_content(tail));
        if !tail.is_empty() && head.split_whitespace().count() <= 10 && !head.contains("->") {
            return Split {
                command: format!("{head} {moved}"),
                text: Some(tail.to_string()),
                ..Split::default()
            };
        }
    }
    let lower = super::lex::lower_aligned(raw);
    // "a note with Hello written on it", "a circle with Go inside".
    if let Some(c) = written_on(raw, &lower) {
        return c;
    }
    let marker = MARKERS
        .iter()
        .filter_map(|m| super::lex::find_short(&lower, m).map(|i| (i, m.len())))
        .min()
        .or_else(|| {
            // Positions in the lowercased text are positions in the raw text only when
            // lowercasing kept every length.
            (lower.len() == raw.len())
                .then(|| text_kind_then_words(&lower))
                .flatten()
        });
    let (start, len, topic) = match marker {
        Some((i, n)) => (i, n, false),
        None => match lower.find(" about ").or_else(|| lower.find(" for ")) {
            Some(i) => (
                i,
                if lower[i..].starts_with(" about ") {
                    7
                } else {
                    5
                },
                true,
            ),
            None => {
                return Split {
                    command: raw.to_string(),
                    ..Split::default()
                };
            }
        },
    };
    let (content, moved) = trailing_clauses(&raw[start + len..]);
    let content = trim_content(content);
    if content.is_empty() {
        return Split {
            command: raw.to_string(),
            ..Split::default()
        };
    }
    Split {
        command: format!("{} {moved}", &raw[..start]),
        text: Some(content.to_string()),
        topic,
        quoted: Vec::new(),
    }
}

/// The text with the first misspelled text marker written right ("a note sayin hi" → "a note
/// saying hi"); `None` when no word before a marker is one edit from one.
fn marker_typo(raw: &str) -> Option<String> {
    const WORDS: [&str; 6] = [
        "saying", "called", "labeled", "labelled", "titled", "reading",
    ];
    let mut start = 0;
    for w in raw.split(' ') {
        let lw = w.to_ascii_lowercase();
        // A marker written right: what follows is content, never corrected.
        if MARKERS.iter().any(|m| m.trim() == lw) {
            return None;
        }
        if lw.len() >= 5
            && lw.bytes().all(|b| b.is_ascii_lowercase())
            && !super::lexicon::is_known(&lw)
            && let Some(m) = WORDS.iter().find(|m| strsim::osa_distance(&lw, m) == 1)
        {
            return Some(format!("{}{m}{}", &raw[..start], &raw[start + w.len()..]));
        }
        start += w.len() + 1;
    }
    None
}

/// "with X written on it", "with X on it", "with X inside": X is the content.
fn written_on(raw: &str, lower: &str) -> Option<Split> {
    let body = lower.trim_end().trim_end_matches(['.', '!', '?']);
    let tail = [
        " as the title",
        " as its title",
        " as title",
        " as the label",
        " as its label",
        " as the text",
        " as its text",
        " as the name",
        " as the heading",
        " as the caption",
        " written on it",
        " written in it",
        " written inside it",
        " written inside",
        " written on",
        " on it",
        " in it",
        " inside it",
        " inside",
    ]
    .iter()
    .find(|t| body.ends_with(*t))?;
    let i = lower.find(" with ")?;
    if MARKERS
        .iter()
        .any(|m| super::lex::find_short(&lower[..i], m).is_some())
    {
        return None;
    }
    let end = body.len() - tail.len();
    let mut start = i + 6;
    for p in [
        "the text ",
        "text ",
        "the words ",
        "the label ",
        "the title ",
        "the word ",
    ] {
        if lower[start..].starts_with(p) {
            start += p.len();
            break;
        }
    }
    let content = trim_content(raw.get(start..end)?);
    (lower.len() == raw.len() && !content.is_empty()).then(|| Split {
        command: raw[..i].to_string(),
        text: Some(content.to_string()),
        ..Split::default()
    })
}

/// "add the text Welcome", "create a heading Q3 plan": words right after a text kind word are
/// its content (not "text box", nor clauses such as "at 100, 200" or "in red").
fn text_kind_then_words(lower: &str) -> Option<(usize, usize)> {
    let (i, n) = [" text ", " heading ", " title "]
        .iter()
        .filter_map(|m| lower.find(m).map(|i| (i, m.len())))
        .min()?;
    let head = lower[..i].split_whitespace().count();
    let next = lower[i + n..].split_whitespace().next()?;
    let clause = matches!(
        next,
        "box"
            | "boxes"
            | "at"
            | "in"
            | "to"
            | "into"
            | "inside"
            | "on"
            | "with"
            | "of"
            | "that"
            | "which"
            | "element"
            | "object"
            | "field"
            | "here"
            | "there"
            | "please"
            | "pls"
    );
    // Only right after the verb and an article: "add (a|the) text …".
    (head <= 3 && !clause).then_some((i + n - 1, 1))
}

/// Where a clause at the end that says where or how starts: "in red", "at 100, 200", "under
/// the Roadmap text", "below it", "to it", "to the Risks frame".
fn where_clause(ws: &[(usize, &str)], lw: &dyn Fn(usize) -> String) -> Option<usize> {
    let n = ws.len();
    // "in red", "in light blue"
    if n >= 3 && lw(n - 2) == "in" && canonical_name(&lw(n - 1)).is_some() {
        return Some(n - 2);
    }
    // "at 100, 200", "at position 100 200"
    let num = |k: usize| {
        ws[k]
            .1
            .trim_matches(|c: char| "(),".contains(c))
            .parse::<f64>()
            .is_ok()
    };
    if n >= 4 && num(n - 1) && num(n - 2) {
        if lw(n - 3) == "at" {
            return Some(n - 3);
        }
        if n >= 5 && lw(n - 3) == "position" && lw(n - 4) == "at" {
            return Some(n - 4);
        }
    }
    // "under the Roadmap text", "next to the red circle", "below it": where, relative to
    // another object (named by a kind word or a pronoun, so "meet under the bridge" stays).
    let lows: Vec<String> = (0..n).map(lw).collect();
    if let Some(k) = (1..n).find(|&k| {
        super::relation::phrase_at(&lows, k).is_some_and(|(_, len)| {
            let tail = &lows[(k + len).min(n)..];
            !tail.is_empty()
                && tail.len() <= 6
                && (tail.len() == 1 && matches!(tail[0].as_str(), "it" | "this" | "that")
                    || super::vocab::kind_word(&tail[tail.len() - 1]).is_some())
        })
    }) {
        return Some(k);
    }
    // "… to it", "… into it": the frame just made (not "with X in it": content inside).
    if n >= 2 && to_it(&lw(n - 2), &lw(n - 1)) {
        return Some(n - 2);
    }
    // "to the Risks frame", "inside the Ideas section"
    if !matches!(
        lw(n - 1).as_str(),
        "frame" | "section" | "container" | "area" | "column" | "group"
    ) {
        return None;
    }
    (0..n - 1)
        .rev()
        .take(6)
        .find(|&k| {
            matches!(
                lw(k).as_str(),
                "to" | "in" | "into" | "inside" | "within" | "on" | "under"
            )
        })
        .filter(|&k| k > 0)
}

/// Where a tail that says nothing about the content starts: ", thanks", "please", "for me", or
/// "… on there", "… in it", "… if possible" (where it already goes, or a hedge).
fn dropped_tail(n: usize, lw: &dyn Fn(usize) -> String) -> Option<usize> {
    let last = lw(n - 1);
    if matches!(
        last.as_str(),
        "thanks" | "please" | "pls" | "thx" | "cheers"
    ) {
        return Some(n - 1);
    }
    if last == "you" && lw(n - 2) == "thank" || last == "me" && lw(n - 2) == "for" {
        return Some(n - 2);
    }
    (2..=4).rev().filter(|&k| k < n).find_map(|k| {
        let t: Vec<String> = (n - k..n).map(lw).collect();
        let t = t.join(" ");
        (super::lexicon::is_trailing_filler(&t) || CONTENT_TAILS.contains(&t.as_str()))
            .then_some(n - k)
    })
}

/// Splits clauses that describe where or how, not what the text says, off the end of content:
/// "… to the Risks frame", "… at 100, 200", "… in red".
pub fn trailing_clauses(s: &str) -> (&str, String) {
    let mut body = s.trim_end().trim_end_matches('.');
    let mut moved: Vec<String> = Vec::new();
    loop {
        let ws: Vec<(usize, &str)> = word_spans(body);
        let n = ws.len();
        if n < 2 {
            break;
        }
        let lw = |k: usize| {
            ws[k]
                .1
                .to_lowercase()
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_string()
        };
        if let Some(k) = dropped_tail(n, &lw) {
            body = body[..ws[k].0]
                .trim_end()
                .trim_end_matches([',', '!', '.'])
                .trim_end();
            continue;
        }
        // ", pink ones", ", green": a color after a comma.
        if n >= 2 {
            let ones = matches!(lw(n - 1).as_str(), "ones" | "one" | "color" | "colour");
            let c = if ones { n - 2 } else { n - 1 };
            if c >= 1 && canonical_name(&lw(c)).is_some() && ws[c - 1].1.ends_with(',') {
                moved.push(format!("in {}", lw(c)));
                body = body[..ws[c].0].trim_end().trim_end_matches(',').trim_end();
                continue;
            }
        }
        if let Some(k) = where_clause(&ws, &lw) {
            moved.push(body[ws[k].0..].to_string());
            body = body[..ws[k].0].trim_end();
            continue;
        }
        break;
    }
    (body, moved.join(" "))
}

/// Words after content that say it goes on or in the new object itself, or on the board.
/// "to it", "into it" at the end of content: where the object goes.
fn to_it(a: &str, b: &str) -> bool {
    matches!(a, "to" | "into") && b == "it"
}

/// Plural kind words a list of names may follow directly ("notes A, B and C").
const LIST_KINDS: &[&str] = &[
    "notes",
    "stickies",
    "shapes",
    "boxes",
    "circles",
    "squares",
    "rectangles",
    "cards",
    "stars",
    "diamonds",
];

/// "add notes Apples, Pears and Plums" as "add notes: Apples, Pears and Plums": a plural kind
/// word within the first four words, then a capitalized name, and a list (a comma or "and").
fn named_list(raw: &str) -> Option<String> {
    if raw.contains([':', '"', '“']) || !raw.contains(',') && !raw.contains(" and ") {
        return None;
    }
    let spans = word_spans(raw);
    let j = spans.iter().take(4).position(|(_, w)| {
        let w = w.to_lowercase();
        LIST_KINDS.contains(&w.trim_end_matches(','))
    })?;
    let (at, next) = *spans.get(j + 1)?;
    let capital = next.chars().next().is_some_and(char::is_uppercase);
    let rest = &raw[at..];
    let listed = rest.contains(',') || super::lex::find_short(rest, " and ").is_some();
    let marker = MARKERS
        .iter()
        .any(|m| super::lex::find_short(&super::lex::lower_aligned(raw), m).is_some());
    (capital && listed && !marker).then(|| {
        let end = spans[j].0 + spans[j].1.len();
        format!("{}: {}", &raw[..end], rest)
    })
}

const CONTENT_TAILS: &[&str] = &[
    "in it",
    "on it",
    "inside it",
    "written inside it",
    "written in it",
    "written on it",
    "on the board",
    "to the board",
    "on the canvas",
];

fn word_spans(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            if let Some(st) = start.take() {
                out.push((st, &s[st..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        out.push((st, &s[st..]));
    }
    out
}

/// Splits a list written by a person: "a, b and c", "a; b", "a / b", one per line.
pub fn list_items(s: &str) -> Vec<String> {
    let s = s.replace(['\n', ';', '|'], ",");
    let mut items: Vec<String> = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let part = part
            .strip_prefix("and ")
            .or_else(|| part.strip_prefix("& "))
            .unwrap_or(part);
        // "b and c" at the end of a comma list.
        let pieces: Vec<&str> = if s.contains(',') {
            part.split(" and ").collect()
        } else {
            part.split(" and ").flat_map(|p| p.split(" / ")).collect()
        };
        for p in pieces {
            let p = trim_content(p).trim_end_matches('!').trim_end();
            if !p.is_empty() {
                items.push(p.to_string());
            }
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_keeps_its_words_and_drops_clauses() {
        let s = split_create("add a note saying buy milk to the Risks frame");
        assert_eq!(s.text.as_deref(), Some("buy milk"));
        assert!(s.command.contains("to the Risks frame"));
        let s = split_create("sticky note: Call Bob at 5");
        assert_eq!(s.text.as_deref(), Some("Call Bob at 5"));
        let s = split_create("create a note that says \"To the frame\" please");
        assert_eq!(s.text.as_deref(), Some("To the frame"));
        let s = split_create("a note saying hello in red");
        assert_eq!(s.text.as_deref(), Some("hello"));
        assert!(s.command.contains("in red"));
    }

    #[test]
    fn lists_split_on_commas_and_and() {
        assert_eq!(list_items("a, b and c"), vec!["a", "b", "c"]);
        assert_eq!(
            list_items("To Do; In Progress; Done"),
            vec!["To Do", "In Progress", "Done"]
        );
        assert_eq!(list_items("pros and cons"), vec!["pros", "cons"]);
    }
}
