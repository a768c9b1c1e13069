//! The contract every [`VectorIndex`] backend must honour, as a suite that
//! runs against any implementation.
//!
//! The embedded backend's unit tests run it always; a server backend's tests
//! run it when the server's URL is in the environment. Each run writes its
//! own sources with run-unique ids and graph ids and filters on them, so it
//! also holds against an index that already has points in it, and it
//! deletes what it wrote at the end. Counts are checked as differences, so
//! nothing else may write to the index while the suite runs.
//!
//! Vectors are synthetic unit vectors along a few axes (no embedding model);
//! the index dimension must be at least [`MIN_DIMENSION`].

use std::collections::{BTreeMap, BTreeSet};

use uuid::Uuid;

use super::{ChunkPayload, ChunkPoint, MatchAny, Search, VectorError, VectorIndex};

/// Smallest dimension the suite can build its vectors in.
pub const MIN_DIMENSION: usize = 8;

/// Tolerance on cosine scores and stored vectors.
const EPS: f32 = 1e-4;

/// Runs every check; `Err` lists each failed check with its reason.
pub async fn run(index: &dyn VectorIndex) -> Result<(), String> {
    let dim = index.model().dimension;
    if dim < MIN_DIMENSION {
        return Err(format!(
            "the contract suite needs at least {MIN_DIMENSION} dimensions, the index has {dim}"
        ));
    }
    let run = Run::new(dim);
    let results = [
        ("identity", identity(index).await),
        ("nearest_first", nearest_first(index, &run).await),
        ("vanilla_search", vanilla_search(index, &run).await),
        ("match_any_filter", match_any_filter(index, &run).await),
        ("exclude_source", exclude_source(index, &run).await),
        ("lexical", lexical(index, &run).await),
        ("points_of", points_of(index, &run).await),
        ("sources", sources(index, &run).await),
        ("overwrite", overwrite(index, &run).await),
        ("delete_points", delete_points(index, &run).await),
        ("delete_source", delete_source(index, &run).await),
        ("dimension", dimension(index, &run).await),
    ];
    let cleanup = run.cleanup(index).await;
    let failures: Vec<String> = results
        .into_iter()
        .chain([("cleanup", cleanup)])
        .filter_map(|(name, r)| r.err().map(|e| format!("{name}: {e}")))
        .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// A unit vector along axis `i` of a `dim`-d space.
pub fn axis(dim: usize, i: usize) -> Vec<f32> {
    mix(dim, &[(i, 1.0)])
}

/// The unit vector in the direction of `Σ w·e_i`.
pub fn mix(dim: usize, parts: &[(usize, f32)]) -> Vec<f32> {
    let mut v = vec![0.0; dim];
    for &(i, w) in parts {
        if let Some(x) = v.get_mut(i % dim) {
            *x += w;
        }
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// A complete payload for chunk `chunk_index` of `source_id`, with graph
/// id `urn:test:<source_id>` and no equipment or tags.
pub fn payload(source_id: &str, chunk_index: usize) -> ChunkPayload {
    ChunkPayload {
        source_id: source_id.to_owned(),
        source_ref: format!("docs/{source_id}.md"),
        page_label: "1".to_owned(),
        node_content: format!("Chunk {chunk_index} of {source_id}: supply fan 25 °C — ✓"),
        equip: Vec::new(),
        brick_equip: Vec::new(),
        ptags: Vec::new(),
        raw: vec!["ahu".to_owned(), "fan".to_owned()],
        gconf: 0.73,
        graph_ids: vec![format!("urn:test:{source_id}")],
        source_sha: format!("sha-{source_id}"),
        chunk_index,
        section_title: "Sequence > Fans".to_owned(),
        updated_at: "2025-01-02T03:04:05Z".to_owned(),
        embedding_model: "test-model".to_owned(),
        domain: "hvac".to_owned(),
        source_type: "sequence_of_operations".to_owned(),
        doc_version: "1".to_owned(),
    }
}

/// Ids and vectors unique to one run of the suite.
struct Run {
    tag: Uuid,
    dim: usize,
    sources: std::sync::Mutex<BTreeSet<String>>,
}

impl Run {
    fn new(dim: usize) -> Self {
        Self {
            tag: Uuid::new_v4(),
            dim,
            sources: std::sync::Mutex::default(),
        }
    }

    /// A source id unique to this run (remembered for clean-up).
    fn source(&self, name: &str) -> String {
        let id = format!("contract-{}-{name}", self.tag.simple());
        if let Ok(mut sources) = self.sources.lock() {
            sources.insert(id.clone());
        }
        id
    }

    /// A graph id unique to this run.
    fn graph_id(&self, name: &str) -> String {
        format!("urn:contract:{}:{name}", self.tag.simple())
    }

    fn id(&self, source_id: &str, chunk_index: usize) -> Uuid {
        Uuid::new_v5(&self.tag, format!("{source_id}/{chunk_index}").as_bytes())
    }

    fn point(&self, source_id: &str, chunk_index: usize, vector: Vec<f32>) -> ChunkPoint {
        ChunkPoint {
            id: self.id(source_id, chunk_index),
            vector,
            payload: payload(source_id, chunk_index),
        }
    }

    /// A unit vector no other run is likely to have written: every axis
    /// weighted by bytes of the run tag.
    fn random_vector(&self, salt: u8) -> Vec<f32> {
        let bytes = self.tag.as_bytes();
        let parts: Vec<(usize, f32)> = (0..self.dim)
            .map(|i| {
                let b = bytes.get(i % bytes.len()).copied().unwrap_or(1);
                (
                    i,
                    f32::from(b.wrapping_add(salt).wrapping_mul(i as u8 | 1)) + 1.0,
                )
            })
            .collect();
        mix(self.dim, &parts)
    }

    async fn cleanup(&self, index: &dyn VectorIndex) -> Result<(), String> {
        let sources: Vec<String> = match self.sources.lock() {
            Ok(s) => s.iter().cloned().collect(),
            Err(_) => return Err("source list poisoned".to_owned()),
        };
        for source in sources {
            index.delete_source(&source).await.map_err(show)?;
            let left = index.points_of(&source, false).await.map_err(show)?;
            ensure(left.is_empty(), || {
                format!("{} points of {source} left", left.len())
            })?;
        }
        Ok(())
    }
}

async fn identity(index: &dyn VectorIndex) -> Result<(), String> {
    ensure(!index.backend().is_empty(), || {
        "empty backend name".to_owned()
    })?;
    ensure(!index.model().model.is_empty(), || {
        "empty model id".to_owned()
    })
}

/// Search returns hits best first with cosine similarity as the score.
async fn nearest_first(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let d = run.dim;
    let s = run.source("nearest");
    let points = vec![
        run.point(&s, 0, axis(d, 0)),
        run.point(&s, 1, mix(d, &[(0, 1.0), (1, 1.0)])),
        run.point(&s, 2, axis(d, 1)),
        run.point(&s, 3, mix(d, &[(0, -1.0), (2, 1.0)])),
    ];
    index.upsert(points).await.map_err(show)?;
    let hits = index
        .search(Search {
            vector: axis(d, 0),
            limit: 10,
            filter: Some(MatchAny {
                graph_ids: vec![format!("urn:test:{s}")],
                ..MatchAny::default()
            }),
            exclude_source_id: None,
        })
        .await
        .map_err(show)?;
    let got: Vec<(usize, f32)> = hits
        .iter()
        .map(|h| (h.payload.chunk_index, h.score))
        .collect();
    let want = [
        (0, 1.0),
        (1, std::f32::consts::FRAC_1_SQRT_2),
        (2, 0.0),
        (3, -std::f32::consts::FRAC_1_SQRT_2),
    ];
    ensure(got.len() == want.len(), || {
        format!("expected {} hits, got {got:?}", want.len())
    })?;
    for ((chunk, score), (want_chunk, want_score)) in got.iter().zip(want) {
        ensure(
            *chunk == want_chunk && (score - want_score).abs() < EPS,
            || format!("expected chunks and scores {want:?}, got {got:?}"),
        )?;
    }
    for hit in &hits {
        ensure(hit.id == run.id(&s, hit.payload.chunk_index), || {
            format!("hit {} has the wrong id for its chunk", hit.id)
        })?;
        ensure(hit.payload == payload(&s, hit.payload.chunk_index), || {
            format!("payload of hit {} does not round-trip", hit.id)
        })?;
    }
    let limited = index
        .search(Search {
            vector: axis(d, 1),
            limit: 2,
            filter: Some(MatchAny {
                graph_ids: vec![format!("urn:test:{s}")],
                ..MatchAny::default()
            }),
            exclude_source_id: None,
        })
        .await
        .map_err(show)?;
    let chunks: Vec<usize> = limited.iter().map(|h| h.payload.chunk_index).collect();
    ensure(chunks == [2, 1], || {
        format!("limit 2 near e1: expected chunks [2, 1], got {chunks:?}")
    })
}

/// Without a filter, the exact match of a vector unique to this run comes
/// first with score 1, whatever else the index holds.
async fn vanilla_search(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let s = run.source("vanilla");
    let v = run.random_vector(7);
    index
        .upsert(vec![run.point(&s, 0, v.clone())])
        .await
        .map_err(show)?;
    let hits = index
        .search(Search {
            vector: v,
            limit: 3,
            filter: None,
            exclude_source_id: None,
        })
        .await
        .map_err(show)?;
    let first = hits.first().ok_or("no hits")?;
    ensure(
        first.id == run.id(&s, 0) && (first.score - 1.0).abs() < EPS,
        || {
            format!(
                "expected the exact match first with score 1, got {} ({})",
                first.id, first.score
            )
        },
    )?;
    ensure(hits.len() <= 3, || {
        format!("limit 3 gave {} hits", hits.len())
    })?;
    let empty = index
        .search(Search {
            vector: run.random_vector(7),
            limit: 0,
            filter: None,
            exclude_source_id: None,
        })
        .await
        .map_err(show)?;
    ensure(empty.is_empty(), || "limit 0 gave hits".to_owned())
}

/// A point matches when any listed value of any field is among its values;
/// a point matching none is left out.
async fn match_any_filter(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let d = run.dim;
    let s = run.source("filter");
    let g = |n: &str| run.graph_id(n);
    let v = |n: &str| format!("{}-{n}", run.tag.simple());
    let mut points = Vec::new();
    for i in 0..6 {
        let mut p = run.point(&s, i, mix(d, &[(0, 1.0), (i + 1, 0.1)]));
        p.payload.graph_ids = vec![g(&format!("own{i}"))];
        points.push(p);
    }
    points[0].payload.graph_ids.push(g("g1"));
    points[1].payload.equip = vec![v("ahu"), v("fan")];
    points[2].payload.brick_equip = vec![v("Supply_Fan")];
    points[3].payload.ptags = vec![v("discharge air temp sensor")];
    points[4].payload.graph_ids.extend([g("g2"), g("g3")]);
    // points[5] matches nothing.
    index.upsert(points).await.map_err(show)?;

    let search = |filter: MatchAny| Search {
        vector: axis(d, 0),
        limit: 20,
        filter: Some(filter),
        exclude_source_id: None,
    };
    let chunks = |hits: Vec<super::Hit>| -> BTreeSet<usize> {
        hits.iter().map(|h| h.payload.chunk_index).collect()
    };
    let cases = [
        (
            "one value per field",
            MatchAny {
                graph_ids: vec![g("g1")],
                equip: vec![v("fan")],
                brick_equip: vec![v("Supply_Fan")],
                ptags: vec![v("discharge air temp sensor")],
            },
            vec![0, 1, 2, 3],
        ),
        (
            "any of several values",
            MatchAny {
                graph_ids: vec![g("nothing"), g("g3")],
                ..MatchAny::default()
            },
            vec![4],
        ),
        (
            "values of other fields do not cross over",
            MatchAny {
                equip: vec![v("Supply_Fan"), g("g1")],
                ..MatchAny::default()
            },
            vec![],
        ),
        (
            "ptags match whole tag sets",
            MatchAny {
                ptags: vec![v("discharge air temp")],
                ..MatchAny::default()
            },
            vec![],
        ),
    ];
    for (name, filter, want) in cases {
        let got = chunks(index.search(search(filter)).await.map_err(show)?);
        let want: BTreeSet<usize> = want.into_iter().collect();
        ensure(got == want, || {
            format!("{name}: expected chunks {want:?}, got {got:?}")
        })?;
    }
    Ok(())
}

/// `exclude_source_id` leaves out every point of that source.
async fn exclude_source(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let d = run.dim;
    let a = run.source("exclude-a");
    let b = run.source("exclude-b");
    let shared = run.graph_id("shared");
    let mut points = Vec::new();
    for (s, n) in [(&a, 3), (&b, 2)] {
        for i in 0..n {
            let mut p = run.point(s, i, mix(d, &[(0, 1.0), (i + 1, 0.2)]));
            p.payload.graph_ids.push(shared.clone());
            points.push(p);
        }
    }
    index.upsert(points).await.map_err(show)?;
    let search = |exclude: Option<String>| Search {
        vector: axis(d, 0),
        limit: 10,
        filter: Some(MatchAny {
            graph_ids: vec![shared.clone()],
            ..MatchAny::default()
        }),
        exclude_source_id: exclude,
    };
    let all = index.search(search(None)).await.map_err(show)?;
    ensure(all.len() == 5, || {
        format!("expected 5 hits, got {}", all.len())
    })?;
    let without_a = index.search(search(Some(a.clone()))).await.map_err(show)?;
    ensure(
        without_a.len() == 2 && without_a.iter().all(|h| h.payload.source_id == b),
        || {
            format!(
                "excluding {a}: expected the 2 points of {b}, got {:?}",
                without_a
                    .iter()
                    .map(|h| &h.payload.source_id)
                    .collect::<Vec<_>>()
            )
        },
    )?;
    // Exclusion alone, without a match-any filter.
    let hits = index
        .search(Search {
            vector: mix(d, &[(0, 1.0), (1, 0.2)]),
            limit: 50,
            filter: None,
            exclude_source_id: Some(a.clone()),
        })
        .await
        .map_err(show)?;
    ensure(hits.iter().all(|h| h.payload.source_id != a), || {
        format!("a vanilla search excluding {a} returned its points")
    })
}

/// `points_of` lists one source by chunk index, vectors when asked.
async fn points_of(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let d = run.dim;
    let s = run.source("points-of");
    let other = run.source("points-of-other");
    let order = [3, 0, 4, 1, 2];
    let points: Vec<ChunkPoint> = order
        .iter()
        .map(|&i| run.point(&s, i, mix(d, &[(i, 1.0), (i + 1, 0.5)])))
        .chain([run.point(&other, 0, axis(d, 0))])
        .collect();
    index.upsert(points).await.map_err(show)?;

    let bare = index.points_of(&s, false).await.map_err(show)?;
    let chunks: Vec<usize> = bare.iter().map(|p| p.payload.chunk_index).collect();
    ensure(chunks == [0, 1, 2, 3, 4], || {
        format!("expected chunks 0..5 in order, got {chunks:?}")
    })?;
    ensure(bare.iter().all(|p| p.vector.is_none()), || {
        "vectors returned without being asked for".to_owned()
    })?;
    for p in &bare {
        let i = p.payload.chunk_index;
        ensure(p.id == run.id(&s, i), || {
            format!("chunk {i} has the wrong id")
        })?;
        ensure(p.payload == payload(&s, i), || {
            format!("payload of chunk {i} does not round-trip")
        })?;
    }

    let full = index.points_of(&s, true).await.map_err(show)?;
    ensure(full.len() == 5, || {
        format!("expected 5 points, got {}", full.len())
    })?;
    for p in &full {
        let i = p.payload.chunk_index;
        let want = mix(d, &[(i, 1.0), (i + 1, 0.5)]);
        let got = p
            .vector
            .as_ref()
            .ok_or_else(|| format!("chunk {i} without vector"))?;
        ensure(
            got.len() == d && got.iter().zip(&want).all(|(a, b)| (a - b).abs() < EPS),
            || format!("vector of chunk {i} does not round-trip"),
        )?;
    }
    let none = index
        .points_of(&run.source("absent"), false)
        .await
        .map_err(show)?;
    ensure(none.is_empty(), || "points of an absent source".to_owned())
}

/// `sources` lists every source with all its `source_sha` values.
async fn sources(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let d = run.dim;
    let a = run.source("sources-a");
    let b = run.source("sources-b");
    let mut stale = run.point(&b, 1, axis(d, 1));
    stale.payload.source_sha = "sha-old".to_owned();
    index
        .upsert(vec![
            run.point(&a, 0, axis(d, 0)),
            run.point(&a, 1, axis(d, 1)),
            run.point(&b, 0, axis(d, 2)),
            stale,
        ])
        .await
        .map_err(show)?;
    let all: BTreeMap<String, BTreeSet<String>> = index
        .sources()
        .await
        .map_err(show)?
        .into_iter()
        .map(|(source, keys)| (source, keys.into_iter().map(|k| k.source_sha).collect()))
        .collect();
    let want_a: BTreeSet<String> = [format!("sha-{a}")].into();
    let want_b: BTreeSet<String> = [format!("sha-{b}"), "sha-old".to_owned()].into();
    ensure(all.get(&a) == Some(&want_a), || {
        format!("{a}: expected {want_a:?}, got {:?}", all.get(&a))
    })?;
    ensure(all.get(&b) == Some(&want_b), || {
        format!("{b}: expected {want_b:?}, got {:?}", all.get(&b))
    })
}

/// Upserting an existing id overwrites its vector and payload.
async fn overwrite(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let d = run.dim;
    let s = run.source("overwrite");
    let before = index.count().await.map_err(show)?;
    let first = vec![run.point(&s, 0, axis(d, 0)), run.point(&s, 1, axis(d, 1))];
    index.upsert(first.clone()).await.map_err(show)?;
    index.upsert(first).await.map_err(show)?;
    let mut changed = run.point(&s, 0, axis(d, 2));
    changed.payload.section_title = "Changed".to_owned();
    changed.payload.source_sha = "sha-new".to_owned();
    index.upsert(vec![changed.clone()]).await.map_err(show)?;
    let after = index.count().await.map_err(show)?;
    ensure(after == before + 2, || {
        format!("count went from {before} to {after}, expected +2")
    })?;
    let points = index.points_of(&s, true).await.map_err(show)?;
    ensure(points.len() == 2, || {
        format!("expected 2 points, got {}", points.len())
    })?;
    let p0 = points.first().ok_or("no chunk 0")?;
    ensure(p0.payload == changed.payload, || {
        "payload of the overwritten point is the old one".to_owned()
    })?;
    let v0 = p0.vector.as_ref().ok_or("no vector")?;
    ensure(
        v0.iter()
            .zip(&changed.vector)
            .all(|(a, b)| (a - b).abs() < EPS),
        || "vector of the overwritten point is the old one".to_owned(),
    )
}

/// `delete_points` removes exactly the listed points.
async fn delete_points(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let d = run.dim;
    let s = run.source("delete-points");
    let points: Vec<ChunkPoint> = (0..4).map(|i| run.point(&s, i, axis(d, i))).collect();
    index.upsert(points).await.map_err(show)?;
    let before = index.count().await.map_err(show)?;
    index
        .delete_points(&[run.id(&s, 1), run.id(&s, 3), Uuid::new_v4()])
        .await
        .map_err(show)?;
    index.delete_points(&[]).await.map_err(show)?;
    let after = index.count().await.map_err(show)?;
    ensure(after + 2 == before, || {
        format!("count went from {before} to {after}, expected -2")
    })?;
    let left: Vec<usize> = index
        .points_of(&s, false)
        .await
        .map_err(show)?
        .iter()
        .map(|p| p.payload.chunk_index)
        .collect();
    ensure(left == [0, 2], || {
        format!("expected chunks [0, 2] left, got {left:?}")
    })?;
    let hits = index
        .search(Search {
            vector: axis(d, 1),
            limit: 10,
            filter: Some(MatchAny {
                graph_ids: vec![format!("urn:test:{s}")],
                ..MatchAny::default()
            }),
            exclude_source_id: None,
        })
        .await
        .map_err(show)?;
    ensure(hits.len() == 2, || {
        format!("search still finds {} points", hits.len())
    })
}

/// `delete_source` removes every point of one source and says how many.
async fn delete_source(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let d = run.dim;
    let s = run.source("delete-source");
    let keep = run.source("delete-source-keep");
    let points: Vec<ChunkPoint> = (0..5)
        .map(|i| run.point(&s, i, axis(d, i)))
        .chain([run.point(&keep, 0, axis(d, 0))])
        .collect();
    index.upsert(points).await.map_err(show)?;
    let before = index.count().await.map_err(show)?;
    let n = index.delete_source(&s).await.map_err(show)?;
    ensure(n == 5, || format!("delete_source returned {n}, expected 5"))?;
    let after = index.count().await.map_err(show)?;
    ensure(after + 5 == before, || {
        format!("count went from {before} to {after}, expected -5")
    })?;
    let left = index.points_of(&s, false).await.map_err(show)?;
    ensure(left.is_empty(), || format!("{} points left", left.len()))?;
    let all = index.sources().await.map_err(show)?;
    ensure(!all.contains_key(&s), || {
        "deleted source still listed".to_owned()
    })?;
    ensure(all.contains_key(&keep), || {
        "the other source went too".to_owned()
    })?;
    let again = index.delete_source(&s).await.map_err(show)?;
    ensure(again == 0, || {
        format!("second delete_source returned {again}")
    })
}

/// BM25 over the chunks' text and headings: a term only this run wrote finds
/// its chunk first with the chunk's dense vector; more of the query's terms
/// rank higher; the match-any filter applies; an overwritten chunk is found
/// by its new text only; a deleted source is gone from the lexical side too;
/// a query of stop words finds nothing.
async fn lexical(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let d = run.dim;
    let s = run.source("lexical");
    // A word no other run or document holds (letters only: the tokenizer
    // splits on digits and punctuation).
    let rare: String = run
        .tag
        .simple()
        .to_string()
        .chars()
        .map(|c| char::from(b'a' + (c.to_digit(16).unwrap_or(0) as u8)))
        .collect();
    let texts = [
        format!("The {rare} economizer damper opens during warm-up."),
        format!("The {rare} valve holds the zone heating setpoint."),
        "Supply fan status is proven by current sensor.".to_owned(),
    ];
    let mut points = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let mut p = run.point(&s, i, axis(d, i));
        p.payload.node_content = text.clone();
        p.payload.section_title = if i == 1 {
            format!("Zone {rare}glyph Mode")
        } else {
            "Sequence".to_owned()
        };
        points.push(p);
    }
    index.upsert(points).await.map_err(show)?;
    let search = |text: String, filter: Option<MatchAny>| super::LexicalSearch {
        text,
        limit: 10,
        filter,
    };
    let ours = |hits: &[super::LexicalHit]| -> Vec<usize> {
        hits.iter()
            .filter(|h| h.payload.source_id == s)
            .map(|h| h.payload.chunk_index)
            .collect()
    };
    let hits = index
        .lexical(search(format!("{rare} warm-up damper"), None))
        .await
        .map_err(show)?;
    ensure(ours(&hits).first() == Some(&0), || {
        format!(
            "{rare} warm-up damper: expected chunk 0 first, got {:?}",
            ours(&hits)
        )
    })?;
    ensure(ours(&hits).contains(&1), || {
        "the chunk holding only the rare word was not found".to_owned()
    })?;
    let first = hits.first().ok_or("no lexical hits")?;
    ensure(first.id == run.id(&s, 0) && first.bm25 > 0.0, || {
        format!("first hit {} scored {}", first.id, first.bm25)
    })?;
    ensure(
        first
            .vector
            .iter()
            .zip(axis(d, 0))
            .all(|(a, b)| (a - b).abs() < EPS),
        || "the lexical hit did not carry its dense vector".to_owned(),
    )?;
    let heading = index
        .lexical(search(format!("{rare}glyph"), None))
        .await
        .map_err(show)?;
    ensure(ours(&heading) == [1], || {
        format!(
            "a heading word should find chunk 1, got {:?}",
            ours(&heading)
        )
    })?;
    let filtered = index
        .lexical(search(
            rare.clone(),
            Some(MatchAny {
                graph_ids: vec![format!("urn:test:nobody-{}", run.tag.simple())],
                ..MatchAny::default()
            }),
        ))
        .await
        .map_err(show)?;
    ensure(ours(&filtered).is_empty(), || {
        "the filter did not apply to the lexical search".to_owned()
    })?;
    let mut changed = run.point(&s, 0, axis(d, 0));
    changed.payload.node_content = "Nothing of the kind.".to_owned();
    index.upsert(vec![changed]).await.map_err(show)?;
    let after = index
        .lexical(search(format!("{rare} economizer"), None))
        .await
        .map_err(show)?;
    ensure(!ours(&after).contains(&0), || {
        "an overwritten chunk was still found by its old text".to_owned()
    })?;
    let stop = index
        .lexical(search("the of and".to_owned(), None))
        .await
        .map_err(show)?;
    ensure(stop.is_empty(), || "stop words found chunks".to_owned())?;
    index.delete_source(&s).await.map_err(show)?;
    let gone = index.lexical(search(rare, None)).await.map_err(show)?;
    ensure(ours(&gone).is_empty(), || {
        "a deleted source was still found by the lexical search".to_owned()
    })
}

/// Vectors of the wrong length are refused with [`VectorError::Dimension`].
async fn dimension(index: &dyn VectorIndex, run: &Run) -> Result<(), String> {
    let d = run.dim;
    let s = run.source("dimension");
    let before = index.count().await.map_err(show)?;
    let mut ok = run.point(&s, 0, axis(d, 0));
    let bad = run.point(&s, 1, vec![0.5; d + 1]);
    let is_dimension = |r: Result<_, VectorError>, got: usize| matches!(r, Err(VectorError::Dimension { expected, got: g }) if expected == d && g == got);
    ok.id = run.id(&s, 0);
    let r = index.upsert(vec![ok, bad]).await;
    ensure(is_dimension(r, d + 1), || {
        "upsert of a longer vector was not a Dimension error".to_owned()
    })?;
    let after = index.count().await.map_err(show)?;
    ensure(after == before, || {
        "a batch with a bad vector was partly written".to_owned()
    })?;
    let r = index
        .search(Search {
            vector: vec![0.5; d - 1],
            limit: 3,
            filter: None,
            exclude_source_id: None,
        })
        .await
        .map(|_| ());
    ensure(is_dimension(r, d - 1), || {
        "search with a shorter vector was not a Dimension error".to_owned()
    })
}

fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if cond { Ok(()) } else { Err(msg()) }
}

fn show(e: VectorError) -> String {
    e.to_string()
}
