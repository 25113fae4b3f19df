//! Load generator for the board server: simulated collaborators over real WebSockets, with
//! latency/throughput reports, rate sweeps, long-haul shapes and a baseline relay to compare with.
//!
//! # Layout
//! - [`cli`]: flags, shape presets, the resolved [`cli::RunConfig`].
//! - [`workload`]: the action mix and where notes move.
//! - [`wire`]: client messages out, a light decoder in, the send time carried in the commit id.
//! - [`client`]: one task per simulated client (reader and writer raced in one task; resume with
//!   `since` after a drop or the reconnect storm).
//! - [`stats`]: per-client counters and HdrHistograms, merged after the run.
//! - [`run`]: one run (ramped joins, window, drain, /proc sampling).
//! - [`report`]: the JSON report, pass/fail checks, the text table.
//! - [`sweep`]: rate sweep to the highest sustainable rate; share of the baseline.
//! - [`plot`]: latency-vs-load SVG.
//! - [`baseline`]: the minimal broadcast relay.
//! - [`procfs`]: RSS and CPU of a process.
//! - [`auth`]: board tokens for a server with access control on (`--token`, `--admin-token`).
//! - [`failover`]: `loadtest failover`, failover and hand-over times of a two-node cluster.
//! - [`slow`]: clients that join and never read (`--slow-readers`), and the server's peak and
//!   final RSS.
//!
//! Invariants: every clock reading is from one process-wide epoch; no lock is held across an
//! `.await`; a run stops by itself after warm-up + duration + drain; only loopback is dialed.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod auth;
pub mod baseline;
pub mod cli;
pub mod client;
pub mod failover;
pub mod plot;
pub mod procfs;
pub mod report;
pub mod run;
pub mod slow;
pub mod stats;
pub mod sweep;
pub mod wire;
pub mod workload;

/// Raises the open-file limit's soft value to the hard one (10,000 connections need it).
/// Returns the new soft limit.
pub fn raise_fd_limit() -> Option<u64> {
    rlimit::increase_nofile_limit(u64::MAX).ok()
}
