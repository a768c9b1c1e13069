//! Ingest: documents become chunks that fit the embedding model.
//!
//! - [`extract`] turns the bytes of a PDF, HTML, Markdown or plain-text file
//!   into pages of typed blocks ([`Extracted`]); bad input is an
//!   [`ExtractError`] naming the file and what to do.
//! - [`chunk()`] packs those blocks into [`Chunk`]s that follow headings and
//!   paragraphs, never span two pages, carry their heading path and page
//!   label, and never exceed the model window as counted by the model's own
//!   tokenizer ([`TokenCounter`]): long text is split at sentences, then
//!   words, and never truncated.
//!
//! - [`pipeline`] grounds and links each chunk to graph nodes, embeds it,
//!   checks it for duplicates and writes vector points and `dq:Document` /
//!   `dq:Chunk` graph nodes in a crash-safe order ([`Ingestor`]).
//! - [`report`] holds `index_metadata.json` / `index_errors.json`.

pub mod chunk;
pub mod document;
pub mod extract;
pub mod pipeline;
pub mod report;
pub mod service;

pub use chunk::{Chunk, ChunkError, ChunkOptions, TokenCounter, chunk};
pub use extract::{Block, BlockKind, ExtractError, Extracted, Page, extract};
pub use pipeline::{
    DocOptions, DocumentInfo, INGEST_REVISION, IngestError, IngestSettings, Ingestor, Input,
    Reconciled,
};
pub use report::{DocReport, DocStatus, RunReport};
pub use service::{DocService, OpenError, PathError};
