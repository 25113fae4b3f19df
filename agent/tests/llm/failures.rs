//! LLM-3, LLM-4, LLM-9 and LLM-10: an LLM that is rate-limited or unreachable, answers without a
//! tool call, is too slow, or leaves a write invalid ends in a categorized failure; hex colors in
//! its reply are replaced by palette names.

use super::*;

/// Asks `a` on an empty board in build mode and expects a failure: its category, message and
/// meta.
async fn ask_failing(a: &Agent, text: &str) -> (AiErrorCategory, String, protocol::AiMeta) {
    let p = ask(a, &BoardState::default(), text, Mode::Build).await;
    let AiPlan::Error {
        category,
        message,
        meta,
    } = p
    else {
        panic!("{p:?}")
    };
    (category, message, meta)
}

#[tokio::test]
async fn llm_3_rate_limited_is_service_unavailable() {
    let err = json!({"error": {"message": "slow down", "type": "rate_limit_error", "param": null, "code": null}});
    let f = FakeLlm::start(vec![
        (429, err.clone()),
        (429, err.clone()),
        (429, err.clone()),
        (429, err),
    ])
    .await;
    let (category, message, meta) = ask_failing(&agent(&f.url), "draw something nice").await;
    assert_eq!(category, AiErrorCategory::ServiceUnavailable);
    assert!(message.contains("429"), "{message}");
    assert_eq!(meta.route, AiRoute::Llm);
    // Connection refused is service_unavailable too.
    let dead = agent("http://127.0.0.1:9/v1");
    let (category, _, _) = ask_failing(&dead, "draw something nice").await;
    assert_eq!(category, AiErrorCategory::ServiceUnavailable);
}

#[tokio::test]
async fn llm_4_no_tool_calls_is_no_understand() {
    let f = FakeLlm::start(vec![text_reply("I can only help with the board.")]).await;
    let (category, message, meta) = ask_failing(&agent(&f.url), "write me a poem").await;
    assert_eq!(category, AiErrorCategory::NoUnderstand);
    assert_eq!(message, "I can only help with the board.");
    assert_eq!(meta.steps, 1);
}

#[tokio::test]
async fn llm_9_timeout_is_service_unavailable() {
    let f = FakeLlm::start(vec![text_reply("too late")]).await;
    f.set_delay(Duration::from_secs(3));
    let a = Agent::new(AgentConfig {
        llm: Some(LlmConfig {
            base_url: f.url.clone(),
            api_key: "k".into(),
            model: "m".into(),
            timeout: Duration::from_millis(200),
        }),
        ..AgentConfig::default()
    });
    let t = Instant::now();
    let (category, message, _) = ask_failing(&a, "draw something nice").await;
    assert_eq!(category, AiErrorCategory::ServiceUnavailable);
    assert!(message.contains("timed out"));
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn llm_10_uncorrected_failure_is_partial_failure_and_no_hex() {
    let f = FakeLlm::start(vec![
        tool_reply(&[
            (
                "batchOperations",
                json!({"operations": [{"op": "createNote", "ref": "note_1", "text": "kept"}]}),
            ),
            ("deleteElements", json!({"ids": ["ghost-id"]})),
        ]),
        text_reply("Added a #90CAF9 note."),
    ])
    .await;
    let p = ask(
        &agent(&f.url),
        &BoardState::default(),
        "note and cleanup",
        Mode::Build,
    )
    .await;
    let AiPlan::Execute {
        intent,
        error,
        reply,
        ..
    } = p
    else {
        panic!("{p:?}")
    };
    assert_eq!(intent.calls.len(), 1);
    let e = error.unwrap();
    assert_eq!(e.category, AiErrorCategory::PartialFailure);
    assert!(e.message.contains("ghost-id"));
    assert_eq!(reply, "Added a blue note.");
}
