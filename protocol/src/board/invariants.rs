//! The document invariants, checked after every command in tests.

use super::*;

impl BoardState {
    /// Checks the document invariants: every parent is an existing frame with no cycles, every
    /// bound connector end exists and is not a connector, only connectors have ends, values are
    /// within their clamps, and the indexes agree with the objects.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut children: HashMap<ObjectId, BTreeSet<ObjectId>> = HashMap::new();
        let mut bound: HashMap<ObjectId, BTreeSet<ObjectId>> = HashMap::new();
        for (id, o) in &self.objects {
            if *id != o.id {
                return Err(format!("object stored under {id} has id {}", o.id));
            }
            if let Some(p) = &o.parent {
                match self.objects.get(p) {
                    Some(f) if f.kind == Kind::Frame => {}
                    Some(_) => return Err(format!("{id}: parent {p} is not a frame")),
                    None => return Err(format!("{id}: parent {p} does not exist")),
                }
                if self.is_self_or_ancestor(id, p) {
                    return Err(format!("{id}: parent cycle"));
                }
                children.entry(p.clone()).or_default().insert(id.clone());
            }
            if o.kind == Kind::Connector {
                for end in [&o.from, &o.to] {
                    match end {
                        None => return Err(format!("{id}: connector without an end")),
                        Some(Endpoint::Bound { id: t }) => {
                            match self.objects.get(t) {
                                None => {
                                    return Err(format!("{id}: connector end {t} does not exist"));
                                }
                                Some(e) if e.kind == Kind::Connector => {
                                    return Err(format!("{id}: connector end {t} is a connector"));
                                }
                                Some(_) => {}
                            }
                            bound.entry(t.clone()).or_default().insert(id.clone());
                        }
                        Some(Endpoint::Free { .. }) => {}
                    }
                }
            } else if o.from.is_some() || o.to.is_some() {
                return Err(format!("{id}: a {} has connector ends", o.kind.as_str()));
            }
            let ok = |v: f64, lo: f64, hi: f64| v.is_finite() && v >= lo && v <= hi;
            if !ok(o.w, 10.0, 5000.0) || !ok(o.h, 10.0, 5000.0) {
                return Err(format!("{id}: size out of range"));
            }
            if !ok(o.x, -50000.0, 50000.0) || !ok(o.y, -50000.0, 50000.0) {
                return Err(format!("{id}: position out of range"));
            }
        }
        if children != self.children {
            return Err("children index disagrees with objects".into());
        }
        if bound != self.bound {
            return Err("connector index disagrees with objects".into());
        }
        Ok(())
    }
}
