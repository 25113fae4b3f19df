//! `BoardHandle`: the only way anything outside `board/` reaches a board. Sockets join, leave and
//! send through it; HTTP routes and the server inspect, flush, retitle, close, restore, import and
//! save versions through it. Today it wraps the actor's local address; a board owned by another
//! process would stand behind the same methods.

use super::history::{Restore, SaveVersion};
use super::import::{Import, Imported};
use super::{
    Board, CloseAll, ConnId, Flush, FromClient, Inspect, Inspection, Join, Leave, Retitle,
    SessionEnded, SetRole, ShuttingDown,
};
use actix::prelude::*;
use protocol::{ClientMsg, ErrorBody, ErrorCode, UserView};
use std::time::{Duration, Instant};

/// A loaded board.
#[derive(Clone)]
pub struct BoardHandle {
    addr: Addr<Board>,
}

/// The board stopped before it answered (it unloaded, was deleted, or the server stops).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gone;

impl BoardHandle {
    pub(super) fn new(addr: Addr<Board>) -> BoardHandle {
        BoardHandle { addr }
    }

    /// Whether the board is still running.
    pub fn alive(&self) -> bool {
        self.addr.connected()
    }

    /// Whether two handles reach the same running board.
    pub fn same(&self, other: &BoardHandle) -> bool {
        self.addr == other.addr
    }

    /// Joins a connection after its `hello`: the board queues `welcome` (and any replay) into
    /// the join's outbox before it answers.
    pub async fn join(&self, join: Join) -> Result<Result<UserView, ErrorBody>, Gone> {
        self.addr.send(join).await.map_err(|_| Gone)
    }

    /// A connection went away.
    pub fn leave(&self, conn: ConnId) {
        self.addr.do_send(Leave { conn });
    }

    /// Hands a joined connection's checked message to the board: into its bounded mailbox
    /// without waiting for the handler, or, with the mailbox full, waiting for room
    /// (back-pressure on that socket's reads) rather than queueing without bound.
    pub async fn send(&self, conn: ConnId, msg: ClientMsg) -> Result<(), Gone> {
        let msg = FromClient {
            conn,
            msg,
            received: Instant::now(),
        };
        match self.addr.try_send(msg) {
            Ok(()) => Ok(()),
            Err(SendError::Full(msg)) => self.addr.send(msg).await.map_err(|_| Gone),
            Err(SendError::Closed(_)) => Err(Gone),
        }
    }

    /// The board's state now: seq, what is durable, objects, connections, invariants.
    pub async fn inspect(&self) -> Result<Inspection, Gone> {
        self.addr.send(Inspect).await.map_err(|_| Gone)
    }

    /// Resolves once every command applied so far is durable (the board then writes a
    /// snapshot), when the board stops, or after `within`; true when it was made durable.
    pub async fn flush(&self, within: Duration) -> bool {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.addr.send(Flush { done: tx }).await.is_err() {
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
        let _ = self.addr.send(Retitle { title }).await;
    }

    /// Closes every connection with `error` and close `code`, and stops the board.
    pub async fn close_all(&self, error: ErrorCode, code: u16, reason: String) {
        let _ = self
            .addr
            .send(CloseAll {
                error,
                code,
                reason,
            })
            .await;
    }

    /// The server stops: every connection is closed with 1001 (LIVE-3).
    pub fn shutting_down(&self) {
        self.addr.do_send(ShuttingDown);
    }

    /// A local account's stored role changed (AUTH-12, AUTH-20).
    pub async fn set_role(&self, set: SetRole) {
        let _ = self.addr.send(set).await;
    }

    /// A session signed out: its connections close with 4001 (AUTH-19).
    pub async fn session_ended(&self, session: String) {
        let _ = self.addr.send(SessionEnded { session }).await;
    }

    /// Imports a board file's objects as one undoable command.
    pub async fn import(&self, import: Import) -> Result<Result<Imported, ErrorBody>, Gone> {
        self.addr.send(import).await.map_err(|_| Gone)
    }

    /// Asks the board to save a named version; the answer comes on the request's channel.
    pub async fn save_version(&self, save: SaveVersion) -> Result<(), Gone> {
        self.addr.send(save).await.map_err(|_| Gone)
    }

    /// Asks the board to restore a version as one command; the answer comes on its channel.
    pub async fn restore(&self, restore: Restore) -> Result<(), Gone> {
        self.addr.send(restore).await.map_err(|_| Gone)
    }
}
