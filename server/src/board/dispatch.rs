//! What a joined connection asks of its board: one exhaustive dispatch, after one role check.

use crate::board::ai::AiJob;
use crate::board::{Board, BoardRequest, FromClient};
use actix::prelude::*;
use protocol::Role;

impl Handler<FromClient> for Board {
    type Result = ();

    fn handle(&mut self, msg: FromClient, ctx: &mut Context<Self>) {
        self.shared
            .metrics
            .mailbox_wait(msg.received.elapsed().as_secs_f64());
        let Some(user) = self.clients.get(&msg.conn).map(|c| c.user.clone()) else {
            return;
        };
        // Roles (AUTH-6): a viewer sees everything and may send presence; every other request
        // needs an editor. A connection without a recorded role is a viewer.
        let role = self.access.get(&msg.conn).map_or(Role::Viewer, |a| a.role);
        if role < Role::Editor && !matches!(msg.req, BoardRequest::Presence { .. }) {
            self.forbid(msg.conn, &msg.req);
            return;
        }
        let _span = tracing::debug_span!("command", board = %self.id, user = %user).entered();
        match msg.req {
            BoardRequest::Commit { id, ops } => self.commit(msg.conn, &user, id, ops, msg.received),
            BoardRequest::Undo => self.undo(msg.conn, &user, false, msg.received),
            BoardRequest::Redo => self.undo(msg.conn, &user, true, msg.received),
            BoardRequest::Presence {
                cursor,
                selection,
                viewport,
                editing,
            } => {
                // Only someone who may edit is shown as editing.
                let editing = editing.filter(|_| role >= Role::Editor);
                self.presence(&user, cursor, selection, viewport, editing);
                self.schedule_presence(ctx);
            }
            BoardRequest::Ai {
                id,
                text,
                selection,
                viewport,
            } => {
                let job = AiJob {
                    id,
                    text,
                    selection,
                    viewport,
                    conn: msg.conn,
                    received: msg.received,
                    approved: None,
                };
                self.ai_command(&user, job);
            }
            BoardRequest::Answer {
                question_id,
                answers,
            } => self.ai_answer(msg.conn, &user, question_id, answers, msg.received),
            BoardRequest::SetMode { mode } => self.ai_set_mode(&user, mode),
        }
    }
}
