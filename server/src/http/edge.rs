//! The edge of every HTTP request (NET-5..NET-9 in docs/SPEC.md, docs/SECURITY.md): how much
//! of a body a route reads and for how long, what a server with `--auth off` lets in, the
//! throttle on failed credentials (counted in [`crate::auth::failures`]), and the headers every
//! answer carries.
use super::ApiError;
use crate::shared::Shared;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use protocol::ErrorCode;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// The body of a route reachable without a credential (sign-in, opening a link, sign-out).
pub const SMALL_BODY: usize = 4 * 1024;
/// The JSON body of every other route but imports.
pub const JSON_BODY: usize = 64 * 1024;

/// How much of a body a route reads, and how long it waits for it.
#[derive(Debug, Clone, Copy)]
pub struct BodyLimit {
    pub bytes: usize,
    pub within: Duration,
}

impl BodyLimit {
    /// A route reachable without a credential (NET-5).
    pub fn small(shared: &Shared) -> BodyLimit {
        BodyLimit {
            bytes: SMALL_BODY,
            within: shared.config.http_body_timeout(),
        }
    }

    /// A JSON body after its caller's role was checked (NET-6).
    pub fn json(shared: &Shared) -> BodyLimit {
        BodyLimit {
            bytes: JSON_BODY,
            within: shared.config.http_body_timeout(),
        }
    }
}

/// Whether a request announces a body (a length above zero, or chunks).
pub fn has_body(headers: &HeaderMap) -> bool {
    headers.contains_key(header::TRANSFER_ENCODING)
        || content_length(headers).is_some_and(|n| n > 0)
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// 413 `too_large`; the connection closes: the rest of a body that was not read must not be
/// taken for the next request.
fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::TooLarge,
        format!("this request's body is at most {limit} bytes"),
    )
    .closing()
}

/// Reads a request's body within `limit` (NET-5, NET-6): a declared length above it is refused
/// before a byte is read, and a body that is larger or slower than allowed is cut off (413
/// `too_large`, 408 `invalid`), closing the connection.
pub async fn read_body(
    headers: &HeaderMap,
    body: Body,
    limit: BodyLimit,
) -> Result<Bytes, ApiError> {
    if content_length(headers).is_some_and(|n| n > limit.bytes as u64) {
        return Err(too_large(limit.bytes));
    }
    let read = axum::body::to_bytes(body, limit.bytes);
    match tokio::time::timeout(limit.within, read).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) if over_length(&e) => Err(too_large(limit.bytes)),
        Ok(Err(_)) => Err(ApiError::invalid("the request's body could not be read").closing()),
        Err(_) => Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            ErrorCode::Invalid,
            format!(
                "the request's body did not arrive within {} s",
                limit.within.as_secs_f64()
            ),
        )
        .closing()),
    }
}

fn over_length(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// The 429 of an address whose credential attempts are throttled.
pub fn throttled(wait_secs: u64) -> ApiError {
    ApiError::rate_limited("too many failed credentials from this address; wait a minute")
        .retry_after(wait_secs)
}

/// The layer every route sits behind: the `--auth off` checks (NET-7), the throttle on failed
/// credentials (NET-8), and the headers of every answer.
pub async fn guard(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if !shared.auth.on
        && let Err(e) = local_only(&shared, req.method(), req.headers())
    {
        return e.into_response();
    }
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let credential = req.headers().contains_key(header::AUTHORIZATION);
    if credential && let Some(wait) = peer.and_then(|ip| shared.auth.failures.blocked(ip)) {
        return with_headers(throttled(wait).into_response());
    }
    let r = next.run(req).await;
    if credential
        && r.status() == StatusCode::UNAUTHORIZED
        && let Some(ip) = peer
    {
        shared.auth.failures.failed(ip);
    }
    with_headers(r)
}

/// `nosniff` on every answer; JSON answers are never cached (they hold what a credential may see).
fn with_headers(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let json = h
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if json {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    r
}

/// NET-7: without access control the server answers only requests addressed to a loopback name
/// (DNS rebinding points a foreign name at 127.0.0.1) and, from a browser, only pages of its own
/// origin (another site's page may not read, edit or open a socket).
fn local_only(shared: &Shared, method: &Method, headers: &HeaderMap) -> Result<(), ApiError> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if !host.is_some_and(loopback_host) {
        return Err(ApiError::forbidden(
            "--auth off answers only requests to a loopback address (Host)",
        ));
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let ok = origin
        .to_str()
        .is_ok_and(|o| shared.auth.origin_allowed(o, host));
    if ok || (method == Method::GET || method == Method::HEAD) && !upgrade(headers) {
        // A cross-site GET cannot read the answer (no CORS headers are ever sent).
        return Ok(());
    }
    Err(ApiError::forbidden("origin not allowed"))
}

fn upgrade(headers: &HeaderMap) -> bool {
    headers.contains_key(header::UPGRADE)
}

/// `localhost`, a name under `.localhost`, or a loopback address, with any port.
fn loopback_host(host: &str) -> bool {
    let Some(o) = crate::auth::origin::Origin::from_host("http", host) else {
        return false;
    };
    let name = o.host.trim_start_matches('[').trim_end_matches(']');
    name == "localhost"
        || name.ends_with(".localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_7_loopback_hosts() {
        for ok in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:3000",
            "[::1]:80",
            "app.localhost",
        ] {
            assert!(loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "127.0.0.1.evil.example",
            "localhost.evil.example",
            "10.0.0.1:8080",
            "0.0.0.0",
            "",
        ] {
            assert!(!loopback_host(bad), "{bad}");
        }
    }
}
