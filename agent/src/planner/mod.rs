//! The offline planner (DESIGN §7): a deterministic parser for everyday commands, so the product
//! works with no LLM. `parse` turns text into a [`parse::Command`], `targets` finds the objects
//! it means, and this module builds the intent.

mod create;
pub mod parse;
pub mod targets;
pub mod vocab;

use crate::intent::{Intent, StagedCall};
use crate::schema::{
    BatchOperations, CreateConnector, CreateFrame, CreateNote, CreateShape, CreateText,
    DeleteElements, DuplicateElements, ElementUpdate, Geometry, LayoutElements, Operation, Ref,
    UpdateElements,
};
use parse::{Command, CreateSpec, MoveSpec, SizeSpec, Target};
use protocol::{Kind, ObjectId};
use targets::{Scope, ids_in, resolve_target};

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
}

/// Plans a command, or `None` when the parser does not understand it.
pub fn plan(text: &str, scope: &Scope) -> Option<Planned> {
    // Ids written in the command take precedence over any description: the parser sees "this"
    // in their place, and the ids replace whatever target it found.
    let ids = ids_in(text, scope.board);
    let mut masked = text.to_string();
    for id in &ids {
        masked = masked.replace(id.as_str(), " this ");
    }
    let mut cmd = parse::parse(&masked)?;
    if !ids.is_empty() {
        let as_target = Target::Ids(ids.iter().map(|i| i.to_string()).collect());
        match &mut cmd {
            Command::Move(t, _)
            | Command::Resize(t, _)
            | Command::Recolor(t, _)
            | Command::Retext(t, _)
            | Command::Delete(t)
            | Command::Duplicate(t)
            | Command::Arrange(t, _) => *t = as_target,
            Command::Connect(a, b) if ids.len() >= 2 => {
                *a = Target::Ids(vec![ids[0].to_string()]);
                *b = Some(Target::Ids(vec![ids[1].to_string()]));
            }
            _ => {}
        }
    }
    Some(match build(cmd, scope) {
        Ok((intent, targets)) => Planned::Intent { intent, targets },
        Err(message) => Planned::Clarify {
            message,
            suggestions: suggestions(scope),
        },
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

fn update(id: &ObjectId) -> ElementUpdate {
    ElementUpdate {
        id: id.to_string(),
        ..ElementUpdate::default()
    }
}

fn updates(ids: &[ObjectId], f: impl Fn(&ObjectId, &mut ElementUpdate)) -> Intent {
    Intent::one(StagedCall::UpdateElements(UpdateElements {
        updates: ids
            .iter()
            .map(|id| {
                let mut u = update(id);
                f(id, &mut u);
                u
            })
            .collect(),
    }))
}

fn build(cmd: Command, s: &Scope) -> Result<(Intent, Vec<ObjectId>), String> {
    let ids = |t: &Target| resolve_target(t, s);
    Ok(match cmd {
        Command::Create(spec) => (create(&spec), Vec::new()),
        Command::Move(t, m) => {
            let ids = ids(&t)?;
            let intent = match m {
                MoveSpec::By(dx, dy) => updates(&ids, |_, u| {
                    u.dx = (dx != 0.0).then_some(dx);
                    u.dy = (dy != 0.0).then_some(dy);
                }),
                MoveSpec::To(x, y) => {
                    // The group's top-left corner goes to (x, y); each object keeps its offset.
                    let objs: Vec<_> = ids.iter().filter_map(|i| s.board.get(i.as_str())).collect();
                    let x0 = objs.iter().map(|o| o.x).fold(f64::INFINITY, f64::min);
                    let y0 = objs.iter().map(|o| o.y).fold(f64::INFINITY, f64::min);
                    updates(&ids, |id, u| {
                        if let Some(o) = s.board.get(id.as_str()) {
                            u.x = Some(x + (o.x - x0));
                            u.y = Some(y + (o.y - y0));
                        }
                    })
                }
            };
            (intent, ids)
        }
        Command::Resize(t, spec) => {
            let ids = ids(&t)?;
            let intent = updates(&ids, |_, u| match spec {
                SizeSpec::Scale(f) => u.scale = Some(f),
                SizeSpec::To(w, h) => {
                    u.w = w;
                    u.h = h;
                }
            });
            (intent, ids)
        }
        Command::Recolor(t, c) => {
            let ids = ids(&t)?;
            (updates(&ids, |_, u| u.color = Some(c.to_string())), ids)
        }
        Command::Retext(t, text) => {
            let ids = ids(&t)?;
            (updates(&ids, |_, u| u.text = Some(text.clone())), ids)
        }
        Command::Delete(t) => {
            let ids = ids(&t)?;
            let intent = Intent::one(StagedCall::DeleteElements(DeleteElements {
                ids: ids.iter().map(|i| i.to_string()).collect(),
            }));
            (intent, Vec::new())
        }
        Command::Duplicate(t) => {
            let ids = ids(&t)?;
            let intent = Intent::one(StagedCall::DuplicateElements(DuplicateElements {
                ids: ids.iter().map(|i| i.to_string()).collect(),
                dx: None,
                dy: None,
            }));
            (intent, ids)
        }
        Command::Arrange(t, layout) => {
            let ids = ids(&t)?;
            if ids.len() < 2 {
                return Err("Select two or more objects to arrange.".into());
            }
            let intent = Intent::one(StagedCall::LayoutElements(LayoutElements {
                ids: ids.iter().map(|i| i.to_string()).collect(),
                layout,
                spacing: None,
            }));
            (intent, ids)
        }
        Command::Connect(a, b) => {
            let mut chain = ids(&a)?;
            if let Some(b) = b {
                chain.truncate(1);
                chain.extend(ids(&b)?.into_iter().take(1));
            } else {
                // A chain in reading order (left to right, then top to bottom).
                chain.sort_by(|p, q| {
                    let (p, q) = (s.board.get(p.as_str()), s.board.get(q.as_str()));
                    let k =
                        |o: Option<&protocol::BoardObject>| o.map_or((0.0, 0.0), |o| (o.x, o.y));
                    k(p).0.total_cmp(&k(q).0).then(k(p).1.total_cmp(&k(q).1))
                });
            }
            chain.retain(|i| {
                s.board
                    .get(i.as_str())
                    .is_some_and(|o| o.kind != Kind::Connector)
            });
            chain.dedup();
            if chain.len() < 2 {
                return Err("I need two objects to connect. Select them or describe both (e.g. \"connect the red circle to the blue square\").".into());
            }
            let ops = chain
                .windows(2)
                .enumerate()
                .map(|(i, w)| {
                    Operation::CreateConnector(CreateConnector {
                        r#ref: Ref(format!("conn_{}", i + 1)),
                        from_ref: None,
                        to_ref: None,
                        from_id: Some(w[0].to_string()),
                        to_id: Some(w[1].to_string()),
                        label: None,
                        color: None,
                        arrow: None,
                    })
                })
                .take(crate::schema::MAX_OPERATIONS)
                .collect();
            let intent = Intent::one(StagedCall::BatchOperations(BatchOperations {
                operations: ops,
                layout_directive: None,
                title: None,
            }));
            (intent, chain)
        }
    })
}

fn create(spec: &CreateSpec) -> Intent {
    let k = spec.kind;
    let color = spec.color.map(str::to_string);
    let ops = (0..spec.count)
        .map(|i| {
            let r = Ref(format!("{}_{}", k.kind.as_str(), i + 1));
            let text = spec.texts.get(i).cloned();
            let mut geometry = Geometry::default();
            if let Some((w, h)) = spec.size {
                geometry.w = Some(w);
                geometry.h = Some(h);
            }
            if let Some((x, y)) = spec.at {
                let step = spec.size.map_or(200.0, |s| s.0) + 40.0;
                geometry.x = Some(x + step * i as f64);
                geometry.y = Some(y);
            }
            match k.kind {
                Kind::Frame => Operation::CreateFrame(CreateFrame {
                    r#ref: r,
                    name: text.unwrap_or_else(|| "Frame".into()),
                    color: color.clone(),
                    parent_ref: None,
                    geometry,
                }),
                Kind::Text => Operation::CreateText(CreateText {
                    r#ref: r,
                    text: text.unwrap_or_else(|| "Text".into()),
                    color: color.clone(),
                    parent_ref: None,
                    geometry,
                }),
                Kind::Shape => Operation::CreateShape(CreateShape {
                    r#ref: r,
                    geo: k.geo_name.map(str::to_string),
                    text,
                    color: color.clone(),
                    parent_ref: None,
                    geometry,
                }),
                Kind::Note | Kind::Connector => Operation::CreateNote(CreateNote {
                    r#ref: r,
                    text: text.unwrap_or_default(),
                    color: color.clone(),
                    parent_ref: None,
                    geometry,
                }),
            }
        })
        .collect();
    Intent::one(StagedCall::BatchOperations(BatchOperations {
        operations: ops,
        layout_directive: spec.layout,
        title: None,
    }))
}
