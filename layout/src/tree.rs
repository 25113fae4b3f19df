//! Tidy tree layout (Reingold-Tilford with contours): org charts top-down and mind maps with
//! subtrees to the right and left of a central root.

use std::collections::VecDeque;

use crate::directives::{Arrangement, Edge, Node, TreeStyle, clean_spacing, index_edges};
use crate::geom::Rect;

/// Contour of a subtree: per depth level the (left, right) extent, stored relative to `offset`.
struct Contour {
    levels: VecDeque<(f64, f64)>,
    offset: f64,
}

impl Contour {
    fn get(&self, l: usize) -> (f64, f64) {
        let (a, b) = self.levels[l];
        (a + self.offset, b + self.offset)
    }
}

/// A tidy tree of the nodes (LAYOUT-12). The first edge into a node makes its parent (edges that
/// would close a cycle, self loops and duplicates are drawn but do not shape the tree); nodes
/// without a parent are roots. `OrgChart`: generations in rows top-down, every parent centred
/// over its children, subtrees packed as close as `spacing` allows, several roots side by side.
/// `MindMap`: each root in the centre of its own map, its subtrees split (in order, balanced by
/// size) to the right and to the left, generations in columns.
pub fn tree(nodes: &[Node], edges: &[Edge], style: TreeStyle, spacing: f64) -> Arrangement {
    let gap = clean_spacing(spacing);
    let n = nodes.len();
    let idx = index_edges(nodes, edges);
    let mut parent: Vec<Option<usize>> = vec![None; n];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(u, v) in &idx {
        if u == v || parent[v].is_some() {
            continue;
        }
        // Would v become its own ancestor?
        let mut a = Some(u);
        let mut cyclic = false;
        while let Some(p) = a {
            if p == v {
                cyclic = true;
                break;
            }
            a = parent[p];
        }
        if !cyclic {
            parent[v] = Some(u);
            children[u].push(v);
        }
    }
    // Re-layouts keep the current order of siblings.
    let along = |i: usize| -> Option<f64> {
        let c = nodes[i].current_center()?;
        Some(if style == TreeStyle::OrgChart {
            c.0
        } else {
            c.1
        })
    };
    for ch in &mut children {
        if ch.iter().all(|&c| along(c).is_some()) {
            ch.sort_by(|&a, &b| {
                along(a)
                    .unwrap_or(0.0)
                    .total_cmp(&along(b).unwrap_or(0.0))
                    .then(a.cmp(&b))
            });
        }
    }
    let roots: Vec<usize> = (0..n).filter(|&v| parent[v].is_none()).collect();
    let sizes: Vec<(f64, f64)> = nodes.iter().map(Node::size).collect();
    let rects = match style {
        TreeStyle::OrgChart => {
            let bd: Vec<(f64, f64)> = sizes.clone();
            let (b, d) = tidy(&roots, &children, &bd, gap, gap * 1.5);
            (0..n)
                .map(|v| Rect::centered(b[v], d[v], sizes[v].0, sizes[v].1))
                .collect()
        }
        TreeStyle::MindMap => mind_maps(&roots, &children, &sizes, gap),
    };
    Arrangement::from_rects(nodes, rects, &idx)
}

/// Lays out the forest under `roots` with sizes `(breadth, depth)`: returns per node the centre
/// along the breadth axis and along the depth axis (generations in bands).
fn tidy(
    roots: &[usize],
    children: &[Vec<usize>],
    bd: &[(f64, f64)],
    gap: f64,
    level_gap: f64,
) -> (Vec<f64>, Vec<f64>) {
    let n = bd.len();
    let mut level = vec![0usize; n];
    let mut pre = Vec::with_capacity(n);
    let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
    while let Some(v) = stack.pop() {
        pre.push(v);
        for &c in children[v].iter().rev() {
            level[c] = level[v] + 1;
            stack.push(c);
        }
    }
    let mut rel = vec![0.0; n];
    let mut contour: Vec<Option<Contour>> = (0..n).map(|_| None).collect();
    for &v in pre.iter().rev() {
        let kids: Vec<Contour> = children[v]
            .iter()
            .filter_map(|&c| contour[c].take())
            .collect();
        let (offs, acc) = pack(kids, gap);
        let mut own = Contour {
            levels: VecDeque::new(),
            offset: 0.0,
        };
        if let Some(mut acc) = acc {
            let mid = (offs[0] + offs[offs.len() - 1]) / 2.0;
            for (&c, o) in children[v].iter().zip(&offs) {
                rel[c] = o - mid;
            }
            acc.offset -= mid;
            own = acc;
        }
        let half = bd[v].0 / 2.0;
        own.levels
            .push_front((-half - own.offset, half - own.offset));
        contour[v] = Some(own);
    }
    let root_contours: Vec<Contour> = roots.iter().filter_map(|&r| contour[r].take()).collect();
    let (root_offs, _) = pack(root_contours, gap);
    let mut b = vec![0.0; n];
    for (&r, o) in roots.iter().zip(&root_offs) {
        b[r] = *o;
    }
    for &v in &pre {
        for &c in &children[v] {
            b[c] = b[v] + rel[c];
        }
    }
    let levels = pre.iter().map(|&v| level[v]).max().map_or(0, |m| m + 1);
    let mut band = vec![0.0_f64; levels];
    for &v in &pre {
        band[level[v]] = band[level[v]].max(bd[v].1);
    }
    let mut start = vec![0.0; levels];
    let mut at = 0.0;
    for l in 0..levels {
        start[l] = at + band[l] / 2.0;
        at += band[l] + level_gap;
    }
    let d = (0..n)
        .map(|v| start.get(level[v]).copied().unwrap_or(0.0))
        .collect();
    (b, d)
}

/// Places subtree contours left to right, each as far left as its contour allows: returns their
/// root positions and the merged contour, both relative to the first subtree's root.
fn pack(kids: Vec<Contour>, gap: f64) -> (Vec<f64>, Option<Contour>) {
    let mut offs = Vec::with_capacity(kids.len());
    let mut acc: Option<Contour> = None;
    for k in kids {
        match acc.as_mut() {
            None => {
                offs.push(0.0);
                acc = Some(k);
            }
            Some(a) => {
                let common = a.levels.len().min(k.levels.len());
                let mut s = f64::NEG_INFINITY;
                for l in 0..common {
                    s = s.max(a.get(l).1 - k.get(l).0 + gap);
                }
                let s = if s.is_finite() { s } else { 0.0 };
                offs.push(s);
                for l in 0..k.levels.len() {
                    let (lo, hi) = k.get(l);
                    let (lo, hi) = (lo + s - a.offset, hi + s - a.offset);
                    if l < a.levels.len() {
                        let e = &mut a.levels[l];
                        e.0 = e.0.min(lo);
                        e.1 = e.1.max(hi);
                    } else {
                        a.levels.push_back((lo, hi));
                    }
                }
            }
        }
    }
    (offs, acc)
}

/// Mind maps: one per root, in a row. Breadth is vertical, generations go outwards in columns.
fn mind_maps(
    roots: &[usize],
    children: &[Vec<usize>],
    sizes: &[(f64, f64)],
    gap: f64,
) -> Vec<Rect> {
    let n = sizes.len();
    let mut rects = vec![Rect::default(); n];
    let mut weight = vec![1usize; n];
    // Subtree sizes, children before parents.
    let mut pre = Vec::new();
    let mut stack: Vec<usize> = roots.to_vec();
    while let Some(v) = stack.pop() {
        pre.push(v);
        stack.extend(children[v].iter().copied());
    }
    for &v in pre.iter().rev() {
        weight[v] = 1 + children[v].iter().map(|&c| weight[c]).sum::<usize>();
    }
    let bd: Vec<(f64, f64)> = sizes.iter().map(|&(w, h)| (h, w)).collect();
    let mut x_cursor = 0.0;
    let mut ch = children.to_vec();
    for &r in roots {
        let kids = &children[r];
        let total: usize = kids.iter().map(|&c| weight[c]).sum();
        let mut split = 0;
        let mut acc = 0;
        while split < kids.len() && (acc * 2 < total || split == 0) {
            acc += weight[kids[split]];
            split += 1;
        }
        let mut sides: Vec<(Vec<usize>, f64)> = vec![(kids[..split].to_vec(), 1.0)];
        if split < kids.len() {
            sides.push((kids[split..].to_vec(), -1.0));
        }
        let mut map: Vec<(usize, Rect)> =
            vec![(r, Rect::centered(0.0, 0.0, sizes[r].0, sizes[r].1))];
        for (side_kids, sign) in sides {
            if side_kids.is_empty() {
                continue;
            }
            ch[r] = side_kids;
            let (b, d) = tidy(&[r], &ch, &bd, gap, gap * 1.5);
            let mut members = Vec::new();
            let mut st: Vec<usize> = ch[r].clone();
            while let Some(v) = st.pop() {
                members.push(v);
                st.extend(ch[v].iter().copied());
            }
            for v in members {
                // Depth centre relative to the root's centre, mirrored on the left side.
                let dx = (d[v] - d[r]) * sign;
                let dy = b[v] - b[r];
                map.push((v, Rect::centered(dx, dy, sizes[v].0, sizes[v].1)));
            }
        }
        ch[r] = children[r].clone();
        let bounds = Rect::union_all(map.iter().map(|(_, r)| r)).unwrap_or_default();
        for (v, rect) in map {
            rects[v] = rect.translated(x_cursor - bounds.x, -bounds.y);
        }
        x_cursor += bounds.w + gap * 2.0;
    }
    rects
}
