//! Connection liveness over real WebSockets against the real server on port 0: heartbeats, the
//! idle timeout and graceful shutdown (docs/SPEC.md LIVE-2, LIVE-3).
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use futures_util::StreamExt;
use serde_json::json;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

#[tokio::test]
async fn live_2_dead_sockets_are_dropped() {
    let mut cfg = config();
    cfg.idle_timeout_secs = 1;
    cfg.heartbeat_secs = 1;
    let s = start(cfg).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    // Not reading means not answering pings: the server gives up.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let c = a.until_type("__close").await;
    assert_eq!(c["reason"], "idle timeout");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn live_2_pings_keep_a_silent_reader_connected() {
    let mut cfg = config();
    cfg.idle_timeout_secs = 2;
    cfg.heartbeat_secs = 1;
    let s = start(cfg).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    // Reading answers each ping with a pong (tungstenite does), and a pong is a frame: the
    // silent client outlives the idle timeout twice over.
    let mut pings = 0;
    let until = tokio::time::Instant::now() + Duration::from_millis(4500);
    while let Ok(m) = tokio::time::timeout_at(until, a.ws.next()).await {
        match m.expect("socket open").expect("no socket error") {
            Message::Ping(_) => pings += 1,
            Message::Close(f) => panic!("closed: {f:?}"),
            _ => {}
        }
    }
    assert!(pings >= 3, "one ping per heartbeat, got {pings} in 4.5 s");
    let applied = a.commit("c1", json!([note("n1", 0.0, 0.0)])).await;
    assert_eq!(applied["type"], "applied");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn live_3_graceful_shutdown_closes_with_a_reason() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    a.commit("c1", json!([note("n1", 0.0, 0.0)])).await;
    let stopper = tokio::spawn(s.shutdown());
    let c = a.until_type("__close").await;
    assert_eq!(c["code"], 1001);
    stopper.await.unwrap().unwrap();
}
