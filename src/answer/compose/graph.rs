//! The graph answer: the facts as sentences, each with its graph ids and
//! the file it came from; documents that contradict a feeds fact are cited
//! as overruled.

use super::{Draft, newest};
use crate::answer::conflict::Conflict;
use crate::answer::question::Question;
use crate::answer::{Answer, EvidenceItem, Fact};

/// Drafts the answer from graph facts (at least one of them positive) and
/// the conflicts found for them.
pub fn answer(q: &Question, facts: &[Fact], conflicts: &[Conflict]) -> Draft {
    let mut evidence: Vec<EvidenceItem> = facts
        .iter()
        .map(|f| EvidenceItem {
            graph_ids: f.graph_ids.clone(),
            file_paths: vec![f.file_path.clone()],
            excerpt: Some(f.text.clone()),
            source_sha: Some(f.source_sha.clone()),
        })
        .collect();
    let mut times: Vec<String> = facts.iter().map(|f| f.updated_at.clone()).collect();
    let mut text: Vec<String> = facts.iter().map(|f| f.text.clone()).collect();
    let mut files: Vec<&str> = facts.iter().map(|f| f.file_path.as_str()).collect();
    files.dedup();
    let mut limitations = vec![format!(
        "Answered from the building graph ({} fact{} from {}).",
        facts.len(),
        if facts.len() == 1 { "" } else { "s" },
        files.join(", ")
    )];
    let mut used = Vec::new();
    for c in conflicts {
        limitations.push(c.note.clone());
        text.push(c.text.clone());
        evidence.push(c.evidence.clone());
        times.push(c.updated_at.clone());
        used.extend(c.used);
    }
    Draft::Answer(
        Answer {
            answer: text.join(" "),
            evidence,
            timestamp: newest(times),
            limitations: limitations.join(" "),
            next_step: format!(
                "Open the topology view of {} (GET /api/topology/subgraph?id=…) or run the SPARQL in the trace to check the graph.",
                q.labels
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "the node".to_owned())
            ),
        },
        used,
    )
}
