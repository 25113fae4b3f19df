//! Cluster mode (`--cluster`, docs/CLUSTER.md): many nodes on one PostgreSQL and one NATS.
//! Exactly one node owns a board at a time. Ownership and fencing live in PostgreSQL (the
//! store's `cluster` half): a node holds a lease on the database's clock, takes a board with one
//! compare-and-set that bumps its epoch, and every durable write checks that epoch. Traffic
//! between nodes goes over core NATS ([`relay`]): any node accepts any client for any board and
//! relays it to the owner.
//!
//! This module is the node: it joins the cluster (a generation in the node table), renews its
//! lease on a connection of its own every [`RENEW_EVERY`], fences itself when it could not renew
//! in time ([`Node::writable`] is false from a local monotonic deadline before the lease can
//! expire), places boards ([`Placement`]) and keeps the relay's view of live nodes.

mod parts;
pub mod relay;
pub mod wire;

use crate::board::{BoardHandle, Env, Place, Placement};
use crate::metrics;
use crate::store::StoreError;
use futures_util::future::BoxFuture;
use protocol::BoardId;
use relay::Relay;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wire::NodeRef;

/// How often a node renews its lease.
pub const RENEW_EVERY: Duration = Duration::from_secs(2);
/// How long a lease lasts past a renewal (the database's clock).
pub const LEASE_TTL: Duration = Duration::from_secs(10);
/// A node stops writing this long before its lease could expire: the lease is counted from
/// when the renewal was sent, by the local monotonic clock.
pub const FENCE_MARGIN: Duration = Duration::from_secs(2);
/// How long a hand-over waits for a board's commands to become durable.
const HAND_OVER_FLUSH: Duration = Duration::from_secs(2);

/// This node of the cluster.
pub struct Node {
    pub me: NodeRef,
    pub relay: Arc<Relay>,
    env: Arc<Env>,
    /// Whether NATS is connected.
    nats_up: AtomicBool,
    /// Boards whose every client was relayed by one other node at the last look: moved there
    /// when the next look finds the same.
    movable: Mutex<HashMap<BoardId, NodeRef>>,
    /// Set when the hand-over starts (SIGTERM): no board is placed here any more.
    stopping: AtomicBool,
}

impl Node {
    /// Whether this node may admit a write now (checked at the admission of every write).
    /// The deadline is the store's (`ClusterStore::set_writable_until`), which every fenced
    /// write checks too.
    pub fn writable(&self) -> bool {
        ledger(&self.env).is_ok_and(|c| c.writable())
    }

    /// Whether `/healthz` answers 200: joined, not fenced, NATS connected.
    pub fn healthy(&self) -> bool {
        self.writable() && self.nats_up.load(Ordering::Relaxed)
    }

    /// One round of the lease loop: renew, then refresh the relay's live nodes.
    async fn renew_once(&self) {
        // The deadline passed before this round (the process was paused, or renewals kept
        // failing): its boards may belong to another node now. Close them before a renewal
        // makes this node writable again, or a board nobody writes to would stay open here,
        // stale, with its clients never told (CLUSTER-16).
        let lapsed = !self.writable();
        if lapsed {
            self.fence_now();
        }
        let sent = Instant::now();
        let Ok(cluster) = ledger(&self.env) else {
            return;
        };
        match cluster
            .renew(&self.me.id, self.me.generation, LEASE_TTL)
            .await
        {
            Ok(true) => {
                let until = sent + LEASE_TTL - FENCE_MARGIN;
                cluster.set_writable_until(until);
            }
            Ok(false) => {
                // A newer process holds this node id: stop writing now, not at the deadline.
                tracing::error!(node = %self.me.id, "a newer process holds this node id");
                cluster.set_writable_until(sent);
            }
            Err(e) => tracing::warn!(error = %e, "cluster: lease renewal failed"),
        }
        if !lapsed && !self.writable() {
            self.fence_now();
        }
        self.refresh_live().await;
    }

    /// Reads the live nodes from the database and tells the relay; None when it cannot.
    async fn refresh_live(&self) -> Option<HashSet<NodeRef>> {
        let nodes = ledger(&self.env).ok()?.live_nodes().await.ok()?;
        let live: HashSet<NodeRef> = nodes
            .into_iter()
            .filter(|n| n.lease_expires_ms > 0)
            .map(|n| NodeRef {
                id: n.id,
                generation: n.generation,
            })
            .collect();
        self.relay.set_live(live.clone());
        Some(live)
    }

    /// Fenced: every board of this node closes with 1012 (its clients reconnect elsewhere).
    fn fence_now(&self) {
        let boards = self.env.registry.all();
        self.relay
            .close_all_relayed(protocol::close::SERVICE_RESTART, "node fenced");
        if boards.is_empty() {
            return;
        }
        self.env.metrics.cluster_event(metrics::FENCED);
        tracing::warn!(
            boards = boards.len(),
            "cluster: fenced; closing this node's boards"
        );
        for (_, b) in boards {
            let b = b.clone();
            self.env.rt.spawn(async move {
                b.close_all(
                    protocol::ErrorCode::StoreUnavailable,
                    protocol::close::SERVICE_RESTART,
                    "node fenced".into(),
                )
                .await;
            });
        }
    }
}

impl Node {
    /// Prefer local ownership: a board all of whose clients another single node relays (on two
    /// looks in a row) moves to that node: made durable, released, then closed with 1012, so
    /// its clients reconnect and their node takes it.
    async fn move_to_clients(&self) {
        let mut next = HashMap::new();
        for (id, nodes) in self.relay.relayed_here() {
            let mut nodes = nodes.into_iter();
            let (Some((to, relayed)), None) = (nodes.next(), nodes.next()) else {
                continue;
            };
            let Some(board) = self.env.registry.loaded(&id) else {
                continue;
            };
            if !board.inspect().await.is_ok_and(|i| i.clients == relayed) {
                continue;
            }
            let seen = self.movable.lock().ok().and_then(|m| m.get(&id).cloned());
            if seen.as_ref() == Some(&to) {
                self.move_board(&id, &board, &to).await;
            } else {
                next.insert(id, to);
            }
        }
        if let Ok(mut m) = self.movable.lock() {
            *m = next;
        }
    }

    /// Hands one board over: durable, released (a write after this is fenced), then closed
    /// with 1012.
    async fn move_board(&self, id: &BoardId, board: &BoardHandle, to: &NodeRef) {
        let Ok(cluster) = ledger(&self.env) else {
            return;
        };
        if !board.flush(HAND_OVER_FLUSH).await {
            return;
        }
        let Some(epoch) = cluster.held_epoch(id) else {
            return;
        };
        match cluster
            .release_board(id, &self.me.id, self.me.generation, epoch)
            .await
        {
            Ok(true) => self.env.metrics.boards_owned(-1.0),
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(board = %id, error = %e, "cluster: moving a board failed");
                return;
            }
        }
        board
            .close_all(
                protocol::ErrorCode::StoreUnavailable,
                protocol::close::SERVICE_RESTART,
                "board moved to its clients' node".into(),
            )
            .await;
        self.env.registry.forget(id, Some(board));
        self.env.metrics.cluster_event(metrics::HANDOVERS);
        tracing::info!(board = %id, to = %to.id, "cluster: board moved to its clients' node");
    }

    /// SIGTERM in cluster mode: every board this node holds is made durable, closed with 1012
    /// and released; relayed connections close with 1012; the node leaves (its lease ends now).
    pub async fn hand_over(&self) {
        // First, so that no board is loaded here again meanwhile: the database still names
        // this node the owner until each release (or the leave) lands, and a join relayed by
        // another node would load the board again here, to be closed with 1001 at shutdown
        // instead of being handed over. Such joins are answered "not here" and retried.
        self.stopping.store(true, Ordering::SeqCst);
        let boards = self.env.registry.all();
        let handed = boards.iter().map(|(id, b)| async move {
            b.flush(HAND_OVER_FLUSH).await;
            b.close_all(
                protocol::ErrorCode::StoreUnavailable,
                protocol::close::SERVICE_RESTART,
                "board handed over".into(),
            )
            .await;
            // Out of the registry, which releases it (and `leave_node` below releases anything
            // still held).
            self.env.registry.forget(id, Some(b));
            self.env.metrics.cluster_event(metrics::HANDOVERS);
        });
        futures_util::future::join_all(handed).await;
        self.relay
            .close_all_relayed(protocol::close::SERVICE_RESTART, "node stopping");
        let left = match ledger(&self.env) {
            Ok(c) => c.leave_node(&self.me.id, self.me.generation).await,
            Err(e) => Err(e),
        };
        if let Err(e) = left {
            tracing::warn!(error = %e, "cluster: leaving failed");
        }
        tracing::info!(boards = boards.len(), "cluster: boards handed over");
    }
}

/// Where a board runs: here when this node owns it or takes it now, else on its live owner.
struct NodePlacement(Arc<Node>);

impl NodePlacement {
    async fn place_board(&self, board: &BoardId) -> Result<Place, StoreError> {
        let node = &self.0;
        if !node.writable() {
            return Err(StoreError::Unavailable("this node is fenced".into()));
        }
        if node.stopping.load(Ordering::SeqCst) {
            return Err(StoreError::Unavailable("this node is stopping".into()));
        }
        let cluster = ledger(&node.env)?;
        for _ in 0..3 {
            if let Some(o) = cluster.owner_of(board).await?
                && let Some(o) = o.owner()
            {
                let owner = NodeRef {
                    id: o.node.clone(),
                    generation: o.generation,
                };
                if owner == node.me {
                    return Ok(Place::Here);
                }
                return Ok(Place::There(node.relay.remote(board.clone(), owner)));
            }
            if cluster
                .take_board(board, &node.me.id, node.me.generation)
                .await?
                .is_some()
            {
                node.env.metrics.cluster_event(metrics::TAKEOVERS);
                node.env.metrics.boards_owned(1.0);
                return Ok(Place::Here);
            }
        }
        Err(StoreError::Unavailable(format!(
            "board {board}: its owner keeps changing"
        )))
    }
}

impl Placement for NodePlacement {
    fn place<'a>(&'a self, board: &'a BoardId) -> BoxFuture<'a, Result<Place, StoreError>> {
        Box::pin(self.place_board(board))
    }

    fn elsewhere<'a>(&'a self, board: &'a BoardId) -> BoxFuture<'a, Option<BoardHandle>> {
        Box::pin(async move {
            let node = &self.0;
            let o = ledger(&node.env).ok()?.owner_of(board).await.ok()??;
            let o = o.owner()?;
            let owner = NodeRef {
                id: o.node.clone(),
                generation: o.generation,
            };
            (owner != node.me).then(|| node.relay.remote(board.clone(), owner))
        })
    }

    fn signed_out(&self, session: &str) {
        let node = self.0.clone();
        let session = session.to_owned();
        self.0.env.rt.clone().spawn(async move {
            // The nodes live now (a node that joined since the last lease look is told too).
            node.refresh_live().await;
            node.relay.tell_all_signed_out(session).await;
        });
    }

    fn released(&self, board: &BoardId) {
        let node = self.0.clone();
        let board = board.clone();
        node.env.rt.clone().spawn(async move {
            let Ok(cluster) = ledger(&node.env) else {
                return;
            };
            let Some(epoch) = cluster.held_epoch(&board) else {
                return;
            };
            match cluster
                .release_board(&board, &node.me.id, node.me.generation, epoch)
                .await
            {
                Ok(_) => node.env.metrics.boards_owned(-1.0),
                Err(e) => tracing::warn!(board = %board, error = %e, "cluster: release failed"),
            }
        });
    }
}

/// The store's cluster half (PostgreSQL; `--cluster` refuses any other store).
pub fn ledger(env: &Env) -> Result<crate::store::ClusterStore, StoreError> {
    env.store
        .cluster()
        .ok_or_else(|| StoreError::Unavailable("cluster mode needs PostgreSQL".into()))
}

/// Joins the cluster: a generation in the node table, NATS, the relay, the lease loop, and
/// board placement installed in the registry.
pub async fn start(
    env: Arc<Env>,
    next_conn: Box<dyn Fn() -> u64 + Send + Sync>,
) -> anyhow::Result<Arc<Node>> {
    let cfg = &env.config;
    let id = cfg.node();
    let sent = Instant::now();
    let generation = ledger(&env)?.join_node(&id, LEASE_TTL).await?;
    ledger(&env)?.set_writable_until(sent + LEASE_TTL - FENCE_MARGIN);
    env.metrics.cluster_started();
    let me = NodeRef { id, generation };
    let (address, login) = nats_login(&cfg.nats_url);
    let mut options = async_nats::ConnectOptions::new()
        .name(format!("board-node-{}", me.id))
        .retry_on_initial_connect();
    options = match login {
        Some(Login::UserPassword(u, p)) => options.user_and_password(u, p),
        Some(Login::Token(t)) => options.token(t),
        None => options,
    };
    let nats = options.connect(address.as_str()).await?;
    let relay = Relay::new(
        nats.clone(),
        cfg.nats_prefix.clone(),
        me.clone(),
        env.clone(),
        next_conn,
        cfg.relay_drop_every,
    );
    relay.clone().listen().await?;
    let node = Arc::new(Node {
        me,
        relay,
        env: env.clone(),
        nats_up: AtomicBool::new(true),
        movable: Mutex::new(HashMap::new()),
        stopping: AtomicBool::new(false),
    });
    env.registry
        .set_placement(Box::new(NodePlacement(node.clone())));
    spawn_lease_loop(node.clone(), nats);
    tracing::info!(node = %node.me.id, generation = node.me.generation, "joined the cluster");
    Ok(node)
}

/// Credentials a NATS URL carries (`nats://user:password@host` or `nats://token@host`).
#[derive(Debug, PartialEq, Eq)]
enum Login {
    UserPassword(String, String),
    Token(String),
}

/// The URL without its credentials, and the credentials: the NATS client does not send those
/// of a URL by itself, and an address without them is safe to log.
fn nats_login(url: &str) -> (String, Option<Login>) {
    let (scheme, rest) = url.split_once("://").unwrap_or(("nats", url));
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let Some((creds, host)) = authority.rsplit_once('@') else {
        return (url.to_owned(), None);
    };
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let login = match creds.split_once(':') {
        Some((u, p)) => Login::UserPassword(decode(u), decode(p)),
        None => Login::Token(decode(creds)),
    };
    (format!("{scheme}://{host}{path}"), Some(login))
}

fn spawn_lease_loop(node: Arc<Node>, nats: async_nats::Client) {
    let weak = Arc::downgrade(&node);
    drop(node);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(RENEW_EVERY);
        loop {
            tick.tick().await;
            let Some(node) = weak.upgrade() else {
                return;
            };
            let up = matches!(
                nats.connection_state(),
                async_nats::connection::State::Connected
            );
            node.nats_up.store(up, Ordering::Relaxed);
            node.renew_once().await;
            node.move_to_clients().await;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nats_url_gives_up_its_credentials() {
        assert_eq!(
            nats_login("nats://127.0.0.1:4222"),
            ("nats://127.0.0.1:4222".to_owned(), None)
        );
        assert_eq!(
            nats_login("nats://board:s%40cret@nats:4222"),
            (
                "nats://nats:4222".to_owned(),
                Some(Login::UserPassword("board".into(), "s@cret".into()))
            )
        );
        assert_eq!(
            nats_login("tls://tok@nats.example:4222"),
            (
                "tls://nats.example:4222".to_owned(),
                Some(Login::Token("tok".into()))
            )
        );
    }
}
