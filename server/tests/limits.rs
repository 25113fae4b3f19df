//! Limits over real WebSockets against the real server on port 0: frame and commit sizes,
//! objects and clients per board, the per-connection message rate, slow clients (LIM-n in
//! docs/SPEC.md).
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn lim_1_and_lim_2_oversized_frames_and_commits() {
    let mut cfg = config();
    cfg.max_frame_bytes = 2048;
    cfg.max_ops_per_commit = 3;
    let s = start(cfg).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    a.send(json!({"type":"commit","id":"big","ops":[{"op":"create","object":{"kind":"note","text":"x".repeat(4000)}}]})).await;
    let e = a.next().await;
    assert_eq!(
        (e["type"].as_str(), e["code"].as_str()),
        (Some("error"), Some("too_large"))
    );
    let r = a
        .commit(
            "many",
            json!([
                note("a1", 0.0, 0.0),
                note("a2", 300.0, 0.0),
                note("a3", 600.0, 0.0),
                note("a4", 900.0, 0.0)
            ]),
        )
        .await;
    assert_eq!(r["error"]["code"], "too_large");
    assert_eq!(
        a.commit("ok", json!([note("a1", 0.0, 0.0)])).await["type"],
        "applied"
    );
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn lim_3_objects_per_board() {
    let mut cfg = config();
    cfg.max_objects = 2;
    let s = start(cfg).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let r = a
        .commit(
            "c",
            json!([
                note("a1", 0.0, 0.0),
                note("a2", 300.0, 0.0),
                note("a3", 600.0, 0.0)
            ]),
        )
        .await;
    assert_eq!(r["error"]["code"], "limit_exceeded");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn lim_4_clients_per_board() {
    let mut cfg = config();
    cfg.max_clients_per_board = 2;
    let s = start(cfg).await;
    let _a = Client::join(s.addr, "b1", "ann").await;
    let _b = Client::join(s.addr, "b1", "bob").await;
    let token = http::mint(s.addr, "cy", "b1", "editor").await;
    let mut ws = raw(s.addr, "b1").await;
    ws.send(Message::text(
        json!({"type":"hello","user":{"id":"cy"},"token":token}).to_string(),
    ))
    .await
    .unwrap();
    let mut c = Client {
        ws,
        mirror: Default::default(),
        seq: 0,
        user: "cy".into(),
        welcome: json!(null),
        seqs: vec![],
    };
    assert_eq!(c.next().await["code"], "board_full");
    // Another board is unaffected.
    let _d = Client::join(s.addr, "b2", "cy").await;
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn lim_5_message_rate_per_connection() {
    let mut cfg = config();
    cfg.rate_limit_per_sec = 5;
    cfg.rate_burst = 5;
    let s = start(cfg).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    for i in 0..20 {
        a.send(json!({"type":"ping","t":i})).await;
    }
    let mut pongs = 0;
    let mut limited = 0;
    for _ in 0..20 {
        let m = a.next().await;
        match m["type"].as_str() {
            Some("pong") => pongs += 1,
            Some("error") if m["code"] == "rate_limited" => limited += 1,
            _ => panic!("{m}"),
        }
    }
    assert!(limited >= 10, "{limited} limited");
    assert!(pongs >= 5, "{pongs} pongs");
    // A refused commit is also answered `rejected` with its id; the admitted ones are applied.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    for i in 0..10 {
        let id = format!("c{i}");
        a.send(json!({"type":"commit","id":id,"ops":[note(&id, i as f64 * 210.0, 0.0)]}))
            .await;
    }
    let (mut applied, mut rejected, mut errors) = (Vec::new(), Vec::new(), 0);
    while applied.len() + rejected.len() < 10 {
        let m = a.next().await;
        match m["type"].as_str() {
            Some("applied") => {
                applied.push(m["command"]["client_id"].as_str().unwrap().to_string())
            }
            Some("rejected") => {
                assert_eq!(m["error"]["code"], "rate_limited", "{m}");
                rejected.push(m["id"].as_str().unwrap().to_string());
            }
            Some("error") if m["code"] == "rate_limited" => errors += 1,
            _ => panic!("{m}"),
        }
    }
    assert!(
        !applied.is_empty() && !rejected.is_empty(),
        "{applied:?} {rejected:?}"
    );
    assert_eq!(
        errors,
        rejected.len(),
        "one error and one rejected per refused commit"
    );
    for id in &rejected {
        assert!(!applied.contains(id), "{id} both applied and rejected");
    }
    // A refused AI command is answered by its id too: `ai_result` error `rate_limited`.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    for i in 0..8 {
        a.send(json!({"type":"ping","t":i})).await;
    }
    a.send(json!({"type":"ai","id":"ai-1","text":"add a yellow sticky note"}))
        .await;
    loop {
        let m = a.next().await;
        if m["type"] == "ai_result" && m["id"] == "ai-1" {
            assert_eq!(m["outcome"], "error", "{m}");
            assert_eq!(m["error"]["category"], "rate_limited", "{m}");
            break;
        }
    }
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn lim_6_a_slow_client_is_evicted_and_resumes() {
    let mut cfg = config();
    cfg.outbox_capacity = 8;
    let s = start(cfg).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    // `slow` does not read while 1,500 commands of 8 KB each go out: 12 MB, more than its fixed
    // 16 KB receive buffer and the server's send buffer (at most 4 MB here) hold together.
    let mut slow = Client::join_small_rcvbuf(s.addr, "b1", "slow").await;
    let text = "x".repeat(8000);
    a.commit("seed", json!([note("n", 0.0, 0.0)])).await;
    // `a` keeps fewer than `outbox_capacity` frames outstanding so only `slow` falls behind.
    for chunk in 0..375 {
        for k in 0..4 {
            let i = chunk * 4 + k;
            a.send(json!({"type":"commit","id":format!("c{i}"),"ops":[{"op":"update","id":"n","set":{"text":format!("{i}{text}")}}]})).await;
        }
        a.catch_up(1 + (chunk + 1) * 4).await;
    }
    let close = slow.until_type("__close").await;
    assert_eq!(close["code"], 4008, "{close}");
    slow.resume(s.addr, "b1").await;
    slow.catch_up(1501).await;
    assert_eq!(slow.objects(), a.objects());
    assert!(
        s.shared()
            .metrics
            .render()
            .contains("board_outbox_evictions_total")
    );
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}
