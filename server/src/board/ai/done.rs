//! AI worker completions (the requests themselves come through `board/dispatch.rs`).

use crate::board::{AiDone, Board};
use actix::prelude::*;
use protocol::{AiErrorCategory, Role};

impl Handler<AiDone> for Board {
    type Result = ();
    fn handle(&mut self, mut msg: AiDone, _ctx: &mut Context<Self>) {
        // The agent acts as its requester and needs an editor (AUTH-6): a requester lowered to
        // viewer, or whose access was revoked, while the command ran gets an error, and nothing
        // of it is applied.
        let lowered = self
            .members
            .get(msg.job.conn)
            .is_some_and(|m| m.access.role < Role::Editor);
        if lowered || self.members.is_revoked(msg.user.as_str()) {
            let meta = msg.plan.meta().clone();
            msg.plan = agent::AiPlan::Error {
                category: AiErrorCategory::InvalidRequest,
                message: "Your role on this board no longer allows AI commands; nothing was \
                          changed."
                    .into(),
                meta,
            };
        }
        let _span =
            tracing::debug_span!("ai_apply", board = %self.id, user = %msg.user, id = %msg.job.id)
                .entered();
        self.on_ai_done(msg);
        self.check();
    }
}
