//! Credentials of an HTTP request (AUTH-7: the session cookie, or `Authorization: Bearer` with
//! the admin token or a board token), the checks of state-changing requests (AUTH-14: origin and
//! content type), and the sign-in, identity and token routes. Share links and members are in
//! `share.rs`.
// Errors here are HTTP answers on their way out; boxing them buys nothing.
#![allow(clippy::result_large_err)]

use super::{Access, Auth, Lookup, Principal, User};
use crate::edge::{BodyLimit, read_body};
use crate::http::json_error;
use crate::shared::Shared;
use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use protocol::{BoardId, ErrorCode, Role};
use serde::Deserialize;
use serde_json::json;
use std::net::SocketAddr;
use std::sync::Arc;

pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/login", post(login))
        .route("/api/login/preview", post(login_preview))
        .route("/api/logout", post(logout))
        .route("/api/me", axum::routing::get(me).patch(rename_me))
        .route("/api/login-links", post(login_link))
        .route("/api/tokens", post(tokens))
        .route("/api/boards/{board_id}/token", post(board_token))
        .merge(super::share::routes())
}

/// The bearer token of a request.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// The session cookie's value, if the request carries one.
pub fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == super::COOKIE)
        .map(|(_, v)| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// Who sent a request, and whether through the cookie (which needs the origin check).
pub struct Caller {
    pub who: Option<Principal>,
    pub cookie: bool,
}

pub fn unauthorized() -> Response {
    json_error(
        StatusCode::UNAUTHORIZED,
        ErrorCode::Unauthorized,
        "valid credentials needed",
    )
}

pub fn forbidden(message: &str) -> Response {
    json_error(StatusCode::FORBIDDEN, ErrorCode::Forbidden, message)
}

pub fn not_found(board: &str) -> Response {
    json_error(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        format!("no board {board}"),
    )
}

pub fn unavailable(e: &super::AuthStoreError) -> Response {
    json_error(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::StoreUnavailable,
        crate::errors::public("the account store is unavailable; try again shortly", e),
    )
}

pub fn invalid(message: impl Into<String>) -> Response {
    json_error(StatusCode::BAD_REQUEST, ErrorCode::Invalid, message)
}

/// The caller of a request: a bearer credential (an invalid one is refused, never ignored),
/// else the session cookie. With `--auth off` everyone is the admin.
pub async fn caller(shared: &Shared, headers: &HeaderMap) -> Result<Caller, Response> {
    let auth = &shared.auth;
    if !auth.on {
        return Ok(Caller {
            who: Some(Principal::Admin),
            cookie: false,
        });
    }
    if headers.contains_key(header::AUTHORIZATION) {
        let who = match bearer(headers) {
            // A token minted from a session dies with it (AUTH-19).
            Some(t) => auth.credential(t).await.map_err(|e| unavailable(&e))?,
            None => None,
        };
        return match who.map(|(w, _)| w) {
            Some(w) => Ok(Caller {
                who: Some(w),
                cookie: false,
            }),
            None => Err(unauthorized()),
        };
    }
    let Some(c) = session_cookie(headers) else {
        return Ok(Caller {
            who: None,
            cookie: false,
        });
    };
    match auth.session(&c).await {
        Ok(Some(u)) => Ok(Caller {
            who: Some(Principal::User(u)),
            cookie: true,
        }),
        Ok(None) => Ok(Caller {
            who: None,
            cookie: false,
        }),
        Err(e) => Err(unavailable(&e)),
    }
}

/// The caller, who must be authenticated (401 otherwise).
pub async fn signed_in(
    shared: &Shared,
    headers: &HeaderMap,
) -> Result<(Principal, bool), Response> {
    let c = caller(shared, headers).await?;
    match c.who {
        Some(w) => Ok((w, c.cookie)),
        None => Err(unauthorized()),
    }
}

/// A signed-in caller of a state-changing request that passed the write checks
/// ([`guard_write`]): what every cookie- or bearer-authenticated write starts with.
pub async fn signed_in_write(shared: &Shared, headers: &HeaderMap) -> Result<Principal, Response> {
    let (who, cookie) = signed_in(shared, headers).await?;
    guard_write(shared, headers, cookie)?;
    Ok(who)
}

/// AUTH-14: a state-changing request with a body must be `application/json`; one that a cookie
/// authenticates must come from an allowed origin (a missing `Origin` is refused too). Judged
/// from the headers, before any of the body is read (NET-6).
pub fn guard_write(shared: &Shared, headers: &HeaderMap, cookie: bool) -> Result<(), Response> {
    if !shared.auth.on {
        return Ok(());
    }
    if crate::edge::has_body(headers) {
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Err(forbidden(
                "state-changing requests must be application/json",
            ));
        }
    }
    if cookie {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let ok = headers
            .get(header::ORIGIN)
            .and_then(|o| o.to_str().ok())
            .is_some_and(|o| shared.auth.origin_allowed(o, host));
        if !ok {
            return Err(forbidden("origin not allowed"));
        }
    }
    Ok(())
}

/// Whether a request that sets a session cookie (sign-in, opening a link) gets the origin check:
/// when it carries a cookie or an `Origin` (a browser); a client with neither is not a browser
/// another site could drive.
pub fn browser(headers: &HeaderMap) -> bool {
    headers.contains_key(header::ORIGIN) || headers.contains_key(header::COOKIE)
}

/// Parses a JSON body (an empty body is `{}`).
pub fn body<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, Response> {
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        bytes
    };
    serde_json::from_slice(bytes).map_err(|e| {
        json_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadJson,
            format!("bad body: {}", protocol::public::serde_message(&e)),
        )
    })
}

/// A body of at most [`BodyLimit::small`] as JSON (routes reachable without a credential, NET-5).
pub async fn small_body<T: for<'de> Deserialize<'de>>(
    shared: &Shared,
    headers: &HeaderMap,
    bytes: Body,
) -> Result<T, Response> {
    body(&read_body(headers, bytes, BodyLimit::small(shared)).await?)
}

/// A body of at most [`BodyLimit::json`] as JSON, read once the caller's role allows the request
/// (NET-6).
pub async fn json_body<T: for<'de> Deserialize<'de>>(
    shared: &Shared,
    headers: &HeaderMap,
    bytes: Body,
) -> Result<T, Response> {
    body(&read_body(headers, bytes, BodyLimit::json(shared)).await?)
}

/// A state-changing request on one board: the caller signed in (with the JSON and origin checks
/// of [`signed_in_write`]), holding at least `need` there, and its JSON body, read only then.
#[allow(clippy::result_large_err)]
pub async fn board_write<T: for<'de> Deserialize<'de>>(
    shared: &Shared,
    headers: &HeaderMap,
    bytes: Body,
    raw: &str,
    need: Role,
) -> Result<(Principal, BoardId, T), Response> {
    let who = signed_in_write(shared, headers).await?;
    let (id, _) = board_access(shared, &who, raw, need).await?;
    let bytes = read_body(headers, bytes, BodyLimit::json(shared)).await?;
    let body = body::<T>(&bytes)?;
    Ok((who, id, body))
}

/// A read of one board: the caller signed in and holding at least viewer there.
#[allow(clippy::result_large_err)]
pub async fn board_read(
    shared: &Shared,
    headers: &HeaderMap,
    raw: &str,
) -> Result<(BoardId, Access), Response> {
    let (who, _) = signed_in(shared, headers).await?;
    board_access(shared, &who, raw, Role::Viewer).await
}

/// The caller's access to a board; a board they have no role on is answered like an unknown
/// board (AUTH-9), and a role below `need` is 403.
pub async fn board_access(
    shared: &Shared,
    who: &Principal,
    raw: &str,
    need: Role,
) -> Result<(BoardId, Access), Response> {
    let id = BoardId::try_from(raw).map_err(|e| invalid(format!("bad board id: {e}")))?;
    match shared.auth.resolve(shared, who, &id).await {
        Ok(Lookup::Role(a)) if a.role >= need => Ok((id, a)),
        Ok(Lookup::Role(_)) => Err(forbidden("your role on this board does not allow this")),
        Ok(_) => Err(not_found(raw)),
        Err(e) => Err(unavailable(&e)),
    }
}

/// `Set-Cookie` for a new session (or, with None, clearing it).
pub fn session_cookie_header(auth: &Auth, value: Option<&str>) -> HeaderValue {
    let secure = if auth.secure_cookies { "; Secure" } else { "" };
    let v = match value {
        Some(v) => format!(
            "{}={v}; HttpOnly; SameSite=Lax; Path=/; Max-Age={}{secure}",
            super::COOKIE,
            super::SESSION_TTL
        ),
        None => format!(
            "{}=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0{secure}",
            super::COOKIE
        ),
    };
    HeaderValue::from_str(&v).unwrap_or_else(|_| HeaderValue::from_static(""))
}

pub fn user_json(u: &User) -> serde_json::Value {
    json!({"id": u.id, "name": u.name, "kind": u.kind})
}

/// A display name: 1-64 characters after trimming.
pub fn display_name(raw: &str) -> Result<String, Response> {
    let name = raw.trim();
    let n = name.chars().count();
    if n == 0 || n > 64 || name.chars().any(char::is_control) {
        return Err(invalid("a name has 1-64 characters"));
    }
    Ok(name.to_owned())
}

fn too_many() -> Response {
    json_error(
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RateLimited,
        "too many attempts; wait a minute",
    )
}

#[derive(Deserialize)]
struct LoginBody {
    code: String,
}

/// `POST /api/login {"code"}`: a one-time code → a session cookie.
async fn login(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    bytes: Body,
) -> Response {
    let auth = &shared.auth;
    if let Err(r) = guard_write(&shared, &headers, browser(&headers)) {
        return r;
    }
    if !auth.attempt(peer.ip()) {
        return too_many();
    }
    let b: LoginBody = match small_body(&shared, &headers, bytes).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let user = match auth
        .store
        .take_login_code(&super::secret::hash(b.code.trim()), super::now())
        .await
    {
        Ok(Some(u)) => u,
        Ok(None) => return unknown_code(),
        Err(e) => return unavailable(&e),
    };
    with_session(&shared, &user, json!({"user": user_json(&user)})).await
}

/// `POST /api/login/preview {"code"}`: who a sign-in link signs in as (and whom the caller is
/// signed in as now), without using it, so the page asks "Sign in as …?" first (AUTH-22).
/// Throttled like a sign-in.
async fn login_preview(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    bytes: Body,
) -> Response {
    let auth = &shared.auth;
    if let Err(r) = guard_write(&shared, &headers, browser(&headers)) {
        return r;
    }
    if !auth.attempt(peer.ip()) {
        return too_many();
    }
    let b: LoginBody = match small_body(&shared, &headers, bytes).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let hash = super::secret::hash(b.code.trim());
    match auth.store.login_code_user(&hash, super::now()).await {
        Ok(Some(user)) => {
            // Whom this browser is signed in as now, so the page can say it switches accounts.
            let now = match caller(&shared, &headers).await {
                Ok(Caller {
                    who: Some(Principal::User(u)),
                    ..
                }) => user_json(&u),
                _ => serde_json::Value::Null,
            };
            axum::Json(json!({"user": user_json(&user), "signed_in_as": now})).into_response()
        }
        Ok(None) => unknown_code(),
        Err(e) => unavailable(&e),
    }
}

fn unknown_code() -> Response {
    json_error(
        StatusCode::UNAUTHORIZED,
        ErrorCode::Unauthorized,
        "this sign-in link is unknown, used or expired",
    )
}

/// A 200 answer carrying `body` and a new session cookie for `user`.
pub async fn with_session(shared: &Shared, user: &User, body: serde_json::Value) -> Response {
    match shared.auth.new_session(&user.id).await {
        Ok(cookie) => {
            let mut r = axum::Json(body).into_response();
            r.headers_mut().insert(
                header::SET_COOKIE,
                session_cookie_header(&shared.auth, Some(&cookie)),
            );
            r
        }
        Err(e) => unavailable(&e),
    }
}

/// `POST /api/logout`: ends the session, clears the cookie.
async fn logout(State(shared): State<Arc<Shared>>, headers: HeaderMap, bytes: Body) -> Response {
    if let Some(c) = session_cookie(&headers) {
        if let Err(r) = guard_write(&shared, &headers, true) {
            return r;
        }
        // Nothing is asked of the body; it is read (within NET-5's bounds) so that it is not
        // taken for the next request.
        if let Err(r) = read_body(&headers, bytes, BodyLimit::small(&shared)).await {
            return r;
        }
        let hash = super::secret::hash(&c);
        if let Err(e) = shared.auth.store.delete_session(&hash).await {
            return unavailable(&e);
        }
        // Its sockets, and those of tokens minted from it, close now (AUTH-19).
        shared.auth.signed_out(&shared, &hash).await;
    }
    let mut r = StatusCode::NO_CONTENT.into_response();
    r.headers_mut().insert(
        header::SET_COOKIE,
        session_cookie_header(&shared.auth, None),
    );
    r
}

/// `GET /api/me`: the signed-in user (401 without a session).
async fn me(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if !shared.auth.on {
        return axum::Json(json!({"auth": "off", "user": null})).into_response();
    }
    match caller(&shared, &headers).await {
        Ok(Caller {
            who: Some(Principal::User(u)),
            ..
        }) => axum::Json(json!({"auth": "on", "user": user_json(&u)})).into_response(),
        Ok(_) => unauthorized(),
        Err(r) => r,
    }
}

#[derive(Deserialize)]
struct NameBody {
    name: String,
}

/// `PATCH /api/me {"name"}`: changes the signed-in user's display name.
async fn rename_me(State(shared): State<Arc<Shared>>, headers: HeaderMap, bytes: Body) -> Response {
    let who = match signed_in_write(&shared, &headers).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let Principal::User(mut u) = who else {
        return unauthorized();
    };
    let name = match json_body::<NameBody>(&shared, &headers, bytes)
        .await
        .and_then(|b| display_name(&b.name))
    {
        Ok(n) => n,
        Err(r) => return r,
    };
    if let Err(e) = shared.auth.store.rename_user(&u.id, &name).await {
        return unavailable(&e);
    }
    u.name = name;
    axum::Json(json!({"user": user_json(&u)})).into_response()
}

/// The admin token, or 401.
async fn admin(shared: &Shared, headers: &HeaderMap) -> Result<(), Response> {
    match caller(shared, headers).await?.who {
        Some(Principal::Admin) => Ok(()),
        Some(_) => Err(forbidden("this needs the admin token")),
        None => Err(unauthorized()),
    }
}

#[derive(Deserialize)]
struct LoginLinkBody {
    #[serde(default)]
    name: Option<String>,
}

/// `POST /api/login-links {"name"?}` (admin): a sign-in link for the owner or a member.
async fn login_link(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: Body,
) -> Response {
    if let Err(r) = admin(&shared, &headers).await {
        return r;
    }
    if let Err(r) = guard_write(&shared, &headers, false) {
        return r;
    }
    let b: LoginLinkBody = match json_body(&shared, &headers, bytes).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let auth = &shared.auth;
    let user = match b.name.as_deref() {
        Some(n) => match display_name(n) {
            Ok(n) => auth.member(&n).await,
            Err(r) => return r,
        },
        None => auth
            .store
            .user(&auth.owner)
            .await
            .and_then(|u| u.ok_or_else(|| super::AuthStoreError("owner missing".into()))),
    };
    let user = match user {
        Ok(u) => u,
        Err(e) => return unavailable(&e),
    };
    match auth.login_code(&user.id).await {
        Ok(code) => axum::Json(json!({"url": format!("/login#{code}"), "user": user_json(&user)}))
            .into_response(),
        Err(e) => unavailable(&e),
    }
}

#[derive(Deserialize)]
struct TokenBody {
    user: String,
    #[serde(default)]
    name: String,
    board: String,
    role: String,
    #[serde(default)]
    ttl_secs: Option<i64>,
}

/// `POST /api/tokens` (admin): mints a board token for an app's user.
async fn tokens(State(shared): State<Arc<Shared>>, headers: HeaderMap, bytes: Body) -> Response {
    if let Err(r) = admin(&shared, &headers).await {
        return r;
    }
    if let Err(r) = guard_write(&shared, &headers, false) {
        return r;
    }
    let b: TokenBody = match json_body(&shared, &headers, bytes).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    if protocol::UserId::try_from(b.user.as_str()).is_err() {
        return invalid("`user` must be 1-64 of A-Z a-z 0-9 _ -");
    }
    if b.board != "*" && BoardId::try_from(b.board.as_str()).is_err() {
        return invalid("`board` must be a board id or *");
    }
    let Some(role) = Role::parse(&b.role) else {
        return invalid("`role` is viewer, editor or owner");
    };
    if b.name.chars().count() > 64 {
        return invalid("`name` has at most 64 characters");
    }
    let ttl = b.ttl_secs.unwrap_or(super::tokens::DEFAULT_TTL);
    if !(1..=super::tokens::MAX_TTL).contains(&ttl) {
        return invalid(format!("`ttl_secs` is 1-{}", super::tokens::MAX_TTL));
    }
    match shared.auth.mint(&b.user, &b.name, &b.board, role, ttl) {
        Ok((token, exp)) => axum::Json(json!({"token": token, "expires_at": exp})).into_response(),
        Err(e) => json_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            crate::errors::public("internal error", &e),
        ),
    }
}

/// `POST /api/boards/{id}/token` (session): a board token for the user's role on the board.
async fn board_token(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    _body: Body,
) -> Response {
    let who = match signed_in_write(&shared, &headers).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let Principal::User(u) = &who else {
        return forbidden("this needs a signed-in session");
    };
    let (id, access) = match board_access(&shared, &who, &board_id, Role::Viewer).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    // The token lives only as long as the session that asked for it (AUTH-19).
    let sid = session_cookie(&headers).map(|c| super::secret::hash(&c));
    match shared.auth.mint_in(
        sid.as_deref(),
        &u.id,
        &u.name,
        id.as_str(),
        access.role,
        super::tokens::DEFAULT_TTL,
    ) {
        Ok((token, exp)) => {
            axum::Json(json!({"token": token, "expires_at": exp, "role": access.role}))
                .into_response()
        }
        Err(e) => json_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            crate::errors::public("internal error", &e),
        ),
    }
}
