//! Credentials and roles that end by themselves, at that moment (AUTH-18, AUTH-20): a joined
//! connection's credential (a token's `exp`, a session's end) and a role that came through a
//! share link (the link's expiry). One timer per board, armed for the earliest deadline; a
//! sign-out ends the connections of its session at once (AUTH-19).

use super::{Board, ConnId, Members};
use actix::prelude::*;
use protocol::close;
use protocol::{ErrorCode, ServerMsg};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The longest the timer waits at once; a later deadline re-arms it then.
const LONGEST: Duration = Duration::from_secs(24 * 3600);

/// What ends at a deadline.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Due {
    /// A connection's credential.
    Credential(ConnId),
    /// A local account's role through a share link: its role is asked for again.
    Grant(String),
}

/// A board's deadlines, earliest first, and the timer armed for the first.
#[derive(Default)]
pub struct Deadlines {
    heap: BinaryHeap<Reverse<(SystemTime, Due)>>,
    armed: Option<(SystemTime, SpawnHandle)>,
}

impl Deadlines {
    fn push(&mut self, unix: i64, due: Due) {
        let at = UNIX_EPOCH + Duration::from_secs(u64::try_from(unix).unwrap_or(0));
        self.heap.push(Reverse((at, due)));
    }

    /// Drops what no longer concerns a joined connection, once the heap holds many more
    /// deadlines than the board has connections (connections that left keep theirs until then).
    fn prune(&mut self, members: &Members) {
        if self.heap.len() <= 64 + 4 * members.len() {
            return;
        }
        let locals: HashSet<&str> = members
            .iter()
            .filter_map(|(_, m)| m.access.local.as_deref())
            .collect();
        self.heap.retain(|Reverse((_, due))| match due {
            Due::Credential(c) => members.contains(*c),
            Due::Grant(u) => locals.contains(u.as_str()),
        });
    }
}

impl Board {
    /// Watches a joined connection: its credential's end and the end of a role that came
    /// through a share link.
    pub fn watch(&mut self, conn: ConnId, ctx: &mut Context<Self>) {
        let Some(a) = self.members.get(conn).map(|m| &m.access) else {
            return;
        };
        let grant = a.until.zip(a.local.clone());
        if let Some(at) = a.expires_at {
            self.deadlines.push(at, Due::Credential(conn));
        }
        if let Some((at, user)) = grant {
            self.deadlines.push(at, Due::Grant(user));
        }
        self.arm(ctx);
    }

    /// Watches the end of a local account's new role (AUTH-20).
    pub fn watch_grant(&mut self, user: &str, until: Option<i64>, ctx: &mut Context<Self>) {
        if let Some(at) = until {
            self.deadlines.push(at, Due::Grant(user.to_owned()));
            self.arm(ctx);
        }
    }

    /// Closes the connections whose credential depends on a session that signed out (AUTH-19).
    pub fn session_ended(&mut self, session: &str) {
        let conns = self
            .members
            .select(|m| m.access.session.as_deref() == Some(session));
        for conn in conns {
            self.end_credential(conn, "signed out");
        }
    }

    /// Arms the timer for the earliest deadline, unless it already fires no later.
    fn arm(&mut self, ctx: &mut Context<Self>) {
        self.deadlines.prune(&self.members);
        let Some(Reverse((at, _))) = self.deadlines.heap.peek() else {
            return;
        };
        let at = *at;
        if self.deadlines.armed.as_ref().is_some_and(|(a, _)| *a <= at) {
            return;
        }
        if let Some((_, h)) = self.deadlines.armed.take() {
            ctx.cancel_future(h);
        }
        let wait = at
            .duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO)
            .min(LONGEST);
        let h = ctx.run_later(wait, |act, ctx| {
            act.deadlines.armed = None;
            act.on_deadlines(ctx);
        });
        self.deadlines.armed = Some((at, h));
    }

    /// Ends what is due, then arms the timer for what is left.
    fn on_deadlines(&mut self, ctx: &mut Context<Self>) {
        let now = SystemTime::now();
        let mut grants = HashSet::new();
        while self
            .deadlines
            .heap
            .peek()
            .is_some_and(|Reverse((at, _))| *at <= now)
        {
            match self.deadlines.heap.pop() {
                Some(Reverse((_, Due::Credential(conn)))) => {
                    self.end_credential(conn, "credential expired");
                }
                Some(Reverse((_, Due::Grant(user)))) => {
                    grants.insert(user);
                }
                None => break,
            }
        }
        for user in grants {
            self.grant_ended(user);
        }
        self.arm(ctx);
    }

    /// Closes a connection whose credential ended: `error unauthorized`, then 4001 (AUTH-18).
    fn end_credential(&mut self, conn: ConnId, why: &str) {
        if !self.members.contains(conn) {
            return;
        }
        self.env.metrics.error_sent(ErrorCode::Unauthorized);
        self.send_to(conn, &ServerMsg::error(ErrorCode::Unauthorized, why));
        self.evict(conn, close::UNAUTHORIZED, why);
        tracing::debug!(board = %self.id, conn, why, "credential ended");
    }

    /// A role that came through a share link may have ended: the account's role is resolved
    /// again and comes back as [`super::SetRole`] (a lower role by another grant, or none).
    fn grant_ended(&mut self, user: String) {
        if !self.members.has_local(&user) {
            return;
        }
        let (env, board) = (self.env.clone(), self.id.to_string());
        self.env.rt.spawn(async move {
            env.roles
                .grant_ended(&env, &board, &user, "the share link expired")
                .await;
        });
    }
}
