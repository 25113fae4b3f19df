//! One run: spawn every client with ramped joins, sample the server, wait, merge, report.
//!
//! Timeline (from the run's epoch): joins spread over `ramp`; the measurement window is
//! `[warmup, warmup + duration)`; writers stop when it closes; readers then wait for in-flight
//! messages until everything expected arrived or `drain` ran out. The run always ends by itself.

use crate::cli::RunConfig;
use crate::client::{BoardShared, ClientCtx, RunShared, run_client};
use crate::procfs::{self, ProcReport, ProcSample};
use crate::report::{RunReport, ShapeInfo};
use crate::slow;
use crate::stats::{ClientStats, Totals, assign_expected};
use rand::Rng;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep_until};

/// Runs one load test and returns its report.
pub async fn run(cfg: &RunConfig) -> anyhow::Result<RunReport> {
    let run_id: u32 = rand::rng().random();
    let n = cfg.boards * cfg.clients;
    // Tokens first, before the run's clock starts.
    let (tokens, fixed_user) = crate::auth::tokens(cfg, n, |i| user_of(cfg, i)).await?;
    let epoch = Instant::now();
    let window_end = cfg.warmup + cfg.duration;
    let shared = shared_state(cfg, run_id, epoch);

    let servers_before = sample_servers(&cfg.server_pids);
    let server_before = servers_before.first().copied().flatten();
    // Slow readers join once the ramp is over and hold until the window closes.
    let board_ids: Vec<String> = shared.boards.iter().map(|b| b.id.clone()).collect();
    let slow = (cfg.slow_readers > 0)
        .then(|| slow::Watch::start(cfg, &board_ids, epoch + cfg.ramp, epoch + window_end));
    let before = Samples {
        servers: servers_before,
        loadtest: procfs::sample(None),
    };
    let handles = spawn_clients(cfg, &shared, &tokens, fixed_user.as_deref());
    let sampler = spawn_window_sampler(cfg.server_pids.clone(), epoch, cfg.warmup, window_end);

    let mut all = collect_stats(handles).await;
    let (joined, end) = sampler
        .await
        .map_err(|e| anyhow::anyhow!("sampler failed: {e}"))?;

    let slow = match slow {
        Some(w) => Some(w.finish(cfg, server_before.as_ref()).await),
        None => None,
    };
    let samples = RunSamples {
        before,
        joined,
        end,
    };
    let mut report = build_report(cfg, &mut all, &samples);
    report.slow_readers = slow;
    Ok(report)
}

/// The user id of client `i` (on board `i % boards`, the `i / boards`-th client there).
fn user_of(cfg: &RunConfig, i: usize) -> String {
    format!("lt-b{}-c{}", i % cfg.boards, i / cfg.boards)
}

/// Process samples taken at one moment: each `--server-pid`'s and this process's.
struct Samples {
    servers: Vec<Option<ProcSample>>,
    loadtest: Option<ProcSample>,
}

/// The process samples of a run: before it, when the window opened, when it closed.
struct RunSamples {
    before: Samples,
    joined: Samples,
    end: Samples,
}

/// Samples every server process, in the order of `pids`.
fn sample_servers(pids: &[u32]) -> Vec<Option<ProcSample>> {
    pids.iter().map(|&p| procfs::sample(Some(p))).collect()
}

/// Setup step: the state every client shares (timeline, settings, one entry per board).
fn shared_state(cfg: &RunConfig, run_id: u32, epoch: Instant) -> Arc<RunShared> {
    let window_start = cfg.warmup;
    let window_end = cfg.warmup + cfg.duration;
    let us = |d: Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    let boards = (0..cfg.boards)
        .map(|b| BoardShared::new(format!("{}{run_id:08x}-{b}", cfg.board_prefix), cfg.clients))
        .collect();
    Arc::new(RunShared {
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
    })
}

/// Spawn step: starts every client task, their joins spread evenly over the ramp.
fn spawn_clients(
    cfg: &RunConfig,
    shared: &Arc<RunShared>,
    tokens: &[Option<String>],
    fixed_user: Option<&str>,
) -> Vec<JoinHandle<ClientStats>> {
    let n = cfg.boards * cfg.clients;
    let mut handles = Vec::with_capacity(n);
    for i in 0..n {
        let (board, client) = (i % cfg.boards, i / cfg.boards);
        let ctx = ClientCtx {
            shared: Arc::clone(shared),
            board,
            client: u32::try_from(client).unwrap_or(u32::MAX),
            node: crate::cli::place(cfg.placement, board, client, cfg.urls.len()),
            user_id: fixed_user.map_or_else(|| user_of(cfg, i), str::to_owned),
            seed: cfg.seed.wrapping_mul(1_000_003).wrapping_add(i as u64),
            token: tokens.get(i).cloned().flatten(),
        };
        // Spread joins evenly over the ramp, interleaving boards.
        let join_at = shared.epoch + cfg.ramp.mul_f64(i as f64 / n.max(1) as f64);
        handles.push(tokio::spawn(run_client(ctx, join_at)));
    }
    handles
}

/// Sampling step: a task that samples the processes when the window opens and when it closes,
/// while the clients run.
fn spawn_window_sampler(
    pids: Vec<u32>,
    epoch: Instant,
    window_start: Duration,
    window_end: Duration,
) -> JoinHandle<(Samples, Samples)> {
    tokio::spawn(async move {
        sleep_until(epoch + window_start).await;
        let joined = Samples {
            servers: sample_servers(&pids),
            loadtest: procfs::sample(None),
        };
        sleep_until(epoch + window_end).await;
        let end = Samples {
            servers: sample_servers(&pids),
            loadtest: procfs::sample(None),
        };
        (joined, end)
    })
}

/// Collect step: waits for every client and takes its stats; a client task that failed
/// counts as a client with one `client_task_failed` error.
async fn collect_stats(handles: Vec<JoinHandle<ClientStats>>) -> Vec<ClientStats> {
    let mut all: Vec<ClientStats> = Vec::with_capacity(handles.len());
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
    all
}

/// Report step: merges the clients' stats and the process samples (before the run, when the
/// window opened, when it closed) into the report, without the slow readers.
fn build_report(cfg: &RunConfig, all: &mut [ClientStats], samples: &RunSamples) -> RunReport {
    let RunSamples {
        before,
        joined,
        end,
    } = samples;
    let n = cfg.boards * cfg.clients;
    let members: Vec<Vec<usize>> = (0..cfg.boards)
        .map(|b| (0..n).filter(|i| i % cfg.boards == b).collect())
        .collect();
    assign_expected(all, &members);
    let never_joined = all.iter().filter(|s| s.never_joined).count() as u64;
    let totals = Totals::merge(all);
    let servers: Vec<ProcReport> = cfg
        .server_pids
        .iter()
        .enumerate()
        .filter_map(|(k, &pid)| {
            let at = |v: &Samples| v.servers.get(k).copied().flatten();
            proc_report(cfg, at(before), at(joined), at(end), Some(pid))
        })
        .collect();
    let loadtest = proc_report(cfg, before.loadtest, joined.loadtest, end.loadtest, None);
    let mut report = RunReport::new(
        shape_info(cfg),
        &totals,
        never_joined,
        servers.first().cloned(),
        loadtest,
    );
    if cfg.server_pids.len() > 1 {
        report.set_nodes(servers);
    }
    report
}

/// One process's report from its three samples; None if any of them is missing.
fn proc_report(
    cfg: &RunConfig,
    before: Option<ProcSample>,
    joined: Option<ProcSample>,
    end: Option<ProcSample>,
    pid: Option<u32>,
) -> Option<ProcReport> {
    let n = cfg.boards * cfg.clients;
    match (before, joined, end) {
        (Some(b), Some(j), Some(e)) => Some(ProcReport::new(pid, &b, &j, &e, n, cfg.boards)),
        _ => None,
    }
}

/// The run's shape as the report states it.
fn shape_info(cfg: &RunConfig) -> ShapeInfo {
    let n = cfg.boards * cfg.clients;
    ShapeInfo {
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
    }
}
