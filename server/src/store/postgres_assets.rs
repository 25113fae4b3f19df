//! PostgreSQL's side of pictures (`super::assets`): bytes and metadata in one table, so every
//! node of a cluster serves every picture, and which boards registered which.

use super::postgres::{PgStore, Slot, commit, pg_err, with_conn};
use super::{AssetMeta, StoreError};
use bytes::Bytes;
use protocol::BoardId;
use tokio_postgres::NoTls;

/// The tables (schema version 4).
pub(super) const TABLES: &str = "
CREATE TABLE assets (sha256 TEXT PRIMARY KEY, mime TEXT NOT NULL, bytes BIGINT NOT NULL,
    w INTEGER NOT NULL, h INTEGER NOT NULL, animated BOOLEAN NOT NULL, data BYTEA NOT NULL,
    created_at BIGINT NOT NULL);
CREATE TABLE board_assets (board TEXT NOT NULL, sha256 TEXT NOT NULL, added_at BIGINT NOT NULL,
    PRIMARY KEY (board, sha256));
";

pub(super) async fn put(
    s: &PgStore,
    board: &BoardId,
    meta: &AssetMeta,
    data: Bytes,
    now: i64,
) -> Result<bool, StoreError> {
    let id = board.as_str();
    let bytes = i64::try_from(meta.bytes).unwrap_or(i64::MAX);
    let (w, h) = (meta.w as i32, meta.h as i32);
    let data: &[u8] = &data;
    with_conn!(s, Slot::Others, true, |c, committing| {
        let tx = c.client.transaction().await.map_err(pg_err)?;
        tx.execute(
            "INSERT INTO assets (sha256, mime, bytes, w, h, animated, data, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (sha256) DO NOTHING",
            &[
                &meta.sha256,
                &meta.mime,
                &bytes,
                &w,
                &h,
                &meta.animated,
                &data,
                &now,
            ],
        )
        .await
        .map_err(pg_err)?;
        let added = tx
            .execute(
                "INSERT INTO board_assets (board, sha256, added_at) VALUES ($1, $2, $3) \
                 ON CONFLICT DO NOTHING",
                &[&id, &meta.sha256, &now],
            )
            .await
            .map_err(pg_err)?;
        commit(tx, committing).await?;
        Ok(added == 1)
    })
}

pub(super) async fn register(
    s: &PgStore,
    board: &BoardId,
    sha256: &str,
    now: i64,
) -> Result<Option<bool>, StoreError> {
    let id = board.as_str();
    with_conn!(s, Slot::Others, true, |c, committing| {
        let tx = c.client.transaction().await.map_err(pg_err)?;
        let known = tx
            .query_opt("SELECT 1 FROM assets WHERE sha256 = $1", &[&sha256])
            .await
            .map_err(pg_err)?;
        if known.is_none() {
            return Ok(None);
        }
        let added = tx
            .execute(
                "INSERT INTO board_assets (board, sha256, added_at) VALUES ($1, $2, $3) \
                 ON CONFLICT DO NOTHING",
                &[&id, &sha256, &now],
            )
            .await
            .map_err(pg_err)?;
        commit(tx, committing).await?;
        Ok(Some(added == 1))
    })
}

pub(super) async fn of_board(s: &PgStore, board: &BoardId) -> Result<Vec<AssetMeta>, StoreError> {
    let id = board.as_str();
    with_conn!(s, Slot::Others, true, |c, committing| {
        let rows = c
            .client
            .query(
                "SELECT a.sha256, a.mime, a.bytes, a.w, a.h, a.animated FROM board_assets b \
                 JOIN assets a ON a.sha256 = b.sha256 WHERE b.board = $1 ORDER BY a.sha256",
                &[&id],
            )
            .await
            .map_err(pg_err)?;
        Ok(rows
            .iter()
            .map(|r| AssetMeta {
                sha256: r.get(0),
                mime: r.get(1),
                bytes: u64::try_from(r.get::<_, i64>(2)).unwrap_or(0),
                w: u32::try_from(r.get::<_, i32>(3)).unwrap_or(0),
                h: u32::try_from(r.get::<_, i32>(4)).unwrap_or(0),
                animated: r.get(5),
            })
            .collect())
    })
}

pub(super) async fn bytes_of(s: &PgStore, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
    with_conn!(s, Slot::Others, true, |c, committing| {
        let row = c
            .client
            .query_opt("SELECT data FROM assets WHERE sha256 = $1", &[&sha256])
            .await
            .map_err(pg_err)?;
        Ok(row.map(|r| r.get::<_, Vec<u8>>(0)))
    })
}
