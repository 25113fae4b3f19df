//! `commit`: an atomic edit.

use crate::board::{Board, ConnId};
use protocol::{ErrorBody, ErrorCode, OpInput, Origin, ServerMsg, UserId};
use std::time::Instant;

impl Board {
    pub(super) fn commit(
        &mut self,
        conn: ConnId,
        user: &UserId,
        id: String,
        ops: Vec<OpInput>,
        received: Instant,
    ) {
        if let Some(seq) = self.users.get(user).and_then(|s| s.seen_client_id(&id)) {
            // A re-send after a reconnect: never applied twice.
            let held = self.members.get(conn).is_some_and(|c| c.held.is_some());
            if seq > self.log.durable() && !held {
                // Not durable yet: an `ack` now could be followed by a rollback (CMD-9). This
                // connection gets the command's `applied`, which carries the id, once it is
                // durable; if the store fails instead, it is the one told `rejected`. (A held
                // connection's `ack` waits with its welcome, which a rollback evicts.)
                match self.log.pending_mut(seq) {
                    Some(p) => p.conn = Some(conn),
                    // Every seq above `durable` is pending; were it not, this re-send would
                    // go unanswered, so say so where the invariant checks report.
                    None => self.env.record_violation(
                        &self.id,
                        &format!(
                            "re-sent seq {seq} above durable {} is not pending",
                            self.log.durable()
                        ),
                    ),
                }
                return;
            }
            let ack = ServerMsg::Ack {
                id,
                seq,
                cseq: None,
                thread: None,
                comment: None,
            };
            self.send_to(conn, &ack);
            return;
        }
        let reject = |code: ErrorCode, message: String| ServerMsg::Rejected {
            id: id.clone(),
            error: ErrorBody::new(code, message),
        };
        if let Err(e) = self.admission() {
            self.env.metrics.rejected(e.code);
            let msg = reject(e.code, e.message);
            self.send_to(conn, &msg);
            return;
        }
        if ops.is_empty() {
            self.env.metrics.rejected(ErrorCode::Invalid);
            let msg = reject(ErrorCode::Invalid, "a commit needs at least one op".into());
            self.send_to(conn, &msg);
            return;
        }
        if let Some(a) = self.unknown_asset(&ops) {
            self.env.metrics.rejected(ErrorCode::Invalid);
            let msg = reject(
                ErrorCode::Invalid,
                format!("picture {a:.64} is not uploaded to this board"),
            );
            self.send_to(conn, &msg);
            return;
        }
        let seq = self.log.next_seq();
        match self.doc.apply(&ops, user, seq) {
            Err(e) => {
                self.env.metrics.rejected(e.code());
                let msg = reject(e.code(), e.to_string());
                self.send_to(conn, &msg);
            }
            Ok(out) => {
                let changes: std::sync::Arc<[protocol::Change]> = out.changes.into();
                self.push_undo(user, seq, &changes);
                if let Some(s) = self.users.get_mut(user) {
                    s.remember_client_id(id.clone(), seq);
                }
                self.record(
                    user,
                    Origin::User,
                    out.ops,
                    changes,
                    Some(conn),
                    Some(id),
                    received,
                );
            }
        }
    }
}
