//! The lexical side of document search: BM25 over the same chunks as the
//! vectors, stored as a sparse vector on the same point.
//!
//! Both backends keep it under the sparse vector name [`SPARSE_NAME`] with
//! Qdrant's IDF modifier, so the engine weighs each term by how rare it is
//! in the collection at query time, and the document side carries only the
//! saturated term frequency (k1, b and the expected chunk length below).
//! The text is tokenised by Qdrant's own BM25 pipeline (word tokenizer,
//! lower case, English stop words and Snowball stemmer), the same on the
//! embedded and the server backend, so both score a question alike.
//!
//! One point holds the chunk's dense vector, its payload and its lexical
//! vector: an upsert writes all three or none, and deleting a document
//! deletes them together. There is no second index to drift.

use std::sync::OnceLock;

use qdrant_edge::SparseVector;
use qdrant_edge::bm25_embed::{EdgeBm25, EdgeBm25Config};

use super::ChunkPayload;

/// Name of the sparse (BM25) vector on every point.
pub const SPARSE_NAME: &str = "bm25";

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// Expected chunk length in terms after stop words: a 256-token chunk holds
/// about 180 words, of which about 120 are not stop words.
const AVG_LEN: f64 = 120.0;

/// A sparse vector: term ids and their weights, ids unique.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sparse {
    /// Term ids (hashes of the stemmed terms).
    pub indices: Vec<u32>,
    /// Weights, one per id.
    pub values: Vec<f32>,
}

impl Sparse {
    /// True when no term survived tokenising (stop words only, symbols).
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

fn model() -> &'static EdgeBm25 {
    static MODEL: OnceLock<EdgeBm25> = OnceLock::new();
    MODEL.get_or_init(|| {
        // The configuration is constant and valid (English, positive
        // parameters); it goes through qdrant's own JSON shape.
        let config: EdgeBm25Config =
            serde_json::from_value(serde_json::json!({ "k": K1, "b": B, "avg_len": AVG_LEN }))
                .unwrap_or_else(|e| unreachable!("BM25 configuration: {e}"));
        EdgeBm25::new(config).unwrap_or_else(|e| unreachable!("BM25 configuration: {e}"))
    })
}

/// The text of a chunk the lexical index reads: its heading path (a mode or
/// step name is often only there) and its text.
pub fn document_text(payload: &ChunkPayload) -> String {
    if payload.section_title.is_empty() {
        payload.node_content.clone()
    } else {
        format!("{}\n{}", payload.section_title, payload.node_content)
    }
}

/// The lexical vector of a chunk.
pub fn document(payload: &ChunkPayload) -> Sparse {
    model().embed_document(&document_text(payload)).into()
}

/// The lexical vector of a query (each term once, weight 1; the engine
/// applies the IDF).
pub fn query(text: &str) -> Sparse {
    model().embed_query(text).into()
}

impl From<SparseVector> for Sparse {
    fn from(v: SparseVector) -> Self {
        Self {
            indices: v.indices,
            values: v.values,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_stemmed_and_stop_words_dropped() {
        let a = query("the supply fans are running");
        let b = query("supply fan run");
        let mut x = a.indices.clone();
        let mut y = b.indices.clone();
        x.sort_unstable();
        y.sort_unstable();
        assert_eq!(x, y);
        assert!(query("the and of").is_empty());
    }

    #[test]
    fn abbreviations_and_numbers_are_terms() {
        let sat = query("SAT");
        assert_eq!(sat.indices.len(), 1);
        assert_ne!(query("SAT").indices, query("DAT").indices);
        // A number is a term of its own: "8.3" is found in "8.3 °C".
        let doc = model().embed_document("Reset the setpoint to 8.3 °C at Level 2.");
        for term in query("8.3 level 2").indices {
            assert!(doc.indices.contains(&term), "term {term} missing");
        }
    }

    #[test]
    fn headings_count_as_chunk_text() {
        let mut p = super::super::contract::payload("s", 0);
        p.section_title = "Warm-up Mode".into();
        p.node_content = "The supply air temperature setpoint is 90 °F.".into();
        let d = document(&p);
        for term in query("warm-up").indices {
            assert!(d.indices.contains(&term));
        }
        assert_eq!(d.indices.len(), d.values.len());
    }
}
