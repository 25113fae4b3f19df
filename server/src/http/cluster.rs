//! Cluster mode's routes: `GET /api/cluster` (the admin token or a server owner): this node and
//! every node with its lease; and the `cluster` field of `GET /api/boards/{id}` (CLUSTER-14).

use super::ApiError;
use crate::shared::Shared;
use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use protocol::BoardId;
use serde_json::{Value, json};
use std::sync::Arc;

pub fn routes() -> Router<Arc<Shared>> {
    Router::new().route("/api/cluster", get(nodes))
}

/// `GET /api/cluster`: 404 without `--cluster`.
async fn nodes(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    super::admin_only(&shared, &headers, "the cluster view needs the admin token")?;
    let Some(node) = shared.cluster.get() else {
        return Err(ApiError::not_found("this server is not in cluster mode"));
    };
    let rows = crate::cluster::ledger(&shared.env)?.live_nodes().await?;
    let nodes: Vec<Value> = rows
        .into_iter()
        .map(|n| {
            json!({"id": n.id, "generation": n.generation,
                   "lease_expires_ms": n.lease_expires_ms, "boards_owned": n.boards_owned})
        })
        .collect();
    Ok(axum::Json(json!({"node": node.me.id, "nodes": nodes})).into_response())
}

/// `{"owner", "generation", "epoch"}` of a board; `owner` null when nobody live holds it.
pub async fn owner_json(shared: &Shared, id: &BoardId) -> Result<Value, ApiError> {
    let o = crate::cluster::ledger(&shared.env)?.owner_of(id).await?;
    let owner = o.as_ref().and_then(|o| o.owner());
    Ok(json!({
        "owner": owner.map(|o| o.node.clone()),
        "generation": owner.map(|o| o.generation),
        "epoch": o.map_or(0, |o| o.epoch),
    }))
}
