//! The receive side of a client: what each server frame does to its counters, resume and
//! catch-up bookkeeping, and when everything expected has arrived.

use super::ClientCtx;
use crate::stats::{ClientStats, record};
use crate::wire::{self, Incoming};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use tokio::time::Instant;

/// A commit sent and not yet answered.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    pub(super) n: u64,
    pub(super) in_window: bool,
}

/// State the reader and the writer share.
#[derive(Debug, Default)]
pub(super) struct Core {
    pub(super) stats: ClientStats,
    pub(super) pending: VecDeque<Pending>,
    pub(super) last_sent_n: u64,
    pub(super) last_seq: Option<u64>,
    /// While resuming: the seq that means "caught up", and the last commit sent before the drop.
    pub(super) catchup: Option<(u64, u64)>,
    /// A storm drop is waiting for its recovery time.
    pub(super) storm_started: Option<Instant>,
    /// Ids of objects this client created, for the writer.
    pub(super) created: VecDeque<String>,
}

impl Core {
    pub(super) fn on_welcome(&mut self, m: &Incoming, resume: bool, ctx: &ClientCtx, now_us: u64) {
        let seq = m.seq.unwrap_or(0);
        if self.stats.never_joined {
            self.stats.never_joined = false;
            self.stats.joined_in_time = now_us < ctx.shared.window_start_us;
        }
        let cut = self.last_sent_n;
        if !resume {
            self.last_seq = Some(seq);
            return;
        }
        self.stats.resumes += 1;
        let last = self.last_seq.unwrap_or(0);
        if m.objects.is_some() {
            // A full snapshot: the applied messages in between will not come.
            self.stats.full_resyncs += 1;
            self.stats.seq_gaps += seq.saturating_sub(last);
            self.last_seq = Some(seq.max(last));
        }
        self.catchup = Some((seq, cut));
        self.check_caught_up(ctx);
    }

    fn check_caught_up(&mut self, ctx: &ClientCtx) {
        let Some((target, cut)) = self.catchup else {
            return;
        };
        if self.last_seq.unwrap_or(0) < target {
            return;
        }
        self.catchup = None;
        if let Some(t0) = self.storm_started.take() {
            let us = u64::try_from(t0.elapsed().as_micros()).unwrap_or(u64::MAX);
            self.stats.recovery_us = Some(us);
        }
        // Commits sent before the drop and still unanswered were lost with the connection.
        while let Some(p) = self.pending.front().copied() {
            if p.n > cut {
                break;
            }
            self.pending.pop_front();
            if p.in_window {
                self.stats.window_lost_in_flight += 1;
                if let Some(b) = ctx.board() {
                    b.net_commits.fetch_sub(1, Ordering::Relaxed);
                }
            }
        }
    }

    fn take_pending(&mut self, n: u64) -> Option<Pending> {
        let i = self.pending.iter().position(|p| p.n == n)?;
        self.pending.remove(i)
    }

    pub(super) fn on_text(&mut self, text: &str, ctx: &ClientCtx, now_us: u64) {
        self.stats.frames += 1;
        self.stats.bytes += text.len() as u64;
        if ctx.shared.strict && !wire::conforms(text) {
            self.stats.protocol_errors += 1;
        }
        // Another client's edit, the bulk of what arrives: counted without decoding the frame.
        if let Some(peek) = wire::peek_applied(text)
            && peek.parts.client != ctx.client
        {
            if self.accept_seq(peek.seq) {
                self.on_delivery(peek.parts, ctx, now_us);
            }
            return;
        }
        let m = match wire::decode(text) {
            Ok(m) => m,
            Err(_) => {
                self.stats.protocol_errors += 1;
                return;
            }
        };
        match m.kind.as_str() {
            "applied" => self.on_applied(m, ctx, now_us),
            "rejected" => {
                let code = m.error.as_ref().map_or("unknown", |e| e.word()).to_owned();
                self.stats.error(format!("rejected:{code}"));
                if let Some(p) =
                    m.id.as_deref()
                        .and_then(wire::decode_id)
                        .and_then(|p| self.take_pending(p.n))
                    && p.in_window
                {
                    self.stats.window_rejected += 1;
                    if let Some(b) = ctx.board() {
                        b.net_commits.fetch_sub(1, Ordering::Relaxed);
                    }
                }
            }
            "error" => {
                let code = m.code.unwrap_or_else(|| "unknown".into());
                if code == "not_implemented" && self.stats.ai_sent > 0 {
                    self.stats.ai_not_implemented += 1;
                } else {
                    self.stats.error(code);
                }
            }
            "presence" => self.stats.presence_recv += 1,
            "ai_result" => {
                self.stats.ai_results += 1;
                if let Some(p) = m.id.as_deref().and_then(wire::decode_id) {
                    record(&mut self.stats.ai, now_us.saturating_sub(p.t_us));
                }
                if m.outcome.as_deref() == Some("error") {
                    let word = m.error.as_ref().map_or("unknown", |e| e.word());
                    if word == "not_implemented" {
                        self.stats.ai_not_implemented += 1;
                    } else {
                        self.stats.error(format!("ai:{word}"));
                    }
                }
            }
            "welcome" => self.stats.error("unexpected_welcome"),
            "joined" | "left" | "ai_status" | "pong" | "ack" | "question" | "mode_changed" => {}
            _ => self.stats.protocol_errors += 1,
        }
    }

    /// Checks an `applied`'s seq against the last one seen (duplicates are dropped, gaps
    /// counted); false when the frame is to be ignored.
    fn accept_seq(&mut self, seq: u64) -> bool {
        let last = self.last_seq.unwrap_or(0);
        if self.last_seq.is_some() && seq <= last {
            self.stats.duplicates += 1;
            return false;
        }
        if self.last_seq.is_some() && seq > last + 1 {
            self.stats.seq_gaps += seq - last - 1;
        }
        self.last_seq = Some(seq);
        true
    }

    /// Another client's commit reached this one.
    fn on_delivery(&mut self, p: wire::ClientIdParts, ctx: &ClientCtx, now_us: u64) {
        let catching_up = self.catchup.is_some();
        if ctx.shared.in_window(p.t_us) {
            self.stats.delivered += 1;
            if catching_up {
                self.stats.replayed += 1;
            } else {
                let us = now_us.saturating_sub(p.t_us);
                record(&mut self.stats.fanout, us);
                if let Some(by_node) = &mut self.stats.fanout_by_node {
                    let h = if ctx.same_node(p.client) {
                        &mut by_node.same
                    } else {
                        &mut by_node.cross
                    };
                    record(h, us);
                    if let Some(h) = by_node.hops.get_mut(ctx.relay_hops(p.client)) {
                        record(h, us);
                    }
                }
            }
        }
        if catching_up {
            self.check_caught_up(ctx);
        }
    }

    fn on_applied(&mut self, m: Incoming, ctx: &ClientCtx, now_us: u64) {
        let Some(seq) = m.seq else {
            self.stats.protocol_errors += 1;
            return;
        };
        if !self.accept_seq(seq) {
            return;
        }
        let catching_up = self.catchup.is_some();
        let Some(cmd) = m.command else {
            self.stats.protocol_errors += 1;
            return;
        };
        match cmd.client_id.as_deref().and_then(wire::decode_id) {
            Some(p) if p.client == ctx.client && cmd.author == ctx.user_id => {
                if let Some(pending) = self.take_pending(p.n)
                    && pending.in_window
                {
                    self.stats.window_acks += 1;
                    record(&mut self.stats.ack, now_us.saturating_sub(p.t_us));
                }
                for op in cmd.ops {
                    if op.op == "create"
                        && let Some(o) = op.object
                    {
                        self.created.push_back(o.id);
                    }
                }
            }
            Some(p) => return self.on_delivery(p, ctx, now_us),
            None => self.stats.other_applied += 1,
        }
        if catching_up {
            self.check_caught_up(ctx);
        }
    }

    /// Whether everything this client waits for has arrived (only once every writer stopped).
    pub(super) fn complete(&self, ctx: &ClientCtx) -> bool {
        let Some(b) = ctx.board() else {
            return true;
        };
        if b.writers_done.load(Ordering::Acquire) < b.clients || self.catchup.is_some() {
            return false;
        }
        let own = self.stats.net_window_commits();
        let board = u64::try_from(b.net_commits.load(Ordering::Acquire)).unwrap_or(0);
        self.stats.window_acks >= own && self.stats.delivered >= board.saturating_sub(own)
    }
}
