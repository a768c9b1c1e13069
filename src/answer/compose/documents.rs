//! The document answer: the best sentences of the top chunks (a second
//! chunk only when the first holds too little of the question), measured
//! for the refusal rules, cited with the chunk's file, page and links.

use super::{Draft, chunk_evidence, newest, where_in};
use crate::answer::question::Question;
use crate::answer::refusal::{self, DocumentMeasures};
use crate::answer::retrieve::{Scored, overlaps, path_terms};
use crate::answer::synthesize::{self, Picked};
use crate::answer::view::GraphView;
use crate::answer::{Answer, Answerability, EvidenceItem};
use crate::config::AnswerConfig;
use crate::embed::EmbedError;
use crate::ground::{EntityKind, Grounder, PayloadFields};
use crate::ingest::DocService;
use crate::ingest::chunk::own_heading;
use crate::text::{squash, stem, words};
use crate::vector::ChunkPayload;
use crate::vocab;

/// The sentences a document answer would quote from the `selected` top
/// chunks of `hits`, leaving out the chunks in `off` (about other
/// equipment than the question asks about) and, when one is from a
/// document the question names, those of documents it does not name
/// (`may_name`: whether a focus term may name a document).
pub fn picks(
    cfg: &AnswerConfig,
    q: &Question,
    hits: &[Scored],
    selected: usize,
    off: &[usize],
    may_name: impl Fn(&String) -> bool,
) -> Vec<Picked> {
    // A chunk's rank decides between sentences holding as much of the
    // question, not over one holding more: its weight is its reranked
    // score over the best one's (at most 1, one focus term).
    let best = hits
        .first()
        .map_or(1.0, |s| s.reranked)
        .max(f32::MIN_POSITIVE);
    let texts: Vec<(usize, &str, f32)> = hits[..selected]
        .iter()
        .enumerate()
        .filter(|(i, _)| !off.contains(i))
        .map(|(i, s)| (i, s.hit.payload.node_content.as_str(), s.reranked / best))
        .collect();
    let focus = q.focus();
    let path = |i: usize| hits[i].hit.payload.source_ref.as_str();
    let naming: Vec<Vec<String>> = texts
        .iter()
        .map(|(i, ..)| document_terms(focus.terms, &[path(*i)]))
        .collect();
    let headings: Vec<&str> = texts
        .iter()
        .map(|(i, ..)| hits[*i].hit.payload.section_title.as_str())
        .collect();
    // A passage naming the box a named point belongs to is about it too,
    // and one naming a node by the short name the question wrote
    // ("CHWST-SP" of "CHW-SYS CHWST-SP").
    let short = q
        .grounding
        .entities
        .iter()
        .filter(|e| e.by_short_name())
        .map(|e| e.matched.clone());
    let names: Vec<String> = q
        .labels
        .iter()
        .chain(&q.owners)
        .cloned()
        .chain(short)
        .collect();
    let mut picked = synthesize::pick_in(focus, &names, &texts, &naming, &headings, 2);
    let heading = |i: usize| own_heading(&hits[i].hit.payload.section_title);
    // Quote a second chunk only when the best one alone does not hold
    // enough of the question, or names none of what the question names
    // and the second does ("VAV-2-16 … 225 cfm heating maximum" after the
    // reheat boxes' warm-up sentence): one passage, one page, is easier to
    // check.
    if let Some(first) = picked.first().map(|p| p.source) {
        let (own, other): (Vec<Picked>, Vec<Picked>) =
            picked.iter().cloned().partition(|p| p.source == first);
        // The equipment and points it names: not the classes, nor the
        // products (a product's name also heads its fault and maintenance
        // rows, which answer nothing else).
        let instances = synthesize::squashed_labels(
            q.grounding
                .entities
                .iter()
                .filter(|e| e.kind == EntityKind::Instance)
                .map(|e| &e.label)
                .chain(&q.owners),
        );
        let mentions = |ps: &[Picked]| {
            ps.iter()
                .any(|p| synthesize::mentions(&p.text, &instances) > 0)
        };
        if measure(q, &own, &[heading(first)], &[path(first)])
            .held
            .coverage
            >= cfg.min_coverage
            && (mentions(&own) || !mentions(&other))
        {
            picked = own;
        }
    }
    let named = |i: usize| {
        texts
            .iter()
            .position(|(j, ..)| *j == i)
            .is_some_and(|pos| naming[pos].iter().any(&may_name))
    };
    from_named_documents(picked, named)
}

/// What a passage is measured on, measured: the focus terms it must hold,
/// those left out, and what it holds of the rest.
struct Measured {
    /// The focus terms measured.
    asked: Vec<String>,
    /// The terms left out: they name one of the passage's documents and
    /// the passage does not write them.
    naming: Vec<String>,
    /// What the passage holds of `asked`.
    held: synthesize::Held,
}

/// Measures a passage (`picked` and their `headings`) from the documents
/// at `paths`: a focus term that names one of the documents and that the
/// passage does not write chose the document — the passage need not
/// repeat it — so it is left out, unless the question says nothing else.
fn measure(q: &Question, picked: &[Picked], headings: &[&str], paths: &[&str]) -> Measured {
    let terms = q.focus().terms;
    let held = synthesize::held(q.focus(), &q.labels, picked, headings);
    let naming: Vec<String> = document_terms(terms, paths)
        .into_iter()
        .filter(|t| !held.terms.contains(t))
        .collect();
    if naming.is_empty() || naming.len() == terms.len() {
        return Measured {
            asked: terms.to_vec(),
            naming: Vec::new(),
            held,
        };
    }
    let asked: Vec<String> = terms
        .iter()
        .filter(|t| !naming.contains(t))
        .cloned()
        .collect();
    // Every held term is asked (a left-out term is one not held).
    let coverage = held.terms.len() as f32 / asked.len() as f32;
    Measured {
        asked,
        naming,
        held: synthesize::Held {
            terms: held.terms,
            coverage,
        },
    }
}

/// The equipment kinds a question asks about: the Brick classes and
/// Haystack kinds the grounder typed, and the question's own words for
/// them ("boilers", "reheat terminal").
pub struct Kinds<'a> {
    fields: PayloadFields,
    words: Vec<Vec<String>>,
    grounder: &'a Grounder,
    view: GraphView<'a>,
}

impl<'a> Kinds<'a> {
    /// The kinds `q` names.
    pub fn asked(q: &Question, grounder: &'a Grounder, view: GraphView<'a>) -> Self {
        let words = q
            .grounding
            .equipment_types
            .iter()
            .filter_map(|t| q.text.get(t.span.start..t.span.end))
            .map(|said| words(said).iter().map(|w| stem(w)).collect::<Vec<_>>())
            .filter(|w: &Vec<String>| !w.is_empty())
            .collect();
        Self {
            fields: q.grounding.payload_fields(),
            words,
            grounder,
            view,
        }
    }

    /// Whether a chunk is about other equipment: the question names
    /// equipment kinds; the chunk's text or heading path names kinds too,
    /// none of them the question's, a subclass or a superclass of one, nor
    /// the same Haystack kind; and neither its text nor its heading path
    /// says the question's words for them (or their abbreviations). A
    /// passage about the chillers does not answer a question about the
    /// boilers, however many other words they share.
    pub fn other_than(&self, q: &Question, p: &ChunkPayload) -> bool {
        if self.words.is_empty() {
            return false;
        }
        let heading = self
            .grounder
            .ground(&crate::text::camel_spaced(&p.section_title))
            .payload_fields();
        let equip: Vec<&String> = p.equip.iter().chain(&heading.equip).collect();
        let classes: Vec<&String> = p.brick_equip.iter().chain(&heading.brick_equip).collect();
        if equip.is_empty() && classes.is_empty() {
            return false;
        }
        if overlaps(&equip, &self.fields.equip) {
            return false;
        }
        let related = |a: &str, b: &str| {
            let (a, b) = (vocab::brick(a), vocab::brick(b));
            self.view.onto.is_a(&a, &b) || self.view.onto.is_a(&b, &a)
        };
        if classes.iter().any(|c| {
            self.fields
                .brick_equip
                .iter()
                .any(|asked| related(c, asked))
        }) {
            return false;
        }
        let text = words(&format!("{} {}", p.section_title, p.node_content));
        !self.words.iter().any(|kind| {
            synthesize::says(&text, kind, synthesize::term_matches)
                || q.equivalents
                    .iter()
                    .filter(|e| {
                        e.terms.len() == kind.len() && kind.iter().all(|k| e.terms.contains(k))
                    })
                    .any(|e| synthesize::says(&text, &e.form, synthesize::same_word))
        })
    }
}

/// The points the question names by the short name a document writes
/// ("HW-DP" of "HW-SYS HW-DP") that no quoted text names as a word: a
/// passage about another point ("CHW-DP, measured across the AHU-2 cooling
/// coil", "HW-DP-SP") answers something else.
fn short_names_missing(
    entities: &[crate::ground::Entity],
    is_point: impl Fn(&str) -> bool,
    quoted: &[&str],
) -> Vec<String> {
    let words: std::collections::HashSet<String> = quoted
        .iter()
        .flat_map(|t| t.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')))
        .map(squash)
        .collect();
    entities
        .iter()
        .filter(|e| e.by_short_name() && is_point(&e.iri))
        .filter(|e| !words.contains(&squash(&e.matched)))
        .map(|e| e.matched.clone())
        .collect()
}

/// The focus terms that are words of one of the documents' paths (as the
/// lexical index reads words, CamelCase split and whole: "multizone" names
/// `…_MultiZone_…`), in focus order.
fn document_terms(terms: &[String], paths: &[&str]) -> Vec<String> {
    let named: std::collections::HashSet<u32> = paths.iter().flat_map(|p| path_terms(p)).collect();
    terms
        .iter()
        .filter(|t| {
            let q = crate::vector::lexical::query(t).indices;
            !q.is_empty() && q.iter().all(|i| named.contains(i))
        })
        .cloned()
        .collect()
}

/// The focus terms that may name documents: no number, no word of the
/// models or the ontology (equipment, points, "vav", "plant" name no
/// document), and not held by the quoted passages (`held`: a passage that
/// says "Guideline 36" answers what Guideline 36 says).
fn naming_candidates<'q>(
    q: &'q Question,
    held: &[String],
    may_name: impl Fn(&String) -> bool,
) -> Vec<&'q String> {
    q.focus()
        .terms
        .iter()
        .filter(|t| may_name(t))
        .filter(|t| !held.contains(t))
        .collect()
}

/// The picked sentences, less those of documents the question does not
/// name when one is from a document it names (`named`: whether the
/// question names the document of a chunk): "g36 mz ahu freeze stg 3
/// shutdown … how does it get reset" is answered from the G36 pages, not
/// by a G36 page's freeze-stage line with the campus sequence's reset
/// sentence beside it.
fn from_named_documents(picked: Vec<Picked>, named: impl Fn(usize) -> bool) -> Vec<Picked> {
    if picked.iter().any(|p| named(p.source)) {
        picked.into_iter().filter(|p| named(p.source)).collect()
    } else {
        picked
    }
}

/// Whether a focus term may name a document: no number, no word of the
/// models or the ontology.
fn may_name_document(term: &str, spelling: &crate::answer::respell::Spelling) -> bool {
    !term.chars().all(|c| c.is_ascii_digit() || c == '.') && !spelling.is_domain_term(term)
}

/// The held terms, less a word that may name a document (`may_name`)
/// which only documents that lack part of the answer hold
/// (`by_document`: what each quoted document holds): "Basis: ASHRAE
/// Guideline 36 … edited for this project", quoted beside another
/// document's "After a filter change, confirm the FLTR-DP reading drops",
/// does not make the filter note what Guideline 36 says. The word is
/// then measured as one that names a document.
fn held_with_the_answer(
    held: &[String],
    by_document: &[Vec<String>],
    may_name: impl Fn(&String) -> bool,
) -> Vec<String> {
    held.iter()
        .filter(|t| {
            if !may_name(t) {
                return true;
            }
            let with: Vec<&Vec<String>> = by_document.iter().filter(|d| d.contains(t)).collect();
            held.iter()
                .filter(|s| !may_name(s))
                .all(|s| with.iter().any(|d| d.contains(s)))
        })
        .cloned()
        .collect()
}

/// Of the `candidates` ([`naming_candidates`]), the question's words that
/// name documents ("g36", "guideline 36" through its short form "g36",
/// "service log", "soo") when the quoted passages' documents (`paths`) are
/// not among those they name: a question that asks what Guideline 36 says
/// is not answered by the campus manual. A word names a document when it
/// is a word of the path of one of the `documents` (every ingested one),
/// as the lexical index reads words.
fn documents_missing(
    q: &Question,
    candidates: &[&String],
    documents: &[&str],
    paths: &[&str],
) -> Vec<String> {
    let mut seen: Vec<&str> = documents.to_vec();
    seen.sort_unstable();
    seen.dedup();
    let ingested: Vec<std::collections::HashSet<u32>> = seen.into_iter().map(path_terms).collect();
    let quoted: Vec<std::collections::HashSet<u32>> = paths.iter().map(|p| path_terms(p)).collect();
    // A term's forms: itself, and the other form of an abbreviation it is
    // a word of ("guideline" of "guideline 36" is "g36").
    let forms = |t: &String| -> Vec<Vec<u32>> {
        let mut out = vec![crate::vector::lexical::query(t).indices];
        out.extend(
            q.equivalents
                .iter()
                .filter(|e| e.terms.contains(t))
                .map(|e| crate::vector::lexical::query(&e.form.join(" ")).indices),
        );
        out.retain(|f| !f.is_empty());
        out
    };
    let names = |forms: &[Vec<u32>], path: &std::collections::HashSet<u32>| {
        forms.iter().any(|f| f.iter().all(|i| path.contains(i)))
    };
    candidates
        .iter()
        .filter(|t| {
            let f = forms(t);
            ingested.iter().any(|p| names(&f, p)) && !quoted.iter().any(|p| names(&f, p))
        })
        .map(|t| (*t).clone())
        .collect()
}

/// The picked sentences with the sentences beside them in their chunks
/// (the one before and the one after each; `text` gives a chunk's text by
/// its index): a passage is measured with its neighbouring sentences, the
/// context it is read in, though only the picked ones are quoted.
fn with_neighbours<'t>(
    focus: synthesize::Focus<'_>,
    picked: &[Picked],
    text: impl Fn(usize) -> &'t str,
) -> Vec<Picked> {
    let mut out: Vec<Picked> = picked.to_vec();
    // Each chunk is split once, however many of its sentences are quoted.
    let mut split: std::collections::HashMap<usize, Vec<crate::text::InContext>> =
        Default::default();
    for p in picked {
        let list = split
            .entry(p.source)
            .or_insert_with(|| crate::text::quotable_in_context(text(p.source)));
        let Some(k) = list.iter().position(|s| s.text == p.text) else {
            continue;
        };
        // The run-in heading of the next paragraph heads what follows it,
        // not the sentence before it: "At Demand Limit Level 3, increase
        // setpoint by 2 °C (4 °F)." ends the cooling list, and "Heating
        // demand limit setpoint adjustment." opens the heating paragraph.
        let next = Some(k + 1).filter(|n| list.get(*n).is_none_or(|s| !s.run_in));
        for n in [k.checked_sub(1), next].into_iter().flatten() {
            if let Some(s) = list.get(n)
                && !out.iter().any(|o| o.source == p.source && o.text == s.text)
            {
                out.push(Picked::beside(focus, p.source, &s.text));
            }
        }
    }
    out
}

/// Most sentences of one dated record an answer quotes.
const RECORD_SENTENCES: usize = 8;

/// The picked sentences with each dated record they belong to quoted
/// whole (`text` gives a chunk's text by its index): a service-log entry
/// ("2025-05-07 — CH-2: annual service. … Evaporator flow switch replaced
/// … (DL)") is one event — what was found, what was done, who did it — and
/// a quote of two of its sentences leaves out the rest of what the asker
/// reads it for. The record's sentences take the place of its first
/// picked one, in the record's order, at most [`RECORD_SENTENCES`];
/// sentences of no record stay as picked.
fn whole_records<'t>(
    focus: synthesize::Focus<'_>,
    picked: &[Picked],
    text: impl Fn(usize) -> &'t str,
) -> Vec<Picked> {
    let mut read: std::collections::HashMap<usize, Vec<(String, Option<usize>)>> =
        Default::default();
    let mut out: Vec<Picked> = Vec::new();
    for p in picked {
        if out.iter().any(|o| o.source == p.source && o.text == p.text) {
            continue;
        }
        let list = read.entry(p.source).or_insert_with(|| {
            crate::text::quotable_in_context(text(p.source))
                .into_iter()
                .map(|c| (c.text, c.opening))
                .collect()
        });
        let Some(k) = list.iter().position(|(s, _)| *s == p.text) else {
            out.push(p.clone());
            continue;
        };
        // The record's opening: the sentence's own, or itself when later
        // sentences stand under it.
        let opening = list[k]
            .1
            .or_else(|| list.iter().any(|(_, o)| *o == Some(k)).then_some(k));
        let Some(r) = opening else {
            out.push(p.clone());
            continue;
        };
        let members = std::iter::once(r)
            .chain((r + 1..list.len()).filter(|m| list[*m].1 == Some(r)))
            .take(RECORD_SENTENCES);
        for m in members {
            let s = &list[m].0;
            if out.iter().any(|o| o.source == p.source && o.text == *s) {
                continue;
            }
            out.push(
                match picked.iter().find(|q| q.source == p.source && q.text == *s) {
                    Some(q) => q.clone(),
                    None => Picked::beside(focus, p.source, s),
                },
            );
        }
    }
    out
}

/// The question's own words for `terms` (stemmed focus terms), as it
/// wrote them, with the number that follows one ("Guideline 36", "g36",
/// "service log"): what an abstention names back to the asker. A term the
/// text does not write as one word stays as it is.
fn as_asked(text: &str, terms: &[String]) -> Vec<String> {
    let said: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for t in terms {
        let form = said
            .iter()
            .position(|w| crate::text::stem(w) == *t || w.eq_ignore_ascii_case(t))
            .map(|k| match said.get(k + 1) {
                Some(n) if n.chars().all(|c| c.is_ascii_digit() || c == '.') => {
                    format!("{} {n}", said[k])
                }
                _ => said[k].to_owned(),
            })
            .unwrap_or_else(|| t.clone());
        if !out.contains(&form) {
            out.push(form);
        }
    }
    out
}

/// What the quoted passage (`picked`, its `headings`) leaves out of what a
/// question asks of dated records: the dates and years it names that no quoted
/// sentence, nor the record it stands in, holds (`held`: the terms the
/// passage holds); and, when every quoted sentence stands in a dated
/// record, the named equipment and points none of those records names (not
/// the places: an entry on VAV-2-05 answers for the room it serves). An
/// entry of a log is one event: it answers for its date and what it
/// names, not for another day or another box.
fn records_missing<'t>(
    q: &Question,
    picked: &[Picked],
    headings: &[&str],
    held: &[String],
    is_location: impl Fn(&str) -> bool,
    text: impl Fn(usize) -> &'t str + Copy,
) -> Vec<String> {
    let quoted = whole_records(q.focus(), picked, text);
    let words: Vec<&str> = quoted
        .iter()
        .flat_map(|p| p.text.split_whitespace())
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    // A year said alone ("the 2026 airflow verification") is held by a
    // date of that year, or by the year itself (a log's "2026" section).
    let year = |t: &str| crate::text::year(t, false).is_some();
    let holds_date = |term: &String| {
        held.contains(term)
            || words.iter().any(|w| {
                if year(term) {
                    w.starts_with(term.as_str())
                } else {
                    crate::text::date_holds(term, w)
                }
            })
    };
    let mut missing: Vec<String> = q
        .focus()
        .terms
        .iter()
        .filter(|t| (crate::text::is_date_term(t) || year(t)) && !holds_date(t))
        .cloned()
        .collect();
    // A month said alone ("at the mar airflow check") is held by a date
    // of that month in any year.
    for m in crate::text::months_alone(&q.text) {
        if !words.iter().any(|w| crate::text::date_in_month(w, m)) {
            let name =
                chrono::Month::try_from(m).map_or_else(|_| m.to_string(), |n| n.name().to_owned());
            missing.push(name);
        }
    }
    let labels: Vec<&String> = q
        .grounding
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Instance && !is_location(&e.iri))
        .map(|e| &e.label)
        .chain(&q.owners)
        .collect();
    let instances = synthesize::squashed_labels(labels.iter().copied());
    // Each chunk read once, however many of its sentences are picked.
    let mut read: std::collections::HashMap<usize, Vec<crate::text::InContext>> =
        Default::default();
    let mut in_dated_record = |p: &Picked| {
        let list = read
            .entry(p.source)
            .or_insert_with(|| crate::text::quotable_in_context(text(p.source)));
        dated_record_holds(list, &p.text)
    };
    if !instances.is_empty()
        && !picked.is_empty()
        && picked.iter().all(&mut in_dated_record)
        && !quoted
            .iter()
            .map(|p| p.text.as_str())
            .chain(headings.iter().copied())
            .any(|t| synthesize::mentions(t, &instances) > 0)
    {
        let mut named: Vec<String> = labels.into_iter().cloned().collect();
        named.dedup();
        missing.extend(named);
    }
    missing
}

/// Whether `sentence` stands in a dated record of its chunk's sentences
/// (`list`): it opens with a date ("2026-03-20 — Annual airflow
/// verification …") or stands under a sentence that does.
fn dated_record_holds(list: &[crate::text::InContext], sentence: &str) -> bool {
    list.iter()
        .position(|c| c.text == sentence)
        .is_some_and(|k| {
            let opening = list[k].opening.unwrap_or(k);
            crate::text::opens_with_date(&list[opening].text)
        })
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
    /// Grounds the chunks' heading paths (what a passage is about).
    pub grounder: &'a Grounder,
    /// The class hierarchy.
    pub view: GraphView<'a>,
    /// The words of the models and the ontology.
    pub spelling: &'a crate::answer::respell::Spelling,
}

/// Drafts the document answer, or the reason to abstain, with what it was
/// measured on (nothing when every passage was about other equipment and
/// none was measured).
pub async fn answer(
    docs: Option<&DocService>,
    cfg: &AnswerConfig,
    q: &Question,
    found: Found<'_>,
) -> Result<(Draft, Option<Answerability>), EmbedError> {
    let top = &found.hits[..found.selected];
    let kinds = Kinds::asked(q, found.grounder, found.view);
    let off: Vec<usize> = (0..top.len())
        .filter(|i| kinds.other_than(q, &top[*i].hit.payload))
        .collect();
    if !off.is_empty() {
        tracing::info!(
            chunks = off.len(),
            selected = top.len(),
            ranks = ?off.iter().map(|i| i + 1).collect::<Vec<_>>(),
            "chunks about other equipment than the question's left out"
        );
    }
    if !top.is_empty() && off.len() == top.len() {
        let asked = kinds.words.iter().map(|w| w.join(" ")).collect();
        return Ok((Draft::Abstain(refusal::Reason::OtherEquipment(asked)), None));
    }
    let may_name = |t: &String| may_name_document(t, found.spelling);
    let picked = picks(cfg, q, found.hits, found.selected, &off, may_name);
    let mut used: Vec<usize> = Vec::new();
    for p in &picked {
        if !used.contains(&p.source) {
            used.push(p.source);
        }
    }
    // A passage is its sentences with the heading they stand under.
    let headings: Vec<&str> = used
        .iter()
        .map(|i| own_heading(&top[*i].hit.payload.section_title))
        .collect();
    // The similarity of each quoted sentence, then of each used chunk's
    // passage whole: its heading, then the sentences quoted from it
    // ("Freeze Protection: … If the supply air temperature drops below
    // 3.3 °C (38 °F) for 15 minutes …").
    let sims: Vec<f32> = match (docs, found.vector) {
        (Some(docs), Some(v)) if !found.hits.is_empty() => {
            let passages = used.iter().zip(&headings).map(|(i, h)| {
                let quoted: Vec<&str> = picked
                    .iter()
                    .filter(|p| p.source == *i)
                    .map(|p| p.text.as_str())
                    .collect();
                format!("{}: {}", crate::text::camel_spaced(h), quoted.join(" "))
            });
            // Dates as the question says them: "june 2025" is far from
            // "2025-06-18" to the embedding model, near "18 June 2025";
            // abbreviations spelled out as the question's are ("ZNT
            // reading 3 °F high" is "zone temperature reading …", as "zone
            // temp was reading high" is embedded).
            let texts = picked
                .iter()
                .map(|p| p.text.clone())
                .chain(passages)
                .map(|t| found.spelling.spelled_out(&crate::text::dates_in_words(&t)))
                .collect();
            let vectors = docs.embed(texts).await?;
            vectors.iter().map(|p| crate::embed::cosine(v, p)).collect()
        }
        _ => Vec::new(),
    };
    let (sentence_sims, passage_sims) = sims.split_at(sims.len().min(picked.len()));
    // Confidence is 1 − mean cosine distance of what the answer uses: per
    // chunk used, the closest of the chunk, the passage quoted from it
    // with its heading, and a sentence of it (a 256-token chunk dilutes
    // the one sentence that answers; a sentence alone may lack what its
    // heading says it is about).
    let confidence = used
        .iter()
        .enumerate()
        .map(|(u, i)| {
            let passage = picked
                .iter()
                .zip(sentence_sims)
                .filter(|(p, _)| p.source == *i)
                .map(|(_, s)| *s)
                .chain(passage_sims.get(u).copied())
                .fold(f32::MIN, f32::max);
            top[*i].hit.score.max(passage)
        })
        .sum::<f32>()
        / used.len().max(1) as f32;
    // Terms that name the passage's document ("per g36" of docs/g36/…,
    // "the service log") chose the document: a passage that does not
    // repeat them is not measured on them, unless they are all the
    // question says.
    let paths: Vec<&str> = used
        .iter()
        .map(|i| top[*i].hit.payload.source_ref.as_str())
        .collect();
    let passage = with_neighbours(q.focus(), &picked, |i| &top[i].hit.payload.node_content);
    let Measured {
        asked,
        naming,
        held,
    } = measure(q, &passage, &headings, &paths);
    // What each quoted document holds of the question, its passage and
    // its headings.
    let mut documents: Vec<&str> = paths.clone();
    documents.sort_unstable();
    documents.dedup();
    let held_by_document: Vec<Vec<String>> = documents
        .iter()
        .map(|d| {
            let mine = |i: &usize| top[*i].hit.payload.source_ref == *d;
            let sentences: Vec<Picked> = passage
                .iter()
                .filter(|p| mine(&p.source))
                .cloned()
                .collect();
            let own: Vec<&str> = used
                .iter()
                .zip(&headings)
                .filter(|(i, _)| mine(i))
                .map(|(_, h)| *h)
                .collect();
            synthesize::held(q.focus(), &q.labels, &sentences, &own).terms
        })
        .collect();
    // A kind the question names by name ("humidity setpoint") is what it
    // asks about: a passage that does not name it answers something else.
    // A kind named by its tag ("fcu") is asked about as one named by name
    // when no retrieved chunk is linked to its class: the documents do not
    // cover it, and a passage that does not name it is about another kind
    // (the single-zone AHU block for a four-pipe fan coil unit). Where a
    // chunk is linked to it ("ahu", "vav"), the passages' own words decide.
    let unlinked = q.tag_kinds.iter().filter(|k| {
        let class = k.class.as_deref().map(crate::vocab::local_name);
        !found.hits.iter().any(|h| {
            let p = &h.hit.payload;
            p.equip.contains(&k.said) || p.brick_equip.iter().any(|c| Some(c.as_str()) == class)
        })
    });
    let kinds_missing: Vec<String> = q
        .kinds
        .iter()
        .chain(unlinked)
        .filter(|k| {
            !picked.iter().any(|p| k.named_in(&p.text))
                && !headings
                    .iter()
                    .any(|h| k.named_by_words_in(&crate::text::camel_spaced(h)))
        })
        .map(|k| k.said.clone())
        .chain(short_names_missing(
            &q.grounding.entities,
            |iri| found.view.is_point(iri),
            &picked
                .iter()
                .map(|p| p.text.as_str())
                .chain(headings.iter().copied())
                .collect::<Vec<_>>(),
        ))
        .collect();
    // Which documents a word names is read only when the question has a
    // word that may name one: every document in the graph, or the
    // retrieved ones when the graph cannot say.
    let candidates = naming_candidates(
        q,
        &held_with_the_answer(&held.terms, &held_by_document, may_name),
        may_name,
    );
    let documents_missing = if candidates.is_empty() {
        Vec::new()
    } else {
        let all_paths: Vec<String> = match docs {
            Some(docs) => docs.ingestor().document_paths().await.unwrap_or_else(|e| {
                tracing::warn!(error = %e, "the graph could not list the documents");
                Vec::new()
            }),
            None => Vec::new(),
        };
        let named_paths: Vec<&str> = if all_paths.is_empty() {
            found
                .hits
                .iter()
                .map(|h| h.hit.payload.source_ref.as_str())
                .collect()
        } else {
            all_paths.iter().map(String::as_str).collect()
        };
        documents_missing(q, &candidates, &named_paths, &paths)
    };
    if !documents_missing.is_empty() {
        tracing::info!(
            named = ?documents_missing,
            "the question names documents the quoted passages are not from"
        );
    }
    // A question for a number ("at what", "trigger") is not answered by
    // a passage that gives none ("Freeze protection sequence for
    // multizone AHU system."): no quantity, nor the sequence parameter
    // that holds one ("the active cooling maximum is VCooMax_flow").
    // Nor is a question that names the unit it asks in ("what hp is the
    // CT-1 fan motor") answered by a passage that states no quantity in a
    // unit of that kind ("The CT-1 fan … between 20 % and 100 % speed").
    // A parameter the question names is what it asks the value of: a
    // passage naming it again gives none.
    let parameters = crate::text::parameters_named(&q.text);
    let gives = |units: &[String]| {
        picked
            .iter()
            .any(|p| crate::text::gives_value_besides(&p.text, units, &parameters))
    };
    let number_missing = (q.reading.number && !gives(&q.units))
        || (!q.units_asked.is_empty() && !gives(&q.units_asked));
    // A dated record is one event, of its date and of what it names: a
    // question about a day or a month, or about a node the records do
    // not name, is not answered by another day's entry ("VAV-B2-08's hood
    // reading in March 2026" by the March sample that lists other boxes;
    // "that January 2025 morning" by the plant's design conditions).
    let records_missing = records_missing(
        q,
        &picked,
        &headings,
        &held.terms,
        |iri| found.view.is_location(iri),
        |i| &top[i].hit.payload.node_content,
    );
    if !records_missing.is_empty() {
        tracing::info!(
            missing = ?records_missing,
            "the quoted records are of another date or other equipment"
        );
    }
    // A word the question comes back to is what it is about ("g36 holiday
    // sched - … unocc on holidays or is there a holiday mode?"): a passage
    // that does not hold it answers something else (the warm-up mode the
    // same question also names), however much of the rest it holds.
    let topics_missing: Vec<String> = asked
        .iter()
        .filter(|t| !held.terms.contains(t) && q.reading.topics.contains(t))
        .cloned()
        .collect();
    if !topics_missing.is_empty() {
        tracing::info!(topics = ?topics_missing, "the quoted passage does not hold a word the question comes back to");
    }
    let measures = DocumentMeasures {
        records_missing: records_missing.clone(),
        topics_missing,
        number_missing,
        documents_missing: as_asked(&q.text, &documents_missing),
        kinds_missing: kinds_missing.clone(),
        retrieved: found.hits.len(),
        // Relevance is measured on what answers as on what was retrieved:
        // the best chunk, or the best passage quoted from one. A table's
        // chunk dilutes the one row that answers ("a box dropped offline
        // after a power blip - fix?" is 0.38 from the fault table's chunk
        // and 0.63 from its row "Box offline after a power blip … |
        // Power-cycle; update to 3.5.1").
        best: found
            .hits
            .iter()
            .map(|h| h.hit.score)
            .chain(sims.iter().copied())
            .fold(f32::MIN, f32::max),
        coverage: held.coverage,
        confidence,
    };
    let held = held.terms;
    let measured = Answerability {
        best: measures.best.max(0.0),
        coverage: measures.coverage,
        confidence: measures.confidence,
        missing: asked
            .iter()
            .filter(|t| !held.contains(t))
            .cloned()
            .chain(kinds_missing.into_iter().filter(|k| !asked.contains(k)))
            .chain(records_missing.into_iter().filter(|r| !asked.contains(r)))
            .collect(),
        held,
        document: naming,
    };
    if let Some(reason) = refusal::of_documents(cfg, q, &measures) {
        return Ok((Draft::Abstain(reason), Some(measured)));
    }
    // What is quoted: the measured sentences, each dated record whole.
    let picked = whole_records(q.focus(), &picked, |i| &top[i].hit.payload.node_content);
    let Some(first_used) = used.first().map(|i| &top[*i]) else {
        return Ok((
            Draft::Abstain(refusal::Reason::NothingRetrieved),
            Some(measured),
        ));
    };
    // The equipment the question names that a quoted passage's document
    // mentions elsewhere (its scope: "CHW-SYS, the variable-primary
    // chilled-water system …") is what the passage is about too, though
    // the passage itself does not name it again. The graph is asked only
    // when a quoted chunk does not link a named node.
    let lacking: Vec<String> = found
        .about
        .iter()
        .filter(|id| {
            picked
                .iter()
                .any(|p| !top[p.source].hit.payload.graph_ids.contains(id))
        })
        .cloned()
        .collect();
    let scope = match docs {
        Some(docs) if !lacking.is_empty() => docs
            .ingestor()
            .documents_mentioning(&paths, &lacking)
            .await
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, "the graph could not say what the documents mention");
                Default::default()
            }),
        _ => Default::default(),
    };
    if !scope.is_empty() {
        tracing::info!(
            pairs = scope.len(),
            "named equipment cited from the quoted passages' documents"
        );
    }
    let evidence: Vec<EvidenceItem> = picked
        .iter()
        .map(|p| {
            let chunk = &top[p.source];
            let mut item = chunk_evidence(chunk, &p.text, found.about);
            let path = &chunk.hit.payload.source_ref;
            let named: Vec<String> = lacking
                .iter()
                .filter(|id| {
                    !item.graph_ids.contains(id) && scope.iter().any(|(d, x)| d == path && x == *id)
                })
                .cloned()
                .collect();
            item.graph_ids.splice(0..0, named);
            item
        })
        .collect();
    let answer = quoted_text(&picked, |i| where_in(&top[i]));
    let draft = Draft::Answer(
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
    );
    Ok((draft, Some(measured)))
}

/// The answer's text: the picked sentences in order. Sentences quoted
/// side by side from one chunk share one citation (`where_in` of their
/// chunk), after the last of them; rows of one table side by side share
/// its caption, said once (the evidence quotes each row whole); the items
/// of a list and a table's rows are set apart ("Occupied mode; Cooldown
/// mode; …"), not run together as one string of words.
fn quoted_text(picked: &[Picked], where_in: impl Fn(usize) -> String) -> String {
    // The length of the caption each sentence shares with the one before.
    let shared: Vec<Option<usize>> = std::iter::once(None)
        .chain(picked.windows(2).map(|w| {
            (w[0].source == w[1].source)
                .then(|| crate::text::shared_caption(&w[0].text, &w[1].text))
                .flatten()
        }))
        .collect();
    picked
        .iter()
        .enumerate()
        .map(|(n, p)| {
            let text = shared[n].map_or(p.text.as_str(), |c| &p.text[c..]);
            match picked.get(n + 1) {
                Some(next) if next.source == p.source => {
                    let continues = shared[n + 1].is_some();
                    if continues && !text.ends_with(['.', '!', '?', ':', ';']) {
                        format!("{text}.")
                    } else if crate::text::is_bare_phrase(text) {
                        format!("{text};")
                    } else {
                        text.to_owned()
                    }
                }
                _ => format!("{text} (from {})", where_in(p.source)),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A term names a document when the lexical index reads it among the
    /// words of the document's path, CamelCase whole or split; other terms
    /// and stop words do not.
    #[test]
    fn terms_that_name_the_passage_document() {
        let terms: Vec<String> = ["g36", "multizon", "relief", "fan", "start", "humidifi"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            document_terms(
                &terms,
                &["docs/g36/AHUs_MultiZone_VAV_SetPoints_ReliefFan.html"]
            ),
            ["g36", "multizon", "relief", "fan"]
        );
        assert!(document_terms(&terms, &["golden/corpus/northfield_service_log.md"]).is_empty());
        assert!(document_terms(&terms, &[]).is_empty());
    }

    /// Quoted side by side from one chunk, sentences share one citation;
    /// a list's bare items and a table's rows are set apart.
    #[test]
    fn quoted_sentences_read_as_written() {
        let quote = |source: usize, text: &str| Picked {
            source,
            text: text.to_owned(),
            matched: Vec::new(),
            score: 0.0,
        };
        let picked = [
            quote(0, "The following hierarchy applies:"),
            quote(0, "Occupied mode"),
            quote(0, "Cooldown mode"),
            quote(1, "Stage 3 requires a manual reset."),
            quote(2, "Chiller evaporator | 540 gpm"),
            quote(2, "Condenser water | 900 gpm"),
        ];
        assert_eq!(
            quoted_text(&picked, |i| format!("doc {i}")),
            "The following hierarchy applies: Occupied mode; Cooldown mode (from doc 0) \
             Stage 3 requires a manual reset. (from doc 1) \
             Chiller evaporator | 540 gpm; Condenser water | 900 gpm (from doc 2)"
        );
    }

    /// When a picked sentence is from a document the question names, the
    /// sentences of documents it does not name are not quoted with it.
    #[test]
    fn a_question_naming_documents_is_answered_from_them() {
        let paths = [
            "docs/g36/AHUs_MultiZone_VAV_Economizers_Subsequences_Enable.html",
            "golden/corpus/northfield_soo_ahu.md",
        ];
        let quote = |source: usize, text: &str| Picked {
            source,
            text: text.to_owned(),
            matched: Vec::new(),
            score: 0.0,
        };
        let picked = vec![
            quote(
                0,
                "Additional conditions are: freeze protection (stage 0-3).",
            ),
            quote(1, "Stage 3 requires a manual reset at the AHU controller."),
        ];
        let texts = |ps: &[Picked]| ps.iter().map(|p| p.text.clone()).collect::<Vec<_>>();
        let terms: Vec<String> = ["g36", "freez", "reset"].map(String::from).to_vec();
        // Whether the question's terms name the document of chunk `i`
        // by "g36", the word that may name one here.
        fn named<'a>(terms: &'a [String], paths: &'a [&str]) -> impl Fn(usize) -> bool + 'a {
            move |i| {
                document_terms(terms, &[paths[i]])
                    .iter()
                    .any(|t| t == "g36")
            }
        }
        let got = from_named_documents(picked.clone(), named(&terms, &paths));
        assert_eq!(texts(&got), texts(&picked[..1]));
        // A question naming no document keeps both.
        let plain: Vec<String> = ["freez", "reset"].map(String::from).to_vec();
        let got = from_named_documents(picked.clone(), named(&plain, &paths));
        assert_eq!(texts(&got), texts(&picked));
        // Whichever comes first.
        let swapped: Vec<Picked> = picked.iter().rev().cloned().collect();
        let got = from_named_documents(swapped, named(&terms, &paths));
        assert_eq!(texts(&got), texts(&picked[..1]));
    }

    /// A word that may name a document counts as held only where a
    /// document holding it holds the rest of the answer too.
    #[test]
    fn a_document_word_is_held_beside_the_answer() {
        let owned = |ws: &[&str]| ws.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        let may_name = |t: &String| ["guidelin", "chang"].contains(&t.as_str());
        let held = owned(&["guidelin", "air", "handler", "filter", "chang"]);
        // "Guideline 36" in one document's basis line, the filter in
        // another's note: the filter note is not what the guideline says.
        let apart = [
            owned(&["guidelin", "air", "handler"]),
            owned(&["air", "handler", "filter", "chang"]),
        ];
        assert_eq!(
            held_with_the_answer(&held, &apart, may_name),
            owned(&["air", "handler", "filter", "chang"])
        );
        // One document holding both: the word is held.
        let together = [held.clone(), owned(&["air", "handler"])];
        assert_eq!(held_with_the_answer(&held, &together, may_name), held);
    }

    /// A point the question names by its short name must be named as a
    /// word by what is quoted: "CHW-DP" and "HW-DP-SP" do not name
    /// "HW-DP"; a point named by its whole label, and equipment, are not
    /// required.
    #[test]
    fn a_point_named_by_its_short_name_must_be_quoted() {
        let entity = |iri: &str, label: &str, matched: &str| crate::ground::Entity {
            iri: iri.into(),
            label: label.into(),
            kind: crate::ground::EntityKind::Instance,
            class: None,
            confidence: 0.95,
            matched: matched.into(),
            span: Default::default(),
        };
        let named = [
            entity("nf:HW-SYS_HW-DP", "HW-SYS HW-DP", "hw-dp"),
            entity("nf:AHU-1_SAT", "AHU-1 SAT", "ahu-1 sat"),
            entity("nf:AHU-1", "AHU-1", "ahu1"),
        ];
        let is_point = |iri: &str| iri.contains('_');
        let other = [
            "the remote loop differential pressure CHW-DP, measured across \
                      the AHU-2 cooling coil, at its setpoint CHW-DP-SP; HW-DP-SP is 4 psi.",
        ];
        assert_eq!(short_names_missing(&named, is_point, &other), ["hw-dp"]);
        let own = ["HW-DP is measured at the end of the loop (HW-DP)."];
        assert!(short_names_missing(&named, is_point, &own).is_empty());
    }

    /// An abstention names a document as the question wrote it, with the
    /// number after it, once.
    #[test]
    fn documents_are_named_as_asked() {
        let terms: Vec<String> = ["guideline", "g36", "log"].map(String::from).to_vec();
        assert_eq!(
            as_asked("What does Guideline 36 say about it, per g36?", &terms),
            ["Guideline 36", "g36", "log"]
        );
        assert_eq!(
            as_asked("guideline, guidelines", &terms[..1]),
            ["guideline"]
        );
    }

    /// A passage is measured with the sentences before and after each
    /// quoted one, in the quoted one's chunk, once each; a sentence not
    /// found in its chunk brings no neighbours.
    #[test]
    fn a_passage_is_measured_with_its_neighbouring_sentences() {
        let terms: Vec<String> = ["warm-up", "start", "earli", "window"]
            .map(String::from)
            .to_vec();
        let focus = synthesize::Focus::plain(&terms);
        let chunks = [
            "Warm-up mode shall start before the occupied period. \
             It starts no earlier than 3 hours before it. \
             Zones with an open window are ignored. \
             The figure shows the sequence.",
            "Cooldown mode ends at the occupied start time.",
        ];
        let quote = |source: usize, text: &str| Picked::beside(focus, source, text);
        let picked = [quote(0, "It starts no earlier than 3 hours before it.")];
        let measured = with_neighbours(focus, &picked, |i| chunks[i]);
        let texts: Vec<&str> = measured.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "It starts no earlier than 3 hours before it.",
                "Warm-up mode shall start before the occupied period.",
                "Zones with an open window are ignored.",
            ]
        );
        assert_eq!(measured[2].matched, ["window"]);
        let held = synthesize::held(focus, &[], &measured, &[]);
        assert_eq!(held.terms, ["warm-up", "start", "earli", "window"]);
        // Two quoted sentences side by side bring each other once.
        let both = [
            quote(0, "It starts no earlier than 3 hours before it."),
            quote(0, "Zones with an open window are ignored."),
        ];
        assert_eq!(with_neighbours(focus, &both, |i| chunks[i]).len(), 4);
        // A sentence its chunk does not hold has no neighbours there.
        let elsewhere = [quote(
            1,
            "Warm-up mode shall start before the occupied period.",
        )];
        assert_eq!(with_neighbours(focus, &elsewhere, |i| chunks[i]).len(), 1);
    }

    /// A sentence of a dated record brings its whole record, in the
    /// record's order, in place of the first sentence picked from it; a
    /// sentence of no record, or of another chunk, stays as picked.
    #[test]
    fn a_dated_record_is_quoted_whole() {
        let terms: Vec<String> = ["ch-2", "part", "swap"].map(String::from).to_vec();
        let focus = synthesize::Focus::plain(&terms);
        let chunks = [
            "2025-05-06 — CH-1: annual service. Condenser tubes brushed. (JK)\n\n\
             2025-05-07 — CH-2: annual service. Condenser approach 2.9 °F before brushing. \
             Evaporator flow switch replaced because it chattered. Refrigerant charge correct. (DL)\n\n\
             Chillers are serviced every spring.",
            "2025-06-01 — CH-2: oil sample taken. Acid number normal.",
        ];
        let quote = |source: usize, text: &str| Picked::beside(focus, source, text);
        let picked = [
            quote(0, "Evaporator flow switch replaced because it chattered."),
            quote(0, "2025-05-07 — CH-2: annual service."),
            quote(0, "Chillers are serviced every spring."),
        ];
        let texts: Vec<String> = whole_records(focus, &picked, |i| chunks[i])
            .into_iter()
            .map(|p| p.text)
            .collect();
        assert_eq!(
            texts,
            [
                "2025-05-07 — CH-2: annual service.",
                "Condenser approach 2.9 °F before brushing.",
                "Evaporator flow switch replaced because it chattered.",
                "Refrigerant charge correct. (DL)",
                "Chillers are serviced every spring.",
            ]
        );
        // The record's opening alone brings the record too; another
        // chunk's record is read in that chunk.
        let other = [quote(1, "2025-06-01 — CH-2: oil sample taken.")];
        assert_eq!(whole_records(focus, &other, |i| chunks[i]).len(), 2);
    }
}
