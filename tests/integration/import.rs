//! Import of real Brick and Haystack files, idempotence, replacement, and
//! tag-set → class inference scored against the Brick–Haystack table.

use crate::common;
use daemoniq::import::{self, ImportOutcome, SourceFile};
use daemoniq::ontology::Ontology;
use daemoniq::store::{GraphKind, GraphStore, SolutionExt, select};
use daemoniq::topology::Topology;
use daemoniq::vocab;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

async fn import(store: &dyn GraphStore, ontology: &Ontology, path: &Path) -> ImportOutcome {
    let source = SourceFile::new(path, &common::root(), GraphKind::Model);
    import::import_file(store, Some(ontology), &source)
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

async fn count(store: &dyn GraphStore, query: &str) -> usize {
    let rows = select(store, format!("{}{query}", vocab::PREFIXES))
        .await
        .unwrap();
    rows[0].str("n").unwrap().parse().unwrap()
}

#[tokio::test]
async fn all_four_real_brick_models_import() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (store, ontology) = common::ontology_store().await;
    for name in [
        "g36-combined-ahu-vav.ttl",
        "chiller-plant.ttl",
        "smallOffice_brick.ttl",
        "rice_brick.ttl",
    ] {
        let path = data.join("brick").join(name);
        match import(store.as_ref(), &ontology, &path).await {
            ImportOutcome::Loaded { triples, .. } => assert!(triples > 10, "{name}: {triples}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    // Every instance of every model carries its provenance.
    let missing = count(
        store.as_ref(),
        "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {
           GRAPH ?g { ?s a ?t } FILTER(STRSTARTS(STR(?g), 'urn:daemoniq:source:../shared'))
           FILTER NOT EXISTS { GRAPH ?g { ?s dq:sourceSha ?sha ; dq:updatedAt ?u ; dq:sourcePath ?p } }
         }",
    )
    .await;
    assert_eq!(missing, 0);
    let sha = select(
        store.as_ref(),
        format!(
            "{}SELECT DISTINCT ?sha ?path WHERE {{ ?s dq:sourcePath ?path ; dq:sourceSha ?sha . FILTER(CONTAINS(?path, 'rice_brick')) }}",
            vocab::PREFIXES
        ),
    )
    .await
    .unwrap();
    assert_eq!(sha.len(), 1, "one sha per source file");
    let bytes = std::fs::read(data.join("brick/rice_brick.ttl")).unwrap();
    assert_eq!(sha[0].string("sha"), import::sha256_hex(&bytes));
    assert!(!sha[0].string("path").starts_with('/'), "relative path");

    let topology = Topology::build(store.as_ref()).await.unwrap();
    let vav = "http://example.org#vav1";
    let up: Vec<String> = topology
        .upstream(vav, 10)
        .into_iter()
        .map(|r| r.node.id)
        .collect();
    assert!(up.contains(&"http://example.org#ahu1".to_owned()), "{up:?}");
}

#[tokio::test]
async fn charlie_haystack_points_and_equipment() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (store, ontology) = common::ontology_store().await;
    let path = data.join("haystack/charlie.json");
    import(store.as_ref(), &ontology, &path).await;
    let grid: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let rows = grid["rows"].as_array().unwrap();
    let base = "https://daemoniq.io/haystack/shared/data/haystack/charlie.json#";
    let has_point: BTreeSet<(String, String)> = select(
        store.as_ref(),
        format!(
            "{}SELECT ?e ?p WHERE {{ ?e brick:hasPoint ?p }}",
            vocab::PREFIXES
        ),
    )
    .await
    .unwrap()
    .iter()
    .map(|r| (r.string("e"), r.string("p")))
    .collect();
    let mut checked = 0;
    for row in rows {
        if row.get("point").is_none() {
            continue;
        }
        let Some(equip) = row.get("equipRef") else {
            continue;
        };
        let id = row["id"]["val"].as_str().unwrap();
        let e = equip["val"].as_str().unwrap();
        assert!(
            has_point.contains(&(format!("{base}{e}"), format!("{base}{id}"))),
            "point {id} should be a point of {e}"
        );
        checked += 1;
    }
    assert_eq!(checked, 562);

    let vavs = count(
        store.as_ref(),
        "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?c . ?c rdfs:subClassOf* brick:Variable_Air_Volume_Box . ?s dq:haystackId ?id }",
    )
    .await;
    assert_eq!(vavs, 30);
    let ahus = count(
        store.as_ref(),
        "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?c . ?c rdfs:subClassOf* brick:Air_Handling_Unit . ?s dq:haystackId ?id }",
    )
    .await;
    assert_eq!(ahus, 4);
    let chillers = count(
        store.as_ref(),
        "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?c . ?c rdfs:subClassOf* brick:Chiller . ?s dq:haystackId ?id }",
    )
    .await;
    assert_eq!(
        chillers, 2,
        "charlie has two chiller equipment records; its other chiller records are points"
    );
    let labelled = count(
        store.as_ref(),
        "SELECT (COUNT(*) AS ?n) WHERE { ?s rdfs:label 'Charlie AHU 1' }",
    )
    .await;
    assert_eq!(labelled, 1, "dis becomes the label");
}

#[tokio::test]
async fn carytown_v3_encoding_imports() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (store, ontology) = common::ontology_store().await;
    import(
        store.as_ref(),
        &ontology,
        &data.join("haystack/carytown.json"),
    )
    .await;
    let sites = count(
        store.as_ref(),
        "SELECT (COUNT(*) AS ?n) WHERE { ?s a brick:Site ; rdfs:label 'Carytown' }",
    )
    .await;
    assert_eq!(sites, 1);
    let points = count(
        store.as_ref(),
        "SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?e brick:hasPoint ?p . ?p a ?c . ?c rdfs:subClassOf* brick:Point }",
    )
    .await;
    assert!(points >= 10, "carytown points typed and attached: {points}");
}

async fn feeds_fixture(name: &str) -> (Topology, HashMap<String, String>) {
    let (store, ontology) = common::ontology_store().await;
    import(store.as_ref(), &ontology, &common::fixture(name)).await;
    let topology = Topology::build(store.as_ref()).await.unwrap();
    let labels: HashMap<String, String> = select(
        store.as_ref(),
        format!(
            "{}SELECT ?s ?l WHERE {{ ?s dq:haystackId ?id ; rdfs:label ?l }}",
            vocab::PREFIXES
        ),
    )
    .await
    .unwrap()
    .iter()
    .map(|r| (r.string("l"), r.string("s")))
    .collect();
    (topology, labels)
}

fn labels_of(reached: &[daemoniq::topology::Reached]) -> BTreeSet<String> {
    reached
        .iter()
        .filter_map(|r| r.node.label.clone())
        .collect()
}

#[tokio::test]
async fn own_haystack_fixture_yields_air_and_water_feeds() {
    for name in [
        "haystack/plant_air_water.json",
        "haystack/plant_air_water_v3.json",
    ] {
        let (topology, by_label) = feeds_fixture(name).await;
        let find = |needle: &str| -> String {
            by_label
                .iter()
                .filter(|(l, _)| l.contains(needle))
                .map(|(_, iri)| iri.clone())
                .next()
                .unwrap_or_else(|| {
                    panic!("{name}: no record labelled like {needle:?} in {by_label:?}")
                })
        };
        let ahu = find("AHU");
        let down = labels_of(&topology.downstream(&ahu, 10));
        let vavs: Vec<_> = by_label
            .keys()
            .filter(|l| l.contains("VAV"))
            .cloned()
            .collect();
        assert!(vavs.len() >= 3, "{name}: {vavs:?}");
        for v in &vavs {
            assert!(
                down.contains(v),
                "{name}: {v} should be downstream of the AHU: {down:?}"
            );
        }
        let chiller = find("Chiller");
        let chiller_down = labels_of(&topology.downstream(&chiller, 10));
        assert!(
            chiller_down
                .iter()
                .any(|l| l.contains("Cooling Coil") || l.contains("CHW Coil")),
            "{name}: the chiller feeds the AHU's cooling coil: {chiller_down:?}"
        );
        let boiler = find("Boiler");
        let boiler_down = labels_of(&topology.downstream(&boiler, 1));
        let reheat: Vec<_> = vavs
            .iter()
            .filter(|v| {
                by_label[*v] != ahu
                    && topology
                        .upstream(&by_label[*v], 1)
                        .iter()
                        .any(|r| r.node.id == boiler)
            })
            .collect();
        assert_eq!(
            reheat.len(),
            2,
            "{name}: two reheat VAVs fed by the boiler: {boiler_down:?}"
        );
        for v in &vavs {
            let up = labels_of(&topology.upstream(&by_label[v], 10));
            assert!(
                up.iter().any(|l| l.contains("AHU")),
                "{name}: {v} upstream {up:?}"
            );
        }
    }
}

#[tokio::test]
async fn same_bytes_are_a_no_op_and_changed_bytes_replace_the_graph() {
    let (store, ontology) = common::ontology_store().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.ttl");
    std::fs::copy(common::fixture("brick/small_building.ttl"), &file).unwrap();
    let source = SourceFile::new(&file, dir.path(), GraphKind::Model);
    let first = import::import_file(store.as_ref(), Some(&ontology), &source)
        .await
        .unwrap();
    assert!(matches!(
        first,
        ImportOutcome::Loaded {
            replaced: false,
            ..
        }
    ));
    let len = store.len().await.unwrap();
    let again = import::import_file(store.as_ref(), Some(&ontology), &source)
        .await
        .unwrap();
    assert_eq!(
        again,
        ImportOutcome::Unchanged {
            path: "model.ttl".into()
        }
    );
    assert_eq!(store.len().await.unwrap(), len);

    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\n<urn:test:extra> a <https://brickschema.org/schema/Brick#Room> .\n");
    std::fs::write(&file, text).unwrap();
    let third = import::import_file(store.as_ref(), Some(&ontology), &source)
        .await
        .unwrap();
    assert!(
        matches!(third, ImportOutcome::Loaded { replaced: true, .. }),
        "{third:?}"
    );
    let graph = source.graph_iri();
    let rooms = select(
        store.as_ref(),
        format!("SELECT ?s WHERE {{ GRAPH <{graph}> {{ ?s a <https://brickschema.org/schema/Brick#Room> }} }}"),
    )
    .await
    .unwrap();
    assert!(rooms.iter().any(|r| r.string("s") == "urn:test:extra"));
    // Replaced, not appended: one sha in the graph.
    let shas = select(
        store.as_ref(),
        format!(
            "{}SELECT DISTINCT ?sha WHERE {{ GRAPH <{graph}> {{ ?s dq:sourceSha ?sha }} }}",
            vocab::PREFIXES
        ),
    )
    .await
    .unwrap();
    assert_eq!(shas.len(), 1);
}

#[tokio::test]
async fn malformed_files_fail_with_a_position_and_leave_the_store_alone() {
    let (store, ontology) = common::ontology_store().await;
    let dir = tempfile::tempdir().unwrap();
    let before = store.len().await.unwrap();
    let bad = dir.path().join("bad.ttl");
    std::fs::write(&bad, "@prefix ex: <http://e/> .\nex:a ex:b .\n").unwrap();
    let err = import::import_file(
        store.as_ref(),
        Some(&ontology),
        &SourceFile::new(&bad, dir.path(), GraphKind::Model),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("bad.ttl"), "{err}");
    let json = dir.path().join("bad.json");
    std::fs::write(&json, "{\"rows\": 3}").unwrap();
    let err = import::import_file(
        store.as_ref(),
        Some(&ontology),
        &SourceFile::new(&json, dir.path(), GraphKind::Model),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("rows"), "{err}");
    let other = dir.path().join("x.docx");
    std::fs::write(&other, "PK").unwrap();
    let err = import::import_file(
        store.as_ref(),
        Some(&ontology),
        &SourceFile::new(&other, dir.path(), GraphKind::Model),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("unsupported format"), "{err}");
    assert_eq!(store.len().await.unwrap(), before);
}

/// Haystack function marker for a Brick base point class.
fn function_marker(l1: &str, listed: &str) -> Option<String> {
    let options: Vec<&str> = listed
        .split('|')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let wanted = match l1 {
        "Sensor" | "Status" => "sensor",
        "Setpoint" | "Parameter" => "sp",
        "Command" => "cmd",
        "Alarm" => "alarm",
        _ => return options.first().map(|s| (*s).to_owned()),
    };
    Some(wanted.to_owned())
}

#[tokio::test]
async fn tag_set_inference_accuracy_against_the_brick_haystack_table() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (_, ontology) = common::ontology_store().await;
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(data.join("haystack/brick-haystack.csv"))
        .unwrap();
    let (mut total, mut exact) = (0, 0);
    let mut misses = Vec::new();
    for record in reader.records() {
        let r = record.unwrap();
        let col = |i: usize| r.get(i).unwrap_or_default().trim().to_owned();
        let state = col(2);
        let (expected, mut markers): (String, Vec<String>) = match state.as_str() {
            "Equip" | "Location" => (col(5), Vec::new()),
            "Base" | "Subparts" if !col(4).is_empty() => (col(4), vec!["point".into()]),
            _ => continue,
        };
        if expected.is_empty() {
            continue;
        }
        for m in col(7).split(',').chain(col(8).split(',')) {
            let m = m.trim();
            if !m.is_empty() && !m.contains(':') && !m.contains(' ') {
                markers.push(m.to_owned());
            }
        }
        if (state == "Base" || state == "Subparts")
            && let Some(f) = function_marker(&col(3), &col(9))
        {
            markers.push(f);
        }
        total += 1;
        let expected_iri = vocab::brick(&expected.replace(' ', "_"));
        let inferred = ontology.infer_class(markers.iter().map(String::as_str));
        let hit = inferred.as_ref().is_some_and(|i| {
            i.class == expected_iri
                || (ontology.is_a(&i.class, &expected_iri)
                    && ontology.is_a(&expected_iri, &i.class))
        });
        if hit {
            exact += 1;
        } else {
            misses.push(format!(
                "{markers:?} → {} (expected {expected})",
                inferred.map_or("none".into(), |i| vocab::compact(&i.class))
            ));
        }
    }
    let accuracy = exact as f64 / total as f64;
    println!(
        "tag-set → class accuracy: {exact}/{total} = {:.1}%",
        accuracy * 100.0
    );
    for m in misses.iter().take(40) {
        println!("  miss: {m}");
    }
    assert!(
        total > 400,
        "the table should have hundreds of rows, read {total}"
    );
    assert!(
        accuracy >= 0.5,
        "accuracy {accuracy:.3} fell below the floor"
    );
}
