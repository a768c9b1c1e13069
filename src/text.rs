//! English text utilities shared by the answer pipeline: words, a light
//! stemmer, sentence splitting, and the question cues.
//!
//! The cue words (which words ask about feeds, points, locations, counts …)
//! are data, not code: `ontology/core/cues.ttl` declares them as
//! `dq:QuestionCue`s, and [`Cues::load`] reads them from the store at start,
//! as the grounder reads its lexicon.

use crate::store::{GraphStore, SolutionExt, StoreResult, select};
use crate::vocab::{self, PREFIXES};
use std::collections::HashMap;

/// Words whose "'s" is "is", "has" or "us" ("what's", "let's"), no
/// possessive: [`words`] keeps them whole ("whats", as the cues spell it).
const CONTRACTED: &[&str] = &[
    "what", "that", "there", "here", "it", "he", "she", "where", "who", "how", "let",
];

/// The bounds of a word that is a range of two numbers ("0-25", "4-20",
/// "1.5-2"), not a date ("2025-06", "2025-06-18": a year opens it).
fn numeric_range(word: &str) -> Option<(&str, &str)> {
    let (low, high) = word.split_once('-')?;
    let number = |n: &str| {
        !n.is_empty()
            && n.chars().all(|c| c.is_ascii_digit() || c == '.')
            && n.starts_with(|c: char| c.is_ascii_digit())
            && n.ends_with(|c: char| c.is_ascii_digit())
    };
    let year = low.len() == 4 && !low.contains('.');
    (number(low) && number(high) && !year).then_some((low, high))
}

/// Lower-case words of a text: letters, digits, inner hyphens and the
/// decimal point of a number ("8.3", "90.1" are one word each); a
/// number's thousands separators are left out ("1,000" is "1000").
/// A range of two numbers in percent or degrees is its two bounds
/// ("0-25%" is "0", "25").
pub fn words(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.to_lowercase().chars().collect();
    let decimal_point = |i: usize| {
        chars[i] == '.'
            && i.checked_sub(1).is_some_and(|p| chars[p].is_ascii_digit())
            && chars.get(i + 1).is_some_and(char::is_ascii_digit)
    };
    // "1,000 ppm" and "1000 ppm" are one number: a comma between a digit
    // and a group of three digits is a thousands separator, left out.
    let thousands = |i: usize| {
        chars[i] == ','
            && i.checked_sub(1).is_some_and(|p| chars[p].is_ascii_digit())
            && chars
                .get(i + 1..i + 4)
                .is_some_and(|g| g.iter().all(char::is_ascii_digit))
            && !chars.get(i + 4).is_some_and(char::is_ascii_digit)
    };
    let mut out = Vec::new();
    let mut word = String::new();
    // `measured`: the word is followed by a percent or degree sign.
    let mut flush = |word: &mut String, measured: bool| {
        let w = word.trim_matches(|c| c == '-' || c == '\'');
        // A possessive is its noun: "box's" is "box", "chiller 1's" holds
        // "1" (a contraction keeps its letters: "what's" is "whats").
        let w = match w.strip_suffix("'s") {
            Some(noun) if !CONTRACTED.contains(&noun) => noun,
            _ => w,
        };
        // A range of numbers, in percent or degrees, is its two bounds:
        // "0-25%" is read as the sentence writes it, "from 0% to … 25%".
        // Not a box's number ("vav 3-01"), nor a date ("2025-06").
        if let Some((low, high)) = numeric_range(w).filter(|_| measured) {
            out.push(low.to_owned());
            out.push(high.to_owned());
        } else if !w.is_empty() {
            out.push(w.replace('\'', ""));
        }
        word.clear();
    };
    for (i, &c) in chars.iter().enumerate() {
        if c.is_alphanumeric() || c == '-' || c == '\'' || decimal_point(i) {
            word.push(c);
        } else if thousands(i) {
            continue;
        } else {
            flush(&mut word, c == '%' || c == '°');
        }
    }
    flush(&mut word, false);
    out
}

/// A question's words with each date it writes ("june 2025", "feb 25",
/// "18 jun 2025", "sept '25") made one word the way dated records write it,
/// ISO 8601: "2025-06", "2025-06-18"; a season and its year ("summer
/// 2025", "summer '24") the span of its months, "2025-06/2025-08". A
/// passage word "2025-06-18" then holds the question's "2025-06" (a
/// prefix) and "2025-06/2025-08" ([`date_holds`]). A month counts only
/// beside a year: a two-digit number right after the month is its year
/// (2000–2049) unless a four-digit year follows ("may 25 2025"); a month
/// alone stays a word, and so do "spring" and "fall" before anything but a
/// four-digit year.
pub fn dated(w: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(w.len());
    let mut i = 0;
    while i < w.len() {
        if let Some((date, used)) = date_at(&w[i..]) {
            out.push(date);
            i += used;
        } else {
            out.push(w[i].clone());
            i += 1;
        }
    }
    out
}

/// The year a word writes: four digits from 1900 to 2099, or with `short`
/// two digits below 50 ("'25", "25": 2025).
pub fn year(word: &str, short: bool) -> Option<i32> {
    match word.len() {
        4 => word
            .parse::<i32>()
            .ok()
            .filter(|y| (1900..2100).contains(y)),
        2 if short => word
            .parse::<i32>()
            .ok()
            .filter(|y| *y < 50)
            .map(|y| 2000 + y),
        _ => None,
    }
}

/// The date the words at the start of `w` write, and how many words it
/// takes: `[day] month [day] year`.
fn date_at(w: &[String]) -> Option<(String, usize)> {
    let day = |x: &String| {
        x.parse::<u32>()
            .ok()
            .filter(|d| (1..=31).contains(d) && x.len() <= 2)
    };
    let (lead_day, at) = match w.first().and_then(day) {
        Some(d) => (Some(d), 1),
        None => (None, 0),
    };
    if lead_day.is_none()
        && let Some((first, last)) = season(&w[0])
    {
        // "let it fall 10 °F", "a spring 15 lb": a word with another
        // meaning before a number is no season, unless the year is whole.
        let short = !matches!(w[0].as_str(), "fall" | "spring");
        let y = year(w.get(1)?, short)?;
        return Some((format!("{y:04}-{first:02}/{y:04}-{last:02}"), 2));
    }
    let m = month(w.get(at)?)?;
    let rest = &w[at + 1..];
    let (day, y, used) = match (lead_day, rest) {
        (Some(d), [y, ..]) => (Some(d), year(y, false)?, at + 2),
        (None, [d, y, ..]) if day(d).is_some() && year(y, false).is_some() => {
            (day(d), year(y, false)?, 3)
        }
        (None, [y, ..]) => (None, year(y, true)?, 2),
        _ => return None,
    };
    let date = match day {
        Some(d) => format!("{y:04}-{m:02}-{d:02}"),
        None => format!("{y:04}-{m:02}"),
    };
    Some((date, used))
}

/// The months (first, last) of a season a word names, as the northern
/// hemisphere's building trades count them: spring March–May, summer
/// June–August, fall (autumn) September–November. Winter spans two years
/// ("winter 2025" may be either), so it names no months.
fn season(word: &str) -> Option<(u8, u8)> {
    match word {
        "spring" => Some((3, 5)),
        "summer" => Some((6, 8)),
        "fall" | "autumn" => Some((9, 11)),
        _ => None,
    }
}

/// Whether a word of a passage (a date, "2025-07-09") holds a date term of
/// a question: a month or day it begins with ("2025-07"), or a span of
/// months it lies in ("2025-06/2025-08", a season).
pub fn date_holds(term: &str, word: &str) -> bool {
    if !opens_with_date(word) {
        return false;
    }
    match term.split_once('/') {
        Some((first, last)) => word
            .get(..7)
            .is_some_and(|month| first <= month && month <= last),
        None => opens_with_date(term) && word.starts_with(term),
    }
}

/// Whether a question's term is a date ([`dated`]): a month, a day, or a
/// span of months.
pub fn is_date_term(term: &str) -> bool {
    match term.split_once('/') {
        Some((first, last)) => opens_with_date(first) && opens_with_date(last),
        None => opens_with_date(term),
    }
}

/// `text` with the bytes inside the byte ranges `spans` (`inside`) or
/// outside them kept and the others blanked: what a reader read of a
/// question, or what it left.
pub fn masked(text: &str, spans: impl IntoIterator<Item = (usize, usize)>, inside: bool) -> String {
    let mut marked = vec![false; text.len()];
    for (start, end) in spans {
        for b in marked.iter_mut().take(end).skip(start) {
            *b = true;
        }
    }
    text.char_indices()
        .map(|(i, c)| if marked[i] == inside { c } else { ' ' })
        .collect()
}

/// `text` with each ISO 8601 date it writes ("2025-06-18", "2025-06")
/// written in words ("18 June 2025", "June 2025"), as a question says it:
/// an embedding model reads "june 2025" near "18 June 2025", not near
/// "2025-06-18". Other numbers (times, ranges, model numbers) are kept.
pub fn dates_in_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        out.push_str(&rest[..at]);
        let run = &rest[at..];
        let len = run
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(run.len());
        let token = &run[..len];
        // A hyphen that joins the date to a word ("2025-06-18-AP") is
        // not the date's: kept after it.
        let date = token.trim_end_matches('-');
        let after_word = out.chars().last().is_some_and(char::is_alphanumeric);
        match (!after_word).then(|| iso_in_words(date)).flatten() {
            Some(words) => {
                out.push_str(&words);
                out.push_str(&token[date.len()..]);
            }
            None => out.push_str(token),
        }
        rest = &run[len..];
    }
    out.push_str(rest);
    out
}

/// "2025-06-18" → "18 June 2025", "2025-06" → "June 2025"; None for any
/// other token.
fn iso_in_words(token: &str) -> Option<String> {
    let parts: Vec<&str> = token.split('-').collect();
    let digits = |p: &str, n: usize| p.len() == n && p.chars().all(|c| c.is_ascii_digit());
    let (y, m, d) = match parts.as_slice() {
        [y, m] if digits(y, 4) && digits(m, 2) => (*y, *m, None),
        [y, m, d] if digits(y, 4) && digits(m, 2) && digits(d, 2) => (*y, *m, Some(*d)),
        _ => return None,
    };
    let year: i32 = y.parse().ok().filter(|y| (1900..2100).contains(y))?;
    let month = chrono::Month::try_from(m.parse::<u8>().ok()?).ok()?;
    match d {
        Some(d) => {
            let day: u32 = d.parse().ok()?;
            chrono::NaiveDate::from_ymd_opt(year, month.number_from_month(), day)?;
            Some(format!("{day} {} {year}", month.name()))
        }
        None => Some(format!("{} {year}", month.name())),
    }
}

/// Whether a word names a month ("june", "feb").
pub fn names_a_month(word: &str) -> bool {
    month(word).is_some()
}

/// The month (1–12) a word names: its English name or an abbreviation of
/// three letters or more ("feb", "sept").
fn month(word: &str) -> Option<u8> {
    if word.len() < 3 || !word.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    (1..=12u8).find(|m| {
        chrono::Month::try_from(*m)
            .is_ok_and(|month| month.name().to_ascii_lowercase().starts_with(word))
    })
}

/// The months a question names alone, with no year beside them, after a
/// word that makes it the time of an event ("at the mar airflow check",
/// "last oct", "since june"): "may" as a verb stays a word.
pub fn months_alone(text: &str) -> Vec<u8> {
    // Not "in" nor "during": "boilers shouldn't be firing in july" says
    // when a rule matters, not which day's record answers.
    const BEFORE: &[&str] = &["the", "last", "this", "since", "early", "late", "mid"];
    let w = words(text);
    let year = |t: &str| {
        t.trim_start_matches('\'')
            .chars()
            .all(|c| c.is_ascii_digit())
            && matches!(t.trim_start_matches('\'').len(), 2 | 4)
    };
    (0..w.len())
        .filter(|&i| i > 0 && BEFORE.contains(&w[i - 1].as_str()))
        .filter(|&i| !w.get(i + 1).is_some_and(|n| year(n)))
        .filter_map(|i| month(&w[i]))
        .collect()
}

/// Whether a passage word is a date ("2026-03-20") in the month `m`.
pub fn date_in_month(word: &str, m: u8) -> bool {
    opens_with_date(word) && word.get(5..7).and_then(|mm| mm.parse::<u8>().ok()) == Some(m)
}

/// A crude English stem: plural and verb endings off, so "restarts",
/// "restarted" and "restart" meet.
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    for suffix in ["ing", "ed", "es", "s"] {
        if w.len() > suffix.len() + 3
            && let Some(base) = w.strip_suffix(suffix)
        {
            return base.to_owned();
        }
    }
    w
}

/// The particles of a phrasal verb that the trade writes as one word too:
/// "lock out" / "lockout", "shut down" / "shutdown", "set back" /
/// "setback", "make up" / "make-up", "cut off" / "cutoff". The particles
/// the sentence picker reads in hyphenated compounds
/// (`answer::synthesize::PARTICLES`) without "in" and "on": a word ending
/// in them is seldom a compound ("margin", "season", "button").
const COMPOUND_PARTICLES: &[&str] = &["out", "up", "down", "off", "back", "over"];

/// The other written forms of the phrasal verbs and their compounds in
/// `text`: "locked out" also reads "lockout", "shut down" "shutdown", and
/// "lockout" reads "lock", "warmup" "warm" (what "warm-up" and "warmed up"
/// write). A word search finds the sequence's "chiller lockout" for a
/// question about when the chillers are "locked out"; what it also reads
/// ("layout" → "lay") only adds a word to look for. A root of three
/// letters is not read: "setback" → "set", "cutoff" → "cut" are verbs of
/// every other sentence.
pub fn compound_forms(text: &str) -> Vec<String> {
    let ws = words(text);
    let mut out: Vec<String> = Vec::new();
    let mut add = |w: String| {
        if !ws.contains(&w) && !out.contains(&w) {
            out.push(w);
        }
    };
    for pair in ws.windows(2) {
        let (verb, particle) = (&pair[0], pair[1].as_str());
        if COMPOUND_PARTICLES.contains(&particle)
            && verb.len() >= 3
            && verb.chars().all(|c| c.is_ascii_alphabetic())
        {
            add(format!("{}{particle}", stem(verb)));
        }
    }
    for w in &ws {
        if !w.chars().all(|c| c.is_ascii_alphabetic()) {
            continue;
        }
        if let Some(root) = COMPOUND_PARTICLES
            .iter()
            .find_map(|p| w.strip_suffix(p))
            .filter(|r| r.len() >= 4)
        {
            add(root.to_owned());
        }
    }
    out
}

/// Letters and digits only, lower case: "VAV 2-14" and "vav-2-14" meet.
pub fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A text with a space where a lower-case letter meets an upper-case one,
/// as a file or heading names a topic in camel case ("G36 TerminalUnits /
/// Reheat" → "G36 Terminal Units / Reheat"); an acronym ("AHUs", "VAV")
/// stays whole.
pub fn camel_spaced(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if prev.is_some_and(char::is_lowercase) && c.is_uppercase() {
            out.push(' ');
        }
        out.push(c);
        prev = Some(c);
    }
    out
}

/// The cells of a table row (`a | b | c`, with or without outer pipes);
/// `None` for a line that is not one. A separator row (`---|---`) has no
/// cells.
fn table_cells(line: &str) -> Option<Vec<String>> {
    let line = line.trim();
    if !line.contains('|') {
        return None;
    }
    let cells: Vec<String> = line
        .trim_matches('|')
        .split('|')
        .map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    if cells.len() < 2 {
        return None;
    }
    if cells
        .iter()
        .all(|c| !c.is_empty() && c.chars().all(|x| matches!(x, '-' | ':' | ' ')))
    {
        return Some(Vec::new());
    }
    Some(cells)
}

/// Whether a table's first row names its columns: a row (`a | b | c`) no
/// cell of which starts with a digit or a minus. [`quotable`] quotes each
/// row under such a header; the chunker repeats it where a chunk begins
/// inside its table.
pub fn names_columns(row: &str) -> bool {
    table_cells(row).is_some_and(|cells| !cells.is_empty() && cells_name_columns(&cells))
}

fn cells_name_columns(cells: &[String]) -> bool {
    !cells
        .iter()
        .any(|c| c.starts_with(|x: char| x.is_ascii_digit() || x == '-'))
}

/// Whether a line just before a table is its caption, which names what the
/// table is for ("When California Title 24-2016 is used."): one sentence
/// ending in a full stop (at most [`CAPTION_WORDS`] words) or a colon, which
/// leads into what follows ("DSP-SP is reset by trim and respond using the
/// static pressure requests from the VAV boxes (SOO-M-602, section 9):",
/// at most [`LEAD_IN_WORDS`]). A heading ("10. Alarms") has no such end,
/// and a longer paragraph before a table is prose of its own.
pub fn is_caption(line: &str) -> bool {
    let line = line.trim();
    let n = line.split_whitespace().count();
    let most = if line.ends_with(':') {
        LEAD_IN_WORDS
    } else {
        CAPTION_WORDS
    };
    n > 0 && n <= most && line.ends_with(['.', ':']) && sentences(line).len() == 1
}

/// The most words a table's caption ending in a full stop has
/// ([`is_caption`]).
pub const CAPTION_WORDS: usize = 12;

/// The most words a table's lead-in sentence ending in a colon has
/// ([`is_caption`]).
pub const LEAD_IN_WORDS: usize = 30;

/// The units a passage is quoted in: the sentences of prose lines, and
/// each table row joined to its table's header ("Mode: Warm-up; SAT-SP:
/// 90 °F"), so that a row quoted alone still says what its values are,
/// after the table's caption when it has one ([`is_caption`]: "When
/// California Title 24-2016 is used: Device type: Fixed dry bulb; …"). A
/// table's first row is its header when no cell of it starts with a digit;
/// otherwise (a table without one) rows stand as they are.
pub fn quotable(text: &str) -> Vec<String> {
    quotable_lines(text).into_iter().map(|(_, s)| s).collect()
}

/// [`quotable`]'s sentences, each with the number of the line it is read
/// from (a table row with its header and caption is its own line).
fn quotable_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut header: Option<Vec<String>> = None;
    let mut in_table = false;
    // The line before, when it is a short prose line; the caption of the
    // table being read.
    let mut before: Option<&str> = None;
    let mut caption: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        match table_cells(line) {
            Some(cells) if cells.is_empty() => {}
            Some(cells) => {
                let starts_table = !in_table;
                in_table = true;
                if starts_table {
                    header = cells_name_columns(&cells).then(|| cells.clone());
                    caption = before
                        .take()
                        .filter(|_| header.is_some())
                        .map(|l| as_caption(l).to_owned());
                    if header.is_some() {
                        continue;
                    }
                }
                let row = match &header {
                    Some(h) if h.len() == cells.len() => h
                        .iter()
                        .zip(&cells)
                        .map(|(h, c)| format!("{h}: {c}"))
                        .collect::<Vec<_>>()
                        .join("; "),
                    _ => cells.join(" | "),
                };
                out.push((
                    n,
                    match &caption {
                        Some(c) => format!("{c}: {row}"),
                        None => row,
                    },
                ));
            }
            None => {
                in_table = false;
                header = None;
                caption = None;
                before = is_caption(line).then_some(line);
                out.extend(sentences(line).into_iter().map(|s| (n, s)));
            }
        }
    }
    out
}

/// A sentence of [`quotable`] with what it stands under
/// ([`quotable_in_context`]), by index into the same list.
#[derive(Debug, Clone, PartialEq)]
pub struct InContext {
    /// The sentence.
    pub text: String,
    /// The opening of its record: a dated one, or a labelled paragraph
    /// whose label it repeats ([`openings_of`]).
    pub opening: Option<usize>,
    /// The lead-in of its list ([`lead_ins_of`]) or, in a paragraph no date
    /// opens, the run-in heading of its paragraph ([`openings_of`]).
    pub lead: Option<std::ops::Range<usize>>,
    /// Whether it is itself a paragraph's run-in heading.
    pub run_in: bool,
    /// The number of the line it is read from: the sentences of one
    /// paragraph share it.
    pub line: usize,
    /// Whether it is a table row (with its header and caption).
    pub row: bool,
}

/// [`quotable`]'s sentences, each with what it stands under: the opening
/// of its dated record, the lead-in of its list or the run-in heading of
/// its paragraph, the text's lines read once.
pub fn quotable_in_context(text: &str) -> Vec<InContext> {
    let lines = quotable_lines(text);
    let leads = lead_ins_of(text, &lines);
    let numbers: Vec<usize> = lines.iter().map(|(n, _)| *n).collect();
    let source: Vec<&str> = text.lines().collect();
    let opened = openings_of(lines);
    let nested = items_under(&source, &numbers, &opened);
    opened
        .into_iter()
        .zip(leads)
        .zip(numbers)
        .zip(nested)
        .map(|((((text, opens), lead), line), nested)| {
            let row = source
                .get(line)
                .and_then(|l| table_cells(l))
                .is_some_and(|cells| !cells.is_empty());
            let (opening, run_in_of) = match opens {
                Opens::Record(j) => (Some(j), None),
                Opens::Paragraph(j) => (None, Some(j)),
                Opens::Nothing | Opens::Itself(_) => (None, None),
            };
            let mut lead = lead.or_else(|| run_in_of.map(|j| j..j + 1));
            // The item it is nested in names it more closely than a
            // lead-in above that item.
            if let Some(j) = nested
                && lead.as_ref().is_none_or(|r| r.end <= j)
            {
                lead = Some(j..j + 1);
            }
            InContext {
                text,
                opening,
                lead,
                run_in: opens == Opens::Itself(Paragraph::RunIn),
                line,
                row,
            }
        })
        .collect()
}

/// What the item a nested line sits under says of it ([`items_under`]).
enum Above {
    /// A table row: no item above it heads the line.
    Stop,
    /// The item is a sentence of its own: the item it is nested in is
    /// asked in turn.
    Further,
    /// The item's heading, by sentence index.
    Heading(usize),
}

/// For each sentence of [`openings_of`] (by index), the heading of the
/// list item its line is nested in, by index: a chunk's text indents a
/// nested item's line ([`crate::ingest::chunk`]), and the nearest line
/// above it indented less is the item it is nested in. That item's
/// heading is its run-in heading ("Heating demand limit setpoint
/// adjustment. The active heating setpoints … are not cumulative." over
/// "At Demand Limit Level 3, decrease setpoint by 2 °C (4 °F).") or the
/// item itself when it is a bare name ("Occupancy sensor" over "When the
/// switch indicates the space has been unpopulated …"); an item with
/// neither (a sentence of its own) says nothing of what the items under
/// it are, and the item it is nested in is asked in turn. `None` for a
/// line indented nowhere, or under no such heading in the text.
fn items_under(
    source: &[&str],
    numbers: &[usize],
    opened: &[(String, Opens)],
) -> Vec<Option<usize>> {
    let indent = |n: usize| source.get(n).map_or(0, |l| l.len() - l.trim_start().len());
    // The first sentence of each line, by line number, in order.
    let mut firsts: Vec<(usize, usize)> = Vec::new();
    for (k, &n) in numbers.iter().enumerate() {
        if firsts.last().is_none_or(|&(m, _)| m != n) {
            firsts.push((n, k));
        }
    }
    let heading_at = |at: usize| -> Above {
        let (n, j) = firsts[at];
        if source.get(n).is_some_and(|l| table_cells(l).is_some()) {
            return Above::Stop;
        }
        let first = &opened[j].0;
        let names = opened[j].1 == Opens::Itself(Paragraph::RunIn)
            || (is_bare_phrase(first) && {
                let words = bare_words(first);
                words.len() <= RUN_IN_WORDS
                    && !words.iter().any(|w| SENTENCE_WORDS.contains(&w.as_str()))
            });
        if names {
            Above::Heading(j)
        } else {
            Above::Further
        }
    };
    let mut out = Vec::with_capacity(numbers.len());
    let mut line_at = 0;
    for &n in numbers {
        while firsts[line_at].0 != n {
            line_at += 1;
        }
        let mut depth = indent(n);
        let mut found = None;
        let mut at = line_at;
        while depth > 0 && at > 0 {
            at -= 1;
            let above = indent(firsts[at].0);
            if above >= depth {
                continue;
            }
            match heading_at(at) {
                Above::Stop => break,
                Above::Heading(j) => {
                    found = Some(j);
                    break;
                }
                Above::Further => depth = above,
            }
        }
        out.push(found);
    }
    out
}

/// Pronouns a question asks about when it asks what "it" means ("what
/// does it mean if the purge unit runs a lot"): a situation, not a word
/// or a class. English grammar, not a question cue.
pub const PRONOUNS: &[&str] = &["it", "this", "that", "these", "those", "they"];

/// Whether the word at `i` is "mean" or "means" said of a sign, with the
/// clause of what it implies after it ("a pressure difference across
/// that screen means it's clogged", "a flashing LED means the board has
/// lost power"): no question of what a name means. English grammar, not
/// a question cue.
pub fn means_a_clause(words: &[String], i: usize) -> bool {
    const OPENS_CLAUSE: &[&str] = &[
        "it",
        "its",
        "that",
        "the",
        "there",
        "this",
        "these",
        "those",
        "they",
        "we",
        "you",
        "a",
        "an",
        "your",
        "our",
        "someone",
        "somebody",
        "something",
    ];
    matches!(words.get(i).map(String::as_str), Some("mean" | "means"))
        && words
            .get(i + 1)
            .is_some_and(|next| OPENS_CLAUSE.contains(&next.as_str()))
}

/// Most words of a run-in heading ([`openings_of`]).
const RUN_IN_WORDS: usize = 6;

/// Articles, pronouns and auxiliaries: a few words that say one of them
/// are a sentence ("The fan speed loop runs.", "Boilers are serviced
/// yearly."), not a run-in heading ("YCO-300 CO2 sensors.", "Reheat valve
/// (YVR-3100 only)."). English grammar, not a question cue: it stays here,
/// beside the sentence splitter, not in the ontology's cues.
const SENTENCE_WORDS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "it", "its", "they", "there", "is", "are",
    "was", "were", "be", "been", "has", "have", "had", "do", "does", "did", "shall", "must",
    "will", "can", "should", "may",
];

/// How a paragraph (a prose line) opens ([`openings_of`]).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Paragraph {
    /// With an ISO date: a dated record.
    Record,
    /// With a run-in heading.
    RunIn,
    /// With a label: a few words and a colon ("Stage 1: if SAT is below
    /// 40 °F …"), the label of [`label_of`].
    Labelled,
    /// Otherwise.
    Plain,
}

/// What a sentence stands under ([`openings_of`]), by index.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Opens {
    /// The opening of its record: a dated one, or a labelled paragraph
    /// whose label it repeats.
    Record(usize),
    /// The run-in heading of its paragraph.
    Paragraph(usize),
    /// It opens its paragraph, as a record's opening, a run-in heading or
    /// a plain sentence.
    Itself(Paragraph),
    /// Nothing: a table row.
    Nothing,
}

/// A text's [`quotable_lines`], each sentence with what its paragraph
/// opens with. A log entry is one paragraph opened by its date
/// ("2025-10-14 — B-1 and B-2: annual service. … Condensate neutralizer
/// media replaced, drain pH 6.8."), and every later sentence of it stands
/// under that opening as a step stands under its heading. A paragraph may
/// open with a run-in heading instead: a first sentence of a few words,
/// none of them an article, pronoun or auxiliary ([`SENTENCE_WORDS`]),
/// that names what the paragraph is about ("YCO-300 CO2 sensors. … Check
/// with 1,000 ppm calibration gas every 2 years; replace the sensor if it
/// reads more than 75 ppm off."); its later sentences stand under it as a
/// list's items stand under their lead-in: "replace the sensor" is said
/// of the CO2 sensors. A paragraph may also open with a label ("Stage 1:
/// if SAT is below 40 °F for 5 minutes, …"): a later sentence of it that
/// repeats the label ("Stage 1 clears when SAT has been above 45 °F for 15
/// minutes.") goes on its record, and stands under its opening as a dated
/// record's sentences do.
fn openings_of(lines: Vec<(usize, String)>) -> Vec<(String, Opens)> {
    // The line being read: its number, the index of its first sentence,
    // how that sentence opens it and the words of its label, if any.
    let mut line: Option<(usize, usize, Paragraph, Vec<String>)> = None;
    lines
        .into_iter()
        .enumerate()
        .map(|(k, (n, sentence))| {
            let opens = match &line {
                Some((m, first, how, label)) if *m == n => match how {
                    Paragraph::Record => Opens::Record(*first),
                    Paragraph::RunIn => Opens::Paragraph(*first),
                    Paragraph::Labelled
                        if label_of(&sentence).is_none() && repeats(&sentence, label) =>
                    {
                        Opens::Record(*first)
                    }
                    Paragraph::Labelled | Paragraph::Plain => Opens::Nothing,
                },
                _ => {
                    let label = label_of(&sentence);
                    let how = if opens_with_date(&sentence) {
                        Paragraph::Record
                    } else if is_run_in(&sentence) {
                        Paragraph::RunIn
                    } else if label.is_some() {
                        Paragraph::Labelled
                    } else {
                        Paragraph::Plain
                    };
                    line = Some((n, k, how, label.unwrap_or_default()));
                    Opens::Itself(how)
                }
            };
            (sentence, opens)
        })
        .collect()
}

/// The words of a sentence's label: the few words before a colon it
/// opens with ("Stage 1: if SAT is below 40 °F …" → stage, 1), at most
/// [`LABEL_WORDS`] of them, none of them one of [`SENTENCE_WORDS`].
fn label_of(sentence: &str) -> Option<Vec<String>> {
    let (head, rest) = sentence.split_once(':')?;
    let words = bare_words(head);
    (rest.starts_with(' ')
        && !words.is_empty()
        && words.len() <= LABEL_WORDS
        && words
            .iter()
            .all(|w| !w.is_empty() && !SENTENCE_WORDS.contains(&w.as_str())))
    .then_some(words)
}

/// Most words of a paragraph's label ([`label_of`]).
const LABEL_WORDS: usize = 3;

/// Whether `sentence` says every word of `label`, as whole words in any
/// case: "Stage 1 clears when SAT …" repeats "Stage 1".
fn repeats(sentence: &str, label: &[String]) -> bool {
    let said = bare_words(sentence);
    label.iter().all(|l| said.contains(l))
}

/// A text's words split at white space, lower case, without the
/// punctuation around them ("(YVR-3100)." → "yvr-3100").
fn bare_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect()
}

/// Whether a paragraph's first sentence is a run-in heading
/// ([`openings_of`]): a full stop after at most [`RUN_IN_WORDS`] words,
/// none of them one of [`SENTENCE_WORDS`], and no table row.
fn is_run_in(sentence: &str) -> bool {
    let words = bare_words(sentence);
    sentence.ends_with('.')
        && !sentence.contains(" | ")
        && words.len() <= RUN_IN_WORDS
        && !words.iter().any(|w| SENTENCE_WORDS.contains(&w.as_str()))
}

/// Whether a sentence opens with an ISO date, as dated records do
/// ("2025-10-14 — …", "2025-10: …").
pub fn opens_with_date(sentence: &str) -> bool {
    let first = sentence
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_end_matches([':', ',', '.']);
    let parts: Vec<&str> = first.split('-').collect();
    let digits = |p: &str, n: usize| p.len() == n && p.chars().all(|c| c.is_ascii_digit());
    matches!(parts.as_slice(), [y, m] | [y, m, _] if digits(y, 4) && digits(m, 2))
        && parts.get(2).is_none_or(|d| digits(d, 2))
}

/// Splits a passage into the sentences an answer may quote: lines first
/// (headings, list items and table rows stand alone, Markdown markers and
/// table bars dropped), then sentence ends followed by a space and a capital
/// or digit ("Firmware 3.5.1 is approved." stays whole).
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line
            .trim()
            .trim_start_matches(['#', '-', '*', '>'])
            .replace('|', " | ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let line = line.trim_matches(|c: char| c == '|' || c.is_whitespace());
        if line.is_empty() {
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let mut start = 0;
        for i in 0..chars.len() {
            let end = matches!(chars[i], '.' | '?' | '!')
                && chars.get(i + 1).is_some_and(|c| c.is_whitespace())
                && chars
                    .get(i + 2)
                    .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
                && i >= start + 3;
            if end {
                out.push(
                    chars[start..=i]
                        .iter()
                        .collect::<String>()
                        .trim()
                        .to_owned(),
                );
                start = i + 1;
            }
        }
        let rest: String = chars[start..].iter().collect::<String>().trim().to_owned();
        if !rest.is_empty() {
            out.push(rest);
        }
    }
    out
}

/// A set of cue words or phrases, named like its `dq:cue_…` node in
/// `ontology/core/cues.ttl`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[strum(serialize_all = "snake_case")]
pub enum Cue {
    /// Verbs of supply ("feeds", "serves").
    FeedVerb,
    /// What feeds it ("upstream", "fed").
    Upstream,
    /// What it feeds ("downstream").
    Downstream,
    /// The feeds path ("path").
    Path,
    /// What it is made of.
    Parts,
    /// Points.
    Points,
    /// "have", "has", "list": with a point type, which points.
    Have,
    /// Where it is.
    Location,
    /// Kinds of place ("room", "floor").
    Place,
    /// Question words before a kind of place.
    Which,
    /// What a named location contains.
    Contents,
    /// Products, makers, mappings.
    Product,
    /// Phrases asking a product's mapping or installations.
    ProductPhrase,
    /// What something means.
    Define,
    /// Phrases asking what something is or means.
    DefinePhrase,
    /// Phrases asking whether one class is a kind of another ("kind of").
    KindOf,
    /// Phrases asking whether two classes are the same ("same as").
    SameClass,
    /// Words that put a question about two classes in the ontology's
    /// terms ("in Brick", "does Brick treat … as", "count as"): they ask
    /// nothing besides how the classes relate.
    ClassScope,
    /// Haystack tags.
    Tags,
    /// "count".
    Count,
    /// "how many".
    CountPhrase,
    /// "on" as in "VAV-3-02 on AHU-2".
    On,
    /// Auxiliary verbs that open a yes/no question.
    YesNo,
    /// A live value ("right now").
    Live,
    /// Words by which a document sentence states a feeds relation.
    Relation,
    /// Words with no content of their own.
    FunctionWord,
    /// English stop words a passage need not hold (beyond the function
    /// words the graph reader skips): contractions, pronouns, discourse
    /// adverbs.
    StopWord,
    /// Light verbs that frame an everyday question ("what has to
    /// happen", "kick off", "take it back out"): a passage need not hold
    /// them.
    FrameWord,
    /// What lacks something ("without", "no").
    Absent,
    /// One hop only ("directly").
    Direct,
    /// The whole chain ("ultimately").
    Transitive,
    /// A count per item of a kind ("per", "each").
    Group,
    /// More than a number.
    More,
    /// Fewer than a number.
    Fewer,
    /// A comparison no list answers ("the most boxes", "at least").
    Superlative,
    /// Both kinds must hold ("both", "and").
    Both,
    /// A unit of measure.
    Unit,
    /// Part and whole ("part of", "made of").
    PartOf,
    /// The supplier after a verb of receiving ("from").
    Source,
    /// The whole building or plant ("in this plant").
    Scope,
    /// Asks for the kinds of what is listed ("what types of sensors").
    Kinds,
    /// Asks for the things a term names ("show me all", "is there").
    Things,
    /// What a feeds relation carries ("air", "water").
    Medium,
    /// Verbs of making, before a medium ("make that chilled water").
    Making,
    /// Asks for a value by a word that also names things ("temperature",
    /// "setpoint") or for a time or frequency ("how often").
    Quantity,
    /// Asks for a number by itself ("at what", "trigger"): asks for a
    /// value too.
    Number,
    /// Units and words that take a number, by which a passage states a
    /// quantity ("%", "minutes", "Level").
    QuantityUnit,
    /// Phrases that ask for a length of time ("how long", "how many
    /// minutes"): a passage answers them with a time, not any quantity.
    Duration,
    /// Units of time, by which a passage states a length of time
    /// ("30 minutes", "15 s").
    DurationUnit,
    /// Phrases that ask how often ("how often"): a passage answers them
    /// with a frequency, not any quantity.
    Frequency,
    /// Words by which a passage states a frequency ("weekly", "every
    /// Monday").
    FrequencyWord,
    /// Units of power ("hp", "kW"): with the other unit cues, the units a
    /// question may ask a value in ([`Cues::units_asked`]).
    UnitPower,
    /// Units of heating or cooling capacity ("tons", "MBH").
    UnitCapacity,
    /// Units of flow ("cfm", "gpm").
    UnitFlow,
    /// Units of air velocity ("fpm").
    UnitVelocity,
    /// Units of pressure ("psi", "in. w.c.").
    UnitPressure,
    /// Units of temperature ("°F", "deg").
    UnitTemperature,
    /// Units of current ("µA", "amps").
    UnitCurrent,
    /// Units of voltage ("VAC").
    UnitVoltage,
    /// Units of rotation ("rpm", "Hz").
    UnitRotation,
    /// Units of concentration ("ppm").
    UnitConcentration,
    /// Percent ("%", "percent").
    UnitPercent,
    /// Nouns that, after a question word, name only the kind of answer
    /// asked for ("what part got swapped"), not a thing a passage names.
    AnswerKind,
    /// Auxiliary verbs that end the noun a question asks for ("what
    /// chemicals get added").
    Auxiliary,
    /// The operating modes of a zone group or a unit ("setback",
    /// "warm-up"): a passage that does not name the one a question names
    /// tells what happens in another mode.
    Mode,
    /// Question words that ask how, why or when something is done ("how
    /// are the CO2 sensors calibrated"): a list of a class's points
    /// answers none of them.
    Manner,
    /// Words of stopping ("shut down", "trips", "fails"): with a word of
    /// loss, what a named node's stop takes the supply from.
    Outage,
    /// Words of loss ("lose", "affected"): with a word of stopping, what
    /// loses its supply.
    Loss,
    /// What is lost, after a word of loss ("air", "chilled water",
    /// "cooling").
    Lost,
    /// Why or when equipment is stopped ("for maintenance", "tonight"),
    /// read with a word of stopping and a word of loss.
    Occasion,
    /// Question words that ask why or how ("why do the rooms lose air",
    /// "how long can they go without"): said with a word of stopping, a
    /// reason, a way or a time is asked, not what loses its supply.
    Reason,
}

impl Cue {
    /// Whether only the document answer reads the cue — what a question
    /// asks or a passage says about values, or the noun a question asks
    /// for — rather than naming a question word of the graph reader: its
    /// words ("temperature", "minutes", "s", "pa", "part") are content,
    /// not cue words, and no vocabulary a typo is corrected into.
    pub fn reads_documents(self) -> bool {
        matches!(
            self,
            Self::Quantity
                | Self::Number
                | Self::QuantityUnit
                | Self::Duration
                | Self::DurationUnit
                | Self::Frequency
                | Self::FrequencyWord
                | Self::AnswerKind
                | Self::Auxiliary
                | Self::Mode
        ) || UNIT_CUES.contains(&self)
    }

    /// Every cue that names question words: all but those the document
    /// answer alone reads, so that a value word ("temp", "min") is read by
    /// the graph reader and the spelling as the content word it is.
    pub fn question_cues() -> impl Iterator<Item = Cue> {
        <Cue as strum::IntoEnumIterator>::iter().filter(|c| !c.reads_documents() && !c.together())
    }

    /// Whether the cue's words are read only together with another's: a
    /// word of stopping with a word of loss ("if AHU-2 trips, which rooms
    /// lose air"). Alone they ask something the graph does not answer
    /// ("what do the boxes do when AHU-1 shuts down"), so they are no
    /// question words by themselves.
    pub fn together(self) -> bool {
        matches!(
            self,
            Self::Outage | Self::Loss | Self::Lost | Self::Occasion | Self::Reason
        )
    }
}

/// Whether the text opens with a contraction ("we're", "they’re"): its
/// first word, read without the apostrophe, may spell an auxiliary
/// ("were") that opens no yes/no question.
pub fn opens_with_contraction(lower: &str) -> bool {
    lower
        .split_whitespace()
        .next()
        .is_some_and(|w| w.contains(['\'', '\u{2019}']))
}

/// Whether one of the few words after byte `at` of `lower` is a
/// possessive ("a chiller's min run time", "the boilers' output"): the
/// phrase before it names what something has, not the thing.
pub fn possessive_follows(lower: &str, at: usize) -> bool {
    lower
        .get(at..)
        .unwrap_or_default()
        .split_whitespace()
        .take(POSSESSIVE_WORDS)
        .map(|w| w.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’'))
        .any(|w| {
            ["'s", "’s", "s'", "s’"]
                .iter()
                .any(|end| w.ends_with(end) && w.len() > end.len())
        })
}

/// How many words after a phrase [`possessive_follows`] reads: a noun
/// with a word or two before it ("a chilled water pump's").
const POSSESSIVE_WORDS: usize = 3;

/// Byte offsets where `phrase` occurs in `text` as words: an end of the
/// phrase that is a letter or digit does not touch another ("on" is not
/// in "only"; "->" and "w/o" match wherever they stand).
pub fn phrase_at<'a>(text: &'a str, phrase: &'a str) -> impl Iterator<Item = usize> + 'a {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    let starts = phrase.chars().next().is_some_and(char::is_alphanumeric);
    let ends = phrase
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric);
    text.match_indices(phrase).filter_map(move |(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + phrase.len()..].chars().next();
        (!(starts && word(before) || ends && word(after))).then_some(at)
    })
}

/// Whether a passage states a quantity: a number with one of `units`
/// beside it ("5 minutes", "Level 3", "12 Pa (0.05 in.)", or after "in."
/// for inches of water: "1.5 in. w.c.") or written onto
/// it ("70%", "8°C"). Units are lower case; a number alone ("Section
/// 5.6.6", "Guideline 36") is none. A frequency needs no number: a unit
/// that is an adverb of frequency ("weekly", "quarterly") states one
/// alone, and one after "every", "each", "per" or "a" does ("every
/// Monday", "twice a year").
pub fn states_quantity(text: &str, units: &[String]) -> bool {
    let tokens: Vec<String> = text
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';' | '[' | ']'))
        .map(|t| t.trim_end_matches([':', '.', '!', '?']).to_lowercase())
        .filter(|t| !t.is_empty())
        .collect();
    let unit = |t: &str| units.iter().any(|u| u == t || u.trim_end_matches('.') == t);
    // What follows the number a token starts with, if it starts with one.
    fn number(t: &str) -> Option<&str> {
        let digits = t.trim_start_matches(['~', '+', '-', '±', '<', '>']);
        let n = digits
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(digits.len());
        (n > 0 && digits.starts_with(|c: char| c.is_ascii_digit())).then(|| &digits[n..])
    }
    // Units of a frequency: a list with an adverb of frequency.
    let frequency = units.iter().any(|u| u.ends_with("ly"));
    tokens.iter().enumerate().any(|(i, t)| match number(t) {
        None if frequency && unit(t) && t.ends_with("ly") => true,
        None if frequency && matches!(t.as_str(), "every" | "each" | "per" | "a") => {
            tokens.get(i + 1).is_some_and(|next| unit(next))
        }
        Some(rest) if !rest.is_empty() => unit(rest),
        Some(_) => {
            tokens.get(i + 1).is_some_and(|next| unit(next))
                // Inches of water column: "1.5 in. w.c.", "0.5 in wg".
                || tokens.get(i + 1).is_some_and(|next| next == "in")
                    && tokens.get(i + 2).is_some_and(|next| unit(next))
                || i.checked_sub(1)
                    .is_some_and(|p| unit(&tokens[p]) && tokens[p].chars().all(char::is_alphabetic))
        }
        None => false,
    })
}

/// The cues of the units a question may ask a value in, one per kind of
/// quantity ([`Cues::units_asked`]).
const UNIT_CUES: &[Cue] = &[
    Cue::UnitPower,
    Cue::UnitCapacity,
    Cue::UnitFlow,
    Cue::UnitVelocity,
    Cue::UnitPressure,
    Cue::UnitTemperature,
    Cue::UnitCurrent,
    Cue::UnitVoltage,
    Cue::UnitRotation,
    Cue::UnitConcentration,
    Cue::UnitPercent,
];

/// The question cues, read from the store.
#[derive(Debug, Clone, Default)]
pub struct Cues {
    sets: HashMap<Cue, Vec<String>>,
}

impl Cues {
    /// Reads every `dq:QuestionCue` and its words and phrases. A cue the
    /// store does not hold is empty (and logged): nothing then matches it.
    pub async fn load(store: &dyn GraphStore) -> StoreResult<Self> {
        let rows = select(
            store,
            format!(
                "{PREFIXES}SELECT ?cue ?text WHERE {{ ?cue a dq:QuestionCue ; \
                 dq:cueWord|dq:cuePhrase ?text }} ORDER BY ?cue ?text"
            ),
        )
        .await?;
        let mut cues = Self::default();
        for row in &rows {
            let name = row.string("cue");
            let Some(cue) = name
                .strip_prefix(vocab::DQ)
                .and_then(|l| l.strip_prefix("cue_"))
                .and_then(|l| l.parse::<Cue>().ok())
            else {
                tracing::warn!(cue = %name, "unknown question cue; ignored");
                continue;
            };
            cues.sets.entry(cue).or_default().push(row.string("text"));
        }
        let missing: Vec<&'static str> = <Cue as strum::IntoEnumIterator>::iter()
            .filter(|c| !cues.sets.contains_key(c))
            .map(<&'static str>::from)
            .collect();
        if missing.is_empty() {
            tracing::info!(cues = cues.sets.len(), "question cues loaded");
        } else {
            tracing::warn!(?missing, "question cues missing from the store");
        }
        Ok(cues)
    }

    /// The words or phrases of a cue.
    pub fn list(&self, cue: Cue) -> &[String] {
        self.sets.get(&cue).map(Vec::as_slice).unwrap_or_default()
    }

    /// Whether `word` is one of the cue's words.
    pub fn is(&self, cue: Cue, word: &str) -> bool {
        self.list(cue).iter().any(|w| w == word)
    }

    /// Whether a question (`lower`: its text in lower case, `first`: its
    /// first word) opens as a yes/no question does: with a word of
    /// dq:cue_yes_no ("is", "does", "can") that is not a contraction read
    /// without its apostrophe ("we're shutting AHU-6 off …" opens with no
    /// "were").
    pub fn opens_yes_no(&self, first: &str, lower: &str) -> bool {
        self.is(Cue::YesNo, first) && !opens_with_contraction(lower)
    }

    /// The words and phrases that ask for a value: dq:cue_number's (a
    /// number: "how many degrees", "setpoint") and dq:cue_quantity's (a
    /// quantity, stated or not: "how often", "interval").
    pub fn asking_value(&self) -> impl Iterator<Item = &String> {
        self.list(Cue::Number)
            .iter()
            .chain(self.list(Cue::Quantity))
    }

    /// Whether any of `words` is one of the cue's words.
    pub fn any(&self, cue: Cue, words: &[String]) -> bool {
        words.iter().any(|w| self.is(cue, w))
    }

    /// Where the first of `words` that is a cue word stands.
    pub fn position(&self, cue: Cue, words: &[String]) -> Option<usize> {
        words.iter().position(|w| self.is(cue, w))
    }

    /// Whether one of the cue's phrases occurs in the (lower-cased) text.
    pub fn in_text(&self, cue: Cue, lower: &str) -> bool {
        self.list(cue).iter().any(|p| lower.contains(p.as_str()))
    }

    /// Whether a phrase of `dq:cue_define_phrase` asks what something is
    /// ("what is a vav", "what does dat stand for"): not when what it
    /// names is said to have something ("what is a chiller's min run
    /// time" asks the run time, [`possessive_follows`]).
    pub fn asks_definition(&self, lower: &str) -> bool {
        !self.definition_phrases(lower).is_empty()
    }

    /// Where the phrases of [`Self::asks_definition`] are said: each
    /// phrase's start and end in `lower`.
    pub fn definition_phrases(&self, lower: &str) -> Vec<(usize, usize)> {
        self.list(Cue::DefinePhrase)
            .iter()
            .flat_map(|p| phrase_at(lower, p).map(move |at| (at, at + p.len())))
            .filter(|&(_, end)| !possessive_follows(lower, end))
            .collect()
    }

    /// Whether `word` is one of the single-word entries of some cue (the
    /// cues about values aside: their words are content).
    pub fn is_cue_word(&self, word: &str) -> bool {
        self.question_words().any(|e| e == word)
    }

    /// Whether a stemmed term is the stem of a word of some cue ("make" of
    /// "makes", "part" of "part no"; the cues about values aside).
    pub fn knows_stem(&self, term: &str) -> bool {
        self.question_words()
            .flat_map(|entry| words(entry))
            .any(|w| stem(&w) == term)
    }

    /// The entries of the cues that name question words.
    fn question_words(&self) -> impl Iterator<Item = &String> {
        Cue::question_cues().flat_map(|cue| self.list(cue))
    }

    /// Whether one of the cue's words or phrases occurs in the
    /// (lower-cased) text as words ([`phrase_at`]: "min" is not in "mind").
    pub fn says(&self, cue: Cue, lower: &str) -> bool {
        self.list(cue)
            .iter()
            .any(|p| phrase_at(lower, p).next().is_some())
    }

    /// The units a question asks a value in (`lower`: its text in lower
    /// case; `named`: whether a byte offset of it lies in a name the
    /// grounder read, "Unitary-HP"): every unit of each kind (the unit
    /// cues, dq:cue_unit_power …) of which it says one as a word of its
    /// own ("what hp is the CT-1 fan motor", "hood exhaust cfm?", "flame
    /// signal ua"). Not one after a number ("at 55 °F" is a condition) or
    /// after "per" or a vague count ("a few degrees high"), and a unit of
    /// time only after "in" ("in seconds": "after hours" asks for none).
    /// A one-letter unit ("F", "A") is read in passages, never as asked.
    /// Empty when the question names none.
    pub fn units_asked(&self, lower: &str, named: impl Fn(usize) -> bool) -> Vec<String> {
        const VAGUE: &[&str] = &["per", "few", "couple", "several", "some"];
        let tokens: Vec<(usize, &str)> = lower
            .split_whitespace()
            .map(|t| {
                let trimmed = t.trim_start_matches(['(', '"', '\'']);
                let at = trimmed.as_ptr() as usize - lower.as_ptr() as usize;
                (
                    at,
                    trimmed.trim_end_matches([')', '?', ',', ';', ':', '!', '"', '\'']),
                )
            })
            .collect();
        let is_number = |t: &str| {
            t.trim_start_matches(['~', '+', '-', '±', '<', '>'])
                .starts_with(|c: char| c.is_ascii_digit())
        };
        let is_unit = |t: &str, u: &String| {
            (t == u || t.trim_end_matches('.') == u.trim_end_matches('.'))
                && !(u.chars().count() == 1 && u.chars().all(char::is_alphabetic))
        };
        let asked = |i: usize, u: &String, time: bool| {
            let (at, t) = tokens[i];
            let before = |k: usize| i.checked_sub(k).map(|j| tokens[j].1);
            is_unit(t, u)
                && !named(at)
                && !before(1).is_some_and(|p| is_number(p) || VAGUE.contains(&p))
                && !before(2).is_some_and(|p| VAGUE.contains(&p))
                && (!time || before(1).is_some_and(|p| p == "in"))
        };
        let says = |cue: Cue, time: bool| {
            let units = self.list(cue);
            (0..tokens.len()).any(|i| units.iter().any(|u| asked(i, u, time)))
        };
        let mut out: Vec<String> = Vec::new();
        for (cue, time) in UNIT_CUES
            .iter()
            .map(|&c| (c, false))
            .chain([(Cue::DurationUnit, true)])
        {
            if says(cue, time) {
                for u in self.list(cue) {
                    if !out.contains(u) {
                        out.push(u.clone());
                    }
                }
            }
        }
        out
    }

    /// The (lower-cased) text with the phrases that say the whole building
    /// or model (dq:cue_scope) blanked out, where no "of" follows them:
    /// "model" in "what sensor types does the model have" is no product
    /// word, in "the model of CH-1" it is.
    pub fn without_scope(&self, lower: &str) -> String {
        let mut out = lower.to_owned();
        for phrase in self.list(Cue::Scope) {
            for at in phrase_at(lower, phrase) {
                let rest = lower[at + phrase.len()..].trim_start();
                if rest.starts_with("of ") || rest == "of" {
                    continue;
                }
                out.replace_range(at..at + phrase.len(), &" ".repeat(phrase.len()));
            }
        }
        out
    }

    /// Whether the (lower-cased) text asks for a number: a count word, or
    /// a count phrase not bound to the noun before it ("the number of
    /// boxes" counts, "the serial number of CH-1" names a property; so
    /// does one opening a clause after a name and a colon or a dash:
    /// "HWP2: number of coils it supplies").
    pub fn asks_count(&self, lower: &str) -> bool {
        if words(lower).iter().any(|w| self.is(Cue::Count, w)) {
            return true;
        }
        // "how many tons", "how many hp": a unit after the phrase asks for
        // a value in it, not for a count of things.
        let unit_after = |end: usize| {
            lower[end..].split_whitespace().next().is_some_and(|w| {
                let w = w.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '%');
                self.is(Cue::QuantityUnit, w) || UNIT_CUES.iter().any(|&c| self.is(c, w))
            })
        };
        self.list(Cue::CountPhrase).iter().any(|phrase| {
            lower.match_indices(phrase.as_str()).any(|(at, _)| {
                let before = lower[..at].split_whitespace().next_back();
                !unit_after(at + phrase.len())
                    && (!phrase.starts_with("number")
                        || before.is_none_or(|w| {
                            w.ends_with([':', ';', '-', '\u{2013}', '\u{2014}'])
                                || self.is(
                                    Cue::FunctionWord,
                                    w.trim_matches(|c: char| !c.is_alphanumeric()),
                                )
                        }))
            })
        })
    }
}

/// Whether two sentences speak of the same thing: they share a word of
/// content (four letters or more, the same stem; not a function word nor
/// one every sentence of a sequence may use: "shall", "follows", "each").
fn same_subject(a: &str, b: &str) -> bool {
    const COMMON: &[&str] = &[
        "shall", "will", "must", "should", "would", "could", "follow", "follows", "each", "every",
        "also", "then", "there", "these", "those", "have", "been", "into", "they", "them", "their",
        "only", "more", "less", "above", "below", "unless", "other", "same", "such",
    ];
    let content = |s: &str| -> Vec<String> {
        words(s)
            .into_iter()
            .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 4)
            .filter(|w| !crate::ground::is_stop_word(w) && !COMMON.contains(&w.as_str()))
            .map(|w| stem(&w))
            .collect()
    };
    let b = content(b);
    content(a).iter().any(|w| b.contains(w))
}

/// Most lines a lead-in ("The default time delay period shall be as
/// follows:") stands over: the items of its list.
const LEAD_IN_LINES: usize = 8;

/// [`quotable`]'s sentences (as [`openings_of`] gives them, by index),
/// each with the lead-in of the list it is an item of: the sentence that
/// ends its line with a colon ("Suppress zone temperature alarms as
/// follows:"), with the sentence before it on that line when the two speak
/// of the same thing ([`same_subject`]: "Calculate a time-delay period
/// after any change in setpoint … The default time delay period shall be
/// as follows:"). An item stands under its lead-in as a step stands under
/// its heading: "For thermal zone temperature cooling requests: 9 minutes
/// per °C …" answers a question about the suppression after a setpoint
/// change only with it. A sentence before that speaks of something else
/// ("Each box has a cooling maximum airflow … The project rules used by
/// the test and balance contractor are:") says what the section is about,
/// not the list, and is left out. A lead-in stands over the lines after
/// it, at most [`LEAD_IN_LINES`], up to the next line that ends with a
/// colon or a table (whose rows carry their caption), or, when its first
/// item is a bare phrase, a line that ends as a sentence. `None` for a
/// sentence of the lead-in's own line and for one no lead-in stands over.
fn lead_ins_of(text: &str, lines: &[(usize, String)]) -> Vec<Option<std::ops::Range<usize>>> {
    // The sentences of each line, by index, in order.
    let mut spans: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    for (k, (n, _)) in lines.iter().enumerate() {
        match spans.last_mut() {
            Some((m, r)) if m == n => r.end = k + 1,
            _ => spans.push((*n, k..k + 1)),
        }
    }
    let raw: Vec<&str> = text.lines().collect();
    let mut out = vec![None; lines.len()];
    // The lead-in's sentences, the lines it may still stand over, and
    // whether its list's first item is a bare phrase.
    let mut lead: Option<(std::ops::Range<usize>, usize, Option<bool>)> = None;
    for (at, (n, span)) in spans.iter().enumerate() {
        // A table's rows carry their caption already ([`quotable`]); a
        // table ends the list a lead-in stands over.
        if raw.get(*n).is_some_and(|l| table_cells(l).is_some()) {
            lead = None;
            continue;
        }
        let last = span.end - 1;
        // "Calculate the current system ventilation efficiency as" stands
        // over the formula on the next line, and only over it.
        let formula_next = spans
            .get(at + 1)
            .is_some_and(|(_, next)| is_formula(&lines[next.start].1));
        if formula_next && opens_formula(&lines[last].1) {
            lead = Some((last..last + 1, 1, None));
            continue;
        }
        if opens_list(&lines[last].1) {
            // "Calculate a time-delay period after any change in setpoint …
            // The default time delay period shall be as follows:": the
            // sentence before goes with the lead-in when both speak of the
            // same thing.
            let first = if last > span.start && same_subject(&lines[last - 1].1, &lines[last].1) {
                last - 1
            } else {
                last
            };
            lead = Some((first..last + 1, LEAD_IN_LINES, None));
            continue;
        }
        // A list whose first item is a bare phrase ("Occupied mode") ends
        // at a line that ends as a sentence: "See the operation mode
        // enumeration … for the detailed description." is the paragraph
        // after it, not an item.
        let line = raw.get(*n).copied().unwrap_or_default();
        let sentence = line.trim_end().ends_with(['.', '!', '?']);
        if let Some((range, left, bare)) = &mut lead {
            if *left == 0 || (*bare == Some(true) && sentence) {
                lead = None;
            } else {
                *left -= 1;
                bare.get_or_insert(is_bare_phrase(line));
                for k in span.clone() {
                    out[k] = Some(range.clone());
                }
            }
        }
    }
    out
}

/// When two quoted table rows carry the same caption ([`quotable`]: "When
/// California Title 24-2016 is used: Device type: …; …"), the length of
/// the caption and its ": " at the start of `b`, so that it is said once.
/// A row without a caption ("Mode: Warm-up; SAT-SP: 90 °F") shares none:
/// its first cell is not followed by another "name: value" before its
/// "; ".
pub fn shared_caption(a: &str, b: &str) -> Option<usize> {
    let (caption, rest_a) = a.split_once(": ")?;
    let rest_b = b.strip_prefix(caption)?.strip_prefix(": ")?;
    let row = |rest: &str| {
        rest.find(": ")
            .is_some_and(|cell| rest.find("; ").is_none_or(|next| cell < next))
    };
    (!caption.contains("; ") && row(rest_a) && row(rest_b)).then_some(caption.len() + 2)
}

/// A line as the caption of the table after it: trimmed, without its
/// closing full stop or colon ("When California Title 24-2016 is used").
pub fn as_caption(line: &str) -> &str {
    line.trim().trim_end_matches(['.', ':'])
}

/// Whether a list item is a bare phrase: it ends without punctuation
/// ("Occupied mode", "Setup mode (unoccupied)"), not as a sentence nor as
/// a clause of one ("1. when oveFloSet equals to 1, force … to zero,").
pub fn is_bare_phrase(item: &str) -> bool {
    item.trim_end()
        .chars()
        .last()
        .is_some_and(|c| c.is_alphanumeric() || c == ')')
}

/// Whether a sentence leads into a list: it ends with a colon ("… as
/// follows:").
fn opens_list(sentence: &str) -> bool {
    sentence.trim_end().ends_with(':')
}

/// Whether a sentence leads into a formula: it ends with "as" ("Calculate
/// the current system ventilation efficiency as").
fn opens_formula(sentence: &str) -> bool {
    sentence.trim_end().to_lowercase().ends_with(" as")
}

/// Whether a sentence leads into what follows it, a list or a formula:
/// alone it says nothing.
pub fn leads_in(sentence: &str) -> bool {
    opens_list(sentence) || opens_formula(sentence)
}

/// Whether a passage gives the value a question asks for (`units`: see
/// [`states_quantity`]): it states a quantity, or gives the sequence
/// parameter that holds it as a value ("the active cooling maximum is
/// VCooMax_flow", "TSupSet shall be TSupWarUpSetBac", "Cooldown:
/// VCooMax_flow": Guideline 36 gives its setpoints so,
/// [`names_parameter`]) — after "is", "be", "=", ":" and the like, not
/// after the words it names ("It outputs discharge airflow setpoint
/// VSet_flow, damper position setpoint yDam, …" lists outputs). A
/// parameter's name says where the value is, not which value it is: it
/// does not make a sentence the better answer, only one that may answer.
pub fn gives_value(text: &str, units: &[String]) -> bool {
    gives_value_besides(text, units, &[])
}

/// Whether a passage gives a value ([`gives_value`]) other than by naming
/// one of the parameters a question names (`named`): "what is the default
/// TOutHigLimCutLow" is not answered by "… plus the hysteresis low limit
/// parameter (TOutHigLimCutLow …)", which names what is asked and gives
/// nothing of its value.
pub fn gives_value_besides(text: &str, units: &[String], named: &[&str]) -> bool {
    states_quantity(text, units) || (!units.is_empty() && gives_parameter(text, named))
}

/// The sequence parameters a text names ([`names_parameter`]), as written.
pub fn parameters_named(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| names_parameter(w))
        .collect()
}

/// The words after which a sequence parameter is given as a value (not
/// "and", which joins the names of a list as often).
const VALUE_AFTER: &[&str] = &[
    "is", "be", "are", "equals", "equal", "to", "at", "of", "between", "than", "as",
];

/// Whether a text gives a sequence parameter as a value ([`gives_value`]),
/// one not among `skip`.
fn gives_parameter(text: &str, skip: &[&str]) -> bool {
    let runs = text
        .char_indices()
        .filter(|&(i, c)| {
            (c.is_alphanumeric() || c == '_')
                && !text[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|p| p.is_alphanumeric() || p == '_')
        })
        .map(|(i, _)| {
            let end = text[i..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(text.len(), |n| i + n);
            (i, &text[i..end])
        });
    for (start, run) in runs {
        // A skipped parameter still gives its value where it is assigned
        // one ("TOut_min=16°C").
        let assigned = || text[start + run.len()..].trim_start().starts_with('=');
        if !names_parameter(run) || (skip.contains(&run) && !assigned()) {
            continue;
        }
        let before = text[..start].trim_end();
        let after_mark = before.ends_with([':', '=', '(', ',', '<', '>']);
        let word = before
            .rsplit(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or_default()
            .to_lowercase();
        if after_mark
            || (before.ends_with(|c: char| c.is_alphanumeric())
                && VALUE_AFTER.contains(&word.as_str()))
        {
            return true;
        }
    }
    false
}

/// Whether a word is the name of a sequence parameter, as Guideline 36
/// writes them: letters and digits run together, in mixed case, with an
/// underscore ("VCooMax_flow", "TSupCoo_min"), opening in lower case
/// with two capitals ("maxHeaSpe", "uOpeMod") or with three capitals or
/// more ("TSupWarUpSetBac"). Not a product line's name ("AirPoint",
/// "ThermaLoop"), a point's ("SAT-SP", "ZNT") nor a word ("iPad").
pub fn names_parameter(word: &str) -> bool {
    let upper = word.chars().filter(char::is_ascii_uppercase).count();
    let lower = word.chars().filter(char::is_ascii_lowercase).count();
    word.len() >= 4
        && upper > 0
        && lower > 0
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !word.starts_with('_')
        && (word.contains('_')
            || upper >= 3
            || (upper >= 2 && word.starts_with(|c: char| c.is_ascii_lowercase())))
}

/// The one name a formula line defines, as a word: "sysveneff" of
/// "sysVenEff = 1 + (VUncOutAir_flow/VSumZonPri_flow) - uOutAirFra_max";
/// `None` for a line that is no such formula.
pub fn defined_name(line: &str) -> Option<String> {
    let (left, right) = line.split_once('=')?;
    match words(left).as_slice() {
        [name] if !right.trim().is_empty() => Some(name.clone()),
        _ => None,
    }
}

/// Whether a line is a formula that defines one name ([`defined_name`]).
pub fn is_formula(line: &str) -> bool {
    defined_name(line).is_some()
}

#[cfg(test)]
pub(crate) mod tests {

    #[test]
    fn iso_dates_are_written_in_words_and_other_numbers_kept() {
        assert_eq!(
            super::dates_in_words("2025-06-18 — vav 2-14 hot call; K-factor 520 re-entered"),
            "18 June 2025 — vav 2-14 hot call; K-factor 520 re-entered"
        );
        assert_eq!(
            super::dates_in_words("returned on 2025-07-10 at 07:00, see 2026-03."),
            "returned on 10 July 2025 at 07:00, see March 2026."
        );
        // Not dates: names with numbers, a year range, a day that does not
        // exist, ASHRAE 90.1-2016.
        for kept in [
            "VAV-2-14 and YCH-9000",
            "2019-20 season",
            "2025-02-30",
            "ASHRAE 90.1-2016",
            "ch2025-06",
        ] {
            assert_eq!(super::dates_in_words(kept), kept);
        }
    }

    #[test]
    fn phrasal_verbs_read_as_one_word_and_compounds_as_their_verb() {
        assert_eq!(
            compound_forms("below what outside temp are the chillers locked out"),
            ["lockout"]
        );
        assert_eq!(
            compound_forms("when does the boiler shut down"),
            ["shutdown"]
        );
        assert_eq!(
            compound_forms("chiller lockout and warmup"),
            ["lock", "warm"]
        );
        // Nothing to add: no particle, a particle after a number or a short
        // word, a compound whose root is too short to be a word.
        assert!(compound_forms("what is the supply air temperature setpoint").is_empty());
        assert!(compound_forms("stage 2 up to 4, go up, cover, setback").is_empty());
    }

    /// The items of a list stand under the sentence that leads into it
    /// (with the one before it when both speak of the same thing); the
    /// lead-in's line, the lines before it and those of the next lead-in's
    /// list do not.
    #[test]
    fn list_items_stand_under_their_lead_in() {
        let lead_ins = |text: &str| -> Vec<Option<std::ops::Range<usize>>> {
            super::quotable_in_context(text)
                .into_iter()
                .map(|c| c.lead)
                .collect()
        };
        let text = "Timers are reset daily.\n\
                    Calculate a delay after any change in setpoint. The default delay shall be as follows:\n\
                    For alarms: 10 minutes per °F.\n\
                    For cooling requests: 5 minutes per °F. No longer than 30 minutes.\n\
                    Suppress alarms as follows:\n\
                    During warm-up.";
        let leads = lead_ins(text);
        assert_eq!(
            leads,
            [
                None,
                None,
                None,
                Some(1..3),
                Some(1..3),
                Some(1..3),
                None,
                Some(6..7)
            ]
        );
        // The sentence before the colon goes with it only when both speak
        // of the same thing ("delay" above; nothing here).
        let text = "Each box has a cooling maximum airflow. The project rules are:\n\
                    Vmin is 30 % of the maximum.";
        assert_eq!(lead_ins(text), [None, None, Some(1..2)]);
        let many: String = std::iter::once("Items as follows:".to_owned())
            .chain((0..10).map(|i| format!("Item {i}.")))
            .collect::<Vec<_>>()
            .join("\n");
        let leads = lead_ins(&many);
        assert_eq!(leads[super::LEAD_IN_LINES], Some(0..1));
        assert_eq!(leads[super::LEAD_IN_LINES + 1], None);
        // A list of bare phrases ends at a line that ends as a sentence:
        // the paragraph after it. Items that are clauses do not.
        let text = "The following hierarchy applies:\n\
                    Occupied mode\n\
                    Setup mode\n\
                    See the enumeration for the details.";
        assert_eq!(lead_ins(text), [None, Some(0..1), Some(0..1), None]);
        let text = "Provide switches to:\n\
                    1. when x equals 1, force the flow to zero,\n\
                    2. when x equals 2, force the damper open.";
        assert_eq!(lead_ins(text), [None, Some(0..1), Some(0..1)]);
        // A line ending in "as" leads into the formula on the next line,
        // and only into it; before a sentence it leads into nothing.
        let text = "Calculate the current system ventilation efficiency as\n\
                    sysVenEff = 1 + (VUncOutAir_flow/VSumZonPri_flow) - uOutAirFra_max\n\
                    The result is used as\n\
                    the divisor.";
        assert_eq!(lead_ins(text), [None, Some(0..1), None, None]);
        assert!(super::is_formula("sysVenEff = 1 + x"));
        assert!(!super::is_formula("if a = b then c"));
        assert!(!super::is_formula("sysVenEff ="));
    }

    /// Each sentence of a paragraph opened by an ISO date stands under that
    /// opening; a table row, an undated paragraph and the opening itself
    /// stand under none.
    #[test]
    fn record_sentences_point_to_their_dated_opening() {
        let text = "2025-10-14 — B-1 and B-2: annual service. Drain pH 6.8. Cutoffs tested.\n\
                    Boilers are serviced yearly. Drain pH above 6.0.\n\
                    2026-01: VAV-1-07 valve replaced.\n\
                    | Date | Work |\n| --- | --- |\n| 2025-05-06 | Tubes brushed |";
        let openings: Vec<Option<usize>> = super::quotable_in_context(text)
            .into_iter()
            .map(|c| c.opening)
            .collect();
        assert_eq!(openings, [None, Some(0), Some(0), None, None, None, None]);
        assert!(super::opens_with_date("2025-10-14 — B-1"));
        assert!(super::opens_with_date("2026-01: valve"));
        assert!(!super::opens_with_date("2025 was a cold year."));
        assert!(!super::opens_with_date("10-14-2025 entry"));
    }

    /// A later sentence of a paragraph opened by a label ("Stage 1: …")
    /// stands under the labelled sentence when it repeats the label, as a
    /// dated record's sentences do; one that does not and one with a
    /// label of its own stand under none.
    #[test]
    fn sentences_repeating_their_paragraphs_label_stand_under_it() {
        let text = "Stage 1: if SAT is below 40 °F, the economizer is disabled. Stage 1 clears when SAT is above 45 °F. The alarm is logged.\n\
                    Stage up: the lag boiler is enabled. Stage down: the lag boiler is disabled when stage up is over.";
        let openings: Vec<Option<usize>> = super::quotable_in_context(text)
            .into_iter()
            .map(|c| c.opening)
            .collect();
        assert_eq!(openings, [None, Some(0), None, None, None]);
        assert_eq!(
            super::label_of("Stage 1: if SAT is below 40 °F"),
            Some(vec!["stage".to_owned(), "1".to_owned()])
        );
        // A sentence, a long phrase and a time of day are no labels.
        assert_eq!(super::label_of("The dampers close: all of them."), None);
        assert_eq!(super::label_of("Each box on floor two reports: ZNT."), None);
        assert_eq!(super::label_of("Occupied at 06:00 each weekday."), None);
    }

    /// The later sentences of a paragraph that opens with a run-in
    /// heading ("YCO-300 CO2 sensors.") stand under it as a list's items
    /// stand under their lead-in; a paragraph that opens with a sentence,
    /// short or long, a dated record and a table row stand under none.
    #[test]
    fn sentences_stand_under_the_run_in_heading_of_their_paragraph() {
        let text = "YCO-300 CO2 sensors. The baseline assumes 420 ppm. Replace the sensor if it reads 75 ppm off.\n\
                    The fan speed loop runs. Changes are limited.\n\
                    2025-10-14 — B-1: annual service. Drain pH 6.8.\n\
                    | Item | Value |\n| --- | --- |\n| Filters. | MERV 8 |";
        let read = super::quotable_in_context(text);
        let leads: Vec<Option<std::ops::Range<usize>>> =
            read.iter().map(|c| c.lead.clone()).collect();
        assert_eq!(
            leads,
            [None, Some(0..1), Some(0..1), None, None, None, None, None]
        );
        // Only the heading itself is one.
        let heads: Vec<bool> = read.iter().map(|c| c.run_in).collect();
        assert_eq!(
            heads,
            [true, false, false, false, false, false, false, false]
        );
    }

    #[test]
    fn a_nested_item_stands_under_the_heading_of_the_item_it_is_in() {
        let text = "Setpoints\n\
                    Heating demand limit setpoint adjustment. The active heating setpoints shall be decreased. Changes are not cumulative.\n\
                    \x20 At Demand Limit Level 1, decrease setpoint by 0.5 °C (1 °F).\n\
                    \x20 At Demand Limit Level 3, decrease setpoint by 2 °C (4 °F).\n\
                    Occupancy sensor\n\
                    \x20 When the space has been unpopulated for 5 minutes, the setpoint is relaxed.\n\
                    \x20   The relaxed setpoint holds. It is restored later.\n\
                    The adjustment shall be frozen during demand limits.\n\
                    \x20 It applies to every zone.";
        let read = super::quotable_in_context(text);
        let said: Vec<(&str, Option<std::ops::Range<usize>>)> = read
            .iter()
            .map(|c| (c.text.as_str(), c.lead.clone()))
            .collect();
        assert_eq!(
            said,
            [
                ("Setpoints", None),
                ("Heating demand limit setpoint adjustment.", None),
                (
                    "The active heating setpoints shall be decreased.",
                    Some(1..2)
                ),
                ("Changes are not cumulative.", Some(1..2)),
                (
                    "At Demand Limit Level 1, decrease setpoint by 0.5 °C (1 °F).",
                    Some(1..2)
                ),
                (
                    "At Demand Limit Level 3, decrease setpoint by 2 °C (4 °F).",
                    Some(1..2)
                ),
                ("Occupancy sensor", None),
                (
                    "When the space has been unpopulated for 5 minutes, the setpoint is relaxed.",
                    Some(6..7)
                ),
                // Its item is a sentence, not a heading: the item above
                // that one is asked.
                ("The relaxed setpoint holds.", Some(6..7)),
                ("It is restored later.", Some(6..7)),
                ("The adjustment shall be frozen during demand limits.", None),
                // Under a sentence that is no heading, and nothing above.
                ("It applies to every zone.", None),
            ]
        );
    }

    #[test]
    fn dates_become_one_iso_word() {
        let d = |q: &str| super::dated(&super::words(q));
        assert_eq!(
            d("what was wrong w/ vav 2-14 in june 2025"),
            ["what", "was", "wrong", "w", "vav", "2-14", "in", "2025-06"]
        );
        assert_eq!(
            d("freeze alarm back in feb 25"),
            ["freeze", "alarm", "back", "in", "2025-02"]
        );
        assert_eq!(d("sept '25 reading"), ["2025-09", "reading"]);
        assert_eq!(d("on 18 jun 2025"), ["on", "2025-06-18"]);
        assert_eq!(d("may 25 2025 service"), ["2025-05-25", "service"]);
        // A month alone, a modal verb, or an abbreviation beside a number
        // that is no year stays as written.
        assert_eq!(
            d("the damper may open in march"),
            ["the", "damper", "may", "open", "in", "march"]
        );
        assert_eq!(d("dec 55 and dec 2"), ["dec", "55", "and", "dec", "2"]);
        assert_eq!(d("novel 2025"), ["novel", "2025"]);
        // A season and its year are the span of its months; winter spans
        // two years and names none; "fall" before a number is a verb.
        assert_eq!(
            d("in summer 2025 the pump leaked"),
            ["in", "2025-06/2025-08", "the", "pump", "leaked"]
        );
        assert_eq!(d("summer '24 test"), ["2024-06/2024-08", "test"]);
        assert_eq!(d("spring 2024 test"), ["2024-03/2024-05", "test"]);
        assert_eq!(d("fall 2025"), ["2025-09/2025-11"]);
        assert_eq!(d("a spring 15 lb"), ["a", "spring", "15", "lb"]);
        assert_eq!(
            d("let it fall 10 degrees"),
            ["let", "it", "fall", "10", "degrees"]
        );
        assert_eq!(d("winter 2025"), ["winter", "2025"]);
        // A record's date holds the month it begins with and a season's
        // span it lies in.
        assert!(super::date_holds("2025-07", "2025-07-09"));
        assert!(super::date_holds("2025-06/2025-08", "2025-07-09"));
        assert!(super::date_holds("2025-06/2025-08", "2025-08:"));
        assert!(!super::date_holds("2025-06/2025-08", "2025-09-04"));
        assert!(!super::date_holds("2025-06/2025-08", "2024-07-09"));
        assert!(!super::date_holds("2025-07", "CHWP-1"));
        assert!(super::is_date_term("2025-06/2025-08") && !super::is_date_term("62.1"));
    }

    #[test]
    fn table_rows_are_quoted_with_their_header() {
        // Two rows of one captioned table share the caption; rows of a
        // table without one, or a row and a prose sentence, share none.
        let cap = "When Title 24 is used: Device type: Fixed dry bulb; Zones: 6";
        let next = "When Title 24 is used: Device type: Fixed dry bulb; Zones: 7";
        assert_eq!(
            super::shared_caption(cap, next),
            Some("When Title 24 is used: ".len())
        );
        assert_eq!(
            super::shared_caption(
                "Mode: Warm-up; SAT-SP: 90 °F",
                "Mode: Cool-down; SAT-SP: 55 °F"
            ),
            None
        );
        assert_eq!(
            super::shared_caption("Note: see below.", "Note: the end."),
            None
        );
        let text = "The plant resets as below.\n| Plant reset value | CHW-DP-SP | CHWST-SP |\n|---|---|---|\n| 0 % | 5 psi | 50 °F |\n| 100 % | 15 psi | 42 °F |\nAfter the table. Second sentence.";
        // The short sentence just before the table is its caption: each
        // row is quoted under it too.
        assert_eq!(
            quotable(text),
            [
                "The plant resets as below.",
                "The plant resets as below: Plant reset value: 0 %; CHW-DP-SP: 5 psi; CHWST-SP: 50 °F",
                "The plant resets as below: Plant reset value: 100 %; CHW-DP-SP: 15 psi; CHWST-SP: 42 °F",
                "After the table.",
                "Second sentence.",
            ]
        );
        // A sentence that leads into the table with a colon is its caption
        // up to 30 words.
        assert_eq!(
            quotable("The hot-water supply setpoint is reset from the outside air temperature between 120 °F and 160 °F:\n| OAT | HWST-SP |\n| 35 °F | 140 °F |").last().unwrap(),
            "The hot-water supply setpoint is reset from the outside air temperature between 120 °F and 160 °F: OAT: 35 °F; HWST-SP: 140 °F"
        );
        // A heading, a long sentence ending in a full stop, a lead-in of
        // more than 30 words or nothing before the table is no caption.
        for before in [
            "10. Alarms\n",
            "The hot-water supply setpoint is reset from the outside air temperature between 120 °F and 160 °F.\n",
            "The hot-water supply setpoint is reset from the outside air temperature between 120 °F and 160 °F, and the pump differential pressure setpoint from the valve positions of the coils it serves, as below:\n",
            "",
        ] {
            let text = format!("{before}| Mode | SAT |\n| Warm-up | 90 °F |");
            assert_eq!(
                quotable(&text).last().unwrap(),
                "Mode: Warm-up; SAT: 90 °F",
                "{before}"
            );
        }
        // A table without a header has no caption.
        assert_eq!(
            quotable("Values below.\n| 0 % | 5 psi |"),
            ["Values below.", "0 % | 5 psi"]
        );
        // A chunk that begins inside a table has no header to give.
        assert_eq!(
            quotable("50 % | 15 psi | 50 °F\n100 % | 15 psi | 42 °F"),
            ["50 % | 15 psi | 50 °F", "100 % | 15 psi | 42 °F"]
        );
    }

    use super::*;
    use crate::import::{self, SourceFile};
    use crate::store::{EmbeddedStore, GraphKind};

    /// The cues of `ontology/core/cues.ttl`, through a scratch store.
    pub(crate) async fn cues() -> Cues {
        let store = EmbeddedStore::in_memory().unwrap();
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let file = SourceFile::new(
            root.join("ontology/core/cues.ttl"),
            &root,
            GraphKind::Ontology,
        );
        import::import_file(&store, None, &file).await.unwrap();
        Cues::load(&store).await.unwrap()
    }

    #[tokio::test]
    async fn every_cue_is_in_the_ontology() {
        let cues = cues().await;
        for cue in <Cue as strum::IntoEnumIterator>::iter() {
            assert!(!cues.list(cue).is_empty(), "{cue:?} has no words");
        }
        assert!(cues.is(Cue::FeedVerb, "serves"));
        assert!(cues.in_text(Cue::DefinePhrase, "what is a vav"));
        assert!(!cues.in_text(Cue::DefinePhrase, "what is the flow"));
        assert!(cues.asks_definition("what is a vav?"));
        assert!(cues.asks_definition("what is a chiller, and what does it do"));
        assert!(!cues.asks_definition("what is a chiller's min run time"));
        assert!(!cues.asks_definition("what is a chilled water pump’s seal"));
        assert!(!cues.asks_definition("what is the flow"));
        assert_eq!(
            cues.position(Cue::Upstream, &words("is it fed upstream")),
            Some(2)
        );
    }

    /// A passage states a quantity by a number with a unit beside it or
    /// written onto it, or a word that takes a number ("Level 3"); section
    /// numbers, standard names and years are none. Questions ask for one
    /// by the quantity cues, as words ("min" is not in "mind").
    #[tokio::test]
    async fn quantities_are_numbers_with_units() {
        let cues = cues().await;
        let units = cues.list(Cue::QuantityUnit);
        let q = |t: &str| states_quantity(t, units);
        assert!(q("the airflow is less than 70% of setpoint"));
        assert!(q("for 5 minutes (lowFloTim), generate a Level 3 alarm."));
        assert!(q(
            "the discharge temperature is 8 °C (15 °F) less than the setpoint"
        ));
        assert!(q("by default 12 Pa (0.05 inches)"));
        assert!(q("Maximum setpoint SPmax; Value: 1.5 in. w.c."));
        assert!(q("set at 3.0 in. WG"));
        assert!(!q("boxes 3 in a row"));
        assert!(q("SAT-SP: 90°F"));
        assert!(q("ramps at 10% per minute"));
        assert!(q("the bearings are greased every 6 months"));
        // A frequency needs no number, in a question for one alone.
        assert!(!q("Zero check: weekly"));
        let mut often = cues.list(Cue::DurationUnit).to_vec();
        often.extend(cues.list(Cue::FrequencyWord).iter().cloned());
        let f = |t: &str| states_quantity(t, &often);
        assert!(f(
            "Task: Water treatment test; Interval: Weekly in the cooling season"
        ));
        assert!(f(
            "The standby pump HWP-2 is exercised for 30 minutes every Monday at 10:30."
        ));
        assert!(f(
            "Zero the transmitter every 6 months with both ports open."
        ));
        assert!(f("Verify the calibration twice a year."));
        assert!(!f(
            "The DSP sensor is a Yorkland YDP-400 transmitter (0 to 2.5 in. w.c. range)."
        ));
        assert!(!f("Each box has a cooling maximum airflow."));
        // A sequence parameter gives a value, stating none: Guideline 36
        // names it.
        let g = |t: &str| gives_value(t, units);
        assert!(!q("the active cooling maximum is VCooMax_flow"));
        assert!(g("the active cooling maximum is VCooMax_flow"));
        assert!(g(
            "Supply air temperature setpoint TSupSet shall be TSupWarUpSetBac."
        ));
        assert!(g("ramp the fan to maxHeaSpe"));
        assert!(g("for 5 minutes"));
        assert!(!g("4. AirPoint VAV terminals and ThermaLoop boilers"));
        assert!(!g("SAT-SP is reset by trim and respond"));
        assert!(!g("The iPad"));
        assert!(!gives_value(
            "the active cooling maximum is VCooMax_flow",
            &[]
        ));
        assert!(g(
            "Occupied: max(VHeaMin_flow,VOccMin_flow); Cooldown: VHeaMin_flow"
        ));
        assert!(g("at 27 °C — then TSupSet is TSupWarUpSetBac"));
        assert!(!g("at once — then TSupSet is reset"));
        assert!(g(
            "The default range of outdoor air temperature (TOut_min=16°C, TOut_max=21°C)"
        ));
        assert!(!g(
            "It outputs discharge airflow setpoint VSet_flow, damper position setpoint yDam, hot water reset request yHeaValResReq and yHotWatPlaReq."
        ));
        // A parameter the question names is what it asks the value of:
        // naming it again gives none, naming another still gives one.
        let asked = parameters_named("default TOutHigLimCutHig / TOutHigLimCutLow in deg F?");
        assert_eq!(asked, ["TOutHigLimCutHig", "TOutHigLimCutLow"]);
        let hysteresis = "the high limit cutoff setpoint plus the hysteresis low limit parameter (TOutHigLimCutLow or hOutHigLimCutLow)";
        assert!(g(hysteresis));
        assert!(!gives_value_besides(hysteresis, units, &asked));
        assert!(gives_value_besides(
            "TSupSet shall be TSupWarUpSetBac",
            units,
            &asked
        ));
        assert!(gives_value_besides(
            "TOutHigLimCutLow is 1 °C (2 °F)",
            units,
            &asked
        ));
        assert!(gives_value_besides(
            "The default range (TOut_min=16°C, TOut_max=21°C)",
            units,
            &["TOut_min", "TOut_max"]
        ));
        assert!(!q(
            "according to Section 5.6.6 of ASHRAE Guideline 36, May 2020."
        ));
        assert!(!q(
            "It outputs the alarms about the low airflow yLowFloAla."
        ));
        assert!(!q("Standard 62.1 and Title 24 zones, G36 part 5."));
        assert!(cues.says(Cue::Number, "at what oat are the chillers locked out"));
        // Times and frequencies are often written in words ("on the 15th
        // of each month", "06:00"): they ask for a value, not a number.
        assert!(cues.says(Cue::Quantity, "how often do the boilers swap lead"));
        assert!(!cues.says(Cue::Number, "how often do the boilers swap lead"));
        assert!(cues.says(Cue::Number, "low airflow alarm thresholds?"));
        assert!(!cues.says(Cue::Number, "which ahu feeds vav-1-01, mind you"));
        assert!(cues.says(Cue::Quantity, "the default humidity setpoint"));
        // A number asked for by itself, not by a word that also names a
        // thing ("how is the setpoint reset" asks for a description).
        assert!(cues.says(Cue::Number, "stage 3 trigger?"));
        assert!(!cues.says(Cue::Number, "how is the supply air temp setpoint reset"));
        // Value words are content, not question words of the graph reader.
        assert!(!cues.is_cue_word("temperature"));
        assert!(!cues.knows_stem(&stem("minutes")));
    }

    #[test]
    fn words_stems_and_squash() {
        // A possessive is its noun; a contraction keeps its letters.
        assert_eq!(
            words("What's VAV-2-14's -x- DAT?"),
            ["whats", "vav-2-14", "x", "dat"]
        );
        assert_eq!(
            words("chiller 1's service, the box's damper, let's see"),
            [
                "chiller", "1", "service", "the", "box", "damper", "lets", "see"
            ]
        );
        assert_eq!(
            words("ASHRAE 90.1: 8.3 °C. End 55."),
            ["ashrae", "90.1", "8.3", "c", "end", "55"]
        );
        // A month said alone after a word of time; not "may" as a verb,
        // nor a month beside its year (a date term).
        assert_eq!(
            months_alone("vav 1-03 hood rdgs at the mar airflow check"),
            [3]
        );
        assert_eq!(months_alone("what happened since june? may i ask"), [6]);
        assert!(months_alone("what happened since june 2025").is_empty());
        assert!(months_alone("boilers shouldnt be firing in july").is_empty());
        assert!(date_in_month("2026-03-20", 3) && !date_in_month("2026-04-13", 3));
        // A range in percent or degrees is its two bounds; a box's
        // number and a date are one word.
        assert_eq!(
            words("clg loop 0-25%, 55-65°F, 1.5-2 in, vav 3-01, 2025-06"),
            [
                "clg", "loop", "0", "25", "55", "65", "f", "1.5-2", "in", "vav", "3-01", "2025-06"
            ]
        );
        // A thousands separator is no break: "1,000" is the number 1000;
        // a comma before other than three digits still parts two numbers.
        assert_eq!(
            words("Vcool-max at 1,000 ppm; 11,500 cfm; 1,2 and 3,4567."),
            [
                "vcool-max",
                "at",
                "1000",
                "ppm",
                "11500",
                "cfm",
                "1",
                "2",
                "and",
                "3",
                "4567"
            ]
        );
        assert_eq!(stem("restarts"), "restart");
        assert_eq!(stem("gas"), "gas");
        assert_eq!(squash("VAV 2-14"), "vav214");
    }

    #[test]
    fn sentences_split_lines_and_sentence_ends_but_not_numbers() {
        let s =
            sentences("# Heading\nFirmware 3.5.1 is approved. The YNX-520 runs 5.2.3.\n| a | b |");
        assert_eq!(
            s,
            [
                "Heading",
                "Firmware 3.5.1 is approved.",
                "The YNX-520 runs 5.2.3.",
                "a | b"
            ]
        );
    }

    #[tokio::test]
    async fn a_count_phrase_bound_to_a_noun_counts_nothing() {
        let c = cues().await;
        assert!(c.asks_count("how many vavs are on ahu-1"));
        assert!(c.asks_count("the number of boxes on ahu-2"));
        assert!(c.asks_count("number of points on vav-1"));
        assert!(c.asks_count("count the chillers"));
        // Opening a clause after a name and a colon or a dash.
        assert!(c.asks_count("hwp2: number of coils it supplies?"));
        assert!(c.asks_count("ahu-2 - number of points?"));
        assert!(!c.asks_count("serial number of ch-1?"));
        assert!(!c.asks_count("part number of the vav-2-14 controller"));
        // A unit after "how many" asks for a value in it.
        assert!(!c.asks_count("how many horsepower is the fan on the ct-1 cooling tower"));
        assert!(!c.asks_count("ahu3 clg block load - how many tons?"));
        assert!(!c.asks_count("how many degrees do the cooling setpoints go up"));
        assert!(c.asks_count("how many fans are on ahu-1"));
    }

    #[test]
    fn phrases_match_as_words() {
        let at = |t: &str, p: &str| phrase_at(t, p).collect::<Vec<_>>();
        assert_eq!(at("is it on? only on ahu-1", "on"), [6, 15]);
        assert_eq!(at("boxes w/o reheat", "w/o"), [6]);
        assert_eq!(at("ahu-1->vav-2", "->"), [5]);
        assert_eq!(at("hang off of ahu-1", "off of"), [5]);
        assert!(at("offoff of", "off of").is_empty());
    }

    #[test]
    fn camel_case_names_are_spaced_acronyms_kept() {
        assert_eq!(
            camel_spaced("G36 TerminalUnits / Reheat / AHUs / MultiZone / VAV"),
            "G36 Terminal Units / Reheat / AHUs / Multi Zone / VAV"
        );
        assert_eq!(camel_spaced("sysVenEff"), "sys Ven Eff");
    }
}
