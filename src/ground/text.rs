//! Tokenisation shared by the lexicon and the matcher.
//!
//! Text and lexicon entries go through the same tokeniser, so matching is an
//! exact comparison of token sequences: case is folded, runs of letters and
//! runs of digits are separate tokens ("VAV2-14" → `vav 2 14`), and the
//! separators between tokens are remembered so that a label match can insist
//! on starting and ending at word boundaries ("AHU-2" is not found inside
//! "AHU-2-1", and "VAV-2-14" never matches "VAV-21-4").

/// What separated a token from the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gap {
    /// Start of the text.
    Start,
    /// Nothing: a letter/digit change inside one word ("VAV2", "CO2").
    Joined,
    /// A hyphen or underscore inside one word ("VAV-2-14").
    Hyphen,
    /// Whitespace only.
    Space,
    /// Any other punctuation (",", "?", "/", "(" …): a phrase boundary.
    Other,
}

impl Gap {
    /// Whether the gap ends one word and starts another.
    pub(crate) fn is_word_boundary(self) -> bool {
        matches!(self, Self::Start | Self::Space | Self::Other)
    }
}

/// One token of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    /// Lower-case form.
    pub norm: String,
    /// Byte offset of the token in the text.
    pub start: usize,
    /// Byte offset just past the token.
    pub end: usize,
    /// What separated it from the previous token.
    pub gap: Gap,
    /// Every letter was written in upper case (false for digit tokens).
    pub upper: bool,
    /// The token is all ASCII digits.
    pub numeric: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Digit,
}

fn class_of(c: char) -> Option<Class> {
    if c.is_alphabetic() {
        Some(Class::Letter)
    } else if c.is_numeric() {
        Some(Class::Digit)
    } else {
        None
    }
}

/// Splits `text` into tokens.
pub(crate) fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut gap = Gap::Start;
    let mut current: Option<(usize, Class)> = None;
    let flush = |tokens: &mut Vec<Token>, start: usize, end: usize, gap: Gap| {
        let raw = &text[start..end];
        let upper = raw.chars().any(char::is_alphabetic)
            && raw
                .chars()
                .filter(|c| c.is_alphabetic())
                .all(char::is_uppercase);
        tokens.push(Token {
            norm: raw.to_lowercase(),
            start,
            end,
            gap,
            upper,
            numeric: raw.chars().all(|c| c.is_ascii_digit()),
        });
    };
    for (i, c) in text.char_indices() {
        let class = class_of(c);
        match (current, class) {
            (Some((_, cur)), Some(cl)) if cur == cl => {}
            (Some((start, _)), Some(cl)) => {
                flush(&mut tokens, start, i, gap);
                gap = Gap::Joined;
                current = Some((i, cl));
            }
            (None, Some(cl)) => current = Some((i, cl)),
            (cur, None) => {
                if let Some((start, _)) = cur {
                    flush(&mut tokens, start, i, gap);
                    gap = Gap::Joined;
                    current = None;
                }
                if tokens.is_empty() {
                    continue;
                }
                gap = match (gap, c) {
                    (Gap::Joined, '-' | '_') => Gap::Hyphen,
                    (Gap::Other, _) => Gap::Other,
                    (Gap::Joined | Gap::Hyphen | Gap::Space, c) if c.is_whitespace() => Gap::Space,
                    _ => Gap::Other,
                };
            }
        }
    }
    if let Some((start, _)) = current {
        flush(&mut tokens, start, text.len(), gap);
    }
    tokens
}

/// The lower-case token sequence of a lexicon entry, joined by single spaces:
/// the lookup key shared by text and lexicon.
pub(crate) fn key(surface: &str) -> String {
    let tokens = tokenize(surface);
    join(tokens.iter().map(|t| t.norm.as_str()))
}

/// Joins token forms with single spaces.
pub(crate) fn join<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for p in parts {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(p);
    }
    out
}

/// Splits a camelCase Haystack tag name into lower-case words
/// ("coolingTower" → "cooling tower"); `None` when it is one word.
pub(crate) fn camel_words(name: &str) -> Option<String> {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in name.chars() {
        if c.is_uppercase() && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    if words.len() > 1 {
        Some(key(&words.join(" ")))
    } else {
        None
    }
}

/// The phrases that may start at token `i`, longest first, none running
/// across punctuation: each as (end token, phrase key, plural), the key
/// as written and then, when its last word looks plural, with that word
/// singular ("air handlers" → "air handler", plural).
pub(crate) fn phrases_at(
    tokens: &[Token],
    i: usize,
    max_len: usize,
) -> impl Iterator<Item = (usize, String, bool)> + '_ {
    let longest = max_len.min(tokens.len().saturating_sub(i));
    (1..=longest)
        .rev()
        .map(move |len| i + len)
        .filter(move |&end| !tokens[i + 1..end].iter().any(|t| t.gap == Gap::Other))
        .flat_map(move |end| {
            let k = join(tokens[i..end].iter().map(|t| t.norm.as_str()));
            let singular = singular(&tokens[end - 1].norm).map(|stem| {
                let prefix = join(tokens[i..end - 1].iter().map(|t| t.norm.as_str()));
                if prefix.is_empty() {
                    stem.to_owned()
                } else {
                    format!("{prefix} {stem}")
                }
            });
            std::iter::once((end, k, false)).chain(singular.map(|s| (end, s, true)))
        })
}

/// The singular of an English plural as engineers write equipment names
/// ("vavs", "chillers", "boxes"); `None` when the word does not look plural.
pub(crate) fn singular(word: &str) -> Option<&str> {
    // "-us" is a Latin singular ("status", "bonus"), except where an
    // abbreviation of three letters takes the plural ("ahus", "rtus").
    if word.len() < 4
        || !word.is_ascii()
        || word.ends_with("ss")
        || (word.ends_with("us") && word.len() > 4)
    {
        return None;
    }
    if let Some(stem) = word.strip_suffix("es")
        && (stem.ends_with('x') || stem.ends_with("ch") || stem.ends_with("sh"))
    {
        return Some(stem);
    }
    word.strip_suffix('s')
}

/// Number of letters in a surface form (how short an abbreviation is).
pub(crate) fn letter_count(surface: &str) -> usize {
    surface.chars().filter(|c| c.is_alphabetic()).count()
}

/// English function words that never start a one-token match on their own:
/// grammar glue, not vocabulary (Haystack has markers such as `on`).
pub(crate) fn is_stop_word(token: &str) -> bool {
    matches!(
        token,
        "a" | "an"
            | "the"
            | "of"
            | "in"
            | "on"
            | "at"
            | "to"
            | "is"
            | "are"
            | "was"
            | "be"
            | "and"
            | "or"
            | "for"
            | "by"
            | "with"
            | "from"
            | "it"
            | "its"
            | "this"
            | "that"
            | "do"
            | "does"
            | "what"
            | "which"
            | "how"
            | "who"
            | "when"
            | "where"
            | "why"
            | "not"
            | "no"
            | "as"
            | "if"
            | "than"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norms(text: &str) -> Vec<String> {
        tokenize(text).into_iter().map(|t| t.norm).collect()
    }

    #[test]
    fn separators_and_case_fold_to_the_same_key() {
        assert_eq!(key("VAV-2-14"), "vav 2 14");
        assert_eq!(key("VAV 2-14"), "vav 2 14");
        assert_eq!(key("vav-2-14"), "vav 2 14");
        assert_eq!(key("VAV2-14"), "vav 2 14");
        assert_eq!(key("yvr 3100"), key("YVR-3100"));
        assert_ne!(key("VAV-21-4"), key("VAV-2-14"));
    }

    #[test]
    fn gaps_record_word_boundaries() {
        let t = tokenize("What feeds VAV-2-14? (AHU-2)");
        assert_eq!(
            norms("What feeds VAV-2-14? (AHU-2)"),
            ["what", "feeds", "vav", "2", "14", "ahu", "2"]
        );
        let gaps: Vec<Gap> = t.iter().map(|t| t.gap).collect();
        assert_eq!(
            gaps,
            [
                Gap::Start,
                Gap::Space,
                Gap::Space,
                Gap::Hyphen,
                Gap::Hyphen,
                Gap::Other,
                Gap::Hyphen
            ]
        );
        assert!(t[2].upper && !t[1].upper && t[3].numeric);
        let j = tokenize("CO2");
        assert_eq!(j[1].gap, Gap::Joined);
    }

    #[test]
    fn camel_case_and_plurals() {
        assert_eq!(
            camel_words("coolingTower").as_deref(),
            Some("cooling tower")
        );
        assert_eq!(camel_words("vav"), None);
        assert_eq!(singular("vavs"), Some("vav"));
        assert_eq!(singular("chillers"), Some("chiller"));
        assert_eq!(singular("boxes"), Some("box"));
        assert_eq!(singular("gas"), None);
        assert_eq!(singular("status"), None);
        assert_eq!(singular("ahus"), Some("ahu"));
        assert_eq!(singular("rtus"), Some("rtu"));
        assert_eq!(singular("campus"), None);
        assert_eq!(singular("class"), None);
    }

    #[test]
    fn non_ascii_text_does_not_panic() {
        let t = tokenize("Température über VAV-2-14 — ok");
        assert_eq!(t[0].norm, "température");
        assert!(t.iter().any(|t| t.norm == "14"));
    }
}
