//! HTTP API for boards (JSON): list, export, import, delete. Rules `API-*` in
//! `docs/DURABILITY.md`; tests in `server/tests/api.rs`.
//!
//! - `GET /api/boards`: `{"boards": [BoardInfo]}` from the store.
//! - `GET /api/boards/{id}`: `{"board", "seq", "objects"}`: only durable state. A loaded board is
//!   asked with `Inspect` (after a `Flush` when it holds commands that are not durable yet); a
//!   board that is not loaded is read from the store (snapshot + replayed tail).
//! - `POST /api/boards`: body `{"objects": [...]}` as exported; every object is validated and
//!   clamped like a create op; the board gets a new id: `201 {"board", "seq": 0, "objects": n}`.
//! - `DELETE /api/boards/{id}`: closes the board's connections (4004) and deletes it: `204`.
//!
//! Errors are `{"error": {"code", "message"}}` with stable codes: `invalid`, `bad_json`,
//! `not_found`, `limit_exceeded`, `too_large`, `store_unavailable`.

use crate::board::{CloseAll, Flush, Inspect, Inspection};
use crate::http::json_error;
use crate::shared::Shared;
use crate::store::StoreError;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use protocol::{
    ApplyError, BoardId, BoardObject, BoardState, ErrorCode, Kind, ObjectInput, OpInput, UserId,
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
        .route("/api/boards/{board_id}", get(export).delete(delete))
}

fn store_error(e: &StoreError) -> Response {
    json_error(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::StoreUnavailable,
        e.to_string(),
    )
}

fn parse_id(raw: String) -> Result<BoardId, String> {
    BoardId::try_from(raw).map_err(|e| format!("bad board id: {e}"))
}

fn bad_id(message: String) -> Response {
    json_error(StatusCode::BAD_REQUEST, ErrorCode::Invalid, message)
}

fn not_found(id: &BoardId) -> Response {
    json_error(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        format!("no board {id}"),
    )
}

async fn list(State(shared): State<Arc<Shared>>) -> Response {
    match shared.store.list_boards().await {
        Ok(boards) => axum::Json(json!({ "boards": boards })).into_response(),
        Err(e) => store_error(&e),
    }
}

/// Asks a loaded board to make everything it applied durable (bounded wait).
async fn flush(addr: &actix::Addr<crate::board::Board>) {
    let (tx, rx) = tokio::sync::oneshot::channel();
    if addr.send(Flush { done: tx }).await.is_ok() {
        let _ = tokio::time::timeout(FLUSH_WAIT, rx).await;
    }
}

/// The durable view of a loaded board, if it can be had from the actor.
async fn inspect_durable(addr: &actix::Addr<crate::board::Board>) -> Option<Inspection> {
    let first = addr.send(Inspect).await.ok()?;
    if first.seq == first.durable {
        return Some(first);
    }
    // Its objects include commands that are not durable yet: wait for them, then look again.
    flush(addr).await;
    let second = addr.send(Inspect).await.ok()?;
    (second.seq == second.durable).then_some(second)
}

async fn export(Path(board_id): Path<String>, State(shared): State<Arc<Shared>>) -> Response {
    let id = match parse_id(board_id) {
        Ok(id) => id,
        Err(m) => return bad_id(m),
    };
    // A busy board (or one that stopped meanwhile) falls through to the store, which holds
    // only committed commands.
    if let Some(addr) = shared.registry.loaded(&id)
        && let Some(ins) = inspect_durable(&addr).await
    {
        return axum::Json(json!({"board": id, "seq": ins.durable, "objects": ins.objects}))
            .into_response();
    }
    match shared.store.load(&id).await {
        Ok(Some(l)) => {
            let mut doc = BoardState::from_objects(l.objects, shared.config.max_objects);
            for (s, cmd) in &l.tail {
                doc.replay(&cmd.ops, *s);
            }
            let objects: Vec<&BoardObject> = doc.sorted_objects();
            axum::Json(json!({"board": id, "seq": l.seq, "objects": objects})).into_response()
        }
        Ok(None) => not_found(&id),
        Err(e) => store_error(&e),
    }
}

/// Import order: parents before children (frames may nest), connectors last. Returns indexes.
fn dependency_order(inputs: &[ObjectInput]) -> Vec<usize> {
    let mut order = Vec::with_capacity(inputs.len());
    let mut placed: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut left: Vec<usize> = (0..inputs.len())
        .filter(|&i| inputs[i].kind != Kind::Connector)
        .collect();
    loop {
        let before = left.len();
        left.retain(|&i| {
            let ready = inputs[i]
                .parent
                .as_ref()
                .is_none_or(|p| placed.contains(p.as_str()));
            if ready {
                order.push(i);
                if let Some(id) = &inputs[i].id {
                    placed.insert(id.as_str());
                }
            }
            !ready
        });
        if left.is_empty() || left.len() == before {
            break;
        }
    }
    // Whatever is left names a missing parent (or a cycle): applying it reports the error.
    order.extend(left);
    order.extend((0..inputs.len()).filter(|&i| inputs[i].kind == Kind::Connector));
    order
}

fn object_label(i: usize, v: &Value) -> String {
    match v.get("id").and_then(Value::as_str) {
        Some(id) => format!("object {i} (id {id})"),
        None => format!("object {i}"),
    }
}

async fn import(State(shared): State<Arc<Shared>>, body: Body) -> Response {
    let limit = shared.config.max_frame_bytes;
    let bytes = match axum::body::to_bytes(body, limit).await {
        Ok(b) => b,
        Err(_) => {
            return json_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::TooLarge,
                format!("body larger than {limit} bytes"),
            );
        }
    };
    let doc: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return json_error(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadJson,
                format!("body is not JSON: {e}"),
            );
        }
    };
    let Some(raw) = doc.get("objects").and_then(Value::as_array) else {
        return json_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::Invalid,
            "body must be an object with an \"objects\" array",
        );
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
                    format!("{}: {e}", object_label(i, v)),
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
                e.to_string(),
            );
        }
    };
    let mut board = BoardState::new(max);
    let order = dependency_order(&inputs);
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
    let id = BoardId::random();
    match shared.store.create_board(&id, &objects).await {
        Ok(()) => (
            StatusCode::CREATED,
            axum::Json(json!({"board": id, "seq": 0, "objects": objects.len()})),
        )
            .into_response(),
        Err(e) => store_error(&e),
    }
}

async fn delete(Path(board_id): Path<String>, State(shared): State<Arc<Shared>>) -> Response {
    let id = match parse_id(board_id) {
        Ok(id) => id,
        Err(m) => return bad_id(m),
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
    match shared.store.delete_board(&id).await {
        Ok(true) => StatusCode::NO_CONTENT.into_response(),
        Ok(false) => not_found(&id),
        Err(e) => store_error(&e),
    }
}
