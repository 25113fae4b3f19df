//! The composition root: what every part of the server shares. The boards' environment
//! ([`Env`]: configuration, store, log writer, registry, metrics, agent, runtime), which `Shared`
//! derefs to, and beside it access control, the named-version limiter, the drawings and the
//! shutdown signal. It installs access control's answer to what a board asks of it
//! ([`crate::board::Roles`]).

use crate::auth::Auth;
use crate::board::{Env, Registry, Roles};
use crate::config::Config;
use crate::store::{Store, WriterHandle};
use futures_util::future::BoxFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct Shared {
    /// What every board runs with; `Shared` derefs to it.
    pub env: Arc<Env>,
    /// Access control: accounts, sessions, tokens, roles, links.
    pub auth: Arc<Auth>,
    /// Named version saves per board (`--named-versions-per-min`, QUOTA-4).
    pub version_saves: crate::quota::SaveLimiter,
    /// Signals connections to close on shutdown.
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    /// The drawings of exports and previews: turns, memory, cancellation (EXPORT-12).
    pub drawings: crate::drawing::Drawings,
    /// This node of the cluster (`--cluster`), once it has joined.
    pub cluster: std::sync::OnceLock<Arc<crate::cluster::Node>>,
    next_conn: Arc<AtomicU64>,
}

impl std::ops::Deref for Shared {
    type Target = Env;

    fn deref(&self) -> &Env {
        &self.env
    }
}

/// Access control answering a board whose share-link grant ended (AUTH-20).
struct AuthRoles(Arc<Auth>);

impl Roles for AuthRoles {
    fn grant_ended<'a>(
        &'a self,
        env: &'a Env,
        board: &'a str,
        user: &'a str,
        why: &'static str,
    ) -> BoxFuture<'a, ()> {
        Box::pin(self.0.role_changed_because(&env.registry, board, user, why))
    }

    fn has_role<'a>(
        &'a self,
        _env: &'a Env,
        board: &'a str,
        user: &'a str,
    ) -> BoxFuture<'a, Option<bool>> {
        Box::pin(self.0.has_role(board, user))
    }
}

impl Shared {
    pub fn new(
        config: Config,
        store: Store,
        writer: WriterHandle,
        registry: Registry,
        auth: Auth,
        rt: tokio::runtime::Handle,
        shutdown: tokio::sync::watch::Receiver<bool>,
    ) -> Self {
        let auth = Arc::new(auth);
        let drawings = crate::drawing::Drawings::new(&config);
        let version_saves = crate::quota::save_limiter(&config);
        let roles = Box::new(AuthRoles(auth.clone()));
        Shared {
            env: Arc::new(Env::new(config, store, writer, registry, rt, roles)),
            auth,
            version_saves,
            shutdown,
            drawings,
            cluster: std::sync::OnceLock::new(),
            next_conn: Arc::new(AtomicU64::new(1)),
        }
    }

    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// `--cluster`: joins the cluster (PostgreSQL lease, NATS relay, board placement).
    pub async fn join_cluster(&self) -> anyhow::Result<()> {
        if !self.config.cluster {
            return Ok(());
        }
        let next = self.next_conn.clone();
        let node = crate::cluster::start(
            self.env.clone(),
            Box::new(move || next.fetch_add(1, Ordering::Relaxed)),
        )
        .await?;
        let _ = self.cluster.set(node);
        Ok(())
    }
}
