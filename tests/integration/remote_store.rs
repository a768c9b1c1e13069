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
    };
    assert!(matches!(
        RemoteStore::connect(bad).await,
        Err(StoreError::Storage(_))
    ));
}
