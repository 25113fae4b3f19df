//! The group-commit log writer: one thread of its own owns the append path. It takes a
//! submission, drains everything else already queued (up to a cap), appends it all with ONE
//! [`Store::append_blocking`] (one transaction, one fsync) and then calls each submission's `done`
//! in submission order with the result. So the cost of a commit is shared by every command that
//! arrived while the previous one was being written.
//!
//! The writer is a thread, not a task: every durable command waits for it, and on a loaded
//! server a task woken by a blocking-pool thread queues behind every socket task of its worker
//! (and the blocking pool hands each append to whichever of its threads is free). On its own
//! thread, an append runs as soon as the kernel gives the writer a CPU, and the SQLite backend's
//! transaction runs right here instead of on another thread.
//!
//! A batch that fails with [`StoreError::Conflict`] (one board's bug) is retried one submission
//! at a time, so other boards in the batch are not failed with it; once a submission of a board
//! failed, that board's later submissions in the batch fail too (its log never gets a gap).
//! Any other error is shared by the whole batch: the store is down for everyone.
//!
//! Cluster mode (a fenced store, docs/CLUSTER.md): a board the store does not hold fails only
//! its own submissions, with [`StoreError::Fenced`], before anything is written; the rest of the
//! batch is appended. A batch that the database finds fenced (a board was taken over since)
//! is written again without that board's submissions (the store forgot its stale epoch), and
//! if it fails again, submission by submission as for a conflict.

use super::{LogRecord, Store, StoreError};
use crate::metrics::Metrics;
use protocol::{BoardId, Seq};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Called once with the outcome of a submission: `Ok` means every record of it is durable.
pub type Done = Box<dyn FnOnce(Result<(), StoreError>) + Send>;

/// One submitter's completions, shared by all of its submissions ([`WriterHandle::submit_to`]):
/// called with the highest seq completed, how many submissions that covers, and the outcome.
/// The successful submissions of one batch that share a `Notify` complete in ONE call, so a
/// board that had fifty commands in a commit hears about it once, not fifty times.
pub type Notify = Arc<dyn Fn(Seq, u64, Result<(), StoreError>) + Send + Sync>;

/// How a submission is completed.
enum Completion {
    Call(Done),
    Notify { to: Notify, seq: Seq },
}

/// Writer tuning.
#[derive(Debug, Clone)]
pub struct WriterOptions {
    /// Submissions that may wait in the queue; beyond it `submit` fails at once (overloaded).
    pub queue: usize,
    /// Stop draining the queue into a batch once it holds this many records.
    pub max_batch_records: usize,
    /// Under load, how long a batch waits for more commands before it is written (group-commit
    /// linger). Only a batch that found at least [`LINGER_MIN_SUBMISSIONS`] submissions queued
    /// waits, i.e. when commands arrive faster than commits finish; a lone command is written
    /// at once. Zero: never wait.
    pub linger: Duration,
    /// How long a command may wait for its commit (STORE-29): a batch whose oldest command has
    /// waited this long fails without being written, and PostgreSQL's append gets what is left
    /// of it (the statement is cancelled past it).
    pub deadline: Duration,
}

/// Submissions a batch must find already queued before it lingers for more.
pub const LINGER_MIN_SUBMISSIONS: usize = 4;

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            queue: 65_536,
            max_batch_records: 4096,
            linger: Duration::ZERO,
            deadline: super::DEFAULT_TIMEOUT,
        }
    }
}

/// Counters for metrics (monotonic except `last_batch_records` and `waiting`).
#[derive(Debug, Default)]
pub struct WriterStats {
    /// Appends issued (one transaction each).
    pub batches: AtomicU64,
    /// Records made durable.
    pub records: AtomicU64,
    /// Submissions completed (either way).
    pub submissions: AtomicU64,
    /// Records in the latest batch.
    pub last_batch_records: AtomicU64,
    /// Appends that failed.
    pub failed_batches: AtomicU64,
    /// Submissions refused at `submit` (queue full or writer stopped).
    pub rejected: AtomicU64,
    /// Submissions accepted and not completed yet: queued, or in the batch being written.
    pub waiting: AtomicU64,
}

/// A plain copy of [`WriterStats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriterCounters {
    pub batches: u64,
    pub records: u64,
    pub submissions: u64,
    pub last_batch_records: u64,
    pub failed_batches: u64,
    pub rejected: u64,
}

impl WriterStats {
    pub fn snapshot(&self) -> WriterCounters {
        WriterCounters {
            batches: self.batches.load(Ordering::Relaxed),
            records: self.records.load(Ordering::Relaxed),
            submissions: self.submissions.load(Ordering::Relaxed),
            last_batch_records: self.last_batch_records.load(Ordering::Relaxed),
            failed_batches: self.failed_batches.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
        }
    }
}

struct Submission {
    records: Vec<LogRecord>,
    done: Completion,
    /// When it was queued (`store_log_wait_seconds`).
    queued: Instant,
}

/// Starts the writer thread.
pub struct Writer;

impl Writer {
    /// Starts the writer's thread; PostgreSQL's appends are driven by the current tokio runtime.
    /// It runs until every handle is dropped, after finishing what is queued.
    pub fn spawn(store: Store, opts: WriterOptions) -> WriterHandle {
        Self::start(store, opts, None)
    }

    /// [`Writer::spawn`], but the thread takes nothing from its queue until `release` is sent
    /// (or dropped): tests queue submissions first to see exactly what one batch holds.
    #[cfg(test)]
    pub fn spawn_held(
        store: Store,
        opts: WriterOptions,
    ) -> (WriterHandle, std::sync::mpsc::Sender<()>) {
        let (release, held) = std::sync::mpsc::channel();
        (Self::start(store, opts, Some(held)), release)
    }

    fn start(
        store: Store,
        opts: WriterOptions,
        held: Option<std::sync::mpsc::Receiver<()>>,
    ) -> WriterHandle {
        let (tx, rx) = mpsc::channel(opts.queue.max(1));
        let stats = Arc::new(WriterStats::default());
        let runtime = tokio::runtime::Handle::current();
        let thread_stats = stats.clone();
        let started = std::thread::Builder::new()
            .name("log-writer".into())
            .spawn(move || {
                if let Some(held) = held {
                    let _ = held.recv();
                }
                run(&store, rx, &opts, &thread_stats, &runtime);
            });
        if let Err(e) = started {
            // The receiver went with the closure: every submit is refused (`Unavailable`).
            tracing::error!(error = %e, "cannot start the log writer thread");
        }
        WriterHandle { tx, stats }
    }
}

/// Submits to the writer. Cheap to clone.
#[derive(Clone)]
pub struct WriterHandle {
    tx: mpsc::Sender<Submission>,
    stats: Arc<WriterStats>,
}

impl std::fmt::Debug for WriterHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriterHandle")
            .field("queued", &(self.tx.max_capacity() - self.tx.capacity()))
            .field("waiting", &self.stats.waiting.load(Ordering::Relaxed))
            .finish()
    }
}

impl WriterHandle {
    /// Queues `records` for the next batch; `done` is called once they are durable or failed.
    /// Never blocks and never awaits: when the queue is full (or the writer stopped) `done` is
    /// called at once with [`StoreError::Unavailable`]. Submissions complete in submission order.
    pub fn submit(&self, records: Vec<LogRecord>, done: Done) {
        self.enqueue(records, Completion::Call(done));
    }

    /// [`WriterHandle::submit`], completed through `to` with `seq` (the submission's last seq):
    /// successful submissions of one batch that share `to` are completed by one call with the
    /// highest seq and their count. Completions still keep submission order: everything a
    /// `submit` callback could observe was completed before it is called.
    pub fn submit_to(&self, records: Vec<LogRecord>, to: &Notify, seq: Seq) {
        self.enqueue(
            records,
            Completion::Notify {
                to: to.clone(),
                seq,
            },
        );
    }

    fn enqueue(&self, records: Vec<LogRecord>, done: Completion) {
        // Counted before the send: the writer may complete it before `try_send` returns.
        self.stats.waiting.fetch_add(1, Ordering::Relaxed);
        let refused = match self.tx.try_send(Submission {
            records,
            done,
            queued: Instant::now(),
        }) {
            Ok(()) => return,
            Err(mpsc::error::TrySendError::Full(s)) => (s, "log writer overloaded"),
            Err(mpsc::error::TrySendError::Closed(s)) => (s, "log writer stopped"),
        };
        self.stats.waiting.fetch_sub(1, Ordering::Relaxed);
        self.stats.rejected.fetch_add(1, Ordering::Relaxed);
        let (s, why) = refused;
        s.done.run(1, Err(StoreError::Unavailable(why.into())));
    }

    /// The writer's counters.
    pub fn stats(&self) -> &Arc<WriterStats> {
        &self.stats
    }

    /// Submissions waiting for the writer (queued or in the batch being written) reach three
    /// quarters of the queue: boards stop admitting new commands (they answer `rate_limited`,
    /// nothing applied) until the writer catches up, so an overload slows writers down instead
    /// of failing commands that were already applied. The batch being written counts: a writer
    /// that drained the queue into a batch stuck on the store is still that far behind. The last
    /// quarter absorbs what boards on other threads submit between the check and their submit.
    pub fn saturated(&self) -> bool {
        let max = self.tx.max_capacity() as u64;
        self.stats.waiting.load(Ordering::Relaxed) >= max - max / 4
    }
}

fn run(
    store: &Store,
    mut rx: mpsc::Receiver<Submission>,
    opts: &WriterOptions,
    stats: &WriterStats,
    runtime: &tokio::runtime::Handle,
) {
    let mut batch: Vec<Submission> = Vec::new();
    while let Some(first) = rx.blocking_recv() {
        let mut n = first.records.len();
        batch.push(first);
        drain(&mut rx, &mut batch, &mut n, opts.max_batch_records);
        if !opts.linger.is_zero()
            && batch.len() >= LINGER_MIN_SUBMISSIONS
            && n < opts.max_batch_records
        {
            // Commands arrive faster than commits finish: a moment's wait lets the next ones
            // share this commit's sync instead of paying for their own.
            std::thread::sleep(opts.linger);
            drain(&mut rx, &mut batch, &mut n, opts.max_batch_records);
        }
        write_batch(store, &mut batch, opts.deadline, stats, runtime);
    }
    tracing::debug!("log writer stopped");
}

/// Moves queued submissions into `batch` until the queue is empty or `n` (records in the batch)
/// reaches `max`.
fn drain(
    rx: &mut mpsc::Receiver<Submission>,
    batch: &mut Vec<Submission>,
    n: &mut usize,
    max: usize,
) {
    while *n < max {
        match rx.try_recv() {
            Ok(s) => {
                *n += s.records.len();
                batch.push(s);
            }
            Err(_) => break,
        }
    }
}

/// Appends every submission of `batch` in one transaction and completes them (emptying `batch`).
fn write_batch(
    store: &Store,
    batch: &mut Vec<Submission>,
    deadline: Duration,
    stats: &WriterStats,
    runtime: &tokio::runtime::Handle,
) {
    let mut records = Vec::with_capacity(batch.iter().map(|s| s.records.len()).sum());
    // The queue is first in, first out: the batch's first submission waited longest.
    let waited = batch.first().map_or(Duration::ZERO, |s| s.queued.elapsed());
    Metrics.log_wait(waited.as_secs_f64());
    let budget = deadline.saturating_sub(waited);
    let mut ends = Vec::with_capacity(batch.len());
    let mut dones = Vec::with_capacity(batch.len());
    for s in batch.drain(..) {
        records.extend(s.records);
        ends.push(records.len());
        dones.push(s.done);
    }
    let parts = Parts {
        records: &records,
        ends: &ends,
    };
    let to = Target {
        store,
        stats,
        runtime,
        budget,
    };
    let result = if store.fenced() {
        fenced_outcomes(&to, &parts)
    } else {
        match append(&to, &records) {
            Err(StoreError::Conflict(e)) if dones.len() > 1 => {
                tracing::warn!(error = %e, "log batch conflict; retrying submission by submission");
                let all: Vec<usize> = (0..dones.len()).collect();
                Err(one_by_one(&to, &parts, &all, vec![None; dones.len()]))
            }
            Ok(()) => Ok(()),
            Err(e) => Err(vec![Some(Err(e)); dones.len()]),
        }
    };
    match result {
        Ok(()) => complete_batch(dones, stats),
        Err(outcomes) => {
            for (done, r) in dones.into_iter().zip(outcomes) {
                let r = r.unwrap_or_else(|| {
                    Err(StoreError::Unavailable("the log append did not run".into()))
                });
                complete(done, 1, r, stats);
            }
        }
    }
}

/// Where a batch goes: the store and what an append needs.
struct Target<'a> {
    store: &'a Store,
    stats: &'a WriterStats,
    runtime: &'a tokio::runtime::Handle,
    budget: Duration,
}

/// A batch's records and where each submission's end (`ends[i]`: one past its last record).
struct Parts<'a> {
    records: &'a [LogRecord],
    ends: &'a [usize],
}

impl Parts<'_> {
    fn part(&self, i: usize) -> &[LogRecord] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.records[start..self.ends[i]]
    }
}

/// Each submission's outcome so far (`None`: not decided yet).
type Outcomes = Vec<Option<Result<(), StoreError>>>;

/// A fenced store's batch: submissions of boards the store does not hold fail with `Fenced`
/// without being written, the others are appended together; when the database finds a board
/// fenced (taken over since), the store forgot it and the rest is appended once more, then
/// one by one. `Ok` when every submission is durable.
fn fenced_outcomes(to: &Target<'_>, parts: &Parts<'_>) -> Result<(), Outcomes> {
    let n = parts.ends.len();
    let mut out: Outcomes = vec![None; n];
    for round in 0..2 {
        // Decided once per round and board, so a board's submissions all go one way.
        let refused: HashSet<&BoardId> = parts
            .records
            .iter()
            .map(|r| &r.board)
            .filter(|b| to.store.refuses(b))
            .collect();
        for (i, o) in out.iter_mut().enumerate() {
            if o.is_none()
                && let Some(r) = parts.part(i).iter().find(|r| refused.contains(&r.board))
            {
                *o = Some(Err(StoreError::Fenced(format!(
                    "board {}: not held by this node",
                    r.board
                ))));
            }
        }
        let pending: Vec<usize> = (0..n).filter(|&i| out[i].is_none()).collect();
        if pending.is_empty() {
            break;
        }
        let records: Vec<LogRecord> = if pending.len() == n {
            parts.records.to_vec()
        } else {
            pending
                .iter()
                .flat_map(|&i| parts.part(i).to_vec())
                .collect()
        };
        match append(to, &records) {
            Ok(()) => {
                for &i in &pending {
                    out[i] = Some(Ok(()));
                }
            }
            Err(StoreError::Fenced(e)) if round == 0 && pending.len() > 1 => {
                tracing::warn!(error = %e, "log batch fenced; writing it again without them");
                continue;
            }
            Err(e @ (StoreError::Conflict(_) | StoreError::Fenced(_))) if pending.len() > 1 => {
                tracing::warn!(error = %e, "log batch refused; retrying submission by submission");
                out = one_by_one(to, parts, &pending, out);
            }
            Err(e) => {
                for &i in &pending {
                    out[i] = Some(Err(e.clone()));
                }
            }
        }
        break;
    }
    if out.iter().all(|o| matches!(o, Some(Ok(())))) {
        Ok(())
    } else {
        Err(out)
    }
}

/// Appends the submissions `which` one at a time; once one of a board failed, that board's
/// later ones fail with the same kind of error (its log never gets a gap).
fn one_by_one(to: &Target<'_>, parts: &Parts<'_>, which: &[usize], mut out: Outcomes) -> Outcomes {
    let mut failed: HashMap<&BoardId, bool> = HashMap::new();
    for &i in which {
        let part = parts.part(i);
        let r = match part
            .iter()
            .find_map(|r| failed.get(&r.board).map(|f| (r, *f)))
        {
            Some((r, true)) => Err(StoreError::Fenced(format!(
                "board {}: an earlier command in the same batch was fenced",
                r.board
            ))),
            Some((r, false)) => Err(StoreError::Conflict(format!(
                "board {}: an earlier command in the same batch failed",
                r.board
            ))),
            None => append(to, part),
        };
        if let Err(e) = &r {
            failed.extend(part.iter().map(|r| (&r.board, e.is_fenced())));
        }
        out[i] = Some(r);
    }
    out
}

/// Completes a batch that is durable: the submissions that share a [`Notify`] in one call each
/// (with the highest seq), the others one by one. A plain callback runs only after every
/// submission before it was completed, so the order of completions is kept.
fn complete_batch(dones: Vec<Completion>, stats: &WriterStats) {
    // (notify, highest seq, submissions), in first-seen order; found by the notify's address.
    let mut grouped: Vec<(Notify, Seq, u64)> = Vec::new();
    let mut index: std::collections::HashMap<*const (), usize> = std::collections::HashMap::new();
    let flush = |grouped: &mut Vec<(Notify, Seq, u64)>,
                 index: &mut std::collections::HashMap<*const (), usize>| {
        for (to, seq, n) in grouped.drain(..) {
            complete(Completion::Notify { to, seq }, n, Ok(()), stats);
        }
        index.clear();
    };
    for done in dones {
        match done {
            Completion::Notify { to, seq } => {
                let key = Arc::as_ptr(&to) as *const ();
                match index.get(&key) {
                    Some(&i) => {
                        let g = &mut grouped[i];
                        g.1 = g.1.max(seq);
                        g.2 += 1;
                    }
                    None => {
                        index.insert(key, grouped.len());
                        grouped.push((to, seq, 1));
                    }
                }
            }
            call => {
                flush(&mut grouped, &mut index);
                complete(call, 1, Ok(()), stats);
            }
        }
    }
    flush(&mut grouped, &mut index);
}

fn append(to: &Target<'_>, records: &[LogRecord]) -> Result<(), StoreError> {
    let Target {
        store,
        stats,
        runtime,
        budget,
    } = *to;
    let n = records.len() as u64;
    let started = Instant::now();
    // A panic inside the store (or a runtime that is shutting down under PostgreSQL's client)
    // fails this batch like any other store error; the thread, and later commits, live on.
    // Commands that waited past the deadline behind a slow store are not written at all.
    let r = if budget.is_zero() && store.syncs() {
        Err(StoreError::Unavailable(
            "the store did not answer within the deadline".into(),
        ))
    } else {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            store.append_blocking(records, runtime, budget)
        }))
        .unwrap_or_else(|_| Err(StoreError::Unavailable("the log append panicked".into())))
    };
    Metrics.log_commit(started.elapsed().as_secs_f64(), n, r.is_ok());
    stats.batches.fetch_add(1, Ordering::Relaxed);
    stats.last_batch_records.store(n, Ordering::Relaxed);
    match &r {
        Ok(()) => {
            stats.records.fetch_add(n, Ordering::Relaxed);
        }
        Err(e) => {
            stats.failed_batches.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(error = %e, records = n, "log append failed");
        }
    }
    r
}

impl Completion {
    /// Runs the completion for `n` submissions.
    fn run(self, n: u64, r: Result<(), StoreError>) {
        match self {
            Completion::Call(done) => done(r),
            Completion::Notify { to, seq } => to(seq, n, r),
        }
    }
}

/// Completes `n` submissions through `done` (more than one only for a grouped [`Notify`]).
fn complete(done: Completion, n: u64, r: Result<(), StoreError>, stats: &WriterStats) {
    stats.submissions.fetch_add(n, Ordering::Relaxed);
    stats.waiting.fetch_sub(n, Ordering::Relaxed);
    // A panicking callback must not take the writer (and every later commit) down with it.
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || done.run(n, r))).is_err() {
        tracing::error!("a log writer completion callback panicked");
    }
}
