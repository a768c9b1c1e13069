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
