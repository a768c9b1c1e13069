//! The answer contract (`schemas/answer_contract.schema.json`,
//! docs/ARCHITECTURE.md § Contracts) and the check every answer passes before it leaves: JSON
//! Schema validation, every cited graph id resolves in the store, every
//! (file_path, source_sha) pair is a known source.

use crate::store::{GraphStore, QueryOutput, SparqlQuery, StoreResult, TermExt};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

/// The schema text, compiled into the binary.
pub const SCHEMA_TEXT: &str = include_str!("../../schemas/answer_contract.schema.json");

/// The answer that is not one.
pub const UNKNOWN: &str = "unknown";

/// One piece of evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EvidenceItem {
    /// Graph nodes the claim rests on (≥ 1 IRI).
    pub graph_ids: Vec<String>,
    /// The document or graph file the claim came from (relative paths).
    pub file_paths: Vec<String>,
    /// The quoted text or the fact sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
    /// sha256 of the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_sha: Option<String>,
}

/// Answer → Evidence → Timestamp → Limitations → Next step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Answer {
    /// The answer, or "unknown".
    pub answer: String,
    /// What it rests on; empty for an abstention.
    pub evidence: Vec<EvidenceItem>,
    /// Newest `updated_at` among the evidence used; for an abstention the
    /// time of the answer (RFC 3339).
    pub timestamp: String,
    /// What the answer rests on, fallbacks, conflicts.
    pub limitations: String,
    /// Something the engineer can do next.
    pub next_step: String,
}

impl Answer {
    /// The abstention.
    pub fn unknown(limitations: impl Into<String>, next_step: impl Into<String>) -> Self {
        Self {
            answer: UNKNOWN.to_owned(),
            evidence: Vec::new(),
            timestamp: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            limitations: limitations.into(),
            next_step: next_step.into(),
        }
    }

    /// Whether this is the abstention.
    pub fn is_unknown(&self) -> bool {
        self.answer == UNKNOWN && self.evidence.is_empty()
    }
}

/// Why an answer failed its check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckFailure {
    /// The JSON Schema rejected it.
    Schema(Vec<String>),
    /// A cited graph id is not in the store.
    UnknownGraphId(String),
    /// A cited (file, sha) pair is not a loaded source.
    UnknownSource(String, String),
}

impl std::fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Schema(errors) => write!(f, "schema: {}", errors.join("; ")),
            Self::UnknownGraphId(id) => write!(f, "graph id {id} does not resolve"),
            Self::UnknownSource(p, s) => write!(f, "source {p} @ {s} is not loaded"),
        }
    }
}

fn compiled() -> &'static Result<jsonschema::Validator, String> {
    static V: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    V.get_or_init(|| {
        let value: serde_json::Value =
            serde_json::from_str(SCHEMA_TEXT).map_err(|e| e.to_string())?;
        jsonschema::options()
            .should_validate_formats(true)
            .build(&value)
            .map_err(|e| e.to_string())
    })
}

/// Validates an answer against the contract schema (compiled once).
pub fn validate(answer: &Answer) -> Result<(), CheckFailure> {
    let value = serde_json::to_value(answer)
        .map_err(|e| CheckFailure::Schema(vec![format!("cannot serialise: {e}")]))?;
    validate_value(&value)
}

/// Validates a JSON value against the contract schema.
pub fn validate_value(value: &serde_json::Value) -> Result<(), CheckFailure> {
    match compiled() {
        Ok(v) => {
            let errors: Vec<String> = v.iter_errors(value).map(|e| e.to_string()).collect();
            if errors.is_empty() {
                Ok(())
            } else {
                Err(CheckFailure::Schema(errors))
            }
        }
        Err(e) => Err(CheckFailure::Schema(vec![format!(
            "the answer schema does not compile: {e}"
        )])),
    }
}

/// Checks citations against the store: the known sources (path → sha) are
/// read once per check, graph ids with one ASK each.
#[derive(Debug, Default)]
pub struct ContractChecker;

impl ContractChecker {
    /// Schema, graph ids, sources. `Ok(Err(_))` is a failed check;
    /// `Err(_)` a store failure.
    pub async fn check(
        store: &dyn GraphStore,
        answer: &Answer,
    ) -> StoreResult<Result<(), CheckFailure>> {
        if let Err(e) = validate(answer) {
            return Ok(Err(e));
        }
        if answer.evidence.is_empty() {
            return Ok(Ok(()));
        }
        let known: HashMap<String, BTreeSet<String>> =
            store
                .sources()
                .await?
                .into_iter()
                .fold(HashMap::new(), |mut m, r| {
                    m.entry(r.path).or_default().insert(r.sha256);
                    m
                });
        let mut ids: BTreeSet<&str> = BTreeSet::new();
        for e in &answer.evidence {
            ids.extend(e.graph_ids.iter().map(String::as_str));
            if let Some(sha) = &e.source_sha {
                for p in &e.file_paths {
                    if !known.get(p).is_some_and(|s| s.contains(sha)) {
                        return Ok(Err(CheckFailure::UnknownSource(p.clone(), sha.clone())));
                    }
                }
            } else if let Some(p) = e.file_paths.iter().find(|p| !known.contains_key(*p)) {
                return Ok(Err(CheckFailure::UnknownSource(p.clone(), String::new())));
            }
        }
        let unresolved = unresolved_ids(store, &ids).await?;
        Ok(match unresolved.into_iter().next() {
            Some(id) => Err(CheckFailure::UnknownGraphId(id)),
            None => Ok(()),
        })
    }
}

/// The ids (of `ids`) that occur in no triple of the store.
async fn unresolved_ids(store: &dyn GraphStore, ids: &BTreeSet<&str>) -> StoreResult<Vec<String>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut values = String::new();
    for id in ids {
        if id.contains(['<', '>', '"', ' ', '{', '}']) {
            return Ok(vec![(*id).to_owned()]);
        }
        values.push_str(&format!(" <{id}>"));
    }
    let q = format!(
        "SELECT ?id WHERE {{ VALUES ?id {{{values} }} \
         FILTER(EXISTS {{ ?id ?p ?o }} || EXISTS {{ ?s ?p2 ?id }}) }}"
    );
    let found: BTreeSet<String> = match store.query(SparqlQuery::new(q)).await? {
        QueryOutput::Solutions { rows, .. } => rows
            .into_iter()
            .filter_map(|r| r.get("id").map(|t| t.value().to_owned()))
            .collect(),
        _ => BTreeSet::new(),
    };
    Ok(ids
        .iter()
        .filter(|i| !found.contains(**i))
        .map(|i| (*i).to_owned())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item() -> EvidenceItem {
        EvidenceItem {
            graph_ids: vec!["https://example.com/a".into()],
            file_paths: vec!["graph/x.ttl".into()],
            excerpt: Some("x".into()),
            source_sha: Some("ab".into()),
        }
    }

    #[test]
    fn abstention_and_answer_validate() {
        assert_eq!(validate(&Answer::unknown("none", "ask")), Ok(()));
        let a = Answer {
            answer: "AHU-2".into(),
            evidence: vec![item()],
            timestamp: "2026-01-01T00:00:00Z".into(),
            limitations: String::new(),
            next_step: String::new(),
        };
        assert_eq!(validate(&a), Ok(()));
    }

    #[test]
    fn answers_without_evidence_or_ids_or_time_fail() {
        let mut a = Answer::unknown("", "");
        a.answer = "AHU-2".into();
        assert!(matches!(validate(&a), Err(CheckFailure::Schema(_))));
        let mut b = Answer::unknown("", "");
        b.answer = "x".into();
        b.evidence = vec![EvidenceItem {
            graph_ids: vec![],
            ..item()
        }];
        assert!(matches!(validate(&b), Err(CheckFailure::Schema(_))));
        let mut c = Answer::unknown("", "");
        c.evidence = vec![item()];
        c.answer = "y".into();
        c.timestamp = "yesterday".into();
        assert!(matches!(validate(&c), Err(CheckFailure::Schema(_))));
    }
}
