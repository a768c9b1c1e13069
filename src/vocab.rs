//! Namespace IRIs of the vocabularies DaemonIQ reads and writes.
//!
//! Only namespaces and the handful of terms the code itself asserts live here;
//! which classes, tags and products exist is always read from the store.

/// DaemonIQ core vocabulary (`ontology/core/daemoniq.ttl`).
pub const DQ: &str = "https://daemoniq.io/ns/core#";
/// Brick schema.
pub const BRICK: &str = "https://brickschema.org/schema/Brick#";
/// Brick tags.
pub const TAG: &str = "https://brickschema.org/schema/BrickTag#";
/// Yorkland product extension.
pub const YK: &str = "https://daemoniq.io/ns/yorkland#";
/// Haystack `ph` library.
pub const PH: &str = "https://project-haystack.org/def/ph/3.9.14#";
/// Haystack `phIoT` library.
pub const PH_IOT: &str = "https://project-haystack.org/def/phIoT/3.9.14#";
/// Haystack `phScience` library.
pub const PH_SCIENCE: &str = "https://project-haystack.org/def/phScience/3.9.14#";
/// RDF.
pub const RDF: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
/// RDF Schema.
pub const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
/// OWL.
pub const OWL: &str = "http://www.w3.org/2002/07/owl#";
/// SKOS.
pub const SKOS: &str = "http://www.w3.org/2004/02/skos/core#";
/// XML Schema datatypes.
pub const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

/// `rdf:type`.
pub const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
/// `rdfs:label`.
pub const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";

/// The Brick relations the equipment topology is built from, both
/// directions, as a SPARQL `VALUES` list (`brick:` prefix): supply, parts,
/// points and locations. A node one of them relates is a node of the
/// building ([`crate::topology::Topology`], the grounder's untyped nodes).
pub const TOPOLOGY_RELATIONS: &str = "brick:feeds brick:isFedBy brick:hasPart brick:isPartOf \
     brick:hasPoint brick:isPointOf brick:hasLocation brick:isLocationOf";

/// The named graph holding DaemonIQ's bookkeeping about loaded sources.
pub const META_GRAPH: &str = "urn:daemoniq:meta";
/// Prefix of the named graph of each source file: this plus its relative path.
pub const SOURCE_GRAPH_PREFIX: &str = "urn:daemoniq:source:";

/// The SPARQL prefix block every internal query starts with.
pub const PREFIXES: &str = "PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX brick: <https://brickschema.org/schema/Brick#>
PREFIX tag: <https://brickschema.org/schema/BrickTag#>
PREFIX dq: <https://daemoniq.io/ns/core#>
PREFIX yk: <https://daemoniq.io/ns/yorkland#>
PREFIX ph: <https://project-haystack.org/def/ph/3.9.14#>
PREFIX phIoT: <https://project-haystack.org/def/phIoT/3.9.14#>
PREFIX phScience: <https://project-haystack.org/def/phScience/3.9.14#>
PREFIX phIct: <https://project-haystack.org/def/phIct/3.9.14#>
PREFIX phx: <https://daemoniq.io/ns/haystack-ext#>
";

/// Prefixes accepted in `prefix:local` names given to the REST API.
pub const KNOWN_PREFIXES: &[(&str, &str)] = &[
    ("rdf", RDF),
    ("rdfs", RDFS),
    ("owl", OWL),
    ("skos", SKOS),
    ("xsd", XSD),
    ("brick", BRICK),
    ("tag", TAG),
    ("dq", DQ),
    ("yk", YK),
    ("ph", PH),
    ("phIoT", PH_IOT),
    ("phScience", PH_SCIENCE),
];

/// The IRI of a class the grounder names: `prefix:local` expanded, a bare
/// local name as Brick's ("Air_Handling_Unit").
pub fn class_iri(name: &str) -> String {
    if name.contains(':') {
        expand(name)
    } else {
        brick(name)
    }
}

/// Expands `prefix:local` with a known prefix; returns other strings unchanged.
pub fn expand(name: &str) -> String {
    if let Some((prefix, local)) = name.split_once(':')
        && !local.starts_with("//")
        && let Some((_, ns)) = KNOWN_PREFIXES.iter().find(|(p, _)| *p == prefix)
    {
        return format!("{ns}{local}");
    }
    name.to_owned()
}

/// Shortens an IRI to `prefix:local` when a known prefix matches.
pub fn compact(iri: &str) -> String {
    for (prefix, ns) in KNOWN_PREFIXES {
        if let Some(local) = iri.strip_prefix(ns)
            && !local.is_empty()
            && !local.contains(['/', '#'])
        {
            return format!("{prefix}:{local}");
        }
    }
    iri.to_owned()
}

/// The local name of an IRI: what follows its last `#` or `/`.
pub fn local_name(iri: &str) -> &str {
    iri.rsplit(['#', '/']).next().unwrap_or(iri)
}

/// The lowercase words of a class's local name: `brick:Damper_Position_Command`
/// is `damper`, `position`, `command`.
pub fn name_words(iri: &str) -> Vec<String> {
    local_name(iri)
        .split('_')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// `dq:` term IRI.
pub fn dq(local: &str) -> String {
    format!("{DQ}{local}")
}

/// `brick:` term IRI.
pub fn brick(local: &str) -> String {
    format!("{BRICK}{local}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_and_compact_round_trip() {
        assert_eq!(expand("brick:AHU"), format!("{BRICK}AHU"));
        assert_eq!(compact(&expand("brick:AHU")), "brick:AHU");
        assert_eq!(expand("http://example.com/x"), "http://example.com/x");
        assert_eq!(expand("urn:x:y"), "urn:x:y");
        assert_eq!(compact("http://example.com/x"), "http://example.com/x");
    }
}
