//! RDF terms: the `oxrdf` model (the one Oxigraph itself is built on),
//! short helpers to build and read its terms, and the result collectors the
//! embedded and the remote store share.
//!
//! The store trait speaks `oxrdf`: what a parser yields goes to the store
//! as it is, and what a query yields comes back as it is, with no
//! conversion on either side.

use super::{QueryOutput, Solution, StoreError, StoreResult};
use chrono::{DateTime, Utc};
use oxigraph::sparql::QuerySolution;
use oxrdf::vocab::xsd;
use oxrdf::{TermRef, Variable};

pub use oxrdf::{BlankNode, Literal, NamedNode, NamedOrBlankNode, Term, Triple};

/// Reads a term without matching on it.
pub trait TermExt {
    /// The IRI, lexical form or blank node id: the value a person reads.
    fn value(&self) -> &str;
    /// The IRI, if the term is one.
    fn as_iri(&self) -> Option<&str>;
}

impl TermExt for Term {
    fn value(&self) -> &str {
        match self.as_ref() {
            TermRef::NamedNode(n) => n.as_str(),
            TermRef::BlankNode(b) => b.as_str(),
            TermRef::Literal(l) => l.value(),
            // RDF 1.2 triple terms (a feature DaemonIQ does not enable).
            #[allow(unreachable_patterns)]
            _ => "",
        }
    }

    fn as_iri(&self) -> Option<&str> {
        match self {
            Term::NamedNode(n) => Some(n.as_str()),
            _ => None,
        }
    }
}

/// A named node for an IRI DaemonIQ builds itself (vocabulary terms, IRIs
/// of sanitised ids, IRIs read back from the store). It is not re-checked;
/// IRIs from outside go through [`named_node`].
pub fn iri(iri: impl Into<String>) -> NamedNode {
    NamedNode::new_unchecked(iri)
}

/// A named node for an IRI from outside: `InvalidRdf` when it is not one.
pub fn named_node(iri: &str) -> StoreResult<NamedNode> {
    NamedNode::new(iri).map_err(|e| StoreError::InvalidRdf(format!("<{iri}>: {e}")))
}

/// A plain `xsd:string` literal.
pub fn string(value: impl Into<String>) -> Literal {
    Literal::new_simple_literal(value)
}

/// An `xsd:integer` literal.
pub fn integer(value: usize) -> Literal {
    Literal::new_typed_literal(value.to_string(), xsd::INTEGER)
}

/// An `xsd:dateTime` literal, in whole seconds.
pub fn date_time(at: DateTime<Utc>) -> Literal {
    Literal::new_typed_literal(
        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        xsd::DATE_TIME,
    )
}

/// Escapes a string for use inside a SPARQL/Turtle double-quoted literal.
pub fn escape_literal(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// Checks that `iri` can be written as `<iri>` in SPARQL without injection.
pub fn is_safe_iri(iri: &str) -> bool {
    !iri.is_empty()
        && iri.contains(':')
        && !iri.chars().any(|c| {
            c.is_whitespace() || matches!(c, '<' | '>' | '"' | '{' | '}' | '|' | '^' | '`' | '\\')
        })
}

/// Solutions, at most `max` rows; `truncated` when more were left.
pub(crate) fn collect_solutions<E>(
    variables: &[Variable],
    solutions: impl Iterator<Item = Result<QuerySolution, E>>,
    max: usize,
    error: impl Fn(E) -> StoreError,
) -> StoreResult<QueryOutput> {
    let mut rows = Vec::new();
    let mut truncated = false;
    for solution in solutions {
        let solution = solution.map_err(&error)?;
        if rows.len() == max {
            truncated = true;
            break;
        }
        let mut row = Solution::with_capacity(solution.len());
        for (var, term) in solution.iter() {
            row.insert(var.as_str().to_owned(), term.clone());
        }
        rows.push(row);
    }
    Ok(QueryOutput::Solutions {
        variables: variables.iter().map(|v| v.as_str().to_owned()).collect(),
        rows,
        truncated,
    })
}

/// Triples, at most `max`; `truncated` when more were left.
pub(crate) fn collect_triples<T: Into<Triple>, E>(
    triples: impl Iterator<Item = Result<T, E>>,
    max: usize,
    error: impl Fn(E) -> StoreError,
) -> StoreResult<QueryOutput> {
    let mut out = Vec::new();
    let mut truncated = false;
    for triple in triples {
        let triple = triple.map_err(&error)?.into();
        if out.len() == max {
            truncated = true;
            break;
        }
        out.push(triple);
    }
    Ok(QueryOutput::Graph {
        triples: out,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_display_escapes() {
        let t = Term::from(string("a \"b\"\n"));
        assert_eq!(t.to_string(), "\"a \\\"b\\\"\\n\"");
        let t = Term::from(integer(1));
        assert!(
            t.to_string()
                .ends_with("^^<http://www.w3.org/2001/XMLSchema#integer>")
        );
    }

    #[test]
    fn values_read_every_kind_of_term() {
        assert_eq!(Term::from(iri("urn:a")).value(), "urn:a");
        assert_eq!(Term::from(iri("urn:a")).as_iri(), Some("urn:a"));
        assert_eq!(Term::from(string("x")).value(), "x");
        assert_eq!(Term::from(string("x")).as_iri(), None);
        let b = BlankNode::new_unchecked("b1");
        assert_eq!(Term::from(b).value(), "b1");
    }

    #[test]
    fn outside_iris_are_checked() {
        assert!(named_node("https://example.com/a#b").is_ok());
        assert!(matches!(
            named_node("not an iri"),
            Err(StoreError::InvalidRdf(_))
        ));
    }

    #[test]
    fn safe_iri_rejects_injection() {
        assert!(is_safe_iri("https://example.com/a#b"));
        assert!(!is_safe_iri("x> } ; DROP ALL"));
        assert!(!is_safe_iri("no-scheme"));
    }
}
