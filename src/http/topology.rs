//! `/api/topology/...`: a node's neighbours, up- and downstream, subgraphs.

use super::error::{ApiError, ApiResult, ErrorCode};
use super::{SharedState, params};
use crate::topology::{EdgeView, NodeView, Reached, Resolution, Topology};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use serde::{Deserialize, Serialize};

/// Deepest traversal a request may ask for.
const MAX_DEPTH: usize = 64;
/// Deepest subgraph a request may ask for (it grows fast).
const MAX_SUBGRAPH_DEPTH: usize = 6;

#[derive(Debug, Deserialize)]
pub(super) struct NodeParams {
    id: String,
    depth: Option<usize>,
}

fn resolve(topology: &Topology, id: &str) -> ApiResult<String> {
    match topology.resolve(id) {
        Resolution::Found(iri) => Ok(iri),
        Resolution::NotFound => Err(ApiError::not_found(format!(
            "no node with IRI or label {id:?} in the building models"
        ))),
        Resolution::Ambiguous(candidates) => Err(ApiError::new(
            ErrorCode::AmbiguousNode,
            format!(
                "{} nodes are labelled {id:?}; pass one of their IRIs",
                candidates.len()
            ),
        )
        .with_details(serde_json::json!({
            "candidates": candidates.iter().map(|c| topology.view(c)).collect::<Vec<_>>()
        }))),
    }
}

fn depth(requested: Option<usize>, default: usize, max: usize) -> ApiResult<usize> {
    let d = requested.unwrap_or(default);
    if d == 0 || d > max {
        return Err(ApiError::invalid(format!(
            "depth must be between 1 and {max}"
        )));
    }
    Ok(d)
}

/// A node and its direct relations.
#[derive(Debug, Serialize)]
pub(super) struct NodeResponse {
    node: NodeView,
    edges: Vec<EdgeView>,
}

pub(super) async fn node(
    State(state): State<SharedState>,
    q: Result<Query<NodeParams>, QueryRejection>,
) -> ApiResult<Json<NodeResponse>> {
    let p = params(q)?;
    let topology = state.topology();
    let iri = resolve(&topology, &p.id)?;
    Ok(Json(NodeResponse {
        node: topology.view(&iri),
        edges: topology.neighbours(&iri),
    }))
}

/// A traversal result.
#[derive(Debug, Serialize)]
pub(super) struct TraversalResponse {
    node: NodeView,
    direction: &'static str,
    depth: usize,
    nodes: Vec<Reached>,
}

async fn traversal(
    state: SharedState,
    p: NodeParams,
    upstream: bool,
) -> ApiResult<Json<TraversalResponse>> {
    let topology = state.topology();
    let iri = resolve(&topology, &p.id)?;
    let depth = depth(p.depth, MAX_DEPTH, MAX_DEPTH)?;
    let nodes = if upstream {
        topology.upstream(&iri, depth)
    } else {
        topology.downstream(&iri, depth)
    };
    Ok(Json(TraversalResponse {
        node: topology.view(&iri),
        direction: if upstream { "upstream" } else { "downstream" },
        depth,
        nodes,
    }))
}

pub(super) async fn upstream(
    State(state): State<SharedState>,
    q: Result<Query<NodeParams>, QueryRejection>,
) -> ApiResult<Json<TraversalResponse>> {
    traversal(state, params(q)?, true).await
}

pub(super) async fn downstream(
    State(state): State<SharedState>,
    q: Result<Query<NodeParams>, QueryRejection>,
) -> ApiResult<Json<TraversalResponse>> {
    traversal(state, params(q)?, false).await
}

/// Nodes and edges for drawing.
#[derive(Debug, Serialize)]
pub(super) struct SubgraphResponse {
    root: String,
    depth: usize,
    nodes: Vec<NodeView>,
    edges: Vec<EdgeView>,
}

pub(super) async fn subgraph(
    State(state): State<SharedState>,
    q: Result<Query<NodeParams>, QueryRejection>,
) -> ApiResult<Json<SubgraphResponse>> {
    let p = params(q)?;
    let topology = state.topology();
    let iri = resolve(&topology, &p.id)?;
    let depth = depth(p.depth, 1, MAX_SUBGRAPH_DEPTH)?;
    let (nodes, edges) = topology.subgraph(&iri, depth);
    Ok(Json(SubgraphResponse {
        root: iri,
        depth,
        nodes,
        edges,
    }))
}
