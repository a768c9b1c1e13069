//! `/sparql` over real HTTP on 127.0.0.1.

use crate::common::{self, TestServer};
use daemoniq::config::HttpConfig;
use oxigraph::sparql::results::{
    QueryResultsFormat, QueryResultsParser, ReaderQueryResultsParserOutput,
};
use reqwest::StatusCode;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

const POINTS_OF_VAV: &str = "PREFIX brick: <https://brickschema.org/schema/Brick#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?point ?label ?class WHERE {
  ?vav rdfs:label \"VAV-2-14\" ; brick:hasPoint ?point .
  ?point rdfs:label ?label ; a ?class .
} ORDER BY ?point ?class";

/// Rows as sets of (variable, lexical value) so formats can be compared.
type Rows = BTreeSet<Vec<(String, String)>>;

fn parse_results(format: QueryResultsFormat, body: &[u8]) -> Rows {
    let ReaderQueryResultsParserOutput::Solutions(solutions) =
        QueryResultsParser::from_format(format)
            .for_reader(body)
            .unwrap()
    else {
        panic!("expected solutions");
    };
    solutions
        .map(|s| {
            let s = s.unwrap();
            let mut row: Vec<(String, String)> = s
                .iter()
                .map(|(v, t)| {
                    let value = match t {
                        oxigraph::model::Term::NamedNode(n) => n.as_str().to_owned(),
                        oxigraph::model::Term::Literal(l) => l.value().to_owned(),
                        other => other.to_string(),
                    };
                    (v.as_str().to_owned(), value)
                })
                .collect();
            row.sort();
            row
        })
        .collect()
}

fn parse_csv(body: &[u8]) -> Rows {
    let mut reader = csv::Reader::from_reader(body);
    let headers: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            let mut row: Vec<(String, String)> = headers
                .iter()
                .zip(r.iter())
                .filter(|(_, v)| !v.is_empty())
                .map(|(h, v)| (h.clone(), v.to_owned()))
                .collect();
            row.sort();
            row
        })
        .collect()
}

async fn get(server: &TestServer, query: &str, accept: Option<&str>) -> reqwest::Response {
    let mut req = reqwest::Client::new()
        .get(server.url("/sparql"))
        .query(&[("query", query)]);
    if let Some(a) = accept {
        req = req.header("accept", a);
    }
    req.send().await.unwrap()
}

async fn error_body(resp: reqwest::Response) -> serde_json::Value {
    let body: serde_json::Value = resp.json().await.unwrap();
    common::assert_valid("error.schema.json", &body);
    body
}

#[tokio::test]
async fn four_result_formats_round_trip_to_the_json_result() {
    let server = TestServer::start(common::campus_state().await).await;
    let resp = get(&server, POINTS_OF_VAV, None).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(
        resp.headers()["content-type"],
        "application/sparql-results+json"
    );
    let json = parse_results(QueryResultsFormat::Json, &resp.bytes().await.unwrap());
    assert!(
        json.len() >= 5,
        "VAV-2-14 should have several points, got {}",
        json.len()
    );

    let xml = get(
        &server,
        POINTS_OF_VAV,
        Some("application/sparql-results+xml"),
    )
    .await;
    assert_eq!(
        xml.headers()["content-type"],
        "application/sparql-results+xml"
    );
    assert_eq!(
        parse_results(QueryResultsFormat::Xml, &xml.bytes().await.unwrap()),
        json
    );

    let tsv = get(&server, POINTS_OF_VAV, Some("text/tab-separated-values")).await;
    assert_eq!(tsv.headers()["content-type"], "text/tab-separated-values");
    assert_eq!(
        parse_results(QueryResultsFormat::Tsv, &tsv.bytes().await.unwrap()),
        json
    );

    let csv = get(&server, POINTS_OF_VAV, Some("text/csv")).await;
    assert_eq!(csv.headers()["content-type"], "text/csv");
    assert_eq!(parse_csv(&csv.bytes().await.unwrap()), json);
    server.stop().await;
}

#[tokio::test]
async fn post_forms_and_direct_queries_agree_with_get() {
    let server = TestServer::start(common::campus_state().await).await;
    let client = reqwest::Client::new();
    let via_get = get(&server, POINTS_OF_VAV, None)
        .await
        .bytes()
        .await
        .unwrap();
    let form = client
        .post(server.url("/sparql"))
        .form(&[("query", POINTS_OF_VAV)])
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), StatusCode::OK);
    let direct = client
        .post(server.url("/sparql"))
        .header("content-type", "application/sparql-query")
        .body(POINTS_OF_VAV)
        .send()
        .await
        .unwrap();
    assert_eq!(direct.status(), StatusCode::OK);
    let a = parse_results(QueryResultsFormat::Json, &via_get);
    assert_eq!(
        parse_results(QueryResultsFormat::Json, &form.bytes().await.unwrap()),
        a
    );
    assert_eq!(
        parse_results(QueryResultsFormat::Json, &direct.bytes().await.unwrap()),
        a
    );

    let wrong = client
        .post(server.url("/sparql"))
        .header("content-type", "text/plain")
        .body(POINTS_OF_VAV)
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(error_body(wrong).await["code"], "UNSUPPORTED_MEDIA_TYPE");
    server.stop().await;
}

#[tokio::test]
async fn updates_are_refused_every_way_they_can_arrive() {
    let server = TestServer::start(common::campus_state().await).await;
    let client = reqwest::Client::new();
    let update = "INSERT DATA { <urn:x> <urn:y> <urn:z> }";
    let before = common::campus_state().await.store.len().await.unwrap();
    let attempts = [
        client
            .get(server.url("/sparql"))
            .query(&[("query", update)]),
        client
            .post(server.url("/sparql"))
            .form(&[("update", update)]),
        client
            .post(server.url("/sparql"))
            .header("content-type", "application/sparql-update")
            .body(update),
        client
            .post(server.url("/sparql"))
            .header("content-type", "application/sparql-query")
            .body("DROP ALL"),
    ];
    for req in attempts {
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), StatusCode::FORBIDDEN);
        let body = error_body(resp).await;
        assert_eq!(body["code"], "UPDATE_FORBIDDEN");
        assert!(body["message"].as_str().unwrap().contains("read-only"));
    }
    assert_eq!(
        common::campus_state().await.store.len().await.unwrap(),
        before
    );
    server.stop().await;
}

#[tokio::test]
async fn service_is_refused() {
    let server = TestServer::start(common::campus_state().await).await;
    let resp = get(
        &server,
        "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
        None,
    )
    .await;
    assert_eq!(resp.status(), StatusCode::FORBIDDEN);
    assert_eq!(error_body(resp).await["code"], "SERVICE_FORBIDDEN");
    server.stop().await;
}

#[tokio::test]
async fn malformed_query_is_a_400_with_the_parser_message() {
    let server = TestServer::start(common::campus_state().await).await;
    let resp = get(&server, "SELECT ?s WHERE { ?s ?p }", None).await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    let body = error_body(resp).await;
    assert_eq!(body["code"], "MALFORMED_QUERY");
    let msg = body["message"].as_str().unwrap();
    assert!(msg.contains("1:"), "parser position expected in {msg:?}");

    let missing = reqwest::get(server.url("/sparql")).await.unwrap();
    assert_eq!(missing.status(), StatusCode::BAD_REQUEST);
    assert_eq!(error_body(missing).await["code"], "VALIDATION_FAILED");
    server.stop().await;
}

#[tokio::test]
async fn expensive_query_is_stopped_within_twice_the_timeout() {
    let timeout = Duration::from_millis(800);
    let state = common::fresh_campus_state(HttpConfig {
        query_timeout: timeout.as_secs_f64(),
        ..HttpConfig::default()
    })
    .await;
    let server = TestServer::start(state).await;
    // Billions of rows: every path of three edges, counted and grouped.
    for query in [
        "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?c ?d ?e . ?e ?f ?g }",
        "SELECT ?b (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?c ?d ?e . ?e ?f ?g } GROUP BY ?b",
    ] {
        let started = Instant::now();
        let resp = get(&server, query, None).await;
        let elapsed = started.elapsed();
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE, "{query}");
        let body = error_body(resp).await;
        assert_eq!(body["code"], "QUERY_TIMEOUT");
        assert!(
            elapsed < timeout * 2,
            "{query}: stopped after {elapsed:?}, limit {:?}",
            timeout * 2
        );
    }
    // The server is still responsive afterwards.
    let ok = get(&server, "ASK { ?s ?p ?o }", None).await;
    assert_eq!(ok.status(), StatusCode::OK);
    server.stop().await;
}

#[tokio::test]
async fn shapes_the_time_limit_cannot_stop_are_refused_before_they_run() {
    let server = TestServer::start(common::campus_state().await).await;
    for query in [
        // A cartesian product under an aggregate or a sort.
        "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
        "SELECT ?a ?d WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f LIMIT 1",
        // A closure over every property from every node.
        "SELECT (COUNT(*) AS ?n) WHERE { ?a (<urn:p>|!<urn:p>)* ?b }",
    ] {
        let resp = get(&server, query, None).await;
        assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{query}");
        let body = error_body(resp).await;
        assert_eq!(body["code"], "QUERY_TOO_EXPENSIVE", "{body}");
        assert!(body["message"].as_str().unwrap().contains("time limit"));
    }
    // The same patterns joined through a variable, or streamed, still run.
    for query in [
        "SELECT (COUNT(*) AS ?n) WHERE { ?a <https://brickschema.org/schema/Brick#feeds> ?c . ?c ?d ?e }",
        "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } LIMIT 3",
    ] {
        let resp = get(&server, query, None).await;
        assert_eq!(resp.status(), StatusCode::OK, "{query}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_full_query_queue_sheds_at_once_with_retry_after() {
    let state = common::fresh_campus_state(HttpConfig {
        query_timeout: 2.0,
        max_concurrent_queries: 1,
        max_queued: 0,
        ..HttpConfig::default()
    })
    .await;
    let server = TestServer::start(state).await;
    let url = |q: &str| {
        let q: String = form_urlencoded::byte_serialize(q.as_bytes()).collect();
        server.url(&format!("/sparql?query={q}"))
    };
    // One expensive query holds the only place; nothing may wait.
    let slow = tokio::spawn(reqwest::get(url(
        "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?c ?d ?e . ?e ?f ?g }",
    )));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let shed = reqwest::get(url("ASK { ?s ?p ?o }")).await.unwrap();
    // Answered while the expensive query still runs: shed, not queued.
    assert!(!slow.is_finished());
    assert_eq!(shed.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(shed.headers()["retry-after"], "1");
    let body = error_body(shed).await;
    assert_eq!(body["code"], "OVERLOADED");
    assert_eq!(body["retry_after"], 1);
    let slow = slow.await.unwrap().unwrap();
    assert_eq!(error_body(slow).await["code"], "QUERY_TIMEOUT");
    // The place is free again, and the shed request was counted.
    let ok = reqwest::get(url("ASK { ?s ?p ?o }")).await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    let metrics = reqwest::get(server.url("/metrics")).await.unwrap();
    let text = metrics.text().await.unwrap();
    assert!(
        text.lines()
            .any(|l| l == r#"daemoniq_shed_total{group="SPARQL"} 1"#),
        "{text}"
    );
    server.stop().await;
}

#[tokio::test]
async fn content_negotiation_for_graphs_and_unacceptable_types() {
    let server = TestServer::start(common::campus_state().await).await;
    let construct = "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
        CONSTRUCT { ?s rdfs:label ?l } WHERE { ?s rdfs:label \"AHU-1\" . ?s rdfs:label ?l }";
    let ttl = get(&server, construct, None).await;
    assert_eq!(ttl.status(), StatusCode::OK);
    assert_eq!(ttl.headers()["content-type"], "text/turtle");
    assert!(ttl.text().await.unwrap().contains("AHU-1"));
    let nt = get(&server, construct, Some("application/n-triples")).await;
    assert_eq!(nt.headers()["content-type"], "application/n-triples");
    let body = nt.text().await.unwrap();
    assert_eq!(body.lines().count(), 1, "{body}");
    assert!(body.trim_end().ends_with('.'));

    let png = get(&server, "ASK {}", Some("image/png")).await;
    assert_eq!(png.status(), StatusCode::NOT_ACCEPTABLE);
    assert_eq!(error_body(png).await["code"], "NOT_ACCEPTABLE");
    // A results type asked for a graph result: nothing offered fits.
    let csv_graph = get(&server, construct, Some("text/csv")).await;
    assert_eq!(csv_graph.status(), StatusCode::NOT_ACCEPTABLE);

    let q = get(
        &server,
        "ASK { ?s ?p ?o }",
        Some("text/csv;q=0.2, application/sparql-results+xml;q=0.9"),
    )
    .await;
    assert_eq!(
        q.headers()["content-type"],
        "application/sparql-results+xml"
    );
    server.stop().await;
}

#[tokio::test]
async fn cors_allows_a_browser_ui_on_another_origin() {
    let server = TestServer::start(common::campus_state().await).await;
    let client = reqwest::Client::new();
    let preflight = client
        .request(reqwest::Method::OPTIONS, server.url("/sparql"))
        .header("origin", "http://ui.example:3000")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success());
    assert_eq!(preflight.headers()["access-control-allow-origin"], "*");
    let methods = preflight.headers()["access-control-allow-methods"]
        .to_str()
        .unwrap();
    assert!(methods.contains("POST"), "{methods}");
    let simple = client
        .get(server.url("/sparql"))
        .query(&[("query", "ASK {}")])
        .header("origin", "http://ui.example:3000")
        .send()
        .await
        .unwrap();
    assert_eq!(simple.headers()["access-control-allow-origin"], "*");
    server.stop().await;
}

#[tokio::test]
async fn dataset_parameters_select_graphs() {
    let server = TestServer::start(common::campus_state().await).await;
    let count = "SELECT (COUNT(*) AS ?n) WHERE { ?s a <https://brickschema.org/schema/Brick#AHU> }";
    let n = |body: &[u8]| -> usize {
        let rows = parse_results(QueryResultsFormat::Json, body);
        rows.into_iter().next().unwrap()[0].1.parse().unwrap()
    };
    let union = get(&server, count, None).await.bytes().await.unwrap();
    assert!(
        n(&union) >= 3,
        "the default graph is the union of all graphs"
    );
    let only_brick = reqwest::Client::new()
        .get(server.url("/sparql"))
        .query(&[
            ("query", count),
            (
                "default-graph-uri",
                "urn:daemoniq:source:assets/brick/1.4/Brick.ttl",
            ),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(only_brick.status(), StatusCode::OK);
    assert_eq!(
        n(&only_brick.bytes().await.unwrap()),
        0,
        "Brick.ttl has no AHU instances"
    );
    let graphs = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }";
    let named = reqwest::Client::new()
        .get(server.url("/sparql"))
        .query(&[
            ("query", graphs),
            (
                "named-graph-uri",
                "urn:daemoniq:source:graph/northfield_campus.ttl",
            ),
        ])
        .send()
        .await
        .unwrap();
    let rows = parse_results(QueryResultsFormat::Json, &named.bytes().await.unwrap());
    assert_eq!(rows.len(), 1, "{rows:?}");
    server.stop().await;
}

#[tokio::test]
async fn max_rows_caps_results_and_says_so() {
    let state = common::fresh_campus_state(HttpConfig {
        max_rows: 7,
        ..HttpConfig::default()
    })
    .await;
    let server = TestServer::start(state).await;
    let resp = get(&server, "SELECT * WHERE { ?s ?p ?o }", None).await;
    assert_eq!(resp.headers()["x-daemoniq-truncated"], "true");
    let rows = parse_results(QueryResultsFormat::Json, &resp.bytes().await.unwrap());
    assert_eq!(rows.len(), 7);
    server.stop().await;
}

#[tokio::test]
async fn oversized_bodies_are_refused_with_json() {
    let state = common::fresh_campus_state(HttpConfig {
        max_body_bytes: 1024,
        ..HttpConfig::default()
    })
    .await;
    let server = TestServer::start(state).await;
    let big = format!("SELECT * WHERE {{ ?s ?p ?o }} # {}", "x".repeat(4096));
    let resp = reqwest::Client::new()
        .post(server.url("/sparql"))
        .header("content-type", "application/sparql-query")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(error_body(resp).await["code"], "PAYLOAD_TOO_LARGE");
    server.stop().await;
}
