//! `POST /api/ground`: the grounding of a text.

use super::SharedState;
use super::error::{ApiError, ApiResult};
use crate::ground::Grounding;
use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use serde::Deserialize;
use serde_json::json;

/// Longest text accepted, in characters after trimming.
pub const MAX_TEXT_CHARS: usize = 5000;

/// The shape of the body, as a malformed one is told.
const SHAPE: &str = r#"{"text": "..."}"#;

/// Body of `POST /api/ground`.
#[derive(Debug, Deserialize)]
pub(super) struct GroundRequest {
    text: String,
}

pub(super) async fn ground(
    State(state): State<SharedState>,
    body: Result<Json<GroundRequest>, JsonRejection>,
) -> ApiResult<Json<Grounding>> {
    let Json(req) =
        body.map_err(|e| ApiError::json_rejection(e, state.http.max_body_bytes, SHAPE))?;
    let text = req.text.trim();
    let chars = text.chars().count();
    if chars == 0 || chars > MAX_TEXT_CHARS {
        return Err(ApiError::invalid(format!(
            "text must be 1 to {MAX_TEXT_CHARS} characters after trimming; it has {chars}"
        ))
        .with_details(json!({
            "field": "text",
            "min_chars": 1,
            "max_chars": MAX_TEXT_CHARS,
            "chars": chars,
        })));
    }
    Ok(Json(state.grounder().ground(text)))
}
