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
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct GroundRequest {
    /// The text: 1 to 5000 characters after trimming.
    #[schema(min_length = 1, example = "discharge air temperature of AHU-1")]
    text: String,
}

/// The grounding of a text: equipment and point types, tags, graph nodes.
#[utoipa::path(
    post,
    path = "/api/ground",
    tag = "answers",
    request_body = GroundRequest,
    responses(
        (status = 200, description = "`grounding.v1`", body = Grounding),
        (status = 400, description = "`VALIDATION_FAILED`: the body is not `{\"text\": ...}` or the text is empty or over 5000 characters", body = crate::http::error::ApiError),
        (status = 413, description = "`PAYLOAD_TOO_LARGE`: the body is over `--max-body-bytes`", body = crate::http::error::ApiError),
        (status = 415, description = "`UNSUPPORTED_MEDIA_TYPE`: the body is not sent as `application/json`", body = crate::http::error::ApiError),
    )
)]
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
