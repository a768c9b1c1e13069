//! The metrics of `golden/gates.json` over a set of scored questions
//! ([`Metrics::compute`]) and the gates ([`check_gates`]).

use super::golden::{Expect, Gate, Op, Question};
use super::score::QuestionScore;
use serde::{Serialize, Serializer};

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
    "entity_f1",
    "wrong_results",
    "latency_p50_ms",
    "latency_p95_ms",
    "latency_p99_ms",
];

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
    /// Mean entity-set F1 of the graph results (answer questions with an
    /// expected result; a refusal counts 0).
    pub entity_f1: Stat,
    /// Answered questions with an expected result whose graph result has
    /// nothing right in it: `num` counts them.
    pub wrong_results: Stat,
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
                    if let Some(f) = s.entity_f1 {
                        m.entity_f1.add(f);
                        m.wrong_results.hit(s.wrong_result == Some(true));
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
            "entity_f1" => self.entity_f1.value(),
            // A count, not a share: "no wrong answer" is a threshold of 0.
            "wrong_results" => (self.wrong_results.den > 0).then_some(self.wrong_results.num),
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
    /// Whether it holds. A gate with nothing to measure holds only when
    /// the scope's golden files declare its metric not applicable.
    pub pass: bool,
    /// Nothing to measure, and the scope declares the metric does not
    /// apply.
    pub not_applicable: bool,
}

/// Slack for comparing means of fractions with thresholds such as 0.9.
const EPSILON: f64 = 1e-9;

/// Checks every gate against the metrics of one scope; `not_applicable`
/// names the metrics the scope declares it does not measure. A gate with
/// nothing to measure fails unless its metric is declared: no free credit.
pub fn check_gates(
    gates: &[Gate],
    scope: &str,
    m: &Metrics,
    not_applicable: &[String],
) -> Vec<GateResult> {
    gates
        .iter()
        .map(|g| {
            let value = m.value(&g.metric);
            let declared = value.is_none() && not_applicable.contains(&g.metric);
            let pass = match value {
                Some(v) => match g.op {
                    Op::Ge => g.op.holds(v + EPSILON, g.threshold),
                    Op::Le => g.op.holds(v - EPSILON, g.threshold),
                },
                None => declared,
            };
            GateResult {
                metric: g.metric.clone(),
                scope: scope.to_owned(),
                value,
                op: g.op,
                threshold: g.threshold,
                enforced: g.enforced,
                pass,
                not_applicable: declared,
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "metrics_tests.rs"]
mod tests;
