//! `BackendConfig`: where the graph and the vectors live when they are not
//! embedded.

use clap::Args;

/// Where the graph and the vectors live when one machine is not enough: a
/// remote SPARQL 1.1 store instead of `<data-dir>/graph`, a Qdrant server
/// or cluster instead of `<data-dir>/vectors`. Unset: the embedded backends.
#[derive(Clone, Args, PartialEq)]
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
        default_value_t = BackendConfig::SPARQL_TIMEOUT_SECS
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
        default_value = BackendConfig::QDRANT_COLLECTION
    )]
    pub qdrant_collection: String,

    /// Points per Qdrant upsert request.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_QDRANT_BATCH",
        default_value_t = BackendConfig::QDRANT_BATCH
    )]
    pub qdrant_batch: usize,

    /// Time limit of one Qdrant request, in seconds.
    #[arg(
        long,
        global = true,
        env = "DAEMONIQ_QDRANT_TIMEOUT",
        default_value_t = BackendConfig::QDRANT_TIMEOUT_SECS
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
        default_value_t = BackendConfig::BACKEND_RETRIES
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

/// The defaults: the flags' and [`Default`]'s single source.
impl BackendConfig {
    /// `--sparql-timeout-secs`.
    pub const SPARQL_TIMEOUT_SECS: u64 = 120;
    /// `--qdrant-collection`.
    pub const QDRANT_COLLECTION: &str = "daemoniq_chunks";
    /// `--qdrant-batch`.
    pub const QDRANT_BATCH: usize = 256;
    /// `--qdrant-timeout-secs`.
    pub const QDRANT_TIMEOUT_SECS: u64 = 30;
    /// `--backend-retries`.
    pub const BACKEND_RETRIES: usize = 4;
}

impl Default for BackendConfig {
    /// The embedded backends, with the flags' default settings.
    fn default() -> Self {
        Self {
            sparql_query_url: None,
            sparql_update_url: None,
            sparql_user: None,
            sparql_password: None,
            sparql_timeout_secs: Self::SPARQL_TIMEOUT_SECS,
            sparql_server_union: false,
            qdrant_url: None,
            qdrant_api_key: None,
            qdrant_collection: Self::QDRANT_COLLECTION.to_owned(),
            qdrant_batch: Self::QDRANT_BATCH,
            qdrant_timeout_secs: Self::QDRANT_TIMEOUT_SECS,
            qdrant_shards: None,
            qdrant_replication: None,
            backend_retries: Self::BACKEND_RETRIES,
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
