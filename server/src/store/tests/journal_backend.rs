//! The SQLite backend's commit journal (STORE-27 in `docs/STORE.md`): commits go to the journal
//! file without touching the database, every other call finds them folded in, and a journal left
//! by a crash is replayed at open, once, without bringing back what a truncation or a delete
//! removed.

use super::*;

fn dir_of(fx: &Fixture) -> PathBuf {
    match &fx.place {
        Place::Sqlite(dir, _) => dir.0.clone(),
        _ => panic!("not sqlite"),
    }
}

/// The journal files under `dir`, by name.
fn journal_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("journal-"))
        })
        .collect();
    out.sort();
    out
}

/// Boards the database file itself holds (not the journal).
fn stored_boards(dir: &std::path::Path) -> i64 {
    let c = rusqlite::Connection::open(dir.join(crate::store::sqlite::FILE_NAME)).unwrap();
    c.query_row("SELECT count(*) FROM boards", [], |r| r.get(0))
        .unwrap()
}

/// Copies the files of `from` (the database, its WAL, the journal) into a new dir.
fn copy_dir(from: &std::path::Path, journal_too: bool) -> TempDir {
    let to = std::env::temp_dir().join(unique("store-copy-"));
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with("journal-") && !journal_too {
            continue;
        }
        std::fs::copy(&p, to.join(&name)).unwrap();
    }
    TempDir(to)
}

fn journal_store(fx: &Fixture) -> crate::store::sqlite::SqliteStore {
    match &fx.store {
        Store::Sqlite(s) => s.clone(),
        _ => panic!("not sqlite"),
    }
}

/// A journaled SQLite store whose fold thread folds by size only (these tests stay far below
/// it), so what the journal holds is what the test says.
async fn held_fixture() -> Fixture {
    let fx = Fixture::new("sqlite").await.unwrap();
    journal_store(&fx).hold_folds();
    fx
}

/// STORE-27: an append is durable in the journal before the database holds it; a load finds it
/// (folded first); the fold deletes the journal file it emptied.
#[tokio::test]
async fn store_27_commits_go_to_the_journal_and_fold_before_reads() {
    let fx = held_fixture().await;
    let s = &fx.store;
    let dir = dir_of(&fx);
    let (a, b) = (board("j-a"), board("j-b"));
    s.append(&recs(&a, 1..=3)).await.unwrap();
    s.append(&[rec(&a, 4), rec(&b, 1)]).await.unwrap();
    assert_eq!(journal_store(&fx).journaled(), 5);
    assert_eq!(
        stored_boards(&dir),
        0,
        "a commit does not touch the database"
    );
    assert!(
        s.board_exists(&b).await.unwrap(),
        "the journal knows its boards"
    );
    // The journal checks seqs as the database would (STORE-5).
    assert!(matches!(
        s.append(&[rec(&a, 4)]).await,
        Err(StoreError::Conflict(_))
    ));
    let first = journal_files(&dir);
    assert_eq!(first.len(), 1);
    let l = s.load(&a).await.unwrap().unwrap();
    assert_eq!((l.seq, seqs(&l)), (4, vec![1, 2, 3, 4]));
    assert_eq!(journal_store(&fx).journaled(), 0);
    assert_eq!(stored_boards(&dir), 2);
    let after = journal_files(&dir);
    assert_eq!(after.len(), 1);
    assert_ne!(
        after, first,
        "the folded file is deleted, a new one is current"
    );
}

/// STORE-27: a crash after the journal's sync and before any fold loses nothing: the next open
/// replays the journal into the database; a torn frame at its end (an append that never returned)
/// is dropped; a file replayed twice (a crash between its fold and its deletion) adds nothing.
#[tokio::test]
async fn store_27_journal_replayed_at_open() {
    let fx = held_fixture().await;
    let s = &fx.store;
    let dir = dir_of(&fx);
    let a = board("r-a");
    s.append(&recs(&a, 1..=2)).await.unwrap();
    s.save_snapshot(&a, 2, &[object(1), object(2)])
        .await
        .unwrap();
    // The database as a crash would leave it: before the journal's next records are folded.
    let crashed = copy_dir(&dir, false);
    s.append(&recs(&a, 3..=5)).await.unwrap();
    s.append(&[rec(&board("r-b"), 1)]).await.unwrap();
    let files = journal_files(&dir);
    assert_eq!(files.len(), 1);
    let mut journal = std::fs::read(&files[0]).unwrap();
    // A torn append after the last synced frame.
    journal.extend_from_slice(&[200, 1, 0, 0, 7, 7, 7]);
    std::fs::write(crashed.0.join(files[0].file_name().unwrap()), &journal).unwrap();
    // What the store itself holds, folded (the reference).
    let expected = s.load(&a).await.unwrap().unwrap();
    assert_eq!(seqs(&expected), vec![3, 4, 5]);

    let reopened = Store::open_sqlite(&crashed.0).await.unwrap();
    assert_eq!(
        journal_files(&crashed.0).len(),
        1,
        "replayed files are deleted"
    );
    assert_eq!(stored_boards(&crashed.0), 2, "replayed at open");
    assert_eq!(reopened.load(&a).await.unwrap().unwrap(), expected);
    assert_eq!(reopened.load(&board("r-b")).await.unwrap().unwrap().seq, 1);
    reopened.append(&[rec(&a, 6)]).await.unwrap();
    drop(reopened);

    // The same journal replayed over a database that already holds it: nothing changes.
    let twice = copy_dir(&dir, false);
    std::fs::write(twice.0.join(files[0].file_name().unwrap()), &journal).unwrap();
    let again = Store::open_sqlite(&twice.0).await.unwrap();
    assert_eq!(again.load(&a).await.unwrap().unwrap(), expected);
    assert_eq!(again.raw_log_seqs(&a).await.unwrap(), vec![3, 4, 5]);
}

/// STORE-27: a truncation or a delete folds the journal first, so the journaled records it
/// removes are not in any journal file a later open would replay.
#[tokio::test]
async fn store_27_truncate_and_delete_leave_nothing_to_replay() {
    let fx = held_fixture().await;
    let s = &fx.store;
    let dir = dir_of(&fx);
    let (a, b) = (board("t-a"), board("t-b"));
    s.append(&recs(&a, 1..=5)).await.unwrap();
    s.append(&recs(&b, 1..=2)).await.unwrap();
    s.truncate_after(&a, 3).await.unwrap();
    assert!(s.delete_board(&b).await.unwrap());
    assert!(!s.board_exists(&b).await.unwrap());
    // The journal now takes seq 4 again for `a` and seq 1 for a new `b`.
    s.append(&[rec(&a, 4)]).await.unwrap();
    let crashed = copy_dir(&dir, true);
    let reopened = Store::open_sqlite(&crashed.0).await.unwrap();
    let l = reopened.load(&a).await.unwrap().unwrap();
    assert_eq!((l.seq, seqs(&l)), (4, vec![1, 2, 3, 4]));
    assert_eq!(reopened.load(&b).await.unwrap(), None);
    assert_eq!(reopened.list_boards().await.unwrap().len(), 1);
}

/// STORE-27: a journal left by a run that committed through it is replayed by a store that now
/// commits directly (`--sqlite-commits direct`), and that store leaves no journal behind.
#[tokio::test]
async fn store_27_direct_store_replays_a_journal() {
    let fx = held_fixture().await;
    let dir = dir_of(&fx);
    let a = board("d-a");
    fx.store.append(&recs(&a, 1..=3)).await.unwrap();
    let crashed = copy_dir(&dir, true);
    let direct = Store::open_sqlite_with(&crashed.0, Commits::Direct)
        .await
        .unwrap();
    assert!(journal_files(&crashed.0).is_empty());
    assert_eq!(direct.load(&a).await.unwrap().unwrap().seq, 3);
}

/// STORE-27: a snapshot does not fold the journal when the database holds the board: the
/// records it covers that still wait in the journal are skipped by the next fold, the rest go in
/// after it. A board whose records all wait in the journal is folded first, so its snapshot is
/// written.
#[tokio::test]
async fn store_27_snapshot_over_journaled_records() {
    let fx = held_fixture().await;
    let s = &fx.store;
    let (a, b) = (board("s-a"), board("s-b"));
    s.append(&recs(&a, 1..=5)).await.unwrap();
    s.raw_log_seqs(&a).await.unwrap();
    s.append(&recs(&a, 6..=8)).await.unwrap();
    s.append(&recs(&b, 1..=2)).await.unwrap();
    s.save_snapshot(&a, 7, &[object(7)]).await.unwrap();
    assert_eq!(
        journal_store(&fx).journaled(),
        5,
        "no fold for a stored board"
    );
    let l = s.load(&a).await.unwrap().unwrap();
    assert_eq!((l.snapshot_seq, l.seq, seqs(&l)), (7, 8, vec![8]));
    assert_eq!(s.raw_log_seqs(&a).await.unwrap(), vec![8]);
    assert_eq!(s.load(&b).await.unwrap().unwrap().seq, 2);
    let c = board("s-c");
    s.append(&recs(&c, 1..=3)).await.unwrap();
    s.save_snapshot(&c, 3, &[object(3)]).await.unwrap();
    assert_eq!(
        journal_store(&fx).journaled(),
        0,
        "folded for a board not yet stored"
    );
    let l = s.load(&c).await.unwrap().unwrap();
    assert_eq!((l.snapshot_seq, l.seq, l.objects), (3, 3, vec![object(3)]));
}

/// STORE-27: an append that fails (the disk refuses the write) is `Unavailable` and leaves the
/// journal's file behind: the next append folds first, which starts a new file and deletes the
/// old one once its good records are in the database; the failed records are in neither, and
/// their seqs can be written again (as a board does after rolling them back).
#[tokio::test]
async fn store_27_failed_append_is_folded_away() {
    let fx = held_fixture().await;
    let s = &fx.store;
    let dir = dir_of(&fx);
    let a = board("f-a");
    s.append(&recs(&a, 1..=2)).await.unwrap();
    let first = journal_files(&dir);
    journal_store(&fx).break_journal();
    let e = s.append(&[rec(&a, 3)]).await.unwrap_err();
    assert!(e.is_unavailable(), "{e:?}");
    // The seq that failed is free again. The append folds the old file away first, unless the
    // fold thread (woken by the failure) already did or is doing it; the load waits for it.
    s.append(&[rec(&a, 3)]).await.unwrap();
    let l = s.load(&a).await.unwrap().unwrap();
    assert_eq!((l.seq, seqs(&l)), (3, vec![1, 2, 3]));
    let now = journal_files(&dir);
    assert_eq!(now.len(), 1, "{first:?} then {now:?}");
    assert_ne!(now, first);
    assert_eq!(stored_boards(&dir), 1);
    assert_eq!(l.tail[2].1, command(3));
    let again = Store::open_sqlite(&copy_dir(&dir, true).0).await.unwrap();
    assert_eq!(again.load(&a).await.unwrap().unwrap().seq, 3);
}
