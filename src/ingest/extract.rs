//! Document extraction: bytes of a PDF, HTML, Markdown or plain-text file
//! become pages of typed blocks (headings, paragraphs, list items, table
//! rows) that the chunker packs into embedding-sized chunks.
//!
//! [`extract`] picks the format from the file extension. Bad input is an
//! [`ExtractError`] that names the file and says what to do about it; no
//! input makes it panic (the PDF parser runs under `catch_unwind`).

mod html;
mod markdown;
mod pdf;

use std::path::{Path, PathBuf};

/// What kind of text a [`Block`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// A heading; `level` 1 is the outermost (HTML `h1`, Markdown `#`).
    Heading {
        /// Nesting level, 1–6.
        level: u8,
    },
    /// A paragraph of running text (also preformatted or fenced code).
    Paragraph,
    /// One item of a bulleted or numbered list.
    ListItem,
    /// One table row, its cells joined with `" | "`.
    TableRow,
}

/// One unit of extracted text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// What the text is.
    pub kind: BlockKind,
    /// The text, whitespace-normalised except in code blocks.
    pub text: String,
    /// How deep a list item is nested in the list items above it: 0 for
    /// an item of an outermost list and for every other block, 1 for an
    /// item of a list inside an item, and so on. An item of a nested list
    /// stands under the item it is nested in ("Heating demand limit
    /// setpoint adjustment." over "At Demand Limit Level 3, decrease
    /// setpoint by 2 °C (4 °F)."), which the chunk's text keeps by
    /// indenting it ([`crate::ingest::chunk`]).
    pub depth: u8,
}

impl Block {
    /// A block of `kind` holding `text`, nested nowhere.
    pub fn new(kind: BlockKind, text: impl Into<String>) -> Self {
        Self::nested(kind, text, 0)
    }

    /// A block of `kind` holding `text`, a list item nested `depth` deep.
    pub fn nested(kind: BlockKind, text: impl Into<String>, depth: u8) -> Self {
        Self {
            kind,
            text: text.into(),
            depth,
        }
    }
}

/// One page of a document: a PDF page, or the whole of a non-paged file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// The PDF page label (from `/PageLabels`) or the 1-based page number;
    /// `"1"` for formats without pages.
    pub label: String,
    /// The page's blocks in reading order.
    pub blocks: Vec<Block>,
}

/// The text of one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// The document title: PDF `/Title`, HTML `<title>`, the first heading,
    /// or else the file name without its extension.
    pub title: Option<String>,
    /// The pages in order (exactly one for non-paged formats).
    pub pages: Vec<Page>,
}

/// Why a file could not be turned into text. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// The extension is not one DaemonIQ reads.
    #[error(
        "{path}: unsupported file type {extension:?}; DaemonIQ ingests .pdf, .html, .htm, .md, \
         .markdown and .txt files"
    )]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// Its extension (empty when it has none).
        extension: String,
    },
    /// The PDF needs a password to be read.
    #[error(
        "{path}: the PDF is encrypted and needs a password to read; ingest an unencrypted copy \
         (for example, print it to PDF or remove the password in a PDF editor)"
    )]
    Encrypted {
        /// The file.
        path: PathBuf,
    },
    /// The PDF could not be parsed.
    #[error(
        "{path}: not a readable PDF ({reason}); check that the file is complete and opens in a \
         PDF viewer"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        reason: String,
    },
    /// The file holds no text to index.
    #[error(
        "{path}: no text to index: the file is empty or holds only whitespace or markup (a PDF of \
         scanned images needs OCR first)"
    )]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A text file that is not UTF-8.
    #[error("{path}: not UTF-8 text ({detail}); re-save the file with UTF-8 encoding")]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// Where decoding failed, or which encoding it looks like.
        detail: String,
    },
    /// A "text" file that holds binary data.
    #[error(
        "{path}: looks like binary data, not text ({detail}); check that the file has the right \
         extension"
    )]
    Binary {
        /// The file.
        path: PathBuf,
        /// Why it was judged binary.
        detail: String,
    },
}

/// Extracts the text of the file at `path` from its `bytes`, choosing the
/// format by extension (case-insensitive): `.pdf`, `.html`/`.htm`,
/// `.md`/`.markdown`, `.txt`. `path` is only used for the format and for
/// error messages; nothing is read from disk.
pub fn extract(path: &Path, bytes: &[u8]) -> Result<Extracted, ExtractError> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let fallback_title = path
        .file_stem()
        .and_then(|s| s.to_str())
        .map(str::to_owned)
        .filter(|s| !s.trim().is_empty());
    let extracted = match extension.as_str() {
        "pdf" => pdf::extract(path, bytes)?,
        "html" | "htm" => html::extract(decode_text(path, bytes)?),
        "md" | "markdown" => markdown::extract(decode_text(path, bytes)?),
        "txt" => plain_text(decode_text(path, bytes)?),
        _ => {
            return Err(ExtractError::Unsupported {
                path: path.to_owned(),
                extension,
            });
        }
    };
    if extracted
        .pages
        .iter()
        .all(|p| p.blocks.iter().all(|b| b.text.trim().is_empty()))
    {
        return Err(ExtractError::Empty {
            path: path.to_owned(),
        });
    }
    Ok(Extracted {
        title: extracted.title.or(fallback_title),
        ..extracted
    })
}

/// Share of control characters above which a file counts as binary.
const MAX_CONTROL_SHARE: f64 = 0.05;
/// Share of undecodable bytes above which non-UTF-8 input counts as binary.
const MAX_INVALID_SHARE: f64 = 0.30;

/// The bytes as UTF-8 text, or why they are not text we can index.
fn decode_text<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, ExtractError> {
    let path_buf = || path.to_owned();
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(ExtractError::NotUtf8 {
            path: path_buf(),
            detail: "it starts with a UTF-16 byte-order mark".into(),
        });
    }
    if bytes.contains(&0) {
        return Err(ExtractError::Binary {
            path: path_buf(),
            detail: "it contains NUL bytes".into(),
        });
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let controls = bytes.iter().filter(|&&b| is_control_byte(b)).count();
    if !bytes.is_empty() && controls as f64 / bytes.len() as f64 > MAX_CONTROL_SHARE {
        return Err(ExtractError::Binary {
            path: path_buf(),
            detail: format!("{controls} of {} bytes are control characters", bytes.len()),
        });
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            let lossy = String::from_utf8_lossy(bytes);
            let invalid = lossy.chars().filter(|&c| c == '\u{FFFD}').count();
            let total = lossy.chars().count().max(1);
            if invalid as f64 / total as f64 > MAX_INVALID_SHARE {
                return Err(ExtractError::Binary {
                    path: path_buf(),
                    detail: format!("{invalid} of {total} characters cannot be decoded"),
                });
            }
            return Err(ExtractError::NotUtf8 {
                path: path_buf(),
                detail: format!("invalid byte sequence at byte {}", err.valid_up_to()),
            });
        }
    };
    if text.trim().is_empty() {
        return Err(ExtractError::Empty { path: path_buf() });
    }
    Ok(text)
}

/// ASCII control characters other than tab, line feed, form feed and
/// carriage return.
fn is_control_byte(b: u8) -> bool {
    (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C)) || b == 0x7F
}

/// Collapses runs of whitespace to single spaces and trims.
pub(crate) fn normalize_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The text of a list item line: bullets (`-`, `*`, `•` …) are dropped,
/// numbers and letters (`1.`, `a)`) are kept because the order carries
/// meaning.
pub(crate) fn list_item_text(line: &str) -> Option<String> {
    let len = list_marker_len(line)?;
    let is_bullet = !line.starts_with(|c: char| c.is_ascii_alphanumeric());
    Some(normalize_ws(if is_bullet { &line[len..] } else { line }))
}

/// A bullet or number that starts a list item (`-`, `*`, `+`, `•`, `1.`,
/// `2)`, `a.`), as the byte length of the marker including the space after it.
pub(crate) fn list_marker_len(line: &str) -> Option<usize> {
    let mut chars = line.char_indices();
    let (_, first) = chars.next()?;
    let after_marker = if matches!(first, '-' | '*' | '+' | '•' | '◦' | '▪' | '‣' | '–') {
        first.len_utf8()
    } else if first.is_ascii_digit() {
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 3 || !matches!(line.as_bytes().get(digits), Some(b'.' | b')')) {
            return None;
        }
        digits + 1
    } else if first.is_ascii_lowercase() && matches!(line.as_bytes().get(1), Some(b'.' | b')')) {
        2
    } else {
        return None;
    };
    let rest = &line[after_marker..];
    let space = rest.len() - rest.trim_start().len();
    (space > 0 && !rest.trim().is_empty()).then_some(after_marker + space)
}

/// Plain text: paragraphs are separated by blank lines; a line starting with
/// a list marker starts a list item.
fn plain_text(text: &str) -> Extracted {
    let mut blocks = Vec::new();
    let mut current: Option<(BlockKind, String)> = None;
    let flush = |current: &mut Option<(BlockKind, String)>, blocks: &mut Vec<Block>| {
        if let Some((kind, text)) = current.take() {
            let text = normalize_ws(&text);
            if !text.is_empty() {
                blocks.push(Block::new(kind, text));
            }
        }
    };
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            flush(&mut current, &mut blocks);
            continue;
        }
        if let Some(item) = list_item_text(trimmed) {
            flush(&mut current, &mut blocks);
            current = Some((BlockKind::ListItem, item));
            continue;
        }
        match &mut current {
            Some((_, text)) => {
                text.push(' ');
                text.push_str(trimmed);
            }
            None => current = Some((BlockKind::Paragraph, trimmed.to_owned())),
        }
    }
    flush(&mut current, &mut blocks);
    Extracted {
        title: None,
        pages: vec![Page {
            label: "1".into(),
            blocks,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn txt(bytes: &[u8]) -> Result<Extracted, ExtractError> {
        extract(Path::new("notes/service-log.txt"), bytes)
    }

    #[test]
    fn plain_text_paragraphs_and_list_items() {
        let doc = txt(b"AHU-2 service log\n\nFilter replaced on the\nsupply side.\n\n- checked belts\n- cleaned coil\n").unwrap();
        assert_eq!(doc.title.as_deref(), Some("service-log"));
        assert_eq!(doc.pages.len(), 1);
        assert_eq!(doc.pages[0].label, "1");
        let blocks = &doc.pages[0].blocks;
        assert_eq!(blocks.len(), 4);
        assert_eq!(blocks[1].text, "Filter replaced on the supply side.");
        assert_eq!(blocks[1].kind, BlockKind::Paragraph);
        assert_eq!(blocks[2].kind, BlockKind::ListItem);
        assert_eq!(blocks[2].text, "checked belts");
    }

    #[test]
    fn utf8_bom_is_ignored() {
        let doc = txt(b"\xEF\xBB\xBFZone temperature").unwrap();
        assert_eq!(doc.pages[0].blocks[0].text, "Zone temperature");
    }

    #[test]
    fn empty_and_whitespace_only_files_are_empty() {
        for bytes in [&b""[..], b"  \n\t\r\n  "] {
            let err = txt(bytes).unwrap_err();
            assert!(matches!(err, ExtractError::Empty { .. }), "{err}");
            assert!(err.to_string().contains("service-log.txt"), "{err}");
        }
        let err = extract(Path::new("a.md"), b"\n\n").unwrap_err();
        assert!(matches!(err, ExtractError::Empty { .. }), "{err}");
        let err = extract(
            Path::new("a.html"),
            b"<html><body><script>x()</script></body></html>",
        )
        .unwrap_err();
        assert!(matches!(err, ExtractError::Empty { .. }), "{err}");
    }

    #[test]
    fn latin1_text_is_not_utf8() {
        let err = txt(b"Caf\xe9 supply fan: d\xe9bit nominal 1200 m3/h").unwrap_err();
        assert!(matches!(err, ExtractError::NotUtf8 { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains("service-log.txt") && msg.contains("UTF-8"),
            "{msg}"
        );
        let err = txt(b"\xFF\xFEA\x00H\x00U\x00").unwrap_err();
        assert!(matches!(err, ExtractError::NotUtf8 { .. }), "{err}");
        let err = extract(Path::new("x.md"), b"# Titre\n\nd\xe9bit").unwrap_err();
        assert!(matches!(err, ExtractError::NotUtf8 { .. }), "{err}");
    }

    #[test]
    fn binary_data_is_binary() {
        // A PNG header, an ELF header and pseudo-random bytes.
        let mut random = Vec::new();
        let mut x: u32 = 0x1234_5678;
        for _ in 0..4096 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            random.push((x >> 24) as u8);
        }
        let png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".to_vec();
        let elf = b"\x7fELF\x02\x01\x01\x00\x00\x00".to_vec();
        let no_nul: Vec<u8> = random.iter().map(|&b| b.max(1)).collect();
        for bytes in [png, elf, random, no_nul] {
            let err = txt(&bytes).unwrap_err();
            assert!(matches!(err, ExtractError::Binary { .. }), "{err}");
            assert!(err.to_string().contains("service-log.txt"));
        }
        let err = extract(Path::new("page.html"), b"<p>\x01\x02\x03\x04\x05\x06</p>").unwrap_err();
        assert!(matches!(err, ExtractError::Binary { .. }), "{err}");
    }

    #[test]
    fn unknown_extensions_are_refused() {
        let err = extract(Path::new("drawing.dwg"), b"AC1032").unwrap_err();
        assert!(matches!(err, ExtractError::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("drawing.dwg"));
        // Extension matching ignores case.
        assert!(extract(Path::new("README.TXT"), b"hello").is_ok());
    }

    #[test]
    fn list_markers() {
        assert_eq!(list_marker_len("- item"), Some(2));
        assert_eq!(list_marker_len("12. item"), Some(4));
        assert_eq!(list_marker_len("a) item"), Some(3));
        assert_eq!(list_marker_len("• item"), Some(4));
        assert_eq!(list_marker_len("5.6.4 Section"), None);
        assert_eq!(list_marker_len("-5 degrees"), None);
        assert_eq!(list_marker_len("an item"), None);
        assert_eq!(list_marker_len("- "), None);
        assert_eq!(
            list_item_text("*  two  words").as_deref(),
            Some("two words")
        );
        assert_eq!(list_item_text("3) third").as_deref(), Some("3) third"));
    }
}
