//! The SQLite store's schema: each version's migration, applied in order in one transaction when
//! the store opens (`schema_version` records what was applied). A database newer than this code
//! is refused as `Corrupt` rather than written to.

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

/// Version 3: a stage in front of the log (insertion order, no index), whose rows moved into
/// `log` a page's worth at a time. Gone since version 6.
const MIGRATION_3: &str = "
CREATE TABLE log_stage (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    board   TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    payload BLOB NOT NULL,
    crc     INTEGER NOT NULL
);
";

/// Version 4: a log row may hold a run of a board's records: `n` consecutive seqs ending at
/// `seq`, framed in `payload` (see [`split_run`]). Rows of earlier versions hold one record
/// each, which is what `n = 1` means. Gone since version 6.
const MIGRATION_4: &str = "
ALTER TABLE log ADD COLUMN n INTEGER NOT NULL DEFAULT 1;
";

/// Version 5: a stage row holds a run too. Gone since version 6.
const MIGRATION_5: &str = "
ALTER TABLE log_stage ADD COLUMN n INTEGER NOT NULL DEFAULT 1;
";

/// Version 6 (STORE-28): one log row per record again, and no stage. A group commit inserts
/// each record into the clustered log; every record of a run (in `log` or `log_stage`) becomes a
/// row of its own, records a snapshot covers are left out, and the stage is dropped.
fn migration_6(tx: &Transaction<'_>) -> Result<(), StoreError> {
    tx.execute_batch(
        "CREATE TABLE log_v6 (board TEXT NOT NULL, seq INTEGER NOT NULL, payload BLOB NOT NULL,
         crc INTEGER NOT NULL, PRIMARY KEY (board, seq)) WITHOUT ROWID;",
    )
    .map_err(sql_err)?;
    let mut insert = tx
        .prepare("INSERT OR IGNORE INTO log_v6 (board, seq, payload, crc) VALUES (?1, ?2, ?3, ?4)")
        .map_err(sql_err)?;
    // The log first: where the stage repeats a record, the log's copy is kept.
    for table in ["log", "log_stage"] {
        let mut select = tx
            .prepare(&format!(
                "SELECT t.board, t.seq, t.payload, t.crc, t.n, coalesce(s.seq, 0) FROM {table} t \
                 LEFT JOIN snapshots s ON s.board = t.board"
            ))
            .map_err(sql_err)?;
        let mut rows = select.query([]).map_err(sql_err)?;
        while let Some(r) = rows.next().map_err(sql_err)? {
            let board: String = r.get(0).map_err(sql_err)?;
            let (last, n, covered): (i64, i64, i64) = (
                r.get(1).map_err(sql_err)?,
                r.get(4).map_err(sql_err)?,
                r.get(5).map_err(sql_err)?,
            );
            let (payload, crc): (Vec<u8>, i64) =
                (r.get(2).map_err(sql_err)?, r.get(3).map_err(sql_err)?);
            for (seq, payload, crc) in split_run(last, payload, crc, n) {
                if seq > covered {
                    insert
                        .execute(params![board, seq, payload, crc])
                        .map_err(sql_err)?;
                }
            }
        }
    }
    tx.execute_batch("DROP TABLE log; ALTER TABLE log_v6 RENAME TO log; DROP TABLE log_stage;")
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

/// One step of the schema.
#[derive(Clone, Copy)]
enum Step {
    Sql(&'static str),
    Code(fn(&Transaction<'_>) -> Result<(), StoreError>),
}

/// Every migration, oldest first: the version it brings the database to and how.
const MIGRATIONS: [(i64, Step); 6] = [
    (1, Step::Sql(MIGRATION_1)),
    (2, Step::Sql(MIGRATION_2)),
    (3, Step::Sql(MIGRATION_3)),
    (4, Step::Sql(MIGRATION_4)),
    (5, Step::Sql(MIGRATION_5)),
    (6, Step::Code(migration_6)),
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
    for (to, step) in MIGRATIONS
        .into_iter()
        .filter(|(to, _)| *to > version && *to <= target)
    {
        match step {
            Step::Sql(sql) => tx.execute_batch(sql).map_err(sql_err)?,
            Step::Code(f) => f(&tx)?,
        }
        tx.execute("INSERT INTO schema_version (version) VALUES (?1)", [to])
            .map_err(sql_err)?;
        tracing::info!(version = to, "sqlite store: applied schema migration");
    }
    tx.commit().map_err(sql_err)
}
