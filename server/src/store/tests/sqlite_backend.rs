//! The SQLite backend's own rules (STORE-18, 20, 21, 28 in `docs/STORE.md`): its WAL and sync
//! settings, the background checkpoints, the schema and its migrations.

use super::*;

/// The schema version a database records.
fn schema_version(c: &rusqlite::Connection) -> i64 {
    c.query_row("SELECT max(version) FROM schema_version", [], |r| r.get(0))
        .unwrap()
}

/// A fresh SQLite store (a SQLite fixture is always available) and its backend. The fixture
/// owns the temp dir, so it must outlive the test.
async fn sqlite_fixture() -> (Fixture, crate::store::sqlite::SqliteStore) {
    let fx = Fixture::new("sqlite")
        .await
        .expect("sqlite is always there");
    let Store::Sqlite(s) = &fx.store else {
        panic!("not sqlite")
    };
    let s = s.clone();
    (fx, s)
}

/// STORE-18: SQLite runs in WAL mode with `synchronous=FULL` (acknowledged = on disk).
#[tokio::test]
async fn store_18_sqlite_wal_and_full_sync() {
    let (_fx, s) = sqlite_fixture().await;
    let c = rusqlite::Connection::open(s.path()).unwrap();
    let mode: String = c
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode.to_lowercase(), "wal");
    let sync = s.pragma("synchronous").await.unwrap();
    assert_eq!(sync, 2, "synchronous=FULL");
    assert_eq!(
        schema_version(&c),
        crate::store::sqlite_schema::SCHEMA_VERSION
    );
}

/// STORE-21: a new SQLite database has its log clustered by (board, seq)
/// (`WITHOUT ROWID`); a version-1 database (log in insertion order plus an index) is migrated
/// at open with every row, snapshot and board kept, and appends and compaction go on from it.
#[tokio::test]
async fn store_21_sqlite_clustered_log_and_migration_from_v1() {
    let clustered = |c: &rusqlite::Connection| -> bool {
        let sql: String = c
            .query_row(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'log'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        sql.contains("WITHOUT ROWID")
    };
    // A new database.
    let (_fx, s) = sqlite_fixture().await;
    let c = rusqlite::Connection::open(s.path()).unwrap();
    assert!(clustered(&c));
    drop(c);

    // A version-1 database written the way the previous release wrote it.
    let dir = TempDir(std::env::temp_dir().join(unique("store-v1-")));
    std::fs::create_dir_all(&dir.0).unwrap();
    let b = board("old");
    let snapshot = vec![object(1)];
    {
        let c = rusqlite::Connection::open(dir.0.join(crate::store::sqlite::FILE_NAME)).unwrap();
        c.pragma_update(None, "journal_mode", "WAL").unwrap();
        c.execute_batch(
            "CREATE TABLE schema_version (version INTEGER NOT NULL);
             INSERT INTO schema_version (version) VALUES (1);
             CREATE TABLE boards (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL,
                 updated_at INTEGER NOT NULL, seq INTEGER NOT NULL);
             CREATE TABLE log (board TEXT NOT NULL, seq INTEGER NOT NULL,
                 payload BLOB NOT NULL, crc INTEGER NOT NULL, PRIMARY KEY (board, seq));
             CREATE TABLE snapshots (board TEXT PRIMARY KEY, seq INTEGER NOT NULL,
                 payload BLOB NOT NULL, crc INTEGER NOT NULL, objects INTEGER NOT NULL);
             INSERT INTO boards VALUES ('old', 0, 0, 5);",
        )
        .unwrap();
        let snap = serde_json::to_vec(&snapshot).unwrap();
        c.execute(
            "INSERT INTO snapshots VALUES ('old', 2, ?1, ?2, 1)",
            rusqlite::params![snap, i64::from(checksum(&snap))],
        )
        .unwrap();
        for seq in 3..=5u64 {
            let payload = serde_json::to_vec(&command(seq)).unwrap();
            c.execute(
                "INSERT INTO log VALUES ('old', ?1, ?2, ?3)",
                rusqlite::params![seq as i64, payload, i64::from(checksum(&payload))],
            )
            .unwrap();
        }
        assert!(!clustered(&c));
    }
    let store = Store::open_sqlite(&dir.0, DEFAULT_TIMEOUT).await.unwrap();
    let l = store.load(&b).await.unwrap().unwrap();
    assert_eq!((l.snapshot_seq, l.seq), (2, 5));
    assert_eq!(l.objects, snapshot);
    assert_eq!(seqs(&l), vec![3, 4, 5]);
    assert_eq!(l.tail[0].1, command(3));
    assert_eq!(l.truncated, None);
    store.append(&recs(&b, 6..=7)).await.unwrap();
    store.save_snapshot(&b, 6, &[object(6)]).await.unwrap();
    // Rows behind the snapshot stay (KEPT_BEHIND of them).
    assert_eq!(store.raw_log_seqs(&b).await.unwrap(), vec![3, 4, 5, 6, 7]);
    let Store::Sqlite(s) = &store else {
        panic!("not sqlite")
    };
    let c = rusqlite::Connection::open(s.path()).unwrap();
    assert!(clustered(&c));
    assert_eq!(
        schema_version(&c),
        crate::store::sqlite_schema::SCHEMA_VERSION
    );
}

/// STORE-20: SQLite checkpoints the WAL on a thread of its own (the writer's connection only
/// checkpoints once the WAL holds `WAL_RESTART_FRAMES`): appended pages reach the database file
/// while the store is open, and the WAL is reused instead of growing without bound, with pauses
/// between commits and under a steady stream of them.
#[tokio::test]
async fn store_20_sqlite_checkpoints_in_the_background() {
    let (fx, s) = sqlite_fixture().await;
    assert_eq!(
        s.pragma("wal_autocheckpoint").await.unwrap(),
        crate::store::sqlite::WAL_RESTART_FRAMES,
        "the writer's connection checkpoints only to restart the WAL"
    );
    let db = s.path().to_path_buf();
    let wal = db.with_extension("db-wal");
    let b = BoardId::try_from("ckpt").unwrap();
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let db_before = size(&db);
    let mut wal_max = 0;
    let mut wal_first = 0;
    // 20 rounds of 200 records (~1 MB of log each): far beyond one WAL's worth if nothing
    // checkpointed, each round followed by a pause the checkpoint thread can use.
    for round in 0..20u64 {
        let lo = round * 200 + 1;
        fx.store.append(&recs(&b, lo..=lo + 199)).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        wal_max = wal_max.max(size(&wal));
        if round == 0 {
            wal_first = size(&wal);
        }
    }
    let loaded = fx.store.load(&b).await.unwrap().unwrap();
    assert_eq!(loaded.tail.len(), 4000);
    assert!(
        size(&db) > db_before,
        "no page reached the database file: {db_before} -> {}",
        size(&db)
    );
    // Without reuse the WAL would end near 20 rounds' worth.
    assert!(
        wal_first > 0 && wal_max < 4 * wal_first,
        "the WAL grew from {wal_first} to {wal_max} bytes: not reused"
    );
    // A steady stream: the log writer's queue holds 60,000 records (~20 MB of log) when it
    // starts, and it takes them 20 at a time, so commits follow each other with no pause, as
    // under a sustained load. Without the writer's own checkpoint the WAL held all of it.
    let (w, release) = Writer::spawn_held(
        fx.store.clone(),
        WriterOptions {
            max_batch_records: 20,
            // The queue is written back to back for many seconds: no command gives up.
            deadline: std::time::Duration::from_secs(3600),
            ..WriterOptions::default()
        },
    );
    let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let first = 4001u64;
    let subs = 6_000u64;
    for i in 0..subs {
        let lo = first + i * 10;
        let done = done.clone();
        w.submit(
            recs(&b, lo..=lo + 9),
            Box::new(move |r| {
                r.unwrap();
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }),
        );
    }
    release.send(()).unwrap();
    let mut wal_max = 0;
    for _ in 0..24_000 {
        wal_max = wal_max.max(size(&wal));
        if done.load(std::sync::atomic::Ordering::Relaxed) == subs as usize {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert_eq!(
        done.load(std::sync::atomic::Ordering::Relaxed),
        subs as usize
    );
    // Twice the restart point: room for restarts the checkpoint thread's own pass delayed.
    let bound = 2 * crate::store::sqlite::WAL_RESTART_FRAMES as u64 * (4096 + 24);
    assert!(
        wal_max < bound,
        "under back-to-back commits the WAL reached {wal_max} bytes (bound {bound})"
    );
    let last = first + subs * 10 - 1;
    assert_eq!(fx.store.load(&b).await.unwrap().unwrap().seq, last);
}

/// A version-5 row: a run of `records` (seq, payload) framed as length, checksum and bytes, or
/// the record itself when there is one.
fn run_row(records: &[(u64, Vec<u8>)]) -> (i64, Vec<u8>, i64, i64) {
    let last = records.last().unwrap().0 as i64;
    if let [(_, p)] = records {
        return (last, p.clone(), i64::from(checksum(p)), 1);
    }
    let mut buf = Vec::new();
    for (_, p) in records {
        buf.extend_from_slice(&(p.len() as u32).to_le_bytes());
        buf.extend_from_slice(&checksum(p).to_le_bytes());
        buf.extend_from_slice(p);
    }
    let crc = i64::from(checksum(&buf));
    (last, buf, crc, records.len() as i64)
}

/// STORE-28: a version-5 database (runs of records in `log` and in its stage, rows in both
/// tables, a snapshot covering part of a run, a run damaged in its third record) opens at the
/// current version with one log row per record and no stage: every board loads as before (the
/// damaged run keeps the records before the damage and is cut there), and commits go on.
#[tokio::test]
async fn store_28_sqlite_migration_to_one_row_per_record() {
    let dir = TempDir(std::env::temp_dir().join(unique("store-v5-")));
    std::fs::create_dir_all(&dir.0).unwrap();
    let payload = |s: u64| serde_json::to_vec(&command(s)).unwrap();
    let rows = |seqs: std::ops::RangeInclusive<u64>| -> Vec<(u64, Vec<u8>)> {
        seqs.map(|s| (s, payload(s))).collect()
    };
    {
        let c = rusqlite::Connection::open(dir.0.join(crate::store::sqlite::FILE_NAME)).unwrap();
        c.pragma_update(None, "journal_mode", "WAL").unwrap();
        // Version 5 as the previous release wrote it.
        c.execute_batch(
            "CREATE TABLE schema_version (version INTEGER NOT NULL);
             INSERT INTO schema_version (version) VALUES (1), (2), (3), (4), (5);
             CREATE TABLE boards (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL,
                 updated_at INTEGER NOT NULL, seq INTEGER NOT NULL);
             CREATE TABLE log (board TEXT NOT NULL, seq INTEGER NOT NULL, payload BLOB NOT NULL,
                 crc INTEGER NOT NULL, n INTEGER NOT NULL DEFAULT 1,
                 PRIMARY KEY (board, seq)) WITHOUT ROWID;
             CREATE TABLE log_stage (id INTEGER PRIMARY KEY AUTOINCREMENT, board TEXT NOT NULL,
                 seq INTEGER NOT NULL, payload BLOB NOT NULL, crc INTEGER NOT NULL,
                 n INTEGER NOT NULL DEFAULT 1);
             CREATE TABLE snapshots (board TEXT PRIMARY KEY, seq INTEGER NOT NULL,
                 payload BLOB NOT NULL, crc INTEGER NOT NULL, objects INTEGER NOT NULL);",
        )
        .unwrap();
        let insert = |table: &str, board: &str, row: (i64, Vec<u8>, i64, i64), id: i64| {
            let (seq, payload, crc, n) = row;
            let sql = if table == "log" {
                "INSERT INTO log (board, seq, payload, crc, n) VALUES (?1, ?2, ?3, ?4, ?5)"
            } else {
                "INSERT INTO log_stage (board, seq, payload, crc, n, id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
            };
            let mut params: Vec<Box<dyn rusqlite::ToSql>> = vec![
                Box::new(board.to_owned()),
                Box::new(seq),
                Box::new(payload),
                Box::new(crc),
                Box::new(n),
            ];
            if table != "log" {
                params.push(Box::new(id));
            }
            c.execute(
                sql,
                rusqlite::params_from_iter(params.iter().map(|p| p.as_ref())),
            )
            .unwrap();
        };
        // a: runs 1-4 and 5 in the log, 6-8 staged, 5 staged again (moved, not trimmed yet).
        insert("log", "a", run_row(&rows(1..=4)), 0);
        insert("log", "a", run_row(&rows(5..=5)), 0);
        insert("log_stage", "a", run_row(&rows(5..=5)), 1);
        insert("log_stage", "a", run_row(&rows(6..=8)), 4);
        // b: a snapshot at 3 inside the run 2-5.
        insert("log", "b", run_row(&rows(2..=5)), 0);
        let snap = serde_json::to_vec(&vec![object(3)]).unwrap();
        c.execute(
            "INSERT INTO snapshots VALUES ('b', 3, ?1, ?2, 1)",
            rusqlite::params![snap, i64::from(checksum(&snap))],
        )
        .unwrap();
        // c: a run of 5 damaged in its third record.
        let (seq, mut bad, _, n) = run_row(&rows(1..=5));
        let third = 2 * 8 + payload(1).len() + payload(2).len();
        bad[third + 8 + 2] ^= 0x20;
        let crc = i64::from(checksum(&bad));
        insert("log", "c", (seq, bad, crc, n), 0);
        for (id, seq) in [("a", 8), ("b", 5), ("c", 5)] {
            c.execute(
                "INSERT INTO boards (id, created_at, updated_at, seq) VALUES (?1, 0, 0, ?2)",
                rusqlite::params![id, seq],
            )
            .unwrap();
        }
    }
    let store = Store::open_sqlite(&dir.0, DEFAULT_TIMEOUT).await.unwrap();
    let a = store.load(&board("a")).await.unwrap().unwrap();
    assert_eq!(a.tail, (1..=8).map(|s| (s, command(s))).collect::<Vec<_>>());
    assert_eq!(a.truncated, None);
    let b = store.load(&board("b")).await.unwrap().unwrap();
    assert_eq!((b.snapshot_seq, b.seq, seqs(&b)), (3, 5, vec![4, 5]));
    let c = store.load(&board("c")).await.unwrap().unwrap();
    assert_eq!((c.seq, seqs(&c)), (2, vec![1, 2]));
    assert_eq!(c.truncated.as_ref().map(|t| t.removed), Some(3));
    store.append(&recs(&board("a"), 9..=10)).await.unwrap();
    assert_eq!(
        store.raw_log_seqs(&board("a")).await.unwrap(),
        (1..=10).collect::<Vec<_>>()
    );
    let Store::Sqlite(s) = &store else {
        panic!("not sqlite")
    };
    let conn = rusqlite::Connection::open(s.path()).unwrap();
    assert_eq!(
        schema_version(&conn),
        crate::store::sqlite_schema::SCHEMA_VERSION
    );
    let stage: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'log_stage'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stage, 0, "the stage is gone");
}
