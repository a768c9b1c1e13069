//! When the pipeline abstains, in one place: every rule that turns a
//! question or a drafted answer into an abstention, its refusal type and
//! the `limitations` / `next_step` the engineer reads.

use super::RefusalType;
use super::question::Question;
use crate::config::AnswerConfig;

/// Why the pipeline abstains.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// The question names equipment or model numbers the graph does not have.
    UnknownNames(Vec<String>),
    /// The question asks for a live value.
    LiveValue,
    /// No graph fact answers and nothing was retrieved.
    NothingRetrieved,
    /// The best chunk scores below the relevance floor.
    BelowRelevance {
        /// The best chunk's similarity.
        best: f32,
        /// The floor.
        floor: f32,
    },
    /// The quoted passages hold too few of the question's terms.
    LowCoverage {
        /// Share of the terms held.
        coverage: f32,
        /// The terms.
        terms: Vec<String>,
        /// The share needed.
        floor: f32,
    },
    /// Every passage found is about other equipment than the kinds the
    /// question names (their words, as asked).
    OtherEquipment(Vec<String>),
    /// The quoted passage does not name the kinds of point or equipment
    /// the question asks about by name (their words, as asked).
    KindNotQuoted(Vec<String>),
    /// The quoted passage is dated records of other dates or about other
    /// equipment than the dates and nodes the question names (as asked).
    OtherRecord(Vec<String>),
    /// The quoted passage does not hold a word the question says more than
    /// once (its topic, stemmed).
    TopicNotQuoted(Vec<String>),
    /// The question names documents ("per G36", "the service log") and
    /// the passage found is neither from one of them nor says their name
    /// (the question's words for them).
    OtherDocument(Vec<String>),
    /// The question asks for a number ("at what", "trigger") and the
    /// quoted passage states none: it describes, it does not answer.
    NoNumber,
    /// 1 − mean cosine distance of the chunks used is below the floor.
    LowConfidence {
        /// The confidence.
        confidence: f32,
        /// The floor.
        floor: f32,
    },
    /// Selected-text mode: the selection does not hold the answer.
    SelectionMissing {
        /// Share of the question's terms the selection holds.
        coverage: f32,
        /// The terms.
        terms: Vec<String>,
    },
    /// Selected-text mode: the selection names nothing in the graph.
    SelectionUnlinked,
    /// Selected-text mode: the selection cannot be traced to a source.
    SelectionUntraced,
    /// The drafted answer failed its check.
    CheckFailed(String),
    /// The check could not reach the store.
    CheckUnavailable,
    /// The passage the documents would answer with relates a named node
    /// to equipment the building graph does not relate it to (the notes
    /// of the conflicts found): graph truth wins over the quote.
    Contradicted(Vec<String>),
    /// A graph question this building's data cannot answer.
    Unsupported {
        /// What the question asks, as understood.
        understood: String,
        /// What the data lacks.
        why: String,
    },
}

impl Reason {
    /// The refusal type.
    pub fn refusal_type(&self) -> RefusalType {
        match self {
            Self::NothingRetrieved => RefusalType::EmptyRetrieval,
            Self::BelowRelevance { .. } => RefusalType::LowRelevance,
            Self::SelectionMissing { .. } => RefusalType::SelectedTextMissing,
            Self::UnknownNames(_)
            | Self::LiveValue
            | Self::LowCoverage { .. }
            | Self::OtherEquipment(_)
            | Self::KindNotQuoted(_)
            | Self::OtherRecord(_)
            | Self::TopicNotQuoted(_)
            | Self::OtherDocument(_)
            | Self::LowConfidence { .. }
            | Self::NoNumber
            | Self::SelectionUnlinked
            | Self::SelectionUntraced
            | Self::CheckFailed(_)
            | Self::CheckUnavailable
            | Self::Contradicted(_)
            | Self::Unsupported { .. } => RefusalType::InsufficientGrounding,
        }
    }

    /// What the abstention's `limitations` say.
    pub fn limitations(&self) -> String {
        match self {
            Self::UnknownNames(names) => format!(
                "The question names {}, which the building graph does not have.",
                names.join(", ")
            ),
            Self::LiveValue => "The question asks for a live value; DaemonIQ holds the equipment model and documents, not telemetry.".to_owned(),
            Self::NothingRetrieved => {
                "No indexed document and no graph fact matches the question.".to_owned()
            }
            Self::BelowRelevance { best, floor } => format!(
                "The best document match scores {best:.2}, below the relevance floor {floor:.2}, and no graph fact answers the question."
            ),
            Self::LowCoverage {
                coverage,
                terms,
                floor,
            } => format!(
                "The retrieved documents hold {:.0}% of the question's terms ({}), below the {:.0}% needed to answer from them.",
                coverage * 100.0,
                terms.join(", "),
                floor * 100.0
            ),
            Self::OtherEquipment(asked) => format!(
                "The passages found are about other equipment; none of them is about the {} the question asks about.",
                asked.join(", ")
            ),
            Self::LowConfidence { confidence, floor } => format!(
                "Confidence {confidence:.2} (1 - mean cosine distance of the chunks used) is below {floor:.2}."
            ),
            Self::NoNumber => "The question asks for a number (a time, a limit, a threshold); the best passage found states none, so it does not answer it.".to_owned(),
            Self::KindNotQuoted(kinds) => format!(
                "The best passage found does not name the {} the question asks about, so it does not answer it.",
                kinds.join(", ")
            ),
            Self::TopicNotQuoted(topics) => format!(
                "The question comes back to {} more than once; the best passage found does not say it, so it answers something else.",
                topics.join(", ")
            ),
            Self::OtherRecord(missing) => format!(
                "The passage found is dated records that do not name {}, which the question asks about: another day's or another unit's entry does not answer it.",
                missing.join(", ")
            ),
            Self::OtherDocument(named) => format!(
                "The question asks what the {} documents say; the best passage found is from another document and does not say it.",
                named.join(", ")
            ),
            Self::SelectionMissing { coverage, terms } => format!(
                "The selected text holds {:.0}% of the question's terms ({}); it does not contain the answer.",
                coverage * 100.0,
                terms.join(", ")
            ),
            Self::SelectionUnlinked => "The selected text names nothing in the building graph or the ontology, so the answer cannot be linked to graph evidence.".to_owned(),
            Self::SelectionUntraced => {
                "The selected text cannot be traced to a loaded source.".to_owned()
            }
            Self::CheckFailed(failure) => {
                format!("The drafted answer failed its evidence check ({failure}).")
            }
            Self::CheckUnavailable => {
                "The evidence could not be checked against the store.".to_owned()
            }
            Self::Contradicted(notes) => format!(
                "The passage found says what the building graph does not, so it is not quoted as the answer. {}",
                notes.join(" ")
            ),
            Self::Unsupported { understood, why } => format!(
                "Understood the question as asking for {understood}, but {why}, so the graph cannot answer it."
            ),
        }
    }

    /// What the engineer can do next.
    pub fn next_step(&self) -> &'static str {
        match self {
            Self::UnknownNames(_) => {
                "Check the equipment tag; GET /api/topology/node?id=… lists what the graph holds."
            }
            Self::LiveValue => "Read the point's present value from the BAS front end.",
            Self::NothingRetrieved => {
                "Ask about equipment, points or documents DaemonIQ holds, or ingest the document that answers it."
            }
            Self::BelowRelevance { .. } | Self::LowConfidence { .. } => {
                "Rephrase the question with the equipment or document it is about."
            }
            Self::OtherEquipment(_) => {
                "Ingest the sequence or manual for that equipment, or name the unit (its tag) in the question."
            }
            Self::OtherDocument(_) => {
                "Ingest the document that covers it, or ask without naming the document to search all sources."
            }
            Self::LowCoverage { .. }
            | Self::KindNotQuoted(_)
            | Self::TopicNotQuoted(_)
            | Self::OtherRecord(_)
            | Self::NoNumber => {
                "Check the equipment's submittals or the BAS directly; DaemonIQ has no source for this."
            }
            Self::SelectionMissing { .. } => {
                "Ask without a selection to search all sources, or select the passage that holds the answer."
            }
            Self::SelectionUnlinked => {
                "Select a passage that names the equipment or product it is about."
            }
            Self::SelectionUntraced => "Select text from a document DaemonIQ has ingested.",
            Self::CheckFailed(_) => "Report this question; the trace shows what was drafted.",
            Self::CheckUnavailable => "Try again shortly.",
            Self::Contradicted(_) => {
                "Ask the graph directly (\"what feeds …\") or check the document against the model: GET /api/topology/upstream?id=…"
            }
            Self::Unsupported { .. } => {
                "Check what the model records with GET /api/topology/node?id=… or a SPARQL query; the relation may be modelled under another name."
            }
        }
    }
}

/// Abstentions decided by the question alone: equipment the graph does
/// not have, or a live value.
pub fn of_question(q: &Question) -> Option<Reason> {
    if !q.grounding.unresolved.is_empty() {
        Some(Reason::UnknownNames(q.grounding.unresolved.clone()))
    } else if q.reading.telemetry {
        Some(Reason::LiveValue)
    } else {
        None
    }
}

/// What a document answer is measured on.
#[derive(Debug, Clone, Default)]
pub struct DocumentMeasures {
    /// Chunks retrieved.
    pub retrieved: usize,
    /// The best similarity (before the rerank) of a chunk retrieved or a
    /// passage quoted from one.
    pub best: f32,
    /// Share of the question's terms the quoted passages hold.
    pub coverage: f32,
    /// 1 − mean cosine distance of what the answer uses.
    pub confidence: f32,
    /// The kinds the question names that the quoted passages and their
    /// headings do not (their words, as asked).
    pub kinds_missing: Vec<String>,
    /// The dates and named nodes the question asks about that the quoted
    /// dated records do not name.
    pub records_missing: Vec<String>,
    /// The focus terms the question says more than once that the quoted
    /// passages and their headings do not hold.
    pub topics_missing: Vec<String>,
    /// The question's words for documents ("per g36") that the quoted
    /// passages' documents are not and the passages do not say.
    pub documents_missing: Vec<String>,
    /// The question asks for a number ("at what", "trigger") and no
    /// quoted sentence states a quantity.
    pub number_missing: bool,
}

/// Abstentions of a document answer, checked in order: nothing retrieved,
/// not relevant, documents the question names not quoted, a kind the
/// question names not named, too few of the question's terms, too little
/// confidence, no number where the question asks for one.
pub fn of_documents(cfg: &AnswerConfig, q: &Question, m: &DocumentMeasures) -> Option<Reason> {
    if m.retrieved == 0 {
        Some(Reason::NothingRetrieved)
    } else if m.best < cfg.min_relevance {
        Some(Reason::BelowRelevance {
            best: m.best,
            floor: cfg.min_relevance,
        })
    } else if !m.documents_missing.is_empty() {
        Some(Reason::OtherDocument(m.documents_missing.clone()))
    } else if !m.kinds_missing.is_empty() {
        Some(Reason::KindNotQuoted(m.kinds_missing.clone()))
    } else if !m.records_missing.is_empty() {
        Some(Reason::OtherRecord(m.records_missing.clone()))
    } else if !m.topics_missing.is_empty() {
        Some(Reason::TopicNotQuoted(m.topics_missing.clone()))
    } else if m.coverage < cfg.min_coverage {
        Some(Reason::LowCoverage {
            coverage: m.coverage,
            terms: q.reading.focus.clone(),
            floor: cfg.min_coverage,
        })
    } else if m.confidence < cfg.min_confidence {
        Some(Reason::LowConfidence {
            confidence: m.confidence,
            floor: cfg.min_confidence,
        })
    } else if m.number_missing {
        Some(Reason::NoNumber)
    } else {
        None
    }
}

/// Whether a selection holds the answer: enough of the question's terms,
/// and at least one quoted sentence that holds any.
pub fn of_selection(
    cfg: &AnswerConfig,
    q: &Question,
    coverage: f32,
    matched: bool,
) -> Option<Reason> {
    (coverage < cfg.min_coverage || !matched).then(|| Reason::SelectionMissing {
        coverage,
        terms: q.reading.focus.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_rules_apply_in_order() {
        let cfg = AnswerConfig::default();
        let q = Question {
            text: String::new(),
            embedded: String::new(),
            lower: String::new(),
            words: Vec::new(),
            grounding: Default::default(),
            reading: Default::default(),
            named: Vec::new(),
            classes: Vec::new(),
            labels: Vec::new(),
            about: Vec::new(),
            equivalents: Vec::new(),
            units: Vec::new(),
            units_asked: Vec::new(),
            kinds: Vec::new(),
            tag_kinds: Vec::new(),
            owners: Vec::new(),
            broader: Vec::new(),
            restated: Vec::new(),
        };
        let ok = DocumentMeasures {
            retrieved: 3,
            best: 0.7,
            coverage: 0.8,
            confidence: 0.7,
            kinds_missing: Vec::new(),
            records_missing: Vec::new(),
            topics_missing: Vec::new(),
            documents_missing: Vec::new(),
            number_missing: false,
        };
        assert_eq!(of_documents(&cfg, &q, &ok), None);
        // A question for a number, a passage that states none: abstain,
        // however much of the question it holds.
        let wordy = DocumentMeasures {
            coverage: 1.0,
            number_missing: true,
            ..ok.clone()
        };
        assert_eq!(of_documents(&cfg, &q, &wordy), Some(Reason::NoNumber));
        // One thing the question names that the passage does not hold —
        // documents it names ("per g36"), a kind, dated records of
        // another month or unit, a word it comes back to: abstain with
        // that reason, however much of the rest the passage holds.
        let g36 = vec!["g36".to_string()];
        let kind = vec!["humidity setpoint".to_string()];
        let month = vec!["2025-03".to_string()];
        let holiday = vec!["holiday".to_string()];
        for (measures, reason) in [
            (
                DocumentMeasures {
                    documents_missing: g36.clone(),
                    ..ok.clone()
                },
                Reason::OtherDocument(g36),
            ),
            (
                DocumentMeasures {
                    kinds_missing: kind.clone(),
                    ..ok.clone()
                },
                Reason::KindNotQuoted(kind),
            ),
            (
                DocumentMeasures {
                    records_missing: month.clone(),
                    ..ok.clone()
                },
                Reason::OtherRecord(month),
            ),
            (
                DocumentMeasures {
                    topics_missing: holiday.clone(),
                    ..ok.clone()
                },
                Reason::TopicNotQuoted(holiday),
            ),
        ] {
            let measures = DocumentMeasures {
                coverage: 1.0,
                ..measures
            };
            assert_eq!(of_documents(&cfg, &q, &measures), Some(reason));
        }
        let none = DocumentMeasures {
            retrieved: 0,
            ..ok.clone()
        };
        assert_eq!(
            of_documents(&cfg, &q, &none),
            Some(Reason::NothingRetrieved)
        );
        let far = DocumentMeasures {
            best: 0.3,
            coverage: 0.0,
            ..ok.clone()
        };
        assert!(matches!(
            of_documents(&cfg, &q, &far),
            Some(Reason::BelowRelevance { .. })
        ));
        let thin = DocumentMeasures {
            coverage: 0.5,
            confidence: 0.1,
            ..ok.clone()
        };
        assert!(matches!(
            of_documents(&cfg, &q, &thin),
            Some(Reason::LowCoverage { .. })
        ));
        let unsure = DocumentMeasures {
            confidence: 0.4,
            number_missing: true,
            ..ok
        };
        assert_eq!(
            of_documents(&cfg, &q, &unsure).map(|r| r.refusal_type()),
            Some(RefusalType::InsufficientGrounding)
        );
        assert_eq!(
            of_selection(&cfg, &q, 1.0, false).map(|r| r.refusal_type()),
            Some(RefusalType::SelectedTextMissing)
        );
    }
}
