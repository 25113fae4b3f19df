//! Template router (seed 001 AC-9): fuzzy multi-phrase matching for SWOT, kanban,
//! retrospective, user journey, grids of notes and flowcharts written `A -> B -> C`. Questions and
//! lone keywords ("what are my strengths") do not match and go on to the planner or the LLM.

use crate::intent::{Intent, StagedCall};
use crate::lex::{has_phrase, is_question, number, words};
use crate::schema::{
    BatchOperations, CreateConnector, CreateFrame, CreateNote, CreateShape, Geometry,
    LayoutDirective, Operation, Ref,
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
                crate::lex::fuzzy_eq(w, t) || crate::lex::fuzzy_eq(w, t.trim_end_matches('s'))
            })
        })
        .count()
}

fn any_phrase(ws: &[String], phrases: &[&str]) -> bool {
    phrases.iter().any(|p| has_phrase(ws, p))
}

/// Matches a command to a template.
pub fn route(text: &str) -> Option<TemplateMatch> {
    let ws = words(text);
    if ws.is_empty() {
        return None;
    }
    if let Some(m) = flowchart(text, &ws) {
        return Some(m);
    }
    if is_question(&ws, text) {
        return None;
    }
    let topic = topic(text);
    let swot = has_phrase(&ws, "swot") || count_words(&ws, &SWOT_WORDS) >= 2;
    if swot {
        return Some(build(
            Template::Swot,
            topic,
            LayoutDirective::Swot2x2,
            swot_sections(),
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
        return Some(build(
            Template::Kanban,
            topic,
            LayoutDirective::Columns,
            kanban_sections(),
        ));
    }
    let retro = any_phrase(
        &ws,
        &[
            "retrospective",
            "retro",
            "start stop continue",
            "mad sad glad",
            "went well",
            "lessons learned",
        ],
    );
    if retro {
        let sections = if any_phrase(&ws, &["mad sad glad"]) {
            vec![("Mad", vec![]), ("Sad", vec![]), ("Glad", vec![])]
        } else if any_phrase(&ws, &["went well", "lessons learned"]) {
            vec![
                ("Went well", vec![]),
                ("To improve", vec![]),
                ("Action items", vec![]),
            ]
        } else {
            vec![("Start", vec![]), ("Stop", vec![]), ("Continue", vec![])]
        };
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
        return Some(build(
            Template::Journey,
            topic,
            LayoutDirective::JourneyStages,
            journey_sections(),
        ));
    }
    note_grid(&ws, topic)
}

fn topic(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
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

type Sections = Vec<(&'static str, Vec<&'static str>)>;

fn swot_sections() -> Sections {
    vec![
        (
            "Strengths",
            vec!["What do we do well?", "What unique resources do we have?"],
        ),
        (
            "Weaknesses",
            vec!["Where do we fall short?", "What do others do better?"],
        ),
        (
            "Opportunities",
            vec!["What trends can we use?", "What needs are unmet?"],
        ),
        (
            "Threats",
            vec!["What could hurt us?", "What are competitors doing?"],
        ),
    ]
}

fn kanban_sections() -> Sections {
    vec![
        ("To Do", vec!["New task"]),
        ("Doing", vec![]),
        ("Done", vec![]),
    ]
}

fn journey_sections() -> Sections {
    vec![
        ("Awareness", vec!["How do they find us?"]),
        ("Consideration", vec!["What do they compare?"]),
        ("Purchase", vec!["What makes them decide?"]),
        ("Retention", vec!["Why do they stay?"]),
        ("Advocacy", vec!["Why do they recommend us?"]),
    ]
}

fn slug(s: &str) -> String {
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

fn build(
    template: Template,
    topic: Option<String>,
    d: LayoutDirective,
    sections: Sections,
) -> TemplateMatch {
    let mut ops = Vec::new();
    for (title, _) in &sections {
        ops.push(Operation::CreateFrame(CreateFrame {
            r#ref: Ref(format!("frame_{}", slug(title))),
            name: title.to_string(),
            color: None,
            parent_ref: None,
            geometry: Geometry::default(),
        }));
    }
    for (title, notes) in &sections {
        for (i, n) in notes.iter().enumerate() {
            ops.push(Operation::CreateNote(CreateNote {
                r#ref: Ref(format!("note_{}_{}", slug(title), i + 1)),
                text: n.to_string(),
                color: None,
                parent_ref: Some(Ref(format!("frame_{}", slug(title)))),
                geometry: Geometry::default(),
            }));
        }
    }
    let name = match template {
        Template::Swot => "SWOT analysis",
        Template::Kanban => "Kanban board",
        Template::Retrospective => "Retrospective",
        Template::Journey => "User journey",
        Template::Flowchart => "Flowchart",
        Template::NoteGrid => "Notes",
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
        })),
    }
}

/// `A -> B -> C` (optionally after "flowchart:"), at least two steps.
fn flowchart(text: &str, ws: &[String]) -> Option<TemplateMatch> {
    if !ws.iter().any(|w| w == "->") {
        return None;
    }
    let body = text.replace('→', "->");
    let body = match body.find(':') {
        Some(i) if i < body.find("->").unwrap_or(0) => body[i + 1..].to_string(),
        _ => body,
    };
    let steps: Vec<String> = body
        .split("->")
        .map(|s| s.trim().trim_end_matches(['.', '!']).trim().to_string())
        .collect();
    if steps.len() < 2
        || steps
            .iter()
            .any(|s| s.is_empty() || s.chars().count() > 120)
    {
        return None;
    }
    let steps: Vec<String> = steps
        .into_iter()
        .take(crate::schema::MAX_OPERATIONS / 2)
        .collect();
    let lr = has_phrase(ws, "left to right") || has_phrase(ws, "horizontal");
    let mut ops = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let decision = s.ends_with('?');
        ops.push(Operation::CreateShape(CreateShape {
            r#ref: Ref(format!("step_{}", i + 1)),
            geo: Some(if decision { "diamond" } else { "rectangle" }.into()),
            text: Some(s.clone()),
            color: None,
            parent_ref: None,
            geometry: Geometry::default(),
        }));
    }
    for i in 1..steps.len() {
        ops.push(Operation::CreateConnector(CreateConnector {
            r#ref: Ref(format!("conn_{}_{}", i, i + 1)),
            from_ref: Some(Ref(format!("step_{i}"))),
            to_ref: Some(Ref(format!("step_{}", i + 1))),
            from_id: None,
            to_id: None,
            label: None,
            color: None,
            arrow: None,
        }));
    }
    Some(TemplateMatch {
        template: Template::Flowchart,
        intent: Intent::one(StagedCall::BatchOperations(BatchOperations {
            operations: ops,
            layout_directive: Some(if lr {
                LayoutDirective::FlowchartLeftRight
            } else {
                LayoutDirective::FlowchartTopDown
            }),
            title: None,
        })),
    })
}

/// "a grid of 6 sticky notes (about X)", "6 notes in a grid".
fn note_grid(ws: &[String], topic: Option<String>) -> Option<TemplateMatch> {
    if !ws.iter().any(|w| w == "grid") {
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
    let n = n.clamp(1, crate::schema::MAX_OPERATIONS);
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
        })),
    })
}
