//! The SQLite backend's write transactions: a group commit (`append_rows`) and a snapshot, and
//! the board-row lookups the store shares.

use super::KEPT_BEHIND;
use super::sqlite::{Db, sql_err};
use super::{
    EncodedRecord, EncodedSnapshot, StoreError, batch_ranges, now_ms, seq_from_db, seq_to_db,
};
use protocol::{BoardId, Seq};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// One group commit: the boards' seqs and the records, in one transaction.
pub(super) fn append_rows(db: &mut Db, rows: &[EncodedRecord]) -> Result<(), StoreError> {
    let Db { conn: c, relaxed } = db;
    // Always FULL for the log, whatever a failed snapshot may have left behind.
    if *relaxed {
        c.pragma_update(None, "synchronous", "FULL")
            .map_err(sql_err)?;
        *relaxed = false;
    }
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_err)?;
    let now = now_ms();
    for (board, lo, hi) in batch_ranges(rows)? {
        let (lo, hi) = (seq_to_db(lo)?, seq_to_db(hi)?);
        // The common case in one statement: the board exists and `lo` follows its seq.
        let advanced = tx
            .prepare_cached(
                "UPDATE boards SET seq = ?2, updated_at = ?3 WHERE id = ?1 AND seq < ?4",
            )
            .and_then(|mut s| s.execute(params![board.as_str(), hi, now, lo]))
            .map_err(sql_err)?;
        if advanced == 1 {
            continue;
        }
        if let Some(cur) = stored_seq(&tx, &board)? {
            return Err(StoreError::Conflict(format!(
                "board {board}: seq {lo} is not after the stored seq {cur}"
            )));
        }
        tx.prepare_cached(
            "INSERT INTO boards (id, created_at, updated_at, seq) VALUES (?1, ?2, ?2, ?3)",
        )
        .and_then(|mut s| s.execute(params![board.as_str(), now, hi]))
        .map_err(sql_err)?;
    }
    {
        let mut insert = tx
            .prepare_cached("INSERT INTO log (board, seq, payload, crc) VALUES (?1, ?2, ?3, ?4)")
            .map_err(sql_err)?;
        for r in rows {
            let payload: &[u8] = &r.payload;
            insert
                .execute(params![
                    r.board.as_str(),
                    seq_to_db(r.seq)?,
                    payload,
                    i64::from(r.crc)
                ])
                .map_err(sql_err)?;
        }
    }
    tx.commit().map_err(sql_err)
}

/// The board's stored seq, or `None` when the database holds no row for it.
pub(super) fn stored_seq(c: &Connection, board: &BoardId) -> Result<Option<Seq>, StoreError> {
    let seq: Option<i64> = c
        .prepare_cached("SELECT seq FROM boards WHERE id = ?1")
        .and_then(|mut s| s.query_row([board.as_str()], |r| r.get(0)).optional())
        .map_err(sql_err)?;
    seq.map(seq_from_db).transpose()
}

/// Whether the database holds a row for `board`.
pub(super) fn board_stored(c: &Connection, board: &BoardId) -> Result<bool, StoreError> {
    Ok(stored_seq(c, board)?.is_some())
}

/// The snapshot transaction of [`SqliteStore::save_snapshot`].
pub(super) fn write_snapshot(
    c: &mut Connection,
    board: &BoardId,
    seq: Seq,
    snap: EncodedSnapshot,
) -> Result<(), StoreError> {
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_err)?;
    let seq = seq_to_db(seq)?;
    // A board with no row (never written, or deleted meanwhile) gets no snapshot, so a
    // late snapshot cannot bring a deleted board back.
    if !board_stored(&tx, board)? {
        return Ok(());
    }
    let current: Option<i64> = tx
        .query_row(
            "SELECT seq FROM snapshots WHERE board = ?1",
            [board.as_str()],
            |r| r.get(0),
        )
        .optional()
        .map_err(sql_err)?;
    if current.is_some_and(|cur| cur > seq) {
        return Ok(());
    }
    let now = now_ms();
    tx.execute(
        "INSERT INTO snapshots (board, seq, payload, crc, objects) \
         VALUES (?1, ?2, ?3, ?4, ?5) \
         ON CONFLICT (board) DO UPDATE SET seq = excluded.seq, \
         payload = excluded.payload, crc = excluded.crc, objects = excluded.objects",
        params![
            board.as_str(),
            seq,
            snap.payload,
            i64::from(snap.crc),
            i64::try_from(snap.objects).unwrap_or(i64::MAX)
        ],
    )
    .map_err(sql_err)?;
    tx.execute(
        "DELETE FROM log WHERE board = ?1 AND seq <= ?2",
        params![board.as_str(), seq - KEPT_BEHIND as i64],
    )
    .map_err(sql_err)?;
    tx.execute(
        "INSERT INTO boards (id, created_at, updated_at, seq) VALUES (?1, ?2, ?2, ?3) \
         ON CONFLICT (id) DO UPDATE SET seq = max(boards.seq, excluded.seq), \
         updated_at = excluded.updated_at",
        params![board.as_str(), now, seq],
    )
    .map_err(sql_err)?;
    tx.commit().map_err(sql_err)
}
