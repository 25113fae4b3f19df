//! What a joined connection asks of its board: one exhaustive dispatch, after one role check.

use crate::board::ai::AiJob;
use crate::board::comments::Actor;
use crate::board::presence::Seen;
use crate::board::{Board, FromClient};
use actix::prelude::*;
use protocol::{ClientMsg, Lane, Role};

impl Handler<FromClient> for Board {
    type Result = ();

    fn handle(&mut self, msg: FromClient, ctx: &mut Context<Self>) {
        self.env
            .metrics
            .mailbox_wait(msg.received.elapsed().as_secs_f64());
        let Some(user) = self.members.get(msg.conn).map(|c| c.user.clone()) else {
            return;
        };
        // Roles (AUTH-6): a viewer sees everything and may send presence; a commenter may also
        // comment (COMMENT-2); every other request needs an editor. A connection without a
        // recorded role is a viewer.
        let role = self.members.role(msg.conn);
        if role < needs(&msg.msg) {
            self.forbid(msg.conn, &msg.msg);
            return;
        }
        let _span = tracing::debug_span!("command", board = %self.id, user = %user).entered();
        let msg = match msg.msg.into_lane() {
            Lane::Comment(id, op) => {
                let who = Actor { user, role };
                return self.comment_from(msg.conn, who, id, op, ctx);
            }
            Lane::Other(other) => FromClient { msg: other, ..msg },
        };
        match msg.msg {
            ClientMsg::Commit { id, ops } => self.commit(msg.conn, &user, id, ops, msg.received),
            ClientMsg::Undo {} => self.undo(msg.conn, &user, false, msg.received),
            ClientMsg::Redo {} => self.undo(msg.conn, &user, true, msg.received),
            ClientMsg::Presence {
                cursor,
                selection,
                viewport,
                editing,
                following,
            } => {
                // Only someone who may edit is shown as editing.
                let editing = editing.filter(|_| role >= Role::Editor);
                let seen = Seen {
                    cursor,
                    selection,
                    viewport,
                    editing,
                    following,
                };
                self.presence(msg.conn, &user, seen);
                self.schedule_presence(ctx);
            }
            ClientMsg::Summon {} => self.summon(msg.conn, &user),
            ClientMsg::Present { on } => self.present(msg.conn, &user, role, on),
            ClientMsg::Ai {
                id,
                text,
                selection,
                viewport,
            } => {
                let mut req = agent::AiRequest::new(text, user.clone());
                req.selection = selection.unwrap_or_default();
                req.viewport = viewport;
                let job = AiJob {
                    id,
                    req,
                    conn: msg.conn,
                    received: msg.received,
                    approved: None,
                };
                self.ai_command(&user, job);
            }
            ClientMsg::Answer {
                question_id,
                answers,
            } => self.ai_answer(msg.conn, &user, question_id, answers, msg.received),
            ClientMsg::SetMode { mode } => self.ai_set_mode(&user, mode),
            // The connection answers `hello` and `ping` itself and never hands them on
            // (`at_the_edge`); comment requests went to their lane above (`into_lane`).
            _ => {}
        }
    }
}

/// The least role a message needs (AUTH-6, COMMENT-2).
/// Any message not named here needs an editor.
fn needs(msg: &ClientMsg) -> Role {
    match msg {
        ClientMsg::Presence { .. } | ClientMsg::Hello { .. } | ClientMsg::Ping { .. } => {
            Role::Viewer
        }
        m if m.comment_id().is_some() => Role::Commenter,
        _ => Role::Editor,
    }
}
