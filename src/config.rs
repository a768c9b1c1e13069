//! Command line and environment configuration.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;

/// DaemonIQ: a knowledge-graph-first GraphRAG server for building automation.
///
/// Every flag can also be set through the environment variable shown.
#[derive(Debug, Parser)]
#[command(name = "daemoniq", version, about, long_about = None)]
pub struct Cli {
    /// Where data lives: the RocksDB graph store (`<dir>/graph`) and reports.
    #[arg(long, global = true, env = "DAEMONIQ_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,

    /// Use an in-memory graph store instead of `--data-dir` (nothing persists).
    #[arg(long, global = true, env = "DAEMONIQ_MEMORY")]
    pub memory: bool,

    /// The asset cache filled by `scripts/setup.sh` (Brick 1.4, the embedding
    /// model, ONNX Runtime). Default: `$XDG_CACHE_HOME/daemoniq/assets` or
    /// `~/.cache/daemoniq/assets`.
    #[arg(long, global = true, env = "DAEMONIQ_ASSETS")]
    pub assets_dir: Option<PathBuf>,

    /// The project's ontology files (Haystack vocabulary, Yorkland, core).
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_ONTOLOGY_DIR",
        default_value = "ontology"
    )]
    pub ontology_dir: PathBuf,

    /// Building models loaded at start (Brick Turtle or Haystack JSON).
    /// Repeat the flag for several directories.
    #[arg(
        long = "graph-dir",
        global = true,
        env = "DAEMONIQ_GRAPH_DIRS",
        value_delimiter = ',',
        default_value = "graph"
    )]
    pub graph_dirs: Vec<PathBuf>,

    /// Log format.
    #[arg(long, global = true, env = "DAEMONIQ_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Log filter, in `tracing` env-filter syntax (e.g. `info,daemoniq=debug`).
    #[arg(long, global = true, env = "DAEMONIQ_LOG", default_value = "info")]
    pub log: String,

    /// Document ingest and vector index settings.
    #[command(flatten)]
    pub index: IndexConfig,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Document ingest, embedding and vector index settings.
#[derive(Debug, Args, Clone)]
pub struct IndexConfig {
    /// Root of the documents `POST /ingest` may read by path, and that
    /// `source_ref` is made relative to.
    #[arg(long, global = true, env = "DAEMONIQ_DOCS_ROOT", default_value = ".")]
    pub docs_root: PathBuf,

    /// Where `index_metadata.json` and `index_errors.json` go (default: the data dir).
    #[arg(long, global = true, env = "DAEMONIQ_REPORT_DIR")]
    pub report_dir: Option<PathBuf>,

    /// Largest document accepted, in bytes.
    #[arg(long, global = true, env = "DAEMONIQ_MAX_DOC_BYTES", default_value_t = 50 << 20)]
    pub max_doc_bytes: u64,

    /// Most tokens per chunk (the model window, special tokens included).
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_CHUNK_TOKENS",
        default_value_t = 256
    )]
    pub chunk_tokens: usize,

    /// Tokens repeated from the previous chunk of the same section.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_CHUNK_OVERLAP",
        default_value_t = 32
    )]
    pub chunk_overlap: usize,

    /// ONNX Runtime intra-op threads (default: all cores).
    #[arg(long, global = true, env = "DAEMONIQ_ORT_THREADS")]
    pub ort_threads: Option<usize>,

    /// Texts per embedding call. 1 is fastest on CPU with the int8 model
    /// (`cargo bench --bench ingest`: 29 vs 20 chunks/s at batch 32, 2 threads).
    #[arg(long, global = true, env = "DAEMONIQ_EMBED_BATCH", default_value_t = 1)]
    pub embed_batch: usize,

    /// Cosine similarity above which a chunk duplicates another document's chunk.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_DUPLICATE_THRESHOLD",
        default_value_t = 0.85
    )]
    pub duplicate_threshold: f32,

    /// Leave duplicate chunks out of the index (they are reported either way).
    #[arg(long, global = true, env = "DAEMONIQ_SKIP_DUPLICATES")]
    pub skip_duplicates: bool,
}

impl Default for IndexConfig {
    fn default() -> Self {
        Self {
            docs_root: PathBuf::from("."),
            report_dir: None,
            max_doc_bytes: 50 << 20,
            chunk_tokens: 256,
            chunk_overlap: 32,
            ort_threads: None,
            embed_batch: 1,
            duplicate_threshold: 0.85,
            skip_duplicates: false,
        }
    }
}

/// Log output format.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load the ontology and building models, then serve the HTTP API.
    Serve(ServeArgs),
    /// Import building models (Brick Turtle, Haystack JSON) into the store.
    Import(ImportArgs),
    /// Run a SPARQL query against the local store.
    Sparql(SparqlArgs),
    /// Check the building models: required properties, types, relationship endpoints.
    Validate(ValidateArgs),
    /// Ingest documents (PDF, HTML, Markdown, text): chunk, ground, link, embed, index.
    Ingest(IngestArgs),
    /// Delete ingested documents (vector points and graph nodes together).
    Delete(DeleteArgs),
    /// List ingested documents with their chunk counts.
    Documents(DocumentsArgs),
}

/// `ingest` options.
#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Files or directories (searched recursively for .pdf, .html, .htm, .md,
    /// .markdown, .txt).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,

    /// Subject domain recorded on every chunk.
    #[arg(long, default_value = "hvac")]
    pub domain: String,

    /// Kind of document (default: the file format: pdf, html, markdown, text).
    #[arg(long)]
    pub source_type: Option<String>,

    /// Version of the documents.
    #[arg(long, default_value = "1")]
    pub doc_version: String,

    /// Print the run report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `delete` options.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// `source_id`s or relative paths (`source_ref`) of documents.
    #[arg(required = true)]
    pub documents: Vec<String>,
}

/// `documents` options.
#[derive(Debug, Args)]
pub struct DocumentsArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `serve` options.
#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "DAEMONIQ_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// HTTP-level limits and timeouts.
    #[command(flatten)]
    pub http: HttpConfig,
}

/// Limits of the HTTP API.
#[derive(Debug, Args, Clone)]
pub struct HttpConfig {
    /// Stop a SPARQL query after this many seconds (fractions allowed).
    #[arg(long, env = "DAEMONIQ_QUERY_TIMEOUT", default_value_t = 10.0)]
    pub query_timeout: f64,

    /// Return at most this many solutions or triples from `/sparql`.
    #[arg(long, env = "DAEMONIQ_MAX_ROWS", default_value_t = 10_000)]
    pub max_rows: usize,

    /// Largest accepted request body, in bytes.
    #[arg(long, env = "DAEMONIQ_MAX_BODY_BYTES", default_value_t = 1 << 20)]
    pub max_body_bytes: usize,

    /// Origins allowed by CORS (comma-separated); `*` allows any.
    #[arg(
        long,
        env = "DAEMONIQ_CORS_ORIGINS",
        value_delimiter = ',',
        default_value = "*"
    )]
    pub cors_origins: Vec<String>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            query_timeout: 10.0,
            max_rows: 10_000,
            max_body_bytes: 1 << 20,
            cors_origins: vec!["*".into()],
        }
    }
}

impl HttpConfig {
    /// The query timeout as a duration.
    pub fn query_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.query_timeout.max(0.001))
    }
}

/// `import` options.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files to import (`.ttl`, `.nt`, `.nq`, `.trig`, `.rdf`, Haystack `.json`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,

    /// Root that `dq:sourcePath` is made relative to (default: the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,

    /// Print a JSON report instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `sparql` options.
#[derive(Debug, Args)]
pub struct SparqlArgs {
    /// The query text; `-` reads it from standard input.
    pub query: String,

    /// Output format: json, xml, csv, tsv for SELECT/ASK; ttl, nt for CONSTRUCT/DESCRIBE.
    #[arg(long, short = 'f', default_value = "json")]
    pub format: String,

    /// Stop the query after this many seconds.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
}

/// `validate` options.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Validate only these files, loaded with the ontology into a scratch
    /// in-memory store. Without files, validates everything in the store.
    pub files: Vec<PathBuf>,

    /// Print the machine-readable JSON report.
    #[arg(long)]
    pub json: bool,
}

/// The default asset cache directory.
pub fn default_assets_dir() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache.join("daemoniq").join("assets")
}
