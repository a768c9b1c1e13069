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

#[derive(Debug, Deserialize)]
pub(super) struct ClassesParams {
    root: Option<String>,
    depth: Option<usize>,
}

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

#[derive(Debug, Deserialize)]
pub(super) struct ClassParams {
    iri: String,
}

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

#[derive(Debug, Deserialize)]
pub(super) struct TagsParams {
    q: Option<String>,
}

pub(super) async fn tags(
    State(state): State<SharedState>,
    q: Result<Query<TagsParams>, QueryRejection>,
) -> ApiResult<Json<Vec<TagInfo>>> {
    let p = params(q)?;
    Ok(Json(
        schema::tags(state.store.as_ref(), &state.ontology(), p.q.as_deref()).await?,
    ))
}
