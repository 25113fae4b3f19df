//! SQLite's side of pictures (`super::assets`): the bytes are files under the data directory
//! (`assets/ab/abcdef…`, written to a temporary name, fsynced, renamed, the directory fsynced)
//! and the metadata rows are written after them, so a picture the store lists is always whole on
//! disk and a large one never holds the database's write lock.
//!
//! The sweep (ASSET-11) deletes a picture's row and then its file; an upload of the same bytes
//! writes the file and then the rows. [`FILES`] keeps the two apart, so an upload racing the
//! sweep never ends with rows whose file was just deleted.

use super::sqlite::{SqliteStore, sql_err};
use super::{AssetMeta, Mark, Stale, StoreError};
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

/// Schema version 9: when each registration was last seen in use, and whether the sweep doomed
/// it (ASSET-11).
pub(super) const SWEEP_COLUMNS: &str = "
ALTER TABLE board_assets ADD COLUMN seen_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE board_assets ADD COLUMN doomed_at INTEGER;
UPDATE board_assets SET seen_at = added_at;
CREATE INDEX board_assets_seen ON board_assets (seen_at);
CREATE INDEX board_assets_sha ON board_assets (sha256);
";

/// Held for reading while an upload writes a file and its rows; for writing while the sweep
/// deletes rows and files.
static FILES: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// Registers `sha256` on `board` now (again, if the sweep had doomed it); true when the board
/// did not have it.
fn register_now(
    tx: &rusqlite::Transaction<'_>,
    board: &str,
    sha256: &str,
    now: i64,
) -> Result<bool, StoreError> {
    let again = tx
        .execute(
            "UPDATE board_assets SET added_at = ?3, seen_at = ?3, doomed_at = NULL \
             WHERE board = ?1 AND sha256 = ?2",
            params![board, sha256, now],
        )
        .map_err(sql_err)?;
    if again > 0 {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO board_assets (board, sha256, added_at, seen_at) VALUES (?1, ?2, ?3, ?3)",
        params![board, sha256, now],
    )
    .map_err(sql_err)?;
    Ok(true)
}

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
    let _files = FILES.read().await;
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
        let added = register_now(&tx, board.as_str(), &meta.sha256, now)?;
        tx.commit().map_err(sql_err)?;
        Ok(added)
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
        let added = register_now(&tx, board.as_str(), &sha256, now)?;
        tx.commit().map_err(sql_err)?;
        Ok(Some(added))
    })
    .await
}

/// The columns of [`AssetMeta`], read from `assets a` joined with `board_assets b`.
const META: &str = "SELECT a.sha256, a.mime, a.bytes, a.w, a.h, a.animated, b.added_at \
    FROM board_assets b JOIN assets a ON a.sha256 = b.sha256 \
    WHERE b.board = ?1 AND b.doomed_at IS NULL";

fn meta_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AssetMeta> {
    Ok(AssetMeta {
        sha256: r.get(0)?,
        mime: r.get(1)?,
        bytes: u64::try_from(r.get::<_, i64>(2)?).unwrap_or(0),
        w: r.get(3)?,
        h: r.get(4)?,
        animated: r.get(5)?,
        added_at_ms: r.get(6)?,
    })
}

pub(super) async fn of_board(
    s: &SqliteStore,
    board: &BoardId,
) -> Result<Vec<AssetMeta>, StoreError> {
    let board = board.clone();
    s.run(move |c| {
        let mut stmt = c
            .prepare_cached(&format!("{META} ORDER BY a.sha256"))
            .map_err(sql_err)?;
        let rows = stmt
            .query_map([board.as_str()], meta_row)
            .map_err(sql_err)?;
        rows.collect::<Result<_, _>>().map_err(sql_err)
    })
    .await
}

pub(super) async fn one_of_board(
    s: &SqliteStore,
    board: &BoardId,
    sha256: &str,
) -> Result<Option<AssetMeta>, StoreError> {
    let (board, sha256) = (board.clone(), sha256.to_owned());
    s.run(move |c| {
        c.prepare_cached(&format!("{META} AND b.sha256 = ?2"))
            .map_err(sql_err)?
            .query_row(params![board.as_str(), sha256], meta_row)
            .optional()
            .map_err(sql_err)
    })
    .await
}

pub(super) async fn stale(
    s: &SqliteStore,
    seen_before: i64,
    max: usize,
) -> Result<Vec<Stale>, StoreError> {
    let max = i64::try_from(max).unwrap_or(i64::MAX);
    s.run(move |c| {
        let mut stmt = c
            .prepare_cached(
                "SELECT board, sha256, doomed_at IS NOT NULL FROM board_assets \
                 WHERE seen_at < ?1 ORDER BY board LIMIT ?2",
            )
            .map_err(sql_err)?;
        let rows = stmt
            .query_map(params![seen_before, max], |r| {
                Ok((r.get::<_, String>(0)?, r.get(1)?, r.get(2)?))
            })
            .map_err(sql_err)?;
        let mut out = Vec::new();
        for row in rows {
            let (board, sha256, doomed) = row.map_err(sql_err)?;
            // A row no board id parses from cannot be a board's; leave it to the operator.
            if let Ok(board) = BoardId::try_from(board) {
                out.push(Stale {
                    board,
                    sha256,
                    doomed,
                });
            }
        }
        Ok(out)
    })
    .await
}

pub(super) async fn mark(
    s: &SqliteStore,
    board: &BoardId,
    names: &[String],
    mark: Mark,
    now: i64,
) -> Result<u64, StoreError> {
    let (board, names) = (board.clone(), names.to_vec());
    s.run(move |c| {
        let tx = c.transaction().map_err(sql_err)?;
        let mut n = 0;
        for name in &names {
            let key = (board.as_str(), name.as_str());
            n += match mark {
                Mark::Touch => tx.execute(
                    "UPDATE board_assets SET seen_at = ?3, doomed_at = NULL \
                     WHERE board = ?1 AND sha256 = ?2",
                    params![key.0, key.1, now],
                ),
                Mark::Doom { seen_before } => tx.execute(
                    "UPDATE board_assets SET doomed_at = ?3 WHERE board = ?1 AND sha256 = ?2 \
                     AND doomed_at IS NULL AND seen_at < ?4",
                    params![key.0, key.1, now, seen_before],
                ),
                Mark::Drop => tx.execute(
                    "DELETE FROM board_assets WHERE board = ?1 AND sha256 = ?2 \
                     AND doomed_at IS NOT NULL",
                    params![key.0, key.1],
                ),
            }
            .map_err(sql_err)?;
        }
        tx.commit().map_err(sql_err)?;
        Ok(n as u64)
    })
    .await
}

/// Deletes the rows of pictures no board registers, then their files.
pub(super) async fn drop_orphans(s: &SqliteStore) -> Result<u64, StoreError> {
    let _files = FILES.write().await;
    let gone: Vec<String> = s
        .run(|c| {
            let tx = c.transaction().map_err(sql_err)?;
            let gone = tx
                .prepare(
                    "DELETE FROM assets WHERE NOT EXISTS \
                     (SELECT 1 FROM board_assets b WHERE b.sha256 = assets.sha256) \
                     RETURNING sha256",
                )
                .map_err(sql_err)?
                .query_map([], |r| r.get(0))
                .map_err(sql_err)?
                .collect::<Result<Vec<String>, _>>()
                .map_err(sql_err)?;
            tx.commit().map_err(sql_err)?;
            Ok(gone)
        })
        .await?;
    let db = s.path().to_owned();
    let n = gone.len() as u64;
    tokio::task::spawn_blocking(move || {
        for sha in gone.iter().filter(|h| h.len() == 64) {
            let path = file_of(&db, sha);
            if let Err(e) = std::fs::remove_file(&path)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!(error = %e, "sqlite store: could not delete a picture's file");
            }
        }
    })
    .await
    .map_err(|e| StoreError::Unavailable(format!("sqlite store: {e}")))?;
    Ok(n)
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
