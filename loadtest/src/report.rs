//! The report of one run: a JSON-serializable summary, the pass/fail checks, and a text table.

use crate::procfs::ProcReport;
use crate::stats::{LatencySummary, Totals};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The shape a run was given.
#[derive(Debug, Clone, Serialize)]
pub struct ShapeInfo {
    /// The node URLs, comma separated.
    pub url: String,
    /// Nodes the clients were spread over.
    pub nodes: usize,
    pub boards: usize,
    pub clients_per_board: usize,
    pub connections: usize,
    pub rate_per_client: f64,
    pub offered_actions_per_s: f64,
    pub warmup_s: f64,
    pub duration_s: f64,
    pub mix: String,
    /// Share of the mix that sends commits.
    pub commit_share: f64,
    pub storm_at_s: Option<f64>,
}

/// The reconnect storm's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct StormReport {
    pub dropped: u64,
    pub recovered: u64,
    /// Storm → every client resumed and caught up (the slowest client), ms.
    pub recovery_ms: f64,
    pub recovery: LatencySummary,
}

/// Everything one run measured.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub shape: ShapeInfo,
    pub fanout: LatencySummary,
    /// Over several nodes: fan-out where sender and receiver sat on the same node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fanout_same_node: Option<LatencySummary>,
    /// Over several nodes: fan-out where they sat on different nodes (through the relay).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fanout_cross_node: Option<LatencySummary>,
    /// Over several nodes: fan-out by relay hops, 0, 1 and 2 (how many of sender and receiver
    /// sit on a node other than the board's owner, the node of its client 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fanout_by_relay_hops: Option<[LatencySummary; 3]>,
    pub ack: LatencySummary,
    pub ai: LatencySummary,
    pub commits_sent: u64,
    pub window_commits: u64,
    pub commits_per_s: f64,
    /// Share of actions that are commits (moves + creates/deletes) in the mix.
    pub commit_share: f64,
    pub delivered: u64,
    pub expected: u64,
    pub delivery_ratio: f64,
    pub deliveries_per_s: f64,
    pub acks: u64,
    pub acks_expected: u64,
    pub replayed: u64,
    pub rejected: u64,
    pub lost_in_flight: u64,
    pub presence_sent: u64,
    pub presence_recv: u64,
    pub ai_sent: u64,
    pub ai_results: u64,
    pub ai_not_implemented: u64,
    pub other_applied: u64,
    pub frames: u64,
    pub bytes: u64,
    pub errors: BTreeMap<String, u64>,
    pub error_count: u64,
    pub protocol_errors: u64,
    pub seq_gaps: u64,
    pub duplicates: u64,
    pub connect_failures: u64,
    pub never_joined: u64,
    pub late_joins: u64,
    pub disconnects: u64,
    pub close_reasons: BTreeMap<String, u64>,
    pub resumes: u64,
    pub full_resyncs: u64,
    pub storm: Option<StormReport>,
    /// The first `--server-pid`.
    pub server: Option<ProcReport>,
    /// With several `--server-pid`: each node's process.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<ProcReport>,
    /// With several `--server-pid`: their CPU in the window summed, percent of one core.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub servers_cpu_percent: Option<f64>,
    /// The server CPU (every `--server-pid` summed) per delivered message in the window, µs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_cpu_us_per_delivery: Option<f64>,
    pub loadtest: Option<ProcReport>,
    pub slow_readers: Option<crate::slow::SlowReport>,
}

impl RunReport {
    /// Builds the report from merged totals.
    pub fn new(
        shape: ShapeInfo,
        t: &Totals,
        never_joined: u64,
        server: Option<ProcReport>,
        loadtest: Option<ProcReport>,
    ) -> Self {
        let s = &t.sum;
        let secs = shape.duration_s.max(1e-9);
        let storm = shape.storm_at_s.map(|_| StormReport {
            dropped: t.storm_dropped,
            recovered: t.storm_recovered,
            recovery_ms: t.recovery_max_us as f64 / 1000.0,
            recovery: LatencySummary::from_histogram(&t.recovery),
        });
        let acks_expected = s
            .window_commits
            .saturating_sub(s.window_rejected)
            .saturating_sub(s.window_lost_in_flight);
        let by_node = s.fanout_by_node.as_ref();
        let server_cpu_us_per_delivery = server
            .as_ref()
            .and_then(|p| cpu_us_per_delivery(p.cpu_percent_window, secs, s.delivered));
        RunReport {
            fanout: LatencySummary::from_histogram(&s.fanout),
            fanout_same_node: by_node.map(|b| LatencySummary::from_histogram(&b.same)),
            fanout_cross_node: by_node.map(|b| LatencySummary::from_histogram(&b.cross)),
            fanout_by_relay_hops: by_node
                .map(|b| b.hops.each_ref().map(LatencySummary::from_histogram)),
            ack: LatencySummary::from_histogram(&s.ack),
            ai: LatencySummary::from_histogram(&s.ai),
            commits_sent: s.commits_sent,
            window_commits: s.window_commits,
            commits_per_s: s.window_commits as f64 / secs,
            commit_share: shape.commit_share,
            delivered: s.delivered,
            expected: s.expected,
            delivery_ratio: ratio(s.delivered, s.expected),
            deliveries_per_s: s.delivered as f64 / secs,
            acks: s.window_acks,
            acks_expected,
            replayed: s.replayed,
            rejected: s.window_rejected,
            lost_in_flight: s.window_lost_in_flight,
            presence_sent: s.presence_sent,
            presence_recv: s.presence_recv,
            ai_sent: s.ai_sent,
            ai_results: s.ai_results,
            ai_not_implemented: s.ai_not_implemented,
            other_applied: s.other_applied,
            frames: s.frames,
            bytes: s.bytes,
            errors: s.errors.clone(),
            error_count: t.error_count(),
            protocol_errors: s.protocol_errors,
            seq_gaps: s.seq_gaps,
            duplicates: s.duplicates,
            connect_failures: s.connect_failures,
            never_joined,
            late_joins: t.clients.saturating_sub(t.receivers + never_joined),
            disconnects: s.disconnects,
            close_reasons: s.close_reasons.clone(),
            resumes: s.resumes,
            full_resyncs: s.full_resyncs,
            storm,
            server,
            servers: Vec::new(),
            servers_cpu_percent: None,
            server_cpu_us_per_delivery,
            loadtest,
            slow_readers: None,
            shape,
        }
    }

    /// Records every node's process (several `--server-pid`): their summed CPU, and the CPU
    /// per delivery from the sum.
    pub fn set_nodes(&mut self, servers: Vec<ProcReport>) {
        let total: f64 = servers.iter().map(|p| p.cpu_percent_window).sum();
        self.servers_cpu_percent = Some(total);
        self.server_cpu_us_per_delivery =
            cpu_us_per_delivery(total, self.shape.duration_s, self.delivered);
        self.servers = servers;
    }

    /// What makes this run a failure (empty = clean): any loss, any error, nothing delivered.
    /// No timing is checked here.
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        let multi = self.shape.clients_per_board > 1;
        if multi && self.shape.rate_per_client > 0.0 && self.delivered == 0 {
            p.push("nothing was delivered".to_owned());
        }
        if self.delivered < self.expected {
            p.push(format!(
                "lost messages: delivered {} of {} expected",
                self.delivered, self.expected
            ));
        }
        if self.acks < self.acks_expected {
            p.push(format!(
                "lost acknowledgements: {} of {}",
                self.acks, self.acks_expected
            ));
        }
        if self.error_count > 0 {
            p.push(format!("{} errors: {:?}", self.error_count, self.errors));
        }
        if self.protocol_errors > 0 {
            p.push(format!("{} undecodable frames", self.protocol_errors));
        }
        if self.seq_gaps > 0 {
            p.push(format!("{} seqs skipped", self.seq_gaps));
        }
        if self.never_joined > 0 || self.late_joins > 0 {
            p.push(format!(
                "{} clients never joined, {} joined after the window opened",
                self.never_joined, self.late_joins
            ));
        }
        if let Some(s) = &self.storm
            && s.recovered < s.dropped
        {
            p.push(format!(
                "reconnect storm: {} of {} clients recovered",
                s.recovered, s.dropped
            ));
        }
        p
    }

    /// Whether a sweep step holds: clean, everything delivered, p99 fan-out within the bound,
    /// and no client dropped by the server.
    pub fn sustainable(&self, p99_bound_ms: f64) -> bool {
        self.problems().is_empty()
            && self.expected > 0
            && self.disconnects == 0
            && self.fanout.p99_ms <= p99_bound_ms
    }

    /// The text table.
    pub fn table(&self) -> String {
        let mut out = String::new();
        self.write_shape_line(&mut out);
        self.write_latency_rows(&mut out);
        self.write_counter_lines(&mut out);
        self.write_process_lines(&mut out);
        out
    }

    /// Table step: the line describing the run's shape.
    fn write_shape_line(&self, out: &mut String) {
        let sh = &self.shape;
        let _ = writeln!(
            out,
            "{} | {} boards x {} clients = {} connections | rate {}/s per client | {} s (+{} s warm-up) | mix {}",
            sh.url,
            sh.boards,
            sh.clients_per_board,
            sh.connections,
            sh.rate_per_client,
            sh.duration_s,
            sh.warmup_s,
            sh.mix
        );
    }

    /// Table step: the latency header and one row per latency kind (fan-out splits, ack, ai).
    fn write_latency_rows(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "{:<12} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}",
            "latency ms", "p50", "p90", "p99", "p99.9", "max", "mean", "count"
        );
        let none = LatencySummary::default();
        let hops = |k: usize| {
            self.fanout_by_relay_hops
                .as_ref()
                .and_then(|h| h.get(k))
                .unwrap_or(&none)
        };
        for (name, l) in [
            ("fan-out", &self.fanout),
            (
                "  same-node",
                self.fanout_same_node.as_ref().unwrap_or(&none),
            ),
            (
                "  cross-node",
                self.fanout_cross_node.as_ref().unwrap_or(&none),
            ),
            ("  0 relays", hops(0)),
            ("  1 relay", hops(1)),
            ("  2 relays", hops(2)),
            ("ack", &self.ack),
            ("ai", &self.ai),
        ] {
            let split = name.starts_with("  ");
            if l.count == 0 && (name == "ai" || (split && self.fanout_same_node.is_none())) {
                continue;
            }
            let _ = writeln!(
                out,
                "{:<12} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>10}",
                name, l.p50_ms, l.p90_ms, l.p99_ms, l.p999_ms, l.max_ms, l.mean_ms, l.count
            );
        }
    }

    /// Table step: the count lines (commits and deliveries, errors, disconnects, presence and
    /// ai, the storm, the slow readers).
    fn write_counter_lines(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "commits {} in window ({:.0}/s) | delivered {} of {} expected ({:.2} %, {:.0}/s) | acks {} of {}",
            self.window_commits,
            self.commits_per_s,
            self.delivered,
            self.expected,
            self.delivery_ratio * 100.0,
            self.deliveries_per_s,
            self.acks,
            self.acks_expected
        );
        let _ = writeln!(
            out,
            "errors {} {:?} | rejected {} | protocol errors {} | seq gaps {} | duplicates {}",
            self.error_count,
            self.errors,
            self.rejected,
            self.protocol_errors,
            self.seq_gaps,
            self.duplicates
        );
        let _ = writeln!(
            out,
            "disconnects {} {:?} | resumes {} (full {}) | replayed {} | lost in flight {} | connect failures {}",
            self.disconnects,
            self.close_reasons,
            self.resumes,
            self.full_resyncs,
            self.replayed,
            self.lost_in_flight,
            self.connect_failures
        );
        if self.presence_sent > 0 || self.ai_sent > 0 {
            let _ = writeln!(
                out,
                "presence sent {} received {} | ai sent {} results {} (not implemented {})",
                self.presence_sent,
                self.presence_recv,
                self.ai_sent,
                self.ai_results,
                self.ai_not_implemented
            );
        }
        if let Some(s) = &self.storm {
            let _ = writeln!(
                out,
                "reconnect storm: {} dropped, {} resumed and caught up; recovery {:.1} ms (p50 {:.1} ms)",
                s.dropped, s.recovered, s.recovery_ms, s.recovery.p50_ms
            );
        }
        if let Some(s) = &self.slow_readers {
            let _ = writeln!(out, "{}", s.line());
        }
    }

    /// Table step: one line per measured process (each server, then loadtest) and the server
    /// CPU per delivery.
    fn write_process_lines(&self, out: &mut String) {
        let nodes: Vec<(String, Option<&ProcReport>)> = if self.servers.is_empty() {
            vec![("server".to_owned(), self.server.as_ref())]
        } else {
            self.servers
                .iter()
                .map(|p| (format!("server {}", p.pid.unwrap_or(0)), Some(p)))
                .collect()
        };
        let procs = nodes.into_iter().chain(std::iter::once((
            "loadtest".to_owned(),
            self.loadtest.as_ref(),
        )));
        for (name, p) in procs {
            if let Some(p) = p {
                let waited = p
                    .cpu_wait_percent_window
                    .map(|w| format!(", waited for a CPU {w:.0} %"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{name}: RSS {} → {} → {} kB | {:.1} kB per connection, {:.1} kB per board | CPU {:.0} % of a core in the window{waited}",
                    p.rss_before_kb,
                    p.rss_joined_kb,
                    p.rss_end_kb,
                    p.rss_per_connection_kb,
                    p.rss_per_board_kb,
                    p.cpu_percent_window
                );
            }
        }
        if let Some(total) = self.servers_cpu_percent {
            let _ = write!(out, "servers: CPU {total:.0} % of a core summed");
            if let Some(us) = self.server_cpu_us_per_delivery {
                let _ = write!(out, " | {us:.1} µs of server CPU per delivery");
            }
            let _ = writeln!(out);
        } else if let Some(us) = self.server_cpu_us_per_delivery {
            let _ = writeln!(out, "server: {us:.1} µs of CPU per delivery");
        }
    }
}

/// CPU seconds (`percent` of a core over `secs`) per delivery, in µs; None without deliveries.
fn cpu_us_per_delivery(percent: f64, secs: f64, delivered: u64) -> Option<f64> {
    (delivered > 0).then(|| percent / 100.0 * secs * 1e6 / delivered as f64)
}

/// `a / b`, 1 when nothing was expected.
pub fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::stats::{ClientStats, record};

    pub(crate) fn shape() -> ShapeInfo {
        ShapeInfo {
            url: "ws://127.0.0.1:1".into(),
            nodes: 1,
            boards: 1,
            clients_per_board: 2,
            connections: 2,
            rate_per_client: 10.0,
            offered_actions_per_s: 20.0,
            warmup_s: 1.0,
            duration_s: 2.0,
            mix: "moves=100".into(),
            commit_share: 1.0,
            storm_at_s: None,
        }
    }

    fn clean_pair() -> Vec<ClientStats> {
        (0..2)
            .map(|_| {
                let mut s = ClientStats {
                    joined_in_time: true,
                    never_joined: false,
                    window_commits: 20,
                    window_acks: 20,
                    delivered: 20,
                    expected: 20,
                    ..ClientStats::default()
                };
                for v in 1..=20 {
                    record(&mut s.fanout, v * 100);
                }
                s
            })
            .collect()
    }

    #[test]
    fn clean_run_has_no_problems_and_is_sustainable() {
        let t = Totals::merge(&clean_pair());
        let r = RunReport::new(shape(), &t, 0, None, None);
        assert_eq!(r.problems(), Vec::<String>::new());
        assert_eq!(r.delivery_ratio, 1.0);
        assert_eq!(r.commits_per_s, 20.0);
        assert!(r.sustainable(50.0));
        assert!(!r.sustainable(1.0), "p99 is 2 ms");
        let table = r.table();
        assert!(table.contains("fan-out"), "{table}");
        assert!(table.contains("delivered 40 of 40"), "{table}");
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["delivered"], 40);
        assert_eq!(json["fanout"]["count"], 40);
    }

    #[test]
    fn one_node_reports_no_split_and_several_report_same_and_cross() {
        let t = Totals::merge(&clean_pair());
        let r = RunReport::new(shape(), &t, 0, None, None);
        let json = serde_json::to_value(&r).unwrap();
        assert!(json.get("fanout_same_node").is_none());
        assert!(json.get("servers").is_none());
        assert!(!r.table().contains("cross-node"));

        let mut all = clean_pair();
        for s in &mut all {
            let mut by = crate::stats::ByNode::default();
            record(&mut by.same, 1000);
            record(&mut by.cross, 3000);
            record(&mut by.cross, 5000);
            s.fanout_by_node = Some(by);
        }
        let mut sh = shape();
        sh.nodes = 2;
        let server = |pid, cpu| ProcReport {
            pid: Some(pid),
            cpu_percent_window: cpu,
            ..ProcReport::default()
        };
        let mut r = RunReport::new(sh, &Totals::merge(&all), 0, Some(server(1, 10.0)), None);
        r.set_nodes(vec![server(1, 10.0), server(2, 30.0)]);
        assert_eq!(r.fanout_same_node.as_ref().unwrap().count, 2);
        assert_eq!(r.fanout_cross_node.as_ref().unwrap().count, 4);
        assert_eq!(r.fanout_by_relay_hops.as_ref().unwrap()[1].count, 0);
        assert_eq!(r.servers_cpu_percent, Some(40.0));
        // 40 % of a core for 2 s over 40 deliveries: 20 ms each.
        assert!((r.server_cpu_us_per_delivery.unwrap() - 20_000.0).abs() < 1e-6);
        let table = r.table();
        assert!(
            table.contains("same-node") && table.contains("cross-node"),
            "{table}"
        );
        assert!(table.contains("server 2:"), "{table}");
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["fanout_cross_node"]["count"], 4);
        assert_eq!(json["servers"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn loss_errors_and_silence_are_problems() {
        let mut all = clean_pair();
        all[0].delivered = 19;
        all[1].error("rejected:invalid");
        let r = RunReport::new(shape(), &Totals::merge(&all), 0, None, None);
        let p = r.problems();
        assert!(p.iter().any(|s| s.contains("lost messages")), "{p:?}");
        assert!(p.iter().any(|s| s.contains("errors")), "{p:?}");
        assert!(!r.sustainable(1000.0));

        let silent: Vec<ClientStats> = (0..2)
            .map(|_| ClientStats {
                joined_in_time: true,
                never_joined: false,
                ..ClientStats::default()
            })
            .collect();
        let r = RunReport::new(shape(), &Totals::merge(&silent), 0, None, None);
        assert!(r.problems().iter().any(|s| s.contains("nothing")));
    }

    #[test]
    fn unrecovered_storm_is_a_problem() {
        let mut all = clean_pair();
        all[0].storm_drops = 1;
        all[0].recovery_us = Some(5000);
        all[1].storm_drops = 1;
        let mut sh = shape();
        sh.storm_at_s = Some(1.5);
        let r = RunReport::new(sh, &Totals::merge(&all), 0, None, None);
        let s = r.storm.as_ref().unwrap();
        assert_eq!((s.dropped, s.recovered), (2, 1));
        assert_eq!(s.recovery_ms, 5.0);
        assert!(r.problems().iter().any(|p| p.contains("storm")));
    }
}
