//! Board tokens for a server with access control on: `--token` is sent by every client (whose
//! user id is then the token's `sub`), `--admin-token` gets each client a token of its own from
//! `POST /api/tokens` before the run, as an app that embeds boards would.

use crate::cli::RunConfig;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Each client's token (by index) and, with `--token`, the one user id every client uses.
pub async fn tokens(
    cfg: &RunConfig,
    n: usize,
    user_of: impl Fn(usize) -> String,
) -> anyhow::Result<(Vec<Option<String>>, Option<String>)> {
    if let Some(t) = &cfg.token {
        let sub = token_sub(t).ok_or_else(|| anyhow::anyhow!("--token is not a JWT with a sub"))?;
        return Ok((vec![Some(t.clone()); n], Some(sub)));
    }
    let Some(admin) = &cfg.admin_token else {
        return Ok((vec![None; n], None));
    };
    let host = cfg
        .url
        .strip_prefix("ws://")
        .ok_or_else(|| anyhow::anyhow!("--admin-token needs a ws:// --url"))?
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    let mut out = Vec::with_capacity(n);
    // A few requests at a time: minting is quick, and the server is what is measured later.
    for chunk in (0..n).collect::<Vec<_>>().chunks(32) {
        let jobs = chunk.iter().map(|&i| mint(&host, admin, user_of(i)));
        for r in futures_util::future::join_all(jobs).await {
            out.push(Some(r?));
        }
    }
    Ok((out, None))
}

/// `POST /api/tokens` for `user` (board `*`, role editor, a day).
async fn mint(host: &str, admin: &str, user: String) -> anyhow::Result<String> {
    let body = serde_json::json!({"user": user, "name": user, "board": "*", "role": "editor",
        "ttl_secs": 86_400})
    .to_string();
    let req = format!(
        "POST /api/tokens HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nAuthorization: Bearer \
         {admin}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let exchange = async {
        let mut sock = tokio::net::TcpStream::connect(host).await?;
        sock.write_all(req.as_bytes()).await?;
        let mut out = Vec::new();
        sock.read_to_end(&mut out).await?;
        anyhow::Ok(String::from_utf8_lossy(&out).into_owned())
    };
    let text = tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .map_err(|_| anyhow::anyhow!("minting a token timed out"))??;
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    if !head.starts_with("HTTP/1.1 200") {
        anyhow::bail!(
            "minting a token: {} {body}",
            head.lines().next().unwrap_or("")
        );
    }
    let v: serde_json::Value = serde_json::from_str(body)?;
    v["token"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| anyhow::anyhow!("no token in {body}"))
}

/// The `sub` claim of a JWT (read, not verified: the server verifies).
pub fn token_sub(token: &str) -> Option<String> {
    let payload = token.split('.').nth(1)?;
    let bytes = base64url(payload)?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    v["sub"].as_str().map(str::to_owned)
}

/// Decodes unpadded base64url.
fn base64url(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_sub_of_a_jwt() {
        // {"alg":"HS256"} . {"sub":"lt-user","aud":"board"} . signature
        let t = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJsdC11c2VyIiwiYXVkIjoiYm9hcmQifQ.c2ln";
        assert_eq!(token_sub(t).as_deref(), Some("lt-user"));
        assert_eq!(token_sub("nope"), None);
    }
}
