//! The HTTP API (axum). One file per resource; handlers extract, call the
//! library, serialise. Nothing here knows how the store works.

pub mod chat;
mod documents;
pub mod error;
mod explore;
mod ground;
pub mod guard;
mod health;
pub mod metrics;
pub mod openapi;
pub mod request_id;
mod schema;
pub mod sparql;
mod topology;
pub mod ui;

use crate::state::AppState;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::http::{HeaderName, HeaderValue, Method};
use axum::routing::{MethodRouter, delete, get, post};
use error::{ApiError, ApiResult};

use std::sync::Arc;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{AllowOrigin, Any, CorsLayer};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

/// Response header set when `--max-rows` cut a SPARQL result.
pub const TRUNCATED_HEADER: &str = "x-daemoniq-truncated";

/// Shared state as handlers see it.
pub type SharedState = Arc<AppState>;

/// One operation the router serves.
pub struct Route {
    /// The path template, written alike by axum and OpenAPI.
    pub path: &'static str,
    /// The method.
    pub method: Method,
    /// The handler, given the upload body limit.
    handler: fn(usize) -> MethodRouter<SharedState>,
}

impl Route {
    const fn new(
        path: &'static str,
        method: Method,
        handler: fn(usize) -> MethodRouter<SharedState>,
    ) -> Self {
        Self {
            path,
            method,
            handler,
        }
    }
}

/// Every API operation the router serves: [`router`] is built from this
/// list (and the web UI's files, [`ui::router`], which are not API
/// operations), and the OpenAPI test checks that the document describes
/// each one and no other (tests/integration/openapi.rs).
pub static ROUTES: [Route; 21] = [
    Route::new("/health", Method::GET, |_| get(health::health)),
    Route::new("/openapi.json", Method::GET, |_| get(openapi::serve)),
    Route::new("/sparql", Method::GET, |_| get(sparql::get_query)),
    Route::new("/sparql", Method::POST, |_| post(sparql::post_query)),
    Route::new("/api/schema/classes", Method::GET, |_| get(schema::classes)),
    Route::new("/api/schema/class", Method::GET, |_| get(schema::class)),
    Route::new("/api/schema/tags", Method::GET, |_| get(schema::tags)),
    Route::new("/api/topology/node", Method::GET, |_| get(topology::node)),
    Route::new("/api/topology/upstream", Method::GET, |_| {
        get(topology::upstream)
    }),
    Route::new("/api/topology/downstream", Method::GET, |_| {
        get(topology::downstream)
    }),
    Route::new("/api/topology/subgraph", Method::GET, |_| {
        get(topology::subgraph)
    }),
    Route::new("/api/search", Method::GET, |_| get(explore::search)),
    Route::new("/api/node", Method::GET, |_| get(explore::node_card)),
    Route::new("/api/ui/config", Method::GET, |_| get(explore::ui_config)),
    Route::new("/ingest", Method::POST, |upload| {
        post(documents::ingest).layer(DefaultBodyLimit::max(upload))
    }),
    Route::new("/api/documents", Method::GET, |_| get(documents::list)),
    Route::new("/api/documents/{source_id}", Method::DELETE, |_| {
        delete(documents::delete)
    }),
    Route::new("/api/ground", Method::POST, |_| post(ground::ground)),
    Route::new("/chat", Method::POST, |_| post(chat::chat)),
    Route::new("/retrieve", Method::POST, |_| post(chat::retrieve)),
    Route::new("/metrics", Method::GET, |_| get(metrics::metrics)),
];

/// The router with every route and middleware.
pub fn router(state: SharedState) -> Router {
    let cors = cors_layer(&state.http.cors_origins);
    let max_body = state.http.max_body_bytes;
    let max_upload = documents::upload_limit(state.docs().as_deref());
    // Built now, so that a document that cannot be built fails the start
    // rather than a request.
    openapi::json_text(&state.http);
    let mut routes = Router::new();
    for route in &ROUTES {
        routes = routes.route(route.path, (route.handler)(max_upload));
    }
    routes
        .merge(ui::router())
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(guard::Guard::new(&state.http, Arc::clone(&state.metrics))),
            guard::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state.metrics),
            metrics::track,
        ))
        .layer(cors)
        .layer(catch_panic())
        .layer(TraceLayer::new_for_http().make_span_with(request_id::span))
        .layer(PropagateRequestIdLayer::new(request_id::HEADER))
        .layer(SetRequestIdLayer::new(request_id::HEADER, MakeRequestUuid))
        .layer(axum::middleware::from_fn(request_id::sanitize))
        .with_state(state)
}

/// Turns a panic in a handler into a schema-valid 500 (`INTERNAL`) instead
/// of a dropped connection. The panic's message is not logged here: it may
/// quote request or document text; [`log_panics`] logs where it happened.
pub fn catch_panic()
-> CatchPanicLayer<fn(Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response> {
    fn respond(_payload: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
        use axum::response::IntoResponse;
        ApiError::internal(
            error::ErrorCode::Internal,
            "a request handler panicked; the panic's location is logged just before",
        )
        .into_response()
    }
    CatchPanicLayer::custom(respond as fn(Box<dyn std::any::Any + Send + 'static>) -> _)
}

/// Replaces the default panic hook (which prints the panic's message, and a
/// message may quote a question or a chunk) with one structured log line
/// that records where the panic happened and in which thread, not what it
/// said.
pub fn log_panics() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        let thread = std::thread::current();
        tracing::error!(
            %location,
            thread = thread.name().unwrap_or("unnamed"),
            "panic (message withheld: it may quote request or document text)"
        );
    }));
}

fn cors_layer(origins: &[String]) -> CorsLayer {
    let layer = CorsLayer::new()
        .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
        .allow_headers(Any)
        .expose_headers([
            HeaderName::from_static(TRUNCATED_HEADER),
            request_id::HEADER,
        ]);
    if origins.iter().any(|o| o == "*") {
        layer.allow_origin(Any)
    } else {
        let list: Vec<HeaderValue> = origins
            .iter()
            .filter_map(|o| HeaderValue::from_str(o).ok())
            .collect();
        layer.allow_origin(AllowOrigin::list(list))
    }
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such route; see the README's HTTP API section")
}

/// Turns a query-string rejection into a 400 with the parser's reason.
pub(crate) fn params<T>(q: Result<axum::extract::Query<T>, QueryRejection>) -> ApiResult<T> {
    q.map(|axum::extract::Query(v)| v)
        .map_err(|e| ApiError::invalid(format!("invalid query parameters: {}", e.body_text())))
}

/// Turns a body rejection into 413 or 400.
pub(crate) fn body(
    b: Result<axum::body::Bytes, BytesRejection>,
    limit: usize,
) -> ApiResult<axum::body::Bytes> {
    b.map_err(|e| {
        if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large(limit)
        } else {
            ApiError::invalid(format!("cannot read the request body: {}", e.body_text()))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    #[tokio::test]
    async fn a_panicking_handler_answers_a_schema_valid_500() {
        async fn boom() -> &'static str {
            let words: Vec<&str> = Vec::new();
            words[3]
        }
        let app = Router::new().route("/boom", get(boom)).layer(catch_panic());
        let response = app
            .oneshot(Request::get("/boom").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../schemas/error.schema.json")).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert!(validator.is_valid(&body), "{body}");
        assert_eq!(body["code"], "INTERNAL");
    }
}
