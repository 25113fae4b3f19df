//! Importing a board file into a loaded board (EXPORT-8): the file's objects get fresh ids
//! (frame parents and connector ends follow), move together into open space beside what the
//! board holds, go on top, and are applied as ONE command by the importing user, so their undo
//! reverts the whole import; it is broadcast like any commit once durable.

use super::Board;
use actix::prelude::*;
use protocol::{
    EndpointInput, ErrorBody, ErrorCode, Kind, ObjectId, ObjectInput, OpInput, Origin, Seq, UserId,
    num::Num,
};
use std::collections::HashMap;
use std::time::Instant;

/// Space kept between the imported objects and those already on the board.
const GAP: f64 = 40.0;

/// Adds a file's objects to the board as one command by `user`.
#[derive(Message)]
#[rtype(result = "Result<Imported, ErrorBody>")]
pub struct Import {
    pub user: UserId,
    pub objects: Vec<ObjectInput>,
}

/// What an import did.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Imported {
    pub seq: Seq,
    /// The new ids, in the file's order (objects left out are not listed).
    pub created: Vec<ObjectId>,
    /// Connectors left out because an end was bound to an object the file does not hold.
    pub skipped: usize,
}

impl Handler<Import> for Board {
    type Result = Result<Imported, ErrorBody>;
    fn handle(&mut self, msg: Import, _ctx: &mut Context<Self>) -> Self::Result {
        self.admission()?;
        let (ops, created, skipped) = self.import_ops(msg.objects);
        if let Some(a) = self.unknown_asset(&ops) {
            return Err(ErrorBody::new(
                ErrorCode::Invalid,
                format!("picture {a:.64} is not uploaded to this board"),
            ));
        }
        if ops.is_empty() {
            return Err(ErrorBody::new(
                ErrorCode::Invalid,
                "the file holds no objects to import",
            ));
        }
        let seq = self.log.next_seq();
        let out = self
            .doc
            .apply(&ops, &msg.user, seq)
            .map_err(|e| ErrorBody::new(e.code(), e.to_string()))?;
        let changes: std::sync::Arc<[protocol::Change]> = out.changes.into();
        self.push_undo(&msg.user, seq, &changes);
        let recorded = self.record(
            &msg.user,
            Origin::User,
            out.ops,
            changes,
            None,
            None,
            Instant::now(),
        );
        Ok(Imported {
            seq: recorded,
            created,
            skipped,
        })
    }
}

impl Board {
    /// The create ops of an import (parents before children, connectors last), the new ids and
    /// the number of connectors left out.
    fn import_ops(&self, mut objects: Vec<ObjectInput>) -> (Vec<OpInput>, Vec<ObjectId>, usize) {
        // Fresh ids; the file's ids are only names inside the file.
        let ids: HashMap<String, ObjectId> = objects
            .iter()
            .filter_map(|o| o.id.as_ref())
            .map(|id| (id.as_str().to_owned(), ObjectId::random()))
            .collect();
        let fresh = |id: &Option<ObjectId>| {
            id.as_ref()
                .and_then(|i| ids.get(i.as_str()).cloned())
                .unwrap_or_else(ObjectId::random)
        };
        let bound_ok = |e: &Option<EndpointInput>| match e {
            Some(EndpointInput::Bound { id }) => ids.contains_key(id.as_str()),
            _ => true,
        };
        let before = objects.len();
        objects.retain(|o| o.kind != Kind::Connector || (bound_ok(&o.from) && bound_ok(&o.to)));
        let skipped = before - objects.len();
        let (dx, dy) = self.import_offset(&objects);
        let top = self.doc.objects().map(|o| o.z).max().unwrap_or(0);
        let mut created = Vec::with_capacity(objects.len());
        let mut inputs: Vec<ObjectInput> = Vec::with_capacity(objects.len());
        for (i, mut o) in objects.into_iter().enumerate() {
            let id = fresh(&o.id);
            created.push(id.clone());
            o.id = Some(id);
            o.parent = o.parent.as_ref().and_then(|p| ids.get(p.as_str()).cloned());
            o.z = Some(Num((top + 1 + i as i64) as f64));
            o.x = Some(Num(o.x.map_or(0.0, |n| n.0) + dx));
            o.y = Some(Num(o.y.map_or(0.0, |n| n.0) + dy));
            for end in [&mut o.from, &mut o.to] {
                *end = match end.take() {
                    Some(EndpointInput::Bound { id }) => ids
                        .get(id.as_str())
                        .map(|n| EndpointInput::Bound { id: n.clone() }),
                    Some(EndpointInput::Free { x, y }) => Some(EndpointInput::Free {
                        x: Num(x.0 + dx),
                        y: Num(y.0 + dy),
                    }),
                    None => None,
                };
            }
            inputs.push(o);
        }
        let ops = dependency_order(&inputs)
            .into_iter()
            .map(|i| OpInput::Create {
                object: inputs[i].clone(),
            })
            .collect();
        (ops, created, skipped)
    }

    /// How far the file's objects move so that, together, they sit in open space as near to
    /// where the file had them as can be (LAYOUT-9), `GAP` from everything on the board.
    fn import_offset(&self, objects: &[ObjectInput]) -> (f64, f64) {
        let rect = |o: &protocol::BoardObject| layout::Rect::new(o.x, o.y, o.w, o.h);
        let mut group: Option<layout::Rect> = None;
        for o in objects.iter().filter(|o| o.kind != Kind::Connector) {
            let r = rect(&o.normalize(ObjectId::random(), 0));
            group = Some(group.map_or(r, |g| g.union(&r)));
        }
        let Some(group) = group else {
            return (0.0, 0.0);
        };
        let existing: Vec<layout::Rect> = self
            .doc
            .objects()
            .filter(|o| o.kind != Kind::Connector)
            .map(rect)
            .collect();
        if existing.is_empty() {
            return (0.0, 0.0);
        }
        layout::place::place_group(&existing, group, group, GAP)
    }
}

/// Creation order: parents before children (frames may nest), connectors last. Returns
/// indexes; an object whose parent is missing or in a cycle comes after the rest (applying it
/// reports the error). Also the order of `POST /api/boards` imports.
pub(crate) fn dependency_order(inputs: &[ObjectInput]) -> Vec<usize> {
    let mut order = Vec::with_capacity(inputs.len());
    let mut placed = std::collections::HashSet::new();
    let mut left: Vec<usize> = (0..inputs.len())
        .filter(|&i| inputs[i].kind != Kind::Connector)
        .collect();
    loop {
        let before = left.len();
        left.retain(|&i| {
            let ready = inputs[i]
                .parent
                .as_ref()
                .is_none_or(|p| placed.contains(p.as_str()));
            if ready {
                order.push(i);
                if let Some(id) = &inputs[i].id {
                    placed.insert(id.as_str().to_owned());
                }
            }
            !ready
        });
        if left.is_empty() || left.len() == before {
            break;
        }
    }
    order.extend(left);
    order.extend((0..inputs.len()).filter(|&i| inputs[i].kind == Kind::Connector));
    order
}
