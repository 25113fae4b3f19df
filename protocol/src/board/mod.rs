//! The authoritative board document: atomic application of ops, cascades, and the inverse used by
//! undo and redo. Pure: no I/O, no clock, no randomness except server-assigned object ids.

use crate::ids::{ObjectId, Seq, UserId};
use crate::model::{BoardObject, Endpoint, Field, Kind, Patch};
use crate::num::clamp_coord;
use crate::ops::{Op, OpInput};
use std::collections::{BTreeSet, HashMap, HashSet};

mod invariants;
mod restore;
mod revert;

/// Default cap on objects per board.
pub const DEFAULT_MAX_OBJECTS: usize = 10_000;

/// Why a commit was refused. Nothing of it was applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApplyError {
    #[error("no object with id {0}")]
    NotFound(ObjectId),
    #[error("{0}")]
    Invalid(String),
    #[error("the board already holds its maximum of {0} objects")]
    TooManyObjects(usize),
}

impl ApplyError {
    /// The stable wire code.
    pub fn code(&self) -> crate::ErrorCode {
        match self {
            ApplyError::NotFound(_) => crate::ErrorCode::NotFound,
            ApplyError::Invalid(_) => crate::ErrorCode::Invalid,
            ApplyError::TooManyObjects(_) => crate::ErrorCode::LimitExceeded,
        }
    }
}

/// One change to one object, with what it was before: enough to roll back or to revert.
// Variants are full objects on purpose: a change is kept whole for undo.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Created(BoardObject),
    Updated {
        before: BoardObject,
        after: BoardObject,
    },
    Deleted(BoardObject),
}

/// A command's changes as undo history keeps them, with just what [`BoardState::revert_undo`]
/// needs: a creation keeps the id, an update the properties it changed (before and after), a
/// deletion the whole object (to bring it back). A move is a few dozen bytes instead of two
/// whole objects, which matters with a hundred entries per user and thousands of users.
#[derive(Debug, Clone, PartialEq)]
pub enum UndoChange {
    Created(ObjectId),
    Updated {
        id: ObjectId,
        fields: Box<[(Field, Field)]>,
    },
    Deleted(Box<BoardObject>),
}

impl UndoChange {
    /// The compact form of `changes`.
    pub fn compact(changes: &[Change]) -> Box<[UndoChange]> {
        changes
            .iter()
            .map(|c| match c {
                Change::Created(o) => UndoChange::Created(o.id.clone()),
                Change::Updated { before, after } => UndoChange::Updated {
                    id: after.id.clone(),
                    fields: Field::diff(before, after).into_boxed_slice(),
                },
                Change::Deleted(o) => UndoChange::Deleted(Box::new(o.clone())),
            })
            .collect()
    }
}

/// What an applied command did: the normalized ops to broadcast and the changes behind them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub ops: Vec<Op>,
    pub changes: Vec<Change>,
}

impl Outcome {
    /// True when the command changed nothing.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Ids of the objects this command created.
    pub fn created_ids(&self) -> Vec<ObjectId> {
        self.changes
            .iter()
            .filter_map(|c| match c {
                Change::Created(o) => Some(o.id.clone()),
                _ => None,
            })
            .collect()
    }
}

/// The objects of one board and the indexes that keep cascades cheap.
#[derive(Debug, Clone)]
pub struct BoardState {
    objects: HashMap<ObjectId, BoardObject>,
    /// frame → its direct children.
    children: HashMap<ObjectId, BTreeSet<ObjectId>>,
    /// object → connectors bound to it.
    bound: HashMap<ObjectId, BTreeSet<ObjectId>>,
    max_z: i64,
    /// Cap on objects; a create beyond it is refused with `limit_exceeded`.
    pub max_objects: usize,
}

impl Default for BoardState {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_OBJECTS)
    }
}

impl BoardState {
    /// An empty board.
    pub fn new(max_objects: usize) -> Self {
        BoardState {
            objects: HashMap::new(),
            children: HashMap::new(),
            bound: HashMap::new(),
            max_z: 0,
            max_objects,
        }
    }

    /// A board holding `objects` (a snapshot). References to missing objects are dropped so the
    /// invariants hold whatever the snapshot says.
    pub fn from_objects(
        objects: impl IntoIterator<Item = BoardObject>,
        max_objects: usize,
    ) -> Self {
        let mut b = Self::new(max_objects);
        for o in objects {
            b.put(o);
        }
        let dangling: Vec<ObjectId> = b
            .objects
            .values()
            .filter(|o| o.references().any(|r| !b.objects.contains_key(r)))
            .map(|o| o.id.clone())
            .collect();
        for id in dangling {
            if let Some(mut o) = b.objects.get(&id).cloned() {
                if o.kind == Kind::Connector {
                    b.take(&id);
                    continue;
                }
                o.parent = None;
                b.put(o);
            }
        }
        b
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// True when the board is empty.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// One object.
    pub fn get(&self, id: &str) -> Option<&BoardObject> {
        self.objects.get(id)
    }

    /// All objects, in no particular order.
    pub fn objects(&self) -> impl Iterator<Item = &BoardObject> {
        self.objects.values()
    }

    /// All objects ordered by z, then id: the order a `welcome` lists them in.
    pub fn sorted_objects(&self) -> Vec<&BoardObject> {
        let mut v: Vec<&BoardObject> = self.objects.values().collect();
        v.sort_by(|a, b| a.z.cmp(&b.z).then_with(|| a.id.cmp(&b.id)));
        v
    }

    /// Direct children of a frame.
    pub fn children_of(&self, id: &str) -> impl Iterator<Item = &ObjectId> {
        self.children.get(id).into_iter().flatten()
    }

    /// Connectors bound to an object.
    pub fn connectors_of(&self, id: &str) -> impl Iterator<Item = &ObjectId> {
        self.bound.get(id).into_iter().flatten()
    }

    fn put(&mut self, o: BoardObject) {
        if let Some(old) = self.objects.remove(&o.id) {
            self.unindex(&old);
        }
        self.index(&o);
        self.max_z = self.max_z.max(o.z);
        self.objects.insert(o.id.clone(), o);
    }

    fn take(&mut self, id: &ObjectId) -> Option<BoardObject> {
        let old = self.objects.remove(id)?;
        self.unindex(&old);
        Some(old)
    }

    fn index(&mut self, o: &BoardObject) {
        if let Some(p) = &o.parent {
            self.children
                .entry(p.clone())
                .or_default()
                .insert(o.id.clone());
        }
        for end in [&o.from, &o.to].into_iter().flatten() {
            if let Some(t) = end.bound_id() {
                self.bound
                    .entry(t.clone())
                    .or_default()
                    .insert(o.id.clone());
            }
        }
    }

    fn unindex(&mut self, o: &BoardObject) {
        fn drop_from(
            map: &mut HashMap<ObjectId, BTreeSet<ObjectId>>,
            key: &ObjectId,
            id: &ObjectId,
        ) {
            if let Some(set) = map.get_mut(key) {
                set.remove(id);
                if set.is_empty() {
                    map.remove(key);
                }
            }
        }
        if let Some(p) = &o.parent {
            drop_from(&mut self.children, p, &o.id);
        }
        for end in [&o.from, &o.to].into_iter().flatten() {
            if let Some(t) = end.bound_id() {
                drop_from(&mut self.bound, t, &o.id);
            }
        }
    }

    /// Applies a commit atomically: every op applies, or none does and the board is unchanged.
    pub fn apply(
        &mut self,
        ops: &[OpInput],
        author: &UserId,
        seq: Seq,
    ) -> Result<Outcome, ApplyError> {
        let mut out = Outcome::default();
        let mut deleted_here = HashSet::new();
        for op in ops {
            let step = match op {
                OpInput::Create { object } => self.create(object, author, seq, &mut out),
                OpInput::Update { id, set } => self.update(id, set, seq, &mut out),
                OpInput::Delete { id } => {
                    if !self.objects.contains_key(id) && deleted_here.contains(id) {
                        // Already removed by a cascade earlier in this commit.
                        Ok(())
                    } else {
                        self.delete(id, &mut out, &mut deleted_here)
                    }
                }
            };
            if let Err(e) = step {
                self.rollback(&out.changes);
                return Err(e);
            }
        }
        Ok(out)
    }

    /// Restores the exact state before `changes` (newest first). Used to undo a commit that
    /// failed part-way and, by the server, commands the store could not make durable.
    pub fn rollback(&mut self, changes: &[Change]) {
        for c in changes.iter().rev() {
            match c {
                Change::Created(o) => {
                    self.take(&o.id);
                }
                Change::Updated { before, .. } => self.put(before.clone()),
                Change::Deleted(o) => self.put(o.clone()),
            }
        }
    }

    fn create(
        &mut self,
        input: &crate::model::ObjectInput,
        author: &UserId,
        seq: Seq,
        out: &mut Outcome,
    ) -> Result<(), ApplyError> {
        let id = match &input.id {
            Some(id) if self.objects.contains_key(id) => {
                return Err(ApplyError::Invalid(format!("object {id} already exists")));
            }
            Some(id) => id.clone(),
            None => ObjectId::random(),
        };
        if self.objects.len() >= self.max_objects {
            return Err(ApplyError::TooManyObjects(self.max_objects));
        }
        let mut o = input.normalize(id, self.max_z.saturating_add(1));
        self.check_shape(&o)?;
        self.check_refs(&o)?;
        o.created_by = Some(author.clone());
        o.version = seq;
        self.put(o.clone());
        out.ops.push(Op::Create { object: o.clone() });
        out.changes.push(Change::Created(o));
        Ok(())
    }

    fn check_shape(&self, o: &BoardObject) -> Result<(), ApplyError> {
        let is_conn = o.kind == Kind::Connector;
        if is_conn && (o.from.is_none() || o.to.is_none()) {
            return Err(ApplyError::Invalid(format!(
                "connector {} needs both `from` and `to`",
                o.id
            )));
        }
        if !is_conn && (o.from.is_some() || o.to.is_some() || o.arrow.is_some()) {
            return Err(ApplyError::Invalid(format!(
                "only connectors have `from`, `to` and `arrow` ({} is a {})",
                o.id,
                o.kind.as_str()
            )));
        }
        if o.kind == Kind::Image && !o.asset.as_deref().is_some_and(crate::model::is_asset_name) {
            return Err(ApplyError::Invalid(format!(
                "image {} needs `asset`: the SHA-256 (64 lowercase hex) of an uploaded picture",
                o.id
            )));
        }
        if o.kind != Kind::Image && (o.asset.is_some() || !o.alt.is_empty() || o.crop.is_some()) {
            return Err(ApplyError::Invalid(format!(
                "only images have `asset`, `alt` and `crop` ({} is a {})",
                o.id,
                o.kind.as_str()
            )));
        }
        if o.kind != Kind::Shape && o.geo.is_some() {
            return Err(ApplyError::Invalid(format!(
                "only shapes have `geo` ({} is a {})",
                o.id,
                o.kind.as_str()
            )));
        }
        Ok(())
    }

    /// Parent must be an existing frame that is not the object or one of its descendants; bound
    /// connector ends must be existing non-connector objects other than the connector itself.
    fn check_refs(&self, o: &BoardObject) -> Result<(), ApplyError> {
        if let Some(p) = &o.parent {
            let frame = self
                .objects
                .get(p)
                .ok_or_else(|| ApplyError::NotFound(p.clone()))?;
            if frame.kind != Kind::Frame {
                return Err(ApplyError::Invalid(format!("parent {p} is not a frame")));
            }
            if self.is_self_or_ancestor(&o.id, p) {
                return Err(ApplyError::Invalid(format!(
                    "{} cannot be placed inside itself",
                    o.id
                )));
            }
        }
        for end in [&o.from, &o.to].into_iter().flatten() {
            if let Some(t) = end.bound_id() {
                let target = self
                    .objects
                    .get(t)
                    .ok_or_else(|| ApplyError::NotFound(t.clone()))?;
                if target.kind == Kind::Connector || *t == o.id {
                    return Err(ApplyError::Invalid(format!(
                        "a connector cannot be bound to connector {t}"
                    )));
                }
            }
        }
        Ok(())
    }

    /// True when `id` is `start` or one of `start`'s ancestors.
    pub fn is_self_or_ancestor(&self, id: &ObjectId, start: &ObjectId) -> bool {
        let mut cur = Some(start);
        let mut hops = 0;
        while let Some(c) = cur {
            if c == id {
                return true;
            }
            hops += 1;
            if hops > self.objects.len() {
                return true;
            }
            cur = self.objects.get(c).and_then(|o| o.parent.as_ref());
        }
        false
    }

    fn update(
        &mut self,
        id: &ObjectId,
        input: &crate::model::PatchInput,
        seq: Seq,
        out: &mut Outcome,
    ) -> Result<(), ApplyError> {
        let cur = self
            .objects
            .get(id)
            .ok_or_else(|| ApplyError::NotFound(id.clone()))?;
        let patch = input.normalize(cur.kind);
        if patch.is_empty() {
            return Err(ApplyError::Invalid(format!("update of {id} sets nothing")));
        }
        let before = cur.clone();
        let mut after = cur.clone();
        patch.apply_to(&mut after);
        after.version = seq;
        self.check_shape(&after)?;
        self.check_refs(&after)?;
        self.replace(before, after, patch, true, seq, out);
        Ok(())
    }

    /// Writes `after`, records it, and (when `carry`) moves a frame's descendants by the same
    /// offset in the same command.
    fn replace(
        &mut self,
        before: BoardObject,
        after: BoardObject,
        patch: Patch,
        carry: bool,
        seq: Seq,
        out: &mut Outcome,
    ) {
        let (dx, dy) = (after.x - before.x, after.y - before.y);
        let id = after.id.clone();
        let is_frame = after.kind == Kind::Frame;
        self.put(after.clone());
        out.ops.push(Op::Update {
            id: id.clone(),
            set: patch,
        });
        out.changes.push(Change::Updated { before, after });
        if carry && is_frame && (dx != 0.0 || dy != 0.0) {
            for d in self.descendants(&id) {
                let Some(b) = self.objects.get(&d).cloned() else {
                    continue;
                };
                let mut a = b.clone();
                a.x = clamp_coord(b.x + dx);
                a.y = clamp_coord(b.y + dy);
                a.version = seq;
                let set = Patch {
                    x: Some(a.x),
                    y: Some(a.y),
                    ..Patch::default()
                };
                self.put(a.clone());
                out.ops.push(Op::Update { id: d, set });
                out.changes.push(Change::Updated {
                    before: b,
                    after: a,
                });
            }
        }
    }

    /// Descendants of a frame, parents before their children.
    fn descendants(&self, id: &ObjectId) -> Vec<ObjectId> {
        let mut out = Vec::new();
        let mut queue = vec![id.clone()];
        let mut seen = HashSet::new();
        while let Some(cur) = queue.pop() {
            for c in self.children_of(cur.as_str()) {
                if seen.insert(c.clone()) {
                    out.push(c.clone());
                    queue.push(c.clone());
                }
            }
        }
        out
    }

    fn delete(
        &mut self,
        id: &ObjectId,
        out: &mut Outcome,
        deleted_here: &mut HashSet<ObjectId>,
    ) -> Result<(), ApplyError> {
        if !self.objects.contains_key(id) {
            return Err(ApplyError::NotFound(id.clone()));
        }
        // The object and its descendants, deepest last in `descendants`, so reverse it to remove
        // children before their frames.
        let mut victims = self.descendants(id);
        victims.reverse();
        victims.push(id.clone());
        let victim_set: HashSet<&ObjectId> = victims.iter().collect();
        let mut connectors: BTreeSet<ObjectId> = BTreeSet::new();
        for v in &victims {
            for c in self.connectors_of(v.as_str()) {
                if !victim_set.contains(c) {
                    connectors.insert(c.clone());
                }
            }
        }
        // Connectors among the victims go first too (they have no children): undo restores in
        // reverse order, and a connector restored before the object it is bound to is skipped.
        let (inner, victims): (Vec<ObjectId>, Vec<ObjectId>) = victims.into_iter().partition(|v| {
            self.objects
                .get(v)
                .is_some_and(|o| o.kind == Kind::Connector)
        });
        for v in connectors.into_iter().chain(inner).chain(victims) {
            if let Some(o) = self.take(&v) {
                out.ops.push(Op::Delete { id: v.clone() });
                out.changes.push(Change::Deleted(o));
                deleted_here.insert(v);
            }
        }
        Ok(())
    }

    /// Applies normalized ops literally, as a client mirror or a log replay does: no validation,
    /// no cascades (an `applied` already lists derived changes). Updates and deletes of missing
    /// objects are ignored.
    pub fn replay(&mut self, ops: &[Op], seq: Seq) {
        for op in ops {
            match op {
                Op::Create { object } => self.put(object.clone()),
                Op::Update { id, set } => {
                    if let Some(mut o) = self.objects.get(id).cloned() {
                        set.apply_to(&mut o);
                        o.version = seq;
                        self.put(o);
                    }
                }
                Op::Delete { id } => {
                    self.take(id);
                }
            }
        }
    }
}
