#![allow(dead_code, clippy::unwrap_used, clippy::too_many_arguments)]
//! Test helpers: boards, applying resolved intents, checking invariants.

use agent::{Intent, ResolveCtx, Resolved, resolve};
use protocol::num::Num;
use protocol::{BoardObject, BoardState, Geo, Kind, ObjectInput, OpInput, UserId, Viewport};

pub fn user() -> UserId {
    UserId::try_from("tester").unwrap()
}

pub fn ctx() -> ResolveCtx {
    ResolveCtx {
        viewport: Some(Viewport {
            x: 0.0,
            y: 0.0,
            w: 1600.0,
            h: 900.0,
        }),
        selection: Vec::new(),
        requester: user(),
    }
}

/// Adds an object through `apply`, returning it.
pub fn add(
    board: &mut BoardState,
    kind: Kind,
    geo: Option<Geo>,
    color: &str,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
) -> BoardObject {
    let mut i = ObjectInput::new(kind);
    i.id = Some(protocol::ObjectId::random());
    i.geo = geo;
    i.color = Some(color.into());
    i.x = Some(Num(x));
    i.y = Some(Num(y));
    i.w = Some(Num(w));
    i.h = Some(Num(h));
    let id = i.id.clone().unwrap();
    board
        .apply(&[OpInput::Create { object: i }], &user(), 1)
        .unwrap();
    board.get(id.as_str()).unwrap().clone()
}

/// Resolves and applies an intent; checks the ops apply and the invariants hold.
pub fn run(board: &mut BoardState, intent: &Intent, ctx: &ResolveCtx) -> Resolved {
    let r = resolve(intent, board, ctx);
    board
        .apply(&r.ops, &user(), 2)
        .unwrap_or_else(|e| panic!("ops must apply: {e}; warnings {:?}", r.warnings));
    board.check_invariants().unwrap();
    r
}

pub fn batch(json: &str) -> Intent {
    let call = agent::tools::parse_call("batchOperations", json).unwrap();
    match call {
        agent::tools::ToolCall::Write(c) => Intent::one(c),
        other => panic!("not a write: {other:?}"),
    }
}

pub fn rect(o: &BoardObject) -> layout::Rect {
    layout::Rect::new(o.x, o.y, o.w, o.h)
}

/// Smallest gap between two rectangles (negative when they overlap).
pub fn gap(a: &layout::Rect, b: &layout::Rect) -> f64 {
    let dx = (b.x - a.right()).max(a.x - b.right());
    let dy = (b.y - a.bottom()).max(a.y - b.bottom());
    dx.max(dy)
}

/// A board of `n` notes on a grid.
pub fn big_board(n: usize) -> BoardState {
    let mut objs = Vec::with_capacity(n);
    let cols = (n as f64).sqrt().ceil() as usize;
    for i in 0..n {
        let mut input = ObjectInput::new(Kind::Note);
        input.text = Some(format!("note number {i} with some text"));
        input.x = Some(Num((i % cols) as f64 * 260.0 - 10000.0));
        input.y = Some(Num((i / cols) as f64 * 260.0 - 10000.0));
        objs.push(input.normalize(protocol::ObjectId::random(), i as i64));
    }
    BoardState::from_objects(objs, 20_000)
}
