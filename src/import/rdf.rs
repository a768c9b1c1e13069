//! RDF files (Brick Turtle and friends) → triples.

use crate::store::Triple;
use oxigraph::io::{RdfFormat, RdfParser};

/// The RDF format for a file extension DaemonIQ imports as RDF.
pub fn format_for_extension(ext: &str) -> Option<RdfFormat> {
    match ext.to_ascii_lowercase().as_str() {
        "ttl" => Some(RdfFormat::Turtle),
        "nt" => Some(RdfFormat::NTriples),
        "nq" => Some(RdfFormat::NQuads),
        "trig" => Some(RdfFormat::TriG),
        "rdf" | "owl" => Some(RdfFormat::RdfXml),
        _ => None,
    }
}

/// Parses RDF bytes. Quads in named graphs are flattened: the file is the graph.
///
/// Blank nodes are renamed so that two files never share a blank node.
pub fn parse(bytes: &[u8], format: RdfFormat) -> Result<Vec<Triple>, String> {
    let mut out = Vec::new();
    for quad in RdfParser::from_format(format)
        .rename_blank_nodes()
        .for_slice(bytes)
    {
        out.push(Triple::from(quad.map_err(|e| e.to_string())?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_turtle_and_reports_position_of_errors() {
        let ok = parse(
            b"@prefix ex: <http://e/> . ex:a ex:b ex:c .",
            RdfFormat::Turtle,
        )
        .unwrap();
        assert_eq!(ok.len(), 1);
        let err = parse(b"@prefix ex: <http://e/> .\nex:a ex:b .", RdfFormat::Turtle).unwrap_err();
        assert!(err.contains('2'), "position expected in {err}");
    }
}
