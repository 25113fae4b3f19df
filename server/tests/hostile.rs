//! Hostile and careless sockets against the real server on port 0: half-sent request headers,
//! too many connections from one address, idle sockets crowding the open-file limit
//! (NET-n in docs/SPEC.md).
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends one request and returns the response's status line.
async fn get(addr: std::net::SocketAddr, path: &str, extra: &str) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: test\r\n{extra}\r\n").as_bytes())
        .await
        .unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let read = async {
        while !out.windows(2).any(|w| w == b"\r\n") {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(STEP, read).await.expect("a response");
    let text = String::from_utf8_lossy(&out);
    text.lines().next().unwrap_or_default().to_owned()
}

const UPGRADE: &str = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";

#[tokio::test]
async fn net_4_a_half_sent_header_is_closed_after_the_header_timeout() {
    let mut cfg = config();
    cfg.http_header_timeout_secs = 1;
    let s = start(cfg).await;
    let mut sock = TcpStream::connect(s.addr).await.unwrap();
    sock.write_all(b"GET /healthz HTTP/1.1\r\nHost: te")
        .await
        .unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 1024];
    // The server closes it (with or without a 408 first): the read ends.
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match sock.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "still open after 5 s");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    // A socket that sends nothing at all is closed the same way.
    let mut silent = TcpStream::connect(s.addr).await.unwrap();
    let r = tokio::time::timeout(Duration::from_secs(5), silent.read(&mut buf)).await;
    assert!(matches!(r, Ok(Ok(0) | Err(_))), "{r:?}");
    assert_eq!(get(s.addr, "/healthz", "").await, "HTTP/1.1 200 OK");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn net_3_an_address_over_its_connection_cap_gets_429() {
    let mut cfg = config();
    cfg.max_conns_per_ip = 3;
    let s = start(cfg).await;
    let idle: Vec<TcpStream> =
        futures_util::future::join_all((0..3).map(|_| TcpStream::connect(s.addr)))
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
    // Let the server accept and count them.
    let deadline = Instant::now() + STEP;
    loop {
        let line = get(s.addr, "/healthz", "").await;
        if line.starts_with("HTTP/1.1 429") {
            break;
        }
        assert!(Instant::now() < deadline, "never refused: {line}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A WebSocket upgrade from it is refused too.
    assert!(
        get(s.addr, "/ws/boards/b1", UPGRADE)
            .await
            .starts_with("HTTP/1.1 429")
    );
    drop(idle);
    // Once they are closed, the address is served again.
    let deadline = Instant::now() + STEP;
    while get(s.addr, "/healthz", "").await != "HTTP/1.1 200 OK" {
        assert!(Instant::now() < deadline, "still refused");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn net_3_an_address_over_its_connection_rate_gets_429() {
    let mut cfg = config();
    cfg.conn_rate_per_ip = 1;
    cfg.conn_burst_per_ip = 3;
    let s = start(cfg).await;
    let mut lines = Vec::new();
    for _ in 0..6 {
        lines.push(get(s.addr, "/healthz", "").await);
    }
    let refused = lines
        .iter()
        .filter(|l| l.starts_with("HTTP/1.1 429"))
        .count();
    assert!(refused >= 2, "{lines:?}");
    assert_eq!(lines[0], "HTTP/1.1 200 OK");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn net_2_health_answers_while_idle_sockets_hold_the_descriptors() {
    let limit = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap().0 as usize;
    let mut cfg = config();
    cfg.http_header_timeout_secs = 60;
    // WebSockets may use 20 descriptors; the rest are kept for plain requests.
    cfg.fd_reserve = limit - 64 - 20;
    let s = start(cfg).await;
    let mut idle = Vec::new();
    for _ in 0..200 {
        idle.push(TcpStream::connect(s.addr).await.unwrap());
    }
    let deadline = Instant::now() + STEP;
    loop {
        let line = get(s.addr, "/ws/boards/b1", UPGRADE).await;
        if line.starts_with("HTTP/1.1 503") {
            break;
        }
        assert!(Instant::now() < deadline, "upgrade not refused: {line}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(get(s.addr, "/healthz", "").await, "HTTP/1.1 200 OK");
    let bearer = format!("Authorization: Bearer {}\r\n", admin_token());
    assert_eq!(get(s.addr, "/metrics", &bearer).await, "HTTP/1.1 200 OK");
    drop(idle);
    let deadline = Instant::now() + STEP;
    loop {
        let line = get(s.addr, "/ws/boards/b1", UPGRADE).await;
        if line.starts_with("HTTP/1.1 101") {
            break;
        }
        assert!(Instant::now() < deadline, "upgrade still refused: {line}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    s.shutdown().await.unwrap();
}

/// Sends `head` (a request's headers, and whatever part of a body follows them) and returns the
/// answer's status line (empty when the server closed without one) and how long it took.
async fn send_head(addr: std::net::SocketAddr, head: &str) -> (String, Duration) {
    let t0 = Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(head.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(STEP, s.read_to_end(&mut out)).await;
    let text = String::from_utf8_lossy(&out);
    (
        text.lines().next().unwrap_or_default().to_owned(),
        t0.elapsed(),
    )
}

/// One trickling request: its headers and a body announced as 400 bytes, then a byte every
/// 100 ms. Returns the status line the server answered with and when it answered or closed.
async fn trickle(addr: std::net::SocketAddr, path: &str, extra: String) -> (String, Duration) {
    let t0 = Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{extra}\
         Content-Length: 400\r\n\r\n{{"
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        tokio::select! {
            r = s.read(&mut buf) => match r {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&buf[..n]),
            },
            _ = tokio::time::sleep(Duration::from_millis(100)) => {
                if s.write_all(b" ").await.is_err() {
                    break;
                }
            }
        }
        if t0.elapsed() > Duration::from_secs(20) {
            break;
        }
    }
    let text = String::from_utf8_lossy(&out);
    (
        text.lines().next().unwrap_or_default().to_owned(),
        t0.elapsed(),
    )
}

#[tokio::test]
async fn net_5_trickling_bodies_on_open_routes_are_cut_within_the_deadline_while_health_answers() {
    let mut cfg = config();
    cfg.http_body_timeout_secs = 1;
    // Sign-in attempts are not throttled here, so every request waits for its body.
    cfg.sign_in_rate_per_min = 1_000_000;
    let s = start(cfg).await;
    let addr = s.addr;
    let origin = format!("Origin: http://{addr}\r\nCookie: board_session=abc\r\n");
    let mut slow = Vec::new();
    for i in 0..60 {
        let (path, extra) = match i % 4 {
            0 => ("/api/login", String::new()),
            1 => ("/api/login/preview", String::new()),
            2 => ("/api/links/0123456789abcdef/session", String::new()),
            _ => ("/api/logout", origin.clone()),
        };
        slow.push(tokio::spawn(trickle(addr, path, extra)));
    }
    // `/healthz` answers all along.
    let probe = tokio::spawn(async move {
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_millis(2500) {
            assert_eq!(get(addr, "/healthz", "").await, "HTTP/1.1 200 OK");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    for t in slow {
        let (line, took) = t.await.unwrap();
        assert!(line.starts_with("HTTP/1.1 408"), "{line:?}");
        // The deadline is 1 s after the headers; a generous margin for a loaded machine.
        assert!(took < Duration::from_secs(4), "cut after {took:?}");
    }
    probe.await.unwrap();
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn net_5_a_body_over_the_small_limit_is_refused_before_it_is_read() {
    let s = start(config()).await;
    for path in ["/api/login", "/api/links/0123456789abcdef/session"] {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: 2000000\r\n\r\n{{\"code\":",
            s.addr
        );
        // Only the headers and a few bytes are sent: the answer cannot wait for the rest.
        let (line, took) = send_head(s.addr, &head).await;
        assert!(line.starts_with("HTTP/1.1 413"), "{path}: {line:?}");
        assert!(took < STEP, "{path}: {took:?}");
    }
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn net_6_an_import_below_editor_is_refused_before_its_body_is_read() {
    let mut cfg = config();
    cfg.http_body_timeout_secs = 1;
    let s = start(cfg).await;
    let made = common::http::admin(
        s.addr,
        "POST",
        "/api/boards",
        Some(r#"{"title":"importme"}"#),
    )
    .await;
    assert_eq!(made.status, 201, "{:?}", made.json);
    let id = made.json["board"].as_str().unwrap().to_owned();
    let head = |token: &str| {
        format!(
            "POST /api/boards/{id}/import HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nContent-Length: 16000000\r\n\r\n{{",
            s.addr
        )
    };
    // A viewer is refused at once, with 16 MB announced and none of it sent.
    let viewer = common::http::mint(s.addr, "vera", &id, "viewer").await;
    let (line, took) = send_head(s.addr, &head(&viewer)).await;
    assert!(line.starts_with("HTTP/1.1 403"), "{line:?}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    // An editor's import is read: it waits for the body, up to its deadline (6 × 1 s).
    let editor = common::http::mint(s.addr, "eddie", &id, "editor").await;
    let (line, took) = send_head(s.addr, &head(&editor)).await;
    assert!(
        line.is_empty() || line.starts_with("HTTP/1.1 408"),
        "{line:?} after {took:?}"
    );
    assert!(took >= Duration::from_secs(4), "{took:?}");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn net_8_failed_credentials_are_throttled_per_address() {
    let mut cfg = config();
    cfg.auth_failures_per_min = 5;
    let s = start(cfg).await;
    let bad = [("Authorization", "Bearer not-a-token")];
    for _ in 0..5 {
        let a = common::http::request(s.addr, "GET", "/api/boards", &bad, None).await;
        assert_eq!(a.status, 401);
    }
    // Past the limit even the right credential waits out the minute, over HTTP and sockets.
    let a = common::http::admin(s.addr, "GET", "/api/boards", None).await;
    assert_eq!(a.status, 429, "{:?}", a.json);
    assert_eq!(a.json["error"]["code"], "rate_limited");
    let wait: u64 = a.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    assert!(
        get(s.addr, "/ws/boards/b1", UPGRADE)
            .await
            .starts_with("HTTP/1.1 429")
    );
    // A request without a credential is not a guess: it still gets its answer.
    assert_eq!(get(s.addr, "/healthz", "").await, "HTTP/1.1 200 OK");
    s.shutdown().await.unwrap();

    // Tokens guessed in `hello` count the same.
    let mut cfg = config();
    cfg.auth_failures_per_min = 3;
    let s = start(cfg).await;
    for _ in 0..3 {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws/boards/b1", s.addr))
            .await
            .unwrap();
        use futures_util::{SinkExt, StreamExt};
        let hello = serde_json::json!({"type": "hello", "user": {"id": "u1", "name": "u"}, "token": "guess"});
        ws.send(tokio_tungstenite::tungstenite::Message::Text(
            hello.to_string().into(),
        ))
        .await
        .unwrap();
        while let Some(Ok(m)) = ws.next().await {
            if m.is_close() {
                break;
            }
        }
    }
    assert!(
        get(s.addr, "/ws/boards/b1", UPGRADE)
            .await
            .starts_with("HTTP/1.1 429")
    );
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn net_9_answers_carry_nosniff_json_is_not_stored_and_pages_connect_only_to_their_origin() {
    let s = start(config()).await;
    let a = common::http::admin(s.addr, "GET", "/api/boards", None).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.header("x-content-type-options").unwrap(), "nosniff");
    assert_eq!(a.header("cache-control").unwrap(), "no-store");
    let a = common::http::request(s.addr, "GET", "/api/boards", &[], None).await;
    assert_eq!(a.status, 401);
    assert_eq!(a.header("cache-control").unwrap(), "no-store");
    let a = common::http::request(s.addr, "GET", "/", &[], None).await;
    let csp = a.header("content-security-policy").unwrap();
    assert!(csp.contains("connect-src 'self';"), "{csp}");
    assert!(!csp.contains("ws:") && !csp.contains("wss:"), "{csp}");
    assert_eq!(a.header("x-content-type-options").unwrap(), "nosniff");
    s.shutdown().await.unwrap();
}
