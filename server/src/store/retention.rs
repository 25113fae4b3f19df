//! What the store keeps of a board's versions (HIST-4): the policy, the versions it no longer
//! keeps, and [`Store::apply_retention`], which deletes them. The same on every backend: it works
//! on the versions interface (`versions.rs`) only.

use super::{Store, StoreError, VersionInfo, VersionKind, now_ms};
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

impl Store {
    /// Deletes what `policy` no longer keeps of the board's versions, as of now.
    pub async fn apply_retention(
        &self,
        board: &BoardId,
        policy: &Retention,
    ) -> Result<(), StoreError> {
        let versions = self.list_versions(board).await?;
        // Whole seconds, as the server's clock elsewhere (a version's age in the policy is
        // counted from the second it was taken).
        let now = now_ms().div_euclid(1000).saturating_mul(1000);
        let gone = expired(&versions, now, policy);
        self.delete_versions(board, &gone).await
    }
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
                pictures: None,
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
