//! Quotas on what a caller may create (QUOTA-1..5): boards per account, boards per server, bytes
//! in the store (sized from the disk by default), named versions. Checked before anything is
//! written, so a refusal (`limit_exceeded`) leaves nothing half-created. Board creation paths:
//! `POST /api/boards` (import), a WebSocket join with a board token that names a new board, and
//! with `--auth off` a join of a new id; named versions: `POST /api/boards/{id}/versions`.

use crate::board::Env;
use crate::config::Config;
use protocol::BoardId;
use std::future::Future;
use std::path::Path;

/// With `--auth off`, where any join of a new id creates a board, `--max-boards 0` still caps
/// the server at this many.
pub const AUTH_OFF_MAX_BOARDS: usize = 10_000;

/// Why a new board was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// A quota is reached; the message says which (`limit_exceeded`).
    #[error("{0}")]
    Limit(String),
    /// A store could not be asked (`store_unavailable`); the message is for the client.
    #[error("{0}")]
    Unavailable(String),
}

impl Refused {
    pub fn code(&self) -> protocol::ErrorCode {
        match self {
            Refused::Limit(_) => protocol::ErrorCode::LimitExceeded,
            Refused::Unavailable(_) => protocol::ErrorCode::StoreUnavailable,
        }
    }

    /// Its HTTP status: 403 for a quota, 503 when a store could not be asked.
    pub fn status(&self) -> axum::http::StatusCode {
        match self {
            Refused::Limit(_) => axum::http::StatusCode::FORBIDDEN,
            Refused::Unavailable(_) => axum::http::StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// What quotas ask of the account store (the auth store answers): how many boards an account
/// owns, and the bytes of the PostgreSQL schema both stores share.
pub trait Accounts: Sync {
    type Error: std::fmt::Display + Send;

    /// How many boards the account `owner` owns.
    fn boards_owned(&self, owner: &str) -> impl Future<Output = Result<i64, Self::Error>> + Send;

    /// Bytes of the tables in the current PostgreSQL schema.
    fn schema_bytes(&self) -> impl Future<Output = Result<i64, Self::Error>> + Send;
}

fn unavailable(e: &dyn std::fmt::Display) -> Refused {
    Refused::Unavailable(crate::errors::public(
        "the board store is unavailable; try again shortly",
        e,
    ))
}

/// Whether one more board, owned by the account `owner` (None: nobody, as with `--auth off`),
/// fits. An account is whoever owns boards: a local account however it presents itself (its
/// session, any token whose `sub` is its id), the server's owner for the admin token, and for a
/// token whose `sub` is no account of this server (an app's own user) that `sub`.
pub async fn may_create_board(
    env: &Env,
    accounts: &impl Accounts,
    owner: Option<&str>,
) -> Result<(), Refused> {
    let cfg = &env.config;
    if let Some(owner) = owner {
        let owned = accounts
            .boards_owned(owner)
            .await
            .map_err(|e| unavailable(&e))?;
        if owned >= cfg.max_boards_per_user as i64 {
            return Err(Refused::Limit(format!(
                "you own {owned} boards, the most one user may own (--max-boards-per-user)"
            )));
        }
    }
    let max_boards = match cfg.max_boards {
        0 if !cfg.auth_on() => AUTH_OFF_MAX_BOARDS,
        n => n,
    };
    if max_boards > 0 {
        let n = env
            .store
            .list_boards()
            .await
            .map_err(|e| unavailable(&e))?
            .len();
        if n >= max_boards {
            return Err(Refused::Limit(format!(
                "the server holds {n} boards, its limit (--max-boards)"
            )));
        }
    }
    store_has_room(env, accounts).await
}

/// Whether the store is under `--max-store-bytes` (QUOTA-3): what new boards, imports and named
/// versions need.
pub async fn store_has_room(env: &Env, accounts: &impl Accounts) -> Result<(), Refused> {
    let cap = env.config.max_store_bytes.unwrap_or(0);
    if cap == 0 {
        return Ok(());
    }
    let used = stored_bytes(&env.config, accounts).await?;
    if used >= cap {
        return Err(Refused::Limit(format!(
            "the store holds {used} bytes, its limit (--max-store-bytes)"
        )));
    }
    Ok(())
}

/// The configuration with `--max-store-bytes` decided (QUOTA-5): as given (0 = no cap), else,
/// for SQLite, half the room the store had on its disk at start (its files plus the free space
/// of the data dir's file system), so it stops taking new boards and named versions while the
/// disk still has as much free as the store holds. PostgreSQL's disk is not the server's to see
/// and the memory store has none: no cap unless given. Called once the data dir exists.
pub fn with_store_cap(mut config: Config) -> Config {
    if config.max_store_bytes.is_some() {
        return config;
    }
    if config.database_url.is_some() || config.memory_store {
        config.max_store_bytes = Some(0);
        return config;
    }
    let room = rustix::fs::statvfs(&config.data_dir)
        .map_err(std::io::Error::from)
        .and_then(|v| {
            let free = v.f_bavail.saturating_mul(v.f_frsize);
            Ok(free.saturating_add(dir_bytes(&config.data_dir)?))
        });
    let cap = match room {
        Ok(room) => room / 2,
        Err(e) => {
            tracing::warn!(dir = %config.data_dir.display(), error = %e,
                "cannot size the store's disk: no --max-store-bytes cap");
            0
        }
    };
    tracing::info!(
        bytes = cap,
        "store cap: half the room on the data dir's disk (--max-store-bytes)"
    );
    config.max_store_bytes = Some(cap);
    config
}

/// Bytes of the files in a directory (not its subdirectories).
fn dir_bytes(dir: &Path) -> std::io::Result<u64> {
    let mut total = 0u64;
    for entry in std::fs::read_dir(dir)?.flatten() {
        if let Ok(m) = entry.metadata()
            && m.is_file()
        {
            total += m.len();
        }
    }
    Ok(total)
}

/// With `--auth off`: whether joining `board` would create it, and if so whether it may.
pub async fn may_join_new(
    env: &Env,
    accounts: &impl Accounts,
    board: &BoardId,
) -> Result<(), Refused> {
    if env.registry.loaded(board).is_some() {
        return Ok(());
    }
    let exists = env
        .store
        .board_exists(board)
        .await
        .map_err(|e| unavailable(&e))?;
    if exists {
        return Ok(());
    }
    may_create_board(env, accounts, None).await
}

/// Bytes the board and auth stores hold: the data dir's files for SQLite, the schema's tables for
/// PostgreSQL, nothing for the memory store.
async fn stored_bytes(cfg: &Config, accounts: &impl Accounts) -> Result<u64, Refused> {
    if cfg.database_url.is_some() {
        let n = accounts.schema_bytes().await.map_err(|e| unavailable(&e))?;
        return Ok(u64::try_from(n).unwrap_or(0));
    }
    if cfg.memory_store {
        return Ok(0);
    }
    let dir = cfg.data_dir.clone();
    tokio::task::spawn_blocking(move || dir_bytes(&dir))
        .await
        .map_err(|e| unavailable(&e))?
        .map_err(|e| unavailable(&e))
}

/// How many named versions each board may save a minute (`--named-versions-per-min`, QUOTA-4).
pub type SaveLimiter = governor::DefaultKeyedRateLimiter<protocol::BoardId>;

/// The per-board limiter of named version saves: `--named-versions-per-min`, in bursts of as
/// many.
pub fn save_limiter(config: &Config) -> SaveLimiter {
    let n = std::num::NonZeroU32::new(config.named_versions_per_min.max(1))
        .unwrap_or(std::num::NonZeroU32::MIN);
    governor::RateLimiter::keyed(governor::Quota::per_minute(n))
}
