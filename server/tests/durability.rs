//! Durability: crash (SIGKILL) and restart of the real `server` binary, idle unload, store
//! failure. Each test names the docs/DURABILITY.md rule it checks (DUR-n).
//!
//! Replay one crash seed: `CRASH_SEED=3 cargo test -p server --test durability dur_1`.
//! More seeds: `CRASH_SEEDS=50`. `STORE_TEST_NO_PG=1` skips the PostgreSQL tests (with a note).
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::io::BufRead;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const PG_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

fn no_pg() -> bool {
    std::env::var("STORE_TEST_NO_PG").is_ok_and(|v| v == "1")
}

fn tmp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("board-dur-{tag}-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn pg_schema() -> String {
    format!("t_{}", uuid::Uuid::new_v4().simple())
}

/// The real server binary, running as a child process.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    /// Starts the binary with `args` (plus `--listen 127.0.0.1:0`) and waits for its address.
    fn start(args: &[String], log: &Path) -> Server {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_server"))
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(a) = line.strip_prefix("listening on ") {
                    let _ = tx.send(a.trim().to_string());
                }
            }
        });
        let addr = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(a) => a.parse().unwrap(),
            Err(_) => {
                let _ = child.kill();
                panic!("server did not print its address within 30 s");
            }
        };
        Server { child, addr }
    }

    /// SIGKILL: no shutdown code runs.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM, then waits (bounded) for a clean exit.
    fn terminate(mut self) {
        let st = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(
                    status.success(),
                    "server exited with {status} after SIGTERM"
                );
                return;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("server did not exit within 30 s of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the clients of one board saw acknowledged.
#[derive(Default, Debug)]
struct Acked {
    /// client commit id (= note id) → seq of its `applied` (or the `ack` seq).
    ids: BTreeMap<String, u64>,
    /// Highest seq of any `applied` seen on the board.
    max_seq: u64,
}

/// One client committing notes continuously (up to `depth` outstanding) until its connection
/// dies. Every acknowledged commit is recorded in `acked` as soon as it is seen.
async fn committer(
    addr: SocketAddr,
    board: String,
    user: String,
    depth: usize,
    acked: Arc<Mutex<Acked>>,
) -> u64 {
    let mut c = match tokio::time::timeout(STEP, Client::join(addr, &board, &user)).await {
        Ok(c) => c,
        Err(_) => return 0,
    };
    let mut next = 0u64;
    let mut outstanding = 0usize;
    let mut sent = 0;
    loop {
        while outstanding < depth {
            let id = format!("{user}x{next}");
            next += 1;
            let msg = json!({"type":"commit","id":id,"ops":[note(&id, (next % 50) as f64 * 210.0, (next / 50) as f64 * 210.0)]});
            if tokio::time::timeout(STEP, c.send_checked(msg)).await.ok() != Some(true) {
                return sent;
            }
            outstanding += 1;
            sent += 1;
        }
        let Some(v) = c.try_next(STEP).await else {
            return sent;
        };
        let mut a = acked.lock().unwrap();
        match v["type"].as_str() {
            Some("applied") => {
                let seq = v["seq"].as_u64().unwrap();
                a.max_seq = a.max_seq.max(seq);
                if v["command"]["author"] == user.as_str()
                    && let Some(id) = v["command"]["client_id"].as_str()
                {
                    a.ids.insert(id.to_string(), seq);
                    outstanding -= 1;
                }
            }
            Some("ack") => {
                a.ids.insert(
                    v["id"].as_str().unwrap().to_string(),
                    v["seq"].as_u64().unwrap_or(0),
                );
                outstanding -= 1;
            }
            Some("rejected") => panic!("unexpected rejection before the crash: {v}"),
            Some("__close") => return sent,
            _ => {}
        }
    }
}

trait SendChecked {
    async fn send_checked(&mut self, v: Value) -> bool;
}

impl SendChecked for Client {
    async fn send_checked(&mut self, v: Value) -> bool {
        use futures_util::SinkExt;
        self.ws
            .send(tokio_tungstenite::tungstenite::Message::text(v.to_string()))
            .await
            .is_ok()
    }
}

/// After a restart: every acknowledged commit of `board` is there and seq continues.
async fn verify_board(addr: SocketAddr, board: &str, acked: &Acked, ctx: &str) -> u64 {
    let mut c = tokio::time::timeout(STEP, Client::join(addr, board, "checker"))
        .await
        .unwrap_or_else(|_| panic!("{ctx}: join {board} timed out"));
    let seq = c.welcome["seq"].as_u64().unwrap();
    let ids: HashSet<String> = c.welcome["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().to_string())
        .collect();
    let missing: Vec<(&String, &u64)> = acked
        .ids
        .iter()
        .filter(|(id, _)| !ids.contains(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "{ctx}: board {board}: {} acknowledged commits lost (first: {:?}); welcome seq {seq}",
        missing.len(),
        missing.first()
    );
    assert!(
        seq >= acked.max_seq,
        "{ctx}: board {board}: welcome seq {seq} < highest acknowledged seq {}",
        acked.max_seq
    );
    // Objects are only ever created, one per command: the count is the seq.
    assert_eq!(
        ids.len() as u64,
        seq,
        "{ctx}: board {board}: objects vs seq"
    );
    let r = tokio::time::timeout(
        STEP,
        c.commit(
            "after-restart",
            json!([note("after-restart", -500.0, -500.0)]),
        ),
    )
    .await
    .unwrap_or_else(|_| panic!("{ctx}: commit after restart timed out"));
    assert_eq!(r["type"], "applied", "{ctx}: {r}");
    assert_eq!(
        r["seq"].as_u64().unwrap(),
        seq + 1,
        "{ctx}: board {board}: seq does not continue"
    );
    seq
}

/// One crash round: clients commit on several boards, the server is SIGKILLed at a random
/// moment, restarted on the same store, and every acknowledged commit is checked.
async fn crash_round(seed: u64, store_args: Vec<String>, tag: &str) {
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = tmp_dir(&format!("crash-{tag}-{seed}"));
    let log = dir.join("server.log");
    let mut args = vec![
        "--data-dir".to_string(),
        dir.join("data").display().to_string(),
    ];
    args.extend(store_args);
    let n_boards = rng.random_range(3..=4);
    let per_board = rng.random_range(2..=3);
    let depth = rng.random_range(1..=8);
    let kill_after = Duration::from_millis(rng.random_range(150..1500));
    let ctx = format!(
        "{tag} seed {seed} ({n_boards} boards x {per_board} clients, depth {depth}, kill after {kill_after:?}; replay: CRASH_SEED={seed}; log {})",
        log.display()
    );
    let server = Server::start(&args, &log);
    let addr = server.addr;
    let boards: Vec<String> = (0..n_boards).map(|b| format!("crash-{seed}-{b}")).collect();
    let acked: Vec<Arc<Mutex<Acked>>> = boards.iter().map(|_| Arc::default()).collect();
    let mut tasks = Vec::new();
    for (b, board) in boards.iter().enumerate() {
        for u in 0..per_board {
            tasks.push(tokio::spawn(committer(
                addr,
                board.clone(),
                format!("u{b}v{u}"),
                depth,
                acked[b].clone(),
            )));
        }
    }
    // Make sure the run is under way (something acknowledged on every board), then crash.
    let started = Instant::now();
    while acked.iter().any(|a| a.lock().unwrap().ids.is_empty()) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{ctx}: no commit acknowledged"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(kill_after).await;
    server.kill();
    let mut sent = 0;
    for t in tasks {
        sent += tokio::time::timeout(Duration::from_secs(15), t)
            .await
            .unwrap_or_else(|_| panic!("{ctx}: a client did not notice the crash"))
            .unwrap();
    }
    let server = Server::start(&args, &log);
    let mut total = 0;
    for (b, board) in boards.iter().enumerate() {
        let a = std::mem::take(&mut *acked[b].lock().unwrap());
        total += a.ids.len();
        verify_board(server.addr, board, &a, &ctx).await;
    }
    println!("{ctx}: {sent} commits sent, {total} acknowledged, all present after restart");
    server.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `round` for each seed (CRASH_SEED=n for one; CRASH_SEEDS=k for seeds 1..=k, default
/// `default`), each in its own task so a failing seed says how to replay it.
async fn for_seeds<F, Fut>(default: u64, round: F)
where
    F: Fn(u64) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let seeds: Vec<u64> = match std::env::var("CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        Some(s) => vec![s],
        None => {
            let n = std::env::var("CRASH_SEEDS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(default);
            (1..=n).collect()
        }
    };
    for seed in seeds {
        let r = tokio::time::timeout(Duration::from_secs(120), tokio::spawn(round(seed))).await;
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => panic!("crash seed {seed} failed ({e}); replay with CRASH_SEED={seed}"),
            Err(_) => panic!("crash seed {seed} timed out; replay with CRASH_SEED={seed}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dur_1_sigkill_loses_no_acknowledged_commit_sqlite() {
    for_seeds(5, |seed| crash_round(seed, vec![], "sqlite")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dur_2_sigkill_loses_no_acknowledged_commit_postgres() {
    if no_pg() {
        println!("STORE_TEST_NO_PG=1: skipping the PostgreSQL crash test");
        return;
    }
    for_seeds(1, |seed| {
        let schema = pg_schema();
        async move {
            let args = vec![
                "--database-url".to_string(),
                PG_URL.to_string(),
                "--database-schema".to_string(),
                schema.clone(),
            ];
            crash_round(seed, args, "postgres").await;
            drop_schema(&schema).await;
        }
    })
    .await;
}

/// Commits `n` notes one by one on `board`; returns the last seq.
async fn commit_notes(addr: SocketAddr, board: &str, n: usize) -> u64 {
    let mut c = Client::join(addr, board, "writer").await;
    let mut seq = 0;
    for i in 0..n {
        let id = format!("{board}n{i}");
        let r = c
            .commit(&id, json!([note(&id, i as f64 * 210.0, 0.0)]))
            .await;
        assert_eq!(r["type"], "applied", "{r}");
        seq = r["seq"].as_u64().unwrap();
    }
    seq
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dur_3_sigterm_then_restart_keeps_every_board_and_its_seq() {
    let dir = tmp_dir("term");
    let log = dir.join("server.log");
    let args = vec![
        "--data-dir".to_string(),
        dir.join("data").display().to_string(),
    ];
    let server = Server::start(&args, &log);
    let mut want = Vec::new();
    for (b, n) in [("term-a", 7), ("term-b", 30), ("term-c", 1)] {
        want.push((b, commit_notes(server.addr, b, n).await, n));
    }
    server.terminate();
    let server = Server::start(&args, &log);
    for (b, seq, n) in want {
        assert_eq!(seq, n as u64);
        let mut acked = Acked {
            max_seq: seq,
            ..Default::default()
        };
        for i in 0..n {
            acked.ids.insert(format!("{b}n{i}"), i as u64 + 1);
        }
        let got = verify_board(server.addr, b, &acked, "sigterm restart").await;
        assert_eq!(got, seq, "board {b}: seq changed across a clean restart");
    }
    server.terminate();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn dur_4_idle_unload_then_join_reloads_the_board() {
    let dir = tmp_dir("idle");
    let mut cfg = config();
    cfg.memory_store = false;
    cfg.data_dir = dir.clone();
    cfg.idle_unload_secs = 1;
    let s = start(cfg).await;
    let mut c = Client::join(s.addr, "idle", "ann").await;
    for i in 0..5 {
        let r = c
            .commit(
                &format!("c{i}"),
                json!([note(&format!("n{i}"), i as f64 * 210.0, 0.0)]),
            )
            .await;
        assert_eq!(r["type"], "applied");
    }
    let before = c.objects();
    drop(c);
    let deadline = Instant::now() + Duration::from_secs(10);
    while s.inspect("idle").await.is_some() {
        assert!(Instant::now() < deadline, "board not unloaded within 10 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The unload wrote a snapshot covering everything.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let boards = s.shared().store.list_boards().await.unwrap();
        if boards
            .iter()
            .any(|b| b.id.as_str() == "idle" && b.snapshot_seq == 5)
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no snapshot at seq 5 after unload: {boards:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut c = Client::join(s.addr, "idle", "ann").await;
    assert_eq!(c.welcome["seq"], 5);
    assert_eq!(c.objects(), before);
    assert!(
        s.inspect("idle").await.is_some(),
        "join did not load the board"
    );
    let r = c.commit("c5", json!([note("n5", 0.0, 500.0)])).await;
    assert_eq!(r["seq"], 6);
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

async fn pg_client() -> tokio_postgres::Client {
    let (client, conn) =
        tokio::time::timeout(STEP, tokio_postgres::connect(PG_URL, tokio_postgres::NoTls))
            .await
            .unwrap()
            .unwrap();
    tokio::spawn(conn);
    client
}

async fn drop_schema(schema: &str) {
    let c = pg_client().await;
    let _ = c
        .batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
        .await;
}

/// Terminates every PostgreSQL backend of the store; returns how many.
async fn terminate_backends(app: &str) -> i64 {
    let c = pg_client().await;
    let rows = c
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            &[&app],
        )
        .await
        .unwrap();
    rows.len() as i64
}

fn pg_config(schema: &str) -> server::Config {
    let mut cfg = config();
    cfg.memory_store = false;
    cfg.database_url = Some(PG_URL.into());
    cfg.database_schema = Some(schema.into());
    // While the store recovers every commit is rejected at once; the client's retries must not
    // trip the per-connection rate limit.
    cfg.rate_limit_per_sec = 1_000_000;
    cfg.rate_burst = 1_000_000;
    cfg
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dur_5_store_failure_rejects_cleanly_and_recovers() {
    if no_pg() {
        println!("STORE_TEST_NO_PG=1: skipping the PostgreSQL store-failure test");
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
/// committed again. The writer is held on a row lock that the test takes on the board's row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cmd_9_a_resend_is_not_acked_before_its_command_is_durable() {
    if no_pg() {
        println!("STORE_TEST_NO_PG=1: skipping the PostgreSQL re-send test");
        return;
    }
    let schema = pg_schema();
    let app = format!("board-store:{schema}");
    let s = start(pg_config(&schema)).await;
    let mut c = Client::join(s.addr, "resend", "ann").await;
    let commit = |id: &str, x: f64| json!({"type":"commit","id":id,"ops":[note(id, x, 0.0)]});
    // Answers to `id`: its `applied` (by its client id), `ack` or `rejected`.
    async fn answer(c: &mut Client, id: &str, wait: Duration) -> Option<Value> {
        let until = Instant::now() + wait;
        while let Some(v) = c
            .try_next(until.saturating_duration_since(Instant::now()))
            .await
        {
            let mine = match v["type"].as_str() {
                Some("applied") => v["command"]["client_id"] == id,
                Some("ack" | "rejected") => v["id"] == id,
                Some("__close") => panic!("closed: {v}"),
                _ => false,
            };
            if mine {
                return Some(v);
            }
        }
        None
    }
    c.send(commit("c0", 0.0)).await;
    assert_eq!(answer(&mut c, "c0", STEP).await.unwrap()["type"], "applied");

    // 1. Held by the lock, a re-send is answered by the `applied` once the lock goes, not by an
    //    `ack` before.
    let pg = pg_client().await;
    pg.batch_execute(&format!(
        "BEGIN; SELECT seq FROM \"{schema}\".boards WHERE id = 'resend' FOR UPDATE"
    ))
    .await
    .unwrap();
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
    pg.batch_execute(&format!(
        "BEGIN; SELECT seq FROM \"{schema}\".boards WHERE id = 'resend' FOR UPDATE"
    ))
    .await
    .unwrap();
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
    if no_pg() {
        println!("STORE_TEST_NO_PG=1: skipping the PostgreSQL writer-saturation test");
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
    let blocker = pg_client().await;
    blocker
        .batch_execute(&format!(
            "BEGIN; LOCK TABLE \"{schema}\".log IN EXCLUSIVE MODE"
        ))
        .await
        .unwrap();
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
