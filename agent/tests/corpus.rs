//! The planner corpus (agent/tests/corpus/phrasings.txt): at least 300 everyday phrasings by
//! class, each from its starting board to its expected result, through the offline agent.
//! Rule ids: PLANNER-1..PLANNER-8 (docs/SPEC.md), per class.
#![allow(clippy::unwrap_used)]

#[path = "corpus/eval.rs"]
mod eval;

const CORPUS: &str = include_str!("corpus/phrasings.txt");

fn class(name: &str, min_accuracy: f64) {
    let rep = eval::run_all(CORPUS);
    let (ok, n, fails) = rep.get(name).cloned().unwrap_or_default();
    assert!(n >= 20, "class {name} has {n} phrasings");
    let acc = ok as f64 / n as f64;
    assert!(
        acc >= min_accuracy,
        "{name}: {ok}/{n} ({:.1} %) passed; failures:\n{}",
        100.0 * acc,
        fails.join("\n")
    );
}

#[test]
fn planner_9_corpus_has_at_least_300_phrasings() {
    let n = eval::cases(CORPUS).len();
    assert!(n >= 300, "{n} phrasings");
}

#[test]
fn planner_1_typos_filler_colon_forms() {
    class("typos and shorthand", 1.0);
}

#[test]
fn planner_2_named_structures() {
    class("named structures", 1.0);
}

#[test]
fn planner_3_counts_grids_times_words() {
    class("counts", 1.0);
}

#[test]
fn planner_4_references_by_text_frame_selection() {
    class("references", 1.0);
}

#[test]
fn planner_5_changing_kinds_and_shapes() {
    class("kinds and shapes", 1.0);
}

#[test]
fn planner_6_destructive_bulk_asks_first() {
    class("destructive bulk", 1.0);
}

#[test]
fn planner_7_board_questions_answered() {
    class("questions", 1.0);
}
