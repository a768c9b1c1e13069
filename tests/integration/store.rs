//! The embedded store on disk: restarts do not reload unchanged sources.

use crate::common;
use daemoniq::import::ImportOutcome;
use daemoniq::store::{EmbeddedStore, GraphStore};

#[tokio::test]
async fn restart_with_unchanged_sources_reloads_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sources = common::sources(vec![common::root().join("graph")]);
    let first_len = {
        let store = EmbeddedStore::open(dir.path()).unwrap();
        let (outcomes, _) = sources.sync(&store).await.unwrap();
        assert!(
            outcomes
                .iter()
                .all(|o| matches!(o, ImportOutcome::Loaded { .. }))
        );
        store.len().await.unwrap()
    };
    let store = EmbeddedStore::open(dir.path()).unwrap();
    assert_eq!(store.backend(), "oxigraph-rocksdb");
    let (outcomes, ontology) = sources.sync(&store).await.unwrap();
    assert!(
        outcomes
            .iter()
            .all(|o| matches!(o, ImportOutcome::Unchanged { .. })),
        "{outcomes:?}"
    );
    assert_eq!(store.len().await.unwrap(), first_len);
    assert!(ontology.class_count() > 1000);
}

#[tokio::test]
async fn a_second_process_on_the_same_directory_gets_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let _held = EmbeddedStore::open(dir.path()).unwrap();
    match EmbeddedStore::open(dir.path()) {
        Ok(_) => panic!("RocksDB should refuse a second open of the same directory"),
        Err(e) => assert!(
            e.to_string().contains(&dir.path().display().to_string()),
            "{e}"
        ),
    }
}
