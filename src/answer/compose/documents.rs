//! The document answer: the best sentences of the top chunks (a second
//! chunk only when the first holds too little of the question), measured
//! for the refusal rules, cited with the chunk's file, page and links.

use super::{Draft, chunk_evidence, newest, where_in};
use crate::answer::question::Question;
use crate::answer::refusal::{self, DocumentMeasures};
use crate::answer::retrieve::Scored;
use crate::answer::synthesize::{self, Picked};
use crate::answer::{Answer, EvidenceItem};
use crate::config::AnswerConfig;
use crate::embed::EmbedError;
use crate::ingest::DocService;

/// The sentences a document answer would quote from the `selected` top
/// chunks of `hits`.
pub fn picks(cfg: &AnswerConfig, q: &Question, hits: &[Scored], selected: usize) -> Vec<Picked> {
    let texts: Vec<(usize, &str, f32)> = hits[..selected]
        .iter()
        .enumerate()
        .map(|(i, s)| (i, s.hit.payload.node_content.as_str(), s.reranked))
        .collect();
    let focus = q.focus();
    let mut picked = synthesize::pick(focus, &q.labels, &texts, 2);
    let heading = |i: usize| own_heading(&hits[i].hit.payload.section_title);
    // Quote a second chunk only when the best one alone does not hold
    // enough of the question: one passage, one page, is easier to check.
    if let Some(first) = picked.first().map(|p| p.source) {
        let own: Vec<Picked> = picked
            .iter()
            .filter(|p| p.source == first)
            .cloned()
            .collect();
        if synthesize::coverage(focus, &q.labels, &own, &[heading(first)]) >= cfg.min_coverage {
            picked = own;
        }
    }
    picked
}

/// The heading a chunk's text stands under: the last of its heading path
/// (the document's title and the chapters above say what the whole
/// document is about, not what this passage says).
fn own_heading(path: &str) -> &str {
    path.rsplit(crate::ingest::chunk::HEADING_SEPARATOR)
        .next()
        .unwrap_or(path)
}

/// What the document answer needs besides the question.
pub struct Found<'a> {
    /// Every chunk retrieved, reranked, best first.
    pub hits: &'a [Scored],
    /// How many of them reach synthesis.
    pub selected: usize,
    /// The question's embedding.
    pub vector: Option<&'a [f32]>,
    /// What the evidence is about first: the question's named instances
    /// and products and the equipment of named points.
    pub about: &'a [String],
}

/// Drafts the document answer, or the reason to abstain.
pub async fn answer(
    docs: Option<&DocService>,
    cfg: &AnswerConfig,
    q: &Question,
    found: Found<'_>,
) -> Result<Draft, EmbedError> {
    let top = &found.hits[..found.selected];
    let picked = picks(cfg, q, found.hits, found.selected);
    let sims = match (docs, found.vector) {
        (Some(docs), Some(v)) if !found.hits.is_empty() => {
            let texts = picked.iter().map(|p| p.text.clone()).collect();
            let vectors = docs.embed(texts).await?;
            vectors.iter().map(|p| crate::embed::cosine(v, p)).collect()
        }
        _ => Vec::new(),
    };
    let mut used: Vec<usize> = picked.iter().map(|p| p.source).collect();
    used.dedup();
    // A passage is its sentences with the heading they stand under.
    let headings: Vec<&str> = used
        .iter()
        .map(|i| own_heading(&top[*i].hit.payload.section_title))
        .collect();
    // Confidence is 1 − mean cosine distance of what the answer uses: per
    // chunk used, the closer of the chunk and the passage quoted from it
    // (a 256-token chunk dilutes the one sentence that answers).
    let confidence = used
        .iter()
        .map(|i| {
            let passage = picked
                .iter()
                .zip(&sims)
                .filter(|(p, _)| p.source == *i)
                .map(|(_, s)| *s)
                .fold(f32::MIN, f32::max);
            top[*i].hit.score.max(passage)
        })
        .sum::<f32>()
        / used.len().max(1) as f32;
    let measures = DocumentMeasures {
        retrieved: found.hits.len(),
        best: found
            .hits
            .iter()
            .map(|h| h.hit.score)
            .fold(f32::MIN, f32::max),
        coverage: synthesize::coverage(q.focus(), &q.labels, &picked, &headings),
        confidence,
    };
    if let Some(reason) = refusal::of_documents(cfg, q, &measures) {
        return Ok(Draft::Abstain(reason));
    }
    let Some(first_used) = used.first().map(|i| &top[*i]) else {
        return Ok(Draft::Abstain(refusal::Reason::NothingRetrieved));
    };
    let evidence: Vec<EvidenceItem> = picked
        .iter()
        .map(|p| chunk_evidence(&top[p.source], &p.text, found.about))
        .collect();
    let answer = picked
        .iter()
        .map(|p| format!("{} (from {})", p.text, where_in(&top[p.source])))
        .collect::<Vec<_>>()
        .join(" ");
    Ok(Draft::Answer(
        Answer {
            answer,
            evidence,
            timestamp: newest(used.iter().map(|i| top[*i].hit.payload.updated_at.clone())),
            limitations: format!(
                "Quoted from {} document chunk{} (confidence {confidence:.2}, retrieval see trace); no graph fact answers this directly.",
                used.len(),
                if used.len() == 1 { "" } else { "s" },
            ),
            next_step: format!(
                "Open {} to read the passage in context.",
                where_in(first_used)
            ),
        },
        used,
    ))
}
