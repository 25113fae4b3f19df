//! Numbers written in words ("twenty five", "a hundred and twenty", "a dozen") as digits.

/// "zero" to "nineteen", at their values.
pub(crate) const UNITS: [&str; 20] = [
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
        // "half a dozen"
        if w == "half"
            && ws.get(i + 1).is_some_and(|x| x == "a" || x == "an")
            && ws.get(i + 2).is_some_and(|x| x == "dozen")
        {
            out.push("6".into());
            i += 3;
            continue;
        }
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
