//! Collision post-processor: pushes an AI batch (movable objects) apart and off existing
//! objects (fixed, never moved) until every pair is at least `gap` apart (AC-6).
//!
//! Units move as a whole: a movable frame with all its descendants, and everything that shares
//! a group id (a diagram) with it. Containment is not a collision: a child is never pushed away
//! from its own frame. The work goes inside out:
//! 1. inside every movable frame (innermost first), the children (each with its own
//!    descendants) are pushed apart from each other, then the frame grows to contain them;
//! 2. the top-level units are pushed apart from the fixed objects and from each other, at most
//!    `max_iterations` times, through an R*-tree; a unit still in conflict afterwards is
//!    relocated to the nearest open space.

mod separate;

use serde::{Deserialize, Serialize};

use crate::geom::Rect;
use separate::separate;

/// Padding kept between a frame's border and children it had to grow around.
pub const FRAME_GROW_PADDING: f64 = 20.0;

/// An object of the batch that may move.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Movable {
    /// Where it is (updated in place).
    pub rect: Rect,
    /// Index (into the same movable slice) of the frame that contains it.
    pub parent: Option<usize>,
    /// Objects sharing a group id move together (a diagram, a template).
    pub group: Option<u64>,
    /// Index (into the fixed slice) of an existing frame this top-level object is being put
    /// into: that frame is not an obstacle for it (its other contents still are). It is not
    /// grown, so an object with no room inside may end up outside it.
    #[serde(default)]
    pub fixed_parent: Option<usize>,
}

impl Movable {
    /// A free-standing movable object.
    pub fn new(rect: Rect) -> Self {
        Self {
            rect,
            parent: None,
            group: None,
            fixed_parent: None,
        }
    }

    /// The same object inside the movable frame at index `parent`.
    pub fn in_frame(mut self, parent: usize) -> Self {
        self.parent = Some(parent);
        self
    }

    /// The same object put into the existing (fixed) frame at index `frame`.
    pub fn in_fixed_frame(mut self, frame: usize) -> Self {
        self.fixed_parent = Some(frame);
        self
    }

    /// The same object in group `group`.
    pub fn in_group(mut self, group: u64) -> Self {
        self.group = Some(group);
        self
    }
}

/// Settings of [`resolve`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Options {
    /// Minimum distance between objects (20 px).
    pub gap: f64,
    /// Push iterations per stage (30).
    pub max_iterations: usize,
    /// Relocate units that pushing could not clear (true).
    pub relocate: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            gap: 20.0,
            max_iterations: 30,
            relocate: true,
        }
    }
}

/// What [`resolve`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Report {
    /// Push iterations of the top-level stage (at most `max_iterations`).
    pub iterations: usize,
    /// Largest number of push iterations used inside one frame.
    pub inner_iterations: usize,
    /// Whether every pair that must be `gap` apart is.
    pub clear: bool,
    /// Units (top-level or inside a frame) relocated to open space.
    pub relocated: usize,
    /// Movable objects whose rectangle changed.
    pub moved: usize,
}

/// Parent links with invalid indices, self references and cycles removed.
fn clean_parents(movable: &[Movable]) -> Vec<Option<usize>> {
    let n = movable.len();
    let mut parent: Vec<Option<usize>> = movable
        .iter()
        .enumerate()
        .map(|(i, m)| m.parent.filter(|&p| p < n && p != i))
        .collect();
    for i in 0..n {
        let mut seen = 0;
        let mut a = parent[i];
        while let Some(p) = a {
            seen += 1;
            if p == i || seen > n {
                parent[i] = None;
                break;
            }
            a = parent[p];
        }
    }
    parent
}

/// Moves every member of unit `k` by how far its box moved from `start[k]` to `now[k]`.
fn shift_members(movable: &mut [Movable], units: &[Vec<usize>], start: &[Rect], now: &[Rect]) {
    for ((m, b), s0) in units.iter().zip(now).zip(start) {
        let (dx, dy) = (b.x - s0.x, b.y - s0.y);
        if dx != 0.0 || dy != 0.0 {
            m.iter()
                .for_each(|&i| movable[i].rect = movable[i].rect.translated(dx, dy));
        }
    }
}

/// Resolves collisions of `movable` among themselves and against `fixed` (LAYOUT-10,
/// LAYOUT-11). Fixed rectangles are never moved; movable ones are updated in place.
/// Degenerate input (NaN, negative sizes, bad parent indices, parent cycles) never panics:
/// rectangles are sanitised and bad links ignored.
pub fn resolve(fixed: &[Rect], movable: &mut [Movable], opts: Options) -> Report {
    let gap = if opts.gap.is_finite() {
        opts.gap.max(0.0)
    } else {
        20.0
    };
    let fixed: Vec<Rect> = fixed.iter().map(Rect::sanitized).collect();
    let before: Vec<Rect> = movable.iter().map(|m| m.rect).collect();
    for m in movable.iter_mut() {
        m.rect = m.rect.sanitized();
    }
    let n = movable.len();
    let parent = clean_parents(movable);
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = *p {
            children[p].push(i);
        }
    }
    let depth: Vec<usize> = (0..n)
        .map(|i| {
            let (mut d, mut a) = (0, parent[i]);
            while let Some(p) = a {
                d += 1;
                a = parent[p];
            }
            d
        })
        .collect();
    let subtree = |root: usize| -> Vec<usize> {
        let mut out = Vec::new();
        let mut st = vec![root];
        while let Some(v) = st.pop() {
            out.push(v);
            st.extend(children[v].iter().copied());
        }
        out
    };
    let mut report = Report::default();
    let mut inner_clear = true;

    // 1. Inside frames, innermost first.
    let mut frames: Vec<usize> = (0..n).filter(|&i| !children[i].is_empty()).collect();
    frames.sort_by(|&a, &b| depth[b].cmp(&depth[a]).then(a.cmp(&b)));
    for &f in &frames {
        let members: Vec<Vec<usize>> = children[f].iter().map(|&c| subtree(c)).collect();
        let mut boxes: Vec<Rect> = members
            .iter()
            .map(|m| Rect::union_all(m.iter().map(|&i| &movable[i].rect)).unwrap_or_default())
            .collect();
        let start = boxes.clone();
        let s = separate(&[], &[], &mut boxes, gap, opts.max_iterations, true);
        report.inner_iterations = report.inner_iterations.max(s.iterations);
        report.relocated += s.relocated;
        shift_members(movable, &members, &start, &boxes);
        inner_clear &= s.clear;
        // Grow the frame around its children.
        if let Some(kids) = Rect::union_all(&boxes) {
            let fr = movable[f].rect;
            if !fr.contains(&kids) {
                let need = kids.inflated(FRAME_GROW_PADDING);
                let need = Rect::new(
                    need.x,
                    need.y.min(fr.y),
                    need.w,
                    need.bottom() - need.y.min(fr.y),
                );
                movable[f].rect = fr.union(&need);
            }
        }
    }

    // 2. Top-level units: roots joined by shared group ids (union-find).
    let top = |mut i: usize| {
        while let Some(p) = parent[i] {
            i = p;
        }
        i
    };
    let mut uf: Vec<usize> = (0..n).collect();
    fn find(uf: &mut [usize], mut x: usize) -> usize {
        while uf[x] != x {
            uf[x] = uf[uf[x]];
            x = uf[x];
        }
        x
    }
    let mut group_first: std::collections::HashMap<u64, usize> = Default::default();
    for (i, m) in movable.iter().enumerate() {
        if let Some(g) = m.group {
            let r = top(i);
            let first = *group_first.entry(g).or_insert(r);
            let (a, b) = (find(&mut uf, r), find(&mut uf, first));
            if a != b {
                uf[a.max(b)] = a.min(b);
            }
        }
    }
    let mut unit_id = vec![usize::MAX; n];
    let mut units: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        let rep = find(&mut uf, top(i));
        if unit_id[rep] == usize::MAX {
            unit_id[rep] = units.len();
            units.push(Vec::new());
        }
        units[unit_id[rep]].push(i);
    }
    // Inside a unit of several roots (a group), the roots' subtrees are pushed apart first.
    for unit in &units {
        let roots: Vec<usize> = unit
            .iter()
            .copied()
            .filter(|&i| parent[i].is_none())
            .collect();
        if roots.len() < 2 {
            continue;
        }
        let members: Vec<Vec<usize>> = roots.iter().map(|&r| subtree(r)).collect();
        let mut boxes: Vec<Rect> = members
            .iter()
            .map(|m| Rect::union_all(m.iter().map(|&i| &movable[i].rect)).unwrap_or_default())
            .collect();
        let start = boxes.clone();
        let s = separate(&[], &[], &mut boxes, gap, opts.max_iterations, true);
        report.inner_iterations = report.inner_iterations.max(s.iterations);
        report.relocated += s.relocated;
        shift_members(movable, &members, &start, &boxes);
        inner_clear &= s.clear;
    }
    let mut boxes: Vec<Rect> = units
        .iter()
        .map(|m| Rect::union_all(m.iter().map(|&i| &movable[i].rect)).unwrap_or_default())
        .collect();
    let start = boxes.clone();
    let ignore: Vec<Option<usize>> = units
        .iter()
        .map(|m| {
            m.iter()
                .find_map(|&i| movable[i].fixed_parent.filter(|&f| f < fixed.len()))
        })
        .collect();
    let s = separate(
        &fixed,
        &ignore,
        &mut boxes,
        gap,
        opts.max_iterations,
        opts.relocate,
    );
    report.iterations = s.iterations;
    report.relocated += s.relocated;
    shift_members(movable, &units, &start, &boxes);
    report.clear = inner_clear && s.clear;
    report.moved = movable
        .iter()
        .zip(&before)
        .filter(|(m, b)| m.rect != **b)
        .count();
    report
}
