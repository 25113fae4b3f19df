//! Cluster nodes as real processes for the cluster tests: the `server` binary with
//! `--cluster --check-invariants` on the local PostgreSQL (a schema per cluster) and NATS (a
//! subject prefix per cluster). Node logs: `$TMPDIR/cluster-PREFIX-NODE.log` (restarts append),
//! at `RUST_LOG=info` or `CLUSTER_LOAD_LOG`.

use super::pg::{PG_URL, drop_schema, pg_schema};
use super::{STEP, http, process};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// One node: the real `server` binary in cluster mode.
pub struct Node {
    pub child: Child,
    pub addr: SocketAddr,
    pub id: String,
}

/// A cluster's shared settings: its schema and NATS prefix.
pub struct Cluster {
    pub schema: String,
    pub prefix: String,
}

impl Cluster {
    pub fn new() -> Cluster {
        let cl = Cluster {
            schema: pg_schema(),
            prefix: format!("t{}", &uuid::Uuid::new_v4().simple().to_string()[..12]),
        };
        eprintln!("node logs: {}", cl.log_path("*").display());
        cl
    }

    pub fn log_path(&self, id: &str) -> PathBuf {
        std::env::temp_dir().join(format!("cluster-{}-{id}.log", self.prefix))
    }

    /// Starts node `id` (plus `extra` flags) and waits until it prints its address; a restart
    /// under the same id appends to the same log.
    pub fn node(&self, id: &str, extra: &[&str]) -> Node {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path(id))
            .unwrap();
        let mut args: Vec<String> = [
            "--cluster",
            "--check-invariants",
            "--node-id",
            id,
            "--database-url",
            PG_URL,
            "--database-schema",
            &self.schema,
            "--nats-prefix",
            &self.prefix,
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        args.extend(extra.iter().map(|a| a.to_string()));
        let level = std::env::var("CLUSTER_LOAD_LOG").unwrap_or_else(|_| "info".into());
        let (child, addr) = process::spawn(&args, log, &level);
        Node {
            child,
            addr,
            id: id.to_owned(),
        }
    }

    /// Fails if any node logged an invariant violation.
    pub fn assert_no_violations(&self, ids: &[&str]) {
        for id in ids {
            let text = std::fs::read_to_string(self.log_path(id)).unwrap_or_default();
            let bad: Vec<&str> = text
                .lines()
                .filter(|l| l.contains("invariant violated"))
                .collect();
            assert!(bad.is_empty(), "{id}: {bad:#?}");
        }
    }

    /// Lines of node `id`'s log containing `what`.
    pub fn log_lines(&self, id: &str, what: &str) -> Vec<String> {
        std::fs::read_to_string(self.log_path(id))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(what))
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let schema = self.schema.clone();
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(drop_schema(&schema));
        })
        .join();
    }
}

impl Node {
    pub fn kill(&mut self) {
        // A stopped process dies of SIGKILL too; SIGCONT first anyway so nothing lingers.
        let _ = Command::new("kill")
            .args(["-CONT", &self.child.id().to_string()])
            .stderr(std::process::Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn signal(&self, sig: &str) {
        let st = Command::new("kill")
            .args([sig, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
    }

    /// Waits until every thread of the process is stopped (SIGSTOP is delivered asynchronously:
    /// until then the process may still read a socket or send a write to the database).
    pub async fn stopped(&self) {
        let dir = format!("/proc/{}/task", self.child.id());
        let deadline = Instant::now() + STEP;
        loop {
            let all = std::fs::read_dir(&dir).unwrap().all(|t| {
                let stat =
                    std::fs::read_to_string(t.unwrap().path().join("stat")).unwrap_or_default();
                let state = stat.rsplit_once(") ").map(|(_, r)| r.chars().next());
                matches!(state, Some(Some('T' | 't')))
            });
            if all {
                return;
            }
            assert!(Instant::now() < deadline, "{} did not stop", self.id);
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Waits (at most `within`) until `/healthz` answers 200.
    pub async fn serving(&self, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let r = http::request(self.addr, "GET", "/healthz", &[], None).await;
            if r.status == 200 {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{} not healthy within {within:?}: {} {:?}",
                self.id,
                r.status,
                r.json
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

pub async fn board_json(addr: SocketAddr, board: &str) -> Value {
    let r = http::admin(addr, "GET", &format!("/api/boards/{board}"), None).await;
    assert_eq!(r.status, 200, "{:?}", r.json);
    r.json
}
