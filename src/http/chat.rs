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
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = ChatEnvelope)]
pub struct Envelope<'a> {
    /// `success`, `refused` or `error`.
    status: Status,
    /// The answer contract (`schemas/answer_contract.schema.json`); null
    /// only on error.
    answer: &'a Option<Answer>,
    /// Why it abstained: set exactly when `status` is `refused`.
    refusal: &'a Option<Refusal>,
    /// The error body (`schemas/error.schema.json`): set exactly when
    /// `status` is `error`.
    error: Option<ApiError>,
    /// Request id, timing, counts.
    metadata: &'a Metadata,
    /// Why this answer: grounding, graph queries and facts, retrieval
    /// decisions, chunk scores.
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
#[utoipa::path(
    post,
    path = "/chat",
    tag = "answers",
    request_body = ChatRequest,
    responses(
        (status = 200, description = "An answer (`status: success`) or an abstention (`status: refused`, `answer` the \"unknown\" contract, `refusal` why)", body = Envelope),
        (status = 400, description = "`VALIDATION_FAILED`: the body is malformed or outside the limits (`query` 1-500 characters, `selected_text` 10-5000, `top_k` 1-20, `session_id` a UUID); `details` names the field", body = crate::http::error::ApiError),
        (status = 413, description = "`PAYLOAD_TOO_LARGE`: the body is over `--max-body-bytes`", body = crate::http::error::ApiError),
        (status = 415, description = "`UNSUPPORTED_MEDIA_TYPE`: the body is not sent as `application/json`", body = crate::http::error::ApiError),
        (status = 500, description = "The pipeline failed (`EMBEDDING_FAILED`, `INTERNAL`): the envelope with `status: error` and the error body in `error`", body = Envelope),
        (status = 503, description = "A backend is down or slow (`INDEX_UNAVAILABLE`, `STORE_UNAVAILABLE`, `QUERY_TIMEOUT`): the envelope with `status: error` and the error body in `error`", body = Envelope),
    )
)]
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

/// Retrieval only: the graph facts, the chunks that would reach synthesis
/// and the trace; no answer.
#[utoipa::path(
    post,
    path = "/retrieve",
    tag = "answers",
    request_body = ChatRequest,
    responses(
        (status = 200, description = "Facts, chunks and the trace", body = answer::RetrieveResponse),
        (status = 400, description = "`VALIDATION_FAILED`: the body is malformed or outside the limits of `/chat`; `details` names the field", body = crate::http::error::ApiError),
        (status = 413, description = "`PAYLOAD_TOO_LARGE`: the body is over `--max-body-bytes`", body = crate::http::error::ApiError),
        (status = 415, description = "`UNSUPPORTED_MEDIA_TYPE`: the body is not sent as `application/json`", body = crate::http::error::ApiError),
        (status = 500, description = "`EMBEDDING_FAILED` or `INTERNAL`: the pipeline failed", body = crate::http::error::ApiError),
        (status = 503, description = "`INDEX_UNAVAILABLE`, `STORE_UNAVAILABLE` or `QUERY_TIMEOUT`: a backend is down or slow", body = crate::http::error::ApiError),
    )
)]
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
