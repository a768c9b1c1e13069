//! The reports every ingest run writes: `index_metadata.json` (model,
//! counts, per-document sha and chunk count, timings) and
//! `index_errors.json` (file, chunk, reason).

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

/// File name of the run metadata report.
pub const METADATA_FILE: &str = "index_metadata.json";
/// File name of the error report.
pub const ERRORS_FILE: &str = "index_errors.json";

/// What happened to one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DocStatus {
    /// Indexed for the first time.
    Indexed,
    /// A new version replaced the old one.
    Replaced,
    /// Same bytes as the indexed version: nothing done.
    Unchanged,
    /// Not indexed (see the errors).
    Failed,
}

/// A chunk found to repeat a chunk of another document.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Duplicate {
    /// Chunk index in this document.
    pub chunk_index: usize,
    /// The other document.
    pub duplicate_of: String,
    /// Chunk index in the other document.
    pub duplicate_chunk_index: usize,
    /// Cosine similarity.
    pub similarity: f32,
    /// True when the chunk was left out of the index because of it.
    pub skipped: bool,
}

/// Milliseconds spent per stage of one document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Timings {
    /// Text extraction.
    pub extract_ms: f64,
    /// Chunking.
    pub chunk_ms: f64,
    /// Grounding and linking.
    pub ground_ms: f64,
    /// Embedding.
    pub embed_ms: f64,
    /// Duplicate search.
    pub duplicates_ms: f64,
    /// Vector and graph writes.
    pub write_ms: f64,
    /// All of it.
    pub total_ms: f64,
}

/// One document of a run.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct DocReport {
    /// Relative path.
    pub source_ref: String,
    /// Stable id (absent when the file could not even be read).
    pub source_id: String,
    /// sha256 of the bytes.
    pub source_sha: String,
    /// Outcome.
    pub status: DocStatus,
    /// Chunks in the index for this document after the run.
    pub chunks: usize,
    /// Chunks cut from the text (before linking and duplicate skipping).
    pub chunks_cut: usize,
    /// Chunks not indexed (unlinked or skipped duplicates).
    pub chunks_skipped: usize,
    /// Duplicates found.
    pub duplicates: Vec<Duplicate>,
    /// Stage timings.
    pub timings: Timings,
}

/// One entry of `index_errors.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct IndexError {
    /// Relative path of the file.
    pub file: String,
    /// Chunk index, or `None` when the whole file failed.
    pub chunk: Option<usize>,
    /// Why.
    pub reason: String,
}

/// The model section of the metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ModelInfo {
    /// Model id.
    pub id: String,
    /// Vector dimension.
    pub dimension: usize,
    /// Distance.
    pub distance: &'static str,
    /// Token window used for chunking.
    pub max_tokens: usize,
    /// Overlap between chunks of one section.
    pub overlap_tokens: usize,
}

/// Totals of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Counts {
    /// Documents given.
    pub documents: usize,
    /// Newly indexed.
    pub indexed: usize,
    /// Replaced.
    pub replaced: usize,
    /// Unchanged.
    pub unchanged: usize,
    /// Failed.
    pub failed: usize,
    /// Chunks written in this run.
    pub chunks_written: usize,
    /// Chunks left out (unlinked, duplicates skipped).
    pub chunks_skipped: usize,
    /// Duplicates found.
    pub duplicates: usize,
    /// Error entries.
    pub errors: usize,
    /// Points in the index after the run.
    pub index_points: usize,
}

/// `index_metadata.json`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct RunReport {
    /// Run start.
    pub started_at: DateTime<Utc>,
    /// Run end.
    pub finished_at: DateTime<Utc>,
    /// Wall time in milliseconds.
    pub elapsed_ms: f64,
    /// Embedding model.
    pub model: ModelInfo,
    /// Vector backend.
    pub vector_backend: String,
    /// Totals.
    pub counts: Counts,
    /// Per document.
    pub documents: Vec<DocReport>,
    /// The entries of `index_errors.json`.
    #[serde(skip)]
    pub errors: Vec<IndexError>,
}

impl RunReport {
    /// Fills `counts` from the documents and errors.
    pub fn tally(&mut self, index_points: usize) {
        let mut c = Counts {
            documents: self.documents.len(),
            errors: self.errors.len(),
            index_points,
            ..Counts::default()
        };
        for d in &self.documents {
            match d.status {
                DocStatus::Indexed => c.indexed += 1,
                DocStatus::Replaced => c.replaced += 1,
                DocStatus::Unchanged => c.unchanged += 1,
                DocStatus::Failed => c.failed += 1,
            }
            if matches!(d.status, DocStatus::Indexed | DocStatus::Replaced) {
                c.chunks_written += d.chunks;
            }
            c.chunks_skipped += d.chunks_skipped;
            c.duplicates += d.duplicates.len();
        }
        self.counts = c;
    }

    /// Writes both reports into `dir` (created if needed), each atomically
    /// (temp file + rename). Returns the two paths.
    pub fn write(&self, dir: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
        std::fs::create_dir_all(dir)?;
        let meta = dir.join(METADATA_FILE);
        let errors = dir.join(ERRORS_FILE);
        write_json(&meta, self)?;
        write_json(
            &errors,
            &serde_json::json!({
                "generated_at": self.finished_at,
                "count": self.errors.len(),
                "errors": self.errors,
            }),
        )?;
        Ok((meta, errors))
    }
}

fn write_json(path: &Path, value: &impl Serialize) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    let bytes = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}
