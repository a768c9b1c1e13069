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
//! Grounding, graph linking, embedding and indexing build on these.

pub mod chunk;
pub mod extract;

pub use chunk::{Chunk, ChunkError, ChunkOptions, TokenCounter, chunk};
pub use extract::{Block, BlockKind, ExtractError, Extracted, Page, extract};
