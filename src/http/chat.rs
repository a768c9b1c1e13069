//! `POST /chat` (the answer envelope) and `POST /retrieve` (graph facts and
//! chunks, no synthesis). The pipeline lives in `crate::answer`.

use super::SharedState;
use super::ground::rejection;
use crate::answer::{self, ChatRequest, ChatResponse, RetrieveResponse, Status};
use crate::error::{ApiError, ApiResult};
use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Answers with the envelope; a server fault keeps the envelope and takes
/// the status of its error code (503 index down, 500 embedding failed).
pub(super) async fn chat(
    State(state): State<SharedState>,
    body: Result<Json<ChatRequest>, JsonRejection>,
) -> ApiResult<Response> {
    let Json(req) = body.map_err(|e| rejection(e, state.http.max_body_bytes))?;
    let resp: ChatResponse = answer::chat(&state, req).await.map_err(ApiError::from)?;
    let (status, retry, body) = envelope(&resp);
    let mut response = (status, Json(body)).into_response();
    if let Some(secs) = retry
        && let Ok(v) = HeaderValue::from_str(&secs.to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    Ok(response)
}

/// The `/chat` envelope of a response: its HTTP status, `Retry-After`
/// seconds and JSON body `{status, answer, refusal, error, metadata, trace}`.
pub fn envelope(resp: &ChatResponse) -> (StatusCode, Option<u64>, serde_json::Value) {
    let error = resp.error.as_ref().map(ApiError::from);
    let (status, retry) = match (&resp.status, &error) {
        (Status::Error, Some(e)) => (e.code.status(), e.retry_after),
        _ => (StatusCode::OK, None),
    };
    let mut body = serde_json::to_value(resp).unwrap_or_default();
    if let Some(o) = body.as_object_mut() {
        o.insert(
            "error".into(),
            serde_json::to_value(&error).unwrap_or_default(),
        );
    }
    (status, retry, body)
}

pub(super) async fn retrieve(
    State(state): State<SharedState>,
    body: Result<Json<ChatRequest>, JsonRejection>,
) -> ApiResult<Json<RetrieveResponse>> {
    let Json(req) = body.map_err(|e| rejection(e, state.http.max_body_bytes))?;
    Ok(Json(answer::retrieve(&state, req).await.map_err(ApiError::from)?))
}
