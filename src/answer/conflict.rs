//! Documents that contradict the graph. For a feeds question answered from
//! the graph, the chunks linked to its subject are read for a sentence that
//! relates the subject to equipment the graph does not relate it to (the
//! service log's "VAV-3-02 (served by AHU-1)" where the graph says AHU-2).
//! Graph truth wins: the answer keeps the graph's value, cites the document
//! as overruled, and says so in `limitations`.

use super::question::Question;
use super::retrieve::{self, Scored};
use super::view::GraphView;
use super::{EvidenceItem, Fact};
use crate::config::AnswerConfig;
use crate::ground::{Entity, EntityKind, Grounder};
use crate::text::{Cue, Cues, sentences, words};
use crate::topology::{Topology, Way};
use crate::vector::{MatchAny, Search, VectorIndex, VectorResult};
use std::collections::HashSet;

/// A document sentence the graph overrules.
#[derive(Debug, Clone)]
pub struct Conflict {
    /// What `limitations` and the trace say.
    pub note: String,
    /// What the answer says about it.
    pub text: String,
    /// The overruled passage, cited.
    pub evidence: EvidenceItem,
    /// When the document changed.
    pub updated_at: String,
    /// Its position among the retrieved chunks, when it was retrieved.
    pub used: Option<usize>,
}

/// What the conflict scan reads.
pub struct Scan<'a> {
    /// The question.
    pub question: &'a Question,
    /// The graph facts that answer it.
    pub facts: &'a [Fact],
    /// Graph ids of the graph step (they boost linked chunks).
    pub graph_ids: &'a [String],
    /// The question's embedding.
    pub vector: &'a [f32],
    /// Chunks to fetch, before the fetch factor.
    pub top_k: usize,
    /// The chunks retrieved for the answer.
    pub hits: &'a [Scored],
    /// Nodes of the kind the question asks whether or which feeds the
    /// subject, when no fact answers that: the node a yes/no says stops
    /// ("will room a-302 lose air if ahu-1 trips": AHU-1), or the
    /// building's equipment of the kind asked ("what AHU is that room
    /// really fed from": the air handlers). A document relating the
    /// subject to other equipment of their kinds, and of no other kind,
    /// contradicts the graph. Empty: the kinds of the facts' answer.
    pub asked: Vec<String>,
}

/// Reads the chunks linked to a feeds question's subject for sentences the
/// graph contradicts. Records the search in `decisions`.
pub async fn scan(
    index: &dyn VectorIndex,
    cfg: &AnswerConfig,
    view: GraphView<'_>,
    grounder: &Grounder,
    cues: &Cues,
    s: Scan<'_>,
    decisions: &mut Vec<String>,
) -> VectorResult<Vec<Conflict>> {
    let q = s.question;
    let Some(subject) = q.reading.asks_feeds().then(|| q.subject(view)).flatten() else {
        return Ok(Vec::new());
    };
    let found = index
        .search(Search {
            vector: s.vector.to_vec(),
            limit: s.top_k * cfg.filter_fetch_factor.max(1),
            filter: Some(MatchAny {
                graph_ids: vec![subject.clone()],
                ..Default::default()
            }),
            exclude_source_id: None,
        })
        .await?;
    decisions.push(format!(
        "conflict scan: {} chunks linked to {subject}",
        found.len()
    ));
    let linked = retrieve::rerank(
        cfg,
        &q.grounding,
        s.graph_ids,
        retrieve::fuse(cfg, s.vector, found, Vec::new()),
    );
    let topo = view.topo;
    // The kind of equipment a contradicting document names: the graph
    // answer's, or the stopped node's when a yes/no asks whether it feeds
    // the subject (the other boxes of a range the AHU sequence lists are
    // no other feeder).
    let answer: Vec<String> = if s.asked.is_empty() {
        s.facts
            .iter()
            .flat_map(|f| f.graph_ids.iter().skip(1).cloned())
            .collect()
    } else {
        s.asked.clone()
    };
    let related = related_to(topo, &subject);
    let mut out: Vec<Conflict> = Vec::new();
    for chunk in linked
        .iter()
        .filter(|c| c.hit.payload.graph_ids.contains(&subject))
    {
        let p = &chunk.hit.payload;
        for sentence in sentences(&p.node_content) {
            let others =
                contradicting(cues, grounder, topo, &subject, &answer, &related, &sentence);
            if others.is_empty() {
                continue;
            }
            let names: Vec<&str> = others.iter().map(|o| topo.label(o).unwrap_or(o)).collect();
            let note = format!(
                "Conflict: {} ({}) associates {} with {}, which the building graph does not; graph truth wins.",
                p.source_ref,
                p.updated_at,
                topo.label(&subject).unwrap_or(&subject),
                names.join(", ")
            );
            if !out.iter().any(|c| c.note == note) {
                let mut ids = vec![subject.clone()];
                ids.extend(p.graph_ids.iter().filter(|g| others.contains(g)).cloned());
                ids.dedup();
                out.push(Conflict {
                    text: format!(
                        "{} says otherwise (\"{sentence}\"); the building graph wins.",
                        p.source_ref
                    ),
                    note,
                    evidence: EvidenceItem {
                        graph_ids: ids,
                        file_paths: vec![p.source_ref.clone()],
                        excerpt: Some(sentence.clone()),
                        source_sha: Some(p.source_sha.clone()),
                    },
                    updated_at: p.updated_at.clone(),
                    used: s.hits.iter().position(|h| h.hit.id == chunk.hit.id),
                });
            }
            break;
        }
    }
    Ok(out)
}

/// A sentence that states a feeds relation between `subject` and equipment
/// of the same kind as the graph's answer that the graph does not relate
/// to `subject`: returns that equipment's IRIs. The relation is stated by a
/// verb of supply anywhere in the sentence ("VAV-3-02 (served by AHU-1)"),
/// or by "on"/"off" standing right between the two names ("VAV-3-02 on
/// AHU-1"); an "on" elsewhere ("firmware loaded on the AHU-1 and AHU-3
/// boxes … VAV-1-01") relates nothing.
pub fn contradicting(
    cues: &Cues,
    grounder: &Grounder,
    topo: &Topology,
    subject: &str,
    answer: &[String],
    related: &HashSet<String>,
    sentence: &str,
) -> Vec<String> {
    let Some(relation) = relating(cues, grounder, sentence) else {
        return Vec::new();
    };
    contradicting_named(cues, topo, subject, answer, related, sentence, &relation)
}

/// A sentence that states a relation: the nodes it names, and whether a
/// verb of supply states it (else an "on"/"off" cue does).
struct Relating {
    named: Vec<Entity>,
    verb: bool,
}

/// The nodes a sentence names, when it states a relation: a verb of supply
/// or an "on"/"off" cue. None when it states none.
fn relating(cues: &Cues, grounder: &Grounder, sentence: &str) -> Option<Relating> {
    let said = words(sentence);
    let verb = cues.any(Cue::Relation, &said);
    if !verb && !cues.any(Cue::On, &said) {
        return None;
    }
    let named = grounder
        .ground(sentence)
        .entities
        .into_iter()
        .filter(|e| e.kind == EntityKind::Instance)
        .collect();
    Some(Relating { named, verb })
}

/// [`contradicting`] with the sentence's relation (`relation`) read.
fn contradicting_named(
    cues: &Cues,
    topo: &Topology,
    subject: &str,
    answer: &[String],
    related: &HashSet<String>,
    sentence: &str,
    relation: &Relating,
) -> Vec<String> {
    let named = &relation.named;
    let Some(subject_at) = named.iter().find(|e| e.iri == subject) else {
        return Vec::new();
    };
    let answer_types: Vec<&String> = answer.iter().flat_map(|a| topo.types(a)).collect();
    named
        .iter()
        .filter(|z| z.iri != subject && !related.contains(&z.iri))
        .filter(|z| topo.types(&z.iri).iter().any(|t| answer_types.contains(&t)))
        .filter(|z| relation.verb || joined_by_on(cues, sentence, subject_at, z))
        .map(|z| z.iri.clone())
        .collect()
}

/// What a quoted sentence says of a node's supply that the building graph
/// does not ([`against_graph`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Against {
    /// The node the sentence relates to other equipment.
    pub node: String,
    /// That equipment: the kind of what feeds the node in the graph, not
    /// related to it there.
    pub said: Vec<String>,
    /// What feeds the node in the graph, one hop (through what it is part
    /// of for a room).
    pub feeders: Vec<String>,
}

/// The nodes a sentence relates to equipment that the building graph does
/// not relate them to, of the kind of what feeds them there ("2024-06-11 —
/// VAV-3-02 (served by AHU-1): …" where AHU-2 feeds VAV-3-02), read as
/// [`contradicting`] reads a sentence about a question's subject, for each
/// named node that something feeds. A sentence that also names one of the
/// node's own feeders relates several units to their own equipment ("AHU-1
/// serves VAV-1-01 …; AHU-2 serves …") and is not read against it.
pub fn against_graph(
    cues: &Cues,
    grounder: &Grounder,
    topo: &Topology,
    sentence: &str,
) -> Vec<Against> {
    let Some(relation) = relating(cues, grounder, sentence) else {
        return Vec::new();
    };
    let named = &relation.named;
    let mut out: Vec<Against> = Vec::new();
    for x in named {
        let feeders: Vec<String> = topo
            .supply_walk(&x.iri, 1)
            .nodes()
            .map(str::to_owned)
            .collect();
        if feeders.is_empty()
            || named.iter().any(|z| feeders.contains(&z.iri))
            || out.iter().any(|a| a.node == x.iri)
        {
            continue;
        }
        let related = related_to(topo, &x.iri);
        let others =
            contradicting_named(cues, topo, &x.iri, &feeders, &related, sentence, &relation);
        if !others.is_empty() {
            // The graph's feeders of the kinds said (AHU-2, not the hot
            // water into the box's reheat coil).
            let kinds: Vec<&String> = others.iter().flat_map(|o| topo.types(o)).collect();
            let feeders = feeders
                .into_iter()
                .filter(|f| topo.types(f).iter().any(|t| kinds.contains(&t)))
                .collect();
            out.push(Against {
                node: x.iri.clone(),
                said: others,
                feeders,
            });
        }
    }
    out
}

/// What the graph relates a node to along feeds, what it is part of, and
/// what feeds those (a room is fed through the zone it is part of:
/// "conference room A-302 … fed by AHU-2" agrees with the graph): a
/// document naming those does not contradict it.
fn related_to(topo: &Topology, node: &str) -> HashSet<String> {
    topo.supply_walk(node, usize::MAX)
        .nodes()
        .chain(topo.walk(node, Way::Downstream, usize::MAX).nodes())
        .map(str::to_owned)
        .chain(topo.containers(node))
        .collect()
}

/// Whether only an "on"/"off" cue (and an article) stands between the two
/// names in `sentence`.
fn joined_by_on(cues: &Cues, sentence: &str, a: &Entity, b: &Entity) -> bool {
    let (first, second) = if a.span.start <= b.span.start {
        (a, b)
    } else {
        (b, a)
    };
    let Some(between) = sentence.get(first.span.end..second.span.start) else {
        return false;
    };
    let between: Vec<String> = words(between)
        .into_iter()
        .filter(|w| !matches!(w.as_str(), "the" | "a" | "an"))
        .collect();
    !between.is_empty() && cues.list(Cue::On).contains(&between.join(" "))
}
