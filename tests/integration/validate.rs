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
    // Not fatal: the file loads and validation runs to the end.
    let report = validate(store.as_ref(), &ontology).await.unwrap();
    assert!(report.instances > 100, "{}", report.instances);
    // Reported: one unknown_class violation per non-standard type of a node,
    // naming the node, the type and the file.
    assert!(!report.ok);
    let unknown: Vec<_> = report
        .violations
        .iter()
        .filter(|v| v.rule == "unknown_class")
        .collect();
    assert_eq!(report.counts.get("unknown_class"), Some(&unknown.len()));
    assert!(
        unknown
            .iter()
            .all(|v| v.source.ends_with("brick/rice_brick.ttl")),
        "{unknown:#?}"
    );
    let rice = "http://virginia.edu/building/ontology/rice#";
    let brick = "https://brickschema.org/schema/Brick#";
    let reported = |local: &str| -> Vec<&str> {
        let node = format!("{rice}{local}");
        unknown
            .iter()
            .filter(|v| v.node == node)
            .map(|v| v.message.as_str())
            .collect()
    };
    let names_each = |local: &str, types: &[&str]| {
        let messages = reported(local);
        assert_eq!(messages.len(), types.len(), "{local}: {messages:#?}");
        for t in types {
            assert!(
                messages.iter().any(|m| m.contains(&format!("typed {t},"))),
                "{local}: {t} not reported: {messages:#?}"
            );
        }
    };
    // A node typed both as a substance and as a quantity, neither a Brick class.
    names_each(
        "2_Mag_CHW_Return_Temp",
        &[
            &format!("{brick}Chilled_Return_Water"),
            &format!("{brick}Temperature"),
        ],
    );
    // A class of the Brick 1.0.2 namespace, which Brick 1.4 does not declare.
    names_each(
        "AHU1_PreHeat_Coil_Temp",
        &["https://brickschema.org/schema/1.0.2/Brick#PreHeat_Coil_Leaving_Air_Temperature_Sensor"],
    );
    // A node typed with a standard Brick class is not reported.
    assert!(
        !report
            .violations
            .iter()
            .any(|v| v.node == format!("{rice}2_Mag_HW_Return_Temp")),
        "{:#?}",
        report.violations
    );
}
