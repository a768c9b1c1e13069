//! Identity and graph form of an ingested document.
//!
//! A document is known by its `source_id`, derived from its relative path
//! (`source_ref`), so a changed file at the same path replaces the same
//! document. Its `dq:Document` and `dq:Chunk` nodes live in the document's
//! own named graph, `urn:daemoniq:doc:<source_id>`; writing that graph is the
//! commit point of an ingest (see [`super::pipeline`]).

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::store::term::{date_time, integer, iri, string};
use crate::store::{NamedNode, Triple};
use crate::vector::ChunkPayload;
use crate::vocab::{self, dq};

/// Prefix of the named graph of a document.
pub const DOC_GRAPH_PREFIX: &str = "urn:daemoniq:doc:";

/// Prefix of document node IRIs.
pub const DOC_IRI_PREFIX: &str = "https://daemoniq.io/doc/";

/// Namespace of the UUIDv5 point ids.
const POINT_NAMESPACE: Uuid = Uuid::from_u128(0x6d1f_2c3a_9b5e_4f07_8a61_d4e2_c0b9_7a35);

/// The stable id of the document at relative path `source_ref`: the first
/// 16 hex digits of sha256 of the path.
pub fn source_id(source_ref: &str) -> String {
    hex::encode(Sha256::digest(source_ref.as_bytes()))[..16].to_owned()
}

/// Named graph of a document.
pub fn doc_graph(source_id: &str) -> String {
    format!("{DOC_GRAPH_PREFIX}{source_id}")
}

/// The `source_id` of a document graph IRI, if it is one.
pub fn source_id_of_graph(graph: &str) -> Option<&str> {
    graph.strip_prefix(DOC_GRAPH_PREFIX)
}

/// IRI of the `dq:Document` node.
pub fn doc_iri(source_id: &str) -> String {
    format!("{DOC_IRI_PREFIX}{source_id}")
}

/// IRI of a `dq:Chunk` node.
pub fn chunk_iri(source_id: &str, chunk_index: usize) -> String {
    format!("{DOC_IRI_PREFIX}{source_id}/chunk/{chunk_index}")
}

/// Deterministic point id of one chunk of one version of a document, as
/// one cut made it ([`crate::ingest::IngestSettings::cut`]). The sha and
/// the cut are part of it, so the points of a new version, or of the same
/// file cut anew, never overwrite the committed version's points before
/// the new one is committed. The empty cut (a document recorded before
/// cuts were) keeps the ids it had.
pub fn point_id(source_id: &str, source_sha: &str, cut: &str, chunk_index: usize) -> Uuid {
    let key = if cut.is_empty() {
        format!("{source_id}:{source_sha}:{chunk_index}")
    } else {
        format!("{source_id}:{source_sha}:{cut}:{chunk_index}")
    };
    Uuid::new_v5(&POINT_NAMESPACE, key.as_bytes())
}

/// What is known about a document as a whole.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DocumentMeta {
    /// Stable id.
    pub source_id: String,
    /// Relative path.
    pub source_ref: String,
    /// sha256 of the bytes.
    pub source_sha: String,
    /// When the file last changed.
    pub updated_at: DateTime<Utc>,
    /// Title.
    pub title: String,
    /// Subject domain.
    pub domain: String,
    /// Kind of document or format.
    pub source_type: String,
    /// Version as given at ingest.
    pub doc_version: String,
}

/// The triples of a document's named graph: the document node and one node
/// per indexed chunk, each with the provenance every instance carries.
pub fn graph_triples(meta: &DocumentMeta, chunks: &[(ChunkPayload, Uuid)]) -> Vec<Triple> {
    let doc = iri(doc_iri(&meta.source_id));
    let sha = string(&meta.source_sha);
    let path = string(&meta.source_ref);
    let at = date_time(meta.updated_at);
    let provenance = |s: &NamedNode, out: &mut Vec<Triple>| {
        out.push(Triple::new(s.clone(), iri(dq("sourceSha")), sha.clone()));
        out.push(Triple::new(s.clone(), iri(dq("sourcePath")), path.clone()));
        out.push(Triple::new(s.clone(), iri(dq("updatedAt")), at.clone()));
    };
    let mut out = vec![
        Triple::new(doc.clone(), iri(vocab::RDF_TYPE), iri(dq("Document"))),
        Triple::new(doc.clone(), iri(dq("sourceId")), string(&meta.source_id)),
        Triple::new(doc.clone(), iri(dq("title")), string(&meta.title)),
        Triple::new(doc.clone(), iri(dq("domain")), string(&meta.domain)),
        Triple::new(
            doc.clone(),
            iri(dq("sourceType")),
            string(&meta.source_type),
        ),
        Triple::new(
            doc.clone(),
            iri(dq("docVersion")),
            string(&meta.doc_version),
        ),
        Triple::new(doc.clone(), iri(dq("chunkCount")), integer(chunks.len())),
    ];
    provenance(&doc, &mut out);
    for (payload, id) in chunks {
        let c = iri(chunk_iri(&meta.source_id, payload.chunk_index));
        out.push(Triple::new(
            c.clone(),
            iri(vocab::RDF_TYPE),
            iri(dq("Chunk")),
        ));
        out.push(Triple::new(c.clone(), iri(dq("partOf")), doc.clone()));
        out.push(Triple::new(
            c.clone(),
            iri(dq("chunkIndex")),
            integer(payload.chunk_index),
        ));
        out.push(Triple::new(
            c.clone(),
            iri(dq("pageLabel")),
            string(&payload.page_label),
        ));
        out.push(Triple::new(
            c.clone(),
            iri(dq("sectionTitle")),
            string(&payload.section_title),
        ));
        out.push(Triple::new(
            c.clone(),
            iri(dq("pointId")),
            string(id.to_string()),
        ));
        for target in &payload.graph_ids {
            out.push(Triple::new(
                c.clone(),
                iri(dq("mentions")),
                iri(target.clone()),
            ));
        }
        provenance(&c, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_versioned() {
        let id = source_id("golden/corpus/a.md");
        assert_eq!(id.len(), 16);
        assert_eq!(id, source_id("golden/corpus/a.md"));
        assert_ne!(id, source_id("golden/corpus/b.md"));
        let cut = "r1-t256-o32";
        assert_eq!(point_id(&id, "aa", cut, 0), point_id(&id, "aa", cut, 0));
        assert_ne!(point_id(&id, "aa", cut, 0), point_id(&id, "bb", cut, 0));
        assert_ne!(point_id(&id, "aa", cut, 0), point_id(&id, "aa", cut, 1));
        // The same file cut otherwise: other points.
        assert_ne!(
            point_id(&id, "aa", cut, 0),
            point_id(&id, "aa", "r2-t256-o32", 0)
        );
        assert_ne!(point_id(&id, "aa", "", 0), point_id(&id, "aa", cut, 0));
        assert_eq!(source_id_of_graph(&doc_graph(&id)), Some(id.as_str()));
    }
}
