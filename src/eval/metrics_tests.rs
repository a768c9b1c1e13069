//! Unit tests of the scoring, on hand-made envelopes.

use super::*;
use crate::eval::golden::{self, GoldenFile};
use crate::eval::score::*;
use serde_json::{Value, json};
use std::path::PathBuf;

const A: &str = "https://x.test/campus#AHU-2";
const V: &str = "https://x.test/campus#VAV-2-14";
const F: &str = "https://x.test/campus#AHU-2_SF";
const X: &str = "https://x.test/campus#Noise";
const MODEL: &str = "graph/m.ttl";
const LOG: &str = "golden/corpus/log.md";
const PDF: &str = "docs/manual.pdf";
const HTML: &str = "docs/manual.html";

fn known() -> Known {
    let mut k = Known::default();
    for id in [A, V, F, X] {
        k.graph_ids.insert(id.to_owned(), true);
    }
    k.graph_ids
        .insert("https://x.test/campus#AHU-9".into(), false);
    for f in [MODEL, LOG, PDF, HTML] {
        k.sources.insert(f.to_owned(), format!("sha-{f}"));
    }
    k
}

fn question(v: Value) -> Question {
    let mut base = json!({
        "id": "t-01", "question": "what feeds vav-2-14", "category": "topology",
        "expect": "answer", "must_include_graph_ids": [], "may_include_graph_ids": [],
        "must_cite_files": []
    });
    for (k, x) in v.as_object().unwrap() {
        base[k] = x.clone();
    }
    serde_json::from_value(base).unwrap()
}

fn ev(ids: &[&str], files: &[&str]) -> Value {
    json!({
        "graph_ids": ids,
        "file_paths": files,
        "excerpt": "…",
        "source_sha": format!("sha-{}", files[0]),
    })
}

fn contract(text: &str, evidence: Vec<Value>) -> Value {
    json!({
        "answer": text, "evidence": evidence, "timestamp": "2026-01-01T00:00:00Z",
        "limitations": "", "next_step": ""
    })
}

fn envelope(status: &str, answer: Value, refusal: Value, chunks: Vec<Value>) -> Response {
    Response {
        envelope: json!({
            "status": status, "answer": answer, "refusal": refusal, "error": null,
            "metadata": {"request_id": "r", "processing_time_ms": 12, "chunks_retrieved": 0,
                         "session_id": null},
            "trace": {"chunks": chunks}
        }),
        http_status: 200,
        wall_ms: 15.0,
    }
}

fn success(text: &str, evidence: Vec<Value>) -> Response {
    envelope("success", contract(text, evidence), Value::Null, Vec::new())
}

fn refused(kind: &str) -> Response {
    envelope(
        "refused",
        contract(UNKNOWN, Vec::new()),
        json!({"reason": "no", "refusal_type": kind}),
        Vec::new(),
    )
}

fn error() -> Response {
    Response {
        envelope: json!({"status": "error", "answer": null, "refusal": null,
                         "error": {"code": "INTERNAL", "message": "boom"}}),
        http_status: 500,
        wall_ms: 3.0,
    }
}

fn chunk(source_ref: &str, page: &str, used: bool) -> Value {
    json!({"source_ref": source_ref, "page_label": page, "used": used})
}

fn score(q: &Question, r: &Response) -> QuestionScore {
    Scorer::new().unwrap().score(q, r, &known())
}

fn metrics(pairs: &[(Question, Response)]) -> Metrics {
    let scorer = Scorer::new().unwrap();
    let scores: Vec<QuestionScore> = pairs
        .iter()
        .map(|(q, r)| scorer.score(q, r, &known()))
        .collect();
    Metrics::compute(pairs.iter().map(|(q, _)| q).zip(&scores))
}

fn abstain_q() -> Question {
    question(
        json!({"id": "t-abs", "category": "missing_entity", "expect": "abstain",
                    "refusal_type": "insufficient_grounding"}),
    )
}

#[test]
fn normalisation_collapses_case_whitespace_and_underscores() {
    assert_eq!(
        normalize("  Supply_Air__Temperature \t_ Sensor "),
        "supply air temperature sensor"
    );
    let q = question(json!({"answer_contains": ["Supply_Air_Temperature_Sensor", "AHU-2"]}));
    let s = score(
        &q,
        &success(
            "It has a supply air\ntemperature   sensor; fed by ahu-2.",
            vec![ev(&[A], &[MODEL])],
        ),
    );
    assert_eq!(s.contains_ok, Some(true), "{:?}", s.missing_phrases);
    let s = score(&q, &success("fed by AHU 2", vec![ev(&[A], &[MODEL])]));
    assert_eq!(s.contains_ok, Some(false));
    assert_eq!(s.missing_phrases.len(), 2);
}

#[test]
fn phrases_match_on_word_and_number_boundaries_with_units_normalised() {
    use super::super::score::contains_phrase;
    assert!(
        !contains_phrase("reset to 170 °F", "70"),
        "70 is not in 170"
    );
    assert!(!contains_phrase("the limit is 70.5 °F", "70"));
    assert!(!contains_phrase("minimum 1,700 cfm", "700"));
    assert!(contains_phrase("reset to 70 °F.", "70"));
    assert!(contains_phrase("reset to 70degF", "70 °F"));
    assert!(contains_phrase("reset to 70 deg F", "70°F"));
    assert!(contains_phrase("(fed by AHU-2)", "ahu-2"));
    assert!(!contains_phrase("fed by AHU-21", "AHU-2"));
    assert!(!contains_phrase("three vavs", "vav"));
    assert!(contains_phrase("at 8.3 °C", "8.3 °C"));
}

#[test]
fn a_yes_no_question_is_scored_on_its_polarity() {
    let q = question(json!({"answer_contains": ["AHU-1"], "expect_polarity": "yes"}));
    let yes = score(
        &q,
        &success("Yes: AHU-1 feeds it.", vec![ev(&[A], &[MODEL])]),
    );
    assert_eq!(yes.contains_ok, Some(true), "{:?}", yes.failures);
    // The phrases are there, the answer is the opposite one.
    let no = score(
        &q,
        &success("No: it is not fed by AHU-1.", vec![ev(&[A], &[MODEL])]),
    );
    assert_eq!(no.contains_ok, Some(false));
    assert!(!no.pass);
    // "Nothing" is not "no".
    let q = question(json!({"expect_polarity": "no"}));
    let s = score(&q, &success("Nothing feeds it.", vec![ev(&[A], &[MODEL])]));
    assert_eq!(s.contains_ok, Some(false));
}

#[test]
fn a_refused_answer_question_fails_file_citation() {
    // No file requirement: a refusal cites nothing and does not pass.
    let q = question(json!({}));
    let s = score(&q, &refused("low_relevance"));
    assert_eq!(s.files_ok, Some(false));
    let m = metrics(&[(q.clone(), refused("low_relevance"))]);
    assert_eq!(m.file_citation_accuracy.value(), Some(0.0));
}

#[test]
fn no_repository_phrase_occurs_in_its_own_question() {
    // An answer that only repeats what the question names must not pass
    // answer_contains: no required phrase may be in the question.
    use super::super::score::contains_phrase;
    let (_, files) = repository_goldens();
    for q in files.iter().flat_map(|f| &f.questions) {
        for p in &q.answer_contains {
            assert!(
                !contains_phrase(&q.question, p),
                "{}: {p:?} is in the question",
                q.id
            );
        }
    }
}

#[test]
fn schema_compliance_checks_the_envelope_against_its_status() {
    let q = question(json!({}));
    assert!(score(&q, &success("AHU-2", vec![ev(&[A], &[MODEL])])).compliant);
    assert!(score(&abstain_q(), &refused("low_relevance")).compliant);
    // success without evidence breaks the contract's oneOf
    let s = score(&q, &success("AHU-2", Vec::new()));
    assert!(!s.compliant && !s.pass, "{s:?}");
    // success carrying the abstention
    assert!(!score(&q, &success(UNKNOWN, Vec::new())).compliant);
    // refused without a refusal, or with a real answer
    let mut r = refused("low_relevance");
    r.envelope["refusal"] = Value::Null;
    assert!(!score(&q, &r).compliant);
    let mut r = refused("low_relevance");
    r.envelope["answer"] = contract("AHU-2", vec![ev(&[A], &[MODEL])]);
    assert!(!score(&q, &r).compliant);
    // an evidence item with an unknown field
    let mut item = ev(&[A], &[MODEL]);
    item["page"] = json!(3);
    assert!(!score(&q, &success("AHU-2", vec![item])).compliant);
    // errors and bodies that are not envelopes
    assert!(!score(&q, &error()).compliant);
    let odd = Response {
        envelope: json!({"code": "VALIDATION_FAILED", "message": "x"}),
        http_status: 400,
        wall_ms: 1.0,
    };
    assert!(!score(&q, &odd).compliant);
    let m = metrics(&[
        (q.clone(), success("AHU-2", vec![ev(&[A], &[MODEL])])),
        (q.clone(), error()),
    ]);
    assert_eq!(m.schema_compliance.value(), Some(0.5));
    assert_eq!(m.errors, 1);
}

#[test]
fn abstention_accuracy_counts_false_answers_and_false_refusals() {
    let abs = abstain_q();
    let ans = question(json!({"must_include_graph_ids": [A]}));
    let m = metrics(&[
        (abs.clone(), refused("insufficient_grounding")),
        (
            abs.clone(),
            success("AHU-9 feeds it", vec![ev(&[A], &[MODEL])]),
        ),
        (abs.clone(), error()),
        (ans.clone(), success("AHU-2", vec![ev(&[A], &[MODEL])])),
        (ans.clone(), refused("low_relevance")),
        (ans.clone(), success("AHU-2", vec![ev(&[A], &[MODEL])])),
        (ans.clone(), success("AHU-2", vec![ev(&[A], &[MODEL])])),
    ]);
    assert_eq!(m.must_abstain_accuracy.value(), Some(1.0 / 3.0));
    assert_eq!(m.false_answers, 1);
    assert_eq!(m.false_refusal_rate.value(), Some(0.25));
    assert_eq!(m.abstain_questions, 3);
    assert_eq!(m.answer_questions, 4);
    let s = score(&abs, &success("AHU-9 feeds it", vec![ev(&[A], &[MODEL])]));
    assert!(
        s.failures.iter().any(|f| f.contains("should abstain")),
        "{s:?}"
    );
}

#[test]
fn refusal_type_accuracy_is_reported_not_failed() {
    let abs = abstain_q();
    let s = score(&abs, &refused("low_relevance"));
    assert!(s.pass, "{s:?}");
    assert_eq!(s.refusal_type_ok, Some(false));
    assert!(!s.warnings.is_empty());
    let m = metrics(&[
        (abs.clone(), refused("low_relevance")),
        (abs.clone(), refused("insufficient_grounding")),
    ]);
    assert_eq!(m.refusal_type_accuracy.value(), Some(0.5));
}

#[test]
fn citation_validity_needs_resolving_ids_and_a_known_file_and_sha() {
    let q = question(json!({}));
    let mut bad_sha = ev(&[A], &[MODEL]);
    bad_sha["source_sha"] = json!("deadbeef");
    let mut no_sha = ev(&[A], &[MODEL]);
    no_sha.as_object_mut().unwrap().remove("source_sha");
    let s = score(
        &q,
        &success(
            "AHU-2",
            vec![
                ev(&[A, V], &[MODEL]),
                ev(&[A, "https://x.test/campus#AHU-9"], &[MODEL]),
                ev(&["https://x.test/campus#Never-Asked"], &[MODEL]),
                ev(&[A], &["graph/other.ttl"]),
                bad_sha,
                no_sha,
            ],
        ),
    );
    let valid: Vec<bool> = s.citations.iter().map(|c| c.valid).collect();
    assert_eq!(valid, [true, false, false, false, false, false]);
    assert!(s.citations[1].problems[0].contains("AHU-9"));
    assert!(!s.pass);
    let m = Metrics::compute([(&q, &s)]);
    assert_eq!(m.citation_validity.value(), Some(1.0 / 6.0));
}

#[test]
fn evidence_recall_is_zero_when_refused_and_partial_when_ids_are_missing() {
    let q = question(json!({"must_include_graph_ids": [A, V], "may_include_graph_ids": [F]}));
    let half = score(&q, &success("AHU-2", vec![ev(&[A, F], &[MODEL])]));
    assert_eq!(half.recall, Some(0.5));
    assert_eq!(half.missing_graph_ids, [V]);
    assert!(!half.pass);
    let none = score(&q, &refused("low_relevance"));
    assert_eq!(none.recall, Some(0.0));
    let full = score(&q, &success("AHU-2", vec![ev(&[A, V], &[MODEL])]));
    assert_eq!(full.recall, Some(1.0));
    let m = metrics(&[
        (q.clone(), success("AHU-2", vec![ev(&[A, F], &[MODEL])])),
        (q.clone(), refused("low_relevance")),
        (q.clone(), success("AHU-2", vec![ev(&[A, V], &[MODEL])])),
        // no must ids: left out of the recall mean
        (
            question(json!({"must_cite_files": [MODEL]})),
            success("x", vec![ev(&[X], &[MODEL])]),
        ),
    ]);
    assert_eq!(m.evidence_recall.den, 3);
    assert_eq!(m.evidence_recall.value(), Some(0.5));
}

#[test]
fn evidence_precision_counts_ids_outside_must_and_may_as_noise() {
    let q = question(json!({"must_include_graph_ids": [A], "may_include_graph_ids": [F]}));
    let s = score(&q, &success("AHU-2", vec![ev(&[A, F, X], &[MODEL])]));
    assert_eq!(s.precision, Some(2.0 / 3.0));
    assert_eq!(s.extra_graph_ids, [X]);
    assert!(s.pass, "noise is a warning: {s:?}");
    assert!(!s.warnings.is_empty());
    assert_eq!(score(&q, &refused("low_relevance")).precision, None);
    // A question that lists no ids says nothing of which are noise.
    let unlisted = question(json!({}));
    let s = score(&unlisted, &success("AHU-2", vec![ev(&[A, X], &[MODEL])]));
    assert_eq!(s.precision, None);
}

#[test]
fn file_citation_needs_every_file_and_one_of_each_group() {
    let q = question(json!({
        "must_include_graph_ids": [A],
        "must_cite_files": [MODEL],
        "must_cite_any_of": [[HTML, PDF]]
    }));
    let ok = score(
        &q,
        &success("AHU-2", vec![ev(&[A], &[MODEL]), ev(&[A], &[PDF])]),
    );
    assert_eq!(ok.files_ok, Some(true), "{:?}", ok.missing_files);
    let no_group = score(&q, &success("AHU-2", vec![ev(&[A], &[MODEL])]));
    assert_eq!(no_group.files_ok, Some(false));
    assert!(no_group.missing_files[0].contains(PDF));
    let no_model = score(&q, &success("AHU-2", vec![ev(&[A], &[HTML])]));
    assert_eq!(no_model.files_ok, Some(false));
    assert_eq!(no_model.missing_files, [MODEL]);
    let m = metrics(&[
        (
            q.clone(),
            success("AHU-2", vec![ev(&[A], &[MODEL]), ev(&[A], &[HTML])]),
        ),
        (q.clone(), success("AHU-2", vec![ev(&[A], &[MODEL])])),
        (q.clone(), refused("low_relevance")),
        (abstain_q(), refused("insufficient_grounding")),
    ]);
    assert_eq!(m.file_citation_accuracy.den, 3);
    assert_eq!(m.file_citation_accuracy.value(), Some(1.0 / 3.0));
}

#[test]
fn answer_contains_is_counted_over_answered_questions_only() {
    let q = question(json!({"must_include_graph_ids": [A], "answer_contains": ["175", "cfm"]}));
    let m = metrics(&[
        (q.clone(), success("175 CFM", vec![ev(&[A], &[MODEL])])),
        (q.clone(), success("about 170", vec![ev(&[A], &[MODEL])])),
        (q.clone(), refused("low_relevance")),
    ]);
    assert_eq!(m.answer_contains_accuracy.den, 2);
    assert_eq!(m.answer_contains_accuracy.value(), Some(0.5));
}

#[test]
fn conflict_accuracy_needs_the_graph_value_and_both_sources() {
    let q = question(json!({
        "category": "conflict",
        "must_include_graph_ids": [V, A],
        "must_cite_files": [MODEL, LOG],
        "answer_contains": ["AHU-2"]
    }));
    let both = vec![ev(&[V, A], &[MODEL]), ev(&[V], &[LOG])];
    assert_eq!(
        score(&q, &success("AHU-2 feeds VAV-2-14", both.clone())).conflict_ok,
        Some(true)
    );
    assert_eq!(
        score(&q, &success("AHU-1 feeds VAV-2-14", both)).conflict_ok,
        Some(false)
    );
    assert_eq!(
        score(&q, &success("AHU-2", vec![ev(&[V, A], &[MODEL])])).conflict_ok,
        Some(false)
    );
    assert_eq!(
        score(&q, &refused("low_relevance")).conflict_ok,
        Some(false)
    );
    let m = metrics(&[
        (
            q.clone(),
            success("AHU-2", vec![ev(&[V, A], &[MODEL]), ev(&[V], &[LOG])]),
        ),
        (q.clone(), refused("low_relevance")),
        (
            question(json!({"must_include_graph_ids": [A]})),
            refused("low_relevance"),
        ),
    ]);
    assert_eq!(m.conflict_accuracy.den, 2);
    assert_eq!(m.conflict_accuracy.value(), Some(0.5));
}

#[test]
fn page_labels_come_from_the_used_chunks_of_cited_pdfs() {
    let q = question(json!({
        "category": "document",
        "must_cite_any_of": [[HTML, PDF]],
        "expected_pages": {PDF: ["3", "5"]}
    }));
    let with = |chunks: Vec<Value>| {
        envelope(
            "success",
            contract("level 1", vec![ev(&[X], &[PDF])]),
            Value::Null,
            chunks,
        )
    };
    let ok = score(
        &q,
        &with(vec![chunk(PDF, "3", true), chunk(PDF, "4", false)]),
    );
    assert_eq!(ok.pages.len(), 1);
    assert!(ok.pages[0].ok && ok.pass, "{ok:?}");
    let wrong = score(
        &q,
        &with(vec![chunk(PDF, "4", true), chunk(PDF, "5", true)]),
    );
    assert_eq!(
        wrong.pages.iter().map(|p| p.ok).collect::<Vec<_>>(),
        [false, true]
    );
    assert!(!wrong.pass);
    let unknown = score(&q, &with(vec![chunk(PDF, "3", false)]));
    assert_eq!(unknown.pages.len(), 1);
    assert!(!unknown.pages[0].ok && unknown.pages[0].page_label.is_none());
    // citing the HTML page instead: nothing to check
    let html = envelope(
        "success",
        contract("level 1", vec![ev(&[X], &[HTML])]),
        Value::Null,
        vec![chunk(HTML, "1", true)],
    );
    assert!(score(&q, &html).pages.is_empty());
    let m = metrics(&[
        (q.clone(), with(vec![chunk(PDF, "3", true)])),
        (
            q.clone(),
            with(vec![chunk(PDF, "4", true), chunk(PDF, "5", true)]),
        ),
        (q.clone(), html),
    ]);
    assert_eq!(m.page_label_accuracy.den, 3);
    assert_eq!(m.page_label_accuracy.value(), Some(2.0 / 3.0));
}

#[test]
fn latency_percentiles_use_processing_time_and_nearest_rank() {
    let values: Vec<f64> = (1..=100).map(f64::from).collect();
    let l = Latency::of(values.into_iter().rev().collect());
    assert_eq!(
        (l.p50, l.p95, l.p99, l.max),
        (Some(50.0), Some(95.0), Some(99.0), Some(100.0))
    );
    assert_eq!(Latency::of(vec![7.0]).p99, Some(7.0));
    assert_eq!(Latency::of(Vec::new()).p50, None);
    let q = question(json!({}));
    assert_eq!(
        score(&q, &success("x", vec![ev(&[A], &[MODEL])])).latency_ms,
        12.0
    );
    assert_eq!(score(&q, &error()).latency_ms, 3.0);
}

fn gate(metric: &str, op: Op, threshold: f64) -> Gate {
    Gate {
        metric: metric.into(),
        definition: String::new(),
        op,
        threshold,
        enforced: true,
        why: String::new(),
    }
}

#[test]
fn gates_fail_below_threshold_and_with_nothing_to_measure_unless_declared() {
    let ans = question(json!({"must_include_graph_ids": [A]}));
    let m = metrics(&[
        (ans.clone(), success("AHU-2", vec![ev(&[A], &[MODEL])])),
        (ans.clone(), refused("low_relevance")),
    ]);
    let results = check_gates(
        &[
            gate("false_refusal_rate", Op::Le, 0.1),
            gate("evidence_recall", Op::Ge, 0.5),
            gate("conflict_accuracy", Op::Ge, 1.0),
            gate("latency_p95_ms", Op::Le, 11.0),
        ],
        "all",
        &m,
        &[],
    );
    let pass: Vec<bool> = results.iter().map(|r| r.pass).collect();
    // conflict_accuracy has nothing to measure and is not declared: no
    // free credit.
    assert_eq!(pass, [false, true, false, false]);
    assert_eq!(results[0].value, Some(0.5));
    assert_eq!(results[2].value, None);
    assert!(!results[2].not_applicable);
    // Declared not applicable, it holds and says so; a declared metric
    // that is measured is gated as usual.
    let declared = [
        "conflict_accuracy".to_owned(),
        "false_refusal_rate".to_owned(),
    ];
    let results = check_gates(
        &[
            gate("conflict_accuracy", Op::Ge, 1.0),
            gate("false_refusal_rate", Op::Le, 0.1),
        ],
        "all",
        &m,
        &declared,
    );
    assert!(results[0].pass && results[0].not_applicable);
    assert!(!results[1].pass && !results[1].not_applicable);
    // a mean a rounding error below the threshold still holds
    let mut m = Metrics::default();
    for x in [0.9, 0.9, 0.9] {
        m.evidence_recall.add(x);
    }
    assert!(check_gates(&[gate("evidence_recall", Op::Ge, 0.9)], "all", &m, &[])[0].pass);
}

/// The perfect response to a golden question, citing what it asks for.
fn perfect(q: &Question) -> Response {
    if q.expect == Expect::Abstain {
        return refused(q.refusal_type.as_deref().unwrap_or("low_relevance"));
    }
    let mut ids: Vec<&str> = q
        .must_include_graph_ids
        .iter()
        .chain(&q.may_include_graph_ids)
        .map(String::as_str)
        .collect();
    if ids.is_empty() {
        ids.push(X);
    }
    let mut files: Vec<&str> = q.must_cite_files.iter().map(String::as_str).collect();
    for group in &q.must_cite_any_of {
        let pick = group
            .iter()
            .find(|f| q.expected_pages.contains_key(*f))
            .unwrap_or(&group[0]);
        files.push(pick);
    }
    if files.is_empty() {
        files.push(MODEL);
    }
    let evidence = files.iter().map(|f| ev(&ids, &[f])).collect();
    let chunks = q
        .expected_pages
        .iter()
        .filter(|(f, _)| files.contains(&f.as_str()))
        .map(|(f, pages)| chunk(f, &pages[0], true))
        .collect();
    let polarity = q
        .expect_polarity
        .map(|p| format!("{}: ", p.word()))
        .unwrap_or_default();
    let mut r = envelope(
        "success",
        contract(
            &format!("{polarity}{}", q.answer_contains.join("; ")),
            evidence,
        ),
        Value::Null,
        chunks,
    );
    if let Some(e) = &q.expected {
        let yes = q.expect_polarity == Some(golden::Polarity::Yes);
        let answer = match e.kind {
            golden::ResultKind::Set => serde_json::json!({"kind": "set", "items": [X]}),
            golden::ResultKind::Count => {
                serde_json::json!({"kind": "count", "items": [X], "count": 1})
            }
            golden::ResultKind::Boolean => {
                serde_json::json!({"kind": "boolean", "items": [], "boolean": yes})
            }
            golden::ResultKind::Value => {
                serde_json::json!({"kind": "value", "items": [X], "values": ["u"]})
            }
            golden::ResultKind::GroupedCount => {
                serde_json::json!({"kind": "grouped_count", "items": [X], "groups": [{"group": X, "count": 1}]})
            }
        };
        r.envelope["trace"]["graph"] = serde_json::json!({ "answer": answer });
    }
    r
}

/// The expected result `perfect` answers.
fn perfect_expected(q: &Question) -> crate::eval::score::ExpectedResult {
    crate::eval::score::ExpectedResult {
        set: [X.to_owned()].into(),
        count: Some(1),
        boolean: Some(q.expect_polarity == Some(golden::Polarity::Yes)),
        values: ["u".to_owned()].into(),
        groups: [(X.to_owned(), 1)].into(),
    }
}

fn repository_goldens() -> (golden::GateFile, Vec<GoldenFile>) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let gates = golden::load_gates(&root.join("golden/gates.json")).unwrap();
    let files = golden::load_goldens(&root.join("golden"), &root, &gates).unwrap();
    (gates, files)
}

#[test]
fn perfect_responses_to_the_repository_goldens_pass_every_gate() {
    let (gates, files) = repository_goldens();
    let mut k = known();
    for q in files.iter().flat_map(|f| &f.questions) {
        for id in q
            .must_include_graph_ids
            .iter()
            .chain(&q.may_include_graph_ids)
        {
            k.graph_ids.insert(id.clone(), true);
        }
        let all = q
            .must_cite_files
            .iter()
            .chain(q.must_cite_any_of.iter().flatten());
        for f in all {
            k.sources.insert(f.clone(), format!("sha-{f}"));
        }
        if q.expected.is_some() {
            k.expected.insert(q.id.clone(), perfect_expected(q));
        }
    }
    let scorer = Scorer::new().unwrap();
    for f in &files {
        let scores: Vec<QuestionScore> = f
            .questions
            .iter()
            .map(|q| scorer.score(q, &perfect(q), &k))
            .collect();
        for (q, s) in f.questions.iter().zip(&scores) {
            assert!(s.pass, "{}: {:?}", q.id, s.failures);
        }
        let m = Metrics::compute(f.questions.iter().zip(&scores));
        if f.models.is_empty() {
            assert!(m.page_label_accuracy.den > 0);
        } else {
            assert!(m.entity_f1.value() == Some(1.0));
        }
        for r in check_gates(&gates.gates, &f.name, &m, &f.not_applicable) {
            assert!(r.pass, "{} {}: {:?}", f.name, r.metric, r.value);
        }
    }
}
