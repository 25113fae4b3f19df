//! Quality metrics of a drawing: overlaps, gaps, containment, crossings, flow, size (LAYOUT-15).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::directives::Arrangement;
use crate::geom::{EPS, Rect, segments_cross};
use crate::spatial::SpatialIndex;
use crate::templates::Layout;

/// Above this many objects, gaps are only searched up to [`GAP_SEARCH`] px.
const BRUTE_FORCE_LIMIT: usize = 3000;
/// Radius of the gap search for large drawings.
const GAP_SEARCH: f64 = 200.0;

/// An edge as drawn: a polyline between objects `from` and `to`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EdgePath {
    /// Index of the source object.
    pub from: usize,
    /// Index of the target object.
    pub to: usize,
    /// Points from source to target.
    pub points: Vec<(f64, f64)>,
}

/// Quality figures of a drawing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Pairs of objects whose interiors overlap (a frame and its descendants excepted).
    pub overlaps: usize,
    /// Smallest gap between two objects not nested in each other (`INFINITY` with fewer than
    /// two; capped at 200 px above 3,000 objects).
    pub min_gap: f64,
    /// Objects not entirely inside their parent frame.
    pub children_outside: usize,
    /// Pairs of edge segments crossing each other (edges sharing an end object excepted).
    pub edge_crossings: usize,
    /// Edge segments passing through an object other than their ends (and the ends' frames).
    pub edge_node_crossings: usize,
    /// Share of edges (self loops excepted) whose target centre is below the source's (1 with none).
    pub flow_down: f64,
    /// Share of edges whose target centre is right of the source's (1 with none).
    pub flow_right: f64,
    /// Bounding box width / height (0 for an empty or flat drawing).
    pub aspect_ratio: f64,
    /// Sum of the edges' polyline lengths.
    pub total_edge_length: f64,
    /// Bounding box area.
    pub area: f64,
}

fn ancestors(parents: &[Option<usize>], i: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut a = parents.get(i).copied().flatten();
    while let Some(p) = a {
        if out.contains(&p) || out.len() > parents.len() {
            break;
        }
        out.push(p);
        a = parents.get(p).copied().flatten();
    }
    out
}

/// Number of crossings among edge polylines (pairs of segments of different edges that cross at
/// an interior point; edges sharing an end object do not count).
pub fn count_crossings(edges: &[EdgePath]) -> usize {
    type Segment = (usize, (f64, f64), (f64, f64));
    let segs: Vec<Segment> = edges
        .iter()
        .enumerate()
        .flat_map(|(e, p)| p.points.windows(2).map(move |w| (e, w[0], w[1])))
        .collect();
    let bbox = |a: (f64, f64), b: (f64, f64)| {
        Rect::new(
            a.0.min(b.0),
            a.1.min(b.1),
            (a.0 - b.0).abs(),
            (a.1 - b.1).abs(),
        )
    };
    let mut count = 0;
    for i in 0..segs.len() {
        let (ei, a1, a2) = segs[i];
        let bi = bbox(a1, a2);
        for &(ej, b1, b2) in &segs[i + 1..] {
            if ei == ej {
                continue;
            }
            let (x, y) = (&edges[ei], &edges[ej]);
            if x.from == y.from || x.from == y.to || x.to == y.from || x.to == y.to {
                continue;
            }
            if bi.separation(&bbox(b1, b2)) > 0.0 {
                continue;
            }
            if segments_cross(a1, a2, b1, b2) {
                count += 1;
            }
        }
    }
    count
}

/// Measures a drawing: object rectangles, their parent frames (indices) and edge polylines.
pub fn measure(rects: &[Rect], parents: &[Option<usize>], edges: &[EdgePath]) -> Metrics {
    let n = rects.len();
    let anc: Vec<Vec<usize>> = (0..n).map(|i| ancestors(parents, i)).collect();
    let nested = |i: usize, j: usize| anc[i].contains(&j) || anc[j].contains(&i);
    let mut overlaps = 0;
    let mut min_gap = f64::INFINITY;
    let idx = SpatialIndex::new(rects);
    for i in 0..n {
        let cands: Vec<usize> = if n <= BRUTE_FORCE_LIMIT {
            (i + 1..n).collect()
        } else {
            idx.near(&rects[i], GAP_SEARCH)
                .into_iter()
                .filter(|&j| j > i)
                .collect()
        };
        for j in cands {
            if nested(i, j) {
                continue;
            }
            let s = rects[i].separation(&rects[j]);
            min_gap = min_gap.min(s);
            if s < -EPS {
                overlaps += 1;
            }
        }
    }
    if n > BRUTE_FORCE_LIMIT && min_gap.is_infinite() {
        min_gap = GAP_SEARCH;
    }
    let children_outside = (0..n)
        .filter(|&i| {
            parents
                .get(i)
                .copied()
                .flatten()
                .is_some_and(|p| p < n && !rects[p].contains(&rects[i]))
        })
        .count();
    let mut edge_node_crossings = 0;
    let (mut down, mut right, mut counted) = (0usize, 0usize, 0usize);
    let mut total_edge_length = 0.0;
    for e in edges {
        // An edge may cross its own ends, the frames holding them and what they hold.
        let mut exempt = vec![e.from, e.to];
        if e.from < n && e.to < n {
            exempt.extend(&anc[e.from]);
            exempt.extend(&anc[e.to]);
            exempt.extend((0..n).filter(|&k| anc[k].contains(&e.from) || anc[k].contains(&e.to)));
        }
        for w in e.points.windows(2) {
            total_edge_length += ((w[1].0 - w[0].0).powi(2) + (w[1].1 - w[0].1).powi(2)).sqrt();
            let seg = Rect::new(
                w[0].0.min(w[1].0),
                w[0].1.min(w[1].1),
                (w[0].0 - w[1].0).abs(),
                (w[0].1 - w[1].1).abs(),
            );
            edge_node_crossings += idx
                .near(&seg, 0.0)
                .into_iter()
                .filter(|k| !exempt.contains(k))
                .filter(|&k| rects[k].segment_crosses(w[0], w[1]))
                .count();
        }
        if e.from != e.to && e.from < n && e.to < n {
            counted += 1;
            let (a, b) = (rects[e.from], rects[e.to]);
            down += usize::from(b.cy() > a.cy() + EPS);
            right += usize::from(b.cx() > a.cx() + EPS);
        }
    }
    let share = |k: usize| {
        if counted == 0 {
            1.0
        } else {
            k as f64 / counted as f64
        }
    };
    let bounds = Rect::union_all(rects).unwrap_or_default();
    Metrics {
        overlaps,
        min_gap,
        children_outside,
        edge_crossings: count_crossings(edges),
        edge_node_crossings,
        flow_down: share(down),
        flow_right: share(right),
        aspect_ratio: if bounds.h > 0.0 {
            bounds.w / bounds.h
        } else {
            0.0
        },
        total_edge_length,
        area: bounds.area(),
    }
}

/// Fixed objects whose rectangle changed between `before` and `after`.
pub fn moved_fixed(before: &[Rect], after: &[Rect]) -> usize {
    before.iter().zip(after).filter(|(a, b)| a != b).count() + before.len().abs_diff(after.len())
}

/// Measures a template result; connectors are straight lines between their ends' centres.
pub fn measure_layout(layout: &Layout) -> Metrics {
    let index: HashMap<&str, usize> = layout
        .items
        .iter()
        .enumerate()
        .rev()
        .map(|(i, it)| (it.key.as_str(), i))
        .collect();
    let rects: Vec<Rect> = layout.items.iter().map(|i| i.rect).collect();
    let parents: Vec<Option<usize>> = layout
        .items
        .iter()
        .map(|i| i.parent.as_deref().and_then(|p| index.get(p).copied()))
        .collect();
    let edges: Vec<EdgePath> = layout
        .connectors
        .iter()
        .filter_map(|c| {
            let (f, t) = (*index.get(c.from.as_str())?, *index.get(c.to.as_str())?);
            Some(EdgePath {
                from: f,
                to: t,
                points: vec![rects[f].center(), rects[t].center()],
            })
        })
        .collect();
    measure(&rects, &parents, &edges)
}

/// Measures a directive result with its routes.
pub fn measure_arrangement(a: &Arrangement) -> Metrics {
    let index: HashMap<&str, usize> = a
        .nodes
        .iter()
        .enumerate()
        .rev()
        .map(|(i, p)| (p.key.as_str(), i))
        .collect();
    let rects: Vec<Rect> = a.nodes.iter().map(|p| p.rect).collect();
    let edges: Vec<EdgePath> = a
        .routes
        .iter()
        .filter_map(|r| {
            Some(EdgePath {
                from: *index.get(r.from.as_str())?,
                to: *index.get(r.to.as_str())?,
                points: r.points.clone(),
            })
        })
        .collect();
    measure(&rects, &vec![None; rects.len()], &edges)
}
