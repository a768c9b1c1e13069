//! `POST /api/ground`: the grounding of a text.

use super::SharedState;
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::ground::Grounding;
use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::json;

/// Longest text accepted, in characters after trimming.
pub const MAX_TEXT_CHARS: usize = 5000;

/// Body of `POST /api/ground`.
#[derive(Debug, Deserialize)]
pub(super) struct GroundRequest {
    text: String,
}

pub(super) fn rejection(e: JsonRejection, limit: usize) -> ApiError {
    match e {
        JsonRejection::MissingJsonContentType(_) => ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "send the body as application/json: {\"text\": \"...\"}",
        ),
        JsonRejection::BytesRejection(b) if b.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new(
                ErrorCode::PayloadTooLarge,
                format!("request body is larger than the limit of {limit} bytes"),
            )
        }
        other => ApiError::invalid(format!(
            "the body must be a JSON object {{\"text\": \"...\"}}: {}",
            other.body_text()
        )),
    }
}

pub(super) async fn ground(
    State(state): State<SharedState>,
    body: Result<Json<GroundRequest>, JsonRejection>,
) -> ApiResult<Json<Grounding>> {
    let Json(req) = body.map_err(|e| rejection(e, state.http.max_body_bytes))?;
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
