//! `presence`: cursors, selections, viewports and the object being edited, coalesced per user.

use crate::board::Board;
use protocol::{ObjectId, Point, UserId, Viewport};

/// Most ids a presence selection carries.
const MAX_SELECTION: usize = 1000;

impl Board {
    pub(super) fn presence(
        &mut self,
        user: &UserId,
        cursor: Option<Point>,
        selection: Option<Vec<ObjectId>>,
        viewport: Option<Viewport>,
        editing: Option<Option<ObjectId>>,
    ) {
        let Some(s) = self.users.get_mut(user) else {
            return;
        };
        if cursor.is_some() {
            s.presence.cursor = cursor;
        }
        if let Some(mut sel) = selection {
            sel.truncate(MAX_SELECTION);
            s.presence.selection = Some(sel);
        }
        if viewport.is_some() {
            s.presence.viewport = viewport;
        }
        if let Some(editing) = editing {
            s.presence.editing = editing;
        }
        self.presence_dirty.insert(user.clone());
    }
}
