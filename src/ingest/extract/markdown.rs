//! Markdown → blocks: ATX (`#`) and setext headings, paragraphs separated by
//! blank lines, list items, table rows (`|` lines) and fenced code (kept as
//! one paragraph). Inline markup (emphasis, code spans, links) is reduced to
//! its text. YAML front matter is skipped; its `title:` is used as the title
//! when the document has no level-1 heading.

use super::{Block, BlockKind, Extracted, Page, list_item_text, normalize_ws};

pub(super) fn extract(text: &str) -> Extracted {
    let (front_title, body) = front_matter(text);
    let mut blocks = Vec::new();
    // The block being read, with its depth ([`Block::depth`]), and the
    // indentation of each list item it is nested in, outermost first.
    let mut open: Option<(BlockKind, String, u8)> = None;
    let mut items: Vec<usize> = Vec::new();
    let mut lines = body.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim();
        if let Some(fence) = fence(trimmed) {
            close(&mut open, &mut blocks);
            let mut code = Vec::new();
            for line in lines.by_ref() {
                if line.trim_start().starts_with(fence) {
                    break;
                }
                code.push(line);
            }
            let code = code.join("\n");
            if !code.trim().is_empty() {
                blocks.push(Block::new(BlockKind::Paragraph, code.trim_end()));
            }
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with("<!--") {
            close(&mut open, &mut blocks);
            continue;
        }
        if let Some((level, heading)) = atx_heading(line) {
            close(&mut open, &mut blocks);
            items.clear();
            push(&mut blocks, BlockKind::Heading { level }, &heading);
            continue;
        }
        // Setext: a paragraph line underlined with === or ---.
        if let Some((BlockKind::Paragraph, para, _)) = &open
            && !para.contains('\n')
            && !trimmed.is_empty()
            && (trimmed.chars().all(|c| c == '=') || trimmed.chars().all(|c| c == '-'))
        {
            let level = if trimmed.starts_with('=') { 1 } else { 2 };
            let heading = para.clone();
            open = None;
            push(&mut blocks, BlockKind::Heading { level }, &heading);
            continue;
        }
        if is_rule(trimmed) {
            close(&mut open, &mut blocks);
            continue;
        }
        if trimmed.starts_with('|') {
            close(&mut open, &mut blocks);
            if let Some(row) = table_row(trimmed) {
                push(&mut blocks, BlockKind::TableRow, &row);
            }
            continue;
        }
        let quoted = trimmed.trim_start_matches('>').trim_start();
        if let Some(item) = list_item_text(quoted) {
            close(&mut open, &mut blocks);
            // An item indented past the items before it is nested in the
            // last of them.
            let indent = indentation(line);
            while items.last().is_some_and(|&i| i >= indent) {
                items.pop();
            }
            let depth = u8::try_from(items.len()).unwrap_or(u8::MAX);
            items.push(indent);
            open = Some((BlockKind::ListItem, item, depth));
            continue;
        }
        match &mut open {
            Some((_, text, _)) => {
                // '\n' marks a continuation line, so setext needs one line.
                text.push('\n');
                text.push_str(quoted);
            }
            None => {
                items.clear();
                open = Some((BlockKind::Paragraph, quoted.to_owned(), 0));
            }
        }
    }
    close(&mut open, &mut blocks);
    let title = blocks
        .iter()
        .find(|b| b.kind == BlockKind::Heading { level: 1 })
        .map(|b| b.text.clone())
        .or(front_title)
        .or_else(|| {
            blocks
                .iter()
                .find(|b| matches!(b.kind, BlockKind::Heading { .. }))
                .map(|b| b.text.clone())
        });
    Extracted {
        title,
        pages: vec![Page {
            label: "1".into(),
            blocks,
        }],
    }
}

fn push(blocks: &mut Vec<Block>, kind: BlockKind, text: &str) {
    push_nested(blocks, kind, text, 0);
}

fn push_nested(blocks: &mut Vec<Block>, kind: BlockKind, text: &str, depth: u8) {
    let text = normalize_ws(&inline(text));
    if !text.is_empty() {
        blocks.push(Block::nested(kind, text, depth));
    }
}

fn close(open: &mut Option<(BlockKind, String, u8)>, blocks: &mut Vec<Block>) {
    if let Some((kind, text, depth)) = open.take() {
        push_nested(blocks, kind, &text, depth);
    }
}

/// The columns of white space a line opens with, a tab as four.
fn indentation(line: &str) -> usize {
    line.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// The `title:` of YAML front matter, and the text after it.
fn front_matter(text: &str) -> (Option<String>, &str) {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text);
    };
    let Some(end) = rest.find("\n---") else {
        return (None, text);
    };
    let title = rest[..end].lines().find_map(|l| {
        let value = l.strip_prefix("title:")?.trim().trim_matches(['"', '\'']);
        (!value.is_empty()).then(|| value.to_owned())
    });
    let after = &rest[end + 4..];
    (title, after.split_once('\n').map_or("", |(_, body)| body))
}

/// The fence string when `line` opens a fenced code block.
fn fence(line: &str) -> Option<&'static str> {
    if line.starts_with("```") {
        Some("```")
    } else if line.starts_with("~~~") {
        Some("~~~")
    } else {
        None
    }
}

/// `# Heading` (up to three spaces of indentation, closing `#`s dropped).
fn atx_heading(line: &str) -> Option<(u8, String)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let line = line.trim();
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim_end();
    Some((u8::try_from(hashes).unwrap_or(6), text.to_owned()))
}

/// `---`, `***` or `___` alone on a line.
fn is_rule(line: &str) -> bool {
    let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    compact.len() >= 3
        && ['-', '*', '_']
            .iter()
            .any(|m| compact.chars().all(|c| c == *m))
}

/// A table line as cells joined with `" | "`; `None` for the `|---|` rule.
fn table_row(line: &str) -> Option<String> {
    let inner = line.trim_start_matches('|').trim_end_matches('|');
    if inner
        .chars()
        .all(|c| matches!(c, '-' | ':' | '|' | ' ' | '\t'))
    {
        return None;
    }
    let cells: Vec<String> = inner
        .split('|')
        .map(|c| normalize_ws(&inline(c)))
        .filter(|c| !c.is_empty())
        .collect();
    (!cells.is_empty()).then(|| cells.join(" | "))
}

/// Inline markup reduced to its text: `[text](url)` and `![alt](url)` keep
/// the text, `**`, `__` and backticks go.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let (before, after) = rest.split_at(open);
        out.push_str(before.strip_suffix('!').unwrap_or(before));
        let link = after[1..].split_once("](").and_then(|(label, tail)| {
            let close = tail.find(')')?;
            (!label.contains('[')).then_some((label, &tail[close + 1..]))
        });
        match link {
            Some((label, tail)) => {
                out.push_str(label);
                rest = tail;
            }
            None => {
                if before.ends_with('!') {
                    out.push('!');
                }
                out.push('[');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out.replace("**", "").replace("__", "").replace('`', "")
}

#[cfg(test)]
mod tests {
    use crate::ingest::extract::{BlockKind, extract};
    use std::path::Path;

    #[test]
    fn an_indented_list_item_is_nested_in_the_item_above_it() {
        let md = "## Demand limit\n\n- Heating adjustment. Not cumulative.\n  - Level 1: 1 °F.\n    1. Deeper.\n  - Level 3: 4 °F.\n- Window switches.\n\nAfter.\n\n  - Alone\n";
        let doc = extract(Path::new("seq.md"), md.as_bytes()).unwrap();
        let got: Vec<_> = doc.pages[0]
            .blocks
            .iter()
            .map(|b| (b.text.as_str(), b.depth))
            .collect();
        assert_eq!(
            got,
            [
                ("Demand limit", 0),
                ("Heating adjustment. Not cumulative.", 0),
                ("Level 1: 1 °F.", 1),
                ("1. Deeper.", 2),
                ("Level 3: 4 °F.", 1),
                ("Window switches.", 0),
                ("After.", 0),
                ("Alone", 0),
            ]
        );
    }

    #[test]
    fn markdown_blocks() {
        let md = "---\ntitle: Front title\n---\n# AHU-2 Sequence of Operations\n\nThe **supply fan**\nstarts when the `AHU-2` is enabled.\nSee [the manual](http://x/y.pdf).\n\n## Supply fan\n\n- Prove airflow\n  within 30 s\n* Open dampers\n1. Numbered step\n\n| Mode | SAT |\n|------|-----|\n| Occupied | 55 °F |\n\n```text\nif fan:\n    run()\n```\n\nSetext heading\n--------------\n\n> quoted text\n\n***\n";
        let doc = extract(Path::new("seq.md"), md.as_bytes()).unwrap();
        assert_eq!(doc.title.as_deref(), Some("AHU-2 Sequence of Operations"));
        let got: Vec<_> = doc.pages[0]
            .blocks
            .iter()
            .map(|b| (b.kind, b.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    BlockKind::Heading { level: 1 },
                    "AHU-2 Sequence of Operations"
                ),
                (
                    BlockKind::Paragraph,
                    "The supply fan starts when the AHU-2 is enabled. See the manual."
                ),
                (BlockKind::Heading { level: 2 }, "Supply fan"),
                (BlockKind::ListItem, "Prove airflow within 30 s"),
                (BlockKind::ListItem, "Open dampers"),
                (BlockKind::ListItem, "1. Numbered step"),
                (BlockKind::TableRow, "Mode | SAT"),
                (BlockKind::TableRow, "Occupied | 55 °F"),
                (BlockKind::Paragraph, "if fan:\n    run()"),
                (BlockKind::Heading { level: 2 }, "Setext heading"),
                (BlockKind::Paragraph, "quoted text"),
            ]
        );
    }

    #[test]
    fn title_from_front_matter_or_file_name() {
        let doc = extract(Path::new("a.md"), b"---\ntitle: \"O&M notes\"\n---\nText\n").unwrap();
        assert_eq!(doc.title.as_deref(), Some("O&M notes"));
        let doc = extract(Path::new("notes/yk-200.markdown"), b"Just text.\n").unwrap();
        assert_eq!(doc.title.as_deref(), Some("yk-200"));
    }
}
