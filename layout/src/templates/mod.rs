//! Templates that produce positioned frames, notes and connectors (SWOT, columns, journey,
//! frame with notes) and frame fitting.
//!
//! Every template returns a [`Layout`] with its bounding box's top-left corner at `(0, 0)`;
//! the caller translates it into open space.

mod boards;
mod fit;

pub use boards::{columns, journey, swot};
pub use fit::{fit_frame_rect, fit_frame_to_children, fit_frames};

use serde::{Deserialize, Serialize};

use crate::geom::Rect;
use crate::text::{TextKind, estimate_size};

/// Height of a frame's title strip.
pub const FRAME_HEADER: f64 = 50.0;
/// Padding between a frame's border (or title strip) and its children.
pub const NOTE_PADDING: f64 = 30.0;
/// Gap between notes inside a frame.
pub const NOTE_GAP: f64 = 20.0;
/// Gap between frames of a template.
pub const FRAME_GAP: f64 = 60.0;
/// Narrowest frame a template makes: one note plus padding.
pub const MIN_FRAME_W: f64 = 200.0 + 2.0 * NOTE_PADDING;
/// Default section colours of a SWOT (strengths, weaknesses, opportunities, threats).
pub const SWOT_COLORS: [&str; 4] = ["green", "light-red", "light-blue", "orange"];

/// Kind of a positioned object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ItemKind {
    /// A frame: holds children through their `parent`.
    Frame,
    /// A sticky note.
    Note,
    /// A shape.
    Shape,
    /// Free text.
    Text,
}

/// A positioned object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Caller-supplied key.
    pub key: String,
    /// What it is.
    pub kind: ItemKind,
    /// Where it is (page coordinates once translated).
    pub rect: Rect,
    /// Key of the containing frame.
    pub parent: Option<String>,
    /// Text (a frame's title).
    pub text: String,
    /// Palette colour name; `None` means the kind's default.
    pub color: Option<String>,
}

/// A connector between two items (it has no rectangle: it follows its ends).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connector {
    /// Key of the connector.
    pub key: String,
    /// Key of the source item.
    pub from: String,
    /// Key of the target item.
    pub to: String,
}

/// Positioned items and the connectors between them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// Frames first, then their children, in creation order.
    pub items: Vec<Item>,
    /// Connectors, after the items they join.
    pub connectors: Vec<Connector>,
}

impl Layout {
    /// The item with this key.
    pub fn item(&self, key: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.key == key)
    }

    /// Items whose parent is `key`, in order.
    pub fn children<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a Item> + 'a {
        self.items
            .iter()
            .filter(move |i| i.parent.as_deref() == Some(key))
    }

    /// Bounding box of every item.
    pub fn bounds(&self) -> Option<Rect> {
        Rect::union_all(self.items.iter().map(|i| &i.rect))
    }

    /// Moves every item by `(dx, dy)`.
    pub fn translate(&mut self, dx: f64, dy: f64) {
        for i in &mut self.items {
            i.rect = i.rect.translated(dx, dy);
        }
    }

    /// Shifts everything so the bounding box starts at `(0, 0)`.
    pub fn normalize(&mut self) {
        if let Some(b) = self.bounds() {
            self.translate(-b.x, -b.y);
        }
    }
}

/// A note to put in a template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteSpec {
    /// Caller's key.
    pub key: String,
    /// Its text.
    pub text: String,
    /// Palette colour name (`None`: default yellow).
    pub color: Option<String>,
}

impl NoteSpec {
    /// A note with the default colour.
    pub fn new(key: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            text: text.into(),
            color: None,
        }
    }
}

/// A titled frame with notes: a SWOT quadrant, a column, a journey stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// Key of the frame.
    pub key: String,
    /// Frame title.
    pub title: String,
    /// Frame colour name (`None`: the template's default).
    pub color: Option<String>,
    /// Notes inside, in order.
    pub notes: Vec<NoteSpec>,
}

impl Section {
    /// A section with the default colour.
    pub fn new(key: impl Into<String>, title: impl Into<String>, notes: Vec<NoteSpec>) -> Self {
        Self {
            key: key.into(),
            title: title.into(),
            color: None,
            notes,
        }
    }
}

/// Height of a frame whose children (of these heights) are stacked with padding below the
/// title strip; an empty frame still has room for half a note.
pub fn frame_height(child_heights: &[f64]) -> f64 {
    let content = if child_heights.is_empty() {
        100.0
    } else {
        child_heights.iter().sum::<f64>() + NOTE_GAP * (child_heights.len() - 1) as f64
    };
    FRAME_HEADER + 2.0 * NOTE_PADDING + content
}

/// A frame at `(0, 0)` with its notes stacked inside, padded below the title strip; its height
/// comes from its children (LAYOUT-6).
pub fn frame_with_notes(section: &Section) -> Layout {
    let mut l = section_frame(section, 1, None);
    l.normalize();
    l
}

/// Lays out one section at the origin with its notes in a grid of `cols` columns; the frame
/// colour falls back to `default_color`.
pub(crate) fn section_frame(s: &Section, cols: usize, default_color: Option<&str>) -> Layout {
    let cols = cols.max(1);
    let sizes: Vec<(f64, f64)> = s
        .notes
        .iter()
        .map(|n| estimate_size(&n.text, TextKind::Note))
        .collect();
    let cw = sizes.iter().map(|s| s.0).fold(0.0, f64::max);
    let used = cols.min(sizes.len()).max(1) as f64;
    let title_w = estimate_size(&s.title, TextKind::Frame).0;
    let w = (2.0 * NOTE_PADDING + used * cw + (used - 1.0) * NOTE_GAP)
        .max(title_w)
        .max(MIN_FRAME_W);
    let mut items = vec![Item {
        key: s.key.clone(),
        kind: ItemKind::Frame,
        rect: Rect::default(),
        parent: None,
        text: s.title.clone(),
        color: s.color.clone().or(default_color.map(str::to_owned)),
    }];
    let mut row_heights = Vec::new();
    for chunk in sizes.chunks(cols) {
        row_heights.push(chunk.iter().map(|s| s.1).fold(0.0, f64::max));
    }
    let mut y = FRAME_HEADER + NOTE_PADDING;
    for (r, chunk) in s.notes.chunks(cols).enumerate() {
        for (c, n) in chunk.iter().enumerate() {
            let (nw, nh) = sizes[r * cols + c];
            let x = NOTE_PADDING + c as f64 * (cw + NOTE_GAP);
            items.push(Item {
                key: n.key.clone(),
                kind: ItemKind::Note,
                rect: Rect::new(x, y, nw, nh),
                parent: Some(s.key.clone()),
                text: n.text.clone(),
                color: n.color.clone(),
            });
        }
        y += row_heights[r] + NOTE_GAP;
    }
    items[0].rect = Rect::new(0.0, 0.0, w, frame_height(&row_heights));
    Layout {
        items,
        connectors: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_6_frame_height_from_children() {
        assert_eq!(frame_height(&[200.0, 200.0]), 50.0 + 60.0 + 420.0);
        let s = Section::new(
            "f",
            "Ideas",
            vec![NoteSpec::new("a", "x"), NoteSpec::new("b", "y")],
        );
        let l = frame_with_notes(&s);
        let f = l.item("f").map(|i| i.rect).unwrap_or_default();
        assert_eq!(f.h, 530.0);
        assert!(l.children("f").all(|c| f.contains(&c.rect)));
        assert_eq!(l.children("f").count(), 2);
    }
}
