//! Quotas on what a caller may create (QUOTA-1..3): boards per owner, boards per server, bytes
//! in the store. Checked before anything is written, so a refusal (`limit_exceeded`) leaves
//! nothing half-created. Board creation paths: `POST /api/boards` (import), a WebSocket join
//! with a board token that names a new board, and with `--auth off` a join of a new id.

use crate::shared::Shared;
use protocol::BoardId;

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
}

fn unavailable(e: &dyn std::fmt::Display) -> Refused {
    Refused::Unavailable(crate::errors::public(
        "the board store is unavailable; try again shortly",
        e,
    ))
}

/// Whether one more board, owned by `owner` (None: nobody, as with `--auth off`), fits.
pub async fn may_create_board(shared: &Shared, owner: Option<&str>) -> Result<(), Refused> {
    let cfg = &shared.config;
    if let Some(owner) = owner {
        let owned = shared
            .auth
            .store
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
        let n = shared
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
    if cfg.max_store_bytes > 0 {
        let used = stored_bytes(shared).await?;
        if used >= cfg.max_store_bytes {
            return Err(Refused::Limit(format!(
                "the store holds {used} bytes, its limit (--max-store-bytes)"
            )));
        }
    }
    Ok(())
}

/// With `--auth off`: whether joining `board` would create it, and if so whether it may.
pub async fn may_join_new(shared: &Shared, board: &BoardId) -> Result<(), Refused> {
    if shared.registry.loaded(board).is_some() {
        return Ok(());
    }
    let exists = shared
        .store
        .board_exists(board)
        .await
        .map_err(|e| unavailable(&e))?;
    if exists {
        return Ok(());
    }
    may_create_board(shared, None).await
}

/// Bytes the board and auth stores hold: the data dir's files for SQLite, the schema's tables for
/// PostgreSQL, nothing for the memory store.
async fn stored_bytes(shared: &Shared) -> Result<u64, Refused> {
    let cfg = &shared.config;
    if cfg.database_url.is_some() {
        let n = shared
            .auth
            .store
            .postgres_schema_bytes()
            .await
            .map_err(|e| unavailable(&e))?;
        return Ok(u64::try_from(n).unwrap_or(0));
    }
    if cfg.memory_store {
        return Ok(0);
    }
    let dir = cfg.data_dir.clone();
    tokio::task::spawn_blocking(move || {
        let mut total = 0u64;
        for entry in std::fs::read_dir(&dir)?.flatten() {
            if let Ok(m) = entry.metadata()
                && m.is_file()
            {
                total += m.len();
            }
        }
        Ok::<_, std::io::Error>(total)
    })
    .await
    .map_err(|e| unavailable(&e))?
    .map_err(|e| unavailable(&e))
}
