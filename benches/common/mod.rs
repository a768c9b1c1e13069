//! What the benches share: the repository root, the asset cache, the demo
//! campus sources, and a graph-only state over them.
#![allow(dead_code)]

use daemoniq::backends::{self, Embedded};
use daemoniq::config::{AnswerConfig, BackendConfig, HttpConfig};
use daemoniq::{AppParts, AppState, Snapshot, Sources, assets::Assets};
use std::path::PathBuf;
use std::sync::Arc;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The asset cache (`DAEMONIQ_ASSETS`, else the default).
pub fn assets() -> Assets {
    let dir = std::env::var_os("DAEMONIQ_ASSETS")
        .map(PathBuf::from)
        .unwrap_or_else(daemoniq::config::default_assets_dir);
    Assets::new(dir)
}

/// Brick, `ontology/` and the demo campus (`graph/`).
pub fn campus_sources() -> Sources {
    Sources {
        assets: assets(),
        ontology_dir: root().join("ontology"),
        graph_dirs: vec![root().join("graph")],
        root: root(),
    }
}

/// The demo campus in an in-memory store: the graph API, no documents.
pub async fn campus_state() -> Arc<AppState> {
    let store = backends::open_store(&BackendConfig::default(), &Embedded::Memory)
        .await
        .unwrap();
    let (_, ontology) = campus_sources().sync(store.as_ref()).await.unwrap();
    let snapshot = Snapshot::build(store.as_ref(), ontology).await.unwrap();
    AppState::open(AppParts {
        store,
        snapshot,
        http: HttpConfig::default(),
        docs: None,
        answer: AnswerConfig::default(),
    })
    .unwrap()
}
