//! Target `decode`: `ClientMsg::decode` on arbitrary text and on grammar-aware JSON.
//!
//! One input is one text frame (`frames.rs` makes them): random bytes read as UTF-8-lossy text (10 %), a message built
//! from the shapes of `ClientMsg` with fields dropped, repeated, of the wrong type, huge, deeply
//! nested, long or full of unicode and escapes (65 %), or such a message with a few byte-level
//! edits (25 %). Each is checked against WIRE-2 read the slow way (through a `Value`): not JSON or
//! not an object → `bad_json`, a missing or unknown `type` → `unknown_type`, a known type → the
//! variant of that name or `invalid`. A decoded commit is then applied to a small board whose
//! invariants must hold, and whose state must be unchanged if the commit is refused.

use crate::frames::generate;
use crate::rng::{Rng, case_seed};
use protocol::{BoardState, CLIENT_TYPES, ClientMsg, ErrorCode, OpInput, UserId};
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a run saw.
#[derive(Debug, Default)]
pub struct Stats {
    pub inputs: u64,
    pub bytes: u64,
    pub ok: u64,
    pub bad_json: u64,
    pub unknown_type: u64,
    pub invalid: u64,
    pub too_large: u64,
    pub commits_applied: u64,
    pub commits_refused: u64,
    /// Longest error message decode wrote (they quote the offending input).
    pub longest_error: usize,
    /// Commits decoded although a field the commit does not have is one the general path answers
    /// `bad_json` (see `skipped_unread`).
    pub lenient_commits: u64,
}

impl Stats {
    pub fn summary(&self) -> String {
        format!(
            "{} inputs ({:.0} MB): {} decoded, {} bad_json, {} unknown_type, {} invalid, {} too_large; \
             decoded commits {} applied, {} refused, {} with an unknown field the general path \
             refuses; longest error message {} bytes",
            self.inputs,
            self.bytes as f64 / 1e6,
            self.ok,
            self.bad_json,
            self.unknown_type,
            self.invalid,
            self.too_large,
            self.commits_applied,
            self.commits_refused,
            self.lenient_commits,
            self.longest_error
        )
    }
}

/// Runs `inputs` inputs from `seed`. On a panic or a broken rule: the report, with the case's
/// seed and its text.
pub fn run(seed: u64, inputs: u64, progress: bool) -> Result<Stats, String> {
    let mut stats = Stats::default();
    let base = base_board();
    let mut text = String::new();
    for i in 0..inputs {
        let case = case_seed(seed, 1, i);
        generate(&mut Rng::new(case), &mut text);
        let verdict = catch_unwind(AssertUnwindSafe(|| check(&text, &base, &mut stats)));
        let error = match verdict {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e),
            Err(p) => Some(format!("panic: {}", panic_text(&p))),
        };
        if let Some(e) = error {
            return Err(format!(
                "decode: input {i} of seed {seed} (case {case:#018x}) failed: {e}\ninput ({} bytes): {}\nrerun: --target decode --case {case:#018x}",
                text.len(),
                shown(&text)
            ));
        }
        if progress && (i + 1) % 1_000_000 == 0 {
            eprintln!("decode: {} inputs", i + 1);
        }
    }
    Ok(stats)
}

/// Runs the one case `case` and prints it.
pub fn run_case(case: u64) -> Result<(), String> {
    let mut text = String::new();
    generate(&mut Rng::new(case), &mut text);
    println!("input ({} bytes): {}", text.len(), shown(&text));
    println!("decode: {:?}", ClientMsg::decode(&text));
    let mut stats = Stats::default();
    match catch_unwind(AssertUnwindSafe(|| check(&text, &base_board(), &mut stats))) {
        Ok(r) => r,
        Err(p) => Err(format!("panic: {}", panic_text(&p))),
    }
}

pub fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}

/// The input as a Rust string literal, cut in the middle past 4 KiB.
fn shown(text: &str) -> String {
    if text.len() <= 4096 {
        return format!("{text:?}");
    }
    let head: String = text.chars().take(2000).collect();
    let tail: String = {
        let mut t: Vec<char> = text.chars().rev().take(2000).collect();
        t.reverse();
        t.into_iter().collect()
    };
    format!("{head:?} … {tail:?}")
}

/// A frame `f1` holding a note `n1`, a shape `s1`, a connector `c1` from `n1` to `s1` and a text
/// `t1`: the ids the generator names most.
fn base_board() -> BoardState {
    let ops: Vec<OpInput> = serde_json::from_str(
        r#"[{"op":"create","object":{"id":"f1","kind":"frame","w":900,"h":900}},
            {"op":"create","object":{"id":"n1","kind":"note","parent":"f1","x":50,"y":60}},
            {"op":"create","object":{"id":"s1","kind":"shape","x":600}},
            {"op":"create","object":{"id":"c1","kind":"connector","from":{"id":"n1"},"to":{"id":"s1"}}},
            {"op":"create","object":{"id":"t1","kind":"text","y":-400}}]"#,
    )
    .expect("the base board's ops are valid JSON");
    let mut b = BoardState::new(8);
    b.apply(&ops, &user(), 1)
        .expect("the base board's ops apply");
    b
}

fn user() -> UserId {
    UserId::try_from("fuzz").expect("a valid id")
}

/// Checks one frame against WIRE-2 and, for a commit, CMD-1 and the invariants.
pub fn check(text: &str, base: &BoardState, stats: &mut Stats) -> Result<(), String> {
    stats.inputs += 1;
    stats.bytes += text.len() as u64;
    let got = ClientMsg::decode(text);
    let expected = classify(text);
    match (got, expected) {
        (Ok(msg), Ok(ty)) => {
            stats.ok += 1;
            if type_name(&msg) != ty {
                return Err(format!("`type` {ty:?} decoded as {}", type_name(&msg)));
            }
            if let ClientMsg::Commit { ops, .. } = msg {
                apply(base, &ops, stats)?;
            }
        }
        (Err(e), expected) => {
            stats.longest_error = stats.longest_error.max(e.message.len());
            match e.code {
                ErrorCode::BadJson => stats.bad_json += 1,
                ErrorCode::UnknownType => stats.unknown_type += 1,
                ErrorCode::Invalid => stats.invalid += 1,
                ErrorCode::TooLarge => stats.too_large += 1,
                _ => {}
            }
            // A known type with wrong fields is `invalid`, or `too_large` where a frame rule
            // (LIM-n) bounds a field the decoder checks.
            let ok = match expected {
                Err(want) => e.code == want,
                Ok(_) => matches!(e.code, ErrorCode::Invalid | ErrorCode::TooLarge),
            };
            if !ok {
                return Err(format!("answered {e:?} where WIRE-2 says {expected:?}"));
            }
        }
        (Ok(msg @ ClientMsg::Commit { .. }), Err(ErrorCode::BadJson)) if skipped_unread(text) => {
            stats.ok += 1;
            stats.lenient_commits += 1;
            if let ClientMsg::Commit { ops, .. } = msg {
                apply(base, &ops, stats)?;
            }
        }
        (Ok(msg), Err(code)) => {
            let why = serde_json::from_str::<Value>(text).err();
            return Err(format!(
                "decoded a {} where WIRE-2 says {code:?} ({why:?})",
                type_name(&msg)
            ));
        }
    }
    Ok(())
}

/// The code WIRE-2 gives a frame, read through a `Value`, or the known type it names.
fn classify(text: &str) -> Result<String, ErrorCode> {
    let v: Value = serde_json::from_str(text).map_err(|_| ErrorCode::BadJson)?;
    let obj = v.as_object().ok_or(ErrorCode::BadJson)?;
    match obj.get("type") {
        Some(Value::String(t)) if CLIENT_TYPES.contains(&t.as_str()) => Ok(t.clone()),
        _ => Err(ErrorCode::UnknownType),
    }
}

/// The known difference between the one-pass decode and the general path: a commit's fields
/// are read straight from the text, and the fields it does not have are skipped by serde_json's
/// skipping reader, which does not limit nesting, pair `\u` surrogates or range-check numbers,
/// while the general path builds a `Value`, which refuses all three (`bad_json`). Such a commit
/// is decoded, and its own fields are checked as any other's.
fn skipped_unread(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

fn type_name(m: &ClientMsg) -> &'static str {
    match m {
        ClientMsg::Hello { .. } => "hello",
        ClientMsg::Commit { .. } => "commit",
        ClientMsg::Undo {} => "undo",
        ClientMsg::Redo {} => "redo",
        ClientMsg::Presence { .. } => "presence",
        ClientMsg::Ai { .. } => "ai",
        ClientMsg::Answer { .. } => "answer",
        ClientMsg::SetMode { .. } => "set_mode",
        ClientMsg::Ping { .. } => "ping",
        ClientMsg::CommentThread { .. } => "comment_thread",
        ClientMsg::CommentReply { .. } => "comment_reply",
        ClientMsg::CommentEdit { .. } => "comment_edit",
        ClientMsg::CommentDelete { .. } => "comment_delete",
        ClientMsg::CommentResolve { .. } => "comment_resolve",
        ClientMsg::CommentMove { .. } => "comment_move",
        ClientMsg::CommentReact { .. } => "comment_react",
        ClientMsg::Summon {} => "summon",
        ClientMsg::Present { .. } => "present",
    }
}

/// A decoded commit on a copy of the base board: the invariants hold after it, and a refused one
/// leaves the board as it was.
fn apply(base: &BoardState, ops: &[OpInput], stats: &mut Stats) -> Result<(), String> {
    let mut b = base.clone();
    match b.apply(ops, &user(), 2) {
        Ok(_) => stats.commits_applied += 1,
        Err(e) => {
            stats.commits_refused += 1;
            let same =
                b.len() == base.len() && b.objects().all(|o| base.get(o.id.as_str()) == Some(o));
            if !same {
                return Err(format!("a commit refused with {e:?} changed the board"));
            }
        }
    }
    b.check_invariants()
        .map_err(|e| format!("invariant broken after a decoded commit: {e}"))
}
