//! The auth store's backends: SQL run against SQLite (a file `auth.db` beside the board
//! database, or in memory for `--memory-store`) or PostgreSQL (its own connection, in the board
//! store's schema). One dialect serves both: `$n` parameters (rewritten to SQLite's `?n`),
//! `BIGINT` and `TEXT` columns, `ON CONFLICT` and `RETURNING`. The operations on these tables
//! are in `data.rs`.

use std::path::Path;
use std::sync::Arc;

/// The auth store failed (database down, disk error).
#[derive(Debug, Clone, thiserror::Error)]
#[error("auth store unavailable: {0}")]
pub struct AuthStoreError(pub String);

fn sql_err(e: impl std::fmt::Display) -> AuthStoreError {
    AuthStoreError(e.to_string())
}

/// A parameter or column value: a nullable integer or a nullable text.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    I(Option<i64>),
    T(Option<String>),
}

impl From<i64> for Val {
    fn from(v: i64) -> Self {
        Val::I(Some(v))
    }
}
impl From<&str> for Val {
    fn from(v: &str) -> Self {
        Val::T(Some(v.to_owned()))
    }
}
impl From<String> for Val {
    fn from(v: String) -> Self {
        Val::T(Some(v))
    }
}
impl From<Option<i64>> for Val {
    fn from(v: Option<i64>) -> Self {
        Val::I(v)
    }
}
impl From<Option<String>> for Val {
    fn from(v: Option<String>) -> Self {
        Val::T(v)
    }
}

/// One result row.
#[derive(Debug, Clone)]
pub struct Row(Vec<Val>);

impl Row {
    /// Column `k` as an integer (None if NULL, missing or text).
    pub fn i(&self, k: usize) -> Option<i64> {
        match self.0.get(k) {
            Some(Val::I(v)) => *v,
            _ => None,
        }
    }

    /// Column `k` as text (None if NULL, missing or an integer).
    pub fn t(&self, k: usize) -> Option<String> {
        match self.0.get(k) {
            Some(Val::T(v)) => v.clone(),
            _ => None,
        }
    }

    /// Column `k` as text, empty when NULL.
    pub fn s(&self, k: usize) -> String {
        self.t(k).unwrap_or_default()
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS auth_meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS auth_users (id TEXT PRIMARY KEY, name TEXT NOT NULL,
    kind TEXT NOT NULL, created_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS auth_sessions (hash TEXT PRIMARY KEY, user_id TEXT NOT NULL,
    expires_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS auth_login_codes (hash TEXT PRIMARY KEY, user_id TEXT NOT NULL,
    expires_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS board_meta (id TEXT PRIMARY KEY, title TEXT NOT NULL,
    owner TEXT NOT NULL, created_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS board_members (board TEXT NOT NULL, user_id TEXT NOT NULL,
    role TEXT NOT NULL, link_id TEXT, PRIMARY KEY (board, user_id));
CREATE TABLE IF NOT EXISTS share_links (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE,
    board TEXT NOT NULL, role TEXT NOT NULL, expires_at BIGINT, revoked BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS share_links_board ON share_links (board);
CREATE INDEX IF NOT EXISTS board_members_user ON board_members (user_id);
";

/// The first key of the auth schema's setup lock ("AUTH"; the board store's is "STOR").
const AUTH_SETUP_LOCK: i32 = 0x4155_5448;

/// PostgreSQL: one client, reconnected when it broke.
struct Pg {
    url: String,
    schema: Option<String>,
    client: tokio::sync::Mutex<Option<tokio_postgres::Client>>,
}

impl Pg {
    async fn connect(&self) -> Result<tokio_postgres::Client, AuthStoreError> {
        let (client, conn) = tokio_postgres::connect(&self.url, tokio_postgres::NoTls)
            .await
            .map_err(sql_err)?;
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::warn!(error = %e, "auth store connection ended");
            }
        });
        // One transaction under an advisory lock on the schema's name: servers starting at once
        // on an empty database (a cluster's nodes) create the schema and tables one at a time.
        let name = self.schema.as_deref().unwrap_or("");
        let mut setup = format!(
            "SET application_name = 'board-auth'; BEGIN; \
             SELECT pg_advisory_xact_lock({AUTH_SETUP_LOCK}, hashtext('{name}'));"
        );
        if let Some(s) = &self.schema {
            setup.push_str(&format!(
                "CREATE SCHEMA IF NOT EXISTS \"{s}\"; SET search_path TO \"{s}\";"
            ));
        }
        setup.push_str(SCHEMA);
        setup.push_str("COMMIT;");
        if let Err(e) = client.batch_execute(&setup).await {
            let _ = client.batch_execute("ROLLBACK").await;
            return Err(sql_err(e));
        }
        Ok(client)
    }

    async fn run(
        &self,
        sql: &str,
        params: &[Val],
        rows: bool,
    ) -> Result<(u64, Vec<Row>), AuthStoreError> {
        use tokio_postgres::types::{ToSql, Type};
        let mut guard = self.client.lock().await;
        if guard.as_ref().is_none_or(|c| c.is_closed()) {
            *guard = Some(self.connect().await?);
        }
        let Some(client) = guard.as_ref() else {
            return Err(AuthStoreError("no connection".into()));
        };
        let args: Vec<&(dyn ToSql + Sync)> = params
            .iter()
            .map(|v| match v {
                Val::I(i) => i as &(dyn ToSql + Sync),
                Val::T(t) => t as &(dyn ToSql + Sync),
            })
            .collect();
        if !rows {
            let n = client.execute(sql, &args).await.map_err(sql_err)?;
            return Ok((n, Vec::new()));
        }
        let found = client.query(sql, &args).await.map_err(sql_err)?;
        let mut out = Vec::with_capacity(found.len());
        for r in &found {
            let mut row = Vec::with_capacity(r.len());
            for (k, col) in r.columns().iter().enumerate() {
                if *col.type_() == Type::INT8 || *col.type_() == Type::INT4 {
                    let v: Option<i64> = if *col.type_() == Type::INT4 {
                        r.try_get::<_, Option<i32>>(k)
                            .map_err(sql_err)?
                            .map(i64::from)
                    } else {
                        r.try_get(k).map_err(sql_err)?
                    };
                    row.push(Val::I(v));
                } else {
                    row.push(Val::T(r.try_get(k).map_err(sql_err)?));
                }
            }
            out.push(Row(row));
        }
        Ok((out.len() as u64, out))
    }
}

enum Backend {
    Sqlite(Arc<std::sync::Mutex<rusqlite::Connection>>),
    Postgres(Box<Pg>),
}

/// The auth store: accounts, sessions, login codes, board titles and owners, members and share
/// links, and the token signing key.
pub struct AuthStore {
    backend: Backend,
}

fn sqlite_run(
    conn: &rusqlite::Connection,
    sql: &str,
    params: &[Val],
    rows: bool,
) -> Result<(u64, Vec<Row>), AuthStoreError> {
    let sql = sql.replace('$', "?");
    let mut stmt = conn.prepare_cached(&sql).map_err(sql_err)?;
    let args = params.iter().map(|v| match v {
        Val::I(i) => rusqlite::types::Value::from(*i),
        Val::T(t) => rusqlite::types::Value::from(t.clone()),
    });
    if !rows {
        let n = stmt
            .execute(rusqlite::params_from_iter(args))
            .map_err(sql_err)?;
        return Ok((n as u64, Vec::new()));
    }
    let cols = stmt.column_count();
    let mut found = stmt
        .query(rusqlite::params_from_iter(args))
        .map_err(sql_err)?;
    let mut out = Vec::new();
    while let Some(r) = found.next().map_err(sql_err)? {
        let mut row = Vec::with_capacity(cols);
        for k in 0..cols {
            use rusqlite::types::ValueRef;
            row.push(match r.get_ref(k).map_err(sql_err)? {
                ValueRef::Integer(i) => Val::I(Some(i)),
                ValueRef::Null => Val::T(None),
                ValueRef::Text(t) => Val::T(Some(String::from_utf8_lossy(t).into_owned())),
                ValueRef::Real(f) => Val::I(Some(f as i64)),
                ValueRef::Blob(b) => Val::T(Some(String::from_utf8_lossy(b).into_owned())),
            });
        }
        out.push(Row(row));
    }
    Ok((out.len() as u64, out))
}

impl AuthStore {
    /// An in-memory SQLite database (with `--memory-store`; nothing survives a restart).
    pub fn memory() -> Result<AuthStore, AuthStoreError> {
        let conn = rusqlite::Connection::open_in_memory().map_err(sql_err)?;
        conn.execute_batch(SCHEMA).map_err(sql_err)?;
        Ok(AuthStore {
            backend: Backend::Sqlite(Arc::new(std::sync::Mutex::new(conn))),
        })
    }

    /// `auth.db` in `dir` (created with the directory if missing), in WAL mode.
    pub async fn sqlite(dir: &Path) -> Result<AuthStore, AuthStoreError> {
        let dir = dir.to_path_buf();
        let conn = tokio::task::spawn_blocking(move || {
            std::fs::create_dir_all(&dir).map_err(sql_err)?;
            let conn = rusqlite::Connection::open(dir.join("auth.db")).map_err(sql_err)?;
            conn.busy_timeout(std::time::Duration::from_secs(5))
                .map_err(sql_err)?;
            // Like the board store: a restart on a full disk must still read it (DUR-8).
            crate::store::sqlite::keep_wal_files(&conn).map_err(sql_err)?;
            conn.pragma_update(None, "journal_mode", "WAL")
                .map_err(sql_err)?;
            conn.pragma_update(None, "synchronous", "FULL")
                .map_err(sql_err)?;
            conn.execute_batch(SCHEMA).map_err(sql_err)?;
            Ok::<_, AuthStoreError>(conn)
        })
        .await
        .map_err(sql_err)??;
        Ok(AuthStore {
            backend: Backend::Sqlite(Arc::new(std::sync::Mutex::new(conn))),
        })
    }

    /// PostgreSQL at `url`, in `schema` (created if missing) when given.
    pub async fn postgres(url: &str, schema: Option<&str>) -> Result<AuthStore, AuthStoreError> {
        if let Some(s) = schema
            && !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(AuthStoreError(format!("bad schema name {s:?}")));
        }
        let pg = Pg {
            url: url.to_owned(),
            schema: schema.map(str::to_owned),
            client: tokio::sync::Mutex::new(None),
        };
        let client = pg.connect().await?;
        *pg.client.lock().await = Some(client);
        Ok(AuthStore {
            backend: Backend::Postgres(Box::new(pg)),
        })
    }

    /// The backend's name, for logs.
    pub fn kind(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    async fn run(
        &self,
        sql: &'static str,
        params: Vec<Val>,
        rows: bool,
    ) -> Result<(u64, Vec<Row>), AuthStoreError> {
        match &self.backend {
            Backend::Sqlite(conn) => {
                let conn = conn.clone();
                tokio::task::spawn_blocking(move || {
                    let guard = conn
                        .lock()
                        .map_err(|_| AuthStoreError("auth store lock poisoned".into()))?;
                    sqlite_run(&guard, sql, &params, rows)
                })
                .await
                .map_err(sql_err)?
            }
            Backend::Postgres(pg) => pg.run(sql, &params, rows).await,
        }
    }

    /// Runs a statement; returns the number of rows it changed.
    pub async fn exec(&self, sql: &'static str, params: Vec<Val>) -> Result<u64, AuthStoreError> {
        Ok(self.run(sql, params, false).await?.0)
    }

    /// Runs a query (or a statement with `RETURNING`); returns its rows.
    pub async fn query(
        &self,
        sql: &'static str,
        params: Vec<Val>,
    ) -> Result<Vec<Row>, AuthStoreError> {
        Ok(self.run(sql, params, true).await?.1)
    }
}
