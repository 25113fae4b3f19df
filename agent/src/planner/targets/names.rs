//! Matching a name written in a command against objects' text: exact, whole words, fuzzy.

/// How well an object's text matches a name (both lowercase): 3 exact, 2 whole words (or a
/// longer substring), 0 otherwise; the fuzzy tier is [`fuzzy_tier`], tried only when no object
/// reaches these.
pub(super) fn text_tier(text: &str, n: &str) -> u8 {
    let t = text.trim();
    if t.is_empty() || n.is_empty() {
        return 0;
    }
    if t.len() == n.len() && t.eq_ignore_ascii_case(n) {
        return 3;
    }
    if t.is_ascii() && !contains_ci(t, n) {
        return 0;
    }
    let t = t.to_lowercase();
    if t == n {
        return 3;
    }
    let mut from = 0;
    while let Some(i) = t[from..].find(n) {
        let at = from + i;
        let end = at + n.len();
        let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        if edge(t[..at].chars().next_back()) && edge(t[end..].chars().next()) || n.len() >= 4 {
            return 2;
        }
        from = end;
    }
    0
}

/// True when `hay` contains `needle` (lowercase) ignoring ASCII case, without allocating.
fn contains_ci(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    n.is_empty() || h.len() >= n.len() && h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// The fuzzy tiers: 2 when the whole text is close to the name, 1 when one word of it is close
/// to a one-word name ("loggin" is the Login box before the "Fix login bug" note).
pub(super) fn fuzzy_tier(text: &str, n: &str) -> u8 {
    let t = text.trim().to_lowercase();
    if t.is_empty() || n.is_empty() {
        return 0;
    }
    let close = t.len().abs_diff(n.len()) <= n.len() / 3 + 1
        && strsim::normalized_damerau_levenshtein(&t, n) >= 0.8;
    let one_word = !n.contains(' ')
        && n.len() >= 4
        && t.split(|c: char| !c.is_alphanumeric())
            .any(|w| crate::lang::lex::fuzzy_eq(w, n));
    if close { 2 } else { u8::from(one_word) }
}
