#![allow(clippy::unwrap_used, missing_docs)]
//! Ingest and retrieval speed: extraction, chunking, grounding, embedding
//! throughput (by batch size), whole-document ingest, and vector search
//! (vanilla and match-any filtered) over the demo corpus.
//!
//! Run with `cargo bench --bench ingest` (after `bash scripts/setup.sh`).
//! G36 inputs come from `../shared/data/docs` when present.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use daemoniq::backends::{self, Embedded};
use daemoniq::config::{BackendConfig, IndexConfig};
use daemoniq::embed::{EmbedOptions, Embedder};
use daemoniq::ground::Grounder;
use daemoniq::ingest::chunk::{ChunkOptions, TokenCounter, chunk};
use daemoniq::ingest::extract::extract;
use daemoniq::ingest::{DocOptions, Input};
use daemoniq::vector::{MatchAny, Search};
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;

mod common;

use common::{assets, root};

fn corpus_file(name: &str) -> (PathBuf, Vec<u8>) {
    let p = root().join("golden/corpus").join(name);
    let bytes = std::fs::read(&p).unwrap();
    (p, bytes)
}

fn g36(name: &str) -> Option<(PathBuf, Vec<u8>)> {
    let p = root().join("../shared/data/docs").join(name);
    std::fs::read(&p).ok().map(|b| (p, b))
}

fn bench(c: &mut Criterion) {
    let rt = Runtime::new().unwrap();
    let assets = assets();
    let counter = TokenCounter::from_assets(&assets).unwrap();
    let mut inputs = vec![
        corpus_file("northfield_soo_vav.md"),
        corpus_file("northfield_chiller_plant_manual.pdf"),
    ];
    inputs.extend(g36("g36/TerminalUnits_Reheat_Controller.html"));
    inputs.extend(g36("pdf/G36-multizone-AHU-setpoints.pdf"));

    let mut g = c.benchmark_group("extract+chunk");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (path, bytes) in &inputs {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(format!("extract {name}"), |b| {
            b.iter(|| black_box(extract(path, bytes).unwrap()))
        });
        let doc = extract(path, bytes).unwrap();
        g.bench_function(format!("chunk {name}"), |b| {
            b.iter(|| black_box(chunk(&doc, &counter, &ChunkOptions::default())))
        });
    }
    g.finish();

    let state = rt.block_on(common::campus_state());
    let grounder = rt
        .block_on(Grounder::load(state.store.as_ref(), &state.ontology()))
        .unwrap();
    let (path, bytes) = &inputs[0];
    let chunks = chunk(
        &extract(path, bytes).unwrap(),
        &counter,
        &ChunkOptions::default(),
    );
    let texts: Vec<String> = chunks.iter().map(|c| c.text.clone()).collect();

    let mut g = c.benchmark_group("ground");
    g.throughput(Throughput::Elements(texts.len() as u64));
    g.bench_function("ground every chunk of the VAV sequence", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(grounder.ground(t));
            }
        })
    });
    g.bench_function("ground a question", |b| {
        b.iter(|| black_box(grounder.ground("what is the DAT setpoint of vav 2-14 on ahu2?")))
    });
    g.finish();

    let mut g = c.benchmark_group("embed");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let batch: Vec<String> = texts.iter().cycle().take(64).cloned().collect();
    for (threads, size) in [(1usize, 1usize), (1, 32), (2, 1), (2, 32)] {
        let embedder = Embedder::from_assets(
            &assets,
            EmbedOptions {
                threads,
                batch_size: size,
            },
        )
        .unwrap();
        g.throughput(Throughput::Elements(batch.len() as u64));
        g.bench_function(format!("64 chunks, {threads} threads, batch {size}"), |b| {
            b.iter(|| black_box(embedder.embed(&batch).unwrap()))
        });
    }
    g.bench_function("one question", |b| {
        let embedder = Embedder::from_assets(&assets, EmbedOptions::default()).unwrap();
        b.iter(|| black_box(embedder.embed_one("what feeds VAV-2-14?").unwrap()))
    });
    g.finish();

    // A document service over the demo corpus for whole-document and search timings.
    let docs_dir = tempfile::tempdir().unwrap();
    let cfg = IndexConfig {
        docs_root: root(),
        ..IndexConfig::default()
    };
    let docs = rt
        .block_on(backends::open_docs(
            &cfg,
            &BackendConfig::default(),
            &Embedded::Disk(docs_dir.path().to_path_buf()),
            Arc::clone(&state.store),
            &assets,
            docs_dir.path().join("reports"),
        ))
        .unwrap();
    let corpus = docs.collect(&[root().join("golden/corpus")]).unwrap();
    let report = rt
        .block_on(docs.ingest(
            &grounder,
            docs.inputs(&corpus),
            &DocOptions::default(),
            &|_| {},
        ))
        .unwrap();
    eprintln!(
        "demo corpus: {} documents, {} chunks, {:.0} ms",
        report.counts.documents, report.counts.chunks_written, report.elapsed_ms
    );

    let mut g = c.benchmark_group("ingest");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let (_, vav_bytes) = corpus_file("northfield_soo_vav.md");
    let mut version = 0u64;
    g.bench_function("re-index the VAV sequence (changed bytes)", |b| {
        b.iter_batched(
            || {
                version += 1;
                let mut bytes = vav_bytes.clone();
                bytes.extend_from_slice(format!("\n\nRevision {version}.\n").as_bytes());
                vec![Input {
                    source_ref: "bench/vav.md".into(),
                    bytes: Ok(bytes),
                    updated_at: chrono::Utc::now(),
                }]
            },
            |inputs| {
                rt.block_on(docs.ingest(&grounder, inputs, &DocOptions::default(), &|_| {}))
                    .unwrap()
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    let index = Arc::clone(docs.ingestor().index());
    let embedder = Arc::clone(docs.ingestor().embedder());
    let q = embedder
        .embed_one("minimum airflow setpoint of reheat VAV boxes")
        .unwrap();
    let mut g = c.benchmark_group("search");
    g.bench_function("vanilla top 20", |b| {
        b.iter(|| {
            rt.block_on(index.search(Search {
                vector: q.clone(),
                limit: 20,
                filter: None,
                exclude_source_id: None,
            }))
            .unwrap()
        })
    });
    g.bench_function("filtered top 20 (equip vav, brick_equip)", |b| {
        b.iter(|| {
            rt.block_on(index.search(Search {
                vector: q.clone(),
                limit: 20,
                filter: Some(MatchAny {
                    equip: vec!["vav".into()],
                    brick_equip: vec!["Variable_Air_Volume_Box_With_Reheat".into()],
                    ..MatchAny::default()
                }),
                exclude_source_id: None,
            }))
            .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
