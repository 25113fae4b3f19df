//! Exporting a 10,000-object board (a grid of notes and shapes with a connector between
//! neighbours, in frames) to SVG, PNG and PDF. Figures in `docs/BENCHMARKS.md`.
#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use protocol::{BoardObject, ObjectId, ObjectInput};
use render::Options;

/// `n` objects: 100 frames, then notes and shapes on a grid with connectors between pairs.
fn board(n: usize) -> Vec<BoardObject> {
    let mut out = Vec::with_capacity(n);
    let id = |s: String| ObjectId::try_from(s).unwrap();
    for f in 0..100 {
        let json = format!(
            r#"{{"kind":"frame","x":{},"y":{},"w":2200,"h":2200,"text":"Frame {f}"}}"#,
            (f % 10) * 2400,
            (f / 10) * 2400
        );
        let input: ObjectInput = serde_json::from_str(&json).unwrap();
        out.push(input.normalize(id(format!("f{f}")), f as i64));
    }
    let mut i = 0;
    while out.len() < n {
        let (col, row) = (i % 100, i / 100);
        let kind = if i % 2 == 0 { "note" } else { "shape" };
        let json = format!(
            r#"{{"kind":"{kind}","x":{},"y":{},"w":160,"h":120,"text":"Item {i} with a few words to wrap"}}"#,
            col * 240,
            row * 240
        );
        let input: ObjectInput = serde_json::from_str(&json).unwrap();
        out.push(input.normalize(id(format!("o{i}")), i as i64));
        if i % 2 == 1 && out.len() < n {
            let json = format!(
                r#"{{"kind":"connector","from":{{"id":"o{}"}},"to":{{"id":"o{i}"}},"text":"next"}}"#,
                i - 1
            );
            let input: ObjectInput = serde_json::from_str(&json).unwrap();
            out.push(input.normalize(id(format!("c{i}")), i as i64));
        }
        i += 1;
    }
    out
}

fn export(c: &mut Criterion) {
    let objects = board(10_000);
    let svg = render::svg(&objects, &Options::default());
    let mut g = c.benchmark_group("export_10k");
    g.sample_size(10);
    g.bench_function("svg", |b| {
        b.iter(|| render::svg(&objects, &Options::default()))
    });
    g.bench_function("png_capped_16mpx_with_text", |b| {
        b.iter(|| render::png(&svg, 1.0).unwrap())
    });
    g.bench_function("board_png_scale_1_text_left_out", |b| {
        b.iter(|| render::board_png(&objects, 1.0).unwrap())
    });
    g.bench_function("pdf", |b| b.iter(|| render::pdf(&svg).unwrap()));
    g.finish();
}

criterion_group!(benches, export);
criterion_main!(benches);
