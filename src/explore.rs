//! What the web UI asks of the graph beyond the topology and schema APIs:
//! finding a node or class by its label or IRI, one node with everything
//! said about it, and the coarse class family a drawing styles a node by.
//! The UI itself knows no classes; everything it shows comes from here.

use crate::ontology::Ontology;
use crate::store::{self, GraphStore, SolutionExt, StoreResult, Term};
use crate::topology::{Rel, Topology, normalize_label};
use crate::vocab;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a search looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchKind {
    /// Nodes of the building models.
    Node,
    /// Classes of the loaded ontologies.
    Class,
    /// Both.
    Any,
}

/// One search hit.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct SearchHit {
    /// `node` or `class`.
    pub kind: &'static str,
    /// IRI.
    pub iri: String,
    /// `prefix:local` form (the IRI itself when no known prefix matches).
    pub curie: String,
    /// Label, if any.
    pub label: Option<String>,
    /// A node's types, prefixed (empty for a class).
    pub types: Vec<String>,
    /// The class family (`Equipment`, `Point`, `Location` …) of a class or
    /// of a node's first typed class.
    pub family: Option<String>,
    /// For a class: the path from `brick:Class` down to its parent, so a
    /// tree can expand to it (empty for a node, or when there is none).
    pub ancestors: Vec<String>,
}

/// A class as a drawing styles it.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct ClassRef {
    /// `prefix:local` form.
    pub curie: String,
    /// Label, if any.
    pub label: Option<String>,
    /// The class family, if the class is under one.
    pub family: Option<String>,
}

/// Text folded for search: lower case, `_` and `-` read as spaces, single
/// spaces (so `vav 101` finds `VAV-101` and `VAV_101`).
fn fold(text: &str) -> String {
    normalize_label(&text.replace(['_', '-'], " "))
}

/// How good a match is: lower is better.
fn match_rank(needle: &str, label: Option<&str>, iri: &str) -> Option<u8> {
    let local = fold(vocab::local_name(iri));
    let label = label.map(fold);
    let candidates = label.iter().map(String::as_str).chain([local.as_str()]);
    let mut best = None::<u8>;
    for text in candidates {
        let rank = if text == needle {
            0
        } else if text.starts_with(needle) {
            1
        } else if text.contains(needle) {
            2
        } else {
            continue;
        };
        best = Some(best.map_or(rank, |b| b.min(rank)));
    }
    best.or_else(|| iri.to_lowercase().contains(needle).then_some(3))
}

/// The family of a class: its ancestor directly under `brick:Class` (the
/// first in IRI order when there are several), by label or local name.
pub fn family(ontology: &Ontology, class: &str) -> Option<String> {
    let path = ontology.path_from(&vocab::brick("Class"), class)?;
    family_on(ontology, class, &path)
}

/// The family of `class` read off its `path` from the root.
fn family_on(ontology: &Ontology, class: &str, path: &[String]) -> Option<String> {
    // path = [root, top, …, parent]; a class directly under the root is
    // its own family.
    let top = match path {
        [_, top, ..] => top.as_str(),
        [root] if class != root => class,
        _ => return None,
    };
    Some(
        ontology
            .class(top)
            .and_then(|c| c.label.clone())
            .unwrap_or_else(|| vocab::local_name(top).replace('_', " ")),
    )
}

/// The [`ClassRef`] of every class in `classes`.
pub fn class_refs<'a>(
    ontology: &Ontology,
    classes: impl IntoIterator<Item = &'a String>,
) -> BTreeMap<String, ClassRef> {
    classes
        .into_iter()
        .map(|c| {
            (
                c.clone(),
                ClassRef {
                    curie: vocab::compact(c),
                    label: ontology.class(c).and_then(|i| i.label.clone()),
                    family: family(ontology, c),
                },
            )
        })
        .collect()
}

/// Nodes and classes whose label, local name or IRI contains `q`
/// (case- and separator-insensitive), best matches first.
pub fn search(
    topology: &Topology,
    ontology: &Ontology,
    q: &str,
    kind: SearchKind,
    limit: usize,
) -> Vec<SearchHit> {
    let needle = fold(q);
    if needle.is_empty() {
        return Vec::new();
    }
    // Rank every match first (cheap), and describe only the hits kept:
    // a class's path from the root is a walk up the hierarchy.
    let mut ranked: Vec<(u8, usize, &str, bool)> = Vec::new();
    if kind != SearchKind::Class {
        for iri in topology.nodes() {
            let label = topology.label(iri);
            if let Some(rank) = match_rank(&needle, label, iri) {
                ranked.push((rank, label.map_or(iri.len(), str::len), iri, false));
            }
        }
    }
    if kind != SearchKind::Node {
        for iri in ontology.class_iris() {
            let info = ontology.class(iri);
            let label = info.and_then(|i| i.label.as_deref());
            if let Some(rank) = match_rank(&needle, label, iri) {
                // A deprecated class sorts after live ones of equal rank.
                let deprecated = info.is_some_and(|i| i.deprecated);
                ranked.push((
                    rank * 2 + u8::from(deprecated),
                    label.map_or(iri.len(), str::len),
                    iri,
                    true,
                ));
            }
        }
    }
    ranked.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    let root = vocab::brick("Class");
    ranked
        .into_iter()
        .take(limit)
        .map(|(_, _, iri, is_class)| {
            if is_class {
                let path = ontology.path_from(&root, iri).unwrap_or_default();
                SearchHit {
                    kind: "class",
                    iri: iri.to_owned(),
                    curie: vocab::compact(iri),
                    label: ontology.class(iri).and_then(|i| i.label.clone()),
                    types: Vec::new(),
                    family: family_on(ontology, iri, &path),
                    ancestors: path.iter().map(|c| vocab::compact(c)).collect(),
                }
            } else {
                let types = topology.types(iri);
                SearchHit {
                    kind: "node",
                    iri: iri.to_owned(),
                    curie: vocab::compact(iri),
                    label: topology.label(iri).map(str::to_owned),
                    types: types.iter().map(|t| vocab::compact(t)).collect(),
                    family: types.iter().find_map(|t| family(ontology, t)),
                    ancestors: Vec::new(),
                }
            }
        })
        .collect()
}

/// An IRI with its prefixed form and label.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Named {
    /// IRI.
    pub iri: String,
    /// `prefix:local` form.
    pub curie: String,
    /// Label, if any.
    pub label: Option<String>,
}

/// A type of a node, with its family.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct TypeRef {
    /// IRI.
    pub iri: String,
    /// `prefix:local` form.
    pub curie: String,
    /// Label, if any.
    pub label: Option<String>,
    /// Class family.
    pub family: Option<String>,
}

/// A predicate.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Predicate {
    /// IRI.
    pub iri: String,
    /// `prefix:local` form.
    pub curie: String,
}

/// The object of a statement.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Value {
    /// `iri` or `literal` (a blank node is shown as `literal` with its id).
    pub kind: &'static str,
    /// The IRI or the lexical form.
    pub value: String,
    /// For an IRI: its `prefix:local` form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub curie: Option<String>,
    /// For an IRI: its label, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// For a literal: its datatype IRI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub datatype: Option<String>,
    /// For a literal: its language tag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
}

/// One statement about the node.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Property {
    /// The predicate.
    pub predicate: Predicate,
    /// The object.
    pub value: Value,
}

/// One statement that points at the node.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Incoming {
    /// The predicate.
    pub predicate: Predicate,
    /// The subject.
    pub subject: Named,
}

/// A point of the node, with its classes.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct PointRef {
    /// IRI.
    pub iri: String,
    /// `prefix:local` form.
    pub curie: String,
    /// Label, if any.
    pub label: Option<String>,
    /// Types, prefixed.
    pub types: Vec<String>,
}

/// Where a node's statements came from.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct Provenance {
    /// `dq:sourcePath`.
    pub source_path: Option<String>,
    /// `dq:sourceSha`.
    pub source_sha: Option<String>,
    /// `dq:updatedAt`.
    pub updated_at: Option<String>,
}

/// One node with everything said about it.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct NodeCard {
    /// `node`, or `class` when the IRI is a class of the ontologies (the
    /// UI then shows the class page).
    pub kind: &'static str,
    /// IRI.
    pub iri: String,
    /// `prefix:local` form.
    pub curie: String,
    /// Label, if any.
    pub label: Option<String>,
    /// `rdf:type`s.
    pub types: Vec<TypeRef>,
    /// Statements about the node (first 500), types excluded.
    pub properties: Vec<Property>,
    /// Statements that point at the node (first 200).
    pub incoming: Vec<Incoming>,
    /// Its points (`brick:hasPoint`).
    pub points: Vec<PointRef>,
    /// Where its statements came from, when recorded.
    pub provenance: Option<Provenance>,
}

/// Most statements about a node a card lists.
const MAX_PROPERTIES: usize = 500;
/// Most statements pointing at a node a card lists.
const MAX_INCOMING: usize = 200;

fn predicate(iri: &str) -> Predicate {
    Predicate {
        iri: iri.to_owned(),
        curie: vocab::compact(iri),
    }
}

fn value(term: &Term, label: Option<&str>) -> Value {
    match term {
        Term::NamedNode(n) => Value {
            kind: "iri",
            value: n.as_str().to_owned(),
            curie: Some(vocab::compact(n.as_str())),
            label: label.map(str::to_owned),
            datatype: None,
            lang: None,
        },
        Term::Literal(l) => Value {
            kind: "literal",
            value: l.value().to_owned(),
            curie: None,
            label: None,
            datatype: Some(l.datatype().as_str().to_owned()),
            lang: l.language().map(str::to_owned),
        },
        other => Value {
            kind: "literal",
            value: store::TermExt::value(other).to_owned(),
            curie: None,
            label: None,
            datatype: None,
            lang: None,
        },
    }
}

/// Everything said about `iri` (already resolved and checked by
/// [`store::is_safe_iri`]); `None` when nothing is.
pub async fn node_card(
    graph: &dyn GraphStore,
    topology: &Topology,
    ontology: &Ontology,
    iri: &str,
) -> StoreResult<Option<NodeCard>> {
    let prefixes = vocab::PREFIXES;
    let out_rows = store::select(
        graph,
        format!(
            "{prefixes}SELECT ?p ?o (SAMPLE(?l) AS ?label) WHERE {{
               <{iri}> ?p ?o . OPTIONAL {{ ?o rdfs:label ?l }}
             }} GROUP BY ?p ?o ORDER BY ?p ?o LIMIT {}",
            MAX_PROPERTIES + 64
        ),
    )
    .await?;
    let in_rows = store::select(
        graph,
        format!(
            "{prefixes}SELECT ?s ?p (SAMPLE(?l) AS ?label) WHERE {{
               ?s ?p <{iri}> . FILTER(isIRI(?s)) OPTIONAL {{ ?s rdfs:label ?l }}
             }} GROUP BY ?s ?p ORDER BY ?p ?s LIMIT {MAX_INCOMING}"
        ),
    )
    .await?;
    let is_class = ontology.is_known_class(iri) && !topology.contains(iri);
    if out_rows.is_empty() && in_rows.is_empty() && !is_class && !topology.contains(iri) {
        return Ok(None);
    }
    let mut types = Vec::new();
    let mut label = topology.label(iri).map(str::to_owned);
    let mut properties = Vec::new();
    let mut provenance = Provenance {
        source_path: None,
        source_sha: None,
        updated_at: None,
    };
    for row in &out_rows {
        let (Some(p), Some(o)) = (row.str("p"), row.get("o")) else {
            continue;
        };
        let o_label = row.str("label");
        if p == vocab::RDF_TYPE
            && let Term::NamedNode(class) = o
        {
            let class = class.as_str();
            types.push(TypeRef {
                iri: class.to_owned(),
                curie: vocab::compact(class),
                label: ontology
                    .class(class)
                    .and_then(|c| c.label.clone())
                    .or_else(|| o_label.map(str::to_owned)),
                family: family(ontology, class),
            });
            continue;
        }
        if p == vocab::RDFS_LABEL && label.is_none() {
            label = Some(store::TermExt::value(o).to_owned());
        }
        let text = Some(store::TermExt::value(o).to_owned());
        if p == vocab::dq("sourcePath") {
            provenance.source_path = text.clone();
        } else if p == vocab::dq("sourceSha") {
            provenance.source_sha = text.clone();
        } else if p == vocab::dq("updatedAt") {
            provenance.updated_at = text.clone();
        }
        if properties.len() < MAX_PROPERTIES {
            properties.push(Property {
                predicate: predicate(p),
                value: value(o, o_label),
            });
        }
    }
    if is_class && label.is_none() {
        label = ontology.class(iri).and_then(|c| c.label.clone());
    }
    let incoming = in_rows
        .iter()
        .filter_map(|row| {
            Some(Incoming {
                predicate: predicate(row.str("p")?),
                subject: Named {
                    iri: row.string("s"),
                    curie: vocab::compact(row.str("s")?),
                    label: row.str("label").map(str::to_owned),
                },
            })
        })
        .collect();
    let points = topology
        .out_of(iri, Rel::HasPoint)
        .into_iter()
        .map(|p| PointRef {
            curie: vocab::compact(&p),
            label: topology.label(&p).map(str::to_owned),
            types: topology
                .types(&p)
                .iter()
                .map(|t| vocab::compact(t))
                .collect(),
            iri: p,
        })
        .collect();
    let recorded = provenance.source_path.is_some()
        || provenance.source_sha.is_some()
        || provenance.updated_at.is_some();
    Ok(Some(NodeCard {
        kind: if is_class { "class" } else { "node" },
        iri: iri.to_owned(),
        curie: vocab::compact(iri),
        label,
        types,
        properties,
        incoming,
        points,
        provenance: recorded.then_some(provenance),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_match_outranks_an_iri_match() {
        assert_eq!(match_rank("vav", Some("VAV"), "urn:x#a"), Some(0));
        assert_eq!(match_rank("vav", Some("VAV-101"), "urn:x#a"), Some(1));
        assert_eq!(match_rank("vav", Some("Zone VAV"), "urn:x#a"), Some(2));
        assert_eq!(match_rank("vav", None, "urn:x#VAV_1"), Some(1));
        assert_eq!(match_rank("vav", None, "urn:vav:x#a1"), Some(3));
        assert_eq!(
            match_rank(&fold("vav 101"), Some("VAV-101"), "urn:x#a"),
            Some(0)
        );
        assert_eq!(match_rank("vav", Some("AHU"), "urn:x#a"), None);
    }
}
