//! The baseline: a minimal broadcast relay speaking just enough of protocol v1 for the moves
//! workload. `hello` → `welcome` (the objects created so far), `commit` → `applied` with the
//! board's next seq to every client of the board. No validation, no storage, no undo, no AI.
//!
//! It keeps what a fair comparison needs: a bounded outbox per connection (a client that cannot
//! keep up is closed, as the real server does), and a replay window so a client resuming with
//! `since` gets the `applied` messages it missed (or a full welcome past the window).
//! Our server's sustainable rate is reported as a share of this relay's.

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

/// Outbound queue per connection.
const OUTBOX: usize = 1024;
/// `applied` messages kept for resumes.
const REPLAY: usize = 4096;

/// Binds `addr` (loopback only) and serves the relay in a background task.
pub async fn spawn(addr: SocketAddr) -> anyhow::Result<(SocketAddr, JoinHandle<()>)> {
    if !addr.ip().is_loopback() {
        anyhow::bail!("the baseline relay only listens on loopback, not {addr}");
    }
    // A deep accept queue: a reconnect storm or a fast join ramp must not overflow it (the
    // default of 128 drops SYNs, and a dropped SYN costs the client a 1 s retransmission).
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    let listener = socket.listen(4096)?;
    let local = listener.local_addr()?;
    Ok((local, tokio::spawn(serve(listener))))
}

/// Accepts connections forever.
pub async fn serve(listener: TcpListener) {
    let relay = Arc::new(Relay::default());
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let relay = Arc::clone(&relay);
                tokio::spawn(async move { connection(stream, relay).await });
            }
            // Out of file descriptors and the like: wait a little and go on.
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(10)).await,
        }
    }
}

#[derive(Default)]
struct Relay {
    boards: Mutex<HashMap<String, Arc<Mutex<Board>>>>,
    next_conn: AtomicU64,
}

#[derive(Default)]
struct Board {
    seq: u64,
    objects: HashMap<String, Map<String, Value>>,
    clients: HashMap<u64, mpsc::Sender<Message>>,
    log: VecDeque<(u64, Utf8Bytes)>,
    next_object: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Deserialize)]
struct In {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    user: Option<InUser>,
    #[serde(default)]
    since: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    ops: Vec<Value>,
    #[serde(default)]
    cursor: Option<Value>,
    #[serde(default)]
    t: Option<Value>,
}

#[derive(Deserialize)]
struct InUser {
    id: String,
    #[serde(default)]
    name: String,
}

/// Small read buffers as in the clients, but a write buffer, so a batch of queued frames goes
/// out with one flush (as the server's sockets do) instead of one write per frame.
fn relay_ws_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    crate::client::ws_config().write_buffer_size(16 * 1024)
}

fn error(code: &str, message: &str) -> Message {
    Message::text(json!({"type": "error", "code": code, "message": message}).to_string())
}

async fn connection(stream: TcpStream, relay: Arc<Relay>) {
    let _ = stream.set_nodelay(true);
    let mut path = String::new();
    // The callback's signature is tungstenite's (its error type is an HTTP response).
    #[allow(clippy::result_large_err)]
    let callback = |req: &Request, resp: Response| {
        path = req.uri().path().to_owned();
        Ok(resp)
    };
    let Ok(ws) =
        tokio_tungstenite::accept_hdr_async_with_config(stream, callback, Some(relay_ws_config()))
            .await
    else {
        return;
    };
    let (mut sink, mut stream) = ws.split();
    let Some(board_id) = path.strip_prefix("/ws/boards/").map(str::to_owned) else {
        let _ = sink.send(error("not_found", "use /ws/boards/{id}")).await;
        return;
    };
    // The first frame must be hello.
    let user = loop {
        match stream.next().await {
            Some(Ok(Message::Text(t))) => match serde_json::from_str::<In>(t.as_str()) {
                Ok(In {
                    kind,
                    user: Some(u),
                    since,
                    ..
                }) if kind == "hello" => break (u, since),
                _ => {
                    let _ = sink.send(error("invalid", "hello must come first")).await;
                }
            },
            Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
            Some(Ok(_)) => {}
        }
    };
    let ((user, since), conn) = (user, relay.next_conn.fetch_add(1, Ordering::Relaxed));
    let board = Arc::clone(lock(&relay.boards).entry(board_id.clone()).or_default());
    let (tx, mut rx) = mpsc::channel::<Message>(OUTBOX);
    let you = json!({"id": user.id, "name": user.name, "color": "#90CAF9"});
    join(&board, &board_id, &you, since, conn, &tx);

    // The writer drains the outbox; when the board drops our sender (slow consumer) it closes.
    // Like the server, it writes whatever is queued (up to a batch) with one flush.
    let writer = tokio::spawn(async move {
        while let Some(m) = rx.recv().await {
            if sink.feed(m).await.is_err() {
                return;
            }
            for _ in 0..256 {
                match rx.try_recv() {
                    Ok(m) => {
                        if sink.feed(m).await.is_err() {
                            return;
                        }
                    }
                    Err(_) => break,
                }
            }
            if sink.flush().await.is_err() {
                return;
            }
        }
        let frame = CloseFrame {
            code: CloseCode::Again,
            reason: "slow consumer: resume with since".into(),
        };
        let _ = sink.send(Message::Close(Some(frame))).await;
    });
    drop(tx);
    while let Some(Ok(m)) = stream.next().await {
        let text = match m {
            Message::Text(t) => t,
            Message::Close(_) => break,
            _ => continue,
        };
        let Ok(msg) = serde_json::from_str::<In>(text.as_str()) else {
            reply(&board, conn, error("bad_json", "not a message"));
            continue;
        };
        match msg.kind.as_str() {
            "commit" => commit(&board, &user.id, msg),
            "presence" => {
                let m = json!({"type": "presence", "user": you, "cursor": msg.cursor});
                let m = Message::text(m.to_string());
                let b = lock(&board);
                for (id, tx) in &b.clients {
                    if *id != conn {
                        // Cursors are ephemeral: drop them for a full outbox.
                        let _ = tx.try_send(m.clone());
                    }
                }
            }
            "ping" => {
                let m = json!({"type": "pong", "t": msg.t});
                reply(&board, conn, Message::text(m.to_string()));
            }
            _ => reply(
                &board,
                conn,
                error("not_implemented", "the baseline relay only relays commits"),
            ),
        }
    }
    lock(&board).clients.remove(&conn);
    writer.abort();
}

fn reply(board: &Mutex<Board>, conn: u64, m: Message) {
    let b = lock(board);
    if let Some(tx) = b.clients.get(&conn)
        && tx.try_send(m).is_err()
    {
        drop(b);
        lock(board).clients.remove(&conn);
    }
}

/// Queues the welcome (and any replay) into the outbox under the board lock, so no broadcast can
/// slip in between.
fn join(
    board: &Mutex<Board>,
    board_id: &str,
    you: &Value,
    since: Option<u64>,
    conn: u64,
    tx: &mpsc::Sender<Message>,
) {
    let mut b = lock(board);
    let oldest = b.log.front().map_or(b.seq + 1, |(s, _)| *s);
    let replay = since.filter(|&s| s <= b.seq && s + 1 >= oldest);
    let mut welcome = json!({
        "type": "welcome", "board": board_id, "seq": b.seq, "you": you,
        "users": [], "mode": "build",
    });
    if replay.is_none() {
        welcome["objects"] = Value::Array(b.objects.values().cloned().map(Value::Object).collect());
    }
    let _ = tx.try_send(Message::text(welcome.to_string()));
    if let Some(s) = replay {
        for (_, m) in b.log.iter().filter(|(seq, _)| *seq > s) {
            if tx.try_send(Message::Text(m.clone())).is_err() {
                return;
            }
        }
    }
    b.clients.insert(conn, tx.clone());
}

fn commit(board: &Mutex<Board>, author: &str, msg: In) {
    let mut b = lock(board);
    let seq = b.seq + 1;
    let mut ops = Vec::with_capacity(msg.ops.len());
    for mut op in msg.ops {
        match op.get("op").and_then(Value::as_str) {
            Some("create") => {
                let mut obj = Map::new();
                obj.insert("w".into(), json!(200.0));
                obj.insert("h".into(), json!(200.0));
                obj.insert("text".into(), json!(""));
                obj.insert("color".into(), json!("#FFF59D"));
                if let Some(Value::Object(input)) = op.get_mut("object").map(Value::take) {
                    obj.extend(input);
                }
                let id = match obj.get("id").and_then(Value::as_str) {
                    Some(id) => id.to_owned(),
                    None => {
                        b.next_object += 1;
                        format!("o{}", b.next_object)
                    }
                };
                obj.insert("id".into(), json!(id));
                obj.insert("version".into(), json!(seq));
                b.objects.insert(id, obj.clone());
                ops.push(json!({"op": "create", "object": obj}));
            }
            Some("update") => {
                let id = op.get("id").and_then(Value::as_str).unwrap_or_default();
                if let (Some(o), Some(Value::Object(set))) = (b.objects.get_mut(id), op.get("set"))
                {
                    for (k, v) in set {
                        o.insert(k.clone(), v.clone());
                    }
                }
                ops.push(op);
            }
            Some("delete") => {
                if let Some(id) = op.get("id").and_then(Value::as_str) {
                    b.objects.remove(id);
                }
                ops.push(op);
            }
            _ => {}
        }
    }
    b.seq = seq;
    let applied = json!({"type": "applied", "seq": seq, "command": {
        "id": format!("c{seq}"), "author": author, "origin": "user",
        "client_id": msg.id, "ops": ops,
    }});
    let bytes = Utf8Bytes::from(applied.to_string());
    if b.log.len() >= REPLAY {
        b.log.pop_front();
    }
    b.log.push_back((seq, bytes.clone()));
    // Never wait on a slow client: a full outbox drops the client, who resumes with `since`.
    b.clients
        .retain(|_, tx| tx.try_send(Message::Text(bytes.clone())).is_ok());
}
