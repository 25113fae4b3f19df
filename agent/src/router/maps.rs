//! Structures drawn as shapes and connectors from words: mind maps (a centre and its branches),
//! org charts written as sentences ("CEO on top, under her CTO and CFO") and flowcharts given as
//! a list of steps ("flowchart of the day: Register, Assembly, Lunch").

use super::parts::{after_any, graph, strip_lead, typed_parts, unquote};
use super::{Template, TemplateMatch};
use crate::lang::content::list_items;
use crate::lang::lex::lower_aligned;

/// Where a mind map's branches are listed, strongest first.
const BRANCH_MARKERS: &[&str] = &[
    " branches ",
    " branch ",
    " branches:",
    " branching into ",
    " subtopics ",
    " with ",
    " including ",
    ":",
    " - ",
    " – ",
    " — ",
];

/// Phrases after a mind map's centre ("'Science Week' in the centre").
const CENTRE_AFTER: &[&str] = &[
    " in the centre",
    " in the center",
    " in the middle",
    " at the centre",
    " at the center",
    " as the centre",
    " as the center",
    " as the central topic",
    " as the main topic",
];

/// A mind map: a centre joined to each branch.
pub fn mind_map(text: &str) -> TemplateMatch {
    let lower = lower_aligned(text);
    let marked = centre_marked(text, &lower);
    // The branch list: after the first branch marker outside the centre's phrase.
    let skip = marked.as_ref().map_or(0, |m| m.1);
    let branch_at = BRANCH_MARKERS.iter().find_map(|m| {
        let i = lower[skip..].find(m)? + skip;
        let items = branch_items(&text[i + m.len()..]);
        (items.len() >= 2).then_some((i, items))
    });
    // "Travel in the middle, Flights, Hotels and Food": the list right after the centre's phrase.
    let branch_at = branch_at.or_else(|| {
        let items = branch_items(text[skip..].trim_start_matches([',', ' ', '-', ';']));
        (skip > 0 && items.len() >= 2).then_some((skip, items))
    });
    let head = &text[..branch_at.as_ref().map_or(text.len(), |b| b.0)];
    let center = marked
        .map(|m| m.0)
        .or_else(|| center_topic(text, head))
        .unwrap_or_else(|| "Main idea".into());
    let branches = branch_at
        .map(|b| b.1)
        .or_else(|| typed_parts(text))
        .unwrap_or_else(|| {
            ["Idea 1", "Idea 2", "Idea 3", "Idea 4"]
                .map(String::from)
                .to_vec()
        });
    let mut nodes = vec![center];
    nodes.extend(branches);
    let edges: Vec<(usize, usize)> = (1..nodes.len()).map(|k| (0, k)).collect();
    graph(Template::MindMap, &nodes, &edges, true, None)
}

fn branch_items(tail: &str) -> Vec<String> {
    let mut t = strip_lead(super::lists::first_sentence(tail.trim_start_matches(':')));
    for p in ["for ", "like ", "such as ", "of ", "into ", ": "] {
        if lower_aligned(t).starts_with(p) {
            t = t[p.len()..].trim();
        }
    }
    let mut items = list_items(t);
    if let Some(last) = items.last_mut() {
        *last = super::lists::trim_trailing(last).to_string();
    }
    items
        .iter()
        .map(|s| unquote(s))
        .filter(|s| !s.is_empty() && s.chars().count() <= 80)
        .map(str::to_string)
        .collect()
}

/// "with 'Science Week' in the centre": the centre and where its phrase ends.
fn centre_marked(text: &str, lower: &str) -> Option<(String, usize)> {
    let (i, m) = CENTRE_AFTER
        .iter()
        .find_map(|m| lower.find(m).map(|i| (i, m.len())))?;
    let before = text[..i].trim_end();
    let name = match before.chars().last() {
        Some(q @ ('"' | '\'' | '”' | '’')) => {
            let open = match q {
                '”' => '“',
                '’' => '‘',
                c => c,
            };
            let inner = &before[..before.len() - q.len_utf8()];
            &inner[inner.rfind(open)? + open.len_utf8()..]
        }
        _ => {
            let lb = lower_aligned(before);
            let from = [" with ", ":", " map ", " have ", " put "]
                .iter()
                .filter_map(|m| lb.rfind(m).map(|k| k + m.len()))
                .max()?;
            &before[from..]
        }
    };
    let name = strip_lead(name.trim());
    (!name.is_empty()).then(|| (name.to_string(), i + m))
}

/// The central topic of a mind map: after "center"/"central topic", else a quoted name or the
/// words after "for/about/on/of/around" before the branches, else before a colon.
fn center_topic(text: &str, head: &str) -> Option<String> {
    let lower = lower_aligned(text);
    for m in [
        "central topic ",
        "center ",
        "centre ",
        "central idea ",
        "core ",
        "central topic:",
        "center:",
        "centre:",
    ] {
        if let Some(i) = lower.find(m) {
            let t = text[i + m.len()..].trim_start();
            let tl = lower_aligned(t);
            let end = [" and ", " with ", ",", ":", ";"]
                .iter()
                .filter_map(|e| tl.find(e))
                .min()
                .unwrap_or(t.len());
            let c = unquote(t[..end].trim());
            if !c.is_empty() {
                return Some(c.to_string());
            }
        }
    }
    if let Some(q) = crate::lang::lex::quoted(head) {
        return Some(q);
    }
    let t = after_any(head, &[" for ", " about ", " on ", " of ", " around "]).or_else(|| {
        let i = text.find(':')?;
        let h = text[..i].to_lowercase();
        if h.contains("mind map") || h.contains("mindmap") {
            // "mind map: Travel with Flights, Hotels"
            Some(text[i + 1..].to_string())
        } else {
            Some(text[..i].to_string())
        }
    })?;
    // "about cooking with" before "branches …": the dangling "with" goes.
    let lower = format!("{} ", lower_aligned(&t));
    let end = [" with ", ":", " including ", " covering "]
        .iter()
        .filter_map(|m| lower.find(m))
        .min()
        .unwrap_or(t.len());
    let mut c = unquote(t[..end].trim());
    // "for the Team Offsite": the article is not part of the name.
    for a in ["the ", "our ", "my ", "a ", "an "] {
        if c.len() > a.len() && c[..a.len()].eq_ignore_ascii_case(a) {
            c = c[a.len()..].trim_start();
            break;
        }
    }
    (!c.is_empty()).then(|| c.to_string())
}

/// Words that say who is at the top of an org chart, after the name.
const TOP: &[&str] = &[
    " at the top",
    " on top",
    " at top",
    " is the boss",
    " is in charge",
    " in charge",
    " as the head",
    " as head",
];

/// Words that relate people rather than name them.
const RELATION: &[&str] = &[
    " with ",
    " underneath",
    " under her",
    " under him",
    " under them",
    " under it",
    " below her",
    " below him",
    " below them",
    " beneath her",
    " beneath him",
    " beneath them",
    " reporting to her",
    " reporting to him",
    " reporting to them",
    " reporting to",
    " report to her",
    " report to him",
    " report to them",
    " below",
    " beneath",
    " under:",
];

/// An org chart: the person marked as the top ("CEO on top", "Head at the top") heads the
/// others; without a mark the first listed person does.
pub fn org_chart(text: &str) -> TemplateMatch {
    let people = marked_people(text)
        .or_else(|| typed_parts(text))
        .unwrap_or_else(|| ["CEO", "CTO", "CFO", "COO"].map(String::from).to_vec());
    let edges: Vec<(usize, usize)> = (1..people.len()).map(|k| (0, k)).collect();
    graph(Template::OrgChart, &people, &edges, false, None)
}

/// People of an org chart written as a sentence, the root first.
fn marked_people(text: &str) -> Option<Vec<String>> {
    let lower = lower_aligned(text);
    if !TOP.iter().any(|m| lower.contains(m)) {
        return None;
    }
    // The body: after a colon, else after "chart".
    let start = lower
        .find(':')
        .map(|i| i + 1)
        .or_else(|| {
            [" - ", " – ", " — "]
                .iter()
                .find_map(|m| lower.find(m).map(|i| i + m.len()))
        })
        .or_else(|| lower.find("chart").map(|i| i + 5))?;
    let mut body = format!(" {} ", &text[start..]).replace(" & ", ", ");
    for m in TOP {
        body = replace_ci(&body, m, "^,");
    }
    for m in RELATION {
        body = replace_ci(&body, m, ",");
    }
    // "under Jo: Al, Bea"
    while let Some(i) = lower_aligned(&body).find(" under ") {
        let colon = body[i..].find(':').map(|c| i + c);
        match colon.filter(|&c| !body[i..c].contains(',')) {
            Some(c) => body.replace_range(i..=c, ","),
            None => body.replace_range(i..i + 7, ", "),
        }
    }
    let mut people: Vec<String> = Vec::new();
    let mut root = 0;
    let items = list_items(&body);
    for (k, item) in items.iter().enumerate() {
        // "two managers below her, Sam and Kim": a counted role before its names is not a name.
        let counted = item
            .split(' ')
            .next()
            .and_then(|w| crate::lang::lex::number(&w.to_lowercase()))
            .filter(|n| *n >= 2.0 && item.contains(' '));
        if counted.is_some_and(|n| items.len() - k > n as usize) {
            continue;
        }
        let (name, top) = match item.strip_suffix('^') {
            Some(n) => (n.trim(), true),
            None => (item.trim(), false),
        };
        let mut name = strip_lead(name);
        for w in ["where ", "showing ", "of ", "for ", "then ", "and then "] {
            if lower_aligned(name).starts_with(w) {
                name = name[w.len()..].trim();
            }
        }
        let name = unquote(name);
        // "CEO on top, and under her …": a connective left between the marks is no one.
        let connective = matches!(
            name.to_lowercase().as_str(),
            "and" | "then" | "also" | "plus" | "or" | "and then"
        );
        if name.is_empty() || connective || name.chars().count() > 80 {
            continue;
        }
        if top {
            root = people.len();
        }
        people.push(name.to_string());
    }
    if people.len() < 2 {
        return None;
    }
    let r = people.remove(root);
    people.insert(0, r);
    Some(people)
}

/// `s` with each case-insensitive `pat` followed by a non-letter replaced by `with`.
fn replace_ci(s: &str, pat: &str, with: &str) -> String {
    let lower = lower_aligned(s);
    let mut out = String::with_capacity(s.len());
    let mut from = 0;
    while let Some(k) = lower[from..].find(pat) {
        let at = from + k;
        let end = at + pat.len();
        let word_end = pat.ends_with(|c: char| c.is_alphanumeric());
        if word_end && lower[end..].starts_with(|c: char| c.is_alphanumeric()) {
            out.push_str(&s[from..end]);
        } else {
            out.push_str(&s[from..at]);
            out.push_str(with);
        }
        from = end;
    }
    out.push_str(&s[from..]);
    out
}

/// A flowchart given as a list of steps ("flowchart of the day: Register, Assembly, Lunch",
/// "process: sign up, then verify, then pay"): a chain.
pub fn flow_list(text: &str) -> Option<TemplateMatch> {
    let text = replace_ci(text, " then ", ", ");
    let steps: Vec<String> = typed_parts(&text)?
        .into_iter()
        .map(|s| {
            let l = s.to_lowercase();
            let s = if l.starts_with("then ") { &s[5..] } else { &s };
            s.trim().to_string()
        })
        .filter(|s| !s.is_empty())
        .collect();
    if steps.len() < 2 {
        return None;
    }
    let edges: Vec<(usize, usize)> = (1..steps.len()).map(|k| (k - 1, k)).collect();
    Some(graph(Template::Flowchart, &steps, &edges, false, None))
}

/// "make a flowchart", "a simple flow chart with 5 steps": a new flowchart with no subject and
/// no steps named is a chain of placeholder steps (Start, Step 1, Step 2, End, or Step 1..N when counted).
pub fn flow_default(ws: &[String]) -> Option<TemplateMatch> {
    let at = ws.iter().position(|w| w == "flowchart" || w == "flow")?;
    let before = ws[..at].iter().rev().find(|w| {
        !matches!(
            w.as_str(),
            "simple" | "basic" | "quick" | "new" | "small" | "big" | "little" | "short" | "blank"
        )
    });
    if !before.is_none_or(|w| {
        matches!(
            w.as_str(),
            "a" | "an" | "me" | "us" | "up" | "make" | "create" | "draw" | "do" | "new"
        )
    }) {
        return None;
    }
    let steps: Vec<String> = match super::formats::counted_parts(ws).filter(|n| *n >= 2) {
        Some(n) => (1..=n).map(|k| format!("Step {k}")).collect(),
        None => ["Start", "Step 1", "Step 2", "End"]
            .map(String::from)
            .to_vec(),
    };
    let edges: Vec<(usize, usize)> = (1..steps.len()).map(|k| (k - 1, k)).collect();
    Some(graph(Template::Flowchart, &steps, &edges, false, None))
}
