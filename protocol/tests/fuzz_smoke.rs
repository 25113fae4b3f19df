//! FUZZ-1, FUZZ-2: a few thousand inputs of each target of the fuzz driver (`protocol/examples/fuzz/`)
//! in every `cargo test`, so the driver keeps compiling and its checks keep passing. The full
//! runs (10 million inputs each, release) are in docs/BENCHMARKS.md.
#![allow(clippy::unwrap_used)]

#[path = "../examples/fuzz/board.rs"]
mod board;
#[path = "../examples/fuzz/commits.rs"]
mod commits;
#[path = "../examples/fuzz/edits.rs"]
mod edits;
#[path = "../examples/fuzz/frames.rs"]
mod frames;
#[path = "../examples/fuzz/rng.rs"]
mod rng;
#[path = "../examples/fuzz/wire.rs"]
mod wire;

#[test]
fn fuzz_1_decode_never_panics_and_answers_wire_2_codes() {
    let stats = wire::run(7, 4_000, false).unwrap_or_else(|report| panic!("{report}"));
    assert_eq!(stats.inputs, 4_000);
    // Every kind of answer is reached: the generator is not stuck on one.
    assert!(
        stats.ok > 100 && stats.bad_json > 100,
        "{}",
        stats.summary()
    );
    assert!(
        stats.unknown_type > 10 && stats.invalid > 100,
        "{}",
        stats.summary()
    );
    assert!(
        stats.commits_applied > 10 && stats.commits_refused > 10,
        "{}",
        stats.summary()
    );
}

#[test]
fn fuzz_2_board_keeps_its_invariants_rollback_and_undo() {
    let stats = board::run(7, 4_000, false).unwrap_or_else(|report| panic!("{report}"));
    assert!(stats.inputs >= 4_000);
    assert!(stats.applied > 500, "{}", stats.summary());
    assert!(
        stats.not_found > 100 && stats.invalid > 100 && stats.limit > 0,
        "{}",
        stats.summary()
    );
    assert!(
        stats.undos_checked > 50 && stats.rollbacks_checked > 20,
        "{}",
        stats.summary()
    );
    assert!(stats.old_undos > 50, "{}", stats.summary());
}

#[test]
fn fuzz_1_fuzz_2_a_case_runs_again_alone() {
    wire::run_case(rng::case_seed(7, 1, 3)).unwrap();
    board::run_case(rng::case_seed(7, 2, 0)).unwrap();
}
