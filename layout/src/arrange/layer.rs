//! Relative layering: some objects directly behind or in front of another one.
//!
//! The board draws objects by integer `z`, ties by id; here ties go by key, so pass the ids as
//! keys. New z values go between the new neighbours when there is room; otherwise the fewest
//! neighbours are renumbered (a run of them shifted by as little as keeps the order).

use serde::{Deserialize, Serialize};

use super::{ArrangeError, Change, Obj, find, nonempty};

/// Largest z the board keeps (it clamps z to `±Z_LIMIT`); no z given here leaves that range.
pub const Z_LIMIT: i64 = 1_000_000_000_000;

/// Where [`layer`] puts the objects relative to the reference object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Layer {
    /// Directly behind it (drawn before it).
    Behind,
    /// Directly in front of it (drawn after it).
    InFront,
}

/// Puts the objects `keys` directly behind or in front of the object `of` (LAYOUT-23).
///
/// `objs` should be every object of the board: only their order is kept. When every object of
/// `keys` already is behind (in front of) `of`, nothing changes. Otherwise they move, in their
/// current order, next to `of`; every other object keeps its place in the order. Only z changes,
/// for the objects moved and, when there is no room between the new neighbours, for the fewest
/// others. `of` among `keys` is ignored; an unknown key is refused.
pub fn layer(
    objs: &[Obj],
    keys: &[&str],
    how: Layer,
    of: &str,
) -> Result<Vec<Change>, ArrangeError> {
    let r = find(objs, of)?;
    let mut moving = vec![false; objs.len()];
    for k in keys {
        moving[find(objs, k)?] = true;
    }
    moving[r] = false;
    let mut order: Vec<usize> = (0..objs.len()).collect();
    order.sort_by(|&a, &b| before(objs, a, b));
    let rank_r = order.iter().position(|&i| i == r).unwrap_or(0);
    let done = order.iter().enumerate().all(|(rank, &i)| {
        !moving[i]
            || match how {
                Layer::Behind => rank < rank_r,
                Layer::InFront => rank > rank_r,
            }
    });
    if done {
        return Ok(Vec::new());
    }
    let (movers, mut seq): (Vec<usize>, Vec<usize>) = order.iter().partition(|&&i| moving[i]);
    let at = seq.iter().position(|&i| i == r).unwrap_or(0) + usize::from(how == Layer::InFront);
    let k = movers.len();
    seq.splice(at..at, movers);
    let z = renumber(objs, &seq, at, k);
    Ok(nonempty(objs.iter().enumerate().map(|(i, o)| Change {
        key: o.key.clone(),
        z: z[i].filter(|&v| v != o.z),
        ..Change::default()
    })))
}

/// The board's drawing order: by z, then key, then position in the input.
fn before(objs: &[Obj], a: usize, b: usize) -> std::cmp::Ordering {
    (objs[a].z, &objs[a].key, a).cmp(&(objs[b].z, &objs[b].key, b))
}

/// New z values (by object index; `None`: unchanged) that make `seq` strictly increasing when
/// its slots `at..at + k` are free to choose.
fn renumber(objs: &[Obj], seq: &[usize], at: usize, k: usize) -> Vec<Option<i64>> {
    let lower = at.checked_sub(1).map(|j| objs[seq[j]].z);
    let upper = seq.get(at + k).map(|&j| objs[j].z);
    let mut plans = Vec::new();
    match (lower, upper) {
        (Some(lo), Some(hi)) if i128::from(hi) - i128::from(lo) > k as i128 => {
            // Room between the neighbours: spread the moved objects over it.
            let d = i128::from(hi) - i128::from(lo);
            let zs = (1..=k).map(|i| i128::from(lo) + i as i128 * d / (k as i128 + 1));
            plans.push(zs.map(|v| v as i64).collect::<Vec<_>>());
        }
        _ => {
            // A missing neighbour is as far as the block needs, within the board's range.
            let span = k as i64 + 1;
            let hi = upper.unwrap_or_else(|| {
                let lo = lower.unwrap_or(0);
                lo.saturating_add(span).min(Z_LIMIT + 1).max(lo)
            });
            let lo = lower.unwrap_or_else(|| hi.saturating_sub(span).max(-Z_LIMIT - 1).min(hi));
            plans.push((1..=k as i64).map(|i| lo.saturating_add(i)).collect());
            plans.push(
                (1..=k as i64)
                    .map(|i| hi.saturating_sub(k as i64 + 1 - i))
                    .collect(),
            );
        }
    }
    let best = plans
        .into_iter()
        .map(|block| cascade(objs, seq, at, &block))
        .filter(|z| in_range(z))
        .min_by_key(|z| z.iter().flatten().count());
    best.unwrap_or_else(|| everything(seq, objs.len()))
}

/// `block` for the slots `at..`, then the fewest objects above and below shifted (each to one
/// past its neighbour) so that z increases strictly along `seq` (ties kept where the key order
/// already agrees).
fn cascade(objs: &[Obj], seq: &[usize], at: usize, block: &[i64]) -> Vec<Option<i64>> {
    let mut z: Vec<Option<i64>> = vec![None; objs.len()];
    for (j, &v) in block.iter().enumerate() {
        z[seq[at + j]] = Some(v);
    }
    let val = |z: &[Option<i64>], i: usize| (z[i].unwrap_or(objs[i].z), &objs[i].key);
    for j in at + block.len()..seq.len() {
        let (p, n) = (seq[j - 1], seq[j]);
        if val(&z, n) > val(&z, p) {
            break;
        }
        z[n] = Some(val(&z, p).0.saturating_add(1));
    }
    for j in (0..at).rev() {
        let (p, n) = (seq[j], seq[j + 1]);
        if val(&z, p) < val(&z, n) {
            break;
        }
        z[p] = Some(val(&z, n).0.saturating_sub(1));
    }
    z
}

fn in_range(z: &[Option<i64>]) -> bool {
    z.iter().flatten().all(|v| v.abs() <= Z_LIMIT)
}

/// The last resort (only at the ends of the z range): every object renumbered from 0.
fn everything(seq: &[usize], n: usize) -> Vec<Option<i64>> {
    let mut z = vec![None; n];
    for (rank, &i) in seq.iter().enumerate() {
        z[i] = Some(rank as i64);
    }
    z
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Rect;

    fn board(zs: &[i64]) -> Vec<Obj> {
        zs.iter()
            .enumerate()
            .map(|(i, &z)| Obj::new(format!("o{i}"), Rect::default()).with_z(z))
            .collect()
    }

    #[test]
    fn layout_23_between_neighbours_when_there_is_room() {
        let objs = board(&[0, 10, 20, 30]);
        let c = layer(&objs, &["o3"], Layer::Behind, "o2").unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].key.as_str(), c[0].z), ("o3", Some(15)));
        let c = layer(&objs, &["o0"], Layer::InFront, "o3").unwrap();
        assert_eq!((c[0].key.as_str(), c[0].z), ("o0", Some(31)));
        assert!(
            layer(&objs, &["o0"], Layer::Behind, "o3")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn layout_23_fewest_renumbered_without_room() {
        // m goes between y (5) and b (6): below, y moves down to 4 and x (4) already comes
        // first by key; above, b and a would both move up.
        let objs: Vec<Obj> = [("w", 3), ("x", 4), ("y", 5), ("b", 6), ("a", 7), ("m", 0)]
            .into_iter()
            .map(|(k, z)| Obj::new(k, Rect::default()).with_z(z))
            .collect();
        let c = layer(&objs, &["m"], Layer::InFront, "y").unwrap();
        let z: Vec<(&str, Option<i64>)> = c.iter().map(|c| (c.key.as_str(), c.z)).collect();
        assert_eq!(z, [("y", Some(4)), ("m", Some(5))]);
        // Ties already in key order are kept: o3 goes behind o1 by joining o0 at z 1.
        let c = layer(&board(&[1, 2, 3, 9]), &["o3"], Layer::Behind, "o1").unwrap();
        let z: Vec<(&str, Option<i64>)> = c.iter().map(|c| (c.key.as_str(), c.z)).collect();
        assert_eq!(z, [("o3", Some(1))]);
    }
}
