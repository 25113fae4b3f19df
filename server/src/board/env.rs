//! What every board runs with: the configuration, the store and its log writer, the registry of
//! loaded boards, metrics, the agent, the runtime that does the boards' I/O, the record of broken
//! invariants, and the one question a board asks of access control ([`Roles`]), answered by
//! whatever the composition root installs. Nothing here names the modules above the board.

use super::Registry;
use crate::config::Config;
use crate::metrics::Metrics;
use crate::store::{Store, WriterHandle};
use futures_util::future::BoxFuture;
use protocol::BoardId;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What a board asks of access control: a role that came through a share link ended, so
/// `user`'s role on `board` is resolved again and handed back to the board (`SetRole`, saying
/// `why` to connections that lose every role).
pub trait Roles: Send + Sync {
    fn grant_ended<'a>(
        &'a self,
        env: &'a Env,
        board: &'a str,
        user: &'a str,
        why: &'static str,
    ) -> BoxFuture<'a, ()>;

    /// Whether `user` holds a stored role on `board` (a comment mentions only such people,
    /// COMMENT-3); None when access control is off and no role is stored.
    fn has_role<'a>(
        &'a self,
        env: &'a Env,
        board: &'a str,
        user: &'a str,
    ) -> BoxFuture<'a, Option<bool>>;
}

/// The environment of every board (one per server).
pub struct Env {
    pub config: Config,
    pub store: Store,
    pub writer: WriterHandle,
    pub registry: Registry,
    pub metrics: Metrics,
    /// The AI agent (template router, offline planner, LLM when configured), shared by every
    /// board's AI workers; it holds the server-wide cap on LLM requests in flight.
    pub agent: Arc<agent::Agent>,
    /// The main tokio runtime (board actors run on arbiter threads and spawn I/O here).
    pub rt: tokio::runtime::Handle,
    /// Access control's answer to [`Roles::grant_ended`].
    pub(super) roles: Box<dyn Roles>,
    violations: AtomicU64,
    last_violation: Mutex<Option<String>>,
}

impl Env {
    pub fn new(
        config: Config,
        store: Store,
        writer: WriterHandle,
        registry: Registry,
        rt: tokio::runtime::Handle,
        roles: Box<dyn Roles>,
    ) -> Self {
        let agent = Arc::new(agent::Agent::new(config.agent_config()));
        Env {
            agent,
            config,
            store,
            writer,
            registry,
            metrics: Metrics::new(),
            rt,
            roles,
            violations: AtomicU64::new(0),
            last_violation: Mutex::new(None),
        }
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
