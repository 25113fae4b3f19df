//! COMMENT-1, COMMENT-8: comment threads and notifications in the store, the same on every
//! backend.

use super::*;
use crate::store::comments::{Detached, NoteReason, Notification, StoredThread};
use protocol::{Anchor, Comment, Thread, UserId};

fn thread(id: &str, cseq: u64, body: &str, resolved: bool) -> StoredThread {
    let ann = UserId::try_from("ann").unwrap();
    StoredThread {
        thread: Thread {
            id: id.into(),
            anchor: Anchor::Point { x: 1.0, y: 2.0 },
            resolved: resolved.then(|| protocol::Resolved {
                at: 5,
                by: ann.clone(),
            }),
            comments: vec![Comment {
                id: format!("{id}-c"),
                author: ann.clone(),
                created_at_ms: 4,
                edited_at_ms: None,
                body: body.into(),
                reactions: [("👍".to_string(), vec![ann])].into(),
                deleted: false,
            }],
        },
        detached: Some(Detached {
            object: protocol::ObjectId::try_from("n1").unwrap(),
            fx: 0.5,
            fy: 0.5,
        }),
        cseq,
    }
}

fn note(user: &str, board: &str, thread: &str, at_ms: i64) -> Notification {
    Notification {
        user: user.into(),
        board: board.into(),
        thread: thread.into(),
        reason: NoteReason::Mention,
        at_ms,
        read_at: None,
    }
}

/// COMMENT-1: a thread round-trips whole (with where it was pinned); an older write never
/// replaces a newer one; another board's threads are apart; deleting the board deletes its
/// threads and their notifications; a durable store keeps them across a reopen.
pub(super) async fn comment_01_threads_round_trip(fx: &Fixture) {
    let s = &fx.store;
    let (b, other) = (board("cm1"), board("cm1-other"));
    s.save_thread(&b, &thread("t1", 2, "new", false), vec![])
        .await
        .unwrap();
    s.save_thread(&b, &thread("t1", 1, "old", false), vec![])
        .await
        .unwrap();
    s.save_thread(&b, &thread("t2", 3, "done", true), vec![])
        .await
        .unwrap();
    s.save_thread(
        &other,
        &thread("t9", 1, "else", false),
        vec![note("bob", "cm1-other", "t9", 1)],
    )
    .await
    .unwrap();
    let got = s.load_threads(&b).await.unwrap();
    assert_eq!(
        got,
        vec![thread("t1", 2, "new", false), thread("t2", 3, "done", true)]
    );
    if fx.durable() {
        let again = fx.reopen().await.unwrap();
        assert_eq!(again.load_threads(&b).await.unwrap(), got);
    }
    s.append(&recs(&other, 1..=1)).await.unwrap();
    assert!(s.delete_board(&other).await.unwrap());
    assert!(s.load_threads(&other).await.unwrap().is_empty());
    assert!(s.notifications("bob").await.unwrap().is_empty());
}

/// COMMENT-8: one notification per (user, thread), newest first, the latest news replacing the
/// last and unread again; marking some or all read.
pub(super) async fn comment_08_notifications(fx: &Fixture) {
    let s = &fx.store;
    let b = board("cm8");
    let t = thread("t1", 1, "hi", false);
    let mut reply = note("ann", "cm8", "t1", 10);
    reply.reason = NoteReason::Reply;
    s.save_thread(
        &b,
        &t,
        vec![note("ann", "cm8", "t1", 5), note("bob", "cm8", "t1", 5)],
    )
    .await
    .unwrap();
    s.save_thread(
        &b,
        &thread("t2", 2, "x", false),
        vec![note("ann", "cm8", "t2", 7)],
    )
    .await
    .unwrap();
    let ann = s.notifications("ann").await.unwrap();
    let threads: Vec<&str> = ann.iter().map(|n| n.thread.as_str()).collect();
    assert_eq!(threads, ["t2", "t1"]);
    s.mark_read("ann", Some(vec!["t1".into()]), 20)
        .await
        .unwrap();
    let ann = s.notifications("ann").await.unwrap();
    assert_eq!((ann[0].read_at, ann[1].read_at), (None, Some(20)));
    s.save_thread(&b, &thread("t1", 3, "hi", false), vec![reply])
        .await
        .unwrap();
    let ann = s.notifications("ann").await.unwrap();
    assert_eq!(
        (ann[0].thread.as_str(), ann[0].reason, ann[0].read_at),
        ("t1", NoteReason::Reply, None)
    );
    s.mark_read("ann", None, 30).await.unwrap();
    assert!(
        s.notifications("ann")
            .await
            .unwrap()
            .iter()
            .all(|n| n.read_at == Some(30))
    );
    assert_eq!(s.notifications("bob").await.unwrap()[0].read_at, None);
}
