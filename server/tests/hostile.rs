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
