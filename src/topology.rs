//! The equipment topology: a petgraph projection of Brick's `feeds`,
//! `hasPart`, `hasPoint` and `hasLocation` relations (and their inverses),
//! rebuilt from the store whenever the graph changes.

use crate::store::{GraphStore, SolutionExt, StoreResult, select};
use crate::vocab::{self, PREFIXES};
use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

/// A relation kept in the projection, always in its forward direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Rel {
    /// `brick:feeds` (source is upstream).
    Feeds,
    /// `brick:hasPart` (source contains target).
    HasPart,
    /// `brick:hasPoint` (source equipment or location has the point).
    HasPoint,
    /// `brick:hasLocation` (source is located in target).
    HasLocation,
}

impl Rel {
    /// The Brick property name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Feeds => "feeds",
            Self::HasPart => "hasPart",
            Self::HasPoint => "hasPoint",
            Self::HasLocation => "hasLocation",
        }
    }

    /// The relation (and whether it is stated inverted) for a Brick property.
    fn from_property(local: &str) -> Option<(Self, bool)> {
        Some(match local {
            "feeds" => (Self::Feeds, false),
            "isFedBy" => (Self::Feeds, true),
            "hasPart" => (Self::HasPart, false),
            "isPartOf" => (Self::HasPart, true),
            "hasPoint" => (Self::HasPoint, false),
            "isPointOf" => (Self::HasPoint, true),
            "hasLocation" => (Self::HasLocation, false),
            "isLocationOf" => (Self::HasLocation, true),
            _ => return None,
        })
    }
}

/// A node as the topology API shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NodeView {
    /// IRI.
    pub id: String,
    /// `rdfs:label`, if any.
    pub label: Option<String>,
    /// `rdf:type`s.
    pub types: Vec<String>,
}

/// An edge as the topology API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct EdgeView {
    /// Source IRI.
    pub source: String,
    /// Target IRI.
    pub target: String,
    /// Relation name (`feeds`, `hasPart`, `hasPoint`, `hasLocation`).
    pub rel: &'static str,
}

/// A node reached by a traversal, with its hop distance.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Reached {
    /// The node.
    #[serde(flatten)]
    pub node: NodeView,
    /// Hops from the start.
    pub distance: usize,
}

/// How a user-supplied id resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// Exactly one node.
    Found(String),
    /// Several nodes carry that label.
    Ambiguous(Vec<String>),
    /// No node.
    NotFound,
}

/// The projection.
#[derive(Debug, Default)]
pub struct Topology {
    graph: DiGraph<String, Rel>,
    index: HashMap<String, NodeIndex>,
    labels: HashMap<String, String>,
    types: HashMap<String, Vec<String>>,
    by_label: HashMap<String, Vec<String>>,
}

/// Normalises a label for lookup: lower case, single spaces.
pub fn normalize_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl Topology {
    /// Builds the projection from the store's instance data.
    pub async fn build(store: &dyn GraphStore) -> StoreResult<Self> {
        let edges = select(
            store,
            format!(
                "{PREFIXES}SELECT ?s ?p ?o WHERE {{
                   VALUES ?p {{ brick:feeds brick:isFedBy brick:hasPart brick:isPartOf
                               brick:hasPoint brick:isPointOf brick:hasLocation brick:isLocationOf }}
                   ?s ?p ?o . FILTER(isIRI(?s) && isIRI(?o))
                 }} ORDER BY ?s ?p ?o"
            ),
        )
        .await?;
        let nodes = select(
            store,
            format!(
                "{PREFIXES}SELECT ?n ?label ?type WHERE {{
                   ?n dq:sourceSha ?sha .
                   OPTIONAL {{ ?n rdfs:label ?label }}
                   OPTIONAL {{ ?n a ?type }}
                 }} ORDER BY ?n ?label ?type"
            ),
        )
        .await?;
        let mut topo = Self::default();
        for row in &nodes {
            let Some(n) = row.str("n") else { continue };
            topo.node(n);
            if let Some(label) = row.str("label") {
                topo.labels
                    .entry(n.to_owned())
                    .or_insert_with(|| label.to_owned());
            }
            if let Some(t) = row.str("type") {
                let types = topo.types.entry(n.to_owned()).or_default();
                if !types.iter().any(|x| x == t) {
                    types.push(t.to_owned());
                }
            }
        }
        let mut seen = HashSet::new();
        for row in &edges {
            let (Some(s), Some(p), Some(o)) = (row.str("s"), row.str("p"), row.str("o")) else {
                continue;
            };
            let Some((rel, inverted)) = p.strip_prefix(vocab::BRICK).and_then(Rel::from_property)
            else {
                continue;
            };
            let (from, to) = if inverted { (o, s) } else { (s, o) };
            if seen.insert((from.to_owned(), to.to_owned(), rel)) {
                let (a, b) = (topo.node(from), topo.node(to));
                topo.graph.add_edge(a, b, rel);
            }
        }
        for (iri, label) in &topo.labels {
            topo.by_label
                .entry(normalize_label(label))
                .or_default()
                .push(iri.clone());
        }
        for list in topo.by_label.values_mut() {
            list.sort();
        }
        tracing::info!(
            nodes = topo.graph.node_count(),
            edges = topo.graph.edge_count(),
            "topology rebuilt"
        );
        Ok(topo)
    }

    fn node(&mut self, iri: &str) -> NodeIndex {
        if let Some(i) = self.index.get(iri) {
            return *i;
        }
        let i = self.graph.add_node(iri.to_owned());
        self.index.insert(iri.to_owned(), i);
        i
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// Whether the IRI is a node of the projection.
    pub fn contains(&self, iri: &str) -> bool {
        self.index.contains_key(iri)
    }

    /// Resolves an IRI, a `prefix:local` name or a unique label.
    pub fn resolve(&self, id: &str) -> Resolution {
        let id = id.trim();
        let expanded = vocab::expand(id);
        if self.index.contains_key(&expanded) {
            return Resolution::Found(expanded);
        }
        match self.by_label.get(&normalize_label(id)) {
            Some(list) if list.len() == 1 => Resolution::Found(list[0].clone()),
            Some(list) => Resolution::Ambiguous(list.clone()),
            None => Resolution::NotFound,
        }
    }

    /// The API view of a node.
    pub fn view(&self, iri: &str) -> NodeView {
        NodeView {
            id: iri.to_owned(),
            label: self.labels.get(iri).cloned(),
            types: self.types.get(iri).cloned().unwrap_or_default(),
        }
    }

    /// The label of a node, if any.
    pub fn label(&self, iri: &str) -> Option<&str> {
        self.labels.get(iri).map(String::as_str)
    }

    /// The types of a node.
    pub fn types(&self, iri: &str) -> &[String] {
        self.types.get(iri).map(Vec::as_slice).unwrap_or_default()
    }

    /// All direct edges touching a node, both directions.
    pub fn neighbours(&self, iri: &str) -> Vec<EdgeView> {
        let Some(&i) = self.index.get(iri) else {
            return Vec::new();
        };
        let mut out: Vec<EdgeView> = self
            .graph
            .edges_directed(i, Direction::Outgoing)
            .chain(self.graph.edges_directed(i, Direction::Incoming))
            .map(|e| self.edge_view(e.source(), e.target(), *e.weight()))
            .collect();
        out.sort();
        out
    }

    fn edge_view(&self, s: NodeIndex, t: NodeIndex, rel: Rel) -> EdgeView {
        EdgeView {
            source: self.graph[s].clone(),
            target: self.graph[t].clone(),
            rel: rel.as_str(),
        }
    }

    fn related(
        &self,
        i: NodeIndex,
        rel: Rel,
        dir: Direction,
    ) -> impl Iterator<Item = NodeIndex> + '_ {
        self.graph
            .edges_directed(i, dir)
            .filter(move |e| *e.weight() == rel)
            .map(move |e| {
                if dir == Direction::Outgoing {
                    e.target()
                } else {
                    e.source()
                }
            })
    }

    /// The node and everything it (transitively) has as parts, or is part of.
    fn with_parts(&self, i: NodeIndex, dir: Direction) -> Vec<NodeIndex> {
        let mut seen = vec![i];
        let mut k = 0;
        while k < seen.len() {
            let next: Vec<_> = self.related(seen[k], Rel::HasPart, dir).collect();
            for n in next {
                if !seen.contains(&n) {
                    seen.push(n);
                }
            }
            k += 1;
        }
        seen
    }

    /// Transitive `feeds` traversal. Downstream follows feeds forward from the
    /// node and its parts; upstream follows them backward and includes the
    /// equipment that an upstream part belongs to (a fan's AHU).
    fn traverse(&self, iri: &str, depth: usize, dir: Direction) -> Vec<Reached> {
        let Some(&start) = self.index.get(iri) else {
            return Vec::new();
        };
        let (expand_dir, feed_dir) = match dir {
            Direction::Outgoing => (Direction::Outgoing, Direction::Outgoing),
            Direction::Incoming => (Direction::Incoming, Direction::Incoming),
        };
        let mut dist: BTreeMap<NodeIndex, usize> = BTreeMap::new();
        let mut queue = VecDeque::new();
        let mut visited: HashSet<NodeIndex> = self
            .with_parts(start, Direction::Outgoing)
            .into_iter()
            .collect();
        for n in &visited {
            queue.push_back((*n, 0));
        }
        while let Some((n, d)) = queue.pop_front() {
            if d >= depth {
                continue;
            }
            for next in self.related(n, Rel::Feeds, feed_dir).collect::<Vec<_>>() {
                let group = if expand_dir == Direction::Incoming {
                    self.with_parts(next, Direction::Incoming)
                } else {
                    vec![next]
                };
                for m in group {
                    if visited.insert(m) {
                        dist.insert(m, d + 1);
                        queue.push_back((m, d + 1));
                    }
                }
            }
        }
        let mut out: Vec<Reached> = dist
            .into_iter()
            .map(|(n, distance)| Reached {
                node: self.view(&self.graph[n]),
                distance,
            })
            .collect();
        out.sort_by(|a, b| {
            a.distance
                .cmp(&b.distance)
                .then_with(|| a.node.id.cmp(&b.node.id))
        });
        out
    }

    /// Everything that (transitively) feeds the node.
    pub fn upstream(&self, iri: &str, depth: usize) -> Vec<Reached> {
        self.traverse(iri, depth, Direction::Incoming)
    }

    /// Everything the node (transitively) feeds.
    pub fn downstream(&self, iri: &str, depth: usize) -> Vec<Reached> {
        self.traverse(iri, depth, Direction::Outgoing)
    }

    /// The neighbourhood within `depth` hops over every relation, for drawing.
    pub fn subgraph(&self, iri: &str, depth: usize) -> (Vec<NodeView>, Vec<EdgeView>) {
        let Some(&start) = self.index.get(iri) else {
            return (Vec::new(), Vec::new());
        };
        let mut seen: BTreeSet<NodeIndex> = BTreeSet::from([start]);
        let mut frontier = vec![start];
        for _ in 0..depth {
            let mut next = Vec::new();
            for n in frontier {
                for m in self.graph.neighbors_undirected(n) {
                    if seen.insert(m) {
                        next.push(m);
                    }
                }
            }
            frontier = next;
        }
        let nodes = seen.iter().map(|n| self.view(&self.graph[*n])).collect();
        let mut edges: Vec<EdgeView> = self
            .graph
            .edge_references()
            .filter(|e| seen.contains(&e.source()) && seen.contains(&e.target()))
            .map(|e| self.edge_view(e.source(), e.target(), *e.weight()))
            .collect();
        edges.sort();
        (nodes, edges)
    }

    /// Targets of a forward relation from a node (e.g. its points).
    pub fn out_of(&self, iri: &str, rel: Rel) -> Vec<String> {
        self.index.get(iri).map_or_else(Vec::new, |&i| {
            let mut v: Vec<String> = self
                .related(i, rel, Direction::Outgoing)
                .map(|n| self.graph[n].clone())
                .collect();
            v.sort();
            v
        })
    }

    /// Sources of a relation into a node (e.g. what it is part of is `into(x, HasPart)`).
    pub fn into(&self, iri: &str, rel: Rel) -> Vec<String> {
        self.index.get(iri).map_or_else(Vec::new, |&i| {
            let mut v: Vec<String> = self
                .related(i, rel, Direction::Incoming)
                .map(|n| self.graph[n].clone())
                .collect();
            v.sort();
            v
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(edges: &[(&str, Rel, &str)]) -> Topology {
        let mut t = Topology::default();
        for (s, rel, o) in edges {
            let (a, b) = (t.node(s), t.node(o));
            t.graph.add_edge(a, b, *rel);
        }
        t
    }

    #[test]
    fn upstream_includes_container_of_upstream_part_and_is_transitive() {
        let t = topo(&[
            ("ahu", Rel::HasPart, "fan"),
            ("fan", Rel::Feeds, "vav"),
            ("vav", Rel::Feeds, "zone"),
            ("chiller", Rel::Feeds, "ahu"),
        ]);
        let up: Vec<_> = t
            .upstream("zone", 10)
            .into_iter()
            .map(|r| r.node.id)
            .collect();
        assert_eq!(up, vec!["vav", "ahu", "fan", "chiller"]);
        let up1: Vec<_> = t
            .upstream("zone", 1)
            .into_iter()
            .map(|r| r.node.id)
            .collect();
        assert_eq!(up1, vec!["vav"]);
        let down: Vec<_> = t
            .downstream("ahu", 10)
            .into_iter()
            .map(|r| r.node.id)
            .collect();
        assert_eq!(down, vec!["vav", "zone"]);
    }

    #[test]
    fn resolve_by_label_reports_ambiguity() {
        let mut t = topo(&[("urn:a", Rel::Feeds, "urn:b")]);
        t.node("urn:c");
        for (iri, l) in [("urn:a", "AHU-1"), ("urn:b", "VAV 1"), ("urn:c", "vav  1")] {
            t.labels.insert(iri.into(), l.into());
            t.by_label
                .entry(normalize_label(l))
                .or_default()
                .push(iri.into());
        }
        assert_eq!(t.resolve("ahu-1"), Resolution::Found("urn:a".into()));
        assert_eq!(t.resolve("urn:b"), Resolution::Found("urn:b".into()));
        assert!(matches!(t.resolve("VAV 1"), Resolution::Ambiguous(v) if v.len() == 2));
        assert_eq!(t.resolve("nothing"), Resolution::NotFound);
    }
}
