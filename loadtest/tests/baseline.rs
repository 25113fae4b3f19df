//! The load test against the baseline relay started in-process on port 0.

#![allow(clippy::unwrap_used)]

use clap::Parser;
use loadtest::baseline;
use loadtest::cli::{Args, RunConfig};
use loadtest::run::run;
use std::net::SocketAddr;
use std::time::Duration;

async fn relay() -> String {
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let (local, _task) = baseline::spawn(addr).await.unwrap();
    format!("ws://{local}")
}

fn config(url: &str, extra: &[&str]) -> RunConfig {
    let mut v = vec!["loadtest", "--url", url, "--strict"];
    v.extend_from_slice(extra);
    Args::parse_from(v).resolve().unwrap()
}

/// Every test gets a hard limit: a hung run fails instead of stalling CI.
async fn within<T>(secs: u64, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(secs), f)
        .await
        .expect("test timed out")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_moves_scenario_delivers_everything() {
    let url = relay().await;
    // The relay runs in this process, so this process is the "server" whose /proc is sampled.
    let pid = std::process::id().to_string();
    let cfg = config(
        &url,
        &[
            "--boards",
            "2",
            "--clients",
            "5",
            "--rate",
            "20",
            "--warmup",
            "0.5",
            "--duration",
            "1.5",
            "--drain",
            "3",
            "--server-pid",
            &pid,
        ],
    );
    let r = within(30, run(&cfg)).await.unwrap();
    assert!(r.problems().is_empty(), "{:?}\n{}", r.problems(), r.table());
    assert!(r.expected > 0, "{}", r.table());
    assert_eq!(r.delivered, r.expected, "{}", r.table());
    // Each board: 5 clients, each commit reaches the 4 others.
    assert_eq!(r.expected, r.window_commits * 4, "{}", r.table());
    assert_eq!(r.acks, r.window_commits);
    assert_eq!(r.error_count, 0);
    assert_eq!(r.protocol_errors, 0);
    assert_eq!(r.seq_gaps, 0);
    assert_eq!(r.disconnects, 0);
    assert_eq!(r.fanout.count, r.delivered);
    assert!(r.fanout.p50_ms > 0.0 && r.fanout.max_ms >= r.fanout.p99_ms);
    // /proc was read: RSS, CPU and the run-queue wait (schedstat) of the server and the generator.
    for p in [r.server.as_ref().unwrap(), r.loadtest.as_ref().unwrap()] {
        assert!(p.rss_joined_kb > 0, "{}", r.table());
        assert!(
            p.cpu_wait_percent_window.is_some_and(|w| w >= 0.0),
            "{}",
            r.table()
        );
    }
    assert!(r.table().contains("waited for a CPU"), "{}", r.table());
    // About 2 boards × 5 clients × 20/s × 1.5 s = 300 commits.
    assert!(
        (150..=330).contains(&r.window_commits),
        "{}",
        r.window_commits
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_workload_counts_creates_presence_and_ai() {
    let url = relay().await;
    let cfg = config(
        &url,
        &[
            "--boards",
            "1",
            "--clients",
            "4",
            "--rate",
            "40",
            "--warmup",
            "0.5",
            "--duration",
            "1",
            "--mix",
            "moves=40,creates=20,presence=20,ai=20",
        ],
    );
    let r = within(30, run(&cfg)).await.unwrap();
    assert_eq!(r.delivered, r.expected, "{}", r.table());
    assert_eq!(r.error_count, 0, "{}", r.table());
    assert_eq!(r.protocol_errors, 0);
    assert!(r.presence_sent > 0 && r.presence_recv > 0, "{}", r.table());
    // The relay answers AI with not_implemented: counted, but not as an error.
    assert!(r.ai_sent > 0);
    assert_eq!(r.ai_not_implemented, r.ai_sent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnect_storm_resumes_every_client_without_loss() {
    let url = relay().await;
    let cfg = config(
        &url,
        &[
            "--boards",
            "2",
            "--clients",
            "6",
            "--rate",
            "20",
            "--warmup",
            "0.5",
            "--duration",
            "2",
            "--reconnect-storm-at",
            "1.2",
            "--drain",
            "3",
        ],
    );
    let r = within(30, run(&cfg)).await.unwrap();
    let storm = r.storm.clone().unwrap();
    assert_eq!(storm.dropped, 12, "{}", r.table());
    assert_eq!(storm.recovered, 12, "{}", r.table());
    assert!(storm.recovery_ms > 0.0);
    assert_eq!(r.resumes, 12);
    assert_eq!(
        r.full_resyncs, 0,
        "the relay's replay window covers the storm"
    );
    assert!(r.problems().is_empty(), "{:?}\n{}", r.problems(), r.table());
    assert_eq!(r.delivered, r.expected, "{}", r.table());
    assert!(r.expected > 0);
    assert_eq!(r.error_count, 0);
    assert_eq!(r.seq_gaps, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_server_fails_the_checks() {
    // A relay that accepts and never answers: no welcome, nothing delivered.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((s, _)) = listener.accept().await {
            held.push(s);
        }
    });
    let cfg = config(
        &format!("ws://{addr}"),
        &[
            "--boards",
            "1",
            "--clients",
            "2",
            "--rate",
            "5",
            "--warmup",
            "0.2",
            "--duration",
            "0.5",
            "--drain",
            "0.5",
        ],
    );
    let r = within(30, run(&cfg)).await.unwrap();
    let problems = r.problems();
    assert!(!problems.is_empty());
    assert!(
        problems.iter().any(|p| p.contains("never joined")),
        "{problems:?}"
    );
}
