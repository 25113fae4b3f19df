//! Cluster mode with real processes: server nodes on the local PostgreSQL (a schema per test) and
//! NATS (127.0.0.1:4222, a subject prefix per test). Each test names its docs/SPEC.md rule
//! (CLUSTER-n). `STORE_TEST_NO_PG=1` skips them.
#![allow(clippy::unwrap_used)]

mod common;

use common::pg::*;
use common::*;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// One node: the real `server` binary in cluster mode.
struct Node {
    child: Child,
    addr: SocketAddr,
    id: String,
}

/// A cluster's shared settings: its schema and NATS prefix.
struct Cluster {
    schema: String,
    prefix: String,
}

impl Cluster {
    fn new() -> Cluster {
        Cluster {
            schema: pg_schema(),
            prefix: format!("t{}", &uuid::Uuid::new_v4().simple().to_string()[..12]),
        }
    }

    /// Starts node `id` (plus `extra` flags) and waits until it serves.
    fn node(&self, id: &str, extra: &[&str]) -> Node {
        let log = std::env::temp_dir().join(format!("cluster-{}-{id}.log", self.prefix));
        let log = std::fs::File::create(log).unwrap();
        let mut args: Vec<String> = ["--cluster", "--node-id", id, "--database-url", PG_URL]
            .iter()
            .map(|a| a.to_string())
            .collect();
        for a in [
            "--database-schema",
            &self.schema,
            "--nats-prefix",
            &self.prefix,
        ] {
            args.push(a.to_owned());
        }
        args.extend(extra.iter().map(|a| a.to_string()));
        let (child, addr) = process::spawn(&args, log, "info");
        Node {
            child,
            addr,
            id: id.to_owned(),
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let schema = self.schema.clone();
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(drop_schema(&schema));
        })
        .join();
    }
}

impl Node {
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn signal(&self, sig: &str) {
        let st = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn board_json(addr: SocketAddr, board: &str) -> Value {
    let r = http::admin(addr, "GET", &format!("/api/boards/{board}"), None).await;
    assert_eq!(r.status, 200, "{:?}", r.json);
    r.json
}

/// Commits `n` notes from `c`, ids `tag-0..`, each answered; returns the ids acknowledged.
async fn commit_notes(c: &mut Client, tag: &str, n: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for i in 0..n {
        let id = format!("{tag}-{i}");
        let v = c
            .commit(&id, json!([note(&id, i as f64 * 10.0, 0.0)]))
            .await;
        assert_ne!(v["type"], "rejected", "{v}");
        ids.push(id);
    }
    ids
}

/// CLUSTER-10: a client on a node that does not own the board edits it through the owner: both
/// clients see every command once, in order (no gap: the client checks), the board's `cluster`
/// field names the owner, and `/api/cluster` lists both nodes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_10_a_client_on_another_node_edits_through_the_owner() {
    if skip_without_pg("cluster relay") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let mut a = Client::join(n1.addr, "relay-board", "alice").await;
    let mut b = Client::join(n2.addr, "relay-board", "bob").await;
    let from_b = commit_notes(&mut b, "b", 10).await;
    let from_a = commit_notes(&mut a, "a", 10).await;
    a.catch_up(20).await;
    b.catch_up(20).await;
    assert_eq!(a.objects(), b.objects());
    assert_eq!(a.objects().len(), from_a.len() + from_b.len());
    let info = board_json(n2.addr, "relay-board").await;
    assert_eq!(info["cluster"]["owner"], n1.id, "{info}");
    assert_eq!(info["seq"], 20);
    let nodes = http::admin(n2.addr, "GET", "/api/cluster", None).await;
    assert_eq!(nodes.status, 200);
    assert_eq!(nodes.json["node"], "n2");
    let ids: Vec<&str> = nodes.json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["id"].as_str())
        .collect();
    assert!(ids.contains(&"n1") && ids.contains(&"n2"), "{ids:?}");
}

/// CLUSTER-11: relay messages dropped on the way in (`--relay-drop-every 3` on both nodes) are
/// repaired from the sender: both clients converge and neither sees a gap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_11_dropped_relay_messages_are_repaired() {
    if skip_without_pg("cluster gap repair") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &["--relay-drop-every", "3"]);
    let n2 = cl.node("n2", &["--relay-drop-every", "3"]);
    let mut a = Client::join(n1.addr, "lossy", "alice").await;
    let mut b = Client::join(n2.addr, "lossy", "bob").await;
    commit_notes(&mut b, "b", 30).await;
    a.catch_up(30).await;
    assert_eq!(a.objects(), b.objects());
    assert_eq!(b.objects().len(), 30);
    let m = http::admin(n2.addr, "GET", "/metrics", None).await;
    let text = m.json.as_str().unwrap_or_default().to_owned();
    let repairs = text
        .lines()
        .find(|l| l.starts_with("board_cluster_gap_repairs_total"))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0);
    assert!(repairs > 0.0, "no gap repaired:\n{text}");
}

/// CLUSTER-12: the owner is killed (SIGKILL): the other node's client is closed with 1012 once
/// the owner's lease is gone, reconnects to it, and that node takes the board (within 15 s of
/// the kill) with every acknowledged command present once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_12_a_killed_owner_is_replaced() {
    if skip_without_pg("cluster failover") {
        return;
    }
    let cl = Cluster::new();
    let mut n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let mut a = Client::join(n1.addr, "failover", "alice").await;
    let mut b = Client::join(n2.addr, "failover", "bob").await;
    let mut acked = commit_notes(&mut a, "a", 5).await;
    acked.extend(commit_notes(&mut b, "b", 5).await);
    b.catch_up(10).await;
    let killed = Instant::now();
    n1.kill();
    let closed = b
        .try_until(Duration::from_secs(15), |v| v["type"] == "__close")
        .await
        .expect("the relayed client was not closed");
    assert_eq!(closed["code"], 1012, "{closed}");
    // n1's lease ends within 10 s of its last renewal; the next join takes the board.
    loop {
        let info = board_json(n2.addr, "failover").await;
        if info["cluster"]["owner"].is_null() {
            break;
        }
        assert!(killed.elapsed() < Duration::from_secs(15), "{info}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let c = Client::join(n2.addr, "failover", "carol").await;
    assert!(killed.elapsed() < Duration::from_secs(20));
    let have: Vec<String> = c.objects().iter().map(|o| o.id.to_string()).collect();
    for id in &acked {
        assert_eq!(
            have.iter().filter(|h| *h == id).count(),
            1,
            "{id}: {have:?}"
        );
    }
    let info = board_json(n2.addr, "failover").await;
    assert_eq!(info["cluster"]["owner"], "n2");
}

/// CLUSTER-16 (hand-over): SIGTERM on the owner hands its board over: its own client and the
/// relayed one are closed with 1012 within 3 s, the node exits, and the board is free at once
/// (no lease to wait for): the next join on the other node takes it with every acknowledged
/// command.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_16_sigterm_hands_the_board_over() {
    if skip_without_pg("cluster hand-over") {
        return;
    }
    let cl = Cluster::new();
    let mut n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let mut a = Client::join(n1.addr, "handover", "alice").await;
    let mut b = Client::join(n2.addr, "handover", "bob").await;
    let mut acked = commit_notes(&mut a, "a", 5).await;
    acked.extend(commit_notes(&mut b, "b", 5).await);
    let asked = Instant::now();
    n1.signal("-TERM");
    for c in [&mut a, &mut b] {
        let closed = c
            .try_until(Duration::from_secs(3), |v| v["type"] == "__close")
            .await
            .expect("not closed within 3 s of SIGTERM");
        assert_eq!(closed["code"], 1012, "{closed}");
    }
    assert!(asked.elapsed() < Duration::from_secs(3));
    let status = n1.child.wait().unwrap();
    assert!(status.success(), "{status}");
    let info = board_json(n2.addr, "handover").await;
    assert!(info["cluster"]["owner"].is_null(), "{info}");
    let c = Client::join(n2.addr, "handover", "carol").await;
    let have: Vec<String> = c.objects().iter().map(|o| o.id.to_string()).collect();
    for id in &acked {
        assert_eq!(
            have.iter().filter(|h| *h == id).count(),
            1,
            "{id}: {have:?}"
        );
    }
    let info = board_json(n2.addr, "handover").await;
    assert_eq!(info["cluster"]["owner"], "n2", "{info}");
}

/// CLUSTER-12 (the other way round): when a node that relays a client dies, the owner forgets
/// that client once the node's lease is seen ended: the others on the board see it leave.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_12_a_dead_relaying_nodes_clients_leave_the_board() {
    if skip_without_pg("cluster relay death") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &[]);
    let mut n2 = cl.node("n2", &[]);
    let mut a = Client::join(n1.addr, "orphans", "alice").await;
    let mut b = Client::join(n2.addr, "orphans", "bob").await;
    commit_notes(&mut b, "b", 2).await;
    a.catch_up(2).await;
    n2.kill();
    // Lease 10 s, looked at every 2 s, then the presence grace (5 s).
    let left = a
        .try_until(Duration::from_secs(25), |v| {
            v["type"] == "left" && v["user"]["id"] == "bob"
        })
        .await;
    assert!(left.is_some(), "bob never left the board");
    drop(n1);
}
