//! What a person meets first: `server --help`, the start-up lines, distinct cursor colors and a
//! readable plan with its preview. Each test names the docs/SPEC.md rule it checks.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn cli_1_help_is_grouped_one_line_per_flag_and_ends_with_where_to_open_the_page() {
    let out = Command::new(env!("CARGO_BIN_EXE_server"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for heading in [
        "Network:",
        "Storage:",
        "Limits:",
        "Sessions and timing:",
        "AI:",
        "Access control:",
        "Cluster:",
    ] {
        assert!(
            text.lines().any(|l| l == heading),
            "no {heading} in\n{text}"
        );
    }
    // One line per flag: every `--flag` line carries its help text.
    let flags: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("--"))
        .collect();
    assert!(flags.len() >= 40, "{text}");
    for l in &flags {
        let rest = l.trim_start().split_once("  ").map(|(_, h)| h.trim());
        assert!(
            rest.is_some_and(|h| !h.is_empty()),
            "help not on the line: {l}"
        );
        assert!(l.len() <= 110, "too long: {l}");
    }
    // Every flag is still there (none renamed or dropped).
    for flag in [
        "--listen",
        "--data-dir",
        "--database-url",
        "--memory-store",
        "--max-objects",
        "--auth",
        "--admin-token",
        "--openai-api-key",
        "--public-url",
        "--commit-linger-us",
        "--sign-in-rate-per-min",
        "--cluster",
        "--nats-url",
        "--node-id",
        "--nats-prefix",
    ] {
        assert!(text.contains(&format!("{flag} ")), "{flag} missing");
    }
    assert!(
        !text.contains("fdatasync") && !text.contains("NET-"),
        "{text}"
    );
    assert!(
        text.trim_end()
            .ends_with("then open http://ADDR/ in a browser."),
        "{text}"
    );
}

#[test]
fn cli_2_start_up_says_once_where_to_open_the_page() {
    let dir = std::env::temp_dir().join(format!("board-cli-{}", uuid::Uuid::new_v4()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&dir)
        .env("RUST_LOG", "info")
        .env_remove("BOARD_LISTEN")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    while let Some(Ok(l)) = stdout.next() {
        let done = l.starts_with("open ");
        lines.push(l);
        if done {
            break;
        }
    }
    child.kill().unwrap();
    let _ = child.wait();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(err.contains("INFO"), "logs go to stderr:\n{err}");
    let addr = lines[0].strip_prefix("listening on ").unwrap().to_owned();
    assert!(
        lines[1].starts_with(&format!("sign in: http://{addr}/login#")),
        "{lines:?}"
    );
    assert_eq!(lines[2], format!("open http://{addr}/ in a browser"));
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(!err.contains("listening"), "stderr repeats it:\n{err}");
}

/// Runs the binary with `args` until it exits (within 20 s): its exit status, stdout, stderr.
fn refused_start(args: &[&str]) -> (std::process::ExitStatus, String, String) {
    let dir = std::env::temp_dir().join(format!("board-cli-{}", uuid::Uuid::new_v4()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_server"))
        .args(args)
        .arg("--data-dir")
        .arg(&dir)
        .env_remove("BOARD_LISTEN")
        .env_remove("BOARD_ADMIN_TOKEN")
        .env_remove("BOARD_TOKEN_SECRET")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > std::time::Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("the server started with {args:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (status, out, err)
}

#[test]
fn auth_21_a_short_operator_secret_refuses_to_start_and_says_how_to_make_one() {
    for flag in ["--token-secret", "--admin-token"] {
        let (status, out, err) = refused_start(&["--listen", "127.0.0.1:0", flag, "0123456789"]);
        assert!(!status.success(), "{flag}");
        assert!(
            err.contains(flag) && err.contains("at least 32"),
            "{flag}: {err}"
        );
        assert!(err.contains("openssl rand"), "{err}");
        // CLI-2: nothing says it listens before the refusal.
        assert!(!out.contains("listening on"), "{flag}: {out}");
    }
}

#[test]
fn cli_2_auth_off_on_a_public_address_is_refused_before_listening_is_said() {
    let (status, out, err) = refused_start(&["--listen", "0.0.0.0:0", "--auth", "off"]);
    assert!(!status.success());
    assert!(err.contains("loopback"), "{err}");
    assert!(!out.contains("listening on"), "{out}");
}

#[tokio::test]
async fn ui_polish_1_present_users_never_share_a_color() {
    let s = start(config()).await;
    let mut clients = Vec::new();
    let mut colors = Vec::new();
    // Twelve users: with twelve colors, ids alone would almost surely collide somewhere.
    for i in 0..12 {
        let c = Client::join(s.addr, "colors", &format!("user-{i}")).await;
        colors.push(c.welcome["you"]["color"].as_str().unwrap().to_owned());
        clients.push(c);
    }
    let mut unique = colors.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), colors.len(), "{colors:?}");
    // A second tab of a present user keeps their color.
    let again = Client::join(s.addr, "colors", "user-3").await;
    assert_eq!(again.welcome["you"]["color"], colors[3].as_str());
    // Others see the same colors in the user list.
    let last = clients.last().unwrap();
    for u in last.welcome["users"].as_array().unwrap() {
        let id = u["user"]["id"].as_str().unwrap();
        let i: usize = id.strip_prefix("user-").unwrap().parse().unwrap();
        assert_eq!(u["user"]["color"], colors[i].as_str(), "{u}");
    }
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_plan_preview_1_planned_reply_names_no_path_and_carries_the_objects() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "plan", "ann").await;
    a.send(json!({"type":"set_mode","mode":"plan"})).await;
    a.until_type("mode_changed").await;
    a.send(
        json!({"type":"ai","id":"p1","text":"create a SWOT analysis for a coffee shop",
        "viewport":{"x":0,"y":0,"w":1600,"h":1000}}),
    )
    .await;
    let r = a
        .until(|v| v["type"] == "ai_result" && v["id"] == "p1")
        .await;
    assert_eq!(r["outcome"], "planned", "{r}");
    let message = r["message"].as_str().unwrap();
    assert!(!message.contains("/plans/"), "{message}");
    assert!(message.contains("Accept & Build"), "{message}");
    let objects = r["plan"]["objects"].as_array().unwrap();
    assert!(objects.len() as u64 >= r["plan"]["creates"].as_u64().unwrap());
    assert_eq!(objects.iter().filter(|o| o["kind"] == "frame").count(), 4);
    // Placed inside the requester's viewport, as the build would place it.
    for o in objects.iter().filter(|o| o["kind"] != "connector") {
        let x = o["x"].as_f64().unwrap();
        let y = o["y"].as_f64().unwrap();
        assert!(
            (-40.0..1600.0).contains(&x) && (-40.0..1000.0).contains(&y),
            "{o}"
        );
    }
    let q = a.until_type("question").await;
    let text = q["questions"][0]["question"].as_str().unwrap();
    assert!(!text.contains("/plans/"), "{text}");
    // Nothing is on the board.
    assert!(a.objects().is_empty());
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ui_page_3_a_board_is_listed_from_its_first_join_before_any_edit() {
    let mut cfg = config();
    cfg.auth = server::config::AuthMode::Off;
    cfg.admin_token = None;
    cfg.memory_store = false;
    let s = start(cfg).await;
    let _c = Client::join_with(s.addr, "fresh-board", "anyone", None).await;
    let a = common::http::request(s.addr, "GET", "/api/boards", &[], None).await;
    assert_eq!(a.status, 200);
    let ids: Vec<&str> = a.json["boards"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["id"].as_str())
        .collect();
    assert!(ids.contains(&"fresh-board"), "{}", a.json);
    s.shutdown().await.unwrap();
}
