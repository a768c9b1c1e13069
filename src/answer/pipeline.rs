//! The query pipeline in the order of ARCHITECTURE.md § Query.

use super::audit::{AuditRecord, sanitize};
use super::contract::{Answer, ContractChecker, EvidenceItem};
use super::facts::GraphContext;
use super::intent::{self, Reading};
use super::retrieve::{self, Scored};
use super::synthesize::{self, Picked};
use super::{
    ChatRequest, ChatResponse, Fact, Fault, Metadata, Refusal, RefusalType, RequestError,
    RetrieveError, Status, Trace, TracedChunk,
};
use crate::config::AnswerConfig;
use crate::ground::{EntityKind, Grounding};
use crate::ingest::DocService;
use crate::state::AppState;
use serde::Serialize;
use std::time::Instant;

const QUERY_MAX: usize = 500;
const SELECTED_MIN: usize = 10;
const SELECTED_MAX: usize = 5000;
const TOP_K_MAX: usize = 20;
const TOP_K_DEFAULT: usize = 5;
/// Similarity at which a selected text is taken to come from an indexed chunk.
const SELECTION_SOURCE_MIN: f32 = 0.75;

/// A validated request.
struct Valid {
    query: String,
    selected: Option<String>,
    top_k: usize,
    session_id: Option<String>,
}

fn invalid(field: &'static str, reason: String) -> RequestError {
    RequestError { field, reason }
}

fn validate(req: ChatRequest) -> Result<Valid, RequestError> {
    let query = req.query.trim().to_owned();
    let n = query.chars().count();
    if n == 0 || n > QUERY_MAX {
        return Err(invalid(
            "query",
            format!("must be 1-{QUERY_MAX} characters after trimming, got {n}"),
        ));
    }
    let selected = match req.selected_text {
        Some(t) => {
            let n = t.trim().chars().count();
            if !(SELECTED_MIN..=SELECTED_MAX).contains(&n) {
                return Err(invalid(
                    "selected_text",
                    format!("must be {SELECTED_MIN}-{SELECTED_MAX} characters, got {n}"),
                ));
            }
            Some(t.trim().to_owned())
        }
        None => None,
    };
    let top_k = req.top_k.unwrap_or(TOP_K_DEFAULT);
    if !(1..=TOP_K_MAX).contains(&top_k) {
        return Err(invalid(
            "top_k",
            format!("must be 1-{TOP_K_MAX}, got {top_k}"),
        ));
    }
    if let Some(s) = &req.session_id
        && uuid::Uuid::parse_str(s).is_err()
    {
        return Err(invalid("session_id", "must be a UUID".to_owned()));
    }
    Ok(Valid {
        query,
        selected,
        top_k,
        session_id: req.session_id,
    })
}

fn ms(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// What the graph step and retrieval found, before synthesis.
struct Gathered {
    grounding: Grounding,
    reading: Reading,
    facts: Vec<Fact>,
    hits: Vec<Scored>,
    selected: usize,
    labels: Vec<String>,
    /// Chunks linked to the question's first entity (for the conflict scan).
    linked: Vec<Scored>,
    /// The question's instances and products, and the equipment of the
    /// points it names.
    entity_ids: Vec<String>,
    /// The question's embedding, when documents were searched.
    query_vector: Option<Vec<f32>>,
}

/// Words shaped like a product model number ("YRT-5000") that the grounder
/// did not resolve: equipment the sources do not know.
fn unknown_models(query: &str, g: &Grounding) -> Vec<String> {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let known: Vec<String> = g.entities.iter().map(|e| squash(&e.matched)).collect();
    query
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| {
            let (letters, rest) = w.split_at(
                w.find(|c: char| !c.is_ascii_alphabetic())
                    .unwrap_or(w.len()),
            );
            let digits = rest.strip_prefix('-').unwrap_or(rest);
            (2..=5).contains(&letters.len())
                && (3..=5).contains(&digits.len())
                && digits.chars().all(|c| c.is_ascii_digit())
        })
        .filter(|w| !known.iter().any(|k| k.contains(&squash(w))))
        .filter(|w| !g.unresolved.iter().any(|u| squash(u) == squash(w)))
        .map(|w| w.to_uppercase())
        .collect()
}

async fn gather(
    state: &AppState,
    cfg: &AnswerConfig,
    v: &Valid,
    trace: &mut Trace,
) -> Result<Gathered, Fault> {
    let t = Instant::now();
    let mut grounding = state.grounder().ground(&v.query);
    for name in unknown_models(&v.query, &grounding) {
        grounding.unresolved.push(name);
    }
    trace.stages_ms.insert("ground".into(), ms(t));
    tracing::info!(
        gconf = grounding.gconf,
        entities = grounding.entities.len(),
        unresolved = grounding.unresolved.len(),
        "question grounded"
    );
    trace.grounding = Some(grounding.clone());
    if grounding.is_empty() {
        trace
            .warnings
            .push("grounding found no concept in the question; retrieval is vanilla".into());
    }

    let t = Instant::now();
    let topo = state.topology();
    let onto = state.ontology();
    let mut ctx = GraphContext::new(state.store.as_ref(), &topo, &onto, &v.query)
        .await
        .map_err(Fault::Store)?;
    let other_class = ctx.names_other_class(&grounding);
    let reading = intent::read(
        &v.query,
        &grounding,
        |i| ctx.is_location_node(i),
        other_class,
    );
    let facts = if grounding.unresolved.is_empty() && !reading.telemetry {
        ctx.facts(&reading, &grounding)
            .await
            .map_err(Fault::Store)?
    } else {
        Vec::new()
    };
    trace.graph.intents = reading
        .intents
        .iter()
        .map(|i| i.as_str().to_owned())
        .collect();
    trace.graph.queries = std::mem::take(&mut ctx.queries);
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
    let labels: Vec<String> = grounding.entities.iter().map(|e| e.label.clone()).collect();
    // The question's instances and products, and the equipment of any point
    // it names ("vav-2-14 airflow" → VAV-2-14): what document evidence is about.
    let mut entity_ids = question_entity_ids(&grounding);
    for owner in entity_ids
        .iter()
        .flat_map(|i| crate::topology::Topology::into(&topo, i, crate::topology::Rel::HasPoint))
        .collect::<Vec<_>>()
    {
        if !entity_ids.contains(&owner) {
            entity_ids.push(owner.clone());
        }
        if !graph_ids.contains(&owner) {
            graph_ids.push(owner);
        }
    }

    let mut hits = Vec::new();
    let mut linked = Vec::new();
    let mut query_vec = None;
    match state.docs() {
        None => {
            trace.retrieval.mode = "none".into();
            trace
                .warnings
                .push("no vector index is attached: graph facts only".into());
        }
        Some(docs) => {
            let t = Instant::now();
            let q = v.query.clone();
            let vector = with_embedder(&docs, move |e| e.embed_one(&q)).await?;
            trace.stages_ms.insert("embed".into(), ms(t));
            let t = Instant::now();
            let query_vector = vector.clone();
            let r = retrieve::search(
                docs.ingestor().index().as_ref(),
                cfg,
                &grounding,
                &graph_ids,
                vector,
                v.top_k,
            )
            .await
            .map_err(Fault::Index)?;
            trace.stages_ms.insert("search".into(), ms(t));
            trace.retrieval = r.trace;
            hits = r.hits;
            // Documents that speak of the subject of a feeds question are
            // read for statements the graph contradicts.
            if let (true, Some(subject)) = (
                reading.asks_feeds(),
                feeds_subject(&state.topology(), &grounding),
            ) {
                let found = docs
                    .ingestor()
                    .index()
                    .search(crate::vector::Search {
                        vector: query_vector.clone(),
                        limit: v.top_k * cfg.filter_fetch_factor.max(1),
                        filter: Some(crate::vector::MatchAny {
                            graph_ids: vec![subject.clone()],
                            ..Default::default()
                        }),
                        exclude_source_id: None,
                    })
                    .await
                    .map_err(Fault::Index)?;
                trace.retrieval.decisions.push(format!(
                    "conflict scan: {} chunks linked to {subject}",
                    found.len()
                ));
                linked = retrieve::rerank(cfg, &grounding, &graph_ids, found);
            }
            query_vec = Some(query_vector);
        }
    }
    let selected = hits.len().min(v.top_k).min(cfg.max_context_chunks);
    Ok(Gathered {
        grounding,
        reading,
        facts,
        hits,
        selected,
        labels,
        linked,
        entity_ids,
        query_vector: query_vec,
    })
}

fn trace_chunks(hits: &[Scored], selected: usize, used: &[usize]) -> Vec<TracedChunk> {
    hits.iter()
        .enumerate()
        .map(|(i, s)| TracedChunk {
            id: s.hit.id.to_string(),
            source_id: s.hit.payload.source_id.clone(),
            source_ref: s.hit.payload.source_ref.clone(),
            page_label: s.hit.payload.page_label.clone(),
            chunk_index: s.hit.payload.chunk_index,
            section_title: s.hit.payload.section_title.clone(),
            score: s.hit.score,
            reranked: s.reranked,
            boosts: s.boosts.clone(),
            selected: i < selected,
            used: used.contains(&i),
        })
        .collect()
}

fn newest(times: impl IntoIterator<Item = String>) -> String {
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

/// Evidence of a quoted chunk: the question's named instances and
/// products first (the claim is about them), then the chunk's own links.
fn chunk_evidence(s: &Scored, excerpt: &str, first: &[String]) -> EvidenceItem {
    let p = &s.hit.payload;
    let mut ids: Vec<String> = first.to_vec();
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

fn where_in(s: &Scored) -> String {
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

/// An outcome of synthesis: an answer, or an abstention with its type.
enum Outcome {
    Answer(Answer, Vec<usize>),
    Abstain(RefusalType, String, String),
}

fn abstain(kind: RefusalType, why: impl Into<String>, next: impl Into<String>) -> Outcome {
    Outcome::Abstain(kind, why.into(), next.into())
}

/// The equipment a feeds question is about: a named point stands for the
/// equipment that has it.
fn feeds_subject(topo: &crate::topology::Topology, g: &Grounding) -> Option<String> {
    let first = question_entity_ids(g).into_iter().next()?;
    Some(
        topo.into(&first, crate::topology::Rel::HasPoint)
            .into_iter()
            .next()
            .unwrap_or(first),
    )
}

fn question_entity_ids(g: &Grounding) -> Vec<String> {
    g.entities
        .iter()
        .filter(|e| matches!(e.kind, EntityKind::Instance | EntityKind::Product))
        .map(|e| e.iri.clone())
        .collect()
}

/// Graph facts answer; documents that contradict them are cited as
/// overruled.
fn graph_answer(state: &AppState, gd: &Gathered, trace: &mut Trace) -> Outcome {
    let mut evidence: Vec<EvidenceItem> = gd
        .facts
        .iter()
        .map(|f| EvidenceItem {
            graph_ids: f.graph_ids.clone(),
            file_paths: vec![f.file_path.clone()],
            excerpt: Some(f.text.clone()),
            source_sha: Some(f.source_sha.clone()),
        })
        .collect();
    let mut times: Vec<String> = gd.facts.iter().map(|f| f.updated_at.clone()).collect();
    let mut text: Vec<String> = gd.facts.iter().map(|f| f.text.clone()).collect();
    let mut limitations = vec![format!(
        "Answered from the building graph ({} fact{} from {}).",
        gd.facts.len(),
        if gd.facts.len() == 1 { "" } else { "s" },
        {
            let mut files: Vec<&str> = gd.facts.iter().map(|f| f.file_path.as_str()).collect();
            files.dedup();
            files.join(", ")
        }
    )];
    let mut used = Vec::new();
    // Documents that say otherwise about a feeds fact: graph truth wins.
    if gd.reading.asks_feeds() {
        let topo = state.topology();
        let grounder = state.grounder();
        let subjects: Vec<String> = feeds_subject(&topo, &gd.grounding).into_iter().collect();
        let answer_ids: Vec<String> = gd
            .facts
            .iter()
            .flat_map(|f| f.graph_ids.iter().skip(1).cloned())
            .collect();
        if let Some(subject) = subjects.first() {
            let related: std::collections::HashSet<String> = topo
                .upstream(subject, usize::MAX)
                .into_iter()
                .chain(topo.downstream(subject, usize::MAX))
                .map(|r| r.node.id)
                .collect();
            let related = |z: &str| related.contains(z);
            for s in &gd.linked {
                if !s.hit.payload.graph_ids.contains(subject) {
                    continue;
                }
                let i = gd.hits.iter().position(|h| h.hit.id == s.hit.id);
                for sentence in synthesize::sentences(&s.hit.payload.node_content) {
                    let others = synthesize::contradicting(
                        &grounder,
                        &topo,
                        subject,
                        &answer_ids,
                        &related,
                        &sentence,
                    );
                    if others.is_empty() {
                        continue;
                    }
                    let names: Vec<String> = others
                        .iter()
                        .map(|o| topo.label(o).unwrap_or(o).to_owned())
                        .collect();
                    let subject_name = topo.label(subject).unwrap_or(subject).to_owned();
                    let note = format!(
                        "Conflict: {} ({}) associates {} with {}, which the building graph does not; graph truth wins.",
                        s.hit.payload.source_ref,
                        s.hit.payload.updated_at,
                        subject_name,
                        names.join(", ")
                    );
                    if !trace.conflicts.contains(&note) {
                        trace.conflicts.push(note.clone());
                        limitations.push(note);
                        text.push(format!(
                            "{} says otherwise (\"{}\"); the building graph wins.",
                            s.hit.payload.source_ref, sentence
                        ));
                        let mut item = chunk_evidence(s, &sentence, &subjects);
                        item.graph_ids
                            .retain(|g| g == subject || others.contains(g));
                        if item.graph_ids.is_empty() {
                            item.graph_ids.push(subject.clone());
                        }
                        evidence.push(item);
                        times.push(s.hit.payload.updated_at.clone());
                        used.extend(i);
                    }
                    break;
                }
            }
        }
    }
    Outcome::Answer(
        Answer {
            answer: text.join(" "),
            evidence,
            timestamp: newest(times),
            limitations: limitations.join(" "),
            next_step: format!(
                "Open the topology view of {} (GET /api/topology/subgraph?id=…) or run the SPARQL in the trace to check the graph.",
                gd.labels
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "the node".to_owned())
            ),
        },
        used,
    )
}

/// Documents answer: the best sentences of the top chunks.
/// The sentences a document answer would quote (pure; see [`document_answer`]).
fn document_picks(cfg: &AnswerConfig, gd: &Gathered) -> Vec<Picked> {
    let texts: Vec<(usize, &str, f32)> = gd.hits[..gd.selected]
        .iter()
        .enumerate()
        .map(|(i, s)| (i, s.hit.payload.node_content.as_str(), s.reranked))
        .collect();
    let mut picked = synthesize::pick(&gd.reading.focus, &gd.labels, &texts, 2);
    // Quote a second chunk only when the best one alone does not hold
    // enough of the question: one passage, one page, is easier to check.
    if let Some(first) = picked.first().map(|p| p.source) {
        let own: Vec<Picked> = picked
            .iter()
            .filter(|p| p.source == first)
            .cloned()
            .collect();
        if synthesize::coverage(&gd.reading.focus, &own) >= cfg.min_coverage {
            picked = own;
        }
    }
    picked
}

/// Cosine similarity of the question to each picked passage.
async fn passage_similarities(
    state: &AppState,
    gd: &Gathered,
    picked: &[Picked],
) -> Result<Vec<f32>, Fault> {
    let (Some(docs), Some(q)) = (state.docs(), gd.query_vector.as_deref()) else {
        return Ok(Vec::new());
    };
    let texts: Vec<String> = picked.iter().map(|p| p.text.clone()).collect();
    let vectors = with_embedder(&docs, move |e| e.embed(&texts)).await?;
    Ok(vectors.iter().map(|v| crate::embed::cosine(q, v)).collect())
}

/// Runs the (synchronous) embedding model off the async threads.
async fn with_embedder<T: Send + 'static>(
    docs: &DocService,
    f: impl FnOnce(&crate::embed::Embedder) -> Result<T, crate::embed::EmbedError> + Send + 'static,
) -> Result<T, Fault> {
    let embedder = std::sync::Arc::clone(docs.ingestor().embedder());
    tokio::task::spawn_blocking(move || f(&embedder))
        .await
        .map_err(|e| Fault::Embed(crate::embed::EmbedError::Model(e.to_string())))?
        .map_err(Fault::Embed)
}

fn document_answer(
    cfg: &AnswerConfig,
    gd: &Gathered,
    picked: Vec<Picked>,
    sims: &[f32],
) -> Outcome {
    if gd.hits.is_empty() {
        return abstain(
            RefusalType::EmptyRetrieval,
            "No indexed document and no graph fact matches the question.",
            "Ask about equipment, points or documents DaemonIQ holds, or ingest the document that answers it.",
        );
    }
    let best = gd.hits.iter().map(|h| h.hit.score).fold(f32::MIN, f32::max);
    if best < cfg.min_relevance {
        return abstain(
            RefusalType::LowRelevance,
            format!(
                "The best document match scores {best:.2}, below the relevance floor {:.2}, and no graph fact answers the question.",
                cfg.min_relevance
            ),
            "Rephrase the question with the equipment or document it is about.",
        );
    }
    let top = &gd.hits[..gd.selected];
    let cov = synthesize::coverage(&gd.reading.focus, &picked);
    if cov < cfg.min_coverage {
        return abstain(
            RefusalType::InsufficientGrounding,
            format!(
                "The retrieved documents hold {:.0}% of the question's terms ({}), below the {:.0}% needed to answer from them.",
                cov * 100.0,
                gd.reading.focus.join(", "),
                cfg.min_coverage * 100.0
            ),
            "Check the equipment's submittals or the BAS directly; DaemonIQ has no source for this.",
        );
    }
    let mut used: Vec<usize> = picked.iter().map(|p| p.source).collect();
    used.dedup();
    // Confidence is 1 − mean cosine distance of what the answer uses: per
    // chunk used, the closer of the chunk and the passage quoted from it
    // (a 256-token chunk dilutes the one sentence that answers).
    let confidence = used
        .iter()
        .map(|i| {
            let passage = picked
                .iter()
                .zip(sims)
                .filter(|(p, _)| p.source == *i)
                .map(|(_, s)| *s)
                .fold(f32::MIN, f32::max);
            top[*i].hit.score.max(passage)
        })
        .sum::<f32>()
        / used.len().max(1) as f32;
    if confidence < cfg.min_confidence {
        return abstain(
            RefusalType::InsufficientGrounding,
            format!(
                "Confidence {confidence:.2} (1 - mean cosine distance of the chunks used) is below {:.2}.",
                cfg.min_confidence
            ),
            "Rephrase the question with the equipment or document it is about.",
        );
    }
    let first = &gd.entity_ids;
    let evidence: Vec<EvidenceItem> = picked
        .iter()
        .map(|p| chunk_evidence(&top[p.source], &p.text, first))
        .collect();
    let answer = picked
        .iter()
        .map(|p| format!("{} (from {})", p.text, where_in(&top[p.source])))
        .collect::<Vec<_>>()
        .join(" ");
    let first_used = &top[used[0]];
    Outcome::Answer(
        Answer {
            answer,
            evidence,
            timestamp: newest(used.iter().map(|i| top[*i].hit.payload.updated_at.clone())),
            limitations: format!(
                "Quoted from {} document chunk{} (confidence {confidence:.2}, retrieval {}); no graph fact answers this directly.",
                used.len(),
                if used.len() == 1 { "" } else { "s" },
                if gd.hits.is_empty() {
                    "none"
                } else {
                    "see trace"
                }
            ),
            next_step: format!(
                "Open {} to read the passage in context.",
                where_in(first_used)
            ),
        },
        used,
    )
}

/// Selected-text mode: only the selected text may answer.
async fn selected_answer(
    state: &AppState,
    cfg: &AnswerConfig,
    query: &str,
    selected: &str,
    trace: &mut Trace,
) -> Result<Outcome, Fault> {
    let t = Instant::now();
    let grounder = state.grounder();
    let qg = grounder.ground(query);
    let sg = grounder.ground(selected);
    trace.grounding = Some(qg.clone());
    trace.retrieval.mode = "selected_text".into();
    trace
        .retrieval
        .decisions
        .push("selected-text mode: only the selected text may answer".into());
    let topo = state.topology();
    let reading = intent::read(query, &qg, |_| false, false);
    let labels: Vec<String> = qg.entities.iter().map(|e| e.label.clone()).collect();
    let picked = synthesize::pick(&reading.focus, &labels, &[(0, selected, 0.0)], 2);
    let cov = synthesize::coverage(&reading.focus, &picked);
    trace.stages_ms.insert("synthesize".into(), ms(t));
    if cov < cfg.min_coverage || picked.iter().all(|p| p.matched.is_empty()) {
        return Ok(abstain(
            RefusalType::SelectedTextMissing,
            format!(
                "The selected text holds {:.0}% of the question's terms ({}); it does not contain the answer.",
                cov * 100.0,
                reading.focus.join(", ")
            ),
            "Ask without a selection to search all sources, or select the passage that holds the answer.",
        ));
    }
    let mut ids: Vec<String> = sg
        .links()
        .into_iter()
        .filter(|i| topo.contains(i) || i.starts_with(crate::vocab::YK))
        .collect();
    for i in question_entity_ids(&qg) {
        if !ids.contains(&i) {
            ids.insert(0, i);
        }
    }
    // A named point stands for its equipment too ("ahu2 DSP" → AHU-2).
    let owners: Vec<String> = ids
        .iter()
        .flat_map(|i| crate::topology::Topology::into(&topo, i, crate::topology::Rel::HasPoint))
        .collect();
    for o in owners {
        if !ids.contains(&o) {
            ids.push(o);
        }
    }
    if ids.is_empty() {
        ids = sg.links();
    }
    if ids.is_empty() {
        return Ok(abstain(
            RefusalType::InsufficientGrounding,
            "The selected text names nothing in the building graph or the ontology, so the answer cannot be linked to graph evidence.",
            "Select a passage that names the equipment or product it is about.",
        ));
    }
    // Which file the selection came from: the indexed chunk it matches.
    let mut file: Option<(String, String, String)> = None;
    if let Some(docs) = state.docs() {
        let text = selected.to_owned();
        let vector = with_embedder(&docs, move |e| e.embed_one(&text)).await?;
        let hits = docs
            .ingestor()
            .index()
            .search(crate::vector::Search {
                vector,
                limit: 1,
                filter: None,
                exclude_source_id: None,
            })
            .await
            .map_err(Fault::Index)?;
        if let Some(h) = hits
            .into_iter()
            .next()
            .filter(|h| h.score >= SELECTION_SOURCE_MIN)
        {
            trace.retrieval.decisions.push(format!(
                "the selection matches a chunk of {} (similarity {:.2})",
                h.payload.source_ref, h.score
            ));
            file = Some((
                h.payload.source_ref,
                h.payload.source_sha,
                h.payload.updated_at,
            ));
        }
    }
    let file = match file {
        Some(f) => f,
        None => {
            let onto = state.ontology();
            let mut ctx = GraphContext::new(state.store.as_ref(), &topo, &onto, query)
                .await
                .map_err(Fault::Store)?;
            ctx.load(&ids).await.map_err(Fault::Store)?;
            match ctx.provenance_of(&ids[0]) {
                Some(p) => p,
                None => {
                    return Ok(abstain(
                        RefusalType::InsufficientGrounding,
                        "The selected text cannot be traced to a loaded source.",
                        "Select text from a document DaemonIQ has ingested.",
                    ));
                }
            }
        }
    };
    let evidence: Vec<EvidenceItem> = picked
        .iter()
        .map(|p| EvidenceItem {
            graph_ids: ids.clone(),
            file_paths: vec![file.0.clone()],
            excerpt: Some(p.text.clone()),
            source_sha: Some(file.1.clone()),
        })
        .collect();
    Ok(Outcome::Answer(
        Answer {
            answer: picked
                .iter()
                .map(|p| p.text.clone())
                .collect::<Vec<_>>()
                .join(" "),
            evidence,
            timestamp: newest([file.2.clone()]),
            limitations: format!(
                "Answered only from the selected text ({:.0}% of the question's terms found); other sources were not consulted.",
                cov * 100.0
            ),
            next_step: format!("Read the passage in {} for its context.", file.0),
        },
        Vec::new(),
    ))
}

/// Answers a question: the `/chat` pipeline. `Err` is a request that fails
/// validation (HTTP 400); server faults come back as `status: error`.
pub async fn chat(state: &AppState, req: ChatRequest) -> Result<ChatResponse, RequestError> {
    use tracing::Instrument;
    let v = validate(req)?;
    let request_id = uuid::Uuid::new_v4().to_string();
    // Every decision logged while answering carries the request id.
    let span = tracing::info_span!("chat", request_id = %request_id);
    Ok(answer(state, v, request_id).instrument(span).await)
}

async fn answer(state: &AppState, v: Valid, request_id: String) -> ChatResponse {
    let started = Instant::now();
    let cfg = state.answer_config();
    let mut trace = Trace::default();
    let outcome: Result<Outcome, Fault> = match &v.selected {
        Some(sel) => selected_answer(state, &cfg, &v.query, sel, &mut trace).await,
        None => match gather(state, &cfg, &v, &mut trace).await {
            Err(f) => Err(f),
            Ok(gd) => {
                let t = Instant::now();
                let drafted = if !gd.grounding.unresolved.is_empty() {
                    Ok(abstain(
                        RefusalType::InsufficientGrounding,
                        format!(
                            "The question names {}, which the building graph does not have.",
                            gd.grounding.unresolved.join(", ")
                        ),
                        "Check the equipment tag; GET /api/topology/node?id=… lists what the graph holds.",
                    ))
                } else if gd.reading.telemetry {
                    Ok(abstain(
                        RefusalType::InsufficientGrounding,
                        "The question asks for a live value; DaemonIQ holds the equipment model and documents, not telemetry.",
                        "Read the point's present value from the BAS front end.",
                    ))
                } else if gd.facts.iter().any(|f| !f.negative) {
                    Ok(graph_answer(state, &gd, &mut trace))
                } else {
                    let picked = document_picks(&cfg, &gd);
                    let sims = if gd.hits.is_empty() {
                        Ok(Vec::new())
                    } else {
                        passage_similarities(state, &gd, &picked).await
                    };
                    sims.map(|sims| document_answer(&cfg, &gd, picked, &sims))
                };
                trace.stages_ms.insert("synthesize".into(), ms(t));
                let used = match &drafted {
                    Ok(Outcome::Answer(_, u)) => u.clone(),
                    _ => Vec::new(),
                };
                trace.chunks = trace_chunks(&gd.hits, gd.selected, &used);
                drafted
            }
        },
    };
    let chunks_retrieved = trace.chunks.len();
    let (status, answer, refusal, error) = match outcome {
        Err(f) => (Status::Error, None, None, Some(f)),
        Ok(out) => {
            let t = Instant::now();
            let (answer, refusal) = finish(state, out, &mut trace).await;
            trace.stages_ms.insert("check".into(), ms(t));
            match refusal {
                Some(r) => (Status::Refused, Some(answer), Some(r), None),
                None => (Status::Success, Some(answer), None, None),
            }
        }
    };
    let processing_time_ms = started.elapsed().as_millis() as u64;
    tracing::info!(
        request_id = %request_id,
        status = ?status,
        refusal = ?refusal.as_ref().map(|r| r.refusal_type),
        chunks = chunks_retrieved,
        mode = %trace.retrieval.mode,
        elapsed_ms = processing_time_ms,
        "question answered"
    );
    if let Some(log) = state.audit_log() {
        log.write(&AuditRecord {
            request_id: request_id.clone(),
            timestamp: chrono::Utc::now().to_rfc3339(),
            query: sanitize(&v.query),
            selected_text: v.selected.is_some(),
            retrieval_set: trace
                .chunks
                .iter()
                .filter(|c| c.selected)
                .map(|c| c.id.clone())
                .collect(),
            graph_ids: answer
                .as_ref()
                .map(|a| {
                    a.evidence
                        .iter()
                        .flat_map(|e| e.graph_ids.clone())
                        .collect()
                })
                .unwrap_or_default(),
            status: format!("{status:?}").to_lowercase(),
            refusal_type: refusal
                .as_ref()
                .and_then(|r| serde_json::to_value(r.refusal_type).ok())
                .and_then(|v| v.as_str().map(str::to_owned)),
            latency_ms: processing_time_ms,
        });
    }
    ChatResponse {
        status,
        answer,
        refusal,
        error,
        metadata: Metadata {
            request_id,
            processing_time_ms,
            chunks_retrieved,
            session_id: v.session_id,
        },
        trace,
    }
}

/// Builds the contract and checks it; a failed check abstains.
async fn finish(state: &AppState, out: Outcome, trace: &mut Trace) -> (Answer, Option<Refusal>) {
    let refuse = |kind: RefusalType, why: String, next: String| {
        (
            Answer::unknown(why, next),
            Some(Refusal {
                reason: kind.message().to_owned(),
                refusal_type: kind,
            }),
        )
    };
    match out {
        Outcome::Abstain(kind, why, next) => {
            tracing::info!(refusal = ?kind, "abstaining");
            refuse(kind, why, next)
        }
        Outcome::Answer(answer, _) => {
            match ContractChecker::check(state.store.as_ref(), &answer).await {
                Ok(Ok(())) => (answer, None),
                Ok(Err(failure)) => {
                    tracing::warn!(failure = %failure, "answer failed its check; abstaining");
                    trace
                        .warnings
                        .push(format!("answer failed its check: {failure}"));
                    refuse(
                        RefusalType::InsufficientGrounding,
                        format!("The drafted answer failed its evidence check ({failure})."),
                        "Report this question; the trace shows what was drafted.".to_owned(),
                    )
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot check the answer; abstaining");
                    refuse(
                        RefusalType::InsufficientGrounding,
                        "The evidence could not be checked against the store.".to_owned(),
                        "Try again shortly.".to_owned(),
                    )
                }
            }
        }
    }
}

/// The `/retrieve` response: graph facts and chunks, no synthesis.
#[derive(Debug, Clone, Serialize)]
pub struct RetrieveResponse {
    /// Graph facts.
    pub facts: Vec<Fact>,
    /// Chunks that reach synthesis, with text and payload fields.
    pub chunks: Vec<serde_json::Value>,
    /// The trace.
    pub trace: Trace,
    /// Request id and timing.
    pub metadata: Metadata,
}

/// Retrieval only: the graph step and the vector search.
pub async fn retrieve(
    state: &AppState,
    req: ChatRequest,
) -> Result<RetrieveResponse, RetrieveError> {
    let v = validate(req)?;
    let started = Instant::now();
    let cfg = state.answer_config();
    let mut trace = Trace::default();
    let gd = gather(state, &cfg, &v, &mut trace).await?;
    trace.chunks = trace_chunks(&gd.hits, gd.selected, &[]);
    let chunks = gd
        .hits
        .iter()
        .take(gd.selected)
        .map(|s| {
            serde_json::json!({
                "id": s.hit.id.to_string(),
                "score": s.hit.score,
                "reranked": s.reranked,
                "payload": s.hit.payload,
            })
        })
        .collect();
    Ok(RetrieveResponse {
        facts: gd.facts,
        chunks,
        metadata: Metadata {
            request_id: uuid::Uuid::new_v4().to_string(),
            processing_time_ms: started.elapsed().as_millis() as u64,
            chunks_retrieved: trace.chunks.len(),
            session_id: v.session_id,
        },
        trace,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(query: &str) -> ChatRequest {
        ChatRequest {
            query: query.into(),
            ..ChatRequest::default()
        }
    }

    #[test]
    fn request_limits_of_seed_003() {
        assert!(validate(req("  what feeds VAV-2-14  ")).is_ok());
        assert!(validate(req("   ")).is_err());
        assert!(validate(req(&"x".repeat(501))).is_err());
        assert!(validate(req(&"x".repeat(500))).is_ok());
        let mut r = req("q");
        r.selected_text = Some("too short".into());
        assert!(validate(r).is_err());
        let mut r = req("q");
        r.top_k = Some(0);
        assert!(validate(r).is_err());
        let mut r = req("q");
        r.top_k = Some(21);
        assert!(validate(r).is_err());
        let mut r = req("q");
        r.session_id = Some("not-a-uuid".into());
        let e = validate(r).err().map(|e| e.field);
        assert_eq!(e, Some("session_id"));
        let mut r = req("q");
        r.session_id = Some(uuid::Uuid::new_v4().to_string());
        assert!(validate(r).is_ok());
    }

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
