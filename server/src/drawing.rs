//! The drawings behind exports and board-list previews (EXPORT-5, EXPORT-12), each within a
//! time and memory budget:
//!
//! - at most two run at once (a large PNG takes a core for seconds); a request waits for its
//!   turn at most `--export-wait-ms`, then answers 503 `busy`;
//! - a drawing first lays the board out as SVG text (at most an eighth of `--export-memory-mb`),
//!   then reserves the memory its image is estimated to take ([`render::Drawing::memory`]) from
//!   a pool of `--export-memory-mb` shared by every drawing, waiting for room within the same
//!   wait; a drawing estimated above the whole pool answers 422 `too_large`;
//! - a request whose client went away drops its future, which sets the drawing's cancellation
//!   flag: the renderer stops at its next check (between objects and between steps) and gives
//!   its turn and memory back; a drawing still running after [`DRAW_TIMEOUT`] stops the same way
//!   and answers `busy`.

use crate::config::Config;
use protocol::BoardObject;
use render::{Budget, Drawing, Options, Target};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// Drawings running at once.
const TURNS: usize = 2;
/// The longest a drawing may run once it has its turn.
pub const DRAW_TIMEOUT: Duration = Duration::from_secs(60);
/// What a `busy` answer asks the client to wait before trying again, in seconds.
pub const RETRY_AFTER_SECS: u64 = 5;
const MIB: u64 = 1 << 20;

/// Why a drawing was not made; [`crate::http`] answers it (EXPORT-12: 503 `busy` with
/// `Retry-After` or `shutting_down`, 422 `too_large`, 500 `internal`).
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// The pools are closed.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// No turn or no memory within the wait, or the drawing took too long.
    #[error("the server is busy drawing ({0}); try again shortly")]
    Busy(&'static str),
    /// The drawing would take more memory than allowed.
    #[error(
        "this board is too large to draw as {what}: it would take about {} MiB, at most {} MiB \
         are allowed; export a part of it (?selection=), a smaller scale or the board file",
        .bytes.div_ceil(MIB),
        .max / MIB
    )]
    TooLarge {
        what: &'static str,
        bytes: u64,
        max: u64,
    },
    /// The renderer or the blocking pool failed: what happened and its log reference (ERR-1).
    #[error("{0}")]
    Failed(String),
}

/// The server's drawings: turns, the memory pool, and how many run or were cancelled (tests
/// wait on these instead of sleeping).
pub struct Drawings {
    turns: Arc<Semaphore>,
    memory: Arc<Semaphore>,
    memory_mib: u32,
    wait: Duration,
    running: Arc<AtomicUsize>,
    cancelled: Arc<AtomicU64>,
}

/// A turn to draw; counted as running until dropped.
struct Turn {
    _permit: OwnedSemaphorePermit,
    running: Arc<AtomicUsize>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.running.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Sets the drawing's cancellation flag when the request's future is dropped (its client went
/// away) before the drawing was done.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Drawings {
    pub fn new(config: &Config) -> Self {
        let memory_mib = config.export_memory_mb.max(1);
        Drawings {
            turns: Arc::new(Semaphore::new(TURNS)),
            memory: Arc::new(Semaphore::new(memory_mib as usize)),
            memory_mib,
            wait: Duration::from_millis(config.export_wait_ms),
            running: Arc::new(AtomicUsize::new(0)),
            cancelled: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Drawings holding a turn now.
    pub fn running(&self) -> usize {
        self.running.load(Ordering::Relaxed)
    }

    /// Drawings stopped because their client went away.
    pub fn cancelled(&self) -> u64 {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Draws `objects` into `target` off the async workers, within the budget above: the file's
    /// bytes, or the answer to give instead.
    pub async fn draw(
        &self,
        objects: Vec<BoardObject>,
        options: Options,
        target: Target,
    ) -> Result<Vec<u8>, Refused> {
        let until = Instant::now() + self.wait;
        let turn = self.turn(until).await?;
        let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
        let pool = u64::from(self.memory_mib) * MIB;
        let budget = Budget {
            deadline: Some((Instant::now() + DRAW_TIMEOUT).into_std()),
            cancel: Some(cancel.0.clone()),
            max_bytes: Some(pool / 8),
        };
        let (b, cancelled) = (budget.clone(), self.cancelled.clone());
        let (drawing, turn) = self
            .blocking(move || {
                let drawing = Drawing::new(&objects, &options, target, &b);
                (counted(drawing, &cancelled), turn)
            })
            .await?;
        let drawing = drawing.map_err(|e| refusal(&e, target))?;
        let budget = Budget {
            max_bytes: Some(pool),
            ..budget
        };
        budget
            .afford(drawing.memory())
            .map_err(|e| refusal(&e, target))?;
        let room = self.room(drawing.memory(), until).await?;
        let cancelled = self.cancelled.clone();
        let made = self
            .blocking(move || {
                let _held = (turn, room);
                counted(drawing.finish(&budget), &cancelled)
            })
            .await?;
        drop(cancel);
        made.map_err(|e| refusal(&e, target))
    }

    /// Waits for a turn until `until`.
    async fn turn(&self, until: Instant) -> Result<Turn, Refused> {
        match tokio::time::timeout_at(until, self.turns.clone().acquire_owned()).await {
            Ok(Ok(permit)) => {
                self.running.fetch_add(1, Ordering::Relaxed);
                Ok(Turn {
                    _permit: permit,
                    running: self.running.clone(),
                })
            }
            Ok(Err(_)) => Err(Refused::ShuttingDown),
            Err(_) => Err(Refused::Busy("other drawings are running")),
        }
    }

    /// Reserves `bytes` of the memory pool, waiting for room until `until`.
    async fn room(&self, bytes: u64, until: Instant) -> Result<OwnedSemaphorePermit, Refused> {
        let mib = u32::try_from(bytes.div_ceil(MIB).max(1)).unwrap_or(u32::MAX);
        match tokio::time::timeout_at(until, self.memory.clone().acquire_many_owned(mib)).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_)) => Err(Refused::ShuttingDown),
            Err(_) => Err(Refused::Busy(
                "other drawings hold the memory this one needs",
            )),
        }
    }

    /// Runs `f` on the blocking pool.
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Refused> {
        tokio::task::spawn_blocking(f)
            .await
            .map_err(|e| Refused::Failed(crate::errors::public("the board could not be drawn", &e)))
    }
}

/// Counts a drawing stopped because its client went away where it ends, on the blocking pool
/// (nobody waits for its answer).
fn counted<T>(r: Result<T, render::Error>, cancelled: &AtomicU64) -> Result<T, render::Error> {
    if matches!(r, Err(render::Error::Cancelled)) {
        cancelled.fetch_add(1, Ordering::Relaxed);
        tracing::debug!("a drawing stopped: its client went away");
    }
    r
}

/// Why the renderer did not make a drawing.
fn refusal(e: &render::Error, target: Target) -> Refused {
    match e {
        render::Error::TooLarge { bytes, max } => Refused::TooLarge {
            what: match target {
                Target::Svg => "an SVG",
                Target::Png { .. } => "a PNG at this scale",
                Target::Pdf => "a PDF",
            },
            bytes: *bytes,
            max: *max,
        },
        render::Error::TimedOut | render::Error::Cancelled => {
            Refused::Busy("the drawing took too long")
        }
        render::Error::Svg(_) | render::Error::Image(_) => {
            Refused::Failed(crate::errors::public("the board could not be drawn", e))
        }
    }
}
