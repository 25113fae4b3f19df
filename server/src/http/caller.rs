//! Credentials of an HTTP request (AUTH-7: the session cookie, or `Authorization: Bearer` with
//! the admin token or a board token), the checks of state-changing requests (AUTH-14: origin and
//! content type), the caller's role on a board (AUTH-9), and JSON bodies read within their
//! limits (NET-5, NET-6).
use super::ApiError;
use super::edge::{BodyLimit, read_body};
use crate::auth::{Access, Lookup, Principal};
use crate::shared::Shared;
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use protocol::{BoardId, ErrorCode, Role};
use serde::Deserialize;

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
        .find(|(k, _)| *k == crate::auth::COOKIE)
        .map(|(_, v)| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// Who sent a request, and whether through the cookie (which needs the origin check).
pub struct Caller {
    pub who: Option<Principal>,
    pub cookie: bool,
}

/// 401: no credential, or not a valid one.
pub fn unauthorized() -> ApiError {
    ApiError::unauthorized("valid credentials needed")
}

/// 404 for a board the caller may not know of, or that does not exist (AUTH-9).
pub fn no_board(board: &str) -> ApiError {
    ApiError::not_found(format!("no board {board}"))
}

/// The caller of a request: a bearer credential (an invalid one is refused, never ignored),
/// else the session cookie. With `--auth off` everyone is the admin.
pub async fn caller(shared: &Shared, headers: &HeaderMap) -> Result<Caller, ApiError> {
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
            Some(t) => auth.credential(t).await?,
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
    Ok(match auth.session(&c).await? {
        Some(u) => Caller {
            who: Some(Principal::User(u)),
            cookie: true,
        },
        None => Caller {
            who: None,
            cookie: false,
        },
    })
}

/// The caller, who must be authenticated (401 otherwise).
pub async fn signed_in(
    shared: &Shared,
    headers: &HeaderMap,
) -> Result<(Principal, bool), ApiError> {
    let c = caller(shared, headers).await?;
    match c.who {
        Some(w) => Ok((w, c.cookie)),
        None => Err(unauthorized()),
    }
}

/// A signed-in caller of a state-changing request that passed the write checks
/// ([`guard_write`]): what every cookie- or bearer-authenticated write starts with.
pub async fn signed_in_write(shared: &Shared, headers: &HeaderMap) -> Result<Principal, ApiError> {
    let (who, cookie) = signed_in(shared, headers).await?;
    guard_write(shared, headers, cookie)?;
    Ok(who)
}

/// AUTH-14: a state-changing request with a body must be `application/json`; one that a cookie
/// authenticates must come from an allowed origin (a missing `Origin` is refused too). Judged
/// from the headers, before any of the body is read (NET-6).
pub fn guard_write(shared: &Shared, headers: &HeaderMap, cookie: bool) -> Result<(), ApiError> {
    if !shared.auth.on {
        return Ok(());
    }
    if super::edge::has_body(headers) {
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"));
        if !json {
            return Err(ApiError::forbidden(
                "state-changing requests must be application/json",
            ));
        }
    }
    same_origin(shared, headers, cookie)
}

/// A picture upload (raw bytes): never one of the types a page on another site may send
/// without asking (a form's), and, authenticated by a cookie, from an allowed origin.
pub fn guard_upload(shared: &Shared, headers: &HeaderMap, cookie: bool) -> Result<(), ApiError> {
    if !shared.auth.on {
        return Ok(());
    }
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            let v = v.trim().to_ascii_lowercase();
            [
                "text/plain",
                "multipart/form-data",
                "application/x-www-form-urlencoded",
            ]
            .contains(&v.as_str())
        });
    if form {
        return Err(ApiError::forbidden(
            "send the picture's bytes as the body, with its own type",
        ));
    }
    same_origin(shared, headers, cookie)
}

/// A cookie-authenticated write comes from an allowed origin (AUTH-14).
fn same_origin(shared: &Shared, headers: &HeaderMap, cookie: bool) -> Result<(), ApiError> {
    if cookie {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let ok = headers
            .get(header::ORIGIN)
            .and_then(|o| o.to_str().ok())
            .is_some_and(|o| shared.auth.origin_allowed(o, host));
        if !ok {
            return Err(ApiError::forbidden("origin not allowed"));
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
pub fn body<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, ApiError> {
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        bytes
    };
    serde_json::from_slice(bytes).map_err(|e| {
        ApiError::new(
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
) -> Result<T, ApiError> {
    body(&read_body(headers, bytes, BodyLimit::small(shared)).await?)
}

/// A body of at most [`BodyLimit::json`] as JSON, read once the caller's role allows the request
/// (NET-6).
pub async fn json_body<T: for<'de> Deserialize<'de>>(
    shared: &Shared,
    headers: &HeaderMap,
    bytes: Body,
) -> Result<T, ApiError> {
    body(&read_body(headers, bytes, BodyLimit::json(shared)).await?)
}

/// A state-changing request on one board: the caller signed in (with the JSON and origin checks
/// of [`signed_in_write`]), holding at least `need` there (its access), and its JSON body, read
/// only then.
pub async fn board_write<T: for<'de> Deserialize<'de>>(
    shared: &Shared,
    headers: &HeaderMap,
    bytes: Body,
    raw: &str,
    need: Role,
) -> Result<(Principal, BoardId, Access, T), ApiError> {
    let who = signed_in_write(shared, headers).await?;
    let (id, access) = board_access(shared, &who, raw, need).await?;
    let bytes = read_body(headers, bytes, BodyLimit::json(shared)).await?;
    let body = body::<T>(&bytes)?;
    Ok((who, id, access, body))
}

/// A read of one board: the caller signed in and holding at least viewer there.
pub async fn board_read(
    shared: &Shared,
    headers: &HeaderMap,
    raw: &str,
) -> Result<(BoardId, Access), ApiError> {
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
) -> Result<(BoardId, Access), ApiError> {
    let id = BoardId::try_from(raw).map_err(|e| ApiError::invalid(format!("bad board id: {e}")))?;
    match shared.auth.resolve(shared, who, &id).await? {
        Lookup::Role(a) if a.role >= need => Ok((id, a)),
        Lookup::Role(_) => Err(ApiError::forbidden(
            "your role on this board does not allow this",
        )),
        _ => Err(no_board(raw)),
    }
}
