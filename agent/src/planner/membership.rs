//! Taking objects out of their frame: "take X out of the Ideas frame", "remove X from its frame",
//! "move the selection out of the frame". Each object leaves its frame and goes to the nearest
//! spot just outside it (`layout::arrange::take_out`); one `updateElements`.

use super::common::{Built, nf, update};
use super::phrase::target;
use super::syntax::{Command, Target};
use super::targets::{Miss, Scope, resolve_target};
use crate::intent::{Intent, StagedCall};
use crate::schema::{ElementUpdate, UpdateElements};
use layout::Rect;
use layout::arrange::{Obj, take_out};
use protocol::{BoardObject, Kind, ObjectId};

/// Verbs of taking something out.
const VERBS: &[&str] = &[
    "take", "move", "pull", "get", "drag", "remove", "bring", "lift", "put", "slide", "shift",
];

/// Words that name the object's own frame ("its frame", "the frame").
const OWN_FRAME: &[&str] = &[
    "its", "their", "the", "frame", "frames", "parent", "group", "this", "that",
];

/// Words after "from" that say it is a frame ("from the Done frame", "from its column").
const CONTAINERS: &[&str] = &["frame", "frames", "column", "section", "group", "lane"];

/// Reads "take X out of F" / "remove X from the F frame".
pub(super) fn parse(ws: &[String]) -> Option<Command> {
    let verb = ws.first()?;
    if !VERBS.contains(&verb.as_str()) {
        return None;
    }
    // "take Budget overrun out": out of its own frame.
    if ws.len() > 2 && ws.last().is_some_and(|w| w == "out") && !ws.contains(&"of".to_string()) {
        let subject = target(&ws[1..ws.len() - 1])?;
        return Some(Command::TakeOut(subject, None));
    }
    let (k, len) = ws
        .windows(2)
        .enumerate()
        .find_map(|(k, p)| (p[0] == "out" && p[1] == "of").then_some((k, 2)))
        .or_else(|| {
            let k = ws.iter().position(|w| w == "from")?;
            let frame_word = ws[k + 1..].iter().any(|w| CONTAINERS.contains(&w.as_str()));
            frame_word.then_some((k, 1))
        })?;
    let subject = &ws[1..k];
    let subject = match subject {
        [] => Target::Selection,
        ws => target(ws)?,
    };
    let rest = &ws[k + len..];
    if rest.is_empty() {
        return None;
    }
    let frame = if rest.iter().all(|w| OWN_FRAME.contains(&w.as_str())) {
        None
    } else {
        Some(Box::new(target(rest)?))
    };
    Some(Command::TakeOut(subject, frame))
}

/// Builds the moves out of the frame.
pub(super) fn build(t: &Target, frame: Option<&Target>, s: &Scope) -> Result<Built, Miss> {
    let ids = resolve_target(t, s)?;
    let only = match frame {
        Some(f) => Some(frame_of(f, s)?),
        None => None,
    };
    let mut updates = Vec::new();
    let mut targets: Vec<ObjectId> = Vec::new();
    for o in ids.iter().filter_map(|i| s.board.get(i.as_str())) {
        let Some(p) = o.parent.as_ref().and_then(|p| s.board.get(p.as_str())) else {
            continue;
        };
        if only.as_ref().is_some_and(|f| f != &p.id) {
            continue;
        }
        updates.push(out_of(o, p, s));
        targets.push(o.id.clone());
    }
    if updates.is_empty() {
        return nf("That is not in a frame.");
    }
    let intent = Intent::one(StagedCall::UpdateElements(UpdateElements { updates }));
    Ok((intent, targets, None))
}

/// The frame a description names.
fn frame_of(f: &Target, s: &Scope) -> Result<ObjectId, Miss> {
    let ids = resolve_target(f, s)?;
    ids.into_iter()
        .find(|i| {
            s.board
                .get(i.as_str())
                .is_some_and(|o| o.kind == Kind::Frame)
        })
        .map_or_else(|| nf("I couldn't find that frame on the board."), Ok)
}

/// `o` out of its frame `f`: just outside it, clear of the objects around it.
fn out_of(o: &BoardObject, f: &BoardObject, s: &Scope) -> ElementUpdate {
    let rect = |b: &BoardObject| Rect::new(b.x, b.y, b.w, b.h);
    let obstacles: Vec<Rect> = s
        .board
        .objects()
        .filter(|b| b.kind != Kind::Connector && b.parent.is_none())
        .filter(|b| b.id != f.id && b.id != o.id)
        .map(rect)
        .collect();
    let c = take_out(
        &Obj::new(o.id.as_str(), rect(o)),
        rect(f),
        &obstacles,
        crate::resolve::GAP,
    );
    ElementUpdate {
        x: c.x,
        y: c.y,
        parent_id: Some(String::new()),
        ..update(&o.id)
    }
}
