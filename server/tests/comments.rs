//! COMMENT-n: comment threads and the commenter role, end to end: the real server on port 0,
//! real WebSockets and HTTP, the memory store, SQLite and PostgreSQL.
#![allow(clippy::unwrap_used)]

mod common;

use common::http::{admin, request};
use common::pg::{drop_schema, pg_config, pg_schema, skip_without_pg};
use common::*;
use futures_util::SinkExt;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;

const SECOND: Duration = Duration::from_secs(1);

/// Sends a comment message with request id `id` and returns its `ack` or `rejected`.
async fn ask(c: &mut Client, id: &str, mut m: Value) -> Value {
    m["id"] = json!(id);
    c.send(m).await;
    c.until(|v| (v["type"] == "ack" || v["type"] == "rejected") && v["id"] == id)
        .await
}

fn on_object(object: &str, body: &str) -> Value {
    json!({"type":"comment_thread","anchor":{"type":"object","object":object,"fx":0.5,"fy":0.25},
        "body": body})
}

fn at_point(body: &str) -> Value {
    json!({"type":"comment_thread","anchor":{"type":"point","x":10,"y":20},"body": body})
}

/// A new thread's id from its `ack`.
async fn new_thread(c: &mut Client, id: &str, m: Value) -> String {
    let a = ask(c, id, m).await;
    assert_eq!(a["type"], "ack", "{a}");
    a["thread"].as_str().unwrap().to_owned()
}

/// The next `comments_changed` holding thread `t`, within a second; that thread.
async fn changed(c: &mut Client, t: &str) -> Value {
    let has = |v: &Value| {
        v["type"] == "comments_changed"
            && v["threads"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["id"] == t)
    };
    let v = c
        .try_until(SECOND, has)
        .await
        .expect("comments_changed within 1 s");
    v["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == t)
        .unwrap()
        .clone()
}

/// Sends `m`, a command, and returns thread `t` as the `comments_changed` it causes shows it;
/// the command's `applied` came first (COMMENT-5).
async fn with_change(c: &mut Client, m: Value, t: &str) -> Value {
    let seq = c.seq;
    c.send(m).await;
    let th = changed(c, t).await;
    assert_eq!(
        c.seq,
        seq + 1,
        "the applied comes before the comments_changed"
    );
    th
}

/// An HTTP request with a board token as the bearer.
async fn http(
    addr: SocketAddr,
    tok: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> common::http::Answer {
    let bearer = format!("Bearer {tok}");
    let body = body.map(|b| b.to_string());
    request(
        addr,
        method,
        path,
        &[("Authorization", &bearer)],
        body.as_deref(),
    )
    .await
}

/// Joins with `hello.comments_since`.
async fn join_comments_since(addr: SocketAddr, board: &str, user: &str, cseq: u64) -> Client {
    let token = http::mint(addr, user, board, "editor").await;
    let ws = raw(addr, board).await;
    let hello = json!({"type":"hello","user":{"id":user,"name":user},"token":token,
        "comments_since": cseq});
    Client::hello_with(ws, user, &hello).await
}

/// Every message up to the answer of a `ping` (the connection answers it after what is queued).
async fn until_pong(c: &mut Client) -> Vec<Value> {
    c.send(json!({"type":"ping","t":"fence"})).await;
    let mut seen = vec![];
    loop {
        let v = c.next().await;
        if v["type"] == "pong" {
            return seen;
        }
        seen.push(v);
    }
}

/// Editor `ed` on board `b1` with note `n1` (200 x 100 at 100, 50) and a thread pinned on it:
/// the editor and the thread's id.
async fn pinned_on_a_note(addr: SocketAddr) -> (Client, String) {
    let mut ed = Client::join(addr, "b1", "ed").await;
    let r = ed
        .commit("c1", json!([{"op":"create","object":{"id":"n1","kind":"note","x":100,"y":50,"w":200,"h":100}}]))
        .await;
    assert_eq!(r["type"], "applied");
    let t = new_thread(&mut ed, "k1", on_object("n1", "pin")).await;
    changed(&mut ed, &t).await;
    (ed, t)
}

/// COMMENT-2: a commenter creates, replies to, reacts to and resolves threads; `commit`, `undo`
/// and `ai` are refused `forbidden` and the connection stays.
#[tokio::test]
async fn comment_2_a_commenter_comments_but_does_not_edit() {
    let s = start(config()).await;
    let mut ed = Client::join(s.addr, "b1", "ed").await;
    ed.commit("c1", json!([note("n1", 0.0, 0.0)])).await;
    let mut co = Client::join_as(s.addr, "b1", "cora", "commenter").await;
    assert_eq!(co.welcome["role"], "commenter");
    let t = new_thread(&mut co, "k1", on_object("n1", "is this right?")).await;
    let th = changed(&mut ed, &t).await;
    assert_eq!(th["comments"][0]["author"], "cora");
    assert_eq!(th["anchor"]["object"], "n1");
    let a = ask(
        &mut co,
        "k2",
        json!({"type":"comment_reply","thread":t,"body":"yes"}),
    )
    .await;
    assert_eq!(a["type"], "ack", "{a}");
    let c = a["comment"].as_str().unwrap().to_owned();
    let a = ask(
        &mut co,
        "k3",
        json!({"type":"comment_react","comment":c,"emoji":"👍","on":true}),
    )
    .await;
    assert_eq!(a["type"], "ack", "{a}");
    let a = ask(
        &mut co,
        "k4",
        json!({"type":"comment_resolve","thread":t,"resolved":true}),
    )
    .await;
    assert_eq!(a["type"], "ack", "{a}");
    let th = changed(&mut co, &t).await;
    assert_eq!(th["resolved"]["by"], "cora");
    assert_eq!(th["comments"][1]["reactions"]["👍"], json!(["cora"]));
    let r = co.commit("x1", json!([note("n2", 0.0, 0.0)])).await;
    assert_eq!(
        (r["type"].as_str(), r["error"]["code"].as_str()),
        (Some("rejected"), Some("forbidden"))
    );
    co.send(json!({"type":"undo"})).await;
    let r = co.until(|v| v["type"] == "error").await;
    assert_eq!(r["code"], "forbidden");
    co.send(json!({"type":"ai","id":"ai1","text":"create a note"}))
        .await;
    let r = co.until(|v| v["type"] == "error").await;
    assert_eq!(r["code"], "forbidden");
    // Still connected.
    until_pong(&mut co).await;
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

/// COMMENT-2: a viewer cannot comment, over the socket (`rejected forbidden`) or HTTP (403),
/// and reads threads.
#[tokio::test]
async fn comment_2_a_viewer_cannot_comment() {
    let s = start(config()).await;
    let _ed = Client::join(s.addr, "b1", "ed").await;
    let mut v = Client::join_as(s.addr, "b1", "vic", "viewer").await;
    let a = ask(&mut v, "k1", at_point("hi")).await;
    assert_eq!(
        (a["type"].as_str(), a["error"]["code"].as_str()),
        (Some("rejected"), Some("forbidden"))
    );
    let tok = http::mint(s.addr, "vic", "b1", "viewer").await;
    let body = json!({"anchor":{"type":"point","x":0,"y":0},"body":"hi"});
    let r = http(
        s.addr,
        &tok,
        "POST",
        "/api/boards/b1/threads",
        Some(body.clone()),
    )
    .await;
    assert_eq!(r.status, 403, "{:?}", r.json);
    let ctok = http::mint(s.addr, "cora", "b1", "commenter").await;
    let r = http(s.addr, &ctok, "POST", "/api/boards/b1/threads", Some(body)).await;
    assert_eq!(r.status, 201, "{:?}", r.json);
    let t = r.json["thread"]["id"].as_str().unwrap().to_owned();
    // The socket hears of the HTTP change like of its own.
    changed(&mut v, &t).await;
    let r = http(
        s.addr,
        &tok,
        "GET",
        "/api/boards/b1/threads?status=all",
        None,
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json["threads"][0]["id"], t.as_str());
    let r = http(
        s.addr,
        &tok,
        "POST",
        &format!("/api/boards/b1/threads/{t}/resolve"),
        None,
    )
    .await;
    assert_eq!(r.status, 403);
    let r = http(
        s.addr,
        &ctok,
        "POST",
        &format!("/api/boards/b1/threads/{t}/resolve"),
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.json);
    let open = http(s.addr, &tok, "GET", "/api/boards/b1/threads", None).await;
    assert_eq!(open.json["threads"], json!([]));
    let done = http(
        s.addr,
        &tok,
        "GET",
        "/api/boards/b1/threads?status=resolved",
        None,
    )
    .await;
    assert_eq!(done.json["threads"][0]["id"], t.as_str());
    s.shutdown().await.unwrap();
}

/// COMMENT-4: only its author edits a comment; its author or an owner deletes it (softly); a
/// body over 5,000 characters is `too_large`.
#[tokio::test]
async fn comment_4_author_only_edit_and_owner_delete() {
    let s = start(config()).await;
    let _ed = Client::join(s.addr, "b1", "ed").await;
    let mut ann = Client::join_as(s.addr, "b1", "ann", "commenter").await;
    let mut bob = Client::join_as(s.addr, "b1", "bob", "editor").await;
    let a = ask(&mut ann, "k1", at_point("first")).await;
    let (t, c) = (
        a["thread"].as_str().unwrap().to_owned(),
        a["comment"].as_str().unwrap().to_owned(),
    );
    let long = "x".repeat(5001);
    let r = ask(
        &mut ann,
        "k0",
        json!({"type":"comment_edit","comment":c,"body":long}),
    )
    .await;
    assert_eq!(r["error"]["code"], "too_large");
    let r = ask(
        &mut bob,
        "k2",
        json!({"type":"comment_edit","comment":c,"body":"mine"}),
    )
    .await;
    assert_eq!(r["error"]["code"], "forbidden");
    let r = ask(&mut bob, "k3", json!({"type":"comment_delete","comment":c})).await;
    assert_eq!(r["error"]["code"], "forbidden");
    let r = ask(
        &mut ann,
        "k4",
        json!({"type":"comment_edit","comment":c,"body":"first!"}),
    )
    .await;
    assert_eq!(r["type"], "ack");
    changed(&mut ann, &t).await;
    let th = changed(&mut bob, &t).await;
    assert_eq!(th["comments"][0]["body"], "first!");
    assert!(th["comments"][0]["edited_at_ms"].as_i64().is_some());
    // The owner (the admin token) deletes over HTTP.
    let r = admin(
        s.addr,
        "DELETE",
        &format!("/api/boards/b1/comments/{c}"),
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.json);
    let th = changed(&mut ann, &t).await;
    assert_eq!(th["comments"][0]["deleted"], true);
    assert_eq!(th["comments"][0]["body"], "");
    s.shutdown().await.unwrap();
}

/// COMMENT-5: comments are not commands: an undo leaves them alone; a thread whose object is
/// deleted becomes a point where the pin was, and the undo that brings the object back pins it
/// again.
#[tokio::test]
async fn comment_5_a_thread_survives_its_object_and_reattaches_on_undo() {
    let s = start(config()).await;
    let (mut ed, t) = pinned_on_a_note(s.addr).await;
    let seq_before = ed.seq;
    let del = json!({"type":"commit","id":"c2","ops":[{"op":"delete","id":"n1"}]});
    let th = with_change(&mut ed, del, &t).await;
    assert_eq!(th["anchor"], json!({"type":"point","x":200.0,"y":75.0}));
    let th = with_change(&mut ed, json!({"type":"undo"}), &t).await;
    assert_eq!(
        th["anchor"],
        json!({"type":"object","object":"n1","fx":0.5,"fy":0.25})
    );
    assert_eq!(ed.seq, seq_before + 2);
    // Undo again: the note's creation goes; the thread stays (a point again), never undone.
    let th = with_change(&mut ed, json!({"type":"undo"}), &t).await;
    assert_eq!(th["anchor"]["type"], "point");
    assert_eq!(th["comments"][0]["body"], "pin");
    let r = admin(s.addr, "GET", "/api/boards/b1/threads", None).await;
    assert_eq!(r.json["threads"].as_array().unwrap().len(), 1);
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

/// COMMENT-3: a mention names someone with a role on the board; anyone else is `invalid`. The
/// mentioned person is notified, and marks it read.
#[tokio::test]
async fn comment_3_a_mention_of_a_non_member_is_invalid() {
    let s = start(config()).await;
    let _ed = Client::join(s.addr, "b1", "ed").await;
    let mut ann = Client::join_as(s.addr, "b1", "ann", "commenter").await;
    let _bob = Client::join_as(s.addr, "b1", "bob", "viewer").await;
    let r = ask(&mut ann, "k1", at_point("hey @stranger")).await;
    assert_eq!(
        (r["type"].as_str(), r["error"]["code"].as_str()),
        (Some("rejected"), Some("invalid"))
    );
    let t = new_thread(&mut ann, "k2", at_point("hey @bob")).await;
    let bt = http::mint(s.addr, "bob", "b1", "viewer").await;
    let n = http(s.addr, &bt, "GET", "/api/me/notifications", None).await;
    assert_eq!(n.status, 200, "{:?}", n.json);
    let list = n.json["notifications"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(
        (list[0]["thread"].as_str(), list[0]["reason"].as_str()),
        (Some(t.as_str()), Some("mention"))
    );
    assert!(list[0]["read_at"].is_null());
    let r = http(
        s.addr,
        &bt,
        "POST",
        "/api/me/notifications/read",
        Some(json!({"threads":[t]})),
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.json);
    let n = http(s.addr, &bt, "GET", "/api/me/notifications", None).await;
    assert!(n.json["notifications"][0]["read_at"].as_i64().is_some());
    s.shutdown().await.unwrap();
}

/// COMMENT-6: a second client sees a new thread within a second; a reconnect with
/// `comments_since` replays exactly the threads changed after it.
#[tokio::test]
async fn comment_6_live_threads_and_comments_since_replay() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    let t1 = new_thread(&mut a, "k1", at_point("one")).await;
    changed(&mut b, &t1).await;
    let t2 = new_thread(&mut a, "k2", at_point("two")).await;
    let seen = b
        .try_until(SECOND, |v| v["type"] == "comments_changed")
        .await
        .unwrap();
    assert_eq!(seen["threads"][0]["id"], t2.as_str());
    let cseq = seen["cseq"].as_u64().unwrap();
    let t3 = new_thread(&mut a, "k3", at_point("three")).await;
    let r = ask(
        &mut a,
        "k4",
        json!({"type":"comment_reply","thread":t1,"body":"more"}),
    )
    .await;
    assert_eq!(r["type"], "ack");
    let mut c = join_comments_since(s.addr, "b1", "bob", cseq).await;
    assert_eq!(c.welcome["cseq"].as_u64(), Some(cseq + 2));
    let open: Vec<&str> = c.welcome["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(open.len(), 3);
    let replay = until_pong(&mut c).await;
    let ids: Vec<&str> = replay
        .iter()
        .filter(|v| v["type"] == "comments_changed")
        .flat_map(|v| {
            v["threads"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_str().unwrap())
        })
        .collect();
    assert_eq!(ids, [t3.as_str(), t1.as_str()]);
    let mut d = join_comments_since(s.addr, "b1", "cy", cseq + 2).await;
    let replay = until_pong(&mut d).await;
    assert!(
        !replay.iter().any(|v| v["type"] == "comments_changed"),
        "{replay:?}"
    );
    s.shutdown().await.unwrap();
}

/// COMMENT-9: a board file holds no comments unless asked (`?comments=1`).
#[tokio::test]
async fn comment_9_exports_hold_no_comments_unless_asked() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    a.commit("c1", json!([note("n1", 0.0, 0.0)])).await;
    let t = new_thread(&mut a, "k1", on_object("n1", "secret remark")).await;
    let plain = admin(s.addr, "GET", "/api/boards/b1/export.json", None).await;
    assert_eq!(plain.status, 200);
    assert!(plain.json.get("comments").is_none());
    assert!(!plain.json.to_string().contains("secret remark"));
    let bearer = format!("Bearer {}", admin_token());
    let auth = [("Authorization", bearer.as_str())];
    let (status, _, svg) =
        common::http::get_bytes(s.addr, "/api/boards/b1/export.svg", &auth, STEP).await;
    assert_eq!(status, 200);
    assert!(!String::from_utf8_lossy(&svg).contains("secret remark"));
    let with = admin(s.addr, "GET", "/api/boards/b1/export.json?comments=1", None).await;
    assert_eq!(with.json["comments"][0]["id"], t.as_str());
    s.shutdown().await.unwrap();
}

/// A new board made by the admin (the server's owner owns it).
async fn new_board(addr: SocketAddr) -> String {
    let b = admin(addr, "POST", "/api/boards", Some(r#"{"title":"Shared"}"#)).await;
    b.json["board"].as_str().unwrap().to_owned()
}

/// A guest who opened a share link of `role` on board `b` (a member with a stored role): their
/// id and board token.
async fn guest(addr: SocketAddr, b: &str, role: &str) -> (String, String) {
    let body = json!({ "role": role }).to_string();
    let l = admin(addr, "POST", &format!("/api/boards/{b}/links"), Some(&body)).await;
    assert_eq!(l.status, 201, "{:?}", l.json);
    let url = l.json["url"].as_str().unwrap();
    let link = url.strip_prefix("/s/").unwrap();
    let origin = format!("http://{addr}");
    let g = request(
        addr,
        "POST",
        &format!("/api/links/{link}/session"),
        &[("Origin", &origin)],
        Some(r#"{"name":"Gus"}"#),
    )
    .await;
    assert_eq!(g.status, 200, "{:?}", g.json);
    (
        g.json["user"]["id"].as_str().unwrap().to_owned(),
        g.json["token"].as_str().unwrap().to_owned(),
    )
}

/// COMMENT-2 (as AUTH-12): a member lowered from editor to commenter on an open socket is a
/// commenter within a second: commits refused, comments taken.
#[tokio::test]
async fn comment_2_a_live_role_change_to_commenter_applies_at_once() {
    let s = start(config()).await;
    let b = new_board(s.addr).await;
    let (gid, gtok) = guest(s.addr, &b, "editor").await;
    let mut c = Client::join_with(s.addr, &b, &gid, Some(&gtok)).await;
    assert_eq!(
        c.commit("g1", json!([note("n", 0.0, 0.0)])).await["type"],
        "applied"
    );
    let r = admin(
        s.addr,
        "PATCH",
        &format!("/api/boards/{b}/members/{gid}"),
        Some(r#"{"role":"commenter"}"#),
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.json);
    let r = c
        .try_until(SECOND, |v| v["type"] == "role_changed")
        .await
        .expect("within 1 s");
    assert_eq!(r["role"], "commenter");
    let r = c.commit("g2", json!([note("m", 0.0, 0.0)])).await;
    assert_eq!(r["error"]["code"], "forbidden");
    let a = ask(&mut c, "k1", on_object("n", "looks good")).await;
    assert_eq!(a["type"], "ack", "{a}");
    s.shutdown().await.unwrap();
}

/// Threads, the comment seq and notifications survive a restart on `cfg`'s store.
async fn survive_restart(cfg: server::Config) {
    let s = start(cfg.clone()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let _bob = Client::join(s.addr, "b1", "bob").await;
    let t = new_thread(&mut a, "k1", at_point("kept @bob")).await;
    let r = ask(
        &mut a,
        "k2",
        json!({"type":"comment_resolve","thread":t,"resolved":true}),
    )
    .await;
    let cseq = r["cseq"].as_u64().unwrap();
    drop(a);
    s.shutdown().await.unwrap();
    let s = start(cfg).await;
    let a = Client::join(s.addr, "b1", "ann").await;
    assert_eq!(a.welcome["cseq"].as_u64(), Some(cseq));
    assert_eq!(
        a.welcome["threads"],
        json!([]),
        "resolved threads are not in the welcome"
    );
    let r = admin(
        s.addr,
        "GET",
        "/api/boards/b1/threads?status=resolved",
        None,
    )
    .await;
    assert_eq!(r.json["threads"][0]["id"], t.as_str());
    assert_eq!(r.json["threads"][0]["comments"][0]["body"], "kept @bob");
    let bt = http::mint(s.addr, "bob", "b1", "viewer").await;
    let n = http(s.addr, &bt, "GET", "/api/me/notifications", None).await;
    assert_eq!(n.json["notifications"][0]["thread"], t.as_str());
    s.shutdown().await.unwrap();
}

/// COMMENT-1: threads are stored in SQLite and survive a restart.
#[tokio::test]
async fn comment_1_threads_survive_a_restart_on_sqlite() {
    let mut cfg = config();
    cfg.memory_store = false;
    survive_restart(cfg).await;
}

/// COMMENT-1: threads are stored in PostgreSQL and survive a restart.
#[tokio::test]
async fn comment_1_threads_survive_a_restart_on_postgresql() {
    if skip_without_pg("comments") {
        return;
    }
    let schema = pg_schema();
    survive_restart(pg_config(&schema)).await;
    drop_schema(&schema).await;
}

/// COMMENT-3: a mention the board must look up in the store (PostgreSQL: a round trip) holds the
/// requests behind it, so they are applied (numbered) in the order they were asked.
#[tokio::test]
async fn comment_3_a_mention_looked_up_in_the_store_keeps_requests_in_order() {
    if skip_without_pg("comments") {
        return;
    }
    let schema = pg_schema();
    let s = start(pg_config(&schema)).await;
    let b = new_board(s.addr).await;
    // A guest with a stored role who never joined: a mention of them is looked up.
    let (gid, _) = guest(s.addr, &b, "viewer").await;
    let (aid, tok) = guest(s.addr, &b, "commenter").await;
    let mut ann = Client::join_with(s.addr, &b, &aid, Some(&tok)).await;
    // One request with such a mention, then twenty without.
    for i in 0..=20 {
        let body = if i == 0 {
            format!("ask @{gid}")
        } else {
            "no mention".into()
        };
        let mut m = at_point(&body);
        m["id"] = json!(format!("k{i}"));
        let frame = tokio_tungstenite::tungstenite::Message::text(m.to_string());
        ann.ws.feed(frame).await.unwrap();
    }
    // One write: the board has all of them before the store answers the lookup.
    ann.ws.flush().await.unwrap();
    let mut answers = vec![];
    while answers.len() < 21 {
        let v = ann.next().await;
        if v["type"] == "ack" || v["type"] == "rejected" {
            assert_eq!(v["type"], "ack", "{v}");
            answers.push((
                v["cseq"].as_u64().unwrap(),
                v["id"].as_str().unwrap().to_owned(),
            ));
        }
    }
    answers.sort();
    let ids: Vec<&str> = answers.iter().map(|a| a.1.as_str()).collect();
    let asked: Vec<String> = (0..=20).map(|i| format!("k{i}")).collect();
    assert_eq!(ids, asked, "applied (numbered) in the order asked");
    s.shutdown().await.unwrap();
    drop_schema(&schema).await;
}

/// COMMENT-7 (cluster mode): a comment from a socket relayed by another node, and one over HTTP
/// on a node that does not own the board, both go through the owner and reach everyone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comment_7_comments_on_another_node_go_through_the_owner() {
    if skip_without_pg("cluster comments") {
        return;
    }
    let cl = common::cluster::Cluster::new();
    let n1 = cl.node("n1", &[]);
    let n2 = cl.node("n2", &[]);
    let mut a = Client::join(n1.addr, "cm-board", "alice").await;
    let mut b = Client::join(n2.addr, "cm-board", "bob").await;
    let t = new_thread(&mut b, "k1", at_point("relayed")).await;
    changed(&mut a, &t).await;
    let path = format!("/api/boards/cm-board/threads/{t}/comments");
    let r = admin(n2.addr, "POST", &path, Some(r#"{"body":"over http"}"#)).await;
    assert_eq!(r.status, 201, "{:?}", r.json);
    assert_eq!(r.json["thread"]["comments"][1]["body"], "over http");
    let th = changed(&mut a, &t).await;
    assert_eq!(th["comments"].as_array().unwrap().len(), 2);
    let l = admin(n2.addr, "GET", "/api/boards/cm-board/threads", None).await;
    assert_eq!(l.json["threads"][0]["comments"][1]["body"], "over http");
    cl.assert_no_violations(&["n1", "n2"]);
}

/// COMMENT-5: a restore that brings a deleted object back pins its threads to it again.
#[tokio::test]
async fn comment_5_a_restore_reattaches_threads() {
    let s = start(config()).await;
    let mut ed = Client::join(s.addr, "b1", "ed").await;
    ed.commit("c1", json!([note("n1", 0.0, 0.0)])).await;
    let v = admin(
        s.addr,
        "POST",
        "/api/boards/b1/versions",
        Some(r#"{"name":"with n1"}"#),
    )
    .await;
    assert_eq!(v.status, 201, "{:?}", v.json);
    let version = v.json["id"].as_u64().unwrap();
    let t = new_thread(&mut ed, "k1", on_object("n1", "here")).await;
    changed(&mut ed, &t).await;
    let del = json!({"type":"commit","id":"c2","ops":[{"op":"delete","id":"n1"}]});
    let th = with_change(&mut ed, del, &t).await;
    assert_eq!(th["anchor"]["type"], "point");
    let body = json!({ "version": version }).to_string();
    let r = admin(s.addr, "POST", "/api/boards/b1/restore", Some(&body)).await;
    assert_eq!(r.status, 200, "{:?}", r.json);
    let th = changed(&mut ed, &t).await;
    assert_eq!(th["anchor"]["object"], "n1");
    assert_eq!(
        th["comments"][0]["body"], "here",
        "a restore leaves comments alone"
    );
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

/// A second connection to the SQLite file `db` whose trigger makes every update of a stored
/// thread fail, until `DROP TRIGGER no_thread_updates`.
fn refuse_thread_updates(db: &std::path::Path) -> rusqlite::Connection {
    let side = rusqlite::Connection::open(db).unwrap();
    side.busy_timeout(Duration::from_secs(5)).unwrap();
    side.execute_batch(
        "CREATE TRIGGER no_thread_updates BEFORE UPDATE ON comment_threads \
         BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;",
    )
    .unwrap();
    side
}

/// COMMENT-5: the store fails the write of a thread's move to a point (its object deleted): a
/// request queued behind it is refused `store_unavailable`, but the move itself is not lost: the
/// board writes it again once the store works, and the stored thread is a point after a restart.
#[tokio::test]
async fn comment_5_a_failed_move_to_a_point_is_written_again() {
    let mut cfg = config();
    cfg.memory_store = false;
    let db = cfg.data_dir.join(server::store::sqlite::FILE_NAME);
    let s = start(cfg.clone()).await;
    let (mut ed, t) = pinned_on_a_note(s.addr).await;
    let side = refuse_thread_updates(&db);
    let r = ed.commit("c2", json!([{"op":"delete","id":"n1"}])).await;
    assert_eq!(
        r["type"], "applied",
        "the command does not wait for comments"
    );
    let reply = json!({"type":"comment_reply","thread":t,"body":"queued behind the move"});
    let r = ask(&mut ed, "k2", reply).await;
    assert_eq!(r["error"]["code"], "store_unavailable", "{r}");
    side.execute_batch("DROP TRIGGER no_thread_updates")
        .unwrap();
    let has = |v: &Value| v["type"] == "comments_changed" && v["threads"][0]["id"] == t.as_str();
    let v = ed
        .try_until(Duration::from_secs(10), has)
        .await
        .expect("the move is written once the store works");
    assert_eq!(
        v["threads"][0]["anchor"],
        json!({"type":"point","x":200.0,"y":75.0})
    );
    assert_eq!(v["threads"][0]["comments"].as_array().unwrap().len(), 1);
    drop(ed);
    s.shutdown().await.unwrap();
    let s = start(cfg).await;
    let r = admin(s.addr, "GET", "/api/boards/b1/threads", None).await;
    assert_eq!(
        r.json["threads"][0]["anchor"]["type"], "point",
        "{:?}",
        r.json
    );
    s.shutdown().await.unwrap();
}

/// COMMENT-5 (crash): the real binary on SQLite is killed (SIGKILL) after a deletion is committed
/// but before its thread's move to a point is stored (the store refuses thread updates until
/// then): after a restart the board moves the thread to where its pin was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comment_5_a_move_lost_in_a_crash_is_made_at_the_next_load() {
    let dir = std::env::temp_dir().join(format!("board-comments-kill-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let args = vec!["--data-dir".to_owned(), dir.display().to_string()];
    let log = || std::fs::File::create(dir.join("server.log")).unwrap();
    let (mut child, addr) = common::process::spawn(&args, log(), "warn");
    let (mut ed, t) = pinned_on_a_note(addr).await;
    let side = refuse_thread_updates(&dir.join(server::store::sqlite::FILE_NAME));
    let r = ed.commit("c2", json!([{"op":"delete","id":"n1"}])).await;
    assert_eq!(r["type"], "applied");
    // The move is refused at least once (a reply behind it is refused with it).
    let reply = json!({"type":"comment_reply","thread":t,"body":"behind the move"});
    assert_eq!(
        ask(&mut ed, "k2", reply).await["error"]["code"],
        "store_unavailable"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    side.execute_batch("DROP TRIGGER no_thread_updates")
        .unwrap();
    let stored: String = side
        .query_row("SELECT data FROM comment_threads", [], |r| r.get(0))
        .unwrap();
    assert!(
        stored.contains(r#""object":"n1""#),
        "still pinned: {stored}"
    );
    drop(side);
    let (mut child, addr) = common::process::spawn(&args, log(), "warn");
    let _ed = Client::join(addr, "b1", "ed").await;
    let mut point = json!(null);
    for _ in 0..50 {
        let r = admin(addr, "GET", "/api/boards/b1/threads", None).await;
        point = r.json["threads"][0]["anchor"].clone();
        if point["type"] == "point" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(point, json!({"type":"point","x":200.0,"y":75.0}));
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(dir);
}
