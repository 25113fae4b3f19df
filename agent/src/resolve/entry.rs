//! The batch's entries (one per operation that survives the skip rules), read by the batch
//! resolution and by the layouts that arrange them: a leaf of `resolve`.

use layout::Rect;
use protocol::{Arrow, Geo, Kind, ObjectId};

/// A connector's end: an entry of the batch or an object on the board.
#[derive(Debug, Clone)]
pub(super) enum End {
    Entry(usize),
    Existing(ObjectId),
}

/// One object of the batch, as it is arranged and placed.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) id: ObjectId,
    pub(super) kind: Kind,
    pub(super) geo: Option<Geo>,
    pub(super) equal_sides: bool,
    pub(super) text: String,
    pub(super) color: Option<String>,
    pub(super) parent: Option<usize>,
    pub(super) explicit: Option<(f64, f64)>,
    pub(super) size: (f64, f64),
    pub(super) rect: Rect,
    pub(super) from: Option<End>,
    pub(super) to: Option<End>,
    pub(super) arrow: Option<Arrow>,
    /// An existing frame the entry goes in (`parentId`).
    pub(super) host: Option<ObjectId>,
}

impl Entry {
    pub(super) fn new(kind: Kind, text: String, color: Option<String>) -> Self {
        Entry {
            id: ObjectId::random(),
            kind,
            geo: None,
            equal_sides: false,
            text,
            color,
            parent: None,
            explicit: None,
            size: kind.default_size(),
            rect: Rect::default(),
            from: None,
            to: None,
            arrow: None,
            host: None,
        }
    }
}
