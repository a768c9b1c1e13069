//! The document service the CLI and the HTTP API share: opens the
//! embedding model, tokenizer and vector index, turns paths into
//! [`Input`]s with relative `source_ref`s, runs the [`Ingestor`] and writes
//! the run reports.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::chunk::{ChunkError, ChunkOptions, TokenCounter};
use super::pipeline::{DocOptions, IngestError, IngestSettings, Ingestor, Input};
use super::report::{DocReport, RunReport};
use crate::assets::Assets;
use crate::config::IndexConfig;
use crate::embed::{EmbedError, EmbedOptions, Embedder};
use crate::ground::Grounder;
use crate::store::GraphStore;
use crate::vector::{EdgeIndex, IndexModel, VectorError, VectorIndex};

/// File extensions picked up when a directory is ingested.
pub const DOC_EXTENSIONS: [&str; 6] = ["pdf", "html", "htm", "md", "markdown", "txt"];

/// Why the document service could not start.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The embedding model or ONNX Runtime.
    #[error(transparent)]
    Embed(#[from] EmbedError),
    /// The tokenizer.
    #[error(transparent)]
    Tokenizer(#[from] ChunkError),
    /// The vector index.
    #[error(transparent)]
    Vector(#[from] VectorError),
    /// A directory could not be created.
    #[error("cannot create {path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// A path given to `POST /ingest` that is not allowed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PathError {
    /// Absolute path.
    #[error("{0:?} is absolute; give a path relative to the docs root")]
    Absolute(String),
    /// `..` component or a symlink leading out.
    #[error("{0:?} leads outside the docs root")]
    Outside(String),
    /// No such file.
    #[error("{0:?} does not exist under the docs root")]
    Missing(String),
}

/// Embedding model, tokenizer, vector index and ingestor, opened once.
pub struct DocService {
    ingestor: Ingestor,
    docs_root: PathBuf,
    report_dir: PathBuf,
    /// Holds a scratch index directory alive (in-memory mode).
    _scratch: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for DocService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocService")
            .field("docs_root", &self.docs_root)
            .field("report_dir", &self.report_dir)
            .finish_non_exhaustive()
    }
}

/// Ingest settings from the configuration.
pub fn settings(cfg: &IndexConfig) -> IngestSettings {
    IngestSettings {
        chunk: ChunkOptions {
            max_tokens: cfg.chunk_tokens,
            overlap_tokens: cfg.chunk_overlap,
        },
        max_bytes: cfg.max_doc_bytes,
        duplicate_threshold: cfg.duplicate_threshold,
        skip_duplicates: cfg.skip_duplicates,
        revision: super::pipeline::INGEST_REVISION,
    }
}

fn embedder(cfg: &IndexConfig, assets: &Assets) -> Result<Arc<Embedder>, OpenError> {
    let mut opts = EmbedOptions {
        batch_size: cfg.embed_batch,
        ..EmbedOptions::default()
    };
    if let Some(t) = cfg.ort_threads {
        opts.threads = t;
    }
    Ok(Arc::new(Embedder::from_assets(assets, opts)?))
}

impl DocService {
    /// Opens everything. `index_dir` `None` puts the vector index in a
    /// scratch directory removed on drop (the in-memory mode).
    pub async fn open(
        cfg: &IndexConfig,
        store: Arc<dyn GraphStore>,
        assets: &Assets,
        index_dir: Option<&Path>,
        report_dir: PathBuf,
    ) -> Result<Self, OpenError> {
        let (dir, scratch) = match index_dir {
            Some(d) => (d.to_path_buf(), None),
            None => {
                let t = tempfile::Builder::new()
                    .prefix("daemoniq-vectors-")
                    .tempdir()
                    .map_err(|e| OpenError::Io {
                        path: std::env::temp_dir(),
                        source: e,
                    })?;
                (t.path().to_path_buf(), Some(t))
            }
        };
        let embedder = embedder(cfg, assets)?;
        let model = IndexModel {
            model: embedder.model_id().to_owned(),
            dimension: embedder.dimension(),
        };
        let index: Arc<dyn VectorIndex> = Arc::new(EdgeIndex::open(&dir, model)?);
        let mut service = Self::assemble(cfg, store, assets, embedder, index, report_dir)?;
        service._scratch = scratch;
        Ok(service)
    }

    /// Opens everything with the vector index in a Qdrant server
    /// collection (created on first use, refused when it holds another
    /// model's vectors).
    pub async fn open_qdrant(
        cfg: &IndexConfig,
        store: Arc<dyn GraphStore>,
        assets: &Assets,
        qdrant: crate::vector::QdrantSettings,
        report_dir: PathBuf,
    ) -> Result<Self, OpenError> {
        let embedder = embedder(cfg, assets)?;
        let model = IndexModel {
            model: embedder.model_id().to_owned(),
            dimension: embedder.dimension(),
        };
        let index: Arc<dyn VectorIndex> =
            Arc::new(crate::vector::QdrantIndex::open(qdrant, model).await?);
        Self::assemble(cfg, store, assets, embedder, index, report_dir)
    }

    /// The service over a vector index opened elsewhere (another backend,
    /// or a test double).
    pub fn with_index(
        cfg: &IndexConfig,
        store: Arc<dyn GraphStore>,
        assets: &Assets,
        index: Arc<dyn VectorIndex>,
        report_dir: PathBuf,
    ) -> Result<Self, OpenError> {
        let embedder = embedder(cfg, assets)?;
        Self::assemble(cfg, store, assets, embedder, index, report_dir)
    }

    fn assemble(
        cfg: &IndexConfig,
        store: Arc<dyn GraphStore>,
        assets: &Assets,
        embedder: Arc<Embedder>,
        index: Arc<dyn VectorIndex>,
        report_dir: PathBuf,
    ) -> Result<Self, OpenError> {
        let counter = Arc::new(TokenCounter::from_assets(assets)?);
        let ingestor = Ingestor::new(store, index, embedder, counter, settings(cfg));
        let docs_root =
            std::fs::canonicalize(&cfg.docs_root).unwrap_or_else(|_| cfg.docs_root.clone());
        Ok(Self {
            ingestor,
            docs_root,
            report_dir,
            _scratch: None,
        })
    }

    /// The ingestor.
    pub fn ingestor(&self) -> &Ingestor {
        &self.ingestor
    }

    /// Embeds texts with the model, off the async threads.
    pub async fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, EmbedError> {
        let embedder = Arc::clone(self.ingestor.embedder());
        tokio::task::spawn_blocking(move || embedder.embed(&texts))
            .await
            .map_err(|e| EmbedError::Model(format!("the embedding task failed: {e}")))?
    }

    /// Embeds one text, off the async threads.
    pub async fn embed_one(&self, text: String) -> Result<Vec<f32>, EmbedError> {
        self.embed(vec![text])
            .await?
            .pop()
            .ok_or_else(|| EmbedError::Model("no vector returned".into()))
    }

    /// The docs root (canonical).
    pub fn docs_root(&self) -> &Path {
        &self.docs_root
    }

    /// Where reports are written.
    pub fn report_dir(&self) -> &Path {
        &self.report_dir
    }

    /// Resolves a path given over HTTP: relative, no `..`, existing, and
    /// still under the docs root after symlinks are followed.
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, PathError> {
        let p = Path::new(rel);
        if p.is_absolute() || rel.starts_with('/') || rel.starts_with('\\') {
            return Err(PathError::Absolute(rel.to_owned()));
        }
        if p.components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(PathError::Outside(rel.to_owned()));
        }
        let full = self.docs_root.join(p);
        let canonical =
            std::fs::canonicalize(&full).map_err(|_| PathError::Missing(rel.to_owned()))?;
        if !canonical.starts_with(&self.docs_root) {
            return Err(PathError::Outside(rel.to_owned()));
        }
        Ok(canonical)
    }

    /// The document files under `paths` with their `source_ref`: relative to
    /// the docs root when under it, else relative to the parent of the path
    /// argument they were found through.
    pub fn collect(&self, paths: &[PathBuf]) -> std::io::Result<Vec<(PathBuf, String)>> {
        let mut out = Vec::new();
        for arg in paths {
            let arg_abs = std::fs::canonicalize(arg)?;
            let base = arg_abs.parent().map(Path::to_path_buf).unwrap_or_default();
            let files = if arg_abs.is_dir() {
                doc_files_under(&arg_abs)?
            } else {
                vec![arg_abs.clone()]
            };
            for f in files {
                let rel = f
                    .strip_prefix(&self.docs_root)
                    .or_else(|_| f.strip_prefix(&base))
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|_| PathBuf::from(f.file_name().unwrap_or_default()));
                let source_ref = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((f, source_ref));
            }
        }
        out.sort_by(|a, b| a.1.cmp(&b.1));
        out.dedup_by(|a, b| a.1 == b.1);
        Ok(out)
    }

    /// Reads files into inputs (size-checked).
    pub fn inputs(&self, files: &[(PathBuf, String)]) -> Vec<Input> {
        files
            .iter()
            .map(|(p, r)| Input::read(p, r.clone(), self.ingestor.settings().max_bytes))
            .collect()
    }

    /// Runs an ingest and writes `index_metadata.json` / `index_errors.json`.
    pub async fn ingest(
        &self,
        grounder: &Grounder,
        inputs: Vec<Input>,
        opts: &DocOptions,
        progress: &(dyn Fn(&DocReport) + Send + Sync),
    ) -> Result<RunReport, IngestError> {
        let report = self.ingestor.run(grounder, inputs, opts, progress).await?;
        match report.write(&self.report_dir) {
            Ok((meta, errors)) => tracing::info!(
                metadata = %meta.display(),
                errors = %errors.display(),
                "ingest reports written"
            ),
            Err(e) => {
                tracing::error!(dir = %self.report_dir.display(), error = %e, "cannot write ingest reports")
            }
        }
        Ok(report)
    }
}

/// Files with a document extension under `dir`, sorted.
pub fn doc_files_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    crate::import::files_with_extension(dir, |e| {
        DOC_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str())
    })
}
