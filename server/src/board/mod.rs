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
mod comments;
mod commit;
mod dispatch;
pub mod durable;
pub mod env;
pub mod expiry;
mod handle;
pub mod history;
pub mod import;
mod join;
mod lifecycle;
mod members;
pub mod messages;
mod pictures;
mod pipeline;
mod presence;
pub mod registry;
pub mod sweep;
mod undo;
pub mod users;

use crate::store::LoadedBoard;
use actix::prelude::*;
use protocol::{BoardId, BoardState, Seq, UserId};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use ai::AiDone;
pub use clients::Kick;
pub use comments::{CommentDone, CommentRequest, CommentsLoaded};
pub use env::{Env, Roles};
pub use handle::{BoardHandle, Gone, RemoteBoard};
pub use members::ConnId;
use members::{Member, Members};
pub use messages::*;
pub use pictures::{AssetsAdded, Held, Pictures};
use pipeline::{Pending, Pipeline, WindowCaps};
pub use registry::{Place, Placement, Registry};
use users::UserSession;

/// 64-bit FNV-1a: a cheap, stable hash for spreading and filtering (not for security).
pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Presence is coalesced per user and sent at most this often.
const PRESENCE_EVERY: Duration = Duration::from_millis(33);
/// One board.
pub struct Board {
    id: BoardId,
    doc: BoardState,
    /// Seqs, commands not yet durable, the replay window, snapshot counters, recovery.
    log: Pipeline,
    /// The joined connections: user, role (AUTH-5, enforced on every request in the
    /// dispatch), outbox and what each has seen.
    members: Members,
    users: HashMap<UserId, UserSession>,
    env: Arc<Env>,
    presence_dirty: HashSet<UserId>,
    /// A presence flush is scheduled ([`PRESENCE_EVERY`] after the first change).
    presence_scheduled: bool,
    flush_waiters: Vec<tokio::sync::oneshot::Sender<()>>,
    /// When the last connection left (None while anyone is connected).
    empty_since: Option<Instant>,
    /// The board as AI workers last saw it, shared until the next command.
    ai_snapshot: Option<(Seq, Arc<BoardState>)>,
    /// When the housekeeping tick last queued the heartbeat to every connection.
    last_heartbeat: Instant,
    /// What changed since the last version (HIST-2).
    history: history::Track,
    /// The pictures this board may show (`pictures.rs`).
    assets: HashSet<String>,
    /// Who leads the view: the presenter, recent summons (`presence.rs`).
    stage: presence::Stage,
    /// When joined connections' credentials and link roles end (AUTH-18, AUTH-20).
    deadlines: expiry::Deadlines,
    /// How the log writer reports this board's commands durable: one `Durable` per batch for
    /// all of them (set when the actor starts).
    durable_notify: Option<crate::store::Notify>,
    /// The comment threads and their writes (`comments/`), never in the log.
    comments: comments::Comments,
    me: Option<Addr<Board>>,
}

impl Board {
    /// A board from what the store holds (or an empty one).
    pub fn new(id: BoardId, loaded: Option<LoadedBoard>, env: Arc<Env>) -> Self {
        let max = env.config.max_objects;
        let mut doc;
        let mut seq = 0;
        let mut users: HashMap<UserId, UserSession> = HashMap::new();
        // The commands the log still holds: behind the snapshot, then the tail.
        let mut recent = Vec::new();
        // Objects the tail deletes, as they were: threads still pinned to one are moved to
        // where their pin was once the threads are loaded (a crash can come between a
        // deletion's commit and its threads' move, COMMENT-5).
        let mut gone = Vec::new();
        match loaded {
            Some(l) => {
                doc = BoardState::from_objects(l.objects, max);
                seq = l.snapshot_seq;
                for (s, cmd) in &l.tail {
                    // Op by op, so a deleted object is kept as the command's earlier ops left it.
                    for op in &cmd.ops {
                        if let protocol::Op::Delete { id } = op
                            && let Some(o) = doc.get(id.as_str())
                        {
                            gone.push(o.clone());
                        }
                        doc.replay(std::slice::from_ref(op), *s);
                    }
                    seq = *s;
                }
                seq = seq.max(l.seq);
                recent = l.behind;
                recent.extend(l.tail);
            }
            None => doc = BoardState::new(max),
        }
        // A commit re-sent after a restart or a takeover is acknowledged, not applied again.
        for (s, cmd) in &recent {
            if let Some(cid) = &cmd.client_id {
                users
                    .entry(cmd.author.clone())
                    .or_insert_with(|| UserSession::new(&cmd.author, ""))
                    .remember_client_id(cid.clone(), *s);
            }
        }
        let mut board = Board {
            id,
            doc,
            log: Pipeline::new(seq),
            members: Members::default(),
            users,
            env,
            presence_dirty: HashSet::new(),
            presence_scheduled: false,
            flush_waiters: Vec::new(),
            empty_since: Some(Instant::now()),
            ai_snapshot: None,
            last_heartbeat: Instant::now(),
            history: history::Track::default(),
            assets: HashSet::new(),
            stage: presence::Stage::default(),
            deadlines: expiry::Deadlines::default(),
            durable_notify: None,
            comments: comments::Comments::deleted_before_load(gone),
            me: None,
        };
        board.recall(&recent);
        board
    }

    /// Fills the replay window with the `applied` frames of the commands the log still holds,
    /// so a client resumes with `since` after a restart or a takeover without a whole welcome.
    fn recall(&mut self, recent: &[(Seq, protocol::Command)]) {
        let caps = self.window_caps();
        for (s, cmd) in recent {
            let (frame, _) = clients::frame_applied(*s, cmd);
            self.log.remember(*s, frame, caps);
        }
    }

    /// This actor's own address.
    pub fn me(&self) -> Option<&Addr<Board>> {
        self.me.as_ref()
    }

    /// Takes this board out of the registry (if the entry is still this board's).
    fn leave_registry(&self) {
        let me = self.me.clone().map(BoardHandle::new);
        self.env.registry.forget(&self.id, me.as_ref());
    }

    /// In tests, checks the document and sequencing invariants after every command and counts
    /// any violation (tests assert the count stays zero).
    pub fn check(&self) {
        if !self.env.config.check_invariants {
            return;
        }
        let res = self.doc.check_invariants().and_then(|()| {
            if self.log.gap_free() {
                Ok(())
            } else {
                Err(format!(
                    "seq not gap-free: durable {} seq {}",
                    self.log.durable(),
                    self.log.seq()
                ))
            }
        });
        if let Err(e) = res {
            self.env.record_violation(&self.id, &e);
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
        let idle = self.env.config.idle_unload();
        if let Some(since) = self.empty_since
            && since.elapsed() >= idle
            && self.log.settled()
            && self.comments.settled()
            && !self.ai_active()
        {
            {
                tracing::info!(board = %self.id, seq = self.log.seq(), "unloading idle board");
                self.leave_registry();
                // What changed since the last version is kept as one (HIST-3).
                self.checkpoint_if_due(true);
                self.snapshot(true);
                ctx.stop();
            }
        }
    }

    /// Writes a snapshot of the (fully durable) state in the background.
    pub fn snapshot(&mut self, force: bool) {
        if !self.log.begin_snapshot(force) {
            return;
        }
        let objects: Vec<_> = self.doc.objects().cloned().collect();
        let (store, id, seq) = (self.env.store.clone(), self.id.clone(), self.log.seq());
        let me = self.me.clone();
        self.env.rt.spawn(async move {
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
        let every = self.env.config.housekeeping_every();
        ctx.run_interval(every, |act, ctx| act.tick(ctx));
        self.env.metrics.boards_loaded(1);
        self.check_unversioned(ctx);
        tracing::debug!(board = %self.id, seq = self.log.seq(), "board started");
    }

    fn stopped(&mut self, _ctx: &mut Self::Context) {
        self.env.metrics.boards_loaded(-1);
        self.ai_stopped();
        self.leave_registry();
    }
}
