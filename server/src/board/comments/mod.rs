//! The board's comment lane (COMMENT-n), beside its commands and never among them: not in the
//! log, undo, versions or the agent's context. `lane.rs` holds the threads and the rules of each
//! change; here the actor checks mentions, hands each change to the store one at a time (so the
//! stored rows and the comment seq move in order), and only once it is durable sends
//! `comments_changed` to everyone and answers the requester (`ack`, or the HTTP route's
//! channel). Objects deleted by any command turn their threads into point anchors in the same
//! turn; a command that brings an object back pins them to it again.

mod lane;

pub use lane::{Actor, Lane};

use super::clients::frame;
use super::{Board, ConnId};
use crate::store::StoreError;
use crate::store::comments::StoredThread;
use actix::prelude::*;
use axum::extract::ws::Utf8Bytes;
use lane::{Change, Outcome};
use protocol::comments::{WELCOME_THREADS, mentions};
use protocol::{
    BoardObject, CommentOp, Cseq, ErrorBody, ErrorCode, Seq, ServerMsg, Thread, UserId,
};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use tokio::sync::oneshot;

/// What a comment request came to: the thread as it is after it, the comment seq of its change
/// (None when nothing changed) and the comment it made or touched.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CommentDone {
    pub cseq: Option<Cseq>,
    pub thread: Thread,
    pub comment: Option<String>,
}

/// A comment request from an HTTP route (`POST …/threads` and the rest): answered on `done`
/// once the change is durable (or refused).
#[derive(Message)]
#[rtype(result = "()")]
pub struct CommentRequest {
    pub by: UserId,
    pub role: protocol::Role,
    pub op: CommentOp,
    pub done: oneshot::Sender<Result<CommentDone, ErrorBody>>,
}

/// The board's stored threads, the first message after it starts.
#[derive(Message)]
#[rtype(result = "()")]
pub struct CommentsLoaded {
    pub threads: Vec<StoredThread>,
}

/// Whom a change answers.
enum Answer {
    Conn(ConnId, String),
    Http(oneshot::Sender<Result<CommentDone, ErrorBody>>),
    /// A change the board made itself (an object deleted or back).
    Nobody,
}

struct Write {
    change: Change,
    answer: Answer,
    /// The command that made the change (its seq; 0: none): its `comments_changed` waits until
    /// that command's `applied` went out.
    after: Seq,
}

/// The lane and its writes.
#[derive(Default)]
pub struct Comments {
    lane: Lane,
    /// Changes waiting for the store, the first one being written.
    queue: VecDeque<Write>,
    writing: bool,
    /// `comments_changed` frames waiting for the command that caused them to be durable.
    held: Vec<(Seq, Utf8Bytes)>,
    /// Whether a request's mentions are being checked; requests behind it wait in `checks`, so
    /// requests are applied in the order they came (COMMENT-3).
    checking: bool,
    checks: VecDeque<(Actor, CommentOp, Answer)>,
    /// Objects the log's tail deleted, as they were, until the threads are loaded.
    deleted: Vec<BoardObject>,
}

impl Comments {
    /// The lane of a board whose log's tail deleted these objects.
    pub fn deleted_before_load(deleted: Vec<BoardObject>) -> Comments {
        Comments {
            deleted,
            ..Comments::default()
        }
    }

    /// Whether no change waits for the store, its command or a mention check.
    pub fn settled(&self) -> bool {
        self.queue.is_empty() && self.held.is_empty() && !self.checking
    }
}

/// How long the board waits before writing its own comment changes again after the store
/// failed them.
const RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// The store finished the first queued write.
#[derive(Message)]
#[rtype(result = "()")]
struct Written {
    result: Result<(), StoreError>,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

impl Handler<CommentsLoaded> for Board {
    type Result = ();

    fn handle(&mut self, msg: CommentsLoaded, _ctx: &mut Context<Self>) {
        self.comments.lane = Lane::load(msg.threads);
        // Threads still pinned to an object the log deleted: a crash came before their move.
        let mut gone = std::mem::take(&mut self.comments.deleted);
        gone.retain(|o| self.doc.get(o.id.as_str()).is_none());
        self.comments_follow(std::iter::empty(), gone.iter(), 0);
    }
}

impl Handler<CommentRequest> for Board {
    type Result = ();

    fn handle(&mut self, msg: CommentRequest, ctx: &mut Context<Self>) {
        let who = Actor {
            user: msg.by,
            role: msg.role,
        };
        self.comment(who, msg.op, Answer::Http(msg.done), ctx);
    }
}

impl Board {
    /// A comment message from a joined connection.
    pub(super) fn comment_from(
        &mut self,
        conn: ConnId,
        who: Actor,
        id: String,
        op: CommentOp,
        ctx: &mut Context<Self>,
    ) {
        self.comment(who, op, Answer::Conn(conn, id), ctx);
    }

    /// Checks the mentions of a request (only people with a role on the board), then applies it;
    /// behind a request whose check is under way, it waits its turn.
    fn comment(&mut self, who: Actor, op: CommentOp, answer: Answer, ctx: &mut Context<Self>) {
        if self.comments.checking {
            self.comments.checks.push_back((who, op, answer));
            return;
        }
        let unknown: Vec<UserId> = op
            .body()
            .map(mentions)
            .unwrap_or_default()
            .into_iter()
            .filter(|u| !self.users.contains_key(u) && !self.comments.lane.wrote(u))
            .collect();
        if unknown.is_empty() || who.role < protocol::Role::Commenter {
            self.comment_apply(who, op, answer);
            return;
        }
        let env = self.env.clone();
        let board = self.id.to_string();
        let check = async move {
            for u in &unknown {
                if env.roles.has_role(&env, &board, u.as_str()).await != Some(true) {
                    return Err(u.clone());
                }
            }
            Ok(())
        };
        self.comments.checking = true;
        let then = actix::fut::wrap_future::<_, Self>(check).map(move |checked, act, ctx| {
            match checked {
                Ok(()) => act.comment_apply(who, op, answer),
                Err(u) => act.answer(
                    answer,
                    Err(ErrorBody::new(
                        ErrorCode::Invalid,
                        format!("@{u} has no role on this board"),
                    )),
                ),
            }
            act.comments.checking = false;
            while !act.comments.checking
                && let Some((who, op, answer)) = act.comments.checks.pop_front()
            {
                act.comment(who, op, answer, ctx);
            }
        });
        ctx.spawn(then);
    }

    fn comment_apply(&mut self, who: Actor, op: CommentOp, answer: Answer) {
        let board = self.id.to_string();
        let doc = &self.doc;
        let out = self
            .comments
            .lane
            .apply(&board, &who, op, |id| doc.get(id).is_some(), now_ms());
        match out {
            Err(e) => self.answer(answer, Err(e)),
            Ok(Outcome::Unchanged(thread, comment)) => self.answer(
                answer,
                Ok(CommentDone {
                    cseq: None,
                    thread,
                    comment,
                }),
            ),
            Ok(Outcome::Changed(change)) => self.queue_write(change, answer, 0),
        }
    }

    fn answer(&mut self, answer: Answer, r: Result<CommentDone, ErrorBody>) {
        match answer {
            Answer::Http(done) => drop(done.send(r)),
            Answer::Nobody => {}
            Answer::Conn(conn, id) => {
                let msg = match r {
                    Ok(d) => ServerMsg::Ack {
                        id,
                        seq: self.log.durable(),
                        cseq: d.cseq,
                        thread: Some(d.thread.id),
                        comment: d.comment,
                    },
                    Err(error) => {
                        self.env.metrics.error_sent(error.code);
                        ServerMsg::Rejected { id, error }
                    }
                };
                self.send_to(conn, &msg);
            }
        }
    }

    fn queue_write(&mut self, change: Change, answer: Answer, after: Seq) {
        let w = Write {
            change,
            answer,
            after,
        };
        self.comments.queue.push_back(w);
        self.next_comment_write();
    }

    /// Sends the held `comments_changed` whose commands are durable now (`all`: every one, when
    /// those commands are rolled back: the changes that follow the rollback come after them).
    pub(super) fn release_comment_frames(&mut self, all: bool) {
        let durable = if all { Seq::MAX } else { self.log.durable() };
        if self.comments.held.is_empty() {
            return;
        }
        let held = std::mem::take(&mut self.comments.held);
        let (ready, wait): (Vec<_>, Vec<_>) = held.into_iter().partition(|(s, _)| *s <= durable);
        self.comments.held = wait;
        for (_, f) in ready {
            self.broadcast_others(None, &f);
        }
    }

    /// Hands the first queued change to the store, unless one is being written.
    fn next_comment_write(&mut self) {
        if self.comments.writing {
            return;
        }
        let Some(w) = self.comments.queue.front() else {
            return;
        };
        self.comments.writing = true;
        let (store, id) = (self.env.store.clone(), self.id.clone());
        let (thread, notes) = (w.change.thread.clone(), w.change.notes.clone());
        let me = self.me().cloned();
        self.env.rt.spawn(async move {
            let result = store.save_thread(&id, &thread, notes).await;
            if let Some(me) = me {
                me.do_send(Written { result });
            }
        });
    }

    /// The store failed the first queued change: requests are refused (those queued behind it
    /// too, COMMENT-5). The board's own changes (threads following their objects) refuse no one
    /// and must not be lost, or a thread would stay pinned to an object that is gone: they are
    /// made again on the durable threads and written after a pause.
    fn comment_write_failed(&mut self, first: Write, e: &StoreError, ctx: &mut Context<Self>) {
        tracing::warn!(board = %self.id, error = %e, "comment not stored; requests refused, the board's own changes retried");
        self.comments.lane.failed();
        let public = ErrorBody::new(e.code(), e.public_message());
        let queued: Vec<Write> = std::iter::once(first)
            .chain(self.comments.queue.drain(..))
            .collect();
        for w in queued {
            match w.answer {
                Answer::Nobody => {
                    if let Some(change) = self.comments.lane.repin(&w.change.thread) {
                        let after = w.after;
                        let answer = Answer::Nobody;
                        self.comments.queue.push_back(Write {
                            change,
                            answer,
                            after,
                        });
                    }
                }
                answer => self.answer(answer, Err(public.clone())),
            }
        }
        if !self.comments.queue.is_empty() {
            self.comments.writing = true;
            ctx.run_later(RETRY_AFTER, |act, _| {
                act.comments.writing = false;
                act.next_comment_write();
            });
        }
    }

    /// Objects deleted or back by command `after` (0: the rollback of commands): their threads
    /// follow, and everyone hears of it once that command's `applied` went out.
    pub(super) fn comments_follow<'a>(
        &mut self,
        created: impl Iterator<Item = &'a BoardObject>,
        deleted: impl Iterator<Item = &'a BoardObject>,
        after: Seq,
    ) {
        for change in self.comments.lane.follow(created, deleted) {
            self.queue_write(change, Answer::Nobody, after);
        }
    }

    /// How many open threads are pinned to each object, for the agent's context (CTX-6).
    pub(super) fn open_threads(&self) -> std::collections::HashMap<protocol::ObjectId, u32> {
        self.comments.lane.open_on_objects()
    }

    /// The welcome's comment fields: the durable comment seq, the open threads (capped) and
    /// whether they were cut.
    pub(super) fn welcome_threads(&self) -> (Cseq, Vec<Thread>, bool) {
        let (threads, cut) = self.comments.lane.open(WELCOME_THREADS);
        (self.comments.lane.durable_cseq(), threads, cut)
    }

    /// `comments_changed` frames of every durable thread changed after `since`, in order, a
    /// few threads a frame.
    pub(super) fn comments_since(&self, since: Cseq) -> Vec<Utf8Bytes> {
        let changed = self.comments.lane.since(since);
        changed
            .chunks(20)
            .map(|part| {
                frame(&ServerMsg::CommentsChanged {
                    cseq: part.last().map_or(since, |t| t.cseq),
                    threads: part.iter().map(|t| t.thread.clone()).collect(),
                })
            })
            .collect()
    }
}

impl Handler<Written> for Board {
    type Result = ();

    fn handle(&mut self, msg: Written, ctx: &mut Context<Self>) {
        self.comments.writing = false;
        let Some(w) = self.comments.queue.pop_front() else {
            return;
        };
        if let Err(e) = msg.result {
            self.comment_write_failed(w, &e, ctx);
            return;
        }
        // The requester learns its ids first, then everyone (the requester too) the thread.
        let t = w.change.thread;
        self.comments.lane.durable(t.clone());
        let f = frame(&ServerMsg::CommentsChanged {
            cseq: t.cseq,
            threads: vec![t.thread.clone()],
        });
        let done = CommentDone {
            cseq: Some(t.cseq),
            thread: t.thread,
            comment: w.change.comment,
        };
        self.answer(w.answer, Ok(done));
        // Frames go out in comment seq order: behind any still held.
        let after = w.after.max(self.comments.held.last().map_or(0, |h| h.0));
        if after > self.log.durable() {
            self.comments.held.push((after, f));
        } else {
            self.broadcast_others(None, &f);
        }
        self.next_comment_write();
    }
}
