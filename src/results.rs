//! Serialising query results in the SPARQL protocol's formats.

use crate::store::{QueryOutput, StoreError};
use oxigraph::io::{RdfFormat, RdfSerializer};
use oxigraph::model::Variable;
use oxigraph::sparql::results::{QueryResultsFormat, QueryResultsSerializer};
use strum::VariantArray;

/// A response format of the SPARQL endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::VariantArray)]
pub enum ResultFormat {
    /// `application/sparql-results+json`.
    Json,
    /// `application/sparql-results+xml`.
    Xml,
    /// `text/csv`.
    Csv,
    /// `text/tab-separated-values`.
    Tsv,
    /// `text/turtle`.
    Turtle,
    /// `application/n-triples`.
    NTriples,
}

impl ResultFormat {
    /// Formats for SELECT and ASK, default first.
    pub const SOLUTIONS: [Self; 4] = [Self::Json, Self::Xml, Self::Csv, Self::Tsv];
    /// Formats for CONSTRUCT and DESCRIBE, default first.
    pub const GRAPHS: [Self; 2] = [Self::Turtle, Self::NTriples];

    /// The media type.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Json => "application/sparql-results+json",
            Self::Xml => "application/sparql-results+xml",
            Self::Csv => "text/csv",
            Self::Tsv => "text/tab-separated-values",
            Self::Turtle => "text/turtle",
            Self::NTriples => "application/n-triples",
        }
    }

    /// Other media types clients send for the same format.
    fn aliases(self) -> &'static [&'static str] {
        match self {
            Self::Json => &["application/json"],
            Self::Xml => &["application/xml", "text/xml"],
            Self::Csv | Self::Tsv => &[],
            Self::Turtle => &["application/x-turtle"],
            Self::NTriples => &["text/plain"],
        }
    }

    /// Parses a short name (`json`, `xml`, `csv`, `tsv`, `ttl`, `nt`) or a media type.
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.trim().to_ascii_lowercase();
        Self::VARIANTS.iter().copied().find(|f| {
            f.media_type() == name
                || f.aliases().contains(&name.as_str())
                || f.short_name() == name
                || (name == "turtle" && *f == Self::Turtle)
        })
    }

    /// Short name.
    pub fn short_name(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Xml => "xml",
            Self::Csv => "csv",
            Self::Tsv => "tsv",
            Self::Turtle => "ttl",
            Self::NTriples => "nt",
        }
    }

    fn matches(self, media: &str) -> bool {
        self.media_type() == media || self.aliases().contains(&media)
    }
}

/// Picks the best format among `offered` for an `Accept` header (RFC 9110:
/// each format takes the q-value of the most specific range that matches it;
/// ties go to the server's order). `None` when nothing offered is acceptable.
pub fn negotiate(accept: Option<&str>, offered: &[ResultFormat]) -> Option<ResultFormat> {
    let accept = match accept.map(str::trim) {
        None | Some("") => return offered.first().copied(),
        Some(a) => a,
    };
    let ranges: Vec<(String, f32)> = accept
        .split(',')
        .map(|part| {
            let mut params = part.split(';');
            let media = params
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase();
            let q = params
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            (media, q)
        })
        .collect();
    let quality = |f: ResultFormat| -> f32 {
        let mut best: Option<(u8, f32)> = None;
        for (media, q) in &ranges {
            let specificity = if f.matches(media) {
                3
            } else if media
                .strip_suffix("/*")
                .is_some_and(|major| f.media_type().starts_with(&format!("{major}/")))
            {
                2
            } else if media == "*/*" {
                1
            } else {
                continue;
            };
            if best.is_none_or(|(s, _)| specificity > s) {
                best = Some((specificity, *q));
            }
        }
        best.map_or(0.0, |(_, q)| q)
    };
    let mut chosen: Option<(f32, ResultFormat)> = None;
    for f in offered {
        let q = quality(*f);
        if q > 0.0 && chosen.is_none_or(|(bq, _)| q > bq) {
            chosen = Some((q, *f));
        }
    }
    chosen.map(|(_, f)| f)
}

fn io(e: impl std::fmt::Display) -> StoreError {
    StoreError::Evaluation(format!("serialising results failed: {e}"))
}

/// Serialises a result in `format`, which must suit the result's kind.
pub fn serialize(output: &QueryOutput, format: ResultFormat) -> Result<Vec<u8>, StoreError> {
    let results_format = match format {
        ResultFormat::Json => Some(QueryResultsFormat::Json),
        ResultFormat::Xml => Some(QueryResultsFormat::Xml),
        ResultFormat::Csv => Some(QueryResultsFormat::Csv),
        ResultFormat::Tsv => Some(QueryResultsFormat::Tsv),
        ResultFormat::Turtle | ResultFormat::NTriples => None,
    };
    match (output, results_format) {
        (QueryOutput::Boolean(b), Some(f)) => QueryResultsSerializer::from_format(f)
            .serialize_boolean_to_writer(Vec::new(), *b)
            .map_err(io),
        (
            QueryOutput::Solutions {
                variables, rows, ..
            },
            Some(f),
        ) => {
            let vars: Vec<Variable> = variables
                .iter()
                .map(|v| Variable::new(v).map_err(io))
                .collect::<Result<_, _>>()?;
            let mut ser = QueryResultsSerializer::from_format(f)
                .serialize_solutions_to_writer(Vec::new(), vars.clone())
                .map_err(io)?;
            for row in rows {
                let bound = vars
                    .iter()
                    .filter_map(|v| row.get(v.as_str()).map(|t| (v.as_ref(), t.as_ref())));
                ser.serialize(bound).map_err(io)?;
            }
            ser.finish().map_err(io)
        }
        (QueryOutput::Graph { triples, .. }, None) => {
            let rdf = if format == ResultFormat::Turtle {
                RdfFormat::Turtle
            } else {
                RdfFormat::NTriples
            };
            let mut ser = RdfSerializer::from_format(rdf).for_writer(Vec::new());
            for t in triples {
                ser.serialize_triple(t).map_err(io)?;
            }
            ser.finish().map_err(io)
        }
        _ => Err(StoreError::Evaluation(format!(
            "{} cannot carry this kind of result",
            format.media_type()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ResultFormat::*;

    #[test]
    fn negotiation_honours_q_values_and_defaults() {
        assert_eq!(negotiate(None, &ResultFormat::SOLUTIONS), Some(Json));
        assert_eq!(
            negotiate(Some("text/csv"), &ResultFormat::SOLUTIONS),
            Some(Csv)
        );
        assert_eq!(
            negotiate(
                Some("text/csv;q=0.5, application/sparql-results+xml"),
                &ResultFormat::SOLUTIONS
            ),
            Some(Xml)
        );
        assert_eq!(negotiate(Some("*/*"), &ResultFormat::GRAPHS), Some(Turtle));
        assert_eq!(
            negotiate(Some("text/*, text/csv;q=0.1"), &ResultFormat::SOLUTIONS),
            Some(Tsv)
        );
        assert_eq!(negotiate(Some("image/png"), &ResultFormat::SOLUTIONS), None);
        assert_eq!(
            negotiate(Some("application/n-triples"), &ResultFormat::GRAPHS),
            Some(NTriples)
        );
    }

    #[test]
    fn boolean_serialises_in_every_results_format() {
        for f in ResultFormat::SOLUTIONS {
            let bytes = serialize(&QueryOutput::Boolean(true), f).unwrap();
            assert!(!bytes.is_empty());
        }
        assert!(serialize(&QueryOutput::Boolean(true), Turtle).is_err());
    }
}
