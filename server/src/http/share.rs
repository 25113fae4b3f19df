//! Share links and members (AUTH-10, AUTH-11, AUTH-12): the owner creates view and edit links,
//! lists and revokes them, and sets or removes members' roles; opening a link gives a guest
//! account (or, signed in, a membership) and a board token. Revocations and role changes reach
//! open connections through the board actor.
#![allow(clippy::result_large_err)]

use super::caller::{
    board_access, guard_write, invalid, json_body, session_cookie, signed_in, signed_in_write,
    small_body, unavailable,
};
use super::sign_in::{display_name, session_cookie_header, user_json};
use crate::auth::{Link, Principal, User, UserKind, now, secret};
use crate::http::json_error;
use crate::shared::Shared;
use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use protocol::{ErrorCode, Role};
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
) -> Result<protocol::BoardId, Response> {
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

async fn create_link(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    bytes: Body,
) -> Response {
    let id = match owner_of(&shared, &headers, &board_id, true).await {
        Ok(id) => id,
        Err(r) => return r,
    };
    let b: LinkBody = match json_body(&shared, &headers, bytes).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let role = match Role::parse(&b.role) {
        Some(r @ (Role::Viewer | Role::Editor)) => r,
        _ => return invalid("a link's `role` is viewer or editor"),
    };
    let t = now();
    let expires_at = match b.expires_in_secs {
        None => None,
        Some(s) if (1..=crate::auth::tokens::MAX_TTL * 12).contains(&s) => Some(t + s),
        Some(_) => return invalid("`expires_in_secs` must be positive (at most a year)"),
    };
    let link_id = format!("l-{}", secret::random_hex(8));
    let token = secret::random_hex(16);
    if let Err(e) = shared
        .auth
        .store
        .create_link(
            &link_id,
            &secret::hash(&token),
            id.as_str(),
            role,
            expires_at,
            t,
        )
        .await
    {
        return unavailable(&e);
    }
    (
        StatusCode::CREATED,
        axum::Json(json!({
            "id": link_id,
            "url": format!("/s/{token}"),
            "role": role,
            "expires_at": expires_at,
            "created_at": t,
        })),
    )
        .into_response()
}

async fn list_links(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Response {
    let id = match owner_of(&shared, &headers, &board_id, false).await {
        Ok(id) => id,
        Err(r) => return r,
    };
    match shared.auth.store.links(id.as_str()).await {
        Ok(links) => axum::Json(json!({"links": links})).into_response(),
        Err(e) => unavailable(&e),
    }
}

async fn revoke_link(
    Path((board_id, link_id)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    _body: Body,
) -> Response {
    let id = match owner_of(&shared, &headers, &board_id, true).await {
        Ok(id) => id,
        Err(r) => return r,
    };
    let auth = &shared.auth;
    match auth.store.revoke_link(id.as_str(), &link_id).await {
        Ok(true) => {}
        Ok(false) => {
            return json_error(StatusCode::NOT_FOUND, ErrorCode::NotFound, "no such link");
        }
        Err(e) => return unavailable(&e),
    }
    // Everyone who came in through it loses what it gave, now (AUTH-12).
    match auth.store.members_via(&link_id).await {
        Ok(users) => {
            for u in users {
                auth.role_changed(&shared, id.as_str(), &u).await;
            }
        }
        Err(e) => return unavailable(&e),
    }
    StatusCode::NO_CONTENT.into_response()
}

async fn list_members(
    Path(board_id): Path<String>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Response {
    let id = match owner_of(&shared, &headers, &board_id, false).await {
        Ok(id) => id,
        Err(r) => return r,
    };
    match shared.auth.store.members(id.as_str()).await {
        Ok(m) => axum::Json(json!({"members": m})).into_response(),
        Err(e) => unavailable(&e),
    }
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
) -> Response {
    let id = match owner_of(&shared, &headers, &board_id, true).await {
        Ok(id) => id,
        Err(r) => return r,
    };
    let b = match json_body::<serde_json::Value>(&shared, &headers, bytes).await {
        Ok(b) => b,
        Err(r) if r.status() == StatusCode::BAD_REQUEST => serde_json::Value::Null,
        Err(r) => return r,
    };
    let Some(role) = serde_json::from_value::<RoleBody>(b)
        .ok()
        .and_then(|b| Role::parse(&b.role))
    else {
        return invalid("`role` is viewer, editor or owner");
    };
    let auth = &shared.auth;
    match auth.store.member(id.as_str(), &user).await {
        Ok(Some(_)) => {}
        Ok(None) => {
            return json_error(StatusCode::NOT_FOUND, ErrorCode::NotFound, "no such member");
        }
        Err(e) => return unavailable(&e),
    }
    // An explicit role no longer depends on the link the member came through.
    if let Err(e) = auth.store.put_member(id.as_str(), &user, role, None).await {
        return unavailable(&e);
    }
    auth.role_changed(&shared, id.as_str(), &user).await;
    axum::Json(json!({"user": user, "role": role})).into_response()
}

async fn remove_member(
    Path((board_id, user)): Path<(String, String)>,
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    _body: Body,
) -> Response {
    let id = match owner_of(&shared, &headers, &board_id, true).await {
        Ok(id) => id,
        Err(r) => return r,
    };
    let auth = &shared.auth;
    match auth.store.remove_member(id.as_str(), &user).await {
        Ok(true) => {}
        Ok(false) => {
            return json_error(StatusCode::NOT_FOUND, ErrorCode::NotFound, "no such member");
        }
        Err(e) => return unavailable(&e),
    }
    auth.role_changed(&shared, id.as_str(), &user).await;
    StatusCode::NO_CONTENT.into_response()
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
) -> Result<(User, bool), Response> {
    if let Some(Principal::User(u)) = who
        && u.kind != UserKind::Guest
    {
        return Ok((u, false));
    }
    let name = display_name(name)?;
    let id = format!("g-{}", secret::random_hex(16));
    match shared
        .auth
        .store
        .create_user(&id, &name, UserKind::Guest, t)
        .await
    {
        Ok(u) => Ok((u, true)),
        Err(e) => Err(unavailable(&e)),
    }
}

/// The role a link gives `user`: a larger role they already hold stays; otherwise the link's,
/// stored as a membership through it, and sockets the account already has open take it and
/// watch for the link's expiry (AUTH-20).
async fn link_role(
    shared: &Shared,
    user: &User,
    board: &protocol::BoardId,
    link: &Link,
) -> Result<Role, Response> {
    let auth = &shared.auth;
    let who = Principal::User(user.clone());
    let current = match auth.resolve(shared, &who, board).await {
        Ok(l) => l.access().map(|a| a.role),
        Err(e) => return Err(unavailable(&e)),
    };
    if let Some(r) = current
        && r >= link.role
    {
        return Ok(r);
    }
    auth.store
        .put_member(board.as_str(), &user.id, link.role, Some(&link.id))
        .await
        .map_err(|e| unavailable(&e))?;
    auth.role_changed(shared, board.as_str(), &user.id).await;
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
) -> Response {
    let auth = &shared.auth;
    let caller = match super::caller::caller(&shared, &headers).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    if let Err(r) = guard_write(&shared, &headers, super::caller::browser(&headers)) {
        return r;
    }
    if !auth.attempt(peer.ip()) {
        return json_error(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            "too many attempts; wait a minute",
        );
    }
    let b: SessionBody = match small_body(&shared, &headers, bytes).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let t = now();
    let link = match auth.store.link_by_token(&secret::hash(&token)).await {
        Ok(Some(l)) if l.valid(t) => l,
        Ok(_) => return json_error(StatusCode::NOT_FOUND, ErrorCode::NotFound, "no such link"),
        Err(e) => return unavailable(&e),
    };
    let (user, new_session) = match link_user(&shared, caller.who, &b.name, t).await {
        Ok(u) => u,
        Err(r) => return r,
    };
    let Ok(board) = protocol::BoardId::try_from(link.board.as_str()) else {
        return json_error(StatusCode::NOT_FOUND, ErrorCode::NotFound, "no such link");
    };
    let role = match link_role(&shared, &user, &board, &link).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    // A new guest's session starts now; the token lives only as long as the session it came with
    // (the new one, or the signed-in caller's: AUTH-19).
    let cookie = if new_session {
        match auth.new_session(&user.id).await {
            Ok(c) => Some(c),
            Err(e) => return unavailable(&e),
        }
    } else {
        None
    };
    let sid = cookie
        .clone()
        .or_else(|| session_cookie(&headers))
        .map(|c| secret::hash(&c));
    let (jwt, _) = match auth.mint_in(
        sid.as_deref(),
        &user.id,
        &user.name,
        board.as_str(),
        role,
        crate::auth::tokens::DEFAULT_TTL,
    ) {
        Ok(t) => t,
        Err(e) => {
            return json_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                crate::errors::public("internal error", &e),
            );
        }
    };
    let out = json!({"board": board, "role": role, "token": jwt, "user": user_json(&user)});
    let mut r = axum::Json(out).into_response();
    if let Some(c) = cookie {
        r.headers_mut().insert(
            axum::http::header::SET_COOKIE,
            session_cookie_header(auth, Some(&c)),
        );
    }
    r
}
