//! Cluster mode with real processes: server nodes on the local PostgreSQL (a schema per test) and
//! NATS (127.0.0.1:4222, a subject prefix per test). Each test names its docs/SPEC.md rule
//! (CLUSTER-n). `STORE_TEST_NO_PG=1` skips them.
#![allow(clippy::unwrap_used)]

mod common;

use common::cluster::*;
use common::pg::*;
use common::*;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

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
/// the kill) with every acknowledged command present once, and makes the automatic version the
/// dead owner never made (HIST-2: a board loaded past its latest version counts as edited).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_12_a_killed_owner_is_replaced() {
    if skip_without_pg("cluster failover") {
        return;
    }
    let cl = Cluster::new();
    // A long idle time: the edits' automatic version is not made before the kill.
    let mut n1 = cl.node("n1", &["--history-idle-secs", "30"]);
    let n2 = cl.node("n2", &["--history-idle-secs", "1"]);
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
    // The dead owner never made the edits' automatic version: the new owner does.
    let mut versioned = false;
    for _ in 0..50 {
        let v = http::admin(n2.addr, "GET", "/api/boards/failover/versions", None).await;
        versioned = v.json["versions"]
            .as_array()
            .is_some_and(|l| l.iter().any(|v| v["kind"] == "automatic" && v["seq"] == 10));
        if versioned {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(versioned, "no automatic version of the edits");
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

/// A request with a bearer token.
async fn bearer(
    addr: SocketAddr,
    token: &str,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> http::Answer {
    let b = format!("Bearer {token}");
    http::request(addr, method, path, &[("Authorization", &b)], body).await
}

/// CLUSTER-17: the routes that act on a live board reach its owner when sent to another node:
/// a named version, a restore (one command by the restorer, which the restorer's one undo
/// reverts), an export and an import, a rename and a delete, each sent to n2 while n1 owns the
/// board, with a token minted on n2.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_17_routes_sent_to_another_node_act_on_the_owner() {
    if skip_without_pg("cluster routes") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let board = "routes";
    let mut ann = Client::join(n1.addr, board, "ann").await;
    let mut bob = Client::join(n2.addr, board, "bob").await;
    let token = http::mint(n2.addr, "ann", board, "editor").await;
    let v = ann
        .commit("a1", json!([note("a", 0.0, 0.0), note("b", 300.0, 0.0)]))
        .await;
    assert_eq!(v["type"], "applied");
    bob.catch_up(1).await;
    let path = format!("/api/boards/{board}/versions");
    let saved = bearer(n2.addr, &token, "POST", &path, Some(r#"{"name":"v1"}"#)).await;
    assert_eq!(saved.status, 201, "{:?}", saved.json);
    let version = saved.json["id"].as_u64().unwrap();
    let at_version = texts(&ann);
    let edit = json!([
        {"op":"update","id":"a","set":{"text":"changed"}},
        {"op":"delete","id":"b"},
        note("c", 600.0, 0.0)
    ]);
    assert_eq!(ann.commit("a2", edit).await["type"], "applied");
    bob.catch_up(2).await;
    let before_restore = texts(&ann);

    let body = json!({"version": version}).to_string();
    let restore = format!("/api/boards/{board}/restore");
    let r = bearer(n2.addr, &token, "POST", &restore, Some(&body)).await;
    assert_eq!(r.status, 200, "{:?}", r.json);
    assert_eq!(r.json["seq"], 3);
    for c in [&mut ann, &mut bob] {
        let m = c.until(|m| m["type"] == "applied").await;
        assert_eq!(m["command"]["origin"], "restore");
        assert_eq!(m["command"]["author"], "ann");
        assert_eq!(texts(c), at_version);
    }
    let missing = bearer(
        n2.addr,
        &token,
        "POST",
        &restore,
        Some(r#"{"version":999}"#),
    )
    .await;
    assert_eq!(missing.status, 404, "{:?}", missing.json);
    ann.send(json!({"type":"undo"})).await;
    let m = ann.until(|m| m["type"] == "applied").await;
    assert_eq!(m["command"]["origin"], "undo");
    assert_eq!(texts(&ann), before_restore);
    bob.catch_up(4).await;
    assert_eq!(texts(&bob), before_restore);

    let export = format!("/api/boards/{board}/export.json");
    let file = bearer(n2.addr, &token, "GET", &export, None).await;
    assert_eq!(file.status, 200);
    let import = format!("/api/boards/{board}/import");
    let file = file.json.to_string();
    let r = bearer(n2.addr, &token, "POST", &import, Some(&file)).await;
    assert_eq!(r.status, 200, "{:?}", r.json);
    assert_eq!(r.json["created"].as_array().unwrap().len(), 2);
    for c in [&mut ann, &mut bob] {
        let m = c.until(|m| m["type"] == "applied").await;
        assert_eq!(m["command"]["author"], "ann");
        assert_eq!(c.objects().len(), 4);
    }

    let r = bearer(
        n2.addr,
        &token,
        "PATCH",
        &format!("/api/boards/{board}"),
        Some(r#"{"title":"Renamed"}"#),
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.json);
    for c in [&mut ann, &mut bob] {
        let m = c.until(|m| m["type"] == "title_changed").await;
        assert_eq!(m["title"], "Renamed");
    }

    let r = http::admin(n2.addr, "DELETE", &format!("/api/boards/{board}"), None).await;
    assert_eq!(r.status, 204, "{:?}", r.json);
    for c in [&mut ann, &mut bob] {
        let closed = c
            .try_until(Duration::from_secs(5), |v| v["type"] == "__close")
            .await
            .expect("closed by the delete");
        assert_eq!(closed["code"], 4004, "{closed}");
    }
    let gone = http::admin(n1.addr, "GET", &format!("/api/boards/{board}"), None).await;
    assert_eq!(gone.status, 404, "{:?}", gone.json);
    // A board nobody runs is deleted too: the node that is asked takes it first.
    let mut cat = Client::join(n1.addr, "idle", "cat").await;
    commit_notes(&mut cat, "c", 1).await;
    drop(cat);
    let r = http::admin(n2.addr, "DELETE", "/api/boards/idle", None).await;
    assert_eq!(r.status, 204, "{:?}", r.json);
    let r = http::admin(n2.addr, "DELETE", "/api/boards/never-was", None).await;
    assert_eq!(r.status, 404, "{:?}", r.json);
}

/// CLUSTER-18: auth across nodes (access control on, one admin token, no `--token-secret`): a
/// token minted on n1 opens a socket on n2 (and on n3); a share link revoked on n1 closes its
/// guest's socket on n3, whose board n2 owns, within a second; a session signed out on n1 closes
/// the socket its token opened on n3 within a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_18_tokens_revocations_and_sign_outs_reach_every_node() {
    if skip_without_pg("cluster auth") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let n3 = cl.node("n3", &[]);
    let board = "guarded";
    let token = http::mint(n1.addr, "owner-app", board, "editor").await;
    let mut own = Client::join_with(n2.addr, board, "owner-app", Some(&token)).await;
    assert_eq!(own.welcome["role"], "editor");

    let a = http::admin(
        n1.addr,
        "POST",
        &format!("/api/boards/{board}/links"),
        Some(r#"{"role":"editor"}"#),
    )
    .await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    let link_id = a.json["id"].as_str().unwrap().to_owned();
    let link = a.json["url"].as_str().unwrap().strip_prefix("/s/").unwrap();
    let origin = format!("http://{}", n3.addr);
    let a = http::request(
        n3.addr,
        "POST",
        &format!("/api/links/{link}/session"),
        &[("Origin", &origin)],
        Some(r#"{"name":"Gus"}"#),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let gid = a.json["user"]["id"].as_str().unwrap().to_owned();
    let gtok = a.json["token"].as_str().unwrap().to_owned();
    let mut guest = Client::join_with(n3.addr, board, &gid, Some(&gtok)).await;
    let r = guest.commit("g1", json!([note("g", 0.0, 0.0)])).await;
    assert_eq!(r["type"], "applied", "{r}");
    let info = board_json(n1.addr, board).await;
    assert_eq!(info["cluster"]["owner"], "n2", "{info}");

    let a = http::admin(
        n1.addr,
        "DELETE",
        &format!("/api/boards/{board}/links/{link_id}"),
        None,
    )
    .await;
    assert_eq!(a.status, 204);
    let e = guest
        .try_until(Duration::from_secs(1), |v| v["type"] == "__close")
        .await
        .expect("the guest's socket on n3 closed within 1 s");
    assert_eq!(e["code"], 4003, "{e}");

    // A session signed in on n1; a token minted from it opens a socket on n3.
    let a = http::admin(n1.addr, "POST", "/api/login-links", Some("{}")).await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let code = a.json["url"]
        .as_str()
        .unwrap()
        .strip_prefix("/login#")
        .unwrap();
    let origin1 = format!("http://{}", n1.addr);
    let a = http::request(
        n1.addr,
        "POST",
        "/api/login",
        &[("Origin", &origin1)],
        Some(&json!({"code": code}).to_string()),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let cookie = a.cookie().unwrap();
    let me = a.json["user"]["id"].as_str().unwrap().to_owned();
    let h = [("Cookie", cookie.as_str()), ("Origin", origin1.as_str())];
    let path = format!("/api/boards/{board}/token");
    let a = http::request(n1.addr, "POST", &path, &h, None).await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let minted = a.json["token"].as_str().unwrap().to_owned();
    let mut by_session = Client::join_with(n3.addr, board, &me, Some(&minted)).await;
    let a = http::request(n1.addr, "POST", "/api/logout", &h, None).await;
    assert_eq!(a.status, 204, "{:?}", a.json);
    let e = by_session
        .try_until(Duration::from_secs(1), |v| v["type"] == "__close")
        .await
        .expect("the session's socket on n3 closed within 1 s");
    assert_eq!(e["code"], 4001, "{e}");
    // Others are unaffected.
    let r = own.commit("o1", json!([note("o", 0.0, 0.0)])).await;
    assert_eq!(r["type"], "applied", "{r}");
}

/// CLUSTER-19: messages larger than NATS takes at once (its default 1 MiB) travel in parts: a
/// client joining through another node gets the whole welcome of a board of about 1.4 MB,
/// and that node's export reads the whole board from the owner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_19_a_large_board_crosses_nodes_in_parts() {
    if skip_without_pg("cluster large messages") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let board = "large";
    let mut ann = Client::join(n1.addr, board, "ann").await;
    let text = "x".repeat(9_000);
    for k in 0..30 {
        let ops: Vec<Value> = (0..5)
            .map(|i| {
                let mut n = note(&format!("n{k}-{i}"), i as f64 * 10.0, k as f64 * 10.0);
                n["object"]["text"] = json!(text);
                n
            })
            .collect();
        let v = ann.commit(&format!("c{k}"), Value::Array(ops)).await;
        assert_eq!(v["type"], "applied", "{v}");
    }
    let bob = Client::join(n2.addr, board, "bob").await;
    assert_eq!(bob.objects().len(), 150);
    assert_eq!(texts(&bob), texts(&ann));
    let token = http::mint(n2.addr, "ann", board, "viewer").await;
    let export = format!("/api/boards/{board}/export.json");
    let file = bearer(n2.addr, &token, "GET", &export, None).await;
    assert_eq!(file.status, 200);
    assert!(file.json.to_string().len() > 1_300_000);
    let info = board_json(n2.addr, board).await;
    assert_eq!(info["cluster"]["owner"], "n1", "{info}");
}

/// CLUSTER-20: client ids and the replay window survive a hand-over (the owner's last snapshot
/// leaves the log rows behind it): on the node that takes the board, a client resuming with
/// `since` gets the missed `applied` frames instead of a whole welcome, and a commit re-sent
/// with its id is acknowledged with its original seq, not applied again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_20_client_ids_and_resumes_survive_a_hand_over() {
    if skip_without_pg("cluster client ids") {
        return;
    }
    let cl = Cluster::new();
    let mut n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let mut a = Client::join(n1.addr, "resume", "alice").await;
    commit_notes(&mut a, "a", 3).await;
    // Carol reads nothing after her welcome (seq 3).
    let mut c = Client::join(n1.addr, "resume", "carol").await;
    commit_notes(&mut a, "b", 3).await;
    n1.signal("-TERM");
    let closed = a
        .try_until(Duration::from_secs(3), |v| v["type"] == "__close")
        .await
        .expect("closed by the hand-over");
    assert_eq!(closed["code"], 1012, "{closed}");
    // The hand-over is done when n1 exits (its board released).
    assert!(n1.child.wait().unwrap().success());
    c.resume(n2.addr, "resume").await;
    assert!(c.welcome.get("objects").is_none(), "{}", c.welcome);
    assert_eq!(c.welcome["seq"], 6);
    for seq in 4..=6 {
        let m = c.until(|m| m["type"] == "applied").await;
        assert_eq!(m["seq"], seq, "{m}");
    }
    assert_eq!(c.objects(), a.objects());
    a.resume(n2.addr, "resume").await;
    let last = json!([note("b-2", 20.0, 0.0)]);
    a.send(json!({"type":"commit","id":"b-2","ops":last})).await;
    let m = a
        .until(|m| m["type"] == "ack" || m["type"] == "applied")
        .await;
    assert_eq!(m["type"], "ack", "{m}");
    assert_eq!(m["seq"], 6, "{m}");
    let info = board_json(n2.addr, "resume").await;
    assert_eq!(info["seq"], 6, "{info}");
    assert_eq!(info["cluster"]["owner"], "n2", "{info}");
}

/// CLUSTER-21: a board whose every client another single node relays moves to that node: once
/// its owner's last own client leaves, the owner (within two lease looks) makes it durable,
/// releases it and closes the relayed clients with 1012; they reconnect to their node, which
/// takes the board with every command.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_21_a_board_moves_to_the_node_of_its_clients() {
    if skip_without_pg("cluster board moves") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let mut a = Client::join(n1.addr, "moving", "alice").await;
    let mut b = Client::join(n2.addr, "moving", "bob").await;
    commit_notes(&mut a, "a", 2).await;
    commit_notes(&mut b, "b", 2).await;
    drop(a);
    let closed = b
        .try_until(Duration::from_secs(15), |v| v["type"] == "__close")
        .await
        .expect("the board did not move");
    assert_eq!(closed["code"], 1012, "{closed}");
    b.resume(n2.addr, "moving").await;
    b.catch_up(4).await;
    assert_eq!(b.objects().len(), 4);
    let info = board_json(n2.addr, "moving").await;
    assert_eq!(info["cluster"]["owner"], "n2", "{info}");
    commit_notes(&mut b, "c", 1).await;
}

/// The commit of note `f{n}` (the same ops every time it is sent).
fn numbered_commit(n: u64) -> Value {
    let id = format!("f{n}");
    let (x, y) = ((n % 40) as f64 * 210.0, (n / 40) as f64 * 210.0);
    json!({"type":"commit","id":id,"ops":[note(&id, x, y)]})
}

/// CLUSTER-13 (unknown outcomes): the owner's PostgreSQL connections are terminated while
/// appends are in flight (held on a lock of the test's own). In cluster mode nobody is answered `rejected` (an append cut off
/// at COMMIT may have landed): the board closes with 1013 (or 1012), the client reconnects with
/// `since` and sends again what was not answered, and each command ends up on the board exactly
/// once, answered `applied` or `ack`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_13_an_unknown_outcome_is_never_rejected() {
    if skip_without_pg("cluster unknown outcomes") {
        return;
    }
    let cl = Cluster::new();
    let n1 = cl.node("n1", &[]);
    let app = format!("board-store:{}", cl.schema);
    let mut c = Client::join(n1.addr, "unknown", "ann").await;
    let mut answered: std::collections::BTreeMap<u64, u64> = Default::default();
    let mut outstanding: std::collections::BTreeSet<u64> = Default::default();
    let (mut next, mut bursts, mut since_burst, mut closes) = (0u64, 0, 0, 0);
    let deadline = Instant::now() + Duration::from_secs(90);
    while bursts < 3 || since_burst < 30 || !outstanding.is_empty() {
        assert!(Instant::now() < deadline, "did not finish in 90 s");
        while outstanding.len() < 8 && (bursts < 3 || since_burst < 30) {
            c.send(numbered_commit(next)).await;
            outstanding.insert(next);
            next += 1;
        }
        let Some(v) = c.try_next(Duration::from_secs(5)).await else {
            continue;
        };
        match v["type"].as_str() {
            Some("applied") | Some("ack") => {
                let id = v["command"]["client_id"].as_str().or(v["id"].as_str());
                let Some(n) = id.and_then(|i| i.strip_prefix('f')?.parse::<u64>().ok()) else {
                    continue;
                };
                assert!(outstanding.remove(&n), "answered twice: {v}");
                answered.insert(n, v["seq"].as_u64().unwrap());
                since_burst += 1;
            }
            Some("rejected") => panic!("rejected in cluster mode: {v}"),
            Some("__close") => {
                assert!(v["code"] == 1013 || v["code"] == 1012, "{v}");
                closes += 1;
                tokio::time::sleep(Duration::from_millis(300)).await;
                c.resume(n1.addr, "unknown").await;
                for n in outstanding.clone() {
                    c.send(numbered_commit(n)).await;
                }
            }
            _ => {}
        }
        if bursts < 3 && since_burst >= 30 {
            // Appends wait on a lock of the test's own; their connections are then cut.
            let blocker = stall_log_writer(&cl.schema).await;
            for _ in 0..4 {
                c.send(numbered_commit(next)).await;
                outstanding.insert(next);
                next += 1;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
            terminate_backends(&app).await;
            blocker.batch_execute("ROLLBACK").await.unwrap();
            bursts += 1;
            since_burst = 0;
        }
    }
    assert!(closes > 0, "no append was cut off: the test proved nothing");
    let fresh = Client::join(n1.addr, "unknown", "check").await;
    let have: Vec<String> = fresh.objects().iter().map(|o| o.id.to_string()).collect();
    assert_eq!(
        have.len(),
        answered.len(),
        "a command is missing or doubled"
    );
    for n in answered.keys() {
        assert!(have.contains(&format!("f{n}")), "f{n} answered but missing");
    }
}

/// CLUSTER-16 (a newer process under the same node id): the old process stops writing at its
/// next renewal, not at its lease's end: its client is closed with 1012 within a few seconds, and
/// on the new process the board is taken with every acknowledged command.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_16_a_newer_process_under_the_same_id_fences_the_old_one() {
    if skip_without_pg("cluster node id reuse") {
        return;
    }
    let cl = Cluster::new();
    let old = cl.node("n1", &[]);
    let mut a = Client::join(old.addr, "reused", "alice").await;
    let acked = commit_notes(&mut a, "a", 3).await;
    let new = cl.node("n1", &[]);
    let closed = a
        .try_until(Duration::from_secs(5), |v| v["type"] == "__close")
        .await
        .expect("the old process kept its board");
    assert_eq!(closed["code"], 1012, "{closed}");
    let c = Client::join(new.addr, "reused", "carol").await;
    let have: Vec<String> = c.objects().iter().map(|o| o.id.to_string()).collect();
    for id in &acked {
        assert!(have.contains(id), "{id}: {have:?}");
    }
    let info = board_json(new.addr, "reused").await;
    assert_eq!(info["cluster"]["owner"], "n1", "{info}");
    assert_eq!(info["cluster"]["generation"], 2, "{info}");
}
