//! A retrieved chunk with a fuller sentence than the selection's: one
//! that writes every word of the question the selection's best sentence
//! writes, and more. The fused ranking weighs a chunk's vector with its
//! words; a short paragraph with the question's rarest word ("the outside
//! air temperature is above the chiller lockout of 50 °F") can stand
//! eleventh behind a dozen chunks about the same plant, the best of which
//! says "chiller" and "temperature" but not "lockout".

use super::retrieve::Scored;
use super::synthesize::{Focus, matched_terms};
use crate::text::{camel_spaced, quotable};

/// What [`fuller`] found: the chunk, and how many of the question's terms
/// its best sentence and the selection's best sentence write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fuller {
    /// Index of the chunk in the ranked hits.
    pub index: usize,
    /// Focus terms its fullest sentence writes, with its heading path.
    pub terms: usize,
    /// Focus terms the selection's fullest sentence writes.
    pub selected: usize,
}

/// The best-ranked of the chunks after the `selected` best of `hits`
/// whose sentence, read under its heading path as the picker reads it,
/// writes every focus term that one of the selection's fullest sentences
/// writes, and at least one more (the most terms first, then the rank).
/// A chunk that writes other words of the question than the selection,
/// not more of them, is not read: it would trade one part of the question
/// for another. Nor is one when no selected sentence holds the share of
/// the question's terms an answer needs (`floor`, the coverage floor): the
/// chunk replaces a worse answer, it does not make one where the selection
/// has none — a sentence sought for holding the question's words would
/// otherwise clear the coverage floor because it was sought for it (a
/// question about a DOAS that no page covers was answered with another
/// unit's supply-air reset).
pub fn fuller(hits: &[Scored], selected: usize, focus: Focus<'_>, floor: f32) -> Option<Fuller> {
    if focus.terms.len() < 2 || selected == 0 || selected >= hits.len() {
        return None;
    }
    let fullest: Vec<Vec<String>> = hits[..selected]
        .iter()
        .flat_map(|s| sentences(s, focus, &heading(s, focus)))
        .collect();
    let most = fullest.iter().map(Vec::len).max().unwrap_or(0);
    if (most as f32) < floor * focus.terms.len() as f32 {
        return None;
    }
    // More than `most`, and half as many again.
    let needed = (most + 1).max((3 * most).div_ceil(2));
    if needed > focus.terms.len() {
        return None;
    }
    let best: Vec<&Vec<String>> = fullest.iter().filter(|t| t.len() == most).collect();
    let enough =
        |t: &Vec<String>| t.len() >= needed && best.iter().any(|b| b.iter().all(|w| t.contains(w)));
    hits.iter()
        .enumerate()
        .skip(selected)
        .filter_map(|(i, s)| {
            let heading = heading(s, focus);
            // A chunk whose whole text does not write enough has no
            // sentence that does: it is not split into sentences.
            if !enough(&with(
                matched_terms(focus, &s.hit.payload.node_content),
                &heading,
            )) {
                return None;
            }
            sentences(s, focus, &heading)
                .into_iter()
                .filter(enough)
                .map(|t| t.len())
                .max()
                .map(|n| (i, n))
        })
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(index, terms)| Fuller {
            index,
            terms,
            selected: most,
        })
}

/// The focus terms a chunk's heading path writes.
fn heading(s: &Scored, focus: Focus<'_>) -> Vec<String> {
    matched_terms(focus, &camel_spaced(&s.hit.payload.section_title))
}

/// The focus terms each sentence of a chunk writes, those of its heading
/// path (`heading`) with them.
fn sentences(s: &Scored, focus: Focus<'_>, heading: &[String]) -> Vec<Vec<String>> {
    quotable(&s.hit.payload.node_content)
        .iter()
        .map(|sentence| with(matched_terms(focus, sentence), heading))
        .collect()
}

/// `terms` with those of `more` they lack.
fn with(mut terms: Vec<String>, more: &[String]) -> Vec<String> {
    for t in more {
        if !terms.contains(t) {
            terms.push(t.clone());
        }
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::stem;
    use crate::vector::{ChunkPayload, Hit};

    /// A hit with `text` under `heading`.
    fn hit(heading: &str, text: &str) -> Scored {
        Scored {
            hit: Hit {
                id: uuid::Uuid::new_v4(),
                score: 0.5,
                payload: ChunkPayload {
                    source_id: "s".into(),
                    source_ref: "plant.md".into(),
                    page_label: "1".into(),
                    node_content: text.into(),
                    equip: vec![],
                    brick_equip: vec![],
                    ptags: vec![],
                    raw: vec![],
                    gconf: 0.9,
                    graph_ids: vec![],
                    source_sha: "x".into(),
                    chunk_index: 0,
                    section_title: heading.into(),
                    updated_at: String::new(),
                    embedding_model: String::new(),
                    domain: String::new(),
                    source_type: String::new(),
                    doc_version: String::new(),
                },
            },
            bm25: None,
            fused: 0.5,
            reranked: 0.5,
            boosts: vec![],
        }
    }

    fn focus(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| stem(w)).collect()
    }

    #[test]
    fn a_sentence_with_the_question_and_more_joins_the_selection() {
        // "what is the chiller lockout temperature": the staging paragraph
        // (chiller, temperature) is selected; the enable paragraph writes
        // all three in one sentence, and the safety chunk only "lockout".
        let terms = focus(&["chiller", "lockout", "temperature"]);
        let hits = vec![
            hit(
                "Plant > 4. Chiller staging",
                "Stage up when the chiller supply temperature is 2 °F above its setpoint.",
            ),
            hit(
                "Plant > 11. Safety",
                "Lockout and tagout. Lock out the disconnect before work.",
            ),
            hit(
                "Plant > 3. Plant enable",
                "The plant runs when the outside air temperature is above the chiller lockout of 50 °F.",
            ),
        ];
        assert_eq!(
            fuller(&hits, 2, Focus::plain(&terms), 0.6),
            Some(Fuller {
                index: 2,
                terms: 3,
                selected: 2
            })
        );
        // Selected already: nothing joins.
        assert_eq!(fuller(&hits, 3, Focus::plain(&terms), 0.6), None);
        // A selection that holds too little of the question to answer
        // (one term of three, below a floor of 60 %) is not completed.
        assert_eq!(fuller(&hits[1..], 1, Focus::plain(&terms), 0.6), None);
    }

    #[test]
    fn other_words_or_one_more_among_many_do_not_join() {
        // A chunk that writes other words of the question than the
        // selection's fullest sentence trades one part of it for another.
        let terms = focus(&["boiler", "lockout", "temperature", "stage"]);
        let hits = vec![
            hit("Plant", "The boiler temperature reset runs at stage 1."),
            hit("Plant", "The lockout of the boiler holds in summer."),
        ];
        assert_eq!(fuller(&hits, 1, Focus::plain(&terms), 0.0), None);
        // One more of many words is what a neighbouring passage on the
        // same topic writes: four of the question's words against three
        // is not half as many again.
        let terms = focus(&["zone", "occupancy", "sensor", "setpoint", "room", "empty"]);
        let hits = vec![
            hit("Zones", "The zone occupancy sensor resets the setpoint."),
            hit(
                "Zones",
                "When the room with an occupancy sensor is empty, the zone minimum is zero.",
            ),
        ];
        assert_eq!(fuller(&hits, 1, Focus::plain(&terms), 0.0), None);
        // Half as many again does.
        let hits = vec![
            hit("Zones", "The zone setpoint holds."),
            hit(
                "Zones",
                "When the zone is empty, the occupancy sensor relaxes the setpoint.",
            ),
        ];
        assert_eq!(
            fuller(&hits, 1, Focus::plain(&terms), 0.0).map(|f| f.index),
            Some(1)
        );
    }
}
