//! SQLite's side of pictures (`super::assets`): the bytes are files under the data directory
//! (`assets/ab/abcdef…`, written to a temporary name, fsynced, renamed, the directory fsynced)
//! and the metadata rows are written after them, so a picture the store lists is always whole on
//! disk and a large one never holds the database's write lock.

use super::sqlite::{SqliteStore, sql_err};
use super::{AssetMeta, StoreError};
use bytes::Bytes;
use protocol::BoardId;
use rusqlite::{OptionalExtension, params};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The tables (schema version 8).
pub(super) const TABLES: &str = "
CREATE TABLE assets (sha256 TEXT PRIMARY KEY, mime TEXT NOT NULL, bytes INTEGER NOT NULL,
    w INTEGER NOT NULL, h INTEGER NOT NULL, animated INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE board_assets (board TEXT NOT NULL, sha256 TEXT NOT NULL, added_at INTEGER NOT NULL,
    PRIMARY KEY (board, sha256)) WITHOUT ROWID;
";

/// Where the picture named `sha256` is kept, beside the database file.
fn file_of(db: &Path, sha256: &str) -> PathBuf {
    let dir = db.parent().unwrap_or(Path::new("."));
    dir.join("assets").join(&sha256[..2]).join(sha256)
}

/// Writes `data` to `path` durably, unless a file is there already (the same hash, the same
/// bytes).
fn write_durably(path: &Path, data: &[u8]) -> std::io::Result<()> {
    if path.exists() {
        return Ok(());
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".tmp-{}", uuid::Uuid::new_v4().simple()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(data)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    std::fs::File::open(dir)?.sync_all()
}

fn io_err(e: std::io::Error) -> StoreError {
    StoreError::Unavailable(format!("sqlite store: picture file: {e}"))
}

pub(super) async fn put(
    s: &SqliteStore,
    board: &BoardId,
    meta: &AssetMeta,
    data: Bytes,
    now: i64,
) -> Result<bool, StoreError> {
    if meta.sha256.len() != 64 {
        return Err(StoreError::Corrupt(
            "a picture's name is its SHA-256".into(),
        ));
    }
    let path = file_of(s.path(), &meta.sha256);
    tokio::task::spawn_blocking(move || write_durably(&path, &data))
        .await
        .map_err(|e| StoreError::Unavailable(format!("sqlite store: {e}")))?
        .map_err(io_err)?;
    let (board, meta) = (board.clone(), meta.clone());
    s.run(move |c| {
        let tx = c.transaction().map_err(sql_err)?;
        tx.execute(
            "INSERT OR IGNORE INTO assets (sha256, mime, bytes, w, h, animated, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                meta.sha256,
                meta.mime,
                i64::try_from(meta.bytes).unwrap_or(i64::MAX),
                meta.w,
                meta.h,
                meta.animated,
                now
            ],
        )
        .map_err(sql_err)?;
        let added = tx
            .execute(
                "INSERT OR IGNORE INTO board_assets (board, sha256, added_at) VALUES (?1, ?2, ?3)",
                params![board.as_str(), meta.sha256, now],
            )
            .map_err(sql_err)?;
        tx.commit().map_err(sql_err)?;
        Ok(added == 1)
    })
    .await
}

pub(super) async fn register(
    s: &SqliteStore,
    board: &BoardId,
    sha256: &str,
    now: i64,
) -> Result<Option<bool>, StoreError> {
    let (board, sha256) = (board.clone(), sha256.to_owned());
    s.run(move |c| {
        let tx = c.transaction().map_err(sql_err)?;
        let known: Option<i64> = tx
            .query_row("SELECT 1 FROM assets WHERE sha256 = ?1", [&sha256], |r| {
                r.get(0)
            })
            .optional()
            .map_err(sql_err)?;
        if known.is_none() {
            return Ok(None);
        }
        let added = tx
            .execute(
                "INSERT OR IGNORE INTO board_assets (board, sha256, added_at) VALUES (?1, ?2, ?3)",
                params![board.as_str(), sha256, now],
            )
            .map_err(sql_err)?;
        tx.commit().map_err(sql_err)?;
        Ok(Some(added == 1))
    })
    .await
}

pub(super) async fn of_board(
    s: &SqliteStore,
    board: &BoardId,
) -> Result<Vec<AssetMeta>, StoreError> {
    let board = board.clone();
    s.run(move |c| {
        let mut stmt = c
            .prepare_cached(
                "SELECT a.sha256, a.mime, a.bytes, a.w, a.h, a.animated FROM board_assets b \
                 JOIN assets a ON a.sha256 = b.sha256 WHERE b.board = ?1 ORDER BY a.sha256",
            )
            .map_err(sql_err)?;
        let rows = stmt
            .query_map([board.as_str()], |r| {
                Ok(AssetMeta {
                    sha256: r.get(0)?,
                    mime: r.get(1)?,
                    bytes: u64::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
                    w: r.get(3)?,
                    h: r.get(4)?,
                    animated: r.get(5)?,
                })
            })
            .map_err(sql_err)?;
        rows.collect::<Result<_, _>>().map_err(sql_err)
    })
    .await
}

pub(super) async fn bytes_of(s: &SqliteStore, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
    if sha256.len() != 64 {
        return Ok(None);
    }
    let path = file_of(s.path(), sha256);
    let read = tokio::task::spawn_blocking(move || std::fs::read(path))
        .await
        .map_err(|e| StoreError::Unavailable(format!("sqlite store: {e}")))?;
    match read {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(e)),
    }
}
