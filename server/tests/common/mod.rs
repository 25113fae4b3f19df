//! Test harness: the real server in-process on port 0 and real WebSocket clients.
#![allow(dead_code, clippy::unwrap_used)]

pub mod cluster;
pub mod http;
pub mod pg;
pub mod process;
pub mod seeded;

use futures_util::{SinkExt, StreamExt};
use protocol::{BoardObject, BoardState, Op, ServerMsg};
use serde_json::{Value, json};
use server::{Config, ServerHandle};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub const STEP: Duration = Duration::from_secs(5);

/// The admin token of every test server of this process (random per process).
pub fn admin_token() -> &'static str {
    static TOKEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TOKEN.get_or_init(|| format!("admin-{}", uuid::Uuid::new_v4().simple()))
}

/// Access control on, with the admin token: tests get board tokens as an app would.
pub fn config() -> Config {
    let dir = std::env::temp_dir().join(format!("board-test-{}", uuid::Uuid::new_v4()));
    let mut c = Config::for_tests(dir);
    c.admin_token = Some(admin_token().to_owned());
    c.memory_store = true;
    c.check_invariants = true;
    c.presence_grace_ms = 200;
    c
}

pub async fn start(config: Config) -> ServerHandle {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_test_writer()
        .try_init();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    server::spawn(listener, config).await.unwrap()
}

/// Asserts no board broke an invariant during the test.
pub fn assert_no_violations(s: &ServerHandle) {
    let (n, last) = s.violations();
    assert_eq!(n, 0, "invariant violations: {last:?}");
}

pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub mirror: BoardState,
    pub seq: u64,
    pub user: String,
    pub welcome: Value,
    /// Every seq of `applied` this client saw, in order.
    pub seqs: Vec<u64>,
}

pub async fn raw(
    addr: std::net::SocketAddr,
    board: &str,
) -> WebSocketStream<MaybeTlsStream<TcpStream>> {
    let url = format!("ws://{addr}/ws/boards/{board}");
    let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    ws
}

/// A WebSocket whose TCP receive buffer is fixed at `rcvbuf` bytes (set before connecting, so the
/// kernel does not autotune it): a client that stops reading backs the server up after that
/// much instead of after the tens of MB autotuning may allow.
pub async fn raw_small_rcvbuf(
    addr: std::net::SocketAddr,
    board: &str,
    rcvbuf: u32,
) -> WebSocketStream<MaybeTlsStream<TcpStream>> {
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(rcvbuf).unwrap();
    let stream = sock.connect(addr).await.unwrap();
    let url = format!("ws://{addr}/ws/boards/{board}");
    let (ws, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream))
        .await
        .unwrap();
    ws
}

impl Client {
    pub async fn join(addr: std::net::SocketAddr, board: &str, user: &str) -> Client {
        Self::join_since(addr, board, user, None).await
    }

    /// Joins over a socket with a small fixed receive buffer (see [`raw_small_rcvbuf`]).
    pub async fn join_small_rcvbuf(addr: std::net::SocketAddr, board: &str, user: &str) -> Client {
        let ws = raw_small_rcvbuf(addr, board, 16 * 1024).await;
        let token = http::mint(addr, user, board, "editor").await;
        Self::hello(ws, user, Some(&token), None).await
    }

    pub async fn join_since(
        addr: std::net::SocketAddr,
        board: &str,
        user: &str,
        since: Option<u64>,
    ) -> Client {
        let token = http::mint(addr, user, board, "editor").await;
        let ws = raw(addr, board).await;
        Self::hello(ws, user, Some(&token), since).await
    }

    /// Joins with the given token (None: no credential) and expects a welcome.
    pub async fn join_with(
        addr: std::net::SocketAddr,
        board: &str,
        user: &str,
        token: Option<&str>,
    ) -> Client {
        let ws = raw(addr, board).await;
        Self::hello(ws, user, token, None).await
    }

    /// Joins as `user` with a token of `role`.
    pub async fn join_as(
        addr: std::net::SocketAddr,
        board: &str,
        user: &str,
        role: &str,
    ) -> Client {
        let token = http::mint(addr, user, board, role).await;
        Self::join_with(addr, board, user, Some(&token)).await
    }

    pub async fn hello(
        ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
        user: &str,
        token: Option<&str>,
        since: Option<u64>,
    ) -> Client {
        let mut hello = json!({"type":"hello","user":{"id":user,"name":user}});
        if let Some(t) = token {
            hello["token"] = json!(t);
        }
        if let Some(s) = since {
            hello["since"] = json!(s);
        }
        Self::hello_with(ws, user, &hello).await
    }

    /// Sends `hello` as given (fields of its own, such as `comments_since`) and expects a
    /// welcome.
    pub async fn hello_with(
        mut ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
        user: &str,
        hello: &Value,
    ) -> Client {
        ws.send(Message::text(hello.to_string())).await.unwrap();
        let mut c = Client {
            ws,
            mirror: BoardState::new(1_000_000),
            seq: 0,
            user: user.into(),
            welcome: Value::Null,
            seqs: vec![],
        };
        let w = c.next().await;
        assert_eq!(w["type"], "welcome", "{w}");
        c.welcome = w;
        c
    }

    /// Rejoins after a drop, resuming from this client's seq, keeping its mirror.
    pub async fn resume(&mut self, addr: std::net::SocketAddr, board: &str) {
        let mut c = Client::join_since(addr, board, &self.user.clone(), Some(self.seq)).await;
        std::mem::swap(&mut c.ws, &mut self.ws);
        let w = c.welcome.clone();
        self.take_welcome(&w);
        self.welcome = w;
    }

    fn take_welcome(&mut self, w: &Value) {
        // A full welcome replaces the mirror; a resume welcome is followed by the replay.
        if let Some(objs) = w.get("objects") {
            let objs: Vec<BoardObject> = serde_json::from_value(objs.clone()).unwrap();
            self.mirror = BoardState::from_objects(objs, 1_000_000);
            self.seq = w["seq"].as_u64().unwrap();
        }
    }

    pub async fn send(&mut self, v: Value) {
        self.ws.send(Message::text(v.to_string())).await.unwrap();
    }

    /// The next JSON message (applies `applied` to the mirror, checks seq order).
    pub async fn next(&mut self) -> Value {
        self.try_next(STEP)
            .await
            .expect("timed out waiting for a message")
    }

    pub async fn try_next(&mut self, wait: Duration) -> Option<Value> {
        loop {
            let m = tokio::time::timeout(wait, self.ws.next())
                .await
                .ok()??
                .ok()?;
            match m {
                Message::Text(t) => {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    self.observe(&v);
                    return Some(v);
                }
                Message::Close(f) => {
                    return Some(
                        json!({"type":"__close","code": f.as_ref().map(|f| u16::from(f.code)), "reason": f.map(|f| f.reason.to_string())}),
                    );
                }
                _ => continue,
            }
        }
    }

    fn observe(&mut self, v: &Value) {
        match v["type"].as_str() {
            Some("welcome") => {
                let w = v.clone();
                self.take_welcome(&w);
            }
            Some("applied") => {
                let seq = v["seq"].as_u64().unwrap();
                assert_eq!(
                    seq,
                    self.seq + 1,
                    "seq gap at {} for {}: {v}",
                    self.seq,
                    self.user
                );
                let msg: ServerMsg = serde_json::from_value(v.clone()).unwrap();
                if let ServerMsg::Applied { command, .. } = msg {
                    let ops: Vec<Op> = command.ops;
                    self.mirror.replay(&ops, seq);
                }
                self.seq = seq;
                self.seqs.push(seq);
            }
            _ => {}
        }
    }

    /// Waits for a message matching `pred`, skipping (but observing) others.
    pub async fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = self.next().await;
            if pred(&v) {
                return v;
            }
        }
    }

    pub async fn until_type(&mut self, ty: &str) -> Value {
        self.until(|v| v["type"] == ty).await
    }

    /// [`Client::until`] with a deadline: `None` if nothing matched within `wait`.
    pub async fn try_until(
        &mut self,
        wait: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        while let Some(v) = self
            .try_next(deadline.saturating_duration_since(tokio::time::Instant::now()))
            .await
        {
            if pred(&v) {
                return Some(v);
            }
        }
        None
    }

    /// Sends a commit and returns its answer ([`answers_commit`]).
    pub async fn commit(&mut self, id: &str, ops: Value) -> Value {
        self.send(json!({"type":"commit","id":id,"ops":ops})).await;
        self.until(|v| answers_commit(v, id)).await
    }

    /// Waits until this client has seen `seq`.
    pub async fn catch_up(&mut self, seq: u64) {
        while self.seq < seq {
            self.next().await;
        }
    }

    /// The mirror's objects in canonical order.
    pub fn objects(&self) -> Vec<BoardObject> {
        self.mirror.sorted_objects().into_iter().cloned().collect()
    }
}

/// Whether `v` answers the commit `id`: its `applied` (by client id), `ack` or `rejected`.
pub fn answers_commit(v: &Value, id: &str) -> bool {
    match v["type"].as_str() {
        Some("applied") => v["command"]["client_id"] == id,
        Some("ack" | "rejected") => v["id"] == id,
        _ => false,
    }
}

/// Each object's id and text as a client sees them, sorted.
pub fn texts(c: &Client) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = c
        .objects()
        .into_iter()
        .map(|o| (o.id.as_str().to_owned(), o.text.clone()))
        .collect();
    v.sort();
    v
}

pub fn note(id: &str, x: f64, y: f64) -> Value {
    json!({"op":"create","object":{"id":id,"kind":"note","x":x,"y":y,"text":id}})
}
