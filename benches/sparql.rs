#![allow(clippy::unwrap_used, missing_docs)]
//! SPARQL latency over the demo campus: typical Ontology-UI queries in-process
//! and through HTTP, plus Brick 1.4 load time.
//!
//! Run with `cargo bench --bench sparql` (after `bash scripts/setup.sh`).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use daemoniq::AppState;
use daemoniq::import::{self, SourceFile};
use daemoniq::store::{EmbeddedStore, GraphKind, SparqlQuery};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;

mod common;

use common::assets;

const PREFIXES: &str = daemoniq::vocab::PREFIXES;

fn queries() -> Vec<(&'static str, String)> {
    vec![
        (
            "class tree count",
            format!(
                "{PREFIXES}SELECT (COUNT(?c) AS ?n) WHERE {{ ?c rdfs:subClassOf+ brick:Equipment }}"
            ),
        ),
        (
            "class tree children",
            format!(
                "{PREFIXES}SELECT ?c ?l WHERE {{ ?c rdfs:subClassOf brick:HVAC_Equipment . OPTIONAL {{ ?c rdfs:label ?l }} }}"
            ),
        ),
        (
            "downstream of AHU-1",
            format!(
                "{PREFIXES}SELECT DISTINCT ?d ?l WHERE {{ ?a rdfs:label \"AHU-1\" . ?a brick:feeds+ ?d . OPTIONAL {{ ?d rdfs:label ?l }} }}"
            ),
        ),
        (
            "points of VAV-2-14",
            format!(
                "{PREFIXES}SELECT ?p ?l ?c WHERE {{ ?v rdfs:label \"VAV-2-14\" ; brick:hasPoint ?p . ?p a ?c ; rdfs:label ?l }}"
            ),
        ),
        (
            "label search",
            format!(
                "{PREFIXES}SELECT ?s ?l WHERE {{ ?s dq:sourceSha ?x ; rdfs:label ?l . FILTER(CONTAINS(LCASE(?l), \"vav-2\")) }} LIMIT 50"
            ),
        ),
    ]
}

fn campus(rt: &Runtime) -> Arc<AppState> {
    rt.block_on(common::campus_state())
}

fn brick_load(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let brick = assets()
        .require_brick()
        .expect("run scripts/setup.sh first");
    let bytes = std::fs::metadata(&brick).unwrap().len();
    let mut group = c.benchmark_group("brick");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function("load Brick 1.4 into memory", |b| {
        b.iter(|| {
            rt.block_on(async {
                let store = EmbeddedStore::in_memory().unwrap();
                let src = SourceFile {
                    path: brick.clone(),
                    rel_path: "Brick.ttl".into(),
                    kind: GraphKind::Ontology,
                };
                black_box(import::import_file(&store, None, &src).await.unwrap());
            })
        })
    });
    group.finish();
}

fn in_process(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let state = campus(&rt);
    let mut group = c.benchmark_group("inproc");
    for (name, q) in queries() {
        group.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(async {
                    black_box(
                        state
                            .store
                            .query(SparqlQuery::new(q.clone()))
                            .await
                            .unwrap(),
                    )
                })
            })
        });
    }
    let topo = state.topology();
    let ahu = match topo.resolve("AHU-1") {
        daemoniq::topology::Resolution::Found(iri) => iri,
        other => panic!("{other:?}"),
    };
    group.bench_function("petgraph downstream of AHU-1", |b| {
        b.iter(|| black_box(topo.downstream(&ahu, 64)))
    });
    group.finish();
}

fn over_http(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let state = campus(&rt);
    let (base, stop) = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(daemoniq::serve(listener, state, async {
            let _ = rx.await;
        }));
        (base, tx)
    });
    let client = reqwest::Client::new();
    let mut group = c.benchmark_group("http");
    group.measurement_time(Duration::from_secs(5));
    for (name, q) in queries() {
        group.bench_function(name, |b| {
            b.iter(|| {
                rt.block_on(async {
                    let resp = client
                        .get(format!("{base}/sparql"))
                        .query(&[("query", q.as_str())])
                        .send()
                        .await
                        .unwrap();
                    assert!(resp.status().is_success());
                    black_box(resp.bytes().await.unwrap())
                })
            })
        });
    }
    group.bench_function("topology downstream of AHU-1", |b| {
        b.iter(|| {
            rt.block_on(async {
                let resp = client
                    .get(format!("{base}/api/topology/downstream?id=AHU-1"))
                    .send()
                    .await
                    .unwrap();
                black_box(resp.bytes().await.unwrap())
            })
        })
    });
    group.finish();
    let _ = stop.send(());
}

criterion_group!(benches, brick_load, in_process, over_http);
criterion_main!(benches);
