//! The browser client as the real server (port 0) serves it: pages, static files, content types,
//! caching, and 404s. Rules `UI-SRV-*` (see docs/CLIENT.md).
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use std::collections::HashMap;
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Reply {
    status: u16,
    headers: HashMap<String, String>,
    body: String,
}

/// One HTTP/1.1 GET (Connection: close) with extra request headers.
async fn get(addr: SocketAddr, path: &str, extra: &[(&str, &str)]) -> Reply {
    let fut = async {
        let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut req = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n");
        for (k, v) in extra {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        sock.write_all(req.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        sock.read_to_end(&mut out).await.unwrap();
        let text = String::from_utf8_lossy(&out).to_string();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {text:?}"));
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Reply {
            status,
            headers,
            body: body.to_string(),
        }
    };
    tokio::time::timeout(STEP, fut)
        .await
        .expect("HTTP request timed out")
}

#[tokio::test]
async fn ui_srv_1_pages_are_html() {
    let s = start(config()).await;
    let index = get(s.addr, "/", &[]).await;
    assert_eq!(index.status, 200);
    assert_eq!(index.headers["content-type"], "text/html; charset=utf-8");
    assert!(index.body.contains("/static/js/index.js"), "{}", index.body);
    assert!(index.headers.contains_key("content-security-policy"));

    for id in ["x", "team-retro_2", &"a".repeat(64)] {
        let board = get(s.addr, &format!("/b/{id}"), &[]).await;
        assert_eq!(board.status, 200, "{id}");
        assert_eq!(board.headers["content-type"], "text/html; charset=utf-8");
        assert!(board.body.contains("/static/js/board.js"));
    }
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ui_srv_2_static_files_have_their_types() {
    let s = start(config()).await;
    let js = get(s.addr, "/static/js/board.js", &[]).await;
    assert_eq!(js.status, 200);
    assert_eq!(js.headers["content-type"], "text/javascript; charset=utf-8");
    assert!(js.body.contains("import"));
    assert_eq!(js.headers["x-content-type-options"], "nosniff");
    let css = get(s.addr, "/static/css/app.css", &[]).await;
    assert_eq!(css.status, 200);
    assert_eq!(css.headers["content-type"], "text/css; charset=utf-8");
    let icon = get(s.addr, "/static/favicon.svg", &[]).await;
    assert_eq!(icon.headers["content-type"], "image/svg+xml; charset=utf-8");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ui_srv_3_etag_revalidation() {
    let s = start(config()).await;
    let first = get(s.addr, "/static/js/board.js", &[]).await;
    assert_eq!(first.headers["cache-control"], "no-cache");
    let etag = first.headers["etag"].clone();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    let again = get(s.addr, "/static/js/board.js", &[("If-None-Match", &etag)]).await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    let other = get(
        s.addr,
        "/static/js/board.js",
        &[("If-None-Match", "\"nope\"")],
    )
    .await;
    assert_eq!(other.status, 200);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ui_srv_4_bad_ids_and_missing_files_are_404() {
    let s = start(config()).await;
    for path in [
        "/b/has%20space",
        "/b/dot.dot",
        &format!("/b/{}", "a".repeat(65)),
        "/static/nope.js",
        "/static/../Cargo.toml",
        "/static/%2e%2e/Cargo.toml",
        "/static/index.html",
    ] {
        let r = get(s.addr, path, &[]).await;
        assert_eq!(r.status, 404, "{path}");
    }
    // The API and health routes are untouched.
    assert_eq!(get(s.addr, "/healthz", &[]).await.status, 200);
    s.shutdown().await.unwrap();
}
