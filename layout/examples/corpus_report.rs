//! Flowchart corpus report: drawn edge crossings per graph, ours against the `dagre` crate.
//!
//! `cargo run --release -p layout --example corpus_report`

#[path = "../tests/support/baseline.rs"]
mod baseline;

use std::time::Instant;

use layout::corpus::flowcharts;
use layout::directives::{Direction, flowchart};
use layout::metrics::measure_arrangement;

fn main() {
    println!(
        "| graph | nodes | edges | crossings (ours) | crossings (dagre) | edge-node (ours) | flow down (ours) | ours ms | dagre ms |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let (mut total_ours, mut total_dagre, mut worse) = (0, 0, 0);
    for g in flowcharts() {
        let t0 = Instant::now();
        let ours = baseline::our_paths(&g);
        let ours_ms = t0.elapsed().as_secs_f64() * 1e3;
        let t1 = Instant::now();
        let theirs = baseline::dagre_paths(&g);
        let dagre_ms = t1.elapsed().as_secs_f64() * 1e3;
        let (co, cd) = (
            layout::metrics::count_crossings(&ours),
            layout::metrics::count_crossings(&theirs),
        );
        let (nodes, edges) = g.input();
        let m = measure_arrangement(&flowchart(
            &nodes,
            &edges,
            Direction::TopDown,
            baseline::NODE_GAP,
        ));
        total_ours += co;
        total_dagre += cd;
        worse += usize::from(co > cd);
        println!(
            "| {} | {} | {} | {co} | {cd} | {} | {:.2} | {ours_ms:.2} | {dagre_ms:.2} |",
            g.name,
            g.nodes,
            g.edges.len(),
            m.edge_node_crossings,
            m.flow_down
        );
    }
    println!(
        "\ntotal crossings: ours {total_ours}, dagre {total_dagre}; graphs where ours is worse: {worse}"
    );
    if worse > 0 {
        std::process::exit(1);
    }
}
