//! The evaluation report: `eval_report.json` (everything, for machines and
//! diffing) and `eval_report.md` (for a person who did not write the
//! goldens: gates, categories, failing questions with reasons, then all).

use super::golden::{Expect, Gate, Split};
use super::metrics::{GateResult, Metrics, check_gates};
use super::score::{Known, QuestionScore, Response, Scorer};
use super::target::IngestSummary;
use super::{EvalError, EvalResult, Plan, Skipped};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// File name of the JSON report.
pub const JSON_FILE: &str = "eval_report.json";
/// File name of the Markdown report.
pub const MARKDOWN_FILE: &str = "eval_report.md";
/// The scope name of all golden files together.
pub const ALL: &str = "all";

/// Categories in the order the reports list them (golden.schema.json).
const CATEGORIES: [&str; 12] = [
    "topology",
    "points",
    "location",
    "product",
    "class_definition",
    "haystack_tags",
    "document",
    "conflict",
    "selected_text",
    "out_of_scope",
    "missing_entity",
    "no_evidence",
];

/// One golden file of the run.
#[derive(Debug, Clone, Serialize)]
pub struct FileSummary {
    /// File stem (the scope name).
    pub name: String,
    /// Path relative to the repository root.
    pub path: String,
    /// What the set is about.
    pub description: String,
    /// Questions in the file.
    pub questions: usize,
    /// Whether it was evaluated.
    pub evaluated: bool,
    /// Why not.
    pub skipped_reason: Option<String>,
}

/// Metrics of one scope (`all`, a golden file, a file's tuned or held-out
/// part, or a category).
#[derive(Debug, Clone, Serialize)]
pub struct ScopeMetrics {
    /// The scope.
    pub scope: String,
    /// Its metrics.
    pub metrics: Metrics,
    /// The metrics its golden files declare they do not measure.
    pub not_applicable: Vec<String>,
}

/// The scope name of one part of a golden file (`demo_campus/held_out`).
pub fn split_scope(file: &str, split: Split) -> String {
    format!("{file}/{}", split.as_str())
}

/// One question's result.
#[derive(Debug, Clone, Serialize)]
pub struct QuestionReport {
    /// Question id.
    pub id: String,
    /// Golden file (scope) it belongs to.
    pub file: String,
    /// Category.
    pub category: String,
    /// Tuned or held out.
    pub split: Split,
    /// Answer or abstain.
    pub expect: Expect,
    /// The question as sent.
    pub question: String,
    /// Whether selected text was sent.
    pub selected_text: bool,
    /// Expected refusal type (abstain questions).
    pub expected_refusal_type: Option<String>,
    /// Whether every check passed.
    pub pass: bool,
    /// The checks.
    pub score: QuestionScore,
    /// The response as received.
    pub response: Response,
}

/// Everything an evaluation found.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    /// When.
    pub generated_at: DateTime<Utc>,
    /// The daemoniq version.
    pub daemoniq_version: String,
    /// `in-process` or `http <url>`.
    pub mode: String,
    /// The golden directory, relative to the repository root.
    pub golden_dir: String,
    /// The gate file, relative to the repository root.
    pub gates_file: String,
    /// Whether every enforced gate holds on every scope.
    pub passed: bool,
    /// The enforced gates that fail.
    pub failed_gates: Vec<GateResult>,
    /// The golden files, evaluated or skipped.
    pub files: Vec<FileSummary>,
    /// Golden files left out.
    pub skipped: Vec<Skipped>,
    /// The in-process ingest of the goldens' documents.
    pub ingest: Option<IngestSummary>,
    /// Every gate on every scope.
    pub gates: Vec<GateResult>,
    /// The gate definitions, as `gates.json` gives them.
    pub gate_definitions: Vec<Gate>,
    /// Metrics over all evaluated questions, then per golden file.
    pub scopes: Vec<ScopeMetrics>,
    /// Metrics per category (over all evaluated files).
    pub categories: Vec<ScopeMetrics>,
    /// Every question.
    pub questions: Vec<QuestionReport>,
}

fn missing_response() -> Response {
    Response {
        envelope: json!({"status": "error", "answer": null, "refusal": null,
                         "error": {"code": "EVAL_NO_RESPONSE", "message": "no response recorded"}}),
        http_status: 0,
        wall_ms: 0.0,
    }
}

impl EvalReport {
    /// Scores `responses` (by question id) against the plan's questions and
    /// checks the gates on every golden file and on all of them.
    pub fn build(
        plan: &Plan,
        mode: &str,
        responses: &BTreeMap<String, Response>,
        known: &Known,
        ingest: Option<IngestSummary>,
        scorer: &Scorer,
    ) -> Self {
        let mut questions = Vec::new();
        for (f, q) in plan.questions() {
            let response = responses
                .get(&q.id)
                .cloned()
                .unwrap_or_else(missing_response);
            let score = scorer.score(q, &response, known);
            questions.push((
                q,
                QuestionReport {
                    id: q.id.clone(),
                    file: f.name.clone(),
                    category: q.category.clone(),
                    split: q.split,
                    expect: q.expect,
                    question: q.question.clone(),
                    selected_text: q.selected_text.is_some(),
                    expected_refusal_type: q.refusal_type.clone(),
                    pass: score.pass,
                    score,
                    response,
                },
            ));
        }
        let metrics_of = |keep: &dyn Fn(&QuestionReport) -> bool| {
            Metrics::compute(
                questions
                    .iter()
                    .filter(|(_, r)| keep(r))
                    .map(|(q, r)| (*q, &r.score)),
            )
        };
        // `all` declares a metric not applicable only when every file does.
        let all_na: Vec<String> = plan
            .files
            .first()
            .map(|f| f.not_applicable.clone())
            .unwrap_or_default()
            .into_iter()
            .filter(|m| plan.files.iter().all(|f| f.not_applicable.contains(m)))
            .collect();
        let mut scopes = vec![ScopeMetrics {
            scope: ALL.to_owned(),
            metrics: metrics_of(&|_| true),
            not_applicable: all_na,
        }];
        for f in &plan.files {
            scopes.push(ScopeMetrics {
                scope: f.name.clone(),
                metrics: metrics_of(&|r| r.file == f.name),
                not_applicable: f.not_applicable.clone(),
            });
            // The gates apply to the tuned and the held-out part alike.
            for split in Split::ALL
                .into_iter()
                .filter(|s| f.questions.iter().any(|q| q.split == *s))
            {
                scopes.push(ScopeMetrics {
                    scope: split_scope(&f.name, split),
                    metrics: metrics_of(&|r| r.file == f.name && r.split == split),
                    not_applicable: f.not_applicable.clone(),
                });
            }
        }
        let mut category_names: Vec<String> = CATEGORIES.map(str::to_owned).to_vec();
        for (_, r) in &questions {
            if !category_names.contains(&r.category) {
                category_names.push(r.category.clone());
            }
        }
        let categories = category_names
            .into_iter()
            .filter(|c| questions.iter().any(|(_, r)| &r.category == c))
            .map(|c| ScopeMetrics {
                metrics: metrics_of(&|r| r.category == c),
                scope: c,
                not_applicable: Vec::new(),
            })
            .collect();
        let gates: Vec<GateResult> = scopes
            .iter()
            .filter(|s| s.metrics.questions > 0)
            .flat_map(|s| check_gates(&plan.gates.gates, &s.scope, &s.metrics, &s.not_applicable))
            .collect();
        let failed_gates: Vec<GateResult> = gates
            .iter()
            .filter(|g| g.enforced && !g.pass)
            .cloned()
            .collect();
        let mut files: Vec<FileSummary> = plan
            .files
            .iter()
            .map(|f| FileSummary {
                name: f.name.clone(),
                path: f.rel_path.clone(),
                description: f.description.clone(),
                questions: f.questions.len(),
                evaluated: true,
                skipped_reason: None,
            })
            .collect();
        files.extend(plan.skipped.iter().map(|s| FileSummary {
            name: s.name.clone(),
            path: s.path.clone(),
            description: String::new(),
            questions: s.questions,
            evaluated: false,
            skipped_reason: Some(s.reason.clone()),
        }));
        let evaluated = questions.len();
        Self {
            generated_at: Utc::now(),
            daemoniq_version: env!("CARGO_PKG_VERSION").to_owned(),
            mode: mode.to_owned(),
            golden_dir: crate::import::relative_path(&plan.golden_dir, &plan.root),
            gates_file: crate::import::relative_path(&plan.gates_path, &plan.root),
            passed: failed_gates.is_empty() && evaluated > 0,
            failed_gates,
            files,
            skipped: plan.skipped.clone(),
            ingest,
            gates,
            gate_definitions: plan.gates.gates.clone(),
            scopes,
            categories,
            questions: questions.into_iter().map(|(_, r)| r).collect(),
        }
    }

    /// The gate result of `metric` on `scope`.
    pub fn gate(&self, metric: &str, scope: &str) -> Option<&GateResult> {
        self.gates
            .iter()
            .find(|g| g.metric == metric && g.scope == scope)
    }

    /// The metrics of a scope (`all` or a golden file's name).
    pub fn scope(&self, scope: &str) -> Option<&Metrics> {
        self.scopes
            .iter()
            .find(|s| s.scope == scope)
            .map(|s| &s.metrics)
    }

    /// Writes `eval_report.json` and `eval_report.md` into `dir` (created
    /// if needed). Returns their paths.
    pub fn write(&self, dir: &Path) -> EvalResult<(PathBuf, PathBuf)> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| EvalError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let json_path = dir.join(JSON_FILE);
        let md_path = dir.join(MARKDOWN_FILE);
        let json = serde_json::to_vec_pretty(self).map_err(EvalError::Encode)?;
        std::fs::write(&json_path, json).map_err(io(&json_path))?;
        std::fs::write(&md_path, self.markdown()).map_err(io(&md_path))?;
        Ok((json_path, md_path))
    }

    /// A few lines for the terminal: the result, failing gates, counts.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for sk in &self.skipped {
            let _ = writeln!(
                s,
                "SKIPPED {} ({} questions): {}",
                sk.path, sk.questions, sk.reason
            );
        }
        for sc in &self.scopes {
            let m = &sc.metrics;
            let _ = writeln!(
                s,
                "{:<14} {:>3}/{:<3} questions pass; abstain {} / false refusals {} / recall {} / files {} / contains {} / p95 {} ms",
                sc.scope,
                m.passed,
                m.questions,
                ratio(m.must_abstain_accuracy.value()),
                ratio(m.false_refusal_rate.value()),
                ratio(m.evidence_recall.value()),
                ratio(m.file_citation_accuracy.value()),
                ratio(m.answer_contains_accuracy.value()),
                ms(m.latency_ms.p95),
            );
        }
        if self.passed {
            let _ = writeln!(s, "PASS: every enforced gate holds");
        } else if self.questions.is_empty() {
            let _ = writeln!(s, "FAIL: no question was evaluated");
        } else {
            let _ = writeln!(
                s,
                "FAIL: {} enforced gate(s) fail:",
                self.failed_gates.len()
            );
            for g in &self.failed_gates {
                let _ = writeln!(
                    s,
                    "  {} on {}: {} (needs {} {})",
                    g.metric,
                    g.scope,
                    value(&g.metric, g.value),
                    g.op.as_str(),
                    g.threshold
                );
            }
        }
        s
    }

    /// The Markdown report.
    pub fn markdown(&self) -> String {
        super::markdown::render(self)
    }
}

/// A ratio with three decimals, or `n/a`.
pub fn ratio(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"))
}

/// Milliseconds, rounded, or `n/a`.
pub fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.0}"))
}

/// A metric value formatted for its kind.
pub fn value(metric: &str, v: Option<f64>) -> String {
    if metric.ends_with("_ms") {
        ms(v)
    } else {
        ratio(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::golden::{self, GoldenFile, Question};

    fn question(v: serde_json::Value) -> Question {
        serde_json::from_value(v).unwrap()
    }

    fn plan() -> Plan {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let gates = golden::load_gates(&root.join("golden/gates.json")).unwrap();
        let questions = vec![
            question(json!({
                "id": "t-topo-01", "question": "what feeds vav-2-14", "category": "topology",
                "expect": "answer", "must_include_graph_ids": ["urn:x:AHU-2"],
                "may_include_graph_ids": [], "must_cite_files": ["graph/m.ttl"],
                "answer_contains": ["AHU-2"]
            })),
            question(json!({
                "id": "t-miss-01", "question": "what feeds ahu-9 | really", "category": "missing_entity",
                "expect": "abstain", "refusal_type": "insufficient_grounding",
                "must_include_graph_ids": [], "may_include_graph_ids": [], "must_cite_files": []
            })),
        ];
        Plan {
            golden_dir: root.join("golden"),
            gates_path: root.join("golden/gates.json"),
            gates,
            files: vec![GoldenFile {
                name: "tiny".into(),
                path: root.join("golden/tiny.json"),
                rel_path: "golden/tiny.json".into(),
                description: "two questions".into(),
                files_root: ".".into(),
                has_files_root: false,
                // The two questions measure neither conflicts nor pages.
                not_applicable: vec![
                    "conflict_accuracy".into(),
                    "page_label_accuracy".into(),
                    "entity_f1".into(),
                    "wrong_results".into(),
                ],
                models: Default::default(),
                questions,
            }],
            skipped: vec![Skipped {
                name: "far".into(),
                path: "golden/far.json".into(),
                questions: 3,
                reason: "files_root ../far is absent".into(),
            }],
            root,
        }
    }

    fn answer(text: &str) -> Response {
        Response {
            envelope: json!({
                "status": "success",
                "answer": {"answer": text, "evidence": [{"graph_ids": ["urn:x:AHU-2"],
                    "file_paths": ["graph/m.ttl"], "source_sha": "s"}],
                    "timestamp": "2026-01-01T00:00:00Z", "limitations": "", "next_step": ""},
                "refusal": null, "error": null,
                "metadata": {"processing_time_ms": 7}, "trace": {"chunks": []}
            }),
            http_status: 200,
            wall_ms: 8.0,
        }
    }

    fn build(responses: &[(&str, Response)]) -> EvalReport {
        let mut known = Known::default();
        known.graph_ids.insert("urn:x:AHU-2".into(), true);
        known.sources.insert("graph/m.ttl".into(), "s".into());
        let responses = responses
            .iter()
            .map(|(id, r)| ((*id).to_owned(), r.clone()))
            .collect();
        EvalReport::build(
            &plan(),
            "test",
            &responses,
            &known,
            None,
            &Scorer::new().unwrap(),
        )
    }

    #[test]
    fn a_false_answer_fails_the_run_and_the_report_says_why() {
        let r = build(&[
            ("t-topo-01", answer("AHU-2 feeds it")),
            ("t-miss-01", answer("AHU-2 feeds AHU-9")),
        ]);
        assert!(!r.passed);
        let failed: Vec<(&str, &str)> = r
            .failed_gates
            .iter()
            .map(|g| (g.metric.as_str(), g.scope.as_str()))
            .collect();
        assert_eq!(
            failed,
            [
                ("must_abstain_accuracy", "all"),
                ("must_abstain_accuracy", "tiny"),
                ("must_abstain_accuracy", "tiny/tuned")
            ]
        );
        let md = r.markdown();
        let at = |s: &str| md.find(s).unwrap_or_else(|| panic!("{s:?} not in\n{md}"));
        assert!(at("**Result: FAIL**") < at("## Gates"));
        assert!(at("## Gates") < at("## Per category"));
        assert!(at("## Per category") < at("## Failing questions (1)"));
        assert!(at("## Failing questions (1)") < at("### `t-miss-01`"));
        assert!(at("### `t-miss-01`") < at("## All questions"));
        at("**SKIPPED: `golden/far.json`**");
        at("Every gate of `golden/gates.json` is computed");
        at("should abstain (insufficient_grounding) but answered");
        at(
            "| `must_abstain_accuracy` | >= 1 | yes | 0.000 ❌ **FAIL** | 0.000 ❌ **FAIL** | 0.000 ❌ **FAIL** | skipped |",
        );
        at("| `conflict_accuracy` | >= 1 | yes | n/a | n/a | n/a | skipped |");
        // a pipe in a question does not break the table
        at("what feeds ahu-9 \\| really");
        assert!(
            r.summary()
                .contains("must_abstain_accuracy on tiny: 0.000 (needs >= 1)")
        );
    }

    #[test]
    fn a_missing_response_is_an_error_not_a_pass() {
        let r = build(&[("t-topo-01", answer("AHU-2 feeds it"))]);
        let q = r.questions.iter().find(|q| q.id == "t-miss-01").unwrap();
        assert!(!q.pass);
        assert_eq!(q.score.status, "error");
        assert!(!r.passed);
    }

    #[test]
    fn all_questions_right_passes_and_writes_both_files() {
        let mut refused = answer("x");
        refused.envelope["status"] = json!("refused");
        refused.envelope["answer"]["answer"] = json!("unknown");
        refused.envelope["answer"]["evidence"] = json!([]);
        refused.envelope["refusal"] =
            json!({"reason": "no", "refusal_type": "insufficient_grounding"});
        let r = build(&[
            ("t-topo-01", answer("AHU-2 feeds it")),
            ("t-miss-01", refused),
        ]);
        assert!(r.passed, "{}", r.summary());
        assert!(r.markdown().contains("**Result: PASS**"));
        let dir = tempfile::tempdir().unwrap();
        let (j, m) = r.write(&dir.path().join("reports")).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(j).unwrap()).unwrap();
        assert_eq!(v["passed"], json!(true));
        assert_eq!(
            v["scopes"][0]["metrics"]["must_abstain_accuracy"]["value"],
            json!(1.0)
        );
        assert!(
            std::fs::read_to_string(m)
                .unwrap()
                .contains("## All questions")
        );
    }
}
