//! The query pipeline, step by step (docs/ARCHITECTURE.md § Query):
//!
//! 1. validate the request ([`request`](super::request));
//! 2. read the question once: ground it, read what it asks
//!    ([`Question`]);
//! 3. graph first: the facts it asks for ([`gather::graph`]);
//! 4. search the documents, filtered by what the graph step found or
//!    vanilla, and 5. rerank them ([`gather::documents`]);
//! 6. draft the answer: from graph facts (with documents that contradict
//!    them, [`conflict`](super::conflict)), from document passages, or from
//!    the selected text ([`compose`](super::compose));
//! 7. build the contract and 8. check it ([`ContractChecker`]);
//! 9. or abstain — every rule in [`refusal`](super::refusal).
//!
//! Then one log line and one audit record per question.

use super::audit::{AuditRecord, sanitize};
use super::compose::selected::Selection;
use super::compose::{Draft, documents, graph, selected};
use super::contract::{Answer, ContractChecker};
use super::gather::{self, Retrieval};
use super::intent::Intent;
use super::question::Question;
use super::refusal::{self, Reason};
use super::request::{self, Request};
use super::retrieve::Scored;
use super::synthesize::Equivalent;
use super::view::GraphView;
use super::{
    ChatRequest, ChatResponse, Fact, Fault, Metadata, Refusal, RequestError, RetrieveError, Status,
    Trace, TracedChunk, conflict, ms, query,
};
use crate::config::AnswerConfig;
use crate::ground::EntityKind;
use crate::ingest::DocService;
use crate::state::{AppState, Snapshot};
use serde::Serialize;
use std::time::Instant;
use tracing::Instrument;

/// Answers a question: the `/chat` pipeline. `Err` is a request outside
/// the limits; server faults come back in the response (`status: error`).
pub async fn chat(state: &AppState, req: ChatRequest) -> Result<ChatResponse, RequestError> {
    let request_id = request_id(&req);
    let r = request::validate(req)?;
    // Every decision logged while answering carries the request id.
    let span = tracing::info_span!("chat", request_id = %request_id);
    Ok(answer(state, r, request_id).instrument(span).await)
}

/// The request's id: the transport's, else a new UUID.
fn request_id(req: &ChatRequest) -> String {
    req.request_id
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string())
}

async fn answer(state: &AppState, r: Request, request_id: String) -> ChatResponse {
    let started = Instant::now();
    let cfg = state.answer_config();
    let mut trace = Trace::default();
    let (status, answer, refusal, error) = match draft(state, &cfg, &r, &mut trace).await {
        Err(fault) => (Status::Error, None, None, Some(fault)),
        Ok(draft) => {
            let t = Instant::now();
            let (answer, refusal) = finish(state, draft, &mut trace).await;
            trace.stages_ms.insert("check".into(), ms(t));
            let status = if refusal.is_some() {
                Status::Refused
            } else {
                Status::Success
            };
            (status, Some(answer), refusal, None)
        }
    };
    let processing_time_ms = started.elapsed().as_millis() as u64;
    let chunks_retrieved = trace.chunks.len();
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
            query: sanitize(&r.query),
            selected_text: r.selected.is_some(),
            retrieval_set: trace
                .chunks
                .iter()
                .filter(|c| c.selected)
                .map(|c| c.id.clone())
                .collect(),
            graph_ids: answer
                .iter()
                .flat_map(|a| &a.evidence)
                .flat_map(|e| e.graph_ids.clone())
                .collect(),
            status: status.as_str().to_owned(),
            refusal_type: refusal.as_ref().map(|r| r.refusal_type.as_str().to_owned()),
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
            session_id: r.session_id,
        },
        trace,
    }
}

/// What a question the graph refuses is about, in words: the names it
/// names, else the kinds it names ("a question about chillers"), else the
/// building.
fn said_about(q: &Question) -> String {
    let names: Vec<&str> = if q.labels.is_empty() {
        q.kinds.iter().map(|k| k.said.as_str()).collect()
    } else {
        q.labels.iter().map(String::as_str).collect()
    };
    if names.is_empty() {
        "a question about the building".to_owned()
    } else {
        format!("a question about {}", names.join(", "))
    }
}

/// Step 2: the question, read once.
/// A question read with the snapshot's grounder and cues, with the other
/// forms of its focus terms from the spelling.
fn question(snap: &Snapshot, text: &str, view: GraphView<'_>) -> Question {
    let mut q = Question::read(text, &snap.grounder, &snap.cues, view);
    // The words of a compound the question writes with a hyphen have
    // their other forms too ("outside-air": "outdoor air").
    let with_parts: Vec<String> = q
        .reading
        .focus
        .iter()
        .cloned()
        .chain(
            q.reading
                .focus
                .iter()
                .filter(|t| t.contains('-'))
                .flat_map(|t| t.split('-').map(crate::text::stem).collect::<Vec<_>>()),
        )
        .collect();
    q.equivalents = snap.spelling.equivalents(&with_parts);
    let stems: Vec<String> = q.words.iter().map(|w| crate::text::stem(w)).collect();
    q.reading.topics = q
        .reading
        .focus
        .iter()
        .filter(|t| {
            snap.spelling.is_domain_term(t) && stems.iter().filter(|s| *s == *t).nth(1).is_some()
        })
        .cloned()
        .collect();
    q.embedded = snap.spelling.spelled_out(&q.text);
    for kind in &mut q.kinds {
        kind.equivalents = snap.spelling.equivalents(&kind.words);
        if let Some(class) = &kind.class {
            // The tags the question gives the kind ("zone", "outdoor"):
            // a product of the class names it only with all of them.
            let tags: &[String] = q
                .grounding
                .point_types
                .iter()
                .find(|p| p.brick_class.as_deref() == Some(crate::vocab::local_name(class)))
                .map(|p| p.haystack_tags.as_slice())
                .unwrap_or_default();
            kind.models = snap
                .grounder
                .models_of(class, tags, &snap.ontology)
                .iter()
                .map(|m| crate::text::squash(m))
                .collect();
        }
    }
    let named_by_instances = instance_forms(&q, view);
    let named_by_kind = named_kind_forms(&q, view);
    for e in named_by_instances.into_iter().chain(named_by_kind) {
        if !q.equivalents.contains(&e) {
            q.equivalents.push(e);
        }
    }
    q
}

/// The name of each instance a question names, as a form of the head noun
/// of its class when the question says that noun too: "chwp1 was leaking
/// … which *pump* ran lead" is answered by "CHWP-1: mechanical seal
/// leaking … CHWP-2 made lead", which says "pump" as the graph says
/// CHWP-1 is a chilled-water pump; "vav3-06 … the *box* was reading short"
/// by "VAV-3-06: …". Only the head noun of the instance's own classes
/// ("Box" of `Variable_Air_Volume_Box_With_Reheat`, "Pump" of
/// `Chilled_Water_Pump`), not their other words ("air", "water") nor a
/// broader class's ("Unit" of `Terminal_Unit`): those say more than what
/// the instance is.
fn named_kind_forms(q: &Question, view: GraphView<'_>) -> Vec<Equivalent> {
    let mut out: Vec<Equivalent> = Vec::new();
    for e in q
        .grounding
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Instance)
    {
        let form = crate::text::words(&super::query::read::name_of(view, &e.iri));
        if form.is_empty() {
            continue;
        }
        for class in view.specific_types(&e.iri) {
            let Some(head) = head_noun(&super::query::read::class_words(view, &class)) else {
                continue;
            };
            let head = crate::text::stem(&head);
            let eq = Equivalent {
                terms: vec![head.clone()],
                form: form.clone(),
            };
            if q.reading.focus.contains(&head) && !out.contains(&eq) {
                out.push(eq);
            }
        }
    }
    out
}

/// The head noun of a class's name: its last word before a qualifying
/// "with" or "for" ("Variable Air Volume Box With Reheat" → "box"), in
/// lower case.
fn head_noun(class: &str) -> Option<String> {
    let words: Vec<String> = class
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let end = words
        .iter()
        .position(|w| w == "with" || w == "for")
        .unwrap_or(words.len());
    words[..end]
        .last()
        .filter(|w| w.chars().all(char::is_alphabetic))
        .cloned()
}

/// Most instances of a kind whose names stand for the kind's words: a
/// building's two chillers or three air handlers, not its hundred boxes
/// (whose sequences name the kind anyway).
const MAX_INSTANCE_FORMS: usize = 12;

/// The names of the graph's instances of the equipment kinds a question
/// names, as forms of the kind's words: "CH-1 and CH-2 each hold about
/// 330 lb of R-1233zd(E)" speaks of "each chiller" as the graph says CH-1
/// and CH-2 are chillers. Only for a kind with few instances
/// ([`MAX_INSTANCE_FORMS`]) and whose words are all focus terms.
fn instance_forms(q: &Question, view: GraphView<'_>) -> Vec<Equivalent> {
    let mut out: Vec<Equivalent> = Vec::new();
    for kind in &q.kinds {
        let Some(class) = &kind.class else { continue };
        if kind.form.is_some()
            || kind.words.is_empty()
            || !kind.words.iter().all(|w| q.reading.focus.contains(w))
            || !view.onto.is_a(class, &crate::vocab::brick("Equipment"))
        {
            continue;
        }
        let instances: Vec<&str> = view
            .instances_of(class)
            .take(MAX_INSTANCE_FORMS + 1)
            .collect();
        if instances.len() > MAX_INSTANCE_FORMS {
            continue;
        }
        for n in instances {
            let form = crate::text::words(&super::query::read::name_of(view, n));
            let e = Equivalent {
                terms: kind.words.clone(),
                form,
            };
            if !e.form.is_empty() && !out.contains(&e) {
                out.push(e);
            }
        }
    }
    out
}

fn read(snap: &Snapshot, query: &str, trace: &mut Trace) -> Question {
    let t = Instant::now();
    let view = GraphView::new(&snap.topology, &snap.ontology);
    let q = question(snap, query, view);
    trace.stages_ms.insert("ground".into(), ms(t));
    tracing::info!(
        gconf = q.grounding.gconf,
        entities = q.grounding.entities.len(),
        unresolved = q.grounding.unresolved.len(),
        "question grounded"
    );
    trace.grounding = Some(q.grounding.clone());
    q
}

/// Step 2½: the graph query engine, on the question as asked and, when it
/// passes on that, on the question respelled ([`respell`]); the question
/// the outcome answers comes back with it.
async fn engine(
    state: &AppState,
    snap: &Snapshot,
    view: GraphView<'_>,
    q: Question,
    query_text: &str,
    trace: &mut Trace,
) -> Result<(Question, query::Outcome), Fault> {
    let store = state.store.as_ref();
    let answered = |o: &query::Outcome| {
        matches!(
            o,
            query::Outcome::Drafted {
                draft: Draft::Answer(..),
                ..
            }
        )
    };
    let outcome = query::answer(store, view, &q, &snap.cues, trace).await?;
    // Answered: done. Passed on, or abstained for want of data: the
    // question as meant may read otherwise ("occ sensor" is an occupancy
    // sensor, not the OCC status).
    if answered(&outcome) {
        return Ok((q, outcome));
    }
    let Some(re) = snap.spelling.respell(query_text) else {
        return Ok((q, outcome));
    };
    let q2 = question(snap, &re.text, view);
    if q2.reading.telemetry {
        return Ok((q, outcome));
    }
    let mut trace2 = trace.clone();
    let outcome2 = query::answer(store, view, &q2, &snap.cues, &mut trace2).await?;
    let said: Vec<String> = re
        .changes
        .iter()
        .map(|(typed, read)| format!("\"{typed}\" as \"{read}\""))
        .collect();
    // Only an answer: an abstention of the respelled question would take
    // the question as asked away from the documents. When the engine
    // passed on both and every change spells out an abbreviation ("stpt"
    // → "setpoint") or corrects a misspelled question word into a cue word
    // ("definiton" → "definition"), the graph facts and the documents read
    // the question respelled. A word qualified for the engine ("box" as
    // "vav box") would narrow the documents' search, and a correction into
    // a content word may be a real word the vocabulary lacks ("bumps" is
    // not "pumps").
    if !answered(&outcome2) {
        tracing::debug!(
            changes = re.changes.len(),
            "respelled question not composed either"
        );
        let typos_only = re.changes.iter().all(|(typed, read)| {
            snap.spelling.abbreviates(typed)
                || (!snap.spelling.is_shorthand(typed) && snap.cues.is_cue_word(read))
        });
        if matches!(outcome, query::Outcome::Pass) && typos_only && !q2.grounding.is_empty() {
            // A corrected word the documents hold is theirs, not a near
            // miss ("stuffy"): it stays as typed, and the rest of the
            // respelling ("conf rm" as "conference room") stands.
            let held = documents_holding(state, snap, &re.changes, trace).await?;
            let (re, q2) = if held.is_empty() {
                (re, q2)
            } else {
                let Some(kept) = snap.spelling.respell_keeping(query_text, &held) else {
                    return Ok((q, outcome));
                };
                let q3 = question(snap, &kept.text, view);
                (kept, q3)
            };
            if q2.grounding.is_empty() || q2.reading.telemetry {
                return Ok((q, outcome));
            }
            let said: Vec<String> = re
                .changes
                .iter()
                .map(|(typed, read)| format!("\"{typed}\" as \"{read}\""))
                .collect();
            trace.retrieval.decisions.push(format!(
                "read {} for the graph facts and documents",
                said.join(", ")
            ));
            trace.graph.read_as = Some(re.text);
            trace.grounding = Some(q2.grounding.clone());
            return Ok((q2, outcome));
        }
        return Ok((q, outcome));
    }
    *trace = trace2;
    tracing::info!(changes = re.changes.len(), "question composed as respelled");
    trace
        .retrieval
        .decisions
        .push(format!("read {}", said.join(", ")));
    trace.graph.read_as = Some(re.text);
    trace.grounding = Some(q2.grounding.clone());
    let outcome2 = match outcome2 {
        query::Outcome::Drafted {
            draft: Draft::Answer(mut answer, used),
            about_supply,
            supplied,
        } => {
            answer.limitations = format!("Read {}. {}", said.join(", "), answer.limitations)
                .trim_end()
                .to_owned();
            query::Outcome::Drafted {
                draft: Draft::Answer(answer, used),
                about_supply,
                supplied,
            }
        }
        o => o,
    };
    Ok((q2, outcome2))
}

/// The words the respelling corrected into a cue word that the documents
/// hold (lower case): words the vocabulary lacks, not typos ("locks" is
/// not "lacks" when the plant manual says "locked out"). The lexical index
/// stems as it reads the chunks, so any form of the word counts.
async fn documents_holding(
    state: &AppState,
    snap: &Snapshot,
    changes: &[(String, String)],
    trace: &mut Trace,
) -> Result<Vec<String>, Fault> {
    let mut held = Vec::new();
    let Some(docs) = state.docs() else {
        return Ok(held);
    };
    for (typed, _) in changes
        .iter()
        .filter(|(typed, _)| !snap.spelling.abbreviates(typed))
    {
        let found = docs
            .ingestor()
            .index()
            .lexical(crate::vector::LexicalSearch {
                text: typed.clone(),
                limit: 1,
                filter: None,
            })
            .await?;
        if !found.is_empty() {
            tracing::info!("a corrected word is a word of the documents: read as asked");
            trace.retrieval.decisions.push(format!(
                "\"{typed}\" is not respelled: the documents hold it"
            ));
            held.push(typed.to_lowercase());
        }
    }
    Ok(held)
}

/// Steps 2–6: the drafted answer or abstention.
async fn draft(
    state: &AppState,
    cfg: &AnswerConfig,
    r: &Request,
    trace: &mut Trace,
) -> Result<Draft, Fault> {
    // One snapshot for the whole question: a refresh mid-answer cannot mix
    // the grounder of one graph with the topology of another.
    let snap = state.snapshot();
    let q = read(&snap, &r.query, trace);
    let view = GraphView::new(&snap.topology, &snap.ontology);
    let docs = state.docs();
    if let Some(text) = &r.selected {
        trace.retrieval.mode = "selected_text".into();
        trace
            .retrieval
            .decisions
            .push("selected-text mode: only the selected text may answer".into());
        let t = Instant::now();
        let sel = Selection {
            text,
            store: state.store.as_ref(),
            docs: docs.as_deref(),
            grounder: &snap.grounder,
        };
        let d = selected::answer(cfg, view, &q, sel, &mut trace.retrieval.decisions).await?;
        trace.stages_ms.insert("synthesize".into(), ms(t));
        return Ok(d);
    }
    let (q, outcome) = if q.reading.telemetry {
        (q, query::Outcome::Pass)
    } else {
        engine(state, &snap, view, q, &r.query, trace).await?
    };
    if let query::Outcome::Drafted {
        draft,
        about_supply,
        supplied,
    } = outcome
    {
        trace.retrieval.mode = "none".into();
        trace.retrieval.decisions.push(
            "a composed graph query answers: documents are searched only for contradictions".into(),
        );
        return match draft {
            Draft::Answer(answer, used) if about_supply => {
                let answer =
                    contradicted(state, cfg, r, &snap, view, &q, supplied, answer, trace).await;
                Ok(Draft::Answer(answer, used))
            }
            d => Ok(d),
        };
    }
    if q.grounding.is_empty() {
        trace
            .warnings
            .push("grounding found no concept in the question; retrieval is vanilla".into());
    }
    let step = gather::graph(state.store.as_ref(), view, &q, trace).await?;
    let found = gather::documents(
        docs.as_deref(),
        cfg,
        &q,
        &step.graph_ids,
        r.top_k,
        true,
        trace,
    )
    .await?;
    // "the ip address of the AHU-2 controller": words of a question about a
    // named node's product that neither a cue nor the building's
    // vocabulary knows ask something its product facts do not say.
    let beyond_product: Vec<&str> = if q.reading.has(Intent::Product)
        && !q.reading.asks_relation()
        && !q
            .grounding
            .entities
            .iter()
            .any(|e| e.kind == EntityKind::Product)
    {
        q.reading
            .focus
            .iter()
            .filter(|t| !snap.cues.knows_stem(t) && !snap.spelling.is_domain(t))
            .map(String::as_str)
            .collect()
    } else {
        Vec::new()
    };
    // Words the graph answer would drop: it abstains for the graph, and
    // the documents may still answer ("ahu3 design sa cfm" is in the
    // sequence's system table).
    let graph_refusal = if trace
        .graph
        .unread_said_of
        .iter()
        .any(|w| snap.spelling.is_domain(w))
        && q.reading.asks_relation()
        && step.facts.iter().any(|f| !f.negative)
    {
        // The fact builders would answer about the node and drop what the
        // question says of it ("the condenser of ch-2" is not ch-2) when
        // that is a word of the building's vocabulary (not "fix", "june").
        tracing::info!("unread words said of a named node; the graph does not answer");
        Some(Reason::Unsupported {
            understood: said_about(&q),
            why: format!(
                "the words \"{}\" said of it were not understood as part of a graph query",
                trace.graph.unread.join(" ")
            ),
        })
    } else if let Some(left) = beyond_the_reading(&q, &snap.cues, &trace.graph.unread, |w| {
        snap.spelling.spelled_word(w).to_owned()
    }) && step.facts.iter().any(|f| !f.negative)
    {
        tracing::info!(
            words = left.len(),
            "the question says more than the graph read; the graph does not answer"
        );
        Some(Reason::Unsupported {
            understood: said_about(&q),
            why: format!(
                "the words \"{}\" said beyond it were not understood as part of a graph query",
                left.join(" ")
            ),
        })
    } else if !beyond_product.is_empty() && step.facts.iter().any(|f| !f.negative) {
        let left = &beyond_product;
        tracing::info!(
            words = left.len(),
            "product question asks more than the product; the graph does not answer"
        );
        Some(Reason::Unsupported {
            understood: said_about(&q),
            why: format!("the graph records its product, not \"{}\"", left.join(" ")),
        })
    } else {
        None
    };
    let t = Instant::now();
    let d = if let Some(reason) = refusal::of_question(&q) {
        Draft::Abstain(reason)
    } else if graph_refusal.is_none() && step.facts.iter().any(|f| !f.negative) {
        let conflicts = match docs.as_deref() {
            Some(docs) => {
                let decisions = &mut trace.retrieval.decisions;
                let scan = conflict_scan(&q, &step, &found, r.top_k);
                scan_conflicts(docs, cfg, &snap, view, scan, decisions).await?
            }
            None => Vec::new(),
        };
        trace.conflicts = conflicts.iter().map(|c| c.note.clone()).collect();
        graph::answer(&q, &step.facts, &conflicts)
    } else {
        let retrieved = &found;
        let Retrieval {
            hits,
            selected,
            vector,
        } = &found;
        let cited: Vec<String> = q.about.iter().cloned().chain(q.implied(view)).collect();
        let found = documents::Found {
            hits,
            selected: *selected,
            vector: vector.as_deref(),
            about: &cited,
            grounder: &snap.grounder,
            view,
            spelling: &snap.spelling,
        };
        let (draft, measured) = documents::answer(docs.as_deref(), cfg, &q, found).await?;
        trace.answerability = measured;
        let draft = match draft {
            Draft::Answer(answer, used) => {
                let scan = (&step, retrieved, r.top_k);
                match contradicted_quote(
                    docs.as_deref(),
                    cfg,
                    &snap,
                    view,
                    &q,
                    scan,
                    &answer,
                    trace,
                )
                .await?
                {
                    conflicts if conflicts.is_empty() => {
                        let (hits, quoted) = (&retrieved.hits, used.as_slice());
                        let answer =
                            noted_against_graph(state, &snap, view, answer, (hits, quoted), trace)
                                .await?;
                        Draft::Answer(answer, used)
                    }
                    conflicts => {
                        let notes = conflicts.iter().map(|c| c.note.clone()).collect();
                        graph_instead(state, &snap, view, &q, conflicts, trace)
                            .await?
                            .unwrap_or(Draft::Abstain(Reason::Contradicted(notes)))
                    }
                }
            }
            d => d,
        };
        match (draft, graph_refusal) {
            // The graph's reason says more than the documents' when
            // neither answers.
            (Draft::Abstain(_), Some(reason)) => Draft::Abstain(reason),
            // What the graph could not read of a named node, a passage
            // answers only when it names the node ("where is vav-b2-05
            // mounted" is not answered by VAV-3-02's worked example).
            (Draft::Answer(answer, used), Some(reason)) => {
                if quotes_a_named_instance(&q, &answer) {
                    Draft::Answer(answer, used)
                } else {
                    tracing::info!("the passage does not name the node the graph could not read");
                    Draft::Abstain(reason)
                }
            }
            (draft, None) => draft,
        }
    };
    trace.stages_ms.insert("synthesize".into(), ms(t));
    let d = match (d, &trace.graph.read_as) {
        (Draft::Answer(mut answer, used), Some(read)) => {
            answer.limitations = format!("Read as \"{read}\". {}", answer.limitations)
                .trim_end()
                .to_owned();
            Draft::Answer(answer, used)
        }
        (d, _) => d,
    };
    let used = match &d {
        Draft::Answer(_, used) => used.clone(),
        Draft::Abstain(_) => Vec::new(),
    };
    trace.chunks = trace_chunks(&found.hits, found.selected, &used);
    Ok(d)
}

/// The words a question says beyond what the graph read, when they
/// outnumber the words the graph read (the names and kinds the grounder
/// found), dates aside, or, for a question about a class (no named node),
/// when one of them is what the question asks of the class or a value
/// (dq:cue_number, dq:cue_quantity) or the question asks how, why or when
/// (dq:cue_manner). "The cooling tower on the Building A roof - what kind
/// of sticky summer day was it sized for …" reads "cooling tower" and
/// "Building A" and leaves seven words: where the tower is located does
/// not answer it, while "the june 2024 log entry puts vav3-02 on ahu1 -
/// which unit actually supplies it" leaves "log" and "entry" besides its
/// date. "title 24 zone w/ an occupancy sensor - when the room's empty,
/// what does the box's occupied min airflow drop to" reads "occupancy
/// sensor" and leaves seven words; "what's the cal interval for the
/// outside air temp sensors" asks the interval ("interval for"). The
/// class's points (every occupancy or outside air temperature sensor of
/// the campus) answer neither. A word left beside a longer class ("chw
/// supply temp setpoint point for the plant") is a qualifier the answer
/// keeps in view. A word is read as it is spelled out (`spelled`:
/// "freq" is "frequency", "co2 sensor cal freq?" asks a value).
fn beyond_the_reading<'a>(
    q: &Question,
    cues: &crate::text::Cues,
    unread: &'a [String],
    spelled: impl Fn(&str) -> String,
) -> Option<Vec<&'a str>> {
    let left: Vec<&str> = unread.iter().map(String::as_str).collect();
    // A date says which record a question's claim comes from ("the june
    // 2024 log entry puts vav3-02 on ahu1"), not what it asks of a node.
    let undated = left
        .iter()
        .filter(|w| !crate::text::names_a_month(w) && !w.chars().all(|c| c.is_ascii_digit()))
        .count();
    // What the grounder read of the question: the names it matched and
    // the kinds it found.
    let spans = q
        .grounding
        .entities
        .iter()
        .map(|e| e.span)
        .chain(q.grounding.kind_mentions().map(|(span, _)| span))
        .map(|span| (span.start, span.end));
    let read_text = crate::text::masked(&q.lower, spans, true);
    let read = crate::text::words(&read_text).len();
    let outnumbered = read > 0 && left.len() > read;
    if q.grounding
        .entities
        .iter()
        .any(|e| e.kind != EntityKind::Class)
    {
        return (read > 0 && undated > read).then_some(left);
    }
    let asked_of = q
        .words
        .windows(2)
        .any(|w| matches!(w[1].as_str(), "for" | "of") && left.contains(&w[0].as_str()));
    // "how should the co2 sensors be calibrated", "why do they drift",
    // "when are they replaced": asked how, why or when (not how many), with
    // a word the reading left, the class's points answer none of it; nor
    // do they state the value a word the reading left asks for ("co2
    // sensor replacement threshold?", "cal interval": dq:cue_number,
    // dq:cue_quantity).
    let manner = !q.reading.count
        && !left.is_empty()
        && q.words.iter().any(|w| cues.is(crate::text::Cue::Manner, w));
    let value = left.iter().any(|w| {
        let w = spelled(w);
        cues.asking_value().any(|c| *c == w)
    });
    (outnumbered || asked_of || manner || value).then_some(left)
}

/// Whether an answer's quoted passages name one of the instances the
/// question names (by label, case and punctuation aside: "AHU-3" in
/// "Unit: AHU-3;"), or the question names none.
fn quotes_a_named_instance(q: &Question, answer: &Answer) -> bool {
    let names: Vec<String> = q
        .grounding
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Instance)
        .map(|e| crate::text::squash(&e.label))
        .filter(|n| !n.is_empty())
        .collect();
    names.is_empty()
        || answer
            .evidence
            .iter()
            .filter_map(|e| e.excerpt.as_deref())
            .map(crate::text::squash)
            .any(|t| names.iter().any(|n| t.contains(n.as_str())))
}

/// A composed answer about supply, checked against the documents: a
/// passage that states another supplier is cited as overruled (graph truth
/// wins), as for the fact answers. The graph answer never depends on the
/// documents: when they cannot be searched (the index down), it stands as
/// it is, with a warning in the trace.
#[allow(clippy::too_many_arguments)]
async fn contradicted(
    state: &AppState,
    cfg: &AnswerConfig,
    r: &Request,
    snap: &Snapshot,
    view: GraphView<'_>,
    q: &Question,
    supplied: Option<(String, String)>,
    answer: Answer,
    trace: &mut Trace,
) -> Answer {
    let t = Instant::now();
    let composed = trace.graph.clone();
    let found = contradictions(state, cfg, r, snap, view, q, supplied, trace).await;
    trace.graph = composed;
    trace.stages_ms.insert("conflicts".into(), ms(t));
    let conflicts = match found {
        Ok(c) => c,
        Err(fault) => {
            tracing::warn!(error = %fault, "documents not checked for contradictions");
            trace.warnings.push(
                "the documents could not be searched for contradictions; the graph answer stands"
                    .into(),
            );
            return answer;
        }
    };
    overruled(answer, conflicts, trace)
}

/// The graph answer with the passages that say otherwise cited as
/// overruled: each one's sentence in the answer, its note in the
/// limitations and the trace, its chunk in the evidence.
fn overruled(mut answer: Answer, conflicts: Vec<conflict::Conflict>, trace: &mut Trace) -> Answer {
    trace.conflicts = conflicts.iter().map(|c| c.note.clone()).collect();
    for c in conflicts {
        answer.answer.push(' ');
        answer.answer.push_str(&c.text);
        answer.limitations.push(' ');
        answer.limitations.push_str(&c.note);
        answer.evidence.push(c.evidence);
        answer.timestamp = super::compose::newest([answer.timestamp.clone(), c.updated_at]);
    }
    answer
}

/// The passages that contradict the graph's supply facts about the
/// question's subject (none without a document service).
#[allow(clippy::too_many_arguments)]
async fn contradictions(
    state: &AppState,
    cfg: &AnswerConfig,
    r: &Request,
    snap: &Snapshot,
    view: GraphView<'_>,
    q: &Question,
    supplied: Option<(String, String)>,
    trace: &mut Trace,
) -> Result<Vec<conflict::Conflict>, Fault> {
    let docs = state.docs();
    let Some(docs) = docs.as_deref() else {
        return Ok(Vec::new());
    };
    // The composed answer is about supply, whatever words said so ("will
    // room a-302 lose air if ahu-1 trips"): the documents are checked
    // against the graph's supply facts of the nodes it names, the node
    // whose supply a yes/no asks of first.
    let mut q = q.clone();
    let (at, stopped) = match &supplied {
        Some((n, stopped)) => (q.named.iter().position(|x| x == n), Some(stopped.as_str())),
        None => (None, None),
    };
    if let Some(at) = at {
        let n = q.named.remove(at);
        q.named.insert(0, n);
    }
    if !q.reading.asks_feeds() {
        q.reading.push(Intent::Downstream);
    }
    let q = &q;
    let step = gather::graph(state.store.as_ref(), view, q, trace).await?;
    // No supply fact of the old fact builders: nothing a passage could
    // contradict, so nothing to search; but the composed yes/no is one.
    if at.is_none() && !step.facts.iter().any(|f| !f.negative) {
        return Ok(Vec::new());
    }
    let found =
        gather::documents(Some(docs), cfg, q, &step.graph_ids, r.top_k, true, trace).await?;
    let asked: Vec<String> = at.and(stopped).map(str::to_owned).into_iter().collect();
    let scan = conflict_scan(q, &step, &found, r.top_k).map(|s| conflict::Scan { asked, ..s });
    let decisions = &mut trace.retrieval.decisions;
    let conflicts = scan_conflicts(docs, cfg, snap, view, scan, decisions).await?;
    let used: Vec<usize> = conflicts.iter().filter_map(|c| c.used).collect();
    trace.chunks = trace_chunks(&found.hits, found.selected, &used);
    Ok(conflicts)
}

/// A document answer to what feeds a named node, or whether a unit does,
/// that quotes a sentence the building graph contradicts ("2024-06-11 —
/// VAV-3-02 (served by AHU-1): occupants of conference room A-302 …",
/// asked which AHU the conference room is fed from) is no answer: graph
/// truth wins. The passages are read as the conflict scan reads them, for
/// equipment of the kinds the question asks; returns the conflicts in
/// quoted sentences (in the trace too), none when the quote stands.
#[allow(clippy::too_many_arguments)]
async fn contradicted_quote(
    docs: Option<&DocService>,
    cfg: &AnswerConfig,
    snap: &Snapshot,
    view: GraphView<'_>,
    q: &Question,
    (step, found, top_k): (&gather::GraphStep, &Retrieval, usize),
    answer: &Answer,
    trace: &mut Trace,
) -> Result<Vec<conflict::Conflict>, Fault> {
    let Some(docs) = docs else {
        return Ok(Vec::new());
    };
    if !q.reading.asks_feeds() || q.named.is_empty() {
        return Ok(Vec::new());
    }
    let asked: Vec<String> = q
        .grounding
        .equipment_types
        .iter()
        .filter_map(|t| t.brick_class.as_deref())
        .map(crate::vocab::class_iri)
        .flat_map(|k| view.instances_of(&k).map(str::to_owned).collect::<Vec<_>>())
        .collect();
    if asked.is_empty() {
        return Ok(Vec::new());
    }
    let scan = conflict_scan(q, step, found, top_k).map(|s| conflict::Scan { asked, ..s });
    let conflicts =
        scan_conflicts(docs, cfg, snap, view, scan, &mut trace.retrieval.decisions).await?;
    let quoted: Vec<String> = answer
        .evidence
        .iter()
        .filter_map(|e| e.excerpt.as_deref())
        .map(crate::text::squash)
        .collect();
    let quoted: Vec<conflict::Conflict> = conflicts
        .into_iter()
        .filter(|c| {
            c.evidence
                .excerpt
                .as_deref()
                .map(crate::text::squash)
                .is_some_and(|s| quoted.iter().any(|q| q.contains(&s)))
        })
        .collect();
    if !quoted.is_empty() {
        tracing::info!(
            conflicts = quoted.len(),
            "the quoted passage says what the building graph does not; not quoted as the answer"
        );
        trace.conflicts = quoted.iter().map(|c| c.note.clone()).collect();
    }
    Ok(quoted)
}

/// A documents answer whose quoted sentence relates a node to equipment
/// the building graph does not relate it to ("2024-06-11 — VAV-3-02
/// (served by AHU-1): …", quoted for what was wrong with the conference
/// room's CO2 reading): the quote stands for what else it says, and the
/// answer says what the graph has, cites the graph for it and notes the
/// conflict (graph truth wins). `quoted`: the hits the answer quotes.
async fn noted_against_graph(
    state: &AppState,
    snap: &Snapshot,
    view: GraphView<'_>,
    mut answer: Answer,
    (hits, quoted): (&[Scored], &[usize]),
    trace: &mut Trace,
) -> Result<Answer, Fault> {
    let documents: Vec<&str> = quoted
        .iter()
        .filter_map(|i| hits.get(*i))
        .map(|h| h.hit.payload.source_ref.as_str())
        .collect();
    let mut found: Vec<(String, conflict::Against)> = Vec::new();
    for e in &answer.evidence {
        let (Some(excerpt), Some(file)) = (&e.excerpt, e.file_paths.first()) else {
            continue;
        };
        if !documents.contains(&file.as_str()) {
            continue;
        }
        for sentence in crate::text::sentences(excerpt) {
            for a in conflict::against_graph(&snap.cues, &snap.grounder, view.topo, &sentence) {
                if !found
                    .iter()
                    .any(|(_, b)| b.node == a.node && b.said == a.said)
                {
                    found.push((file.clone(), a));
                }
            }
        }
    }
    if found.is_empty() {
        return Ok(answer);
    }
    tracing::info!(
        conflicts = found.len(),
        "a quoted sentence says of supply what the building graph does not; the graph noted beside it"
    );
    let name = |n: &String| query::read::name_of(view, n);
    for (file, a) in found {
        let node = name(&a.node);
        let feeders = a.feeders.iter().map(name).collect::<Vec<_>>().join(", ");
        let said = a.said.iter().map(name).collect::<Vec<_>>().join(", ");
        let note = format!(
            "Conflict: {file} associates {node} with {said}, which the building graph does not; graph truth wins."
        );
        answer.answer.push_str(&format!(
            " The building graph has {node} fed by {feeders}, not {said}."
        ));
        answer.limitations.push(' ');
        answer.limitations.push_str(&note);
        trace.conflicts.push(note);
        let ids: Vec<String> = std::iter::once(a.node).chain(a.feeders).collect();
        let stating = query::files_stating(state.store.as_ref(), &ids).await?;
        for ((_, path), (ids, record)) in stating {
            answer.evidence.push(super::EvidenceItem {
                graph_ids: ids,
                file_paths: vec![path],
                excerpt: Some(format!("{node} is fed by {feeders}")),
                source_sha: Some(record.sha256.clone()),
            });
            answer.timestamp =
                super::compose::newest([answer.timestamp.clone(), record.updated_at.to_rfc3339()]);
        }
    }
    Ok(answer)
}

/// When the passage the documents would quote says otherwise than the
/// graph about what feeds a named node ([`contradicted_quote`]): the
/// graph's answer to that relation, asked in its own words ("which air
/// handling unit feeds Room A-302?"), with the passage cited as
/// overruled. None when the graph reader does not answer that either.
async fn graph_instead(
    state: &AppState,
    snap: &Snapshot,
    view: GraphView<'_>,
    q: &Question,
    conflicts: Vec<conflict::Conflict>,
    trace: &mut Trace,
) -> Result<Option<Draft>, Fault> {
    let Some(subject) = q.subject(view) else {
        return Ok(None);
    };
    let Some(kind) = q
        .grounding
        .equipment_types
        .iter()
        .find_map(|t| t.brick_class.as_deref())
    else {
        return Ok(None);
    };
    let kind = query::read::class_words(view, &crate::vocab::class_iri(kind));
    let named = query::read::name_of(view, &subject);
    let text = format!("which {} feeds {named}?", kind.to_lowercase());
    let asked = question(snap, &text, view);
    let mut composed = trace.clone();
    let outcome = query::answer(
        state.store.as_ref(),
        view,
        &asked,
        &snap.cues,
        &mut composed,
    )
    .await?;
    let query::Outcome::Drafted {
        draft: Draft::Answer(answer, used),
        about_supply: true,
        ..
    } = outcome
    else {
        return Ok(None);
    };
    tracing::info!(
        "the graph answers what feeds the named node in place of the contradicted passage"
    );
    *trace = composed;
    let mut answer = overruled(answer, conflicts, trace);
    answer.limitations = format!(
        "The passage the documents hold says otherwise than the building graph, which answers. {}",
        answer.limitations
    );
    trace.graph.read_as = Some(text);
    Ok(Some(Draft::Answer(answer, used)))
}

/// What the conflict scan reads: the question, the graph step's facts and
/// the retrieved passages; none when the documents were not searched.
fn conflict_scan<'a>(
    q: &'a Question,
    step: &'a gather::GraphStep,
    found: &'a Retrieval,
    top_k: usize,
) -> Option<conflict::Scan<'a>> {
    Some(conflict::Scan {
        question: q,
        facts: &step.facts,
        graph_ids: &step.graph_ids,
        vector: found.vector.as_deref()?,
        top_k,
        hits: &found.hits,
        asked: Vec::new(),
    })
}

/// The passages that contradict a graph fact (none without a scan).
async fn scan_conflicts(
    docs: &DocService,
    cfg: &AnswerConfig,
    snap: &Snapshot,
    view: GraphView<'_>,
    scan: Option<conflict::Scan<'_>>,
    decisions: &mut Vec<String>,
) -> Result<Vec<conflict::Conflict>, Fault> {
    let Some(scan) = scan else {
        return Ok(Vec::new());
    };
    let index = docs.ingestor().index();
    let (grounder, cues) = (&snap.grounder, &snap.cues);
    Ok(conflict::scan(index.as_ref(), cfg, view, grounder, cues, scan, decisions).await?)
}

/// Steps 7–9: the contract, checked; a failed check abstains.
async fn finish(state: &AppState, draft: Draft, trace: &mut Trace) -> (Answer, Option<Refusal>) {
    let reason = match draft {
        Draft::Abstain(reason) => reason,
        Draft::Answer(answer, _) => {
            match ContractChecker::check(state.store.as_ref(), &answer).await {
                Ok(Ok(())) => return (answer, None),
                Ok(Err(failure)) => {
                    tracing::warn!(failure = %failure, "answer failed its check; abstaining");
                    trace
                        .warnings
                        .push(format!("answer failed its check: {failure}"));
                    Reason::CheckFailed(failure.to_string())
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot check the answer; abstaining");
                    Reason::CheckUnavailable
                }
            }
        }
    };
    let kind = reason.refusal_type();
    tracing::info!(refusal = ?kind, "abstaining");
    (
        Answer::unknown(reason.limitations(), reason.next_step()),
        Some(Refusal {
            reason: kind.message().to_owned(),
            refusal_type: kind,
        }),
    )
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
            bm25: s.bm25,
            fused: s.fused,
            reranked: s.reranked,
            boosts: s.boosts.clone(),
            selected: i < selected,
            used: used.contains(&i),
        })
        .collect()
}

/// The `/retrieve` response: graph facts and chunks, no synthesis.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct RetrieveResponse {
    /// Graph facts.
    pub facts: Vec<Fact>,
    /// Chunks that reach synthesis, with text and payload fields.
    pub chunks: Vec<RetrievedChunk>,
    /// The trace.
    pub trace: Trace,
    /// Request id and timing.
    pub metadata: Metadata,
}

/// A chunk that reaches synthesis, as `/retrieve` returns it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct RetrievedChunk {
    /// Vector point id.
    pub id: String,
    /// Cosine similarity to the question.
    pub score: f32,
    /// BM25 score, when the lexical search found it.
    pub bm25: Option<f32>,
    /// Reciprocal rank fusion of the vector and BM25 rankings.
    pub fused: f32,
    /// Fused score after the boosts.
    pub reranked: f32,
    /// The chunk's payload (`schemas/chunk_payload.schema.json`).
    pub payload: crate::vector::ChunkPayload,
}

/// Retrieval only: steps 1–5.
pub async fn retrieve(
    state: &AppState,
    req: ChatRequest,
) -> Result<RetrieveResponse, RetrieveError> {
    let request_id = request_id(&req);
    let r = request::validate(req)?;
    let started = Instant::now();
    let cfg = state.answer_config();
    let mut trace = Trace::default();
    let snap = state.snapshot();
    let q = read(&snap, &r.query, &mut trace);
    if q.grounding.is_empty() {
        trace
            .warnings
            .push("grounding found no concept in the question; retrieval is vanilla".into());
    }
    let view = GraphView::new(&snap.topology, &snap.ontology);
    let step = gather::graph(state.store.as_ref(), view, &q, &mut trace).await?;
    let docs = state.docs();
    let found = gather::documents(
        docs.as_deref(),
        &cfg,
        &q,
        &step.graph_ids,
        r.top_k,
        false,
        &mut trace,
    )
    .await?;
    trace.chunks = trace_chunks(&found.hits, found.selected, &[]);
    let chunks = found
        .hits
        .into_iter()
        .take(found.selected)
        .map(|s| RetrievedChunk {
            id: s.hit.id.to_string(),
            score: s.hit.score,
            bm25: s.bm25,
            fused: s.fused,
            reranked: s.reranked,
            payload: s.hit.payload,
        })
        .collect();
    Ok(RetrieveResponse {
        facts: step.facts,
        chunks,
        metadata: Metadata {
            request_id,
            processing_time_ms: started.elapsed().as_millis() as u64,
            chunks_retrieved: trace.chunks.len(),
            session_id: r.session_id,
        },
        trace,
    })
}

#[cfg(test)]
mod tests {
    use super::head_noun;

    #[test]
    fn a_class_is_named_by_its_head_noun() {
        assert_eq!(
            head_noun("Variable Air Volume Box With Reheat").as_deref(),
            Some("box")
        );
        assert_eq!(head_noun("Chilled Water Pump").as_deref(), Some("pump"));
        assert_eq!(head_noun("Air_Handling_Unit").as_deref(), Some("unit"));
        assert_eq!(
            head_noun("Damper for Outside Air").as_deref(),
            Some("damper")
        );
        assert_eq!(head_noun("Level 2"), None);
        assert_eq!(head_noun(""), None);
    }
}
