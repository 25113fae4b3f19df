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

    /// The pictures registered on `board`, by hash.
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
        let all = self.board_assets(board).await?;
        Ok(all.into_iter().find(|a| a.sha256 == sha256))
    }

    /// A stored picture's bytes.
    pub async fn asset_bytes(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        dispatch!(self, s => s.asset_bytes(sha256).await)
    }
}
