//! The SQLite log's stage (schema version 3, STORE-22) and runs (schema version 4, STORE-25;
//! in the stage too since version 5, STORE-26).
//!
//! The log proper is clustered by (board, seq), so a group commit that appended straight into it
//! rewrote about one leaf page (and, on a split, its siblings) per board in the batch: at 1,000
//! boards × 10 clients and 10,000 durable updates/s that was ~12 KB written per 213-byte record,
//! twice over (the WAL, then the checkpoint). Instead, a commit appends each board's records of
//! the batch to `log_stage` as one row (a run), a table in insertion order with no index, whose
//! last pages are all a commit dirties however many boards it holds. A stage row's id is the
//! position of its last record in the stage, so ids count records and a trim keeps a number of
//! records whatever the runs' lengths. A board's staged records are copied into the log in one
//! go once it has [`BOARD_FOLD_ROWS`] of them (about a page), so the log's pages are written a page
//! at a time; a board whose batch alone reaches that goes straight into the log. Such a move
//! writes ONE log row, a run of the board's consecutive records, from the copies kept in memory:
//! one insert instead of a lookup in the stage and an insert per record.
//!
//! The stage is trimmed from its old end: when more than [`TRIM_AT`] records have been staged
//! since the last trim, the rows older than the newest [`TRIM_KEEP`] records are copied into the log if
//! they still have to be (a board that writes rarely) and deleted as one contiguous range.
//! Copied rows may linger in the stage until then, so a reader takes from the stage only the rows
//! after the last one the log holds for the board (and after its snapshot).
//!
//! This module plans a commit's runs and trim from the in-memory index of rows not yet copied
//! (the index is changed only once the commit's transaction has committed), and holds the SQL
//! that reaches both tables: a commit's rows, runs and trim, folding the whole stage, and
//! deleting a board's rows (rewriting a run that a cut falls inside). A run's row format is in
//! `sqlite_run.rs`. The stage has no (board, seq) key to refuse a repeated seq;
//! `batch_ranges` refuses any batch whose seqs are not consecutive per board, and the first must
//! follow the board's stored seq.

use super::sqlite::sql_err;
use super::sqlite_run::{Rec, encode_run, split_row};
use super::{EncodedRecord, StoreError, seq_to_db};
use bytes::Bytes;
use protocol::{BoardId, Seq};
use rusqlite::{Connection, TransactionBehavior, params};
use std::collections::HashMap;

/// A board's staged rows are copied into the log once it has this many (~8 KiB of moves).
pub const BOARD_FOLD_ROWS: usize = 32;
/// ... or once their payloads reach this many bytes, whatever their number. The staged records
/// are also held in memory until they move (STORE-25), so this bounds that memory per board; a
/// record this large goes straight into the log.
pub const BOARD_FOLD_BYTES: usize = 16 * 1024;
/// Most records one log row holds (STORE-25): a longer run is split, so that one row stays a
/// few dozen KiB and a truncation inside a run rewrites at most this many.
pub const RUN_MAX_RECORDS: usize = 256;
/// Records a trim leaves in the stage (the newest rows that hold this many): about 3 s of
/// 10,000 updates/s, so that a board at 10 updates/s gathers its records before a trim copies
/// them. A board's load scans the stage (no index): ~35,000 records take a few milliseconds.
pub const TRIM_KEEP: i64 = 32_768;
/// The stage's records above the last trim point that trigger the next trim: trims come every
/// 2,048 records, each deleting a short contiguous range of rows, rather than rarely and long.
pub const TRIM_AT: i64 = TRIM_KEEP + 2_048;

/// A staged record the log does not hold yet: the id of its stage row, and the record itself,
/// kept in memory so that a fold writes it into the log without reading the stage back.
#[derive(Debug)]
struct Staged {
    rowid: i64,
    rec: Rec,
}

/// Consecutive records of one board, written into the log as one row (STORE-25).
#[derive(Debug)]
pub struct Run {
    board: BoardId,
    records: Vec<Rec>,
}

/// One stage row a commit writes: a board's records of the batch (indexes into the batch, in
/// seq order), as one run (schema version 5), under the id `id`.
#[derive(Debug)]
pub struct StageRun {
    pub id: i64,
    pub rows: Vec<usize>,
}

/// The stage as the committed database holds it.
///
/// Stage row ids count records, not rows: a row's id is the position of its last record in the
/// stage (the row before it ends at `id - n`), so trims keep and drop record counts whatever the
/// runs' lengths.
#[derive(Debug, Default)]
pub struct Stage {
    /// Per board, its staged records not yet copied into the log, oldest first.
    unfolded: HashMap<BoardId, Vec<Staged>>,
    /// Every stage row with an id at or below this has been deleted.
    trimmed: i64,
    /// The id of the newest stage row (or `trimmed` when the stage is empty).
    last: i64,
}

/// What one commit does with the stage, decided before it runs and applied after it committed.
#[derive(Debug, Default)]
pub struct Plan {
    /// Rows to append to the stage: one per board that stages, in the batch's order.
    pub stage_runs: Vec<StageRun>,
    /// Runs to write into the log: boards that fold (their staged rows, then the batch's) and
    /// what a trim drops that the log does not hold yet.
    pub runs: Vec<Run>,
    /// Delete stage rows with an id at or below this (a trim).
    pub trim_to: Option<i64>,
    /// Boards whose staged rows all went into the log with this commit.
    folded: Vec<BoardId>,
    /// Records this commit stages, by board.
    appended: Vec<(BoardId, Staged)>,
}

/// Splits one board's records (in seq order) into runs of consecutive seqs of at most
/// [`RUN_MAX_RECORDS`].
fn runs_of(board: &BoardId, records: impl IntoIterator<Item = Rec>, out: &mut Vec<Run>) {
    let mut current: Vec<Rec> = Vec::new();
    for rec in records {
        let follows = current.last().is_some_and(|(seq, _, _)| *seq + 1 == rec.0);
        if !current.is_empty() && (!follows || current.len() >= RUN_MAX_RECORDS) {
            out.push(Run {
                board: board.clone(),
                records: std::mem::take(&mut current),
            });
        }
        current.push(rec);
    }
    if !current.is_empty() {
        out.push(Run {
            board: board.clone(),
            records: current,
        });
    }
}

impl Stage {
    /// Plans a batch (its records in order). Boards that reach [`BOARD_FOLD_ROWS`] with it have
    /// their staged rows and the batch's written into the log as runs; each other board's
    /// records are staged as one row. When the stage has grown by [`TRIM_AT`] records since the
    /// last trim, plans the next trim too (writing what it would drop into the log first); a
    /// trim never reaches the rows this commit stages.
    pub fn plan(&self, rows: &[EncodedRecord]) -> Plan {
        let mut per_board: HashMap<&BoardId, Vec<usize>> = HashMap::new();
        for (i, r) in rows.iter().enumerate() {
            per_board.entry(&r.board).or_default().push(i);
        }
        let mut plan = Plan::default();
        for (board, idx) in per_board {
            let staged = self.unfolded.get(board).map_or(&[][..], Vec::as_slice);
            let bytes: usize = staged.iter().map(|s| s.rec.1.len()).sum::<usize>()
                + idx.iter().map(|&i| rows[i].payload.len()).sum::<usize>();
            if staged.len() + idx.len() >= BOARD_FOLD_ROWS || bytes >= BOARD_FOLD_BYTES {
                let old = staged.iter().map(|s| s.rec.clone());
                let new = idx.iter().map(|&i| {
                    let r = &rows[i];
                    (r.seq, r.payload.clone(), r.crc)
                });
                runs_of(board, old.chain(new), &mut plan.runs);
                if !staged.is_empty() {
                    plan.folded.push(board.clone());
                }
            } else {
                plan.stage_runs.push(StageRun { id: 0, rows: idx });
            }
        }
        // The batch's order in the stage; ids count records.
        plan.stage_runs.sort_unstable_by_key(|r| r.rows[0]);
        let mut last = self.last;
        for run in &mut plan.stage_runs {
            last += run.rows.len() as i64;
            run.id = last;
            for &i in &run.rows {
                let r = &rows[i];
                let staged = Staged {
                    rowid: run.id,
                    rec: (r.seq, r.payload.clone(), r.crc),
                };
                plan.appended.push((r.board.clone(), staged));
            }
        }
        let Some(first_new) = plan.stage_runs.first().map(|r| r.id) else {
            return plan;
        };
        if last - self.trimmed < TRIM_AT {
            return plan;
        }
        let to = (last - TRIM_KEEP).min(first_new - 1);
        let folded: std::collections::HashSet<&BoardId> = plan.folded.iter().collect();
        for (board, list) in &self.unfolded {
            if folded.contains(board) {
                continue;
            }
            let old = list.partition_point(|s| s.rowid <= to);
            let dropped = list[..old].iter().map(|s| s.rec.clone());
            runs_of(board, dropped, &mut plan.runs);
        }
        plan.trim_to = Some(to);
        plan
    }

    /// Applies a committed plan.
    pub fn commit(&mut self, plan: Plan) {
        for board in &plan.folded {
            self.unfolded.remove(board);
        }
        for (board, staged) in plan.appended {
            self.last = self.last.max(staged.rowid);
            self.unfolded.entry(board).or_default().push(staged);
        }
        if let Some(to) = plan.trim_to {
            self.unfolded.retain(|_, list| {
                let old = list.partition_point(|s| s.rowid <= to);
                list.drain(..old);
                !list.is_empty()
            });
            self.trimmed = self.trimmed.max(to);
        }
    }

    /// Forgets a board's staged rows that match `drop` (their rows were deleted, or a snapshot
    /// covers them, so they must never be copied).
    pub fn forget(&mut self, board: &BoardId, drop: impl Fn(Seq) -> bool) {
        if let Some(list) = self.unfolded.get_mut(board) {
            list.retain(|s| !drop(s.rec.0));
            if list.is_empty() {
                self.unfolded.remove(board);
            }
        }
    }

    /// The stage was emptied up to `last` (every row copied or deleted).
    pub fn emptied(&mut self, last: i64) {
        self.unfolded.clear();
        self.trimmed = self.trimmed.max(last);
        self.last = self.last.max(self.trimmed);
    }

    /// Staged rows not yet copied, over all boards.
    #[cfg(test)]
    pub fn pending(&self) -> usize {
        self.unfolded.values().map(Vec::len).sum()
    }
}

/// Writes runs into the log, one row each.
fn insert_runs(tx: &rusqlite::Transaction<'_>, runs: &[Run]) -> Result<(), StoreError> {
    let mut buf = Vec::new();
    for run in runs {
        insert_run(tx, Dest::Log, &run.board, &run.records, &mut buf)?;
    }
    Ok(())
}

/// Where [`insert_run`] writes a row: the log, or the stage under the given id.
#[derive(Debug, Clone, Copy)]
enum Dest {
    Log,
    Stage(i64),
}

/// Writes one row holding a board's consecutive `records`, framed as a run (`buf` is scratch).
fn insert_run(
    tx: &rusqlite::Transaction<'_>,
    dest: Dest,
    board: &BoardId,
    records: &[Rec],
    buf: &mut Vec<u8>,
) -> Result<(), StoreError> {
    let (last, crc, n) = encode_run(records, buf);
    let (seq, crc, n) = (
        seq_to_db(last)?,
        i64::from(crc),
        i64::try_from(n).unwrap_or(i64::MAX),
    );
    let payload = &buf[..];
    match dest {
        Dest::Log => tx
            .prepare_cached(
                "INSERT INTO log (board, seq, payload, crc, n) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| s.execute(params![board.as_str(), seq, payload, crc, n])),
        Dest::Stage(id) => tx
            .prepare_cached(
                "INSERT INTO log_stage (board, seq, payload, crc, n, id) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .and_then(|mut s| s.execute(params![board.as_str(), seq, payload, crc, n, id])),
    }
    .map_err(sql_err)?;
    Ok(())
}

// ---- SQL over the log and its stage ----

/// Copies every staged row the log still needs into it and empties the stage, in one
/// transaction (STORE-22): rows the log already holds (alone or in a run) are skipped, and rows
/// a snapshot covers are not brought back. Run at open and before the test helpers that read or
/// write the log directly.
pub(super) fn fold_all(conn: &mut Connection, stage: &mut Stage) -> Result<(), StoreError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_err)?;
    tx.execute(
        "INSERT OR IGNORE INTO log (board, seq, payload, crc, n) \
         SELECT st.board, st.seq, st.payload, st.crc, st.n FROM log_stage st \
         WHERE st.seq > coalesce((SELECT s.seq FROM snapshots s WHERE s.board = st.board), 0) \
         AND st.seq > coalesce((SELECT max(l.seq) FROM log l WHERE l.board = st.board), 0) \
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

/// Writes a batch's records inside the commit's transaction `tx`: each board's into the stage as
/// one row, or with its staged rows into the log as a run, with the runs a trim adds. Returns the
/// plan, for [`Stage::commit`] once `tx` has committed.
pub(super) fn write_rows(
    tx: &rusqlite::Transaction<'_>,
    stage: &Stage,
    rows: &[EncodedRecord],
) -> Result<Plan, StoreError> {
    let plan = stage.plan(rows);
    let mut recs = Vec::new();
    let mut buf = Vec::new();
    for run in &plan.stage_runs {
        recs.clear();
        recs.extend(run.rows.iter().map(|&i| {
            let r = &rows[i];
            (r.seq, r.payload.clone(), r.crc)
        }));
        insert_run(
            tx,
            Dest::Stage(run.id),
            &rows[run.rows[0]].board,
            &recs,
            &mut buf,
        )?;
    }
    insert_runs(tx, &plan.runs)?;
    if let Some(to) = plan.trim_to {
        tx.prepare_cached("DELETE FROM log_stage WHERE id <= ?1")
            .and_then(|mut s| s.execute([to]))
            .map_err(sql_err)?;
    }
    Ok(plan)
}

/// A log row as stored: its (last) seq, payload, checksum and record count.
pub(super) type StoredRow = (Seq, Vec<u8>, i64, i64);

/// The two tables that hold a board's log rows.
#[derive(Debug, Clone, Copy)]
pub(super) enum Table {
    Log,
    Stage,
}

/// A board's rows (as stored) in `table` with a (last) seq above `after`, in seq order.
pub(super) fn rows_after(
    tx: &rusqlite::Transaction<'_>,
    table: Table,
    board: &BoardId,
    after: i64,
) -> Result<Vec<StoredRow>, StoreError> {
    let sql = match table {
        Table::Log => {
            "SELECT seq, payload, crc, n FROM log WHERE board = ?1 AND seq > ?2 ORDER BY seq"
        }
        Table::Stage => {
            "SELECT seq, payload, crc, n FROM log_stage WHERE board = ?1 AND seq > ?2 ORDER BY seq"
        }
    };
    stored_rows(tx, sql, board, after)
}

/// The rows (as stored: seq, payload, crc, n) that `sql` selects, over the board as ?1 and a seq
/// as ?2.
fn stored_rows(
    tx: &rusqlite::Transaction<'_>,
    sql: &str,
    board: &BoardId,
    after: i64,
) -> Result<Vec<StoredRow>, StoreError> {
    let mut stmt = tx.prepare_cached(sql).map_err(sql_err)?;
    let rows = stmt
        .query_map(params![board.as_str(), after], |r| {
            Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .map_err(sql_err)?;
    let mut out = Vec::new();
    for row in rows {
        let (seq, payload, crc, n) = row.map_err(sql_err)?;
        out.push((super::seq_from_db(seq)?, payload, crc, n));
    }
    Ok(out)
}

/// Deletes a board's log records after `after` (all of them for 0: seqs start at 1) from the
/// log and from the stage; returns how many records the log lost. A run that holds `after` is
/// rewritten with its records up to it (those that still pass their checksum).
pub(super) fn delete_log_rows(
    tx: &rusqlite::Transaction<'_>,
    board: &BoardId,
    after: i64,
) -> Result<usize, StoreError> {
    // Records after `after` in each row: a run holds max(n, 1) ending at its seq (a count that
    // cannot be, from damage, counts what lies between the cut and the row's seq).
    let removed: i64 = tx
        .prepare_cached(
            "SELECT coalesce(sum(min(max(n, 1), seq - ?2)), 0) FROM log \
             WHERE board = ?1 AND seq > ?2",
        )
        .and_then(|mut s| s.query_row(params![board.as_str(), after], |r| r.get(0)))
        .map_err(sql_err)?;
    // The one run that holds `after` keeps its records up to it (none for a cut at 0), in the
    // log and in the stage alike; a stage row keeps its id (the stage's index holds it).
    let mut kept: Vec<Rec> = Vec::new();
    let mut kept_staged: Vec<(i64, Vec<Rec>)> = Vec::new();
    if after > 0 {
        let after_seq = super::seq_from_db(after)?;
        let straddling = stored_rows(
            tx,
            "SELECT seq, payload, crc, n FROM log \
             WHERE board = ?1 AND seq > ?2 AND seq - max(n, 1) < ?2",
            board,
            after,
        )?;
        for row in straddling {
            records_up_to(row, after_seq, &mut kept);
        }
        let mut stmt = tx
            .prepare_cached(
                "SELECT id, seq, payload, crc, n FROM log_stage \
                 WHERE board = ?1 AND seq > ?2 AND seq - max(n, 1) < ?2",
            )
            .map_err(sql_err)?;
        let rows = stmt
            .query_map(params![board.as_str(), after], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                ))
            })
            .map_err(sql_err)?;
        for row in rows {
            let (id, last, payload, crc, n) = row.map_err(sql_err)?;
            let mut records = Vec::new();
            records_up_to(
                (super::seq_from_db(last)?, payload, crc, n),
                after_seq,
                &mut records,
            );
            kept_staged.push((id, records));
        }
    }
    let delete = |sql: &str| {
        tx.prepare_cached(sql)
            .and_then(|mut s| s.execute(params![board.as_str(), after]))
            .map_err(sql_err)
    };
    delete("DELETE FROM log WHERE board = ?1 AND seq > ?2")?;
    delete("DELETE FROM log_stage WHERE board = ?1 AND seq > ?2")?;
    let mut runs = Vec::new();
    runs_of(board, kept, &mut runs);
    insert_runs(tx, &runs)?;
    let mut buf = Vec::new();
    for (id, records) in kept_staged.iter().filter(|(_, r)| !r.is_empty()) {
        insert_run(tx, Dest::Stage(*id), board, records, &mut buf)?;
    }
    Ok(usize::try_from(removed).unwrap_or(0))
}

/// The records of a stored row up to seq `after`, appended to `out`: those that pass their own
/// checksum, up to the first that does not.
fn records_up_to(row: StoredRow, after: Seq, out: &mut Vec<Rec>) {
    let (last, payload, crc, n) = row;
    let mut records = Vec::new();
    split_row(last, payload, crc, n, 0, &mut records);
    let good = records
        .into_iter()
        .map(|r| (super::checksum(&r.payload), r))
        .take_while(|(crc, r)| r.seq <= after && i64::from(*crc) == r.crc);
    out.extend(good.map(|(crc, r)| (r.seq, Bytes::from(r.payload), crc)));
}

/// Rewrites a board's runs as one row per record (the raw-row test helpers work on records).
pub(super) fn explode_runs(conn: &mut Connection, board: &BoardId) -> Result<(), StoreError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql_err)?;
    let mut records = Vec::new();
    for (last, payload, crc, n) in rows_after(&tx, Table::Log, board, 0)? {
        if n != 1 {
            split_row(last, payload, crc, n, 0, &mut records);
        }
    }
    tx.execute(
        "DELETE FROM log WHERE board = ?1 AND n <> 1",
        [board.as_str()],
    )
    .map_err(sql_err)?;
    for r in records {
        tx.execute(
            "INSERT OR REPLACE INTO log (board, seq, payload, crc) VALUES (?1, ?2, ?3, ?4)",
            params![board.as_str(), seq_to_db(r.seq)?, r.payload, r.crc],
        )
        .map_err(sql_err)?;
    }
    tx.commit().map_err(sql_err)
}

#[cfg(test)]
mod tests;
