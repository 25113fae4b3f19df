//! A full disk under the real server on SQLite (DUR-7, DUR-8 in docs/DURABILITY.md): the data dir
//! lives on a tmpfs of a few MB that the test mounts and fills with a file of its own. Needs root
//! (CI runs as root); where the mount is refused the tests say so and return.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use serde_json::{Value, json};
use server::ServerHandle;
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A tmpfs mounted for one test, unmounted (and its mount point removed) on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = std::env::temp_dir().join(format!("board-full-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .output();
        match out {
            Ok(o) if o.status.success() => Some(Tmpfs(dir)),
            other => {
                println!("cannot mount a tmpfs ({other:?}): skipping the disk-full test");
                let _ = std::fs::remove_dir(&dir);
                None
            }
        }
    }

    fn filler(&self) -> PathBuf {
        self.0.join("filler")
    }

    /// Grows the filler file until the file system refuses another byte.
    fn fill(&self) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.filler())
            .unwrap();
        for chunk in [1 << 16, 4096, 512, 1] {
            let buf = vec![0u8; chunk];
            while f.write_all(&buf).is_ok() {}
        }
    }

    fn free(&self) {
        std::fs::remove_file(self.filler()).unwrap();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

fn sqlite_config(data: &Path) -> server::Config {
    let mut c = config();
    c.memory_store = false;
    c.data_dir = data.to_path_buf();
    c
}

/// One `GET` with the operator's admin bearer: the status and the body.
async fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    let a = common::http::admin(addr, "GET", path, None).await;
    (a.status, a.json)
}

/// What happened to the commits of one client.
#[derive(Default)]
struct Tally {
    applied: BTreeMap<String, u64>,
    refused: usize,
    outstanding: HashSet<String>,
    next: u64,
}

impl Tally {
    /// Keeps `depth` commits outstanding and takes one answer (or nothing within `wait`).
    async fn step(&mut self, c: &mut Client, depth: usize, wait: Duration) -> Option<&'static str> {
        while self.outstanding.len() < depth {
            let id = format!("n{}", self.next);
            self.next += 1;
            let (x, y) = (
                (self.next % 40) as f64 * 210.0,
                (self.next / 40) as f64 * 210.0,
            );
            c.send(json!({"type":"commit","id":id,"ops":[note(&id, x, y)]}))
                .await;
            self.outstanding.insert(id);
        }
        let v = c.try_next(wait).await?;
        match v["type"].as_str() {
            Some("applied") if v["command"]["author"] == c.user.as_str() => {
                let id = v["command"]["client_id"].as_str().unwrap().to_string();
                assert!(self.outstanding.remove(&id), "{v}");
                self.applied.insert(id, v["seq"].as_u64().unwrap());
                Some("applied")
            }
            Some("rejected") => {
                assert_eq!(v["error"]["code"], "store_unavailable", "{v}");
                assert!(self.outstanding.remove(v["id"].as_str().unwrap()), "{v}");
                self.refused += 1;
                // Pace the retries while the disk is full (fault pacing, not synchronization).
                tokio::time::sleep(Duration::from_millis(5)).await;
                Some("rejected")
            }
            Some("__close") => panic!("connection closed while the disk is full: {v}"),
            Some("error") => panic!("unexpected error: {v}"),
            _ => None,
        }
    }

    /// Takes answers until nothing is outstanding.
    async fn drain(&mut self, c: &mut Client) {
        let until = Instant::now() + Duration::from_secs(30);
        while !self.outstanding.is_empty() {
            assert!(
                Instant::now() < until,
                "commits left unanswered: {:?}",
                self.outstanding
            );
            self.step(c, 0, STEP).await;
        }
    }
}

/// Restarts on the same data dir and checks that every acknowledged commit is on the board, in
/// as many objects as the board's seq (nothing lost, nothing twice). Returns the restarted server.
async fn check_after_restart(
    data: &Path,
    board: &str,
    applied: &BTreeMap<String, u64>,
) -> ServerHandle {
    let s = start(sqlite_config(data)).await;
    let c = Client::join(s.addr, board, "checker").await;
    let last = applied.values().copied().max().unwrap_or(0);
    let seq = c.welcome["seq"].as_u64().unwrap();
    assert!(
        seq >= last,
        "welcome seq {seq} below the last acknowledged {last}"
    );
    let ids: HashSet<String> = c
        .objects()
        .into_iter()
        .map(|o| o.id.as_str().to_string())
        .collect();
    for id in applied.keys() {
        assert!(ids.contains(id), "acknowledged commit {id} lost");
    }
    assert_eq!(ids.len() as u64, seq, "objects and seq disagree");
    s
}

/// DUR-7: with the disk full, commits are refused with `store_unavailable` (no connection
/// dropped), welcomes and exports keep working, commits resume by themselves within seconds of
/// space being freed, and after a restart every acknowledged commit is there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dur_7_a_full_disk_refuses_writes_keeps_reads_and_recovers() {
    let Some(fs) = Tmpfs::mount("4m") else {
        return;
    };
    let data = fs.0.join("data");
    let s = start(sqlite_config(&data)).await;
    let mut ann = Client::join(s.addr, "full", "ann").await;
    let mut t = Tally::default();
    while t.applied.len() < 50 {
        t.step(&mut ann, 8, STEP).await;
    }
    // Fill the disk while commits keep coming, until they are refused; SQLite may still find
    // room in pages it allocated before, so the filler is topped up meanwhile.
    fs.fill();
    let until = Instant::now() + Duration::from_secs(60);
    while t.refused < 20 {
        assert!(
            Instant::now() < until,
            "no commit refused on a full disk in 60 s"
        );
        t.step(&mut ann, 8, STEP).await;
        fs.fill();
    }
    let applied_full = t.applied.len();
    // Reads go on: a welcome (with every acknowledged commit), the export and the board list.
    let bob = Client::join(s.addr, "full", "bob").await;
    let seen: HashSet<String> = bob
        .objects()
        .into_iter()
        .map(|o| o.id.as_str().to_string())
        .collect();
    assert!(
        t.applied.keys().all(|id| seen.contains(id)),
        "a welcome lacks acknowledged commits"
    );
    let (status, export) = get(s.addr, "/api/boards/full").await;
    assert_eq!(status, 200, "{export}");
    assert!(export["objects"].as_array().unwrap().len() >= t.applied.len().min(50));
    let (status, list) = get(s.addr, "/api/boards").await;
    assert_eq!(status, 200, "{list}");
    for _ in 0..20 {
        t.step(&mut ann, 8, STEP).await;
    }
    // Free the space: commits resume by themselves.
    fs.free();
    let freed = Instant::now();
    let before = t.applied.len();
    while t.applied.len() < before + 1 {
        assert!(
            freed.elapsed() < Duration::from_secs(15),
            "no commit applied 15 s after space was freed"
        );
        t.step(&mut ann, 8, STEP).await;
    }
    let resumed = freed.elapsed();
    while t.applied.len() < before + 50 {
        t.step(&mut ann, 8, STEP).await;
    }
    t.drain(&mut ann).await;
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
    let s = check_after_restart(&data, "full", &t.applied).await;
    println!(
        "disk full: {} applied ({applied_full} before the disk filled up), {} refused \
         with store_unavailable; first commit applied {resumed:?} after space was freed; \
         every acknowledged commit present after a restart",
        t.applied.len(),
        t.refused
    );
    s.shutdown().await.unwrap();
}

/// DUR-8: a server whose data dir is on a full disk starts and serves its boards read-only
/// (welcomes, exports; commits refused with `store_unavailable`), and takes commits once space is
/// freed, without a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dur_8_the_server_starts_on_a_full_disk_and_serves_read_only() {
    let Some(fs) = Tmpfs::mount("4m") else {
        return;
    };
    let data = fs.0.join("data");
    let s = start(sqlite_config(&data)).await;
    let mut ann = Client::join(s.addr, "ro", "ann").await;
    let mut t = Tally::default();
    while t.applied.len() < 30 {
        t.step(&mut ann, 8, STEP).await;
    }
    t.drain(&mut ann).await;
    drop(ann);
    s.shutdown().await.unwrap();

    fs.fill();
    let s = start(sqlite_config(&data)).await;
    let mut ann = Client::join(s.addr, "ro", "ann").await;
    let stored = t.applied.len();
    assert_eq!(ann.objects().len(), stored, "{}", ann.welcome);
    let (status, export) = get(s.addr, "/api/boards/ro").await;
    assert_eq!(
        (status, export["objects"].as_array().map(Vec::len)),
        (200, Some(stored)),
        "{export}"
    );
    let until = Instant::now() + Duration::from_secs(30);
    while t.refused < 5 {
        assert!(
            Instant::now() < until,
            "commits were not refused on a full disk"
        );
        t.step(&mut ann, 4, STEP).await;
        fs.fill();
    }
    fs.free();
    let freed = Instant::now();
    let before = t.applied.len();
    while t.applied.len() < before + 20 {
        assert!(
            freed.elapsed() < Duration::from_secs(15),
            "commits did not resume after space was freed"
        );
        t.step(&mut ann, 4, STEP).await;
    }
    t.drain(&mut ann).await;
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
    let s = check_after_restart(&data, "ro", &t.applied).await;
    println!(
        "start on a full disk: served {stored} objects read-only, {} refused, {} applied in all",
        t.refused,
        t.applied.len()
    );
    s.shutdown().await.unwrap();
}

/// Creates an empty board with the admin bearer; returns the HTTP status and body.
async fn new_board(addr: SocketAddr) -> (u16, Value) {
    let a = common::http::admin(addr, "POST", "/api/boards", Some(r#"{"title":"b"}"#)).await;
    (a.status, a.json)
}

/// QUOTA-5: without `--max-store-bytes`, a SQLite store is capped at half the room it had on its
/// disk at start (its files plus the free space): on a 16 MiB file system, new boards are taken
/// until the data dir holds 8 MiB, then refused with `limit_exceeded`; `--max-store-bytes 0`
/// turns the cap off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quota_5_the_default_store_cap_is_half_the_room_on_its_disk() {
    let Some(fs) = Tmpfs::mount("16m") else {
        return;
    };
    let data = fs.0.join("data");
    let mut cfg = sqlite_config(&data);
    cfg.max_store_bytes = None;
    let s = start(cfg.clone()).await;
    let (status, body) = new_board(s.addr).await;
    assert_eq!(status, 201, "{body}");
    // The store's files grow past 8 MiB (ballast in the data dir counts like any store file).
    std::fs::write(data.join("ballast"), vec![1u8; 8 << 20]).unwrap();
    let (status, body) = new_board(s.addr).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "limit_exceeded", "{body}");
    s.shutdown().await.unwrap();
    // Sized again at the next start, the cap still leaves as much free as the store holds.
    let s = start(cfg.clone()).await;
    assert_eq!(new_board(s.addr).await.0, 403);
    s.shutdown().await.unwrap();
    // Off.
    cfg.max_store_bytes = Some(0);
    let s = start(cfg).await;
    let (status, body) = new_board(s.addr).await;
    assert_eq!(status, 201, "{body}");
    s.shutdown().await.unwrap();
}
