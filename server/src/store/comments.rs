//! Comment threads (COMMENT-n) and the notifications they raise: the interface, the same for
//! every backend. A thread is one row per (board, thread): its whole state as JSON (comments,
//! reactions, resolution, and where it was pinned before its object was deleted) with the
//! board's comment seq (`cseq`) of its last change. A write never replaces a row with an older
//! `cseq`, so writes that race keep the newest. A board's `cseq` is the highest of its rows.
//! Notifications are one row per (user, thread). Each backend's SQL is in its own file
//! (`sqlite_comments.rs`, `postgres_comments.rs`, `memory.rs`), behind `Backend`.

use super::backend::Backend;
use super::{Store, StoreError};
use protocol::{BoardId, Cseq, ObjectId, Thread};
use serde::{Deserialize, Serialize};

/// Where an object anchor was before its object was deleted: the thread re-attaches there when
/// the object comes back (an undo, a restore).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Detached {
    pub object: ObjectId,
    pub fx: f64,
    pub fy: f64,
}

/// A thread as stored: the wire thread and what only the server keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredThread {
    pub thread: Thread,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detached: Option<Detached>,
    /// The board's comment seq of its last change.
    pub cseq: Cseq,
}

/// A thread's row, encoded.
#[derive(Debug, Clone)]
pub(super) struct ThreadRow {
    pub id: String,
    pub cseq: i64,
    pub open: bool,
    pub data: String,
}

/// Why someone is told of a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteReason {
    /// They were mentioned in it.
    Mention,
    /// Someone replied in a thread they wrote in.
    Reply,
}

impl NoteReason {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            NoteReason::Mention => "mention",
            NoteReason::Reply => "reply",
        }
    }

    pub(super) fn parse(s: &str) -> NoteReason {
        if s == "mention" {
            NoteReason::Mention
        } else {
            NoteReason::Reply
        }
    }
}

/// A user's notification of one thread (the latest reason wins; unread again on news).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    pub user: String,
    pub board: String,
    pub thread: String,
    pub reason: NoteReason,
    /// Unix milliseconds of the news.
    pub at_ms: i64,
    /// Unix milliseconds it was marked read (None: unread).
    pub read_at: Option<i64>,
}

/// Most notifications a user is shown.
pub const MAX_NOTIFICATIONS: i64 = 200;

impl Store {
    /// Writes a thread at `cseq` (unless the stored row is newer) and the notifications it
    /// raises, in one transaction: durable on `Ok`.
    pub async fn save_thread(
        &self,
        board: &BoardId,
        thread: &StoredThread,
        notes: Vec<Notification>,
    ) -> Result<(), StoreError> {
        let data = serde_json::to_string(thread)
            .map_err(|e| StoreError::Corrupt(format!("thread not serializable: {e}")))?;
        let row = ThreadRow {
            id: thread.thread.id.clone(),
            cseq: i64::try_from(thread.cseq).unwrap_or(i64::MAX),
            open: thread.thread.resolved.is_none(),
            data,
        };
        dispatch!(self, s => s.save_thread(board, row, notes).await)
    }

    /// Every thread of a board, by id.
    pub async fn load_threads(&self, board: &BoardId) -> Result<Vec<StoredThread>, StoreError> {
        let rows = dispatch!(self, s => s.load_threads(board).await)?;
        rows.into_iter()
            .map(|r| {
                serde_json::from_str(&r.data)
                    .map_err(|e| StoreError::Corrupt(format!("thread {}: {e}", r.id)))
            })
            .collect()
    }

    /// A user's notifications, newest first (at most [`MAX_NOTIFICATIONS`]).
    pub async fn notifications(&self, user: &str) -> Result<Vec<Notification>, StoreError> {
        dispatch!(self, s => s.notifications(user).await)
    }

    /// Marks a user's notifications of these threads (None: all) read at `now` (unix ms).
    pub async fn mark_read(
        &self,
        user: &str,
        threads: Option<Vec<String>>,
        now: i64,
    ) -> Result<(), StoreError> {
        dispatch!(self, s => s.mark_read(user, threads, now).await)
    }
}
