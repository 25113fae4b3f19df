//! Convergence under a seeded randomized session over real WebSockets against the real server.
//! Each test names the docs/SPEC.md rule it checks.
//!
//! - CONV-1: at quiescence every client's mirror equals a fresh client's welcome.
//! - CONV-2: every client sees a gap-free seq, across disconnects and resumes
//!   (asserted by the harness on every `applied`).
//!
//! Replay one seed: `CONV_SEED=3 cargo test -p server --test convergence`.
//! More seeds: `CONV_SEEDS=50`. Steps per seed: `CONV_STEPS` (default 120).
#![allow(clippy::unwrap_used)]

mod common;

use common::seeded::*;
use common::*;
use std::time::{Duration, Instant};

const BOARD: &str = "board";
const SEED_TIMEOUT: Duration = Duration::from_secs(60);

async fn run_seed(seed: u64, steps: usize) -> (usize, Stats) {
    let s = start(config()).await;
    let (mut slots, stats) = run_steps(seed, steps, BOARD, &[s.addr]).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let board = loop {
        let insp = s.inspect(BOARD).await.unwrap();
        if insp.durable == insp.seq {
            break insp;
        }
        assert!(
            Instant::now() < deadline,
            "seed {seed}: board never became durable ({} < {})",
            insp.durable,
            insp.seq
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    catch_up(seed, &mut slots, board.durable).await;
    let again = s.inspect(BOARD).await.unwrap();
    assert_eq!(
        again.seq, board.seq,
        "seed {seed}: the board moved after quiescence"
    );
    assert_mirrors(seed, &slots, s.addr, BOARD, "fresh").await;
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
    (slots.len(), stats)
}

fn panic_text(e: tokio::task::JoinError) -> String {
    match e.try_into_panic() {
        Ok(p) => p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into()),
        Err(e) => e.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conv_1_and_conv_2_random_sessions_converge() {
    let steps = env_u64("CONV_STEPS").unwrap_or(120) as usize;
    let seeds: Vec<u64> = match env_u64("CONV_SEED") {
        Some(one) => vec![one],
        None => (0..env_u64("CONV_SEEDS").unwrap_or(8)).collect(),
    };
    for seed in seeds {
        let started = Instant::now();
        let task = tokio::spawn(run_seed(seed, steps));
        let abort = task.abort_handle();
        match tokio::time::timeout(SEED_TIMEOUT, task).await {
            Ok(Ok((n, stats))) => eprintln!(
                "seed {seed}: ok in {:?}, {n} clients, {stats:?}",
                started.elapsed()
            ),
            Ok(Err(e)) => panic!(
                "seed {seed} failed: {}\nreplay with CONV_SEED={seed}",
                panic_text(e)
            ),
            Err(_) => {
                abort.abort();
                panic!(
                    "seed {seed} timed out after {SEED_TIMEOUT:?}\nreplay with CONV_SEED={seed}"
                );
            }
        }
    }
}
