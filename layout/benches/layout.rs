//! Layout benchmarks: collision resolution, flowcharts, grids, templates and arrangement
//! operations.
//!
//! `cargo bench -p layout --bench layout -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use layout::arrange::{self, Align, Axis, Layer, Obj};
use layout::collision::{Movable, Options, resolve};
use layout::corpus;
use layout::directives::{self, Direction, Node, TreeStyle};
use layout::geom::Rect;
use layout::place::find_open_space;
use layout::templates::{self, NoteSpec, Section};

/// Deterministic pseudo-random numbers in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn f(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A busy board: `n` existing notes on a jittered grid (pitch 400 px).
fn board(n: usize) -> Vec<Rect> {
    let side = (n as f64).sqrt().ceil() as usize;
    let mut r = Lcg(7);
    (0..n)
        .map(|i| {
            let (c, row) = ((i % side) as f64, (i / side) as f64);
            Rect::new(
                c * 400.0 + r.f() * 120.0,
                row * 400.0 + r.f() * 120.0,
                200.0,
                200.0,
            )
        })
        .collect()
}

/// An AI batch: `n` notes dropped at random in a square of `side` px at `(x0, y0)`.
fn batch(n: usize, x0: f64, y0: f64, side: f64, seed: u64) -> Vec<Movable> {
    let mut r = Lcg(seed);
    (0..n)
        .map(|_| {
            Movable::new(Rect::new(
                x0 + r.f() * side,
                y0 + r.f() * side,
                200.0,
                200.0,
            ))
        })
        .collect()
}

fn sections(k: usize, per: usize) -> Vec<Section> {
    (0..k)
        .map(|s| {
            let notes = (0..per)
                .map(|i| {
                    NoteSpec::new(
                        format!("n{s}_{i}"),
                        format!("Idea number {i} for section {s}"),
                    )
                })
                .collect();
            Section::new(format!("f{s}"), format!("Section {s}"), notes)
        })
        .collect()
}

/// A template-like batch: `n` notes on a 230 px grid with up to 40 px of jitter (so
/// neighbours overlap), top-left at `(x0, y0)`.
fn jittered_grid(n: usize, x0: f64, y0: f64, seed: u64) -> Vec<Movable> {
    let side = (n as f64).sqrt().ceil() as usize;
    let mut r = Lcg(seed);
    (0..n)
        .map(|i| {
            let (c, row) = ((i % side) as f64, (i / side) as f64);
            let (jx, jy) = (r.f() * 80.0 - 40.0, r.f() * 80.0 - 40.0);
            Movable::new(Rect::new(
                x0 + c * 230.0 + jx,
                y0 + row * 230.0 + jy,
                200.0,
                200.0,
            ))
        })
        .collect()
}

fn run(c: &mut Criterion, name: &str, fixed: &[Rect], batch: &[Movable]) {
    c.bench_function(name, |b| {
        b.iter_batched(
            || batch.to_vec(),
            |mut mv| black_box(resolve(fixed, &mut mv, Options::default())),
            BatchSize::LargeInput,
        )
    });
}

fn collision(c: &mut Criterion) {
    // AC-6: 20 notes dropped on top of each other at the edge of a board of 50.
    let fixed = board(50);
    let right = fixed.iter().map(Rect::right).fold(0.0, f64::max);
    run(
        c,
        "collision/20 overlapping notes beside 50 fixed",
        &fixed,
        &batch(20, right - 100.0, 800.0, 400.0, 3),
    );
    // Stress: the same 20 dropped into the middle of the crowded board (no room between
    // the fixed notes: most are relocated).
    run(
        c,
        "collision/20 notes dropped into 50 fixed (stress)",
        &fixed,
        &batch(20, 900.0, 900.0, 500.0, 1),
    );
    // 1,000 movable against 10,000 fixed: a jittered template batch overlapping the board's edge.
    let fixed = board(10_000);
    let right = fixed.iter().map(Rect::right).fold(0.0, f64::max);
    run(
        c,
        "collision/1000 movable vs 10000 fixed",
        &fixed,
        &jittered_grid(1000, right - 500.0, 5000.0, 4),
    );
    // Stress: 1,000 notes scattered over a 20,000 px square in the middle of the board.
    run(
        c,
        "collision/1000 scattered into 10000 fixed (stress)",
        &fixed,
        &batch(1000, 10_000.0, 10_000.0, 20_000.0, 2),
    );
    let vp = Rect::new(15_000.0, 15_000.0, 1600.0, 900.0);
    c.bench_function("place/open space for 1200x800 among 10000", |b| {
        b.iter(|| black_box(find_open_space(&fixed, (1200.0, 800.0), vp, 20.0)))
    });
}

fn flowcharts(c: &mut Criterion) {
    for n in [100, 500] {
        let g = corpus::large(n, 42);
        let (nodes, edges) = g.input();
        c.bench_function(&format!("flowchart/{n} nodes top-down"), |b| {
            b.iter(|| {
                black_box(directives::flowchart(
                    &nodes,
                    &edges,
                    Direction::TopDown,
                    40.0,
                ))
            })
        });
    }
    let g = corpus::flowcharts()
        .into_iter()
        .find(|g| g.name == "dag-200-s8");
    if let Some(g) = g {
        let (nodes, edges) = g.input();
        c.bench_function("flowchart/dag-200 corpus graph", |b| {
            b.iter(|| {
                black_box(directives::flowchart(
                    &nodes,
                    &edges,
                    Direction::TopDown,
                    40.0,
                ))
            })
        });
    }
}

fn arrangements(c: &mut Criterion) {
    let nodes: Vec<Node> = (0..1000)
        .map(|i| Node::new(format!("n{i}"), 200.0, 200.0))
        .collect();
    c.bench_function("grid/1000 notes", |b| {
        b.iter(|| black_box(directives::grid(&nodes, 20.0)))
    });
    c.bench_function("rows/1000 notes", |b| {
        b.iter(|| black_box(directives::rows(&nodes, 20.0)))
    });
    let tree_edges: Vec<directives::Edge> = (1..1000)
        .map(|i| directives::Edge::new(format!("n{}", (i - 1) / 4), format!("n{i}")))
        .collect();
    c.bench_function("tree/1000 nodes org chart", |b| {
        b.iter(|| {
            black_box(directives::tree(
                &nodes,
                &tree_edges,
                TreeStyle::OrgChart,
                20.0,
            ))
        })
    });
    let s4 = sections(4, 250);
    c.bench_function("template/swot 1000 notes", |b| {
        b.iter(|| black_box(templates::swot(&s4)))
    });
    let s10 = sections(10, 100);
    c.bench_function("template/columns 1000 notes", |b| {
        b.iter(|| black_box(templates::columns(&s10)))
    });
    c.bench_function("template/journey 1000 notes", |b| {
        b.iter(|| black_box(templates::journey(&s10)))
    });
    operations(c);
}

/// Arrangement operations on existing objects (LAYOUT-17 to LAYOUT-24).
fn operations(c: &mut Criterion) {
    let objs: Vec<Obj> = board(1000)
        .into_iter()
        .enumerate()
        .map(|(i, r)| Obj::new(format!("o{i}"), r).with_z(i as i64))
        .collect();
    c.bench_function("arrange/align left 1000", |b| {
        b.iter(|| black_box(arrange::align(&objs, Align::Left, None)))
    });
    c.bench_function("arrange/distribute 1000", |b| {
        b.iter(|| black_box(arrange::distribute(&objs, Axis::Horizontal)))
    });
    // Every z taken: putting the top object behind the middle one renumbers a run.
    let dense: Vec<Obj> = (0..10_000)
        .map(|i| Obj::new(format!("o{i}"), Rect::default()).with_z(i))
        .collect();
    c.bench_function("arrange/layer behind among 10000", |b| {
        b.iter(|| black_box(arrange::layer(&dense, &["o9999"], Layer::Behind, "o5000")))
    });
    let frame = Rect::new(0.0, 0.0, 4000.0, 4000.0);
    let kids: Vec<Rect> = (0..200)
        .map(|i| {
            Rect::new(
                30.0 + (i % 15) as f64 * 260.0,
                80.0 + (i / 15) as f64 * 260.0,
                200.0,
                200.0,
            )
        })
        .collect();
    let sizes = vec![(200.0, 200.0); 20];
    c.bench_function("arrange/place 20 in a frame of 200", |b| {
        b.iter(|| black_box(arrange::place_in_frame(frame, &kids, &sizes, 20.0)))
    });
}

criterion_group!(benches, collision, flowcharts, arrangements);
criterion_main!(benches);
