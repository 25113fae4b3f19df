//! How long a credential holds (AUTH-18, AUTH-19): a board token until its `exp`, a session until
//! it ends or signs out, a token minted from a session (claim `sid`) until either. A socket keeps
//! its credential's [`Lifetime`]; its board closes it when the lifetime ends (`board::expiry`),
//! and a sign-out tells every loaded board at once.

use super::{Auth, AuthStoreError, Principal, User, now, secret, tokens};
use crate::board::Registry;
use std::sync::atomic::Ordering;

/// What keeps a credential valid.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lifetime {
    /// The session it depends on (its stored hash): signing that session out ends it.
    pub session: Option<String>,
    /// When it ends by itself, unix seconds.
    pub expires_at: Option<i64>,
}

impl Auth {
    /// A bearer credential valid now, with its lifetime: the admin token, or a board token
    /// within its `exp` whose session, when it was minted from one, is still signed in.
    pub async fn credential(
        &self,
        token: &str,
    ) -> Result<Option<(Principal, Lifetime)>, AuthStoreError> {
        let Some(who) = self.bearer(token) else {
            return Ok(None);
        };
        let Principal::Token(c) = &who else {
            return Ok(Some((who, Lifetime::default())));
        };
        let exp = c.exp.saturating_add(tokens::LEEWAY);
        let Some(sid) = &c.sid else {
            let life = Lifetime {
                session: None,
                expires_at: Some(exp),
            };
            return Ok(Some((who, life)));
        };
        match self.store.session(sid, now()).await? {
            Some((u, end)) if u.id == c.sub => {
                let life = Lifetime {
                    session: Some(sid.clone()),
                    expires_at: Some(exp.min(end)),
                };
                Ok(Some((who, life)))
            }
            _ => Ok(None),
        }
    }

    /// The user of a session cookie and the session's lifetime.
    pub async fn session_credential(
        &self,
        cookie: &str,
    ) -> Result<Option<(User, Lifetime)>, AuthStoreError> {
        let hash = secret::hash(cookie);
        Ok(self.store.session(&hash, now()).await?.map(|(u, end)| {
            let life = Lifetime {
                session: Some(hash),
                expires_at: Some(end),
            };
            (u, life)
        }))
    }

    /// How many sessions were signed out since start (read before a socket's credential is
    /// checked, see [`Auth::signed_out_since`]).
    pub fn signouts(&self) -> u64 {
        self.signouts.load(Ordering::SeqCst)
    }

    /// Whether `session` was signed out after `signouts` read [`Auth::signouts`]: a join that
    /// raced a sign-out (its board heard of the sign-out before the join arrived) asks again. A
    /// store that cannot answer counts as signed out: access is never kept on an error.
    pub async fn signed_out_since(&self, session: Option<&str>, signouts: u64) -> bool {
        let Some(hash) = session else {
            return false;
        };
        if self.signouts() == signouts {
            return false;
        }
        !matches!(self.store.session(hash, now()).await, Ok(Some(_)))
    }

    /// A session was signed out (`POST /api/logout`, after its row is gone): every loaded board
    /// closes the connections that depend on it with 4001, now (AUTH-19).
    pub async fn signed_out(&self, registry: &Registry, hash: &str) {
        self.signouts.fetch_add(1, Ordering::SeqCst);
        registry.signed_out_elsewhere(hash);
        let boards = registry.all();
        let sends = boards
            .iter()
            .map(|(_, board)| board.session_ended(hash.to_owned()));
        futures_util::future::join_all(sends).await;
    }
}
