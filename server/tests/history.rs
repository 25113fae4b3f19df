//! Version history over the real server (HIST-n in docs/SPEC.md): automatic and named versions,
//! restore as one command that one undo reverts, roles.
#![allow(clippy::unwrap_used)]

mod common;

use common::http::{admin, mint, request};
use common::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

async fn versions(addr: std::net::SocketAddr, board: &str) -> Vec<Value> {
    let a = admin(addr, "GET", &format!("/api/boards/{board}/versions"), None).await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    a.json["versions"].as_array().unwrap().clone()
}

async fn wait_versions(addr: std::net::SocketAddr, board: &str, n: usize) -> Vec<Value> {
    let t = Instant::now();
    loop {
        let v = versions(addr, board).await;
        if v.len() >= n {
            return v;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{} versions, want {n}",
            v.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// HIST-2: once editing pauses (`--history-idle-secs`), the board takes an automatic version
/// that says what changed since the one before (objects created, changed, deleted), by whom, and
/// how many objects the board holds; HIST-3: the last person leaving takes one too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hist_2_3_automatic_versions_after_a_pause_and_when_the_last_person_leaves() {
    let mut cfg = config();
    cfg.history_idle_secs = 1;
    let s = start(cfg).await;
    let mut ann = Client::join(s.addr, "auto", "ann").await;
    for i in 0..3 {
        let v = ann
            .commit(
                &format!("c{i}"),
                json!([note(&format!("n{i}"), i as f64 * 300.0, 0.0)]),
            )
            .await;
        assert_eq!(v["type"], "applied");
    }
    let v = ann
        .commit(
            "u",
            json!([{"op":"update","id":"n0","set":{"text":"edited"}}]),
        )
        .await;
    assert_eq!(v["type"], "applied");
    let list = wait_versions(s.addr, "auto", 1).await;
    let first = &list[0];
    assert_eq!(first["kind"], "automatic");
    assert_eq!(first["objects"], 3);
    assert_eq!(
        first["summary"],
        json!({"created": 3, "changed": 0, "deleted": 0})
    );
    assert_eq!(first["authors"][0]["id"], "ann");
    assert_eq!(first["seq"], 4);
    // Nothing changed since: no new version however long the board stays.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(versions(s.addr, "auto").await.len(), 1);

    // The pause is long now: the next version comes from Ann leaving.
    let mut cfg = config();
    cfg.history_idle_secs = 3600;
    let s2 = start(cfg).await;
    let mut bob = Client::join(s2.addr, "leave", "bob").await;
    let v = bob.commit("b1", json!([note("x", 0.0, 0.0)])).await;
    assert_eq!(v["type"], "applied");
    let v = bob.commit("b2", json!([{"op":"delete","id":"x"}])).await;
    assert_eq!(v["type"], "applied");
    let v = bob.commit("b3", json!([note("y", 0.0, 0.0)])).await;
    assert_eq!(v["type"], "applied");
    assert!(versions(s2.addr, "leave").await.is_empty());
    drop(bob);
    let list = wait_versions(s2.addr, "leave", 1).await;
    // Created and deleted since the last version: counted as neither.
    assert_eq!(
        list[0]["summary"],
        json!({"created": 1, "changed": 0, "deleted": 0})
    );
    drop(ann);
    s.shutdown().await.unwrap();
    s2.shutdown().await.unwrap();
}

/// HIST-5: a restore makes the board what it was at the version (objects created since deleted,
/// changed ones reverted, deleted ones back with their ids) as ONE command with origin
/// `restore`, broadcast to everyone; the restorer's one undo reverts it, and an edit someone
/// made after the restore survives that undo (UNDO-2). HIST-6: viewers list and view versions,
/// only editors save and restore.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hist_5_restore_is_one_command_that_one_undo_reverts() {
    let s = start(config()).await;
    let board = "restore";
    let mut ann = Client::join(s.addr, board, "ann").await;
    let mut bob = Client::join(s.addr, board, "bob").await;
    let ann_token = mint(s.addr, "ann", board, "editor").await;
    let ann_auth = format!("Bearer {ann_token}");
    let ann_h = [("Authorization", ann_auth.as_str())];
    let v = ann
        .commit("a1", json!([note("a", 0.0, 0.0), note("b", 300.0, 0.0)]))
        .await;
    assert_eq!(v["type"], "applied");
    bob.catch_up(1).await;
    let path = format!("/api/boards/{board}/versions");
    let saved = request(
        s.addr,
        "POST",
        &path,
        &ann_h,
        Some(r#"{"name":"Before the workshop"}"#),
    )
    .await;
    assert_eq!(saved.status, 201, "{:?}", saved.json);
    assert_eq!(saved.json["kind"], "named");
    assert_eq!(saved.json["name"], "Before the workshop");
    let version = saved.json["id"].as_u64().unwrap();
    let at_version = texts(&ann);

    let v = ann
        .commit(
            "a2",
            json!([
                {"op":"update","id":"a","set":{"text":"changed"}},
                {"op":"delete","id":"b"},
                note("c", 600.0, 0.0)
            ]),
        )
        .await;
    assert_eq!(v["type"], "applied");
    let v = bob.commit("b1", json!([note("d", 900.0, 0.0)])).await;
    assert_eq!(v["type"], "applied");
    ann.catch_up(3).await;
    let before_restore = texts(&ann);

    // Viewers may look but not restore (HIST-6).
    let viewer = format!("Bearer {}", mint(s.addr, "vic", board, "viewer").await);
    let vh = [("Authorization", viewer.as_str())];
    let a = request(s.addr, "GET", &path, &vh, None).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.json["versions"][0]["id"], version);
    let a = request(s.addr, "GET", &format!("{path}/{version}"), &vh, None).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.json["objects"].as_array().unwrap().len(), 2);
    let restore = format!("/api/boards/{board}/restore");
    let body = json!({"version": version}).to_string();
    let a = request(s.addr, "POST", &restore, &vh, Some(&body)).await;
    assert_eq!(a.status, 403, "{:?}", a.json);
    let a = request(s.addr, "POST", &path, &vh, Some(r#"{"name":"x"}"#)).await;
    assert_eq!(a.status, 403, "{:?}", a.json);
    let a = request(s.addr, "POST", &restore, &ann_h, Some(r#"{"version":999}"#)).await;
    assert_eq!(a.status, 404);
    assert_eq!(a.json["error"]["code"], "not_found");
    let a = request(s.addr, "GET", &format!("{path}/nope"), &vh, None).await;
    assert_eq!(a.status, 404);

    let a = request(s.addr, "POST", &restore, &ann_h, Some(&body)).await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let seq = a.json["seq"].as_u64().unwrap();
    assert_eq!(seq, 4);
    for c in [&mut ann, &mut bob] {
        let m = c.until(|m| m["type"] == "applied").await;
        assert_eq!(m["seq"], 4);
        assert_eq!(m["command"]["origin"], "restore");
        assert_eq!(m["command"]["author"], "ann");
        assert_eq!(
            texts(c),
            at_version,
            "the board is what it was at the version"
        );
    }
    // Bob edits after the restore; Ann's one undo reverts the restore and keeps Bob's edit.
    let v = bob
        .commit(
            "b2",
            json!([{"op":"update","id":"a","set":{"color":"red"}}]),
        )
        .await;
    assert_eq!(v["type"], "applied");
    ann.catch_up(5).await;
    ann.send(json!({"type":"undo"})).await;
    let m = ann.until(|m| m["type"] == "applied").await;
    assert_eq!(m["seq"], 6);
    assert_eq!(m["command"]["origin"], "undo");
    assert_eq!(texts(&ann), before_restore);
    let a_obj = ann
        .objects()
        .into_iter()
        .find(|o| o.id.as_str() == "a")
        .unwrap();
    assert_eq!(a_obj.color, "#EF9A9A", "Bob's later edit survives the undo");
    bob.catch_up(6).await;
    assert_eq!(texts(&bob), before_restore);
    // The state before the restore was kept as an automatic version.
    let list = versions(s.addr, board).await;
    assert!(
        list.iter()
            .any(|v| v["kind"] == "automatic" && v["seq"] == 3),
        "{list:?}"
    );
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

/// HIST-5 with edits in flight: a restore that lands between someone's commits converges: every
/// client's mirror equals a fresh client's welcome, and the board's invariants hold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hist_5_a_restore_during_others_edits_converges() {
    let s = start(config()).await;
    let board = "restore-busy";
    let mut ann = Client::join(s.addr, board, "ann").await;
    let ops: Vec<Value> = (0..10)
        .map(|i| note(&format!("v{i}"), i as f64 * 250.0, 0.0))
        .collect();
    assert_eq!(ann.commit("a1", Value::Array(ops)).await["type"], "applied");
    let auth = format!("Bearer {}", mint(s.addr, "ann", board, "editor").await);
    let saved = request(
        s.addr,
        "POST",
        &format!("/api/boards/{board}/versions"),
        &[("Authorization", auth.as_str())],
        Some(r#"{"name":"ten notes"}"#),
    )
    .await;
    assert_eq!(saved.status, 201);
    let version = saved.json["id"].as_u64().unwrap();
    // Bob moves, recolors, deletes and creates while the restore goes through.
    let mut bob = Client::join(s.addr, board, "bob").await;
    let addr = s.addr;
    let restore = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        let body = json!({ "version": version }).to_string();
        request(
            addr,
            "POST",
            &format!("/api/boards/{board}/restore"),
            &[("Authorization", auth.as_str())],
            Some(&body),
        )
        .await
    });
    for i in 0..40 {
        let ops = match i % 4 {
            0 => json!([{"op":"update","id":format!("v{}", i % 10),"set":{"x": i * 7}}]),
            1 => json!([{"op":"update","id":format!("v{}", i % 10),"set":{"color":"red"}}]),
            2 => json!([note(&format!("b{i}"), 0.0, 400.0 + i as f64)]),
            _ => json!([{"op":"delete","id":format!("v{}", i % 10)}]),
        };
        bob.send(json!({"type":"commit","id":format!("b{i}"),"ops":ops}))
            .await;
    }
    let answer = restore.await.unwrap();
    assert_eq!(answer.status, 200, "{:?}", answer.json);
    // Everyone settles on the same board.
    let probe = Client::join(s.addr, board, "carol").await;
    for c in [&mut ann, &mut bob] {
        c.catch_up(probe.seq).await;
        assert_eq!(c.objects(), probe.objects());
    }
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

/// Saves a named version of `board` as the editor `user`.
async fn save_named(addr: std::net::SocketAddr, board: &str, user: &str, name: &str) -> Value {
    let auth = format!("Bearer {}", mint(addr, user, board, "editor").await);
    let a = request(
        addr,
        "POST",
        &format!("/api/boards/{board}/versions"),
        &[("Authorization", auth.as_str())],
        Some(&json!({ "name": name }).to_string()),
    )
    .await;
    json!({"status": a.status, "body": a.json})
}

fn named(list: &[Value]) -> usize {
    list.iter().filter(|v| v["kind"] == "named").count()
}

/// QUOTA-4: a board keeps at most `--max-named-versions` named versions: the next save is 403
/// `limit_exceeded` and stores nothing; saves that race each other cannot pass the cap; other
/// boards are not affected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_4_a_board_keeps_at_most_max_named_versions() {
    let mut cfg = config();
    cfg.max_named_versions = 3;
    let s = start(cfg).await;
    let mut ann = Client::join(s.addr, "capped", "ann").await;
    assert_eq!(
        ann.commit("c1", json!([note("n", 0.0, 0.0)])).await["type"],
        "applied"
    );
    let first = save_named(s.addr, "capped", "ann", "one").await;
    assert_eq!(first["status"], 201, "{first}");
    // Four more at once: two fit, two are refused, whatever the order.
    let saves: Vec<_> = (0..4)
        .map(|i| {
            let addr = s.addr;
            tokio::spawn(async move { save_named(addr, "capped", "ann", &format!("r{i}")).await })
        })
        .collect();
    let mut statuses = Vec::new();
    for t in saves {
        let a = t.await.unwrap();
        if a["status"] == 403 {
            assert_eq!(a["body"]["error"]["code"], "limit_exceeded", "{a}");
            let message = a["body"]["error"]["message"].as_str().unwrap();
            assert!(message.contains("--max-named-versions"), "{message}");
        }
        statuses.push(a["status"].as_u64().unwrap());
    }
    statuses.sort_unstable();
    assert_eq!(statuses, vec![201, 201, 403, 403]);
    assert_eq!(named(&versions(s.addr, "capped").await), 3);
    // Another board saves as before.
    let _bob = Client::join(s.addr, "other", "bob").await;
    assert_eq!(
        save_named(s.addr, "other", "bob", "mine").await["status"],
        201
    );
    s.shutdown().await.unwrap();
}

/// QUOTA-4: a board saves at most `--named-versions-per-min` named versions a minute (in bursts
/// of as many): beyond it 429 `rate_limited`, nothing stored; another board is not slowed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_4_named_version_saves_are_rate_limited_per_board() {
    let mut cfg = config();
    cfg.named_versions_per_min = 2;
    let s = start(cfg).await;
    let _ann = Client::join(s.addr, "busy", "ann").await;
    for name in ["a", "b"] {
        assert_eq!(save_named(s.addr, "busy", "ann", name).await["status"], 201);
    }
    let a = save_named(s.addr, "busy", "ann", "c").await;
    assert_eq!(a["status"], 429, "{a}");
    assert_eq!(a["body"]["error"]["code"], "rate_limited", "{a}");
    assert_eq!(named(&versions(s.addr, "busy").await), 2);
    let _bob = Client::join(s.addr, "calm", "bob").await;
    assert_eq!(
        save_named(s.addr, "calm", "bob", "mine").await["status"],
        201
    );
    s.shutdown().await.unwrap();
}

/// QUOTA-4 with QUOTA-3: named versions count under `--max-store-bytes`: once the store is over
/// it, a save is 403 `limit_exceeded` and adds nothing, while edits of the board go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_4_named_versions_past_the_store_cap_are_refused() {
    let dir = std::env::temp_dir().join(format!("board-vcap-{}", uuid::Uuid::new_v4()));
    let mut cfg = config();
    cfg.memory_store = false;
    cfg.data_dir = dir.clone();
    cfg.max_store_bytes = Some(0);
    let s = start(cfg.clone()).await;
    let mut ann = Client::join(s.addr, "full", "ann").await;
    assert_eq!(
        ann.commit("c1", json!([note("n", 0.0, 0.0)])).await["type"],
        "applied"
    );
    assert_eq!(
        save_named(s.addr, "full", "ann", "before").await["status"],
        201
    );
    drop(ann);
    s.shutdown().await.unwrap();
    // The same store, now over its cap.
    cfg.max_store_bytes = Some(1);
    let s = start(cfg).await;
    let mut ann = Client::join(s.addr, "full", "ann").await;
    let a = save_named(s.addr, "full", "ann", "after").await;
    assert_eq!(a["status"], 403, "{a}");
    assert_eq!(a["body"]["error"]["code"], "limit_exceeded", "{a}");
    let message = a["body"]["error"]["message"].as_str().unwrap();
    assert!(message.contains("--max-store-bytes"), "{message}");
    assert_eq!(named(&versions(s.addr, "full").await), 1);
    assert_eq!(
        ann.commit("c2", json!([note("m", 300.0, 0.0)])).await["type"],
        "applied"
    );
    s.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}
