//! AI on the live board, end to end: the real server on port 0, real WebSockets, the real agent
//! (template router and offline planner) and, for the LLM route, a scripted OpenAI-compatible
//! HTTP server. Each test names the docs/SPEC.md rule it checks (AI-n).
#![allow(clippy::unwrap_used)]

#[path = "../common/mod.rs"]
mod common;
mod llm;
mod planner;

use common::*;
use protocol::{BoardObject, Kind};
use serde_json::{Value, json};
use std::time::Duration;

const VIEWPORT: &str = r#"{"x":0,"y":0,"w":1600,"h":1000}"#;

fn viewport() -> Value {
    serde_json::from_str(VIEWPORT).unwrap()
}

/// Sends an `ai` command.
async fn ai(c: &mut Client, id: &str, text: &str) {
    c.send(json!({"type":"ai","id":id,"text":text,"viewport":viewport()}))
        .await;
}

/// Waits for the `ai_result` of `id`, collecting what came before it.
async fn result_of(c: &mut Client, id: &str) -> (Value, Vec<Value>) {
    let mut before = Vec::new();
    loop {
        let v = c.next().await;
        if v["type"] == "ai_result" && v["id"] == id {
            return (v, before);
        }
        before.push(v);
    }
}

/// Runs one command to its result and asserts it executed.
async fn run(c: &mut Client, id: &str, text: &str) -> Value {
    ai(c, id, text).await;
    let (r, _) = result_of(c, id).await;
    assert_eq!(r["outcome"], "executed", "{text}: {r}");
    r
}

fn by_id(c: &Client, id: &str) -> BoardObject {
    c.mirror.get(id).unwrap().clone()
}

fn created(r: &Value) -> Vec<String> {
    r["created"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// Gap between two boxes (0 when they touch or overlap).
fn gap(a: &BoardObject, b: &BoardObject) -> f64 {
    let dx = (b.x - (a.x + a.w)).max(a.x - (b.x + b.w)).max(0.0);
    let dy = (b.y - (a.y + a.h)).max(a.y - (b.y + b.h)).max(0.0);
    dx.max(dy)
}

#[tokio::test]
async fn ai_1_swot_is_one_applied_for_everyone_and_one_undo_reverts_it() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    ai(&mut a, "a1", "create a SWOT analysis for a coffee shop").await;
    let (r, before) = result_of(&mut a, "a1").await;
    assert_eq!(r["outcome"], "executed", "{r}");
    // ai_status queued then running, then exactly one applied, then the result.
    let before: Vec<Value> = before
        .into_iter()
        .filter(|v| v["type"] != "joined" && v["type"] != "presence")
        .collect();
    let types: Vec<&str> = before.iter().map(|v| v["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["ai_status", "ai_status", "applied"], "{before:?}");
    assert_eq!(before[0]["state"], "queued");
    assert_eq!(before[1]["state"], "running");
    let applied = &before[2];
    assert_eq!(applied["command"]["origin"], "ai");
    assert_eq!(applied["command"]["author"], "ann");
    assert_eq!(r["seq"], applied["seq"]);
    assert_eq!(r["meta"]["route"], "template");
    assert!(r["message"].as_str().unwrap().contains("SWOT"), "{r}");
    // Four frames in a 2x2 layout, each holding notes.
    let objs = a.objects();
    let frames: Vec<&BoardObject> = objs.iter().filter(|o| o.kind == Kind::Frame).collect();
    assert_eq!(frames.len(), 4);
    let titles: Vec<&str> = frames.iter().map(|f| f.text.as_str()).collect();
    for t in ["Strengths", "Weaknesses", "Opportunities", "Threats"] {
        assert!(titles.contains(&t), "{titles:?}");
    }
    let mut xs: Vec<i64> = frames.iter().map(|f| f.x as i64).collect();
    let mut ys: Vec<i64> = frames.iter().map(|f| f.y as i64).collect();
    xs.sort();
    xs.dedup();
    ys.sort();
    ys.dedup();
    assert_eq!((xs.len(), ys.len()), (2, 2), "2x2: {frames:?}");
    for f in &frames {
        let kids = objs
            .iter()
            .filter(|o| o.kind == Kind::Note && o.parent.as_ref() == Some(&f.id))
            .count();
        assert!(kids >= 1, "frame {} has notes", f.text);
    }
    assert_eq!(created(&r).len(), objs.len());
    // Bob saw the very same single command.
    let bv = b.until_type("applied").await;
    assert_eq!(bv, *applied);
    assert_eq!(b.objects(), objs);
    assert!(
        b.try_next(Duration::from_millis(200)).await.is_none(),
        "ai_result and ai_status go to the requester only"
    );
    // Bob's undo does not touch Ann's batch; Ann's one undo removes all of it.
    b.send(json!({"type":"undo"})).await;
    assert_eq!(b.next().await["code"], "nothing_to_undo");
    a.send(json!({"type":"undo"})).await;
    let u = a.until_type("applied").await;
    assert_eq!(u["command"]["origin"], "undo");
    assert!(a.objects().is_empty());
    b.until_type("applied").await;
    assert!(b.objects().is_empty());
    // And redo brings it back as one command.
    a.send(json!({"type":"redo"})).await;
    a.until_type("applied").await;
    let unversioned = |v: Vec<BoardObject>| {
        v.into_iter()
            .map(|mut o| {
                o.version = 0;
                o
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(unversioned(a.objects()), unversioned(objs));
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_2_seed_004_eight_prompts_in_order_on_one_board() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let r = run(&mut a, "p1", "Create a red circle at position 100, 200").await;
    let red = by_id(&a, created(&r)[0].as_str());
    assert_eq!(
        (red.x, red.y, red.color.as_str()),
        (100.0, 200.0, "#EF9A9A")
    );
    assert_eq!(r["message"], "Created a red circle at (100, 200).");
    let r = run(&mut a, "p2", "Make a 200x300 rectangle").await;
    assert_eq!(created(&r).len(), 1, "exactly one rectangle");
    let rect = by_id(&a, created(&r)[0].as_str());
    assert_eq!((rect.w, rect.h), (200.0, 300.0));
    let r = run(&mut a, "p3", "Create a blue circle").await;
    let circle = by_id(&a, created(&r)[0].as_str());
    let r = run(&mut a, "p4", "Create a blue square").await;
    assert_eq!(r["message"], "Created a blue square.");
    let square = by_id(&a, created(&r)[0].as_str());
    assert_eq!(square.w, square.h);
    run(&mut a, "p5", "Resize the circle to be twice as big").await;
    let c2 = by_id(&a, circle.id.as_str());
    assert_eq!((c2.w, c2.h), (circle.w * 2.0, circle.h * 2.0));
    assert_eq!(
        by_id(&a, red.id.as_str()).w,
        red.w,
        "the red circle is untouched"
    );
    let r = run(&mut a, "p6", "Move the blue square to the right").await;
    assert_eq!(r["message"], "Moved the blue square 100 px to the right.");
    assert_eq!(by_id(&a, square.id.as_str()).x, square.x + 100.0);
    run(&mut a, "p7", "Move the blue square 100 pixels to the right").await;
    assert_eq!(by_id(&a, square.id.as_str()).x, square.x + 200.0);
    let r = run(&mut a, "p8", "Delete the red circle").await;
    assert_eq!(r["message"], "Deleted the red circle.");
    assert!(a.mirror.get(red.id.as_str()).is_none());
    assert_eq!(a.objects().len(), 3);
    // Replies name colors, never hex.
    assert!(!r["message"].as_str().unwrap().contains('#'));
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_3_make_it_blue_after_a_create_uses_session_memory() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let r = run(&mut a, "c1", "create a yellow note that says hello").await;
    let id = created(&r)[0].clone();
    assert_eq!(by_id(&a, &id).color, "#FFF59D");
    let r = run(&mut a, "c2", "make it blue").await;
    assert_eq!(by_id(&a, &id).color, "#90CAF9");
    assert!(created(&r).is_empty());
    // Memory is per user: Bob's "it" is not Ann's note.
    let mut b = Client::join(s.addr, "b1", "bob").await;
    ai(&mut b, "b1", "make it red").await;
    let (r, _) = result_of(&mut b, "b1").await;
    assert_ne!(r["outcome"], "executed", "{r}");
    assert_eq!(by_id(&b, &id).color, "#90CAF9");
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_4_arrange_these_in_a_grid_moves_only_the_selection() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let ops: Vec<Value> = (0..8)
        .map(|i| {
            note(
                &format!("n{i}"),
                (i * 37 % 5) as f64 * 900.0,
                (i * 53 % 7) as f64 * 700.0,
            )
        })
        .collect();
    a.commit("c1", Value::Array(ops)).await;
    let before = a.objects();
    let sel = ["n0", "n2", "n4", "n6"];
    a.send(json!({"type":"ai","id":"g1","text":"arrange these in a grid","selection":sel,"viewport":viewport()}))
        .await;
    let (r, _) = result_of(&mut a, "g1").await;
    assert_eq!(r["outcome"], "executed", "{r}");
    for o in &before {
        let now = by_id(&a, o.id.as_str());
        if sel.contains(&o.id.as_str()) {
            continue;
        }
        assert_eq!(
            (now.x, now.y),
            (o.x, o.y),
            "{} outside the selection moved",
            o.id
        );
    }
    // The selection now forms a grid: two distinct rows and columns, aligned.
    let moved: Vec<BoardObject> = sel.iter().map(|i| by_id(&a, i)).collect();
    let mut xs: Vec<i64> = moved.iter().map(|o| o.x as i64).collect();
    let mut ys: Vec<i64> = moved.iter().map(|o| o.y as i64).collect();
    xs.sort();
    xs.dedup();
    ys.sort();
    ys.dedup();
    assert!(xs.len() <= 2 && ys.len() <= 2, "grid: {moved:?}");
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_5_new_objects_keep_20px_from_existing_ones_which_never_move() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    // Existing work spread over the requester's viewport.
    let ops: Vec<Value> = (0..12)
        .map(|i| {
            note(
                &format!("e{i}"),
                (i % 4) as f64 * 400.0,
                (i / 4) as f64 * 330.0,
            )
        })
        .collect();
    a.commit("c1", Value::Array(ops)).await;
    let existing = a.objects();
    for (n, text) in [
        "create a SWOT analysis for a coffee shop",
        "create 6 sticky notes about launch risks",
        "create a kanban board",
    ]
    .iter()
    .enumerate()
    {
        let r = run(&mut a, &format!("x{n}"), text).await;
        for id in created(&r) {
            let o = by_id(&a, &id);
            for e in &existing {
                assert!(
                    gap(&o, e) >= 20.0 - 1e-6,
                    "{text}: new {} ({},{} {}x{}) is {} px from {}",
                    o.id,
                    o.x,
                    o.y,
                    o.w,
                    o.h,
                    gap(&o, e),
                    e.id
                );
            }
        }
        for e in &existing {
            let now = by_id(&a, e.id.as_str());
            assert_eq!(
                (now.x, now.y, now.w, now.h),
                (e.x, e.y, e.w, e.h),
                "existing moved"
            );
        }
    }
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_6_one_users_commands_answer_in_order_while_others_run() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    ai(&mut a, "a1", "create a red circle").await;
    ai(&mut a, "a2", "create a blue square").await;
    ai(&mut a, "a3", "make it green").await;
    ai(&mut b, "b1", "create a SWOT analysis for a coffee shop").await;
    let mut results = Vec::new();
    let mut applied_seqs = Vec::new();
    while results.len() < 3 {
        let v = a.next().await;
        match v["type"].as_str() {
            Some("ai_result") => results.push(v),
            Some("applied") if v["command"]["author"] == "ann" => {
                applied_seqs.push(v["seq"].as_u64().unwrap())
            }
            _ => {}
        }
    }
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a1", "a2", "a3"]);
    for r in &results {
        assert_eq!(r["outcome"], "executed", "{r}");
    }
    let seqs: Vec<u64> = results.iter().map(|r| r["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, applied_seqs, "each result follows its own applied");
    // "it" in a3 is a2's square: commands ran one after another.
    let square = created(&results[1])[0].clone();
    assert_eq!(by_id(&a, &square).color, "#A5D6A7");
    let (rb, _) = result_of(&mut b, "b1").await;
    assert_eq!(rb["outcome"], "executed");
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_7_plan_mode_changes_nothing_until_approved() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    let mut b = Client::join(s.addr, "b1", "bob").await;
    assert_eq!(a.welcome["mode"], "build");
    a.send(json!({"type":"set_mode","mode":"plan"})).await;
    let m = a.until_type("mode_changed").await;
    assert_eq!(m["mode"], "plan");
    ai(&mut a, "p1", "create a SWOT analysis for a coffee shop").await;
    let (r, before) = result_of(&mut a, "p1").await;
    assert_eq!(r["outcome"], "planned", "{r}");
    assert!(before.iter().all(|v| v["type"] != "applied"));
    let path = r["plan"]["path"].as_str().unwrap().to_string();
    assert!(
        path.starts_with("/plans/") && path.ends_with(".plan"),
        "{path}"
    );
    assert!(r["plan"]["markdown"].as_str().unwrap().contains("- [ ]"));
    let q = a.until_type("question").await;
    let qid = q["question_id"].as_str().unwrap().to_string();
    assert_eq!(q["questions"][0]["name"], "approve");
    assert_eq!(
        q["questions"][0]["buttons"],
        json!([
            {"label": "Accept & Build", "value": true, "variant": "primary"},
            {"label": "Keep Planning", "value": false, "variant": "secondary"}
        ])
    );
    assert!(a.objects().is_empty() && b.objects().is_empty());
    assert!(b.try_next(Duration::from_millis(200)).await.is_none());
    // Unknown question id, invalid answer: errors, and the question stays open.
    a.send(json!({"type":"answer","question_id":"q-nope","answers":{"approve":true}}))
        .await;
    assert_eq!(a.until_type("error").await["code"], "not_found");
    a.send(json!({"type":"answer","question_id":qid,"answers":{"approve":"maybe"}}))
        .await;
    assert_eq!(a.until_type("error").await["code"], "invalid");
    a.send(json!({"type":"answer","question_id":qid,"answers":{}}))
        .await;
    assert_eq!(a.until_type("error").await["code"], "invalid");
    // Accept & Build: build mode, then the planned batch as one command.
    a.send(json!({"type":"answer","question_id":qid,"answers":{"approve":"Accept & Build"}}))
        .await;
    let m = a.until_type("mode_changed").await;
    assert_eq!(m["mode"], "build");
    assert_eq!(m["plan_file"], path.as_str());
    let (r, before) = result_of(&mut a, &qid).await;
    assert_eq!(r["outcome"], "executed", "{r}");
    assert_eq!(
        before.iter().filter(|v| v["type"] == "applied").count(),
        1,
        "{before:?}"
    );
    assert_eq!(
        a.objects().iter().filter(|o| o.kind == Kind::Frame).count(),
        4
    );
    b.until_type("applied").await;
    assert_eq!(b.objects(), a.objects());
    // The question was answered: answering it again is stale.
    a.send(json!({"type":"answer","question_id":qid,"answers":{"approve":true}}))
        .await;
    assert_eq!(a.until_type("error").await["code"], "not_found");
    // Keep Planning leaves the board alone and stays in plan mode.
    a.send(json!({"type":"set_mode","mode":"plan"})).await;
    a.until_type("mode_changed").await;
    ai(&mut a, "p2", "create a kanban board").await;
    let (r, _) = result_of(&mut a, "p2").await;
    assert_eq!(r["outcome"], "planned");
    let q = a.until_type("question").await;
    let before = a.objects();
    a.send(json!({"type":"answer","question_id":q["question_id"],"answers":{"approve":false}}))
        .await;
    let (r, _) = result_of(&mut a, q["question_id"].as_str().unwrap()).await;
    assert_eq!(r["outcome"], "clarification");
    assert_eq!(a.objects(), before);
    // The mode survives a reconnect.
    drop(a);
    let a2 = Client::join(s.addr, "b1", "ann").await;
    assert_eq!(a2.welcome["mode"], "plan");
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_8_bad_input_gets_stable_codes() {
    let s = start(config()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    a.send(json!({"type":"ai","id":"","text":"create a note"}))
        .await;
    assert_eq!(a.next().await["code"], "invalid");
    a.send(json!({"type":"ai","id":"x","text": "a".repeat(5000)}))
        .await;
    assert_eq!(a.next().await["code"], "too_large");
    a.send(json!({"type":"ai","id":"x"})).await;
    assert_eq!(a.next().await["code"], "invalid");
    a.send(json!({"type":"set_mode","mode":"turbo"})).await;
    assert_eq!(a.next().await["code"], "invalid");
    a.send(json!({"type":"answer","question_id":"q1","answers":{"a":1}}))
        .await;
    assert_eq!(a.next().await["code"], "not_found");
    ai(&mut a, "e1", "   ").await;
    let (r, _) = result_of(&mut a, "e1").await;
    assert_eq!(
        (r["outcome"].as_str(), r["error"]["category"].as_str()),
        (Some("error"), Some("invalid_request"))
    );
    ai(&mut a, "e2", "qwxz blorpt zzyzx").await;
    let (r, _) = result_of(&mut a, "e2").await;
    assert_eq!(r["outcome"], "clarification");
    assert_eq!(r["error"]["category"], "no_understand");
    assert!(!r["suggestions"].as_array().unwrap().is_empty());
    // An edit of an object someone deleted meanwhile: nothing half-applied.
    let r = run(&mut a, "e3", "create a green note").await;
    let id = created(&r)[0].clone();
    a.commit("d1", json!([{"op":"delete","id":id}])).await;
    ai(&mut a, "e4", "make it red").await;
    let (r, _) = result_of(&mut a, "e4").await;
    assert_ne!(r["outcome"], "executed", "{r}");
    assert!(a.objects().is_empty());
    // The connection is still usable.
    run(&mut a, "e5", "create a blue circle").await;
    assert_no_violations(&s);
    s.shutdown().await.unwrap();
}

#[tokio::test]
async fn ai_9_batches_are_durable_and_survive_a_restart() {
    let dir = std::env::temp_dir().join(format!("board-ai-{}", uuid::Uuid::new_v4()));
    let mut cfg = config();
    cfg.memory_store = false;
    cfg.data_dir = dir.clone();
    let s = start(cfg.clone()).await;
    let mut a = Client::join(s.addr, "b1", "ann").await;
    run(&mut a, "a1", "create a SWOT analysis for a coffee shop").await;
    let objs = a.objects();
    s.shutdown().await.unwrap();
    let s = start(cfg).await;
    let b = Client::join(s.addr, "b1", "bob").await;
    assert_eq!(b.objects(), objs);
    s.shutdown().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}
