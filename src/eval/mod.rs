//! `daemoniq eval`: runs the golden questions (`golden/*.json`) through the
//! same pipeline as `POST /chat` and checks the CI gates of
//! `golden/gates.json`.
//!
//! - [`golden`] reads the question files and the gates;
//! - [`target`] sends questions to the pipeline in process (over a fresh
//!   in-memory store with the goldens' documents ingested) or to a running
//!   server, and finds out which cited graph ids and sources exist;
//! - [`score`] scores each response against its question;
//! - [`metrics`] computes the gate metrics per golden file, per category and
//!   over all, and checks the gates;
//! - [`report`] writes `eval_report.json` and `eval_report.md` (rendered
//!   by the private `markdown` module).
//!
//! Eval only reads the goldens to compare; nothing in the pipeline knows
//! about them.

pub mod golden;
mod markdown;
pub mod metrics;
pub mod report;
pub mod score;
pub mod target;

pub use golden::{Expect, Gate, GateFile, GoldenFile, Op, Question};
pub use metrics::{GateResult, Metrics};
pub use report::EvalReport;
pub use score::{Known, QuestionScore, Response, Scorer};
pub use target::{IngestSummary, Remote, Target};

use crate::answer::ChatRequest;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Result of eval operations.
pub type EvalResult<T> = Result<T, EvalError>;

/// Why an evaluation could not run (a failing gate is not an error: it is
/// in the report).
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// `--set` names no golden set of the gate file.
    #[error("no golden set named {0} in the gate file")]
    UnknownSet(String),
    /// A file or directory cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is not the JSON it should be.
    #[error("{path}: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        source: serde_json::Error,
    },
    /// A golden or gate file breaks its rules.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A response could not be turned into JSON.
    #[error("cannot encode a response: {0}")]
    Encode(serde_json::Error),
    /// Loading the ontology or building models failed.
    #[error(transparent)]
    Load(#[from] crate::state::LoadError),
    /// The graph store failed.
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// A backend cannot be opened.
    #[error(transparent)]
    Backend(#[from] crate::backends::BackendError),
    /// The audit log cannot be opened.
    #[error(transparent)]
    Audit(#[from] crate::state::AuditLogError),
    /// The embedding model or vector index could not be opened.
    #[error(transparent)]
    Docs(#[from] crate::ingest::OpenError),
    /// Ingesting the goldens' documents failed.
    #[error(transparent)]
    Ingest(#[from] crate::ingest::IngestError),
    /// The server cannot be reached.
    #[error("cannot reach {url}: {source}")]
    Http {
        /// The URL.
        url: String,
        /// The cause.
        source: reqwest::Error,
    },
    /// The server answered something unusable.
    #[error("{url} answered HTTP {status}: {body}")]
    Server {
        /// The URL.
        url: String,
        /// HTTP status.
        status: u16,
        /// The body (as text).
        body: String,
    },
}

/// A golden file left out of a run, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    /// File stem.
    pub name: String,
    /// Path relative to the repository root.
    pub path: String,
    /// Its questions (none of them counts as passed).
    pub questions: usize,
    /// Why.
    pub reason: String,
}

/// What a run evaluates: the gates and the golden files, from one golden
/// directory whose parent is the repository root.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The repository root (the golden directory's parent).
    pub root: PathBuf,
    /// The golden directory.
    pub golden_dir: PathBuf,
    /// The gate file.
    pub gates_path: PathBuf,
    /// The gates.
    pub gates: GateFile,
    /// The golden files to evaluate.
    pub files: Vec<GoldenFile>,
    /// Golden files left out.
    pub skipped: Vec<Skipped>,
}

impl Plan {
    /// Reads the gates (`gates`, default `<golden_dir>/gates.json`) and the
    /// golden files they list.
    pub fn load(golden_dir: &Path, gates: Option<&Path>) -> EvalResult<Self> {
        let golden_dir = std::fs::canonicalize(golden_dir).map_err(|source| EvalError::Io {
            path: golden_dir.to_path_buf(),
            source,
        })?;
        let root = golden_dir
            .parent()
            .map_or_else(|| golden_dir.clone(), Path::to_path_buf);
        let gates_path = gates.map_or_else(|| golden_dir.join("gates.json"), Path::to_path_buf);
        let gates = golden::load_gates(&gates_path)?;
        let files = golden::load_goldens(&golden_dir, &root, &gates)?;
        Ok(Self {
            root,
            golden_dir,
            gates_path,
            gates,
            files,
            skipped: Vec::new(),
        })
    }

    /// Keeps only the named golden sets (file stem or relative path); an
    /// unknown name is an error.
    pub fn only(&mut self, names: &[String]) -> EvalResult<()> {
        if names.is_empty() {
            return Ok(());
        }
        for n in names {
            if !self.files.iter().any(|g| g.name == *n || g.rel_path == *n) {
                return Err(EvalError::UnknownSet(n.clone()));
            }
        }
        self.files
            .retain(|g| names.iter().any(|n| g.name == *n || g.rel_path == *n));
        Ok(())
    }

    /// Moves golden files whose `files_root` (or its `docs/`) is absent to
    /// [`Plan::skipped`]: their documents cannot be ingested here.
    pub fn skip_absent_files_roots(&mut self) {
        let root = self.root.clone();
        let (keep, skip): (Vec<GoldenFile>, Vec<GoldenFile>) = std::mem::take(&mut self.files)
            .into_iter()
            .partition(|g| !g.has_files_root || g.files_root_dir(&root).join("docs").is_dir());
        self.files = keep;
        for g in skip {
            let dir = g.files_root_dir(&root);
            let reason = if dir.is_dir() {
                format!(
                    "{}/docs is absent, so its documents cannot be ingested",
                    g.files_root
                )
            } else {
                format!(
                    "files_root {} ({}) is absent, so its documents cannot be ingested",
                    g.files_root,
                    dir.display()
                )
            };
            self.skipped.push(Skipped {
                name: g.name,
                path: g.rel_path,
                questions: g.questions.len(),
                reason,
            });
        }
    }

    /// Moves model-based golden files to [`Plan::skipped`]: they need a
    /// store per building model, which a running server is not.
    pub fn skip_model_based(&mut self) {
        let (keep, skip): (Vec<GoldenFile>, Vec<GoldenFile>) = std::mem::take(&mut self.files)
            .into_iter()
            .partition(|g| g.models.is_empty());
        self.files = keep;
        for g in skip {
            self.skipped.push(Skipped {
                name: g.name,
                path: g.rel_path,
                questions: g.questions.len(),
                reason: "its questions are asked over one building model at a time, which needs \
                         the in-process evaluator (run eval without --url)"
                    .to_owned(),
            });
        }
    }

    /// Every question to evaluate, with its file, in file order.
    pub fn questions(&self) -> impl Iterator<Item = (&GoldenFile, &Question)> {
        self.files
            .iter()
            .flat_map(|f| f.questions.iter().map(move |q| (f, q)))
    }

    /// The documents to ingest for an in-process run (see [`target::documents`]).
    pub fn documents(&self) -> EvalResult<Vec<(PathBuf, String)>> {
        target::documents(&self.root, &self.golden_dir, &self.files)
    }
}

/// The request a golden question becomes: the question, and the selected
/// text when it has one.
pub fn request(q: &Question, session_id: &str) -> ChatRequest {
    ChatRequest {
        query: q.question.clone(),
        selected_text: q.selected_text.clone(),
        top_k: None,
        session_id: Some(session_id.to_owned()),
        request_id: None,
    }
}

/// Sends the questions, one at a time, ticking `progress`. Returns the
/// responses by question id.
pub async fn ask_all<'a>(
    target: &Target,
    questions: impl IntoIterator<Item = &'a Question>,
    progress: &indicatif::ProgressBar,
) -> EvalResult<BTreeMap<String, Response>> {
    let session = uuid::Uuid::new_v4().to_string();
    let mut out = BTreeMap::new();
    for q in questions {
        progress.set_message(q.id.clone());
        let r = target.chat(&request(q, &session)).await?;
        out.insert(q.id.clone(), r);
        progress.inc(1);
    }
    Ok(out)
}

/// How model-based golden files are run in process: each building model
/// in a store of its own, with Brick and `ontology/` from `sources`.
#[derive(Debug, Clone)]
pub struct ModelRuns {
    /// Brick, `ontology/`, the repository root.
    pub sources: crate::state::Sources,
    /// Where the graph goes (embedded, or a remote SPARQL store).
    pub backends: crate::config::BackendConfig,
    /// The answer settings.
    pub answer: crate::config::AnswerConfig,
}

/// Runs the plan and scores it: the files without models against `target`
/// (none when only model-based files are planned), the model-based files
/// model by model with `models` (each model's expected results computed
/// on its own store).
pub async fn evaluate(
    target: Option<&Target>,
    plan: &Plan,
    ingest: Option<IngestSummary>,
    models: Option<&ModelRuns>,
    progress: &indicatif::ProgressBar,
) -> EvalResult<EvalReport> {
    let scorer = Scorer::new()?;
    progress.set_length(plan.questions().count() as u64);
    progress.set_position(0);
    let mut responses = BTreeMap::new();
    let mut known = Known::default();
    let mut mode = target.map(Target::mode);
    if let Some(target) = target {
        let plain = plan
            .questions()
            .filter(|(f, _)| f.models.is_empty())
            .map(|(_, q)| q);
        responses = ask_all(target, plain, progress).await?;
        known = target
            .known(&responses.values().collect::<Vec<_>>())
            .await?;
    }
    if let Some(runs) = models {
        for file in plan.files.iter().filter(|f| !f.models.is_empty()) {
            for model in file.models.keys() {
                let questions: Vec<&Question> = file
                    .questions
                    .iter()
                    .filter(|q| q.model.as_deref() == Some(model.as_str()))
                    .collect();
                if questions.is_empty() {
                    continue;
                }
                let files = file.model_files(&plan.root, model);
                let state =
                    target::model_state(&runs.sources, &files, &runs.backends, runs.answer.clone())
                        .await?;
                let model_target = Target::InProcess(std::sync::Arc::clone(&state));
                mode.get_or_insert_with(|| model_target.mode());
                let got = ask_all(&model_target, questions.iter().copied(), progress).await?;
                let k = model_target
                    .known(&got.values().collect::<Vec<_>>())
                    .await?;
                known.graph_ids.extend(k.graph_ids);
                known.sources.extend(k.sources);
                for q in &questions {
                    if let Some(e) = &q.expected {
                        let out = state
                            .store
                            .query(crate::store::SparqlQuery::new(e.sparql.clone()))
                            .await?;
                        known
                            .expected
                            .insert(q.id.clone(), score::ExpectedResult::read(e.kind, out));
                    }
                }
                responses.extend(got);
            }
        }
    }
    Ok(EvalReport::build(
        plan,
        mode.as_deref().unwrap_or("in-process"),
        &responses,
        &known,
        ingest,
        &scorer,
    ))
}
