//! Versions of a board (HIST-1..4): full states at a seq, each with what people need to pick one
//! (when, who, how much changed), kept under the retention policy of [`super::retention`]. A
//! version is a snapshot of its own, so viewing or restoring one never replays the log. Every
//! backend keeps them in a `versions` table keyed by (board, id); ids count up per board.
//!
//! This file is the versions interface, the same for every backend: its types, and the
//! [`Store`] methods, which encode a version (JSON, CRC-32, deflate) and decode it back. Each
//! backend's SQL is in its own file (`sqlite_versions.rs`, `postgres_versions.rs`, `memory.rs`),
//! behind `Backend` (`backend.rs`).

use super::backend::Backend;
use super::{Store, StoreError, decode_snapshot, encode_snapshot, now_ms};
use protocol::{BoardId, BoardObject, Seq};
use serde::{Deserialize, Serialize};

/// How a version came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VersionKind {
    /// A checkpoint the server took (a burst of editing ended, ten minutes of editing, the last
    /// person left, or just before a restore).
    Automatic,
    /// Saved by someone, with a name.
    Named,
}

/// Someone whose commands are in a version (since the one before it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Author {
    pub id: String,
    pub name: String,
}

/// What changed since the version before, in objects.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub created: u64,
    pub changed: u64,
    pub deleted: u64,
}

/// A version's description, stored as JSON beside its objects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersionMeta {
    pub kind: VersionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub authors: Vec<Author>,
    pub summary: Summary,
    /// Objects on the board at this version.
    pub objects: u64,
    /// The pictures its images show (ASSET-11), set when it is saved; absent in versions saved
    /// before pictures were tracked, whose objects are read instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pictures: Option<Vec<String>>,
}

/// One row of a board's version list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersionInfo {
    pub id: u64,
    pub seq: Seq,
    /// Unix time in milliseconds.
    pub created_at_ms: i64,
    #[serde(flatten)]
    pub meta: VersionMeta,
}

/// A version as a backend is given it: the backend numbers it.
#[derive(Debug, Clone)]
pub(super) struct NewVersion {
    pub seq: i64,
    /// Unix time in milliseconds.
    pub created_at: i64,
    /// [`VersionMeta`] as JSON.
    pub meta: String,
    /// The objects' JSON, deflated.
    pub payload: Vec<u8>,
    /// CRC-32 of the objects' JSON (before deflating).
    pub crc: i64,
}

/// A version as a backend stores it. Listed (without objects), `payload` is empty and `crc` 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct VersionRow {
    pub id: i64,
    pub seq: i64,
    pub created_at: i64,
    pub meta: String,
    pub payload: Vec<u8>,
    pub crc: i64,
}

impl VersionRow {
    /// `version` stored under `id`.
    pub(super) fn numbered(id: i64, version: NewVersion) -> Self {
        VersionRow {
            id,
            seq: version.seq,
            created_at: version.created_at,
            meta: version.meta,
            payload: version.payload,
            crc: version.crc,
        }
    }

    /// The row as listed: without its objects.
    pub(super) fn listed(&self) -> Self {
        VersionRow {
            payload: Vec::new(),
            crc: 0,
            meta: self.meta.clone(),
            ..*self
        }
    }
}

fn info(row: &VersionRow) -> Result<VersionInfo, StoreError> {
    let meta = serde_json::from_str(&row.meta)
        .map_err(|e| StoreError::Corrupt(format!("version {}: meta: {e}", row.id)))?;
    Ok(VersionInfo {
        id: u64::try_from(row.id).unwrap_or(0),
        seq: super::seq_from_db(row.seq)?,
        created_at_ms: row.created_at,
        meta,
    })
}

fn decode(board: &BoardId, row: VersionRow) -> Result<(VersionInfo, Vec<BoardObject>), StoreError> {
    use std::io::Read;
    let v = info(&row)?;
    let crc = u32::try_from(row.crc)
        .map_err(|_| StoreError::Corrupt(format!("board {board}: version crc")))?;
    let mut json = Vec::new();
    flate2::read::DeflateDecoder::new(&row.payload[..])
        .read_to_end(&mut json)
        .map_err(|e| StoreError::Corrupt(format!("board {board}: version {}: {e}", v.id)))?;
    Ok((v, decode_snapshot(board, &json, crc)?))
}

/// A version's objects as stored: their JSON (whose CRC-32 is kept beside it), deflated, since
/// a version is a whole board and JSON shrinks several times.
fn compress(json: &[u8]) -> Result<Vec<u8>, StoreError> {
    use std::io::Write;
    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(json)
        .and_then(|()| z.finish())
        .map_err(|e| StoreError::Corrupt(format!("version compression: {e}")))
}

fn meta_json(meta: &VersionMeta) -> Result<String, StoreError> {
    serde_json::to_string(meta).map_err(|e| StoreError::Corrupt(format!("version meta: {e}")))
}

impl Store {
    /// Stores `objects` (the board at `seq`) as a new version; returns it with its id.
    pub async fn save_version(
        &self,
        board: &BoardId,
        seq: Seq,
        meta: VersionMeta,
        objects: &[BoardObject],
    ) -> Result<VersionInfo, StoreError> {
        let mut meta = meta;
        let mut pictures: Vec<String> = objects.iter().filter_map(|o| o.asset.clone()).collect();
        pictures.sort_unstable();
        pictures.dedup();
        meta.pictures = Some(pictures);
        let snap = encode_snapshot(objects)?;
        let created_at = now_ms();
        let version = NewVersion {
            seq: super::seq_to_db(seq)?,
            created_at,
            meta: meta_json(&meta)?,
            payload: compress(&snap.payload)?,
            crc: i64::from(snap.crc),
        };
        let id = dispatch!(self, s => s.save_version(board, version).await)?;
        Ok(VersionInfo {
            id: u64::try_from(id).unwrap_or(0),
            seq,
            created_at_ms: created_at,
            meta,
        })
    }

    /// The board's versions, oldest first, without their objects.
    pub async fn list_versions(&self, board: &BoardId) -> Result<Vec<VersionInfo>, StoreError> {
        let rows = dispatch!(self, s => s.list_versions(board).await)?;
        rows.iter().map(info).collect()
    }

    /// One version with its objects, or `None` when the board has no such version.
    pub async fn load_version(
        &self,
        board: &BoardId,
        id: u64,
    ) -> Result<Option<(VersionInfo, Vec<BoardObject>)>, StoreError> {
        let Ok(id) = i64::try_from(id) else {
            return Ok(None);
        };
        let row = dispatch!(self, s => s.load_version(board, id).await)?;
        row.map(|r| decode(board, r)).transpose()
    }

    /// The pictures the board's kept versions show (ASSET-11).
    pub async fn version_pictures(
        &self,
        board: &BoardId,
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        let mut out = std::collections::HashSet::new();
        for v in self.list_versions(board).await? {
            match v.meta.pictures {
                Some(p) => out.extend(p),
                None => {
                    let objects = self.load_version(board, v.id).await?;
                    let objects = objects.map(|(_, o)| o).unwrap_or_default();
                    out.extend(objects.into_iter().filter_map(|o| o.asset));
                }
            }
        }
        Ok(out)
    }

    /// Deletes the board's versions with these ids (retention).
    pub async fn delete_versions(&self, board: &BoardId, ids: &[u64]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<i64> = ids.iter().filter_map(|&i| i64::try_from(i).ok()).collect();
        dispatch!(self, s => s.delete_versions(board, ids).await)
    }
}
