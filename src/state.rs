//! Application state and the start-up load of ontology and building models.

use crate::answer::audit::AuditLog;
use crate::answer::respell::Spelling;
use crate::assets::{Assets, MissingAsset};
use crate::config::{AnswerConfig, HttpConfig};
use crate::ground::Grounder;
use crate::import::{self, ImportError, ImportOutcome, SourceFile};
use crate::ingest::DocService;
use crate::ontology::Ontology;
use crate::store::{GraphKind, GraphStore, StoreResult};
use crate::text::Cues;
use crate::topology::Topology;
use arc_swap::ArcSwap;
use std::path::PathBuf;
use std::sync::Arc;
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

/// What is derived from the store and swapped as one when the graph
/// changes: the ontology index, the topology projection, the grounder's
/// lexicon and the question cues. A reader holding a snapshot sees them all
/// of one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The ontology index.
    pub ontology: Arc<Ontology>,
    /// The topology projection.
    pub topology: Arc<Topology>,
    /// The grounder.
    pub grounder: Arc<Grounder>,
    /// The question cues (`dq:QuestionCue`).
    pub cues: Arc<Cues>,
    /// Shorthand and vocabulary a question is respelled with.
    pub spelling: Arc<Spelling>,
}

impl Snapshot {
    /// Builds the derived parts over a store whose sources are loaded.
    pub async fn build(store: &dyn GraphStore, ontology: Ontology) -> StoreResult<Self> {
        let topology = Topology::build(store).await?;
        let grounder = Grounder::load(store, &ontology).await?;
        let cues = Cues::load(store).await?;
        let spelling = Spelling::load(store, &grounder, &cues, &ontology).await?;
        Ok(Self {
            ontology: Arc::new(ontology),
            topology: Arc::new(topology),
            grounder: Arc::new(grounder),
            cues: Arc::new(cues),
            spelling: Arc::new(spelling),
        })
    }
}

/// Everything [`AppState::open`] needs.
pub struct AppParts {
    /// The graph store.
    pub store: Arc<dyn GraphStore>,
    /// What is derived from it ([`Snapshot::build`]).
    pub snapshot: Snapshot,
    /// HTTP limits.
    pub http: HttpConfig,
    /// The document service (embedding model + vector index), if any.
    pub docs: Option<Arc<DocService>>,
    /// The query pipeline's configuration; its `audit_log` is opened.
    pub answer: AnswerConfig,
}

/// The audit log named by the configuration cannot be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the audit log")]
pub struct AuditLogError(#[source] pub std::io::Error);

/// Shared state of the HTTP API, the CLI's `ask` and the evaluation.
pub struct AppState {
    /// The graph store.
    pub store: Arc<dyn GraphStore>,
    /// HTTP limits.
    pub http: HttpConfig,
    /// When the server started.
    pub started: Instant,
    /// What `GET /metrics` reports.
    pub metrics: Arc<crate::http::metrics::Metrics>,
    snapshot: ArcSwap<Snapshot>,
    docs: Option<Arc<DocService>>,
    answer: Arc<AnswerConfig>,
    audit: Option<Arc<AuditLog>>,
}

impl AppState {
    /// The state, complete: opens the audit log when the configuration
    /// names one.
    pub fn open(parts: AppParts) -> Result<Arc<Self>, AuditLogError> {
        let audit = match &parts.answer.audit_log {
            Some(path) => {
                let log = AuditLog::open(path).map_err(AuditLogError)?;
                tracing::info!(path = %path.display(), "audit log open");
                Some(Arc::new(log))
            }
            None => None,
        };
        Ok(Arc::new(Self {
            store: parts.store,
            http: parts.http,
            started: Instant::now(),
            metrics: Arc::default(),
            snapshot: ArcSwap::from_pointee(parts.snapshot),
            docs: parts.docs,
            answer: Arc::new(parts.answer),
            audit,
        }))
    }

    /// The current ontology index, topology and grounder, of one moment.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot.load_full()
    }

    /// The current ontology index.
    pub fn ontology(&self) -> Arc<Ontology> {
        Arc::clone(&self.snapshot.load().ontology)
    }

    /// The current topology projection.
    pub fn topology(&self) -> Arc<Topology> {
        Arc::clone(&self.snapshot.load().topology)
    }

    /// The current grounder.
    pub fn grounder(&self) -> Arc<Grounder> {
        Arc::clone(&self.snapshot.load().grounder)
    }

    /// The current question cues.
    pub fn cues(&self) -> Arc<Cues> {
        Arc::clone(&self.snapshot.load().cues)
    }

    /// The document service, when the state runs with one.
    pub fn docs(&self) -> Option<Arc<DocService>> {
        self.docs.clone()
    }

    /// The query pipeline's configuration.
    pub fn answer_config(&self) -> Arc<AnswerConfig> {
        Arc::clone(&self.answer)
    }

    /// The audit log, when one is open.
    pub fn audit_log(&self) -> Option<Arc<AuditLog>> {
        self.audit.clone()
    }

    /// Rebuilds the ontology index, topology and grounder after the graph
    /// changed, and swaps them in together.
    pub async fn refresh(&self) -> StoreResult<()> {
        let ontology = Ontology::load(self.store.as_ref()).await?;
        let snapshot = Snapshot::build(self.store.as_ref(), ontology).await?;
        self.snapshot.store(Arc::new(snapshot));
        Ok(())
    }
}
