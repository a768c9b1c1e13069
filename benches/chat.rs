#![allow(clippy::unwrap_used, missing_docs)]
//! `POST /chat` over HTTP on the demo campus and corpus: latency
//! percentiles (p50/p95/p99), requests per second at 1 and 8 concurrent
//! clients, and the mean time per pipeline stage (from the trace).
//!
//! Run with `cargo bench --bench chat` (after `bash scripts/setup.sh`).
//! `DAEMONIQ_BENCH_REQUESTS` sets the requests per run (default 400);
//! `DAEMONIQ_BENCH_SETS` (e.g. `documents`) runs only the named question
//! sets (`mixed`, `composed graph`, `documents`).
//! `DAEMONIQ_BENCH_SPARQL_URL` (a server base URL with `/query` and
//! `/update`) puts the graph in a remote SPARQL store
//! (`DAEMONIQ_BENCH_SPARQL_SERVER_UNION=1` when its default graph is the
//! union), and
//! `DAEMONIQ_BENCH_QDRANT_URL` (gRPC) the vectors in a fresh Qdrant
//! collection (`DAEMONIQ_BENCH_QDRANT_API_KEY` if it needs a key), to
//! measure the same requests over the scale-out backends.
//! The questions are a fixed mix of graph, document, selected-text and
//! out-of-scope questions written for this bench, then a second set of
//! questions the graph query engine composes (lists with conditions,
//! counts per group, chains of supply, yes/no), and a third of document
//! questions in everyday wording, each measured apart.

use daemoniq::backends::{self, Embedded};
use daemoniq::config::{AnswerConfig, BackendConfig, HttpConfig, IndexConfig};
use daemoniq::ingest::DocOptions;
use daemoniq::{AppParts, AppState, Snapshot};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;

use common::root;

const QUESTIONS: &[&str] = &[
    "what feeds VAV-1-05?",
    "which vav boxes does ahu-3 serve",
    "list the points on chwp-2",
    "where is vav-b1-05",
    "what model is CH-2",
    "brick definition of a chilled water pump",
    "approved firmware version for the YNX-520 controllers?",
    "chilled water reset range for the plant",
    "when was the b-1 burner last serviced",
    "what is the minimum airflow of vav-1-05",
    "How many vacation days do employees get?",
    "what feeds VAV-9-99?",
];

/// Questions the documents answer (or should refuse), in everyday
/// wording, written for this bench: what hybrid retrieval, passages and
/// the answerability rules cost per request.
const DOCUMENTS: &[&str] = &[
    "what happens to a vav box when the zone is unoccupied",
    "during warm-up what supply air temp does the air handler use",
    "chilled water reset range for the plant",
    "when was the b-1 burner last serviced",
    "approved firmware version for the YNX-520 controllers?",
    "what alarm level is a leaking reheat valve",
    "how is the SAT reset in cooling",
    "what does the sequence say about economizer lockout",
    "how often are the cooling tower fans inspected",
    "which document covers the chiller plant startup",
];

/// Questions the graph query engine composes into one SPARQL query.
const COMPOSED: &[&str] = &[
    "how many vavs per ahu",
    "which vavs on ahu-3 don't have a co2 sensor",
    "which chillers are upstream of VAV-1-05",
    "list all the chillers",
    "how many points does AHU-1 have",
    "which zones does AHU-2 serve",
    "is VAV-3-02 fed by AHU-1?",
    "which pumps feed the ahu-2 cooling coil",
];

async fn state() -> (Arc<AppState>, tempfile::TempDir) {
    let sources = common::campus_sources();
    let config = BackendConfig {
        sparql_query_url: std::env::var("DAEMONIQ_BENCH_SPARQL_URL")
            .ok()
            .map(|u| format!("{u}/query")),
        sparql_update_url: std::env::var("DAEMONIQ_BENCH_SPARQL_URL")
            .ok()
            .map(|u| format!("{u}/update")),
        sparql_server_union: std::env::var("DAEMONIQ_BENCH_SPARQL_SERVER_UNION")
            .is_ok_and(|v| v == "1"),
        qdrant_url: std::env::var("DAEMONIQ_BENCH_QDRANT_URL").ok(),
        qdrant_api_key: std::env::var("DAEMONIQ_BENCH_QDRANT_API_KEY").ok(),
        qdrant_collection: format!("bench_{}", std::process::id()),
        ..BackendConfig::default()
    };
    let store = backends::open_store(&config, &Embedded::Memory)
        .await
        .unwrap();
    eprintln!(
        "backends: graph {}, vectors {}",
        store.backend(),
        if config.qdrant().is_some() {
            "qdrant"
        } else {
            "qdrant-edge"
        }
    );
    let (_, ontology) = sources.sync(store.as_ref()).await.unwrap();
    let snapshot = Snapshot::build(store.as_ref(), ontology).await.unwrap();
    let reports = tempfile::tempdir().unwrap();
    let cfg = IndexConfig {
        docs_root: root(),
        ..IndexConfig::default()
    };
    let docs = backends::open_docs(
        &cfg,
        &config,
        &Embedded::Memory,
        Arc::clone(&store),
        &sources.assets,
        reports.path().to_path_buf(),
    )
    .await
    .unwrap();
    let dir = root().join("golden/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name().is_some_and(|n| n != "README.md")
                && p.extension().is_some_and(|e| e == "md" || e == "pdf")
        })
        .collect();
    files.sort();
    let collected = docs.collect(&files).unwrap();
    docs.ingest(
        &snapshot.grounder,
        docs.inputs(&collected),
        &DocOptions::default(),
        &|_| {},
    )
    .await
    .unwrap();
    let state = AppState::open(AppParts {
        store,
        snapshot,
        http: HttpConfig::default(),
        docs: Some(Arc::new(docs)),
        answer: AnswerConfig::default(),
    })
    .unwrap();
    (state, reports)
}

struct Run {
    latencies: Vec<Duration>,
    wall: Duration,
    stages: BTreeMap<String, f64>,
    statuses: BTreeMap<String, usize>,
    /// Answers the graph query engine composed.
    composed: usize,
}

async fn run(base: &str, questions: &'static [&'static str], clients: usize, total: usize) -> Run {
    let client = reqwest::Client::new();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let client = client.clone();
        let url = format!("{base}/chat");
        let n = total / clients;
        tasks.push(tokio::spawn(async move {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let q = questions[(c * 7 + i) % questions.len()];
                let t = Instant::now();
                let v: Value = client
                    .post(&url)
                    .json(&json!({ "query": q }))
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                out.push((t.elapsed(), v));
            }
            out
        }));
    }
    let mut latencies = Vec::new();
    let mut stages: BTreeMap<String, f64> = BTreeMap::new();
    let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
    let mut composed = 0;
    for t in tasks {
        for (d, v) in t.await.unwrap() {
            latencies.push(d);
            composed += usize::from(v["trace"]["graph"]["answer"].is_object());
            *statuses
                .entry(v["status"].as_str().unwrap_or("?").to_owned())
                .or_default() += 1;
            if let Some(s) = v["trace"]["stages_ms"].as_object() {
                for (k, ms) in s {
                    *stages.entry(k.clone()).or_default() += ms.as_f64().unwrap_or(0.0);
                }
            }
        }
    }
    let wall = started.elapsed();
    let n = latencies.len() as f64;
    for v in stages.values_mut() {
        *v /= n;
    }
    latencies.sort();
    Run {
        latencies,
        wall,
        stages,
        statuses,
        composed,
    }
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

fn main() {
    // `cargo test --benches` runs bench targets with `--bench`-less args; keep
    // that quick.
    if !std::env::args().any(|a| a == "--bench") {
        println!("chat bench: run with `cargo bench --bench chat`");
        return;
    }
    let total: usize = std::env::var("DAEMONIQ_BENCH_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (state, _reports) = state().await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(daemoniq::serve(listener, state, async {
            let _ = rx.await;
        }));
        // Warm-up: model, caches, connections.
        run(&base, QUESTIONS, 1, QUESTIONS.len() * 2).await;
        let only = std::env::var("DAEMONIQ_BENCH_SETS").unwrap_or_default();
        for (name, questions) in [
            ("mixed", QUESTIONS),
            ("composed graph", COMPOSED),
            ("documents", DOCUMENTS),
        ] {
            if !only.is_empty() && !only.split(',').any(|s| s.trim() == name) {
                continue;
            }
            println!(
                "chat over HTTP, {name} questions: {} in rotation, {total} requests per run",
                questions.len()
            );
            println!("clients |  p50 ms |  p95 ms |  p99 ms |  req/s | composed | statuses");
            for clients in [1, 8] {
                let r = run(&base, questions, clients, total).await;
                println!(
                    "{clients:>7} | {:>7.2} | {:>7.2} | {:>7.2} | {:>6.1} | {:>8} | {:?}",
                    pct(&r.latencies, 0.50),
                    pct(&r.latencies, 0.95),
                    pct(&r.latencies, 0.99),
                    r.latencies.len() as f64 / r.wall.as_secs_f64(),
                    r.composed,
                    r.statuses
                );
                println!(
                    "        mean ms per stage: {}",
                    r.stages
                        .iter()
                        .map(|(k, v)| format!("{k} {v:.2}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        let _ = tx.send(());
        server.await.unwrap().unwrap();
    });
}
