//! The PostgreSQL backend (tokio-postgres, `NoTls`). Two connections: one for appends (the log
//! writer's path) and one for everything else, so a large snapshot never delays a commit. Each
//! is opened on demand: a connection that dropped (server restart, terminated backend) is
//! replaced on the next call. An operation that fails on a broken connection returns
//! [`StoreError::Unavailable`]; read-only operations retry once on a fresh connection.
//! With a `schema`, the schema is created at open and every connection runs
//! `SET search_path TO "<schema>"`, so a store sees only its own tables.

use super::backend::Backend;
use super::postgres_schema::{check_schema, migrate};
use super::postgres_versions;
use super::versions::{NewVersion, VersionRow};
use super::{
    BoardInfo, EncodedRecord, EncodedSnapshot, LoadedBoard, RawRow, StoreError, Truncation,
    batch_ranges, board_from_db, check_tail, decode_snapshot, now_ms, repair_reason, seq_from_db,
    seq_to_db, warn_truncated,
};
use protocol::{BoardId, Seq};
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

/// Runs `$body` (an async block body using `$c: &mut Conn`) on a live connection of the slot,
/// connecting if needed. A failed connection is dropped so the next call reconnects. When a
/// connection that was already open fails, the body runs once more on a new one if
/// nothing can have been committed (`$committing`, set by [`commit`], is still false) or the
/// operation is idempotent (`$idempotent`). The whole call, waits for the slot and the
/// connection included, ends within `$budget` (the store's deadline unless given, STORE-29):
/// past it the statement under way is cancelled on the server and its connection dropped, so
/// that the next call neither queues behind it nor finds its locks still held.
macro_rules! with_conn {
    ($self:ident, $writes:expr, $idempotent:expr, |$c:ident, $committing:ident| $body:block) => {
        with_conn!($self, $writes, $idempotent, $self.inner.timeout, |$c, $committing| $body)
    };
    ($self:ident, $writes:expr, $idempotent:expr, $budget:expr, |$c:ident, $committing:ident| $body:block) => {{
        let budget: std::time::Duration = $budget;
        let until = tokio::time::Instant::now() + budget;
        let Ok(mut guard) = tokio::time::timeout_at(until, $self.slot($writes).lock()).await else {
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
}

pub(super) struct Inner {
    url: String,
    /// The deadline of every call (STORE-29).
    pub(super) timeout: std::time::Duration,
    schema: Option<String>,
    writes: Mutex<Option<Conn>>,
    others: Mutex<Option<Conn>>,
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
        _ => StoreError::Unavailable(detail),
    }
}

impl PgStore {
    pub(super) async fn open(
        url: &str,
        schema: Option<&str>,
        timeout: std::time::Duration,
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
            }),
        };
        let opened = tokio::time::timeout(timeout, async {
            let conn = store.connect(true).await?;
            migrate(&conn.client).await?;
            Ok::<_, StoreError>(conn)
        });
        let conn = opened.await.map_err(|_| super::timed_out(timeout))??;
        *store.inner.others.lock().await = Some(conn);
        tracing::info!(
            schema = schema.unwrap_or("(default)"),
            "postgres store open"
        );
        Ok(store)
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

    async fn connect(&self, create_schema: bool) -> Result<Conn, StoreError> {
        let (client, connection) = tokio_postgres::connect(&self.inner.url, NoTls)
            .await
            .map_err(pg_err)?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::warn!(error = %e, "postgres connection ended");
            }
        });
        let mut setup = format!("SET application_name = '{}';", self.application_name());
        if let Some(s) = &self.inner.schema {
            if create_schema {
                setup.push_str(&format!("CREATE SCHEMA IF NOT EXISTS \"{s}\";"));
            }
            setup.push_str(&format!("SET search_path TO \"{s}\";"));
        }
        client.batch_execute(&setup).await.map_err(pg_err)?;
        // The tables exist only after the migration: prepare lazily on first use otherwise.
        let prepare = async {
            Ok::<_, tokio_postgres::Error>((
                client.prepare(SQL_CHECK).await?,
                client.prepare(SQL_UPSERT_BOARDS).await?,
                client.prepare(SQL_INSERT_LOG).await?,
            ))
        };
        let (check, upsert_boards, insert_log) = match prepare.await {
            Ok(s) => s,
            Err(e) if e.code() == Some(&SqlState::UNDEFINED_TABLE) && create_schema => {
                migrate(&client).await?;
                (
                    client.prepare(SQL_CHECK).await.map_err(pg_err)?,
                    client.prepare(SQL_UPSERT_BOARDS).await.map_err(pg_err)?,
                    client.prepare(SQL_INSERT_LOG).await.map_err(pg_err)?,
                )
            }
            Err(e) => return Err(pg_err(e)),
        };
        Ok(Conn {
            client,
            check,
            upsert_boards,
            insert_log,
        })
    }

    pub(super) fn slot(&self, writes: bool) -> &Mutex<Option<Conn>> {
        if writes {
            &self.inner.writes
        } else {
            &self.inner.others
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
    /// oldest command; otherwise the store's deadline).
    async fn append_within(
        &self,
        rows: Vec<EncodedRecord>,
        budget: std::time::Duration,
    ) -> Result<(), StoreError> {
        let ranges = batch_ranges(&rows)?;
        let ids: Vec<&str> = ranges.iter().map(|(b, _, _)| b.as_str()).collect();
        let los = ranges
            .iter()
            .map(|(_, lo, _)| seq_to_db(*lo))
            .collect::<Result<Vec<i64>, _>>()?;
        let his = ranges
            .iter()
            .map(|(_, _, hi)| seq_to_db(*hi))
            .collect::<Result<Vec<i64>, _>>()?;
        let boards: Vec<&str> = rows.iter().map(|r| r.board.as_str()).collect();
        let seqs = rows
            .iter()
            .map(|r| seq_to_db(r.seq))
            .collect::<Result<Vec<i64>, _>>()?;
        let payloads: Vec<&[u8]> = rows.iter().map(|r| &r.payload[..]).collect();
        let crcs: Vec<i64> = rows.iter().map(|r| i64::from(r.crc)).collect();
        let now = now_ms();
        with_conn!(self, true, false, budget, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            let conflicts = tx.query(&c.check, &[&ids, &los]).await.map_err(pg_err)?;
            if let Some(row) = conflicts.first() {
                let (id, cur, lo): (String, i64, i64) = (row.get(0), row.get(1), row.get(2));
                return Err(StoreError::Conflict(format!(
                    "board {id}: seq {lo} is not after the stored seq {cur}"
                )));
            }
            tx.execute(&c.upsert_boards, &[&ids, &his, &now])
                .await
                .map_err(pg_err)?;
            tx.execute(&c.insert_log, &[&boards, &seqs, &payloads, &crcs])
                .await
                .map_err(pg_err)?;
            commit(tx, committing).await
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
        with_conn!(self, false, true, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            let Some(b) = tx
                .query_opt("SELECT seq FROM boards WHERE id = $1 FOR UPDATE", &[&id])
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
                    &[&id, &seq_to_db(snapshot_seq)?],
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
            let checked = check_tail(snapshot_seq, rows);
            let mut truncated = None;
            if let Some(reason) = repair_reason(&checked, recorded) {
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
        with_conn!(self, false, true, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
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
                &[&id, &seq],
            )
            .await
            .map_err(pg_err)?;
            commit(tx, committing).await
        })
    }

    async fn truncate_after(&self, board: &BoardId, seq: Seq) -> Result<(), StoreError> {
        let id = board.as_str();
        let seq = seq_to_db(seq)?;
        let now = now_ms();
        with_conn!(self, false, true, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
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
        })
    }

    async fn list_boards(&self) -> Result<Vec<BoardInfo>, StoreError> {
        with_conn!(self, false, true, |c, committing| {
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
        with_conn!(self, false, true, |c, committing| {
            let tx = c.client.transaction().await.map_err(pg_err)?;
            let n = tx
                .execute("DELETE FROM boards WHERE id = $1", &[&id])
                .await
                .map_err(pg_err)?;
            tx.execute("DELETE FROM log WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            tx.execute("DELETE FROM snapshots WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            tx.execute("DELETE FROM versions WHERE board = $1", &[&id])
                .await
                .map_err(pg_err)?;
            commit(tx, committing).await?;
            Ok(n > 0)
        })
    }

    async fn create_board(&self, board: &BoardId, snap: EncodedSnapshot) -> Result<(), StoreError> {
        let id = board.as_str();
        let crc = i64::from(snap.crc);
        let objects = i64::try_from(snap.objects).unwrap_or(i64::MAX);
        let now = now_ms();
        with_conn!(self, false, false, |c, committing| {
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
        with_conn!(self, false, true, |c, committing| {
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

    async fn delete_versions(&self, board: &BoardId, ids: Vec<i64>) -> Result<(), StoreError> {
        postgres_versions::delete(self, board, &ids).await
    }

    #[cfg(test)]
    async fn inject_raw_log_row(&self, board: &BoardId, row: RawRow) -> Result<(), StoreError> {
        let id = board.as_str();
        let seq = seq_to_db(row.seq)?;
        with_conn!(self, false, false, |c, committing| {
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
        with_conn!(self, false, true, |c, committing| {
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
