//! The throttle on failed credentials per client address (NET-8 in docs/SPEC.md): bearer tokens
//! over HTTP and `hello` tokens on sockets count alike; past the limit an address waits out the
//! minute.

use dashmap::DashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// Failed credential attempts per client address (NET-8): past `per_min` failures within a
/// minute, every request of that address that carries a credential is refused (429) until the
/// minute is over. Bearer tokens over HTTP and `hello` tokens on sockets count alike.
pub struct Failures {
    per_min: u32,
    seen: DashMap<IpAddr, (Instant, u32)>,
}

const WINDOW: Duration = Duration::from_secs(60);

impl Failures {
    pub fn new(per_min: u32) -> Failures {
        Failures {
            per_min,
            seen: DashMap::new(),
        }
    }

    /// Seconds until `ip` may try a credential again (None: it may now).
    pub fn blocked(&self, ip: IpAddr) -> Option<u64> {
        let (since, n) = *self.seen.get(&ip)?;
        let left = WINDOW.checked_sub(since.elapsed())?;
        (self.per_min > 0 && n >= self.per_min).then(|| left.as_secs().max(1))
    }

    /// Counts one failed attempt of `ip`.
    pub fn failed(&self, ip: IpAddr) {
        if self.seen.len() > 100_000 {
            self.seen.retain(|_, (since, _)| since.elapsed() < WINDOW);
        }
        let mut e = self.seen.entry(ip).or_insert((Instant::now(), 0));
        if e.0.elapsed() >= WINDOW {
            *e = (Instant::now(), 0);
        }
        e.1 = e.1.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn net_8_failures_block_after_the_limit_for_the_minute() {
        let f = Failures::new(3);
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..2 {
            f.failed(ip);
        }
        assert!(f.blocked(ip).is_none());
        f.failed(ip);
        assert!(f.blocked(ip).is_some_and(|s| (1..=60).contains(&s)));
        assert!(f.blocked("192.0.2.2".parse().unwrap()).is_none());
    }
}
