//! The durability pipeline: a command is applied to the document at once (so the next command
//! validates against it), handed to the group-commit log writer, and its `applied` goes out only
//! when the writer reports it durable. If the store fails, every command that is not yet durable is
//! rolled back, its author is told `store_unavailable`, and new commands are refused until the log
//! is repaired to the last durable seq.

use super::clients::frame_applied;
use super::users::Entry;
use super::{Board, ConnId, Durable, Pending, Repaired, WindowCaps};
use crate::store::{LogRecord, StoreError};
use protocol::close;
use protocol::{Change, Command, ErrorBody, ErrorCode, Op, Origin, Seq, ServerMsg, UserId};
use std::sync::Arc;
use std::time::Instant;

/// The objects a command created (`deleted`: deleted).
fn created(changes: &[Change], deleted: bool) -> impl Iterator<Item = &protocol::BoardObject> {
    changes.iter().filter_map(move |c| match c {
        Change::Created(o) if !deleted => Some(o),
        Change::Deleted(o) if deleted => Some(o),
        _ => None,
    })
}

impl Board {
    /// Numbers an applied command, records it for undo, queues its `applied` and sends it to the
    /// log writer. Returns its seq.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        author: &UserId,
        origin: Origin,
        ops: Vec<Op>,
        changes: Arc<[Change]>,
        conn: Option<ConnId>,
        client_id: Option<String>,
        started: Instant,
    ) -> Seq {
        let seq = self.log.next_seq();
        let command = Command {
            id: uuid::Uuid::new_v4().to_string(),
            author: author.clone(),
            origin,
            client_id: client_id.clone(),
            ops,
        };
        let (f, payload) = frame_applied(seq, &command);
        // Threads pinned to deleted objects become points; those of objects back re-attach.
        self.comments_follow(created(&changes, false), created(&changes, true), seq);
        self.log.push(Pending {
            seq,
            author: author.clone(),
            frame: f,
            changes,
            origin,
            conn,
            client_id,
            started,
            ai: None,
        });
        self.env.metrics.command(origin);
        let record = LogRecord {
            board: self.id.clone(),
            seq,
            payload,
        };
        match &self.durable_notify {
            Some(to) => self.env.writer.submit_to(vec![record], to, seq),
            // Not started as an actor (no address to tell): nothing waits for the outcome.
            None => self.env.writer.submit(vec![record], Box::new(|_| {})),
        }
        self.check();
        seq
    }

    /// Why the board cannot take a new command right now, if it cannot: the store failed and
    /// the log is being repaired (`store_unavailable`), or so many commands wait for the log
    /// writer that its queue is nearly full (`rate_limited`: back-pressure; nothing is applied,
    /// so nothing has to be rolled back later).
    pub fn admission(&self) -> Result<(), ErrorBody> {
        if self.log.recovering() {
            return Err(ErrorBody::new(
                ErrorCode::StoreUnavailable,
                "the board store is unavailable; try again shortly",
            ));
        }
        if self.env.writer.saturated() {
            return Err(ErrorBody::new(
                ErrorCode::RateLimited,
                "the server is saturated (its log writer is behind); try again shortly",
            ));
        }
        Ok(())
    }

    /// The replay window's bounds (`--replay-window`, `--replay-window-bytes`).
    pub(super) fn window_caps(&self) -> WindowCaps {
        WindowCaps {
            frames: self.env.config.replay_window,
            bytes: self.env.config.replay_window_bytes,
        }
    }

    /// Commands between this board's snapshots: `--snapshot-every` plus up to a quarter more,
    /// fixed per board id, so boards that started together do not all snapshot at once.
    fn snapshot_threshold(&self) -> u64 {
        let every = self.env.config.snapshot_every.max(1);
        every + super::fnv1a(self.id.as_str()) % (every / 4 + 1)
    }

    /// Pushes an undoable entry for `author` (their own commands and AI batches).
    pub fn push_undo(&mut self, author: &UserId, seq: Seq, changes: &[Change]) {
        let depth = self.env.config.undo_depth;
        if let Some(s) = self.users.get_mut(author) {
            let changes = protocol::UndoChange::compact(changes);
            s.push_command(Entry { seq, changes }, depth);
        }
    }

    /// The writer finished `seq`.
    pub fn on_durable(&mut self, msg: Durable) {
        self.env
            .metrics
            .durable_wait(msg.sent.elapsed().as_secs_f64());
        self.log.completed(msg.count);
        if self.log.recovering() {
            // Completions of commands already rolled back; repair once the writer is done with
            // every one of them.
            self.maybe_repair();
            return;
        }
        match msg.result {
            Ok(()) => {
                let caps = self.window_caps();
                while let Some(p) = self.log.pop_durable(msg.seq) {
                    self.broadcast_applied(p.seq, &p.frame);
                    if let Some(f) = p.ai.clone() {
                        self.ai_durable(f, p.seq);
                    }
                    self.env
                        .metrics
                        .broadcast_latency(p.started.elapsed().as_secs_f64());
                    self.track_version(&p.changes, &p.author);
                    self.log.remember(p.seq, p.frame, caps);
                }
                self.release_holds();
                self.release_comment_frames(false);
                if !self.log.has_pending() {
                    for w in self.flush_waiters.drain(..) {
                        let _ = w.send(());
                    }
                    if self.log.snapshot_due(self.snapshot_threshold()) {
                        self.snapshot(false);
                    }
                }
            }
            Err(e) => self.on_store_failure(e),
        }
        self.check();
    }

    /// Rolls back every command that is not durable and starts the log repair.
    fn on_store_failure(&mut self, e: StoreError) {
        if self.env.store.fenced() {
            self.leave_node_store_failed(&e);
            return;
        }
        let seq = self.log.seq();
        // Commands after the failed one are still with the writer; they are discarded when their
        // completions arrive, and the repair truncates anything of them that reached the log.
        let Some(failed) = self.log.fail() else {
            return;
        };
        let durable = self.log.durable();
        tracing::error!(board = %self.id, durable, seq, error = %e, "store failed; rolling back commands that are not durable");
        self.release_comment_frames(true);
        for p in failed.iter().rev() {
            self.doc.rollback(&p.changes);
            // Undone, a deletion brings its objects back and a creation takes them away.
            self.comments_follow(created(&p.changes, true), created(&p.changes, false), 0);
        }
        for s in self.users.values_mut() {
            s.forget_after(durable);
        }
        // The details (paths, SQL) went to the log above; the client learns what happened.
        let err = ErrorBody::new(e.code(), e.public_message());
        for p in &failed {
            if let Some(f) = p.ai.clone() {
                self.ai_rolled_back(f);
                continue;
            }
            let Some(conn) = p.conn else { continue };
            let msg = match (&p.client_id, p.origin) {
                (Some(id), _) => ServerMsg::Rejected {
                    id: id.clone(),
                    error: err.clone(),
                },
                _ => ServerMsg::error(err.code, err.message.clone()),
            };
            self.send_to(conn, &msg);
        }
        // Anyone whose welcome included a rolled-back command must resync.
        let stale = self.members.select(|c| c.seen > durable);
        for conn in stale {
            self.evict(
                conn,
                close::RESYNC,
                "board state changed: reconnect to resync",
            );
        }
        self.maybe_repair();
    }

    /// Cluster mode: a fenced write means another node owns the board now, so it closes here at
    /// once with 1012 and its clients reconnect to the owner (never the store-failure path). Any
    /// other failure may have committed (a connection lost at COMMIT): nobody is told
    /// `rejected`; the board closes with 1013 and the clients re-send what was not acknowledged
    /// to the board loaded again, which acknowledges what did commit (CLUSTER-13).
    fn leave_node_store_failed(&mut self, e: &StoreError) {
        let (code, why) = if e.is_fenced() {
            (close::SERVICE_RESTART, "the board moved to another node")
        } else {
            (close::TRY_AGAIN, "store unavailable; reconnect")
        };
        tracing::warn!(board = %self.id, error = %e, "closing the board: {why}");
        self.kick_all(code, why);
        if let Some(me) = self.me() {
            me.do_send(super::CloseAll {
                error: protocol::ErrorCode::StoreUnavailable,
                code,
                reason: why.to_owned(),
            });
        }
    }

    /// Once the writer holds no command of this board, asks the store to drop log entries after
    /// the last durable seq (commands that were written after all but never acknowledged).
    fn maybe_repair(&mut self) {
        if self.log.start_repair() {
            self.repair_after(std::time::Duration::ZERO);
        }
    }

    fn repair_after(&mut self, delay: std::time::Duration) {
        let (store, id, durable) = (self.env.store.clone(), self.id.clone(), self.log.durable());
        let me = self.me().cloned();
        self.env.rt.spawn(async move {
            tokio::time::sleep(delay).await;
            let result = store.truncate_after(&id, durable).await;
            if let Some(me) = me {
                me.do_send(Repaired { result });
            }
        });
    }

    pub fn on_repaired(&mut self, msg: Repaired) {
        self.log.repaired(msg.result.is_ok());
        match msg.result {
            Ok(()) => {
                tracing::info!(board = %self.id, seq = self.log.seq(), "log repaired; accepting commands again");
            }
            Err(e) => {
                tracing::warn!(board = %self.id, error = %e, "log repair failed; retrying in 1 s");
                self.log.retry_repair();
                self.repair_after(std::time::Duration::from_secs(1));
            }
        }
    }
}
