//! The LLM route against a scripted OpenAI-compatible HTTP server started in the test (AI-10 to
//! AI-12).

use super::*;
// The same scripted LLM as the agent's own LLM-loop tests.
#[path = "../../../agent/tests/common/fake_llm.rs"]
mod fake_llm;
use fake_llm::{FakeLlm, MODEL, flowchart_batch, text_reply, tool_reply};
use std::collections::HashMap;

fn llm_config(url: &str) -> server::Config {
    let mut c = config();
    c.openai_base_url = Some(url.to_string());
    c.openai_api_key = Some("test-key".into());
    c.ai_model = MODEL.into();
    c
}

#[tokio::test]
async fn ai_10_llm_route_flowchart_duplicate_refs_and_429() {
    let flow = flowchart_batch();
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
    let llm = FakeLlm::start(replies).await;
    let s = start(llm_config(&llm.url)).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    // Flowchart directive: one applied with 5 creates, laid out top-down.
    ai(&mut a, "l1", "draw a flowchart for signup validation").await;
    let (r, before) = result_of(&mut a, "l1").await;
    assert_eq!(r["outcome"], "executed", "{r}");
    assert_eq!(r["meta"]["route"], "llm");
    assert_eq!(r["meta"]["model"], MODEL);
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
    let llm = FakeLlm::start(vec![]).await;
    llm.set_delay(Duration::from_millis(600));
    for _ in 0..8 {
        llm.push(text_reply("Which color?"));
    }
    let mut cfg = llm_config(&llm.url);
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
    llm.set_delay(Duration::from_millis(2500));
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
    // `/metrics` needs the admin token (AUTH-7).
    let m = common::http::admin(s.addr, "GET", "/metrics", None).await;
    assert_eq!(m.status, 200);
    let out = m.json.as_str().unwrap_or_default().to_owned();
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

/// CTX-6 (COMMENT-9): the model reads how many open threads an object has, never a comment's
/// text; a resolved thread is not counted.
#[tokio::test]
async fn ctx_6_the_model_sees_thread_counts_not_comments() {
    let llm = FakeLlm::start(vec![text_reply("Looked."), text_reply("Looked again.")]).await;
    let s = start(llm_config(&llm.url)).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let r = a
        .commit("c1", json!([{"op":"create","object":{"id":"n1","kind":"note","x":100,"y":100,"text":"Plan"}}]))
        .await;
    assert_eq!(r["type"], "applied");
    let mut threads = vec![];
    for i in 0..2 {
        let id = format!("k{i}");
        a.send(
            json!({"type":"comment_thread","id":id,"body":"secret remark",
            "anchor":{"type":"object","object":"n1","fx":0.5,"fy":0.5}}),
        )
        .await;
        let ack = a
            .until(|v| v["type"] == "ack" && v["id"] == id.as_str())
            .await;
        threads.push(ack["thread"].as_str().unwrap().to_owned());
    }
    let system = |n: usize| llm.requests()[n]["messages"][0]["content"].to_string();
    ai(&mut a, "l1", "what do people think of the plan note?").await;
    assert_eq!(result_of(&mut a, "l1").await.0["meta"]["route"], "llm");
    assert!(
        system(0).contains("text=\\\"Plan\\\" threads=2"),
        "{}",
        system(0)
    );
    assert!(!llm.requests()[0].to_string().contains("secret remark"));
    a.send(json!({"type":"comment_resolve","id":"k9","thread":threads[0],"resolved":true}))
        .await;
    a.until(|v| v["type"] == "ack" && v["id"] == "k9").await;
    ai(&mut a, "l2", "what do people think of the plan note now?").await;
    result_of(&mut a, "l2").await;
    assert!(system(1).contains("threads=1"), "{}", system(1));
    s.shutdown().await.unwrap();
}
