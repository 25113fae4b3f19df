//! Roles on a live board: refusing what a connection's role does not allow (AUTH-6), role
//! changes reaching open connections (AUTH-12, AUTH-20), and sign-outs closing them (AUTH-19).

use crate::board::clients::frame;
use crate::board::{Board, ConnId, Retitle, SessionEnded, SetRole};
use actix::prelude::*;
use protocol::close;
use protocol::{ClientMsg, ErrorBody, ErrorCode, ServerMsg};

impl Board {
    /// Answers a request the connection's role does not allow: a commit or a comment request
    /// is `rejected`, anything else gets `error forbidden`. The connection stays.
    pub(super) fn forbid(&mut self, conn: ConnId, req: &ClientMsg) {
        let message = "your role on this board does not allow this";
        // A commit or a comment request is `rejected` by its id (AUTH-6, COMMENT-2).
        let id = match req {
            ClientMsg::Ai { .. } => None,
            _ => req.request_id(),
        };
        let reply = match id {
            Some(id) => ServerMsg::Rejected {
                id: id.to_owned(),
                error: ErrorBody::new(ErrorCode::Forbidden, message),
            },
            None => ServerMsg::error(ErrorCode::Forbidden, message),
        };
        self.env.metrics.error_sent(ErrorCode::Forbidden);
        self.send_to(conn, &reply);
    }
}

impl Handler<Retitle> for Board {
    type Result = ();

    fn handle(&mut self, msg: Retitle, _ctx: &mut Context<Self>) {
        let f = frame(&ServerMsg::TitleChanged { title: msg.title });
        self.broadcast_others(None, &f);
    }
}

impl Handler<SetRole> for Board {
    type Result = ();

    fn handle(&mut self, msg: SetRole, ctx: &mut Context<Self>) {
        let conns = self.members.of_local(&msg.user);
        self.members.set_revoked(&msg.user, msg.role.is_none());
        for conn in conns {
            match msg.role {
                None => {
                    self.send_to(conn, &ServerMsg::error(ErrorCode::Forbidden, msg.why));
                    self.evict(conn, close::FORBIDDEN, msg.why);
                }
                Some(stored) => {
                    let Some(a) = self.members.get_mut(conn).map(|m| &mut m.access) else {
                        continue;
                    };
                    let role = stored.min(a.cap);
                    if role != a.role {
                        a.role = role;
                        self.send_to(conn, &ServerMsg::RoleChanged { role });
                    }
                }
            }
        }
        if msg.role.is_some() {
            self.watch_grant(&msg.user, msg.until, ctx);
        }
        self.presenter_may_stay();
        tracing::debug!(board = %self.id, user = %msg.user, role = ?msg.role, "role changed");
    }
}

impl Handler<SessionEnded> for Board {
    type Result = ();

    fn handle(&mut self, msg: SessionEnded, _ctx: &mut Context<Self>) {
        self.session_ended(&msg.session);
    }
}
