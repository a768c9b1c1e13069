#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use tempfile::TempDir;
use uuid::Uuid;

use super::{EdgeIndex, MODEL_FILE};
use crate::vector::contract::{self, axis, mix, payload};
use crate::vector::{ChunkPoint, IndexModel, MatchAny, Search, VectorError, VectorIndex};

const MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";

fn model(dimension: usize) -> IndexModel {
    IndexModel {
        model: MODEL.to_owned(),
        dimension,
    }
}

fn open(dir: &Path, dimension: usize) -> EdgeIndex {
    EdgeIndex::open(dir, model(dimension)).unwrap()
}

fn id(source_id: &str, chunk_index: usize) -> Uuid {
    Uuid::new_v5(
        &Uuid::NAMESPACE_URL,
        format!("{source_id}/{chunk_index}").as_bytes(),
    )
}

fn point(source_id: &str, chunk_index: usize, vector: Vec<f32>) -> ChunkPoint {
    ChunkPoint {
        id: id(source_id, chunk_index),
        vector,
        payload: payload(source_id, chunk_index),
    }
}

fn search(vector: Vec<f32>, limit: usize) -> Search {
    Search {
        vector,
        limit,
        filter: None,
        exclude_source_id: None,
    }
}

fn chunks_of(hits: &[crate::vector::Hit]) -> Vec<(String, usize)> {
    hits.iter()
        .map(|h| (h.payload.source_id.clone(), h.payload.chunk_index))
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[tokio::test]
async fn contract_suite_passes() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 384);
    if let Err(failures) = contract::run(&index).await {
        panic!("contract failures:\n{failures}");
    }
    assert_eq!(index.count().await.unwrap(), 0, "the suite cleans up");
    // A second run on the same, now used, index.
    contract::run(&index).await.unwrap();
}

#[tokio::test]
async fn contract_suite_passes_on_a_small_dimension() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), contract::MIN_DIMENSION);
    contract::run(&index).await.unwrap();
}

#[tokio::test]
async fn creates_the_layout_and_reports_backend_and_model() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 384);
    assert_eq!(index.backend(), "qdrant-edge");
    assert_eq!(index.model(), &model(384));
    assert_eq!(index.location(), dir.path());
    let recorded: IndexModel =
        serde_json::from_slice(&std::fs::read(dir.path().join(MODEL_FILE)).unwrap()).unwrap();
    assert_eq!(recorded, model(384));
    assert!(dir.path().join("shard/edge_config.json").is_file());
    assert!(!dir.path().join("index_model.json.tmp").exists());
    assert_eq!(index.count().await.unwrap(), 0);
    assert!(index.sources().await.unwrap().is_empty());
}

#[tokio::test]
async fn search_returns_nearest_first_with_cosine_scores() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 16);
    // Not unit length on purpose: the score is still the cosine.
    let vectors: Vec<Vec<f32>> = vec![
        [vec![3.0, 4.0], vec![0.0; 14]].concat(),
        [vec![1.0, 0.0, 1.0], vec![0.0; 13]].concat(),
        [vec![0.0, 0.0, 0.0, 2.0], vec![0.0; 12]].concat(),
        [vec![-1.0, 0.5], vec![0.0; 14]].concat(),
    ];
    let points = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| point("doc", i, v.clone()))
        .collect();
    index.upsert(points).await.unwrap();
    let query = [vec![1.0, 0.2, 0.1], vec![0.0; 13]].concat();
    let hits = index.search(search(query.clone(), 10)).await.unwrap();

    let mut want: Vec<(usize, f32)> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (i, cosine(&query, v)))
        .collect();
    want.sort_by(|a, b| b.1.total_cmp(&a.1));
    assert_eq!(hits.len(), 4);
    for (hit, (i, score)) in hits.iter().zip(&want) {
        assert_eq!(hit.payload.chunk_index, *i);
        assert_eq!(hit.id, id("doc", *i));
        assert!(
            (hit.score - score).abs() < 1e-5,
            "chunk {i}: {} vs {score}",
            hit.score
        );
    }
    let top2 = index.search(search(query, 2)).await.unwrap();
    assert_eq!(chunks_of(&top2), chunks_of(&hits[..2]));
}

#[tokio::test]
async fn should_filter_matches_any_value_of_any_field() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 8);
    let mut points: Vec<ChunkPoint> = (0..6).map(|i| point("doc", i, axis(8, i))).collect();
    points[0].payload.graph_ids = vec!["urn:ahu1".into(), "urn:vav2".into()];
    points[1].payload.equip = vec!["ahu".into()];
    points[2].payload.brick_equip = vec!["Air_Handling_Unit".into()];
    points[3].payload.ptags = vec!["zone air temp sensor".into()];
    points[4].payload.equip = vec!["vav".into()];
    // points[5] keeps only urn:test:doc and empty arrays.
    index.upsert(points).await.unwrap();

    let filtered = |filter: MatchAny| Search {
        vector: axis(8, 7),
        limit: 10,
        filter: Some(filter),
        exclude_source_id: None,
    };
    let chunks = |hits: Vec<crate::vector::Hit>| -> BTreeSet<usize> {
        hits.iter().map(|h| h.payload.chunk_index).collect()
    };

    let across_fields = MatchAny {
        graph_ids: vec!["urn:vav2".into()],
        equip: vec!["ahu".into(), "boiler".into()],
        brick_equip: vec!["Air_Handling_Unit".into()],
        ptags: vec!["zone air temp sensor".into()],
    };
    let got = chunks(index.search(filtered(across_fields)).await.unwrap());
    assert_eq!(got, BTreeSet::from([0, 1, 2, 3]));

    let one_field = MatchAny {
        equip: vec!["vav".into(), "ahu".into()],
        ..MatchAny::default()
    };
    let got = chunks(index.search(filtered(one_field)).await.unwrap());
    assert_eq!(got, BTreeSet::from([1, 4]));

    let nothing = MatchAny {
        ptags: vec!["zone air temp".into()],
        ..MatchAny::default()
    };
    assert!(index.search(filtered(nothing)).await.unwrap().is_empty());

    // An empty MatchAny is a vanilla search.
    let got = chunks(index.search(filtered(MatchAny::default())).await.unwrap());
    assert_eq!(got.len(), 6);
}

#[tokio::test]
async fn exclude_source_id_leaves_the_source_out() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 8);
    let mut points: Vec<ChunkPoint> = (0..3).map(|i| point("a", i, axis(8, 0))).collect();
    points.extend((0..2).map(|i| point("b", i, mix(8, &[(0, 1.0), (1, 1.0)]))));
    index.upsert(points).await.unwrap();

    let hits = index
        .search(Search {
            exclude_source_id: Some("a".into()),
            ..search(axis(8, 0), 10)
        })
        .await
        .unwrap();
    // Both points of b have the same vector, so their order is open.
    let got: BTreeSet<(String, usize)> = chunks_of(&hits).into_iter().collect();
    assert_eq!(
        got,
        BTreeSet::from([("b".to_owned(), 0), ("b".to_owned(), 1)])
    );

    // Combined with a filter that matches both sources.
    let hits = index
        .search(Search {
            vector: axis(8, 0),
            limit: 10,
            filter: Some(MatchAny {
                graph_ids: vec!["urn:test:a".into(), "urn:test:b".into()],
                ..MatchAny::default()
            }),
            exclude_source_id: Some("b".into()),
        })
        .await
        .unwrap();
    assert_eq!(hits.len(), 3);
    assert!(hits.iter().all(|h| h.payload.source_id == "a"));
}

#[tokio::test]
async fn points_of_orders_by_chunk_index_and_returns_vectors_on_request() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 8);
    // More points than one scroll page, written out of order.
    let n = 1300;
    let mut points: Vec<ChunkPoint> = (0..n)
        .rev()
        .map(|i| point("big", i, mix(8, &[(i % 8, 1.0), ((i + 3) % 8, 0.5)])))
        .collect();
    points.push(point("other", 0, axis(8, 0)));
    index.upsert(points).await.unwrap();

    let bare = index.points_of("big", false).await.unwrap();
    assert_eq!(
        bare.iter()
            .map(|p| p.payload.chunk_index)
            .collect::<Vec<_>>(),
        (0..n).collect::<Vec<_>>()
    );
    assert!(bare.iter().all(|p| p.vector.is_none()));
    assert!(bare.iter().all(|p| p.id == id("big", p.payload.chunk_index)
        && p.payload == payload("big", p.payload.chunk_index)));

    let full = index.points_of("big", true).await.unwrap();
    assert_eq!(full.len(), n);
    for p in &full {
        let i = p.payload.chunk_index;
        let want = mix(8, &[(i % 8, 1.0), ((i + 3) % 8, 0.5)]);
        let got = p.vector.as_ref().unwrap();
        assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-6));
    }
    assert!(index.points_of("nope", true).await.unwrap().is_empty());
}

#[tokio::test]
async fn sources_lists_every_source_with_its_shas() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 8);
    let mut points = vec![
        point("a", 0, axis(8, 0)),
        point("a", 1, axis(8, 1)),
        point("b", 0, axis(8, 2)),
    ];
    let mut old = point("b", 1, axis(8, 3));
    old.payload.source_sha = "sha-old".into();
    points.push(old);
    index.upsert(points).await.unwrap();

    let want: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_owned(), BTreeSet::from(["sha-a".to_owned()])),
        (
            "b".to_owned(),
            BTreeSet::from(["sha-b".to_owned(), "sha-old".to_owned()]),
        ),
    ]
    .into();
    let got: BTreeMap<String, BTreeSet<String>> = index
        .sources()
        .await
        .unwrap()
        .into_iter()
        .map(|(source, keys)| {
            // Each key is the point's own id, sha and chunk index.
            for k in &keys {
                assert_eq!(k.id, id(&source, k.chunk_index), "{source}: {k:?}");
            }
            (source, keys.into_iter().map(|k| k.source_sha).collect())
        })
        .collect();
    assert_eq!(got, want);
}

#[tokio::test]
async fn deletes_leave_nothing_of_the_source_and_count_drops() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 8);
    let points: Vec<ChunkPoint> = (0..4)
        .map(|i| point("a", i, axis(8, i)))
        .chain((0..3).map(|i| point("b", i, axis(8, i))))
        .collect();
    index.upsert(points).await.unwrap();
    assert_eq!(index.count().await.unwrap(), 7);

    index
        .delete_points(&[id("a", 0), id("a", 2), id("zzz", 9)])
        .await
        .unwrap();
    assert_eq!(index.count().await.unwrap(), 5);
    let left: Vec<usize> = index
        .points_of("a", false)
        .await
        .unwrap()
        .iter()
        .map(|p| p.payload.chunk_index)
        .collect();
    assert_eq!(left, [1, 3]);

    assert_eq!(index.delete_source("a").await.unwrap(), 2);
    assert_eq!(index.count().await.unwrap(), 3);
    assert!(index.points_of("a", false).await.unwrap().is_empty());
    assert!(!index.sources().await.unwrap().contains_key("a"));
    let hits = index.search(search(axis(8, 1), 10)).await.unwrap();
    assert!(hits.iter().all(|h| h.payload.source_id == "b"));
    assert_eq!(index.delete_source("a").await.unwrap(), 0);

    assert_eq!(index.delete_source("b").await.unwrap(), 3);
    assert_eq!(index.count().await.unwrap(), 0);
    assert!(index.sources().await.unwrap().is_empty());
}

#[tokio::test]
async fn upsert_of_the_same_id_overwrites() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 8);
    let first = point("a", 0, axis(8, 0));
    index.upsert(vec![first.clone()]).await.unwrap();
    index.upsert(vec![first.clone()]).await.unwrap();
    assert_eq!(index.count().await.unwrap(), 1);

    let mut second = point("a", 0, axis(8, 5));
    second.payload.node_content = "rewritten".into();
    index.upsert(vec![second.clone()]).await.unwrap();
    assert_eq!(index.count().await.unwrap(), 1);
    let points = index.points_of("a", true).await.unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0].payload, second.payload);
    assert_eq!(points[0].vector.as_deref(), Some(&second.vector[..]));
    let hit = &index.search(search(axis(8, 5), 1)).await.unwrap()[0];
    assert!((hit.score - 1.0).abs() < 1e-5);
}

#[tokio::test]
async fn wrong_dimension_is_refused() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 8);
    let err = index
        .upsert(vec![point("a", 0, axis(8, 0)), point("a", 1, vec![1.0; 9])])
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            VectorError::Dimension {
                expected: 8,
                got: 9
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        index.count().await.unwrap(),
        0,
        "nothing of the batch is written"
    );
    let err = index.search(search(vec![1.0; 384], 3)).await.unwrap_err();
    assert!(
        matches!(
            err,
            VectorError::Dimension {
                expected: 8,
                got: 384
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "vector has 384 dimensions, the index has 8"
    );
}

/// A vector unique to chunk `i` (< 128) of source number `s` (< 4).
fn reopen_vector(s: usize, i: usize) -> Vec<f32> {
    mix(32, &[(i % 32, 1.0), (16 + 4 * s + i / 32, 0.3)])
}

#[tokio::test]
async fn reopen_keeps_every_point_and_payload() {
    let dir = TempDir::new().unwrap();
    let sources = ["a", "b", "c"];
    let mut written = BTreeMap::new();
    {
        let index = open(dir.path(), 32);
        for (s, source) in sources.iter().enumerate() {
            let points: Vec<ChunkPoint> = (0..100)
                .map(|i| point(source, i, reopen_vector(s, i)))
                .collect();
            written.insert(source.to_string(), points.clone());
            index.upsert(points).await.unwrap();
        }
        index.delete_points(&[id("c", 7)]).await.unwrap();
        assert_eq!(index.delete_source("b").await.unwrap(), 100);
    }
    written.remove("b");
    if let Some(c) = written.get_mut("c") {
        c.retain(|p| p.id != id("c", 7));
    }

    let index = open(dir.path(), 32);
    assert_eq!(index.count().await.unwrap(), 199);
    for (source, points) in &written {
        let stored = index.points_of(source, true).await.unwrap();
        assert_eq!(stored.len(), points.len());
        for (s, p) in stored.iter().zip(points) {
            assert_eq!(s.id, p.id);
            assert_eq!(s.payload, p.payload);
            let v = s.vector.as_ref().unwrap();
            assert!(v.iter().zip(&p.vector).all(|(a, b)| (a - b).abs() < 1e-6));
        }
    }
    assert_eq!(
        index.sources().await.unwrap().keys().collect::<Vec<_>>(),
        ["a", "c"]
    );
    let hit = &index.search(search(reopen_vector(2, 5), 1)).await.unwrap()[0];
    assert_eq!(hit.id, id("c", 5));
    assert!((hit.score - 1.0).abs() < 1e-5);
}

#[tokio::test]
async fn writes_after_reopen_take_effect() {
    // Point versions come from the WAL's operation numbers; a reopened
    // shard must keep counting up or later writes would be ignored.
    let dir = TempDir::new().unwrap();
    {
        let index = open(dir.path(), 8);
        for round in 0..3 {
            index
                .upsert(
                    (0..5)
                        .map(|i| point("a", i, axis(8, (i + round) % 8)))
                        .collect(),
                )
                .await
                .unwrap();
        }
    }
    {
        let index = open(dir.path(), 8);
        let mut p = point("a", 0, axis(8, 7));
        p.payload.section_title = "after reopen".into();
        index.upsert(vec![p]).await.unwrap();
        index.delete_points(&[id("a", 1)]).await.unwrap();
        let points = index.points_of("a", true).await.unwrap();
        assert_eq!(points.len(), 4);
        assert_eq!(points[0].payload.section_title, "after reopen");
        assert_eq!(points[0].vector.as_deref(), Some(&axis(8, 7)[..]));
    }
    let index = open(dir.path(), 8);
    let points = index.points_of("a", false).await.unwrap();
    assert_eq!(
        points
            .iter()
            .map(|p| p.payload.chunk_index)
            .collect::<Vec<_>>(),
        [0, 2, 3, 4]
    );
    assert_eq!(points[0].payload.section_title, "after reopen");
    assert_eq!(index.delete_source("a").await.unwrap(), 4);
}

#[test]
fn reopen_with_another_model_or_dimension_is_a_mismatch() {
    let dir = TempDir::new().unwrap();
    drop(open(dir.path(), 384));

    let other = IndexModel {
        model: "BAAI/bge-small-en-v1.5".into(),
        dimension: 384,
    };
    let err = EdgeIndex::open(dir.path(), other).unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(&err, VectorError::ModelMismatch { found_model, expected_model, .. }
            if found_model == MODEL && expected_model == "BAAI/bge-small-en-v1.5"),
        "{err:?}"
    );
    assert!(message.contains(MODEL) && message.contains("BAAI/bge-small-en-v1.5"));
    assert!(message.contains(&dir.path().display().to_string()));

    let err = EdgeIndex::open(dir.path(), model(768)).unwrap_err();
    assert!(
        matches!(
            err,
            VectorError::ModelMismatch {
                found_dimension: 384,
                expected_dimension: 768,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("(384-d), not"));
    assert!(err.to_string().contains("(768-d)"));

    // The failed opens changed nothing.
    drop(open(dir.path(), 384));
}

#[test]
fn dimension_zero_is_refused() {
    let dir = TempDir::new().unwrap();
    let err = EdgeIndex::open(dir.path(), model(0)).unwrap_err();
    assert!(matches!(err, VectorError::Backend(_)), "{err:?}");
}

#[test]
fn a_second_open_of_the_same_directory_is_refused() {
    let dir = TempDir::new().unwrap();
    let first = open(dir.path(), 8);
    let err = EdgeIndex::open(dir.path(), model(8)).unwrap_err();
    assert!(matches!(err, VectorError::Unavailable(_)), "{err:?}");
    assert!(err.to_string().contains("already open"), "{err}");
    drop(first);
    drop(open(dir.path(), 8));
}

#[tokio::test]
async fn an_unfinished_creation_is_redone() {
    let dir = TempDir::new().unwrap();
    drop(open(dir.path(), 8));
    // As if the process died after creating the shard but before the model
    // file was renamed into place.
    std::fs::remove_file(dir.path().join(MODEL_FILE)).unwrap();
    let index = open(dir.path(), 16);
    assert_eq!(index.model().dimension, 16);
    index
        .upsert(vec![point("a", 0, axis(16, 12))])
        .await
        .unwrap();
    assert_eq!(index.count().await.unwrap(), 1);
}

#[test]
fn a_missing_shard_with_a_model_file_is_an_error() {
    let dir = TempDir::new().unwrap();
    drop(open(dir.path(), 8));
    std::fs::remove_dir_all(dir.path().join("shard")).unwrap();
    let err = EdgeIndex::open(dir.path(), model(8)).unwrap_err();
    assert!(matches!(err, VectorError::Unavailable(_)), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writes_and_reads_do_not_race_the_flush() {
    let dir = TempDir::new().unwrap();
    let index: Arc<dyn VectorIndex> = Arc::new(open(dir.path(), 8));
    let mut tasks = Vec::new();
    for t in 0..8 {
        let index = Arc::clone(&index);
        tasks.push(tokio::spawn(async move {
            let source = format!("s{t}");
            for round in 0..10 {
                let points = (0..5)
                    .map(|i| point(&source, round * 5 + i, axis(8, (t + i) % 8)))
                    .collect();
                index.upsert(points).await.unwrap();
                index.search(search(axis(8, t % 8), 5)).await.unwrap();
                index.count().await.unwrap();
                if round % 3 == 0 {
                    index
                        .delete_points(&[id(&source, round * 5)])
                        .await
                        .unwrap();
                }
            }
            index.points_of(&source, false).await.unwrap().len()
        }));
    }
    let mut total = 0;
    for task in tasks {
        let n = task.await.unwrap();
        assert_eq!(n, 46);
        total += n;
    }
    assert_eq!(index.count().await.unwrap(), total);
}

/// Environment variable telling [`abort_child`] where to write.
const ABORT_DIR: &str = "DAEMONIQ_TEST_EDGE_ABORT_DIR";

/// Child half of [`returned_writes_survive_an_abort`]: upserts, deletes,
/// then aborts without running any destructor (like `kill -9`).
#[test]
#[ignore = "run by returned_writes_survive_an_abort in a child process"]
fn abort_child() {
    let Some(dir) = std::env::var_os(ABORT_DIR) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let index = open(Path::new(&dir), 8);
        for round in 0..4 {
            let points = (0..25)
                .map(|i| point("a", round * 25 + i, axis(8, i % 8)))
                .collect();
            index.upsert(points).await.unwrap();
        }
        index.delete_points(&[id("a", 0)]).await.unwrap();
        std::process::abort();
    });
}

#[tokio::test]
async fn returned_writes_survive_an_abort() {
    let dir = TempDir::new().unwrap();
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "vector::edge::tests::abort_child",
            "--ignored",
            "--test-threads=1",
        ])
        .env(ABORT_DIR, dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "the child should have aborted");

    let index = open(dir.path(), 8);
    assert_eq!(index.count().await.unwrap(), 99);
    let points = index.points_of("a", false).await.unwrap();
    assert_eq!(points.len(), 99);
    assert_eq!(points[0].payload.chunk_index, 1);
    assert_eq!(points[98].payload, payload("a", 99));
}

/// Rough timings for the report: `cargo test --release --lib
/// vector::edge::tests::timing -- --ignored --nocapture`.
#[tokio::test]
#[ignore = "timing, run by hand in release mode"]
async fn timing() {
    let dir = TempDir::new().unwrap();
    let index = open(dir.path(), 384);
    let vector = |i: usize| {
        mix(
            384,
            &[
                (i % 384, 1.0),
                ((i * 7 + 3) % 384, 0.5),
                ((i * 13) % 384, 0.25),
            ],
        )
    };
    let points: Vec<ChunkPoint> = (0..2000)
        .map(|i| point(&format!("doc{}", i / 40), i % 40, vector(i)))
        .collect();
    let start = std::time::Instant::now();
    for batch in points.chunks(100) {
        index.upsert(batch.to_vec()).await.unwrap();
    }
    let upsert = start.elapsed();
    let start = std::time::Instant::now();
    for i in 0..100 {
        let hits = index.search(search(vector(i * 17), 10)).await.unwrap();
        assert_eq!(hits.len(), 10);
    }
    let vanilla = start.elapsed();
    let start = std::time::Instant::now();
    for i in 0..100 {
        let hits = index
            .search(Search {
                vector: vector(i * 17),
                limit: 10,
                filter: Some(MatchAny {
                    graph_ids: (0..5)
                        .map(|k| format!("urn:test:doc{}", (i + k) % 50))
                        .collect(),
                    ..MatchAny::default()
                }),
                exclude_source_id: Some(format!("doc{}", i % 50)),
            })
            .await
            .unwrap();
        assert_eq!(hits.len(), 10);
    }
    let filtered = start.elapsed();
    assert_eq!(index.count().await.unwrap(), 2000);
    let wal = dir_size(&dir.path().join("shard/wal"));
    let total = dir_size(dir.path());
    println!("on disk: {total} bytes, of which WAL {wal} bytes");
    println!(
        "upsert 2000 (20 batches of 100, flushed each): {upsert:?}; \
         100 vanilla searches: {vanilla:?}; 100 filtered searches: {filtered:?}"
    );
}

/// Apparent size of the files under `path`.
fn dir_size(path: &Path) -> u64 {
    std::fs::read_dir(path)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                dir_size(&e.path())
            } else {
                meta.len()
            }
        })
        .sum()
}

/// An index as DaemonIQ wrote it before the lexical side: one unnamed dense
/// vector, no sparse vector, the model file beside it.
fn write_old_index(dir: &Path, dimension: usize, points: &[ChunkPoint]) {
    use qdrant_edge::{
        EdgeConfig, EdgeShard, EdgeVectorParams, PointId, PointInsertOperations, PointOperations,
        PointStruct, UpdateOperation,
    };
    let shard_dir = dir.join(super::SHARD_DIR);
    std::fs::create_dir_all(&shard_dir).unwrap();
    let config = EdgeConfig::builder()
        .vector(
            qdrant_edge::DEFAULT_VECTOR_NAME,
            EdgeVectorParams::builder(dimension, qdrant_edge::Distance::Cosine).build(),
        )
        .build();
    let shard = EdgeShard::new(&shard_dir, config).unwrap();
    let structs = points
        .iter()
        .map(|p| {
            PointStruct::new(
                PointId::Uuid(p.id),
                p.vector.clone(),
                serde_json::to_value(&p.payload).unwrap(),
            )
            .into()
        })
        .collect();
    shard
        .update(UpdateOperation::PointOperation(
            PointOperations::UpsertPoints(PointInsertOperations::PointsList(structs)),
        ))
        .unwrap();
    shard.flush();
    drop(shard);
    super::write_model(dir, &dir.join(MODEL_FILE), &model(dimension)).unwrap();
}

fn lexical(text: &str) -> crate::vector::LexicalSearch {
    crate::vector::LexicalSearch {
        text: text.to_owned(),
        limit: 10,
        filter: None,
    }
}

/// An index made before the lexical side opens rebuilt with it: the same
/// points, vectors and payloads, now found by their words; no rebuild
/// directory is left behind, and opening again does not rebuild.
#[tokio::test]
async fn an_index_without_a_lexical_side_is_rebuilt_with_one() {
    let dir = TempDir::new().unwrap();
    let mut points: Vec<ChunkPoint> = (0..3).map(|i| point("old", i, axis(8, i))).collect();
    points[2].payload.node_content = "The economizer damper modulates for free cooling.".into();
    write_old_index(dir.path(), 8, &points);
    {
        let index = open(dir.path(), 8);
        assert_eq!(index.count().await.unwrap(), 3);
        let hits = index.lexical(lexical("economizer damper")).await.unwrap();
        assert_eq!(hits.first().map(|h| h.payload.chunk_index), Some(2));
        assert_eq!(hits[0].vector, axis(8, 2));
        let stored = index.points_of("old", true).await.unwrap();
        for (s, p) in stored.iter().zip(&points) {
            assert_eq!((s.id, &s.payload), (p.id, &p.payload));
            assert_eq!(s.vector.as_deref(), Some(p.vector.as_slice()));
        }
    }
    for leftover in [super::SHARD_NEXT, super::SHARD_OLD] {
        assert!(!dir.path().join(leftover).exists(), "{leftover} left");
    }
    let again = open(dir.path(), 8);
    assert_eq!(again.lexical(lexical("economizer")).await.unwrap().len(), 1);
}

/// A rebuild that died between its two renames is finished on the next
/// open (the complete new shard takes the old one's place); one that died
/// while writing the new shard is thrown away, and the old shard rebuilt.
#[tokio::test]
async fn an_interrupted_lexical_rebuild_is_finished_or_redone() {
    let points: Vec<ChunkPoint> = (0..2).map(|i| point("old", i, axis(8, i))).collect();
    // Died between the renames: shard.old parked, shard.next complete.
    let dir = TempDir::new().unwrap();
    write_old_index(dir.path(), 8, &points);
    drop(open(dir.path(), 8));
    let shard = dir.path().join(super::SHARD_DIR);
    std::fs::rename(&shard, dir.path().join(super::SHARD_NEXT)).unwrap();
    std::fs::create_dir_all(dir.path().join(super::SHARD_OLD)).unwrap();
    let index = open(dir.path(), 8);
    assert_eq!(index.count().await.unwrap(), 2);
    assert_eq!(index.lexical(lexical("supply fan")).await.unwrap().len(), 2);
    drop(index);
    assert!(!dir.path().join(super::SHARD_OLD).exists());
    // Died while writing shard.next: the old shard is intact and rebuilt.
    let dir = TempDir::new().unwrap();
    write_old_index(dir.path(), 8, &points);
    std::fs::create_dir_all(dir.path().join(super::SHARD_NEXT).join("segments")).unwrap();
    let index = open(dir.path(), 8);
    assert_eq!(index.count().await.unwrap(), 2);
    assert_eq!(index.lexical(lexical("supply fan")).await.unwrap().len(), 2);
    assert!(!dir.path().join(super::SHARD_NEXT).exists());
}
