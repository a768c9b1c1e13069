//! Opens the backends the configuration names, in one place: every CLI
//! command, the in-process evaluation and the benches come through here.
//!
//! The graph store is the remote SPARQL store when its URLs are set, else
//! Oxigraph on disk under `<data-dir>/graph`, else Oxigraph in memory. The
//! document service (embedding model + vector index) is a Qdrant server
//! collection when `--qdrant-url` is set, else qdrant-edge under
//! `<data-dir>/vectors`, else qdrant-edge in a scratch directory.

use crate::assets::Assets;
use crate::config::{BackendConfig, IndexConfig};
use crate::ingest::{DocService, OpenError};
use crate::store::{EmbeddedStore, GraphStore, RemoteStore, StoreError};
use std::path::PathBuf;
use std::sync::Arc;

/// Where the embedded backends keep their data, when no remote one is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Embedded {
    /// `<dir>/graph` (RocksDB) and `<dir>/vectors` (qdrant-edge).
    Disk(PathBuf),
    /// An in-memory graph store and a scratch vector directory: nothing
    /// persists.
    Memory,
}

impl Embedded {
    /// `Memory` when `memory`, else `Disk(data_dir)`: the CLI's
    /// `--memory` / `--data-dir`.
    pub fn new(memory: bool, data_dir: PathBuf) -> Self {
        if memory {
            Self::Memory
        } else {
            Self::Disk(data_dir)
        }
    }
}

/// Why a graph store cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The remote SPARQL store does not answer, or its URLs are unusable.
    #[error("cannot use the remote SPARQL store")]
    Remote(#[source] StoreError),
    /// The store on disk cannot be opened; most often another process
    /// holds its lock.
    #[error("is another daemoniq process using this --data-dir?")]
    Disk(#[source] StoreError),
    /// The in-memory store cannot be created.
    #[error(transparent)]
    Memory(StoreError),
}

/// The graph store: remote when its URLs are set, else embedded.
pub async fn open_store(
    config: &BackendConfig,
    embedded: &Embedded,
) -> Result<Arc<dyn GraphStore>, BackendError> {
    if let Some(remote) = config.sparql() {
        let store = RemoteStore::connect(remote)
            .await
            .map_err(BackendError::Remote)?;
        return Ok(Arc::new(store));
    }
    Ok(match embedded {
        Embedded::Disk(dir) => {
            Arc::new(EmbeddedStore::open(&dir.join("graph")).map_err(BackendError::Disk)?)
        }
        Embedded::Memory => Arc::new(EmbeddedStore::in_memory().map_err(BackendError::Memory)?),
    })
}

/// The document service over `store`: a Qdrant collection when its URL is
/// set, else qdrant-edge (under `<dir>/vectors`, or in a scratch directory).
/// Reports (`index_metadata.json`, `index_errors.json`) go to `report_dir`.
pub async fn open_docs(
    index: &IndexConfig,
    config: &BackendConfig,
    embedded: &Embedded,
    store: Arc<dyn GraphStore>,
    assets: &Assets,
    report_dir: PathBuf,
) -> Result<DocService, OpenError> {
    match config.qdrant() {
        Some(qdrant) => DocService::open_qdrant(index, store, assets, qdrant, report_dir).await,
        None => {
            let dir = match embedded {
                Embedded::Disk(dir) => Some(dir.join("vectors")),
                Embedded::Memory => None,
            };
            DocService::open(index, store, assets, dir.as_deref(), report_dir).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn no_url_and_no_dir_is_the_store_in_memory() {
        let store = open_store(&BackendConfig::default(), &Embedded::Memory)
            .await
            .unwrap();
        assert_eq!(store.backend(), "oxigraph-memory");
    }

    #[tokio::test]
    async fn a_data_dir_is_the_store_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let embedded = Embedded::new(false, dir.path().to_path_buf());
        let store = open_store(&BackendConfig::default(), &embedded)
            .await
            .unwrap();
        assert_eq!(store.backend(), "oxigraph-rocksdb");
        assert!(dir.path().join("graph").is_dir());
    }

    #[tokio::test]
    async fn sparql_urls_are_the_remote_store() {
        let config = BackendConfig {
            sparql_query_url: Some("not a url".into()),
            sparql_update_url: Some("not a url".into()),
            ..BackendConfig::default()
        };
        let err = open_store(&config, &Embedded::Memory).await.err();
        assert!(matches!(err, Some(BackendError::Remote(_))), "{err:?}");
    }
}
