//! Upload and preview of a large JPEG (issue ASSET benchmarks): the real server in-process on
//! the durable SQLite store, real HTTP. Each round uploads a different ~10 MB JPEG (noise, so it
//! does not compress), then asks for its preview twice (made, then kept) and for the whole
//! picture once. Prints the time of each step per round and the process's peak RSS.
//!
//! Usage: cargo run --release -p server --example picture_bench -- [rounds] (default 5).
#![allow(clippy::unwrap_used)]

use image::{Rgb, RgbImage};
use server::Config;
use std::io::Cursor;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TOKEN: &str = "picture-bench-admin-token-0123456789abcdef";

/// A noisy `w` x `h` JPEG at quality 92; `seed` makes each round's bytes differ.
fn jpeg(w: u32, h: u32, seed: u32) -> Vec<u8> {
    let mut x: u32 = 0x9e37_79b9 ^ seed;
    let img = RgbImage::from_fn(w, h, |_, _| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let [a, b, c, _] = x.to_le_bytes();
        Rgb([a, b, c])
    });
    let mut out = Cursor::new(Vec::new());
    let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 92);
    img.write_with_encoder(enc).unwrap();
    out.into_inner()
}

/// One request on its own connection; the status and the body.
async fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let ctype = if body.starts_with(b"{") {
        "application/json"
    } else {
        "image/jpeg"
    };
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out[..out.len().min(12)]).to_string();
    let status = text.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body_at = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(0, |p| p + 4);
    (status, out.split_off(body_at))
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

#[tokio::main]
async fn main() {
    let rounds: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let dir = std::env::temp_dir().join(format!("picture-bench-{}", uuid::Uuid::new_v4()));
    let mut cfg = Config::for_tests(dir.clone());
    cfg.admin_token = Some(TOKEN.into());
    cfg.max_asset_bytes = 16 << 20;
    cfg.max_board_asset_bytes = 1 << 30;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = server::spawn(listener, cfg).await.unwrap();
    let addr = server.addr;
    let (status, made) = request(addr, "POST", "/api/boards", br#"{"title":"bench"}"#).await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&made));
    let made: serde_json::Value = serde_json::from_slice(&made).unwrap();
    let board = made["board"].as_str().unwrap().to_owned();
    let assets = format!("/api/boards/{board}/assets");
    // Noise JPEGs grow with their pixels: size the picture once to about 10 MB.
    let trial = jpeg(2000, 1500, 99).len() as f64;
    let k = (10e6 / trial).sqrt();
    let (w, h) = ((2000.0 * k) as u32, (1500.0 * k) as u32);
    println!("pictures of {w} x {h} px");
    println!("| round | JPEG | upload (201) | preview, made | preview, kept | whole picture |");
    println!("|---|---|---|---|---|---|");
    for r in 0..rounds {
        let bytes = jpeg(w, h, r);
        let t = Instant::now();
        let (status, answer) = request(addr, "POST", &assets, &bytes).await;
        let upload = t.elapsed();
        assert_eq!(status, 201, "upload: {}", String::from_utf8_lossy(&answer));
        let answer: serde_json::Value = serde_json::from_slice(&answer).unwrap();
        let sha = answer["sha256"].as_str().unwrap().to_owned();
        let path = format!("{assets}/{sha}");
        let timed = |p: String| async move {
            let t = Instant::now();
            let (status, body) = request(addr, "GET", &p, b"").await;
            assert_eq!(status, 200, "{p}");
            (t.elapsed(), body.len())
        };
        let (made, plen) = timed(format!("{path}?preview=1")).await;
        let (kept, _) = timed(format!("{path}?preview=1")).await;
        let (whole, wlen) = timed(path.clone()).await;
        println!(
            "| {r} | {:.1} MB | {} | {} ({} KB) | {} | {} ({:.1} MB) |",
            bytes.len() as f64 / 1e6,
            ms(upload),
            ms(made),
            plen / 1000,
            ms(kept),
            ms(whole),
            wlen as f64 / 1e6
        );
    }
    println!(
        "peak RSS of the process (server and client): {:.0} MiB",
        peak_rss_mib()
    );
    server.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}
