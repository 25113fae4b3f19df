//! `hello` → join (with resume), and leave.

use crate::board::clients::frame;
use crate::board::users::UserSession;
use crate::board::{Board, Join, Leave, Member};
use actix::prelude::*;
use protocol::{ErrorBody, ErrorCode, ServerMsg, UserView};

impl Handler<Join> for Board {
    type Result = Result<UserView, ErrorBody>;

    fn handle(&mut self, msg: Join, ctx: &mut Context<Self>) -> Self::Result {
        if self.members.len() >= self.env.config.max_clients_per_board {
            return Err(ErrorBody::new(
                ErrorCode::BoardFull,
                format!(
                    "board {} already has {} connections",
                    self.id, self.env.config.max_clients_per_board
                ),
            ));
        }
        let user = msg.user.id.clone();
        let color = self.joining_color(&user);
        let session = self
            .users
            .entry(user.clone())
            .or_insert_with(|| UserSession::new(&user, &msg.user.name));
        if let Some(c) = color {
            session.view.color = c;
            session.presence.user = session.view.clone();
        }
        if !msg.user.name.is_empty() && session.view.name != msg.user.name {
            session.view.name = msg.user.name.chars().take(64).collect();
            session.presence.user = session.view.clone();
        }
        session.gone_since = None;
        let was_announced = session.announced;
        session.announced = true;
        let you = session.view.clone();
        let mode = session.ai.modes.mode;
        self.empty_since = None;

        // Resume inside the replay window: no objects, the missed `applied` follow.
        let max = self.env.config.outbox_capacity / 2;
        let replay = msg
            .since
            .and_then(|since| self.log.replay_since(since, max));
        let (welcome, seen, hold) = self.welcome(&msg, you.clone(), mode, replay.is_some());
        let welcome = frame(&welcome);
        let comments = msg
            .comments_since
            .map(|c| self.comments_since(c))
            .unwrap_or_default();
        let mut client = Member {
            user: user.clone(),
            access: msg.access,
            tx: msg.tx,
            kick: msg.kick,
            held: None,
            hold_until: seen,
            seen,
        };
        if hold {
            let mut held = vec![welcome];
            held.extend(comments);
            client.held = Some(held);
        } else {
            let mut frames = vec![welcome];
            frames.extend(replay.unwrap_or_default());
            frames.extend(comments);
            for f in frames {
                if client.tx.try_send(f).is_err() {
                    return Err(ErrorBody::new(
                        ErrorCode::Internal,
                        "could not queue the welcome",
                    ));
                }
            }
        }
        self.members.insert(msg.conn, client);
        self.watch(msg.conn, ctx);
        self.env.metrics.board_clients(1);
        if !was_announced {
            let f = frame(&ServerMsg::Joined { user: you.clone() });
            self.broadcast_others(Some(&user), &f);
        }
        tracing::debug!(board = %self.id, user = %user, conn = msg.conn, since = ?msg.since, "joined");
        Ok(you)
    }
}

impl Board {
    /// The welcome of a join, the seq it brings the connection to, and whether it waits for
    /// commands that are not durable yet. A resume inside the replay window carries no objects
    /// (the missed `applied` follow it); otherwise the document, which may include commands not
    /// yet durable: then the welcome is held until they are.
    fn welcome(
        &self,
        msg: &Join,
        you: UserView,
        mode: protocol::Mode,
        resume: bool,
    ) -> (ServerMsg, protocol::Seq, bool) {
        let (seq, objects) = if resume {
            (self.log.durable(), None)
        } else {
            let objects = self.doc.sorted_objects().into_iter().cloned().collect();
            (self.log.seq(), Some(objects))
        };
        let (cseq, threads, threads_cut) = self.welcome_threads();
        let welcome = ServerMsg::Welcome {
            board: self.id.clone(),
            seq,
            you,
            objects,
            users: self.presences_except(&msg.user.id),
            mode,
            role: msg.access.role,
            title: msg.title.clone(),
            cseq,
            presenter: self.presenter(),
            threads,
            threads_cut,
        };
        (welcome, seq, seq > self.log.durable())
    }
}

impl Handler<Leave> for Board {
    type Result = ();

    fn handle(&mut self, msg: Leave, _ctx: &mut Context<Self>) {
        self.drop_client(msg.conn);
    }
}
