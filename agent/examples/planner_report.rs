//! Runs the planner corpus (agent/tests/corpus/phrasings.txt) and prints the accuracy per class
//! as a markdown table, then the failures: `cargo run -p agent --example planner_report`.
#![allow(clippy::unwrap_used)]

#[path = "../tests/corpus/eval.rs"]
mod eval;

fn main() {
    let src = include_str!("../tests/corpus/phrasings.txt");
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
