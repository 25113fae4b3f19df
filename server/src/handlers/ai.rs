//! AI worker completions (the requests themselves are dispatched in `mod.rs` to
//! `crate::board::ai`).

use crate::board::{AiDone, Board};
use actix::prelude::*;

impl Handler<AiDone> for Board {
    type Result = ();
    fn handle(&mut self, msg: AiDone, _ctx: &mut Context<Self>) {
        let _span =
            tracing::debug_span!("ai_apply", board = %self.id, user = %msg.user, id = %msg.job.id)
                .entered();
        self.on_ai_done(msg);
        self.check();
    }
}
