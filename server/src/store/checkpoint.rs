//! SQLite WAL checkpoints on a thread of their own (STORE-20), so that the log writer's commits
//! do not wait for pages to be copied into the database file.

use super::StoreError;
use super::sqlite::sql_err;
use rusqlite::Connection;
use std::path::Path;
use std::sync::Arc;

/// How often the background thread checkpoints the WAL into the database file: often enough that
/// the writer's own restart checkpoint (`WAL_RESTART_FRAMES`) finds little left to copy.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// A thread with its own connection that runs `wal_checkpoint(PASSIVE)` every
/// [`CHECKPOINT_EVERY`]. SQLite's automatic checkpoint would run inside the log writer's commit
/// (copying pages into the database file and fsyncing it), stalling every command waiting to
/// become durable for that long; a passive checkpoint on another connection never blocks the
/// writer. The WAL starts over only when a transaction begins with every frame copied, which a
/// steady stream of commits never leaves this thread time for: the writer's connection runs a
/// passive checkpoint of its own once the WAL holds `WAL_RESTART_FRAMES`, copying only what this
/// thread has not copied yet.
pub(super) struct Checkpointer {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    pub(super) fn start(path: &Path) -> Result<Checkpointer, StoreError> {
        let conn = Connection::open(path).map_err(sql_err)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sql_err)?;
        super::sqlite::keep_wal_files(&conn)?;
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || {
                let mut failing = false;
                while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::park_timeout(CHECKPOINT_EVERY);
                    let r: rusqlite::Result<(i64, i64, i64)> =
                        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                        });
                    match r {
                        Ok(_) => failing = false,
                        // Logged once per outage; the next round retries.
                        Err(e) if !failing => {
                            failing = true;
                            tracing::warn!(error = %e, "sqlite checkpoint failed");
                        }
                        Err(_) => {}
                    }
                }
            })
            .map_err(|e| StoreError::Unavailable(format!("cannot start checkpoint thread: {e}")))?;
        Ok(Checkpointer {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}
