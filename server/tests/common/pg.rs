//! PostgreSQL for the tests that use the real server on it (trust auth on 127.0.0.1, database
//! `test`); each test works in a schema of its own. `STORE_TEST_NO_PG=1` skips them.

use super::{STEP, config};

pub const PG_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// Whether PostgreSQL tests are to be skipped (`STORE_TEST_NO_PG=1`).
pub fn no_pg() -> bool {
    std::env::var("STORE_TEST_NO_PG").is_ok_and(|v| v == "1")
}

/// True (after saying so) when PostgreSQL tests are skipped; `what` names the test.
pub fn skip_without_pg(what: &str) -> bool {
    if no_pg() {
        println!("STORE_TEST_NO_PG=1: skipping the PostgreSQL {what} test");
    }
    no_pg()
}

/// A fresh schema name.
pub fn pg_schema() -> String {
    format!("t_{}", uuid::Uuid::new_v4().simple())
}

pub async fn pg_client() -> tokio_postgres::Client {
    let (client, conn) =
        tokio::time::timeout(STEP, tokio_postgres::connect(PG_URL, tokio_postgres::NoTls))
            .await
            .unwrap()
            .unwrap();
    tokio::spawn(conn);
    client
}

pub async fn drop_schema(schema: &str) {
    let c = pg_client().await;
    let _ = c
        .batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
        .await;
}

/// Terminates every PostgreSQL backend of the store; returns how many.
pub async fn terminate_backends(app: &str) -> i64 {
    let c = pg_client().await;
    let rows = c
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            &[&app],
        )
        .await
        .unwrap();
    rows.len() as i64
}

pub fn pg_config(schema: &str) -> server::Config {
    let mut cfg = config();
    cfg.memory_store = false;
    cfg.database_url = Some(PG_URL.into());
    cfg.database_schema = Some(schema.into());
    // While the store recovers every commit is rejected at once; the client's retries must not
    // trip the per-connection rate limit.
    cfg.rate_limit_per_sec = 1_000_000;
    cfg.rate_burst = 1_000_000;
    cfg
}

/// Stalls the server's log writer: a transaction of the test's own takes the log table, so the
/// next append waits until the returned client ends it (`COMMIT` or `ROLLBACK`).
pub async fn stall_log_writer(schema: &str) -> tokio_postgres::Client {
    let blocker = pg_client().await;
    blocker
        .batch_execute(&format!(
            "BEGIN; LOCK TABLE \"{schema}\".log IN EXCLUSIVE MODE"
        ))
        .await
        .unwrap();
    blocker
}
