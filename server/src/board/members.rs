//! Who is on a board: one entry per joined connection (its user, its standing, its outbox and
//! what it has seen), and how many connections each user has. The one place a connection is
//! added or removed, so the per-user count and the per-connection role cannot drift apart.

use super::clients::Kick;
use super::messages::ConnAccess;
use axum::extract::ws::Utf8Bytes;
use protocol::{Role, Seq, UserId};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tokio::sync::mpsc;

/// A connection's id, unique in the process.
pub type ConnId = u64;

/// One joined connection.
pub struct Member {
    pub(super) user: UserId,
    /// Its role and what bounds it (AUTH-5); changed only by the board (`SetRole`).
    pub(super) access: ConnAccess,
    pub(super) tx: mpsc::Sender<Utf8Bytes>,
    pub(super) kick: Arc<Kick>,
    /// Frames held back until `hold_until` is durable (a welcome that includes pending commands).
    pub(super) held: Option<Vec<Utf8Bytes>>,
    pub(super) hold_until: Seq,
    /// The seq its welcome or replay brought it to: it skips `applied` at or below this.
    pub(super) seen: Seq,
}

/// The joined connections of a board.
#[derive(Default)]
pub struct Members {
    by_conn: HashMap<ConnId, Member>,
    /// Connections per user (a user absent here has none).
    per_user: HashMap<UserId, usize>,
    /// Local accounts whose access was revoked while the board was loaded: their AI commands
    /// still running are not applied.
    revoked: HashSet<String>,
}

impl Members {
    pub fn len(&self) -> usize {
        self.by_conn.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_conn.is_empty()
    }

    pub fn contains(&self, conn: ConnId) -> bool {
        self.by_conn.contains_key(&conn)
    }

    pub fn get(&self, conn: ConnId) -> Option<&Member> {
        self.by_conn.get(&conn)
    }

    pub fn get_mut(&mut self, conn: ConnId) -> Option<&mut Member> {
        self.by_conn.get_mut(&conn)
    }

    /// A joined connection's role; one that is gone (or going) counts as a viewer.
    pub fn role(&self, conn: ConnId) -> Role {
        self.by_conn
            .get(&conn)
            .map_or(Role::Viewer, |m| m.access.role)
    }

    /// Adds a joined connection; joining again means holding a role again.
    pub fn insert(&mut self, conn: ConnId, member: Member) {
        if let Some(local) = &member.access.local {
            self.revoked.remove(local);
        }
        *self.per_user.entry(member.user.clone()).or_default() += 1;
        if let Some(old) = self.by_conn.insert(conn, member) {
            self.uncount(&old.user);
        }
    }

    /// Removes a connection; returns it, and whether it was its user's last.
    pub fn remove(&mut self, conn: ConnId) -> Option<(Member, bool)> {
        let m = self.by_conn.remove(&conn)?;
        let last = self.uncount(&m.user);
        Some((m, last))
    }

    fn uncount(&mut self, user: &UserId) -> bool {
        match self.per_user.get_mut(user) {
            Some(n) if *n > 1 => {
                *n -= 1;
                false
            }
            _ => {
                self.per_user.remove(user);
                true
            }
        }
    }

    /// How many connections `user` has open here.
    pub fn connections_of(&self, user: &UserId) -> usize {
        self.per_user.get(user).copied().unwrap_or(0)
    }

    pub fn iter(&self) -> impl Iterator<Item = (ConnId, &Member)> {
        self.by_conn.iter().map(|(c, m)| (*c, m))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (ConnId, &mut Member)> {
        self.by_conn.iter_mut().map(|(c, m)| (*c, m))
    }

    /// The connections `keep` selects.
    pub fn select(&self, keep: impl Fn(&Member) -> bool) -> Vec<ConnId> {
        self.iter()
            .filter(|(_, m)| keep(m))
            .map(|(c, _)| c)
            .collect()
    }

    /// The connections of `user`.
    pub fn of_user(&self, user: &UserId) -> Vec<ConnId> {
        self.select(|m| &m.user == user)
    }

    /// The connections whose standing a local account's stored role bounds.
    pub fn of_local(&self, local: &str) -> Vec<ConnId> {
        self.select(|m| m.access.local.as_deref() == Some(local))
    }

    /// Whether a local account has a connection here.
    pub fn has_local(&self, local: &str) -> bool {
        self.by_conn
            .values()
            .any(|m| m.access.local.as_deref() == Some(local))
    }

    /// Records that a local account lost its access (None) or holds one again.
    pub fn set_revoked(&mut self, local: &str, revoked: bool) {
        if revoked {
            self.revoked.insert(local.to_owned());
        } else {
            self.revoked.remove(local);
        }
    }

    pub fn is_revoked(&self, local: &str) -> bool {
        self.revoked.contains(local)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(user: &str, local: Option<&str>) -> Member {
        let (tx, _rx) = mpsc::channel(1);
        Member {
            user: UserId::try_from(user).unwrap(),
            access: ConnAccess {
                role: Role::Editor,
                cap: Role::Owner,
                local: local.map(str::to_owned),
                session: None,
                expires_at: None,
                until: None,
            },
            tx,
            kick: Arc::default(),
            held: None,
            hold_until: 0,
            seen: 0,
        }
    }

    // The per-user count follows the connections: a user's last connection says so once.
    #[test]
    fn members_count_connections_per_user() {
        let mut m = Members::default();
        let ann = UserId::try_from("ann").unwrap();
        m.insert(1, member("ann", Some("ann")));
        m.insert(2, member("ann", Some("ann")));
        m.insert(3, member("bob", None));
        assert_eq!(m.connections_of(&ann), 2);
        assert_eq!(m.role(2), Role::Editor);
        assert_eq!(m.of_local("ann").len(), 2);
        assert!(!m.remove(1).unwrap().1, "ann still has a connection");
        assert!(m.remove(1).is_none());
        assert!(m.remove(2).unwrap().1, "ann's last");
        assert_eq!(m.connections_of(&ann), 0);
        assert_eq!(m.role(2), Role::Viewer, "a gone connection is a viewer");
        assert_eq!(m.len(), 1);
        m.set_revoked("ann", true);
        assert!(m.is_revoked("ann"));
        m.insert(4, member("ann", Some("ann")));
        assert!(!m.is_revoked("ann"), "joining again holds a role again");
    }
}
