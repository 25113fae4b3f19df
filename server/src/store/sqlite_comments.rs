//! SQLite's SQL for comment threads and notifications (COMMENT-n): the tables and the calls
//! behind `Backend::{save_thread, load_threads, notifications, mark_read}` (the interface is
//! `comments.rs`).

use super::StoreError;
use super::comments::{MAX_NOTIFICATIONS, NoteReason, Notification, ThreadRow};
use super::sqlite::{SqliteStore, sql_err};
use protocol::BoardId;
use rusqlite::{TransactionBehavior, params};

/// The tables (the "comments" migration).
pub(super) const TABLES: &str = "
CREATE TABLE comment_threads (board TEXT NOT NULL, id TEXT NOT NULL, cseq INTEGER NOT NULL,
    open INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (board, id)) WITHOUT ROWID;
CREATE TABLE comment_notes (user_id TEXT NOT NULL, thread TEXT NOT NULL, board TEXT NOT NULL,
    reason TEXT NOT NULL, at_ms INTEGER NOT NULL, read_at INTEGER,
    PRIMARY KEY (user_id, thread)) WITHOUT ROWID;
CREATE INDEX comment_notes_board ON comment_notes (board);
";

/// Writes the thread (unless the stored row is newer) and its notifications in one transaction.
pub(super) async fn save(
    s: &SqliteStore,
    board: &BoardId,
    row: ThreadRow,
    notes: Vec<Notification>,
) -> Result<(), StoreError> {
    let board = board.clone();
    s.run(move |c| {
        let tx = c
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err)?;
        tx.execute(
            "INSERT INTO comment_threads (board, id, cseq, open, data) VALUES (?1, ?2, ?3, ?4, ?5) \
             ON CONFLICT (board, id) DO UPDATE SET cseq = excluded.cseq, open = excluded.open, \
             data = excluded.data WHERE excluded.cseq > comment_threads.cseq",
            params![board.as_str(), row.id, row.cseq, row.open, row.data],
        )
        .map_err(sql_err)?;
        for n in notes {
            tx.execute(
                "INSERT INTO comment_notes (user_id, thread, board, reason, at_ms, read_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, NULL) ON CONFLICT (user_id, thread) DO UPDATE SET \
                 reason = excluded.reason, at_ms = excluded.at_ms, read_at = NULL",
                params![n.user, n.thread, n.board, n.reason.as_str(), n.at_ms],
            )
            .map_err(sql_err)?;
        }
        tx.commit().map_err(sql_err)
    })
    .await
}

/// Every thread row of a board, by id.
pub(super) async fn load(s: &SqliteStore, board: &BoardId) -> Result<Vec<ThreadRow>, StoreError> {
    let board = board.clone();
    s.run(move |c| {
        let mut stmt = c
            .prepare_cached(
                "SELECT id, cseq, open, data FROM comment_threads WHERE board = ?1 ORDER BY id",
            )
            .map_err(sql_err)?;
        let rows = stmt
            .query_map([board.as_str()], |r| {
                Ok(ThreadRow {
                    id: r.get(0)?,
                    cseq: r.get(1)?,
                    open: r.get(2)?,
                    data: r.get(3)?,
                })
            })
            .map_err(sql_err)?;
        rows.collect::<Result<_, _>>().map_err(sql_err)
    })
    .await
}

/// A user's notifications, newest first.
pub(super) async fn notes(s: &SqliteStore, user: &str) -> Result<Vec<Notification>, StoreError> {
    let user = user.to_owned();
    s.run(move |c| {
        let mut stmt = c
            .prepare_cached(
                "SELECT board, thread, reason, at_ms, read_at FROM comment_notes \
                 WHERE user_id = ?1 ORDER BY at_ms DESC, thread LIMIT ?2",
            )
            .map_err(sql_err)?;
        let rows = stmt
            .query_map(params![user, MAX_NOTIFICATIONS], |r| {
                Ok(Notification {
                    user: user.clone(),
                    board: r.get(0)?,
                    thread: r.get(1)?,
                    reason: NoteReason::parse(&r.get::<_, String>(2)?),
                    at_ms: r.get(3)?,
                    read_at: r.get(4)?,
                })
            })
            .map_err(sql_err)?;
        rows.collect::<Result<_, _>>().map_err(sql_err)
    })
    .await
}

/// Marks notifications read.
pub(super) async fn mark_read(
    s: &SqliteStore,
    user: &str,
    threads: Option<Vec<String>>,
    now: i64,
) -> Result<(), StoreError> {
    let user = user.to_owned();
    s.run(move |c| {
        let tx = c
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql_err)?;
        let set = "UPDATE comment_notes SET read_at = ?2 WHERE user_id = ?1 AND read_at IS NULL";
        match threads {
            None => {
                tx.execute(set, params![user, now]).map_err(sql_err)?;
            }
            Some(ts) => {
                for t in ts {
                    tx.execute(&format!("{set} AND thread = ?3"), params![user, now, t])
                        .map_err(sql_err)?;
                }
            }
        }
        tx.commit().map_err(sql_err)
    })
    .await
}
