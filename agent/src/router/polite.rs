//! Polite frames around a structure request: "could we please have …?", "would it be possible
//! to make …, please?", "I would like …", "we need …". The frame, "please"/"thanks" words and a
//! request's closing "?" go; what is asked for stays. A frame followed by something other than a
//! request ("could you explain what a kanban is?") is left alone and stays a question.

use std::borrow::Cow;

/// Words that soften a request wherever they stand.
const COURTESY: &[&str] = &[
    "please", "pls", "plz", "pleas", "plese", "kindly", "thanks", "thx",
];

/// Greetings and fillers before a frame ("hi! could you …").
const GREETING: &[&str] = &[
    "hi", "hey", "hello", "hiya", "ok", "okay", "so", "um", "oh", "there", "team", "folks", "all",
];

/// Frames that ask for something, as lowercase word sequences.
const FRAMES: &[&[&str]] = &[
    &["would", "it", "be", "possible", "to"],
    &["is", "it", "possible", "to"],
    &["would", "it", "be", "ok", "to"],
    &["would", "you", "mind"],
    &["do", "you", "mind"],
    &["i", "would", "like"],
    &["we", "would", "like"],
    &["i'd", "like"],
    &["we'd", "like"],
    &["id", "like"],
    &["i'd", "love"],
    &["we'd", "love"],
    &["i", "want"],
    &["we", "want"],
    &["i", "need"],
    &["we", "need"],
];

/// What may follow a frame for the text to be a request: a making verb or a noun phrase.
const REQUEST_START: &[&str] = &[
    "make", "create", "draw", "set", "build", "add", "put", "give", "do", "get", "have", "start",
    "sketch", "map", "lay", "whip", "spin", "prepare", "produce", "generate", "design", "knock",
    "throw", "mock", "plan", "a", "an", "some", "me", "us", "to", "making", "creating", "drawing",
    "setting", "building", "adding", "putting",
];

fn bare(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
        .to_lowercase()
}

/// The request inside a polite frame, with courtesy words dropped (the text as it is when
/// there is nothing to drop), and whether a frame made it a request.
pub fn core(text: &str) -> (Cow<'_, str>, bool) {
    let start = frame_end_of(text);
    (strip(text, start), start.is_some())
}

fn frame_end_of(text: &str) -> Option<usize> {
    let lower: Vec<String> = text
        .split(' ')
        .filter(|t| !t.is_empty())
        .map(bare)
        .collect();
    frame_end(&lower)
}

fn strip(text: &str, start: Option<usize>) -> Cow<'_, str> {
    let toks: Vec<&str> = text.split(' ').filter(|t| !t.is_empty()).collect();
    let lower: Vec<String> = toks.iter().map(|t| bare(t)).collect();
    let courtesy = lower.iter().any(|w| COURTESY.contains(&w.as_str()));
    if start.is_none() && !courtesy {
        return text.into();
    }
    let mut out: Vec<String> = Vec::with_capacity(toks.len());
    for (t, w) in toks.iter().zip(&lower).skip(start.unwrap_or(0)) {
        if !COURTESY.contains(&w.as_str()) {
            out.push((*t).to_string());
            continue;
        }
        // The courtesy word's own closing mark (":" of "please:") stays on the word before.
        let mark = t.trim_start_matches(|c: char| !c.is_ascii_punctuation() || c == '\'');
        let mark = mark.trim_start_matches(|c: char| c.is_alphanumeric());
        if let Some(prev) = out.last_mut() {
            let keep = prev.trim_end_matches(',').len();
            prev.truncate(keep);
            if mark.starts_with(':') {
                prev.push(':');
            }
        }
    }
    if start.is_some() {
        // "… a timeline of our trip? Day 1, Day 2": a request's inner "?" introduces its details.
        let n = out.len();
        for t in out.iter_mut().take(n.saturating_sub(1)) {
            if t.ends_with('?') {
                t.pop();
                t.push(':');
            }
        }
    }
    let mut s = out.join(" ");
    if start.is_some() {
        let keep = s.trim_end_matches(['?', ' ', ',', '.', '!']).len();
        s.truncate(keep);
    } else {
        let keep = s.trim_end_matches([' ', ',']).len();
        s.truncate(keep);
    }
    if s.trim().is_empty() {
        return text.into();
    }
    s.into()
}

/// Index of the first word after a polite request frame, when there is one and a request
/// follows it.
fn frame_end(ws: &[String]) -> Option<usize> {
    let w = |k: usize| ws.get(k).map_or("", String::as_str);
    let soft = |k: usize| COURTESY.contains(&w(k)) || matches!(w(k), "possibly" | "just" | "also");
    let mut i = 0;
    let mut courteous = false;
    while GREETING.contains(&w(i)) || soft(i) {
        courteous |= soft(i);
        i += 1;
    }
    if let Some(f) = FRAMES
        .iter()
        .find(|f| f.iter().enumerate().all(|(k, x)| w(i + k) == *x))
    {
        i += f.len();
    } else if matches!(
        w(i),
        "could" | "can" | "would" | "will" | "may" | "might" | "cud" | "cn"
    ) && matches!(w(i + 1), "you" | "we" | "i" | "u" | "ya" | "someone")
    {
        i += 2;
        // "would you be able to …"
        if w(i) == "be" && w(i + 1) == "able" && w(i + 2) == "to" {
            i += 3;
        }
    } else if !courteous {
        return None;
    }
    while soft(i) {
        i += 1;
    }
    let request = match w(i) {
        // "I would like to make …", not "I would like to know …".
        "to" => REQUEST_START.contains(&w(i + 1)) && w(i + 1) != "to",
        // "can we have a look at …", "can I get the Roadmap text in red": not a request for a
        // new structure.
        "have" | "get" | "do" => {
            let existing = matches!(
                w(i + 1),
                "the" | "this" | "that" | "these" | "those" | "my" | "our" | "it" | "them"
            );
            let idiom =
                w(i + 1) == "a" && matches!(w(i + 2), "look" | "think" | "go" | "chat" | "word");
            !existing && !idiom
        }
        v => REQUEST_START.contains(&v),
    };
    request.then_some(i)
}

#[cfg(test)]
mod tests {
    fn core(s: &str) -> String {
        super::core(s).0.into_owned()
    }

    #[test]
    fn frames_and_courtesy_go() {
        assert_eq!(
            core("Could we please have a kanban board with the columns To Do, Marking?"),
            "have a kanban board with the columns To Do, Marking"
        );
        assert_eq!(
            core("Would it be possible to make a SWOT analysis for our library, please?"),
            "make a SWOT analysis for our library"
        );
        assert_eq!(
            core("I would like an org chart, please: Head at the top"),
            "an org chart: Head at the top"
        );
        assert_eq!(
            core("timeline with Jan, Feb please"),
            "timeline with Jan, Feb"
        );
        assert_eq!(
            core("could you explain what a kanban is?"),
            "could you explain what a kanban is?"
        );
        assert_eq!(core("hi! can you make me a retro?"), "make me a retro");
        for q in [
            "can we have a look at the roadmap?",
            "can i get the Roadmap text in red?",
            "I would like to know what a swot is?",
        ] {
            assert!(!super::core(q).1, "{q}");
        }
        assert!(super::core("would you be able to make a kanban?").1);
    }
}
