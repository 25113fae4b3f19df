//! The commit pipeline of one board, as plain data (no actor, no I/O): the last seq assigned and
//! the last durable one, the commands applied but not yet durable, how many the log writer still
//! holds, the replay window of durable `applied` frames for resumes, the snapshot counters, and
//! whether the board is recovering from a store failure. The actor (`durable.rs`) drives it;
//! its rules are unit-tested here (CMD-2, DUR-5, LIM-7).

use super::ConnId;
use super::ai::AiFollowUp;
use axum::extract::ws::Utf8Bytes;
use protocol::{Change, Origin, Seq, UserId};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

/// A command applied to the document but not yet durable.
pub(super) struct Pending {
    pub(super) seq: Seq,
    /// Who the command is by (for the next version's authors).
    pub(super) author: UserId,
    pub(super) frame: Utf8Bytes,
    /// Shared with the author's undo entry: needed to roll back if the store fails.
    pub(super) changes: Arc<[Change]>,
    pub(super) origin: Origin,
    /// The connection that caused it and the client commit id, for error reports.
    pub(super) conn: Option<ConnId>,
    pub(super) client_id: Option<String>,
    pub(super) started: Instant,
    /// For an AI command: its `ai_result`, sent to the requester after the `applied`.
    pub(super) ai: Option<AiFollowUp>,
}

/// How many durable frames, and bytes of them, the replay window keeps.
#[derive(Debug, Clone, Copy)]
pub(super) struct WindowCaps {
    pub(super) frames: usize,
    pub(super) bytes: usize,
}

/// One board's commit pipeline.
pub(super) struct Pipeline {
    /// Last seq assigned.
    seq: Seq,
    /// Last seq the store made durable (and so broadcast).
    durable: Seq,
    pending: VecDeque<Pending>,
    /// Commands handed to the log writer whose completion has not arrived.
    inflight: u64,
    /// Recent durable `applied` frames, for resume with `since`, and their bytes.
    window: VecDeque<(Seq, Utf8Bytes)>,
    window_bytes: usize,
    /// Durable commands since the last snapshot, and whether one is being written.
    since_snapshot: u64,
    snapshot_in_flight: bool,
    /// Set after a store failure until the log is repaired; commands are refused meanwhile.
    recovering: bool,
    /// A log repair request is outstanding.
    repairing: bool,
}

impl Pipeline {
    /// A pipeline whose log holds everything up to `seq`, durably.
    pub(super) fn new(seq: Seq) -> Pipeline {
        Pipeline {
            seq,
            durable: seq,
            pending: VecDeque::new(),
            inflight: 0,
            window: VecDeque::new(),
            window_bytes: 0,
            since_snapshot: 0,
            snapshot_in_flight: false,
            recovering: false,
            repairing: false,
        }
    }

    pub(super) fn seq(&self) -> Seq {
        self.seq
    }

    pub(super) fn durable(&self) -> Seq {
        self.durable
    }

    /// The seq the next command gets.
    pub(super) fn next_seq(&self) -> Seq {
        self.seq + 1
    }

    /// Whether commands wait to become durable.
    pub(super) fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    pub(super) fn recovering(&self) -> bool {
        self.recovering
    }

    /// Nothing waits for the store and the store is not being repaired.
    pub(super) fn settled(&self) -> bool {
        self.pending.is_empty() && !self.recovering
    }

    /// Takes an applied command (numbered [`Self::next_seq`]) on its way to the log writer.
    pub(super) fn push(&mut self, p: Pending) {
        debug_assert_eq!(p.seq, self.seq + 1, "seqs are assigned in order");
        self.seq = p.seq;
        self.pending.push_back(p);
        self.inflight += 1;
    }

    /// The pending command numbered `seq`.
    pub(super) fn pending_mut(&mut self, seq: Seq) -> Option<&mut Pending> {
        self.pending.iter_mut().find(|p| p.seq == seq)
    }

    /// The command pushed last, while it is pending.
    pub(super) fn last_mut(&mut self) -> Option<&mut Pending> {
        self.pending.back_mut()
    }

    /// The log writer reported `count` of this board's submissions done.
    pub(super) fn completed(&mut self, count: u64) {
        self.inflight = self.inflight.saturating_sub(count);
    }

    /// The next pending command at or below `upto`, now durable (in seq order).
    pub(super) fn pop_durable(&mut self, upto: Seq) -> Option<Pending> {
        if self.pending.front().is_none_or(|p| p.seq > upto) {
            return None;
        }
        let p = self.pending.pop_front()?;
        self.durable = p.seq;
        self.since_snapshot += 1;
        Some(p)
    }

    /// Keeps a durable command's frame for resume, within the window's bounds (the newest frame
    /// is always kept).
    pub(super) fn remember(&mut self, seq: Seq, frame: Utf8Bytes, caps: WindowCaps) {
        self.window_bytes += frame.len();
        self.window.push_back((seq, frame));
        while self.window.len() > 1
            && (self.window.len() > caps.frames || self.window_bytes > caps.bytes)
        {
            if let Some((_, f)) = self.window.pop_front() {
                self.window_bytes -= f.len();
            }
        }
    }

    /// The durable frames after `since` for a resuming client: empty when it is up to date,
    /// None when it must take the whole board instead (ahead of what is durable, older than the
    /// window, or more than `max` frames behind).
    pub(super) fn replay_since(&self, since: Seq, max: usize) -> Option<Vec<Utf8Bytes>> {
        if since > self.durable {
            return None;
        }
        if since == self.durable {
            return Some(Vec::new());
        }
        let first = self.window.front().map(|(s, _)| *s)?;
        if first > since + 1 {
            return None;
        }
        let frames: Vec<_> = self
            .window
            .iter()
            .filter(|(s, _)| *s > since)
            .map(|(_, f)| f.clone())
            .collect();
        (frames.len() < max).then_some(frames)
    }

    /// The store failed: every pending command, newest last, to be rolled back (None when the
    /// board is recovering already). The seq returns to the last durable one; commands are
    /// refused until [`Self::repaired`].
    pub(super) fn fail(&mut self) -> Option<Vec<Pending>> {
        if self.recovering {
            return None;
        }
        self.recovering = true;
        self.seq = self.durable;
        Some(self.pending.drain(..).collect())
    }

    /// Whether the log repair may start now: recovering, the writer holds none of this board's
    /// commands, and no repair is outstanding. Marks it started when so.
    pub(super) fn start_repair(&mut self) -> bool {
        if !self.recovering || self.inflight > 0 || self.repairing {
            return false;
        }
        self.repairing = true;
        true
    }

    /// Marks a repair outstanding again (a retry after a failed one).
    pub(super) fn retry_repair(&mut self) {
        self.repairing = true;
    }

    /// The repair finished: on success, commands are accepted again.
    pub(super) fn repaired(&mut self, ok: bool) {
        self.repairing = false;
        if ok {
            self.recovering = false;
        }
    }

    /// Whether a snapshot is due after `threshold` durable commands.
    pub(super) fn snapshot_due(&self, threshold: u64) -> bool {
        self.pending.is_empty() && self.since_snapshot >= threshold
    }

    /// Starts a snapshot of the (fully durable) state, unless commands are pending, one is being
    /// written (unless `force`), or nothing changed since the last (unless `force`).
    pub(super) fn begin_snapshot(&mut self, force: bool) -> bool {
        if !self.pending.is_empty() || (self.snapshot_in_flight && !force) {
            return false;
        }
        if self.since_snapshot == 0 && !force {
            return false;
        }
        self.since_snapshot = 0;
        self.snapshot_in_flight = true;
        true
    }

    pub(super) fn snapshot_done(&mut self) {
        self.snapshot_in_flight = false;
    }

    /// Sequencing holds: every seq above the durable one is pending, in order, without a gap.
    pub(super) fn gap_free(&self) -> bool {
        self.durable + self.pending.len() as u64 == self.seq
            && self
                .pending
                .iter()
                .enumerate()
                .all(|(i, p)| p.seq == self.durable + 1 + i as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(seq: Seq, text: &str) -> Pending {
        Pending {
            seq,
            author: UserId::try_from("ann").unwrap(),
            frame: Utf8Bytes::from(text.to_owned()),
            changes: Arc::from(Vec::new()),
            origin: Origin::User,
            conn: Some(1),
            client_id: None,
            started: Instant::now(),
            ai: None,
        }
    }

    const CAPS: WindowCaps = WindowCaps {
        frames: 3,
        bytes: 1000,
    };

    // CMD-2: seqs are assigned in order and become durable in that order, gap-free.
    #[test]
    fn cmd_2_commands_become_durable_in_seq_order() {
        let mut p = Pipeline::new(10);
        for s in 11..=13 {
            p.push(pending(p.next_seq(), &format!("f{s}")));
        }
        assert_eq!((p.seq(), p.durable()), (13, 10));
        assert!(p.gap_free() && p.has_pending());
        p.completed(2);
        let done: Vec<Seq> = std::iter::from_fn(|| p.pop_durable(12))
            .map(|c| c.seq)
            .collect();
        assert_eq!(done, vec![11, 12]);
        assert_eq!(p.durable(), 12);
        assert!(p.gap_free());
        assert!(p.pending_mut(13).is_some() && p.pending_mut(12).is_none());
        assert!(p.pop_durable(13).is_some());
        assert!(p.settled());
    }

    // LIM-7 (a client resumes with `since` and loses nothing): a resume inside the replay window
    // gets the missed frames; outside it, the whole board.
    #[test]
    fn lim_7_the_replay_window_keeps_the_newest_frames_within_its_bounds() {
        let mut p = Pipeline::new(0);
        for s in 1..=5 {
            p.push(pending(s, "x"));
            let c = p.pop_durable(s).unwrap();
            p.remember(c.seq, c.frame, CAPS);
        }
        assert_eq!(p.replay_since(5, 100), Some(Vec::new()), "up to date");
        assert_eq!(p.replay_since(3, 100).map(|f| f.len()), Some(2));
        assert_eq!(p.replay_since(2, 100).map(|f| f.len()), Some(3));
        assert_eq!(
            p.replay_since(1, 100),
            None,
            "older than the window (3 frames)"
        );
        assert_eq!(p.replay_since(6, 100), None, "ahead of what is durable");
        assert_eq!(p.replay_since(2, 3), None, "too many frames behind");
        // Bytes bound too, but the newest frame always stays.
        let mut q = Pipeline::new(0);
        q.push(pending(1, &"y".repeat(2000)));
        let c = q.pop_durable(1).unwrap();
        q.remember(1, c.frame, CAPS);
        assert_eq!(q.replay_since(0, 100).map(|f| f.len()), Some(1));
    }

    // DUR-5: a store failure gives back every pending command, returns the seq to the durable
    // one, and refuses commands until the log is repaired, which waits for the writer.
    #[test]
    fn dur_5_a_failure_rolls_back_and_waits_for_the_repair() {
        let mut p = Pipeline::new(4);
        p.push(pending(5, "a"));
        p.push(pending(6, "b"));
        let failed = p.fail().unwrap();
        assert_eq!(failed.iter().map(|c| c.seq).collect::<Vec<_>>(), vec![5, 6]);
        assert_eq!((p.seq(), p.durable()), (4, 4));
        assert!(p.recovering() && !p.settled());
        assert!(p.fail().is_none(), "one failure at a time");
        assert!(!p.start_repair(), "the writer still holds two commands");
        p.completed(2);
        assert!(p.start_repair());
        assert!(!p.start_repair(), "one repair at a time");
        p.repaired(false);
        assert!(p.recovering());
        p.retry_repair();
        p.repaired(true);
        assert!(p.settled() && p.gap_free());
        assert_eq!(p.next_seq(), 5);
    }

    // Snapshots (compaction only, DUR-4) wait for pending commands and for each other, unless
    // forced.
    #[test]
    fn snapshots_wait_for_pending_commands_and_each_other() {
        let mut p = Pipeline::new(0);
        assert!(!p.begin_snapshot(false), "nothing changed");
        p.push(pending(1, "a"));
        assert!(!p.begin_snapshot(true), "a command is pending");
        p.pop_durable(1);
        assert!(p.snapshot_due(1));
        assert!(p.begin_snapshot(false));
        assert!(!p.snapshot_due(1));
        p.push(pending(2, "b"));
        p.pop_durable(2);
        assert!(!p.begin_snapshot(false), "one is being written");
        assert!(p.begin_snapshot(true));
        p.snapshot_done();
        assert!(!p.begin_snapshot(false));
    }
}
