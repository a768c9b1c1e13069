//! `/api/schema/...` and `/health` through the router.

use crate::common;
use axum::http::StatusCode;

#[tokio::test]
async fn class_tree_from_equipment() {
    let (status, body) = common::get_json("/api/schema/classes?root=brick:Equipment&depth=2").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["name"], "brick:Equipment");
    let children: Vec<&str> = body["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(children.contains(&"brick:HVAC_Equipment"), "{children:?}");
    let hvac = body["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "brick:HVAC_Equipment")
        .unwrap();
    assert!(
        !hvac["children"].as_array().unwrap().is_empty(),
        "depth 2 expands grandchildren"
    );

    let (status, _) = common::get_json("/api/schema/classes?root=brick:Nope").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = common::get_json("/api/schema/classes?depth=99").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn class_detail_has_definition_tags_haystack_and_yorkland() {
    let (status, body) =
        common::get_json("/api/schema/class?iri=brick:Variable_Air_Volume_Box_With_Reheat").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        body["definition"].as_str().is_some_and(|d| !d.is_empty()),
        "{body}"
    );
    assert!(
        body["parents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str().unwrap().ends_with("Variable_Air_Volume_Box"))
    );
    assert!(!body["brick_tags"].as_array().unwrap().is_empty());
    assert!(
        !body["yorkland_products"].as_array().unwrap().is_empty(),
        "{body}"
    );
    let product = &body["yorkland_products"][0];
    assert!(
        product["source_url"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
    assert!(product["confidence"].as_f64().unwrap() > 0.0);
    assert!(body["instance_count"].as_u64().unwrap() > 0);

    let (status, vav) =
        common::get_json("/api/schema/class?iri=brick:Variable_Air_Volume_Box").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        vav["haystack_kinds"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["tag"] == "vav"),
        "{vav}"
    );

    let (status, body) = common::get_json("/api/schema/class?iri=brick:Nope").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    common::assert_valid("error.schema.json", &body);
    let (status, _) = common::get_json("/api/schema/class?iri=x%3E%20%7D").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn tags_list_haystack_markers_with_brick_alignment() {
    let (status, body) = common::get_json("/api/schema/tags?q=temp").await;
    assert_eq!(status, StatusCode::OK);
    let temp = body
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tag"] == "temp")
        .unwrap_or_else(|| panic!("{body}"));
    assert!(
        temp["brick_tags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t.as_str().unwrap().ends_with("#Temperature"))
    );
}

#[tokio::test]
async fn health_reports_what_is_loaded() {
    let (status, body) = common::get_json("/health").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "ok");
    assert!(body["triples"].as_u64().unwrap() > 50_000);
    let sources = body["sources"].as_array().unwrap();
    assert!(
        sources
            .iter()
            .any(|s| s["path"] == "graph/northfield_campus.ttl")
    );
    assert!(
        sources
            .iter()
            .any(|s| s["path"] == "assets/brick/1.4/Brick.ttl")
    );
    let (status, body) = common::get_json("/no/such/route").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    common::assert_valid("error.schema.json", &body);
}
