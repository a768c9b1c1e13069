//! Qdrant Edge in the process: the default vector index, on disk under the
//! data dir.
//!
//! Layout of the index directory:
//!
//! ```text
//! <dir>/index_model.json   model id and dimension, written last at creation
//! <dir>/shard/             the qdrant-edge shard (segments, WAL, config)
//! <dir>/.lock              held (flock) while an `EdgeIndex` is open
//! ```
//!
//! qdrant-edge 0.7.2 is synchronous, so every call runs on tokio's blocking
//! pool. Two of its properties shape this module:
//!
//! * `EdgeShard::load` does not replay the WAL, so a write is only durable
//!   once the segments are flushed: every write flushes before returning.
//! * `EdgeShard::flush` panics if the WAL or segment lock is taken by a
//!   concurrent update, so the shard sits behind a [`RwLock`]: searches and
//!   scrolls share it, and an update holds it exclusively with its flush.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use qdrant_edge::{
    Condition, CountRequest, CreateIndex, DEFAULT_VECTOR_NAME, Distance, EdgeConfig, EdgeShard,
    EdgeSparseVectorParams, EdgeVectorParams, FieldCondition, FieldIndexOperations, Filter,
    JsonPath, Match, Modifier, NamedQuery, Payload, PayloadFieldSchema, PayloadSchemaType, PointId,
    PointInsertOperations, PointOperations, PointStruct, PointStructPersisted, QueryEnum, Record,
    ScoredPoint, ScrollRequest, SearchRequest, SparseVector, UpdateOperation, Vector,
    VectorInternal, VectorStructInternal, Vectors, WalOptions, WithPayloadInterface, WithVector,
};
use uuid::Uuid;

use super::lexical::{self, SPARSE_NAME};
use super::{
    ChunkPayload, ChunkPoint, Hit, INDEXED_FIELDS, IndexModel, LexicalHit, LexicalSearch, MatchAny,
    Search, StoredPoint, VectorError, VectorIndex, VectorResult,
};

/// Name of the file recording the model the index was built with.
pub const MODEL_FILE: &str = "index_model.json";
/// Directory of the shard inside the index directory.
const SHARD_DIR: &str = "shard";
/// Where an index made before the lexical side is rebuilt with it.
const SHARD_NEXT: &str = "shard.next";
/// Where the old shard waits while the rebuilt one takes its place.
const SHARD_OLD: &str = "shard.old";
/// Lock file held while the index is open.
const LOCK_FILE: &str = ".lock";
/// Written by qdrant-edge when a shard is created.
const EDGE_CONFIG_FILE: &str = "edge_config.json";
/// WAL segment size. 0.7.2 never truncates its WAL and preallocates each
/// segment, so the default 32 MiB would be mostly empty files.
const WAL_SEGMENT_CAPACITY: usize = 1 << 20;
/// Page size for scrolls.
const SCROLL_PAGE: usize = 512;

/// The qdrant-edge vector index.
///
/// Cheap to share behind an `Arc<dyn VectorIndex>`; calls from many tasks
/// are serialised only where qdrant-edge needs it (writes and their flush).
pub struct EdgeIndex {
    inner: Arc<RwLock<Inner>>,
    model: IndexModel,
    location: PathBuf,
}

/// The shard and the lock file, dropped together (the shard first: its
/// `Drop` flushes, then the lock is released).
struct Inner {
    shard: EdgeShard,
    _lock: File,
}

impl std::fmt::Debug for EdgeIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EdgeIndex")
            .field("location", &self.location)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl EdgeIndex {
    /// Opens the index in `dir`, creating it for `model` when absent.
    ///
    /// Creation makes a `model.dimension`-d cosine shard with vectors and
    /// payload on disk and keyword indexes on [`INDEXED_FIELDS`], then
    /// records the model in `index_model.json`. Opening an index built with
    /// another model id or dimension fails with
    /// [`VectorError::ModelMismatch`]; an index already open (in this or
    /// another process) fails with [`VectorError::Unavailable`].
    ///
    /// Blocks on file I/O: call it at start-up or from `spawn_blocking`.
    pub fn open(dir: &Path, model: IndexModel) -> VectorResult<Self> {
        if model.dimension == 0 {
            return Err(VectorError::Backend(format!(
                "model {} has dimension 0",
                model.model
            )));
        }
        fs::create_dir_all(dir).map_err(|e| io_unavailable("cannot create", dir, &e))?;
        let lock = lock_dir(dir)?;
        let shard_dir = dir.join(SHARD_DIR);
        let model_file = dir.join(MODEL_FILE);

        let shard = match read_model(&model_file)? {
            Some(found) => {
                if found != model {
                    return Err(mismatch(dir, &found, &model));
                }
                finish_swap(dir, &shard_dir)?;
                if !shard_dir.join(EDGE_CONFIG_FILE).is_file() {
                    return Err(VectorError::Unavailable(format!(
                        "{} records model {} but the shard in {} is missing; \
                         delete the index directory and re-ingest",
                        model_file.display(),
                        model.model,
                        shard_dir.display()
                    )));
                }
                let shard = EdgeShard::load(&shard_dir, None).map_err(|e| {
                    VectorError::Unavailable(format!(
                        "cannot load the vector index in {}: {e}",
                        shard_dir.display()
                    ))
                })?;
                check_shard_dimension(&shard, dir, &model)?;
                let shard = if shard.config().sparse_vectors.contains_key(SPARSE_NAME) {
                    shard
                } else {
                    add_lexical(dir, shard, model.dimension)?
                };
                tracing::info!(
                    path = %dir.display(),
                    model = %model.model,
                    dimension = model.dimension,
                    "opened qdrant-edge vector index"
                );
                shard
            }
            None => {
                let shard = create_shard(&shard_dir, model.dimension)?;
                write_model(dir, &model_file, &model)?;
                tracing::info!(
                    path = %dir.display(),
                    model = %model.model,
                    dimension = model.dimension,
                    "created qdrant-edge vector index"
                );
                shard
            }
        };

        Ok(Self {
            inner: Arc::new(RwLock::new(Inner { shard, _lock: lock })),
            model,
            location: dir.to_path_buf(),
        })
    }

    /// The model an index directory was built with, or `None` when no
    /// index was ever created there (read without opening the index).
    pub fn recorded_model(dir: &Path) -> VectorResult<Option<IndexModel>> {
        read_model(&dir.join(MODEL_FILE))
    }

    /// The index directory.
    pub fn location(&self) -> &Path {
        &self.location
    }

    /// Runs `f` on the shard under the shared lock, on the blocking pool.
    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&EdgeShard) -> VectorResult<T> + Send + 'static,
    ) -> VectorResult<T> {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || {
            let guard = inner.read().map_err(|_| poisoned())?;
            f(&guard.shard)
        })
        .await
        .map_err(task_failed)?
    }

    /// Runs `f` on the shard under the exclusive lock, on the blocking
    /// pool, then flushes so the write survives a crash.
    /// The `limit` points nearest `query` in the vector `using` (the dense
    /// one when `None`), with their payloads and the vectors `with_vector`
    /// names.
    async fn nearest(
        &self,
        query: VectorInternal,
        using: Option<&str>,
        filter: Option<Filter>,
        limit: usize,
        with_vector: WithVector,
    ) -> VectorResult<Vec<ScoredPoint>> {
        let request = SearchRequest {
            query: QueryEnum::Nearest(NamedQuery {
                query,
                using: using.map(str::to_owned),
            }),
            filter,
            params: None,
            limit,
            offset: 0,
            with_payload: Some(WithPayloadInterface::Bool(true)),
            with_vector: Some(with_vector),
            score_threshold: None,
        };
        self.read(move |shard| shard.search(request).map_err(backend))
            .await
    }

    async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&EdgeShard) -> VectorResult<T> + Send + 'static,
    ) -> VectorResult<T> {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || {
            let guard = inner.write().map_err(|_| poisoned())?;
            let out = f(&guard.shard);
            // Flush even after a failed operation: part of it may have been
            // applied to the segments.
            guard.shard.flush();
            out
        })
        .await
        .map_err(task_failed)?
    }
}

#[async_trait]
impl VectorIndex for EdgeIndex {
    fn backend(&self) -> &'static str {
        "qdrant-edge"
    }

    fn model(&self) -> &IndexModel {
        &self.model
    }

    async fn upsert(&self, points: Vec<ChunkPoint>) -> VectorResult<()> {
        if points.is_empty() {
            return Ok(());
        }
        let mut structs = Vec::with_capacity(points.len());
        for point in points {
            self.model.check_dimension(&point.vector)?;
            structs.push(point_struct(point.id, point.vector, &point.payload)?.into());
        }
        let n = structs.len();
        self.write(move |shard| upsert_points(shard, structs))
            .await?;
        tracing::debug!(points = n, "upserted points");
        Ok(())
    }

    async fn search(&self, search: Search) -> VectorResult<Vec<Hit>> {
        self.model.check_dimension(&search.vector)?;
        if search.limit == 0 {
            return Ok(Vec::new());
        }
        let filter = search_filter(search.filter.as_ref(), search.exclude_source_id.as_deref())?;
        let filtered = filter.is_some();
        let limit = search.limit;
        let scored = self
            .nearest(
                VectorInternal::Dense(search.vector),
                None,
                filter,
                limit,
                WithVector::Bool(false),
            )
            .await?;
        let hits = scored
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
        tracing::debug!(limit, filtered, hits = hits.len(), "searched vector index");
        Ok(hits)
    }

    async fn lexical(&self, search: LexicalSearch) -> VectorResult<Vec<LexicalHit>> {
        let terms = lexical::query(&search.text);
        if terms.is_empty() || search.limit == 0 {
            return Ok(Vec::new());
        }
        let filter = search_filter(search.filter.as_ref(), None)?;
        let limit = search.limit;
        let scored = self
            .nearest(
                VectorInternal::Sparse(SparseVector {
                    indices: terms.indices,
                    values: terms.values,
                }),
                Some(SPARSE_NAME),
                filter,
                limit,
                WithVector::Selector(vec![DEFAULT_VECTOR_NAME.to_owned()]),
            )
            .await?;
        let hits = scored
            .into_iter()
            .map(|p| {
                let id = uuid_of(p.id)?;
                Ok(LexicalHit {
                    id,
                    bm25: p.score,
                    payload: chunk_payload(&id, p.payload)?,
                    vector: dense_vector(&id, p.vector)?,
                })
            })
            .collect::<VectorResult<Vec<_>>>()?;
        tracing::debug!(limit, hits = hits.len(), "searched lexical index");
        Ok(hits)
    }

    async fn points_of(
        &self,
        source_id: &str,
        with_vectors: bool,
    ) -> VectorResult<Vec<StoredPoint>> {
        let filter = Filter::new_must(match_value("source_id", source_id)?);
        let records = self
            .read(move |shard| {
                scroll_all(
                    shard,
                    Some(filter),
                    WithPayloadInterface::Bool(true),
                    with_vectors,
                )
            })
            .await?;
        let mut points = records
            .into_iter()
            .map(|r| {
                let id = uuid_of(r.id)?;
                Ok(StoredPoint {
                    id,
                    payload: chunk_payload(&id, r.payload)?,
                    vector: if with_vectors {
                        Some(dense_vector(&id, r.vector)?)
                    } else {
                        None
                    },
                })
            })
            .collect::<VectorResult<Vec<_>>>()?;
        points.sort_by_key(|p| (p.payload.chunk_index, p.id));
        tracing::debug!(source_id, points = points.len(), "listed points of source");
        Ok(points)
    }

    async fn sources(&self) -> VectorResult<BTreeMap<String, Vec<super::PointKey>>> {
        let fields = vec![
            json_path("source_id")?,
            json_path("source_sha")?,
            json_path("chunk_index")?,
        ];
        let records = self
            .read(move |shard| scroll_all(shard, None, WithPayloadInterface::Fields(fields), false))
            .await?;
        super::group_sources(records.iter().map(|record| {
            let payload = record.payload.as_ref().map(|p| &p.0);
            let field = |name: &str| payload.and_then(|p| p.get(name));
            (
                uuid_of(record.id),
                field("source_id")
                    .and_then(|v| v.as_str())
                    .map(str::to_owned),
                field("source_sha")
                    .and_then(|v| v.as_str())
                    .map(str::to_owned),
                field("chunk_index").and_then(serde_json::Value::as_u64),
            )
        }))
    }

    async fn delete_points(&self, ids: &[Uuid]) -> VectorResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<PointId> = ids.iter().copied().map(PointId::Uuid).collect();
        let n = ids.len();
        self.write(move |shard| {
            shard
                .update(UpdateOperation::PointOperation(
                    PointOperations::DeletePoints { ids },
                ))
                .map_err(backend)
        })
        .await?;
        tracing::debug!(points = n, "deleted points");
        Ok(())
    }

    async fn delete_source(&self, source_id: &str) -> VectorResult<usize> {
        let filter = Filter::new_must(match_value("source_id", source_id)?);
        let deleted = self
            .write(move |shard| {
                // Counted under the same exclusive lock, so the number is
                // exactly what the delete removes.
                let n = shard
                    .count(CountRequest {
                        filter: Some(filter.clone()),
                        exact: true,
                    })
                    .map_err(backend)?;
                if n > 0 {
                    shard
                        .update(UpdateOperation::PointOperation(
                            PointOperations::DeletePointsByFilter(filter),
                        ))
                        .map_err(backend)?;
                }
                Ok(n)
            })
            .await?;
        tracing::debug!(source_id, points = deleted, "deleted source");
        Ok(deleted)
    }

    async fn count(&self) -> VectorResult<usize> {
        self.read(|shard| {
            shard
                .count(CountRequest {
                    filter: None,
                    exact: true,
                })
                .map_err(backend)
        })
        .await
    }
}

/// Creates the shard in `shard_dir` (removing the leftovers of an
/// interrupted creation) with the dense vector, the lexical (BM25, IDF
/// weighted) sparse vector and keyword indexes on [`INDEXED_FIELDS`].
fn create_shard(shard_dir: &Path, dimension: usize) -> VectorResult<EdgeShard> {
    // No model file means creation never finished, so no point was ever
    // written: whatever is there is safe to discard.
    if shard_dir.exists() {
        tracing::warn!(
            path = %shard_dir.display(),
            "removing an unfinished vector index (no model file)"
        );
        fs::remove_dir_all(shard_dir)
            .map_err(|e| io_unavailable("cannot remove", shard_dir, &e))?;
    }
    fs::create_dir_all(shard_dir).map_err(|e| io_unavailable("cannot create", shard_dir, &e))?;
    let config = EdgeConfig::builder()
        .vector(
            DEFAULT_VECTOR_NAME,
            EdgeVectorParams::builder(dimension, Distance::Cosine)
                .on_disk(true)
                .build(),
        )
        .sparse_vector(
            SPARSE_NAME,
            EdgeSparseVectorParams::builder()
                .modifier(Modifier::Idf)
                .on_disk(true)
                .build(),
        )
        .on_disk_payload(true)
        .wal_options(WalOptions {
            segment_capacity: WAL_SEGMENT_CAPACITY,
            ..WalOptions::default()
        })
        .build();
    let shard = EdgeShard::new(shard_dir, config).map_err(|e| {
        VectorError::Unavailable(format!(
            "cannot create the vector index in {}: {e}",
            shard_dir.display()
        ))
    })?;
    for field in INDEXED_FIELDS {
        shard
            .update(UpdateOperation::FieldIndexOperation(
                FieldIndexOperations::CreateIndex(CreateIndex {
                    field_name: json_path(field)?,
                    field_schema: Some(PayloadFieldSchema::FieldType(PayloadSchemaType::Keyword)),
                }),
            ))
            .map_err(backend)?;
    }
    shard.flush();
    Ok(shard)
}

/// Rebuilds an index made before the lexical side existed: every point
/// goes into a new shard beside it (`shard.next`) with its lexical vector
/// computed from its payload; only when that shard is complete and flushed
/// does it replace the old one (two renames, finished by [`finish_swap`]
/// if the process dies between them). Nothing is re-embedded.
fn add_lexical(dir: &Path, old: EdgeShard, dimension: usize) -> VectorResult<EdgeShard> {
    let records = scroll_all(&old, None, WithPayloadInterface::Bool(true), true)?;
    tracing::warn!(
        path = %dir.display(),
        points = records.len(),
        "the vector index has no lexical side: rebuilding it with one"
    );
    let next = dir.join(SHARD_NEXT);
    let fresh = create_shard(&next, dimension)?;
    for page in records.chunks(SCROLL_PAGE) {
        let mut structs = Vec::with_capacity(page.len());
        for record in page {
            let id = uuid_of(record.id)?;
            let payload = chunk_payload(&id, record.payload.clone())?;
            let vector = dense_vector(&id, record.vector.clone())?;
            structs.push(point_struct(id, vector, &payload)?.into());
        }
        upsert_points(&fresh, structs)?;
    }
    fresh.flush();
    drop(fresh);
    drop(old);
    let current = dir.join(SHARD_DIR);
    let parked = dir.join(SHARD_OLD);
    let swap = || -> std::io::Result<()> {
        fs::rename(&current, &parked)?;
        fs::rename(&next, &current)?;
        File::open(dir)?.sync_all()?;
        fs::remove_dir_all(&parked)
    };
    swap().map_err(|e| io_unavailable("cannot replace the shard in", dir, &e))?;
    tracing::info!(path = %dir.display(), points = records.len(), "rebuilt the vector index with its lexical side");
    EdgeShard::load(&current, None).map_err(|e| {
        VectorError::Unavailable(format!(
            "cannot load the rebuilt vector index in {}: {e}",
            current.display()
        ))
    })
}

/// Finishes or undoes a rebuild that [`add_lexical`] did not complete: a
/// complete `shard.next` with no `shard` takes its place; a `shard.next`
/// beside a `shard` is unfinished and goes; a parked `shard.old` goes once
/// `shard` is back.
fn finish_swap(dir: &Path, shard_dir: &Path) -> VectorResult<()> {
    let next = dir.join(SHARD_NEXT);
    let parked = dir.join(SHARD_OLD);
    let fix = || -> std::io::Result<()> {
        if !shard_dir.exists() && next.join(EDGE_CONFIG_FILE).is_file() && parked.exists() {
            tracing::warn!(path = %dir.display(), "finishing an interrupted lexical rebuild");
            fs::rename(&next, shard_dir)?;
            File::open(dir)?.sync_all()?;
        }
        if next.exists() {
            tracing::warn!(path = %dir.display(), "removing an unfinished lexical rebuild");
            fs::remove_dir_all(&next)?;
        }
        if parked.exists() && shard_dir.exists() {
            fs::remove_dir_all(&parked)?;
        }
        Ok(())
    };
    fix().map_err(|e| io_unavailable("cannot recover the shard in", dir, &e))
}

/// Verifies the shard's own vector config against the model file.
fn check_shard_dimension(shard: &EdgeShard, dir: &Path, model: &IndexModel) -> VectorResult<()> {
    let config = shard.config();
    let params = config.vectors.get(DEFAULT_VECTOR_NAME).ok_or_else(|| {
        VectorError::Backend(format!(
            "the vector index in {} has no default vector",
            dir.display()
        ))
    })?;
    if params.size != model.dimension {
        return Err(mismatch(
            dir,
            &IndexModel {
                model: model.model.clone(),
                dimension: params.size,
            },
            model,
        ));
    }
    if params.distance != Distance::Cosine {
        return Err(VectorError::Backend(format!(
            "the vector index in {} uses {:?} distance, not cosine",
            dir.display(),
            params.distance
        )));
    }
    Ok(())
}

/// Takes the exclusive lock on the index directory.
fn lock_dir(dir: &Path) -> VectorResult<File> {
    let path = dir.join(LOCK_FILE);
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io_unavailable("cannot open", &path, &e))?;
    file.try_lock().map_err(|e| match e {
        fs::TryLockError::WouldBlock => VectorError::Unavailable(format!(
            "the vector index in {} is already open (another daemoniq process?)",
            dir.display()
        )),
        fs::TryLockError::Error(e) => io_unavailable("cannot lock", &path, &e),
    })?;
    Ok(file)
}

/// Reads the model file; `None` when it does not exist.
fn read_model(path: &Path) -> VectorResult<Option<IndexModel>> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_unavailable("cannot read", path, &e)),
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        VectorError::Backend(format!(
            "{} is not a valid index model file: {e}",
            path.display()
        ))
    })
}

/// Writes the model file atomically: temp file, fsync, rename, fsync dir.
fn write_model(dir: &Path, path: &Path, model: &IndexModel) -> VectorResult<()> {
    let tmp = path.with_extension("json.tmp");
    let json = serde_json::to_vec_pretty(model).map_err(backend)?;
    let write = || -> std::io::Result<()> {
        let mut file = File::create(&tmp)?;
        file.write_all(&json)?;
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        File::open(dir)?.sync_all()
    };
    write().map_err(|e| io_unavailable("cannot write", path, &e))
}

/// Scrolls through every point matching `filter`, page by page.
fn scroll_all(
    shard: &EdgeShard,
    filter: Option<Filter>,
    with_payload: WithPayloadInterface,
    with_vectors: bool,
) -> VectorResult<Vec<Record>> {
    let mut records = Vec::new();
    let mut offset = None;
    loop {
        let (page, next) = shard
            .scroll(ScrollRequest {
                offset,
                limit: Some(SCROLL_PAGE),
                filter: filter.clone(),
                with_payload: Some(with_payload.clone()),
                with_vector: WithVector::Bool(with_vectors),
                order_by: None,
            })
            .map_err(backend)?;
        records.extend(page);
        match next {
            Some(next) => offset = Some(next),
            None => return Ok(records),
        }
    }
}

/// The qdrant filter of a search: `should` match-any conditions on the
/// non-empty fields, `must_not` on the excluded source.
fn search_filter(
    any: Option<&MatchAny>,
    exclude_source_id: Option<&str>,
) -> VectorResult<Option<Filter>> {
    let mut should = Vec::new();
    if let Some(any) = any {
        for (field, values) in [
            ("graph_ids", &any.graph_ids),
            ("equip", &any.equip),
            ("brick_equip", &any.brick_equip),
            ("ptags", &any.ptags),
        ] {
            if !values.is_empty() {
                should.push(Condition::Field(FieldCondition::new_match(
                    json_path(field)?,
                    Match::from(values.clone()),
                )));
            }
        }
    }
    let must_not = match exclude_source_id {
        Some(source_id) => vec![match_value("source_id", source_id)?],
        None => Vec::new(),
    };
    if should.is_empty() && must_not.is_empty() {
        return Ok(None);
    }
    Ok(Some(Filter {
        should: (!should.is_empty()).then_some(should),
        must_not: (!must_not.is_empty()).then_some(must_not),
        ..Filter::default()
    }))
}

/// `field == value` (for arrays: any element equals `value`).
fn match_value(field: &str, value: &str) -> VectorResult<Condition> {
    Ok(Condition::Field(FieldCondition::new_match(
        json_path(field)?,
        Match::from(value.to_owned()),
    )))
}

fn json_path(field: &str) -> VectorResult<JsonPath> {
    field
        .parse::<JsonPath>()
        .map_err(|()| VectorError::Backend(format!("invalid payload field name {field}")))
}

/// Inserts or overwrites `points` in `shard` (not flushed).
fn upsert_points(shard: &EdgeShard, points: Vec<PointStructPersisted>) -> VectorResult<()> {
    shard
        .update(UpdateOperation::PointOperation(
            PointOperations::UpsertPoints(PointInsertOperations::PointsList(points)),
        ))
        .map_err(backend)
}

/// A point with its dense vector, its lexical vector (when its text has
/// any term) and its payload.
fn point_struct(id: Uuid, dense: Vec<f32>, payload: &ChunkPayload) -> VectorResult<PointStruct> {
    let json = payload_value(&id, payload)?;
    let terms = lexical::document(payload);
    let mut named = vec![(DEFAULT_VECTOR_NAME.to_owned(), Vector::new_dense(dense))];
    if !terms.is_empty() {
        let sparse = Vector::new_sparse(terms.indices, terms.values).map_err(backend)?;
        named.push((SPARSE_NAME.to_owned(), sparse));
    }
    Ok(PointStruct::new(
        PointId::Uuid(id),
        Vectors::new_named(named),
        json,
    ))
}

/// The payload as a JSON object (`PointStruct::new` panics on anything else).
fn payload_value(id: &Uuid, payload: &ChunkPayload) -> VectorResult<serde_json::Value> {
    match serde_json::to_value(payload) {
        Ok(value @ serde_json::Value::Object(_)) => Ok(value),
        Ok(_) => Err(VectorError::Backend(format!(
            "payload of point {id} is not a JSON object"
        ))),
        Err(e) => Err(VectorError::Backend(format!(
            "cannot serialise the payload of point {id}: {e}"
        ))),
    }
}

fn chunk_payload(id: &Uuid, payload: Option<Payload>) -> VectorResult<ChunkPayload> {
    let map = payload
        .ok_or_else(|| VectorError::Backend(format!("point {id} came back without payload")))?
        .0;
    serde_json::from_value(serde_json::Value::Object(map)).map_err(|e| {
        // serde_json's "invalid type" messages quote the offending value,
        // which may be chunk text: keep only the structural ones.
        let detail = e.to_string();
        let detail = if detail.starts_with("missing field") || detail.starts_with("unknown field") {
            detail
        } else {
            "a field has the wrong type".to_owned()
        };
        VectorError::Backend(format!("point {id} has a malformed payload: {detail}"))
    })
}

fn dense_vector(id: &Uuid, vector: Option<VectorStructInternal>) -> VectorResult<Vec<f32>> {
    match vector {
        Some(VectorStructInternal::Single(v)) => Ok(v),
        Some(VectorStructInternal::Named(mut named)) => match named.remove(DEFAULT_VECTOR_NAME) {
            Some(VectorInternal::Dense(v)) => Ok(v),
            _ => Err(VectorError::Backend(format!(
                "point {id} has no dense default vector"
            ))),
        },
        Some(VectorStructInternal::MultiDense(_)) | None => Err(VectorError::Backend(format!(
            "point {id} came back without a dense vector"
        ))),
    }
}

fn uuid_of(id: PointId) -> VectorResult<Uuid> {
    match id {
        PointId::Uuid(uuid) => Ok(uuid),
        PointId::NumId(n) => Err(VectorError::Backend(format!(
            "point {n} has a numeric id; this index only writes UUIDs"
        ))),
    }
}

fn mismatch(dir: &Path, found: &IndexModel, expected: &IndexModel) -> VectorError {
    VectorError::ModelMismatch {
        location: dir.display().to_string(),
        found_model: found.model.clone(),
        found_dimension: found.dimension,
        expected_model: expected.model.clone(),
        expected_dimension: expected.dimension,
    }
}

fn io_unavailable(what: &str, path: &Path, e: &std::io::Error) -> VectorError {
    VectorError::Unavailable(format!("{what} {}: {e}", path.display()))
}

fn backend(e: impl std::fmt::Display) -> VectorError {
    VectorError::Backend(e.to_string())
}

fn poisoned() -> VectorError {
    VectorError::Unavailable(
        "the vector index failed during an earlier write; restart the server".to_owned(),
    )
}

fn task_failed(e: tokio::task::JoinError) -> VectorError {
    if e.is_panic() {
        tracing::error!("a qdrant-edge call panicked");
        VectorError::Unavailable("the vector index failed (qdrant-edge panicked)".to_owned())
    } else {
        VectorError::Backend(format!("vector index task failed: {e}"))
    }
}

#[cfg(test)]
mod tests;
