//! Slow readers (`--slow-readers N`): N extra clients per board that join and then never read,
//! over sockets with a small receive buffer, and the server's RSS while they are there and
//! after they are gone (sampled every 100 ms from /proc).

use crate::client::ws_config;
use crate::procfs;
use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tokio::time::{Instant, sleep, sleep_until, timeout};
use tokio_tungstenite::MaybeTlsStream;
use tokio_tungstenite::tungstenite::Message;

/// A slow reader's socket receive buffer, bytes (the kernel doubles it and keeps a minimum).
const RCVBUF: u32 = 4096;

/// How long a slow reader, once it starts reading at the end, waits for the server's close.
const READ_OUT: Duration = Duration::from_secs(10);

/// What the report says about the slow readers and the server's memory.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SlowReport {
    pub per_board: usize,
    pub joined: u64,
    pub connect_failures: u64,
    /// How each one ended, by the close code the server sent (`reset`, `eof`, `open` when it
    /// got none within 10 s of reading).
    pub endings: BTreeMap<String, u64>,
    /// Server RSS before any client joined, the highest seen during the run, and the last one,
    /// `settle_s` seconds after every slow reader was gone.
    pub server_rss_before_kb: Option<u64>,
    pub server_rss_peak_kb: Option<u64>,
    pub server_rss_final_kb: Option<u64>,
    pub settle_s: f64,
    /// Seconds from the slow readers' join until the server had evicted the first of them and
    /// all of them (its `board_outbox_evictions_total`, read every 100 ms; None: not seen).
    pub evicted_first_s: Option<f64>,
    pub evicted_all_s: Option<f64>,
    /// Seconds from the join until the server had closed all their sockets (its
    /// `board_ws_connections` back down by their number from its highest).
    pub closed_all_s: Option<f64>,
}

impl SlowReport {
    /// The report's line in the run's summary.
    pub fn line(&self) -> String {
        let kb = |v: Option<u64>| v.map_or("-".to_owned(), |v| v.to_string());
        let s = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.1}"));
        format!(
            "slow readers: {} per board, {} joined ({} failed), ended {:?}, evicted after {} s \
             (first) / {} s (all), sockets closed after {} s | server RSS before {} kB, peak {} \
             kB, {:.0} s after they left {} kB",
            self.per_board,
            self.joined,
            self.connect_failures,
            self.endings,
            s(self.evicted_first_s),
            s(self.evicted_all_s),
            s(self.closed_all_s),
            kb(self.server_rss_before_kb),
            kb(self.server_rss_peak_kb),
            self.settle_s,
            kb(self.server_rss_final_kb)
        )
    }
}

/// When the server evicted the first and all slow readers, and closed all their sockets.
#[derive(Debug, Clone, Copy, Default)]
pub struct Evictions {
    pub first_s: Option<f64>,
    pub all_s: Option<f64>,
    pub closed_s: Option<f64>,
}

/// Watches the server's count of evicted connections and of open sockets from `from` on
/// (`GET /metrics`, with the admin token when given), until `expected` were evicted and closed,
/// or `until`.
pub fn watch_evictions(
    url: &str,
    admin: Option<String>,
    expected: u64,
    from: Instant,
    until: Instant,
) -> tokio::task::JoinHandle<Evictions> {
    let host = url
        .trim_start_matches("ws://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    tokio::spawn(async move {
        sleep_until(from).await;
        let Some((base, _)) = counts(&host, admin.as_deref()).await else {
            return Evictions::default();
        };
        let (mut out, mut most) = (Evictions::default(), 0);
        while Instant::now() < until {
            let (n, open) = counts(&host, admin.as_deref())
                .await
                .unwrap_or((base, most));
            let (n, at) = (n - base, from.elapsed().as_secs_f64());
            most = most.max(open);
            if n > 0 && out.first_s.is_none() {
                out.first_s = Some(at);
            }
            if n >= expected && out.all_s.is_none() {
                out.all_s = Some(at);
            }
            if out.all_s.is_some() && open + expected <= most {
                out.closed_s = Some(at);
                break;
            }
            sleep(Duration::from_millis(100)).await;
        }
        out
    })
}

/// The server's `board_outbox_evictions_total` and `board_ws_connections` now.
async fn counts(host: &str, admin: Option<&str>) -> Option<(u64, u64)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let auth = admin.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let req = format!("GET /metrics HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{auth}\r\n");
    let exchange = async {
        let mut sock = tokio::net::TcpStream::connect(host).await.ok()?;
        sock.write_all(req.as_bytes()).await.ok()?;
        let mut out = Vec::new();
        sock.read_to_end(&mut out).await.ok()?;
        Some(String::from_utf8_lossy(&out).into_owned())
    };
    let text = timeout(Duration::from_secs(2), exchange).await.ok()??;
    let metric = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .map_or(Some(0.0), |v| v.trim().parse::<f64>().ok())
            .map(|v| v as u64)
    };
    Some((
        metric("board_outbox_evictions_total ")?,
        metric("board_ws_connections ")?,
    ))
}

/// The server's RSS sampled every 100 ms until stopped: returns the highest.
pub struct PeakSampler {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl PeakSampler {
    pub fn start(pid: u32) -> PeakSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(0));
        let (s, p) = (stop.clone(), peak.clone());
        let task = tokio::spawn(async move {
            while !s.load(Ordering::Relaxed) {
                if let Some(x) = procfs::sample(Some(pid)) {
                    p.fetch_max(x.rss_kb, Ordering::Relaxed);
                }
                sleep(Duration::from_millis(100)).await;
            }
        });
        PeakSampler { stop, peak, task }
    }

    pub async fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.task.await;
        self.peak.load(Ordering::Relaxed)
    }
}

/// One slow reader's end.
enum Ending {
    ConnectFailed,
    Ended(String),
}

/// Joins `board` as `user`, then reads nothing until `hold_until`; then reads (and drops)
/// whatever is buffered until the server's close frame, and reports its code.
async fn slow_reader(url: String, board: String, user: String, hold_until: Instant) -> Ending {
    let ws_url = format!("{url}/ws/boards/{board}");
    let connect = async {
        let host = url.trim_start_matches("ws://");
        let host = host.split('/').next().unwrap_or_default();
        let addr = tokio::net::lookup_host(host).await.ok()?.next()?;
        let sock = if addr.is_ipv4() {
            tokio::net::TcpSocket::new_v4()
        } else {
            tokio::net::TcpSocket::new_v6()
        }
        .ok()?;
        sock.set_recv_buffer_size(RCVBUF).ok()?;
        let stream = sock.connect(addr).await.ok()?;
        let (mut ws, _) = tokio_tungstenite::client_async_with_config(
            ws_url,
            MaybeTlsStream::Plain(stream),
            Some(ws_config()),
        )
        .await
        .ok()?;
        ws.send(Message::text(crate::wire::hello(&user, &user, None)))
            .await
            .ok()?;
        Some(ws)
    };
    let Ok(Some(mut ws)) = timeout(Duration::from_secs(10), connect).await else {
        return Ending::ConnectFailed;
    };
    sleep_until(hold_until).await;
    let read_out = async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Close(Some(f)))) => return u16::from(f.code).to_string(),
                Some(Ok(Message::Close(None))) => return "close".to_owned(),
                Some(Ok(_)) => {}
                Some(Err(_)) => return "reset".to_owned(),
                None => return "eof".to_owned(),
            }
        }
    };
    Ending::Ended(
        timeout(READ_OUT, read_out)
            .await
            .unwrap_or_else(|_| "open".to_owned()),
    )
}

/// Starts `per_board` slow readers on each board at `join_at`; they hold until `hold_until`.
pub fn spawn(
    url: &str,
    boards: &[String],
    per_board: usize,
    join_at: Instant,
    hold_until: Instant,
) -> Vec<tokio::task::JoinHandle<(String, bool)>> {
    let mut handles = Vec::new();
    for (b, board) in boards.iter().enumerate() {
        for k in 0..per_board {
            let (url, board) = (url.to_owned(), board.clone());
            let user = format!("lt-slow-b{b}-{k}");
            handles.push(tokio::spawn(async move {
                sleep_until(join_at).await;
                match slow_reader(url, board, user, hold_until).await {
                    Ending::ConnectFailed => ("connect_failed".to_owned(), false),
                    Ending::Ended(e) => (e, true),
                }
            }));
        }
    }
    handles
}

/// Waits for the slow readers and sums up how they ended.
pub async fn collect(
    handles: Vec<tokio::task::JoinHandle<(String, bool)>>,
    per_board: usize,
) -> SlowReport {
    let mut r = SlowReport {
        per_board,
        ..SlowReport::default()
    };
    for h in handles {
        match h.await {
            Ok((ending, true)) => {
                r.joined += 1;
                *r.endings.entry(ending).or_default() += 1;
            }
            Ok((_, false)) | Err(_) => r.connect_failures += 1,
        }
    }
    r
}

/// The slow readers of a run and what watches the server meanwhile: its peak RSS (with
/// `--server-pid`) and when it evicted them and closed their sockets.
pub struct Watch {
    readers: Vec<tokio::task::JoinHandle<(String, bool)>>,
    evictions: tokio::task::JoinHandle<Evictions>,
    peak: Option<PeakSampler>,
}

impl Watch {
    /// Starts `cfg.slow_readers` slow readers on each board at `join_at`, holding until
    /// `hold_until`, and the watches.
    pub fn start(
        cfg: &crate::cli::RunConfig,
        boards: &[String],
        join_at: Instant,
        hold_until: Instant,
    ) -> Watch {
        let peak = cfg.server_pid.map(PeakSampler::start);
        let readers = spawn(&cfg.url, boards, cfg.slow_readers, join_at, hold_until);
        let expected = (cfg.slow_readers * boards.len()) as u64;
        let admin = cfg.admin_token.clone();
        let evictions = watch_evictions(&cfg.url, admin, expected, join_at, hold_until);
        Watch {
            readers,
            evictions,
            peak,
        }
    }

    /// Waits for the slow readers and sums up the run: how they ended, when they were evicted
    /// and closed, and the server's RSS before, at its peak and a few seconds after they left.
    pub async fn finish(
        self,
        cfg: &crate::cli::RunConfig,
        server_before: Option<&procfs::ProcSample>,
    ) -> SlowReport {
        let mut r = collect(self.readers, cfg.slow_readers).await;
        if let Ok(e) = self.evictions.await {
            (r.evicted_first_s, r.evicted_all_s, r.closed_all_s) = (e.first_s, e.all_s, e.closed_s);
        }
        if let (Some(peak), Some(pid)) = (self.peak, cfg.server_pid) {
            // Every slow reader's socket is closed now; give the server a moment to let go.
            r.settle_s = 3.0;
            sleep(Duration::from_secs(3)).await;
            r.server_rss_final_kb = procfs::sample(Some(pid)).map(|s| s.rss_kb);
            r.server_rss_peak_kb = Some(peak.finish().await);
            r.server_rss_before_kb = server_before.map(|s| s.rss_kb);
        }
        r
    }
}
