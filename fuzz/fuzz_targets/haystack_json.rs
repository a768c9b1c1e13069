//! Haystack JSON import (grid parsing and tag-set → class conversion) over
//! untrusted bytes, against a small Brick subset and the project's Haystack
//! alignment so that class inference and ref handling run too.
#![no_main]

use daemoniq::import::{self, SourceFile, haystack};
use daemoniq::ontology::Ontology;
use daemoniq::store::{EmbeddedStore, GraphKind};
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::LazyLock;

static ONTOLOGY: LazyLock<Ontology> = LazyLock::new(|| {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let store = EmbeddedStore::in_memory().expect("an in-memory store");
        for f in [
            "tests/fixtures/answer/brick_subset.ttl",
            "ontology/haystack/haystack.ttl",
        ] {
            let file = SourceFile::new(root.join(f), &root, GraphKind::Ontology);
            import::import_file(&store, None, &file)
                .await
                .expect("the fixture ontology imports");
        }
        Ontology::load(&store).await.expect("the ontology loads")
    })
});

fuzz_target!(|data: &[u8]| {
    let _ = haystack::convert(data, "urn:fuzz#", &ONTOLOGY);
});
