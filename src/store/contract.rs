//! The contract every [`GraphStore`] backend must honour, as a suite that
//! runs against any implementation.
//!
//! The embedded store's unit tests run it always; the remote store's
//! integration test runs it when `DAEMONIQ_TEST_SPARQL_URL` names a server.
//! Each run writes graphs with run-unique IRIs, so it also holds against a
//! store that already has data in it, and it removes what it wrote at the
//! end. Quad counts are checked as differences, so nothing else may write to
//! the store while the suite runs.

use chrono::{DateTime, SubsecRound, Utc};
use uuid::Uuid;

use super::term::{self, iri};
use super::{
    BlankNode, GraphKind, GraphStore, Literal, NamedNode, QueryOutput, SolutionExt, SourceRecord,
    SparqlQuery, StoreError, Term, Triple,
};
use crate::vocab;
use oxrdf::vocab::xsd;

/// Runs every check; `Err` lists each failed check with its reason.
pub async fn run(store: &dyn GraphStore) -> Result<(), String> {
    let run = Run::new();
    let results = [
        ("replace_and_read", replace_and_read(store, &run).await),
        (
            "union_default_graph",
            union_default_graph(store, &run).await,
        ),
        ("protocol_dataset", protocol_dataset(store, &run).await),
        ("source_records", source_records(store, &run).await),
        ("idempotent_replace", idempotent_replace(store, &run).await),
        (
            "literals_round_trip",
            literals_round_trip(store, &run).await,
        ),
        ("blank_nodes", blank_nodes(store, &run).await),
        ("query_forms", query_forms(store, &run).await),
        ("max_rows", max_rows(store, &run).await),
        ("refusals", refusals(store).await),
        ("remove", remove(store, &run).await),
    ];
    let cleanup = run.cleanup(store).await;
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

/// Run-unique names.
struct Run {
    id: String,
}

impl Run {
    fn new() -> Self {
        Self {
            id: Uuid::new_v4().simple().to_string(),
        }
    }

    fn graph(&self, name: &str) -> String {
        format!("urn:daemoniq:contract:{}:{name}", self.id)
    }

    fn node(&self, name: &str) -> NamedNode {
        iri(format!("urn:daemoniq:contract:{}:node:{name}", self.id))
    }

    fn pred(&self, name: &str) -> NamedNode {
        iri(format!("urn:daemoniq:contract:{}:p:{name}", self.id))
    }

    async fn cleanup(&self, store: &dyn GraphStore) -> Result<(), String> {
        let sources = store.sources().await.map_err(show)?;
        for s in sources.iter().filter(|s| s.graph.contains(&self.id)) {
            store.remove_graph(&s.graph).await.map_err(show)?;
        }
        let left = store
            .sources()
            .await
            .map_err(show)?
            .into_iter()
            .filter(|s| s.graph.contains(&self.id))
            .count();
        ensure(left == 0, || format!("{left} contract graphs left behind"))
    }
}

fn record(graph: &str, sha: &str, triples: usize) -> SourceRecord {
    // Stored as xsd:dateTime with whole seconds.
    let at = Utc::now().trunc_subsecs(0);
    SourceRecord {
        graph: graph.to_owned(),
        path: format!("contract/{sha}.ttl"),
        sha256: sha.to_owned(),
        updated_at: at,
        loaded_at: at,
        kind: GraphKind::Model,
        triples,
        cut: String::new(),
    }
}

async fn put(
    store: &dyn GraphStore,
    graph: &str,
    sha: &str,
    triples: Vec<Triple>,
) -> Result<(), String> {
    store
        .replace_graph(record(graph, sha, triples.len()), triples)
        .await
        .map_err(show)
}

async fn rows(store: &dyn GraphStore, q: SparqlQuery) -> Result<Vec<super::Solution>, String> {
    match store.query(q).await.map_err(show)? {
        QueryOutput::Solutions { rows, .. } => Ok(rows),
        other => Err(format!("expected solutions, got {other:?}")),
    }
}

async fn values(store: &dyn GraphStore, q: &str, var: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = rows(store, SparqlQuery::new(q))
        .await?
        .iter()
        .map(|r| r.string(var))
        .collect();
    out.sort();
    Ok(out)
}

async fn replace_and_read(store: &dyn GraphStore, run: &Run) -> Result<(), String> {
    let g = run.graph("replace");
    let p = run.pred("feeds");
    let triples = vec![
        Triple::new(run.node("ahu1"), p.clone(), run.node("vav1")),
        Triple::new(run.node("ahu1"), p.clone(), run.node("vav2")),
    ];
    put(store, &g, "sha-a", triples).await?;
    let got = values(
        store,
        &format!("SELECT ?o WHERE {{ GRAPH <{g}> {{ ?s {p} ?o }} }}"),
        "o",
    )
    .await?;
    ensure(got.len() == 2, || {
        format!("two objects expected, got {got:?}")
    })?;
    // Replacing is whole-graph: the old triples go.
    put(
        store,
        &g,
        "sha-b",
        vec![Triple::new(run.node("ahu1"), p.clone(), run.node("vav3"))],
    )
    .await?;
    let got = values(
        store,
        &format!("SELECT ?o WHERE {{ GRAPH <{g}> {{ ?s {p} ?o }} }}"),
        "o",
    )
    .await?;
    let want = vec![run.node("vav3").as_str().to_owned()];
    ensure(got == want, || {
        format!("after replace expected {want:?}, got {got:?}")
    })
}

async fn union_default_graph(store: &dyn GraphStore, run: &Run) -> Result<(), String> {
    let p = run.pred("union");
    put(
        store,
        &run.graph("union-1"),
        "u1",
        vec![Triple::new(run.node("a"), p.clone(), run.node("b"))],
    )
    .await?;
    put(
        store,
        &run.graph("union-2"),
        "u2",
        vec![Triple::new(run.node("b"), p.clone(), run.node("c"))],
    )
    .await?;
    // No FROM, no protocol graphs: the default graph is the union, so a
    // join across two source graphs finds its row.
    let got = values(
        store,
        &format!("SELECT ?z WHERE {{ ?x {p} ?y . ?y {p} ?z }}"),
        "z",
    )
    .await?;
    let want = vec![run.node("c").as_str().to_owned()];
    ensure(got == want, || {
        format!("union join expected {want:?}, got {got:?}")
    })?;
    // The meta graph is part of the union as well.
    let got = values(
        store,
        &format!(
            "SELECT ?sha WHERE {{ <{}> <{}> ?sha }}",
            run.graph("union-1"),
            vocab::dq("sourceSha")
        ),
        "sha",
    )
    .await?;
    ensure(got == ["u1"], || {
        format!("meta record via union expected [u1], got {got:?}")
    })
}

async fn protocol_dataset(store: &dyn GraphStore, run: &Run) -> Result<(), String> {
    let p = run.pred("union");
    let g1 = run.graph("union-1");
    let g2 = run.graph("union-2");
    let q = format!("SELECT ?s WHERE {{ ?s {p} ?o }}");
    // default-graph-uri restricts the default graph.
    let got: Vec<String> = rows(
        store,
        SparqlQuery {
            default_graphs: vec![g1.clone()],
            ..SparqlQuery::new(&q)
        },
    )
    .await?
    .iter()
    .map(|r| r.string("s"))
    .collect();
    let want = vec![run.node("a").as_str().to_owned()];
    ensure(got == want, || {
        format!("default-graph-uri expected {want:?}, got {got:?}")
    })?;
    // FROM in the query does the same.
    let got = values(
        store,
        &format!("SELECT ?s FROM <{g2}> WHERE {{ ?s {p} ?o }}"),
        "s",
    )
    .await?;
    let want = vec![run.node("b").as_str().to_owned()];
    ensure(got == want, || {
        format!("FROM expected {want:?}, got {got:?}")
    })?;
    // named-graph-uri restricts what GRAPH ?g sees.
    let got: Vec<String> = rows(
        store,
        SparqlQuery {
            named_graphs: vec![g2.clone()],
            ..SparqlQuery::new(format!("SELECT ?g WHERE {{ GRAPH ?g {{ ?s {p} ?o }} }}"))
        },
    )
    .await?
    .iter()
    .map(|r| r.string("g"))
    .collect();
    ensure(got == [g2.clone()], || {
        format!("named-graph-uri expected [{g2}], got {got:?}")
    })
}

async fn source_records(store: &dyn GraphStore, run: &Run) -> Result<(), String> {
    let g = run.graph("record");
    let rec = SourceRecord {
        kind: GraphKind::Document,
        cut: "r1-t256-o32".to_owned(),
        ..record(&g, "sha-record", 1)
    };
    store
        .replace_graph(
            rec.clone(),
            vec![Triple::new(
                run.node("doc"),
                iri(vocab::RDF_TYPE),
                iri(vocab::dq("Document")),
            )],
        )
        .await
        .map_err(show)?;
    let sources = store.sources().await.map_err(show)?;
    let found = sources
        .iter()
        .find(|s| s.graph == g)
        .ok_or_else(|| format!("{g} missing from sources()"))?;
    ensure(*found == rec, || {
        format!("record round trip: wrote {rec:?}, read {found:?}")
    })
}

async fn idempotent_replace(store: &dyn GraphStore, run: &Run) -> Result<(), String> {
    let g = run.graph("idem");
    let p = run.pred("idem");
    let triples: Vec<Triple> = (0..5)
        .map(|i| {
            Triple::new(
                run.node(&format!("s{i}")),
                p.clone(),
                term::string(format!("v{i}")),
            )
        })
        .collect();
    put(store, &g, "idem", triples.clone()).await?;
    let before = store.len().await.map_err(show)?;
    put(store, &g, "idem", triples).await?;
    let after = store.len().await.map_err(show)?;
    ensure(before == after, || {
        format!("replacing with the same triples changed the quad count {before} → {after}")
    })?;
    let records = store
        .sources()
        .await
        .map_err(show)?
        .into_iter()
        .filter(|s| s.graph == g)
        .count();
    ensure(records == 1, || {
        format!("{records} meta records for one graph")
    })
}

async fn literals_round_trip(store: &dyn GraphStore, run: &Run) -> Result<(), String> {
    let g = run.graph("literals");
    let p = run.pred("lit");
    let literals: Vec<Term> = vec![
        term::string("plain").into(),
        term::string("quote \" backslash \\ newline\n tab\t unicode °F ✓").into(),
        Literal::new_language_tagged_literal_unchecked("Luftbehandlungsgerät", "de").into(),
        Literal::new_typed_literal("55", xsd::INTEGER).into(),
        Literal::new_typed_literal("12.5", xsd::DECIMAL).into(),
        term::date_time(DateTime::<Utc>::from_timestamp(1_700_000_000, 0).unwrap_or_default())
            .into(),
    ];
    let triples = literals
        .iter()
        .enumerate()
        .map(|(i, o)| Triple::new(run.node(&format!("l{i}")), p.clone(), o.clone()))
        .collect();
    put(store, &g, "lit", triples).await?;
    let found = rows(
        store,
        SparqlQuery::new(format!(
            "SELECT ?s ?o WHERE {{ GRAPH <{g}> {{ ?s {p} ?o }} }} ORDER BY ?s"
        )),
    )
    .await?;
    let got: Vec<Term> = found.iter().filter_map(|r| r.get("o").cloned()).collect();
    ensure(got == literals, || {
        format!("literals wrote {literals:?}, read {got:?}")
    })
}

async fn blank_nodes(store: &dyn GraphStore, run: &Run) -> Result<(), String> {
    // An OWL-restriction-like shape: the blank node joins its triples.
    let g = run.graph("blank");
    let on = run.pred("onProperty");
    let sub = run.pred("subClassOf");
    let b = BlankNode::new_unchecked("r1");
    put(
        store,
        &g,
        "blank",
        vec![
            Triple::new(run.node("Class"), sub.clone(), b.clone()),
            Triple::new(b.clone(), on.clone(), run.node("prop")),
        ],
    )
    .await?;
    let got = values(
        store,
        &format!("SELECT ?prop WHERE {{ GRAPH <{g}> {{ ?c {sub} ?r . ?r {on} ?prop FILTER isBlank(?r) }} }}"),
        "prop",
    )
    .await?;
    let want = vec![run.node("prop").as_str().to_owned()];
    ensure(got == want, || {
        format!("blank node join expected {want:?}, got {got:?}")
    })
}

async fn query_forms(store: &dyn GraphStore, run: &Run) -> Result<(), String> {
    let g = run.graph("replace");
    let ask = store
        .query(SparqlQuery::new(format!(
            "ASK {{ GRAPH <{g}> {{ ?s ?p ?o }} }}"
        )))
        .await
        .map_err(show)?;
    ensure(ask == QueryOutput::Boolean(true), || {
        format!("ASK gave {ask:?}")
    })?;
    let ask = store
        .query(SparqlQuery::new(format!(
            "ASK {{ GRAPH <{g}-none> {{ ?s ?p ?o }} }}"
        )))
        .await
        .map_err(show)?;
    ensure(ask == QueryOutput::Boolean(false), || {
        format!("ASK on nothing gave {ask:?}")
    })?;
    let out = store
        .query(SparqlQuery::new(format!(
            "CONSTRUCT {{ ?o ?p ?s }} WHERE {{ GRAPH <{g}> {{ ?s ?p ?o }} }}"
        )))
        .await
        .map_err(show)?;
    match out {
        QueryOutput::Graph { triples, truncated } => {
            let want = Triple::new(run.node("vav3"), run.pred("feeds"), run.node("ahu1"));
            ensure(!truncated && triples == vec![want.clone()], || {
                format!("CONSTRUCT expected [{want:?}], got {triples:?}")
            })
        }
        other => Err(format!("CONSTRUCT gave {other:?}")),
    }
}

async fn max_rows(store: &dyn GraphStore, run: &Run) -> Result<(), String> {
    let g = run.graph("idem");
    let out = store
        .query(SparqlQuery {
            max_rows: Some(3),
            ..SparqlQuery::new(format!("SELECT ?s WHERE {{ GRAPH <{g}> {{ ?s ?p ?o }} }}"))
        })
        .await
        .map_err(show)?;
    match out {
        QueryOutput::Solutions {
            rows,
            truncated,
            variables,
        } => ensure(rows.len() == 3 && truncated && variables == ["s"], || {
            format!(
                "expected 3 rows, truncated, [s]; got {} rows, truncated {truncated}, {variables:?}",
                rows.len()
            )
        }),
        other => Err(format!("expected solutions, got {other:?}")),
    }
}

async fn refusals(store: &dyn GraphStore) -> Result<(), String> {
    let err = store
        .query(SparqlQuery::new("INSERT DATA { <urn:a> <urn:b> <urn:c> }"))
        .await;
    ensure(matches!(err, Err(StoreError::UpdateRefused)), || {
        format!("an update sent as a query gave {err:?}")
    })?;
    let err = store.query(SparqlQuery::new("SELEC ?x WHERE {}")).await;
    ensure(matches!(err, Err(StoreError::Syntax(_))), || {
        format!("a syntax error gave {err:?}")
    })?;
    // An empty text parses as an update of no operation; as a query it is
    // malformed, not an update to refuse (schemathesis found the 403).
    for empty in ["", "  ", "PREFIX ex: <urn:ex#> # nothing"] {
        let err = store.query(SparqlQuery::new(empty)).await;
        ensure(matches!(err, Err(StoreError::Syntax(_))), || {
            format!("the query {empty:?} gave {err:?}")
        })?;
    }
    let err = store
        .query(SparqlQuery::new(
            "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }",
        ))
        .await;
    ensure(matches!(err, Err(StoreError::ServiceRefused(_))), || {
        format!("SERVICE gave {err:?}")
    })?;
    let err = store
        .replace_graph(record("not a graph name", "x", 0), Vec::new())
        .await;
    ensure(matches!(err, Err(StoreError::InvalidRdf(_))), || {
        format!("an invalid graph name gave {err:?}")
    })
}

async fn remove(store: &dyn GraphStore, run: &Run) -> Result<(), String> {
    let g = run.graph("remove");
    let p = run.pred("rm");
    let before = store.len().await.map_err(show)?;
    put(
        store,
        &g,
        "rm",
        vec![
            Triple::new(run.node("x"), p.clone(), term::string("1")),
            Triple::new(run.node("y"), p.clone(), term::string("2")),
        ],
    )
    .await?;
    let added = store.len().await.map_err(show)? - before;
    // Two data triples and the meta record's seven.
    ensure(added == 9, || {
        format!("expected 9 new quads, found {added}")
    })?;
    store.remove_graph(&g).await.map_err(show)?;
    let after = store.len().await.map_err(show)?;
    ensure(after == before, || {
        format!("quads {before} → {after} after remove")
    })?;
    let still = store
        .sources()
        .await
        .map_err(show)?
        .iter()
        .any(|s| s.graph == g);
    ensure(!still, || format!("{g} still recorded after remove"))?;
    // Removing what is not there is not an error.
    store.remove_graph(&g).await.map_err(show)
}

fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if cond { Ok(()) } else { Err(msg()) }
}

fn show(e: StoreError) -> String {
    e.to_string()
}
