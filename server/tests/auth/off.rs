//! AUTH-16: `--auth off` serves as before access control, on loopback only.

use super::*;

#[tokio::test]
async fn auth_16_auth_off_refuses_a_non_loopback_listen() {
    let mut cfg = config();
    cfg.auth = server::config::AuthMode::Off;
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
    let r = server::spawn(listener, cfg).await;
    let Err(e) = r else {
        panic!("--auth off must refuse 0.0.0.0");
    };
    assert!(e.to_string().contains("loopback"), "{e}");
}

#[tokio::test]
async fn auth_16_auth_off_keeps_the_open_behaviour_on_loopback() {
    let mut cfg = config();
    cfg.auth = server::config::AuthMode::Off;
    cfg.admin_token = None;
    let s = start(cfg).await;
    // Any hello user id, no token, a board created on join.
    let mut c = Client::join_with(s.addr, "open", "anyone", None).await;
    assert_eq!(c.welcome["role"], "owner");
    assert_eq!(
        c.commit("c1", json!([note("n", 0.0, 0.0)])).await["type"],
        "applied"
    );
    let a = common::http::request(s.addr, "GET", "/api/me", &[], None).await;
    assert_eq!(a.json, json!({"auth": "off", "user": null}));
    let a = common::http::request(s.addr, "GET", "/api/boards", &[], None).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.json["boards"][0]["id"], "open");
    s.shutdown().await.unwrap();
}

/// Sends a raw request and returns its status code.
async fn status_of(addr: std::net::SocketAddr, req: String) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(STEP, s.read_to_end(&mut out)).await;
    let text = String::from_utf8_lossy(&out);
    text.split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn net_7_auth_off_answers_only_loopback_hosts_and_its_own_origin() {
    let mut cfg = config();
    cfg.auth = server::config::AuthMode::Off;
    cfg.admin_token = None;
    let s = start(cfg).await;
    let addr = s.addr;
    let port = addr.port();
    let get = |host: &str| {
        format!("GET /api/boards HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
    };
    assert_eq!(status_of(addr, get(&addr.to_string())).await, 200);
    assert_eq!(
        status_of(addr, get(&format!("localhost:{port}"))).await,
        200
    );
    // DNS rebinding: a foreign name that resolves to 127.0.0.1.
    assert_eq!(
        status_of(addr, get(&format!("evil.example:{port}"))).await,
        403
    );
    assert_eq!(status_of(addr, get("")).await, 403);

    // A page of another site may not create, delete or open a socket, even as a "simple" request.
    let post = |origin: &str| {
        format!(
            "POST /api/boards HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\n\
             Content-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
        )
    };
    assert_eq!(status_of(addr, post("http://evil.example")).await, 403);
    assert_eq!(
        status_of(addr, post(&format!("http://localhost:{}", port + 1))).await,
        403
    );
    let del = format!(
        "DELETE /api/boards/open HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://evil.example\r\n\
         Connection: close\r\n\r\n"
    );
    assert_eq!(status_of(addr, del).await, 403);
    let upgrade = |origin: &str| {
        format!(
            "GET /ws/boards/open HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\n\
             Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        )
    };
    assert_eq!(status_of(addr, upgrade("http://evil.example")).await, 403);
    assert_eq!(
        status_of(addr, upgrade(&format!("http://{addr}"))).await,
        101
    );
    // The page's own origin and clients without an Origin (scripts, the CLI) go through.
    let own = format!(
        "POST /api/boards HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\n\
         Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{{}}"
    );
    assert_eq!(status_of(addr, own).await, 201);
    let a = common::http::request(addr, "POST", "/api/boards", &[], Some("{}")).await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    s.shutdown().await.unwrap();
}
