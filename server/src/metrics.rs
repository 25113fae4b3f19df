//! Prometheus metrics: one process-wide recorder, rendered at `/metrics`.

use metrics::{Counter, Histogram, counter, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use protocol::{AiErrorCategory, AiOutcome, AiRoute, ErrorCode, Origin};
use std::sync::OnceLock;

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Metric names and helpers. Cheap to clone; the recorder is global.
///
/// The metrics counted per frame or per command keep their handle (looked up once, after
/// [`Metrics::new`] installed the recorder): a lookup by name hashes the key and takes the
/// registry's lock on every call, which showed at tens of thousands of frames a second.
#[derive(Clone, Copy, Default)]
pub struct Metrics;

const LATENCY_BUCKETS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// The cluster's counters (docs/CLUSTER.md).
pub const CLUSTER_COUNTERS: &[&str] = &[TAKEOVERS, FENCED, RELAY_MESSAGES, GAP_REPAIRS, HANDOVERS];
pub const TAKEOVERS: &str = "board_cluster_takeovers_total";
pub const FENCED: &str = "board_cluster_fenced_total";
pub const RELAY_MESSAGES: &str = "board_cluster_relay_messages_total";
pub const GAP_REPAIRS: &str = "board_cluster_gap_repairs_total";
pub const HANDOVERS: &str = "board_cluster_handovers_total";

impl Metrics {
    pub fn new() -> Self {
        HANDLE.get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS)
                .ok()?
                .build_recorder();
            let handle = recorder.handle();
            metrics::set_global_recorder(recorder).ok()?;
            Some(handle)
        });
        Metrics
    }

    /// Folds recorded histogram samples into their buckets. The exporter keeps raw samples until
    /// a render or an upkeep drains them: without this, a server nobody scrapes would hold every
    /// latency sample it ever recorded.
    pub fn upkeep(&self) {
        if let Some(h) = HANDLE.get().and_then(|h| h.as_ref()) {
            h.run_upkeep();
        }
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        HANDLE
            .get()
            .and_then(|h| h.as_ref())
            .map(|h| h.render())
            .unwrap_or_default()
    }

    pub fn connections(&self, delta: f64) {
        gauge!("board_ws_connections").increment(delta);
    }

    pub fn board_clients(&self, delta: i64) {
        gauge!("board_joined_clients").increment(delta as f64);
    }

    pub fn boards_loaded(&self, delta: i64) {
        gauge!("board_boards_loaded").increment(delta as f64);
    }

    pub fn command(&self, origin: Origin) {
        static BY_ORIGIN: OnceLock<[Counter; 5]> = OnceLock::new();
        let c = BY_ORIGIN.get_or_init(|| {
            ["user", "ai", "undo", "redo", "restore"]
                .map(|o| counter!("board_commands_total", "origin" => o))
        });
        let i = match origin {
            Origin::User => 0,
            Origin::Ai => 1,
            Origin::Undo => 2,
            Origin::Redo => 3,
            Origin::Restore => 4,
        };
        c[i].increment(1);
    }

    pub fn broadcast_latency(&self, secs: f64) {
        static H: OnceLock<Histogram> = OnceLock::new();
        H.get_or_init(|| histogram!("board_commit_to_broadcast_seconds"))
            .record(secs);
    }

    /// How long a client's request waited in its board's mailbox (from the connection's hand-off
    /// to the board's handler): the board thread's queue, including any wait for a CPU.
    pub fn mailbox_wait(&self, secs: f64) {
        static H: OnceLock<Histogram> = OnceLock::new();
        H.get_or_init(|| histogram!("board_mailbox_wait_seconds"))
            .record(secs);
    }

    /// How long the log writer's report that a board's commands are durable waited in the
    /// board's mailbox before the board broadcast them.
    pub fn durable_wait(&self, secs: f64) {
        static H: OnceLock<Histogram> = OnceLock::new();
        H.get_or_init(|| histogram!("board_durable_wait_seconds"))
            .record(secs);
    }

    /// One log-writer append (one transaction and its sync): how long it took and how many
    /// records it made durable (`ok`) or failed.
    pub fn log_commit(&self, secs: f64, records: u64, ok: bool) {
        static M: OnceLock<(Histogram, Counter, Counter, Counter)> = OnceLock::new();
        let (h, commits, recs, failed) = M.get_or_init(|| {
            (
                histogram!("store_log_commit_seconds"),
                counter!("store_log_commits_total"),
                counter!("store_log_records_total"),
                counter!("store_log_failed_commits_total"),
            )
        });
        h.record(secs);
        if ok {
            commits.increment(1);
            recs.increment(records);
        } else {
            failed.increment(1);
        }
    }

    /// How long the oldest submission of a log-writer batch waited in the queue before the
    /// batch's append began (the previous append, the linger, and the wait for a CPU).
    pub fn log_wait(&self, secs: f64) {
        static H: OnceLock<Histogram> = OnceLock::new();
        H.get_or_init(|| histogram!("store_log_wait_seconds"))
            .record(secs);
    }

    /// A cluster event (`board_cluster_*_total`: takeovers, fenced, relay messages, gap
    /// repairs, handovers).
    pub fn cluster_event(&self, name: &'static str) {
        counter!(name).increment(1);
    }

    /// Boards this cluster node owns (`board_cluster_boards_owned`).
    pub fn boards_owned(&self, delta: f64) {
        gauge!("board_cluster_boards_owned").increment(delta);
    }

    /// Shows the cluster's series at zero from the start.
    pub fn cluster_started(&self) {
        for name in CLUSTER_COUNTERS {
            counter!(*name).increment(0);
        }
        gauge!("board_cluster_boards_owned").increment(0.0);
    }

    pub fn eviction(&self) {
        counter!("board_outbox_evictions_total").increment(1);
    }

    pub fn rejected(&self, code: ErrorCode) {
        counter!("board_rejected_commits_total", "code" => code.as_str()).increment(1);
    }

    pub fn error_sent(&self, code: ErrorCode) {
        counter!("board_errors_total", "code" => code.as_str()).increment(1);
    }

    pub fn message_in(&self) {
        static C: OnceLock<Counter> = OnceLock::new();
        C.get_or_init(|| counter!("board_messages_in_total"))
            .increment(1);
    }

    /// An AI command finished: latency from arrival to its reply, by route.
    pub fn ai_latency(&self, route: AiRoute, secs: f64) {
        let r = match route {
            AiRoute::Template => "template",
            AiRoute::Planner => "planner",
            AiRoute::Llm => "llm",
        };
        histogram!("board_ai_latency_seconds", "route" => r).record(secs);
    }

    /// AI commands waiting in per-user queues (across boards).
    pub fn ai_queue_depth(&self, delta: f64) {
        gauge!("board_ai_queue_depth").increment(delta);
    }

    /// AI commands running in workers.
    pub fn ai_running(&self, delta: f64) {
        gauge!("board_ai_running").increment(delta);
    }

    /// How an AI command ended, with its error category ("none" without one).
    pub fn ai_outcome(&self, outcome: AiOutcome, category: Option<AiErrorCategory>) {
        let o = match outcome {
            AiOutcome::Executed => "executed",
            AiOutcome::Planned => "planned",
            AiOutcome::Clarification => "clarification",
            AiOutcome::Error => "error",
        };
        let c = match category {
            None => "none",
            Some(AiErrorCategory::NoUnderstand) => "no_understand",
            Some(AiErrorCategory::ServiceUnavailable) => "service_unavailable",
            Some(AiErrorCategory::PartialFailure) => "partial_failure",
            Some(AiErrorCategory::InvalidRequest) => "invalid_request",
            Some(AiErrorCategory::RateLimited) => "rate_limited",
            Some(AiErrorCategory::NotImplemented) => "not_implemented",
        };
        counter!("board_ai_results_total", "outcome" => o, "category" => c).increment(1);
    }
}
