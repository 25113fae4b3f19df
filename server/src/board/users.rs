//! Per-user state on a board: undo and redo stacks, recent client commit ids, presence.

use super::Board;
use super::clients::frame;
use protocol::{PresenceState, Seq, ServerMsg, UndoChange, UserId, UserView};
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

/// Client commit ids remembered per user for idempotent re-sends (a client re-sends only the
/// commits it had in flight when its connection dropped).
pub const REMEMBERED_CLIENT_IDS: usize = 128;

/// An undoable command: its seq and what it changed, in the compact form undo needs.
#[derive(Debug, Clone)]
pub struct Entry {
    pub seq: Seq,
    pub changes: Box<[UndoChange]>,
}

/// One user on one board (across their connections).
pub struct UserSession {
    pub view: UserView,
    /// When their last connection closed; `left` goes out after the grace period.
    pub gone_since: Option<Instant>,
    /// Whether others have been told this user joined.
    pub announced: bool,
    pub undo: VecDeque<Entry>,
    pub redo: VecDeque<Entry>,
    /// Recent client commit ids and the seqs they were applied at.
    client_ids: RecentIds,
    pub presence: PresenceState,
    /// AI mode, plan, open question, conversation memory and command queue.
    pub ai: super::ai::AiSession,
}

/// Cursor colors, told apart on a white and a dark canvas.
const COLORS: [&str; 12] = [
    "#E53935", "#8E24AA", "#3949AB", "#039BE5", "#00897B", "#7CB342", "#FB8C00", "#6D4C41",
    "#D81B60", "#5E35B1", "#00ACC1", "#C0CA33",
];

/// A user id's preferred cursor color (stable across boards and visits).
pub fn user_color(id: &UserId) -> String {
    COLORS[preferred(id)].to_string()
}

fn preferred(id: &UserId) -> usize {
    let h = id
        .as_str()
        .bytes()
        .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    h as usize % COLORS.len()
}

/// The color for `id` among colors already `taken` (UI-POLISH-1): its preferred one when free,
/// else the next free one; with every color taken, the preferred one.
pub fn free_color<'a>(id: &UserId, taken: impl Iterator<Item = &'a str>) -> String {
    let taken: Vec<&str> = taken.collect();
    let start = preferred(id);
    (0..COLORS.len())
        .map(|i| COLORS[(start + i) % COLORS.len()])
        .find(|c| !taken.contains(c))
        .unwrap_or(COLORS[start])
        .to_string()
}

impl UserSession {
    pub fn new(id: &UserId, name: &str) -> Self {
        let view = UserView {
            id: id.clone(),
            name: if name.is_empty() {
                id.to_string()
            } else {
                name.chars().take(64).collect()
            },
            color: user_color(id),
        };
        UserSession {
            presence: PresenceState {
                user: view.clone(),
                cursor: None,
                selection: None,
                viewport: None,
                editing: None,
                following: None,
            },
            view,
            gone_since: None,
            announced: false,
            undo: VecDeque::new(),
            redo: VecDeque::new(),
            client_ids: RecentIds::default(),
            ai: super::ai::AiSession::new(),
        }
    }

    /// The seq a client commit id was applied at, if remembered.
    pub fn seen_client_id(&self, id: &str) -> Option<Seq> {
        self.client_ids.get(id)
    }

    /// Remembers a client commit id that is not remembered yet: the commit path checks
    /// `seen_client_id` first, and a log never holds one id twice. (Were one pushed twice, the
    /// newest would win the search, which is the right answer anyway.)
    pub fn remember_client_id(&mut self, id: String, seq: Seq) {
        self.client_ids.insert(id, seq);
    }

    /// Records a new command of this user: onto the undo stack, redo cleared.
    pub fn push_command(&mut self, entry: Entry, depth: usize) {
        self.undo.push_back(entry);
        while self.undo.len() > depth {
            self.undo.pop_front();
        }
        self.redo.clear();
    }

    /// Forgets everything that refers to commands after `durable` (they were rolled back).
    pub fn forget_after(&mut self, durable: Seq) {
        self.undo.retain(|e| e.seq <= durable);
        self.redo.retain(|e| e.seq <= durable);
        self.client_ids.forget_after(durable);
    }
}

/// The last [`REMEMBERED_CLIENT_IDS`] client commit ids of a user, oldest first, with a count
/// per id hash. Every commit asks for its id, which is almost always new: the counts answer that
/// without walking the list. Measured on a busy board's thread (`perf record -t`, 100 boards ×
/// 5 clients): the walk was 5.4 %, remembering an id under 1.2 %; with the counts, remembering
/// (which now keeps them) is ~4 % and the lookup no longer shows, a saving of about two points.
/// A hash that is there is confirmed by the ids themselves, newest first.
#[derive(Debug, Default)]
struct RecentIds {
    /// `(hash, id, seq)`, oldest first; one allocation per id.
    list: VecDeque<(u64, Box<str>, Seq)>,
    /// How many entries of `list` have each hash (keyed by the hash itself: hashing it again
    /// with SipHash was most of `insert`'s time).
    hashes: HashMap<u64, u32, std::hash::BuildHasherDefault<PreHashed>>,
}

/// A `Hasher` for keys that are hashes already ([`super::fnv1a`]): the key is its own hash.
#[derive(Debug, Default, Clone, Copy)]
struct PreHashed(u64);

impl std::hash::Hasher for PreHashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed here; any other input is folded in, FNV-style.
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl RecentIds {
    fn get(&self, id: &str) -> Option<Seq> {
        let h = super::fnv1a(id);
        if !self.hashes.contains_key(&h) {
            return None;
        }
        self.list
            .iter()
            .rev()
            .find(|(k, c, _)| *k == h && **c == *id)
            .map(|(_, _, s)| *s)
    }

    fn insert(&mut self, id: String, seq: Seq) {
        let h = super::fnv1a(&id);
        self.list.push_back((h, id.into_boxed_str(), seq));
        *self.hashes.entry(h).or_default() += 1;
        while self.list.len() > REMEMBERED_CLIENT_IDS {
            if let Some((h, _, _)) = self.list.pop_front() {
                self.unhash(h);
            }
        }
    }

    /// Drops the ids of rolled-back commands (rare: a store failure) and recounts.
    fn forget_after(&mut self, durable: Seq) {
        self.list.retain(|(_, _, s)| *s <= durable);
        self.hashes.clear();
        for (h, _, _) in &self.list {
            *self.hashes.entry(*h).or_default() += 1;
        }
    }

    fn unhash(&mut self, h: u64) {
        if let Some(n) = self.hashes.get_mut(&h) {
            *n -= 1;
            if *n == 0 {
                self.hashes.remove(&h);
            }
        }
    }
}

impl Board {
    /// Sends the latest presence of every user that moved since the last flush (coalesced: the
    /// latest cursor wins). Presence is ephemeral: a full outbox skips it rather than evicting.
    pub fn flush_presence(&mut self) {
        if self.presence_dirty.is_empty() {
            return;
        }
        let dirty: Vec<UserId> = self.presence_dirty.drain().collect();
        for u in dirty {
            let Some(s) = self.users.get(&u) else {
                continue;
            };
            if self.members.connections_of(&u) == 0 {
                continue;
            }
            let f = frame(&ServerMsg::Presence {
                state: s.presence.clone(),
            });
            for (_, c) in self.members.iter() {
                if c.user != u && c.held.is_none() {
                    let _ = c.tx.try_send(f.clone());
                }
            }
        }
    }

    /// Sends `left` for users whose reconnect grace ran out.
    pub fn expire_graces(&mut self) {
        let grace = self.env.config.presence_grace();
        let members = &self.members;
        let expired: Vec<UserId> = self
            .users
            .iter()
            .filter(|(id, s)| {
                members.connections_of(id) == 0
                    && s.gone_since.is_some_and(|t| t.elapsed() >= grace)
            })
            .map(|(id, _)| id.clone())
            .collect();
        for u in expired {
            let Some(s) = self.users.get_mut(&u) else {
                continue;
            };
            s.gone_since = None;
            s.presence.cursor = None;
            s.presence.selection = None;
            s.presence.following = None;
            if s.announced {
                s.announced = false;
                let f = frame(&ServerMsg::Left {
                    user: s.view.clone(),
                });
                self.broadcast_others(Some(&u), &f);
            }
            self.leader_gone(&u);
        }
    }

    /// Removes a connection; its user's presence lingers for the grace period.
    pub fn drop_client(&mut self, conn: super::ConnId) {
        let Some((c, last)) = self.members.remove(conn) else {
            return;
        };
        self.env.metrics.board_clients(-1);
        if last && let Some(s) = self.users.get_mut(&c.user) {
            s.gone_since = Some(Instant::now());
        }
        if self.members.is_empty() {
            self.empty_since = Some(Instant::now());
            self.checkpoint_if_due(true);
        }
    }

    /// The color for `user` joining now: None while they are present (they keep theirs), else
    /// one no present user has (UI-POLISH-1).
    pub fn joining_color(&self, user: &UserId) -> Option<String> {
        let present =
            |id: &UserId, s: &UserSession| self.members.connections_of(id) > 0 || s.announced;
        if self.users.get(user).is_some_and(|s| present(user, s)) {
            return None;
        }
        let taken = self
            .users
            .iter()
            .filter(|(id, s)| *id != user && present(id, s))
            .map(|(_, s)| s.view.color.as_str());
        Some(free_color(user, taken))
    }

    /// Presence of everyone connected (or within their grace) except `except`.
    pub fn presences_except(&self, except: &UserId) -> Vec<PresenceState> {
        self.users
            .iter()
            .filter(|(id, s)| *id != except && s.announced)
            .map(|(_, s)| s.presence.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // CMD-9 (its memory): an id is found while it is among the last 128, with its seq;
    // forgotten once pushed out or rolled back, and the hash counts follow the list.
    #[test]
    fn recent_ids_find_evict_and_forget() {
        let mut r = RecentIds::default();
        for i in 0..200u64 {
            r.insert(format!("c{i}"), i + 1);
        }
        assert_eq!(r.list.len(), REMEMBERED_CLIENT_IDS);
        assert_eq!(r.get("c71"), None, "pushed out");
        assert_eq!(r.get("c72"), Some(73));
        assert_eq!(r.get("c199"), Some(200));
        assert_eq!(r.get("nope"), None);
        r.forget_after(150);
        assert_eq!(r.get("c150"), None, "rolled back");
        assert_eq!(r.get("c149"), Some(150));
        let counted: u32 = r.hashes.values().sum();
        assert_eq!(counted as usize, r.list.len());
        assert_eq!(r.list.len(), 150 - 72);
    }
}
