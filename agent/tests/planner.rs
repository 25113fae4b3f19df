//! Seed 004's eight prompts and everyday commands on the offline planner (no LLM), seed 001 AC-8
//! session memory. Rule ids: PLAN-n, MEM-n.
#![allow(clippy::unwrap_used)]
mod common;

use agent::planner::targets::Scope;
use agent::planner::{Planned, plan};
use agent::{Agent, AgentConfig, AiPlan, AiRequest, Intent, SessionMemory, resolve};
use common::*;
use protocol::{AiErrorCategory, AiRoute, BoardState, Geo, Kind, ObjectId};
use std::time::{Duration, Instant};

struct Session {
    board: BoardState,
    memory: SessionMemory,
    selection: Vec<ObjectId>,
    now: Instant,
    agent: Agent,
}

impl Session {
    fn new() -> Self {
        Session {
            board: BoardState::default(),
            memory: SessionMemory::new(),
            selection: vec![],
            now: Instant::now(),
            agent: Agent::new(AgentConfig::default()),
        }
    }

    /// Runs a command through the agent (offline) and applies it; returns the reply.
    fn say(&mut self, text: &str) -> (String, agent::Resolved) {
        let mut req = AiRequest::new(text, user());
        req.selection = self.selection.clone();
        req.viewport = ctx().viewport;
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let plan = rt.block_on(
            self.agent
                .plan_at(&req, &self.board, &mut self.memory, self.now),
        );
        let AiPlan::Execute {
            intent,
            reply,
            meta,
            ..
        } = plan
        else {
            panic!("{text}: {plan:?}")
        };
        assert!(matches!(meta.route, AiRoute::Planner | AiRoute::Template));
        let r = run(&mut self.board, &intent, &req.resolve_ctx());
        assert_eq!(reply, r.message(), "preview reply equals the applied one");
        self.memory.remember_created(&r.created, self.now);
        (r.message(), r)
    }

    fn intent(&self, text: &str) -> Option<Planned> {
        let scope = Scope::new(&self.board, &self.selection, &self.memory, self.now);
        plan(text, &scope)
    }
}

fn only<'a>(b: &'a BoardState, r: &agent::Resolved) -> &'a protocol::BoardObject {
    assert_eq!(r.created.len(), 1);
    b.get(r.created[0].as_str()).unwrap()
}

#[test]
fn plan_1_seed_004_eight_prompts() {
    let mut s = Session::new();
    // 1. "Create a red circle at position 100, 200"
    let (reply, r) = s.say("Create a red circle at position 100, 200");
    let red = only(&s.board, &r).clone();
    assert_eq!(
        (red.kind, red.geo, red.x, red.y),
        (Kind::Shape, Some(Geo::Ellipse), 100.0, 200.0)
    );
    assert_eq!(red.w, red.h);
    assert_eq!(red.color, "#EF9A9A");
    assert_eq!(reply, "Created a red circle at (100, 200).");
    // 2. "Make a 200x300 rectangle": exactly one object.
    let (reply, r) = s.say("Make a 200x300 rectangle");
    let rect_ = only(&s.board, &r).clone();
    assert_eq!(
        (rect_.geo, rect_.w, rect_.h),
        (Some(Geo::Rectangle), 200.0, 300.0)
    );
    assert_eq!(reply, "Created a light-blue rectangle (200×300).");
    // 3. "Create a blue circle"
    let (reply, r) = s.say("Create a blue circle");
    let blue_circle = only(&s.board, &r).clone();
    assert_eq!(
        (blue_circle.geo, blue_circle.color.as_str()),
        (Some(Geo::Ellipse), "#90CAF9")
    );
    assert_eq!(blue_circle.w, blue_circle.h);
    assert_eq!(reply, "Created a blue circle.");
    // 4. "Create a blue square": a rectangle with w = h, named a square.
    let (reply, r) = s.say("Create a blue square");
    let square = only(&s.board, &r).clone();
    assert_eq!(
        (square.geo, square.w == square.h),
        (Some(Geo::Rectangle), true)
    );
    assert_eq!(reply, "Created a blue square.");
    assert_eq!(s.board.len(), 4);
    // 5. "Resize the circle to be twice as big": two circles; the most recent (blue) one.
    let (reply, _) = s.say("Resize the circle to be twice as big");
    let bc = s.board.get(blue_circle.id.as_str()).unwrap();
    assert_eq!((bc.w, bc.h), (blue_circle.w * 2.0, blue_circle.h * 2.0));
    assert_eq!(
        s.board.get(red.id.as_str()).unwrap().w,
        red.w,
        "the red circle is untouched"
    );
    assert!(
        reply.starts_with("Resized the blue circle to 400×400 (twice as big)"),
        "{reply}"
    );
    // 6. "Move the blue square to the right": +100 px.
    let (reply, _) = s.say("Move the blue square to the right");
    let sq = s.board.get(square.id.as_str()).unwrap().clone();
    assert_eq!((sq.x, sq.y), (square.x + 100.0, square.y));
    assert_eq!(reply, "Moved the blue square 100 px to the right.");
    // 7. "Move the blue square 100 pixels to the right"
    s.say("Move the blue square 100 pixels to the right");
    assert_eq!(s.board.get(square.id.as_str()).unwrap().x, square.x + 200.0);
    // 8. "Delete the red circle"
    let (reply, _) = s.say("Delete the red circle");
    assert!(s.board.get(red.id.as_str()).is_none());
    assert!(s.board.get(blue_circle.id.as_str()).is_some());
    assert_eq!(reply, "Deleted the red circle.");
    assert_eq!(s.board.len(), 3);
}

#[test]
fn plan_2_replies_never_hex() {
    let mut s = Session::new();
    for cmd in [
        "Create a purple star",
        "add a green note that says \"Ship it\"",
        "make it orange",
        "create 3 pink notes",
    ] {
        let (reply, _) = s.say(cmd);
        assert!(!reply.contains('#'), "{reply}");
    }
    let (reply, _) = s.say("Create a purple star");
    assert_eq!(reply, "Created a violet star (200×120).");
}

#[test]
fn plan_3_create_counts_text_size_position() {
    let mut s = Session::new();
    let (_, r) = s.say("create 5 sticky notes about onboarding ideas");
    assert_eq!(r.created.len(), 5);
    let texts: Vec<String> = r
        .created
        .iter()
        .map(|i| s.board.get(i.as_str()).unwrap().text.clone())
        .collect();
    assert_eq!(texts[0], "onboarding ideas 1");
    let (_, r) = s.say("add a yellow note that says Hello World");
    assert_eq!(only(&s.board, &r).text, "Hello World");
    let (_, r) = s.say("draw a 300 by 150 green diamond at 3000, 3600");
    let d = only(&s.board, &r);
    assert_eq!(
        (d.geo, d.w, d.h, d.x, d.y),
        (Some(Geo::Diamond), 300.0, 150.0, 3000.0, 3600.0)
    );
    let (_, r) = s.say("add a frame called Research");
    assert_eq!(
        (only(&s.board, &r).kind, only(&s.board, &r).text.as_str()),
        (Kind::Frame, "Research")
    );
    let (_, r) = s.say("create a text saying 'Q3 goals'");
    assert_eq!(only(&s.board, &r).text, "Q3 goals");
}

#[test]
fn plan_4_edits_by_memory_selection_and_description() {
    let mut s = Session::new();
    let (_, r) = s.say("create a yellow note");
    let id = r.created[0].clone();
    // AC-8: "it" = the last created object.
    s.say("make it blue");
    assert_eq!(s.board.get(id.as_str()).unwrap().color, "#90CAF9");
    s.say("move it down 50 pixels");
    let o = s.board.get(id.as_str()).unwrap().clone();
    s.say("make it bigger");
    assert_eq!(s.board.get(id.as_str()).unwrap().w, o.w * 1.5);
    s.say("rename it to \"Done\"");
    assert_eq!(s.board.get(id.as_str()).unwrap().text, "Done");
    // "these" = the selection.
    let (_, r) = s.say("create 3 green squares");
    s.selection = r.created.clone();
    let (reply, _) = s.say("arrange these in a column");
    assert_eq!(reply, "Arranged 3 objects in a column.");
    let xs: Vec<f64> = r
        .created
        .iter()
        .map(|i| s.board.get(i.as_str()).unwrap().x)
        .collect();
    assert!(xs.windows(2).all(|w| (w[0] - w[1]).abs() < 1.0));
    s.selection.clear();
    // "connect them": a chain of connectors between the last batch.
    let (reply, r2) = s.say("Connect them with arrows");
    assert_eq!(r2.created.len(), 2);
    assert!(reply.starts_with("Created 2"), "{reply}");
    // By description, with change verbs.
    s.say("change the color of the blue note to red");
    assert_eq!(s.board.get(id.as_str()).unwrap().color, "#EF9A9A");
    s.say("duplicate the red note");
    assert_eq!(
        s.board.objects().filter(|o| o.kind == Kind::Note).count(),
        2
    );
    s.say("delete all notes");
    assert_eq!(
        s.board.objects().filter(|o| o.kind == Kind::Note).count(),
        0
    );
    // By id written in the command.
    let sq = r.created[0].clone();
    s.say(&format!("move {sq} to 40, 50"));
    let o = s.board.get(sq.as_str()).unwrap();
    assert_eq!((o.x, o.y), (40.0, 50.0));
}

#[test]
fn plan_5_not_found_is_a_clarification() {
    let s = Session::new();
    match s.intent("delete the red circle") {
        Some(Planned::Clarify {
            message,
            suggestions,
        }) => {
            assert_eq!(message, "I couldn't find a red circle on the board.");
            assert!(!suggestions.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn plan_6_unparsable_without_llm_is_no_understand() {
    let mut s = Session::new();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let p = rt.block_on(s.agent.plan_at(
        &AiRequest::new("what is the meaning of life", user()),
        &s.board,
        &mut s.memory,
        s.now,
    ));
    let AiPlan::Clarification {
        error, suggestions, ..
    } = p
    else {
        panic!("{p:?}")
    };
    assert_eq!(error.unwrap().category, AiErrorCategory::NoUnderstand);
    assert!(!suggestions.is_empty());
}

#[test]
fn plan_7_parser_is_general() {
    use agent::planner::parse::{Command, MoveSpec, SizeSpec, parse};
    assert!(
        matches!(parse("please move the green star 250 px up"), Some(Command::Move(_, MoveSpec::By(dx, dy))) if dx == 0.0 && dy == -250.0)
    );
    assert!(
        matches!(parse("move it left"), Some(Command::Move(_, MoveSpec::By(dx, _))) if dx == -100.0)
    );
    assert!(
        matches!(parse("make the big circle half the size"), Some(Command::Resize(_, SizeSpec::Scale(f))) if f == 0.5)
    );
    assert!(
        matches!(parse("scale it 3 times"), Some(Command::Resize(_, SizeSpec::Scale(f))) if f == 3.0)
    );
    assert!(
        matches!(parse("resize the frame to 800x600"), Some(Command::Resize(_, SizeSpec::To(Some(w), Some(h)))) if w == 800.0 && h == 600.0)
    );
    assert!(matches!(
        parse("turn the red circle blue"),
        Some(Command::Recolor(_, "blue"))
    ));
    assert!(matches!(
        parse("connect the red circle to the blue square"),
        Some(Command::Connect(_, Some(_), _))
    ));
    assert!(matches!(
        parse("line them up"),
        Some(Command::Arrange(_, agent::schema::ArrangeLayout::Row))
    ));
    assert!(parse("hello there").is_none());
}

#[test]
fn mem_1_ttl_five_minutes() {
    let mut m = SessionMemory::new();
    let t0 = Instant::now();
    let a = ObjectId::random();
    let b = ObjectId::random();
    m.remember_created(&[a.clone(), b.clone()], t0);
    assert_eq!(m.it(t0), Some(b.clone()));
    assert_eq!(
        m.them(t0 + Duration::from_secs(299)),
        vec![a.clone(), b.clone()]
    );
    assert_eq!(m.it(t0 + Duration::from_secs(300)), None);
    assert!(m.them(t0 + Duration::from_secs(301)).is_empty());
}

#[test]
fn mem_2_it_expired_is_a_clarification() {
    let mut s = Session::new();
    s.say("create a yellow note");
    s.now += Duration::from_secs(6 * 60);
    assert!(matches!(
        s.intent("make it blue"),
        Some(Planned::Clarify { .. })
    ));
}

#[test]
fn mem_3_last_seven_turns() {
    let mut m = SessionMemory::new();
    let t = Instant::now();
    for i in 0..10 {
        m.push_turn(
            agent::memory::Turn {
                speaker: agent::memory::Speaker::User,
                text: format!("t{i}"),
            },
            t,
        );
    }
    let turns = m.turns(t);
    assert_eq!(turns.len(), 7);
    assert_eq!(turns[0].text, "t3");
}

/// Every command of the speed bench gets an answer from the router or the planner. How fast is
/// the `router_planner` criterion bench (docs/PLANNER.md), never a timed assertion.
#[test]
fn plan_8_router_and_planner_answer_the_bench_commands() {
    let s = Session::new();
    let cmds = [
        "Create a red circle at position 100, 200",
        "Move the blue square 100 pixels to the right",
        "make a swot analysis for a bakery",
        "A -> B -> C",
    ];
    for c in cmds {
        let routed = agent::router::route(c).is_some();
        let planned = s.intent(c);
        assert!(routed || planned.is_some(), "{c}");
    }
    let _ = resolve(&Intent::default(), &s.board, &ctx());
}

#[test]
fn plan_9_random_word_salad_never_panics() {
    let vocab = [
        "create",
        "make",
        "move",
        "it",
        "them",
        "these",
        "the",
        "a",
        "blue",
        "light",
        "red",
        "circle",
        "square",
        "notes",
        "to",
        "by",
        "at",
        "100",
        "200",
        "x",
        "200x300",
        "twice",
        "half",
        "as",
        "big",
        "left",
        "right",
        "up",
        "pixels",
        "connect",
        "and",
        "with",
        "arrange",
        "in",
        "grid",
        "row",
        "delete",
        "duplicate",
        "rename",
        "\"hi\"",
        "'",
        "%",
        "50%",
        "change",
        "color",
        "of",
        "text",
        "says",
        "that",
        "frame",
        "->",
        "times",
        "3",
        "-5",
        "1e400",
        "size",
        "wide",
        "make",
        "saying",
        "below",
        "next",
        "note",
        "w/",
        "İnote",
        "Straße",
        "\u{212A}",
    ];
    let mut s = Session::new();
    s.say("create 3 blue circles");
    let mut seed: u64 = 42;
    for _ in 0..3000 {
        let mut words = Vec::new();
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        let n = 1 + (seed >> 60) as usize;
        for _ in 0..n {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            words.push(vocab[((seed >> 33) as usize) % vocab.len()]);
        }
        let text = words.join(" ");
        if let Some(Planned::Intent { intent, .. }) = s.intent(&text) {
            let r = resolve(&intent, &s.board, &ctx());
            let mut b = s.board.clone();
            b.apply(&r.ops, &user(), 9)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            b.check_invariants().unwrap();
        }
    }
}

/// Adds a frame named `name` (inside `parent` when given) through `apply`.
fn frame(b: &mut BoardState, name: &str, parent: Option<&ObjectId>, x: f64, w: f64) -> ObjectId {
    use protocol::{ObjectInput, OpInput, num::Num};
    let mut i = ObjectInput::new(Kind::Frame);
    let id = ObjectId::random();
    i.id = Some(id.clone());
    i.text = Some(name.into());
    i.parent = parent.cloned();
    (i.x, i.y, i.w, i.h) = (Some(Num(x)), Some(Num(x)), Some(Num(w)), Some(Num(w)));
    b.apply(&[OpInput::Create { object: i }], &user(), 1)
        .unwrap();
    id
}

/// A frame that holds the target frame stays where it is; the rest of "these" go in. When only
/// such frames are named, the planner says so instead of planning ops the board refuses.
#[test]
fn plan_4_a_frame_never_goes_inside_a_frame_it_holds() {
    let mut s = Session::new();
    let outer = frame(&mut s.board, "Outer", None, 0.0, 900.0);
    let gallery = frame(&mut s.board, "Gallery", Some(&outer), 100.0, 300.0);
    let note = add(
        &mut s.board,
        Kind::Note,
        None,
        "#FFF59D",
        2000.0,
        0.0,
        200.0,
        200.0,
    );
    s.selection = vec![outer.clone(), note.id.clone()];
    s.say("put these in the Gallery frame");
    assert_eq!(
        s.board.get(note.id.as_str()).unwrap().parent,
        Some(gallery.clone())
    );
    assert_eq!(s.board.get(outer.as_str()).unwrap().parent, None);
    s.selection = vec![outer.clone(), gallery.clone()];
    let miss = s.intent("put these in the Gallery frame");
    assert!(
        matches!(&miss, Some(Planned::Clarify { message, .. }) if message.contains("inside itself")),
        "{miss:?}"
    );
}
