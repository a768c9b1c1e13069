//! The ontology as loaded in the store: Brick's class hierarchy and tag sets,
//! the Haystack vocabulary with its Brick alignment, and the Yorkland products.
//!
//! [`Ontology::load`] reads everything from the store, so which classes, tags
//! and equipment kinds exist is data (Brick.ttl, `ontology/`), never a list in
//! Rust. Tag-set → class inference compares a record's tags, mapped through
//! `dq:brickTag`, with each Brick class's `brick:hasAssociatedTag` set.

use crate::store::{GraphStore, Solution, SolutionExt, StoreResult, TermExt, select};
use crate::vocab::{self, BRICK, PREFIXES};
use std::collections::{BTreeSet, HashMap, HashSet};

/// One class known to the store.
#[derive(Debug, Clone, Default)]
pub struct ClassInfo {
    /// Human label.
    pub label: Option<String>,
    /// Direct superclasses (including those of equivalent classes).
    pub parents: BTreeSet<String>,
    /// Brick tags (`brick:hasAssociatedTag`).
    pub tags: BTreeSet<String>,
    /// Marked `owl:deprecated true`.
    pub deprecated: bool,
    /// Equivalent classes (`owl:equivalentClass`, both directions).
    pub equivalent: BTreeSet<String>,
}

/// Result of tag-set → class inference.
#[derive(Debug, Clone, PartialEq)]
pub struct Inference {
    /// The inferred class IRI.
    pub class: String,
    /// Brick tags of the class that the record's tags supplied.
    pub matched: usize,
    /// Record markers that no Brick tag stands for.
    pub unmapped: Vec<String>,
}

/// The in-memory view of the ontology used by import, validation and the API.
#[derive(Debug, Default)]
pub struct Ontology {
    classes: HashMap<String, ClassInfo>,
    ancestors: HashMap<String, HashSet<String>>,
    children: HashMap<String, BTreeSet<String>>,
    marker_iri: HashMap<String, String>,
    marker_tags: HashMap<String, Vec<String>>,
    kind_class: HashMap<String, String>,
    function_class: HashMap<String, String>,
    brick_tags: HashSet<String>,
}

fn rows_by<'a>(rows: &'a [Solution], var: &str) -> impl Iterator<Item = (&'a str, &'a Solution)> {
    rows.iter().filter_map(move |r| r.str(var).map(|v| (v, r)))
}

impl Ontology {
    /// Reads classes, tags and the Haystack alignment from the store.
    pub async fn load(store: &dyn GraphStore) -> StoreResult<Self> {
        let mut ont = Self::default();
        let class_rows = select(
            store,
            format!(
                "{PREFIXES}SELECT DISTINCT ?c WHERE {{
                   {{ ?c a owl:Class }} UNION {{ ?c a rdfs:Class }} UNION {{ ?c rdfs:subClassOf ?x }}
                   FILTER(isIRI(?c))
                 }} ORDER BY ?c"
            ),
        )
        .await?;
        for (c, _) in rows_by(&class_rows, "c") {
            ont.classes.entry(c.to_owned()).or_default();
        }
        let facts = select(
            store,
            format!(
                "{PREFIXES}SELECT ?c ?p ?o WHERE {{
                   VALUES ?p {{ rdfs:subClassOf owl:equivalentClass brick:hasAssociatedTag owl:deprecated rdfs:label }}
                   ?c ?p ?o . FILTER(isIRI(?c))
                 }} ORDER BY ?c ?p ?o"
            ),
        )
        .await?;
        for (c, row) in rows_by(&facts, "c") {
            let (p, o) = (row.string("p"), row.string("o"));
            if o.is_empty() {
                continue;
            }
            // Labels, tags and deprecation only describe subjects already
            // known to be classes; markers and products have labels too.
            let describes_only = matches!(
                p.as_str(),
                "http://www.w3.org/2000/01/rdf-schema#label"
                    | "https://brickschema.org/schema/Brick#hasAssociatedTag"
                    | "http://www.w3.org/2002/07/owl#deprecated"
            );
            if describes_only && !ont.classes.contains_key(c) {
                continue;
            }
            let info = ont.classes.entry(c.to_owned()).or_default();
            match p.as_str() {
                "http://www.w3.org/2000/01/rdf-schema#subClassOf" => {
                    if row.get("o").and_then(|t| t.as_iri()).is_some() {
                        info.parents.insert(o);
                    }
                }
                "http://www.w3.org/2002/07/owl#equivalentClass" => {
                    info.equivalent.insert(o.clone());
                    ont.classes
                        .entry(o)
                        .or_default()
                        .equivalent
                        .insert(c.to_owned());
                }
                "https://brickschema.org/schema/Brick#hasAssociatedTag" => {
                    ont.brick_tags.insert(o.clone());
                    info.tags.insert(o);
                }
                "http://www.w3.org/2002/07/owl#deprecated" => info.deprecated = o == "true",
                _ => {
                    if info.label.is_none() {
                        info.label = Some(o);
                    }
                }
            }
        }
        ont.compute_ancestors();

        let markers = select(
            store,
            format!(
                "{PREFIXES}SELECT ?m ?name ?tag ?kindClass ?functionClass WHERE {{
                   ?m dq:tagName ?name .
                   OPTIONAL {{ ?m dq:brickTag ?tag }}
                   OPTIONAL {{ ?m a dq:HaystackEquipKind ; dq:brickClass ?kindClass }}
                   OPTIONAL {{ ?m a dq:HaystackPointKind ; dq:brickClass ?functionClass }}
                 }} ORDER BY ?m ?name ?tag ?kindClass ?functionClass"
            ),
        )
        .await?;
        for (name, row) in rows_by(&markers, "name") {
            ont.marker_iri
                .entry(name.to_owned())
                .or_insert_with(|| row.string("m"));
            if let Some(tag) = row.str("tag") {
                let tags = ont.marker_tags.entry(name.to_owned()).or_default();
                if !tags.iter().any(|t| t == tag) {
                    tags.push(tag.to_owned());
                }
            }
            if let Some(class) = row.str("kindClass") {
                ont.kind_class.insert(name.to_owned(), class.to_owned());
            }
            if let Some(class) = row.str("functionClass") {
                ont.function_class.insert(name.to_owned(), class.to_owned());
            }
        }
        tracing::info!(
            classes = ont.classes.len(),
            brick_tags = ont.brick_tags.len(),
            haystack_markers = ont.marker_iri.len(),
            "ontology index built"
        );
        Ok(ont)
    }

    fn compute_ancestors(&mut self) {
        let mut ancestors = HashMap::with_capacity(self.classes.len());
        for class in self.classes.keys() {
            let mut seen = HashSet::new();
            let mut stack = vec![class.clone()];
            while let Some(c) = stack.pop() {
                if let Some(info) = self.classes.get(&c) {
                    for next in info.parents.iter().chain(info.equivalent.iter()) {
                        if seen.insert(next.clone()) {
                            stack.push(next.clone());
                        }
                    }
                }
            }
            seen.remove(class);
            ancestors.insert(class.clone(), seen);
        }
        self.ancestors = ancestors;
        let mut children: HashMap<String, BTreeSet<String>> = HashMap::new();
        for (class, info) in &self.classes {
            for parent in &info.parents {
                children
                    .entry(parent.clone())
                    .or_default()
                    .insert(class.clone());
            }
        }
        self.children = children;
    }

    /// Direct subclasses of a class.
    pub fn children(&self, class: &str) -> impl Iterator<Item = &String> {
        self.children.get(class).into_iter().flatten()
    }

    /// A class and its subclasses at any depth, breadth-first, at most
    /// `max` of them (the class included), in IRI order.
    pub fn descendants(&self, class: &str, max: usize) -> Vec<String> {
        let mut seen = BTreeSet::from([class.to_owned()]);
        let mut queue = std::collections::VecDeque::from([class.to_owned()]);
        while let Some(c) = queue.pop_front() {
            for child in self.children(&c) {
                if seen.len() >= max {
                    return seen.into_iter().collect();
                }
                if seen.insert(child.clone()) {
                    queue.push_back(child.clone());
                }
            }
        }
        seen.into_iter().collect()
    }

    /// The shortest chain of superclasses from `root` down to `class`'s
    /// parent (breadth-first over `rdfs:subClassOf`, parents in IRI order);
    /// `None` when `class` is unknown or not under `root`.
    pub fn path_from(&self, root: &str, class: &str) -> Option<Vec<String>> {
        self.class(class)?;
        let mut came_from: HashMap<String, String> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([class.to_owned()]);
        while let Some(at) = queue.pop_front() {
            let Some(info) = self.class(&at) else {
                continue;
            };
            for parent in &info.parents {
                if came_from.contains_key(parent) || parent == class {
                    continue;
                }
                came_from.insert(parent.clone(), at.clone());
                if parent == root {
                    let mut path = vec![root.to_owned()];
                    let mut step = came_from.get(root).cloned();
                    while let Some(s) = step {
                        if s == class {
                            break;
                        }
                        step = came_from.get(&s).cloned();
                        path.push(s);
                    }
                    return Some(path);
                }
                queue.push_back(parent.clone());
            }
        }
        None
    }

    /// Every Haystack marker: tag name → IRI.
    pub fn markers(&self) -> impl Iterator<Item = (&String, &String)> {
        self.marker_iri.iter()
    }

    /// Every known class IRI, in no particular order.
    pub fn class_iris(&self) -> impl Iterator<Item = &str> {
        self.classes.keys().map(String::as_str)
    }

    /// The classes whose label is one of `forms`, case aside ("rooms" read
    /// as "room", "supply fan" as "Supply Fan"), in [`Self::class_iris`]
    /// order.
    pub fn labelled<'a>(&'a self, forms: &'a [String]) -> impl Iterator<Item = &'a str> + 'a {
        self.classes
            .iter()
            .filter(|(_, info)| {
                info.label
                    .as_deref()
                    .is_some_and(|l| forms.iter().any(|f| l.eq_ignore_ascii_case(f)))
            })
            .map(|(iri, _)| iri.as_str())
    }

    /// Number of known classes.
    pub fn class_count(&self) -> usize {
        self.classes.len()
    }

    /// Whether `class` is declared by a loaded ontology.
    pub fn is_known_class(&self, class: &str) -> bool {
        self.classes.contains_key(class)
    }

    /// Information about one class.
    pub fn class(&self, class: &str) -> Option<&ClassInfo> {
        self.classes.get(class)
    }

    /// Whether `class` is `ancestor` or a (transitive) subclass or equivalent of it.
    pub fn is_a(&self, class: &str, ancestor: &str) -> bool {
        class == ancestor
            || self
                .ancestors
                .get(class)
                .is_some_and(|a| a.contains(ancestor))
    }

    /// Whether any of `types` is a subclass of `brick:<local>`.
    pub fn any_is_a(&self, types: &[String], local: &str) -> bool {
        let ancestor = vocab::brick(local);
        types.iter().any(|t| self.is_a(t, &ancestor))
    }

    /// The IRI of a Haystack marker, by its tag name.
    pub fn marker_iri(&self, name: &str) -> Option<&str> {
        self.marker_iri.get(name).map(String::as_str)
    }

    /// The Brick class of a Haystack point function marker (`sensor`,
    /// `sp`, `cmd`, `status`: a `dq:HaystackPointKind` with a
    /// `dq:brickClass`).
    pub fn function_class(&self, marker: &str) -> Option<&str> {
        self.function_class.get(marker).map(String::as_str)
    }

    /// Brick tags a Haystack marker stands for: its `dq:brickTag`s, or the
    /// Brick tag spelled like the capitalised marker when Brick has one.
    pub fn brick_tags_for(&self, marker: &str) -> Vec<String> {
        if let Some(tags) = self.marker_tags.get(marker) {
            return tags.clone();
        }
        let mut chars = marker.chars();
        let capitalised: String = match chars.next() {
            Some(first) => first.to_uppercase().chain(chars).collect(),
            None => return Vec::new(),
        };
        let iri = format!("{}{capitalised}", vocab::TAG);
        if self.brick_tags.contains(&iri) {
            vec![iri]
        } else {
            Vec::new()
        }
    }

    /// Infers the most specific Brick class for a set of Haystack markers.
    ///
    /// Candidates are non-deprecated Brick classes whose whole tag set is
    /// supplied by the markers; the one matching the most tags wins. When a
    /// marker is an equipment kind with a `dq:brickClass`, candidates are
    /// restricted to that class and its subclasses.
    pub fn infer_class<'a>(&self, markers: impl IntoIterator<Item = &'a str>) -> Option<Inference> {
        let mut tags = HashSet::new();
        let mut unmapped = Vec::new();
        let mut kind_classes = Vec::new();
        for marker in markers {
            let mapped = self.brick_tags_for(marker);
            if mapped.is_empty() {
                unmapped.push(marker.to_owned());
            }
            tags.extend(mapped);
            if let Some(c) = self.kind_class.get(marker) {
                kind_classes.push(c.clone());
            }
        }
        if tags.is_empty() {
            return None;
        }
        // An equipment kind narrows the candidates of equipment records only:
        // a chiller's enable command carries `chiller` but is a point.
        if tags.contains(&format!("{}Point", vocab::TAG)) {
            kind_classes.clear();
        }
        let within_kind = |class: &str| {
            kind_classes.is_empty() || kind_classes.iter().any(|k| self.is_a(class, k))
        };
        // Deprecated classes are a fallback: Brick 1.4 deprecates its location
        // classes in favour of RealEstateCore but they still carry the tags.
        let mut best: Option<(&String, usize)> = None;
        for allow_deprecated in [false, true] {
            for (class, info) in &self.classes {
                if info.tags.is_empty()
                    || info.deprecated != allow_deprecated
                    || !class.starts_with(BRICK)
                    || !within_kind(class)
                    || !info.tags.iter().all(|t| tags.contains(t))
                {
                    continue;
                }
                let matched = info.tags.len();
                let better = match best {
                    None => true,
                    Some((b, m)) => matched > m || (matched == m && self.prefer(class, b)),
                };
                if better {
                    best = Some((class, matched));
                }
            }
            if best.is_some() {
                break;
            }
        }
        match best {
            Some((class, matched)) => Some(Inference {
                class: class.clone(),
                matched,
                unmapped,
            }),
            None => kind_classes.into_iter().next().map(|class| Inference {
                class,
                matched: 0,
                unmapped,
            }),
        }
    }

    /// Tie-break between equally good candidates: the more specific class
    /// (a subclass of the other), then the one with more ancestors, then by name.
    fn prefer(&self, a: &str, b: &str) -> bool {
        if self.is_a(a, b) {
            return true;
        }
        if self.is_a(b, a) {
            return false;
        }
        let depth = |c: &str| self.ancestors.get(c).map_or(0, HashSet::len);
        (depth(a), std::cmp::Reverse(a)) > (depth(b), std::cmp::Reverse(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ont() -> Ontology {
        let mut o = Ontology::default();
        let t = |s: &str| format!("{}{s}", vocab::TAG);
        let mut add = |name: &str, parents: &[&str], tags: &[&str]| {
            o.classes.insert(
                vocab::brick(name),
                ClassInfo {
                    parents: parents.iter().map(|p| vocab::brick(p)).collect(),
                    tags: tags.iter().map(|x| t(x)).collect(),
                    ..ClassInfo::default()
                },
            );
        };
        add("Point", &[], &["Point"]);
        add("Sensor", &["Point"], &["Point", "Sensor"]);
        add(
            "Temperature_Sensor",
            &["Sensor"],
            &["Point", "Sensor", "Temperature"],
        );
        add(
            "Air_Temperature_Sensor",
            &["Temperature_Sensor"],
            &["Point", "Sensor", "Temperature", "Air"],
        );
        add("Equipment", &[], &["Equipment"]);
        add("VAV", &["Equipment"], &["Equipment", "VAV"]);
        for (k, v) in [
            ("Point", "Point"),
            ("Sensor", "Sensor"),
            ("Temperature", "Temperature"),
            ("Air", "Air"),
            ("Equipment", "Equipment"),
            ("VAV", "VAV"),
        ] {
            let _ = k;
            o.brick_tags.insert(t(v));
        }
        o.marker_tags.insert("temp".into(), vec![t("Temperature")]);
        o.marker_tags.insert("equip".into(), vec![t("Equipment")]);
        o.marker_tags.insert("vav".into(), vec![t("VAV")]);
        o.compute_ancestors();
        o
    }

    #[test]
    fn infers_most_specific_subset_class() {
        let o = ont();
        let inf = o.infer_class(["air", "temp", "sensor", "point"]).unwrap();
        assert_eq!(inf.class, vocab::brick("Air_Temperature_Sensor"));
        let inf = o.infer_class(["temp", "sensor", "point", "zone"]).unwrap();
        assert_eq!(inf.class, vocab::brick("Temperature_Sensor"));
        assert_eq!(inf.unmapped, vec!["zone".to_owned()]);
        let inf = o.infer_class(["vav", "equip"]).unwrap();
        assert_eq!(inf.class, vocab::brick("VAV"));
        assert!(o.infer_class(["nothingKnown"]).is_none());
    }

    #[test]
    fn is_a_is_transitive() {
        let o = ont();
        assert!(o.is_a(
            &vocab::brick("Air_Temperature_Sensor"),
            &vocab::brick("Point")
        ));
        assert!(!o.is_a(&vocab::brick("VAV"), &vocab::brick("Point")));
    }

    #[test]
    fn walks_down_and_up_the_hierarchy() {
        let o = ont();
        let b = |n: &str| vocab::brick(n);
        assert_eq!(
            o.descendants(&b("Sensor"), 10),
            [
                b("Air_Temperature_Sensor"),
                b("Sensor"),
                b("Temperature_Sensor")
            ]
        );
        assert_eq!(o.descendants(&b("Point"), 2).len(), 2);
        assert_eq!(o.descendants(&b("VAV"), 10), [b("VAV")]);
        assert_eq!(
            o.path_from(&b("Point"), &b("Air_Temperature_Sensor")),
            Some(vec![b("Point"), b("Sensor"), b("Temperature_Sensor")])
        );
        assert_eq!(o.path_from(&b("Point"), &b("VAV")), None);
        assert_eq!(o.path_from(&b("Point"), &b("Unknown")), None);
    }
}
