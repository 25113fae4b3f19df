//! Template router (seed 001 AC-9): fuzzy multi-phrase matching for SWOT, kanban,
//! retrospective, user journey, grids of notes and flowcharts written `A -> B -> C`. Questions and
//! lone keywords ("what are my strengths") do not match and go on to the planner or the LLM.

mod cards;
mod fishbone;
mod formats;
mod guards;
mod ideas;
mod lists;
mod maps;
mod named;
mod parts;
mod polite;

use crate::intent::{Intent, StagedCall};
use crate::lang::lex::{has_phrase, is_question, number, words};
use crate::lang::structures::{JOURNEY, KANBAN, RETRO, RETRO_PHRASES, SWOT, Section};
use crate::schema::{
    BatchOperations, CreateFrame, CreateNote, Geometry, LayoutDirective, Operation, Ref,
};

/// The templates the router knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Template {
    Swot,
    Kanban,
    Retrospective,
    Journey,
    Flowchart,
    NoteGrid,
    Timeline,
    ProsCons,
    Matrix,
    Eisenhower,
    MindMap,
    OrgChart,
    /// A fishbone (Ishikawa) diagram: the problem and its cause categories.
    Fishbone,
    /// Empty notes under a titled frame for ideas the user asked for (no model to write them).
    Ideas,
}

/// A routed command: the template and its ready intent.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateMatch {
    pub template: Template,
    pub intent: Intent,
}

const SWOT_WORDS: [&str; 4] = ["strengths", "weaknesses", "opportunities", "threats"];

fn count_words(ws: &[String], targets: &[&str]) -> usize {
    targets
        .iter()
        .filter(|t| {
            ws.iter().any(|w| {
                crate::lang::lex::fuzzy_eq(w, t)
                    || crate::lang::lex::fuzzy_eq(w, t.trim_end_matches('s'))
            })
        })
        .count()
}

fn any_phrase(ws: &[String], phrases: &[&str]) -> bool {
    phrases.iter().any(|p| has_phrase(ws, p))
}

/// A fishbone or a content request ("make 5 notes with ideas for the launch"), before the
/// guards that keep a new object with its content for the planner.
fn requested(text: &str, ws: &[String]) -> Option<TemplateMatch> {
    if guards::edits_existing(ws) {
        return None;
    }
    fishbone::route(text, ws).or_else(|| ideas::route(text, ws))
}

/// Matches a command to a template, with any cards a later sentence puts in its columns.
pub fn route(text: &str) -> Option<TemplateMatch> {
    crate::lang::forget();
    let (head, cards) = cards::split(text);
    if !cards.is_empty()
        && let Some(m) = route_text(&head).and_then(|m| cards::add(m, &cards))
    {
        return Some(m);
    }
    route_text(text)
}

fn route_text(text: &str) -> Option<TemplateMatch> {
    let expanded = crate::lang::lex::expand(text);
    let (core, request) = polite::core(&expanded);
    let text: &str = &core;
    let ws = words(text);
    if ws.is_empty() {
        return None;
    }
    if let Some(m) = flowchart(text, &ws) {
        return Some(m);
    }
    // "I would like to know how many notes are in the timeline"
    let question = !request && is_question(&ws, text) || has_phrase(&ws, "how many");
    if !question && let Some(m) = requested(text, &ws) {
        return Some(m);
    }
    if question || guards::edits_existing(&ws) || guards::one_object_with_content(text) {
        return None;
    }
    if let Some(m) = named::route(text, &ws) {
        return Some(m);
    }
    // The parts a user listed, and the topic when none are listed.
    let named_parts = || {
        let parts = parts::parts(text);
        let topic = if parts.is_some() { None } else { topic(text) };
        (parts, topic)
    };
    let swot = has_phrase(&ws, "swot") || count_words(&ws, &SWOT_WORDS) >= 2;
    if swot {
        return Some(build(
            Template::Swot,
            topic(text),
            LayoutDirective::Swot2x2,
            named::swot_items(text).unwrap_or_else(|| owned(SWOT)),
        ));
    }
    let kanban = any_phrase(
        &ws,
        &[
            "kanban",
            "to do doing done",
            "todo doing done",
            "to-do doing done",
            "task board",
            "sprint board",
            "backlog in progress done",
        ],
    );
    if kanban {
        let (parts, topic) = named_parts();
        return Some(build(
            Template::Kanban,
            topic,
            LayoutDirective::Columns,
            kanban_columns(parts.as_deref(), &ws),
        ));
    }
    let retro = any_phrase(
        &ws,
        &[
            "retrospective",
            "retro",
            "start stop continue",
            "mad sad glad",
            "glad sad mad",
            "rose bud thorn",
            "4ls",
            "went well",
            "lessons learned",
        ],
    );
    if retro {
        let (parts, topic) = named_parts();
        let sections = retro_sections(parts.as_deref(), &ws);
        return Some(build(
            Template::Retrospective,
            topic,
            LayoutDirective::Columns,
            sections,
        ));
    }
    let journey = any_phrase(
        &ws,
        &["user journey", "customer journey", "journey map", "journey"],
    );
    if journey {
        let (parts, topic) = named_parts();
        return Some(build(
            Template::Journey,
            topic,
            LayoutDirective::JourneyStages,
            journey_stages(parts.as_deref(), &ws),
        ));
    }
    note_grid(&ws, topic(text))
}

/// A kanban board's columns: the ones listed, N of them, else To Do, Doing, Done.
fn kanban_columns(parts: Option<&[String]>, ws: &[String]) -> Sections {
    parts.map_or_else(
        || match formats::counted_parts(ws) {
            Some(n) if n != 3 => formats::kanban_columns(n),
            _ => owned(KANBAN),
        },
        named::sections,
    )
}

/// A journey's stages: the ones listed, else the first N (5) of the defaults.
fn journey_stages(parts: Option<&[String]>, ws: &[String]) -> Sections {
    parts.map_or_else(
        || {
            let mut s = owned(JOURNEY);
            s.truncate(formats::counted_parts(ws).filter(|n| *n >= 2).unwrap_or(5));
            s
        },
        named::sections,
    )
}

/// A retrospective's columns: the ones listed, a named format, else Start, Stop, Continue.
fn retro_sections(parts: Option<&[String]>, ws: &[String]) -> Sections {
    if let Some(p) = parts {
        named::sections(p)
    } else if let Some(s) = formats::retro_format(ws) {
        s
    } else if let Some((_, cols)) = RETRO_PHRASES.iter().find(|(ps, _)| any_phrase(ws, ps)) {
        titled(cols)
    } else {
        titled(RETRO)
    }
}

pub(crate) fn topic(text: &str) -> Option<String> {
    let lower = crate::lang::lex::lower_aligned(text);
    for marker in [" for ", " about ", " on "] {
        if let Some(i) = lower.find(marker) {
            let t = text[i + marker.len()..]
                .trim()
                .trim_end_matches(['.', '!', '?'])
                .trim_start_matches("a ")
                .trim_start_matches("an ")
                .trim_start_matches("the ")
                .trim();
            if !t.is_empty() && t.len() <= 80 {
                return Some(t.to_string());
            }
        }
    }
    None
}

/// The structure a template builds, as the reply names it; `None` where the reply counts the
/// parts instead (journeys, flowcharts, grids of notes).
pub(crate) fn structure_name(t: Template) -> Option<&'static str> {
    Some(match t {
        Template::Swot => "a SWOT analysis",
        Template::Timeline => "a timeline",
        Template::ProsCons => "a pros and cons list",
        Template::Matrix => "a 2×2 matrix",
        Template::Eisenhower => "an Eisenhower matrix",
        Template::MindMap => "a mind map",
        Template::OrgChart => "an org chart",
        Template::Kanban => "a kanban board",
        Template::Retrospective => "a retrospective",
        Template::Fishbone => "a fishbone diagram",
        Template::Ideas => return None,
        Template::Journey | Template::Flowchart | Template::NoteGrid => return None,
    })
}

pub(crate) type Sections = Vec<(String, Vec<String>)>;

/// Sections from a table of defaults.
fn owned(v: &[Section]) -> Sections {
    v.iter()
        .map(|(t, n)| (t.to_string(), n.iter().map(|s| s.to_string()).collect()))
        .collect()
}

/// Sections with no prompts, from their titles.
fn titled(titles: &[&str]) -> Sections {
    titles.iter().map(|t| (t.to_string(), Vec::new())).collect()
}

pub(crate) fn slug(s: &str) -> String {
    let mut out: String = s
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    out.truncate(24);
    let out = out.trim_matches('_').to_string();
    if out.len() < 2 {
        format!("x_{out}")
    } else {
        out
    }
}

pub(crate) fn build(
    template: Template,
    topic: Option<String>,
    d: LayoutDirective,
    sections: Sections,
) -> TemplateMatch {
    let mut ops = Vec::new();
    let slugs: Vec<String> = sections.iter().map(|(title, _)| slug(title)).collect();
    for ((title, _), s) in sections.iter().zip(&slugs) {
        ops.push(Operation::CreateFrame(CreateFrame {
            r#ref: Ref(format!("frame_{s}")),
            name: title.clone(),
            color: None,
            parent_ref: None,
            geometry: Geometry::default(),
        }));
    }
    for ((_, notes), s) in sections.iter().zip(&slugs) {
        let frame = Ref(format!("frame_{s}"));
        for (i, n) in notes.iter().enumerate() {
            ops.push(Operation::CreateNote(CreateNote {
                r#ref: Ref(format!("note_{s}_{}", i + 1)),
                text: n.clone(),
                color: None,
                parent_ref: Some(frame.clone()),
                geometry: Geometry::default(),
            }));
        }
    }
    let name = match template {
        Template::Swot => "SWOT analysis",
        Template::Timeline => "Timeline",
        Template::ProsCons => "Pros and cons",
        Template::Matrix => "2x2 matrix",
        Template::Eisenhower => "Eisenhower matrix",
        Template::MindMap => "Mind map",
        Template::OrgChart => "Org chart",
        Template::Kanban => "Kanban board",
        Template::Retrospective => "Retrospective",
        Template::Journey => "User journey",
        Template::Flowchart => "Flowchart",
        Template::NoteGrid => "Notes",
        Template::Fishbone => "Fishbone diagram",
        Template::Ideas => "Ideas",
    };
    let title = Some(match topic {
        Some(t) => format!("{name}: {t}"),
        None => name.to_string(),
    });
    TemplateMatch {
        template,
        intent: Intent::one(StagedCall::BatchOperations(BatchOperations {
            operations: ops,
            layout_directive: Some(d),
            title,
            columns: None,
            structure: structure_name(template).map(str::to_string),
            ..BatchOperations::default()
        })),
    }
}

/// `A -> B -> C` (optionally after "flowchart:"), at least two steps; several chains separated
/// by commas, semicolons or lines make a graph ("CEO -> CTO, CEO -> CFO": an org chart).
fn flowchart(text: &str, ws: &[String]) -> Option<TemplateMatch> {
    if !ws.iter().any(|w| w == "->") || guards::names_existing(ws) {
        return None;
    }
    // "the orange notes -> make them red": what to do with them, not a step.
    if let Some(k) = ws.iter().position(|w| w == "->")
        && ws.iter().filter(|w| *w == "->").count() == 1
        && ws.first().is_some_and(|w| {
            matches!(
                w.as_str(),
                "the" | "all" | "my" | "those" | "these" | "every"
            )
        })
        && ws.get(k + 1).is_some_and(|w| {
            matches!(
                w.as_str(),
                "make"
                    | "change"
                    | "turn"
                    | "set"
                    | "color"
                    | "colour"
                    | "paint"
                    | "move"
                    | "delete"
                    | "remove"
                    | "rename"
                    | "recolor"
                    | "recolour"
            )
        })
    {
        return None;
    }
    let body = text.replace('→', "->");
    let (head, body) = match body.find(':') {
        Some(i) if i < body.find("->").unwrap_or(0) => (body[..i].to_lowercase(), &body[i + 1..]),
        _ => (String::new(), body.as_str()),
    };
    let mut nodes: Vec<String> = Vec::new();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for chain in body.split([',', ';', '\n']) {
        if chain.trim().is_empty() {
            continue;
        }
        let mut steps: Vec<String> = chain
            .split("->")
            .map(|s| s.trim().trim_end_matches(['.', '!']).trim().to_string())
            .collect();
        // "org chart CEO -> …", "draw me an org chart with CEO -> …": the structure's name and
        // what comes before it are not a node.
        if nodes.is_empty()
            && let Some(first) = steps.first_mut()
        {
            without_structure_name(first);
        }
        if steps
            .iter()
            .any(|s| s.is_empty() || s.chars().count() > 120)
        {
            return None;
        }
        let mut prev: Option<usize> = None;
        for st in steps {
            let k = match nodes.iter().position(|n| n.eq_ignore_ascii_case(&st)) {
                Some(k) => k,
                None => {
                    nodes.push(st);
                    nodes.len() - 1
                }
            };
            if let Some(p) = prev
                && p != k
                && !edges.contains(&(p, k))
            {
                edges.push((p, k));
            }
            prev = Some(k);
        }
    }
    if nodes.len() < 2 || edges.is_empty() || head.is_empty() && is_change(&nodes) {
        return None;
    }
    let lr = has_phrase(ws, "left to right")
        || has_phrase(ws, "horizontal")
        || head.contains("mind map")
        || head.contains("timeline");
    let template = if head.contains("org") {
        Template::OrgChart
    } else if head.contains("mind map") {
        Template::MindMap
    } else {
        Template::Flowchart
    };
    Some(parts::graph(template, &nodes, &edges, lr, None))
}

/// The first step of a chain without the structure's name before it ("org chart with CEO").
fn without_structure_name(first: &mut String) {
    let lower = crate::lang::lex::lower_aligned(&*first);
    let named = [
        "org chart",
        "organization chart",
        "organisation chart",
        "flowchart",
        "flow chart",
        "mind map",
        "mindmap",
        "diagram",
        "flow",
    ]
    .iter()
    .find_map(|p| {
        let i = lower.find(p)?;
        let end = i + p.len();
        let bounded = (i == 0 || lower[..i].ends_with(' ')) && lower[end..].starts_with(' ');
        bounded.then_some(end)
    });
    if let Some(end) = named {
        let mut rest = first[end..].trim();
        for w in ["with ", "of ", "for ", "showing ", "like ", "where ", "as "] {
            if crate::lang::lex::lower_aligned(rest).starts_with(w) {
                rest = rest[w.len()..].trim();
            }
        }
        if !rest.is_empty() {
            *first = rest.to_string();
        }
    }
}

/// "red circle -> triangle", "all notes in Risks -> light blue": one arrow to a color or a
/// shape word asks for a change, not a two-step flowchart.
fn is_change(nodes: &[String]) -> bool {
    let [_, to] = nodes else {
        return false;
    };
    let ws = words(to);
    let ws: Vec<String> = ws
        .into_iter()
        .filter(|w| !matches!(w.as_str(), "a" | "an" | "the"))
        .collect();
    let color = crate::lang::vocab::color_at(&ws, 0).is_some_and(|(_, n)| n == ws.len());
    let shape = ws.len() == 1
        && crate::lang::vocab::kind_word(&ws[0]).is_some_and(|k| k.kind == protocol::Kind::Shape);
    color || shape
}

/// "a grid of 6 sticky notes (about X)", "6 notes in a grid".
fn note_grid(ws: &[String], topic: Option<String>) -> Option<TemplateMatch> {
    // Shaped grids ("3 by 4", "3x4", rows and columns) are the planner's.
    if !ws.iter().any(|w| w == "grid")
        || ws.iter().any(|w| {
            matches!(w.as_str(), "by" | "x" | "rows" | "columns")
                || crate::lang::vocab::dims(w).is_some()
        })
    {
        return None;
    }
    let note_at = ws.iter().position(|w| {
        w.starts_with("note")
            || w.starts_with("sticky")
            || w.starts_with("stickies")
            || w == "post-its"
    })?;
    let n = ws[..note_at]
        .iter()
        .rev()
        .find_map(|w| number(w).filter(|_| w != "a" && w != "an"))? as usize;
    let n = n.clamp(1, protocol::board::DEFAULT_MAX_OBJECTS);
    let ops = (1..=n)
        .map(|i| {
            Operation::CreateNote(CreateNote {
                r#ref: Ref(format!("note_{i}")),
                text: match &topic {
                    Some(t) => format!("{t} {i}"),
                    None => format!("Note {i}"),
                },
                color: None,
                parent_ref: None,
                geometry: Geometry::default(),
            })
        })
        .collect();
    Some(TemplateMatch {
        template: Template::NoteGrid,
        intent: Intent::one(StagedCall::BatchOperations(BatchOperations {
            operations: ops,
            layout_directive: Some(LayoutDirective::Grid),
            title: None,
            columns: None,
            ..BatchOperations::default()
        })),
    })
}
