//! Pictures on boards (ASSET-1..): each picture's bytes are stored once, named by their SHA-256;
//! a board may show only pictures registered on it (uploaded to it, or copied to it from a board
//! the person may read). This file is the interface, the same for every backend: SQLite keeps the
//! bytes as files under the data directory (written and fsynced before the metadata row, so a
//! large picture never holds the database's write lock) and the metadata in its tables;
//! PostgreSQL keeps both, so every node of a cluster serves every picture; the memory store keeps
//! them in maps.

use super::backend::Backend;
use super::{Store, StoreError, now_ms};
use bytes::Bytes;
use protocol::BoardId;
use serde::{Deserialize, Serialize};

/// What the server knows of a stored picture.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssetMeta {
    /// SHA-256 of the stored bytes, 64 lowercase hex.
    pub sha256: String,
    /// The type detected from the bytes (`image/png`, `image/jpeg`, `image/gif`, `image/webp`,
    /// `image/svg+xml`).
    pub mime: String,
    pub bytes: u64,
    pub w: u32,
    pub h: u32,
    pub animated: bool,
    /// When the board last registered it (an upload or a copy), Unix ms; not sent to clients.
    #[serde(skip)]
    pub added_at_ms: i64,
}

/// A board's registration of a picture not seen in use for a while (the sweep's input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    pub board: BoardId,
    pub sha256: String,
    /// Marked by an earlier sweep: gone unless the board uses it again.
    pub doomed: bool,
}

/// What the sweep does to some of a board's registrations (ASSET-11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// In use: seen now, no longer doomed.
    Touch,
    /// Not in use: doomed, unless it was seen since `seen_before` (Unix ms).
    Doom { seen_before: i64 },
    /// Still not in use: the doomed registrations are deleted.
    Drop,
}

impl Store {
    /// Stores a picture (its bytes once per hash) and registers it on `board`. Durable when it
    /// returns. True when the board did not have it yet.
    pub async fn put_asset(
        &self,
        board: &BoardId,
        meta: &AssetMeta,
        data: Bytes,
    ) -> Result<bool, StoreError> {
        dispatch!(self, s => s.put_asset(board, meta, data, now_ms()).await)
    }

    /// Registers a stored picture on `board` (a copy between boards moves no bytes): None when
    /// no picture has that hash, else whether the board did not have it yet.
    pub async fn register_asset(
        &self,
        board: &BoardId,
        sha256: &str,
    ) -> Result<Option<bool>, StoreError> {
        dispatch!(self, s => s.register_asset(board, sha256, now_ms()).await)
    }

    /// The pictures registered on `board`, by hash (none the sweep has doomed).
    pub async fn board_assets(&self, board: &BoardId) -> Result<Vec<AssetMeta>, StoreError> {
        dispatch!(self, s => s.board_assets(board).await)
    }

    /// One picture registered on `board` (None when that board does not have it, even if
    /// another board does).
    pub async fn board_asset(
        &self,
        board: &BoardId,
        sha256: &str,
    ) -> Result<Option<AssetMeta>, StoreError> {
        dispatch!(self, s => s.board_asset(board, sha256).await)
    }

    /// Registrations not seen in use since `seen_before` (Unix ms), by board, at most `max`.
    pub async fn stale_assets(
        &self,
        seen_before: i64,
        max: usize,
    ) -> Result<Vec<Stale>, StoreError> {
        dispatch!(self, s => s.stale_assets(seen_before, max).await)
    }

    /// Touches, dooms or drops some of `board`'s registrations; how many rows changed.
    pub async fn mark_assets(
        &self,
        board: &BoardId,
        names: &[String],
        mark: Mark,
    ) -> Result<u64, StoreError> {
        if names.is_empty() {
            return Ok(0);
        }
        dispatch!(self, s => s.mark_assets(board, names, mark, now_ms()).await)
    }

    /// Deletes the pictures no board registers (their bytes too); how many.
    pub async fn drop_orphan_assets(&self) -> Result<u64, StoreError> {
        dispatch!(self, s => s.drop_orphan_assets().await)
    }

    /// A stored picture's bytes.
    pub async fn asset_bytes(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        dispatch!(self, s => s.asset_bytes(sha256).await)
    }
}
