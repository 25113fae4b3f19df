//! One task per WebSocket: waits for `hello`, joins the board, then runs one loop over the socket
//! and the bounded outbox, polling only the one that woke it. The outbox also carries the board's
//! heartbeats and, by closing, shutdown. Cleanup (leave) runs after the loop.

use crate::board::ai::MAX_AI_TEXT;
use crate::board::clients::{CLOSE_GOING_AWAY, CLOSE_SLOW, SHUTDOWN_REASON, is_heartbeat};
use crate::board::expiry::CLOSE_UNAUTHORIZED;
use crate::board::{ConnId, Join, Kick};
use crate::shared::Shared;
use crate::woken::{Either, Woken};
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::StreamExt;
use governor::{Quota, RateLimiter};
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

/// Close codes.
const CLOSE_NORMAL: u16 = 1000;
const CLOSE_BAD_DATA: u16 = 1007;
pub(crate) const CLOSE_POLICY: u16 = 1008;
const CLOSE_TOO_BIG: u16 = 1009;
pub(crate) const CLOSE_TRY_AGAIN: u16 = 1013;

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

async fn run(
    mut socket: WebSocket,
    board: BoardId,
    cookie: Option<String>,
    peer: IpAddr,
    conn: ConnId,
    shared: &Arc<Shared>,
    span: &tracing::Span,
) {
    let cfg = &shared.config;
    // 1. hello.
    // Before it nothing else is read: the first frame must be a `hello` of at most
    // `HELLO_MAX_BYTES`, within `HELLO_TIMEOUT` (AUTH-15).
    let hello = match tokio::time::timeout(
        HELLO_TIMEOUT,
        next_text(&mut socket, cfg.max_frame_bytes.min(HELLO_MAX_BYTES)),
    )
    .await
    {
        Ok(Some(Ok(text))) => ClientMsg::decode(&text),
        Ok(Some(Err(e))) => {
            let _ = socket.send(err(e.0, e.1)).await;
            close(&mut socket, CLOSE_POLICY, "expected hello").await;
            return;
        }
        Ok(None) => return,
        Err(_) => {
            let _ = socket
                .send(err(ErrorCode::Invalid, "no hello within 5 s"))
                .await;
            close(&mut socket, CLOSE_POLICY, "no hello").await;
            return;
        }
    };
    let (mut user, since, token) = match hello {
        Ok(ClientMsg::Hello { user, since, token }) => (user, since, token),
        Ok(_) => {
            let _ = socket
                .send(err(ErrorCode::Invalid, "the first message must be hello"))
                .await;
            close(&mut socket, CLOSE_POLICY, "expected hello").await;
            return;
        }
        Err(e) => {
            let _ = socket.send(err(e.code, e.message)).await;
            close(&mut socket, CLOSE_POLICY, "bad hello").await;
            return;
        }
    };
    span.record("user", tracing::field::display(&user.id));

    // 2. who is it, and what may they do here (AUTH-4, AUTH-5)? Read before the credential is,
    // the sign-out count tells whether the join raced a sign-out (AUTH-19).
    let signouts = shared.auth.signouts();
    let guessed = token.as_deref().is_some_and(|t| !t.is_empty());
    let (access, title) =
        match crate::auth::hello::authorize(shared, &board, token, cookie, &mut user).await {
            Ok(a) => a,
            Err((code, message, close_code)) => {
                if guessed && code == ErrorCode::Unauthorized {
                    shared.auth.failures.failed(peer);
                }
                shared.metrics.error_sent(code);
                let _ = socket.send(err(code, message)).await;
                close(&mut socket, close_code, code.as_str()).await;
                return;
            }
        };

    // 3. join.
    let addr = match shared
        .registry
        .get(shared, &board)
        .instrument(span.clone())
        .await
    {
        Ok(a) => a,
        Err(e) => {
            let message = span.in_scope(|| {
                crate::errors::public("the board could not be loaded; try again shortly", &e)
            });
            let _ = socket.send(err(ErrorCode::StoreUnavailable, message)).await;
            close(&mut socket, CLOSE_TRY_AGAIN, "store unavailable").await;
            return;
        }
    };
    let (tx, mut outbox) = mpsc::channel::<Utf8Bytes>(cfg.outbox_capacity);
    let kick = Arc::new(Kick::default());
    let session = access.session.clone();
    let joined = addr
        .join(Join {
            conn,
            user: user.clone(),
            since,
            tx,
            kick: kick.clone(),
            access,
            title,
        })
        .await;
    match joined {
        Ok(Ok(_))
            if shared
                .auth
                .signed_out_since(session.as_deref(), signouts)
                .await =>
        {
            // Signed out while joining: the board heard of it before the join arrived.
            addr.leave(conn);
            let _ = socket
                .send(err(ErrorCode::Unauthorized, "signed out"))
                .await;
            close(&mut socket, CLOSE_UNAUTHORIZED, "signed out").await;
            return;
        }
        Ok(Ok(_)) => {}
        Ok(Err(e)) => {
            let _ = socket.send(err(e.code, e.message)).await;
            close(&mut socket, CLOSE_TRY_AGAIN, e.code.as_str()).await;
            return;
        }
        Err(_) => {
            let _ = socket
                .send(err(ErrorCode::Internal, "board unavailable; retry"))
                .await;
            close(&mut socket, CLOSE_TRY_AGAIN, "board unavailable").await;
            return;
        }
    }

    // 3. the loop.
    let limiter = RateLimiter::direct(
        Quota::per_second(
            NonZeroU32::new(cfg.rate_limit_per_sec.max(1)).unwrap_or(NonZeroU32::MIN),
        )
        .allow_burst(NonZeroU32::new(cfg.rate_burst.max(1)).unwrap_or(NonZeroU32::MIN)),
    );
    // Heartbeats and shutdown reach the loop through the outbox, not as sources of their own: a
    // timer or a signal polled on every wake-up costs a poll per frame in or out. The board
    // queues an empty frame every `--heartbeat-secs` (`clients::HEARTBEAT`), and on shutdown it
    // closes the outbox with 1001. The flag covers a join that raced the shutdown: the board
    // had already said goodbye.
    let mut last_seen = Instant::now();
    // Bytes written and not yet subtracted from the outbox's count: reported in steps of a
    // sixteenth of `--outbox-bytes` (at most 64 KiB), so the count's cache line is not pulled
    // back and forth between the board's thread and this one for every frame. The board may
    // overestimate a connection's outbox by up to one step, never underestimate it.
    let report_every = (cfg.outbox_bytes / 16).min(64 * 1024);
    let mut unreported = 0;
    let end = if *shared.shutdown.borrow() {
        End::Shutdown
    } else {
        // Each wake-up polls only the source that woke the task (`woken`): an outbox frame does
        // not run the socket's read path, and the reverse.
        let mut sources = Woken::default();
        loop {
            let next = std::future::poll_fn(|cx| {
                sources.poll(cx, |c| outbox.poll_recv(c), |c| socket.poll_next_unpin(c))
            });
            match next.await {
                Either::A(out) => match out {
                    Some(f) => match write_with_timeout(
                        write_batch(&mut socket, f, &mut outbox),
                        cfg.idle_timeout(),
                        &kick,
                    )
                    .await
                    {
                        Ok(Ok((beat, bytes))) => {
                            unreported += bytes;
                            if unreported >= report_every {
                                kick.written(unreported);
                                unreported = 0;
                            }
                            if matches!(beat, Beat::Yes)
                                && last_seen.elapsed() >= cfg.idle_timeout()
                            {
                                break End::IdleTimeout;
                            }
                        }
                        Ok(Err(e)) => break End::SocketError(e.to_string()),
                        Err(Stalled::TimedOut) => {
                            break End::SocketError("write timed out".into());
                        }
                        Err(Stalled::Evicted) => match kick.get() {
                            Some((code, reason)) => break End::Kicked(*code, reason.clone()),
                            None => break End::BoardGone,
                        },
                    },
                    None => {
                        break match kick.get() {
                            Some((code, reason)) => End::Kicked(*code, reason.clone()),
                            None => End::BoardGone,
                        };
                    }
                },
                Either::B(incoming) => {
                    last_seen = Instant::now();
                    if let Err(end) =
                        on_incoming(&mut socket, incoming, &limiter, &addr, conn, shared).await
                    {
                        break end;
                    }
                }
            }
        }
    };
    // 4. cleanup, whatever ended the loop.
    addr.leave(conn);
    span.in_scope(|| {
        if let End::SocketError(e) = &end {
            tracing::debug!(error = %e, "socket error");
        }
        tracing::debug!(?end, "connection ended");
    });
    match end {
        End::Kicked(CLOSE_SLOW, reason) => {
            // Too slow: what the board queued is dropped at once (the client resumes with
            // `since`), and the close frame is all that is still offered to the peer, for as
            // long as a write may wait: a slow reader still gets its reason once it has read
            // what the socket holds, and all it pins meanwhile is the socket's buffers.
            drop(outbox);
            close_within(&mut socket, CLOSE_SLOW, &reason, cfg.idle_timeout()).await;
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
            close(&mut socket, code, &reason).await;
        }
        End::Shutdown => close(&mut socket, CLOSE_GOING_AWAY, SHUTDOWN_REASON).await,
        End::IdleTimeout => close(&mut socket, CLOSE_POLICY, "idle timeout").await,
        End::BoardGone => close(&mut socket, CLOSE_TRY_AGAIN, "board closed; reconnect").await,
        End::ClientClosed => close(&mut socket, CLOSE_NORMAL, "bye").await,
        End::Unreadable {
            code,
            reason,
            error,
        } => {
            if let Some(e) = error {
                shared.metrics.error_sent(e);
                let _ = socket.send(err(e, reason)).await;
            }
            close(&mut socket, code, reason).await;
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
                code: CLOSE_TOO_BIG,
                reason: "frame too large",
                error: Some(ErrorCode::TooLarge),
            },
            WsError::Utf8(_) => End::Unreadable {
                code: CLOSE_BAD_DATA,
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
