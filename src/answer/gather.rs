//! Steps 3–5 of the pipeline: the graph facts a question asks for, then
//! the document chunks, searched filtered by what the graph step found (or
//! vanilla) and reranked. Everything found and decided goes to the trace.

use super::facts::GraphContext;
use super::question::Question;
use super::retrieve::{self, Scored};
use super::view::GraphView;
use super::{Fact, Fault, Trace, ms};
use crate::config::AnswerConfig;
use crate::ingest::DocService;
use crate::store::GraphStore;
use std::time::Instant;

/// What the graph step found.
#[derive(Debug, Clone, Default)]
pub struct GraphStep {
    /// The facts, in the order of the question's intents.
    pub facts: Vec<Fact>,
    /// What documents are searched and boosted by: the facts' graph ids,
    /// then the equipment of points the question names.
    pub graph_ids: Vec<String>,
}

/// Step 3: the graph facts the question asks for (none when it names
/// equipment the graph does not have or asks for a live value).
pub async fn graph(
    store: &dyn GraphStore,
    view: GraphView<'_>,
    q: &Question,
    trace: &mut Trace,
) -> Result<GraphStep, Fault> {
    let t = Instant::now();
    let mut ctx = GraphContext::new(store, view, q).await?;
    let facts = if q.grounding.unresolved.is_empty() && !q.reading.telemetry {
        ctx.facts().await?
    } else {
        Vec::new()
    };
    trace.graph.intents = q
        .reading
        .intents
        .iter()
        .map(|i| i.as_str().to_owned())
        .collect();
    trace.graph.queries = std::mem::take(&mut ctx.queries);
    if let Some(answer) = ctx.answer.take() {
        trace.graph.answer = Some(answer);
    }
    let mut graph_ids: Vec<String> = Vec::new();
    for id in facts.iter().flat_map(|f| &f.graph_ids) {
        if !graph_ids.contains(id) {
            graph_ids.push(id.clone());
        }
    }
    trace.graph.graph_ids = graph_ids.clone();
    trace.graph.facts = facts.clone();
    trace.stages_ms.insert("graph".into(), ms(t));
    tracing::info!(
        intents = ?trace.graph.intents,
        facts = facts.len(),
        graph_ids = graph_ids.len(),
        "graph step done"
    );
    for owner in &q.about {
        if !graph_ids.contains(owner) {
            graph_ids.push(owner.clone());
        }
    }
    // A document about named equipment may speak only of its parts and
    // points: the hot-water plant's sequence names HWP-1 and "B-1 EN",
    // not HW-SYS.
    let within = within_named(view, q);
    if !within.is_empty() {
        tracing::info!(
            parts_and_points = within.len(),
            "documents naming the parts or points of named equipment count as about it"
        );
    }
    for id in within {
        if !graph_ids.contains(&id) {
            graph_ids.push(id);
        }
    }
    Ok(GraphStep { facts, graph_ids })
}

/// The parts (transitively) and points of the equipment the question
/// names by name; a location's rooms and floors are not its equipment.
fn within_named(view: GraphView<'_>, q: &Question) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in &q.grounding.entities {
        if !matches!(e.kind, crate::ground::EntityKind::Instance)
            || view.is_location(&e.iri)
            || view.is_point(&e.iri)
        {
            continue;
        }
        let parts = view.topo.parts(&e.iri);
        let points = std::iter::once(&e.iri)
            .chain(&parts)
            .flat_map(|n| view.topo.out_of(n, crate::topology::Rel::HasPoint));
        for id in parts.iter().cloned().chain(points) {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

/// What retrieval found.
#[derive(Debug, Clone, Default)]
pub struct Retrieval {
    /// Every chunk, reranked, best first.
    pub hits: Vec<Scored>,
    /// How many reach synthesis.
    pub selected: usize,
    /// The question's embedding, when documents were searched.
    pub vector: Option<Vec<f32>>,
}

/// Steps 4–5: embed the question, search (filtered or vanilla, every
/// fallback recorded), rerank. For an answer (`for_answer`), a chunk
/// ranked lower with a fuller sentence than the selection's
/// ([`super::fuller::fuller`]) and the chunk after each selected one
/// ([`retrieve::with_followers`]) join the selection; a listing of what
/// was found (`/retrieve`) is the `top_k` chunks as ranked. Without a document
/// service: nothing, with a warning.
pub async fn documents(
    docs: Option<&DocService>,
    cfg: &AnswerConfig,
    q: &Question,
    graph_ids: &[String],
    top_k: usize,
    for_answer: bool,
    trace: &mut Trace,
) -> Result<Retrieval, Fault> {
    let Some(docs) = docs else {
        trace.retrieval.mode = "none".into();
        trace
            .warnings
            .push("no vector index is attached: graph facts only".into());
        return Ok(Retrieval::default());
    };
    let t = Instant::now();
    let vector = docs.embed_one(q.embedded.clone()).await?;
    trace.stages_ms.insert("embed".into(), ms(t));
    let t = Instant::now();
    let r = retrieve::search(
        docs.ingestor().index().as_ref(),
        cfg,
        q,
        graph_ids,
        vector.clone(),
        top_k,
    )
    .await?;
    // What was decided before the search (how the question is read) stays
    // first.
    let earlier = std::mem::take(&mut trace.retrieval.decisions);
    trace.retrieval = r.trace;
    trace.retrieval.decisions.splice(0..0, earlier);
    if q.embedded != q.text {
        trace.retrieval.decisions.push(format!(
            "embedded as \"{}\": abbreviations spelled out",
            q.embedded
        ));
    }
    let mut hits = r.hits;
    let mut selected = hits.len().min(top_k).min(cfg.max_context_chunks);
    if for_answer
        && selected < cfg.max_context_chunks
        && let Some(f) = super::fuller::fuller(&hits, selected, q.focus(), cfg.min_coverage)
    {
        let s = hits.remove(f.index);
        hits.insert(selected, s);
        selected += 1;
        trace.retrieval.decisions.push(format!(
            "1 chunk added: ranked {} but with a sentence writing {} of the question's terms, every one the selection's fullest sentence writes ({}) and more",
            f.index + 1,
            f.terms,
            f.selected
        ));
        tracing::info!(
            rank = f.index + 1,
            terms = f.terms,
            selected_terms = f.selected,
            "a chunk with a fuller sentence joins the selection"
        );
    }
    if for_answer {
        let index = docs.ingestor().index();
        let (with, followers) = retrieve::with_followers(
            index.as_ref(),
            &mut hits,
            selected,
            cfg.max_context_chunks,
            &vector,
        )
        .await?;
        selected = with;
        if followers > 0 {
            trace.retrieval.decisions.push(format!(
                "{followers} chunks added: the chunk after a selected one in its document (x{} its score)",
                retrieve::FOLLOWING_WEIGHT
            ));
        }
    }
    trace.stages_ms.insert("search".into(), ms(t));
    Ok(Retrieval {
        hits,
        selected,
        vector: Some(vector),
    })
}
