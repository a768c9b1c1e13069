//! The ingest pipeline: file → text → chunks → grounding and graph links →
//! embeddings → duplicate check → vector points + graph nodes.
//!
//! # Crash safety
//!
//! The document's named graph is the commit marker. The order of writes is:
//!
//! 1. upsert the new version's points (ids include the new sha, so they
//!    never overwrite the committed version's points), flushed;
//! 2. replace the document's named graph in one store transaction — from
//!    here on the new version is the document;
//! 3. delete the points of any other sha of that document.
//!
//! Deleting a document removes its graph first, then its points. A process
//! killed anywhere leaves at most points whose `(source_id, source_sha)` is
//! not the committed one; [`Ingestor::reconcile`] (run before every ingest,
//! delete and at server start) deletes them, so after a restart each
//! document is either wholly there or not at all.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Utc};

use super::chunk::{ChunkOptions, TokenCounter, chunk};
use super::document::{self, DocumentMeta};
use super::extract::extract;
use super::report::{DocReport, DocStatus, Duplicate, IndexError, ModelInfo, RunReport, Timings};
use crate::embed::Embedder;
use crate::ground::Grounder;
use crate::store::{GraphKind, GraphStore, SourceRecord, StoreError};
use crate::text::camel_spaced;
use crate::vector::{ChunkPayload, ChunkPoint, Search, VectorError, VectorIndex};

/// Environment variable naming a fail point: when the process reaches it,
/// it prints `DAEMONIQ_FAILPOINT <name> reached` to stderr and hangs so that
/// a test can `kill -9` it at exactly that point. Used by the crash tests.
pub const FAILPOINT_ENV: &str = "DAEMONIQ_FAILPOINT";

/// Errors that stop a whole run (a bad document does not: it becomes an
/// entry of `index_errors.json`).
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The graph store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The vector index failed.
    #[error(transparent)]
    Vector(#[from] VectorError),
    /// The embedding model failed.
    #[error(transparent)]
    Embed(#[from] crate::embed::EmbedError),
    /// A blocking task died.
    #[error("ingest task failed: {0}")]
    Task(String),
}

/// Per-run document attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocOptions {
    /// Subject domain (payload `domain`).
    pub domain: String,
    /// Kind of document; `None` → the file format (pdf, html, markdown, text).
    pub source_type: Option<String>,
    /// Version of the documents (payload `doc_version`).
    pub doc_version: String,
}

impl Default for DocOptions {
    fn default() -> Self {
        Self {
            domain: "hvac".into(),
            source_type: None,
            doc_version: "1".into(),
        }
    }
}

/// Knobs of the pipeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IngestSettings {
    /// Chunk window and overlap.
    pub chunk: ChunkOptions,
    /// Largest file accepted, in bytes.
    pub max_bytes: u64,
    /// Cosine similarity above which a chunk duplicates another document's.
    pub duplicate_threshold: f32,
    /// Leave duplicate chunks out of the index (they are reported either way).
    pub skip_duplicates: bool,
    /// The ingest revision chunks are cut with ([`INGEST_REVISION`]).
    pub revision: u32,
}

impl IngestSettings {
    /// How chunks are cut: the ingest revision and the chunk window
    /// ("r1-t256-o32"). A document committed by another cut is cut again
    /// even when its bytes have not changed.
    pub fn cut(&self) -> String {
        format!(
            "r{}-t{}-o{}",
            self.revision, self.chunk.max_tokens, self.chunk.overlap_tokens
        )
    }
}

/// The revision of extraction, chunking and linking. Raise it whenever a
/// change gives an unchanged file other chunks (a list item kept nested,
/// a table row cut otherwise, a chunk linked to other nodes): documents
/// committed by an older revision are then cut again on the next ingest,
/// instead of answering from the chunks the old code cut. 1: nested list
/// items keep their depth (2026-12-03).
pub const INGEST_REVISION: u32 = 1;

impl Default for IngestSettings {
    fn default() -> Self {
        Self {
            chunk: ChunkOptions::default(),
            max_bytes: 50 * 1024 * 1024,
            duplicate_threshold: 0.85,
            skip_duplicates: false,
            revision: INGEST_REVISION,
        }
    }
}

/// One document to ingest.
#[derive(Debug, Clone)]
pub struct Input {
    /// Relative path (never absolute): the document's identity.
    pub source_ref: String,
    /// The bytes, or why they could not be read.
    pub bytes: Result<Vec<u8>, String>,
    /// When the file last changed.
    pub updated_at: DateTime<Utc>,
}

impl Input {
    /// Reads a file; `source_ref` is its relative path.
    pub fn read(path: &Path, source_ref: String, max_bytes: u64) -> Self {
        let updated_at = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .map_or_else(|_| Utc::now(), DateTime::<Utc>::from);
        let bytes = match std::fs::metadata(path) {
            Ok(m) if m.len() > max_bytes => Err(too_large(m.len(), max_bytes)),
            Ok(_) => std::fs::read(path).map_err(|e| format!("cannot read the file: {e}")),
            Err(e) => Err(format!("cannot read the file: {e}")),
        };
        Self {
            source_ref,
            bytes,
            updated_at,
        }
    }
}

fn too_large(len: u64, max: u64) -> String {
    format!("file is {len} bytes, over the ingest limit of {max} bytes (--max-doc-bytes)")
}

/// A document as listed by `GET /api/documents`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct DocumentInfo {
    /// Stable id.
    pub source_id: String,
    /// Relative path.
    pub source_ref: String,
    /// sha256 of the indexed version.
    pub source_sha: String,
    /// Title.
    pub title: String,
    /// Domain.
    pub domain: String,
    /// Source type.
    pub source_type: String,
    /// Version.
    pub doc_version: String,
    /// When the file last changed.
    pub updated_at: String,
    /// Chunk nodes in the graph.
    pub chunks: usize,
    /// Points in the vector index.
    pub points: usize,
}

/// What reconciliation removed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Reconciled {
    /// Points of uncommitted or superseded versions deleted.
    pub points_removed: usize,
    /// Sources they belonged to.
    pub sources: Vec<String>,
}

/// Runs ingests, deletes and reconciliation over one store and one index.
pub struct Ingestor {
    store: Arc<dyn GraphStore>,
    index: Arc<dyn VectorIndex>,
    embedder: Arc<Embedder>,
    counter: Arc<TokenCounter>,
    settings: IngestSettings,
    /// One ingest or delete at a time (they read, then write, the same
    /// document's state).
    lock: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Ingestor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ingestor")
            .field("index", &self.index.backend())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

fn failpoint(name: &str) {
    if std::env::var(FAILPOINT_ENV).is_ok_and(|v| v == name) {
        tracing::warn!(failpoint = name, "fail point reached; waiting to be killed");
        eprintln!("{FAILPOINT_ENV} {name} reached");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, IngestError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| IngestError::Task(e.to_string()))
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn format_of(source_ref: &str) -> &'static str {
    let ext = Path::new(source_ref)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "pdf" => "pdf",
        "html" | "htm" => "html",
        "md" | "markdown" => "markdown",
        _ => "text",
    }
}

/// A chunk that survived linking, with its payload.
struct Linked {
    payload: ChunkPayload,
}

impl Ingestor {
    /// An ingestor over `store` and `index`.
    pub fn new(
        store: Arc<dyn GraphStore>,
        index: Arc<dyn VectorIndex>,
        embedder: Arc<Embedder>,
        counter: Arc<TokenCounter>,
        settings: IngestSettings,
    ) -> Self {
        Self {
            store,
            index,
            embedder,
            counter,
            settings,
            lock: tokio::sync::Mutex::new(()),
        }
    }

    /// The vector index.
    pub fn index(&self) -> &Arc<dyn VectorIndex> {
        &self.index
    }

    /// The embedding model.
    pub fn embedder(&self) -> &Arc<Embedder> {
        &self.embedder
    }

    /// The settings.
    pub fn settings(&self) -> &IngestSettings {
        &self.settings
    }

    /// The committed documents: `source_id` → source record.
    async fn committed(&self) -> Result<BTreeMap<String, SourceRecord>, IngestError> {
        Ok(self
            .store
            .sources()
            .await?
            .into_iter()
            .filter(|r| r.kind == GraphKind::Document)
            .filter_map(|r| {
                document::source_id_of_graph(&r.graph).map(|id| (id.to_owned(), r.clone()))
            })
            .collect())
    }

    /// Deletes points whose `(source_id, source_sha)` is not a committed
    /// document version: leftovers of a process killed mid-ingest or
    /// mid-delete.
    pub async fn reconcile(&self) -> Result<Reconciled, IngestError> {
        let _guard = self.lock.lock().await;
        self.reconcile_locked().await
    }

    async fn reconcile_locked(&self) -> Result<Reconciled, IngestError> {
        let committed = self.committed().await?;
        let mut out = Reconciled::default();
        for (source_id, keys) in self.index.sources().await? {
            // A point of the committed version has the id that version
            // gives its chunk; any other is of an uncommitted or superseded
            // version (another sha, or the same file cut by another
            // revision).
            let record = committed.get(&source_id);
            let stale: Vec<_> = keys
                .iter()
                .filter(|k| {
                    record.is_none_or(|r| {
                        k.id != document::point_id(&source_id, &r.sha256, &r.cut, k.chunk_index)
                    })
                })
                .map(|k| k.id)
                .collect();
            if stale.is_empty() {
                continue;
            }
            tracing::warn!(
                source_id = %source_id,
                points = stale.len(),
                committed = record.is_some(),
                "reconcile: removing points of an uncommitted or superseded version"
            );
            self.index.delete_points(&stale).await?;
            out.points_removed += stale.len();
            out.sources.push(source_id);
        }
        Ok(out)
    }

    /// Ingests documents one by one; a bad document becomes error entries and
    /// the run goes on. `progress` is called after each document.
    pub async fn run(
        &self,
        grounder: &Grounder,
        inputs: Vec<Input>,
        opts: &DocOptions,
        progress: &(dyn Fn(&DocReport) + Send + Sync),
    ) -> Result<RunReport, IngestError> {
        let _guard = self.lock.lock().await;
        let started_at = Utc::now();
        let clock = Instant::now();
        let reconciled = self.reconcile_locked().await?;
        if reconciled.points_removed > 0 {
            tracing::info!(
                points = reconciled.points_removed,
                "reconciled before ingest"
            );
        }
        let mut documents = Vec::with_capacity(inputs.len());
        let mut errors = Vec::new();
        let mut committed = self.committed().await?;
        for input in inputs {
            let report = self
                .ingest_one(grounder, input, opts, &mut committed, &mut errors)
                .await?;
            progress(&report);
            documents.push(report);
        }
        let mut report = RunReport {
            started_at,
            finished_at: Utc::now(),
            elapsed_ms: ms(clock),
            model: ModelInfo {
                id: self.embedder.model_id().to_owned(),
                dimension: self.embedder.dimension(),
                distance: "cosine",
                max_tokens: self.settings.chunk.max_tokens,
                overlap_tokens: self.settings.chunk.overlap_tokens,
            },
            vector_backend: self.index.backend().to_owned(),
            counts: Default::default(),
            documents,
            errors,
        };
        report.tally(self.index.count().await?);
        tracing::info!(
            documents = report.counts.documents,
            indexed = report.counts.indexed,
            replaced = report.counts.replaced,
            unchanged = report.counts.unchanged,
            failed = report.counts.failed,
            chunks = report.counts.chunks_written,
            errors = report.counts.errors,
            elapsed_ms = report.elapsed_ms,
            "ingest run finished"
        );
        Ok(report)
    }

    async fn ingest_one(
        &self,
        grounder: &Grounder,
        input: Input,
        opts: &DocOptions,
        committed: &mut BTreeMap<String, SourceRecord>,
        errors: &mut Vec<IndexError>,
    ) -> Result<DocReport, IngestError> {
        let clock = Instant::now();
        let source_ref = input.source_ref.clone();
        let source_id = document::source_id(&source_ref);
        let mut report = DocReport {
            source_ref: source_ref.clone(),
            source_id: source_id.clone(),
            source_sha: String::new(),
            status: DocStatus::Failed,
            chunks: 0,
            chunks_cut: 0,
            chunks_skipped: 0,
            duplicates: Vec::new(),
            timings: Timings::default(),
        };
        let fail = |report: &mut DocReport, errors: &mut Vec<IndexError>, reason: String| {
            tracing::warn!(source_ref = %report.source_ref, reason = %reason, "document not indexed");
            errors.push(IndexError {
                file: report.source_ref.clone(),
                chunk: None,
                reason,
            });
        };
        let bytes = match input.bytes {
            Ok(b) if b.len() as u64 > self.settings.max_bytes => {
                fail(
                    &mut report,
                    errors,
                    too_large(b.len() as u64, self.settings.max_bytes),
                );
                return Ok(report);
            }
            Ok(b) if b.is_empty() => {
                fail(&mut report, errors, "the file is empty".into());
                return Ok(report);
            }
            Ok(b) => b,
            Err(reason) => {
                fail(&mut report, errors, reason);
                return Ok(report);
            }
        };
        let sha = crate::import::sha256_hex(&bytes);
        report.source_sha.clone_from(&sha);
        let previous = committed.get(&source_id).cloned();
        let cut = self.settings.cut();
        if let Some(old) = previous.as_ref().filter(|r| r.sha256 == sha) {
            if old.cut != cut {
                tracing::info!(
                    source_id = %source_id,
                    from = %old.cut,
                    to = %cut,
                    "document unchanged but cut otherwise; cutting it again"
                );
            } else {
                let points = self.index.points_of(&source_id, false).await?.len();
                if points > 0 {
                    tracing::debug!(source_id = %source_id, "document unchanged; nothing to do");
                    report.status = DocStatus::Unchanged;
                    report.chunks = points;
                    report.timings.total_ms = ms(clock);
                    return Ok(report);
                }
                tracing::warn!(source_id = %source_id, "committed document has no points; re-indexing");
            }
        }

        // Extract (CPU-bound, may be a large PDF).
        let t = Instant::now();
        let path_for_format = source_ref.clone();
        let extracted = blocking(move || extract(Path::new(&path_for_format), &bytes)).await?;
        report.timings.extract_ms = ms(t);
        let extracted = match extracted {
            Ok(e) => e,
            Err(e) => {
                fail(&mut report, errors, e.to_string());
                return Ok(report);
            }
        };

        let t = Instant::now();
        let counter = Arc::clone(&self.counter);
        let chunk_opts = self.settings.chunk;
        let (extracted, chunks) = blocking(move || {
            let chunks = chunk(&extracted, &counter, &chunk_opts);
            (extracted, chunks)
        })
        .await?;
        report.timings.chunk_ms = ms(t);
        report.chunks_cut = chunks.len();

        let meta = DocumentMeta {
            source_id: source_id.clone(),
            source_ref: source_ref.clone(),
            source_sha: sha.clone(),
            updated_at: input.updated_at,
            title: extracted
                .title
                .clone()
                .unwrap_or_else(|| source_ref.clone()),
            domain: opts.domain.clone(),
            source_type: opts
                .source_type
                .clone()
                .unwrap_or_else(|| format_of(&source_ref).to_owned()),
            doc_version: opts.doc_version.clone(),
        };

        // Ground and link every chunk; unlinked chunks are reported, not indexed.
        let t = Instant::now();
        let mut linked = Vec::with_capacity(chunks.len());
        for c in chunks {
            // A heading path names its topic in camel case ("G36
            // TerminalUnits / Reheat / Subsequences / Alarms"): every chunk
            // under it is about the terminal unit, whatever else its text
            // names ("after the AHU supply fan has been enabled").
            let text = format!("{}\n{}", camel_spaced(&c.section_title), c.text);
            let grounding = grounder.ground(&text);
            let mut graph_ids = grounding.links();
            if graph_ids.is_empty() {
                // A passage about a kind of thing ("the zone group",
                // "the damper") names no node or point type the grounder
                // reads, but the Brick classes it is about.
                if let Some(classes) = grounder.classes_named(&text) {
                    tracing::debug!(
                        chunk = c.chunk_index,
                        classes = classes.len(),
                        "chunk linked by the Brick classes it names"
                    );
                    graph_ids = classes;
                }
            }
            if graph_ids.is_empty() {
                errors.push(IndexError {
                    file: source_ref.clone(),
                    chunk: Some(c.chunk_index),
                    reason: format!(
                        "chunk {} (page {}, section {:?}) names no graph node, Yorkland product \
                         or Brick class it is about; not indexed",
                        c.chunk_index, c.page_label, c.section_title
                    ),
                });
                report.chunks_skipped += 1;
                continue;
            }
            let fields = grounding.payload_fields();
            linked.push(Linked {
                payload: ChunkPayload {
                    source_id: source_id.clone(),
                    source_ref: source_ref.clone(),
                    page_label: c.page_label,
                    node_content: c.text,
                    equip: fields.equip,
                    brick_equip: fields.brick_equip,
                    ptags: fields.ptags,
                    raw: fields.raw,
                    gconf: fields.gconf,
                    graph_ids,
                    source_sha: sha.clone(),
                    chunk_index: c.chunk_index,
                    section_title: c.section_title,
                    updated_at: meta.updated_at.to_rfc3339(),
                    embedding_model: self.embedder.model_id().to_owned(),
                    domain: meta.domain.clone(),
                    source_type: meta.source_type.clone(),
                    doc_version: meta.doc_version.clone(),
                },
            });
        }
        report.timings.ground_ms = ms(t);
        if linked.is_empty() {
            let cut = report.chunks_cut;
            fail(
                &mut report,
                errors,
                format!(
                    "none of its {} chunks links to the graph; document not indexed",
                    cut
                ),
            );
            report.timings.total_ms = ms(clock);
            return Ok(report);
        }

        // Embed.
        let t = Instant::now();
        let texts: Vec<String> = linked
            .iter()
            .map(|l| l.payload.node_content.clone())
            .collect();
        let embedder = Arc::clone(&self.embedder);
        let vectors = blocking(move || embedder.embed(&texts)).await??;
        report.timings.embed_ms = ms(t);

        // Duplicates against other documents.
        let t = Instant::now();
        let mut points = Vec::with_capacity(linked.len());
        for (l, vector) in linked.into_iter().zip(vectors) {
            let hits = self
                .index
                .search(Search {
                    vector: vector.clone(),
                    limit: 1,
                    filter: None,
                    exclude_source_id: Some(source_id.clone()),
                })
                .await?;
            if let Some(hit) = hits
                .first()
                .filter(|h| h.score > self.settings.duplicate_threshold)
            {
                report.duplicates.push(Duplicate {
                    chunk_index: l.payload.chunk_index,
                    duplicate_of: hit.payload.source_ref.clone(),
                    duplicate_chunk_index: hit.payload.chunk_index,
                    similarity: hit.score,
                    skipped: self.settings.skip_duplicates,
                });
                if self.settings.skip_duplicates {
                    report.chunks_skipped += 1;
                    continue;
                }
            }
            points.push(ChunkPoint {
                id: document::point_id(&source_id, &sha, &cut, l.payload.chunk_index),
                vector,
                payload: l.payload,
            });
        }
        report.timings.duplicates_ms = ms(t);
        if points.is_empty() {
            fail(
                &mut report,
                errors,
                "every linked chunk duplicates another document and duplicates are skipped".into(),
            );
            report.timings.total_ms = ms(clock);
            return Ok(report);
        }

        // Write: points, then the graph (commit), then drop superseded points.
        let t = Instant::now();
        let chunk_nodes: Vec<_> = points.iter().map(|p| (p.payload.clone(), p.id)).collect();
        let written: BTreeSet<uuid::Uuid> = points.iter().map(|p| p.id).collect();
        let count = points.len();
        self.index.upsert(points).await?;
        failpoint("before_graph_commit");
        let triples = document::graph_triples(&meta, &chunk_nodes);
        let record = SourceRecord {
            graph: document::doc_graph(&source_id),
            path: source_ref.clone(),
            sha256: sha.clone(),
            updated_at: meta.updated_at,
            loaded_at: Utc::now(),
            kind: GraphKind::Document,
            triples: triples.len(),
            cut: cut.clone(),
        };
        self.store.replace_graph(record.clone(), triples).await?;
        committed.insert(source_id.clone(), record);
        failpoint("after_graph_commit");
        let superseded: Vec<_> = self
            .index
            .points_of(&source_id, false)
            .await?
            .into_iter()
            .filter(|p| !written.contains(&p.id))
            .map(|p| p.id)
            .collect();
        if !superseded.is_empty() {
            self.index.delete_points(&superseded).await?;
        }
        report.timings.write_ms = ms(t);
        report.status = if previous.is_some() {
            DocStatus::Replaced
        } else {
            DocStatus::Indexed
        };
        report.chunks = count;
        report.timings.total_ms = ms(clock);
        tracing::info!(
            source_id = %source_id,
            source_ref = %source_ref,
            status = ?report.status,
            chunks = count,
            skipped = report.chunks_skipped,
            duplicates = report.duplicates.len(),
            superseded = superseded.len(),
            total_ms = report.timings.total_ms,
            "document indexed"
        );
        Ok(report)
    }

    /// Deletes a document: its graph first (the commit point), then its
    /// points. `None` when no such document exists.
    pub async fn delete(&self, source_id: &str) -> Result<Option<usize>, IngestError> {
        let _guard = self.lock.lock().await;
        let committed = self.committed().await?;
        let points_before = self.index.points_of(source_id, false).await?.len();
        if !committed.contains_key(source_id) && points_before == 0 {
            return Ok(None);
        }
        if committed.contains_key(source_id) {
            self.store
                .remove_graph(&document::doc_graph(source_id))
                .await?;
        }
        failpoint("after_graph_delete");
        let removed = self.index.delete_source(source_id).await?;
        tracing::info!(source_id = %source_id, points = removed, "document deleted");
        Ok(Some(removed))
    }

    /// The paths (`source_ref`) of the documents in the graph, sorted: the
    /// documents a question may name.
    pub async fn document_paths(&self) -> Result<Vec<String>, IngestError> {
        let rows = crate::store::select(
            self.store.as_ref(),
            format!(
                "{}SELECT DISTINCT ?path WHERE {{ ?d a dq:Document ; dq:sourcePath ?path }} ORDER BY ?path",
                crate::vocab::PREFIXES
            ),
        )
        .await?;
        use crate::store::SolutionExt;
        Ok(rows.iter().map(|r| r.string("path")).collect())
    }

    /// Which of `ids` each document of `paths` (`source_ref`) mentions in
    /// some chunk: the equipment a document is about beyond the passage
    /// quoted from it. Pairs of path and id; IRIs that cannot be written
    /// safely are left out.
    pub async fn documents_mentioning(
        &self,
        paths: &[&str],
        ids: &[String],
    ) -> Result<BTreeSet<(String, String)>, IngestError> {
        use crate::store::term::{escape_literal, is_safe_iri};
        let ids: Vec<String> = ids
            .iter()
            .filter(|i| is_safe_iri(i))
            .map(|i| format!("<{i}>"))
            .collect();
        if paths.is_empty() || ids.is_empty() {
            return Ok(BTreeSet::new());
        }
        let paths: Vec<String> = paths
            .iter()
            .map(|p| format!("\"{}\"", escape_literal(p)))
            .collect();
        let rows = crate::store::select(
            self.store.as_ref(),
            format!(
                "{}SELECT DISTINCT ?path ?x WHERE {{
                   VALUES ?path {{ {} }} VALUES ?x {{ {} }}
                   ?d a dq:Document ; dq:sourcePath ?path .
                   ?c dq:partOf ?d ; dq:mentions ?x .
                 }}",
                crate::vocab::PREFIXES,
                paths.join(" "),
                ids.join(" ")
            ),
        )
        .await?;
        use crate::store::SolutionExt;
        Ok(rows
            .iter()
            .map(|r| (r.string("path"), r.string("x")))
            .collect())
    }

    /// The committed documents with their chunk and point counts.
    pub async fn documents(&self) -> Result<Vec<DocumentInfo>, IngestError> {
        let committed = self.committed().await?;
        let rows = crate::store::select(
            self.store.as_ref(),
            format!(
                "{}SELECT ?id ?title ?domain ?type ?version ?updated (COUNT(?c) AS ?chunks) WHERE {{
                   ?d a dq:Document ; dq:sourceId ?id ; dq:title ?title ; dq:domain ?domain ;
                      dq:sourceType ?type ; dq:docVersion ?version ; dq:updatedAt ?updated .
                   OPTIONAL {{ ?c dq:partOf ?d }}
                 }} GROUP BY ?id ?title ?domain ?type ?version ?updated ORDER BY ?id",
                crate::vocab::PREFIXES
            ),
        )
        .await?;
        let points = self.index.sources().await?;
        let mut out = Vec::new();
        for row in rows {
            use crate::store::SolutionExt;
            let id = row.string("id");
            let Some(record) = committed.get(&id) else {
                continue;
            };
            let n_points = points.get(&id).map_or(0, Vec::len);
            out.push(DocumentInfo {
                source_ref: record.path.clone(),
                source_sha: record.sha256.clone(),
                title: row.string("title"),
                domain: row.string("domain"),
                source_type: row.string("type"),
                doc_version: row.string("version"),
                updated_at: row.string("updated"),
                chunks: row.string("chunks").parse().unwrap_or(0),
                points: n_points,
                source_id: id,
            });
        }
        out.sort_by(|a, b| a.source_ref.cmp(&b.source_ref));
        Ok(out)
    }
}
