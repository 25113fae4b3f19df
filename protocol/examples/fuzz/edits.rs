//! The frames of target `decode` that are not built from the grammar: random bytes, and
//! byte-level edits of built messages.

use crate::rng::Rng;

const JSONISH: &[u8] = b"{}[]\":,.-+0123456789eE \\/tfnulrsaxyz\n\t";

pub fn raw(r: &mut Rng, out: &mut String) {
    let n = r.below(300);
    let jsonish = r.chance(50);
    let bytes: Vec<u8> = (0..n)
        .map(|_| {
            if jsonish {
                *r.pick(JSONISH)
            } else {
                r.next_u64() as u8
            }
        })
        .collect();
    out.push_str(&String::from_utf8_lossy(&bytes));
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "null",
    "1e999",
    "-",
    "\"type\":\"commit\"",
    "\"type\":",
    "\"ops\":[",
    "\\ud800",
    "\u{0}",
    "é",
    "😀",
    "0",
    "true",
];

/// One to four byte-level edits, then read back as UTF-8-lossy text.
pub fn mutate(r: &mut Rng, out: &mut String) {
    let mut b = std::mem::take(out).into_bytes();
    for _ in 0..r.range(1, 4) {
        let at = r.below(b.len() + 1);
        match r.below(6) {
            0 => b.truncate(at),
            1 => {
                let end = (at + r.range(1, 16)).min(b.len());
                b.drain(at..end);
            }
            2 => {
                let end = (at + r.range(1, 64)).min(b.len());
                let copy = b[at..end].to_vec();
                b.splice(at..at, copy);
            }
            3 => {
                let t = r.pick(TOKENS).as_bytes().to_vec();
                b.splice(at..at, t);
            }
            4 if at < b.len() => b[at] = *r.pick(JSONISH),
            _ if at < b.len() => b[at] ^= 1 << r.below(8),
            _ => b.push(*r.pick(JSONISH)),
        }
    }
    out.push_str(&String::from_utf8_lossy(&b));
}
