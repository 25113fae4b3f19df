//! Words in texts: whole-word replacement keeping the first letter's case, and a table of
//! common misspellings for "fix the typos" (data, not rules: a word is fixed only when the
//! table knows it).

/// Common misspellings and their spelling.
#[rustfmt::skip]
const MISSPELLINGS: &[(&str, &str)] = &[
    ("recieve", "receive"), ("recieved", "received"), ("teh", "the"), ("databse", "database"),
    ("projcet", "project"), ("proejct", "project"), ("adress", "address"),
    ("seperate", "separate"), ("definately", "definitely"), ("occured", "occurred"),
    ("untill", "until"), ("wich", "which"), ("calender", "calendar"), ("buisness", "business"),
    ("goverment", "government"), ("enviroment", "environment"), ("tommorow", "tomorrow"),
    ("tomorow", "tomorrow"), ("accomodate", "accommodate"), ("acheive", "achieve"),
    ("beleive", "believe"), ("begining", "beginning"), ("comming", "coming"),
    ("commitee", "committee"), ("existance", "existence"), ("foward", "forward"),
    ("freind", "friend"), ("happend", "happened"), ("immediatly", "immediately"),
    ("independant", "independent"), ("knowlege", "knowledge"), ("maintainance", "maintenance"),
    ("managment", "management"), ("neccessary", "necessary"), ("necesary", "necessary"),
    ("occassion", "occasion"), ("recomend", "recommend"), ("refered", "referred"),
    ("relevent", "relevant"), ("resturant", "restaurant"), ("schedual", "schedule"),
    ("sucess", "success"), ("succesful", "successful"), ("suprise", "surprise"),
    ("thier", "their"), ("truely", "truly"), ("wierd", "weird"), ("writting", "writing"),
    ("feedbak", "feedback"), ("meetting", "meeting"), ("reveiw", "review"),
    ("prioirty", "priority"), ("stratgy", "strategy"), ("custmer", "customer"),
    ("developement", "development"), ("requirments", "requirements"), ("mesage", "message"),
    ("lanuch", "launch"), ("relase", "release"), ("realease", "release"),
    ("alot", "a lot"), ("agenda's", "agendas"), ("arguement", "argument"),
    ("basicly", "basically"), ("collegue", "colleague"), ("concensus", "consensus"),
    ("embarass", "embarrass"), ("excercise", "exercise"), ("fourty", "forty"),
    ("grammer", "grammar"), ("harrass", "harass"), ("judgement", "judgment"),
    ("occurence", "occurrence"), ("persue", "pursue"), ("posession", "possession"),
    ("reccomend", "recommend"), ("strenght", "strength"), ("threshhold", "threshold"),
];

/// A quoted string without its quotes.
pub fn unquote(s: &str) -> &str {
    let s = s.trim();
    for (open, close) in [('"', '"'), ('\'', '\''), ('“', '”'), ('‘', '’')] {
        if let Some(inner) = s.strip_prefix(open).and_then(|r| r.strip_suffix(close))
            && !inner.contains(open)
        {
            return inner.trim();
        }
    }
    s
}

/// `text` with every whole-word occurrence of `old` (any case) replaced by `new`, whose first
/// letter takes the case of the word it replaces; `None` when `old` does not occur.
pub fn replace_words(text: &str, old: &str, new: &str) -> Option<String> {
    let lower = super::lex::lower_aligned(text);
    let needle = super::lex::lower_aligned(old.trim());
    if needle.is_empty() || lower.len() != text.len() {
        return None;
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '\'');
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    let mut found = false;
    while let Some(i) = lower[from..].find(&needle).map(|i| i + from) {
        let end = i + needle.len();
        let bounded = !word(lower[..i].chars().next_back()) && !word(lower[end..].chars().next());
        out.push_str(&text[from..i]);
        if bounded {
            out.push_str(&with_case_of(&text[i..end], old, new));
            found = true;
        } else {
            out.push_str(&text[i..end]);
        }
        from = end;
    }
    out.push_str(&text[from..]);
    found.then_some(out)
}

/// `new` with its first letter upper-case when the replaced word `like` starts with one; when
/// the user capitalized both words alike ("replace Vendor with Partner"), lower-case too where
/// the replaced word is.
fn with_case_of(like: &str, old: &str, new: &str) -> String {
    let first_upper = |s: &str| s.chars().next().is_some_and(char::is_uppercase);
    let upper = first_upper(like);
    let follow = first_upper(old) == first_upper(new);
    let mut c = new.chars();
    match c.next() {
        Some(f) if upper => f.to_uppercase().chain(c).collect(),
        Some(f) if follow => f.to_lowercase().chain(c).collect(),
        _ => new.to_string(),
    }
}

/// `text` with the misspellings the table knows corrected; `None` when there are none.
pub fn fix(text: &str) -> Option<String> {
    let mut out = text.to_string();
    let mut changed = false;
    let lower = text.to_lowercase();
    for (bad, good) in MISSPELLINGS {
        if lower.contains(bad)
            && let Some(t) = replace_words(&out, bad, good)
        {
            out = t;
            changed = true;
        }
    }
    changed.then_some(out)
}
