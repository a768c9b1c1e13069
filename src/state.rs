//! Application state and the start-up load of ontology and building models.

use crate::answer::audit::AuditLog;
use crate::assets::{Assets, MissingAsset};
use crate::config::{AnswerConfig, HttpConfig};
use crate::ground::Grounder;
use crate::import::{self, ImportError, ImportOutcome, SourceFile};
use crate::ontology::Ontology;
use crate::store::{GraphKind, GraphStore, StoreResult};
use crate::topology::Topology;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Instant;

/// The files loaded at start: Brick from the assets, the project's ontology,
/// and the building models.
#[derive(Debug, Clone)]
pub struct Sources {
    /// The asset cache.
    pub assets: Assets,
    /// `ontology/`.
    pub ontology_dir: PathBuf,
    /// `graph/` and any other model directories.
    pub graph_dirs: Vec<PathBuf>,
    /// What relative source paths are relative to.
    pub root: PathBuf,
}

/// Why loading the sources failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// An asset is missing.
    #[error(transparent)]
    MissingAsset(#[from] MissingAsset),
    /// A directory of sources cannot be read.
    #[error("cannot read {path}: {source}")]
    Dir {
        /// The directory.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A file failed to import.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

fn list(dir: &std::path::Path) -> Result<Vec<PathBuf>, LoadError> {
    import::files_under(dir).map_err(|source| LoadError::Dir {
        path: dir.display().to_string(),
        source,
    })
}

impl Sources {
    /// The ontology sources: Brick first, then `ontology/`.
    pub fn ontology_files(&self) -> Result<Vec<SourceFile>, LoadError> {
        let brick = self.assets.require_brick()?;
        let mut files = vec![SourceFile {
            rel_path: format!(
                "assets/{}",
                import::relative_path(&brick, self.assets.dir())
            ),
            path: brick,
            kind: GraphKind::Ontology,
        }];
        for path in list(&self.ontology_dir)? {
            files.push(SourceFile::new(path, &self.root, GraphKind::Ontology));
        }
        Ok(files)
    }

    /// The building models under the graph directories.
    pub fn model_files(&self) -> Result<Vec<SourceFile>, LoadError> {
        let mut files = Vec::new();
        for dir in &self.graph_dirs {
            for path in list(dir)? {
                files.push(SourceFile::new(path, &self.root, GraphKind::Model));
            }
        }
        Ok(files)
    }

    /// Brings the store in line with the files: imports new and changed
    /// files, skips unchanged ones, and drops graphs of files that were
    /// deleted from the managed directories. Returns the ontology index.
    pub async fn sync(
        &self,
        store: &dyn GraphStore,
    ) -> Result<(Vec<ImportOutcome>, Ontology), LoadError> {
        let mut outcomes = Vec::new();
        let ontology_files = self.ontology_files()?;
        for f in &ontology_files {
            outcomes.push(import::import_file(store, None, f).await?);
        }
        let ontology = Ontology::load(store).await?;
        let model_files = self.model_files()?;
        for f in &model_files {
            outcomes.push(import::import_file(store, Some(&ontology), f).await?);
        }
        let managed: Vec<String> = std::iter::once(&self.ontology_dir)
            .chain(&self.graph_dirs)
            .map(|d| format!("{}/", import::relative_path(d, &self.root)))
            .collect();
        let present: Vec<String> = ontology_files
            .iter()
            .chain(&model_files)
            .map(SourceFile::graph_iri)
            .collect();
        for record in store.sources().await? {
            let is_managed = managed.iter().any(|m| record.path.starts_with(m));
            if is_managed && record.kind != GraphKind::Document && !present.contains(&record.graph)
            {
                tracing::info!(path = %record.path, "source file removed; dropping its graph");
                store.remove_graph(&record.graph).await?;
            }
        }
        Ok((outcomes, ontology))
    }
}

/// Shared state of the HTTP API.
pub struct AppState {
    /// The graph store.
    pub store: Arc<dyn GraphStore>,
    /// HTTP limits.
    pub http: HttpConfig,
    /// When the server started.
    pub started: Instant,
    ontology: RwLock<Arc<Ontology>>,
    topology: RwLock<Arc<Topology>>,
    docs: std::sync::OnceLock<Arc<crate::ingest::DocService>>,
    grounder: RwLock<Arc<Grounder>>,
    cues: RwLock<Arc<crate::text::Cues>>,
    answer: RwLock<Arc<AnswerConfig>>,
    audit: std::sync::OnceLock<Arc<AuditLog>>,
}

impl AppState {
    /// State over a store whose sources are loaded; builds the topology.
    pub async fn new(
        store: Arc<dyn GraphStore>,
        ontology: Ontology,
        http: HttpConfig,
    ) -> StoreResult<Arc<Self>> {
        let topology = Topology::build(store.as_ref()).await?;
        let grounder = Grounder::load(store.as_ref(), &ontology).await?;
        let cues = crate::text::Cues::load(store.as_ref()).await?;
        Ok(Arc::new(Self {
            store,
            http,
            started: Instant::now(),
            ontology: RwLock::new(Arc::new(ontology)),
            topology: RwLock::new(Arc::new(topology)),
            docs: std::sync::OnceLock::new(),
            grounder: RwLock::new(Arc::new(grounder)),
            cues: RwLock::new(Arc::new(cues)),
            answer: RwLock::new(Arc::new(AnswerConfig::default())),
            audit: std::sync::OnceLock::new(),
        }))
    }

    /// The current ontology index.
    pub fn ontology(&self) -> Arc<Ontology> {
        Arc::clone(&self.ontology.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Attaches the document service (embedding model + vector index). A
    /// second call is ignored.
    pub fn set_docs(&self, docs: Arc<crate::ingest::DocService>) {
        if self.docs.set(docs).is_err() {
            tracing::warn!("document service already attached; ignoring the second one");
        }
    }

    /// The document service, when the server runs with one.
    pub fn docs(&self) -> Option<Arc<crate::ingest::DocService>> {
        self.docs.get().cloned()
    }

    /// Sets the query pipeline's weights and thresholds, and opens its
    /// audit log when the configuration names one.
    pub fn set_answer_config(&self, cfg: AnswerConfig) -> std::io::Result<()> {
        if let Some(path) = &cfg.audit_log {
            let log = AuditLog::open(path)?;
            tracing::info!(path = %path.display(), "audit log open");
            if self.audit.set(Arc::new(log)).is_err() {
                tracing::warn!("audit log already open; keeping the first one");
            }
        }
        *self.answer.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(cfg);
        Ok(())
    }

    /// The query pipeline's configuration.
    pub fn answer_config(&self) -> Arc<AnswerConfig> {
        Arc::clone(&self.answer.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// The audit log, when one is open.
    pub fn audit_log(&self) -> Option<Arc<AuditLog>> {
        self.audit.get().cloned()
    }

    /// The current topology projection.
    pub fn topology(&self) -> Arc<Topology> {
        Arc::clone(&self.topology.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// The current grounder.
    pub fn grounder(&self) -> Arc<Grounder> {
        Arc::clone(&self.grounder.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// The question cues.
    pub fn cues(&self) -> Arc<crate::text::Cues> {
        Arc::clone(&self.cues.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Rebuilds the ontology index, topology and grounder after the graph
    /// changed.
    pub async fn refresh(&self) -> StoreResult<()> {
        let ontology = Ontology::load(self.store.as_ref()).await?;
        let topology = Topology::build(self.store.as_ref()).await?;
        let grounder = Grounder::load(self.store.as_ref(), &ontology).await?;
        let cues = crate::text::Cues::load(self.store.as_ref()).await?;
        *self.cues.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(cues);
        *self.ontology.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(ontology);
        *self.topology.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(topology);
        *self.grounder.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(grounder);
        Ok(())
    }
}
