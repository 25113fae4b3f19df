//! PostgreSQL's SQL for comment threads and notifications (COMMENT-n): the tables and the calls
//! behind `Backend::{save_thread, load_threads, notifications, mark_read}` (the interface is
//! `comments.rs`).

use super::StoreError;
use super::cluster::check_epoch;
use super::comments::{MAX_NOTIFICATIONS, NoteReason, Notification, ThreadRow};
use super::postgres::{PgStore, Slot, commit, pg_err, with_conn};
use protocol::BoardId;
use tokio_postgres::NoTls;

/// The tables (the "comments" migration).
pub(super) const TABLES: &str = "
CREATE TABLE comment_threads (board TEXT NOT NULL, id TEXT NOT NULL, cseq BIGINT NOT NULL,
    open BOOLEAN NOT NULL, data TEXT NOT NULL, PRIMARY KEY (board, id));
CREATE TABLE comment_notes (user_id TEXT NOT NULL, thread TEXT NOT NULL, board TEXT NOT NULL,
    reason TEXT NOT NULL, at_ms BIGINT NOT NULL, read_at BIGINT,
    PRIMARY KEY (user_id, thread));
CREATE INDEX comment_notes_board ON comment_notes (board);
";

/// Writes the thread (unless the stored row is newer) and its notifications in one transaction
/// (a fenced store: only at the epoch it holds).
pub(super) async fn save(
    s: &PgStore,
    board: &BoardId,
    row: &ThreadRow,
    notes: &[Notification],
) -> Result<(), StoreError> {
    let id = board.as_str();
    let epoch = s.held(board)?;
    let r = with_conn!(s, Slot::Others, true, |c, committing| {
        let tx = c.client.transaction().await.map_err(pg_err)?;
        if let Some(e) = epoch {
            check_epoch(&tx, board, e).await?;
        }
        tx.execute(
            "INSERT INTO comment_threads (board, id, cseq, open, data) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (board, id) DO UPDATE SET cseq = excluded.cseq, open = excluded.open, \
             data = excluded.data WHERE excluded.cseq > comment_threads.cseq",
            &[&id, &row.id, &row.cseq, &row.open, &row.data],
        )
        .await
        .map_err(pg_err)?;
        for n in notes {
            tx.execute(
                "INSERT INTO comment_notes (user_id, thread, board, reason, at_ms, read_at) \
                 VALUES ($1, $2, $3, $4, $5, NULL) ON CONFLICT (user_id, thread) DO UPDATE SET \
                 reason = excluded.reason, at_ms = excluded.at_ms, read_at = NULL",
                &[&n.user, &n.thread, &n.board, &n.reason.as_str(), &n.at_ms],
            )
            .await
            .map_err(pg_err)?;
        }
        commit(tx, committing).await
    });
    s.settle(board, epoch, r)
}

/// Every thread row of a board, by id.
pub(super) async fn load(s: &PgStore, board: &BoardId) -> Result<Vec<ThreadRow>, StoreError> {
    let id = board.as_str();
    with_conn!(s, Slot::Others, true, |c, committing| {
        let rows = c
            .client
            .query(
                "SELECT id, cseq, open, data FROM comment_threads WHERE board = $1 ORDER BY id",
                &[&id],
            )
            .await
            .map_err(pg_err)?;
        Ok(rows
            .iter()
            .map(|r| ThreadRow {
                id: r.get(0),
                cseq: r.get(1),
                open: r.get(2),
                data: r.get(3),
            })
            .collect())
    })
}

/// A user's notifications, newest first.
pub(super) async fn notes(s: &PgStore, user: &str) -> Result<Vec<Notification>, StoreError> {
    with_conn!(s, Slot::Others, true, |c, committing| {
        let rows = c
            .client
            .query(
                "SELECT board, thread, reason, at_ms, read_at FROM comment_notes \
                 WHERE user_id = $1 ORDER BY at_ms DESC, thread LIMIT $2",
                &[&user, &MAX_NOTIFICATIONS],
            )
            .await
            .map_err(pg_err)?;
        Ok(rows
            .iter()
            .map(|r| Notification {
                user: user.to_owned(),
                board: r.get(0),
                thread: r.get(1),
                reason: NoteReason::parse(r.get::<_, &str>(2)),
                at_ms: r.get(3),
                read_at: r.get(4),
            })
            .collect())
    })
}

/// Marks notifications read.
pub(super) async fn mark_read(
    s: &PgStore,
    user: &str,
    threads: Option<&[String]>,
    now: i64,
) -> Result<(), StoreError> {
    with_conn!(s, Slot::Others, true, |c, committing| {
        let set = "UPDATE comment_notes SET read_at = $2 WHERE user_id = $1 AND read_at IS NULL";
        match threads {
            None => c.client.execute(set, &[&user, &now]).await,
            Some(ts) => {
                let sql = format!("{set} AND thread = ANY($3)");
                c.client.execute(&sql, &[&user, &now, &ts]).await
            }
        }
        .map_err(pg_err)?;
        Ok(())
    })
}
