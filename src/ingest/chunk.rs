//! Chunking: extracted blocks → chunks that fit the embedding model's
//! window, measured with the model's own tokenizer.
//!
//! A heading or a new page starts a new chunk; blocks under one heading are
//! packed while they fit. A block longer than the window is split at
//! sentence boundaries, a sentence longer than the window at words, and a
//! word longer than the window (a pasted hash, say) at characters; nothing
//! is truncated. When a section needs several chunks, each next chunk
//! begins with the last whole sentences (or words) of the previous one, up
//! to the overlap budget. Overlap never crosses a page or a heading.

use super::extract::{BlockKind, Extracted};
use crate::assets::{Assets, MissingAsset};
use std::path::Path;

/// The tokenizer file inside the model directory.
pub const TOKENIZER_FILE: &str = "tokenizer.json";

/// Windows smaller than this cannot hold `[CLS]`, `[SEP]` and a few words;
/// [`chunk`] raises smaller `max_tokens` to it.
pub const MIN_MAX_TOKENS: usize = 8;

/// Why the token counter could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ChunkError {
    /// The tokenizer file is not in the asset cache.
    #[error(transparent)]
    Missing(#[from] MissingAsset),
    /// The tokenizer file is there but unusable.
    #[error(
        "cannot load the tokenizer {path}: {reason}; re-run `bash scripts/setup.sh` to restore \
         the pinned model files"
    )]
    Tokenizer {
        /// The file.
        path: std::path::PathBuf,
        /// The tokenizers crate's message.
        reason: String,
    },
}

/// Counts tokens exactly as the embedding model sees them: the model's own
/// `tokenizer.json`, with padding and truncation turned off, special tokens
/// (`[CLS]`, `[SEP]`) included.
pub struct TokenCounter {
    tokenizer: tokenizers::Tokenizer,
    specials: usize,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCounter")
            .field("specials", &self.specials)
            .finish_non_exhaustive()
    }
}

impl TokenCounter {
    /// The counter of the embedding model in the asset cache.
    pub fn from_assets(assets: &Assets) -> Result<Self, ChunkError> {
        Self::from_model_dir(&assets.model_dir())
    }

    /// The counter of the model whose files are in `dir`.
    pub fn from_model_dir(dir: &Path) -> Result<Self, ChunkError> {
        Self::from_file(&dir.join(TOKENIZER_FILE))
    }

    /// The counter for a `tokenizer.json` file.
    pub fn from_file(path: &Path) -> Result<Self, ChunkError> {
        if !path.is_file() {
            return Err(MissingAsset {
                what: "the embedding model's tokenizer (tokenizer.json)",
                path: path.to_owned(),
            }
            .into());
        }
        let fail = |reason: String| ChunkError::Tokenizer {
            path: path.to_owned(),
            reason,
        };
        let mut tokenizer =
            tokenizers::Tokenizer::from_file(path).map_err(|e| fail(e.to_string()))?;
        // The file pads and truncates to 128; counting needs true lengths.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| fail(e.to_string()))?;
        let specials = tokenizer
            .encode("", true)
            .map_err(|e| fail(e.to_string()))?
            .len();
        Ok(Self {
            tokenizer,
            specials,
        })
    }

    /// Tokens of `text` including the special tokens. Should the tokenizer
    /// ever fail, the count is a safe upper bound instead: WordPiece yields
    /// at most one token per non-space character.
    pub fn count(&self, text: &str) -> usize {
        match self.tokenizer.encode(text, true) {
            Ok(encoding) => encoding.len(),
            Err(_) => text.chars().filter(|c| !c.is_whitespace()).count() + self.specials,
        }
    }

    /// How many special tokens every text gets (2 for BERT: `[CLS]`, `[SEP]`).
    pub fn special_tokens(&self) -> usize {
        self.specials
    }

    /// Tokens of `text` without the special tokens.
    fn count_content(&self, text: &str) -> usize {
        self.count(text).saturating_sub(self.specials)
    }
}

/// How to cut chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkOptions {
    /// Most tokens in a chunk, special tokens included: the model window
    /// (256 for all-MiniLM-L6-v2). Values below [`MIN_MAX_TOKENS`] are
    /// raised to it.
    pub max_tokens: usize,
    /// About how many tokens of a chunk are repeated at the start of the
    /// next chunk of the same section; at most half of `max_tokens`.
    pub overlap_tokens: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        Self {
            max_tokens: 256,
            overlap_tokens: 32,
        }
    }
}

/// A piece of a document ready to embed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Chunk {
    /// The text; blocks are separated by newlines.
    pub text: String,
    /// The heading path, outermost first (`"Sequence of Operations >
    /// Supply fan"`), or the document title when no heading precedes it.
    pub section_title: String,
    /// The label of the page all of the text is on.
    pub page_label: String,
    /// Position in the document, from 0.
    pub chunk_index: usize,
    /// Tokens of `text` with the model tokenizer, special tokens included.
    pub token_count: usize,
}

/// A piece of text that is never split further, with its token count
/// (without special tokens).
#[derive(Debug, Clone)]
struct Unit {
    text: String,
    tokens: usize,
    /// Starts a new block (joined with a newline, else with a space).
    new_block: bool,
    heading: bool,
    /// For a row of a table whose first row is a header: the table's
    /// caption (a short line just before it, "When California Title
    /// 24-2016 is used.") if it has one, and that header row, repeated at
    /// the top of a chunk that begins inside the table, so that every row
    /// is read under the names of its columns and the table's title.
    header: Option<std::sync::Arc<Vec<Unit>>>,
}

/// Consecutive blocks under one heading path on one page.
struct Section {
    path: String,
    units: Vec<Unit>,
}

impl Section {
    fn has_body(&self) -> bool {
        self.units.iter().any(|u| !u.heading)
    }
}

/// Cuts `doc` into chunks of at most `opts.max_tokens` tokens as counted by
/// `counter`, in document order.
pub fn chunk(doc: &Extracted, counter: &TokenCounter, opts: &ChunkOptions) -> Vec<Chunk> {
    let max = opts.max_tokens.max(MIN_MAX_TOKENS);
    let budget = max.saturating_sub(counter.specials).max(1);
    let overlap = opts.overlap_tokens.min(max / 2);
    let fallback_title = doc
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| "Untitled document".to_owned());
    let mut chunks = Vec::new();
    let mut headings: Vec<(u8, String)> = Vec::new();
    for page in &doc.pages {
        let mut section: Option<Section> = None;
        // The caption and header row of the table the blocks are in, if
        // it has a header; `None` outside tables. `in_table`: the last
        // block was a row; `caption`: the last block, a short paragraph.
        let mut table_header: Option<std::sync::Arc<Vec<Unit>>> = None;
        let mut in_table = false;
        let mut caption: Option<Unit> = None;
        for block in &page.blocks {
            let text = block.text.trim();
            if text.is_empty() {
                continue;
            }
            let row = block.kind == BlockKind::TableRow;
            let starts_table = row && !in_table;
            in_table = row;
            if !row {
                table_header = None;
            }
            let heading = matches!(block.kind, BlockKind::Heading { .. });
            if let BlockKind::Heading { level } = block.kind {
                headings.retain(|(l, _)| *l < level);
                headings.push((level, text.to_owned()));
                // Headings with no text of their own yet lead into the next.
                let carried = match section.take() {
                    Some(s) if !s.has_body() => s.units,
                    Some(s) => {
                        emit(&s, &page.label, counter, budget, overlap, &mut chunks);
                        Vec::new()
                    }
                    None => Vec::new(),
                };
                section = Some(Section {
                    path: heading_path(&headings, &fallback_title),
                    units: carried,
                });
            }
            let section = section.get_or_insert_with(|| Section {
                path: heading_path(&headings, &fallback_title),
                units: Vec::new(),
            });
            let first = section.units.len();
            split_block(text, heading, counter, budget, &mut section.units);
            if block.kind == BlockKind::ListItem
                && block.depth > 0
                && let Some(unit) = section.units.get_mut(first)
            {
                unit.text.insert_str(0, &nesting(block.depth));
            }
            let whole = section.units.len() == first + 1;
            if starts_table {
                table_header = (crate::text::names_columns(text) && whole).then(|| {
                    let mut prefix: Vec<Unit> = caption.take().into_iter().collect();
                    prefix.push(section.units[first].clone());
                    std::sync::Arc::new(prefix)
                });
            } else if row && let Some(h) = &table_header {
                for unit in &mut section.units[first..] {
                    unit.header = Some(std::sync::Arc::clone(h));
                }
            }
            caption =
                (block.kind == BlockKind::Paragraph && whole && crate::text::is_caption(text))
                    .then(|| section.units[first].clone());
        }
        if let Some(s) = section.take()
            && s.has_body()
        {
            emit(&s, &page.label, counter, budget, overlap, &mut chunks);
        }
    }
    for (i, chunk) in chunks.iter_mut().enumerate() {
        chunk.chunk_index = i;
    }
    chunks
}

/// The white space a list item nested `depth` deep opens its line of a
/// chunk's text with: two spaces a level, as a nested Markdown list is
/// written. The line stands under the line above it that is indented less
/// ([`crate::text::quotable_in_context`]).
fn nesting(depth: u8) -> String {
    "  ".repeat(usize::from(depth))
}

/// What joins the headings of a chunk's `section_title` ("Title > 4.
/// Airflow setpoints").
pub const HEADING_SEPARATOR: &str = " > ";

/// The heading a chunk's text stands under: the last of its heading path
/// (the document's title and the chapters above say what the whole
/// document is about, not what this passage says).
pub fn own_heading(path: &str) -> &str {
    path.rsplit(HEADING_SEPARATOR).next().unwrap_or(path)
}

fn heading_path(headings: &[(u8, String)], fallback: &str) -> String {
    if headings.is_empty() {
        return fallback.to_owned();
    }
    headings
        .iter()
        .map(|(_, h)| h.as_str())
        .collect::<Vec<_>>()
        .join(HEADING_SEPARATOR)
}

/// Appends `text` as units that each fit `budget`: whole, else by
/// sentences, else by words, else by characters.
fn split_block(
    text: &str,
    heading: bool,
    counter: &TokenCounter,
    budget: usize,
    out: &mut Vec<Unit>,
) {
    let mut new_block = true;
    let mut add = |text: &str, tokens: usize, out: &mut Vec<Unit>| {
        out.push(Unit {
            text: text.to_owned(),
            tokens,
            new_block: std::mem::take(&mut new_block),
            heading,
            header: None,
        });
    };
    let tokens = counter.count_content(text);
    if tokens <= budget {
        add(text, tokens, out);
        return;
    }
    for sentence in sentences(text) {
        let tokens = counter.count_content(sentence);
        if tokens <= budget {
            add(sentence, tokens, out);
            continue;
        }
        for word in sentence.split_whitespace() {
            let tokens = counter.count_content(word);
            if tokens <= budget {
                add(word, tokens, out);
            } else {
                for (piece, tokens) in split_chars(word, counter, budget) {
                    add(piece, tokens, out);
                }
            }
        }
    }
}

/// Splits a word into the longest character runs that fit `budget`.
fn split_chars<'a>(word: &'a str, counter: &TokenCounter, budget: usize) -> Vec<(&'a str, usize)> {
    let mut out = Vec::new();
    let mut rest = word;
    while !rest.is_empty() {
        let bounds: Vec<usize> = rest
            .char_indices()
            .map(|(i, _)| i)
            .skip(1)
            .chain([rest.len()])
            .collect();
        // The longest prefix that fits (counts grow with length, almost
        // always: step back until it really fits); one character always does.
        let fits = |end: usize| counter.count_content(&rest[..end]) <= budget;
        let mut i = bounds.partition_point(|&end| fits(end)).saturating_sub(1);
        while i > 0 && !fits(bounds[i]) {
            i -= 1;
        }
        let end = bounds[i];
        out.push((&rest[..end], counter.count_content(&rest[..end])));
        rest = &rest[end..];
    }
    out
}

/// Abbreviations after which a period does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "fig", "no", "approx", "cf", "al", "ca", "mr", "dr", "st",
];

/// The sentences of `text`: a period, `!` or `?` (and closing quotes or
/// brackets) followed by a space and a capital, digit or opening bracket;
/// and every line break (code, addresses).
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let mut end = None;
        if b == b'\n' {
            end = Some(i);
        } else if matches!(b, b'.' | b'!' | b'?') {
            let mut j = i + 1;
            while j < bytes.len() && matches!(bytes[j], b'"' | b'\'' | b')' | b']') {
                j += 1;
            }
            let next = text[j..].trim_start();
            let spaced = j < bytes.len() && bytes[j].is_ascii_whitespace();
            let starts_sentence = next
                .chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit() || "(\"'[".contains(c));
            let original = text[start..i]
                .rsplit(char::is_whitespace)
                .next()
                .unwrap_or("")
                .trim_start_matches(['(', '"', '\'']);
            let word = original.to_ascii_lowercase();
            // "e.g.", "Fig." and initials ("J. Smith") do not end a sentence;
            // a lower-case unit does ("wait 5 s. Then").
            let abbreviation = b == b'.'
                && (ABBREVIATIONS.contains(&word.as_str())
                    || (original.len() == 1 && original.chars().all(char::is_uppercase)));
            if spaced && starts_sentence && !abbreviation {
                end = Some(j);
            }
        }
        if let Some(end) = end {
            let sentence = text[start..end].trim();
            if !sentence.is_empty() {
                out.push(sentence);
            }
            start = end;
        }
        i += 1;
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// Packs the units of a section into chunks with overlap.
fn emit(
    section: &Section,
    label: &str,
    counter: &TokenCounter,
    budget: usize,
    overlap: usize,
    chunks: &mut Vec<Chunk>,
) {
    let mut current: Vec<Unit> = Vec::new();
    let mut tokens = 0;
    for unit in &section.units {
        if !current.is_empty() && tokens + unit.tokens > budget {
            let room = budget - unit.tokens;
            // The tokens of the caption and header row this unit's table
            // repeats at the top of a chunk (0 outside tables).
            let header = unit
                .header
                .as_ref()
                .map_or(0, |h| h.iter().map(|u| u.tokens).sum::<usize>());
            let mut tail = overlap_tail(&current, overlap.min(room - header.min(room)), counter);
            if let Some(h) = &unit.header {
                // Inside a table the overlap is whole rows of it, not the
                // trailing words of a row.
                tail.retain(|u| row_of(u, h));
            }
            push_chunk(&current, section, label, counter, budget, chunks);
            current = tail;
            // A chunk that begins inside a table begins with its caption
            // and header row, before the rows the overlap carried over.
            if let Some(h) = &unit.header
                && header <= room
                && !h.iter().any(|p| {
                    current
                        .iter()
                        .any(|u| u.header.is_none() && u.text == p.text)
                })
            {
                let at = current
                    .iter()
                    .position(|u| row_of(u, h))
                    .unwrap_or(current.len());
                let rows = h.iter().map(|u| Unit {
                    new_block: true,
                    ..u.clone()
                });
                current.splice(at..at, rows);
            }
            tokens = current.iter().map(|u| u.tokens).sum();
        }
        current.push(unit.clone());
        tokens += unit.tokens;
    }
    if current.iter().any(|u| !u.heading) {
        push_chunk(&current, section, label, counter, budget, chunks);
    }
}

/// The last whole sentences of `units` within `limit` tokens, or when the
/// last sentence alone is longer, its last words.
fn overlap_tail(units: &[Unit], limit: usize, counter: &TokenCounter) -> Vec<Unit> {
    let mut tail: Vec<Unit> = Vec::new();
    let mut used = 0;
    for unit in units.iter().rev().filter(|u| !u.heading) {
        if used + unit.tokens <= limit {
            used += unit.tokens;
            tail.insert(0, unit.clone());
            continue;
        }
        // Too long as a whole: take its trailing sentences, then words.
        let mut pieces: Vec<Unit> = Vec::new();
        for sentence in sentences(&unit.text).into_iter().rev() {
            let tokens = counter.count_content(sentence);
            if used + tokens <= limit {
                used += tokens;
                pieces.insert(0, piece(sentence, tokens));
                continue;
            }
            if pieces.is_empty() && tail.is_empty() {
                for word in sentence.split_whitespace().rev() {
                    let tokens = counter.count_content(word);
                    if used + tokens > limit {
                        break;
                    }
                    used += tokens;
                    pieces.insert(0, piece(word, tokens));
                }
            }
            break;
        }
        tail.splice(0..0, pieces);
        break;
    }
    if let Some(first) = tail.first_mut() {
        first.new_block = true;
    }
    tail
}

fn piece(text: &str, tokens: usize) -> Unit {
    Unit {
        text: text.to_owned(),
        tokens,
        new_block: false,
        heading: false,
        header: None,
    }
}

/// Whether `unit` is a row of the table whose caption and header are `h`.
fn row_of(unit: &Unit, h: &std::sync::Arc<Vec<Unit>>) -> bool {
    unit.header
        .as_ref()
        .is_some_and(|o| std::sync::Arc::ptr_eq(o, h))
}

fn join(units: &[Unit]) -> String {
    let mut text = String::new();
    for unit in units {
        if !text.is_empty() {
            text.push(if unit.new_block { '\n' } else { ' ' });
        }
        text.push_str(&unit.text);
    }
    text.trim().to_owned()
}

/// Adds the chunk made of `units`, checking its real token count; should
/// the per-unit counts ever under-estimate, the text is re-packed by words
/// with exact counts instead.
fn push_chunk(
    units: &[Unit],
    section: &Section,
    label: &str,
    counter: &TokenCounter,
    budget: usize,
    chunks: &mut Vec<Chunk>,
) {
    let text = join(units);
    if text.is_empty() {
        return;
    }
    let max = budget + counter.specials;
    let count = counter.count(&text);
    let texts = if count <= max {
        vec![(text, count)]
    } else {
        repack_words(&text, counter, max)
    };
    for (text, token_count) in texts {
        chunks.push(Chunk {
            text,
            section_title: section.path.clone(),
            page_label: label.to_owned(),
            chunk_index: chunks.len(),
            token_count,
        });
    }
}

/// Packs the words of `text` greedily with exact counts.
fn repack_words(text: &str, counter: &TokenCounter, max: usize) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let budget = max.saturating_sub(counter.specials).max(1);
    let mut words: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        if counter.count(word) <= max {
            words.push(word.to_owned());
        } else {
            words.extend(
                split_chars(word, counter, budget)
                    .into_iter()
                    .map(|(p, _)| p.to_owned()),
            );
        }
    }
    for word in words {
        let candidate = if current.is_empty() {
            word.clone()
        } else {
            format!("{current} {word}")
        };
        if counter.count(&candidate) <= max || current.is_empty() {
            current = candidate;
        } else {
            let n = counter.count(&current);
            out.push((std::mem::replace(&mut current, word), n));
        }
    }
    if !current.is_empty() {
        let n = counter.count(&current);
        out.push((current, n));
    }
    out
}

#[cfg(test)]
mod tests;
