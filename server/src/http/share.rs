//! Share links and members (AUTH-10, AUTH-11, AUTH-12): the owner creates view and edit links,
//! lists and revokes them, and sets or removes members' roles; opening a link gives a guest
//! account (or, signed in, a membership) and a board token. Revocations and role changes reach
//! open connections through the board actor.

use super::ApiError;
use super::caller::{
    board_access, browser, caller, guard_write, json_body, session_cookie, signed_in,
    signed_in_write, small_body,
};
use super::sign_in::{display_name, session_cookie_header, too_many, user_json};
use crate::auth::{Link, Principal, User, UserKind, now, secret, tokens};
use crate::shared::Shared;
use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use protocol::{BoardId, Role};
use serde::Deserialize;
use serde_json::json;
use std::net::SocketAddr;
use std::sync::Arc;

pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route(
            "/api/boards/{board_id}/links",
            get(list_links).post(create_link),
        )
        .route(
            "/api/boards/{board_id}/links/{link_id}",
            delete(revoke_link),
        )
        .route("/api/boards/{board_id}/members", get(list_members))
        .route(
            "/api/boards/{board_id}/members/{user}",
            patch(set_member).delete(remove_member),
        )
        .route("/api/links/{token}/session", post(link_session))
}

/// The caller, who must own the board (after the write checks when `write`).
async fn owner_of(
    shared: &Shared,
    headers: &HeaderMap,
    board: &str,
    write: bool,
) -> Result<BoardId, ApiError> {
    let who = if write {
        signed_in_write(shared, headers).await?
    } else {
        signed_in(shared, headers).await?.0
    };
    Ok(board_access(shared, &who, board, Role::Owner).await?.0)
}

#[derive(Deserialize)]
struct LinkBody {
    role: String,
    #[serde(default)]
    expires_in_secs: Option<i64>,
}

impl LinkBody {
    /// The link's role and its expiry (None: never) if it is made at `t`.
    fn checked(&self, t: i64) -> Result<(Role, Option<i64>), ApiError> {
        let role = match Role::parse(&self.role) {
            Some(r @ (Role::Viewer | Role::Commenter | Role::Editor)) => r,
            _ => {
                return Err(ApiError::invalid(
                    "a link's `role` is viewer, commenter or editor",
                ));
            }
        };
        let expires_at = match self.expires_in_secs {
            None => None,
            Some(s) if (1..=tokens::MAX_TTL * 12).contains(&s) => Some(t + s),
            Some(_) => {
                return Err(ApiError::invalid(
                    "`expires_in_secs` must be positive (at most a year)",
                ));
            }
        };
        Ok((role, expires_at))
    }
}

async fn create_link(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: Body,
) -> Result<Response, ApiError> {
    let id = owner_of(&shared, &headers, &board_id, true).await?;
    let b: LinkBody = json_body(&shared, &headers, bytes).await?;
    let t = now();
    let (role, expires_at) = b.checked(t)?;
    let link_id = format!("l-{}", secret::random_hex(8));
    let token = secret::random_hex(16);
    let hash = secret::hash(&token);
    let store = &shared.auth.store;
    store
        .create_link(&link_id, &hash, id.as_str(), role, expires_at, t)
        .await?;
    let out = json!({
        "id": link_id,
        "url": format!("/s/{token}"),
        "role": role,
        "expires_at": expires_at,
        "created_at": t,
    });
    Ok((StatusCode::CREATED, axum::Json(out)).into_response())
}

async fn list_links(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = owner_of(&shared, &headers, &board_id, false).await?;
    let links = shared.auth.store.links(id.as_str()).await?;
    Ok(axum::Json(json!({"links": links})).into_response())
}

async fn revoke_link(
    Path((board_id, link_id)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    _body: Body,
) -> Result<Response, ApiError> {
    let id = owner_of(&shared, &headers, &board_id, true).await?;
    let auth = &shared.auth;
    if !auth.store.revoke_link(id.as_str(), &link_id).await? {
        return Err(ApiError::not_found("no such link"));
    }
    // Everyone who came in through it loses what it gave, now (AUTH-12).
    for u in auth.store.members_via(&link_id).await? {
        auth.role_changed(&shared.registry, id.as_str(), &u).await;
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}

async fn list_members(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = owner_of(&shared, &headers, &board_id, false).await?;
    let m = shared.auth.store.members(id.as_str()).await?;
    Ok(axum::Json(json!({"members": m})).into_response())
}

#[derive(Deserialize)]
struct RoleBody {
    role: String,
}

async fn set_member(
    Path((board_id, user)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: Body,
) -> Result<Response, ApiError> {
    let id = owner_of(&shared, &headers, &board_id, true).await?;
    let b = match json_body::<serde_json::Value>(&shared, &headers, bytes).await {
        Ok(b) => b,
        Err(e) if e.status() == StatusCode::BAD_REQUEST => serde_json::Value::Null,
        Err(e) => return Err(e),
    };
    let Some(role) = serde_json::from_value::<RoleBody>(b)
        .ok()
        .and_then(|b| Role::parse(&b.role))
    else {
        return Err(ApiError::invalid(
            "`role` is viewer, commenter, editor or owner",
        ));
    };
    let auth = &shared.auth;
    if auth.store.member(id.as_str(), &user).await?.is_none() {
        return Err(ApiError::not_found("no such member"));
    }
    // An explicit role no longer depends on the link the member came through.
    auth.store
        .put_member(id.as_str(), &user, role, None)
        .await?;
    auth.role_changed(&shared.registry, id.as_str(), &user)
        .await;
    Ok(axum::Json(json!({"user": user, "role": role})).into_response())
}

async fn remove_member(
    Path((board_id, user)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    _body: Body,
) -> Result<Response, ApiError> {
    let id = owner_of(&shared, &headers, &board_id, true).await?;
    let auth = &shared.auth;
    if !auth.store.remove_member(id.as_str(), &user).await? {
        return Err(ApiError::not_found("no such member"));
    }
    auth.role_changed(&shared.registry, id.as_str(), &user)
        .await;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[derive(Deserialize)]
struct SessionBody {
    #[serde(default)]
    name: String,
}

/// Who opens a link: the signed-in caller (not a guest), else a new guest named `name`, and
/// whether that guest's session starts now.
async fn link_user(
    shared: &Shared,
    who: Option<Principal>,
    name: &str,
    t: i64,
) -> Result<(User, bool), ApiError> {
    if let Some(Principal::User(u)) = who
        && u.kind != UserKind::Guest
    {
        return Ok((u, false));
    }
    let name = display_name(name)?;
    let id = format!("g-{}", secret::random_hex(16));
    let store = &shared.auth.store;
    let u = store.create_user(&id, &name, UserKind::Guest, t).await?;
    Ok((u, true))
}

/// The role a link gives `user`: a larger role they already hold stays; otherwise the link's,
/// stored as a membership through it, and sockets the account already has open take it and
/// watch for the link's expiry (AUTH-20).
async fn link_role(
    shared: &Shared,
    user: &User,
    board: &BoardId,
    link: &Link,
) -> Result<Role, ApiError> {
    let auth = &shared.auth;
    let who = Principal::User(user.clone());
    let current = auth
        .resolve(shared, &who, board)
        .await?
        .access()
        .map(|a| a.role);
    if let Some(r) = current
        && r >= link.role
    {
        return Ok(r);
    }
    auth.store
        .put_member(board.as_str(), &user.id, link.role, Some(&link.id))
        .await?;
    auth.role_changed(&shared.registry, board.as_str(), &user.id)
        .await;
    Ok(link.role)
}

/// `POST /api/links/{token}/session {"name"}`: opens a share link. A guest account with the
/// typed name (or, for a signed-in owner or member, a membership) holding the link's role, a
/// board token and the session cookie. Unknown, revoked and expired links are all 404.
async fn link_session(
    Path(token): Path<String>,
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    bytes: Body,
) -> Result<Response, ApiError> {
    let auth = &shared.auth;
    let caller = caller(&shared, &headers).await?;
    guard_write(&shared, &headers, browser(&headers))?;
    if !auth.attempt(peer.ip()) {
        return Err(too_many());
    }
    let b: SessionBody = small_body(&shared, &headers, bytes).await?;
    let t = now();
    let link = match auth.store.link_by_token(&secret::hash(&token)).await? {
        Some(l) if l.valid(t) => l,
        _ => return Err(no_link()),
    };
    let (user, new_session) = link_user(&shared, caller.who, &b.name, t).await?;
    let board = BoardId::try_from(link.board.as_str()).map_err(|_| no_link())?;
    let role = link_role(&shared, &user, &board, &link).await?;
    // A new guest's session starts now; the token lives only as long as the session it came with
    // (the new one, or the signed-in caller's: AUTH-19).
    let cookie = if new_session {
        Some(auth.new_session(&user.id).await?)
    } else {
        None
    };
    let sid = cookie
        .clone()
        .or_else(|| session_cookie(&headers))
        .map(|c| secret::hash(&c));
    let (jwt, _) = auth
        .mint_in(
            sid.as_deref(),
            &user.id,
            &user.name,
            board.as_str(),
            role,
            tokens::DEFAULT_TTL,
        )
        .map_err(|e| ApiError::internal("internal error", &e))?;
    let out = json!({"board": board, "role": role, "token": jwt, "user": user_json(&user)});
    let mut r = axum::Json(out).into_response();
    if let Some(c) = cookie {
        r.headers_mut().insert(
            axum::http::header::SET_COOKIE,
            session_cookie_header(auth, Some(&c)),
        );
    }
    Ok(r)
}

fn no_link() -> ApiError {
    ApiError::not_found("no such link")
}
