//! The board as it will be after the ops staged so far: the snapshot plus an overlay of created
//! and updated objects and a set of deleted ids. Later calls of one intent see earlier ones.

use layout::Rect;
use protocol::{BoardObject, BoardState, Kind, ObjectId};
use std::collections::{HashMap, HashSet};

pub(crate) struct Shadow<'a> {
    pub board: &'a BoardState,
    overlay: HashMap<ObjectId, BoardObject>,
    deleted: HashSet<ObjectId>,
}

pub(crate) fn rect_of(o: &BoardObject) -> Rect {
    Rect::new(o.x, o.y, o.w, o.h)
}

impl<'a> Shadow<'a> {
    pub fn new(board: &'a BoardState) -> Self {
        Shadow {
            board,
            overlay: HashMap::new(),
            deleted: HashSet::new(),
        }
    }

    /// The object as it will be, unless deleted.
    pub fn get(&self, id: &str) -> Option<&BoardObject> {
        if self.deleted.contains(id) {
            return None;
        }
        self.overlay.get(id).or_else(|| self.board.get(id))
    }

    /// Records a created or updated object.
    pub fn put(&mut self, o: BoardObject) {
        self.deleted.remove(&o.id);
        self.overlay.insert(o.id.clone(), o);
    }

    fn children(&self, id: &str) -> Vec<ObjectId> {
        let mut out: Vec<ObjectId> = self
            .board
            .children_of(id)
            .filter(|c| {
                self.get(c.as_str())
                    .is_some_and(|o| o.parent.as_ref().map(|p| p.as_str()) == Some(id))
            })
            .cloned()
            .collect();
        out.extend(
            self.overlay
                .values()
                .filter(|o| {
                    o.parent.as_ref().map(|p| p.as_str()) == Some(id)
                        && self.board.get(o.id.as_str()).is_none()
                })
                .map(|o| o.id.clone()),
        );
        out
    }

    /// True when `id` is `frame` or holds it (a frame on its chain of parents, as the batch leaves
    /// them): putting `id` inside `frame` would make a circle.
    pub fn holds(&self, id: &ObjectId, frame: &ObjectId) -> bool {
        let mut cur = Some(frame.clone());
        for _ in 0..=self.board.len() + self.overlay.len() {
            match cur {
                Some(c) if c == *id => return true,
                Some(c) => cur = self.get(c.as_str()).and_then(|o| o.parent.clone()),
                None => return false,
            }
        }
        true
    }

    /// Every live descendant of a frame.
    pub fn descendants(&self, id: &str) -> Vec<ObjectId> {
        let mut out = Vec::new();
        let mut stack = vec![id.to_string()];
        let mut seen = HashSet::new();
        while let Some(cur) = stack.pop() {
            for c in self.children(&cur) {
                if seen.insert(c.clone()) {
                    stack.push(c.to_string());
                    out.push(c);
                }
            }
        }
        out
    }

    fn bound_connectors(&self, id: &str) -> Vec<ObjectId> {
        let mut out: Vec<ObjectId> = self.board.connectors_of(id).cloned().collect();
        out.extend(
            self.overlay
                .values()
                .filter(|o| {
                    o.kind == Kind::Connector
                        && [&o.from, &o.to]
                            .into_iter()
                            .flatten()
                            .any(|e| e.bound_id().map(|b| b.as_str()) == Some(id))
                })
                .map(|o| o.id.clone()),
        );
        out
    }

    /// Marks an object deleted with what the board cascades: descendants and bound connectors.
    pub fn delete(&mut self, id: &ObjectId) {
        let mut doomed = vec![id.clone()];
        doomed.extend(self.descendants(id.as_str()));
        let mut conns = Vec::new();
        for d in &doomed {
            conns.extend(self.bound_connectors(d.as_str()));
        }
        for d in doomed.into_iter().chain(conns) {
            self.overlay.remove(&d);
            self.deleted.insert(d);
        }
    }

    /// Rectangles of every live non-connector object (the obstacles new objects must clear).
    pub fn obstacles(&self) -> Vec<Rect> {
        let mut rects = Vec::with_capacity(self.board.len() + self.overlay.len());
        self.each_obstacle(|r, _| rects.push(r));
        rects
    }

    /// [`Shadow::obstacles`] with their ids.
    pub fn obstacles_with_ids(&self) -> (Vec<Rect>, Vec<ObjectId>) {
        let mut rects = Vec::with_capacity(self.board.len() + self.overlay.len());
        let mut ids = Vec::with_capacity(rects.capacity());
        self.each_obstacle(|r, id| {
            rects.push(r);
            ids.push(id.clone());
        });
        (rects, ids)
    }

    fn each_obstacle(&self, mut f: impl FnMut(Rect, &ObjectId)) {
        let check_overlay = !self.overlay.is_empty() || !self.deleted.is_empty();
        for o in self.board.objects() {
            if o.kind == Kind::Connector || check_overlay && self.deleted.contains(&o.id) {
                continue;
            }
            let o = if check_overlay {
                self.overlay.get(&o.id).unwrap_or(o)
            } else {
                o
            };
            f(rect_of(o), &o.id);
        }
        for o in self.overlay.values() {
            if o.kind != Kind::Connector && self.board.get(o.id.as_str()).is_none() {
                f(rect_of(o), &o.id);
            }
        }
    }
}

/// Collision resolution against the obstacles near the batch only (fast on big boards), falling
/// back to every obstacle when the batch ended up beyond that neighbourhood.
pub(crate) fn resolve_near(fixed: &[Rect], movables: &mut [layout::Movable]) {
    let Some(b) = Rect::union_all(movables.iter().map(|m| &m.rect).collect::<Vec<_>>()) else {
        return;
    };
    let start: Vec<layout::Movable> = movables.to_vec();
    let margin = 2.0 * b.w.max(b.h) + 1000.0;
    let region = b.inflated(margin);
    let near: Vec<Rect> = fixed
        .iter()
        .filter(|r| r.intersects(&region))
        .copied()
        .collect();
    if near.len() == fixed.len() {
        layout::resolve(fixed, movables, layout::Options::default());
        return;
    }
    layout::resolve(&near, movables, layout::Options::default());
    let after = Rect::union_all(movables.iter().map(|m| &m.rect).collect::<Vec<_>>());
    let safe = region.inflated(-super::GAP - 1.0);
    if after.is_some_and(|a| safe.contains(&a)) {
        return;
    }
    movables.copy_from_slice(&start);
    layout::resolve(fixed, movables, layout::Options::default());
}

/// Open-space placement of `group` near `viewport` (LAYOUT's `place_group`), searching among the
/// obstacles around the viewport first and over the whole board only when the spot found lies
/// beyond that neighbourhood.
pub(crate) fn place_near(fixed: &[Rect], group: Rect, viewport: Rect) -> (f64, f64) {
    let margin = 2.0 * group.w.max(group.h).max(viewport.w).max(viewport.h);
    let region = viewport.inflated(margin);
    let near: Vec<Rect> = fixed
        .iter()
        .filter(|r| r.intersects(&region))
        .copied()
        .collect();
    if near.len() < fixed.len() {
        let (dx, dy) = layout::place::place_group(&near, group, viewport, super::GAP);
        let safe = region.inflated(-super::GAP - 1.0);
        if safe.contains(&group.translated(dx, dy)) {
            return (dx, dy);
        }
    }
    layout::place::place_group(fixed, group, viewport, super::GAP)
}
