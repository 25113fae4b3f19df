//! The store contract: one suite of rules (ids STORE-n, listed in `docs/STORE.md`) run against
//! every backend: Memory, SQLite (a temp dir) and PostgreSQL (a fresh schema per test, dropped at
//! the end). PostgreSQL comes from `STORE_TEST_PG_URL` (default: the local server, database
//! `test`); `STORE_TEST_NO_PG=1` skips it.

use super::*;
use protocol::{Kind, ObjectId, ObjectInput, Op, Origin, UserId};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

// ---- fixtures ----

fn unique(prefix: &str) -> String {
    use std::hash::{BuildHasher, RandomState};
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let h = RandomState::new().hash_one((std::process::id(), n, now_ms()));
    format!("{prefix}{h:016x}")
}

fn pg_url() -> String {
    std::env::var("STORE_TEST_PG_URL")
        .unwrap_or_else(|_| "host=127.0.0.1 port=5432 user=postgres dbname=test".into())
}

/// A temp dir removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A PostgreSQL schema dropped on drop (even when the test panicked).
struct PgSchema(String);

impl Drop for PgSchema {
    fn drop(&mut self) {
        let schema = self.0.clone();
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let (client, conn) = tokio_postgres::connect(&pg_url(), tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(conn);
                client
                    .batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
                    .await
                    .unwrap();
            });
        })
        .join();
    }
}

enum Place {
    Memory,
    Sqlite(TempDir),
    Postgres(PgSchema),
}

/// A backend under test: the open store and where it lives.
struct Fixture {
    store: Store,
    place: Place,
}

impl Fixture {
    async fn new(backend: &str) -> Option<Fixture> {
        let place = match backend {
            "memory" => Place::Memory,
            "sqlite" => Place::Sqlite(TempDir(std::env::temp_dir().join(unique("store-test-")))),
            "postgres" => {
                if std::env::var_os("STORE_TEST_NO_PG").is_some() {
                    eprintln!("STORE_TEST_NO_PG set: skipping a PostgreSQL test");
                    return None;
                }
                Place::Postgres(PgSchema(unique("t_")))
            }
            other => panic!("unknown backend {other}"),
        };
        let mut fx = Fixture {
            store: Store::memory(),
            place,
        };
        fx.store = fx.reopen().await.expect("backend must be reachable");
        Some(fx)
    }

    /// A new store on the same data (Memory: a new, empty one).
    async fn reopen(&self) -> Result<Store, StoreError> {
        match &self.place {
            Place::Memory => Ok(Store::memory()),
            Place::Sqlite(dir) => Store::open_sqlite(&dir.0, DEFAULT_TIMEOUT).await,
            Place::Postgres(schema) => {
                Store::open_postgres(&pg_url(), Some(&schema.0), DEFAULT_TIMEOUT).await
            }
        }
    }

    fn durable(&self) -> bool {
        !matches!(self.place, Place::Memory)
    }
}

fn board(s: &str) -> BoardId {
    BoardId::try_from(s).unwrap()
}

fn object(i: u64) -> BoardObject {
    let mut o = ObjectInput::new(Kind::Note)
        .normalize(ObjectId::try_from(format!("o{i}")).unwrap(), i as i64);
    o.text = format!("note {i}");
    o.version = i;
    o
}

fn command(i: u64) -> Command {
    Command {
        id: format!("c{i}"),
        author: UserId::try_from("alice").unwrap(),
        origin: Origin::User,
        client_id: Some(format!("k{i}")),
        ops: vec![Op::Create { object: object(i) }],
    }
}

fn rec(b: &BoardId, seq: Seq) -> LogRecord {
    LogRecord::new(b.clone(), seq, &command(seq))
}

fn recs(b: &BoardId, seqs: std::ops::RangeInclusive<Seq>) -> Vec<LogRecord> {
    seqs.map(|s| rec(b, s)).collect()
}

fn seqs(l: &LoadedBoard) -> Vec<Seq> {
    l.tail.iter().map(|(s, _)| *s).collect()
}

// ---- the rules ----

/// STORE-1: what `append` acknowledged, `load` returns: same commands, in seq order.
async fn store_01_append_load_round_trip(fx: &Fixture) {
    let s = &fx.store;
    let b = board("b1");
    s.append(&recs(&b, 1..=2)).await.unwrap();
    s.append(&recs(&b, 3..=3)).await.unwrap();
    let l = s.load(&b).await.unwrap().unwrap();
    assert_eq!(l.snapshot_seq, 0);
    assert!(l.objects.is_empty());
    assert_eq!(
        l.tail,
        vec![(1, command(1)), (2, command(2)), (3, command(3))]
    );
    assert_eq!(l.seq, 3);
    assert_eq!(l.truncated, None);
    assert!(s.board_exists(&b).await.unwrap());
}

/// STORE-2: loading a board that was never written gives `None`.
async fn store_02_unknown_board_is_none(fx: &Fixture) {
    let b = board("nobody");
    assert_eq!(fx.store.load(&b).await.unwrap(), None);
    assert!(!fx.store.board_exists(&b).await.unwrap());
}

/// STORE-3: a snapshot at seq k replaces the log up to k: load gives the snapshot's objects and
/// replays only the commands after k. The last `KEPT_BEHIND` log rows up to k stay (client ids
/// and resumes after a restart or takeover) and come back as `behind`; older rows are deleted.
async fn store_03_snapshot_compacts_log(fx: &Fixture) {
    let s = &fx.store;
    let b = board("b3");
    s.append(&recs(&b, 1..=3)).await.unwrap();
    s.append(&recs(&b, 4..=5)).await.unwrap();
    let objects = vec![object(1), object(2)];
    s.save_snapshot(&b, 3, &objects).await.unwrap();
    assert_eq!(s.raw_log_seqs(&b).await.unwrap(), vec![1, 2, 3, 4, 5]);
    let l = s.load(&b).await.unwrap().unwrap();
    assert_eq!((l.snapshot_seq, l.seq), (3, 5));
    assert_eq!(l.objects, objects);
    assert_eq!(seqs(&l), vec![4, 5]);
    let behind: Vec<u64> = l.behind.iter().map(|(s, _)| *s).collect();
    assert_eq!(behind, vec![1, 2, 3]);
    // Only the latest snapshot is kept; an older one arriving late is ignored.
    s.append(&recs(&b, 6..=300)).await.unwrap();
    s.save_snapshot(&b, 300, &[object(9)]).await.unwrap();
    s.save_snapshot(&b, 4, &objects).await.unwrap();
    let l = s.load(&b).await.unwrap().unwrap();
    assert_eq!(
        (l.snapshot_seq, l.seq, l.objects.clone()),
        (300, 300, vec![object(9)])
    );
    assert!(l.tail.is_empty());
    let kept = 300 - KEPT_BEHIND + 1;
    let behind: Vec<u64> = l.behind.iter().map(|(s, _)| *s).collect();
    assert_eq!(behind, (kept..=300).collect::<Vec<_>>());
    assert_eq!(
        s.raw_log_seqs(&b).await.unwrap(),
        (kept..=300).collect::<Vec<_>>()
    );
}

/// STORE-4: seq continues after a snapshot; a seq at or below the snapshot is a conflict.
async fn store_04_seq_continues_after_snapshot(fx: &Fixture) {
    let s = &fx.store;
    let b = board("b4");
    s.append(&recs(&b, 1..=3)).await.unwrap();
    s.save_snapshot(&b, 3, &[object(1)]).await.unwrap();
    let e = s.append(&[rec(&b, 2)]).await.unwrap_err();
    assert!(matches!(e, StoreError::Conflict(_)), "{e:?}");
    s.append(&recs(&b, 4..=5)).await.unwrap();
    let l = s.load(&b).await.unwrap().unwrap();
    assert_eq!((l.snapshot_seq, l.seq, seqs(&l)), (3, 5, vec![4, 5]));
}

/// STORE-5: appending a seq that exists fails with Conflict and writes nothing of the batch,
/// other boards in it included.
async fn store_05_duplicate_seq_fails_whole_batch(fx: &Fixture) {
    let s = &fx.store;
    let (a, b) = (board("b5a"), board("b5b"));
    s.append(&recs(&a, 1..=3)).await.unwrap();
    let batch = vec![rec(&b, 1), rec(&a, 4), rec(&a, 2)];
    let e = s.append(&batch).await.unwrap_err();
    assert!(matches!(e, StoreError::Conflict(_)), "{e:?}");
    assert!(!e.is_unavailable());
    assert_eq!(s.load(&b).await.unwrap(), None);
    let l = s.load(&a).await.unwrap().unwrap();
    assert_eq!((l.seq, seqs(&l)), (3, vec![1, 2, 3]));
    // The same seq twice in one batch is refused too.
    let e = s.append(&[rec(&a, 4), rec(&a, 4)]).await.unwrap_err();
    assert!(matches!(e, StoreError::Conflict(_)), "{e:?}");
    s.append(&[rec(&a, 4)]).await.unwrap();
}

/// STORE-6: `create_board` stores the objects as a snapshot at seq 0; the log continues at 1;
/// creating an existing board is a conflict.
async fn store_06_create_board_imports_snapshot(fx: &Fixture) {
    let s = &fx.store;
    let b = board("b6");
    let objects = vec![object(1), object(2), object(3)];
    s.create_board(&b, &objects).await.unwrap();
    let l = s.load(&b).await.unwrap().unwrap();
    assert_eq!(
        (l.snapshot_seq, l.seq, l.objects.clone()),
        (0, 0, objects.clone())
    );
    let e = s.create_board(&b, &[]).await.unwrap_err();
    assert!(matches!(e, StoreError::Conflict(_)), "{e:?}");
    s.append(&[rec(&b, 1)]).await.unwrap();
    let l = s.load(&b).await.unwrap().unwrap();
    assert_eq!((l.seq, l.objects.len(), seqs(&l)), (1, 3, vec![1]));
}

/// STORE-7: `list_boards` lists every board (sorted, with seq and snapshot size);
/// `delete_board` removes a board with its log and snapshot and says whether it existed.
async fn store_07_list_and_delete(fx: &Fixture) {
    let s = &fx.store;
    let (a, b) = (board("b7a"), board("b7b"));
    s.append(&recs(&b, 1..=4)).await.unwrap();
    s.save_snapshot(&b, 2, &[object(1), object(2)])
        .await
        .unwrap();
    s.create_board(&a, &[object(1)]).await.unwrap();
    let list = s.list_boards().await.unwrap();
    let got: Vec<_> = list
        .iter()
        .map(|i| (i.id.as_str(), i.seq, i.snapshot_seq, i.snapshot_objects))
        .collect();
    assert_eq!(got, vec![("b7a", 0, 0, 1), ("b7b", 4, 2, 2)]);
    assert!(
        list.iter()
            .all(|i| i.created_at_ms > 0 && i.updated_at_ms >= i.created_at_ms)
    );
    assert!(s.delete_board(&b).await.unwrap());
    assert!(!s.delete_board(&b).await.unwrap());
    assert_eq!(s.load(&b).await.unwrap(), None);
    assert!(s.raw_log_seqs(&b).await.unwrap().is_empty());
    let ids: Vec<_> = s
        .list_boards()
        .await
        .unwrap()
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(ids, vec![a]);
    // A deleted board starts over from seq 1.
    s.append(&[rec(&b, 1)]).await.unwrap();
    assert_eq!(s.load(&b).await.unwrap().unwrap().seq, 1);
}

/// Writes 1..=3, damages the log with `inject`, loads, and checks the cut.
async fn check_truncation(fx: &Fixture, b: &BoardId, inject: Vec<(Seq, Vec<u8>, u32)>) {
    let s = &fx.store;
    s.append(&recs(b, 1..=3)).await.unwrap();
    for (seq, payload, crc) in inject {
        s.inject_raw_log_row(b, seq, payload, crc).await.unwrap();
    }
    let l = s.load(b).await.unwrap().unwrap();
    assert_eq!((l.seq, seqs(&l)), (3, vec![1, 2, 3]));
    let t = l.truncated.expect("the damage is reported");
    assert_eq!(t.kept_seq, 3);
    assert!(t.removed >= 1, "{t:?}");
    assert_eq!(s.raw_log_seqs(b).await.unwrap(), vec![1, 2, 3]);
    // Repaired for good: the next load is clean and the log continues after the cut.
    assert_eq!(s.load(b).await.unwrap().unwrap().truncated, None);
    s.append(&[rec(b, 4)]).await.unwrap();
    assert_eq!(seqs(&s.load(b).await.unwrap().unwrap()), vec![1, 2, 3, 4]);
}

/// STORE-8: a log row whose checksum does not match is cut at load, with every row after it.
async fn store_08_bad_checksum_tail_truncated(fx: &Fixture) {
    let b = board("b8");
    let good = serde_json::to_vec(&command(4)).unwrap();
    let bad_crc = checksum(&good) ^ 1;
    let five = serde_json::to_vec(&command(5)).unwrap();
    let five_crc = checksum(&five);
    check_truncation(fx, &b, vec![(4, good, bad_crc), (5, five, five_crc)]).await;
}

/// STORE-9: a gap in the log (a missing seq) is cut at load: the tail stops before it.
async fn store_09_seq_gap_truncated(fx: &Fixture) {
    let b = board("b9");
    let five = serde_json::to_vec(&command(5)).unwrap();
    let crc = checksum(&five);
    check_truncation(fx, &b, vec![(5, five, crc)]).await;
}

/// STORE-10: a partially written payload (checksum intact, JSON undecodable) is cut at load.
async fn store_10_undecodable_payload_truncated(fx: &Fixture) {
    let b = board("b10");
    let full = serde_json::to_vec(&command(4)).unwrap();
    let partial = full[..full.len() / 2].to_vec();
    let crc = checksum(&partial);
    check_truncation(fx, &b, vec![(4, partial, crc)]).await;
}

/// STORE-11: `truncate_after(k)` drops log entries after k (written, never acknowledged) and
/// the board's seq goes back to k, so those seqs can be written again.
async fn store_11_truncate_after_rolls_back_unacknowledged(fx: &Fixture) {
    let s = &fx.store;
    let b = board("b11");
    s.append(&recs(&b, 1..=5)).await.unwrap();
    s.truncate_after(&b, 3).await.unwrap();
    let l = s.load(&b).await.unwrap().unwrap();
    assert_eq!((l.seq, seqs(&l), l.truncated), (3, vec![1, 2, 3], None));
    s.append(&recs(&b, 4..=4)).await.unwrap();
    // Never below the snapshot; an unknown board is fine.
    s.save_snapshot(&b, 4, &[]).await.unwrap();
    s.truncate_after(&b, 1).await.unwrap();
    assert_eq!(s.load(&b).await.unwrap().unwrap().seq, 4);
    s.truncate_after(&board("b11-none"), 0).await.unwrap();
}

/// STORE-12: reopening the store (a restart) finds everything that was acknowledged.
async fn store_12_reopen_keeps_acknowledged(fx: &Fixture) {
    if !fx.durable() {
        return;
    }
    let (a, b) = (board("b12a"), board("b12b"));
    fx.store.append(&recs(&a, 1..=4)).await.unwrap();
    fx.store.save_snapshot(&a, 2, &[object(7)]).await.unwrap();
    fx.store.create_board(&b, &[object(8)]).await.unwrap();
    let expected = (
        fx.store.load(&a).await.unwrap(),
        fx.store.load(&b).await.unwrap(),
    );
    let again = fx.reopen().await.unwrap();
    assert_eq!(
        (again.load(&a).await.unwrap(), again.load(&b).await.unwrap()),
        expected
    );
    again.append(&[rec(&a, 5)]).await.unwrap();
    assert_eq!(again.load(&a).await.unwrap().unwrap().seq, 5);
}

// ---- the log writer's rules (STORE-13, 14, 15, 23), in `tests/writer_rules.rs` ----

mod comments;
mod versions;
mod writer_rules;
use comments::*;
use versions::*;
use writer_rules::*;

macro_rules! contract {
    ($backend:ident: $($rule:ident),* $(,)?) => {
        mod $backend {
            $(
                #[tokio::test]
                async fn $rule() {
                    if let Some(fx) = super::Fixture::new(stringify!($backend)).await {
                        super::$rule(&fx).await;
                    }
                }
            )*
        }
    };
}

macro_rules! suite {
    ($($rule:ident),* $(,)?) => {
        contract!(memory: $($rule),*);
        contract!(sqlite: $($rule),*);
        contract!(postgres: $($rule),*);
    };
}

/// STORE-19: a snapshot of a board that was deleted (or never written) writes nothing, so a late
/// background snapshot cannot bring a deleted board back.
async fn store_19_snapshot_never_resurrects(fx: &Fixture) {
    let s = &fx.store;
    let b = board("b19");
    s.append(&recs(&b, 1..=2)).await.unwrap();
    assert!(s.delete_board(&b).await.unwrap());
    s.save_snapshot(&b, 2, &[object(1)]).await.unwrap();
    assert_eq!(s.load(&b).await.unwrap(), None);
    assert!(!s.board_exists(&b).await.unwrap());
    let fresh = board("b19-never");
    s.save_snapshot(&fresh, 0, &[]).await.unwrap();
    assert!(!s.board_exists(&fresh).await.unwrap());
}

suite!(
    store_19_snapshot_never_resurrects,
    store_01_append_load_round_trip,
    store_02_unknown_board_is_none,
    store_03_snapshot_compacts_log,
    store_04_seq_continues_after_snapshot,
    store_05_duplicate_seq_fails_whole_batch,
    store_06_create_board_imports_snapshot,
    store_07_list_and_delete,
    store_08_bad_checksum_tail_truncated,
    store_09_seq_gap_truncated,
    store_10_undecodable_payload_truncated,
    store_11_truncate_after_rolls_back_unacknowledged,
    store_12_reopen_keeps_acknowledged,
    store_13_writer_group_commit,
    store_14_writer_conflict_isolated,
    store_15_writer_overload_fails_fast,
    store_23_writer_linger,
    store_24_writer_one_completion_per_submitter_and_batch,
    hist_01_versions_round_trip,
    hist_04_apply_retention_deletes_what_the_policy_drops,
    comment_01_threads_round_trip,
    comment_08_notifications,
);

// ---- backend-specific rules (SQLite's in `tests/sqlite_backend.rs`) ----

mod sqlite_backend;

// ---- cluster mode: ownership, leases and fencing (CLUSTER-n), in `tests/fencing.rs` ----

mod fencing;

/// STORE-16: PostgreSQL: after the server drops the connection (backend terminated), the next
/// call fails with Unavailable or succeeds on a new connection, and the one after succeeds.
#[tokio::test]
async fn store_16_postgres_reconnects_after_terminated_backend() {
    let Some(fx) = Fixture::new("postgres").await else {
        return;
    };
    let Store::Postgres(pg) = &fx.store else {
        panic!("not postgres")
    };
    let b = board("b16");
    fx.store.append(&recs(&b, 1..=1)).await.unwrap();
    let (admin, conn) = tokio_postgres::connect(&pg_url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let killed = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            &[&pg.application_name()],
        )
        .await
        .unwrap();
    assert_eq!(killed.len(), 2, "both connections of the store were found");
    match fx.store.append(&[rec(&b, 2)]).await {
        Ok(()) => {}
        Err(e) => {
            assert!(e.is_unavailable(), "{e:?}");
            // The failed append may or may not have committed; repair as the board does.
            fx.store.truncate_after(&b, 1).await.unwrap();
            fx.store.append(&[rec(&b, 2)]).await.unwrap();
        }
    }
    fx.store.append(&[rec(&b, 3)]).await.unwrap();
    let l = fx.store.load(&b).await.unwrap().unwrap();
    assert_eq!(seqs(&l), vec![1, 2, 3]);
}

/// STORE-17: an unreachable database is Unavailable (the wire's `store_unavailable`).
#[tokio::test]
async fn store_17_unreachable_database_is_unavailable() {
    let e = Store::open_postgres(
        "host=127.0.0.1 port=1 user=postgres dbname=test connect_timeout=2",
        None,
        DEFAULT_TIMEOUT,
    )
    .await
    .unwrap_err();
    assert!(e.is_unavailable(), "{e:?}");
}
