//! Server configuration: one struct, every flag with an environment twin. `--help` gives one
//! line per flag, grouped by topic; docs/CONFIG.md has the details and every env twin.

use clap::Parser;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

const NETWORK: &str = "Network";
const STORAGE: &str = "Storage";
const LIMITS: &str = "Limits";
const SESSIONS: &str = "Sessions and timing";
const AI: &str = "AI";
const ACCESS: &str = "Access control";
const CLUSTER: &str = "Cluster";

/// Realtime whiteboard server with a built-in AI agent.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "server",
    version,
    about,
    after_help = "Every flag has an environment twin (BOARD_LISTEN for --listen, ...):\n\
                  docs/CONFIG.md lists them all, with details.\n\n\
                  Start the server, then open http://ADDR/ in a browser."
)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "BOARD_LISTEN", hide_env = true, value_name = "ADDR", default_value = "127.0.0.1:8080", help_heading = NETWORK)]
    pub listen: SocketAddr,
    /// The URL people reach the server at (behind a proxy).
    #[arg(long, env = "BOARD_PUBLIC_URL", hide_env = true, value_name = "URL", help_heading = NETWORK)]
    pub public_url: Option<String>,
    /// Other origins allowed to open sockets (comma-separated).
    #[arg(long, env = "BOARD_ALLOWED_ORIGINS", hide_env = true, value_name = "ORIGINS", value_delimiter = ',', help_heading = NETWORK)]
    pub allowed_origins: Vec<String>,
    /// Serve `/metrics` on this address, without credentials.
    #[arg(long, env = "BOARD_METRICS_LISTEN", hide_env = true, value_name = "ADDR", help_heading = NETWORK)]
    pub metrics_listen: Option<SocketAddr>,
    /// Open connections per IP, 0 = no cap.
    #[arg(long, env = "BOARD_MAX_CONNS_PER_IP", hide_env = true, value_name = "N", default_value_t = 0, help_heading = NETWORK)]
    pub max_conns_per_ip: usize,
    /// Connections per second per IP, 0 = no cap.
    #[arg(long, env = "BOARD_CONN_RATE_PER_IP", hide_env = true, value_name = "N", default_value_t = 0, help_heading = NETWORK)]
    pub conn_rate_per_ip: u32,
    /// Burst allowance of `--conn-rate-per-ip`.
    #[arg(long, env = "BOARD_CONN_BURST_PER_IP", hide_env = true, value_name = "N", default_value_t = 0, help_heading = NETWORK)]
    pub conn_burst_per_ip: u32,
    /// Seconds to send a request's headers.
    #[arg(long, env = "BOARD_HTTP_HEADER_TIMEOUT_SECS", hide_env = true, value_name = "SECS", default_value_t = 10, help_heading = NETWORK)]
    pub http_header_timeout_secs: u64,
    /// Seconds to send a request's body.
    #[arg(long, env = "BOARD_HTTP_BODY_TIMEOUT_SECS", hide_env = true, value_name = "SECS", default_value_t = 10, help_heading = NETWORK)]
    pub http_body_timeout_secs: u64,
    /// Proxies whose X-Forwarded-For is believed (IPs or CIDRs).
    #[arg(long, env = "BOARD_TRUSTED_PROXIES", hide_env = true, value_name = "CIDRS", default_value = "", hide_default_value = true, value_parser = parse_cidrs, help_heading = NETWORK)]
    pub trusted_proxies: Cidrs,
    /// Descriptors kept for plain HTTP.
    #[arg(long, env = "BOARD_FD_RESERVE", hide_env = true, value_name = "N", default_value_t = 64, help_heading = NETWORK)]
    pub fd_reserve: usize,
    /// Directory of the embedded SQLite store.
    #[arg(long, env = "BOARD_DATA_DIR", hide_env = true, value_name = "DIR", default_value = "./data", help_heading = STORAGE)]
    pub data_dir: PathBuf,
    /// PostgreSQL connection string (instead of SQLite).
    #[arg(long, env = "DATABASE_URL", hide_env = true, value_name = "URL", help_heading = STORAGE)]
    pub database_url: Option<String>,
    /// PostgreSQL schema to use (created if missing).
    #[arg(long, env = "BOARD_DATABASE_SCHEMA", hide_env = true, value_name = "SCHEMA", help_heading = STORAGE)]
    pub database_schema: Option<String>,
    /// Deadline of every store call, in milliseconds.
    #[arg(long, env = "BOARD_STORE_TIMEOUT_MS", hide_env = true, value_name = "MS", default_value_t = 5000, help_heading = STORAGE)]
    pub store_timeout_ms: u64,
    /// Keep boards in memory only (no durability).
    #[arg(long, env = "BOARD_MEMORY_STORE", hide_env = true, default_value_t = false, help_heading = STORAGE)]
    pub memory_store: bool,
    /// Commands that may wait for the log writer.
    #[arg(long, env = "BOARD_WRITER_QUEUE", hide_env = true, value_name = "N", default_value_t = 65_536, help_heading = STORAGE)]
    pub writer_queue: usize,
    /// Group-commit linger in microseconds, 0 = off.
    #[arg(long, env = "BOARD_COMMIT_LINGER_US", hide_env = true, value_name = "US", default_value_t = 1000, help_heading = STORAGE)]
    pub commit_linger_us: u64,
    /// Commands between snapshots of a board.
    #[arg(long, env = "BOARD_SNAPSHOT_EVERY", hide_env = true, value_name = "N", default_value_t = 1000, help_heading = STORAGE)]
    pub snapshot_every: u64,
    /// Largest picture upload, in bytes.
    #[arg(long, env = "BOARD_MAX_ASSET_BYTES", hide_env = true, value_name = "BYTES", default_value_t = 10 << 20, help_heading = LIMITS)]
    pub max_asset_bytes: usize,
    /// Largest board file read, in bytes.
    #[arg(long, env = "BOARD_MAX_FILE_BYTES", hide_env = true, value_name = "BYTES", default_value_t = 64 << 20, help_heading = LIMITS)]
    pub max_file_bytes: usize,
    /// Bytes of pictures one board may hold.
    #[arg(long, env = "BOARD_MAX_BOARD_ASSET_BYTES", hide_env = true, value_name = "BYTES", default_value_t = 100 << 20, help_heading = LIMITS)]
    pub max_board_asset_bytes: u64,
    /// Most pixels of one picture.
    #[arg(long, env = "BOARD_MAX_ASSET_PIXELS", hide_env = true, value_name = "PIXELS", default_value_t = 50_000_000, help_heading = LIMITS)]
    pub max_asset_pixels: u64,
    /// Seconds an unused picture is kept.
    #[arg(long, env = "BOARD_ASSET_GRACE_SECS", hide_env = true, value_name = "SECS", default_value_t = 86_400, help_heading = STORAGE)]
    pub asset_grace_secs: u64,
    /// Largest WebSocket frame accepted, in bytes.
    #[arg(long, env = "BOARD_MAX_FRAME_BYTES", hide_env = true, value_name = "BYTES", default_value_t = 1 << 20, help_heading = LIMITS)]
    pub max_frame_bytes: usize,
    /// Most ops in one commit.
    #[arg(long, env = "BOARD_MAX_OPS_PER_COMMIT", hide_env = true, value_name = "N", default_value_t = 1000, help_heading = LIMITS)]
    pub max_ops_per_commit: usize,
    /// Most objects on one board.
    #[arg(long, env = "BOARD_MAX_OBJECTS", hide_env = true, value_name = "N", default_value_t = 10_000, help_heading = LIMITS)]
    pub max_objects: usize,
    /// Most connections on one board.
    #[arg(long, env = "BOARD_MAX_CLIENTS", hide_env = true, value_name = "N", default_value_t = 256, help_heading = LIMITS)]
    pub max_clients_per_board: usize,
    /// Boards one user may own.
    #[arg(long, env = "BOARD_MAX_BOARDS_PER_USER", hide_env = true, value_name = "N", default_value_t = 1000, help_heading = LIMITS)]
    pub max_boards_per_user: usize,
    /// Boards the server may hold, 0 = no cap.
    #[arg(long, env = "BOARD_MAX_BOARDS", hide_env = true, value_name = "N", default_value_t = 0, help_heading = LIMITS)]
    pub max_boards: usize,
    /// Bytes the store may hold, 0 = no cap (default: half its room on disk).
    #[arg(long, env = "BOARD_MAX_STORE_BYTES", hide_env = true, value_name = "BYTES", help_heading = LIMITS)]
    pub max_store_bytes: Option<u64>,
    /// Named versions one board may keep.
    #[arg(long, env = "BOARD_MAX_NAMED_VERSIONS", hide_env = true, value_name = "N", default_value_t = 100, help_heading = LIMITS)]
    pub max_named_versions: u64,
    /// Named versions one board may save per minute.
    #[arg(long, env = "BOARD_NAMED_VERSIONS_PER_MIN", hide_env = true, value_name = "N", default_value_t = 10, help_heading = LIMITS)]
    pub named_versions_per_min: u32,
    /// Messages per second one connection may send.
    #[arg(long, env = "BOARD_RATE_LIMIT", hide_env = true, value_name = "N", default_value_t = 1000, help_heading = LIMITS)]
    pub rate_limit_per_sec: u32,
    /// Burst allowance of the per-connection rate limit.
    #[arg(long, env = "BOARD_RATE_BURST", hide_env = true, value_name = "N", default_value_t = 2000, help_heading = LIMITS)]
    pub rate_burst: u32,
    /// Messages queued to one connection before it is dropped.
    #[arg(long, env = "BOARD_OUTBOX", hide_env = true, value_name = "N", default_value_t = 4096, help_heading = LIMITS)]
    pub outbox_capacity: usize,
    /// Bytes queued to one connection before it is dropped.
    #[arg(long, env = "BOARD_OUTBOX_BYTES", hide_env = true, value_name = "BYTES", default_value_t = 4 << 20, help_heading = LIMITS)]
    pub outbox_bytes: usize,
    /// Kernel send buffer per socket (0 = autotuned).
    #[arg(long, env = "BOARD_SOCKET_SEND_BUFFER", hide_env = true, value_name = "BYTES", default_value_t = 256 << 10, help_heading = LIMITS)]
    pub socket_send_buffer: usize,
    /// Wait for a turn to draw an export, in ms (then `busy`).
    #[arg(long, env = "BOARD_EXPORT_WAIT_MS", hide_env = true, value_name = "MS", default_value_t = 10_000, help_heading = LIMITS)]
    pub export_wait_ms: u64,
    /// Memory all drawings may take, in MiB (else `too_large`).
    #[arg(long, env = "BOARD_EXPORT_MEMORY_MB", hide_env = true, value_name = "MIB", default_value_t = 512, help_heading = LIMITS)]
    pub export_memory_mb: u32,
    /// Commands kept in memory for resuming clients.
    #[arg(long, env = "BOARD_REPLAY_WINDOW", hide_env = true, value_name = "N", default_value_t = 1000, help_heading = SESSIONS)]
    pub replay_window: usize,
    /// Bytes of commands kept per board for resuming clients.
    #[arg(long, env = "BOARD_REPLAY_WINDOW_BYTES", hide_env = true, value_name = "BYTES", default_value_t = 64 * 1024, help_heading = SESSIONS)]
    pub replay_window_bytes: usize,
    /// Undo and redo depth per user.
    #[arg(long, env = "BOARD_UNDO_DEPTH", hide_env = true, value_name = "N", default_value_t = 100, help_heading = SESSIONS)]
    pub undo_depth: usize,
    /// Seconds of silence before a socket is dropped.
    #[arg(long, env = "BOARD_IDLE_TIMEOUT_SECS", hide_env = true, value_name = "SECS", default_value_t = 20, help_heading = SESSIONS)]
    pub idle_timeout_secs: u64,
    /// Seconds between server pings.
    #[arg(long, env = "BOARD_HEARTBEAT_SECS", hide_env = true, value_name = "SECS", default_value_t = 5, help_heading = SESSIONS)]
    pub heartbeat_secs: u64,
    /// Milliseconds presence survives a disconnect.
    #[arg(long, env = "BOARD_PRESENCE_GRACE_MS", hide_env = true, value_name = "MS", default_value_t = 5000, help_heading = SESSIONS)]
    pub presence_grace_ms: u64,
    /// Seconds an unused board stays loaded.
    #[arg(long, env = "BOARD_IDLE_UNLOAD_SECS", hide_env = true, value_name = "SECS", default_value_t = 60, help_heading = SESSIONS)]
    pub idle_unload_secs: u64,
    /// Idle seconds before an automatic version.
    #[arg(long, env = "BOARD_HISTORY_IDLE_SECS", hide_env = true, value_name = "SECS", default_value_t = 30, help_heading = STORAGE)]
    pub history_idle_secs: u64,
    /// Most seconds between automatic versions.
    #[arg(long, env = "BOARD_HISTORY_EVERY_SECS", hide_env = true, value_name = "SECS", default_value_t = 600, help_heading = STORAGE)]
    pub history_every_secs: u64,
    /// Days every version is kept.
    #[arg(long, env = "BOARD_HISTORY_KEEP_ALL_DAYS", hide_env = true, value_name = "DAYS", default_value_t = 7, help_heading = STORAGE)]
    pub history_keep_all_days: u64,
    /// Days one version a day is kept.
    #[arg(long, env = "BOARD_HISTORY_KEEP_DAYS", hide_env = true, value_name = "DAYS", default_value_t = 90, help_heading = STORAGE)]
    pub history_keep_days: u64,
    /// Board actor threads, 0 = one per two cores.
    #[arg(long, env = "BOARD_ARBITERS", hide_env = true, value_name = "N", default_value_t = 0, help_heading = SESSIONS)]
    pub arbiters: usize,
    /// Check board invariants after every command (tests); violations are counted and logged.
    #[arg(
        long,
        env = "BOARD_CHECK_INVARIANTS",
        default_value_t = false,
        hide = true
    )]
    pub check_invariants: bool,
    /// API key of an OpenAI-compatible LLM (turns the LLM on).
    #[arg(long, env = "OPENAI_API_KEY", hide_env = true, value_name = "SECRET", help_heading = AI)]
    pub openai_api_key: Option<String>,
    /// Base URL of the OpenAI-compatible API.
    #[arg(long, env = "OPENAI_BASE_URL", hide_env = true, value_name = "URL", help_heading = AI)]
    pub openai_base_url: Option<String>,
    /// Model name of the LLM.
    #[arg(long, env = "AI_MODEL", hide_env = true, value_name = "MODEL", default_value = "gpt-4o-mini", help_heading = AI)]
    pub ai_model: String,
    /// Seconds one AI command may take.
    #[arg(long, env = "AI_TIMEOUT_SECS", hide_env = true, value_name = "SECS", default_value_t = 60, help_heading = AI)]
    pub ai_timeout_secs: u64,
    /// Seconds one LLM request may take.
    #[arg(long, env = "AI_LLM_CALL_TIMEOUT_SECS", hide_env = true, value_name = "SECS", default_value_t = 30, help_heading = AI)]
    pub ai_llm_call_timeout_secs: u64,
    /// AI commands queued per user and board.
    #[arg(long, env = "AI_QUEUE_DEPTH", hide_env = true, value_name = "N", default_value_t = 8, help_heading = AI)]
    pub ai_queue_depth: usize,
    /// LLM requests in flight at once.
    #[arg(long, env = "AI_LLM_CONCURRENCY", hide_env = true, value_name = "N", default_value_t = 8, help_heading = AI)]
    pub ai_llm_concurrency: usize,
    /// on: sign-in and roles; off: local experiments only.
    #[arg(long, env = "BOARD_AUTH", hide_env = true, value_enum, hide_possible_values = true, default_value_t = AuthMode::On, help_heading = ACCESS)]
    pub auth: AuthMode,
    /// Secret that signs board tokens (default: random, kept in the store).
    #[arg(long, env = "BOARD_TOKEN_SECRET", hide_env = true, value_name = "SECRET", help_heading = ACCESS)]
    pub token_secret: Option<String>,
    /// Static bearer token that acts as the server's owner.
    #[arg(long, env = "BOARD_ADMIN_TOKEN", hide_env = true, value_name = "SECRET", help_heading = ACCESS)]
    pub admin_token: Option<String>,
    /// Sign-ins and share-link openings per address per minute.
    #[arg(long, env = "BOARD_SIGN_IN_RATE_PER_MIN", hide_env = true, value_name = "N", default_value_t = 30, help_heading = ACCESS)]
    pub sign_in_rate_per_min: u32,
    /// Failed credentials per address and minute (0 = no cap).
    #[arg(long, env = "BOARD_AUTH_FAILURES_PER_MIN", hide_env = true, value_name = "N", default_value_t = 20, help_heading = ACCESS)]
    pub auth_failures_per_min: u32,
    /// One node of a cluster (needs --database-url).
    #[arg(long, env = "BOARD_CLUSTER", hide_env = true, default_value_t = false, value_parser = clap::builder::BoolishValueParser::new(), help_heading = CLUSTER)]
    pub cluster: bool,
    /// NATS server the nodes talk through.
    #[arg(long, env = "NATS_URL", hide_env = true, value_name = "URL", default_value = "nats://127.0.0.1:4222", help_heading = CLUSTER)]
    pub nats_url: String,
    /// This node's id (default: the host name).
    #[arg(long, env = "BOARD_NODE_ID", hide_env = true, value_name = "ID", help_heading = CLUSTER)]
    pub node_id: Option<String>,
    /// Prefix of every NATS subject.
    #[arg(long, env = "BOARD_NATS_PREFIX", hide_env = true, value_name = "PREFIX", default_value = "board", help_heading = CLUSTER)]
    pub nats_prefix: String,
    /// Drops every N-th inbound relay message (tests of gap repair; 0 = never).
    #[arg(long, env = "BOARD_RELAY_DROP_EVERY", default_value_t = 0, hide = true)]
    pub relay_drop_every: u64,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Whether `s` is a node id or NATS prefix: `[A-Za-z0-9_-]{1,64}`.
pub fn is_token(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The host name with every character outside `[A-Za-z0-9_-]` replaced by `-` (at most 64).
fn host_node_id() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    let id: String = host
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    if id.is_empty() { "node".to_owned() } else { id }
}

/// The shortest `--admin-token` or `--token-secret` the server starts with (AUTH-21): a shorter
/// one can be guessed online or, for the token secret, cracked offline from any board token.
pub const MIN_SECRET_BYTES: usize = 32;

/// `--auth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthMode {
    On,
    Off,
}

/// Subcommands (without one, the server serves).
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Command {
    /// Prints a one-time sign-in link (the owner's, or `--name`'s) and exits.
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
        c.trusted_proxies = Vec::new();
        c.metrics_listen = None;
        c.command = None;
        c.cluster = false;
        c.node_id = None;
        c.nats_url = "nats://127.0.0.1:4222".into();
        c.nats_prefix = "board".into();
        c.relay_drop_every = 0;
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

    /// How long an unused picture is kept (ASSET-11).
    pub fn asset_grace(&self) -> Duration {
        Duration::from_secs(self.asset_grace_secs)
    }

    pub fn http_body_timeout(&self) -> Duration {
        Duration::from_secs(self.http_body_timeout_secs.max(1))
    }

    /// What the server refuses to start with (CLI-2: checked before it says where it listens):
    /// `--auth off` on an address others reach (AUTH-16), an operator secret shorter than
    /// [`MIN_SECRET_BYTES`] (AUTH-21).
    pub fn check(&self, bound: SocketAddr) -> Result<(), String> {
        if !self.auth_on() && !bound.ip().is_loopback() {
            return Err(format!(
                "--auth off serves without access control and refuses to listen on {bound}: \
                 use a loopback address (127.0.0.1 or ::1), or turn access control on"
            ));
        }
        let secrets = [
            ("--admin-token", &self.admin_token),
            ("--token-secret", &self.token_secret),
        ];
        for (flag, value) in secrets {
            let n = value.as_deref().map_or(0, str::len);
            if (1..MIN_SECRET_BYTES).contains(&n) {
                return Err(format!(
                    "{flag} has {n} bytes; it needs at least {MIN_SECRET_BYTES} \
                     (make one with: openssl rand -hex 32)"
                ));
            }
        }
        self.check_cluster()
    }

    /// `--cluster` needs PostgreSQL; node id and prefix are NATS subject tokens (CLUSTER-15).
    fn check_cluster(&self) -> Result<(), String> {
        if !self.cluster {
            return Ok(());
        }
        if self.memory_store || self.database_url.is_none() {
            return Err(
                "--cluster needs --database-url (PostgreSQL): every node shares its \
                        boards, ownership and keys there; SQLite and the memory store are one \
                        process's"
                    .into(),
            );
        }
        if let Some(id) = &self.node_id
            && !is_token(id)
        {
            return Err(format!("--node-id {id:?} must match [A-Za-z0-9_-]{{1,64}}"));
        }
        if !is_token(&self.nats_prefix) {
            return Err(format!(
                "--nats-prefix {:?} must match [A-Za-z0-9_-]{{1,64}}",
                self.nats_prefix
            ));
        }
        Ok(())
    }

    /// This node's id: `--node-id`, else the host name made a token.
    pub fn node(&self) -> String {
        self.node_id.clone().unwrap_or_else(host_node_id)
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
    pub fn retention(&self) -> crate::store::Retention {
        const DAY_MS: i64 = 86_400_000;
        let days = |d: u64| {
            i64::try_from(d)
                .unwrap_or(i64::MAX / DAY_MS)
                .saturating_mul(DAY_MS)
        };
        crate::store::Retention {
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

/// `--trusted-proxies` (one value: a `Vec` would make clap read one network per value).
pub type Cidrs = Vec<Cidr>;

/// Comma-separated networks; blanks between commas, and an empty list, are allowed.
pub fn parse_cidrs(s: &str) -> Result<Cidrs, String> {
    s.split(',')
        .filter(|c| !c.trim().is_empty())
        .map(str::parse)
        .collect()
}

/// An IP network, `ADDR` or `ADDR/PREFIX` (`--trusted-proxies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl std::str::FromStr for Cidr {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let (a, p) = s.split_once('/').map_or((s, None), |(a, p)| (a, Some(p)));
        let addr: IpAddr = a
            .parse()
            .map_err(|_| format!("{s:?} is not an IP address or CIDR (e.g. 10.0.0.0/8)"))?;
        let addr = addr.to_canonical();
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match p {
            None => max,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|&p| p <= max)
                .ok_or_else(|| format!("{s:?}: the prefix length must be 0..={max}"))?,
        };
        Ok(Cidr { addr, prefix })
    }
}

impl Cidr {
    /// Whether `ip` is in this network (an IPv4-mapped IPv6 address counts as its IPv4).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let bits = |ip: IpAddr| match ip {
            IpAddr::V4(v) => (u128::from(u32::from(v)), 32u32),
            IpAddr::V6(v) => (u128::from(v), 128u32),
        };
        let ((net, n), (ip, m)) = (bits(self.addr), bits(ip.to_canonical()));
        if n != m {
            return false;
        }
        let shift = n - u32::from(self.prefix);
        shift >= n || (net >> shift) == (ip >> shift)
    }
}
