//! `GET /health`.

use super::SharedState;
use crate::error::ApiResult;
use crate::store::SourceRecord;
use axum::Json;
use axum::extract::State;
use serde::Serialize;

/// Liveness and what is loaded.
#[derive(Debug, Serialize)]
pub struct HealthResponse {
    status: &'static str,
    version: &'static str,
    store_backend: &'static str,
    triples: usize,
    classes: usize,
    topology: TopologySummary,
    sources: Vec<SourceRecord>,
    uptime_s: u64,
}

#[derive(Debug, Serialize)]
struct TopologySummary {
    nodes: usize,
    edges: usize,
}

pub(super) async fn health(State(state): State<SharedState>) -> ApiResult<Json<HealthResponse>> {
    let topology = state.topology();
    Ok(Json(HealthResponse {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
        store_backend: state.store.backend(),
        triples: state.store.len().await?,
        classes: state.ontology().class_count(),
        topology: TopologySummary {
            nodes: topology.node_count(),
            edges: topology.edge_count(),
        },
        sources: state.store.sources().await?,
        uptime_s: state.started.elapsed().as_secs(),
    }))
}
