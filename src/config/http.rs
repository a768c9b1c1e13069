//! `HttpConfig`: limits of the HTTP API (`serve` only).

use clap::Args;

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
        }
    }
}
