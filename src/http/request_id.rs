//! One id per request: `x-request-id` in and out (tower-http), the same id
//! in the `/chat` envelope, the audit log and the span every log line of
//! the request is written in.
//!
//! A client's own id is kept when it is short and plain (letters, digits,
//! `-`, `_`, `.`, `:`; at most [`MAX_LEN`] characters), so a caller can
//! follow its request through the logs; anything else is replaced by a new
//! UUID rather than written into a log line.

use axum::Extension;
use axum::extract::Request;
use axum::http::HeaderName;
use axum::middleware::Next;
use axum::response::Response;
use tower_http::request_id::RequestId;

/// The header.
pub const HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// Longest client id kept.
pub const MAX_LEN: usize = 128;

/// Whether a client's id may be kept as it is.
pub fn acceptable(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_LEN
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

/// Drops a client id that is not [`acceptable`], so that the id layer
/// makes a new one.
pub async fn sanitize(mut req: Request, next: Next) -> Response {
    let keep = req
        .headers()
        .get(&HEADER)
        .is_none_or(|v| v.to_str().is_ok_and(acceptable));
    if !keep {
        req.headers_mut().remove(&HEADER);
    }
    next.run(req).await
}

/// The id the layer gave a request, as text.
pub fn of(id: Option<Extension<RequestId>>) -> Option<String> {
    id.and_then(|Extension(id)| id.header_value().to_str().ok().map(str::to_owned))
}

/// The span a request's log lines are written in: method, path, id.
pub fn span(req: &axum::http::Request<axum::body::Body>) -> tracing::Span {
    let id = req
        .headers()
        .get(&HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    tracing::info_span!(
        "request",
        method = %req.method(),
        path = %req.uri().path(),
        request_id = %id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_short_ids_are_kept() {
        assert!(acceptable("abc-123"));
        assert!(acceptable("7f1c2a9e-0000-4000-8000-000000000000"));
        assert!(acceptable("client:req_1.2"));
        assert!(!acceptable(""));
        assert!(!acceptable("a b"));
        assert!(!acceptable("x\ny"));
        assert!(!acceptable(&"a".repeat(MAX_LEN + 1)));
    }
}
