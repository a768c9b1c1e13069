//! The remote SPARQL store: the store contract and the demo campus against a
//! real SPARQL 1.1 server named by `DAEMONIQ_TEST_SPARQL_URL` (CI starts an
//! Oxigraph server), compared with the embedded store. Without the variable
//! these tests say that they were skipped and pass nothing off.

use crate::common;
use daemoniq::import::ImportOutcome;
use daemoniq::store::{
    EmbeddedStore, GraphStore, RemoteSettings, RemoteStore, SparqlQuery, StoreError,
};
use daemoniq::topology::Topology;
use std::time::Duration;
use tokio::sync::Mutex;

/// The tests share one server and check quad counts as differences, so they
/// take turns.
static SERVER: Mutex<()> = Mutex::const_new(());

async fn remote(test: &str) -> Option<RemoteStore> {
    match common::remote_sparql() {
        Ok(settings) => Some(RemoteStore::connect(settings).await.unwrap()),
        Err(why) => {
            common::skip_remote(test, &why);
            None
        }
    }
}

#[tokio::test]
async fn remote_store_honours_the_store_contract() {
    let _turn = SERVER.lock().await;
    let Some(store) = remote("remote_store_honours_the_store_contract").await else {
        return;
    };
    assert_eq!(store.backend(), "sparql-remote");
    if let Err(failures) = daemoniq::store::contract::run(&store).await {
        panic!("the remote store breaks the contract:\n{failures}");
    }
}

#[tokio::test]
async fn campus_on_a_remote_store_matches_the_embedded_store() {
    let _turn = SERVER.lock().await;
    let Some(remote) = remote("campus_on_a_remote_store_matches_the_embedded_store").await else {
        return;
    };
    // Documents add chunk nodes to the topology; the comparison needs a
    // server with no ingested documents (CI starts a fresh one).
    let documents = remote
        .sources()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.kind == daemoniq::store::GraphKind::Document)
        .count();
    assert_eq!(
        documents,
        0,
        "{} holds {documents} ingested documents; run this test against a server \
         that holds none",
        remote.settings().query_url
    );
    let sources = common::sources(vec![common::root().join("graph")]);
    let embedded = EmbeddedStore::in_memory().unwrap();
    let (_, ontology_e) = sources.sync(&embedded).await.unwrap();
    let (_, ontology_r) = sources.sync(&remote).await.unwrap();
    // A second sync finds every source unchanged (same sha → nothing to do).
    let (again, _) = sources.sync(&remote).await.unwrap();
    assert!(
        again
            .iter()
            .all(|o| matches!(o, ImportOutcome::Unchanged { .. })),
        "{again:?}"
    );
    assert_eq!(ontology_e.class_count(), ontology_r.class_count());

    // The same sources with the same shas.
    let shas = |s: Vec<daemoniq::store::SourceRecord>| {
        s.into_iter()
            .filter(|r| {
                r.kind != daemoniq::store::GraphKind::Document && !r.graph.contains(":contract:")
            })
            .map(|r| (r.graph, r.path, r.sha256, r.triples))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        shas(embedded.sources().await.unwrap()),
        shas(remote.sources().await.unwrap())
    );

    // The topology projection and validation come out the same.
    let te = Topology::build(&embedded).await.unwrap();
    let tr = Topology::build(&remote).await.unwrap();
    assert_eq!(
        (te.node_count(), te.edge_count()),
        (tr.node_count(), tr.edge_count())
    );
    let ve = daemoniq::validate::validate(&embedded, &ontology_e)
        .await
        .unwrap();
    let vr = daemoniq::validate::validate(&remote, &ontology_r)
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&ve).unwrap(),
        serde_json::to_value(&vr).unwrap()
    );

    // Query results agree, across graphs (union default graph) and within one.
    for q in [
        "PREFIX brick: <https://brickschema.org/schema/Brick#> \
         SELECT ?a ?b WHERE { ?a brick:feeds ?b } ORDER BY ?a ?b",
        "PREFIX brick: <https://brickschema.org/schema/Brick#> \
         PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> \
         SELECT ?vav ?label WHERE { ?vav a brick:VAV ; rdfs:label ?label } ORDER BY ?vav",
        "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER(STRSTARTS(STR(?s), \"https://brickschema.org/schema/Brick#\")) }",
    ] {
        let e = embedded.query(SparqlQuery::new(q)).await.unwrap();
        let r = remote.query(SparqlQuery::new(q)).await.unwrap();
        assert_eq!(e, r, "{q}");
    }
}

#[tokio::test]
async fn an_unreachable_endpoint_is_a_storage_error() {
    let settings = RemoteSettings {
        query_url: "http://127.0.0.1:9/query".into(),
        update_url: "http://127.0.0.1:9/update".into(),
        user: None,
        password: Some("secret".into()),
        timeout: Duration::from_secs(2),
        retries: 1,
        server_union: false,
    };
    assert!(!format!("{settings:?}").contains("secret"));
    match RemoteStore::connect(settings).await {
        Err(StoreError::Storage(msg)) => assert!(msg.contains("127.0.0.1:9"), "{msg}"),
        other => panic!("expected a storage error, got {other:?}"),
    }
    let bad = RemoteSettings {
        query_url: "ftp://example.com/query".into(),
        update_url: "http://127.0.0.1:9/update".into(),
        user: None,
        password: None,
        timeout: Duration::from_secs(2),
        retries: 0,
        server_union: false,
    };
    assert!(matches!(
        RemoteStore::connect(bad).await,
        Err(StoreError::Storage(_))
    ));
}

/// A stand-in SPARQL endpoint that records requests and answers from a
/// script, to check what goes over the wire and how failures are handled.
mod fake {
    use axum::extract::State;
    use axum::http::{HeaderMap, StatusCode};
    use std::sync::{Arc, Mutex};

    #[derive(Default)]
    pub struct Seen {
        pub requests: Vec<(String, HeaderMap, String)>,
        /// Statuses to answer with, in order; 200 with an ASK-true body after.
        pub script: Vec<u16>,
    }

    pub type Shared = Arc<Mutex<Seen>>;

    async fn answer(
        State(seen): State<Shared>,
        uri: axum::http::Uri,
        headers: HeaderMap,
        body: String,
    ) -> (StatusCode, String) {
        let mut seen = seen.lock().unwrap();
        seen.requests.push((uri.path().to_owned(), headers, body));
        let status = if seen.script.is_empty() {
            200
        } else {
            seen.script.remove(0)
        };
        let status = StatusCode::from_u16(status).unwrap();
        if status.is_success() {
            (status, r#"{"head":{},"boolean":true}"#.to_owned())
        } else {
            (status, "scripted failure".to_owned())
        }
    }

    pub async fn start(script: Vec<u16>) -> (String, Shared) {
        let seen: Shared = Arc::new(Mutex::new(Seen {
            script,
            ..Seen::default()
        }));
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&seen));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (format!("http://{addr}"), seen)
    }
}

fn fake_settings(base: &str) -> RemoteSettings {
    RemoteSettings {
        query_url: format!("{base}/query"),
        update_url: format!("{base}/update"),
        user: Some("ops".into()),
        password: Some("pw".into()),
        timeout: Duration::from_secs(5),
        retries: 2,
        server_union: false,
    }
}

#[tokio::test]
async fn speaks_the_sparql_protocol_and_retries_transient_failures() {
    // The first two attempts fail with 503, the third succeeds.
    let (base, seen) = fake::start(vec![503, 503]).await;
    let store = RemoteStore::connect(fake_settings(&base)).await.unwrap();
    {
        let seen = seen.lock().unwrap();
        // The graph list (the union dataset) is read first: it failed
        // twice and was retried, then the ASK went out.
        assert_eq!(seen.requests.len(), 4, "two retries, then success");
        assert!(seen.requests[..3].iter().all(|r| r.2 == seen.requests[0].2));
        let (path, headers, body) = &seen.requests[3];
        assert_eq!(path, "/query");
        assert_eq!(headers["content-type"], "application/x-www-form-urlencoded");
        assert_eq!(headers["accept"], "application/sparql-results+json");
        assert!(
            headers["authorization"]
                .to_str()
                .unwrap()
                .starts_with("Basic ")
        );
        // No FROM and no protocol graphs: the union is spelt out, and the
        // meta graph is part of it.
        let pairs: Vec<(String, String)> = form_urlencoded::parse(body.as_bytes())
            .into_owned()
            .collect();
        assert!(pairs.contains(&("query".into(), "ASK {}".into())));
        assert!(pairs.contains(&(
            "default-graph-uri".into(),
            daemoniq::vocab::META_GRAPH.into()
        )));
        assert!(pairs.contains(&("named-graph-uri".into(), daemoniq::vocab::META_GRAPH.into())));
    }

    // An update is a sparql-update body to the update URL.
    seen.lock().unwrap().requests.clear();
    store
        .remove_graph("urn:daemoniq:source:x.ttl")
        .await
        .unwrap();
    {
        let seen = seen.lock().unwrap();
        let (path, headers, body) = &seen.requests[0];
        assert_eq!(path, "/update");
        assert_eq!(headers["content-type"], "application/sparql-update");
        assert!(
            body.starts_with("DROP SILENT GRAPH <urn:daemoniq:source:x.ttl>"),
            "{body}"
        );
    }
}

/// A query with its graphs given, so only the query itself goes out.
fn ask_in_g() -> SparqlQuery {
    SparqlQuery {
        default_graphs: vec!["urn:g".into()],
        named_graphs: vec!["urn:g".into()],
        ..SparqlQuery::new("ASK { ?s ?p ?o }")
    }
}

#[tokio::test]
async fn a_store_that_stays_down_is_a_storage_error_and_a_bad_request_is_not_retried() {
    let (base, seen) = fake::start(vec![]).await;
    let store = RemoteStore::connect(fake_settings(&base)).await.unwrap();
    // Down for longer than the retries last: 503 to the caller.
    seen.lock().unwrap().script = vec![503; 10];
    seen.lock().unwrap().requests.clear();
    let err = store.query(ask_in_g()).await.unwrap_err();
    assert!(matches!(err, StoreError::Storage(_)), "{err:?}");
    assert_eq!(seen.lock().unwrap().requests.len(), 3, "1 try + 2 retries");
    let api: daemoniq::http::error::ApiError = err.into();
    assert_eq!(
        api.code.status(),
        axum::http::StatusCode::SERVICE_UNAVAILABLE
    );

    // A 400 is the query's fault: no retry, an evaluation error.
    seen.lock().unwrap().script = vec![400];
    seen.lock().unwrap().requests.clear();
    let err = store.query(ask_in_g()).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Evaluation(m) if m.contains("scripted failure")),
        "{err:?}"
    );
    assert_eq!(seen.lock().unwrap().requests.len(), 1);

    // Wrong credentials say so.
    seen.lock().unwrap().script = vec![401];
    let err = store.query(ask_in_g()).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Storage(m) if m.contains("credentials")),
        "{err:?}"
    );
}
