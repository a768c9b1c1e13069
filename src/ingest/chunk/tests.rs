//! Chunking with the real model tokenizer, on synthetic and real documents.

use super::*;
use crate::ingest::extract::{Block, Page, extract};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

/// The model tokenizer from the asset cache; panics with what to run when
/// it is missing.
fn counter() -> &'static TokenCounter {
    static COUNTER: OnceLock<TokenCounter> = OnceLock::new();
    COUNTER.get_or_init(|| {
        let dir = std::env::var_os("DAEMONIQ_ASSETS")
            .map(PathBuf::from)
            .unwrap_or_else(crate::config::default_assets_dir);
        TokenCounter::from_assets(&Assets::new(dir)).unwrap_or_else(|e| panic!("{e}"))
    })
}

fn doc(pages: Vec<(&str, Vec<Block>)>) -> Extracted {
    Extracted {
        title: Some("Test document".into()),
        pages: pages
            .into_iter()
            .map(|(label, blocks)| Page {
                label: label.into(),
                blocks,
            })
            .collect(),
    }
}

fn para(text: &str) -> Block {
    Block::new(BlockKind::Paragraph, text)
}

fn heading(level: u8, text: &str) -> Block {
    Block::new(BlockKind::Heading { level }, text)
}

/// How many leading words of `next` repeat the trailing words of `prev`.
fn overlap_words(prev: &str, next: &str) -> usize {
    let prev: Vec<&str> = prev.split_whitespace().collect();
    let next: Vec<&str> = next.split_whitespace().collect();
    (1..=prev.len().min(next.len()))
        .rev()
        .find(|&k| prev[prev.len() - k..] == next[..k])
        .unwrap_or(0)
}

/// Every chunk fits, indexes run 0..n, and each chunk after the first
/// repeats the end of the one before; returns the words without overlap.
fn check_split(chunks: &[Chunk], max: usize, min_overlap_words: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for (i, chunk) in chunks.iter().enumerate() {
        assert_eq!(chunk.chunk_index, i);
        let n = counter().count(&chunk.text);
        assert!(n <= max, "chunk {i} has {n} tokens");
        assert_eq!(n, chunk.token_count);
        let skip = if i == 0 {
            0
        } else {
            let k = overlap_words(&chunks[i - 1].text, &chunk.text);
            assert!(k >= min_overlap_words, "chunk {i} overlaps by {k} words");
            k
        };
        words.extend(chunk.text.split_whitespace().skip(skip).map(str::to_owned));
    }
    words
}

#[test]
fn counts_match_the_model_tokenizer() {
    let c = counter();
    assert_eq!(c.special_tokens(), 2);
    assert_eq!(c.count(""), 2);
    // The reference figure from the model's research notes.
    assert_eq!(
        c.count("The supply fan speed is reset by trim and respond."),
        13
    );
    // Neither padded nor truncated to the file's 128.
    assert_eq!(c.count("fan"), 3);
    assert_eq!(c.count(&"fan ".repeat(300)), 302);
}

#[test]
fn missing_tokenizer_says_what_to_run() {
    let err = TokenCounter::from_model_dir(Path::new("/nonexistent/model")).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("scripts/setup.sh") && msg.contains("tokenizer.json"),
        "{msg}"
    );
}

#[test]
fn a_2000_word_paragraph_splits_at_sentences_with_overlap() {
    let sentences: Vec<String> = (0..200)
        .map(|i| {
            format!("Damper d{i} modulates between p{i} and q{i} while fan f{i} holds pressure.")
        })
        .collect();
    let text = sentences.join(" ");
    assert!(text.split_whitespace().count() >= 2000);
    let opts = ChunkOptions::default();
    let chunks = chunk(&doc(vec![("1", vec![para(&text)])]), counter(), &opts);
    assert!(chunks.len() >= 8, "{} chunks", chunks.len());
    let words = check_split(&chunks, 256, 5);
    assert_eq!(words.join(" "), text, "nothing lost, nothing repeated");
    for (i, c) in chunks.iter().enumerate() {
        // Cut at sentence ends, and the overlap is whole sentences.
        assert!(c.text.ends_with('.'), "chunk {i} ends mid-sentence");
        assert!(
            c.text.starts_with("Damper"),
            "chunk {i} starts mid-sentence"
        );
        assert_eq!(c.section_title, "Test document");
        assert_eq!(c.page_label, "1");
        if i > 0 {
            let prev = &chunks[i - 1].text;
            let k = overlap_words(prev, &c.text);
            let shared: Vec<&str> = c.text.split_whitespace().take(k).collect();
            assert!(counter().count(&shared.join(" ")) - 2 <= opts.overlap_tokens);
        }
    }
}

#[test]
fn a_sentence_longer_than_the_window_splits_at_words() {
    let text: Vec<String> = (0..2000).map(|i| format!("valve{i}")).collect();
    let text = text.join(" ");
    let chunks = chunk(
        &doc(vec![("7", vec![para(&text)])]),
        counter(),
        &ChunkOptions::default(),
    );
    assert!(chunks.len() > 10);
    let words = check_split(&chunks, 256, 3);
    assert_eq!(words.join(" "), text);
    assert!(chunks.iter().all(|c| c.page_label == "7"));
}

#[test]
fn a_word_longer_than_the_window_splits_at_characters() {
    // One 98-character "word" of dozens of word pieces. (BERT's WordPiece
    // turns a word over 100 characters into a single [UNK], which fits.)
    let word: String = (0..49).map(|i| format!("{}x", i % 10)).collect();
    assert!(counter().count(&word) > 16);
    let opts = ChunkOptions {
        max_tokens: 16,
        overlap_tokens: 0,
    };
    let chunks = chunk(&doc(vec![("1", vec![para(&word)])]), counter(), &opts);
    assert!(chunks.len() > 1);
    let rebuilt: String = chunks.iter().map(|c| c.text.replace(' ', "")).collect();
    assert_eq!(rebuilt, word);
    assert!(chunks.iter().all(|c| counter().count(&c.text) <= 16));
}

#[test]
fn headings_start_chunks_and_chunks_stay_on_their_page() {
    let long: Vec<String> = (0..60)
        .map(|i| format!("Step {i} checks the zone temperature sensor."))
        .collect();
    let long = long.join(" ");
    let d = doc(vec![
        (
            "i",
            vec![
                heading(1, "Sequence of Operations"),
                heading(2, "Supply fan"),
                para("The supply fan starts."),
                para("It proves airflow."),
                heading(2, "Dampers"),
                para(&long),
            ],
        ),
        (
            "ii",
            vec![
                para("Continued on the next page."),
                heading(3, "Minimum position"),
                Block::new(BlockKind::TableRow, "Mode | Position"),
                Block::new(BlockKind::ListItem, "Open fully"),
                heading(1, "Alarms"),
            ],
        ),
    ]);
    let chunks = chunk(&d, counter(), &ChunkOptions::default());
    let summary: Vec<(&str, &str)> = chunks
        .iter()
        .map(|c| (c.section_title.as_str(), c.page_label.as_str()))
        .collect();
    assert_eq!(summary[0], ("Sequence of Operations > Supply fan", "i"));
    assert_eq!(
        chunks[0].text,
        "Sequence of Operations\nSupply fan\nThe supply fan starts.\nIt proves airflow."
    );
    let dampers: Vec<&Chunk> = chunks
        .iter()
        .filter(|c| c.section_title == "Sequence of Operations > Dampers")
        .collect();
    assert!(dampers.len() >= 3, "{summary:?}");
    assert!(dampers[0].text.starts_with("Dampers\nStep 0 "));
    assert_eq!(dampers.last().unwrap().page_label, "ii");
    assert_eq!(
        dampers.last().unwrap().text,
        "Continued on the next page.",
        "a new page starts a new chunk, without overlap from the previous page"
    );
    let last = chunks.last().unwrap();
    assert_eq!(
        last.section_title,
        "Sequence of Operations > Dampers > Minimum position"
    );
    assert_eq!(last.text, "Minimum position\nMode | Position\nOpen fully");
    assert_eq!(last.page_label, "ii");
    // The trailing heading has no text, so it makes no chunk.
    assert!(chunks.iter().all(|c| c.section_title != "Alarms"));
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(c.chunk_index, i);
    }
}

/// A table longer than a chunk: every chunk that begins inside it begins
/// with its caption and header row, so each row is quoted under the
/// table's title and its columns' names (`text::quotable`); a table whose
/// first row is data has no header to repeat, and the chunks stay within
/// the window.
#[test]
fn a_nested_list_item_is_indented_under_the_item_it_is_in() {
    let item = |text: &str, depth: u8| Block::nested(BlockKind::ListItem, text, depth);
    let d = doc(vec![(
        "1",
        vec![
            heading(1, "Setpoints"),
            item(
                "Heating demand limit setpoint adjustment. Not cumulative.",
                0,
            ),
            item(
                "At Demand Limit Level 3, decrease setpoint by 2 °C (4 °F).",
                1,
            ),
            item("Deeper still.", 2),
            item("Window switches.", 0),
        ],
    )]);
    let chunks = chunk(&d, counter(), &ChunkOptions::default());
    assert_eq!(chunks.len(), 1);
    assert_eq!(
        chunks[0].text,
        "Setpoints\nHeating demand limit setpoint adjustment. Not cumulative.\n  At Demand \
         Limit Level 3, decrease setpoint by 2 °C (4 °F).\n    Deeper still.\nWindow switches."
    );
}

#[test]
fn a_long_table_repeats_its_header_in_every_chunk() {
    let header = "Space type | Box type | Vcool-max | Vmin | Boxes";
    let rows: Vec<String> = (1..=40)
        .map(|i| {
            format!(
                "Office {i}, perimeter | YVR-3100 reheat | {} cfm | {} cfm | VAV-1-{i:02}",
                400 + 10 * i,
                120 + 3 * i
            )
        })
        .collect();
    let mut blocks = vec![
        heading(2, "Airflow setpoints"),
        para("The balancer sets these."),
    ];
    blocks.push(Block::new(BlockKind::TableRow, header));
    blocks.extend(rows.iter().map(|r| Block::new(BlockKind::TableRow, r)));
    blocks.push(para("Vmin is never below 100 cfm."));
    let opts = ChunkOptions {
        max_tokens: 128,
        overlap_tokens: 24,
    };
    let chunks = chunk(&doc(vec![("1", blocks)]), counter(), &opts);
    assert!(chunks.len() >= 3, "{chunks:#?}");
    let with_rows: Vec<&Chunk> = chunks
        .iter()
        .filter(|c| c.text.contains("VAV-1-"))
        .collect();
    for c in &with_rows {
        assert_eq!(c.text.matches(header).count(), 1, "{}", c.text);
        assert!(c.token_count <= 128);
        // Every row of the chunk is quoted under the caption and the
        // header's names.
        for q in crate::text::quotable(&c.text)
            .iter()
            .filter(|q| q.contains("VAV-1-"))
        {
            assert!(
                q.starts_with("The balancer sets these: Space type: Office"),
                "{q}"
            );
            assert!(q.contains("; Vmin: "), "{q}");
        }
    }
    // Every row is in some chunk, and the header opens each continuation.
    for r in &rows {
        assert!(with_rows.iter().any(|c| c.text.contains(r.as_str())), "{r}");
    }
    for c in &with_rows[1..] {
        assert!(
            c.text
                .starts_with(&format!("The balancer sets these.\n{header}\n")),
            "{}",
            c.text
        );
    }
    // A long paragraph before the table is no caption: the header alone
    // opens the continuations.
    let long = "The test and balance contractor set every box on the campus to the airflows listed below this paragraph.";
    let mut blocks = vec![para(long), Block::new(BlockKind::TableRow, header)];
    blocks.extend(rows.iter().map(|r| Block::new(BlockKind::TableRow, r)));
    let chunks = chunk(&doc(vec![("1", blocks)]), counter(), &opts);
    assert!(
        chunks[1..]
            .iter()
            .all(|c| c.text.starts_with(header) && !c.text.contains(long))
    );
    // A longer sentence that leads into the table with a colon is its
    // caption and opens the continuations with the header.
    let lead_in =
        "The test and balance contractor set every box on the campus to the airflows listed below:";
    let mut blocks = vec![para(lead_in), Block::new(BlockKind::TableRow, header)];
    blocks.extend(rows.iter().map(|r| Block::new(BlockKind::TableRow, r)));
    let chunks = chunk(&doc(vec![("1", blocks)]), counter(), &opts);
    assert!(chunks.len() >= 3);
    assert!(
        chunks[1..]
            .iter()
            .all(|c| c.text.starts_with(&format!("{lead_in}\n{header}\n"))),
        "{chunks:#?}"
    );
    // A table that opens with data has no header to repeat.
    let data: Vec<Block> = rows
        .iter()
        .map(|r| Block::new(BlockKind::TableRow, r.replace("Office", "1")))
        .collect();
    let chunks = chunk(&doc(vec![("1", data)]), counter(), &opts);
    assert!(chunks.len() >= 3);
    assert!(chunks.iter().all(|c| !c.text.contains("Space type")));
}

#[test]
fn small_windows_are_respected() {
    let text = "The chilled water valve opens. It closes when the coil is idle. \
                The discharge air temperature setpoint resets between 55 and 65 °F \
                based on outdoor air temperature and zone cooling requests.";
    for max_tokens in [8, 12, 20, 32] {
        let opts = ChunkOptions {
            max_tokens,
            overlap_tokens: 4,
        };
        let chunks = chunk(&doc(vec![("1", vec![para(text)])]), counter(), &opts);
        assert!(!chunks.is_empty());
        for c in &chunks {
            assert!(
                counter().count(&c.text) <= max_tokens,
                "{max_tokens}: {c:?}"
            );
        }
    }
    // A window too small to hold anything is raised to the minimum.
    let opts = ChunkOptions {
        max_tokens: 1,
        overlap_tokens: 0,
    };
    let chunks = chunk(&doc(vec![("1", vec![para(text)])]), counter(), &opts);
    assert!(chunks.iter().all(|c| c.token_count <= MIN_MAX_TOKENS));
}

#[test]
fn empty_blocks_make_no_chunks() {
    let d = doc(vec![("1", vec![para("   "), heading(1, "Only a heading")])]);
    assert!(chunk(&d, counter(), &ChunkOptions::default()).is_empty());
}

#[test]
fn sentence_boundaries() {
    assert_eq!(
        sentences("Open the valve, e.g. V-1. Then wait 5 s. 3 zones respond! Done (see Fig. 2)."),
        [
            "Open the valve, e.g. V-1.",
            "Then wait 5 s.",
            "3 zones respond!",
            "Done (see Fig. 2)."
        ]
    );
    assert_eq!(
        sentences("Section 5.6.4. Depending on modes, Buildings.Controls.OBC runs."),
        [
            "Section 5.6.4.",
            "Depending on modes, Buildings.Controls.OBC runs."
        ]
    );
    assert_eq!(sentences("if x:\n    y()"), ["if x:", "y()"]);
}

// ---------------------------------------------------------------------------
// The real documents.

/// Every HTML and PDF document in the shared data, sorted; `None` when the
/// shared data is absent outside CI (in CI the test fails).
fn real_files() -> Option<Vec<PathBuf>> {
    let mut files = Vec::new();
    for sub in ["g36", "pdf"] {
        let dir = crate::test_data::shared_data(&format!("docs/{sub}"))?;
        let entries = std::fs::read_dir(&dir).unwrap();
        files.extend(entries.flatten().map(|e| e.path()));
    }
    files.sort();
    Some(files)
}

fn normalized(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn real_documents_chunk_within_the_window_on_their_pages() {
    let Some(files) = real_files() else { return };
    let counter = counter();
    let opts = ChunkOptions::default();
    let (mut extract_time, mut chunk_time) = (0.0, 0.0);
    let (mut total, mut max_seen, mut split_sections) = (0, 0, 0);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let started = Instant::now();
        let doc = extract(path, &bytes).unwrap_or_else(|e| panic!("{e}"));
        extract_time += started.elapsed().as_secs_f64();
        let started = Instant::now();
        let chunks = chunk(&doc, counter, &opts);
        chunk_time += started.elapsed().as_secs_f64();
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(!chunks.is_empty(), "{name}");
        let pages: HashMap<&str, String> = doc
            .pages
            .iter()
            .map(|p| {
                let text: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
                (p.label.as_str(), normalized(&text.join(" ")))
            })
            .collect();
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!(c.chunk_index, i, "{name}");
            let n = counter.count(&c.text);
            assert!(n <= 256, "{name} chunk {i}: {n} tokens");
            assert_eq!(n, c.token_count);
            max_seen = max_seen.max(n);
            assert!(!c.section_title.trim().is_empty(), "{name} chunk {i}");
            assert!(!c.text.trim().is_empty(), "{name} chunk {i}");
            let page = &pages[c.page_label.as_str()];
            // A chunk that begins inside a table begins with the table's
            // header row, from higher up the page.
            let on_page = |t: &str| page.contains(&normalized(t));
            let lines: Vec<&str> = c.text.lines().collect();
            let header_then_rows = (1..=2).any(|k| {
                lines.len() > k
                    && lines[k - 1].contains('|')
                    && lines[..k].iter().all(|l| on_page(l))
                    && on_page(&lines[k..].join("\n"))
            });
            assert!(
                on_page(&c.text) || header_then_rows,
                "{name} chunk {i} is not on page {}",
                c.page_label
            );
            if i > 0 && chunks[i - 1].section_title == c.section_title {
                split_sections += 1;
            }
        }
        if name.ends_with(".pdf") {
            let labels: Vec<&str> = chunks.iter().map(|c| c.page_label.as_str()).collect();
            let mut sorted = labels.clone();
            sorted.sort_by_key(|l| l.parse::<usize>().unwrap());
            assert_eq!(labels, sorted, "{name}: chunks in page order");
            assert_eq!(
                labels.last().copied(),
                Some(doc.pages.len().to_string().as_str())
            );
        }
        total += chunks.len();
    }
    eprintln!(
        "FIGURES: {} documents, {total} chunks, max {max_seen} tokens, {split_sections} chunks \
         continuing a section; extract {extract_time:.2} s, chunk {chunk_time:.2} s (this profile)",
        files.len()
    );
    assert!(max_seen <= 256);
}
