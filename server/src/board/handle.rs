//! `BoardHandle`: the only way anything outside `board/` reaches a board. Sockets join, leave and
//! send through it; HTTP routes and the server inspect, flush, retitle, close, restore, import and
//! save versions through it. It wraps the actor's local address, or, in cluster mode, a board
//! another node owns ([`RemoteBoard`], implemented by `cluster`): the callers cannot tell.

use super::comments::CommentRequest;
use super::history::{Restore, SaveVersion};
use super::import::{Import, Imported};
use super::{
    Board, CloseAll, ConnId, Flush, FromClient, Inspect, Inspection, Join, Leave, Retitle,
    SessionEnded, SetRole, ShuttingDown,
};
use actix::prelude::*;
use futures_util::future::BoxFuture;
use protocol::{ClientMsg, ErrorBody, ErrorCode, UserView};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A board owned by another node, reached through the cluster's relay. A board that cannot be
/// reached answers [`Gone`].
pub trait RemoteBoard: Send + Sync {
    fn join(&self, join: Join) -> BoxFuture<'_, Result<Result<UserView, ErrorBody>, Gone>>;
    fn leave(&self, conn: ConnId);
    /// A client message, as the client sent it (checked at the edge already).
    fn send(&self, conn: ConnId, text: bytes::Bytes) -> BoxFuture<'_, Result<(), Gone>>;
    /// Whether its owner is still believed alive.
    fn alive(&self) -> bool;
    fn inspect(&self) -> BoxFuture<'_, Result<Inspection, Gone>>;
    fn flush(&self, within: Duration) -> BoxFuture<'_, bool>;
    fn retitle(&self, title: String) -> BoxFuture<'_, ()>;
    fn close_all(&self, error: ErrorCode, code: u16, reason: String) -> BoxFuture<'_, ()>;
    fn import(&self, import: Import) -> BoxFuture<'_, Result<Result<Imported, ErrorBody>, Gone>>;
    /// Answers on the request's channel, as a local board does.
    fn save_version(&self, save: SaveVersion) -> BoxFuture<'_, Result<(), Gone>>;
    /// Answers on the request's channel; the owner reads the version's objects itself.
    fn restore(&self, restore: Restore) -> BoxFuture<'_, Result<(), Gone>>;
    fn set_role(&self, set: SetRole) -> BoxFuture<'_, ()>;
    /// Deletes the board on its owner (see `Registry::delete`); true when the store had it.
    fn delete(&self) -> BoxFuture<'_, Result<bool, Gone>>;
    /// Pictures registered on the board (ASSET-7).
    fn assets_added(&self, names: Vec<String>) -> BoxFuture<'_, ()>;
    /// The pictures the board holds; forgets those of `forget` it does not (ASSET-11).
    fn pictures(&self, forget: Vec<String>) -> BoxFuture<'_, Result<super::Held, Gone>>;
    /// A comment request of an HTTP route (COMMENT-7); answers on the request's channel.
    fn comment(&self, req: CommentRequest) -> BoxFuture<'_, Result<(), Gone>>;
}

/// A loaded board.
#[derive(Clone)]
pub struct BoardHandle {
    addr: At,
}

#[derive(Clone)]
enum At {
    Local(Addr<Board>),
    Remote(Arc<dyn RemoteBoard>),
}

/// The board stopped before it answered (it unloaded, was deleted, or the server stops).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gone;

impl BoardHandle {
    pub(super) fn new(addr: Addr<Board>) -> BoardHandle {
        BoardHandle {
            addr: At::Local(addr),
        }
    }

    /// A board owned by another node.
    pub fn remote(board: Arc<dyn RemoteBoard>) -> BoardHandle {
        BoardHandle {
            addr: At::Remote(board),
        }
    }

    /// The local actor, for what only a local board does; `Gone` for a remote one.
    fn local(&self) -> Result<&Addr<Board>, Gone> {
        match &self.addr {
            At::Local(a) => Ok(a),
            At::Remote(_) => Err(Gone),
        }
    }

    /// Whether the board is owned by another node.
    pub fn is_remote(&self) -> bool {
        matches!(self.addr, At::Remote(_))
    }

    /// Whether the board is still running.
    pub fn alive(&self) -> bool {
        match &self.addr {
            At::Local(a) => a.connected(),
            At::Remote(r) => r.alive(),
        }
    }

    /// Whether two handles reach the same running board.
    pub fn same(&self, other: &BoardHandle) -> bool {
        match (&self.addr, &other.addr) {
            (At::Local(a), At::Local(b)) => a == b,
            (At::Remote(a), At::Remote(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// Joins a connection after its `hello`: the board queues `welcome` (and any replay) into
    /// the join's outbox before it answers.
    pub async fn join(&self, join: Join) -> Result<Result<UserView, ErrorBody>, Gone> {
        match &self.addr {
            At::Local(a) => a.send(join).await.map_err(|_| Gone),
            At::Remote(r) => r.join(join).await,
        }
    }

    /// A connection went away.
    pub fn leave(&self, conn: ConnId) {
        match &self.addr {
            At::Local(a) => a.do_send(Leave { conn }),
            At::Remote(r) => r.leave(conn),
        }
    }

    /// Hands a joined connection's checked message to the board: into its bounded mailbox
    /// without waiting for the handler, or, with the mailbox full, waiting for room
    /// (back-pressure on that socket's reads) rather than queueing without bound.
    pub async fn send(&self, conn: ConnId, msg: ClientMsg) -> Result<(), Gone> {
        let addr = self.local()?;
        let msg = FromClient {
            conn,
            msg,
            received: Instant::now(),
        };
        match addr.try_send(msg) {
            Ok(()) => Ok(()),
            Err(SendError::Full(msg)) => addr.send(msg).await.map_err(|_| Gone),
            Err(SendError::Closed(_)) => Err(Gone),
        }
    }

    /// Relays a checked client message, as the client sent it, to a board another node owns.
    pub async fn relay(&self, conn: ConnId, text: bytes::Bytes) -> Result<(), Gone> {
        match &self.addr {
            At::Remote(r) => r.send(conn, text).await,
            At::Local(_) => Err(Gone),
        }
    }

    /// The board's state now: seq, what is durable, objects, connections, invariants.
    pub async fn inspect(&self) -> Result<Inspection, Gone> {
        match &self.addr {
            At::Local(a) => a.send(Inspect).await.map_err(|_| Gone),
            At::Remote(r) => r.inspect().await,
        }
    }

    /// Resolves once every command applied so far is durable (the board then writes a
    /// snapshot), when the board stops, or after `within`; true when it was made durable.
    pub async fn flush(&self, within: Duration) -> bool {
        let addr = match &self.addr {
            At::Local(a) => a,
            At::Remote(r) => return r.flush(within).await,
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        if addr.send(Flush { done: tx }).await.is_err() {
            return false;
        }
        matches!(tokio::time::timeout(within, rx).await, Ok(Ok(())))
    }

    /// The board's durable state: inspected, and if it holds commands not yet durable, flushed
    /// (within `within`) and inspected again. None when it cannot be had from the board.
    pub async fn inspect_durable(&self, within: Duration) -> Option<Inspection> {
        let first = self.inspect().await.ok()?;
        if first.seq == first.durable {
            return Some(first);
        }
        self.flush(within).await;
        let second = self.inspect().await.ok()?;
        (second.seq == second.durable).then_some(second)
    }

    /// Everyone on the board gets `title_changed`.
    pub async fn retitle(&self, title: String) {
        match &self.addr {
            At::Local(a) => drop(a.send(Retitle { title }).await),
            At::Remote(r) => r.retitle(title).await,
        }
    }

    /// Closes every connection with `error` and close `code`, and stops the board.
    pub async fn close_all(&self, error: ErrorCode, code: u16, reason: String) {
        let addr = match &self.addr {
            At::Local(a) => a,
            At::Remote(r) => return r.close_all(error, code, reason).await,
        };
        let _ = addr
            .send(CloseAll {
                error,
                code,
                reason,
            })
            .await;
    }

    /// The server stops: every connection is closed with 1001 (LIVE-3).
    pub fn shutting_down(&self) {
        if let Ok(a) = self.local() {
            a.do_send(ShuttingDown);
        }
    }

    /// A local account's stored role changed (AUTH-12, AUTH-20).
    pub async fn set_role(&self, set: SetRole) {
        match &self.addr {
            At::Local(a) => drop(a.send(set).await),
            At::Remote(r) => r.set_role(set).await,
        }
    }

    /// A session signed out: its connections close with 4001 (AUTH-19). A board another node
    /// owns hears of it from that node (`Placement::signed_out`).
    pub async fn session_ended(&self, session: String) {
        if let Ok(a) = self.local() {
            let _ = a.send(SessionEnded { session }).await;
        }
    }

    /// Pictures were registered on the board: it may show them now. Answered once it knows.
    pub async fn assets_added(&self, names: Vec<String>) {
        match &self.addr {
            At::Local(a) => drop(a.send(super::AssetsAdded { names }).await),
            At::Remote(r) => r.assets_added(names).await,
        }
    }

    /// The pictures the board holds (objects, undo and redo history); of `forget`, those it
    /// does not hold are forgotten in the same turn (ASSET-11).
    pub async fn pictures(&self, forget: Vec<String>) -> Result<super::Held, Gone> {
        match &self.addr {
            At::Local(a) => a.send(super::Pictures { forget }).await.map_err(|_| Gone),
            At::Remote(r) => r.pictures(forget).await,
        }
    }

    /// Deletes a board another node runs, there (a board running here is deleted through
    /// `Registry::delete`); true when the store had it.
    pub async fn delete(&self) -> Result<bool, Gone> {
        match &self.addr {
            At::Remote(r) => r.delete().await,
            At::Local(_) => Err(Gone),
        }
    }

    /// Asks the board for a comment change (COMMENT-7); the answer comes on the request's
    /// channel once the change is durable, or refused.
    pub async fn comment(&self, req: CommentRequest) -> Result<(), Gone> {
        match &self.addr {
            At::Local(a) => a.send(req).await.map_err(|_| Gone),
            At::Remote(r) => r.comment(req).await,
        }
    }

    /// Imports a board file's objects as one undoable command.
    pub async fn import(&self, import: Import) -> Result<Result<Imported, ErrorBody>, Gone> {
        match &self.addr {
            At::Local(a) => a.send(import).await.map_err(|_| Gone),
            At::Remote(r) => r.import(import).await,
        }
    }

    /// Asks the board to save a named version; the answer comes on the request's channel.
    pub async fn save_version(&self, save: SaveVersion) -> Result<(), Gone> {
        match &self.addr {
            At::Local(a) => a.send(save).await.map_err(|_| Gone),
            At::Remote(r) => r.save_version(save).await,
        }
    }

    /// Asks the board to restore a version as one command; the answer comes on its channel.
    pub async fn restore(&self, restore: Restore) -> Result<(), Gone> {
        match &self.addr {
            At::Local(a) => a.send(restore).await.map_err(|_| Gone),
            At::Remote(r) => r.restore(restore).await,
        }
    }
}
