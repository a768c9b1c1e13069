//! Placed text fragments → visual lines → blocks.
//!
//! All distances are in device space and compared in units of the font size
//! ("em"), so the rules hold whatever the page scale.

use super::{Block, BlockKind, Fragment, list_item_text, normalize_ws};
use std::collections::HashMap;

/// Fragments on one baseline farther apart than this start a new table cell.
const CELL_GAP_EM: f64 = 1.0;
/// Fragments farther apart than this, with no space glyph, get a space.
const WORD_GAP_EM: f64 = 0.15;
/// Baselines within this share of the font size are on the same line
/// (so sub- and superscripts stay on their line).
const SAME_LINE_EM: f64 = 0.5;
/// A baseline-to-baseline distance above this starts a new block.
const PARAGRAPH_GAP_EM: f64 = 1.6;
/// Indentation changes above this start a new block.
const INDENT_EM: f64 = 0.5;
/// Lines at least this much larger than the body text are headings.
const HEADING_SCALE: f64 = 1.15;
/// Longest line that can be a heading, in characters.
const MAX_HEADING_CHARS: usize = 160;

/// One visual line of a page.
#[derive(Debug)]
pub(super) struct Line {
    cells: Vec<String>,
    x0: f64,
    x1: f64,
    y: f64,
    size: f64,
    chars: usize,
    bold_chars: usize,
    /// Where the line's first word ends (`x1` when it has one word).
    first_word_x1: Option<f64>,
}

impl Line {
    fn text(&self) -> String {
        self.cells
            .iter()
            .map(|c| normalize_ws(c))
            .filter(|c| !c.is_empty())
            .collect::<Vec<_>>()
            .join(" | ")
    }

    fn is_table_row(&self) -> bool {
        self.cells.iter().filter(|c| !c.trim().is_empty()).count() > 1
    }

    fn all_bold(&self) -> bool {
        self.chars > 0 && self.bold_chars == self.chars
    }
}

/// Groups fragments, in content order, into lines.
#[derive(Default)]
pub(super) struct LineBuilder {
    lines: Vec<Line>,
}

impl LineBuilder {
    pub(super) fn push(&mut self, f: Fragment) {
        let visible = f.text.chars().filter(|c| !c.is_whitespace()).count();
        if let Some(line) = self.lines.last_mut() {
            let em = line.size.max(f.size).max(f64::EPSILON);
            let same_line = (f.y - line.y).abs() <= SAME_LINE_EM * em && f.x0 >= line.x1 - em;
            if same_line {
                let gap = f.x0 - line.x1;
                let last = line.cells.last().map(String::as_str).unwrap_or("");
                if gap > CELL_GAP_EM * em && visible > 0 {
                    line.cells.push(String::new());
                } else if gap > WORD_GAP_EM * em
                    && !last.ends_with(char::is_whitespace)
                    && !f.text.starts_with(char::is_whitespace)
                    && let Some(cell) = line.cells.last_mut()
                {
                    cell.push(' ');
                }
                if line.first_word_x1.is_none() {
                    line.first_word_x1 = first_space_x(&f);
                }
                if let Some(cell) = line.cells.last_mut() {
                    cell.push_str(&f.text);
                }
                line.x1 = line.x1.max(f.x1);
                if visible > 0 {
                    line.size = line.size.max(f.size);
                }
                line.chars += visible;
                if f.bold {
                    line.bold_chars += visible;
                }
                return;
            }
        }
        if visible == 0 {
            return;
        }
        let leading = f.text.len() - f.text.trim_start().len();
        let first_word_x1 = first_space_x(&Fragment {
            text: f.text[leading..].to_owned(),
            ..f
        });
        self.lines.push(Line {
            cells: vec![f.text.trim_start().to_owned()],
            x0: f.x0,
            x1: f.x1,
            y: f.y,
            size: f.size,
            chars: visible,
            bold_chars: if f.bold { visible } else { 0 },
            first_word_x1,
        });
    }

    pub(super) fn finish(self) -> Vec<Line> {
        self.lines
    }
}

/// Where the first whitespace of the fragment falls, by the share of its
/// characters before it.
fn first_space_x(f: &Fragment) -> Option<f64> {
    let total = f.text.chars().count();
    let before = f.text.chars().position(char::is_whitespace)?;
    Some(f.x0 + (f.x1 - f.x0) * before as f64 / total.max(1) as f64)
}

/// The most common font size of running text, weighted by characters.
fn body_size(pages: &[Vec<Line>]) -> f64 {
    let mut weights: HashMap<i64, usize> = HashMap::new();
    for line in pages.iter().flatten().filter(|l| !l.is_table_row()) {
        *weights.entry(bucket(line.size)).or_default() += line.chars;
    }
    weights
        .into_iter()
        .max_by_key(|(size, chars)| (*chars, -*size))
        .map_or(0.0, |(size, _)| size as f64 / 4.0)
}

/// Font sizes rounded to a quarter point.
fn bucket(size: f64) -> i64 {
    (size * 4.0).round() as i64
}

/// Heading levels: the larger sizes rank first, bold body-size text last.
struct HeadingLevels {
    body: f64,
    larger: Vec<i64>,
}

impl HeadingLevels {
    fn new(pages: &[Vec<Line>]) -> Self {
        let body = body_size(pages);
        let mut larger: Vec<i64> = pages
            .iter()
            .flatten()
            .filter(|l| !l.is_table_row() && l.chars <= MAX_HEADING_CHARS)
            .filter(|l| l.size >= body * HEADING_SCALE)
            .map(|l| bucket(l.size))
            .collect();
        larger.sort_unstable_by(|a, b| b.cmp(a));
        larger.dedup();
        HeadingLevels { body, larger }
    }

    /// The heading level of `line`, or `None` for body text.
    fn level(&self, line: &Line) -> Option<u8> {
        if line.is_table_row()
            || line.chars > MAX_HEADING_CHARS
            || !line.text().chars().any(char::is_alphabetic)
        {
            return None;
        }
        let rank = if line.size >= self.body * HEADING_SCALE {
            self.larger.iter().position(|s| *s == bucket(line.size))?
        } else if line.all_bold() && line.size >= self.body * 0.95 {
            self.larger.len()
        } else {
            return None;
        };
        Some(u8::try_from(rank + 1).unwrap_or(6).min(6))
    }
}

/// Where running text ends on the right, from the lines of one page.
fn right_margin(lines: &[Line]) -> f64 {
    let mut ends: Vec<f64> = lines
        .iter()
        .filter(|l| !l.is_table_row())
        .map(|l| l.x1)
        .collect();
    ends.sort_by(f64::total_cmp);
    if ends.len() < 5 {
        return ends.last().copied().unwrap_or(0.0);
    }
    ends[(ends.len() - 1) * 4 / 5]
}

/// The block being built from consecutive lines.
struct Open {
    kind: BlockKind,
    text: String,
    lines: usize,
    /// Its [`Block::depth`].
    depth: u8,
}

/// Joins lines into blocks, one list per page.
pub(super) fn blocks(pages: &[Vec<Line>], title: Option<&str>) -> Vec<Vec<Block>> {
    let levels = HeadingLevels::new(pages);
    let title = title.map(normalize_ws);
    pages
        .iter()
        .map(|lines| page_blocks(lines, &levels, title.as_deref()))
        .collect()
}

fn page_blocks(lines: &[Line], levels: &HeadingLevels, title: Option<&str>) -> Vec<Block> {
    let margin = right_margin(lines);
    let mut out: Vec<Block> = Vec::new();
    let mut open: Option<Open> = None;
    let close = |open: &mut Option<Open>, out: &mut Vec<Block>| {
        if let Some(o) = open.take() {
            let text = normalize_ws(&o.text);
            if !text.is_empty() {
                out.push(Block::nested(o.kind, text, o.depth));
            }
        }
    };
    // Where each list item the next one may be nested in starts on the
    // left, outermost first: an item whose marker stands further right
    // than the last one's is nested in it.
    let mut items: Vec<f64> = Vec::new();
    let mut prev: Option<&Line> = None;
    for (i, line) in lines.iter().enumerate() {
        let text = line.text();
        if text.is_empty() {
            continue;
        }
        let em = line.size.max(f64::EPSILON);
        let near_prev = prev.is_some_and(|p| (p.y - line.y).abs() <= PARAGRAPH_GAP_EM * em);
        let level = if i == 0 && title == Some(text.as_str()) {
            Some(1)
        } else {
            levels.level(line)
        };
        if line.is_table_row() {
            close(&mut open, &mut out);
            items.clear();
            out.push(Block::new(BlockKind::TableRow, text));
        } else if let Some(level) = level {
            close(&mut open, &mut out);
            items.clear();
            // A heading that wraps continues on the next line in the same style.
            match out.last_mut() {
                Some(last)
                    if last.kind == (BlockKind::Heading { level })
                        && near_prev
                        && prev.is_some_and(|p| levels.level(p) == Some(level)) =>
                {
                    last.text.push(' ');
                    last.text.push_str(&text);
                }
                _ => out.push(Block::new(BlockKind::Heading { level }, text)),
            }
        } else if let Some(item) = list_item_text(&text) {
            close(&mut open, &mut out);
            while items.last().is_some_and(|&x| x + INDENT_EM * em >= line.x0) {
                items.pop();
            }
            let depth = u8::try_from(items.len()).unwrap_or(u8::MAX);
            items.push(line.x0);
            open = Some(Open {
                kind: BlockKind::ListItem,
                text: item,
                lines: 1,
                depth,
            });
        } else {
            let continues = match (&open, prev) {
                (Some(o), Some(p)) => near_prev && continues_block(o, p, line, margin),
                _ => false,
            };
            match &mut open {
                Some(o) if continues => {
                    let joins_word = o.text.ends_with('-')
                        && o.text[..o.text.len() - 1].ends_with(char::is_alphanumeric);
                    if !joins_word {
                        o.text.push(' ');
                    }
                    o.text.push_str(&text);
                    o.lines += 1;
                }
                _ => {
                    close(&mut open, &mut out);
                    // A paragraph as far left as the outermost item ends
                    // its list.
                    if items
                        .first()
                        .is_some_and(|&x| line.x0 <= x + INDENT_EM * em)
                    {
                        items.clear();
                    }
                    open = Some(Open {
                        kind: BlockKind::Paragraph,
                        text,
                        lines: 1,
                        depth: 0,
                    });
                }
            }
        }
        prev = Some(line);
    }
    close(&mut open, &mut out);
    out
}

/// Whether `line` continues the open block whose last line is `prev`.
fn continues_block(open: &Open, prev: &Line, line: &Line, margin: f64) -> bool {
    let em = line.size.max(f64::EPSILON);
    // The first line of a block may be indented (paragraph indent) or
    // outdented (a list marker); after that the left edge stays put.
    if open.lines > 1 && (line.x0 - prev.x0).abs() > INDENT_EM * em {
        return false;
    }
    // If the next line's first word would have fitted at the end of the
    // previous line, the previous line ended on purpose.
    let first_word = line.first_word_x1.unwrap_or(line.x1) - line.x0;
    let would_fit = prev.x1 + 0.3 * em + first_word + 0.5 * em < margin;
    !would_fit
}
