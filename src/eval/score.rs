//! Scoring one `/chat` envelope against its golden question
//! ([`Scorer::score`]): contract and envelope, answer or abstention,
//! evidence ids and files, phrases, page labels, citations.
//!
//! Everything here works on the envelope as JSON, so that responses from the
//! in-process pipeline and from a server over HTTP are scored by the same
//! code.

use super::golden::{Expect, Question, ResultKind};
use super::{EvalError, EvalResult};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// The answer contract, compiled into the binary.
const ANSWER_SCHEMA: &str = include_str!("../../schemas/answer_contract.schema.json");

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

/// What the store holds, for citation validity, and the expected results
/// of questions over building models.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Known {
    /// Graph id → whether it occurs in some triple (subject or object).
    pub graph_ids: HashMap<String, bool>,
    /// Source path → sha256 (ontology and model files, documents).
    pub sources: HashMap<String, String>,
    /// Question id → the result of its `expected.sparql` on its model.
    pub expected: HashMap<String, ExpectedResult>,
}

/// The result of a question's `expected.sparql`, read by its kind.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExpectedResult {
    /// IRIs of the first variable (sets).
    pub set: BTreeSet<String>,
    /// The number (counts).
    pub count: Option<u64>,
    /// The ASK result (yes/no).
    pub boolean: Option<bool>,
    /// Values of the first variable, lower case (values).
    pub values: BTreeSet<String>,
    /// (group, number) rows (counts per group).
    pub groups: BTreeSet<(String, u64)>,
}

impl ExpectedResult {
    /// Reads a query result as `kind` says.
    pub fn read(kind: ResultKind, out: crate::store::QueryOutput) -> Self {
        use crate::store::{QueryOutput, SolutionExt};
        let mut r = Self::default();
        let (vars, rows) = match out {
            QueryOutput::Boolean(b) => {
                r.boolean = Some(b);
                return r;
            }
            QueryOutput::Solutions {
                variables, rows, ..
            } => (variables, rows),
            QueryOutput::Graph { .. } => return r,
        };
        let first = vars.first().cloned().unwrap_or_default();
        let second = vars.get(1).cloned().unwrap_or_default();
        for row in &rows {
            match kind {
                ResultKind::Set => {
                    if let Some(v) = row.str(&first) {
                        r.set.insert(v.to_owned());
                    }
                }
                ResultKind::Count => r.count = row.str(&first).and_then(|n| n.parse().ok()),
                ResultKind::Value => {
                    if let Some(v) = row.str(&first) {
                        r.values.insert(v.to_lowercase());
                    }
                }
                ResultKind::GroupedCount => {
                    if let (Some(g), Some(n)) = (
                        row.str(&first),
                        row.str(&second).and_then(|n| n.parse().ok()),
                    ) {
                        r.groups.insert((g.to_owned(), n));
                    }
                }
                ResultKind::Boolean => {}
            }
        }
        r
    }
}

/// Precision/recall F1 of two sets; 1 when both are empty.
pub fn f1<T: Ord>(expected: &BTreeSet<T>, got: &BTreeSet<T>) -> f64 {
    if expected.is_empty() && got.is_empty() {
        return 1.0;
    }
    let common = expected.intersection(got).count() as f64;
    if common == 0.0 {
        return 0.0;
    }
    let (p, r) = (common / got.len() as f64, common / expected.len() as f64);
    2.0 * p * r / (p + r)
}

/// How a graph answer (`trace.graph.answer`) compares with the expected
/// result: entity F1 (1 or 0 for counts and yes/no), and whether it is
/// wrong outright (nothing right in it).
pub fn graph_result(kind: ResultKind, expected: &ExpectedResult, got: &Value) -> (f64, String) {
    let strings = |key: &str| -> BTreeSet<String> {
        got.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    match kind {
        ResultKind::Set => {
            let items = strings("items");
            let common = expected.set.intersection(&items).count();
            (
                f1(&expected.set, &items),
                format!(
                    "expected {} node(s), got {}, {common} in common",
                    expected.set.len(),
                    items.len()
                ),
            )
        }
        ResultKind::Count => {
            let n = got.get("count").and_then(Value::as_u64);
            let kind_ok = got.get("kind").and_then(Value::as_str) == Some("count");
            let ok = kind_ok && n.is_some() && n == expected.count;
            (
                if ok { 1.0 } else { 0.0 },
                format!("expected count {:?}, got {n:?}", expected.count),
            )
        }
        ResultKind::Boolean => {
            let b = got.get("boolean").and_then(Value::as_bool);
            let ok = b.is_some() && b == expected.boolean;
            (
                if ok { 1.0 } else { 0.0 },
                format!("expected {:?}, got {b:?}", expected.boolean),
            )
        }
        ResultKind::Value => {
            let values: BTreeSet<String> =
                strings("values").iter().map(|v| v.to_lowercase()).collect();
            (
                f1(&expected.values, &values),
                format!("expected {:?}, got {values:?}", expected.values),
            )
        }
        ResultKind::GroupedCount => {
            let groups: BTreeSet<(String, u64)> = got
                .get("groups")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|g| {
                            Some((
                                g.get("group")?.as_str()?.to_owned(),
                                g.get("count")?.as_u64()?,
                            ))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let common = expected.groups.intersection(&groups).count();
            (
                f1(&expected.groups, &groups),
                format!(
                    "expected {} group(s), got {}, {common} equal",
                    expected.groups.len(),
                    groups.len()
                ),
            )
        }
    }
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
/// and none at either end, and units written one way: `°F`, `° F`, `degF`,
/// `deg F` and `degrees F` all become `°f` (likewise `°c`), `º` is `°`
/// (golden/README.md, `answer_contains`).
pub fn normalize(s: &str) -> String {
    let spaced = s
        .split(|c: char| c.is_whitespace() || c == '_')
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .replace('º', "°");
    let mut out = spaced;
    for unit in ['f', 'c'] {
        for form in ["degrees ", "degree ", "deg ", "deg", "° "] {
            out = out.replace(&format!("{form}{unit}"), &format!("°{unit}"));
        }
        // "70 °F" and "70°F" are the same reading.
        out = out.replace(&format!(" °{unit}"), &format!("°{unit}"));
    }
    out
}

/// Whether `phrase` occurs in `text` on word and number boundaries, both
/// [`normalize`]d: "70" is not in "170" or "70.5", "vav" is not in
/// "vavs"; punctuation around the phrase does not matter.
pub fn contains_phrase(text: &str, phrase: &str) -> bool {
    let (text, phrase) = (normalize(text), normalize(phrase));
    if phrase.is_empty() {
        return true;
    }
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
    let first = phrase.chars().next();
    let last = phrase.chars().next_back();
    text.match_indices(&phrase).any(|(at, _)| {
        let mut before = text[..at].chars().rev();
        let (b1, b2) = (before.next(), before.next());
        let mut after = text[at + phrase.len()..].chars();
        let (a1, a2) = (after.next(), after.next());
        // A word or number character next to one of the phrase's ends
        // continues it; so does a decimal point or separator between digits.
        let joined_before = word(first)
            && (word(b1) || (matches!(b1, Some('.' | ',')) && digit(b2) && digit(first)));
        let joined_after =
            word(last) && (word(a1) || (matches!(a1, Some('.' | ',')) && digit(a2) && digit(last)));
        !joined_before && !joined_after
    })
}

/// Whether an answer starts with the polarity's word ("Yes: …", "no, …").
pub fn has_polarity(answer: &str, polarity: super::golden::Polarity) -> bool {
    let first: String = answer
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect();
    first.to_lowercase() == polarity.word()
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
    /// |(must ∪ may) ∩ evidence| / |evidence| (answered questions that list
    /// must or may ids, with evidence ids).
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
    /// Entity-set F1 of the graph result against the expected result
    /// (questions with `expected`; 0 when not answered from the graph).
    pub entity_f1: Option<f64>,
    /// Answered with a graph result that has nothing right in it (wrong
    /// direction, wrong relation, wrong count), or answered without one.
    pub wrong_result: Option<bool>,
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
        // A question that lists no graph ids (a document question asked of
        // no node) says nothing of which ids are noise: no precision, as a
        // question without must ids has no recall.
        let precision =
            (is_answer_q && answered && !allowed.is_empty() && !evidence_graph_ids.is_empty())
                .then(|| {
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
        // A refused answer question cites nothing: it fails file citation.
        let files_ok = is_answer_q.then_some(answered && missing_files.is_empty());

        let text = answer_text.as_deref().unwrap_or("");
        let missing_phrases: Vec<String> = q
            .answer_contains
            .iter()
            .filter(|p| !contains_phrase(text, p))
            .cloned()
            .collect();
        let polarity_ok = q
            .expect_polarity
            .filter(|_| is_answer_q)
            .map(|p| answered && has_polarity(text, p));
        let contains_ok =
            (is_answer_q && answered && (!q.answer_contains.is_empty() || polarity_ok.is_some()))
                .then_some(missing_phrases.is_empty() && polarity_ok != Some(false));
        let conflict_ok = (q.category == "conflict")
            .then_some(answered && missing_phrases.is_empty() && !missing_must_files);

        let pages = page_checks(q, &evidence, env);
        let graph = q.expected.as_ref().filter(|_| is_answer_q).map(|e| {
            let got = env.pointer("/trace/graph/answer").filter(|v| !v.is_null());
            match (known.expected.get(&q.id), got) {
                _ if !answered => (0.0, None, "not answered".to_owned()),
                (None, _) => (
                    0.0,
                    Some(false),
                    "the expected result was not computed".to_owned(),
                ),
                (Some(_), None) => (
                    0.0,
                    Some(true),
                    "answered without a graph result".to_owned(),
                ),
                (Some(exp), Some(got)) => {
                    let (f, how) = graph_result(e.kind, exp, got);
                    (f, Some(f == 0.0), how)
                }
            }
        });
        let entity_f1 = graph.as_ref().map(|g| g.0);
        let wrong_result = graph.as_ref().and_then(|g| g.1);
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
            Expect::Answer if graph.as_ref().is_some_and(|g| g.0 < 1.0 - 1e-9) && answered => {
                let (f, _, how) = graph.as_ref().expect("checked");
                failures.push(format!("graph result: F1 {f:.2} ({how})"));
                if !missing_files.is_empty() {
                    failures.push(format!(
                        "evidence does not cite: {}",
                        missing_files.join(", ")
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
                    if let (Some(false), Some(p)) = (polarity_ok, q.expect_polarity) {
                        failures.push(format!(
                            "answer does not start with {:?} (a yes/no question)",
                            p.word()
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
            entity_f1,
            wrong_result,
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
/// once per item, as its page is unknown. (An answer that cites only a
/// Markdown or HTML copy of the PDF is not checked yet: issue 13.)
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

#[cfg(test)]
mod graph_tests {
    use super::*;

    #[test]
    fn graph_results_are_scored_by_entity_f1_and_exact_counts() {
        use crate::eval::golden::ResultKind;
        let set = |v: &[&str]| {
            v.iter()
                .map(|s| (*s).to_owned())
                .collect::<BTreeSet<String>>()
        };
        let expected = ExpectedResult {
            set: set(&["a", "b", "c", "d"]),
            count: Some(4),
            boolean: Some(false),
            ..ExpectedResult::default()
        };
        // Half of four found, with one extra: P 2/3, R 1/2.
        let got = serde_json::json!({"kind": "set", "items": ["a", "b", "x"]});
        let (f, _) = graph_result(ResultKind::Set, &expected, &got);
        assert!((f - 4.0 / 7.0).abs() < 1e-9, "{f}");
        // Nothing in common: 0, a wrong answer.
        let got = serde_json::json!({"kind": "set", "items": ["x"]});
        assert_eq!(graph_result(ResultKind::Set, &expected, &got).0, 0.0);
        // Counts are exact, and must be counts.
        let got = serde_json::json!({"kind": "count", "count": 4, "items": []});
        assert_eq!(graph_result(ResultKind::Count, &expected, &got).0, 1.0);
        let got = serde_json::json!({"kind": "set", "count": 4, "items": []});
        assert_eq!(graph_result(ResultKind::Count, &expected, &got).0, 0.0);
        let got = serde_json::json!({"kind": "count", "count": 3});
        assert_eq!(graph_result(ResultKind::Count, &expected, &got).0, 0.0);
        // Yes/no: the polarity.
        let got = serde_json::json!({"kind": "boolean", "boolean": true});
        assert_eq!(graph_result(ResultKind::Boolean, &expected, &got).0, 0.0);
        // Both empty agree.
        assert_eq!(f1::<String>(&BTreeSet::new(), &BTreeSet::new()), 1.0);
    }
}
