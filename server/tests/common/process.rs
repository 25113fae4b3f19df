//! The real `server` binary as a child process (crash, restart and cluster tests).

use std::io::BufRead;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Starts the binary with `--listen 127.0.0.1:0 --admin-token …` and `args`, its stderr into
/// `log` and `RUST_LOG=log_level`, and waits (30 s at most) for the address it prints.
pub fn spawn(args: &[String], log: std::fs::File, log_level: &str) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["--listen", "127.0.0.1:0"])
        .args(["--admin-token", super::admin_token()])
        .args(args)
        .env("RUST_LOG", log_level)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(a) = line.strip_prefix("listening on ") {
                let _ = tx.send(a.trim().to_string());
            }
        }
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(a) => (child, a.parse().unwrap()),
        Err(_) => {
            let _ = child.kill();
            panic!("server did not print its address within 30 s");
        }
    }
}
