//! The `dagre` crate (a port of dagre.js) as the quality baseline for flowchart crossings.
//! Shared by the corpus test, the report example and the benchmarks (`#[path]` include).

use dagre::graph::{Graph as DGraph, GraphOptions};
use dagre::{EdgeLabel, LayoutOptions, NodeLabel};
use layout::corpus::{Graph, node_h, node_w};
use layout::directives::{Direction, flowchart};
use layout::metrics::EdgePath;

/// Gap between neighbours in a rank, for both engines.
pub const NODE_GAP: f64 = 40.0;

/// Edge polylines of dagre's top-down layout of `g`.
pub fn dagre_paths(g: &Graph) -> Vec<EdgePath> {
    let mut dg: DGraph<NodeLabel, EdgeLabel> = DGraph::with_options(GraphOptions {
        directed: true,
        multigraph: true,
        compound: false,
    });
    for i in 0..g.nodes {
        let n = NodeLabel {
            width: node_w(i),
            height: node_h(i),
            ..Default::default()
        };
        dg.set_node(format!("n{i}"), Some(n));
    }
    for (k, &(u, v)) in g.edges.iter().enumerate() {
        let name = format!("e{k}");
        dg.set_edge(
            format!("n{u}"),
            format!("n{v}"),
            Some(EdgeLabel::default()),
            Some(name.as_str()),
        );
    }
    let opts = LayoutOptions {
        nodesep: NODE_GAP,
        ranksep: NODE_GAP * 1.5,
        ..Default::default()
    };
    dagre::layout(&mut dg, Some(opts));
    g.edges
        .iter()
        .enumerate()
        .map(|(k, &(u, v))| {
            let name = format!("e{k}");
            let center = |i: usize| {
                dg.node(&format!("n{i}"))
                    .map(|n| (n.x.unwrap_or(0.0), n.y.unwrap_or(0.0)))
                    .unwrap_or_default()
            };
            // dagre clips edges at node borders; measure both engines centre to centre, as
            // the board draws connectors bound to objects.
            let inner: Vec<(f64, f64)> = dg
                .edge(&format!("n{u}"), &format!("n{v}"), Some(name.as_str()))
                .map(|l| {
                    let n = l.points.len();
                    l.points
                        .iter()
                        .skip(1)
                        .take(n.saturating_sub(2))
                        .map(|p| (p.x, p.y))
                        .collect()
                })
                .unwrap_or_default();
            let mut points = vec![center(u)];
            points.extend(inner);
            points.push(center(v));
            EdgePath {
                from: u,
                to: v,
                points,
            }
        })
        .collect()
}

/// Edge polylines of our top-down flowchart of `g`.
pub fn our_paths(g: &Graph) -> Vec<EdgePath> {
    let (nodes, edges) = g.input();
    let a = flowchart(&nodes, &edges, Direction::TopDown, NODE_GAP);
    g.edges
        .iter()
        .zip(&a.routes)
        .map(|(&(u, v), r)| EdgePath {
            from: u,
            to: v,
            points: r.points.clone(),
        })
        .collect()
}
