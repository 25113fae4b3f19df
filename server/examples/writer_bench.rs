//! Group-commit writer throughput: N concurrent writers, each submits one command, waits for its
//! `done`, repeats. Prints durable commits/s and submit→done latency percentiles.
//!
//! Usage: cargo run --release -p server --example writer_bench -- [sqlite|postgres|all] [seconds] [writers,...]
//! PostgreSQL from BENCH_PG_URL (default host=127.0.0.1 user=postgres dbname=test); each run uses a fresh
//! schema (dropped afterwards). SQLite uses a fresh directory under the temp dir (one transaction per
//! group commit, `synchronous=FULL`).
#![allow(clippy::unwrap_used)]

use protocol::{BoardId, Command, Kind, ObjectId, ObjectInput, Op, Origin, UserId};
use server::store::{LogRecord, Store, Writer, WriterOptions};
use std::time::{Duration, Instant};

fn command(i: u64) -> Command {
    let mut o = ObjectInput::new(Kind::Note).normalize(ObjectId::random(), i as i64);
    o.text = format!("sticky note number {i}");
    Command {
        id: format!("cmd-{i}"),
        author: UserId::try_from("bench-user").unwrap(),
        origin: Origin::User,
        client_id: Some(format!("client-{i}")),
        ops: vec![Op::Create { object: o }],
    }
}

struct Report {
    commits: usize,
    secs: f64,
    p50: Duration,
    p99: Duration,
    max: Duration,
    batches: u64,
}

async fn run(store: Store, writers: usize, secs: u64) -> Report {
    let w = Writer::spawn(store, WriterOptions::default());
    let start = Instant::now();
    let deadline = start + Duration::from_secs(secs);
    let mut tasks = Vec::new();
    for i in 0..writers {
        let w = w.clone();
        tasks.push(tokio::spawn(async move {
            let board = BoardId::try_from(format!("bench-{i}")).unwrap();
            let mut lat = Vec::new();
            let mut seq = 0;
            while Instant::now() < deadline {
                seq += 1;
                let rec = LogRecord::new(board.clone(), seq, &command(seq));
                let (tx, rx) = tokio::sync::oneshot::channel();
                let t0 = Instant::now();
                w.submit(
                    vec![rec],
                    Box::new(move |r| {
                        let _ = tx.send(r);
                    }),
                );
                rx.await.unwrap().unwrap();
                lat.push(t0.elapsed());
            }
            lat
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let secs = start.elapsed().as_secs_f64();
    all.sort();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)];
    Report {
        commits: all.len(),
        secs,
        p50: pct(0.50),
        p99: pct(0.99),
        max: *all.last().unwrap(),
        batches: w.stats().snapshot().batches,
    }
}

async fn open(backend: &str, tag: &str) -> (Store, Box<dyn FnOnce()>) {
    match backend {
        "sqlite" => {
            let dir =
                std::env::temp_dir().join(format!("writer-bench-{}-{tag}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let store = Store::open_sqlite(&dir, server::store::DEFAULT_TIMEOUT)
                .await
                .unwrap();
            (store, Box::new(move || drop(std::fs::remove_dir_all(&dir))))
        }
        _ => {
            let url = std::env::var("BENCH_PG_URL")
                .unwrap_or_else(|_| "host=127.0.0.1 user=postgres dbname=test".into());
            let schema = format!("bench_{}_{tag}", std::process::id());
            let store = Store::open_postgres(&url, Some(&schema), server::store::DEFAULT_TIMEOUT)
                .await
                .unwrap();
            let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(conn);
            let cleanup = Box::new(move || {
                let _ = std::thread::spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap();
                    rt.block_on(async {
                        let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                            .await
                            .unwrap();
                        tokio::spawn(conn);
                        c.batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
                            .await
                            .unwrap();
                    })
                })
                .join();
            });
            drop(client);
            (store, cleanup)
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map(String::as_str).unwrap_or("all");
    let secs: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let writers: Vec<usize> = args
        .get(3)
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 10, 100]);
    let backends: Vec<&str> = match which {
        "all" => vec!["sqlite", "postgres"],
        b => vec![b],
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{:<13} {:>7} {:>10} {:>12} {:>9} {:>9} {:>9} {:>10}",
        "backend", "writers", "commits", "commits/s", "p50 ms", "p99 ms", "max ms", "rec/batch"
    );
    for b in backends {
        for &n in &writers {
            let r = rt.block_on(async {
                let (store, cleanup) = open(b, &n.to_string()).await;
                let r = run(store, n, secs).await;
                cleanup();
                r
            });
            println!(
                "{:<13} {:>7} {:>10} {:>12.0} {:>9.2} {:>9.2} {:>9.2} {:>10.1}",
                b,
                n,
                r.commits,
                r.commits as f64 / r.secs,
                r.p50.as_secs_f64() * 1e3,
                r.p99.as_secs_f64() * 1e3,
                r.max.as_secs_f64() * 1e3,
                r.commits as f64 / r.batches.max(1) as f64
            );
        }
    }
}
