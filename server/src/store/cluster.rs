//! Cluster mode's storage half, PostgreSQL only (docs/CLUSTER.md, CLUSTER-1..7): which node
//! owns which board, the nodes' leases, and the fencing that keeps a stale owner from writing.
//!
//! - **Nodes and leases** (`nodes` table): a node joins under its id and gets a process
//!   generation (one more than the last process with that id); its lease ends at a time on the
//!   **database's clock** (`now()`), renewed on a connection of its own. A renewal that finds
//!   another generation under its id answers `false`: a newer process took the id, and this one
//!   must stop writing (it is fenced anyway).
//! - **Ownership**: a board's row names its owner (node and generation) and carries its
//!   `epoch`, the fencing token. [`ClusterStore::take_board`] is one compare-and-set statement:
//!   it takes a board that has no owner, or whose owner's lease ended, or whose owner's
//!   generation is gone, and only while the taker's own lease is live; every take bumps the
//!   epoch by exactly one. A board that has no row is created by its take (empty, seq 0): in
//!   cluster mode a board is taken before it is written, imports included
//!   (`Store::create_board` then fills the taken, empty row).
//! - **Fencing**: a store opened with fencing ([`super::Store::open_postgres_fenced`]) keeps
//!   the epoch of every board it holds; each write that changes a board's durable state checks
//!   it against the row in the same statement (the log append) or transaction (everything
//!   else), so a write of an owner that was taken over fails with [`StoreError::Fenced`] and
//!   writes nothing. A board the node holds no epoch for is fenced without asking the database.
//!   An epoch found stale is forgotten at once.
//! - A deleted board that was ever owned leaves its last epoch in `retired_epochs`, so a board
//!   created again under the same id starts above it: an old epoch never becomes valid again.
//!
//! Timing: a take waits at most [`TAKE_LOCK_TIMEOUT_MS`] for the board's row lock (a paused
//! owner in the middle of a transaction) and then fails with `Unavailable`; the server ends a
//! fenced store's session idle in a transaction after
//! [`super::postgres::IDLE_IN_TRANSACTION_TIMEOUT_MS`], which frees such a lock, so a retry
//! succeeds (CLUSTER-3).

use super::postgres::{Columns, PgStore, Slot, commit, pg_err, with_conn};
use super::{EncodedRecord, EncodedSnapshot, StoreError, now_ms};
use protocol::{BoardId, Seq};

use std::sync::MutexGuard;
use std::time::Duration;
use tokio_postgres::error::SqlState;
use tokio_postgres::{NoTls, Transaction};

/// How long [`ClusterStore::take_board`] waits for a board's row lock.
pub const TAKE_LOCK_TIMEOUT_MS: u64 = 1500;

/// One compare-and-set: the taker's lease must be live (`me`); the board is inserted owned if it
/// has no row (its epoch one past a retired one), else taken when it has no owner or its owner's
/// lease ended or its owner's generation is gone. A board the taker already holds answers its
/// epoch unchanged (`false`: not a new take).
const SQL_TAKE: &str = "WITH \
    me AS (SELECT 1 FROM nodes WHERE id = $2 AND generation = $3 AND lease_expires > now()), \
    taken AS (INSERT INTO boards AS b (id, created_at, updated_at, seq, owner_node, owner_gen, \
        epoch) \
        SELECT $1, $4, $4, 0, $2, $3, \
            coalesce((SELECT r.epoch FROM retired_epochs r WHERE r.board = $1), 0) + 1 \
        FROM me \
        ON CONFLICT (id) DO UPDATE SET owner_node = EXCLUDED.owner_node, \
            owner_gen = EXCLUDED.owner_gen, epoch = b.epoch + 1 \
        WHERE b.owner_node IS NULL OR NOT EXISTS (SELECT 1 FROM nodes o \
            WHERE o.id = b.owner_node AND o.generation = b.owner_gen \
            AND o.lease_expires > now()) \
        RETURNING b.epoch) \
    SELECT epoch, true FROM taken \
    UNION ALL \
    SELECT b.epoch, false FROM boards b WHERE b.id = $1 AND b.owner_node = $2 \
        AND b.owner_gen = $3 AND NOT EXISTS (SELECT 1 FROM taken) AND EXISTS (SELECT 1 FROM me)";

/// A board's owner as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub node: String,
    /// The owner's process generation.
    pub generation: i64,
    /// The board's epoch (fencing token) under this owner.
    pub epoch: i64,
}

/// What [`ClusterStore::owner_of`] finds: the raw owner and whether it is live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ownership {
    /// The board's epoch (0: never owned).
    pub epoch: i64,
    /// The owner the row names, live or not.
    pub stored: Option<Owner>,
    /// Whether `stored` is live: its node's lease has not ended (database clock) and its
    /// generation is the node's current one.
    pub live: bool,
}

impl Ownership {
    /// The owner to show: `None` when the board is unowned or its owner is not live.
    pub fn owner(&self) -> Option<&Owner> {
        self.stored.as_ref().filter(|_| self.live)
    }
}

/// One row of [`ClusterStore::live_nodes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRow {
    pub id: String,
    pub generation: i64,
    /// Milliseconds until the lease ends, on the database's clock (negative: it ended).
    pub lease_expires_ms: i64,
    /// Boards whose row names this node at this generation.
    pub boards_owned: i64,
}

/// The ownership and lease API of a PostgreSQL store ([`super::Store::cluster`]); cheap to
/// clone, it shares the store's connections (leases have one of their own).
#[derive(Clone)]
pub struct ClusterStore {
    pg: PgStore,
}

fn ttl_ms(ttl: Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)
}

impl ClusterStore {
    pub(super) fn new(pg: PgStore) -> Self {
        ClusterStore { pg }
    }

    /// Registers this process under `node`: a new node gets generation 1, a known one the next
    /// generation (whatever the previous process still holds is takeable at once, CLUSTER-4).
    /// The lease ends `ttl` from now on the database's clock. Returns the generation.
    pub async fn join_node(&self, node: &str, ttl: Duration) -> Result<i64, StoreError> {
        let ttl = ttl_ms(ttl);
        let s = &self.pg;
        with_conn!(s, Slot::Lease, false, |c, committing| {
            *committing = true;
            let row = c
                .client
                .query_one(
                    "INSERT INTO nodes (id, generation, lease_expires, started_at) \
                     VALUES ($1, 1, now() + $2::bigint * interval '1 millisecond', now()) \
                     ON CONFLICT (id) DO UPDATE SET generation = nodes.generation + 1, \
                     lease_expires = EXCLUDED.lease_expires, started_at = EXCLUDED.started_at \
                     RETURNING generation",
                    &[&node, &ttl],
                )
                .await
                .map_err(pg_err)?;
            Ok(row.get::<_, i64>(0))
        })
    }

    /// Extends the lease to `ttl` from now (database clock), on the lease connection (never
    /// behind an append). `false`: the node's row has another generation (a newer process took
    /// the id) or is gone, and this process must stop writing. A lease that had already ended
    /// is renewed too; boards taken over meanwhile stay fenced.
    pub async fn renew(
        &self,
        node: &str,
        generation: i64,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        let ttl = ttl_ms(ttl);
        let s = &self.pg;
        with_conn!(s, Slot::Lease, true, |c, committing| {
            let n = c
                .client
                .execute(
                    "UPDATE nodes \
                     SET lease_expires = now() + $3::bigint * interval '1 millisecond' \
                     WHERE id = $1 AND generation = $2",
                    &[&node, &generation, &ttl],
                )
                .await
                .map_err(pg_err)?;
            Ok(n == 1)
        })
    }

    /// Clean shutdown: the lease ends now and every board this generation owns is released
    /// (their epochs stay: the next take bumps them). This store forgets every epoch it held.
    pub async fn leave_node(&self, node: &str, generation: i64) -> Result<(), StoreError> {
        let s = &self.pg;
        let r = with_conn!(s, Slot::Lease, true, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            tx.execute(
                "UPDATE nodes SET lease_expires = now() WHERE id = $1 AND generation = $2",
                &[&node, &generation],
            )
            .await
            .map_err(pg_err)?;
            tx.execute(
                "UPDATE boards SET owner_node = NULL, owner_gen = NULL \
                 WHERE owner_node = $1 AND owner_gen = $2",
                &[&node, &generation],
            )
            .await
            .map_err(pg_err)?;
            commit(tx, committing).await
        });
        if let Some(fence) = &self.pg.inner.fence {
            lock(fence).clear();
        }
        r
    }

    /// Every node row, by id, with the time left on its lease (negative once it ended) and the
    /// boards it owns.
    pub async fn live_nodes(&self) -> Result<Vec<NodeRow>, StoreError> {
        let s = &self.pg;
        with_conn!(s, Slot::Lease, true, |c, committing| {
            let rows = c
                .client
                .query(
                    "SELECT n.id, n.generation, \
                     floor(extract(epoch FROM (n.lease_expires - now())) * 1000)::bigint, \
                     (SELECT count(*) FROM boards b \
                      WHERE b.owner_node = n.id AND b.owner_gen = n.generation) \
                     FROM nodes n ORDER BY n.id",
                    &[],
                )
                .await
                .map_err(pg_err)?;
            Ok(rows
                .iter()
                .map(|r| NodeRow {
                    id: r.get(0),
                    generation: r.get(1),
                    lease_expires_ms: r.get(2),
                    boards_owned: r.get(3),
                })
                .collect())
        })
    }

    /// Whether any node's lease is live: a server not in cluster mode refuses to start then.
    pub async fn any_live_lease(&self) -> Result<bool, StoreError> {
        let s = &self.pg;
        with_conn!(s, Slot::Lease, true, |c, committing| {
            let row = c
                .client
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM nodes WHERE lease_expires > now())",
                    &[],
                )
                .await
                .map_err(pg_err)?;
            Ok(row.get::<_, bool>(0))
        })
    }

    /// Takes `board` for `node` at `generation` (one compare-and-set statement, see the module
    /// docs): `Some(epoch)` when this node holds it now (a new take bumped the epoch by one;
    /// a board it already held keeps its epoch), `None` when another live owner holds it or the
    /// taker's own lease is not live. A fenced store records the epoch. Waits at most
    /// [`TAKE_LOCK_TIMEOUT_MS`] for the row's lock, then `Unavailable` (try again).
    pub async fn take_board(
        &self,
        board: &BoardId,
        node: &str,
        generation: i64,
    ) -> Result<Option<i64>, StoreError> {
        let id = board.as_str();
        let now = now_ms();
        let s = &self.pg;
        let epoch = with_conn!(s, Slot::Others, false, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            tx.batch_execute(&format!("SET LOCAL lock_timeout = {TAKE_LOCK_TIMEOUT_MS}"))
                .await
                .map_err(pg_err)?;
            // A lock timeout is an answer, not a broken connection: no retry on a new one.
            let row = match tx
                .query_opt(SQL_TAKE, &[&id, &node, &generation, &now])
                .await
            {
                Ok(row) => row,
                Err(e) if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) => {
                    return Ok(Err(pg_err(e)));
                }
                Err(e) => return Err(pg_err(e)),
            };
            commit(tx, committing).await?;
            Ok(Ok(row.map(|r| r.get::<_, i64>(0))))
        })??;
        if let Some(e) = epoch {
            self.pg.hold(board, e);
        }
        Ok(epoch)
    }

    /// Gives `board` up if this node still owns it at `epoch` (the epoch stays: the next take
    /// bumps it); whether it did. The store forgets its epoch either way.
    pub async fn release_board(
        &self,
        board: &BoardId,
        node: &str,
        generation: i64,
        epoch: i64,
    ) -> Result<bool, StoreError> {
        self.pg.forget(board);
        let id = board.as_str();
        let s = &self.pg;
        with_conn!(s, Slot::Others, true, |c, committing| {
            let n = c
                .client
                .execute(
                    "UPDATE boards SET owner_node = NULL, owner_gen = NULL \
                     WHERE id = $1 AND owner_node = $2 AND owner_gen = $3 AND epoch = $4",
                    &[&id, &node, &generation, &epoch],
                )
                .await
                .map_err(pg_err)?;
            Ok(n == 1)
        })
    }

    /// Until when this node may write: its lease, counted from when its renewal was sent on the
    /// local monotonic clock, less a margin. Every fenced write checks it before anything else.
    pub fn set_writable_until(&self, until: std::time::Instant) {
        *lock(&self.pg.inner.writable_until) = Some(until);
    }

    /// Whether this node may write now (before the deadline [`Self::set_writable_until`] set).
    pub fn writable(&self) -> bool {
        lock(&self.pg.inner.writable_until).is_none_or(|u| std::time::Instant::now() < u)
    }

    /// Forgets the epoch held for `board` without touching the database (its owner moved on).
    pub fn forget(&self, board: &BoardId) {
        self.pg.forget(board);
    }

    /// Makes this store believe it holds `board` at `epoch` (tests of a stale owner whose
    /// epoch only the database can refuse).
    #[cfg(test)]
    pub(super) fn pretend_held(&self, board: &BoardId, epoch: i64) {
        self.pg.hold(board, epoch);
    }

    /// The epoch this store holds `board` at (fenced stores only).
    pub fn held_epoch(&self, board: &BoardId) -> Option<i64> {
        let fence = self.pg.inner.fence.as_ref()?;
        lock(fence).get(board).copied()
    }

    /// The board's owner as stored and whether it is live; `None` when the board has no row.
    pub async fn owner_of(&self, board: &BoardId) -> Result<Option<Ownership>, StoreError> {
        let id = board.as_str();
        let s = &self.pg;
        with_conn!(s, Slot::Others, true, |c, committing| {
            let row = c
                .client
                .query_opt(
                    "SELECT b.epoch, b.owner_node, b.owner_gen, coalesce(n.generation = \
                     b.owner_gen AND n.lease_expires > now(), false) \
                     FROM boards b LEFT JOIN nodes n ON n.id = b.owner_node WHERE b.id = $1",
                    &[&id],
                )
                .await
                .map_err(pg_err)?;
            Ok(row.map(|r| {
                let epoch: i64 = r.get(0);
                let node: Option<String> = r.get(1);
                let generation: Option<i64> = r.get(2);
                let stored = node.zip(generation).map(|(node, generation)| Owner {
                    node,
                    generation,
                    epoch,
                });
                Ownership {
                    epoch,
                    live: stored.is_some() && r.get::<_, bool>(3),
                    stored,
                }
            }))
        })
    }
}

fn lock<T>(fence: &std::sync::Mutex<T>) -> MutexGuard<'_, T> {
    fence
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn fenced_error(board: &BoardId, why: &str) -> StoreError {
    StoreError::Fenced(format!("board {board}: {why}"))
}

/// In a fenced write's transaction: locks the board's row and checks that it is at `epoch`
/// (the caller's transaction rolls back on `Fenced`, so nothing is written).
pub(super) async fn check_epoch(
    tx: &Transaction<'_>,
    board: &BoardId,
    epoch: i64,
) -> Result<(), StoreError> {
    let row = tx
        .query_opt(
            "SELECT epoch FROM boards WHERE id = $1 FOR UPDATE",
            &[&board.as_str()],
        )
        .await
        .map_err(pg_err)?;
    match row.map(|r| r.get::<_, i64>(0)) {
        Some(e) if e == epoch => Ok(()),
        Some(e) => Err(fenced_error(
            board,
            &format!("held at epoch {epoch}, but the board is at epoch {e}"),
        )),
        None => Err(fenced_error(board, "held, but the board has no row")),
    }
}

/// Keeps the last epoch of a deleted board that was ever owned (`epoch > 0`).
pub(super) async fn retire_epoch(
    tx: &Transaction<'_>,
    board: &BoardId,
    epoch: i64,
) -> Result<(), StoreError> {
    if epoch <= 0 {
        return Ok(());
    }
    tx.execute(
        "INSERT INTO retired_epochs (board, epoch) VALUES ($1, $2) ON CONFLICT (board) \
         DO UPDATE SET epoch = GREATEST(retired_epochs.epoch, EXCLUDED.epoch)",
        &[&board.as_str(), &epoch],
    )
    .await
    .map_err(pg_err)?;
    Ok(())
}

/// The fencing side of [`PgStore`].
impl PgStore {
    /// The epoch this node holds `board` at: `Ok(None)` when fencing is off, `Fenced` when it
    /// is on and the board is not held.
    pub(super) fn held(&self, board: &BoardId) -> Result<Option<i64>, StoreError> {
        let Some(fence) = &self.inner.fence else {
            return Ok(None);
        };
        let until = *lock(&self.inner.writable_until);
        if until.is_some_and(|u| std::time::Instant::now() >= u) {
            return Err(fenced_error(board, "this node's lease may have ended"));
        }
        match lock(fence).get(board) {
            Some(&e) => Ok(Some(e)),
            None => Err(fenced_error(board, "not held by this node")),
        }
    }

    fn hold(&self, board: &BoardId, epoch: i64) {
        if let Some(fence) = &self.inner.fence {
            lock(fence).insert(board.clone(), epoch);
        }
    }

    pub(super) fn forget(&self, board: &BoardId) {
        if let Some(fence) = &self.inner.fence {
            lock(fence).remove(board);
        }
    }

    /// Forgets `board` if it is still held at `epoch` (found stale), not at a newer take.
    fn lost(&self, board: &BoardId, epoch: i64) {
        if let Some(fence) = &self.inner.fence {
            let mut held = lock(fence);
            if held.get(board) == Some(&epoch) {
                held.remove(board);
            }
        }
    }

    /// `r` of a write made at `epoch`: a `Fenced` one forgets the stale epoch.
    pub(super) fn settle<T>(
        &self,
        board: &BoardId,
        epoch: Option<i64>,
        r: Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if let (Err(StoreError::Fenced(_)), Some(e)) = (&r, epoch) {
            self.lost(board, e);
        }
        r
    }

    /// Whether a load may repair the board's log tail: always without fencing; with it, only
    /// when this node holds the board at the row's `stored` epoch.
    pub(super) fn may_repair(&self, board: &BoardId, stored: i64) -> Result<(), StoreError> {
        match self.held(board)? {
            Some(e) if e != stored => {
                self.lost(board, e);
                Err(fenced_error(
                    board,
                    &format!("a repair at epoch {e}, but the board is at epoch {stored}"),
                ))
            }
            _ => Ok(()),
        }
    }

    /// Whether `board` is not held by this fenced store (its writes fail without a round trip).
    pub(super) fn refuses(&self, board: &BoardId) -> bool {
        self.held(board).is_err()
    }

    /// A fenced store's append: one statement (`SQL_APPEND_FENCED`) that writes everything or,
    /// when a board is fenced or conflicts, nothing.
    pub(super) async fn append_fenced(
        &self,
        rows: &[EncodedRecord],
        ranges: &[(BoardId, Seq, Seq)],
        budget: Duration,
    ) -> Result<(), StoreError> {
        let mut epochs = Vec::with_capacity(ranges.len());
        let mut unheld = Vec::new();
        for (b, _, _) in ranges {
            match self.held(b) {
                Ok(Some(e)) => epochs.push(e),
                _ => unheld.push(b.as_str()),
            }
        }
        if !unheld.is_empty() {
            return Err(StoreError::Fenced(format!(
                "boards not held by this node: {}",
                unheld.join(", ")
            )));
        }
        let col = Columns::new(rows, ranges)?;
        let now = now_ms();
        let bad = with_conn!(self, Slot::Writes, false, budget, |c, committing| {
            let Some(statement) = &c.append_fenced else {
                return Err(StoreError::Unavailable(
                    "postgres: the fenced append is not prepared".into(),
                ));
            };
            *committing = true;
            c.client
                .query(
                    statement,
                    &[
                        &col.ids,
                        &col.los,
                        &col.his,
                        &epochs,
                        &col.boards,
                        &col.seqs,
                        &col.payloads,
                        &col.crcs,
                        &now,
                    ],
                )
                .await
                .map_err(pg_err)
        })?;
        let mut fenced = Vec::new();
        let mut conflict = None;
        for row in &bad {
            let id: String = row.get(0);
            if row.get::<_, bool>(3) {
                if let Some(i) = ranges.iter().position(|(b, _, _)| b.as_str() == id) {
                    self.lost(&ranges[i].0, epochs[i]);
                }
                fenced.push(id);
            } else if conflict.is_none() {
                let (cur, lo): (i64, i64) = (row.get(1), row.get(2));
                conflict = Some(format!(
                    "board {id}: seq {lo} is not after the stored seq {cur}"
                ));
            }
        }
        if !fenced.is_empty() {
            return Err(StoreError::Fenced(format!(
                "boards taken over or deleted (epoch moved on): {}",
                fenced.join(", ")
            )));
        }
        conflict.map_or(Ok(()), |c| Err(StoreError::Conflict(c)))
    }

    /// A fenced store's `create_board` (import): the board must be held (its take made its
    /// row) at `epoch` and be empty (seq 0, no snapshot, no log); it gets `snap` at seq 0.
    pub(super) async fn create_fenced(
        &self,
        board: &BoardId,
        snap: EncodedSnapshot,
        epoch: i64,
    ) -> Result<(), StoreError> {
        let id = board.as_str();
        let crc = i64::from(snap.crc);
        let objects = i64::try_from(snap.objects).unwrap_or(i64::MAX);
        let now = now_ms();
        let r = with_conn!(self, Slot::Others, false, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            check_epoch(&tx, board, epoch).await?;
            let used: bool = tx
                .query_one(
                    "SELECT b.seq > 0 OR EXISTS (SELECT 1 FROM snapshots s WHERE s.board = $1) \
                     OR EXISTS (SELECT 1 FROM log l WHERE l.board = $1) \
                     FROM boards b WHERE b.id = $1",
                    &[&id],
                )
                .await
                .map_err(pg_err)?
                .get(0);
            if used {
                return Err(StoreError::Conflict(format!("board {id} exists")));
            }
            tx.execute(
                "INSERT INTO snapshots (board, seq, payload, crc, objects) \
                 VALUES ($1, 0, $2, $3, $4)",
                &[&id, &snap.payload, &crc, &objects],
            )
            .await
            .map_err(pg_err)?;
            tx.execute(
                "UPDATE boards SET updated_at = $2 WHERE id = $1",
                &[&id, &now],
            )
            .await
            .map_err(pg_err)?;
            commit(tx, committing).await
        });
        self.settle(board, Some(epoch), r)
    }
}
