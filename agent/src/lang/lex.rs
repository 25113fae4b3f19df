//! Word-level text helpers shared by the router and the planner: normalization, number words,
//! fuzzy word equality, quoted strings.

/// Lowercases, turns punctuation (except `->`, `.`, `-` inside numbers, quotes) into spaces and
/// splits into words.
/// Chat shorthand spelled out before anything reads the command: "w/" → "with", "w/o" →
/// "without".
pub fn expand(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("w/") && !text.contains("W/") {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    // Quoted text is content: "check w/ caterer" stays as written.
    let mut quoted = false;
    for (i, part) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(match part {
            "w/" | "W/" if !quoted => "with",
            "w/o" | "W/o" if !quoted => "without",
            p => p,
        });
        quoted ^= part.matches(['"', '“', '”']).count() % 2 == 1;
    }
    out.into()
}

/// Lowercase with every byte position kept: a character whose lowercase has another length
/// ("İ") stays as it is, so positions found in the result slice the original text.
pub fn lower_aligned(s: impl AsRef<str>) -> String {
    s.as_ref()
        .chars()
        .map(|c| {
            let mut l = c.to_lowercase();
            match (l.next(), l.next()) {
                (Some(x), None) if x.len_utf8() == c.len_utf8() => x,
                _ => c,
            }
        })
        .collect()
}

/// The first place `needle` occurs in `hay`: a plain scan, cheaper than [`str::find`] on the
/// short texts of a command.
pub fn find_short(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let first = *n.first()?;
    if n.len() > h.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i] == first && &h[i..i + n.len()] == n)
}

pub fn words(text: &str) -> Vec<String> {
    split_words(&text.to_lowercase())
}

/// [`words`] without lowercasing (to tell names from lexicon words).
pub fn words_cased(text: &str) -> Vec<String> {
    split_words(text)
}

fn split_words(text: &str) -> Vec<String> {
    let t = text.replace('→', " -> ");
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = t.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '-' && next == Some('>') {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push("->".into());
            i += 2;
            continue;
        }
        let numeric_sep = (c == '.' || c == '-')
            && next.is_some_and(|n| n.is_ascii_digit())
            && (c == '-' && cur.is_empty()
                || c == '.' && cur.chars().all(|d| d.is_ascii_digit()) && !cur.is_empty());
        if c.is_alphanumeric()
            || c == '#'
            || c == '%'
            || numeric_sep
            || (c == '-' && !cur.is_empty() && next.is_some_and(|n| n.is_alphabetic()))
            || c == '\'' && !cur.is_empty() && next.is_some_and(|n| n.is_alphabetic())
        {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        i += 1;
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A number from digits or an English number word (one..twenty, a/an = 1, couple = 2, few = 3).
pub fn number(w: &str) -> Option<f64> {
    if let Ok(v) = w
        .trim_end_matches('%')
        .trim_end_matches("px")
        .parse::<f64>()
    {
        return v.is_finite().then_some(v);
    }
    if let Some(i) = super::numbers::UNITS.iter().position(|x| *x == w) {
        return Some(i as f64);
    }
    match w {
        "twenty" => Some(20.0),
        "a" | "an" | "single" => Some(1.0),
        "couple" | "pair" | "double" | "twice" => Some(2.0),
        "few" | "several" | "some" | "triple" | "thrice" => Some(3.0),
        "dozen" => Some(12.0),
        _ => None,
    }
}

/// Damerau-Levenshtein distance (optimal string alignment), for typo-tolerant matching.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// A lower bound of the edit distance from letter counts (one edit changes at most two), cheap
/// enough to rule out most pairs before [`edit_distance`].
fn letters_apart(a: &str, b: &str) -> usize {
    let mut h = [0i16; 27];
    let slot = |c: u8| {
        if c.is_ascii_lowercase() {
            (c - b'a') as usize
        } else {
            26
        }
    };
    for &c in a.as_bytes() {
        h[slot(c)] += 1;
    }
    for &c in b.as_bytes() {
        h[slot(c)] -= 1;
    }
    h.iter().map(|d| d.unsigned_abs() as usize).sum()
}

/// Fuzzy word equality: exact up to 5 letters, one typo from 6 letters, two from 9.
pub fn fuzzy_eq(word: &str, target: &str) -> bool {
    if word == target {
        return true;
    }
    let len = target.chars().count();
    let allowed = match len {
        0..=5 => 0,
        6..=8 => 1,
        _ => 2,
    };
    allowed > 0
        && word.chars().count().abs_diff(len) <= allowed
        && (letters_apart(word, target) <= 2 * allowed || !word.is_ascii() || !target.is_ascii())
        && edit_distance(word, target) <= allowed
}

/// True when `phrase` (space-separated words) occurs in `ws` as consecutive fuzzy-equal words.
pub fn has_phrase(ws: &[String], phrase: &str) -> bool {
    let p: Vec<&str> = phrase.split(' ').collect();
    if p.is_empty() || ws.len() < p.len() {
        return false;
    }
    ws.windows(p.len())
        .any(|win| win.iter().zip(&p).all(|(w, t)| fuzzy_eq(w, t)))
}

/// The first quoted string in `text` ("…", '…', “…”), if any.
pub fn quoted(text: &str) -> Option<String> {
    for (open, close) in [('"', '"'), ('“', '”'), ('\'', '\''), ('‘', '’')] {
        if let Some(s) = text.find(open) {
            let rest = &text[s + open.len_utf8()..];
            if let Some(e) = rest.find(close) {
                let q = rest[..e].trim();
                // An apostrophe inside a word is not a quote.
                let word_before = text[..s]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_alphanumeric());
                if !(q.is_empty() || open == '\'' && word_before) {
                    return Some(q.to_string());
                }
            }
        }
    }
    None
}

/// True when the text reads as a question rather than a command.
pub fn is_question(ws: &[String], raw: &str) -> bool {
    const Q: [&str; 13] = [
        "what", "which", "who", "why", "how", "when", "where", "is", "are", "do", "does", "should",
        "tell",
    ];
    raw.trim_end().ends_with('?')
        || ws.first().is_some_and(|w| Q.contains(&w.as_str()))
            && !ws
                .iter()
                .any(|w| w == "create" || w == "make" || w == "draw")
}
