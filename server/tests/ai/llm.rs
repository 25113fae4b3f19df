//! The LLM route against a scripted OpenAI-compatible HTTP server started in the test (AI-10 to
//! AI-12).

use super::*;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct Script {
    replies: VecDeque<(u16, Value)>,
    delay: Duration,
    requests: usize,
}

type Shared = Arc<Mutex<Script>>;

async fn completions(State(s): State<Shared>, Json(_): Json<Value>) -> (StatusCode, Json<Value>) {
    let (delay, reply) = {
        let mut s = s.lock().unwrap();
        s.requests += 1;
        (s.delay, s.replies.pop_front())
    };
    tokio::time::sleep(delay).await;
    let (code, v) = reply.unwrap_or((
        500,
        json!({"error": {"message": "script exhausted", "type": "server_error", "param": null, "code": null}}),
    ));
    (StatusCode::from_u16(code).unwrap(), Json(v))
}

async fn fake_llm(replies: Vec<(u16, Value)>, delay: Duration) -> (String, Shared) {
    let script: Shared = Arc::new(Mutex::new(Script {
        replies: replies.into(),
        delay,
        requests: 0,
    }));
    let app = Router::new()
        .route("/v1/chat/completions", post(completions))
        .with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}/v1"), script)
}

fn tool_reply(calls: &[(&str, Value)]) -> (u16, Value) {
    let tc: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| json!({"id": format!("call_{i}"), "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
        .collect();
    (
        200,
        json!({"id": "c", "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": tc}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}),
    )
}

fn text_reply(text: &str) -> (u16, Value) {
    (
        200,
        json!({"id": "c", "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}}),
    )
}

fn llm_config(url: &str) -> server::Config {
    let mut c = config();
    c.openai_base_url = Some(url.to_string());
    c.openai_api_key = Some("test-key".into());
    c.ai_model = "scripted".into();
    c
}

#[tokio::test]
async fn ai_10_llm_route_flowchart_duplicate_refs_and_429() {
    let flow = json!({"operations": [
        {"op": "createShape", "ref": "step_start", "text": "Start"},
        {"op": "createShape", "ref": "step_check", "geo": "diamond", "text": "Valid?"},
        {"op": "createShape", "ref": "step_done", "text": "Done"},
        {"op": "createConnector", "ref": "conn_1", "fromRef": "step_start", "toRef": "step_check"},
        {"op": "createConnector", "ref": "conn_2", "fromRef": "step_check", "toRef": "step_done", "label": "yes"}
    ], "layoutDirective": "flowchart-top-down"});
    let dups = json!({"operations": [
        {"op": "createNote", "ref": "note_a", "text": "first"},
        {"op": "createNote", "ref": "note_a", "text": "dup"},
        {"op": "createConnector", "ref": "conn_x", "fromRef": "note_a", "toRef": "note_missing"}
    ]});
    let limit = json!({"error": {"message": "slow down", "type": "rate_limit_error", "param": null, "code": null}});
    let mut replies = vec![
        tool_reply(&[("batchOperations", flow)]),
        text_reply("Created a 3-step flowchart."),
        tool_reply(&[("batchOperations", dups)]),
        text_reply(""),
    ];
    // async-openai retries 429 a few times with backoff before giving up.
    replies.extend(std::iter::repeat_n((429, limit), 8));
    let (url, _script) = fake_llm(replies, Duration::ZERO).await;
    let s = start(llm_config(&url)).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    // Flowchart directive: one applied with 5 creates, laid out top-down.
    ai(&mut a, "l1", "draw a flowchart for signup validation").await;
    let (r, before) = result_of(&mut a, "l1").await;
    assert_eq!(r["outcome"], "executed", "{r}");
    assert_eq!(r["meta"]["route"], "llm");
    assert_eq!(r["meta"]["model"], "scripted");
    assert_eq!(r["meta"]["steps"], 2);
    assert_eq!(r["meta"]["input_tokens"], 150);
    let applied: Vec<&Value> = before.iter().filter(|v| v["type"] == "applied").collect();
    assert_eq!(applied.len(), 1);
    assert_eq!(applied[0]["command"]["ops"].as_array().unwrap().len(), 5);
    let ids = created(&r);
    let o = |i: usize| by_id(&a, &ids[i]);
    assert!(
        o(0).y + o(0).h <= o(1).y && o(1).y + o(1).h <= o(2).y,
        "top-down"
    );
    let conn = o(4);
    assert_eq!(conn.kind, Kind::Connector);
    assert_eq!(conn.text, "yes");
    assert_eq!(b.until_type("applied").await["seq"], applied[0]["seq"]);
    // Duplicate refs: what is valid applies, the rest is reported.
    ai(&mut a, "l2", "please do the thing we discussed").await;
    let (r, _) = result_of(&mut a, "l2").await;
    assert_eq!(r["outcome"], "executed", "{r}");
    assert_eq!(created(&r).len(), 1, "{r}");
    assert_eq!(r["error"]["category"], "partial_failure");
    assert!(
        r["error"]["message"].as_str().unwrap().contains("note_a"),
        "{r}"
    );
    // 429: service_unavailable, nothing applied, and the queue moves on.
    let seq = a.seq;
    ai(&mut a, "l3", "draw something nice").await;
    let (r, before) = result_of(&mut a, "l3").await;
    assert_eq!(r["outcome"], "error");
    assert_eq!(r["error"]["category"], "service_unavailable");
    assert!(before.iter().all(|v| v["type"] != "applied"));
    assert_eq!(a.seq, seq);
    // Templates never wait for the LLM.
    let r = run(&mut a, "l4", "create a SWOT analysis for a coffee shop").await;
    assert_eq!(r["meta"]["route"], "template");
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_11_queue_is_bounded_and_commands_time_out() {
    // A slow LLM: each request takes 600 ms; commands time out after 1 s.
    let (url, script) = fake_llm(vec![], Duration::from_millis(600)).await;
    for _ in 0..8 {
        script
            .lock()
            .unwrap()
            .replies
            .push_back(text_reply("Which color?"));
    }
    let mut cfg = llm_config(&url);
    cfg.ai_queue_depth = 2;
    cfg.ai_timeout_secs = 1;
    let s = start(cfg).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    for i in 0..4 {
        ai(&mut a, &format!("q{i}"), "frobnicate the wibble").await;
    }
    let mut results: HashMap<String, Value> = HashMap::new();
    while results.len() < 4 {
        let v = a.next().await;
        if v["type"] == "ai_result" {
            results.insert(v["id"].as_str().unwrap().to_string(), v);
        }
    }
    for i in 2..4 {
        let r = &results[&format!("q{i}")];
        assert_eq!(r["error"]["category"], "rate_limited", "{r}");
    }
    for i in 0..2 {
        let r = &results[&format!("q{i}")];
        assert_ne!(r["error"]["category"], "rate_limited", "{r}");
    }
    // A command slower than the timeout: service_unavailable; the next one still runs.
    script.lock().unwrap().delay = Duration::from_millis(2500);
    ai(&mut a, "t1", "frobnicate the wibble").await;
    let (r, _) = result_of(&mut a, "t1").await;
    assert_eq!(r["error"]["category"], "service_unavailable", "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("longer than"),
        "{r}"
    );
    let r = run(&mut a, "t2", "create a blue circle").await;
    assert_eq!(r["meta"]["route"], "planner");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_12_metrics_report_latency_by_route_and_outcomes() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    run(&mut a, "m1", "create a SWOT analysis for a coffee shop").await;
    ai(&mut a, "m2", "qwxz blorpt").await;
    result_of(&mut a, "m2").await;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut sock = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    sock.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut out = String::new();
    sock.read_to_string(&mut out).await.unwrap();
    for needle in [
        "board_ai_latency_seconds_bucket{route=\"template\"",
        "board_ai_results_total{outcome=\"executed\",category=\"none\"}",
        "board_ai_results_total{outcome=\"clarification\",category=\"no_understand\"}",
        "board_ai_queue_depth",
        "board_commands_total{origin=\"ai\"}",
    ] {
        assert!(out.contains(needle), "{needle} missing from:\n{out}");
    }
    s.shutdown().await.unwrap();
}
