//! The golden question files (`schemas/golden.schema.json`) and the CI gates
//! (`golden/gates.json`), read and checked before anything runs.

use super::{EvalError, EvalResult};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The golden file schema, compiled into the binary so that a golden file
/// is checked against the schema it was written for.
const GOLDEN_SCHEMA: &str = include_str!("../../schemas/golden.schema.json");

/// Whether the response must answer or abstain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    /// A grounded answer with evidence.
    Answer,
    /// The abstention: answer "unknown", empty evidence, status refused.
    Abstain,
}

/// Which part of a golden file a question belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Written beside the pipeline, which may have been adjusted while
    /// looking at it.
    #[default]
    Tuned,
    /// Written without looking at the pipeline, after it was frozen for
    /// that part.
    HeldOut,
}

impl Split {
    /// Both, in report order.
    pub const ALL: [Self; 2] = [Self::Tuned, Self::HeldOut];

    /// As in the golden files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tuned => "tuned",
            Self::HeldOut => "held_out",
        }
    }
}

/// The expected answer of a yes/no question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Polarity {
    /// The answer starts with "Yes".
    Yes,
    /// The answer starts with "No".
    No,
}

impl Polarity {
    /// The word the answer must start with, lower case.
    pub fn word(self) -> &'static str {
        match self {
            Self::Yes => "yes",
            Self::No => "no",
        }
    }
}

/// The shape of a question's expected graph result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultKind {
    /// A set of nodes (scored by entity-set F1).
    Set,
    /// A number.
    Count,
    /// Yes or no.
    Boolean,
    /// Literal values (units).
    Value,
    /// A number per group node.
    GroupedCount,
}

/// The expected result of a question over a building model: the SPARQL
/// whose result is the answer key, and its shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expected {
    /// The result's shape.
    pub kind: ResultKind,
    /// Runs over Brick, `ontology/` and the question's model only.
    pub sparql: String,
}

/// One building model of a model-based golden file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSpec {
    /// Its files, relative to `files_root` (or the repository root when
    /// `root` is `repo`).
    pub files: Vec<String>,
    /// `repo` for files of this repository.
    #[serde(default)]
    pub root: Option<String>,
}

/// One golden question (see `golden/README.md` for each field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// Unique over all golden files.
    pub id: String,
    /// The query as sent.
    pub question: String,
    /// What the question exercises (`topology`, `document`, `out_of_scope` …).
    pub category: String,
    /// Answer or abstain.
    pub expect: Expect,
    /// Expected refusal type of an abstention.
    #[serde(default)]
    pub refusal_type: Option<String>,
    /// IRIs the evidence graph ids must contain.
    pub must_include_graph_ids: Vec<String>,
    /// IRIs the evidence may contain without counting as noise.
    pub may_include_graph_ids: Vec<String>,
    /// Files that must all be cited (relative to `files_root`).
    pub must_cite_files: Vec<String>,
    /// Groups of interchangeable files; one of each must be cited.
    #[serde(default)]
    pub must_cite_any_of: Vec<Vec<String>>,
    /// PDF path → acceptable page labels.
    #[serde(default)]
    pub expected_pages: BTreeMap<String, Vec<String>>,
    /// Phrases the answer must contain (normalised, see [`super::score::normalize`]).
    #[serde(default)]
    pub answer_contains: Vec<String>,
    /// Highlighted text sent with the question.
    #[serde(default)]
    pub selected_text: Option<String>,
    /// Where the fact lives; never used for scoring.
    #[serde(default)]
    pub notes: Option<String>,
    /// Tuned or held out.
    #[serde(default)]
    pub split: Split,
    /// For a yes/no question: the answer must start with this word.
    #[serde(default)]
    pub expect_polarity: Option<Polarity>,
    /// Questions asking the same thing in other words share it.
    #[serde(default)]
    pub meaning: Option<String>,
    /// The building model the question is asked over (model-based files).
    #[serde(default)]
    pub model: Option<String>,
    /// The expected graph result.
    #[serde(default)]
    pub expected: Option<Expected>,
}

/// The raw shape of a golden file.
#[derive(Debug, Deserialize)]
struct RawGolden {
    description: String,
    #[serde(default)]
    files_root: Option<String>,
    #[serde(default)]
    not_applicable: Vec<String>,
    #[serde(default)]
    models: BTreeMap<String, ModelSpec>,
    questions: Vec<Question>,
}

/// One golden file, loaded and schema-checked.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldenFile {
    /// File stem, used as the scope name in reports (`demo_campus`).
    pub name: String,
    /// Where it was read from.
    pub path: PathBuf,
    /// Path relative to the repository root (`golden/demo_campus.json`).
    pub rel_path: String,
    /// What the set is about.
    pub description: String,
    /// `files_root` as written, relative to the repository root (default `.`).
    pub files_root: String,
    /// Whether the file set `files_root` explicitly.
    pub has_files_root: bool,
    /// Metrics the set declares it does not measure: their gates pass with
    /// nothing to measure on this set (every other gate with nothing to
    /// measure fails).
    pub not_applicable: Vec<String>,
    /// Building models, by name: each question of a model-based file is
    /// asked over its model alone (with Brick and `ontology/`).
    pub models: BTreeMap<String, ModelSpec>,
    /// The questions, in file order.
    pub questions: Vec<Question>,
}

impl GoldenFile {
    /// The files of a model, resolved: (path, the root its source path is
    /// relative to).
    pub fn model_files(&self, root: &Path, model: &str) -> Vec<(PathBuf, PathBuf)> {
        let Some(spec) = self.models.get(model) else {
            return Vec::new();
        };
        let base = if spec.root.as_deref() == Some("repo") {
            root.to_path_buf()
        } else {
            self.files_root_dir(root)
        };
        spec.files
            .iter()
            .map(|f| (base.join(f), base.clone()))
            .collect()
    }

    /// `files_root` resolved against the repository root.
    pub fn files_root_dir(&self, root: &Path) -> PathBuf {
        root.join(&self.files_root)
    }
}

/// Comparison of a gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    /// The value must be at least the threshold.
    #[serde(rename = ">=")]
    Ge,
    /// The value must be at most the threshold.
    #[serde(rename = "<=")]
    Le,
}

impl Op {
    /// Whether `value` passes against `threshold`.
    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            Self::Ge => value >= threshold,
            Self::Le => value <= threshold,
        }
    }

    /// `>=` or `<=`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ge => ">=",
            Self::Le => "<=",
        }
    }
}

/// One CI gate of `gates.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gate {
    /// Metric name (see [`super::metrics::METRICS`]).
    pub metric: String,
    /// What the metric measures, in words.
    pub definition: String,
    /// `>=` or `<=`.
    pub op: Op,
    /// The threshold.
    pub threshold: f64,
    /// Whether failing it fails the run.
    pub enforced: bool,
    /// Why the gate exists.
    pub why: String,
}

/// `gates.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateFile {
    /// Format version (1).
    pub version: u32,
    /// How the gates are applied.
    pub description: String,
    /// The golden files the gates are computed on (relative to the repository root).
    pub golden_files: Vec<String>,
    /// The gates.
    pub gates: Vec<Gate>,
}

fn read_json(path: &Path) -> EvalResult<serde_json::Value> {
    let text = std::fs::read_to_string(path).map_err(|source| EvalError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| EvalError::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads `gates.json` and checks that every metric is one eval computes, so
/// a misspelt gate cannot pass silently.
pub fn load_gates(path: &Path) -> EvalResult<GateFile> {
    let value = read_json(path)?;
    let gates: GateFile = serde_json::from_value(value).map_err(|source| EvalError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    if gates.version != 1 {
        return Err(EvalError::Invalid {
            path: path.to_path_buf(),
            message: format!("unsupported version {}; expected 1", gates.version),
        });
    }
    for g in &gates.gates {
        if !super::metrics::METRICS.contains(&g.metric.as_str()) {
            return Err(EvalError::Invalid {
                path: path.to_path_buf(),
                message: format!(
                    "unknown metric {:?}; eval computes {}",
                    g.metric,
                    super::metrics::METRICS.join(", ")
                ),
            });
        }
        if !g.threshold.is_finite() {
            return Err(EvalError::Invalid {
                path: path.to_path_buf(),
                message: format!("gate {} has a non-finite threshold", g.metric),
            });
        }
    }
    Ok(gates)
}

/// Reads one golden file and validates it against the golden schema.
pub fn load_golden(path: &Path, root: &Path) -> EvalResult<GoldenFile> {
    let value = read_json(path)?;
    let schema: serde_json::Value =
        serde_json::from_str(GOLDEN_SCHEMA).map_err(|source| EvalError::Json {
            path: PathBuf::from("schemas/golden.schema.json"),
            source,
        })?;
    let validator = jsonschema::validator_for(&schema).map_err(|e| EvalError::Invalid {
        path: PathBuf::from("schemas/golden.schema.json"),
        message: e.to_string(),
    })?;
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if !errors.is_empty() {
        return Err(EvalError::Invalid {
            path: path.to_path_buf(),
            message: format!(
                "does not follow schemas/golden.schema.json: {}",
                errors.join("; ")
            ),
        });
    }
    let raw: RawGolden = serde_json::from_value(value).map_err(|source| EvalError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    for q in &raw.questions {
        let bad = match &q.model {
            Some(m) if !raw.models.contains_key(m) => {
                Some(format!("names model {m:?}, not in models"))
            }
            None if !raw.models.is_empty() => {
                Some("has no model, in a model-based file".to_owned())
            }
            _ => None,
        };
        if let Some(message) = bad {
            return Err(EvalError::Invalid {
                path: path.to_path_buf(),
                message: format!("question {} {message}", q.id),
            });
        }
    }
    Ok(GoldenFile {
        name,
        path: path.to_path_buf(),
        rel_path: crate::import::relative_path(path, root),
        description: raw.description,
        has_files_root: raw.files_root.is_some(),
        files_root: raw.files_root.unwrap_or_else(|| ".".to_owned()),
        not_applicable: raw.not_applicable,
        models: raw.models,
        questions: raw.questions,
    })
}

/// Loads the golden files `gates` lists, by file name from `golden_dir`
/// (the gate file names them relative to the repository root `root`,
/// `golden/…`). Question ids must be unique over all of them.
pub fn load_goldens(
    golden_dir: &Path,
    root: &Path,
    gates: &GateFile,
) -> EvalResult<Vec<GoldenFile>> {
    let mut files = Vec::new();
    for listed in &gates.golden_files {
        let name = Path::new(listed).file_name().unwrap_or_default();
        let path = golden_dir.join(name);
        if !path.is_file() {
            return Err(EvalError::Invalid {
                path: path.clone(),
                message: format!(
                    "the gate file lists {listed}, which is not in {}; pass --gates with a gate \
                     file for this golden directory",
                    golden_dir.display()
                ),
            });
        }
        files.push(load_golden(&path, root)?);
    }
    let mut seen = BTreeSet::new();
    for f in &files {
        for q in &f.questions {
            if !seen.insert(q.id.clone()) {
                return Err(EvalError::Invalid {
                    path: f.path.clone(),
                    message: format!("duplicate question id {}", q.id),
                });
            }
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn the_repository_goldens_and_gates_load() {
        let root = root();
        let gates = load_gates(&root.join("golden/gates.json")).unwrap();
        assert!(gates.gates.iter().any(|g| g.enforced));
        let files = load_goldens(&root.join("golden"), &root, &gates).unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["demo_campus", "g36_docs", "building_models"]);
        assert_eq!(files[0].rel_path, "golden/demo_campus.json");
        assert!(!files[0].has_files_root);
        assert_eq!(files[0].files_root, ".");
        assert_eq!(files[1].files_root, "../shared/data");
        // Every file keeps a third of its questions held out.
        for f in &files {
            let held = f
                .questions
                .iter()
                .filter(|q| q.split == Split::HeldOut)
                .count();
            assert!(3 * held >= f.questions.len(), "{}: {held} held out", f.name);
        }
        assert!(files[0].questions.len() >= 150);
        assert!(files[1].questions.len() >= 30);
        // The model-based set: every question names one of its models.
        let models = &files[2];
        assert!(models.models.len() >= 6);
        assert!(models.questions.len() >= 100);
        assert!(models.questions.iter().all(|q| {
            q.model
                .as_ref()
                .is_some_and(|m| models.models.contains_key(m))
        }));
        let (path, base) = &models.model_files(&root, "campus")[0];
        assert_eq!(path, &root.join("graph/northfield_campus.ttl"));
        assert_eq!(base, &root);
    }

    #[test]
    fn unknown_gate_metrics_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gates.json");
        let mut gates: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root().join("golden/gates.json")).unwrap(),
        )
        .unwrap();
        gates["gates"][0]["metric"] = "schema_complience".into();
        std::fs::write(&path, gates.to_string()).unwrap();
        let err = load_gates(&path).unwrap_err().to_string();
        assert!(
            err.contains("unknown metric \"schema_complience\""),
            "{err}"
        );
    }

    #[test]
    fn golden_files_that_break_the_schema_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.json");
        std::fs::write(
            &path,
            r#"{"version":1,"description":"x","questions":[{"id":"q-1","question":"what",
               "category":"topology","expect":"abstain","must_include_graph_ids":[],
               "may_include_graph_ids":[],"must_cite_files":[]}]}"#,
        )
        .unwrap();
        let err = load_golden(&path, dir.path()).unwrap_err().to_string();
        assert!(err.contains("golden.schema.json"), "{err}");
    }

    #[test]
    fn a_listed_golden_file_missing_from_the_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let gates = GateFile {
            version: 1,
            description: String::new(),
            golden_files: vec!["golden/absent.json".into()],
            gates: Vec::new(),
        };
        let err = load_goldens(dir.path(), dir.path(), &gates)
            .unwrap_err()
            .to_string();
        assert!(err.contains("absent.json"), "{err}");
    }

    #[test]
    fn ops_compare() {
        assert!(Op::Ge.holds(1.0, 1.0));
        assert!(!Op::Ge.holds(0.99, 1.0));
        assert!(Op::Le.holds(0.1, 0.1));
        assert!(!Op::Le.holds(0.11, 0.1));
    }
}
