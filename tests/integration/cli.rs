//! The `daemoniq` binary: validate, import, sparql, and missing assets.

use crate::common;
use std::process::Command;

fn daemoniq() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_daemoniq"));
    cmd.current_dir(common::root());
    cmd.env("DAEMONIQ_ASSETS", common::assets().dir());
    cmd.env("DAEMONIQ_LOG", "warn");
    cmd
}

#[test]
fn validate_passes_on_the_campus_and_fails_on_the_broken_fixture() {
    let ok = daemoniq()
        .args(["--memory", "validate", "--json"])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert_eq!(report["ok"], true);

    let bad = daemoniq()
        .args(["validate", "--json", "tests/fixtures/brick/broken.ttl"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&bad.stdout).unwrap();
    let expected: Vec<serde_json::Value> = serde_json::from_slice(
        &std::fs::read(common::fixture("brick/broken.expected.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        report["violations"].as_array().unwrap().len(),
        expected.len()
    );
}

#[test]
fn import_then_sparql_on_a_data_dir() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_str().unwrap();
    let out = daemoniq()
        .args([
            "--data-dir",
            dir,
            "import",
            "--json",
            "tests/fixtures/brick/small_building.ttl",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let outcomes: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcomes[0]["outcome"], "loaded");
    let again = daemoniq()
        .args([
            "--data-dir",
            dir,
            "import",
            "--json",
            "tests/fixtures/brick/small_building.ttl",
        ])
        .output()
        .unwrap();
    let outcomes: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(outcomes[0]["outcome"], "unchanged");

    let csv = daemoniq()
        .args([
            "--data-dir",
            dir,
            "sparql",
            "--format",
            "csv",
            "SELECT ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l ; <https://daemoniq.io/ns/core#sourcePath> \"tests/fixtures/brick/small_building.ttl\" } ORDER BY ?l LIMIT 3",
        ])
        .output()
        .unwrap();
    assert!(
        csv.status.success(),
        "{}",
        String::from_utf8_lossy(&csv.stderr)
    );
    let text = String::from_utf8(csv.stdout).unwrap();
    assert!(text.starts_with("l\r\n"), "{text}");
    assert_eq!(text.lines().count(), 4, "{text}");

    let bad = daemoniq()
        .args(["--data-dir", dir, "sparql", "SELECT WHERE {"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("SPARQL syntax error"));
}

#[test]
fn missing_assets_name_the_command_to_run() {
    let out = daemoniq()
        .env("DAEMONIQ_ASSETS", "/nonexistent/daemoniq-assets")
        .args(["--memory", "validate"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bash scripts/setup.sh"), "{err}");
    assert!(err.contains("/nonexistent/daemoniq-assets"), "{err}");
}
