//! Access control end to end (docs/SPEC.md AUTH-n, docs/SECURITY.md): the real server on port 0,
//! real WebSockets and HTTP. Split by concern: `tokens` (credentials, forgeries, impersonation),
//! `roles` (every role × every client message), `http` (the authorization matrix, sign-in,
//! cookies), `origin` (the Origin matrix), `links` (share links, members, live revocation and
//! downgrade), `prehello` (limits before authentication), `off` (`--auth off`), `store` (the
//! auth store contract on SQLite, memory and PostgreSQL).
#![allow(clippy::unwrap_used)]

#[path = "../common/mod.rs"]
mod common;

mod expiry;
mod http;
mod links;
mod off;
mod origin;
mod prehello;
mod quota;
mod roles;
mod store;
mod tokens;

use common::*;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// The secret test servers sign tokens with, so tests can mint tokens as an app would.
pub const SECRET: &str = "test-secret-of-the-auth-tests-0123456789";

pub fn auth_config() -> server::Config {
    let mut c = config();
    c.token_secret = Some(SECRET.into());
    c
}

/// A token signed with `key` from raw claims (forgeries included).
pub fn sign(claims: &Value, key: &str) -> String {
    jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        claims,
        &jsonwebtoken::EncodingKey::from_secret(key.as_bytes()),
    )
    .unwrap()
}

pub fn unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Claims of a valid token for `user` on `board` with `role`.
pub fn claims(user: &str, board: &str, role: &str) -> Value {
    json!({"sub": user, "name": user, "board": board, "role": role, "iat": unix(),
        "exp": unix() + 600, "aud": "board"})
}

/// What a socket got: its messages in order and the close code, if it closed.
#[derive(Debug)]
pub struct Seen {
    pub messages: Vec<Value>,
    pub close: Option<u16>,
    /// The HTTP status when the upgrade itself was refused.
    pub refused: Option<u16>,
}

/// Opens a socket with extra headers, sends `frames`, and collects what comes back until the
/// close (or `wait` of silence).
pub async fn exchange(
    addr: SocketAddr,
    board: &str,
    headers: &[(&str, &str)],
    frames: Vec<Message>,
    wait: Duration,
) -> Seen {
    let mut req = format!("ws://{addr}/ws/boards/{board}")
        .into_client_request()
        .unwrap();
    for (k, v) in headers {
        req.headers_mut().insert(
            tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
            v.parse().unwrap(),
        );
    }
    let mut ws = match tokio_tungstenite::connect_async(req).await {
        Ok((ws, _)) => ws,
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => {
            return Seen {
                messages: vec![],
                close: None,
                refused: Some(r.status().as_u16()),
            };
        }
        Err(e) => panic!("connect: {e}"),
    };
    for f in frames {
        if ws.send(f).await.is_err() {
            break;
        }
    }
    let mut seen = Seen {
        messages: vec![],
        close: None,
        refused: None,
    };
    while let Ok(Some(m)) = tokio::time::timeout(wait, ws.next()).await {
        match m {
            Ok(Message::Text(t)) => seen
                .messages
                .push(serde_json::from_str(t.as_str()).unwrap()),
            Ok(Message::Close(f)) => {
                seen.close = f.map(|f| u16::from(f.code));
                break;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    seen
}

/// A hello frame for `user` with an optional token.
pub fn hello(user: &str, token: Option<&str>) -> Message {
    let mut h = json!({"type": "hello", "user": {"id": user, "name": user}});
    if let Some(t) = token {
        h["token"] = json!(t);
    }
    Message::text(h.to_string())
}

/// Signs in through a login link for the owner (None) or a member; returns the cookie
/// (`board_session=…`) and the user.
pub async fn sign_in(addr: SocketAddr, name: Option<&str>) -> (String, Value) {
    let body = match name {
        Some(n) => json!({"name": n}),
        None => json!({}),
    };
    let a = common::http::admin(addr, "POST", "/api/login-links", Some(&body.to_string())).await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    let url = a.json["url"].as_str().unwrap();
    let code = url.strip_prefix("/login#").unwrap();
    let origin = format!("http://{addr}");
    let a = common::http::request(
        addr,
        "POST",
        "/api/login",
        &[("Origin", &origin)],
        Some(&json!({"code": code}).to_string()),
    )
    .await;
    assert_eq!(a.status, 200, "{:?}", a.json);
    (a.cookie().unwrap(), a.json["user"].clone())
}

/// A cookie-authenticated request from the server's own origin.
pub async fn with_cookie(
    addr: SocketAddr,
    cookie: &str,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> common::http::Answer {
    let origin = format!("http://{addr}");
    common::http::request(
        addr,
        method,
        path,
        &[("Cookie", cookie), ("Origin", &origin)],
        body,
    )
    .await
}

/// A request with a bearer token.
pub async fn with_bearer(
    addr: SocketAddr,
    token: &str,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> common::http::Answer {
    let b = format!("Bearer {token}");
    common::http::request(addr, method, path, &[("Authorization", &b)], body).await
}

/// Creates a board as the admin; returns its id.
pub async fn new_board(addr: SocketAddr, title: &str) -> String {
    let a = common::http::admin(
        addr,
        "POST",
        "/api/boards",
        Some(&json!({"title": title}).to_string()),
    )
    .await;
    assert_eq!(a.status, 201, "{:?}", a.json);
    a.json["board"].as_str().unwrap().to_owned()
}
