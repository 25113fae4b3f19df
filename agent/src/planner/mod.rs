//! The offline planner (DESIGN §7): a deterministic grammar for everyday commands, so the product
//! works with no LLM. [`lang`](crate::lang) reads words (typos, numbers, filler), [`parse`] turns text
//! into a [`parse::Command`], [`targets`] finds the objects it means, [`question`] answers board
//! questions, and this module builds the intent, asking first when a reference is ambiguous or
//! the command would delete or overwrite others' work or many objects.

mod aside;
mod asking;
mod build;
mod common;
mod connectors;
mod create;
mod edits;
mod fit;
mod membership;
mod motion;
pub mod parse;
mod phrase;
pub mod pictures;
mod placing;
pub mod question;
pub mod relative;
mod sequence;
mod series;
pub mod syntax;
pub mod targets;
mod textedit;
mod tidy;

use crate::intent::Intent;
use crate::schema::{AskUser, Button, Question};
use parse::{Command, Target};
use protocol::{BoardObject, ObjectId};
use serde_json::{Value, json};
use targets::{Miss, Scope, ids_in};

/// What the planner made of a command.
#[derive(Debug, Clone, PartialEq)]
pub enum Planned {
    /// A ready intent, and the existing objects it acts on (for session memory).
    Intent {
        intent: Intent,
        targets: Vec<ObjectId>,
    },
    /// Understood, but the objects it names could not be found.
    Clarify {
        message: String,
        suggestions: Vec<String>,
    },
    /// A question back to the user before acting: which object, or confirm a destructive command.
    /// The answers come back typed, in the next request's `answers` (`Scope::answers`).
    Ask { message: String, ask: AskUser },
    /// A question about the board, answered; nothing changes.
    Answer { message: String },
}

/// Most objects a command may delete or overwrite without a confirmation.
pub const CONFIRM_OVER: usize = 20;

/// Plans a command, or `None` when the grammar does not understand it.
pub fn plan(text: &str, scope: &Scope) -> Option<Planned> {
    crate::lang::forget();
    let text: &str = &crate::lang::lex::expand(text);
    let s = scope;
    if s.answers.get("confirm") == Some(&Value::Bool(false)) {
        return Some(Planned::Answer {
            message: "Cancelled; nothing was changed.".into(),
        });
    }
    if pictures::asks_upload(text) {
        return Some(uploaded_only());
    }
    // Ids written in the command take precedence over any description: the parser sees "this"
    // in their place, and the ids replace whatever target it found.
    let ids = ids_in(text, s.board);
    let mut masked = text.to_string();
    for id in &ids {
        masked = masked.replace(id.as_str(), " this ");
    }
    let mut cmd = match textedit::read(&masked, s) {
        Some(c) => c,
        None => read(&masked)?,
    };
    if !ids.is_empty() {
        let as_target = Target::Ids(ids.iter().map(|i| i.to_string()).collect());
        if let Some(t) = cmd.target_mut() {
            *t = as_target;
        } else if let Command::Connect(a, b, _) = &mut cmd
            && ids.len() >= 2
        {
            *a = Target::Ids(vec![ids[0].to_string()]);
            *b = Some(Target::Ids(vec![ids[1].to_string()]));
        }
    }
    if pictures::creates_picture(&cmd) {
        return Some(uploaded_only());
    }
    fit::fit_command(&mut cmd, s);
    if let Command::Ask(q) = &cmd {
        return Some(match question::answer(q, s) {
            Ok(message) => Planned::Answer { message },
            Err(message) => Planned::Clarify {
                message,
                suggestions: suggestions(s),
            },
        });
    }
    Some(match build::build(cmd, s) {
        Ok((intent, _, _)) if intent.is_empty() => Planned::Answer {
            message: "Nothing to change: they are already that way.".into(),
        },
        Ok((intent, targets, touched)) => match confirmation(&touched, s) {
            Some(ask) => ask,
            None => Planned::Intent { intent, targets },
        },
        Err(Miss::NotFound(message)) => Planned::Clarify {
            message,
            suggestions: suggestions(s),
        },
        Err(m @ Miss::Ambiguous { .. }) => which(&m, s),
    })
}

/// The answer to a request for a new picture: nothing changes, and the reply says how
/// pictures are added.
fn uploaded_only() -> Planned {
    Planned::Answer {
        message: pictures::UPLOAD_ONLY.into(),
    }
}

/// Parses a command; an aside at its end ("…, we don't need them", "… so we can start afresh")
/// is left out unless the command creates (a create's content may say anything); a wish that
/// objects be gone ("I want the notes gone") deletes them.
fn read(text: &str) -> Option<Command> {
    let cut = aside::without_aside(text);
    if let Some(cut) = &cut
        && let Some(cmd) = parse::parse(cut)
        && !matches!(cmd, Command::Create(_) | Command::Creates(_))
    {
        return Some(cmd);
    }
    parse::parse(text)
        .or_else(|| parse::parse(&aside::wished_gone(cut.as_deref().unwrap_or(text))?))
        .or_else(|| parse::parse(after_label(text)?))
}

/// "seating plan: 2 rows of 3 notes", "for the desks, 3 rows of 4 notes": what a short label
/// before a colon or a comma introduces, when the whole does not parse.
fn after_label(text: &str) -> Option<&str> {
    let i = text.find([':', ','])?;
    let (head, tail) = (&text[..i], text[i + 1..].trim());
    let short = head.split_whitespace().count() <= 4;
    let verb = crate::lang::lexicon::canonical(head)
        .iter()
        .any(|w| crate::lang::verbs::verb(w).is_some());
    (short && !verb && !tail.is_empty()).then_some(tail)
}

/// "Which one do you mean?" with the candidates as buttons (value: the object's id).
fn which(m: &Miss, s: &Scope) -> Planned {
    let Miss::Ambiguous { ids, .. } = m else {
        return Planned::Clarify {
            message: m.message(),
            suggestions: suggestions(s),
        };
    };
    let objs: Vec<&BoardObject> = ids.iter().filter_map(|i| s.board.get(i.as_str())).collect();
    let mut buttons: Vec<Button> = Vec::new();
    for (k, o) in objs.iter().enumerate() {
        let mut label = targets::label(o);
        if buttons.iter().any(|b| b.label == label) {
            label = format!("{label} #{}", k + 1);
        }
        buttons.push(Button {
            label,
            value: Value::String(o.id.to_string()),
            variant: Some("secondary".into()),
        });
    }
    let ids: Vec<Value> = objs.iter().map(|o| json!(o.id.as_str())).collect();
    let message = m.message();
    Planned::Ask {
        ask: AskUser {
            questions: vec![Question {
                name: "which".into(),
                question: message.clone(),
                schema: json!({"type": "string", "enum": ids}),
                buttons: Some(buttons),
            }],
        },
        message,
    }
}

/// Objects a command deletes or overwrites, with what happens to them.
pub(crate) struct Touched {
    pub ids: Vec<ObjectId>,
    pub verb: &'static str,
}

/// A Confirm / Cancel question when a command deletes or overwrites objects created by other
/// people, or more than [`CONFIRM_OVER`] objects, and the user has not confirmed yet.
fn confirmation(touched: &Option<Touched>, s: &Scope) -> Option<Planned> {
    let t = touched.as_ref()?;
    if s.answers.get("confirm") == Some(&Value::Bool(true)) {
        return None;
    }
    let mut all: Vec<&BoardObject> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<ObjectId> = t.ids.clone();
    while let Some(id) = stack.pop() {
        if !seen.insert(id.clone()) {
            continue;
        }
        if let Some(o) = s.board.get(id.as_str()) {
            all.push(o);
            if t.verb == "delete" {
                stack.extend(s.board.children_of(id.as_str()).cloned());
            }
        }
    }
    let others = all
        .iter()
        .filter(|o| {
            o.created_by
                .as_ref()
                .is_some_and(|c| s.requester.is_some_and(|r| r != c))
        })
        .count();
    if others == 0 && all.len() <= CONFIRM_OVER {
        return None;
    }
    let n = all.len();
    let mut message = format!(
        "This will {} {n} object{}",
        t.verb,
        if n == 1 { "" } else { "s" }
    );
    if others > 0 {
        message.push_str(&format!(
            ", {others} of {} created by other people",
            if others == 1 { "it" } else { "them" }
        ));
    }
    message.push_str(". Proceed?");
    Some(Planned::Ask {
        ask: AskUser {
            questions: vec![Question {
                name: "confirm".into(),
                question: message.clone(),
                schema: json!({"type": "boolean"}),
                buttons: Some(vec![
                    Button {
                        label: "Confirm".into(),
                        value: Value::Bool(true),
                        variant: Some("danger".into()),
                    },
                    Button {
                        label: "Cancel".into(),
                        value: Value::Bool(false),
                        variant: Some("secondary".into()),
                    },
                ]),
            }],
        },
        message,
    })
}

/// Example commands offered when the planner cannot help.
pub fn suggestions(scope: &Scope) -> Vec<String> {
    let mut s = vec![
        "Create a yellow note that says \"Hello\"".to_string(),
        "Create a SWOT analysis".to_string(),
    ];
    if !scope.selection.is_empty() {
        s.push("Arrange these in a grid".into());
    } else if !scope.board.is_empty() {
        s.push("Move the blue square to the right".into());
    }
    s
}
