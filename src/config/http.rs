//! `HttpConfig`: limits and access of the HTTP API (`serve` only).

use clap::Args;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Limits of the HTTP API.
#[derive(Debug, Args, Clone, PartialEq)]
pub struct HttpConfig {
    /// Stop a SPARQL query after this many seconds (fractions allowed).
    #[arg(long, env = "DAEMONIQ_QUERY_TIMEOUT", default_value_t = HttpConfig::QUERY_TIMEOUT)]
    pub query_timeout: f64,

    /// Return at most this many solutions or triples from `/sparql`.
    #[arg(long, env = "DAEMONIQ_MAX_ROWS", default_value_t = HttpConfig::MAX_ROWS)]
    pub max_rows: usize,

    /// Largest accepted request body, in bytes.
    #[arg(long, env = "DAEMONIQ_MAX_BODY_BYTES", default_value_t = HttpConfig::MAX_BODY_BYTES)]
    pub max_body_bytes: usize,

    /// Origins allowed by CORS (comma-separated); `*` allows any.
    #[arg(
        long,
        env = "DAEMONIQ_CORS_ORIGINS",
        value_delimiter = ',',
        default_value = HttpConfig::CORS_ORIGINS
    )]
    pub cors_origins: Vec<String>,

    /// API key for every route, writes (`POST /ingest`, `DELETE
    /// /api/documents/…`) included, sent as `Authorization: Bearer KEY` or
    /// `api-key: KEY`. With a key set, every route but `/health` and
    /// `/openapi.json` needs one.
    #[arg(long, env = "DAEMONIQ_API_KEY", hide_env_values = true)]
    pub api_key: Option<ApiKey>,

    /// API key for the read routes only (`/sparql`, `/chat`, `/retrieve`,
    /// `/api/…` reads); a write with it is refused (403).
    #[arg(
        long,
        env = "DAEMONIQ_READ_ONLY_API_KEY",
        hide_env_values = true,
        requires = "api_key"
    )]
    pub read_only_api_key: Option<ApiKey>,

    /// Requests per second each client (its key, else its address) may make
    /// to each of `/chat`, `/retrieve`, `/sparql` and `/ingest`; 0 for no
    /// limit. Over it: 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`.
    #[arg(long, env = "DAEMONIQ_RATE_LIMIT_RPS", default_value_t = HttpConfig::RATE_LIMIT_RPS)]
    pub rate_limit_rps: f64,

    /// Requests a client may make at once before `--rate-limit-rps` applies.
    #[arg(long, env = "DAEMONIQ_RATE_LIMIT_BURST", default_value_t = HttpConfig::RATE_LIMIT_BURST)]
    pub rate_limit_burst: u32,

    /// Serve `GET /metrics` without an API key even when keys are set (for
    /// a scraper on a trusted network).
    #[arg(long, env = "DAEMONIQ_METRICS_PUBLIC")]
    pub metrics_public: bool,

    /// SPARQL requests (`/sparql`) evaluated at once; more wait in a queue.
    #[arg(long, env = "DAEMONIQ_MAX_CONCURRENT_QUERIES", default_value_t = HttpConfig::MAX_CONCURRENT)]
    pub max_concurrent_queries: usize,

    /// Questions (`/chat`, `/retrieve`: embedding and retrieval) answered at
    /// once; more wait in a queue.
    #[arg(long, env = "DAEMONIQ_MAX_CONCURRENT_ANSWERS", default_value_t = HttpConfig::MAX_CONCURRENT)]
    pub max_concurrent_answers: usize,

    /// Requests that may wait for each of those two; one more is shed at
    /// once with 503 `OVERLOADED` and `Retry-After`.
    #[arg(long, env = "DAEMONIQ_MAX_QUEUED", default_value_t = HttpConfig::MAX_QUEUED)]
    pub max_queued: usize,

    /// Serve the web UI's own files from this directory (the repository's
    /// `ui/`) instead of the copy compiled into the binary: for working on
    /// the UI without rebuilding.
    #[arg(long, env = "DAEMONIQ_UI_DIR")]
    pub ui_dir: Option<std::path::PathBuf>,

    /// Where the UI's third-party libraries are: the asset cache's
    /// `ui-vendor/`, set by `serve` from `--assets-dir`.
    #[arg(skip)]
    pub ui_vendor_dir: Option<std::path::PathBuf>,
}

/// An API key: never printed (its `Debug` is redacted), compared in
/// constant time.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Whether `given` is this key. Both are hashed first, so the
    /// comparison takes the same time whatever their lengths and contents.
    pub fn matches(&self, given: &str) -> bool {
        let ours = Sha256::digest(self.0.as_bytes());
        let theirs = Sha256::digest(given.as_bytes());
        ours.ct_eq(&theirs).into()
    }

    /// A short, stable fingerprint of the key (the first 8 hex digits of
    /// its SHA-256), to tell clients apart without holding the key.
    pub fn fingerprint(&self) -> String {
        hex::encode(&Sha256::digest(self.0.as_bytes())[..4])
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(redacted)")
    }
}

impl std::str::FromStr for ApiKey {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.len() < ApiKey::MIN_LEN {
            return Err(format!(
                "an API key needs at least {} characters",
                ApiKey::MIN_LEN
            ));
        }
        if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err("an API key has no spaces or control characters".into());
        }
        Ok(Self(s.to_owned()))
    }
}

impl ApiKey {
    /// Shortest key accepted.
    pub const MIN_LEN: usize = 16;
}

/// The defaults: the flags' and [`Default`]'s single source.
impl HttpConfig {
    /// `--query-timeout`, in seconds.
    pub const QUERY_TIMEOUT: f64 = 10.0;
    /// `--max-rows`.
    pub const MAX_ROWS: usize = 10_000;
    /// `--max-body-bytes`: 1 MiB.
    pub const MAX_BODY_BYTES: usize = 1 << 20;
    /// `--cors-origins`, comma-separated.
    pub const CORS_ORIGINS: &str = "*";
    /// `--rate-limit-rps`: no limit.
    pub const RATE_LIMIT_RPS: f64 = 0.0;
    /// `--rate-limit-burst`.
    pub const RATE_LIMIT_BURST: u32 = 20;
    /// `--max-concurrent-queries` and `--max-concurrent-answers`: two per
    /// core of this machine class.
    pub const MAX_CONCURRENT: usize = 4;
    /// `--max-queued`.
    pub const MAX_QUEUED: usize = 32;

    /// The query timeout as a duration.
    pub fn query_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.query_timeout.max(0.001))
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            query_timeout: Self::QUERY_TIMEOUT,
            max_rows: Self::MAX_ROWS,
            max_body_bytes: Self::MAX_BODY_BYTES,
            cors_origins: super::list(Self::CORS_ORIGINS),
            api_key: None,
            read_only_api_key: None,
            rate_limit_rps: Self::RATE_LIMIT_RPS,
            rate_limit_burst: Self::RATE_LIMIT_BURST,
            metrics_public: false,
            max_concurrent_queries: Self::MAX_CONCURRENT,
            max_concurrent_answers: Self::MAX_CONCURRENT,
            max_queued: Self::MAX_QUEUED,
            ui_dir: None,
            ui_vendor_dir: None,
        }
    }
}
