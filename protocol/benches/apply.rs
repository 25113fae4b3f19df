//! The pure apply path: commits of 1, 10 and 100 ops on a board of 10,000 objects.
#![allow(clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use protocol::num::Num;
use protocol::{BoardState, Kind, ObjectId, ObjectInput, OpInput, PatchInput, UserId};

fn board(n: usize) -> (BoardState, Vec<ObjectId>) {
    let mut b = BoardState::new(1_000_000);
    let user = UserId::try_from("bench").unwrap();
    let ops: Vec<OpInput> = (0..n)
        .map(|i| {
            let mut o = ObjectInput::new(Kind::Note);
            o.x = Some(Num((i % 100) as f64 * 220.0));
            o.y = Some(Num((i / 100) as f64 * 220.0));
            o.text = Some(format!("note {i}"));
            OpInput::Create { object: o }
        })
        .collect();
    let out = b.apply(&ops, &user, 1).unwrap();
    (b, out.created_ids())
}

fn bench_apply(c: &mut Criterion) {
    let (mut b, ids) = board(10_000);
    let user = UserId::try_from("bench").unwrap();
    let mut g = c.benchmark_group("apply_move_on_10k_board");
    for n in [1usize, 10, 100] {
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(
            BenchmarkId::from_parameter(format!("{n}_ops")),
            &n,
            |bench, &n| {
                let mut seq = 2;
                let mut k = 0usize;
                bench.iter(|| {
                    let ops: Vec<OpInput> = (0..n)
                        .map(|i| OpInput::Update {
                            id: ids[(k + i) % ids.len()].clone(),
                            set: PatchInput {
                                x: Some(Num((seq % 1000) as f64)),
                                ..PatchInput::default()
                            },
                        })
                        .collect();
                    k += n;
                    seq += 1;
                    b.apply(&ops, &user, seq).unwrap()
                })
            },
        );
    }
    g.finish();
    let mut g = c.benchmark_group("apply_create_delete_on_10k_board");
    for n in [1usize, 10, 100] {
        g.bench_with_input(
            BenchmarkId::from_parameter(format!("{n}_ops")),
            &n,
            |bench, &n| {
                let mut seq = 1_000_000;
                bench.iter(|| {
                    let creates: Vec<OpInput> = (0..n)
                        .map(|_| OpInput::Create {
                            object: ObjectInput::new(Kind::Shape),
                        })
                        .collect();
                    seq += 1;
                    let out = b.apply(&creates, &user, seq).unwrap();
                    let deletes: Vec<OpInput> = out
                        .created_ids()
                        .into_iter()
                        .map(|id| OpInput::Delete { id })
                        .collect();
                    seq += 1;
                    b.apply(&deletes, &user, seq).unwrap()
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench_apply);
criterion_main!(benches);
