//! Grid, rows, row, column, circle and freeform arrangements.

use std::f64::consts::PI;

use super::{Arrangement, Node, clean_spacing, reading_order, stable_order};
use crate::geom::Rect;

/// A square-ish grid: `ceil(sqrt(n))` columns, every cell the size of the largest object, objects
/// centred in their cells, `spacing` between cells (LAYOUT-7). Existing objects keep their reading
/// order.
pub fn grid(nodes: &[Node], spacing: f64) -> Arrangement {
    let cols = (nodes.len() as f64).sqrt().ceil() as usize;
    grid_with_columns(nodes, spacing, cols)
}

/// A grid with a given number of columns (at least one).
pub fn grid_with_columns(nodes: &[Node], spacing: f64, columns: usize) -> Arrangement {
    let g = clean_spacing(spacing);
    let cols = columns.max(1);
    let cw = nodes.iter().map(|n| n.size().0).fold(0.0, f64::max);
    let ch = nodes.iter().map(|n| n.size().1).fold(0.0, f64::max);
    let mut rects = vec![Rect::default(); nodes.len()];
    for (slot, i) in reading_order(nodes).into_iter().enumerate() {
        let (w, h) = nodes[i].size();
        let (c, r) = ((slot % cols) as f64, (slot / cols) as f64);
        let (x, y) = (c * (cw + g), r * (ch + g));
        rects[i] = Rect::new(x + (cw - w) / 2.0, y + (ch - h) / 2.0, w, h);
    }
    Arrangement::from_rects(nodes, rects, &[])
}

/// Rows that wrap like text: objects left to right with `spacing` between them, a new row when
/// the next object would pass the row width (the width of a roughly square block, never less than
/// the widest object); rows are `spacing` apart and objects are top-aligned in their row.
pub fn rows(nodes: &[Node], spacing: f64) -> Arrangement {
    let g = clean_spacing(spacing);
    let area: f64 = nodes
        .iter()
        .map(|n| (n.size().0 + g) * (n.size().1 + g))
        .sum();
    let widest = nodes.iter().map(|n| n.size().0).fold(0.0, f64::max);
    let limit = widest.max(area.sqrt() * 1.2);
    let mut rects = vec![Rect::default(); nodes.len()];
    let (mut x, mut y, mut row_h) = (0.0_f64, 0.0_f64, 0.0_f64);
    for i in reading_order(nodes) {
        let (w, h) = nodes[i].size();
        if x > 0.0 && x + w > limit {
            x = 0.0;
            y += row_h + g;
            row_h = 0.0;
        }
        rects[i] = Rect::new(x, y, w, h);
        x += w + g;
        row_h = row_h.max(h);
    }
    Arrangement::from_rects(nodes, rects, &[])
}

/// One horizontal row, `spacing` apart, vertically centred; existing objects keep their
/// left-to-right order.
pub fn row(nodes: &[Node], spacing: f64) -> Arrangement {
    line(nodes, spacing, true)
}

/// One vertical column, `spacing` apart, horizontally centred; existing objects keep their
/// top-to-bottom order.
pub fn column(nodes: &[Node], spacing: f64) -> Arrangement {
    line(nodes, spacing, false)
}

fn line(nodes: &[Node], spacing: f64, horizontal: bool) -> Arrangement {
    let g = clean_spacing(spacing);
    let order = if horizontal {
        stable_order(nodes, |_, c| (c.0, c.1))
    } else {
        stable_order(nodes, |_, c| (c.1, c.0))
    };
    let cross = nodes
        .iter()
        .map(|n| if horizontal { n.size().1 } else { n.size().0 })
        .fold(0.0, f64::max);
    let mut rects = vec![Rect::default(); nodes.len()];
    let mut along = 0.0;
    for i in order {
        let (w, h) = nodes[i].size();
        rects[i] = if horizontal {
            Rect::new(along, (cross - h) / 2.0, w, h)
        } else {
            Rect::new((cross - w) / 2.0, along, w, h)
        };
        along += if horizontal { w } else { h } + g;
    }
    Arrangement::from_rects(nodes, rects, &[])
}

/// Objects evenly spaced on a circle, clockwise from the top, the radius large enough that
/// neighbours stay `spacing` apart; existing objects keep their clockwise order around their
/// centroid.
pub fn circle(nodes: &[Node], spacing: f64) -> Arrangement {
    let g = clean_spacing(spacing);
    let n = nodes.len();
    let centers: Vec<(f64, f64)> = nodes.iter().filter_map(Node::current_center).collect();
    let (mx, my) = if centers.is_empty() {
        (0.0, 0.0)
    } else {
        let k = centers.len() as f64;
        let (sx, sy) = centers
            .iter()
            .fold((0.0, 0.0), |a, c| (a.0 + c.0, a.1 + c.1));
        (sx / k, sy / k)
    };
    let order = stable_order(nodes, |_, c| {
        // Clockwise angle from "up" (y grows downwards).
        let a = (c.0 - mx).atan2(-(c.1 - my));
        (if a < 0.0 { a + 2.0 * PI } else { a }, 0.0)
    });
    // Diagonal of the largest object bounds the chord each neighbour pair needs.
    let diag = nodes
        .iter()
        .map(|nd| {
            let (w, h) = nd.size();
            (w * w + h * h).sqrt()
        })
        .fold(0.0, f64::max);
    let radius = if n <= 1 {
        0.0
    } else {
        (diag + g) / (2.0 * (PI / n as f64).sin())
    };
    let mut rects = vec![Rect::default(); n];
    for (slot, i) in order.into_iter().enumerate() {
        let (w, h) = nodes[i].size();
        let a = 2.0 * PI * slot as f64 / n.max(1) as f64;
        rects[i] = Rect::centered(radius * a.sin(), -radius * a.cos(), w, h);
    }
    Arrangement::from_rects(nodes, rects, &[])
}

/// Keeps objects that have a current position where they are (relative to each other) and puts
/// the others in a top-aligned row `spacing` below them; with no current positions this is a
/// left-to-right row with tops aligned (the seed's default placement).
pub fn freeform(nodes: &[Node], spacing: f64) -> Arrangement {
    let g = clean_spacing(spacing);
    let mut rects = vec![Rect::default(); nodes.len()];
    let mut placed: Option<Rect> = None;
    for (i, n) in nodes.iter().enumerate() {
        if let (Some((cx, cy)), (w, h)) = (n.current_center(), n.size()) {
            let r = Rect::centered(cx, cy, w, h);
            rects[i] = r;
            placed = Some(placed.map_or(r, |p| p.union(&r)));
        }
    }
    let mut x = placed.map_or(0.0, |p| p.x);
    let y = placed.map_or(0.0, |p| p.bottom() + g);
    for (i, n) in nodes.iter().enumerate() {
        if n.current_center().is_none() {
            let (w, h) = n.size();
            rects[i] = Rect::new(x, y, w, h);
            x += w + g;
        }
    }
    Arrangement::from_rects(nodes, rects, &[])
}
