//! A board's pictures (ASSET-1..9): upload (`POST /api/boards/{id}/assets`, editor), the
//! list (`GET …/assets`, viewer), one picture or its preview (`GET …/assets/{sha256}`, viewer),
//! and a copy from another board the caller may read (`POST …/assets/copy`, editor). The bytes
//! are checked and cleaned by [`crate::pictures`] on a small pool, stored once per hash, and
//! served as inert files: `nosniff`, a CSP that runs nothing, same-origin only.

use super::ApiError;
use super::caller::{board_access, board_read, guard_upload, signed_in, signed_in_write};
use super::edge::{BodyLimit, read_body};
use crate::pictures::{self, Refused};
use crate::shared::Shared;
use crate::store::AssetMeta;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use protocol::{BoardId, ErrorCode, Role};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use tokio::sync::Semaphore;

/// Pictures decoded at once (a large one takes a core for a while).
const TURNS: usize = 2;

/// What a picture is served with: it runs nothing, is never sniffed into something else, and is
/// read by this site only.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/boards/{board_id}/assets", get(list).post(upload))
        .route("/api/boards/{board_id}/assets/copy", post(copy))
        .route("/api/boards/{board_id}/assets/{sha256}", get(one))
}

/// Runs `work` on a blocking thread, at most [`TURNS`] at once.
async fn in_pool<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    static POOL: OnceLock<Arc<Semaphore>> = OnceLock::new();
    let pool = POOL.get_or_init(|| Arc::new(Semaphore::new(TURNS))).clone();
    let busy = || {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Busy,
            "pictures are being read; try again shortly",
        )
    };
    let _turn = pool.acquire_owned().await.map_err(|_| busy())?;
    tokio::task::spawn_blocking(work).await.map_err(|_| busy())
}

fn refused(r: Refused) -> ApiError {
    match r {
        Refused::Unsupported(m) => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::UnsupportedMedia,
            m,
        ),
        Refused::Invalid(m) => ApiError::invalid(m),
    }
}

fn no_picture() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        "no such picture on this board",
    )
}

/// Refuses a picture that would take the board past `--max-board-asset-bytes`. What counts:
/// the pictures the board uses (its objects, undo history, kept versions), and those registered
/// within the grace period, not yet placed (ASSET-5); not those it let go.
async fn has_room(
    shared: &Shared,
    id: &BoardId,
    have: &[AssetMeta],
    more: u64,
) -> Result<(), ApiError> {
    let in_use = crate::board::sweep::in_use(&shared.env, id).await?;
    let grace = i64::try_from(shared.config.asset_grace().as_millis()).unwrap_or(i64::MAX);
    let recent = crate::store::now_ms().saturating_sub(grace);
    let used: u64 = have
        .iter()
        .filter(|m| in_use.contains(&m.sha256) || m.added_at_ms > recent)
        .map(|m| m.bytes)
        .sum();
    let max = shared.config.max_board_asset_bytes;
    if used + more > max {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::LimitExceeded,
            format!("the board's pictures may take {max} bytes (--max-board-asset-bytes)"),
        ));
    }
    Ok(())
}

/// Tells the running board (on whichever node) that it may show these pictures now.
async fn tell_board(shared: &Shared, id: &BoardId, names: Vec<String>) {
    if let Some(h) = shared.registry.live(id).await {
        h.assets_added(names).await;
    }
}

fn saved(meta: &AssetMeta, added: bool) -> Response {
    let status = if added {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    (status, axum::Json(meta)).into_response()
}

/// `POST /api/boards/{id}/assets` (editor): the picture's bytes as the body.
async fn upload(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let (who, cookie) = signed_in(&shared, &headers).await?;
    guard_upload(&shared, &headers, cookie)?;
    // The role first: nobody below editor makes the server read a picture.
    let (id, _) = board_access(&shared, &who, &board_id, Role::Editor).await?;
    let limit = BodyLimit {
        bytes: shared.config.max_asset_bytes,
        within: shared.config.http_body_timeout() * 6,
    };
    let bytes = read_body(&headers, body, limit).await?;
    let max_pixels = shared.config.max_asset_pixels;
    let picture = in_pool(move || pictures::take(&bytes, max_pixels))
        .await?
        .map_err(refused)?;
    let sha256 = pictures::sha256_hex(&picture.bytes);
    let have = shared.store.board_assets(&id).await?;
    if let Some(m) = have.iter().find(|m| m.sha256 == sha256) {
        // Registered again: the grace period starts over (ASSET-11).
        shared.store.register_asset(&id, &sha256).await?;
        return Ok(saved(m, false));
    }
    has_room(&shared, &id, &have, picture.bytes.len() as u64).await?;
    crate::quota::store_has_room(&shared, &shared.auth.store).await?;
    let (meta, bytes) = stored(picture, sha256);
    let added = shared.store.put_asset(&id, &meta, bytes).await?;
    tell_board(&shared, &id, vec![meta.sha256.clone()]).await;
    Ok(saved(&meta, added))
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CopyBody {
    from_board: String,
    sha256: String,
}

/// `POST /api/boards/{id}/assets/copy` (editor here, viewer on the source): registers a picture
/// of another board here without moving its bytes (paste across boards).
async fn copy(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let who = signed_in_write(&shared, &headers).await?;
    let (id, _) = board_access(&shared, &who, &board_id, Role::Editor).await?;
    let bytes = read_body(&headers, body, BodyLimit::small(&shared)).await?;
    let b: CopyBody = super::caller::body(&bytes)?;
    let (from, _) = board_access(&shared, &who, &b.from_board, Role::Viewer).await?;
    let Some(meta) = shared.store.board_asset(&from, &b.sha256).await? else {
        return Err(no_picture());
    };
    let have = shared.store.board_assets(&id).await?;
    if have.iter().any(|m| m.sha256 == meta.sha256) {
        shared.store.register_asset(&id, &meta.sha256).await?;
        return Ok(saved(&meta, false));
    }
    has_room(&shared, &id, &have, meta.bytes).await?;
    let added = shared.store.register_asset(&id, &meta.sha256).await?;
    let Some(added) = added else {
        return Err(no_picture());
    };
    tell_board(&shared, &id, vec![meta.sha256.clone()]).await;
    Ok(saved(&meta, added))
}

/// `GET /api/boards/{id}/assets` (viewer): the board's pictures, and whether each is in use
/// now (by its objects, a running board's undo history, or a kept version).
async fn list(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (id, _) = board_read(&shared, &headers, &board_id).await?;
    let have = shared.store.board_assets(&id).await?;
    let used = crate::board::sweep::in_use(&shared.env, &id).await?;
    let assets: Vec<_> = have
        .iter()
        .map(|m| {
            let mut v = json!(m);
            v["in_use"] = json!(used.contains(&m.sha256));
            v
        })
        .collect();
    Ok(axum::Json(json!({"board": id, "assets": assets})).into_response())
}

/// `GET /api/boards/{id}/assets/{sha256}` (viewer; `?preview=1` for at most 1,024 px): the
/// bytes, served inert. A picture registered only on another board is 404 like an unknown one.
async fn one(
    Path((board_id, sha256)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let (id, _) = board_read(&shared, &headers, &board_id).await?;
    if !protocol::model::is_asset_name(&sha256) {
        return Err(no_picture());
    }
    let meta = shared.store.board_asset(&id, &sha256).await?;
    let meta = meta.ok_or_else(no_picture)?;
    let preview = q.get("preview").is_some_and(|v| v == "1");
    let etag = format!("\"{sha256}{}\"", if preview { "-preview" } else { "" });
    let matched = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    if matched {
        return Ok(inert(
            StatusCode::NOT_MODIFIED,
            &etag,
            &meta.mime,
            bytes::Bytes::new(),
        ));
    }
    let found = if preview {
        small(&shared, &sha256, meta.mime).await?
    } else {
        let bytes = shared.store.asset_bytes(&sha256).await?;
        bytes.map(|b| (bytes::Bytes::from(b), meta.mime))
    };
    let (body, mime) = found.ok_or_else(no_picture)?;
    Ok(inert(StatusCode::OK, &etag, &mime, body))
}

/// A picture's preview (ASSET-8) and its type: kept, else read, made (off the async threads)
/// and kept; a picture already small is its own preview. None when the store has no bytes.
pub(super) async fn small(
    shared: &Shared,
    sha256: &str,
    mime: String,
) -> Result<Option<(bytes::Bytes, String)>, ApiError> {
    if let Some((p, m)) = previews().get(sha256) {
        return Ok(Some((p, m.to_owned())));
    }
    let Some(bytes) = shared.store.asset_bytes(sha256).await? else {
        return Ok(None);
    };
    let kind = mime.clone();
    let made = in_pool(move || {
        let small = pictures::preview(&bytes, &kind);
        (bytes, small)
    })
    .await?;
    Ok(Some(match made {
        (_, Some((p, m))) => {
            let p = bytes::Bytes::from(p);
            previews().put(sha256, p.clone(), m);
            (p, m.to_owned())
        }
        (whole, None) => (bytes::Bytes::from(whole), mime),
    }))
}

/// Bytes of previews kept in memory: a board of many large pictures is drawn from previews, and
/// making one decodes the whole picture.
const PREVIEWS_KEPT: usize = 64 << 20;

/// Previews made lately, by hash, the oldest dropped first past [`PREVIEWS_KEPT`].
#[derive(Default)]
struct Previews {
    kept: std::sync::Mutex<PreviewsInner>,
}

#[derive(Default)]
struct PreviewsInner {
    bytes: usize,
    order: std::collections::VecDeque<String>,
    by_hash: HashMap<String, (bytes::Bytes, &'static str)>,
}

fn previews() -> &'static Previews {
    static KEPT: OnceLock<Previews> = OnceLock::new();
    KEPT.get_or_init(Previews::default)
}

impl Previews {
    fn get(&self, sha256: &str) -> Option<(bytes::Bytes, &'static str)> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.by_hash.get(sha256).cloned()
    }

    fn put(&self, sha256: &str, p: bytes::Bytes, mime: &'static str) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let k = &mut *kept;
        k.bytes += p.len();
        match k.by_hash.insert(sha256.to_owned(), (p, mime)) {
            Some((old, _)) => k.bytes -= old.len(),
            None => k.order.push_back(sha256.to_owned()),
        }
        while k.bytes > PREVIEWS_KEPT
            && let Some(old) = k.order.pop_front()
        {
            if let Some((gone, _)) = k.by_hash.remove(&old) {
                k.bytes -= gone.len();
            }
        }
    }
}

/// A picture's answer with the headers that keep it inert and cached.
fn inert(status: StatusCode, etag: &str, mime: &str, body: bytes::Bytes) -> Response {
    let mut r = (status, body).into_response();
    let h = r.headers_mut();
    let set = |v: &str| HeaderValue::from_str(v).unwrap_or(HeaderValue::from_static(""));
    h.insert(header::CONTENT_TYPE, set(mime));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=31536000, immutable"),
    );
    h.insert(header::ETAG, set(etag));
    r
}

/// The pictures of a board file (ASSET-12), registered on board `id` like uploads: each one's
/// bytes must hash to the name the file gives it, and each goes through the same intake. The
/// answer maps the file's names to the stored ones (the intake may clean a picture into other
/// bytes, so other names).
pub(super) async fn from_file(
    shared: &Shared,
    id: &BoardId,
    pictures: Vec<render::file::FilePicture>,
) -> Result<HashMap<String, String>, ApiError> {
    let mut names = HashMap::new();
    let mut taken = Vec::new();
    for (i, p) in pictures.into_iter().enumerate() {
        let (meta, bytes) = file_picture(shared, i, p.data, &p.sha256).await?;
        names.insert(p.sha256, meta.sha256.clone());
        if !taken
            .iter()
            .any(|(m, _): &(AssetMeta, _)| m.sha256 == meta.sha256)
        {
            taken.push((meta, bytes));
        }
    }
    if taken.is_empty() {
        return Ok(names);
    }
    let have = shared.store.board_assets(id).await?;
    let more = taken
        .iter()
        .filter(|(m, _)| !have.iter().any(|h| h.sha256 == m.sha256))
        .map(|(m, _)| m.bytes)
        .sum();
    has_room(shared, id, &have, more).await?;
    crate::quota::store_has_room(shared, &shared.auth.store).await?;
    let mut added = Vec::new();
    for (meta, bytes) in taken {
        shared.store.put_asset(id, &meta, bytes).await?;
        added.push(meta.sha256);
    }
    tell_board(shared, id, added).await;
    Ok(names)
}

/// Picture `i` of a board file: decoded, checked against its name, taken in like an upload.
async fn file_picture(
    shared: &Shared,
    i: usize,
    data: String,
    named: &str,
) -> Result<(AssetMeta, bytes::Bytes), ApiError> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|_| ApiError::invalid(format!("picture {i}: its data is not base64")))?;
    if bytes.len() > shared.config.max_asset_bytes {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::TooLarge,
            format!("picture {i} is larger than a picture may be (--max-asset-bytes)"),
        ));
    }
    if pictures::sha256_hex(&bytes) != named {
        return Err(ApiError::invalid(format!(
            "picture {i}: its bytes do not match its sha256"
        )));
    }
    let max_pixels = shared.config.max_asset_pixels;
    let picture = in_pool(move || pictures::take(&bytes, max_pixels))
        .await?
        .map_err(|r| match r {
            Refused::Unsupported(m) | Refused::Invalid(m) => {
                ApiError::invalid(format!("picture {i}: {m}"))
            }
        })?;
    let sha256 = pictures::sha256_hex(&picture.bytes);
    Ok(stored(picture, sha256))
}

/// A picture taken in, as the store keeps it: its description and its bytes.
fn stored(picture: pictures::Picture, sha256: String) -> (AssetMeta, bytes::Bytes) {
    let meta = AssetMeta {
        sha256,
        mime: picture.mime.to_owned(),
        bytes: picture.bytes.len() as u64,
        w: picture.w,
        h: picture.h,
        animated: picture.animated,
        added_at_ms: 0,
    };
    (meta, bytes::Bytes::from(picture.bytes))
}

/// Points the objects' images at the stored names of a file's pictures.
pub(super) fn rename(objects: &mut [protocol::ObjectInput], names: &HashMap<String, String>) {
    for o in objects {
        if let Some(new) = o.asset.as_ref().and_then(|a| names.get(a)) {
            o.asset = Some(new.clone());
        }
    }
}
