//! The HTTP error contract: stable codes, one table mapping them to statuses.
//!
//! Every error body is `{code, message, details, retry_after}`
//! (`schemas/error.schema.json`). Server faults get a generic message; the
//! detail is logged once, here, at the boundary.

use crate::store::StoreError;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// Stable, machine-readable error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
    /// Every code, for the schema check.
    pub const ALL: [Self; 15] = [
        Self::ValidationFailed,
        Self::MalformedQuery,
        Self::UpdateForbidden,
        Self::ServiceForbidden,
        Self::QueryTimeout,
        Self::QueryFailed,
        Self::NotFound,
        Self::AmbiguousNode,
        Self::UnsupportedMediaType,
        Self::NotAcceptable,
        Self::PayloadTooLarge,
        Self::StoreUnavailable,
        Self::IndexUnavailable,
        Self::EmbeddingFailed,
        Self::Internal,
    ];

    /// The HTTP status of each code. Exhaustive, so a new code cannot ship unmapped.
    pub fn status(self) -> StatusCode {
        match self {
            Self::ValidationFailed | Self::MalformedQuery | Self::QueryFailed => {
                StatusCode::BAD_REQUEST
            }
            Self::UpdateForbidden | Self::ServiceForbidden => StatusCode::FORBIDDEN,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::AmbiguousNode => StatusCode::CONFLICT,
            Self::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::QueryTimeout | Self::StoreUnavailable | Self::IndexUnavailable => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            Self::Internal | Self::EmbeddingFailed => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// An error as the HTTP API returns it.
#[derive(Debug, Clone, Serialize)]
pub struct ApiError {
    /// Stable code.
    pub code: ErrorCode,
    /// What happened, in words a person can act on.
    pub message: String,
    /// Structured detail (candidates, parser position …), or null.
    pub details: Option<serde_json::Value>,
    /// Seconds after which a retry may succeed, or null.
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: None,
            retry_after: None,
        }
    }

    /// Adds structured details.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(details);
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

    /// A server fault: the detail is logged, the client gets a generic message.
    pub fn internal(code: ErrorCode, detail: impl std::fmt::Display) -> Self {
        tracing::error!(code = ?code, detail = %detail, "request failed");
        let message = match code {
            ErrorCode::StoreUnavailable => "The graph store is unavailable. Try again shortly.",
            ErrorCode::IndexUnavailable => "The vector index is unavailable. Try again shortly.",
            ErrorCode::EmbeddingFailed => {
                "Embedding generation failed. The server log has the detail."
            }
            _ => "An internal error occurred. The server log has the detail.",
        };
        Self::new(code, message)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        Self::from(&e)
    }
}

impl From<&StoreError> for ApiError {
    fn from(e: &StoreError) -> Self {
        match e {
            StoreError::Syntax(msg) => Self::new(ErrorCode::MalformedQuery, msg.clone()),
            StoreError::UpdateRefused => Self::new(ErrorCode::UpdateForbidden, e.to_string()),
            StoreError::ServiceRefused(_) => Self::new(ErrorCode::ServiceForbidden, e.to_string()),
            StoreError::Timeout(_) => {
                let mut err = Self::new(ErrorCode::QueryTimeout, e.to_string());
                err.retry_after = Some(1);
                err
            }
            StoreError::Evaluation(msg) => Self::new(ErrorCode::QueryFailed, msg.clone()),
            StoreError::InvalidRdf(msg) => Self::new(ErrorCode::ValidationFailed, msg.clone()),
            StoreError::Storage(detail) => {
                // A store that is down (a remote endpoint restarting, a disk
                // gone) may be back shortly, as with the vector index.
                let mut err = Self::internal(ErrorCode::StoreUnavailable, detail);
                err.retry_after = Some(5);
                err
            }
        }
    }
}

impl From<crate::vector::VectorError> for ApiError {
    fn from(e: crate::vector::VectorError) -> Self {
        let mut err = Self::internal(ErrorCode::IndexUnavailable, &e);
        err.retry_after = Some(5);
        err
    }
}

impl From<crate::answer::RequestError> for ApiError {
    fn from(e: crate::answer::RequestError) -> Self {
        Self::invalid(e.to_string())
            .with_details(serde_json::json!({ "field": e.field, "reason": e.reason }))
    }
}

impl From<&crate::answer::Fault> for ApiError {
    fn from(f: &crate::answer::Fault) -> Self {
        use crate::answer::Fault;
        match f {
            Fault::Index(e) => {
                let mut err = Self::internal(ErrorCode::IndexUnavailable, e);
                err.retry_after = Some(5);
                err
            }
            Fault::Embed(e) => Self::internal(ErrorCode::EmbeddingFailed, e),
            Fault::Store(e) => e.into(),
        }
    }
}

impl From<crate::answer::RetrieveError> for ApiError {
    fn from(e: crate::answer::RetrieveError) -> Self {
        match e {
            crate::answer::RetrieveError::Request(e) => e.into(),
            crate::answer::RetrieveError::Fault(f) => (&f).into(),
        }
    }
}

impl From<crate::ingest::IngestError> for ApiError {
    fn from(e: crate::ingest::IngestError) -> Self {
        use crate::ingest::IngestError;
        match e {
            IngestError::Store(e) => e.into(),
            IngestError::Vector(e) => e.into(),
            IngestError::Embed(e) => Self::internal(ErrorCode::EmbeddingFailed, e),
            IngestError::Task(e) => Self::internal(ErrorCode::Internal, e),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.code.status();
        let retry = self.retry_after;
        let mut response = (status, axum::Json(self)).into_response();
        if let Some(secs) = retry
            && let Ok(v) = HeaderValue::from_str(&secs.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        response
    }
}

/// Result type of HTTP handlers.
pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

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
    fn every_code_is_in_the_error_schema() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../schemas/error.schema.json")).unwrap();
        let allowed = &schema["properties"]["code"]["enum"];
        for code in ErrorCode::ALL {
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
