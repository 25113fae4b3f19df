//! Behind a reverse proxy (NET-10): the client address of per-address limits comes from
//! `X-Forwarded-For` only when the peer is a trusted proxy.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use std::net::SocketAddr;

/// A request with a bad bearer token, forwarded "for" `xff` (None: no header).
async fn bad_credential(addr: SocketAddr, xff: Option<&str>) -> u16 {
    let mut headers = vec![("Authorization", "Bearer not-a-token")];
    if let Some(x) = xff {
        headers.push(("X-Forwarded-For", x));
    }
    common::http::request(addr, "GET", "/api/boards", &headers, None)
        .await
        .status
}

/// The admin's request (a good credential), forwarded "for" `xff`.
async fn good_credential(addr: SocketAddr, xff: &str) -> u16 {
    let bearer = format!("Bearer {}", admin_token());
    let headers = [("Authorization", bearer.as_str()), ("X-Forwarded-For", xff)];
    common::http::request(addr, "GET", "/api/boards", &headers, None)
        .await
        .status
}

/// NET-10: with 127.0.0.1 trusted, failed credentials are counted per forwarded address: one
/// address past its limit waits, another forwarded address (same proxy, same peer) does not;
/// the right-most untrusted entry is the client, whatever a client wrote to its left.
#[tokio::test]
async fn net_10_a_trusted_proxy_s_forwarded_address_is_the_client() {
    let mut cfg = config();
    cfg.auth_failures_per_min = 3;
    cfg.trusted_proxies = vec!["127.0.0.1".parse().unwrap()];
    let s = start(cfg).await;
    for _ in 0..3 {
        assert_eq!(bad_credential(s.addr, Some("203.0.113.7")).await, 401);
    }
    // 203.0.113.7 is past its limit, even with the right credential.
    assert_eq!(good_credential(s.addr, "203.0.113.7").await, 429);
    // A spoofed left-hand entry does not help: the proxy appended the real address.
    assert_eq!(
        good_credential(s.addr, "198.51.100.1, 203.0.113.7").await,
        429
    );
    // Another client behind the same proxy is not throttled.
    assert_eq!(good_credential(s.addr, "198.51.100.9").await, 200);
    assert_eq!(bad_credential(s.addr, Some("198.51.100.9")).await, 401);
    // A trusted hop to the right is skipped: the client is the address before it.
    assert_eq!(
        good_credential(s.addr, "198.51.100.9, 127.0.0.1").await,
        200
    );
    assert_eq!(good_credential(s.addr, "203.0.113.7, 127.0.0.1").await, 429);
    // Without the header the proxy's own address is the client, and it failed nothing.
    let bearer = format!("Bearer {}", admin_token());
    let a = common::http::request(
        s.addr,
        "GET",
        "/api/boards",
        &[("Authorization", bearer.as_str())],
        None,
    )
    .await;
    assert_eq!(a.status, 200);
    s.shutdown().await.unwrap();
}

/// NET-10: with nothing trusted (the default), `X-Forwarded-For` is ignored: every failure
/// counts against the peer, whatever address the header names.
#[tokio::test]
async fn net_10_without_trusted_proxies_the_header_is_ignored() {
    let mut cfg = config();
    cfg.auth_failures_per_min = 3;
    let s = start(cfg).await;
    for x in ["203.0.113.1", "203.0.113.2", "203.0.113.3"] {
        assert_eq!(bad_credential(s.addr, Some(x)).await, 401);
    }
    // The peer (127.0.0.1) is past its limit, whatever it claims to forward.
    assert_eq!(good_credential(s.addr, "198.51.100.50").await, 429);
    s.shutdown().await.unwrap();

    // A proxy that is trusted but not this peer: the header is still ignored.
    let mut cfg = config();
    cfg.auth_failures_per_min = 3;
    cfg.trusted_proxies = vec!["10.0.0.0/8".parse().unwrap()];
    let s = start(cfg).await;
    for x in ["203.0.113.1", "203.0.113.2", "203.0.113.3"] {
        assert_eq!(bad_credential(s.addr, Some(x)).await, 401);
    }
    assert_eq!(good_credential(s.addr, "198.51.100.50").await, 429);
    s.shutdown().await.unwrap();
}
