//! Per-client counters and latency histograms, merged once the run is over.
//!
//! Every client owns its own [`ClientStats`]: recording a latency is a local histogram increment,
//! so measuring never slows a client's reads. Latencies are kept in microseconds.

use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;

/// Highest latency a histogram keeps (60 s, in µs); larger values are clamped to it.
pub const MAX_LATENCY_US: u64 = 60_000_000;

/// A latency histogram. Every client owns three, so they are kept small: 2 significant digits
/// (values within 1 %) and 32-bit counts make one about 10 KB, where 3 digits and 64-bit counts
/// took 130 KB (1.3 GB for a 10,000-connection run).
pub type Hist = Histogram<u32>;

/// A new latency histogram (1 µs .. 60 s, 2 significant digits).
pub fn new_histogram() -> Hist {
    // Constant bounds that satisfy the constructor's rules (low >= 1, high >= 2 * low,
    // sigfig <= 5): this cannot fail.
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 2).expect("constant histogram bounds are valid")
}

/// Records one latency, clamped into the histogram's range.
pub fn record(h: &mut Hist, us: u64) {
    let v = us.clamp(1, MAX_LATENCY_US);
    // In range by construction.
    let _ = h.record(v);
}

/// Percentiles of one latency distribution, in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
}

impl LatencySummary {
    /// Summarizes a histogram of microseconds.
    pub fn from_histogram(h: &Hist) -> Self {
        if h.is_empty() {
            return LatencySummary::default();
        }
        let ms = |us: u64| us as f64 / 1000.0;
        LatencySummary {
            count: h.len(),
            mean_ms: h.mean() / 1000.0,
            p50_ms: ms(h.value_at_quantile(0.50)),
            p90_ms: ms(h.value_at_quantile(0.90)),
            p99_ms: ms(h.value_at_quantile(0.99)),
            p999_ms: ms(h.value_at_quantile(0.999)),
            max_ms: ms(h.max()),
        }
    }
}

/// Fan-out split by where sender and receiver sit (runs over several nodes only).
#[derive(Debug, Clone)]
pub struct ByNode {
    /// Sender and receiver on the same node.
    pub same: Hist,
    /// Sender and receiver on different nodes.
    pub cross: Hist,
    /// By relay hops: how many of sender and receiver sit on a node other than the board's
    /// owner (0: both on the owner; 2: both relayed, possibly through the same node). The
    /// owner is taken to be the node of the board's client 0, which joins first and so takes
    /// the board (every run's boards are fresh).
    pub hops: [Hist; 3],
}

impl Default for ByNode {
    fn default() -> Self {
        ByNode {
            same: new_histogram(),
            cross: new_histogram(),
            hops: std::array::from_fn(|_| new_histogram()),
        }
    }
}

/// Everything one simulated client counted.
#[derive(Debug, Clone)]
pub struct ClientStats {
    /// Send → another client's receipt of the `applied`, for commits sent in the window.
    pub fanout: Hist,
    /// `fanout` split into same-node and cross-node (None with one node: no cost then).
    pub fanout_by_node: Option<ByNode>,
    /// Send → the sender's own `applied`.
    pub ack: Hist,
    /// AI command → `ai_result`.
    pub ai: Hist,
    /// Joined before the measurement window opened (only then does it count as a receiver).
    pub joined_in_time: bool,
    /// Never got a `welcome`.
    pub never_joined: bool,
    /// Commits sent (setup create included).
    pub commits_sent: u64,
    /// Commits sent inside the window.
    pub window_commits: u64,
    /// Of those: rejected by the server.
    pub window_rejected: u64,
    /// Of those: unacknowledged when the connection dropped, and not replayed on resume.
    pub window_lost_in_flight: u64,
    /// Own `applied` received for window commits.
    pub window_acks: u64,
    /// Others' window `applied` received (live or replayed).
    pub delivered: u64,
    /// Of `delivered`: received as a replay after a resume (not in the fan-out histogram).
    pub replayed: u64,
    /// Messages this client should have received (set after the run).
    pub expected: u64,
    pub presence_sent: u64,
    pub presence_recv: u64,
    pub ai_sent: u64,
    pub ai_results: u64,
    pub ai_not_implemented: u64,
    /// `applied` without a load-test client id (AI batches, undo…).
    pub other_applied: u64,
    /// Seqs skipped (a hole in the `applied` stream, or a full resync that jumped ahead).
    pub seq_gaps: u64,
    pub duplicates: u64,
    pub frames: u64,
    pub bytes: u64,
    /// Frames that did not decode (or did not conform, with `--strict`).
    pub protocol_errors: u64,
    /// Errors by code: `error` frames, `rejected` as `rejected:<code>`, client-side failures.
    pub errors: BTreeMap<String, u64>,
    pub connect_failures: u64,
    /// Connections the server (or the network) ended.
    pub disconnects: u64,
    /// Close reasons the server gave.
    pub close_reasons: BTreeMap<String, u64>,
    /// Connections this client dropped on purpose (reconnect storm).
    pub storm_drops: u64,
    /// Successful `hello.since` resumes.
    pub resumes: u64,
    /// Resumes answered with a full snapshot instead of a replay.
    pub full_resyncs: u64,
    /// Storm instant → resumed and caught up, µs.
    pub recovery_us: Option<u64>,
}

impl Default for ClientStats {
    fn default() -> Self {
        ClientStats {
            fanout: new_histogram(),
            fanout_by_node: None,
            ack: new_histogram(),
            ai: new_histogram(),
            joined_in_time: false,
            never_joined: true,
            commits_sent: 0,
            window_commits: 0,
            window_rejected: 0,
            window_lost_in_flight: 0,
            window_acks: 0,
            delivered: 0,
            replayed: 0,
            expected: 0,
            presence_sent: 0,
            presence_recv: 0,
            ai_sent: 0,
            ai_results: 0,
            ai_not_implemented: 0,
            other_applied: 0,
            seq_gaps: 0,
            duplicates: 0,
            frames: 0,
            bytes: 0,
            protocol_errors: 0,
            errors: BTreeMap::new(),
            connect_failures: 0,
            disconnects: 0,
            close_reasons: BTreeMap::new(),
            storm_drops: 0,
            resumes: 0,
            full_resyncs: 0,
            recovery_us: None,
        }
    }
}

impl ClientStats {
    /// Counts one error under `code`.
    pub fn error(&mut self, code: impl Into<String>) {
        *self.errors.entry(code.into()).or_insert(0) += 1;
    }

    /// Window commits that should have reached every other client.
    pub fn net_window_commits(&self) -> u64 {
        self.window_commits
            .saturating_sub(self.window_rejected)
            .saturating_sub(self.window_lost_in_flight)
    }
}

/// The sum of many clients' stats.
#[derive(Debug, Clone)]
pub struct Totals {
    pub clients: u64,
    pub receivers: u64,
    pub sum: ClientStats,
    /// Clients that dropped in the storm, and how many of them recovered.
    pub storm_dropped: u64,
    pub storm_recovered: u64,
    pub recovery: Hist,
    /// The slowest recovery, exact, µs.
    pub recovery_max_us: u64,
}

impl Totals {
    /// Merges the clients' stats.
    pub fn merge(all: &[ClientStats]) -> Totals {
        let mut sum = ClientStats::default();
        let mut recovery = new_histogram();
        let (mut receivers, mut storm_dropped, mut storm_recovered) = (0, 0, 0);
        let mut recovery_max_us = 0;
        for s in all {
            // Same bounds on both sides: `add` cannot fail.
            let _ = sum.fanout.add(&s.fanout);
            let _ = sum.ack.add(&s.ack);
            let _ = sum.ai.add(&s.ai);
            if let Some(b) = &s.fanout_by_node {
                let into = sum.fanout_by_node.get_or_insert_with(ByNode::default);
                let _ = into.same.add(&b.same);
                let _ = into.cross.add(&b.cross);
                for (to, from) in into.hops.iter_mut().zip(&b.hops) {
                    let _ = to.add(from);
                }
            }
            receivers += u64::from(s.joined_in_time);
            sum.never_joined &= s.never_joined;
            sum.commits_sent += s.commits_sent;
            sum.window_commits += s.window_commits;
            sum.window_rejected += s.window_rejected;
            sum.window_lost_in_flight += s.window_lost_in_flight;
            sum.window_acks += s.window_acks;
            sum.delivered += s.delivered;
            sum.replayed += s.replayed;
            sum.expected += s.expected;
            sum.presence_sent += s.presence_sent;
            sum.presence_recv += s.presence_recv;
            sum.ai_sent += s.ai_sent;
            sum.ai_results += s.ai_results;
            sum.ai_not_implemented += s.ai_not_implemented;
            sum.other_applied += s.other_applied;
            sum.seq_gaps += s.seq_gaps;
            sum.duplicates += s.duplicates;
            sum.frames += s.frames;
            sum.bytes += s.bytes;
            sum.protocol_errors += s.protocol_errors;
            for (k, v) in &s.errors {
                *sum.errors.entry(k.clone()).or_insert(0) += v;
            }
            for (k, v) in &s.close_reasons {
                *sum.close_reasons.entry(k.clone()).or_insert(0) += v;
            }
            sum.connect_failures += s.connect_failures;
            sum.disconnects += s.disconnects;
            sum.storm_drops += s.storm_drops;
            sum.resumes += s.resumes;
            sum.full_resyncs += s.full_resyncs;
            if s.storm_drops > 0 {
                storm_dropped += 1;
                if let Some(r) = s.recovery_us {
                    storm_recovered += 1;
                    record(&mut recovery, r);
                    recovery_max_us = recovery_max_us.max(r);
                }
            }
        }
        Totals {
            clients: all.len() as u64,
            receivers,
            sum,
            storm_dropped,
            storm_recovered,
            recovery,
            recovery_max_us,
        }
    }

    /// Total error count (every code).
    pub fn error_count(&self) -> u64 {
        self.sum.errors.values().sum()
    }
}

/// Sets each client's `expected`: the net window commits of every other client on its board.
/// `boards[i]` lists the indices into `all` of board i's clients. A client that joined after the
/// window opened is not a receiver (expected 0, and its deliveries are not counted).
pub fn assign_expected(all: &mut [ClientStats], boards: &[Vec<usize>]) {
    for members in boards {
        let board_net: u64 = members
            .iter()
            .filter_map(|&i| all.get(i))
            .map(ClientStats::net_window_commits)
            .sum();
        for &i in members {
            if let Some(s) = all.get_mut(i) {
                if s.joined_in_time {
                    s.expected = board_net.saturating_sub(s.net_window_commits());
                } else {
                    s.expected = 0;
                    s.delivered = 0;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_values() {
        let mut h = new_histogram();
        for v in 1..=1000u64 {
            record(&mut h, v * 1000); // 1..1000 ms
        }
        let s = LatencySummary::from_histogram(&h);
        assert_eq!(s.count, 1000);
        // 2 significant digits: within 1 %.
        let near = |v: f64, want: f64| (v - want).abs() <= want * 0.01;
        assert!(near(s.p50_ms, 500.0), "{s:?}");
        assert!(near(s.p90_ms, 900.0), "{s:?}");
        assert!(near(s.p99_ms, 990.0), "{s:?}");
        assert!(near(s.p999_ms, 999.0), "{s:?}");
        assert!(near(s.max_ms, 1000.0), "{s:?}");
        assert!(near(s.mean_ms, 500.5), "{s:?}");
        assert!(s.p50_ms <= s.p90_ms && s.p90_ms <= s.p99_ms && s.p99_ms <= s.max_ms);
    }

    #[test]
    fn empty_summary_is_zero_and_out_of_range_is_clamped() {
        assert_eq!(
            LatencySummary::from_histogram(&new_histogram()),
            LatencySummary::default()
        );
        let mut h = new_histogram();
        record(&mut h, 0);
        record(&mut h, u64::MAX);
        assert_eq!(h.len(), 2);
        assert_eq!(h.min(), 1);
        assert!(h.max() >= MAX_LATENCY_US);
    }

    #[test]
    fn expected_counts_others_net_commits() {
        let mut a = ClientStats {
            joined_in_time: true,
            window_commits: 10,
            window_rejected: 1,
            ..ClientStats::default()
        };
        a.delivered = 5;
        let b = ClientStats {
            joined_in_time: true,
            window_commits: 5,
            window_lost_in_flight: 2,
            delivered: 9,
            ..ClientStats::default()
        };
        let late = ClientStats {
            joined_in_time: false,
            window_commits: 4,
            delivered: 3,
            ..ClientStats::default()
        };
        let alone = ClientStats {
            joined_in_time: true,
            window_commits: 7,
            ..ClientStats::default()
        };
        let mut all = vec![a, b, late, alone];
        assign_expected(&mut all, &[vec![0, 1, 2], vec![3]]);
        assert_eq!(all[0].expected, 3 + 4); // b's 5-2, late's 4
        assert_eq!(all[1].expected, 9 + 4); // a's 10-1, late's 4
        assert_eq!(all[2].expected, 0);
        assert_eq!(all[2].delivered, 0);
        assert_eq!(all[3].expected, 0);
        let t = Totals::merge(&all);
        assert_eq!(t.sum.expected, 20);
        assert_eq!(t.sum.delivered, 14);
        assert_eq!(t.receivers, 3);
    }

    #[test]
    fn merge_adds_histograms_errors_and_recovery() {
        let mut a = ClientStats::default();
        record(&mut a.fanout, 1000);
        a.error("rejected:invalid");
        a.storm_drops = 1;
        a.recovery_us = Some(2000);
        let mut b = ClientStats::default();
        record(&mut b.fanout, 3000);
        b.error("rejected:invalid");
        b.error("bad_json");
        b.storm_drops = 1;
        let t = Totals::merge(&[a, b]);
        assert_eq!(t.sum.fanout.len(), 2);
        assert_eq!(t.sum.errors.get("rejected:invalid"), Some(&2));
        assert_eq!(t.error_count(), 3);
        assert_eq!(t.storm_dropped, 2);
        assert_eq!(t.storm_recovered, 1);
        assert_eq!(t.recovery.len(), 1);
        assert!(t.sum.fanout_by_node.is_none());
    }

    #[test]
    fn merge_keeps_the_node_split() {
        let mut a = ClientStats {
            fanout_by_node: Some(ByNode::default()),
            ..ClientStats::default()
        };
        let by = a.fanout_by_node.as_mut().unwrap();
        record(&mut by.same, 1000);
        record(&mut by.cross, 5000);
        let mut b = a.clone();
        record(&mut b.fanout_by_node.as_mut().unwrap().cross, 7000);
        record(&mut b.fanout_by_node.as_mut().unwrap().hops[2], 7000);
        let t = Totals::merge(&[a, b, ClientStats::default()]);
        let by = t.sum.fanout_by_node.unwrap();
        assert_eq!((by.same.len(), by.cross.len()), (2, 3));
        assert_eq!(by.hops.each_ref().map(|h| h.len()), [0, 0, 1]);
    }
}
