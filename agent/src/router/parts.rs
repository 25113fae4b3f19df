//! The parts a user lists for a structure ("with columns A, B, C", "kanban: A, B, C"), the small
//! text helpers every named structure uses, and the layered graph that flowcharts, org charts,
//! mind maps and timelines are drawn as. A leaf of the router: `named`, `formats` and `maps`
//! all read it.

use super::{Template, TemplateMatch};
use crate::intent::{Intent, StagedCall};
use crate::lang::content::list_items;
use crate::schema::{
    BatchOperations, CreateConnector, CreateShape, Geometry, LayoutDirective, Operation, Ref,
};

/// Words that introduce the listed parts of a structure.
const PART_WORDS: &[&str] = &[
    "columns",
    "column",
    "stages",
    "stage",
    "steps",
    "phases",
    "periods",
    "lanes",
    "sections",
    "lists",
    "categories",
    "buckets",
    "milestones",
    "quadrants",
    "branches",
    "topics",
    "events",
    "years",
    "months",
    "quarters",
    "sprints",
];

/// Names of structures a list may follow directly ("timeline 2025 / 2026 / 2027").
const STRUCTURE_WORDS: &[&str] = &[
    "timeline",
    "roadmap",
    "kanban",
    "board",
    "retro",
    "retrospective",
    "journey",
    "flowchart",
];

/// The parts listed in a structure request, kept as the user typed them.
pub fn parts(text: &str) -> Option<Vec<String>> {
    typed_parts(text)
}

/// The parts listed in a structure request, as typed: after a part word ("with columns A, B, C"), a colon
/// or a spaced dash ("kanban: A, B, C", "timeline for X - A, B"), "with"/"of" when a list
/// follows ("timeline of Q1, Q2, Q3"), or the structure's name. Items are separated by commas,
/// semicolons, lines, "and", " / " or "|"; quotes around an item go.
pub fn typed_parts(text: &str) -> Option<Vec<String>> {
    let lower = crate::lang::lex::lower_aligned(text);
    // Part words first, then a colon, then connectives, then the structure's name.
    let mut starts: Vec<usize> = Vec::new();
    for w in PART_WORDS {
        for pre in [" ", ":"] {
            if let Some(i) = lower.find(&format!("{w}{pre}")) {
                let before_ok = i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric();
                if before_ok {
                    starts.push(i + w.len() + 1);
                }
            }
        }
    }
    starts.sort_unstable();
    // A colon between digits is a time ("9:00 standup"), not the start of a list.
    let b = lower.as_bytes();
    let time = |i: usize| {
        i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit)
    };
    let colon = lower
        .match_indices(':')
        .map(|(i, _)| i)
        .find(|&i| !time(i))
        .map(|i| i + 1)
        .into_iter()
        .chain(
            [" - ", " – ", " — "]
                .iter()
                .filter_map(|m| lower.find(m).map(|i| i + m.len())),
        )
        .min();
    starts.extend(colon);
    for m in [
        " with ",
        " containing ",
        " including ",
        " showing ",
        " covering ",
        " listing ",
        " of ",
        " for ",
    ] {
        if let Some(i) = lower.find(m) {
            starts.push(i + m.len());
        }
    }
    for w in STRUCTURE_WORDS {
        if let Some(i) = lower.find(&format!("{w} ")) {
            starts.push(i + w.len() + 1);
        }
    }
    starts.into_iter().find_map(|st| listed(&text[st..]))
}

/// The items of a list that starts `tail`, when it has 2 to 30 of them.
fn listed(tail: &str) -> Option<Vec<String>> {
    let tail = tail.trim().trim_start_matches(':').trim();
    let tail = strip_lead(super::lists::first_sentence(tail));
    // "landing page > sign up > first project"
    let arrows;
    let tail = if tail.contains(" > ") {
        arrows = tail.replace(" > ", ", ");
        arrows.as_str()
    } else {
        tail
    };
    if let Some(q) = quoted_list(tail) {
        return Some(q);
    }
    if !(tail.contains(',')
        || tail.contains(';')
        || tail.contains('\n')
        || tail.contains('|')
        || tail.contains(" / ")
        || tail.contains(" and "))
    {
        return None;
    }
    let mut items: Vec<String> = list_items(tail)
        .into_iter()
        .map(|s| strip_lead(&s).to_string())
        .filter(|s| !s.is_empty() && s.chars().count() <= 80)
        .collect();
    if let Some(last) = items.last_mut() {
        *last = super::lists::trim_trailing(last).to_string();
    }
    // "Glad, Sad, Mad columns": the part word after the last item is not part of it.
    if let Some(last) = items.last_mut()
        && let Some((item, word)) = last.rsplit_once(' ')
        && PART_WORDS.contains(&crate::lang::lex::lower_aligned(word).as_str())
    {
        *last = item.trim().to_string();
    }
    let items: Vec<String> = items.iter().map(|s| unquote(s).to_string()).collect();
    (items.len() >= 2 && items.len() <= 30).then_some(items)
}

/// A list of quoted names with nothing but separators between them
/// ("'Loved' 'Loathed' 'Longed for'", "\"A\" and \"B\" columns").
fn quoted_list(tail: &str) -> Option<Vec<String>> {
    if !tail.starts_with(['"', '\'', '“', '‘']) {
        return None;
    }
    let (qs, rest) = crate::lang::content::quotes(tail);
    let only_separators = crate::lang::lex::words(&rest)
        .iter()
        .all(|w| matches!(w.as_str(), "quoted" | "and" | "or") || PART_WORDS.contains(&w.as_str()));
    (qs.len() >= 2 && qs.len() <= 30 && only_separators).then_some(qs)
}

/// `s` without the quotes around it ("'Went well'" → "Went well").
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

pub fn strip_lead(s: &str) -> &str {
    let mut s = s.trim();
    for p in [
        "columns ",
        "stages ",
        "steps ",
        "phases ",
        "periods ",
        "the ",
        "columns: ",
        "stages: ",
        "named ",
        "called ",
        "are ",
        "are: ",
        "should be ",
        "will be ",
        "would be ",
        "include ",
        "with ",
    ] {
        if s.len() >= p.len() && s.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes()) {
            s = s[p.len()..].trim();
        }
    }
    s
}

pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) if f.is_lowercase() => f.to_uppercase().chain(c).collect(),
        Some(f) => std::iter::once(f).chain(c).collect(),
        None => String::new(),
    }
}

pub fn after_any(text: &str, markers: &[&str]) -> Option<String> {
    let lower = crate::lang::lex::lower_aligned(text);
    markers
        .iter()
        .filter_map(|m| lower.find(m).map(|i| i + m.len()))
        .min()
        .map(|i| {
            text[i..]
                .trim()
                .trim_end_matches(['.', '!', '?'])
                .to_string()
        })
        .filter(|t| !t.is_empty() && t.len() <= 80)
}

/// Shapes joined by connectors, laid out as a layered graph (a tree when the edges form one):
/// flowcharts, org charts, mind maps, timelines.
pub fn graph(
    template: Template,
    nodes: &[String],
    edges: &[(usize, usize)],
    left_right: bool,
    title: Option<String>,
) -> TemplateMatch {
    let nodes: Vec<&String> = nodes.iter().take(200).collect();
    let mut ops = Vec::new();
    for (i, s) in nodes.iter().enumerate() {
        let decision = s.ends_with('?');
        let geo = if decision {
            "diamond"
        } else if template == Template::MindMap && i == 0 {
            "ellipse"
        } else {
            "rectangle"
        };
        ops.push(Operation::CreateShape(CreateShape {
            r#ref: Ref(format!("step_{}", i + 1)),
            geo: Some(geo.into()),
            text: Some((*s).clone()),
            color: None,
            parent_ref: None,
            geometry: Geometry::default(),
        }));
    }
    for &(a, b) in edges
        .iter()
        .filter(|(a, b)| *a < nodes.len() && *b < nodes.len())
    {
        ops.push(Operation::CreateConnector(CreateConnector {
            r#ref: Ref(format!("conn_{}_{}", a + 1, b + 1)),
            from_ref: Some(Ref(format!("step_{}", a + 1))),
            to_ref: Some(Ref(format!("step_{}", b + 1))),
            from_id: None,
            to_id: None,
            label: None,
            color: None,
            arrow: None,
        }));
    }
    TemplateMatch {
        template,
        intent: Intent::one(StagedCall::BatchOperations(BatchOperations {
            operations: ops,
            layout_directive: Some(if left_right {
                LayoutDirective::FlowchartLeftRight
            } else {
                LayoutDirective::FlowchartTopDown
            }),
            title,
            columns: None,
            structure: super::structure_name(template).map(str::to_string),
            ..BatchOperations::default()
        })),
    }
}
