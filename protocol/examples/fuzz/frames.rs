//! The frames of target `decode`: random bytes read as UTF-8-lossy text (10 %), messages built
//! from the shapes of `ClientMsg` (65 %: 45 % of them well formed, the others with fields
//! dropped, repeated, of the wrong type, huge, deeply nested, long or full of unicode and
//! escapes), and such messages with a few byte-level edits (25 %).

use crate::edits;
use crate::rng::Rng;
use protocol::CLIENT_TYPES;
use std::cell::Cell;
use std::fmt::Write;

thread_local! {
    /// Whether the message being built is meant to be well formed: then no field is of the wrong
    /// type, missing where required or malformed, and what is left to decide is the values.
    static CLEAN: Cell<bool> = const { Cell::new(false) };
}

/// True with probability `percent` / 100 when the message may be malformed.
fn flaw(r: &mut Rng, percent: usize) -> bool {
    !CLEAN.get() && r.chance(percent)
}

/// One of `good`, or now and then (unless clean) one of `bad`.
fn choice<'a>(r: &mut Rng, good: &[&'a str], bad: &[&'a str]) -> &'a str {
    if flaw(r, 15) {
        r.word(bad)
    } else {
        r.word(good)
    }
}

/// Writes the text of one input into `out`.
pub fn generate(r: &mut Rng, out: &mut String) {
    out.clear();
    match r.below(100) {
        0..10 => edits::raw(r, out),
        10..75 => message(r, out),
        _ => {
            message(r, out);
            edits::mutate(r, out);
        }
    }
}

/// One message of a known type (90 %) or not.
fn message(r: &mut Rng, o: &mut String) {
    CLEAN.set(r.chance(45));
    let ty: &str = if r.chance(30) {
        "commit"
    } else if !flaw(r, 10) {
        r.word(&CLIENT_TYPES)
    } else {
        r.word(&["", "Commit", "commit ", "launch", "hello\u{0}", "type"])
    };
    let fields: &[&str] = match ty {
        "hello" => &["user", "token", "since"],
        "commit" => &["id", "ops"],
        "presence" => &["cursor", "selection", "viewport"],
        "ai" => &["id", "text", "selection", "viewport"],
        "answer" => &["question_id", "answers"],
        "set_mode" => &["mode"],
        "ping" => &["t"],
        _ => &[],
    };
    o.push('{');
    let mut first = true;
    // The `type` first most of the time, as clients send it; anywhere, missing, repeated or not a
    // string otherwise.
    let type_at = match (r.chance(70), CLEAN.get()) {
        (true, _) => 0,
        (false, true) => r.below(fields.len() + 1),
        (false, false) => r.below(fields.len() + 2),
    };
    let mut order: Vec<&str> = fields.to_vec();
    shuffle(r, &mut order);
    for (i, f) in order.iter().enumerate() {
        if i == type_at {
            type_field(r, o, &mut first, ty);
        }
        if !flaw(r, 8) {
            field(r, o, &mut first, f, 0);
        }
    }
    if type_at == order.len() {
        type_field(r, o, &mut first, ty);
    }
    extras(r, o, &mut first, &order);
    o.push('}');
}

fn type_field(r: &mut Rng, o: &mut String, first: &mut bool, ty: &str) {
    key(o, first, "type");
    match if CLEAN.get() { 2 } else { r.below(40) } {
        0 => any(r, o, 0),
        1 => {
            // The same word written with escapes.
            o.push('"');
            for c in ty.chars() {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            o.push('"');
        }
        _ => json_str(o, ty),
    }
}

/// An unknown field, a repeated one, or nothing.
fn extras(r: &mut Rng, o: &mut String, first: &mut bool, fields: &[&str]) {
    if flaw(r, 8) {
        let k = r
            .word(&["extra", "x", "", "type", "ops", "\u{1F600}", "Type"])
            .to_string();
        key(o, first, &k);
        any(r, o, 0);
    }
    if flaw(r, 4) && !fields.is_empty() {
        let f = *r.pick(fields);
        field(r, o, first, f, 0);
    }
}

fn shuffle<T>(r: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        v.swap(i, r.below(i + 1));
    }
}

fn key(o: &mut String, first: &mut bool, k: &str) {
    if !*first {
        o.push(',');
    }
    *first = false;
    json_str(o, k);
    o.push(':');
}

/// A JSON string literal of `s`.
fn json_str(o: &mut String, s: &str) {
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
}

/// `k` and a value shaped for it (or, 8 % of the time, any value).
fn field(r: &mut Rng, o: &mut String, first: &mut bool, k: &str, depth: usize) {
    key(o, first, k);
    if flaw(r, 8) {
        any(r, o, depth);
    } else {
        value(r, o, k, depth);
    }
}

/// A value of the shape field `k` expects.
fn value(r: &mut Rng, o: &mut String, k: &str, depth: usize) {
    match k {
        "user" => object(r, o, &["id", "name"], 1, depth),
        "id" | "question_id" | "parent" if !flaw(r, 10) => id(r, o),
        "name" | "token" | "text" | "id" | "question_id" => string(r, o),
        "parent" => o.push_str("null"),
        "since" => {
            let n = *r.pick(&[0u64, 1, 7, 1_000, u64::MAX]);
            if !flaw(r, 20) {
                let _ = write!(o, "{n}");
            } else {
                o.push_str(r.word(&["-1", "1.5", "1e3", "18446744073709551616", "\"7\""]));
            }
        }
        "ops" => {
            let n = if r.chance(1) {
                r.range(50, 400)
            } else {
                r.below(6)
            };
            o.push('[');
            for i in 0..n {
                if i > 0 {
                    o.push(',');
                }
                if flaw(r, 3) {
                    any(r, o, depth + 1);
                } else {
                    op(r, o, depth + 1);
                }
            }
            o.push(']');
        }
        "cursor" => object(r, o, &["x", "y"], 2, depth),
        "viewport" => object(r, o, &["x", "y", "w", "h"], 4, depth),
        "selection" => {
            let n = if r.chance(1) {
                r.range(500, 3000)
            } else {
                r.below(5)
            };
            o.push('[');
            for i in 0..n {
                if i > 0 {
                    o.push(',');
                }
                id(r, o);
            }
            o.push(']');
        }
        "answers" => {
            o.push('{');
            let mut first = true;
            for _ in 0..r.below(4) {
                let k = r.word(&["approve", "name", "", "x"]).to_string();
                key(o, &mut first, &k);
                any(r, o, depth + 1);
            }
            o.push('}');
        }
        "mode" => json_str(o, choice(r, &["plan", "build"], &["Plan", "", "destroy"])),
        "t" | "created_by" | "version" => any(r, o, depth + 1),
        "object" => object(
            r,
            o,
            &[
                "kind",
                "id",
                "x",
                "y",
                "w",
                "h",
                "rotation",
                "z",
                "parent",
                "text",
                "color",
                "geo",
                "from",
                "to",
                "arrow",
                "created_by",
                "version",
            ],
            1,
            depth,
        ),
        "set" => object(
            r,
            o,
            &[
                "x", "y", "w", "h", "rotation", "z", "parent", "text", "color", "geo", "from",
                "to", "arrow",
            ],
            0,
            depth,
        ),
        "kind" => json_str(
            o,
            choice(
                r,
                &["note", "shape", "text", "frame", "connector"],
                &["Note", "image", ""],
            ),
        ),
        "geo" => json_str(
            o,
            choice(
                r,
                &["rectangle", "circle", " OVAL ", "square", "star", "cloud"],
                &["blob", ""],
            ),
        ),
        "arrow" => json_str(o, choice(r, &["end", "both", "none"], &["start", ""])),
        "color" => color(r, o),
        "from" | "to" => match r.below(10) {
            0..5 => object(r, o, &["id"], 1, depth),
            5..9 => object(r, o, &["x", "y"], 2, depth),
            _ => object(r, o, &["id", "x", "y"], 3, depth),
        },
        "op" => json_str(
            o,
            choice(r, &["create", "update", "delete"], &["Create", "move", ""]),
        ),
        _ => num(r, o),
    }
}

/// An object with the first `required` of `fields` (unless malformed) and some of the others,
/// in random order.
fn object(r: &mut Rng, o: &mut String, fields: &[&str], required: usize, depth: usize) {
    let mut order = fields.to_vec();
    shuffle(r, &mut order);
    o.push('{');
    let mut first = true;
    for f in &order {
        let include = if fields[..required].contains(f) {
            !flaw(r, 5)
        } else {
            r.chance(40)
        };
        if include {
            field(r, o, &mut first, f, depth + 1);
        }
    }
    extras(r, o, &mut first, &order);
    o.push('}');
}

fn op(r: &mut Rng, o: &mut String, depth: usize) {
    let (name, fields): (&str, &[&str]) = match r.below(10) {
        0..4 => ("create", &["object"]),
        4..8 => ("update", &["id", "set"]),
        _ => ("delete", &["id"]),
    };
    o.push('{');
    let mut first = true;
    if !flaw(r, 5) {
        key(o, &mut first, "op");
        if !flaw(r, 5) {
            json_str(o, name);
        } else {
            value(r, o, "op", depth);
        }
    }
    for f in fields {
        if !flaw(r, 5) {
            field(r, o, &mut first, f, depth + 1);
        }
    }
    extras(r, o, &mut first, fields);
    o.push('}');
}

const IDS: &[&str] = &["f1", "n1", "s1", "c1", "t1", "n2", "ghost", "f1"];

fn id(r: &mut Rng, o: &mut String) {
    let k = r.below(20);
    match if CLEAN.get() && (13..17).contains(&k) {
        0
    } else {
        k
    } {
        0..12 => json_str(o, r.word(IDS)),
        12 => {
            let _ = write!(o, "\"o{}\"", r.below(1000));
        }
        13 => {
            let n = *r.pick(&[63usize, 64, 65, 127, 128, 129, 1000]);
            o.push('"');
            for _ in 0..n {
                o.push('a');
            }
            o.push('"');
        }
        14 => o.push_str("\"\""),
        15 => o.push_str(r.word(&[
            "\"a b\"",
            "\"../x\"",
            "\"é\"",
            "\"a/b\"",
            "\"\\u0041bc\"",
            "\"n\\u0031\"",
            "\"\\u0000\"",
            "\"f1\\n\"",
        ])),
        16 => o.push_str(r.word(&["1", "null", "{}", "[\"f1\"]", "true"])),
        _ => {
            const ALPHABET: &[u8] = b"abcXYZ019_-";
            o.push('"');
            for _ in 0..r.range(1, 20) {
                o.push(*r.pick(ALPHABET) as char);
            }
            o.push('"');
        }
    }
}

fn color(r: &mut Rng, o: &mut String) {
    const COLORS: &[&str] = &[
        "yellow",
        "blue",
        "light-blue",
        "Light Blue",
        "pink",
        "purple",
        "grey",
        "#abc",
        "abc",
        "#ABCDEF",
        "#12345",
        "#GGGGGG",
        "nope",
        "",
        "  red  ",
        "#fff0",
    ];
    if r.chance(90) {
        json_str(o, r.word(COLORS));
    } else {
        string(r, o);
    }
}

/// A number, a numeric string, or something that is neither.
fn num(r: &mut Rng, o: &mut String) {
    let k = r.below(20);
    match if CLEAN.get() && (11..15).contains(&k) {
        0
    } else {
        k
    } {
        0..8 => {
            let _ = write!(o, "{}", r.below(6000) as i64 - 3000);
        }
        8..11 => {
            let _ = write!(o, "{}", r.float(-1e5, 1e5));
        }
        11 => o.push_str(r.word(&[
            "1e308",
            "-1e308",
            "1e309",
            "-1e999",
            "1E-400",
            "-0",
            "-0.0",
            "123456789012345678901234567890",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775809",
            "4.9e-324",
            "0.1e1",
            "01",
            "1.",
            ".5",
        ])),
        12..14 => o.push_str(r.word(&[
            "\"100\"",
            "\" 12.5 \"",
            "\"NaN\"",
            "\"inf\"",
            "\"-Infinity\"",
            "\"1e999\"",
            "\"1e308\"",
            "\"0x10\"",
            "\"\"",
            "\"1_000\"",
            "\"+5\"",
            "\"١٢\"",
        ])),
        14 => o.push_str(r.word(&["true", "null", "[]", "{}", "[1]"])),
        15 => {
            let _ = write!(o, "{}", r.float(-1e300, 1e300));
        }
        _ => {
            let _ = write!(o, "{}", r.below(600));
        }
    }
}

/// A string: usually short, sometimes long, with multi-byte characters and escapes.
fn string(r: &mut Rng, o: &mut String) {
    let n = match r.below(200) {
        0..4 => 0,
        4 => r.range(9_990, 12_000),
        5..20 => r.range(60, 300),
        _ => r.range(1, 16),
    };
    let plain = r.chance(60);
    o.push('"');
    for _ in 0..n {
        if plain {
            o.push((b'a' + r.below(26) as u8) as char);
            continue;
        }
        match r.below(30) {
            0 => o.push_str("\\n"),
            1 => o.push_str("\\\""),
            2 => o.push_str("\\\\"),
            3 => o.push_str("\\u0000"),
            4 => o.push_str("\\ud83d\\ude00"),
            5 if !CLEAN.get() => o.push_str("\\ud800"),
            6 if !CLEAN.get() => o.push_str("\\udc00x"),
            7 => o.push('é'),
            8 => o.push('😀'),
            9 => o.push('\u{202e}'),
            10 => o.push('\u{0301}'),
            11 => o.push('\u{200b}'),
            12 => o.push_str("\\u0041"),
            13 => o.push('\u{FFFF}'),
            14 => o.push('中'),
            _ => match (b' ' + r.below(95) as u8) as char {
                '"' | '\\' if CLEAN.get() => o.push('x'),
                c => o.push(c),
            },
        }
    }
    // A raw quote or backslash above would end or break the string: that is a mutation too.
    o.push('"');
}

/// Any JSON value, sometimes nested far deeper than serde_json's recursion limit.
fn any(r: &mut Rng, o: &mut String, depth: usize) {
    if flaw(r, 1) {
        let n = r.range(100, 3000);
        let obj = r.chance(50);
        for _ in 0..n {
            o.push_str(if obj { "{\"a\":" } else { "[" });
        }
        o.push('1');
        for _ in 0..n {
            o.push(if obj { '}' } else { ']' });
        }
        return;
    }
    let leaf = depth > 4 || r.chance(60);
    match if leaf { r.below(4) } else { 4 + r.below(2) } {
        0 => o.push_str(r.word(&["null", "true", "false"])),
        1 => num(r, o),
        2 => string(r, o),
        3 => id(r, o),
        4 => {
            o.push('[');
            for i in 0..r.below(4) {
                if i > 0 {
                    o.push(',');
                }
                any(r, o, depth + 1);
            }
            o.push(']');
        }
        _ => {
            o.push('{');
            let mut first = true;
            for _ in 0..r.below(4) {
                let k = r.word(&["id", "x", "kind", "a", ""]).to_string();
                key(o, &mut first, &k);
                any(r, o, depth + 1);
            }
            o.push('}');
        }
    }
}
