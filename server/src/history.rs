//! The retention policy of version history (HIST-4 in docs/SPEC.md) and the per-board limiter of
//! named version saves (QUOTA-4). The version routes are [`crate::http::versions`].

use crate::store::{Store, StoreError, VersionInfo, VersionKind};
use protocol::BoardId;

/// What the store keeps of a board's versions (HIST-4): named versions always (until the board
/// is deleted); automatic ones all for `keep_all_ms`, then the newest of each day (UTC) until
/// `keep_daily_ms`, then none.
#[derive(Debug, Clone, Copy)]
pub struct Retention {
    pub keep_all_ms: i64,
    pub keep_daily_ms: i64,
}

/// The versions (ids) the policy no longer keeps at `now_ms`. `versions` oldest first.
pub fn expired(versions: &[VersionInfo], now_ms: i64, policy: &Retention) -> Vec<u64> {
    const DAY_MS: i64 = 86_400_000;
    let mut out = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        if v.meta.kind == VersionKind::Named {
            continue;
        }
        let age = now_ms.saturating_sub(v.created_at_ms);
        if age <= policy.keep_all_ms {
            continue;
        }
        let day = v.created_at_ms.div_euclid(DAY_MS);
        let newest_of_day = !versions[i + 1..].iter().any(|w| {
            w.meta.kind == VersionKind::Automatic && w.created_at_ms.div_euclid(DAY_MS) == day
        });
        if age > policy.keep_daily_ms || !newest_of_day {
            out.push(v.id);
        }
    }
    out
}

/// How many named versions each board may save a minute (`--named-versions-per-min`, QUOTA-4).
pub type SaveLimiter = governor::DefaultKeyedRateLimiter<BoardId>;

/// The per-board limiter of named version saves: `--named-versions-per-min`, in bursts of as
/// many.
pub fn save_limiter(config: &crate::Config) -> SaveLimiter {
    let n = std::num::NonZeroU32::new(config.named_versions_per_min.max(1))
        .unwrap_or(std::num::NonZeroU32::MIN);
    governor::RateLimiter::keyed(governor::Quota::per_minute(n))
}

/// Deletes what the policy no longer keeps of a board's versions.
pub async fn apply_retention(
    store: &Store,
    board: &BoardId,
    policy: &Retention,
) -> Result<(), StoreError> {
    let versions = store.list_versions(board).await?;
    let gone = expired(&versions, crate::auth::now().saturating_mul(1000), policy);
    store.delete_versions(board, &gone).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Summary, VersionMeta};

    const DAY: i64 = 86_400_000;

    fn v(id: u64, at: i64, kind: VersionKind) -> VersionInfo {
        VersionInfo {
            id,
            seq: id,
            created_at_ms: at,
            meta: VersionMeta {
                kind,
                name: None,
                authors: Vec::new(),
                summary: Summary::default(),
                objects: 0,
            },
        }
    }

    /// HIST-4: everything within the first window; then the newest automatic version of each day
    /// until the second; then nothing automatic; named versions always.
    #[test]
    fn hist_4_retention_keeps_what_the_policy_says() {
        let policy = Retention {
            keep_all_ms: 7 * DAY,
            keep_daily_ms: 90 * DAY,
        };
        let now = 1000 * DAY + DAY / 2;
        let list = vec![
            v(1, now - 120 * DAY, VersionKind::Automatic), // past 90 days: gone
            v(2, now - 120 * DAY, VersionKind::Named),     // named: kept
            v(3, now - 30 * DAY - 3_600_000, VersionKind::Automatic), // older of its day: gone
            v(4, now - 30 * DAY, VersionKind::Automatic),  // newest of its day: kept
            v(5, now - 10 * DAY, VersionKind::Automatic),  // alone on its day: kept
            v(6, now - 2 * DAY, VersionKind::Automatic),   // within 7 days: kept
            v(7, now - 2 * DAY + 60_000, VersionKind::Automatic), // within 7 days: kept
        ];
        assert_eq!(expired(&list, now, &policy), vec![1, 3]);
        assert!(expired(&list[5..], now, &policy).is_empty());
    }
}
