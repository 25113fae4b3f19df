//! Internal messages: durability completions, repair, snapshots, inspection, flush, close.

use crate::board::clients::{SHUTDOWN_REASON, frame};
use crate::board::{
    Board, CloseAll, Durable, Flush, Inspect, Inspection, Repaired, ShuttingDown, SnapshotDone,
};
use actix::prelude::*;
use protocol::ServerMsg;
use protocol::close;

impl Handler<Durable> for Board {
    type Result = ();
    fn handle(&mut self, msg: Durable, _ctx: &mut Context<Self>) {
        self.on_durable(msg);
    }
}

impl Handler<Repaired> for Board {
    type Result = ();
    fn handle(&mut self, msg: Repaired, _ctx: &mut Context<Self>) {
        self.on_repaired(msg);
    }
}

impl Handler<SnapshotDone> for Board {
    type Result = ();
    fn handle(&mut self, _msg: SnapshotDone, _ctx: &mut Context<Self>) {
        self.log.snapshot_done();
    }
}

impl Handler<Inspect> for Board {
    type Result = MessageResult<Inspect>;
    fn handle(&mut self, _msg: Inspect, _ctx: &mut Context<Self>) -> Self::Result {
        MessageResult(Inspection {
            seq: self.log.seq(),
            durable: self.log.durable(),
            objects: self.doc.sorted_objects().into_iter().cloned().collect(),
            clients: self.members.len(),
            invariants: self.doc.check_invariants(),
        })
    }
}

impl Handler<Flush> for Board {
    type Result = ();
    fn handle(&mut self, msg: Flush, _ctx: &mut Context<Self>) {
        if !self.log.has_pending() || self.log.recovering() {
            self.snapshot(true);
            let _ = msg.done.send(());
        } else {
            self.flush_waiters.push(msg.done);
        }
    }
}

impl Handler<CloseAll> for Board {
    type Result = ();
    fn handle(&mut self, msg: CloseAll, ctx: &mut Context<Self>) {
        // A board that moves (1012) says nothing but the close: its clients reconnect at once.
        if msg.code != close::SERVICE_RESTART {
            let bye = frame(&ServerMsg::error(msg.error, msg.reason.clone()));
            self.broadcast_others(None, &bye);
        }
        self.kick_all(msg.code, &msg.reason);
        ctx.stop();
    }
}

impl Handler<ShuttingDown> for Board {
    type Result = ();
    fn handle(&mut self, _: ShuttingDown, _ctx: &mut Context<Self>) {
        self.kick_all(close::GOING_AWAY, SHUTDOWN_REASON);
    }
}
