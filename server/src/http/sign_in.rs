//! Sign-in and identity (AUTH-7, AUTH-19, AUTH-22): one-time sign-in codes, sessions and their
//! cookie, sign-out, the signed-in user, sign-in links and board tokens minted by the admin token
//! or for a session.
// Errors here are HTTP answers on their way out; boxing them buys nothing.
#![allow(clippy::result_large_err)]

use super::caller::{
    Caller, board_access, browser, caller, forbidden, guard_write, invalid, json_body,
    session_cookie, signed_in_write, small_body, unauthorized, unavailable,
};
use super::edge::{BodyLimit, read_body};
use super::json_error;
use crate::auth::{Auth, Principal, User};
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
        .take_login_code(
            &crate::auth::secret::hash(b.code.trim()),
            crate::auth::now(),
        )
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
    let hash = crate::auth::secret::hash(b.code.trim());
    match auth.store.login_code_user(&hash, crate::auth::now()).await {
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
        let hash = crate::auth::secret::hash(&c);
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
            .and_then(|u| u.ok_or_else(|| crate::auth::AuthStoreError("owner missing".into()))),
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
    let ttl = b.ttl_secs.unwrap_or(crate::auth::tokens::DEFAULT_TTL);
    if !(1..=crate::auth::tokens::MAX_TTL).contains(&ttl) {
        return invalid(format!("`ttl_secs` is 1-{}", crate::auth::tokens::MAX_TTL));
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
    let sid = session_cookie(&headers).map(|c| crate::auth::secret::hash(&c));
    match shared.auth.mint_in(
        sid.as_deref(),
        &u.id,
        &u.name,
        id.as_str(),
        access.role,
        crate::auth::tokens::DEFAULT_TTL,
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
