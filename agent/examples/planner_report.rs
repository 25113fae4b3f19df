//! Runs the planner corpus (agent/tests/corpus/phrasings.txt) and prints the accuracy per class
//! as a markdown table, then the failures: `cargo run -p agent --example planner_report [FILE]`.
#![allow(clippy::unwrap_used)]

#[path = "../tests/corpus/eval.rs"]
mod eval;

fn main() {
    // An optional path runs another corpus file in the same format.
    let other = std::env::args()
        .nth(1)
        .map(|p| std::fs::read_to_string(p).unwrap());
    let src = other
        .as_deref()
        .unwrap_or(include_str!("../tests/corpus/phrasings.txt"));
    let rep = eval::run_all(src);
    print!("{}", eval::markdown(&rep));
    let fails: Vec<&String> = rep.values().flat_map(|(_, _, f)| f).collect();
    if !fails.is_empty() {
        println!("\nFailures:");
        for f in fails {
            println!("- {f}");
        }
    }
}
