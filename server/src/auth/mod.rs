//! Access control (docs/SECURITY.md, rules AUTH-n in docs/SPEC.md): accounts and sessions, board
//! tokens, board roles, share links, and what tells open connections that a role changed.
//!
//! - `store.rs`: the auth store's backends (SQLite `auth.db` / in memory, PostgreSQL) and its
//!   tables; `data.rs`: the operations on them.
//! - `tokens.rs`: board tokens (JWT, HS256, `aud` = `board`).
//! - `origin.rs`: the exact `Origin` matcher. `secret.rs`: random secrets, hashes, constant-time
//!   comparison.
//! - `hello.rs`: a socket's credential and role at `hello`; `lifetime.rs`: how long a credential
//!   holds.
//! - `failures.rs`: failed credentials counted per client address (NET-8).
//!
//! The HTTP routes of sign-in, tokens, links and members, and the credentials of an HTTP request,
//! are in [`crate::http`]; nothing here imports from it.

pub mod data;
pub mod failures;
pub mod hello;
pub mod lifetime;
pub mod origin;
pub mod secret;
pub mod store;
pub mod tokens;

use crate::board::{Env, Registry, SetRole};
use crate::config::Config;
pub use data::{BoardMeta, Link, Member, User, UserKind};
use origin::Origin;
use protocol::{BoardId, Role, UserId};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::AtomicU64;
pub use store::{AuthStore, AuthStoreError};
pub use tokens::{Claims, Keys};

/// Unix time, seconds.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// How long a login code stays valid.
pub const LOGIN_CODE_TTL: i64 = 24 * 3600;
/// How long a session lasts.
pub const SESSION_TTL: i64 = 30 * 24 * 3600;
/// The session cookie's name.
pub const COOKIE: &str = "board_session";

/// Who is calling.
#[derive(Debug, Clone)]
pub enum Principal {
    /// The admin token: acts as the server's owner.
    Admin,
    /// A signed-in local account (session cookie).
    User(User),
    /// A board token.
    Token(Claims),
}

/// A connection's or request's standing on one board.
#[derive(Debug, Clone)]
pub struct Access {
    pub role: Role,
    /// The most a later change may give back: a token's role, or owner.
    pub cap: Role,
    /// The local account whose stored role bounds this (None for the admin token and for an
    /// app's own users).
    pub local: Option<String>,
    /// When the stored role ends by itself (unix seconds): the expiry of the share link it came
    /// through (AUTH-20).
    pub until: Option<i64>,
    pub title: String,
}

/// What a role lookup found.
#[derive(Debug, Clone)]
pub enum Lookup {
    NoBoard,
    NoRole,
    Role(Access),
}

impl Lookup {
    /// The access if there is a role.
    pub fn access(self) -> Option<Access> {
        match self {
            Lookup::Role(a) => Some(a),
            _ => None,
        }
    }
}

type Limiter = governor::DefaultKeyedRateLimiter<IpAddr>;

/// Access control's state: the store, the key, the admin token and the allowed origins.
pub struct Auth {
    /// False with `--auth off`.
    pub on: bool,
    pub store: AuthStore,
    keys: Keys,
    admin_token: Option<String>,
    /// The server owner's user id.
    pub owner: String,
    /// `--public-url`'s origin.
    pub public: Option<Origin>,
    /// `--allowed-origins`.
    allowed: Vec<Origin>,
    /// Cookies get `Secure` (the public URL is https).
    pub secure_cookies: bool,
    /// Sign-in and link-session attempts per client address.
    limiter: Limiter,
    /// Failed bearer and hello tokens per client address (NET-8).
    pub failures: failures::Failures,
    /// Sessions signed out since start: a join that raced a sign-out checks its session again
    /// (AUTH-19, `lifetime.rs`).
    signouts: AtomicU64,
}

impl Auth {
    /// Opens the auth store beside the board store the configuration names, creating the
    /// signing key and the owner account on first start. Returns the owner's first login code
    /// when they were just created.
    pub async fn open(config: &Config) -> anyhow::Result<(Auth, Option<String>)> {
        let store = if let Some(url) = &config.database_url {
            AuthStore::postgres(url, config.database_schema.as_deref()).await?
        } else if config.memory_store {
            AuthStore::memory()?
        } else {
            AuthStore::sqlite(&config.data_dir).await?
        };
        let keys = match config.token_secret.as_deref().filter(|s| !s.is_empty()) {
            Some(s) => Keys::new(s.as_bytes()),
            None => {
                let (hex, _) = store
                    .meta_or_insert("signing_key", &secret::random_hex(32))
                    .await?;
                let bytes = secret::unhex(&hex)
                    .ok_or_else(|| anyhow::anyhow!("the stored signing key is not hex"))?;
                Keys::new(&bytes)
            }
        };
        // The owner account is created by the first start with access control on (which prints
        // its sign-in link); with `--auth off` nobody signs in, so it waits for that start.
        let fresh = format!("u-{}", secret::random_hex(16));
        let (owner, created) = if config.auth_on() {
            let (owner, created) = store.meta_or_insert("owner", &fresh).await?;
            // Checked before it is written, so that a restart writes nothing (DUR-8).
            if store.user(&owner).await?.is_none() {
                store
                    .create_user(&owner, "Owner", UserKind::Owner, now())
                    .await?;
            }
            (owner, created)
        } else {
            (store.meta("owner").await?.unwrap_or(fresh), false)
        };
        let public = config.public_url.as_deref().and_then(Origin::parse);
        let mut allowed: Vec<Origin> = config
            .allowed_origins
            .iter()
            .flat_map(|s| s.split(','))
            .filter(|s| !s.trim().is_empty())
            .filter_map(Origin::parse)
            .collect();
        allowed.extend(public.clone());
        let rate = config.sign_in_rate_per_min.max(1);
        let quota = governor::Quota::per_minute(NonZeroU32::new(rate).unwrap_or(NonZeroU32::MIN))
            .allow_burst(NonZeroU32::new((rate / 3).max(10)).unwrap_or(NonZeroU32::MIN));
        let auth = Auth {
            on: config.auth_on(),
            store,
            keys,
            admin_token: config.admin_token.clone().filter(|t| !t.is_empty()),
            owner,
            secure_cookies: public.as_ref().is_some_and(|o| o.scheme == "https"),
            public,
            allowed,
            limiter: governor::RateLimiter::keyed(quota),
            failures: failures::Failures::new(config.auth_failures_per_min),
            signouts: AtomicU64::new(0),
        };
        let code = if created && auth.on {
            Some(auth.login_code(&auth.owner).await?)
        } else {
            None
        };
        Ok((auth, code))
    }

    /// A fresh one-time login code for `user` (valid [`LOGIN_CODE_TTL`]).
    pub async fn login_code(&self, user: &str) -> Result<String, AuthStoreError> {
        let code = secret::random_hex(16);
        self.store
            .add_login_code(&secret::hash(&code), user, now() + LOGIN_CODE_TTL)
            .await?;
        Ok(code)
    }

    /// The member called `name`, created if new.
    pub async fn member(&self, name: &str) -> Result<User, AuthStoreError> {
        if let Some(u) = self.store.member_named(name).await? {
            return Ok(u);
        }
        let id = format!("u-{}", secret::random_hex(16));
        self.store
            .create_user(&id, name, UserKind::Member, now())
            .await
    }

    /// Whether a request from `ip` may try a sign-in or a link now.
    pub fn attempt(&self, ip: IpAddr) -> bool {
        if self.limiter.len() > 100_000 {
            self.limiter.retain_recent();
        }
        self.limiter.check_key(&ip).is_ok()
    }

    /// A bearer credential: the admin token or a valid board token.
    pub fn bearer(&self, token: &str) -> Option<Principal> {
        if let Some(admin) = &self.admin_token
            && secret::same(token, admin)
        {
            return Some(Principal::Admin);
        }
        self.keys.verify(token).ok().map(Principal::Token)
    }

    /// The user of a session cookie's value.
    pub async fn session(&self, cookie: &str) -> Result<Option<User>, AuthStoreError> {
        self.store.session_user(&secret::hash(cookie), now()).await
    }

    /// Starts a session for `user`; returns the cookie's value.
    pub async fn new_session(&self, user: &str) -> Result<String, AuthStoreError> {
        let value = secret::random_hex(32);
        self.store
            .add_session(&secret::hash(&value), user, now() + SESSION_TTL)
            .await?;
        Ok(value)
    }

    /// Signs a board token.
    pub fn mint(
        &self,
        sub: &str,
        name: &str,
        board: &str,
        role: Role,
        ttl: i64,
    ) -> Result<(String, i64), jsonwebtoken::errors::Error> {
        self.mint_in(None, sub, name, board, role, ttl)
    }

    /// Signs a board token that lives only as long as the session `sid` (a stored session hash)
    /// when one is given (AUTH-19).
    pub fn mint_in(
        &self,
        sid: Option<&str>,
        sub: &str,
        name: &str,
        board: &str,
        role: Role,
        ttl: i64,
    ) -> Result<(String, i64), jsonwebtoken::errors::Error> {
        let iat = now();
        let exp = iat + ttl.clamp(1, tokens::MAX_TTL);
        let claims = Claims {
            sub: sub.into(),
            name: name.into(),
            board: board.into(),
            role,
            iat,
            exp,
            aud: tokens::AUDIENCE.into(),
            sid: sid.map(str::to_owned),
        };
        Ok((self.keys.mint(&claims)?, exp))
    }

    /// The origins a request may come from: `--allowed-origins`, `--public-url`, else the
    /// request's own `Host` (http).
    pub fn origin_allowed(&self, origin: &str, host: Option<&str>) -> bool {
        if origin::allowed(origin, &self.allowed) {
            return true;
        }
        if self.public.is_some() {
            return false;
        }
        host.and_then(|h| Origin::from_host("http", h))
            .is_some_and(|own| origin::allowed(origin, std::slice::from_ref(&own)))
    }

    /// The role a local account holds on a board (None: no role), and when it ends by itself
    /// (the expiry of the share link it came through).
    async fn stored_role(
        &self,
        user: &str,
        meta: Option<&BoardMeta>,
        board: &str,
    ) -> Result<Option<(Role, Option<i64>)>, AuthStoreError> {
        if user == self.owner || meta.is_some_and(|m| m.owner == user) {
            return Ok(Some((Role::Owner, None)));
        }
        let Some((role, link)) = self.store.member(board, user).await? else {
            return Ok(None);
        };
        let Some(link) = link else {
            return Ok(Some((role, None)));
        };
        Ok(self
            .store
            .link(&link)
            .await?
            .filter(|l| l.valid(now()))
            .map(|l| (role, l.expires_at)))
    }

    /// Whether a local account holds a stored role on a board (None with access control off;
    /// a store failure counts as no role).
    pub async fn has_role(&self, board: &str, user: &str) -> Option<bool> {
        if !self.on {
            return None;
        }
        let Ok(meta) = self.store.board_meta(board).await else {
            return Some(false);
        };
        let found = self.stored_role(user, meta.as_ref(), board).await;
        Some(matches!(found, Ok(Some(_))))
    }

    /// Whether a board exists: it has metadata, is loaded, or is in the board store.
    pub async fn board_exists(
        &self,
        env: &Env,
        board: &BoardId,
        meta: Option<&BoardMeta>,
    ) -> Result<bool, AuthStoreError> {
        if meta.is_some() || env.registry.loaded(board).is_some() {
            return Ok(true);
        }
        env.store
            .board_exists(board)
            .await
            .map_err(|e| AuthStoreError(e.to_string()))
    }

    /// What `who` may do on `board` (AUTH-5).
    pub async fn resolve(
        &self,
        env: &Env,
        who: &Principal,
        board: &BoardId,
    ) -> Result<Lookup, AuthStoreError> {
        let meta = self.store.board_meta(board.as_str()).await?;
        if !self.board_exists(env, board, meta.as_ref()).await? {
            return Ok(Lookup::NoBoard);
        }
        let title = meta
            .as_ref()
            .map_or_else(|| board.as_str().to_owned(), |m| m.title.clone());
        let access = |role: Role, cap: Role, local: Option<String>, until: Option<i64>| {
            Lookup::Role(Access {
                role,
                cap,
                local,
                until,
                title: title.clone(),
            })
        };
        if !self.on {
            return Ok(access(Role::Owner, Role::Owner, None, None));
        }
        Ok(match who {
            Principal::Admin => access(Role::Owner, Role::Owner, None, None),
            Principal::User(u) => {
                match self
                    .stored_role(&u.id, meta.as_ref(), board.as_str())
                    .await?
                {
                    Some((r, until)) => access(r, Role::Owner, Some(u.id.clone()), until),
                    None => Lookup::NoRole,
                }
            }
            Principal::Token(c) => {
                if !c.covers(board.as_str()) {
                    Lookup::NoRole
                } else if self.store.user(&c.sub).await?.is_some() {
                    match self
                        .stored_role(&c.sub, meta.as_ref(), board.as_str())
                        .await?
                    {
                        Some((r, until)) => {
                            access(r.min(c.role), c.role, Some(c.sub.clone()), until)
                        }
                        None => Lookup::NoRole,
                    }
                } else {
                    access(c.role, c.role, None, None)
                }
            }
        })
    }

    /// Tells a running board (here or, in cluster mode, on its owner) that `user`'s stored role
    /// changed (None: no role any more), so its open connections follow within the second
    /// (AUTH-12).
    pub async fn role_changed(&self, registry: &Registry, board: &str, user: &str) {
        self.role_changed_because(registry, board, user, "access revoked")
            .await;
    }

    /// [`Auth::role_changed`], saying `why` to connections that lose every role (a revocation,
    /// or a share link that expired: AUTH-20).
    pub async fn role_changed_because(
        &self,
        registry: &Registry,
        board: &str,
        user: &str,
        why: &'static str,
    ) {
        let Ok(id) = BoardId::try_from(board) else {
            return;
        };
        // Wherever the board runs: another node's board hears of it through its owner.
        let Some(loaded) = registry.live(&id).await else {
            return;
        };
        // A store failure takes the role away: access is never kept on an error.
        let found = match self.store.board_meta(board).await {
            Ok(meta) => self
                .stored_role(user, meta.as_ref(), board)
                .await
                .unwrap_or_default(),
            Err(_) => None,
        };
        loaded
            .set_role(SetRole {
                user: user.to_owned(),
                role: found.map(|(r, _)| r),
                until: found.and_then(|(_, until)| until),
                why,
            })
            .await;
    }

    /// The user id of a principal (None for the admin token).
    pub fn user_id(who: &Principal) -> Option<&str> {
        match who {
            Principal::Admin => None,
            Principal::User(u) => Some(&u.id),
            Principal::Token(c) => Some(&c.sub),
        }
    }

    /// Whether `who` may create boards: the admin token, the owner or a member (not a guest).
    pub fn may_create(who: &Principal) -> bool {
        match who {
            Principal::Admin => true,
            Principal::User(u) => u.kind != UserKind::Guest,
            Principal::Token(_) => false,
        }
    }

    /// The id a principal creates boards under (the admin token creates as the owner).
    pub fn creator(&self, who: &Principal) -> String {
        Self::user_id(who).map_or_else(|| self.owner.clone(), str::to_owned)
    }
}

/// A user id as the wire wants it (local ids always are valid).
pub fn wire_user(id: &str) -> Option<UserId> {
    UserId::try_from(id).ok()
}
