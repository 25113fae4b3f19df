//! `resolve(intent, &board, &ctx) -> Resolved`: the pure step that turns staged tool calls into
//! ops for `BoardState::apply`, run inside the board actor against the current board.
//!
//! Deterministic given its inputs (apart from fresh object ids), never panics, and its ops apply
//! cleanly: ids that vanished since the snapshot are skipped with a warning, never sent.

mod arrange;
mod batch;
mod edit;
mod entry;
mod group;
mod shadow;

use crate::intent::{Intent, StagedCall};
use layout::Rect;
use protocol::{Geo, Kind, ObjectId, OpInput, UserId, Viewport};
use serde::{Deserialize, Serialize};
use shadow::Shadow;

/// Gap kept between new objects and everything else (seed 001 AC-6).
pub const GAP: f64 = 20.0;

/// The viewport assumed when a request carries none.
pub const DEFAULT_VIEWPORT: Viewport = Viewport {
    x: 0.0,
    y: 0.0,
    w: 1600.0,
    h: 900.0,
};

/// Who asked and what they were looking at.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolveCtx {
    pub viewport: Option<Viewport>,
    pub selection: Vec<ObjectId>,
    pub requester: UserId,
}

impl ResolveCtx {
    /// The viewport as a layout rectangle (the default one when none was sent).
    pub fn viewport_rect(&self) -> Rect {
        let v = self.viewport.unwrap_or(DEFAULT_VIEWPORT);
        let ok = |n: f64, d: f64| if n.is_finite() { n } else { d };
        Rect::new(
            ok(v.x, 0.0),
            ok(v.y, 0.0),
            ok(v.w, 1600.0).max(1.0),
            ok(v.h, 900.0).max(1.0),
        )
    }
}

/// A created object, for the reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreatedInfo {
    pub id: ObjectId,
    pub kind: Kind,
    pub geo: Option<Geo>,
    /// A circle (ellipse with w = h) or a square (rectangle with w = h).
    pub equal_sides: bool,
    /// Palette name (never hex).
    pub color: String,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub text: String,
    /// Placed at coordinates the request gave.
    pub explicit_position: bool,
    /// Inside a frame of the batch.
    pub in_frame: bool,
}

/// What an edit changed, for the reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Change {
    Moved {
        dx: f64,
        dy: f64,
        x: f64,
        y: f64,
    },
    Resized {
        w: f64,
        h: f64,
        scale: Option<f64>,
    },
    Recolored {
        color: String,
    },
    Retexted {
        text: String,
    },
    Rotated {
        rotation: f64,
    },
    Reparented,
    /// Brought to the front (true) or sent to the back of the drawing order.
    Restacked {
        front: bool,
    },
    /// Moved forward (true) or back in the drawing order, relative to another object.
    Reordered {
        front: bool,
    },
    /// A shape's geometry changed (its new noun: "circle", "diamond", …).
    Reshaped {
        to: String,
    },
    /// A connector's arrowheads changed ("a line", "an arrow", "a double arrow").
    Restyled {
        to: String,
    },
}

/// An edited object, for the reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EditInfo {
    pub id: ObjectId,
    pub kind: Kind,
    pub geo: Option<Geo>,
    pub equal_sides: bool,
    /// Palette name of its color before the edit.
    pub color: String,
    pub changes: Vec<Change>,
}

/// Counts and descriptions of what a resolved intent does.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub created: Vec<CreatedInfo>,
    pub edited: Vec<EditInfo>,
    /// Objects deleted on request (cascades not counted).
    pub deleted: Vec<EditInfo>,
    pub duplicated: usize,
    /// Objects re-arranged by `layoutElements`, and the arrangement's name.
    pub arranged: Option<(usize, String)>,
    /// The template used by a batch (swot-2x2, columns, journey-stages).
    pub template: Option<String>,
    /// The batch title, if any.
    pub title: Option<String>,
    /// The structure a batch built, named for the reply ("a fishbone diagram").
    pub structure: Option<String>,
    /// A sentence the reply ends with.
    pub notice: Option<String>,
}

/// The outcome of [`resolve`].
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    /// Ops for one atomic `BoardState::apply`.
    pub ops: Vec<OpInput>,
    /// Ids of the objects the ops create, in creation order.
    pub created: Vec<ObjectId>,
    /// What was skipped and why (each names the ref or id).
    pub warnings: Vec<String>,
    pub summary: Summary,
}

/// Turns an intent into ops against `board`: refs mapped to fresh ids, skip rules of seed 000 R19,
/// layout directives, frame fitting, placement in open space near the viewport and collision
/// resolution with every existing object fixed.
pub fn resolve(intent: &Intent, board: &protocol::BoardState, ctx: &ResolveCtx) -> Resolved {
    let mut out = Resolved::default();
    let mut shadow = Shadow::new(board);
    for call in &intent.calls {
        match call {
            StagedCall::BatchOperations(b) => batch::resolve_batch(b, &mut shadow, ctx, &mut out),
            StagedCall::UpdateElements(u) => edit::resolve_updates(u, &mut shadow, &mut out),
            StagedCall::LayoutElements(l) => edit::resolve_layout(l, &mut shadow, &mut out),
            StagedCall::DeleteElements(d) => edit::resolve_delete(d, &mut shadow, &mut out),
            StagedCall::DuplicateElements(d) => {
                edit::resolve_duplicate(d, &mut shadow, ctx, &mut out)
            }
            StagedCall::GroupElements(g) => group::resolve_group(g, &mut shadow, &mut out),
        }
    }
    out
}

/// Checks a write call against the board: every id it names must exist (and be usable for what
/// the call does). `Err` carries the reason fed back to the model as `valid: false`.
pub fn validate_call(call: &StagedCall, board: &protocol::BoardState) -> Result<(), String> {
    let missing = |ids: &mut dyn Iterator<Item = &String>| -> Vec<String> {
        ids.filter(|id| board.get(id).is_none()).cloned().collect()
    };
    let unknown = match call {
        StagedCall::BatchOperations(b) => {
            let mut bad = Vec::new();
            for op in &b.operations {
                if let crate::schema::Operation::CreateConnector(c) = op {
                    for id in [&c.from_id, &c.to_id].into_iter().flatten() {
                        match board.get(id) {
                            None => bad.push(id.clone()),
                            Some(o) if o.kind == Kind::Connector => {
                                return Err(format!(
                                    "connector '{}' cannot be attached to connector {id}",
                                    c.r#ref.0
                                ));
                            }
                            Some(_) => {}
                        }
                    }
                }
            }
            bad
        }
        StagedCall::UpdateElements(u) => {
            let mut bad = missing(&mut u.updates.iter().map(|e| &e.id));
            for e in &u.updates {
                if let Some(p) = e.parent_id.as_deref().filter(|p| !p.is_empty()) {
                    match board.get(p) {
                        Some(f) if f.kind == Kind::Frame => {}
                        Some(_) => return Err(format!("parentId {p} is not a frame")),
                        None => bad.push(p.to_string()),
                    }
                }
                if let Some(s) = e.scale
                    && !(s.is_finite() && s > 0.0)
                {
                    return Err(format!("scale for {} must be a positive number", e.id));
                }
            }
            bad
        }
        StagedCall::LayoutElements(l) => missing(&mut l.ids.iter()),
        StagedCall::DeleteElements(d) => missing(&mut d.ids.iter()),
        StagedCall::DuplicateElements(d) => missing(&mut d.ids.iter()),
        StagedCall::GroupElements(g) => missing(&mut g.ids.iter()),
    };
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "not_found: no object with id {} on the board; use ids from the board state or getBoardState",
            unknown.join(", ")
        ))
    }
}
