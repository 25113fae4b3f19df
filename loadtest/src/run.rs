//! One run: spawn every client with ramped joins, sample the server, wait, merge, report.
//!
//! Timeline (from the run's epoch): joins spread over `ramp`; the measurement window is
//! `[warmup, warmup + duration)`; writers stop when it closes; readers then wait for in-flight
//! messages until everything expected arrived or `drain` ran out. The run always ends by itself.

use crate::cli::RunConfig;
use crate::client::{BoardShared, ClientCtx, RunShared, run_client};
use crate::procfs::{self, ProcReport};
use crate::report::{RunReport, ShapeInfo};
use crate::slow;
use crate::stats::{ClientStats, Totals, assign_expected};
use rand::Rng;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::{Instant, sleep_until};

/// Runs one load test and returns its report.
pub async fn run(cfg: &RunConfig) -> anyhow::Result<RunReport> {
    let run_id: u32 = rand::rng().random();
    let n = cfg.boards * cfg.clients;
    let user_of = |i: usize| format!("lt-b{}-c{}", i % cfg.boards, i / cfg.boards);
    // Tokens first, before the run's clock starts.
    let (tokens, fixed_user) = crate::auth::tokens(cfg, n, user_of).await?;
    let epoch = Instant::now();
    let window_start = cfg.warmup;
    let window_end = cfg.warmup + cfg.duration;
    let us = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    let boards = (0..cfg.boards)
        .map(|b| BoardShared::new(format!("{}{run_id:08x}-{b}", cfg.board_prefix), cfg.clients))
        .collect();
    let shared = Arc::new(RunShared {
        epoch,
        urls: cfg.urls.clone(),
        placement: cfg.placement,
        rate: cfg.rate,
        mix: cfg.mix,
        strict: cfg.strict,
        window_start_us: us(window_start),
        window_end_us: us(window_end),
        drain_deadline: epoch + window_end + cfg.drain,
        storm_at: cfg.storm_at.map(|s| epoch + s),
        move_text: (cfg.move_text_bytes > 0).then(|| "x".repeat(cfg.move_text_bytes)),
        boards,
    });

    let sample_servers = |pids: &[u32]| -> Vec<Option<procfs::ProcSample>> {
        pids.iter().map(|&p| procfs::sample(Some(p))).collect()
    };
    let servers_before = sample_servers(&cfg.server_pids);
    let server_before = servers_before.first().copied().flatten();
    // Slow readers join once the ramp is over and hold until the window closes.
    let board_ids: Vec<String> = shared.boards.iter().map(|b| b.id.clone()).collect();
    let slow = (cfg.slow_readers > 0)
        .then(|| slow::Watch::start(cfg, &board_ids, epoch + cfg.ramp, epoch + window_end));
    let self_before = procfs::sample(None);
    let mut handles = Vec::with_capacity(n);
    for i in 0..n {
        let (board, client) = (i % cfg.boards, i / cfg.boards);
        let ctx = ClientCtx {
            shared: Arc::clone(&shared),
            board,
            client: u32::try_from(client).unwrap_or(u32::MAX),
            node: crate::cli::place(cfg.placement, board, client, cfg.urls.len()),
            user_id: fixed_user.clone().unwrap_or_else(|| user_of(i)),
            seed: cfg.seed.wrapping_mul(1_000_003).wrapping_add(i as u64),
            token: tokens.get(i).cloned().flatten(),
        };
        // Spread joins evenly over the ramp, interleaving boards.
        let join_at = epoch + cfg.ramp.mul_f64(i as f64 / n.max(1) as f64);
        handles.push(tokio::spawn(run_client(ctx, join_at)));
    }

    // Samples when the window opens and closes, while the clients run.
    let pids = cfg.server_pids.clone();
    let sampler = tokio::spawn(async move {
        sleep_until(epoch + window_start).await;
        let joined = (sample_servers(&pids), procfs::sample(None));
        sleep_until(epoch + window_end).await;
        let end = (sample_servers(&pids), procfs::sample(None));
        (joined, end)
    });

    let mut all: Vec<ClientStats> = Vec::with_capacity(n);
    let mut panicked = 0;
    for h in handles {
        match h.await {
            Ok(s) => all.push(s),
            Err(_) => {
                panicked += 1;
                let mut s = ClientStats::default();
                s.error("client_task_failed");
                all.push(s);
            }
        }
    }
    if panicked > 0 {
        eprintln!("warning: {panicked} client tasks failed");
    }
    let ((servers_joined, self_joined), (servers_end, self_end)) = sampler
        .await
        .map_err(|e| anyhow::anyhow!("sampler failed: {e}"))?;

    let slow = match slow {
        Some(w) => Some(w.finish(cfg, server_before.as_ref()).await),
        None => None,
    };
    let members: Vec<Vec<usize>> = (0..cfg.boards)
        .map(|b| (0..n).filter(|i| i % cfg.boards == b).collect())
        .collect();
    assign_expected(&mut all, &members);
    let never_joined = all.iter().filter(|s| s.never_joined).count() as u64;
    let totals = Totals::merge(&all);
    let proc = |before: Option<procfs::ProcSample>, joined, end, pid| match (before, joined, end) {
        (Some(b), Some(j), Some(e)) => Some(ProcReport::new(pid, &b, &j, &e, n, cfg.boards)),
        _ => None,
    };
    let shape = ShapeInfo {
        url: cfg.urls.join(","),
        nodes: cfg.urls.len(),
        boards: cfg.boards,
        clients_per_board: cfg.clients,
        connections: n,
        rate_per_client: cfg.rate,
        offered_actions_per_s: cfg.rate * n as f64,
        warmup_s: cfg.warmup.as_secs_f64(),
        duration_s: cfg.duration.as_secs_f64(),
        mix: cfg.mix.to_string(),
        commit_share: cfg.mix.commit_share(),
        storm_at_s: cfg.storm_at.map(|d| d.as_secs_f64()),
    };
    let servers: Vec<ProcReport> = cfg
        .server_pids
        .iter()
        .enumerate()
        .filter_map(|(k, &pid)| {
            let at = |v: &[Option<procfs::ProcSample>]| v.get(k).copied().flatten();
            proc(
                at(&servers_before),
                at(&servers_joined),
                at(&servers_end),
                Some(pid),
            )
        })
        .collect();
    let mut report = RunReport::new(
        shape,
        &totals,
        never_joined,
        servers.first().cloned(),
        proc(self_before, self_joined, self_end, None),
    );
    if cfg.server_pids.len() > 1 {
        report.set_nodes(servers);
    }
    report.slow_readers = slow;
    Ok(report)
}
