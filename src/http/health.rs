//! `GET /health`.

use super::SharedState;
use super::error::ApiResult;
use crate::store::SourceRecord;
use axum::Json;
use axum::extract::State;
use serde::Serialize;

/// Liveness and what is loaded.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct HealthResponse {
    status: &'static str,
    version: &'static str,
    store_backend: &'static str,
    triples: usize,
    classes: usize,
    topology: TopologySummary,
    sources: Vec<SourceRecord>,
    vector_index: Option<IndexSummary>,
    uptime_s: u64,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
struct IndexSummary {
    backend: &'static str,
    model: String,
    dimension: usize,
    points: usize,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
struct TopologySummary {
    nodes: usize,
    edges: usize,
}

/// Liveness: what is loaded and how big it is. Public, also when API keys
/// are set.
#[utoipa::path(
    get,
    path = "/health",
    tag = "service",
    responses(
        (status = 200, description = "The server is up", body = HealthResponse),
        (status = 503, description = "`STORE_UNAVAILABLE` or `INDEX_UNAVAILABLE`: the graph store or the vector index cannot be read", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn health(State(state): State<SharedState>) -> ApiResult<Json<HealthResponse>> {
    let topology = state.topology();
    let vector_index = match state.docs() {
        Some(docs) => {
            let index = docs.ingestor().index();
            Some(IndexSummary {
                backend: index.backend(),
                model: index.model().model.clone(),
                dimension: index.model().dimension,
                points: index.count().await?,
            })
        }
        None => None,
    };
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
        vector_index,
        uptime_s: state.started.elapsed().as_secs(),
    }))
}
