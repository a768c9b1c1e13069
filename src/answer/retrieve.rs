//! Hybrid document search under the retrieval rules of
//! docs/ARCHITECTURE.md § Query (steps 4–5): the vectors and the lexical
//! (BM25) index are searched alike — filtered (match-any on graph ids,
//! `equip`, `brick_equip`, `ptags`) when the grounding is confident and
//! names an entity or non-generic equipment, vanilla otherwise or when the
//! filter finds nothing — the two rankings are fused by reciprocal rank,
//! then the multiplicative rerank applies to the fused score.
//!
//! Every chunk keeps its cosine similarity to the question (a chunk only
//! the lexical side found is measured against its stored vector), because
//! the refusal rules (relevance floor, confidence) are stated on cosines.

use std::collections::HashMap;

use super::RetrievalTrace;
use super::question::Question;
use crate::config::AnswerConfig;
use crate::ground::{EntityKind, Grounding};
use crate::vector::{Hit, LexicalHit, LexicalSearch, MatchAny, Search, VectorIndex, VectorResult};

/// A hit with its fused and reranked scores.
#[derive(Debug, Clone)]
pub struct Scored {
    /// The hit, its score the cosine similarity to the question.
    pub hit: Hit,
    /// BM25 score when the lexical search found it.
    pub bm25: Option<f32>,
    /// Reciprocal rank fusion of the two rankings, scaled so that first in
    /// both is 1.
    pub fused: f32,
    /// Fused score after the boosts.
    pub reranked: f32,
    /// Which boosts applied.
    pub boosts: Vec<String>,
}

/// A chunk found by either search, before the boosts.
#[derive(Debug, Clone)]
pub struct Fused {
    /// The hit, its score the cosine similarity.
    pub hit: Hit,
    /// BM25 score, when the lexical search found it.
    pub bm25: Option<f32>,
    /// The fused score.
    pub fused: f32,
    /// How many of the question's words name the chunk's document (words of
    /// its path).
    pub named_document: usize,
    /// Whether the chunk holds a dated record of a date the question names
    /// ([`mark_dated_records`]).
    pub dated: bool,
    /// How the chunk names every operating mode the question names
    /// ([`mark_modes`]).
    pub mode: ModeNamed,
}

/// Reciprocal rank fusion of the dense and the lexical ranking: a chunk at
/// rank r (from 1) of a ranking scores weight / (k + r), dense weight 1 and
/// lexical `cfg.lexical_weight`; the sum is divided by what first in both
/// would score. Equal scores share a rank (the same passage in an HTML and
/// a PDF edition scores alike on BM25, and the engines return tied hits in
/// no fixed order), so the fusion never depends on the engine's tie order.
/// A chunk only the lexical side found gets its cosine from its stored
/// vector.
pub fn fuse(
    cfg: &AnswerConfig,
    query: &[f32],
    dense: Vec<Hit>,
    lexical: Vec<LexicalHit>,
) -> Vec<Fused> {
    let k = cfg.rrf_k.max(0.0);
    let w = cfg.lexical_weight.max(0.0);
    let best = (1.0 + w) / (k + 1.0);
    let mut out: Vec<Fused> = Vec::with_capacity(dense.len() + lexical.len());
    let mut at: HashMap<uuid::Uuid, usize> = HashMap::new();
    let dense_ranks = tied_ranks(&dense.iter().map(|h| h.score).collect::<Vec<_>>());
    for (hit, r) in dense.into_iter().zip(dense_ranks) {
        at.insert(hit.id, out.len());
        out.push(Fused {
            hit,
            bm25: None,
            fused: 1.0 / (k + r as f32),
            named_document: 0,
            dated: false,
            mode: ModeNamed::No,
        });
    }
    if w > 0.0 {
        let lexical_ranks = tied_ranks(&lexical.iter().map(|h| h.bm25).collect::<Vec<_>>());
        for (l, r) in lexical.into_iter().zip(lexical_ranks) {
            let part = w / (k + r as f32);
            match at.get(&l.id) {
                Some(&i) => {
                    out[i].bm25 = Some(l.bm25);
                    out[i].fused += part;
                }
                None => {
                    at.insert(l.id, out.len());
                    out.push(Fused {
                        hit: Hit {
                            id: l.id,
                            score: crate::embed::cosine(query, &l.vector),
                            payload: l.payload,
                        },
                        bm25: Some(l.bm25),
                        fused: part,
                        named_document: 0,
                        dated: false,
                        mode: ModeNamed::No,
                    });
                }
            }
        }
    }
    for f in &mut out {
        f.fused /= best;
    }
    out
}

/// Competition ranks (1, 2, 2, 4 …) of scores in the engine's order, best
/// first; scores equal at 1e-5 share the rank of the first of them, so two
/// engines (or two runs of one) that order tied hits differently rank them
/// alike.
fn tied_ranks(scores: &[f32]) -> Vec<usize> {
    let q = quantized;
    let mut ranks = Vec::with_capacity(scores.len());
    for (i, s) in scores.iter().enumerate() {
        let r = match i.checked_sub(1) {
            Some(p) if q(scores[p]) == q(*s) => ranks[p],
            _ => i + 1,
        };
        ranks.push(r);
    }
    ranks
}

/// The outcome of the retrieval step.
#[derive(Debug, Clone, Default)]
pub struct Retrieved {
    /// Every hit, reranked, best first.
    pub hits: Vec<Scored>,
    /// The decisions taken.
    pub trace: RetrievalTrace,
}

/// The filter a grounding and the graph step give, or why there is none.
/// The Brick classes `broader` than those the grounding names
/// ([`Question::broader`]) match too: a sequence for terminal units is
/// about the VAV box with reheat asked about.
pub fn decide_filter(
    cfg: &AnswerConfig,
    g: &Grounding,
    graph_ids: &[String],
    broader: &[String],
) -> Result<MatchAny, String> {
    if g.gconf < cfg.grounded_min_conf {
        return Err(format!(
            "grounding confidence {:.2} < {:.2}: vanilla retrieval",
            g.gconf, cfg.grounded_min_conf
        ));
    }
    let f = g.payload_fields();
    let named = g
        .entities
        .iter()
        .any(|e| matches!(e.kind, EntityKind::Instance | EntityKind::Product));
    let specific: Vec<String> = f
        .equip
        .iter()
        .filter(|k| !cfg.generic_equip.iter().any(|x| x.eq_ignore_ascii_case(k)))
        .cloned()
        .collect();
    if !named && specific.is_empty() {
        return Err(if f.equip.is_empty() {
            "the question names no entity and no equipment: vanilla retrieval".to_owned()
        } else {
            format!(
                "only generic equipment ({}): vanilla retrieval",
                f.equip.join(", ")
            )
        });
    }
    let mut ids: Vec<String> = g
        .entities
        .iter()
        .filter(|e| matches!(e.kind, EntityKind::Instance | EntityKind::Product))
        .map(|e| e.iri.clone())
        .collect();
    for id in graph_ids {
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    let mut brick_equip = f.brick_equip;
    for c in broader {
        if !brick_equip.contains(c) {
            brick_equip.push(c.clone());
        }
    }
    Ok(MatchAny {
        graph_ids: ids,
        equip: specific,
        brick_equip,
        ptags: f.ptags,
    })
}

/// Whether `a` and `b` share an item.
pub(crate) fn overlaps<A: AsRef<str>>(a: &[A], b: &[String]) -> bool {
    a.iter().any(|x| b.iter().any(|y| y == x.as_ref()))
}

/// Applies the configured boosts to the fused scores and sorts best
/// first, the chunks holding a dated record of a date the question names
/// ([`mark_dated_records`]) ahead of the rest, whatever else is linked to
/// what it names: the plant manual's sequence does not say what was done
/// on 2026-04-06.
pub fn rerank(
    cfg: &AnswerConfig,
    g: &Grounding,
    graph_ids: &[String],
    hits: Vec<Fused>,
) -> Vec<Scored> {
    let f = g.payload_fields();
    let named: Vec<String> = g
        .entities
        .iter()
        .filter(|e| matches!(e.kind, EntityKind::Instance | EntityKind::Product))
        .map(|e| e.iri.clone())
        .chain(graph_ids.iter().cloned())
        .collect();
    let mut out: Vec<(bool, Scored)> = hits
        .into_iter()
        .map(
            |Fused {
                 hit,
                 bm25,
                 fused,
                 named_document,
                 dated,
                 mode,
             }| {
                let p = &hit.payload;
                let mut score = fused;
                let mut boosts = Vec::new();
                let rules = [
                    ("equip", cfg.boost_equip, overlaps(&p.equip, &f.equip)),
                    (
                        "brick_equip",
                        cfg.boost_brick,
                        overlaps(&p.brick_equip, &f.brick_equip),
                    ),
                    ("ptags", cfg.boost_ptags, overlaps(&p.ptags, &f.ptags)),
                    ("graph_ids", cfg.boost_graph, overlaps(&p.graph_ids, &named)),
                ];
                for (name, factor, applies) in rules {
                    if applies {
                        score *= factor;
                        boosts.push(name.to_owned());
                    }
                }
                // Each of up to two words of the question that name the
                // document ("g36 … reheat" names TerminalUnits_Reheat_… under
                // docs/g36/ twice, northfield_soo_vav.md's "vav" once).
                let words = named_document.min(MAX_DOCUMENT_WORDS);
                if words > 0 {
                    score *= cfg.boost_document.powi(words as i32);
                    boosts.push(if words == 1 {
                        "document".to_owned()
                    } else {
                        format!("document ({words} words)")
                    });
                }
                if dated {
                    score *= cfg.boost_document;
                    boosts.push("dated record".to_owned());
                }
                match mode {
                    ModeNamed::No => {}
                    ModeNamed::InText => {
                        score *= cfg.boost_mode;
                        boosts.push("mode".to_owned());
                    }
                    ModeNamed::InHeading => {
                        score *= cfg.boost_mode.powi(2);
                        boosts.push("mode (heading)".to_owned());
                    }
                }
                (
                    dated,
                    Scored {
                        hit,
                        bm25,
                        fused,
                        reranked: score,
                        boosts,
                    },
                )
            },
        )
        .collect();
    out.sort_by(|(da, a), (db, b)| db.cmp(da).then_with(|| rank_order(a, b)));
    out.into_iter().map(|(_, s)| s).collect()
}

/// Best first: reranked score, then raw score, each compared at 1e-5 (two
/// engines can differ in the last bits of the same cosine); ties (the same
/// passage in an HTML and a PDF edition) go to the newer document, then by
/// path and position, so the order never depends on the engine's.
fn rank_order(a: &Scored, b: &Scored) -> std::cmp::Ordering {
    let q = quantized;
    q(b.reranked)
        .cmp(&q(a.reranked))
        .then_with(|| q(b.hit.score).cmp(&q(a.hit.score)))
        .then_with(|| b.hit.payload.updated_at.cmp(&a.hit.payload.updated_at))
        .then_with(|| a.hit.payload.source_ref.cmp(&b.hit.payload.source_ref))
        .then_with(|| a.hit.payload.chunk_index.cmp(&b.hit.payload.chunk_index))
}

/// A score at the 1e-5 at which two scores count as equal (two engines
/// can differ in the last bits of the same cosine or BM25 score).
fn quantized(x: f32) -> i64 {
    (f64::from(x) * 1e5).round() as i64
}

/// The two searches with one filter (or none).
async fn both(
    index: &dyn VectorIndex,
    cfg: &AnswerConfig,
    vector: &[f32],
    text: &str,
    limit: usize,
    filter: Option<MatchAny>,
) -> VectorResult<(Vec<Hit>, Vec<LexicalHit>)> {
    let dense = index
        .search(Search {
            vector: vector.to_vec(),
            limit,
            filter: filter.clone(),
            exclude_source_id: None,
        })
        .await?;
    let lexical = if cfg.lexical_weight > 0.0 {
        index
            .lexical(LexicalSearch {
                text: text.to_owned(),
                limit,
                filter,
            })
            .await?
    } else {
        Vec::new()
    };
    Ok((dense, lexical))
}

/// The most words of a question that each boost a document it names.
const MAX_DOCUMENT_WORDS: usize = 2;

/// Marks the chunks whose document the question names, with how many of
/// its words do: a word of the question (stemmed, stop words out, as the
/// lexical index reads it) that is a word of the document's path ("per
/// g36" names `docs/g36/…`, "in the service log"
/// `…/northfield_service_log.md`). Path words are split at separators and
/// case changes (`TerminalUnits_Reheat` → terminal units reheat). Returns
/// how many chunks are named.
pub fn mark_named_documents(text: &str, hits: &mut [Fused]) -> usize {
    let asked: std::collections::HashSet<u32> = crate::vector::lexical::query(text)
        .indices
        .into_iter()
        .collect();
    let mut n = 0;
    for f in hits.iter_mut() {
        f.named_document = path_terms(&f.hit.payload.source_ref)
            .intersection(&asked)
            .count();
        n += usize::from(f.named_document > 0);
    }
    n
}

/// Marks the chunks that hold a dated record ("2025-06-18 — VAV-2-14: …",
/// a line that opens with an ISO date) of a date the question names ("in
/// june 2025", "feb 25", "2025-06-18", "summer 2025":
/// [`crate::text::dated`]; a record of the day holds the month and the
/// season, [`crate::text::date_holds`]). A question that names a date asks what
/// happened then, and the record of it is the passage that answers, ahead
/// of a sequence about the same equipment. `dates`: [`dates_named`].
/// Returns how many are marked.
pub fn mark_dated_records(dates: &[String], hits: &mut [Fused]) -> usize {
    let mut n = 0;
    for f in hits.iter_mut() {
        f.dated = !dates.is_empty()
            && f.hit.payload.node_content.lines().any(|line| {
                let first = line.split_whitespace().next().unwrap_or_default();
                dates.iter().any(|d| crate::text::date_holds(d, first))
            });
        n += usize::from(f.dated);
    }
    n
}

/// The dates a question names, as dated records write them ("feb 25" is
/// "2025-02", "summer 2025" "2025-06/2025-08": [`crate::text::dated`]).
pub fn dates_named(text: &str) -> Vec<String> {
    crate::text::dated(&crate::text::words(text))
        .into_iter()
        .filter(|w| crate::text::is_date_term(w))
        .collect()
}

/// How a chunk names the operating modes a question names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModeNamed {
    /// Not every one of them, or the question names none.
    #[default]
    No,
    /// Every one, in its text: the chunk speaks of the mode (a sequence's
    /// paragraph on its boxes in warm-up, a mode table's row).
    InText,
    /// Every one, in its own heading: the chunk is about the mode ("During
    /// Cool-down modes (uOpeMod=3)"), not a list that names it among
    /// others (a zone group's mode hierarchy).
    InHeading,
}

/// Marks the chunks that name every operating mode the question names
/// (`dq:cue_mode`: "during cooldown", "in warm-up"), each as one word or
/// one compound ("Cool-down modes", "Warm-up"), not by a word of the same
/// root ("cooling"): a passage that answers must name the mode
/// ([`super::question::NamedKind::form`]), so the one that does ranks
/// ahead of a sequence's overview of the same equipment; the one under a
/// heading that names it, ahead of those that name it in passing.
/// Returns how many are marked.
pub fn mark_modes(q: &Question, hits: &mut [Fused]) -> usize {
    let modes: Vec<&super::question::NamedKind> =
        q.kinds.iter().filter(|k| k.form.is_some()).collect();
    let mut n = 0;
    for f in hits.iter_mut() {
        let p = &f.hit.payload;
        let own = crate::ingest::chunk::own_heading(&p.section_title);
        f.mode = if modes.is_empty() {
            ModeNamed::No
        } else if modes.iter().all(|k| k.named_in(own)) {
            ModeNamed::InHeading
        } else if modes
            .iter()
            .all(|k| k.named_in(&p.node_content) || k.named_in(&p.section_title))
        {
            ModeNamed::InText
        } else {
            ModeNamed::No
        };
        n += usize::from(f.mode != ModeNamed::No);
    }
    n
}

/// The lexical index's terms of a file path's words ([`path_words`]), as
/// a question's words are read: what a question must say to name the file.
pub(crate) fn path_terms(path: &str) -> std::collections::HashSet<u32> {
    crate::vector::lexical::query(&path_words(path))
        .indices
        .into_iter()
        .collect()
}

/// The words of a file path: split at every non-alphanumeric character,
/// each then also split where a lower-case letter meets an upper-case one
/// (`MultiZone` is "MultiZone Multi Zone": a question may write it as one
/// word or two).
pub(crate) fn path_words(path: &str) -> String {
    let whole = path
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| {
            w.chars()
                .zip(w.chars().skip(1))
                .any(|(a, b)| a.is_lowercase() && b.is_uppercase())
        })
        .collect::<Vec<_>>()
        .join(" ");
    let spaced: String = path
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let mut out = crate::text::camel_spaced(&spaced);
    if !whole.is_empty() {
        out.push(' ');
        out.push_str(&whole);
    }
    out
}

/// Drops every chunk whose text a better-ranked chunk holds word for word:
/// the same passage in another edition (an HTML page and the PDF made from
/// it, an unchanged section of an older revision), so that the chunks that
/// reach synthesis are distinct passages. The kept copy is the one ranked
/// first ([`rank_order`]: the newer document on a tie). Returns how many
/// went.
pub fn drop_copies(hits: &mut Vec<Scored>) -> usize {
    let before = hits.len();
    let mut seen = std::collections::HashSet::new();
    hits.retain(|s| seen.insert(crate::text::words(&s.hit.payload.node_content)));
    before - hits.len()
}

/// Appends the items of `more` whose id is not in `list` yet, in order.
fn append_new<T>(list: &mut Vec<T>, more: Vec<T>, id: impl Fn(&T) -> uuid::Uuid) {
    for item in more {
        if !list.iter().any(|x| id(x) == id(&item)) {
            list.push(item);
        }
    }
}

/// Runs the search: filtered or vanilla, each fallback recorded; dense and
/// lexical fused, then reranked. `text` is what the lexical side reads.
pub async fn search(
    index: &dyn VectorIndex,
    cfg: &AnswerConfig,
    q: &Question,
    graph_ids: &[String],
    vector: Vec<f32>,
    top_k: usize,
) -> VectorResult<Retrieved> {
    let (g, text) = (&q.grounding, q.text.as_str());
    // The word search reads a phrasal verb in its written-as-one-word form
    // too ("locked out": "lockout").
    let forms = crate::text::compound_forms(text);
    // And a date the question names as dated records write it ("apr '26"
    // is "2026-04", the opening of "2026-04-06 — CHW plant seasonal
    // release …"): the record of the day is found by its date, not only
    // by what the question says happened.
    let dates = dates_named(text);
    let lexical_text = [text.to_owned()]
        .into_iter()
        .chain(forms.iter().cloned())
        .chain(dates.iter().map(|d| d.replace('/', " ")))
        .collect::<Vec<_>>()
        .join(" ");
    let limit = top_k * cfg.filter_fetch_factor.max(1);
    let mut trace = RetrievalTrace::default();
    if !forms.is_empty() {
        trace.decisions.push(format!(
            "the word search also reads {}: phrasal verbs and compounds in their other written form",
            forms.join(", ")
        ));
    }
    if !dates.is_empty() {
        trace.decisions.push(format!(
            "the word search also reads {}: the dates the question names, as dated records write them",
            dates.join(", ").replace('/', " ")
        ));
    }
    let mut found = (Vec::new(), Vec::new());
    match decide_filter(cfg, g, graph_ids, &q.broader) {
        Ok(filter) => {
            trace.decisions.push(format!(
                "grounding confidence {:.2} >= {:.2} and specific concepts: filtered search (match any of {} graph ids, equip {:?}, brick_equip {:?}, ptags {:?}), limit {limit}",
                g.gconf,
                cfg.grounded_min_conf,
                filter.graph_ids.len(),
                filter.equip,
                filter.brick_equip,
                filter.ptags
            ));
            tracing::info!(
                gconf = g.gconf,
                graph_ids = filter.graph_ids.len(),
                equip = ?filter.equip,
                "filtered retrieval"
            );
            found = both(
                index,
                cfg,
                &vector,
                &lexical_text,
                limit,
                Some(filter.clone()),
            )
            .await?;
            trace.filter = Some(filter);
            if found.0.is_empty() && found.1.is_empty() {
                trace
                    .decisions
                    .push("the filtered search returned nothing: vanilla retrieval".to_owned());
                tracing::info!("no results with filter, falling back to vanilla");
            } else {
                trace.mode = "filtered".to_owned();
                let n = found.0.len().max(found.1.len());
                if n < top_k {
                    // A narrow filter (one linked chunk) must not decide
                    // alone: the vanilla hits follow the filtered ones.
                    trace.decisions.push(format!(
                        "the filtered search found {n} < top_k {top_k} chunks: topped up with vanilla retrieval"
                    ));
                    tracing::info!(found = n, top_k, "filtered search topped up with vanilla");
                    let (dense, lexical) =
                        both(index, cfg, &vector, &lexical_text, limit, None).await?;
                    append_new(&mut found.0, dense, |h| h.id);
                    append_new(&mut found.1, lexical, |h| h.id);
                }
            }
        }
        Err(reason) => {
            tracing::info!(gconf = g.gconf, reason = %reason, "vanilla retrieval");
            trace.decisions.push(reason);
        }
    }
    if found.0.is_empty() && found.1.is_empty() {
        trace.mode = "vanilla".to_owned();
        found = both(index, cfg, &vector, &lexical_text, limit, None).await?;
    }
    let (dense, lexical) = found;
    let (n_dense, n_lexical) = (dense.len(), lexical.len());
    let mut fused = fuse(cfg, &vector, dense, lexical);
    let named = mark_named_documents(text, &mut fused);
    if named > 0 {
        trace.decisions.push(format!(
            "the question names the documents of {named} chunks (a word of their path): x{}",
            cfg.boost_document
        ));
    }
    let dated = mark_dated_records(&dates, &mut fused);
    if dated > 0 {
        trace.decisions.push(format!(
            "{dated} chunks hold a dated record of a date the question names: x{}",
            cfg.boost_document
        ));
    }
    let moded = mark_modes(q, &mut fused);
    if moded > 0 {
        trace.decisions.push(format!(
            "{moded} chunks name the operating mode the question names: x{}",
            cfg.boost_mode
        ));
    }
    trace.decisions.push(if cfg.lexical_weight > 0.0 {
        format!(
            "hybrid: {n_dense} chunks by vector, {n_lexical} by BM25, {} after reciprocal rank fusion (k {}, lexical weight {})",
            fused.len(),
            cfg.rrf_k,
            cfg.lexical_weight
        )
    } else {
        format!("{n_dense} chunks by vector (lexical weight 0: no BM25)")
    });
    tracing::info!(
        dense = n_dense,
        lexical = n_lexical,
        fused = fused.len(),
        "fused retrieval"
    );
    let mut hits = rerank(cfg, g, graph_ids, fused);
    trace.decisions.push(format!(
        "reranked {} chunks (equip x{}, brick_equip x{}, ptags x{}, linked graph ids x{})",
        hits.len(),
        cfg.boost_equip,
        cfg.boost_brick,
        cfg.boost_ptags,
        cfg.boost_graph
    ));
    if dated > 0 {
        trace.decisions.push(format!(
            "the {dated} chunks holding a dated record of a date the question names ranked first"
        ));
    }
    let copies = drop_copies(&mut hits);
    if copies > 0 {
        trace.decisions.push(format!(
            "{copies} chunks left out: the same text as a chunk ranked above them (another edition of a document)"
        ));
        tracing::info!(copies, "copies of better-ranked chunks left out");
    }
    Ok(Retrieved { hits, trace })
}

/// What a passage that continues a selected chunk weighs, against that
/// chunk's reranked score: it was not found by the question, its chunk
/// was, so a sentence of it is quoted over the chunk's own only when it
/// holds more of the question.
pub const FOLLOWING_WEIGHT: f32 = 0.9;

/// Adds to the `selected` best chunks of `hits` the chunk that follows
/// each of them in its document (same source and version, next chunk
/// index): a sequence's "Stage 2" step or a table's next rows often sit
/// in the chunk after the one the question found ("freeze protection
/// sequence for multizone AHU system" opens chunk 0, its stages go on in
/// chunk 1). A follower already selected, or holding word for word the
/// text of a selected chunk (another edition), is not added; one found
/// lower in `hits` moves up. Followers go after the selected chunks, at
/// most `limit` chunks in all, scored [`FOLLOWING_WEIGHT`] × their
/// chunk's reranked score (or their own, when higher); their cosine to the
/// question (`vector`) is their own or, when higher, the chunk's they
/// continue: the question found the passage, of which the follower is the
/// rest. Returns the new selected count and how many were added.
pub async fn with_followers(
    index: &dyn VectorIndex,
    hits: &mut Vec<Scored>,
    selected: usize,
    limit: usize,
    vector: &[f32],
) -> VectorResult<(usize, usize)> {
    let mut lists: HashMap<String, Vec<crate::vector::StoredPoint>> = HashMap::new();
    let mut seen: std::collections::HashSet<Vec<String>> = hits[..selected]
        .iter()
        .map(|s| crate::text::words(&s.hit.payload.node_content))
        .collect();
    let mut added: Vec<Scored> = Vec::new();
    for i in 0..selected {
        if selected + added.len() >= limit {
            break;
        }
        let p = &hits[i].hit.payload;
        let (source, sha, at) = (p.source_id.clone(), p.source_sha.clone(), p.chunk_index + 1);
        let carried = hits[i].reranked * FOLLOWING_WEIGHT;
        let parent_score = hits[i].hit.score;
        if !lists.contains_key(&source) {
            let points = index.points_of(&source, true).await?;
            lists.insert(source.clone(), points);
        }
        let Some(next) = lists[&source]
            .iter()
            .find(|n| n.payload.chunk_index == at && n.payload.source_sha == sha)
        else {
            continue;
        };
        if !seen.insert(crate::text::words(&next.payload.node_content)) {
            continue;
        }
        let found = hits[selected..].iter().position(|s| s.hit.id == next.id);
        let follower = match found {
            Some(k) => {
                let mut s = hits.remove(selected + k);
                s.hit.score = s.hit.score.max(parent_score);
                if carried > s.reranked {
                    s.reranked = carried;
                    s.boosts.push(format!("follows chunk #{}", i + 1));
                }
                s
            }
            None => Scored {
                hit: Hit {
                    id: next.id,
                    score: next
                        .vector
                        .as_deref()
                        .map_or(0.0, |v| crate::embed::cosine(vector, v))
                        .max(parent_score),
                    payload: next.payload.clone(),
                },
                bm25: None,
                fused: 0.0,
                reranked: carried,
                boosts: vec![format!("follows chunk #{}", i + 1)],
            },
        };
        added.push(follower);
    }
    let n = added.len();
    for (k, s) in added.into_iter().enumerate() {
        hits.insert(selected + k, s);
    }
    Ok((selected + n, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::{Entity, EquipmentType};
    use crate::vector::ChunkPayload;

    fn payload(equip: &[&str], ids: &[&str]) -> ChunkPayload {
        ChunkPayload {
            source_id: "s".into(),
            source_ref: "d.md".into(),
            page_label: "1".into(),
            node_content: "text".into(),
            equip: equip.iter().map(|s| (*s).to_owned()).collect(),
            brick_equip: vec![],
            ptags: vec![],
            raw: vec![],
            gconf: 0.9,
            graph_ids: ids.iter().map(|s| (*s).to_owned()).collect(),
            source_sha: "x".into(),
            chunk_index: 0,
            section_title: String::new(),
            updated_at: String::new(),
            embedding_model: String::new(),
            domain: String::new(),
            source_type: String::new(),
            doc_version: String::new(),
        }
    }

    /// A fused hit of `score` (cosine and fused alike) with payload `p`.
    fn fused(score: f32, p: ChunkPayload) -> Fused {
        Fused {
            hit: Hit {
                id: uuid::Uuid::new_v4(),
                score,
                payload: p,
            },
            bm25: None,
            fused: score,
            named_document: 0,
            dated: false,
            mode: ModeNamed::No,
        }
    }

    fn grounding(kind: &str, gconf: f64) -> Grounding {
        Grounding {
            equipment_types: vec![EquipmentType {
                haystack_kind: Some(kind.into()),
                brick_class: None,
                confidence: gconf,
                span: Default::default(),
            }],
            gconf,
            ..Grounding::default()
        }
    }

    #[test]
    fn filter_rules_follow_the_decision_flow() {
        let cfg = AnswerConfig::default();
        assert!(
            decide_filter(&cfg, &grounding("vav", 0.5), &[], &[])
                .unwrap_err()
                .contains("0.50 < 0.60")
        );
        assert!(
            decide_filter(&cfg, &grounding("sensor", 0.9), &[], &[])
                .unwrap_err()
                .contains("generic")
        );
        let f = decide_filter(&cfg, &grounding("vav", 0.9), &["urn:a".into()], &[]).unwrap();
        assert_eq!(f.equip, ["vav"]);
        assert_eq!(f.graph_ids, ["urn:a"]);
        // A sequence for terminal units is about the VAV box asked about.
        let broader = ["Terminal_Unit".to_owned()];
        let f = decide_filter(&cfg, &grounding("vav", 0.9), &[], &broader).unwrap();
        assert!(f.brick_equip.contains(&"Terminal_Unit".to_owned()));
        let mut named = grounding("sensor", 0.9);
        named.entities.push(Entity {
            iri: "urn:vav".into(),
            label: "VAV-1".into(),
            kind: EntityKind::Instance,
            class: None,
            confidence: 0.9,
            matched: "vav-1".into(),
            span: Default::default(),
        });
        assert!(decide_filter(&cfg, &named, &[], &[]).is_ok());
    }

    #[test]
    fn boosts_multiply_and_reorder() {
        let cfg = AnswerConfig::default();
        let hit = |score: f32, equip: &[&str], ids: &[&str]| fused(score, payload(equip, ids));
        let out = rerank(
            &cfg,
            &grounding("vav", 0.9),
            &["urn:x".into()],
            vec![hit(0.6, &[], &[]), hit(0.5, &["vav"], &["urn:x"])],
        );
        assert_eq!(out[0].boosts, ["equip", "graph_ids"]);
        assert!((out[0].reranked - 0.5 * 1.5 * 1.25).abs() < 1e-6);
        assert!(out[1].boosts.is_empty());
    }

    #[test]
    fn equal_scores_go_to_the_newer_document_then_by_path() {
        let cfg = AnswerConfig::default();
        let hit = |score: f32, source: &str, updated: &str| {
            let mut p = payload(&[], &[]);
            p.source_ref = source.into();
            p.updated_at = updated.into();
            fused(score, p)
        };
        let order = |hits: Vec<Fused>| {
            rerank(&cfg, &grounding("vav", 0.9), &[], hits)
                .into_iter()
                .map(|s| s.hit.payload.source_ref)
                .collect::<Vec<_>>()
        };
        // The same passage in two editions, in either engine order; a last-bit
        // difference in the cosine does not decide.
        let a = || hit(0.601_498_2, "docs/g36/b.html", "2026-01-01T00:00:00Z");
        let b = || hit(0.601_498_1, "docs/pdf/a.pdf", "2026-01-01T00:00:00Z");
        let c = || hit(0.601_498_2, "docs/old.md", "2025-01-01T00:00:00Z");
        assert_eq!(order(vec![a(), b(), c()]), order(vec![c(), b(), a()]));
        assert_eq!(
            order(vec![c(), a(), b()]),
            ["docs/g36/b.html", "docs/pdf/a.pdf", "docs/old.md"]
        );
    }

    fn lexical_hit(id: uuid::Uuid, bm25: f32, vector: Vec<f32>) -> LexicalHit {
        LexicalHit {
            id,
            bm25,
            payload: payload(&[], &[]),
            vector,
        }
    }

    #[test]
    fn a_question_names_documents_by_the_words_of_their_paths() {
        assert_eq!(
            path_words("docs/g36/TerminalUnits_Reheat_Alarms.html"),
            "docs g36 Terminal Units Reheat Alarms html TerminalUnits"
        );
        let hit = |path: &str| {
            let mut p = payload(&[], &[]);
            p.source_ref = path.into();
            fused(0.5, p)
        };
        let mut hits = vec![
            hit("docs/g36/TerminalUnits_Reheat_Alarms.html"),
            hit("docs/pdf/G36-VAV-terminal-unit.pdf"),
            hit("golden/corpus/northfield_service_log.md"),
        ];
        assert_eq!(
            mark_named_documents("leaking valve alarm, per g36?", &mut hits),
            2
        );
        assert_eq!(hits[2].named_document, 0);
        // "valve alarm … g36": g36 and Alarms name the first, g36 the second.
        assert_eq!(hits[0].named_document, 2);
        assert_eq!(hits[1].named_document, 1);
        assert_eq!(
            mark_named_documents("what does the service log say", &mut hits),
            1
        );
        assert_eq!(hits[2].named_document, 2);
        assert_eq!(mark_named_documents("the of and", &mut hits), 0);
        // A compound of the path, written as one word.
        assert_eq!(
            mark_named_documents("a terminalunits question", &mut hits),
            1
        );
    }

    /// A chunk holding a dated record of the date a question names is
    /// marked, however the question writes the date, and ranks above a
    /// better-scored sequence; a record of another month, a date only
    /// inside a sentence, and a question with no date mark nothing.
    #[test]
    fn a_dated_record_of_the_date_asked_is_marked_and_boosted() {
        let cfg = AnswerConfig::default();
        let hit = |score: f32, text: &str| {
            let mut p = payload(&[], &[]);
            p.node_content = text.into();
            fused(score, p)
        };
        let mut hits = vec![
            hit(
                0.6,
                "Stage 1: if SAT falls below 40 °F, set a Level 3 alarm.",
            ),
            hit(
                0.5,
                "2025\n2025-02-03 — AHU-1: freeze protection stage 1. (JK)",
            ),
            hit(
                0.5,
                "2025-03-11 — AHU-1: filters changed, as on 2025-02-03.",
            ),
        ];
        for asked in [
            "ahu-1 freeze trip feb 2025 - root cause?",
            "what happened on 3 february 2025",
            "the 2025-02 freeze alarm",
        ] {
            assert_eq!(
                mark_dated_records(&dates_named(asked), &mut hits),
                1,
                "{asked}"
            );
            assert!(hits[1].dated && !hits[0].dated && !hits[2].dated);
        }
        let ranked = rerank(&cfg, &Grounding::default(), &[], hits.clone());
        assert!(
            ranked[0]
                .hit
                .payload
                .node_content
                .contains("2025-02-03 — AHU-1")
        );
        assert_eq!(ranked[0].boosts, ["dated record"]);
        // A season names the records of its months.
        assert_eq!(
            mark_dated_records(&dates_named("filters in spring 2025"), &mut hits),
            1
        );
        assert!(hits[2].dated);
        assert_eq!(
            mark_dated_records(&dates_named("ahu-1 freeze trip in february"), &mut hits),
            0
        );
        assert!(hits.iter().all(|h| !h.dated));
    }

    /// Of chunks with the same words, only the best-ranked stays, whatever
    /// their files; different texts all stay, in order.
    #[test]
    fn copies_of_a_better_ranked_chunk_are_dropped() {
        let cfg = AnswerConfig::default();
        let hit = |score: f32, source: &str, text: &str| {
            let mut p = payload(&[], &[]);
            p.source_ref = source.into();
            p.node_content = text.into();
            fused(score, p)
        };
        let mut hits = rerank(
            &cfg,
            &grounding("vav", 0.9),
            &[],
            vec![
                hit(0.7, "docs/g36/Alarms.html", "Low airflow: Level 3."),
                hit(0.6, "docs/other.md", "Something else."),
                hit(0.7, "docs/pdf/G36.pdf", "Low  airflow:\nLevel 3"),
            ],
        );
        assert_eq!(drop_copies(&mut hits), 1);
        let kept: Vec<&str> = hits
            .iter()
            .map(|s| s.hit.payload.source_ref.as_str())
            .collect();
        assert_eq!(kept, ["docs/g36/Alarms.html", "docs/other.md"]);
    }

    /// Reciprocal rank fusion: first in both scores 1; a chunk both searches
    /// found outranks one only either found at the same rank; a chunk only
    /// BM25 found keeps the cosine of its own vector; lexical weight 0 is
    /// the dense ranking alone.
    #[test]
    fn fusion_adds_reciprocal_ranks_and_keeps_cosines() {
        let cfg = AnswerConfig::default();
        let ids: Vec<uuid::Uuid> = (0..3).map(|_| uuid::Uuid::new_v4()).collect();
        let dense = vec![
            Hit {
                id: ids[0],
                score: 0.7,
                payload: payload(&[], &[]),
            },
            Hit {
                id: ids[1],
                score: 0.6,
                payload: payload(&[], &[]),
            },
        ];
        let query = [1.0, 0.0];
        let lexical = vec![
            lexical_hit(ids[0], 9.0, vec![1.0, 0.0]),
            lexical_hit(ids[2], 7.0, vec![0.6, 0.8]),
        ];
        let fused = fuse(&cfg, &query, dense.clone(), lexical.clone());
        assert_eq!(fused.len(), 3);
        assert!((fused[0].fused - 1.0).abs() < 1e-6);
        assert_eq!(fused[0].bm25, Some(9.0));
        let only_dense = fused.iter().find(|f| f.hit.id == ids[1]).unwrap();
        let only_lexical = fused.iter().find(|f| f.hit.id == ids[2]).unwrap();
        assert!((only_dense.fused - only_lexical.fused).abs() < 1e-6);
        assert!(only_dense.fused < 0.6);
        assert!((only_lexical.hit.score - 0.6).abs() < 1e-6);
        let off = AnswerConfig {
            lexical_weight: 0.0,
            ..AnswerConfig::default()
        };
        let dense_only = fuse(&off, &query, dense, lexical);
        assert_eq!(dense_only.len(), 2);
        assert!((dense_only[0].fused - 1.0).abs() < 1e-6);
        assert!(dense_only.iter().all(|f| f.bm25.is_none()));
    }

    #[test]
    fn tied_hits_share_a_rank_whatever_order_the_engine_returns() {
        let cfg = AnswerConfig::default();
        let ids: Vec<uuid::Uuid> = (0..3).map(|_| uuid::Uuid::new_v4()).collect();
        let query = [1.0, 0.0];
        let run = |order: [usize; 3]| {
            let lexical: Vec<LexicalHit> = order
                .iter()
                .map(|&i| lexical_hit(ids[i], if i == 2 { 5.0 } else { 8.0 }, vec![1.0, 0.0]))
                .collect();
            let mut fused = fuse(&cfg, &query, vec![], lexical);
            fused.sort_by_key(|f| f.hit.id);
            fused.iter().map(|f| f.fused).collect::<Vec<_>>()
        };
        let a = run([0, 1, 2]);
        let b = run([1, 0, 2]);
        assert_eq!(a, b);
        let by_id = |v: &[f32], id: uuid::Uuid| {
            let mut sorted = ids.clone();
            sorted.sort();
            v[sorted.iter().position(|x| *x == id).unwrap()]
        };
        assert_eq!(by_id(&a, ids[0]), by_id(&a, ids[1]));
        assert!(by_id(&a, ids[2]) < by_id(&a, ids[0]));
        assert_eq!(tied_ranks(&[3.0, 3.0, 2.0, 1.0, 1.0]), vec![1, 1, 3, 4, 4]);
    }

    /// Chunk `k` of source `src` holding `text`, its vector along axis `axis`.
    fn chunk(src: &str, k: usize, text: &str, axis: usize) -> crate::vector::ChunkPoint {
        let mut p = crate::vector::contract::payload(src, k);
        p.node_content = text.to_owned();
        crate::vector::ChunkPoint {
            id: uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, format!("{src}/{k}").as_bytes()),
            vector: crate::vector::contract::axis(4, axis),
            payload: p,
        }
    }

    /// A selected hit of `point` reranked `reranked`, cosine `score`.
    fn scored(point: &crate::vector::ChunkPoint, reranked: f32, score: f32) -> Scored {
        Scored {
            hit: Hit {
                id: point.id,
                score,
                payload: point.payload.clone(),
            },
            bm25: None,
            fused: reranked,
            reranked,
            boosts: Vec::new(),
        }
    }

    #[tokio::test]
    async fn the_chunk_after_a_selected_one_joins_the_selection() {
        let dir = tempfile::TempDir::new().unwrap();
        let index = crate::vector::edge::EdgeIndex::open(
            dir.path(),
            crate::vector::IndexModel {
                model: "test-model".into(),
                dimension: 4,
            },
        )
        .unwrap();
        let a = [
            chunk("a", 0, "Freeze protection sequence.", 0),
            chunk(
                "a",
                1,
                "Stage 2: below 38 °F for 5 minutes, close the dampers.",
                1,
            ),
            chunk("a", 2, "Stage 3: shut down the fans.", 2),
        ];
        // b/1 is a/0 in another edition, word for word.
        let b = [
            chunk("b", 0, "Relief fan sequence.", 3),
            chunk("b", 1, "Freeze protection sequence.", 0),
        ];
        index
            .upsert(a.iter().chain(&b).cloned().collect())
            .await
            .unwrap();
        // a/0 and b/0 selected; a/1 was found, ranked below the selection.
        let mut hits = vec![
            scored(&a[0], 2.0, 0.6),
            scored(&b[0], 1.5, 0.5),
            scored(&a[1], 0.5, 0.3),
        ];
        let query = crate::vector::contract::axis(4, 1);
        let (selected, added) = with_followers(&index, &mut hits, 2, 10, &query)
            .await
            .unwrap();
        assert_eq!((selected, added), (3, 1));
        let order: Vec<(String, usize)> = hits
            .iter()
            .map(|s| (s.hit.payload.source_id.clone(), s.hit.payload.chunk_index))
            .collect();
        // a/1 moved up, scored below the chunk it follows; b/1 (a copy of
        // a selected chunk) was not added; a/2 follows no selected chunk.
        assert_eq!(order, [("a".into(), 0), ("b".into(), 0), ("a".into(), 1)]);
        assert!((hits[2].reranked - 2.0 * FOLLOWING_WEIGHT).abs() < 1e-6);
        assert_eq!(hits[2].boosts, ["follows chunk #1"]);
        assert!((hits[2].hit.score - 0.6).abs() < 1e-6);

        // A follower not found at all comes from the index with its own
        // cosine, or the chunk's it continues when that is higher.
        let mut hits = vec![scored(&a[1], 2.0, 0.4)];
        let (selected, added) = with_followers(&index, &mut hits, 1, 10, &query)
            .await
            .unwrap();
        assert_eq!((selected, added), (2, 1));
        assert_eq!(hits[1].hit.payload.chunk_index, 2);
        assert!((hits[1].hit.score - 0.4).abs() < 1e-6);
        let mut hits = vec![scored(&a[1], 2.0, 0.0)];
        let query = crate::vector::contract::axis(4, 2);
        with_followers(&index, &mut hits, 1, 10, &query)
            .await
            .unwrap();
        assert!((hits[1].hit.score - 1.0).abs() < 1e-5);

        // No more chunks reach synthesis than the limit.
        let mut hits = vec![scored(&a[0], 2.0, 0.6), scored(&b[0], 1.5, 0.5)];
        let (selected, added) = with_followers(&index, &mut hits, 2, 3, &query)
            .await
            .unwrap();
        assert_eq!((selected, added), (3, 1));
        let mut hits = vec![scored(&a[0], 2.0, 0.6), scored(&b[0], 1.5, 0.5)];
        assert_eq!(
            with_followers(&index, &mut hits, 2, 2, &query)
                .await
                .unwrap(),
            (2, 0)
        );
    }
}
