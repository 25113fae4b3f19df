//! Collaboration core over real WebSockets against the real server on port 0.
//! Each test names the docs/SPEC.md rule it checks.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use futures_util::SinkExt;
use serde_json::json;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn wire_3_hello_must_come_first() {
    let s = start(config()).await;
    let mut ws = raw(s.addr, "b1").await;
    ws.send(Message::text(r#"{"type":"ping"}"#)).await.unwrap();
    let mut c = Client {
        ws,
        mirror: Default::default(),
        seq: 0,
        user: "x".into(),
        welcome: json!(null),
        seqs: vec![],
    };
    let e = c.next().await;
    assert_eq!(e["type"], "error");
    assert_eq!(e["code"], "invalid");
    assert_eq!(c.next().await["type"], "__close");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn wire_2_bad_input_gets_codes_and_the_connection_stays_usable() {
    let s = start(config()).await;
    let mut c = Client::join(s.addr, "b1", "ann").await;
    for (frame, code) in [
        ("{not json", "bad_json"),
        ("[]", "bad_json"),
        (r#"{"type":"teleport"}"#, "unknown_type"),
        (r#"{"type":"commit","id":"c1"}"#, "invalid"),
        (
            r#"{"type":"commit","id":"c1","ops":[{"op":"update","id":"x","set":{"x":"NaN"}}]}"#,
            "invalid",
        ),
        (r#"{"type":"hello","user":{"id":"ann"}}"#, "invalid"),
    ] {
        c.ws.send(Message::text(frame)).await.unwrap();
        let e = c.next().await;
        assert_eq!(e["type"], "error", "{frame}");
        assert_eq!(e["code"], code, "{frame}: {e}");
    }
    c.ws.send(Message::binary(vec![1u8, 2, 3])).await.unwrap();
    assert_eq!(c.next().await["code"], "invalid");
    c.send(json!({"type":"ping","t":7})).await;
    let p = c.next().await;
    assert_eq!(p, json!({"type":"pong","t":7}));
    let a = c.commit("ok", json!([note("n1", 0.0, 0.0)])).await;
    assert_eq!(a["type"], "applied");
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn cmd_2_applied_goes_to_everyone_in_gap_free_seq_order() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    for i in 0..20 {
        let c = if i % 2 == 0 { &mut a } else { &mut b };
        let r = c
            .commit(
                &format!("c{i}"),
                json!([note(&format!("n{i}"), i as f64 * 250.0, 0.0)]),
            )
            .await;
        assert_eq!(r["type"], "applied");
        assert_eq!(r["command"]["origin"], "user");
    }
    a.catch_up(20).await;
    b.catch_up(20).await;
    assert_eq!(a.seqs, (1..=20).collect::<Vec<_>>());
    assert_eq!(b.seqs, (1..=20).collect::<Vec<_>>());
    assert_eq!(a.objects(), b.objects());
    let fresh = Client::join(s.addr, "b1", "cy").await;
    assert_eq!(fresh.welcome["seq"], 20);
    assert_eq!(fresh.objects(), a.objects());
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn cmd_1_and_cmd_7_a_bad_commit_changes_nothing_and_names_the_id() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    a.commit("c1", json!([note("n1", 0.0, 0.0)])).await;
    let r = a
        .commit(
            "c2",
            json!([{"op":"update","id":"n1","set":{"x":500}}, {"op":"delete","id":"ghost"}]),
        )
        .await;
    assert_eq!(r["type"], "rejected");
    assert_eq!(r["error"]["code"], "not_found");
    assert!(r["error"]["message"].as_str().unwrap().contains("ghost"));
    let insp = s.inspect("b1").await.unwrap();
    assert_eq!(insp.seq, 1);
    assert_eq!(insp.objects[0].x, 0.0);
    // Clamping and coercion are applied and echoed (VAL-2).
    let r = a
        .commit("c3", json!([{"op":"create","object":{"kind":"shape","x":"-100000","w":99999,"color":"pink"}}]))
        .await;
    let o = &r["command"]["ops"][0]["object"];
    assert_eq!(o["x"], -50000.0);
    assert_eq!(o["w"], 5000.0);
    assert_eq!(o["color"], "#F48FB1");
    assert_eq!(o["geo"], "rectangle");
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn cmd_4_and_cmd_5_derived_changes_are_listed_in_applied() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    a.commit(
        "c1",
        json!([
            {"op":"create","object":{"id":"f","kind":"frame","w":600,"h":500}},
            {"op":"create","object":{"id":"n","kind":"note","x":20,"y":60,"parent":"f"}},
            {"op":"create","object":{"id":"m","kind":"note","x":900}},
            {"op":"create","object":{"id":"c","kind":"connector","from":{"id":"n"},"to":{"id":"m"}}}
        ]),
    )
    .await;
    let mv = a
        .commit(
            "c2",
            json!([{"op":"update","id":"f","set":{"x":100,"y":100}}]),
        )
        .await;
    let ops = mv["command"]["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 2);
    assert_eq!(
        ops[1],
        json!({"op":"update","id":"n","set":{"x":120.0,"y":160.0}})
    );
    let del = a.commit("c3", json!([{"op":"delete","id":"f"}])).await;
    let ids: Vec<&str> = del["command"]["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["c", "n", "f"]);
    b.catch_up(3).await;
    assert_eq!(b.objects(), a.objects());
    assert_eq!(b.objects().len(), 1);
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn cmd_9_a_resent_commit_is_not_applied_twice() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let r = a.commit("once", json!([note("n1", 0.0, 0.0)])).await;
    assert_eq!(r["seq"], 1);
    // Reconnect and send it again.
    a.resume(s.addr, "b1").await;
    let r = a.commit("once", json!([note("n1", 0.0, 0.0)])).await;
    assert_eq!(r, json!({"type":"ack","id":"once","seq":1}));
    assert_eq!(s.inspect("b1").await.unwrap().seq, 1);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn undo_1_undo_and_redo_the_senders_own_command() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    a.commit("c1", json!([note("n1", 0.0, 0.0), note("n2", 300.0, 0.0)]))
        .await;
    b.commit("c2", json!([note("theirs", 600.0, 0.0)])).await;
    a.send(json!({"type":"undo"})).await;
    let u = a.until_type("applied").await;
    let u = if u["seq"] == 2 {
        a.until_type("applied").await
    } else {
        u
    };
    assert_eq!(u["command"]["origin"], "undo");
    assert_eq!(
        u["command"]["ops"].as_array().unwrap().len(),
        2,
        "one undo removes the whole command"
    );
    assert_eq!(a.mirror.len(), 1);
    a.send(json!({"type":"redo"})).await;
    let r = a.until_type("applied").await;
    assert_eq!(r["command"]["origin"], "redo");
    assert_eq!(a.mirror.len(), 3);
    // A new command clears the redo stack (UNDO-4).
    a.send(json!({"type":"undo"})).await;
    a.until_type("applied").await;
    a.commit("c3", json!([note("n3", 900.0, 0.0)])).await;
    a.send(json!({"type":"redo"})).await;
    let e = a.until_type("error").await;
    assert_eq!(e["code"], "nothing_to_redo");
    // Bob's undo only touches bob's command (UNDO-1).
    b.send(json!({"type":"undo"})).await;
    let bu = b
        .until(|v| v["type"] == "applied" && v["command"]["author"] == "bob")
        .await;
    assert_eq!(bu["command"]["ops"], json!([{"op":"delete","id":"theirs"}]));
    b.send(json!({"type":"undo"})).await;
    assert_eq!(b.until_type("error").await["code"], "nothing_to_undo");
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn undo_2_and_undo_3_undo_respects_later_changes_by_others() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    a.commit("c1", json!([note("n1", 0.0, 0.0), note("n2", 300.0, 0.0)]))
        .await;
    a.commit("c2", json!([{"op":"update","id":"n1","set":{"x":50,"color":"red"}},{"op":"update","id":"n2","set":{"text":"mine"}}])).await;
    b.catch_up(2).await;
    b.commit(
        "c3",
        json!([{"op":"update","id":"n1","set":{"color":"green"}}, {"op":"delete","id":"n2"}]),
    )
    .await;
    a.catch_up(3).await;
    a.send(json!({"type":"undo"})).await;
    let u = a.until_type("applied").await;
    assert_eq!(
        u["command"]["ops"],
        json!([{"op":"update","id":"n1","set":{"x":0.0}}])
    );
    let n1 = a.mirror.get("n1").unwrap();
    assert_eq!(n1.color, "#A5D6A7", "bob's later color survives ann's undo");
    assert!(
        a.mirror.get("n2").is_none(),
        "objects bob deleted stay deleted"
    );
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn undo_5_stacks_are_bounded() {
    let mut cfg = config();
    cfg.undo_depth = 3;
    let s = start(cfg).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    for i in 0..5 {
        a.commit(
            &format!("c{i}"),
            json!([note(&format!("n{i}"), i as f64 * 300.0, 0.0)]),
        )
        .await;
    }
    for _ in 0..3 {
        a.send(json!({"type":"undo"})).await;
        a.until_type("applied").await;
    }
    a.send(json!({"type":"undo"})).await;
    assert_eq!(a.until_type("error").await["code"], "nothing_to_undo");
    assert_eq!(a.mirror.len(), 2);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn pres_1_and_pres_2_presence_joined_and_left_with_grace() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    let j = a.until_type("joined").await;
    assert_eq!(j["user"]["id"], "bob");
    assert!(j["user"]["color"].as_str().unwrap().starts_with('#'));
    assert_eq!(b.welcome["users"][0]["user"]["id"], "ann");
    for x in 0..10 {
        b.send(json!({"type":"presence","cursor":{"x":x,"y":1}}))
            .await;
    }
    // Coalesced: ann eventually sees the latest cursor.
    let p = a
        .until(|v| v["type"] == "presence" && v["cursor"]["x"].as_f64() == Some(9.0))
        .await;
    assert_eq!(p["user"]["id"], "bob");
    // A blip shorter than the grace shows no left/joined.
    b.ws.close(None).await.unwrap();
    let mut b = Client::join(s.addr, "b1", "bob").await;
    let quiet = a.try_next(Duration::from_millis(400)).await;
    assert!(
        quiet.is_none() || quiet.as_ref().unwrap()["type"] != "left",
        "{quiet:?}"
    );
    b.ws.close(None).await.unwrap();
    let l = a.until_type("left").await;
    assert_eq!(l["user"]["id"], "bob");
    s.shutdown().await.unwrap();
}

/// WIRE-6: `presence.editing` is relayed with the rest of the sender's presence; `null` clears
/// it; a presence without the field leaves it as it was.
#[tokio::test]
async fn wire_6_presence_relays_the_object_being_edited() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    a.until_type("joined").await;
    b.send(json!({"type":"presence","editing":"n1"})).await;
    let p = a
        .until(|v| v["type"] == "presence" && v["editing"] == "n1")
        .await;
    assert_eq!(p["user"]["id"], "bob");
    b.send(json!({"type":"presence","cursor":{"x":5,"y":1}}))
        .await;
    let p = a
        .until(|v| v["type"] == "presence" && v["cursor"]["x"].as_f64() == Some(5.0))
        .await;
    assert_eq!(p["editing"], "n1", "{p}");
    b.send(json!({"type":"presence","editing":null})).await;
    let p = a
        .until(|v| v["type"] == "presence" && v.get("editing").is_none())
        .await;
    assert_eq!(p["user"]["id"], "bob");
    // An id outside the id rule is refused and changes nothing.
    b.send(json!({"type":"presence","editing":"x".repeat(65)}))
        .await;
    assert_eq!(b.until_type("error").await["code"], "invalid");
    s.shutdown().await.unwrap();
}

/// Ann and Bob on board `b1`; Ann creates note `n0` (seq 1), Bob sees it and disconnects.
async fn ann_stays_bob_leaves(cfg: server::Config) -> (server::ServerHandle, Client, Client) {
    let s = start(cfg).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    a.commit("c0", json!([note("n0", 0.0, 0.0)])).await;
    b.catch_up(1).await;
    b.ws.close(None).await.unwrap();
    (s, a, b)
}

#[tokio::test]
async fn res_1_and_res_2_resume_replays_inside_the_window_and_refreshes_outside() {
    let mut cfg = config();
    cfg.replay_window = 5;
    let (s, mut a, mut b) = ann_stays_bob_leaves(cfg).await;
    for i in 1..4 {
        a.commit(
            &format!("c{i}"),
            json!([note(&format!("n{i}"), i as f64 * 300.0, 0.0)]),
        )
        .await;
    }
    b.resume(s.addr, "b1").await;
    assert!(
        b.welcome.get("objects").is_none(),
        "inside the window: no objects"
    );
    assert_eq!(b.welcome["seq"], 4);
    b.catch_up(4).await;
    assert_eq!(b.objects(), a.objects());
    b.ws.close(None).await.unwrap();
    for i in 4..12 {
        a.commit(
            &format!("c{i}"),
            json!([note(&format!("n{i}"), i as f64 * 300.0, 0.0)]),
        )
        .await;
    }
    b.resume(s.addr, "b1").await;
    assert!(
        b.welcome.get("objects").is_some(),
        "outside the window: a full welcome"
    );
    assert_eq!(b.objects(), a.objects());
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn res_3_the_window_is_also_bounded_in_bytes() {
    let mut cfg = config();
    cfg.replay_window = 1000;
    cfg.replay_window_bytes = 4 * 1024;
    let (s, mut a, mut b) = ann_stays_bob_leaves(cfg).await;
    // Two small commands fit in 4 KB: a replay.
    for i in 1..3 {
        a.commit(
            &format!("c{i}"),
            json!([note(&format!("n{i}"), i as f64 * 300.0, 0.0)]),
        )
        .await;
    }
    b.resume(s.addr, "b1").await;
    assert!(b.welcome.get("objects").is_none(), "inside 4 KB: a replay");
    b.catch_up(3).await;
    b.ws.close(None).await.unwrap();
    // Three commands of 2 KB of text each (far fewer than 1,000) do not: a full welcome.
    let text = "t".repeat(2000);
    for i in 3..6 {
        a.commit(
            &format!("c{i}"),
            json!([{"op":"update","id":"n0","set":{"text":format!("{i}{text}")}}]),
        )
        .await;
    }
    b.resume(s.addr, "b1").await;
    assert!(
        b.welcome.get("objects").is_some(),
        "beyond 4 KB of frames: a full welcome"
    );
    assert_eq!(b.objects(), a.objects());
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ops_1_and_ops_2_health_and_metrics() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    a.commit("c1", json!([note("n1", 0.0, 0.0)])).await;
    let get = |path: &'static str| {
        let addr = s.addr;
        async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
            sock.write_all(
                format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
            )
            .await
            .unwrap();
            let mut out = String::new();
            sock.read_to_string(&mut out).await.unwrap();
            out
        }
    };
    let h = get("/healthz").await;
    assert!(h.starts_with("HTTP/1.1 200"), "{h}");
    assert!(h.contains(r#""status":"ok""#));
    // `/metrics` needs the admin token (AUTH-7).
    assert!(get("/metrics").await.starts_with("HTTP/1.1 401"));
    let m = http::admin(s.addr, "GET", "/metrics", None).await;
    assert_eq!(m.status, 200);
    let m = m.json.as_str().unwrap_or_default().to_owned();
    for name in [
        "board_commands_total",
        "board_commit_to_broadcast_seconds",
        "board_mailbox_wait_seconds",
        "board_durable_wait_seconds",
        "board_ws_connections",
        "board_boards_loaded",
        "store_log_commit_seconds",
        "store_log_wait_seconds",
        "store_log_commits_total",
        "store_log_records_total",
    ] {
        assert!(m.contains(name), "{name} missing from metrics");
    }
    let bad = get("/ws/boards/not%20ok").await;
    assert!(bad.starts_with("HTTP/1.1 400"), "{bad}");
    s.shutdown().await.unwrap();
}
