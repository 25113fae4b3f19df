//! Sign-in and identity (AUTH-7, AUTH-19, AUTH-22): one-time sign-in codes, sessions and their
//! cookie, sign-out, the signed-in user, sign-in links and board tokens minted by the admin token
//! or for a session.

use super::ApiError;
use super::caller::{
    Caller, board_access, browser, caller, guard_write, json_body, session_cookie, signed_in_write,
    small_body, unauthorized,
};
use super::edge::{BodyLimit, read_body};
use crate::auth::{Auth, AuthStoreError, Principal, User, secret, tokens};
use crate::shared::Shared;
use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use protocol::{BoardId, Role};
use serde::Deserialize;
use serde_json::json;
use std::net::SocketAddr;
use std::sync::Arc;

pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/login", post(login))
        .route("/api/login/preview", post(login_preview))
        .route("/api/logout", post(logout))
        .route("/api/me", get(me).patch(rename_me))
        .route("/api/login-links", post(login_link))
        .route("/api/tokens", post(mint))
        .route("/api/boards/{board_id}/token", post(board_token))
}

/// `Set-Cookie` for a new session (or, with None, clearing it).
pub fn session_cookie_header(auth: &Auth, value: Option<&str>) -> HeaderValue {
    let secure = if auth.secure_cookies { "; Secure" } else { "" };
    let v = match value {
        Some(v) => format!(
            "{}={v}; HttpOnly; SameSite=Lax; Path=/; Max-Age={}{secure}",
            crate::auth::COOKIE,
            crate::auth::SESSION_TTL
        ),
        None => format!(
            "{}=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0{secure}",
            crate::auth::COOKIE
        ),
    };
    HeaderValue::from_str(&v).unwrap_or_else(|_| HeaderValue::from_static(""))
}

pub fn user_json(u: &User) -> serde_json::Value {
    json!({"id": u.id, "name": u.name, "kind": u.kind})
}

/// A display name: 1-64 characters after trimming.
pub fn display_name(raw: &str) -> Result<String, ApiError> {
    let name = raw.trim();
    let n = name.chars().count();
    if n == 0 || n > 64 || name.chars().any(char::is_control) {
        return Err(ApiError::invalid("a name has 1-64 characters"));
    }
    Ok(name.to_owned())
}

/// 429 for an address past its sign-in and link attempts (`Auth::attempt`).
pub fn too_many() -> ApiError {
    ApiError::rate_limited("too many attempts; wait a minute")
}

#[derive(Deserialize)]
struct LoginBody {
    code: String,
}

/// The checks of a request that signs in (AUTH-14 for a browser; the attempts of its address),
/// then its `{"code"}`, hashed.
async fn sign_in_code(
    shared: &Shared,
    peer: SocketAddr,
    headers: &HeaderMap,
    bytes: Body,
) -> Result<String, ApiError> {
    guard_write(shared, headers, browser(headers))?;
    if !shared.auth.attempt(peer.ip()) {
        return Err(too_many());
    }
    let b: LoginBody = small_body(shared, headers, bytes).await?;
    Ok(secret::hash(b.code.trim()))
}

/// `POST /api/login {"code"}`: a one-time code → a session cookie.
async fn login(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    bytes: Body,
) -> Result<Response, ApiError> {
    let hash = sign_in_code(&shared, peer, &headers, bytes).await?;
    let auth = &shared.auth;
    let Some(user) = auth
        .store
        .take_login_code(&hash, crate::auth::now())
        .await?
    else {
        return Err(unknown_code());
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
) -> Result<Response, ApiError> {
    let hash = sign_in_code(&shared, peer, &headers, bytes).await?;
    let now = crate::auth::now();
    let Some(user) = shared.auth.store.login_code_user(&hash, now).await? else {
        return Err(unknown_code());
    };
    // Whom this browser is signed in as now, so the page can say it switches accounts.
    let now = match caller(&shared, &headers).await {
        Ok(Caller {
            who: Some(Principal::User(u)),
            ..
        }) => user_json(&u),
        _ => serde_json::Value::Null,
    };
    Ok(axum::Json(json!({"user": user_json(&user), "signed_in_as": now})).into_response())
}

fn unknown_code() -> ApiError {
    ApiError::unauthorized("this sign-in link is unknown, used or expired")
}

/// A 200 answer carrying `body` and a new session cookie for `user`.
pub async fn with_session(
    shared: &Shared,
    user: &User,
    body: serde_json::Value,
) -> Result<Response, ApiError> {
    let cookie = shared.auth.new_session(&user.id).await?;
    let mut r = axum::Json(body).into_response();
    r.headers_mut().insert(
        header::SET_COOKIE,
        session_cookie_header(&shared.auth, Some(&cookie)),
    );
    Ok(r)
}

/// `POST /api/logout`: ends the session, clears the cookie.
async fn logout(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: Body,
) -> Result<Response, ApiError> {
    if let Some(c) = session_cookie(&headers) {
        guard_write(&shared, &headers, true)?;
        // Nothing is asked of the body; it is read (within NET-5's bounds) so that it is not
        // taken for the next request.
        read_body(&headers, bytes, BodyLimit::small(&shared)).await?;
        let hash = secret::hash(&c);
        shared.auth.store.delete_session(&hash).await?;
        // Its sockets, and those of tokens minted from it, close now (AUTH-19).
        shared.auth.signed_out(&shared.registry, &hash).await;
    }
    let mut r = StatusCode::NO_CONTENT.into_response();
    r.headers_mut().insert(
        header::SET_COOKIE,
        session_cookie_header(&shared.auth, None),
    );
    Ok(r)
}

/// `GET /api/me`: the signed-in user (401 without a session).
async fn me(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Result<Response, ApiError> {
    if !shared.auth.on {
        return Ok(axum::Json(json!({"auth": "off", "user": null})).into_response());
    }
    match caller(&shared, &headers).await?.who {
        Some(Principal::User(u)) => {
            Ok(axum::Json(json!({"auth": "on", "user": user_json(&u)})).into_response())
        }
        _ => Err(unauthorized()),
    }
}

#[derive(Deserialize)]
struct NameBody {
    name: String,
}

/// `PATCH /api/me {"name"}`: changes the signed-in user's display name.
async fn rename_me(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: Body,
) -> Result<Response, ApiError> {
    let Principal::User(mut u) = signed_in_write(&shared, &headers).await? else {
        return Err(unauthorized());
    };
    let b: NameBody = json_body(&shared, &headers, bytes).await?;
    let name = display_name(&b.name)?;
    shared.auth.store.rename_user(&u.id, &name).await?;
    u.name = name;
    Ok(axum::Json(json!({"user": user_json(&u)})).into_response())
}

/// The admin token (401 without a credential, 403 with another), then the write checks.
async fn admin_write(shared: &Shared, headers: &HeaderMap) -> Result<(), ApiError> {
    match caller(shared, headers).await?.who {
        Some(Principal::Admin) => guard_write(shared, headers, false),
        Some(_) => Err(ApiError::forbidden("this needs the admin token")),
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
) -> Result<Response, ApiError> {
    admin_write(&shared, &headers).await?;
    let b: LoginLinkBody = json_body(&shared, &headers, bytes).await?;
    let auth = &shared.auth;
    let user = match b.name.as_deref() {
        Some(n) => auth.member(&display_name(n)?).await?,
        None => auth
            .store
            .user(&auth.owner)
            .await?
            .ok_or_else(|| AuthStoreError("owner missing".into()))?,
    };
    let code = auth.login_code(&user.id).await?;
    let out = json!({"url": format!("/login#{code}"), "user": user_json(&user)});
    Ok(axum::Json(out).into_response())
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

impl TokenBody {
    /// Its role and lifetime, once every field is checked.
    fn checked(&self) -> Result<(Role, i64), ApiError> {
        if protocol::UserId::try_from(self.user.as_str()).is_err() {
            return Err(ApiError::invalid("`user` must be 1-64 of A-Z a-z 0-9 _ -"));
        }
        if self.board != "*" && BoardId::try_from(self.board.as_str()).is_err() {
            return Err(ApiError::invalid("`board` must be a board id or *"));
        }
        let Some(role) = Role::parse(&self.role) else {
            return Err(ApiError::invalid(
                "`role` is viewer, commenter, editor or owner",
            ));
        };
        if self.name.chars().count() > 64 {
            return Err(ApiError::invalid("`name` has at most 64 characters"));
        }
        let ttl = self.ttl_secs.unwrap_or(tokens::DEFAULT_TTL);
        if !(1..=tokens::MAX_TTL).contains(&ttl) {
            return Err(ApiError::invalid(format!(
                "`ttl_secs` is 1-{}",
                tokens::MAX_TTL
            )));
        }
        Ok((role, ttl))
    }
}

/// `POST /api/tokens` (admin): mints a board token for an app's user.
async fn mint(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: Body,
) -> Result<Response, ApiError> {
    admin_write(&shared, &headers).await?;
    let b: TokenBody = json_body(&shared, &headers, bytes).await?;
    let (role, ttl) = b.checked()?;
    let (token, exp) = shared
        .auth
        .mint(&b.user, &b.name, &b.board, role, ttl)
        .map_err(|e| ApiError::internal("internal error", &e))?;
    Ok(axum::Json(json!({"token": token, "expires_at": exp})).into_response())
}

/// `POST /api/boards/{id}/token` (session): a board token for the user's role on the board.
async fn board_token(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    _body: Body,
) -> Result<Response, ApiError> {
    let who = signed_in_write(&shared, &headers).await?;
    let Principal::User(u) = &who else {
        return Err(ApiError::forbidden("this needs a signed-in session"));
    };
    let (id, access) = board_access(&shared, &who, &board_id, Role::Viewer).await?;
    // The token lives only as long as the session that asked for it (AUTH-19).
    let sid = session_cookie(&headers).map(|c| secret::hash(&c));
    let (token, exp) = shared
        .auth
        .mint_in(
            sid.as_deref(),
            &u.id,
            &u.name,
            id.as_str(),
            access.role,
            tokens::DEFAULT_TTL,
        )
        .map_err(|e| ApiError::internal("internal error", &e))?;
    let out = json!({"token": token, "expires_at": exp, "role": access.role});
    Ok(axum::Json(out).into_response())
}
