//! The comment lane as plain data (COMMENT-n): a board's threads as they are durable, the
//! changes not durable yet on top of them, and the rules of each change (who may, limits,
//! bodies). No I/O; the actor (`mod.rs`) hands its changes to the store one at a time.

use crate::store::comments::{Detached, NoteReason, Notification, StoredThread};
use protocol::comments::{
    MAX_COMMENT_CHARS, MAX_COMMENTS_PER_THREAD, MAX_EMOJI_BYTES, MAX_REACTIONS_PER_COMMENT,
    MAX_THREADS_PER_BOARD, mentions,
};
use protocol::{
    Anchor, BoardObject, Comment, CommentOp, Cseq, ErrorBody, ErrorCode, Resolved, Role, Thread,
    UserId,
};
use std::collections::{BTreeMap, HashMap};

/// Who asks for a change.
#[derive(Debug, Clone)]
pub struct Actor {
    pub user: UserId,
    pub role: Role,
}

/// A change the lane made: the thread as it is now (numbered), whom to tell, and the comment it
/// made or touched.
#[derive(Debug, Clone)]
pub struct Change {
    pub thread: StoredThread,
    pub notes: Vec<Notification>,
    pub comment: Option<String>,
}

/// What a request came to: a change, or nothing to change (the thread as it is).
#[derive(Debug)]
pub enum Outcome {
    Changed(Change),
    Unchanged(Thread, Option<String>),
}

/// See the module docs.
#[derive(Debug, Default)]
pub struct Lane {
    /// Threads as they are durable.
    durable: HashMap<String, StoredThread>,
    /// Threads changed since, as they are now (newest change).
    pending: HashMap<String, StoredThread>,
    /// The highest durable comment seq.
    durable_cseq: Cseq,
    /// The highest comment seq given.
    cseq: Cseq,
    /// Which thread holds each comment.
    comment_thread: HashMap<String, String>,
}

fn err(code: ErrorCode, m: impl Into<String>) -> ErrorBody {
    ErrorBody::new(code, m)
}

fn forbidden() -> ErrorBody {
    err(
        ErrorCode::Forbidden,
        "your role on this board does not allow this",
    )
}

fn new_id(prefix: &str) -> String {
    let u = uuid::Uuid::new_v4().simple().to_string();
    format!("{prefix}{}", &u[..20])
}

/// A body as stored: trimmed at the ends, 1 to [`MAX_COMMENT_CHARS`] characters.
pub fn check_body(body: &str) -> Result<String, ErrorBody> {
    let body = body.trim();
    if body.is_empty() {
        return Err(err(ErrorCode::Invalid, "a comment needs some text"));
    }
    let n = body.chars().count();
    if n > MAX_COMMENT_CHARS {
        return Err(err(
            ErrorCode::TooLarge,
            format!("a comment of {n} characters exceeds the limit of {MAX_COMMENT_CHARS}"),
        ));
    }
    Ok(body.to_owned())
}

impl Lane {
    /// The lane of a board whose stored threads are these.
    pub fn load(threads: Vec<StoredThread>) -> Lane {
        let mut lane = Lane::default();
        for t in threads {
            lane.durable_cseq = lane.durable_cseq.max(t.cseq);
            lane.index(&t.thread);
            lane.durable.insert(t.thread.id.clone(), t);
        }
        lane.cseq = lane.durable_cseq;
        lane
    }

    fn index(&mut self, t: &Thread) {
        for c in &t.comments {
            self.comment_thread.insert(c.id.clone(), t.id.clone());
        }
    }

    pub fn durable_cseq(&self) -> Cseq {
        self.durable_cseq
    }

    /// A thread as it is now (a pending change, or durable).
    pub fn current(&self, id: &str) -> Option<&StoredThread> {
        self.pending.get(id).or_else(|| self.durable.get(id))
    }

    fn len(&self) -> usize {
        self.durable.len()
            + self
                .pending
                .keys()
                .filter(|k| !self.durable.contains_key(*k))
                .count()
    }

    /// The durable open threads, newest change first, at most `cap`; and whether there were more.
    pub fn open(&self, cap: usize) -> (Vec<Thread>, bool) {
        let mut open: Vec<&StoredThread> = self
            .durable
            .values()
            .filter(|t| t.thread.resolved.is_none())
            .collect();
        open.sort_by_key(|t| std::cmp::Reverse(t.cseq));
        let cut = open.len() > cap;
        (
            open.into_iter()
                .take(cap)
                .map(|t| t.thread.clone())
                .collect(),
            cut,
        )
    }

    /// The durable threads changed after `since`, oldest change first.
    pub fn since(&self, since: Cseq) -> Vec<&StoredThread> {
        let mut out: Vec<&StoredThread> =
            self.durable.values().filter(|t| t.cseq > since).collect();
        out.sort_by_key(|t| t.cseq);
        out
    }

    /// How many open threads are pinned to each object (the agent's context says so, CTX-6).
    pub fn open_on_objects(&self) -> HashMap<protocol::ObjectId, u32> {
        let mut out: HashMap<protocol::ObjectId, u32> = HashMap::new();
        let pending_only = self
            .pending
            .keys()
            .filter(|k| !self.durable.contains_key(*k));
        for id in self.durable.keys().chain(pending_only) {
            if let Some(t) = self.current(id)
                && t.thread.resolved.is_none()
                && let Anchor::Object { object, .. } = &t.thread.anchor
            {
                *out.entry(object.clone()).or_default() += 1;
            }
        }
        out
    }

    /// Whether `user` wrote in any thread of the board.
    pub fn wrote(&self, user: &UserId) -> bool {
        self.durable
            .values()
            .chain(self.pending.values())
            .any(|t| t.thread.comments.iter().any(|c| &c.author == user))
    }

    /// Numbers a changed thread and keeps it as pending.
    fn commit(
        &mut self,
        mut t: StoredThread,
        notes: Vec<Notification>,
        c: Option<String>,
    ) -> Change {
        self.cseq += 1;
        t.cseq = self.cseq;
        self.index(&t.thread);
        self.pending.insert(t.thread.id.clone(), t.clone());
        Change {
            thread: t,
            notes,
            comment: c,
        }
    }

    /// A change was made durable.
    pub fn durable(&mut self, t: StoredThread) {
        self.durable_cseq = self.durable_cseq.max(t.cseq);
        if self
            .pending
            .get(&t.thread.id)
            .is_some_and(|p| p.cseq == t.cseq)
        {
            self.pending.remove(&t.thread.id);
        }
        self.durable.insert(t.thread.id.clone(), t);
    }

    /// The store failed: every change not durable is dropped.
    pub fn failed(&mut self) {
        self.pending.clear();
        self.cseq = self.durable_cseq;
    }

    /// The board's own change `t` (a thread following its object) made again on the thread as it
    /// is now, after a store failure dropped what was not durable: the same anchor, a new seq.
    /// None when the thread is already so (or unknown).
    pub fn repin(&mut self, t: &StoredThread) -> Option<Change> {
        let mut now = self.current(&t.thread.id)?.clone();
        if now.thread.anchor == t.thread.anchor && now.detached == t.detached {
            return None;
        }
        now.thread.anchor = t.thread.anchor.clone();
        now.detached = t.detached.clone();
        Some(self.commit(now, vec![], None))
    }

    /// Applies what `who` asks; `board` names the board in notifications, `objects` finds
    /// anchors' objects, `now` is unix ms. Mentions must be checked by the caller.
    pub fn apply(
        &mut self,
        board: &str,
        who: &Actor,
        op: CommentOp,
        object: impl Fn(&str) -> bool,
        now: i64,
    ) -> Result<Outcome, ErrorBody> {
        if who.role < Role::Commenter {
            return Err(forbidden());
        }
        match op {
            CommentOp::CommentThread { anchor, body } => {
                self.new_thread(board, who, anchor, &body, object, now)
            }
            CommentOp::CommentReply { thread, body } => self.reply(board, who, &thread, &body, now),
            CommentOp::CommentEdit { comment, body } => self.edit(board, who, &comment, &body, now),
            CommentOp::CommentDelete { comment } => self.delete(who, &comment),
            CommentOp::CommentResolve { thread, resolved } => {
                self.resolve(who, &thread, resolved, now)
            }
            CommentOp::CommentMove { thread, anchor } => self.move_to(who, &thread, anchor, object),
            CommentOp::CommentReact { comment, emoji, on } => self.react(who, &comment, &emoji, on),
        }
    }

    fn thread(&self, id: &str) -> Result<StoredThread, ErrorBody> {
        self.current(id)
            .cloned()
            .ok_or_else(|| err(ErrorCode::NotFound, "no such thread"))
    }

    /// The thread holding a comment, and the comment's index in it.
    fn comment(&self, id: &str) -> Result<(StoredThread, usize), ErrorBody> {
        let t = self
            .comment_thread
            .get(id)
            .and_then(|t| self.current(t))
            .ok_or_else(|| err(ErrorCode::NotFound, "no such comment"))?;
        let i = t
            .thread
            .comments
            .iter()
            .position(|c| c.id == id)
            .ok_or_else(|| err(ErrorCode::NotFound, "no such comment"))?;
        if t.thread.comments[i].deleted {
            return Err(err(ErrorCode::NotFound, "that comment was deleted"));
        }
        Ok((t.clone(), i))
    }

    fn checked_anchor(anchor: Anchor, object: impl Fn(&str) -> bool) -> Result<Anchor, ErrorBody> {
        let anchor = anchor
            .checked()
            .ok_or_else(|| err(ErrorCode::Invalid, "an anchor's numbers must be finite"))?;
        if let Some(o) = anchor.object()
            && !object(o.as_str())
        {
            return Err(err(ErrorCode::NotFound, format!("no object with id {o}")));
        }
        Ok(anchor)
    }

    fn new_thread(
        &mut self,
        board: &str,
        who: &Actor,
        anchor: Anchor,
        body: &str,
        object: impl Fn(&str) -> bool,
        now: i64,
    ) -> Result<Outcome, ErrorBody> {
        let body = check_body(body)?;
        let anchor = Self::checked_anchor(anchor, object)?;
        if self.len() >= MAX_THREADS_PER_BOARD {
            return Err(err(
                ErrorCode::LimitExceeded,
                format!("a board keeps at most {MAX_THREADS_PER_BOARD} threads"),
            ));
        }
        let first = comment(&who.user, body, now);
        let thread = Thread {
            id: new_id("t"),
            anchor,
            resolved: None,
            comments: vec![first.clone()],
        };
        let notes = mention_notes(board, &thread.id, &who.user, &first.body, "", now);
        let t = StoredThread {
            thread,
            detached: None,
            cseq: 0,
        };
        Ok(Outcome::Changed(self.commit(t, notes, Some(first.id))))
    }

    fn reply(
        &mut self,
        board: &str,
        who: &Actor,
        thread: &str,
        body: &str,
        now: i64,
    ) -> Result<Outcome, ErrorBody> {
        let body = check_body(body)?;
        let mut t = self.thread(thread)?;
        if t.thread.comments.len() >= MAX_COMMENTS_PER_THREAD {
            return Err(err(
                ErrorCode::LimitExceeded,
                format!("a thread keeps at most {MAX_COMMENTS_PER_THREAD} comments"),
            ));
        }
        let c = comment(&who.user, body, now);
        let mut notes = mention_notes(board, thread, &who.user, &c.body, "", now);
        for p in t.thread.participants() {
            if p != &who.user && !notes.iter().any(|n| n.user == p.as_str()) {
                notes.push(note(board, thread, p, NoteReason::Reply, now));
            }
        }
        let id = c.id.clone();
        t.thread.comments.push(c);
        Ok(Outcome::Changed(self.commit(t, notes, Some(id))))
    }

    fn edit(
        &mut self,
        board: &str,
        who: &Actor,
        comment: &str,
        body: &str,
        now: i64,
    ) -> Result<Outcome, ErrorBody> {
        let body = check_body(body)?;
        let (mut t, i) = self.comment(comment)?;
        let c = &mut t.thread.comments[i];
        if c.author != who.user {
            return Err(forbidden());
        }
        if c.body == body {
            return Ok(Outcome::Unchanged(t.thread, Some(comment.to_owned())));
        }
        let notes = mention_notes(board, &t.thread.id, &who.user, &body, &c.body, now);
        c.body = body;
        c.edited_at_ms = Some(now);
        Ok(Outcome::Changed(self.commit(
            t,
            notes,
            Some(comment.to_owned()),
        )))
    }

    fn delete(&mut self, who: &Actor, comment: &str) -> Result<Outcome, ErrorBody> {
        let (mut t, i) = self.comment(comment)?;
        let c = &mut t.thread.comments[i];
        if c.author != who.user && who.role < Role::Owner {
            return Err(forbidden());
        }
        c.deleted = true;
        c.body.clear();
        c.reactions.clear();
        Ok(Outcome::Changed(self.commit(
            t,
            vec![],
            Some(comment.to_owned()),
        )))
    }

    fn resolve(
        &mut self,
        who: &Actor,
        thread: &str,
        resolved: bool,
        now: i64,
    ) -> Result<Outcome, ErrorBody> {
        let mut t = self.thread(thread)?;
        if t.thread.resolved.is_some() == resolved {
            return Ok(Outcome::Unchanged(t.thread, None));
        }
        t.thread.resolved = resolved.then(|| Resolved {
            at: now,
            by: who.user.clone(),
        });
        Ok(Outcome::Changed(self.commit(t, vec![], None)))
    }

    fn move_to(
        &mut self,
        who: &Actor,
        thread: &str,
        anchor: Anchor,
        object: impl Fn(&str) -> bool,
    ) -> Result<Outcome, ErrorBody> {
        let mut t = self.thread(thread)?;
        if who.role < Role::Editor && t.thread.author() != Some(&who.user) {
            return Err(forbidden());
        }
        t.thread.anchor = Self::checked_anchor(anchor, object)?;
        t.detached = None;
        Ok(Outcome::Changed(self.commit(t, vec![], None)))
    }

    fn react(
        &mut self,
        who: &Actor,
        comment: &str,
        emoji: &str,
        on: bool,
    ) -> Result<Outcome, ErrorBody> {
        if emoji.is_empty()
            || emoji.len() > MAX_EMOJI_BYTES
            || emoji.chars().any(char::is_whitespace)
        {
            return Err(err(
                ErrorCode::Invalid,
                format!("a reaction is 1 to {MAX_EMOJI_BYTES} bytes without spaces"),
            ));
        }
        let (mut t, i) = self.comment(comment)?;
        let reactions = &mut t.thread.comments[i].reactions;
        let had = reactions.get(emoji).is_some_and(|u| u.contains(&who.user));
        if had == on {
            return Ok(Outcome::Unchanged(t.thread, Some(comment.to_owned())));
        }
        if on {
            if !reactions.contains_key(emoji) && reactions.len() >= MAX_REACTIONS_PER_COMMENT {
                return Err(err(
                    ErrorCode::LimitExceeded,
                    format!("a comment keeps at most {MAX_REACTIONS_PER_COMMENT} reactions"),
                ));
            }
            reactions
                .entry(emoji.to_owned())
                .or_default()
                .push(who.user.clone());
        } else {
            toggle_off(reactions, emoji, &who.user);
        }
        Ok(Outcome::Changed(self.commit(
            t,
            vec![],
            Some(comment.to_owned()),
        )))
    }

    /// Objects were deleted and others created (a command, or its rollback): threads pinned to
    /// a deleted object become point anchors where the pin was, and threads that were pinned to
    /// an object that is back are pinned to it again. Returns the changes.
    pub fn follow<'a>(
        &mut self,
        created: impl Iterator<Item = &'a BoardObject>,
        deleted: impl Iterator<Item = &'a BoardObject>,
    ) -> Vec<Change> {
        let mut out = Vec::new();
        let deleted: HashMap<&str, &BoardObject> = deleted.map(|o| (o.id.as_str(), o)).collect();
        let created: HashMap<&str, &BoardObject> = created.map(|o| (o.id.as_str(), o)).collect();
        if (deleted.is_empty() && created.is_empty()) || self.comment_thread.is_empty() {
            return out;
        }
        // Only the threads these objects concern (most commands concern none): no copies else.
        let concerned = |t: &StoredThread| match (&t.thread.anchor, &t.detached) {
            (Anchor::Object { object, .. }, _) => deleted.contains_key(object.as_str()),
            (Anchor::Point { .. }, Some(d)) => created.contains_key(d.object.as_str()),
            (Anchor::Point { .. }, None) => false,
        };
        let mut ids: Vec<String> = self
            .durable
            .keys()
            .chain(self.pending.keys())
            .filter(|id| self.current(id).is_some_and(concerned))
            .cloned()
            .collect();
        ids.sort();
        ids.dedup();
        for id in ids {
            let Some(t) = self.current(&id) else { continue };
            if let Some(t) = moved(t, &created, &deleted) {
                out.push(self.commit(t, vec![], None));
            }
        }
        out
    }
}

/// A thread pinned again or unpinned by these object changes, if it is.
fn moved(
    t: &StoredThread,
    created: &HashMap<&str, &BoardObject>,
    deleted: &HashMap<&str, &BoardObject>,
) -> Option<StoredThread> {
    let mut t = t.clone();
    match (&t.thread.anchor, &t.detached) {
        (Anchor::Object { object, fx, fy }, _) => {
            let o = deleted.get(object.as_str())?;
            let (x, y) = Anchor::pin(*fx, *fy, o);
            t.detached = Some(Detached {
                object: object.clone(),
                fx: *fx,
                fy: *fy,
            });
            t.thread.anchor = Anchor::Point { x, y };
        }
        (Anchor::Point { .. }, Some(d)) => {
            created.get(d.object.as_str())?;
            t.thread.anchor = Anchor::Object {
                object: d.object.clone(),
                fx: d.fx,
                fy: d.fy,
            };
            t.detached = None;
        }
        (Anchor::Point { .. }, None) => return None,
    }
    Some(t)
}

fn toggle_off(reactions: &mut BTreeMap<String, Vec<UserId>>, emoji: &str, user: &UserId) {
    if let Some(users) = reactions.get_mut(emoji) {
        users.retain(|u| u != user);
        if users.is_empty() {
            reactions.remove(emoji);
        }
    }
}

fn comment(author: &UserId, body: String, now: i64) -> Comment {
    Comment {
        id: new_id("c"),
        author: author.clone(),
        created_at_ms: now,
        edited_at_ms: None,
        body,
        reactions: BTreeMap::new(),
        deleted: false,
    }
}

fn note(board: &str, thread: &str, user: &UserId, reason: NoteReason, now: i64) -> Notification {
    Notification {
        user: user.to_string(),
        board: board.to_owned(),
        thread: thread.to_owned(),
        reason,
        at_ms: now,
        read_at: None,
    }
}

/// Mentions in `body` that were not in `before`, but the author's own.
fn mention_notes(
    board: &str,
    thread: &str,
    author: &UserId,
    body: &str,
    before: &str,
    now: i64,
) -> Vec<Notification> {
    let old = mentions(before);
    mentions(body)
        .into_iter()
        .filter(|u| u != author && !old.contains(u))
        .map(|u| note(board, thread, &u, NoteReason::Mention, now))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(user: &str, role: Role) -> Actor {
        Actor {
            user: UserId::try_from(user).unwrap(),
            role,
        }
    }

    fn note(id: &str) -> BoardObject {
        let v = serde_json::json!({"id":id,"kind":"note","x":100.0,"y":50.0,"w":200.0,"h":100.0,
            "text":"","color":"#FFD966"});
        serde_json::from_value(v).unwrap()
    }

    fn changed(o: Result<Outcome, ErrorBody>) -> Change {
        match o {
            Ok(Outcome::Changed(c)) => c,
            other => panic!("not a change: {other:?}"),
        }
    }

    fn start(lane: &mut Lane, by: &Actor, anchor: Anchor) -> Change {
        let op = CommentOp::CommentThread {
            anchor,
            body: " hello ".into(),
        };
        changed(lane.apply("b", by, op, |_| true, 1))
    }

    /// The middle of object `n1`.
    fn on_n1() -> Anchor {
        Anchor::Object {
            object: protocol::ObjectId::try_from("n1").unwrap(),
            fx: 0.5,
            fy: 0.5,
        }
    }

    /// COMMENT-5: a thread on a deleted object becomes a point at its pin and pins again when
    /// the object is back; changes are numbered in order and only durable ones are in
    /// `since`; a store failure drops what was not durable.
    #[test]
    fn comment_5_threads_follow_their_objects_and_failures_drop_pending() {
        let mut lane = Lane::default();
        let ann = who("ann", Role::Commenter);
        let anchor = on_n1();
        let first = start(&mut lane, &ann, anchor.clone());
        assert_eq!(first.thread.cseq, 1);
        assert_eq!(first.thread.thread.comments[0].body, "hello");
        lane.durable(first.thread.clone());
        let n1 = note("n1");
        let gone = lane.follow(std::iter::empty(), std::iter::once(&n1));
        assert_eq!(gone.len(), 1);
        let point = &gone[0].thread;
        assert_eq!(point.thread.anchor, Anchor::Point { x: 200.0, y: 100.0 });
        lane.durable(point.clone());
        let back = lane.follow(std::iter::once(&n1), std::iter::empty());
        assert_eq!(back[0].thread.thread.anchor, anchor);
        assert_eq!(back[0].thread.cseq, 3);
        assert_eq!(lane.since(1).len(), 1, "only durable changes replay");
        lane.failed();
        let id = first.thread.thread.id.clone();
        assert_eq!(lane.current(&id).unwrap().cseq, 2);
        let next = start(&mut lane, &ann, Anchor::Point { x: 0.0, y: 0.0 });
        assert_eq!(next.thread.cseq, 3, "a failed seq is given again");
    }

    /// COMMENT-5: after a store failure, a thread's move to a point (or back onto its object) is
    /// made again on the durable thread, without the refused requests' changes.
    #[test]
    fn comment_5_a_failed_move_is_made_again_on_the_durable_thread() {
        let mut lane = Lane::default();
        let ann = who("ann", Role::Commenter);
        let anchor = on_n1();
        let first = start(&mut lane, &ann, anchor);
        lane.durable(first.thread.clone());
        let id = first.thread.thread.id.clone();
        let reply = CommentOp::CommentReply {
            thread: id.clone(),
            body: "refused".into(),
        };
        changed(lane.apply("b", &ann, reply, |_| true, 2));
        let n1 = note("n1");
        let gone = lane.follow(std::iter::empty(), std::iter::once(&n1));
        assert_eq!(gone[0].thread.thread.comments.len(), 2);
        lane.failed();
        let again = lane.repin(&gone[0].thread).expect("made again");
        assert_eq!(
            again.thread.thread.anchor,
            Anchor::Point { x: 200.0, y: 100.0 }
        );
        assert_eq!(
            again.thread.thread.comments.len(),
            1,
            "the refused reply is not in it"
        );
        assert_eq!(again.thread.cseq, 2);
        assert!(lane.repin(&gone[0].thread).is_none(), "already so");
    }

    /// COMMENT-2, COMMENT-4: who may do what.
    #[test]
    fn comment_4_roles_and_authors() {
        let mut lane = Lane::default();
        let (ann, bob) = (who("ann", Role::Commenter), who("bob", Role::Commenter));
        let t = start(&mut lane, &ann, Anchor::Point { x: 0.0, y: 0.0 });
        let (tid, cid) = (t.thread.thread.id.clone(), t.comment.clone().unwrap());
        let viewer = who("vic", Role::Viewer);
        let reply = CommentOp::CommentReply {
            thread: tid.clone(),
            body: "x".into(),
        };
        let code = |r: Result<Outcome, ErrorBody>| r.err().map(|e| e.code);
        assert_eq!(
            code(lane.apply("b", &viewer, reply, |_| true, 2)),
            Some(ErrorCode::Forbidden)
        );
        let edit = CommentOp::CommentEdit {
            comment: cid.clone(),
            body: "mine".into(),
        };
        assert_eq!(
            code(lane.apply("b", &bob, edit, |_| true, 2)),
            Some(ErrorCode::Forbidden)
        );
        let mv = CommentOp::CommentMove {
            thread: tid.clone(),
            anchor: Anchor::Point { x: 1.0, y: 1.0 },
        };
        assert_eq!(
            code(lane.apply("b", &bob, mv.clone(), |_| true, 2)),
            Some(ErrorCode::Forbidden)
        );
        assert!(lane.apply("b", &ann, mv, |_| true, 2).is_ok());
        let owner = who("olga", Role::Owner);
        let del = CommentOp::CommentDelete { comment: cid };
        let d = changed(lane.apply("b", &owner, del, |_| true, 3));
        assert!(d.thread.thread.comments[0].deleted);
        let empty = CommentOp::CommentReply {
            thread: tid,
            body: "   ".into(),
        };
        assert_eq!(
            code(lane.apply("b", &ann, empty, |_| true, 4)),
            Some(ErrorCode::Invalid)
        );
    }
}
