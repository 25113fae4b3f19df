//! The one interface every backend implements: SQLite (`sqlite.rs`, `sqlite_versions.rs`),
//! PostgreSQL (`postgres.rs`, `postgres_versions.rs`) and memory (`memory.rs`). Each keeps its
//! own SQL (or maps) behind it; nothing outside a backend's files switches over backends.
//!
//! [`Store`](super::Store) is the public face: it checks and encodes what it is given (payloads,
//! checksums, compression, seq ranges) once for all backends, hands the encoded rows to its
//! backend through this trait, and decodes what comes back. A backend only stores and reads rows,
//! and repairs a damaged log tail at load with the shared `check_tail`.

use super::comments::{Notification, ThreadRow};
use super::versions::{NewVersion, VersionRow};
use super::{BoardInfo, EncodedRecord, EncodedSnapshot, LoadedBoard, StoreError};
use protocol::{BoardId, Seq};
use std::future::Future;
use std::time::Duration;

/// What a backend does (see the module docs). Every call ends within the store's deadline
/// (STORE-29) unless it says otherwise.
pub(super) trait Backend: Clone + Send + Sync + 'static {
    /// `"sqlite"`, `"postgres"` or `"memory"`.
    fn kind(&self) -> &'static str;

    /// Whether a commit waits for the disk.
    fn syncs(&self) -> bool {
        true
    }

    /// Appends every row in one transaction: all durable on `Ok`, none written on `Err`. A
    /// board's rows must be consecutive and after its stored seq (`Conflict` otherwise).
    fn append(
        &self,
        rows: Vec<EncodedRecord>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// [`Backend::append`] on the calling thread (the log writer's), within `budget`; an
    /// asynchronous client is driven by `runtime`.
    fn append_blocking(
        &self,
        rows: Vec<EncodedRecord>,
        runtime: &tokio::runtime::Handle,
        budget: Duration,
    ) -> Result<(), StoreError>;

    /// The board's snapshot and validated tail, a damaged tail cut back (and reported).
    fn load(
        &self,
        board: &BoardId,
    ) -> impl Future<Output = Result<Option<LoadedBoard>, StoreError>> + Send;

    /// Replaces the snapshot (unless the stored one is newer) and deletes the log it covers, in
    /// one transaction. A board without a row gets none (STORE-19).
    fn save_snapshot(
        &self,
        board: &BoardId,
        seq: Seq,
        snap: EncodedSnapshot,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Deletes log rows after `seq` and sets the board's seq back (never below its snapshot).
    fn truncate_after(
        &self,
        board: &BoardId,
        seq: Seq,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Every board, ordered by id.
    fn list_boards(&self) -> impl Future<Output = Result<Vec<BoardInfo>, StoreError>> + Send;

    /// Deletes the board, its log, snapshot and versions; whether it existed.
    fn delete_board(
        &self,
        board: &BoardId,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// A new board whose snapshot at seq 0 is `snap`; `Conflict` if it exists.
    fn create_board(
        &self,
        board: &BoardId,
        snap: EncodedSnapshot,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Whether the board has a row.
    fn board_exists(
        &self,
        board: &BoardId,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Stores a version under the next id of its board (one past the highest, even when saves
    /// race); returns that id.
    fn save_version(
        &self,
        board: &BoardId,
        version: NewVersion,
    ) -> impl Future<Output = Result<i64, StoreError>> + Send;

    /// The board's versions by id, without their objects (`payload` empty, `crc` 0).
    fn list_versions(
        &self,
        board: &BoardId,
    ) -> impl Future<Output = Result<Vec<VersionRow>, StoreError>> + Send;

    /// One version with its objects.
    fn load_version(
        &self,
        board: &BoardId,
        id: i64,
    ) -> impl Future<Output = Result<Option<VersionRow>, StoreError>> + Send;

    /// Deletes the board's versions with these ids.
    fn delete_versions(
        &self,
        board: &BoardId,
        ids: Vec<i64>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Stores a picture's bytes (once per hash, durably) and registers it on `board`; true when
    /// the board did not have it.
    fn put_asset(
        &self,
        board: &BoardId,
        meta: &super::AssetMeta,
        data: bytes::Bytes,
        now: i64,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// Registers a stored picture on `board`: None when no picture has that hash.
    fn register_asset(
        &self,
        board: &BoardId,
        sha256: &str,
        now: i64,
    ) -> impl Future<Output = Result<Option<bool>, StoreError>> + Send;

    /// The pictures registered on `board`, by hash.
    fn board_assets(
        &self,
        board: &BoardId,
    ) -> impl Future<Output = Result<Vec<super::AssetMeta>, StoreError>> + Send;

    /// One picture registered on `board` (not doomed).
    fn board_asset(
        &self,
        board: &BoardId,
        sha256: &str,
    ) -> impl Future<Output = Result<Option<super::AssetMeta>, StoreError>> + Send;

    /// Registrations not seen in use since `seen_before`, by board, at most `max`.
    fn stale_assets(
        &self,
        seen_before: i64,
        max: usize,
    ) -> impl Future<Output = Result<Vec<super::Stale>, StoreError>> + Send;

    /// Touches, dooms or drops some of `board`'s registrations; rows changed.
    fn mark_assets(
        &self,
        board: &BoardId,
        names: &[String],
        mark: super::Mark,
        now: i64,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// Deletes the pictures no board registers; how many.
    fn drop_orphan_assets(&self) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// A stored picture's bytes.
    fn asset_bytes(
        &self,
        sha256: &str,
    ) -> impl Future<Output = Result<Option<Vec<u8>>, StoreError>> + Send;

    /// Writes a thread's row unless the stored one has a higher `cseq`, and upserts the
    /// notifications (unread again), in one transaction (`comments.rs`).
    fn save_thread(
        &self,
        board: &BoardId,
        row: ThreadRow,
        notes: Vec<Notification>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Every thread row of a board, by id.
    fn load_threads(
        &self,
        board: &BoardId,
    ) -> impl Future<Output = Result<Vec<ThreadRow>, StoreError>> + Send;

    /// A user's notifications, newest first, at most `comments::MAX_NOTIFICATIONS`.
    fn notifications(
        &self,
        user: &str,
    ) -> impl Future<Output = Result<Vec<Notification>, StoreError>> + Send;

    /// Marks a user's notifications of these threads (None: all) read at `now`.
    fn mark_read(
        &self,
        user: &str,
        threads: Option<Vec<String>>,
        now: i64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Writes one log row exactly as given, bypassing every check (tests of damaged logs).
    #[cfg(test)]
    fn inject_raw_log_row(
        &self,
        board: &BoardId,
        row: super::RawRow,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The seqs in a board's log, unvalidated (tests of compaction and repair).
    #[cfg(test)]
    fn raw_log_seqs(
        &self,
        board: &BoardId,
    ) -> impl Future<Output = Result<Vec<Seq>, StoreError>> + Send;
}
