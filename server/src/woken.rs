//! A select over two sources that polls only the source that woke it.
//!
//! `tokio::select!` polls every branch each time its task wakes. A connection wakes once per
//! frame out (its outbox) and once per frame in (its socket), and on a board of ten a connection
//! sends one frame for every nine it receives: each wake-up for an outbox frame also ran the
//! socket's whole read path (the WebSocket codec, the upgraded stream, the reactor's readiness)
//! only to learn that nothing had arrived. Here each source is polled with a waker of its own
//! that marks it before waking the task, and a source is polled again only once it was marked,
//! or while it keeps returning items.

use futures_util::task::AtomicWaker;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

/// What one poll of [`Woken`] produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Either<A, B> {
    A(A),
    B(B),
}

/// Marks: which source woke the task since it was last polled.
#[derive(Default)]
struct Marks {
    a: AtomicBool,
    b: AtomicBool,
    task: AtomicWaker,
}

/// The waker handed to one source.
struct SourceWaker {
    marks: Arc<Marks>,
    is_a: bool,
}

impl Wake for SourceWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let flag = if self.is_a {
            &self.marks.a
        } else {
            &self.marks.b
        };
        flag.store(true, Ordering::Release);
        self.marks.task.wake();
    }
}

/// Two sources, each polled only when it woke the task (or has not yet returned `Pending`).
/// When both are due, they take turns going first, so neither can starve the other.
pub struct Woken {
    marks: Arc<Marks>,
    a: Waker,
    b: Waker,
    b_first: bool,
}

impl Default for Woken {
    fn default() -> Self {
        let marks = Arc::new(Marks::default());
        // Both are due at first: nothing has registered a waker with either source yet.
        marks.a.store(true, Ordering::Relaxed);
        marks.b.store(true, Ordering::Relaxed);
        let waker = |is_a| {
            Waker::from(Arc::new(SourceWaker {
                marks: marks.clone(),
                is_a,
            }))
        };
        Woken {
            a: waker(true),
            b: waker(false),
            marks,
            b_first: false,
        }
    }
}

impl Woken {
    /// Polls the due sources (`poll_a` with A's waker, `poll_b` with B's) and returns the first
    /// item. A source that returns `Pending` is not polled again until its waker fires; one
    /// that returns an item stays due.
    pub fn poll<A, B>(
        &mut self,
        cx: &mut Context<'_>,
        mut poll_a: impl FnMut(&mut Context<'_>) -> Poll<A>,
        mut poll_b: impl FnMut(&mut Context<'_>) -> Poll<B>,
    ) -> Poll<Either<A, B>> {
        // Registered before the marks are read: a wake after a mark was cleared finds it.
        self.marks.task.register(cx.waker());
        for turn in 0..2 {
            let is_a = (turn == 0) != self.b_first;
            let (flag, waker) = if is_a {
                (&self.marks.a, &self.a)
            } else {
                (&self.marks.b, &self.b)
            };
            if !flag.swap(false, Ordering::AcqRel) {
                continue;
            }
            let mut source_cx = Context::from_waker(waker);
            let ready = if is_a {
                poll_a(&mut source_cx).map(Either::A)
            } else {
                poll_b(&mut source_cx).map(Either::B)
            };
            if let Poll::Ready(item) = ready {
                flag.store(true, Ordering::Release);
                // The other source goes first next time.
                self.b_first = is_a;
                return Poll::Ready(item);
            }
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use std::sync::atomic::AtomicUsize;
    use tokio::sync::mpsc;

    /// A stream that counts how often it is polled.
    struct Counted<S> {
        inner: S,
        polls: Arc<AtomicUsize>,
    }

    impl<S: futures_util::Stream + Unpin> futures_util::Stream for Counted<S> {
        type Item = S::Item;
        fn poll_next(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<Option<S::Item>> {
            self.polls.fetch_add(1, Ordering::Relaxed);
            self.inner.poll_next_unpin(cx)
        }
    }

    fn counted(
        rx: mpsc::Receiver<u32>,
    ) -> (
        Counted<impl futures_util::Stream<Item = u32>>,
        Arc<AtomicUsize>,
    ) {
        let polls = Arc::new(AtomicUsize::new(0));
        let inner =
            futures_util::stream::unfold(
                rx,
                |mut rx| async move { rx.recv().await.map(|v| (v, rx)) },
            )
            .boxed();
        (
            Counted {
                inner,
                polls: polls.clone(),
            },
            polls,
        )
    }

    async fn next<S: futures_util::Stream<Item = u32> + Unpin>(
        sel: &mut Woken,
        rx_a: &mut mpsc::Receiver<u32>,
        b: &mut S,
    ) -> Either<Option<u32>, Option<u32>> {
        std::future::poll_fn(|cx| sel.poll(cx, |c| rx_a.poll_recv(c), |c| b.poll_next_unpin(c)))
            .await
    }

    /// Items from both sources arrive, in each source's order; a source that did not wake the
    /// task is not polled for the other's items.
    #[tokio::test]
    async fn polls_only_the_source_that_woke_it() {
        let (tx_a, mut rx_a) = mpsc::channel::<u32>(64);
        let (tx_b, rx_b) = mpsc::channel::<u32>(64);
        let (mut b, b_polls) = counted(rx_b);
        let mut sel = Woken::default();
        // Nothing yet: both are polled once (and registered), then the task sleeps.
        let waiting = tokio::time::timeout(
            std::time::Duration::from_millis(20),
            next(&mut sel, &mut rx_a, &mut b),
        )
        .await;
        assert!(waiting.is_err());
        assert_eq!(b_polls.load(Ordering::Relaxed), 1);
        // A hundred items through A: B is not polled for any of them.
        let sender = tokio::spawn(async move {
            for i in 0..100 {
                tx_a.send(i).await.unwrap();
                tokio::task::yield_now().await;
            }
            tx_a
        });
        for i in 0..100 {
            assert_eq!(next(&mut sel, &mut rx_a, &mut b).await, Either::A(Some(i)));
        }
        let _tx_a = sender.await.unwrap();
        assert_eq!(
            b_polls.load(Ordering::Relaxed),
            1,
            "B polled without a wake"
        );
        // B wakes the task: its item arrives.
        tx_b.send(7).await.unwrap();
        assert_eq!(next(&mut sel, &mut rx_a, &mut b).await, Either::B(Some(7)));
    }

    /// With both sources always ready, they alternate: neither starves the other.
    #[tokio::test]
    async fn both_ready_take_turns() {
        let (tx_a, mut rx_a) = mpsc::channel::<u32>(64);
        let (tx_b, mut rx_b) = mpsc::channel::<u32>(64);
        for i in 0..10 {
            tx_a.try_send(i).unwrap();
            tx_b.try_send(i).unwrap();
        }
        let mut sel = Woken::default();
        let mut got = Vec::new();
        for _ in 0..20 {
            let e = std::future::poll_fn(|cx| {
                sel.poll(cx, |c| rx_a.poll_recv(c), |c| rx_b.poll_recv(c))
            })
            .await;
            got.push(matches!(e, Either::A(_)));
        }
        let alternating: Vec<bool> = (0..20).map(|i| i % 2 == 0).collect();
        assert_eq!(got, alternating);
    }
}
