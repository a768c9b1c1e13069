//! `/sparql`: the SPARQL 1.1 Protocol query operation, read-only.
//!
//! `GET ?query=`, `POST` form-encoded, `POST application/sparql-query`;
//! `default-graph-uri` / `named-graph-uri`; with neither and no `FROM`, the
//! default graph is the union of all graphs. Updates are refused.

use super::error::{ApiError, ApiResult, ErrorCode};
use super::guard::Arrived;
use super::{SharedState, TRUNCATED_HEADER};
use crate::results::{self, ResultFormat};
use crate::store::{QueryOutput, SparqlQuery, StoreError};
use axum::Extension;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use std::time::{Duration, Instant};

/// The protocol parameters of one request.
#[derive(Debug, Default)]
struct Params {
    query: Vec<String>,
    update: bool,
    default_graphs: Vec<String>,
    named_graphs: Vec<String>,
}

impl Params {
    fn absorb(&mut self, pairs: &[u8]) {
        for (k, v) in form_urlencoded::parse(pairs) {
            match k.as_ref() {
                "query" => self.query.push(v.into_owned()),
                "update" => self.update = true,
                "default-graph-uri" => self.default_graphs.push(v.into_owned()),
                "named-graph-uri" => self.named_graphs.push(v.into_owned()),
                _ => {}
            }
        }
    }
}

fn accept(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok())
}

/// A SPARQL 1.1 Protocol query, read-only, with the query in the URL.
#[utoipa::path(
    get,
    path = "/sparql",
    tag = "sparql",
    operation_id = "sparql_get",
    params(
        ("query" = String, Query, description = "The SPARQL query", example = "SELECT ?s ?label WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label } LIMIT 5"),
        ("default-graph-uri" = Option<Vec<String>>, Query, description = "A graph of the default graph (repeatable); without it and without `FROM`, the default graph is the union of all graphs"),
        ("named-graph-uri" = Option<Vec<String>>, Query, description = "A named graph of the dataset (repeatable)"),
    ),
    responses(
        (status = 200, description = "SELECT and ASK results as `application/sparql-results+json` (the default), `+xml`, `text/csv` or `text/tab-separated-values`; CONSTRUCT and DESCRIBE as `text/turtle` (the default) or `application/n-triples`, by the `Accept` header",
            headers(("x-daemoniq-truncated" = String, description = "`true` when `--max-rows` cut the result")),
            content(
                (crate::http::openapi::SparqlJsonResults = "application/sparql-results+json"),
                (String = "application/sparql-results+xml"),
                (String = "text/csv"),
                (String = "text/tab-separated-values"),
                (String = "text/turtle"),
                (String = "application/n-triples"),
            )
        ),
        (status = 400, description = "`MALFORMED_QUERY` (the parser's message and position), `QUERY_FAILED`, `QUERY_TOO_EXPENSIVE` (a shape the time limit cannot stop, with what to change) or `VALIDATION_FAILED` (no `query`, or more than one)", body = crate::http::error::ApiError),
        (status = 403, description = "`UPDATE_FORBIDDEN` (SPARQL Update, however sent) or `SERVICE_FORBIDDEN` (a `SERVICE` clause)", body = crate::http::error::ApiError),
        (status = 406, description = "`NOT_ACCEPTABLE`: no format in `Accept` can carry the result; `details.supported` lists those that can", body = crate::http::error::ApiError),
        (status = 503, description = "`QUERY_TIMEOUT` (over `--query-timeout`, its time in the queue included) or `STORE_UNAVAILABLE`", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn get_query(
    State(state): State<SharedState>,
    arrived: Option<Extension<Arrived>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let result = async {
        let request = decode(raw.unwrap_or_default().as_bytes(), None)?;
        run(&state, &headers, request, arrived).await
    }
    .await;
    result.into_response()
}

/// A SPARQL 1.1 Protocol query, read-only, form-encoded or as the body.
#[utoipa::path(
    post,
    path = "/sparql",
    tag = "sparql",
    operation_id = "sparql_post",
    params(
        ("default-graph-uri" = Option<Vec<String>>, Query, description = "A graph of the default graph (repeatable); without it and without `FROM`, the default graph is the union of all graphs"),
        ("named-graph-uri" = Option<Vec<String>>, Query, description = "A named graph of the dataset (repeatable)"),
    ),
    request_body(content(
        (crate::http::openapi::SparqlForm = "application/x-www-form-urlencoded"),
        (String = "application/sparql-query", example = "ASK { ?s ?p ?o }"),
    )),
    responses(
        (status = 200, description = "SELECT and ASK results as `application/sparql-results+json` (the default), `+xml`, `text/csv` or `text/tab-separated-values`; CONSTRUCT and DESCRIBE as `text/turtle` (the default) or `application/n-triples`, by the `Accept` header",
            headers(("x-daemoniq-truncated" = String, description = "`true` when `--max-rows` cut the result")),
            content(
                (crate::http::openapi::SparqlJsonResults = "application/sparql-results+json"),
                (String = "application/sparql-results+xml"),
                (String = "text/csv"),
                (String = "text/tab-separated-values"),
                (String = "text/turtle"),
                (String = "application/n-triples"),
            )
        ),
        (status = 400, description = "`MALFORMED_QUERY` (the parser's message and position), `QUERY_FAILED`, `QUERY_TOO_EXPENSIVE` (a shape the time limit cannot stop, with what to change) or `VALIDATION_FAILED` (no `query`, or more than one)", body = crate::http::error::ApiError),
        (status = 403, description = "`UPDATE_FORBIDDEN` (SPARQL Update, however sent) or `SERVICE_FORBIDDEN` (a `SERVICE` clause)", body = crate::http::error::ApiError),
        (status = 406, description = "`NOT_ACCEPTABLE`: no format in `Accept` can carry the result; `details.supported` lists those that can", body = crate::http::error::ApiError),
        (status = 413, description = "`PAYLOAD_TOO_LARGE`: the body is over `--max-body-bytes`", body = crate::http::error::ApiError),
        (status = 415, description = "`UNSUPPORTED_MEDIA_TYPE`: neither `application/sparql-query` nor `application/x-www-form-urlencoded`", body = crate::http::error::ApiError),
        (status = 503, description = "`QUERY_TIMEOUT` (over `--query-timeout`, its time in the queue included) or `STORE_UNAVAILABLE`", body = crate::http::error::ApiError),
    )
)]
pub(super) async fn post_query(
    State(state): State<SharedState>,
    arrived: Option<Extension<Arrived>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let result = async {
        let body = super::body(body, state.http.max_body_bytes)?;
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let request = decode(
            raw.unwrap_or_default().as_bytes(),
            Some((content_type, &body)),
        )?;
        run(&state, &headers, request, arrived).await
    }
    .await;
    result.into_response()
}

/// A `/sparql` request decoded from its untrusted parts, before it runs.
#[derive(Debug)]
pub struct Decoded {
    /// The query text (one `query` parameter or the body).
    pub query: String,
    /// `default-graph-uri` parameters.
    pub default_graphs: Vec<String>,
    /// `named-graph-uri` parameters.
    pub named_graphs: Vec<String>,
}

/// Decodes a `/sparql` request: the raw URL query string, and for a POST its
/// `Content-Type` header value and body. Refuses updates, a missing or
/// repeated `query`, unknown content types, and query shapes the time limit
/// cannot stop ([`crate::store::shape::runaway`]). Syntax is checked when
/// the store parses the query.
pub fn decode(raw_query: &[u8], post: Option<(&str, &[u8])>) -> ApiResult<Decoded> {
    let mut params = Params::default();
    params.absorb(raw_query);
    if let Some((content_type, body)) = post {
        let content_type = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        match content_type.as_str() {
            "application/x-www-form-urlencoded" => params.absorb(body),
            "application/sparql-query" => {
                let text = String::from_utf8(body.to_vec())
                    .map_err(|_| ApiError::invalid("the query is not valid UTF-8"))?;
                params.query.push(text);
            }
            "application/sparql-update" => params.update = true,
            other => {
                return Err(ApiError::new(
                    ErrorCode::UnsupportedMediaType,
                    format!(
                        "unsupported content type {:?}; send application/sparql-query or application/x-www-form-urlencoded",
                        other
                    ),
                ));
            }
        }
    }
    if params.update {
        return Err(StoreError::UpdateRefused.into());
    }
    let query = match params.query.as_slice() {
        [q] => q.clone(),
        [] => return Err(ApiError::invalid("missing the `query` parameter")),
        _ => return Err(ApiError::invalid("give exactly one `query` parameter")),
    };
    if let Some(why) = crate::store::shape::runaway(&query) {
        tracing::info!(
            reason = why,
            "query refused before it ran: a shape the time limit cannot stop"
        );
        return Err(ApiError::new(ErrorCode::QueryTooExpensive, why));
    }
    Ok(Decoded {
        query,
        default_graphs: params.default_graphs,
        named_graphs: params.named_graphs,
    })
}

async fn run(
    state: &SharedState,
    headers: &HeaderMap,
    request: Decoded,
    arrived: Option<Extension<Arrived>>,
) -> ApiResult<Response> {
    let all_formats: Vec<ResultFormat> = ResultFormat::SOLUTIONS
        .into_iter()
        .chain(ResultFormat::GRAPHS)
        .collect();
    if results::negotiate(accept(headers), &all_formats).is_none() {
        return Err(not_acceptable(&all_formats));
    }
    // The time limit counts from the request's arrival: time spent waiting
    // for a place in the query pool is part of it.
    let limit = state.http.query_timeout();
    let waited = arrived.map_or(Duration::ZERO, |Extension(Arrived(at))| at.elapsed());
    let timeout = limit.saturating_sub(waited).max(Duration::from_millis(1));
    let started = Instant::now();
    let request = SparqlQuery {
        query: request.query,
        default_graphs: request.default_graphs,
        named_graphs: request.named_graphs,
        timeout: Some(timeout),
        max_rows: Some(state.http.max_rows),
    };
    // The store cancels the query at `timeout`; this outer guard only covers
    // a blocking thread that is slow to notice the cancellation.
    // A query stopped early for its wait is reported against its limit.
    let output = tokio::time::timeout(timeout * 2, state.store.query(request))
        .await
        .map_err(|_| StoreError::Timeout(limit))?
        .map_err(|e| match e {
            StoreError::Timeout(_) => StoreError::Timeout(limit),
            other => other,
        })?;
    let (offered, truncated, rows) = match &output {
        QueryOutput::Solutions {
            rows, truncated, ..
        } => (&ResultFormat::SOLUTIONS[..], *truncated, rows.len()),
        QueryOutput::Boolean(_) => (&ResultFormat::SOLUTIONS[..], false, 1),
        QueryOutput::Graph { triples, truncated } => {
            (&ResultFormat::GRAPHS[..], *truncated, triples.len())
        }
    };
    let format =
        results::negotiate(accept(headers), offered).ok_or_else(|| not_acceptable(offered))?;
    let bytes = results::serialize(&output, format)?;
    tracing::info!(
        rows,
        truncated,
        format = format.short_name(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "sparql query answered"
    );
    let mut response = ([(header::CONTENT_TYPE, format.media_type())], bytes).into_response();
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept"));
    if truncated {
        response
            .headers_mut()
            .insert(TRUNCATED_HEADER, HeaderValue::from_static("true"));
    }
    Ok(response)
}

fn not_acceptable(offered: &[ResultFormat]) -> ApiError {
    ApiError::new(
        ErrorCode::NotAcceptable,
        "none of the formats in the Accept header can carry this result",
    )
    .with_details(serde_json::json!({
        "supported": offered.iter().map(|f| f.media_type()).collect::<Vec<_>>()
    }))
}
