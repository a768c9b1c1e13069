//! Graph validation: the building models' required properties, types and
//! relationship endpoints. One violation per offending node and rule.

use crate::ontology::Ontology;
use crate::store::{GraphKind, GraphStore, SolutionExt, StoreResult, select};
use crate::vocab::{self, PREFIXES};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Namespaces whose classes are W3C vocabulary, always known.
const BUILTIN_CLASS_NAMESPACES: &[&str] = &[
    vocab::RDF,
    vocab::RDFS,
    vocab::OWL,
    vocab::SKOS,
    "http://www.w3.org/ns/shacl#",
];

/// One violation.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    /// Rule name: `missing_updated_at`, `missing_source_sha`, `unknown_class`,
    /// `has_point_object_not_point`, `feeds_endpoint_invalid`, `untyped_node`.
    pub rule: &'static str,
    /// The offending node's IRI.
    pub node: String,
    /// The source file that asserted it.
    pub source: String,
    /// What is wrong, for a person.
    pub message: String,
}

/// The validation report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// True when there are no violations.
    pub ok: bool,
    /// Model sources checked.
    pub sources: usize,
    /// Instance nodes checked.
    pub instances: usize,
    /// Violations per rule.
    pub counts: BTreeMap<&'static str, usize>,
    /// Every violation.
    pub violations: Vec<Violation>,
}

#[derive(Default)]
struct NodeFacts {
    types: BTreeSet<String>,
    has_sha: bool,
    has_updated: bool,
    is_subject: bool,
}

/// Validates every building-model graph in the store.
pub async fn validate(store: &dyn GraphStore, ontology: &Ontology) -> StoreResult<Report> {
    let models: Vec<_> = store
        .sources()
        .await?
        .into_iter()
        .filter(|s| s.kind == GraphKind::Model)
        .collect();
    let mut violations = BTreeSet::new();
    let mut instances = 0;
    // Types asserted anywhere in the models: a node may be typed in one file
    // and used in another.
    let mut all_types: HashMap<String, BTreeSet<String>> = HashMap::new();
    let mut per_graph = Vec::new();
    for src in &models {
        let rows = select(
            store,
            format!(
                "{PREFIXES}SELECT ?s ?p ?o WHERE {{ GRAPH <{}> {{
                   ?s ?p ?o . FILTER(isIRI(?s))
                   FILTER(?p IN (rdf:type, dq:sourceSha, dq:updatedAt))
                 }} }}",
                src.graph
            ),
        )
        .await?;
        let subjects = select(
            store,
            format!(
                "SELECT DISTINCT ?s WHERE {{ GRAPH <{}> {{ ?s ?p ?o FILTER(isIRI(?s)) }} }}",
                src.graph
            ),
        )
        .await?;
        let mut facts: BTreeMap<String, NodeFacts> = BTreeMap::new();
        for row in &subjects {
            facts.entry(row.string("s")).or_default().is_subject = true;
        }
        for row in &rows {
            let f = facts.entry(row.string("s")).or_default();
            match row.str("p").unwrap_or_default() {
                vocab::RDF_TYPE => {
                    let t = row.string("o");
                    all_types
                        .entry(row.string("s"))
                        .or_default()
                        .insert(t.clone());
                    f.types.insert(t);
                }
                p if p.ends_with("#sourceSha") => f.has_sha = true,
                _ => f.has_updated = true,
            }
        }
        let edges = select(
            store,
            format!(
                "{PREFIXES}SELECT ?s ?p ?o WHERE {{ GRAPH <{}> {{
                   VALUES ?p {{ brick:hasPoint brick:isPointOf brick:feeds brick:isFedBy }}
                   ?s ?p ?o . FILTER(isIRI(?o))
                 }} }}",
                src.graph
            ),
        )
        .await?;
        per_graph.push((src, facts, edges));
    }

    for (src, facts, edges) in &per_graph {
        let mut add = |rule: &'static str, node: &str, message: String| {
            violations.insert(Violation {
                rule,
                node: node.to_owned(),
                source: src.path.clone(),
                message,
            });
        };
        for (node, f) in facts {
            if !f.is_subject {
                continue;
            }
            instances += 1;
            if !f.has_updated {
                add(
                    "missing_updated_at",
                    node,
                    format!("{node} has no dq:updatedAt"),
                );
            }
            if !f.has_sha {
                add(
                    "missing_source_sha",
                    node,
                    format!("{node} has no dq:sourceSha"),
                );
            }
            for t in &f.types {
                let builtin = BUILTIN_CLASS_NAMESPACES.iter().any(|ns| t.starts_with(ns));
                if !builtin && !ontology.is_known_class(t) {
                    add(
                        "unknown_class",
                        node,
                        format!(
                            "{node} is typed {t}, which no loaded ontology declares as a class"
                        ),
                    );
                }
            }
        }
        let types_of = |n: &str| -> Vec<String> {
            all_types
                .get(n)
                .map(|t| t.iter().cloned().collect())
                .unwrap_or_default()
        };
        for row in edges {
            let (s, p, o) = (row.string("s"), row.string("p"), row.string("o"));
            let local = p.rsplit('#').next().unwrap_or_default();
            let (from, to) = if local.starts_with("is") {
                (o, s)
            } else {
                (s, o)
            };
            let checks: [(&str, &[&str]); 2] = if local.contains("Point") {
                [
                    (&from, &["Equipment", "Location", "Collection"]),
                    (&to, &["Point"]),
                ]
            } else {
                [
                    (&from, &["Equipment", "Location", "Collection"]),
                    (&to, &["Equipment", "Location", "Collection"]),
                ]
            };
            for (node, allowed) in checks {
                let types = types_of(node);
                if types.is_empty() {
                    add(
                        "untyped_node",
                        node,
                        format!("{node} is used in brick:{local} but has no rdf:type"),
                    );
                    continue;
                }
                if types.iter().any(|t| !ontology.is_known_class(t)) {
                    // Already reported as unknown_class; its endpoints cannot be judged.
                    continue;
                }
                if !allowed.iter().any(|a| ontology.any_is_a(&types, a)) {
                    let rule = if allowed == ["Point"] {
                        "has_point_object_not_point"
                    } else {
                        "feeds_endpoint_invalid"
                    };
                    add(
                        rule,
                        node,
                        format!(
                            "{node} ({}) cannot be an endpoint of brick:{local}; expected {}",
                            types
                                .iter()
                                .map(|t| vocab::compact(t))
                                .collect::<Vec<_>>()
                                .join(", "),
                            allowed.join(" or ")
                        ),
                    );
                }
            }
        }
    }
    let violations: Vec<Violation> = violations.into_iter().collect();
    let mut counts = BTreeMap::new();
    for v in &violations {
        *counts.entry(v.rule).or_insert(0) += 1;
    }
    tracing::info!(
        sources = models.len(),
        instances,
        violations = violations.len(),
        "validation finished"
    );
    Ok(Report {
        ok: violations.is_empty(),
        sources: models.len(),
        instances,
        counts,
        violations,
    })
}
