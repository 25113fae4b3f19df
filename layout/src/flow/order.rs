//! Crossing reduction: repeated barycenter and median sweeps with adjacent transpositions,
//! keeping the best ordering seen; several starting orders, the best one wins.

/// A proper layered graph: every edge joins consecutive layers.
#[derive(Debug, Clone)]
pub(crate) struct Layered {
    /// Node ids per layer, in left-to-right order.
    pub layers: Vec<Vec<usize>>,
    /// Neighbours in the layer above (with multiplicity).
    pub up: Vec<Vec<usize>>,
    /// Neighbours in the layer below (with multiplicity).
    pub down: Vec<Vec<usize>>,
    /// Nodes `0..real` are real nodes, the others dummies.
    pub real: usize,
}

/// Sweeps without improvement before a start gives up (thorough, quick).
const PATIENCE: [usize; 2] = [10, 4];
/// Upper bound on sweeps per start (thorough, quick).
const MAX_SWEEPS: [usize; 2] = [48, 16];

/// Number of crossings between layers `i` and `i + 1` (Barth-Jünger-Mutzel accumulator tree).
fn crossings_between(g: &Layered, pos: &[usize], i: usize) -> usize {
    let lower = &g.layers[i + 1];
    if lower.is_empty() {
        return 0;
    }
    let mut targets: Vec<usize> = Vec::new();
    for &u in &g.layers[i] {
        let start = targets.len();
        targets.extend(g.down[u].iter().map(|&v| pos[v]));
        targets[start..].sort_unstable();
    }
    let mut first = 1;
    while first < lower.len() {
        first <<= 1;
    }
    let mut tree = vec![0usize; 2 * first];
    let mut count = 0;
    for t in targets {
        let mut idx = t + first;
        tree[idx] += 1;
        while idx > 1 {
            if idx % 2 == 0 {
                // A left child: every edge already ending right of it crosses this one.
                count += tree[idx + 1];
            }
            idx /= 2;
            tree[idx] += 1;
        }
    }
    count
}

/// Total number of crossings of the ordering.
pub(crate) fn crossings(g: &Layered) -> usize {
    let pos = positions(g);
    (0..g.layers.len().saturating_sub(1))
        .map(|i| crossings_between(g, &pos, i))
        .sum()
}

fn positions(g: &Layered) -> Vec<usize> {
    let n = g.up.len();
    let mut pos = vec![0; n];
    for layer in &g.layers {
        for (i, &v) in layer.iter().enumerate() {
            pos[v] = i;
        }
    }
    pos
}

fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        2 => Some((sorted[0] + sorted[1]) / 2.0),
        _ => {
            let m = n / 2;
            let left = sorted[m - 1] - sorted[0];
            let right = sorted[n - 1] - sorted[m];
            if left + right <= 0.0 {
                Some((sorted[m - 1] + sorted[m]) / 2.0)
            } else {
                Some((sorted[m - 1] * right + sorted[m] * left) / (left + right))
            }
        }
    }
}

/// Reorders layer `i` by the barycenter (or weighted median) of its neighbours in the adjacent
/// fixed layer; nodes without such neighbours keep their slots. Ties keep the current order, or
/// the reverse when `bias_right`.
fn sort_layer(
    g: &mut Layered,
    pos: &mut [usize],
    i: usize,
    use_up: bool,
    med: bool,
    bias_right: bool,
    pinned: bool,
) {
    let layer = &g.layers[i];
    let mut keyed: Vec<(f64, usize, usize)> = Vec::new();
    let mut fixed_slot = vec![false; layer.len()];
    for (slot, &v) in layer.iter().enumerate() {
        let nb = if use_up { &g.up[v] } else { &g.down[v] };
        if nb.is_empty() {
            fixed_slot[slot] = true;
            continue;
        }
        let mut ps: Vec<f64> = nb.iter().map(|&w| pos[w] as f64).collect();
        let key = if med {
            ps.sort_by(f64::total_cmp);
            median(&ps).unwrap_or(slot as f64)
        } else {
            ps.iter().sum::<f64>() / ps.len() as f64
        };
        keyed.push((key, slot, v));
    }
    keyed.sort_by(|a, b| {
        let tie = if bias_right {
            b.1.cmp(&a.1)
        } else {
            a.1.cmp(&b.1)
        };
        a.0.total_cmp(&b.0).then(tie)
    });
    let mut it = keyed.into_iter().map(|k| k.2);
    let mut new: Vec<usize> = layer
        .iter()
        .enumerate()
        .map(|(slot, &v)| {
            if fixed_slot[slot] {
                v
            } else {
                it.next().unwrap_or(v)
            }
        })
        .collect();
    if pinned {
        // Real nodes keep their relative order: only dummies move between them.
        let mut reals = layer.iter().copied().filter(|&v| v < g.real);
        for v in new.iter_mut() {
            if *v < g.real {
                *v = reals.next().unwrap_or(*v);
            }
        }
    }
    for (p, &v) in new.iter().enumerate() {
        pos[v] = p;
    }
    g.layers[i] = new;
}

/// Crossings among the edges of `u` and `v` toward one neighbour list when `u` is left of `v`.
fn pair_crossings(nu: &[usize], nv: &[usize], pos: &[usize]) -> usize {
    let mut c = 0;
    for &a in nu {
        for &b in nv {
            if pos[a] > pos[b] {
                c += 1;
            }
        }
    }
    c
}

/// Swaps adjacent nodes while that reduces crossings with both neighbouring layers.
fn transpose(g: &mut Layered, pos: &mut [usize], pinned: bool) {
    for _round in 0..8 {
        let mut improved = false;
        for i in 0..g.layers.len() {
            for j in 0..g.layers[i].len().saturating_sub(1) {
                let (u, v) = (g.layers[i][j], g.layers[i][j + 1]);
                if pinned && u < g.real && v < g.real {
                    continue;
                }
                let before = pair_crossings(&g.up[u], &g.up[v], pos)
                    + pair_crossings(&g.down[u], &g.down[v], pos);
                let after = pair_crossings(&g.up[v], &g.up[u], pos)
                    + pair_crossings(&g.down[v], &g.down[u], pos);
                if after < before {
                    g.layers[i].swap(j, j + 1);
                    pos[u] = j + 1;
                    pos[v] = j;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
}

/// Runs the sweeps from the current ordering; leaves the best ordering found in `g` and returns
/// its crossing count.
fn reduce_from(g: &mut Layered, thorough: bool, pinned: bool) -> usize {
    let effort = usize::from(!thorough);
    let mut pos = positions(g);
    let mut best = g.layers.clone();
    let mut best_c = crossings(g);
    let mut stale = 0;
    let l = g.layers.len();
    for sweep in 0..MAX_SWEEPS[effort] {
        if best_c == 0 || stale >= PATIENCE[effort] {
            break;
        }
        let down = sweep % 2 == 0;
        let med = (sweep / 2) % 2 == 1;
        let bias_right = (sweep / 4) % 2 == 1;
        if down {
            for i in 1..l {
                sort_layer(g, &mut pos, i, true, med, bias_right, pinned);
            }
        } else {
            for i in (0..l.saturating_sub(1)).rev() {
                sort_layer(g, &mut pos, i, false, med, bias_right, pinned);
            }
        }
        transpose(g, &mut pos, pinned);
        let c = crossings(g);
        if c < best_c {
            best_c = c;
            best.clone_from(&g.layers);
            stale = 0;
        } else {
            stale += 1;
        }
    }
    g.layers = best;
    best_c
}

/// A depth-first starting order: walking down from the nodes of the top layers in their current
/// order, each node is appended to its layer when first reached.
fn dfs_start(g: &Layered) -> Vec<Vec<usize>> {
    let n = g.up.len();
    let mut layer_of = vec![0; n];
    for (i, layer) in g.layers.iter().enumerate() {
        for &v in layer {
            layer_of[v] = i;
        }
    }
    let mut seen = vec![false; n];
    let mut out = vec![Vec::new(); g.layers.len()];
    for layer in &g.layers {
        for &root in layer {
            if seen[root] {
                continue;
            }
            let mut stack = vec![root];
            seen[root] = true;
            while let Some(v) = stack.pop() {
                out[layer_of[v]].push(v);
                for &w in g.down[v].iter().rev() {
                    if !seen[w] {
                        seen[w] = true;
                        stack.push(w);
                    }
                }
            }
        }
    }
    out
}

/// Reduces crossings of `g` in place, starting from the given ordering, then (when `thorough`)
/// from a depth-first and a mirrored ordering; the best wins, ties keep the earlier. Returns
/// the final crossing count.
///
/// With `keep_order` (a re-layout of objects that already have positions), the dummies are
/// first arranged around the real nodes kept in their given order; a free reordering replaces
/// that only when it has at least [`REORDER_GAIN`] fewer crossings, so re-laying out a chart
/// keeps its order while a messy arrangement still gets untangled.
pub(crate) fn reduce(g: &mut Layered, thorough: bool, keep_order: bool) -> usize {
    if !keep_order {
        return reduce_free(g, thorough);
    }
    let kept_c = reduce_from(g, thorough, true);
    let kept = g.layers.clone();
    let free_c = reduce_free(g, thorough);
    if (free_c as f64) < kept_c as f64 * (1.0 - REORDER_GAIN) {
        free_c
    } else {
        g.layers = kept;
        kept_c
    }
}

/// Share of crossings a free reordering must save before it replaces the current order of a
/// re-layout.
pub(crate) const REORDER_GAIN: f64 = 0.1;

fn reduce_free(g: &mut Layered, thorough: bool) -> usize {
    let original = g.layers.clone();
    let mut best_c = reduce_from(g, thorough, false);
    if !thorough {
        return best_c;
    }
    let mut best = g.layers.clone();
    let starts = [
        dfs_start(&Layered {
            layers: original.clone(),
            ..g.clone()
        }),
        {
            let mut rev = original;
            rev.iter_mut().for_each(|l| l.reverse());
            rev
        },
    ];
    for start in starts {
        if best_c == 0 {
            break;
        }
        g.layers = start;
        let c = reduce_from(g, thorough, false);
        if c < best_c {
            best_c = c;
            best.clone_from(&g.layers);
        }
    }
    g.layers = best;
    best_c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(layers: Vec<Vec<usize>>, edges: &[(usize, usize)]) -> Layered {
        let n = layers.iter().map(Vec::len).sum();
        let mut g = Layered {
            layers,
            up: vec![Vec::new(); n],
            down: vec![Vec::new(); n],
            real: n,
        };
        for &(u, v) in edges {
            g.down[u].push(v);
            g.up[v].push(u);
        }
        g
    }

    #[test]
    fn counts_and_removes_crossings() {
        // 0 -> 3, 1 -> 2 cross when layer 1 is [2, 3].
        let mut g = graph(vec![vec![0, 1], vec![2, 3]], &[(0, 3), (1, 2)]);
        assert_eq!(crossings(&g), 1);
        assert_eq!(reduce(&mut g, true, false), 0);
        assert_eq!(crossings(&g), 0);
    }

    #[test]
    fn k33_like_has_its_minimum() {
        let mut g = graph(
            vec![vec![0, 1, 2], vec![3, 4, 5]],
            &[(0, 5), (1, 4), (2, 3), (0, 3)],
        );
        reduce(&mut g, true, false);
        assert_eq!(crossings(&g), 0);
    }
}
