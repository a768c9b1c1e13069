//! The Ontology UI's views of the schema: class tree, one class, tags.

use crate::ontology::Ontology;
use crate::store::{GraphStore, SolutionExt, StoreResult, escape_literal, select};
use crate::vocab::{self, PREFIXES};
use serde::Serialize;
use std::collections::BTreeSet;

/// A node of the subclass tree.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ClassNode {
    /// Class IRI.
    pub iri: String,
    /// `prefix:local` form.
    pub name: String,
    /// Label.
    pub label: Option<String>,
    /// Number of direct subclasses (also when not expanded).
    pub child_count: usize,
    /// Subclasses, down to the requested depth.
    #[schema(no_recursion)]
    pub children: Vec<ClassNode>,
}

/// The subclass tree under `root`, `depth` levels deep.
pub fn class_tree(ontology: &Ontology, root: &str, depth: usize) -> Option<ClassNode> {
    if !ontology.is_known_class(root) {
        return None;
    }
    Some(tree_node(ontology, root, depth, &mut BTreeSet::new()))
}

fn tree_node(
    ontology: &Ontology,
    class: &str,
    depth: usize,
    path: &mut BTreeSet<String>,
) -> ClassNode {
    let children: Vec<&String> = ontology
        .children(class)
        .filter(|c| !ontology.class(c).is_some_and(|i| i.deprecated))
        .collect();
    path.insert(class.to_owned());
    let expanded = if depth == 0 {
        Vec::new()
    } else {
        let mut out = Vec::new();
        for c in &children {
            if !path.contains(c.as_str()) {
                out.push(tree_node(ontology, c, depth - 1, path));
            }
        }
        out
    };
    path.remove(class);
    ClassNode {
        iri: class.to_owned(),
        name: vocab::compact(class),
        label: ontology.class(class).and_then(|i| i.label.clone()),
        child_count: children.len(),
        children: expanded,
    }
}

/// A Haystack marker as shown with a class.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord, utoipa::ToSchema)]
pub struct MarkerRef {
    /// Marker IRI.
    pub iri: String,
    /// Tag name.
    pub tag: String,
}

/// A Yorkland product mapped to a class.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct ProductRef {
    /// Product IRI.
    pub iri: String,
    /// Label.
    pub label: Option<String>,
    /// Model number.
    pub model_number: Option<String>,
    /// Mapping confidence.
    pub confidence: Option<f64>,
    /// Where the mapping was extracted from.
    pub source_url: Option<String>,
}

/// One class in full.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ClassDetail {
    /// IRI.
    pub iri: String,
    /// `prefix:local` form.
    pub name: String,
    /// Label.
    pub label: Option<String>,
    /// `skos:definition` or `rdfs:comment`.
    pub definition: Option<String>,
    /// Direct superclasses.
    pub parents: Vec<String>,
    /// Direct subclasses.
    pub children: Vec<String>,
    /// Equivalent classes (aliases).
    pub equivalent: Vec<String>,
    /// Brick tags.
    pub brick_tags: Vec<String>,
    /// Haystack equipment kinds mapped to this class (`dq:brickClass`).
    pub haystack_kinds: Vec<MarkerRef>,
    /// Haystack markers whose Brick tags the class carries.
    pub haystack_tags: Vec<MarkerRef>,
    /// Yorkland products mapped to this class.
    pub yorkland_products: Vec<ProductRef>,
    /// Marked deprecated.
    pub deprecated: bool,
    /// Number of instances of the class and of its subclasses in the
    /// loaded building models (all of them; `instances` lists the first
    /// [`MAX_INSTANCES`]).
    pub instance_count: usize,
    /// Instances of the class and of its subclasses in the loaded building
    /// models, by IRI, at most [`MAX_INSTANCES`].
    pub instances: Vec<InstanceRef>,
}

/// Most instances a class detail lists.
pub const MAX_INSTANCES: usize = 500;

/// An instance of a class.
#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
pub struct InstanceRef {
    /// IRI.
    pub iri: String,
    /// `prefix:local` form.
    pub curie: String,
    /// Label, if any.
    pub label: Option<String>,
}

/// Everything the Ontology UI shows about one class.
pub async fn class_detail(
    store: &dyn GraphStore,
    ontology: &Ontology,
    iri: &str,
) -> StoreResult<Option<ClassDetail>> {
    let Some(info) = ontology.class(iri) else {
        return Ok(None);
    };
    let def_rows = select(
        store,
        format!(
            "{PREFIXES}SELECT ?d WHERE {{ {{ <{iri}> skos:definition ?d }} UNION {{ <{iri}> rdfs:comment ?d }} }} LIMIT 1"
        ),
    )
    .await?;
    let kind_rows = select(
        store,
        format!("{PREFIXES}SELECT ?m ?name WHERE {{ ?m dq:brickClass <{iri}> ; dq:tagName ?name }} ORDER BY ?name"),
    )
    .await?;
    let product_rows = select(
        store,
        format!(
            "{PREFIXES}SELECT ?p ?label ?model ?conf ?url WHERE {{
               ?p yk:mapping ?m . ?m yk:brickClass <{iri}> .
               OPTIONAL {{ ?p rdfs:label ?label }} OPTIONAL {{ ?p yk:modelNumber ?model }}
               OPTIONAL {{ ?m yk:confidence ?conf }} OPTIONAL {{ ?m yk:sourceUrl ?url }}
             }} ORDER BY ?model"
        ),
    )
    .await?;
    let classes: String = ontology
        .descendants(iri, 4096)
        .iter()
        .map(|c| format!("<{c}> "))
        .collect();
    let count_rows = select(
        store,
        format!(
            "{PREFIXES}SELECT (COUNT(DISTINCT ?n) AS ?count) WHERE {{
               VALUES ?c {{ {classes}}} ?n a ?c ; dq:sourceSha ?s }}"
        ),
    )
    .await?;
    let instance_rows = select(
        store,
        format!(
            "{PREFIXES}SELECT ?n (SAMPLE(?l) AS ?label) WHERE {{
               VALUES ?c {{ {classes}}} ?n a ?c ; dq:sourceSha ?s . OPTIONAL {{ ?n rdfs:label ?l }}
             }} GROUP BY ?n ORDER BY ?n LIMIT {MAX_INSTANCES}"
        ),
    )
    .await?;
    let tag_markers: BTreeSet<MarkerRef> = ontology
        .markers()
        .filter(|(name, _)| {
            let tags = ontology.brick_tags_for(name);
            !tags.is_empty() && tags.iter().all(|t| info.tags.contains(t))
        })
        .map(|(name, m)| MarkerRef {
            iri: m.clone(),
            tag: name.clone(),
        })
        .collect();
    Ok(Some(ClassDetail {
        iri: iri.to_owned(),
        name: vocab::compact(iri),
        label: info.label.clone(),
        definition: def_rows.first().map(|r| r.string("d")),
        parents: info.parents.iter().cloned().collect(),
        children: ontology.children(iri).cloned().collect(),
        equivalent: info.equivalent.iter().cloned().collect(),
        brick_tags: info.tags.iter().cloned().collect(),
        haystack_kinds: kind_rows
            .iter()
            .map(|r| MarkerRef {
                iri: r.string("m"),
                tag: r.string("name"),
            })
            .collect(),
        haystack_tags: tag_markers.into_iter().collect(),
        yorkland_products: product_rows
            .iter()
            .map(|r| ProductRef {
                iri: r.string("p"),
                label: r.str("label").map(str::to_owned),
                model_number: r.str("model").map(str::to_owned),
                confidence: r.str("conf").and_then(|c| c.parse().ok()),
                source_url: r.str("url").map(str::to_owned),
            })
            .collect(),
        deprecated: info.deprecated,
        instance_count: count_rows
            .first()
            .and_then(|r| r.str("count"))
            .and_then(|c| c.parse().ok())
            .unwrap_or(0),
        instances: instance_rows
            .iter()
            .map(|r| InstanceRef {
                iri: r.string("n"),
                curie: vocab::compact(&r.string("n")),
                label: r.str("label").map(str::to_owned),
            })
            .collect(),
    }))
}

/// A Haystack marker with its Brick alignment.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct TagInfo {
    /// Marker IRI.
    pub iri: String,
    /// Tag name.
    pub tag: String,
    /// Doc string.
    pub doc: Option<String>,
    /// Brick tags it stands for.
    pub brick_tags: Vec<String>,
    /// Brick class, for equipment and point kinds.
    pub brick_class: Option<String>,
}

/// All Haystack markers, optionally those whose name contains `filter`.
pub async fn tags(
    store: &dyn GraphStore,
    ontology: &Ontology,
    filter: Option<&str>,
) -> StoreResult<Vec<TagInfo>> {
    let filter_clause = filter
        .map(|f| {
            format!(
                "FILTER(CONTAINS(LCASE(?name), LCASE(\"{}\")))",
                escape_literal(f)
            )
        })
        .unwrap_or_default();
    let rows = select(
        store,
        format!(
            "{PREFIXES}SELECT ?m ?name (SAMPLE(?d) AS ?doc) (SAMPLE(?c) AS ?class) WHERE {{
               ?m dq:tagName ?name . {filter_clause}
               OPTIONAL {{ ?m rdfs:comment ?d }} OPTIONAL {{ ?m dq:brickClass ?c }}
             }} GROUP BY ?m ?name ORDER BY ?name"
        ),
    )
    .await?;
    Ok(rows
        .iter()
        .map(|r| TagInfo {
            iri: r.string("m"),
            tag: r.string("name"),
            doc: r.str("doc").map(str::to_owned),
            brick_tags: ontology.brick_tags_for(r.str("name").unwrap_or_default()),
            brick_class: r.str("class").map(str::to_owned),
        })
        .collect())
}
