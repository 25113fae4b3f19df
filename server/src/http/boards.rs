//! HTTP API for boards (JSON): list, read, create (import), rename, delete. Rules `API-*` in
//! `docs/DURABILITY.md` and `AUTH-*` in `docs/SPEC.md`; tests in `server/tests/api.rs` and
//! `server/tests/auth/`. Every route needs credentials ([`super::caller`]); a board the caller
//! has no role on answers like an unknown one (404).
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

use super::ApiError;
use super::caller::{
    board_access, board_read, board_write, guard_write, no_board, signed_in, signed_in_write,
};
use super::edge::{BodyLimit, read_body};
use crate::auth::{Auth, Lookup};
use crate::board::{BoardHandle, Inspection};
use crate::shared::Shared;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use protocol::{
    ApplyError, BoardId, BoardObject, BoardState, ErrorCode, ObjectInput, OpInput, Role, Seq,
    UserId,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How long export and delete wait for a loaded board to make its pending commands durable.
const FLUSH_WAIT: Duration = Duration::from_secs(2);

/// The API routes (merged into [`super::router`]).
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/boards", get(list).post(create))
        .route(
            "/api/boards/{board_id}",
            get(read).delete(delete).patch(rename),
        )
}

/// A board the list may show: its id, when it was created and last written (ms), its info.
type Known = (BoardId, i64, i64, Value);

/// Every board the server knows of: stored ones, ones known only by their metadata (created,
/// nothing written yet), and ones open right now that nothing was written to yet (with
/// `--auth off`, a join of a new id makes one: listed from their first join, UI-PAGE-3).
/// A board may come more than once.
async fn known_boards(shared: &Shared) -> Result<Vec<Known>, ApiError> {
    let stored = shared.store.list_boards().await?;
    let metas = shared.auth.store.all_board_meta().await?;
    let infos = stored.into_iter().map(|b| {
        let v = serde_json::to_value(&b).unwrap_or(Value::Null);
        (b.id.clone(), b.created_at_ms, b.updated_at_ms, v)
    });
    let only_meta = metas.iter().filter_map(|m| {
        let id = BoardId::try_from(m.id.as_str()).ok()?;
        let at = m.created_at.saturating_mul(1000);
        Some((id.clone(), at, at, json!({"id": id, "seq": 0})))
    });
    let now = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis()),
    )
    .unwrap_or(i64::MAX);
    let only_loaded = shared
        .registry
        .all()
        .into_iter()
        .map(|(id, _)| (id.clone(), now, now, json!({"id": id, "seq": 0})));
    Ok(infos.chain(only_meta).chain(only_loaded).collect())
}

/// Boards the caller may open, newest first, with their titles and the caller's role.
async fn list(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Result<Response, ApiError> {
    let (who, _) = signed_in(&shared, &headers).await?;
    let mut rows: Vec<(i64, Value)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (id, created, updated, mut v) in known_boards(&shared).await? {
        if !seen.insert(id.clone()) {
            continue;
        }
        let Lookup::Role(role) = shared.auth.resolve(&shared, &who, &id).await? else {
            continue;
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
    Ok(axum::Json(json!({ "boards": boards })).into_response())
}

/// Asks a loaded board to make everything it applied durable (bounded wait).
pub async fn flush(board: &BoardHandle) {
    board.flush(FLUSH_WAIT).await;
}

/// The durable view of a loaded board, if it can be had from the board.
pub(crate) async fn inspect_durable(board: &BoardHandle) -> Option<Inspection> {
    board.inspect_durable(FLUSH_WAIT).await
}

/// What board `id` holds now, durable state only, and its seq. A busy board (or one that stopped
/// meanwhile) falls through to the store, which holds only committed commands; a board created
/// but never written to is empty at seq 0.
pub(crate) async fn durable_objects(
    shared: &Shared,
    id: &BoardId,
) -> Result<(Seq, Vec<BoardObject>), ApiError> {
    if let Some(addr) = shared.registry.live(id).await
        && let Some(ins) = inspect_durable(&addr).await
    {
        return Ok((ins.durable, ins.objects));
    }
    let Some(l) = shared.store.load(id).await? else {
        return Ok((0, Vec::new()));
    };
    let mut doc = BoardState::from_objects(l.objects, shared.config.max_objects);
    for (s, cmd) in &l.tail {
        doc.replay(&cmd.ops, *s);
    }
    Ok((l.seq, doc.sorted_objects().into_iter().cloned().collect()))
}

/// `GET /api/boards/{id}` (viewer).
async fn read(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (id, access) = board_read(&shared, &headers, &board_id).await?;
    let (seq, objects) = durable_objects(&shared, &id).await?;
    let mut out = json!({"board": id, "title": access.title, "seq": seq, "objects": objects});
    if shared.config.cluster {
        out["cluster"] = super::cluster::owner_json(&shared, &id).await?;
    }
    Ok(axum::Json(out).into_response())
}

fn object_label(i: usize, v: &Value) -> String {
    match v.get("id").and_then(Value::as_str) {
        Some(id) => format!("object {i} (id {id})"),
        None => format!("object {i}"),
    }
}

/// A board title: 1-100 characters after trimming, no control characters.
fn title_of(raw: &str) -> Result<String, ApiError> {
    let t = raw.trim();
    let n = t.chars().count();
    if n == 0 || n > 100 || t.chars().any(char::is_control) {
        return Err(ApiError::invalid("a title has 1-100 characters"));
    }
    Ok(t.to_owned())
}

/// `POST /api/boards`: a new board, empty or holding the objects of an export or board file.
async fn create(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (who, cookie) = signed_in(&shared, &headers).await?;
    if !Auth::may_create(&who) {
        return Err(ApiError::forbidden(
            "creating boards needs a signed-in owner or member",
        ));
    }
    guard_write(&shared, &headers, cookie)?;
    let limit = BodyLimit {
        bytes: shared.config.max_file_bytes,
        within: shared.config.http_body_timeout() * 6,
    };
    let bytes = read_body(&headers, body, limit).await?;
    let doc: Value = super::caller::body(&bytes)?;
    let (title, mut objects, pictures) = new_board(&doc, shared.config.max_objects)?;
    // 128 random bits, unguessable (AUTH-8).
    let id = BoardId::try_from(crate::auth::secret::random_hex(16)).map_err(|_| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            "could not make a board id",
        )
    })?;
    let owner = shared.auth.creator(&who);
    crate::quota::may_create_board(&shared, &shared.auth.store, Some(&owner)).await?;
    let now = crate::auth::now();
    shared
        .auth
        .store
        .create_board_meta(id.as_str(), &title, &owner, now)
        .await?;
    // Pictures the board does not end up with are left to the sweep (ASSET-11).
    let names = match super::pictures::from_file(&shared, &id, pictures).await {
        Ok(names) => names,
        Err(e) => {
            forget_meta(&shared, &id).await;
            return Err(e);
        }
    };
    for o in &mut objects {
        o.asset = o.asset.take().map(|a| names.get(&a).cloned().unwrap_or(a));
    }
    if let Err(e) = shared.store.create_board(&id, &objects).await {
        forget_meta(&shared, &id).await;
        return Err(ApiError::store(&e));
    }
    let out = json!({"board": id, "title": title, "seq": 0, "objects": objects.len()});
    Ok((StatusCode::CREATED, axum::Json(out)).into_response())
}

/// Nothing half-created: the title and owner of a new board that failed go with it.
async fn forget_meta(shared: &Shared, id: &BoardId) {
    if let Err(m) = shared.auth.store.delete_board(id.as_str()).await {
        tracing::warn!(board = %id, error = %m, "could not remove a failed import's metadata");
    }
}

/// What a new board is made of: its title, its objects, and the pictures its images show.
type NewBoard = (String, Vec<BoardObject>, Vec<render::file::FilePicture>);

/// The title, objects and pictures of a new board from a board file (`docs/FILES.md`, read as
/// the older export shape) or an export: every object validated and clamped like a create op;
/// an image must show a picture the file holds (ASSET-12).
fn new_board(doc: &Value, max: usize) -> Result<NewBoard, ApiError> {
    let doc = render::file::normalize(doc).map_err(|e| ApiError::invalid(e.0))?;
    let pictures = render::file::pictures(&doc).map_err(|e| ApiError::invalid(e.0))?;
    // What an export holds (`board`, `seq`, `title`, `objects`, `pictures`), or less.
    let known = doc.as_object().is_some_and(|o| {
        o.keys().all(|k| {
            matches!(
                k.as_str(),
                "board" | "seq" | "title" | "objects" | "pictures"
            )
        })
    });
    let raw: &[Value] = match doc.get("objects") {
        None if known => &[],
        Some(Value::Array(a)) => a,
        _ => {
            return Err(ApiError::invalid(
                "body must be an object with an \"objects\" array",
            ));
        }
    };
    let title = match doc.get("title") {
        None | Some(Value::Null) => "Untitled board".to_owned(),
        Some(Value::String(t)) => title_of(t)?,
        Some(_) => return Err(ApiError::invalid("`title` must be a string")),
    };
    if raw.len() > max {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::LimitExceeded,
            format!("{} objects; a board holds at most {max}", raw.len()),
        ));
    }
    let mut inputs = Vec::with_capacity(raw.len());
    for (i, v) in raw.iter().enumerate() {
        let input = serde_json::from_value::<ObjectInput>(v.clone()).map_err(|e| {
            let why = protocol::public::serde_message(&e);
            ApiError::invalid(format!("{}: {why}", object_label(i, v)))
        })?;
        if let Some(a) = &input.asset
            && !pictures.iter().any(|p| p.sha256 == *a)
        {
            let label = object_label(i, v);
            return Err(ApiError::invalid(format!(
                "{label}: its picture is not in the file"
            )));
        }
        inputs.push(input);
    }
    Ok((title, created(raw, &inputs, max)?, pictures))
}

/// The objects `inputs` create on an empty board (holding at most `max`), in an order where
/// frames and connected objects come before what refers to them; who created each object is
/// kept when the export said so.
fn created(
    raw: &[Value],
    inputs: &[ObjectInput],
    max: usize,
) -> Result<Vec<BoardObject>, ApiError> {
    let author =
        UserId::try_from("import").map_err(|e| ApiError::internal("internal error", &e))?;
    let mut board = BoardState::new(max);
    for i in crate::board::import::dependency_order(inputs) {
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
            let message = format!("{label}: {e}");
            return Err(ApiError::new(StatusCode::BAD_REQUEST, code, message));
        }
    }
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
    Ok(objects)
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
) -> Result<Response, ApiError> {
    let asked = board_write::<RenameBody>(&shared, &headers, bytes, &board_id, Role::Editor);
    let (_, id, _, b) = asked.await?;
    let title = title_of(&b.title)?;
    let auth = &shared.auth;
    auth.store
        .set_title(id.as_str(), &title, &auth.owner, crate::auth::now())
        .await?;
    // People on the board see the new title at once (on whichever node owns it).
    if let Some(addr) = shared.registry.live(&id).await {
        addr.retitle(title.clone()).await;
    }
    Ok(axum::Json(json!({"board": id, "title": title})).into_response())
}

/// Deletes the board where it runs: on this node, or (cluster mode) on its owner. A fenced
/// store deletes only a board this node holds, so a stored board nobody runs is taken first.
/// True when the store had it.
async fn delete_anywhere(shared: &Arc<Shared>, id: &BoardId) -> Result<bool, ApiError> {
    let mut at = shared.registry.live(id).await;
    if at.is_none() && shared.store.fenced() && shared.store.board_exists(id).await? {
        at = Some(shared.registry.get(&shared.env, id).await?);
    }
    match at {
        Some(h) if h.is_remote() => h.delete().await.map_err(|_| {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                protocol::ErrorCode::StoreUnavailable,
                "the board's node did not answer; try again shortly",
            )
        }),
        _ => Ok(shared.registry.delete(&shared.env, id).await?),
    }
}

/// `DELETE /api/boards/{id}` (owner).
async fn delete(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    _body: Body,
) -> Result<Response, ApiError> {
    let who = signed_in_write(&shared, &headers).await?;
    let (id, _) = board_access(&shared, &who, &board_id, Role::Owner).await?;
    let found = delete_anywhere(&shared, &id).await?;
    let had_meta = shared.auth.store.board_meta(id.as_str()).await?.is_some();
    shared.auth.store.delete_board(id.as_str()).await?;
    if found || had_meta {
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(no_board(id.as_str()))
    }
}
