//! Step 6 of the pipeline: drafting the answer from what the earlier steps
//! found — graph facts ([`graph`]), document passages ([`documents`]), or
//! only the text the user selected ([`selected`]). A draft is an answer
//! with the retrieved chunks it quotes, or the reason to abstain; the
//! rules for abstaining live in [`super::refusal`].

pub mod documents;
pub mod graph;
pub mod selected;

use super::refusal::Reason;
use super::retrieve::Scored;
use super::{Answer, EvidenceItem};

/// A drafted answer, or why there is none.
#[derive(Debug, Clone)]
pub enum Draft {
    /// An answer and the positions of the retrieved chunks it quotes.
    Answer(Answer, Vec<usize>),
    /// An abstention.
    Abstain(Reason),
}

/// The newest of some RFC 3339 times, normalised to UTC seconds; now when
/// none parses.
pub fn newest(times: impl IntoIterator<Item = String>) -> String {
    let parsed = times
        .into_iter()
        .filter_map(|t| chrono::DateTime::parse_from_rfc3339(&t).ok())
        .max();
    parsed.map_or_else(
        || chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        |t| {
            t.with_timezone(&chrono::Utc)
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        },
    )
}

/// Where a chunk is: its document, section and (for a PDF) page.
pub fn where_in(s: &Scored) -> String {
    let p = &s.hit.payload;
    let mut at = p.source_ref.clone();
    if !p.section_title.is_empty() {
        at.push_str(&format!(", section \"{}\"", p.section_title));
    }
    if p.source_ref.to_lowercase().ends_with(".pdf") {
        at.push_str(&format!(", page {}", p.page_label));
    }
    at
}

/// Evidence of a quoted chunk: the graph ids its chunk links to (the
/// payload's `graph_ids`) and nothing else: what the question names is
/// cited only where the chunk supports it. Those of `first` (the question's
/// named instances and products) come first, as the claim is about them.
pub fn chunk_evidence(s: &Scored, excerpt: &str, first: &[String]) -> EvidenceItem {
    let p = &s.hit.payload;
    let mut ids: Vec<String> = first
        .iter()
        .filter(|id| p.graph_ids.contains(id))
        .cloned()
        .collect();
    for id in &p.graph_ids {
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    EvidenceItem {
        graph_ids: ids,
        file_paths: vec![p.source_ref.clone()],
        excerpt: Some(excerpt.to_owned()),
        source_sha: Some(p.source_sha.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_picks_the_latest_time() {
        let t = newest([
            "2024-01-01T00:00:00Z".to_owned(),
            "2025-06-01T10:00:00+00:00".to_owned(),
            "bad".to_owned(),
        ]);
        assert_eq!(t, "2025-06-01T10:00:00Z");
    }
}
