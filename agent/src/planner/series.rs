//! Series people name instead of listing: "Monday to Friday", "Q1-Q4", "Sprint 1 to Sprint 4",
//! "a note for each month", "each day of the school week".

use crate::lang::content::list_items;

const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const SEASONS: [&str; 4] = ["Spring", "Summer", "Autumn", "Winter"];

/// The series a word belongs to and its place in it ("tue" → weekdays, 1).
fn place(word: &str) -> Option<(&'static [&'static str], usize)> {
    let w = word.trim().trim_end_matches('.').to_lowercase();
    if w.len() < 3 {
        return None;
    }
    for series in [&WEEKDAYS[..], &MONTHS[..], &SEASONS[..]] {
        if let Some(k) = series.iter().position(|s| {
            let s = s.to_lowercase();
            s == w || w.len() >= 3 && s.starts_with(&w) && w.len() <= 5
        }) {
            return Some((series, k));
        }
    }
    (w == "fall").then_some((&SEASONS[..], 2))
}

/// A prefix and a number ("Q3" → ("Q", 3), "Week 2" → ("Week ", 2)).
fn numbered(s: &str) -> Option<(String, u32)> {
    let s = s.trim();
    let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 3 {
        return None;
    }
    let (prefix, n) = s.split_at(s.len() - digits);
    Some((prefix.to_string(), n.parse().ok()?))
}

/// "Monday to Friday", "Jan - Mar", "Q1-Q4", "Sprint 1 to 4": every member of the range.
pub fn range(item: &str) -> Option<Vec<String>> {
    let lower = item.to_lowercase();
    // Positions in the lowercased text must be positions in the item.
    if lower.len() != item.len() {
        return None;
    }
    let body = lower.strip_prefix("from ").unwrap_or(&lower);
    let offset = item.len() - body.len();
    let (a, b) = [
        " to ",
        " through ",
        " thru ",
        " until ",
        " till ",
        " - ",
        "-",
        "–",
    ]
    .iter()
    .find_map(|sep| {
        body.find(sep).and_then(|i| {
            Some((
                item.get(offset..offset + i)?,
                item.get(offset + i + sep.len()..)?,
            ))
        })
    })?;
    // "each day from Monday" → "Monday"; "Sprint 1" stays whole.
    let a = a.trim().trim_start_matches("from ");
    let words: Vec<&str> = a.split_whitespace().collect();
    let b = b.trim();
    if let (Some((sa, ka)), Some((sb, kb))) = (words.last().and_then(|w| place(w)), place(b))
        && std::ptr::eq(sa, sb)
        && ka < kb
    {
        return Some(sa[ka..=kb].iter().map(|s| s.to_string()).collect());
    }
    let a = if words.len() > 2 {
        words[words.len() - 2..].join(" ")
    } else {
        a.to_string()
    };
    let (prefix, from) = numbered(&a)?;
    let (other, to) = numbered(b)?;
    let same = other.is_empty() || other.eq_ignore_ascii_case(&prefix);
    (same && from < to && to - from < 50)
        .then(|| (from..=to).map(|n| format!("{prefix}{n}")).collect())
}

/// A period named after "each"/"every": its members ("each day of the school week").
pub fn period(t: &str) -> Option<Vec<String>> {
    let t = t.to_lowercase();
    if !["each ", "every ", "the ", "per ", "a "]
        .iter()
        .any(|p| t.starts_with(p))
    {
        return None;
    }
    let all = |s: &[&str]| Some(s.iter().map(|x| x.to_string()).collect());
    if [
        "weekday",
        "working day",
        "work day",
        "school day",
        "school week",
        "work week",
    ]
    .iter()
    .any(|p| t.contains(p))
    {
        all(&WEEKDAYS[..5])
    } else if t.contains("day") && t.contains("week") {
        all(&WEEKDAYS)
    } else if t.contains("month") {
        all(&MONTHS)
    } else if t.contains("season") {
        all(&SEASONS)
    } else if t.contains("quarter") {
        all(&["Q1", "Q2", "Q3", "Q4"])
    } else {
        None
    }
}

/// The items a "for each …" or listed content names once series are spelled out: `None` when
/// it names no series.
pub fn each_of(t: &str) -> Option<Vec<String>> {
    let mut items = list_items(t);
    // "each day of the school week, Monday to Friday": the first part only says what they are.
    if items.len() > 1 && period(&items[0]).is_some()
        || items.len() > 1 && range(&items[0]).is_none() && {
            let l = items[0].to_lowercase();
            l.starts_with("each ") || l.starts_with("every ")
        }
    {
        items.remove(0);
    }
    let mut out = Vec::new();
    let mut expanded = false;
    for it in &items {
        match range(it) {
            Some(r) => {
                expanded = true;
                out.extend(r);
            }
            None => out.push(it.clone()),
        }
    }
    if expanded {
        return Some(out);
    }
    (items.len() == 1).then(|| period(&items[0])).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_periods_spell_out() {
        assert_eq!(range("Monday to Friday").unwrap().len(), 5);
        assert_eq!(
            range("Jan - Mar").unwrap(),
            vec!["January", "February", "March"]
        );
        assert_eq!(range("Q1-Q4").unwrap(), vec!["Q1", "Q2", "Q3", "Q4"]);
        assert_eq!(
            range("Sprint 1 to 3").unwrap(),
            vec!["Sprint 1", "Sprint 2", "Sprint 3"]
        );
        assert_eq!(range("Friday to Monday"), None);
        assert_eq!(range("to do"), None);
        assert_eq!(
            each_of("each day of the school week, Monday to Friday").unwrap(),
            vec!["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
        );
        assert_eq!(each_of("each month").unwrap().len(), 12);
        assert_eq!(each_of("buy milk"), None);
    }
}
