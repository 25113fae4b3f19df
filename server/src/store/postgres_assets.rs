//! PostgreSQL's side of pictures (`super::assets`): bytes and metadata in one table, so every
//! node of a cluster serves every picture, and which boards registered which.
//!
//! An upload or a copy holds a lock on the picture's row while it registers it, and the sweep
//! (ASSET-11) locks the rows it may delete before it checks, in a statement of its own, that no
//! board registers them: neither can leave a registration whose bytes were just deleted.

use super::postgres::{PgStore, Slot, commit, pg_err, with_conn};
use super::{AssetMeta, Mark, Stale, StoreError};
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

/// Schema version 5: when each registration was last seen in use, and whether the sweep doomed
/// it (ASSET-11).
pub(super) const SWEEP_COLUMNS: &str = "
ALTER TABLE board_assets ADD COLUMN seen_at BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN doomed_at BIGINT;
UPDATE board_assets SET seen_at = added_at;
CREATE INDEX board_assets_seen ON board_assets (seen_at);
CREATE INDEX board_assets_sha ON board_assets (sha256);
";

/// Registers a picture on a board now (again, if the sweep had doomed it); true when the board
/// did not have it.
const REGISTER: &str = "INSERT INTO board_assets (board, sha256, added_at, seen_at) \
    VALUES ($1, $2, $3, $3) ON CONFLICT (board, sha256) \
    DO UPDATE SET added_at = $3, seen_at = $3, doomed_at = NULL RETURNING (xmax = 0)";

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
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (sha256) DO UPDATE SET created_at = assets.created_at",
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
        let added: bool = tx
            .query_one(REGISTER, &[&id, &meta.sha256, &now])
            .await
            .map_err(pg_err)?
            .get(0);
        commit(tx, committing).await?;
        Ok(added)
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
            .query_opt(
                "SELECT 1 FROM assets WHERE sha256 = $1 FOR SHARE",
                &[&sha256],
            )
            .await
            .map_err(pg_err)?;
        if known.is_none() {
            return Ok(None);
        }
        let added: bool = tx
            .query_one(REGISTER, &[&id, &sha256, &now])
            .await
            .map_err(pg_err)?
            .get(0);
        commit(tx, committing).await?;
        Ok(Some(added))
    })
}

/// The columns of [`AssetMeta`], read from `assets a` joined with `board_assets b`.
const META: &str = "SELECT a.sha256, a.mime, a.bytes, a.w, a.h, a.animated, b.added_at \
    FROM board_assets b JOIN assets a ON a.sha256 = b.sha256 \
    WHERE b.board = $1 AND b.doomed_at IS NULL";

fn meta_row(r: &tokio_postgres::Row) -> AssetMeta {
    AssetMeta {
        sha256: r.get(0),
        mime: r.get(1),
        bytes: u64::try_from(r.get::<_, i64>(2)).unwrap_or(0),
        w: u32::try_from(r.get::<_, i32>(3)).unwrap_or(0),
        h: u32::try_from(r.get::<_, i32>(4)).unwrap_or(0),
        animated: r.get(5),
        added_at_ms: r.get(6),
    }
}

pub(super) async fn of_board(s: &PgStore, board: &BoardId) -> Result<Vec<AssetMeta>, StoreError> {
    let id = board.as_str();
    let sql = format!("{META} ORDER BY a.sha256");
    with_conn!(s, Slot::Others, true, |c, committing| {
        let rows = c.client.query(&sql, &[&id]).await.map_err(pg_err)?;
        Ok(rows.iter().map(meta_row).collect())
    })
}

pub(super) async fn one_of_board(
    s: &PgStore,
    board: &BoardId,
    sha256: &str,
) -> Result<Option<AssetMeta>, StoreError> {
    let id = board.as_str();
    let sql = format!("{META} AND b.sha256 = $2");
    with_conn!(s, Slot::Others, true, |c, committing| {
        let row = c.client.query_opt(&sql, &[&id, &sha256]).await;
        Ok(row.map_err(pg_err)?.as_ref().map(meta_row))
    })
}

pub(super) async fn stale(
    s: &PgStore,
    seen_before: i64,
    max: usize,
) -> Result<Vec<Stale>, StoreError> {
    let max = i64::try_from(max).unwrap_or(i64::MAX);
    with_conn!(s, Slot::Others, true, |c, committing| {
        let rows = c
            .client
            .query(
                "SELECT board, sha256, doomed_at IS NOT NULL FROM board_assets \
                 WHERE seen_at < $1 ORDER BY board LIMIT $2",
                &[&seen_before, &max],
            )
            .await
            .map_err(pg_err)?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let board = BoardId::try_from(r.get::<_, String>(0)).ok()?;
                Some(Stale {
                    board,
                    sha256: r.get(1),
                    doomed: r.get(2),
                })
            })
            .collect())
    })
}

pub(super) async fn mark(
    s: &PgStore,
    board: &BoardId,
    names: &[String],
    mark: Mark,
    now: i64,
) -> Result<u64, StoreError> {
    let id = board.as_str();
    with_conn!(s, Slot::Others, true, |c, committing| {
        let n = match mark {
            Mark::Touch => {
                c.client
                    .execute(
                        "UPDATE board_assets SET seen_at = $3, doomed_at = NULL \
                         WHERE board = $1 AND sha256 = ANY($2)",
                        &[&id, &names, &now],
                    )
                    .await
            }
            Mark::Doom { seen_before } => {
                c.client
                    .execute(
                        "UPDATE board_assets SET doomed_at = $3 WHERE board = $1 \
                         AND sha256 = ANY($2) AND doomed_at IS NULL AND seen_at < $4",
                        &[&id, &names, &now, &seen_before],
                    )
                    .await
            }
            Mark::Drop => {
                c.client
                    .execute(
                        "DELETE FROM board_assets WHERE board = $1 AND sha256 = ANY($2) \
                         AND doomed_at IS NOT NULL",
                        &[&id, &names],
                    )
                    .await
            }
        };
        n.map_err(pg_err)
    })
}

/// Locks the pictures no board registers (skipping any an upload holds), then deletes those
/// that, seen by a statement of its own, still have no registration.
pub(super) async fn drop_orphans(s: &PgStore) -> Result<u64, StoreError> {
    with_conn!(s, Slot::Others, true, |c, committing| {
        let tx = c.client.transaction().await.map_err(pg_err)?;
        let locked: Vec<String> = tx
            .query(
                "SELECT sha256 FROM assets a WHERE NOT EXISTS \
                 (SELECT 1 FROM board_assets b WHERE b.sha256 = a.sha256) \
                 FOR UPDATE OF a SKIP LOCKED",
                &[],
            )
            .await
            .map_err(pg_err)?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let n = tx
            .execute(
                "DELETE FROM assets WHERE sha256 = ANY($1) AND NOT EXISTS \
                 (SELECT 1 FROM board_assets b WHERE b.sha256 = assets.sha256)",
                &[&locked],
            )
            .await
            .map_err(pg_err)?;
        commit(tx, committing).await?;
        Ok(n)
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
