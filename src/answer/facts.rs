//! Graph first: the facts the store holds about what a question names,
//! turned into sentences with their graph ids and provenance.
//!
//! Node descriptions come from SPARQL over the named graphs (so each fact
//! knows the file it came from and that file's sha256), traversals from the
//! topology projection. Which relation to follow is the question's
//! [`Reading`]; which classes to keep is its grounding.

use super::Fact;
use super::intent::{Intent, Reading, words};
use crate::ground::{EntityKind, Grounding};
use crate::ontology::Ontology;
use crate::store::{
    GraphKind, GraphStore, SolutionExt, SourceRecord, StoreResult, Term, TermExt, select,
};
use crate::topology::{Rel, Topology};
use crate::vocab::{self, PREFIXES};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

const SKOS_DEFINITION: &str = "http://www.w3.org/2004/02/skos/core#definition";
const RDFS_COMMENT: &str = "http://www.w3.org/2000/01/rdf-schema#comment";
const RDFS_SUBCLASS: &str = "http://www.w3.org/2000/01/rdf-schema#subClassOf";
const OWL_EQUIVALENT: &str = "http://www.w3.org/2002/07/owl#equivalentClass";
/// Longest transitive walk along `feeds`.
const MAX_HOPS: usize = 32;
/// Most names listed in one sentence before "and N more".
const MAX_LISTED: usize = 60;

fn dq(local: &str) -> String {
    format!("{}{local}", vocab::DQ)
}

fn yk(local: &str) -> String {
    format!("{}{local}", vocab::YK)
}

fn brick_p(local: &str) -> String {
    vocab::brick(local)
}

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

/// Where a fact came from.
#[derive(Debug, Clone)]
struct Provenance {
    path: String,
    sha: String,
    updated_at: String,
}

/// The graph-first step over one request.
pub struct GraphContext<'a> {
    store: &'a dyn GraphStore,
    topo: &'a Topology,
    onto: &'a Ontology,
    sources: HashMap<String, SourceRecord>,
    cards: HashMap<String, Card>,
    question: String,
    /// SPARQL run, for the trace.
    pub queries: Vec<String>,
}

fn local(iri: &str) -> &str {
    iri.rsplit(['#', '/']).next().unwrap_or(iri)
}

fn humanize(name: &str) -> String {
    name.replace('_', " ")
}

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

impl<'a> GraphContext<'a> {
    /// Reads the source records once.
    pub async fn new(
        store: &'a dyn GraphStore,
        topo: &'a Topology,
        onto: &'a Ontology,
        question: &str,
    ) -> StoreResult<Self> {
        let sources = store
            .sources()
            .await?
            .into_iter()
            .map(|r| (r.graph.clone(), r))
            .collect();
        Ok(Self {
            store,
            topo,
            onto,
            sources,
            cards: HashMap::new(),
            question: question.to_owned(),
            queries: Vec::new(),
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
        if let Some(l) = self.topo.label(iri) {
            return l.to_owned();
        }
        if let Some(l) = self.cards.get(iri).and_then(|c| c.first(vocab::RDFS_LABEL)) {
            return l.to_owned();
        }
        if let Some(l) = self.onto.class(iri).and_then(|c| c.label.clone()) {
            return l;
        }
        humanize(local(iri))
    }

    /// The most specific types of a node.
    fn specific_types(&self, iri: &str) -> Vec<String> {
        let types = self.topo.types(iri);
        types
            .iter()
            .filter(|t| {
                !types
                    .iter()
                    .any(|u| u != *t && self.onto.is_a(u, t) && !self.onto.is_a(t, u))
            })
            .cloned()
            .collect()
    }

    fn class_phrase(&self, iri: &str) -> String {
        let names: Vec<String> = self
            .specific_types(iri)
            .iter()
            .take(1)
            .map(|t| self.label(t))
            .collect();
        names.join(", ")
    }

    fn provenance(&self, iri: &str) -> Option<Provenance> {
        let card = self.cards.get(iri)?;
        if let (Some(path), Some(sha)) =
            (card.first(&dq("sourcePath")), card.first(&dq("sourceSha")))
        {
            // The instance's own record is what import wrote; use the
            // loaded source's time when the node has none.
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

    /// The (file, sha256, updated_at) a loaded node came from.
    pub fn provenance_of(&self, iri: &str) -> Option<(String, String, String)> {
        self.provenance(iri).map(|p| (p.path, p.sha, p.updated_at))
    }

    fn fact(&self, text: String, about: &str, ids: Vec<String>) -> Option<Fact> {
        let p = self.provenance(about)?;
        let mut graph_ids = vec![about.to_owned()];
        for id in ids {
            if !graph_ids.contains(&id) {
                graph_ids.push(id);
            }
        }
        Some(Fact {
            negative: text.starts_with("No ") || text.starts_with("The graph has no"),
            text,
            graph_ids,
            file_path: p.path,
            source_sha: p.sha,
            updated_at: p.updated_at,
        })
    }

    fn is_location(&self, iri: &str) -> bool {
        self.onto.any_is_a(self.topo.types(iri), "Location")
    }

    fn is_a_any(&self, iri: &str, classes: &[String]) -> bool {
        let types = self.topo.types(iri);
        classes
            .iter()
            .any(|c| types.iter().any(|t| self.onto.is_a(t, c)))
    }

    /// Containers of a node along `hasPart`, nearest first.
    fn containers(&self, iri: &str) -> Vec<String> {
        self.part_closure(iri, true)
    }

    /// Parts of a node along `hasPart`, nearest first.
    fn parts(&self, iri: &str) -> Vec<String> {
        self.part_closure(iri, false)
    }

    /// Everything reachable from `iri` along `hasPart`, towards the
    /// containers (`up`) or the parts, breadth first.
    fn part_closure(&self, iri: &str, up: bool) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut queue: VecDeque<String> = VecDeque::from([iri.to_owned()]);
        while let Some(n) = queue.pop_front() {
            let next = if up {
                self.topo.into(&n, Rel::HasPart)
            } else {
                self.topo.out_of(&n, Rel::HasPart)
            };
            for c in next {
                if c != iri && !out.contains(&c) {
                    out.push(c.clone());
                    queue.push_back(c);
                }
            }
        }
        out
    }

    /// Breadth-first walk along `feeds` from `start` (and its parts);
    /// upstream also takes the containers of each feeder. Returns each
    /// node reached with its distance and the node it was reached from.
    fn walk(&self, start: &str, upstream: bool) -> Vec<(String, usize, String)> {
        let mut group = vec![start.to_owned()];
        group.extend(self.parts(start));
        let skip: BTreeSet<String> = self.containers(start).into_iter().collect();
        let mut seen: BTreeSet<String> = group.iter().cloned().collect();
        let mut queue: VecDeque<(String, usize)> = group.iter().map(|g| (g.clone(), 0)).collect();
        let mut out = Vec::new();
        while let Some((n, d)) = queue.pop_front() {
            if d >= MAX_HOPS {
                continue;
            }
            let next = if upstream {
                self.topo.into(&n, Rel::Feeds)
            } else {
                self.topo.out_of(&n, Rel::Feeds)
            };
            for m in next {
                let mut reached = vec![m.clone()];
                if upstream {
                    reached.extend(self.containers(&m));
                }
                for r in reached {
                    if skip.contains(&r) || !seen.insert(r.clone()) {
                        continue;
                    }
                    out.push((r.clone(), d + 1, n.clone()));
                    queue.push_back((r, d + 1));
                }
            }
        }
        out
    }

    /// Nodes on the walk from `node` back to the start.
    fn path_back(walk: &[(String, usize, String)], node: &str) -> Vec<String> {
        let by: HashMap<&str, &str> = walk
            .iter()
            .map(|(n, _, from)| (n.as_str(), from.as_str()))
            .collect();
        let mut out = Vec::new();
        let mut cur = node;
        while let Some(prev) = by.get(cur) {
            if out.iter().any(|p: &String| p == prev) {
                break;
            }
            out.push((*prev).to_owned());
            cur = prev;
        }
        out
    }

    /// All facts a question asks for.
    pub async fn facts(&mut self, reading: &Reading, g: &Grounding) -> StoreResult<Vec<Fact>> {
        let mut subjects: Vec<String> = g
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Instance && self.topo.contains(&e.iri))
            .map(|e| e.iri.clone())
            .collect();
        subjects.dedup();
        let mut filters = self.filter_classes(g, &subjects);
        // "the reheat coil on VAV-2-14": in a feeds question, a named class
        // that one of the subject's parts has makes that part the subject.
        let feeds = reading.asks_feeds();
        if feeds {
            // A point has no feeds of its own: ask about its equipment.
            for s in subjects.iter_mut() {
                if self.onto.any_is_a(self.topo.types(s), "Point")
                    && let Some(owner) = self.topo.into(s, Rel::HasPoint).into_iter().next()
                {
                    *s = owner;
                }
            }
            subjects.dedup();
        }
        for s in subjects
            .iter_mut()
            .filter(|_| feeds && !reading.has(Intent::Parts))
        {
            let parts = self.parts(s);
            if let Some((ci, part)) = filters.iter().enumerate().find_map(|(ci, c)| {
                parts
                    .iter()
                    .find(|p| self.is_a_any(p, std::slice::from_ref(c)))
                    .map(|p| (ci, p.clone()))
            }) {
                *s = part;
                filters.remove(ci);
            }
        }
        let mut load: Vec<String> = subjects.clone();
        load.extend(g.entities.iter().map(|e| e.iri.clone()));
        self.load(&load).await?;

        let mut out = Vec::new();
        for intent in &reading.intents {
            let before = out.len();
            match intent {
                Intent::Upstream | Intent::Downstream | Intent::Relation => {
                    self.feeds(*intent, reading, &subjects, &filters, &mut out)
                        .await?;
                }
                Intent::Parts => {
                    for s in &subjects {
                        self.parts_fact(s, &mut out).await?;
                    }
                }
                Intent::Points => {
                    self.points(reading, g, &subjects, &filters, &mut out)
                        .await?
                }
                Intent::Location => {
                    for s in &subjects {
                        self.location(s, &mut out).await?;
                    }
                }
                Intent::Product => self.product(reading, g, &subjects, &mut out).await?,
                Intent::Definition => self.definition(g, &subjects, &mut out).await?,
                Intent::Tags => self.tags(g, &subjects, &mut out).await?,
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

    /// Equipment classes the question names beyond the types of the
    /// instances it names.
    fn filter_classes(&self, g: &Grounding, subjects: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in &g.equipment_types {
            let Some(c) = t.brick_class.as_deref().filter(|c| !c.contains(':')) else {
                continue;
            };
            let iri = vocab::brick(c);
            let own = subjects
                .iter()
                .any(|s| self.topo.types(s).iter().any(|ty| self.onto.is_a(ty, &iri)));
            if !own && !out.contains(&iri) {
                out.push(iri);
            }
        }
        out
    }

    /// Whether the question names an equipment class beyond its instances.
    pub fn names_other_class(&self, g: &Grounding) -> bool {
        let subjects: Vec<String> = g
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Instance)
            .map(|e| e.iri.clone())
            .collect();
        !self.filter_classes(g, &subjects).is_empty()
    }

    /// Whether an IRI names a location (for the reading).
    pub fn is_location_node(&self, iri: &str) -> bool {
        self.is_location(iri)
    }

    fn names(&self, iris: &[String]) -> Vec<String> {
        iris.iter().map(|i| self.label(i)).collect()
    }

    async fn feeds(
        &mut self,
        intent: Intent,
        reading: &Reading,
        subjects: &[String],
        filters: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        let Some(subject) = subjects.first().cloned() else {
            return Ok(());
        };
        let up = self.walk(&subject, true);
        let down = self.walk(&subject, false);
        let mut ids: Vec<String> = up.iter().chain(&down).map(|(n, ..)| n.clone()).collect();
        ids.push(subject.clone());
        self.load(&ids).await?;
        let s_name = self.label(&subject);

        // Two instances named: is one upstream of the other?
        if let Some(other) = subjects.get(1).cloned() {
            let (a, b, walk) = if up.iter().any(|(n, ..)| *n == other) {
                (other.clone(), subject.clone(), &up)
            } else if down.iter().any(|(n, ..)| *n == other) {
                (subject.clone(), other.clone(), &down)
            } else {
                (String::new(), String::new(), &up)
            };
            if !a.is_empty() {
                let mut path = Self::path_back(walk, &other);
                path.push(other.clone());
                let text = format!(
                    "Yes: {} feeds {} (brick:feeds{}).",
                    self.label(&a),
                    self.label(&b),
                    if path.len() > 2 {
                        ", through other equipment"
                    } else {
                        ""
                    }
                );
                out.extend(self.fact(text, &subject, path));
                return Ok(());
            }
            let types = self.specific_types(&other);
            let actual: Vec<String> = up
                .iter()
                .filter(|(n, ..)| self.is_a_any(n, &types))
                .map(|(n, ..)| n.clone())
                .collect();
            let text = if actual.is_empty() {
                format!(
                    "No: the graph has no brick:feeds path between {} and {}.",
                    s_name,
                    self.label(&other)
                )
            } else {
                format!(
                    "No: {} is not fed by {}; it is fed by {}.",
                    s_name,
                    self.label(&other),
                    listing(&self.names(&actual))
                )
            };
            let mut ids = actual;
            ids.push(other);
            out.extend(self.fact(text, &subject, ids));
            return Ok(());
        }

        let matches = |walk: &[(String, usize, String)]| -> Vec<String> {
            walk.iter()
                .filter(|(n, ..)| self.is_a_any(n, filters))
                .map(|(n, ..)| n.clone())
                .collect()
        };
        let (dir_up, found) = match intent {
            Intent::Upstream => (true, matches(&up)),
            Intent::Downstream => (false, matches(&down)),
            _ => {
                let u = matches(&up);
                if !u.is_empty() || filters.is_empty() {
                    (true, u)
                } else {
                    (false, matches(&down))
                }
            }
        };
        let walk = if dir_up { &up } else { &down };
        let direct: Vec<String> = walk
            .iter()
            .filter(|(_, d, _)| *d == 1)
            .map(|(n, ..)| n.clone())
            .collect();
        if !filters.is_empty() {
            let class = listing(&self.names(filters));
            let mut ids = found.clone();
            for f in &found {
                ids.extend(Self::path_back(walk, f));
            }
            let text = if found.is_empty() {
                format!(
                    "No {class} is {} of {s_name} in the graph.",
                    if dir_up { "upstream" } else { "downstream" }
                )
            } else if dir_up {
                format!(
                    "{} {class} upstream of {s_name} (brick:feeds, transitively): {}.",
                    found.len(),
                    listing(&self.names(&found))
                )
            } else {
                format!(
                    "{s_name} feeds {} {class} (brick:feeds, transitively): {}.",
                    found.len(),
                    listing(&self.names(&found))
                )
            };
            out.extend(self.fact(text, &subject, ids));
        }
        if !direct.is_empty() && (filters.is_empty() || found.iter().any(|f| !direct.contains(f))) {
            let text = if dir_up {
                format!(
                    "{s_name} is fed directly by {}.",
                    listing(&self.names(&direct))
                )
            } else {
                format!("{s_name} directly feeds {}.", listing(&self.names(&direct)))
            };
            out.extend(self.fact(text, &subject, direct.clone()));
        }
        if filters.is_empty() && direct.is_empty() {
            let text = format!(
                "The graph has no brick:feeds relation {} {s_name}.",
                if dir_up { "into" } else { "out of" }
            );
            out.extend(self.fact(text, &subject, Vec::new()));
        }
        if reading.count && filters.is_empty() {
            let text = format!(
                "{s_name} {} {} pieces of equipment directly.",
                if dir_up { "is fed by" } else { "feeds" },
                direct.len()
            );
            out.extend(self.fact(text, &subject, direct));
        }
        Ok(())
    }

    async fn parts_fact(&mut self, subject: &str, out: &mut Vec<Fact>) -> StoreResult<()> {
        let parts = self.parts(subject);
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
            for t in self.topo.out_of(p, Rel::Feeds) {
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

    /// Haystack tag names of a loaded node.
    fn tag_names(&self, iri: &str) -> Vec<String> {
        self.card(iri)
            .iris(&dq("hasHaystackTag"))
            .iter()
            .map(|t| {
                self.onto
                    .markers()
                    .find(|(_, i)| *i == t)
                    .map_or_else(|| local(t).to_owned(), |(n, _)| n.clone())
            })
            .collect()
    }

    fn point_line(&self, p: &str) -> String {
        let card = self.card(p);
        let unit = card
            .first(&brick_p("hasUnit"))
            .map(|u| format!(", unit {}", local(u)))
            .unwrap_or_default();
        format!("{} ({}{unit})", self.label(p), self.class_phrase(p))
    }

    /// Points that match the grounded point types: by class, else by the
    /// closest Haystack tag sets.
    fn matching_points(&self, points: &[String], g: &Grounding) -> Vec<String> {
        if g.point_types.is_empty() {
            let want = super::intent::point_tags(g);
            if want.is_empty() {
                return Vec::new();
            }
            return points
                .iter()
                .filter(|p| {
                    let tags = self.tag_names(p);
                    want.iter()
                        .all(|w| tags.iter().any(|t| t.eq_ignore_ascii_case(w)))
                })
                .cloned()
                .collect();
        }
        let classes: Vec<String> = g
            .point_types
            .iter()
            .filter_map(|p| p.brick_class.as_deref())
            .filter(|c| !c.contains(':'))
            .map(vocab::brick)
            .collect();
        let by_class: Vec<String> = points
            .iter()
            .filter(|p| self.is_a_any(p, &classes))
            .cloned()
            .collect();
        if !by_class.is_empty() {
            return by_class;
        }
        let mut best = 0usize;
        let mut out = Vec::new();
        for pt in &g.point_types {
            let want: BTreeSet<&str> = pt
                .haystack_tags
                .iter()
                .map(String::as_str)
                .filter(|t| !matches!(*t, "point" | "sensor" | "sp" | "cmd"))
                .collect();
            if want.is_empty() {
                continue;
            }
            for p in points {
                let tags = self.tag_names(p);
                let hit = want.iter().filter(|w| tags.iter().any(|t| t == *w)).count();
                let need = want.len().saturating_sub(1).max(1);
                if hit >= need && hit >= best {
                    if hit > best {
                        out.clear();
                        best = hit;
                    }
                    if !out.contains(p) {
                        out.push(p.clone());
                    }
                }
            }
        }
        out
    }

    async fn points(
        &mut self,
        reading: &Reading,
        g: &Grounding,
        subjects: &[String],
        filters: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        if subjects.is_empty() {
            return self.points_campus(g, filters, out).await;
        }
        let asked = !g.point_types.is_empty() || !super::intent::point_tags(g).is_empty();
        for s in subjects {
            let points = self.topo.out_of(s, Rel::HasPoint);
            self.load(&points).await?;
            let name = self.label(s);
            let matched = self.matching_points(&points, g);
            if points.is_empty() {
                out.extend(self.fact(format!("The graph lists no points on {name}."), s, vec![]));
                continue;
            }
            if asked && !matched.is_empty() {
                let mut ids = matched.clone();
                for m in &matched {
                    ids.extend(self.specific_types(m));
                }
                let text = format!(
                    "{name} has {}: {}.",
                    if matched.len() == 1 {
                        "the point".to_owned()
                    } else {
                        format!("{} matching points", matched.len())
                    },
                    matched
                        .iter()
                        .map(|p| self.point_line(p))
                        .collect::<Vec<_>>()
                        .join("; ")
                );
                out.extend(self.fact(text, s, ids));
                continue;
            }
            let lines: Vec<String> = points.iter().map(|p| self.point_line(p)).collect();
            let text = if !asked {
                format!("{name} has {} points: {}.", points.len(), lines.join("; "))
            } else {
                format!(
                    "{name} has no point of the kind asked about; its {} points are: {}.",
                    points.len(),
                    lines.join("; ")
                )
            };
            out.extend(self.fact(text, s, points.clone()));
            if reading.count {
                out.extend(self.fact(format!("{name} has {} points.", points.len()), s, vec![]));
            }
        }
        Ok(())
    }

    async fn points_campus(
        &mut self,
        g: &Grounding,
        filters: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        if g.point_types.is_empty() && super::intent::point_tags(g).is_empty() {
            return Ok(());
        }
        let rows = self
            .run(format!(
                "{PREFIXES}SELECT DISTINCT ?e ?p WHERE {{ ?e brick:hasPoint ?p }} ORDER BY ?e ?p"
            ))
            .await?;
        let mut owner: HashMap<String, String> = HashMap::new();
        let mut points = Vec::new();
        for r in rows {
            let (e, p) = (r.string("e"), r.string("p"));
            if filters.is_empty() || self.is_a_any(&e, filters) {
                owner.insert(p.clone(), e);
                points.push(p);
            }
        }
        points.sort();
        // Tags of every candidate are needed for the tag match.
        self.load(&points).await?;
        let matched = self.matching_points(&points, g);
        if matched.is_empty() {
            return Ok(());
        }
        let mut equips: Vec<String> = matched
            .iter()
            .filter_map(|p| owner.get(p).cloned())
            .collect();
        equips.sort();
        equips.dedup();
        self.load(&equips).await?;
        let mut ids = equips.clone();
        ids.extend(matched.iter().cloned());
        let text = format!(
            "{} points match, on {} pieces of equipment: {}.",
            matched.len(),
            equips.len(),
            matched
                .iter()
                .map(|p| format!(
                    "{} on {}",
                    self.point_line(p),
                    owner.get(p).map(|e| self.label(e)).unwrap_or_default()
                ))
                .collect::<Vec<_>>()
                .join("; ")
        );
        if let Some(first) = equips.first().cloned() {
            out.extend(self.fact(text, &first, ids));
        }
        Ok(())
    }

    async fn location(&mut self, subject: &str, out: &mut Vec<Fact>) -> StoreResult<()> {
        let name = self.label(subject);
        let chain = |me: &Self, node: &str| -> Vec<String> { me.containers(node) };
        if self.is_location(subject) {
            let up = chain(self, subject);
            let inside: Vec<String> = self.topo.into(subject, Rel::HasLocation);
            self.load(&inside).await?;
            if !up.is_empty() {
                let text = format!(
                    "{name} is part of {}.",
                    up.iter()
                        .map(|c| self.label(c))
                        .collect::<Vec<_>>()
                        .join(", part of ")
                );
                out.extend(self.fact(text, subject, up.clone()));
            }
            if !inside.is_empty() {
                let text = format!(
                    "{} items are located in {name}: {}.",
                    inside.len(),
                    listing(
                        &inside
                            .iter()
                            .map(|i| format!("{} ({})", self.label(i), self.class_phrase(i)))
                            .collect::<Vec<_>>()
                    )
                );
                out.extend(self.fact(text, subject, inside));
            }
            return Ok(());
        }
        let mut node = subject.to_owned();
        let mut locs = self.topo.out_of(&node, Rel::HasLocation);
        // A part without a location of its own is where its container is.
        for c in self.containers(subject) {
            if !locs.is_empty() {
                break;
            }
            locs = self.topo.out_of(&c, Rel::HasLocation);
            node = c;
        }
        for l in locs {
            let up = chain(self, &l);
            let mut text = format!("{} is located in {}", self.label(&node), self.label(&l));
            if !up.is_empty() {
                text.push_str(&format!(
                    " (part of {})",
                    up.iter()
                        .map(|c| self.label(c))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            text.push('.');
            let mut ids = vec![l.clone()];
            ids.extend(up);
            if node != subject {
                ids.push(node.clone());
            }
            out.extend(self.fact(text, subject, ids));
        }
        Ok(())
    }

    async fn product(
        &mut self,
        reading: &Reading,
        g: &Grounding,
        subjects: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        for s in subjects {
            let mut nodes = vec![s.clone()];
            nodes.extend(self.parts(s));
            self.load(&nodes).await?;
            for n in &nodes {
                let products = self.card(n).iris(&dq("product"));
                self.load(&products).await?;
                for p in products {
                    let model = self
                        .card(&p)
                        .first(&yk("modelNumber"))
                        .map_or_else(|| self.label(&p), str::to_owned);
                    let text = if n == s {
                        format!("{} is a {} ({}).", self.label(n), model, self.label(&p))
                    } else {
                        format!(
                            "{} ({}), part of {}, is a {} ({}).",
                            self.label(n),
                            self.class_phrase(n),
                            self.label(s),
                            model,
                            self.label(&p)
                        )
                    };
                    out.extend(self.fact(text, n, vec![p.clone(), s.clone()]));
                }
            }
        }
        for e in g.entities.iter().filter(|e| e.kind == EntityKind::Product) {
            self.product_entity(reading, &e.iri.clone(), out).await?;
        }
        Ok(())
    }

    async fn product_entity(
        &mut self,
        reading: &Reading,
        p: &str,
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        self.load(&[p.to_owned()]).await?;
        let card = self.card(p);
        let model = card
            .first(&yk("modelNumber"))
            .unwrap_or(local(p))
            .to_owned();
        let mappings = card.iris(&yk("mapping"));
        self.load(&mappings).await?;
        for m in &mappings {
            let mc = self.card(m);
            let class = mc.iris(&yk("brickClass"));
            let kind = mc.iris(&yk("haystackKind"));
            let mut text = format!("The Yorkland {model} ({}) maps to", self.label(p));
            if !class.is_empty() {
                text.push_str(&format!(
                    " Brick class {}",
                    class
                        .iter()
                        .map(|c| self.label(c))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if !kind.is_empty() {
                text.push_str(&format!(
                    "{} Haystack kind {}",
                    if class.is_empty() { "" } else { " and" },
                    kind.iter()
                        .map(|k| self.label(k))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if let Some(tags) = mc.first(&yk("haystackTags")) {
                text.push_str(&format!(" (tags {tags})"));
            }
            let mut prov = Vec::new();
            if let Some(c) = mc.first(&yk("confidence")) {
                prov.push(format!("confidence {c}"));
            }
            if let Some(u) = mc.first(&yk("sourceUrl")) {
                prov.push(format!("source {u}"));
            }
            if let Some(d) = mc.first(&yk("extractionDate")) {
                prov.push(format!("extracted {d}"));
            }
            if !prov.is_empty() {
                text.push_str(&format!("; mapping {}", prov.join(", ")));
            }
            text.push('.');
            let mut ids = vec![m.clone()];
            ids.extend(class);
            ids.extend(kind);
            out.extend(self.fact(text, p, ids));
        }
        let rows = self
            .run(format!(
                "{PREFIXES}SELECT DISTINCT ?e WHERE {{ ?e dq:product <{p}> }} ORDER BY ?e"
            ))
            .await?;
        let installed: Vec<String> = rows.iter().map(|r| r.string("e")).collect();
        if let Some(first) = installed.first().cloned() {
            self.load(&installed).await?;
            let text = format!(
                "{} pieces of equipment in the building models are a {model}: {}.",
                installed.len(),
                listing(&self.names(&installed))
            );
            let mut ids = vec![p.to_owned()];
            ids.extend(installed.iter().cloned());
            out.extend(self.fact(text, &first, ids));
        } else if !reading.count {
            let text = format!("No equipment in the building models is a {model}.");
            out.extend(self.fact(text, p, Vec::new()));
        }
        Ok(())
    }

    /// Brick classes whose label is two or three consecutive words of the
    /// question ("hvac zone"), longest first.
    async fn classes_named_in_question(&mut self) -> StoreResult<Vec<String>> {
        let ws = words(&self.question);
        let mut grams: Vec<String> = Vec::new();
        for n in [3, 2] {
            for w in ws.windows(n) {
                grams.push(crate::store::escape_literal(&w.join(" ")));
            }
        }
        if grams.is_empty() {
            return Ok(Vec::new());
        }
        let values: String = grams.iter().map(|g| format!(" \"{g}\"")).collect();
        let rows = self
            .run(format!(
                "{PREFIXES}SELECT DISTINCT ?c WHERE {{ VALUES ?l {{{values} }} \
                 ?c a owl:Class ; rdfs:label ?label . \
                 FILTER(STRSTARTS(STR(?c), \"{}\") && LCASE(STR(?label)) = ?l) }} ORDER BY ?c",
                vocab::BRICK
            ))
            .await?;
        Ok(rows.iter().map(|r| r.string("c")).collect())
    }

    fn definition_text(&self, class: &str) -> Option<String> {
        let card = self.card(class);
        card.first(SKOS_DEFINITION)
            .or_else(|| card.first(RDFS_COMMENT))
            .map(|d| d.trim().to_owned())
    }

    async fn define_class(
        &mut self,
        class: &str,
        out: &mut Vec<Fact>,
        about: Option<&str>,
    ) -> StoreResult<()> {
        self.load(&[class.to_owned()]).await?;
        let card = self.card(class);
        let parents: Vec<String> = card
            .iris(RDFS_SUBCLASS)
            .into_iter()
            .filter(|p| p.starts_with(vocab::BRICK) && p != class)
            .collect();
        let equivalents = card.iris(OWL_EQUIVALENT);
        let name = self.label(class);
        let mut text = match about {
            Some(a) => format!("{} is a {name} ({}).", self.label(a), local(class)),
            None => format!("{name} ({}).", local(class)),
        };
        if let Some(d) = self.definition_text(class) {
            text.push_str(&format!(" Brick defines it as: {d}"));
            if !text.ends_with('.') {
                text.push('.');
            }
        }
        if !parents.is_empty() {
            text.push_str(&format!(
                " Parent class: {}.",
                parents
                    .iter()
                    .map(|p| format!("{} ({})", self.label(p), local(p)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !equivalents.is_empty() {
            text.push_str(&format!(
                " Equivalent class: {}.",
                equivalents
                    .iter()
                    .map(|p| local(p).to_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let mut ids = parents;
        ids.extend(equivalents);
        if let Some(a) = about {
            ids.push(a.to_owned());
        }
        out.extend(self.fact(text, class, ids));
        Ok(())
    }

    async fn definition(
        &mut self,
        g: &Grounding,
        subjects: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        let root = vocab::brick("Class");
        let mut classes: Vec<String> = g
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Class && e.iri != root)
            .map(|e| e.iri.clone())
            .collect();
        if classes.is_empty() && subjects.is_empty() {
            // "brick definition of cooling tower": the class the words ground to.
            for c in g
                .equipment_types
                .iter()
                .filter_map(|t| t.brick_class.as_deref())
                .chain(
                    g.point_types
                        .iter()
                        .filter_map(|p| p.brick_class.as_deref()),
                )
                .filter(|c| !c.contains(':'))
            {
                let iri = vocab::brick(c);
                if !classes.contains(&iri) {
                    classes.push(iri);
                }
            }
        }
        if classes.is_empty() && subjects.is_empty() {
            // Classes the grounder leaves out (deprecated ones such as
            // HVAC_Zone keep their definitions): Brick labels written out.
            classes = self.classes_named_in_question().await?;
        }
        for s in subjects {
            let types = self.specific_types(s);
            let text = format!(
                "{} is typed {} in the building model.",
                self.label(s),
                types
                    .iter()
                    .map(|t| local(t).to_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            out.extend(self.fact(text, s, types.clone()));
            for t in types {
                if !classes.contains(&t) {
                    self.define_class(&t, out, Some(s)).await?;
                }
            }
        }
        for c in &classes {
            let about = subjects
                .iter()
                .find(|s| self.topo.types(s).contains(c))
                .cloned();
            self.define_class(c, out, about.as_deref()).await?;
        }
        if let [a, b, ..] = classes.as_slice() {
            let same = self.onto.is_a(a, b) && self.onto.is_a(b, a)
                || self.card(a).iris(OWL_EQUIVALENT).contains(b)
                || self.card(b).iris(OWL_EQUIVALENT).contains(a);
            let text = if same {
                format!(
                    "Yes: {} and {} are the same class (owl:equivalentClass).",
                    local(a),
                    local(b)
                )
            } else if self.onto.is_a(a, b) {
                format!(
                    "No: {} is a subclass of {}, not the same class.",
                    local(a),
                    local(b)
                )
            } else if self.onto.is_a(b, a) {
                format!(
                    "No: {} is a subclass of {}, not the same class.",
                    local(b),
                    local(a)
                )
            } else {
                format!("No: {} and {} are different classes.", local(a), local(b))
            };
            out.extend(self.fact(text, a, vec![b.clone()]));
        }
        self.aliases_and_markers(g, subjects, out, true).await
    }

    async fn aliases_and_markers(
        &mut self,
        g: &Grounding,
        subjects: &[String],
        out: &mut Vec<Fact>,
        define: bool,
    ) -> StoreResult<()> {
        // Abbreviations written in the question.
        let rows = self
            .run(format!(
                "{PREFIXES}SELECT ?a ?t WHERE {{ ?a a dq:Alias ; dq:aliasText ?t }} ORDER BY ?a ?t"
            ))
            .await?;
        let text_words: Vec<String> = words(&self.question);
        let mut aliases = Vec::new();
        for r in rows {
            let t = r.string("t").to_lowercase();
            if text_words.contains(&t) {
                aliases.push(r.string("a"));
            }
        }
        self.load(&aliases).await?;
        for a in &aliases {
            let card = self.card(a);
            let mut text = format!(
                "{}: {}",
                card.first(vocab::RDFS_LABEL).unwrap_or(local(a)),
                card.first(RDFS_COMMENT).unwrap_or_default().trim()
            );
            let class = card.iris(&dq("brickClass"));
            let tags: Vec<String> = card
                .iris(&dq("aliasFor"))
                .iter()
                .map(|t| local(t).to_owned())
                .collect();
            if !tags.is_empty() {
                text.push_str(&format!(" Haystack tags: {}.", tags.join(" ")));
            }
            if !class.is_empty() {
                text.push_str(&format!(
                    " Brick class: {}.",
                    class
                        .iter()
                        .map(|c| self.label(c))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            out.extend(self.fact(text, a, class));
        }
        if !subjects.is_empty() {
            return Ok(());
        }
        // Markers named outright ("the haystack vav kind", "coolingOnly").
        let position = |n: &str| text_words.iter().position(|w| *w == n.to_lowercase());
        let mut names: Vec<(String, String)> = self
            .onto
            .markers()
            .filter(|(n, _)| position(n).is_some())
            .filter(|(n, _)| g.raw_tags.iter().any(|t| t.eq_ignore_ascii_case(n)) || n.len() > 3)
            .map(|(n, i)| (n.clone(), i.clone()))
            .collect();
        // In the order the question names them (the marker table is a map).
        names.sort_by_key(|(n, _)| (position(n), n.clone()));
        let iris: Vec<String> = names.iter().map(|(_, i)| i.clone()).collect();
        self.load(&iris).await?;
        for (n, iri) in names {
            let card = self.card(&iri);
            let class = card.iris(&dq("brickClass"));
            let comment = card
                .first(RDFS_COMMENT)
                .map(|c| c.trim().replace('\n', " "));
            let mut text = format!("The Haystack {n} tag");
            if (define || class.is_empty())
                && let Some(c) = &comment
            {
                text.push_str(&format!(" means: {c}"));
                if !text.ends_with('.') {
                    text.push('.');
                }
            }
            if !class.is_empty() {
                text.push_str(&format!(
                    " It maps to Brick class {}.",
                    class
                        .iter()
                        .map(|c| self.label(c))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if text == format!("The Haystack {n} tag") {
                continue;
            }
            out.extend(self.fact(text, &iri, class));
        }
        Ok(())
    }

    async fn tags(
        &mut self,
        g: &Grounding,
        subjects: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        for s in subjects {
            self.load(std::slice::from_ref(s)).await?;
            let tags = self.tag_names(s);
            if tags.is_empty() {
                continue;
            }
            let text = format!(
                "{} carries the Haystack tags: {}.",
                self.label(s),
                tags.join(", ")
            );
            out.extend(self.fact(text, s, Vec::new()));
        }
        if subjects.is_empty() {
            self.aliases_and_markers(g, subjects, out, false).await?;
        }
        Ok(())
    }
}
