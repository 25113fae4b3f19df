//! Cycle removal (greedy feedback arc set) and layer assignment (longest path, then tightened).

use std::collections::VecDeque;

/// A vertex sequence for which few edges point backwards (Eades-Lin-Smyth greedy heuristic):
/// sinks go to the end, sources to the front, otherwise the vertex with the largest
/// out-degree minus in-degree (ties: lowest `prio`) goes to the front. Edges `(u, v)` with
/// `u` after `v` in the result are the ones to reverse. Self loops must be removed beforehand.
pub(crate) fn feedback_order(n: usize, edges: &[(usize, usize)], prio: &[usize]) -> Vec<usize> {
    let mut outs = vec![Vec::new(); n];
    let mut ins = vec![Vec::new(); n];
    for &(u, v) in edges {
        outs[u].push(v);
        ins[v].push(u);
    }
    let mut indeg: Vec<usize> = ins.iter().map(Vec::len).collect();
    let mut outdeg: Vec<usize> = outs.iter().map(Vec::len).collect();
    let mut removed = vec![false; n];
    let mut front = Vec::with_capacity(n);
    let mut back = Vec::new();
    let mut by_prio: Vec<usize> = (0..n).collect();
    by_prio.sort_by_key(|&v| (prio[v], v));
    let mut left = n;
    let mut queue: VecDeque<usize> = VecDeque::new();

    let remove = |v: usize,
                  removed: &mut Vec<bool>,
                  indeg: &mut Vec<usize>,
                  outdeg: &mut Vec<usize>,
                  queue: &mut VecDeque<usize>| {
        removed[v] = true;
        for &w in &outs[v] {
            if !removed[w] {
                indeg[w] -= 1;
                if indeg[w] == 0 || outdeg[w] == 0 {
                    queue.push_back(w);
                }
            }
        }
        for &w in &ins[v] {
            if !removed[w] {
                outdeg[w] -= 1;
                if indeg[w] == 0 || outdeg[w] == 0 {
                    queue.push_back(w);
                }
            }
        }
    };

    queue.extend(
        by_prio
            .iter()
            .copied()
            .filter(|&v| indeg[v] == 0 || outdeg[v] == 0),
    );
    while left > 0 {
        while let Some(v) = queue.pop_front() {
            if removed[v] {
                continue;
            }
            if outdeg[v] == 0 {
                back.push(v);
            } else if indeg[v] == 0 {
                front.push(v);
            } else {
                continue;
            }
            left -= 1;
            remove(v, &mut removed, &mut indeg, &mut outdeg, &mut queue);
        }
        if left == 0 {
            break;
        }
        // Every remaining vertex has both in- and out-edges: take the most "source-like".
        let pick = by_prio
            .iter()
            .copied()
            .filter(|&v| !removed[v])
            .max_by(|&a, &b| {
                let da = outdeg[a] as i64 - indeg[a] as i64;
                let db = outdeg[b] as i64 - indeg[b] as i64;
                da.cmp(&db).then(prio[b].cmp(&prio[a])).then(b.cmp(&a))
            });
        let Some(v) = pick else { break };
        front.push(v);
        left -= 1;
        remove(v, &mut removed, &mut indeg, &mut outdeg, &mut queue);
    }
    back.reverse();
    front.extend(back);
    front
}

/// A vertex sequence from depth-first search (roots in `prio` order): edges into a vertex still
/// on the DFS stack are the back edges; the sequence is the reverse post-order, so exactly those
/// edges point backwards in it.
pub(crate) fn dfs_order(n: usize, edges: &[(usize, usize)], prio: &[usize]) -> Vec<usize> {
    let mut outs = vec![Vec::new(); n];
    for &(u, v) in edges {
        outs[u].push(v);
    }
    let mut roots: Vec<usize> = (0..n).collect();
    // Sources first so a chain's head starts the search, then by priority.
    let mut indeg = vec![0usize; n];
    for &(_, v) in edges {
        indeg[v] += 1;
    }
    roots.sort_by_key(|&v| (indeg[v] > 0, prio[v], v));
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut post = Vec::with_capacity(n);
    for r in roots {
        if state[r] != 0 {
            continue;
        }
        let mut stack = vec![(r, 0usize)];
        state[r] = 1;
        while let Some(&mut (v, ref mut k)) = stack.last_mut() {
            if let Some(&w) = outs[v].get(*k) {
                *k += 1;
                if state[w] == 0 {
                    state[w] = 1;
                    stack.push((w, 0));
                }
            } else {
                state[v] = 2;
                post.push(v);
                stack.pop();
            }
        }
    }
    post.reverse();
    post
}

/// Layers for a DAG: longest path from the sources, then tightened so every node sits where the
/// sum of its edge spans is smallest (nodes with more in-edges move up against their
/// predecessors, sources move down next to their successors). Returns layers starting at 0.
pub(crate) fn assign_layers(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut outs = vec![Vec::new(); n];
    let mut ins = vec![Vec::new(); n];
    for &(u, v) in edges {
        outs[u].push(v);
        ins[v].push(u);
    }
    let mut indeg: Vec<usize> = ins.iter().map(Vec::len).collect();
    let mut topo = Vec::with_capacity(n);
    let mut queue: VecDeque<usize> = (0..n).filter(|&v| indeg[v] == 0).collect();
    while let Some(v) = queue.pop_front() {
        topo.push(v);
        for &w in &outs[v] {
            indeg[w] -= 1;
            if indeg[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    // A cycle left over would be a bug in cycle removal; place such nodes last rather than panic.
    if topo.len() < n {
        let mut seen = vec![false; n];
        for &v in &topo {
            seen[v] = true;
        }
        topo.extend((0..n).filter(|&v| !seen[v]));
    }
    let mut layer = vec![0usize; n];
    for &v in &topo {
        for &w in &outs[v] {
            layer[w] = layer[w].max(layer[v] + 1);
        }
    }
    for pass in 0..8 {
        let mut changed = false;
        let seq: Box<dyn Iterator<Item = &usize>> = if pass % 2 == 0 {
            Box::new(topo.iter().rev())
        } else {
            Box::new(topo.iter())
        };
        for &v in seq {
            let (np, ns) = (ins[v].len(), outs[v].len());
            if np == ns {
                continue;
            }
            let lo = ins[v].iter().map(|&p| layer[p] + 1).max().unwrap_or(0);
            let hi = outs[v].iter().map(|&s| layer[s].saturating_sub(1)).min();
            let want = match hi {
                Some(hi) if ns > np => hi.max(lo),
                _ => lo,
            };
            if want != layer[v] {
                layer[v] = want;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let min = layer.iter().copied().min().unwrap_or(0);
    layer.iter_mut().for_each(|l| *l -= min);
    layer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn back_edges(n: usize, edges: &[(usize, usize)]) -> usize {
        let prio: Vec<usize> = (0..n).collect();
        let order = feedback_order(n, edges, &prio);
        let mut pos = vec![0; n];
        for (i, &v) in order.iter().enumerate() {
            pos[v] = i;
        }
        edges.iter().filter(|&&(u, v)| pos[u] > pos[v]).count()
    }

    #[test]
    fn layout_8_cycle_loses_one_edge() {
        assert_eq!(back_edges(3, &[(0, 1), (1, 2), (2, 0)]), 1);
        assert_eq!(back_edges(4, &[(0, 1), (1, 2), (2, 3)]), 0);
        assert_eq!(back_edges(2, &[(0, 1), (1, 0)]), 1);
    }

    #[test]
    fn layers_respect_edges_and_tighten() {
        // 0 -> 1 -> 2 -> 3, and 4 -> 3: source 4 sits right above 3.
        let edges = [(0, 1), (1, 2), (2, 3), (4, 3)];
        let l = assign_layers(5, &edges);
        assert!(edges.iter().all(|&(u, v)| l[u] < l[v]));
        assert_eq!(l[4] + 1, l[3]);
        // Sibling leaves share a tier.
        let l = assign_layers(4, &[(0, 1), (0, 2), (1, 3)]);
        assert_eq!(l[1], l[2]);
    }
}
