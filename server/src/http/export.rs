//! Export and import of boards as files (rules `EXPORT-*` in `docs/SPEC.md`, the file format in
//! `docs/FILES.md`). Drawing is the `render` crate's; this file checks roles, reads the board,
//! and answers.
//!
//! - `GET /api/boards/{id}/export.svg|.png|.pdf|.json` (viewer): the durable board drawn as the
//!   browser draws it, or as a board file. `?selection=id,id` limits it to those objects (with
//!   frame contents and the connectors between them; an unknown id is 400 `invalid`);
//!   `?version=v` draws a saved version (HIST-1; unknown: 404); `?scale=` (PNG, 0.1..=4,
//!   lowered to a 16 Mpx cap); `?preview=1` (SVG: fits 240 px, shown inline). Answers carry an
//!   `ETag` (board seq + query) and a `304` for a matching `If-None-Match`. Drawings (and the
//!   board list's previews) run through [`crate::drawing`]: at most two at once, each within a
//!   time and memory budget (EXPORT-12: 503 `busy`, 422 `too_large`).
//! - `POST /api/boards/{id}/import` (editor): a board file (or the older `GET /api/boards/{id}`
//!   shape) added to the board as one command by the caller (`?as=user` names them under
//!   `--auth off`), in open space:
//!   `200 {"board", "seq", "created": [ids], "skipped": n}`.

use crate::board::import::{Import, Imported};
use crate::http::caller::{board_access, board_read, guard_write, signed_in};
use crate::http::json_error;
use crate::shared::Shared;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use protocol::{BoardId, BoardObject, BoardState, ErrorCode, Role, Seq, UserId};
use std::collections::HashMap;
use std::sync::Arc;

/// The largest board file `import` reads.
const IMPORT_MAX_BYTES: usize = 16 * 1024 * 1024;
/// The most ids a `?selection=` may name.
const MAX_SELECTION: usize = 10_000;
/// A preview fits in a square of this many px.
const PREVIEW_PX: f64 = 240.0;

/// The export and import routes (merged into [`crate::http::router`]).
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/boards/{board_id}/export.svg", get(svg))
        .route("/api/boards/{board_id}/export.png", get(png))
        .route("/api/boards/{board_id}/export.pdf", get(pdf))
        .route("/api/boards/{board_id}/export.json", get(json))
        .route("/api/boards/{board_id}/import", post(import))
}

type Params = Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>;

fn invalid(message: impl Into<String>) -> Response {
    json_error(StatusCode::BAD_REQUEST, ErrorCode::Invalid, message)
}

/// A board to export: who asked, what it holds (the part asked for), its title and seq.
struct Exported {
    id: BoardId,
    title: String,
    seq: Seq,
    objects: Vec<BoardObject>,
    query: HashMap<String, String>,
    etag: String,
}

/// The objects of board `id` at `version` (a version id of HIST-1; None: now, durable state
/// only). An unknown version is 404 `not_found`.
async fn objects_at(
    shared: &Shared,
    id: &BoardId,
    version: Option<&str>,
) -> Result<(Seq, Vec<BoardObject>), Response> {
    if let Some(v) = version {
        let missing = || {
            json_error(
                StatusCode::NOT_FOUND,
                ErrorCode::NotFound,
                format!("no version {v}"),
            )
        };
        let n: u64 = v.parse().map_err(|_| missing())?;
        return match shared.store.load_version(id, n).await {
            Ok(Some((info, objects))) => Ok((info.seq, objects)),
            Ok(None) => Err(missing()),
            Err(e) => Err(crate::http::boards::store_error(&e)),
        };
    }
    if let Some(addr) = shared.registry.loaded(id)
        && let Some(ins) = crate::http::boards::inspect_durable(&addr).await
    {
        return Ok((ins.durable, ins.objects));
    }
    match shared.store.load(id).await {
        Ok(Some(l)) => {
            let mut doc = BoardState::from_objects(l.objects, shared.config.max_objects);
            for (s, cmd) in &l.tail {
                doc.replay(&cmd.ops, *s);
            }
            let objects = doc.sorted_objects().into_iter().cloned().collect();
            Ok((l.seq, objects))
        }
        Ok(None) => Ok((0, Vec::new())),
        Err(e) => Err(crate::http::boards::store_error(&e)),
    }
}

/// Checks the caller (viewer and up) and the query, and reads the part of the board asked for.
async fn exported(
    shared: &Shared,
    headers: &HeaderMap,
    board_id: &str,
    params: Params,
    ext: &str,
) -> Result<Exported, Response> {
    let (id, access) = board_read(shared, headers, board_id).await?;
    let Query(query) = params.map_err(|_| invalid("the query string could not be read"))?;
    let (seq, mut objects) =
        objects_at(shared, &id, query.get("version").map(String::as_str)).await?;
    if let Some(sel) = query.get("selection") {
        let ids: Vec<&str> = sel
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if ids.is_empty() || ids.len() > MAX_SELECTION {
            return Err(invalid(format!(
                "a selection names 1 to {MAX_SELECTION} object ids"
            )));
        }
        objects = render::select(&objects, &ids).map_err(|e| invalid(e.to_string()))?;
    }
    let mut keys: Vec<_> = query.iter().collect();
    keys.sort();
    let etag = format!(
        "\"{seq}-{:016x}\"",
        crate::board::fnv1a(&format!("{ext}{keys:?}{}", access.title))
    );
    Ok(Exported {
        id,
        title: access.title,
        seq,
        objects,
        query,
        etag,
    })
}

/// A `304` when the caller already holds this export.
fn not_modified(headers: &HeaderMap, etag: &str) -> Option<Response> {
    let held = headers.get(header::IF_NONE_MATCH)?.to_str().ok()?;
    held.split(',')
        .any(|t| t.trim() == etag)
        .then(|| (StatusCode::NOT_MODIFIED, [(header::ETAG, etag.to_owned())]).into_response())
}

/// A download name from the title: letters, digits, `-` and `_` kept, the rest `_`.
fn file_name(title: &str, ext: &str) -> String {
    let base: String = title
        .chars()
        .take(60)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let base = base.trim_matches('_');
    format!("{}.{ext}", if base.is_empty() { "board" } else { base })
}

fn answer(e: &Exported, ext: &str, mime: &'static str, body: Vec<u8>, inline: bool) -> Response {
    let disposition = if inline {
        "inline".to_owned()
    } else {
        format!("attachment; filename=\"{}\"", file_name(&e.title, ext))
    };
    let mut r = (StatusCode::OK, body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // An SVG opened on its own is a document: nothing in it may run or load.
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; sandbox"),
    );
    if let Ok(v) = HeaderValue::from_str(&e.etag) {
        h.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    r
}

macro_rules! export_or_return {
    ($shared:expr, $headers:expr, $id:expr, $params:expr, $ext:expr) => {
        match exported(&$shared, &$headers, &$id, $params, $ext).await {
            Ok(e) => match not_modified(&$headers, &e.etag) {
                Some(r) => return r,
                None => e,
            },
            Err(r) => return r,
        }
    };
}

async fn svg(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    params: Params,
) -> Response {
    let mut e = export_or_return!(shared, headers, board_id, params, "svg");
    let preview = e.query.get("preview").is_some_and(|v| v == "1");
    let options = render::Options {
        fit: preview.then_some(PREVIEW_PX),
        ..render::Options::default()
    };
    let drawn = shared
        .drawings
        .draw(std::mem::take(&mut e.objects), options, render::Target::Svg);
    match drawn.await {
        Ok(s) => answer(&e, "svg", "image/svg+xml", s, preview),
        Err(r) => r,
    }
}

async fn png(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    params: Params,
) -> Response {
    let mut e = export_or_return!(shared, headers, board_id, params, "png");
    let scale = match e.query.get("scale").map(|s| s.parse::<f64>()) {
        None => 1.0,
        Some(Ok(s)) if s.is_finite() && (render::MIN_SCALE..=render::MAX_SCALE).contains(&s) => s,
        Some(_) => {
            return invalid(format!(
                "scale is a number from {} to {}",
                render::MIN_SCALE,
                render::MAX_SCALE
            ));
        }
    };
    let target = render::Target::Png { scale };
    let drawn = shared.drawings.draw(
        std::mem::take(&mut e.objects),
        render::Options::default(),
        target,
    );
    match drawn.await {
        Ok(b) => answer(&e, "png", "image/png", b, false),
        Err(r) => r,
    }
}

async fn pdf(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    params: Params,
) -> Response {
    let mut e = export_or_return!(shared, headers, board_id, params, "pdf");
    let target = render::Target::Pdf;
    let drawn = shared.drawings.draw(
        std::mem::take(&mut e.objects),
        render::Options::default(),
        target,
    );
    match drawn.await {
        Ok(b) => answer(&e, "pdf", "application/pdf", b, false),
        Err(r) => r,
    }
}

async fn json(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    params: Params,
) -> Response {
    let e = export_or_return!(shared, headers, board_id, params, "json");
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let doc = render::file::write(e.id.as_str(), &e.title, e.seq, now_ms, &e.objects);
    let body = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    answer(&e, "json", "application/json", body, false)
}

async fn import(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    params: Params,
    body: Body,
) -> Response {
    let (who, cookie) = match signed_in(&shared, &headers).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    if let Err(r) = guard_write(&shared, &headers, cookie) {
        return r;
    }
    // The role first: nobody below editor makes the server take in a board file (NET-6).
    let (id, _) = match board_access(&shared, &who, &board_id, Role::Editor).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let limit = crate::http::edge::BodyLimit {
        bytes: IMPORT_MAX_BYTES,
        within: shared.config.http_body_timeout() * 6,
    };
    let bytes = match crate::http::edge::read_body(&headers, body, limit).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let doc: serde_json::Value = match crate::http::caller::body(&bytes) {
        Ok(v) => v,
        Err(r) => return r,
    };
    let parsed = match render::file::read(&doc) {
        Ok(p) => p,
        Err(e) => return invalid(e.0),
    };
    let max = shared.config.max_objects;
    if parsed.objects.len() > max {
        return json_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::LimitExceeded,
            format!(
                "{} objects; a board holds at most {max}",
                parsed.objects.len()
            ),
        );
    }
    // The credential's user. With `--auth off` everyone is the admin and the page says who it
    // is (`?as=`), so that person's undo reverts the import; the admin token imports as "import".
    let named = params
        .ok()
        .filter(|_| !shared.auth.on)
        .and_then(|Query(q)| q.get("as").cloned());
    let user = crate::auth::Auth::user_id(&who)
        .map(str::to_owned)
        .or(named)
        .and_then(|id| crate::auth::wire_user(&id))
        .or_else(|| UserId::try_from("import").ok());
    let Some(user) = user else {
        return invalid("no user to import as");
    };
    let addr = match shared.registry.get(&shared, &id).await {
        Ok(a) => a,
        Err(e) => {
            return json_error(
                StatusCode::SERVICE_UNAVAILABLE,
                e.code(),
                crate::errors::public(e.public_message(), &e),
            );
        }
    };
    let sent = addr
        .send(Import {
            user,
            objects: parsed.objects,
        })
        .await;
    match sent {
        Ok(Ok(Imported {
            seq,
            created,
            skipped,
        })) => axum::Json(serde_json::json!({
            "board": id, "seq": seq, "created": created, "skipped": skipped
        }))
        .into_response(),
        Ok(Err(e)) => {
            let status = match e.code {
                ErrorCode::StoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
                _ => StatusCode::BAD_REQUEST,
            };
            json_error(status, e.code, e.message)
        }
        Err(_) => json_error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::StoreUnavailable,
            "the board is restarting; try again shortly",
        ),
    }
}
