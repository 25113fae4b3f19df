//! SWOT, columns and journey templates.

use super::{Connector, FRAME_GAP, Layout, SWOT_COLORS, Section, section_frame};

/// Sections laid out as frames in a grid of `cols` frame columns: frames of a grid row share
/// the tallest height, frames of a grid column the widest width; `gap` between frames.
fn frames_grid(
    sections: &[Section],
    cols: usize,
    note_cols: usize,
    gap: f64,
    colors: &[&str],
) -> Layout {
    let cols = cols.max(1);
    let parts: Vec<Layout> = sections
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let c = (!colors.is_empty()).then(|| colors[i % colors.len()]);
            section_frame(s, note_cols, c)
        })
        .collect();
    let frame = |l: &Layout| l.items.first().map(|f| f.rect).unwrap_or_default();
    let mut col_w = vec![0.0_f64; cols];
    let mut row_h = vec![0.0_f64; parts.len().div_ceil(cols)];
    for (i, p) in parts.iter().enumerate() {
        col_w[i % cols] = col_w[i % cols].max(frame(p).w);
        row_h[i / cols] = row_h[i / cols].max(frame(p).h);
    }
    let mut out = Layout::default();
    for (i, mut p) in parts.into_iter().enumerate() {
        let (c, r) = (i % cols, i / cols);
        let x: f64 = col_w[..c].iter().map(|w| w + gap).sum();
        let y: f64 = row_h[..r].iter().map(|h| h + gap).sum();
        p.translate(x, y);
        if let Some(f) = p.items.first_mut() {
            f.rect.w = col_w[c];
            f.rect.h = row_h[r];
        }
        out.items.extend(p.items);
    }
    out
}

/// SWOT 2x2 (LAYOUT-3): the first four sections are strengths, weaknesses (top row) and
/// opportunities, threats (bottom row), each a frame holding its notes in two columns; frames
/// default to green, light-red, light-blue and orange. Extra sections continue the grid.
pub fn swot(sections: &[Section]) -> Layout {
    frames_grid(sections, 2, 2, FRAME_GAP, &SWOT_COLORS)
}

/// Columns for a kanban board or a retrospective (LAYOUT-4): one frame per section from left
/// to right, tops aligned, all as tall as the tallest, notes stacked inside.
pub fn columns(sections: &[Section]) -> Layout {
    frames_grid(sections, sections.len(), 1, FRAME_GAP, &[])
}

/// Journey stages (LAYOUT-5): one frame per stage in a row, notes stacked inside, and a
/// connector from each stage to the next (keys `"{from}_to_{to}"`), created automatically.
pub fn journey(stages: &[Section]) -> Layout {
    let mut l = frames_grid(stages, stages.len(), 1, FRAME_GAP * 1.5, &[]);
    l.connectors = stages
        .windows(2)
        .map(|w| Connector {
            key: format!("{}_to_{}", w[0].key, w[1].key),
            from: w[0].key.clone(),
            to: w[1].key.clone(),
        })
        .collect();
    l
}
