//! Versions of a board (HIST-1..4): full states at a seq, each with what people need to pick one
//! (when, who, how much changed), kept under the retention policy of [`crate::history`]. A
//! version is a snapshot of its own, so viewing or restoring one never replays the log. Every
//! backend keeps them in a `versions` table keyed by (board, id); ids count up per board.

use super::postgres::{PgStore, commit, pg_err, with_conn};
use super::sqlite::sql_err;
use super::{Store, StoreError, decode_snapshot, encode_snapshot, now_ms};
use protocol::{BoardId, BoardObject, Seq};
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};
use tokio_postgres::NoTls;

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
}

/// One row of a board's version list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VersionInfo {
    pub id: u64,
    pub seq: Seq,
    /// Unix time in milliseconds.
    pub created_at_ms: i64,
    #[serde(flatten)]
    pub meta: VersionMeta,
}

/// A stored row: id, seq, time, meta JSON, payload, crc.
type Row = (i64, i64, i64, String, Vec<u8>, i64);

fn info(row: &Row) -> Result<VersionInfo, StoreError> {
    let meta = serde_json::from_str(&row.3)
        .map_err(|e| StoreError::Corrupt(format!("version {}: meta: {e}", row.0)))?;
    Ok(VersionInfo {
        id: u64::try_from(row.0).unwrap_or(0),
        seq: super::seq_from_db(row.1)?,
        created_at_ms: row.2,
        meta,
    })
}

fn decode(board: &BoardId, row: Row) -> Result<(VersionInfo, Vec<BoardObject>), StoreError> {
    use std::io::Read;
    let v = info(&row)?;
    let crc = u32::try_from(row.5)
        .map_err(|_| StoreError::Corrupt(format!("board {board}: version crc")))?;
    let mut json = Vec::new();
    flate2::read::DeflateDecoder::new(&row.4[..])
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
        let mut snap = encode_snapshot(objects)?;
        snap.payload = compress(&snap.payload)?;
        let json = meta_json(&meta)?;
        let (seq_db, crc, now) = (super::seq_to_db(seq)?, i64::from(snap.crc), now_ms());
        let id = match self {
            Store::Sqlite(s) => {
                let board = board.clone();
                s.run(move |c| {
                    let tx = c
                        .transaction_with_behavior(TransactionBehavior::Immediate)
                        .map_err(sql_err)?;
                    let id: i64 = tx
                        .query_row(
                            "INSERT INTO versions (board, id, seq, created_at, meta, payload, crc) \
                             SELECT ?1, coalesce(max(id), 0) + 1, ?2, ?3, ?4, ?5, ?6 \
                             FROM versions WHERE board = ?1 RETURNING id",
                            params![board.as_str(), seq_db, now, json, snap.payload, crc],
                            |r| r.get(0),
                        )
                        .map_err(sql_err)?;
                    tx.commit().map_err(sql_err)?;
                    Ok(id)
                })
                .await?
            }
            Store::Postgres(s) => save_pg(s, board, seq_db, now, &json, &snap.payload, crc).await?,
            Store::Memory(s) => {
                let mut all = s.versions();
                let list = all.entry(board.clone()).or_default();
                let id = list.last().map_or(0, |r| r.0) + 1;
                list.push((id, seq_db, now, json, snap.payload, crc));
                id
            }
        };
        Ok(VersionInfo {
            id: u64::try_from(id).unwrap_or(0),
            seq,
            created_at_ms: now,
            meta,
        })
    }

    /// The board's versions, oldest first, without their objects.
    pub async fn list_versions(&self, board: &BoardId) -> Result<Vec<VersionInfo>, StoreError> {
        let rows: Vec<Row> = match self {
            Store::Sqlite(s) => {
                let board = board.clone();
                s.run(move |c| {
                    let mut stmt = c
                        .prepare_cached(
                            "SELECT id, seq, created_at, meta FROM versions WHERE board = ?1 \
                             ORDER BY id",
                        )
                        .map_err(sql_err)?;
                    let rows = stmt
                        .query_map([board.as_str()], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, Vec::new(), 0))
                        })
                        .map_err(sql_err)?;
                    rows.collect::<Result<_, _>>().map_err(sql_err)
                })
                .await?
            }
            Store::Postgres(s) => list_pg(s, board).await?,
            Store::Memory(s) => s
                .versions()
                .get(board)
                .map(|l| {
                    l.iter()
                        .map(|r| (r.0, r.1, r.2, r.3.clone(), Vec::new(), 0))
                        .collect()
                })
                .unwrap_or_default(),
        };
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
        let row: Option<Row> = match self {
            Store::Sqlite(s) => {
                let board = board.clone();
                s.run(move |c| {
                    c.query_row(
                        "SELECT id, seq, created_at, meta, payload, crc FROM versions \
                         WHERE board = ?1 AND id = ?2",
                        params![board.as_str(), id],
                        |r| {
                            Ok((
                                r.get(0)?,
                                r.get(1)?,
                                r.get(2)?,
                                r.get(3)?,
                                r.get(4)?,
                                r.get(5)?,
                            ))
                        },
                    )
                    .optional()
                    .map_err(sql_err)
                })
                .await?
            }
            Store::Postgres(s) => load_pg(s, board, id).await?,
            Store::Memory(s) => s
                .versions()
                .get(board)
                .and_then(|l| l.iter().find(|r| r.0 == id).cloned()),
        };
        row.map(|r| decode(board, r)).transpose()
    }

    /// Deletes the board's versions with these ids (retention).
    pub async fn delete_versions(&self, board: &BoardId, ids: &[u64]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<i64> = ids.iter().filter_map(|&i| i64::try_from(i).ok()).collect();
        match self {
            Store::Sqlite(s) => {
                let board = board.clone();
                s.run(move |c| {
                    let tx = c
                        .transaction_with_behavior(TransactionBehavior::Immediate)
                        .map_err(sql_err)?;
                    for id in ids {
                        tx.execute(
                            "DELETE FROM versions WHERE board = ?1 AND id = ?2",
                            params![board.as_str(), id],
                        )
                        .map_err(sql_err)?;
                    }
                    tx.commit().map_err(sql_err)
                })
                .await
            }
            Store::Postgres(s) => delete_pg(s, board, &ids).await,
            Store::Memory(s) => {
                if let Some(l) = s.versions().get_mut(board) {
                    l.retain(|r| !ids.contains(&r.0));
                }
                Ok(())
            }
        }
    }
}

async fn save_pg(
    s: &PgStore,
    board: &BoardId,
    seq: i64,
    now: i64,
    meta: &str,
    payload: &[u8],
    crc: i64,
) -> Result<i64, StoreError> {
    let id = board.as_str();
    with_conn!(s, false, false, |c, committing| {
        let tx = c.client.transaction().await.map_err(pg_err)?;
        // One writer of a board's versions at a time: the id is the next after the last.
        tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&id])
            .await
            .map_err(pg_err)?;
        let row = tx
            .query_one(
                "INSERT INTO versions (board, id, seq, created_at, meta, payload, crc) \
                 SELECT $1, coalesce(max(id), 0) + 1, $2, $3, $4, $5, $6 \
                 FROM versions WHERE board = $1 RETURNING id",
                &[&id, &seq, &now, &meta, &payload, &crc],
            )
            .await
            .map_err(pg_err)?;
        commit(tx, committing).await?;
        Ok(row.get::<_, i64>(0))
    })
}

async fn list_pg(s: &PgStore, board: &BoardId) -> Result<Vec<Row>, StoreError> {
    let id = board.as_str();
    with_conn!(s, false, true, |c, committing| {
        let rows = c
            .client
            .query(
                "SELECT id, seq, created_at, meta FROM versions WHERE board = $1 ORDER BY id",
                &[&id],
            )
            .await
            .map_err(pg_err)?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), Vec::new(), 0))
            .collect())
    })
}

async fn load_pg(s: &PgStore, board: &BoardId, v: i64) -> Result<Option<Row>, StoreError> {
    let id = board.as_str();
    with_conn!(s, false, true, |c, committing| {
        let row = c
            .client
            .query_opt(
                "SELECT id, seq, created_at, meta, payload, crc FROM versions \
                 WHERE board = $1 AND id = $2",
                &[&id, &v],
            )
            .await
            .map_err(pg_err)?;
        Ok(row.map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5))))
    })
}

async fn delete_pg(s: &PgStore, board: &BoardId, ids: &[i64]) -> Result<(), StoreError> {
    let id = board.as_str();
    with_conn!(s, false, true, |c, committing| {
        c.client
            .execute(
                "DELETE FROM versions WHERE board = $1 AND id = ANY($2)",
                &[&id, &ids],
            )
            .await
            .map_err(pg_err)?;
        Ok(())
    })
}

/// The table in SQLite (schema version 7).
pub(super) const SQLITE_TABLE: &str = "CREATE TABLE versions (board TEXT NOT NULL, \
    id INTEGER NOT NULL, seq INTEGER NOT NULL, created_at INTEGER NOT NULL, meta TEXT NOT NULL, \
    payload BLOB NOT NULL, crc INTEGER NOT NULL, PRIMARY KEY (board, id)) WITHOUT ROWID";

/// The table in PostgreSQL (schema version 2).
pub(super) const PG_TABLE: &str = "CREATE TABLE versions (board TEXT NOT NULL, \
    id BIGINT NOT NULL, seq BIGINT NOT NULL, created_at BIGINT NOT NULL, meta TEXT NOT NULL, \
    payload BYTEA NOT NULL, crc BIGINT NOT NULL, PRIMARY KEY (board, id))";
