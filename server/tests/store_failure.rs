//! The store failing or falling behind under the real server on PostgreSQL: every commit ends
//! `applied` or `rejected`, nothing acknowledged is lost, and the board recovers (DUR-5, DUR-6 in
//! docs/DURABILITY.md; CMD-9 in docs/SPEC.md). `STORE_TEST_NO_PG=1` skips them (with a note).
#![allow(clippy::unwrap_used)]

mod common;

use common::pg::*;
use common::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dur_5_store_failure_rejects_cleanly_and_recovers() {
    if skip_without_pg("store-failure") {
        return;
    }
    let schema = pg_schema();
    let app = format!("board-store:{schema}");
    let s = start(pg_config(&schema)).await;
    let mut c = Client::join(s.addr, "flaky", "ann").await;
    let mut applied: BTreeMap<String, u64> = BTreeMap::new();
    let mut rejected: Vec<String> = Vec::new();
    let mut outstanding: HashSet<String> = HashSet::new();
    let mut next = 0u64;
    let mut kills = 0;
    let mut terminated = 0;
    let mut applied_since_kill = 0;
    let mut bursts = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    // Commit with up to 8 outstanding; every 40 applied commits, terminate the store's backends
    // (5 times). Then keep going until 40 more are applied.
    while kills < 5 || applied_since_kill < 40 {
        assert!(
            Instant::now() < deadline,
            "store failure test did not finish in 60 s"
        );
        while outstanding.len() < 8 {
            let id = format!("f{next}");
            next += 1;
            c.send(json!({"type":"commit","id":id,"ops":[note(&id, (next % 40) as f64 * 210.0, (next / 40) as f64 * 210.0)]}))
                .await;
            outstanding.insert(id);
        }
        let v = c.next().await;
        match v["type"].as_str() {
            Some("applied") if v["command"]["author"] == "ann" => {
                let id = v["command"]["client_id"].as_str().unwrap().to_string();
                assert!(outstanding.remove(&id), "{v}");
                applied.insert(id, v["seq"].as_u64().unwrap());
                applied_since_kill += 1;
            }
            Some("rejected") => {
                assert_eq!(v["error"]["code"], "store_unavailable", "{v}");
                let id = v["id"].as_str().unwrap().to_string();
                assert!(outstanding.remove(&id), "{v}");
                rejected.push(id);
                // Pace retries while the board recovers (fault pacing, not synchronization).
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            Some("__close") => panic!("connection closed during store failure: {v}"),
            Some("error") => panic!("unexpected error: {v}"),
            _ => {}
        }
        if kills < 5 && applied_since_kill >= 40 {
            // A burst of terminations while commits keep flowing, so some land mid-transaction.
            let app = app.clone();
            bursts.push(tokio::spawn(async move {
                let mut n = 0;
                for _ in 0..10 {
                    n += terminate_backends(&app).await;
                    tokio::time::sleep(Duration::from_millis(3)).await;
                }
                n
            }));
            kills += 1;
            applied_since_kill = 0;
        }
    }
    // Drain what is still outstanding: each ends applied or rejected.
    while !outstanding.is_empty() {
        let v = c.next().await;
        match v["type"].as_str() {
            Some("applied") if v["command"]["author"] == "ann" => {
                let id = v["command"]["client_id"].as_str().unwrap().to_string();
                outstanding.remove(&id);
                applied.insert(id, v["seq"].as_u64().unwrap());
            }
            Some("rejected") => {
                assert_eq!(v["error"]["code"], "store_unavailable", "{v}");
                outstanding.remove(v["id"].as_str().unwrap());
                rejected.push(v["id"].as_str().unwrap().to_string());
            }
            Some("__close") => panic!("connection closed: {v}"),
            _ => {}
        }
    }
    for b in bursts {
        terminated += tokio::time::timeout(Duration::from_secs(30), b)
            .await
            .unwrap()
            .unwrap();
    }
    assert!(terminated > 0, "no backend of {app} was found to terminate");
    let last = *applied.values().max().unwrap();
    assert_eq!(applied.len() as u64, last, "applied seqs are not 1..=n");
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
    // Restart on the same schema: everything acknowledged is there, nothing rejected is.
    let s = start(pg_config(&schema)).await;
    let c = Client::join(s.addr, "flaky", "bob").await;
    assert_eq!(c.welcome["seq"].as_u64().unwrap(), last);
    let ids: HashSet<String> = c
        .objects()
        .into_iter()
        .map(|o| o.id.as_str().to_string())
        .collect();
    for id in applied.keys() {
        assert!(ids.contains(id), "acknowledged commit {id} lost");
    }
    for id in &rejected {
        assert!(!ids.contains(id), "rejected commit {id} is on the board");
    }
    println!(
        "store failure: {kills} terminations ({terminated} backends), {} applied, {} rejected, all consistent after restart",
        applied.len(),
        rejected.len()
    );
    s.shutdown().await.unwrap();
    drop_schema(&schema).await;
}

/// CMD-9 (with DUR-5): a commit re-sent while its original is still with the log writer gets no
/// `ack` (one could be followed by a rollback); the original's `applied` answers it, or, when the
/// store fails instead, `rejected` goes to the connection that re-sent it, and the id can then be
/// committed again. The writer is held by a lock the test takes on the log table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cmd_9_a_resend_is_not_acked_before_its_command_is_durable() {
    if skip_without_pg("re-send") {
        return;
    }
    let schema = pg_schema();
    let app = format!("board-store:{schema}");
    let s = start(pg_config(&schema)).await;
    let mut c = Client::join(s.addr, "resend", "ann").await;
    let commit = |id: &str, x: f64| json!({"type":"commit","id":id,"ops":[note(id, x, 0.0)]});
    // Answers to `id` within `wait`; a closed connection fails the test at once.
    async fn answer(c: &mut Client, id: &str, wait: Duration) -> Option<Value> {
        c.try_until(wait, |v| {
            assert_ne!(v["type"], "__close", "closed: {v}");
            answers_commit(v, id)
        })
        .await
    }
    c.send(commit("c0", 0.0)).await;
    assert_eq!(answer(&mut c, "c0", STEP).await.unwrap()["type"], "applied");

    // 1. Held by the lock, a re-send is answered by the `applied` once the lock goes, not by an
    //    `ack` before.
    let pg = stall_log_writer(&schema).await;
    c.send(commit("c1", 210.0)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    c.send(commit("c1", 210.0)).await;
    let early = answer(&mut c, "c1", Duration::from_millis(400)).await;
    assert!(early.is_none(), "answered before durable: {early:?}");
    pg.batch_execute("ROLLBACK").await.unwrap();
    let v = answer(&mut c, "c1", STEP).await.unwrap();
    assert_eq!(
        (v["type"].as_str(), v["seq"].as_u64()),
        (Some("applied"), Some(2)),
        "{v}"
    );
    // The re-send was not applied a second time.
    assert!(
        answer(&mut c, "c1", Duration::from_millis(300))
            .await
            .is_none()
    );

    // 2. Held again, the store fails: the re-send is answered `rejected`, and nothing acks it.
    let pg = stall_log_writer(&schema).await;
    c.send(commit("c2", 420.0)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    c.send(commit("c2", 420.0)).await;
    // The writer retries once on a new connection; terminate until the failure surfaces.
    let mut v = None;
    for _ in 0..100 {
        terminate_backends(&app).await;
        v = answer(&mut c, "c2", Duration::from_millis(100)).await;
        if v.is_some() {
            break;
        }
    }
    let v = v.expect("no answer to the re-send after the store failed");
    assert_eq!(v["type"], "rejected", "{v}");
    assert_eq!(v["error"]["code"], "store_unavailable", "{v}");
    assert!(
        answer(&mut c, "c2", Duration::from_millis(300))
            .await
            .is_none(),
        "a second answer to c2"
    );
    pg.batch_execute("ROLLBACK").await.unwrap();
    // 3. Once the log is repaired, the same id is a new command.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        assert!(
            Instant::now() < deadline,
            "c2 never applied after the repair"
        );
        c.send(commit("c2", 420.0)).await;
        let v = answer(&mut c, "c2", STEP).await.unwrap();
        if v["type"] == "applied" {
            assert_eq!(v["seq"].as_u64(), Some(3), "{v}");
            break;
        }
        assert_eq!(v["error"]["code"], "store_unavailable", "{v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
    drop_schema(&schema).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dur_6_a_saturated_log_writer_refuses_new_commands_without_rolling_back_any() {
    if skip_without_pg("writer-saturation") {
        return;
    }
    let schema = pg_schema();
    let mut cfg = pg_config(&schema);
    cfg.writer_queue = 16;
    let s = start(cfg).await;
    let mut ann = Client::join(s.addr, "busy", "ann").await;
    // A warm-up commit creates the board's row, so the stall below is on the log insert.
    let first = ann.commit("w0", json!([note("w0", 0.0, 0.0)])).await;
    assert_eq!(first["type"], "applied", "{first}");

    // Stall the writer: another transaction holds the log table until we let go.
    let blocker = stall_log_writer(&schema).await;
    const N: usize = 40;
    for i in 0..N {
        let id = format!("s{i}");
        ann.send(json!({"type":"commit","id":id,"ops":[note(&id, (i % 10) as f64 * 210.0, 300.0 + (i / 10) as f64 * 210.0)]}))
            .await;
    }
    // While the writer is stalled: refusals come at once, nothing is applied.
    let mut rejected: HashSet<String> = HashSet::new();
    let mut applied: BTreeMap<String, u64> = BTreeMap::new();
    let take = |v: &Value, rejected: &mut HashSet<String>, applied: &mut BTreeMap<String, u64>| {
        match v["type"].as_str() {
            Some("rejected") => {
                assert_eq!(v["error"]["code"], "rate_limited", "{v}");
                rejected.insert(v["id"].as_str().unwrap().to_string());
            }
            Some("applied") => {
                let id = v["command"]["client_id"].as_str().unwrap().to_string();
                applied.insert(id, v["seq"].as_u64().unwrap());
            }
            _ => panic!("unexpected message while the writer is saturated: {v}"),
        }
    };
    // At most 16 commands can be with the writer (one being written, the rest queued below
    // three quarters of 16): the rest are refused without waiting for the store.
    while rejected.len() < N - 16 {
        let v = ann.next().await;
        take(&v, &mut rejected, &mut applied);
    }
    assert!(applied.is_empty(), "applied before durable: {applied:?}");
    blocker.batch_execute("COMMIT").await.unwrap();
    while rejected.len() + applied.len() < N {
        let v = ann.next().await;
        take(&v, &mut rejected, &mut applied);
    }
    // Every admitted command became durable in order; none was rolled back.
    let seqs: Vec<u64> = applied.values().copied().collect();
    let mut sorted = seqs.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (2..2 + applied.len() as u64).collect::<Vec<_>>());
    assert!(!applied.is_empty() && applied.len() <= 16, "{applied:?}");
    // The board takes commands again.
    let after = ann
        .commit("after", json!([note("after", 0.0, 1500.0)]))
        .await;
    assert_eq!(after["type"], "applied", "{after}");
    // A fresh join sees exactly the admitted commands.
    let bob = Client::join(s.addr, "busy", "bob").await;
    let ids: HashSet<String> = bob
        .objects()
        .into_iter()
        .map(|o| o.id.as_str().to_string())
        .collect();
    for id in applied.keys() {
        assert!(ids.contains(id), "admitted commit {id} missing");
    }
    for id in &rejected {
        assert!(!ids.contains(id), "refused commit {id} is on the board");
    }
    assert_eq!(ids.len(), applied.len() + 2);
    assert_no_violations(&s);
    println!(
        "writer saturation: {} admitted, {} refused with rate_limited",
        applied.len(),
        rejected.len()
    );
    s.shutdown().await.unwrap();
    drop_schema(&schema).await;
}

/// What holds the store still in DUR-9: a PostgreSQL transaction holding the log table, or a
/// SQLite connection of the test's own holding the database's write lock.
enum Stall {
    Pg(tokio_postgres::Client),
    Sqlite(rusqlite::Connection),
}

impl Stall {
    async fn release(self) {
        match self {
            Stall::Pg(c) => c.batch_execute("ROLLBACK").await.unwrap(),
            Stall::Sqlite(c) => c.execute_batch("ROLLBACK").unwrap(),
        }
    }
}

/// DUR-9 (STORE-29) on PostgreSQL: a lock held on the log table. The statements that timed out
/// are cancelled, so the store's backends waiting on the lock never pile up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dur_9_a_stalled_store_answers_within_its_deadline() {
    if skip_without_pg("store-deadline") {
        return;
    }
    let schema = pg_schema();
    let app = format!("board-store:{schema}");
    let stall = async || Stall::Pg(stall_log_writer(&schema).await);
    let waiting = async || -> i64 {
        pg_client()
            .await
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 \
                 AND wait_event_type = 'Lock'",
                &[&app],
            )
            .await
            .unwrap()
            .get(0)
    };
    stalled_store_answers_within_its_deadline(pg_config(&schema), &schema, stall, Some(waiting))
        .await;
    drop_schema(&schema).await;
}

/// DUR-9 (STORE-29) on SQLite: another connection holds the database's write lock (`BEGIN
/// IMMEDIATE`); the log writer's transaction waits at most the deadline (`busy_timeout`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dur_9_a_stalled_sqlite_store_answers_within_its_deadline() {
    let mut cfg = config();
    cfg.memory_store = false;
    cfg.rate_limit_per_sec = 1_000_000;
    cfg.rate_burst = 1_000_000;
    let db = cfg.data_dir.join(server::store::sqlite::FILE_NAME);
    let stall = async || {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch("BEGIN IMMEDIATE").unwrap();
        Stall::Sqlite(c)
    };
    let dir = cfg.data_dir.clone();
    let no_check: Option<fn() -> std::future::Ready<i64>> = None;
    stalled_store_answers_within_its_deadline(cfg, "boards.db", stall, no_check).await;
    let _ = std::fs::remove_dir_all(dir);
}

/// DUR-9: the commands waiting for a stalled store fail once `--store-timeout-ms` has passed: the
/// author gets `store_unavailable` within the deadline plus slack, with a message that names no
/// internals (`hidden`); once the stall ends, the board takes commits again by itself, and after
/// a restart every acknowledged commit is there and the refused one is not. `waiting` counts the
/// store's statements still waiting on the stall, where the store can tell.
async fn stalled_store_answers_within_its_deadline<S, W>(
    mut cfg: server::Config,
    hidden: &str,
    stall: impl AsyncFnOnce() -> Stall,
    waiting: Option<W>,
) where
    W: Fn() -> S,
    S: std::future::Future<Output = i64>,
{
    cfg.store_timeout_ms = 1000;
    let deadline = Duration::from_millis(cfg.store_timeout_ms);
    let s = start(cfg.clone()).await;
    let mut ann = Client::join(s.addr, "stall", "ann").await;
    let mut applied: BTreeMap<String, u64> = BTreeMap::new();
    let mut n = 0;
    let mut commit = async |c: &mut Client| {
        n += 1;
        let id = format!("c{n}");
        let v = c
            .commit(&id, json!([note(&id, (n % 20) as f64 * 210.0, 0.0)]))
            .await;
        (id, v)
    };
    for _ in 0..5 {
        let (id, v) = commit(&mut ann).await;
        assert_eq!(v["type"], "applied", "{v}");
        applied.insert(id, v["seq"].as_u64().unwrap());
    }

    let blocker = stall().await;
    let sent = Instant::now();
    let (stalled, v) = commit(&mut ann).await;
    let waited = sent.elapsed();
    assert_eq!(v["type"], "rejected", "{v}");
    assert_eq!(v["error"]["code"], "store_unavailable", "{v}");
    let message = v["error"]["message"].as_str().unwrap();
    for internal in ["postgres", "sqlite", "SQLite", "database", hidden] {
        assert!(!message.contains(internal), "internals in {message:?}");
    }
    assert!(
        waited >= deadline.mul_f32(0.9) && waited < deadline + Duration::from_millis(1500),
        "answered after {waited:?} (deadline {deadline:?})"
    );
    // While the stall lasts the board keeps refusing within the deadline, and the calls that
    // passed it do not pile up.
    for _ in 0..6 {
        let t = Instant::now();
        let (_, v) = commit(&mut ann).await;
        assert_eq!(v["error"]["code"], "store_unavailable", "{v}");
        assert!(t.elapsed() < deadline + Duration::from_millis(1500));
        if let Some(waiting) = &waiting {
            let n = waiting().await;
            assert!(n <= 2, "{n} backends of the store wait on the lock");
        }
        tokio::time::sleep(Duration::from_millis(400)).await;
    }
    blocker.release().await;
    let freed = Instant::now();
    loop {
        assert!(
            freed.elapsed() < Duration::from_secs(15),
            "no commit applied within 15 s of the stall's end"
        );
        let (id, v) = commit(&mut ann).await;
        if v["type"] == "applied" {
            applied.insert(id, v["seq"].as_u64().unwrap());
            break;
        }
        assert_eq!(v["error"]["code"], "store_unavailable", "{v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let resumed = freed.elapsed();
    for _ in 0..5 {
        let (id, v) = commit(&mut ann).await;
        assert_eq!(v["type"], "applied", "{v}");
        applied.insert(id, v["seq"].as_u64().unwrap());
    }
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
    let s = start(cfg).await;
    let c = Client::join(s.addr, "stall", "bob").await;
    let ids: HashSet<String> = c
        .objects()
        .into_iter()
        .map(|o| o.id.as_str().to_string())
        .collect();
    for id in applied.keys() {
        assert!(ids.contains(id), "acknowledged commit {id} lost");
    }
    assert!(
        !ids.contains(&stalled),
        "the refused commit is on the board"
    );
    assert_eq!(ids.len(), applied.len());
    println!(
        "store deadline: refused after {waited:?} (deadline {deadline:?}), commits again {resumed:?} \
         after the stall ended, {} acknowledged, all present after a restart",
        applied.len()
    );
    s.shutdown().await.unwrap();
}
