//! Scoring: one `/chat` envelope against its golden question
//! ([`Scorer::score`]), the metrics of `golden/gates.json` over a set of
//! questions ([`Metrics::compute`]), and the gates ([`check_gates`]).
//!
//! Everything here works on the envelope as JSON, so that responses from the
//! in-process pipeline and from a server over HTTP are scored by the same
//! code.

use super::golden::{Expect, Gate, Op, Question};
use super::{EvalError, EvalResult};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// The answer contract, compiled into the binary.
const ANSWER_SCHEMA: &str = include_str!("../../schemas/answer_contract.schema.json");

/// The metric names eval computes; a gate naming anything else is refused.
pub const METRICS: &[&str] = &[
    "schema_compliance",
    "must_abstain_accuracy",
    "citation_validity",
    "evidence_recall",
    "file_citation_accuracy",
    "false_refusal_rate",
    "answer_contains_accuracy",
    "conflict_accuracy",
    "page_label_accuracy",
    "evidence_precision",
    "refusal_type_accuracy",
    "latency_p50_ms",
    "latency_p95_ms",
    "latency_p99_ms",
];

/// The answer text of an abstention.
pub const UNKNOWN: &str = "unknown";

/// One `/chat` response as eval saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The envelope `{status, answer, refusal, error, metadata, trace}`; a
    /// request that failed validation or a body that is not an envelope is
    /// wrapped as `{status: "error", error: …}`.
    pub envelope: Value,
    /// HTTP status (in process: 200, or the status of the error's code).
    pub http_status: u16,
    /// Wall time of the request, as eval measured it.
    pub wall_ms: f64,
}

/// What the store holds, for citation validity.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Known {
    /// Graph id → whether it occurs in some triple (subject or object).
    pub graph_ids: HashMap<String, bool>,
    /// Source path → sha256 (ontology and model files, documents).
    pub sources: HashMap<String, String>,
}

/// Whether a string can be put between `<` and `>` in a SPARQL query; one
/// that cannot is not an IRI and so does not resolve.
pub fn is_plain_iri(s: &str) -> bool {
    !s.is_empty()
        && s.contains(':')
        && !s
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "<>\"{}|^`\\".contains(c))
}

/// Lower case, with every run of whitespace and `_` turned into one space
/// and none at either end (golden/README.md, `answer_contains`).
pub fn normalize(s: &str) -> String {
    s.split(|c: char| c.is_whitespace() || c == '_')
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// One evidence item's citation check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CitationCheck {
    /// Position in `evidence`.
    pub item: usize,
    /// Whether all graph ids resolve and (file path, sha) is a known source.
    pub valid: bool,
    /// What is wrong, when not valid.
    pub problems: Vec<String>,
}

/// One page-label check: a chunk of a PDF with expected pages that the answer used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageCheck {
    /// The PDF.
    pub file: String,
    /// The page label of the used chunk (none when the trace has no used chunk of the PDF).
    pub page_label: Option<String>,
    /// The labels the golden question accepts.
    pub expected: Vec<String>,
    /// Whether the label is one of them.
    pub ok: bool,
}

/// The score of one response against its question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuestionScore {
    /// `success`, `refused`, `error` (or what the body said).
    pub status: String,
    /// Whether the envelope is consistent and its answer follows the contract.
    pub compliant: bool,
    /// Compliance problems.
    pub compliance_problems: Vec<String>,
    /// Status success with an answer that is not the abstention.
    pub answered: bool,
    /// Status refused with the abstention as answer.
    pub abstained: bool,
    /// The refusal type the response gave.
    pub refusal_type: Option<String>,
    /// Whether it equals the expected one (abstain questions).
    pub refusal_type_ok: Option<bool>,
    /// The answer text.
    pub answer_text: Option<String>,
    /// Union of the evidence graph ids.
    pub evidence_graph_ids: BTreeSet<String>,
    /// Union of the evidence file paths.
    pub evidence_files: BTreeSet<String>,
    /// Must ids missing from the evidence.
    pub missing_graph_ids: Vec<String>,
    /// Evidence ids neither in must nor may.
    pub extra_graph_ids: Vec<String>,
    /// |must ∩ evidence| / |must| (answer questions with must ids; 0 when not answered).
    pub recall: Option<f64>,
    /// |(must ∪ may) ∩ evidence| / |evidence| (answered questions with evidence ids).
    pub precision: Option<f64>,
    /// Required files (or groups) not cited.
    pub missing_files: Vec<String>,
    /// Whether every required file is cited (answer questions).
    pub files_ok: Option<bool>,
    /// Phrases the answer lacks.
    pub missing_phrases: Vec<String>,
    /// Whether the answer has every phrase (answered questions with phrases).
    pub contains_ok: Option<bool>,
    /// Conflict questions: answered, every phrase, every must-cite file.
    pub conflict_ok: Option<bool>,
    /// Page label checks.
    pub pages: Vec<PageCheck>,
    /// Citation checks, one per evidence item.
    pub citations: Vec<CitationCheck>,
    /// `metadata.processing_time_ms`, else the wall time.
    pub latency_ms: f64,
    /// Why the question failed.
    pub failures: Vec<String>,
    /// Reported, not failing: refusal type, evidence noise.
    pub warnings: Vec<String>,
    /// No failures.
    pub pass: bool,
}

/// Scores envelopes; holds the compiled answer contract.
pub struct Scorer {
    answer_schema: jsonschema::Validator,
}

impl std::fmt::Debug for Scorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scorer").finish_non_exhaustive()
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn non_null(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

/// Whether an answer contract is the abstention: "unknown", no evidence.
pub fn is_abstention(answer: &Value) -> bool {
    answer.get("answer").and_then(Value::as_str) == Some(UNKNOWN)
        && answer
            .get("evidence")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

fn list(items: &[String], n: usize) -> String {
    let mut s = items.iter().take(n).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > n {
        s.push_str(&format!(" and {} more", items.len() - n));
    }
    s
}

impl Scorer {
    /// Compiles the answer contract.
    pub fn new() -> EvalResult<Self> {
        let schema: Value =
            serde_json::from_str(ANSWER_SCHEMA).map_err(|source| EvalError::Json {
                path: "schemas/answer_contract.schema.json".into(),
                source,
            })?;
        let answer_schema = jsonschema::validator_for(&schema).map_err(|e| EvalError::Invalid {
            path: "schemas/answer_contract.schema.json".into(),
            message: e.to_string(),
        })?;
        Ok(Self { answer_schema })
    }

    fn contract_problems(&self, answer: Option<&Value>) -> Vec<String> {
        match answer {
            None => vec!["answer is missing".to_owned()],
            Some(a) => self
                .answer_schema
                .iter_errors(a)
                .take(3)
                .map(|e| format!("answer contract: {e} at {}", e.instance_path()))
                .collect(),
        }
    }

    /// Envelope consistency: success ⇒ a contract answer that is not the
    /// abstention, no refusal, no error; refused ⇒ a refusal and the
    /// abstention, no error; error (or anything else) is not compliant.
    fn compliance(&self, env: &Value, http_status: u16) -> Vec<String> {
        let answer = non_null(env.get("answer"));
        let refusal = non_null(env.get("refusal"));
        let error = non_null(env.get("error"));
        let mut problems = Vec::new();
        match env.get("status").and_then(Value::as_str) {
            Some("success") => {
                problems.extend(self.contract_problems(answer));
                if answer.is_some_and(is_abstention) {
                    problems.push("status success with the abstention as answer".into());
                }
                if refusal.is_some() {
                    problems.push("status success with a refusal".into());
                }
                if error.is_some() {
                    problems.push("status success with an error".into());
                }
            }
            Some("refused") => {
                if !refusal.is_some_and(Value::is_object) {
                    problems.push("status refused without a refusal".into());
                }
                problems.extend(self.contract_problems(answer));
                if answer.is_some_and(|a| !is_abstention(a)) {
                    problems.push("status refused but the answer is not the abstention".into());
                }
                if error.is_some() {
                    problems.push("status refused with an error".into());
                }
            }
            Some("error") => {
                let code = error
                    .and_then(|e| e.get("code"))
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                let message = error
                    .and_then(|e| e.get("message"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                problems.push(format!(
                    "status error (HTTP {http_status}): {code}: {message}"
                ));
            }
            Some(other) => problems.push(format!("unknown status {other:?}")),
            None => problems.push(format!("not a /chat envelope (HTTP {http_status})")),
        }
        if problems.is_empty() && !(200..300).contains(&http_status) {
            problems.push(format!(
                "HTTP {http_status} for a {} envelope",
                env["status"]
            ));
        }
        problems
    }

    fn citation(item_no: usize, item: &Value, known: &Known) -> CitationCheck {
        let mut problems = Vec::new();
        let ids = strings(item.get("graph_ids").unwrap_or(&Value::Null));
        let files = strings(item.get("file_paths").unwrap_or(&Value::Null));
        if ids.is_empty() {
            problems.push("no graph ids".to_owned());
        }
        let unresolved: Vec<String> = ids
            .iter()
            .filter(|id| !known.graph_ids.get(*id).copied().unwrap_or(false))
            .cloned()
            .collect();
        if !unresolved.is_empty() {
            problems.push(format!(
                "graph ids not in the store: {}",
                list(&unresolved, 5)
            ));
        }
        if files.is_empty() {
            problems.push("no file paths".to_owned());
        }
        let unknown: Vec<String> = files
            .iter()
            .filter(|f| !known.sources.contains_key(*f))
            .cloned()
            .collect();
        if !unknown.is_empty() {
            problems.push(format!(
                "files not among the sources: {}",
                list(&unknown, 5)
            ));
        }
        match item.get("source_sha").and_then(Value::as_str) {
            None => problems.push("no source_sha".to_owned()),
            Some(sha) => {
                if !files.is_empty()
                    && !files
                        .iter()
                        .any(|f| known.sources.get(f).is_some_and(|s| s == sha))
                {
                    problems.push(format!(
                        "source_sha {} is not the sha256 of {}",
                        shorten(sha, 12),
                        list(&files, 3)
                    ));
                }
            }
        }
        CitationCheck {
            item: item_no,
            valid: problems.is_empty(),
            problems,
        }
    }

    /// Scores one response against its question.
    pub fn score(&self, q: &Question, r: &Response, known: &Known) -> QuestionScore {
        let env = &r.envelope;
        let status = env
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("none")
            .to_owned();
        let compliance_problems = self.compliance(env, r.http_status);
        let answer = non_null(env.get("answer"));
        let answered = status == "success" && answer.is_some_and(|a| !is_abstention(a));
        let abstained = status == "refused" && answer.is_some_and(is_abstention);
        let refusal_type = non_null(env.get("refusal"))
            .and_then(|r| r.get("refusal_type"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let answer_text = answer
            .and_then(|a| a.get("answer"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let evidence: Vec<Value> = answer
            .and_then(|a| a.get("evidence"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();

        let mut evidence_graph_ids = BTreeSet::new();
        let mut evidence_files = BTreeSet::new();
        for item in &evidence {
            evidence_graph_ids.extend(strings(item.get("graph_ids").unwrap_or(&Value::Null)));
            evidence_files.extend(strings(item.get("file_paths").unwrap_or(&Value::Null)));
        }
        let citations: Vec<CitationCheck> = evidence
            .iter()
            .enumerate()
            .map(|(i, item)| Self::citation(i, item, known))
            .collect();

        let is_answer_q = q.expect == Expect::Answer;
        let must: BTreeSet<&String> = q.must_include_graph_ids.iter().collect();
        let allowed: BTreeSet<&String> = must
            .iter()
            .copied()
            .chain(&q.may_include_graph_ids)
            .collect();
        let missing_graph_ids: Vec<String> = q
            .must_include_graph_ids
            .iter()
            .filter(|id| !(answered && evidence_graph_ids.contains(*id)))
            .cloned()
            .collect();
        let extra_graph_ids: Vec<String> = evidence_graph_ids
            .iter()
            .filter(|id| !allowed.contains(id))
            .cloned()
            .collect();
        let recall = (is_answer_q && !must.is_empty())
            .then(|| (must.len() - missing_graph_ids.len()) as f64 / must.len() as f64);
        let precision = (is_answer_q && answered && !evidence_graph_ids.is_empty()).then(|| {
            (evidence_graph_ids.len() - extra_graph_ids.len()) as f64
                / evidence_graph_ids.len() as f64
        });

        let mut missing_files: Vec<String> = q
            .must_cite_files
            .iter()
            .filter(|f| !evidence_files.contains(*f))
            .cloned()
            .collect();
        let missing_must_files = !missing_files.is_empty();
        for group in &q.must_cite_any_of {
            if !group.iter().any(|f| evidence_files.contains(f)) {
                missing_files.push(format!("one of [{}]", group.join(" | ")));
            }
        }
        let files_ok = is_answer_q.then_some(missing_files.is_empty());

        let text = normalize(answer_text.as_deref().unwrap_or(""));
        let missing_phrases: Vec<String> = q
            .answer_contains
            .iter()
            .filter(|p| !text.contains(&normalize(p)))
            .cloned()
            .collect();
        let contains_ok = (is_answer_q && answered && !q.answer_contains.is_empty())
            .then_some(missing_phrases.is_empty());
        let conflict_ok = (q.category == "conflict")
            .then_some(answered && missing_phrases.is_empty() && !missing_must_files);

        let pages = page_checks(q, &evidence, env);
        let refusal_type_ok = (q.expect == Expect::Abstain)
            .then(|| refusal_type.is_some() && refusal_type == q.refusal_type);
        let latency_ms = env
            .pointer("/metadata/processing_time_ms")
            .and_then(Value::as_f64)
            .unwrap_or(r.wall_ms);

        let mut failures = Vec::new();
        let mut warnings = Vec::new();
        if !compliance_problems.is_empty() {
            failures.push(format!(
                "schema compliance: {}",
                compliance_problems.join("; ")
            ));
        }
        match q.expect {
            Expect::Abstain => {
                if !abstained {
                    failures.push(match (status.as_str(), &answer_text) {
                        ("success", Some(t)) => format!(
                            "should abstain ({}) but answered: {:?}",
                            q.refusal_type.as_deref().unwrap_or("?"),
                            shorten(t, 160)
                        ),
                        _ => format!("should abstain but the status is {status}"),
                    });
                } else if refusal_type_ok == Some(false) {
                    warnings.push(format!(
                        "refusal type {} (expected {})",
                        refusal_type.as_deref().unwrap_or("none"),
                        q.refusal_type.as_deref().unwrap_or("?")
                    ));
                }
            }
            Expect::Answer => {
                if !answered {
                    failures.push(match status.as_str() {
                        "refused" => format!(
                            "refused ({}) although the sources answer it",
                            refusal_type.as_deref().unwrap_or("no refusal type")
                        ),
                        s => format!("no answer (status {s})"),
                    });
                } else {
                    if !missing_graph_ids.is_empty() {
                        failures.push(format!(
                            "evidence lacks graph ids: {}",
                            list(&missing_graph_ids, 6)
                        ));
                    }
                    if !missing_files.is_empty() {
                        failures.push(format!(
                            "evidence does not cite: {}",
                            list(&missing_files, 4)
                        ));
                    }
                    if !missing_phrases.is_empty() {
                        failures.push(format!(
                            "answer lacks: {}",
                            missing_phrases
                                .iter()
                                .map(|p| format!("{p:?}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                    }
                    if !extra_graph_ids.is_empty() {
                        warnings.push(format!(
                            "{} of {} evidence graph ids are neither must nor may: {}",
                            extra_graph_ids.len(),
                            evidence_graph_ids.len(),
                            list(&extra_graph_ids, 4)
                        ));
                    }
                }
            }
        }
        for c in citations.iter().filter(|c| !c.valid) {
            failures.push(format!(
                "invalid citation (evidence {}): {}",
                c.item,
                c.problems.join("; ")
            ));
        }
        for p in pages.iter().filter(|p| !p.ok) {
            failures.push(format!(
                "{} cited on page {} (expected {})",
                p.file,
                p.page_label
                    .as_deref()
                    .unwrap_or("unknown: no used chunk in the trace"),
                p.expected.join(" or ")
            ));
        }
        QuestionScore {
            status,
            compliant: compliance_problems.is_empty(),
            compliance_problems,
            answered,
            abstained,
            refusal_type,
            refusal_type_ok,
            answer_text,
            evidence_graph_ids,
            evidence_files,
            missing_graph_ids,
            extra_graph_ids,
            recall,
            precision,
            missing_files,
            files_ok,
            missing_phrases,
            contains_ok,
            conflict_ok,
            pages,
            citations,
            latency_ms,
            pass: failures.is_empty(),
            failures,
            warnings,
        }
    }
}

/// Page checks: for each PDF of `expected_pages` that the evidence cites,
/// one check per chunk of it that the trace marks `used` (the contract has
/// no page labels); evidence that cites the PDF with no such chunk fails
/// once per item, as its page is unknown.
fn page_checks(q: &Question, evidence: &[Value], env: &Value) -> Vec<PageCheck> {
    let used: Vec<&Value> = env
        .pointer("/trace/chunks")
        .and_then(Value::as_array)
        .map(|c| {
            c.iter()
                .filter(|c| c.get("used").and_then(Value::as_bool) == Some(true))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for (pdf, expected) in &q.expected_pages {
        let citing = evidence
            .iter()
            .filter(|e| strings(e.get("file_paths").unwrap_or(&Value::Null)).contains(pdf))
            .count();
        if citing == 0 {
            continue;
        }
        let labels: Vec<String> = used
            .iter()
            .filter(|c| c.get("source_ref").and_then(Value::as_str) == Some(pdf.as_str()))
            .map(|c| {
                c.get("page_label")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect();
        if labels.is_empty() {
            out.extend((0..citing).map(|_| PageCheck {
                file: pdf.clone(),
                page_label: None,
                expected: expected.clone(),
                ok: false,
            }));
        } else {
            out.extend(labels.into_iter().map(|l| PageCheck {
                file: pdf.clone(),
                ok: expected.contains(&l),
                page_label: Some(l),
                expected: expected.clone(),
            }));
        }
    }
    out
}

/// A ratio or a mean: `num / den`, undefined when `den` is 0.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stat {
    /// Sum of the values (a count for ratios).
    pub num: f64,
    /// Number of values.
    pub den: usize,
}

impl Stat {
    /// Adds one value.
    pub fn add(&mut self, x: f64) {
        self.num += x;
        self.den += 1;
    }

    /// Adds 1 or 0.
    pub fn hit(&mut self, ok: bool) {
        self.add(if ok { 1.0 } else { 0.0 });
    }

    /// The ratio, or `None` when nothing was counted.
    pub fn value(&self) -> Option<f64> {
        (self.den > 0).then(|| self.num / self.den as f64)
    }
}

impl Serialize for Stat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Out {
            value: Option<f64>,
            num: f64,
            den: usize,
        }
        Out {
            value: self.value(),
            num: self.num,
            den: self.den,
        }
        .serialize(s)
    }
}

/// Latency percentiles (nearest rank) in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Responses measured.
    pub n: usize,
    /// Median.
    pub p50: Option<f64>,
    /// 95th percentile.
    pub p95: Option<f64>,
    /// 99th percentile.
    pub p99: Option<f64>,
    /// Slowest.
    pub max: Option<f64>,
}

/// The nearest-rank percentile `p` (0–100) of `sorted` (ascending).
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

impl Latency {
    /// Percentiles of the given values.
    pub fn of(mut values: Vec<f64>) -> Self {
        values.sort_by(f64::total_cmp);
        Self {
            n: values.len(),
            p50: percentile(&values, 50.0),
            p95: percentile(&values, 95.0),
            p99: percentile(&values, 99.0),
            max: values.last().copied(),
        }
    }
}

/// The metrics of `gates.json` (and a few counts) over a set of questions.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Metrics {
    /// Questions scored.
    pub questions: usize,
    /// Questions that passed every check.
    pub passed: usize,
    /// Questions with expect = answer.
    pub answer_questions: usize,
    /// Questions with expect = abstain.
    pub abstain_questions: usize,
    /// Responses that were errors.
    pub errors: usize,
    /// Responses whose envelope and answer follow the contract.
    pub schema_compliance: Stat,
    /// Abstain questions that abstained.
    pub must_abstain_accuracy: Stat,
    /// Abstain questions that were answered.
    pub false_answers: usize,
    /// Answer questions that were not answered (refused, or an error).
    pub false_refusal_rate: Stat,
    /// Evidence items whose graph ids resolve and whose (file, sha) is a source.
    pub citation_validity: Stat,
    /// Mean share of the must ids in the evidence.
    pub evidence_recall: Stat,
    /// Mean share of the evidence ids that are must or may.
    pub evidence_precision: Stat,
    /// Answer questions citing every required file.
    pub file_citation_accuracy: Stat,
    /// Answered questions whose answer has every phrase.
    pub answer_contains_accuracy: Stat,
    /// Conflict questions answered with the graph's value, citing both sources.
    pub conflict_accuracy: Stat,
    /// Used PDF chunks on an expected page.
    pub page_label_accuracy: Stat,
    /// Abstentions with the expected refusal type (over abstain questions).
    pub refusal_type_accuracy: Stat,
    /// `processing_time_ms` percentiles.
    pub latency_ms: Latency,
}

impl Metrics {
    /// Aggregates scored questions.
    pub fn compute<'a>(items: impl IntoIterator<Item = (&'a Question, &'a QuestionScore)>) -> Self {
        let mut m = Self::default();
        let mut latencies = Vec::new();
        for (q, s) in items {
            m.questions += 1;
            m.passed += usize::from(s.pass);
            m.errors += usize::from(s.status == "error");
            m.schema_compliance.hit(s.compliant);
            latencies.push(s.latency_ms);
            for c in &s.citations {
                m.citation_validity.hit(c.valid);
            }
            for p in &s.pages {
                m.page_label_accuracy.hit(p.ok);
            }
            match q.expect {
                Expect::Abstain => {
                    m.abstain_questions += 1;
                    m.must_abstain_accuracy.hit(s.abstained);
                    m.false_answers += usize::from(s.answered);
                    m.refusal_type_accuracy.hit(s.refusal_type_ok == Some(true));
                }
                Expect::Answer => {
                    m.answer_questions += 1;
                    m.false_refusal_rate.hit(!s.answered);
                    if let Some(r) = s.recall {
                        m.evidence_recall.add(r);
                    }
                    if let Some(p) = s.precision {
                        m.evidence_precision.add(p);
                    }
                    if let Some(ok) = s.files_ok {
                        m.file_citation_accuracy.hit(ok);
                    }
                    if let Some(ok) = s.contains_ok {
                        m.answer_contains_accuracy.hit(ok);
                    }
                }
            }
            if let Some(ok) = s.conflict_ok {
                m.conflict_accuracy.hit(ok);
            }
        }
        m.latency_ms = Latency::of(latencies);
        m
    }

    /// The value of a metric of [`METRICS`]; `None` when nothing was
    /// measured (no question of that kind) or the name is unknown.
    pub fn value(&self, metric: &str) -> Option<f64> {
        match metric {
            "schema_compliance" => self.schema_compliance.value(),
            "must_abstain_accuracy" => self.must_abstain_accuracy.value(),
            "citation_validity" => self.citation_validity.value(),
            "evidence_recall" => self.evidence_recall.value(),
            "file_citation_accuracy" => self.file_citation_accuracy.value(),
            "false_refusal_rate" => self.false_refusal_rate.value(),
            "answer_contains_accuracy" => self.answer_contains_accuracy.value(),
            "conflict_accuracy" => self.conflict_accuracy.value(),
            "page_label_accuracy" => self.page_label_accuracy.value(),
            "evidence_precision" => self.evidence_precision.value(),
            "refusal_type_accuracy" => self.refusal_type_accuracy.value(),
            "latency_p50_ms" => self.latency_ms.p50,
            "latency_p95_ms" => self.latency_ms.p95,
            "latency_p99_ms" => self.latency_ms.p99,
            _ => None,
        }
    }
}

/// One gate checked on one scope (a golden file, or `all`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateResult {
    /// The metric.
    pub metric: String,
    /// The golden file's name, or `all`.
    pub scope: String,
    /// The measured value (`None`: nothing to measure in this scope).
    pub value: Option<f64>,
    /// `>=` or `<=`.
    pub op: Op,
    /// The threshold.
    pub threshold: f64,
    /// Whether failing fails the run.
    pub enforced: bool,
    /// Whether it holds (a gate with nothing to measure holds).
    pub pass: bool,
}

/// Slack for comparing means of fractions with thresholds such as 0.9.
const EPSILON: f64 = 1e-9;

/// Checks every gate against the metrics of one scope.
pub fn check_gates(gates: &[Gate], scope: &str, m: &Metrics) -> Vec<GateResult> {
    gates
        .iter()
        .map(|g| {
            let value = m.value(&g.metric);
            let pass = value.is_none_or(|v| match g.op {
                Op::Ge => g.op.holds(v + EPSILON, g.threshold),
                Op::Le => g.op.holds(v - EPSILON, g.threshold),
            });
            GateResult {
                metric: g.metric.clone(),
                scope: scope.to_owned(),
                value,
                op: g.op,
                threshold: g.threshold,
                enforced: g.enforced,
                pass,
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "metrics_tests.rs"]
mod tests;
