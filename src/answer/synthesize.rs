//! The default synthesizer: deterministic and extractive. Graph facts are
//! already sentences; document evidence is the best-matching sentences of
//! the top chunks, scored by how many of the question's content words they
//! hold. Also finds documents that contradict a graph fact.

use super::intent::{stem, words};
use crate::ground::{EntityKind, Grounder};
use crate::topology::Topology;

/// A sentence picked from a text, with what it matched.
#[derive(Debug, Clone)]
pub struct Picked {
    /// Index of the chunk (or 0 for selected text).
    pub source: usize,
    /// The sentence.
    pub text: String,
    /// Focus terms it holds.
    pub matched: Vec<String>,
    /// Its score.
    pub score: f32,
}

/// Splits a text into sentences: lines first (headings, list items and
/// table rows stand alone), then sentence ends followed by a space.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line
            .trim()
            .trim_start_matches(['#', '-', '*', '>'])
            .replace('|', " | ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let line = line.trim_matches(|c: char| c == '|' || c.is_whitespace());
        if line.is_empty() {
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let mut start = 0;
        for i in 0..chars.len() {
            let end = matches!(chars[i], '.' | '?' | '!')
                && chars.get(i + 1).is_some_and(|c| c.is_whitespace())
                && chars
                    .get(i + 2)
                    .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
                && i >= start + 3;
            if end {
                out.push(
                    chars[start..=i]
                        .iter()
                        .collect::<String>()
                        .trim()
                        .to_owned(),
                );
                start = i + 1;
            }
        }
        let rest: String = chars[start..].iter().collect::<String>().trim().to_owned();
        if !rest.is_empty() {
            out.push(rest);
        }
    }
    out
}

/// Whether a sentence word matches a focus term: same stem, or one is a
/// prefix of the other ("temp"/"temperature", "max"/"maximum").
pub(crate) fn term_matches(term: &str, word: &str) -> bool {
    let w = stem(word);
    let dehyphen = word.replace('-', "");
    if dehyphen == term {
        return true;
    }
    if w == term || word == term {
        return true;
    }
    let numeric = w.chars().all(|c| c.is_ascii_digit());
    if numeric {
        return term.starts_with(&w) && term.len() <= w.len() + 1 && w.len() >= 2;
    }
    (term.len() >= 3 && w.starts_with(term)) || (w.len() >= 4 && term.starts_with(&w))
}

/// Focus terms a text holds.
pub fn matched_terms(focus: &[String], text: &str) -> Vec<String> {
    let mut ws = words(text);
    // "high-limit" holds "high" and "limit" too.
    let parts: Vec<String> = ws
        .iter()
        .filter(|w| w.contains('-'))
        .flat_map(|w| w.split('-').map(str::to_owned).collect::<Vec<_>>())
        .filter(|p| !p.is_empty())
        .collect();
    ws.extend(parts);
    focus
        .iter()
        .filter(|t| ws.iter().any(|w| term_matches(t, w)))
        .cloned()
        .collect()
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Picks the best sentences of `texts` (best text first): each sentence
/// scores one per focus term it holds, half for each named entity label it
/// mentions, plus its text's weight. Returns at most `max` sentences, the
/// later ones only when they add focus terms.
pub fn pick(
    focus: &[String],
    labels: &[String],
    texts: &[(usize, &str, f32)],
    max: usize,
) -> Vec<Picked> {
    let squashed: Vec<String> = labels
        .iter()
        .map(|l| squash(l))
        .filter(|l| l.len() > 2)
        .collect();
    let mut all: Vec<(Picked, usize)> = Vec::new();
    let mut by_source: Vec<Vec<String>> = Vec::new();
    for (source, text, weight) in texts {
        let list = sentences(text);
        for (k, s) in list.iter().enumerate() {
            let matched = matched_terms(focus, s);
            let sq = squash(s);
            let mentions = squashed.iter().filter(|l| sq.contains(l.as_str())).count();
            let score = matched.len() as f32 + 0.5 * mentions as f32 + weight;
            all.push((
                Picked {
                    source: *source,
                    text: s.clone(),
                    matched,
                    score,
                },
                k,
            ));
        }
        by_source.push(list);
    }
    all.sort_by(|a, b| b.0.score.total_cmp(&a.0.score));
    let mut out: Vec<Picked> = Vec::new();
    let mut first: Option<(usize, usize)> = None;
    let mut covered: Vec<String> = Vec::new();
    for (p, k) in all {
        if out.len() >= max {
            break;
        }
        let adds = p.matched.iter().any(|m| !covered.contains(m));
        if out.is_empty() || (adds && !p.matched.is_empty()) {
            if out.is_empty() {
                first = Some((p.source, k));
            }
            covered.extend(p.matched.iter().cloned());
            out.push(p);
        }
    }
    // The sentence after the best one often holds the cause, the value or
    // the consequence the best one announces: quote it too.
    if let Some((source, k)) = first
        && let Some(pos) = texts.iter().position(|(s, ..)| *s == source)
        && let Some(next) = by_source[pos].get(k + 1)
        && !out.iter().any(|p| p.text == *next)
    {
        out.insert(
            1,
            Picked {
                source,
                text: next.clone(),
                matched: matched_terms(focus, next),
                score: 0.0,
            },
        );
    }
    out
}

/// Fraction of focus terms held by the picked sentences (1.0 when the
/// question has none).
pub fn coverage(focus: &[String], picked: &[Picked]) -> f32 {
    if focus.is_empty() {
        return 1.0;
    }
    let held = focus
        .iter()
        .filter(|t| picked.iter().any(|p| p.matched.contains(t)))
        .count();
    held as f32 / focus.len() as f32
}

/// Words that state a feeds relation in prose.
const RELATION_WORDS: &[&str] = &[
    "serve", "serves", "served", "serving", "feed", "feeds", "fed", "feeding", "supplied",
    "supplies", "on",
];

/// A sentence of a document that states a feeds relation between `subject`
/// and equipment of the same kind as the graph's answer that the graph does
/// not relate to `subject` (`related` says which nodes it does): returns
/// that equipment's IRIs.
pub fn contradicting(
    grounder: &Grounder,
    topo: &Topology,
    subject: &str,
    answer: &[String],
    related: &dyn Fn(&str) -> bool,
    sentence: &str,
) -> Vec<String> {
    let ws = words(sentence);
    if !ws.iter().any(|w| RELATION_WORDS.contains(&w.as_str())) {
        return Vec::new();
    }
    let g = grounder.ground(sentence);
    let named: Vec<&str> = g
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Instance)
        .map(|e| e.iri.as_str())
        .collect();
    if !named.contains(&subject) {
        return Vec::new();
    }
    let answer_types: Vec<&String> = answer.iter().flat_map(|a| topo.types(a)).collect();
    named
        .into_iter()
        .filter(|z| *z != subject && !related(z))
        .filter(|z| topo.types(z).iter().any(|t| answer_types.contains(&t)))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn focus(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| stem(w)).collect()
    }

    #[test]
    fn sentences_split_lines_and_sentence_ends_but_not_numbers() {
        let s =
            sentences("# Heading\nFirmware 3.5.1 is approved. The YNX-520 runs 5.2.3.\n| a | b |");
        assert_eq!(
            s,
            [
                "Heading",
                "Firmware 3.5.1 is approved.",
                "The YNX-520 runs 5.2.3.",
                "a | b"
            ]
        );
    }

    #[test]
    fn terms_match_stems_and_prefixes() {
        assert!(term_matches("temp", "temperature"));
        assert!(term_matches("max", "maximum"));
        assert!(term_matches("restart", "restarts"));
        assert!(term_matches("sensor", "sensing"));
        assert!(term_matches("35f", "35"));
        assert!(!term_matches("co", "cold"));
        assert!(!term_matches("warranty", "war"));
    }

    #[test]
    fn pick_prefers_sentences_with_more_focus_terms() {
        let text = "VAV-2-14 is a reheat box. Its heating maximum is 175 cfm. Its cooling maximum is 350 cfm.";
        let f = focus(&["heating", "max", "cfm"]);
        let p = pick(&f, &[], &[(0, text, 0.0)], 2);
        assert_eq!(p[0].text, "Its heating maximum is 175 cfm.");
        assert!((coverage(&f, &p) - 1.0).abs() < 1e-6);
        let none = pick(&focus(&["tonnage", "chiller"]), &[], &[(0, text, 0.0)], 2);
        assert_eq!(coverage(&focus(&["tonnage", "chiller"]), &none), 0.0);
    }
}
