//! `IndexConfig`: document ingest, embedding and vector index settings.

use clap::Args;
use std::path::PathBuf;

/// Document ingest, embedding and vector index settings.
#[derive(Debug, Args, Clone, PartialEq)]
pub struct IndexConfig {
    /// Root of the documents `POST /ingest` may read by path, and that
    /// `source_ref` is made relative to.
    #[arg(long, global = true, env = "DAEMONIQ_DOCS_ROOT", default_value = IndexConfig::DOCS_ROOT)]
    pub docs_root: PathBuf,

    /// Where `index_metadata.json` and `index_errors.json` go (default: the data dir).
    #[arg(long, global = true, env = "DAEMONIQ_REPORT_DIR")]
    pub report_dir: Option<PathBuf>,

    /// Largest document accepted, in bytes.
    #[arg(long, global = true, env = "DAEMONIQ_MAX_DOC_BYTES", default_value_t = IndexConfig::MAX_DOC_BYTES)]
    pub max_doc_bytes: u64,

    /// Most tokens per chunk (the model window, special tokens included).
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_CHUNK_TOKENS",
        default_value_t = IndexConfig::CHUNK_TOKENS
    )]
    pub chunk_tokens: usize,

    /// Tokens repeated from the previous chunk of the same section.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_CHUNK_OVERLAP",
        default_value_t = IndexConfig::CHUNK_OVERLAP
    )]
    pub chunk_overlap: usize,

    /// ONNX Runtime intra-op threads (default: all cores).
    #[arg(long, global = true, env = "DAEMONIQ_ORT_THREADS")]
    pub ort_threads: Option<usize>,

    /// Texts per embedding call. 1 is fastest on CPU with the int8 model
    /// (`cargo bench --bench ingest`: 29 vs 20 chunks/s at batch 32, 2 threads).
    #[arg(long, global = true, env = "DAEMONIQ_EMBED_BATCH", default_value_t = IndexConfig::EMBED_BATCH)]
    pub embed_batch: usize,

    /// Cosine similarity above which a chunk duplicates another document's chunk.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_DUPLICATE_THRESHOLD",
        default_value_t = IndexConfig::DUPLICATE_THRESHOLD
    )]
    pub duplicate_threshold: f32,

    /// Leave duplicate chunks out of the index (they are reported either way).
    #[arg(long, global = true, env = "DAEMONIQ_SKIP_DUPLICATES")]
    pub skip_duplicates: bool,
}

/// The defaults: the flags' and [`Default`]'s single source.
impl IndexConfig {
    /// `--docs-root`.
    pub const DOCS_ROOT: &str = ".";
    /// `--max-doc-bytes`: 50 MiB.
    pub const MAX_DOC_BYTES: u64 = 50 << 20;
    /// `--chunk-tokens`: the embedding model's window.
    pub const CHUNK_TOKENS: usize = 256;
    /// `--chunk-overlap`.
    pub const CHUNK_OVERLAP: usize = 32;
    /// `--embed-batch`.
    pub const EMBED_BATCH: usize = 1;
    /// `--duplicate-threshold`.
    pub const DUPLICATE_THRESHOLD: f32 = 0.85;
}

impl Default for IndexConfig {
    fn default() -> Self {
        Self {
            docs_root: PathBuf::from(Self::DOCS_ROOT),
            report_dir: None,
            max_doc_bytes: Self::MAX_DOC_BYTES,
            chunk_tokens: Self::CHUNK_TOKENS,
            chunk_overlap: Self::CHUNK_OVERLAP,
            ort_threads: None,
            embed_batch: Self::EMBED_BATCH,
            duplicate_threshold: Self::DUPLICATE_THRESHOLD,
            skip_duplicates: false,
        }
    }
}
