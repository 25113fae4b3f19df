//! One task per WebSocket: waits for `hello`, joins the board, then runs one loop over the socket
//! and the bounded outbox, polling only the one that woke it. The outbox also carries the board's
//! heartbeats and, by closing, shutdown. Cleanup (leave) runs after the loop.

use crate::board::ai::MAX_AI_TEXT;
use crate::board::clients::{SHUTDOWN_REASON, is_heartbeat};
use crate::board::{BoardHandle, ConnId, Join, Kick};
use crate::shared::Shared;
use crate::woken::{Either, Woken};
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::StreamExt;
use governor::{Quota, RateLimiter};
use protocol::close;
use protocol::{BoardId, ClientMsg, ErrorCode, ServerMsg};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tracing::Instrument;

/// How long a new socket may take to send `hello` (AUTH-15).
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest first frame (the `hello`) accepted, in bytes: nothing before authentication may
/// cost more (AUTH-15).
const HELLO_MAX_BYTES: usize = 64 * 1024;

/// Why a connection loop ended.
#[derive(Debug)]
enum End {
    ClientClosed,
    SocketError(String),
    Kicked(u16, String),
    /// A frame the socket could not take (too large to read at all, not UTF-8): the socket is
    /// unusable after it, so it is closed with `code`, after `error` if there is one.
    Unreadable {
        code: u16,
        reason: &'static str,
        error: Option<ErrorCode>,
    },
    IdleTimeout,
    Shutdown,
    BoardGone,
}

pub async fn serve(
    socket: WebSocket,
    board: BoardId,
    cookie: Option<String>,
    peer: IpAddr,
    shared: Arc<Shared>,
) {
    let conn = shared.next_conn_id();
    // The span holds the connection's events and the board load it may trigger. It is entered
    // for those only, not around the task: an instrumented future enters and leaves its span on
    // every poll, i.e. for every frame in or out.
    let span = tracing::info_span!("conn", conn, board = %board, user = tracing::field::Empty);
    shared.metrics.connections(1.0);
    run(socket, board, cookie, peer, conn, &shared, &span).await;
    shared.metrics.connections(-1.0);
}

fn err(code: ErrorCode, message: impl Into<String>) -> Message {
    Message::Text(Utf8Bytes::from(ServerMsg::error(code, message).to_json()))
}

/// How long the close frame of a connection evicted as too slow waits for its peer to read.
const SLOW_CLOSE_LINGER: Duration = Duration::from_secs(3);

/// How long a closing connection waits for the peer's own close frame.
const CLOSE_LINGER: Duration = Duration::from_secs(3);

/// Sends a close frame, then reads (and drops) what the peer still sends until its close reply,
/// EOF, or [`CLOSE_LINGER`]. Closing the TCP socket at once would make the kernel answer any
/// late frame of the peer (a pong, a commit in flight) with a reset, and a reset discards what
/// the peer has not read yet: a client still draining its backlog would lose the close reason.
async fn close(socket: &mut WebSocket, code: u16, reason: &str) {
    close_within(socket, code, reason, CLOSE_LINGER).await;
}

/// [`close`], waiting at most `linger` for the close frame to go out and the peer's reply.
async fn close_within(socket: &mut WebSocket, code: u16, reason: &str, linger_for: Duration) {
    let reason: String = reason.chars().take(120).collect();
    let frame = Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from(reason),
    }));
    let linger = async {
        if socket.send(frame).await.is_err() {
            return;
        }
        while let Some(Ok(m)) = socket.recv().await {
            if matches!(m, Message::Close(_)) {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(linger_for, linger).await;
}

/// Why a socket is turned away before its loop: the error it is told (if any) and the close.
struct TurnedAway {
    error: Option<(ErrorCode, String)>,
    code: u16,
    reason: String,
}

impl TurnedAway {
    fn new(code: ErrorCode, message: impl Into<String>, close_code: u16, reason: &str) -> Self {
        TurnedAway {
            error: Some((code, message.into())),
            code: close_code,
            reason: reason.to_owned(),
        }
    }

    async fn tell(self, socket: &mut WebSocket) {
        if let Some((code, message)) = self.error {
            let _ = socket.send(err(code, message)).await;
        }
        close(socket, self.code, &self.reason).await;
    }
}

/// A joined connection: its board, its outbox and what it shares with the board.
struct Joined {
    board: BoardHandle,
    outbox: mpsc::Receiver<Utf8Bytes>,
    kick: Arc<Kick>,
}

async fn run(
    mut socket: WebSocket,
    board: BoardId,
    cookie: Option<String>,
    peer: IpAddr,
    conn: ConnId,
    shared: &Arc<Shared>,
    span: &tracing::Span,
) {
    // 1. hello; 2. who is it and what may they do here; 3. join; 4. the loop; 5. cleanup.
    let (mut user, (since, comments_since), token) =
        match read_hello(&mut socket, &shared.config).await {
            Ok(h) => h,
            Err(Some(away)) => return away.tell(&mut socket).await,
            Err(None) => return,
        };
    span.record("user", tracing::field::display(&user.id));
    // Read before the credential is, the sign-out count tells whether the join raced a sign-out
    // (AUTH-19).
    let signouts = shared.auth.signouts();
    let admitted = admit(shared, &board, token, cookie, &mut user, peer).await;
    let (access, title) = match admitted {
        Ok(a) => a,
        Err(away) => return away.tell(&mut socket).await,
    };
    let joining = Joining {
        comments_since,
        board,
        conn,
        user,
        since,
        access,
        title,
        signouts,
    };
    let Joined {
        board,
        mut outbox,
        kick,
    } = match enter(shared, joining, span).await {
        Ok(j) => j,
        Err(away) => return away.tell(&mut socket).await,
    };
    let end = if *shared.shutdown.borrow() {
        // A join that raced the shutdown: the board had already said goodbye.
        End::Shutdown
    } else {
        pump(&mut socket, &mut outbox, &kick, &board, conn, shared).await
    };
    board.leave(conn);
    span.in_scope(|| {
        if let End::SocketError(e) = &end {
            tracing::debug!(error = %e, "socket error");
        }
        tracing::debug!(?end, "connection ended");
    });
    finish(&mut socket, end, outbox, shared).await;
}

/// Where a `hello` resumes: after a seq, after a comment seq.
type Resume = (Option<protocol::Seq>, Option<protocol::Cseq>);

/// The `hello`, before which nothing else is read: the first frame must be a `hello` of at most
/// `HELLO_MAX_BYTES`, within `HELLO_TIMEOUT` (AUTH-15). `Err(None)`: the socket closed.
async fn read_hello(
    socket: &mut WebSocket,
    cfg: &crate::config::Config,
) -> Result<(protocol::UserInfo, Resume, Option<String>), Option<TurnedAway>> {
    let first = next_text(socket, cfg.max_frame_bytes.min(HELLO_MAX_BYTES));
    let hello = match tokio::time::timeout(HELLO_TIMEOUT, first).await {
        Ok(Some(Ok(text))) => ClientMsg::decode(&text),
        Ok(Some(Err((code, message)))) => {
            return Err(Some(TurnedAway::new(
                code,
                message,
                close::POLICY,
                "expected hello",
            )));
        }
        Ok(None) => return Err(None),
        Err(_) => {
            let m = "no hello within 5 s";
            return Err(Some(TurnedAway::new(
                ErrorCode::Invalid,
                m,
                close::POLICY,
                "no hello",
            )));
        }
    };
    match hello {
        Ok(ClientMsg::Hello {
            user,
            since,
            token,
            comments_since,
        }) => Ok((user, (since, comments_since), token)),
        Ok(_) => Err(Some(TurnedAway::new(
            ErrorCode::Invalid,
            "the first message must be hello",
            close::POLICY,
            "expected hello",
        ))),
        Err(e) => Err(Some(TurnedAway::new(
            e.code,
            e.message,
            close::POLICY,
            "bad hello",
        ))),
    }
}

/// Who is it, and what may they do here (AUTH-4, AUTH-5)? A guessed token that fails counts
/// against the address (NET-8).
async fn admit(
    shared: &Shared,
    board: &BoardId,
    token: Option<String>,
    cookie: Option<String>,
    user: &mut protocol::UserInfo,
    peer: IpAddr,
) -> Result<(crate::board::ConnAccess, String), TurnedAway> {
    let guessed = token.as_deref().is_some_and(|t| !t.is_empty());
    crate::auth::hello::authorize(shared, &shared.auth, board, token, cookie, user)
        .await
        .map_err(|(code, message, close_code)| {
            if guessed && code == ErrorCode::Unauthorized {
                shared.auth.failures.failed(peer);
            }
            shared.metrics.error_sent(code);
            TurnedAway::new(code, message, close_code, code.as_str())
        })
}

/// What a connection joins with.
struct Joining {
    board: BoardId,
    conn: ConnId,
    user: protocol::UserInfo,
    since: Option<protocol::Seq>,
    comments_since: Option<protocol::Cseq>,
    access: crate::board::ConnAccess,
    title: String,
    signouts: u64,
}

/// Loads the board if needed and joins it: the board queues the welcome into the new outbox.
async fn enter(
    shared: &Arc<Shared>,
    j: Joining,
    span: &tracing::Span,
) -> Result<Joined, TurnedAway> {
    let loaded = shared.registry.get(&shared.env, &j.board);
    let board = loaded.instrument(span.clone()).await.map_err(|e| {
        let message = span.in_scope(|| {
            crate::errors::public("the board could not be loaded; try again shortly", &e)
        });
        let code = ErrorCode::StoreUnavailable;
        TurnedAway::new(code, message, close::TRY_AGAIN, "store unavailable")
    })?;
    let (tx, outbox) = mpsc::channel::<Utf8Bytes>(shared.config.outbox_capacity);
    let kick = Arc::new(Kick::default());
    let session = j.access.session.clone();
    let joined = board
        .join(Join {
            conn: j.conn,
            user: j.user,
            since: j.since,
            comments_since: j.comments_since,
            tx,
            kick: kick.clone(),
            access: j.access,
            title: j.title,
        })
        .await;
    match joined {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => {
            let reason = e.code.as_str();
            return Err(TurnedAway::new(e.code, e.message, close::TRY_AGAIN, reason));
        }
        Err(_) => {
            let m = "board unavailable; retry";
            let reason = "board unavailable";
            return Err(TurnedAway::new(
                ErrorCode::Internal,
                m,
                close::TRY_AGAIN,
                reason,
            ));
        }
    }
    let auth = &shared.auth;
    if auth.signed_out_since(session.as_deref(), j.signouts).await {
        // Signed out while joining: the board heard of it before the join arrived.
        board.leave(j.conn);
        let m = "signed out";
        return Err(TurnedAway::new(
            ErrorCode::Unauthorized,
            m,
            close::UNAUTHORIZED,
            m,
        ));
    }
    Ok(Joined {
        board,
        outbox,
        kick,
    })
}

/// The connection's loop over its two sources, the outbox and the socket, until something ends
/// it. Heartbeats and shutdown reach it through the outbox, not as sources of their own: a timer
/// or a signal polled on every wake-up costs a poll per frame in or out. The board queues an
/// empty frame every `--heartbeat-secs` (`clients::HEARTBEAT`), and on shutdown it closes the
/// outbox with 1001.
async fn pump(
    socket: &mut WebSocket,
    outbox: &mut mpsc::Receiver<Utf8Bytes>,
    kick: &Kick,
    board: &BoardHandle,
    conn: ConnId,
    shared: &Shared,
) -> End {
    let cfg = &shared.config;
    let limiter = RateLimiter::direct(
        Quota::per_second(
            NonZeroU32::new(cfg.rate_limit_per_sec.max(1)).unwrap_or(NonZeroU32::MIN),
        )
        .allow_burst(NonZeroU32::new(cfg.rate_burst.max(1)).unwrap_or(NonZeroU32::MIN)),
    );
    let mut last_seen = Instant::now();
    // Bytes written and not yet subtracted from the outbox's count: reported in steps of a
    // sixteenth of `--outbox-bytes` (at most 64 KiB), so the count's cache line is not pulled
    // back and forth between the board's thread and this one for every frame. The board may
    // overestimate a connection's outbox by up to one step, never underestimate it.
    let report_every = (cfg.outbox_bytes / 16).min(64 * 1024);
    let mut unreported = 0;
    // Each wake-up polls only the source that woke the task (`woken`): an outbox frame does not
    // run the socket's read path, and the reverse.
    let mut sources = Woken::default();
    loop {
        let next = std::future::poll_fn(|cx| {
            sources.poll(cx, |c| outbox.poll_recv(c), |c| socket.poll_next_unpin(c))
        });
        match next.await {
            Either::A(Some(f)) => {
                let write = write_batch(socket, f, outbox);
                let (beat, bytes) = match write_with_timeout(write, cfg.idle_timeout(), kick).await
                {
                    Ok(Ok(written)) => written,
                    Ok(Err(e)) => return End::SocketError(e.to_string()),
                    Err(Stalled::TimedOut) => return End::SocketError("write timed out".into()),
                    Err(Stalled::Evicted) => return kicked(kick),
                };
                unreported += bytes;
                if unreported >= report_every {
                    kick.written(unreported);
                    unreported = 0;
                }
                if matches!(beat, Beat::Yes) && last_seen.elapsed() >= cfg.idle_timeout() {
                    return End::IdleTimeout;
                }
            }
            Either::A(None) => return kicked(kick),
            Either::B(incoming) => {
                last_seen = Instant::now();
                match on_incoming(socket, incoming, &limiter, board, conn, shared).await {
                    Ok(()) => {}
                    // The board stopped under a client still writing: the code it closed this
                    // connection with (1012 when fenced or handed over), when it set one.
                    Err(End::BoardGone) => return kicked(kick),
                    Err(end) => return end,
                }
            }
        }
    }
}

/// Why the board let the connection go (its outbox closed, or it evicted it as too slow).
fn kicked(kick: &Kick) -> End {
    match kick.get() {
        Some((code, reason)) => End::Kicked(*code, reason.clone()),
        None => End::BoardGone,
    }
}

/// Closes the socket the way its end calls for.
async fn finish(
    socket: &mut WebSocket,
    end: End,
    mut outbox: mpsc::Receiver<Utf8Bytes>,
    shared: &Shared,
) {
    let cfg = &shared.config;
    match end {
        End::Kicked(close::SLOW, reason) => {
            // Too slow: what the board queued is dropped at once (the client resumes with
            // `since`), and the close frame is all that is still offered to the peer, for
            // `SLOW_CLOSE_LINGER`: a client that reads again soon gets its reason after what the
            // socket holds; one that does not is let go then (LIM-7), not after a write timeout.
            drop(outbox);
            let linger = SLOW_CLOSE_LINGER.min(cfg.idle_timeout());
            close_within(socket, close::SLOW, &reason, linger).await;
        }
        End::Kicked(code, reason) => {
            // Drain what the board queued before it let go, then say why.
            while let Ok(f) = outbox.try_recv() {
                if is_heartbeat(&f) {
                    continue;
                }
                if socket.send(Message::Text(f)).await.is_err() {
                    return;
                }
            }
            close(socket, code, &reason).await;
        }
        End::Shutdown => close(socket, close::GOING_AWAY, SHUTDOWN_REASON).await,
        End::IdleTimeout => close(socket, close::POLICY, "idle timeout").await,
        End::BoardGone => close(socket, close::TRY_AGAIN, "board closed; reconnect").await,
        End::ClientClosed => close(socket, close::NORMAL, "bye").await,
        End::Unreadable {
            code,
            reason,
            error,
        } => {
            if let Some(e) = error {
                shared.metrics.error_sent(e);
                let _ = socket.send(err(e, reason)).await;
            }
            close(socket, code, reason).await;
        }
        End::SocketError(_) => {}
    }
}

/// Handles one frame from the socket: checks it (rate, size, decoding), answers what needs no
/// board, and hands the rest to the board. `Err` ends the connection.
async fn on_incoming(
    socket: &mut WebSocket,
    incoming: Option<Result<Message, axum::Error>>,
    limiter: &governor::DefaultDirectRateLimiter,
    addr: &crate::board::BoardHandle,
    conn: ConnId,
    shared: &Shared,
) -> Result<(), End> {
    let cfg = &shared.config;
    let msg = match incoming {
        None => return Err(End::ClientClosed),
        Some(Err(e)) => return Err(unreadable(e)),
        Some(Ok(m)) => m,
    };
    let text = match msg {
        Message::Text(t) => t,
        Message::Binary(_) => {
            let _ = socket
                .send(err(
                    ErrorCode::Invalid,
                    "binary frames are not supported; send JSON text",
                ))
                .await;
            return Ok(());
        }
        Message::Ping(_) | Message::Pong(_) => return Ok(()),
        Message::Close(_) => return Err(End::ClientClosed),
    };
    shared.metrics.message_in();
    if limiter.check().is_err() {
        shared.metrics.error_sent(ErrorCode::RateLimited);
        let message = format!("more than {} messages per second", cfg.rate_limit_per_sec);
        let _ = socket
            .send(err(ErrorCode::RateLimited, message.clone()))
            .await;
        // A refused commit or AI command is also answered by its id, so its author knows which
        // one was dropped (LIM-5) and need not wait for an answer that never comes.
        let answer = match refused_id(&text) {
            Some(Refused::Commit(id)) => Some(ServerMsg::Rejected {
                id,
                error: protocol::ErrorBody::new(ErrorCode::RateLimited, message),
            }),
            Some(Refused::Ai(id)) => Some(crate::board::ai::rate_limited_result(&id, message)),
            None => None,
        };
        if let Some(answer) = answer {
            let _ = socket
                .send(Message::Text(Utf8Bytes::from(answer.to_json())))
                .await;
        }
        return Ok(());
    }
    if text.len() > cfg.max_frame_bytes {
        shared.metrics.error_sent(ErrorCode::TooLarge);
        let _ = socket
            .send(err(
                ErrorCode::TooLarge,
                format!(
                    "frame of {} bytes exceeds {}",
                    text.len(),
                    cfg.max_frame_bytes
                ),
            ))
            .await;
        return Ok(());
    }
    let req = match ClientMsg::decode(text.as_str()) {
        Err(e) => {
            shared.metrics.error_sent(e.code);
            let _ = socket.send(err(e.code, e.message)).await;
            return Ok(());
        }
        Ok(m) => match at_the_edge(m, cfg.max_ops_per_commit) {
            Ok(m) => m,
            Err(reply) => {
                if let Err(e) = socket
                    .send(Message::Text(Utf8Bytes::from(reply.to_json())))
                    .await
                {
                    return Err(End::SocketError(e.to_string()));
                }
                return Ok(());
            }
        },
    };
    if addr.is_remote() {
        // Another node owns the board: the message goes there as the client sent it.
        return addr
            .relay(conn, bytes::Bytes::from(text))
            .await
            .map_err(|_| End::BoardGone);
    }
    // Into the board's bounded mailbox without waiting for the handler: the common case
    // costs no reply channel and no wake-up of this task from the board's thread. With
    // the mailbox full, wait for room (back-pressure) rather than queue unboundedly.
    addr.send(conn, req).await.map_err(|_| End::BoardGone)
}

/// How a read error ends the connection (LIM-1, WIRE-5): a frame over the socket's hard size
/// limit gets `error too_large` and close 1009, a text frame that is not UTF-8 close 1007;
/// anything else is a broken socket.
fn unreadable(e: axum::Error) -> End {
    use tokio_tungstenite::tungstenite::Error as WsError;
    match e.into_inner().downcast::<WsError>() {
        Ok(e) => match *e {
            WsError::Capacity(_) => End::Unreadable {
                code: close::TOO_BIG,
                reason: "frame too large",
                error: Some(ErrorCode::TooLarge),
            },
            WsError::Utf8(_) => End::Unreadable {
                code: close::BAD_DATA,
                reason: "text frame is not UTF-8",
                error: None,
            },
            other => End::SocketError(other.to_string()),
        },
        Err(other) => End::SocketError(other.to_string()),
    }
}

/// Frames the rate limiter refused are decoded only up to this size to find a commit's id: a
/// commit is small, and a flood of large frames must not cost a full parse each.
const PEEK_LIMIT: usize = 64 * 1024;

/// A refused frame that expects an answer by its id.
enum Refused {
    Commit(String),
    Ai(String),
}

/// What a refused frame is, if it is a commit or an AI command (and small enough to look at).
fn refused_id(text: &str) -> Option<Refused> {
    if text.len() > PEEK_LIMIT {
        return None;
    }
    match ClientMsg::decode(text) {
        Ok(ClientMsg::Commit { id, .. }) => Some(Refused::Commit(id)),
        Ok(ClientMsg::Ai { id, .. }) => Some(Refused::Ai(id)),
        _ => None,
    }
}

/// Why a socket write was given up.
enum Stalled {
    TimedOut,
    /// The board evicted the connection as too slow while the write waited.
    Evicted,
}

/// Runs a socket write, giving up after `limit` or when the board evicts the connection as too
/// slow: a peer that stops reading must not pin its connection task or what its outbox holds.
/// Almost every write completes on its first poll (the kernel's send buffer has room), so the
/// timer, which costs a clock read and a shared runtime handle per write, and the eviction
/// watch are only armed for a write that has to wait.
async fn write_with_timeout<F: std::future::Future>(
    write: F,
    limit: Duration,
    kick: &Kick,
) -> Result<F::Output, Stalled> {
    use std::task::Poll;
    let mut write = std::pin::pin!(write);
    let first = std::future::poll_fn(|cx| Poll::Ready(write.as_mut().poll(cx))).await;
    match first {
        Poll::Ready(out) => Ok(out),
        Poll::Pending => tokio::select! {
            out = tokio::time::timeout(limit, write) => out.map_err(|_| Stalled::TimedOut),
            () = kick.evicted() => Err(Stalled::Evicted),
        },
    }
}

/// Whether a written batch held the board's heartbeat.
enum Beat {
    No,
    Yes,
}

/// Writes one frame and whatever else is already queued (up to a batch), with one flush. The
/// board's heartbeat marker becomes a ping. Returns whether a heartbeat was among them and the
/// bytes of the frames written.
async fn write_batch(
    socket: &mut WebSocket,
    first: Utf8Bytes,
    outbox: &mut mpsc::Receiver<Utf8Bytes>,
) -> Result<(Beat, usize), axum::Error> {
    use futures_util::SinkExt;
    let mut beat = Beat::No;
    let mut next = Some(first);
    let mut n = 0;
    let mut bytes = 0;
    while let Some(f) = next.take() {
        if is_heartbeat(&f) {
            beat = Beat::Yes;
            socket
                .feed(Message::Ping(bytes::Bytes::from_static(b"hb")))
                .await?;
        } else {
            bytes += f.len();
            socket.feed(Message::Text(f)).await?;
        }
        n += 1;
        if n <= 256 {
            next = outbox.try_recv().ok();
        }
    }
    socket.flush().await?;
    Ok((beat, bytes))
}

/// Checks a decoded client message at the edge (WIRE-4, LIM-2): what the connection answers
/// itself (`ping`, a second `hello`) and what breaks a limit become an immediate reply; the rest
/// goes to the board as it is.
// The error is a reply on its way to the socket, sent at once; boxing it buys nothing.
#[allow(clippy::result_large_err)]
fn at_the_edge(msg: ClientMsg, max_ops: usize) -> Result<ClientMsg, ServerMsg> {
    match &msg {
        ClientMsg::Hello { .. } => Err(ServerMsg::error(
            ErrorCode::Invalid,
            "already joined: hello comes once",
        )),
        ClientMsg::Ping { t } => Err(ServerMsg::Pong { t: t.clone() }),
        ClientMsg::Commit { id, ops } if ops.len() > max_ops => Err(ServerMsg::Rejected {
            id: id.clone(),
            error: protocol::ErrorBody::new(
                ErrorCode::TooLarge,
                format!("{} ops exceed the limit of {max_ops} per commit", ops.len()),
            ),
        }),
        ClientMsg::Ai {
            id,
            text,
            selection,
            ..
        } => {
            // Decoding refused ids over 128 characters already (WIRE-4).
            if id.is_empty() {
                return Err(ServerMsg::error(
                    ErrorCode::Invalid,
                    "an ai command needs an `id` of 1-128 characters",
                ));
            }
            if text.chars().count() > MAX_AI_TEXT {
                return Err(ServerMsg::error(
                    ErrorCode::TooLarge,
                    format!("an ai command's text is limited to {MAX_AI_TEXT} characters"),
                ));
            }
            if selection.as_ref().is_some_and(|s| s.len() > max_ops) {
                return Err(ServerMsg::error(
                    ErrorCode::TooLarge,
                    format!("a selection of more than {max_ops} objects"),
                ));
            }
            Ok(msg)
        }
        _ => Ok(msg),
    }
}

/// The socket's first frame as text (None when the socket closed); anything but a text frame of
/// at most `max` bytes is an error with a code.
async fn next_text(
    socket: &mut WebSocket,
    max: usize,
) -> Option<Result<String, (ErrorCode, String)>> {
    match socket.recv().await? {
        Ok(Message::Text(t)) if t.len() > max => {
            Some(Err((ErrorCode::TooLarge, "frame too large".into())))
        }
        Ok(Message::Text(t)) => Some(Ok(t.to_string())),
        Ok(Message::Binary(_)) => Some(Err((
            ErrorCode::Invalid,
            "binary frames are not supported".into(),
        ))),
        Ok(Message::Ping(_) | Message::Pong(_)) => Some(Err((
            ErrorCode::Invalid,
            "the first frame must be hello".into(),
        ))),
        Ok(Message::Close(_)) | Err(_) => None,
    }
}
