//! Plan and build mode (seed 002): the guard on write tools, the plan document
//! (`/plans/*.plan`, a markdown checklist), the approval question, answer validation against
//! JSON Schema, and the switch to build mode (`exitPlanMode`).

use crate::intent::Intent;
use crate::schema::{AskUser, Button, Question};
use protocol::{Mode, QuestionButton, QuestionItem};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Seed 002 §3.4's exact denial message.
pub const PLAN_MODE_DENIED: &str =
    "System is in Plan Mode. You can only modify the plan. Switch to Build Mode to apply changes.";

/// Name of the approval question.
pub const APPROVE: &str = "approve";
/// Label of the approving button.
pub const ACCEPT_LABEL: &str = "Accept & Build";
/// Label of the declining button.
pub const KEEP_PLANNING_LABEL: &str = "Keep Planning";

/// A plan: where it is stored, its markdown, and the batch it previews.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanDoc {
    pub path: String,
    pub markdown: String,
    pub preview: Intent,
}

/// True for `/plans/<name>.plan` with a safe name.
pub fn is_plan_path(p: &str) -> bool {
    let Some(name) = p
        .strip_prefix("/plans/")
        .and_then(|n| n.strip_suffix(".plan"))
    else {
        return false;
    };
    !name.is_empty()
        && name.len() <= 80
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A plan path from the request text: `/plans/<slug>.plan`.
pub fn plan_path(text: &str) -> String {
    let mut slug = String::new();
    for w in text
        .to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
    {
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(w);
    }
    if slug.is_empty() {
        slug.push_str("board-plan");
    }
    slug.truncate(60);
    format!("/plans/{}.plan", slug.trim_end_matches('-'))
}

/// The plan document for a request and its previewed intent (a markdown checklist).
pub fn plan_markdown(request: &str, preview: &Intent) -> String {
    let steps = preview.checklist();
    format!(
        "# Plan\n\nRequest: {}\n\n## Steps\n{}\n## Notes\n- Nothing changes on the board until the plan is approved.\n- Approve with \"{ACCEPT_LABEL}\" to build it as one undoable command.\n",
        request.trim(),
        if steps.is_empty() {
            "- [ ] (no board changes)\n".to_string()
        } else {
            steps
        }
    )
}

/// The plan as a person reads it: every internal ref of `preview` (e.g. `frame_strengths`,
/// written in backticks or bare) and every board id that `board_label` knows becomes the
/// object's title or text in quotes (or its kind when it has none).
pub fn readable_markdown(
    markdown: &str,
    preview: &Intent,
    board_label: impl Fn(&str) -> Option<String>,
) -> String {
    let refs = ref_labels(preview);
    let label = |token: &str| -> Option<String> {
        refs.iter()
            .find(|(r, _)| r == token)
            .map(|(_, l)| l.clone())
            .or_else(|| layout_words(token).map(str::to_string))
            .or_else(|| board_label(token))
    };
    let mut out = String::with_capacity(markdown.len());
    let mut rest = markdown;
    while let Some(start) = rest.find('`') {
        let (before, after) = rest.split_at(start);
        out.push_str(&bare_refs(before, &refs));
        let Some(end) = after[1..].find('`') else {
            rest = after;
            break;
        };
        let inner = &after[1..=end];
        match label(inner) {
            Some(l) => out.push_str(&l),
            None => out.push_str(&after[..end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(&bare_refs(rest, &refs));
    out
}

/// A board object's label for a plan: its text in quotes, else its kind.
pub fn quoted_label(text: &str, kind: &str) -> String {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.is_empty() {
        return format!("the {kind}");
    }
    let mut short: String = t.chars().take(40).collect();
    if short.len() < t.len() {
        short.push('…');
    }
    format!("\"{short}\"")
}

/// A layout directive's wire name (`swot-2x2`) in words.
fn layout_words(token: &str) -> Option<&'static str> {
    use crate::schema::LayoutDirective as L;
    let d: L = serde_json::from_value(Value::String(token.to_string())).ok()?;
    Some(match d {
        L::Swot2x2 => "2×2 SWOT grid",
        L::Columns => "columns",
        L::JourneyStages => "journey stages",
        L::Grid => "grid",
        L::Rows => "rows",
        L::FlowchartTopDown => "top-down flowchart",
        L::FlowchartLeftRight => "left-to-right flowchart",
        L::Freeform => "free-form",
    })
}

/// The refs a preview creates and their labels.
fn ref_labels(preview: &Intent) -> Vec<(String, String)> {
    use crate::schema::Operation as O;
    let mut out = Vec::new();
    for call in &preview.calls {
        let crate::intent::StagedCall::BatchOperations(b) = call else {
            continue;
        };
        for op in &b.operations {
            let label = match op {
                O::CreateFrame(f) => quoted_label(&f.name, "frame"),
                O::CreateNote(n) => quoted_label(&n.text, "note"),
                O::CreateShape(s) => quoted_label(
                    s.text.as_deref().unwrap_or(""),
                    s.geo.as_deref().unwrap_or("shape"),
                ),
                O::CreateText(t) => quoted_label(&t.text, "text"),
                O::CreateConnector(c) => quoted_label(c.label.as_deref().unwrap_or(""), "arrow"),
            };
            out.push((op.r#ref().to_string(), label));
        }
    }
    out
}

/// Replaces bare words that are refs with an underscore (`frame_strengths`) by their labels.
fn bare_refs(text: &str, refs: &[(String, String)]) -> String {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match refs.iter().find(|(r, _)| r == word && r.contains('_')) {
            Some((_, l)) => out.push_str(l),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if is_word(c) {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The approval question (seed 002 §6.10).
/// The question names no storage path: people read it (`_plan_file` stays for callers).
pub fn approval_question(_plan_file: &str) -> AskUser {
    AskUser {
        questions: vec![Question {
            name: APPROVE.into(),
            question: "Build this plan on the board?".into(),
            schema: json!({"type": "boolean"}),
            buttons: Some(vec![
                Button {
                    label: ACCEPT_LABEL.into(),
                    value: Value::Bool(true),
                    variant: Some("primary".into()),
                },
                Button {
                    label: KEEP_PLANNING_LABEL.into(),
                    value: Value::Bool(false),
                    variant: Some("secondary".into()),
                },
            ]),
        }],
    }
}

/// Converts `askUser` questions to the wire's question items (buttons as `{label, value,
/// variant?}`, seed 002 §6.2).
pub fn to_items(ask: &AskUser) -> Vec<QuestionItem> {
    ask.questions
        .iter()
        .map(|q| QuestionItem {
            name: q.name.clone(),
            question: q.question.clone(),
            schema: q.schema.clone(),
            buttons: q.buttons.as_ref().map(|b| {
                b.iter()
                    .map(|b| QuestionButton {
                        label: b.label.clone(),
                        value: b.value.clone(),
                        variant: b.variant.clone(),
                    })
                    .collect()
            }),
        })
        .collect()
}

/// Maps button labels in `answers` to their values (a client may send the label it showed).
pub fn normalize_answers(ask: &AskUser, answers: &Map<String, Value>) -> Map<String, Value> {
    let mut out = answers.clone();
    for q in &ask.questions {
        if let (Some(Value::String(label)), Some(buttons)) = (answers.get(&q.name), &q.buttons)
            && let Some(b) = buttons.iter().find(|b| &b.label == label)
        {
            out.insert(q.name.clone(), b.value.clone());
        }
    }
    out
}

/// Validates answers against their questions' JSON Schemas: every question answered, no
/// unknown names, each value valid for its schema.
pub fn validate_answers(
    questions: &[QuestionItem],
    answers: &Map<String, Value>,
) -> Result<(), String> {
    for name in answers.keys() {
        if !questions.iter().any(|q| &q.name == name) {
            return Err(format!("no question named {name:?}"));
        }
    }
    for q in questions {
        let Some(v) = answers.get(&q.name) else {
            return Err(format!("question {:?} is not answered", q.name));
        };
        let validator = jsonschema::validator_for(&q.schema)
            .map_err(|e| format!("question {:?} has an invalid schema: {e}", q.name))?;
        if let Some(e) = validator.iter_errors(v).next() {
            return Err(format!("answer to {:?} is invalid: {e}", q.name));
        }
    }
    Ok(())
}

/// What an answer to the approval question means.
#[derive(Debug, Clone, PartialEq)]
pub enum Approval {
    /// "Accept & Build": switch to build mode and execute the plan.
    Accept,
    /// "Keep Planning": stay in plan mode.
    KeepPlanning,
}

/// Reads the approval answer (after [`validate_answers`]).
pub fn approval(answers: &Map<String, Value>) -> Option<Approval> {
    match answers.get(APPROVE)? {
        Value::Bool(true) => Some(Approval::Accept),
        Value::Bool(false) => Some(Approval::KeepPlanning),
        Value::String(s) if s == ACCEPT_LABEL => Some(Approval::Accept),
        Value::String(s) if s == KEEP_PLANNING_LABEL => Some(Approval::KeepPlanning),
        _ => None,
    }
}

/// A user's AI session mode (default build, DESIGN §10) and the active plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModeState {
    pub mode: Mode,
    pub plan_file: Option<String>,
}

/// A mode change to announce (`mode_changed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModeChange {
    pub mode: Mode,
    pub plan_file: Option<String>,
}

impl ModeState {
    /// `set_mode` from the user: takes effect on the next tool call.
    pub fn set_mode(&mut self, mode: Mode) -> Option<ModeChange> {
        if self.mode == mode {
            return None;
        }
        self.mode = mode;
        Some(ModeChange {
            mode,
            plan_file: self.plan_file.clone(),
        })
    }

    /// `exitPlanMode`: the plan must exist (be the one written); switches to build.
    pub fn exit_plan_mode(
        &mut self,
        path: &str,
        plan: Option<&PlanDoc>,
    ) -> Result<ModeChange, String> {
        if !is_plan_path(path) {
            return Err(format!("{path:?} is not a plan file (/plans/<name>.plan)"));
        }
        match plan {
            Some(p) if p.path == path => {}
            _ => return Err(format!("plan file {path} does not exist")),
        }
        self.mode = Mode::Build;
        self.plan_file = Some(path.to_string());
        Ok(ModeChange {
            mode: Mode::Build,
            plan_file: Some(path.to_string()),
        })
    }
}

/// The requester's live AI mode, shared between the server (which flips it on `set_mode`) and a
/// running LLM loop (which reads it before every tool call, seed 002 §9's safety net).
#[derive(Debug, Clone, Default)]
pub struct LiveMode(Arc<AtomicBool>);

impl LiveMode {
    /// A live mode starting at `mode`.
    pub fn new(mode: Mode) -> Self {
        LiveMode(Arc::new(AtomicBool::new(mode == Mode::Plan)))
    }

    /// The current mode.
    pub fn get(&self) -> Mode {
        if self.0.load(Ordering::SeqCst) {
            Mode::Plan
        } else {
            Mode::Build
        }
    }

    /// Sets the mode (takes effect on the next tool call).
    pub fn set(&self, mode: Mode) {
        self.0.store(mode == Mode::Plan, Ordering::SeqCst);
    }
}

impl PartialEq for LiveMode {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}
