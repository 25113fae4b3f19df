//! `loadtest failover`: how long a cluster's clients wait when a board's owner dies (SIGKILL:
//! failover) or leaves (SIGTERM: hand-over).
//!
//! It starts two nodes itself (A and B, `server --cluster --auth off` on loopback, one fresh
//! schema and NATS prefix per run). Each round uses a fresh board: an anchor client joins it on
//! A (so A takes it), then a writer joins it on B (relayed to A) and commits at `--rate`. After
//! `--before` seconds A is killed or terminated. The writer does what a real client does: when
//! its connection ends it reconnects to B with `since` = the last seq it saw, and goes on
//! committing. The round's figure is the longest time between two acknowledged commits (the
//! outage as the user sees it, rounded up to the commit period); A is started again between
//! rounds (never during one: a new process under A's id would end the old one's ownership
//! at once and hide the lease expiry).

use crate::wire;
use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::time::{Instant, sleep, timeout};
use tokio_tungstenite::tungstenite::Message;

/// How a round stops node A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// SIGKILL: a crash; the others wait for its lease to expire (failover).
    Kill,
    /// SIGTERM: a clean stop; it hands its boards over (hand-over).
    Term,
}

/// Flags of `loadtest failover`.
#[derive(Debug, Clone, clap::Args)]
pub struct FailoverArgs {
    /// The `server` binary to start the nodes from.
    #[arg(long)]
    pub server_bin: PathBuf,
    /// PostgreSQL the nodes share.
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: String,
    /// Schema (default: a fresh `failover_<random>` each run).
    #[arg(long)]
    pub database_schema: Option<String>,
    /// NATS the nodes talk through.
    #[arg(long, default_value = "nats://127.0.0.1:4222")]
    pub nats_url: String,
    /// NATS subject prefix (default: a fresh one each run).
    #[arg(long)]
    pub nats_prefix: Option<String>,
    /// Rounds (one stop of node A each).
    #[arg(long, default_value_t = 20)]
    pub rounds: usize,
    /// How node A is stopped.
    #[arg(long, value_enum, default_value_t = Kind::Kill)]
    pub kind: Kind,
    /// Commits per second of the writer (the resolution of the measure is 1 / rate).
    #[arg(long, default_value_t = 50.0)]
    pub rate: f64,
    /// Seconds of writing before A is stopped.
    #[arg(long, default_value_t = 2.0)]
    pub before: f64,
    /// Seconds of acknowledged writing after the first acknowledgement that follows the stop.
    #[arg(long, default_value_t = 1.0)]
    pub after: f64,
    /// A round without an acknowledgement this many seconds after the stop fails.
    #[arg(long, default_value_t = 60.0)]
    pub give_up: f64,
    /// Directory for the nodes' logs (default: the temp directory).
    #[arg(long)]
    pub logs: Option<PathBuf>,
}

/// One round.
#[derive(Debug, Clone, Serialize)]
pub struct Round {
    pub round: usize,
    /// The board's owner once the writer was acknowledged, as node B reported it; a round
    /// where it was not node A measures nothing and is left out of the figures.
    pub owner: Option<String>,
    /// The longest time between two acknowledged commits in the round, ms (None: the writer
    /// never got an acknowledgement after the stop).
    pub longest_gap_ms: Option<f64>,
    /// The stop → the first acknowledgement after it, ms.
    pub stop_to_first_ack_ms: Option<f64>,
    /// Connections of the writer that ended (and were resumed).
    pub reconnects: u64,
    /// Commits sent and acknowledged.
    pub sent: u64,
    pub acked: u64,
    /// Error frames and rejections the writer got, by code.
    pub errors: std::collections::BTreeMap<String, u64>,
    /// The signal → node A's exit, ms.
    pub exit_ms: f64,
}

/// The whole measurement.
#[derive(Debug, Clone, Serialize)]
pub struct FailoverReport {
    pub kind: Kind,
    pub rate: f64,
    pub rounds: Vec<Round>,
    /// Over the rounds that recovered: the median and the worst longest gap, ms.
    pub median_ms: Option<f64>,
    pub worst_ms: Option<f64>,
    pub failed_rounds: usize,
    /// Rounds left out because node A did not own the board.
    pub invalid_rounds: usize,
}

impl FailoverReport {
    fn new(kind: Kind, rate: f64, rounds: Vec<Round>) -> Self {
        let valid: Vec<&Round> = rounds
            .iter()
            .filter(|r| r.owner.as_deref() == Some(NODE_A))
            .collect();
        let mut gaps: Vec<f64> = valid.iter().filter_map(|r| r.longest_gap_ms).collect();
        gaps.sort_by(f64::total_cmp);
        FailoverReport {
            kind,
            rate,
            median_ms: median(&gaps),
            worst_ms: gaps.last().copied(),
            failed_rounds: valid.len() - gaps.len(),
            invalid_rounds: rounds.len() - valid.len(),
            rounds,
        }
    }

    /// Every round measured and recovered.
    pub fn complete(&self) -> bool {
        self.failed_rounds == 0 && self.invalid_rounds == 0 && !self.rounds.is_empty()
    }

    /// The text report.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let what = match self.kind {
            Kind::Kill => "failover (SIGKILL of the owner)",
            Kind::Term => "hand-over (SIGTERM of the owner)",
        };
        let _ = writeln!(
            out,
            "{what}: {} rounds, writer at {}/s through the other node",
            self.rounds.len(),
            self.rate
        );
        let _ = writeln!(
            out,
            "{:>5} {:>6} {:>12} {:>14} {:>10} {:>8} {:>8} {:>9}  errors",
            "round",
            "owner",
            "longest gap",
            "stop→1st ack",
            "reconnects",
            "sent",
            "acked",
            "exit ms"
        );
        let ms = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.0} ms"));
        for r in &self.rounds {
            let _ = writeln!(
                out,
                "{:>5} {:>6} {:>12} {:>14} {:>10} {:>8} {:>8} {:>9.0}  {:?}",
                r.round,
                r.owner.as_deref().unwrap_or("-"),
                ms(r.longest_gap_ms),
                ms(r.stop_to_first_ack_ms),
                r.reconnects,
                r.sent,
                r.acked,
                r.exit_ms,
                r.errors
            );
        }
        let _ = writeln!(
            out,
            "longest gap between two acknowledged commits: median {}, worst {}; {} rounds failed, \
             {} left out (A did not own the board)",
            ms(self.median_ms),
            ms(self.worst_ms),
            self.failed_rounds,
            self.invalid_rounds
        );
        out
    }
}

/// The median of sorted values.
pub fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => sorted.get(n / 2).copied(),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// The longest interval between consecutive instants (sorted), and the first one at or after
/// `stop`, both relative: (longest gap, stop → first after).
pub fn gaps(acks: &[Instant], stop: Instant) -> (Option<Duration>, Option<Duration>) {
    let first_after = acks.iter().find(|&&t| t >= stop).map(|&t| t - stop);
    let longest = acks.windows(2).map(|w| w[1] - w[0]).max();
    // Without an acknowledgement after the stop, the round did not recover.
    (first_after.and(longest), first_after)
}

/// The node ids.
const NODE_A: &str = "fo-a";
const NODE_B: &str = "fo-b";

/// One HTTP/1.1 GET on loopback: the status and the body.
async fn http_get(addr: SocketAddr, path: &str) -> anyhow::Result<(u16, String)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let exchange = async {
        let mut sock = tokio::net::TcpStream::connect(addr).await?;
        let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        sock.write_all(req.as_bytes()).await?;
        let mut out = Vec::new();
        sock.read_to_end(&mut out).await?;
        anyhow::Ok(String::from_utf8_lossy(&out).into_owned())
    };
    let text = timeout(Duration::from_secs(5), exchange).await??;
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Ok((status, body.to_owned()))
}

/// Waits (30 s at most) until the node's `/healthz` answers 200: it has joined the cluster.
async fn wait_healthy(addr: SocketAddr) -> anyhow::Result<()> {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        if matches!(http_get(addr, "/healthz").await, Ok((200, _))) {
            return Ok(());
        }
        sleep(Duration::from_millis(50)).await;
    }
    anyhow::bail!("node {addr} did not become healthy within 30 s")
}

/// The board's owner as `addr` reports it (`GET /api/boards/ID`, `cluster.owner`).
async fn owner_of(addr: SocketAddr, board: &str) -> Option<String> {
    let (status, body) = http_get(addr, &format!("/api/boards/{board}")).await.ok()?;
    if status != 200 {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&body).ok()?;
    v["cluster"]["owner"].as_str().map(str::to_owned)
}

/// A pause in acknowledgements longer than this is an outage, not the writer's own pace: ten
/// commit periods, at least 200 ms.
fn stall_bound(rate: f64) -> Duration {
    Duration::from_secs_f64(10.0 / rate.max(0.1)).max(Duration::from_millis(200))
}

/// Since when the acknowledgements (sorted) after `stop` have come steadily up to `now`: the
/// first one after the last pause longer than `stall`, if the latest is within `stall` of now.
pub fn steady_since(
    acks: &[Instant],
    stop: Instant,
    stall: Duration,
    now: Instant,
) -> Option<Instant> {
    let after: Vec<Instant> = acks.iter().copied().filter(|&t| t >= stop).collect();
    let last = *after.last()?;
    if now.saturating_duration_since(last) > stall {
        return None;
    }
    let resumed = after
        .windows(2)
        .rev()
        .find(|w| w[1] - w[0] > stall)
        .map_or(after[0], |w| w[1]);
    Some(resumed)
}

/// A node process.
struct Node {
    child: Child,
    addr: SocketAddr,
}

/// What starts a node.
struct Spawner {
    bin: PathBuf,
    database_url: String,
    schema: String,
    nats_url: String,
    prefix: String,
    logs: PathBuf,
}

impl Spawner {
    /// Setup step: what starts the nodes, from the flags (a fresh schema and NATS prefix
    /// named after `run` unless given).
    fn from_args(a: &FailoverArgs, run: u32) -> Spawner {
        Spawner {
            bin: a.server_bin.clone(),
            database_url: a.database_url.clone(),
            schema: a
                .database_schema
                .clone()
                .unwrap_or_else(|| format!("failover_{run:08x}")),
            nats_url: a.nats_url.clone(),
            prefix: a
                .nats_prefix
                .clone()
                .unwrap_or_else(|| format!("fo{run:08x}")),
            logs: a.logs.clone().unwrap_or_else(std::env::temp_dir),
        }
    }

    async fn start(&self, id: &str) -> anyhow::Result<Node> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.logs.join(format!("failover-{}-{id}.log", self.prefix)))?;
        let data = self
            .logs
            .join(format!("failover-{}-{id}-data", self.prefix));
        let mut child = Command::new(&self.bin)
            .args(["--listen", "127.0.0.1:0", "--auth", "off", "--cluster"])
            .args(["--node-id", id, "--database-url", &self.database_url])
            .args([
                "--database-schema",
                &self.schema,
                "--nats-url",
                &self.nats_url,
            ])
            .args(["--nats-prefix", &self.prefix])
            .arg("--data-dir")
            .arg(&data)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| anyhow::anyhow!("starting {}: {e}", self.bin.display()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow::anyhow!("no stdout"))?;
        let mut lines = BufReader::new(stdout).lines();
        let addr = timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(a) = line.strip_prefix("listening on ") {
                    return a.trim().parse::<SocketAddr>().ok();
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .ok_or_else(|| anyhow::anyhow!("node {id} did not print its address within 30 s"))?;
        // Keep reading its stdout so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(Node { child, addr })
    }
}

/// What the writer saw.
#[derive(Debug, Default)]
struct WriterLog {
    acks: Vec<Instant>,
    sent: u64,
    reconnects: u64,
    errors: std::collections::BTreeMap<String, u64>,
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Connects to `addr`'s socket of `board` and waits for `welcome`; returns its seq.
async fn join(
    addr: SocketAddr,
    board: &str,
    user: &str,
    since: Option<u64>,
) -> anyhow::Result<(Ws, u64)> {
    let url = format!("ws://{addr}/ws/boards/{board}");
    let (mut ws, _) = timeout(
        Duration::from_secs(5),
        tokio_tungstenite::connect_async_with_config(
            url.as_str(),
            Some(crate::client::ws_config()),
            true,
        ),
    )
    .await??;
    ws.send(Message::text(wire::hello(user, user, since)))
        .await?;
    let seq = timeout(Duration::from_secs(10), async {
        while let Some(m) = ws.next().await {
            if let Message::Text(t) = m? {
                let m = wire::decode(t.as_str())?;
                match m.kind.as_str() {
                    "welcome" => return anyhow::Ok(m.seq.unwrap_or(0)),
                    "error" => anyhow::bail!("hello: {:?}", m.code),
                    _ => {}
                }
            }
        }
        anyhow::bail!("closed before welcome")
    })
    .await??;
    Ok((ws, seq))
}

fn lock(l: &Mutex<WriterLog>) -> std::sync::MutexGuard<'_, WriterLog> {
    l.lock().unwrap_or_else(|e| e.into_inner())
}

/// The writer: commits to `board` through `addr` at `rate` until `stop` is set, resuming after
/// every dropped connection.
async fn writer(
    addr: SocketAddr,
    board: String,
    rate: f64,
    log: Arc<Mutex<WriterLog>>,
    stop: tokio::sync::watch::Receiver<bool>,
) {
    let user = format!("fo-writer-{board}");
    let period = Duration::from_secs_f64(1.0 / rate.max(0.1));
    let epoch = Instant::now();
    let mut since: Option<u64> = None;
    let mut n = 0u64;
    while !*stop.borrow() {
        let (ws, seq) = match join(addr, &board, &user, since).await {
            Ok(j) => j,
            Err(e) => {
                *lock(&log).errors.entry(format!("join: {e}")).or_insert(0) += 1;
                sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        since = Some(since.map_or(seq, |s| s.max(seq)));
        let (mut sink, mut stream) = ws.split();
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut stop_now = stop.clone();
        loop {
            tokio::select! {
                _ = tick.tick() => {
                    n += 1;
                    let t_us = u64::try_from(epoch.elapsed().as_micros()).unwrap_or(u64::MAX);
                    let id = wire::encode_id(0, n, t_us);
                    let x = (n % 100) as f64 * 10.0;
                    if sink.send(Message::text(wire::create_note(&id, x, 0.0, "fo"))).await.is_err() {
                        break;
                    }
                    lock(&log).sent += 1;
                }
                m = stream.next() => {
                    let Some(Ok(m)) = m else { break };
                    let Message::Text(t) = m else {
                        if matches!(m, Message::Close(_)) { break; }
                        continue;
                    };
                    let Ok(m) = wire::decode(t.as_str()) else { continue };
                    match m.kind.as_str() {
                        "applied" => {
                            if let Some(s) = m.seq {
                                since = Some(since.map_or(s, |v| v.max(s)));
                            }
                            let mine = m.command.as_ref().is_some_and(|c| c.author == user);
                            if mine {
                                lock(&log).acks.push(Instant::now());
                            }
                        }
                        "rejected" | "error" => {
                            let code = m
                                .error
                                .as_ref()
                                .map(|e| e.word().to_owned())
                                .or(m.code)
                                .unwrap_or_else(|| "unknown".into());
                            *lock(&log).errors.entry(format!("{}:{code}", m.kind)).or_insert(0) += 1;
                        }
                        _ => {}
                    }
                }
                r = stop_now.changed() => {
                    let stop = r.is_err() || *stop_now.borrow_and_update();
                    if stop {
                        let _ = sink.close().await;
                        return;
                    }
                }
            }
        }
        lock(&log).reconnects += 1;
        sleep(Duration::from_millis(50)).await;
    }
}

/// Sends `signal` (`-TERM`) to a process with the system's `kill`.
async fn signal(pid: u32, signal: &str) -> anyhow::Result<()> {
    let st = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .await?;
    anyhow::ensure!(st.success(), "kill {signal} {pid} failed");
    Ok(())
}

/// Runs the measurement.
pub async fn run(a: &FailoverArgs) -> anyhow::Result<FailoverReport> {
    anyhow::ensure!(
        a.rate > 0.0 && a.rate.is_finite(),
        "--rate must be positive"
    );
    let run: u32 = rand::random();
    let sp = Spawner::from_args(a, run);
    println!(
        "schema {}, NATS prefix {}, logs {}",
        sp.schema,
        sp.prefix,
        sp.logs.display()
    );
    let mut node_b = sp.start(NODE_B).await?;
    wait_healthy(node_b.addr).await?;
    let mut rounds = Vec::with_capacity(a.rounds);
    for round in 0..a.rounds {
        let board = format!("fo{run:08x}-{round}");
        let r = run_round(a, &sp, node_b.addr, &board, round).await?;
        rounds.push(r);
        // B must still be up for the next round.
        if let Ok(Some(st)) = node_b.child.try_wait() {
            anyhow::bail!("node B exited ({st}); see its log");
        }
    }
    let _ = signal(node_b.child.id().unwrap_or(0), "-TERM").await;
    let _ = timeout(Duration::from_secs(10), node_b.child.wait()).await;
    Ok(FailoverReport::new(a.kind, a.rate, rounds))
}

/// One round: starts node A, has it take `board`, runs the writer through node B, stops A,
/// waits for the writer to be acknowledged steadily again, and prints the round's line.
async fn run_round(
    a: &FailoverArgs,
    sp: &Spawner,
    addr_b: SocketAddr,
    board: &str,
    round: usize,
) -> anyhow::Result<Round> {
    let mut node_a = sp.start(NODE_A).await?;
    // Joined the cluster: a board its client joins is then taken there.
    wait_healthy(node_a.addr).await?;
    // A takes the board: its first client joins there.
    let (anchor, _) = join(node_a.addr, board, "fo-anchor", None).await?;
    let (anchor_sink, mut anchor_stream) = anchor.split();
    let anchor_reader = tokio::spawn(async move { while anchor_stream.next().await.is_some() {} });
    let log = Arc::new(Mutex::new(WriterLog::default()));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let w = tokio::spawn(writer(
        addr_b,
        board.to_owned(),
        a.rate,
        Arc::clone(&log),
        stop_rx,
    ));
    sleep(Duration::from_secs_f64(a.before)).await;
    let owner = owner_of(addr_b, board).await;
    let (stop_at, exit_ms) = stop_node_a(&mut node_a, a.kind).await?;
    drop(anchor_sink);
    anchor_reader.abort();
    wait_until_steady(a, &log, stop_at).await;
    let _ = stop_tx.send(true);
    let _ = timeout(Duration::from_secs(5), w).await;
    let l = std::mem::take(&mut *lock(&log));
    let r = round_from_log(round, owner, l, stop_at, exit_ms);
    print_round(&r);
    Ok(r)
}

/// Round step: stops node A the round's way and waits for it to exit (30 s at most, then it
/// is killed); returns when the stop was sent and the time to the exit, ms.
async fn stop_node_a(node_a: &mut Node, kind: Kind) -> anyhow::Result<(Instant, f64)> {
    let stop_at = Instant::now();
    let pid = node_a.child.id().unwrap_or(0);
    match kind {
        Kind::Kill => node_a.child.start_kill()?,
        Kind::Term => signal(pid, "-TERM").await?,
    }
    let exited = timeout(Duration::from_secs(30), node_a.child.wait()).await;
    let exit_ms = stop_at.elapsed().as_secs_f64() * 1000.0;
    if exited.is_err() {
        let _ = node_a.child.start_kill();
        let _ = node_a.child.wait().await;
    }
    Ok((stop_at, exit_ms))
}

/// Round step: waits until the writer has been acknowledged steadily for `--after` seconds
/// since the stop, or `--give-up` seconds have passed since it.
async fn wait_until_steady(a: &FailoverArgs, log: &Mutex<WriterLog>, stop_at: Instant) {
    // An acknowledgement already in flight at the stop does not end the round.
    let give_up = stop_at + Duration::from_secs_f64(a.give_up);
    let (after, stall) = (Duration::from_secs_f64(a.after), stall_bound(a.rate));
    loop {
        let steady = steady_since(&lock(log).acks, stop_at, stall, Instant::now());
        if steady.is_some_and(|t| Instant::now() >= t + after) || Instant::now() >= give_up {
            break;
        }
        sleep(Duration::from_millis(20)).await;
    }
}

/// Round step: the round's figures from what the writer saw.
fn round_from_log(
    round: usize,
    owner: Option<String>,
    l: WriterLog,
    stop_at: Instant,
    exit_ms: f64,
) -> Round {
    let (longest, first) = gaps(&l.acks, stop_at);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    Round {
        round,
        owner,
        longest_gap_ms: longest.map(ms),
        stop_to_first_ack_ms: first.map(ms),
        reconnects: l.reconnects,
        sent: l.sent,
        acked: l.acks.len() as u64,
        errors: l.errors,
        exit_ms,
    }
}

/// Round step: prints the round's line.
fn print_round(r: &Round) {
    println!(
        "round {}: owner {}, longest gap {} ms, stop → first ack {} ms, A exited after {:.0} ms",
        r.round,
        r.owner.as_deref().unwrap_or("-"),
        r.longest_gap_ms.map_or("-".into(), |v| format!("{v:.0}")),
        r.stop_to_first_ack_ms
            .map_or("-".into(), |v| format!("{v:.0}")),
        r.exit_ms
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_gaps() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[1.0, 2.0, 10.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 4.0, 10.0]), Some(3.0));
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let acks = [t0, t0 + ms(20), t0 + ms(40), t0 + ms(1540), t0 + ms(1560)];
        let (longest, first) = gaps(&acks, t0 + ms(50));
        assert_eq!(longest, Some(ms(1500)));
        assert_eq!(first, Some(ms(1490)));
        // No acknowledgement after the stop: no figure.
        assert_eq!(gaps(&acks[..3], t0 + ms(50)), (None, None));
    }

    #[test]
    fn steady_acknowledgements_end_a_round() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let stall = stall_bound(50.0);
        assert_eq!(stall, ms(200));
        // One acknowledgement in flight at the stop, then nothing: not steady.
        let acks = [t0, t0 + ms(20)];
        assert_eq!(steady_since(&acks, t0 + ms(20), stall, t0 + ms(1000)), None);
        // Then the outage, then steady again from 11 s on.
        let mut acks = vec![t0, t0 + ms(20)];
        acks.extend((0..60).map(|k| t0 + ms(11_000 + 20 * k)));
        let now = t0 + ms(12_190);
        assert_eq!(
            steady_since(&acks, t0 + ms(20), stall, now),
            Some(t0 + ms(11_000))
        );
        // Nothing after the stop yet.
        assert_eq!(steady_since(&acks[..1], t0 + ms(10), stall, now), None);
    }

    #[test]
    fn report_counts_failed_rounds() {
        let round = |gap: Option<f64>| Round {
            round: 0,
            owner: Some(NODE_A.into()),
            longest_gap_ms: gap,
            stop_to_first_ack_ms: gap,
            reconnects: 1,
            sent: 10,
            acked: 9,
            errors: Default::default(),
            exit_ms: 1.0,
        };
        let r = FailoverReport::new(
            Kind::Term,
            50.0,
            vec![
                round(Some(300.0)),
                round(None),
                round(Some(100.0)),
                Round {
                    owner: Some(NODE_B.into()),
                    ..round(Some(1.0))
                },
            ],
        );
        assert_eq!(r.invalid_rounds, 1);
        assert_eq!(r.median_ms, Some(200.0));
        assert_eq!(r.worst_ms, Some(300.0));
        assert_eq!(r.failed_rounds, 1);
        assert!(!r.complete());
        assert!(r.table().contains("median 200 ms"));
    }
}
