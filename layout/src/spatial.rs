//! A small spatial index over rectangles (an `rstar` R*-tree) with gap-aware queries.

use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{AABB, RTree};

use crate::geom::Rect;

type Entry = GeomWithData<Rectangle<[f64; 2]>, usize>;

fn entry(r: &Rect, id: usize) -> Entry {
    GeomWithData::new(
        Rectangle::from_corners([r.x, r.y], [r.right(), r.bottom()]),
        id,
    )
}

/// Rectangles with caller-chosen ids, queried by "what is closer than `gap` to this box".
#[derive(Debug, Default)]
pub struct SpatialIndex {
    tree: RTree<Entry>,
    rects: Vec<Option<Rect>>,
}

impl SpatialIndex {
    /// Bulk-loads the rectangles; rectangle `i` gets id `i`.
    pub fn new(rects: &[Rect]) -> Self {
        let entries = rects.iter().enumerate().map(|(i, r)| entry(r, i)).collect();
        Self {
            tree: RTree::bulk_load(entries),
            rects: rects.iter().copied().map(Some).collect(),
        }
    }

    /// Number of rectangles in the index.
    pub fn len(&self) -> usize {
        self.tree.size()
    }

    /// Whether the index holds nothing.
    pub fn is_empty(&self) -> bool {
        self.tree.size() == 0
    }

    /// Adds a rectangle under `id` (replacing any rectangle already stored under that id).
    pub fn insert(&mut self, id: usize, r: Rect) {
        self.remove(id);
        if self.rects.len() <= id {
            self.rects.resize(id + 1, None);
        }
        self.rects[id] = Some(r);
        self.tree.insert(entry(&r, id));
    }

    /// Removes the rectangle stored under `id`, if any.
    pub fn remove(&mut self, id: usize) {
        if let Some(Some(r)) = self.rects.get(id).copied() {
            self.tree.remove(&entry(&r, id));
            self.rects[id] = None;
        }
    }

    /// The rectangle stored under `id`.
    pub fn get(&self, id: usize) -> Option<Rect> {
        self.rects.get(id).copied().flatten()
    }

    /// Ids of the rectangles closer than `gap` to `r` (overlapping ones included), in id order.
    pub fn near(&self, r: &Rect, gap: f64) -> Vec<usize> {
        let q = r.inflated(gap.max(0.0));
        let env = AABB::from_corners([q.x, q.y], [q.right(), q.bottom()]);
        let mut out: Vec<usize> = self
            .tree
            .locate_in_envelope_intersecting(env)
            .map(|e| e.data)
            .filter(|&id| self.get(id).is_some_and(|o| o.intersects_with_gap(r, gap)))
            .collect();
        out.sort_unstable();
        out
    }

    /// The first id (lowest) closer than `gap` to `r`, skipping `skip`.
    pub fn first_blocker(&self, r: &Rect, gap: f64, skip: Option<usize>) -> Option<usize> {
        let q = r.inflated(gap.max(0.0));
        let env = AABB::from_corners([q.x, q.y], [q.right(), q.bottom()]);
        self.tree
            .locate_in_envelope_intersecting(env)
            .map(|e| e.data)
            .filter(|&id| Some(id) != skip)
            .filter(|&id| self.get(id).is_some_and(|o| o.intersects_with_gap(r, gap)))
            .min()
    }

    /// The bounding box of everything stored.
    pub fn bounds(&self) -> Option<Rect> {
        Rect::union_all(self.rects.iter().flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_respects_gap() {
        let mut idx = SpatialIndex::new(&[Rect::new(0.0, 0.0, 10.0, 10.0)]);
        let probe = Rect::new(25.0, 0.0, 10.0, 10.0);
        assert!(idx.near(&probe, 10.0).is_empty());
        assert_eq!(idx.near(&probe, 20.0), vec![0]);
        idx.insert(3, Rect::new(30.0, 0.0, 1.0, 1.0));
        assert_eq!(idx.near(&probe, 1.0), vec![3]);
        idx.remove(3);
        assert!(idx.near(&probe, 1.0).is_empty());
        assert_eq!(idx.len(), 1);
    }
}
