//! The limits of export drawings over real HTTP against the real server on port 0 (EXPORT-12):
//! a queued drawing past `--export-wait-ms` answers `busy`, a drawing whose client went away
//! stops, a drawing beyond `--export-memory-mb` answers `too_large`; and text XML cannot hold
//! still exports (EXPORT-13).
#![allow(clippy::unwrap_used)]

mod common;

use common::http::{admin, get_bytes};
use common::*;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// How long a drawing of the heavy board may take in a debug build, generously.
const SLOW: Duration = Duration::from_secs(120);

/// A GET with the admin bearer whose body may be binary: status, lowercase headers, body bytes.
async fn get(addr: SocketAddr, path: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let bearer = format!("Bearer {}", admin_token());
    get_bytes(addr, path, &[("Authorization", &bearer)], SLOW).await
}

/// The raw GET that `get` sends, for a client that goes away before the answer.
fn request(addr: SocketAddr, path: &str) -> String {
    format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAuthorization: Bearer {}\r\n\r\n",
        admin_token()
    )
}

fn header<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
    h.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn code(body: &[u8]) -> Option<String> {
    let v: Value = serde_json::from_slice(body).ok()?;
    v["error"]["code"].as_str().map(str::to_owned)
}

/// A board of `n` notes full of text, made by `POST /api/boards`: its PDF lays out every glyph.
async fn heavy_board(addr: SocketAddr, n: usize) -> String {
    let text = "Interview ten regulars about what they order and when they come in ".repeat(2);
    let objects: Vec<Value> = (0..n)
        .map(|i| {
            json!({"kind":"note","x":(i % 40) * 240,"y":(i / 40) * 240,"w":200,"h":200,"text":text})
        })
        .collect();
    let body = json!({"title":"Heavy","objects":objects}).to_string();
    let a = admin(addr, "POST", "/api/boards", Some(&body)).await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    a.json["board"].as_str().unwrap().to_owned()
}

/// Waits (polling) until `f` holds, at most [`SLOW`].
async fn until(what: &str, f: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + SLOW;
    while !f() {
        assert!(tokio::time::Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn export_12_a_queued_export_past_its_wait_is_busy() {
    let mut config = config();
    config.export_wait_ms = 1;
    let s = start(config).await;
    let board = heavy_board(s.addr, 600).await;
    let pdf = format!("/api/boards/{board}/export.pdf");
    // Two drawings take both turns...
    let addr = s.addr;
    let spawn = |path: String| tokio::spawn(async move { get(addr, &path).await });
    let first = spawn(pdf.clone());
    until("one drawing runs", || s.shared().drawings.running() == 1).await;
    let second = spawn(pdf);
    until("two drawings run", || s.shared().drawings.running() == 2).await;
    // ...so a third waits its 1 ms and is answered busy, with when to try again.
    let (status, head, body) = get(s.addr, &format!("/api/boards/{board}/export.png")).await;
    assert_eq!((status, code(&body).as_deref()), (503, Some("busy")));
    assert_eq!(header(&head, "retry-after"), Some("5"));
    assert_eq!(header(&head, "content-type"), Some("application/json"));
    // The two running ones finish.
    for drawing in [first, second] {
        let (status, _, body) = drawing.await.unwrap();
        assert_eq!(status, 200);
        assert!(body.starts_with(b"%PDF-"));
    }
    assert_eq!(s.shared().drawings.running(), 0);
}

#[tokio::test]
async fn export_12_an_abandoned_export_stops_drawing() {
    let s = start(config()).await;
    let board = heavy_board(s.addr, 600).await;
    let path = format!("/api/boards/{board}/export.pdf");
    let mut sock = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    sock.write_all(request(s.addr, &path).as_bytes())
        .await
        .unwrap();
    until("the drawing runs", || s.shared().drawings.running() == 1).await;
    // The client goes away before the answer: the drawing stops at its next check.
    drop(sock);
    until("the drawing stops", || s.shared().drawings.running() == 0).await;
    assert_eq!(s.shared().drawings.cancelled(), 1);
    // Its turn is free again: the next export is drawn.
    let (status, _, body) = get(s.addr, &format!("/api/boards/{board}/export.svg")).await;
    assert_eq!(status, 200);
    assert!(body.starts_with(b"<svg"));
}

#[tokio::test]
async fn export_12_a_drawing_beyond_the_memory_budget_is_too_large() {
    let mut config = config();
    config.export_memory_mb = 16;
    let s = start(config).await;
    let board = heavy_board(s.addr, 40).await;
    // 40 notes in a row at scale 4: capped to 16,000 x 412 px, 8 bytes a pixel (50 MiB).
    let (status, _, body) = get(s.addr, &format!("/api/boards/{board}/export.png?scale=4")).await;
    assert_eq!((status, code(&body).as_deref()), (422, Some("too_large")));
    let v: Value = serde_json::from_slice(&body).unwrap();
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("at most 16 MiB"), "{message}");
    // The same board as SVG, PDF and a PNG at scale 0.5 fits.
    for (path, magic) in [
        ("export.svg", &b"<svg"[..]),
        ("export.pdf", b"%PDF-"),
        ("export.png?scale=0.5", b"\x89PNG"),
    ] {
        let (status, _, body) = get(s.addr, &format!("/api/boards/{board}/{path}")).await;
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        assert!(body.starts_with(magic), "{path}");
    }
}

#[tokio::test]
async fn export_13_non_characters_export_as_valid_svg_png_and_pdf() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "nonchar", "ann").await;
    let text = "Plan \u{FFFF} and \u{FFFE} then \u{FDD0} done";
    let r = ann
        .commit(
            "c1",
            json!([
                {"op":"create","object":{"id":"f1","kind":"frame","x":0,"y":0,"w":500,"h":300,"text":text}},
                {"op":"create","object":{"id":"n1","kind":"note","x":20,"y":40,"text":text}},
                {"op":"create","object":{"id":"t1","kind":"text","x":260,"y":40,"w":200,"h":40,"text":text}},
                {"op":"create","object":{"id":"c1","kind":"connector","from":{"id":"n1"},"to":{"id":"t1"},"text":text}}
            ]),
        )
        .await;
    assert_eq!(r["type"], "applied", "{r}");
    // The board keeps the text as typed; the export leaves out what XML cannot hold.
    let (status, _, body) = get(s.addr, "/api/boards/nonchar/export.svg").await;
    assert_eq!(status, 200);
    let svg = String::from_utf8(body).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("the SVG is well-formed XML");
    let lines: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("tspan") || n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    assert!(lines.contains(&"Plan and then done"), "{lines:?}");
    let (status, _, png) = get(s.addr, "/api/boards/nonchar/export.png").await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&png));
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    let (status, _, pdf) = get(s.addr, "/api/boards/nonchar/export.pdf").await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&pdf));
    assert!(pdf.starts_with(b"%PDF-"));
    assert_no_violations(&s);
}
