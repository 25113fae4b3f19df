//! The SQLite store's schema: each version's migration, applied in order in one transaction when
//! the store opens (`schema_version` records what was applied). A database newer than this code
//! is refused as `Corrupt` rather than written to.

use super::StoreError;
use super::sqlite::sql_err;
use rusqlite::{Connection, TransactionBehavior};

/// Version 1: boards, their log and their latest snapshot.
const MIGRATION_1: &str = "
CREATE TABLE boards (
    id         TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    seq        INTEGER NOT NULL
);
CREATE TABLE log (
    board   TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    payload BLOB NOT NULL,
    crc     INTEGER NOT NULL,
    PRIMARY KEY (board, seq)
);
CREATE TABLE snapshots (
    board   TEXT PRIMARY KEY,
    seq     INTEGER NOT NULL,
    payload BLOB NOT NULL,
    crc     INTEGER NOT NULL,
    objects INTEGER NOT NULL
);
";

/// Version 2: the log clustered by (board, seq) (`WITHOUT ROWID`). Version 1 kept rows in
/// insertion order plus a (board, seq) index: a group commit dirtied table pages and one index
/// page per board, and a snapshot's compaction of one board deleted rows spread over a page per
/// row, since every page held rows of many boards. Clustered, a commit dirties about one page
/// per board and a compaction removes a contiguous run of pages (STORE-21).
const MIGRATION_2: &str = "
CREATE TABLE log_v2 (
    board   TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    payload BLOB NOT NULL,
    crc     INTEGER NOT NULL,
    PRIMARY KEY (board, seq)
) WITHOUT ROWID;
INSERT INTO log_v2 (board, seq, payload, crc) SELECT board, seq, payload, crc FROM log;
DROP TABLE log;
ALTER TABLE log_v2 RENAME TO log;
";

/// Version 3: the log's stage (`store/sqlite_stage.rs`, STORE-22): a commit appends to it in
/// insertion order and a board's rows move into `log` a page's worth at a time, so a commit
/// holding 1,000 boards no longer rewrites a leaf of `log` per board. `AUTOINCREMENT` keeps
/// row ids from being reused once the stage is emptied: trims delete by id range.
const MIGRATION_3: &str = "
CREATE TABLE log_stage (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    board   TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    payload BLOB NOT NULL,
    crc     INTEGER NOT NULL
);
";

/// Version 4: a log row may hold a run of a board's records (STORE-25): `n` consecutive seqs
/// ending at `seq`, framed in `payload` (`sqlite_run::encode_run`). A fold of the stage writes
/// a board's page's worth as one row instead of one per record. Rows of earlier versions hold
/// one record each, which is what `n = 1` means.
const MIGRATION_4: &str = "
ALTER TABLE log ADD COLUMN n INTEGER NOT NULL DEFAULT 1;
";

/// Version 5: a stage row holds a run too (STORE-26): a commit stages each board's records of
/// the batch as one row, `n` consecutive seqs ending at `seq`, framed as a log run is, so a
/// commit costs one insert per board instead of one per record. The row's id is the position
/// of its last record (ids count records), so trims still keep a number of records. Rows of
/// version 4 hold one record each (`n = 1`).
const MIGRATION_5: &str = "
ALTER TABLE log_stage ADD COLUMN n INTEGER NOT NULL DEFAULT 1;
";

/// Every migration, oldest first: the version it brings the database to and its SQL.
const MIGRATIONS: [(i64, &str); 5] = [
    (1, MIGRATION_1),
    (2, MIGRATION_2),
    (3, MIGRATION_3),
    (4, MIGRATION_4),
    (5, MIGRATION_5),
];

/// The schema version this code writes.
pub(super) const SCHEMA_VERSION: i64 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// Brings the database to [`SCHEMA_VERSION`].
pub(super) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    migrate_to(conn, SCHEMA_VERSION)
}

/// Brings the database to version `target` (tests build databases of earlier versions with it).
pub(super) fn migrate_to(conn: &mut Connection, target: i64) -> Result<(), StoreError> {
    conn.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        .map_err(sql_err)?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_err)?;
    let version: i64 = tx
        .query_row(
            "SELECT coalesce(max(version), 0) FROM schema_version",
            [],
            |r| r.get(0),
        )
        .map_err(sql_err)?;
    if version > SCHEMA_VERSION {
        return Err(StoreError::Corrupt(format!(
            "database schema version {version} is newer than this server's ({SCHEMA_VERSION})"
        )));
    }
    for (to, sql) in MIGRATIONS
        .into_iter()
        .filter(|(to, _)| *to > version && *to <= target)
    {
        tx.execute_batch(sql).map_err(sql_err)?;
        tx.execute("INSERT INTO schema_version (version) VALUES (?1)", [to])
            .map_err(sql_err)?;
        tracing::info!(version = to, "sqlite store: applied schema migration");
    }
    tx.commit().map_err(sql_err)
}
