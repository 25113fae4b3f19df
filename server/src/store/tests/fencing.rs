//! Cluster mode's storage half (CLUSTER-1..7 in docs/SPEC.md, docs/CLUSTER.md): ownership,
//! leases and fencing on PostgreSQL. Each test runs in a fresh schema, dropped at the end; two
//! nodes are two `Store`s on that schema.

use super::*;
use crate::store::{Summary, VersionKind, VersionMeta};
use std::time::{Duration, Instant};

const TTL: Duration = Duration::from_secs(30);

/// What a writer's completions reported, by submission.
type Outcomes = Arc<Mutex<Vec<(usize, Result<(), StoreError>)>>>;

/// A fresh schema, or `None` when PostgreSQL tests are switched off.
fn schema() -> Option<PgSchema> {
    if std::env::var_os("STORE_TEST_NO_PG").is_some() {
        eprintln!("STORE_TEST_NO_PG set: skipping a PostgreSQL test");
        return None;
    }
    Some(PgSchema(unique("t_")))
}

async fn fenced(schema: &PgSchema) -> Store {
    Store::open_postgres_fenced(&pg_url(), Some(&schema.0), DEFAULT_TIMEOUT)
        .await
        .unwrap()
}

fn cluster(s: &Store) -> ClusterStore {
    s.cluster().expect("postgres")
}

/// A plain client in the schema (what a test does behind the stores' backs).
async fn admin(schema: &PgSchema) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(&pg_url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
        .batch_execute(&format!("SET search_path TO \"{}\"", schema.0))
        .await
        .unwrap();
    client
}

/// Ends `node`'s lease on the database's clock, like a process that stopped renewing.
async fn expire(admin: &tokio_postgres::Client, node: &str) {
    admin
        .execute(
            "UPDATE nodes SET lease_expires = now() - interval '1 second' WHERE id = $1",
            &[&node],
        )
        .await
        .unwrap();
}

fn fenced_err<T: std::fmt::Debug>(r: Result<T, StoreError>, what: &str) {
    match r {
        Err(e) if e.is_fenced() => {}
        other => panic!("{what}: expected Fenced, got {other:?}"),
    }
}

fn version_meta() -> VersionMeta {
    VersionMeta {
        kind: VersionKind::Named,
        name: Some("v".into()),
        authors: Vec::new(),
        summary: Summary::default(),
        objects: 1,
    }
}

/// CLUSTER-1: two nodes race `take_board` on one free board, 50 rounds: exactly one wins each
/// round, the loser gets `None`, and every successful take bumps the epoch by exactly one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_01_take_board_race_has_one_winner() {
    let Some(sc) = schema() else { return };
    let (a, b) = (fenced(&sc).await, fenced(&sc).await);
    let (ca, cb) = (cluster(&a), cluster(&b));
    let ga = ca.join_node("a", TTL).await.unwrap();
    let gb = cb.join_node("b", TTL).await.unwrap();
    let bd = board("race");
    let mut epoch = 0;
    for round in 0..50 {
        let (ra, rb) = tokio::join!(ca.take_board(&bd, "a", ga), cb.take_board(&bd, "b", gb));
        let (ra, rb) = (ra.unwrap(), rb.unwrap());
        let (winner, e) = match (ra, rb) {
            (Some(e), None) => ("a", e),
            (None, Some(e)) => ("b", e),
            other => panic!("round {round}: {other:?}"),
        };
        assert_eq!(e, epoch + 1, "round {round}: the epoch goes up by one");
        epoch = e;
        let own = ca.owner_of(&bd).await.unwrap().unwrap();
        assert_eq!(own.owner().map(|o| o.node.as_str()), Some(winner));
        assert_eq!(own.epoch, e);
        // The loser cannot take it while the winner's lease is live.
        let (loser, lg) = if winner == "a" { (&cb, gb) } else { (&ca, ga) };
        let lname = if winner == "a" { "b" } else { "a" };
        assert_eq!(loser.take_board(&bd, lname, lg).await.unwrap(), None);
        let (wc, wg) = if winner == "a" { (&ca, ga) } else { (&cb, gb) };
        assert!(wc.release_board(&bd, winner, wg, e).await.unwrap());
    }
    assert_eq!(epoch, 50);
}

/// CLUSTER-2: once another node took a board over, every durable write of the old owner (log
/// append, snapshot, truncate, the repair inside a load, version save and delete, board delete,
/// import) fails with `Fenced` and changes nothing; the new owner's acknowledged rows all stay.
/// In a batch of the old owner's writer, only the fenced board's submissions fail.
#[tokio::test]
async fn cluster_02_stale_owner_is_fenced() {
    let Some(sc) = schema() else { return };
    let (a, b) = (fenced(&sc).await, fenced(&sc).await);
    let (ca, cb) = (cluster(&a), cluster(&b));
    let sql = admin(&sc).await;
    let ga = ca.join_node("a", TTL).await.unwrap();
    let gb = cb.join_node("b", TTL).await.unwrap();
    let (bd, c) = (board("b"), board("c"));
    // Without a take nothing is written, not even a new board.
    fenced_err(a.append(&recs(&bd, 1..=1)).await, "append before take");
    assert_eq!(ca.take_board(&bd, "a", ga).await.unwrap(), Some(1));
    assert_eq!(ca.take_board(&c, "a", ga).await.unwrap(), Some(1));
    a.append(&recs(&bd, 1..=2)).await.unwrap();
    a.append(&recs(&c, 1..=1)).await.unwrap();
    let v1 = a
        .save_version(&bd, 2, version_meta(), &[object(1)])
        .await
        .unwrap();
    // A stops renewing (paused); B takes the board over and writes.
    expire(&sql, "a").await;
    assert_eq!(cb.take_board(&bd, "b", gb).await.unwrap(), Some(2));
    assert_eq!(b.load(&bd).await.unwrap().unwrap().seq, 2);
    b.append(&recs(&bd, 3..=4)).await.unwrap();
    // Every write of A, each refused by the database (A still believes it holds epoch 1).
    let stale = || ca.pretend_held(&bd, 1);
    stale();
    fenced_err(a.append(&[rec(&bd, 5)]).await, "append");
    assert_eq!(ca.held_epoch(&bd), None, "a stale epoch is forgotten");
    stale();
    fenced_err(a.save_snapshot(&bd, 4, &[object(9)]).await, "snapshot");
    stale();
    fenced_err(a.truncate_after(&bd, 2).await, "truncate_after");
    a.inject_raw_log_row(&bd, 5, b"damaged".to_vec(), 0)
        .await
        .unwrap();
    stale();
    fenced_err(a.load(&bd).await, "load with repair");
    assert_eq!(a.raw_log_seqs(&bd).await.unwrap(), vec![1, 2, 3, 4, 5]);
    stale();
    fenced_err(
        a.save_version(&bd, 4, version_meta(), &[object(9)]).await,
        "save_version",
    );
    stale();
    fenced_err(a.delete_versions(&bd, &[v1.id]).await, "delete_versions");
    stale();
    fenced_err(a.delete_board(&bd).await, "delete_board");
    stale();
    fenced_err(a.create_board(&bd, &[object(9)]).await, "create_board");
    // And refused without asking the database once A knows it does not hold the board.
    fenced_err(a.append(&[rec(&bd, 5)]).await, "append, not held");
    fenced_err(a.delete_board(&bd).await, "delete_board, not held");
    // Nothing changed: B repairs the damaged row (it holds the board) and keeps all of its own.
    let l = b.load(&bd).await.unwrap().unwrap();
    assert_eq!(seqs(&l), vec![1, 2, 3, 4]);
    assert_eq!(l.snapshot_seq, 0, "no snapshot of A's");
    assert_eq!(b.raw_log_seqs(&bd).await.unwrap(), vec![1, 2, 3, 4]);
    let versions = b.list_versions(&bd).await.unwrap();
    assert_eq!(
        versions.iter().map(|v| v.id).collect::<Vec<_>>(),
        vec![v1.id]
    );
    let own = cb.owner_of(&bd).await.unwrap().unwrap();
    assert_eq!(
        own.owner().map(|o| (o.node.as_str(), o.epoch)),
        Some(("b", 2))
    );
    // A batch of A's writer: b (fenced, by the database, then locally) and c, which A still
    // holds (nobody took it over, so A's epoch is still the board's).
    ca.pretend_held(&bd, 1);
    for (round, seq) in [(0, 2), (1, 3)] {
        let (w, release) = Writer::spawn_held(a.clone(), WriterOptions::default());
        let out: Outcomes = Arc::default();
        for (i, r) in [rec(&bd, 5), rec(&c, seq), rec(&bd, 6)]
            .into_iter()
            .enumerate()
        {
            let out = out.clone();
            w.submit(vec![r], Box::new(move |r| out.lock().unwrap().push((i, r))));
        }
        release.send(()).unwrap();
        for _ in 0..2000 {
            if out.lock().unwrap().len() == 3 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let out = out.lock().unwrap().clone();
        let kinds: Vec<(usize, bool, bool)> = out
            .iter()
            .map(|(i, r)| (*i, r.is_ok(), r.as_ref().is_err_and(StoreError::is_fenced)))
            .collect();
        assert_eq!(
            kinds,
            vec![(0, false, true), (1, true, false), (2, false, true)],
            "round {round}: {out:?}"
        );
    }
    assert_eq!(seqs(&a.load(&c).await.unwrap().unwrap()), vec![1, 2, 3]);
    assert_eq!(b.raw_log_seqs(&bd).await.unwrap(), vec![1, 2, 3, 4]);
}

/// CLUSTER-3: a paused owner's open transaction (a row lock on the board) does not block a
/// takeover: `take_board` gives up after its lock timeout with a clear `Unavailable`, and once
/// the server ends the idle session (the idle-in-transaction timeout of a fenced store's
/// connections) the next take succeeds.
#[tokio::test]
async fn cluster_03_takeover_not_blocked_by_paused_owner() {
    let Some(sc) = schema() else { return };
    let (a, b) = (fenced(&sc).await, fenced(&sc).await);
    let (ca, cb) = (cluster(&a), cluster(&b));
    let ga = ca.join_node("a", TTL).await.unwrap();
    let gb = cb.join_node("b", TTL).await.unwrap();
    let bd = board("b");
    assert_eq!(ca.take_board(&bd, "a", ga).await.unwrap(), Some(1));
    a.append(&recs(&bd, 1..=1)).await.unwrap();
    // The paused owner: a session of its store in the middle of a transaction holding the row.
    let paused = admin(&sc).await;
    paused
        .batch_execute(&format!(
            "SET idle_in_transaction_session_timeout = {}; BEGIN; \
             SELECT 1 FROM boards WHERE id = 'b' FOR UPDATE",
            crate::store::postgres::IDLE_IN_TRANSACTION_TIMEOUT_MS
        ))
        .await
        .unwrap();
    let held_at = Instant::now();
    expire(&admin(&sc).await, "a").await;
    let started = Instant::now();
    let e = cb.take_board(&bd, "b", gb).await.unwrap_err();
    let waited = started.elapsed();
    assert!(e.is_unavailable(), "{e:?}");
    assert!(e.to_string().contains("lock"), "{e}");
    assert!(
        waited < Duration::from_millis(2500),
        "gave up after {waited:?}"
    );
    // The server ends the paused session; the takeover then goes through.
    let epoch = loop {
        match cb.take_board(&bd, "b", gb).await {
            Ok(Some(e)) => break e,
            Ok(None) => panic!("a's lease ended: b must be takeable"),
            Err(e) if e.is_unavailable() => {
                assert!(
                    held_at.elapsed() < Duration::from_secs(10),
                    "still locked: {e}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("{e:?}"),
        }
    };
    assert_eq!(epoch, 2);
    assert!(held_at.elapsed() >= Duration::from_millis(3500));
    assert!(
        paused.simple_query("SELECT 1").await.is_err(),
        "the idle session was ended"
    );
}

/// CLUSTER-4: a node id that joins again gets the next generation: the old generation's
/// `renew` answers `false`, and the boards it owned are takeable at once.
#[tokio::test]
async fn cluster_04_generation_bump_fences_old_process() {
    let Some(sc) = schema() else { return };
    let (old, new, other) = (fenced(&sc).await, fenced(&sc).await, fenced(&sc).await);
    let g1 = cluster(&old).join_node("n", TTL).await.unwrap();
    let bd = board("b");
    assert_eq!(
        cluster(&old).take_board(&bd, "n", g1).await.unwrap(),
        Some(1)
    );
    assert!(cluster(&old).renew("n", g1, TTL).await.unwrap());
    let g2 = cluster(&new).join_node("n", TTL).await.unwrap();
    assert_eq!(g2, g1 + 1);
    assert!(!cluster(&old).renew("n", g1, TTL).await.unwrap());
    assert!(cluster(&new).renew("n", g2, TTL).await.unwrap());
    let own = cluster(&new).owner_of(&bd).await.unwrap().unwrap();
    assert_eq!(own.stored.as_ref().map(|o| o.generation), Some(g1));
    assert!(!own.live, "the old generation's ownership is not live");
    assert_eq!(own.owner(), None);
    // Another node takes it although "n"'s lease is live: it belongs to a gone generation.
    let gm = cluster(&other).join_node("m", TTL).await.unwrap();
    assert_eq!(
        cluster(&other).take_board(&bd, "m", gm).await.unwrap(),
        Some(2)
    );
    fenced_err(
        old.append(&recs(&bd, 1..=1)).await,
        "old generation's append",
    );
    other.append(&recs(&bd, 1..=1)).await.unwrap();
}

/// CLUSTER-5: several servers starting at once on an empty schema all open it (the setup is
/// serialized), and each migration is applied once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cluster_05_concurrent_first_start() {
    let Some(sc) = schema() else { return };
    let opens: Vec<_> = (0..4)
        .map(|i| {
            let name = sc.0.clone();
            tokio::spawn(async move {
                let s = Some(name.as_str());
                if i % 2 == 0 {
                    Store::open_postgres(&pg_url(), s, DEFAULT_TIMEOUT).await
                } else {
                    Store::open_postgres_fenced(&pg_url(), s, DEFAULT_TIMEOUT).await
                }
            })
        })
        .collect();
    for o in opens {
        o.await.unwrap().unwrap();
    }
    let versions: Vec<i32> = admin(&sc)
        .await
        .query("SELECT version FROM schema_version ORDER BY version", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, vec![1, 2, 3, 4, 5]);
}

/// CLUSTER-6: `any_live_lease` is true while a node's lease is live and false after
/// `leave_node`, which also releases the node's boards; `live_nodes` lists the nodes with the
/// time left on their leases (database clock) and the boards they own.
#[tokio::test]
async fn cluster_06_leases_and_leave() {
    let Some(sc) = schema() else { return };
    let s = fenced(&sc).await;
    let c = cluster(&s);
    assert!(!c.any_live_lease().await.unwrap());
    let g = c.join_node("a", TTL).await.unwrap();
    assert!(c.any_live_lease().await.unwrap());
    let bd = board("b");
    assert_eq!(c.take_board(&bd, "a", g).await.unwrap(), Some(1));
    let nodes = c.live_nodes().await.unwrap();
    assert_eq!(nodes.len(), 1);
    let n = &nodes[0];
    assert_eq!((n.id.as_str(), n.generation, n.boards_owned), ("a", g, 1));
    assert!(
        n.lease_expires_ms > 25_000 && n.lease_expires_ms <= 30_000,
        "{n:?}"
    );
    c.leave_node("a", g).await.unwrap();
    assert!(!c.any_live_lease().await.unwrap());
    let own = c.owner_of(&bd).await.unwrap().unwrap();
    assert_eq!((own.stored, own.live, own.epoch), (None, false, 1));
    assert!(c.live_nodes().await.unwrap()[0].lease_expires_ms <= 0);
    fenced_err(s.append(&recs(&bd, 1..=1)).await, "append after leaving");
    // Not in cluster mode: the same store API works as before, and the plain store sees it all.
    let plain = Store::open_postgres(&pg_url(), Some(&sc.0), DEFAULT_TIMEOUT)
        .await
        .unwrap();
    assert!(!plain.fenced());
    assert!(!cluster(&plain).any_live_lease().await.unwrap());
    assert!(Store::memory().cluster().is_none());
}

/// CLUSTER-7: in cluster mode a board is taken before it is written: taking a board that has no
/// row creates it, empty and owned; an import fills that row (a `Conflict` once it has content);
/// a deleted board taken again continues above its last epoch, so its old holder stays fenced.
#[tokio::test]
async fn cluster_07_create_import_and_delete_under_fencing() {
    let Some(sc) = schema() else { return };
    let (a, b) = (fenced(&sc).await, fenced(&sc).await);
    let (ca, cb) = (cluster(&a), cluster(&b));
    let ga = ca.join_node("a", TTL).await.unwrap();
    let gb = cb.join_node("b", TTL).await.unwrap();
    let bd = board("imported");
    fenced_err(
        a.create_board(&bd, &[object(1)]).await,
        "import before take",
    );
    assert!(!a.board_exists(&bd).await.unwrap());
    assert_eq!(ca.take_board(&bd, "a", ga).await.unwrap(), Some(1));
    assert_eq!(
        ca.take_board(&bd, "a", ga).await.unwrap(),
        Some(1),
        "held: same epoch"
    );
    let l = a.load(&bd).await.unwrap().unwrap();
    assert_eq!((l.seq, l.objects.len()), (0, 0), "taken: an empty board");
    a.create_board(&bd, &[object(1), object(2)]).await.unwrap();
    let l = a.load(&bd).await.unwrap().unwrap();
    assert_eq!((l.seq, l.objects.len()), (0, 2));
    assert!(matches!(
        a.create_board(&bd, &[object(3)]).await,
        Err(StoreError::Conflict(_))
    ));
    a.append(&recs(&bd, 1..=2)).await.unwrap();
    // Deleted by its holder, then taken again by another node: the epoch goes on from 1.
    assert!(a.delete_board(&bd).await.unwrap());
    assert_eq!(ca.held_epoch(&bd), None);
    assert_eq!(cb.take_board(&bd, "b", gb).await.unwrap(), Some(2));
    b.append(&recs(&bd, 1..=1)).await.unwrap();
    ca.pretend_held(&bd, 1);
    fenced_err(
        a.append(&[rec(&bd, 2)]).await,
        "the old holder after delete and re-create",
    );
    assert_eq!(b.raw_log_seqs(&bd).await.unwrap(), vec![1]);
}

/// CLUSTER-16: a node whose own lease may have ended (its local deadline passed: it could not
/// renew in time, or it was paused) writes nothing from that moment, before the database could
/// have let another node take its boards; a renewal that moves the deadline on lets it write
/// again.
#[tokio::test]
async fn cluster_16_past_its_deadline_a_node_writes_nothing() {
    let Some(sc) = schema() else { return };
    let a = fenced(&sc).await;
    let ca = cluster(&a);
    let g = ca.join_node("a", TTL).await.unwrap();
    let bd = board("deadline");
    assert_eq!(ca.take_board(&bd, "a", g).await.unwrap(), Some(1));
    ca.set_writable_until(Instant::now() + TTL);
    a.append(&recs(&bd, 1..=1)).await.unwrap();
    ca.set_writable_until(Instant::now());
    fenced_err(
        a.append(&recs(&bd, 2..=2)).await,
        "append past the deadline",
    );
    let loaded = a.load(&bd).await.unwrap().unwrap();
    assert_eq!(loaded.seq, 1, "nothing of the fenced append was written");
    ca.set_writable_until(Instant::now() + TTL);
    a.append(&recs(&bd, 2..=2)).await.unwrap();
}
