//! SQLite's SQL for board versions (HIST-1): the `versions` table and the calls behind
//! `Backend::{save,list,load,delete}_versions` (the interface is `versions.rs`).

use super::StoreError;
use super::sqlite::{SqliteStore, sql_err};
use super::versions::{NewVersion, VersionRow};
use protocol::BoardId;
use rusqlite::{OptionalExtension, TransactionBehavior, params};

/// The table (schema version 7).
pub(super) const TABLE: &str = "CREATE TABLE versions (board TEXT NOT NULL, \
    id INTEGER NOT NULL, seq INTEGER NOT NULL, created_at INTEGER NOT NULL, meta TEXT NOT NULL, \
    payload BLOB NOT NULL, crc INTEGER NOT NULL, PRIMARY KEY (board, id)) WITHOUT ROWID";

/// Stores `v` under the board's next id (its write transaction serializes the saves).
pub(super) async fn save(
    s: &SqliteStore,
    board: &BoardId,
    v: NewVersion,
) -> Result<i64, StoreError> {
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
                params![
                    board.as_str(),
                    v.seq,
                    v.created_at,
                    v.meta,
                    v.payload,
                    v.crc
                ],
                |r| r.get(0),
            )
            .map_err(sql_err)?;
        tx.commit().map_err(sql_err)?;
        Ok(id)
    })
    .await
}

/// The board's versions by id, without their objects.
pub(super) async fn list(s: &SqliteStore, board: &BoardId) -> Result<Vec<VersionRow>, StoreError> {
    let board = board.clone();
    s.run(move |c| {
        let mut stmt = c
            .prepare_cached(
                "SELECT id, seq, created_at, meta FROM versions WHERE board = ?1 ORDER BY id",
            )
            .map_err(sql_err)?;
        let rows = stmt
            .query_map([board.as_str()], |r| {
                Ok(VersionRow {
                    id: r.get(0)?,
                    seq: r.get(1)?,
                    created_at: r.get(2)?,
                    meta: r.get(3)?,
                    payload: Vec::new(),
                    crc: 0,
                })
            })
            .map_err(sql_err)?;
        rows.collect::<Result<_, _>>().map_err(sql_err)
    })
    .await
}

/// One version with its objects.
pub(super) async fn load(
    s: &SqliteStore,
    board: &BoardId,
    id: i64,
) -> Result<Option<VersionRow>, StoreError> {
    let board = board.clone();
    s.run(move |c| {
        c.query_row(
            "SELECT id, seq, created_at, meta, payload, crc FROM versions \
             WHERE board = ?1 AND id = ?2",
            params![board.as_str(), id],
            |r| {
                Ok(VersionRow {
                    id: r.get(0)?,
                    seq: r.get(1)?,
                    created_at: r.get(2)?,
                    meta: r.get(3)?,
                    payload: r.get(4)?,
                    crc: r.get(5)?,
                })
            },
        )
        .optional()
        .map_err(sql_err)
    })
    .await
}

/// Deletes the board's versions with these ids, in one transaction.
pub(super) async fn delete(
    s: &SqliteStore,
    board: &BoardId,
    ids: Vec<i64>,
) -> Result<(), StoreError> {
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
