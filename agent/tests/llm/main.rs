//! The LLM loop against a scripted OpenAI-compatible HTTP server started in the test (real HTTP,
//! real async-openai client). Rule ids: LLM-n, AI-IMG-5 (pictures.rs).
#![allow(clippy::unwrap_used)]
#[path = "../common/mod.rs"]
mod common;
mod failures;
#[path = "../common/fake_llm.rs"]
mod fake_llm;
mod modes;
mod pictures;

use agent::{Agent, AgentConfig, AiPlan, AiRequest, LlmConfig, SessionMemory, StagedCall};
use common::*;
use fake_llm::{FakeLlm, MODEL, flowchart_batch, text_reply, tool_reply};
use protocol::{AiErrorCategory, AiRoute, BoardState, Geo, Kind, Mode};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn agent(url: &str) -> Agent {
    Agent::new(AgentConfig {
        llm: Some(LlmConfig {
            base_url: url.into(),
            api_key: "test-key".into(),
            model: MODEL.into(),
            timeout: Duration::from_secs(10),
        }),
        ..AgentConfig::default()
    })
}

async fn ask(a: &Agent, board: &BoardState, text: &str, mode: Mode) -> AiPlan {
    let mut req = AiRequest::new(text, user());
    req.mode = mode;
    req.viewport = ctx().viewport;
    a.plan_at(&req, board, &mut SessionMemory::new(), Instant::now())
        .await
}

fn tool_results(req: &Value) -> Vec<Value> {
    req["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| serde_json::from_str(m["content"].as_str().unwrap()).unwrap())
        .collect()
}

#[tokio::test]
async fn llm_1_batch_with_refs_and_flowchart() {
    let batch = flowchart_batch();
    let f = FakeLlm::start(vec![
        tool_reply(&[("batchOperations", batch)]),
        text_reply("Created a 3-step flowchart."),
    ])
    .await;
    let mut board = BoardState::default();
    let p = ask(
        &agent(&f.url),
        &board,
        "draw a flowchart for signup validation",
        Mode::Build,
    )
    .await;
    let AiPlan::Execute {
        intent,
        reply,
        meta,
        error,
        ..
    } = p
    else {
        panic!("{p:?}")
    };
    assert_eq!(reply, "Created a 3-step flowchart.");
    assert!(error.is_none());
    assert_eq!(
        (meta.route, meta.steps, meta.model.as_deref()),
        (AiRoute::Llm, 2, Some(MODEL))
    );
    assert_eq!(
        (meta.input_tokens, meta.output_tokens),
        (Some(150), Some(30))
    );
    let r = run(&mut board, &intent, &ctx());
    assert_eq!(r.created.len(), 5);
    let o = |i: usize| board.get(r.created[i].as_str()).unwrap().clone();
    assert!(o(0).y + o(0).h <= o(1).y && o(1).y + o(1).h <= o(2).y);
    assert_eq!(o(1).geo, Some(Geo::Diamond));
    // The staged call was answered with tool + _observation + valid.
    let results = tool_results(&f.requests()[1]);
    assert_eq!(results[0]["valid"], true);
    assert_eq!(
        results[0]["_observation"],
        "Batch of 5 operations with layout directive flowchart-top-down"
    );
}

#[tokio::test]
async fn llm_2_duplicate_and_missing_refs() {
    let batch = json!({"operations": [
        {"op": "createNote", "ref": "note_a", "text": "first"},
        {"op": "createNote", "ref": "note_a", "text": "dup"},
        {"op": "createNote", "ref": "note_b", "text": "orphan", "parentRef": "frame_nope"},
        {"op": "createConnector", "ref": "conn_x", "fromRef": "note_a", "toRef": "note_missing"}
    ]});
    let f = FakeLlm::start(vec![
        tool_reply(&[("batchOperations", batch)]),
        text_reply(""),
    ])
    .await;
    let mut board = BoardState::default();
    let AiPlan::Execute { intent, reply, .. } =
        ask(&agent(&f.url), &board, "notes", Mode::Build).await
    else {
        panic!()
    };
    let r = run(&mut board, &intent, &ctx());
    assert_eq!(board.len(), 2);
    assert!(r.warnings.iter().any(|w| w.contains("'note_a'")));
    assert!(r.warnings.iter().any(|w| w.contains("frame_nope")));
    assert!(r.warnings.iter().any(|w| w.contains("note_missing")));
    assert!(reply.starts_with("Created 2 yellow notes."), "{reply}");
}

#[tokio::test]
async fn llm_5_get_board_state_then_update() {
    let mut board = BoardState::default();
    let star = add(
        &mut board,
        Kind::Shape,
        Some(Geo::Star),
        "green",
        5000.0,
        5000.0,
        100.0,
        100.0,
    );
    let f = FakeLlm::start(vec![
        tool_reply(&[(
            "getBoardState",
            json!({"kinds": ["shape"], "colors": ["green"]}),
        )]),
        tool_reply(&[(
            "updateElements",
            json!({"updates": [{"id": star.id.to_string(), "dx": 100, "color": "purple"}]}),
        )]),
        text_reply("Moved the green star to the right and made it violet."),
    ])
    .await;
    let p = ask(
        &agent(&f.url),
        &board,
        "the star should sit further right, in purple",
        Mode::Build,
    )
    .await;
    let AiPlan::Execute { intent, meta, .. } = p else {
        panic!("{p:?}")
    };
    assert_eq!(meta.steps, 3);
    let reqs = f.requests();
    let state = &tool_results(&reqs[1])[0];
    assert_eq!(state["total"], 1);
    assert!(
        state["objects"][0]
            .as_str()
            .unwrap()
            .contains(star.id.as_str())
    );
    run(&mut board, &intent, &ctx());
    let s = board.get(star.id.as_str()).unwrap();
    assert_eq!((s.x, s.color.as_str()), (5100.0, "#CE93D8"));
}

#[tokio::test]
async fn llm_6_invalid_id_corrected_after_valid_false() {
    let mut board = BoardState::default();
    let note = add(
        &mut board,
        Kind::Note,
        None,
        "yellow",
        0.0,
        0.0,
        200.0,
        200.0,
    );
    let f = FakeLlm::start(vec![
        tool_reply(&[("deleteElements", json!({"ids": ["made-up-id"]}))]),
        tool_reply(&[("deleteElements", json!({"ids": [note.id.to_string()]}))]),
        text_reply("Deleted the note."),
    ])
    .await;
    let p = ask(
        &agent(&f.url),
        &board,
        "that note is obsolete, get rid of it",
        Mode::Build,
    )
    .await;
    let AiPlan::Execute { intent, error, .. } = p else {
        panic!("{p:?}")
    };
    assert!(error.is_none(), "the model corrected itself");
    let reqs = f.requests();
    let first = &tool_results(&reqs[1])[0];
    assert_eq!(first["valid"], false);
    assert!(first["error"].as_str().unwrap().contains("made-up-id"));
    assert_eq!(intent.calls.len(), 1);
    assert!(
        matches!(&intent.calls[0], StagedCall::DeleteElements(d) if d.ids == [note.id.to_string()])
    );
    run(&mut board, &intent, &ctx());
    assert!(board.is_empty());
}

#[tokio::test]
async fn llm_7_request_carries_tools_prompt_and_context() {
    let mut board = BoardState::default();
    add(
        &mut board,
        Kind::Note,
        None,
        "yellow",
        10.0,
        10.0,
        200.0,
        200.0,
    );
    let f = FakeLlm::start(vec![text_reply("ok")]).await;
    let _ = ask(
        &agent(&f.url),
        &board,
        "tidy up the yellow note",
        Mode::Build,
    )
    .await;
    let req = &f.requests()[0];
    assert_eq!(req["model"], MODEL);
    let names: Vec<&str> = req["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "getBoardState",
            "batchOperations",
            "updateElements",
            "layoutElements",
            "deleteElements",
            "duplicateElements",
            "askUser"
        ]
    );
    let batch = req["tools"][1]["function"]["parameters"].to_string();
    assert!(batch.contains("^[a-z0-9_]{2,40}$") && batch.contains("swot-2x2"));
    let system = req["messages"][0]["content"].as_str().unwrap();
    for s in [
        "## Role",
        "## Coordinate System",
        "## Color Palette",
        "## Rules",
        "## Out of Scope",
        "## Board State",
        "## Current Selection",
    ] {
        assert!(system.contains(s), "{s}");
    }
    assert!(system.contains("kind=note") && system.contains("color=yellow"));
    assert_eq!(
        req["messages"].as_array().unwrap().last().unwrap()["content"],
        "tidy up the yellow note"
    );
}
