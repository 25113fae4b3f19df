//! A scripted OpenAI-compatible chat-completions server for tests: real HTTP on 127.0.0.1:0.
//! Each request is answered with the next scripted reply (HTTP status and JSON body), after the
//! script's delay, and recorded; an exhausted script answers 500. The agent's LLM-loop tests
//! and the server's AI tests (`server/tests/ai/llm.rs`, which includes this file by path) share
//! it.
#![allow(dead_code, clippy::unwrap_used)]

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The model name the scripted replies carry.
pub const MODEL: &str = "scripted-model";

#[derive(Default)]
struct Script {
    replies: VecDeque<(u16, Value)>,
    delay: Duration,
    requests: Vec<Value>,
}

/// A running scripted server.
pub struct FakeLlm {
    /// Its base URL, `http://127.0.0.1:PORT/v1`.
    pub url: String,
    script: Arc<Mutex<Script>>,
}

impl FakeLlm {
    /// Starts a server that answers with `replies`, in order.
    pub async fn start(replies: Vec<(u16, Value)>) -> FakeLlm {
        let script = Arc::new(Mutex::new(Script {
            replies: replies.into(),
            ..Script::default()
        }));
        let app = Router::new()
            .route("/v1/chat/completions", post(completions))
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeLlm {
            url: format!("http://{addr}/v1"),
            script,
        }
    }

    /// Queues one more reply.
    pub fn push(&self, reply: (u16, Value)) {
        self.script.lock().unwrap().replies.push_back(reply);
    }

    /// How long every later request waits before it is answered.
    pub fn set_delay(&self, delay: Duration) {
        self.script.lock().unwrap().delay = delay;
    }

    /// The request bodies received so far, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.script.lock().unwrap().requests.clone()
    }
}

async fn completions(
    State(s): State<Arc<Mutex<Script>>>,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let (delay, reply) = {
        let mut s = s.lock().unwrap();
        s.requests.push(body);
        (s.delay, s.replies.pop_front())
    };
    tokio::time::sleep(delay).await;
    let (code, v) = reply.unwrap_or((
        500,
        json!({"error": {"message": "script exhausted", "type": "server_error", "param": null, "code": null}}),
    ));
    (StatusCode::from_u16(code).unwrap(), Json(v))
}

/// A reply that calls `calls` (tool name, arguments), in order.
pub fn tool_reply(calls: &[(&str, Value)]) -> (u16, Value) {
    let tc: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| json!({"id": format!("call_{i}_{name}"), "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
        .collect();
    (
        200,
        json!({"id": "c", "object": "chat.completion", "created": 0, "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": tc}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}),
    )
}

/// A reply with text and no tool call.
pub fn text_reply(text: &str) -> (u16, Value) {
    (
        200,
        json!({"id": "c", "object": "chat.completion", "created": 0, "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}}),
    )
}

/// A `batchOperations` argument the tests script as the model's answer: a three-step flowchart
/// (start, a diamond decision, done) with two connectors, laid out top-down.
pub fn flowchart_batch() -> Value {
    json!({"operations": [
        {"op": "createShape", "ref": "step_start", "text": "Start"},
        {"op": "createShape", "ref": "step_check", "geo": "diamond", "text": "Valid?"},
        {"op": "createShape", "ref": "step_done", "text": "Done"},
        {"op": "createConnector", "ref": "conn_1", "fromRef": "step_start", "toRef": "step_check"},
        {"op": "createConnector", "ref": "conn_2", "fromRef": "step_check", "toRef": "step_done", "label": "yes"}
    ], "layoutDirective": "flowchart-top-down"})
}
