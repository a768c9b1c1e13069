//! `/api/search`, `/api/node` and `/api/ui/config`: what the web UI needs
//! to find things and show them, so that the UI itself encodes no classes,
//! prefixes or example queries.

use super::error::{ApiError, ApiResult};
use super::topology::resolve;
use super::{SharedState, params};
use crate::explore::{self, NodeCard, SearchHit, SearchKind};
use crate::topology::{Rel, Resolution};
use crate::vocab;
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most hits a search returns.
const MAX_LIMIT: usize = 100;

/// A search.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct SearchParams {
    /// Text to find in labels, local names and IRIs (case-insensitive; `_`
    /// and `-` count as spaces).
    #[param(example = "vav")]
    q: String,
    /// `node`, `class` or `any` (default).
    #[param(example = "class")]
    kind: Option<String>,
    /// Most hits to return, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100, example = 20)]
    limit: Option<usize>,
}

/// Search hits, best first.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(super) struct SearchResponse {
    results: Vec<SearchHit>,
}

/// Nodes and classes by label, local name or IRI.
#[utoipa::path(
    get,
    path = "/api/search",
    tag = "explore",
    params(SearchParams),
    responses(
        (status = 200, description = "Hits, best first: exact, then prefix, then substring matches", body = SearchResponse),
        (status = 400, description = "`VALIDATION_FAILED`: `q` is missing, `kind` is unknown or `limit` is out of range", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn search(
    State(state): State<SharedState>,
    q: Result<Query<SearchParams>, QueryRejection>,
) -> ApiResult<Json<SearchResponse>> {
    let p = params(q)?;
    let kind = match p.kind.as_deref().unwrap_or("any") {
        "node" => SearchKind::Node,
        "class" => SearchKind::Class,
        "any" => SearchKind::Any,
        other => {
            return Err(ApiError::invalid(format!(
                "kind must be node, class or any, not {other:?}"
            )));
        }
    };
    let limit = p.limit.unwrap_or(20);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(ApiError::invalid(format!(
            "limit must be between 1 and {MAX_LIMIT}"
        )));
    }
    let results = explore::search(&state.topology(), &state.ontology(), &p.q, kind, limit);
    Ok(Json(SearchResponse { results }))
}

/// The node a card is for.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct NodeParams {
    /// An IRI, a `prefix:local` name or a unique label (`AHU-1`,
    /// case-insensitive).
    #[param(example = "AHU-1")]
    id: String,
}

/// One node (or class) with everything said about it.
#[utoipa::path(
    get,
    path = "/api/node",
    tag = "explore",
    params(NodeParams),
    responses(
        (status = 200, description = "The node: types with their families, statements both ways, points, provenance", body = NodeCard),
        (status = 400, description = "`VALIDATION_FAILED`: `id` is missing or not an IRI", body = crate::http::error::ApiError),
        (status = 404, description = "`NOT_FOUND`: nothing is said about that IRI or label", body = crate::http::error::ApiError),
        (status = 409, description = "`AMBIGUOUS_NODE`: the label names several nodes; `details.candidates` lists them", body = crate::http::error::ApiError),
        (status = 503, description = "`STORE_UNAVAILABLE`: the graph store cannot be read", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn node_card(
    State(state): State<SharedState>,
    q: Result<Query<NodeParams>, QueryRejection>,
) -> ApiResult<Json<NodeCard>> {
    let id = params(q)?.id;
    let topology = state.topology();
    // A node of the topology by IRI or label first; else any IRI the
    // store says something about (a class, a product, an unconnected
    // point).
    let iri = match topology.resolve(&id) {
        Resolution::Found(iri) => iri,
        Resolution::Ambiguous(_) => resolve(&topology, &id)?,
        Resolution::NotFound => {
            let iri = vocab::expand(id.trim());
            if !crate::store::is_safe_iri(&iri) {
                return Err(ApiError::not_found(format!(
                    "no node with IRI or label {id:?} in the building models"
                )));
            }
            iri
        }
    };
    explore::node_card(state.store.as_ref(), &topology, &state.ontology(), &iri)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("nothing is said about {iri} in the graph")))
}

/// An example query for the SPARQL view.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(super) struct Example {
    title: &'static str,
    query: String,
}

/// How a drawing treats a relation.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(super) struct Relation {
    /// The name edges carry (`rel` in topology responses).
    name: &'static str,
    /// `flow` (drawn left to right), `part`, `point` or `location`.
    kind: &'static str,
    /// What to write on the edge.
    label: &'static str,
}

/// The third-party browser libraries and whether they are installed.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(super) struct Vendor {
    /// Every file is in the asset cache.
    available: bool,
    /// The files that are not.
    missing: Vec<&'static str>,
    /// The command that fetches them.
    fetch_command: &'static str,
}

/// What the web UI needs to know about this server.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub(super) struct UiConfig {
    /// Prefix → namespace, for prefixed names and the SPARQL editor.
    prefixes: BTreeMap<&'static str, &'static str>,
    /// Example queries for the SPARQL view.
    examples: Vec<Example>,
    /// The relations topology responses use.
    relations: Vec<Relation>,
    /// The browser libraries.
    vendor: Vendor,
}

/// Example queries, each with the prefixes it needs.
fn examples() -> Vec<Example> {
    let with = |title, body: &str| Example {
        title,
        query: format!("{}\n{body}", vocab::PREFIXES.trim_end()),
    };
    vec![
        with(
            "Air handlers and what each feeds",
            "SELECT DISTINCT ?ahu ?ahuLabel ?fed ?fedLabel WHERE {\n  VALUES ?class { brick:AHU brick:Air_Handling_Unit }\n  ?ahu a/rdfs:subClassOf* ?class ;\n       brick:feeds ?fed .\n  OPTIONAL { ?ahu rdfs:label ?ahuLabel }\n  OPTIONAL { ?fed rdfs:label ?fedLabel }\n}\nORDER BY ?ahu ?fed\nLIMIT 200",
        ),
        with(
            "Instances per class",
            "SELECT ?class (COUNT(?n) AS ?instances) WHERE {\n  ?n a ?class ; dq:sourceSha ?sha .\n}\nGROUP BY ?class\nORDER BY DESC(?instances)\nLIMIT 50",
        ),
        with(
            "Points of each equipment, with their classes",
            "SELECT ?equip ?point ?class WHERE {\n  ?equip brick:hasPoint ?point .\n  ?point a ?class .\n}\nORDER BY ?equip ?point\nLIMIT 200",
        ),
        with(
            "Loaded sources (building models, ontologies, documents)",
            "SELECT ?graph ?path ?kind ?sha ?updated WHERE {\n  GRAPH <urn:daemoniq:meta> {\n    ?graph dq:sourcePath ?path ; dq:graphKind ?kind ;\n           dq:sourceSha ?sha ; dq:updatedAt ?updated .\n  }\n}\nORDER BY ?kind ?path",
        ),
        with(
            "Subclasses of Terminal_Unit",
            "SELECT ?class ?label WHERE {\n  ?class rdfs:subClassOf+ brick:Terminal_Unit .\n  OPTIONAL { ?class rdfs:label ?label }\n}\nORDER BY ?class",
        ),
    ]
}

fn relations() -> Vec<Relation> {
    [Rel::Feeds, Rel::HasPart, Rel::HasPoint, Rel::HasLocation]
        .into_iter()
        .map(|rel| {
            let (kind, label) = match rel {
                Rel::Feeds => ("flow", "feeds"),
                Rel::HasPart => ("part", "has part"),
                Rel::HasPoint => ("point", "has point"),
                Rel::HasLocation => ("location", "located in"),
            };
            Relation {
                name: rel.as_str(),
                kind,
                label,
            }
        })
        .collect()
}

/// Prefixes, example queries, relations and whether the browser libraries
/// are installed.
#[utoipa::path(
    get,
    path = "/api/ui/config",
    tag = "explore",
    responses(
        (status = 200, description = "What the web UI needs to know about this server", body = UiConfig),
    )
)]
pub(super) async fn ui_config(State(state): State<SharedState>) -> Json<UiConfig> {
    let missing = super::ui::missing_vendor_files(state.http.ui_vendor_dir.as_deref());
    Json(UiConfig {
        prefixes: vocab::KNOWN_PREFIXES.iter().copied().collect(),
        examples: examples(),
        relations: relations(),
        vendor: Vendor {
            available: missing.is_empty(),
            missing,
            fetch_command: "bash scripts/setup.sh",
        },
    })
}
