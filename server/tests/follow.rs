//! Following a colleague, bringing everyone along, presenting (docs/SPEC.md FOLLOW-n): session
//! state carried by presence and two messages, never durable. The real server in-process on
//! port 0, real WebSockets, tokens minted as an app gets them.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use serde_json::{Value, json};
use std::time::Duration;

fn view(x: f64) -> Value {
    json!({"x": x, "y": 0, "w": 800, "h": 600})
}

/// FOLLOW-1: `presence.following` names the leader and reaches the others (the leader sees who
/// follows them); `null` stops; following oneself or someone not on the board is `invalid`,
/// and a viewer may follow.
#[tokio::test]
async fn follow_1_following_is_presence() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "lead", "ann").await;
    let mut vic = Client::join_as(s.addr, "lead", "vic", "viewer").await;
    ann.until(|m| m["type"] == "joined" && m["user"]["id"] == "vic")
        .await;
    vic.send(json!({"type":"presence","following":"ann"})).await;
    let p = ann
        .until(|m| m["type"] == "presence" && m["user"]["id"] == "vic")
        .await;
    assert_eq!(p["following"], "ann", "{p}");
    vic.send(json!({"type":"presence","following":null})).await;
    let p = ann
        .until(|m| m["type"] == "presence" && m["user"]["id"] == "vic")
        .await;
    assert!(p.get("following").is_none(), "{p}");
    for who in ["vic", "nobody"] {
        vic.send(json!({"type":"presence","following":who})).await;
        let e = vic.until_type("error").await;
        assert_eq!(e["code"], "invalid", "{who}: {e}");
    }
    s.shutdown().await.unwrap();
}

/// FOLLOW-2: someone following a user who leaves (past the reconnect grace) follows nobody.
#[tokio::test]
async fn follow_2_the_leader_leaving_ends_following() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "gone", "ann").await;
    let mut bob = Client::join(s.addr, "gone", "bob").await;
    let carl = Client::join(s.addr, "gone", "carl").await;
    bob.send(json!({"type":"presence","following":"carl"}))
        .await;
    let p = ann
        .until(|m| m["type"] == "presence" && m["user"]["id"] == "bob")
        .await;
    assert_eq!(p["following"], "carl");
    drop(carl);
    ann.until(|m| m["type"] == "left" && m["user"]["id"] == "carl")
        .await;
    let p = ann
        .until(|m| m["type"] == "presence" && m["user"]["id"] == "bob")
        .await;
    assert!(p.get("following").is_none(), "{p}");
    drop(bob);
    s.shutdown().await.unwrap();
}

/// FOLLOW-3: an editor's `summon` sends `summoned {by, viewport}` (their presence's viewport)
/// to everyone else and not to themselves; a second summon within 5 s is `rate_limited`;
/// viewers and commenters may not summon (`forbidden`, connection kept).
#[tokio::test]
async fn follow_3_summon_brings_everyone_else() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "summon", "ann").await;
    let mut bob = Client::join(s.addr, "summon", "bob").await;
    let mut vic = Client::join_as(s.addr, "summon", "vic", "viewer").await;
    let mut cam = Client::join_as(s.addr, "summon", "cam", "commenter").await;
    ann.send(json!({"type":"presence","viewport": view(1200.0)}))
        .await;
    ann.send(json!({"type":"summon"})).await;
    for c in [&mut bob, &mut vic, &mut cam] {
        let m = c.until_type("summoned").await;
        assert_eq!(
            (&m["by"], &m["viewport"]["x"]),
            (&json!("ann"), &json!(1200.0)),
            "{m}"
        );
    }
    ann.send(json!({"type":"summon"})).await;
    let e = ann.until_type("error").await;
    assert_eq!(e["code"], "rate_limited", "{e}");
    let quiet = ann
        .try_until(Duration::from_millis(300), |m| m["type"] == "summoned")
        .await;
    assert!(quiet.is_none(), "the summoner is not summoned");
    for c in [&mut vic, &mut cam] {
        c.send(json!({"type":"summon"})).await;
        let e = c.until_type("error").await;
        assert_eq!(e["code"], "forbidden", "{e}");
        c.send(json!({"type":"ping"})).await;
        c.until_type("pong").await;
    }
    s.shutdown().await.unwrap();
}

/// FOLLOW-4: `present {on: true}` makes the sender the presenter, announced to everyone by
/// `presentation_changed`; a late joiner's welcome shows it; viewers may not present; the
/// presenter's last connection gone (after the grace) ends it for everyone; so does the
/// presenter's `present {on: false}`.
#[tokio::test]
async fn follow_4_presenting() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "talk", "ann").await;
    let mut bob = Client::join(s.addr, "talk", "bob").await;
    ann.send(json!({"type":"present","on":true})).await;
    for c in [&mut ann, &mut bob] {
        let m = c.until_type("presentation_changed").await;
        assert_eq!(m["presenter"], "ann", "{m}");
    }
    let mut late = Client::join_as(s.addr, "talk", "late", "viewer").await;
    assert_eq!(late.welcome["presenter"], "ann");
    late.send(json!({"type":"present","on":true})).await;
    assert_eq!(late.until_type("error").await["code"], "forbidden");
    ann.send(json!({"type":"present","on":false})).await;
    let m = bob.until_type("presentation_changed").await;
    assert_eq!(m["presenter"], Value::Null);

    bob.send(json!({"type":"present","on":true})).await;
    late.until(|m| m["type"] == "presentation_changed" && m["presenter"] == "bob")
        .await;
    drop(bob);
    let m = late.until_type("presentation_changed").await;
    assert_eq!(m["presenter"], Value::Null, "{m}");
    let again = Client::join(s.addr, "talk", "zed").await;
    assert_eq!(again.welcome["presenter"], Value::Null);
    drop(ann);
    s.shutdown().await.unwrap();
}

/// FOLLOW-4: only the presenter or an owner ends a presentation: another editor's
/// `present {on: false}` is `forbidden` and changes nothing; an owner's ends it.
#[tokio::test]
async fn follow_4_who_ends_a_presentation() {
    let s = start(config()).await;
    let mut ann = Client::join(s.addr, "end", "ann").await;
    let mut bob = Client::join(s.addr, "end", "bob").await;
    let mut olga = Client::join_as(s.addr, "end", "olga", "owner").await;
    ann.send(json!({"type":"present","on":true})).await;
    for c in [&mut ann, &mut bob, &mut olga] {
        c.until_type("presentation_changed").await;
    }
    bob.send(json!({"type":"present","on":false})).await;
    assert_eq!(bob.until_type("error").await["code"], "forbidden");
    let none = ann
        .try_until(Duration::from_millis(300), |m| {
            m["type"] == "presentation_changed"
        })
        .await;
    assert!(none.is_none(), "{none:?}");
    olga.send(json!({"type":"present","on":false})).await;
    let m = ann.until_type("presentation_changed").await;
    assert_eq!(m["presenter"], Value::Null, "{m}");
    s.shutdown().await.unwrap();
}
