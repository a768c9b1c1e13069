//! The RDF graph store behind a narrow trait.
//!
//! `embedded` is Oxigraph in-process (RocksDB on disk, or in memory); a remote
//! SPARQL 1.1 endpoint implements the same trait. No Oxigraph store or
//! query type crosses the trait; terms and triples are the RDF model's own
//! (`oxrdf`, see [`term`]), read with [`TermExt`].

pub mod contract;
pub mod embedded;
pub mod remote;
pub mod shape;
pub mod term;

use crate::vocab;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::time::Duration;

pub use embedded::EmbeddedStore;
pub use remote::{RemoteSettings, RemoteStore};
pub use term::{
    BlankNode, Literal, NamedNode, NamedOrBlankNode, Term, TermExt, Triple, escape_literal,
    is_safe_iri,
};

/// Result of a store operation.
pub type StoreResult<T> = Result<T, StoreError>;

/// What can go wrong talking to the graph store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The SPARQL text does not parse.
    #[error("SPARQL syntax error: {0}")]
    Syntax(String),
    /// A SPARQL Update was sent where only queries are allowed.
    #[error("SPARQL Update is not allowed on this endpoint; it is read-only")]
    UpdateRefused,
    /// The query used `SERVICE`, which cannot reach the network.
    #[error("SERVICE is not allowed: federated queries cannot reach other endpoints ({0})")]
    ServiceRefused(String),
    /// The query ran longer than its time limit and was cancelled.
    #[error("the query was stopped after its time limit of {0:?}")]
    Timeout(Duration),
    /// The query failed while being evaluated.
    #[error("query evaluation failed: {0}")]
    Evaluation(String),
    /// A term or triple handed to the store is not valid RDF.
    #[error("invalid RDF: {0}")]
    InvalidRdf(String),
    /// The storage layer failed (I/O, corruption, lock held by another process).
    #[error("graph storage failed: {0}")]
    Storage(String),
}

/// A SPARQL query with its protocol options.
#[derive(Debug, Clone, Default)]
pub struct SparqlQuery {
    /// The query text.
    pub query: String,
    /// `default-graph-uri` values: the default graph is their merge. Empty
    /// means the union of all graphs.
    pub default_graphs: Vec<String>,
    /// `named-graph-uri` values: the named graphs visible to `GRAPH`. Empty
    /// means all named graphs.
    pub named_graphs: Vec<String>,
    /// Cancel the query after this long.
    pub timeout: Option<Duration>,
    /// Keep at most this many solutions or triples.
    pub max_rows: Option<usize>,
}

impl SparqlQuery {
    /// A query over the union of all graphs, with no limits.
    pub fn new(query: impl Into<String>) -> Self {
        Self {
            query: query.into(),
            ..Self::default()
        }
    }
}

/// One row of a SELECT result: variable name → bound term.
pub type Solution = HashMap<String, Term>;

/// The result of a SPARQL query.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryOutput {
    /// SELECT results.
    Solutions {
        /// Projected variables, in order.
        variables: Vec<String>,
        /// Rows; unbound variables are absent from the map.
        rows: Vec<Solution>,
        /// True when `max_rows` cut the result.
        truncated: bool,
    },
    /// ASK result.
    Boolean(bool),
    /// CONSTRUCT or DESCRIBE result.
    Graph {
        /// The triples.
        triples: Vec<Triple>,
        /// True when `max_rows` cut the result.
        truncated: bool,
    },
}

impl QueryOutput {
    /// The rows of a SELECT, or an empty list for other forms.
    pub fn into_rows(self) -> Vec<Solution> {
        match self {
            Self::Solutions { rows, .. } => rows,
            _ => Vec::new(),
        }
    }
}

/// What kind of source a named graph holds.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum GraphKind {
    /// An ontology (Brick, Haystack vocabulary, Yorkland, core vocabulary).
    Ontology,
    /// A building model (equipment topology).
    Model,
    /// An ingested document's `dq:Document` / `dq:Chunk` nodes.
    Document,
}

impl GraphKind {
    /// Lower-case name used in the meta graph.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Parses [`GraphKind::as_str`] output.
    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

/// Bookkeeping about one loaded source file and its named graph.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub struct SourceRecord {
    /// Named graph IRI.
    pub graph: String,
    /// Path relative to the root it was loaded from.
    pub path: String,
    /// sha256 of the file's bytes, lower-case hex.
    pub sha256: String,
    /// When the source was last changed (file modification time).
    pub updated_at: DateTime<Utc>,
    /// When DaemonIQ loaded it.
    pub loaded_at: DateTime<Utc>,
    /// What the graph holds.
    pub kind: GraphKind,
    /// Number of triples in the graph.
    pub triples: usize,
    /// For a document, how its chunks were cut
    /// ([`crate::ingest::IngestSettings::cut`]: the ingest revision and
    /// the chunk window, "r1-t256-o32"); empty for a model, or a document
    /// recorded before cuts were.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub cut: String,
}

/// A graph store: SPARQL queries plus whole-graph replacement.
#[allow(clippy::len_without_is_empty)]
#[async_trait]
pub trait GraphStore: Send + Sync {
    /// Runs a read-only SPARQL query. SPARQL Update is refused.
    async fn query(&self, query: SparqlQuery) -> StoreResult<QueryOutput>;

    /// Atomically replaces the named graph `record.graph` with `triples` and
    /// records `record` in the meta graph.
    async fn replace_graph(&self, record: SourceRecord, triples: Vec<Triple>) -> StoreResult<()>;

    /// Atomically removes a named graph and its meta record.
    async fn remove_graph(&self, graph: &str) -> StoreResult<()>;

    /// All sources recorded in the meta graph.
    async fn sources(&self) -> StoreResult<Vec<SourceRecord>>;

    /// Total number of quads in the store.
    async fn len(&self) -> StoreResult<usize>;

    /// A short name of the backend, for `/health`.
    fn backend(&self) -> &'static str;
}

/// Runs a SELECT and returns its rows.
pub async fn select(
    store: &dyn GraphStore,
    query: impl Into<String>,
) -> StoreResult<Vec<Solution>> {
    Ok(store.query(SparqlQuery::new(query)).await?.into_rows())
}

/// Helpers to read bindings out of a [`Solution`].
pub trait SolutionExt {
    /// The value (IRI or lexical form) bound to `var`.
    fn str(&self, var: &str) -> Option<&str>;
    /// The value bound to `var` as an owned string, or empty.
    fn string(&self, var: &str) -> String {
        self.str(var).unwrap_or_default().to_owned()
    }
}

impl SolutionExt for Solution {
    fn str(&self, var: &str) -> Option<&str> {
        self.get(var).map(Term::value)
    }
}

/// Whether a text that is not a query is a SPARQL Update, to be refused as
/// one. An empty text (or one of prefixes and comments only) parses as an
/// update of no operation: that is a malformed query, not an update.
pub(crate) fn is_update(text: &str) -> bool {
    spargebra::SparqlParser::new()
        .parse_update(text)
        .is_ok_and(|u| !u.operations.is_empty())
}

/// The triples that record `record` in the meta graph; `graph` is
/// `record.graph`, already checked by the backend.
pub(crate) fn meta_triples(graph: &NamedNode, record: &SourceRecord) -> Vec<Triple> {
    let triple = |p: String, o: Term| Triple::new(graph.clone(), term::iri(p), o);
    let mut triples = vec![
        triple(
            vocab::RDF_TYPE.to_owned(),
            term::iri(vocab::dq("Source")).into(),
        ),
        triple(vocab::dq("sourcePath"), term::string(&record.path).into()),
        triple(vocab::dq("sourceSha"), term::string(&record.sha256).into()),
        triple(
            vocab::dq("updatedAt"),
            term::date_time(record.updated_at).into(),
        ),
        triple(
            vocab::dq("loadedAt"),
            term::date_time(record.loaded_at).into(),
        ),
        triple(
            vocab::dq("graphKind"),
            term::string(record.kind.as_str()).into(),
        ),
        triple(
            vocab::dq("tripleCount"),
            term::integer(record.triples).into(),
        ),
    ];
    if !record.cut.is_empty() {
        triples.push(triple(
            vocab::dq("chunkCut"),
            term::string(&record.cut).into(),
        ));
    }
    triples
}

/// Reads every source recorded in the meta graph (shared by the backends).
pub(crate) async fn read_sources(store: &dyn GraphStore) -> StoreResult<Vec<SourceRecord>> {
    let rows = store
        .query(SparqlQuery::new(format!(
            "SELECT ?g ?p ?o WHERE {{ GRAPH <{}> {{ ?g a <{}> ; ?p ?o }} }} ORDER BY ?g",
            vocab::META_GRAPH,
            vocab::dq("Source")
        )))
        .await?
        .into_rows();
    let mut by_graph: std::collections::BTreeMap<String, Vec<Solution>> = Default::default();
    for row in rows {
        let g = row
            .get("g")
            .map(|t| t.value().to_owned())
            .unwrap_or_default();
        by_graph.entry(g).or_default().push(row);
    }
    Ok(by_graph
        .into_iter()
        .filter_map(|(g, rows)| parse_record(g, &rows))
        .collect())
}

fn parse_record(graph: String, rows: &[Solution]) -> Option<SourceRecord> {
    let get = |p: &str| {
        rows.iter()
            .find(|r| r.get("p").and_then(Term::as_iri) == Some(&vocab::dq(p)))
            .and_then(|r| r.get("o"))
            .map(|t| t.value().to_owned())
    };
    let time = |p: &str| {
        get(p)
            .and_then(|v| DateTime::parse_from_rfc3339(&v).ok())
            .map(|d| d.with_timezone(&Utc))
    };
    Some(SourceRecord {
        graph,
        path: get("sourcePath")?,
        sha256: get("sourceSha")?,
        updated_at: time("updatedAt")?,
        loaded_at: time("loadedAt")?,
        kind: GraphKind::parse(&get("graphKind")?)?,
        triples: get("tripleCount")?.parse().ok()?,
        cut: get("chunkCut").unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_kinds_round_trip_their_names() {
        for kind in [GraphKind::Ontology, GraphKind::Model, GraphKind::Document] {
            assert_eq!(GraphKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(GraphKind::Document.as_str(), "document");
        assert_eq!(GraphKind::parse("Model"), None);
    }
}
