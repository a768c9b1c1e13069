//! Oxigraph embedded in the process: RocksDB on disk, or in memory for tests.
//!
//! Oxigraph is synchronous, so every call runs on tokio's blocking pool.
//! Queries carry a cancellation token that a timer trips at the time limit,
//! which stops evaluation inside Oxigraph rather than abandoning a thread.

use super::{
    GraphKind, GraphStore, QueryOutput, Solution, SourceRecord, SparqlQuery, StoreError,
    StoreResult, Term, Triple,
};
use crate::vocab::{self, META_GRAPH};
use async_trait::async_trait;
use oxigraph::model::Triple as OxTriple;
use oxigraph::model::{
    BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, Quad, QuadRef, Term as OxTerm,
};
use oxigraph::sparql::{
    CancellationToken, QueryEvaluationError, QueryResults, QuerySolution, SparqlEvaluator, Variable,
};
use oxigraph::store::Store;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Oxigraph store in the process.
#[derive(Clone)]
pub struct EmbeddedStore {
    store: Arc<Store>,
    on_disk: bool,
}

impl EmbeddedStore {
    /// Opens (or creates) a RocksDB-backed store in `path`.
    pub fn open(path: &Path) -> StoreResult<Self> {
        std::fs::create_dir_all(path)
            .map_err(|e| StoreError::Storage(format!("cannot create {}: {e}", path.display())))?;
        let store = Store::open(path).map_err(|e| {
            StoreError::Storage(format!(
                "cannot open the graph store in {}: {e}",
                path.display()
            ))
        })?;
        Ok(Self {
            store: Arc::new(store),
            on_disk: true,
        })
    }

    /// A fresh in-memory store.
    pub fn in_memory() -> StoreResult<Self> {
        let store = Store::new().map_err(storage)?;
        Ok(Self {
            store: Arc::new(store),
            on_disk: false,
        })
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> StoreResult<T> + Send + 'static,
    ) -> StoreResult<T> {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || f(&store))
            .await
            .map_err(|e| StoreError::Storage(format!("store task failed: {e}")))?
    }
}

fn storage(e: impl std::fmt::Display) -> StoreError {
    StoreError::Storage(e.to_string())
}

fn evaluation(e: QueryEvaluationError, timeout: Option<Duration>) -> StoreError {
    match e {
        QueryEvaluationError::Cancelled => StoreError::Timeout(timeout.unwrap_or_default()),
        QueryEvaluationError::UnsupportedService(name) => {
            StoreError::ServiceRefused(name.to_string())
        }
        QueryEvaluationError::Service(e) => StoreError::ServiceRefused(e.to_string()),
        QueryEvaluationError::UnboundService => {
            StoreError::ServiceRefused("unbound service variable".into())
        }
        QueryEvaluationError::InvalidServiceName(t) => StoreError::ServiceRefused(t.to_string()),
        QueryEvaluationError::Dataset(e) => StoreError::Storage(e.to_string()),
        other => StoreError::Evaluation(other.to_string()),
    }
}

fn named_node(iri: &str) -> StoreResult<NamedNode> {
    NamedNode::new(iri).map_err(|e| StoreError::InvalidRdf(format!("<{iri}>: {e}")))
}

/// Converts DaemonIQ's term into an Oxigraph term.
pub(crate) fn to_ox_term(term: &Term) -> StoreResult<OxTerm> {
    Ok(match term {
        Term::Iri(iri) => named_node(iri)?.into(),
        Term::Blank(id) => BlankNode::new(id)
            .map_err(|e| StoreError::InvalidRdf(format!("_:{id}: {e}")))?
            .into(),
        Term::Literal {
            value,
            datatype,
            language,
        } => match language {
            Some(lang) => Literal::new_language_tagged_literal(value, lang)
                .map_err(|e| StoreError::InvalidRdf(format!("@{lang}: {e}")))?
                .into(),
            None => Literal::new_typed_literal(value, named_node(datatype)?).into(),
        },
    })
}

fn to_ox_subject(term: &Term) -> StoreResult<NamedOrBlankNode> {
    match to_ox_term(term)? {
        OxTerm::NamedNode(n) => Ok(n.into()),
        OxTerm::BlankNode(b) => Ok(b.into()),
        other => Err(StoreError::InvalidRdf(format!(
            "{other} cannot be a subject"
        ))),
    }
}

/// Converts an Oxigraph term into DaemonIQ's term.
pub(crate) fn from_ox_term(term: OxTerm) -> Term {
    match term {
        OxTerm::NamedNode(n) => Term::Iri(n.into_string()),
        OxTerm::BlankNode(b) => Term::Blank(b.into_string()),
        OxTerm::Literal(l) => {
            let (value, datatype, language) = l.destruct();
            match language {
                Some(lang) => Term::Literal {
                    value,
                    datatype: "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString".into(),
                    language: Some(lang),
                },
                None => Term::Literal {
                    value,
                    datatype: datatype
                        .map(NamedNode::into_string)
                        .unwrap_or_else(|| vocab::XSD_STRING.to_owned()),
                    language: None,
                },
            }
        }
        #[allow(unreachable_patterns)]
        other => Term::string(other.to_string()),
    }
}

fn from_ox_subject(s: NamedOrBlankNode) -> Term {
    match s {
        NamedOrBlankNode::NamedNode(n) => Term::Iri(n.into_string()),
        NamedOrBlankNode::BlankNode(b) => Term::Blank(b.into_string()),
    }
}

fn to_quads(triples: &[Triple], graph: &NamedNode) -> StoreResult<Vec<Quad>> {
    triples
        .iter()
        .map(|t| {
            Ok(Quad::new(
                to_ox_subject(&t.subject)?,
                named_node(&t.predicate)?,
                to_ox_term(&t.object)?,
                graph.clone(),
            ))
        })
        .collect()
}

fn run_query(store: &Store, q: &SparqlQuery, token: CancellationToken) -> StoreResult<QueryOutput> {
    let evaluator = SparqlEvaluator::new().with_cancellation_token(token);
    let mut prepared = match evaluator.parse_query(&q.query) {
        Ok(p) => p,
        Err(query_error) => {
            return Err(if SparqlEvaluator::new().parse_update(&q.query).is_ok() {
                StoreError::UpdateRefused
            } else {
                StoreError::Syntax(query_error.to_string())
            });
        }
    };
    let dataset = prepared.dataset_mut();
    if !q.default_graphs.is_empty() {
        let graphs = q
            .default_graphs
            .iter()
            .map(|g| named_node(g).map(GraphName::from))
            .collect::<StoreResult<Vec<_>>>()?;
        dataset.set_default_graph(graphs);
    } else if dataset.is_default_dataset() {
        // No FROM and no default-graph-uri: the union of all graphs, as the
        // Ontology UI expects to see every source at once.
        dataset.set_default_graph_as_union();
    }
    if !q.named_graphs.is_empty() {
        let graphs = q
            .named_graphs
            .iter()
            .map(|g| named_node(g).map(NamedOrBlankNode::from))
            .collect::<StoreResult<Vec<_>>>()?;
        dataset.set_available_named_graphs(graphs);
    }
    let max = q.max_rows.unwrap_or(usize::MAX);
    let results = prepared
        .on_store(store)
        .execute()
        .map_err(|e| evaluation(e, q.timeout))?;
    Ok(match results {
        QueryResults::Boolean(b) => QueryOutput::Boolean(b),
        QueryResults::Solutions(solutions) => {
            let variables = solutions.variables().to_vec();
            collect_solutions(&variables, solutions, max, |e| evaluation(e, q.timeout))?
        }
        QueryResults::Graph(triples) => {
            collect_triples(triples, max, |e| evaluation(e, q.timeout))?
        }
    })
}

/// Solutions in DaemonIQ's terms, at most `max` rows; `truncated` when more
/// were left (shared by the embedded and the remote store).
pub(crate) fn collect_solutions<E>(
    variables: &[Variable],
    solutions: impl Iterator<Item = Result<QuerySolution, E>>,
    max: usize,
    error: impl Fn(E) -> StoreError,
) -> StoreResult<QueryOutput> {
    let mut rows = Vec::new();
    let mut truncated = false;
    for solution in solutions {
        let solution = solution.map_err(&error)?;
        if rows.len() == max {
            truncated = true;
            break;
        }
        let mut row = Solution::new();
        for (var, term) in solution.iter() {
            row.insert(var.as_str().to_owned(), from_ox_term(term.clone()));
        }
        rows.push(row);
    }
    Ok(QueryOutput::Solutions {
        variables: variables.iter().map(|v| v.as_str().to_owned()).collect(),
        rows,
        truncated,
    })
}

/// Triples in DaemonIQ's terms, at most `max`; `truncated` when more were
/// left (shared by the embedded and the remote store).
pub(crate) fn collect_triples<T: Into<OxTriple>, E>(
    triples: impl Iterator<Item = Result<T, E>>,
    max: usize,
    error: impl Fn(E) -> StoreError,
) -> StoreResult<QueryOutput> {
    let mut out = Vec::new();
    let mut truncated = false;
    for triple in triples {
        let triple: OxTriple = triple.map_err(&error)?.into();
        if out.len() == max {
            truncated = true;
            break;
        }
        out.push(Triple::new(
            from_ox_subject(triple.subject),
            triple.predicate.into_string(),
            from_ox_term(triple.object),
        ));
    }
    Ok(QueryOutput::Graph {
        triples: out,
        truncated,
    })
}

#[async_trait]
impl GraphStore for EmbeddedStore {
    async fn query(&self, query: SparqlQuery) -> StoreResult<QueryOutput> {
        let token = CancellationToken::new();
        let timer = query.timeout.map(|limit| {
            let token = token.clone();
            tokio::spawn(async move {
                tokio::time::sleep(limit).await;
                token.cancel();
            })
        });
        let result = self
            .blocking(move |store| run_query(store, &query, token))
            .await;
        if let Some(timer) = timer {
            timer.abort();
        }
        result
    }

    async fn replace_graph(&self, record: SourceRecord, triples: Vec<Triple>) -> StoreResult<()> {
        self.blocking(move |store| {
            let graph = named_node(&record.graph)?;
            let meta = named_node(META_GRAPH)?;
            let quads = to_quads(&triples, &graph)?;
            let meta_quads = to_quads(&super::meta_triples(&record), &meta)?;
            let mut tx = store.start_transaction().map_err(storage)?;
            let old: Vec<Quad> = tx
                .quads_for_pattern(
                    Some(graph.as_ref().into()),
                    None,
                    None,
                    Some(meta.as_ref().into()),
                )
                .collect::<Result<_, _>>()
                .map_err(storage)?;
            for quad in &old {
                tx.remove(quad);
            }
            tx.clear_graph(graph.as_ref()).map_err(storage)?;
            tx.extend(quads.iter().map(QuadRef::from));
            tx.extend(meta_quads.iter().map(QuadRef::from));
            tx.commit().map_err(storage)?;
            if record.kind == GraphKind::Ontology || triples.len() > 10_000 {
                store.flush().map_err(storage)?;
            }
            Ok(())
        })
        .await
    }

    async fn remove_graph(&self, graph: &str) -> StoreResult<()> {
        let graph = graph.to_owned();
        self.blocking(move |store| {
            let graph = named_node(&graph)?;
            let meta = named_node(META_GRAPH)?;
            let mut tx = store.start_transaction().map_err(storage)?;
            let old: Vec<Quad> = tx
                .quads_for_pattern(
                    Some(graph.as_ref().into()),
                    None,
                    None,
                    Some(meta.as_ref().into()),
                )
                .collect::<Result<_, _>>()
                .map_err(storage)?;
            for quad in &old {
                tx.remove(quad);
            }
            tx.remove_named_graph(graph.as_ref()).map_err(storage)?;
            tx.commit().map_err(storage)
        })
        .await
    }

    async fn sources(&self) -> StoreResult<Vec<SourceRecord>> {
        super::read_sources(self).await
    }

    async fn len(&self) -> StoreResult<usize> {
        self.blocking(|store| store.len().map_err(storage)).await
    }

    fn backend(&self) -> &'static str {
        if self.on_disk {
            "oxigraph-rocksdb"
        } else {
            "oxigraph-memory"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn record(graph: &str, sha: &str) -> SourceRecord {
        SourceRecord {
            graph: graph.into(),
            path: "x.ttl".into(),
            sha256: sha.into(),
            updated_at: Utc::now(),
            loaded_at: Utc::now(),
            kind: GraphKind::Model,
            triples: 1,
        }
    }

    #[tokio::test]
    async fn replace_graph_is_whole_graph_and_records_source() {
        let store = EmbeddedStore::in_memory().unwrap();
        let t = |o: &str| Triple::new(Term::iri("urn:s"), "urn:p", Term::string(o));
        store
            .replace_graph(record("urn:g", "a"), vec![t("1"), t("2")])
            .await
            .unwrap();
        store
            .replace_graph(record("urn:g", "b"), vec![t("3")])
            .await
            .unwrap();
        let rows = store
            .query(SparqlQuery::new(
                "SELECT ?o WHERE { GRAPH <urn:g> { ?s ?p ?o } }",
            ))
            .await
            .unwrap()
            .into_rows();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["o"].value(), "3");
        let sources = store.sources().await.unwrap();
        assert_eq!(sources.len(), 1);
        assert_eq!(sources[0].sha256, "b");
        store.remove_graph("urn:g").await.unwrap();
        assert!(store.sources().await.unwrap().is_empty());
        assert_eq!(store.len().await.unwrap(), 0);
    }

    #[tokio::test]
    async fn update_is_refused_and_syntax_errors_are_reported() {
        let store = EmbeddedStore::in_memory().unwrap();
        let err = store
            .query(SparqlQuery::new("INSERT DATA { <urn:a> <urn:b> <urn:c> }"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::UpdateRefused), "{err}");
        let err = store
            .query(SparqlQuery::new("SELEC ?x WHERE {}"))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Syntax(_)), "{err}");
    }

    #[tokio::test]
    async fn honours_the_store_contract() {
        let store = EmbeddedStore::in_memory().unwrap();
        if let Err(failures) = crate::store::contract::run(&store).await {
            panic!("the embedded store breaks the contract:\n{failures}");
        }
        assert_eq!(store.len().await.unwrap(), 0, "the suite cleans up");
    }

    #[tokio::test]
    async fn max_rows_truncates() {
        let store = EmbeddedStore::in_memory().unwrap();
        let triples = (0..10)
            .map(|i| Triple::new(Term::iri(format!("urn:s{i}")), "urn:p", Term::string("x")))
            .collect();
        store
            .replace_graph(record("urn:g", "a"), triples)
            .await
            .unwrap();
        let out = store
            .query(SparqlQuery {
                max_rows: Some(3),
                ..SparqlQuery::new("SELECT ?s WHERE { ?s <urn:p> ?o }")
            })
            .await
            .unwrap();
        match out {
            QueryOutput::Solutions {
                rows, truncated, ..
            } => {
                assert_eq!(rows.len(), 3);
                assert!(truncated);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
