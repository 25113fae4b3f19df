//! Messages larger than one NATS message (a welcome of a large board, an import, an inspection
//! with every object): the sender cuts the whole message into numbered parts, each a
//! [`Head::Part`] whose body is one slice; the receiver puts them together again and handles the
//! whole as if it had come in one piece. A lost part loses the whole message, which the relay's
//! streams repair like any other lost message (requests time out and are retried by their
//! callers).

use super::wire::{self, Head, NodeRef};
use bytes::{Bytes, BytesMut};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Room left in each part for its head.
pub const HEAD_ROOM: usize = 512;
/// A message whose parts have not all come within this long is dropped.
const WAIT_FOR_PARTS: Duration = Duration::from_secs(30);

/// Cuts `whole` into parts of at most `limit` bytes of body each. A message of one part is
/// never cut (the caller sends it as it is).
pub fn split(from: &NodeRef, id: u64, whole: &Bytes, limit: usize) -> Vec<Bytes> {
    let limit = limit.max(1);
    let of = u32::try_from(whole.len().div_ceil(limit)).unwrap_or(u32::MAX);
    (0..of)
        .map(|i| {
            let lo = i as usize * limit;
            let hi = (lo + limit).min(whole.len());
            let head = Head::Part {
                from: from.clone(),
                id,
                i,
                of,
            };
            wire::encode(&head, &whole[lo..hi])
        })
        .collect()
}

/// One message being put together.
struct Gathering {
    got: Vec<Option<Bytes>>,
    missing: u32,
    since: Instant,
}

/// The messages this node is putting together, by sender and number.
#[derive(Default)]
pub struct Assembler {
    open: Mutex<HashMap<(NodeRef, u64), Gathering>>,
}

impl Assembler {
    /// Takes part `i` of `of`; answers the whole message once every part is in.
    pub fn add(&self, from: NodeRef, id: u64, i: u32, of: u32, body: Bytes) -> Option<Bytes> {
        if i >= of {
            return None;
        }
        let mut open = self.open.lock().ok()?;
        open.retain(|_, g| g.since.elapsed() < WAIT_FOR_PARTS);
        let key = (from, id);
        let g = open.entry(key.clone()).or_insert_with(|| Gathering {
            got: vec![None; of as usize],
            missing: of,
            since: Instant::now(),
        });
        if g.got.len() != of as usize {
            return None;
        }
        let slot = &mut g.got[i as usize];
        if slot.is_none() {
            *slot = Some(body);
            g.missing -= 1;
        }
        if g.missing > 0 {
            return None;
        }
        let g = open.remove(&key)?;
        let mut whole = BytesMut::new();
        for part in g.got.into_iter().flatten() {
            whole.extend_from_slice(&part);
        }
        Some(whole.freeze())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node() -> NodeRef {
        NodeRef {
            id: "a".into(),
            generation: 1,
        }
    }

    #[test]
    fn parts_in_any_order_make_the_whole_again() {
        let whole = Bytes::from((0..10_000u32).map(|i| (i % 251) as u8).collect::<Vec<_>>());
        let parts = split(&node(), 7, &whole, 1_000);
        assert_eq!(parts.len(), 10);
        let a = Assembler::default();
        let mut out = None;
        for p in parts.iter().rev() {
            let Some((Head::Part { from, id, i, of }, body)) = wire::decode(p) else {
                panic!("not a part");
            };
            assert!(p.len() <= 1_000 + HEAD_ROOM);
            out = a.add(from, id, i, of, body);
        }
        assert_eq!(out, Some(whole));
    }

    #[test]
    fn a_missing_part_gives_nothing() {
        let whole = Bytes::from(vec![b'x'; 2_500]);
        let parts = split(&node(), 1, &whole, 1_000);
        let a = Assembler::default();
        for p in &parts[1..] {
            let (Head::Part { from, id, i, of }, body) = wire::decode(p).unwrap() else {
                panic!("not a part");
            };
            assert_eq!(a.add(from, id, i, of, body), None);
        }
    }
}
