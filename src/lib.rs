//! DaemonIQ: a knowledge-graph-first GraphRAG server for building automation.
//!
//! The library holds everything; `main.rs` only parses the command line.
//! [`app`] builds the HTTP router over an [`AppState`], and [`serve`] runs it
//! on a listener until a shutdown signal, so tests drive the router without
//! the binary.

pub mod answer;
pub mod assets;
pub mod backends;
pub mod config;
pub mod embed;
pub mod eval;
pub mod explore;
pub mod ground;
pub mod http;
pub mod import;
pub mod ingest;
pub mod ontology;
pub mod results;
pub mod retry;
pub mod schema;
pub mod state;
pub mod store;
pub mod text;
pub mod topology;
pub mod validate;
pub mod vector;
pub mod vocab;

/// Missing test data fails the unit tests in CI (`CI=true`) and skips them
/// elsewhere; the same rule as the integration tests, which use more of it.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../tests/common/data.rs"]
mod test_data;

pub use state::{AppParts, AppState, Snapshot, Sources};

use std::future::Future;
use std::sync::Arc;
use tokio::net::TcpListener;

/// The HTTP router over the given state.
pub fn app(state: Arc<AppState>) -> axum::Router {
    http::router(state)
}

/// Serves the API on `listener` until `shutdown` completes, then drains
/// in-flight requests.
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // The peer address names a client that sends no API key (rate limits).
    let app = app(state).into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}
