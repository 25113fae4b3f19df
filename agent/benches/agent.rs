//! Agent benchmarks: context serialization, router + planner per command, resolve of a 50-op
//! batch on a 10,000-object board.
#![allow(clippy::unwrap_used)]

use agent::context::{ContextLimits, board_context};
use agent::planner::targets::Scope;
use agent::{Intent, ResolveCtx, SessionMemory, resolve};
use criterion::{Criterion, criterion_group, criterion_main};
use protocol::num::Num;
use protocol::{BoardState, Geo, Kind, ObjectId, ObjectInput, UserId, Viewport};
use std::hint::black_box;
use std::time::Instant;

fn board(n: usize) -> BoardState {
    let cols = (n as f64).sqrt().ceil() as usize;
    let objs = (0..n).map(|i| {
        let mut o = ObjectInput::new(if i % 3 == 0 { Kind::Shape } else { Kind::Note });
        if i % 3 == 0 {
            o.geo = Some(if i % 2 == 0 {
                Geo::Ellipse
            } else {
                Geo::Rectangle
            });
        }
        o.color = Some(["blue", "red", "yellow", "green"][i % 4].into());
        o.text = Some(format!("object {i}: a short sticky note text"));
        o.x = Some(Num((i % cols) as f64 * 250.0 - 5000.0));
        o.y = Some(Num((i / cols) as f64 * 250.0 - 5000.0));
        o.normalize(ObjectId::random(), i as i64)
    });
    BoardState::from_objects(objs.collect::<Vec<_>>(), 20_000)
}

fn bench_context(c: &mut Criterion) {
    let vp = Some(Viewport {
        x: -5000.0,
        y: -5000.0,
        w: 1600.0,
        h: 900.0,
    });
    for n in [200, 10_000] {
        let b = board(n);
        let sel: Vec<ObjectId> = b
            .sorted_objects()
            .iter()
            .take(3)
            .map(|o| o.id.clone())
            .collect();
        c.bench_function(&format!("context/{n}_objects"), |bn| {
            bn.iter(|| {
                black_box(board_context(
                    &b,
                    &sel,
                    vp,
                    ContextLimits::default(),
                    &Default::default(),
                ))
            })
        });
    }
}

fn bench_route(c: &mut Criterion) {
    let b = board(200);
    let mem = SessionMemory::new();
    let cmds = [
        "Create a red circle at position 100, 200",
        "Make a 200x300 rectangle",
        "Resize the circle to be twice as big",
        "Move the blue square 100 pixels to the right",
        "Delete the red circle",
        "make a SWOT analysis for a coffee shop",
        "Login -> Validate? -> Dashboard -> Logout",
        "what are my strengths",
    ];
    let now = Instant::now();
    c.bench_function("router_planner/per_command", |bn| {
        bn.iter(|| {
            for t in cmds {
                let scope = Scope::new(&b, &[], &mem, now);
                let r = agent::router::route(t);
                if r.is_none() {
                    black_box(agent::planner::plan(t, &scope));
                }
                black_box(r);
            }
        })
    });
}

/// The new grammar's phrasings (typos, named structures, counts, text references, questions) on
/// a 1,000-object board.
fn bench_route_1000(c: &mut Criterion) {
    let b = board(1000);
    let mem = SessionMemory::new();
    let cmds = [
        "creat a stiky note saying hello",
        "sticky note: buy milk",
        "kanban board with columns Backlog, In Progress, Review, Done",
        "org chart: CEO -> CTO, CEO -> CFO, CTO -> Dev lead",
        "create a 3x4 grid of notes",
        "connect object 12 to object 40",
        "make the red circle a diamond",
        "how many notes are there?",
    ];
    let now = Instant::now();
    c.bench_function("router_planner/per_command_1000_objects", |bn| {
        bn.iter(|| {
            for t in cmds {
                let scope = Scope::new(&b, &[], &mem, now);
                let r = agent::router::route(t);
                if r.is_none() {
                    black_box(agent::planner::plan(t, &scope));
                }
                black_box(r);
            }
        })
    });
}

fn bench_resolve(c: &mut Criterion) {
    let b = board(10_000);
    let ops: Vec<String> = (0..50)
        .map(|i| match i {
            0..=4 => format!(r#"{{"op":"createFrame","ref":"frame_{i}","name":"Stage {i}"}}"#),
            5..=39 => format!(r#"{{"op":"createNote","ref":"note_{i}","text":"note {i}","parentRef":"frame_{}"}}"#, i % 5),
            _ => format!(r#"{{"op":"createConnector","ref":"conn_{i}","fromRef":"note_{}","toRef":"note_{}"}}"#, i - 35, i - 34),
        })
        .collect();
    let args = format!(
        r#"{{"operations":[{}],"layoutDirective":"columns"}}"#,
        ops.join(",")
    );
    let agent::tools::ToolCall::Write(call) =
        agent::tools::parse_call("batchOperations", &args).unwrap()
    else {
        panic!("not a write")
    };
    let intent = Intent::one(call);
    let ctx = ResolveCtx {
        viewport: Some(Viewport {
            x: 0.0,
            y: 0.0,
            w: 1600.0,
            h: 900.0,
        }),
        selection: vec![],
        requester: UserId::try_from("bench").unwrap(),
    };
    c.bench_function("resolve/50_ops_on_10000_objects", |bn| {
        bn.iter(|| black_box(resolve(&intent, &b, &ctx)))
    });
}

criterion_group!(
    benches,
    bench_context,
    bench_route,
    bench_route_1000,
    bench_resolve
);
criterion_main!(benches);
