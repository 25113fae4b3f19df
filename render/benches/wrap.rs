//! Wrapping one long unbroken word (EXPORT-12): `render::wrap` of a 1,000- and a 10,000-character
//! word as a text object lays it out (every line), and the SVG, PNG and PDF of a board holding
//! a 10,000-character word in a note, a text, a frame title and a connector label. Figures in
//! `docs/BENCHMARKS.md`.
#![allow(clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use protocol::{BoardObject, ObjectId, ObjectInput};
use render::Options;

/// A word of `n` letters (no space anywhere).
fn word(n: usize) -> String {
    "abcdefghijklmnopqrstuvwxyz"
        .chars()
        .cycle()
        .take(n)
        .collect()
}

fn object(id: &str, json: serde_json::Value) -> BoardObject {
    let input: ObjectInput = serde_json::from_value(json).unwrap();
    input.normalize(ObjectId::try_from(id.to_owned()).unwrap(), 0)
}

/// A note, a text, a frame and a connector between the note and the text, each holding `text`.
fn board(text: &str) -> Vec<BoardObject> {
    vec![
        object(
            "f",
            serde_json::json!({"kind":"frame","x":0,"y":0,"w":900,"h":500,"text":text}),
        ),
        object(
            "n",
            serde_json::json!({"kind":"note","x":40,"y":40,"w":200,"h":200,"text":text}),
        ),
        object(
            "t",
            serde_json::json!({"kind":"text","x":400,"y":40,"w":260,"h":60,"text":text}),
        ),
        object(
            "c",
            serde_json::json!({"kind":"connector","from":{"id":"n"},"to":{"id":"t"},"text":text}),
        ),
    ]
}

fn wrap(c: &mut Criterion) {
    let mut g = c.benchmark_group("wrap_long_word");
    g.sample_size(10);
    for n in [1_000, 10_000] {
        let w = word(n);
        g.bench_with_input(BenchmarkId::new("text_object_all_lines", n), &w, |b, w| {
            b.iter(|| render::wrap(w, 256.0, 18.0, usize::MAX))
        });
    }
    g.finish();

    let objects = board(&word(10_000));
    let mut g = c.benchmark_group("export_long_word_10000");
    g.sample_size(10);
    g.bench_function("svg", |b| {
        b.iter(|| render::svg(&objects, &Options::default()))
    });
    g.bench_function("board_png", |b| {
        b.iter(|| render::board_png(&objects, 1.0).unwrap())
    });
    g.bench_function("pdf", |b| {
        let svg = render::svg(&objects, &Options::default());
        b.iter(|| render::pdf(&svg).unwrap())
    });
    g.finish();
}

criterion_group!(benches, wrap);
criterion_main!(benches);
