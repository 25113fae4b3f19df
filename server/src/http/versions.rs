//! Version history over HTTP (HIST-n in docs/SPEC.md); the retention policy is
//! the store (`store/retention.rs`).
//!
//! - `GET /api/boards/{id}/versions` (viewer): `{"versions": [VersionInfo]}`, newest first.
//! - `GET /api/boards/{id}/versions/{v}` (viewer): `{"board", "version", "objects"}`.
//! - `POST /api/boards/{id}/versions` `{"name"}` (editor): names the current state → 201 with
//!   the version; within `--named-versions-per-min` per board (429), `--max-named-versions` per
//!   board and `--max-store-bytes` (403 `limit_exceeded`; QUOTA-4).
//! - `POST /api/boards/{id}/restore` `{"version"}` (editor): the board becomes what it was, as one
//!   command (`origin: restore`) by the caller, broadcast to everyone; the caller's next undo
//!   reverts it → `{"board", "seq", "version"}`.

use super::ApiError;
use super::boards::flush;
use super::caller::{board_read, board_write};
use crate::auth::Principal;
use crate::board::history::{NotSaved, Restore, SaveVersion};
use crate::shared::Shared;
use crate::store::{Author, Store, StoreError, VersionKind};
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use protocol::{BoardId, ErrorCode, Role};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/boards/{board_id}/versions", get(list).post(save))
        .route("/api/boards/{board_id}/versions/{version}", get(show))
        .route("/api/boards/{board_id}/restore", post(restore))
}

/// Whether `board` may save a named version now (QUOTA-4).
fn may_save_now(shared: &Shared, board: &BoardId) -> Result<(), ApiError> {
    let limiter = &shared.version_saves;
    if limiter.len() > 100_000 {
        limiter.retain_recent();
    }
    limiter.check_key(board).map_err(|_| {
        ApiError::rate_limited(format!(
            "a board saves at most {} named versions a minute (--named-versions-per-min)",
            shared.config.named_versions_per_min
        ))
    })
}

/// The named versions the store keeps of a board.
async fn named_count(store: &Store, board: &BoardId) -> Result<u64, StoreError> {
    let list = store.list_versions(board).await?;
    Ok(list
        .iter()
        .filter(|v| v.meta.kind == VersionKind::Named)
        .count() as u64)
}

/// Who a request acts as: its user (the admin token acts as the server's owner).
fn author(shared: &Shared, who: &Principal) -> Author {
    match who {
        Principal::Admin => Author {
            id: shared.auth.owner.clone(),
            name: "admin".into(),
        },
        Principal::User(u) => Author {
            id: u.id.clone(),
            name: u.name.clone(),
        },
        Principal::Token(c) => Author {
            id: c.sub.clone(),
            name: c.name.clone(),
        },
    }
}

fn no_version(v: &str) -> ApiError {
    ApiError::not_found(format!("no version {v}"))
}

/// A failure of the board or its store while it saves or restores: 503 (ERR-1).
fn unavailable(what: &str) -> ApiError {
    ApiError::store(&StoreError::Unavailable(what.into()))
}

async fn list(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (id, _) = board_read(&shared, &headers, &board_id).await?;
    let mut v = shared.store.list_versions(&id).await?;
    v.reverse();
    Ok(axum::Json(json!({"board": id, "versions": v})).into_response())
}

async fn show(
    Path((board_id, version)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (id, _) = board_read(&shared, &headers, &board_id).await?;
    let n = version.parse::<u64>().map_err(|_| no_version(&version))?;
    let Some((v, objects)) = shared.store.load_version(&id, n).await? else {
        return Err(no_version(&version));
    };
    Ok(axum::Json(json!({"board": id, "version": v, "objects": objects})).into_response())
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SaveBody {
    name: String,
}

async fn save(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: axum::body::Body,
) -> Result<Response, ApiError> {
    let asked = board_write::<SaveBody>(&shared, &headers, bytes, &board_id, Role::Editor);
    let (who, id, _, b) = asked.await?;
    let name = b.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(ApiError::invalid("a version name is 1 to 100 characters"));
    }
    // QUOTA-4: a named version is a whole board kept until the board is deleted.
    may_save_now(&shared, &id)?;
    crate::quota::store_has_room(&shared, &shared.auth.store).await?;
    let v = save_named(&shared, &id, name, author(&shared, &who)).await?;
    Ok((StatusCode::CREATED, axum::Json(v)).into_response())
}

/// Asks the board to save a named version. A board with commands not yet durable, or saving
/// another named version, answers "not now": wait for it and ask again.
async fn save_named(
    shared: &Arc<Shared>,
    id: &BoardId,
    name: String,
    by: Author,
) -> Result<crate::store::VersionInfo, ApiError> {
    let addr = shared.registry.get(&shared.env, id).await?;
    let max = shared.config.max_named_versions;
    for _ in 0..20 {
        let named = named_count(&shared.store, id).await?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let ask = SaveVersion {
            name: name.clone(),
            by: by.clone(),
            named,
            max,
            done: tx,
        };
        if addr.save_version(ask).await.is_err() {
            break;
        }
        match rx.await {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(NotSaved::Full(n))) => {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    ErrorCode::LimitExceeded,
                    format!("the board keeps {n} named versions, its limit (--max-named-versions)"),
                ));
            }
            Ok(Err(NotSaved::Store(e))) => return Err(ApiError::store(&e)),
            Ok(Err(NotSaved::NotNow)) => flush(&addr).await,
            Ok(Err(NotSaved::Busy)) => {}
            Err(_) => break,
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Err(unavailable("the board is busy"))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RestoreBody {
    version: u64,
}

async fn restore(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: axum::body::Body,
) -> Result<Response, ApiError> {
    let asked = board_write::<RestoreBody>(&shared, &headers, bytes, &board_id, Role::Editor);
    let (who, id, _, RestoreBody { version }) = asked.await?;
    let Some((_, objects)) = shared.store.load_version(&id, version).await? else {
        return Err(no_version(&version.to_string()));
    };
    let addr = shared.registry.get(&shared.env, &id).await?;
    let user = protocol::UserId::try_from(author(&shared, &who).id)
        .map_err(|_| unavailable("no user id"))?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    let ask = Restore {
        user,
        version,
        objects,
        done: tx,
    };
    let seq = match (addr.restore(ask).await, rx.await) {
        (Ok(()), Ok(Ok(seq))) => seq,
        (Ok(()), Ok(Err(e))) => {
            let status = match e.code {
                ErrorCode::LimitExceeded => StatusCode::FORBIDDEN,
                ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
                _ => StatusCode::SERVICE_UNAVAILABLE,
            };
            return Err(ApiError::new(status, e.code, e.message));
        }
        _ => return Err(unavailable("the board stopped")),
    };
    // Answered once the restore is durable (or refused: it was rolled back).
    flush(&addr).await;
    match addr.inspect().await {
        Ok(ins) if ins.durable >= seq => {
            Ok(axum::Json(json!({"board": id, "seq": seq, "version": version})).into_response())
        }
        _ => Err(unavailable("the restore was not stored")),
    }
}
