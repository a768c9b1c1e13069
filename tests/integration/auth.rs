//! API keys and rate limits over HTTP: who may write, who may read, and a
//! client over its burst.

use crate::common;
use crate::ingest::docs_state_with;
use daemoniq::config::{AnswerConfig, HttpConfig};
use reqwest::{Client, RequestBuilder, StatusCode};
use serde_json::{Value, json};

const FULL: &str = "full-key-for-the-auth-tests";
const READ: &str = "read-key-for-the-auth-tests";

fn keyed() -> HttpConfig {
    HttpConfig {
        api_key: Some(FULL.parse().unwrap()),
        read_only_api_key: Some(READ.parse().unwrap()),
        ..HttpConfig::default()
    }
}

/// Sends `req` and returns its status and JSON body (null when none).
async fn send(req: RequestBuilder) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let resp = req.send().await.unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let body = resp.json().await.unwrap_or(Value::Null);
    (status, headers, body)
}

fn refused(status: StatusCode, body: &Value, want: StatusCode, code: &str) {
    assert_eq!(status, want, "{body}");
    common::assert_valid("error.schema.json", body);
    assert_eq!(body["code"], code, "{body}");
}

#[tokio::test]
async fn writes_need_the_full_key_and_reads_take_either() {
    let root = tempfile::tempdir().unwrap();
    let docs = root.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("ahu.md"),
        std::fs::read_to_string(common::root().join("golden/corpus/northfield_soo_ahu.md"))
            .unwrap(),
    )
    .unwrap();
    let (state, _docs, _r) =
        docs_state_with(root.path(), |_| {}, AnswerConfig::default(), keyed()).await;
    let server = common::TestServer::start(state).await;
    let c = Client::new();
    let ingest = || {
        c.post(server.url("/ingest"))
            .json(&json!({"paths": ["docs/ahu.md"]}))
    };
    let listed = || async {
        send(c.get(server.url("/api/documents")).bearer_auth(FULL))
            .await
            .2
    };
    let before = listed().await;

    // Without a key, with a wrong one, with the read-only one: refused,
    // and nothing was ingested.
    let (s, h, b) = send(ingest()).await;
    refused(s, &b, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    assert_eq!(h.get("www-authenticate").unwrap(), "Bearer");
    let (s, _, b) = send(ingest().bearer_auth("not-the-key-at-all-0000")).await;
    refused(s, &b, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let (s, _, b) = send(ingest().header("api-key", READ)).await;
    refused(s, &b, StatusCode::FORBIDDEN, "FORBIDDEN");
    let (s, _, b) = send(c.delete(server.url("/api/documents/any")).bearer_auth(READ)).await;
    refused(s, &b, StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_eq!(
        listed().await,
        before,
        "a refused write changed the documents"
    );

    // Reads: either key, as a bearer token or an api-key header.
    for req in [
        c.get(server.url("/api/documents")).bearer_auth(READ),
        c.get(server.url("/api/topology/node?id=AHU-1"))
            .header("api-key", READ),
        c.post(server.url("/sparql"))
            .header("content-type", "application/sparql-query")
            .body("ASK { ?s ?p ?o }")
            .bearer_auth(FULL),
    ] {
        let (s, _, b) = send(req).await;
        assert_eq!(s, StatusCode::OK, "{b}");
    }
    let (s, _, b) = send(c.get(server.url("/api/topology/node?id=AHU-1"))).await;
    refused(s, &b, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    // /health needs no key.
    let (s, _, _) = send(c.get(server.url("/health"))).await;
    assert_eq!(s, StatusCode::OK);

    // The full key writes.
    let (s, _, b) = send(ingest().bearer_auth(FULL)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["report"]["counts"]["indexed"], 1, "{b}");
    assert_ne!(listed().await, before);
    // Counted in the metrics: the one document, its chunks.
    let (_, _, text) = metrics(&server, Some(FULL)).await;
    assert_eq!(
        sample(
            &text,
            r#"daemoniq_ingest_documents_total{outcome="indexed"}"#
        ),
        Some(1.0)
    );
    let written = sample(&text, r#"daemoniq_ingest_chunks_total{outcome="written"}"#).unwrap();
    assert_eq!(
        written,
        b["report"]["counts"]["chunks_written"].as_f64().unwrap()
    );
    assert!(sample(&text, "daemoniq_vector_points").unwrap() >= written);
}

#[tokio::test]
async fn a_client_over_its_burst_gets_429_with_retry_after() {
    let state = common::fresh_campus_state(HttpConfig {
        rate_limit_rps: 0.2,
        rate_limit_burst: 3,
        ..HttpConfig::default()
    })
    .await;
    let server = common::TestServer::start(state).await;
    let c = Client::new();
    let sparql = || c.get(server.url("/sparql?query=ASK%7B%3Fs%20%3Fp%20%3Fo%7D"));
    for _ in 0..3 {
        let (s, _, b) = send(sparql()).await;
        assert_eq!(s, StatusCode::OK, "{b}");
    }
    let (s, h, b) = send(sparql()).await;
    refused(s, &b, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMIT_EXCEEDED");
    let secs = b["retry_after"].as_u64().unwrap();
    assert!((1..=5).contains(&secs), "{b}");
    assert_eq!(h.get("retry-after").unwrap(), &secs.to_string());
    // Other route groups keep their own bucket; unlimited routes stay open.
    let (s, _, b) = send(c.get(server.url("/api/topology/node?id=AHU-1"))).await;
    assert_eq!(s, StatusCode::OK, "{b}");
}

#[tokio::test]
async fn one_request_id_in_the_header_and_the_envelope() {
    let server = common::TestServer::start(common::campus_state().await).await;
    let c = Client::new();
    let ask = |id: Option<&str>, route: &str| {
        let req = c
            .post(server.url(route))
            .json(&json!({"query": "what ahu feeds vav-2-14?"}));
        match id {
            Some(id) => req.header("x-request-id", id),
            None => req,
        }
    };
    // A plain client id is kept, in the header and in the envelope.
    let (s, h, b) = send(ask(Some("trace-me-42"), "/chat")).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(h["x-request-id"], "trace-me-42");
    assert_eq!(b["metadata"]["request_id"], "trace-me-42");
    let (_, h, b) = send(ask(Some("trace-me-43"), "/retrieve")).await;
    assert_eq!(h["x-request-id"], "trace-me-43");
    assert_eq!(b["metadata"]["request_id"], "trace-me-43");
    // None, or one that is not plain text: a new UUID, the same in both.
    for id in [None, Some("not a plain id\tat all")] {
        let (_, h, b) = send(ask(id, "/chat")).await;
        let header = h["x-request-id"].to_str().unwrap();
        assert!(uuid::Uuid::parse_str(header).is_ok(), "{header}");
        assert_eq!(b["metadata"]["request_id"], header);
    }
    // Errors carry it too.
    let (s, h, _) = send(
        c.get(server.url("/nowhere"))
            .header("x-request-id", "lost-1"),
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(h["x-request-id"], "lost-1");
}

/// The metrics text of a server (with `key` when given).
async fn metrics(server: &common::TestServer, key: Option<&str>) -> (StatusCode, String, String) {
    let mut req = Client::new().get(server.url("/metrics"));
    if let Some(key) = key {
        req = req.bearer_auth(key);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status();
    let ctype = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, ctype, resp.text().await.unwrap())
}

/// The value of the sample `name{labels}` in a metrics text.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
}

#[tokio::test]
async fn metrics_count_requests_answers_stages_and_refusals() {
    let state = common::fresh_campus_state(HttpConfig {
        rate_limit_rps: 0.1,
        rate_limit_burst: 2,
        ..HttpConfig::default()
    })
    .await;
    let server = common::TestServer::start(state).await;
    let c = Client::new();
    for _ in 0..2 {
        let (s, _, b) = send(
            c.post(server.url("/chat"))
                .json(&json!({"query": "what ahu feeds vav-2-14?"})),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{b}");
    }
    let (s, _, _) = send(c.post(server.url("/chat")).json(&json!({"query": "x?"}))).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
    let (s, _, _) = send(c.get(server.url("/api/topology/node?id=NOPE-9"))).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _, _) = send(c.get(server.url("/nowhere/at/all"))).await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    let (s, ctype, text) = metrics(&server, None).await;
    assert_eq!(s, StatusCode::OK);
    assert!(ctype.starts_with("application/openmetrics-text"), "{ctype}");
    let get =
        |series: &str| sample(&text, series).unwrap_or_else(|| panic!("{series} not in\n{text}"));
    assert_eq!(
        get(r#"daemoniq_http_requests_total{method="POST",route="/chat",status="200"}"#),
        2.0
    );
    assert_eq!(
        get(r#"daemoniq_http_requests_total{method="POST",route="/chat",status="429"}"#),
        1.0
    );
    // Routes by template, not by id; unknown paths in one series.
    assert_eq!(
        get(
            r#"daemoniq_http_requests_total{method="GET",route="/api/topology/node",status="404"}"#
        ),
        1.0
    );
    assert_eq!(
        get(r#"daemoniq_http_requests_total{method="GET",route="unmatched",status="404"}"#),
        1.0
    );
    assert!(!text.contains("NOPE-9") && !text.contains("/nowhere"));
    assert_eq!(
        get(r#"daemoniq_answers_total{status="success",refusal_type=""}"#),
        2.0
    );
    assert_eq!(get(r#"daemoniq_rate_limited_total{group="/chat"}"#), 1.0);
    assert_eq!(
        get(r#"daemoniq_chat_stage_duration_seconds_count{stage="ground"}"#),
        2.0
    );
    assert_eq!(
        get(r#"daemoniq_http_request_duration_seconds_count{method="POST",route="/chat"}"#),
        3.0
    );
    assert!(get("daemoniq_store_triples") > 1000.0);
    assert!(text.trim_end().ends_with("# EOF"));
}

#[tokio::test]
async fn metrics_need_a_key_unless_public() {
    let server = common::TestServer::start(common::fresh_campus_state(keyed()).await).await;
    let (s, _, _) = metrics(&server, None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, _, text) = metrics(&server, Some(READ)).await;
    assert_eq!(s, StatusCode::OK);
    // The refusal just made is counted.
    assert_eq!(
        sample(
            &text,
            r#"daemoniq_http_requests_total{method="GET",route="/metrics",status="401"}"#
        ),
        Some(1.0)
    );
    let public = common::TestServer::start(
        common::fresh_campus_state(HttpConfig {
            metrics_public: true,
            ..keyed()
        })
        .await,
    )
    .await;
    let (s, _, _) = metrics(&public, None).await;
    assert_eq!(s, StatusCode::OK);
    // Only /metrics: the other routes still need a key.
    let (s, _, _) = send(Client::new().get(public.url("/api/documents"))).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}
