//! Durability: crash (SIGKILL) and restart of the real `server` binary, graceful restart and idle
//! unload (store failure is in `store_failure.rs`). Each test names the docs/DURABILITY.md rule
//! it checks (DUR-n).
//!
//! Replay one crash seed: `CRASH_SEED=3 cargo test -p server --test durability dur_1`.
//! More seeds: `CRASH_SEEDS=50`. `STORE_TEST_NO_PG=1` skips the PostgreSQL tests (with a note).
#![allow(clippy::unwrap_used)]

mod common;

use common::pg::*;
use common::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn tmp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("board-dur-{tag}-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&d).unwrap();
    d
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
        let (child, addr) = process::spawn(args, log, "warn");
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
    if skip_without_pg("crash") {
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
