//! Every HTTP route of the server, behind one edge layer ([`edge::guard`]): the WebSocket
//! upgrade, health, metrics, the board API, sign-in, sharing, versions, export and import, and
//! the browser client.
//!
//! - [`ApiError`]: the one error answer (`{"error": {"code", "message"}}`, ERR-1); every handler
//!   returns `Result<Response, ApiError>`.
//! - [`edge`]: body limits and deadlines, `--auth off`'s checks, the throttle on failed
//!   credentials, the headers of every answer.
//! - [`caller`]: the credentials of a request and the checks a route makes of its caller.
//! - [`ws`]: `/ws/boards/{id}`; [`boards`]: `/api/boards[/{id}]`; [`export`]: export and import
//!   files; [`versions`]: version history; [`sign_in`]: sign-in, identity, tokens; [`share`]:
//!   links and members; [`comments`]: comment threads and notifications; [`assets`]: the
//!   browser client. Health and metrics are here.
//!
//! Handlers reach a board through `shared.registry` (`get`, `loaded`) and its actor's `send`.

pub mod assets;
pub mod boards;
pub mod caller;
pub mod cluster;
pub mod comments;
pub mod edge;
mod error;
pub mod export;
pub mod pictures;
pub mod share;
pub mod sign_in;
pub mod versions;
pub mod ws;

pub use error::ApiError;

use crate::shared::Shared;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;
use std::sync::Arc;

pub fn router(shared: Arc<Shared>, net: Arc<crate::net::Net>) -> Router {
    Router::new()
        .route("/ws/boards/{board_id}", get(ws::ws))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .merge(boards::routes())
        .merge(versions::routes())
        .merge(comments::routes())
        .merge(export::routes())
        .merge(sign_in::routes())
        .merge(share::routes())
        .merge(assets::routes())
        .merge(pictures::routes())
        .merge(cluster::routes())
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            edge::guard,
        ))
        .layer(axum::Extension(net))
        .with_state(shared)
}

/// `/metrics` alone, without credentials (served on `--metrics-listen`).
pub fn metrics_router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/metrics", get(open_metrics))
        .with_state(shared)
}

async fn healthz(State(shared): State<Arc<Shared>>) -> Response {
    let boards = shared.registry.len();
    if shared.config.cluster && !shared.cluster.get().is_some_and(|n| n.healthy()) {
        // Not joined yet, fenced, or NATS unreachable (CLUSTER-9).
        let body = json!({"status": "unavailable", "boards": boards});
        return (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(body),
        )
            .into_response();
    }
    axum::Json(json!({"status": "ok", "boards": boards})).into_response()
}

/// `/metrics` on the main port: the admin token only (or use `--metrics-listen`).
async fn metrics(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    admin_only(
        &shared,
        &headers,
        "metrics need the admin token (or --metrics-listen)",
    )?;
    Ok(open_metrics(State(shared)).await)
}

/// With access control on, only the admin token passes (401 with `refusal` otherwise).
fn admin_only(shared: &Shared, headers: &HeaderMap, refusal: &str) -> Result<(), ApiError> {
    if shared.auth.on {
        let admin = caller::bearer(headers)
            .and_then(|t| shared.auth.bearer(t))
            .is_some_and(|p| matches!(p, crate::auth::Principal::Admin));
        if !admin {
            return Err(ApiError::unauthorized(refusal));
        }
    }
    Ok(())
}

async fn open_metrics(State(shared): State<Arc<Shared>>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        shared.metrics.render(),
    )
        .into_response()
}
