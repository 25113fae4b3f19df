//! The PostgreSQL backend (tokio-postgres, `NoTls`). Two connections: one for appends (the log
//! writer's path) and one for everything else, so a large snapshot never delays a commit. Each
//! is opened on demand: a connection that dropped (server restart, terminated backend) is
//! replaced on the next call. An operation that fails on a broken connection returns
//! [`StoreError::Unavailable`]; read-only operations retry once on a fresh connection.
//! With a `schema`, the schema is created at open and every connection runs
//! `SET search_path TO "<schema>"`, so a store sees only its own tables.
//!
//! Cluster mode (docs/CLUSTER.md) opens the store with fencing ([`PgStore::fenced`]): the store
//! keeps the epoch of every board this node holds (set by `ClusterStore::take_board`, see
//! `cluster.rs`), and every write that changes a board's durable state checks that epoch
//! against the board's row in the same statement or transaction; a board held at another epoch,
//! or not held at all, gets [`StoreError::Fenced`] and nothing is written. Lease calls have a
//! third connection of their own, so a renewal never waits behind an append or a snapshot.

use super::backend::Backend;
use super::cluster::{check_epoch, retire_epoch};
use super::comments::{Notification, ThreadRow};
use super::postgres_schema::{check_schema, migrate};
use super::versions::{NewVersion, VersionRow};
use super::{
    BoardInfo, EncodedRecord, EncodedSnapshot, LoadedBoard, RawRow, StoreError, Truncation,
    batch_ranges, board_from_db, check_tail, decode_snapshot, now_ms, repair_reason, seq_from_db,
    seq_to_db, warn_truncated,
};
use super::{KEPT_BEHIND, read_after, split_behind};
use super::{postgres_comments, postgres_versions};
use protocol::{BoardId, Seq};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Mutex;
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, NoTls, Statement};

const SQL_CHECK: &str = "SELECT b.id, b.seq, u.lo FROM boards b \
    JOIN unnest($1::text[], $2::bigint[]) AS u(id, lo) ON b.id = u.id WHERE u.lo <= b.seq";
const SQL_UPSERT_BOARDS: &str = "INSERT INTO boards (id, created_at, updated_at, seq) \
    SELECT u.id, $3, $3, u.hi FROM unnest($1::text[], $2::bigint[]) AS u(id, hi) \
    ON CONFLICT (id) DO UPDATE SET seq = GREATEST(boards.seq, EXCLUDED.seq), \
    updated_at = EXCLUDED.updated_at";
const SQL_INSERT_LOG: &str = "INSERT INTO log (board, seq, payload, crc) \
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::bytea[], $4::bigint[])";
/// A fenced store's append, one statement (one round trip, no transaction left open): locks the
/// batch's board rows in id order, finds every board whose row is missing, whose epoch is not
/// the one this node holds (`fenced`) or whose stored seq is not before the batch's first; only
/// when there is none does it move the boards' seqs and insert the log rows. It returns those
/// boards (none: everything was written).
pub(super) const SQL_APPEND_FENCED: &str = "WITH \
    u AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) \
        AS u(id, lo, hi, epoch)), \
    cur AS (SELECT b.id, b.seq, b.epoch FROM boards b WHERE b.id = ANY($1::text[]) \
        ORDER BY b.id FOR UPDATE), \
    bad AS (SELECT u.id, coalesce(c.seq, -1) AS seq, u.lo, \
        (c.id IS NULL OR c.epoch <> u.epoch) AS fenced \
        FROM u LEFT JOIN cur c ON c.id = u.id \
        WHERE c.id IS NULL OR c.epoch <> u.epoch OR u.lo <= c.seq), \
    upd AS (UPDATE boards b SET seq = GREATEST(b.seq, u.hi), updated_at = $9 FROM u \
        WHERE b.id = u.id AND NOT EXISTS (SELECT 1 FROM bad) RETURNING 1), \
    ins AS (INSERT INTO log (board, seq, payload, crc) \
        SELECT * FROM unnest($5::text[], $6::bigint[], $7::bytea[], $8::bigint[]) \
        WHERE NOT EXISTS (SELECT 1 FROM bad) RETURNING 1) \
    SELECT id, seq, lo, fenced FROM bad";

/// How long a fenced store's session may sit idle inside a transaction before the server ends
/// it: a paused owner's open transaction (and its row locks) blocks a takeover at most this long.
pub const IDLE_IN_TRANSACTION_TIMEOUT_MS: u64 = 4000;

/// Which of the store's connections a call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// The log writer's appends.
    Writes,
    /// Everything else: loads, snapshots, versions, deletes, ownership.
    Others,
    /// Cluster leases (join, renew, leave, listing nodes): never behind an append or a snapshot.
    Lease,
}

/// Runs `$body` (an async block body using `$c: &mut Conn`) on a live connection of the slot,
/// connecting if needed. A failed connection is dropped so the next call reconnects. When a
/// connection that was already open fails, the body runs once more on a new one if
/// nothing can have been committed (`$committing`, set by [`commit`], is still false) or the
/// operation is idempotent (`$idempotent`). The whole call, waits for the slot and the
/// connection included, ends within `$budget` (the store's deadline unless given, STORE-29):
/// past it the statement under way is cancelled on the server and its connection dropped, so
/// that the next call neither queues behind it nor finds its locks still held.
macro_rules! with_conn {
    ($self:ident, $slot:expr, $idempotent:expr, |$c:ident, $committing:ident| $body:block) => {
        with_conn!($self, $slot, $idempotent, $self.inner.timeout, |$c, $committing| $body)
    };
    ($self:ident, $slot:expr, $idempotent:expr, $budget:expr, |$c:ident, $committing:ident| $body:block) => {{
        let budget: std::time::Duration = $budget;
        let until = tokio::time::Instant::now() + budget;
        let Ok(mut guard) = tokio::time::timeout_at(until, $self.slot($slot).lock()).await else {
            return Err(super::timed_out(budget));
        };
        let mut retried = false;
        loop {
            let Ok(fresh) = tokio::time::timeout_at(until, $self.ensure(&mut guard)).await else {
                *guard = None;
                return Err(super::timed_out(budget));
            };
            let fresh = fresh?;
            let Some($c) = guard.as_mut() else {
                return Err(StoreError::Unavailable("postgres: no connection".into()));
            };
            let cancel = $c.client.cancel_token();
            let mut committed_flag = false;
            let result = {
                #[allow(unused_variables)]
                let $committing = &mut committed_flag;
                tokio::time::timeout_at(until, async { $body }).await
            };
            let Ok(result) = result else {
                tokio::spawn(async move {
                    if let Err(e) = cancel.cancel_query(NoTls).await {
                        tracing::warn!(error = %e, "postgres: cannot cancel a timed-out statement");
                    }
                });
                *guard = None;
                break Err(super::timed_out(budget));
            };
            // Any Unavailable may be a connection the server already dropped (the client
            // notices a moment later): do not reuse it.
            let broken = $c.client.is_closed() || matches!(result, Err(StoreError::Unavailable(_)));
            if broken {
                *guard = None;
                if !fresh && !retried && ($idempotent || !committed_flag) {
                    tracing::info!("postgres connection lost; retrying on a new one");
                    retried = true;
                    continue;
                }
            }
            break result;
        }
    }};
}

pub(super) use with_conn;

/// Commits, first noting that from here on the outcome of a failure is unknown.
pub(super) async fn commit(
    tx: tokio_postgres::Transaction<'_>,
    committing: &mut bool,
) -> Result<(), StoreError> {
    *committing = true;
    tx.commit().await.map_err(pg_err)
}

/// One open connection with the append path's statements prepared.
pub(super) struct Conn {
    pub(super) client: Client,
    check: Statement,
    upsert_boards: Statement,
    insert_log: Statement,
    /// [`SQL_APPEND_FENCED`], prepared on a fenced store's connections only.
    pub(super) append_fenced: Option<Statement>,
}

pub(super) struct Inner {
    url: String,
    /// The deadline of every call (STORE-29).
    pub(super) timeout: std::time::Duration,
    schema: Option<String>,
    writes: Mutex<Option<Conn>>,
    others: Mutex<Option<Conn>>,
    lease: Mutex<Option<Conn>>,
    /// Fencing (cluster mode): the epoch of every board this node holds. `None`: fencing is off
    /// and the store behaves as a single node's. A std lock, never held across `.await`.
    pub(super) fence: Option<std::sync::Mutex<HashMap<BoardId, i64>>>,
    /// Fencing: the moment this node's lease may have ended (its local, monotonic count); from
    /// then on every write is fenced, checked when the write is admitted (CLUSTER-16).
    pub(super) writable_until: std::sync::Mutex<Option<std::time::Instant>>,
}

/// See the module docs.
#[derive(Clone)]
pub struct PgStore {
    pub(super) inner: Arc<Inner>,
}

pub(super) fn pg_err(e: tokio_postgres::Error) -> StoreError {
    let detail = match e.as_db_error() {
        Some(db) => format!("postgres: {}: {}", db.severity(), db.message()),
        None => format!("postgres: {e}"),
    };
    match e.code() {
        Some(c) if *c == SqlState::UNIQUE_VIOLATION => StoreError::Conflict(detail),
        Some(c) if *c == SqlState::DATA_CORRUPTED || *c == SqlState::INDEX_CORRUPTED => {
            StoreError::Corrupt(detail)
        }
        Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE => StoreError::Unavailable(format!(
            "{detail} (a row is locked by another session, maybe a paused owner's; try again)"
        )),
        _ => StoreError::Unavailable(detail),
    }
}

impl PgStore {
    pub(super) async fn open(
        url: &str,
        schema: Option<&str>,
        timeout: std::time::Duration,
        fenced: bool,
    ) -> Result<Self, StoreError> {
        if let Some(s) = schema {
            check_schema(s)?;
        }
        let store = PgStore {
            inner: Arc::new(Inner {
                url: url.to_owned(),
                timeout,
                schema: schema.map(str::to_owned),
                writes: Mutex::new(None),
                others: Mutex::new(None),
                lease: Mutex::new(None),
                fence: fenced.then(|| std::sync::Mutex::new(HashMap::new())),
                writable_until: std::sync::Mutex::new(None),
            }),
        };
        let opened = tokio::time::timeout(timeout, store.connect(true));
        let conn = opened.await.map_err(|_| super::timed_out(timeout))??;
        *store.inner.others.lock().await = Some(conn);
        tracing::info!(
            schema = schema.unwrap_or("(default)"),
            fenced,
            "postgres store open"
        );
        Ok(store)
    }

    /// Whether writes are fenced (cluster mode, see the module docs).
    pub fn fenced(&self) -> bool {
        self.inner.fence.is_some()
    }

    /// The schema this store uses, if one was given.
    pub fn schema(&self) -> Option<&str> {
        self.inner.schema.as_deref()
    }

    /// The `application_name` of this store's connections.
    pub fn application_name(&self) -> String {
        match &self.inner.schema {
            Some(s) => format!("board-store:{s}"),
            None => "board-store".to_owned(),
        }
    }

    /// A new connection. `setup` (the store's open) first brings the schema up to date
    /// (`postgres_schema::migrate`, which also creates the store's schema).
    async fn connect(&self, setup: bool) -> Result<Conn, StoreError> {
        let (client, connection) = tokio_postgres::connect(&self.inner.url, NoTls)
            .await
            .map_err(pg_err)?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::warn!(error = %e, "postgres connection ended");
            }
        });
        let mut session = format!("SET application_name = '{}';", self.application_name());
        if let Some(s) = &self.inner.schema {
            session.push_str(&format!("SET search_path TO \"{s}\";"));
        }
        if self.fenced() {
            session.push_str(&format!(
                "SET idle_in_transaction_session_timeout = {IDLE_IN_TRANSACTION_TIMEOUT_MS};"
            ));
        }
        client.batch_execute(&session).await.map_err(pg_err)?;
        if setup {
            migrate(&client, self.inner.schema.as_deref()).await?;
        }
        let prepared = async move {
            Ok::<_, tokio_postgres::Error>(Conn {
                check: client.prepare(SQL_CHECK).await?,
                upsert_boards: client.prepare(SQL_UPSERT_BOARDS).await?,
                insert_log: client.prepare(SQL_INSERT_LOG).await?,
                append_fenced: match self.fenced() {
                    true => Some(client.prepare(SQL_APPEND_FENCED).await?),
                    false => None,
                },
                client,
            })
        };
        prepared.await.map_err(pg_err)
    }

    pub(super) fn slot(&self, slot: Slot) -> &Mutex<Option<Conn>> {
        match slot {
            Slot::Writes => &self.inner.writes,
            Slot::Others => &self.inner.others,
            Slot::Lease => &self.inner.lease,
        }
    }

    /// Makes `slot` hold a live connection. Returns whether it is a new one.
    pub(super) async fn ensure(&self, slot: &mut Option<Conn>) -> Result<bool, StoreError> {
        if slot.as_ref().is_some_and(|c| !c.client.is_closed()) {
            return Ok(false);
        }
        *slot = None;
        *slot = Some(self.connect(false).await?);
        Ok(true)
    }

    /// Appends within `budget` (the log writer's: what is left of the deadline of the batch's
    /// oldest command; otherwise the store's deadline). A fenced store checks the epochs in the
    /// same statement (`cluster.rs`).
    async fn append_within(
        &self,
        rows: Vec<EncodedRecord>,
        budget: std::time::Duration,
    ) -> Result<(), StoreError> {
        let ranges = batch_ranges(&rows)?;
        if self.fenced() {
            return self.append_fenced(&rows, &ranges, budget).await;
        }
        let col = Columns::new(&rows, &ranges)?;
        let now = now_ms();
        with_conn!(self, Slot::Writes, false, budget, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            let conflicts = tx
                .query(&c.check, &[&col.ids, &col.los])
                .await
                .map_err(pg_err)?;
            if let Some(row) = conflicts.first() {
                let (id, cur, lo): (String, i64, i64) = (row.get(0), row.get(1), row.get(2));
                return Err(StoreError::Conflict(format!(
                    "board {id}: seq {lo} is not after the stored seq {cur}"
                )));
            }
            tx.execute(&c.upsert_boards, &[&col.ids, &col.his, &now])
                .await
                .map_err(pg_err)?;
            tx.execute(
                &c.insert_log,
                &[&col.boards, &col.seqs, &col.payloads, &col.crcs],
            )
            .await
            .map_err(pg_err)?;
            commit(tx, committing).await
        })
    }
}

/// A batch as the append statements' array parameters: per board (`ids`, first and last seq)
/// and per record.
pub(super) struct Columns<'a> {
    pub(super) ids: Vec<&'a str>,
    pub(super) los: Vec<i64>,
    pub(super) his: Vec<i64>,
    pub(super) boards: Vec<&'a str>,
    pub(super) seqs: Vec<i64>,
    pub(super) payloads: Vec<&'a [u8]>,
    pub(super) crcs: Vec<i64>,
}

impl<'a> Columns<'a> {
    pub(super) fn new(
        rows: &'a [EncodedRecord],
        ranges: &'a [(BoardId, Seq, Seq)],
    ) -> Result<Self, StoreError> {
        Ok(Columns {
            ids: ranges.iter().map(|(b, _, _)| b.as_str()).collect(),
            los: ranges
                .iter()
                .map(|(_, lo, _)| seq_to_db(*lo))
                .collect::<Result<_, _>>()?,
            his: ranges
                .iter()
                .map(|(_, _, hi)| seq_to_db(*hi))
                .collect::<Result<_, _>>()?,
            boards: rows.iter().map(|r| r.board.as_str()).collect(),
            seqs: rows
                .iter()
                .map(|r| seq_to_db(r.seq))
                .collect::<Result<_, _>>()?,
            payloads: rows.iter().map(|r| &r.payload[..]).collect(),
            crcs: rows.iter().map(|r| i64::from(r.crc)).collect(),
        })
    }
}

impl Backend for PgStore {
    fn kind(&self) -> &'static str {
        "postgres"
    }

    async fn append(&self, rows: Vec<EncodedRecord>) -> Result<(), StoreError> {
        self.append_within(rows, self.inner.timeout).await
    }

    /// The client is driven by `runtime` while this thread blocks on it.
    fn append_blocking(
        &self,
        rows: Vec<EncodedRecord>,
        runtime: &tokio::runtime::Handle,
        budget: std::time::Duration,
    ) -> Result<(), StoreError> {
        runtime.block_on(self.append_within(rows, budget))
    }

    async fn load(&self, board: &BoardId) -> Result<Option<LoadedBoard>, StoreError> {
        let id = board.as_str();
        with_conn!(self, Slot::Others, true, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            let Some(b) = tx
                .query_opt(
                    "SELECT seq, epoch FROM boards WHERE id = $1 FOR UPDATE",
                    &[&id],
                )
                .await
                .map_err(pg_err)?
            else {
                return Ok(None);
            };
            let recorded = seq_from_db(b.get(0))?;
            let snap = tx
                .query_opt(
                    "SELECT seq, payload, crc FROM snapshots WHERE board = $1",
                    &[&id],
                )
                .await
                .map_err(pg_err)?;
            let (snapshot_seq, objects) = match snap {
                Some(s) => {
                    let crc: i64 = s.get(2);
                    let crc = u32::try_from(crc).map_err(|_| {
                        StoreError::Corrupt(format!("board {board}: snapshot checksum {crc}"))
                    })?;
                    let payload: Vec<u8> = s.get(1);
                    (
                        seq_from_db(s.get(0))?,
                        decode_snapshot(board, &payload, crc)?,
                    )
                }
                None => (0, Vec::new()),
            };
            let rows = tx
                .query(
                    "SELECT seq, payload, crc FROM log WHERE board = $1 AND seq > $2 ORDER BY seq",
                    &[&id, &seq_to_db(read_after(snapshot_seq))?],
                )
                .await
                .map_err(pg_err)?
                .into_iter()
                .map(|r| {
                    Ok(RawRow {
                        seq: seq_from_db(r.get(0))?,
                        payload: r.get(1),
                        crc: r.get(2),
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            let (behind, rows) = split_behind(snapshot_seq, rows);
            let checked = check_tail(snapshot_seq, rows);
            let mut truncated = None;
            if let Some(reason) = repair_reason(&checked, recorded) {
                // A repair deletes log rows: only the board's holder may (fencing).
                self.may_repair(board, b.get(1))?;
                let kept = seq_to_db(checked.seq)?;
                let removed = tx
                    .execute(
                        "DELETE FROM log WHERE board = $1 AND seq > $2",
                        &[&id, &kept],
                    )
                    .await
                    .map_err(pg_err)?;
                tx.execute(
                    "UPDATE boards SET seq = $2, updated_at = $3 WHERE id = $1",
                    &[&id, &kept, &now_ms()],
                )
                .await
                .map_err(pg_err)?;
                truncated = Some(Truncation {
                    kept_seq: checked.seq,
                    removed,
                    reason,
                });
            }
            commit(tx, committing).await?;
            if let Some(t) = &truncated {
                warn_truncated("postgres", board, t);
            }
            Ok(Some(LoadedBoard {
                snapshot_seq,
                behind,
                objects,
                tail: checked.tail,
                seq: checked.seq,
                truncated,
            }))
        })
    }

    async fn save_snapshot(
        &self,
        board: &BoardId,
        seq: Seq,
        snap: EncodedSnapshot,
    ) -> Result<(), StoreError> {
        let id = board.as_str();
        let seq = seq_to_db(seq)?;
        let crc = i64::from(snap.crc);
        let objects = i64::try_from(snap.objects).unwrap_or(i64::MAX);
        let now = now_ms();
        let epoch = self.held(board)?;
        let r = with_conn!(self, Slot::Others, true, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            if let Some(e) = epoch {
                check_epoch(&tx, board, e).await?;
            }
            // Lock the board row first: appends and snapshots of one board serialize on it. A
            // board that has no row (never written, or deleted meanwhile) gets no snapshot, so a
            // late snapshot cannot bring a deleted board back.
            let updated = tx
                .execute(
                    "UPDATE boards SET seq = GREATEST(seq, $3), updated_at = $2 WHERE id = $1",
                    &[&id, &now, &seq],
                )
                .await
                .map_err(pg_err)?;
            if updated == 0 {
                return commit(tx, committing).await;
            }
            let current = tx
                .query_opt("SELECT seq FROM snapshots WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            if current.is_some_and(|r| r.get::<_, i64>(0) > seq) {
                return commit(tx, committing).await;
            }
            tx.execute(
                "INSERT INTO snapshots (board, seq, payload, crc, objects) \
                 VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (board) DO UPDATE SET seq = EXCLUDED.seq, \
                 payload = EXCLUDED.payload, crc = EXCLUDED.crc, objects = EXCLUDED.objects",
                &[&id, &seq, &snap.payload, &crc, &objects],
            )
            .await
            .map_err(pg_err)?;
            tx.execute(
                "DELETE FROM log WHERE board = $1 AND seq <= $2",
                &[&id, &(seq - KEPT_BEHIND as i64)],
            )
            .await
            .map_err(pg_err)?;
            commit(tx, committing).await
        });
        self.settle(board, epoch, r)
    }

    async fn truncate_after(&self, board: &BoardId, seq: Seq) -> Result<(), StoreError> {
        let id = board.as_str();
        let seq = seq_to_db(seq)?;
        let now = now_ms();
        let epoch = self.held(board)?;
        let r = with_conn!(self, Slot::Others, true, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            if let Some(e) = epoch {
                check_epoch(&tx, board, e).await?;
            }
            tx.execute(
                "DELETE FROM log WHERE board = $1 AND seq > $2",
                &[&id, &seq],
            )
            .await
            .map_err(pg_err)?;
            tx.execute(
                "UPDATE boards SET seq = GREATEST($2, coalesce( \
                 (SELECT s.seq FROM snapshots s WHERE s.board = $1), 0)), updated_at = $3 \
                 WHERE id = $1 AND seq > GREATEST($2, coalesce( \
                 (SELECT s.seq FROM snapshots s WHERE s.board = $1), 0))",
                &[&id, &seq, &now],
            )
            .await
            .map_err(pg_err)?;
            commit(tx, committing).await
        });
        self.settle(board, epoch, r)
    }

    async fn list_boards(&self) -> Result<Vec<BoardInfo>, StoreError> {
        with_conn!(self, Slot::Others, true, |c, committing| {
            c.client
                .query(
                    "SELECT b.id, b.seq, coalesce(s.seq, 0), coalesce(s.objects, 0), \
                     b.created_at, b.updated_at \
                     FROM boards b LEFT JOIN snapshots s ON s.board = b.id ORDER BY b.id",
                    &[],
                )
                .await
                .map_err(pg_err)?
                .into_iter()
                .map(|r| {
                    Ok(BoardInfo {
                        id: board_from_db(r.get(0))?,
                        seq: seq_from_db(r.get(1))?,
                        snapshot_seq: seq_from_db(r.get(2))?,
                        snapshot_objects: u64::try_from(r.get::<_, i64>(3)).unwrap_or(0),
                        created_at_ms: r.get(4),
                        updated_at_ms: r.get(5),
                    })
                })
                .collect()
        })
    }

    async fn delete_board(&self, board: &BoardId) -> Result<bool, StoreError> {
        let id = board.as_str();
        let epoch = self.held(board)?;
        let r = with_conn!(self, Slot::Others, true, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            if let Some(e) = epoch {
                check_epoch(&tx, board, e).await?;
            }
            let gone = tx
                .query("DELETE FROM boards WHERE id = $1 RETURNING epoch", &[&id])
                .await
                .map_err(pg_err)?;
            let n = gone.len();
            retire_epoch(&tx, board, gone.first().map_or(0, |r| r.get(0))).await?;
            tx.execute("DELETE FROM log WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            tx.execute("DELETE FROM snapshots WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            tx.execute("DELETE FROM board_assets WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            tx.execute("DELETE FROM versions WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            tx.execute("DELETE FROM comment_threads WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            tx.execute("DELETE FROM comment_notes WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            commit(tx, committing).await?;
            Ok(n > 0)
        });
        if r.is_ok() {
            self.forget(board);
        }
        self.settle(board, epoch, r)
    }

    async fn create_board(&self, board: &BoardId, snap: EncodedSnapshot) -> Result<(), StoreError> {
        let id = board.as_str();
        let crc = i64::from(snap.crc);
        let objects = i64::try_from(snap.objects).unwrap_or(i64::MAX);
        let now = now_ms();
        if let Some(epoch) = self.held(board)? {
            return self.create_fenced(board, snap, epoch).await;
        }
        with_conn!(self, Slot::Others, false, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            let n = tx
                .execute(
                    "INSERT INTO boards (id, created_at, updated_at, seq) VALUES ($1, $2, $2, 0) \
                     ON CONFLICT (id) DO NOTHING",
                    &[&id, &now],
                )
                .await
                .map_err(pg_err)?;
            if n == 0 {
                return Err(StoreError::Conflict(format!("board {id} exists")));
            }
            tx.execute("DELETE FROM log WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            tx.execute(
                "INSERT INTO snapshots (board, seq, payload, crc, objects) \
                 VALUES ($1, 0, $2, $3, $4) \
                 ON CONFLICT (board) DO UPDATE SET seq = 0, payload = EXCLUDED.payload, \
                 crc = EXCLUDED.crc, objects = EXCLUDED.objects",
                &[&id, &snap.payload, &crc, &objects],
            )
            .await
            .map_err(pg_err)?;
            commit(tx, committing).await
        })
    }

    async fn board_exists(&self, board: &BoardId) -> Result<bool, StoreError> {
        let id = board.as_str();
        with_conn!(self, Slot::Others, true, |c, committing| {
            c.client
                .query_opt("SELECT 1 FROM boards WHERE id = $1", &[&id])
                .await
                .map(|r| r.is_some())
                .map_err(pg_err)
        })
    }

    async fn save_version(&self, board: &BoardId, v: NewVersion) -> Result<i64, StoreError> {
        postgres_versions::save(self, board, v).await
    }

    async fn list_versions(&self, board: &BoardId) -> Result<Vec<VersionRow>, StoreError> {
        postgres_versions::list(self, board).await
    }

    async fn load_version(
        &self,
        board: &BoardId,
        id: i64,
    ) -> Result<Option<VersionRow>, StoreError> {
        postgres_versions::load(self, board, id).await
    }

    async fn put_asset(
        &self,
        board: &BoardId,
        meta: &super::AssetMeta,
        data: bytes::Bytes,
        now: i64,
    ) -> Result<bool, StoreError> {
        super::postgres_assets::put(self, board, meta, data, now).await
    }

    async fn register_asset(
        &self,
        board: &BoardId,
        sha256: &str,
        now: i64,
    ) -> Result<Option<bool>, StoreError> {
        super::postgres_assets::register(self, board, sha256, now).await
    }

    async fn board_assets(&self, board: &BoardId) -> Result<Vec<super::AssetMeta>, StoreError> {
        super::postgres_assets::of_board(self, board).await
    }

    async fn board_asset(
        &self,
        board: &BoardId,
        sha256: &str,
    ) -> Result<Option<super::AssetMeta>, StoreError> {
        super::postgres_assets::one_of_board(self, board, sha256).await
    }

    async fn stale_assets(
        &self,
        seen_before: i64,
        max: usize,
    ) -> Result<Vec<super::Stale>, StoreError> {
        super::postgres_assets::stale(self, seen_before, max).await
    }

    async fn mark_assets(
        &self,
        board: &BoardId,
        names: &[String],
        mark: super::Mark,
        now: i64,
    ) -> Result<u64, StoreError> {
        super::postgres_assets::mark(self, board, names, mark, now).await
    }

    async fn drop_orphan_assets(&self) -> Result<u64, StoreError> {
        super::postgres_assets::drop_orphans(self).await
    }

    async fn asset_bytes(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        super::postgres_assets::bytes_of(self, sha256).await
    }

    async fn delete_versions(&self, board: &BoardId, ids: Vec<i64>) -> Result<(), StoreError> {
        postgres_versions::delete(self, board, &ids).await
    }

    async fn save_thread(
        &self,
        board: &BoardId,
        row: ThreadRow,
        notes: Vec<Notification>,
    ) -> Result<(), StoreError> {
        postgres_comments::save(self, board, &row, &notes).await
    }

    async fn load_threads(&self, board: &BoardId) -> Result<Vec<ThreadRow>, StoreError> {
        postgres_comments::load(self, board).await
    }

    async fn notifications(&self, user: &str) -> Result<Vec<Notification>, StoreError> {
        postgres_comments::notes(self, user).await
    }

    async fn mark_read(
        &self,
        user: &str,
        threads: Option<Vec<String>>,
        now: i64,
    ) -> Result<(), StoreError> {
        postgres_comments::mark_read(self, user, threads.as_deref(), now).await
    }

    #[cfg(test)]
    async fn inject_raw_log_row(&self, board: &BoardId, row: RawRow) -> Result<(), StoreError> {
        let id = board.as_str();
        let seq = seq_to_db(row.seq)?;
        with_conn!(self, Slot::Others, false, |c, committing| {
            c.client
                .execute(
                    "INSERT INTO log (board, seq, payload, crc) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (board, seq) DO UPDATE SET payload = EXCLUDED.payload, \
                     crc = EXCLUDED.crc",
                    &[&id, &seq, &row.payload, &row.crc],
                )
                .await
                .map(|_| ())
                .map_err(pg_err)
        })
    }

    #[cfg(test)]
    async fn raw_log_seqs(&self, board: &BoardId) -> Result<Vec<Seq>, StoreError> {
        let id = board.as_str();
        with_conn!(self, Slot::Others, true, |c, committing| {
            c.client
                .query("SELECT seq FROM log WHERE board = $1 ORDER BY seq", &[&id])
                .await
                .map_err(pg_err)?
                .into_iter()
                .map(|r| seq_from_db(r.get(0)))
                .collect()
        })
    }
}
