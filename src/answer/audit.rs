//! The audit log: one JSON line per question. It records the request id,
//! the time, the sanitized query, the retrieval set ids, the status, the
//! refusal type and the latency — never answer text, chunk text or vectors.

use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Longest query kept in the log, in characters.
const MAX_QUERY_CHARS: usize = 200;

/// One line of the audit log.
#[derive(Debug, Clone, Serialize)]
pub struct AuditRecord {
    /// The request id.
    pub request_id: String,
    /// When the request was answered (RFC 3339).
    pub timestamp: String,
    /// The query, sanitized by [`sanitize`].
    pub query: String,
    /// Whether `selected_text` was sent (its text is never logged).
    pub selected_text: bool,
    /// Vector point ids that reached synthesis.
    pub retrieval_set: Vec<String>,
    /// Graph ids cited by the evidence.
    pub graph_ids: Vec<String>,
    /// `success`, `refused` or `error`.
    pub status: String,
    /// The refusal type when refused.
    pub refusal_type: Option<String>,
    /// Pipeline wall time.
    pub latency_ms: u64,
}

/// Control characters become spaces, runs of whitespace one space, and the
/// query is cut to 200 characters.
pub fn sanitize(query: &str) -> String {
    let cleaned: String = query
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    cleaned
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_QUERY_CHARS)
        .collect()
}

/// An append-only JSON-lines file.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl AuditLog {
    /// Opens (creating) the file for appending.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    /// Where it writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record; a write failure is logged, never fatal.
    pub fn write(&self, record: &AuditRecord) {
        let line = match serde_json::to_string(record) {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "cannot serialise an audit record");
                return;
            }
        };
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = writeln!(f, "{line}") {
            tracing::warn!(error = %e, path = %self.path.display(), "cannot write the audit log");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_strips_controls_and_caps_length() {
        assert_eq!(
            sanitize("  what\tfeeds\nVAV-2-14\u{7}? "),
            "what feeds VAV-2-14 ?"
        );
        assert_eq!(sanitize(&"x".repeat(600)).len(), MAX_QUERY_CHARS);
    }

    #[test]
    fn records_append_as_json_lines() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::open(&dir.path().join("a/audit.jsonl")).unwrap();
        let r = AuditRecord {
            request_id: "r1".into(),
            timestamp: "2026-01-01T00:00:00Z".into(),
            query: "q".into(),
            selected_text: false,
            retrieval_set: vec!["p1".into()],
            graph_ids: vec![],
            status: "success".into(),
            refusal_type: None,
            latency_ms: 3,
        };
        log.write(&r);
        log.write(&r);
        let text = std::fs::read_to_string(log.path()).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["retrieval_set"][0], "p1");
    }
}
