//! Helpers shared by the integration tests.
#![allow(dead_code)]

use daemoniq::assets::Assets;
use daemoniq::config::{AnswerConfig, HttpConfig};
use daemoniq::ingest::DocService;
use daemoniq::ontology::Ontology;
use daemoniq::store::{EmbeddedStore, GraphStore};
use daemoniq::{AppParts, AppState, Snapshot, Sources};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::{OnceCell, oneshot};

pub mod data;
pub mod http;

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/data`. When it is absent: in CI (`CI=true`) the test fails
/// here; elsewhere this says SKIPPED on stderr and gives `None` (see
/// [`data::missing`]).
pub fn shared_data() -> Option<PathBuf> {
    data::shared_data("")
}

/// The asset cache; panics with what to run when Brick is missing.
pub fn assets() -> Assets {
    let dir = std::env::var_os("DAEMONIQ_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(daemoniq::config::default_assets_dir);
    let assets = Assets::new(dir);
    if let Err(e) = assets.require_brick() {
        panic!("{e}");
    }
    assets
}

/// Sources: Brick + `ontology/`, and the given model directories.
pub fn sources(graph_dirs: Vec<PathBuf>) -> Sources {
    Sources {
        assets: assets(),
        ontology_dir: root().join("ontology"),
        graph_dirs,
        root: root(),
    }
}

/// A fresh in-memory store with the ontology loaded (no building models).
pub async fn ontology_store() -> (Arc<dyn GraphStore>, Ontology) {
    let store: Arc<dyn GraphStore> = Arc::new(EmbeddedStore::in_memory().unwrap());
    let (_, ontology) = sources(Vec::new()).sync(store.as_ref()).await.unwrap();
    (store, ontology)
}

/// A fresh in-memory store loaded with the ontology and `graph/` (the demo
/// campus).
pub async fn campus_store() -> (Arc<dyn GraphStore>, Ontology) {
    let store: Arc<dyn GraphStore> = Arc::new(EmbeddedStore::in_memory().unwrap());
    let (_, ontology) = sources(vec![root().join("graph")])
        .sync(store.as_ref())
        .await
        .unwrap();
    (store, ontology)
}

/// App state over `store`, built complete in one step.
pub async fn state_over(
    store: Arc<dyn GraphStore>,
    ontology: Ontology,
    http: HttpConfig,
    docs: Option<Arc<DocService>>,
    answer: AnswerConfig,
) -> Arc<AppState> {
    let snapshot = Snapshot::build(store.as_ref(), ontology).await.unwrap();
    AppState::open(AppParts {
        store,
        snapshot,
        http,
        docs,
        answer,
    })
    .unwrap()
}

/// Builds app state over a fresh in-memory store loaded with the ontology
/// and `graph/` (the demo campus).
pub async fn fresh_campus_state(http: HttpConfig) -> Arc<AppState> {
    let (store, ontology) = campus_store().await;
    state_over(store, ontology, http, None, AnswerConfig::default()).await
}

static CAMPUS: OnceCell<Arc<AppState>> = OnceCell::const_new();

/// Shared read-only state with the demo campus (loaded once per test binary).
pub async fn campus_state() -> Arc<AppState> {
    CAMPUS
        .get_or_init(|| fresh_campus_state(HttpConfig::default()))
        .await
        .clone()
}

/// A server on 127.0.0.1:0, stopped (gracefully) when dropped.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    stop: Option<oneshot::Sender<()>>,
    handle: Option<tokio::task::JoinHandle<()>>,
}

impl TestServer {
    /// Starts serving `state`.
    pub async fn start(state: Arc<AppState>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = oneshot::channel::<()>();
        let handle = tokio::spawn(async move {
            daemoniq::serve(listener, state, async {
                let _ = rx.await;
            })
            .await
            .unwrap();
        });
        Self {
            base,
            stop: Some(tx),
            handle: Some(handle),
        }
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Stops the server and waits for it to drain.
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(h) = self.handle.take() {
            h.await.unwrap();
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// Compiles a schema from `schemas/`.
pub fn schema(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("schemas").join(name)).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&value).unwrap()
}

/// Asserts that `value` validates against `schemas/<name>`.
pub fn assert_valid(name: &str, value: &serde_json::Value) {
    let v = schema(name);
    let errors: Vec<String> = v.iter_errors(value).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{value} fails {name}: {errors:?}");
}

/// Path under the test fixtures.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// Whether a path exists. When it does not: in CI (`CI=true`) the test fails
/// here; elsewhere this says SKIPPED on stderr and gives `false`.
pub fn exists_or_skip(p: &Path) -> bool {
    data::require(p, "test data", data::in_ci()).is_some()
}

/// GET `uri` through the campus router (no socket) and parse the JSON body.
pub async fn get_json(uri: &str) -> (axum::http::StatusCode, serde_json::Value) {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let app = daemoniq::app(campus_state().await);
    let resp = app
        .oneshot(
            axum::http::Request::get(uri)
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap())
}

/// The remote SPARQL store named by `DAEMONIQ_TEST_SPARQL_URL` (a server
/// base URL with `/query` and `/update` under it, as Oxigraph server and
/// Fuseki datasets have), or why there is none. In CI there must be one:
/// `scripts/test.sh` starts an Oxigraph server itself, so without the
/// variable the test fails there instead of skipping.
pub fn remote_sparql() -> Result<daemoniq::store::RemoteSettings, String> {
    let Ok(base) = std::env::var("DAEMONIQ_TEST_SPARQL_URL") else {
        let why = "DAEMONIQ_TEST_SPARQL_URL is not set";
        if data::in_ci() {
            data::missing(
                &format!("{why} (scripts/test.sh starts an Oxigraph server and sets it)"),
                true,
            );
        }
        return Err(why.to_owned());
    };
    let base = base.trim_end_matches('/');
    Ok(daemoniq::store::RemoteSettings {
        query_url: format!("{base}/query"),
        update_url: format!("{base}/update"),
        user: std::env::var("DAEMONIQ_TEST_SPARQL_USER").ok(),
        password: std::env::var("DAEMONIQ_TEST_SPARQL_PASSWORD").ok(),
        timeout: std::time::Duration::from_secs(60),
        retries: 3,
        // Set when the test server runs with a union default graph.
        server_union: std::env::var("DAEMONIQ_TEST_SPARQL_SERVER_UNION").is_ok_and(|v| v == "1"),
    })
}

/// Says on stderr that a test against an external server was skipped, and
/// why. Used as is in CI too, for a server that CI cannot start (Qdrant:
/// `scripts/test.sh` says its suites were skipped); a server that
/// `scripts/test.sh` starts itself is required in CI (see [`remote_sparql`]).
/// Written straight to stderr, past the test harness's capture, so the skip
/// shows in the test output.
pub fn skip_remote(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {test}: {why}; it needs an external server and did not run"
    );
}
