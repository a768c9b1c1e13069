//! Who may call what, and how often: API keys and per-client rate limits,
//! one middleware in front of every route.
//!
//! Keys (`--api-key`, `--read-only-api-key`): with none configured, every
//! route is open (loopback use; `serve` refuses other addresses without a
//! key). With keys, every route but `/health` and `/openapi.json` needs
//! one; the read-only key opens the read routes only. Keys are compared in constant time
//! ([`ApiKey::matches`]) and never logged: a client is logged and rate
//! limited by its key's fingerprint or its address.
//!
//! Rate limits (`--rate-limit-rps`, `--rate-limit-burst`): a token bucket
//! (GCRA, `governor`) per client and route group (`/chat`, `/retrieve`,
//! `/sparql`, `/ingest`), so a burst of SPARQL does not lock a client out
//! of `/chat`. Over the limit: 429 `RATE_LIMIT_EXCEEDED` with
//! `retry_after` and `Retry-After` (seed 003).
//!
//! Load shedding (`--max-concurrent-queries`, `--max-concurrent-answers`,
//! `--max-queued`): SPARQL requests and questions each run through a
//! bounded [`Pool`]; a request that finds its pool's queue full is answered
//! at once with 503 `OVERLOADED` and `Retry-After`.

use super::error::{ApiError, ErrorCode};
use super::metrics::Metrics;
use crate::config::{ApiKey, HttpConfig};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Clients kept in the rate limiter before idle ones are dropped.
const CLIENTS_KEPT: usize = 10_000;
/// Seconds a shed request is told to wait.
const RETRY_SHED_SECS: u64 = 1;

/// A bounded pool of work: `running` at once, at most `queue` more waiting,
/// each for at most `max_wait` (a query that waited out its time limit has
/// no time left to run).
pub struct Pool {
    name: &'static str,
    running: Arc<Semaphore>,
    waiting: AtomicUsize,
    queue: usize,
    max_wait: Option<Duration>,
}

impl Pool {
    /// A pool running `running` requests at once (at least one) with
    /// `queue` more waiting.
    pub fn new(name: &'static str, running: usize, queue: usize) -> Self {
        Self {
            name,
            running: Arc::new(Semaphore::new(running.max(1))),
            waiting: AtomicUsize::new(0),
            queue,
            max_wait: None,
        }
    }

    /// The same pool, shedding a request that waited `wait` in the queue.
    pub fn waiting_at_most(mut self, wait: Duration) -> Self {
        self.max_wait = Some(wait);
        self
    }

    fn shed(&self, why: &str) -> ApiError {
        tracing::warn!(pool = self.name, queued = self.queue, why, "request shed");
        ApiError::new(
            ErrorCode::Overloaded,
            format!(
                "the server is busy with other {} requests; retry shortly",
                self.name
            ),
        )
        .retry_after(RETRY_SHED_SECS)
    }

    /// A place to run: at once when one is free, after waiting when the
    /// queue has room, else `OVERLOADED` without waiting.
    pub async fn enter(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        if let Ok(permit) = Arc::clone(&self.running).try_acquire_owned() {
            return Ok(permit);
        }
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.queue {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(self.shed("queue full"));
        }
        let acquire = Arc::clone(&self.running).acquire_owned();
        let permit = match self.max_wait {
            Some(wait) => tokio::time::timeout(wait, acquire).await,
            None => Ok(acquire.await),
        };
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        match permit {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(e)) => Err(ApiError::internal(ErrorCode::Internal, e)),
            Err(_) => Err(self.shed("waited out its time limit")),
        }
    }
}

/// What a route lets a caller do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No key needed (`/health`, `/openapi.json`, the UI's files).
    Public,
    /// Either key.
    Read,
    /// The full key only.
    Write,
}

/// `/`, `/ui` and everything under `/ui/`: the web UI's static files.
fn is_ui_path(path: &str) -> bool {
    path == "/" || path == "/ui" || path.starts_with("/ui/")
}

/// The access a request needs: writes are `POST /ingest` and `DELETE` of a
/// document; everything else reads. `/health`, `/openapi.json` and the web
/// UI's files (`/`, `/ui/…`: the page asks for a key when an API call it
/// makes answers 401) are public, and so is `/metrics` when
/// `metrics_public`. `path` may be a
/// route's template (`/api/documents/{source_id}`): the OpenAPI document
/// asks the same question.
pub fn access(method: &Method, path: &str, metrics_public: bool) -> Access {
    if path == "/health"
        || path == "/openapi.json"
        || (metrics_public && path == "/metrics")
        || (method == Method::GET && is_ui_path(path))
    {
        Access::Public
    } else if (method == Method::POST && path == "/ingest")
        || (method == Method::DELETE && path.starts_with("/api/documents/"))
    {
        Access::Write
    } else {
        Access::Read
    }
}

/// The route group a path's rate limit counts in, if it has one.
pub fn limited_group(path: &str) -> Option<&'static str> {
    ["/chat", "/retrieve", "/sparql", "/ingest"]
        .into_iter()
        .find(|g| path == *g)
}

/// The bounded pools requests run through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooled {
    /// SPARQL evaluations (`--max-concurrent-queries`).
    Queries,
    /// Questions (`--max-concurrent-answers`).
    Answers,
}

/// The pool a path's requests wait in, if any: shed with 503 `OVERLOADED`
/// when its queue is full.
pub fn pooled(path: &str) -> Option<Pooled> {
    match path {
        "/sparql" => Some(Pooled::Queries),
        "/chat" | "/retrieve" => Some(Pooled::Answers),
        _ => None,
    }
}

/// The key a request carries: `Authorization: Bearer KEY` or `api-key: KEY`.
fn presented(headers: &HeaderMap) -> Option<&str> {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.split_once(' ')
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                .map(|(_, key)| key.trim())
        });
    bearer.or_else(|| {
        headers
            .get("api-key")
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    })
}

/// Which key a request was let in with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Granted {
    /// No keys are configured.
    Open,
    /// The full key.
    Full,
    /// The read-only key.
    ReadOnly,
}

/// The keys and the rate limiter, built once from the configuration.
pub struct Guard {
    key: Option<ApiKey>,
    read_only_key: Option<ApiKey>,
    limiter: Option<DefaultKeyedRateLimiter<String>>,
    queries: Pool,
    answers: Pool,
    metrics_public: bool,
    metrics: Arc<Metrics>,
}

impl Guard {
    /// The guard `http` configures, counting its refusals in `metrics`.
    pub fn new(http: &HttpConfig, metrics: Arc<Metrics>) -> Self {
        let limiter = (http.rate_limit_rps > 0.0).then(|| {
            let period = Duration::from_secs_f64(1.0 / http.rate_limit_rps);
            let burst = NonZeroU32::new(http.rate_limit_burst).unwrap_or(NonZeroU32::MIN);
            let quota = Quota::with_period(period)
                .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
                .allow_burst(burst);
            RateLimiter::keyed(quota)
        });
        Self {
            key: http.api_key.clone(),
            read_only_key: http.read_only_api_key.clone(),
            limiter,
            queries: Pool::new("SPARQL", http.max_concurrent_queries, http.max_queued)
                .waiting_at_most(http.query_timeout()),
            answers: Pool::new("question", http.max_concurrent_answers, http.max_queued),
            metrics_public: http.metrics_public,
            metrics,
        }
    }

    /// Checks the request's key against what the route needs.
    fn admit(&self, needs: Access, headers: &HeaderMap) -> Result<Granted, ApiError> {
        let Some(key) = &self.key else {
            return Ok(Granted::Open);
        };
        if needs == Access::Public {
            return Ok(Granted::Open);
        }
        let Some(given) = presented(headers) else {
            return Err(ApiError::new(
                ErrorCode::Unauthorized,
                "this server needs an API key: send `Authorization: Bearer KEY` or `api-key: KEY`",
            ));
        };
        // Both keys are compared, whichever matches, so the time taken does
        // not tell which one a guess was close to.
        let full = key.matches(given);
        let read_only = self
            .read_only_key
            .as_ref()
            .is_some_and(|k| k.matches(given));
        match (full, read_only) {
            (true, _) => Ok(Granted::Full),
            (false, true) if needs == Access::Read => Ok(Granted::ReadOnly),
            (false, true) => Err(ApiError::new(
                ErrorCode::Forbidden,
                "the read-only API key cannot ingest or delete documents; use the full key",
            )),
            (false, false) => Err(ApiError::new(
                ErrorCode::Unauthorized,
                "the API key is not one this server knows",
            )),
        }
    }

    /// Counts a request against its client's bucket for the route group.
    fn throttle(&self, group: &str, client: &str) -> Result<(), ApiError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        if limiter.len() > CLIENTS_KEPT {
            limiter.retain_recent();
        }
        limiter
            .check_key(&format!("{group} {client}"))
            .map_err(|not_until| {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                tracing::info!(group, client, retry_after = secs, "rate limit exceeded");
                ApiError::new(
                    ErrorCode::RateLimitExceeded,
                    format!("too many requests to {group}; retry after {secs} s"),
                )
                .retry_after(secs.max(1))
            })
    }

    /// The name a client is counted and logged under: its key's
    /// fingerprint, else its address (never the key itself).
    fn client(&self, granted: Granted, peer: Option<SocketAddr>) -> String {
        let key = match granted {
            Granted::Full => self.key.as_ref(),
            Granted::ReadOnly => self.read_only_key.as_ref(),
            Granted::Open => None,
        };
        match (key, peer) {
            (Some(k), _) => format!("key:{}", k.fingerprint()),
            (None, Some(p)) => format!("ip:{}", p.ip()),
            (None, None) => "unknown".to_owned(),
        }
    }
}

/// The middleware: admits, throttles, then runs the route.
pub async fn guard(State(guard): State<Arc<Guard>>, mut req: Request, next: Next) -> Response {
    req.extensions_mut()
        .insert(Arrived(std::time::Instant::now()));
    let path = req.uri().path().to_owned();
    let needs = access(req.method(), &path, guard.metrics_public);
    let granted = match guard.admit(needs, req.headers()) {
        Ok(g) => g,
        Err(e) => {
            tracing::info!(path = %path, code = ?e.code, "request refused");
            let mut response = refuse(req, e).await;
            if response.status() == axum::http::StatusCode::UNAUTHORIZED {
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            }
            return response;
        }
    };
    if let Some(group) = limited_group(&path) {
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0);
        let client = guard.client(granted, peer);
        if let Err(e) = guard.throttle(group, &client) {
            guard.metrics.rate_limited(group);
            return refuse(req, e).await;
        }
    }
    let pool = pooled(&path).map(|p| match p {
        Pooled::Queries => &guard.queries,
        Pooled::Answers => &guard.answers,
    });
    let _permit = match pool {
        Some(pool) => match pool.enter().await {
            Ok(permit) => Some(permit),
            Err(e) => {
                guard.metrics.shed(pool.name);
                return refuse(req, e).await;
            }
        },
        None => None,
    };
    next.run(req).await
}

/// When a request reached the server: a SPARQL query's time limit counts
/// from here, time waiting in the queue included.
#[derive(Debug, Clone, Copy)]
pub struct Arrived(pub std::time::Instant);

/// Bodies read before a refusal, so the connection stays usable.
const DRAIN_LIMIT: usize = 64 << 10;

/// The refusal's response, after reading a small request body: a body left
/// unread makes the HTTP server close the connection, and a keep-alive
/// client sees its next request fail instead of its 429.
async fn refuse(req: Request, e: ApiError) -> Response {
    let _ = axum::body::to_bytes(req.into_body(), DRAIN_LIMIT).await;
    e.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(rps: f64, burst: u32) -> HttpConfig {
        HttpConfig {
            api_key: Some("full-key-0123456789".parse().unwrap()),
            read_only_api_key: Some("read-key-0123456789".parse().unwrap()),
            rate_limit_rps: rps,
            rate_limit_burst: burst,
            ..HttpConfig::default()
        }
    }

    fn with(name: &'static str, value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn writes_need_the_full_key_reads_either() {
        let g = Guard::new(&config(0.0, 1), Arc::default());
        let full = with("authorization", "Bearer full-key-0123456789");
        let read = with("api-key", "read-key-0123456789");
        assert_eq!(g.admit(Access::Write, &full).unwrap(), Granted::Full);
        assert_eq!(g.admit(Access::Read, &read).unwrap(), Granted::ReadOnly);
        assert_eq!(
            g.admit(Access::Write, &read).unwrap_err().code,
            ErrorCode::Forbidden
        );
        assert_eq!(
            g.admit(Access::Read, &HeaderMap::new()).unwrap_err().code,
            ErrorCode::Unauthorized
        );
        let wrong = with("authorization", "Bearer full-key-012345678");
        assert_eq!(
            g.admit(Access::Read, &wrong).unwrap_err().code,
            ErrorCode::Unauthorized
        );
        assert_eq!(
            g.admit(Access::Public, &HeaderMap::new()).unwrap(),
            Granted::Open
        );
        let open = Guard::new(&HttpConfig::default(), Arc::default());
        assert_eq!(
            open.admit(Access::Write, &HeaderMap::new()).unwrap(),
            Granted::Open
        );
    }

    #[test]
    fn routes_are_read_write_or_public() {
        assert_eq!(access(&Method::GET, "/health", false), Access::Public);
        assert_eq!(access(&Method::GET, "/openapi.json", false), Access::Public);
        assert_eq!(access(&Method::POST, "/ingest", false), Access::Write);
        assert_eq!(
            access(&Method::DELETE, "/api/documents/abc", false),
            Access::Write
        );
        assert_eq!(access(&Method::GET, "/api/documents", false), Access::Read);
        assert_eq!(access(&Method::POST, "/sparql", false), Access::Read);
        assert_eq!(access(&Method::POST, "/chat", false), Access::Read);
        assert_eq!(access(&Method::GET, "/metrics", false), Access::Read);
        assert_eq!(access(&Method::GET, "/metrics", true), Access::Public);
        assert_eq!(access(&Method::GET, "/", false), Access::Public);
        assert_eq!(access(&Method::GET, "/ui/js/app.js", false), Access::Public);
        assert_eq!(access(&Method::POST, "/ui/x", false), Access::Read);
        assert_eq!(access(&Method::GET, "/uix", false), Access::Read);
        assert_eq!(access(&Method::GET, "/api/ui/config", false), Access::Read);
    }

    #[test]
    fn a_client_over_its_burst_waits_per_group() {
        let g = Guard::new(&config(0.5, 2), Arc::default());
        assert!(g.throttle("/chat", "ip:127.0.0.1").is_ok());
        assert!(g.throttle("/chat", "ip:127.0.0.1").is_ok());
        let e = g.throttle("/chat", "ip:127.0.0.1").unwrap_err();
        assert_eq!(e.code, ErrorCode::RateLimitExceeded);
        assert!(matches!(e.retry_after, Some(1..=2)), "{:?}", e.retry_after);
        // Another group, another client: their own buckets.
        assert!(g.throttle("/sparql", "ip:127.0.0.1").is_ok());
        assert!(g.throttle("/chat", "ip:127.0.0.2").is_ok());
    }

    #[tokio::test]
    async fn a_full_pool_sheds_at_once_and_a_freed_one_admits() {
        let pool = Pool::new("SPARQL", 1, 1);
        let first = pool.enter().await.unwrap();
        // The second waits in the queue; the third finds it full.
        let second = pool.enter();
        tokio::pin!(second);
        let waited = tokio::time::timeout(Duration::from_millis(50), &mut second).await;
        assert!(waited.is_err(), "admitted while the pool was busy");
        let shed = pool.enter().await.unwrap_err();
        assert_eq!(shed.code, ErrorCode::Overloaded);
        assert_eq!(shed.retry_after, Some(RETRY_SHED_SECS));
        drop(first);
        assert!(second.await.is_ok());
    }

    #[tokio::test]
    async fn a_request_that_waits_out_its_limit_is_shed() {
        let pool = Pool::new("SPARQL", 1, 4).waiting_at_most(Duration::from_millis(20));
        let _busy = pool.enter().await.unwrap();
        let shed = pool.enter().await.unwrap_err();
        assert_eq!(shed.code, ErrorCode::Overloaded);
        // The queue place is given back.
        assert_eq!(pool.waiting.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn keys_are_never_printed() {
        let c = config(0.0, 1);
        let shown = format!("{c:?}");
        assert!(!shown.contains("full-key"), "{shown}");
        assert!(!shown.contains("read-key"), "{shown}");
        assert!("short".parse::<ApiKey>().is_err());
    }
}
