//! `POST /chat` (the answer envelope) and `POST /retrieve` (graph facts and
//! chunks, no synthesis). The pipeline lives in `crate::answer`; this file
//! puts its answers on the wire.

use super::SharedState;
use super::error::{ApiError, ApiResult, respond};
use crate::answer::{self, Answer, ChatRequest, ChatResponse, Metadata, Refusal, Status, Trace};
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Serialize;
use tower_http::request_id::RequestId;

/// The shape of a `/chat` and `/retrieve` body, as a malformed one is told.
const SHAPE: &str = r#"{"query": "...", "selected_text"?: ..., "top_k"?: ..., "session_id"?: ...}"#;

/// The `/chat` envelope as it goes on the wire: `{status, answer, refusal,
/// error, metadata, trace}`, `error` being the error body of the fault (or
/// null).
#[derive(Debug, Serialize)]
pub struct Envelope<'a> {
    status: Status,
    answer: &'a Option<Answer>,
    refusal: &'a Option<Refusal>,
    error: Option<ApiError>,
    metadata: &'a Metadata,
    trace: &'a Trace,
}

/// The envelope of an answer and its status: 200, or the fault's status
/// (503 index down, 500 embedding failed …). The `/chat` handler, `daemoniq
/// ask --json` and the in-process evaluation all answer with it.
///
/// It is a borrowing struct rather than a `serde_json::Value` so that the
/// wire bytes stay those of the pipeline's own types (a `Value` would widen
/// every `f32` score to its `f64` digits).
pub fn envelope(resp: &ChatResponse) -> (StatusCode, Envelope<'_>) {
    let error = resp.error.as_ref().map(ApiError::from);
    let status = error.as_ref().map_or(StatusCode::OK, |e| e.code.status());
    (
        status,
        Envelope {
            status: resp.status,
            answer: &resp.answer,
            refusal: &resp.refusal,
            error,
            metadata: &resp.metadata,
            trace: &resp.trace,
        },
    )
}

/// Answers with the envelope; a server fault keeps the envelope and takes
/// the status of its error code, with `Retry-After` when it has one.
pub(super) async fn chat(
    State(state): State<SharedState>,
    id: Option<Extension<RequestId>>,
    body: Result<Json<ChatRequest>, JsonRejection>,
) -> ApiResult<Response> {
    let Json(mut req) =
        body.map_err(|e| ApiError::json_rejection(e, state.http.max_body_bytes, SHAPE))?;
    req.request_id = super::request_id::of(id);
    let resp = answer::chat(&state, req).await?;
    state.metrics.answered(&resp);
    let (_, envelope) = envelope(&resp);
    Ok(match envelope.error.clone() {
        Some(error) => respond(&error, Json(envelope)),
        None => Json(envelope).into_response(),
    })
}

pub(super) async fn retrieve(
    State(state): State<SharedState>,
    id: Option<Extension<RequestId>>,
    body: Result<Json<ChatRequest>, JsonRejection>,
) -> ApiResult<Json<answer::RetrieveResponse>> {
    let Json(mut req) =
        body.map_err(|e| ApiError::json_rejection(e, state.http.max_body_bytes, SHAPE))?;
    req.request_id = super::request_id::of(id);
    Ok(Json(answer::retrieve(&state, req).await?))
}
