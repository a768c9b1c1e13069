//! Haystack JSON grids → Brick triples.
//!
//! Both encodings are read: Haystack 4 JSON (`{"_kind": "marker"}`,
//! `{"_kind": "ref", "val": ..}`) and the older v3 JSON with type prefixes
//! (`"m:"`, `"r:id dis"`, `"s:"`, `"n:42 unit"`). Each record becomes a node
//! labelled with its `dis`; its marker tags become a Brick class through the
//! ontology's tag-set inference; refs become Brick relationships.

use crate::ontology::Ontology;
use crate::store::{NamedNode, Triple, term};
use crate::vocab::{self, RDF_TYPE, RDFS_LABEL};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// A Haystack value, normalised from either JSON encoding.
#[derive(Debug, Clone, PartialEq)]
pub enum HValue {
    /// A marker tag.
    Marker,
    /// A reference to another record, with its display name if given.
    Ref {
        /// The referenced id (without a leading `@`).
        id: String,
        /// Display name carried by the ref.
        dis: Option<String>,
    },
    /// A string.
    Str(String),
    /// A number with its unit.
    Number(f64, Option<String>),
    /// A boolean.
    Bool(bool),
    /// Anything else (dates, coordinates, dicts …), as text.
    Other(String),
    /// The "remove" marker or null: the tag is absent.
    Absent,
}

fn parse_v3_string(s: &str) -> HValue {
    let Some((prefix, rest)) = s.split_once(':').filter(|(p, _)| p.len() == 1) else {
        return if s == "\u{2713}" {
            HValue::Marker
        } else {
            HValue::Str(s.to_owned())
        };
    };
    match prefix {
        "m" => HValue::Marker,
        "-" => HValue::Absent,
        "r" => {
            let (id, dis) = match rest.split_once(' ') {
                Some((id, dis)) => (id, Some(dis.to_owned())),
                None => (rest, None),
            };
            HValue::Ref {
                id: id.trim_start_matches('@').to_owned(),
                dis,
            }
        }
        "s" => HValue::Str(rest.to_owned()),
        "n" => {
            let (num, unit) = match rest.split_once(' ') {
                Some((n, u)) => (n, Some(u.to_owned())),
                None => (rest, None),
            };
            num.parse()
                .map(|n| HValue::Number(n, unit))
                .unwrap_or_else(|_| HValue::Other(rest.to_owned()))
        }
        _ => HValue::Other(rest.to_owned()),
    }
}

/// Normalises one JSON value of a grid cell.
pub fn parse_value(v: &Value) -> HValue {
    match v {
        Value::Null => HValue::Absent,
        Value::Bool(b) => HValue::Bool(*b),
        Value::Number(n) => HValue::Number(n.as_f64().unwrap_or_default(), None),
        Value::String(s) => parse_v3_string(s),
        Value::Object(o) => match o.get("_kind").and_then(Value::as_str) {
            Some("marker") => HValue::Marker,
            Some("remove") => HValue::Absent,
            Some("ref") => HValue::Ref {
                id: o
                    .get("val")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .trim_start_matches('@')
                    .to_owned(),
                dis: o.get("dis").and_then(Value::as_str).map(str::to_owned),
            },
            Some("number") => HValue::Number(
                o.get("val").and_then(Value::as_f64).unwrap_or_default(),
                o.get("unit").and_then(Value::as_str).map(str::to_owned),
            ),
            _ => HValue::Other(v.to_string()),
        },
        Value::Array(_) => HValue::Other(v.to_string()),
    }
}

/// One record: tag name → value.
pub type Record = BTreeMap<String, HValue>;

/// Reads the rows of a Haystack JSON grid in either encoding.
pub fn parse_grid(bytes: &[u8]) -> Result<Vec<Record>, String> {
    let grid: Value = serde_json::from_slice(bytes).map_err(|e| format!("not valid JSON: {e}"))?;
    let rows = grid
        .get("rows")
        .and_then(Value::as_array)
        .ok_or("not a Haystack grid: no \"rows\" array")?;
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let obj = row
                .as_object()
                .ok_or_else(|| format!("row {i} is not an object"))?;
            Ok(obj
                .iter()
                .map(|(k, v)| (k.clone(), parse_value(v)))
                .filter(|(_, v)| *v != HValue::Absent)
                .collect())
        })
        .collect()
}

/// Refs whose target feeds the record (the target is upstream).
const FEED_REFS: &[&str] = &[
    "airRef",
    "ahuRef",
    "chilledWaterRef",
    "hotWaterRef",
    "condenserWaterRef",
    "steamRef",
    "elecRef",
    "naturalGasRef",
];

/// Refs that place the record in a location.
const LOCATION_REFS: &[&str] = &["siteRef", "spaceRef", "floorRef"];

fn markers(record: &Record) -> Vec<&str> {
    record
        .iter()
        .filter(|(_, v)| matches!(v, HValue::Marker))
        .map(|(k, _)| k.as_str())
        .collect()
}

/// Converts a grid into triples, with record IRIs `base` + id.
pub fn convert(bytes: &[u8], base: &str, ontology: &Ontology) -> Result<Vec<Triple>, String> {
    let records = parse_grid(bytes)?;
    let iri = |id: &str| -> NamedNode {
        let local: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        term::iri(format!("{base}{local}"))
    };
    let id_of = |r: &Record| match r.get("id") {
        Some(HValue::Ref { id, .. }) => Some(id.clone()),
        Some(HValue::Str(s)) => Some(s.trim_start_matches('@').to_owned()),
        _ => None,
    };

    // First pass: each record's class, so refs can look at their target's class.
    let mut classes: HashMap<String, String> = HashMap::new();
    for r in &records {
        if let (Some(id), Some(inf)) = (id_of(r), ontology.infer_class(markers(r))) {
            classes.insert(id, inf.class);
        }
    }
    let is = |id: &str, local: &str| {
        classes
            .get(id)
            .is_some_and(|c| ontology.is_a(c, &vocab::brick(local)))
    };

    let mut out = Vec::new();
    for (row, r) in records.iter().enumerate() {
        let id = id_of(r).ok_or_else(|| format!("row {row} has no id"))?;
        let node = iri(&id);
        if let Some(class) = classes.get(&id) {
            out.push(Triple::new(
                node.clone(),
                term::iri(RDF_TYPE),
                term::iri(class),
            ));
        }
        let label = match (r.get("dis"), r.get("navName"), r.get("id")) {
            (Some(HValue::Str(d)), _, _) => Some(d.clone()),
            (_, Some(HValue::Str(n)), _) => Some(n.clone()),
            (_, _, Some(HValue::Ref { dis: Some(d), .. })) => Some(d.clone()),
            _ => None,
        };
        if let Some(label) = label {
            out.push(Triple::new(
                node.clone(),
                term::iri(RDFS_LABEL),
                term::string(label),
            ));
        }
        out.push(Triple::new(
            node.clone(),
            term::iri(vocab::dq("haystackId")),
            term::string(&id),
        ));
        for marker in markers(r) {
            out.push(match ontology.marker_iri(marker) {
                Some(m) => Triple::new(
                    node.clone(),
                    term::iri(vocab::dq("hasHaystackTag")),
                    term::iri(m),
                ),
                None => Triple::new(
                    node.clone(),
                    term::iri(vocab::dq("rawHaystackTag")),
                    term::string(marker),
                ),
            });
        }
        if let Some(HValue::Str(unit)) | Some(HValue::Number(_, Some(unit))) = r.get("unit") {
            out.push(Triple::new(
                node.clone(),
                term::iri(vocab::dq("unitSymbol")),
                term::string(unit),
            ));
        }
        let self_is_point = is(&id, "Point");
        let self_is_location = is(&id, "Location");
        for (tag, value) in r {
            let HValue::Ref { id: target, .. } = value else {
                continue;
            };
            if tag == "id" {
                continue;
            }
            let t = iri(target);
            if tag == "equipRef" {
                if self_is_point {
                    out.push(Triple::new(
                        t,
                        term::iri(vocab::brick("hasPoint")),
                        node.clone(),
                    ));
                } else if is(&id, "Terminal_Unit") && is(target, "AHU") {
                    out.push(Triple::new(
                        t,
                        term::iri(vocab::brick("feeds")),
                        node.clone(),
                    ));
                } else {
                    out.push(Triple::new(
                        node.clone(),
                        term::iri(vocab::brick("isPartOf")),
                        t,
                    ));
                }
            } else if FEED_REFS.contains(&tag.as_str()) {
                out.push(Triple::new(
                    t,
                    term::iri(vocab::brick("feeds")),
                    node.clone(),
                ));
            } else if LOCATION_REFS.contains(&tag.as_str()) {
                let p = if self_is_location {
                    "isPartOf"
                } else {
                    "hasLocation"
                };
                out.push(Triple::new(node.clone(), term::iri(vocab::brick(p)), t));
            } else {
                out.push(Triple::new(
                    node.clone(),
                    term::iri(vocab::dq("haystackRef")),
                    t,
                ));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_encodings_normalise_to_the_same_values() {
        assert_eq!(parse_value(&json!("m:")), HValue::Marker);
        assert_eq!(parse_value(&json!({"_kind": "marker"})), HValue::Marker);
        assert_eq!(
            parse_value(&json!("r:p:demo:r:1 Carytown")),
            HValue::Ref {
                id: "p:demo:r:1".into(),
                dis: Some("Carytown".into())
            }
        );
        assert_eq!(
            parse_value(&json!({"_kind": "ref", "val": "@c-1", "dis": "AHU"})),
            HValue::Ref {
                id: "c-1".into(),
                dis: Some("AHU".into())
            }
        );
        assert_eq!(
            parse_value(&json!("n:72.5 °F")),
            HValue::Number(72.5, Some("°F".into()))
        );
        assert_eq!(parse_value(&json!("s:m:x")), HValue::Str("m:x".into()));
        assert_eq!(parse_value(&json!("plain")), HValue::Str("plain".into()));
    }

    #[test]
    fn grid_errors_are_clear() {
        assert!(parse_grid(b"[1,2]").unwrap_err().contains("rows"));
        assert!(parse_grid(b"{").unwrap_err().contains("JSON"));
    }
}
