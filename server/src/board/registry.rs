//! The registry of loaded boards: `DashMap<BoardId, cell>`. A board loads on first join; joins
//! that arrive during the load wait for that one load. No guard is held across `.await`. It
//! hands out [`BoardHandle`]s, never the actor's address. In cluster mode a [`Placement`] first
//! says where a board runs: here (then it loads as on one node) or on another node (then the
//! handle is the relay's, and nothing is loaded here).

use super::{Board, BoardHandle, Env};
use crate::store::StoreError;
use actix::prelude::*;
use actix_rt::ArbiterHandle;
use dashmap::DashMap;
use futures_util::future::BoxFuture;
use protocol::{BoardId, close};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use tokio::sync::OnceCell;

type Cell = Arc<OnceCell<BoardHandle>>;

/// How long a delete waits for the board's queued commands to settle.
const SETTLE_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

/// Where a board runs, in cluster mode.
pub enum Place {
    /// This node holds the board (it owned it already, or just took it): load it here.
    Here,
    /// Another node owns it: reach it through this handle.
    There(BoardHandle),
}

/// Cluster mode's answer to where a board runs (installed by the composition root).
pub trait Placement: Send + Sync {
    /// Where `board` runs; takes it for this node when nobody holds it.
    fn place<'a>(&'a self, board: &'a BoardId) -> BoxFuture<'a, Result<Place, StoreError>>;
    /// The board stopped here: let another node take it.
    fn released(&self, board: &BoardId);
    /// The owner's handle when another node owns the board now (never takes it).
    fn elsewhere<'a>(&'a self, board: &'a BoardId) -> BoxFuture<'a, Option<BoardHandle>>;
    /// A session was signed out on this node: the boards of every other node close the
    /// connections that depend on it (AUTH-19).
    fn signed_out(&self, session: &str);
}

pub struct Registry {
    boards: DashMap<BoardId, Cell>,
    /// Boards being deleted: joins are refused until the delete is done.
    deleting: DashMap<BoardId, ()>,
    arbiters: Vec<ArbiterHandle>,
    next: AtomicUsize,
    placement: OnceLock<Box<dyn Placement>>,
}

impl Registry {
    pub fn new(arbiters: Vec<ArbiterHandle>) -> Self {
        Registry {
            boards: DashMap::new(),
            deleting: DashMap::new(),
            arbiters,
            next: AtomicUsize::new(0),
            placement: OnceLock::new(),
        }
    }

    /// Cluster mode: boards are placed by `p` (set once, before serving).
    pub fn set_placement(&self, p: Box<dyn Placement>) {
        let _ = self.placement.set(p);
    }

    /// A running board, loaded from the store if needed; in cluster mode, the owner's handle
    /// when another node owns it.
    pub async fn get(&self, env: &Arc<Env>, id: &BoardId) -> Result<BoardHandle, StoreError> {
        // A cluster node serves no board before it has joined: it would load one it does not
        // own (its fenced writes would fail).
        if env.config.cluster && self.placement.get().is_none() {
            return Err(StoreError::Unavailable(
                "this node is joining the cluster; try again shortly".into(),
            ));
        }
        if let Some(p) = self.placement.get()
            && self.loaded(id).is_none()
            && let Place::There(remote) = p.place(id).await?
        {
            return Ok(remote);
        }
        loop {
            if self.deleting.contains_key(id) {
                return Err(StoreError::Unavailable(format!(
                    "board {id} is being deleted"
                )));
            }
            let cell: Cell = self
                .boards
                .entry(id.clone())
                .or_insert_with(|| Arc::new(OnceCell::new()))
                .clone();
            let addr = cell.get_or_try_init(|| self.load(env, id)).await?.clone();
            if addr.alive() {
                return Ok(addr);
            }
            self.boards.remove_if(id, |_, c| Arc::ptr_eq(c, &cell));
        }
    }

    /// A running board, if loaded.
    pub fn loaded(&self, id: &BoardId) -> Option<BoardHandle> {
        let cell = self.boards.get(id)?.clone();
        cell.get().filter(|a| a.alive()).cloned()
    }

    /// The running board, wherever it runs: loaded here, or (cluster mode) owned by another
    /// live node. Never loads or takes it.
    pub async fn live(&self, id: &BoardId) -> Option<BoardHandle> {
        if let Some(h) = self.loaded(id) {
            return Some(h);
        }
        self.placement.get()?.elsewhere(id).await
    }

    /// Every loaded board.
    pub fn all(&self) -> Vec<(BoardId, BoardHandle)> {
        self.boards
            .iter()
            .filter_map(|e| e.value().get().map(|a| (e.key().clone(), a.clone())))
            .collect()
    }

    /// A session was signed out here: in cluster mode, every other node is told too.
    pub fn signed_out_elsewhere(&self, session: &str) {
        if let Some(p) = self.placement.get() {
            p.signed_out(session);
        }
    }

    /// Number of loaded boards.
    pub fn len(&self) -> usize {
        self.boards.len()
    }

    /// True when no board is loaded.
    pub fn is_empty(&self) -> bool {
        self.boards.is_empty()
    }

    /// Marks a board as being deleted (joins are refused) until the guard is dropped.
    pub fn deleting(&self, id: &BoardId) -> DeleteGuard<'_> {
        self.deleting.insert(id.clone(), ());
        DeleteGuard {
            registry: self,
            id: id.clone(),
        }
    }

    /// Removes a board's entry if it still points at `board`.
    pub fn forget(&self, id: &BoardId, board: Option<&BoardHandle>) {
        let removed = self.boards.remove_if(id, |_, c| match (c.get(), board) {
            (Some(a), Some(b)) => a.same(b),
            (None, _) => false,
            (Some(_), None) => true,
        });
        // A board being deleted is not released: its delete forgets it (and a failed delete
        // releases it when the delete's guard drops).
        if removed.is_some()
            && !self.deleting.contains_key(id)
            && let Some(p) = self.placement.get()
        {
            p.released(id);
        }
    }

    /// Deletes a board this node runs or may write (DELETE /api/boards/{id}): its connections
    /// are closed (4004), its queued commands settle, then the store deletes it. True when the
    /// store had it. In cluster mode the caller has made sure this node holds it.
    pub async fn delete(&self, env: &Arc<Env>, id: &BoardId) -> Result<bool, StoreError> {
        // No join may load the board again while it is being deleted.
        let _deleting = self.deleting(id);
        if let Some(addr) = self.loaded(id) {
            // Once `CloseAll` is handled the board submits nothing more; its commands still
            // queued in the log writer are unacknowledged (their authors are being
            // disconnected). An empty submission completes after every earlier one, so none of
            // them lands after the delete. (No `Flush` here: it writes a snapshot in the
            // background, which could land after the delete and bring the board back.)
            let reason = "board deleted".to_owned();
            addr.close_all(protocol::ErrorCode::NotFound, close::DELETED, reason)
                .await;
            self.forget(id, Some(&addr));
            let (tx, rx) = tokio::sync::oneshot::channel();
            env.writer.submit(
                Vec::new(),
                Box::new(move |r| {
                    let _ = tx.send(r);
                }),
            );
            let _ = tokio::time::timeout(SETTLE_WITHIN, rx).await;
        } else if env.store.fenced() {
            // A fenced store deletes only what this node holds, and this node does not run it.
            return Ok(false);
        }
        env.store.delete_board(id).await
    }

    async fn load(&self, env: &Arc<Env>, id: &BoardId) -> Result<BoardHandle, StoreError> {
        let loaded = env.store.load(id).await?;
        let pictures = env.store.board_assets(id).await?;
        let threads = env.store.load_threads(id).await?;
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let arbiter = self
            .arbiters
            .get(n % self.arbiters.len().max(1))
            .ok_or_else(|| StoreError::Unavailable("no board arbiters".into()))?;
        let (id, env) = (id.clone(), env.clone());
        tracing::debug!(board = %id, arbiter = n % self.arbiters.len().max(1), "loading board");
        let addr = Board::start_in_arbiter(arbiter, move |_ctx| Board::new(id, loaded, env));
        // The first messages in its mailbox: no join or commit comes before them.
        addr.do_send(super::AssetsAdded {
            names: pictures.into_iter().map(|p| p.sha256).collect(),
        });
        addr.do_send(super::CommentsLoaded { threads });
        Ok(BoardHandle::new(addr))
    }
}

/// Holds a board's "being deleted" mark; dropping it clears the mark.
pub struct DeleteGuard<'a> {
    registry: &'a Registry,
    id: BoardId,
}

impl Drop for DeleteGuard<'_> {
    fn drop(&mut self) {
        self.registry.deleting.remove(&self.id);
        // A delete that failed leaves the board held here but not running: let it go (after a
        // delete that worked there is nothing left to release).
        if self.registry.loaded(&self.id).is_none()
            && let Some(p) = self.registry.placement.get()
        {
            p.released(&self.id);
        }
    }
}
