//! The inverse of a command, as undo and redo apply it: never fails, never overwrites a later
//! change by anyone (UNDO-2), skips objects deleted since and drops references to them (UNDO-3).

use super::*;

impl BoardState {
    /// Applies the inverse of `changes` as a new command (undo, and redo of an undo). Never fails:
    /// properties someone changed since are left as they are, objects someone deleted since are
    /// skipped, and references to objects that no longer exist are dropped.
    pub fn revert(&mut self, changes: &[Change], seq: Seq) -> Outcome {
        self.revert_undo(&UndoChange::compact(changes), seq)
    }

    /// [`BoardState::revert`] of the compact form undo history keeps.
    pub fn revert_undo(&mut self, changes: &[UndoChange], seq: Seq) -> Outcome {
        let mut out = Outcome::default();
        let mut deleted_here = HashSet::new();
        for c in changes.iter().rev() {
            match c {
                UndoChange::Created(id) => self.revert_create(id, seq, &mut out, &mut deleted_here),
                UndoChange::Updated { id, fields } => {
                    let Some(cur) = self.objects.get(id) else {
                        continue;
                    };
                    // The command's before and after, on top of the current object: properties
                    // it did not change are equal in both, so the revert leaves them alone.
                    let (mut before, mut after) = (cur.clone(), cur.clone());
                    for (b, a) in fields.iter() {
                        b.set_on(&mut before);
                        a.set_on(&mut after);
                    }
                    let mut patch = Patch::revert(&before, &after, cur);
                    if let Some(Some(p)) = &patch.parent {
                        let ok = self.objects.get(p).is_some_and(|f| f.kind == Kind::Frame)
                            && !self.is_self_or_ancestor(id, p);
                        if !ok {
                            patch.parent = None;
                        }
                    }
                    if self.dangling(&patch.from) {
                        patch.from = None;
                    }
                    if self.dangling(&patch.to) {
                        patch.to = None;
                    }
                    if patch.is_empty() {
                        continue;
                    }
                    let b = cur.clone();
                    let mut a = cur.clone();
                    patch.apply_to(&mut a);
                    a.version = seq;
                    self.replace(b, a, patch, false, seq, &mut out);
                }
                UndoChange::Deleted(o) => {
                    if self.objects.contains_key(&o.id) {
                        continue;
                    }
                    if self.dangling(&o.from) || self.dangling(&o.to) {
                        continue;
                    }
                    let mut r = BoardObject::clone(o);
                    if let Some(p) = &r.parent
                        && !self.objects.get(p).is_some_and(|f| f.kind == Kind::Frame)
                    {
                        r.parent = None;
                    }
                    r.version = seq;
                    self.put(r.clone());
                    out.ops.push(Op::Create { object: r.clone() });
                    out.changes.push(Change::Created(r));
                }
            }
        }
        out
    }

    /// True when `end` is bound to an object that no longer exists, or whose id now names a
    /// connector (an end is never a connector, and deletes do not cascade along such a binding).
    fn dangling(&self, end: &Option<Endpoint>) -> bool {
        end.as_ref().and_then(Endpoint::bound_id).is_some_and(|t| {
            self.objects
                .get(t)
                .is_none_or(|o| o.kind == Kind::Connector)
        })
    }

    /// Undoing a create removes the object; children that others put into it since are moved out
    /// (to its parent) rather than deleted with it.
    fn revert_create(
        &mut self,
        id: &ObjectId,
        seq: Seq,
        out: &mut Outcome,
        deleted_here: &mut HashSet<ObjectId>,
    ) {
        let Some(obj) = self.objects.get(id) else {
            return;
        };
        let new_parent = obj.parent.clone();
        let kids: Vec<ObjectId> = self.children_of(id.as_str()).cloned().collect();
        for k in kids {
            if let Some(b) = self.objects.get(&k).cloned() {
                let mut a = b.clone();
                a.parent = new_parent.clone();
                a.version = seq;
                let set = Patch {
                    parent: Some(new_parent.clone()),
                    ..Patch::default()
                };
                self.replace(b, a, set, false, seq, out);
            }
        }
        // Cannot fail: the object exists (checked above).
        let _ = self.delete(id, out, deleted_here);
    }
}
