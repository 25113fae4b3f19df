//! Command line: one `Args` struct (clap, with env twins), shape presets, and the resolved
//! [`RunConfig`] a run works from.

use crate::workload::Mix;
use clap::{Parser, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Simulated collaborators over real WebSockets against a running board server.
#[derive(Debug, Clone, Parser)]
#[command(name = "loadtest", version, about)]
pub struct Args {
    /// Board token sent in every `hello` (for a server with access control on); every client
    /// then uses the token's `sub` as its user id.
    #[arg(long, env = "LOADTEST_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// The server's admin token: before the run each client gets a board token of its own
    /// (`POST /api/tokens`, board `*`, role editor), as an app would mint them.
    #[arg(long, env = "LOADTEST_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Server base URL (loopback only), e.g. ws://127.0.0.1:8080. Several nodes of a cluster:
    /// comma separated and/or the flag repeated; client i of board b then talks to node
    /// (b + i) % nodes, so a board's clients sit on different nodes.
    #[arg(
        long,
        env = "LOADTEST_URL",
        value_delimiter = ',',
        default_value = "ws://127.0.0.1:8080"
    )]
    pub url: Vec<String>,
    /// With several --url: how clients are put on nodes. `spread`: client i of board b on node
    /// (b + i) % nodes (a board's clients on different nodes, the relay's worst case);
    /// `board`: every client of board b on node b % nodes (what a balancer hashing the board id
    /// does).
    #[arg(long, value_enum, env = "LOADTEST_PLACEMENT", default_value_t = Placement::Spread)]
    pub placement: Placement,
    /// A preset board shape; explicit flags override its values.
    #[arg(long, value_enum, env = "LOADTEST_SHAPE")]
    pub shape: Option<Shape>,
    /// Boards.
    #[arg(long, env = "LOADTEST_BOARDS")]
    pub boards: Option<usize>,
    /// Clients per board.
    #[arg(long, env = "LOADTEST_CLIENTS")]
    pub clients: Option<usize>,
    /// Actions per second per client (0 = idle: join, create one note, then only read).
    #[arg(long, env = "LOADTEST_RATE")]
    pub rate: Option<f64>,
    /// Measurement window, seconds.
    #[arg(long, env = "LOADTEST_DURATION")]
    pub duration: Option<f64>,
    /// Warm-up before the window opens, seconds (joins are ramped inside it).
    #[arg(long, env = "LOADTEST_WARMUP")]
    pub warmup: Option<f64>,
    /// Spread the joins over this many seconds (default: half the warm-up).
    #[arg(long, env = "LOADTEST_RAMP")]
    pub ramp: Option<f64>,
    /// After the window closes, wait at most this long for in-flight messages, seconds.
    #[arg(long, env = "LOADTEST_DRAIN")]
    pub drain: Option<f64>,
    /// Workload mix in percent, e.g. `moves=90,creates=5,presence=5,ai=0`.
    #[arg(long, env = "LOADTEST_MIX")]
    pub mix: Option<String>,
    /// Share of moves of the client's own note (overrides --mix).
    #[arg(long)]
    pub moves: Option<u32>,
    /// Share of creates/deletes of extra notes (they alternate, so the board does not grow).
    #[arg(long)]
    pub creates: Option<u32>,
    /// Share of cursor presence updates.
    #[arg(long)]
    pub presence: Option<u32>,
    /// Share of AI template commands.
    #[arg(long)]
    pub ai: Option<u32>,
    /// All clients drop their connection at this second of the run and resume with `since`.
    #[arg(long, env = "LOADTEST_RECONNECT_STORM_AT")]
    pub reconnect_storm_at: Option<f64>,
    /// Sample this server process's RSS and CPU from /proc before/after the joins. Several
    /// (comma separated and/or repeated, one per node): each is reported, and their CPU summed.
    #[arg(long, env = "LOADTEST_SERVER_PID", value_delimiter = ',')]
    pub server_pid: Vec<u32>,
    /// Extra clients per board that join and never read (small socket receive buffers); the
    /// report says how each one ended and, with --server-pid, the server's peak RSS and its RSS
    /// a few seconds after they are gone.
    #[arg(long, env = "LOADTEST_SLOW_READERS", default_value_t = 0)]
    pub slow_readers: usize,
    /// Every move also sets its note's text to this many bytes (0 = moves carry x and y only),
    /// so each `applied` is about that much larger.
    #[arg(long, default_value_t = 0)]
    pub move_text_bytes: usize,
    /// Also decode every frame with the protocol crate's `ServerMsg` (conformance check).
    #[arg(long)]
    pub strict: bool,
    /// Exit non-zero when the run shows a problem (loss, errors, nothing delivered).
    #[arg(long)]
    pub check: bool,
    /// CI smoke run: small shape, ~3 s, strict, fails on any loss or error.
    #[arg(long)]
    pub smoke: bool,
    /// Raise the rate step by step until p99 fan-out passes --p99-bound-ms or delivery < 100 %.
    #[arg(long)]
    pub sweep: bool,
    /// The sweep's latency bound.
    #[arg(long, default_value_t = 50.0)]
    pub p99_bound_ms: f64,
    /// The sweep multiplies the rate by this factor each step.
    #[arg(long, default_value_t = 2.0)]
    pub sweep_factor: f64,
    /// Most steps of the geometric part of the sweep.
    #[arg(long, default_value_t = 12)]
    pub sweep_steps: usize,
    /// Bisection steps between the last passing and the first failing rate.
    #[arg(long, default_value_t = 2)]
    pub sweep_refine: usize,
    /// Measure a failing sweep step again up to this many times; it holds if any attempt holds
    /// (a lone stall from outside the server, e.g. a slow fsync on a virtual disk, fails one).
    #[arg(long, default_value_t = 1)]
    pub sweep_retries: usize,
    /// Run the same sweep against this baseline relay and report our share of its rate.
    #[arg(long, env = "LOADTEST_BASELINE_URL")]
    pub baseline_url: Option<String>,
    /// Write the report as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Draw latency against load (SVG) here (sweeps; a single run draws one point).
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Serve the baseline relay instead of running a load test.
    #[arg(long)]
    pub serve_baseline: bool,
    /// Address for --serve-baseline (loopback only).
    #[arg(long, default_value = "127.0.0.1:9090")]
    pub listen: SocketAddr,
    /// Board id prefix (a random run id is appended).
    #[arg(long, default_value = "lt")]
    pub board_prefix: String,
    /// Seed for the workload's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands (without one, a load run).
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Command {
    /// Measures cluster failover (SIGKILL) or hand-over (SIGTERM): starts two nodes, keeps a
    /// client writing through node B to a board node A owns, stops A, and reports the longest
    /// time between two acknowledged commits, over several rounds.
    Failover(crate::failover::FailoverArgs),
}

/// Where clients go over several nodes (`--placement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Placement {
    /// Client i of board b on node (b + i) % nodes.
    #[default]
    Spread,
    /// Every client of board b on node b % nodes.
    Board,
}

/// Preset board shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shape {
    /// 2 boards × 4 clients at 5/s for ~3 s (what --smoke runs).
    Smoke,
    /// 10,000 connections: 1,000 boards × 10 clients at 1 update/s.
    Wide,
    /// 1 board × 200 clients at 1 update/s.
    Crowd,
    /// 10 boards × 20 clients at 2/s; everyone drops and resumes at once 10 s in.
    Storm,
    /// 100 boards × 10 clients, no updates: idle memory per connection/board (use --server-pid).
    Idle,
}

/// The resolved parameters of one run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The first node's URL (tokens are minted there; slow readers and metrics use it).
    pub url: String,
    /// Every node's URL (one for a single server); client i of board b uses
    /// `urls[(b + i) % urls.len()]`.
    pub urls: Vec<String>,
    pub placement: Placement,
    pub boards: usize,
    pub clients: usize,
    pub rate: f64,
    pub warmup: Duration,
    pub duration: Duration,
    pub ramp: Duration,
    pub drain: Duration,
    pub mix: Mix,
    pub storm_at: Option<Duration>,
    /// The first of `server_pids` (the slow-reader watch samples it).
    pub server_pid: Option<u32>,
    /// Every server process to sample (one per node).
    pub server_pids: Vec<u32>,
    pub slow_readers: usize,
    pub move_text_bytes: usize,
    pub strict: bool,
    pub board_prefix: String,
    pub seed: u64,
    /// Board token every client sends (its `sub` becomes every client's user id).
    pub token: Option<String>,
    /// Admin token: each client gets a board token of its own from `POST /api/tokens`.
    pub admin_token: Option<String>,
}

struct Preset {
    boards: usize,
    clients: usize,
    rate: f64,
    warmup: f64,
    duration: f64,
    ramp: Option<f64>,
    storm_at: Option<f64>,
}

fn preset(shape: Option<Shape>) -> Preset {
    let p = |boards, clients, rate, warmup, duration| Preset {
        boards,
        clients,
        rate,
        warmup,
        duration,
        ramp: None,
        storm_at: None,
    };
    match shape {
        None => p(10, 20, 5.0, 3.0, 30.0),
        Some(Shape::Smoke) => Preset {
            ramp: Some(0.3),
            ..p(2, 4, 5.0, 0.8, 2.0)
        },
        Some(Shape::Wide) => Preset {
            ramp: Some(20.0),
            ..p(1000, 10, 1.0, 30.0, 60.0)
        },
        Some(Shape::Crowd) => p(1, 200, 1.0, 5.0, 30.0),
        Some(Shape::Storm) => Preset {
            storm_at: Some(15.0),
            ..p(10, 20, 2.0, 5.0, 30.0)
        },
        Some(Shape::Idle) => Preset {
            ramp: Some(5.0),
            ..p(100, 10, 0.0, 10.0, 5.0)
        },
    }
}

fn secs(v: f64, what: &str) -> anyhow::Result<Duration> {
    if !v.is_finite() || !(0.0..=1e6).contains(&v) {
        anyhow::bail!("--{what} must be a number of seconds between 0 and 1e6, got {v}");
    }
    Ok(Duration::from_secs_f64(v))
}

/// Refuses any host but loopback.
pub fn check_loopback(url: &str) -> anyhow::Result<()> {
    let rest = url
        .strip_prefix("ws://")
        .ok_or_else(|| anyhow::anyhow!("{url}: only ws:// URLs are supported"))?;
    let host = rest.split(['/', '?']).next().unwrap_or_default();
    let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
    match host {
        "127.0.0.1" | "localhost" | "[::1]" => Ok(()),
        _ => anyhow::bail!("{url}: the load test only talks to loopback (127.0.0.1)"),
    }
}

/// The node URLs of `--url`: each value split at commas, blanks dropped, trailing `/` trimmed,
/// every one loopback; at least one.
pub fn parse_urls(values: &[String]) -> anyhow::Result<Vec<String>> {
    let urls: Vec<String> = values
        .iter()
        .flat_map(|v| v.split(','))
        .map(|u| u.trim().trim_end_matches('/').to_owned())
        .filter(|u| !u.is_empty())
        .collect();
    if urls.is_empty() {
        anyhow::bail!("--url needs at least one ws:// URL");
    }
    for u in &urls {
        check_loopback(u)?;
    }
    Ok(urls)
}

/// The node (index into the URLs) of client `client` of board `board`: a board's clients go
/// round-robin over the nodes, starting one further for each board, so with as many clients as
/// nodes every node has one client of every board, and boards' first clients are spread too.
pub fn node_of(board: usize, client: usize, nodes: usize) -> usize {
    (board + client) % nodes.max(1)
}

/// The node of client `client` of board `board` under `placement`.
pub fn place(placement: Placement, board: usize, client: usize, nodes: usize) -> usize {
    match placement {
        Placement::Spread => node_of(board, client, nodes),
        Placement::Board => node_of(board, 0, nodes),
    }
}

impl Args {
    /// The mix: `--mix`, then the separate share flags on top, else the default.
    pub fn resolve_mix(&self) -> anyhow::Result<Mix> {
        let mut mix = match &self.mix {
            Some(s) => s.parse::<Mix>()?,
            None => Mix::default(),
        };
        if self.moves.is_some()
            || self.creates.is_some()
            || self.presence.is_some()
            || self.ai.is_some()
        {
            if self.mix.is_none() {
                mix = Mix::zero();
            }
            if let Some(v) = self.moves {
                mix.moves = v;
            }
            if let Some(v) = self.creates {
                mix.creates = v;
            }
            if let Some(v) = self.presence {
                mix.presence = v;
            }
            if let Some(v) = self.ai {
                mix.ai = v;
            }
        }
        mix.validate()?;
        Ok(mix)
    }

    /// Resolves flags over the shape preset (`--smoke` implies `--shape smoke --strict`).
    pub fn resolve(&self) -> anyhow::Result<RunConfig> {
        let urls = parse_urls(&self.url)?;
        let shape = if self.smoke {
            Some(Shape::Smoke)
        } else {
            self.shape
        };
        let p = preset(shape);
        let boards = self.boards.unwrap_or(p.boards);
        let clients = self.clients.unwrap_or(p.clients);
        if boards == 0 || clients == 0 {
            anyhow::bail!("--boards and --clients must be at least 1");
        }
        let rate = self.rate.unwrap_or(p.rate);
        if !rate.is_finite() || !(0.0..=100_000.0).contains(&rate) {
            anyhow::bail!("--rate must be between 0 and 100000, got {rate}");
        }
        let warmup = secs(self.warmup.unwrap_or(p.warmup), "warmup")?;
        let duration = secs(self.duration.unwrap_or(p.duration), "duration")?;
        let ramp = match self.ramp.or(p.ramp) {
            Some(r) => secs(r, "ramp")?,
            None => warmup / 2,
        };
        let drain = secs(self.drain.unwrap_or(2.0), "drain")?;
        let storm_at = match self.reconnect_storm_at.or(p.storm_at) {
            Some(s) => Some(secs(s, "reconnect-storm-at")?),
            None => None,
        };
        Ok(RunConfig {
            url: urls[0].clone(),
            urls,
            placement: self.placement,
            boards,
            clients,
            rate,
            warmup,
            duration,
            ramp,
            drain,
            mix: self.resolve_mix()?,
            storm_at,
            server_pid: self.server_pid.first().copied(),
            server_pids: self.server_pid.clone(),
            slow_readers: self.slow_readers,
            move_text_bytes: self.move_text_bytes,
            strict: self.strict || self.smoke,
            board_prefix: self.board_prefix.clone(),
            seed: self.seed,
            token: self.token.clone().filter(|t| !t.is_empty()),
            admin_token: self.admin_token.clone().filter(|t| !t.is_empty()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> Args {
        let mut v = vec!["loadtest"];
        v.extend_from_slice(extra);
        Args::parse_from(v)
    }

    #[test]
    fn presets_and_overrides() {
        let c = args(&["--shape", "wide"]).resolve().unwrap();
        assert_eq!((c.boards, c.clients, c.rate), (1000, 10, 1.0));
        let c = args(&["--shape", "wide", "--boards", "5"])
            .resolve()
            .unwrap();
        assert_eq!((c.boards, c.clients), (5, 10));
        let c = args(&["--smoke"]).resolve().unwrap();
        assert!(c.strict);
        assert_eq!((c.boards, c.clients), (2, 4));
        let c = args(&["--shape", "storm"]).resolve().unwrap();
        assert_eq!(c.storm_at, Some(Duration::from_secs(15)));
    }

    #[test]
    fn mix_flags() {
        let m = args(&["--mix", "moves=80,creates=10,presence=10"])
            .resolve_mix()
            .unwrap();
        assert_eq!((m.moves, m.creates, m.presence, m.ai), (80, 10, 10, 0));
        let m = args(&["--moves", "50", "--ai", "50"])
            .resolve_mix()
            .unwrap();
        assert_eq!((m.moves, m.creates, m.presence, m.ai), (50, 0, 0, 50));
        assert!(args(&["--mix", "moves=0"]).resolve_mix().is_err());
    }

    #[test]
    fn loopback_only() {
        assert!(check_loopback("ws://127.0.0.1:8080").is_ok());
        assert!(check_loopback("ws://localhost:1/").is_ok());
        assert!(check_loopback("ws://10.0.0.1:8080").is_err());
        assert!(check_loopback("ws://example.com").is_err());
        assert!(check_loopback("wss://127.0.0.1:1").is_err());
        assert!(args(&["--url", "ws://192.168.1.1:80"]).resolve().is_err());
    }

    #[test]
    fn one_url_is_as_before() {
        let c = args(&[]).resolve().unwrap();
        assert_eq!(c.urls, vec!["ws://127.0.0.1:8080".to_owned()]);
        assert_eq!(c.url, "ws://127.0.0.1:8080");
        let c = args(&["--url", "ws://127.0.0.1:9/"]).resolve().unwrap();
        assert_eq!(c.urls, vec!["ws://127.0.0.1:9".to_owned()]);
        assert_eq!(c.server_pid, None);
        assert!(c.server_pids.is_empty());
    }

    #[test]
    fn several_urls_comma_separated_and_repeated() {
        let c = args(&[
            "--url",
            "ws://127.0.0.1:1,ws://127.0.0.1:2/",
            "--url",
            "ws://localhost:3",
            "--server-pid",
            "10,11",
            "--server-pid",
            "12",
        ])
        .resolve()
        .unwrap();
        assert_eq!(
            c.urls,
            ["ws://127.0.0.1:1", "ws://127.0.0.1:2", "ws://localhost:3"]
        );
        assert_eq!(c.url, "ws://127.0.0.1:1");
        assert_eq!(c.server_pids, [10, 11, 12]);
        assert_eq!(c.server_pid, Some(10));
        // Any non-loopback node is refused, and so is an empty list.
        assert!(
            args(&["--url", "ws://127.0.0.1:1,ws://10.0.0.2:2"])
                .resolve()
                .is_err()
        );
        assert!(parse_urls(&[" , ".to_owned()]).is_err());
        assert_eq!(
            parse_urls(&["ws://127.0.0.1:1, ws://127.0.0.1:2".to_owned()]).unwrap(),
            ["ws://127.0.0.1:1", "ws://127.0.0.1:2"]
        );
    }

    #[test]
    fn a_boards_clients_are_spread_over_the_nodes() {
        // 3 nodes, 4 boards x 3 clients: each board has one client on every node, and the
        // boards' first clients start on different nodes.
        for board in 0..4 {
            let mut nodes: Vec<usize> = (0..3).map(|c| node_of(board, c, 3)).collect();
            assert_eq!(nodes[0], board % 3);
            nodes.sort_unstable();
            assert_eq!(nodes, [0, 1, 2]);
        }
        // 2 nodes, 5 clients: alternate (3 on one, 2 on the other).
        let on: Vec<usize> = (0..5).map(|c| node_of(1, c, 2)).collect();
        assert_eq!(on, [1, 0, 1, 0, 1]);
        // One node: everyone on it.
        assert!((0..10).all(|c| node_of(7, c, 1) == 0));
        assert_eq!(node_of(3, 3, 0), 0);
        // By board: every client of a board on one node, boards round-robin.
        assert!((0..5).all(|c| place(Placement::Board, 4, c, 3) == 1));
        assert_eq!(place(Placement::Spread, 4, 1, 3), 2);
        let c = args(&["--placement", "board"]).resolve().unwrap();
        assert_eq!(c.placement, Placement::Board);
        assert_eq!(args(&[]).resolve().unwrap().placement, Placement::Spread);
    }
}
