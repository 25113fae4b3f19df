//! The SQLite store's schema, brought to [`SCHEMA_VERSION`] in one transaction when the store
//! opens (`schema_version` records what was applied). A database newer than this code is refused
//! as `Corrupt` rather than written to.
//!
//! Versions 2 to 5 (a clustered log, then a stage in front of it, then runs of records in one
//! row) are not built any more: version 6 takes a database of any earlier version to the current
//! layout at once.

use super::StoreError;
use super::sqlite::sql_err;
use rusqlite::{Connection, Transaction, TransactionBehavior, params};

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

/// The schema version this code writes.
pub(super) const SCHEMA_VERSION: i64 = 10;

/// Version 6 (STORE-21, STORE-28): the log clustered by (board, seq) (`WITHOUT ROWID`), one row
/// per record. Clustered, a group commit dirties about one page per board and a snapshot's
/// compaction frees a contiguous run of pages, where rows in insertion order (version 1) spread
/// every board over every page. Whatever the older layout, every record is copied: a run of
/// records in one row (`n` > 1, versions 4 and 5) becomes a row per record, the stage's rows
/// (versions 3 to 5) join the log (a record both hold keeps the log's copy), records a snapshot
/// covers are left out, and the stage is dropped.
fn migration_6(tx: &Transaction<'_>) -> Result<(), StoreError> {
    tx.execute_batch(
        "CREATE TABLE log_v6 (board TEXT NOT NULL, seq INTEGER NOT NULL, payload BLOB NOT NULL,
         crc INTEGER NOT NULL, PRIMARY KEY (board, seq)) WITHOUT ROWID;",
    )
    .map_err(sql_err)?;
    let mut insert = tx
        .prepare("INSERT OR IGNORE INTO log_v6 (board, seq, payload, crc) VALUES (?1, ?2, ?3, ?4)")
        .map_err(sql_err)?;
    for table in ["log", "log_stage"] {
        let columns: Vec<String> = tx
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .map_err(sql_err)?;
        if columns.is_empty() {
            continue;
        }
        let n = if columns.iter().any(|c| c == "n") {
            "t.n"
        } else {
            "1"
        };
        let mut select = tx
            .prepare(&format!(
                "SELECT t.board, t.seq, t.payload, t.crc, {n}, coalesce(s.seq, 0) FROM {table} t \
                 LEFT JOIN snapshots s ON s.board = t.board"
            ))
            .map_err(sql_err)?;
        let mut rows = select.query([]).map_err(sql_err)?;
        while let Some(r) = rows.next().map_err(sql_err)? {
            let get = |i| r.get::<_, i64>(i).map_err(sql_err);
            let (last, n, covered) = (get(1)?, get(4)?, get(5)?);
            let board: String = r.get(0).map_err(sql_err)?;
            let payload: Vec<u8> = r.get(2).map_err(sql_err)?;
            for (seq, payload, crc) in split_run(last, payload, get(3)?, n) {
                if seq > covered {
                    insert
                        .execute(params![board, seq, payload, crc])
                        .map_err(sql_err)?;
                }
            }
        }
    }
    tx.execute_batch(
        "DROP TABLE log; ALTER TABLE log_v6 RENAME TO log; DROP TABLE IF EXISTS log_stage;",
    )
    .map_err(sql_err)
}

/// The records of a version-4/5 row: a run of `n` records ending at seq `last`, each framed as
/// its length and checksum (u32, little-endian) and its bytes; a run of one is the record itself.
/// Damaged framing ends in a record that fails its checksum (empty, crc -1), which a load cuts
/// like any damaged row (STORE-8).
fn split_run(last: i64, payload: Vec<u8>, crc: i64, n: i64) -> Vec<(i64, Vec<u8>, i64)> {
    if n == 1 {
        return vec![(last, payload, crc)];
    }
    let mut out = Vec::new();
    let mut rest = &payload[..];
    for seq in last + 1 - n.clamp(1, last.max(1))..=last {
        let field = |at: usize| rest.get(at..at + 4).map(|b| [b[0], b[1], b[2], b[3]]);
        let (Some(len), Some(crc)) = (field(0), field(4)) else {
            out.push((seq, Vec::new(), -1));
            break;
        };
        let len = u32::from_le_bytes(len) as usize;
        let Some(record) = rest.get(8..8 + len) else {
            out.push((seq, Vec::new(), -1));
            break;
        };
        out.push((seq, record.to_vec(), i64::from(u32::from_le_bytes(crc))));
        rest = &rest[8 + len..];
    }
    out
}

/// Brings the database to [`SCHEMA_VERSION`]. Nothing is written when it is there already, so a
/// store opens on a full disk (DUR-8).
pub(super) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
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
    if version < 1 {
        tx.execute_batch(MIGRATION_1).map_err(sql_err)?;
    }
    if version < 6 {
        migration_6(&tx)?;
    }
    if version < 7 {
        // Version 7: board versions (HIST-1).
        tx.execute_batch(super::sqlite_versions::TABLE)
            .map_err(sql_err)?;
    }
    if version < 8 {
        // Version 8: pictures (ASSET-1).
        tx.execute_batch(super::sqlite_assets::TABLES)
            .map_err(sql_err)?;
    }
    if version < 9 {
        // Version 9: the picture sweep's columns (ASSET-11).
        tx.execute_batch(super::sqlite_assets::SWEEP_COLUMNS)
            .map_err(sql_err)?;
    }
    if version < 10 {
        // Version 10, "comments": comment threads and notifications (COMMENT-n).
        tx.execute_batch(super::sqlite_comments::TABLES)
            .map_err(sql_err)?;
    }
    if version < SCHEMA_VERSION {
        tx.execute(
            "INSERT INTO schema_version (version) VALUES (?1)",
            [SCHEMA_VERSION],
        )
        .map_err(sql_err)?;
        tracing::info!(
            from = version,
            to = SCHEMA_VERSION,
            "sqlite store: schema migrated"
        );
    }
    tx.commit().map_err(sql_err)
}
