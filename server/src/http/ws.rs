//! `GET /ws/boards/{id}`: the WebSocket upgrade (AUTH-14's origin check, NET-2's open-file
//! reserve, NET-8's throttle); the socket itself is [`crate::connection`]'s.

use super::ApiError;
use crate::shared::Shared;
use axum::extract::{ConnectInfo, Path, State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use protocol::{BoardId, ErrorCode};
use std::net::SocketAddr;
use std::sync::Arc;

pub async fn ws(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    axum::Extension(net): axum::Extension<Arc<crate::net::Net>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    // A socket's `hello` token is a credential too: an address past its failures waits (NET-8).
    if let Some(wait) = shared.auth.failures.blocked(peer.ip()) {
        return Err(super::edge::throttled(wait));
    }
    // AUTH-14: a browser always sends `Origin` with an upgrade; a page of another site must not
    // open a socket with the visitor's cookie (cross-site WebSocket hijacking).
    if shared.auth.on
        && let Some(origin) = headers.get(header::ORIGIN)
    {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let ok = origin
            .to_str()
            .is_ok_and(|o| shared.auth.origin_allowed(o, host));
        if !ok {
            return Err(ApiError::forbidden("origin not allowed"));
        }
    }
    let cookie = super::caller::session_cookie(&headers);
    let board =
        BoardId::try_from(board_id).map_err(|e| ApiError::invalid(format!("bad board id: {e}")))?;
    if *shared.shutdown.borrow() {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "server shutting down",
        ));
    }
    if !net.upgrades_allowed() {
        // The last descriptors are kept for `/healthz` and `/metrics` (NET-2).
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::LimitExceeded,
            "server at its connection limit; retry later",
        ));
    }
    // Frames up to the configured limit get a `too_large` error; far larger ones close the socket.
    let hard = shared
        .config
        .max_frame_bytes
        .saturating_mul(4)
        .max(64 * 1024);
    // tungstenite's default read buffer is 128 KiB, allocated and zero-filled per socket: 1.3 GB
    // of RSS at 10,000 connections. It also zero-fills the buffer's free space before every read
    // (and reallocates it once a received frame still holds the old one), so its size is paid
    // per frame received: 2 KiB holds several of the few-hundred-byte frames clients send, and a
    // larger frame still arrives whole (the buffer grows to its length, read 2 KiB at a time).
    // The write buffer coalesces what `connection::write_batch` feeds until its flush.
    Ok(upgrade
        .read_buffer_size(2 * 1024)
        .write_buffer_size(8 * 1024)
        .max_message_size(hard)
        .max_frame_size(hard)
        .on_upgrade(move |socket| {
            crate::connection::serve(socket, board, cookie, peer.ip(), shared)
        }))
}
