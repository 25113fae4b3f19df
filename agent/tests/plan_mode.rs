//! Seed 002 plan/build mode, the question protocol and answer validation. Rule ids: MODE-n.
#![allow(clippy::unwrap_used)]
mod common;

use agent::plan_mode::{
    self, Approval, ModeState, PLAN_MODE_DENIED, approval, approval_question, is_plan_path,
    normalize_answers, to_items,
};
use agent::{Agent, AgentConfig, AiPlan, AiRequest, SessionMemory, validate_answers};
use common::*;
use protocol::{BoardState, Mode, QuestionItem};
use serde_json::{Map, Value, json};
use std::time::Instant;

fn answers(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn q(name: &str, schema: Value) -> QuestionItem {
    QuestionItem {
        name: name.into(),
        question: "?".into(),
        schema,
        buttons: None,
    }
}

#[test]
fn mode_1_exact_denial_message() {
    assert_eq!(
        PLAN_MODE_DENIED,
        "System is in Plan Mode. You can only modify the plan. Switch to Build Mode to apply changes."
    );
}

#[tokio::test]
async fn mode_2_offline_plan_mode_writes_plan_and_asks() {
    let agent = Agent::new(AgentConfig::default());
    let board = BoardState::default();
    let mut mem = SessionMemory::new();
    let mut req = AiRequest::new("make a SWOT analysis for a bakery", user());
    req.mode = Mode::Plan;
    let p = agent.plan_at(&req, &board, &mut mem, Instant::now()).await;
    let AiPlan::Planned {
        plan,
        questions,
        ask,
        ..
    } = p
    else {
        panic!("{p:?}")
    };
    assert!(is_plan_path(&plan.path), "{}", plan.path);
    assert!(plan.path.starts_with("/plans/make-a-swot"));
    assert!(plan.markdown.contains("- [ ] Frame \"Strengths\""));
    assert!(!plan.preview.is_empty());
    assert_eq!(questions.len(), 1);
    assert_eq!(questions[0].name, "approve");
    assert_eq!(questions[0].schema, json!({"type": "boolean"}));
    let buttons = questions[0].buttons.as_deref().unwrap();
    let labels: Vec<&str> = buttons.iter().map(|b| b.label.as_str()).collect();
    assert_eq!(labels, ["Accept & Build", "Keep Planning"]);
    assert_eq!(
        (buttons[0].value.clone(), buttons[0].variant.as_deref()),
        (json!(true), Some("primary"))
    );
    assert_eq!(buttons[1].value, json!(false));
    assert_eq!(
        ask.questions[0].buttons.as_ref().unwrap()[0].value,
        json!(true)
    );
    // Approve: exitPlanMode switches to build; the approved plan's preview is executed.
    let a = answers(json!({"approve": true}));
    validate_answers(&questions, &a).unwrap();
    assert_eq!(approval(&a), Some(Approval::Accept));
    let mut mode = ModeState {
        mode: Mode::Plan,
        plan_file: None,
    };
    let change = mode.exit_plan_mode(&plan.path, Some(&plan)).unwrap();
    assert_eq!(
        (change.mode, change.plan_file.as_deref()),
        (Mode::Build, Some(plan.path.as_str()))
    );
    let mut build = req.clone();
    build.mode = Mode::Build;
    build.plan = Some(plan.clone());
    let AiPlan::Execute { intent, .. } = agent
        .plan_at(&build, &board, &mut mem, Instant::now())
        .await
    else {
        panic!()
    };
    assert_eq!(intent, plan.preview);
    let mut b = board.clone();
    run(&mut b, &intent, &ctx());
    assert_eq!(
        b.objects()
            .filter(|o| o.kind == protocol::Kind::Frame)
            .count(),
        4
    );
}

#[test]
fn mode_3_answers_validated_against_schema() {
    let qs = vec![
        q("confirm", json!({"type": "boolean"})),
        q(
            "env",
            json!({"type": "string", "enum": ["dev", "staging", "prod"]}),
        ),
        q(
            "branch",
            json!({"type": "string", "pattern": "^[a-z0-9-]+$", "minLength": 3}),
        ),
        q(
            "parts",
            json!({"type": "array", "items": {"type": "string", "enum": ["frontend", "backend"]}, "minItems": 1}),
        ),
        q(
            "cfg",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        ),
    ];
    let good = json!({"confirm": true, "env": "staging", "branch": "feat-1", "parts": ["backend"], "cfg": {"path": "/x"}});
    validate_answers(&qs, &answers(good.clone())).unwrap();
    for (k, bad) in [
        ("confirm", json!("yes")),
        ("env", json!("qa")),
        ("branch", json!("No Caps")),
        ("parts", json!([])),
        ("cfg", json!({})),
    ] {
        let mut a = answers(good.clone());
        a.insert(k.into(), bad);
        let e = validate_answers(&qs, &a).unwrap_err();
        assert!(e.contains(k), "{e}");
    }
    let mut missing = answers(good.clone());
    missing.remove("env");
    assert!(
        validate_answers(&qs, &missing)
            .unwrap_err()
            .contains("not answered")
    );
    let mut extra = answers(good);
    extra.insert("other".into(), json!(1));
    assert!(
        validate_answers(&qs, &extra)
            .unwrap_err()
            .contains("no question named")
    );
}

#[test]
fn mode_4_mode_switching() {
    let mut m = ModeState::default();
    assert_eq!(m.mode, Mode::Build, "build is the default (DESIGN §10)");
    assert!(m.set_mode(Mode::Build).is_none());
    assert_eq!(m.set_mode(Mode::Plan).unwrap().mode, Mode::Plan);
    assert!(m.exit_plan_mode("/etc/passwd", None).is_err());
    assert!(
        m.exit_plan_mode("/plans/x.plan", None)
            .unwrap_err()
            .contains("does not exist")
    );
    assert_eq!(m.mode, Mode::Plan);
    assert!(
        !is_plan_path("/plans/../x.plan")
            && !is_plan_path("/plans/.plan")
            && is_plan_path("/plans/road-map_2.plan")
    );
}

#[test]
fn mode_5_button_labels_map_to_values() {
    let ask = approval_question("/plans/p.plan");
    let a = normalize_answers(&ask, &answers(json!({"approve": "Keep Planning"})));
    assert_eq!(a["approve"], json!(false));
    validate_answers(&to_items(&ask), &a).unwrap();
    assert_eq!(approval(&a), Some(Approval::KeepPlanning));
    assert_eq!(plan_mode::plan_path("   "), "/plans/board-plan.plan");
}
