//! Cluster mode under load, with real processes: server nodes on the local PostgreSQL (a schema
//! per test) and NATS (127.0.0.1:4222, a subject prefix per test). Each test names its
//! docs/SPEC.md rule (CLUSTER-n). `STORE_TEST_NO_PG=1` skips them.
//!
//! The nodes run with `--check-invariants`; every test ends by asserting that no node logged an
//! invariant violation. Node logs: `$TMPDIR/cluster-PREFIX-NODE.log` (restarts append), at
//! `RUST_LOG=info` or `CLUSTER_LOAD_LOG`.
#![allow(clippy::unwrap_used)]

mod common;

use common::cluster::*;
use common::pg::*;
use common::seeded::*;
use common::*;
use futures_util::SinkExt;
use protocol::{BoardState, Kind};
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

// ---------------------------------------------------------------------------------------------
// Clients that survive closes: connect without panicking, resume with `since`.

/// A token for `user` on every board, minted once (nodes share the signing key).
async fn token_for(addr: SocketAddr, user: &str) -> String {
    http::mint(addr, user, "*", "editor").await
}

/// Opens a socket to `board` on `addr` and sends the hello; an error when the node is down.
async fn open(
    addr: SocketAddr,
    board: &str,
    user: &str,
    token: &str,
    since: Option<u64>,
) -> Result<common::Client, String> {
    let url = format!("ws://{addr}/ws/boards/{board}");
    let (mut ws, _) = tokio::time::timeout(STEP, tokio_tungstenite::connect_async(url))
        .await
        .map_err(|_| "connect timed out".to_owned())?
        .map_err(|e| e.to_string())?;
    let mut hello = json!({"type":"hello","user":{"id":user,"name":user},"token":token});
    if let Some(s) = since {
        hello["since"] = json!(s);
    }
    ws.send(Message::text(hello.to_string()))
        .await
        .map_err(|e| e.to_string())?;
    Ok(common::Client {
        ws,
        mirror: BoardState::new(1_000_000),
        seq: 0,
        user: user.into(),
        welcome: Value::Null,
        seqs: vec![],
    })
}

/// Reads the welcome `c` was just sent (a resume keeps the mirror: the replay follows).
async fn welcome(c: &mut common::Client) -> Result<(), String> {
    match c.try_next(STEP).await {
        Some(w) if w["type"] == "welcome" => {
            c.welcome = w;
            Ok(())
        }
        Some(other) => Err(format!("instead of a welcome: {other}")),
        None => Err("no welcome".into()),
    }
}

/// A fresh client on `addr`, or why not.
async fn try_join(
    addr: SocketAddr,
    board: &str,
    user: &str,
    token: &str,
) -> Result<common::Client, String> {
    let mut c = open(addr, board, user, token, None).await?;
    welcome(&mut c).await?;
    Ok(c)
}

/// Re-attaches `c` through `addr` with `since` = its seq, keeping its mirror and seq check.
async fn try_resume(
    c: &mut common::Client,
    addr: SocketAddr,
    board: &str,
    token: &str,
) -> Result<(), String> {
    let fresh = open(addr, board, &c.user.clone(), token, Some(c.seq)).await?;
    c.ws = fresh.ws;
    welcome(c).await
}

/// [`try_resume`] until it works (a node may be fenced or not serve yet), within `within`.
async fn resume_within(
    c: &mut common::Client,
    addr: SocketAddr,
    board: &str,
    token: &str,
    within: Duration,
) {
    let deadline = Instant::now() + within;
    loop {
        match try_resume(c, addr, board, token).await {
            Ok(()) => return,
            Err(e) => {
                assert!(
                    Instant::now() < deadline,
                    "{} could not resume on {addr} within {within:?}: {e}",
                    c.user
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

/// Each object id on `c`'s mirror, sorted.
fn ids(c: &common::Client) -> Vec<String> {
    let mut v: Vec<String> = c.objects().iter().map(|o| o.id.to_string()).collect();
    v.sort();
    v
}

/// Commits `n` notes from `c`, ids `tag-0..`, each applied; returns the ids acknowledged.
async fn commit_notes(c: &mut common::Client, tag: &str, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..n {
        let id = format!("{tag}-{i}");
        let v = c
            .commit(&id, json!([note(&id, i as f64 * 10.0, 0.0)]))
            .await;
        assert_eq!(v["type"], "applied", "{v}");
        out.push(id);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// CLUSTER-22: SIGSTOP fencing

/// CLUSTER-22: an owner paused (SIGSTOP) past its lease is replaced and, resumed (SIGCONT),
/// writes nothing: a client on the other node is closed with 1012, re-joins and that node takes
/// the board (epoch + 1); the commands the old owner's client sent while it was paused are not
/// applied anywhere, no acknowledged command is lost, every board of the old owner closes with
/// 1012 on resume (also one nobody writes to), and its clients, resuming with `since` through
/// the old node, reach the new owner and converge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_22_a_paused_owner_is_fenced_when_it_resumes() {
    if skip_without_pg("cluster SIGSTOP fencing") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let board = "paused";
    let (ta, tb, tq, tc) = (
        token_for(n1.addr, "ann").await,
        token_for(n1.addr, "bob").await,
        token_for(n1.addr, "quinn").await,
        token_for(n1.addr, "cat").await,
    );
    let mut a = try_join(n1.addr, board, "ann", &ta).await.unwrap();
    let mut b = try_join(n2.addr, board, "bob", &tb).await.unwrap();
    // A second board of n1's that nobody writes to while n1 is paused.
    let mut q = try_join(n1.addr, "quiet", "quinn", &tq).await.unwrap();
    let mut acked = commit_notes(&mut a, "a", 5).await;
    acked.extend(commit_notes(&mut b, "b", 5).await);
    commit_notes(&mut q, "q", 1).await;
    a.catch_up(10).await;
    let before = board_json(n2.addr, board).await;
    assert_eq!(before["cluster"]["owner"], "n1", "{before}");
    let epoch = before["cluster"]["epoch"].as_i64().unwrap();

    n1.signal("-STOP");
    n1.stopped().await;
    let stopped = Instant::now();
    // Ann keeps typing: the frames wait in the kernel until n1 runs again.
    let paused: Vec<String> = (0..3).map(|i| format!("a-paused-{i}")).collect();
    for (i, id) in paused.iter().enumerate() {
        a.send(json!({"type":"commit","id":id,"ops":[note(id, i as f64 * 10.0, 100.0)]}))
            .await;
    }
    // n2 sees n1's lease end (10 s after its last renewal, looked at every 2 s).
    let closed = b
        .try_until(Duration::from_secs(16), |v| v["type"] == "__close")
        .await
        .expect("bob's relayed socket was not closed");
    assert_eq!(closed["code"], 1012, "{closed}");
    eprintln!("bob closed {:?} after SIGSTOP", stopped.elapsed());
    resume_within(&mut b, n2.addr, board, &tb, Duration::from_secs(10)).await;
    let taken = board_json(n2.addr, board).await;
    assert_eq!(taken["cluster"]["owner"], "n2", "{taken}");
    assert_eq!(taken["cluster"]["epoch"], epoch + 1, "{taken}");
    acked.extend(commit_notes(&mut b, "b2", 5).await);

    n1.signal("-CONT");
    let resumed = Instant::now();
    // Ann: no answer to the paused commands, then 1012.
    let mut seen = Vec::new();
    let closed = loop {
        let v = a
            .try_next(Duration::from_secs(10))
            .await
            .expect("ann's socket on the resumed owner was not closed within 10 s");
        if v["type"] == "__close" {
            break v;
        }
        seen.push(v);
    };
    // 1012 (CLUSTER-13, CLUSTER-26); nothing she sent while n1 was paused is applied (below).
    assert!(closed["code"] == 1012, "{closed}; before it: {seen:?}");
    for v in &seen {
        assert!(
            !matches!(v["type"].as_str(), Some("applied" | "ack")),
            "the fenced owner answered: {v}"
        );
    }
    eprintln!("ann closed {:?} after SIGCONT", resumed.elapsed());
    // The quiet board closes too: its node lost its lease while paused.
    let qc = q
        .try_until(Duration::from_secs(6), |v| v["type"] == "__close")
        .await;
    assert!(
        qc.as_ref().is_some_and(|v| v["code"] == 1012),
        "quinn's board on the resumed owner stayed open: {qc:?}"
    );

    // The new owner's state: every acknowledged command once, none of the paused ones.
    let mut c = try_join(n2.addr, board, "cat", &tc).await.unwrap();
    let have = ids(&c);
    for id in &acked {
        assert_eq!(
            have.iter().filter(|h| *h == id).count(),
            1,
            "{id}: {have:?}"
        );
    }
    for id in &paused {
        assert!(!have.contains(id), "{id} was applied: {have:?}");
    }
    assert_eq!(have.len(), acked.len(), "{have:?}");
    let after = board_json(n1.addr, board).await;
    assert_eq!(after["cluster"]["owner"], "n2", "{after}");
    assert_eq!(after["cluster"]["epoch"], epoch + 1, "{after}");
    assert_eq!(after["seq"], acked.len() as u64, "{after}");

    // Ann resumes through n1 (relayed to n2 now), catches up and re-sends what was not
    // acknowledged, as a client does.
    resume_within(&mut a, n1.addr, board, &ta, Duration::from_secs(10)).await;
    a.catch_up(acked.len() as u64).await;
    assert_eq!(a.objects(), c.objects());
    for (i, id) in paused.iter().enumerate() {
        let v = a
            .commit(id, json!([note(id, i as f64 * 10.0, 100.0)]))
            .await;
        assert_eq!(v["type"], "applied", "{v}");
    }
    let total = (acked.len() + paused.len()) as u64;
    for x in [&mut a, &mut b, &mut c] {
        x.catch_up(total).await;
    }
    assert_eq!(a.objects(), c.objects());
    assert_eq!(b.objects(), c.objects());
    let last = board_json(n1.addr, board).await;
    assert_eq!(last["cluster"]["owner"], "n2", "{last}");
    assert_eq!(last["seq"], total, "{last}");
    let fenced = cl.log_lines("n1", "fenced");
    eprintln!("n1 on fencing: {fenced:#?}");
    cl.assert_no_violations(&["n1", "n2"]);
}

// ---------------------------------------------------------------------------------------------
// CLUSTER-23: rolling restart under load

/// Commands one writer keeps in flight.
const WINDOW: usize = 3;
/// Notes each writer creates; after that it edits them in turn (a board holds 10,000 objects).
const CREATES: usize = 1500;

/// A client writing continuously, as a real one does across closes: it keeps what was
/// acknowledged, reconnects (its own node first, then the others) with `since`, and re-sends
/// what was not acknowledged under the same client ids.
struct Writer {
    c: common::Client,
    token: String,
    board: String,
    home: usize,
    connected: bool,
    next: usize,
    /// Sent (or to send again), not acknowledged: client id and ops.
    pending: VecDeque<(String, Value)>,
    acked: Vec<String>,
    last_ack: Instant,
    max_pause: Duration,
    reconnects: usize,
    /// Close codes this client got, and how often.
    closes: BTreeMap<String, usize>,
    /// Joins that took over a second, and how they ended.
    slow_joins: Vec<String>,
    errors: Vec<String>,
}

impl Writer {
    async fn send(&mut self, id: &str, ops: &Value) {
        let m = json!({"type":"commit","id":id,"ops":ops}).to_string();
        if self.c.ws.send(Message::text(m)).await.is_err() {
            self.connected = false;
        }
    }

    async fn reconnect(&mut self, addrs: &RwLock<Vec<SocketAddr>>) {
        let n = addrs.read().unwrap().len();
        for k in 0..n {
            let addr = addrs.read().unwrap()[(self.home + k) % n];
            let asked = Instant::now();
            let r = try_resume(&mut self.c, addr, &self.board.clone(), &self.token.clone()).await;
            if asked.elapsed() > Duration::from_secs(1) {
                self.slow_joins.push(format!(
                    "node {}: {:?} in {:?}",
                    (self.home + k) % n,
                    r,
                    asked.elapsed()
                ));
            }
            if r.is_ok() {
                self.connected = true;
                self.reconnects += 1;
                let again: Vec<(String, Value)> = self.pending.iter().cloned().collect();
                for (id, ops) in &again {
                    self.send(id, ops).await;
                }
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    fn acknowledged(&mut self, id: &str) {
        let Some(i) = self.pending.iter().position(|(p, _)| p == id) else {
            return;
        };
        self.pending.remove(i);
        self.acked.push(id.to_owned());
        let now = Instant::now();
        self.max_pause = self.max_pause.max(now - self.last_ack);
        self.last_ack = now;
    }

    /// Writes until `stop`, then until everything sent is acknowledged (30 s at most).
    async fn run(mut self, addrs: Arc<RwLock<Vec<SocketAddr>>>, stop: Arc<AtomicBool>) -> Self {
        let mut quiet_since = Instant::now();
        let mut drain_until: Option<Instant> = None;
        loop {
            if stop.load(Ordering::Relaxed) && drain_until.is_none() {
                drain_until = Some(Instant::now() + Duration::from_secs(30));
            }
            if let Some(d) = drain_until {
                if self.pending.is_empty() {
                    break;
                }
                assert!(
                    Instant::now() < d,
                    "{}: never acknowledged {:?}",
                    self.c.user,
                    self.pending
                );
            }
            if !self.connected {
                self.reconnect(&addrs).await;
                quiet_since = Instant::now();
                continue;
            }
            if drain_until.is_none() && self.pending.len() < WINDOW {
                let id = format!("{}-{}", self.c.user, self.next);
                let x = (self.next % 50) as f64 * 20.0;
                let y = (self.next / 50) as f64 * 20.0;
                let ops = if self.next < CREATES {
                    json!([note(&id, x, y)])
                } else {
                    let of = format!("{}-{}", self.c.user, self.next % CREATES);
                    json!([{"op":"update","id":of,"set":{"text":id}}])
                };
                self.next += 1;
                self.pending.push_back((id.clone(), ops.clone()));
                self.send(&id, &ops).await;
                continue;
            }
            let asked = Instant::now();
            let wait = Duration::from_millis(500);
            match self.c.try_next(wait).await {
                Some(v) => {
                    quiet_since = Instant::now();
                    match v["type"].as_str() {
                        Some("applied")
                            if v["command"]["author"] == self.c.user.as_str()
                                && v["command"]["client_id"].is_string() =>
                        {
                            let id = v["command"]["client_id"].as_str().unwrap().to_owned();
                            self.acknowledged(&id);
                        }
                        Some("ack") => {
                            let id = v["id"].as_str().unwrap().to_owned();
                            self.acknowledged(&id);
                        }
                        Some("rejected") => {
                            self.errors.push(v.to_string());
                            let id = v["id"].as_str().unwrap_or_default().to_owned();
                            self.pending.retain(|(p, _)| *p != id);
                        }
                        Some("__close") => {
                            let key = format!("{} {}", v["code"], v["reason"]);
                            *self.closes.entry(key).or_default() += 1;
                            self.connected = false;
                        }
                        Some("error") => self.errors.push(v.to_string()),
                        _ => {}
                    }
                }
                // Nothing within the wait, or the socket ended (sooner than the wait).
                None => {
                    if asked.elapsed() < wait / 2 || quiet_since.elapsed() > Duration::from_secs(8)
                    {
                        self.connected = false;
                    }
                }
            }
        }
        self
    }
}

/// CLUSTER-23: a rolling restart of three nodes under load loses nothing: six clients on two
/// boards, two on each node, write continuously while each node in turn gets SIGTERM, exits and
/// starts again under its id. Clients reconnect with `since` and re-send what was not
/// acknowledged; at the end every acknowledged command is on its board exactly once (the
/// board's seq counts them, each creates a note of its own or edits one, every acknowledged
/// create's note is there and no other object), no client saw a seq gap, every client's
/// mirror equals a fresh welcome, every close was a 1012, and no pause between two
/// acknowledgements of a client reached 15 s (the longest is printed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_23_rolling_restart_under_load_loses_nothing() {
    if skip_without_pg("cluster rolling restart") {
        return;
    }
    let cl = Cluster::new();
    let names = ["n1", "n2", "n3"];
    let mut nodes: Vec<Node> = names.iter().map(|id| cl.node(id, &[])).collect();
    let addrs = Arc::new(RwLock::new(
        nodes.iter().map(|n| n.addr).collect::<Vec<_>>(),
    ));
    let boards = ["roll-a", "roll-b"];
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for (k, board) in boards.iter().enumerate() {
        for home in 0..3 {
            // The first client of each board decides its owner: n1 for roll-a, n2 for roll-b.
            let home = (home + k) % 3;
            let user = format!("w{k}{home}");
            let token = token_for(nodes[0].addr, &user).await;
            let c = try_join(nodes[home].addr, board, &user, &token)
                .await
                .unwrap();
            let w = Writer {
                c,
                token,
                board: board.to_string(),
                home,
                connected: true,
                next: 0,
                pending: VecDeque::new(),
                acked: vec![],
                last_ack: Instant::now(),
                max_pause: Duration::ZERO,
                reconnects: 0,
                closes: BTreeMap::new(),
                slow_joins: vec![],
                errors: vec![],
            };
            tasks.push(tokio::spawn(w.run(addrs.clone(), stop.clone())));
        }
    }
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(3)).await;
    for (i, id) in names.iter().enumerate() {
        let asked = Instant::now();
        nodes[i].signal("-TERM");
        let status = nodes[i].child.wait().unwrap();
        assert!(status.success(), "{id}: {status}");
        let exited = asked.elapsed();
        nodes[i] = cl.node(id, &[]);
        nodes[i].serving(Duration::from_secs(15)).await;
        addrs.write().unwrap()[i] = nodes[i].addr;
        eprintln!(
            "{id}: exited {exited:?} after SIGTERM, serving again {:?} after it",
            asked.elapsed()
        );
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    stop.store(true, Ordering::Relaxed);
    let mut writers = Vec::new();
    for t in tasks {
        match t.await {
            Ok(w) => writers.push(w),
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        }
    }
    eprintln!("load ran {:?}", started.elapsed());
    for (k, board) in boards.iter().enumerate() {
        let tc = token_for(nodes[0].addr, "fresh").await;
        let fresh = try_join(nodes[k].addr, board, "fresh", &tc).await.unwrap();
        let have = ids(&fresh);
        let mine: Vec<&Writer> = writers.iter().filter(|w| w.board == *board).collect();
        let (mut total, mut notes) = (0, 0);
        for w in &mine {
            if !w.errors.is_empty() {
                // A store failure (CLUSTER-13) is not part of a rolling restart: show the nodes'.
                let store: Vec<String> = names
                    .iter()
                    .flat_map(|id| cl.log_lines(id, "log append failed"))
                    .collect();
                panic!(
                    "{}: {:#?}\nstore failures in the node logs: {store:#?}",
                    w.c.user, w.errors
                );
            }
            // Each acknowledged create's note is there (edits: the seq and mirrors below).
            let created = w.acked.len().min(CREATES);
            for k in 0..created {
                let id = format!("{}-{k}", w.c.user);
                assert!(have.binary_search(&id).is_ok(), "{board}: {id} lost");
            }
            notes += created;
            // Every node restarted, so every board's owner did: each client was closed.
            assert!(w.reconnects >= 1, "{} never reconnected", w.c.user);
            // With 1012 (CLUSTER-16, CLUSTER-26): handed over, or relayed through a stopping
            // node; never 1001 (a board loaded again on the stopping node during its hand-over).
            for code in w.closes.keys() {
                assert!(
                    code.starts_with("1012 "),
                    "{}: closed with {code}",
                    w.c.user
                );
            }
            total += w.acked.len();
            eprintln!(
                "{board}: {} acked {}, reconnected {} times, longest pause between acks {:?}, \
                 closes {:?}, slow joins {:?}",
                w.c.user,
                w.acked.len(),
                w.reconnects,
                w.max_pause,
                w.closes,
                w.slow_joins
            );
        }
        let info = board_json(nodes[0].addr, board).await;
        assert_eq!(
            have.len(),
            notes,
            "{board}: objects vs acknowledged creates"
        );
        assert_eq!(info["seq"], total as u64, "{board}: {info}");
        assert!(total > 0);
    }
    for w in writers.iter_mut() {
        let seq = board_json(nodes[0].addr, &w.board).await["seq"]
            .as_u64()
            .unwrap();
        if !w.connected {
            let addrs: Vec<SocketAddr> = addrs.read().unwrap().clone();
            resume_within(
                &mut w.c,
                addrs[w.home],
                &w.board.clone(),
                &w.token.clone(),
                STEP,
            )
            .await;
        }
        w.c.catch_up(seq).await;
        let tc = token_for(nodes[0].addr, "fresh").await;
        let fresh = try_join(nodes[w.home].addr, &w.board, "fresh", &tc)
            .await
            .unwrap();
        assert_eq!(w.c.objects(), fresh.objects(), "{}", w.c.user);
        assert!(
            w.max_pause < Duration::from_secs(15),
            "{}: {:?} between two acknowledgements",
            w.c.user,
            w.max_pause
        );
    }
    cl.assert_no_violations(&names);
}

// ---------------------------------------------------------------------------------------------
// CLUSTER-24: seeded convergence across three nodes

/// One seed of the single-node convergence workload on board `conv-SEED`, its clients spread
/// round-robin over `addrs` (the first client, who takes the board, on `addrs[seed % 3]`).
async fn run_seed(seed: u64, steps: usize, addrs: &[SocketAddr]) -> (usize, Stats) {
    let board = format!("conv-{seed}");
    let (mut slots, stats) = run_steps(seed, steps, &board, addrs).await;
    // The board's durable seq, asked on every node (the owner flushes first).
    let mut seqs = Vec::new();
    for a in addrs {
        seqs.push(board_json(*a, &board).await["seq"].as_u64().unwrap());
    }
    assert!(
        seqs.windows(2).all(|w| w[0] == w[1]),
        "seed {seed}: {seqs:?}"
    );
    catch_up(seed, &mut slots, seqs[0]).await;
    // Every mirror equals a fresh client's welcome, on every node.
    for (k, a) in addrs.iter().enumerate() {
        assert_mirrors(seed, &slots, *a, &board, &format!("fresh{k}")).await;
    }
    (slots.len(), stats)
}

/// CLUSTER-24: the single-node seeded convergence workload (CONV-1, CONV-2) with its clients
/// spread round-robin over three nodes: at quiescence every client's mirror equals a fresh
/// welcome on each node, and no client saw a seq gap. Seeds: `CLUSTER_CONV_SEEDS` (default 8),
/// one: `CLUSTER_CONV_SEED=n`; steps: `CLUSTER_CONV_STEPS` (default 120).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_24_seeded_sessions_over_three_nodes_converge() {
    if skip_without_pg("cluster convergence") {
        return;
    }
    let cl = Cluster::new();
    let names = ["n1", "n2", "n3"];
    let nodes: Vec<Node> = names.iter().map(|id| cl.node(id, &[])).collect();
    let addrs: Vec<SocketAddr> = nodes.iter().map(|n| n.addr).collect();
    let steps = env_u64("CLUSTER_CONV_STEPS").unwrap_or(120) as usize;
    let seeds: Vec<u64> = match env_u64("CLUSTER_CONV_SEED") {
        Some(one) => vec![one],
        None => (0..env_u64("CLUSTER_CONV_SEEDS").unwrap_or(8)).collect(),
    };
    for seed in seeds {
        let started = Instant::now();
        let run = tokio::time::timeout(Duration::from_secs(60), run_seed(seed, steps, &addrs));
        let (n, stats) = run.await.unwrap_or_else(|_| {
            panic!("seed {seed} timed out; replay with CLUSTER_CONV_SEED={seed}")
        });
        eprintln!(
            "seed {seed}: ok in {:?}, {n} clients, {stats:?}",
            started.elapsed()
        );
    }
    cl.assert_no_violations(&names);
}

// ---------------------------------------------------------------------------------------------
// CLUSTER-25: presence and AI across nodes

/// CLUSTER-25: presence and the AI reach across nodes: a cursor of a client on a relaying node
/// reaches a client on the owner and the other way round; an `ai` command sent through the
/// relaying node is applied by the owner as one command that both clients get, its requester
/// gets `ai_status` (queued, running) and `ai_result`, and the requester's one `undo` reverts it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_25_presence_and_ai_reach_across_nodes() {
    if skip_without_pg("cluster presence and AI") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let board = "shared-ai";
    let mut ann = Client::join(n1.addr, board, "ann").await;
    let mut bob = Client::join(n2.addr, board, "bob").await;
    let info = board_json(n2.addr, board).await;
    assert_eq!(info["cluster"]["owner"], "n1", "{info}");

    bob.send(json!({"type":"presence","cursor":{"x":7,"y":3}}))
        .await;
    let p = ann
        .until(|v| v["type"] == "presence" && v["user"]["id"] == "bob")
        .await;
    assert_eq!(p["cursor"]["x"].as_f64(), Some(7.0), "{p}");
    ann.send(json!({"type":"presence","cursor":{"x":11,"y":5}}))
        .await;
    let p = bob
        .until(|v| v["type"] == "presence" && v["user"]["id"] == "ann")
        .await;
    assert_eq!(p["cursor"]["x"].as_f64(), Some(11.0), "{p}");

    let viewport = json!({"x":0,"y":0,"w":1600,"h":1000});
    bob.send(json!({"type":"ai","id":"q1","text":"create a yellow sticky note that says hello","viewport":viewport}))
        .await;
    let mut before = Vec::new();
    let result = loop {
        let v = bob.next().await;
        if v["type"] == "ai_result" && v["id"] == "q1" {
            break v;
        }
        if !matches!(v["type"].as_str(), Some("presence" | "joined")) {
            before.push(v);
        }
    };
    assert_eq!(result["outcome"], "executed", "{result}");
    let types: Vec<&str> = before.iter().map(|v| v["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["ai_status", "ai_status", "applied"], "{before:?}");
    assert_eq!(before[0]["state"], "queued");
    assert_eq!(before[1]["state"], "running");
    let applied = &before[2];
    assert_eq!(applied["command"]["origin"], "ai", "{applied}");
    assert_eq!(applied["command"]["author"], "bob", "{applied}");
    assert_eq!(result["seq"], applied["seq"]);
    let objs = bob.objects();
    assert_eq!(objs.len(), 1, "{objs:?}");
    assert_eq!(objs[0].kind, Kind::Note);
    assert_eq!(objs[0].text, "hello");
    assert_eq!(objs[0].color, "#FFF59D", "yellow: {:?}", objs[0]);
    let seen = ann.until_type("applied").await;
    assert_eq!(seen, *applied);
    assert_eq!(ann.objects(), objs);
    let extra = ann
        .try_until(Duration::from_millis(300), |v| {
            matches!(v["type"].as_str(), Some("ai_status" | "ai_result"))
        })
        .await;
    assert!(
        extra.is_none(),
        "ai_status and ai_result go to the requester only: {extra:?}"
    );

    bob.send(json!({"type":"undo"})).await;
    let u = bob.until_type("applied").await;
    assert_eq!(u["command"]["origin"], "undo", "{u}");
    assert!(bob.objects().is_empty());
    let u2 = ann.until_type("applied").await;
    assert_eq!(u2, u);
    assert!(ann.objects().is_empty());
    assert_eq!(board_json(n2.addr, board).await["seq"], 2);
    cl.assert_no_violations(&["n1", "n2"]);
}

// ---------------------------------------------------------------------------------------------
// CLUSTER-26: the close code of a board closed under a writing client

/// CLUSTER-26 (CLUSTER-13, CLUSTER-16): a client whose frames are waiting to be read when its
/// board closes with 1012 gets 1012, not 1013. Here: the node pauses (SIGSTOP) past its
/// self-fence deadline (8 s), six clients send 400 commits each meanwhile (they wait in the
/// kernel), the node resumes (SIGCONT), fences itself and closes the board with 1012 while
/// those frames are still being read: every client gets 1012.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_26_a_client_writing_into_a_fenced_board_gets_1012() {
    if skip_without_pg("cluster close code") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &[]);
    let mut clients = Vec::new();
    for k in 0..6 {
        let mut c = Client::join(n1.addr, "busy", &format!("u{k}")).await;
        commit_notes(&mut c, &format!("u{k}"), 1).await;
        clients.push(c);
    }
    n1.signal("-STOP");
    n1.stopped().await;
    tokio::time::sleep(Duration::from_secs(9)).await;
    for (k, c) in clients.iter_mut().enumerate() {
        for i in 0..400 {
            let id = format!("p{k}-{i}");
            c.send(json!({"type":"commit","id":id,"ops":[note(&id, i as f64, 0.0)]}))
                .await;
        }
    }
    n1.signal("-CONT");
    let mut codes = Vec::new();
    for c in clients.iter_mut() {
        let closed = c
            .try_until(Duration::from_secs(5), |v| v["type"] == "__close")
            .await
            .expect("not closed");
        codes.push(closed);
    }
    assert!(codes.iter().all(|v| v["code"] == 1012), "{codes:#?}");
}
