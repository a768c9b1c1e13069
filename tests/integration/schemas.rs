//! The JSON Schemas in `schemas/` compile and mean what they say.

use crate::common;
use serde_json::json;

#[test]
fn every_schema_compiles() {
    let mut n = 0;
    for entry in std::fs::read_dir(common::root().join("schemas")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".schema.json") {
            common::schema(&name);
            n += 1;
        }
    }
    assert!(n >= 2);
}

#[test]
fn answer_contract_accepts_answers_and_abstentions_only() {
    let v = common::schema("answer_contract.schema.json");
    let answer = json!({
        "answer": "VAV-2-14 is fed by AHU-2.",
        "evidence": [{"graph_ids": ["https://daemoniq.io/campus/northfield#VAV-2-14"],
                      "file_paths": ["graph/northfield_campus.ttl"], "excerpt": "…", "source_sha": "ab"}],
        "timestamp": "2026-11-21T10:00:00Z",
        "limitations": "From the building graph only.",
        "next_step": "Check AHU-2's supply fan status."
    });
    assert!(v.is_valid(&answer));
    let abstain = json!({
        "answer": "unknown", "evidence": [], "timestamp": "2026-11-21T10:00:00Z",
        "limitations": "No graph-linked evidence.", "next_step": "Ask about equipment in the model."
    });
    assert!(v.is_valid(&abstain));
    let mut no_evidence = answer.clone();
    no_evidence["evidence"] = json!([]);
    assert!(
        !v.is_valid(&no_evidence),
        "an answer without evidence must fail"
    );
    let mut extra = answer.clone();
    extra["confidence"] = json!(0.9);
    assert!(!v.is_valid(&extra), "no extra properties");
    let mut no_graph = answer;
    no_graph["evidence"][0]["graph_ids"] = json!([]);
    assert!(!v.is_valid(&no_graph), "evidence needs graph ids");
}
