//! Arrangement of a batch in group coordinates: templates (SWOT, columns, journey) through the
//! layout crate, frames stacked around their children (R21, R23), generic directives (R22).

use super::entry::{End, Entry};
use crate::schema::LayoutDirective;
use layout::Rect;
use layout::directives::{self, Direction, Edge, Node};
use layout::templates::{self, FRAME_GAP, FRAME_HEADER, NOTE_GAP, NOTE_PADDING, NoteSpec, Section};
use layout::text::{TextKind, estimate_size};
use protocol::Kind;
use protocol::num::clamp_size;
use std::collections::HashMap;

pub(super) fn is_template(d: Option<LayoutDirective>) -> bool {
    matches!(
        d,
        Some(LayoutDirective::Swot2x2 | LayoutDirective::Columns | LayoutDirective::JourneyStages)
    )
}

/// Lays out the template part (top-level frames and their non-frame children); returns the
/// indices it covered and the automatic connectors (journey stages).
pub(super) fn template_part(
    d: LayoutDirective,
    entries: &mut [Entry],
) -> (Vec<bool>, Vec<(usize, usize)>) {
    let mut covered = vec![false; entries.len()];
    let frames: Vec<usize> = (0..entries.len())
        .filter(|&i| {
            entries[i].kind == Kind::Frame
                && entries[i].parent.is_none()
                && entries[i].explicit.is_none()
        })
        .collect();
    if frames.is_empty() {
        return (covered, Vec::new());
    }
    let key = |i: usize| format!("e{i}");
    let sections: Vec<Section> = frames
        .iter()
        .map(|&f| {
            let notes = (0..entries.len())
                .filter(|&c| {
                    entries[c].parent == Some(f)
                        && !matches!(entries[c].kind, Kind::Frame | Kind::Connector)
                })
                .map(|c| NoteSpec {
                    key: key(c),
                    text: entries[c].text.clone(),
                    color: entries[c].color.clone(),
                })
                .collect();
            let mut s = Section::new(key(f), entries[f].text.clone(), notes);
            s.color = entries[f].color.clone();
            s
        })
        .collect();
    let l = match d {
        LayoutDirective::Swot2x2 => templates::swot(&sections),
        LayoutDirective::JourneyStages => templates::journey(&sections),
        _ => templates::columns(&sections),
    };
    let index: HashMap<String, usize> = (0..entries.len()).map(|i| (key(i), i)).collect();
    for item in &l.items {
        if let Some(&i) = index.get(&item.key) {
            entries[i].rect = item.rect;
            entries[i].size = (item.rect.w, item.rect.h);
            if entries[i].color.is_none() {
                entries[i].color.clone_from(&item.color);
            }
            covered[i] = true;
        }
    }
    let auto = l
        .connectors
        .iter()
        .filter_map(|c| Some((*index.get(&c.from)?, *index.get(&c.to)?)))
        .collect();
    (covered, auto)
}

/// Stacks each frame's children (R21) bottom-up and sizes the frame to fit them (R23); children
/// get positions relative to their frame's top-left corner.
fn nest(entries: &mut [Entry], todo: &[bool]) -> Vec<(f64, f64)> {
    let mut local = vec![(0.0, 0.0); entries.len()];
    for f in (0..entries.len()).rev() {
        if !todo[f] || entries[f].kind != Kind::Frame {
            continue;
        }
        let kids: Vec<usize> = (f + 1..entries.len())
            .filter(|&c| {
                todo[c] && entries[c].parent == Some(f) && entries[c].kind != Kind::Connector
            })
            .collect();
        if kids.is_empty() {
            continue;
        }
        let mut y = FRAME_HEADER + NOTE_PADDING;
        let mut wmax: f64 = 0.0;
        for &c in &kids {
            local[c] = (NOTE_PADDING, y);
            y += entries[c].size.1 + NOTE_GAP;
            wmax = wmax.max(entries[c].size.0);
        }
        let title_w = estimate_size(&entries[f].text, TextKind::Frame).0;
        let need = (
            (wmax + 2.0 * NOTE_PADDING).max(title_w),
            y - NOTE_GAP + NOTE_PADDING,
        );
        entries[f].size = (clamp_size(need.0), clamp_size(need.1));
    }
    local
}

/// Arranges the top-level entries of `todo` by the directive, then places children inside their
/// frames. Returns the rects in group coordinates (top-left of the group at the origin).
pub(super) fn generic_part(
    d: Option<LayoutDirective>,
    columns: Option<usize>,
    entries: &mut [Entry],
    todo: &[bool],
) {
    let local = nest(entries, todo);
    let top: Vec<usize> = (0..entries.len())
        .filter(|&i| todo[i] && entries[i].parent.is_none() && entries[i].kind != Kind::Connector)
        .collect();
    let (placed, free): (Vec<usize>, Vec<usize>) = top
        .into_iter()
        .partition(|&i| entries[i].explicit.is_some());
    for &i in &placed {
        if let Some((x, y)) = entries[i].explicit {
            entries[i].rect = Rect::new(x, y, entries[i].size.0, entries[i].size.1);
        }
    }
    let nodes: Vec<Node> = free
        .iter()
        .map(|&i| Node::new(format!("e{i}"), entries[i].size.0, entries[i].size.1))
        .collect();
    let top_of = |mut i: usize, entries: &[Entry]| {
        let mut hops = 0;
        while let Some(p) = entries[i].parent {
            i = p;
            hops += 1;
            if hops > entries.len() {
                break;
            }
        }
        i
    };
    let edges: Vec<Edge> = entries
        .iter()
        .filter_map(|e| match (&e.from, &e.to) {
            (Some(End::Entry(a)), Some(End::Entry(b))) => {
                let (a, b) = (top_of(*a, entries), top_of(*b, entries));
                (a != b).then(|| Edge::new(format!("e{a}"), format!("e{b}")))
            }
            _ => None,
        })
        .collect();
    let a = match d {
        Some(LayoutDirective::Grid) => match columns.filter(|c| *c > 0) {
            Some(c) => directives::grid_with_columns(&nodes, FRAME_GAP, c),
            None => directives::grid(&nodes, FRAME_GAP),
        },
        Some(LayoutDirective::Rows) => directives::rows(&nodes, FRAME_GAP),
        Some(LayoutDirective::FlowchartTopDown) => {
            directives::flowchart(&nodes, &edges, Direction::TopDown, FRAME_GAP)
        }
        Some(LayoutDirective::FlowchartLeftRight) => {
            directives::flowchart(&nodes, &edges, Direction::LeftRight, FRAME_GAP)
        }
        Some(LayoutDirective::Freeform) => directives::freeform(&nodes, FRAME_GAP),
        _ => directives::row(&nodes, FRAME_GAP),
    };
    for (k, &i) in free.iter().enumerate() {
        let r = a
            .nodes
            .get(k)
            .map(|p| p.rect)
            .unwrap_or_else(|| Rect::new(0.0, 0.0, entries[i].size.0, entries[i].size.1));
        entries[i].rect = r;
    }
    // Children after their parents (parents always come first in entry order).
    for c in 0..entries.len() {
        if !todo[c] || entries[c].kind == Kind::Connector {
            continue;
        }
        if let Some(p) = entries[c].parent {
            let base = entries[p].rect;
            entries[c].rect = Rect::new(
                base.x + local[c].0,
                base.y + local[c].1,
                entries[c].size.0,
                entries[c].size.1,
            );
        }
    }
}

pub(super) fn subtree_of(entries: &[Entry], root: usize) -> Vec<usize> {
    let mut out = vec![root];
    let mut k = 0;
    while k < out.len() {
        let cur = out[k];
        out.extend((cur + 1..entries.len()).filter(|&c| entries[c].parent == Some(cur)));
        k += 1;
    }
    out
}
