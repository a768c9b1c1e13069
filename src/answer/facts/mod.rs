//! Graph first: the facts the store holds about what a question names,
//! turned into sentences with their graph ids and provenance.
//!
//! Node descriptions come from SPARQL over the named graphs (so each fact
//! knows the file it came from and that file's sha256); walks along
//! `feeds` and `hasPart` come from the [`Topology`](crate::topology), the
//! only graph walk, shared with `/api/topology/*`. Which relation to follow
//! is the question's [`Reading`](super::intent::Reading); which classes to
//! keep is its grounding. One file per kind of fact: [`feeds`], [`points`],
//! [`location`], [`product`], [`definition`] (definitions, abbreviations
//! and Haystack tags).

mod definition;
mod feeds;
mod location;
mod points;
mod product;
#[cfg(test)]
mod tests;

use super::Fact;
use super::intent::Intent;
use super::question::Question;
use super::view::GraphView;
use crate::ground::EntityKind;
use crate::store::{
    GraphKind, GraphStore, SolutionExt, SourceRecord, StoreResult, Term, TermExt, select,
};
use crate::topology::Rel;
use crate::vocab::{self, PREFIXES};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Longest transitive walk along `feeds`.
const MAX_HOPS: usize = 32;
/// Most names listed in one sentence before "and N more".
const MAX_LISTED: usize = 60;

/// What the store says about one node: predicate → (object, object label),
/// and the named graphs the statements live in.
#[derive(Debug, Clone, Default)]
pub struct Card {
    /// Outgoing statements.
    pub props: BTreeMap<String, Vec<(Term, Option<String>)>>,
    /// Graphs holding them.
    pub graphs: BTreeSet<String>,
}

impl Card {
    /// Objects of a predicate.
    pub fn all(&self, p: &str) -> &[(Term, Option<String>)] {
        self.props.get(p).map(Vec::as_slice).unwrap_or_default()
    }

    /// The first object's value.
    pub fn first(&self, p: &str) -> Option<&str> {
        self.all(p).first().map(|(t, _)| t.value())
    }

    /// IRIs of a predicate's objects.
    pub fn iris(&self, p: &str) -> Vec<String> {
        self.all(p)
            .iter()
            .filter_map(|(t, _)| t.as_iri().map(str::to_owned))
            .collect()
    }
}

/// Where a fact came from: (file, sha256, updated at).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The file, relative.
    pub path: String,
    /// Its sha256.
    pub sha: String,
    /// When it last changed (RFC 3339).
    pub updated_at: String,
}

/// The graph-first step over one question.
pub struct GraphContext<'a> {
    store: &'a dyn GraphStore,
    view: GraphView<'a>,
    question: &'a Question,
    sources: HashMap<String, SourceRecord>,
    cards: HashMap<String, Card>,
    /// SPARQL run, for the trace.
    pub queries: Vec<String>,
    /// The result a fact answers with, when it is one a composed query
    /// would have given (yes or no about two classes), for the trace.
    pub answer: Option<super::GraphAnswer>,
}

/// The local name of an IRI.
pub(crate) fn local(iri: &str) -> &str {
    vocab::local_name(iri)
}

fn humanize(name: &str) -> String {
    name.replace('_', " ")
}

/// Names joined by commas, at most [`MAX_LISTED`] of them.
fn listing(names: &[String]) -> String {
    if names.len() > MAX_LISTED {
        format!(
            "{} and {} more",
            names[..MAX_LISTED].join(", "),
            names.len() - MAX_LISTED
        )
    } else {
        names.join(", ")
    }
}

/// A `dq:` property.
fn dq(local: &str) -> String {
    format!("{}{local}", vocab::DQ)
}

impl<'a> GraphContext<'a> {
    /// Reads the source records once.
    pub async fn new(
        store: &'a dyn GraphStore,
        view: GraphView<'a>,
        question: &'a Question,
    ) -> StoreResult<Self> {
        let sources = store
            .sources()
            .await?
            .into_iter()
            .map(|r| (r.graph.clone(), r))
            .collect();
        Ok(Self {
            store,
            view,
            question,
            sources,
            cards: HashMap::new(),
            queries: Vec::new(),
            answer: None,
        })
    }

    async fn run(&mut self, query: String) -> StoreResult<Vec<crate::store::Solution>> {
        let rows = select(self.store, &query).await?;
        self.queries.push(query.trim().to_owned());
        Ok(rows)
    }

    /// Loads the cards of `iris` (one query for those not loaded yet).
    pub async fn load(&mut self, iris: &[String]) -> StoreResult<()> {
        let missing: Vec<&String> = iris
            .iter()
            .filter(|i| !self.cards.contains_key(*i) && crate::store::is_safe_iri(i))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let values: String = missing.iter().map(|i| format!(" <{i}>")).collect();
        let q = format!(
            "{PREFIXES}SELECT ?s ?g ?p ?o ?ol WHERE {{ VALUES ?s {{{values} }} \
             GRAPH ?g {{ ?s ?p ?o }} OPTIONAL {{ ?o rdfs:label ?ol }} }} \
             ORDER BY ?s ?p ?o ?g ?ol"
        );
        let rows = self.run(q).await?;
        for i in &missing {
            self.cards.insert((*i).clone(), Card::default());
        }
        for r in rows {
            let (Some(s), Some(p), Some(o)) = (r.str("s"), r.str("p"), r.get("o")) else {
                continue;
            };
            let card = self.cards.entry(s.to_owned()).or_default();
            if let Some(g) = r.str("g") {
                card.graphs.insert(g.to_owned());
            }
            let entry = card.props.entry(p.to_owned()).or_default();
            let label = r.str("ol").map(str::to_owned);
            if !entry.iter().any(|(t, _)| t == o) {
                entry.push((o.clone(), label));
            }
        }
        Ok(())
    }

    /// The card of a loaded node.
    pub fn card(&self, iri: &str) -> Card {
        self.cards.get(iri).cloned().unwrap_or_default()
    }

    /// A node's label: the topology's, its card's, its class label, or
    /// its local name.
    pub fn label(&self, iri: &str) -> String {
        if let Some(l) = self.view.topo.label(iri) {
            return l.to_owned();
        }
        if let Some(l) = self.cards.get(iri).and_then(|c| c.first(vocab::RDFS_LABEL)) {
            return l.to_owned();
        }
        if let Some(l) = self.view.onto.class(iri).and_then(|c| c.label.clone()) {
            return l;
        }
        humanize(local(iri))
    }

    fn names(&self, iris: &[String]) -> Vec<String> {
        iris.iter().map(|i| self.label(i)).collect()
    }

    /// The label of a node's most specific type.
    fn class_phrase(&self, iri: &str) -> String {
        self.view
            .specific_types(iri)
            .first()
            .map(|t| self.label(t))
            .unwrap_or_default()
    }

    /// The (file, sha256, updated_at) a loaded node came from: the
    /// instance's own record (written at import), else the named graph's
    /// source record (building models before ontology files).
    pub fn provenance(&self, iri: &str) -> Option<Provenance> {
        let card = self.cards.get(iri)?;
        if let (Some(path), Some(sha)) =
            (card.first(&dq("sourcePath")), card.first(&dq("sourceSha")))
        {
            let updated = card
                .first(&dq("updatedAt"))
                .map(str::to_owned)
                .or_else(|| {
                    self.sources
                        .values()
                        .find(|r| r.path == path)
                        .map(|r| r.updated_at.to_rfc3339())
                })
                .unwrap_or_default();
            return Some(Provenance {
                path: path.to_owned(),
                sha: sha.to_owned(),
                updated_at: updated,
            });
        }
        let mut records: Vec<&SourceRecord> = card
            .graphs
            .iter()
            .filter_map(|g| self.sources.get(g))
            .filter(|r| r.kind != GraphKind::Document)
            .collect();
        records.sort_by_key(|r| (r.kind != GraphKind::Model, r.path.starts_with("assets/")));
        records.first().map(|r| Provenance {
            path: r.path.clone(),
            sha: r.sha256.clone(),
            updated_at: r.updated_at.to_rfc3339(),
        })
    }

    fn make(&self, text: String, about: &str, ids: Vec<String>, negative: bool) -> Option<Fact> {
        let p = self.provenance(about)?;
        let mut graph_ids = vec![about.to_owned()];
        for id in ids {
            if !graph_ids.contains(&id) {
                graph_ids.push(id);
            }
        }
        Some(Fact {
            negative,
            text,
            graph_ids,
            file_path: p.path,
            source_sha: p.sha,
            updated_at: p.updated_at,
        })
    }

    /// A fact that answers: `text` about `about`, citing `ids` too.
    fn fact(&self, text: String, about: &str, ids: Vec<String>) -> Option<Fact> {
        self.make(text, about, ids, false)
    }

    /// A fact that only says nothing was found ("No chiller is upstream
    /// of …"): it does not answer on its own.
    fn nothing(&self, text: String, about: &str, ids: Vec<String>) -> Option<Fact> {
        self.make(text, about, ids, true)
    }

    /// Haystack tag names of a loaded node.
    fn tag_names(&self, iri: &str) -> Vec<String> {
        self.card(iri)
            .iris(&dq("hasHaystackTag"))
            .iter()
            .map(|t| {
                self.view
                    .onto
                    .markers()
                    .find(|(_, i)| *i == t)
                    .map_or_else(|| local(t).to_owned(), |(n, _)| n.clone())
            })
            .collect()
    }

    /// The instances the question names that the topology holds; for a
    /// feeds question a named point stands for its equipment, and a named
    /// class that one of the subject's parts has makes that part the
    /// subject ("the cooling coil of an air handler"). Returns the subjects and
    /// the class filters left.
    fn subjects(&self) -> (Vec<String>, Vec<String>) {
        let q = self.question;
        let topo = self.view.topo;
        let mut subjects: Vec<String> = q
            .grounding
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Instance && topo.contains(&e.iri))
            .map(|e| e.iri.clone())
            .collect();
        subjects.dedup();
        let mut filters = q.classes.clone();
        let feeds = q.reading.asks_feeds();
        if feeds {
            for s in subjects.iter_mut() {
                if self.view.is_point(s)
                    && let Some(owner) = topo.owner_of_point(s)
                {
                    *s = owner;
                }
            }
            subjects.dedup();
        }
        if feeds && !q.reading.has(Intent::Parts) {
            for s in subjects.iter_mut() {
                let parts = topo.parts(s);
                if let Some((ci, part)) = filters.iter().enumerate().find_map(|(ci, c)| {
                    parts
                        .iter()
                        .find(|p| self.view.is_a_any(p, std::slice::from_ref(c)))
                        .map(|p| (ci, p.clone()))
                }) {
                    *s = part;
                    filters.remove(ci);
                }
            }
        }
        (subjects, filters)
    }

    /// All facts the question asks for, in the order of its intents,
    /// without repeated sentences.
    pub async fn facts(&mut self) -> StoreResult<Vec<Fact>> {
        let q = self.question;
        let (subjects, filters) = self.subjects();
        let mut load: Vec<String> = subjects.clone();
        load.extend(q.grounding.entities.iter().map(|e| e.iri.clone()));
        self.load(&load).await?;

        let mut out = Vec::new();
        for intent in &q.reading.intents {
            let before = out.len();
            match intent {
                Intent::Upstream | Intent::Downstream | Intent::Relation => {
                    self.feeds(*intent, &subjects, &filters, &mut out).await?;
                }
                Intent::Parts => {
                    for s in &subjects {
                        self.parts_fact(s, &mut out).await?;
                    }
                }
                Intent::Points => self.points(&subjects, &filters, &mut out).await?,
                Intent::Location => {
                    for s in &subjects {
                        self.location(s, &mut out).await?;
                    }
                }
                Intent::Product => self.product(&subjects, &mut out).await?,
                Intent::Definition => self.definition(&subjects, &mut out).await?,
                Intent::Tags => self.tags(&subjects, &mut out).await?,
            }
            tracing::debug!(
                intent = intent.as_str(),
                facts = out.len() - before,
                "graph facts"
            );
        }
        let mut seen = BTreeSet::new();
        out.retain(|f: &Fact| seen.insert(f.text.clone()));
        Ok(out)
    }

    /// The parts of `subject`, with the feeds relations among them.
    async fn parts_fact(&mut self, subject: &str, out: &mut Vec<Fact>) -> StoreResult<()> {
        let topo = self.view.topo;
        let parts = topo.parts(subject);
        if parts.is_empty() {
            return Ok(());
        }
        self.load(&parts).await?;
        let mut text = format!(
            "{} has {} parts: {}.",
            self.label(subject),
            parts.len(),
            listing(
                &parts
                    .iter()
                    .map(|p| format!("{} ({})", self.label(p), self.class_phrase(p)))
                    .collect::<Vec<_>>()
            )
        );
        let mut links = Vec::new();
        for p in &parts {
            for t in topo.out_of(p, Rel::Feeds) {
                if parts.contains(&t) {
                    links.push(format!("{} feeds {}", self.label(p), self.label(&t)));
                }
            }
        }
        if !links.is_empty() {
            text.push_str(&format!(" Inside it, {}.", links.join("; ")));
        }
        out.extend(self.fact(text, subject, parts));
        Ok(())
    }
}
