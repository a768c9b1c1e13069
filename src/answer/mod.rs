//! Graph-first answers: the query pipeline behind `POST /chat`,
//! `POST /retrieve`, `daemoniq ask` and `daemoniq eval`.
//!
//! [`pipeline`] reads as the steps of docs/ARCHITECTURE.md § Query, one
//! module per stage: [`request`] (limits), [`question`] (the question read
//! once: grounding and [`intent`]), [`gather`] (graph [`facts`], then
//! [`retrieve`]), [`compose`] (graph, documents or selected text, with
//! [`conflict`] and [`synthesize`]), [`contract`] (the schema and the
//! citation check) and [`refusal`] (every rule for abstaining). Nothing
//! here knows about HTTP: handlers call [`chat`] and [`retrieve`] and turn
//! [`RequestError`] and [`Fault`] into statuses.

pub mod audit;
pub mod compose;
pub mod conflict;
pub mod contract;
pub mod facts;
pub mod fuller;
pub mod gather;
pub mod intent;
mod pipeline;
pub mod query;
pub mod question;
pub mod refusal;
pub mod request;
pub mod respell;
pub mod retrieve;
pub mod synthesize;
pub mod view;

use crate::embed::EmbedError;
use crate::ground::Grounding;
use crate::store::StoreError;
use crate::vector::{MatchAny, VectorError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use contract::{Answer, ContractChecker, EvidenceItem};
pub use pipeline::{RetrieveResponse, RetrievedChunk, chat, retrieve};

/// A request outside the limits (`query` 1–500 characters, …): the client's
/// to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct RequestError {
    /// The request field at fault.
    pub field: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

/// A stage failed in a way the client must see: the answer cannot be
/// trusted, so the envelope carries the error instead.
#[derive(Debug, thiserror::Error)]
pub enum Fault {
    /// The vector index cannot be reached.
    #[error("vector index: {0}")]
    Index(#[from] VectorError),
    /// The embedding model failed.
    #[error("embedding: {0}")]
    Embed(#[from] EmbedError),
    /// The graph store failed.
    #[error("graph store: {0}")]
    Store(#[from] StoreError),
}

/// Why `/retrieve` failed.
#[derive(Debug, thiserror::Error)]
pub enum RetrieveError {
    /// The request is outside the limits.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// A stage failed.
    #[error(transparent)]
    Fault(#[from] Fault),
}

/// Milliseconds since `since`, to the microsecond.
pub(crate) fn ms(since: std::time::Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// A question, as `/chat` and `/retrieve` take it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatRequest {
    /// The question: 1–500 characters after trimming.
    #[schema(min_length = 1, example = "What feeds VAV-1-01?")]
    pub query: String,
    /// Highlighted text (10–5000 characters): answer only from it.
    #[serde(default)]
    #[schema(min_length = 10)]
    pub selected_text: Option<String>,
    /// Chunks to retrieve, 1–20 (default 5; at most 10 reach synthesis).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 20, example = 5)]
    pub top_k: Option<usize>,
    /// A UUID the client uses to group requests.
    #[serde(default)]
    #[schema(format = "uuid")]
    pub session_id: Option<String>,
    /// The request's id as the transport gave it (`x-request-id`), used in
    /// the envelope, the audit log and the log lines; never read from the
    /// body. A new UUID when absent.
    #[serde(skip)]
    pub request_id: Option<String>,
}

/// `success`, `refused` or `error`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Status {
    /// An answer with evidence.
    Success,
    /// An abstention: `answer` is the "unknown" contract, `refusal` says why.
    Refused,
    /// The server failed; `error` says how.
    Error,
}

/// Why the pipeline abstained.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum RefusalType {
    /// Nothing was retrieved and no graph fact answers.
    EmptyRetrieval,
    /// The best chunk scored below the relevance floor and no graph fact answers.
    LowRelevance,
    /// Too little grounding: low confidence, or the question names
    /// equipment the graph does not have, or the answer failed its check.
    InsufficientGrounding,
    /// Selected-text mode: the text does not contain the answer.
    SelectedTextMissing,
}

impl Status {
    /// As in the envelope.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl RefusalType {
    /// As in the envelope.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The standard message of each refusal type (docs/ARCHITECTURE.md § Refusals).
    pub fn message(self) -> &'static str {
        match self {
            Self::SelectedTextMissing => "The selected text does not contain this information",
            Self::EmptyRetrieval | Self::LowRelevance | Self::InsufficientGrounding => {
                "The provided sources do not contain sufficient information to answer this question"
            }
        }
    }
}

/// An abstention's reason.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Refusal {
    /// The standard message of the type.
    pub reason: String,
    /// The type.
    pub refusal_type: RefusalType,
}

/// Execution metadata of a `/chat` response.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Metadata {
    /// A UUID per request (also in the audit log).
    pub request_id: String,
    /// Wall time of the pipeline.
    pub processing_time_ms: u64,
    /// Chunks retrieved from the vector index (before the top-k cut).
    pub chunks_retrieved: usize,
    /// The session id the client sent, if any.
    pub session_id: Option<String>,
}

/// The `/chat` response: `answer` is always a valid contract (the "unknown"
/// abstention when refused), `refusal` is set exactly when refused, `error`
/// exactly when the status is `error`.
#[derive(Debug, Serialize)]
pub struct ChatResponse {
    /// What happened.
    pub status: Status,
    /// The answer contract (null only on error).
    pub answer: Option<Answer>,
    /// Why it abstained.
    pub refusal: Option<Refusal>,
    /// What failed (the HTTP layer turns it into the error body).
    #[serde(skip)]
    pub error: Option<Fault>,
    /// Request id, timing, counts.
    pub metadata: Metadata,
    /// Why this answer: grounding, graph queries and facts, retrieval
    /// decisions, chunk scores, what was used.
    pub trace: Trace,
}

/// A graph fact the answer may rest on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Fact {
    /// The sentence a person reads ("VAV-2-14 is fed by AHU-2.").
    pub text: String,
    /// Graph nodes the fact is about (subject first).
    pub graph_ids: Vec<String>,
    /// The file the fact came from (relative path).
    pub file_path: String,
    /// sha256 of that file.
    pub source_sha: String,
    /// When that file last changed (RFC 3339).
    pub updated_at: String,
    /// It only says that nothing was found ("No chiller is upstream of
    /// …"): it does not answer on its own.
    pub negative: bool,
}

/// One chunk as the trace shows it (never its text).
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TracedChunk {
    /// Vector point id.
    pub id: String,
    /// Document id.
    pub source_id: String,
    /// Document path, relative.
    pub source_ref: String,
    /// Page label (PDF) or "1".
    pub page_label: String,
    /// Position in the document.
    pub chunk_index: usize,
    /// Heading path.
    pub section_title: String,
    /// Cosine similarity to the question.
    pub score: f32,
    /// BM25 score, when the lexical search found it.
    pub bm25: Option<f32>,
    /// Reciprocal rank fusion of the vector and BM25 rankings (1 = first
    /// in both).
    pub fused: f32,
    /// Fused score after the boosts.
    pub reranked: f32,
    /// The boosts applied (`equip`, `brick_equip`, `ptags`, `graph_ids`).
    pub boosts: Vec<String>,
    /// Whether it reached synthesis (top k after reranking).
    pub selected: bool,
    /// Whether the answer quotes it.
    pub used: bool,
}

/// The measures a document answer is held to (seed rules: relevance,
/// coverage, confidence floors), with the question's terms the quoted
/// passages hold and those they do not.
#[derive(Debug, Clone, Default, Serialize, utoipa::ToSchema)]
pub struct Answerability {
    /// The best similarity to the question of a chunk retrieved or a
    /// passage quoted from one (a sentence, or the passage with its
    /// heading): what the relevance floor is measured on.
    pub best: f32,
    /// Share of the question's focus terms the passages hold.
    pub coverage: f32,
    /// 1 − mean cosine distance of what the answer uses.
    pub confidence: f32,
    /// Focus terms the quoted passages (and their headings) hold.
    pub held: Vec<String>,
    /// Focus terms they do not.
    pub missing: Vec<String>,
    /// Focus terms that name the quoted passages' document (a word of its
    /// path: "g36" of `docs/g36/…`): not measured, unless they are all the
    /// question says.
    pub document: Vec<String>,
}

/// The retrieval decision.
#[derive(Debug, Clone, Default, Serialize, utoipa::ToSchema)]
pub struct RetrievalTrace {
    /// `filtered`, `vanilla`, `selected_text` or `none` (no vector index).
    pub mode: String,
    /// The filter applied, when filtered.
    pub filter: Option<MatchAny>,
    /// Each decision and fallback, in order, in words.
    pub decisions: Vec<String>,
}

/// The graph-first step.
#[derive(Debug, Clone, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GraphTrace {
    /// What the question asks, as detected (`upstream`, `points` …).
    pub intents: Vec<String>,
    /// The SPARQL queries run.
    pub queries: Vec<String>,
    /// The facts found.
    pub facts: Vec<Fact>,
    /// Graph ids the facts and grounding yielded (the filter's ids).
    pub graph_ids: Vec<String>,
    /// What a composed query asks, in words ([`query`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub understood: Option<String>,
    /// The question as the engine read it when shorthand was spelled out
    /// or a misspelt word corrected ([`respell`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_as: Option<String>,
    /// Words of a graph question the engine did not account for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
    /// The unread words said of a named node ("the condenser of ch-2"):
    /// an answer about the node alone would answer another question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread_said_of: Vec<String>,
    /// The result of a composed query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<GraphAnswer>,
}

/// The result of a composed graph query, as the trace shows it (eval scores
/// it against the expected result).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GraphAnswer {
    /// `set`, `count`, `boolean`, `grouped_count` or `value`.
    pub kind: String,
    /// Every result node (the groups, for counts per group).
    pub items: Vec<String>,
    /// The number of result nodes (lists and counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// Yes or no.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boolean: Option<bool>,
    /// Values (units).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    /// Counts per group.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupCount>,
}

/// One group of a count per group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct GroupCount {
    /// The group node.
    pub group: String,
    /// How many.
    pub count: u64,
}

/// Why this answer.
#[derive(Debug, Clone, Default, Serialize, utoipa::ToSchema)]
pub struct Trace {
    /// The grounding of the question.
    pub grounding: Option<Grounding>,
    /// Graph queries and facts.
    pub graph: GraphTrace,
    /// Filter or vanilla, with the reasons.
    pub retrieval: RetrievalTrace,
    /// Chunks with scores before and after reranking.
    pub chunks: Vec<TracedChunk>,
    /// Conflicts between documents and the graph, in words.
    pub conflicts: Vec<String>,
    /// Degradations (grounding failed, no vector index …).
    pub warnings: Vec<String>,
    /// What a document answer was measured on, when one was drafted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answerability: Option<Answerability>,
    /// Milliseconds per stage (`ground`, `graph`, `embed`, `search`, `rerank`,
    /// `synthesize`, `check`).
    pub stages_ms: BTreeMap<String, f64>,
}
