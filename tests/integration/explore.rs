//! `/api/search`, `/api/node`, `/api/ui/config`, the class families of
//! `/api/topology/subgraph`, the instances of `/api/schema/class`, and the
//! web UI's files: on the demo campus and on a real Brick model without
//! labels, every expectation computed by SPARQL over the same store.

use crate::common;
use crate::common::http::{call, get};
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use daemoniq::config::{AnswerConfig, HttpConfig};
use daemoniq::import::{self, SourceFile};
use daemoniq::store::{GraphKind, GraphStore, SolutionExt, select};
use daemoniq::vocab;
use serde_json::Value;
use std::collections::BTreeSet;

async fn get_json(app: &Router, uri: &str) -> Value {
    let reply = call(app, get(uri)).await;
    assert_eq!(reply.status, StatusCode::OK, "{uri}: {}", reply.json());
    reply.json()
}

fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

async fn column(store: &dyn GraphStore, var: &str, query: &str) -> BTreeSet<String> {
    select(store, format!("{}{query}", vocab::PREFIXES))
        .await
        .unwrap()
        .iter()
        .map(|r| r.string(var))
        .collect()
}

fn iris(v: &Value, key: &str) -> BTreeSet<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x[key].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_class_search_finds_vav_with_a_path_the_tree_can_expand() {
    let state = common::campus_state().await;
    let store = std::sync::Arc::clone(&state.store);
    let app = daemoniq::app(state);
    for q in ["VAV", "vav", " Vav "] {
        let hits = get_json(&app, &format!("/api/search?kind=class&q={}", enc(q))).await;
        let first = &hits["results"][0];
        assert_eq!(first["kind"], "class", "{q}: {hits}");
        assert_eq!(
            first["iri"],
            vocab::brick("VAV"),
            "{q}: exact match first: {hits}"
        );
        // The path runs from brick:Class down to a parent of brick:VAV,
        // each step a subclass of the one before (as the store says).
        let path: Vec<String> = first["ancestors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| vocab::expand(c.as_str().unwrap()))
            .collect();
        assert_eq!(path.first().unwrap(), &vocab::brick("Class"), "{path:?}");
        let mut chain = path.clone();
        chain.push(vocab::brick("VAV"));
        for pair in chain.windows(2) {
            let parents = column(
                store.as_ref(),
                "p",
                &format!("SELECT ?p WHERE {{ <{}> rdfs:subClassOf ?p }}", pair[1]),
            )
            .await;
            assert!(parents.contains(&pair[0]), "{pair:?} in {path:?}");
        }
        assert_eq!(first["family"], "Equipment", "{first}");
    }
    // A word in the middle of a label finds the class too.
    let hits = get_json(&app, "/api/search?kind=class&q=terminal%20unit&limit=50").await;
    assert!(
        iris(&hits["results"], "iri").contains(&vocab::brick("Terminal_Unit")),
        "{hits}"
    );
}

#[tokio::test]
async fn a_node_search_finds_every_node_whose_label_matches() {
    let state = common::campus_state().await;
    let store = std::sync::Arc::clone(&state.store);
    let topology = state.topology();
    let app = daemoniq::app(state);
    // Folded as the search folds: lower case, `-` and `_` as spaces.
    let fold = |v: &str| format!("REPLACE(REPLACE(LCASE({v}), '-', ' '), '_', ' ')");
    for (q, needle) in [
        ("vav-2", "vav 2"),
        ("VAV 2", "vav 2"),
        ("ahu", "ahu"),
        ("Zone", "zone"),
    ] {
        let label = fold("?l");
        let local = fold("REPLACE(STR(?n), '^.*[#/]', '')");
        let expected: BTreeSet<String> = column(
            store.as_ref(),
            "n",
            &format!(
                "SELECT DISTINCT ?n WHERE {{ ?n ?p ?o . OPTIONAL {{ ?n rdfs:label ?l }}
                   FILTER(isIRI(?n))
                   FILTER(CONTAINS(COALESCE({label}, ''), '{needle}') || CONTAINS({local}, '{needle}')
                          || CONTAINS(LCASE(STR(?n)), '{needle}')) }}"
            ),
        )
        .await
        .into_iter()
        .filter(|n| topology.contains(n))
        .collect();
        assert!(!expected.is_empty(), "{q}: the campus has such nodes");
        let hits = get_json(
            &app,
            &format!("/api/search?kind=node&limit=100&q={}", enc(q)),
        )
        .await;
        let found = iris(&hits["results"], "iri");
        if expected.len() <= 100 {
            assert_eq!(found, expected, "{q}");
        } else {
            assert_eq!(found.len(), 100, "{q}");
            assert!(found.is_subset(&expected), "{q}");
        }
    }
    let none = get_json(&app, "/api/search?q=zzzz-nothing-like-it").await;
    assert_eq!(none["results"], serde_json::json!([]));
}

#[tokio::test]
async fn a_node_card_has_its_provenance_points_and_families() {
    let state = common::campus_state().await;
    let store = std::sync::Arc::clone(&state.store);
    let app = daemoniq::app(state);
    let card = get_json(&app, "/api/node?id=ahu-1").await;
    assert_eq!(card["kind"], "node");
    let iri = card["iri"].as_str().unwrap().to_owned();
    let sha = column(
        store.as_ref(),
        "s",
        &format!("SELECT ?s WHERE {{ <{iri}> dq:sourceSha ?s }}"),
    )
    .await;
    assert_eq!(sha.len(), 1);
    assert_eq!(
        card["provenance"]["source_sha"].as_str().unwrap(),
        sha.first().unwrap()
    );
    let path = column(
        store.as_ref(),
        "p",
        &format!("SELECT ?p WHERE {{ <{iri}> dq:sourcePath ?p }}"),
    )
    .await;
    assert_eq!(
        card["provenance"]["source_path"].as_str().unwrap(),
        path.first().unwrap()
    );
    let points = column(
        store.as_ref(),
        "p",
        &format!(
            "SELECT ?p WHERE {{ {{ <{iri}> brick:hasPoint ?p }} UNION {{ ?p brick:isPointOf <{iri}> }} }}"
        ),
    )
    .await;
    assert!(!points.is_empty());
    assert_eq!(iris(&card["points"], "iri"), points);
    let types = column(
        store.as_ref(),
        "t",
        &format!("SELECT ?t WHERE {{ <{iri}> a ?t }}"),
    )
    .await;
    assert_eq!(iris(&card["types"], "iri"), types);
    assert!(
        card["types"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["family"] == "Equipment"),
        "{card}"
    );
    // What the AHU feeds points at nothing here: those are its statements,
    // and the VAVs it feeds are among them.
    let fed = column(
        store.as_ref(),
        "v",
        &format!("SELECT ?v WHERE {{ <{iri}> brick:feeds ?v }}"),
    )
    .await;
    let stated: BTreeSet<String> = card["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["predicate"]["iri"] == vocab::brick("feeds"))
        .map(|p| p["value"]["value"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(stated, fed);

    let class = get_json(&app, "/api/node?id=brick:VAV").await;
    assert_eq!(class["kind"], "class");
    let missing = call(&app, get("/api/node?id=urn:nothing:here")).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    common::assert_valid("error.schema.json", &missing.json());
}

#[tokio::test]
async fn a_subgraph_names_the_class_of_every_node_it_draws() {
    let app = daemoniq::app(common::campus_state().await);
    let sub = get_json(&app, "/api/topology/subgraph?id=AHU-1&depth=2").await;
    let types: BTreeSet<String> = sub["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|n| n["types"].as_array().unwrap().iter())
        .map(|t| t.as_str().unwrap().to_owned())
        .collect();
    let classes: BTreeSet<String> = sub["classes"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(classes, types);
    let ahu = &sub["classes"][vocab::brick("AHU")];
    assert_eq!(ahu["curie"], "brick:AHU", "{sub}");
    assert_eq!(ahu["family"], "Equipment");
}

#[tokio::test]
async fn a_class_page_lists_the_instances_of_its_subclasses_too() {
    let state = common::campus_state().await;
    let store = std::sync::Arc::clone(&state.store);
    let app = daemoniq::app(state);
    for class in ["brick:VAV", "brick:Terminal_Unit", "brick:AHU"] {
        let detail = get_json(&app, &format!("/api/schema/class?iri={}", enc(class))).await;
        let expected = column(
            store.as_ref(),
            "n",
            &format!(
                "SELECT DISTINCT ?n WHERE {{ ?n a/rdfs:subClassOf* {class} ; dq:sourceSha ?s }}"
            ),
        )
        .await;
        assert!(!expected.is_empty(), "{class}");
        assert_eq!(iris(&detail["instances"], "iri"), expected, "{class}");
        assert_eq!(detail["instance_count"], expected.len(), "{class}");
    }
}

#[tokio::test]
async fn on_a_real_model_without_labels_search_and_cards_work_by_local_name() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (store, ontology) = common::ontology_store().await;
    let path = data.join("brick/g36-combined-ahu-vav.ttl");
    let source = SourceFile::new(&path, &common::root(), GraphKind::Model);
    import::import_file(store.as_ref(), Some(&ontology), &source)
        .await
        .unwrap();
    let sha = import::sha256_hex(&std::fs::read(&path).unwrap());
    let state = common::state_over(
        std::sync::Arc::clone(&store),
        ontology,
        HttpConfig::default(),
        None,
        AnswerConfig::default(),
    )
    .await;
    let topology = state.topology();
    let app = daemoniq::app(state);
    let unlabelled: Vec<String> = topology
        .nodes()
        .filter(|n| topology.label(n).is_none())
        .map(str::to_owned)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .take(15)
        .collect();
    assert!(!unlabelled.is_empty(), "the model has unlabelled nodes");
    for iri in &unlabelled {
        let local = vocab::local_name(iri);
        let hits = get_json(
            &app,
            &format!("/api/search?kind=node&limit=100&q={}", enc(local)),
        )
        .await;
        assert!(
            iris(&hits["results"], "iri").contains(iri),
            "{local}: {hits}"
        );
        let card = get_json(&app, &format!("/api/node?id={}", enc(iri))).await;
        assert_eq!(card["provenance"]["source_sha"], sha, "{iri}");
    }
    // Every AHU's drawing holds every `feeds` edge the model states for it.
    let ahus = column(
        store.as_ref(),
        "a",
        "SELECT DISTINCT ?a WHERE { VALUES ?c { brick:AHU brick:Air_Handling_Unit } ?a a/rdfs:subClassOf* ?c ; brick:feeds ?x }",
    )
    .await;
    assert!(!ahus.is_empty());
    for ahu in ahus {
        let fed = column(
            store.as_ref(),
            "v",
            &format!("SELECT ?v WHERE {{ <{ahu}> brick:feeds ?v }}"),
        )
        .await;
        let sub = get_json(
            &app,
            &format!("/api/topology/subgraph?id={}&depth=1", enc(&ahu)),
        )
        .await;
        let drawn: BTreeSet<String> = sub["edges"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["rel"] == "feeds" && e["source"] == ahu.as_str())
            .map(|e| e["target"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(drawn, fed, "{ahu}");
    }
}

#[tokio::test]
async fn the_ui_is_served_with_its_policy_and_no_key() {
    let state = common::fresh_campus_state(HttpConfig {
        api_key: Some("a-key-for-the-ui-tests".parse().unwrap()),
        ..HttpConfig::default()
    })
    .await;
    let app = daemoniq::app(state);
    let root = call(&app, get("/")).await;
    assert!(root.status.is_redirection(), "{}", root.status);
    assert_eq!(root.header(header::LOCATION), "/ui/");

    let index = call(&app, get("/ui/")).await;
    assert_eq!(index.status, StatusCode::OK);
    assert!(index.header(header::CONTENT_TYPE).starts_with("text/html"));
    let csp = index.header(header::CONTENT_SECURITY_POLICY);
    assert!(csp.contains("script-src 'self'"), "{csp}");
    assert!(!csp.contains("unsafe-eval") && !csp.contains("script-src 'self' 'unsafe-inline'"));
    assert_eq!(index.header(header::X_CONTENT_TYPE_OPTIONS), "nosniff");

    // The browser's copy is reused while the file is the same.
    let etag = index.header(header::ETAG).to_owned();
    let again = call(
        &app,
        Request::get("/ui/")
            .header(header::IF_NONE_MATCH, &etag)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);

    // Gzip when asked for.
    let zipped = call(
        &app,
        Request::get("/ui/")
            .header(header::ACCEPT_ENCODING, "gzip")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(zipped.header(header::CONTENT_ENCODING), "gzip");
    assert!(zipped.body.len() < index.body.len());

    for outside in [
        "/ui/../Cargo.toml",
        "/ui/%2e%2e/Cargo.toml",
        "/ui/nothing.js",
    ] {
        let reply = call(&app, get(outside)).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{outside}");
    }
    // No vendor directory: the files are missing, the page is told how to
    // fetch them, and the API still needs its key.
    let vendor = call(&app, get("/ui/vendor/cytoscape.min.js")).await;
    assert_eq!(vendor.status, StatusCode::NOT_FOUND);
    assert!(String::from_utf8_lossy(&vendor.body).contains("scripts/setup.sh"));
    let stray = call(&app, get("/ui/vendor/evil.js")).await;
    assert_eq!(stray.status, StatusCode::NOT_FOUND);
    let refused = call(&app, get("/api/ui/config")).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    let config = call(
        &app,
        Request::get("/api/ui/config")
            .header(header::AUTHORIZATION, "Bearer a-key-for-the-ui-tests")
            .body(Body::empty())
            .unwrap(),
    )
    .await
    .json();
    assert_eq!(config["vendor"]["available"], false);
    assert_eq!(config["vendor"]["missing"].as_array().unwrap().len(), 4);
    assert_eq!(config["prefixes"]["brick"], vocab::BRICK);
    assert!(
        config["relations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "feeds" && r["kind"] == "flow")
    );
}

#[tokio::test]
async fn the_example_queries_run() {
    let state = common::campus_state().await;
    let store = std::sync::Arc::clone(&state.store);
    let app = daemoniq::app(state);
    let config = get_json(&app, "/api/ui/config").await;
    let examples = config["examples"].as_array().unwrap();
    assert!(examples.len() >= 3);
    for ex in examples {
        let rows = select(store.as_ref(), ex["query"].as_str().unwrap())
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", ex["title"]));
        assert!(
            !rows.is_empty(),
            "{} returns rows on the campus",
            ex["title"]
        );
    }
}

#[tokio::test]
async fn vendor_files_are_served_from_the_asset_cache() {
    let dir = tempfile::tempdir().unwrap();
    for f in daemoniq::http::ui::VENDOR_FILES {
        std::fs::write(dir.path().join(f), format!("/* {f} */")).unwrap();
    }
    std::fs::write(dir.path().join("other.js"), "x").unwrap();
    let state = common::fresh_campus_state(HttpConfig {
        ui_vendor_dir: Some(dir.path().to_owned()),
        ..HttpConfig::default()
    })
    .await;
    let app = daemoniq::app(state);
    let js = call(&app, get("/ui/vendor/cytoscape.min.js")).await;
    assert_eq!(js.status, StatusCode::OK);
    assert!(
        js.header(header::CONTENT_TYPE)
            .starts_with("text/javascript")
    );
    assert_eq!(&js.body[..], b"/* cytoscape.min.js */");
    let css = call(&app, get("/ui/vendor/yasqe.min.css")).await;
    assert!(css.header(header::CONTENT_TYPE).starts_with("text/css"));
    let other = call(&app, get("/ui/vendor/other.js")).await;
    assert_eq!(other.status, StatusCode::NOT_FOUND, "only the pinned files");
    let config = get_json(&app, "/api/ui/config").await;
    assert_eq!(config["vendor"]["available"], true, "{config}");
}
