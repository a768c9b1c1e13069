//! Query shapes that a time limit cannot stop, refused before they run.
//!
//! Oxigraph checks its cancellation token when it reads quads from the
//! store. Once both sides of a cartesian product are in memory, an
//! aggregate, `ORDER BY` or `DISTINCT` over the product enumerates every
//! combination without reading a quad, and a `*` / `+` closure over a
//! negated property set (`(p|!p)*`) walks every edge of the graph from
//! every node. Measured on the demo campus (debug build, 2 s limit), each
//! of these answered 503 after 4 s and then kept a core busy for as long as
//! it was watched. This module finds those shapes in the query's algebra
//! (`spargebra`) so `/sparql` can refuse them with a reason a person can
//! act on, instead of letting them burn a core after their 503.
//!
//! Streaming products (no aggregate or sort above them) are not refused:
//! they stop at `--max-rows` or at the time limit like any other query.

use spargebra::algebra::{GraphPattern, PropertyPathExpression};
use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern};
use spargebra::{Query, SparqlParser};
use std::collections::BTreeSet;

const PRODUCT: &str = "the query aggregates, sorts or de-duplicates a cartesian product of \
     patterns that share no variable; the time limit cannot stop that. Join the patterns \
     through a shared variable, or bound the product with LIMIT in a subquery";

const CLOSURE: &str = "the query follows a `*` or `+` path over a negated property set \
     (`!p`) with both ends unbound, i.e. every edge of the graph from every node; the time \
     limit cannot stop that. Bind one end of the path or name the properties";

/// Why a query is refused before it runs (a shape the time limit cannot
/// stop), or `None`. A query that does not parse is left to the store,
/// which reports the syntax error.
pub fn runaway(query: &str) -> Option<&'static str> {
    let parsed = SparqlParser::new().parse_query(query).ok()?;
    let pattern = match &parsed {
        Query::Select { pattern, .. }
        | Query::Construct { pattern, .. }
        | Query::Describe { pattern, .. }
        | Query::Ask { pattern, .. } => pattern,
    };
    walk(pattern, false)
}

/// Looks for a refused shape in `p`; `blocking` says an aggregate, sort or
/// de-duplication above it consumes every solution before the first one
/// is returned.
fn walk(p: &GraphPattern, blocking: bool) -> Option<&'static str> {
    match p {
        GraphPattern::Bgp { patterns } => (blocking && components(patterns) > 1).then_some(PRODUCT),
        GraphPattern::Path {
            subject,
            path,
            object,
        } => {
            (open(subject) && open(object) && closure_over_negation(path, false)).then_some(CLOSURE)
        }
        GraphPattern::Join { left, right } | GraphPattern::LeftJoin { left, right, .. } => {
            if blocking && product(left, right) {
                return Some(PRODUCT);
            }
            walk(left, blocking).or_else(|| walk(right, blocking))
        }
        GraphPattern::Union { left, right } | GraphPattern::Minus { left, right } => {
            walk(left, blocking).or_else(|| walk(right, blocking))
        }
        GraphPattern::Filter { inner, .. }
        | GraphPattern::Extend { inner, .. }
        | GraphPattern::Graph { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Service { inner, .. } => walk(inner, blocking),
        // A LIMIT stops a product below it; a sort below the LIMIT is
        // blocking again (and says so itself).
        GraphPattern::Slice { inner, .. } => walk(inner, false),
        GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Group { inner, .. } => walk(inner, true),
        _ => None,
    }
}

/// Whether a term of a path pattern is unbound (a variable or blank node).
fn open(t: &TermPattern) -> bool {
    matches!(t, TermPattern::Variable(_) | TermPattern::BlankNode(_))
}

/// Whether a path has a `*` or `+` closure over a negated property set.
fn closure_over_negation(p: &PropertyPathExpression, in_closure: bool) -> bool {
    match p {
        PropertyPathExpression::NamedNode(_) => false,
        PropertyPathExpression::NegatedPropertySet(_) => in_closure,
        PropertyPathExpression::ZeroOrMore(inner) | PropertyPathExpression::OneOrMore(inner) => {
            closure_over_negation(inner, true)
        }
        PropertyPathExpression::Reverse(inner) | PropertyPathExpression::ZeroOrOne(inner) => {
            closure_over_negation(inner, in_closure)
        }
        PropertyPathExpression::Sequence(a, b) | PropertyPathExpression::Alternative(a, b) => {
            closure_over_negation(a, in_closure) || closure_over_negation(b, in_closure)
        }
    }
}

/// The names a term pattern binds (variables and blank nodes).
fn term_names(t: &TermPattern, out: &mut BTreeSet<String>) {
    match t {
        TermPattern::Variable(v) => {
            out.insert(format!("?{}", v.as_str()));
        }
        TermPattern::BlankNode(b) => {
            out.insert(format!("_:{}", b.as_str()));
        }
        _ => {}
    }
}

fn triple_names(t: &TriplePattern) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    term_names(&t.subject, &mut out);
    if let NamedNodePattern::Variable(v) = &t.predicate {
        out.insert(format!("?{}", v.as_str()));
    }
    term_names(&t.object, &mut out);
    out
}

/// How many groups of patterns joined by shared names a basic graph
/// pattern has (patterns without names, which match at most once, aside).
fn components(patterns: &[TriplePattern]) -> usize {
    let mut groups: Vec<BTreeSet<String>> = Vec::new();
    for names in patterns.iter().map(triple_names).filter(|n| !n.is_empty()) {
        let (joined, apart): (Vec<_>, Vec<_>) =
            groups.into_iter().partition(|g| !g.is_disjoint(&names));
        let merged = joined.into_iter().fold(names, |mut acc, g| {
            acc.extend(g);
            acc
        });
        groups = apart;
        groups.push(merged);
    }
    groups.len()
}

/// The names a pattern binds, or `None` when it holds a form this walk
/// does not read (then it is taken to join with anything).
fn names(p: &GraphPattern) -> Option<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    match p {
        GraphPattern::Bgp { patterns } => {
            for t in patterns {
                out.extend(triple_names(t));
            }
        }
        GraphPattern::Path {
            subject, object, ..
        } => {
            term_names(subject, &mut out);
            term_names(object, &mut out);
        }
        GraphPattern::Join { left, right }
        | GraphPattern::LeftJoin { left, right, .. }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => {
            out.extend(names(left)?);
            out.extend(names(right)?);
        }
        GraphPattern::Filter { inner, .. }
        | GraphPattern::Graph { inner, .. }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Service { inner, .. } => out.extend(names(inner)?),
        GraphPattern::Extend {
            inner, variable, ..
        } => {
            out.extend(names(inner)?);
            out.insert(format!("?{}", variable.as_str()));
        }
        GraphPattern::Project { variables, .. } => {
            out.extend(variables.iter().map(|v| format!("?{}", v.as_str())));
        }
        GraphPattern::Group {
            variables,
            aggregates,
            ..
        } => {
            out.extend(variables.iter().map(|v| format!("?{}", v.as_str())));
            out.extend(aggregates.iter().map(|(v, _)| format!("?{}", v.as_str())));
        }
        // Inline data is small by construction: joining it is no product
        // to fear.
        _ => return None,
    }
    Some(out)
}

/// Whether joining `left` and `right` is a cartesian product: both bind
/// names and they share none.
fn product(left: &GraphPattern, right: &GraphPattern) -> bool {
    match (names(left), names(right)) {
        (Some(l), Some(r)) => !l.is_empty() && !r.is_empty() && l.is_disjoint(&r),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_the_token_cannot_stop_are_refused() {
        for q in [
            "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
            "SELECT ?a ?d WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f LIMIT 1",
            "SELECT DISTINCT ?a ?d WHERE { ?a ?b ?c . OPTIONAL { ?d ?e ?f } }",
            "SELECT (COUNT(*) AS ?n) WHERE { { ?a ?b ?c } { ?d ?e ?f } }",
        ] {
            assert_eq!(runaway(q), Some(PRODUCT), "{q}");
        }
        for q in [
            "SELECT (COUNT(*) AS ?n) WHERE { ?a (<urn:p>|!<urn:p>)* ?b }",
            "SELECT * WHERE { ?a !<urn:p>+ ?b }",
            "SELECT * WHERE { [] (^!<urn:p>)* ?b }",
        ] {
            assert_eq!(runaway(q), Some(CLOSURE), "{q}");
        }
    }

    #[test]
    fn ordinary_queries_run() {
        for q in [
            // Connected patterns, whatever their size.
            "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?c ?d ?e . ?e ?f ?g }",
            // A streaming product stops at --max-rows or the time limit.
            "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }",
            // A LIMIT in a subquery bounds the product below the count.
            "SELECT (COUNT(*) AS ?n) WHERE { { SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } LIMIT 10 } }",
            // A product with inline data or a ground pattern.
            "SELECT (COUNT(*) AS ?n) WHERE { VALUES ?x { 1 2 } ?a ?b ?c }",
            "SELECT (COUNT(*) AS ?n) WHERE { <urn:a> <urn:b> <urn:c> . ?a ?b ?c }",
            // Closures over named properties, or with one end bound.
            "SELECT * WHERE { ?a <https://brickschema.org/schema/Brick#feeds>+ ?b }",
            "SELECT * WHERE { <urn:x> !<urn:p>* ?b }",
            "ASK { ?s ?p ?o }",
            "not sparql at all",
        ] {
            assert_eq!(runaway(q), None, "{q}");
        }
    }
}
