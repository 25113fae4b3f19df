//! The SQLite log's stage (schema version 3, STORE-22).
//!
//! The log proper is clustered by (board, seq), so a group commit that appended straight into it
//! rewrote about one leaf page (and, on a split, its siblings) per board in the batch: at 1,000
//! boards × 10 clients and 10,000 durable updates/s that was ~12 KB written per 213-byte record,
//! twice over (the WAL, then the checkpoint). Instead, a commit appends a board's records to
//! `log_stage`, a table in insertion order with no index, whose last pages are all a commit
//! dirties however many boards it holds. A board's staged rows are copied into the log in one go
//! once it has [`BOARD_FOLD_ROWS`] of them (about a page), so the log's pages are written a page
//! at a time; a board whose batch alone reaches that goes straight into the log.
//!
//! The stage is trimmed from its old end: when more than [`TRIM_AT`] rows have been appended
//! since the last trim, the rows older than the newest [`TRIM_KEEP`] are copied into the log if
//! they still have to be (a board that writes rarely) and deleted as one contiguous range.
//! Copied rows may linger in the stage until then, so a reader takes from the stage only the rows
//! after the last one the log holds for the board (and after its snapshot).
//!
//! This module plans a commit's copies and trim from the in-memory index of rows not yet copied
//! (the index is changed only once the commit's transaction has committed), and holds the SQL
//! that reaches both tables: a commit's rows, copies and trim, folding the whole stage, and
//! deleting a board's rows. The stage has no (board, seq) key to refuse a repeated seq;
//! `batch_ranges` refuses any batch whose seqs are not consecutive per board, and the first must
//! follow the board's stored seq.

use super::sqlite::sql_err;
use super::{EncodedRecord, StoreError, seq_to_db};
use protocol::{BoardId, Seq};
use rusqlite::{Connection, TransactionBehavior, params};
use std::collections::HashMap;

/// A board's staged rows are copied into the log once it has this many (~8 KiB of moves).
pub const BOARD_FOLD_ROWS: usize = 32;
/// Rows a trim leaves in the stage (the newest): about 3 s of 10,000 updates/s, so that a board
/// at 10 updates/s gathers its rows before a trim copies them. A board's load scans the stage
/// (no index): ~35,000 rows take a few milliseconds.
pub const TRIM_KEEP: i64 = 32_768;
/// The stage's rows above the last trim point that trigger the next trim: trims come every
/// 2,048 rows, each deleting a short contiguous run, rather than rarely and long.
pub const TRIM_AT: i64 = TRIM_KEEP + 2_048;

/// The stage as the committed database holds it.
#[derive(Debug, Default)]
pub struct Stage {
    /// Per board, its staged rows not yet copied into the log: (rowid, seq), oldest first.
    unfolded: HashMap<BoardId, Vec<(i64, Seq)>>,
    /// Every stage row with a rowid at or below this has been deleted.
    trimmed: i64,
}

/// What one commit does with the stage, decided before it runs and applied after it committed.
#[derive(Debug, Default)]
pub struct Plan {
    /// Rows of the batch to append to the stage (indexes into the batch).
    pub stage_rows: Vec<usize>,
    /// Rows of the batch to insert straight into the log (indexes into the batch).
    pub log_rows: Vec<usize>,
    /// Staged rows to copy into the log, by rowid, each board's in seq order.
    pub copy: Vec<i64>,
    /// Delete stage rows with a rowid at or below this (a trim).
    pub trim_to: Option<i64>,
    /// The index after the commit, for the boards it changes (an empty list: none left).
    after: Vec<(BoardId, Vec<(i64, Seq)>)>,
}

impl Stage {
    /// Plans a batch: `rows` are its (board, seq) in order. Boards that reach
    /// [`BOARD_FOLD_ROWS`] with it have their staged rows copied and the batch's rows written
    /// straight into the log; the others' rows are staged. The rowids the staged rows will get
    /// are not known yet: [`Stage::staged`] supplies them before the trim is planned.
    pub fn plan(&self, rows: &[(&BoardId, Seq)]) -> Plan {
        let mut per_board: HashMap<&BoardId, Vec<usize>> = HashMap::new();
        for (i, (b, _)) in rows.iter().enumerate() {
            per_board.entry(b).or_default().push(i);
        }
        let mut plan = Plan::default();
        for (board, idx) in per_board {
            let staged = self.unfolded.get(board).map_or(&[][..], Vec::as_slice);
            if staged.len() + idx.len() >= BOARD_FOLD_ROWS {
                plan.copy.extend(staged.iter().map(|(rowid, _)| *rowid));
                plan.log_rows.extend(idx);
                if !staged.is_empty() {
                    plan.after.push((board.clone(), Vec::new()));
                }
            } else {
                plan.stage_rows.extend(idx);
            }
        }
        // The batch's order within each table (the log's key orders it anyway).
        plan.stage_rows.sort_unstable();
        plan.log_rows.sort_unstable();
        plan
    }

    /// Completes `plan` once its staged rows are in: `rowids[k]` is the rowid of
    /// `plan.stage_rows[k]`. Adds them to their boards' lists and, when the stage has grown by
    /// [`TRIM_AT`] since the last trim, plans the next trim (copying what it would drop).
    pub fn staged(&self, plan: &mut Plan, rows: &[(&BoardId, Seq)], rowids: &[i64]) {
        let mut lists: HashMap<BoardId, Vec<(i64, Seq)>> = plan.after.drain(..).collect();
        for (&i, &rowid) in plan.stage_rows.iter().zip(rowids) {
            let (board, seq) = rows[i];
            lists
                .entry(board.clone())
                .or_insert_with(|| self.unfolded.get(board).cloned().unwrap_or_default())
                .push((rowid, seq));
        }
        let last = rowids.iter().copied().max().unwrap_or(self.trimmed);
        if last - self.trimmed >= TRIM_AT {
            let to = last - TRIM_KEEP;
            for (b, list) in &self.unfolded {
                if !lists.contains_key(b) {
                    lists.insert(b.clone(), list.clone());
                }
            }
            for list in lists.values_mut() {
                let old = list.partition_point(|(rowid, _)| *rowid <= to);
                plan.copy.extend(list.drain(..old).map(|(rowid, _)| rowid));
            }
            plan.trim_to = Some(to);
        }
        plan.after = lists.into_iter().collect();
    }

    /// Applies a committed plan.
    pub fn commit(&mut self, plan: Plan) {
        for (board, list) in plan.after {
            if list.is_empty() {
                self.unfolded.remove(&board);
            } else {
                self.unfolded.insert(board, list);
            }
        }
        if let Some(to) = plan.trim_to {
            self.trimmed = self.trimmed.max(to);
        }
    }

    /// Forgets a board's staged rows that match `drop` (their rows were deleted, or a snapshot
    /// covers them, so they must never be copied).
    pub fn forget(&mut self, board: &BoardId, drop: impl Fn(Seq) -> bool) {
        if let Some(list) = self.unfolded.get_mut(board) {
            list.retain(|(_, seq)| !drop(*seq));
            if list.is_empty() {
                self.unfolded.remove(board);
            }
        }
    }

    /// The stage was emptied up to `last` (every row copied or deleted).
    pub fn emptied(&mut self, last: i64) {
        self.unfolded.clear();
        self.trimmed = self.trimmed.max(last);
    }

    /// Staged rows not yet copied, over all boards.
    #[cfg(test)]
    pub fn pending(&self) -> usize {
        self.unfolded.values().map(Vec::len).sum()
    }
}

// ---- SQL over the log and its stage ----

/// Copies every staged row the log still needs into it and empties the stage, in one
/// transaction (STORE-22): rows already copied are skipped, and rows a snapshot covers are not
/// brought back. Run at open and before the test helpers that read or write the log directly.
pub(super) fn fold_all(conn: &mut Connection, stage: &mut Stage) -> Result<(), StoreError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_err)?;
    tx.execute(
        "INSERT OR IGNORE INTO log (board, seq, payload, crc) \
         SELECT st.board, st.seq, st.payload, st.crc FROM log_stage st \
         WHERE st.seq > coalesce((SELECT s.seq FROM snapshots s WHERE s.board = st.board), 0) \
         ORDER BY st.board, st.seq",
        [],
    )
    .map_err(sql_err)?;
    tx.execute("DELETE FROM log_stage", []).map_err(sql_err)?;
    let last: i64 = tx
        .query_row(
            "SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'log_stage'",
            [],
            |r| r.get(0),
        )
        .map_err(sql_err)?;
    tx.commit().map_err(sql_err)?;
    stage.emptied(last);
    Ok(())
}

/// Writes a batch's records inside the commit's transaction `tx`: each into the stage or straight
/// into the log, with the copies and the trim the plan adds. Returns the plan, for
/// [`Stage::commit`] once `tx` has committed.
pub(super) fn write_rows(
    tx: &rusqlite::Transaction<'_>,
    stage: &Stage,
    rows: &[EncodedRecord],
) -> Result<Plan, StoreError> {
    let keys: Vec<(&BoardId, Seq)> = rows.iter().map(|r| (&r.board, r.seq)).collect();
    let mut plan = stage.plan(&keys);
    let mut rowids = Vec::with_capacity(plan.stage_rows.len());
    {
        let mut ins = tx
            .prepare_cached(
                "INSERT INTO log_stage (board, seq, payload, crc) VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(sql_err)?;
        for &i in &plan.stage_rows {
            insert_record(&mut ins, &rows[i])?;
            rowids.push(tx.last_insert_rowid());
        }
    }
    stage.staged(&mut plan, &keys, &rowids);
    {
        let mut copy = tx
            .prepare_cached(
                "INSERT INTO log (board, seq, payload, crc) \
                 SELECT board, seq, payload, crc FROM log_stage WHERE id = ?1",
            )
            .map_err(sql_err)?;
        for rowid in &plan.copy {
            copy.execute([rowid]).map_err(sql_err)?;
        }
        let mut ins = tx
            .prepare_cached("INSERT INTO log (board, seq, payload, crc) VALUES (?1, ?2, ?3, ?4)")
            .map_err(sql_err)?;
        for &i in &plan.log_rows {
            insert_record(&mut ins, &rows[i])?;
        }
    }
    if let Some(to) = plan.trim_to {
        tx.prepare_cached("DELETE FROM log_stage WHERE id <= ?1")
            .and_then(|mut s| s.execute([to]))
            .map_err(sql_err)?;
    }
    Ok(plan)
}

/// Runs an `INSERT … (board, seq, payload, crc) VALUES (?1, ?2, ?3, ?4)` for one record.
fn insert_record(
    stmt: &mut rusqlite::CachedStatement<'_>,
    r: &EncodedRecord,
) -> Result<(), StoreError> {
    stmt.execute(params![
        r.board.as_str(),
        seq_to_db(r.seq)?,
        &r.payload[..],
        i64::from(r.crc)
    ])
    .map(|_| ())
    .map_err(sql_err)
}

/// Deletes a board's log rows after `after` (all of them for 0: seqs start at 1) from the log
/// and from the stage; returns how many log rows went.
pub(super) fn delete_log_rows(
    tx: &rusqlite::Transaction<'_>,
    board: &BoardId,
    after: i64,
) -> Result<usize, StoreError> {
    let delete = |sql: &str| {
        tx.prepare_cached(sql)
            .and_then(|mut s| s.execute(params![board.as_str(), after]))
            .map_err(sql_err)
    };
    let removed = delete("DELETE FROM log WHERE board = ?1 AND seq > ?2")?;
    delete("DELETE FROM log_stage WHERE board = ?1 AND seq > ?2")?;
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> BoardId {
        BoardId::try_from(s).unwrap()
    }

    /// Runs one batch through plan, staged and commit, numbering staged rows from `next`.
    fn batch(stage: &mut Stage, rows: &[(&BoardId, Seq)], next: &mut i64) -> Plan {
        let mut plan = stage.plan(rows);
        let rowids: Vec<i64> = plan
            .stage_rows
            .iter()
            .map(|_| {
                *next += 1;
                *next
            })
            .collect();
        stage.staged(&mut plan, rows, &rowids);
        let copy = plan.copy.clone();
        let log_rows = plan.log_rows.clone();
        let trim = plan.trim_to;
        stage.commit(plan);
        Plan {
            copy,
            log_rows,
            trim_to: trim,
            ..Plan::default()
        }
    }

    // STORE-22 (planning): a board is staged until it has a page's worth, then copied whole.
    #[test]
    fn boards_fold_at_a_page_worth() {
        let (a, c) = (b("a"), b("c"));
        let mut st = Stage::default();
        let mut next = 0;
        for seq in 1..BOARD_FOLD_ROWS as u64 {
            let p = batch(&mut st, &[(&a, seq), (&c, seq)], &mut next);
            assert!(p.copy.is_empty() && p.log_rows.is_empty());
        }
        assert_eq!(st.pending(), 2 * (BOARD_FOLD_ROWS - 1));
        // The 16th row of a: its 15 staged rows are copied, the new one goes to the log.
        let p = batch(&mut st, &[(&a, BOARD_FOLD_ROWS as u64)], &mut next);
        assert_eq!(p.copy.len(), BOARD_FOLD_ROWS - 1);
        assert_eq!(p.log_rows, vec![0]);
        assert_eq!(st.pending(), BOARD_FOLD_ROWS - 1);
        // A batch that alone holds a page's worth skips the stage.
        let rows: Vec<(&BoardId, Seq)> = (100..100 + BOARD_FOLD_ROWS as u64)
            .map(|s| (&a, s))
            .collect();
        let p = batch(&mut st, &rows, &mut next);
        assert!(p.copy.is_empty());
        assert_eq!(p.log_rows.len(), BOARD_FOLD_ROWS);
    }

    // STORE-22 (planning): a trim copies every row it drops that was not copied yet, exactly
    // once; rows it keeps stay staged.
    #[test]
    fn trim_copies_what_it_drops() {
        let boards: Vec<BoardId> = (0..4000).map(|i| b(&format!("b{i}"))).collect();
        let rounds = (TRIM_AT as usize + 8_000) / boards.len() + 1;
        assert!(
            rounds < BOARD_FOLD_ROWS,
            "no board may reach a page's worth here"
        );
        let mut st = Stage::default();
        let mut next = 0;
        let mut copied: Vec<i64> = Vec::new();
        let mut last_trim = None;
        for seq in 1..=rounds as u64 {
            for chunk in boards.chunks(500) {
                let rows: Vec<(&BoardId, Seq)> = chunk.iter().map(|x| (x, seq)).collect();
                let p = batch(&mut st, &rows, &mut next);
                copied.extend(&p.copy);
                if let Some(to) = p.trim_to {
                    assert_eq!(to, next - TRIM_KEEP);
                    last_trim = Some(to);
                }
            }
        }
        let to = last_trim.expect("the stage outgrew TRIM_AT: it must have been trimmed");
        copied.sort_unstable();
        assert_eq!(copied, (1..=to).collect::<Vec<_>>());
        assert_eq!(st.trimmed, to);
        assert_eq!(st.pending() as i64, next - to);
    }
}
