//! Ingest: real G36 HTML and PDFs, idempotence, replacement, delete, bad
//! input, duplicates, and the HTTP document endpoints.

use crate::common;
use daemoniq::config::{AnswerConfig, HttpConfig, IndexConfig};
use daemoniq::ground::Grounder;
use daemoniq::ingest::chunk::TokenCounter;
use daemoniq::ingest::{DocOptions, DocService, DocStatus, Input, RunReport, document};
use daemoniq::store::{GraphStore, SparqlQuery};
use daemoniq::vector::{ChunkPoint, StoredPoint};
use daemoniq::{AppState, vocab};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Campus state with a document service over a scratch vector index.
pub async fn docs_state(
    docs_root: &Path,
    tweak: impl FnOnce(&mut IndexConfig),
) -> (Arc<AppState>, Arc<DocService>, tempfile::TempDir) {
    docs_state_with(
        docs_root,
        tweak,
        AnswerConfig::default(),
        HttpConfig::default(),
    )
    .await
}

/// [`docs_state`] answering under `answer`, serving under `http`.
pub async fn docs_state_with(
    docs_root: &Path,
    tweak: impl FnOnce(&mut IndexConfig),
    answer: AnswerConfig,
    http: HttpConfig,
) -> (Arc<AppState>, Arc<DocService>, tempfile::TempDir) {
    let (store, ontology) = common::campus_store().await;
    let reports = tempfile::tempdir().unwrap();
    let mut cfg = IndexConfig {
        docs_root: docs_root.to_path_buf(),
        ort_threads: Some(2),
        ..IndexConfig::default()
    };
    tweak(&mut cfg);
    let docs = DocService::open(
        &cfg,
        Arc::clone(&store),
        &common::assets(),
        None,
        reports.path().to_path_buf(),
    )
    .await
    .unwrap();
    let docs = Arc::new(docs);
    let state = common::state_over(store, ontology, http, Some(Arc::clone(&docs)), answer).await;
    (state, docs, reports)
}

async fn grounder(state: &AppState) -> Grounder {
    Grounder::load(state.store.as_ref(), &state.ontology())
        .await
        .unwrap()
}

async fn ingest_paths(
    state: &AppState,
    docs: &DocService,
    paths: &[PathBuf],
    opts: &DocOptions,
) -> RunReport {
    let files = docs.collect(paths).unwrap();
    let inputs = docs.inputs(&files);
    docs.ingest(&grounder(state).await, inputs, opts, &|_| {})
        .await
        .unwrap()
}

async fn points_by_source(docs: &DocService) -> BTreeMap<String, Vec<StoredPoint>> {
    let index = docs.ingestor().index();
    let mut out = BTreeMap::new();
    for id in index.sources().await.unwrap().keys() {
        out.insert(id.clone(), index.points_of(id, true).await.unwrap());
    }
    out
}

async fn ask(store: &dyn GraphStore, q: String) -> bool {
    match store
        .query(SparqlQuery::new(format!("{}{q}", vocab::PREFIXES)))
        .await
        .unwrap()
    {
        daemoniq::store::QueryOutput::Boolean(b) => b,
        other => panic!("not an ASK result: {other:?}"),
    }
}

async fn resolves(store: &dyn GraphStore, iri: &str) -> bool {
    ask(store, format!("ASK {{ <{iri}> ?p ?o }}")).await
}

fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Text of each page of a PDF, straight from lopdf (independent of the
/// extractor under test).
fn pdf_pages(path: &Path) -> BTreeMap<String, String> {
    let doc = lopdf::Document::load(path).unwrap();
    doc.get_pages()
        .keys()
        .map(|&n| (n.to_string(), norm(&doc.extract_text(&[n]).unwrap())))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g36_html_and_pdfs_become_linked_valid_chunks_with_true_page_labels() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (state, docs, reports) = docs_state(&data, |_| {}).await;
    let report = ingest_paths(
        &state,
        &docs,
        &[data.join("docs/g36"), data.join("docs/pdf")],
        &DocOptions::default(),
    )
    .await;
    println!(
        "G36 ingest: {} documents, {} indexed, {} failed, {} chunks written, {} skipped, {} errors, {:.0} ms",
        report.counts.documents,
        report.counts.indexed,
        report.counts.failed,
        report.counts.chunks_written,
        report.counts.chunks_skipped,
        report.counts.errors,
        report.elapsed_ms
    );
    assert_eq!(report.counts.documents, 67, "65 HTML + 2 PDF");
    // A document none of whose chunks names anything in the graph is not
    // indexed, and says so in the error report.
    for d in report
        .documents
        .iter()
        .filter(|d| d.status == DocStatus::Failed)
    {
        assert!(
            report
                .errors
                .iter()
                .any(|e| e.file == d.source_ref && e.chunk.is_none() && e.reason.contains("links")),
            "{} failed without a reason",
            d.source_ref
        );
    }
    assert!(report.counts.indexed >= 60, "{:#?}", report.errors);
    assert!(report.counts.chunks_written > 100);
    let indexed = report.counts.indexed;

    // Reports on disk.
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(reports.path().join("index_metadata.json")).unwrap())
            .unwrap();
    assert_eq!(meta["model"]["dimension"], 384);
    assert_eq!(meta["documents"].as_array().unwrap().len(), 67);
    assert_eq!(meta["counts"]["indexed"], indexed);
    let errors: serde_json::Value =
        serde_json::from_slice(&std::fs::read(reports.path().join("index_errors.json")).unwrap())
            .unwrap();
    assert_eq!(errors["count"], report.errors.len());

    let schema = common::schema("chunk_payload.schema.json");
    let counter = TokenCounter::from_assets(&common::assets()).unwrap();
    let store = state.store.as_ref();
    let mut checked_iris = BTreeSet::new();
    let points = points_by_source(&docs).await;
    assert_eq!(points.len(), indexed);
    let mut pdf_chunks = 0;
    for (source_id, pts) in &points {
        for p in pts {
            let payload = serde_json::to_value(&p.payload).unwrap();
            let errs: Vec<String> = schema
                .iter_errors(&payload)
                .map(|e| e.to_string())
                .collect();
            assert!(
                errs.is_empty(),
                "{source_id}#{}: {errs:?}",
                p.payload.chunk_index
            );
            assert!(!p.payload.graph_ids.is_empty());
            for iri in &p.payload.graph_ids {
                if checked_iris.insert(iri.clone()) {
                    assert!(
                        resolves(store, iri).await,
                        "{iri} does not resolve in the store"
                    );
                }
            }
            let tokens = counter.count(&p.payload.node_content);
            assert!(
                tokens <= 256,
                "{} chunk {} has {tokens} tokens",
                p.payload.source_ref,
                p.payload.chunk_index
            );
            assert_eq!(p.vector.as_ref().map(Vec::len), Some(384));
            assert!(!p.payload.source_ref.starts_with('/'));
        }
    }
    // Page labels: every PDF chunk's opening words are on the page its label names.
    for pdf in [
        "G36-VAV-terminal-unit-with-reheat.pdf",
        "G36-multizone-AHU-setpoints.pdf",
    ] {
        let pages = pdf_pages(&data.join("docs/pdf").join(pdf));
        let id = document::source_id(&format!("docs/pdf/{pdf}"));
        let pts = &points[&id];
        let labels: BTreeSet<&str> = pts.iter().map(|p| p.payload.page_label.as_str()).collect();
        assert!(labels.len() > 1, "{pdf}: chunks on one page only");
        for p in pts {
            pdf_chunks += 1;
            let page = pages
                .get(&p.payload.page_label)
                .unwrap_or_else(|| panic!("{pdf}: no page {}", p.payload.page_label));
            let words: Vec<&str> = p.payload.node_content.split_whitespace().take(4).collect();
            let probe = norm(&words.join(" "));
            // A table row's cells are joined by " | " in the chunk; the
            // page's text has no separator.
            let probe_nospace: String = probe.split_whitespace().filter(|w| *w != "|").collect();
            let page_nospace: String = page.split_whitespace().collect();
            assert!(
                page_nospace.contains(&probe_nospace),
                "{pdf} chunk {} (page {}) starts with {probe:?}, not on that page",
                p.payload.chunk_index,
                p.payload.page_label
            );
        }
    }
    assert!(pdf_chunks > 10);

    // Graph side: one dq:Document per file, chunk nodes mention the payload ids.
    let docs_listed = docs.ingestor().documents().await.unwrap();
    assert_eq!(docs_listed.len(), indexed);
    for d in &docs_listed {
        assert_eq!(d.chunks, d.points, "{}", d.source_ref);
    }
    let total: usize = docs_listed.iter().map(|d| d.points).sum();
    assert_eq!(total, docs.ingestor().index().count().await.unwrap());
}

fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn corpus(name: &str) -> String {
    std::fs::read_to_string(common::root().join("golden/corpus").join(name)).unwrap()
}

fn ids(points: &[StoredPoint]) -> Vec<String> {
    points.iter().map(|p| p.id.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reingest_is_a_no_op_change_replaces_one_file_and_delete_leaves_nothing() {
    let root = tempfile::tempdir().unwrap();
    let ahu = write(root.path(), "soo/ahu.md", &corpus("northfield_soo_ahu.md"));
    write(root.path(), "soo/vav.md", &corpus("northfield_soo_vav.md"));
    write(
        root.path(),
        "om/yorkland.md",
        &corpus("yorkland_om_notes.md"),
    );
    let (state, docs, _reports) = docs_state(root.path(), |_| {}).await;
    let dirs = [root.path().join("soo"), root.path().join("om")];
    let opts = DocOptions::default();

    let first = ingest_paths(&state, &docs, &dirs, &opts).await;
    assert_eq!(first.counts.indexed, 3, "{:#?}", first.errors);
    // Document and chunk nodes carry the provenance validation demands.
    let report = daemoniq::validate::validate(state.store.as_ref(), &state.ontology())
        .await
        .unwrap();
    assert!(report.ok, "{:#?}", report.violations);
    let before = points_by_source(&docs).await;
    let count_before = docs.ingestor().index().count().await.unwrap();
    let triples_before = state.store.len().await.unwrap();

    // Same bytes: nothing changes.
    let again = ingest_paths(&state, &docs, &dirs, &opts).await;
    assert_eq!(again.counts.unchanged, 3);
    assert_eq!(again.counts.chunks_written, 0);
    let after = points_by_source(&docs).await;
    assert_eq!(
        before
            .iter()
            .map(|(k, v)| (k.clone(), ids(v)))
            .collect::<Vec<_>>(),
        after
            .iter()
            .map(|(k, v)| (k.clone(), ids(v)))
            .collect::<Vec<_>>()
    );
    assert_eq!(docs.ingestor().index().count().await.unwrap(), count_before);
    assert_eq!(state.store.len().await.unwrap(), triples_before);

    // Change one file: only its points change.
    let ahu_id = document::source_id("soo/ahu.md");
    let mut text = corpus("northfield_soo_ahu.md");
    text.push_str(
        "\n\n## Added after retro-commissioning\n\nAHU-1 supply fan VFD minimum speed was raised \
         to 30 % after the 2025 test and balance report.\n",
    );
    std::fs::write(&ahu, text).unwrap();
    let changed = ingest_paths(&state, &docs, &dirs, &opts).await;
    assert_eq!(changed.counts.replaced, 1);
    assert_eq!(changed.counts.unchanged, 2);
    let replaced = points_by_source(&docs).await;
    for (id, pts) in &replaced {
        if *id == ahu_id {
            let old: BTreeSet<_> = ids(&before[id]).into_iter().collect();
            assert!(
                ids(pts).iter().all(|i| !old.contains(i)),
                "old points remain"
            );
            let shas: BTreeSet<_> = pts.iter().map(|p| p.payload.source_sha.clone()).collect();
            assert_eq!(shas.len(), 1);
        } else {
            assert_eq!(ids(pts), ids(&before[id]), "{id} changed");
        }
    }
    // The graph holds exactly the new version's chunk nodes.
    let listed = docs.ingestor().documents().await.unwrap();
    let ahu_doc = listed.iter().find(|d| d.source_id == ahu_id).unwrap();
    assert_eq!(ahu_doc.chunks, replaced[&ahu_id].len());
    assert_eq!(ahu_doc.source_sha, replaced[&ahu_id][0].payload.source_sha);

    // What each document mentions, from the graph, is what its chunks'
    // payloads link (read from the vector index, not the graph).
    let nf = "https://daemoniq.io/campus/northfield#";
    let asked: Vec<String> = ["CHW-SYS", "HW-SYS", "AHU-1", "VAV-2-14", "CH-9"]
        .iter()
        .map(|l| format!("{nf}{l}"))
        .chain(["not an iri>".to_owned()])
        .collect();
    let paths = ["soo/ahu.md", "soo/vav.md", "om/yorkland.md", "none.md"];
    let expected: BTreeSet<(String, String)> = replaced
        .values()
        .flatten()
        .flat_map(|p| {
            asked
                .iter()
                .filter(|id| p.payload.graph_ids.contains(id))
                .map(|id| (p.payload.source_ref.clone(), id.clone()))
        })
        .collect();
    assert!(expected.contains(&("soo/ahu.md".to_owned(), format!("{nf}CHW-SYS"))));
    assert!(expected.iter().any(|(p, _)| p == "soo/vav.md"));
    let mentioning = docs.ingestor().documents_mentioning(&paths, &asked);
    assert_eq!(mentioning.await.unwrap(), expected);
    assert!(
        docs.ingestor()
            .documents_mentioning(&paths, &[])
            .await
            .unwrap()
            .is_empty()
    );

    // Delete: no point and no graph node of that document remain.
    let removed = docs.ingestor().delete(&ahu_id).await.unwrap();
    assert_eq!(removed, Some(replaced[&ahu_id].len()));
    assert!(
        docs.ingestor()
            .index()
            .points_of(&ahu_id, false)
            .await
            .unwrap()
            .is_empty()
    );
    let doc_iri = document::doc_iri(&ahu_id);
    assert!(
        !ask(
            state.store.as_ref(),
            format!(
                "ASK {{ {{ <{doc_iri}> ?p ?o }} UNION {{ ?c dq:partOf <{doc_iri}> }} UNION \
                 {{ GRAPH <{}> {{ ?s ?p ?o }} }} }}",
                document::doc_graph(&ahu_id)
            )
        )
        .await
    );
    assert_eq!(docs.ingestor().documents().await.unwrap().len(), 2);
    assert!(
        docs.ingestor()
            .documents_mentioning(&paths, &asked)
            .await
            .unwrap()
            .iter()
            .all(|(p, _)| p != "soo/ahu.md")
    );
    assert_eq!(docs.ingestor().delete(&ahu_id).await.unwrap(), None);
}

/// A document committed by another cut (an older ingest revision, another
/// chunk window) is cut again though its bytes are the same, and none of
/// the old cut's points remain; points of a cut that was never committed
/// (a re-cut killed before its graph was written) are reconciled away,
/// leaving the committed cut whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_cut_otherwise_is_cut_again_and_an_uncommitted_cut_is_reconciled() {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "soo/vav.md", &corpus("northfield_soo_vav.md"));
    let (state, docs, reports) = docs_state(root.path(), |_| {}).await;
    let dirs = [root.path().join("soo")];
    let opts = DocOptions::default();
    let vav = document::source_id("soo/vav.md");
    let first = ingest_paths(&state, &docs, &dirs, &opts).await;
    assert_eq!(first.counts.indexed, 1, "{:#?}", first.errors);
    let old = ids(&points_by_source(&docs).await[&vav]);

    // The same store and index, chunks cut with a smaller window.
    let cfg = IndexConfig {
        docs_root: root.path().to_path_buf(),
        ort_threads: Some(2),
        chunk_tokens: 128,
        ..IndexConfig::default()
    };
    let recut = DocService::with_index(
        &cfg,
        Arc::clone(&state.store),
        &common::assets(),
        Arc::clone(docs.ingestor().index()),
        reports.path().to_path_buf(),
    )
    .unwrap();
    let again = ingest_paths(&state, &recut, &dirs, &opts).await;
    assert_eq!(again.counts.replaced, 1, "{:#?}", again.errors);
    assert_eq!(again.counts.unchanged, 0);
    let points = points_by_source(&docs).await;
    let new = ids(&points[&vav]);
    assert!(
        new.len() > old.len(),
        "{} chunks, {} before",
        new.len(),
        old.len()
    );
    assert!(new.iter().all(|i| !old.contains(i)), "old points remain");
    let listed = recut.ingestor().documents().await.unwrap();
    assert_eq!(listed[0].chunks, new.len());
    assert_eq!(listed[0].points, new.len());
    // Asked again with the window it was cut with: unchanged.
    let same = ingest_paths(&state, &recut, &dirs, &opts).await;
    assert_eq!(same.counts.unchanged, 1);

    // A re-cut with the first window killed after its points were written
    // and before its graph: those points carry the committed sha, but not
    // the committed cut's ids.
    let sha = points[&vav][0].payload.source_sha.clone();
    let half: Vec<ChunkPoint> = points[&vav]
        .iter()
        .take(2)
        .map(|p| ChunkPoint {
            id: document::point_id(&vav, &sha, "r999-t256-o32", p.payload.chunk_index),
            vector: p.vector.clone().unwrap(),
            payload: p.payload.clone(),
        })
        .collect();
    docs.ingestor().index().upsert(half).await.unwrap();
    assert_eq!(
        ids(&points_by_source(&docs).await[&vav]).len(),
        new.len() + 2
    );
    let reconciled = recut.ingestor().reconcile().await.unwrap();
    assert_eq!(reconciled.points_removed, 2);
    assert_eq!(ids(&points_by_source(&docs).await[&vav]), new);
}

fn encrypted_pdf() -> Vec<u8> {
    use lopdf::encryption::crypt_filters::*;
    use lopdf::{
        Document, EncryptionState, EncryptionVersion, Object, Permissions, Stream, dictionary,
    };
    let _ = std::marker::PhantomData::<Aes128CryptFilter>;
    let mut doc = Document::with_version("1.5");
    doc.trailer.set(
        "ID",
        Object::Array(vec![
            Object::string_literal(b"0123456789abcdef"),
            Object::string_literal(b"fedcba9876543210"),
        ]),
    );
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let content = doc.add_object(Stream::new(
        dictionary! {},
        b"BT /F1 11 Tf 72 700 Td (AHU-1 supply fan service notes) Tj ET".to_vec(),
    ));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content,
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let state = EncryptionState::try_from(EncryptionVersion::V2 {
        document: &doc,
        owner_password: "owner",
        user_password: "user",
        key_length: 128,
        permissions: Permissions::all(),
    })
    .unwrap();
    doc.encrypt(&state).unwrap();
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_are_reported_and_the_run_goes_on_without_losing_anything() {
    let root = tempfile::tempdir().unwrap();
    let good = write(root.path(), "good/vav.md", &corpus("northfield_soo_vav.md"));
    let (state, docs, reports) = docs_state(root.path(), |c| c.max_doc_bytes = 200_000).await;
    let first = ingest_paths(
        &state,
        &docs,
        std::slice::from_ref(&good),
        &DocOptions::default(),
    )
    .await;
    assert_eq!(first.counts.indexed, 1);
    let points_before = docs.ingestor().index().count().await.unwrap();

    let bad = root.path().join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("corrupt.pdf"),
        b"%PDF-1.7\n1 0 obj << /Type /Catalog",
    )
    .unwrap();
    std::fs::write(bad.join("locked.pdf"), encrypted_pdf()).unwrap();
    std::fs::write(bad.join("empty.md"), b"").unwrap();
    std::fs::write(
        bad.join("garbage.txt"),
        [0u8, 159, 146, 150, 0, 1, 2, 3, 255, 254].repeat(50),
    )
    .unwrap();
    std::fs::write(
        bad.join("latin1.txt"),
        b"Z\xf6ne temperature \xb0F setpoint for AHU-1 \xe9t\xe9 ".repeat(20),
    )
    .unwrap();
    std::fs::write(
        bad.join("huge.md"),
        "# AHU-1\n\nAHU-1 supply fan.\n".repeat(20_000),
    )
    .unwrap();
    write(root.path(), "bad/fine.md", &corpus("yorkland_om_notes.md"));

    let run = ingest_paths(
        &state,
        &docs,
        std::slice::from_ref(&bad),
        &DocOptions::default(),
    )
    .await;
    let by_file: BTreeMap<&str, &str> = run
        .errors
        .iter()
        .filter(|e| e.chunk.is_none())
        .map(|e| (e.file.as_str(), e.reason.as_str()))
        .collect();
    println!("{by_file:#?}");
    assert_eq!(run.counts.failed, 6, "{:#?}", run.errors);
    assert_eq!(run.counts.indexed, 1, "fine.md still indexed");
    let reason = |f: &str| by_file.get(f).copied().unwrap_or_default().to_lowercase();
    assert!(
        reason("bad/corrupt.pdf").contains("pdf"),
        "{}",
        reason("bad/corrupt.pdf")
    );
    assert!(
        reason("bad/locked.pdf").contains("password")
            || reason("bad/locked.pdf").contains("encrypt")
    );
    assert!(reason("bad/empty.md").contains("empty"));
    assert!(
        reason("bad/garbage.txt").contains("binary") || reason("bad/garbage.txt").contains("nul")
    );
    assert!(
        reason("bad/latin1.txt").contains("utf-8"),
        "{}",
        reason("bad/latin1.txt")
    );
    assert!(reason("bad/huge.md").contains("limit"));

    // Nothing already indexed was lost; the error report is on disk.
    let vav_id = document::source_id("good/vav.md");
    assert_eq!(
        docs.ingestor()
            .index()
            .points_of(&vav_id, false)
            .await
            .unwrap()
            .len(),
        first.documents[0].chunks
    );
    assert!(docs.ingestor().index().count().await.unwrap() > points_before);
    let errors: serde_json::Value =
        serde_json::from_slice(&std::fs::read(reports.path().join("index_errors.json")).unwrap())
            .unwrap();
    let files: BTreeSet<&str> = errors["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["file"].as_str())
        .collect();
    for f in [
        "bad/corrupt.pdf",
        "bad/locked.pdf",
        "bad/empty.md",
        "bad/garbage.txt",
        "bad/latin1.txt",
        "bad/huge.md",
    ] {
        assert!(files.contains(f), "{f} missing from index_errors.json");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlinked_chunks_are_reported_and_duplicates_recorded_or_skipped() {
    let root = tempfile::tempdir().unwrap();
    let vav = corpus("northfield_soo_vav.md");
    write(root.path(), "a/vav.md", &vav);
    write(root.path(), "b/vav_copy.md", &vav);
    write(
        root.path(),
        "c/notes.md",
        "# Lunch menu\n\nThe cafeteria serves soup on Tuesdays and pasta on Fridays.\n\n\
         # AHU-1\n\nAHU-1 serves the first floor of the east building.\n",
    );
    let (state, docs, _r) = docs_state(root.path(), |_| {}).await;
    let opts = DocOptions::default();
    let a = ingest_paths(&state, &docs, &[root.path().join("a")], &opts).await;
    assert_eq!(a.counts.indexed, 1);
    let b = ingest_paths(&state, &docs, &[root.path().join("b")], &opts).await;
    let d = &b.documents[0];
    assert_eq!(d.status, DocStatus::Indexed);
    assert_eq!(d.duplicates.len(), d.chunks, "every chunk duplicates a.md");
    assert!(
        d.duplicates
            .iter()
            .all(|x| x.duplicate_of == "a/vav.md" && x.similarity > 0.85 && !x.skipped)
    );

    // The lunch paragraph links to nothing: reported, not indexed.
    let c = ingest_paths(&state, &docs, &[root.path().join("c")], &opts).await;
    assert_eq!(c.documents[0].status, DocStatus::Indexed);
    assert!(c.documents[0].chunks_skipped >= 1, "{:#?}", c.errors);
    assert!(
        c.errors
            .iter()
            .any(|e| e.file == "c/notes.md" && e.chunk.is_some())
    );
    let pts = docs
        .ingestor()
        .index()
        .points_of(&document::source_id("c/notes.md"), false)
        .await
        .unwrap();
    assert!(
        pts.iter()
            .all(|p| !p.payload.node_content.contains("cafeteria"))
    );

    // With skipping configured, duplicates stay out of the index.
    let (state2, docs2, _r2) = docs_state(root.path(), |c| c.skip_duplicates = true).await;
    ingest_paths(&state2, &docs2, &[root.path().join("a")], &opts).await;
    let b2 = ingest_paths(&state2, &docs2, &[root.path().join("b")], &opts).await;
    assert_eq!(b2.counts.failed, 1, "all chunks skipped as duplicates");
    assert!(b2.documents[0].duplicates.iter().all(|x| x.skipped));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_ingest_list_delete_and_refusals() {
    let root = tempfile::tempdir().unwrap();
    write(root.path(), "docs/ahu.md", &corpus("northfield_soo_ahu.md"));
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", "# AHU-1\n\nAHU-1 secret.\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), root.path().join("docs/link")).unwrap();
    let (state, _docs, _r) = docs_state(root.path(), |_| {}).await;
    let server = common::TestServer::start(state).await;
    let client = reqwest::Client::new();

    // Paths under the docs root.
    let resp = client
        .post(server.url("/ingest"))
        .json(
            &serde_json::json!({"paths": ["docs/ahu.md"], "source_type": "sequence_of_operations"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["report"]["counts"]["indexed"], 1, "{body}");

    // Refused: absolute, .., symlink out of the root, missing.
    for bad in [
        outside.path().join("secret.md").display().to_string(),
        "../secret.md".to_owned(),
        "docs/../../secret.md".to_owned(),
        "docs/link/secret.md".to_owned(),
        "docs/nope.md".to_owned(),
    ] {
        let resp = client
            .post(server.url("/ingest"))
            .json(&serde_json::json!({"paths": [bad]}))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 400, "{bad}");
        let err: serde_json::Value = resp.json().await.unwrap();
        common::assert_valid("error.schema.json", &err);
        assert_eq!(err["code"], "VALIDATION_FAILED");
    }

    // Multipart upload.
    let form = reqwest::multipart::Form::new().text("domain", "hvac").part(
        "file",
        reqwest::multipart::Part::bytes(corpus("yorkland_om_notes.md").into_bytes())
            .file_name("../../yorkland notes.md"),
    );
    let resp = client
        .post(server.url("/ingest"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(
        body["report"]["documents"][0]["source_ref"],
        "uploads/yorkland notes.md"
    );

    // Wrong content type.
    let resp = client
        .post(server.url("/ingest"))
        .header("content-type", "text/plain")
        .body("docs/ahu.md")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 415);

    // List, then delete.
    let list: serde_json::Value = client
        .get(server.url("/api/documents"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["count"], 2);
    let doc = list["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["source_ref"] == "docs/ahu.md")
        .unwrap();
    assert_eq!(doc["source_type"], "sequence_of_operations");
    assert!(doc["chunks"].as_u64().unwrap() > 0);
    assert_eq!(doc["chunks"], doc["points"]);
    let id = doc["source_id"].as_str().unwrap();
    let resp = client
        .delete(server.url(&format!("/api/documents/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let resp = client
        .delete(server.url(&format!("/api/documents/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    let list: serde_json::Value = client
        .get(server.url("/api/documents"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["count"], 1);
    let health: serde_json::Value = client
        .get(server.url("/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["vector_index"]["dimension"], 384);
    assert_eq!(health["vector_index"]["backend"], "qdrant-edge");
    server.stop().await;
}

/// Inputs read from disk keep the relative path given.
#[test]
fn inputs_keep_relative_refs() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "x.md", "# AHU-1\n");
    let input = Input::read(&p, "x.md".into(), 10);
    assert!(input.bytes.is_ok());
    let too_big = Input::read(&p, "x.md".into(), 2);
    assert!(too_big.bytes.unwrap_err().contains("limit"));
}

/// Batches are sorted by length inside `embed`; the vectors still come back
/// in the order of the texts, equal to one-by-one embeddings.
#[test]
fn batched_embeddings_keep_text_order() {
    use daemoniq::embed::{EmbedOptions, Embedder, cosine};
    let embedder = Embedder::from_assets(
        &common::assets(),
        EmbedOptions {
            threads: 1,
            batch_size: 2,
        },
    )
    .unwrap();
    let texts: Vec<String> = [
        "The supply fan speed is reset by trim and respond to hold duct static pressure at setpoint.",
        "Zone temperature setpoint",
        "CHW valve",
        "VAV-2-14 reheat valve command and discharge air temperature during heating mode.",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let batched = embedder.embed(&texts).unwrap();
    for (t, v) in texts.iter().zip(&batched) {
        let single = embedder.embed_one(t).unwrap();
        assert!(cosine(v, &single) > 0.999, "{t}");
    }
    assert!(cosine(&batched[0], &batched[1]) < 0.9);
}
