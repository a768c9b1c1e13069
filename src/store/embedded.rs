//! Oxigraph embedded in the process: RocksDB on disk, or in memory for tests.
//!
//! Oxigraph is synchronous, so every call runs on tokio's blocking pool.
//! Queries carry a cancellation token that a timer trips at the time limit,
//! which stops evaluation inside Oxigraph rather than abandoning a thread.

use super::term::{collect_solutions, collect_triples, named_node};
use super::{
    GraphKind, GraphStore, QueryOutput, SourceRecord, SparqlQuery, StoreError, StoreResult, Triple,
};
use crate::vocab::META_GRAPH;
use async_trait::async_trait;
use oxigraph::model::{GraphName, NamedNode, NamedOrBlankNode, Quad, QuadRef};
use oxigraph::sparql::{CancellationToken, QueryEvaluationError, QueryResults, SparqlEvaluator};
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

fn to_quads(triples: Vec<Triple>, graph: &NamedNode) -> Vec<Quad> {
    triples
        .into_iter()
        .map(|t| t.in_graph(graph.clone()))
        .collect()
}

fn run_query(store: &Store, q: &SparqlQuery, token: CancellationToken) -> StoreResult<QueryOutput> {
    let evaluator = SparqlEvaluator::new().with_cancellation_token(token);
    let mut prepared = match evaluator.parse_query(&q.query) {
        Ok(p) => p,
        Err(query_error) => {
            return Err(if super::is_update(&q.query) {
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
            let count = triples.len();
            let quads = to_quads(triples, &graph);
            let meta_quads = to_quads(super::meta_triples(&graph, &record), &meta);
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
            if record.kind == GraphKind::Ontology || count > 10_000 {
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
    use crate::store::TermExt;
    use crate::store::term::{iri, string};
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
            cut: String::new(),
        }
    }

    #[tokio::test]
    async fn replace_graph_is_whole_graph_and_records_source() {
        let store = EmbeddedStore::in_memory().unwrap();
        let t = |o: &str| Triple::new(iri("urn:s"), iri("urn:p"), string(o));
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
            .map(|i| Triple::new(iri(format!("urn:s{i}")), iri("urn:p"), string("x")))
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
