//! Who a `hello` is and what they may do on its board (AUTH-4, AUTH-5): the credential
//! (`hello.token` or the upgrade's session cookie) and how long it holds (AUTH-18, AUTH-19), the
//! user id it fixes, and the connection's role; a board token that names a new board creates it
//! within the quotas.

use super::Auth;
use super::lifetime::Lifetime;
use crate::board::{ConnAccess, Env};
use protocol::close;
use protocol::{BoardId, ErrorCode};

/// Why a socket was refused before joining: the error code, its message, the close code.
pub type Refusal = (ErrorCode, String, u16);

/// Authenticates a `hello` and resolves the connection's role on the board (AUTH-4, AUTH-5):
/// `hello.token` (a board token, or the admin token), else the session cookie of the upgrade.
/// The hello's user id must be the credential's; the display name is the credential's when it
/// has one. A board token naming a board that does not exist creates it when its role is editor
/// or owner. No role and no board give the same answer.
pub async fn authorize(
    env: &Env,
    auth: &Auth,
    board: &BoardId,
    token: Option<String>,
    cookie: Option<String>,
    user: &mut protocol::UserInfo,
) -> Result<(ConnAccess, String), Refusal> {
    use crate::auth::{Lookup, Principal};
    let forbidden = || {
        (
            ErrorCode::Forbidden,
            "no access to this board".to_owned(),
            close::FORBIDDEN,
        )
    };
    if !auth.on {
        return open_access(env, auth, board).await;
    }
    let who = match (token.filter(|t| !t.is_empty()), cookie) {
        (Some(t), _) => auth.credential(&t).await.map_err(unavailable)?,
        (None, Some(c)) => auth
            .session_credential(&c)
            .await
            .map_err(unavailable)?
            .map(|(u, life)| (Principal::User(u), life)),
        (None, None) => None,
    };
    let Some((who, life)) = who else {
        return Err((
            ErrorCode::Unauthorized,
            "a valid token (hello.token) or session is needed".to_owned(),
            close::UNAUTHORIZED,
        ));
    };
    if let Some(id) = crate::auth::Auth::user_id(&who) {
        if user.id.as_str() != id {
            return Err((
                ErrorCode::Invalid,
                "hello.user.id is not the authenticated user".to_owned(),
                close::POLICY,
            ));
        }
        let name = match &who {
            Principal::User(u) => u.name.clone(),
            Principal::Token(c) => c.name.clone(),
            Principal::Admin => String::new(),
        };
        if !name.is_empty() {
            // An app's own token may carry any name: shown to others, so bounded.
            user.name = name.chars().take(64).collect();
        }
    }
    let mut found = auth.resolve(env, &who, board).await.map_err(unavailable)?;
    if let (Lookup::NoBoard, Principal::Token(c)) = (&found, &who)
        && c.covers(board.as_str())
        && c.role >= protocol::Role::Editor
        && !is_guest(auth, &c.sub).await.map_err(unavailable)?
    {
        crate::quota::may_create_board(env, &auth.store, Some(&c.sub))
            .await
            .map_err(|e| (e.code(), e.to_string(), close::TRY_AGAIN))?;
        auth.store
            .create_board_meta(board.as_str(), board.as_str(), &c.sub, crate::auth::now())
            .await
            .map_err(unavailable)?;
        found = auth.resolve(env, &who, board).await.map_err(unavailable)?;
    }
    let access = found.access().ok_or_else(forbidden)?;
    let Lifetime {
        session,
        expires_at,
    } = life;
    Ok((
        ConnAccess {
            role: access.role,
            cap: access.cap,
            local: access.local,
            session,
            expires_at,
            until: access.until,
        },
        access.title,
    ))
}

fn unavailable(e: crate::auth::AuthStoreError) -> Refusal {
    let message = crate::errors::public("the account store is unavailable; try again shortly", &e);
    (ErrorCode::StoreUnavailable, message, close::TRY_AGAIN)
}

/// With `--auth off` everyone is owner: as before access control, a join of a new id creates the
/// board, within QUOTA-2.
async fn open_access(
    env: &Env,
    auth: &Auth,
    board: &BoardId,
) -> Result<(ConnAccess, String), Refusal> {
    crate::quota::may_join_new(env, &auth.store, board)
        .await
        .map_err(|e| (e.code(), e.to_string(), close::TRY_AGAIN))?;
    let title = auth
        .store
        .board_meta(board.as_str())
        .await
        .map_err(unavailable)?
        .map_or_else(|| board.as_str().to_owned(), |m| m.title);
    let access = ConnAccess {
        role: protocol::Role::Owner,
        cap: protocol::Role::Owner,
        local: None,
        session: None,
        expires_at: None,
        until: None,
    };
    Ok((access, title))
}

/// Whether `sub` is a guest account (made by opening a share link): guests create no boards,
/// by token as over HTTP (QUOTA-1).
async fn is_guest(auth: &Auth, sub: &str) -> Result<bool, crate::auth::AuthStoreError> {
    let user = auth.store.user(sub).await?;
    Ok(user.is_some_and(|u| u.kind == crate::auth::UserKind::Guest))
}
