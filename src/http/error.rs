//! The HTTP error contract: stable codes, one table mapping them to statuses.
//!
//! Every error body is `{code, message, details, retry_after}`
//! (`schemas/error.schema.json`). This module is the only place that turns
//! a domain error (`StoreError`, `VectorError`, `answer::Fault` …) into a
//! status, sets `Retry-After`, and logs a server fault: server faults get a
//! generic message, and their detail is logged once, when the response is
//! built ([`respond`]).

use crate::answer::{Fault, RequestError, RetrieveError};
use crate::embed::EmbedError;
use crate::ingest::IngestError;
use crate::store::StoreError;
use crate::vector::VectorError;
use axum::extract::rejection::JsonRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// Seconds after which a store or index that was down may be back.
const RETRY_UNAVAILABLE_SECS: u64 = 5;
/// Seconds after which a query that timed out may be tried again.
const RETRY_TIMEOUT_SECS: u64 = 1;

/// Stable, machine-readable error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::VariantArray, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// A request parameter or body failed validation.
    ValidationFailed,
    /// The SPARQL text does not parse.
    MalformedQuery,
    /// SPARQL Update sent to the read-only endpoint.
    UpdateForbidden,
    /// A `SERVICE` clause: federation is disabled.
    ServiceForbidden,
    /// The query exceeded its time limit.
    QueryTimeout,
    /// The query failed during evaluation.
    QueryFailed,
    /// A query shape the time limit cannot stop, refused before it ran.
    QueryTooExpensive,
    /// No node, class or route matches.
    NotFound,
    /// A label matches more than one node.
    AmbiguousNode,
    /// The request body's content type is not accepted.
    UnsupportedMediaType,
    /// No acceptable response format.
    NotAcceptable,
    /// The request body is too large.
    PayloadTooLarge,
    /// No API key, or one the server does not know.
    Unauthorized,
    /// The read-only API key sent to a write route.
    Forbidden,
    /// The client sent more requests than `--rate-limit-rps` allows.
    RateLimitExceeded,
    /// Too much work in flight and queued: the request was shed at once.
    Overloaded,
    /// The graph store failed.
    StoreUnavailable,
    /// The vector index cannot be reached or is not configured.
    IndexUnavailable,
    /// The embedding model failed.
    EmbeddingFailed,
    /// Anything else that is the server's fault.
    Internal,
}

impl ErrorCode {
    /// The HTTP status of each code. Exhaustive, so a new code cannot ship unmapped.
    pub fn status(self) -> StatusCode {
        match self {
            Self::ValidationFailed
            | Self::MalformedQuery
            | Self::QueryFailed
            | Self::QueryTooExpensive => StatusCode::BAD_REQUEST,
            Self::UpdateForbidden | Self::ServiceForbidden | Self::Forbidden => {
                StatusCode::FORBIDDEN
            }
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::RateLimitExceeded => StatusCode::TOO_MANY_REQUESTS,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::AmbiguousNode => StatusCode::CONFLICT,
            Self::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::QueryTimeout
            | Self::StoreUnavailable
            | Self::IndexUnavailable
            | Self::Overloaded => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal | Self::EmbeddingFailed => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// An error as the HTTP API returns it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ApiError {
    /// Stable code.
    pub code: ErrorCode,
    /// What happened, in words a person can act on.
    pub message: String,
    /// Structured detail (candidates, parser position …), or null (boxed,
    /// like `detail`: handlers return `ApiError` by value).
    pub details: Option<Box<serde_json::Value>>,
    /// Seconds after which a retry may succeed, or null.
    pub retry_after: Option<u64>,
    /// A server fault's detail: logged when the response is built, never
    /// sent.
    #[serde(skip)]
    detail: Option<Box<str>>,
}

impl ApiError {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: None,
            retry_after: None,
            detail: None,
        }
    }

    /// Adds structured details.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// Sets the seconds after which a retry may succeed.
    pub fn retry_after(mut self, secs: u64) -> Self {
        self.retry_after = Some(secs);
        self
    }

    /// A 400 for a bad parameter.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ValidationFailed, message)
    }

    /// A 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    /// A server fault: the client gets a generic message; `detail` is
    /// logged when the response is built.
    pub fn internal(code: ErrorCode, detail: impl std::fmt::Display) -> Self {
        let message = match code {
            ErrorCode::StoreUnavailable => "The graph store is unavailable. Try again shortly.",
            ErrorCode::IndexUnavailable => "The vector index is unavailable. Try again shortly.",
            ErrorCode::EmbeddingFailed => {
                "Embedding generation failed. The server log has the detail."
            }
            _ => "An internal error occurred. The server log has the detail.",
        };
        Self {
            detail: Some(detail.to_string().into()),
            ..Self::new(code, message)
        }
    }

    /// A server fault's detail (never sent to the client).
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// A malformed JSON body: 415, 413 or 400, telling the client the shape
    /// the route takes (`shape`, e.g. `{"text": "..."}`).
    pub fn json_rejection(e: JsonRejection, limit: usize, shape: &str) -> Self {
        match e {
            JsonRejection::MissingJsonContentType(_) => Self::new(
                ErrorCode::UnsupportedMediaType,
                format!("send the body as application/json: {shape}"),
            ),
            JsonRejection::BytesRejection(b) if b.status() == StatusCode::PAYLOAD_TOO_LARGE => {
                Self::too_large(limit)
            }
            other => Self::invalid(format!(
                "the body must be a JSON object {shape}: {}",
                other.body_text()
            )),
        }
    }

    /// A 413 for a body over `limit` bytes.
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            ErrorCode::PayloadTooLarge,
            format!("request body is larger than the limit of {limit} bytes"),
        )
    }
}

impl From<&StoreError> for ApiError {
    fn from(e: &StoreError) -> Self {
        match e {
            StoreError::Syntax(msg) => Self::new(ErrorCode::MalformedQuery, msg),
            StoreError::UpdateRefused => Self::new(ErrorCode::UpdateForbidden, e.to_string()),
            StoreError::ServiceRefused(_) => Self::new(ErrorCode::ServiceForbidden, e.to_string()),
            StoreError::Timeout(_) => {
                Self::new(ErrorCode::QueryTimeout, e.to_string()).retry_after(RETRY_TIMEOUT_SECS)
            }
            StoreError::Evaluation(msg) => Self::new(ErrorCode::QueryFailed, msg),
            StoreError::InvalidRdf(msg) => Self::new(ErrorCode::ValidationFailed, msg),
            // A store that is down (a remote endpoint restarting, a disk
            // gone) may be back shortly, as with the vector index.
            StoreError::Storage(detail) => Self::internal(ErrorCode::StoreUnavailable, detail)
                .retry_after(RETRY_UNAVAILABLE_SECS),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        Self::from(&e)
    }
}

impl From<&VectorError> for ApiError {
    fn from(e: &VectorError) -> Self {
        Self::internal(ErrorCode::IndexUnavailable, e).retry_after(RETRY_UNAVAILABLE_SECS)
    }
}

impl From<VectorError> for ApiError {
    fn from(e: VectorError) -> Self {
        Self::from(&e)
    }
}

impl From<&EmbedError> for ApiError {
    fn from(e: &EmbedError) -> Self {
        Self::internal(ErrorCode::EmbeddingFailed, e)
    }
}

impl From<IngestError> for ApiError {
    fn from(e: IngestError) -> Self {
        match e {
            IngestError::Store(e) => e.into(),
            IngestError::Vector(e) => e.into(),
            IngestError::Embed(e) => Self::from(&e),
            IngestError::Task(e) => Self::internal(ErrorCode::Internal, e),
        }
    }
}

impl From<&Fault> for ApiError {
    fn from(f: &Fault) -> Self {
        match f {
            Fault::Index(e) => e.into(),
            Fault::Embed(e) => e.into(),
            Fault::Store(e) => match e {
                StoreError::Timeout(_) | StoreError::Storage(_) => e.into(),
                // The pipeline composed these queries, not the client: one
                // that does not parse or fails is the server's fault.
                StoreError::Syntax(_)
                | StoreError::Evaluation(_)
                | StoreError::InvalidRdf(_)
                | StoreError::UpdateRefused
                | StoreError::ServiceRefused(_) => Self::internal(
                    ErrorCode::Internal,
                    format_args!("a query the pipeline composed failed: {e}"),
                ),
            },
        }
    }
}

impl From<RequestError> for ApiError {
    fn from(e: RequestError) -> Self {
        Self::invalid(e.to_string())
            .with_details(serde_json::json!({ "field": e.field, "reason": e.reason }))
    }
}

impl From<RetrieveError> for ApiError {
    fn from(e: RetrieveError) -> Self {
        match e {
            RetrieveError::Request(e) => e.into(),
            RetrieveError::Fault(f) => Self::from(&f),
        }
    }
}

/// The response for `error` with `body`: the code's status, `Retry-After`
/// when the error has one, and the fault's detail logged (once: this is
/// the only place that logs it). Every error response, the `/chat`
/// envelope of a fault included, is built here.
pub fn respond(error: &ApiError, body: impl IntoResponse) -> Response {
    if let Some(detail) = &error.detail {
        tracing::error!(code = ?error.code, detail = %detail, "request failed");
    }
    let mut response = (error.code.status(), body).into_response();
    if let Some(secs) = error.retry_after
        && let Ok(v) = HeaderValue::from_str(&secs.to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    response
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        respond(&self, axum::Json(&self))
    }
}

/// Result type of HTTP handlers.
pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    #[test]
    fn store_errors_map_to_client_or_server_statuses() {
        let bad: ApiError = StoreError::Syntax("x".into()).into();
        assert_eq!(bad.code.status(), StatusCode::BAD_REQUEST);
        let upd: ApiError = StoreError::UpdateRefused.into();
        assert_eq!(upd.code.status(), StatusCode::FORBIDDEN);
        let down: ApiError = StoreError::Storage("disk on fire".into()).into();
        assert_eq!(down.code.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(down.retry_after, Some(5));
        assert!(
            !down.message.contains("disk on fire"),
            "5xx detail must not leak"
        );
    }

    #[test]
    fn faults_map_to_their_statuses() {
        let index = ApiError::from(&Fault::Index(VectorError::Unavailable("gone".into())));
        assert_eq!(index.code, ErrorCode::IndexUnavailable);
        assert_eq!(index.code.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(index.retry_after, Some(5));
        assert_eq!(index.detail(), Some("vector index unavailable: gone"));
        let embed = ApiError::from(&Fault::Embed(EmbedError::Model("oom".into())));
        assert_eq!(embed.code.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(embed.retry_after, None);
        let store = ApiError::from(&Fault::Store(StoreError::Timeout(
            std::time::Duration::from_secs(1),
        )));
        assert_eq!(store.code, ErrorCode::QueryTimeout);
        assert_eq!(store.retry_after, Some(1));
        // A query the pipeline composed is not the client's to fix.
        let composed = ApiError::from(&Fault::Store(StoreError::Syntax("x".into())));
        assert_eq!(composed.code.status(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[test]
    fn request_errors_name_their_field() {
        let e = ApiError::from(RequestError {
            field: "top_k",
            reason: "must be 1-20, got 0".into(),
        });
        assert_eq!(e.code.status(), StatusCode::BAD_REQUEST);
        assert_eq!(e.message, "top_k: must be 1-20, got 0");
        assert_eq!(
            e.details.map(|d| *d),
            Some(serde_json::json!({"field": "top_k", "reason": "must be 1-20, got 0"}))
        );
    }

    #[test]
    fn the_detail_stays_out_of_the_body() {
        let e = ApiError::internal(ErrorCode::Internal, "secret path /x/y");
        let body = serde_json::to_value(&e).unwrap();
        let mut keys: Vec<&String> = body.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["code", "details", "message", "retry_after"]);
        assert!(!body.to_string().contains("secret"));
    }

    #[test]
    fn every_code_is_in_the_error_schema() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../schemas/error.schema.json")).unwrap();
        let allowed = &schema["properties"]["code"]["enum"];
        for code in ErrorCode::VARIANTS {
            let v = serde_json::to_value(code).unwrap();
            assert!(
                allowed.as_array().unwrap().contains(&v),
                "{v} missing from the schema"
            );
        }
    }

    #[test]
    fn codes_serialize_screaming_snake() {
        let v = serde_json::to_value(ErrorCode::ValidationFailed).unwrap();
        assert_eq!(v, "VALIDATION_FAILED");
    }
}
