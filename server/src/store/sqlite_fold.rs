//! Folding the commit journal (`journal.rs`, STORE-27) into SQLite: at open (recovery), on a
//! thread of its own once enough waits (`sqlite-fold`), and before every call that reads or
//! changes what the database holds, so that such a call always finds every acknowledged record
//! in the database.
//!
//! Lock order: the connection's lock (`Db`), then the journal's. An append takes only the
//! journal's, so a fold's SQLite work never holds a commit up.

use super::journal::{self, Journal};
use super::sqlite::{Db, sql_err};
use super::sqlite_tx::{append_rows, stored_seq};
use super::{EncodedRecord, StoreError, seq_from_db};
use bytes::Bytes;
use protocol::{BoardId, Seq};
use rusqlite::Connection;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::Duration;

/// How long the fold thread sleeps between looks at the journal (a fold is also due by age).
const LOOK_EVERY: Duration = Duration::from_millis(100);
/// After a failed fold, the thread waits this long before the next attempt.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// The journal, shared by the store's clones, its connection (`Db`) and the fold thread.
pub(crate) struct Journaled {
    journal: Mutex<Journal>,
    /// Woken when an append makes a fold due.
    wake: Condvar,
    dir: PathBuf,
}

impl Journaled {
    pub(super) fn lock(&self) -> MutexGuard<'_, Journal> {
        self.journal.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends one batch to the journal (durable on `Ok`). A journal whose last append failed is
    /// folded first, which replaces its file (`db`: the connection, taken only then).
    pub(super) fn append(
        &self,
        db: &Mutex<Db>,
        rows: Vec<EncodedRecord>,
    ) -> Result<(), StoreError> {
        {
            let mut j = self.lock();
            if !j.broken() {
                let r = j.append(rows);
                if j.fold_due() {
                    self.wake.notify_one();
                }
                return r;
            }
        }
        fold(&mut db.lock().unwrap_or_else(|e| e.into_inner()))?;
        self.lock().append(rows)
    }
}

/// Recovery at open: every journal file's records go into the database (records it already holds
/// are skipped) and the files are deleted. Returns the number for the next journal file.
pub(super) fn recover(db: &mut Db, dir: &Path) -> Result<u64, StoreError> {
    let files = journal::list_files(dir)?;
    let mut next = 1;
    let mut paths = Vec::new();
    for (n, path) in files {
        let bytes = std::fs::read(&path).map_err(|e| {
            StoreError::Unavailable(format!("journal: cannot read {}: {e}", path.display()))
        })?;
        let read = journal::read_file(Bytes::from(bytes));
        if let Some(tail) = &read.tail {
            // An append that never returned Ok (the process stopped inside it).
            tracing::warn!(file = %path.display(), frames = read.frames, tail = %tail,
                "journal tail dropped at recovery");
        }
        let records = read.records.len();
        write_records(db, &read.records)?;
        tracing::info!(file = %path.display(), frames = read.frames, records, "journal replayed");
        next = n + 1;
        paths.push(path);
    }
    journal::delete_files(dir, &paths);
    Ok(next)
}

/// A new journal, file `next` under `dir`, knowing every board's stored seq.
pub(super) fn start(db: &Db, dir: &Path, next: u64) -> Result<Arc<Journaled>, StoreError> {
    let seqs = stored_seqs(&db.conn)?;
    let journal = Journal::create(dir, next, seqs)?;
    Ok(Arc::new(Journaled {
        journal: Mutex::new(journal),
        wake: Condvar::new(),
        dir: dir.to_path_buf(),
    }))
}

/// Every board's stored seq.
fn stored_seqs(conn: &Connection) -> Result<HashMap<BoardId, Seq>, StoreError> {
    let mut stmt = conn
        .prepare("SELECT id, seq FROM boards")
        .map_err(sql_err)?;
    let rows = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
        .map_err(sql_err)?;
    let mut out = HashMap::new();
    for row in rows {
        let (id, seq) = row.map_err(sql_err)?;
        out.insert(super::board_from_db(id)?, seq_from_db(seq)?);
    }
    Ok(out)
}

/// Folds every record the journal holds into the database (one transaction per run of batches
/// whose seqs follow on), then deletes the journal files that held them. The caller holds the
/// connection's lock. A store without a journal has nothing to fold.
pub(super) fn fold(db: &mut Db) -> Result<(), StoreError> {
    let Some(jd) = db.journal.clone() else {
        return Ok(());
    };
    let Some(taken) = jd.lock().take()? else {
        return Ok(());
    };
    let started = std::time::Instant::now();
    match write_records(db, &taken.records) {
        Ok(()) => {
            journal::delete_files(&jd.dir, &taken.files);
            crate::metrics::Metrics
                .journal_fold(started.elapsed().as_secs_f64(), taken.records.len());
            Ok(())
        }
        Err(e) => {
            jd.lock().give_back(taken);
            Err(e)
        }
    }
}

/// Tells the journal what the database now holds of `board` (after a call that may have changed
/// its seq or removed it). The caller holds the connection's lock.
pub(super) fn sync_seq(db: &Db, board: &BoardId) -> Result<(), StoreError> {
    let Some(jd) = &db.journal else {
        return Ok(());
    };
    let seq = stored_seq(&db.conn, board)?;
    jd.lock().set_seq(board, seq);
    Ok(())
}

/// Writes journaled records into the database: records at or below their board's stored seq are
/// skipped (a file replayed again after a crash between its fold and its deletion, or a
/// snapshot's), the rest go in as appends, one transaction per stretch in which every board's
/// seqs follow on (what a commit accepts).
fn write_records(db: &mut Db, records: &[EncodedRecord]) -> Result<(), StoreError> {
    let mut stored: HashMap<BoardId, Option<Seq>> = HashMap::new();
    // Sized once: grown a push at a time, its reallocations (each a copy into freshly faulted
    // pages) made a fold of ~8,000 records take about 15 % longer (docs/BENCHMARKS.md).
    let mut chunk: Vec<EncodedRecord> = Vec::with_capacity(records.len());
    let mut last: HashMap<BoardId, Seq> = HashMap::new();
    for r in records {
        let have = match stored.get(&r.board) {
            Some(s) => *s,
            None => {
                let s = stored_seq(&db.conn, &r.board)?;
                stored.insert(r.board.clone(), s);
                s
            }
        };
        if have.is_some_and(|s| r.seq <= s) {
            continue;
        }
        if last.get(&r.board).is_some_and(|&l| r.seq != l + 1) {
            write_chunk(db, &mut chunk, &mut stored)?;
            last.clear();
        }
        last.insert(r.board.clone(), r.seq);
        chunk.push(r.clone());
    }
    write_chunk(db, &mut chunk, &mut stored)
}

fn write_chunk(
    db: &mut Db,
    chunk: &mut Vec<EncodedRecord>,
    stored: &mut HashMap<BoardId, Option<Seq>>,
) -> Result<(), StoreError> {
    if chunk.is_empty() {
        return Ok(());
    }
    append_rows(db, chunk)?;
    for r in chunk.drain(..) {
        stored.insert(r.board, Some(r.seq));
    }
    Ok(())
}

/// The fold thread: folds once the journal says a fold is due ([`Journal::fold_due`]).
pub(super) struct Folder {
    stop: Arc<AtomicBool>,
    journal: Arc<Journaled>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Folder {
    pub(super) fn start(db: Weak<Mutex<Db>>, jd: Arc<Journaled>) -> Result<Folder, StoreError> {
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, journal) = (stop.clone(), jd.clone());
        let thread = std::thread::Builder::new()
            .name("sqlite-fold".into())
            .spawn(move || {
                let mut failing = false;
                loop {
                    {
                        let j = journal.lock();
                        if !flag.load(Ordering::Relaxed) && !j.fold_due() {
                            drop(journal.wake.wait_timeout(j, LOOK_EVERY));
                        }
                    }
                    if flag.load(Ordering::Relaxed) {
                        break;
                    }
                    if !journal.lock().fold_due() {
                        continue;
                    }
                    let Some(db) = db.upgrade() else { break };
                    let r = fold(&mut db.lock().unwrap_or_else(|e| e.into_inner()));
                    drop(db);
                    match r {
                        Ok(()) => failing = false,
                        Err(e) => {
                            // Logged once per outage; the records stay journaled meanwhile.
                            if !failing {
                                tracing::warn!(error = %e, "journal fold failed; retrying");
                            }
                            failing = true;
                            std::thread::sleep(RETRY_AFTER);
                        }
                    }
                }
            })
            .map_err(|e| StoreError::Unavailable(format!("cannot start the fold thread: {e}")))?;
        Ok(Folder {
            stop,
            journal: jd,
            thread: Some(thread),
        })
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.journal.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
