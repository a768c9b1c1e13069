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
    /// How many lists (`ul`, `ol`) the walk is inside.
    lists: u8,
    /// The nesting depth of the list item being read ([`Block::depth`]).
    item: u8,
}

impl Walker {
    fn push(&mut self, kind: BlockKind, text: &str) {
        let text = normalize_ws(text);
        if !text.is_empty() {
            let depth = self.depth_of(kind);
            self.blocks.push(Block::nested(kind, text, depth));
        }
    }

    /// The [`Block::depth`] of a block of `kind` read now.
    fn depth_of(&self, kind: BlockKind) -> u8 {
        if kind == BlockKind::ListItem {
            self.item
        } else {
            0
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
                    let depth = self.depth_of(kind);
                    self.blocks.push(Block::nested(kind, text, depth));
                }
            }
            "ul" | "ol" | "menu" => {
                self.lists = self.lists.saturating_add(1);
                self.container(element, kind);
                self.lists -= 1;
            }
            "li" => {
                // An item of the outermost list is 0 deep; the item it is
                // nested in, if any, is read on after it.
                let outer = std::mem::replace(&mut self.item, self.lists.saturating_sub(1));
                self.container(element, BlockKind::ListItem);
                // Its last text is its own, at its own depth.
                self.flush();
                self.item = outer;
            }
            "table" => self.table(element),
            _ => self.container(element, kind),
        }
    }

    /// One block per row; nested tables stay inside their cell's text.
    /// Spanning cells are laid out on the table's grid (a `colspan` cell
    /// fills each column it spans), and the header rows — the first row
    /// when it has a `th` cell, with the rows its cells' `rowspan` reach —
    /// become one header row whose cells join each column's headings top
    /// down ("Occupied" over "Heating" is "Occupied Heating"), so that every
    /// body row lines up with a header saying what its values are.
    fn table(&mut self, table: ElementRef<'_>) {
        let mut rows: Vec<Vec<Cell>> = Vec::new();
        for child in table.children().filter_map(ElementRef::wrap) {
            match child.value().name() {
                "tr" => rows.push(cells(child)),
                "thead" | "tbody" | "tfoot" => {
                    for row in child.children().filter_map(ElementRef::wrap) {
                        if row.value().name() == "tr" {
                            rows.push(cells(row));
                        }
                    }
                }
                "caption" => self.push(BlockKind::Paragraph, &inline_string(child)),
                _ => {}
            }
        }
        for row in grid_rows(&rows) {
            if row.iter().any(|c| !c.is_empty()) {
                self.blocks
                    .push(Block::new(BlockKind::TableRow, row.join(" | ")));
            }
        }
    }
}

/// A table cell: its text, its spans and whether it is a heading cell.
struct Cell {
    text: String,
    cols: usize,
    rows: usize,
    heading: bool,
}

/// The `td` and `th` cells of a row.
fn cells(row: ElementRef<'_>) -> Vec<Cell> {
    let span = |c: &ElementRef<'_>, name: &str| {
        c.value()
            .attr(name)
            .and_then(|v| v.trim().parse::<usize>().ok())
            .map_or(1, |n| n.clamp(1, MAX_SPAN))
    };
    row.children()
        .filter_map(ElementRef::wrap)
        .filter(|c| matches!(c.value().name(), "td" | "th"))
        .map(|c| Cell {
            text: inline_string(c),
            cols: span(&c, "colspan"),
            rows: span(&c, "rowspan"),
            heading: c.value().name() == "th",
        })
        .collect()
}

/// The most columns or rows one cell may span (a hostile `colspan` must
/// not allocate without bound).
const MAX_SPAN: usize = 64;

/// The rows of a table laid out on its grid, the header rows joined into
/// one (see [`Walker::table`]); rows without any spanning cell and without
/// a header come out as their non-empty cells.
fn grid_rows(rows: &[Vec<Cell>]) -> Vec<Vec<String>> {
    let spans = rows.iter().flatten().any(|c| c.cols > 1 || c.rows > 1);
    if !spans {
        return rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| c.text.clone())
                    .filter(|t| !t.is_empty())
                    .collect()
            })
            .collect();
    }
    // Lay the cells out: a cell fills its columns in its rows; a later
    // row's cells skip the columns a rowspan above already fills.
    let mut grid: Vec<Vec<Option<String>>> = vec![Vec::new(); rows.len()];
    let mut header_rows = 0;
    for (r, row) in rows.iter().enumerate() {
        let mut col = 0;
        for cell in row {
            while grid[r].get(col).is_some_and(Option::is_some) {
                col += 1;
            }
            let last_row = (r + cell.rows).min(rows.len());
            for line in &mut grid[r..last_row] {
                if line.len() < col + cell.cols {
                    line.resize(col + cell.cols, None);
                }
                for slot in &mut line[col..col + cell.cols] {
                    *slot = Some(cell.text.clone());
                }
            }
            let in_header = if r == 0 {
                row.iter().any(|c| c.heading)
            } else {
                r < header_rows
            };
            if in_header {
                header_rows = header_rows.max(last_row);
            }
            col += cell.cols;
        }
    }
    let width = grid.iter().map(Vec::len).max().unwrap_or(0);
    let text = |slot: &Option<String>| slot.clone().unwrap_or_default();
    let mut out: Vec<Vec<String>> = Vec::new();
    if header_rows > 0 {
        let header = (0..width)
            .map(|c| {
                let mut parts: Vec<String> = Vec::new();
                for line in &grid[..header_rows] {
                    let t = line.get(c).map(text).unwrap_or_default();
                    if !t.is_empty() && parts.last() != Some(&t) {
                        parts.push(t);
                    }
                }
                parts.join(" ")
            })
            .collect();
        out.push(header);
    }
    for line in &grid[header_rows..] {
        out.push(
            (0..width)
                .map(|c| line.get(c).map(text).unwrap_or_default())
                .collect(),
        );
    }
    out
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

    #[test]
    fn a_nested_list_item_is_one_deeper_than_the_item_it_is_in() {
        let html = "<ul><li>Heating demand limit setpoint adjustment. Not cumulative.\
            <ul><li>At Level 1, decrease by 1 °F.</li><li>At Level 3, decrease by 4 °F.\
            <ol><li>Deeper.</li></ol></li></ul>Said after the list.</li>\
            <li>Window switches.</li></ul><ul><ul><li>Loose</li></ul></ul><p>After.</p>";
        let doc = extract(Path::new("page.html"), html.as_bytes()).unwrap();
        let read: Vec<(&str, u8)> = doc.pages[0]
            .blocks
            .iter()
            .map(|b| (b.text.as_str(), b.depth))
            .collect();
        assert_eq!(
            read,
            [
                (
                    "Heating demand limit setpoint adjustment. Not cumulative.",
                    0
                ),
                ("At Level 1, decrease by 1 °F.", 1),
                ("At Level 3, decrease by 4 °F.", 1),
                ("Deeper.", 2),
                ("Said after the list.", 0),
                ("Window switches.", 0),
                ("Loose", 1),
                ("After.", 0),
            ]
        );
    }

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

    /// Spanning header cells join into one header row over the grid's
    /// columns ("Occupied" over "Heating"); a body row lines up with it.
    #[test]
    fn spanning_headers_become_one_header_row() {
        let got = blocks(
            r#"<table><tr><th rowspan="2">Zone Type</th><th colspan="2">Occupied</th>
               <th colspan="2">Unoccupied</th></tr>
               <tr><td>Heating</td><td>Cooling</td><td>Heating</td><td>Cooling</td></tr>
               <tr><td>VAV</td><td>21 &deg;C</td><td>24 &deg;C</td><td>16 &deg;C</td><td>32 &deg;C</td></tr>
               <tr><td colspan="2">Both</td><td>x</td><td></td><td>y</td></tr></table>
               <table><tr><td colspan="99999999">wide</td></tr></table>"#,
        );
        let rows: Vec<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            rows[0],
            "Zone Type | Occupied Heating | Occupied Cooling | Unoccupied Heating | Unoccupied Cooling"
        );
        assert_eq!(rows[1], "VAV | 21 °C | 24 °C | 16 °C | 32 °C");
        assert_eq!(rows[2], "Both | Both | x |  | y");
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[3].matches("wide").count(), super::MAX_SPAN);
        assert_eq!(
            crate::text::quotable(&rows.join("\n"))[0],
            "Zone Type: VAV; Occupied Heating: 21 °C; Occupied Cooling: 24 °C; Unoccupied Heating: 16 °C; Unoccupied Cooling: 32 °C"
        );
    }

    #[test]
    fn title_falls_back_to_first_h1_then_file_name() {
        let doc = extract(Path::new("x.html"), b"<h2>Intro</h2><h1>Chiller plant</h1>").unwrap();
        assert_eq!(doc.title.as_deref(), Some("Chiller plant"));
        let doc = extract(Path::new("dir/vav-notes.htm"), b"<p>Only text</p>").unwrap();
        assert_eq!(doc.title.as_deref(), Some("vav-notes"));
    }
}
