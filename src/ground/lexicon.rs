//! The grounder's lexicon, read from the store: Haystack markers (with their
//! category, derived from `skos:broader`), equipment kinds, `dq:Alias`
//! abbreviations, Brick class labels, Yorkland model numbers and the labels
//! of building-model instances. Nothing here lists vocabulary; the only names
//! in code are the Haystack category defs that fix the canonical tag order.

use super::infer::Inferrer;
use super::text::{self, camel_words, key};
use crate::ontology::Ontology;
use crate::store::{GraphKind, GraphStore, SolutionExt, StoreResult, is_safe_iri, select};
use crate::vocab::{self, BRICK, PREFIXES};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Where a Haystack tag goes in a point's canonical tag order.
///
/// Haystack writes point tags as section, qualifiers, substance, quantity,
/// equipment part, point function ("discharge air temp sensor", "zone air
/// temp sp", "hot water valve cmd"). The category of a marker is read from
/// its `skos:broader` chain in `haystack.ttl`; the variants are declared in
/// that order, so deriving `Ord` gives the sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Category {
    /// Under `ductSection` or `pipeSection` (discharge, return, leaving …).
    Section,
    /// Anything else (zone, chilled, hot, reheat, cooling …).
    Qualifier,
    /// Under `substance` (air, water, steam …).
    Substance,
    /// Under `quantity` (temp, pressure, flow …).
    Quantity,
    /// A `dq:HaystackEquipKind` (vav, ahu, valve, damper …).
    Equip,
    /// A `dq:HaystackPointKind` or under `pointFunction` (sensor, sp, cmd).
    Function,
    /// Under `entity` (equip, point, site, space): says what a record is,
    /// never part of a point's tag combination.
    Entity,
}

/// The Haystack defs that root each category.
const CATEGORY_ROOTS: &[(&str, Category)] = &[
    ("pointFunction", Category::Function),
    ("equip", Category::Equip),
    ("quantity", Category::Quantity),
    ("substance", Category::Substance),
    ("ductSection", Category::Section),
    ("pipeSection", Category::Section),
    ("entity", Category::Entity),
];

/// What a class (or an instance of it) is, for grounding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A `brick:Equipment`.
    Equipment,
    /// A `brick:Point`.
    Point,
    /// A location, system, substance or anything else.
    Other,
}

/// One Haystack marker.
#[derive(Debug, Clone)]
pub(crate) struct Marker {
    /// Tag name.
    pub name: String,
    /// Its place in the canonical order.
    pub category: Category,
    /// For equipment kinds, `dq:brickClass`.
    pub kind_class: Option<String>,
    /// The marker this one stands for: a `phx:` extension marker with the
    /// same Brick tags as a Haystack def is written as that def
    /// (`setpoint` → `sp`, `supply` → `discharge`). Itself otherwise.
    pub canonical: usize,
    /// Defined by Project Haystack (not a `phx:` extension marker).
    pub haystack_def: bool,
}

/// A building-model instance.
#[derive(Debug, Clone)]
pub(crate) struct Instance {
    pub iri: String,
    pub label: String,
    /// Most specific class.
    pub class: Option<String>,
    pub role: Role,
    /// Equipment kind (for equipment).
    pub kind: Option<usize>,
    /// Its Haystack tags (canonical marker ids).
    pub tags: Vec<usize>,
    /// Its label's tokens, read once: the matcher compares them per
    /// question ("boiler 2" against every label's last number).
    pub tokens: Vec<text::Token>,
}

/// A Yorkland product.
#[derive(Debug, Clone)]
pub(crate) struct Product {
    pub iri: String,
    pub model: String,
    pub class: Option<String>,
    pub role: Role,
    pub kind: Option<usize>,
    pub tags: Vec<usize>,
    /// `yk:confidence` of the mapping.
    pub confidence: f64,
}

/// A `dq:Alias` abbreviation.
#[derive(Debug, Clone)]
pub(crate) struct Alias {
    pub text: String,
    pub markers: Vec<usize>,
    pub class: Option<String>,
    pub role: Role,
    pub kind: Option<usize>,
}

/// A Brick class reachable by its label.
#[derive(Debug, Clone)]
pub(crate) struct ClassEntry {
    pub iri: String,
    pub label: String,
    pub role: Role,
    pub kind: Option<usize>,
    /// Haystack markers standing for its Brick tags.
    pub markers: Vec<usize>,
}

/// How a marker was named in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Via {
    /// Its tag name.
    Name,
    /// Its camelCase name written as words ("cooling tower").
    Words,
    /// The name of a Brick tag it maps to ("temperature" → temp).
    BrickTag,
}

/// One reading of a phrase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sense {
    Instance(usize),
    Product(usize),
    Alias(usize),
    Marker(usize, Via),
    Class(usize),
}

impl Sense {
    /// Lower wins when several readings share a phrase.
    pub(crate) fn priority(self) -> u8 {
        match self {
            Self::Instance(_) => 0,
            Self::Product(_) => 1,
            Self::Alias(_) => 2,
            Self::Marker(_, Via::Name | Via::Words) => 3,
            Self::Marker(_, Via::BrickTag) => 4,
            Self::Class(_) => 5,
        }
    }
}

/// Everything the matcher needs, built once from the store.
#[derive(Debug, Default)]
pub(crate) struct Lexicon {
    pub markers: Vec<Marker>,
    /// Tag name → marker id (not canonicalised).
    pub by_name: HashMap<String, usize>,
    pub instances: Vec<Instance>,
    pub products: Vec<Product>,
    pub aliases: Vec<Alias>,
    pub classes: Vec<ClassEntry>,
    /// Label (phrase key) → equipment, point or location class, deprecated
    /// ones included: what [`super::Grounder::classes_named`] links to.
    pub link_phrases: HashMap<String, String>,
    /// Phrase key (see [`text::key`]) → readings, best first.
    pub phrases: HashMap<String, Vec<Sense>>,
    /// Longest phrase, in tokens.
    pub max_len: usize,
    /// First words of equipment labels ("vav", "ahu", "ch", "yvr"): a
    /// number after one of these names a piece of equipment.
    pub label_prefixes: HashSet<String>,
    /// Phrase keys of points' short names without a number ("cwst sp" of
    /// "CWST-SP"): a text names the point only where it writes the name
    /// joined, as a designation ("cwst-sp"), not as words ("fan spd").
    pub designations: HashSet<String>,
    pub infer: Inferrer,
}

fn is_haystack_def(iri: &str) -> bool {
    iri.starts_with("https://project-haystack.org/def/")
}

/// Local name of a Brick IRI, or the compact form of any other IRI.
pub(crate) fn class_name(iri: &str) -> String {
    iri.strip_prefix(BRICK)
        .map(str::to_owned)
        .unwrap_or_else(|| vocab::compact(iri))
}

fn role_of(ontology: &Ontology, class: Option<&str>) -> Role {
    match class {
        Some(c) if ontology.is_a(c, &vocab::brick("Equipment")) => Role::Equipment,
        Some(c) if ontology.is_a(c, &vocab::brick("Point")) => Role::Point,
        _ => Role::Other,
    }
}

impl Lexicon {
    /// Reads the lexicon from the store.
    pub(crate) async fn load(store: &dyn GraphStore, ontology: &Ontology) -> StoreResult<Self> {
        let mut lex = Self::default();
        let aliases_of = lex.load_markers(store, ontology).await?;
        lex.infer = Inferrer::load(store, ontology, &lex.markers, &aliases_of).await?;
        lex.load_classes(store, ontology, &aliases_of).await?;
        lex.load_aliases(store, ontology).await?;
        lex.load_products(store, ontology).await?;
        lex.load_instances(store, ontology, &aliases_of).await?;
        lex.index();
        Ok(lex)
    }

    /// Marker id by tag name (canonical).
    pub(crate) fn marker(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).map(|&i| self.markers[i].canonical)
    }

    /// Loads markers, their categories and canonical forms; returns the
    /// Brick alias classes (`brick:aliasOf`) as alias → target.
    async fn load_markers(
        &mut self,
        store: &dyn GraphStore,
        ontology: &Ontology,
    ) -> StoreResult<HashMap<String, String>> {
        let rows = select(
            store,
            format!(
                "{PREFIXES}SELECT ?m ?name ?kind ?pointKind ?kindClass WHERE {{
                   ?m a dq:HaystackMarker ; dq:tagName ?name .
                   OPTIONAL {{ ?m a dq:HaystackEquipKind . BIND(true AS ?kind) }}
                   OPTIONAL {{ ?m a dq:HaystackPointKind . BIND(true AS ?pointKind) }}
                   OPTIONAL {{ ?m dq:brickClass ?kindClass }}
                 }} ORDER BY ?m ?name ?kind ?pointKind ?kindClass"
            ),
        )
        .await?;
        let broader_rows = select(
            store,
            format!(
                "{PREFIXES}SELECT ?name ?parent WHERE {{
                   ?m dq:tagName ?name ; skos:broader ?b . ?b dq:tagName ?parent
                 }} ORDER BY ?name ?parent"
            ),
        )
        .await?;
        let mut broader: HashMap<&str, Vec<&str>> = HashMap::new();
        for row in &broader_rows {
            if let (Some(n), Some(p)) = (row.str("name"), row.str("parent")) {
                broader.entry(n).or_default().push(p);
            }
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut iris: Vec<String> = Vec::new();
        for row in &rows {
            let Some(name) = row.str("name") else {
                continue;
            };
            let kind = row.str("kind").is_some();
            let point_kind = row.str("pointKind").is_some();
            if let Some(&i) = seen.get(name) {
                if kind && self.markers[i].kind_class.is_none() {
                    self.markers[i].kind_class = row.str("kindClass").map(str::to_owned);
                }
                continue;
            }
            let category = if point_kind {
                Category::Function
            } else if kind {
                Category::Equip
            } else {
                category_of(name, &broader)
            };
            seen.insert(name.to_owned(), self.markers.len());
            self.by_name.insert(name.to_owned(), self.markers.len());
            iris.push(row.string("m"));
            self.markers.push(Marker {
                name: name.to_owned(),
                category,
                kind_class: if kind {
                    row.str("kindClass").map(str::to_owned)
                } else {
                    None
                },
                canonical: self.markers.len(),
                haystack_def: is_haystack_def(row.str("m").unwrap_or_default()),
            });
        }
        // phx markers that restate a Haystack def are written as that def.
        let tag_sets: Vec<BTreeSet<String>> = self
            .markers
            .iter()
            .map(|m| ontology.brick_tags_for(&m.name).into_iter().collect())
            .collect();
        for i in 0..self.markers.len() {
            if is_haystack_def(&iris[i]) || tag_sets[i].is_empty() {
                continue;
            }
            let same = (0..self.markers.len())
                .filter(|&j| is_haystack_def(&iris[j]) && tag_sets[j] == tag_sets[i])
                .min_by_key(|&j| (self.markers[j].name.len(), self.markers[j].name.clone()));
            if let Some(j) = same {
                self.markers[i].canonical = j;
            }
        }
        let alias_rows = select(
            store,
            format!("{PREFIXES}SELECT ?c ?target WHERE {{ ?c brick:aliasOf ?target }} ORDER BY ?c ?target"),
        )
        .await?;
        Ok(alias_rows
            .iter()
            .filter_map(|r| Some((r.str("c")?.to_owned(), r.str("target")?.to_owned())))
            .collect())
    }

    /// The equipment kind of a class. Kinds qualify when the class is (a
    /// subclass of) their `dq:brickClass` or when the class carries all of
    /// their Brick tags; both beats tags alone beats class alone, then the
    /// most specific `dq:brickClass`. An instance's own kind tags
    /// (`preferred`) are tried first.
    fn kind_for(&self, ontology: &Ontology, class: &str, preferred: &[usize]) -> Option<usize> {
        let class_tags = ontology.class(class).map(|i| &i.tags);
        let score = |m: usize| -> Option<(u8, u32)> {
            let marker = &self.markers[m];
            if marker.category != Category::Equip {
                return None;
            }
            let by_class = marker
                .kind_class
                .as_deref()
                .is_some_and(|k| ontology.is_a(class, k));
            let tags = ontology.brick_tags_for(&marker.name);
            let by_tags = !tags.is_empty()
                && class_tags.is_some_and(|ct| tags.iter().all(|t| ct.contains(t)));
            let tier = match (by_class, by_tags) {
                (true, true) => 3,
                (false, true) => 2,
                (true, false) => 1,
                (false, false) => return None,
            };
            let depth = marker
                .kind_class
                .as_deref()
                .map_or(0, |k| self.infer.depth(k));
            Some((tier, depth))
        };
        let best = |candidates: &mut dyn Iterator<Item = usize>| {
            candidates
                .filter_map(|m| score(m).map(|s| (s, m)))
                .max_by(|(sa, a), (sb, b)| {
                    sa.cmp(sb)
                        .then_with(|| self.markers[*b].name.cmp(&self.markers[*a].name))
                })
                .map(|(_, m)| m)
        };
        best(&mut preferred.iter().copied())
            .or_else(|| {
                best(&mut (0..self.markers.len()).filter(|&m| self.markers[m].canonical == m))
            })
            .or_else(|| {
                preferred
                    .iter()
                    .copied()
                    .find(|&m| self.markers[m].category == Category::Equip)
            })
    }

    /// Markers standing for a class's Brick tags.
    fn markers_for_class(&self, ontology: &Ontology, class: &str) -> Vec<usize> {
        let Some(info) = ontology.class(class) else {
            return Vec::new();
        };
        let mut out: Vec<usize> = info
            .tags
            .iter()
            .filter_map(|t| self.infer.marker_for_tag(t))
            .filter(|&m| self.markers[m].category != Category::Entity)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    async fn load_classes(
        &mut self,
        store: &dyn GraphStore,
        ontology: &Ontology,
        aliases_of: &HashMap<String, String>,
    ) -> StoreResult<()> {
        let rows = select(
            store,
            format!(
                "{PREFIXES}SELECT ?c ?label WHERE {{
                   ?c a owl:Class ; rdfs:label ?label .
                   FILTER(STRSTARTS(STR(?c), \"{BRICK}\"))
                 }} ORDER BY ?c ?label"
            ),
        )
        .await?;
        let mut seen = HashSet::new();
        for row in &rows {
            let (Some(c), Some(label)) = (row.str("c"), row.str("label")) else {
                continue;
            };
            let iri = aliases_of.get(c).map_or(c, String::as_str);
            let Some(info) = ontology.class(iri) else {
                continue;
            };
            // Equipment, points and locations are what a passage can be
            // about; Brick 1.4 deprecates its location classes (zones,
            // rooms) that real models still use, so they link too.
            let role = role_of(ontology, Some(iri));
            if role != Role::Other || ontology.is_a(iri, &vocab::brick("Location")) {
                let k = key(label);
                if !info.deprecated || !self.link_phrases.contains_key(&k) {
                    self.link_phrases.insert(k, iri.to_owned());
                }
            }
            if info.deprecated || !seen.insert(c.to_owned()) {
                continue;
            }
            let kind = match role {
                Role::Equipment => self.kind_for(ontology, iri, &[]),
                _ => None,
            };
            self.classes.push(ClassEntry {
                iri: iri.to_owned(),
                label: label.to_owned(),
                role,
                kind,
                markers: self.markers_for_class(ontology, iri),
            });
        }
        Ok(())
    }

    async fn load_aliases(
        &mut self,
        store: &dyn GraphStore,
        ontology: &Ontology,
    ) -> StoreResult<()> {
        let rows = select(
            store,
            format!(
                "{PREFIXES}SELECT ?a ?text ?for ?class WHERE {{
                   ?a a dq:Alias ; dq:aliasText ?text .
                   OPTIONAL {{ ?a dq:aliasFor ?f . ?f dq:tagName ?for }}
                   OPTIONAL {{ ?a dq:brickClass ?class }}
                 }} ORDER BY ?a ?text ?for ?class"
            ),
        )
        .await?;
        let mut by_node: HashMap<String, usize> = HashMap::new();
        for row in &rows {
            let (Some(a), Some(t)) = (row.str("a"), row.str("text")) else {
                continue;
            };
            let i = *by_node.entry(a.to_owned()).or_insert_with(|| {
                self.aliases.push(Alias {
                    text: t.to_owned(),
                    markers: Vec::new(),
                    class: None,
                    role: Role::Other,
                    kind: None,
                });
                self.aliases.len() - 1
            });
            if let Some(m) = row.str("for").and_then(|n| self.marker(n))
                && !self.aliases[i].markers.contains(&m)
            {
                self.aliases[i].markers.push(m);
            }
            if let Some(c) = row.str("class") {
                self.aliases[i].class = Some(c.to_owned());
            }
        }
        for i in 0..self.aliases.len() {
            let role = role_of(ontology, self.aliases[i].class.as_deref());
            let kinds: Vec<usize> = self.aliases[i]
                .markers
                .iter()
                .copied()
                .filter(|&m| self.markers[m].category == Category::Equip)
                .collect();
            let kind = match (role, self.aliases[i].class.as_deref()) {
                (Role::Equipment, Some(c)) => self.kind_for(ontology, c, &kinds),
                _ => None,
            };
            self.aliases[i].role = role;
            self.aliases[i].kind = kind;
        }
        Ok(())
    }

    async fn load_products(
        &mut self,
        store: &dyn GraphStore,
        ontology: &Ontology,
    ) -> StoreResult<()> {
        let rows = select(
            store,
            format!(
                "{PREFIXES}SELECT ?p ?model ?kind ?tags ?class ?conf WHERE {{
                   ?p a yk:Product ; yk:modelNumber ?model .
                   OPTIONAL {{ ?p yk:mapping ?m .
                     OPTIONAL {{ ?m yk:haystackKind ?k . ?k dq:tagName ?kind }}
                     OPTIONAL {{ ?m yk:haystackTags ?tags }}
                     OPTIONAL {{ ?m yk:brickClass ?class }}
                     OPTIONAL {{ ?m yk:confidence ?conf }} }}
                 }} ORDER BY ?p ?model ?kind ?tags ?class ?conf"
            ),
        )
        .await?;
        let mut seen = HashSet::new();
        for row in &rows {
            let (Some(p), Some(model)) = (row.str("p"), row.str("model")) else {
                continue;
            };
            if !seen.insert(p.to_owned()) {
                continue;
            }
            let class = row.str("class").map(str::to_owned);
            let role = role_of(ontology, class.as_deref());
            let mut tags: Vec<usize> = row
                .str("tags")
                .unwrap_or_default()
                .split_whitespace()
                .chain(row.str("kind"))
                .filter_map(|n| self.marker(n))
                .collect();
            tags.sort_unstable();
            tags.dedup();
            let own_kind: Vec<usize> = row
                .str("kind")
                .and_then(|n| self.marker(n))
                .into_iter()
                .collect();
            let kind = match (role, class.as_deref()) {
                (Role::Equipment, Some(c)) => self.kind_for(ontology, c, &own_kind),
                _ => None,
            };
            self.products.push(Product {
                iri: p.to_owned(),
                model: model.to_owned(),
                class,
                role,
                kind,
                tags,
                confidence: row.str("conf").and_then(|c| c.parse().ok()).unwrap_or(1.0),
            });
        }
        Ok(())
    }

    async fn load_instances(
        &mut self,
        store: &dyn GraphStore,
        ontology: &Ontology,
        aliases_of: &HashMap<String, String>,
    ) -> StoreResult<()> {
        let graphs: Vec<String> = store
            .sources()
            .await?
            .into_iter()
            .filter(|s| s.kind == GraphKind::Model && is_safe_iri(&s.graph))
            .map(|s| format!("<{}>", s.graph))
            .collect();
        if graphs.is_empty() {
            return Ok(());
        }
        let values = graphs.join(" ");
        let labels = select(
            store,
            format!(
                "{PREFIXES}SELECT ?n ?p ?label WHERE {{
                   VALUES ?g {{ {values} }} VALUES ?p {{ rdfs:label skos:altLabel }}
                   GRAPH ?g {{ ?n ?p ?label }} FILTER(isIRI(?n))
                 }} ORDER BY ?n ?p ?label"
            ),
        )
        .await?;
        let types = select(
            store,
            format!(
                "{PREFIXES}SELECT ?n ?type WHERE {{
                   VALUES ?g {{ {values} }} GRAPH ?g {{ ?n a ?type }} FILTER(isIRI(?n))
                 }} ORDER BY ?n ?type"
            ),
        )
        .await?;
        // A node the model relates but never types ("rice:AHU_6
        // brick:feeds rice:VAV6", no rdf:type) is named all the same.
        let related = select(
            store,
            format!(
                "{PREFIXES}SELECT DISTINCT ?n WHERE {{
                   VALUES ?g {{ {values} }}
                   VALUES ?p {{ {relations} }}
                   GRAPH ?g {{ {{ ?n ?p ?o }} UNION {{ ?o ?p ?n }} }}
                   FILTER(isIRI(?n) && NOT EXISTS {{ GRAPH ?g {{ ?n a ?t }} }})
                 }} ORDER BY ?n",
                relations = vocab::TOPOLOGY_RELATIONS
            ),
        )
        .await?;
        let tags = select(
            store,
            format!(
                "{PREFIXES}SELECT ?n ?tag WHERE {{
                   VALUES ?g {{ {values} }} GRAPH ?g {{ ?n dq:hasHaystackTag ?t }}
                   ?t dq:tagName ?tag
                 }} ORDER BY ?n ?tag"
            ),
        )
        .await?;
        let mut node_types: HashMap<&str, Vec<String>> = HashMap::new();
        for row in &types {
            if let (Some(n), Some(t)) = (row.str("n"), row.str("type")) {
                let t = aliases_of.get(t).cloned().unwrap_or_else(|| t.to_owned());
                let list = node_types.entry(n).or_default();
                if !list.contains(&t) {
                    list.push(t);
                }
            }
        }
        let mut node_tags: HashMap<&str, Vec<usize>> = HashMap::new();
        for row in &tags {
            if let (Some(n), Some(m)) = (row.str("n"), row.str("tag").and_then(|t| self.marker(t)))
            {
                let list = node_tags.entry(n).or_default();
                if !list.contains(&m) {
                    list.push(m);
                }
            }
        }
        // rdfs:label first, so that it names the entity; altLabels add
        // surfaces. A typed or related node with neither is named by its
        // IRI's local name (most published Brick models name nodes only so:
        // `…#vav_R306`).
        let mut ordered: Vec<(&str, &str)> = Vec::new();
        for pass in [true, false] {
            for row in &labels {
                if (row.str("p") == Some(vocab::RDFS_LABEL)) == pass
                    && let (Some(n), Some(label)) = (row.str("n"), row.str("label"))
                {
                    ordered.push((n, label));
                }
            }
        }
        let labelled: HashSet<&str> = ordered.iter().map(|(n, _)| *n).collect();
        let mut unlabelled: Vec<&str> = node_types
            .keys()
            .copied()
            .chain(related.iter().filter_map(|row| row.str("n")))
            .filter(|n| !labelled.contains(n))
            .collect();
        unlabelled.sort_unstable();
        unlabelled.dedup();
        // A local name spelt like a class ("Occupancy_Sensor") names the
        // class when asked, not that one node.
        let class_keys: HashSet<String> = self.classes.iter().map(|c| key(&c.label)).collect();
        for n in unlabelled {
            let local = vocab::local_name(n);
            if !local.is_empty() && local != n && !class_keys.contains(&key(local)) {
                ordered.push((n, local));
            }
        }
        let mut by_iri: HashMap<String, usize> = HashMap::new();
        let mut surfaces: Vec<(String, usize)> = Vec::new();
        for (n, label) in ordered {
            let i = match by_iri.get(n) {
                Some(&i) => i,
                None => {
                    let class = most_specific(ontology, node_types.get(n).map(Vec::as_slice));
                    let role = role_of(ontology, class.as_deref());
                    let own_tags = node_tags.get(n).cloned().unwrap_or_default();
                    let kind = match (role, class.as_deref()) {
                        (Role::Equipment, Some(c)) => self.kind_for(ontology, c, &own_tags),
                        _ => None,
                    };
                    self.instances.push(Instance {
                        iri: n.to_owned(),
                        label: label.to_owned(),
                        class,
                        role,
                        kind,
                        tags: own_tags,
                        tokens: text::tokenize(label),
                    });
                    by_iri.insert(n.to_owned(), self.instances.len() - 1);
                    self.instances.len() - 1
                }
            };
            surfaces.push((label.to_owned(), i));
        }
        // The tail of a long name, when no other name ends so, names the
        // node too: "VAV_1" for "Charlie Floor-4 VAV_1", and a point's
        // short name written in capitals ("CWST-SP" for "CW-SYS
        // CWST-SP"), as a manual writes it in the text of its system.
        // Tail key → (text, node, nodes ending so, a short name without a
        // number).
        let mut tails: HashMap<String, (String, usize, usize, bool)> = HashMap::new();
        for (surface, i) in &surfaces {
            let tokens = text::tokenize(surface);
            for k in 1..tokens.len().saturating_sub(1) {
                let tail = &tokens[k..];
                if !tokens[k].gap.is_word_boundary()
                    || !(designation(tail) || tail.iter().any(|t| t.numeric))
                    || !tail.iter().any(|t| !t.numeric)
                {
                    continue;
                }
                let text = surface[tokens[k].start..].to_owned();
                let bare = !tail.iter().any(|t| t.numeric);
                let e = tails.entry(key(&text)).or_insert((text, *i, 0, bare));
                if e.1 != *i || e.2 == 0 {
                    e.2 += 1;
                }
                e.1 = *i;
            }
        }
        let whole: HashSet<String> = surfaces.iter().map(|(s, _)| key(s)).collect();
        for (k, (text, i, n, bare)) in tails {
            if n == 1 && !whole.contains(&k) {
                if bare {
                    self.designations.insert(k);
                }
                surfaces.push((text, i));
            }
        }
        for (surface, i) in surfaces {
            self.add(&surface, Sense::Instance(i));
            let tokens = text::tokenize(&surface);
            if let [first, second, ..] = tokens.as_slice()
                && !first.numeric
                && second.numeric
                && self.instances[i].role == Role::Equipment
            {
                self.label_prefixes.insert(first.norm.clone());
            }
        }
        Ok(())
    }

    pub(super) fn add(&mut self, surface: &str, sense: Sense) {
        let k = key(surface);
        if k.is_empty() {
            return;
        }
        let len = k.split(' ').count();
        self.max_len = self.max_len.max(len);
        let senses = self.phrases.entry(k).or_default();
        if !senses.contains(&sense) {
            senses.push(sense);
        }
    }

    /// Puts every vocabulary entry into the phrase index.
    pub(super) fn index(&mut self) {
        for m in 0..self.markers.len() {
            let name = self.markers[m].name.clone();
            self.add(&name, Sense::Marker(m, Via::Name));
            if let Some(words) = camel_words(&name) {
                self.add(&words, Sense::Marker(m, Via::Words));
            }
            if self.markers[m].category == Category::Equip && !name.contains(char::is_uppercase) {
                self.label_prefixes.insert(key(&name));
            }
        }
        for (tag, m) in self.infer.tag_words() {
            self.add(&tag, Sense::Marker(m, Via::BrickTag));
        }
        for a in 0..self.aliases.len() {
            let text = self.aliases[a].text.clone();
            self.add(&text, Sense::Alias(a));
            let k = key(&text);
            if self.aliases[a].role == Role::Equipment && !k.contains(' ') {
                self.label_prefixes.insert(k);
            }
        }
        for c in 0..self.classes.len() {
            let label = self.classes[c].label.clone();
            self.add(&label, Sense::Class(c));
        }
        for p in 0..self.products.len() {
            let model = self.products[p].model.clone();
            self.add(&model, Sense::Product(p));
            if let Some(first) = text::tokenize(&model).first() {
                self.label_prefixes.insert(first.norm.clone());
            }
        }
        for senses in self.phrases.values_mut() {
            senses.sort_by_key(|s| s.priority());
        }
        self.max_len = self.max_len.min(16);
    }
}

/// Whether tokens are one word of capitals joined by hyphens or
/// underscores ("CWST-SP", "HW-DP-SP"): a point's short name, not words.
fn designation(tokens: &[text::Token]) -> bool {
    tokens.len() >= 2
        && tokens.iter().all(|t| t.upper || t.numeric)
        && tokens[1..].iter().all(|t| t.gap == text::Gap::Hyphen)
}

/// Category of a marker from its `skos:broader` chain.
fn category_of(name: &str, broader: &HashMap<&str, Vec<&str>>) -> Category {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&str> = broader.get(name).cloned().unwrap_or_default();
    // The first root in CATEGORY_ROOTS order wins: an equipment kind reaches
    // both `equip` and `entity`.
    let mut best: Option<usize> = None;
    while let Some(b) = stack.pop() {
        if !seen.insert(b) {
            continue;
        }
        if let Some(i) = CATEGORY_ROOTS.iter().position(|(root, _)| *root == b) {
            best = Some(best.map_or(i, |j| j.min(i)));
        }
        if let Some(next) = broader.get(b) {
            stack.extend(next.iter().copied());
        }
    }
    best.map_or(Category::Qualifier, |i| CATEGORY_ROOTS[i].1)
}

/// The most specific of an instance's classes (not a superclass of another).
fn most_specific(ontology: &Ontology, types: Option<&[String]>) -> Option<String> {
    let types = types?;
    let known: Vec<&String> = types
        .iter()
        .filter(|t| ontology.is_known_class(t))
        .collect();
    let pool: Vec<&String> = if known.is_empty() {
        types.iter().collect()
    } else {
        known
    };
    pool.iter()
        .copied()
        .filter(|t| {
            !pool
                .iter()
                .any(|u| u != t && ontology.is_a(u, t) && !ontology.is_a(t, u))
        })
        .min_by_key(|t| {
            (
                !t.starts_with(BRICK),
                std::cmp::Reverse(t.len()),
                (*t).clone(),
            )
        })
        .cloned()
}
