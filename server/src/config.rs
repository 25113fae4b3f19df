//! Server configuration: one struct, every flag with an environment twin.

use clap::Parser;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Realtime whiteboard server with a built-in AI agent.
#[derive(Debug, Clone, Parser)]
#[command(name = "server", version, about)]
pub struct Config {
    /// Address to listen on (port 0 picks a free port; the bound address is logged).
    #[arg(long, env = "BOARD_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Directory of the embedded SQLite store.
    #[arg(long, env = "BOARD_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// PostgreSQL connection string; when set, boards are stored there instead of SQLite.
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// PostgreSQL schema to use (created if missing).
    #[arg(long, env = "BOARD_DATABASE_SCHEMA")]
    pub database_schema: Option<String>,
    /// Deadline of every store call, milliseconds: past it the commands waiting for it get
    /// `store_unavailable` (the board rolls them back and repairs its log once the store answers
    /// again) and a PostgreSQL statement still running is cancelled.
    #[arg(long, env = "BOARD_STORE_TIMEOUT_MS", default_value_t = 5000)]
    pub store_timeout_ms: u64,
    /// Keep boards in memory only (no durability; for tests and benchmarks of the core).
    #[arg(long, env = "BOARD_MEMORY_STORE", default_value_t = false)]
    pub memory_store: bool,
    /// Largest WebSocket frame accepted, in bytes (`too_large` beyond).
    #[arg(long, env = "BOARD_MAX_FRAME_BYTES", default_value_t = 1 << 20)]
    pub max_frame_bytes: usize,
    /// Most ops in one commit (`too_large` beyond).
    #[arg(long, env = "BOARD_MAX_OPS_PER_COMMIT", default_value_t = 1000)]
    pub max_ops_per_commit: usize,
    /// Most objects on one board (`limit_exceeded` beyond).
    #[arg(long, env = "BOARD_MAX_OBJECTS", default_value_t = 10_000)]
    pub max_objects: usize,
    /// Most connections on one board (`board_full` beyond).
    #[arg(long, env = "BOARD_MAX_CLIENTS", default_value_t = 256)]
    pub max_clients_per_board: usize,
    /// Boards one user may own (`limit_exceeded` beyond; QUOTA-1).
    #[arg(long, env = "BOARD_MAX_BOARDS_PER_USER", default_value_t = 1000)]
    pub max_boards_per_user: usize,
    /// Boards the server may hold, 0 = no cap (with `--auth off`, where joining a new id creates
    /// a board, 0 means 10,000; QUOTA-2).
    #[arg(long, env = "BOARD_MAX_BOARDS", default_value_t = 0)]
    pub max_boards: usize,
    /// Bytes the store may hold before new boards and imports are refused, 0 = no cap (QUOTA-3).
    #[arg(long, env = "BOARD_MAX_STORE_BYTES", default_value_t = 0)]
    pub max_store_bytes: u64,
    /// Messages per second one connection may send (`rate_limited` beyond).
    #[arg(long, env = "BOARD_RATE_LIMIT", default_value_t = 1000)]
    pub rate_limit_per_sec: u32,
    /// Burst allowance of the per-connection rate limit.
    #[arg(long, env = "BOARD_RATE_BURST", default_value_t = 2000)]
    pub rate_burst: u32,
    /// Messages queued to one connection before it is disconnected as too slow. Frames are
    /// shared, so a queued frame costs a pointer; the room is for bursts a healthy client must
    /// not be evicted for: a stalled fsync (hundreds of ms on a virtual disk) releases every
    /// command that waited on it at once, e.g. ~1,100 frames after 280 ms at 4,000 updates/s.
    #[arg(long, env = "BOARD_OUTBOX", default_value_t = 4096)]
    pub outbox_capacity: usize,
    /// Bytes of frames queued to one connection before it is disconnected as too slow (close
    /// 4008, at once). Bounds what a client that stops reading can pin on a busy board.
    #[arg(long, env = "BOARD_OUTBOX_BYTES", default_value_t = 4 << 20)]
    pub outbox_bytes: usize,
    /// Seconds a client has to send a request's headers (NET-4). Also how long an idle
    /// keep-alive HTTP connection is kept: the server waits for the next request's headers
    /// under the same timer. Slow or silent sockets are closed after it.
    #[arg(long, env = "BOARD_HTTP_HEADER_TIMEOUT_SECS", default_value_t = 10)]
    pub http_header_timeout_secs: u64,
    /// Open-file descriptors kept for plain HTTP requests (`/healthz`, `/metrics`): new
    /// WebSockets are refused (503) once open connections reach the open-file limit minus
    /// this (NET-2).
    #[arg(long, env = "BOARD_FD_RESERVE", default_value_t = 64)]
    pub fd_reserve: usize,
    /// Most connections open at once from one IP address; beyond it requests are answered 429
    /// (NET-3). 0 = no cap (the default: behind a reverse proxy every client has its address).
    #[arg(long, env = "BOARD_MAX_CONNS_PER_IP", default_value_t = 0)]
    pub max_conns_per_ip: usize,
    /// New connections per second from one IP address; beyond it (after a burst of
    /// `--conn-burst-per-ip`) requests are answered 429 (NET-3). 0 = no cap.
    #[arg(long, env = "BOARD_CONN_RATE_PER_IP", default_value_t = 0)]
    pub conn_rate_per_ip: u32,
    /// Burst allowance of `--conn-rate-per-ip` (at least the rate).
    #[arg(long, env = "BOARD_CONN_BURST_PER_IP", default_value_t = 0)]
    pub conn_burst_per_ip: u32,
    /// Commands that may wait for the group-commit log writer. At three quarters of it boards
    /// answer new commands `rate_limited` until the writer catches up (back-pressure).
    #[arg(long, env = "BOARD_WRITER_QUEUE", default_value_t = 65_536)]
    pub writer_queue: usize,
    /// Group-commit linger, microseconds: when commands reach the log writer faster than its
    /// commits finish (a batch finds four or more waiting), it waits this long for more before
    /// writing, so more commands share one sync. A lone command never waits, and a store that
    /// does not sync (`--memory-store`) never lingers. 0 turns it off;
    /// values above 100,000 (100 ms) count as 100,000.
    #[arg(long, env = "BOARD_COMMIT_LINGER_US", default_value_t = 1000)]
    pub commit_linger_us: u64,
    /// Commands kept in memory for resume with `since`.
    #[arg(long, env = "BOARD_REPLAY_WINDOW", default_value_t = 1000)]
    pub replay_window: usize,
    /// Bytes of `applied` frames kept per board for resume; the window holds at most
    /// `replay_window` commands and at most this many bytes.
    #[arg(long, env = "BOARD_REPLAY_WINDOW_BYTES", default_value_t = 64 * 1024)]
    pub replay_window_bytes: usize,
    /// Undo and redo stack depth per user.
    #[arg(long, env = "BOARD_UNDO_DEPTH", default_value_t = 100)]
    pub undo_depth: usize,
    /// Seconds without any frame before a socket is dropped as dead.
    #[arg(long, env = "BOARD_IDLE_TIMEOUT_SECS", default_value_t = 20)]
    pub idle_timeout_secs: u64,
    /// Seconds between server pings on a connection.
    #[arg(long, env = "BOARD_HEARTBEAT_SECS", default_value_t = 5)]
    pub heartbeat_secs: u64,
    /// Milliseconds a user's presence survives a disconnect before others see `left`.
    #[arg(long, env = "BOARD_PRESENCE_GRACE_MS", default_value_t = 5000)]
    pub presence_grace_ms: u64,
    /// Seconds a board with no connections stays loaded before it is saved and unloaded.
    #[arg(long, env = "BOARD_IDLE_UNLOAD_SECS", default_value_t = 60)]
    pub idle_unload_secs: u64,
    /// Version history: an automatic version once editing has paused this many seconds.
    #[arg(long, env = "BOARD_HISTORY_IDLE_SECS", default_value_t = 30)]
    pub history_idle_secs: u64,
    /// Version history: at most this many seconds between automatic versions while editing goes on.
    #[arg(long, env = "BOARD_HISTORY_EVERY_SECS", default_value_t = 600)]
    pub history_every_secs: u64,
    /// Version history: keep every version this many days.
    #[arg(long, env = "BOARD_HISTORY_KEEP_ALL_DAYS", default_value_t = 7)]
    pub history_keep_all_days: u64,
    /// Version history: after that, keep one automatic version a day up to this many days.
    #[arg(long, env = "BOARD_HISTORY_KEEP_DAYS", default_value_t = 90)]
    pub history_keep_days: u64,
    /// Commands between snapshots of a board.
    #[arg(long, env = "BOARD_SNAPSHOT_EVERY", default_value_t = 1000)]
    pub snapshot_every: u64,
    /// Board actor threads (arbiters); 0 = one per two cores (at least one): the sockets' work,
    /// on the I/O runtime's one-thread-per-core pool, outweighs the boards' (docs/BENCHMARKS-HISTORY.md).
    #[arg(long, env = "BOARD_ARBITERS", default_value_t = 0)]
    pub arbiters: usize,
    /// Check board invariants after every command (tests); violations are counted and logged.
    #[arg(
        long,
        env = "BOARD_CHECK_INVARIANTS",
        default_value_t = false,
        hide = true
    )]
    pub check_invariants: bool,
    /// API key of an OpenAI-compatible LLM (enables the LLM route).
    #[arg(long, env = "OPENAI_API_KEY", hide_env_values = true)]
    pub openai_api_key: Option<String>,
    /// Base URL of the OpenAI-compatible API.
    #[arg(long, env = "OPENAI_BASE_URL")]
    pub openai_base_url: Option<String>,
    /// Model name for the LLM route.
    #[arg(long, env = "AI_MODEL", default_value = "gpt-4o-mini")]
    pub ai_model: String,
    /// Seconds one AI command may take end to end (then `service_unavailable`).
    #[arg(long, env = "AI_TIMEOUT_SECS", default_value_t = 60)]
    pub ai_timeout_secs: u64,
    /// Seconds one LLM request may take.
    #[arg(long, env = "AI_LLM_CALL_TIMEOUT_SECS", default_value_t = 30)]
    pub ai_llm_call_timeout_secs: u64,
    /// AI commands one user may have waiting or running on a board (`rate_limited` beyond).
    #[arg(long, env = "AI_QUEUE_DEPTH", default_value_t = 8)]
    pub ai_queue_depth: usize,
    /// LLM requests in flight at once across the server.
    #[arg(long, env = "AI_LLM_CONCURRENCY", default_value_t = 8)]
    pub ai_llm_concurrency: usize,
    /// Access control: `on` (sign-in, board roles, tokens; docs/SECURITY.md) or `off` (anyone who
    /// reaches the port may do anything: local experiments and benchmarks only; the server then
    /// refuses to listen on a non-loopback address).
    #[arg(long, env = "BOARD_AUTH", value_enum, default_value_t = AuthMode::On)]
    pub auth: AuthMode,
    /// Secret that signs board tokens (HS256 with its UTF-8 bytes); apps that embed boards mint
    /// tokens with it. Default: a random key created on first start and kept in the store.
    #[arg(long, env = "BOARD_TOKEN_SECRET", hide_env_values = true)]
    pub token_secret: Option<String>,
    /// Static bearer token for operators and tooling; it acts as the server's owner.
    #[arg(long, env = "BOARD_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,
    /// Sign-ins and share-link openings one client address may make per minute (`rate_limited`
    /// beyond; bursts of up to a third of it, at least 10). Behind a proxy every client has its
    /// address: raise it there.
    #[arg(long, env = "BOARD_SIGN_IN_RATE_PER_MIN", default_value_t = 30)]
    pub sign_in_rate_per_min: u32,
    /// The URL people reach the server at (e.g. `https://boards.example.com` behind a TLS
    /// proxy): the printed sign-in links use it, its origin is allowed, and https makes cookies
    /// `Secure`.
    #[arg(long, env = "BOARD_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// Other origins allowed to open sockets and send cookie-authenticated requests
    /// (comma-separated, exact `scheme://host[:port]`).
    #[arg(long, env = "BOARD_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub allowed_origins: Vec<String>,
    /// Serve `/metrics` on this address instead (without credentials); otherwise `/metrics`
    /// needs the admin token.
    #[arg(long, env = "BOARD_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `--auth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthMode {
    On,
    Off,
}

/// Subcommands (without one, the server serves).
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Command {
    /// Prints a fresh one-time sign-in link (for the owner, or with `--name` for the member of
    /// that name, created if new), against the same data dir or database, and exits.
    LoginLink {
        #[arg(long)]
        name: Option<String>,
    },
}

impl Config {
    /// Defaults, as with no flags and no environment (for tests and embedding).
    pub fn for_tests(data_dir: PathBuf) -> Self {
        let mut c = Config::parse_from(["server"]);
        c.listen = SocketAddr::from(([127, 0, 0, 1], 0));
        c.data_dir = data_dir;
        c.database_url = None;
        c.openai_api_key = None;
        c.openai_base_url = None;
        c.auth = AuthMode::On;
        c.token_secret = None;
        c.admin_token = None;
        c.public_url = None;
        c.allowed_origins = Vec::new();
        c.metrics_listen = None;
        c.command = None;
        c
    }

    /// Whether access control is on.
    pub fn auth_on(&self) -> bool {
        self.auth == AuthMode::On
    }

    /// The base of printed links: `--public-url` (without a trailing slash), else `http://ADDR`.
    pub fn base_url(&self, bound: SocketAddr) -> String {
        match self.public_url.as_deref().filter(|u| !u.is_empty()) {
            Some(u) => u.trim_end_matches('/').to_owned(),
            None => format!("http://{bound}"),
        }
    }

    pub fn idle_timeout(&self) -> Duration {
        Duration::from_secs(self.idle_timeout_secs)
    }

    pub fn http_header_timeout(&self) -> Duration {
        Duration::from_secs(self.http_header_timeout_secs.max(1))
    }

    pub fn heartbeat(&self) -> Duration {
        Duration::from_secs(self.heartbeat_secs.max(1))
    }

    pub fn presence_grace(&self) -> Duration {
        Duration::from_millis(self.presence_grace_ms)
    }

    pub fn history_idle(&self) -> Duration {
        Duration::from_secs(self.history_idle_secs)
    }

    pub fn history_every(&self) -> Duration {
        Duration::from_secs(self.history_every_secs)
    }

    /// The retention policy of versions (HIST-4).
    pub fn retention(&self) -> crate::history::Retention {
        const DAY_MS: i64 = 86_400_000;
        let days = |d: u64| {
            i64::try_from(d)
                .unwrap_or(i64::MAX / DAY_MS)
                .saturating_mul(DAY_MS)
        };
        crate::history::Retention {
            keep_all_ms: days(self.history_keep_all_days),
            keep_daily_ms: days(self.history_keep_days.max(self.history_keep_all_days)),
        }
    }

    pub fn idle_unload(&self) -> Duration {
        Duration::from_secs(self.idle_unload_secs)
    }

    /// How often a board does its housekeeping (heartbeats, expired presence graces, idle
    /// unload; LIVE-4): a quarter of the shortest of the heartbeat period, the presence grace
    /// and the idle-unload delay, within 50 ms and 1 s. None of them is late by more than a
    /// quarter of the shortest (1 s at the defaults of 5 s, 5 s and 60 s), and a thousand idle
    /// boards wake a thousand times a second, not four thousand.
    pub fn housekeeping_every(&self) -> Duration {
        let shortest = self
            .heartbeat()
            .min(self.presence_grace())
            .min(self.idle_unload());
        (shortest / 4).clamp(Duration::from_millis(50), Duration::from_secs(1))
    }

    pub fn ai_timeout(&self) -> Duration {
        Duration::from_secs(self.ai_timeout_secs.max(1))
    }

    /// The agent's settings: the LLM route is on when a key or a base URL is set.
    pub fn agent_config(&self) -> agent::AgentConfig {
        let key = self.openai_api_key.clone().filter(|s| !s.is_empty());
        let base = self.openai_base_url.clone().filter(|s| !s.is_empty());
        let llm = (key.is_some() || base.is_some()).then(|| agent::LlmConfig {
            base_url: base.unwrap_or_else(|| "https://api.openai.com/v1".into()),
            api_key: key.unwrap_or_default(),
            model: self.ai_model.clone(),
            timeout: Duration::from_secs(self.ai_llm_call_timeout_secs.max(1)),
        });
        agent::AgentConfig {
            llm,
            llm_concurrency: self.ai_llm_concurrency.max(1),
            ..agent::AgentConfig::default()
        }
    }

    /// How long the log writer holds a batch back for company: `--commit-linger-us` (at most
    /// 100 ms) when commits sync, never when they do not (the memory store), where it would only
    /// delay every command.
    pub fn commit_linger(&self, store_syncs: bool) -> Duration {
        if store_syncs {
            Duration::from_micros(self.commit_linger_us.min(100_000))
        } else {
            Duration::ZERO
        }
    }

    /// Number of board arbiters to start.
    pub fn arbiter_count(&self) -> usize {
        if self.arbiters > 0 {
            self.arbiters
        } else {
            std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_23_linger_only_where_commits_sync() {
        let mut c = Config::parse_from(["server"]);
        assert_eq!(c.commit_linger(true), Duration::from_millis(1));
        assert_eq!(c.commit_linger(false), Duration::ZERO);
        c.commit_linger_us = 10_000_000;
        assert_eq!(c.commit_linger(true), Duration::from_millis(100));
        c.commit_linger_us = 0;
        assert_eq!(c.commit_linger(true), Duration::ZERO);
    }

    #[test]
    fn live_4_housekeeping_every_quarter_of_the_shortest_deadline() {
        let mut c = Config::parse_from(["server"]);
        // Defaults: heartbeat 5 s, grace 5 s, idle unload 60 s → 1.25 s, capped at 1 s.
        assert_eq!(c.housekeeping_every(), Duration::from_secs(1));
        c.presence_grace_ms = 2000;
        assert_eq!(c.housekeeping_every(), Duration::from_millis(500));
        c.heartbeat_secs = 1;
        assert_eq!(c.housekeeping_every(), Duration::from_millis(250));
        c.presence_grace_ms = 100;
        assert_eq!(c.housekeeping_every(), Duration::from_millis(50));
        c.presence_grace_ms = 0;
        c.idle_unload_secs = 0;
        assert_eq!(c.housekeeping_every(), Duration::from_millis(50));
    }
}
