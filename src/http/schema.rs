//! `/api/schema/...`: the class hierarchy, one class, the Haystack tags.

use super::error::{ApiError, ApiResult};
use super::{SharedState, params};
use crate::schema::{self, ClassDetail, ClassNode, TagInfo};
use crate::vocab;
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use serde::Deserialize;

/// Deepest class tree a request may ask for.
const MAX_DEPTH: usize = 12;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct ClassesParams {
    /// The root class: an IRI or a prefixed name (default `brick:Class`).
    #[param(example = "brick:Equipment")]
    root: Option<String>,
    /// Levels of subclasses to expand, 0 to 12 (default 1).
    #[param(maximum = 12, example = 1)]
    depth: Option<usize>,
}

/// The subclass tree under a class.
#[utoipa::path(
    get,
    path = "/api/schema/classes",
    tag = "schema",
    params(ClassesParams),
    responses(
        (status = 200, description = "The tree, `depth` levels deep", body = ClassNode),
        (status = 400, description = "`VALIDATION_FAILED`: a parameter does not parse, or `depth` is over 12", body = crate::http::error::ApiError),
        (status = 404, description = "`NOT_FOUND`: no such class in the loaded ontologies", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn classes(
    State(state): State<SharedState>,
    q: Result<Query<ClassesParams>, QueryRejection>,
) -> ApiResult<Json<ClassNode>> {
    let p = params(q)?;
    let root = vocab::expand(p.root.as_deref().unwrap_or("brick:Class"));
    let depth = p.depth.unwrap_or(1);
    if depth > MAX_DEPTH {
        return Err(ApiError::invalid(format!(
            "depth must be at most {MAX_DEPTH}"
        )));
    }
    schema::class_tree(&state.ontology(), &root, depth)
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("no class {root} in the loaded ontologies")))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct ClassParams {
    /// The class: an IRI or a prefixed name (`brick:AHU`).
    #[param(example = "brick:AHU")]
    iri: String,
}

/// One class in full.
#[utoipa::path(
    get,
    path = "/api/schema/class",
    tag = "schema",
    params(ClassParams),
    responses(
        (status = 200, description = "The class", body = ClassDetail),
        (status = 400, description = "`VALIDATION_FAILED`: `iri` is missing or not an IRI or prefixed name", body = crate::http::error::ApiError),
        (status = 404, description = "`NOT_FOUND`: no such class in the loaded ontologies", body = crate::http::error::ApiError),
        (status = 503, description = "`STORE_UNAVAILABLE`: the graph store cannot be read", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn class(
    State(state): State<SharedState>,
    q: Result<Query<ClassParams>, QueryRejection>,
) -> ApiResult<Json<ClassDetail>> {
    let iri = vocab::expand(params(q)?.iri.trim());
    if !crate::store::is_safe_iri(&iri) {
        return Err(ApiError::invalid(format!(
            "{iri:?} is not an IRI or prefixed name"
        )));
    }
    schema::class_detail(state.store.as_ref(), &state.ontology(), &iri)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found(format!("no class {iri} in the loaded ontologies")))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct TagsParams {
    /// Only markers whose name contains this text (case-insensitive).
    #[param(example = "temp")]
    q: Option<String>,
}

/// Haystack markers with their Brick tags and classes.
#[utoipa::path(
    get,
    path = "/api/schema/tags",
    tag = "schema",
    params(TagsParams),
    responses(
        (status = 200, description = "The markers, by name", body = Vec<TagInfo>),
        (status = 400, description = "`VALIDATION_FAILED`: a parameter does not parse", body = crate::http::error::ApiError),
        (status = 503, description = "`STORE_UNAVAILABLE`: the graph store cannot be read", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn tags(
    State(state): State<SharedState>,
    q: Result<Query<TagsParams>, QueryRejection>,
) -> ApiResult<Json<Vec<TagInfo>>> {
    let p = params(q)?;
    Ok(Json(
        schema::tags(state.store.as_ref(), &state.ontology(), p.q.as_deref()).await?,
    ))
}
