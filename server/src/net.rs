//! The listener's guards (NET-n in docs/SPEC.md): the open-file limit and a reserve of it for
//! `/healthz` and `/metrics`, per-address caps on concurrent connections and on the rate of new
//! ones, HTTP/1 serving through hyper with a header read timeout, and the client address behind
//! trusted proxies (NET-10).

use crate::config::{Cidr, Config};
use axum::Router;
use axum::http::{Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use dashmap::DashMap;
use governor::{Quota, RateLimiter};
use hyper_util::rt::{TokioIo, TokioTimer};
use protocol::ErrorCode;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// Raises the soft open-file limit to the hard one; returns the limit now in force.
pub fn raise_fd_limit() -> io::Result<u64> {
    rlimit::increase_nofile_limit(u64::MAX)
}

/// The soft open-file limit (None where it cannot be read).
fn fd_limit() -> Option<u64> {
    rlimit::getrlimit(rlimit::Resource::NOFILE)
        .ok()
        .map(|(soft, _)| soft)
}

/// Descriptors the process needs besides sockets (store files, the listener, stdio, the
/// runtime's own): subtracted from the open-file limit before the reserve (NET-2).
const OTHER_FILES: usize = 64;

/// Open connections, the per-address counts and rate limiter, and the thresholds they are held to.
pub struct Net {
    open: AtomicUsize,
    /// New WebSocket upgrades are refused (503) from this many open connections on (NET-2).
    upgrade_limit: usize,
    per_ip: DashMap<IpAddr, usize>,
    max_per_ip: usize,
    rate: Option<governor::DefaultKeyedRateLimiter<IpAddr>>,
    accepted: AtomicUsize,
    /// `--socket-send-buffer` (0: the kernel's own).
    send_buffer: usize,
    /// `--trusted-proxies`: peers whose `X-Forwarded-For` is believed (NET-10).
    trusted: Vec<Cidr>,
}

/// The client's address (NET-10): the peer, unless the peer is a trusted proxy; then the
/// right-most `X-Forwarded-For` address that is not itself a trusted proxy (every header line,
/// in order). An entry that is not an IP address ends the walk, and the peer is used, as when
/// there is no header or every entry is trusted. The port is the peer's when the peer is used,
/// else 0 (unknown).
pub fn client_addr<'a>(
    peer: SocketAddr,
    forwarded_for: impl Iterator<Item = &'a axum::http::HeaderValue>,
    trusted: &[Cidr],
) -> SocketAddr {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|c| c.contains(ip));
    if trusted.is_empty() || !is_trusted(peer.ip()) {
        return peer;
    }
    let lines: Vec<&str> = forwarded_for.filter_map(|v| v.to_str().ok()).collect();
    for entry in lines.iter().rev().flat_map(|l| l.rsplit(',')) {
        let Ok(ip) = entry.trim().parse::<IpAddr>() else {
            return peer;
        };
        if !is_trusted(ip) {
            return SocketAddr::new(ip.to_canonical(), 0);
        }
    }
    peer
}

/// Bounds a socket's kernel send buffer (LIM-7): what a peer that stops reading leaves in the
/// kernel is not in its outbox's count, so with the kernel's autotuning (up to several MB) such a
/// peer would take that much more before its outbox's byte bound evicts it. Bounded, the outbox
/// fills and the board evicts it within seconds.
fn bound_send_buffer(tcp: &TcpStream, bytes: usize) {
    if bytes == 0 {
        return;
    }
    if let Err(e) = rustix::net::sockopt::set_socket_send_buffer_size(tcp, bytes) {
        tracing::warn!(error = %e, "could not bound the socket's send buffer");
    }
}

impl Net {
    pub fn new(config: &Config) -> Arc<Net> {
        let files = fd_limit().map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        let upgrade_limit = files
            .saturating_sub(OTHER_FILES)
            .saturating_sub(config.fd_reserve)
            .max(1);
        tracing::info!(
            open_files = files,
            reserve = config.fd_reserve,
            upgrade_limit,
            "connection limits"
        );
        let rate = NonZeroU32::new(config.conn_rate_per_ip).map(|per_sec| {
            let burst = NonZeroU32::new(config.conn_burst_per_ip.max(config.conn_rate_per_ip))
                .unwrap_or(per_sec);
            RateLimiter::keyed(Quota::per_second(per_sec).allow_burst(burst))
        });
        Arc::new(Net {
            open: AtomicUsize::new(0),
            upgrade_limit,
            per_ip: DashMap::new(),
            max_per_ip: config.max_conns_per_ip,
            rate,
            accepted: AtomicUsize::new(0),
            send_buffer: config.socket_send_buffer,
            trusted: config.trusted_proxies.clone(),
        })
    }

    /// Connections open now (HTTP and WebSocket).
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// Whether a new WebSocket may be opened: the last `--fd-reserve` descriptors are kept for
    /// plain HTTP requests (NET-2).
    pub fn upgrades_allowed(&self) -> bool {
        self.open() < self.upgrade_limit
    }

    /// Counts a new connection from `ip`; the guard uncounts it when dropped. `Err` carries
    /// the guard too (the refused connection is still open while it is answered 429) and why.
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Guard, (Guard, &'static str)> {
        self.open.fetch_add(1, Ordering::Relaxed);
        let n = if self.max_per_ip > 0 {
            let mut e = self.per_ip.entry(ip).or_insert(0);
            *e += 1;
            *e
        } else {
            0
        };
        let guard = Guard {
            net: self.clone(),
            ip,
        };
        if let Some(rate) = &self.rate {
            // The keyed store keeps a cell per address seen; forget the idle ones now and then.
            if self.accepted.fetch_add(1, Ordering::Relaxed) % 4096 == 4095 {
                rate.retain_recent();
                rate.shrink_to_fit();
            }
            if rate.check_key(&ip).is_err() {
                return Err((guard, "too many new connections from this address"));
            }
        }
        if self.max_per_ip > 0 && n > self.max_per_ip {
            return Err((guard, "too many connections from this address"));
        }
        Ok(guard)
    }
}

/// One counted connection.
struct Guard {
    net: Arc<Net>,
    ip: IpAddr,
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.net.open.fetch_sub(1, Ordering::Relaxed);
        if self.net.max_per_ip > 0 {
            self.net.per_ip.remove_if_mut(&self.ip, |_, n| {
                *n = n.saturating_sub(1);
                *n == 0
            });
        }
    }
}

/// A socket that carries its [`Guard`]: it stays counted for as long as it is open, through a
/// WebSocket upgrade (where hyper hands the socket to the WebSocket and its own task ends).
struct Counted {
    tcp: TcpStream,
    _guard: Guard,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

/// Whether an accept error concerns only the one connection (the next accept may succeed at
/// once); otherwise (out of descriptors, out of memory) the loop pauses before trying again.
fn per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// The answer to every request of a connection over its address's caps (NET-3).
fn too_many(reason: &'static str) -> Response {
    // The listener sits below the routes: this answer is built here, in the shape of every
    // JSON error (`{"error": {"code", "message"}}`).
    let body = serde_json::json!({"error": {"code": ErrorCode::RateLimited, "message": reason}});
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::CONNECTION, "close")],
        axum::Json(body),
    )
        .into_response()
}

/// Accepts connections until `stop` turns true and serves each over HTTP/1 (with upgrades)
/// with a header read timeout (NET-4); then lets open HTTP connections finish (idle ones are
/// closed) for at most `grace`.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    net: Arc<Net>,
    header_timeout: Duration,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> io::Result<()> {
    // Every connection task holds a clone; when the last is gone, `recv` returns.
    let (alive, mut all_done) = tokio::sync::mpsc::channel::<()>(1);
    let mut pause_logged = false;
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = stop.wait_for(|s| *s) => break,
        };
        let (tcp, peer): (TcpStream, SocketAddr) = match accepted {
            Ok(a) => {
                pause_logged = false;
                a
            }
            Err(e) if per_connection(&e) => continue,
            Err(e) => {
                if !pause_logged {
                    tracing::warn!(error = %e, open = net.open(), "accept failed; pausing");
                    pause_logged = true;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Small frames must not wait for Nagle's algorithm: fan-out latency depends on it.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::warn!(error = %e, "could not set TCP_NODELAY");
        }
        bound_send_buffer(&tcp, net.send_buffer);
        let (guard, refused) = match net.admit(peer.ip()) {
            Ok(g) => (g, None),
            Err((g, why)) => (g, Some(why)),
        };
        let io = TokioIo::new(Counted { tcp, _guard: guard });
        let app = app.clone();
        let net_conn = net.clone();
        let service = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
            let app = app.clone();
            let net_req = net_conn.clone();
            async move {
                match refused {
                    Some(why) => Ok::<_, std::convert::Infallible>(too_many(why)),
                    None => {
                        // The client's address, for handlers that limit per address: behind a
                        // trusted proxy, the one it forwarded (NET-10).
                        let mut req = req;
                        let client = client_addr(
                            peer,
                            req.headers().get_all("x-forwarded-for").iter(),
                            &net_req.trusted,
                        );
                        req.extensions_mut()
                            .insert(axum::extract::ConnectInfo(client));
                        // A `Router` is always ready: no `poll_ready` is needed before `call`.
                        use tower_service::Service;
                        let mut app = app;
                        app.call(req).await
                    }
                }
            }
        });
        let mut stop = stop.clone();
        let alive = alive.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .keep_alive(refused.is_none());
            let conn = builder.serve_connection(io, service).with_upgrades();
            let mut conn = std::pin::pin!(conn);
            let ended = tokio::select! {
                r = conn.as_mut() => Some(r),
                _ = stop.wait_for(|s| *s) => None,
            };
            let ended = match ended {
                Some(r) => r,
                None => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(e) = ended {
                tracing::debug!(error = %e, "http connection ended with an error");
            }
            drop(alive);
        });
    }
    drop(alive);
    let _ = all_done.recv().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_cidrs;
    use axum::http::HeaderValue;

    fn cidrs(s: &[&str]) -> Vec<Cidr> {
        s.iter().map(|c| c.parse().unwrap()).collect()
    }

    #[test]
    fn cidrs_parse_and_match() {
        let c: Cidr = "10.1.0.0/16".parse().unwrap();
        assert!(c.contains("10.1.200.3".parse().unwrap()));
        assert!(!c.contains("10.2.0.1".parse().unwrap()));
        assert!(c.contains("::ffff:10.1.0.9".parse().unwrap()));
        let one: Cidr = "127.0.0.1".parse().unwrap();
        assert!(one.contains("127.0.0.1".parse().unwrap()));
        assert!(!one.contains("127.0.0.2".parse().unwrap()));
        let all: Cidr = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains("8.8.8.8".parse().unwrap()));
        assert!(!all.contains("::1".parse().unwrap()));
        let v6: Cidr = "fd00::/8".parse().unwrap();
        assert!(v6.contains("fd12::1".parse().unwrap()));
        assert!(!v6.contains("fe80::1".parse().unwrap()));
        for bad in ["", "10.0.0.0/33", "nope", "10.0.0.0/", "::/129"] {
            assert!(bad.parse::<Cidr>().is_err(), "{bad}");
        }
        assert_eq!(parse_cidrs(""), Ok(Vec::new()));
        assert_eq!(
            parse_cidrs("10.0.0.0/8, 127.0.0.1,").unwrap(),
            cidrs(&["10.0.0.0/8", "127.0.0.1"])
        );
        assert!(parse_cidrs("10.0.0.0/8,nope").is_err());
    }

    #[test]
    fn client_is_the_right_most_untrusted_forwarded_address() {
        let peer: SocketAddr = "10.0.0.5:4000".parse().unwrap();
        let h = |v: &'static str| HeaderValue::from_static(v);
        let trusted = cidrs(&["10.0.0.0/24"]);
        let ip = |a: SocketAddr| a.ip().to_string();
        // Nothing trusted: the header is ignored.
        let v = [h("1.2.3.4")];
        assert_eq!(client_addr(peer, v.iter(), &[]), peer);
        // A trusted peer: the right-most address that is not a proxy.
        let v = [h("9.9.9.9, 1.2.3.4, 10.0.0.7")];
        assert_eq!(ip(client_addr(peer, v.iter(), &trusted)), "1.2.3.4");
        // Several header lines read as one list.
        let v = [h("9.9.9.9"), h("5.6.7.8 , 10.0.0.9")];
        assert_eq!(ip(client_addr(peer, v.iter(), &trusted)), "5.6.7.8");
        // No header, only proxies, or garbage: the peer.
        assert_eq!(client_addr(peer, [].iter(), &trusted), peer);
        let v = [h("10.0.0.1, 10.0.0.2")];
        assert_eq!(client_addr(peer, v.iter(), &trusted), peer);
        let v = [h("1.2.3.4, unknown")];
        assert_eq!(client_addr(peer, v.iter(), &trusted), peer);
        // An untrusted peer's header is never read.
        let outsider: SocketAddr = "7.7.7.7:1".parse().unwrap();
        let v = [h("1.2.3.4")];
        assert_eq!(client_addr(outsider, v.iter(), &trusted), outsider);
    }
}
