//! Version history at scale (HIST-n; figures in docs/BENCHMARKS.md): a board of 10,000 objects
//! with 100,000 commands of history, a snapshot and an automatic version every 1,000 commands
//! (100 versions, all within the default retention's first 7 days). Prints the time to list the
//! versions and to load one, and the store's growth per 1,000 commands.
//!
//! Usage: cargo run --release -p server --example history_bench -- [sqlite|postgres]
//! PostgreSQL from BENCH_PG_URL (default host=127.0.0.1 user=postgres dbname=test), in a fresh
//! schema dropped afterwards; SQLite in a fresh directory under the temp dir.
#![allow(clippy::unwrap_used)]

use protocol::{BoardId, BoardObject, Command, Kind, ObjectId, ObjectInput, Op, Origin, Patch};
use server::store::{Store, Summary, VersionKind, VersionMeta};
use std::time::{Duration, Instant};

const OBJECTS: usize = 10_000;
const COMMANDS: u64 = 100_000;
const EVERY: u64 = 1_000;

fn objects() -> Vec<BoardObject> {
    (0..OBJECTS)
        .map(|i| {
            let mut o = ObjectInput::new(Kind::Note)
                .normalize(ObjectId::try_from(format!("note-{i}")).unwrap(), i as i64);
            o.x = (i % 100) as f64 * 220.0;
            o.y = (i / 100) as f64 * 220.0;
            o.text = format!("idea number {i} for the workshop");
            o
        })
        .collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

async fn size(store: &Store, dir: &std::path::Path, pg: Option<&tokio_postgres::Client>) -> u64 {
    match (store, pg) {
        (Store::Postgres(s), Some(c)) => {
            let schema = s.schema().unwrap();
            let row = c
                .query_one(
                    "SELECT coalesce(sum(pg_total_relation_size(quote_ident(schemaname) || '.' || \
                     quote_ident(tablename))), 0)::bigint FROM pg_tables WHERE schemaname = $1",
                    &[&schema],
                )
                .await
                .unwrap();
            row.get::<_, i64>(0) as u64
        }
        _ => std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok()?.metadata().ok())
            .map(|m| m.len())
            .sum(),
    }
}

#[tokio::main]
async fn main() {
    let backend = std::env::args().nth(1).unwrap_or_else(|| "sqlite".into());
    let dir = std::env::temp_dir().join(format!("history-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = std::env::var("BENCH_PG_URL")
        .unwrap_or_else(|_| "host=127.0.0.1 user=postgres dbname=test".into());
    let schema = format!("history_bench_{}", std::process::id());
    let timeout = Duration::from_secs(60);
    let (store, pg) = if backend == "postgres" {
        let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        let s = Store::open_postgres(&url, Some(&schema), timeout)
            .await
            .unwrap();
        (s, Some(c))
    } else {
        (Store::open_sqlite(&dir, timeout).await.unwrap(), None)
    };
    let board = BoardId::try_from("history-bench").unwrap();
    let mut doc = objects();
    store.create_board(&board, &doc).await.unwrap();
    store.save_snapshot(&board, 0, &doc).await.unwrap();
    let start_size = size(&store, &dir, pg.as_ref()).await;
    let author = protocol::UserId::try_from("ann").unwrap();
    let t = Instant::now();
    for seq in 1..=COMMANDS {
        let i = (seq as usize * 7919) % OBJECTS;
        doc[i].x += 1.0;
        doc[i].version = seq;
        let cmd = Command {
            id: format!("cmd-{seq}"),
            author: author.clone(),
            origin: Origin::User,
            client_id: Some(format!("c{seq}")),
            ops: vec![Op::Update {
                id: doc[i].id.clone(),
                set: Patch {
                    x: Some(doc[i].x),
                    ..Patch::default()
                },
            }],
        };
        store
            .append(&[server::store::LogRecord::new(board.clone(), seq, &cmd)])
            .await
            .unwrap();
        if seq % EVERY == 0 {
            store.save_snapshot(&board, seq, &doc).await.unwrap();
            let meta = VersionMeta {
                kind: VersionKind::Automatic,
                name: None,
                authors: vec![server::store::Author {
                    id: "ann".into(),
                    name: "Ann".into(),
                }],
                summary: Summary {
                    created: 0,
                    changed: EVERY,
                    deleted: 0,
                },
                objects: OBJECTS as u64,
                pictures: None,
            };
            store.save_version(&board, seq, meta, &doc).await.unwrap();
        }
    }
    let written = t.elapsed();
    let end_size = size(&store, &dir, pg.as_ref()).await;
    let versions = store.list_versions(&board).await.unwrap();
    assert_eq!(versions.len() as u64, COMMANDS / EVERY);
    let mut lists = Vec::new();
    for _ in 0..21 {
        let t = Instant::now();
        let v = store.list_versions(&board).await.unwrap();
        lists.push(t.elapsed());
        assert_eq!(v.len(), 100);
    }
    let mut loads = Vec::new();
    for k in 0..11u64 {
        let t = Instant::now();
        let (_, objects) = store
            .load_version(&board, 1 + k * 9)
            .await
            .unwrap()
            .unwrap();
        loads.push(t.elapsed());
        assert_eq!(objects.len(), OBJECTS);
    }
    let grown = end_size.saturating_sub(start_size);
    println!(
        "{backend}: {OBJECTS} objects, {COMMANDS} commands, {} versions (written in {:.1} s)",
        versions.len(),
        written.as_secs_f64()
    );
    println!(
        "  list versions: median {:.2} ms",
        median(lists).as_secs_f64() * 1e3
    );
    println!(
        "  load a version: median {:.1} ms",
        median(loads).as_secs_f64() * 1e3
    );
    println!(
        "  store grew {:.1} MB: {:.0} KB per 1,000 commands (a version of the whole board every 1,000)",
        grown as f64 / 1e6,
        grown as f64 / 1e3 / (COMMANDS / EVERY) as f64
    );
    drop(store);
    if let Some(c) = pg {
        c.batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
            .await
            .unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}
