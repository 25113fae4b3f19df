//! The board actor: sole owner of one board's state. It applies commands in arrival order,
//! numbers them, hands them to the log writer, and broadcasts each `applied` only once the
//! writer reports it durable. It never awaits I/O.
//!
//! Files: `mod.rs` (state, lifecycle), `messages.rs` (what others send it), `dispatch.rs` (the
//! one exhaustive match over what a connection asks, after its role check), one file per request
//! family (`commit.rs`, `undo.rs`, `presence.rs`, `join.rs`, `access.rs`, `ai/`), `lifecycle.rs`
//! (durability completions, inspection, flush, close), `clients.rs` (outboxes, holds, eviction),
//! `users.rs` (per-user undo/redo, idempotency, presence), `durable.rs` (the durability pipeline
//! and store-failure recovery), `expiry.rs`, `history.rs`, `import.rs`.

mod access;
pub mod ai;
pub mod clients;
mod commit;
mod dispatch;
pub mod durable;
pub mod expiry;
pub mod history;
pub mod import;
mod join;
mod lifecycle;
pub mod messages;
mod presence;
mod undo;
pub mod users;

use crate::shared::Shared;
use crate::store::LoadedBoard;
use actix::prelude::*;
use axum::extract::ws::Utf8Bytes;
use protocol::{BoardId, BoardState, Change, Origin, Seq, UserId};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use ai::AiDone;
pub use clients::{Client, ConnId, Kick};
pub use messages::*;
use users::UserSession;

/// 64-bit FNV-1a: a cheap, stable hash for spreading and filtering (not for security).
pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Presence is coalesced per user and sent at most this often.
const PRESENCE_EVERY: Duration = Duration::from_millis(33);
/// A command applied to the document but not yet durable.
pub struct Pending {
    pub seq: Seq,
    /// Who the command is by (for the next version's authors).
    pub author: UserId,
    pub frame: Utf8Bytes,
    /// Shared with the author's undo entry: needed to roll back if the store fails.
    pub changes: Arc<[Change]>,
    pub origin: Origin,
    /// The connection that caused it and the client commit id, for error reports.
    pub conn: Option<ConnId>,
    pub client_id: Option<String>,
    pub started: Instant,
    /// For an AI command: its `ai_result`, sent to the requester after the `applied`.
    pub ai: Option<ai::AiFollowUp>,
}

/// One board.
pub struct Board {
    pub id: BoardId,
    pub doc: BoardState,
    /// Last seq assigned.
    pub seq: Seq,
    /// Last seq the store made durable (and so broadcast).
    pub durable: Seq,
    pub clients: HashMap<ConnId, Client>,
    /// Each joined connection's role (AUTH-5), enforced on every request in the dispatch.
    pub access: HashMap<ConnId, ConnAccess>,
    /// Local accounts whose access to this board was revoked while it was loaded: their AI
    /// commands still running are not applied.
    pub revoked: HashSet<String>,
    pub users: HashMap<UserId, UserSession>,
    /// Recent durable `applied` frames, for resume with `since`.
    pub window: VecDeque<(Seq, Utf8Bytes)>,
    /// Bytes of the frames in `window`.
    pub window_bytes: usize,
    pub pending: VecDeque<Pending>,
    /// Set after a store failure until the log is repaired; commands are refused meanwhile.
    pub recovering: bool,
    /// Commands handed to the log writer whose completion has not arrived.
    pub inflight: u64,
    /// A log repair request is outstanding.
    pub repairing: bool,
    pub shared: Arc<Shared>,
    pub since_snapshot: u64,
    pub snapshot_in_flight: bool,
    pub presence_dirty: HashSet<UserId>,
    /// A presence flush is scheduled ([`PRESENCE_EVERY`] after the first change).
    pub presence_scheduled: bool,
    pub flush_waiters: Vec<tokio::sync::oneshot::Sender<()>>,
    /// When the last connection left (None while anyone is connected).
    pub empty_since: Option<Instant>,
    /// The board as AI workers last saw it, shared until the next command.
    pub ai_snapshot: Option<(Seq, Arc<BoardState>)>,
    /// When the housekeeping tick last queued the heartbeat to every connection.
    pub last_heartbeat: Instant,
    /// What changed since the last version (HIST-2).
    pub history: history::Track,
    /// When joined connections' credentials and link roles end (AUTH-18, AUTH-20).
    pub deadlines: expiry::Deadlines,
    /// How the log writer reports this board's commands durable: one `Durable` per batch for
    /// all of them (set when the actor starts).
    durable_notify: Option<crate::store::Notify>,
    me: Option<Addr<Board>>,
}

impl Board {
    /// A board from what the store holds (or an empty one).
    pub fn new(id: BoardId, loaded: Option<LoadedBoard>, shared: Arc<Shared>) -> Self {
        let max = shared.config.max_objects;
        let mut doc;
        let mut seq = 0;
        let mut users: HashMap<UserId, UserSession> = HashMap::new();
        match loaded {
            Some(l) => {
                doc = BoardState::from_objects(l.objects, max);
                seq = l.snapshot_seq;
                for (s, cmd) in &l.tail {
                    doc.replay(&cmd.ops, *s);
                    seq = *s;
                    if let Some(cid) = &cmd.client_id {
                        users
                            .entry(cmd.author.clone())
                            .or_insert_with(|| UserSession::new(&cmd.author, ""))
                            .remember_client_id(cid.clone(), *s);
                    }
                }
                seq = seq.max(l.seq);
            }
            None => doc = BoardState::new(max),
        }
        Board {
            id,
            doc,
            seq,
            durable: seq,
            clients: HashMap::new(),
            access: HashMap::new(),
            revoked: HashSet::new(),
            users,
            window: VecDeque::new(),
            window_bytes: 0,
            pending: VecDeque::new(),
            recovering: false,
            inflight: 0,
            repairing: false,
            shared,
            since_snapshot: 0,
            snapshot_in_flight: false,
            presence_dirty: HashSet::new(),
            presence_scheduled: false,
            flush_waiters: Vec::new(),
            empty_since: Some(Instant::now()),
            ai_snapshot: None,
            last_heartbeat: Instant::now(),
            history: history::Track::default(),
            deadlines: expiry::Deadlines::default(),
            durable_notify: None,
            me: None,
        }
    }

    /// This actor's own address.
    pub fn me(&self) -> Option<&Addr<Board>> {
        self.me.as_ref()
    }

    /// In tests, checks the document and sequencing invariants after every command and counts
    /// any violation (tests assert the count stays zero).
    pub fn check(&self) {
        if !self.shared.config.check_invariants {
            return;
        }
        let seq_ok = self.durable + self.pending.len() as u64 == self.seq
            && self
                .pending
                .iter()
                .enumerate()
                .all(|(i, p)| p.seq == self.durable + 1 + i as u64);
        let res = self.doc.check_invariants().and_then(|()| {
            if seq_ok {
                Ok(())
            } else {
                Err(format!(
                    "seq not gap-free: durable {} seq {}",
                    self.durable, self.seq
                ))
            }
        });
        if let Err(e) = res {
            self.shared.record_violation(&self.id, &e);
        }
    }

    /// Sends coalesced presence [`PRESENCE_EVERY`] after the first unsent change.
    pub fn schedule_presence(&mut self, ctx: &mut Context<Self>) {
        if self.presence_scheduled || self.presence_dirty.is_empty() {
            return;
        }
        self.presence_scheduled = true;
        ctx.run_later(PRESENCE_EVERY, |act, _| {
            act.presence_scheduled = false;
            act.flush_presence();
        });
    }

    /// Periodic work: heartbeats, expired reconnect graces, idle unload.
    fn tick(&mut self, ctx: &mut Context<Self>) {
        self.heartbeat(Instant::now());
        self.expire_graces();
        self.checkpoint_if_due(false);
        let idle = self.shared.config.idle_unload();
        if let Some(since) = self.empty_since
            && since.elapsed() >= idle
            && self.pending.is_empty()
            && !self.recovering
            && !self.ai_active()
        {
            {
                tracing::info!(board = %self.id, seq = self.seq, "unloading idle board");
                self.shared.registry.forget(&self.id, self.me.as_ref());
                // What changed since the last version is kept as one (HIST-3).
                self.checkpoint_if_due(true);
                self.snapshot(true);
                ctx.stop();
            }
        }
    }

    /// Writes a snapshot of the (fully durable) state in the background.
    pub fn snapshot(&mut self, force: bool) {
        if !self.pending.is_empty() || (self.snapshot_in_flight && !force) {
            return;
        }
        if self.since_snapshot == 0 && !force {
            return;
        }
        let objects: Vec<_> = self.doc.objects().cloned().collect();
        let (store, id, seq) = (self.shared.store.clone(), self.id.clone(), self.seq);
        self.since_snapshot = 0;
        self.snapshot_in_flight = true;
        let me = self.me.clone();
        self.shared.rt.spawn(async move {
            let res = store.save_snapshot(&id, seq, &objects).await;
            if let Err(e) = &res {
                tracing::warn!(board = %id, seq, error = %e, "snapshot failed; the log still holds every command");
            }
            if let Some(me) = me {
                me.do_send(SnapshotDone);
            }
        });
    }
}

impl Actor for Board {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        self.me = Some(ctx.address());
        let me = ctx.address();
        self.durable_notify = Some(std::sync::Arc::new(move |seq, count, result| {
            // Internal completion: bounded by the number of pending commands.
            me.do_send(Durable {
                seq,
                count,
                result,
                sent: Instant::now(),
            });
        }));
        ctx.set_mailbox_capacity(1024);
        // Housekeeping only: presence flushes are scheduled when there is presence to send,
        // so a thousand quiet boards do not wake thirty times a second each.
        let every = self.shared.config.housekeeping_every();
        ctx.run_interval(every, |act, ctx| act.tick(ctx));
        self.shared.metrics.boards_loaded(1);
        tracing::debug!(board = %self.id, seq = self.seq, "board started");
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        self.shared.metrics.boards_loaded(-1);
        self.ai_stopped();
        self.shared.registry.forget(&self.id, self.me.as_ref());
    }
}
