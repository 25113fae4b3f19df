//! One simulated collaborator: one tokio task that joins its board, creates its note, acts on a
//! timer and reads its socket at full speed until the run is over.
//!
//! Inside the task the reader and the writer are two futures raced by `select!`, so a send that
//! waits on a full socket never stops reads. They share a small [`Core`] behind an uncontended
//! mutex that is never held across an `.await`. Connections the server ends, and the reconnect
//! storm, are followed by a resume with `hello.since` = the last seq seen.

mod recv;

use crate::stats::ClientStats;
use crate::wire;
use crate::workload::{AI_TEMPLATES, Action, Mix, home, orbit};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use rand::SeedableRng;
use rand::rngs::StdRng;
use recv::{Core, Pending};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::time::{Instant, MissedTickBehavior, sleep, sleep_until, timeout};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async_with_config};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How long a connect or a `welcome` may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Small socket buffers: tungstenite's default 128 KiB read buffer per connection would be
/// 1.3 GB at 10,000 connections. Frames here are a few hundred bytes; larger ones still work
/// (a frame longer than the buffer is read in several steps). tungstenite zero-fills the free
/// part of the buffer before each socket read, so its size is also a cost per frame received:
/// 2 KiB, as in the server.
pub fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(2 * 1024)
        .write_buffer_size(0)
}

/// What every client of a run shares (read-mostly; counters are atomics).
#[derive(Debug)]
pub struct RunShared {
    /// The run's clock origin: every timestamp is µs since this instant.
    pub epoch: Instant,
    /// The nodes' base URLs (one for a single server).
    pub urls: Vec<String>,
    /// How clients were put on the nodes.
    pub placement: crate::cli::Placement,
    pub rate: f64,
    pub mix: Mix,
    pub strict: bool,
    /// The measurement window, µs since `epoch`.
    pub window_start_us: u64,
    pub window_end_us: u64,
    /// Readers give up waiting for in-flight messages here.
    pub drain_deadline: Instant,
    pub storm_at: Option<Instant>,
    /// Text every move also sets (`--move-text-bytes`), if any.
    pub move_text: Option<String>,
    pub boards: Vec<BoardShared>,
}

/// Per-board shared counters.
#[derive(Debug)]
pub struct BoardShared {
    pub id: String,
    pub clients: usize,
    /// Window commits of this board's clients that should reach everyone (sent − rejected − lost).
    pub net_commits: AtomicI64,
    /// Clients whose writer has stopped for good.
    pub writers_done: AtomicUsize,
}

impl BoardShared {
    pub fn new(id: String, clients: usize) -> Self {
        BoardShared {
            id,
            clients,
            net_commits: AtomicI64::new(0),
            writers_done: AtomicUsize::new(0),
        }
    }
}

impl RunShared {
    /// µs since the epoch.
    pub fn now_us(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    fn in_window(&self, t_us: u64) -> bool {
        (self.window_start_us..self.window_end_us).contains(&t_us)
    }

    /// The instant `us` after the epoch.
    pub fn at(&self, us: u64) -> Instant {
        self.epoch + Duration::from_micros(us)
    }
}

/// Who a client is.
#[derive(Debug, Clone)]
pub struct ClientCtx {
    pub shared: Arc<RunShared>,
    pub board: usize,
    pub client: u32,
    /// The node (index into `RunShared::urls`) this client talks to.
    pub node: usize,
    pub user_id: String,
    pub seed: u64,
    /// Board token sent in `hello` (access control on).
    pub token: Option<String>,
}

impl ClientCtx {
    fn board(&self) -> Option<&BoardShared> {
        self.shared.boards.get(self.board)
    }

    /// Whether client `sender` of this board talks to the same node as this client.
    fn same_node(&self, sender: u32) -> bool {
        self.node_of(sender) == self.node
    }

    /// The node of client `client` of this board.
    fn node_of(&self, client: u32) -> usize {
        let nodes = shared_nodes(self);
        crate::cli::place(self.shared.placement, self.board, client as usize, nodes)
    }

    /// Relay hops between client `sender` and this client: how many of the two sit on a node
    /// other than the board's owner, taken to be the node of the board's client 0 (it joins
    /// first, so it takes the board).
    fn relay_hops(&self, sender: u32) -> usize {
        let (owner, sender) = (self.node_of(0), self.node_of(sender));
        usize::from(sender != owner) + usize::from(self.node != owner)
    }
}

fn shared_nodes(ctx: &ClientCtx) -> usize {
    ctx.shared.urls.len().max(1)
}

/// Why a connection ended.
#[derive(Debug)]
enum SessionEnd {
    /// The run is over for this client.
    Finished,
    /// The server closed the connection (reason) or the socket failed.
    Dropped(String),
    /// This client's writer gave up (e.g. its note never came back).
    Failed(String),
}

fn lock(core: &Mutex<Core>) -> MutexGuard<'_, Core> {
    // A panic while holding this lock would already have ended the task: recover the data.
    core.lock().unwrap_or_else(|e| e.into_inner())
}

/// The writer's own state, kept across reconnects.
struct Writer {
    rng: StdRng,
    n: u64,
    note: Option<String>,
    setup_sent: bool,
    extras: Vec<String>,
    create_outstanding: bool,
    done: bool,
}

impl Writer {
    fn mark_done(&mut self, ctx: &ClientCtx) {
        if !self.done {
            self.done = true;
            if let Some(b) = ctx.board() {
                b.writers_done.fetch_add(1, Ordering::AcqRel);
            }
        }
    }
}

/// Runs one client from its join time to the end of the drain; returns what it counted.
pub async fn run_client(ctx: ClientCtx, join_at: Instant) -> ClientStats {
    sleep_until(join_at).await;
    let mut core = Core::default();
    if shared_nodes(&ctx) > 1 {
        core.stats.fanout_by_node = Some(Default::default());
    }
    let core = Mutex::new(core);
    let mut wr = Writer {
        rng: StdRng::seed_from_u64(ctx.seed),
        n: 0,
        note: None,
        setup_sent: false,
        extras: Vec::new(),
        create_outstanding: false,
        done: false,
    };
    let shared = Arc::clone(&ctx.shared);
    let mut storm = shared.storm_at;
    let mut backoff = Duration::from_millis(50);
    let mut joined = false;
    loop {
        if Instant::now() >= shared.drain_deadline {
            break;
        }
        if shared.now_us() >= shared.window_end_us {
            wr.mark_done(&ctx);
        }
        let url = format!(
            "{}/ws/boards/{}",
            shared.urls.get(ctx.node).map_or("", String::as_str),
            ctx.board().map_or("", |b| &b.id)
        );
        let limit = HANDSHAKE_TIMEOUT.min(
            shared
                .drain_deadline
                .saturating_duration_since(Instant::now()),
        );
        let ws = match timeout(
            limit,
            connect_async_with_config(url.as_str(), Some(ws_config()), true),
        )
        .await
        {
            Ok(Ok((ws, _))) => ws,
            Ok(Err(_)) | Err(_) => {
                lock(&core).stats.connect_failures += 1;
                sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(1));
                continue;
            }
        };
        let since = if joined { lock(&core).last_seq } else { None };
        let storm_t = storm;
        let storm_now = async move {
            match storm_t {
                Some(t) => sleep_until(t).await,
                _ => std::future::pending::<()>().await,
            }
        };
        let end = tokio::select! {
            end = session(ws, since, &core, &ctx, &mut wr, &mut joined) => end,
            () = storm_now => {
                storm = None;
                let mut c = lock(&core);
                if !c.stats.never_joined {
                    c.stats.storm_drops += 1;
                    c.storm_started = Some(Instant::now());
                }
                continue;
            }
        };
        match end {
            SessionEnd::Finished => break,
            SessionEnd::Dropped(reason) => {
                let mut c = lock(&core);
                c.stats.disconnects += 1;
                *c.stats.close_reasons.entry(reason).or_insert(0) += 1;
                backoff = Duration::from_millis(50);
            }
            SessionEnd::Failed(why) => {
                lock(&core).stats.error(why);
                sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
        }
        if storm.is_some_and(|t| t <= Instant::now()) {
            storm = None;
        }
    }
    wr.mark_done(&ctx);
    let c = core.into_inner().unwrap_or_else(|e| e.into_inner());
    c.stats
}

/// One connection: hello → welcome, then reader and writer until one of them ends it.
async fn session(
    ws: Ws,
    since: Option<u64>,
    core: &Mutex<Core>,
    ctx: &ClientCtx,
    wr: &mut Writer,
    joined: &mut bool,
) -> SessionEnd {
    let (mut sink, mut stream) = ws.split();
    let hello = wire::hello_with_token(&ctx.user_id, &ctx.user_id, since, ctx.token.as_deref());
    if sink.send(Message::text(hello)).await.is_err() {
        return SessionEnd::Dropped("send_failed".into());
    }
    let limit = HANDSHAKE_TIMEOUT.min(
        ctx.shared
            .drain_deadline
            .saturating_duration_since(Instant::now()),
    );
    match timeout(limit, await_welcome(&mut stream, core, ctx, since)).await {
        Ok(Ok(())) => *joined = true,
        Ok(Err(end)) => return end,
        Err(_) => return SessionEnd::Failed("welcome_timeout".into()),
    }
    let end = tokio::select! {
        end = read_loop(&mut stream, core, ctx) => end,
        end = write_loop(&mut sink, core, ctx, wr) => end,
    };
    if matches!(end, SessionEnd::Finished) {
        let _ = timeout(Duration::from_millis(500), sink.close()).await;
    }
    end
}

async fn await_welcome(
    stream: &mut SplitStream<Ws>,
    core: &Mutex<Core>,
    ctx: &ClientCtx,
    since: Option<u64>,
) -> Result<(), SessionEnd> {
    loop {
        match stream.next().await {
            Some(Ok(Message::Text(t))) => {
                let now_us = ctx.shared.now_us();
                let mut c = lock(core);
                match wire::decode(t.as_str()) {
                    Ok(m) if m.kind == "welcome" => {
                        c.stats.frames += 1;
                        if ctx.shared.strict && !wire::conforms(t.as_str()) {
                            c.stats.protocol_errors += 1;
                        }
                        c.on_welcome(&m, since.is_some(), ctx, now_us);
                        return Ok(());
                    }
                    Ok(m) if m.kind == "error" => {
                        let code = m.code.unwrap_or_else(|| "unknown".into());
                        return Err(SessionEnd::Failed(format!("hello:{code}")));
                    }
                    _ => c.on_text(t.as_str(), ctx, now_us),
                }
            }
            Some(Ok(Message::Close(f))) => return Err(SessionEnd::Dropped(close_reason(f))),
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return Err(SessionEnd::Dropped("eof".into())),
        }
    }
}

fn close_reason(f: Option<tokio_tungstenite::tungstenite::protocol::CloseFrame>) -> String {
    match f {
        Some(f) if !f.reason.is_empty() => format!("{}: {}", u16::from(f.code), f.reason),
        Some(f) => u16::from(f.code).to_string(),
        None => "close".into(),
    }
}

async fn read_loop(
    stream: &mut SplitStream<Ws>,
    core: &Mutex<Core>,
    ctx: &ClientCtx,
) -> SessionEnd {
    let end_us = ctx.shared.window_end_us;
    // Nothing can finish before the window closes: checking earlier would only cost timer
    // wake-ups (20 a second per client, 200,000 a second at 10,000 clients).
    let first_check = ctx.shared.at(end_us).max(Instant::now());
    let mut check = tokio::time::interval_at(first_check, Duration::from_millis(50));
    check.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            m = stream.next() => match m {
                Some(Ok(Message::Text(t))) => {
                    let now_us = ctx.shared.now_us();
                    lock(core).on_text(t.as_str(), ctx, now_us);
                }
                Some(Ok(Message::Close(f))) => return SessionEnd::Dropped(close_reason(f)),
                Some(Ok(Message::Binary(_))) => lock(core).stats.protocol_errors += 1,
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return SessionEnd::Dropped("eof".into()),
            },
            _ = check.tick() => {
                if Instant::now() >= ctx.shared.drain_deadline
                    || (ctx.shared.now_us() >= end_us && lock(core).complete(ctx))
                {
                    return SessionEnd::Finished;
                }
            }
        }
    }
}

async fn send(sink: &mut SplitSink<Ws, Message>, text: String) -> Result<(), SessionEnd> {
    sink.send(Message::text(text))
        .await
        .map_err(|_| SessionEnd::Dropped("send_failed".into()))
}

/// Notes a commit as sent.
fn sent_commit(core: &Mutex<Core>, ctx: &ClientCtx, n: u64, t_us: u64) {
    let in_window = ctx.shared.in_window(t_us);
    let mut c = lock(core);
    c.stats.commits_sent += 1;
    c.last_sent_n = n;
    c.pending.push_back(Pending { n, in_window });
    if in_window {
        c.stats.window_commits += 1;
        if let Some(b) = ctx.board() {
            b.net_commits.fetch_add(1, Ordering::Relaxed);
        }
    }
}

async fn write_loop(
    sink: &mut SplitSink<Ws, Message>,
    core: &Mutex<Core>,
    ctx: &ClientCtx,
    wr: &mut Writer,
) -> SessionEnd {
    match write_inner(sink, core, ctx, wr).await {
        Ok(()) => std::future::pending().await,
        Err(end) => end,
    }
}

async fn write_inner(
    sink: &mut SplitSink<Ws, Message>,
    core: &Mutex<Core>,
    ctx: &ClientCtx,
    wr: &mut Writer,
) -> Result<(), SessionEnd> {
    let shared = &ctx.shared;
    // Setup: the note this client will move.
    if wr.note.is_none() {
        if !wr.setup_sent {
            let t = shared.now_us();
            let id = wire::encode_id(ctx.client, 0, t);
            let (x, y) = home(ctx.client);
            send(sink, wire::create_note(&id, x, y, &ctx.user_id)).await?;
            sent_commit(core, ctx, 0, t);
            wr.setup_sent = true;
        }
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        loop {
            if let Some(id) = lock(core).created.pop_front() {
                wr.note = Some(id);
                break;
            }
            if Instant::now() >= deadline {
                return Err(SessionEnd::Failed("setup_timeout".into()));
            }
            sleep(Duration::from_millis(5)).await;
        }
    }
    if wr.done || shared.rate <= 0.0 || shared.now_us() >= shared.window_end_us {
        wr.mark_done(ctx);
        return Ok(());
    }
    let period = Duration::from_secs_f64(1.0 / shared.rate);
    let phase = period.mul_f64(rand::Rng::random_range(&mut wr.rng, 0.0..1.0));
    let start = Instant::now() + phase;
    // tokio's timer has millisecond resolution: above 1,000 actions/s a tick sends every action
    // that came due since the last one, so the offered rate holds at any rate.
    let tick_period = period.max(MIN_TICK);
    let mut tick = tokio::time::interval_at(start, tick_period);
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut schedule = Schedule::new(shared.rate, tick_period);
    loop {
        tick.tick().await;
        let due = schedule.due(Instant::now().saturating_duration_since(start));
        for _ in 0..due {
            let t = shared.now_us();
            if t >= shared.window_end_us {
                wr.mark_done(ctx);
                return Ok(());
            }
            act(sink, core, ctx, wr, t).await?;
        }
    }
}

/// Shortest timer period of a writer.
const MIN_TICK: Duration = Duration::from_millis(1);
/// A writer that fell behind (a stalled socket, a busy machine) sends at most this much of its
/// backlog at once; older actions are skipped, like missed ticks.
const MAX_CATCH_UP: Duration = Duration::from_millis(20);

/// Which actions are due: action `k` (from 0) is due `k / rate` seconds after the start.
#[derive(Debug, Clone)]
pub struct Schedule {
    rate: f64,
    /// Half a tick of slack, so a tick that fires on time never rounds down to the previous
    /// action.
    slack: Duration,
    /// At most this many actions are sent in one go.
    max_burst: u64,
    /// Actions sent or skipped so far.
    issued: u64,
}

impl Schedule {
    pub fn new(rate: f64, tick: Duration) -> Self {
        Schedule {
            rate,
            slack: tick / 2,
            max_burst: ((MAX_CATCH_UP.as_secs_f64() * rate).ceil() as u64).max(1),
            issued: 0,
        }
    }

    /// How many actions to send now, `elapsed` after the start.
    pub fn due(&mut self, elapsed: Duration) -> u64 {
        let total = ((elapsed + self.slack).as_secs_f64() * self.rate).floor() as u64 + 1;
        if total > self.issued + self.max_burst {
            self.issued = total - self.max_burst;
        }
        let n = total.saturating_sub(self.issued);
        self.issued += n;
        n
    }
}

/// One action of the mix.
async fn act(
    sink: &mut SplitSink<Ws, Message>,
    core: &Mutex<Core>,
    ctx: &ClientCtx,
    wr: &mut Writer,
    t: u64,
) -> Result<(), SessionEnd> {
    {
        let mut c = lock(core);
        while let Some(id) = c.created.pop_front() {
            wr.extras.push(id);
            wr.create_outstanding = false;
        }
    }
    let action = ctx.shared.mix.pick(&mut wr.rng);
    match action {
        Action::Presence => {
            let (x, y) = orbit(ctx.client, wr.n + 90);
            send(sink, wire::presence(x, y)).await?;
            lock(core).stats.presence_sent += 1;
        }
        Action::Ai => {
            wr.n += 1;
            let id = wire::encode_id(ctx.client, wr.n, t);
            let text = AI_TEMPLATES[(wr.n as usize) % AI_TEMPLATES.len()];
            send(sink, wire::ai(&id, text)).await?;
            lock(core).stats.ai_sent += 1;
        }
        Action::CreateOrDelete | Action::Move => {
            wr.n += 1;
            let id = wire::encode_id(ctx.client, wr.n, t);
            let text = match (action, wr.extras.pop()) {
                (Action::CreateOrDelete, Some(extra)) => wire::delete_object(&id, &extra),
                (Action::CreateOrDelete, None) if !wr.create_outstanding => {
                    wr.create_outstanding = true;
                    let (x, y) = home(ctx.client);
                    wire::create_note(&id, x + 120.0, y + 120.0, "extra")
                }
                (_, extra) => {
                    if let Some(e) = extra {
                        wr.extras.push(e);
                    }
                    let (x, y) = orbit(ctx.client, wr.n);
                    let note = wr.note.as_deref().unwrap_or_default();
                    match &ctx.shared.move_text {
                        Some(t) => wire::move_object_with_text(&id, note, x, y, t),
                        None => wire::move_object(&id, note, x, y),
                    }
                }
            };
            send(sink, text).await?;
            sent_commit(core, ctx, wr.n, t);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends over `secs` with a tick every `tick` (each tick `lag` late).
    fn sent(rate: f64, tick: Duration, lag: Duration, secs: u64) -> u64 {
        let mut s = Schedule::new(rate, tick);
        let ticks = Duration::from_secs(secs).as_nanos() / tick.as_nanos();
        (0..ticks as u32).map(|k| s.due(tick * k + lag)).sum()
    }

    #[test]
    fn schedule_keeps_the_rate_above_the_timer_resolution() {
        let ms = Duration::from_millis(1);
        // 5,000/s on a 1 ms timer: five actions a tick (the last ticks' due at 1,999.5 ms).
        let n = sent(5000.0, ms, Duration::ZERO, 2);
        assert!((9_995..=10_000).contains(&n), "{n}");
        // 1,600/s: 1 or 2 a tick, 1,600 a second.
        let n = sent(1600.0, ms, Duration::from_micros(300), 1);
        assert!((1599..=1601).contains(&n), "{n}");
        // Slow rates: one action per tick, whether the tick fires on time or a little late.
        let p = Duration::from_secs_f64(1.0 / 3.0);
        assert_eq!(sent(3.0, p, Duration::ZERO, 10), 30);
        assert_eq!(sent(3.0, p, Duration::from_millis(40), 10), 30);
    }

    #[test]
    fn schedule_skips_a_long_backlog() {
        let mut s = Schedule::new(1000.0, Duration::from_millis(1));
        assert_eq!(s.due(Duration::ZERO), 1);
        // A one-second stall: only 20 ms worth is sent at once.
        assert_eq!(s.due(Duration::from_secs(1)), 20);
        assert_eq!(s.due(Duration::from_secs(1) + Duration::from_millis(1)), 1);
        // At 1/s a stall never bursts.
        let mut s = Schedule::new(1.0, Duration::from_secs(1));
        assert_eq!(s.due(Duration::ZERO), 1);
        assert_eq!(s.due(Duration::from_secs(5)), 1);
    }
}
