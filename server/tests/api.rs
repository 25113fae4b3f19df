//! The HTTP board API over real HTTP/1.1 against the real server on port 0.
//! Each test names the docs/DURABILITY.md rule it checks (API-n).
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One HTTP/1.1 request (Connection: close). Returns the status and the JSON body (Null if none).
async fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let fut = async {
        let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
        let body = body.unwrap_or("");
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            admin_token(),
            body.len()
        );
        // The server may answer (413) before reading everything: a write error is not a failure.
        let _ = sock.write_all(req.as_bytes()).await;
        let mut out = Vec::new();
        let _ = sock.read_to_end(&mut out).await;
        let text = String::from_utf8_lossy(&out).to_string();
        let status: u16 = text
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {text:?}"));
        let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        let json = if body.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"))
        };
        (status, json)
    };
    tokio::time::timeout(STEP, fut)
        .await
        .expect("HTTP request timed out")
}

/// Objects without the fields an import resets (version).
fn strip(objects: &Value) -> Vec<Value> {
    let mut v: Vec<Value> = objects.as_array().unwrap().clone();
    for o in &mut v {
        o.as_object_mut().unwrap().remove("version");
    }
    v.sort_by_key(|o| o["id"].as_str().unwrap().to_string());
    v
}

/// A board with a frame, a child note, a shape and a connector between them.
async fn populate(c: &mut Client) {
    let r = c
        .commit(
            "c1",
            json!([
                {"op":"create","object":{"id":"f1","kind":"frame","x":0,"y":0,"w":800,"h":600,"text":"Frame"}},
                {"op":"create","object":{"id":"n1","kind":"note","x":50,"y":50,"text":"child","parent":"f1","color":"yellow"}},
                {"op":"create","object":{"id":"s1","kind":"shape","x":1000,"y":0,"geo":"ellipse"}},
                {"op":"create","object":{"id":"k1","kind":"connector","from":{"id":"n1"},"to":{"id":"s1"}}},
            ]),
        )
        .await;
    assert_eq!(r["type"], "applied", "{r}");
    let r = c
        .commit("c2", json!([{"op":"update","id":"s1","set":{"x":1200}}]))
        .await;
    assert_eq!(r["type"], "applied", "{r}");
}

#[tokio::test]
async fn api_1_list_shows_every_board_with_its_seq() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "list-a", "ann").await;
    populate(&mut a).await;
    let mut b = Client::join(s.addr, "list-b", "bob").await;
    assert_eq!(
        b.commit("x", json!([note("n", 0.0, 0.0)])).await["type"],
        "applied"
    );
    let (st, v) = http(s.addr, "GET", "/api/boards", None).await;
    assert_eq!(st, 200, "{v}");
    let boards = v["boards"].as_array().unwrap();
    let ids: Vec<&str> = boards.iter().map(|b| b["id"].as_str().unwrap()).collect();
    // Newest first (AUTH-7), with titles and the caller's role.
    assert_eq!(ids, ["list-b", "list-a"], "{v}");
    assert_eq!(boards[0]["seq"], 1);
    assert_eq!(boards[1]["seq"], 2);
    assert_eq!(boards[1]["title"], "list-a");
    assert_eq!(boards[1]["role"], "owner");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn api_2_export_of_a_loaded_board_is_its_durable_state() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "exp", "ann").await;
    populate(&mut a).await;
    let (st, v) = http(s.addr, "GET", "/api/boards/exp", None).await;
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["board"], "exp");
    assert_eq!(v["seq"], 2);
    let mirror = serde_json::to_value(a.objects()).unwrap();
    assert_eq!(strip(&v["objects"]), strip(&mirror));
    assert_eq!(v["objects"].as_array().unwrap().len(), 4);
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn api_3_import_round_trips_an_export_under_a_new_id() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "src", "ann").await;
    populate(&mut a).await;
    let (_, exported) = http(s.addr, "GET", "/api/boards/src", None).await;
    // The export itself is a valid import body (board and seq are ignored).
    let (st, v) = http(s.addr, "POST", "/api/boards", Some(&exported.to_string())).await;
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["seq"], 0);
    assert_eq!(v["objects"], 4);
    let id = v["board"].as_str().unwrap().to_string();
    assert_ne!(id, "src");
    // Never loaded: exported from the store.
    let (st, copy) = http(s.addr, "GET", &format!("/api/boards/{id}"), None).await;
    assert_eq!(st, 200, "{copy}");
    assert_eq!(copy["seq"], 0);
    assert_eq!(strip(&copy["objects"]), strip(&exported["objects"]));
    // Joining it serves the same objects and continues at seq 1.
    let mut b = Client::join(s.addr, &id, "bob").await;
    assert_eq!(b.welcome["seq"], 0);
    assert_eq!(strip(&b.welcome["objects"]), strip(&exported["objects"]));
    let r = b
        .commit("m", json!([{"op":"update","id":"f1","set":{"x":10}}]))
        .await;
    assert_eq!(r["type"], "applied", "{r}");
    assert_eq!(r["seq"], 1);
    // The frame moved its child: the structure survived the import.
    assert!(
        r["command"]["ops"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["id"] == "n1"),
        "{r}"
    );
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn api_4_import_validates_and_clamps_like_an_edit() {
    let s = start(config()).await;
    let body = json!({"objects": [
        {"id":"k","kind":"connector","from":{"id":"a"},"to":{"x":"5","y":1e300}},
        {"id":"a","kind":"note","x":1e300,"y":"12","w":-5,"color":"red","text":"x","parent":"f"},
        {"id":"f","kind":"frame"},
    ]});
    let (st, v) = http(s.addr, "POST", "/api/boards", Some(&body.to_string())).await;
    assert_eq!(st, 201, "{v}");
    let id = v["board"].as_str().unwrap();
    let (_, e) = http(s.addr, "GET", &format!("/api/boards/{id}"), None).await;
    let objs = e["objects"].as_array().unwrap();
    let a = objs.iter().find(|o| o["id"] == "a").unwrap();
    assert!(a["x"].as_f64().unwrap() < 1e300, "x not clamped: {a}");
    assert_eq!(a["y"], 12.0);
    assert!(a["w"].as_f64().unwrap() > 0.0, "w not clamped: {a}");
    assert!(
        a["color"].as_str().unwrap().starts_with('#'),
        "color not resolved: {a}"
    );
    assert_eq!(a["parent"], "f");
    let k = objs.iter().find(|o| o["id"] == "k").unwrap();
    assert!(k["to"]["y"].as_f64().unwrap() < 1e300, "{k}");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn api_5_bad_imports_get_stable_codes_and_create_nothing() {
    let mut cfg = config();
    cfg.max_objects = 3;
    cfg.max_file_bytes = 4096;
    let s = start(cfg).await;
    let cases: Vec<(String, u16, &str, Option<&str>)> = vec![
        ("{not json".into(), 400, "bad_json", None),
        (json!({"nope": []}).to_string(), 400, "invalid", None),
        (
            json!({"objects":[{"id":"ok","kind":"note"},{"id":"bad","kind":"teapot"}]}).to_string(),
            400,
            "invalid",
            Some("bad"),
        ),
        (
            json!({"objects":[{"id":"n","kind":"note","x":"NaN"}]}).to_string(),
            400,
            "invalid",
            Some("id n"),
        ),
        (
            json!({"objects":[{"id":"d","kind":"note"},{"id":"d","kind":"note"}]}).to_string(),
            400,
            "invalid",
            Some("d"),
        ),
        (
            json!({"objects":[{"id":"c","kind":"note","parent":"ghost"}]}).to_string(),
            400,
            "invalid",
            Some("c"),
        ),
        (
            json!({"objects":[{"kind":"note"},{"kind":"note"},{"kind":"note"},{"kind":"note"}]})
                .to_string(),
            400,
            "limit_exceeded",
            None,
        ),
        (
            json!({"objects":[{"kind":"note","text":"x".repeat(5000)}]}).to_string(),
            413,
            "too_large",
            None,
        ),
    ];
    for (body, status, code, names) in cases {
        let (st, v) = http(s.addr, "POST", "/api/boards", Some(&body)).await;
        let short: String = body.chars().take(80).collect();
        assert_eq!(st, status, "{short}: {v}");
        assert_eq!(v["error"]["code"], code, "{short}: {v}");
        if let Some(n) = names {
            assert!(
                v["error"]["message"].as_str().unwrap().contains(n),
                "{short}: {v}"
            );
        }
    }
    let (_, v) = http(s.addr, "GET", "/api/boards", None).await;
    assert_eq!(
        v["boards"],
        json!([]),
        "a failed import left a board behind"
    );
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn api_6_delete_closes_connections_and_removes_the_board() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "gone", "ann").await;
    populate(&mut a).await;
    let (st, v) = http(s.addr, "DELETE", "/api/boards/gone", None).await;
    assert_eq!(st, 204, "{v}");
    let close = a.until_type("__close").await;
    assert_eq!(close["code"], 4004, "{close}");
    assert_eq!(close["reason"], "board deleted");
    let (st, v) = http(s.addr, "GET", "/api/boards/gone", None).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (404, Some("not_found")),
        "{v}"
    );
    let (st, _) = http(s.addr, "DELETE", "/api/boards/gone", None).await;
    assert_eq!(st, 404);
    let (_, v) = http(s.addr, "GET", "/api/boards", None).await;
    assert_eq!(v["boards"], json!([]));
    // A new join starts an empty board.
    let b = Client::join(s.addr, "gone", "bob").await;
    assert_eq!(b.welcome["seq"], 0);
    assert_eq!(b.welcome["objects"], json!([]));
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn api_7_unknown_and_malformed_ids() {
    let s = start(config()).await;
    let (st, v) = http(s.addr, "GET", "/api/boards/nothing-here", None).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (404, Some("not_found")),
        "{v}"
    );
    let (st, v) = http(s.addr, "GET", "/api/boards/bad%20id", None).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (400, Some("invalid")),
        "{v}"
    );
    let (st, v) = http(s.addr, "DELETE", "/api/boards/bad%20id", None).await;
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (400, Some("invalid")),
        "{v}"
    );
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn api_8_export_waits_for_pending_commands_to_be_durable() {
    // Commits stream in while exports run: every export's seq is one the store made durable and
    // its objects are exactly the notes of commits 1..=seq.
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "busy", "ann").await;
    let addr = s.addr;
    let exporter = tokio::spawn(async move {
        let mut seen = Vec::new();
        for _ in 0..20 {
            let (st, v) = http(addr, "GET", "/api/boards/busy", None).await;
            if st == 200 {
                seen.push(v);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        seen
    });
    for i in 0..200 {
        a.send(
            json!({"type":"commit","id":format!("c{i}"),"ops":[note(&format!("n{i}"), 0.0, 0.0)]}),
        )
        .await;
    }
    a.catch_up(200).await;
    let seen = tokio::time::timeout(Duration::from_secs(30), exporter)
        .await
        .unwrap()
        .unwrap();
    assert!(!seen.is_empty());
    for v in seen {
        let seq = v["seq"].as_u64().unwrap();
        assert_eq!(v["objects"].as_array().unwrap().len() as u64, seq, "{v}");
    }
    s.shutdown().await.unwrap();
}
