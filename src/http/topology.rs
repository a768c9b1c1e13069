//! `/api/topology/...`: a node's neighbours, up- and downstream, subgraphs.

use super::error::{ApiError, ApiResult, ErrorCode};
use super::{SharedState, params};
use crate::explore::{self, ClassRef};
use crate::topology::{EdgeView, NodeView, Reached, Resolution, Topology};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Deepest traversal a request may ask for.
const MAX_DEPTH: usize = 64;
/// Deepest subgraph a request may ask for (it grows fast).
const MAX_SUBGRAPH_DEPTH: usize = 6;

/// The node a request is about.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct IdParams {
    /// An IRI, a `prefix:local` name or a unique label (`AHU-1`,
    /// case-insensitive).
    #[param(example = "AHU-1")]
    id: String,
}

/// A walk from a node.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct NodeParams {
    /// An IRI, a `prefix:local` name or a unique label (`AHU-1`,
    /// case-insensitive).
    #[param(example = "AHU-1")]
    id: String,
    /// Hops to follow: 1 to 64 for up- and downstream (default 64), 1 to 6
    /// for a subgraph (default 1).
    #[param(minimum = 1, maximum = 64, example = 2)]
    depth: Option<usize>,
}

pub(super) fn resolve(topology: &Topology, id: &str) -> ApiResult<String> {
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
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(super) struct NodeResponse {
    node: NodeView,
    edges: Vec<EdgeView>,
}

/// A node and its direct relations.
#[utoipa::path(
    get,
    path = "/api/topology/node",
    tag = "topology",
    params(IdParams),
    responses(
        (status = 200, description = "The node and its edges", body = NodeResponse),
        (status = 400, description = "`VALIDATION_FAILED`: `id` is missing or a parameter does not parse", body = crate::http::error::ApiError),
        (status = 404, description = "`NOT_FOUND`: no node with that IRI or label", body = crate::http::error::ApiError),
        (status = 409, description = "`AMBIGUOUS_NODE`: the label names several nodes; `details.candidates` lists them", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn node(
    State(state): State<SharedState>,
    q: Result<Query<IdParams>, QueryRejection>,
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
#[derive(Debug, Serialize, utoipa::ToSchema)]
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

/// Everything that transitively feeds a node.
#[utoipa::path(
    get,
    path = "/api/topology/upstream",
    tag = "topology",
    params(NodeParams),
    responses(
        (status = 200, description = "The nodes reached, with their distance", body = TraversalResponse),
        (status = 400, description = "`VALIDATION_FAILED`: `id` is missing, a parameter does not parse, or `depth` is out of range", body = crate::http::error::ApiError),
        (status = 404, description = "`NOT_FOUND`: no node with that IRI or label", body = crate::http::error::ApiError),
        (status = 409, description = "`AMBIGUOUS_NODE`: the label names several nodes; `details.candidates` lists them", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn upstream(
    State(state): State<SharedState>,
    q: Result<Query<NodeParams>, QueryRejection>,
) -> ApiResult<Json<TraversalResponse>> {
    traversal(state, params(q)?, true).await
}

/// Everything a node transitively feeds.
#[utoipa::path(
    get,
    path = "/api/topology/downstream",
    tag = "topology",
    params(NodeParams),
    responses(
        (status = 200, description = "The nodes reached, with their distance", body = TraversalResponse),
        (status = 400, description = "`VALIDATION_FAILED`: `id` is missing, a parameter does not parse, or `depth` is out of range", body = crate::http::error::ApiError),
        (status = 404, description = "`NOT_FOUND`: no node with that IRI or label", body = crate::http::error::ApiError),
        (status = 409, description = "`AMBIGUOUS_NODE`: the label names several nodes; `details.candidates` lists them", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn downstream(
    State(state): State<SharedState>,
    q: Result<Query<NodeParams>, QueryRejection>,
) -> ApiResult<Json<TraversalResponse>> {
    traversal(state, params(q)?, false).await
}

/// Nodes and edges for drawing.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(super) struct SubgraphResponse {
    root: String,
    depth: usize,
    nodes: Vec<NodeView>,
    edges: Vec<EdgeView>,
    /// Every type of `nodes`: its prefixed name, label and class family,
    /// for styling a drawing.
    classes: BTreeMap<String, ClassRef>,
}

/// The nodes and edges around a node, for drawing.
#[utoipa::path(
    get,
    path = "/api/topology/subgraph",
    tag = "topology",
    params(NodeParams),
    responses(
        (status = 200, description = "Nodes and edges within `depth` hops", body = SubgraphResponse),
        (status = 400, description = "`VALIDATION_FAILED`: `id` is missing, a parameter does not parse, or `depth` is out of range", body = crate::http::error::ApiError),
        (status = 404, description = "`NOT_FOUND`: no node with that IRI or label", body = crate::http::error::ApiError),
        (status = 409, description = "`AMBIGUOUS_NODE`: the label names several nodes; `details.candidates` lists them", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn subgraph(
    State(state): State<SharedState>,
    q: Result<Query<NodeParams>, QueryRejection>,
) -> ApiResult<Json<SubgraphResponse>> {
    let p = params(q)?;
    let topology = state.topology();
    let iri = resolve(&topology, &p.id)?;
    let depth = depth(p.depth, 1, MAX_SUBGRAPH_DEPTH)?;
    let (nodes, edges) = topology.subgraph(&iri, depth);
    let types: BTreeSet<&String> = nodes.iter().flat_map(|n| &n.types).collect();
    let classes = explore::class_refs(&state.ontology(), types);
    Ok(Json(SubgraphResponse {
        root: iri,
        depth,
        nodes,
        edges,
        classes,
    }))
}
