//! Selected-text mode: only the text the user highlighted may answer. Its
//! best sentences are quoted; the evidence links the graph nodes it (and
//! the question) names and the indexed document it came from.

use super::{Draft, newest};
use crate::answer::facts::GraphContext;
use crate::answer::question::Question;
use crate::answer::refusal::{self, Reason};
use crate::answer::view::GraphView;
use crate::answer::{Answer, EvidenceItem, Fault, synthesize};
use crate::config::AnswerConfig;
use crate::ground::Grounder;
use crate::ingest::DocService;
use crate::store::GraphStore;
use crate::vector::Search;

/// Similarity at which a selected text is taken to come from an indexed chunk.
const SELECTION_SOURCE_MIN: f32 = 0.75;

/// What selected-text mode reads.
pub struct Selection<'a> {
    /// The highlighted text.
    pub text: &'a str,
    /// The graph store (to trace the selection to a source).
    pub store: &'a dyn GraphStore,
    /// The document service, when attached.
    pub docs: Option<&'a DocService>,
    /// The grounder (for the selection's own names).
    pub grounder: &'a Grounder,
}

/// Drafts the answer from the selection, or the reason to abstain; the
/// retrieval decisions go to `decisions`.
pub async fn answer(
    cfg: &AnswerConfig,
    view: GraphView<'_>,
    q: &Question,
    sel: Selection<'_>,
    decisions: &mut Vec<String>,
) -> Result<Draft, Fault> {
    let picked = synthesize::pick(q.focus(), &q.labels, &[(0, sel.text, 0.0)], 2);
    let coverage = synthesize::coverage(q.focus(), &q.labels, &picked, &[]);
    let matched = picked.iter().any(|p| !p.matched.is_empty());
    if let Some(reason) = refusal::of_selection(cfg, q, coverage, matched) {
        return Ok(Draft::Abstain(reason));
    }
    let ids = linked_ids(view, q, sel.grounder, sel.text);
    if ids.is_empty() {
        return Ok(Draft::Abstain(Reason::SelectionUnlinked));
    }
    let Some((file, sha, updated)) = source_of(view, q, &sel, &ids, decisions).await? else {
        return Ok(Draft::Abstain(Reason::SelectionUntraced));
    };
    let evidence: Vec<EvidenceItem> = picked
        .iter()
        .map(|p| EvidenceItem {
            graph_ids: ids.clone(),
            file_paths: vec![file.clone()],
            excerpt: Some(p.text.clone()),
            source_sha: Some(sha.clone()),
        })
        .collect();
    Ok(Draft::Answer(
        Answer {
            answer: picked
                .iter()
                .map(|p| p.text.clone())
                .collect::<Vec<_>>()
                .join(" "),
            evidence,
            timestamp: newest([updated]),
            limitations: format!(
                "Answered only from the selected text ({:.0}% of the question's terms found); other sources were not consulted.",
                coverage * 100.0
            ),
            next_step: format!("Read the passage in {file} for its context."),
        },
        Vec::new(),
    ))
}

/// The graph nodes the answer links: the question's named instances and
/// products first, then what the selection names that the graph or the
/// Yorkland extension holds, and the equipment of any named point ("ahu2
/// DSP" → AHU-2); the selection's bare classes when nothing else.
fn linked_ids(view: GraphView<'_>, q: &Question, grounder: &Grounder, text: &str) -> Vec<String> {
    let sg = grounder.ground(text);
    let mut ids: Vec<String> = sg
        .links()
        .into_iter()
        .filter(|i| view.topo.contains(i) || i.starts_with(crate::vocab::YK))
        .collect();
    for i in &q.named {
        if !ids.contains(i) {
            ids.insert(0, i.clone());
        }
    }
    let owners: Vec<String> = ids
        .iter()
        .flat_map(|i| view.topo.into(i, crate::topology::Rel::HasPoint))
        .collect();
    for o in owners {
        if !ids.contains(&o) {
            ids.push(o);
        }
    }
    if ids.is_empty() {
        ids = sg.links();
    }
    ids
}

/// The file the selection came from: the indexed chunk it matches, else
/// the source of the first node it names.
async fn source_of(
    view: GraphView<'_>,
    q: &Question,
    sel: &Selection<'_>,
    ids: &[String],
    decisions: &mut Vec<String>,
) -> Result<Option<(String, String, String)>, Fault> {
    if let Some(docs) = sel.docs {
        let vector = docs.embed_one(sel.text.to_owned()).await?;
        let hits = docs
            .ingestor()
            .index()
            .search(Search {
                vector,
                limit: 1,
                filter: None,
                exclude_source_id: None,
            })
            .await?;
        if let Some(h) = hits
            .into_iter()
            .next()
            .filter(|h| h.score >= SELECTION_SOURCE_MIN)
        {
            decisions.push(format!(
                "the selection matches a chunk of {} (similarity {:.2})",
                h.payload.source_ref, h.score
            ));
            return Ok(Some((
                h.payload.source_ref,
                h.payload.source_sha,
                h.payload.updated_at,
            )));
        }
    }
    let mut ctx = GraphContext::new(sel.store, view, q).await?;
    ctx.load(ids).await?;
    Ok(ctx
        .provenance(&ids[0])
        .map(|p| (p.path, p.sha, p.updated_at)))
}
