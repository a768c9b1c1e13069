//! Every input kept in `tests/fuzz/<target>/` (crashes `scripts/fuzz.sh`
//! found, and hand-written seeds of the shapes that matter) runs through the
//! same library call as its fuzz target in `fuzz/fuzz_targets/`: each must
//! give a value or an error, never a panic. A target's directory must not
//! be empty, so a renamed directory cannot turn this into a test of nothing.

use daemoniq::http::sparql;
use daemoniq::import::{self, SourceFile, haystack, rdf};
use daemoniq::ingest::extract;
use daemoniq::ontology::Ontology;
use daemoniq::store::{EmbeddedStore, GraphKind};
use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} holds no inputs", dir.display());
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

#[test]
fn pdf_extraction_survives_every_kept_input() {
    for (_, data) in inputs("extract_pdf") {
        let _ = extract(Path::new("fuzz.pdf"), &data);
    }
}

#[test]
fn html_extraction_survives_every_kept_input() {
    for (_, data) in inputs("extract_html") {
        let _ = extract(Path::new("fuzz.html"), &data);
    }
}

#[test]
fn rdf_import_survives_every_kept_input() {
    const EXTENSIONS: [&str; 5] = ["ttl", "nt", "nq", "trig", "rdf"];
    for (_, data) in inputs("rdf_import") {
        let Some((&pick, bytes)) = data.split_first() else {
            continue;
        };
        let ext = EXTENSIONS[usize::from(pick) % EXTENSIONS.len()];
        let format = rdf::format_for_extension(ext).unwrap();
        let _ = rdf::parse(bytes, format);
    }
}

#[tokio::test]
async fn haystack_import_survives_every_kept_input() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let store = EmbeddedStore::in_memory().unwrap();
    for f in [
        "tests/fixtures/answer/brick_subset.ttl",
        "ontology/haystack/haystack.ttl",
    ] {
        let file = SourceFile::new(root.join(f), root, GraphKind::Ontology);
        import::import_file(&store, None, &file).await.unwrap();
    }
    let ontology = Ontology::load(&store).await.unwrap();
    for (_, data) in inputs("haystack_json") {
        let _ = haystack::convert(&data, "urn:fuzz#", &ontology);
    }
}

#[test]
fn sparql_request_decoding_survives_every_kept_input() {
    const CONTENT_TYPES: [Option<&str>; 5] = [
        None,
        Some("application/x-www-form-urlencoded"),
        Some("application/sparql-query"),
        Some("application/sparql-update; charset=utf-8"),
        Some("text/plain"),
    ];
    for (_, data) in inputs("sparql_request") {
        let Some((&pick, rest)) = data.split_first() else {
            continue;
        };
        let (raw, body) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &[][..]),
        };
        let post = CONTENT_TYPES[usize::from(pick) % CONTENT_TYPES.len()].map(|ct| (ct, body));
        let _ = sparql::decode(raw, post);
    }
}
