//! HTTP API for boards (JSON): list, export, import, rename, delete. Rules `API-*` in
//! `docs/DURABILITY.md` and `AUTH-*` in `docs/SPEC.md`; tests in `server/tests/api.rs` and
//! `server/tests/auth/`. Every route needs credentials (`auth::http`); a board the caller has
//! no role on answers like an unknown one (404).
//!
//! - `GET /api/boards`: `{"boards": [BoardInfo + title, role]}`: the boards the caller may open.
//! - `GET /api/boards/{id}` (viewer): `{"board", "title", "seq", "objects"}`: only durable state. A loaded board is
//!   asked with `Inspect` (after a `Flush` when it holds commands that are not durable yet); a
//!   board that is not loaded is read from the store (snapshot + replayed tail).
//! - `POST /api/boards` (a signed-in owner or member, or the admin token): body
//!   `{"title"?, "objects"?: [...]}` as exported; every object is validated and clamped like a
//!   create op; the board gets a new 128-bit random id and the caller owns it:
//!   `201 {"board", "title", "seq": 0, "objects": n}`.
//! - `PATCH /api/boards/{id}` (editor): `{"title"}` → `{"board", "title"}`.
//! - `DELETE /api/boards/{id}` (owner): closes the board's connections (4004) and deletes it: `204`.
//!
//! Errors are `{"error": {"code", "message"}}` with stable codes: `invalid`, `bad_json`,
//! `not_found`, `limit_exceeded`, `too_large`, `store_unavailable`.

use crate::auth::{Auth, Lookup};
use crate::board::{CloseAll, Flush, Inspect, Inspection};
use crate::http::caller::{board_access, board_read, guard_write, signed_in, signed_in_write};
use crate::http::json_error;
use crate::shared::Shared;
use crate::store::StoreError;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use protocol::{
    ApplyError, BoardId, BoardObject, BoardState, ErrorCode, ObjectInput, OpInput, Role, UserId,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How long export and delete wait for a loaded board to make its pending commands durable.
const FLUSH_WAIT: Duration = Duration::from_secs(2);

/// The API routes (merged into [`crate::http::router`]).
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/boards", get(list).post(import))
        .route(
            "/api/boards/{board_id}",
            get(export).delete(delete).patch(rename),
        )
}

/// A quota refusal (QUOTA-n): 403 `limit_exceeded`, or 503 when a store could not be asked.
fn quota_refused(e: &crate::quota::Refused) -> Response {
    let status = match e {
        crate::quota::Refused::Limit(_) => StatusCode::FORBIDDEN,
        crate::quota::Refused::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
    };
    json_error(status, e.code(), e.to_string())
}

/// A store failure as an HTTP answer: 503 `store_unavailable`, what happened and a log reference
/// (ERR-1), never the store's own text.
pub(crate) fn store_error(e: &StoreError) -> Response {
    json_error(
        StatusCode::SERVICE_UNAVAILABLE,
        e.code(),
        crate::errors::public(e.public_message(), e),
    )
}

fn not_found(id: &BoardId) -> Response {
    json_error(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        format!("no board {id}"),
    )
}

/// Boards the caller may open, newest first, with their titles and the caller's role.
async fn list(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let who = match signed_in(&shared, &headers).await {
        Ok((w, _)) => w,
        Err(r) => return r,
    };
    let auth = &shared.auth;
    let stored = match shared.store.list_boards().await {
        Ok(b) => b,
        Err(e) => return store_error(&e),
    };
    let metas = match auth.store.all_board_meta().await {
        Ok(m) => m,
        Err(e) => return crate::http::caller::unavailable(&e),
    };
    let mut rows: Vec<(i64, Value)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let infos = stored.into_iter().map(|b| {
        let v = serde_json::to_value(&b).unwrap_or(Value::Null);
        (b.id.clone(), b.created_at_ms, b.updated_at_ms, v)
    });
    // Boards known only by their metadata (created, nothing written yet) are listed too.
    let only_meta: Vec<_> = metas
        .iter()
        .filter_map(|m| {
            let id = BoardId::try_from(m.id.as_str()).ok()?;
            let at = m.created_at.saturating_mul(1000);
            Some((id.clone(), at, at, json!({"id": id, "seq": 0})))
        })
        .collect();
    // And boards open right now that nothing was written to yet (with `--auth off`, a join of a
    // new id makes one): listed from their first join, not their first edit (UI-PAGE-3).
    let now = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis()),
    )
    .unwrap_or(i64::MAX);
    let only_loaded: Vec<_> = shared
        .registry
        .all()
        .into_iter()
        .map(|(id, _)| (id.clone(), now, now, json!({"id": id, "seq": 0})))
        .collect();
    for (id, created, updated, mut v) in infos.chain(only_meta).chain(only_loaded) {
        if !seen.insert(id.clone()) {
            continue;
        }
        let role = match auth.resolve(&shared, &who, &id).await {
            Ok(Lookup::Role(a)) => a,
            Ok(_) => continue,
            Err(e) => return crate::http::caller::unavailable(&e),
        };
        if let Some(o) = v.as_object_mut() {
            o.insert("title".into(), json!(role.title));
            o.insert("role".into(), json!(role.role));
            o.insert("created_at".into(), json!(created));
            o.insert("updated_at".into(), json!(updated));
        }
        rows.push((created, v));
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    let boards: Vec<Value> = rows.into_iter().map(|(_, v)| v).collect();
    axum::Json(json!({ "boards": boards })).into_response()
}

/// Asks a loaded board to make everything it applied durable (bounded wait).
pub async fn flush(addr: &actix::Addr<crate::board::Board>) {
    let (tx, rx) = tokio::sync::oneshot::channel();
    if addr.send(Flush { done: tx }).await.is_ok() {
        let _ = tokio::time::timeout(FLUSH_WAIT, rx).await;
    }
}

/// The durable view of a loaded board, if it can be had from the actor.
pub(crate) async fn inspect_durable(addr: &actix::Addr<crate::board::Board>) -> Option<Inspection> {
    let first = addr.send(Inspect).await.ok()?;
    if first.seq == first.durable {
        return Some(first);
    }
    // Its objects include commands that are not durable yet: wait for them, then look again.
    flush(addr).await;
    let second = addr.send(Inspect).await.ok()?;
    (second.seq == second.durable).then_some(second)
}

async fn export(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Response {
    let (id, access) = match board_read(&shared, &headers, &board_id).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let title = access.title;
    // A busy board (or one that stopped meanwhile) falls through to the store, which holds
    // only committed commands.
    if let Some(addr) = shared.registry.loaded(&id)
        && let Some(ins) = inspect_durable(&addr).await
    {
        return axum::Json(
            json!({"board": id, "title": title, "seq": ins.durable, "objects": ins.objects}),
        )
        .into_response();
    }
    match shared.store.load(&id).await {
        Ok(Some(l)) => {
            let mut doc = BoardState::from_objects(l.objects, shared.config.max_objects);
            for (s, cmd) in &l.tail {
                doc.replay(&cmd.ops, *s);
            }
            let objects: Vec<&BoardObject> = doc.sorted_objects();
            axum::Json(json!({"board": id, "title": title, "seq": l.seq, "objects": objects}))
                .into_response()
        }
        // Created (it has a title and an owner) but nothing written yet.
        Ok(None) => axum::Json(json!({"board": id, "title": title, "seq": 0, "objects": []}))
            .into_response(),
        Err(e) => store_error(&e),
    }
}

fn object_label(i: usize, v: &Value) -> String {
    match v.get("id").and_then(Value::as_str) {
        Some(id) => format!("object {i} (id {id})"),
        None => format!("object {i}"),
    }
}

/// A board title: 1-100 characters after trimming, no control characters.
// The error is the HTTP answer on its way out; boxing it buys nothing.
#[allow(clippy::result_large_err)]
fn title_of(raw: &str) -> Result<String, Response> {
    let t = raw.trim();
    let n = t.chars().count();
    if n == 0 || n > 100 || t.chars().any(char::is_control) {
        return Err(json_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::Invalid,
            "a title has 1-100 characters",
        ));
    }
    Ok(t.to_owned())
}

async fn import(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Body) -> Response {
    let (who, cookie) = match signed_in(&shared, &headers).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    if !Auth::may_create(&who) {
        return crate::http::caller::forbidden("creating boards needs a signed-in owner or member");
    }
    if let Err(r) = guard_write(&shared, &headers, cookie) {
        return r;
    }
    let limit = crate::http::edge::BodyLimit {
        bytes: shared.config.max_frame_bytes,
        within: shared.config.http_body_timeout(),
    };
    let bytes = match crate::http::edge::read_body(&headers, body, limit).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let doc: Value = match crate::http::caller::body(&bytes) {
        Ok(v) => v,
        Err(r) => return r,
    };
    // A board file (`docs/FILES.md`) is read as the older export shape below.
    let doc = match render::file::normalize(&doc) {
        Ok(d) => d,
        Err(e) => return json_error(StatusCode::BAD_REQUEST, ErrorCode::Invalid, e.0),
    };
    let empty = Vec::new();
    // What an export holds (`board`, `seq`, `title`, `objects`), or less.
    let known = doc.as_object().is_some_and(|o| {
        o.keys()
            .all(|k| matches!(k.as_str(), "board" | "seq" | "title" | "objects"))
    });
    let raw = match doc.get("objects") {
        None if known => &empty,
        Some(Value::Array(a)) => a,
        _ => {
            return json_error(
                StatusCode::BAD_REQUEST,
                ErrorCode::Invalid,
                "body must be an object with an \"objects\" array",
            );
        }
    };
    let title = match doc.get("title") {
        None | Some(Value::Null) => "Untitled board".to_owned(),
        Some(Value::String(t)) => match title_of(t) {
            Ok(t) => t,
            Err(r) => return r,
        },
        Some(_) => {
            return json_error(
                StatusCode::BAD_REQUEST,
                ErrorCode::Invalid,
                "`title` must be a string",
            );
        }
    };
    let max = shared.config.max_objects;
    if raw.len() > max {
        return json_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::LimitExceeded,
            format!("{} objects; a board holds at most {max}", raw.len()),
        );
    }
    let mut inputs = Vec::with_capacity(raw.len());
    for (i, v) in raw.iter().enumerate() {
        match serde_json::from_value::<ObjectInput>(v.clone()) {
            Ok(o) => inputs.push(o),
            Err(e) => {
                return json_error(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::Invalid,
                    format!(
                        "{}: {}",
                        object_label(i, v),
                        protocol::public::serde_message(&e)
                    ),
                );
            }
        }
    }
    let author = match UserId::try_from("import") {
        Ok(a) => a,
        Err(e) => {
            return json_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                crate::errors::public("internal error", &e),
            );
        }
    };
    let mut board = BoardState::new(max);
    let order = crate::board::import::dependency_order(&inputs);
    for i in order {
        let Some(input) = inputs.get(i) else { continue };
        let op = OpInput::Create {
            object: input.clone(),
        };
        if let Err(e) = board.apply(std::slice::from_ref(&op), &author, 0) {
            let code = match e {
                ApplyError::TooManyObjects(_) => ErrorCode::LimitExceeded,
                ApplyError::NotFound(_) | ApplyError::Invalid(_) => ErrorCode::Invalid,
            };
            let label = raw
                .get(i)
                .map_or_else(|| format!("object {i}"), |v| object_label(i, v));
            return json_error(StatusCode::BAD_REQUEST, code, format!("{label}: {e}"));
        }
    }
    // Keep who created each object when the export said so.
    let mut objects: Vec<BoardObject> = board.sorted_objects().into_iter().cloned().collect();
    let creators: std::collections::HashMap<&str, UserId> = inputs
        .iter()
        .filter_map(|o| {
            let id = o.id.as_ref()?;
            let by = o.created_by.as_ref()?.as_str()?;
            Some((id.as_str(), UserId::try_from(by).ok()?))
        })
        .collect();
    for o in &mut objects {
        o.created_by = creators.get(o.id.as_str()).cloned().or(o.created_by.take());
        o.version = 0;
    }
    // 128 random bits, unguessable (AUTH-8).
    let Ok(id) = BoardId::try_from(crate::auth::secret::random_hex(16)) else {
        return json_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            "could not make a board id",
        );
    };
    let owner = shared.auth.creator(&who);
    if let Err(e) = crate::quota::may_create_board(&shared, Some(&owner)).await {
        return quota_refused(&e);
    }
    if let Err(e) = shared
        .auth
        .store
        .create_board_meta(id.as_str(), &title, &owner, crate::auth::now())
        .await
    {
        return crate::http::caller::unavailable(&e);
    }
    match shared.store.create_board(&id, &objects).await {
        Ok(()) => (
            StatusCode::CREATED,
            axum::Json(json!({"board": id, "title": title, "seq": 0, "objects": objects.len()})),
        )
            .into_response(),
        Err(e) => {
            // Nothing half-created: the title and owner go with the board that failed.
            if let Err(m) = shared.auth.store.delete_board(id.as_str()).await {
                tracing::warn!(board = %id, error = %m, "could not remove a failed import's metadata");
            }
            store_error(&e)
        }
    }
}

#[derive(serde::Deserialize)]
struct RenameBody {
    title: String,
}

/// `PATCH /api/boards/{id} {"title"}` (editor).
async fn rename(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: Body,
) -> Response {
    let board = crate::http::caller::board_write::<RenameBody>;
    let (id, title) = match board(&shared, &headers, bytes, &board_id, Role::Editor).await {
        Ok((_, id, b)) => match title_of(&b.title) {
            Ok(t) => (id, t),
            Err(r) => return r,
        },
        Err(r) => return r,
    };
    let auth = &shared.auth;
    if let Err(e) = auth
        .store
        .set_title(id.as_str(), &title, &auth.owner, crate::auth::now())
        .await
    {
        return crate::http::caller::unavailable(&e);
    }
    // People on the board see the new title at once.
    if let Some(addr) = shared.registry.loaded(&id) {
        let _ = addr
            .send(crate::board::Retitle {
                title: title.clone(),
            })
            .await;
    }
    axum::Json(json!({"board": id, "title": title})).into_response()
}

async fn delete(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    _body: Body,
) -> Response {
    let who = match signed_in_write(&shared, &headers).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let (id, _) = match board_access(&shared, &who, &board_id, Role::Owner).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    // No join may load the board again while it is being deleted.
    let _deleting = shared.registry.deleting(&id);
    if let Some(addr) = shared.registry.loaded(&id) {
        // Once `CloseAll` is handled the board submits nothing more; its commands still queued
        // in the log writer are unacknowledged (their authors are being disconnected). An empty
        // submission completes after every earlier one, so none of them lands after the delete.
        // (No `Flush` here: it writes a snapshot in the background, which could land after the
        // delete and bring the board back.)
        let _ = addr
            .send(CloseAll {
                error: protocol::ErrorCode::NotFound,
                code: 4004,
                reason: "board deleted".into(),
            })
            .await;
        shared.registry.forget(&id, Some(&addr));
        let (tx, rx) = tokio::sync::oneshot::channel();
        shared.writer.submit(
            Vec::new(),
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        );
        let _ = tokio::time::timeout(FLUSH_WAIT, rx).await;
    }
    let had_meta = match shared.auth.store.board_meta(id.as_str()).await {
        Ok(m) => m.is_some(),
        Err(e) => return crate::http::caller::unavailable(&e),
    };
    if let Err(e) = shared.auth.store.delete_board(id.as_str()).await {
        return crate::http::caller::unavailable(&e);
    }
    match shared.store.delete_board(&id).await {
        Ok(true) => StatusCode::NO_CONTENT.into_response(),
        Ok(false) if had_meta => StatusCode::NO_CONTENT.into_response(),
        Ok(false) => not_found(&id),
        Err(e) => store_error(&e),
    }
}
