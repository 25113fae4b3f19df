//! PostgreSQL's schema: the version this code writes, its migrations, and the check of a store's
//! schema name (each store may live in a schema of its own, see [`super::postgres`]).

use super::StoreError;
use super::postgres::pg_err;
use tokio_postgres::Client;

/// The schema version this code writes.
const SCHEMA_VERSION: i32 = 2;

/// Version 1: boards, their log and their latest snapshot.
const MIGRATION_1: &str = "
CREATE TABLE boards (
    id         TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    seq        BIGINT NOT NULL
);
CREATE TABLE log (
    board   TEXT NOT NULL,
    seq     BIGINT NOT NULL,
    payload BYTEA NOT NULL,
    crc     BIGINT NOT NULL,
    PRIMARY KEY (board, seq)
);
CREATE TABLE snapshots (
    board   TEXT PRIMARY KEY,
    seq     BIGINT NOT NULL,
    payload BYTEA NOT NULL,
    crc     BIGINT NOT NULL,
    objects BIGINT NOT NULL
);
";

/// Accepts `[A-Za-z_][A-Za-z0-9_]{0,62}`, so the name can be quoted safely.
pub(super) fn check_schema(s: &str) -> Result<(), StoreError> {
    let ok = !s.is_empty()
        && s.len() <= 63
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !s.as_bytes()[0].is_ascii_digit();
    if ok {
        Ok(())
    } else {
        Err(StoreError::Conflict(format!("invalid schema name {s:?}")))
    }
}

/// Brings the database to [`SCHEMA_VERSION`]: creates `schema_version` if needed and applies
/// the missing migrations in one transaction, under a lock that serializes servers opening the
/// same database at once.
pub(super) async fn migrate(client: &Client) -> Result<(), StoreError> {
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
             BEGIN;
             LOCK TABLE schema_version IN EXCLUSIVE MODE;",
        )
        .await
        .map_err(pg_err)?;
    let result = async {
        let version: i32 = client
            .query_one("SELECT coalesce(max(version), 0) FROM schema_version", &[])
            .await
            .map_err(pg_err)?
            .get(0);
        if version > SCHEMA_VERSION {
            return Err(StoreError::Corrupt(format!(
                "database schema version {version} is newer than this server's \
                 ({SCHEMA_VERSION})"
            )));
        }
        if version < 1 {
            client.batch_execute(MIGRATION_1).await.map_err(pg_err)?;
            client
                .execute("INSERT INTO schema_version (version) VALUES (1)", &[])
                .await
                .map_err(pg_err)?;
            tracing::info!("postgres store: applied schema migration 1");
        }
        if version < 2 {
            // Version 2: board versions (HIST-1).
            client
                .batch_execute(super::postgres_versions::TABLE)
                .await
                .map_err(pg_err)?;
            client
                .execute("INSERT INTO schema_version (version) VALUES (2)", &[])
                .await
                .map_err(pg_err)?;
            tracing::info!("postgres store: applied schema migration 2");
        }
        Ok(())
    }
    .await;
    let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
    client.batch_execute(end).await.map_err(pg_err)?;
    result
}
