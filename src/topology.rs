//! The equipment topology: a petgraph projection of Brick's `feeds`,
//! `hasPart`, `hasPoint` and `hasLocation` relations (and their inverses),
//! rebuilt from the store whenever the graph changes.

use crate::store::{GraphStore, SolutionExt, StoreResult, select};
use crate::vocab::{self, PREFIXES};
use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

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
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct NodeView {
    /// IRI.
    pub id: String,
    /// `rdfs:label`, if any.
    pub label: Option<String>,
    /// `rdf:type`s.
    pub types: Vec<String>,
}

/// An edge as the topology API shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord, utoipa::ToSchema)]
pub struct EdgeView {
    /// Source IRI.
    pub source: String,
    /// Target IRI.
    pub target: String,
    /// Relation name (`feeds`, `hasPart`, `hasPoint`, `hasLocation`).
    pub rel: &'static str,
}

/// A node reached by a traversal, with its hop distance.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Reached {
    /// The node.
    #[serde(flatten)]
    pub node: NodeView,
    /// Hops from the start.
    pub distance: usize,
}

/// Which way a walk follows `feeds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// Against `feeds`: what feeds the node.
    Upstream,
    /// Along `feeds`: what the node feeds.
    Downstream,
}

/// A node a walk reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The node.
    pub node: String,
    /// Hops from the start.
    pub distance: usize,
    /// The node it was reached from (the start, one of its parts, or an
    /// earlier step).
    pub from: String,
}

/// A breadth-first walk along `feeds` ([`Topology::walk`]), in the order
/// the nodes were reached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walk {
    /// Every node reached, in order.
    pub steps: Vec<Step>,
}

impl Walk {
    /// Whether the walk reached `node`.
    pub fn reaches(&self, node: &str) -> bool {
        self.steps.iter().any(|s| s.node == node)
    }

    /// The nodes reached, in order.
    pub fn nodes(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().map(|s| s.node.as_str())
    }

    /// The nodes one hop away.
    pub fn direct(&self) -> Vec<String> {
        self.steps
            .iter()
            .filter(|s| s.distance == 1)
            .map(|s| s.node.clone())
            .collect()
    }

    /// The nodes between `node` and the start, nearest to `node` first
    /// (the start, or the part of it the walk left from, last).
    pub fn path_back(&self, node: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut cur = node;
        while let Some(prev) = self.steps.iter().find(|s| s.node == cur).map(|s| &s.from) {
            if out.contains(prev) {
                break;
            }
            out.push(prev.clone());
            cur = prev;
        }
        out
    }
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
    comments: HashMap<String, String>,
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
                   VALUES ?p {{ {relations} }}
                   ?s ?p ?o . FILTER(isIRI(?s) && isIRI(?o))
                 }} ORDER BY ?s ?p ?o",
                relations = vocab::TOPOLOGY_RELATIONS
            ),
        )
        .await?;
        let nodes = select(
            store,
            format!(
                "{PREFIXES}SELECT ?n ?label ?comment ?type WHERE {{
                   ?n dq:sourceSha ?sha .
                   OPTIONAL {{ ?n rdfs:label ?label }}
                   OPTIONAL {{ ?n rdfs:comment ?comment }}
                   OPTIONAL {{ ?n a ?type }}
                 }} ORDER BY ?n ?label ?comment ?type"
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
            if let Some(comment) = row.str("comment") {
                topo.comments
                    .entry(n.to_owned())
                    .or_insert_with(|| comment.to_owned());
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

    /// Every node, in no particular order.
    pub fn nodes(&self) -> impl Iterator<Item = &str> {
        self.index.keys().map(String::as_str)
    }

    /// Every edge of a relation as (source, target), in no particular order.
    pub fn edges(&self, rel: Rel) -> impl Iterator<Item = (&str, &str)> {
        self.graph
            .edge_references()
            .filter(move |e| *e.weight() == rel)
            .map(|e| {
                (
                    self.graph[e.source()].as_str(),
                    self.graph[e.target()].as_str(),
                )
            })
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

    /// What the model says of a node in words (its `rdfs:comment`), if
    /// anything: "Conference room, interior, Building A floor 3."
    pub fn comment(&self, iri: &str) -> Option<&str> {
        self.comments.get(iri).map(String::as_str)
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

    /// Everything reachable from `iri` along `hasPart`, towards the parts
    /// (`Outgoing`) or the containers (`Incoming`), breadth first with
    /// neighbours in IRI order, `iri` itself left out.
    fn part_closure(&self, iri: &str, dir: Direction) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut queue: VecDeque<String> = VecDeque::from([iri.to_owned()]);
        while let Some(n) = queue.pop_front() {
            let next = match dir {
                Direction::Outgoing => self.out_of(&n, Rel::HasPart),
                Direction::Incoming => self.into(&n, Rel::HasPart),
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

    /// The parts of a node along `hasPart`, transitively, nearest first.
    pub fn parts(&self, iri: &str) -> Vec<String> {
        self.part_closure(iri, Direction::Outgoing)
    }

    /// What a node is part of along `hasPart`, transitively, nearest first.
    pub fn containers(&self, iri: &str) -> Vec<String> {
        self.part_closure(iri, Direction::Incoming)
    }

    /// Whether the model places a node anywhere: it, one of its parts or
    /// something it is part of has a `hasLocation`.
    pub fn is_placed(&self, node: &str) -> bool {
        std::iter::once(node.to_owned())
            .chain(self.parts(node))
            .chain(self.containers(node))
            .any(|n| !self.out_of(&n, Rel::HasLocation).is_empty())
    }

    /// Whether a node is in a place: the place itself, a part of it (a
    /// room of the floor), or located in one of those.
    pub fn is_in(&self, node: &str, place: &str) -> bool {
        let within = |n: &str| n == place || self.containers(n).iter().any(|c| c == place);
        within(node)
            || self
                .out_of(node, Rel::HasLocation)
                .iter()
                .any(|l| within(l))
    }

    /// The equipment (or location) that has `point` as a point.
    pub fn owner_of_point(&self, point: &str) -> Option<String> {
        self.into(point, Rel::HasPoint).into_iter().next()
    }

    /// The breadth-first walk along `feeds` from a node, at most `depth`
    /// hops. The walk starts from the node and its parts (a VAV's damper
    /// feeds the zone too); upstream, the equipment an upstream part
    /// belongs to is reached with it (a supply fan's AHU); what the node
    /// itself is part of is never reached (an AHU is not upstream of its
    /// own fan). Each node is reached once, at its shortest distance, with
    /// the node it was reached from; neighbours are taken in IRI order, so
    /// the walk is the same on every store.
    pub fn walk(&self, iri: &str, way: Way, depth: usize) -> Walk {
        let mut group = vec![iri.to_owned()];
        group.extend(self.parts(iri));
        let skip: HashSet<String> = self.containers(iri).into_iter().collect();
        let mut seen: HashSet<String> = group.iter().cloned().collect();
        let mut queue: VecDeque<(String, usize)> = group.iter().map(|g| (g.clone(), 0)).collect();
        let mut steps = Vec::new();
        while let Some((n, d)) = queue.pop_front() {
            if d >= depth {
                continue;
            }
            let next = match way {
                Way::Upstream => self.into(&n, Rel::Feeds),
                Way::Downstream => self.out_of(&n, Rel::Feeds),
            };
            for m in next {
                let mut reached = vec![m.clone()];
                if way == Way::Upstream {
                    reached.extend(self.containers(&m));
                }
                for r in reached {
                    if skip.contains(&r) || !seen.insert(r.clone()) {
                        continue;
                    }
                    steps.push(Step {
                        node: r.clone(),
                        distance: d + 1,
                        from: n.clone(),
                    });
                    queue.push_back((r, d + 1));
                }
            }
        }
        Walk { steps }
    }

    /// What supplies a node: the upstream [`walk`](Self::walk) from it,
    /// then, for what that does not reach, the upstream walk from each
    /// thing it is part of, nearest first (a room is fed through the zone
    /// it is part of: "AHU-2 (via VAV-3-02, Zone A-302)"). A node reached
    /// through a container keeps its path back to that container, which
    /// is not itself a step; the node itself is never one.
    pub fn supply_walk(&self, iri: &str, depth: usize) -> Walk {
        let mut walk = self.walk(iri, Way::Upstream, depth);
        for c in self.containers(iri) {
            for s in self.walk(&c, Way::Upstream, depth).steps {
                if s.node != iri && !walk.reaches(&s.node) {
                    walk.steps.push(s);
                }
            }
        }
        walk
    }

    /// The API view of a walk: every node reached, nearest first, then by IRI.
    fn reached(&self, walk: &Walk) -> Vec<Reached> {
        let mut out: Vec<Reached> = walk
            .steps
            .iter()
            .map(|s| Reached {
                node: self.view(&s.node),
                distance: s.distance,
            })
            .collect();
        out.sort_by(|a, b| {
            a.distance
                .cmp(&b.distance)
                .then_with(|| a.node.id.cmp(&b.node.id))
        });
        out
    }

    /// Everything that (transitively) feeds the node, within `depth` hops.
    pub fn upstream(&self, iri: &str, depth: usize) -> Vec<Reached> {
        self.reached(&self.walk(iri, Way::Upstream, depth))
    }

    /// Everything the node (transitively) feeds, within `depth` hops.
    pub fn downstream(&self, iri: &str, depth: usize) -> Vec<Reached> {
        self.reached(&self.walk(iri, Way::Downstream, depth))
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
    fn walks_keep_their_paths_and_never_reach_what_the_start_is_part_of() {
        let t = topo(&[
            ("ahu", Rel::HasPart, "fan"),
            ("ahu", Rel::HasPart, "coil"),
            ("coil", Rel::Feeds, "fan"),
            ("fan", Rel::Feeds, "vav"),
            ("vav", Rel::Feeds, "zone"),
            ("chiller", Rel::Feeds, "coil"),
        ]);
        // Upstream of the fan: the coil and what feeds it, never the
        // fan's own AHU (the coil is part of it too).
        let w = t.walk("fan", Way::Upstream, 10);
        assert_eq!(w.nodes().collect::<Vec<_>>(), ["coil", "chiller"]);
        assert_eq!(w.path_back("chiller"), ["coil", "fan"]);
        // Upstream of the zone: the AHU is reached with its fan.
        let w = t.walk("zone", Way::Upstream, 10);
        assert_eq!(
            w.nodes().collect::<Vec<_>>(),
            ["vav", "fan", "ahu", "coil", "chiller"]
        );
        assert_eq!(w.path_back("ahu"), ["vav", "zone"]);
        assert_eq!(w.direct(), ["vav"]);
        // The API lists the same nodes, nearest first, then by IRI.
        let api: Vec<String> = t
            .upstream("zone", 10)
            .into_iter()
            .map(|r| r.node.id)
            .collect();
        assert_eq!(api, ["vav", "ahu", "fan", "coil", "chiller"]);
        // Downstream of the AHU starts from its parts.
        let w = t.walk("ahu", Way::Downstream, 10);
        assert_eq!(w.nodes().collect::<Vec<_>>(), ["vav", "zone"]);
        assert_eq!(t.walk("ahu", Way::Downstream, 1).direct(), ["vav"]);
    }

    #[test]
    fn what_supplies_a_room_is_found_through_the_zone_it_is_part_of() {
        let t = topo(&[
            ("ahu", Rel::Feeds, "vav"),
            ("vav", Rel::Feeds, "zone"),
            ("zone", Rel::HasPart, "room"),
            ("boiler", Rel::Feeds, "radiator"),
            ("radiator", Rel::Feeds, "room"),
        ]);
        // Nothing but the radiator feeds the room itself.
        assert_eq!(
            t.walk("room", Way::Upstream, 10)
                .nodes()
                .collect::<Vec<_>>(),
            ["radiator", "boiler"]
        );
        // Its supply adds what feeds the zone, with the path through it;
        // the zone itself is not supply.
        let w = t.supply_walk("room", 10);
        assert_eq!(
            w.nodes().collect::<Vec<_>>(),
            ["radiator", "boiler", "vav", "ahu"]
        );
        assert_eq!(w.path_back("ahu"), ["vav", "zone"]);
        assert_eq!(w.path_back("boiler"), ["radiator", "room"]);
        // A node with no container: its own walk.
        assert_eq!(t.supply_walk("vav", 10), t.walk("vav", Way::Upstream, 10));
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
