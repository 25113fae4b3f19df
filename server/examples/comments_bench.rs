//! A board with many comment threads (COMMENT benchmarks): the real server in-process on the
//! durable SQLite store, real WebSockets.
//!
//! 1. One client opens `threads` threads (a 120-character body each), 100 requests in flight.
//! 2. Joining that board: the `welcome` (its size, and the time from `hello` to it; warm, and
//!    cold after a restart of the server), and a `hello.comments_since: 0` replay of every thread.
//! 3. `comments_changed` under `clients` connected clients: one more client reacts to a comment,
//!    one request at a time (time until every client holds the frame), then `burst` reactions
//!    in flight at once (time until every client holds the last one).
//!
//! Usage: cargo run --release -p server --example comments_bench -- [threads] [clients] [rounds]
//! [burst] (defaults: 2000 threads, 50 clients, 300 rounds, 1000 in the burst).
#![allow(clippy::unwrap_used)]

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use server::Config;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const BOARD: &str = "comments-bench";

/// Sends `hello` (with `extra` fields) and reads up to the welcome: the socket, the welcome's
/// size in bytes and the time from sending `hello` to holding the welcome.
async fn join(addr: SocketAddr, user: &str, extra: Value) -> (Ws, usize, Duration) {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws/boards/{BOARD}"))
        .await
        .unwrap();
    let mut hello = json!({"type":"hello","user":{"id":user,"name":user}});
    if let (Some(h), Some(e)) = (hello.as_object_mut(), extra.as_object()) {
        h.extend(e.clone());
    }
    let t = Instant::now();
    ws.send(Message::text(hello.to_string())).await.unwrap();
    loop {
        let f = text(&mut ws).await;
        if f.starts_with(r#"{"type":"welcome""#) {
            return (ws, f.len(), t.elapsed());
        }
    }
}

/// The next text frame (pings and pongs skipped).
async fn text(ws: &mut Ws) -> String {
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(t))) => return t.to_string(),
            Some(Ok(Message::Close(f))) => panic!("socket closed: {f:?}"),
            Some(Ok(_)) => continue,
            other => panic!("socket ended: {other:?}"),
        }
    }
}

fn parse(f: &str) -> Value {
    serde_json::from_str(f).unwrap()
}

/// Waits for the answers to `n` requests; panics on a refusal. Returns the acks.
async fn acks(ws: &mut Ws, n: usize) -> Vec<Value> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let f = text(ws).await;
        if f.starts_with(r#"{"type":"ack""#) {
            out.push(parse(&f));
        } else {
            assert!(!f.starts_with(r#"{"type":"rejected""#), "{f}");
        }
    }
    out
}

/// Opens `n` threads on a grid, 100 in flight; returns the first comment of each.
async fn open_threads(ws: &mut Ws, n: usize) -> Vec<String> {
    let body: String = "Does this still match what we agreed in the review? ".repeat(3);
    let body = &body[..120];
    let mut comments = Vec::with_capacity(n);
    for start in (0..n).step_by(100) {
        let end = (start + 100).min(n);
        for i in start..end {
            let anchor =
                json!({"type":"point","x": (i % 50) as f64 * 40.0,"y": (i / 50) as f64 * 40.0});
            let m =
                json!({"type":"comment_thread","id":format!("t{i}"),"anchor":anchor,"body":body});
            ws.send(Message::text(m.to_string())).await.unwrap();
        }
        for a in acks(ws, end - start).await {
            comments.push(a["comment"].as_str().unwrap().to_owned());
        }
    }
    comments
}

/// A client that reports the `cseq` of every `comments_changed` it receives.
fn observer(mut ws: Ws, tx: mpsc::UnboundedSender<(u64, Instant)>) {
    tokio::spawn(async move {
        while let Some(Ok(m)) = ws.next().await {
            let Message::Text(t) = m else { continue };
            if t.as_str().starts_with(r#"{"type":"comments_changed""#) {
                let v = parse(t.as_str());
                let _ = tx.send((v["cseq"].as_u64().unwrap(), Instant::now()));
            }
        }
    });
}

/// A reaction request (`id` names it): on or off.
fn react(comment: &str, id: &str, on: bool) -> Message {
    let m = json!({"type":"comment_react","id":id,"comment":comment,"emoji":"👍","on": on});
    Message::text(m.to_string())
}

/// Waits until `clients` observers hold the frame of comment seq `cseq`; returns when the last
/// one did.
async fn all_hold(
    rx: &mut mpsc::UnboundedReceiver<(u64, Instant)>,
    clients: usize,
    cseq: u64,
) -> Instant {
    let (mut got, mut last) = (0, Instant::now());
    while got < clients {
        let (s, t) = rx.recv().await.unwrap();
        if s == cseq {
            got += 1;
            last = last.max(t);
        }
    }
    last
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1000.0
}

fn kb(n: usize) -> String {
    format!("{:.1} KB", n as f64 / 1000.0)
}

/// Joins `n` times: the welcome's size and the median and largest time to it.
async fn welcomes(addr: SocketAddr, n: usize) -> (usize, f64, f64) {
    let mut times = Vec::new();
    let mut size = 0;
    for i in 0..n {
        let (mut ws, len, t) = join(addr, &format!("joiner-{i}"), json!({})).await;
        size = len;
        times.push(t);
        ws.close(None).await.unwrap();
    }
    (size, pct(&mut times, 0.5), pct(&mut times, 1.0))
}

/// A join with `comments_since: 0`: the replay's frames, bytes and the time until the last.
async fn replay(addr: SocketAddr, threads: usize) -> (usize, usize, Duration) {
    let t = Instant::now();
    let (mut ws, _, _) = join(addr, "replayer", json!({"comments_since": 0})).await;
    let (mut frames, mut bytes, mut seen) = (0, 0, 0);
    while seen < threads {
        let f = text(&mut ws).await;
        if f.starts_with(r#"{"type":"comments_changed""#) {
            frames += 1;
            bytes += f.len();
            seen += parse(&f)["threads"].as_array().unwrap().len();
        }
    }
    (frames, bytes, t.elapsed())
}

/// Sequential reactions: the time from sending each until every observer holds its frame.
async fn sequential(
    author: &mut Ws,
    comments: &[String],
    rx: &mut mpsc::UnboundedReceiver<(u64, Instant)>,
    clients: usize,
    rounds: usize,
) -> (Vec<Duration>, usize) {
    let mut times = Vec::with_capacity(rounds);
    let mut size = 0;
    for r in 0..rounds {
        let t = Instant::now();
        // Each comment gets a reaction, then loses it: every request is a change.
        let (comment, on) = (&comments[(r / 2) % comments.len()], r.is_multiple_of(2));
        author
            .send(react(comment, &format!("s{r}"), on))
            .await
            .unwrap();
        let a = acks(author, 1).await;
        let cseq = a[0]["cseq"].as_u64().unwrap();
        let f = loop {
            let f = text(author).await;
            if f.starts_with(r#"{"type":"comments_changed""#) {
                break f;
            }
        };
        size = f.len();
        times.push(all_hold(rx, clients, cseq).await - t);
    }
    (times, size)
}

/// `burst` reactions in flight at once: the time until every observer holds the last frame.
async fn burst(
    author: &mut Ws,
    comments: &[String],
    rx: &mut mpsc::UnboundedReceiver<(u64, Instant)>,
    clients: usize,
    burst: usize,
) -> Duration {
    let t = Instant::now();
    for r in 0..burst {
        // Distinct comments, so every reaction is a change.
        author
            .send(react(&comments[r % comments.len()], &format!("b{r}"), true))
            .await
            .unwrap();
    }
    let a = acks(author, burst).await;
    let last = a.iter().filter_map(|a| a["cseq"].as_u64()).max().unwrap();
    all_hold(rx, clients, last).await - t
}

async fn start(dir: &std::path::Path) -> server::ServerHandle {
    let mut cfg = Config::for_tests(dir.to_path_buf());
    // Anyone joins by name, as with `--auth off` on a laptop: the benchmark measures comments.
    cfg.auth = server::config::AuthMode::Off;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    server::spawn(listener, cfg).await.unwrap()
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: usize| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (threads, clients, rounds, n_burst) = (arg(0, 2000), arg(1, 50), arg(2, 300), arg(3, 1000));
    let dir = std::env::temp_dir().join(format!("comments-bench-{}", uuid::Uuid::new_v4()));
    let server = start(&dir).await;
    let addr = server.addr;

    let (_, empty, _) = join(addr, "first", json!({})).await;
    let (mut author, _, _) = join(addr, "author", json!({})).await;
    let t = Instant::now();
    let comments = open_threads(&mut author, threads).await;
    let made = t.elapsed();
    println!(
        "{threads} threads opened in {:.2} s ({:.0} threads/s, 100 in flight)",
        made.as_secs_f64(),
        threads as f64 / made.as_secs_f64()
    );
    println!("| join | welcome | hello → welcome p50 | max |");
    println!("|---|---|---|---|");
    println!("| board without threads | {} | | |", kb(empty));
    let (size, p50, max) = welcomes(addr, 20).await;
    println!(
        "| {threads} open threads, board running (20 joins) | {} | {p50:.1} ms | {max:.1} ms |",
        kb(size)
    );
    let (frames, bytes, took) = replay(addr, threads).await;
    println!(
        "| `comments_since: 0` replay of {threads} threads | {frames} frames, {} | {:.1} ms (to the last frame) | |",
        kb(bytes),
        took.as_secs_f64() * 1000.0
    );
    drop(author);
    server.shutdown().await.unwrap();
    let server = start(&dir).await;
    let addr = server.addr;
    let (_, size, cold) = join(addr, "cold", json!({})).await;
    println!(
        "| {threads} open threads, board loaded from the store (restart) | {} | {:.1} ms | |",
        kb(size),
        cold.as_secs_f64() * 1000.0
    );

    let (tx, mut rx) = mpsc::unbounded_channel();
    for i in 0..clients {
        let (ws, _, _) = join(addr, &format!("client-{i}"), json!({})).await;
        observer(ws, tx.clone());
    }
    let (mut author, _, _) = join(addr, "author", json!({})).await;
    sequential(&mut author, &comments, &mut rx, clients, 20).await;
    let (mut times, size) = sequential(&mut author, &comments, &mut rx, clients, rounds).await;
    println!(
        "one reaction at a time, {clients} clients ({rounds} rounds, frames of {size} B): until every client holds it p50 {:.2} ms  p90 {:.2} ms  p99 {:.2} ms  max {:.2} ms",
        pct(&mut times, 0.5),
        pct(&mut times, 0.9),
        pct(&mut times, 0.99),
        pct(&mut times, 1.0),
    );
    let took = burst(&mut author, &comments, &mut rx, clients, n_burst).await;
    println!(
        "{n_burst} reactions in flight, {clients} clients: every client holds the last after {:.0} ms ({:.0} changes/s, {:.0} frames/s sent)",
        took.as_secs_f64() * 1000.0,
        n_burst as f64 / took.as_secs_f64(),
        (n_burst * (clients + 1)) as f64 / took.as_secs_f64()
    );
    server.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}
