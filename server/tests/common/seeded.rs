//! The seeded randomized session of the convergence tests (CONV-1, CONV-2 on one node,
//! CLUSTER-24 across nodes): 3 to 5 clients create, update, delete, undo, redo, disconnect and
//! resume at random on one board; then quiescence, and every mirror is checked against a fresh
//! welcome. The harness's client asserts a gap-free seq on every `applied` (CONV-2).

use super::Client;
use protocol::Kind;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

const COLORS: [&str; 8] = [
    "yellow", "orange", "red", "pink", "purple", "blue", "green", "gray",
];
const GEOS: [&str; 4] = ["rectangle", "ellipse", "diamond", "star"];

pub fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

pub struct Slot {
    pub c: Client,
    /// The node this client talks to.
    pub addr: SocketAddr,
    pub connected: bool,
}

/// How many of each message kind a seed produced (printed, to show what a seed exercised).
pub type Stats = BTreeMap<String, usize>;

fn count(stats: &mut Stats, v: &Value) {
    let mut key = v["type"].as_str().unwrap_or("?").to_string();
    if key == "rejected" {
        key = format!("rejected:{}", v["error"]["code"].as_str().unwrap_or("?"));
    } else if key == "error" {
        key = format!("error:{}", v["code"].as_str().unwrap_or("?"));
    }
    *stats.entry(key).or_default() += 1;
}

/// Fails unless `v` is a message this session may legitimately produce.
pub fn check_response(seed: u64, who: &str, v: &Value) {
    let ty = v["type"].as_str().unwrap_or("");
    let ok = match ty {
        "applied" | "ack" | "presence" | "joined" | "left" | "welcome" => true,
        // Only ids another client removed meanwhile may make a commit fail.
        "rejected" => v["error"]["code"] == "not_found",
        "error" => v["code"] == "nothing_to_undo" || v["code"] == "nothing_to_redo",
        _ => false,
    };
    assert!(
        ok,
        "seed {seed}: unexpected message to {who}: {v}; replay this seed (CONV_SEED or CLUSTER_CONV_SEED={seed})"
    );
}

/// Reads everything already queued for every connected client, without blocking long.
pub async fn drain(seed: u64, slots: &mut [Slot], wait: Duration, stats: &mut Stats) {
    for s in slots.iter_mut().filter(|s| s.connected) {
        while let Some(v) = s.c.try_next(wait).await {
            check_response(seed, &s.c.user, &v);
            count(stats, &v);
        }
    }
}

fn object_ids(c: &Client, pred: impl Fn(Kind) -> bool) -> Vec<String> {
    let mut ids: Vec<String> = c
        .mirror
        .objects()
        .filter(|o| pred(o.kind))
        .map(|o| o.id.as_str().to_string())
        .collect();
    // HashMap order is not seeded: sort so a seed replays the same choices.
    ids.sort();
    ids
}

fn pick<'a>(rng: &mut StdRng, v: &'a [String]) -> Option<&'a String> {
    if v.is_empty() {
        None
    } else {
        Some(&v[rng.random_range(0..v.len())])
    }
}

fn coord(rng: &mut StdRng) -> f64 {
    f64::from(rng.random_range(-2000i32..2000))
}

/// A random create op for object `id`, built from what the acting client sees.
fn create_op(rng: &mut StdRng, c: &Client, id: &str) -> Value {
    let frames = object_ids(c, |k| k == Kind::Frame);
    let targets = object_ids(c, |k| k != Kind::Connector);
    let roll = rng.random_range(0..100);
    let mut obj = if roll < 15 && targets.len() >= 2 {
        let a = pick(rng, &targets).unwrap().clone();
        let mut b = pick(rng, &targets).unwrap().clone();
        if a == b {
            b = targets.iter().find(|t| **t != a).unwrap().clone();
        }
        let arrow = ["end", "both", "none"][rng.random_range(0..3)];
        json!({"kind":"connector","from":{"id":a},"to":{"id":b},"arrow":arrow})
    } else if roll < 30 {
        json!({"kind":"frame","x":coord(rng),"y":coord(rng),"w":600,"h":500})
    } else if roll < 60 {
        let geo = GEOS[rng.random_range(0..GEOS.len())];
        json!({"kind":"shape","geo":geo,"x":coord(rng),"y":coord(rng)})
    } else {
        json!({"kind":"note","x":coord(rng),"y":coord(rng)})
    };
    obj["id"] = json!(id);
    obj["text"] = json!(format!("text of {id}"));
    if rng.random_bool(0.5) {
        obj["color"] = json!(COLORS[rng.random_range(0..COLORS.len())]);
    }
    if obj["kind"] != "connector"
        && obj["kind"] != "frame"
        && rng.random_bool(0.4)
        && let Some(f) = pick(rng, &frames)
    {
        obj["parent"] = json!(f);
    }
    json!({"op":"create","object":obj})
}

/// A random update op on an object the acting client sees, if any.
fn update_op(rng: &mut StdRng, c: &Client) -> Option<Value> {
    let all = object_ids(c, |_| true);
    let frames = object_ids(c, |k| k == Kind::Frame);
    let id = if rng.random_bool(0.3) && !frames.is_empty() {
        pick(rng, &frames)?.clone()
    } else {
        pick(rng, &all)?.clone()
    };
    let is_connector = c.mirror.get(&id).is_some_and(|o| o.kind == Kind::Connector);
    let set = match (rng.random_range(0..4), is_connector) {
        (_, true) => json!({"text": format!("label {}", rng.random_range(0..1000))}),
        (0, _) => json!({"x": coord(rng), "y": coord(rng)}),
        (1, _) => json!({"color": COLORS[rng.random_range(0..COLORS.len())]}),
        (2, _) => json!({"text": format!("edit {}", rng.random_range(0..1000))}),
        _ => json!({"w": rng.random_range(10..900), "h": rng.random_range(10..900)}),
    };
    Some(json!({"op":"update","id":id,"set":set}))
}

/// Runs `steps` random steps of seed `seed` on `board`, client i on `addrs[(i + seed) % n]`,
/// then brings everyone back and fences them (every client's earlier frames were handled by
/// the board: a commit on the same socket comes after them). Returns the clients and what the
/// session exercised.
pub async fn run_steps(
    seed: u64,
    steps: usize,
    board: &str,
    addrs: &[SocketAddr],
) -> (Vec<Slot>, Stats) {
    let mut rng = StdRng::seed_from_u64(seed);
    let n = rng.random_range(3..=5usize);
    let mut slots = Vec::with_capacity(n);
    for i in 0..n {
        let addr = addrs[(i + seed as usize) % addrs.len()];
        let c = Client::join(addr, board, &format!("u{i}")).await;
        slots.push(Slot {
            c,
            addr,
            connected: true,
        });
    }
    let mut last_deleted: Option<String> = None;
    let mut stats = Stats::new();
    for step in 0..steps {
        let i = rng.random_range(0..n);
        if slots[i].connected {
            act(&mut rng, &mut slots[i], step, &mut last_deleted).await;
        } else {
            let addr = slots[i].addr;
            slots[i].c.resume(addr, board).await;
            slots[i].connected = true;
            *stats.entry("resume".into()).or_default() += 1;
        }
        let wait = Duration::from_millis(rng.random_range(1..=3));
        drain(seed, &mut slots, wait, &mut stats).await;
    }
    fence(seed, &mut slots, board).await;
    (slots, stats)
}

/// One random action of a connected client.
async fn act(rng: &mut StdRng, slot: &mut Slot, step: usize, last_deleted: &mut Option<String>) {
    let roll = rng.random_range(0..100);
    let c = &mut slot.c;
    let cid = format!("c{step}");
    match roll {
        0..35 => {
            let op = create_op(rng, c, &format!("o{step}"));
            c.send(json!({"type":"commit","id":cid,"ops":[op]})).await;
        }
        35..60 => {
            if let Some(op) = update_op(rng, c) {
                c.send(json!({"type":"commit","id":cid,"ops":[op]})).await;
            }
        }
        60..72 => {
            let id = match last_deleted {
                Some(d) if rng.random_bool(0.3) => Some(d.clone()),
                _ => pick(rng, &object_ids(c, |_| true)).cloned(),
            };
            if let Some(id) = id {
                c.send(json!({"type":"commit","id":cid,"ops":[{"op":"delete","id":id}]}))
                    .await;
                *last_deleted = Some(id);
            }
        }
        72..84 => c.send(json!({"type":"undo"})).await,
        84..94 => c.send(json!({"type":"redo"})).await,
        _ => {
            let _ = c.ws.close(None).await;
            slot.connected = false;
        }
    }
}

/// Everyone back, and every client's earlier frames handled by the board.
async fn fence(seed: u64, slots: &mut [Slot], board: &str) {
    for slot in slots.iter_mut().filter(|s| !s.connected) {
        let addr = slot.addr;
        slot.c.resume(addr, board).await;
        slot.connected = true;
    }
    for (i, slot) in slots.iter_mut().enumerate() {
        let id = format!("fence{i}");
        slot.c
            .send(json!({"type":"commit","id":id,"ops":[{"op":"delete","id":"__fence__"}]}))
            .await;
        loop {
            let v = slot.c.next().await;
            if v["type"] == "rejected" && v["id"] == id.as_str() {
                assert_eq!(v["error"]["code"], "not_found", "{v}");
                break;
            }
            check_response(seed, &slot.c.user, &v);
        }
    }
}

/// Every client reads up to `seq`, and no further.
pub async fn catch_up(seed: u64, slots: &mut [Slot], seq: u64) {
    for slot in slots.iter_mut() {
        while slot.c.seq < seq {
            let v = slot.c.next().await;
            check_response(seed, &slot.c.user, &v);
        }
        assert_eq!(slot.c.seq, seq, "{} overshot", slot.c.user);
    }
}

/// CONV-1: every client's mirror equals the welcome of a fresh client `who` on `addr`.
pub async fn assert_mirrors(seed: u64, slots: &[Slot], addr: SocketAddr, board: &str, who: &str) {
    let fresh = Client::join(addr, board, who).await;
    let want = fresh.objects();
    for slot in slots {
        assert_eq!(
            slot.c.seq, fresh.seq,
            "seed {seed}: a fresh welcome on {addr} is at another seq"
        );
        let got = slot.c.objects();
        if got == want {
            continue;
        }
        let diff: Vec<String> = want
            .iter()
            .filter(|o| !got.contains(o))
            .map(|o| format!("welcome has {}", serde_json::to_string(o).unwrap()))
            .chain(
                got.iter()
                    .filter(|o| !want.contains(o))
                    .map(|o| format!("mirror has {}", serde_json::to_string(o).unwrap())),
            )
            .collect();
        panic!(
            "seed {seed}: {}'s mirror differs from a fresh welcome on {addr} at seq {}:\n{}",
            slot.c.user,
            fresh.seq,
            diff.join("\n")
        );
    }
}
