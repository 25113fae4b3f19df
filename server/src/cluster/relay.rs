//! The relay: connections of this node on boards another node owns ("relayed"), and connections
//! of other nodes on boards this node owns ("proxies"). Each connection's traffic is two
//! numbered streams over core NATS, which may drop a message: a receiver that finds a gap asks
//! the sender for the missing messages (each side keeps the last [`KEPT`] it sent per
//! connection) and, when they are gone, closes the connection with 4009 so the client resumes
//! with `since`. A client never sees a gap.

use super::parts::{self, Assembler};
use super::wire::{self, BoardOp, BoardReply, Head, JoinReply, NodeRef, Repair, WireJoin};
use crate::board::history::{NotSaved, Restore, SaveVersion};
use crate::board::import::{Import, Imported};
use crate::board::{
    BoardHandle, CommentRequest, ConnId, Env, Gone, Held, Join, Kick, RemoteBoard, SetRole,
};
use crate::metrics;
use crate::store::{Author, StoreError};
use axum::extract::ws::Utf8Bytes;
use bytes::Bytes;
use dashmap::DashMap;
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use protocol::{BoardId, ClientMsg, ErrorBody, ErrorCode, UserView, close};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::mpsc;

/// Messages each side keeps per connection for repairs.
const KEPT: usize = 1024;
/// A relayed connection's messages that may wait for room in its board's mailbox; one more
/// closes it with 1013 (the relaying node's edge limits each connection's rate long before).
const INBOX: usize = 256;
/// How long a join or a board request waits for the owner.
const ASK_WITHIN: Duration = Duration::from_secs(5);

/// How often each side announces the last number of its streams that moved lately, so that a
/// lost last message (nothing after it to reveal the gap) is repaired too.
const ANNOUNCE_EVERY: Duration = Duration::from_millis(250);
/// A stream is announced for this long after its last message.
const ANNOUNCE_FOR: Duration = Duration::from_secs(1);

/// Connections and the last number sent on each.
type Ends = Vec<(u64, u64)>;

/// What one side sent on one connection's stream, numbered from 1.
#[derive(Default)]
struct Sent {
    last: u64,
    kept: VecDeque<(Head, Bytes)>,
    /// When the last message was sent.
    at: Option<std::time::Instant>,
}

impl Sent {
    /// Numbers the next message (`head` gets `n`) and keeps it.
    fn next(&mut self, head: impl FnOnce(u64) -> Head, body: Bytes) -> Head {
        self.last += 1;
        self.at = Some(std::time::Instant::now());
        let h = head(self.last);
        if self.kept.len() == KEPT {
            self.kept.pop_front();
        }
        self.kept.push_back((h.clone(), body));
        h
    }

    /// The last number, if a message was sent within [`ANNOUNCE_FOR`].
    fn recent(&self) -> Option<u64> {
        self.at
            .is_some_and(|t| t.elapsed() < ANNOUNCE_FOR)
            .then_some(self.last)
    }

    /// The messages `lo..=hi` again, if all are still kept.
    fn again(&self, lo: u64, hi: u64) -> Repair {
        let first = self.last + 1 - self.kept.len() as u64;
        if lo < first || hi > self.last || lo > hi {
            return Repair::Lost;
        }
        let skip = usize::try_from(lo - first).unwrap_or(usize::MAX);
        let take = usize::try_from(hi - lo + 1).unwrap_or(0);
        Repair::Again(
            self.kept
                .iter()
                .skip(skip)
                .take(take)
                .map(|(h, b)| (h.clone(), String::from_utf8_lossy(b).into_owned()))
                .collect(),
        )
    }
}

/// A connection of this node on a board another node owns.
struct Relayed {
    owner: NodeRef,
    tx: mpsc::Sender<Utf8Bytes>,
    kick: Arc<Kick>,
    /// The number of the next message expected from the owner.
    expected: u64,
    sent: Arc<Mutex<Sent>>,
}

/// A connection of another node on a board this node owns.
struct Proxy {
    local: ConnId,
    board: BoardHandle,
    board_id: BoardId,
    /// The connection's messages on their way into the board, in order (one slow board never
    /// holds up the relay's other connections).
    inbox: mpsc::Sender<ClientMsg>,
    expected: u64,
    sent: Arc<Mutex<Sent>>,
}

pub struct Relay {
    nats: async_nats::Client,
    prefix: String,
    me: NodeRef,
    env: Arc<Env>,
    next_conn: Box<dyn Fn() -> ConnId + Send + Sync>,
    drop_every: u64,
    inbound: AtomicU64,
    relayed: DashMap<ConnId, Relayed>,
    proxies: Mutex<HashMap<(NodeRef, u64), Proxy>>,
    /// The nodes whose lease was live at the last look (kept by the lease loop).
    live: RwLock<HashSet<NodeRef>>,
    /// Numbers the large messages this node cuts into parts.
    next_whole: AtomicU64,
    /// Large messages coming in parts.
    parts: Assembler,
}

impl Relay {
    pub fn new(
        nats: async_nats::Client,
        prefix: String,
        me: NodeRef,
        env: Arc<Env>,
        next_conn: Box<dyn Fn() -> ConnId + Send + Sync>,
        drop_every: u64,
    ) -> Arc<Relay> {
        Arc::new(Relay {
            nats,
            prefix,
            me,
            env,
            next_conn,
            drop_every,
            inbound: AtomicU64::new(0),
            relayed: DashMap::new(),
            proxies: Mutex::new(HashMap::new()),
            live: RwLock::new(HashSet::new()),
            next_whole: AtomicU64::new(1),
            parts: Assembler::default(),
        })
    }

    /// Listens on this node's subject until the subscription ends.
    pub async fn listen(self: Arc<Relay>) -> anyhow::Result<()> {
        let mine = self.nats.subscribe(self.me.subject(&self.prefix)).await?;
        let all = self.nats.subscribe(format!("{}.all", self.prefix)).await?;
        let mut sub = futures_util::stream::select(mine, all);
        let weak = Arc::downgrade(&self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(ANNOUNCE_EVERY);
            loop {
                tick.tick().await;
                let Some(relay) = weak.upgrade() else { return };
                relay.announce().await;
            }
        });
        tokio::spawn(async move {
            while let Some(m) = sub.next().await {
                let Some((head, body)) = self.whole(&m.payload) else {
                    continue;
                };
                match (head, m.reply) {
                    (
                        head @ (Head::Join(_)
                        | Head::Repair { .. }
                        | Head::Board { .. }
                        | Head::SignedOut { .. }),
                        Some(r),
                    ) => {
                        let me = self.clone();
                        tokio::spawn(async move { me.answer(head, r).await });
                    }
                    (head, _) => self.stream(head, body).await,
                }
            }
        });
        Ok(())
    }

    /// A message's head and body: a part is kept until its message is whole (None until then).
    fn whole(&self, payload: &Bytes) -> Option<(Head, Bytes)> {
        let Some((head, body)) = wire::decode(payload) else {
            tracing::warn!("relay: a message that is not one");
            return None;
        };
        let Head::Part { from, id, i, of } = head else {
            return Some((head, body));
        };
        let whole = self.parts.add(from, id, i, of, body)?;
        let decoded = wire::decode(&whole);
        if decoded.is_none() {
            tracing::warn!("relay: a message in parts that is not one");
        }
        decoded
    }

    /// Sends a whole message to `subject`, in parts when it is larger than NATS takes at once;
    /// the last part carries `reply`.
    async fn send(
        &self,
        subject: String,
        whole: Bytes,
        reply: Option<async_nats::Subject>,
    ) -> Result<(), async_nats::PublishError> {
        let limit = self.nats.max_payload().saturating_sub(parts::HEAD_ROOM);
        let pieces = if whole.len() <= limit {
            vec![whole]
        } else {
            let id = self.next_whole.fetch_add(1, Ordering::Relaxed);
            parts::split(&self.me, id, &whole, limit)
        };
        let last = pieces.len() - 1;
        for (k, piece) in pieces.into_iter().enumerate() {
            match (&reply, k == last) {
                (Some(r), true) => {
                    self.nats
                        .publish_with_reply(subject.clone(), r.clone(), piece)
                        .await?
                }
                _ => self.nats.publish(subject.clone(), piece).await?,
            }
        }
        Ok(())
    }

    /// Tells every other live node that a session was signed out, and waits (a while) for each
    /// to have closed the connections that depended on it.
    pub async fn tell_all_signed_out(&self, session: String) {
        let nodes: Vec<NodeRef> = self
            .live
            .read()
            .map(|l| l.iter().filter(|n| **n != self.me).cloned().collect())
            .unwrap_or_default();
        let head = Head::SignedOut {
            from: self.me.clone(),
            session,
        };
        let asks = nodes.iter().map(|n| async {
            // Asked twice at most: a request lost on the way is asked again.
            for _ in 0..2 {
                if self.ask(n, &head).await.is_some() {
                    return;
                }
            }
            tracing::warn!(node = %n.id, "relay: a node did not confirm a sign-out");
        });
        futures_util::future::join_all(asks).await;
    }

    /// Whether `node`'s lease was live at the last look.
    pub fn is_live(&self, node: &NodeRef) -> bool {
        node == &self.me || self.live.read().is_ok_and(|l| l.contains(node))
    }

    /// The live nodes changed: relayed connections whose owner is gone close with 1012, so
    /// their clients reconnect and find the board's new owner; connections of a node that is
    /// gone leave the boards this node owns.
    pub fn set_live(&self, live: HashSet<NodeRef>) {
        let dead: Vec<ConnId> = self
            .relayed
            .iter()
            .filter(|e| !live.contains(&e.owner))
            .map(|e| *e.key())
            .collect();
        // Proxies of a node that is gone: its sockets are gone with it, so the board forgets them.
        let orphans: Vec<Proxy> = self
            .proxies
            .lock()
            .map(|mut p| {
                let gone: Vec<(NodeRef, u64)> = p
                    .keys()
                    .filter(|(n, _)| !live.contains(n))
                    .cloned()
                    .collect();
                gone.into_iter().filter_map(|k| p.remove(&k)).collect()
            })
            .unwrap_or_default();
        if let Ok(mut l) = self.live.write() {
            *l = live;
        }
        for c in dead {
            self.close_relayed(c, close::SERVICE_RESTART, "board owner gone");
        }
        for p in orphans {
            p.board.leave(p.local);
        }
    }

    /// Per board this node owns: how many of its connections each other node relays.
    pub fn relayed_here(&self) -> HashMap<BoardId, HashMap<NodeRef, usize>> {
        let mut out: HashMap<BoardId, HashMap<NodeRef, usize>> = HashMap::new();
        if let Ok(p) = self.proxies.lock() {
            for ((node, _), proxy) in p.iter() {
                *out.entry(proxy.board_id.clone())
                    .or_default()
                    .entry(node.clone())
                    .or_default() += 1;
            }
        }
        out
    }

    /// Closes every relayed connection (this node is fenced or stops).
    pub fn close_all_relayed(&self, code: u16, reason: &str) {
        let all: Vec<ConnId> = self.relayed.iter().map(|e| *e.key()).collect();
        for c in all {
            self.close_relayed(c, code, reason);
        }
    }

    /// A handle on `board`, which `owner` owns.
    pub fn remote(self: &Arc<Relay>, board: BoardId, owner: NodeRef) -> BoardHandle {
        BoardHandle::remote(Arc::new(Remote {
            relay: self.clone(),
            board,
            owner,
        }))
    }

    async fn publish(&self, to: &NodeRef, head: &Head, body: &[u8]) {
        let m = wire::encode(head, body);
        if let Err(e) = self.send(to.subject(&self.prefix), m, None).await {
            tracing::warn!(error = %e, "relay: publish failed");
        }
    }

    /// A request to `to`: its reply (put together when it came in parts), or None when none
    /// came within [`ASK_WITHIN`].
    async fn ask(&self, to: &NodeRef, head: &Head) -> Option<Bytes> {
        let inbox = self.nats.new_inbox();
        let mut replies = self.nats.subscribe(inbox.clone()).await.ok()?;
        let m = wire::encode(head, b"");
        if let Err(e) = self
            .send(to.subject(&self.prefix), m, Some(inbox.into()))
            .await
        {
            tracing::debug!(error = %e, "relay: request failed");
            return None;
        }
        let gathered = Assembler::default();
        let reply = async {
            while let Some(m) = replies.next().await {
                match wire::decode(&m.payload) {
                    Some((Head::Part { from, id, i, of }, body)) => {
                        if let Some(whole) = gathered.add(from, id, i, of, body) {
                            return Some(whole);
                        }
                    }
                    _ => return Some(m.payload),
                }
            }
            None
        };
        tokio::time::timeout(ASK_WITHIN, reply).await.ok().flatten()
    }

    /// Whether the drop hook (`--relay-drop-every`) drops this inbound stream message.
    fn dropped(&self) -> bool {
        let n = self.inbound.fetch_add(1, Ordering::Relaxed) + 1;
        self.drop_every > 0 && n.is_multiple_of(self.drop_every)
    }

    /// Tells every peer the last number of each of its streams that moved lately.
    async fn announce(&self) {
        let mut to: HashMap<NodeRef, (Ends, Ends)> = HashMap::new();
        let proxies: Vec<(NodeRef, u64, Arc<Mutex<Sent>>)> = self
            .proxies
            .lock()
            .map(|p| {
                p.iter()
                    .map(|((n, c), p)| (n.clone(), *c, p.sent.clone()))
                    .collect()
            })
            .unwrap_or_default();
        for (node, c, sent) in proxies {
            if let Some(last) = sent.lock().ok().and_then(|s| s.recent()) {
                to.entry(node).or_default().0.push((c, last));
            }
        }
        for e in &self.relayed {
            if let Some(last) = e.sent.lock().ok().and_then(|s| s.recent()) {
                to.entry(e.owner.clone())
                    .or_default()
                    .1
                    .push((*e.key(), last));
            }
        }
        for (node, (owned, relayed)) in to {
            for (owner, ends) in [(true, owned), (false, relayed)] {
                if !ends.is_empty() {
                    let from = self.me.clone();
                    self.publish(&node, &Head::Tail { from, owner, ends }, b"")
                        .await;
                }
            }
        }
    }

    /// Streams a peer says it sent up to: any number not received yet is repaired.
    async fn tails(&self, from: NodeRef, owner: bool, ends: Vec<(u64, u64)>) {
        for (c, last) in ends {
            let Some(expected) = self.expected(owner, Some(&from), c) else {
                continue;
            };
            if last >= expected && !self.repair(owner, Some(&from), c, expected, last).await {
                self.resync(owner, Some(&from), c).await;
            }
        }
    }

    /// A message of a connection's stream: checked for a gap (repaired first), then handled.
    async fn stream(&self, head: Head, body: Bytes) {
        if self.dropped() {
            return;
        }
        self.env.metrics.cluster_event(metrics::RELAY_MESSAGES);
        if let Head::Tail { from, owner, ends } = head {
            return self.tails(from, owner, ends).await;
        }
        let (owner_side, from, c, n) = match &head {
            Head::Frame { c, n } | Head::Close { c, n, .. } => (true, None, *c, *n),
            Head::Msg { from, c, n } | Head::Leave { from, c, n } => {
                (false, Some(from.clone()), *c, *n)
            }
            _ => return,
        };
        let Some(expected) = self.expected(owner_side, from.as_ref(), c) else {
            return;
        };
        if n < expected {
            return;
        }
        if n > expected
            && !self
                .repair(owner_side, from.as_ref(), c, expected, n - 1)
                .await
        {
            self.resync(owner_side, from.as_ref(), c).await;
            return;
        }
        self.handle(head, body).await;
    }

    /// The next number expected on a stream, if the connection is known.
    fn expected(&self, owner_side: bool, from: Option<&NodeRef>, c: u64) -> Option<u64> {
        if owner_side {
            return self.relayed.get(&c).map(|r| r.expected);
        }
        let from = from?.clone();
        let proxies = self.proxies.lock().ok()?;
        proxies.get(&(from, c)).map(|p| p.expected)
    }

    /// Asks the sender for `lo..=hi` and handles them; false when they are lost.
    async fn repair(
        &self,
        owner_side: bool,
        from: Option<&NodeRef>,
        c: u64,
        lo: u64,
        hi: u64,
    ) -> bool {
        let sender = match (owner_side, from) {
            (true, _) => match self.relayed.get(&c) {
                Some(r) => r.owner.clone(),
                None => return false,
            },
            (false, Some(f)) => f.clone(),
            (false, None) => return false,
        };
        self.env.metrics.cluster_event(metrics::GAP_REPAIRS);
        let ask = Head::Repair {
            from: self.me.clone(),
            owner: owner_side,
            c,
            lo,
            hi,
        };
        let Some(reply) = self.ask(&sender, &ask).await else {
            return false;
        };
        match serde_json::from_slice::<Repair>(&reply) {
            Ok(Repair::Again(msgs)) => {
                for (h, b) in msgs {
                    self.handle(h, Bytes::from(b)).await;
                }
                true
            }
            _ => false,
        }
    }

    /// A gap that could not be repaired: the connection resumes from the log (4009).
    async fn resync(&self, owner_side: bool, from: Option<&NodeRef>, c: u64) {
        tracing::info!(conn = c, "relay: a gap could not be repaired; resync");
        if owner_side {
            self.close_relayed(c, close::RESYNC, "resync");
            return;
        }
        if let Some(from) = from {
            self.drop_proxy(from, c, close::RESYNC, "resync").await;
        }
    }

    /// Handles one message in order (its number is the expected one).
    async fn handle(&self, head: Head, body: Bytes) {
        match head {
            Head::Frame { c, .. } => self.deliver(c, body),
            Head::Close {
                c, code, reason, ..
            } => {
                if let Some((_, r)) = self.relayed.remove(&c) {
                    r.kick.set(code, reason);
                }
            }
            Head::Msg { from, c, .. } => self.to_board(from, c, body).await,
            Head::Leave { from, c, .. } => {
                // Dropping the proxy ends its inbox: the connection leaves after its last message.
                if let Ok(mut p) = self.proxies.lock() {
                    p.remove(&(from, c));
                }
            }
            _ => {}
        }
    }

    /// A frame from the owner into the connection's outbox.
    fn deliver(&self, c: ConnId, body: Bytes) {
        let Some(mut r) = self.relayed.get_mut(&c) else {
            return;
        };
        r.expected += 1;
        let Ok(frame) = Utf8Bytes::try_from(body) else {
            // Never from a node of this build; a damaged frame is not passed on as something
            // else: the client resumes from the log.
            drop(r);
            tracing::warn!(conn = c, "relay: a frame that is not UTF-8; resync");
            self.close_relayed(c, close::RESYNC, "resync");
            return;
        };
        match r.tx.try_send(frame) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                drop(r);
                self.close_relayed(c, close::SLOW, "too slow");
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {}
        }
    }

    /// A relayed client message into the owned board.
    async fn to_board(&self, from: NodeRef, c: u64, body: Bytes) {
        let inbox = self.proxies.lock().ok().and_then(|mut p| {
            let p = p.get_mut(&(from.clone(), c))?;
            p.expected += 1;
            Some(p.inbox.clone())
        });
        let Some(inbox) = inbox else {
            return;
        };
        let text = String::from_utf8_lossy(&body);
        let msg = match ClientMsg::decode(&text) {
            Ok(msg) => msg,
            Err(e) => {
                tracing::warn!(code = e.code.as_str(), "relay: a relayed message");
                return;
            }
        };
        if let Err(mpsc::error::TrySendError::Full(_)) = inbox.try_send(msg) {
            let why = "too many messages waiting for the board";
            self.drop_proxy(&from, c, close::TRY_AGAIN, why).await;
        }
    }

    /// Closes a relayed connection with `code` and tells its owner it left.
    fn close_relayed(&self, c: ConnId, code: u16, reason: &str) {
        let Some((_, r)) = self.relayed.remove(&c) else {
            return;
        };
        r.kick.set(code, reason);
        let leave = r
            .sent
            .lock()
            .map(|mut s| {
                s.next(
                    |n| Head::Leave {
                        from: self.me.clone(),
                        c,
                        n,
                    },
                    Bytes::new(),
                )
            })
            .ok();
        if let Some(leave) = leave {
            let nats = self.nats.clone();
            let subject = r.owner.subject(&self.prefix);
            tokio::spawn(async move {
                let _ = nats.publish(subject, wire::encode(&leave, b"")).await;
            });
        }
    }

    /// Drops a proxy: the board forgets the connection, and the relay closes it with `code`.
    async fn drop_proxy(&self, from: &NodeRef, c: u64, code: u16, reason: &str) {
        let p = self
            .proxies
            .lock()
            .ok()
            .and_then(|mut p| p.remove(&(from.clone(), c)));
        let Some(p) = p else {
            return;
        };
        p.board.leave(p.local);
        let head = p
            .sent
            .lock()
            .map(|mut s| {
                s.next(
                    |n| Head::Close {
                        c,
                        n,
                        code,
                        reason: reason.to_owned(),
                    },
                    Bytes::new(),
                )
            })
            .ok();
        if let Some(h) = head {
            self.publish(from, &h, b"").await;
        }
    }

    /// Answers a request.
    async fn answer(self: Arc<Relay>, head: Head, reply_to: async_nats::Subject) {
        let reply = match head {
            Head::Join(j) => wire::reply(&self.clone().join_here(*j).await),
            Head::Repair {
                from,
                owner,
                c,
                lo,
                hi,
            } => wire::reply(&self.again(&from, owner, c, lo, hi)),
            Head::Board { board, op } => wire::reply(&self.board_op(&board, op).await),
            Head::SignedOut { from, session } => {
                if from != self.me {
                    self.end_session(session).await;
                }
                wire::reply(&true)
            }
            _ => return,
        };
        if let Err(e) = self.send(reply_to.to_string(), reply, None).await {
            tracing::warn!(error = %e, "relay: reply failed");
        }
    }

    fn again(&self, from: &NodeRef, owner: bool, c: u64, lo: u64, hi: u64) -> Repair {
        let sent = if owner {
            let p = self.proxies.lock().ok();
            p.and_then(|p| p.get(&(from.clone(), c)).map(|p| p.sent.clone()))
        } else {
            self.relayed.get(&c).map(|r| r.sent.clone())
        };
        match sent.and_then(|s| s.lock().ok().map(|s| s.again(lo, hi))) {
            Some(r) => r,
            None => Repair::Lost,
        }
    }

    /// A board this node owns, if it does (it is loaded, or placed here now).
    async fn owned(&self, board: &BoardId) -> Option<BoardHandle> {
        let handle = self.env.registry.get(&self.env, board).await.ok()?;
        (!handle.is_remote()).then_some(handle)
    }

    /// Joins another node's connection to a board this node owns.
    async fn join_here(self: Arc<Relay>, j: WireJoin) -> JoinReply {
        let Some(board) = self.owned(&j.board).await else {
            return JoinReply::NotHere;
        };
        let local = (self.next_conn)();
        let (tx, rx) = mpsc::channel::<Utf8Bytes>(self.env.config.outbox_capacity);
        let kick = Arc::new(Kick::default());
        let sent = Arc::new(Mutex::new(Sent::default()));
        let key = (j.from.clone(), j.conn);
        let (inbox, mut queued) = mpsc::channel::<ClientMsg>(INBOX);
        let into = board.clone();
        // Drains the inbox into the board; once the proxy is gone, the connection leaves after
        // its last message.
        tokio::spawn(async move {
            while let Some(msg) = queued.recv().await {
                if into.send(local, msg).await.is_err() {
                    return;
                }
            }
            into.leave(local);
        });
        if let Ok(mut p) = self.proxies.lock() {
            p.insert(
                key.clone(),
                Proxy {
                    local,
                    board: board.clone(),
                    board_id: j.board.clone(),
                    inbox,
                    expected: 1,
                    sent: sent.clone(),
                },
            );
        }
        tokio::spawn(self.clone().forward(key.clone(), rx, kick.clone(), sent));
        let joined = board
            .join(Join {
                conn: local,
                user: j.user,
                since: j.since,
                comments_since: j.comments_since,
                tx,
                kick,
                access: j.access,
                title: j.title,
            })
            .await;
        let reply = match joined {
            Ok(Ok(view)) => return JoinReply::Joined(view),
            Ok(Err(e)) => JoinReply::Refused(e),
            Err(Gone) => JoinReply::NotHere,
        };
        if let Ok(mut p) = self.proxies.lock() {
            p.remove(&key);
        }
        reply
    }

    /// Sends what the board queues for a proxy to the connection's node, then its close.
    async fn forward(
        self: Arc<Relay>,
        key: (NodeRef, u64),
        mut rx: mpsc::Receiver<Utf8Bytes>,
        kick: Arc<Kick>,
        sent: Arc<Mutex<Sent>>,
    ) {
        let (to, c) = key.clone();
        while let Some(frame) = rx.recv().await {
            let body = Bytes::from(frame);
            let len = body.len();
            let head = sent
                .lock()
                .ok()
                .map(|mut s| s.next(|n| Head::Frame { c, n }, body.clone()));
            if let Some(head) = head {
                self.publish(&to, &head, &body).await;
            }
            kick.written(len);
        }
        let (code, reason) = kick
            .get()
            .cloned()
            .unwrap_or((close::SERVICE_RESTART, "board moved".to_owned()));
        let head = sent
            .lock()
            .ok()
            .map(|mut s| s.next(|n| Head::Close { c, n, code, reason }, Bytes::new()));
        if let Some(head) = head {
            self.publish(&to, &head, b"").await;
        }
        if let Ok(mut p) = self.proxies.lock() {
            p.remove(&key);
        }
    }

    /// What an HTTP route on another node asks of a board this node owns.
    async fn board_op(&self, board: &BoardId, op: BoardOp) -> BoardReply {
        let Some(h) = self.env.registry.loaded(board) else {
            return BoardReply::NotHere;
        };
        match op {
            BoardOp::Inspect => match h.inspect().await {
                Ok(i) => BoardReply::Inspection {
                    seq: i.seq,
                    durable: i.durable,
                    objects: i.objects,
                    clients: i.clients,
                },
                Err(Gone) => BoardReply::NotHere,
            },
            BoardOp::Flush { within_ms } => {
                BoardReply::Done(h.flush(Duration::from_millis(within_ms)).await)
            }
            BoardOp::Retitle { title } => {
                h.retitle(title).await;
                BoardReply::Done(true)
            }
            BoardOp::CloseAll {
                error,
                code,
                reason,
            } => {
                h.close_all(error, code, reason).await;
                BoardReply::Done(true)
            }
            BoardOp::Import { user, objects } => match h.import(Import { user, objects }).await {
                Ok(r) => BoardReply::Imported(r),
                Err(Gone) => BoardReply::NotHere,
            },
            BoardOp::SaveVersion {
                name,
                by,
                named,
                max,
            } => save_here(&h, name, by, named, max).await,
            BoardOp::Restore { user, version } => self.restore_here(&h, board, user, version).await,
            BoardOp::Comment { by, role, change } => comment_here(&h, by, role, change).await,
            BoardOp::AssetsAdded { names } => {
                h.assets_added(names).await;
                BoardReply::Done(true)
            }
            BoardOp::Pictures { forget } => match h.pictures(forget).await {
                Ok(held) => BoardReply::Pictures(held),
                Err(Gone) => BoardReply::NotHere,
            },
            BoardOp::Delete => {
                let deleted = self.env.registry.delete(&self.env, board).await;
                BoardReply::Deleted(deleted.map_err(|e| e.to_string()))
            }
            BoardOp::SetRole {
                user,
                role,
                until,
                why,
            } => {
                let why = known_why(&why);
                h.set_role(SetRole {
                    user,
                    role,
                    until,
                    why,
                })
                .await;
                BoardReply::Done(true)
            }
        }
    }

    /// Restores a stored version on a board this node owns (HIST-5), for a route on another node.
    async fn restore_here(
        &self,
        h: &BoardHandle,
        board: &BoardId,
        user: protocol::UserId,
        version: u64,
    ) -> BoardReply {
        let objects = match self.env.store.load_version(board, version).await {
            Ok(Some((_, objects))) => objects,
            Ok(None) => {
                let e = ErrorBody::new(ErrorCode::NotFound, format!("no version {version}"));
                return BoardReply::Restored(Err(e));
            }
            Err(e) => {
                // The store's own text stays in this node's log (ERR-1).
                let public = crate::errors::public(e.public_message(), &e);
                let e = ErrorBody::new(e.code(), public);
                return BoardReply::Restored(Err(e));
            }
        };
        let (done, rx) = tokio::sync::oneshot::channel();
        let ask = Restore {
            user,
            version,
            objects,
            done,
        };
        if h.restore(ask).await.is_err() {
            return BoardReply::NotHere;
        }
        match rx.await {
            Ok(r) => BoardReply::Restored(r),
            Err(_) => BoardReply::NotHere,
        }
    }

    /// Closes, on every board this node runs, the connections that depended on a session that
    /// was signed out on another node (AUTH-19).
    async fn end_session(&self, session: String) {
        let boards = self.env.registry.all();
        let ends = boards
            .iter()
            .filter(|(_, b)| !b.is_remote())
            .map(|(_, b)| b.session_ended(session.clone()));
        futures_util::future::join_all(ends).await;
    }
}

/// A comment change on a board this node owns, for a route on another node (COMMENT-7).
async fn comment_here(
    h: &BoardHandle,
    by: protocol::UserId,
    role: protocol::Role,
    op: protocol::CommentOp,
) -> BoardReply {
    let (done, rx) = tokio::sync::oneshot::channel();
    let req = CommentRequest { by, role, op, done };
    if h.comment(req).await.is_err() {
        return BoardReply::NotHere;
    }
    match rx.await {
        Ok(r) => BoardReply::Commented(r),
        Err(_) => BoardReply::NotHere,
    }
}

/// Saves a named version on a board this node owns, for a route on another node (HIST-4).
async fn save_here(h: &BoardHandle, name: String, by: Author, named: u64, max: u64) -> BoardReply {
    let (done, rx) = tokio::sync::oneshot::channel();
    let ask = SaveVersion {
        name,
        by,
        named,
        max,
        done,
    };
    if h.save_version(ask).await.is_err() {
        return BoardReply::NotHere;
    }
    let saved = match rx.await {
        Ok(r) => r,
        Err(_) => return BoardReply::NotHere,
    };
    BoardReply::Saved(saved.map_err(|e| match e {
        NotSaved::NotNow => wire::NotSaved::NotNow,
        NotSaved::Busy => wire::NotSaved::Busy,
        NotSaved::Full(n) => wire::NotSaved::Full(n),
        NotSaved::Store(e) => wire::NotSaved::Store(e.to_string()),
    }))
}

/// The reason a board gives connections that lose their role, as one of the board's own.
fn known_why(why: &str) -> &'static str {
    const KNOWN: [&str; 3] = [
        "access revoked",
        "the share link expired",
        "credential expired",
    ];
    KNOWN
        .into_iter()
        .find(|k| *k == why)
        .unwrap_or("access revoked")
}

/// A board another node owns, as [`BoardHandle`] reaches it.
struct Remote {
    relay: Arc<Relay>,
    board: BoardId,
    owner: NodeRef,
}

impl Remote {
    async fn ask_board(&self, op: BoardOp) -> Option<BoardReply> {
        let head = Head::Board {
            board: self.board.clone(),
            op,
        };
        let reply = self.relay.ask(&self.owner, &head).await?;
        serde_json::from_slice(&reply).ok()
    }

    async fn join_there(&self, join: Join) -> Result<Result<UserView, ErrorBody>, Gone> {
        let relay = &self.relay;
        let c = join.conn;
        let sent = Arc::new(Mutex::new(Sent::default()));
        relay.relayed.insert(
            c,
            Relayed {
                owner: self.owner.clone(),
                tx: join.tx,
                kick: join.kick,
                expected: 1,
                sent,
            },
        );
        let head = Head::Join(Box::new(WireJoin {
            board: self.board.clone(),
            from: relay.me.clone(),
            conn: c,
            user: join.user,
            since: join.since,
            comments_since: join.comments_since,
            access: join.access,
            title: join.title,
        }));
        let reply = relay.ask(&self.owner, &head).await;
        match reply.and_then(|r| serde_json::from_slice::<JoinReply>(&r).ok()) {
            Some(JoinReply::Joined(v)) => Ok(Ok(v)),
            Some(JoinReply::Refused(e)) => {
                relay.relayed.remove(&c);
                Ok(Err(e))
            }
            _ => {
                relay.relayed.remove(&c);
                Err(Gone)
            }
        }
    }
}

impl RemoteBoard for Remote {
    fn join(&self, join: Join) -> BoxFuture<'_, Result<Result<UserView, ErrorBody>, Gone>> {
        Box::pin(self.join_there(join))
    }

    fn leave(&self, conn: ConnId) {
        self.relay.close_relayed(conn, close::NORMAL, "left");
    }

    fn send(&self, conn: ConnId, text: Bytes) -> BoxFuture<'_, Result<(), Gone>> {
        Box::pin(async move {
            let (owner, sent) = match self.relay.relayed.get(&conn) {
                Some(r) => (r.owner.clone(), r.sent.clone()),
                None => return Err(Gone),
            };
            let me = self.relay.me.clone();
            let head = sent.lock().map_err(|_| Gone)?.next(
                |n| Head::Msg {
                    from: me,
                    c: conn,
                    n,
                },
                text.clone(),
            );
            self.relay.publish(&owner, &head, &text).await;
            Ok(())
        })
    }

    fn alive(&self) -> bool {
        self.relay.is_live(&self.owner)
    }

    fn inspect(&self) -> BoxFuture<'_, Result<crate::board::Inspection, Gone>> {
        Box::pin(async move {
            match self.ask_board(BoardOp::Inspect).await {
                Some(BoardReply::Inspection {
                    seq,
                    durable,
                    objects,
                    clients,
                }) => Ok(crate::board::Inspection {
                    seq,
                    durable,
                    objects,
                    clients,
                    invariants: Ok(()),
                }),
                _ => Err(Gone),
            }
        })
    }

    fn flush(&self, within: Duration) -> BoxFuture<'_, bool> {
        let within_ms = u64::try_from(within.as_millis()).unwrap_or(u64::MAX);
        Box::pin(async move {
            matches!(
                self.ask_board(BoardOp::Flush { within_ms }).await,
                Some(BoardReply::Done(true))
            )
        })
    }

    fn retitle(&self, title: String) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let _ = self.ask_board(BoardOp::Retitle { title }).await;
        })
    }

    fn close_all(&self, error: ErrorCode, code: u16, reason: String) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let op = BoardOp::CloseAll {
                error,
                code,
                reason,
            };
            let _ = self.ask_board(op).await;
        })
    }

    fn import(&self, import: Import) -> BoxFuture<'_, Result<Result<Imported, ErrorBody>, Gone>> {
        Box::pin(async move {
            let op = BoardOp::Import {
                user: import.user,
                objects: import.objects,
            };
            match self.ask_board(op).await {
                Some(BoardReply::Imported(r)) => Ok(r),
                _ => Err(Gone),
            }
        })
    }

    fn save_version(&self, save: SaveVersion) -> BoxFuture<'_, Result<(), Gone>> {
        Box::pin(async move {
            let op = BoardOp::SaveVersion {
                name: save.name,
                by: save.by,
                named: save.named,
                max: save.max,
            };
            let Some(BoardReply::Saved(r)) = self.ask_board(op).await else {
                return Err(Gone);
            };
            let r = r.map_err(|e| match e {
                wire::NotSaved::NotNow => NotSaved::NotNow,
                wire::NotSaved::Busy => NotSaved::Busy,
                wire::NotSaved::Full(n) => NotSaved::Full(n),
                wire::NotSaved::Store(m) => NotSaved::Store(StoreError::Unavailable(m)),
            });
            let _ = save.done.send(r);
            Ok(())
        })
    }

    fn restore(&self, restore: Restore) -> BoxFuture<'_, Result<(), Gone>> {
        Box::pin(async move {
            let op = BoardOp::Restore {
                user: restore.user,
                version: restore.version,
            };
            let Some(BoardReply::Restored(r)) = self.ask_board(op).await else {
                return Err(Gone);
            };
            let _ = restore.done.send(r);
            Ok(())
        })
    }

    fn comment(&self, req: CommentRequest) -> BoxFuture<'_, Result<(), Gone>> {
        Box::pin(async move {
            let op = BoardOp::Comment {
                by: req.by,
                role: req.role,
                change: req.op,
            };
            let Some(BoardReply::Commented(r)) = self.ask_board(op).await else {
                return Err(Gone);
            };
            let _ = req.done.send(r);
            Ok(())
        })
    }

    fn assets_added(&self, names: Vec<String>) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let _ = self.ask_board(BoardOp::AssetsAdded { names }).await;
        })
    }

    fn pictures(&self, forget: Vec<String>) -> BoxFuture<'_, Result<Held, Gone>> {
        Box::pin(async move {
            match self.ask_board(BoardOp::Pictures { forget }).await {
                Some(BoardReply::Pictures(held)) => Ok(held),
                _ => Err(Gone),
            }
        })
    }

    fn delete(&self) -> BoxFuture<'_, Result<bool, Gone>> {
        Box::pin(async move {
            match self.ask_board(BoardOp::Delete).await {
                Some(BoardReply::Deleted(Ok(found))) => Ok(found),
                _ => Err(Gone),
            }
        })
    }

    fn set_role(&self, set: SetRole) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let op = BoardOp::SetRole {
                user: set.user,
                role: set.role,
                until: set.until,
                why: set.why.to_owned(),
            };
            let _ = self.ask_board(op).await;
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sender_repeats_what_it_keeps_and_says_lost_otherwise() {
        let mut s = Sent::default();
        for _ in 0..(KEPT + 10) {
            s.next(|n| Head::Frame { c: 1, n }, Bytes::from_static(b"{}"));
        }
        let last = (KEPT + 10) as u64;
        match s.again(last - 2, last) {
            Repair::Again(v) => assert_eq!(v.len(), 3),
            Repair::Lost => panic!("kept"),
        }
        assert!(matches!(s.again(1, 3), Repair::Lost));
        assert!(matches!(s.again(last, last + 1), Repair::Lost));
    }
}
