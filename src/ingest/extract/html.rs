//! HTML → blocks, with scraper (html5ever): the document is walked in
//! order; headings, paragraphs, list items and table rows become blocks, and
//! inline content outside them (text directly in a `div`) becomes paragraphs.

use super::{Block, BlockKind, Extracted, Page, normalize_ws};
use scraper::{ElementRef, Html, Node};

/// Elements whose content is never document text.
const SKIPPED: &[&str] = &[
    "head", "script", "style", "nav", "noscript", "template", "svg", "math", "iframe", "object",
    "canvas", "select", "button",
];

/// Elements that flow inside a line of text.
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font", "i",
    "ins", "kbd", "label", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub",
    "sup", "time", "tt", "u", "var", "wbr",
];

pub(super) fn extract(text: &str) -> Extracted {
    let doc = Html::parse_document(text);
    let mut walker = Walker::default();
    walker.container(doc.root_element(), BlockKind::Paragraph);
    walker.flush();
    let title = doc
        .root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().name() == "title")
        .map(|e| normalize_ws(&e.text().collect::<String>()))
        .filter(|t| !t.is_empty())
        .or_else(|| {
            walker.blocks.iter().find_map(|b| match b.kind {
                BlockKind::Heading { level: 1 } => Some(b.text.clone()),
                _ => None,
            })
        });
    Extracted {
        title,
        pages: vec![Page {
            label: "1".into(),
            blocks: walker.blocks,
        }],
    }
}

#[derive(Default)]
struct Walker {
    blocks: Vec<Block>,
    /// Inline text waiting for the next block boundary, and its kind.
    pending: String,
    pending_kind: Option<BlockKind>,
}

impl Walker {
    fn push(&mut self, kind: BlockKind, text: &str) {
        let text = normalize_ws(text);
        if !text.is_empty() {
            self.blocks.push(Block::new(kind, text));
        }
    }

    fn flush(&mut self) {
        let text = std::mem::take(&mut self.pending);
        let kind = self.pending_kind.take().unwrap_or(BlockKind::Paragraph);
        self.push(kind, &text);
    }

    /// Walks the children of a block container. Inline content collects
    /// into a block of `kind` (a paragraph, or a list item inside `li`).
    fn container(&mut self, element: ElementRef<'_>, kind: BlockKind) {
        for child in element.children() {
            match child.value() {
                Node::Text(text) => {
                    self.pending_kind.get_or_insert(kind);
                    self.pending.push_str(text);
                }
                Node::Element(el) => {
                    let Some(child) = ElementRef::wrap(child) else {
                        continue;
                    };
                    let name = el.name();
                    if SKIPPED.contains(&name) {
                        continue;
                    }
                    if INLINE.contains(&name) || name == "br" || name == "img" {
                        self.pending_kind.get_or_insert(kind);
                        inline_text(child, &mut self.pending);
                        continue;
                    }
                    self.flush();
                    self.block(child, name, kind);
                    self.flush();
                }
                _ => {}
            }
        }
    }

    fn block(&mut self, element: ElementRef<'_>, name: &str, kind: BlockKind) {
        match name {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let level = name[1..].parse().unwrap_or(6);
                self.push(BlockKind::Heading { level }, &inline_string(element));
            }
            "p" | "dt" | "dd" | "caption" | "figcaption" | "summary" | "address" => {
                // Inside a list item a paragraph is part of the item.
                self.push(kind, &inline_string(element));
            }
            "pre" => {
                let text: String = element.text().collect();
                let text = text.trim_matches('\n').trim_end();
                if !text.trim().is_empty() {
                    self.blocks.push(Block::new(kind, text));
                }
            }
            "li" => self.container(element, BlockKind::ListItem),
            "table" => self.table(element),
            _ => self.container(element, kind),
        }
    }

    /// One block per row; nested tables stay inside their cell's text.
    fn table(&mut self, table: ElementRef<'_>) {
        for child in table.children().filter_map(ElementRef::wrap) {
            match child.value().name() {
                "tr" => self.row(child),
                "thead" | "tbody" | "tfoot" => {
                    for row in child.children().filter_map(ElementRef::wrap) {
                        if row.value().name() == "tr" {
                            self.row(row);
                        }
                    }
                }
                "caption" => self.push(BlockKind::Paragraph, &inline_string(child)),
                _ => {}
            }
        }
    }

    fn row(&mut self, row: ElementRef<'_>) {
        let cells: Vec<String> = row
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| matches!(c.value().name(), "td" | "th"))
            .map(inline_string)
            .filter(|c| !c.is_empty())
            .collect();
        if !cells.is_empty() {
            self.blocks
                .push(Block::new(BlockKind::TableRow, cells.join(" | ")));
        }
    }
}

/// The text of an element, whitespace-normalised.
fn inline_string(element: ElementRef<'_>) -> String {
    let mut out = String::new();
    inline_text(element, &mut out);
    normalize_ws(&out)
}

/// Appends the text under `element`, with a space for line breaks and
/// block boundaries, skipping scripts and styles.
fn inline_text(element: ElementRef<'_>, out: &mut String) {
    match element.value().name() {
        "br" => out.push(' '),
        "img" => {
            if let Some(alt) = element.value().attr("alt") {
                out.push(' ');
                out.push_str(alt);
                out.push(' ');
            }
        }
        _ => {
            for child in element.children() {
                match child.value() {
                    Node::Text(text) => out.push_str(text),
                    Node::Element(el) if !SKIPPED.contains(&el.name()) => {
                        if let Some(child) = ElementRef::wrap(child) {
                            let inline = INLINE.contains(&el.name());
                            if !inline {
                                out.push(' ');
                            }
                            inline_text(child, out);
                            if !inline {
                                out.push(' ');
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ingest::extract::{BlockKind, extract};
    use std::path::Path;

    fn blocks(html: &str) -> Vec<(BlockKind, String)> {
        let doc = extract(Path::new("page.html"), html.as_bytes()).unwrap();
        doc.pages[0]
            .blocks
            .iter()
            .map(|b| (b.kind, b.text.clone()))
            .collect()
    }

    #[test]
    fn blocks_in_document_order() {
        let html = r#"<!DOCTYPE html><html><head><title> AHU-2 
            sequence </title><style>p{color:red}</style></head><body>
            <nav><a href="/">Home</a></nav>
            <h1>Sequence of Operations</h1>
            <p>The <code>AHU-2</code> supply fan<br>starts first.</p>
            <h2>Supply fan</h2>
            <ul><li>Prove airflow<ul><li>within 30 s</li></ul></li><li><p>Then open dampers</p></li></ul>
            <table border="1"><tr><th>Mode</th><th>Setpoint</th></tr>
              <tr><td>Occupied</td><td>55 &deg;F</td></tr></table>
            <div>Loose text in a div <em>with emphasis</em></div>
            <pre>if x &gt; 1:
    y = 2</pre>
            <script>var secret = "no";</script>
            </body></html>"#;
        let doc = extract(Path::new("page.html"), html.as_bytes()).unwrap();
        assert_eq!(doc.title.as_deref(), Some("AHU-2 sequence"));
        let expected = [
            (BlockKind::Heading { level: 1 }, "Sequence of Operations"),
            (BlockKind::Paragraph, "The AHU-2 supply fan starts first."),
            (BlockKind::Heading { level: 2 }, "Supply fan"),
            (BlockKind::ListItem, "Prove airflow"),
            (BlockKind::ListItem, "within 30 s"),
            (BlockKind::ListItem, "Then open dampers"),
            (BlockKind::TableRow, "Mode | Setpoint"),
            (BlockKind::TableRow, "Occupied | 55 °F"),
            (BlockKind::Paragraph, "Loose text in a div with emphasis"),
            (BlockKind::Paragraph, "if x > 1:\n    y = 2"),
        ];
        let got = blocks(html);
        let got: Vec<_> = got.iter().map(|(k, t)| (*k, t.as_str())).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn every_g36_page_has_a_title_headings_and_paragraphs() {
        let Some(dir) = crate::test_data::shared_data("docs/g36") else {
            return;
        };
        let entries = std::fs::read_dir(&dir).unwrap();
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        assert_eq!(files.len(), 65);
        let mut rows = 0;
        for path in &files {
            let bytes = std::fs::read(path).unwrap();
            let doc = extract(path, &bytes).unwrap_or_else(|e| panic!("{e}"));
            let name = path.display();
            let title = doc.title.as_deref().unwrap_or_default();
            assert!(title.starts_with("G36 "), "{name}: {title}");
            let blocks = &doc.pages[0].blocks;
            assert_eq!(blocks[0].kind, BlockKind::Heading { level: 1 }, "{name}");
            assert_eq!(blocks[0].text, title, "{name}");
            assert!(
                blocks.iter().any(|b| b.kind == BlockKind::Paragraph),
                "{name}"
            );
            assert!(blocks.iter().all(|b| !b.text.trim().is_empty()), "{name}");
            rows += blocks
                .iter()
                .filter(|b| b.kind == BlockKind::TableRow)
                .count();
        }
        assert!(rows > 20, "{rows} table rows");
    }

    #[test]
    fn title_falls_back_to_first_h1_then_file_name() {
        let doc = extract(Path::new("x.html"), b"<h2>Intro</h2><h1>Chiller plant</h1>").unwrap();
        assert_eq!(doc.title.as_deref(), Some("Chiller plant"));
        let doc = extract(Path::new("dir/vav-notes.htm"), b"<p>Only text</p>").unwrap();
        assert_eq!(doc.title.as_deref(), Some("vav-notes"));
    }
}
