//! Named structures: the parts a user lists (columns, stages, periods, quadrant items, branches)
//! and the templates people ask for by name (timeline, pros and cons, mind map, org chart, 2×2
//! matrix with named axes, Eisenhower matrix). Defaults only when no parts are named.

use super::parts::{after_any, graph, parts, typed_parts};
use super::{Sections, Template, TemplateMatch, build};
use crate::lang::content::list_items;
use crate::lang::lex::has_phrase;
use crate::schema::LayoutDirective;

/// Frames named by the parts, empty.
pub fn sections(parts: &[String]) -> Sections {
    parts.iter().map(|p| (p.clone(), Vec::new())).collect()
}

/// Items given per label: "strengths: fast, cheap; weaknesses: slow" → label → items.
fn labeled(text: &str, labels: &[&str]) -> Vec<(usize, Vec<String>)> {
    let lower = crate::lang::lex::lower_aligned(text);
    let mut found: Vec<(usize, usize, usize)> = Vec::new(); // (pos, label index, content start)
    for (k, l) in labels.iter().enumerate() {
        // The last "label:" wins ("pros and cons: pros: …").
        let mut to = lower.len();
        while let Some(at) = lower[..to].rfind(l) {
            let end = at + l.len();
            let rest = lower[end..].trim_start();
            let word = ["are ", "- ", "– "].iter().find(|w| rest.starts_with(*w));
            if rest.starts_with(':') || rest.starts_with('=') || word.is_some() {
                let skip = lower[end..].len() - rest.len() + word.map_or(1, |w| w.len());
                found.push((at, k, end + skip));
                break;
            }
            to = at;
        }
    }
    found.sort_unstable();
    let mut out = Vec::new();
    for (n, &(_, k, start)) in found.iter().enumerate() {
        let end = found.get(n + 1).map_or(text.len(), |f| f.0);
        let items = list_items(text[start..end].trim().trim_end_matches([';', ',', '.']));
        out.push((k, items));
    }
    out
}

/// SWOT with the items a user gave per quadrant ("strengths: fast, cheap; threats: …").
pub fn swot_items(text: &str) -> Option<Sections> {
    let labels = ["strengths", "weaknesses", "opportunities", "threats"];
    let given = labeled(text, &labels);
    if given.is_empty() {
        return None;
    }
    let names = ["Strengths", "Weaknesses", "Opportunities", "Threats"];
    Some(
        names
            .iter()
            .enumerate()
            .map(|(k, n)| {
                let items = given
                    .iter()
                    .find(|(g, _)| *g == k)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();
                (n.to_string(), items)
            })
            .collect(),
    )
}

/// Words one of which every template named here needs (a cheap test before the phrases).
const ANCHORS: &[&str] = &[
    "eisenhower",
    "urgent",
    "matrix",
    "quadrant",
    "quadrants",
    "2x2",
    "pros",
    "pro",
    "advantages",
    "benefits",
    "pluses",
    "mind",
    "mindmap",
    "brainstorm",
    "org",
    "organization",
    "organisation",
    "organizational",
    "orgchart",
    "timeline",
    "roadmap",
    "time",
    "two",
    "flowchart",
    "flow",
    "process",
];

/// Items a person put in the quadrants of an Eisenhower matrix: "Urgent and important: book the
/// caterer. Important, not urgent: write vows. Neither: napkins." (or "Do first: …", "Schedule:
/// …", "Delegate: …", "Eliminate: …").
fn eisenhower_items(text: &str) -> [Vec<String>; 4] {
    let mut out: [Vec<String>; 4] = Default::default();
    for sentence in text.split(['.', '?', '!', ';', '\n']) {
        let Some((label, items)) = sentence.rsplit_once(':') else {
            continue;
        };
        let l = label.to_lowercase();
        let has = |w: &str| l.contains(w);
        let k = if has("neither") || has("eliminate") || has("not urgent") && has("not important") {
            3
        } else if has("not important") || has("delegate") {
            2
        } else if has("not urgent") || has("schedule") {
            1
        } else if has("urgent") && has("important") || has("do first") || has("do now") {
            0
        } else {
            continue;
        };
        out[k].extend(list_items(items));
    }
    out
}

/// The templates named here, or `None` for the caller's own.
pub fn route(text: &str, ws: &[String]) -> Option<TemplateMatch> {
    let anchor = |w: &str| {
        ANCHORS.contains(&w)
            || w.len() >= 6
                && ANCHORS
                    .iter()
                    .any(|a| a.len() >= 6 && crate::lang::lex::fuzzy_eq(w, a))
    };
    if !ws.iter().any(|w| anchor(w)) {
        return None;
    }
    let topic = super::topic(text);
    let four_listed = || typed_parts(text).is_some_and(|p| p.len() == 4);
    // "a 2x2 with Urgent, Not urgent, …": the user's four names, not the Eisenhower defaults.
    if has_phrase(ws, "eisenhower") || has_phrase(ws, "urgent important") && !four_listed() {
        let mut given = eisenhower_items(text);
        let mut take = |k: usize| std::mem::take(&mut given[k]);
        let s: Sections = vec![
            ("Do first: urgent and important".into(), take(0)),
            ("Schedule: important, not urgent".into(), take(1)),
            ("Delegate: urgent, not important".into(), take(2)),
            ("Eliminate: neither".into(), take(3)),
        ];
        return Some(build(
            Template::Eisenhower,
            topic.filter(|_| false),
            LayoutDirective::Swot2x2,
            s,
        ));
    }
    let matrix = ws
        .iter()
        .any(|w| w == "matrix" || w == "quadrant" || w == "quadrants")
        && (ws
            .iter()
            .any(|w| w == "2x2" || w == "axes" || w == "vs" || w == "versus")
            || has_phrase(ws, "2 by 2")
            || has_phrase(ws, "two by two"))
        || has_phrase(ws, "2x2")
            && (!ws.iter().any(|w| w == "grid") || ws.iter().any(|w| w == "vs" || w == "versus"))
        || (has_phrase(ws, "four quadrants") || has_phrase(ws, "4 quadrants")) && four_listed()
        || super::formats::named_matrix(text).is_some();
    if matrix {
        return Some(super::formats::matrix_2x2(text));
    }
    if let Some(m) = pros_cons(text, ws) {
        return Some(m);
    }
    if has_phrase(ws, "mind map") || has_phrase(ws, "mindmap") || has_phrase(ws, "brainstorm map") {
        return Some(super::maps::mind_map(text));
    }
    let org = has_phrase(ws, "org chart")
        || has_phrase(ws, "organization chart")
        || has_phrase(ws, "organisation chart")
        || has_phrase(ws, "organizational chart")
        || has_phrase(ws, "orgchart");
    if org {
        return Some(super::maps::org_chart(text));
    }
    if (has_phrase(ws, "flowchart")
        || has_phrase(ws, "flow chart")
        || has_phrase(ws, "process flow"))
        && let Some(m) = super::maps::flow_list(text).or_else(|| {
            // A flowchart of a subject needs its steps written (the LLM's), not placeholders.
            let subject = topic.is_some() || text.to_lowercase().contains(" of ");
            (!subject).then(|| super::maps::flow_default(ws)).flatten()
        })
    {
        return Some(m);
    }
    if has_phrase(ws, "timeline") || has_phrase(ws, "roadmap") || has_phrase(ws, "time line") {
        let listed = parts(text).or_else(|| super::formats::range(text, ws));
        let title = if listed.is_some() { None } else { topic };
        let periods = listed.unwrap_or_else(|| {
            ["Phase 1", "Phase 2", "Phase 3", "Phase 4"]
                .map(String::from)
                .to_vec()
        });
        let edges: Vec<(usize, usize)> = (1..periods.len()).map(|k| (k - 1, k)).collect();
        return Some(graph(Template::Timeline, &periods, &edges, true, title));
    }
    None
}

/// Pros and cons, with the items a user gave each ("pros: light, space; cons: rent").
fn pros_cons(text: &str, ws: &[String]) -> Option<TemplateMatch> {
    let named = [
        "pros and cons",
        "pros cons",
        "pro and con",
        "pros & cons",
        "pros n cons",
        "pro con",
        "advantages and disadvantages",
        "benefits and drawbacks",
        "pluses and minuses",
    ]
    .iter()
    .any(|p| has_phrase(ws, p));
    if !named {
        return None;
    }
    let given = labeled(text, &["pros", "cons"]);
    let items = |k: usize| {
        given
            .iter()
            .find(|(g, _)| *g == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let topic = after_any(text, &[" of ", " for ", " about ", " on "]).map(|t| {
        let end = [":", " - ", ";"]
            .iter()
            .filter_map(|m| t.find(m))
            .min()
            .unwrap_or(t.len());
        t[..end].trim().to_string()
    });
    let s = vec![
        ("Pros".to_string(), items(0)),
        ("Cons".to_string(), items(1)),
    ];
    Some(build(
        Template::ProsCons,
        topic,
        LayoutDirective::Columns,
        s,
    ))
}
