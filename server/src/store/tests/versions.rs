//! HIST-1, HIST-4: versions in the store and their retention, the same on every backend.

use super::*;
use crate::store::{Author, Retention, Summary, VersionInfo, VersionKind, VersionMeta};

fn meta(kind: VersionKind, name: Option<&str>, objects: u64) -> VersionMeta {
    VersionMeta {
        kind,
        name: name.map(str::to_owned),
        authors: vec![Author {
            id: "ann".into(),
            name: "Ann".into(),
        }],
        summary: Summary {
            created: objects,
            changed: 1,
            deleted: 0,
        },
        objects,
        pictures: Some(Vec::new()),
    }
}

/// HIST-1: a saved version lists (oldest first, ids counting up per board, without objects) and
/// loads back with exactly its objects; versions of another board are apart; deleting versions
/// removes just those; deleting the board removes all of them; a durable store keeps them
/// across a reopen.
pub(super) async fn hist_01_versions_round_trip(fx: &Fixture) {
    let s = &fx.store;
    let (b, other) = (board("h1"), board("h1-other"));
    s.append(&recs(&b, 1..=3)).await.unwrap();
    let first = s
        .save_version(
            &b,
            3,
            meta(VersionKind::Automatic, None, 2),
            &[object(1), object(2)],
        )
        .await
        .unwrap();
    let named = s
        .save_version(
            &b,
            3,
            meta(VersionKind::Named, Some("Before the workshop"), 3),
            &[object(1), object(2), object(3)],
        )
        .await
        .unwrap();
    s.save_version(&other, 0, meta(VersionKind::Automatic, None, 0), &[])
        .await
        .unwrap();
    assert_eq!((first.id, named.id), (1, 2));
    let list = s.list_versions(&b).await.unwrap();
    assert_eq!(list, vec![first.clone(), named.clone()]);
    assert_eq!(list[1].meta.name.as_deref(), Some("Before the workshop"));
    assert_eq!(list[1].meta.authors[0].name, "Ann");
    let (v, objects) = s.load_version(&b, 2).await.unwrap().unwrap();
    assert_eq!(v, named);
    assert_eq!(objects, vec![object(1), object(2), object(3)]);
    assert_eq!(s.load_version(&b, 9).await.unwrap(), None);
    assert_eq!(s.list_versions(&other).await.unwrap().len(), 1);

    let third = s
        .save_version(&b, 3, meta(VersionKind::Automatic, None, 0), &[])
        .await
        .unwrap();
    assert_eq!(third.id, 3);
    s.delete_versions(&b, &[1]).await.unwrap();
    let ids: Vec<u64> = s
        .list_versions(&b)
        .await
        .unwrap()
        .iter()
        .map(|v| v.id)
        .collect();
    assert_eq!(ids, vec![2, 3]);
    // Ids keep counting up after a deletion of the newest.
    s.delete_versions(&b, &[3]).await.unwrap();
    let fourth = s
        .save_version(&b, 3, meta(VersionKind::Automatic, None, 0), &[])
        .await
        .unwrap();
    assert!(fourth.id > 2);

    if fx.durable() {
        let again = fx.reopen().await.unwrap();
        assert_eq!(again.list_versions(&b).await.unwrap().len(), 2);
        let (_, objects) = again.load_version(&b, 2).await.unwrap().unwrap();
        assert_eq!(objects.len(), 3);
    }
    assert!(s.delete_board(&b).await.unwrap());
    assert!(s.list_versions(&b).await.unwrap().is_empty());
    assert_eq!(s.list_versions(&other).await.unwrap().len(), 1);
}

/// HIST-4: `Store::apply_retention` deletes what the policy drops and nothing else, on every
/// backend: under a policy that keeps no automatic version past its first millisecond, a board's
/// automatic versions go, its named ones stay, another board's are untouched; under the default
/// windows a fresh version stays.
pub(super) async fn hist_04_apply_retention_deletes_what_the_policy_drops(fx: &Fixture) {
    let s = &fx.store;
    let (b, other) = (board("h4"), board("h4-other"));
    s.append(&recs(&b, 1..=1)).await.unwrap();
    for (kind, name) in [
        (VersionKind::Automatic, None),
        (VersionKind::Named, Some("Kept")),
        (VersionKind::Automatic, None),
    ] {
        s.save_version(&b, 1, meta(kind, name, 0), &[])
            .await
            .unwrap();
    }
    s.save_version(&other, 0, meta(VersionKind::Automatic, None, 0), &[])
        .await
        .unwrap();
    let ids = |list: Vec<VersionInfo>| list.iter().map(|v| v.id).collect::<Vec<u64>>();
    let week = Retention {
        keep_all_ms: 7 * 86_400_000,
        keep_daily_ms: 90 * 86_400_000,
    };
    s.apply_retention(&b, &week).await.unwrap();
    assert_eq!(ids(s.list_versions(&b).await.unwrap()), vec![1, 2, 3]);
    // Ages are counted from whole seconds: make every version at least a second old.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let none = Retention {
        keep_all_ms: 0,
        keep_daily_ms: 0,
    };
    s.apply_retention(&b, &none).await.unwrap();
    assert_eq!(ids(s.list_versions(&b).await.unwrap()), vec![2]);
    assert_eq!(ids(s.list_versions(&other).await.unwrap()), vec![1]);
}
