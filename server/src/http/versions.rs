//! Version history over HTTP (HIST-n in docs/SPEC.md); the retention policy is
//! [`crate::history`].
//!
//! - `GET /api/boards/{id}/versions` (viewer): `{"versions": [VersionInfo]}`, newest first.
//! - `GET /api/boards/{id}/versions/{v}` (viewer): `{"board", "version", "objects"}`.
//! - `POST /api/boards/{id}/versions` `{"name"}` (editor): names the current state → 201 with
//!   the version; within `--named-versions-per-min` per board (429), `--max-named-versions` per
//!   board and `--max-store-bytes` (403 `limit_exceeded`; QUOTA-4).
//! - `POST /api/boards/{id}/restore` `{"version"}` (editor): the board becomes what it was, as one
//!   command (`origin: restore`) by the caller, broadcast to everyone; the caller's next undo
//!   reverts it → `{"board", "seq", "version"}`.

use super::json_error;
use crate::auth::Principal;
use crate::board::history::{NotSaved, Restore, SaveVersion};
use crate::http::boards::store_error;
use crate::http::caller::{board_read, board_write};
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

/// Whether `board` may save a named version now (QUOTA-4).
// The error is the HTTP answer on its way out; boxing it buys nothing.
#[allow(clippy::result_large_err)]
fn may_save_now(shared: &Shared, board: &BoardId) -> Result<(), Response> {
    let limiter = &shared.version_saves;
    if limiter.len() > 100_000 {
        limiter.retain_recent();
    }
    limiter.check_key(board).map_err(|_| {
        json_error(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!(
                "a board saves at most {} named versions a minute (--named-versions-per-min)",
                shared.config.named_versions_per_min
            ),
        )
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

pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/boards/{board_id}/versions", get(list).post(save))
        .route("/api/boards/{board_id}/versions/{version}", get(show))
        .route("/api/boards/{board_id}/restore", post(restore))
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

fn no_version(v: &str) -> Response {
    json_error(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        format!("no version {v}"),
    )
}

async fn list(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Response {
    let (id, _) = match board_read(&shared, &headers, &board_id).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    match shared.store.list_versions(&id).await {
        Ok(mut v) => {
            v.reverse();
            axum::Json(json!({"board": id, "versions": v})).into_response()
        }
        Err(e) => store_error(&e),
    }
}

async fn show(
    Path((board_id, version)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Response {
    let (id, _) = match board_read(&shared, &headers, &board_id).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let Ok(n) = version.parse::<u64>() else {
        return no_version(&version);
    };
    match shared.store.load_version(&id, n).await {
        Ok(Some((v, objects))) => {
            axum::Json(json!({"board": id, "version": v, "objects": objects})).into_response()
        }
        Ok(None) => no_version(&version),
        Err(e) => store_error(&e),
    }
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
) -> Response {
    let (who, id, name) =
        match board_write::<SaveBody>(&shared, &headers, bytes, &board_id, Role::Editor).await {
            Ok((w, id, b)) => (w, id, b.name.trim().to_owned()),
            Err(r) => return r,
        };
    if name.is_empty() || name.chars().count() > 100 {
        return json_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::Invalid,
            "a version name is 1 to 100 characters",
        );
    }
    // QUOTA-4: a named version is a whole board kept until the board is deleted.
    if let Err(r) = may_save_now(&shared, &id) {
        return r;
    }
    if let Err(e) = crate::quota::store_has_room(&shared).await {
        return json_error(e.status(), e.code(), e.to_string());
    }
    save_named(&shared, &id, name, author(&shared, &who)).await
}

/// Asks the board to save a named version. A board with commands not yet durable, or saving
/// another named version, answers "not now": wait for it and ask again.
async fn save_named(shared: &Arc<Shared>, id: &BoardId, name: String, by: Author) -> Response {
    let addr = match shared.registry.get(shared, id).await {
        Ok(a) => a,
        Err(e) => return store_error(&e),
    };
    let max = shared.config.max_named_versions;
    for _ in 0..20 {
        let named = match named_count(&shared.store, id).await {
            Ok(n) => n,
            Err(e) => return store_error(&e),
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        let ask = SaveVersion {
            name: name.clone(),
            by: by.clone(),
            named,
            max,
            done: tx,
        };
        if addr.send(ask).await.is_err() {
            break;
        }
        match rx.await {
            Ok(Ok(v)) => return (StatusCode::CREATED, axum::Json(v)).into_response(),
            Ok(Err(NotSaved::Full(n))) => {
                return json_error(
                    StatusCode::FORBIDDEN,
                    ErrorCode::LimitExceeded,
                    format!("the board keeps {n} named versions, its limit (--max-named-versions)"),
                );
            }
            Ok(Err(NotSaved::Store(e))) => return store_error(&e),
            Ok(Err(NotSaved::NotNow)) => crate::http::boards::flush(&addr).await,
            Ok(Err(NotSaved::Busy)) => {}
            Err(_) => break,
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    store_error(&StoreError::Unavailable("the board is busy".into()))
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
) -> Response {
    let (who, id, version) =
        match board_write::<RestoreBody>(&shared, &headers, bytes, &board_id, Role::Editor).await {
            Ok((w, id, b)) => (w, id, b.version),
            Err(r) => return r,
        };
    let objects = match shared.store.load_version(&id, version).await {
        Ok(Some((_, objects))) => objects,
        Ok(None) => return no_version(&version.to_string()),
        Err(e) => return store_error(&e),
    };
    let addr = match shared.registry.get(&shared, &id).await {
        Ok(a) => a,
        Err(e) => return store_error(&e),
    };
    let Ok(user) = protocol::UserId::try_from(author(&shared, &who).id) else {
        return store_error(&StoreError::Unavailable("no user id".into()));
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    let ask = Restore {
        user,
        objects,
        done: tx,
    };
    let seq = match (addr.send(ask).await, rx.await) {
        (Ok(()), Ok(Ok(seq))) => seq,
        (Ok(()), Ok(Err(e))) => {
            let status = match e.code {
                ErrorCode::LimitExceeded => StatusCode::FORBIDDEN,
                ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
                _ => StatusCode::SERVICE_UNAVAILABLE,
            };
            return json_error(status, e.code, e.message);
        }
        _ => return store_error(&StoreError::Unavailable("the board stopped".into())),
    };
    // Answered once the restore is durable (or refused: it was rolled back).
    crate::http::boards::flush(&addr).await;
    match addr.send(crate::board::Inspect).await {
        Ok(ins) if ins.durable >= seq => {
            axum::Json(json!({"board": id, "seq": seq, "version": version})).into_response()
        }
        _ => store_error(&StoreError::Unavailable(
            "the restore was not stored".into(),
        )),
    }
}
