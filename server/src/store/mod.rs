//! Durable storage of boards: an append-only command log per board plus the latest snapshot, and
//! the group-commit [`writer`] in front of it.
//!
//! # Layout
//! - this file: the [`Store`] (an enum over the backends, each public method written once and
//!   handed to the backend through `backend::Backend`), its records and errors, and the codec
//!   shared by every backend (JSON payload + CRC-32, tail validation).
//! - `backend.rs`: the `Backend` trait, the one interface every backend implements.
//! - [`comments`]: comment threads and notifications (COMMENT-n): their types and `Store`
//!   methods; each backend's SQL beside its versions SQL (`sqlite_comments.rs`,
//!   `postgres_comments.rs`).
//! - [`versions`]: board versions (HIST-1): their types and `Store` methods; `retention.rs`: what
//!   is kept of them ([`Retention`], HIST-4).
//! - [`sqlite`]: the embedded default (`boards.db` under the data dir, WAL, `synchronous=FULL`),
//!   with its transactions (`sqlite_tx.rs`), schema (`sqlite_schema.rs`), versions SQL
//!   (`sqlite_versions.rs`) and checkpoint thread (`checkpoint.rs`).
//! - [`postgres`]: tokio-postgres, one schema per store, reconnects on demand; its schema
//!   (`postgres_schema.rs`) and versions SQL (`postgres_versions.rs`).
//! - [`cluster`]: cluster mode's storage half on PostgreSQL: nodes and their leases, board
//!   ownership, and the fencing of every durable write (docs/CLUSTER.md).
//! - [`memory`]: the same behaviour without durability, for tests.
//! - [`writer`]: one thread batching every pending append into one transaction (one fsync).
//!
//! Invariants: an `append` that returned `Ok` is on disk (SQLite: committed with
//! `synchronous=FULL`; PostgreSQL: committed). No std lock is held across `.await`; every
//! blocking SQLite call runs in `spawn_blocking`. A log tail that fails validation at load is cut
//! back to the last complete command, never served. The rules are listed in `docs/STORE.md`.
#![cfg_attr(test, allow(clippy::unwrap_used))]

/// Runs `$e` with `$s` bound to the store's backend (every arm the same code: the backends
/// implement `backend::Backend`).
macro_rules! dispatch {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            Store::Sqlite($s) => $e,
            Store::Postgres($s) => $e,
            Store::Memory($s) => $e,
        }
    };
}

pub mod assets;
mod backend;
mod checkpoint;
pub mod cluster;
pub mod comments;
pub mod memory;
pub mod postgres;
mod postgres_assets;
mod postgres_comments;
mod postgres_schema;
mod postgres_versions;
mod retention;
pub mod sqlite;
mod sqlite_assets;
mod sqlite_comments;
mod sqlite_schema;
mod sqlite_tx;
mod sqlite_versions;
pub mod versions;
pub mod writer;

#[cfg(test)]
mod tests;

pub use assets::{AssetMeta, Mark, Stale};
pub use cluster::{ClusterStore, NodeRow, Owner, Ownership};
pub use memory::MemoryStore;
pub use postgres::PgStore;
pub use retention::{Retention, expired};
pub use sqlite::SqliteStore;
pub use versions::{Author, Summary, VersionInfo, VersionKind, VersionMeta};
pub use writer::{Done, Notify, Writer, WriterCounters, WriterHandle, WriterOptions, WriterStats};

use backend::Backend;
use bytes::Bytes;
use protocol::{BoardId, BoardObject, Command, Seq};
use std::path::Path;
use std::time::Duration;

/// The default deadline of a store call (`--store-timeout-ms`, STORE-29).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a store call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The database or disk cannot be used right now (down, refused, disk full, I/O error).
    /// Retrying later may work; the wire code is `store_unavailable`.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// The write contradicts what is stored (a seq that exists, a board that exists).
    #[error("conflict: {0}")]
    Conflict(String),
    /// Stored data cannot be read back (a damaged snapshot, a damaged database file).
    #[error("corrupt: {0}")]
    Corrupt(String),
    /// Cluster mode: this node does not hold the board at the epoch stored for it (another
    /// node took it over, or this node never took it). Nothing was written. On the wire it is
    /// `store_unavailable`, like [`StoreError::Unavailable`]; [`StoreError::is_fenced`] tells
    /// it apart.
    #[error("fenced: {0}")]
    Fenced(String),
}

impl StoreError {
    /// Whether this is [`StoreError::Unavailable`].
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }

    /// Whether this is [`StoreError::Fenced`]: the board belongs to another node now.
    pub fn is_fenced(&self) -> bool {
        matches!(self, StoreError::Fenced(_))
    }

    /// The wire code a client gets for it: every store failure is `store_unavailable`.
    pub fn code(&self) -> protocol::ErrorCode {
        protocol::ErrorCode::StoreUnavailable
    }

    /// What a client may be told: what happened, never where. The `Display` text (paths, SQL,
    /// database messages) is for the log only.
    pub fn public_message(&self) -> &'static str {
        match self {
            StoreError::Unavailable(_) | StoreError::Fenced(_) => {
                "the board store is unavailable; try again shortly"
            }
            StoreError::Conflict(_) => "the board store refused a conflicting write",
            StoreError::Corrupt(_) => "stored board data could not be read",
        }
    }
}

/// A store call that passed its deadline (STORE-29).
fn timed_out(after: Duration) -> StoreError {
    StoreError::Unavailable(format!("no answer within {} ms", after.as_millis()))
}

/// One command to append to a board's log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRecord {
    pub board: BoardId,
    pub seq: Seq,
    /// The command's JSON, as stored. A board takes it from the command's `applied` frame
    /// (`clients::frame_applied`), so a command is serialized once; empty means it could not be
    /// serialized (the append fails as `Corrupt`).
    pub payload: Bytes,
}

impl LogRecord {
    /// A record of `command`, serialized here.
    pub fn new(board: BoardId, seq: Seq, command: &Command) -> Self {
        let payload = serde_json::to_vec(command)
            .map(Bytes::from)
            .unwrap_or_default();
        LogRecord {
            board,
            seq,
            payload,
        }
    }
}

/// Where a damaged log tail was cut at load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation {
    /// The last complete command kept (the board's seq after the cut).
    pub kept_seq: Seq,
    /// Log rows deleted.
    pub removed: u64,
    /// What was wrong with the first rejected row.
    pub reason: String,
}

/// A board as stored: its latest snapshot and the commands after it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedBoard {
    /// The seq the snapshot covers (0: no snapshot or an imported board).
    pub snapshot_seq: Seq,
    /// The commands kept behind the snapshot (at most [`KEPT_BEHIND`], the unbroken run that
    /// ends at `snapshot_seq`): not replayed (the snapshot holds them), but their client ids
    /// and `applied` frames let a re-sent commit be acknowledged and a client resume after a
    /// restart or a takeover.
    pub behind: Vec<(Seq, Command)>,
    /// The objects of the snapshot.
    pub objects: Vec<BoardObject>,
    /// The commands after the snapshot, in seq order, each seq = previous + 1.
    pub tail: Vec<(Seq, Command)>,
    /// The last seq (`snapshot_seq` when the tail is empty).
    pub seq: Seq,
    /// Set when a damaged tail was cut during this load.
    pub truncated: Option<Truncation>,
}

/// One row of [`Store::list_boards`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BoardInfo {
    pub id: BoardId,
    /// The last seq written.
    pub seq: Seq,
    /// The seq of the latest snapshot.
    pub snapshot_seq: Seq,
    /// Number of objects in the latest snapshot (0 when there is none).
    pub snapshot_objects: u64,
    /// Unix time in milliseconds.
    pub created_at_ms: i64,
    /// Unix time in milliseconds of the last append, snapshot or repair.
    pub updated_at_ms: i64,
}

/// The board store. Cheap to clone: every backend shares its connection.
#[derive(Clone)]
pub enum Store {
    Sqlite(SqliteStore),
    Postgres(PgStore),
    Memory(MemoryStore),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Store({})", self.kind())
    }
}

impl Store {
    /// Opens (creating if needed) `boards.db` under `data_dir` and applies migrations. Every call
    /// waits at most `timeout` (STORE-29).
    pub async fn open_sqlite(data_dir: &Path, timeout: Duration) -> Result<Store, StoreError> {
        Ok(Store::Sqlite(SqliteStore::open(data_dir, timeout).await?))
    }

    /// Connects to PostgreSQL and applies migrations. With `schema`, every table lives in that
    /// schema (created if missing); otherwise in the connection's default search path. Every
    /// call waits at most `timeout`; a statement still running then is cancelled (STORE-29).
    pub async fn open_postgres(
        url: &str,
        schema: Option<&str>,
        timeout: Duration,
    ) -> Result<Store, StoreError> {
        Ok(Store::Postgres(
            PgStore::open(url, schema, timeout, false).await?,
        ))
    }

    /// [`Store::open_postgres`] with fencing on (cluster mode, docs/CLUSTER.md): every write
    /// that changes a board's durable state needs the board to be held by this node
    /// ([`ClusterStore::take_board`]) at the epoch stored for it, checked in the same
    /// statement or transaction; otherwise it fails with [`StoreError::Fenced`] and writes
    /// nothing. Sessions idle inside a transaction are ended by the server after
    /// [`postgres::IDLE_IN_TRANSACTION_TIMEOUT_MS`].
    pub async fn open_postgres_fenced(
        url: &str,
        schema: Option<&str>,
        timeout: Duration,
    ) -> Result<Store, StoreError> {
        Ok(Store::Postgres(
            PgStore::open(url, schema, timeout, true).await?,
        ))
    }

    /// The ownership and lease API (PostgreSQL only; `None` for the other backends). Any
    /// PostgreSQL store has it (a server not in cluster mode asks
    /// [`ClusterStore::any_live_lease`]); only a fenced one records the epochs it takes.
    pub fn cluster(&self) -> Option<ClusterStore> {
        match self {
            Store::Postgres(pg) => Some(ClusterStore::new(pg.clone())),
            Store::Sqlite(_) | Store::Memory(_) => None,
        }
    }

    /// Whether writes are fenced (a store opened by [`Store::open_postgres_fenced`]).
    pub fn fenced(&self) -> bool {
        matches!(self, Store::Postgres(pg) if pg.fenced())
    }

    /// Whether writes of `board` fail as [`StoreError::Fenced`] without asking the database:
    /// a fenced store that does not hold the board. Always `false` without fencing.
    pub fn refuses(&self, board: &BoardId) -> bool {
        match self {
            Store::Postgres(pg) => pg.refuses(board),
            Store::Sqlite(_) | Store::Memory(_) => false,
        }
    }

    /// A store that keeps everything in memory (tests).
    pub fn memory() -> Store {
        Store::Memory(MemoryStore::default())
    }

    /// `"sqlite"`, `"postgres"` or `"memory"`.
    pub fn kind(&self) -> &'static str {
        dispatch!(self, s => s.kind())
    }

    /// Whether a commit waits for the disk (SQLite's sync, PostgreSQL's commit). Only then is it
    /// worth holding a batch back so later commands share the commit (`--commit-linger-us`).
    pub fn syncs(&self) -> bool {
        dispatch!(self, s => s.syncs())
    }

    /// Appends every record in one transaction. On `Ok` all of them are durable; on `Err` none
    /// was written. A seq at or below the board's last seq is a [`StoreError::Conflict`].
    pub async fn append(&self, records: &[LogRecord]) -> Result<(), StoreError> {
        if records.is_empty() {
            return Ok(());
        }
        let rows = encode_records(records)?;
        dispatch!(self, s => s.append(rows).await)
    }

    /// [`Store::append`] on the calling thread, which must not be one of the runtime's: the
    /// embedded backends run the transaction right here; PostgreSQL's client is driven by
    /// `runtime` while this thread blocks on it, for at most `budget` (STORE-29).
    pub fn append_blocking(
        &self,
        records: &[LogRecord],
        runtime: &tokio::runtime::Handle,
        budget: Duration,
    ) -> Result<(), StoreError> {
        if records.is_empty() {
            return Ok(());
        }
        let rows = encode_records(records)?;
        dispatch!(self, s => s.append_blocking(rows, runtime, budget))
    }

    /// The board's latest snapshot and log tail, or `None` if it does not exist. A damaged tail is
    /// cut back to the last complete command (see [`LoadedBoard::truncated`]).
    pub async fn load(&self, board: &BoardId) -> Result<Option<LoadedBoard>, StoreError> {
        dispatch!(self, s => s.load(board).await)
    }

    /// Replaces the board's snapshot with `objects` at `seq` and deletes log entries `<= seq`, in
    /// one transaction. A snapshot older than the stored one is ignored.
    pub async fn save_snapshot(
        &self,
        board: &BoardId,
        seq: Seq,
        objects: &[BoardObject],
    ) -> Result<(), StoreError> {
        let snap = encode_snapshot(objects)?;
        dispatch!(self, s => s.save_snapshot(board, seq, snap).await)
    }

    /// Deletes log entries after `seq` (commands written but never acknowledged) and sets the
    /// board's seq back to `seq` (not below its snapshot). A missing board is not an error.
    pub async fn truncate_after(&self, board: &BoardId, seq: Seq) -> Result<(), StoreError> {
        dispatch!(self, s => s.truncate_after(board, seq).await)
    }

    /// Every board, ordered by id.
    pub async fn list_boards(&self) -> Result<Vec<BoardInfo>, StoreError> {
        dispatch!(self, s => s.list_boards().await)
    }

    /// Deletes a board with its log and snapshot. `false` if it did not exist.
    pub async fn delete_board(&self, board: &BoardId) -> Result<bool, StoreError> {
        dispatch!(self, s => s.delete_board(board).await)
    }

    /// Creates a board from `objects` (import): a snapshot at seq 0. Conflict if it exists.
    pub async fn create_board(
        &self,
        board: &BoardId,
        objects: &[BoardObject],
    ) -> Result<(), StoreError> {
        let snap = encode_snapshot(objects)?;
        dispatch!(self, s => s.create_board(board, snap).await)
    }

    /// Whether the board exists.
    pub async fn board_exists(&self, board: &BoardId) -> Result<bool, StoreError> {
        dispatch!(self, s => s.board_exists(board).await)
    }

    /// Writes one log row exactly as given, bypassing every check (tests of damaged logs).
    #[cfg(test)]
    pub async fn inject_raw_log_row(
        &self,
        board: &BoardId,
        seq: Seq,
        payload: Vec<u8>,
        crc: u32,
    ) -> Result<(), StoreError> {
        let row = RawRow {
            seq,
            payload,
            crc: i64::from(crc),
        };
        dispatch!(self, s => s.inject_raw_log_row(board, row).await)
    }

    /// The seqs present in a board's log table, unvalidated (tests of compaction and repair).
    #[cfg(test)]
    pub async fn raw_log_seqs(&self, board: &BoardId) -> Result<Vec<Seq>, StoreError> {
        dispatch!(self, s => s.raw_log_seqs(board).await)
    }
}

// ---- codec shared by the backends ----

/// A log record ready to be written.
#[derive(Debug, Clone)]
struct EncodedRecord {
    board: BoardId,
    seq: Seq,
    payload: Bytes,
    crc: u32,
}

/// A snapshot ready to be written.
#[derive(Debug, Clone)]
struct EncodedSnapshot {
    payload: Vec<u8>,
    crc: u32,
    objects: u64,
}

/// A log row as read back.
#[derive(Debug, Clone)]
struct RawRow {
    seq: Seq,
    payload: Vec<u8>,
    crc: i64,
}

fn checksum(payload: &[u8]) -> u32 {
    crc32fast::hash(payload)
}

fn encode_records(records: &[LogRecord]) -> Result<Vec<EncodedRecord>, StoreError> {
    // A seq repeated in the batch is refused by every backend's `batch_ranges` (a board's seqs in
    // a batch must be consecutive), before anything is written.
    records
        .iter()
        .map(|r| {
            if r.seq == 0 {
                return Err(StoreError::Conflict(format!("board {}: seq 0", r.board)));
            }
            if r.payload.is_empty() {
                return Err(StoreError::Corrupt(format!(
                    "board {}: seq {}: the command could not be encoded",
                    r.board, r.seq
                )));
            }
            Ok(EncodedRecord {
                board: r.board.clone(),
                seq: r.seq,
                crc: checksum(&r.payload),
                payload: r.payload.clone(),
            })
        })
        .collect()
}

/// Per board of a batch: its first and last seq (one entry per board, first-seen order). Each
/// board's records in a batch carry consecutive seqs in order (the board numbers them so);
/// anything else (a seq twice, a gap, out of order) is a `Conflict`, before any backend writes
/// anything (STORE-5). A batch of a thousand boards has thousands of records: the boards are
/// found by hash, not by a scan of those seen so far.
fn batch_ranges(rows: &[EncodedRecord]) -> Result<Vec<(BoardId, Seq, Seq)>, StoreError> {
    let mut out: Vec<(BoardId, Seq, Seq)> = Vec::new();
    let mut index: std::collections::HashMap<&BoardId, usize> = std::collections::HashMap::new();
    for r in rows {
        match index.get(&r.board) {
            Some(&i) => {
                let hi = &mut out[i].2;
                if r.seq != *hi + 1 {
                    return Err(StoreError::Conflict(format!(
                        "board {}: seq {} follows {} in one batch",
                        r.board, r.seq, *hi
                    )));
                }
                *hi = r.seq;
            }
            None => {
                index.insert(&r.board, out.len());
                out.push((r.board.clone(), r.seq, r.seq));
            }
        }
    }
    Ok(out)
}

fn encode_snapshot(objects: &[BoardObject]) -> Result<EncodedSnapshot, StoreError> {
    let payload = serde_json::to_vec(objects)
        .map_err(|e| StoreError::Corrupt(format!("cannot encode snapshot: {e}")))?;
    Ok(EncodedSnapshot {
        crc: checksum(&payload),
        payload,
        objects: objects.len() as u64,
    })
}

fn decode_snapshot(
    board: &BoardId,
    payload: &[u8],
    crc: u32,
) -> Result<Vec<BoardObject>, StoreError> {
    if checksum(payload) != crc {
        return Err(StoreError::Corrupt(format!(
            "board {board}: snapshot checksum mismatch"
        )));
    }
    serde_json::from_slice(payload)
        .map_err(|e| StoreError::Corrupt(format!("board {board}: snapshot undecodable: {e}")))
}

/// Log rows a snapshot leaves behind it (see [`LoadedBoard::behind`]).
pub const KEPT_BEHIND: Seq = 256;

/// The seq after which a load reads log rows: [`KEPT_BEHIND`] before the snapshot.
fn read_after(snapshot_seq: Seq) -> Seq {
    snapshot_seq.saturating_sub(KEPT_BEHIND)
}

/// The seq up to which a snapshot at `seq` deletes log rows (0: none).
fn delete_through(seq: Seq) -> Seq {
    seq.saturating_sub(KEPT_BEHIND)
}

/// Splits rows read after [`read_after`] into the commands behind the snapshot (the unbroken
/// run of good rows that ends at `snapshot_seq`; a damaged one only shortens it) and the rows
/// after it.
fn split_behind(snapshot_seq: Seq, rows: Vec<RawRow>) -> (Vec<(Seq, Command)>, Vec<RawRow>) {
    let (old, after): (Vec<RawRow>, Vec<RawRow>) =
        rows.into_iter().partition(|r| r.seq <= snapshot_seq);
    let mut behind = Vec::with_capacity(old.len());
    let mut want = snapshot_seq;
    for r in old.into_iter().rev() {
        let good = r.seq == want && i64::from(checksum(&r.payload)) == r.crc;
        let Some(cmd) = good.then(|| serde_json::from_slice::<Command>(&r.payload).ok()) else {
            break;
        };
        let Some(cmd) = cmd else { break };
        behind.push((r.seq, cmd));
        want -= 1;
    }
    behind.reverse();
    (behind, after)
}

/// The valid prefix of a log tail.
struct CheckedTail {
    tail: Vec<(Seq, Command)>,
    /// The last good seq.
    seq: Seq,
    /// Why the rest was rejected (None: every row was good).
    bad: Option<String>,
}

/// Validates `rows` (ordered by seq, all `> snapshot_seq`): each must continue the sequence,
/// match its checksum and decode. Stops at the first row that does not.
fn check_tail(snapshot_seq: Seq, rows: Vec<RawRow>) -> CheckedTail {
    let mut tail = Vec::with_capacity(rows.len());
    let mut seq = snapshot_seq;
    for row in rows {
        let bad = if row.seq != seq + 1 {
            Some(format!(
                "gap: expected seq {} but found {}",
                seq + 1,
                row.seq
            ))
        } else if i64::from(checksum(&row.payload)) != row.crc {
            Some(format!("seq {}: checksum mismatch", row.seq))
        } else {
            match serde_json::from_slice::<Command>(&row.payload) {
                Ok(cmd) => {
                    tail.push((row.seq, cmd));
                    seq = row.seq;
                    None
                }
                Err(e) => Some(format!("seq {}: undecodable payload: {e}", row.seq)),
            }
        };
        if let Some(reason) = bad {
            return CheckedTail {
                tail,
                seq,
                bad: Some(reason),
            };
        }
    }
    CheckedTail {
        tail,
        seq,
        bad: None,
    }
}

/// Decides what a load must repair. `recorded_seq` is the board's stored seq.
/// Returns the reason to report, or None when nothing is wrong.
fn repair_reason(checked: &CheckedTail, recorded_seq: Seq) -> Option<String> {
    match &checked.bad {
        Some(r) => Some(r.clone()),
        None if recorded_seq > checked.seq => Some(format!(
            "log ends at seq {} but the board recorded seq {recorded_seq}",
            checked.seq
        )),
        None => None,
    }
}

fn warn_truncated(store: &str, board: &BoardId, t: &Truncation) {
    tracing::warn!(
        store,
        board = %board,
        kept_seq = t.kept_seq,
        removed = t.removed,
        reason = %t.reason,
        "damaged log tail truncated to the last complete command"
    );
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Seq as stored in a signed 64-bit column.
fn seq_to_db(seq: Seq) -> Result<i64, StoreError> {
    i64::try_from(seq).map_err(|_| StoreError::Conflict(format!("seq {seq} out of range")))
}

fn seq_from_db(v: i64) -> Result<Seq, StoreError> {
    Seq::try_from(v).map_err(|_| StoreError::Corrupt(format!("negative seq {v}")))
}

fn board_from_db(s: String) -> Result<BoardId, StoreError> {
    BoardId::try_from(s).map_err(|e| StoreError::Corrupt(format!("stored board id: {e}")))
}
