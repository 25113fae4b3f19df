//! Generic arrangements for any set of objects with optional edges: grid, rows, row, column,
//! circle, freeform, layered flowcharts and tidy trees.
//!
//! Every directive takes [`Node`]s (a key, a size and, for re-layouts, the current position) and
//! returns an [`Arrangement`] whose bounding box has its top-left corner at `(0, 0)`: the caller
//! translates it (for example to a spot from [`crate::place::find_open_space`]). Nodes come back
//! in input order. Edges naming unknown keys are ignored; self loops and duplicates are allowed.

mod basic;

pub use crate::flow::flowchart;
pub use crate::tree::tree;
pub use basic::{circle, column, freeform, grid, grid_with_columns, row, rows};

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::geom::Rect;

/// Default gap between neighbouring objects of an arrangement (px).
pub const DEFAULT_SPACING: f64 = 40.0;

/// An object to arrange.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Caller's key, echoed in the result.
    pub key: String,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
    /// Current top-left corner, when re-laying out existing objects: used to keep their order.
    pub at: Option<(f64, f64)>,
}

impl Node {
    /// A node with no current position.
    pub fn new(key: impl Into<String>, w: f64, h: f64) -> Self {
        Self {
            key: key.into(),
            w,
            h,
            at: None,
        }
    }

    /// The same node with a current position (top-left corner).
    pub fn at(mut self, x: f64, y: f64) -> Self {
        self.at = Some((x, y));
        self
    }

    /// Width and height made finite and non-negative.
    pub(crate) fn size(&self) -> (f64, f64) {
        let f = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
        (f(self.w), f(self.h))
    }

    /// Current centre, if the node has a (finite) current position.
    pub(crate) fn current_center(&self) -> Option<(f64, f64)> {
        let (x, y) = self.at?;
        let (w, h) = self.size();
        (x.is_finite() && y.is_finite()).then_some((x + w / 2.0, y + h / 2.0))
    }
}

/// A directed edge between two node keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    /// Source key.
    pub from: String,
    /// Target key.
    pub to: String,
}

impl Edge {
    /// An edge `from -> to`.
    pub fn new(from: impl Into<String>, to: impl Into<String>) -> Self {
        Self {
            from: from.into(),
            to: to.into(),
        }
    }
}

/// Direction of a layered flowchart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    /// Ranks are rows, edges point down.
    TopDown,
    /// Ranks are columns, edges point right.
    LeftRight,
}

/// Style of a tidy tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TreeStyle {
    /// Root on top, each generation one row lower, parents centred over their children.
    OrgChart,
    /// Root in the centre, its subtrees split to the right and to the left.
    MindMap,
}

/// A node's computed place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Placed {
    /// The node's key.
    pub key: String,
    /// Where it goes.
    pub rect: Rect,
}

/// How an edge is drawn: a polyline from the source's centre to the target's centre (bends
/// where a layered drawing routes a long edge past other ranks).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Route {
    /// Source key.
    pub from: String,
    /// Target key.
    pub to: String,
    /// Points from source centre to target centre.
    pub points: Vec<(f64, f64)>,
}

/// The result of a directive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Arrangement {
    /// Placed nodes, in input order.
    pub nodes: Vec<Placed>,
    /// One route per known edge, in input order (empty for directives without edges).
    pub routes: Vec<Route>,
}

impl Arrangement {
    /// The rectangle placed for `key` (the first node with that key).
    pub fn rect(&self, key: &str) -> Option<Rect> {
        self.nodes.iter().find(|p| p.key == key).map(|p| p.rect)
    }

    /// Bounding box of every node.
    pub fn bounds(&self) -> Option<Rect> {
        Rect::union_all(self.nodes.iter().map(|p| &p.rect))
    }

    /// Moves everything by `(dx, dy)`.
    pub fn translate(&mut self, dx: f64, dy: f64) {
        for p in &mut self.nodes {
            p.rect = p.rect.translated(dx, dy);
        }
        for r in &mut self.routes {
            for pt in &mut r.points {
                pt.0 += dx;
                pt.1 += dy;
            }
        }
    }

    /// Builds an arrangement from rectangles in node order, shifted so the bounding box starts
    /// at `(0, 0)`, with straight centre-to-centre routes for `edges`.
    pub(crate) fn from_rects(nodes: &[Node], rects: Vec<Rect>, edges: &[(usize, usize)]) -> Self {
        let mut a = Arrangement {
            nodes: nodes
                .iter()
                .zip(rects)
                .map(|(n, rect)| Placed {
                    key: n.key.clone(),
                    rect,
                })
                .collect(),
            routes: Vec::new(),
        };
        a.routes = edges
            .iter()
            .map(|&(u, v)| Route {
                from: nodes[u].key.clone(),
                to: nodes[v].key.clone(),
                points: vec![a.nodes[u].rect.center(), a.nodes[v].rect.center()],
            })
            .collect();
        a.normalize();
        a
    }

    /// Shifts everything so the bounding box's top-left corner is `(0, 0)`.
    pub(crate) fn normalize(&mut self) {
        if let Some(b) = self.bounds() {
            self.translate(-b.x, -b.y);
        }
    }
}

/// Edges as index pairs into `nodes` (first node with a key wins); unknown keys are dropped.
pub(crate) fn index_edges(nodes: &[Node], edges: &[Edge]) -> Vec<(usize, usize)> {
    let mut by_key: HashMap<&str, usize> = HashMap::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        by_key.entry(n.key.as_str()).or_insert(i);
    }
    edges
        .iter()
        .filter_map(|e| Some((*by_key.get(e.from.as_str())?, *by_key.get(e.to.as_str())?)))
        .collect()
}

/// Sanitised spacing: finite and non-negative, `DEFAULT_SPACING` when not finite.
pub(crate) fn clean_spacing(spacing: f64) -> f64 {
    if spacing.is_finite() {
        spacing.max(0.0)
    } else {
        DEFAULT_SPACING
    }
}

/// Node indices in the order a re-layout should keep (stability, LAYOUT-7): nodes with a current
/// position first, sorted by `key` of their centre (ties by input order), then the others in
/// input order.
pub(crate) fn stable_order(
    nodes: &[Node],
    key: impl Fn(&Node, (f64, f64)) -> (f64, f64),
) -> Vec<usize> {
    let mut with: Vec<(usize, (f64, f64))> = nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.current_center().map(|c| (i, key(n, c))))
        .collect();
    with.sort_by(|a, b| {
        a.1.0
            .total_cmp(&b.1.0)
            .then(a.1.1.total_cmp(&b.1.1))
            .then(a.0.cmp(&b.0))
    });
    let mut out: Vec<usize> = with.into_iter().map(|(i, _)| i).collect();
    out.extend((0..nodes.len()).filter(|&i| nodes[i].current_center().is_none()));
    out
}

/// Reading order (rows top to bottom, left to right inside a row) of the nodes that have a
/// current position, then the others in input order.
pub(crate) fn reading_order(nodes: &[Node]) -> Vec<usize> {
    let by_y = stable_order(nodes, |_, c| (c.1, c.0));
    let mut out = Vec::with_capacity(nodes.len());
    let mut row: Vec<(usize, f64)> = Vec::new();
    let mut row_bottom = f64::NEG_INFINITY;
    let flush = |row: &mut Vec<(usize, f64)>, out: &mut Vec<usize>| {
        row.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        out.extend(row.drain(..).map(|(i, _)| i));
    };
    for i in by_y {
        let n = &nodes[i];
        let Some((cx, cy)) = n.current_center() else {
            flush(&mut row, &mut out);
            out.push(i);
            continue;
        };
        let (_, h) = n.size();
        if cy > row_bottom {
            flush(&mut row, &mut out);
            row_bottom = cy + h / 2.0;
        } else {
            row_bottom = row_bottom.max(cy + h / 2.0);
        }
        row.push((i, cx));
    }
    flush(&mut row, &mut out);
    out
}
