//! The flowchart corpus (LAYOUT-8): quality of every graph, and crossings never above the
//! `dagre` crate's on the graphs small enough for a debug build (the full corpus, up to 200
//! nodes, is compared in release by `cargo run --release -p layout --example corpus_report`).

mod support {
    pub mod baseline;
}

use layout::corpus::flowcharts;
use layout::directives::{Direction, flowchart};
use layout::metrics::{count_crossings, measure_arrangement};
use support::baseline;

#[test]
fn layout_8_corpus_has_30_graphs_of_5_to_200_nodes() {
    let c = flowcharts();
    assert!(c.len() >= 30);
    assert_eq!(c.iter().map(|g| g.nodes).min(), Some(5));
    assert_eq!(c.iter().map(|g| g.nodes).max(), Some(200));
    let cyclic = c
        .iter()
        .filter(|g| g.name.starts_with("cyclic") || g.name.starts_with("ring"))
        .count();
    assert!(cyclic >= 4);
}

#[test]
fn layout_8_corpus_quality() {
    for g in flowcharts() {
        let (nodes, edges) = g.input();
        for dir in [Direction::TopDown, Direction::LeftRight] {
            let a = flowchart(&nodes, &edges, dir, 40.0);
            let m = measure_arrangement(&a);
            assert_eq!(m.overlaps, 0, "{}", g.name);
            assert!(m.min_gap >= 40.0 - 1e-6, "{}: gap {}", g.name, m.min_gap);
            assert_eq!(
                a.routes.len(),
                g.edges.len(),
                "{}: every edge is drawn",
                g.name
            );
            let flow = if dir == Direction::TopDown {
                m.flow_down
            } else {
                m.flow_right
            };
            let acyclic = g.edges.iter().all(|&(u, v)| u < v);
            if acyclic {
                assert_eq!(flow, 1.0, "{}: DAG edges all point {:?}", g.name, dir);
            } else {
                assert!(flow >= 0.7, "{}: flow {flow}", g.name);
            }
        }
    }
}

#[test]
fn layout_8_crossings_never_above_dagre_small_corpus() {
    let mut report = String::new();
    for g in flowcharts().into_iter().filter(|g| g.nodes <= 60) {
        let ours = count_crossings(&baseline::our_paths(&g));
        let dagre = count_crossings(&baseline::dagre_paths(&g));
        report += &format!("{}: ours {ours}, dagre {dagre}\n", g.name);
        assert!(
            ours <= dagre,
            "{}: {ours} crossings, dagre {dagre}\n{report}",
            g.name
        );
    }
    println!("{report}");
}
