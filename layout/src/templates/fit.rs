//! Fitting frames to their children.

use std::collections::HashMap;

use super::{FRAME_HEADER, ItemKind, Layout, NOTE_PADDING};
use crate::geom::Rect;
use crate::text::{TextKind, estimate_size};

/// The rectangle a frame titled `title` needs to hold `children` with padding on every side and
/// the title strip above them: exactly the children's bounds plus padding, never narrower than
/// the title; `frame` unchanged when there are no children (LAYOUT-6).
pub fn fit_frame_rect(frame: Rect, title: &str, children: &[Rect]) -> Rect {
    let Some(b) = Rect::union_all(children) else {
        return frame;
    };
    let title_w = estimate_size(title, TextKind::Frame).0;
    let w = (b.w + 2.0 * NOTE_PADDING).max(title_w);
    Rect::new(
        b.x - NOTE_PADDING,
        b.y - NOTE_PADDING - FRAME_HEADER,
        w,
        b.h + 2.0 * NOTE_PADDING + FRAME_HEADER,
    )
}

/// Fits the frame `key` of `layout` to its direct children; returns whether it is a frame with
/// children (and was fitted).
pub fn fit_frame_to_children(layout: &mut Layout, key: &str) -> bool {
    let Some(fi) = layout
        .items
        .iter()
        .position(|i| i.key == key && i.kind == ItemKind::Frame)
    else {
        return false;
    };
    let kids: Vec<Rect> = layout.children(key).map(|c| c.rect).collect();
    if kids.is_empty() {
        return false;
    }
    let f = &mut layout.items[fi];
    f.rect = fit_frame_rect(f.rect, &f.text, &kids);
    true
}

/// Fits every frame of `layout` to its children, innermost frames first, so nested frames
/// grow their parents (run after any layout). Parent cycles are ignored.
pub fn fit_frames(layout: &mut Layout) {
    let index: HashMap<&str, usize> = layout
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| (it.key.as_str(), i))
        .collect();
    let depth = |mut i: usize| {
        let mut d = 0;
        while let Some(p) = layout.items[i].parent.as_deref().and_then(|p| index.get(p)) {
            d += 1;
            i = *p;
            if d > layout.items.len() {
                break;
            }
        }
        d
    };
    let mut frames: Vec<(usize, String)> = layout
        .items
        .iter()
        .enumerate()
        .filter(|(_, it)| it.kind == ItemKind::Frame)
        .map(|(i, it)| (depth(i), it.key.clone()))
        .collect();
    frames.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, key) in frames {
        fit_frame_to_children(layout, &key);
    }
}
