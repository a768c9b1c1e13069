//! Importing source files into their own named graphs.
//!
//! Each file becomes one named graph (`urn:daemoniq:source:<relative path>`).
//! Same bytes as last time → nothing happens; changed bytes → that graph is
//! replaced atomically. Every IRI subject of a building model gets
//! `dq:sourceSha`, `dq:sourcePath` and `dq:updatedAt`, computed here from the
//! file, never written by hand.

pub mod haystack;
pub mod rdf;

use crate::ontology::Ontology;
use crate::store::{
    GraphKind, GraphStore, NamedOrBlankNode, SourceRecord, StoreError, Triple, term,
};
use crate::vocab;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// Result of an import.
pub type ImportResult<T> = Result<T, ImportError>;

/// What can go wrong importing a file.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file's extension names no format DaemonIQ imports.
    #[error(
        "{path}: unsupported format (expected .ttl, .nt, .nq, .trig, .rdf, .owl or Haystack .json)"
    )]
    UnsupportedFormat {
        /// The file.
        path: String,
    },
    /// The file does not parse.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// The parser's message, with position where known.
        message: String,
    },
    /// Storing the graph failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A file to import, with its path relative to the root it came from.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Where to read it.
    pub path: PathBuf,
    /// Portable relative path, recorded as `dq:sourcePath`.
    pub rel_path: String,
    /// What the file holds.
    pub kind: GraphKind,
}

impl SourceFile {
    /// A source whose relative path is computed against `root`
    /// (see [`relative_path`]).
    pub fn new(path: impl Into<PathBuf>, root: &Path, kind: GraphKind) -> Self {
        let path = path.into();
        let rel_path = relative_path(&path, root);
        Self {
            path,
            rel_path,
            kind,
        }
    }

    /// The named graph this file's triples live in.
    pub fn graph_iri(&self) -> String {
        source_graph_iri(&self.rel_path)
    }
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ImportOutcome {
    /// The file's sha256 matched the loaded graph: nothing was done.
    Unchanged {
        /// The source's relative path.
        path: String,
    },
    /// The graph was (re)loaded.
    Loaded {
        /// The source's relative path.
        path: String,
        /// Triples now in its graph.
        triples: usize,
        /// True when an older version was replaced.
        replaced: bool,
    },
}

/// The named graph IRI for a relative source path.
pub fn source_graph_iri(rel_path: &str) -> String {
    let encoded: String = rel_path
        .chars()
        .map(|c| match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '/' | '.' | '-' | '_' | '~' => c.to_string(),
            c => {
                let mut buf = [0u8; 4];
                c.encode_utf8(&mut buf)
                    .bytes()
                    .map(|b| format!("%{b:02X}"))
                    .collect()
            }
        })
        .collect();
    format!("{}{encoded}", vocab::SOURCE_GRAPH_PREFIX)
}

/// `path` relative to `root` when it lies under it; otherwise the shortest
/// lexical relative path (with `..`). Never absolute; `/` separators.
pub fn relative_path(path: &Path, root: &Path) -> String {
    let abs = |p: &Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            std::env::current_dir()
                .map(|d| d.join(p))
                .unwrap_or_else(|_| p.to_path_buf())
        })
    };
    let (path, root) = (abs(path), abs(root));
    let p: Vec<Component> = path.components().collect();
    let r: Vec<Component> = root.components().collect();
    let common = p.iter().zip(&r).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = r[common..].iter().map(|_| "..".to_owned()).collect();
    parts.extend(
        p[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// sha256 of bytes as lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn modified_at(path: &Path) -> DateTime<Utc> {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map(DateTime::<Utc>::from)
        .unwrap_or_else(|_| Utc::now())
}

/// Parses a file into triples without touching the store.
///
/// Haystack JSON needs the ontology (tag-set → class inference); RDF does not.
pub fn parse_file(
    source: &SourceFile,
    bytes: &[u8],
    ontology: Option<&Ontology>,
) -> ImportResult<Vec<Triple>> {
    let ext = source
        .path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let parse_err = |message: String| ImportError::Parse {
        path: source.rel_path.clone(),
        message,
    };
    if ext == "json" {
        let ontology = ontology
            .ok_or_else(|| parse_err("Haystack import needs the ontology; load it first".into()))?;
        let base = format!(
            "https://daemoniq.io/haystack/{}#",
            sanitize_base(&source.rel_path)
        );
        return haystack::convert(bytes, &base, ontology).map_err(parse_err);
    }
    let format = rdf::format_for_extension(&ext).ok_or_else(|| ImportError::UnsupportedFormat {
        path: source.rel_path.clone(),
    })?;
    rdf::parse(bytes, format).map_err(parse_err)
}

fn sanitize_base(rel: &str) -> String {
    rel.trim_start_matches("../")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '/' | '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Adds `dq:sourceSha`, `dq:sourcePath` and `dq:updatedAt` to every IRI subject.
pub fn annotate_instances(triples: &mut Vec<Triple>, record: &SourceRecord) {
    let subjects: BTreeSet<_> = triples
        .iter()
        .filter_map(|t| match &t.subject {
            NamedOrBlankNode::NamedNode(n) => Some(n.clone()),
            NamedOrBlankNode::BlankNode(_) => None,
        })
        .collect();
    let (sha, path, at) = (
        term::string(&record.sha256),
        term::string(&record.path),
        term::date_time(record.updated_at),
    );
    let (has_sha, has_path, has_at) = (
        term::iri(vocab::dq("sourceSha")),
        term::iri(vocab::dq("sourcePath")),
        term::iri(vocab::dq("updatedAt")),
    );
    for s in subjects {
        triples.push(Triple::new(s.clone(), has_sha.clone(), sha.clone()));
        triples.push(Triple::new(s.clone(), has_path.clone(), path.clone()));
        triples.push(Triple::new(s, has_at.clone(), at.clone()));
    }
}

/// Imports one file into its named graph, unless its bytes are unchanged.
pub async fn import_file(
    store: &dyn GraphStore,
    ontology: Option<&Ontology>,
    source: &SourceFile,
) -> ImportResult<ImportOutcome> {
    let bytes = std::fs::read(&source.path).map_err(|e| ImportError::Io {
        path: source.rel_path.clone(),
        source: e,
    })?;
    let sha = sha256_hex(&bytes);
    let graph = source.graph_iri();
    let previous = store
        .sources()
        .await?
        .into_iter()
        .find(|r| r.graph == graph);
    if previous.as_ref().is_some_and(|p| p.sha256 == sha) {
        tracing::debug!(path = %source.rel_path, "source unchanged; not reloaded");
        return Ok(ImportOutcome::Unchanged {
            path: source.rel_path.clone(),
        });
    }
    let mut triples = parse_file(source, &bytes, ontology)?;
    let mut record = SourceRecord {
        graph,
        path: source.rel_path.clone(),
        sha256: sha,
        updated_at: modified_at(&source.path),
        loaded_at: Utc::now(),
        kind: source.kind,
        triples: 0,
        cut: String::new(),
    };
    if source.kind == GraphKind::Model {
        annotate_instances(&mut triples, &record);
    }
    record.triples = triples.len();
    let count = triples.len();
    store.replace_graph(record, triples).await?;
    tracing::info!(
        path = %source.rel_path,
        triples = count,
        replaced = previous.is_some(),
        "source imported"
    );
    Ok(ImportOutcome::Loaded {
        path: source.rel_path.clone(),
        triples: count,
        replaced: previous.is_some(),
    })
}

/// The importable files directly or recursively under `dir`, sorted.
pub fn files_under(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    files_with_extension(dir, |e| {
        e == "json" || rdf::format_for_extension(e).is_some()
    })
}

/// The files directly or recursively under `dir` whose extension `keep`
/// accepts, sorted.
pub fn files_with_extension(
    dir: &Path,
    keep: impl Fn(&str) -> bool,
) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().and_then(|e| e.to_str()).is_some_and(&keep) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_never_absolute() {
        let root = std::env::current_dir().unwrap();
        assert_eq!(
            relative_path(&root.join("graph/a.ttl"), &root),
            "graph/a.ttl"
        );
        let outside = root.parent().unwrap().join("shared/x.ttl");
        let rel = relative_path(&outside, &root);
        assert!(rel.starts_with("../"), "{rel}");
        assert!(!rel.starts_with('/'));
    }

    #[test]
    fn graph_iris_encode_odd_characters() {
        assert_eq!(
            source_graph_iri("graph/a b.ttl"),
            "urn:daemoniq:source:graph/a%20b.ttl"
        );
    }
}
