//! Every HTTP route of the server, behind one edge layer ([`edge::guard`]): the WebSocket
//! upgrade, health, metrics, the board API, sign-in, sharing, versions, export and import, and
//! the browser client.
//!
//! - [`edge`]: body limits and deadlines, `--auth off`'s checks, the throttle on failed
//!   credentials, the headers of every answer.
//! - [`caller`]: the credentials of a request and the checks a route makes of its caller.
//! - [`ws`]: `/ws/boards/{id}`; [`boards`]: `/api/boards[/{id}]`; [`export`]: export and import
//!   files; [`versions`]: version history; [`sign_in`]: sign-in, identity, tokens; [`share`]:
//!   links and members; [`assets`]: the browser client.

pub mod assets;
pub mod boards;
pub mod caller;
pub mod edge;
pub mod export;
pub mod share;
pub mod sign_in;
pub mod versions;
pub mod ws;

use crate::shared::Shared;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use protocol::ErrorCode;
use serde_json::json;
use std::sync::Arc;

/// A JSON error response with a stable code.
pub fn json_error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    (
        status,
        axum::Json(json!({"error": {"code": code, "message": message.into()}})),
    )
        .into_response()
}

pub fn router(shared: Arc<Shared>, net: Arc<crate::net::Net>) -> Router {
    Router::new()
        .route("/ws/boards/{board_id}", get(ws::ws))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .merge(boards::routes())
        .merge(versions::routes())
        .merge(export::routes())
        .merge(sign_in::routes())
        .merge(share::routes())
        .merge(assets::routes())
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
    axum::Json(json!({"status": "ok", "boards": shared.registry.len()})).into_response()
}

/// `/metrics` on the main port: the admin token only (or use `--metrics-listen`).
async fn metrics(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if shared.auth.on {
        let admin = crate::http::caller::bearer(&headers)
            .and_then(|t| shared.auth.bearer(t))
            .is_some_and(|p| matches!(p, crate::auth::Principal::Admin));
        if !admin {
            return json_error(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "metrics need the admin token (or --metrics-listen)",
            );
        }
    }
    open_metrics(State(shared)).await
}

async fn open_metrics(State(shared): State<Arc<Shared>>) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        shared.metrics.render(),
    )
        .into_response()
}
