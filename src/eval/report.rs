//! The evaluation report: `eval_report.json` (everything, for machines and
//! diffing) and `eval_report.md` (for a person who did not write the
//! goldens: gates, categories, failing questions with reasons, then all).

use super::golden::{Expect, Gate};
use super::metrics::{GateResult, Known, Metrics, QuestionScore, Response, Scorer, check_gates};
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

/// Metrics of one scope (a golden file, `all`, or a category).
#[derive(Debug, Clone, Serialize)]
pub struct ScopeMetrics {
    /// The scope.
    pub scope: String,
    /// Its metrics.
    pub metrics: Metrics,
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
    /// The golden directory.
    pub golden_dir: String,
    /// The gate file.
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
        let mut scopes = vec![ScopeMetrics {
            scope: ALL.to_owned(),
            metrics: metrics_of(&|_| true),
        }];
        for f in &plan.files {
            scopes.push(ScopeMetrics {
                scope: f.name.clone(),
                metrics: metrics_of(&|r| r.file == f.name),
            });
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
            })
            .collect();
        let gates: Vec<GateResult> = scopes
            .iter()
            .filter(|s| s.metrics.questions > 0)
            .flat_map(|s| check_gates(&plan.gates.gates, &s.scope, &s.metrics))
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
            golden_dir: plan.golden_dir.display().to_string(),
            gates_file: plan.gates_path.display().to_string(),
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
