//! `presence`: cursors, selections, viewports, the object being edited and whom one follows,
//! coalesced per user; and leading the view (FOLLOW-1..4): `summon` brings everyone to the
//! sender's view, `present` makes the sender the board's presenter until they stop or their
//! last connection is gone. None of it is durable.

use crate::board::clients::frame;
use crate::board::{Board, ConnId};
use protocol::{ErrorCode, ObjectId, Point, Role, ServerMsg, UserId, Viewport};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Most ids a presence selection carries.
const MAX_SELECTION: usize = 1000;

/// Least time between two summons of one user (FOLLOW-3).
const SUMMON_EVERY: Duration = Duration::from_secs(5);

/// What one `presence` message says (absent fields: unchanged).
pub struct Seen {
    pub cursor: Option<Point>,
    pub selection: Option<Vec<ObjectId>>,
    pub viewport: Option<Viewport>,
    pub editing: Option<Option<ObjectId>>,
    pub following: Option<Option<UserId>>,
}

/// Who leads the board's view: its presenter, and when each user last summoned.
#[derive(Default)]
pub struct Stage {
    presenter: Option<UserId>,
    summoned: HashMap<UserId, Instant>,
}

impl Board {
    pub(super) fn presence(&mut self, conn: ConnId, user: &UserId, seen: Seen) {
        if let Some(Some(leader)) = &seen.following
            && (leader == user || self.members.connections_of(leader) == 0)
        {
            let why = "you can follow only someone else who is on this board";
            self.send_to(conn, &ServerMsg::error(ErrorCode::Invalid, why));
            return;
        }
        let Some(s) = self.users.get_mut(user) else {
            return;
        };
        let p = &mut s.presence;
        if seen.cursor.is_some() {
            p.cursor = seen.cursor;
        }
        if let Some(mut sel) = seen.selection {
            sel.truncate(MAX_SELECTION);
            p.selection = Some(sel);
        }
        if seen.viewport.is_some() {
            p.viewport = seen.viewport;
        }
        if let Some(editing) = seen.editing {
            p.editing = editing;
        }
        if let Some(following) = seen.following {
            p.following = following;
        }
        self.presence_dirty.insert(user.clone());
    }

    /// The presenter now (the welcome shows it).
    pub(super) fn presenter(&self) -> Option<UserId> {
        self.stage.presenter.clone()
    }

    /// `summon`: everyone else is sent to the sender's view, at most once per
    /// [`SUMMON_EVERY`].
    pub(super) fn summon(&mut self, conn: ConnId, user: &UserId) {
        let Some(viewport) = self.users.get(user).and_then(|s| s.presence.viewport) else {
            let why = "share your view (presence) before bringing others to it";
            self.send_to(conn, &ServerMsg::error(ErrorCode::Invalid, why));
            return;
        };
        let now = Instant::now();
        if let Some(at) = self.stage.summoned.get(user)
            && now.duration_since(*at) < SUMMON_EVERY
        {
            let why = "you can bring everyone to your view once every 5 seconds";
            self.send_to(conn, &ServerMsg::error(ErrorCode::RateLimited, why));
            return;
        }
        self.stage.summoned.insert(user.clone(), now);
        let f = frame(&ServerMsg::Summoned {
            by: user.clone(),
            viewport,
        });
        self.broadcast_others(Some(user), &f);
    }

    /// `present`: `on` makes the sender the presenter; off ends the presentation (the
    /// presenter, or an owner).
    pub(super) fn present(&mut self, conn: ConnId, user: &UserId, role: Role, on: bool) {
        let next = if on {
            Some(user.clone())
        } else if self.stage.presenter.as_ref() == Some(user) || role == Role::Owner {
            None
        } else {
            return self.send_to(
                conn,
                &ServerMsg::error(
                    ErrorCode::Forbidden,
                    "only the presenter ends a presentation",
                ),
            );
        };
        self.set_presenter(next);
    }

    fn set_presenter(&mut self, next: Option<UserId>) {
        if self.stage.presenter == next {
            return;
        }
        self.stage.presenter = next.clone();
        let f = frame(&ServerMsg::PresentationChanged { presenter: next });
        self.broadcast_others(None, &f);
    }

    /// `user` is gone (their reconnect grace ran out): a presentation of theirs ends, and who
    /// followed them follows nobody.
    pub(super) fn leader_gone(&mut self, user: &UserId) {
        if self.stage.presenter.as_ref() == Some(user) {
            self.set_presenter(None);
        }
        self.stage.summoned.remove(user);
        let mut changed = false;
        for (id, s) in self.users.iter_mut() {
            if s.presence.following.as_ref() == Some(user) {
                s.presence.following = None;
                self.presence_dirty.insert(id.clone());
                changed = true;
            }
        }
        if changed {
            self.flush_presence();
        }
    }

    /// Roles changed: a presenter none of whose connections may present any more stops.
    pub(super) fn presenter_may_stay(&mut self) {
        let Some(p) = self.stage.presenter.clone() else {
            return;
        };
        let roles: Vec<Role> = (self.members.iter())
            .filter(|(_, c)| c.user == p)
            .map(|(conn, _)| self.members.role(conn))
            .collect();
        // With no connection left, the reconnect grace decides (`leader_gone`).
        if !roles.is_empty() && roles.iter().all(|r| *r < Role::Editor) {
            self.set_presenter(None);
        }
    }
}
