//! The vector index: chunk embeddings with their payload.
//!
//! [`VectorIndex`] is the seam between the ingest/query pipelines and the
//! engine. The default backend is Qdrant Edge ([`edge::EdgeIndex`],
//! in-process, on disk under the data dir); a Qdrant server backend plugs in
//! behind the same trait.
//!
//! Every point carries a [`ChunkPayload`] (docs/ARCHITECTURE.md § Chunk payload,
//! `schemas/chunk_payload.schema.json`). The index records the embedding
//! model id and dimension it was built with and refuses to open with another
//! model ([`VectorError::ModelMismatch`]).

pub mod contract;
pub mod edge;
pub mod lexical;
pub mod migrate;
pub mod server;

pub use edge::EdgeIndex;
pub use server::{QdrantIndex, QdrantSettings};

use std::collections::BTreeMap;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Payload fields the backends index (keyword indexes).
pub const INDEXED_FIELDS: [&str; 5] = ["graph_ids", "equip", "brick_equip", "ptags", "source_id"];

/// Errors of a vector index.
#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    /// The index was built with another embedding model or dimension.
    #[error(
        "the vector index at {location} was built with model {found_model} ({found_dimension}-d), \
         not {expected_model} ({expected_dimension}-d); re-ingest into a new data dir or delete the index"
    )]
    ModelMismatch {
        /// Where the index lives (path or URL + collection).
        location: String,
        /// Model the index was built with.
        found_model: String,
        /// Dimension the index was built with.
        found_dimension: usize,
        /// Model the server runs with.
        expected_model: String,
        /// Dimension the server runs with.
        expected_dimension: usize,
    },
    /// The backend cannot be reached (server down, disk gone): HTTP 503.
    #[error("vector index unavailable: {0}")]
    Unavailable(String),
    /// A vector of the wrong length was given.
    #[error("vector has {got} dimensions, the index has {expected}")]
    Dimension {
        /// Dimension of the index.
        expected: usize,
        /// Dimension given.
        got: usize,
    },
    /// Any other backend failure.
    #[error("vector index error: {0}")]
    Backend(String),
}

/// Result of vector index calls.
pub type VectorResult<T> = Result<T, VectorError>;

/// The model an index is built for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexModel {
    /// Embedding model id, e.g. `sentence-transformers/all-MiniLM-L6-v2`.
    pub model: String,
    /// Vector dimension.
    pub dimension: usize,
}

impl IndexModel {
    /// Refuses a vector whose length is not the index's dimension.
    pub fn check_dimension(&self, vector: &[f32]) -> VectorResult<()> {
        if vector.len() == self.dimension {
            Ok(())
        } else {
            Err(VectorError::Dimension {
                expected: self.dimension,
                got: vector.len(),
            })
        }
    }
}

/// One point as reconciliation sees it: its id and what the id was made
/// of ([`crate::ingest::document::point_id`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PointKey {
    /// The point id.
    pub id: Uuid,
    /// `source_sha` of its payload.
    pub source_sha: String,
    /// `chunk_index` of its payload.
    pub chunk_index: usize,
}

/// The map [`VectorIndex::sources`] returns, from `(point id, source_id,
/// source_sha, chunk_index)` read off each point; a point missing a field
/// is an error (shared by the backends).
pub(crate) fn group_sources(
    points: impl IntoIterator<
        Item = (
            VectorResult<Uuid>,
            Option<String>,
            Option<String>,
            Option<u64>,
        ),
    >,
) -> VectorResult<BTreeMap<String, Vec<PointKey>>> {
    let mut sources: BTreeMap<String, Vec<PointKey>> = BTreeMap::new();
    let mut n = 0usize;
    for (id, source_id, sha, chunk_index) in points {
        n += 1;
        let id = id?;
        let missing =
            |name: &str| VectorError::Backend(format!("point {id} has no {name} in its payload"));
        sources
            .entry(source_id.ok_or_else(|| missing("string source_id"))?)
            .or_default()
            .push(PointKey {
                id,
                source_sha: sha.ok_or_else(|| missing("string source_sha"))?,
                chunk_index: chunk_index
                    .and_then(|c| usize::try_from(c).ok())
                    .ok_or_else(|| missing("integer chunk_index"))?,
            });
    }
    for keys in sources.values_mut() {
        keys.sort_by_key(|k| (k.chunk_index, k.id));
    }
    tracing::debug!(points = n, sources = sources.len(), "listed sources");
    Ok(sources)
}

/// The payload of one chunk point (docs/ARCHITECTURE.md § Chunk payload).
///
/// Arrays are never null; `source_ref` is always relative.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ChunkPayload {
    /// Stable id of the source document (derived from its relative path).
    pub source_id: String,
    /// Relative path of the document, never absolute.
    pub source_ref: String,
    /// The page's label (PDF) or "1" for single-page formats.
    pub page_label: String,
    /// The chunk text.
    #[serde(rename = "_node_content")]
    pub node_content: String,
    /// Haystack equipment kinds, lower case.
    pub equip: Vec<String>,
    /// Brick equipment classes, `PascalCase_With_Underscores`.
    pub brick_equip: Vec<String>,
    /// Point tag sets, space-joined in canonical order.
    pub ptags: Vec<String>,
    /// Raw normalised tags: lower case, sorted, deduplicated.
    pub raw: Vec<String>,
    /// Mean grounding confidence, 0.0 when nothing was grounded.
    pub gconf: f64,
    /// Graph nodes the chunk links to (≥ 1 IRI).
    pub graph_ids: Vec<String>,
    /// sha256 of the document's bytes.
    pub source_sha: String,
    /// Position of the chunk in its document (0-based).
    pub chunk_index: usize,
    /// Heading path of the chunk's section.
    pub section_title: String,
    /// When the document last changed (RFC 3339).
    pub updated_at: String,
    /// Model id of the embedding.
    pub embedding_model: String,
    /// Subject domain, e.g. `hvac`.
    pub domain: String,
    /// Kind of document, e.g. `sequence_of_operations`, `manual`, `service_log`.
    pub source_type: String,
    /// Version of the document as given at ingest.
    pub doc_version: String,
}

/// One point to write.
#[derive(Debug, Clone)]
pub struct ChunkPoint {
    /// Point id (deterministic: UUIDv5 of source id, sha and chunk index).
    pub id: Uuid,
    /// The embedding (unit length).
    pub vector: Vec<f32>,
    /// The payload.
    pub payload: ChunkPayload,
}

/// `should` (match-any) conditions on the indexed payload fields. A point
/// matches when any listed value of any field is among its values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct MatchAny {
    /// Graph ids.
    pub graph_ids: Vec<String>,
    /// Haystack equipment kinds.
    pub equip: Vec<String>,
    /// Brick equipment classes.
    pub brick_equip: Vec<String>,
    /// Point tag sets.
    pub ptags: Vec<String>,
}

impl MatchAny {
    /// True when no condition is set (a search with it is vanilla).
    pub fn is_empty(&self) -> bool {
        self.graph_ids.is_empty()
            && self.equip.is_empty()
            && self.brick_equip.is_empty()
            && self.ptags.is_empty()
    }
}

/// A nearest-neighbour search.
#[derive(Debug, Clone)]
pub struct Search {
    /// Query vector.
    pub vector: Vec<f32>,
    /// Maximum number of hits.
    pub limit: usize,
    /// Match-any filter; `None` is a vanilla search.
    pub filter: Option<MatchAny>,
    /// Leave out points of this source (duplicate detection).
    pub exclude_source_id: Option<String>,
}

/// One search hit.
#[derive(Debug, Clone)]
pub struct Hit {
    /// Point id.
    pub id: Uuid,
    /// Cosine similarity.
    pub score: f32,
    /// Payload.
    pub payload: ChunkPayload,
}

/// A lexical (BM25) search over the chunks' text.
#[derive(Debug, Clone)]
pub struct LexicalSearch {
    /// The query text, tokenised by [`lexical::query`].
    pub text: String,
    /// Maximum number of hits.
    pub limit: usize,
    /// Match-any filter; `None` searches everything.
    pub filter: Option<MatchAny>,
}

/// One lexical hit, with the point's dense vector so that the caller can
/// measure it by cosine like a dense hit.
#[derive(Debug, Clone)]
pub struct LexicalHit {
    /// Point id.
    pub id: Uuid,
    /// BM25 score (IDF-weighted term-frequency sum), unbounded.
    pub bm25: f32,
    /// Payload.
    pub payload: ChunkPayload,
    /// The point's dense vector.
    pub vector: Vec<f32>,
}

/// A stored point, as listed by [`VectorIndex::points_of`].
#[derive(Debug, Clone)]
pub struct StoredPoint {
    /// Point id.
    pub id: Uuid,
    /// Payload.
    pub payload: ChunkPayload,
    /// The vector, when asked for.
    pub vector: Option<Vec<f32>>,
}

/// A vector index of chunk embeddings.
#[async_trait]
pub trait VectorIndex: Send + Sync {
    /// Backend name for /health and logs (`qdrant-edge`, `qdrant`).
    fn backend(&self) -> &'static str;

    /// The model and dimension the index was built with.
    fn model(&self) -> &IndexModel;

    /// Inserts or overwrites points, durably (flushed) when this returns;
    /// each point's lexical vector ([`lexical::document`]) is written with
    /// its dense vector and payload, in the same operation.
    async fn upsert(&self, points: Vec<ChunkPoint>) -> VectorResult<()>;

    /// Nearest neighbours by cosine similarity, best first.
    async fn search(&self, search: Search) -> VectorResult<Vec<Hit>>;

    /// Best BM25 matches of the query's terms, best first; nothing for a
    /// query with no term (stop words only).
    async fn lexical(&self, search: LexicalSearch) -> VectorResult<Vec<LexicalHit>>;

    /// All points of one source, ordered by chunk index.
    async fn points_of(
        &self,
        source_id: &str,
        with_vectors: bool,
    ) -> VectorResult<Vec<StoredPoint>>;

    /// Every source id in the index with its points' keys, ordered by
    /// chunk index (for reconciliation after a crash).
    async fn sources(&self) -> VectorResult<BTreeMap<String, Vec<PointKey>>>;

    /// Deletes points by id, durably.
    async fn delete_points(&self, ids: &[Uuid]) -> VectorResult<()>;

    /// Deletes every point of a source, durably; returns how many went.
    async fn delete_source(&self, source_id: &str) -> VectorResult<usize>;

    /// Number of points.
    async fn count(&self) -> VectorResult<usize>;
}
