//! What every part of the server shares: configuration, store, log writer, registry, metrics.

use crate::board::Registry;
use crate::config::Config;
use crate::metrics::Metrics;
use crate::store::{Store, WriterHandle};
use protocol::BoardId;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct Shared {
    pub config: Config,
    pub store: Store,
    pub writer: WriterHandle,
    pub registry: Registry,
    /// Access control: accounts, sessions, tokens, roles, links.
    pub auth: crate::auth::Auth,
    pub metrics: Metrics,
    /// Named version saves per board (`--named-versions-per-min`, QUOTA-4).
    pub version_saves: crate::quota::SaveLimiter,
    /// The AI agent (template router, offline planner, LLM when configured), shared by every
    /// board's AI workers; it holds the server-wide cap on LLM requests in flight.
    pub agent: std::sync::Arc<agent::Agent>,
    /// The main tokio runtime (board actors run on arbiter threads and spawn I/O here).
    pub rt: tokio::runtime::Handle,
    /// Signals connections to close on shutdown.
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    /// The drawings of exports and previews: turns, memory, cancellation (EXPORT-12).
    pub drawings: crate::drawing::Drawings,
    next_conn: AtomicU64,
    violations: AtomicU64,
    last_violation: Mutex<Option<String>>,
}

impl Shared {
    pub fn new(
        config: Config,
        store: Store,
        writer: WriterHandle,
        registry: Registry,
        auth: crate::auth::Auth,
        rt: tokio::runtime::Handle,
        shutdown: tokio::sync::watch::Receiver<bool>,
    ) -> Self {
        let agent = std::sync::Arc::new(agent::Agent::new(config.agent_config()));
        let drawings = crate::drawing::Drawings::new(&config);
        Shared {
            drawings,
            version_saves: crate::quota::save_limiter(&config),
            agent,
            config,
            store,
            writer,
            registry,
            auth,
            metrics: Metrics::new(),
            rt,
            shutdown,
            next_conn: AtomicU64::new(1),
            violations: AtomicU64::new(0),
            last_violation: Mutex::new(None),
        }
    }

    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// Records a broken invariant (checked only when `check_invariants` is on).
    pub fn record_violation(&self, board: &BoardId, what: &str) {
        tracing::error!(board = %board, what, "invariant violated");
        self.violations.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut g) = self.last_violation.lock() {
            *g = Some(format!("{board}: {what}"));
        }
    }

    /// Count and last description of invariant violations.
    pub fn violations(&self) -> (u64, Option<String>) {
        let last = self.last_violation.lock().ok().and_then(|g| g.clone());
        (self.violations.load(Ordering::Relaxed), last)
    }
}
