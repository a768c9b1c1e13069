//! `/api/topology/...` on the demo campus, through the router.

use crate::common;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

fn labels(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["label"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn vav_upstream_reaches_its_ahu_and_the_plant() {
    let (status, body) = common::get_json("/api/topology/upstream?id=VAV-2-14").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let up = labels(&body, "nodes");
    assert!(up.contains(&"AHU-2".to_owned()), "{up:?}");
    assert!(
        up.iter().any(|l| l.starts_with("CH-")),
        "chilled water reaches the VAV's AHU: {up:?}"
    );
    let first = &body["nodes"][0];
    assert_eq!(first["distance"], 1);

    let (_, near) = common::get_json("/api/topology/upstream?id=VAV-2-14&depth=1").await;
    assert!(
        near["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["distance"] == 1)
    );
}

#[tokio::test]
async fn ahu_downstream_lists_its_vavs_and_zones() {
    let (status, body) = common::get_json("/api/topology/downstream?id=AHU-1").await;
    assert_eq!(status, StatusCode::OK);
    let down = labels(&body, "nodes");
    assert!(
        down.iter().filter(|l| l.starts_with("VAV-1-")).count() >= 5,
        "{down:?}"
    );
    assert!(
        !down.iter().any(|l| l.starts_with("VAV-2-")),
        "AHU-1 does not serve floor 2: {down:?}"
    );
}

#[tokio::test]
async fn node_shows_points_and_relations() {
    let (status, body) = common::get_json("/api/topology/node?id=vav-2-14").await;
    assert_eq!(status, StatusCode::OK);
    let edges = body["edges"].as_array().unwrap();
    assert!(
        edges.iter().filter(|e| e["rel"] == "hasPoint").count() >= 5,
        "{body}"
    );
    assert!(edges.iter().any(|e| e["rel"] == "feeds"));
    assert!(
        body["node"]["types"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t.as_str().unwrap().contains("Variable_Air_Volume_Box"))
    );
}

#[tokio::test]
async fn subgraph_has_nodes_and_edges_for_drawing() {
    let (status, body) = common::get_json("/api/topology/subgraph?id=AHU-1&depth=2").await;
    assert_eq!(status, StatusCode::OK);
    let nodes = body["nodes"].as_array().unwrap();
    let edges = body["edges"].as_array().unwrap();
    assert!(nodes.len() > 10 && edges.len() > 10);
    let ids: std::collections::HashSet<&str> =
        nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
    for e in edges {
        assert!(
            ids.contains(e["source"].as_str().unwrap())
                && ids.contains(e["target"].as_str().unwrap())
        );
    }
}

#[tokio::test]
async fn unknown_ambiguous_and_bad_ids() {
    let (status, body) = common::get_json("/api/topology/node?id=VAV-9-99").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    common::assert_valid("error.schema.json", &body);
    let (status, body) = common::get_json("/api/topology/upstream?id=AHU-1&depth=0").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "VALIDATION_FAILED");
    let (status, body) = common::get_json("/api/topology/node").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    common::assert_valid("error.schema.json", &body);
}

#[tokio::test]
async fn ambiguous_label_lists_candidates() {
    use daemoniq::config::HttpConfig;
    use daemoniq::import::{self, SourceFile};
    use daemoniq::store::GraphKind;
    let state = common::fresh_campus_state(HttpConfig::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dup.ttl");
    std::fs::write(
        &file,
        "@prefix brick: <https://brickschema.org/schema/Brick#> .
         @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
         <urn:dup:ahu> a brick:Air_Handling_Unit ; rdfs:label \"AHU-1\" .",
    )
    .unwrap();
    import::import_file(
        state.store.as_ref(),
        Some(&state.ontology()),
        &SourceFile::new(&file, dir.path(), GraphKind::Model),
    )
    .await
    .unwrap();
    state.refresh().await.unwrap();
    let resp = daemoniq::app(state)
        .oneshot(
            Request::get("/api/topology/node?id=AHU-1")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::CONFLICT);
    let body: Value =
        serde_json::from_slice(&resp.into_body().collect().await.unwrap().to_bytes()).unwrap();
    common::assert_valid("error.schema.json", &body);
    assert_eq!(body["code"], "AMBIGUOUS_NODE");
    assert_eq!(body["details"]["candidates"].as_array().unwrap().len(), 2);
}
