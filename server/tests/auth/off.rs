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
