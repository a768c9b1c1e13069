//! PDF → pages of blocks, with lopdf.
//!
//! lopdf's own `extract_text` breaks a line at every font change and drops
//! positions, so this walks each page's content stream itself: it tracks the
//! text and graphics matrices and the glyph widths to place every shown
//! string, rebuilds visual lines from the positions, and joins lines into
//! paragraphs by vertical gaps, indentation and where lines end. Headings are
//! lines set larger than the body text or entirely in a bold font; lines with
//! wide horizontal gaps are table rows.

use super::{Block, BlockKind, ExtractError, Extracted, Page, list_item_text, normalize_ws};
use lopdf::content::Content;
use lopdf::{DEFAULT_MAX_DECOMPRESSED_SIZE, Dictionary, Document, Encoding, Object, ObjectId};
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

mod layout;

/// Why a PDF failed, before the path is attached.
enum Failure {
    Encrypted,
    Corrupt(String),
}

/// Extracts the pages of the PDF in `bytes`. A panic inside lopdf becomes
/// [`ExtractError::Corrupt`].
pub(super) fn extract(path: &Path, bytes: &[u8]) -> Result<Extracted, ExtractError> {
    match catch_unwind(AssertUnwindSafe(|| extract_pages(bytes))) {
        Ok(Ok(doc)) => Ok(doc),
        Ok(Err(Failure::Encrypted)) => Err(ExtractError::Encrypted {
            path: path.to_owned(),
        }),
        Ok(Err(Failure::Corrupt(reason))) => Err(ExtractError::Corrupt {
            path: path.to_owned(),
            reason,
        }),
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown cause".to_owned());
            Err(ExtractError::Corrupt {
                path: path.to_owned(),
                reason: format!("the PDF parser failed: {message}"),
            })
        }
    }
}

fn extract_pages(bytes: &[u8]) -> Result<Extracted, Failure> {
    let doc = Document::load_mem(bytes).map_err(|e| Failure::Corrupt(e.to_string()))?;
    if doc.is_encrypted() {
        return Err(Failure::Encrypted);
    }
    let page_ids = doc.get_pages();
    let labels = page_labels(&doc, page_ids.len());
    let mut first_error = None;
    let mut lines = Vec::with_capacity(page_ids.len());
    for id in page_ids.values() {
        match page_lines(&doc, *id) {
            Ok(page) => lines.push(page),
            Err(err) => {
                first_error.get_or_insert(err);
                lines.push(Vec::new());
            }
        }
    }
    if lines.iter().all(Vec::is_empty)
        && let Some(err) = first_error
    {
        return Err(Failure::Corrupt(err));
    }
    let title = info_title(&doc);
    let blocks = layout::blocks(&lines, title.as_deref());
    let title = title.or_else(|| {
        blocks.iter().flatten().find_map(|b| match b.kind {
            BlockKind::Heading { level: 1 } => Some(b.text.clone()),
            _ => None,
        })
    });
    Ok(Extracted {
        title,
        pages: labels
            .into_iter()
            .zip(blocks)
            .map(|(label, blocks)| Page { label, blocks })
            .collect(),
    })
}

/// The document's `/Info /Title`, when it has a non-empty one.
fn info_title(doc: &Document) -> Option<String> {
    let info = doc.trailer.get(b"Info").ok()?;
    let info = doc.dereference(info).ok()?.1.as_dict().ok()?;
    let title = doc.dereference(info.get(b"Title").ok()?).ok()?.1;
    let title = normalize_ws(&lopdf::decode_text_string(title).ok()?);
    // Printed web pages carry the file name ("doc.html") as their title.
    let file_name = std::path::Path::new(&title)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| {
            ["html", "htm", "pdf", "doc", "docx", "txt", "md"]
                .contains(&e.to_ascii_lowercase().as_str())
        })
        && !title.contains(' ');
    (!title.is_empty() && !title.eq_ignore_ascii_case("untitled") && !file_name).then_some(title)
}

// ---------------------------------------------------------------------------
// Page labels (PDF 32000-1 §12.4.2): a number tree from page index to
// {S style, P prefix, St start}.

/// The label of each of the `count` pages: from `/PageLabels` when the
/// catalog has it, else the 1-based page number.
fn page_labels(doc: &Document, count: usize) -> Vec<String> {
    let mut ranges = Vec::new();
    if let Some(root) = doc
        .catalog()
        .ok()
        .and_then(|c| c.get(b"PageLabels").ok())
        .and_then(|o| doc.dereference(o).ok())
        .and_then(|(_, o)| o.as_dict().ok())
    {
        collect_label_ranges(doc, root, &mut ranges, 0);
    }
    ranges.sort_by_key(|(start, _)| *start);
    (0..count)
        .map(|index| {
            let index = i64::try_from(index).unwrap_or(i64::MAX);
            ranges
                .iter()
                .rev()
                .find(|(start, _)| *start <= index)
                .and_then(|(start, dict)| format_label(dict, index - start))
                .unwrap_or_else(|| (index + 1).to_string())
        })
        .collect()
}

fn collect_label_ranges(
    doc: &Document,
    node: &Dictionary,
    out: &mut Vec<(i64, Dictionary)>,
    depth: usize,
) {
    if depth > 32 {
        return;
    }
    if let Ok(nums) = node.get(b"Nums").and_then(Object::as_array) {
        for pair in nums.chunks(2) {
            if let [key, value] = pair
                && let Ok(start) = key.as_i64()
                && let Ok((_, value)) = doc.dereference(value)
                && let Ok(dict) = value.as_dict()
            {
                out.push((start, dict.clone()));
            }
        }
    }
    if let Ok(kids) = node.get(b"Kids").and_then(Object::as_array) {
        for kid in kids {
            if let Ok((_, kid)) = doc.dereference(kid)
                && let Ok(kid) = kid.as_dict()
            {
                collect_label_ranges(doc, kid, out, depth + 1);
            }
        }
    }
}

/// The label of the page `offset` pages into the range described by `dict`.
fn format_label(dict: &Dictionary, offset: i64) -> Option<String> {
    let prefix = dict
        .get(b"P")
        .ok()
        .and_then(|p| lopdf::decode_text_string(p).ok())
        .unwrap_or_default();
    let start = dict.get(b"St").and_then(Object::as_i64).unwrap_or(1);
    let number = start.saturating_add(offset).max(1);
    let number = match dict.get(b"S").and_then(Object::as_name) {
        Ok(b"D") => number.to_string(),
        Ok(b"R") => roman(number),
        Ok(b"r") => roman(number).to_lowercase(),
        Ok(b"A") => letters(number),
        Ok(b"a") => letters(number).to_lowercase(),
        _ => String::new(),
    };
    let label = normalize_ws(&format!("{prefix}{number}"));
    (!label.is_empty()).then_some(label)
}

fn roman(mut n: i64) -> String {
    const NUMERALS: [(i64, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    if n > 100_000 {
        return n.to_string();
    }
    let mut out = String::new();
    for (value, numeral) in NUMERALS {
        while n >= value {
            out.push_str(numeral);
            n -= value;
        }
    }
    out
}

/// A, B, … Z, AA, BB, … as PDF letter labels count.
fn letters(n: i64) -> String {
    if n > 26 * 100 {
        return n.to_string();
    }
    let letter = char::from(b'A' + u8::try_from((n - 1) % 26).unwrap_or(0));
    let times = usize::try_from((n - 1) / 26 + 1).unwrap_or(1);
    letter.to_string().repeat(times)
}

// ---------------------------------------------------------------------------
// Content stream walk.

/// A 2-D affine matrix `[a b c d e f]` in PDF's row-vector convention.
#[derive(Debug, Clone, Copy)]
struct Matrix([f64; 6]);

impl Matrix {
    const IDENTITY: Matrix = Matrix([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);

    fn translate(tx: f64, ty: f64) -> Self {
        Matrix([1.0, 0.0, 0.0, 1.0, tx, ty])
    }

    /// `self × other`: apply `self`, then `other`.
    fn then(self, other: Matrix) -> Matrix {
        let [a, b, c, d, e, f] = self.0;
        let [oa, ob, oc, od, oe, of] = other.0;
        Matrix([
            a * oa + b * oc,
            a * ob + b * od,
            c * oa + d * oc,
            c * ob + d * od,
            e * oa + f * oc + oe,
            e * ob + f * od + of,
        ])
    }

    fn apply(self, x: f64, y: f64) -> (f64, f64) {
        let [a, b, c, d, e, f] = self.0;
        (x * a + y * c + e, x * b + y * d + f)
    }

    /// How much the matrix scales vertical distances.
    fn vertical_scale(self) -> f64 {
        let [_, _, c, d, _, _] = self.0;
        c.hypot(d)
    }

    fn from_operands(operands: &[Object]) -> Option<Matrix> {
        let mut m = [0.0; 6];
        for (slot, operand) in m.iter_mut().zip(operands) {
            *slot = f64::from(operand.as_float().ok()?);
        }
        (operands.len() >= 6).then_some(Matrix(m))
    }
}

/// Glyph widths of one font, in thousandths of the font size.
enum Widths {
    /// Simple fonts: `/FirstChar` and `/Widths`.
    Simple { first: u32, widths: Vec<f64> },
    /// CID fonts: `/W` ranges, sorted by first CID.
    Cid(Vec<(u32, u32, f64)>),
}

/// What the walk needs to know about a font.
struct FontInfo<'a> {
    encoding: Option<Encoding<'a>>,
    bold: bool,
    two_byte: bool,
    widths: Widths,
    default_width: f64,
}

impl FontInfo<'_> {
    fn width(&self, code: u32) -> f64 {
        let width = match &self.widths {
            Widths::Simple { first, widths } => code
                .checked_sub(*first)
                .and_then(|i| widths.get(usize::try_from(i).ok()?).copied()),
            Widths::Cid(ranges) => {
                let i = ranges.partition_point(|(start, _, _)| *start <= code);
                i.checked_sub(1)
                    .and_then(|i| ranges.get(i))
                    .filter(|(_, end, _)| code <= *end)
                    .map(|(_, _, w)| *w)
            }
        };
        width.filter(|w| *w > 0.0).unwrap_or(self.default_width)
    }
}

fn font_info<'a>(doc: &'a Document, font: &'a Dictionary) -> FontInfo<'a> {
    let deref = |o: &'a Object| doc.dereference(o).ok().map(|(_, o)| o);
    let number = |o: &Object| o.as_float().ok().map(f64::from);
    let is_type0 = matches!(font.get(b"Subtype").and_then(Object::as_name), Ok(b"Type0"));
    let descendant = font
        .get(b"DescendantFonts")
        .ok()
        .and_then(deref)
        .and_then(|o| o.as_array().ok())
        .and_then(|a| a.first())
        .and_then(deref)
        .and_then(|o| o.as_dict().ok());
    let described = descendant.unwrap_or(font);
    let descriptor = described
        .get(b"FontDescriptor")
        .ok()
        .and_then(deref)
        .and_then(|o| o.as_dict().ok());
    let name = String::from_utf8_lossy(
        font.get(b"BaseFont")
            .and_then(Object::as_name)
            .unwrap_or_default(),
    )
    .to_ascii_lowercase();
    let weight = descriptor
        .and_then(|d| d.get(b"FontWeight").ok())
        .and_then(number)
        .unwrap_or(400.0);
    let force_bold = descriptor
        .and_then(|d| d.get(b"Flags").and_then(Object::as_i64).ok())
        .is_some_and(|flags| flags & (1 << 18) != 0);
    let bold = name.contains("bold")
        || name.contains("black")
        || name.contains("heavy")
        || weight >= 600.0
        || force_bold;
    let (widths, default_width) = if is_type0 {
        let mut ranges = Vec::new();
        if let Some(w) = described.get(b"W").ok().and_then(deref) {
            parse_cid_widths(w, deref, &mut ranges);
        }
        ranges.sort_by_key(|(start, _, _)| *start);
        let default = described.get(b"DW").ok().and_then(number).unwrap_or(1000.0);
        (Widths::Cid(ranges), default)
    } else {
        let first = font.get(b"FirstChar").and_then(Object::as_i64).unwrap_or(0);
        let widths = font
            .get(b"Widths")
            .ok()
            .and_then(deref)
            .and_then(|o| o.as_array().ok())
            .map(|a| {
                a.iter()
                    .map(|w| deref(w).and_then(number).unwrap_or(0.0))
                    .collect()
            })
            .unwrap_or_default();
        let default = if name.contains("courier") {
            600.0
        } else {
            500.0
        };
        (
            Widths::Simple {
                first: u32::try_from(first).unwrap_or(0),
                widths,
            },
            default,
        )
    };
    FontInfo {
        encoding: font
            .get_font_encoding_with_limit(doc, DEFAULT_MAX_DECOMPRESSED_SIZE)
            .ok(),
        bold,
        two_byte: is_type0,
        widths,
        default_width,
    }
}

/// Parses a CID `/W` array: `c [w1 w2 …]` and `c_first c_last w` entries.
fn parse_cid_widths<'a>(
    w: &'a Object,
    deref: impl Fn(&'a Object) -> Option<&'a Object>,
    out: &mut Vec<(u32, u32, f64)>,
) {
    let Ok(items) = w.as_array() else { return };
    let int = |o: &Object| o.as_i64().ok().and_then(|v| u32::try_from(v).ok());
    let mut i = 0;
    while i < items.len() {
        let Some(first) = deref(&items[i]).and_then(int) else {
            return;
        };
        match items.get(i + 1).and_then(&deref) {
            Some(Object::Array(list)) => {
                for (k, width) in list.iter().enumerate() {
                    let cid = first.saturating_add(u32::try_from(k).unwrap_or(u32::MAX));
                    let width = deref(width).and_then(|o| o.as_float().ok());
                    out.push((cid, cid, f64::from(width.unwrap_or(0.0))));
                }
                i += 2;
            }
            Some(last) => {
                let width = items
                    .get(i + 2)
                    .and_then(&deref)
                    .and_then(|o| o.as_float().ok());
                if let (Some(last), Some(width)) = (int(last), width) {
                    out.push((first, last, f64::from(width)));
                }
                i += 3;
            }
            None => return,
        }
    }
}

/// One shown string, placed on the page (device space, y up).
pub(super) struct Fragment {
    text: String,
    x0: f64,
    x1: f64,
    y: f64,
    size: f64,
    bold: bool,
}

/// Text state of the content-stream walk.
struct TextState {
    ctm: Matrix,
    stack: Vec<Matrix>,
    tm: Matrix,
    tlm: Matrix,
    font: Option<Vec<u8>>,
    size: f64,
    char_spacing: f64,
    word_spacing: f64,
    scale: f64,
    leading: f64,
    rise: f64,
}

impl TextState {
    fn new() -> Self {
        TextState {
            ctm: Matrix::IDENTITY,
            stack: Vec::new(),
            tm: Matrix::IDENTITY,
            tlm: Matrix::IDENTITY,
            font: None,
            size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            scale: 1.0,
            leading: 0.0,
            rise: 0.0,
        }
    }

    fn next_line(&mut self, tx: f64, ty: f64) {
        self.tlm = Matrix::translate(tx, ty).then(self.tlm);
        self.tm = self.tlm;
    }

    /// Shows `bytes` in the current font: decodes them, advances the text
    /// matrix by the glyph widths, and returns where the text landed.
    fn show(&mut self, bytes: &[u8], fonts: &HashMap<Vec<u8>, FontInfo<'_>>) -> Option<Fragment> {
        let font = self.font.as_ref().and_then(|name| fonts.get(name))?;
        let start = self.tm.then(self.ctm);
        let mut advance = 0.0;
        let codes: Vec<u32> = if font.two_byte {
            bytes
                .chunks(2)
                .map(|c| c.iter().fold(0u32, |acc, b| acc << 8 | u32::from(*b)))
                .collect()
        } else {
            bytes.iter().map(|b| u32::from(*b)).collect()
        };
        for &code in &codes {
            let word = if !font.two_byte && code == 32 {
                self.word_spacing
            } else {
                0.0
            };
            advance +=
                (font.width(code) / 1000.0 * self.size + self.char_spacing + word) * self.scale;
        }
        self.tm = Matrix::translate(advance, 0.0).then(self.tm);
        let text = font
            .encoding
            .as_ref()
            .and_then(|e| e.bytes_to_string(bytes).ok())?;
        let (x0, y) = start.apply(0.0, self.rise);
        let (x1, _) = self.tm.then(self.ctm).apply(0.0, self.rise);
        Some(Fragment {
            text,
            x0: x0.min(x1),
            x1: x0.max(x1),
            y,
            size: self.size.abs() * start.vertical_scale(),
            bold: font.bold,
        })
    }
}

fn number(operands: &[Object], i: usize) -> f64 {
    operands
        .get(i)
        .and_then(|o| o.as_float().ok())
        .map_or(0.0, f64::from)
}

/// The text lines of one page, in content order.
fn page_lines(doc: &Document, page: ObjectId) -> Result<Vec<layout::Line>, String> {
    let fonts: HashMap<Vec<u8>, FontInfo<'_>> = doc
        .get_page_fonts(page)
        .map_err(|e| format!("cannot read the page fonts: {e}"))?
        .into_iter()
        .map(|(name, font)| (name, font_info(doc, font)))
        .collect();
    let content = doc
        .get_page_content_with_limit(page, DEFAULT_MAX_DECOMPRESSED_SIZE)
        .map_err(|e| format!("cannot read a page's content: {e}"))?;
    let content =
        Content::decode(&content).map_err(|e| format!("cannot parse a page's content: {e}"))?;
    let mut state = TextState::new();
    let mut lines = layout::LineBuilder::default();
    for op in &content.operations {
        let operands = op.operands.as_slice();
        match op.operator.as_str() {
            "q" => state.stack.push(state.ctm),
            "Q" => state.ctm = state.stack.pop().unwrap_or(Matrix::IDENTITY),
            "cm" => {
                if let Some(m) = Matrix::from_operands(operands) {
                    state.ctm = m.then(state.ctm);
                }
            }
            "BT" => {
                state.tm = Matrix::IDENTITY;
                state.tlm = Matrix::IDENTITY;
            }
            "Tf" => {
                state.font = operands
                    .first()
                    .and_then(|o| o.as_name().ok())
                    .map(<[u8]>::to_vec);
                state.size = number(operands, 1);
            }
            "Tc" => state.char_spacing = number(operands, 0),
            "Tw" => state.word_spacing = number(operands, 0),
            "Tz" => state.scale = number(operands, 0) / 100.0,
            "TL" => state.leading = number(operands, 0),
            "Ts" => state.rise = number(operands, 0),
            "Td" => state.next_line(number(operands, 0), number(operands, 1)),
            "TD" => {
                state.leading = -number(operands, 1);
                state.next_line(number(operands, 0), number(operands, 1));
            }
            "Tm" => {
                if let Some(m) = Matrix::from_operands(operands) {
                    state.tlm = m;
                    state.tm = m;
                }
            }
            "T*" => state.next_line(0.0, -state.leading),
            "Tj" | "'" | "\"" => {
                if op.operator == "\"" {
                    state.word_spacing = number(operands, 0);
                    state.char_spacing = number(operands, 1);
                }
                if op.operator != "Tj" {
                    state.next_line(0.0, -state.leading);
                }
                let string = operands.get(if op.operator == "\"" { 2 } else { 0 });
                if let Some(bytes) = string.and_then(|o| o.as_str().ok())
                    && let Some(fragment) = state.show(bytes, &fonts)
                {
                    lines.push(fragment);
                }
            }
            "TJ" => {
                let items = operands.first().and_then(|o| o.as_array().ok());
                for item in items.into_iter().flatten() {
                    if let Ok(bytes) = item.as_str() {
                        if let Some(fragment) = state.show(bytes, &fonts) {
                            lines.push(fragment);
                        }
                    } else if let Ok(adjust) = item.as_float() {
                        let tx = -f64::from(adjust) / 1000.0 * state.size * state.scale;
                        state.tm = Matrix::translate(tx, 0.0).then(state.tm);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(lines.finish())
}

#[cfg(test)]
mod tests;
