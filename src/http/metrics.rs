//! `GET /metrics`: Prometheus / OpenMetrics text (`prometheus-client`).
//!
//! Requests by route (the route's template, so ids do not multiply the
//! series) and status with a latency histogram; `/chat` stage timings;
//! answers by status and refusal type; ingest documents, chunks and errors;
//! rate-limit rejections and shed requests; and, read when scraped, the
//! store's triples and the vector index's points. With API keys the route
//! needs one, unless `--metrics-public`.

use super::SharedState;
use super::error::ApiResult;
use crate::answer::ChatResponse;
use crate::ingest::report::Counts;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Metric, Registry};
use std::sync::Arc;
use std::time::Instant;

/// The content type of the OpenMetrics text format.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: String,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StageLabels {
    stage: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AnswerLabels {
    status: String,
    refusal_type: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct GroupLabels {
    group: String,
}

/// Seconds, from 1 ms to about 33 s.
fn seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 16))
}

/// Every metric the server keeps, and the registry that writes them.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram, fn() -> Histogram>,
    stages: Family<StageLabels, Histogram, fn() -> Histogram>,
    answers: Family<AnswerLabels, Counter>,
    documents: Family<OutcomeLabels, Counter>,
    chunks: Family<OutcomeLabels, Counter>,
    ingest_errors: Counter,
    rate_limited: Family<GroupLabels, Counter>,
    shed: Family<GroupLabels, Counter>,
    triples: Gauge,
    points: Gauge,
}

/// Registers `metric` under `name` and hands it back to be kept.
fn add<M: Metric + Clone>(registry: &mut Registry, name: &str, help: &str, metric: M) -> M {
    registry.register(name, help, metric.clone());
    metric
}

impl Default for Metrics {
    fn default() -> Self {
        let mut r = Registry::with_prefix("daemoniq");
        let hist = seconds as fn() -> Histogram;
        Self {
            requests: add(
                &mut r,
                "http_requests",
                "HTTP requests by method, route and status",
                Family::default(),
            ),
            latency: add(
                &mut r,
                "http_request_duration_seconds",
                "HTTP request latency by method and route",
                Family::new_with_constructor(hist),
            ),
            stages: add(
                &mut r,
                "chat_stage_duration_seconds",
                "Time /chat spends in each pipeline stage",
                Family::new_with_constructor(hist),
            ),
            answers: add(
                &mut r,
                "answers",
                "/chat answers by status and refusal type",
                Family::default(),
            ),
            documents: add(
                &mut r,
                "ingest_documents",
                "Documents ingested over HTTP by outcome (indexed, replaced, unchanged, failed)",
                Family::default(),
            ),
            chunks: add(
                &mut r,
                "ingest_chunks",
                "Chunks written or left out by HTTP ingests",
                Family::default(),
            ),
            ingest_errors: add(
                &mut r,
                "ingest_errors",
                "Entries written to index_errors.json by HTTP ingests",
                Counter::default(),
            ),
            rate_limited: add(
                &mut r,
                "rate_limited",
                "Requests refused with 429 by route group",
                Family::default(),
            ),
            shed: add(
                &mut r,
                "shed",
                "Requests shed with 503 because a pool's queue was full",
                Family::default(),
            ),
            triples: add(
                &mut r,
                "store_triples",
                "Triples in the graph store",
                Gauge::default(),
            ),
            points: add(
                &mut r,
                "vector_points",
                "Points in the vector index",
                Gauge::default(),
            ),
            registry: r,
        }
    }
}

impl Metrics {
    /// Counts an answer and its stage timings.
    pub fn answered(&self, resp: &ChatResponse) {
        let status: &'static str = resp.status.into();
        let refusal: &'static str = resp.refusal.as_ref().map_or("", |r| r.refusal_type.into());
        self.answers
            .get_or_create(&AnswerLabels {
                status: status.to_owned(),
                refusal_type: refusal.to_owned(),
            })
            .inc();
        for (stage, ms) in &resp.trace.stages_ms {
            self.stages
                .get_or_create(&StageLabels {
                    stage: stage.clone(),
                })
                .observe(ms / 1000.0);
        }
    }

    /// Counts an ingest run's documents, chunks and errors.
    pub fn ingested(&self, counts: &Counts) {
        let by_outcome = |family: &Family<OutcomeLabels, Counter>, outcome: &str, n: usize| {
            family
                .get_or_create(&OutcomeLabels {
                    outcome: outcome.to_owned(),
                })
                .inc_by(n as u64);
        };
        by_outcome(&self.documents, "indexed", counts.indexed);
        by_outcome(&self.documents, "replaced", counts.replaced);
        by_outcome(&self.documents, "unchanged", counts.unchanged);
        by_outcome(&self.documents, "failed", counts.failed);
        by_outcome(&self.chunks, "written", counts.chunks_written);
        by_outcome(&self.chunks, "skipped", counts.chunks_skipped);
        self.ingest_errors.inc_by(counts.errors as u64);
    }

    /// Counts a 429.
    pub fn rate_limited(&self, group: &str) {
        self.rate_limited
            .get_or_create(&GroupLabels {
                group: group.to_owned(),
            })
            .inc();
    }

    /// Counts a shed request.
    pub fn shed(&self, pool: &str) {
        self.shed
            .get_or_create(&GroupLabels {
                group: pool.to_owned(),
            })
            .inc();
    }

    /// The metrics as OpenMetrics text.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// Middleware: counts each request by its route template and status and
/// times it.
pub async fn track(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().to_string();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let response = next.run(req).await;
    let labels = RouteLabels { method, route };
    metrics
        .latency
        .get_or_create(&labels)
        .observe(started.elapsed().as_secs_f64());
    metrics
        .requests
        .get_or_create(&RequestLabels {
            method: labels.method,
            route: labels.route,
            status: response.status().as_u16(),
        })
        .inc();
    response
}

/// `GET /metrics`.
/// Prometheus / OpenMetrics text. With API keys it needs one, unless the
/// server runs with `--metrics-public`.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "service",
    responses(
        (status = 200, description = "The metrics", content((String = "application/openmetrics-text"))),
        (status = 503, description = "`STORE_UNAVAILABLE` or `INDEX_UNAVAILABLE`: the store's triples or the index's points cannot be counted", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn metrics(State(state): State<SharedState>) -> ApiResult<Response> {
    let m = &state.metrics;
    m.triples
        .set(i64::try_from(state.store.len().await?).unwrap_or(i64::MAX));
    if let Some(docs) = state.docs() {
        let points = docs.ingestor().index().count().await?;
        m.points.set(i64::try_from(points).unwrap_or(i64::MAX));
    }
    let mut response = m.encode().into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
    Ok(response)
}
