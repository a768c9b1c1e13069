//! The RDF graph store behind a narrow trait.
//!
//! `embedded` is Oxigraph in-process (RocksDB on disk, or in memory); a remote
//! SPARQL 1.1 endpoint can implement the same trait. No Oxigraph type crosses
//! the trait: queries and results use DaemonIQ's own [`Term`] and [`Triple`].

pub mod contract;
pub mod embedded;
pub mod remote;

use crate::vocab;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

pub use embedded::EmbeddedStore;
pub use remote::{RemoteSettings, RemoteStore};

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

/// An RDF term in DaemonIQ's own representation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    /// An IRI.
    Iri(String),
    /// A blank node, by its local id.
    Blank(String),
    /// A literal with its datatype IRI and optional language tag.
    Literal {
        /// Lexical form.
        value: String,
        /// Datatype IRI (`rdf:langString` for language-tagged strings).
        datatype: String,
        /// Language tag, if any.
        language: Option<String>,
    },
}

impl Term {
    /// An IRI term.
    pub fn iri(iri: impl Into<String>) -> Self {
        Self::Iri(iri.into())
    }

    /// A plain `xsd:string` literal.
    pub fn string(value: impl Into<String>) -> Self {
        Self::Literal {
            value: value.into(),
            datatype: crate::vocab::XSD_STRING.to_owned(),
            language: None,
        }
    }

    /// A typed literal.
    pub fn typed(value: impl Into<String>, datatype: &str) -> Self {
        Self::Literal {
            value: value.into(),
            datatype: datatype.to_owned(),
            language: None,
        }
    }

    /// An `xsd:dateTime` literal.
    pub fn date_time(at: DateTime<Utc>) -> Self {
        Self::typed(
            at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            crate::vocab::XSD_DATE_TIME,
        )
    }

    /// The IRI, if this is one.
    pub fn as_iri(&self) -> Option<&str> {
        match self {
            Self::Iri(iri) => Some(iri),
            _ => None,
        }
    }

    /// The IRI, lexical form or blank node id: the value a person reads.
    pub fn value(&self) -> &str {
        match self {
            Self::Iri(v) | Self::Blank(v) => v,
            Self::Literal { value, .. } => value,
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Iri(iri) => write!(f, "<{iri}>"),
            Self::Blank(id) => write!(f, "_:{id}"),
            Self::Literal {
                value,
                datatype,
                language,
            } => {
                write!(f, "\"")?;
                for c in value.chars() {
                    match c {
                        '"' => write!(f, "\\\"")?,
                        '\\' => write!(f, "\\\\")?,
                        '\n' => write!(f, "\\n")?,
                        '\r' => write!(f, "\\r")?,
                        c => write!(f, "{c}")?,
                    }
                }
                write!(f, "\"")?;
                match language {
                    Some(lang) => write!(f, "@{lang}"),
                    None if datatype == crate::vocab::XSD_STRING => Ok(()),
                    None => write!(f, "^^<{datatype}>"),
                }
            }
        }
    }
}

/// A triple in DaemonIQ's own representation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Triple {
    /// Subject (IRI or blank node).
    pub subject: Term,
    /// Predicate IRI.
    pub predicate: String,
    /// Object.
    pub object: Term,
}

impl Triple {
    /// Builds a triple.
    pub fn new(subject: Term, predicate: impl Into<String>, object: Term) -> Self {
        Self {
            subject,
            predicate: predicate.into(),
            object,
        }
    }
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
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
        match self {
            Self::Ontology => "ontology",
            Self::Model => "model",
            Self::Document => "document",
        }
    }

    /// Parses [`GraphKind::as_str`] output.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "ontology" => Some(Self::Ontology),
            "model" => Some(Self::Model),
            "document" => Some(Self::Document),
            _ => None,
        }
    }
}

/// Bookkeeping about one loaded source file and its named graph.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
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

/// Escapes a string for use inside a SPARQL/Turtle double-quoted literal.
pub fn escape_literal(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// Checks that `iri` can be written as `<iri>` in SPARQL without injection.
pub fn is_safe_iri(iri: &str) -> bool {
    !iri.is_empty()
        && iri.contains(':')
        && !iri.chars().any(|c| {
            c.is_whitespace() || matches!(c, '<' | '>' | '"' | '{' | '}' | '|' | '^' | '`' | '\\')
        })
}

/// The triples that record `record` in the meta graph.
pub(crate) fn meta_triples(record: &SourceRecord) -> Vec<Triple> {
    let g = Term::iri(&record.graph);
    vec![
        Triple::new(g.clone(), vocab::RDF_TYPE, Term::iri(vocab::dq("Source"))),
        Triple::new(
            g.clone(),
            vocab::dq("sourcePath"),
            Term::string(&record.path),
        ),
        Triple::new(
            g.clone(),
            vocab::dq("sourceSha"),
            Term::string(&record.sha256),
        ),
        Triple::new(
            g.clone(),
            vocab::dq("updatedAt"),
            Term::date_time(record.updated_at),
        ),
        Triple::new(
            g.clone(),
            vocab::dq("loadedAt"),
            Term::date_time(record.loaded_at),
        ),
        Triple::new(
            g.clone(),
            vocab::dq("graphKind"),
            Term::string(record.kind.as_str()),
        ),
        Triple::new(
            g,
            vocab::dq("tripleCount"),
            Term::typed(record.triples.to_string(), vocab::XSD_INTEGER),
        ),
    ]
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_display_escapes() {
        let t = Term::string("a \"b\"\n");
        assert_eq!(t.to_string(), "\"a \\\"b\\\"\\n\"");
        let t = Term::typed("1", crate::vocab::XSD_INTEGER);
        assert!(
            t.to_string()
                .ends_with("^^<http://www.w3.org/2001/XMLSchema#integer>")
        );
    }

    #[test]
    fn safe_iri_rejects_injection() {
        assert!(is_safe_iri("https://example.com/a#b"));
        assert!(!is_safe_iri("x> } ; DROP ALL"));
        assert!(!is_safe_iri("no-scheme"));
    }
}
