//! The planner's lexicon: the words its grammar is built from (verbs, object nouns, colors,
//! shapes, sizes, positions, counts, connectives, references), the filler people add around a
//! command, number words, and typo tolerance.
//!
//! Typo tolerance applies to lexicon words only and never to text that becomes content: a word is
//! corrected when it is not itself a known word, is not capitalized (a name), comes before any
//! text marker ("saying", "called", …), and is within an edit distance of exactly one lexicon
//! word (a left-out letter for 3-letter words, a left-out, added or swapped letter for 4, one
//! edit for 5-7 letters, two from 8).

use super::numbers::merge_numbers;
use super::words::{ANYWHERE_FILLER, LEADING_FILLER, LEXICON, NOT_TYPOS, SHORTHAND};
use std::sync::LazyLock;

pub use super::words::TEXT_MARKERS;

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

/// The lexicon word `w` is a typo of, if exactly one is close enough: a letter left out of a
/// 4-letter word for 3 letters ("nte"), a letter left out, added or swapped for 4 letters
/// ("gren", "bleu"), one edit in 5-7 letters and two from 8. Among equally close words, a letter
/// left out, added or swapped beats a changed letter ("notte" is "note", not "notes").
pub fn correct(w: &str) -> Option<&'static str> {
    per_command(&FIXED, w, 256, || correct_word(w))
}

fn correct_word(w: &str) -> Option<&'static str> {
    let n = w.chars().count();
    if n < 3 || is_known(w) || !w.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let allowed = match n {
        3..=7 => 1,
        _ => 2,
    };
    // (word, distance, 1 when the closest edit changes a letter)
    let mut best: Option<(&'static str, usize, u8)> = None;
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
        let indel = cand.len() != n;
        let short_ok = match n {
            3 => cand.len() == 4,
            4 => indel || is_swap(w, cand),
            _ => true,
        };
        if !short_ok {
            continue;
        }
        let d = strsim::osa_distance(w, cand);
        // Two changed letters are another word ("settigns" is not "sections").
        if d > allowed || d == 2 && cand.len() == n && letters_apart(b, c) >= 4 {
            continue;
        }
        // A swap is likelier than a letter left out or added, which is likelier than a change.
        let rank = if is_swap(w, cand) {
            0
        } else if indel {
            1
        } else {
            2
        };
        match best {
            Some((_, bd, br)) if (bd, br) < (d, rank) => {}
            Some((b, bd, br)) if (bd, br) == (d, rank) => tie |= b != *cand,
            _ => {
                best = Some((cand, d, rank));
                tie = false;
            }
        }
    }
    // A typo of a common word that is just as close is that word ("coud" is "could", not
    // "cloud").
    let common = |bd: usize, br: u8| {
        COMMON.iter().copied().find(|c| {
            if c.len().abs_diff(n) > bd || letters_apart(b, c.as_bytes()) > 2 * bd {
                return false;
            }
            let d = strsim::osa_distance(w, c);
            let rank = if is_swap(w, c) {
                0
            } else if c.len() != n {
                1
            } else {
                2
            };
            (d, rank) <= (bd, br)
        })
    };
    match best {
        Some((_, bd, br)) if common(bd, br).is_some() => common(bd, br),
        None if n >= 4 && common(allowed, 1).is_some() => common(allowed, 1),
        _ => best
            .filter(|_| !tie)
            .map(|(c, _, _)| c)
            .or_else(|| skeleton_of(w)),
    }
}

/// Common words a typo may just as well be meant as.
const COMMON: &[&str] = &[
    "could", "would", "should", "you", "your", "there", "their", "possible", "about", "think",
    "thanks", "mind", "where", "which", "while", "also", "want", "need", "like", "wanna", "many",
    "what", "there", "are",
];

/// Consonants with doubled letters collapsed ("yellow" → "ylw").
fn skeleton(w: &str) -> String {
    let mut out = String::new();
    for c in w
        .chars()
        .filter(|c| !matches!(c, 'a' | 'e' | 'i' | 'o' | 'u'))
    {
        if !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}

/// A word written without its vowels ("grn", "prpl", "crcl"): the one lexicon word of
/// four or more letters with those consonants.
fn skeleton_of(w: &str) -> Option<&'static str> {
    if w.chars().any(|c| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')) {
        return None;
    }
    let sk = skeleton(w);
    let mut found = LEXICON
        .iter()
        .filter(|c| c.len() >= 4 && c.len() > w.len() && skeleton(c) == sk);
    let first = found.next()?;
    found
        .all(|c| skeleton(c) == skeleton(first) && c == first)
        .then_some(*first)
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

/// Drops politeness anywhere ("please", "thanks"), a polite frame before the verb ("would it
/// be possible to", "I was wondering if you could") and filler at the end ("for me", "if
/// possible", "on there", "right now").
pub fn drop_filler(ws: &mut Vec<String>) {
    ws.retain(|w| !ANYWHERE_FILLER.contains(&w.as_str()));
    drop_so_it(ws);
    drop_over(ws);
    drop_polite_frame(ws);
    loop {
        let n = ws.len();
        let tail = |k: usize| (n >= k).then(|| ws[n - k..].join(" "));
        if let Some(k) = (2..=5)
            .rev()
            .find(|&k| tail(k).is_some_and(|t| TRAILING_FILLER.contains(&t.as_str())))
            .filter(|&k| k < n)
        {
            ws.truncate(n - k);
            continue;
        }
        let Some(last) = ws.last() else { break };
        let l = last.as_str();
        let tail2 = n >= 2 && matches!(ws[n - 2].as_str(), "for" | "thank");
        if matches!(l, "me" | "us" | "you" | "now" | "here" | "too") && tail2 {
            ws.truncate(n - 2);
        } else if matches!(
            l,
            "ok" | "okay" | "now" | "real" | "quick" | "and" | "then" | "also" | "rn" | "atm"
        ) && n > 1
        {
            ws.pop();
        } else {
            break;
        }
    }
}

/// "move X over to the right", "drag it over next to Y", "bring it over here next to Y": "over"
/// (and "here"/"there" before a place) only says it moves.
fn drop_over(ws: &mut Vec<String>) {
    let mut i = 1;
    while i + 1 < ws.len() {
        let next = ws[i + 1].as_str();
        if ws[i] == "over"
            && matches!(
                next,
                "to" | "next"
                    | "beside"
                    | "by"
                    | "near"
                    | "onto"
                    | "into"
                    | "toward"
                    | "towards"
                    | "here"
                    | "there"
            )
        {
            let n = if matches!(next, "here" | "there") && i + 2 < ws.len() {
                2
            } else {
                1
            };
            ws.drain(i..i + n);
            continue;
        }
        i += 1;
    }
}

/// "move X so its under Y", "… so that it is next to Y": the purpose says where X goes.
fn drop_so_it(ws: &mut Vec<String>) {
    let Some(k) = ws.iter().position(|w| w == "so") else {
        return;
    };
    let mut e = k + 1;
    if ws.get(e).is_some_and(|w| w == "that") {
        e += 1;
    }
    match ws.get(e).map(String::as_str) {
        Some("its" | "it's") => e += 1,
        Some("it" | "they") => {
            e += 1;
            if ws
                .get(e)
                .is_some_and(|w| matches!(w.as_str(), "is" | "are" | "sits" | "sit" | "ends"))
            {
                e += 1;
            }
            if ws.get(e).is_some_and(|w| w == "up") {
                e += 1;
            }
        }
        Some("they're" | "theyre") => e += 1,
        _ => return,
    }
    if k > 0 && e < ws.len() {
        ws.drain(k..e);
    }
}

/// True for a filler phrase that may end a command ("if possible", "on there").
pub fn is_trailing_filler(phrase: &str) -> bool {
    TRAILING_FILLER.contains(&phrase)
}

/// Filler phrases at the end of a command: where it already is, when, and hedges.
const TRAILING_FILLER: &[&str] = &[
    "on there",
    "in there",
    "over there",
    "if possible",
    "if you can",
    "if you could",
    "if you do not mind",
    "if you don't mind",
    "when you can",
    "when you get a chance",
    "right now",
    "at the moment",
    "for now",
    "for me please",
    "real quick",
    "as well",
];

/// Words of a polite frame before the verb: "would it be possible to", "is it ok to", "I was
/// wondering if you could", "it would be great if you could", "do you think you could".
const POLITE: &[&str] = &[
    "it",
    "it'd",
    "be",
    "possible",
    "ok",
    "okay",
    "fine",
    "great",
    "nice",
    "good",
    "lovely",
    "awesome",
    "cool",
    "if",
    "wondering",
    "wonder",
    "was",
    "were",
    "think",
    "able",
    "do",
    "does",
    "for",
    "is",
    "are",
    "am",
    "would",
    "could",
    "you",
    "we",
    "i",
    "to",
    "please",
    "kindly",
    "perhaps",
    "maybe",
    "might",
    "may",
    "hoping",
    "hope",
    "helpful",
    "mind",
    "me",
    "us",
];

/// Drops the polite frame before the first verb when every word before it is politeness and
/// one of them is not also leading filler ("would it be possible to add …" → "add …").
fn drop_polite_frame(ws: &mut Vec<String>) {
    let Some(v) = ws
        .iter()
        .take(12)
        .position(|w| super::verbs::verb(w).is_some() && !POLITE.contains(&w.as_str()))
    else {
        return;
    };
    let frame = &ws[..v];
    if frame.len() >= 2
        && frame
            .iter()
            .all(|w| POLITE.contains(&w.as_str()) || is_leading_filler(w))
        && frame.iter().any(|w| !is_leading_filler(w))
        // A request, not a question ("do I have any frames?").
        && frame.iter().any(|w| {
            matches!(
                w.as_str(),
                "possible" | "if" | "wondering" | "wonder" | "able" | "mind" | "could" | "would"
                    | "can" | "will" | "please" | "kindly" | "ok" | "okay" | "great"
            )
        })
    {
        ws.drain(..v);
    }
}

/// True for a word that may precede a command's verb ("could you please …").
pub fn is_leading_filler(w: &str) -> bool {
    static SET: LazyLock<std::collections::HashSet<&'static str>> =
        LazyLock::new(|| LEADING_FILLER.iter().copied().collect());
    SET.contains(w)
}

/// Chat shorthand for a function word ("r u there", "how many notes r in Done").
fn shorthand(w: &str) -> Option<&'static str> {
    SHORTHAND
        .iter()
        .find(|(s, _)| *s == w)
        .map(|(_, full)| *full)
}

thread_local! {
    /// The canonical words of the texts read for the command being planned (the grammar reads
    /// the same text several times); emptied when a command starts ([`forget`]).
    static SEEN: std::cell::RefCell<Vec<(String, Vec<String>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// The corrections of the words read for the command being planned.
    static FIXED: std::cell::RefCell<Vec<(String, Option<&'static str>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Starts a new command: the words of earlier ones are not kept.
pub fn forget() {
    SEEN.with(|s| s.borrow_mut().clear());
    FIXED.with(|f| f.borrow_mut().clear());
}

/// Canonical words of a command: lowercased, number words as digits, typos of lexicon words
/// corrected (never after a text marker, never a capitalized name).
pub fn canonical(text: &str) -> Vec<String> {
    per_command(&SEEN, text, 16, || read_words(text))
}

/// A value made from `key` once per command: kept in `cache` (at most `limit` keys) until
/// [`forget`] starts the next command.
pub(crate) fn per_command<T: Clone>(
    cache: &'static std::thread::LocalKey<std::cell::RefCell<Vec<(String, T)>>>,
    key: &str,
    limit: usize,
    make: impl FnOnce() -> T,
) -> T {
    if let Some(v) = cache.with(|c| {
        c.borrow()
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }) {
        return v;
    }
    let v = make();
    cache.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= limit {
            c.remove(0);
        }
        c.push((key.to_string(), v.clone()));
    });
    v
}

/// "connect A to B", "make A bigger": a capital "A" inside a command is a one-letter name, not
/// the article, unless a noun phrase follows it ("Add A Blue Note", "ADD A RED CIRCLE", "add A
/// note"); it stays uppercase so the grammar reads it as a name.
fn letter_name(cased: &[String], i: usize) -> bool {
    if cased[i] != "A" {
        return false;
    }
    let Some(next) = cased.get(i + 1) else {
        return true;
    };
    let lower = next.to_lowercase();
    let noun_phrase = super::vocab::kind_word(&lower).is_some()
        || super::vocab::color_at(std::slice::from_ref(&lower), 0).is_some()
        || super::vocab::extreme(&lower).is_some()
        || lower.parse::<f64>().is_ok()
        || correct(&lower).is_some_and(|c| super::vocab::kind_word(c).is_some());
    next.starts_with(|c: char| c.is_lowercase() || !c.is_alphabetic()) && !noun_phrase
}

fn read_words(text: &str) -> Vec<String> {
    let cased = super::lex::words_cased(text);
    let lower: Vec<String> = cased.iter().map(|w| w.to_lowercase()).collect();
    let aligned = true;
    let mut out = Vec::with_capacity(lower.len());
    let mut content = false;
    for (i, w) in lower.into_iter().enumerate() {
        let capitalized =
            aligned && i > 0 && cased[i].chars().next().is_some_and(char::is_uppercase);
        if capitalized && letter_name(&cased, i) {
            out.push(cased[i].clone());
        } else if content || capitalized {
            out.push(w);
        } else if let Some(full) = shorthand(&w) {
            out.push(full.to_string());
        } else {
            let c = correct(&w).map(str::to_string).unwrap_or(w);
            content = TEXT_MARKERS.contains(&c.as_str()) && c != "with" && c != "text";
            out.push(c);
        }
    }
    merge_numbers(&mut out);
    join_compounds(&mut out);
    // "x3 stars", "3x notes": a count before a kind word; elsewhere "2x", "x4" are times.
    let mut i = 0;
    while i < out.len() {
        let w = &out[i];
        let digits = w.strip_prefix('x').or_else(|| w.strip_suffix('x'));
        if let Some(d) = digits.filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) {
            let d = d.to_string();
            let counts = out[i + 1..]
                .iter()
                .take(3)
                .any(|w| super::vocab::kind_word(w).is_some());
            out[i] = d;
            if !counts {
                out.insert(i + 1, "times".into());
                i += 1;
            }
        }
        i += 1;
    }
    out
}

/// "two way" → "two-way", "double headed" → "double-headed" (after number words became digits),
/// "post it" → "post-it".
fn join_compounds(ws: &mut Vec<String>) {
    let mut i = 0;
    while i + 1 < ws.len() {
        let joined = match (ws[i].as_str(), ws[i + 1].as_str()) {
            ("2" | "two", "way") => Some("two-way"),
            ("1" | "one", "way") => Some("one-way"),
            ("double" | "2" | "two", "headed" | "ended") => Some("double-headed"),
            ("post", "it") => Some("post-it"),
            ("post", "its") => Some("post-its"),
            _ => None,
        };
        if let Some(j) = joined {
            ws[i] = j.to_string();
            ws.remove(i + 1);
        }
        i += 1;
    }
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
        assert_eq!(correct("nte"), Some("note"));
        assert_eq!(correct("txt"), Some("text"));
        assert_eq!(correct("mak"), Some("make"));
        assert_eq!(correct("blu"), Some("blue"));
        assert_eq!(correct("gren"), Some("green"));
        assert_eq!(correct("notte"), Some("note"));
        assert_eq!(correct("not"), None);
        assert_eq!(correct("the"), None);
        assert_eq!(correct("read"), None);
        assert_eq!(correct("grn"), Some("green"));
        assert_eq!(correct("prpl"), Some("purple"));
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
