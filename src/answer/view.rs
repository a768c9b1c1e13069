//! What the answer stages ask of the topology and the ontology together:
//! whether a node is a location or a point, whether it is an instance of
//! some classes, its most specific types, the points beside a point.

use crate::ground::{EntityKind, Grounding};
use crate::ontology::Ontology;
use crate::topology::Topology;
use crate::vocab;

/// The Brick tags that say what a point does; a point's class has one.
const POINT_FUNCTION_TAGS: [&str; 6] = [
    "Sensor",
    "Setpoint",
    "Command",
    "Status",
    "Alarm",
    "Parameter",
];

/// The topology read through the class hierarchy.
#[derive(Clone, Copy)]
pub struct GraphView<'a> {
    /// The equipment topology.
    pub topo: &'a Topology,
    /// The class hierarchy.
    pub onto: &'a Ontology,
}

impl<'a> GraphView<'a> {
    /// A view over a topology and an ontology.
    pub fn new(topo: &'a Topology, onto: &'a Ontology) -> Self {
        Self { topo, onto }
    }

    /// Whether the node is a `brick:Location`.
    pub fn is_location(&self, iri: &str) -> bool {
        self.onto.any_is_a(self.topo.types(iri), "Location")
    }

    /// Whether the node is a `brick:Point`.
    pub fn is_point(&self, iri: &str) -> bool {
        self.onto.any_is_a(self.topo.types(iri), "Point")
    }

    /// Whether the node is an instance of one of `classes` (or a subclass).
    pub fn is_a_any(&self, iri: &str, classes: &[String]) -> bool {
        let types = self.topo.types(iri);
        classes
            .iter()
            .any(|c| types.iter().any(|t| self.onto.is_a(t, c)))
    }

    /// The nodes that are instances of `class` (or a subclass), in the
    /// topology's order.
    pub fn instances_of<'c>(&self, class: &'c str) -> impl Iterator<Item = &'a str> + 'c
    where
        'a: 'c,
    {
        let (topo, onto) = (self.topo, self.onto);
        topo.nodes()
            .filter(move |n| topo.types(n).iter().any(|t| onto.is_a(t, class)))
    }

    /// The node's types that no other of its types specialises.
    pub fn specific_types(&self, iri: &str) -> Vec<String> {
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

    /// The points beside the point `named` on its equipment that are what
    /// it is but for its function: the Brick tags of its classes with
    /// their function tags (sensor, setpoint, command …) replaced by the
    /// `asked` tags, which hold one ("AHU-1 SAT" and a setpoint: AHU-1
    /// SAT-SP; "VAV-2-14 ZNT" and a setpoint: its heating and cooling
    /// setpoints). `None` when `named` is on no equipment, `asked` holds
    /// no function or the named point's classes hold nothing else.
    pub fn points_beside(&self, named: &str, asked: &[String]) -> Option<Vec<String>> {
        let owner = self.topo.owner_of_point(named)?;
        let tags = |class: &str| {
            self.onto
                .class(class)
                .map(|c| c.tags.clone())
                .unwrap_or_default()
        };
        let function = |t: &String| {
            POINT_FUNCTION_TAGS
                .iter()
                .any(|f| t.strip_prefix(vocab::TAG) == Some(*f))
        };
        let mut want: Vec<String> = self
            .specific_types(named)
            .iter()
            .flat_map(|c| tags(c))
            .filter(|t| !function(t))
            .collect();
        if want.is_empty() || !asked.iter().any(function) {
            return None;
        }
        want.extend(asked.iter().cloned());
        Some(
            self.topo
                .out_of(&owner, crate::topology::Rel::HasPoint)
                .into_iter()
                .filter(|n| {
                    n != named
                        && self.specific_types(n).iter().any(|c| {
                            let have = tags(c);
                            want.iter().all(|t| have.contains(t))
                        })
                })
                .collect(),
        )
    }

    /// Brick equipment classes the grounding names beyond the types of the
    /// instances it names ("which *chillers* feed VAV-3-07"), in text order.
    pub fn classes_beyond(&self, g: &Grounding) -> Vec<String> {
        let instances: Vec<&str> = g
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Instance)
            .map(|e| e.iri.as_str())
            .collect();
        let mut out: Vec<String> = Vec::new();
        for t in &g.equipment_types {
            let Some(c) = t.brick_class.as_deref().filter(|c| !c.contains(':')) else {
                continue;
            };
            let iri = vocab::brick(c);
            let own = instances
                .iter()
                .any(|s| self.topo.types(s).iter().any(|ty| self.onto.is_a(ty, &iri)));
            if !own && !out.contains(&iri) {
                out.push(iri);
            }
        }
        out
    }
}
