//! The embedded backend: `boards.db` under the data dir, WAL mode, `synchronous=FULL` (a commit
//! returns once the WAL is fsynced). WAL checkpoints run on a thread of their own (see
//! `store/checkpoint.rs`), never inside a commit. One connection for everything else, behind a
//! std mutex that is only ever taken inside `spawn_blocking` or on the log writer's own thread
//! (`append_now`), so the async runtime never blocks on SQLite or on the lock.
//! An error (disk full, I/O) rolls the open transaction back and leaves the connection usable:
//! the next call works as soon as the disk does.

use super::backend::Backend;
use super::checkpoint::Checkpointer;
use super::comments::{Notification, ThreadRow};
use super::sqlite_tx::{append_rows, board_stored, stored_seq, write_snapshot};
use super::versions::{NewVersion, VersionRow};
use super::{
    BoardInfo, EncodedRecord, EncodedSnapshot, LoadedBoard, RawRow, StoreError, Truncation,
    board_from_db, check_tail, decode_snapshot, now_ms, repair_reason, seq_from_db, seq_to_db,
    warn_truncated,
};
use super::{read_after, split_behind};
use super::{sqlite_comments, sqlite_versions};
use protocol::{BoardId, Seq};
use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The database file name under the data dir.
pub const FILE_NAME: &str = "boards.db";

/// The writer's connection checkpoints itself once the WAL holds this many frames (~16 MiB). The
/// checkpoint thread copies nearly everything long before, so this checkpoint only copies what
/// arrived since its last pass; what it buys is a WAL that is fully copied at the start of the
/// writer's next transaction, the one moment SQLite can start the WAL over. Under a steady
/// stream of commits the thread alone never finds that moment, and the WAL grew by every byte
/// written (400 MB in 12 s at 25,000 durable updates/s), each frame into newly allocated blocks.
pub const WAL_RESTART_FRAMES: i64 = 4096;
/// A WAL that a large transaction (a migration, a fold at open) made bigger than this is cut back
/// to it when it restarts.
const WAL_LIMIT_BYTES: i64 = 64 * 1024 * 1024;

/// Most page cache per connection, KiB. At the end of every write transaction SQLite walks the
/// cache's page table (`pcache1TruncateUnsafe`), a cost that grows with the pages cached: with
/// 32 or 16 MiB it took 10-11 % of the log writer's time at 100 boards × 5 clients, with 8 MiB
/// 4 %, and the writer's CPU per record fell 6 % (pages it no longer caches are read back from
/// the OS's page cache).
const CACHE_KIB: i64 = 8 * 1024;

/// The connection, and whether a snapshot left `synchronous` relaxed (the next append sets it
/// back to FULL first).
pub(crate) struct Db {
    pub(super) conn: Connection,
    pub(super) relaxed: bool,
}

/// See the module docs.
#[derive(Clone)]
pub struct SqliteStore {
    db: Arc<Mutex<Db>>,
    path: Arc<PathBuf>,
    /// Stops the checkpoint thread when the last clone is dropped.
    _checkpointer: Option<Arc<Checkpointer>>,
    /// One snapshot at a time: a thousand boards reaching their snapshot point together queue
    /// here (asynchronously) instead of in front of the log writer on the connection's lock.
    snapshots: Arc<tokio::sync::Semaphore>,
    /// The deadline of every call (STORE-29).
    timeout: Duration,
}

pub(super) fn sql_err(e: rusqlite::Error) -> StoreError {
    use rusqlite::Error as E;
    match &e {
        E::SqliteFailure(f, _) => match f.code {
            ErrorCode::ConstraintViolation => StoreError::Conflict(e.to_string()),
            ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => {
                StoreError::Corrupt(e.to_string())
            }
            _ => StoreError::Unavailable(format!("sqlite: {e}")),
        },
        E::FromSqlConversionFailure(..)
        | E::IntegralValueOutOfRange(..)
        | E::InvalidColumnType(..) => StoreError::Corrupt(format!("sqlite: {e}")),
        _ => StoreError::Unavailable(format!("sqlite: {e}")),
    }
}

fn open_blocking(dir: &Path, timeout: Duration) -> Result<Connection, StoreError> {
    std::fs::create_dir_all(dir).map_err(|e| {
        StoreError::Unavailable(format!("cannot create data dir {}: {e}", dir.display()))
    })?;
    let mut conn = Connection::open(dir.join(FILE_NAME)).map_err(sql_err)?;
    // Room for the log's hot pages (the default is 2 MiB): pages are allocated as used.
    conn.pragma_update(None, "cache_size", -CACHE_KIB)
        .map_err(sql_err)?;
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
        .map_err(sql_err)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Unavailable(format!(
            "sqlite refused WAL mode ({mode})"
        )));
    }
    conn.pragma_update(None, "synchronous", "FULL")
        .map_err(sql_err)?;
    conn.pragma_update(None, "journal_size_limit", WAL_LIMIT_BYTES)
        .map_err(sql_err)?;
    conn.busy_timeout(timeout).map_err(sql_err)?;
    keep_wal_files(&conn)?;
    super::sqlite_schema::migrate(&mut conn)?;
    Ok(conn)
}

/// Keeps the WAL and its index (`-wal`, `-shm`) when the last connection closes, the WAL emptied:
/// a server restarted on a full disk needs them to read the database at all, and could not
/// create the index's pages there (DUR-8).
pub(crate) fn keep_wal_files(conn: &Connection) -> Result<(), StoreError> {
    let mut on: std::ffi::c_int = 1;
    conn.file_control(
        Some(rusqlite::MAIN_DB),
        rusqlite::FileControl::PersistWal(&mut on),
    )
    .map_err(sql_err)
}

impl SqliteStore {
    pub(super) async fn open(dir: &Path, timeout: Duration) -> Result<Self, StoreError> {
        let dir = dir.to_path_buf();
        let path = dir.join(FILE_NAME);
        let (db, checkpointer) = tokio::task::spawn_blocking(move || {
            let db = Db {
                conn: open_blocking(&dir, timeout)?,
                relaxed: false,
            };
            // Checkpoints move to a thread of their own, the writer's connection keeping only
            // the one that lets the WAL restart (see `WAL_RESTART_FRAMES`); if the thread cannot
            // start, SQLite's automatic checkpoint (in the writer's commits) stays as it is.
            let checkpointer = match Checkpointer::start(&dir.join(FILE_NAME)) {
                Ok(c) => {
                    db.conn
                        .pragma_update(None, "wal_autocheckpoint", WAL_RESTART_FRAMES)
                        .map_err(sql_err)?;
                    Some(Arc::new(c))
                }
                Err(e) => {
                    tracing::warn!(error = %e, "sqlite checkpoints stay in the writer's commits");
                    None
                }
            };
            Ok::<_, StoreError>((db, checkpointer))
        })
        .await
        .map_err(|e| StoreError::Unavailable(format!("sqlite open task failed: {e}")))??;
        tracing::info!(path = %path.display(), "sqlite store open");
        Ok(SqliteStore {
            db: Arc::new(Mutex::new(db)),
            path: Arc::new(path),
            _checkpointer: checkpointer,
            snapshots: Arc::new(tokio::sync::Semaphore::new(1)),
            timeout,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// An integer pragma of the connection, e.g. `synchronous` (2 = FULL) or
    /// `wal_autocheckpoint` ([`WAL_RESTART_FRAMES`] while the checkpoint thread runs).
    #[cfg(test)]
    pub async fn pragma(&self, name: &'static str) -> Result<i64, StoreError> {
        self.run(move |c| {
            c.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
                .map_err(sql_err)
        })
        .await
    }

    /// Runs `f` on the connection on the blocking pool.
    pub(super) async fn run<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        self.run_db(move |db| f(&mut db.conn)).await
    }

    /// Runs `f` on the connection on the blocking pool, waiting at most the store's deadline
    /// (STORE-29): past it the caller gets `Unavailable` and `f` still runs when its turn comes
    /// (SQLite cannot abandon a write that is under way; its lock waits end at `busy_timeout`,
    /// set to the same deadline).
    async fn run_db<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Db) -> Result<T, StoreError> + Send + 'static,
    {
        let db = self.db.clone();
        // A panic inside `f` drops its transaction (rolled back): the connection stays sound.
        let task = tokio::task::spawn_blocking(move || {
            f(&mut db.lock().unwrap_or_else(|e| e.into_inner()))
        });
        match tokio::time::timeout(self.timeout, task).await {
            Ok(r) => r.map_err(|e| StoreError::Unavailable(format!("sqlite task failed: {e}")))?,
            Err(_) => Err(super::timed_out(self.timeout)),
        }
    }
}

impl Backend for SqliteStore {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    async fn append(&self, rows: Vec<EncodedRecord>) -> Result<(), StoreError> {
        self.run_db(move |db| append_rows(db, &rows)).await
    }

    /// On the calling thread (the log writer's own): one transaction. SQLite cannot abandon a
    /// write under way, so `budget` is not enforced here (its lock waits end at `busy_timeout`).
    fn append_blocking(
        &self,
        rows: Vec<EncodedRecord>,
        _runtime: &tokio::runtime::Handle,
        _budget: Duration,
    ) -> Result<(), StoreError> {
        append_rows(
            &mut self.db.lock().unwrap_or_else(|e| e.into_inner()),
            &rows,
        )
    }

    async fn load(&self, board: &BoardId) -> Result<Option<LoadedBoard>, StoreError> {
        let board = board.clone();
        self.run(move |c| {
            // Deferred: a load that repairs nothing only reads, so it works on a full disk.
            let tx = c.transaction().map_err(sql_err)?;
            let Some(recorded) = stored_seq(&tx, &board)? else {
                return Ok(None);
            };
            let snap: Option<(i64, Vec<u8>, i64)> = tx
                .query_row(
                    "SELECT seq, payload, crc FROM snapshots WHERE board = ?1",
                    [board.as_str()],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()
                .map_err(sql_err)?;
            let (snapshot_seq, objects) = match snap {
                Some((seq, payload, crc)) => {
                    let crc = u32::try_from(crc).map_err(|_| {
                        StoreError::Corrupt(format!("board {board}: snapshot checksum {crc}"))
                    })?;
                    (seq_from_db(seq)?, decode_snapshot(&board, &payload, crc)?)
                }
                None => (0, Vec::new()),
            };
            let rows = log_rows(&tx, &board, read_after(snapshot_seq))?;
            let (behind, rows) = split_behind(snapshot_seq, rows);
            let checked = check_tail(snapshot_seq, rows);
            let mut truncated = None;
            if let Some(reason) = repair_reason(&checked, recorded) {
                let kept = seq_to_db(checked.seq)?;
                let removed = tx
                    .execute(
                        "DELETE FROM log WHERE board = ?1 AND seq > ?2",
                        params![board.as_str(), kept],
                    )
                    .map_err(sql_err)?;
                tx.execute(
                    "UPDATE boards SET seq = ?2, updated_at = ?3 WHERE id = ?1",
                    params![board.as_str(), kept, now_ms()],
                )
                .map_err(sql_err)?;
                tx.commit().map_err(sql_err)?;
                let t = Truncation {
                    kept_seq: checked.seq,
                    removed: removed as u64,
                    reason,
                };
                warn_truncated("sqlite", &board, &t);
                truncated = Some(t);
            }
            Ok(Some(LoadedBoard {
                snapshot_seq,
                behind,
                objects,
                tail: checked.tail,
                seq: checked.seq,
                truncated,
            }))
        })
        .await
    }

    async fn save_snapshot(
        &self,
        board: &BoardId,
        seq: Seq,
        snap: EncodedSnapshot,
    ) -> Result<(), StoreError> {
        let board = board.clone();
        let _turn = self.snapshots.acquire().await;
        self.run_db(move |db| {
            let Db { conn: c, relaxed } = db;
            // A snapshot only compacts what the log already holds durably. If a crash loses
            // it, the deletion of the log rows it covers is lost with it (one transaction) and
            // the board loads from the log as before; the next fsynced commit makes it durable
            // anyway. So it skips the fsync and never holds the log writer up for one.
            *relaxed = true;
            c.pragma_update(None, "synchronous", "NORMAL")
                .map_err(sql_err)?;
            let r = write_snapshot(c, &board, seq, snap);
            let full = c
                .pragma_update(None, "synchronous", "FULL")
                .map_err(sql_err);
            if full.is_ok() {
                *relaxed = false;
            }
            r.and(full)
        })
        .await
    }

    async fn truncate_after(&self, board: &BoardId, seq: Seq) -> Result<(), StoreError> {
        let board = board.clone();
        self.run(move |c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(sql_err)?;
            let kept = seq_to_db(seq)?;
            tx.execute(
                "DELETE FROM log WHERE board = ?1 AND seq > ?2",
                params![board.as_str(), kept],
            )
            .map_err(sql_err)?;
            tx.execute(
                "UPDATE boards SET seq = max(?2, coalesce( \
                 (SELECT s.seq FROM snapshots s WHERE s.board = ?1), 0)), updated_at = ?3 \
                 WHERE id = ?1 AND seq > ?2",
                params![board.as_str(), kept, now_ms()],
            )
            .map_err(sql_err)?;
            tx.commit().map_err(sql_err)
        })
        .await
    }

    async fn list_boards(&self) -> Result<Vec<BoardInfo>, StoreError> {
        self.run(|c| {
            let mut stmt = c
                .prepare_cached(
                    "SELECT b.id, b.seq, coalesce(s.seq, 0), coalesce(s.objects, 0), \
                     b.created_at, b.updated_at \
                     FROM boards b LEFT JOIN snapshots s ON s.board = b.id ORDER BY b.id",
                )
                .map_err(sql_err)?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, i64>(5)?,
                    ))
                })
                .map_err(sql_err)?;
            let mut out = Vec::new();
            for row in rows {
                let (id, seq, snap_seq, objects, created, updated) = row.map_err(sql_err)?;
                out.push(BoardInfo {
                    id: board_from_db(id)?,
                    seq: seq_from_db(seq)?,
                    snapshot_seq: seq_from_db(snap_seq)?,
                    snapshot_objects: u64::try_from(objects).unwrap_or(0),
                    created_at_ms: created,
                    updated_at_ms: updated,
                });
            }
            Ok(out)
        })
        .await
    }

    async fn delete_board(&self, board: &BoardId) -> Result<bool, StoreError> {
        let board = board.clone();
        self.run(move |c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(sql_err)?;
            let mut n = 0;
            for sql in [
                "DELETE FROM log WHERE board = ?1",
                "DELETE FROM snapshots WHERE board = ?1",
                "DELETE FROM versions WHERE board = ?1",
                "DELETE FROM board_assets WHERE board = ?1",
                "DELETE FROM comment_threads WHERE board = ?1",
                "DELETE FROM comment_notes WHERE board = ?1",
                "DELETE FROM boards WHERE id = ?1",
            ] {
                n = tx.execute(sql, [board.as_str()]).map_err(sql_err)?;
            }
            tx.commit().map_err(sql_err)?;
            Ok(n > 0)
        })
        .await
    }

    async fn create_board(&self, board: &BoardId, snap: EncodedSnapshot) -> Result<(), StoreError> {
        let board = board.clone();
        self.run(move |c| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(sql_err)?;
            let n = tx
                .execute(
                    "INSERT INTO boards (id, created_at, updated_at, seq) VALUES (?1, ?2, ?2, 0) \
                     ON CONFLICT (id) DO NOTHING",
                    params![board.as_str(), now_ms()],
                )
                .map_err(sql_err)?;
            if n == 0 {
                return Err(StoreError::Conflict(format!("board {board} exists")));
            }
            tx.execute("DELETE FROM log WHERE board = ?1", [board.as_str()])
                .map_err(sql_err)?;
            tx.execute(
                "INSERT OR REPLACE INTO snapshots (board, seq, payload, crc, objects) \
                 VALUES (?1, 0, ?2, ?3, ?4)",
                params![
                    board.as_str(),
                    snap.payload,
                    i64::from(snap.crc),
                    i64::try_from(snap.objects).unwrap_or(i64::MAX)
                ],
            )
            .map_err(sql_err)?;
            tx.commit().map_err(sql_err)
        })
        .await
    }

    async fn board_exists(&self, board: &BoardId) -> Result<bool, StoreError> {
        let board = board.clone();
        self.run(move |c| board_stored(c, &board)).await
    }

    async fn save_version(&self, board: &BoardId, v: NewVersion) -> Result<i64, StoreError> {
        sqlite_versions::save(self, board, v).await
    }

    async fn list_versions(&self, board: &BoardId) -> Result<Vec<VersionRow>, StoreError> {
        sqlite_versions::list(self, board).await
    }

    async fn load_version(
        &self,
        board: &BoardId,
        id: i64,
    ) -> Result<Option<VersionRow>, StoreError> {
        sqlite_versions::load(self, board, id).await
    }

    async fn put_asset(
        &self,
        board: &BoardId,
        meta: &super::AssetMeta,
        data: bytes::Bytes,
        now: i64,
    ) -> Result<bool, StoreError> {
        super::sqlite_assets::put(self, board, meta, data, now).await
    }

    async fn register_asset(
        &self,
        board: &BoardId,
        sha256: &str,
        now: i64,
    ) -> Result<Option<bool>, StoreError> {
        super::sqlite_assets::register(self, board, sha256, now).await
    }

    async fn board_assets(&self, board: &BoardId) -> Result<Vec<super::AssetMeta>, StoreError> {
        super::sqlite_assets::of_board(self, board).await
    }

    async fn board_asset(
        &self,
        board: &BoardId,
        sha256: &str,
    ) -> Result<Option<super::AssetMeta>, StoreError> {
        super::sqlite_assets::one_of_board(self, board, sha256).await
    }

    async fn stale_assets(
        &self,
        seen_before: i64,
        max: usize,
    ) -> Result<Vec<super::Stale>, StoreError> {
        super::sqlite_assets::stale(self, seen_before, max).await
    }

    async fn mark_assets(
        &self,
        board: &BoardId,
        names: &[String],
        mark: super::Mark,
        now: i64,
    ) -> Result<u64, StoreError> {
        super::sqlite_assets::mark(self, board, names, mark, now).await
    }

    async fn drop_orphan_assets(&self) -> Result<u64, StoreError> {
        super::sqlite_assets::drop_orphans(self).await
    }

    async fn asset_bytes(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        super::sqlite_assets::bytes_of(self, sha256).await
    }

    async fn delete_versions(&self, board: &BoardId, ids: Vec<i64>) -> Result<(), StoreError> {
        sqlite_versions::delete(self, board, ids).await
    }

    async fn save_thread(
        &self,
        board: &BoardId,
        row: ThreadRow,
        notes: Vec<Notification>,
    ) -> Result<(), StoreError> {
        sqlite_comments::save(self, board, row, notes).await
    }

    async fn load_threads(&self, board: &BoardId) -> Result<Vec<ThreadRow>, StoreError> {
        sqlite_comments::load(self, board).await
    }

    async fn notifications(&self, user: &str) -> Result<Vec<Notification>, StoreError> {
        sqlite_comments::notes(self, user).await
    }

    async fn mark_read(
        &self,
        user: &str,
        threads: Option<Vec<String>>,
        now: i64,
    ) -> Result<(), StoreError> {
        sqlite_comments::mark_read(self, user, threads, now).await
    }

    #[cfg(test)]
    async fn inject_raw_log_row(&self, board: &BoardId, row: RawRow) -> Result<(), StoreError> {
        let board = board.clone();
        self.run(move |c| {
            c.execute(
                "INSERT OR REPLACE INTO log (board, seq, payload, crc) VALUES (?1, ?2, ?3, ?4)",
                params![board.as_str(), seq_to_db(row.seq)?, row.payload, row.crc],
            )
            .map(|_| ())
            .map_err(sql_err)
        })
        .await
    }

    #[cfg(test)]
    async fn raw_log_seqs(&self, board: &BoardId) -> Result<Vec<Seq>, StoreError> {
        let board = board.clone();
        self.run(move |c| {
            let tx = c.transaction().map_err(sql_err)?;
            Ok(log_rows(&tx, &board, 0)?
                .into_iter()
                .map(|r| r.seq)
                .collect())
        })
        .await
    }
}

/// A board's log rows after `after`, in seq order, as stored.
fn log_rows(c: &Connection, board: &BoardId, after: Seq) -> Result<Vec<RawRow>, StoreError> {
    let mut stmt = c
        .prepare_cached(
            "SELECT seq, payload, crc FROM log WHERE board = ?1 AND seq > ?2 ORDER BY seq",
        )
        .map_err(sql_err)?;
    let rows = stmt
        .query_map(params![board.as_str(), seq_to_db(after)?], |r| {
            Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?))
        })
        .map_err(sql_err)?;
    let mut out = Vec::new();
    for row in rows {
        let (seq, payload, crc) = row.map_err(sql_err)?;
        out.push(RawRow {
            seq: seq_from_db(seq)?,
            payload,
            crc,
        });
    }
    Ok(out)
}
