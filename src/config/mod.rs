//! Command line and environment configuration.
//!
//! The settings the library takes (`IndexConfig`, `AnswerConfig`,
//! `BackendConfig`, `HttpConfig`) live in their own files; each states its
//! defaults once, as constants that both the flag and `Default` use.

mod answer;
mod backend;
mod http;
mod index;

pub use answer::AnswerConfig;
pub use backend::BackendConfig;
pub use http::{ApiKey, HttpConfig};
pub use index::IndexConfig;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;

/// A comma-separated default as the list clap makes of it.
fn list(csv: &str) -> Vec<String> {
    csv.split(',').map(str::to_owned).collect()
}

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

/// `serve` options.
#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "DAEMONIQ_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// HTTP-level limits and timeouts.
    #[command(flatten)]
    pub http: HttpConfig,

    /// Listen on an address other than loopback without `--api-key`
    /// (anyone who reaches the port may then ingest and delete documents).
    #[arg(long, env = "DAEMONIQ_INSECURE_NO_AUTH")]
    pub insecure_no_auth: bool,
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The command line with no environment variable behind any flag, so
    /// what the test runner's environment holds (`DAEMONIQ_*`) cannot leak
    /// into the defaults.
    fn without_env(cmd: clap::Command) -> clap::Command {
        cmd.mut_args(|a| a.env(None::<&str>))
            .mut_subcommands(without_env)
    }

    #[test]
    fn the_parsed_defaults_are_the_default_values() {
        let matches = without_env(Cli::command())
            .try_get_matches_from(["daemoniq", "serve"])
            .unwrap();
        let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap();
        assert_eq!(cli.index, IndexConfig::default());
        assert_eq!(cli.answer, AnswerConfig::default());
        assert!(
            cli.backends == BackendConfig::default(),
            "{:?}",
            cli.backends
        );
        let Command::Serve(serve) = cli.command else {
            panic!("parsed {:?}", cli.command);
        };
        assert_eq!(serve.http, HttpConfig::default());
    }

    #[test]
    fn the_environment_is_off_in_the_defaults_test() {
        let cmd = without_env(Cli::command());
        assert!(cmd.get_arguments().all(|a| a.get_env().is_none()));
        let serve = cmd.find_subcommand("serve").unwrap();
        assert!(serve.get_arguments().all(|a| a.get_env().is_none()));
    }
}
