//! Export and import of boards as files (rules `EXPORT-*` in `docs/SPEC.md`, the file format in
//! `docs/FILES.md`). Drawing is the `render` crate's; this file checks roles, reads the board,
//! and answers.
//!
//! - `GET /api/boards/{id}/export.svg|.png|.pdf|.json` (viewer): the durable board drawn as the
//!   browser draws it, or as a board file. `?selection=id,id` limits it to those objects (with
//!   frame contents and the connectors between them; an unknown id is 400 `invalid`);
//!   `?version=v` draws a saved version (HIST-1; unknown: 404); `?scale=` (PNG, 0.1..=4,
//!   lowered to a 16 Mpx cap); `?preview=1` (SVG: fits 240 px, shown inline); `?comments=1`
//!   (board file only: adds `comments`, every comment thread; COMMENT-9). Answers carry an
//!   `ETag` (board seq + query) and a `304` for a matching `If-None-Match`. Drawings (and the
//!   board list's previews) run through [`crate::drawing`]: at most two at once, each within a
//!   time and memory budget (EXPORT-12: 503 `busy`, 422 `too_large`).
//! - `POST /api/boards/{id}/import` (editor): a board file (or the older `GET /api/boards/{id}`
//!   shape) added to the board as one command by the caller (`?as=user` names them under
//!   `--auth off`), in open space:
//!   `200 {"board", "seq", "created": [ids], "skipped": n}`.

use super::ApiError;
use super::caller::{board_access, board_read, guard_write, signed_in};
use super::edge::{BodyLimit, read_body};
use crate::board::import::{Import, Imported};
use crate::shared::Shared;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use protocol::{BoardId, BoardObject, ErrorCode, Role, Seq, UserId};
use std::collections::HashMap;
use std::sync::Arc;

/// The most ids a `?selection=` may name.
const MAX_SELECTION: usize = 10_000;
/// A preview fits in a square of this many px.
const PREVIEW_PX: f64 = 240.0;

/// The export and import routes (merged into [`super::router`]).
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/boards/{board_id}/export.svg", get(svg))
        .route("/api/boards/{board_id}/export.png", get(png))
        .route("/api/boards/{board_id}/export.pdf", get(pdf))
        .route("/api/boards/{board_id}/export.json", get(json))
        .route("/api/boards/{board_id}/import", post(import))
}

type Params = Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>;

/// A board to export: who asked, what it holds (the part asked for), its title and seq.
struct Exported {
    id: BoardId,
    title: String,
    seq: Seq,
    objects: Vec<BoardObject>,
    /// The pictures the objects show (base64).
    pictures: Vec<render::file::FilePicture>,
    query: HashMap<String, String>,
    etag: String,
    /// `?comments=1` on the board file: every comment thread (COMMENT-9); never otherwise.
    threads: Option<Vec<protocol::Thread>>,
}

/// The objects of board `id` at `version` (a version id of HIST-1; None: now, durable state
/// only). An unknown version is 404 `not_found`.
async fn objects_at(
    shared: &Shared,
    id: &BoardId,
    version: Option<&str>,
) -> Result<(Seq, Vec<BoardObject>), ApiError> {
    let Some(v) = version else {
        return super::boards::durable_objects(shared, id).await;
    };
    let missing = || ApiError::not_found(format!("no version {v}"));
    let n: u64 = v.parse().map_err(|_| missing())?;
    match shared.store.load_version(id, n).await? {
        Some((info, objects)) => Ok((info.seq, objects)),
        None => Err(missing()),
    }
}

/// Checks the caller (viewer and up) and the query, and reads the part of the board asked for.
async fn exported(
    shared: &Shared,
    headers: &HeaderMap,
    board_id: &str,
    params: Params,
    ext: &str,
) -> Result<Exported, ApiError> {
    let (id, access) = board_read(shared, headers, board_id).await?;
    let Query(query) =
        params.map_err(|_| ApiError::invalid("the query string could not be read"))?;
    let (seq, mut objects) =
        objects_at(shared, &id, query.get("version").map(String::as_str)).await?;
    if let Some(sel) = query.get("selection") {
        let ids: Vec<&str> = sel
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if ids.is_empty() || ids.len() > MAX_SELECTION {
            return Err(ApiError::invalid(format!(
                "a selection names 1 to {MAX_SELECTION} object ids"
            )));
        }
        objects = render::select(&objects, &ids).map_err(|e| ApiError::invalid(e.to_string()))?;
    }
    let mut keys: Vec<_> = query.iter().collect();
    keys.sort();
    let threads = match query.get("comments").map(String::as_str) {
        Some("1") if ext == "json" => Some(shared.store.load_threads(&id).await?),
        _ => None,
    };
    // Comments change without the seq: their comment seq is part of the tag.
    let cseq = threads.iter().flatten().map(|t| t.cseq).max().unwrap_or(0);
    let etag = format!(
        "\"{seq}-{:016x}\"",
        crate::board::fnv1a(&format!("{ext}{keys:?}{}{cseq}", access.title))
    );
    let threads = threads.map(|ts| ts.into_iter().map(|t| t.thread).collect());
    let thumbnail = ext == "svg" && query.get("preview").is_some_and(|v| v == "1");
    let pictures = pictures_of(shared, &id, &objects, thumbnail).await?;
    Ok(Exported {
        id,
        title: access.title,
        seq,
        objects,
        pictures,
        query,
        etag,
        threads,
    })
}

/// The pictures `objects` show, in base64 (ASSET-10, ASSET-12: exports draw them, board files
/// carry them); `small`: their previews (a board's thumbnail, ASSET-8).
async fn pictures_of(
    shared: &Shared,
    id: &BoardId,
    objects: &[BoardObject],
    small: bool,
) -> Result<Vec<render::file::FilePicture>, ApiError> {
    use base64::Engine as _;
    let used: std::collections::HashSet<&str> =
        objects.iter().filter_map(|o| o.asset.as_deref()).collect();
    let mut out = Vec::new();
    if used.is_empty() {
        return Ok(out);
    }
    for meta in shared.store.board_assets(id).await? {
        if !used.contains(meta.sha256.as_str()) {
            continue;
        }
        let found = if small {
            super::pictures::small(shared, &meta.sha256, meta.mime).await?
        } else {
            let bytes = shared.store.asset_bytes(&meta.sha256).await?;
            bytes.map(|b| (bytes::Bytes::from(b), meta.mime))
        };
        let Some((bytes, mime)) = found else {
            continue;
        };
        out.push(render::file::FilePicture {
            sha256: meta.sha256,
            mime,
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        });
    }
    Ok(out)
}

/// Drawing options with the export's pictures, as `data:` URIs by hash.
fn with_pictures(e: &Exported) -> render::Options {
    let uris = e.pictures.iter().map(|p| {
        let uri = format!("data:{};base64,{}", p.mime, p.data);
        (p.sha256.clone(), uri)
    });
    render::Options {
        pictures: Arc::new(uris.collect()),
        ..render::Options::default()
    }
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

/// The export asked for (after [`exported`]'s checks), or the `304` of a caller who holds it.
async fn export_or_cached(
    shared: &Shared,
    headers: &HeaderMap,
    board_id: &str,
    params: Params,
    ext: &str,
) -> Result<Result<Exported, Response>, ApiError> {
    let e = exported(shared, headers, board_id, params, ext).await?;
    Ok(match not_modified(headers, &e.etag) {
        Some(r) => Err(r),
        None => Ok(e),
    })
}

async fn svg(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    params: Params,
) -> Result<Response, ApiError> {
    let mut e = match export_or_cached(&shared, &headers, &board_id, params, "svg").await? {
        Ok(e) => e,
        Err(cached) => return Ok(cached),
    };
    let preview = e.query.get("preview").is_some_and(|v| v == "1");
    let options = render::Options {
        fit: preview.then_some(PREVIEW_PX),
        ..with_pictures(&e)
    };
    let objects = std::mem::take(&mut e.objects);
    let drawn = shared.drawings.draw(objects, options, render::Target::Svg);
    Ok(answer(&e, "svg", "image/svg+xml", drawn.await?, preview))
}

/// `?scale=` of a PNG: 1 when absent.
fn scale(query: &HashMap<String, String>) -> Result<f64, ApiError> {
    match query.get("scale").map(|s| s.parse::<f64>()) {
        None => Ok(1.0),
        Some(Ok(s)) if s.is_finite() && (render::MIN_SCALE..=render::MAX_SCALE).contains(&s) => {
            Ok(s)
        }
        Some(_) => Err(ApiError::invalid(format!(
            "scale is a number from {} to {}",
            render::MIN_SCALE,
            render::MAX_SCALE
        ))),
    }
}

async fn png(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    params: Params,
) -> Result<Response, ApiError> {
    let mut e = match export_or_cached(&shared, &headers, &board_id, params, "png").await? {
        Ok(e) => e,
        Err(cached) => return Ok(cached),
    };
    let target = render::Target::Png {
        scale: scale(&e.query)?,
    };
    let objects = std::mem::take(&mut e.objects);
    let drawn = shared.drawings.draw(objects, with_pictures(&e), target);
    Ok(answer(&e, "png", "image/png", drawn.await?, false))
}

async fn pdf(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    params: Params,
) -> Result<Response, ApiError> {
    let mut e = match export_or_cached(&shared, &headers, &board_id, params, "pdf").await? {
        Ok(e) => e,
        Err(cached) => return Ok(cached),
    };
    let objects = std::mem::take(&mut e.objects);
    let drawn = shared
        .drawings
        .draw(objects, with_pictures(&e), render::Target::Pdf);
    Ok(answer(&e, "pdf", "application/pdf", drawn.await?, false))
}

async fn json(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    params: Params,
) -> Result<Response, ApiError> {
    let e = match export_or_cached(&shared, &headers, &board_id, params, "json").await? {
        Ok(e) => e,
        Err(cached) => return Ok(cached),
    };
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let from = render::file::Origin {
        board: e.id.as_str(),
        title: &e.title,
        seq: e.seq,
        exported_at: now_ms,
    };
    let mut doc = render::file::write(&from, &e.objects, &e.pictures);
    if let (Some(threads), Some(map)) = (&e.threads, doc.as_object_mut()) {
        map.insert("comments".into(), serde_json::json!(threads));
    }
    let body = serde_json::to_vec_pretty(&doc).unwrap_or_default();
    Ok(answer(&e, "json", "application/json", body, false))
}

/// `POST /api/boards/{id}/import` (editor): the objects of a board file, added as one command.
async fn import(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    params: Params,
    body: Body,
) -> Result<Response, ApiError> {
    let (who, cookie) = signed_in(&shared, &headers).await?;
    guard_write(&shared, &headers, cookie)?;
    // The role first: nobody below editor makes the server take in a board file (NET-6).
    let (id, _) = board_access(&shared, &who, &board_id, Role::Editor).await?;
    let limit = BodyLimit {
        bytes: shared.config.max_file_bytes,
        within: shared.config.http_body_timeout() * 6,
    };
    let bytes = read_body(&headers, body, limit).await?;
    let doc: serde_json::Value = super::caller::body(&bytes)?;
    let mut parsed = render::file::read(&doc).map_err(|e| ApiError::invalid(e.0))?;
    let max = shared.config.max_objects;
    if parsed.objects.len() > max {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::LimitExceeded,
            format!(
                "{} objects; a board holds at most {max}",
                parsed.objects.len()
            ),
        ));
    }
    let user = importer(&shared, &who, params)?;
    let pictures = std::mem::take(&mut parsed.pictures);
    let names = super::pictures::from_file(&shared, &id, pictures).await?;
    super::pictures::rename(&mut parsed.objects, &names);
    let addr = shared.registry.get(&shared.env, &id).await?;
    let sent = addr
        .import(Import {
            user,
            objects: parsed.objects,
        })
        .await;
    let Imported {
        seq,
        created,
        skipped,
    } = match sent {
        Ok(Ok(imported)) => imported,
        Ok(Err(e)) => {
            let status = match e.code {
                ErrorCode::StoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
                _ => StatusCode::BAD_REQUEST,
            };
            return Err(ApiError::new(status, e.code, e.message));
        }
        Err(_) => {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::StoreUnavailable,
                "the board is restarting; try again shortly",
            ));
        }
    };
    let out = serde_json::json!({
        "board": id, "seq": seq, "created": created, "skipped": skipped
    });
    Ok(axum::Json(out).into_response())
}

/// Whom an import is by: the credential's user. With `--auth off` everyone is the admin and
/// the page says who it is (`?as=`), so that person's undo reverts the import; the admin token
/// imports as "import".
fn importer(
    shared: &Shared,
    who: &crate::auth::Principal,
    params: Params,
) -> Result<UserId, ApiError> {
    let named = params
        .ok()
        .filter(|_| !shared.auth.on)
        .and_then(|Query(q)| q.get("as").cloned());
    crate::auth::Auth::user_id(who)
        .map(str::to_owned)
        .or(named)
        .and_then(|id| crate::auth::wire_user(&id))
        .or_else(|| UserId::try_from("import").ok())
        .ok_or_else(|| ApiError::invalid("no user to import as"))
}
