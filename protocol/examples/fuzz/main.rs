//! A fuzz driver on stable Rust for the two functions that take whatever clients send:
//! `ClientMsg::decode` (target `decode`, `wire.rs`) and `BoardState::apply` with rollback and
//! undo's revert (target `board`, `board.rs`). Inputs come from a seeded generator (`rng.rs`), so
//! a run is repeatable from its seed and any failing case from the case seed it prints.
//!
//! ```text
//! cargo run --release -p protocol --example fuzz -- --inputs 10000000 --seed 1
//!     [--target decode|board|all]      which targets (default all), each gets --inputs inputs
//!     [--target board --case 0x…]      run one case again and print it
//! ```
//!
//! Exits 1 with the failing seed, case and input on a panic or a broken rule, 2 on bad usage.
//! `protocol/tests/fuzz_smoke.rs` runs a few thousand inputs of each in `cargo test`.

mod board;
mod commits;
mod edits;
mod frames;
mod rng;
mod wire;

use std::process::ExitCode;
use std::time::Instant;

struct Args {
    inputs: u64,
    seed: u64,
    targets: Vec<String>,
    case: Option<u64>,
}

fn number(s: &str) -> Result<u64, String> {
    let t = s.replace('_', "");
    let parsed = match t.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse(),
    };
    parsed.map_err(|_| format!("not a number: {s}"))
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        inputs: 1_000_000,
        seed: 1,
        targets: vec!["decode".into(), "board".into()],
        case: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--inputs" => a.inputs = number(&val()?)?,
            "--seed" => a.seed = number(&val()?)?,
            "--case" => a.case = Some(number(&val()?)?),
            "--target" => {
                a.targets = match val()?.as_str() {
                    "all" => vec!["decode".into(), "board".into()],
                    t @ ("decode" | "board") => vec![t.into()],
                    t => return Err(format!("unknown target {t} (decode, board, all)")),
                }
            }
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    if a.case.is_some() && a.targets.len() != 1 {
        return Err("--case needs --target decode or --target board".into());
    }
    Ok(a)
}

/// CPU time of this (single-threaded) process so far, where Linux says it.
fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!(
                "fuzz: {e}\nusage: fuzz [--inputs N] [--seed N] [--target decode|board|all] [--case SEED]"
            );
            return ExitCode::from(2);
        }
    };
    if let Some(case) = args.case {
        let r = match args.targets[0].as_str() {
            "decode" => wire::run_case(case),
            _ => board::run_case(case),
        };
        return match r {
            Ok(()) => {
                println!("case {case:#018x}: passed");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("case {case:#018x}: FAILED: {e}");
                ExitCode::from(1)
            }
        };
    }
    for target in &args.targets {
        let started = Instant::now();
        let cpu_started = cpu_secs();
        let result = match target.as_str() {
            "decode" => wire::run(args.seed, args.inputs, true).map(|s| (s.inputs, s.summary())),
            _ => board::run(args.seed, args.inputs, true).map(|s| (s.inputs, s.summary())),
        };
        let secs = started.elapsed().as_secs_f64();
        // The machine may be shared: the CPU time says what the run itself cost.
        let cpu = cpu_started.zip(cpu_secs()).map(|(a, b)| b - a);
        match result {
            Ok((count, summary)) => {
                let cpu = cpu.map_or(String::new(), |c| {
                    format!(
                        ", {c:.1} s of CPU ({:.0} inputs per CPU-second)",
                        count as f64 / c
                    )
                });
                println!(
                    "{target}: seed {}: {summary}; {secs:.1} s ({:.0} inputs/s){cpu}, no failure",
                    args.seed,
                    count as f64 / secs
                );
            }
            Err(report) => {
                eprintln!("{report}");
                eprintln!("FAILED after {secs:.1} s");
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::SUCCESS
}
