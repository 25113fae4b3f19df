//! End-to-end latency of a template AI command: from sending `ai` to the moment every client on
//! the board holds the resulting `applied` (and the requester its `ai_result`). The real server
//! runs in-process with the durable SQLite store; clients are real WebSockets.
//!
//! Each round sends "create a SWOT analysis for a coffee shop" (13 objects, placed in open space
//! and collision-checked against the board), waits for every client, then undoes it so the board
//! keeps its size. Two scenarios: an idle board, and the same board while `editors` clients each
//! move their own note `rate` times per second.
//!
//! Usage: cargo run --release -p server --example ai_latency -- [rounds] [observers] [editors] [rate]
//! (defaults: 300 rounds, 5 observers, 50 editors, 10 updates/s each).
#![allow(clippy::unwrap_used)]

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use server::Config;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const BOARD: &str = "ai-bench";

async fn join(addr: SocketAddr, user: &str) -> Ws {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws/boards/{BOARD}"))
        .await
        .unwrap();
    let hello = json!({"type":"hello","user":{"id":user,"name":user}});
    ws.send(Message::text(hello.to_string())).await.unwrap();
    loop {
        if let Some(Ok(Message::Text(t))) = ws.next().await {
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] == "welcome" {
                return ws;
            }
        }
    }
}

/// A client that reports the seq of every `applied` of origin `ai` it receives.
fn observer(mut ws: Ws, tx: mpsc::UnboundedSender<(u64, Instant)>) {
    tokio::spawn(async move {
        while let Some(Ok(m)) = ws.next().await {
            if let Message::Text(t) = m {
                // Cheap filter before parsing: most traffic is the editors' moves.
                if !t.as_str().contains(r#""origin":"ai""#) {
                    continue;
                }
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                if v["type"] == "applied" {
                    let _ = tx.send((v["seq"].as_u64().unwrap(), Instant::now()));
                }
            }
        }
    });
}

/// A client moving its own note `rate` times a second, reading (and dropping) what it receives.
async fn editor(addr: SocketAddr, i: usize, rate: f64, stop: Arc<AtomicBool>) {
    let ws = join(addr, &format!("editor-{i}")).await;
    let (mut tx, mut rx) = ws.split();
    let id = format!("ed{i}");
    let create = json!({"type":"commit","id":format!("{id}-c"),"ops":[{"op":"create","object":{"id":id,"kind":"note","x":-5000.0 - (i as f64) * 250.0,"y":-5000.0}}]});
    tx.send(Message::text(create.to_string())).await.unwrap();
    tokio::spawn(async move { while let Some(Ok(_)) = rx.next().await {} });
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        tick.tick().await;
        n += 1;
        let m = json!({"type":"commit","id":format!("{id}-{n}"),"ops":[{"op":"update","id":id,"set":{"y": -5000.0 + (n % 50) as f64}}]});
        if tx.send(Message::text(m.to_string())).await.is_err() {
            break;
        }
    }
}

/// The next text frame (pings and pongs skipped).
async fn text(ws: &mut Ws) -> String {
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(t))) => return t.to_string(),
            Some(Ok(Message::Close(f))) => panic!("requester closed: {f:?}"),
            Some(Ok(_)) => continue,
            other => panic!("requester socket ended: {other:?}"),
        }
    }
}

struct Stats {
    all: Vec<Duration>,
    result: Vec<Duration>,
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1000.0
}

async fn rounds(
    requester: &mut Ws,
    observers: usize,
    rx: &mut mpsc::UnboundedReceiver<(u64, Instant)>,
    n: usize,
) -> Stats {
    let mut stats = Stats {
        all: Vec::new(),
        result: Vec::new(),
    };
    for r in 0..n {
        let id = format!("r{r}");
        let t0 = Instant::now();
        let m = json!({"type":"ai","id":id,"text":"create a SWOT analysis for a coffee shop","viewport":{"x":0,"y":0,"w":1600,"h":1000}});
        requester.send(Message::text(m.to_string())).await.unwrap();
        // The requester's own ai_result.
        let (seq, t_result) = loop {
            let t = text(requester).await;
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] == "ai_result" && v["id"] == id.as_str() {
                assert_eq!(v["outcome"], "executed", "{v}");
                break (v["seq"].as_u64().unwrap(), Instant::now());
            }
        };
        let mut last = t_result;
        let mut got = 0;
        while got < observers {
            let (s, t) = rx.recv().await.unwrap();
            if s == seq {
                got += 1;
                last = last.max(t);
            }
        }
        stats.all.push(last - t0);
        stats.result.push(t_result - t0);
        // Undo, so the board keeps its size; wait until the observers saw it too.
        requester
            .send(Message::text(json!({"type":"undo"}).to_string()))
            .await
            .unwrap();
        loop {
            let t = text(requester).await;
            if t.as_str().contains(r#""origin":"undo""#) {
                break;
            }
        }
    }
    stats
}

fn report(name: &str, mut s: Stats) {
    println!(
        "{name:<34} n={:<4} every client: p50 {:.2} ms  p90 {:.2} ms  p99 {:.2} ms  max {:.2} ms | requester's ai_result: p50 {:.2} ms  p99 {:.2} ms",
        s.all.len(),
        pct(&mut s.all, 0.5),
        pct(&mut s.all, 0.9),
        pct(&mut s.all, 0.99),
        pct(&mut s.all, 1.0),
        pct(&mut s.result, 0.5),
        pct(&mut s.result, 0.99),
    );
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (n, observers, editors, rate) = (
        arg(0, 300.0) as usize,
        arg(1, 5.0) as usize,
        arg(2, 50.0) as usize,
        arg(3, 10.0),
    );
    let dir = std::env::temp_dir().join(format!("ai-bench-{}", uuid::Uuid::new_v4()));
    let mut cfg = Config::for_tests(dir.clone());
    cfg.openai_api_key = None;
    cfg.openai_base_url = None;
    // Anyone joins by name, as with `--auth off` on a laptop: the benchmark measures the agent.
    cfg.auth = server::config::AuthMode::Off;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = server::spawn(listener, cfg).await.unwrap();
    let addr = server.addr;

    // A board with existing work: 200 notes in the requester's viewport area.
    let mut requester = join(addr, "requester").await;
    let ops: Vec<Value> = (0..200)
        .map(|i| json!({"op":"create","object":{"kind":"note","x": (i % 20) as f64 * 260.0,"y": (i / 20) as f64 * 260.0,"text":format!("existing {i}")}}))
        .collect();
    requester
        .send(Message::text(
            json!({"type":"commit","id":"seed","ops":ops}).to_string(),
        ))
        .await
        .unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    for i in 0..observers {
        observer(join(addr, &format!("observer-{i}")).await, tx.clone());
    }
    // Warm-up.
    rounds(&mut requester, observers, &mut rx, 20).await;
    let idle = rounds(&mut requester, observers, &mut rx, n).await;
    report(&format!("idle board ({observers} observers)"), idle);

    let stop = Arc::new(AtomicBool::new(false));
    for i in 0..editors {
        tokio::spawn(editor(addr, i, rate, stop.clone()));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let busy = rounds(&mut requester, observers, &mut rx, n).await;
    stop.store(true, Ordering::Relaxed);
    report(
        &format!("{editors} editors x {rate}/s ({observers} obs.)"),
        busy,
    );
    server.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}
