//! Comment threads over HTTP (COMMENT-7) and the caller's notifications (COMMENT-8). Every
//! change goes through the board (`BoardHandle::comment`, local or on its owner in cluster mode)
//! and is broadcast like the socket's; reads come from the store, which holds every durable
//! thread.
//!
//! - `GET /api/boards/{id}/threads?status=open|resolved|all` (viewer): `{"board", "threads"}`.
//! - `POST /api/boards/{id}/threads` `{"anchor", "body"}` (commenter) → 201.
//! - `POST /api/boards/{id}/threads/{t}/comments` `{"body"}` (commenter) → 201.
//! - `PATCH /api/boards/{id}/comments/{c}` `{"body"}` (its author), `DELETE` (author or owner).
//! - `POST /api/boards/{id}/threads/{t}/resolve` and `/reopen` (commenter).
//!   Each answers `{"thread", "cseq", "comment"}`.
//! - `GET /api/me/notifications`: `{"notifications": [{board, thread, reason, at_ms, read_at}]}`.
//! - `POST /api/me/notifications/read` `{"threads": [ids]}`, or `{}` for all.

use super::ApiError;
use super::caller::{board_read, board_write, json_body, signed_in, signed_in_write};
use crate::auth::{Auth, Principal};
use crate::board::{CommentDone, CommentRequest};
use crate::shared::Shared;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use protocol::{Anchor, CommentOp, ErrorBody, ErrorCode, Role, UserId};
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;

pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/boards/{board_id}/threads", get(list).post(new_thread))
        .route(
            "/api/boards/{board_id}/threads/{thread}/comments",
            post(reply),
        )
        .route(
            "/api/boards/{board_id}/threads/{thread}/resolve",
            post(resolve),
        )
        .route(
            "/api/boards/{board_id}/threads/{thread}/reopen",
            post(reopen),
        )
        .route(
            "/api/boards/{board_id}/comments/{comment}",
            patch(edit).delete(delete),
        )
        .route("/api/me/notifications", get(notifications))
        .route("/api/me/notifications/read", post(mark_read))
}

#[derive(Deserialize)]
struct StatusQuery {
    #[serde(default)]
    status: Option<String>,
}

async fn list(
    Path(board_id): Path<String>,
    Query(q): Query<StatusQuery>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (id, _) = board_read(&shared, &headers, &board_id).await?;
    let want: fn(bool) -> bool = match q.status.as_deref().unwrap_or("open") {
        "open" => |open| open,
        "resolved" => |open| !open,
        "all" => |_| true,
        _ => return Err(ApiError::invalid("`status` is open, resolved or all")),
    };
    let mut threads = shared.store.load_threads(&id).await?;
    threads.retain(|t| want(t.thread.resolved.is_none()));
    threads.sort_by_key(|t| std::cmp::Reverse(t.cseq));
    let cseq = threads.iter().map(|t| t.cseq).max().unwrap_or(0);
    let threads: Vec<_> = threads.into_iter().map(|t| t.thread).collect();
    Ok(axum::Json(json!({"board": id, "cseq": cseq, "threads": threads})).into_response())
}

/// The user a request acts as (the admin token acts as the server's owner).
fn user_of(shared: &Shared, who: &Principal) -> Result<UserId, ApiError> {
    let id = Auth::user_id(who).unwrap_or(&shared.auth.owner);
    UserId::try_from(id).map_err(|_| ApiError::invalid("this caller has no user id"))
}

/// A comment change on a board: the caller needs at least commenter there; the board answers
/// once it is durable.
async fn change<T: for<'de> Deserialize<'de>>(
    shared: &Arc<Shared>,
    headers: &HeaderMap,
    bytes: axum::body::Body,
    board_id: &str,
    op: impl FnOnce(T) -> CommentOp,
) -> Result<CommentDone, ApiError> {
    let asked = board_write::<T>(shared, headers, bytes, board_id, Role::Commenter);
    let (who, id, access, body) = asked.await?;
    let by = user_of(shared, &who)?;
    let board = shared.registry.get(&shared.env, &id).await?;
    let (done, rx) = tokio::sync::oneshot::channel();
    let req = CommentRequest {
        by,
        role: access.role,
        op: op(body),
        done,
    };
    let stopped = || {
        ApiError::store(&crate::store::StoreError::Unavailable(
            "board stopped".into(),
        ))
    };
    if board.comment(req).await.is_err() {
        return Err(stopped());
    }
    match rx.await {
        Ok(r) => r.map_err(refused),
        Err(_) => Err(stopped()),
    }
}

/// A refusal of the board as an HTTP answer.
fn refused(e: ErrorBody) -> ApiError {
    let status = match e.code {
        ErrorCode::Forbidden | ErrorCode::LimitExceeded => StatusCode::FORBIDDEN,
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::Invalid => StatusCode::BAD_REQUEST,
        ErrorCode::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        _ => StatusCode::SERVICE_UNAVAILABLE,
    };
    ApiError::new(status, e.code, e.message)
}

fn answer(status: StatusCode, d: CommentDone) -> Response {
    let body = json!({"thread": d.thread, "cseq": d.cseq, "comment": d.comment});
    (status, axum::Json(body)).into_response()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewThread {
    anchor: Anchor,
    body: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Text {
    body: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Nothing {}

async fn new_thread(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: axum::body::Body,
) -> Result<Response, ApiError> {
    let op = |b: NewThread| CommentOp::CommentThread {
        anchor: b.anchor,
        body: b.body,
    };
    let d = change(&shared, &headers, bytes, &board_id, op).await?;
    Ok(answer(StatusCode::CREATED, d))
}

async fn reply(
    Path((board_id, thread)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: axum::body::Body,
) -> Result<Response, ApiError> {
    let op = |b: Text| CommentOp::CommentReply {
        thread,
        body: b.body,
    };
    let d = change(&shared, &headers, bytes, &board_id, op).await?;
    Ok(answer(StatusCode::CREATED, d))
}

async fn edit(
    Path((board_id, comment)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: axum::body::Body,
) -> Result<Response, ApiError> {
    let op = |b: Text| CommentOp::CommentEdit {
        comment,
        body: b.body,
    };
    let d = change(&shared, &headers, bytes, &board_id, op).await?;
    Ok(answer(StatusCode::OK, d))
}

async fn delete(
    Path((board_id, comment)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: axum::body::Body,
) -> Result<Response, ApiError> {
    let op = |_: Nothing| CommentOp::CommentDelete { comment };
    let d = change(&shared, &headers, bytes, &board_id, op).await?;
    Ok(answer(StatusCode::OK, d))
}

async fn resolve(
    Path((board_id, thread)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: axum::body::Body,
) -> Result<Response, ApiError> {
    let op = |_: Nothing| CommentOp::CommentResolve {
        thread,
        resolved: true,
    };
    let d = change(&shared, &headers, bytes, &board_id, op).await?;
    Ok(answer(StatusCode::OK, d))
}

async fn reopen(
    Path((board_id, thread)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: axum::body::Body,
) -> Result<Response, ApiError> {
    let op = |_: Nothing| CommentOp::CommentResolve {
        thread,
        resolved: false,
    };
    let d = change(&shared, &headers, bytes, &board_id, op).await?;
    Ok(answer(StatusCode::OK, d))
}

async fn notifications(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (who, _) = signed_in(&shared, &headers).await?;
    let user = user_of(&shared, &who)?;
    let notes = shared.store.notifications(user.as_str()).await?;
    let notes: Vec<_> = notes
        .into_iter()
        .map(|n| {
            json!({"board": n.board, "thread": n.thread, "reason": n.reason,
                "at_ms": n.at_ms, "read_at": n.read_at})
        })
        .collect();
    Ok(axum::Json(json!({"notifications": notes})).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadBody {
    #[serde(default)]
    threads: Option<Vec<String>>,
}

async fn mark_read(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: axum::body::Body,
) -> Result<Response, ApiError> {
    let who = signed_in_write(&shared, &headers).await?;
    let b: ReadBody = json_body(&shared, &headers, bytes).await?;
    if b.threads.as_ref().is_some_and(|t| t.len() > 1000) {
        return Err(ApiError::invalid("at most 1000 threads at once"));
    }
    let user = user_of(&shared, &who)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    shared
        .store
        .mark_read(user.as_str(), b.threads, now)
        .await?;
    Ok(axum::Json(json!({"ok": true})).into_response())
}
