//! The group-commit log writer's rules (STORE-13, 14, 15, 23, 24 in `docs/STORE.md`), run against
//! every backend by the contract suite: one append for what is queued, a conflict kept to its
//! board, refusal at once when the queue is full, the linger under load, and one completion per
//! submitter and batch.

use super::*;

type Outcomes = Arc<Mutex<Vec<(usize, Result<(), StoreError>)>>>;

fn recorder(out: &Outcomes, i: usize) -> Done {
    let out = out.clone();
    Box::new(move |r| out.lock().unwrap().push((i, r)))
}

async fn wait_for(out: &Outcomes, n: usize) {
    for _ in 0..2000 {
        if out.lock().unwrap().len() >= n {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    panic!("writer did not complete {n} submissions");
}

/// STORE-13: the writer commits everything queued meanwhile in one append (group commit), then
/// completes each submission in submission order; every record is then loadable.
pub(super) async fn store_13_writer_group_commit(fx: &Fixture) {
    let (w, release) = Writer::spawn_held(fx.store.clone(), WriterOptions::default());
    let out: Outcomes = Arc::default();
    let boards = [board("b13a"), board("b13b")];
    // All queued before the writer's thread takes the first one.
    for i in 0..100 {
        let b = &boards[i % 2];
        w.submit(vec![rec(b, (i / 2 + 1) as Seq)], recorder(&out, i));
    }
    release.send(()).unwrap();
    wait_for(&out, 100).await;
    let out = out.lock().unwrap().clone();
    assert_eq!(
        out.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
        (0..100).collect::<Vec<_>>()
    );
    assert!(out.iter().all(|(_, r)| r.is_ok()));
    let st = w.stats().snapshot();
    assert_eq!((st.records, st.submissions, st.batches), (100, 100, 1));
    assert_eq!(st.last_batch_records, 100);
    assert_eq!(
        w.stats().waiting.load(Ordering::Relaxed),
        0,
        "all completed"
    );
    for b in &boards {
        assert_eq!(fx.store.load(b).await.unwrap().unwrap().seq, 50);
    }
}

/// STORE-14: a conflicting submission fails alone: other boards in the same batch commit, and
/// the failed board's later submissions in the batch fail too (no gap in its log).
pub(super) async fn store_14_writer_conflict_isolated(fx: &Fixture) {
    let (a, b) = (board("b14a"), board("b14b"));
    fx.store.append(&recs(&a, 1..=2)).await.unwrap();
    let (w, release) = Writer::spawn_held(fx.store.clone(), WriterOptions::default());
    let out: Outcomes = Arc::default();
    w.submit(vec![rec(&b, 1)], recorder(&out, 0));
    w.submit(vec![rec(&a, 2)], recorder(&out, 1)); // duplicate
    w.submit(vec![rec(&a, 3)], recorder(&out, 2)); // after the failed one
    w.submit(vec![rec(&b, 2)], recorder(&out, 3));
    release.send(()).unwrap(); // all four in one batch
    wait_for(&out, 4).await;
    let ok: Vec<bool> = out.lock().unwrap().iter().map(|(_, r)| r.is_ok()).collect();
    assert_eq!(ok, vec![true, false, false, true]);
    assert_eq!(fx.store.load(&a).await.unwrap().unwrap().seq, 2);
    assert_eq!(fx.store.load(&b).await.unwrap().unwrap().seq, 2);
}

/// STORE-15: `submit` never waits: with the queue full it fails the submission at once with
/// Unavailable ("log writer overloaded").
pub(super) async fn store_15_writer_overload_fails_fast(fx: &Fixture) {
    let b = board("b15");
    let (w, release) = Writer::spawn_held(
        fx.store.clone(),
        WriterOptions {
            queue: 2,
            ..WriterOptions::default()
        },
    );
    let out: Outcomes = Arc::default();
    for i in 0..3 {
        w.submit(vec![rec(&b, i as Seq + 1)], recorder(&out, i));
    }
    // The writer has not taken anything yet: the third was refused. (Read before the release:
    // once released, the writer may complete the first two before this thread looks.)
    let refused = out.lock().unwrap().clone();
    release.send(()).unwrap();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].0, 2);
    assert_eq!(
        refused[0].1,
        Err(StoreError::Unavailable("log writer overloaded".into()))
    );
    wait_for(&out, 3).await;
    assert_eq!(w.stats().snapshot().rejected, 1);
    assert_eq!(
        w.stats().waiting.load(Ordering::Relaxed),
        0,
        "refused ones never counted"
    );
    assert_eq!(fx.store.load(&b).await.unwrap().unwrap().seq, 2);
}

/// STORE-23: under load (a batch finds `LINGER_MIN_SUBMISSIONS` or more queued) the writer waits
/// `linger` for more before it writes, and what arrives meanwhile shares the commit; a lone
/// command is written at once, whatever the linger.
pub(super) async fn store_23_writer_linger(fx: &Fixture) {
    let b = board("b23");
    let opts = WriterOptions {
        linger: std::time::Duration::from_secs(1),
        ..WriterOptions::default()
    };
    let (w, release) = Writer::spawn_held(fx.store.clone(), opts);
    let out: Outcomes = Arc::default();
    for i in 0..crate::store::writer::LINGER_MIN_SUBMISSIONS {
        w.submit(vec![rec(&b, i as Seq + 1)], recorder(&out, i));
    }
    release.send(()).unwrap();
    // Well inside the linger: this one joins the batch being held.
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let n = crate::store::writer::LINGER_MIN_SUBMISSIONS;
    w.submit(vec![rec(&b, n as Seq + 1)], recorder(&out, n));
    wait_for(&out, n + 1).await;
    assert!(out.lock().unwrap().iter().all(|(_, r)| r.is_ok()));
    let st = w.stats().snapshot();
    assert_eq!(
        (st.records, st.batches),
        (n as u64 + 1, 1),
        "one commit for all"
    );
    assert_eq!(fx.store.load(&b).await.unwrap().unwrap().seq, n as Seq + 1);

    // A lone command does not wait for company (the linger here is a minute; `wait_for` gives
    // up after ten seconds).
    let lone = board("b23-lone");
    let w = Writer::spawn(
        fx.store.clone(),
        WriterOptions {
            linger: std::time::Duration::from_secs(60),
            ..WriterOptions::default()
        },
    );
    let out: Outcomes = Arc::default();
    w.submit(vec![rec(&lone, 1)], recorder(&out, 0));
    wait_for(&out, 1).await;
    assert_eq!(out.lock().unwrap()[0].1, Ok(()));
}

/// STORE-24: the successful submissions of one batch that share a `Notify` complete in one call
/// (highest seq, their count); a plain callback queued between them runs after everything
/// before it completed, so completions keep submission order; the counters count submissions.
pub(super) async fn store_24_writer_one_completion_per_submitter_and_batch(fx: &Fixture) {
    let (w, release) = Writer::spawn_held(fx.store.clone(), WriterOptions::default());
    let (a, b) = (board("b24a"), board("b24b"));
    let calls: Arc<Mutex<Vec<(String, Seq, u64)>>> = Arc::default();
    let notify = |name: &'static str| -> Notify {
        let calls = calls.clone();
        Arc::new(move |seq, n, r: Result<(), StoreError>| {
            r.unwrap();
            calls.lock().unwrap().push((name.into(), seq, n));
        })
    };
    let (to_a, to_b) = (notify("a"), notify("b"));
    w.submit_to(vec![rec(&a, 1)], &to_a, 1);
    w.submit_to(vec![rec(&b, 1)], &to_b, 1);
    w.submit_to(vec![rec(&a, 2)], &to_a, 2);
    let plain = calls.clone();
    w.submit(
        vec![],
        Box::new(move |r| {
            r.unwrap();
            plain.lock().unwrap().push(("plain".into(), 0, 1));
        }),
    );
    w.submit_to(vec![rec(&a, 3)], &to_a, 3);
    w.submit_to(vec![rec(&b, 2)], &to_b, 2);
    release.send(()).unwrap();
    for _ in 0..2000 {
        if calls.lock().unwrap().len() >= 5 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let got = calls.lock().unwrap().clone();
    let want: Vec<(String, Seq, u64)> = [
        ("a", 2, 2),
        ("b", 1, 1),
        ("plain", 0, 1),
        ("a", 3, 1),
        ("b", 2, 1),
    ]
    .into_iter()
    .map(|(n, s, c)| (n.to_string(), s, c))
    .collect();
    assert_eq!(got, want);
    let c = w.stats().snapshot();
    assert_eq!((c.batches, c.submissions, c.records), (1, 6, 5));
    assert_eq!(
        w.stats().waiting.load(std::sync::atomic::Ordering::Relaxed),
        0
    );
    assert_eq!(fx.store.load(&a).await.unwrap().unwrap().seq, 3);
    assert_eq!(fx.store.load(&b).await.unwrap().unwrap().seq, 2);
}
