//! AUTH-14: the WebSocket upgrade's `Origin` must be the server's own or an allowed one,
//! matched exactly on scheme, host and port.

use super::*;

#[tokio::test]
async fn auth_14_socket_origin_matrix() {
    let mut cfg = auth_config();
    cfg.allowed_origins = vec!["https://example.com".into(), "http://localhost:3000".into()];
    let s = start(cfg).await;
    let token = common::http::mint(s.addr, "ann", "b1", "editor").await;
    let own = format!("http://{}", s.addr);
    let wait = Duration::from_millis(500);
    for origin in [own.as_str(), "https://example.com", "http://localhost:3000"] {
        let seen = exchange(
            s.addr,
            "b1",
            &[("Origin", origin)],
            vec![hello("ann", Some(&token))],
            wait,
        )
        .await;
        assert_eq!(seen.refused, None, "{origin}");
        assert_eq!(seen.messages[0]["type"], "welcome", "{origin}: {seen:?}");
    }
    for origin in [
        "https://evil-example.com",
        "https://example.com.evil.com",
        "http://example.com",
        "https://example.com:8443",
        "http://localhost:3001",
        "https://localhost:3000",
        "null",
        &format!("https://{}", s.addr),
    ] {
        let seen = exchange(
            s.addr,
            "b1",
            &[("Origin", origin)],
            vec![hello("ann", Some(&token))],
            wait,
        )
        .await;
        assert_eq!(seen.refused, Some(403), "{origin}: {seen:?}");
    }
    // Without `Origin` (not a browser), the token decides.
    let seen = exchange(s.addr, "b1", &[], vec![hello("ann", Some(&token))], wait).await;
    assert_eq!(seen.messages[0]["type"], "welcome");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn auth_14_public_url_replaces_the_host_as_the_own_origin() {
    let mut cfg = auth_config();
    cfg.public_url = Some("https://boards.example.com".into());
    let s = start(cfg).await;
    let token = common::http::mint(s.addr, "ann", "b1", "editor").await;
    let wait = Duration::from_millis(500);
    let seen = exchange(
        s.addr,
        "b1",
        &[("Origin", "https://boards.example.com")],
        vec![hello("ann", Some(&token))],
        wait,
    )
    .await;
    assert_eq!(seen.messages[0]["type"], "welcome", "{seen:?}");
    let own_host = format!("http://{}", s.addr);
    let seen = exchange(
        s.addr,
        "b1",
        &[("Origin", &own_host)],
        vec![hello("ann", Some(&token))],
        wait,
    )
    .await;
    assert_eq!(seen.refused, Some(403));
    s.shutdown().await.unwrap();
}
