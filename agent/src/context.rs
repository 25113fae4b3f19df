//! Board context for the prompt (seed 001 AC-4, AC-7): the selection first with full detail,
//! then viewport objects by distance from its centre, nearby objects brief (id, kind, position,
//! text snippet; an image's size and alt text), distant ones as a count. Images are listed with
//! their alt text, never their picture's hash. Board text is JSON-escaped and the whole section is
//! fenced so it cannot pass for instructions (DESIGN §9). An object with open comment threads
//! says how many (`threads=N`); the comments themselves never reach the agent (CTX-6).

use crate::reply::noun;
use protocol::palette::nearest_name;
use protocol::{BoardObject, BoardState, Kind, ObjectId, Viewport};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Opening fence of the board data.
pub const BEGIN: &str = "<<<BOARD_DATA";
/// Closing fence of the board data.
pub const END: &str = "BOARD_DATA>>>";

/// Caps per tier.
#[derive(Debug, Clone, Copy)]
pub struct ContextLimits {
    pub viewport: usize,
    pub nearby: usize,
    pub text_full: usize,
    pub text_brief: usize,
}

impl Default for ContextLimits {
    fn default() -> Self {
        ContextLimits {
            viewport: 120,
            nearby: 150,
            text_full: 300,
            text_brief: 40,
        }
    }
}

/// The serialized tiers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoardContext {
    /// `## Board State` body: viewport, nearby and distant tiers, fenced.
    pub board: String,
    /// `## Current Selection` body, fenced.
    pub selection: String,
    pub selected: usize,
    pub in_viewport: usize,
    pub nearby: usize,
    pub distant: usize,
}

fn clean(text: &str, max: usize) -> String {
    let cut: String = text.chars().take(max).collect();
    let cut = cut
        .replace(BEGIN, "")
        .replace(END, "")
        .replace(crate::prompt::BOARD_STATE_VAR, "")
        .replace(crate::prompt::SELECTION_VAR, "");
    serde_json::to_string(&cut).unwrap_or_else(|_| "\"\"".into())
}

fn kind_word(o: &BoardObject) -> &'static str {
    if o.kind == Kind::Shape {
        let eq = (o.w - o.h).abs() <= 0.05 * o.w.max(o.h);
        noun(o.kind, o.geo, eq)
    } else {
        o.kind.as_str()
    }
}

/// An image: id, position, size, rotation, frame and alt text (trimmed); never its picture's
/// hash (the model cannot use it) nor a color (a picture has its own).
fn image_line(out: &mut String, o: &BoardObject, max_text: usize) {
    let _ = write!(
        out,
        "- id={} kind=image x={:.0} y={:.0} w={:.0} h={:.0}",
        o.id, o.x, o.y, o.w, o.h
    );
    if o.rotation != 0.0 {
        let _ = write!(out, " rotation={:.0}", o.rotation);
    }
    if let Some(p) = &o.parent {
        let _ = write!(out, " parent={p}");
    }
    match o.alt.trim() {
        "" => out.push_str(" alt=(none)"),
        alt => {
            let _ = write!(out, " alt={}", clean(alt, max_text));
        }
    }
}

/// How many open comment threads are pinned to each object (CTX-6).
pub type Threads = HashMap<ObjectId, u32>;

/// ` threads=N` when the object has open comment threads.
fn threads_of(out: &mut String, o: &BoardObject, threads: &Threads) {
    if let Some(n) = threads.get(&o.id).filter(|n| **n > 0) {
        let _ = write!(out, " threads={n}");
    }
}

/// One object with full detail, and its open comment threads (CTX-6).
pub fn full_line(out: &mut String, o: &BoardObject, max_text: usize, threads: &Threads) {
    if o.kind == Kind::Image {
        image_line(out, o, max_text);
    } else {
        object_line(out, o, max_text);
    }
    threads_of(out, o, threads);
    out.push('\n');
}

/// An object but an image, with full detail (one line without its end).
fn object_line(out: &mut String, o: &BoardObject, max_text: usize) {
    let _ = write!(
        out,
        "- id={} kind={} x={:.0} y={:.0} w={:.0} h={:.0} color={}",
        o.id,
        kind_word(o),
        o.x,
        o.y,
        o.w,
        o.h,
        nearest_name(&o.color)
    );
    if o.rotation != 0.0 {
        let _ = write!(out, " rotation={:.0}", o.rotation);
    }
    if let Some(p) = &o.parent {
        let _ = write!(out, " parent={p}");
    }
    for (name, end) in [("from", &o.from), ("to", &o.to)] {
        match end {
            Some(protocol::Endpoint::Bound { id }) => {
                let _ = write!(out, " {name}={id}");
            }
            Some(protocol::Endpoint::Free { x, y }) => {
                let _ = write!(out, " {name}=({x:.0},{y:.0})");
            }
            None => {}
        }
    }
    if !o.text.is_empty() {
        let _ = write!(out, " text={}", clean(&o.text, max_text));
    }
}

fn brief_line(out: &mut String, o: &BoardObject, max_text: usize, threads: &Threads) {
    if o.kind == Kind::Image {
        let _ = write!(
            out,
            "- id={} image ({:.0},{:.0}) {:.0}x{:.0}",
            o.id, o.x, o.y, o.w, o.h
        );
        if !o.alt.trim().is_empty() {
            let _ = write!(out, " alt={}", clean(o.alt.trim(), max_text));
        }
        threads_of(out, o, threads);
        out.push('\n');
        return;
    }
    let _ = write!(
        out,
        "- id={} {} ({:.0},{:.0})",
        o.id,
        kind_word(o),
        o.x,
        o.y
    );
    if !o.text.is_empty() {
        let _ = write!(out, " {}", clean(&o.text, max_text));
    }
    threads_of(out, o, threads);
    out.push('\n');
}

/// The selection tier: every selected object in full, and how many there are.
fn selection_block(
    board: &BoardState,
    selection: &[ObjectId],
    limits: ContextLimits,
    threads: &Threads,
) -> (String, usize) {
    let mut s = String::new();
    let mut n = 0;
    s.push_str(BEGIN);
    s.push('\n');
    for id in selection {
        if let Some(o) = board.get(id.as_str()) {
            full_line(&mut s, o, limits.text_full, threads);
            n += 1;
        }
    }
    if n == 0 {
        s.push_str("(nothing selected)\n");
    }
    s.push_str(END);
    (s, n)
}

/// Serializes the board for the prompt; `threads`: the open comment threads on objects.
pub fn board_context(
    board: &BoardState,
    selection: &[ObjectId],
    viewport: Option<Viewport>,
    limits: ContextLimits,
    threads: &Threads,
) -> BoardContext {
    let vp = viewport.unwrap_or(crate::resolve::DEFAULT_VIEWPORT);
    let (cx, cy) = (vp.x + vp.w / 2.0, vp.y + vp.h / 2.0);
    // "Nearby": within one viewport size around it.
    let (nx0, ny0, nx1, ny1) = (
        vp.x - vp.w,
        vp.y - vp.h,
        vp.x + 2.0 * vp.w,
        vp.y + 2.0 * vp.h,
    );
    let sel: HashSet<&str> = selection.iter().map(|s| s.as_str()).collect();
    let mut ctx = BoardContext::default();
    (ctx.selection, ctx.selected) = selection_block(board, selection, limits, threads);

    let mut inside: Vec<(f64, &BoardObject)> = Vec::new();
    let mut near: Vec<(f64, &BoardObject)> = Vec::new();
    let mut far = 0usize;
    for o in board.objects() {
        if sel.contains(o.id.as_str()) {
            continue;
        }
        let (ox, oy) = (o.x + o.w / 2.0, o.y + o.h / 2.0);
        let d = (ox - cx).powi(2) + (oy - cy).powi(2);
        let overlaps =
            o.x < vp.x + vp.w && o.x + o.w > vp.x && o.y < vp.y + vp.h && o.y + o.h > vp.y;
        if overlaps {
            inside.push((d, o));
        } else if ox >= nx0 && ox <= nx1 && oy >= ny0 && oy <= ny1 {
            near.push((d, o));
        } else {
            far += 1;
        }
    }
    let by_dist = |a: &(f64, &BoardObject), b: &(f64, &BoardObject)| {
        a.0.total_cmp(&b.0).then_with(|| a.1.id.cmp(&b.1.id))
    };
    let take = |v: &mut Vec<(f64, &BoardObject)>, n: usize| -> usize {
        let extra = v.len().saturating_sub(n);
        if v.len() > n {
            v.select_nth_unstable_by(n, by_dist);
            v.truncate(n);
        }
        v.sort_by(by_dist);
        extra
    };
    let spill_inside = take(&mut inside, limits.viewport);
    let spill_near = take(&mut near, limits.nearby);
    let mut b = String::with_capacity(64 * (inside.len() + near.len()) + 256);
    b.push_str(BEGIN);
    b.push('\n');
    let _ = writeln!(
        b,
        "Viewport x={:.0} y={:.0} w={:.0} h={:.0}; objects on the board: {}",
        vp.x,
        vp.y,
        vp.w,
        vp.h,
        board.len()
    );
    b.push_str("In view (nearest the centre first):\n");
    if inside.is_empty() {
        b.push_str("(none)\n");
    }
    for (_, o) in &inside {
        full_line(&mut b, o, limits.text_full, threads);
    }
    b.push_str("Nearby (brief):\n");
    if near.is_empty() {
        b.push_str("(none)\n");
    }
    for (_, o) in &near {
        brief_line(&mut b, o, limits.text_brief, threads);
    }
    ctx.in_viewport = inside.len();
    ctx.nearby = near.len();
    ctx.distant = far + spill_inside + spill_near;
    let _ = writeln!(
        b,
        "Farther away: {} more objects (use getBoardState to look them up).",
        ctx.distant
    );
    b.push_str(END);
    ctx.board = b;
    ctx
}

/// True when a command needs no board context: a template, or a "blind" create that refers to
/// nothing already on the board (AC-4).
pub fn is_blind_create(text: &str) -> bool {
    let t = text.to_lowercase();
    let words: Vec<&str> = t
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let creates = words.first().is_some_and(|w| {
        [
            "create", "add", "make", "draw", "new", "build", "generate", "insert",
        ]
        .contains(w)
    });
    let refers = words.iter().any(|w| {
        [
            "this",
            "these",
            "that",
            "those",
            "it",
            "them",
            "selected",
            "selection",
            "existing",
            "connect",
            "next",
            "beside",
            "below",
            "above",
            "under",
            "inside",
            "into",
            "between",
            "move",
            "same",
            "other",
            "all",
            "every",
        ]
        .contains(w)
    }) || words.windows(2).any(|p| p[0] == "the" && p[1] != "board");
    creates && !refers
}
