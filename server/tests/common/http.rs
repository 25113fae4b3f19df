//! HTTP/1.1 requests to the test server (one connection each), and getting tokens the way an
//! app does: `POST /api/tokens` with the admin bearer.

use super::{STEP, admin_token};
use serde_json::{Value, json};
use std::net::SocketAddr;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What a request got back.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    /// Header lines, lowercase names.
    pub headers: Vec<(String, String)>,
    pub json: Value,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The session cookie's `name=value` from `Set-Cookie`, if any.
    pub fn cookie(&self) -> Option<String> {
        let v = self.header("set-cookie")?;
        Some(v.split(';').next()?.trim().to_owned())
    }
}

/// One request with extra `headers` (Host, Connection and Content-Length are added; a body
/// gets `Content-Type: application/json` unless `headers` name one).
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Answer {
    let body = body.unwrap_or("");
    let typed = headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
    let mut all: Vec<(&str, &str)> = Vec::new();
    if !body.is_empty() && !typed {
        all.push(("Content-Type", "application/json"));
    }
    all.extend_from_slice(headers);
    send(addr, method, path, &all, body.as_bytes()).await
}

/// A request whose body is bytes (a picture), sent with exactly these `headers`.
pub async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    let fut = async {
        let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let mut bytes = req.into_bytes();
        bytes.extend_from_slice(body);
        let _ = sock.write_all(&bytes).await;
        let mut out = Vec::new();
        let _ = sock.read_to_end(&mut out).await;
        let text = String::from_utf8_lossy(&out).to_string();
        let status: u16 = text
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {text:?}"));
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let headers = head
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let json = if body.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(body).unwrap_or(Value::String(body.to_owned()))
        };
        Answer {
            status,
            headers,
            json,
        }
    };
    tokio::time::timeout(STEP, fut)
        .await
        .expect("HTTP request timed out")
}

/// A GET whose body may be binary (exports): status, lowercase headers, body bytes; the request
/// may take up to `within`.
pub async fn get_bytes(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    within: std::time::Duration,
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let fut = async {
        let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        sock.write_all(req.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        sock.read_to_end(&mut out).await.unwrap();
        let end = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8_lossy(&out[..end]).to_string();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        let headers = head
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        (status, headers, out[end + 4..].to_vec())
    };
    tokio::time::timeout(within, fut)
        .await
        .expect("HTTP request timed out")
}

/// A request with the admin bearer.
pub async fn admin(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Answer {
    let bearer = format!("Bearer {}", admin_token());
    request(addr, method, path, &[("Authorization", &bearer)], body).await
}

/// A board token for `user` with `role` on `board` (an id or `*`), minted by the server.
pub async fn mint(addr: SocketAddr, user: &str, board: &str, role: &str) -> String {
    let body = json!({"user": user, "name": user, "board": board, "role": role}).to_string();
    let a = admin(addr, "POST", "/api/tokens", Some(&body)).await;
    assert_eq!(a.status, 200, "minting a token: {:?}", a.json);
    a.json["token"].as_str().unwrap().to_owned()
}
