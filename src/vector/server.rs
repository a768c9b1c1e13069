//! A Qdrant server or cluster as the vector index, over gRPC with
//! `qdrant-client`.
//!
//! It honours the same contract as the embedded backend
//! ([`super::contract`]): the same payload, keyword indexes on the same
//! fields, the same `should` (match-any) filter with `must_not` for the
//! excluded source, and the same model check. The model id and dimension
//! live in the collection's metadata (`embedding_model`, `dimension`); a
//! collection built with another model, or with a size or distance that
//! does not fit, is refused with [`VectorError::ModelMismatch`].
//!
//! Writes wait for the server to apply them (`wait=true`) and go in batches.
//! Transient failures (unavailable, deadline exceeded, aborted, resource
//! exhausted) are retried with exponential backoff; what still fails is
//! [`VectorError::Unavailable`], which the API answers with 503.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use async_trait::async_trait;
use qdrant_client::qdrant::{
    CollectionInfo, Condition, CountPointsBuilder, CreateCollectionBuilder,
    CreateFieldIndexCollectionBuilder, DeletePointsBuilder, Distance, FieldType, Filter, Modifier,
    NamedVectors, PayloadIncludeSelector, PointId, PointStruct, PointsIdsList, Query,
    QueryPointsBuilder, RetrievedPoint, ScoredPoint, ScrollPointsBuilder,
    SparseVectorParamsBuilder, SparseVectorsConfigBuilder, UpsertPointsBuilder, Vector,
    VectorInput, VectorParamsBuilder, VectorsOutput, r#match::MatchValue, point_id::PointIdOptions,
    points_selector::PointsSelectorOneOf, vector_output::Vector as OutVector, vectors_config,
    with_payload_selector::SelectorOptions,
};
use qdrant_client::{Payload, Qdrant, QdrantError};
use uuid::Uuid;

use super::lexical::{self, SPARSE_NAME};
use super::{
    ChunkPayload, ChunkPoint, Hit, INDEXED_FIELDS, IndexModel, LexicalHit, LexicalSearch, MatchAny,
    Search, StoredPoint, VectorError, VectorIndex, VectorResult,
};

/// Collection metadata key holding the embedding model id.
pub const META_MODEL: &str = "embedding_model";
/// Collection metadata key holding the vector dimension.
pub const META_DIMENSION: &str = "dimension";
/// Page size of scrolls.
const SCROLL_PAGE: u32 = 512;

/// Where the Qdrant server is and how to talk to it.
#[derive(Clone)]
pub struct QdrantSettings {
    /// gRPC URL, e.g. `http://localhost:6334`.
    pub url: String,
    /// API key (never logged).
    pub api_key: Option<String>,
    /// Collection name.
    pub collection: String,
    /// Points per upsert request.
    pub batch: usize,
    /// Retries of a transient failure.
    pub retries: usize,
    /// Time limit of one request.
    pub timeout: Duration,
    /// Shards of a new collection (`None`: the server's default).
    pub shards: Option<u32>,
    /// Copies of each shard in a cluster (`None`: the server's default).
    pub replication: Option<u32>,
}

impl std::fmt::Debug for QdrantSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QdrantSettings")
            .field("url", &self.url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("collection", &self.collection)
            .field("batch", &self.batch)
            .field("retries", &self.retries)
            .field("timeout", &self.timeout)
            .field("shards", &self.shards)
            .field("replication", &self.replication)
            .finish()
    }
}

/// The vector index in a Qdrant server collection.
pub struct QdrantIndex {
    client: Qdrant,
    settings: QdrantSettings,
    model: IndexModel,
    location: String,
}

impl std::fmt::Debug for QdrantIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QdrantIndex")
            .field("location", &self.location)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

type Attempt = crate::retry::Attempt<VectorError>;

fn attempt(e: QdrantError, what: &str) -> Attempt {
    use tonic::Code;
    let (transient, detail) = match &e {
        QdrantError::ResponseError { status } => {
            let message = status.message();
            // The client's channel pool reports a refused or broken
            // connection as Internal ("Failed to connect to …").
            let connection = matches!(status.code(), Code::Internal | Code::Unknown)
                && (message.contains("connect") || message.contains("transport"));
            (
                connection
                    || matches!(
                        status.code(),
                        Code::Unavailable
                            | Code::DeadlineExceeded
                            | Code::Aborted
                            | Code::ResourceExhausted
                    ),
                format!("{:?}: {message}", status.code()),
            )
        }
        QdrantError::ResourceExhaustedError { .. } => (true, e.to_string()),
        _ => (false, e.to_string()),
    };
    let error = if transient {
        VectorError::Unavailable(format!("{what}: {detail}"))
    } else {
        VectorError::Backend(format!("{what}: {detail}"))
    };
    Attempt { transient, error }
}

impl QdrantIndex {
    /// Connects, creates the collection (with its payload indexes and
    /// model metadata) when it does not exist, or checks that the one there
    /// was built with `model`.
    pub async fn open(settings: QdrantSettings, model: IndexModel) -> VectorResult<Self> {
        if model.dimension == 0 {
            return Err(VectorError::Backend(format!(
                "model {} has dimension 0",
                model.model
            )));
        }
        let client = Qdrant::from_url(&settings.url)
            .api_key(settings.api_key.clone())
            .timeout(settings.timeout)
            .connect_timeout(Duration::from_secs(5))
            .skip_compatibility_check()
            .build()
            .map_err(|e| VectorError::Backend(format!("qdrant url {}: {e}", settings.url)))?;
        let location = format!("{} collection {}", settings.url, settings.collection);
        let index = Self {
            client,
            settings,
            model,
            location,
        };
        let version = index
            .retry("health check", || async {
                index.client.health_check().await
            })
            .await?
            .version;
        let exists = index
            .retry("collection_exists", || async {
                index
                    .client
                    .collection_exists(&index.settings.collection)
                    .await
            })
            .await?;
        if exists {
            index.check_collection().await?;
            tracing::info!(
                location = %index.location,
                server_version = %version,
                model = %index.model.model,
                "opened qdrant collection"
            );
        } else {
            index.create_collection().await?;
            tracing::info!(
                location = %index.location,
                server_version = %version,
                model = %index.model.model,
                dimension = index.model.dimension,
                "created qdrant collection"
            );
        }
        index.ensure_payload_indexes().await?;
        Ok(index)
    }

    /// Deletes the whole collection (tests and operators; the index is
    /// unusable afterwards).
    pub async fn delete_collection(&self) -> VectorResult<()> {
        self.retry("delete_collection", || async {
            self.client
                .delete_collection(&self.settings.collection)
                .await
        })
        .await?;
        tracing::info!(location = %self.location, "deleted qdrant collection");
        Ok(())
    }

    /// Where the index lives (URL and collection).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Runs `call`, retrying transient failures.
    async fn retry<T, F, Fut>(&self, what: &'static str, call: F) -> VectorResult<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, QdrantError>>,
    {
        let mut call = call;
        crate::retry::retrying(self.settings.retries, what, || {
            let fut = call();
            async move { fut.await.map_err(|e| attempt(e, what)) }
        })
        .await
    }

    async fn create_collection(&self) -> VectorResult<()> {
        let metadata: HashMap<String, serde_json::Value> = HashMap::from([
            (META_MODEL.to_owned(), self.model.model.clone().into()),
            (META_DIMENSION.to_owned(), self.model.dimension.into()),
        ]);
        let created = self
            .retry("create_collection", || async {
                let mut sparse = SparseVectorsConfigBuilder::default();
                sparse.add_named_vector_params(
                    SPARSE_NAME,
                    SparseVectorParamsBuilder::default().modifier(Modifier::Idf),
                );
                let mut create = CreateCollectionBuilder::new(&self.settings.collection)
                    .vectors_config(VectorParamsBuilder::new(
                        self.model.dimension as u64,
                        Distance::Cosine,
                    ))
                    .sparse_vectors_config(sparse)
                    .metadata(metadata.clone());
                if let Some(n) = self.settings.shards {
                    create = create.shard_number(n);
                }
                if let Some(n) = self.settings.replication {
                    create = create.replication_factor(n);
                }
                self.client.create_collection(create).await
            })
            .await;
        match created {
            Ok(_) => Ok(()),
            // Another instance created it first: check what it made.
            Err(e) if e.to_string().contains("already exists") => self.check_collection().await,
            Err(e) => Err(e),
        }
    }

    async fn collection_info(&self) -> VectorResult<CollectionInfo> {
        self.retry("collection_info", || async {
            self.client.collection_info(&self.settings.collection).await
        })
        .await?
        .result
        .ok_or_else(|| self.backend_error("the server returned no collection info"))
    }

    async fn check_collection(&self) -> VectorResult<()> {
        let info = self.collection_info().await?;
        let config = info
            .config
            .ok_or_else(|| self.backend_error("the collection has no config"))?;
        let found_model = config
            .metadata
            .get(META_MODEL)
            .and_then(|v| v.as_str().map(|s| s.to_string()));
        let lexical = config
            .params
            .as_ref()
            .and_then(|p| p.sparse_vectors_config.as_ref())
            .and_then(|s| s.map.get(SPARSE_NAME))
            .map(|p| p.modifier == Some(Modifier::Idf as i32));
        let params = config
            .params
            .and_then(|p| p.vectors_config)
            .and_then(|v| v.config);
        let (size, distance) = match params {
            Some(vectors_config::Config::Params(p)) => (p.size as usize, p.distance),
            _ => {
                return Err(self.backend_error(
                    "the collection has named vectors; DaemonIQ needs one unnamed vector",
                ));
            }
        };
        let Some(found_model) = found_model else {
            return Err(self.backend_error(&format!(
                "the collection has no {META_MODEL} in its metadata: it was not made by \
                 DaemonIQ; use another --qdrant-collection"
            )));
        };
        if found_model != self.model.model || size != self.model.dimension {
            return Err(VectorError::ModelMismatch {
                location: self.location.clone(),
                found_model,
                found_dimension: size,
                expected_model: self.model.model.clone(),
                expected_dimension: self.model.dimension,
            });
        }
        if distance != Distance::Cosine as i32 {
            return Err(self.backend_error("the collection does not use cosine distance"));
        }
        match lexical {
            Some(true) => Ok(()),
            Some(false) => Err(self.backend_error(&format!(
                "the collection's sparse vector {SPARSE_NAME} has no IDF modifier: it cannot \
                 serve BM25; use another --qdrant-collection"
            ))),
            None => Err(self.backend_error(&format!(
                "the collection has no lexical (BM25) sparse vector {SPARSE_NAME}: it was made \
                 by an older DaemonIQ; copy the embedded index into a new collection with \
                 `daemoniq migrate --to-qdrant` and another --qdrant-collection, or re-ingest"
            ))),
        }
    }

    async fn ensure_payload_indexes(&self) -> VectorResult<()> {
        let info = self.collection_info().await?;
        for field in INDEXED_FIELDS {
            if info.payload_schema.contains_key(field) {
                continue;
            }
            self.retry("create_field_index", || async {
                self.client
                    .create_field_index(
                        CreateFieldIndexCollectionBuilder::new(
                            &self.settings.collection,
                            field,
                            FieldType::Keyword,
                        )
                        .wait(true),
                    )
                    .await
            })
            .await?;
            tracing::debug!(field, "created keyword payload index");
        }
        Ok(())
    }

    /// Deletes the points `selector` picks (ids or a filter), waiting for
    /// the server to apply it.
    async fn delete(&self, selector: impl Into<PointsSelectorOneOf> + Clone) -> VectorResult<()> {
        self.retry("delete_points", || async {
            self.client
                .delete_points(
                    DeletePointsBuilder::new(&self.settings.collection)
                        .points(selector.clone())
                        .wait(true),
                )
                .await
        })
        .await?;
        Ok(())
    }

    /// The `limit` points nearest `query` in the vector `using` (the
    /// unnamed dense one when `None`), with their payloads, and their
    /// vectors when `with_vectors`.
    async fn nearest(
        &self,
        query: VectorInput,
        using: Option<&str>,
        filter: Option<Filter>,
        limit: usize,
        with_vectors: bool,
    ) -> VectorResult<Vec<ScoredPoint>> {
        let mut request = QueryPointsBuilder::new(&self.settings.collection)
            .query(Query::new_nearest(query))
            .limit(limit as u64)
            .with_payload(true)
            .with_vectors(with_vectors);
        if let Some(using) = using {
            request = request.using(using);
        }
        if let Some(f) = filter {
            request = request.filter(f);
        }
        Ok(self
            .retry("query", || async {
                self.client.query(request.clone()).await
            })
            .await?
            .result)
    }

    fn backend_error(&self, msg: &str) -> VectorError {
        VectorError::Backend(format!("{}: {msg}", self.location))
    }

    /// Every point matching `filter`, page by page.
    async fn scroll_all(
        &self,
        filter: Option<Filter>,
        payload: SelectorOptions,
        with_vectors: bool,
    ) -> VectorResult<Vec<RetrievedPoint>> {
        let mut out = Vec::new();
        let mut offset: Option<PointId> = None;
        loop {
            let mut request = ScrollPointsBuilder::new(&self.settings.collection)
                .limit(SCROLL_PAGE)
                .with_payload(payload.clone())
                .with_vectors(with_vectors);
            if let Some(f) = &filter {
                request = request.filter(f.clone());
            }
            if let Some(o) = &offset {
                request = request.offset(o.clone());
            }
            let page = self
                .retry("scroll", || async {
                    self.client.scroll(request.clone()).await
                })
                .await?;
            out.extend(page.result);
            match page.next_page_offset {
                Some(next) => offset = Some(next),
                None => break,
            }
        }
        Ok(out)
    }
}

fn keyword(field: &str, value: &str) -> Condition {
    // `Condition::matches` with a String would turn a value with spaces into
    // a full-text match; these fields are keywords.
    Condition::matches(field, MatchValue::Keyword(value.to_owned()))
}

fn search_filter(any: Option<&MatchAny>, exclude_source_id: Option<&str>) -> Option<Filter> {
    let mut should = Vec::new();
    if let Some(any) = any {
        for (field, values) in [
            ("graph_ids", &any.graph_ids),
            ("equip", &any.equip),
            ("brick_equip", &any.brick_equip),
            ("ptags", &any.ptags),
        ] {
            if !values.is_empty() {
                should.push(Condition::matches(field, values.clone()));
            }
        }
    }
    let must_not: Vec<Condition> = exclude_source_id
        .map(|s| vec![keyword("source_id", s)])
        .unwrap_or_default();
    if should.is_empty() && must_not.is_empty() {
        return None;
    }
    Some(Filter {
        should,
        must_not,
        ..Filter::default()
    })
}

fn uuid_of(id: Option<PointId>) -> VectorResult<Uuid> {
    match id.and_then(|p| p.point_id_options) {
        Some(PointIdOptions::Uuid(s)) => Uuid::parse_str(&s)
            .map_err(|e| VectorError::Backend(format!("point id {s} is not a UUID: {e}"))),
        Some(PointIdOptions::Num(n)) => Err(VectorError::Backend(format!(
            "point id {n} is numeric; DaemonIQ writes UUIDs (is the collection shared?)"
        ))),
        None => Err(VectorError::Backend(
            "a point came back without an id".into(),
        )),
    }
}

fn chunk_payload(
    id: &Uuid,
    payload: HashMap<String, qdrant_client::qdrant::Value>,
) -> VectorResult<ChunkPayload> {
    let json = serde_json::Value::from(Payload::from(payload));
    serde_json::from_value(json).map_err(|e| {
        VectorError::Backend(format!(
            "the payload of point {id} does not fit the chunk payload contract: {e}"
        ))
    })
}

fn point_struct(point: ChunkPoint) -> VectorResult<PointStruct> {
    let json = serde_json::to_value(&point.payload).map_err(|e| {
        VectorError::Backend(format!("cannot serialise the payload of {}: {e}", point.id))
    })?;
    let payload = Payload::try_from(json).map_err(|e| {
        VectorError::Backend(format!("the payload of {} is not an object: {e}", point.id))
    })?;
    let terms = lexical::document(&point.payload);
    let mut vectors = NamedVectors::default().add_vector("", Vector::new_dense(point.vector));
    if !terms.is_empty() {
        vectors = vectors.add_vector(SPARSE_NAME, Vector::new_sparse(terms.indices, terms.values));
    }
    Ok(PointStruct::new(point.id.to_string(), vectors, payload))
}

/// The dense (unnamed) vector of a point: alone when the server sends only
/// it, under the empty name beside the sparse one otherwise.
fn dense_of(id: &Uuid, vectors: Option<VectorsOutput>) -> VectorResult<Vec<f32>> {
    match vectors.and_then(|v| v.get_vector_by_name("")) {
        Some(OutVector::Dense(d)) => Ok(d.data),
        _ => Err(VectorError::Backend(format!(
            "point {id} came back without its dense vector"
        ))),
    }
}

fn point_ids(ids: &[Uuid]) -> Vec<PointId> {
    ids.iter().map(|id| PointId::from(id.to_string())).collect()
}

#[async_trait]
impl VectorIndex for QdrantIndex {
    fn backend(&self) -> &'static str {
        "qdrant"
    }

    fn model(&self) -> &IndexModel {
        &self.model
    }

    async fn upsert(&self, points: Vec<ChunkPoint>) -> VectorResult<()> {
        if points.is_empty() {
            return Ok(());
        }
        for p in &points {
            self.model.check_dimension(&p.vector)?;
        }
        let n = points.len();
        let structs = points
            .into_iter()
            .map(point_struct)
            .collect::<VectorResult<Vec<_>>>()?;
        for batch in structs.chunks(self.settings.batch.max(1)) {
            self.retry("upsert", || async {
                self.client
                    .upsert_points(
                        UpsertPointsBuilder::new(&self.settings.collection, batch.to_vec())
                            .wait(true),
                    )
                    .await
            })
            .await?;
        }
        tracing::debug!(points = n, "upserted points");
        Ok(())
    }

    async fn search(&self, search: Search) -> VectorResult<Vec<Hit>> {
        self.model.check_dimension(&search.vector)?;
        if search.limit == 0 {
            return Ok(Vec::new());
        }
        let filter = search_filter(search.filter.as_ref(), search.exclude_source_id.as_deref());
        let filtered = filter.is_some();
        let hits = self
            .nearest(
                VectorInput::new_dense(search.vector),
                None,
                filter,
                search.limit,
                false,
            )
            .await?
            .into_iter()
            .map(|p| {
                let id = uuid_of(p.id)?;
                Ok(Hit {
                    id,
                    score: p.score,
                    payload: chunk_payload(&id, p.payload)?,
                })
            })
            .collect::<VectorResult<Vec<_>>>()?;
        tracing::debug!(
            limit = search.limit,
            filtered,
            hits = hits.len(),
            "searched vector index"
        );
        Ok(hits)
    }

    async fn lexical(&self, search: LexicalSearch) -> VectorResult<Vec<LexicalHit>> {
        let terms = lexical::query(&search.text);
        if terms.is_empty() || search.limit == 0 {
            return Ok(Vec::new());
        }
        let hits = self
            .nearest(
                VectorInput::new_sparse(terms.indices, terms.values),
                Some(SPARSE_NAME),
                search_filter(search.filter.as_ref(), None),
                search.limit,
                true,
            )
            .await?
            .into_iter()
            .map(|p| {
                let id = uuid_of(p.id)?;
                Ok(LexicalHit {
                    id,
                    bm25: p.score,
                    vector: dense_of(&id, p.vectors)?,
                    payload: chunk_payload(&id, p.payload)?,
                })
            })
            .collect::<VectorResult<Vec<_>>>()?;
        tracing::debug!(
            limit = search.limit,
            hits = hits.len(),
            "searched lexical index"
        );
        Ok(hits)
    }

    async fn points_of(
        &self,
        source_id: &str,
        with_vectors: bool,
    ) -> VectorResult<Vec<StoredPoint>> {
        let filter = Filter::must([keyword("source_id", source_id)]);
        let records = self
            .scroll_all(Some(filter), SelectorOptions::Enable(true), with_vectors)
            .await?;
        let mut points = records
            .into_iter()
            .map(|r| {
                let id = uuid_of(r.id)?;
                let vector = if with_vectors {
                    Some(dense_of(&id, r.vectors)?)
                } else {
                    None
                };
                Ok(StoredPoint {
                    id,
                    payload: chunk_payload(&id, r.payload)?,
                    vector,
                })
            })
            .collect::<VectorResult<Vec<_>>>()?;
        points.sort_by_key(|p| (p.payload.chunk_index, p.id));
        tracing::debug!(source_id, points = points.len(), "listed points of source");
        Ok(points)
    }

    async fn sources(&self) -> VectorResult<BTreeMap<String, Vec<super::PointKey>>> {
        let fields = SelectorOptions::Include(PayloadIncludeSelector {
            fields: vec![
                "source_id".into(),
                "source_sha".into(),
                "chunk_index".into(),
            ],
        });
        let records = self.scroll_all(None, fields, false).await?;
        super::group_sources(records.into_iter().map(|record| {
            let field = |name: &str| record.payload.get(name);
            let text = |name: &str| field(name).and_then(|v| v.as_str()).cloned();
            (
                uuid_of(record.id.clone()),
                text("source_id"),
                text("source_sha"),
                field("chunk_index")
                    .and_then(|v| v.as_integer())
                    .and_then(|i| u64::try_from(i).ok()),
            )
        }))
    }

    async fn delete_points(&self, ids: &[Uuid]) -> VectorResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        for batch in ids.chunks(self.settings.batch.max(1)) {
            self.delete(PointsIdsList {
                ids: point_ids(batch),
            })
            .await?;
        }
        tracing::debug!(points = ids.len(), "deleted points");
        Ok(())
    }

    async fn delete_source(&self, source_id: &str) -> VectorResult<usize> {
        let filter = Filter::must([keyword("source_id", source_id)]);
        let n = self
            .retry("count", || async {
                self.client
                    .count(
                        CountPointsBuilder::new(&self.settings.collection)
                            .filter(filter.clone())
                            .exact(true),
                    )
                    .await
            })
            .await?
            .result
            .map_or(0, |c| c.count as usize);
        if n > 0 {
            self.delete(filter).await?;
        }
        tracing::debug!(source_id, points = n, "deleted source");
        Ok(n)
    }

    async fn count(&self) -> VectorResult<usize> {
        Ok(self
            .retry("count", || async {
                self.client
                    .count(CountPointsBuilder::new(&self.settings.collection).exact(true))
                    .await
            })
            .await?
            .result
            .map_or(0, |c| c.count as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qdrant_client::qdrant::condition::ConditionOneOf;

    #[test]
    fn filter_is_match_any_with_excluded_source() {
        let any = MatchAny {
            graph_ids: vec!["urn:a".into()],
            ptags: vec!["discharge air temp sensor".into()],
            ..MatchAny::default()
        };
        let f = search_filter(Some(&any), Some("doc one")).unwrap();
        assert_eq!(f.should.len(), 2);
        assert!(f.must.is_empty());
        // The excluded source is a keyword match even with a space in it.
        match &f.must_not[0].condition_one_of {
            Some(ConditionOneOf::Field(field)) => {
                assert_eq!(field.key, "source_id");
                let m = field.r#match.as_ref().and_then(|m| m.match_value.clone());
                assert_eq!(m, Some(MatchValue::Keyword("doc one".into())));
            }
            other => panic!("unexpected condition {other:?}"),
        }
        assert!(search_filter(Some(&MatchAny::default()), None).is_none());
    }

    #[test]
    fn settings_debug_hides_the_api_key() {
        let s = QdrantSettings {
            url: "http://localhost:6334".into(),
            api_key: Some("top-secret".into()),
            collection: "c".into(),
            batch: 64,
            retries: 3,
            timeout: Duration::from_secs(10),
            shards: None,
            replication: None,
        };
        assert!(!format!("{s:?}").contains("top-secret"));
    }

    #[test]
    fn payload_round_trips_through_qdrant_values() {
        let payload = crate::vector::contract::payload("src", 3);
        let point = ChunkPoint {
            id: Uuid::new_v4(),
            vector: vec![0.0; 8],
            payload: payload.clone(),
        };
        let id = point.id;
        let s = point_struct(point).unwrap();
        assert_eq!(chunk_payload(&id, s.payload).unwrap(), payload);
    }
}
