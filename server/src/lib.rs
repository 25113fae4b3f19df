//! Realtime whiteboard server with a built-in AI agent.
//!
//! # Layout
//! - [`config`]: the one `Config` (clap, every flag with an environment twin).
//! - [`http`]: every HTTP route (axum) behind one edge layer: `/ws/boards/{id}`, `/healthz`,
//!   `/metrics`, the board API (boards, export and import, versions), sign-in and tokens, links
//!   and members, the browser client (`/`, `/b/{id}`, `/static/*`, embedded with rust-embed);
//!   one error type, `http::ApiError`.
//! - [`net`]: the listener: HTTP/1 through hyper with a header timeout, the open-file reserve,
//!   per-address connection caps.
//! - [`connection`]: one task per WebSocket: hello, join, the `select!` loop, cleanup.
//! - [`board`]: the board actor (actix, one arbiter per core), its one home: state, the dispatch of
//!   what connections ask, clients, users, durability, and the per-user AI queue whose workers
//!   run the agent outside the actor.
//! - [`store`]: the log + snapshot store and its group-commit writer.
//! - [`cluster`]: cluster mode (`--cluster`): the node's lease, board placement and the NATS
//!   relay between nodes.
//! - [`auth`]: access control: accounts, sessions, board tokens, roles, share links (the logic;
//!   its routes are in [`http`]).
//! - [`pictures`]: pictures as they arrive (type from the bytes, decoding limits, metadata and
//!   SVG script removed, previews).
//! - [`drawing`]: the drawings of exports; [`quota`]: quotas and the named-version limiter;
//!   [`errors`]: what a client is told of an internal failure (ERR-1).
//! - [`metrics`]; [`shared`], the composition root: the boards' environment ([`board::Env`])
//!   and beside it access control, the drawings and the shutdown signal.
//!
//! # Layers
//! No module imports one in its own layer or above it (ARCH-1, checked by `tests/layers.rs`,
//! which reads this list), so the imports have no circle. From the bottom up:
//!
//! `errors`, `metrics`, `woken`, `pictures` < `store` < `config` < `board` < `cluster` < `quota` < `auth` <
//! `drawing` < `shared` < `connection` < `net` < `http`
//!
//! A lower module that needs something of a higher one is handed it: the board asks access
//! control through [`board::Roles`], which [`shared`] installs; quotas count an account's boards
//! through [`quota::Accounts`], which the auth store implements.
//!
//! Entry points: [`run`] (serve until a shutdown future resolves) and [`spawn`] (for tests).
// Every `.unwrap()` in this crate is in test code (`#[cfg(test)]` modules and `store/tests/`):
// there a failing unwrap is the test failing, which is its purpose. Outside tests there is none:
// the workspace's `clippy::unwrap_used` lint, denied in CI (`-D warnings`), rejects any.
#![cfg_attr(test, allow(clippy::unwrap_used))]
// Functions, not files: past 100 lines (clippy.toml) a function is split by step (tests aside).
#![cfg_attr(not(test), deny(clippy::too_many_lines))]

pub mod auth;
pub mod board;
pub mod cluster;
pub mod config;
pub mod connection;
pub mod drawing;
pub mod errors;
pub mod http;
pub mod metrics;
pub mod net;
pub mod pictures;
pub mod quota;
pub mod shared;
pub mod store;
mod woken;

pub use config::Config;

use actix_rt::ArbiterHandle;
use board::Inspection;
use shared::Shared;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// A running server.
pub struct ServerHandle {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown_tx: tokio::sync::watch::Sender<bool>,
    serve: tokio::task::JoinHandle<std::io::Result<()>>,
    system: actix::System,
    system_thread: Option<std::thread::JoinHandle<()>>,
}

/// Starts the actix system on its own thread with `n` board arbiters.
fn start_arbiters(
    n: usize,
) -> anyhow::Result<(
    Vec<ArbiterHandle>,
    actix::System,
    std::thread::JoinHandle<()>,
)> {
    let (tx, rx) = std::sync::mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("board-system".into())
        .spawn(move || {
            let sys = actix::System::new();
            let handles: Vec<ArbiterHandle> =
                sys.block_on(async { (0..n).map(|_| actix::Arbiter::new().handle()).collect() });
            let _ = tx.send((handles, actix::System::current()));
            if let Err(e) = sys.run() {
                tracing::error!(error = %e, "board system ended with an error");
            }
        })?;
    let (handles, system) = rx.recv()?;
    Ok((handles, system, thread))
}

/// Opens the store the configuration names: PostgreSQL when a database URL is set, memory when
/// asked for, SQLite under the data dir otherwise.
async fn open_store(config: &Config) -> anyhow::Result<store::Store> {
    let timeout = store_timeout(config);
    let store = if let Some(url) = &config.database_url {
        let schema = config.database_schema.as_deref();
        if config.cluster {
            // Every durable write checks the board's epoch (CLUSTER-2).
            store::Store::open_postgres_fenced(url, schema, timeout).await?
        } else {
            store::Store::open_postgres(url, schema, timeout).await?
        }
    } else if config.memory_store {
        store::Store::memory()
    } else {
        store::Store::open_sqlite(&config.data_dir, timeout).await?
    };
    tracing::info!(kind = store.kind(), "store open");
    Ok(store)
}

/// A server started without `--cluster` on a database a live cluster node uses would write its
/// boards unfenced: it refuses to start (CLUSTER-8).
async fn refuse_live_cluster(config: &Config, store: &store::Store) -> anyhow::Result<()> {
    if config.cluster || config.database_url.is_none() {
        return Ok(());
    }
    let Some(cluster) = store.cluster() else {
        return Ok(());
    };
    if cluster.any_live_lease().await? {
        anyhow::bail!(
            "a cluster node holds a live lease on this database: start this server with \
             --cluster, or give it a database (or --database-schema) of its own"
        );
    }
    Ok(())
}

/// The deadline of every store call (`--store-timeout-ms`, STORE-29).
fn store_timeout(config: &Config) -> Duration {
    Duration::from_millis(config.store_timeout_ms.max(1))
}

/// Prints a fresh sign-in link (`server login-link`): for the owner, or for the member `name`.
pub async fn print_login_link(config: &Config, name: Option<&str>) -> anyhow::Result<()> {
    let (auth, _) = auth::Auth::open(config).await?;
    let user = match name {
        Some(n) => auth.member(n).await?.id,
        None => auth.owner.clone(),
    };
    let code = auth.login_code(&user).await?;
    println!("sign in: {}/login#{code}", config.base_url(config.listen));
    Ok(())
}

/// Starts serving on `listener` and returns at once.
pub async fn spawn(listener: TcpListener, config: Config) -> anyhow::Result<ServerHandle> {
    let addr = listener.local_addr()?;
    config.check(addr).map_err(anyhow::Error::msg)?;
    if !config.auth_on() {
        // AUTH-16: without access control anyone who reaches the port may do anything.
        tracing::warn!(
            "access control is off (--auth off): anyone who reaches {addr} may read, edit and \
             delete every board"
        );
    }
    let (auth, first_code) = auth::Auth::open(&config).await?;
    tracing::info!(kind = auth.store.kind(), "auth store open");
    let first_start = first_code.is_some();
    if let Some(code) = first_code {
        // The owner's first sign-in (AUTH-1): one line, for the person who started the server.
        println!("sign in: {}/login#{code}", config.base_url(addr));
    }
    let metrics_listener = match config.metrics_listen {
        Some(a) => Some(TcpListener::bind(a).await?),
        None => None,
    };
    let (arbiters, system, system_thread) = start_arbiters(config.arbiter_count())?;
    let store = open_store(&config).await?;
    refuse_live_cluster(&config, &store).await?;
    let writer = store::Writer::spawn(
        store.clone(),
        store::WriterOptions {
            queue: config.writer_queue.max(4),
            linger: config.commit_linger(store.syncs()),
            deadline: store_timeout(&config),
            ..store::WriterOptions::default()
        },
    );
    let (shutdown_tx, shutdown_rx) = tokio::sync::watch::channel(false);
    // Sized from the data dir's disk unless given (QUOTA-5); the store has made the dir by now.
    let config = quota::with_store_cap(config);
    let shared = Arc::new(Shared::new(
        config,
        store,
        writer,
        board::Registry::new(arbiters),
        auth,
        tokio::runtime::Handle::current(),
        shutdown_rx,
    ));
    shared.join_cluster().await?;
    let net = net::Net::new(&shared.config);
    let app = http::router(shared.clone(), net.clone());
    if let Some(l) = metrics_listener {
        let mut stop = shutdown_tx.subscribe();
        let metrics_app = http::metrics_router(shared.clone());
        tracing::info!(addr = ?l.local_addr().ok(), "metrics listening");
        tokio::spawn(async move {
            let _ = axum::serve(l, metrics_app)
                .with_graceful_shutdown(async move {
                    let _ = stop.wait_for(|s| *s).await;
                })
                .await;
        });
    }
    board::sweep::spawn(shared.env.clone(), shutdown_tx.subscribe());
    // Histogram samples are folded into buckets every few seconds whether or not anyone
    // scrapes `/metrics` (see `Metrics::upkeep`).
    let mut upkeep_stop = shutdown_tx.subscribe();
    let metrics = shared.metrics;
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(5));
        loop {
            tokio::select! {
                _ = every.tick() => metrics.upkeep(),
                _ = upkeep_stop.changed() => break,
            }
        }
    });
    let serve = tokio::spawn(net::serve(
        listener,
        app,
        net,
        shared.config.http_header_timeout(),
        shutdown_tx.subscribe(),
    ));
    open_here(&shared.config, addr, first_start);
    Ok(ServerHandle {
        addr,
        shared,
        shutdown_tx,
        serve,
        system,
        system_thread: Some(system_thread),
    })
}

/// Says once, on stdout, where to open the page (CLI-2): after the `sign in:` link on a first
/// start; otherwise with how to get a sign-in link when access control is on.
fn open_here(config: &Config, addr: SocketAddr, first_start: bool) {
    let base = config.base_url(addr);
    if !config.auth_on() || first_start {
        println!("open {base}/ in a browser");
    } else {
        println!("open {base}/ in a browser (sign in with a link from `server login-link`)");
    }
}

/// Serves until `shutdown` resolves, then shuts down gracefully: connections are closed with a
/// reason, every board waits until what it applied is durable and writes a snapshot.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let handle = spawn(listener, config).await?;
    shutdown.await;
    handle.shutdown().await
}

impl ServerHandle {
    /// State of a loaded board (None if it is not loaded).
    pub async fn inspect(&self, board: &str) -> Option<Inspection> {
        let id = protocol::BoardId::try_from(board).ok()?;
        let board = self.shared.registry.loaded(&id)?;
        board.inspect().await.ok()
    }

    /// Invariant violations seen so far (with `check_invariants` on).
    pub fn violations(&self) -> (u64, Option<String>) {
        self.shared.violations()
    }

    /// Shared server state.
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Graceful shutdown.
    pub async fn shutdown(mut self) -> anyhow::Result<()> {
        tracing::info!("shutting down");
        // The flag first (new sockets are refused, a join that races this sees it), then every
        // board closes its connections.
        let _ = self.shutdown_tx.send(true);
        if let Some(node) = self.shared.cluster.get() {
            // Cluster mode: hand every board over (durable, released, sockets closed with 1012
            // so the clients reconnect at once to a node that takes it).
            node.hand_over().await;
        }
        for (_, board) in self.shared.registry.all() {
            board.shutting_down();
        }
        match tokio::time::timeout(Duration::from_secs(10), &mut self.serve).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => tracing::warn!(error = %e, "server loop ended with an error"),
            Ok(Err(e)) => tracing::warn!(error = %e, "server task failed"),
            Err(_) => {
                tracing::warn!("connections did not close within 10 s");
                self.serve.abort();
            }
        }
        for (id, board) in self.shared.registry.all() {
            if !board.flush(Duration::from_secs(10)).await && board.alive() {
                tracing::warn!(board = %id, "board did not flush within 10 s");
            }
        }
        // Let background snapshots finish.
        tokio::time::sleep(Duration::from_millis(50)).await;
        self.system.stop();
        if let Some(t) = self.system_thread.take() {
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
        tracing::info!("stopped");
        Ok(())
    }
}
