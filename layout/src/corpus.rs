//! A deterministic corpus of flowchart graphs (chains, diamonds, fan-out/fan-in, trees, cycles,
//! random DAGs and digraphs, 5-200 nodes) used by the quality tests, the dagre comparison and
//! the benchmarks. Generated in code with a fixed-seed generator: the same graphs every run.

use crate::directives::{Edge, Node};

/// A graph of the corpus: `nodes` nodes named `n0..`, edges by index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    /// Short descriptive name.
    pub name: String,
    /// Number of nodes.
    pub nodes: usize,
    /// Directed edges (may include cycles, self loops and duplicates).
    pub edges: Vec<(usize, usize)>,
}

impl Graph {
    fn new(name: impl Into<String>, nodes: usize, edges: Vec<(usize, usize)>) -> Self {
        Self {
            name: name.into(),
            nodes,
            edges,
        }
    }

    /// Directive input: node `i` is keyed `n{i}` with a size that varies a little by index
    /// (120-200 wide, 60-100 tall), like flowchart shapes with labels of different lengths.
    pub fn input(&self) -> (Vec<Node>, Vec<Edge>) {
        let nodes = (0..self.nodes)
            .map(|i| Node::new(format!("n{i}"), node_w(i), node_h(i)))
            .collect();
        let edges = self
            .edges
            .iter()
            .map(|&(u, v)| Edge::new(format!("n{u}"), format!("n{v}")))
            .collect();
        (nodes, edges)
    }
}

/// Width of corpus node `i`.
pub fn node_w(i: usize) -> f64 {
    120.0 + ((i * 37) % 5) as f64 * 20.0
}

/// Height of corpus node `i`.
pub fn node_h(i: usize) -> f64 {
    60.0 + ((i * 11) % 3) as f64 * 20.0
}

/// A small linear congruential generator (deterministic, no dependency).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn chain(n: usize) -> Vec<(usize, usize)> {
    (1..n).map(|i| (i - 1, i)).collect()
}

fn diamonds(k: usize) -> Graph {
    // k diamonds in a row: top -> left, right -> bottom (= next top).
    let mut e = Vec::new();
    for d in 0..k {
        let t = d * 3;
        e.extend([(t, t + 1), (t, t + 2), (t + 1, t + 3), (t + 2, t + 3)]);
    }
    Graph::new(format!("diamonds-{k}"), 3 * k + 1, e)
}

fn fan(k: usize, out: bool, back: bool) -> Graph {
    let mut e: Vec<(usize, usize)> = (1..=k).map(|i| if out { (0, i) } else { (i, 0) }).collect();
    let name = if back {
        e.extend((1..=k).map(|i| (i, k + 1)));
        format!("fan-out-in-{k}")
    } else {
        format!("fan-{}-{k}", if out { "out" } else { "in" })
    };
    Graph::new(name, if back { k + 2 } else { k + 1 }, e)
}

fn tree(arity: usize, n: usize) -> Graph {
    Graph::new(
        format!("tree-{arity}-{n}"),
        n,
        (1..n).map(|i| ((i - 1) / arity, i)).collect(),
    )
}

fn ring(n: usize) -> Graph {
    let mut e = chain(n);
    e.push((n - 1, 0));
    Graph::new(format!("ring-{n}"), n, e)
}

fn retry_loops(n: usize) -> Graph {
    let mut e = chain(n);
    e.extend((3..n).step_by(3).map(|i| (i, i - 2)));
    Graph::new(format!("retry-loops-{n}"), n, e)
}

/// Random DAG: every node after the first gets 1-2 parents among the previous `window` nodes,
/// plus a few extra forward edges.
fn random_dag(n: usize, seed: u64, extra: usize) -> Graph {
    let mut r = Lcg(seed);
    let mut e = Vec::new();
    for v in 1..n {
        let window = 8.min(v);
        let parents = 1 + r.below(2);
        for _ in 0..parents {
            e.push((v - 1 - r.below(window), v));
        }
    }
    for _ in 0..extra {
        let a = r.below(n - 1);
        let b = a + 1 + r.below(n - 1 - a);
        e.push((a, b));
    }
    e.sort_unstable();
    e.dedup();
    Graph::new(format!("dag-{n}-s{seed}"), n, e)
}

/// Random digraph with cycles: a random DAG plus back edges.
fn random_cyclic(n: usize, seed: u64) -> Graph {
    let mut g = random_dag(n, seed, n / 5);
    let mut r = Lcg(seed ^ 0x9e37_79b9);
    for _ in 0..(n / 8).max(1) {
        let b = 1 + r.below(n - 1);
        let a = r.below(b);
        g.edges.push((b, a));
    }
    g.name = format!("cyclic-{n}-s{seed}");
    g
}

/// Branching process: decisions with yes/no branches that merge again.
fn decisions(k: usize) -> Graph {
    let mut e = Vec::new();
    let mut cur = 0;
    let mut next = 1;
    for i in 0..k {
        let (yes, no, join) = (next, next + 1, next + 2);
        next += 3;
        e.extend([(cur, yes), (cur, no), (yes, join), (no, join)]);
        if i % 3 == 2 {
            e.push((no, cur)); // a "try again" loop
        }
        cur = join;
    }
    Graph::new(format!("decisions-{k}"), next, e)
}

fn bipartite(a: usize, b: usize) -> Graph {
    let e = (0..a)
        .flat_map(|i| (0..b).map(move |j| (i, a + j)))
        .collect();
    Graph::new(format!("bipartite-{a}x{b}"), a + b, e)
}

fn grid_dag(k: usize) -> Graph {
    let mut e = Vec::new();
    for r in 0..k {
        for c in 0..k {
            let v = r * k + c;
            if c + 1 < k {
                e.push((v, v + 1));
            }
            if r + 1 < k {
                e.push((v, v + k));
            }
        }
    }
    Graph::new(format!("grid-{k}x{k}"), k * k, e)
}

/// The corpus: 36 graphs from 5 to 200 nodes.
pub fn flowcharts() -> Vec<Graph> {
    let mut g = vec![
        Graph::new("chain-5", 5, chain(5)),
        Graph::new("chain-20", 20, chain(20)),
        Graph::new("chain-60", 60, chain(60)),
        diamonds(2),
        diamonds(5),
        fan(8, true, false),
        fan(8, false, false),
        fan(12, true, true),
        tree(2, 31),
        tree(3, 40),
        ring(5),
        ring(12),
        retry_loops(15),
        retry_loops(40),
        decisions(4),
        decisions(12),
        bipartite(3, 3),
        bipartite(4, 5),
        grid_dag(5),
        {
            // Self loops, duplicates and a two-cycle.
            let mut e = chain(6);
            e.extend([(2, 2), (1, 2), (1, 2), (4, 3), (5, 0)]);
            Graph::new("loops-dups-6", 6, e)
        },
        {
            // Three disconnected components.
            let mut e = chain(5);
            e.extend(diamonds(2).edges.iter().map(|&(a, b)| (a + 5, b + 5)));
            e.extend(
                fan(4, true, true)
                    .edges
                    .iter()
                    .map(|&(a, b)| (a + 12, b + 12)),
            );
            Graph::new("components-18", 18, e)
        },
    ];
    for (n, seed) in [
        (10, 1),
        (20, 2),
        (30, 3),
        (50, 4),
        (80, 5),
        (100, 6),
        (150, 7),
        (200, 8),
    ] {
        g.push(random_dag(n, seed, n / 6));
    }
    for (n, seed) in [(15, 11), (40, 12), (100, 13), (200, 14)] {
        g.push(random_cyclic(n, seed));
    }
    g.push(tree(2, 127));
    g.push(decisions(40));
    g.push(random_dag(120, 21, 40));
    g
}

/// A larger random flowchart (a DAG with some back edges) of `n` nodes, for benchmarks.
pub fn large(n: usize, seed: u64) -> Graph {
    random_cyclic(n.max(2), seed)
}
