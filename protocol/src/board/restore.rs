//! Restoring a board to an earlier state (HIST-5): one command that turns the current objects
//! into the target's, ids kept. Its changes are ordered so that one undo (`revert_undo`, which
//! walks them newest first) brings the current state back exactly.

use super::*;

impl BoardState {
    /// Makes the board hold exactly `target` (a state this board had; references inside it are
    /// consistent): objects created since are deleted, changed ones get the target's values, and
    /// deleted ones come back with their ids. The order is creations (frames before their
    /// children, connectors last), then updates, then deletions (connectors first, children
    /// before their frames): every op refers only to objects that exist when it applies, and the
    /// reverse order is the one undo needs (deleted objects come back before the updates that
    /// point at them are reverted). Never fails; an empty outcome means nothing differs.
    pub fn restore(&mut self, target: &[BoardObject], seq: Seq) -> Outcome {
        let mut out = Outcome::default();
        let wanted: HashMap<&ObjectId, &BoardObject> = target.iter().map(|o| (&o.id, o)).collect();
        let depth = |o: &BoardObject| {
            let mut d = 0usize;
            let mut p = o.parent.as_ref();
            while let Some(id) = p {
                d += 1;
                if d > wanted.len() {
                    break;
                }
                p = wanted.get(id).and_then(|f| f.parent.as_ref());
            }
            d
        };
        // Creations and updates, non-connectors by depth (frames first), connectors after.
        let mut todo: Vec<&BoardObject> = target.iter().collect();
        todo.sort_by_key(|o| (o.kind == Kind::Connector, depth(o)));
        let (creates, updates): (Vec<&BoardObject>, Vec<&BoardObject>) = todo
            .into_iter()
            .partition(|o| !self.objects.contains_key(&o.id));
        for o in creates {
            let mut r = o.clone();
            r.version = seq;
            self.put(r.clone());
            out.ops.push(Op::Create { object: r.clone() });
            out.changes.push(Change::Created(r));
        }
        for o in updates {
            let Some(cur) = self.objects.get(&o.id).cloned() else {
                continue;
            };
            if same(&cur, o) {
                continue;
            }
            let mut after = o.clone();
            after.version = seq;
            match full_patch(&cur, o) {
                Some(set) => {
                    self.put(after.clone());
                    out.ops.push(Op::Update {
                        id: o.id.clone(),
                        set,
                    });
                    out.changes.push(Change::Updated { before: cur, after });
                }
                // A change an update cannot express (another kind, a property cleared): the
                // object is replaced in place, without the cascades of a delete.
                None => {
                    self.take(&cur.id);
                    out.ops.push(Op::Delete { id: cur.id.clone() });
                    out.changes.push(Change::Deleted(cur));
                    self.put(after.clone());
                    out.ops.push(Op::Create {
                        object: after.clone(),
                    });
                    out.changes.push(Change::Created(after));
                }
            }
        }
        // Deletions: connectors first, then the deepest objects first.
        let mut gone: Vec<(bool, usize, ObjectId)> = self
            .objects
            .values()
            .filter(|o| !wanted.contains_key(&o.id))
            .map(|o| (o.kind != Kind::Connector, self.depth(o), o.id.clone()))
            .collect();
        gone.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        for (_, _, id) in gone {
            if let Some(o) = self.take(&id) {
                out.ops.push(Op::Delete { id });
                out.changes.push(Change::Deleted(o));
            }
        }
        out
    }

    /// How many frames hold `o`, on the current board.
    fn depth(&self, o: &BoardObject) -> usize {
        let mut d = 0usize;
        let mut p = o.parent.as_ref();
        while let Some(id) = p {
            d += 1;
            if d > self.objects.len() {
                break;
            }
            p = self.objects.get(id).and_then(|f| f.parent.as_ref());
        }
        d
    }
}

/// Equal in everything an update can change (`version` is bookkeeping).
fn same(a: &BoardObject, b: &BoardObject) -> bool {
    a.kind == b.kind && Field::diff(a, b).is_empty()
}

/// The update that turns `cur` into `target`, or `None` when an update cannot express it.
fn full_patch(cur: &BoardObject, target: &BoardObject) -> Option<Patch> {
    if cur.kind != target.kind || cur.created_by != target.created_by {
        return None;
    }
    let mut p = Patch::default();
    for (_, after) in Field::diff(cur, target) {
        match after {
            Field::X(v) => p.x = Some(v),
            Field::Y(v) => p.y = Some(v),
            Field::W(v) => p.w = Some(v),
            Field::H(v) => p.h = Some(v),
            Field::Rotation(v) => p.rotation = Some(v),
            Field::Z(v) => p.z = Some(v),
            Field::Parent(v) => p.parent = Some(v),
            Field::Text(v) => p.text = Some(v),
            Field::Color(v) => p.color = Some(v),
            Field::Geo(v) => p.geo = Some(v?),
            Field::From(v) => p.from = Some(v?),
            Field::To(v) => p.to = Some(v?),
            Field::Arrow(v) => p.arrow = Some(v?),
            Field::Asset(v) => p.asset = Some(v?),
            Field::Alt(v) => p.alt = Some(v),
            Field::Crop(v) => p.crop = Some(v),
        }
    }
    Some(p)
}
