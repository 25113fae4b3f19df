//! PostgreSQL's SQL for board versions (HIST-1): the `versions` table and the calls behind
//! `Backend::{save,list,load,delete}_versions` (the interface is `versions.rs`).

use super::StoreError;
use super::cluster::check_epoch;
use super::postgres::{PgStore, Slot, commit, pg_err, with_conn};
use super::versions::{NewVersion, VersionRow};
use protocol::BoardId;
use tokio_postgres::NoTls;

/// The table (schema version 2).
pub(super) const TABLE: &str = "CREATE TABLE versions (board TEXT NOT NULL, \
    id BIGINT NOT NULL, seq BIGINT NOT NULL, created_at BIGINT NOT NULL, meta TEXT NOT NULL, \
    payload BYTEA NOT NULL, crc BIGINT NOT NULL, PRIMARY KEY (board, id))";

/// Stores `v` under the board's next id (a fenced store: only at the epoch it holds).
pub(super) async fn save(s: &PgStore, board: &BoardId, v: NewVersion) -> Result<i64, StoreError> {
    let id = board.as_str();
    let epoch = s.held(board)?;
    let r = with_conn!(s, Slot::Others, false, |c, committing| {
        let tx = c.client.transaction().await.map_err(pg_err)?;
        if let Some(e) = epoch {
            check_epoch(&tx, board, e).await?;
        }
        // One writer of a board's versions at a time: the id is the next after the last.
        tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&id])
            .await
            .map_err(pg_err)?;
        let row = tx
            .query_one(
                "INSERT INTO versions (board, id, seq, created_at, meta, payload, crc) \
                 SELECT $1, coalesce(max(id), 0) + 1, $2, $3, $4, $5, $6 \
                 FROM versions WHERE board = $1 RETURNING id",
                &[&id, &v.seq, &v.created_at, &v.meta, &v.payload, &v.crc],
            )
            .await
            .map_err(pg_err)?;
        commit(tx, committing).await?;
        Ok(row.get::<_, i64>(0))
    });
    s.settle(board, epoch, r)
}

/// The board's versions by id, without their objects.
pub(super) async fn list(s: &PgStore, board: &BoardId) -> Result<Vec<VersionRow>, StoreError> {
    let id = board.as_str();
    with_conn!(s, Slot::Others, true, |c, committing| {
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
            .map(|r| VersionRow {
                id: r.get(0),
                seq: r.get(1),
                created_at: r.get(2),
                meta: r.get(3),
                payload: Vec::new(),
                crc: 0,
            })
            .collect())
    })
}

/// One version with its objects.
pub(super) async fn load(
    s: &PgStore,
    board: &BoardId,
    v: i64,
) -> Result<Option<VersionRow>, StoreError> {
    let id = board.as_str();
    with_conn!(s, Slot::Others, true, |c, committing| {
        let row = c
            .client
            .query_opt(
                "SELECT id, seq, created_at, meta, payload, crc FROM versions \
                 WHERE board = $1 AND id = $2",
                &[&id, &v],
            )
            .await
            .map_err(pg_err)?;
        Ok(row.map(|r| VersionRow {
            id: r.get(0),
            seq: r.get(1),
            created_at: r.get(2),
            meta: r.get(3),
            payload: r.get(4),
            crc: r.get(5),
        }))
    })
}

/// Deletes the board's versions with these ids (a fenced store: only at the epoch it holds).
pub(super) async fn delete(s: &PgStore, board: &BoardId, ids: &[i64]) -> Result<(), StoreError> {
    let id = board.as_str();
    let Some(epoch) = s.held(board)? else {
        return with_conn!(s, Slot::Others, true, |c, committing| {
            c.client
                .execute(
                    "DELETE FROM versions WHERE board = $1 AND id = ANY($2)",
                    &[&id, &ids],
                )
                .await
                .map_err(pg_err)?;
            Ok(())
        });
    };
    let r = with_conn!(s, Slot::Others, true, |c, committing| {
        let tx = c.client.transaction().await.map_err(pg_err)?;
        check_epoch(&tx, board, epoch).await?;
        tx.execute(
            "DELETE FROM versions WHERE board = $1 AND id = ANY($2)",
            &[&id, &ids],
        )
        .await
        .map_err(pg_err)?;
        commit(tx, committing).await
    });
    s.settle(board, Some(epoch), r)
}
