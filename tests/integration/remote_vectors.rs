//! The Qdrant server backend: the vector contract, and ingest compared with
//! the embedded index, against a real Qdrant server named by
//! `DAEMONIQ_TEST_QDRANT_URL` (gRPC, e.g. `http://127.0.0.1:6334`). Without
//! the variable these tests say that they were skipped and pass nothing off.
//! Each test works in its own collection and deletes it at the end.

use crate::common;
use daemoniq::config::{BackendConfig, HttpConfig, IndexConfig};
use daemoniq::ground::Grounder;
use daemoniq::ingest::{DocOptions, DocService, DocStatus};
use daemoniq::vector::{IndexModel, QdrantIndex, QdrantSettings, Search, VectorError};
use std::sync::Arc;
use std::time::Duration;

fn settings(test: &str, collection: &str) -> Option<QdrantSettings> {
    match std::env::var("DAEMONIQ_TEST_QDRANT_URL") {
        Ok(url) => Some(QdrantSettings {
            collection: format!("{collection}_{}", uuid::Uuid::new_v4().simple()),
            api_key: std::env::var("DAEMONIQ_TEST_QDRANT_API_KEY").ok(),
            // DAEMONIQ_TEST_QDRANT_SHARDS / _REPLICATION exercise a cluster
            // (or several shards on one node): searches merge across shards.
            shards: std::env::var("DAEMONIQ_TEST_QDRANT_SHARDS")
                .ok()
                .and_then(|v| v.parse().ok()),
            replication: std::env::var("DAEMONIQ_TEST_QDRANT_REPLICATION")
                .ok()
                .and_then(|v| v.parse().ok()),
            ..BackendConfig::default().qdrant_at(&url)
        }),
        Err(_) => {
            common::skip_remote(test, "DAEMONIQ_TEST_QDRANT_URL is not set");
            None
        }
    }
}

fn model(name: &str, dimension: usize) -> IndexModel {
    IndexModel {
        model: name.into(),
        dimension,
    }
}

#[tokio::test]
async fn qdrant_honours_the_vector_contract() {
    let Some(s) = settings("qdrant_honours_the_vector_contract", "contract") else {
        return;
    };
    let index = QdrantIndex::open(s.clone(), model("contract-model", 16))
        .await
        .unwrap();
    assert_eq!(daemoniq::vector::VectorIndex::backend(&index), "qdrant");
    let outcome = daemoniq::vector::contract::run(&index).await;
    // The collection was made with its model: another model or dimension
    // is refused, the same one opens.
    let other_model = QdrantIndex::open(s.clone(), model("another-model", 16)).await;
    let other_dim = QdrantIndex::open(s.clone(), model("contract-model", 32)).await;
    let same = QdrantIndex::open(s.clone(), model("contract-model", 16)).await;
    index.delete_collection().await.unwrap();
    if let Err(failures) = outcome {
        panic!("the qdrant backend breaks the contract:\n{failures}");
    }
    assert!(
        matches!(other_model, Err(VectorError::ModelMismatch { .. })),
        "{other_model:?}"
    );
    match other_dim {
        Err(VectorError::ModelMismatch {
            found_dimension, ..
        }) => assert_eq!(found_dimension, 16),
        other => panic!("expected a model mismatch, got {other:?}"),
    }
    assert!(same.is_ok(), "{same:?}");
}

#[tokio::test]
async fn ingest_into_qdrant_matches_the_embedded_index() {
    let test = "ingest_into_qdrant_matches_the_embedded_index";
    let Some(s) = settings(test, "ingest") else {
        return;
    };
    let root = common::root();
    let cfg = IndexConfig {
        docs_root: root.clone(),
        ort_threads: Some(2),
        ..IndexConfig::default()
    };
    let reports = tempfile::tempdir().unwrap();
    let open = |qdrant: Option<QdrantSettings>| {
        let cfg = cfg.clone();
        let reports = reports.path().to_path_buf();
        async move {
            let state = common::fresh_campus_state(HttpConfig::default()).await;
            let store = Arc::clone(&state.store);
            let docs = match qdrant {
                Some(q) => DocService::open_qdrant(&cfg, store, &common::assets(), q, reports)
                    .await
                    .unwrap(),
                None => DocService::open(&cfg, store, &common::assets(), None, reports)
                    .await
                    .unwrap(),
            };
            let grounder = Grounder::load(state.store.as_ref(), &state.ontology())
                .await
                .unwrap();
            (state, docs, grounder)
        }
    };
    let (_se, edge, ge) = open(None).await;
    let (_sq, qdrant, gq) = open(Some(s.clone())).await;
    let paths = vec![
        root.join("golden/corpus/northfield_service_log.md"),
        root.join("golden/corpus/northfield_soo_vav.md"),
        root.join("golden/corpus/yorkland_om_notes.md"),
    ];
    let re = ingest(&edge, &ge, &paths).await;
    let rq = ingest(&qdrant, &gq, &paths).await;
    let statuses = |r: &daemoniq::ingest::RunReport| {
        r.documents
            .iter()
            .map(|d| (d.source_ref.clone(), d.status, d.chunks))
            .collect::<Vec<_>>()
    };
    {
        assert_eq!(statuses(&re), statuses(&rq));
        let (ie, iq) = (edge.ingestor().index(), qdrant.ingestor().index());
        assert_eq!(iq.backend(), "qdrant");
        let sources = ie.sources().await.unwrap();
        assert_eq!(sources, iq.sources().await.unwrap());
        // Same ids, payloads and vectors, source by source.
        for source in sources.keys() {
            let pe = ie.points_of(source, true).await.unwrap();
            let pq = iq.points_of(source, true).await.unwrap();
            assert_eq!(pe.len(), pq.len(), "{source}");
            for (a, b) in pe.iter().zip(&pq) {
                assert_eq!(a.id, b.id);
                assert_eq!(a.payload, b.payload);
                let (va, vb) = (a.vector.as_ref().unwrap(), b.vector.as_ref().unwrap());
                assert!(va.iter().zip(vb).all(|(x, y)| (x - y).abs() < 1e-5));
            }
        }
        // The same neighbours for the same query, filtered and not.
        let probe = ie
            .points_of(sources.keys().next().unwrap(), true)
            .await
            .unwrap()[0]
            .clone();
        for filter in [
            None,
            Some(daemoniq::vector::MatchAny {
                graph_ids: probe.payload.graph_ids.clone(),
                ..Default::default()
            }),
        ] {
            let search = || Search {
                vector: probe.vector.clone().unwrap(),
                limit: 5,
                filter: filter.clone(),
                exclude_source_id: None,
            };
            let he = ie.search(search()).await.unwrap();
            let hq = iq.search(search()).await.unwrap();
            let ids = |h: &[daemoniq::vector::Hit]| h.iter().map(|h| h.id).collect::<Vec<_>>();
            assert_eq!(ids(&he), ids(&hq), "filter {filter:?}");
            for (a, b) in he.iter().zip(&hq) {
                assert!((a.score - b.score).abs() < 1e-4);
            }
        }
        // Idempotent: the same files again change nothing.
        let again = ingest(&qdrant, &gq, &paths).await;
        assert!(
            again
                .documents
                .iter()
                .all(|d| d.status == DocStatus::Unchanged)
        );
        assert_eq!(iq.count().await.unwrap(), ie.count().await.unwrap());
        // Delete removes the same points on both.
        let source = sources.keys().next().unwrap().clone();
        let de = edge.ingestor().delete(&source).await.unwrap();
        let dq = qdrant.ingestor().delete(&source).await.unwrap();
        assert_eq!(de, dq);
        assert!(iq.points_of(&source, false).await.unwrap().is_empty());
        assert_eq!(iq.count().await.unwrap(), ie.count().await.unwrap());
    }
    // Only reached when everything held; a failed run leaves its uniquely
    // named collection for inspection.
    let model = qdrant.ingestor().index().model().clone();
    QdrantIndex::open(s, model)
        .await
        .unwrap()
        .delete_collection()
        .await
        .unwrap();
}

#[tokio::test]
async fn migrate_copies_an_embedded_index_to_qdrant() {
    use daemoniq::vector::contract::{axis, payload};
    use daemoniq::vector::{ChunkPoint, EdgeIndex, VectorIndex, migrate::copy_index};
    let Some(s) = settings("migrate_copies_an_embedded_index_to_qdrant", "migrate") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let edge = EdgeIndex::open(dir.path(), model("migrate-model", 16)).unwrap();
    let points: Vec<ChunkPoint> = (0..40)
        .map(|i| ChunkPoint {
            id: uuid::Uuid::new_v4(),
            vector: axis(16, i % 16),
            payload: payload(&format!("doc-{}", i % 4), i),
        })
        .collect();
    edge.upsert(points.clone()).await.unwrap();
    let target = QdrantIndex::open(
        QdrantSettings {
            batch: 7,
            ..s.clone()
        },
        model("migrate-model", 16),
    )
    .await
    .unwrap();
    let report = copy_index(&edge, &target, &|_, _| {}).await.unwrap();
    let again = copy_index(&edge, &target, &|_, _| {}).await.unwrap();
    let mut same = true;
    for source in edge.sources().await.unwrap().keys() {
        let a = edge.points_of(source, true).await.unwrap();
        let b = target.points_of(source, true).await.unwrap();
        same &= a.len() == b.len()
            && a.iter()
                .zip(&b)
                .all(|(x, y)| x.id == y.id && x.payload == y.payload && x.vector == y.vector);
    }
    // Another model's collection is refused before anything is copied.
    let other = tempfile::tempdir().unwrap();
    let other = EdgeIndex::open(other.path(), model("other-model", 16)).unwrap();
    let refused = copy_index(&other, &target, &|_, _| {}).await;
    target.delete_collection().await.unwrap();
    assert_eq!(
        (report.sources, report.points, report.target_points),
        (4, 40, 40)
    );
    assert_eq!(again.target_points, 40, "a second copy changes nothing");
    assert!(same, "ids, payloads and vectors arrive as they were");
    assert!(matches!(refused, Err(VectorError::ModelMismatch { .. })));
}

async fn ingest(
    docs: &DocService,
    grounder: &Grounder,
    paths: &[std::path::PathBuf],
) -> daemoniq::ingest::RunReport {
    let files = docs.collect(paths).unwrap();
    let inputs = docs.inputs(&files);
    docs.ingest(grounder, inputs, &DocOptions::default(), &|_| {})
        .await
        .unwrap()
}

#[tokio::test]
async fn an_unreachable_qdrant_is_unavailable() {
    let s = QdrantSettings {
        retries: 1,
        timeout: Duration::from_secs(2),
        ..BackendConfig::default().qdrant_at("http://127.0.0.1:9")
    };
    match QdrantIndex::open(s, model("m", 8)).await {
        Err(VectorError::Unavailable(msg)) => assert!(msg.contains("health check"), "{msg}"),
        other => panic!("expected unavailable, got {other:?}"),
    }
}
