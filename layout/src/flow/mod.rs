//! Layered (Sugiyama-style) flowchart layout.
//!
//! Steps: self loops and duplicate edges set aside; cycles broken by reversing a feedback arc
//! set (greedy Eades-Lin-Smyth, and for cyclic graphs also depth-first search, whichever draws
//! with fewer crossings; reversed edges are still drawn pointing the original way); layers by
//! longest path, tightened; long edges split by dummy nodes; crossings reduced by
//! barycenter/median sweeps with transpositions from several starting orders, keeping the best
//! ordering; coordinates by the priority method; ranks stacked with their own depth, the gap
//! between two ranks stretched (up to 4x) where slanted edges would otherwise pass through a
//! neighbour of their end. Left-to-right charts are laid out top-down on transposed sizes.

mod coords;
mod order;
mod rank;

use order::Layered;

use std::collections::{HashMap, HashSet};

use crate::directives::{
    Arrangement, Direction, Edge, Node, Placed, Route, clean_spacing, index_edges, stable_order,
};
use crate::geom::Rect;

/// Layered graphs (real plus dummy nodes) up to this size get the full crossing-reduction
/// effort: several starting orders, two cycle-removal variants, long sweep budgets.
const THOROUGH_LIMIT: usize = 2500;

/// Largest factor by which a gap between ranks grows to keep slanted edges off neighbours.
const MAX_GAP_STRETCH: f64 = 4.0;

/// The result of the layered pipeline on index-based input, before mapping back to keys.
pub(crate) struct Drawing {
    /// Node centres (layer axis = x, rank axis = y), top-down orientation.
    pub centers: Vec<(f64, f64)>,
    /// Per input edge: the bend points between the endpoints (source to target order).
    pub bends: Vec<Vec<(f64, f64)>>,
}

/// A layered drawing of `nodes` and `edges`: edges point down (`TopDown`) or right (`LeftRight`)
/// except the reversed edges of cycles; siblings share a rank; long edges bend through
/// dummy points so they do not cut through other ranks' nodes (LAYOUT-8). `spacing` is the gap
/// between neighbours of a rank; ranks are `1.5 * spacing` apart. Existing objects keep their
/// order within a rank unless another order has fewer crossings.
pub fn flowchart(
    nodes: &[Node],
    edges: &[Edge],
    direction: Direction,
    spacing: f64,
) -> Arrangement {
    let gap = clean_spacing(spacing);
    let lr = direction == Direction::LeftRight;
    let sizes: Vec<(f64, f64)> = nodes
        .iter()
        .map(|n| {
            let (w, h) = n.size();
            if lr { (h, w) } else { (w, h) }
        })
        .collect();
    // Reading order along the flow: rank first, then position within the rank.
    let order = if lr {
        stable_order(nodes, |_, c| (c.0, c.1))
    } else {
        stable_order(nodes, |_, c| (c.1, c.0))
    };
    let mut prio = vec![0; nodes.len()];
    for (p, &i) in order.iter().enumerate() {
        prio[i] = p;
    }
    let idx = index_edges(nodes, edges);
    // A re-layout (every node placed) seeds the ordering with the current breadth positions.
    let hint: Option<Vec<f64>> = nodes
        .iter()
        .map(|n| n.current_center().map(|c| if lr { c.1 } else { c.0 }))
        .collect::<Option<Vec<f64>>>()
        .filter(|h| !h.is_empty());
    let d = layered(&sizes, &idx, &prio, hint.as_deref(), gap, gap * 1.5);
    let tr = |p: (f64, f64)| if lr { (p.1, p.0) } else { p };
    let rects: Vec<Rect> = nodes
        .iter()
        .zip(&d.centers)
        .map(|(n, &c)| {
            let (w, h) = n.size();
            let (cx, cy) = tr(c);
            Rect::centered(cx, cy, w, h)
        })
        .collect();
    let mut a = Arrangement {
        nodes: nodes
            .iter()
            .zip(&rects)
            .map(|(n, r)| Placed {
                key: n.key.clone(),
                rect: *r,
            })
            .collect(),
        routes: Vec::with_capacity(idx.len()),
    };
    for (&(u, v), bends) in idx.iter().zip(&d.bends) {
        let mut points = vec![rects[u].center()];
        points.extend(bends.iter().map(|&p| tr(p)));
        points.push(rects[v].center());
        a.routes.push(Route {
            from: nodes[u].key.clone(),
            to: nodes[v].key.clone(),
            points,
        });
    }
    a.normalize();
    a
}

/// The layered pipeline on sizes `(breadth, depth)` and index edges; `prio` orders nodes for
/// tie-breaks and the initial ordering.
pub(crate) fn layered(
    sizes: &[(f64, f64)],
    edges: &[(usize, usize)],
    prio: &[usize],
    hint: Option<&[f64]>,
    gap: f64,
    rank_gap: f64,
) -> Drawing {
    let n = sizes.len();
    // Unique, loop-free edges for the structure.
    let mut seen = HashSet::new();
    let simple: Vec<(usize, usize)> = edges
        .iter()
        .copied()
        .filter(|&(u, v)| u != v && seen.insert((u, v)))
        .collect();
    // Cycle removal: the greedy feedback arc set, and for cyclic graphs also depth-first
    // search; the one whose drawing has fewer crossings wins (ties: greedy).
    let greedy = rank::feedback_order(n, &simple, prio);
    let keep_order = hint.is_some();
    let mut best = proper(sizes, &simple, &greedy, prio, hint);
    // Effort scales down for very large layered graphs (thousands of dummy nodes) so a
    // 500-node chart stays interactive; every chart up to a few hundred nodes gets full effort.
    let thorough = best.g.up.len() <= THOROUGH_LIMIT;
    let best_c = order::reduce(&mut best.g, thorough, keep_order);
    if best.reversed > 0 && thorough {
        let dfs = rank::dfs_order(n, &simple, prio);
        let mut alt = proper(sizes, &simple, &dfs, prio, hint);
        let c = order::reduce(&mut alt.g, thorough, keep_order);
        if c < best_c {
            best = alt;
        }
    }
    let Proper {
        g,
        width,
        dummy,
        layer,
        layer_of,
        chains,
        fpos,
        ..
    } = best;
    let nl = g.layers.len();
    let xs = coords::assign(&g, &width, &dummy, gap, if thorough { 3 } else { 2 });

    // Ranks stacked: each as deep as its deepest real node.
    let mut depth = vec![0.0_f64; nl];
    for v in 0..n {
        depth[layer[v]] = depth[layer[v]].max(sizes[v].1);
    }
    // Between two ranks, slanted edges need room to leave their source and reach their target
    // through the node's own top or bottom, not through a neighbour: the gap grows with the
    // slant (up to `MAX_GAP_STRETCH` times the rank gap).
    let mut gaps = vec![rank_gap; nl];
    for (v, below) in g.down.iter().enumerate() {
        for &w in below {
            let (lv, lw) = (layer_of[v], layer_of[w]);
            let dx = (xs[w] - xs[v]).abs();
            let mut need: f64 = 0.0;
            if v < n && width[v] > 0.0 {
                need = need.max(dx * depth[lv] / width[v]);
            }
            if w < n && width[w] > 0.0 {
                need = need.max(dx * depth[lw] / width[w]);
            }
            let gap_needed = need - depth[lv] / 2.0 - depth[lw] / 2.0;
            gaps[lv] = gaps[lv].max(gap_needed.min(rank_gap * MAX_GAP_STRETCH));
        }
    }
    let mut ys = vec![0.0; nl];
    let mut at = 0.0;
    for l in 0..nl {
        ys[l] = at + depth[l] / 2.0;
        at += depth[l] + gaps[l];
    }
    let centers: Vec<(f64, f64)> = (0..n).map(|v| (xs[v], ys[layer[v]])).collect();
    let bends = edges
        .iter()
        .map(|&(u, v)| {
            let (a, b, rev) = if fpos[u] > fpos[v] {
                (v, u, true)
            } else {
                (u, v, false)
            };
            let mut pts: Vec<(f64, f64)> = chains
                .get(&(a, b))
                .map(|c| c.iter().map(|&d| (xs[d], ys[layer_of[d]])).collect())
                .unwrap_or_default();
            if u == v {
                pts.clear();
            }
            if rev {
                pts.reverse();
            }
            pts
        })
        .collect();
    Drawing { centers, bends }
}

/// A proper layered graph before crossing reduction.
struct Proper {
    g: Layered,
    width: Vec<f64>,
    dummy: Vec<bool>,
    /// Layer of each real node.
    layer: Vec<usize>,
    /// Layer of every node, dummies included.
    layer_of: Vec<usize>,
    /// Dummy chain of each (possibly reversed) DAG edge.
    chains: HashMap<(usize, usize), Vec<usize>>,
    /// Position of each node in the cycle-removal sequence.
    fpos: Vec<usize>,
    /// Number of reversed edges.
    reversed: usize,
}

/// Reverses the edges pointing backwards in `seq`, assigns layers, inserts dummy nodes and
/// builds the initial ordering (real nodes by priority, dummies between their ends).
fn proper(
    sizes: &[(f64, f64)],
    simple: &[(usize, usize)],
    seq: &[usize],
    prio: &[usize],
    hint: Option<&[f64]>,
) -> Proper {
    let n = sizes.len();
    let mut fpos = vec![0; n];
    for (i, &v) in seq.iter().enumerate() {
        fpos[v] = i;
    }
    let mut dag_seen = HashSet::new();
    let reversed = simple.iter().filter(|&&(u, v)| fpos[u] > fpos[v]).count();
    let dag: Vec<(usize, usize)> = simple
        .iter()
        .map(|&(u, v)| if fpos[u] > fpos[v] { (v, u) } else { (u, v) })
        .filter(|e| dag_seen.insert(*e))
        .collect();
    let layer = rank::assign_layers(n, &dag);
    let nl = layer.iter().copied().max().map_or(0, |m| m + 1);
    let mut g = Layered {
        layers: vec![Vec::new(); nl],
        up: vec![Vec::new(); n],
        down: vec![Vec::new(); n],
        real: n,
    };
    let mut width: Vec<f64> = sizes.iter().map(|s| s.0).collect();
    let mut dummy = vec![false; n];
    let mut layer_of = layer.clone();
    let mut chains: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    for &(u, v) in &dag {
        let mut prev = u;
        let mut chain = Vec::new();
        for l in layer[u] + 1..layer[v] {
            let d = g.up.len();
            g.up.push(Vec::new());
            g.down.push(Vec::new());
            width.push(0.0);
            dummy.push(true);
            layer_of.push(l);
            g.down[prev].push(d);
            g.up[d].push(prev);
            chain.push(d);
            prev = d;
        }
        g.down[prev].push(v);
        g.up[v].push(prev);
        chains.insert((u, v), chain);
    }
    let mut real: Vec<usize> = (0..n).collect();
    real.sort_by_key(|&v| (prio[v], v));
    let mut key = vec![0.0_f64; g.up.len()];
    for (r, &v) in real.iter().enumerate() {
        key[v] = hint.map_or(r as f64, |h| h[v]);
    }
    for &(u, v) in &dag {
        if let Some(chain) = chains.get(&(u, v)) {
            let span = (layer[v] - layer[u]) as f64;
            for (k, &d) in chain.iter().enumerate() {
                let t = (k + 1) as f64 / span;
                key[d] = key[u] + (key[v] - key[u]) * t;
            }
        }
    }
    let mut all: Vec<usize> = (0..g.up.len()).collect();
    all.sort_by(|&a, &b| key[a].total_cmp(&key[b]).then(a.cmp(&b)));
    for v in all {
        g.layers[layer_of[v]].push(v);
    }
    Proper {
        g,
        width,
        dummy,
        layer,
        layer_of,
        chains,
        fpos,
        reversed,
    }
}
