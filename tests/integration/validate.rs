//! `validate` on the demo campus and on a deliberately broken fixture.

use crate::common;
use daemoniq::import::{self, SourceFile};
use daemoniq::store::GraphKind;
use daemoniq::validate::validate;
use serde::Deserialize;
use std::collections::BTreeSet;

#[tokio::test]
async fn demo_campus_passes() {
    let state = common::campus_state().await;
    let report = validate(state.store.as_ref(), &state.ontology())
        .await
        .unwrap();
    assert!(report.ok, "{:#?}", report.violations);
    assert!(report.instances > 400, "{}", report.instances);
}

#[derive(Deserialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Expected {
    rule: String,
    node: String,
}

#[tokio::test]
async fn broken_fixture_fails_naming_each_violation() {
    let (store, ontology) = common::ontology_store().await;
    let path = common::fixture("brick/broken.ttl");
    import::import_file(
        store.as_ref(),
        Some(&ontology),
        &SourceFile::new(&path, &common::root(), GraphKind::Model),
    )
    .await
    .unwrap();
    let report = validate(store.as_ref(), &ontology).await.unwrap();
    assert!(!report.ok);
    let expected: BTreeSet<Expected> = serde_json::from_slice(
        &std::fs::read(common::fixture("brick/broken.expected.json")).unwrap(),
    )
    .unwrap();
    let got: BTreeSet<Expected> = report
        .violations
        .iter()
        .map(|v| Expected {
            rule: v.rule.to_owned(),
            node: v.node.clone(),
        })
        .collect();
    assert_eq!(got, expected);
    assert!(
        report
            .violations
            .iter()
            .all(|v| v.source == "tests/fixtures/brick/broken.ttl")
    );
}

#[tokio::test]
async fn rice_brick_non_standard_typing_is_reported_not_fatal() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (store, ontology) = common::ontology_store().await;
    let path = data.join("brick/rice_brick.ttl");
    import::import_file(
        store.as_ref(),
        Some(&ontology),
        &SourceFile::new(&path, &common::root(), GraphKind::Model),
    )
    .await
    .unwrap();
    let report = validate(store.as_ref(), &ontology).await.unwrap();
    assert!(report.instances > 100);
    println!("rice_brick.ttl validation: {:?}", report.counts);
}
