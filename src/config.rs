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

    /// Query pipeline weights and thresholds.
    #[command(flatten)]
    pub answer: AnswerConfig,

    /// Remote backends: a SPARQL 1.1 store and a Qdrant server.
    #[command(flatten)]
    pub backends: BackendConfig,

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

/// Where the graph and the vectors live when one machine is not enough: a
/// remote SPARQL 1.1 store instead of `<data-dir>/graph`, a Qdrant server
/// or cluster instead of `<data-dir>/vectors`. Unset: the embedded backends.
#[derive(Clone, Args)]
pub struct BackendConfig {
    /// SPARQL 1.1 query endpoint of a remote graph store (Oxigraph server
    /// `http://host:7878/query`, Fuseki `http://host:3030/ds/query`, …).
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_SPARQL_QUERY_URL",
        requires = "sparql_update_url"
    )]
    pub sparql_query_url: Option<String>,

    /// SPARQL 1.1 update endpoint of the same store.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_SPARQL_UPDATE_URL",
        requires = "sparql_query_url"
    )]
    pub sparql_update_url: Option<String>,

    /// Basic auth user of the SPARQL endpoints.
    #[arg(long, global = true, env = "DAEMONIQ_SPARQL_USER")]
    pub sparql_user: Option<String>,

    /// Basic auth password of the SPARQL endpoints (never logged).
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_SPARQL_PASSWORD",
        hide_env_values = true
    )]
    pub sparql_password: Option<String>,

    /// The SPARQL server's default graph is the union of all its graphs
    /// (`oxigraph serve --union-default-graph`, Fuseki
    /// `tdb2:unionDefaultGraph true`): queries then go without the list of
    /// every graph as their dataset.
    #[arg(long, global = true, env = "DAEMONIQ_SPARQL_SERVER_UNION")]
    pub sparql_server_union: bool,

    /// Time limit of one request to the SPARQL store that carries none of
    /// its own, in seconds (a ten-megabyte ontology upload needs a while).
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_SPARQL_TIMEOUT",
        default_value_t = 120
    )]
    pub sparql_timeout_secs: u64,

    /// gRPC URL of a Qdrant server or cluster (e.g. `http://qdrant:6334`).
    #[arg(long, global = true, env = "DAEMONIQ_QDRANT_URL")]
    pub qdrant_url: Option<String>,

    /// Qdrant API key (never logged).
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_QDRANT_API_KEY",
        hide_env_values = true
    )]
    pub qdrant_api_key: Option<String>,

    /// Qdrant collection holding the chunk vectors.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_QDRANT_COLLECTION",
        default_value = "daemoniq_chunks"
    )]
    pub qdrant_collection: String,

    /// Points per Qdrant upsert request.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_QDRANT_BATCH",
        default_value_t = 256
    )]
    pub qdrant_batch: usize,

    /// Time limit of one Qdrant request, in seconds.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_QDRANT_TIMEOUT",
        default_value_t = 30
    )]
    pub qdrant_timeout_secs: u64,

    /// Shards of a new Qdrant collection (default: the server's).
    #[arg(long, global = true, env = "DAEMONIQ_QDRANT_SHARDS")]
    pub qdrant_shards: Option<u32>,

    /// Copies of each shard of a new Qdrant collection in a cluster
    /// (default: the server's).
    #[arg(long, global = true, env = "DAEMONIQ_QDRANT_REPLICATION")]
    pub qdrant_replication: Option<u32>,

    /// Retries (with exponential backoff) of a transient failure of either
    /// remote backend before the request fails with 503.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BACKEND_RETRIES",
        default_value_t = 4
    )]
    pub backend_retries: usize,
}

impl std::fmt::Debug for BackendConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackendConfig")
            .field("sparql", &self.sparql())
            .field("qdrant", &self.qdrant())
            .finish()
    }
}

impl Default for BackendConfig {
    /// The embedded backends, with the flags' default settings.
    fn default() -> Self {
        Self {
            sparql_query_url: None,
            sparql_update_url: None,
            sparql_user: None,
            sparql_password: None,
            sparql_timeout_secs: 120,
            sparql_server_union: false,
            qdrant_url: None,
            qdrant_api_key: None,
            qdrant_collection: "daemoniq_chunks".into(),
            qdrant_batch: 256,
            qdrant_timeout_secs: 30,
            qdrant_shards: None,
            qdrant_replication: None,
            backend_retries: 4,
        }
    }
}

impl BackendConfig {
    /// The remote SPARQL store, when its URLs are set.
    pub fn sparql(&self) -> Option<crate::store::RemoteSettings> {
        Some(crate::store::RemoteSettings {
            query_url: self.sparql_query_url.clone()?,
            update_url: self.sparql_update_url.clone()?,
            user: self.sparql_user.clone(),
            password: self.sparql_password.clone(),
            timeout: std::time::Duration::from_secs(self.sparql_timeout_secs),
            retries: self.backend_retries,
            server_union: self.sparql_server_union,
        })
    }

    /// The Qdrant server at `url` with these settings.
    pub fn qdrant_at(&self, url: &str) -> crate::vector::QdrantSettings {
        crate::vector::QdrantSettings {
            url: url.to_owned(),
            api_key: self.qdrant_api_key.clone(),
            collection: self.qdrant_collection.clone(),
            batch: self.qdrant_batch,
            retries: self.backend_retries,
            timeout: std::time::Duration::from_secs(self.qdrant_timeout_secs),
            shards: self.qdrant_shards,
            replication: self.qdrant_replication,
        }
    }

    /// The Qdrant server, when its URL is set.
    pub fn qdrant(&self) -> Option<crate::vector::QdrantSettings> {
        self.qdrant_url.as_deref().map(|url| self.qdrant_at(url))
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
    /// Ask a question through the same pipeline as `POST /chat`.
    Ask(AskArgs),
    /// Delete ingested documents (vector points and graph nodes together).
    Delete(DeleteArgs),
    /// List ingested documents with their chunk counts.
    Documents(DocumentsArgs),
    /// Run the golden questions through the `/chat` pipeline and check the CI gates.
    Eval(EvalArgs),
    /// Copy the embedded vector index (`<data-dir>/vectors`) to a Qdrant
    /// server collection, vectors and payloads as they are (no re-embedding).
    Migrate(MigrateArgs),
}

/// `migrate` options.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// gRPC URL of the Qdrant server to copy to (the collection is
    /// `--qdrant-collection`, the key `--qdrant-api-key`).
    #[arg(long, value_name = "URL")]
    pub to_qdrant: String,

    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
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

/// `ask` options.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The question (1-500 characters).
    pub question: String,

    /// Answer only from this text (10-5000 characters).
    #[arg(long)]
    pub selected_text: Option<String>,

    /// Chunks to retrieve (1-20).
    #[arg(long, default_value_t = 5)]
    pub top_k: usize,

    /// Print the `/chat` envelope as JSON.
    #[arg(long)]
    pub json: bool,

    /// Include the trace: grounding, graph queries and facts, retrieval
    /// decisions, chunk scores.
    #[arg(long)]
    pub trace: bool,
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

/// `eval` options. The reports (`eval_report.json`, `eval_report.md`) go to
/// the global `--report-dir` (default: the data dir).
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Directory of the golden question files and `gates.json`; its parent
    /// is the root that their file paths are relative to.
    #[arg(long, default_value = "golden")]
    pub golden: PathBuf,

    /// Gate file (default: `<golden>/gates.json`).
    #[arg(long)]
    pub gates: Option<PathBuf>,

    /// Ask a running server (`POST {url}/chat`) instead of the pipeline in
    /// this process, e.g. `http://127.0.0.1:8080`.
    #[arg(long, env = "DAEMONIQ_EVAL_URL")]
    pub url: Option<String>,

    /// Evaluate only these golden sets (by name, e.g. `demo_campus`, or
    /// path); repeat the flag for several. Default: every set in the gate
    /// file.
    #[arg(long = "set", value_name = "NAME")]
    pub sets: Vec<String>,

    /// Print the JSON report on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Query pipeline weights and thresholds (ARCHITECTURE.md § Query). All of
/// them are configuration, none a literal in the pipeline.
#[derive(Debug, Args, Clone)]
pub struct AnswerConfig {
    /// Grounding confidence at or above which vector search is filtered by
    /// the grounded concepts.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_GROUNDED_MIN_CONF",
        default_value_t = 0.6
    )]
    pub grounded_min_conf: f64,

    /// Haystack equipment kinds too generic to filter on (comma list).
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_GENERIC_EQUIP",
        value_delimiter = ',',
        default_value = "actuator,meter,sensor,controller,equip"
    )]
    pub generic_equip: Vec<String>,

    /// Filtered search fetches `top_k` times this many candidates.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_FILTER_FETCH_FACTOR",
        default_value_t = 4
    )]
    pub filter_fetch_factor: usize,

    /// Rerank boost when a chunk's `equip` overlaps the question's.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BOOST_EQUIP",
        default_value_t = 1.5
    )]
    pub boost_equip: f32,

    /// Rerank boost when a chunk's `brick_equip` overlaps the question's.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BOOST_BRICK",
        default_value_t = 1.3
    )]
    pub boost_brick: f32,

    /// Rerank boost when a chunk's `ptags` overlap the question's.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BOOST_PTAGS",
        default_value_t = 1.2
    )]
    pub boost_ptags: f32,

    /// Rerank boost when a chunk links to an instance or product the graph
    /// step found.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_BOOST_GRAPH",
        default_value_t = 1.25
    )]
    pub boost_graph: f32,

    /// Best chunk similarity below which documents are not relevant.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_MIN_RELEVANCE",
        default_value_t = 0.4
    )]
    pub min_relevance: f32,

    /// Confidence (1 − mean cosine distance of the chunks used) below which
    /// a document answer abstains.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_MIN_CONFIDENCE",
        default_value_t = 0.5
    )]
    pub min_confidence: f32,

    /// Share of the question's content words the quoted sentences must
    /// hold for a document (or selected-text) answer; below it the
    /// pipeline abstains.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_MIN_COVERAGE",
        default_value_t = 0.6
    )]
    pub min_coverage: f32,

    /// Most chunks that reach synthesis.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_MAX_CONTEXT_CHUNKS",
        default_value_t = 10
    )]
    pub max_context_chunks: usize,

    /// Hops of topology expansion around the entities a question names.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_EXPAND_DEPTH",
        default_value_t = 1
    )]
    pub expand_depth: usize,

    /// Append one JSON line per question here (request id, sanitized query,
    /// retrieval set ids, status, refusal type, latency; never answer or
    /// chunk text). `serve` defaults to `<data-dir>/audit.jsonl`.
    #[arg(long, global = true, env = "DAEMONIQ_AUDIT_LOG")]
    pub audit_log: Option<PathBuf>,
}

impl Default for AnswerConfig {
    fn default() -> Self {
        Self {
            grounded_min_conf: 0.6,
            generic_equip: ["actuator", "meter", "sensor", "controller", "equip"]
                .map(String::from)
                .to_vec(),
            filter_fetch_factor: 4,
            boost_equip: 1.5,
            boost_brick: 1.3,
            boost_ptags: 1.2,
            boost_graph: 1.25,
            min_relevance: 0.4,
            min_confidence: 0.5,
            min_coverage: 0.6,
            max_context_chunks: 10,
            expand_depth: 1,
            audit_log: None,
        }
    }
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
