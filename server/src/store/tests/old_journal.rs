//! STORE-27: a commit journal left by an older server is folded into the database once, at open.

use super::*;
use crate::store::old_journal::MAGIC;

/// One journal frame holding `records` (board, seq), in the old format.
fn frame(records: &[(&BoardId, Seq)]) -> Vec<u8> {
    let mut body = Vec::new();
    for (b, seq) in records {
        let r = rec(b, *seq);
        body.extend_from_slice(&(b.as_str().len() as u16).to_le_bytes());
        body.extend_from_slice(b.as_str().as_bytes());
        body.extend_from_slice(&seq.to_le_bytes());
        body.extend_from_slice(&checksum(&r.payload).to_le_bytes());
        body.extend_from_slice(&(r.payload.len() as u32).to_le_bytes());
        body.extend_from_slice(&r.payload);
    }
    let mut out = (body.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(&checksum(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// STORE-27: journal files an older server left beside `boards.db` are replayed into the
/// database when the store opens (records it already holds, or a snapshot covers, are skipped; a
/// torn last frame is dropped) and deleted, so a second open adds nothing; commits go on from
/// the replayed seqs.
#[tokio::test]
async fn store_27_old_journal_is_folded_once_at_open() {
    let fx = Fixture::new("sqlite").await.unwrap();
    let Place::Sqlite(dir) = &fx.place else {
        panic!("not sqlite")
    };
    let (a, b, c) = (board("j-a"), board("j-b"), board("j-c"));
    fx.store.append(&recs(&a, 1..=2)).await.unwrap();
    fx.store.append(&recs(&c, 1..=3)).await.unwrap();
    fx.store.save_snapshot(&c, 3, &[object(3)]).await.unwrap();
    let mut file = MAGIC.to_vec();
    file.extend(frame(&[(&a, 2), (&a, 3), (&b, 1), (&c, 2)]));
    file.extend(frame(&[(&b, 2), (&a, 4), (&c, 3), (&c, 4)]));
    let torn = frame(&[(&b, 3)]);
    file.extend_from_slice(&torn[..torn.len() - 5]);
    std::fs::write(dir.0.join("journal-00000000000000000007.log"), &file).unwrap();
    let mut second = MAGIC.to_vec();
    second.extend(frame(&[(&a, 5)]));
    std::fs::write(dir.0.join("journal-00000000000000000008.log"), &second).unwrap();

    for _ in 0..2 {
        let store = fx.reopen().await.unwrap();
        let la = store.load(&a).await.unwrap().unwrap();
        assert_eq!(
            la.tail,
            (1..=5).map(|s| (s, command(s))).collect::<Vec<_>>()
        );
        assert_eq!(seqs(&store.load(&b).await.unwrap().unwrap()), vec![1, 2]);
        let lc = store.load(&c).await.unwrap().unwrap();
        assert_eq!((lc.snapshot_seq, lc.seq, seqs(&lc)), (3, 4, vec![4]));
        let left: Vec<_> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("journal-"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
    let store = fx.reopen().await.unwrap();
    store.append(&[rec(&b, 3)]).await.unwrap();
    assert_eq!(store.load(&b).await.unwrap().unwrap().seq, 3);
}
