//! Where the questions go: the `/chat` pipeline in this process (over a
//! fresh in-memory store with the goldens' documents ingested), or a running
//! server over HTTP. Both return the same [`Response`]s and [`Known`]
//! sources, so scoring does not know which it was.

use super::golden::GoldenFile;
use super::score::{Known, Response, is_plain_iri};
use super::{EvalError, EvalResult};
use crate::answer::ChatRequest;
use crate::backends::{self, Embedded};
use crate::config::{AnswerConfig, BackendConfig, HttpConfig, IndexConfig};
use crate::http::chat::envelope;
use crate::http::error::ApiError;
use crate::ingest::report::{Counts, IndexError};
use crate::ingest::{DocOptions, Input};
use crate::state::{AppParts, AppState, Snapshot, Sources};
use crate::store::{QueryOutput, SparqlQuery};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long one request to a server may take.
const HTTP_TIMEOUT: Duration = Duration::from_secs(300);

/// Extensions of the demo corpus documents.
const CORPUS_EXTENSIONS: [&str; 2] = ["md", "pdf"];

/// The documents ingested for an in-process run.
#[derive(Debug, Clone, Serialize)]
pub struct IngestSummary {
    /// `source_ref`s given to the ingester.
    pub documents: Vec<String>,
    /// Totals of the run.
    pub counts: Counts,
    /// Files and chunks that were not indexed, and why.
    pub errors: Vec<IndexError>,
    /// Wall time of the ingest.
    pub elapsed_ms: f64,
}

/// Where the questions are sent.
pub enum Target {
    /// The pipeline in this process.
    InProcess(Arc<AppState>),
    /// A running server.
    Remote(Remote),
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.mode())
    }
}

/// A server reached over HTTP.
#[derive(Debug, Clone)]
pub struct Remote {
    client: reqwest::Client,
    base: String,
}

fn slash(path: &str) -> String {
    path.replace('\\', "/")
}

/// The documents the goldens are about, as (file, `source_ref`): the `.md`
/// and `.pdf` files of `<golden_dir>/corpus` except `README.md`, relative to
/// `root`; and for every golden file that sets `files_root`, the documents
/// under `<files_root>/docs`, relative to `files_root`. Sorted by
/// `source_ref`, without repeats.
pub fn documents(
    root: &Path,
    golden_dir: &Path,
    files: &[GoldenFile],
) -> EvalResult<Vec<(PathBuf, String)>> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| EvalError::Io { path, source }
    };
    let mut out = Vec::new();
    let corpus = golden_dir.join("corpus");
    if corpus.is_dir() {
        let found = crate::import::files_with_extension(&corpus, |e| {
            CORPUS_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str())
        })
        .map_err(io(&corpus))?;
        for f in found {
            if f.file_name()
                .is_some_and(|n| n.eq_ignore_ascii_case("README.md"))
            {
                continue;
            }
            let rel = slash(&crate::import::relative_path(&f, root));
            out.push((f, rel));
        }
    }
    for g in files
        .iter()
        .filter(|g| g.has_files_root && g.models.is_empty())
    {
        let base = g.files_root_dir(root);
        let docs = base.join("docs");
        if !docs.is_dir() {
            continue;
        }
        for f in crate::ingest::service::doc_files_under(&docs).map_err(io(&docs))? {
            let rel = slash(&crate::import::relative_path(&f, &base));
            out.push((f, rel));
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out.dedup_by(|a, b| a.1 == b.1);
    Ok(out)
}

/// Builds the in-process state: a store with Brick, the ontology and the
/// building models of `sources`, a document service, and `docs` ingested
/// with the given `source_ref`s; questions are answered under `answer`.
///
/// With the embedded backends (the default) the store is a fresh in-memory
/// one and the vector index a scratch directory. `backends` can put the
/// graph in a remote SPARQL store and the vectors in a Qdrant collection
/// instead: sources and documents are synced into them (same sha → nothing
/// to do), so they should hold nothing but this evaluation's data.
///
/// The topology and the grounder are those of the graph before the
/// documents were ingested, as in a server that ingests after start.
pub async fn in_process(
    sources: &Sources,
    index: &IndexConfig,
    backends: &BackendConfig,
    answer: AnswerConfig,
    docs: &[(PathBuf, String)],
    progress: &indicatif::ProgressBar,
) -> EvalResult<(Arc<AppState>, IngestSummary)> {
    let store = backends::open_store(backends, &Embedded::Memory).await?;
    let (_, ontology) = sources.sync(store.as_ref()).await?;
    let snapshot = Snapshot::build(store.as_ref(), ontology).await?;
    let scratch = tempfile::tempdir().map_err(|source| EvalError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let cfg = IndexConfig {
        docs_root: sources.root.clone(),
        ..index.clone()
    };
    let service = backends::open_docs(
        &cfg,
        backends,
        &Embedded::Memory,
        Arc::clone(&store),
        &sources.assets,
        scratch.path().to_path_buf(),
    )
    .await?;
    let max_bytes = service.ingestor().settings().max_bytes;
    let inputs: Vec<Input> = docs
        .iter()
        .map(|(path, source_ref)| Input::read(path, source_ref.clone(), max_bytes))
        .collect();
    progress.set_length(inputs.len() as u64);
    progress.set_position(0);
    let started = Instant::now();
    let report = service
        .ingest(&snapshot.grounder, inputs, &DocOptions::default(), &|d| {
            progress.set_message(d.source_ref.clone());
            progress.inc(1);
        })
        .await?;
    let state = AppState::open(AppParts {
        store,
        snapshot,
        http: HttpConfig::default(),
        docs: Some(Arc::new(service)),
        answer,
    })?;
    Ok((
        state,
        IngestSummary {
            documents: docs.iter().map(|(_, r)| r.clone()).collect(),
            counts: report.counts,
            errors: report.errors,
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
        },
    ))
}

/// The in-process state for one building model of a model-based golden
/// file: Brick and `ontology/` (from `sources`), then the model's files
/// alone, no documents. `files` are (path, the root its source path is
/// relative to). With a remote store (shared between models) the graphs
/// of any other model are dropped first.
pub async fn model_state(
    sources: &Sources,
    files: &[(PathBuf, PathBuf)],
    backends: &BackendConfig,
    answer: AnswerConfig,
) -> EvalResult<Arc<AppState>> {
    use crate::import::{self, SourceFile};
    use crate::state::LoadError;
    use crate::store::GraphKind;
    let store = backends::open_store(backends, &Embedded::Memory).await?;
    let bare = Sources {
        graph_dirs: Vec::new(),
        ..sources.clone()
    };
    let (_, ontology) = bare.sync(store.as_ref()).await?;
    let model: Vec<SourceFile> = files
        .iter()
        .map(|(path, base)| SourceFile::new(path.clone(), base, GraphKind::Model))
        .collect();
    let wanted: Vec<String> = model.iter().map(SourceFile::graph_iri).collect();
    for record in store.sources().await? {
        if record.kind == GraphKind::Model && !wanted.contains(&record.graph) {
            store.remove_graph(&record.graph).await?;
        }
    }
    for f in &model {
        import::import_file(store.as_ref(), Some(&ontology), f)
            .await
            .map_err(LoadError::from)?;
    }
    let snapshot = Snapshot::build(store.as_ref(), ontology).await?;
    Ok(AppState::open(AppParts {
        store,
        snapshot,
        http: HttpConfig::default(),
        docs: None,
        answer,
    })?)
}

fn error_envelope(error: Value) -> Value {
    json!({
        "status": "error",
        "answer": null,
        "refusal": null,
        "error": error,
        "metadata": null,
        "trace": null,
    })
}

fn ask_query(iri: &str) -> String {
    format!("ASK {{ {{ <{iri}> ?p ?o }} UNION {{ ?s ?p <{iri}> }} }}")
}

/// Every graph id cited by some evidence item.
fn cited_graph_ids(responses: &[&Response]) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for r in responses {
        let items = r
            .envelope
            .pointer("/answer/evidence")
            .and_then(Value::as_array);
        for item in items.into_iter().flatten() {
            let graph_ids = item.get("graph_ids").and_then(Value::as_array);
            for id in graph_ids.into_iter().flatten().filter_map(Value::as_str) {
                ids.insert(id.to_owned());
            }
        }
    }
    ids
}

impl Remote {
    /// A client for the server at `url` (`http://host:port`); checks that
    /// `GET /health` answers.
    pub async fn connect(url: &str) -> EvalResult<Self> {
        let client = reqwest::Client::builder()
            .timeout(HTTP_TIMEOUT)
            .build()
            .map_err(|source| EvalError::Http {
                url: url.to_owned(),
                source,
            })?;
        let remote = Self {
            client,
            base: url.trim_end_matches('/').to_owned(),
        };
        remote.get_json("/health").await?;
        Ok(remote)
    }

    async fn get_json(&self, path: &str) -> EvalResult<Value> {
        let url = format!("{}{path}", self.base);
        let http = |source| EvalError::Http {
            url: url.clone(),
            source,
        };
        let resp = self.client.get(&url).send().await.map_err(http)?;
        let status = resp.status().as_u16();
        let body = resp.text().await.map_err(http)?;
        if status != 200 {
            return Err(EvalError::Server { url, status, body });
        }
        serde_json::from_str(&body).map_err(|_| EvalError::Server { url, status, body })
    }

    async fn ask(&self, query: String) -> EvalResult<bool> {
        let url = format!("{}/sparql", self.base);
        let http = |source| EvalError::Http {
            url: url.clone(),
            source,
        };
        let resp = self
            .client
            .post(&url)
            .header("accept", "application/sparql-results+json")
            .form(&[("query", query)])
            .send()
            .await
            .map_err(http)?;
        let status = resp.status().as_u16();
        let body = resp.text().await.map_err(http)?;
        let value: Option<Value> = serde_json::from_str(&body).ok();
        match value
            .as_ref()
            .and_then(|v| v.get("boolean"))
            .and_then(Value::as_bool)
        {
            Some(b) if status == 200 => Ok(b),
            _ => Err(EvalError::Server { url, status, body }),
        }
    }

    async fn chat(&self, req: &ChatRequest) -> EvalResult<Response> {
        let url = format!("{}/chat", self.base);
        let started = Instant::now();
        let sent = self.client.post(&url).json(req).send().await;
        let resp = match sent {
            Ok(r) => r,
            Err(e) if e.is_connect() => return Err(EvalError::Http { url, source: e }),
            Err(e) => {
                return Ok(Response {
                    envelope: error_envelope(
                        json!({"code": "EVAL_TRANSPORT", "message": e.to_string()}),
                    ),
                    http_status: 0,
                    wall_ms: started.elapsed().as_secs_f64() * 1000.0,
                });
            }
        };
        let http_status = resp.status().as_u16();
        let body = resp.text().await.unwrap_or_default();
        let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
        let envelope = match serde_json::from_str::<Value>(&body) {
            Ok(v) if v.get("status").is_some_and(Value::is_string) => v,
            Ok(v) => error_envelope(v),
            Err(_) => error_envelope(json!({
                "code": "EVAL_NOT_JSON",
                "message": format!("body is not JSON: {}", body.chars().take(200).collect::<String>()),
            })),
        };
        Ok(Response {
            envelope,
            http_status,
            wall_ms,
        })
    }
}

impl Target {
    /// `in-process` or `http <url>`.
    pub fn mode(&self) -> String {
        match self {
            Self::InProcess(_) => "in-process".to_owned(),
            Self::Remote(r) => format!("http {}", r.base),
        }
    }

    /// Sends one question. A request the pipeline rejects (HTTP 400) or a
    /// server error becomes an error envelope; only an unreachable server
    /// is an `Err`.
    pub async fn chat(&self, req: &ChatRequest) -> EvalResult<Response> {
        match self {
            Self::Remote(r) => r.chat(req).await,
            Self::InProcess(state) => {
                let started = Instant::now();
                let out = crate::answer::chat(state, req.clone()).await;
                let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
                Ok(match out {
                    Ok(resp) => {
                        if let Some(fault) = &resp.error {
                            tracing::error!(error = %fault, "question failed");
                        }
                        let (status, envelope) = envelope(&resp);
                        Response {
                            envelope: serde_json::to_value(&envelope).map_err(EvalError::Encode)?,
                            http_status: status.as_u16(),
                            wall_ms,
                        }
                    }
                    Err(e) => {
                        let e = ApiError::from(e);
                        Response {
                            envelope: error_envelope(
                                serde_json::to_value(&e).map_err(EvalError::Encode)?,
                            ),
                            http_status: e.code.status().as_u16(),
                            wall_ms,
                        }
                    }
                })
            }
        }
    }

    /// The sources the store holds, and whether each graph id the
    /// responses cite occurs in a triple.
    pub async fn known(&self, responses: &[&Response]) -> EvalResult<Known> {
        let mut known = Known::default();
        match self {
            Self::InProcess(state) => {
                for s in state.store.sources().await? {
                    known.sources.insert(s.path, s.sha256);
                }
            }
            Self::Remote(r) => {
                let health = r.get_json("/health").await?;
                let list = health.get("sources").and_then(Value::as_array);
                for s in list.into_iter().flatten() {
                    if let (Some(p), Some(sha)) = (
                        s.get("path").and_then(Value::as_str),
                        s.get("sha256").and_then(Value::as_str),
                    ) {
                        known.sources.insert(p.to_owned(), sha.to_owned());
                    }
                }
            }
        }
        for id in cited_graph_ids(responses) {
            let resolves = if is_plain_iri(&id) {
                match self {
                    Self::InProcess(state) => matches!(
                        state.store.query(SparqlQuery::new(ask_query(&id))).await?,
                        QueryOutput::Boolean(true)
                    ),
                    Self::Remote(r) => r.ask(ask_query(&id)).await?,
                }
            } else {
                false
            };
            known.graph_ids.insert(id, resolves);
        }
        Ok(known)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documents_are_the_corpus_and_the_files_roots_docs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let corpus = root.join("golden/corpus");
        std::fs::create_dir_all(&corpus).unwrap();
        for f in ["README.md", "a.md", "b.pdf", "c.txt"] {
            std::fs::write(corpus.join(f), "x").unwrap();
        }
        let shared = dir.path().join("shared/docs/g36");
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::write(shared.join("P.html"), "x").unwrap();
        std::fs::write(dir.path().join("shared/outside.html"), "x").unwrap();
        let file = |files_root: Option<&str>| GoldenFile {
            name: "g".into(),
            path: root.join("golden/g.json"),
            rel_path: "golden/g.json".into(),
            description: String::new(),
            files_root: files_root.unwrap_or(".").into(),
            has_files_root: files_root.is_some(),
            not_applicable: Vec::new(),
            models: Default::default(),
            questions: Vec::new(),
        };
        let golden_dir = root.join("golden");
        let found = documents(&root, &golden_dir, &[file(None), file(Some("../shared"))]).unwrap();
        let refs: Vec<&str> = found.iter().map(|(_, r)| r.as_str()).collect();
        assert_eq!(
            refs,
            [
                "docs/g36/P.html",
                "golden/corpus/a.md",
                "golden/corpus/b.pdf"
            ]
        );
        // an absent files_root contributes nothing
        let found = documents(&root, &golden_dir, &[file(Some("../absent"))]).unwrap();
        assert_eq!(found.len(), 2);
    }

    #[test]
    fn ask_queries_look_both_ways() {
        let q = ask_query("https://x.test/#A");
        assert!(q.contains("<https://x.test/#A> ?p ?o") && q.contains("?s ?p <https://x.test/#A>"));
        assert!(!is_plain_iri("https://x.test/#A> } ASK { ?s ?p ?o"));
        assert!(!is_plain_iri("AHU-2"));
        assert!(is_plain_iri("urn:daemoniq:doc:abc"));
    }
}
