//! Coordinate assignment along the layers (priority layout method): alternating down and up
//! sweeps move each node toward the mean of its neighbours in the fixed layer, in priority
//! order, pushing lower-priority nodes aside but never passing higher-priority ones. Dummy nodes
//! of long edges have the highest priority, so long edges run straight; the final up sweep
//! centres parents over their children.

use super::order::Layered;

/// Separation between the centres of adjacent nodes `a` and `b`.
fn sep(width: &[f64], dummy: &[bool], gap: f64, a: usize, b: usize) -> f64 {
    let g = if dummy[a] || dummy[b] { gap / 2.0 } else { gap };
    (width[a] + width[b]) / 2.0 + g
}

/// Centre positions along the layer axis for every node of `g`.
pub(crate) fn assign(
    g: &Layered,
    width: &[f64],
    dummy: &[bool],
    gap: f64,
    rounds: usize,
) -> Vec<f64> {
    let n = g.up.len();
    let mut x = vec![0.0; n];
    // Start packed and centred on 0.
    for layer in &g.layers {
        let mut at = 0.0;
        for (j, &v) in layer.iter().enumerate() {
            if j > 0 {
                at += sep(width, dummy, gap, layer[j - 1], v);
            }
            x[v] = at;
        }
        let shift = at / 2.0;
        layer.iter().for_each(|&v| x[v] -= shift);
    }
    let l = g.layers.len();
    for _round in 0..rounds.max(1) {
        for i in 1..l {
            place_layer(g, &mut x, width, dummy, gap, i, true);
        }
        for i in (0..l.saturating_sub(1)).rev() {
            place_layer(g, &mut x, width, dummy, gap, i, false);
        }
    }
    x
}

fn place_layer(
    g: &Layered,
    x: &mut [f64],
    width: &[f64],
    dummy: &[bool],
    gap: f64,
    i: usize,
    from_up: bool,
) {
    let layer = &g.layers[i];
    let k = layer.len();
    let nbrs = |v: usize| if from_up { &g.up[v] } else { &g.down[v] };
    let mut desired = vec![0.0; k];
    let mut prio = vec![0usize; k];
    for (j, &v) in layer.iter().enumerate() {
        let nb = nbrs(v);
        desired[j] = if nb.is_empty() {
            x[v]
        } else {
            nb.iter().map(|&w| x[w]).sum::<f64>() / nb.len() as f64
        };
        prio[j] = if dummy[v] {
            // Inner segments of long edges first, then their ends.
            let inner = nb.iter().all(|&w| dummy[w]);
            usize::MAX - usize::from(!inner)
        } else {
            nb.len()
        };
    }
    let mut seq: Vec<usize> = (0..k).collect();
    // Highest priority first; ties from the middle of the layer outwards.
    let mid = (k as f64 - 1.0) / 2.0;
    seq.sort_by(|&a, &b| {
        prio[b]
            .cmp(&prio[a])
            .then((a as f64 - mid).abs().total_cmp(&(b as f64 - mid).abs()))
            .then(a.cmp(&b))
    });
    let mut placed = vec![false; k];
    let s = |a: usize, b: usize| sep(width, dummy, gap, layer[a], layer[b]);
    for j in seq {
        let mut t = desired[j];
        let cur = x[layer[j]];
        if t > cur {
            // Moving right: cannot push a placed node.
            let mut need = 0.0;
            for m in j + 1..k {
                need += s(m - 1, m);
                if placed[m] {
                    t = t.min(x[layer[m]] - need);
                    break;
                }
            }
            let t = t.max(cur);
            x[layer[j]] = t;
            for m in j + 1..k {
                let req = x[layer[m - 1]] + s(m - 1, m);
                if x[layer[m]] < req {
                    x[layer[m]] = req;
                } else {
                    break;
                }
            }
        } else if t < cur {
            let mut need = 0.0;
            for m in (0..j).rev() {
                need += s(m, m + 1);
                if placed[m] {
                    t = t.max(x[layer[m]] + need);
                    break;
                }
            }
            let t = t.min(cur);
            x[layer[j]] = t;
            for m in (0..j).rev() {
                let req = x[layer[m + 1]] - s(m, m + 1);
                if x[layer[m]] > req {
                    x[layer[m]] = req;
                } else {
                    break;
                }
            }
        }
        placed[j] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parent_centred_over_children_and_no_overlap() {
        // 0 -> 1, 0 -> 2
        let g = Layered {
            layers: vec![vec![0], vec![1, 2]],
            up: vec![vec![], vec![0], vec![0]],
            down: vec![vec![1, 2], vec![], vec![]],
            real: 3,
        };
        let w = [100.0, 100.0, 100.0];
        let x = assign(&g, &w, &[false; 3], 40.0, 3);
        assert!((x[0] - (x[1] + x[2]) / 2.0).abs() < 1e-9);
        assert!(x[2] - x[1] >= 140.0 - 1e-9);
    }
}
