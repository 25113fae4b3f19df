//! Messages a board actor accepts.

use super::clients::Kick;
use super::members::ConnId;
use crate::store::StoreError;
use actix::prelude::*;
use axum::extract::ws::Utf8Bytes;
use protocol::{BoardObject, ErrorBody, Seq, UserInfo, UserView};
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// A connection joins after its `hello`. The board writes `welcome` (and any replay) into `tx`
/// before answering, so ordering needs no extra lock.
#[derive(Message)]
#[rtype(result = "Result<UserView, ErrorBody>")]
pub struct Join {
    pub conn: ConnId,
    pub user: UserInfo,
    pub since: Option<Seq>,
    /// Replays, after the welcome, the comment threads changed after this comment seq.
    pub comments_since: Option<protocol::Cseq>,
    pub tx: mpsc::Sender<Utf8Bytes>,
    pub kick: Arc<Kick>,
    /// The connection's role and what bounds it (AUTH-5).
    pub access: ConnAccess,
    /// The board's title, for the welcome.
    pub title: String,
}

/// A joined connection's standing on the board (relayed as it is to a board's owner in
/// cluster mode).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ConnAccess {
    pub role: protocol::Role,
    /// The most a change of the stored role may give (a token's role, or owner).
    pub cap: protocol::Role,
    /// The local account whose stored role bounds the connection (see [`SetRole`]).
    pub local: Option<String>,
    /// The session the credential depends on (a session cookie, or a token minted from one):
    /// signing it out closes the connection with 4001 ([`SessionEnded`], AUTH-19).
    pub session: Option<String>,
    /// When the credential ends (unix seconds: a token's `exp`, a session's end): the board
    /// closes the connection with 4001 then (AUTH-18).
    pub expires_at: Option<i64>,
    /// When the stored role ends by itself (a share link's expiry): the board asks for the role
    /// again then, so the connection is downgraded or closed (AUTH-20).
    pub until: Option<i64>,
}

/// The board was renamed: everyone on it gets `title_changed`.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Retitle {
    pub title: String,
}

/// A local account's stored role on this board changed (a member's role set or removed, a
/// link revoked or expired): its connections take `min(cap, role)`, and with no role they are
/// closed with 4003 and `why` (AUTH-12, AUTH-20).
#[derive(Message)]
#[rtype(result = "()")]
pub struct SetRole {
    pub user: String,
    pub role: Option<protocol::Role>,
    /// When the new role ends by itself (a share link's expiry), if it does.
    pub until: Option<i64>,
    pub why: &'static str,
}

/// A session was signed out: connections whose credential depends on it are closed with 4001
/// (AUTH-19).
#[derive(Message)]
#[rtype(result = "()")]
pub struct SessionEnded {
    /// The session's stored hash.
    pub session: String,
}

/// A connection went away.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Leave {
    pub conn: ConnId,
}

/// A message from a joined connection, as the protocol decoded it and the connection checked it
/// at the edge (`connection::at_the_edge`), in an envelope naming the connection.
#[derive(Message)]
#[rtype(result = "()")]
pub struct FromClient {
    pub conn: ConnId,
    pub msg: protocol::ClientMsg,
    pub received: std::time::Instant,
}

/// The log writer finished the board's commands up to `seq`: `count` submissions (one per
/// command), all with `result`.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Durable {
    pub seq: Seq,
    pub count: u64,
    pub result: Result<(), StoreError>,
    /// When the writer reported it: the board's `board_durable_wait_seconds` runs from here.
    pub sent: std::time::Instant,
}

/// The store repaired the log after a failure (or could not yet).
#[derive(Message)]
#[rtype(result = "()")]
pub struct Repaired {
    pub result: Result<(), StoreError>,
}

/// A background snapshot finished.
#[derive(Message)]
#[rtype(result = "()")]
pub struct SnapshotDone;

/// A read-only view of the board, for the HTTP API, shutdown and tests.
#[derive(Message)]
#[rtype(result = "Inspection")]
pub struct Inspect;

/// What [`Inspect`] returns.
#[derive(Debug, Clone)]
pub struct Inspection {
    pub seq: Seq,
    pub durable: Seq,
    pub objects: Vec<BoardObject>,
    pub clients: usize,
    pub invariants: Result<(), String>,
}

/// Resolves once every command applied so far is durable; then writes a snapshot.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Flush {
    pub done: oneshot::Sender<()>,
}

/// Close every connection (server shutdown or board deletion) and stop.
#[derive(Message)]
#[rtype(result = "()")]
pub struct CloseAll {
    /// The `error` code sent before the close frame (e.g. `not_found` for a deleted board).
    pub error: protocol::ErrorCode,
    pub code: u16,
    pub reason: String,
}

/// The server is shutting down: every connection is closed with 1001 (LIVE-3). The board stays
/// until it is flushed.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ShuttingDown;
