//! `undo` / `redo`: the sender's own commands, applied as new commands.

use crate::board::users::Entry;
use crate::board::{Board, ConnId};
use protocol::{ErrorCode, Origin, ServerMsg, UserId};
use std::time::Instant;

impl Board {
    /// Undoes (or, with `redo`, redoes) the user's most recent command that still changes
    /// something. Entries whose every change was overtaken by others are skipped.
    pub(super) fn undo(&mut self, conn: ConnId, user: &UserId, redo: bool, received: Instant) {
        if let Err(e) = self.admission() {
            self.send_to(conn, &ServerMsg::error(e.code, e.message));
            return;
        }
        let seq = self.log.next_seq();
        let depth = self.env.config.undo_depth;
        let outcome = loop {
            let Some(session) = self.users.get_mut(user) else {
                return;
            };
            let stack = if redo {
                &mut session.redo
            } else {
                &mut session.undo
            };
            let Some(entry) = stack.pop_back() else {
                break None;
            };
            let out = self.doc.revert_undo(&entry.changes, seq);
            if out.is_empty() {
                continue;
            }
            let Some(session) = self.users.get_mut(user) else {
                return;
            };
            let changes: std::sync::Arc<[protocol::Change]> = out.changes.into();
            let back = Entry {
                seq,
                changes: protocol::UndoChange::compact(&changes),
            };
            if redo {
                session.undo.push_back(back);
                while session.undo.len() > depth {
                    session.undo.pop_front();
                }
            } else {
                session.redo.push_back(back);
                while session.redo.len() > depth {
                    session.redo.pop_front();
                }
            }
            break Some((out.ops, changes));
        };
        match outcome {
            Some((ops, changes)) => {
                let origin = if redo { Origin::Redo } else { Origin::Undo };
                self.record(user, origin, ops, changes, Some(conn), None, received);
            }
            None => {
                let (code, what) = if redo {
                    (ErrorCode::NothingToRedo, "redo")
                } else {
                    (ErrorCode::NothingToUndo, "undo")
                };
                self.send_to(conn, &ServerMsg::error(code, format!("nothing to {what}")));
            }
        }
    }
}
