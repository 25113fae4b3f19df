//! The SQLite backend's own rules (STORE-18, 20, 21, 22 in `docs/STORE.md`): its WAL and sync
//! settings, the background checkpoints, the schema and its migrations, and the log's stage.

use super::*;

/// The schema version a database records.
fn schema_version(c: &rusqlite::Connection) -> i64 {
    c.query_row("SELECT max(version) FROM schema_version", [], |r| r.get(0))
        .unwrap()
}

/// A fresh SQLite store committing directly (a SQLite fixture is always available) and its
/// backend: these rules are about the SQLite commit, which a journal's fold is too (STORE-27 has
/// its own tests in `tests/journal_backend.rs`). The fixture owns the temp dir, so it must
/// outlive the test.
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

/// Flips a byte inside record `k` (0-based) of the run row of `table` that `row` selects: a
/// run frames each record as its length and checksum (u32, little-endian), then its bytes.
fn damage_run_record(path: &std::path::Path, table: &str, row: &str, k: usize) {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut payload: Vec<u8> = c
        .query_row(
            &format!("SELECT payload FROM {table} WHERE {row}"),
            [],
            |x| x.get(0),
        )
        .unwrap();
    let mut at = 0;
    for _ in 0..k {
        let len = u32::from_le_bytes(payload[at..at + 4].try_into().unwrap()) as usize;
        at += 8 + len;
    }
    payload[at + 8 + 2] ^= 0x20;
    c.execute(
        &format!("UPDATE {table} SET payload = ?1 WHERE {row}"),
        [payload],
    )
    .unwrap();
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
    let store = Store::open_sqlite(&dir.0).await.unwrap();
    let l = store.load(&b).await.unwrap().unwrap();
    assert_eq!((l.snapshot_seq, l.seq), (2, 5));
    assert_eq!(l.objects, snapshot);
    assert_eq!(seqs(&l), vec![3, 4, 5]);
    assert_eq!(l.tail[0].1, command(3));
    assert_eq!(l.truncated, None);
    // Separate commits, so that the snapshot can delete 6's row (STORE-26 stages a commit's
    // records of a board as one row).
    store.append(&[rec(&b, 6)]).await.unwrap();
    store.append(&[rec(&b, 7)]).await.unwrap();
    store.save_snapshot(&b, 6, &[object(6)]).await.unwrap();
    assert_eq!(store.raw_log_seqs(&b).await.unwrap(), vec![7]);
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
    for _ in 0..6_000 {
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

/// STORE-22: SQLite appends log rows to a stage (insertion order, no index) and moves a board's
/// rows into the clustered log once it has a page's worth, or when the stage is trimmed. A board
/// loads whole and in order wherever its rows are (rows already moved are not read twice);
/// compaction, truncation and delete reach both tables; a seq the stage holds is a conflict;
/// reopening the store folds what was staged.
#[tokio::test]
async fn store_22_sqlite_log_stage() {
    use crate::store::sqlite_stage::{BOARD_FOLD_ROWS, TRIM_AT};
    let (fx, s) = sqlite_fixture().await;
    let path = s.path().to_path_buf();
    let count = |sql: &str| -> u64 {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap() as u64
    };
    // Records, not rows: a stage row holds a board's records of one commit (STORE-26).
    let staged = || count("SELECT coalesce(sum(n), 0) FROM log_stage");
    let logged = || count("SELECT coalesce(sum(n), 0) FROM log");
    let a = board("stage-a");
    let fold = BOARD_FOLD_ROWS as u64;

    // Below a page's worth, a board's rows stay staged, and load finds them.
    fx.store.append(&recs(&a, 1..=fold - 1)).await.unwrap();
    assert_eq!((staged(), logged()), (fold - 1, 0));
    let l = fx.store.load(&a).await.unwrap().unwrap();
    assert_eq!(seqs(&l), (1..fold).collect::<Vec<_>>());

    // The row that makes a page's worth moves them all into the log; the copies left in the
    // stage are not read twice.
    fx.store.append(&[rec(&a, fold)]).await.unwrap();
    assert_eq!(logged(), fold);
    fx.store
        .append(&recs(&a, fold + 1..=fold + 4))
        .await
        .unwrap();
    let l = fx.store.load(&a).await.unwrap().unwrap();
    assert_eq!(seqs(&l), (1..=fold + 4).collect::<Vec<_>>());
    assert_eq!(l.tail[fold as usize].1, command(fold + 1));
    assert_eq!(l.truncated, None);

    // A seq the stage holds is refused, as is one repeated within a batch; nothing is written.
    let before = staged();
    let e = fx.store.append(&[rec(&a, fold + 4)]).await.unwrap_err();
    assert!(matches!(e, StoreError::Conflict(_)), "{e:?}");
    let e = fx
        .store
        .append(&[rec(&a, fold + 5), rec(&a, fold + 5)])
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::Conflict(_)), "{e:?}");
    assert_eq!(staged(), before);

    // Compaction and truncation reach rows in either table.
    fx.store
        .save_snapshot(&a, fold + 2, &[object(1)])
        .await
        .unwrap();
    let l = fx.store.load(&a).await.unwrap().unwrap();
    assert_eq!(
        (l.snapshot_seq, seqs(&l)),
        (fold + 2, vec![fold + 3, fold + 4])
    );
    fx.store.truncate_after(&a, fold + 3).await.unwrap();
    let l = fx.store.load(&a).await.unwrap().unwrap();
    assert_eq!((l.seq, seqs(&l)), (fold + 3, vec![fold + 3]));
    fx.store
        .append(&recs(&a, fold + 4..=fold + 5))
        .await
        .unwrap();

    // A reopened store folds the stage before it serves anything.
    let reopened = fx.reopen().await.unwrap();
    assert_eq!(staged(), 0);
    let l = reopened.load(&a).await.unwrap().unwrap();
    assert_eq!(
        (l.snapshot_seq, seqs(&l)),
        (fold + 2, vec![fold + 3, fold + 4, fold + 5])
    );
    // From here on the reopened store writes: its stage index is the one that matches the
    // database (the first store's still lists the rows the reopen folded).
    let store = reopened;

    // Many boards writing a few rows each: the stage is trimmed from its old end, and what a
    // trim drops is in the log first. Every board loads whole.
    let boards: Vec<BoardId> = (0..3000).map(|i| board(&format!("many-{i}"))).collect();
    let rounds = TRIM_AT as u64 / 3000 + 3;
    assert!(rounds < fold, "no board may reach a page's worth here");
    for seq in 1..=rounds {
        for chunk in boards.chunks(600) {
            let batch: Vec<LogRecord> = chunk.iter().map(|b| rec(b, seq)).collect();
            store.append(&batch).await.unwrap();
        }
    }
    assert!(
        staged() <= TRIM_AT as u64 + 600 && staged() < rounds * 3000,
        "the stage was not trimmed: {} rows",
        staged()
    );
    assert!(
        count("SELECT count(*) FROM log WHERE board LIKE 'many-%'") > 0,
        "the trim copied nothing into the log"
    );
    for b in boards.iter().step_by(97) {
        let l = store.load(b).await.unwrap().unwrap();
        assert_eq!(seqs(&l), (1..=rounds).collect::<Vec<_>>(), "board {b}");
    }

    // Damage in a staged row is cut at load like damage in the log (STORE-8), and the report
    // counts the staged rows it removed.
    store.append(&[rec(&a, fold + 6)]).await.unwrap();
    store.append(&[rec(&a, fold + 7)]).await.unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE log_stage SET crc = crc + 1 WHERE board = 'stage-a' AND seq = ?1",
            [(fold + 6) as i64],
        )
        .unwrap();
    let l = store.load(&a).await.unwrap().unwrap();
    assert_eq!(seqs(&l), vec![fold + 3, fold + 4, fold + 5]);
    let t = l.truncated.expect("the damage is reported");
    assert_eq!((t.kept_seq, t.removed), (fold + 5, 2));

    // Delete removes the board's rows from both tables.
    store.append(&recs(&a, fold + 6..=fold + 7)).await.unwrap();
    assert!(store.delete_board(&a).await.unwrap());
    assert_eq!(
        count("SELECT count(*) FROM log WHERE board = 'stage-a'")
            + count("SELECT count(*) FROM log_stage WHERE board = 'stage-a'"),
        0
    );
    assert_eq!(store.load(&a).await.unwrap(), None);
}

/// STORE-25: a board's staged rows fold into the log as ONE row holding the run of records
/// (`n` consecutive seqs ending at its `seq`), and everything that reads or cuts the log works
/// on records: load splits runs (leaving out what a snapshot covers), a truncation inside a run
/// rewrites it with the records it keeps, damage to one record in a run keeps the records
/// before it and reports the rest as removed, and a reopened store serves the same board.
#[tokio::test]
async fn store_25_sqlite_log_runs() {
    use crate::store::sqlite_stage::BOARD_FOLD_ROWS;
    let (fx, s) = sqlite_fixture().await;
    let path = s.path().to_path_buf();
    let rows = || -> Vec<(i64, i64)> {
        let c = rusqlite::Connection::open(&path).unwrap();
        let mut st = c
            .prepare("SELECT seq, n FROM log WHERE board = 'runs' ORDER BY seq")
            .unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let r = board("runs");
    let fold = BOARD_FOLD_ROWS as u64;
    let load = || async { fx.store.load(&r).await.unwrap().unwrap() };

    // One command per commit, as a live board writes: the page's worth lands as one row.
    for seq in 1..=fold {
        fx.store.append(&[rec(&r, seq)]).await.unwrap();
    }
    assert_eq!(rows(), vec![(fold as i64, fold as i64)]);
    let l = load().await;
    assert_eq!(seqs(&l), (1..=fold).collect::<Vec<_>>());
    assert!(l.tail.iter().all(|(s, c)| *c == command(*s)));

    // A snapshot inside the run leaves the run (it holds newer records); load skips the rest.
    fx.store.save_snapshot(&r, 10, &[object(1)]).await.unwrap();
    let l = load().await;
    assert_eq!((l.snapshot_seq, seqs(&l)), (10, (11..=fold).collect()));

    // A truncation inside the run rewrites it up to the cut.
    fx.store.truncate_after(&r, 20).await.unwrap();
    assert_eq!(rows(), vec![(20, 20)]);
    let l = load().await;
    assert_eq!((l.seq, seqs(&l)), (20, (11..=20).collect()));

    // The next run, 21..=52, then eight staged rows. Damage the 30th record inside the run.
    for seq in 21..=60 {
        fx.store.append(&[rec(&r, seq)]).await.unwrap();
    }
    assert_eq!(rows(), vec![(20, 20), (52, 32)]);
    // Frames: u32 length, u32 checksum, bytes. 30 is the run's tenth record.
    damage_run_record(&path, "log", "board = 'runs' AND seq = 52", 9);
    let l = load().await;
    assert_eq!((l.seq, seqs(&l)), (29, (11..=29).collect()));
    let t = l.truncated.expect("the damage is reported");
    assert_eq!(
        (t.kept_seq, t.removed),
        (29, 31),
        "30..=52 in the run, 53..=60 staged"
    );
    assert_eq!(rows(), vec![(20, 20), (29, 9)]);

    // The board goes on from the cut, and a reopened store serves the same.
    fx.store.append(&recs(&r, 30..=33)).await.unwrap();
    let reopened = fx.reopen().await.unwrap();
    let l = reopened.load(&r).await.unwrap().unwrap();
    assert_eq!((l.snapshot_seq, l.seq), (10, 33));
    assert_eq!(seqs(&l), (11..=33).collect::<Vec<_>>());
    assert!(l.tail.iter().all(|(s, c)| *c == command(*s)));
    assert_eq!(
        reopened.raw_log_seqs(&r).await.unwrap(),
        (1..=33).collect::<Vec<_>>()
    );
}

/// STORE-26: a commit stages each board's records of the batch as ONE stage row, a run like the
/// log's (`n` records ending at `seq`), whose id is the position of its last record in the
/// stage. Load splits staged runs; a truncation inside one rewrites it under the same id;
/// damage to one record inside it keeps the records before it; reopening folds staged runs into
/// the log as they are.
#[tokio::test]
async fn store_26_sqlite_stage_rows_hold_runs() {
    let (fx, s) = sqlite_fixture().await;
    let path = s.path().to_path_buf();
    let stage = || -> Vec<(String, i64, i64, i64)> {
        let c = rusqlite::Connection::open(&path).unwrap();
        let mut st = c
            .prepare("SELECT board, id, seq, n FROM log_stage ORDER BY id")
            .unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let (a, c) = (board("runs-a"), board("runs-c"));
    let load = |b: &BoardId| {
        let store = fx.store.clone();
        let b = b.clone();
        async move { store.load(&b).await.unwrap().unwrap() }
    };

    // One batch, two boards: one stage row each, ids counting records (3, then 3 + 2).
    let mut batch = recs(&a, 1..=3);
    batch.extend(recs(&c, 1..=2));
    fx.store.append(&batch).await.unwrap();
    let first = stage();
    assert_eq!(first.len(), 2, "{first:?}");
    let base = first[0].1 - 3;
    assert_eq!(
        first,
        vec![
            ("runs-a".to_string(), base + 3, 3, 3),
            ("runs-c".to_string(), base + 5, 2, 2)
        ]
    );
    fx.store.append(&recs(&a, 4..=6)).await.unwrap();
    let l = load(&a).await;
    assert_eq!(seqs(&l), (1..=6).collect::<Vec<_>>());
    assert!(l.tail.iter().all(|(s, c)| *c == command(*s)));

    // A truncation inside a staged run rewrites it up to the cut, under the same id.
    fx.store.truncate_after(&a, 5).await.unwrap();
    let rows: Vec<_> = stage().into_iter().filter(|r| r.0 == "runs-a").collect();
    assert_eq!(
        rows,
        vec![
            ("runs-a".to_string(), base + 3, 3, 3),
            ("runs-a".to_string(), base + 8, 5, 2)
        ]
    );
    assert_eq!(seqs(&load(&a).await), (1..=5).collect::<Vec<_>>());
    fx.store.append(&recs(&a, 6..=9)).await.unwrap();
    assert_eq!(seqs(&load(&a).await), (1..=9).collect::<Vec<_>>());

    // Damage to c's second record inside its staged run: load keeps the first, reports one.
    damage_run_record(&path, "log_stage", "board = 'runs-c'", 1);
    let l = load(&c).await;
    assert_eq!(seqs(&l), vec![1]);
    let t = l.truncated.expect("the damage is reported");
    assert_eq!((t.kept_seq, t.removed), (1, 1));

    // A snapshot inside a staged run: the run stays whole (as in the log, STORE-25), and loads
    // skip what the snapshot covers, before and after the reopen's fold.
    fx.store.save_snapshot(&a, 7, &[object(7)]).await.unwrap();
    let l = load(&a).await;
    assert_eq!((l.snapshot_seq, seqs(&l)), (7, vec![8, 9]));

    // A reopened store folds the staged runs into the log and serves the same boards.
    let reopened = fx.reopen().await.unwrap();
    assert!(stage().is_empty());
    let l = reopened.load(&a).await.unwrap().unwrap();
    assert_eq!((l.snapshot_seq, l.seq, seqs(&l)), (7, 9, vec![8, 9]));
    assert!(l.tail.iter().all(|(s, c)| *c == command(*s)));
    // 6..=9 is one run (the commit of 6..=9) that the snapshot covers in part.
    assert_eq!(
        reopened.raw_log_seqs(&a).await.unwrap(),
        (6..=9).collect::<Vec<_>>()
    );
    let l = reopened.load(&c).await.unwrap().unwrap();
    assert_eq!((l.seq, seqs(&l)), (1, vec![1]));
}

/// STORE-26 (migration): a version-4 database whose stage holds rows of one record each (one id
/// per record, no `n`) opens as version 5: the staged records fold into the log with the rest,
/// the board loads whole, and commits go on from it.
#[tokio::test]
async fn store_26_sqlite_migration_from_v4_with_staged_rows() {
    let dir = TempDir(std::env::temp_dir().join(unique("store-v4-")));
    std::fs::create_dir_all(&dir.0).unwrap();
    let b = board("v4");
    {
        let mut c =
            rusqlite::Connection::open(dir.0.join(crate::store::sqlite::FILE_NAME)).unwrap();
        c.pragma_update(None, "journal_mode", "WAL").unwrap();
        crate::store::sqlite_schema::migrate_to(&mut c, 4).unwrap();
        assert_eq!(schema_version(&c), 4);
        c.execute(
            "INSERT INTO boards (id, created_at, updated_at, seq) VALUES ('v4', 0, 0, 5)",
            [],
        )
        .unwrap();
        for seq in 1..=5u64 {
            let payload = serde_json::to_vec(&command(seq)).unwrap();
            let table = if seq <= 2 { "log" } else { "log_stage" };
            c.execute(
                &format!(
                    "INSERT INTO {table} (board, seq, payload, crc) VALUES ('v4', ?1, ?2, ?3)"
                ),
                rusqlite::params![seq as i64, payload, i64::from(checksum(&payload))],
            )
            .unwrap();
        }
    }
    let store = Store::open_sqlite(&dir.0).await.unwrap();
    let l = store.load(&b).await.unwrap().unwrap();
    assert_eq!((l.seq, seqs(&l)), (5, (1..=5).collect::<Vec<_>>()));
    assert!(l.tail.iter().all(|(s, c)| *c == command(*s)));
    assert_eq!(l.truncated, None);
    store.append(&recs(&b, 6..=8)).await.unwrap();
    let Store::Sqlite(s) = &store else {
        panic!("not sqlite")
    };
    let c = rusqlite::Connection::open(s.path()).unwrap();
    assert_eq!(
        schema_version(&c),
        crate::store::sqlite_schema::SCHEMA_VERSION
    );
    let staged: (i64, i64) = c
        .query_row("SELECT seq, n FROM log_stage WHERE board = 'v4'", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(staged, (8, 3), "the commit of 6..=8 is one stage row");
    drop(c);
    let l = store.load(&b).await.unwrap().unwrap();
    assert_eq!(seqs(&l), (1..=8).collect::<Vec<_>>());
}
