//! LLM-8 and LLM-11 to LLM-13: plan mode, conversation turns, a mode change that takes effect on
//! the next tool call, and a plan future that a worker task can hold (it is `Send`).

use super::*;

#[tokio::test]
async fn llm_8_plan_mode_denies_writes_and_asks_approval() {
    let batch = json!({"operations": [{"op": "createNote", "ref": "note_1", "text": "idea"}]});
    let f = FakeLlm::start(vec![
        tool_reply(&[("batchOperations", batch), ("writePlan", json!({"path": "/plans/ideas.plan", "content": "- [ ] Add an idea note"}))]),
        tool_reply(&[("askUser", json!({"questions": [{"name": "approve", "question": "Build it?", "schema": {"type": "boolean"}, "buttons": [{"label": "Accept & Build", "value": true}, {"label": "Keep Planning", "value": false}]}]}))]),
    ])
    .await;
    let board = BoardState::default();
    let p = ask(&agent(&f.url), &board, "plan an ideas board", Mode::Plan).await;
    let AiPlan::Planned {
        plan, questions, ..
    } = p
    else {
        panic!("{p:?}")
    };
    assert_eq!(plan.path, "/plans/ideas.plan");
    assert_eq!(plan.markdown, "- [ ] Add an idea note");
    assert_eq!(plan.preview.calls.len(), 1);
    assert_eq!(questions[0].name, "approve");
    let results = tool_results(&f.requests()[1]);
    assert_eq!(results[0]["error"], agent::plan_mode::PLAN_MODE_DENIED);
    let tools: Vec<String> = f.requests()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(tools.contains(&"exitPlanMode".to_string()));
    // Approved: the builder prompt pins the plan; exitPlanMode from plan mode switches persona.
    let f2 = FakeLlm::start(vec![
        tool_reply(&[(
            "exitPlanMode",
            json!({"plan_file_path": "/plans/ideas.plan"}),
        )]),
        tool_reply(&[(
            "batchOperations",
            json!({"operations": [{"op": "createNote", "ref": "note_1", "text": "idea"}]}),
        )]),
        text_reply("Built the plan."),
    ])
    .await;
    let mut req = AiRequest::new("[Answered: Accept & Build]", user());
    req.mode = Mode::Plan;
    req.plan = Some(plan);
    let p = agent(&f2.url)
        .plan_at(&req, &board, &mut SessionMemory::new(), Instant::now())
        .await;
    let AiPlan::Execute {
        mode_change,
        intent,
        ..
    } = p
    else {
        panic!("{p:?}")
    };
    assert_eq!(mode_change.unwrap().mode, Mode::Build);
    assert_eq!(intent.calls.len(), 1);
    let reqs = f2.requests();
    let sys = reqs[1]["messages"][0]["content"].as_str().unwrap();
    assert!(sys.contains("## APPROVED EXECUTION PLAN\n- [ ] Add an idea note"));
    assert!(!reqs[1]["tools"].to_string().contains("exitPlanMode"));
}

#[tokio::test]
async fn llm_11_conversation_turns_go_with_the_prompt() {
    let f = FakeLlm::start(vec![text_reply("Which board area?"), text_reply("ok")]).await;
    let a = agent(&f.url);
    let board = BoardState::default();
    let mut mem = SessionMemory::new();
    let now = Instant::now();
    let r1 = AiRequest::new("tidy the workshop area", user());
    let _ = a.plan_at(&r1, &board, &mut mem, now).await;
    let r2 = AiRequest::new("the left side", user());
    let _ = a.plan_at(&r2, &board, &mut mem, now).await;
    let msgs = f.requests()[1]["messages"].as_array().unwrap().clone();
    let texts: Vec<&str> = msgs
        .iter()
        .skip(1)
        .map(|m| m["content"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        texts,
        [
            "tidy the workshop area",
            "Which board area?",
            "the left side"
        ]
    );
    assert_eq!(msgs[2]["role"], "assistant");
}

#[test]
fn llm_12_plan_future_is_send_for_a_worker_task() {
    fn assert_send<T: Send>(_: &T) {}
    fn assert_sync<T: Send + Sync>() {}
    assert_sync::<Agent>();
    let a = agent("http://127.0.0.1:9/v1");
    let board = BoardState::default();
    let mut mem = SessionMemory::new();
    let req = AiRequest::new("x", user());
    let fut = a.plan(&req, &board, &mut mem);
    assert_send(&fut);
}

#[tokio::test]
async fn llm_13_set_mode_takes_effect_on_the_next_tool_call() {
    let f = FakeLlm::start(vec![
        tool_reply(&[(
            "batchOperations",
            json!({"operations": [{"op": "createNote", "ref": "note_1", "text": "x"}]}),
        )]),
        text_reply("done"),
    ])
    .await;
    let live = agent::plan_mode::LiveMode::new(Mode::Build);
    let mut req = AiRequest::new("jot an idea", user());
    req.live_mode = Some(live.clone());
    // The user switches to plan mode after the command was sent.
    live.set(Mode::Plan);
    let p = agent(&f.url)
        .plan_at(
            &req,
            &BoardState::default(),
            &mut SessionMemory::new(),
            Instant::now(),
        )
        .await;
    assert!(matches!(p, AiPlan::Planned { .. }), "{p:?}");
    let denied = &tool_results(&f.requests()[1])[0];
    assert_eq!(denied["error"], agent::plan_mode::PLAN_MODE_DENIED);
}
