//! PostgreSQL's schema: the version this code writes, its migrations, and the check of a store's
//! schema name (each store may live in a schema of its own, see [`super::postgres`]).
//!
//! Several servers may start at once on an empty database: the whole setup (the schema, the
//! `schema_version` table, every migration) is one transaction under an advisory lock whose key
//! is derived from the schema name, so they apply it one after the other (CLUSTER-5).

use super::StoreError;
use super::postgres::pg_err;
use tokio_postgres::Client;

/// The schema version this code writes.
pub(super) const SCHEMA_VERSION: i32 = 6;

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

/// Version 3: cluster mode's ownership and fencing (`cluster.rs`, docs/CLUSTER.md): a board's
/// owner (node and process generation) and its fencing epoch, bumped by every takeover; the
/// nodes and their leases (on the database's clock); the last epoch of each deleted board that
/// was ever owned, so a board created again under the same id never reuses an epoch.
const MIGRATION_3: &str = "
ALTER TABLE boards
    ADD COLUMN owner_node TEXT NULL,
    ADD COLUMN owner_gen  BIGINT NULL,
    ADD COLUMN epoch      BIGINT NOT NULL DEFAULT 0;
CREATE INDEX boards_owner ON boards (owner_node) WHERE owner_node IS NOT NULL;
CREATE TABLE nodes (
    id            TEXT PRIMARY KEY,
    generation    BIGINT NOT NULL,
    lease_expires TIMESTAMPTZ NOT NULL,
    started_at    TIMESTAMPTZ NOT NULL
);
CREATE TABLE retired_epochs (
    board TEXT PRIMARY KEY,
    epoch BIGINT NOT NULL
);
";

/// The first key of the setup's advisory lock (two-key form, so it never meets the one-key
/// locks of `postgres_versions.rs`): "STOR".
const SETUP_LOCK: i32 = 0x5354_4f52;

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

/// Brings the database to [`SCHEMA_VERSION`]: creates the schema (when the store has one) and
/// `schema_version` if needed and applies the missing migrations, all in one transaction under
/// an advisory lock on a key derived from the schema name, so servers opening the same
/// database at once serialize (the second finds everything done).
pub(super) async fn migrate(client: &Client, schema: Option<&str>) -> Result<(), StoreError> {
    let key = setup_key(schema);
    let mut begin = format!("BEGIN; SELECT pg_advisory_xact_lock({SETUP_LOCK}, {key});");
    if let Some(s) = schema {
        check_schema(s)?;
        begin.push_str(&format!("CREATE SCHEMA IF NOT EXISTS \"{s}\";"));
    }
    begin.push_str(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
         LOCK TABLE schema_version IN EXCLUSIVE MODE;",
    );
    if let Err(e) = client.batch_execute(&begin).await {
        let _ = client.batch_execute("ROLLBACK").await;
        return Err(pg_err(e));
    }
    let result = apply(client).await;
    let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
    client.batch_execute(end).await.map_err(pg_err)?;
    result
}

/// The second key of the setup lock: the schema name's CRC-32 (the same in every process).
fn setup_key(schema: Option<&str>) -> i32 {
    i32::from_ne_bytes(crc32fast::hash(schema.unwrap_or("").as_bytes()).to_ne_bytes())
}

/// The migrations `schema_version` does not list yet (inside [`migrate`]'s transaction).
async fn apply(client: &Client) -> Result<(), StoreError> {
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
    let migrations: [(i32, &str); 6] = [
        (1, MIGRATION_1),
        // Version 2: board versions (HIST-1).
        (2, super::postgres_versions::TABLE),
        (3, MIGRATION_3),
        // Version 4: pictures (ASSET-1).
        (4, super::postgres_assets::TABLES),
        // Version 5: the picture sweep's columns (ASSET-11).
        (5, super::postgres_assets::SWEEP_COLUMNS),
        // Version 6, "comments": comment threads and notifications (COMMENT-n).
        (6, super::postgres_comments::TABLES),
    ];
    for (v, sql) in migrations {
        if version < v {
            client.batch_execute(sql).await.map_err(pg_err)?;
            client
                .execute("INSERT INTO schema_version (version) VALUES ($1)", &[&v])
                .await
                .map_err(pg_err)?;
            tracing::info!("postgres store: applied schema migration {v}");
        }
    }
    Ok(())
}
