//! The default synthesizer: deterministic and extractive. Graph facts are
//! already sentences; document evidence is the best-matching sentences of
//! the top chunks, scored by how many of the question's content words they
//! hold.

use crate::text::{
    camel_spaced, opens_with_date, quotable_in_context, squash, states_quantity, stem, words,
};

/// A sentence picked from a text, with what it matched.
#[derive(Debug, Clone)]
pub struct Picked {
    /// Index of the chunk (or 0 for selected text).
    pub source: usize,
    /// The sentence.
    pub text: String,
    /// Focus terms it holds.
    pub matched: Vec<String>,
    /// Its score.
    pub score: f32,
}

impl Picked {
    /// A sentence of text `source` quoted beside the picked ones (it leans
    /// on them or they on it), unscored, with the focus terms it holds.
    pub fn beside(focus: Focus<'_>, source: usize, text: &str) -> Self {
        Self {
            source,
            text: text.to_owned(),
            matched: matched_terms(focus, text),
            score: 0.0,
        }
    }
}

/// Whether a term is a compound of words that is not a phrasal one:
/// "cooling-only", "fan-powered", not "warm-up" or "leak-by" (the first
/// word is what those are: [`PARTICLES`]), nor "2025-05" or "ahu-1".
fn compound(term: &str) -> bool {
    // Read for every word a term is matched against: no allocation.
    term.contains('-')
        && term
            .split('-')
            .all(|p| !p.is_empty() && p.chars().all(char::is_alphabetic))
        && term
            .rsplit('-')
            .next()
            .is_some_and(|p| !PARTICLES.contains(&p))
}

/// Whether a sentence word matches a focus term: same stem, or one is a
/// prefix of the other ("temp"/"temperature", "max"/"maximum").
pub(crate) fn term_matches(term: &str, word: &str) -> bool {
    if same_word(term, word) {
        return true;
    }
    // A compound asked is held only as itself ([`same_word`], or its words
    // side by side: [`matched_terms`]): "cooling" does not hold
    // "cooling-only" by prefix, it is the other kind of terminal unit.
    if compound(term) {
        return false;
    }
    // A compound holds its first word only as [`matched_terms`] reads its
    // parts: "hot-water" does not hold "hot" by prefix.
    if let Some((first, rest)) = word.split_once('-')
        && first.chars().all(char::is_alphabetic)
        && rest.chars().any(char::is_alphabetic)
        && first.to_lowercase().starts_with(term)
    {
        return false;
    }
    if term.contains('/') {
        return crate::text::date_holds(term, word);
    }
    let w = stem(word);
    let numeric = w.chars().all(|c| c.is_ascii_digit());
    if numeric {
        return term.starts_with(&w) && term.len() <= w.len() + 1 && w.len() >= 2;
    }
    (term.len() >= 3 && w.starts_with(term))
        || (w.len() >= 4 && term.starts_with(&w))
        // The plural of a short word the stemmer leaves whole: "ahus" is
        // held by "AHU-1", "fans" by "fan".
        || (w.len() == 3 && term.strip_suffix('s') == Some(w.as_str()))
        || same_verb(term, &w)
        || superlative_root(term).is_some_and(|root| degree_of(root, word, &w))
        || slip_of(term, &w)
}

/// The fewest letters of the longer of two words that [`slip_of`] reads
/// as one: in shorter words a swap or a doubled letter more often makes
/// another word ("form" / "from").
const MIN_SLIP_LETTERS: usize = 6;

/// Whether two words (of letters only, lower case) are one word typed with
/// a slip of the keys: two neighbouring letters swapped ("reqeust" /
/// "request", "nuetralizer" / "neutralizer") or one letter doubled or not
/// ("tennant" / "tenant", "comissioning" / "commissioning"). Slips of these
/// kinds seldom make another word, where one letter changed or dropped
/// often does ("bumps" is not "pumps"), so no other edit is read as one.
pub(crate) fn slip_of(a: &str, b: &str) -> bool {
    if a == b
        || a.len().max(b.len()) < MIN_SLIP_LETTERS
        || !a.chars().chain(b.chars()).all(|c| c.is_ascii_lowercase())
    {
        return false;
    }
    let (x, y) = (a.as_bytes(), b.as_bytes());
    if x.len() == y.len() {
        let mut differ = (0..x.len()).filter(|&i| x[i] != y[i]);
        return match (differ.next(), differ.next(), differ.next()) {
            (Some(i), Some(j), None) => j == i + 1 && x[i] == y[j] && x[j] == y[i],
            _ => false,
        };
    }
    let (long, short) = if x.len() > y.len() { (x, y) } else { (y, x) };
    long.len() == short.len() + 1
        && (1..long.len()).any(|i| {
            long[i] == long[i - 1] && long[..i] == short[..i] && long[i + 1..] == short[i..]
        })
}

/// Whether a term and a stemmed word are one short verb, one of them with
/// the doubled consonant the stemmer leaves of its "-ing" or "-ed" form
/// ("runn" of "running" and "run" or "runs", "stopp" of "stopped" and
/// "stop"): the prefix rule leaves a word of three letters out.
fn same_verb(term: &str, w: &str) -> bool {
    let bare = |form: &str, root: &str| form == root || form.strip_suffix('s') == Some(root);
    undoubled(term).is_some_and(|root| bare(w, root))
        || undoubled(w).is_some_and(|root| bare(term, root))
}

/// A stem without the consonant the stemmer left doubled ("runn" → "run",
/// "shutt" → "shut"); `None` for one that ends otherwise, or in a letter
/// English doubles in the word itself ("install", "pass", "buzz").
fn undoubled(stem: &str) -> Option<&str> {
    let b = stem.as_bytes();
    let n = b.len();
    (n >= 4
        && b[n - 1] == b[n - 2]
        && b[n - 1].is_ascii_alphabetic()
        && !b"aeiouylsz".contains(&b[n - 1]))
    .then(|| &stem[..n - 1])
}

/// The adjective a superlative term is the highest degree of ("earliest"
/// → "earli", "lowest" → "low", "hottest" → "hot"), which the stemmer
/// leaves whole: a question asking for the earliest start is held by a
/// passage's "no earlier than". `None` for a term too short to be one.
fn superlative_root(term: &str) -> Option<&str> {
    let root = term.strip_suffix("est").filter(|_| term.len() >= 6)?;
    let b = root.as_bytes();
    // "hottest", "biggest": the doubled consonant is the spelling's.
    let root = match b {
        [.., x, y] if x == y && !b"aeiouls".contains(x) => &root[..root.len() - 1],
        _ => root,
    };
    (root.len() >= 3).then_some(root)
}

/// Whether a text word (`word`, stemmed `stem`) is a degree of the
/// adjective `root`: the root itself ("early" for "earli"), its
/// comparative or its superlative; nothing else that merely begins with
/// the root ("request" is no degree of "requ").
fn degree_of(root: &str, word: &str, stem: &str) -> bool {
    let word = word.to_lowercase();
    // "earli" is written "early" on its own.
    let plain = root.strip_suffix('i').map(|r| format!("{r}y"));
    plain.as_deref() == Some(word.as_str())
        || [word.as_str(), stem].iter().any(|w| {
            w.strip_prefix(root)
                .is_some_and(|rest| matches!(rest, "" | "er" | "est" | "ly"))
        })
}

/// Whether a text word is a term exactly: the same stem, the same word,
/// the plural of a short word the stemmer leaves whole ("AHUs" / "ahu",
/// "VAVs" / "vav": a heading's "G36 AHUs / MultiZone" says the "AHU" that
/// stands for the question's "air handler"), or the same once the hyphens
/// of either go ("co-2" / "co2", "Warmup" / the question's "warm-up"); no
/// prefixes.
pub(crate) fn same_word(term: &str, word: &str) -> bool {
    word == term
        || stem(word) == term
        || (term.len() >= 3 && word.strip_suffix('s') == Some(term))
        || word.replace('-', "") == term.replace('-', "")
}

/// Whether `text` (its words) says `phrase` (stemmed terms) as one phrase,
/// its words side by side, each matching by `matches`: "heat pump", not
/// "heating … pump".
pub(crate) fn says(text: &[String], phrase: &[String], matches: fn(&str, &str) -> bool) -> bool {
    !phrase.is_empty()
        && text
            .windows(phrase.len())
            .any(|w| w.iter().zip(phrase).all(|(word, term)| matches(term, word)))
}

/// Two ways of writing the same terms: an abbreviation and the words it
/// stands for (`dq:spelledOut` of a `dq:Alias` or `dq:Shorthand`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Equivalent {
    /// The question's focus terms the other form stands for.
    pub terms: Vec<String>,
    /// The other form, stemmed: a text holding every word of it (exactly,
    /// not by prefix: "SAT" is not "saturation") holds `terms`.
    pub form: Vec<String>,
}

/// A question's focus terms and the other forms they may be written in.
#[derive(Debug, Clone, Copy)]
pub struct Focus<'a> {
    /// The content words, stemmed ([`super::intent::focus`]).
    pub terms: &'a [String],
    /// Abbreviations and spelled-out forms of some of them.
    pub equivalents: &'a [Equivalent],
    /// When the question asks for a value, the units by which a sentence
    /// states one ([`states_quantity`]); empty otherwise.
    pub units: &'a [String],
    /// Whether the question asks for a number by itself ("at what",
    /// "how long", "trigger"): a sentence that states none does not answer
    /// it.
    pub number: bool,
    /// The kinds the question names by name ("co2 sensors"): a passage
    /// that names none of them does not answer it.
    pub kinds: &'a [super::question::NamedKind],
}

impl<'a> Focus<'a> {
    /// Focus terms with no other forms.
    pub fn plain(terms: &'a [String]) -> Self {
        Self {
            terms,
            equivalents: &[],
            units: &[],
            number: false,
            kinds: &[],
        }
    }
}

/// The particles that end a phrasal compound ("warm-up", "cool-down",
/// "shut-off"): its first word is what the compound is.
const PARTICLES: &[&str] = &["up", "down", "off", "out", "in", "on", "over", "back", "by"];

/// A bound a word names: the upper ("max", "maximum", "highest",
/// "upper") or the lower ("min", "minimum", "lowest", "lower").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    Upper,
    Lower,
}

impl Bound {
    /// The bound a word (in any case, or its stem) names.
    fn of(word: &str) -> Option<Self> {
        let is = |ws: &[&str]| ws.iter().any(|w| word.eq_ignore_ascii_case(w));
        let stem = |s: &str| {
            word.get(..s.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(s))
        };
        if is(&["max", "high", "higher", "highest", "upper"]) || stem("maxim") {
            Some(Self::Upper)
        } else if is(&["min", "low", "lower", "lowest"]) || stem("minim") {
            Some(Self::Lower)
        } else {
            None
        }
    }

    /// The one bound a question's terms name, by themselves or by a part
    /// of a compound ("Vcool-max"), if they name one and not the other
    /// ("max gpm thru each blr", not "min n max flow" nor "the lowest Vmin
    /// as a share of Vcool-max").
    fn asked(terms: &[String]) -> Option<Self> {
        let mut named = terms
            .iter()
            .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
            .filter_map(Self::of);
        let first = named.next()?;
        named.all(|b| b == first).then_some(first)
    }

    /// The bounds a sentence names, by its words and the parts of its
    /// compounds ("low-temperature", "Vcool-max"); "min" after a number is
    /// minutes ("every 5 min").
    fn named_in(text: &str) -> (bool, bool) {
        let (mut upper, mut lower) = (false, false);
        let mut after_number = false;
        for w in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            match Self::of(w) {
                Some(Self::Upper) => upper = true,
                Some(Self::Lower) if !(w.eq_ignore_ascii_case("min") && after_number) => {
                    lower = true
                }
                _ => {}
            }
            after_number = w.chars().all(|c| c.is_ascii_digit());
        }
        (upper, lower)
    }

    /// Whether a sentence names the other bound and not this one: "The
    /// minimum boiler flow is 30 gpm" says nothing of the most.
    fn only_other_in(self, text: &str) -> bool {
        let (upper, lower) = Self::named_in(text);
        match self {
            Self::Upper => lower && !upper,
            Self::Lower => upper && !lower,
        }
    }
}

/// Focus terms a text holds, written as asked or in an equivalent form
/// ("supply air temperature" holds the question's "SAT"), in focus order.
pub fn matched_terms(focus: Focus<'_>, text: &str) -> Vec<String> {
    let mut ws = words(without_list_number(text));
    // A compound the question writes with a hyphen is held by its parts
    // written side by side: "cooling only terminal unit" (and the
    // heading's "CoolingOnly") holds the question's "cooling-only". Not a
    // word it writes whole: "set point" holding "setpoint" measured more
    // of passages that do not answer (a G36 must-abstain question on
    // dedicated outdoor-air units reached the coverage floor).
    let said = ws.len();
    // The operating modes the question names, by their letters.
    let modes: Vec<(&super::question::NamedKind, &String)> = focus
        .kinds
        .iter()
        .filter_map(|k| k.form.as_ref().map(|f| (k, f)))
        .collect();
    // "high-limit" holds "limit", and "high" when the question says the
    // limit too: a compound's first words modify the last ("a zone running
    // hot" is not held by "the hot-water plant"), unless the next is a
    // particle ("warm-up", "cool-down": the first word is what it is). The
    // number of a name ("HWP-1", "AHU-2") is not a number the sentence
    // states: "stage 1" is not held by "the lead hot-water pump HWP-1".
    let asked = |part: &str| focus.terms.iter().any(|t| term_matches(t, part));
    let parts: Vec<String> = ws
        .iter()
        .filter(|w| w.contains('-'))
        .flat_map(|w| {
            let named = w.chars().any(|c| c.is_alphabetic());
            let split: Vec<&str> = w.split('-').filter(|p| !p.is_empty()).collect();
            split
                .iter()
                .enumerate()
                .filter(|(i, p)| {
                    let next = split.get(i + 1);
                    next.is_none_or(|n| {
                        PARTICLES.contains(n) || n.chars().all(|c| c.is_ascii_digit()) || asked(n)
                    }) || p.chars().all(|c| c.is_ascii_digit())
                })
                .map(|(_, p)| *p)
                .filter(|p| !(named && p.chars().all(|c| c.is_ascii_digit())))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    ws.extend(parts);
    let by_form: Vec<&String> = focus
        .equivalents
        .iter()
        .filter(|e| e.form.iter().all(|f| ws.iter().any(|w| same_word(f, w))))
        .flat_map(|e| e.terms.iter())
        .collect();
    focus
        .terms
        .iter()
        .filter(|t| {
            // An operating mode the question names is held by its letters
            // alone ("Cooldown", "cool down"), not by a word of its root:
            // the reheat unit's "active cooling … setpoints" does not say
            // what happens in cool-down.
            if !modes.is_empty() {
                let letters = squash(t);
                if let Some((mode, _)) = modes.iter().find(|(_, f)| **f == letters) {
                    return mode.named_by_words_in(text);
                }
            }
            by_form.contains(t)
                || ws.iter().any(|w| term_matches(t, w))
                || written_apart(t, &ws[..said])
                || apart_in_other_words(t, focus.equivalents, &ws[..said])
        })
        .cloned()
        .collect()
}

/// Whether a term written with a hyphen is its words side by side in
/// `ws`, one of them in another form of it (`equivalents` of the part:
/// "outside-air" is "outdoor air", "outside" being "outdoor"). Words of
/// letters only, two or more each; particles ("warm-up") aside.
fn apart_in_other_words(term: &str, equivalents: &[Equivalent], ws: &[String]) -> bool {
    let parts: Vec<&str> = term.split('-').collect();
    if parts.len() < 2
        || parts
            .iter()
            .any(|p| p.len() < 2 || !p.chars().all(char::is_alphabetic) || PARTICLES.contains(p))
    {
        return false;
    }
    // Each part's forms: itself (stemmed) first, then its other forms.
    let forms: Vec<Vec<Vec<String>>> = parts
        .iter()
        .map(|part| {
            let own = stem(part);
            std::iter::once(vec![own.clone()])
                .chain(
                    equivalents
                        .iter()
                        .filter(|e| e.terms.len() == 1 && e.terms[0] == own)
                        .map(|e| e.form.clone()),
                )
                .collect()
        })
        .collect();
    // Every phrase of one form per part, in the parts' order.
    let phrases: Vec<Vec<String>> = forms.iter().fold(vec![Vec::new()], |acc, part| {
        acc.iter()
            .flat_map(|before| {
                part.iter().map(move |f| {
                    let mut p = before.clone();
                    p.extend(f.iter().cloned());
                    p
                })
            })
            .collect()
    });
    // The first is every part as written, which [`written_apart`] reads.
    phrases.iter().skip(1).any(|p| says(ws, p, term_matches))
}

/// Whether a term written with a hyphen is two words of `ws` side by
/// side, of two letters or more each: "cooling only" holds
/// "cooling-only".
fn written_apart(term: &str, ws: &[String]) -> bool {
    if !term.contains('-') {
        return false;
    }
    let whole = term.replace('-', "");
    whole.chars().all(char::is_alphabetic)
        && ws.windows(2).any(|p| {
            let n = p[0].len() + p[1].len();
            (whole.len()..=whole.len() + 3).contains(&n)
                && p.iter()
                    .all(|w| w.len() >= 2 && w.chars().all(char::is_alphabetic))
                && same_word(&whole, &format!("{}{}", p[0], p[1]))
        })
}

/// A text without the number that opens it as a step of a list ("1. If
/// the supply air temperature …", "2) Close …"): the step's place in the
/// list, not something it says. A PDF numbers the steps its HTML edition
/// lists without numbers; "stage 1" is not held by step 1 of another
/// sequence.
fn without_list_number(text: &str) -> &str {
    let t = text.trim_start();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if !(1..=2).contains(&digits) {
        return text;
    }
    let rest = &t[digits..];
    match rest.strip_prefix(['.', ')']) {
        Some(after) if after.starts_with(char::is_whitespace) => after,
        _ => text,
    }
}

/// What a sentence that states a quantity scores beyond its terms when the
/// question asks for a value: less than one focus term, so it decides
/// between sentences holding as many of the question's terms (the one with
/// the number that answers "how long" over the one that announces it), not
/// over one holding more.
const QUANTITY_BONUS: f32 = 0.75;

/// What a focus term that names a text's document counts in that text's
/// sentences: the term chose the document (its rank has it), it does not
/// tell one of its sentences from another — the "Source: …/MultiZone/
/// FreezeProtection.mo" line holds every word of the page's name and
/// answers nothing.
const NAMING_WEIGHT: f32 = 0.5;

/// What a focus term with a digit ("2" of "override switch set to 2",
/// "2025-05" of "in may 25", "3" of "stage 3") counts beyond its rarity: a
/// number names one member of a set (override value 2 of 0 to 2, one
/// service of many), so the sentence that holds it is about the member
/// asked for, where its neighbours hold as many of the other words
/// ("… equals to 1, …" beside "… equals to 2, force the damper to full
/// open").
const NUMBER_WEIGHT: f32 = 2.0;

/// What a formula that defines a term of the question scores beyond its
/// terms ("sysVenEff = 1 + (VUncOutAir_flow/VSumZonPri_flow) -
/// uOutAirFra_max" for "how is sysVenEff calculated"): as much as a focus
/// term, so that it wins over a formula that only uses the term
/// ("VEffOutAir_flow = min(VUncOutAir_flow/sysVenEff, …)") and holds as
/// many of the question's words.
const DEFINITION_BONUS: f32 = 1.0;

/// Whether `sentence` is a formula whose left side is one of the
/// question's terms it holds (`matched`): "sysVenEff = …".
fn defines(sentence: &str, matched: &[String]) -> bool {
    crate::text::defined_name(sentence).is_some_and(|name| matched.contains(&stem(&name)))
}

/// What a sentence naming an entity the question names scores, per
/// entity: as much as a focus term.
const MENTION_WEIGHT: f32 = 1.0;

/// How much of a focus term's weight its rarity among the candidate
/// sentences decides: a term every candidate holds ("zone" among zone
/// sequences) counts half, one only a few hold (the "change" of "how fast
/// may the fan change speed") nearly one.
const RARITY_SHARE: f32 = 0.5;

/// The weight of each focus term among the sentences a picker reads:
/// `1 - RARITY_SHARE × (share of the sentences holding it)`.
struct Rarity {
    held_by: std::collections::HashMap<String, usize>,
    sentences: usize,
}

impl Rarity {
    /// From the focus terms each sentence holds (`held`: per text, per
    /// sentence).
    fn of(held: &[Vec<Vec<String>>]) -> Self {
        let mut held_by = std::collections::HashMap::new();
        let mut sentences = 0;
        for terms in held.iter().flatten() {
            sentences += 1;
            for t in terms {
                *held_by.entry(t.clone()).or_insert(0) += 1;
            }
        }
        Self { held_by, sentences }
    }

    fn weight(&self, term: &str) -> f32 {
        if self.sentences == 0 {
            return 1.0;
        }
        let n = self.held_by.get(term).copied().unwrap_or(0) as f32;
        1.0 - RARITY_SHARE * n / self.sentences as f32
    }
}

/// Picks the best sentences of `texts` (best text first) as given — a
/// selection, whose sentences are all its own — with no term naming any
/// text's document (see [`pick_in`]).
pub fn pick(
    focus: Focus<'_>,
    labels: &[String],
    texts: &[(usize, &str, f32)],
    max: usize,
) -> Vec<Picked> {
    pick_from(focus, labels, texts, &[], &[], max, Texts::Given)
}

/// What the picker reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Texts {
    /// Chunks of indexed documents, which overlap: a chunk's first
    /// sentence may be the end of one begun in the chunk before
    /// ([`opens_mid_sentence`]).
    Chunks,
    /// Text as given (a selection): each sentence is one to quote.
    Given,
}

/// Picks the best sentences of `texts` (best text first): each sentence
/// scores, per focus term it or its text's heading path holds (`headings`:
/// the chunk's heading path, per text in order; none for `[]`), the term's
/// [`Rarity`] weight ([`NAMING_WEIGHT`] of it for a term in the list of the
/// same position of `naming`: the terms that name that text's document;
/// [`NUMBER_WEIGHT`] times it for a term with a digit),
/// [`MENTION_WEIGHT`] per named entity label it mentions (or a sentence it
/// refers back to mentions), [`QUANTITY_BONUS`] when the question asks for
/// a value and the sentence holds a term and states a quantity, plus its
/// text's weight. The headings themselves and lines citing a file path are
/// left out: neither answers anything ([`answers_anything`]), nor is a
/// chunk's first sentence when it is the end of one begun in the chunk
/// before ([`opens_mid_sentence`]; that chunk holds it whole). Returns at
/// most `max` sentences, the later ones only when they add focus terms.
pub fn pick_in(
    focus: Focus<'_>,
    labels: &[String],
    texts: &[(usize, &str, f32)],
    naming: &[Vec<String>],
    headings: &[&str],
    max: usize,
) -> Vec<Picked> {
    pick_from(focus, labels, texts, naming, headings, max, Texts::Chunks)
}

/// The best of the scored sentences (`all`, best first), at most `max`:
/// the first, then each that holds a focus term the ones before do not;
/// with the first one's text and place in it.
fn select(all: &[(Picked, usize)], max: usize) -> (Vec<Picked>, Option<(usize, usize)>) {
    let mut out: Vec<Picked> = Vec::new();
    let mut first: Option<(usize, usize)> = None;
    let mut covered: Vec<String> = Vec::new();
    for (p, k) in all {
        if out.len() >= max {
            break;
        }
        let adds = p.matched.iter().any(|m| !covered.contains(m));
        if out.is_empty() || (adds && !p.matched.is_empty()) {
            if out.is_empty() {
                first = Some((p.source, *k));
            }
            covered.extend(p.matched.iter().cloned());
            out.push(p.clone());
        }
    }
    (out, first)
}

/// [`pick_in`] for chunks, [`pick`] for text as given.
fn pick_from(
    focus: Focus<'_>,
    labels: &[String],
    texts: &[(usize, &str, f32)],
    naming: &[Vec<String>],
    headings: &[&str],
    max: usize,
    kind: Texts,
) -> Vec<Picked> {
    let squashed = squashed_labels(labels);
    let mut all: Vec<(Picked, usize)> = Vec::new();
    // Each text's sentences, and for each the dated opening of its record,
    // the lead-in of its list or the run-in heading of its paragraph, and
    // whether it is a run-in heading itself.
    let mut by_source: Vec<Vec<String>> = Vec::new();
    let mut openers: Vec<Vec<Option<usize>>> = Vec::new();
    let mut leads: Vec<Vec<Option<std::ops::Range<usize>>>> = Vec::new();
    let mut run_ins: Vec<Vec<bool>> = Vec::new();
    let mut lines: Vec<Vec<usize>> = Vec::new();
    let mut rows: Vec<Vec<bool>> = Vec::new();
    for (_, t, _) in texts {
        let read = quotable_in_context(t);
        lines.push(read.iter().map(|c| c.line).collect());
        rows.push(read.iter().map(|c| c.row).collect());
        openers.push(read.iter().map(|c| c.opening).collect());
        leads.push(read.iter().map(|c| c.lead.clone()).collect());
        run_ins.push(read.iter().map(|c| c.run_in).collect());
        by_source.push(read.into_iter().map(|c| c.text).collect());
    }
    let held: Vec<Vec<Vec<String>>> = by_source
        .iter()
        .map(|list| list.iter().map(|s| matched_terms(focus, s)).collect())
        .collect();
    let rarity = Rarity::of(&held);
    for (i, (source, _, weight)) in texts.iter().enumerate() {
        let names = naming.get(i).map(Vec::as_slice).unwrap_or_default();
        let heading = headings.get(i).copied().unwrap_or_default();
        // A sentence stands under its heading path: the terms of the
        // heading ("… / Alarms > Low airflow") are the passage's too.
        let under = matched_terms(focus, &camel_spaced(heading));
        let weigh = |t: &String| {
            rarity.weight(t)
                * if t.chars().any(|c| c.is_ascii_digit()) {
                    NUMBER_WEIGHT
                } else {
                    1.0
                }
                * if names.contains(t) {
                    NAMING_WEIGHT
                } else {
                    1.0
                }
        };
        let owns: Vec<usize> = by_source[i]
            .iter()
            .map(|s| mentions(s, &squashed))
            .collect();
        let mut mentioned = 0;
        for (k, s) in by_source[i].iter().enumerate() {
            let own = owns[k];
            // "It serves … Its cooling maximum is 350 cfm": a sentence
            // that refers back names what the one before it names.
            mentioned = if k > 0 && refers_back(s) {
                own + mentioned
            } else {
                own
            };
            // A sentence of a dated record stands under the record's
            // opening ("2025-10-14 — B-1 and B-2: annual service."): its
            // date and what it names are the sentence's too.
            let opener = openers[i].get(k).copied().flatten();
            if let Some(j) = opener {
                mentioned = mentioned.max(own + owns[j]);
            }
            // An item of a list stands under the line that leads into it
            // ("The default time delay period shall be as follows:").
            let lead = leads[i]
                .get(k)
                .cloned()
                .flatten()
                .filter(|_| opener.is_none());
            if let Some(r) = &lead {
                mentioned = mentioned.max(own + r.clone().map(|j| owns[j]).max().unwrap_or(0));
            }
            // A run-in heading ("Heating demand limit setpoint
            // adjustment.") says what the sentences after it are about and
            // lends them its terms; alone it answers nothing, and picked
            // for its terms beside the sentence before it (the last of the
            // cooling adjustments) it made that sentence read as the
            // heating one.
            if !answers_anything(s, heading)
                || run_ins[i][k]
                || (kind == Texts::Chunks && k == 0 && opens_mid_sentence(s))
            {
                continue;
            }
            let matched = held[i][k].clone();
            let mut context: Vec<&String> = under.iter().collect();
            if let Some(j) = opener {
                context.extend(held[i][j].iter().filter(|t| !under.contains(t)));
            }
            for j in lead.clone().into_iter().flatten() {
                context.extend(held[i][j].iter().filter(|t| !under.contains(t)));
            }
            context.sort();
            context.dedup();
            let terms: f32 = matched
                .iter()
                .chain(context.into_iter().filter(|t| !matched.contains(t)))
                .map(weigh)
                .sum();
            let quantity =
                !focus.units.is_empty() && !matched.is_empty() && states_quantity(s, focus.units);
            let score = terms
                + MENTION_WEIGHT * mentioned as f32
                + if quantity { QUANTITY_BONUS } else { 0.0 }
                + if defines(s, &matched) {
                    DEFINITION_BONUS
                } else {
                    0.0
                }
                + weight;
            all.push((
                Picked {
                    source: *source,
                    text: s.clone(),
                    matched,
                    score,
                },
                k,
            ));
        }
    }
    all.sort_by(|a, b| b.0.score.total_cmp(&a.0.score));
    // Chunks overlap: a sentence read in two of them is read where it
    // stands under something (its record's opening, its list's lead-in),
    // at the best score of its copies ("Stage 2 clears after one hour …"
    // opens one chunk and follows "Stage 2: if SAT stays below 40 °F …"
    // in the one before).
    let placed = |p: &Picked, k: usize| {
        texts
            .iter()
            .position(|(s, ..)| *s == p.source)
            .is_some_and(|pos| openers[pos][k].is_some() || leads[pos][k].is_some())
    };
    let mut kept: Vec<(Picked, usize)> = Vec::with_capacity(all.len());
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (p, k) in all {
        match seen.get(&p.text) {
            Some(&at) if !placed(&kept[at].0, kept[at].1) && placed(&p, k) => {
                let score = kept[at].0.score;
                kept[at] = (Picked { score, ..p }, k);
            }
            Some(_) => {}
            None => {
                seen.insert(p.text.clone(), kept.len());
                kept.push((p, k));
            }
        }
    }
    let mut all = kept;
    // A question for one bound ("max gpm thru each blr") is not answered by
    // a sentence that names only the other ("The minimum boiler flow is 30
    // gpm"): its number is not the one asked.
    // (Nor is it quoted beside the best one, before or after it.)
    let bound = Bound::asked(focus.terms);
    let other_bound = |text: &str| bound.is_some_and(|b| b.only_other_in(text));
    all.retain(|(p, _)| !other_bound(&p.text));
    let (mut out, mut first) = select(&all, max);
    // A question for a number is not answered by a sentence that gives
    // none (a quantity, or the sequence parameter that holds it:
    // "VCooMax_flow"): when the sentences picked give none, the best that
    // gives one and holds a term is picked instead ("The override button puts the
    // zone group in Occupied mode for 60 minutes" over "… a YTS-200 wall
    // module with a setpoint adjustment and an override button" for
    // "override button duration").
    let states =
        |p: &Picked| !p.matched.is_empty() && crate::text::gives_value(&p.text, focus.units);
    if focus.number && !out.iter().any(states) && all.iter().any(|(p, _)| states(p)) {
        all.retain(|(p, _)| states(p));
        (out, first) = select(&all, max);
    }
    // Nor is a question that names kinds ("in the rooms with co2
    // sensors") answered by sentences that name one of them nowhere, in
    // their text or their heading: when the sentences picked leave one
    // unnamed, the best that name them all and hold a term are picked
    // instead ("In zones with a CO2 sensor, demand controlled ventilation
    // raises the active minimum …" over a service-log entry on one box's
    // CO2 input).
    // Where each candidate sentence stands, found once and only for a
    // question that names a kind: its text and index, for its heading and
    // what it stands under besides, its dated record's opening and the
    // lead-in or run-in heading of its list or paragraph ("YCO-300 CO2
    // sensors." names the sensor "replace the sensor if …" speaks of).
    let mut at: std::collections::HashMap<(usize, &str), (usize, usize)> =
        std::collections::HashMap::new();
    let mut spaced: Vec<String> = Vec::new();
    if !focus.kinds.is_empty() {
        for (pos, (source, ..)) in texts.iter().enumerate() {
            spaced.push(camel_spaced(headings.get(pos).copied().unwrap_or_default()));
            for (k, sentence) in by_source[pos].iter().enumerate() {
                at.entry((*source, sentence.as_str())).or_insert((pos, k));
            }
        }
    }
    let names = |kind: &super::question::NamedKind, p: &Picked| {
        kind.named_in(&p.text)
            || at
                .get(&(p.source, p.text.as_str()))
                .is_some_and(|&(pos, k)| {
                    kind.named_by_words_in(&spaced[pos])
                        || openers[pos][k]
                            .into_iter()
                            .chain(leads[pos][k].clone().unwrap_or(0..0))
                            .any(|j| kind.named_in(&by_source[pos][j]))
                })
    };
    let unnamed = |ps: &[&Picked]| focus.kinds.iter().any(|k| !ps.iter().any(|p| names(k, p)));
    // A mode is named by the best sentence itself: the sentences after it
    // are quoted for what they add, and "First, a maximum cooling setpoint
    // is reset …" does not become an answer for cool-down by the table row
    // quoted after it.
    let mode_unnamed = out
        .first()
        .is_some_and(|p| focus.kinds.iter().any(|k| k.form.is_some() && !names(k, p)));
    if (mode_unnamed || unnamed(&out.iter().collect::<Vec<_>>()))
        && all
            .iter()
            .any(|(p, _)| !p.matched.is_empty() && !unnamed(&[p]))
    {
        // The best of them first; after it, one that names what the
        // question names may add a term ("VAV-2-16 … 225 cfm heating
        // maximum" after "In Warm-up and Setback modes the box runs at
        // Vheat-max …").
        all.retain(|(p, _)| {
            !p.matched.is_empty() && (mentions(&p.text, &squashed) > 0 || !unnamed(&[p]))
        });
        all.sort_by_key(|(p, _)| unnamed(&[p]));
        (out, first) = select(&all, max);
    }
    // The sentence after the best one often holds the cause, the value or
    // the consequence the best one announces: quote it too, unless it
    // opens another dated record (another event) or the best one is a
    // table row and it another row about something else ([`another_row`]:
    // another fault, mode or parameter; a row with its header says all it
    // says).
    if let Some((source, k)) = first
        && let Some(pos) = texts.iter().position(|(s, ..)| *s == source)
    {
        let list = &by_source[pos];
        let quote = |text: &String| Picked::beside(focus, source, text);
        // A sentence of the list goes to `at`, moved there if it was
        // picked, quoted if not.
        // Where it went: one taken from before `at` goes one place back,
        // so that it stays after what stood before `at`.
        let place = |out: &mut Vec<Picked>, j: usize, at: usize| -> usize {
            let (sentence, at) = match out.iter().position(|p| p.text == list[j]) {
                Some(was) => (out.remove(was), at - usize::from(was < at)),
                None => (quote(&list[j]), at),
            };
            out.insert(at, sentence);
            at
        };
        let heading = headings.get(pos).copied().unwrap_or_default();
        // Nor when it leads into a list or a formula of its own ("…
        // VDesTotOutAir_flow:"): alone it says nothing.
        // Nor when it is the run-in heading of the next paragraph
        // ("YCO-300 CO2 sensors."): it names what comes after it.
        if let Some(next) = list.get(k + 1)
            && !opens_with_date(next)
            && !(rows[pos][k] && rows[pos][k + 1] && another_row(&held[pos][k], &held[pos][k + 1]))
            && !crate::text::leads_in(next)
            && !run_ins[pos][k + 1]
            && answers_anything(next, heading)
            && !other_bound(next)
            && !out.iter().any(|p| p.text == *next)
        {
            out.insert(1, quote(next));
        }
        // The sentence before it in its paragraph, when it holds a term of
        // the question no quoted sentence holds: the answer spans the two
        // ("Stage down to one chiller when the plant load … has been below
        // 105 tons … Each chiller has a minimum run time of 30 minutes"
        // for when the plant goes back to one chiller and how long one must
        // run). It must name what the question names that the best one
        // names: a sentence on warm-up before the one on cool-down adds
        // nothing to an answer for cool-down.
        if k > 0
            && lines[pos][k - 1] == lines[pos][k]
            && answers_anything(&list[k - 1], heading)
            && !other_bound(&list[k - 1])
            && !out.iter().any(|p| p.text == list[k - 1])
            && held[pos][k - 1]
                .iter()
                .any(|t| !out.iter().any(|p| p.matched.contains(t)))
        {
            let before = quote(&list[k - 1]);
            let best = quote(&list[k]);
            if focus
                .kinds
                .iter()
                .all(|kind| !names(kind, &best) || names(kind, &before))
            {
                out.insert(0, before);
            }
        }
        // One that begins with "It", "Its", "This" … leans on the sentence
        // before it for what it is about: quote that one first (picked or
        // not), and the one before that when it leans back too ("The
        // hot-water plant is enabled … It is also enabled … It is locked
        // out above 80 °F").
        let mut at = k;
        let mut before: Vec<usize> = Vec::new();
        while at > 0
            && before.len() < REFERS_BACK_DEPTH
            && refers_back(&list[at])
            && answers_anything(&list[at - 1], heading)
        {
            at -= 1;
            before.push(at);
        }
        for j in before {
            place(&mut out, j, 0);
        }
        // A record's sentence is quoted after the record's opening (picked
        // or not): its date says which event it is.
        if let Some(j) = openers[pos].get(k).copied().flatten() {
            place(&mut out, j, 0);
        } else if let Some(r) = leads[pos].get(k).cloned().flatten() {
            // An item is quoted after the lead-in of its list: "For
            // cooling requests: 9 minutes per °C" says nothing of when.
            for j in r.rev() {
                place(&mut out, j, 0);
            }
        }
        // A lead-in is quoted with the items of its list after it, and a
        // bare phrase of a list ("Cooldown mode") with its lead-in and the
        // whole list: "the following hierarchy applies (highest one sets
        // AHU mode):" says what the list is, its items say the order.
        let lead_in = if crate::text::leads_in(&list[k]) {
            Some(k)
        } else {
            leads[pos][k]
                .as_ref()
                .map(|r| r.end - 1)
                .filter(|_| crate::text::is_bare_phrase(&list[k]))
        };
        if let Some(l) = lead_in
            && let Some(mut at) = out.iter().position(|p| p.text == list[l])
        {
            for j in (l + 1..list.len())
                .take_while(|&j| leads[pos][j].as_ref().is_some_and(|r| r.contains(&l)))
            {
                at = place(&mut out, j, at + 1);
            }
        }
    }
    without_captions_repeated(out)
}

/// Whether the row after the best one (which holds `next` of the
/// question's terms; the best one `best`) is about something else: it
/// holds no term the best one does not, and fewer than half of the best
/// one's. A row that holds as much of the question is a reading the
/// question may mean as well ("Heating maximum" after "Heating minimum"
/// for "the most air it'll deliver when heating"), and is quoted; "Airflow
/// reads 0 cfm …", which holds only the table's "Fix" column of "a box
/// dropped offline after a power blip - fix?", is another fault.
fn another_row(best: &[String], next: &[String]) -> bool {
    let shared = next.iter().filter(|t| best.contains(t)).count();
    shared == next.len() && 2 * shared < best.len()
}

/// Names as a text mentions them: squashed ([`squash`]), the ones of more
/// than two letters.
pub(crate) fn squashed_labels<'a>(labels: impl IntoIterator<Item = &'a String>) -> Vec<String> {
    labels
        .into_iter()
        .map(|l| squash(l))
        .filter(|l| l.len() > 2)
        .collect()
}

/// How many of `squashed` ([`squashed_labels`]) `text` mentions.
pub(crate) fn mentions(text: &str, squashed: &[String]) -> usize {
    let said = squash(text);
    squashed
        .iter()
        .filter(|l| said.contains(l.as_str()))
        .count()
}

/// The picked sentences without one that a table row quoted beside it
/// repeats as its caption ("… using following parameters as a starting
/// point:" and the row "… as a starting point: Variable: Device; …"): the
/// row says it already.
fn without_captions_repeated(out: Vec<Picked>) -> Vec<Picked> {
    let repeated: Vec<bool> = out
        .iter()
        .map(|p| {
            let c = crate::text::as_caption(&p.text);
            !c.is_empty()
                && out.iter().any(|q| {
                    q.source == p.source
                        && q.text.len() > p.text.len()
                        && q.text.starts_with(&format!("{c}: "))
                })
        })
        .collect();
    out.into_iter()
        .zip(repeated)
        .filter(|(_, r)| !r)
        .map(|(p, _)| p)
        .collect()
}

/// How many sentences back a quote follows sentences that lean on the one
/// before them ("It …", "This …").
const REFERS_BACK_DEPTH: usize = 2;

/// Whether a sentence can answer a question: not one of the headings its
/// text stands under (`heading`: the chunk's heading path, whose last
/// heading often opens the text; a heading names a topic, it says nothing
/// of it) and not a line citing a file path (a "Source: …/G36/AHUs/
/// MultiZone/VAV/Controller.mo" line holds every word of the page's name
/// and answers nothing).
fn answers_anything(sentence: &str, heading: &str) -> bool {
    let path_like = sentence
        .split_whitespace()
        .any(|w| w.matches('/').count() >= 3 && !w.contains("//"));
    let squashed = squash(sentence);
    let is_heading = !heading.is_empty()
        && (squash(heading) == squashed
            || heading
                .split(crate::ingest::chunk::HEADING_SEPARATOR)
                .any(|h| squash(h) == squashed));
    !path_like && !is_heading
}

/// Whether a text's first sentence is the end of a sentence begun in the
/// chunk before (chunks overlap; "supply air temperature rises above 7 °C
/// … the unit will remain in Stage 1" lacks its "If it is warm enough
/// that the"): it opens with a plain lower-case word, not a name written
/// in camel case ("sysVenEff = …"). The chunk before holds it whole.
fn opens_mid_sentence(sentence: &str) -> bool {
    sentence
        .split_whitespace()
        .next()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_lowercase()))
}

/// Whether a sentence opens with a word that refers to the one before it.
fn refers_back(sentence: &str) -> bool {
    let first = sentence
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    matches!(
        first.as_str(),
        "it" | "its" | "this" | "these" | "they" | "their" | "that" | "those" | "such"
    )
}

/// Fraction of focus terms held by the picked sentences and the headings
/// they stand under (`headings`: a passage is its sentences with their
/// heading); for a question with no focus terms, the fraction of its names
/// (labels) they mention (0 when it has neither).
pub fn coverage(focus: Focus<'_>, labels: &[String], picked: &[Picked], headings: &[&str]) -> f32 {
    held(focus, labels, picked, headings).coverage
}

/// What the picked sentences or their headings hold of the question: its
/// focus terms, in focus order, and the share of the question that is.
pub struct Held {
    /// The focus terms held.
    pub terms: Vec<String>,
    /// Share of the focus terms held; with no focus terms, share of the
    /// names the question names.
    pub coverage: f32,
}

/// Measures what the picked sentences or their headings hold of the
/// question (see [`coverage`]); a heading is read with its camel-case names
/// spaced, as the picker reads it ("SingleZone" holds "zone").
pub fn held(focus: Focus<'_>, labels: &[String], picked: &[Picked], headings: &[&str]) -> Held {
    if focus.terms.is_empty() {
        // Nothing but names: the passage must name what the question
        // names; a question with neither measures nothing and passes
        // nothing.
        let named: Vec<String> = labels
            .iter()
            .map(|l| squash(l))
            .filter(|l| l.len() > 2)
            .collect();
        let coverage = if named.is_empty() {
            0.0
        } else {
            let held = named
                .iter()
                .filter(|l| {
                    picked
                        .iter()
                        .map(|p| p.text.as_str())
                        .chain(headings.iter().copied())
                        .any(|t| squash(t).contains(l.as_str()))
                })
                .count();
            held as f32 / named.len() as f32
        };
        return Held {
            terms: Vec::new(),
            coverage,
        };
    }
    let in_headings: Vec<String> = headings
        .iter()
        .flat_map(|h| matched_terms(focus, &camel_spaced(h)))
        .collect();
    // A kind a picked sentence names by a product's model number holds
    // the kind's words: "Calibration check; Equipment: YTS-200, YDT-210"
    // says "zone temp sensor" as the question does.
    let by_model: Vec<&String> = focus
        .kinds
        .iter()
        .filter(|k| picked.iter().any(|p| k.named_by_model_in(&p.text)))
        .flat_map(|k| &k.words)
        .collect();
    let terms: Vec<String> = focus
        .terms
        .iter()
        .filter(|t| {
            picked.iter().any(|p| p.matched.contains(t))
                || in_headings.contains(t)
                || by_model.contains(t)
        })
        .cloned()
        .collect();
    Held {
        coverage: terms.len() as f32 / focus.terms.len() as f32,
        terms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn focus(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| stem(w)).collect()
    }

    /// An operating mode a question names (`said`), a kind written only by
    /// its letters (`form`).
    fn mode_named(said: &str, form: &str) -> crate::answer::question::NamedKind {
        crate::answer::question::NamedKind {
            said: said.into(),
            words: vec![form.into()],
            label: Vec::new(),
            equivalents: Vec::new(),
            form: Some(form.into()),
            class: None,
            models: Vec::new(),
            phrase: false,
        }
    }

    /// What [`pick`] quotes from `text` (up to two picked sentences) for a
    /// question with the focus words `ws`.
    fn quoted(ws: &[&str], text: &str) -> Vec<String> {
        pick(Focus::plain(&focus(ws)), &[], &[(0, text, 0.0)], 2)
            .into_iter()
            .map(|p| p.text)
            .collect()
    }

    /// Coverage reads a heading as the picker does: camel-case names
    /// spaced ("SingleZone" holds "zone").
    #[test]
    fn coverage_reads_headings_camel_spaced() {
        let f = focus(&["single", "zone", "relief"]);
        let h = held(
            Focus::plain(&f),
            &[],
            &[],
            &["G36 AHUs / SingleZone / VAV / SetPoints / ReliefFan"],
        );
        assert_eq!(h.terms, ["single", "zone", "relief"]);
    }

    /// A number of the question names the member of a set asked about:
    /// the override step holding "2" outscores a sentence holding as many
    /// of the question's other words.
    #[test]
    fn a_number_of_the_question_tells_members_of_a_set_apart() {
        let f = focus(&["damper", "override", "2"]);
        let text = "The damper override switch is wired to the BAS.\n\
                    1. when oveDamPos equals to 1, force the damper to full closed,\n\
                    2. when oveDamPos equals to 2, force the damper to full open.";
        let p = pick_in(Focus::plain(&f), &[], &[(0, text, 0.0)], &[], &[], 1);
        assert_eq!(
            p[0].text,
            "2. when oveDamPos equals to 2, force the damper to full open."
        );
    }

    #[test]
    fn the_number_of_a_list_step_is_no_term() {
        let f = focus(&["stage", "1", "supply"]);
        let step = "1. If the supply air temperature drops below 4.4 °C (40 °F) for 5 minutes";
        assert_eq!(matched_terms(Focus::plain(&f), step), ["supply"]);
        assert_eq!(
            matched_terms(Focus::plain(&f), "2) Stage 1: supply fan on"),
            ["stage", "1", "supply"]
        );
        // A number that is a value, not a step, is still read.
        assert_eq!(
            matched_terms(Focus::plain(&f), "1 supply fan runs"),
            ["1", "supply"]
        );
    }

    /// The number of a name ("HWP-1", "AHU-1") is not a number the
    /// sentence states; the words of a hyphenated word still count.
    #[test]
    fn the_number_of_a_name_is_no_term() {
        let f = focus(&["stage", "1", "high", "limit"]);
        let pump = "Stage 3 starts the lead hot-water pump HWP-1 at its high-limit.";
        assert_eq!(
            matched_terms(Focus::plain(&f), pump),
            ["stage", "high", "limit"]
        );
        assert_eq!(
            matched_terms(Focus::plain(&f), "Stage 1 clears after 15 minutes."),
            ["stage", "1"]
        );
        assert_eq!(matched_terms(Focus::plain(&f), "rows 1-4"), ["1"]);
    }

    /// A word written with or without its hyphen is one word, whichever
    /// side writes it: the question's "warm-up" is held by G36's "Setback
    /// and Warmup modes", its "warmup" by "Warm-up".
    #[test]
    fn a_hyphen_does_not_make_another_word() {
        assert!(same_word("warm-up", "warmup"));
        assert!(same_word("warmup", "warm-up"));
        assert!(same_word("co2", "co-2"));
        assert!(!same_word("warm-up", "warm"));
        let terms = focus(&["warm-up", "setpoint"]);
        assert_eq!(
            matched_terms(
                Focus::plain(&terms),
                "During Setback and Warmup modes the setpoint shall be TSupWarUpSetBac."
            ),
            ["warm-up", "setpoint"]
        );
    }

    /// The plural of a short word the stemmer leaves whole is the word:
    /// a heading's "G36 AHUs / MultiZone" writes the "AHU" that stands for
    /// a question's "air handler"; a word of two letters is left alone.
    #[test]
    fn a_short_word_s_plural_is_the_word() {
        assert!(same_word("ahu", "ahus"));
        assert!(same_word("vav", "vavs"));
        assert!(!same_word("ahu", "ahu-1s"));
        assert!(!same_word("it", "its"));
        let terms = focus(&["air", "handler", "reset"]);
        let ahu = [Equivalent {
            terms: vec!["air".into(), "handler".into()],
            form: vec!["ahu".into()],
        }];
        let f = Focus {
            equivalents: &ahu,
            ..Focus::plain(&terms)
        };
        assert_eq!(
            matched_terms(f, "G36 AHUs / MultiZone / VAV / SetPoints / PlantRequests"),
            ["air", "handler"]
        );
    }

    /// A word typed with two neighbouring letters swapped or a letter
    /// doubled or not is the word meant, both ways (the question's
    /// "reqeust", G36's "reqeusts"); one letter changed or dropped is
    /// another word, and short words are left alone.
    #[test]
    fn a_slip_of_the_keys_is_the_word_meant() {
        assert!(slip_of("reqeust", "request"));
        assert!(slip_of("request", "reqeust"));
        assert!(slip_of("nuetral", "neutral"));
        assert!(slip_of("tennant", "tenant"));
        assert!(slip_of("comission", "commission"));
        assert!(!slip_of("bumped", "pumped"), "one letter changed");
        assert!(slip_of("setting", "seting"), "a doubled letter typed once");
        assert!(
            !slip_of("sensor", "senor"),
            "a letter dropped, not undoubled"
        );
        assert!(!slip_of("form", "from"), "too short");
        assert!(!slip_of("request", "request"));
        assert!(!slip_of("ahu-1a", "ahu-a1"), "names are not words");
        let terms = focus(&["reqeust", "tennant"]);
        assert_eq!(
            matched_terms(
                Focus::plain(&terms),
                "The SAT setpoint drops 0.3 °F per request; the tenant override lasts 60 minutes."
            ),
            ["reqeust", "tennant"]
        );
    }

    /// A compound's first word is held only with the word after it, a
    /// particle or a name's number: "the hot-water plant" holds no "hot",
    /// "warm-up" holds "warm", "high-limit" holds "high" when "limit" is
    /// asked too.
    #[test]
    fn a_compound_s_first_word_is_held_only_with_the_rest() {
        let f = focus(&["zone", "hot", "warm", "high", "limit"]);
        assert_eq!(
            matched_terms(Focus::plain(&f), "the hot-water plant"),
            Vec::<String>::new()
        );
        assert_eq!(
            matched_terms(Focus::plain(&f), "during warm-up the zone"),
            ["zone", "warm"]
        );
        assert_eq!(
            matched_terms(Focus::plain(&f), "the high-limit is 75"),
            ["high", "limit"]
        );
        let f = focus(&["water"]);
        assert_eq!(
            matched_terms(Focus::plain(&f), "hot-water plant"),
            ["water"]
        );
    }

    /// The plural of a short word the stemmer leaves whole is held by the
    /// word: "ahus" by "AHU-1", "fans" by "fan"; not every word ending in
    /// the same letters is one ("ahus" is not "ahead").
    #[test]
    fn a_short_plural_is_held_by_its_singular() {
        let f = focus(&["ahus", "fans"]);
        assert_eq!(
            matched_terms(Focus::plain(&f), "AHU-1 supply fan status"),
            ["ahus", "fans"]
        );
        assert!(matched_terms(Focus::plain(&f), "ahead of the fanatics").is_empty());
    }

    #[test]
    fn a_sentence_begun_in_the_chunk_before_is_not_quoted() {
        let f = focus(&["stage", "1", "supply", "heat", "coil"]);
        let text = "supply air temperature rises above 7 °C with minimum ventilation, the unit will remain in Stage 1 freeze protection.\nModulate the heating coil to hold a supply air temperature of 6 °C.";
        let picked = pick_in(Focus::plain(&f), &[], &[(0, text, 1.0)], &[], &[], 1);
        assert!(picked[0].text.starts_with("Modulate"));
        // A selection is the asker's: its first sentence is its own.
        let picked = pick(Focus::plain(&f), &[], &[(0, text, 1.0)], 2);
        assert!(
            picked
                .iter()
                .any(|p| p.text.starts_with("supply air temperature rises"))
        );
        // Later in a chunk, or named in camel case, it is a sentence.
        assert!(!opens_mid_sentence("sysVenEff = 1 + VUncOutAir_flow"));
        assert!(opens_mid_sentence("supply air temperature rises"));
    }

    #[test]
    fn a_row_about_something_else_is_another_row() {
        let t = |w: &[&str]| w.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        let best = t(&["box", "offline", "power", "blip", "fix"]);
        assert!(another_row(&best, &t(&["fix"])));
        assert!(another_row(&best, &[]));
        // As much of the question, or a term the best one lacks: quoted.
        assert!(!another_row(&best, &t(&["box", "offline", "fix"])));
        assert!(!another_row(&best, &t(&["fix", "firmware"])));
    }

    #[test]
    fn terms_match_stems_and_prefixes() {
        assert!(term_matches("temp", "temperature"));
        assert!(term_matches("max", "maximum"));
        assert!(term_matches("restart", "restarts"));
        assert!(term_matches("sensor", "sensing"));
        assert!(term_matches("35f", "35"));
        assert!(!term_matches("co", "cold"));
        assert!(!term_matches("warranty", "war"));
        // A question's date holds the records of that month.
        assert!(term_matches("2025-06", "2025-06-18"));
        assert!(!term_matches("2025-06", "2025-07-06"));
        // A short verb and its "-ing" or "-ed" form, either way round.
        assert!(term_matches(&stem("running"), "run"));
        assert!(term_matches(&stem("running"), "runs"));
        assert!(term_matches("run", "running"));
        assert!(term_matches(&stem("stopped"), "stop"));
        assert!(term_matches(&stem("shutting"), "shut"));
        assert!(!term_matches(&stem("running"), "rung"));
        assert_eq!(undoubled("install"), None, "English doubles the l itself");
    }

    /// A superlative is held by the adjective's other degrees, and only
    /// by them: "earliest" by "earlier" and "early", "hottest" by "hot".
    #[test]
    fn superlatives_match_their_adjective() {
        let earliest = stem("earliest");
        assert!(term_matches(&earliest, "earlier"));
        assert!(term_matches(&earliest, "early"));
        assert!(term_matches(&stem("lowest"), "low"));
        assert!(term_matches(&stem("highest"), "higher"));
        assert!(term_matches(&stem("shortest"), "short"));
        assert!(term_matches(&stem("hottest"), "hot"));
        assert!(!term_matches(&earliest, "earth"));
        assert!(!term_matches(&stem("lowest"), "lower-case-free"));
        assert!(!term_matches(&stem("request"), "required"));
        assert!(!term_matches(&stem("interest"), "internal"));
        assert!(!term_matches(&stem("test"), "te"));
    }

    /// A question for one bound is not answered by a sentence that names
    /// only the other, however many of its terms that sentence holds; one
    /// that names both, or neither, still answers; "5 min" is no bound.
    #[test]
    fn a_question_for_one_bound_is_not_answered_by_the_other() {
        let text = "The minimum boiler flow is 30 gpm. Each boiler is rated 1,425 MBH.";
        for q in [
            ["max", "boiler", "flow", "gpm"],
            ["maximum", "boiler", "flow", "gpm"],
        ] {
            let f = focus(&q);
            let p = pick(Focus::plain(&f), &[], &[(0, text, 0.0)], 2);
            assert!(p.iter().all(|p| !p.text.contains("30 gpm")), "{q:?}: {p:?}");
        }
        // Asked for the least, the same sentence answers.
        let f = focus(&["min", "boiler", "flow"]);
        let p = pick(Focus::plain(&f), &[], &[(0, text, 0.0)], 2);
        assert_eq!(p[0].text, "The minimum boiler flow is 30 gpm.");
        // Both bounds named: the row answers either.
        let row = "Chiller evaporator: minimum flow 150 gpm, maximum 540 gpm.";
        let f = focus(&["max", "evaporator", "flow"]);
        assert_eq!(
            pick(Focus::plain(&f), &[], &[(0, row, 0.0)], 1)[0].text,
            row
        );
        // Both asked: no bound is asked alone.
        assert_eq!(Bound::asked(&focus(&["min", "max", "flow"])), None);
        assert_eq!(Bound::asked(&focus(&["lowest", "vcool-max"])), None);
        assert_eq!(
            Bound::asked(&focus(&["highest", "flow"])),
            Some(Bound::Upper)
        );
        // Minutes are not a bound; a compound's part is.
        assert_eq!(
            Bound::named_in("run for 5 min at high speed"),
            (true, false)
        );
        assert_eq!(Bound::named_in("the low-temperature cutout"), (false, true));
        assert!(Bound::Upper.only_other_in("Vmin is the min airflow."));
        assert!(!Bound::Upper.only_other_in("Vcool-max and Vmin are reset."));
    }

    #[test]
    fn pick_prefers_sentences_with_more_focus_terms() {
        let text = "VAV-2-14 is a reheat box. Its heating maximum is 175 cfm. Its cooling maximum is 350 cfm.";
        let f = focus(&["heating", "max", "cfm"]);
        let p = pick(Focus::plain(&f), &[], &[(0, text, 0.0)], 2);
        let best = p.iter().max_by(|a, b| a.score.total_cmp(&b.score)).unwrap();
        assert_eq!(best.text, "Its heating maximum is 175 cfm.");
        assert!((coverage(Focus::plain(&f), &[], &p, &[]) - 1.0).abs() < 1e-6);
        let none = pick(
            Focus::plain(&focus(&["tonnage", "chiller"])),
            &[],
            &[(0, text, 0.0)],
            2,
        );
        assert_eq!(
            coverage(
                Focus::plain(&focus(&["tonnage", "chiller"])),
                &[],
                &none,
                &[]
            ),
            0.0
        );
    }

    /// Asked for a value, of two sentences holding as many of the
    /// question's terms the one stating a quantity is quoted first; it
    /// does not outrank one holding more terms, nor does a number alone
    /// (no term) count.
    #[test]
    fn a_question_for_a_value_prefers_the_sentence_that_states_one() {
        let units: Vec<String> = ["%", "minutes", "level"].map(String::from).to_vec();
        let text = "The block outputs the low airflow alarm. \
                    If the low airflow lasts 5 minutes at 70% of setpoint, raise a Level 3 alarm. \
                    Version 2 of 2020.";
        let f = focus(&["low", "airflow", "alarm"]);
        let asked = |units: &[String]| {
            pick(
                Focus {
                    terms: &f,
                    equivalents: &[],
                    units,
                    number: false,
                    kinds: &[],
                },
                &[],
                &[(0, text, 0.0)],
                1,
            )[0]
            .text
            .clone()
        };
        assert_eq!(asked(&[]), "The block outputs the low airflow alarm.");
        assert!(asked(&units).starts_with("If the low airflow lasts 5 minutes"));
        // One more term outweighs the quantity.
        // (Among sentences that mostly hold other words, as chunks do: a
        // term half of two sentences hold weighs as little as the bonus.)
        let text = "The low airflow alarm is Level 3 after 5 minutes. The low airflow alarm threshold is set per zone. \
                    Zones are listed in the schedule. Each box reports its damper position.";
        let f = focus(&["low", "airflow", "alarm", "threshold"]);
        let p = pick(
            Focus {
                terms: &f,
                equivalents: &[],
                units: &units,
                number: false,
                kinds: &[],
            },
            &[],
            &[(0, text, 0.0)],
            1,
        );
        assert_eq!(
            p[0].text,
            "The low airflow alarm threshold is set per zone."
        );
    }

    /// Terms that name a text's document count less in its sentences: the
    /// line that repeats the page's name loses to the one that answers.
    #[test]
    fn terms_naming_the_document_tell_no_sentence_apart() {
        let f = focus(&["multizone", "ahu", "freeze", "protection", "stage", "3"]);
        let text = "Source: Buildings AHUs MultiZone Freeze Protection (LBNL).\n\
                    Stage 3 freeze alarm starts when the supply air is below 3.3 C for 5 minutes.";
        let best = |naming: &[Vec<String>]| {
            pick_in(Focus::plain(&f), &[], &[(0, text, 0.0)], naming, &[], 1)[0]
                .text
                .clone()
        };
        assert!(best(&[]).starts_with("Source:"));
        let naming = vec![focus(&["multizone", "ahu", "freeze", "protection"])];
        assert!(best(&naming).starts_with("Stage 3"));
    }

    /// The heading a chunk's text opens with and a line citing a file
    /// hold the question's words and answer nothing: neither is quoted.
    #[test]
    fn headings_and_file_citations_are_not_quoted() {
        let f = focus(&["chiller", "plant", "request"]);
        let text = "Chiller plant request\n\
                    Source: Library, Buildings/Controls/G36/AHUs/PlantRequests.mo (BSD).\n\
                    Send a chiller plant request while the cooling valve is above 95%.";
        let heading = "G36 AHUs / PlantRequests > Chiller plant request";
        let quoted = |headings: &[&str]| {
            pick_in(Focus::plain(&f), &[], &[(0, text, 0.0)], &[], headings, 1)[0]
                .text
                .clone()
        };
        assert!(quoted(&[heading]).starts_with("Send a chiller plant request"));
        // Without its heading path the heading line is a sentence like any
        // other, and holds the most terms; the file citation never counts.
        assert_eq!(quoted(&[]), "Chiller plant request");
        assert!(!answers_anything(
            "Source: Library, Buildings/Controls/G36/AHUs/PlantRequests.mo (BSD).",
            ""
        ));
        assert!(answers_anything(
            "See https://example.org/a/b/c for the form.",
            ""
        ));
    }

    #[test]
    fn a_sentence_that_refers_back_is_quoted_after_the_one_it_refers_to() {
        let text =
            "VAV-2-14 serves office A-214. Its heating maximum is 175 cfm. Other boxes differ.";
        assert_eq!(
            quoted(&["heating", "max", "cfm"], text),
            [
                "VAV-2-14 serves office A-214.",
                "Its heating maximum is 175 cfm.",
                "Other boxes differ."
            ]
        );
        assert!(!refers_back("The box opens."));
        // The line before is a file citation or a heading: it answers
        // nothing and is not quoted for the sentence after it.
        let text = "Source: Library, Buildings/Controls/G36/TerminalUnits/ActiveAirFlow.mo (BSD).\n\
                    This sequence sets the active cooling maximum airflow setpoint.";
        let p = pick_in(
            Focus::plain(&focus(&["cooling", "max", "airflow"])),
            &[],
            &[(0, text, 0.0)],
            &[],
            &["G36 TerminalUnits / ActiveAirFlow"],
            2,
        );
        let quoted: Vec<&str> = p.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            quoted,
            ["This sequence sets the active cooling maximum airflow setpoint."]
        );
    }

    /// A formula whose left side is the question's term answers how it is
    /// calculated, over one that uses the term holding as many words; it
    /// is quoted after the line that leads into it, and a next sentence
    /// that leads into another formula is not quoted after it.
    #[test]
    fn a_formula_that_defines_the_term_asked_is_picked() {
        let f = focus(&["sysveneff", "calculated"]);
        let text = "Calculate the effective minimum outdoor air setpoint as the intake over the efficiency:\n\
                    VEffOutAir_flow = min(VUncOutAir_flow/sysVenEff, VDesTotOutAir_flow)\n\
                    Calculate the current system ventilation efficiency as\n\
                    sysVenEff = 1 + (VUncOutAir_flow/VSumZonPri_flow) - uOutAirFra_max\n\
                    Calculate the outdoor air fraction as\n\
                    uOutAirFra = VUncOutAir_flow/VEffOutAir_flow";
        let p = pick_in(Focus::plain(&f), &[], &[(0, text, 1.0)], &[], &[], 1);
        let quoted: Vec<&str> = p.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            quoted,
            [
                "Calculate the current system ventilation efficiency as",
                "sysVenEff = 1 + (VUncOutAir_flow/VSumZonPri_flow) - uOutAirFra_max",
            ]
        );
        assert!(defines("sysVenEff = 1 + x", &f));
        assert!(!defines("VEffOutAir_flow = min(x/sysVenEff, y)", &f));
    }

    /// A question for a number is answered by a sentence that states one,
    /// though another holds more of its words and states none.
    #[test]
    fn a_question_for_a_number_picks_a_sentence_stating_one() {
        let f = focus(&["znt", "override", "button", "duration", "yts-200"]);
        let units = ["minutes".to_owned(), "°F".to_owned()];
        let equipment = "The zone temperature sensor is a YTS-200 wall module with an override button and a znt display.";
        let setpoints = "A local adjustment is cleared at the end of each occupied period. \
                         The override button puts the zone group in Occupied mode for 60 minutes.";
        let texts = [(0, equipment, 1.0), (1, setpoints, 0.9)];
        let pick = |number: bool| {
            let focus = Focus {
                terms: &f,
                equivalents: &[],
                units: &units,
                number,
                kinds: &[],
            };
            pick_in(focus, &[], &texts, &[], &[], 1)
                .into_iter()
                .map(|p| p.text)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            pick(true),
            ["The override button puts the zone group in Occupied mode for 60 minutes."]
        );
        // Asked for no number, the sentence holding more of the words wins.
        assert_eq!(pick(false), [equipment]);
    }

    /// A question that names a kind is answered by a sentence that names
    /// it (or stands under a heading that does), though another holds more
    /// of its words.
    #[test]
    fn a_question_naming_a_kind_picks_a_sentence_naming_it() {
        let f = focus(&["room", "dcv", "box", "minimum", "airflow"]);
        let stems = |t: &str| words(t).iter().map(|w| stem(w)).collect::<Vec<_>>();
        let kinds = [crate::answer::question::NamedKind {
            said: "co2 sensors".into(),
            words: stems("co2 sensors"),
            label: stems("CO2 Sensor"),
            equivalents: Vec::new(),
            form: None,
            class: None,
            models: Vec::new(),
            phrase: false,
        }];
        let log = "The CO2 input was configured for 0-5 V, so the dcv box minimum airflow in the room stayed low.";
        let sequence =
            "In zones with a CO2 sensor, dcv raises the active minimum from Vmin at 700 ppm.";
        let texts = [(0, log, 1.0), (1, sequence, 0.9)];
        let pick = |kinds| {
            let focus = Focus {
                kinds,
                ..Focus::plain(&f)
            };
            pick_in(focus, &[], &texts, &[], &["Service log", ""], 1)
                .into_iter()
                .map(|p| p.text)
                .collect::<Vec<_>>()
        };
        assert_eq!(pick(&kinds), [sequence]);
        // Named by no kind, the sentence holding more of the words wins.
        assert_eq!(pick(&[]), [log]);
        // A heading that names the kind names it for its sentences.
        let under = pick_in(
            Focus {
                kinds: &kinds,
                ..Focus::plain(&f)
            },
            &[],
            &texts,
            &[],
            &["CO2 sensor checks", ""],
            1,
        );
        assert_eq!(under[0].text, log);
    }

    /// A sentence that names a kind by a product's model number holds the
    /// kind's words for the passage's coverage; without the model, it
    /// holds only the words it writes.
    #[test]
    fn a_kind_named_by_its_model_holds_its_words() {
        let f = focus(&["zone", "temp", "sensor", "calibration"]);
        let stems = |t: &str| words(t).iter().map(|w| stem(w)).collect::<Vec<_>>();
        let kind = |models: Vec<String>| crate::answer::question::NamedKind {
            said: "zone temp sensor".into(),
            words: stems("zone temp sensor"),
            label: stems("Temperature Sensor"),
            equivalents: Vec::new(),
            form: None,
            class: None,
            models,
            phrase: false,
        };
        let row = "Task: Calibration check; Equipment: YTS-200, YDT-210; Interval: Annually";
        let coverage = |kinds: &[crate::answer::question::NamedKind]| {
            let focus = Focus {
                kinds,
                ..Focus::plain(&f)
            };
            coverage(focus, &[], &[Picked::beside(focus, 0, row)], &[])
        };
        assert_eq!(coverage(&[kind(vec![squash("YTS-200")])]), 1.0);
        assert_eq!(coverage(&[kind(Vec::new())]), 0.25);
        assert_eq!(coverage(&[kind(vec![squash("YCO-300")])]), 0.25);
    }

    /// A compound the question writes with a hyphen is held as itself, or
    /// by its words side by side (a heading's camel case too), not by a
    /// word of its first part: "cooling" of the reheat unit's page does
    /// not hold "cooling-only". A phrasal one is still held by its first
    /// word ("Leaking" holds "leak-by").
    #[test]
    fn a_compound_is_held_as_a_whole() {
        let f = focus(&["cooling-only", "leak-by", "maximum"]);
        let held = |t: &str| matched_terms(Focus::plain(&f), t);
        assert_eq!(
            held("This sequence sets the active cooling maximum for VAV reheat terminal unit."),
            ["maximum"]
        );
        assert_eq!(
            held("the maximum for cooling only terminal unit"),
            ["cooling-only", "maximum"]
        );
        assert_eq!(held("a cooling-only box"), ["cooling-only"]);
        assert_eq!(
            held(&camel_spaced("G36 TerminalUnits / CoolingOnly")),
            ["cooling-only"]
        );
        assert_eq!(held("Alarm: Leaking reheat valve"), ["leak-by"]);
        // Its parts apart elsewhere in the text hold nothing.
        assert!(held("cooling is the only mode").is_empty());
        // Its words side by side in another form of one of them: the
        // question's "outside-air" is the page's "outdoor air", not
        // "outdoor" and "air" apart.
        let f = focus(&["outside-air", "flap"]);
        let other = [Equivalent {
            terms: vec![stem("outside")],
            form: vec![stem("outdoor")],
        }];
        let focus = Focus {
            equivalents: &other,
            ..Focus::plain(&f)
        };
        assert_eq!(
            matched_terms(focus, "the minimum outdoor air damper"),
            ["outside-air"]
        );
        assert!(matched_terms(focus, "outdoor temperature and supply air").is_empty());
        assert!(matched_terms(Focus::plain(&f), "the minimum outdoor air damper").is_empty());
    }

    /// An operating mode the question names is held by its letters alone,
    /// not by a word of its root: "cooling" does not hold "cool-down".
    #[test]
    fn a_mode_is_held_by_its_letters_alone() {
        let f = focus(&["cool-down", "maximum"]);
        let kinds = [mode_named("cool-down", "cooldown")];
        let focus = Focus {
            kinds: &kinds,
            ..Focus::plain(&f)
        };
        assert_eq!(
            matched_terms(focus, "the active cooling maximum"),
            ["maximum"]
        );
        for text in [
            "Cooldown: VCooMax_flow maximum",
            "in cool down the maximum",
            "Cool-down maximum",
        ] {
            assert_eq!(
                matched_terms(focus, text),
                ["cool-down", "maximum"],
                "{text}"
            );
        }
        // Without the mode read, the root holds it, as before.
        assert_eq!(
            matched_terms(Focus::plain(&f), "the active cooling maximum"),
            ["cool-down", "maximum"]
        );
    }

    /// A question that names a mode and a box is answered by the sentence
    /// naming the mode first; a sentence naming the box may follow it with
    /// what it adds, one that names neither may not.
    #[test]
    fn after_the_sentence_naming_a_mode_one_naming_the_asked_box_may_follow() {
        let f = focus(&["cfm", "vav-2-16", "warmup", "zone", "heat", "setpoint"]);
        let mode = mode_named("warm up", "warmup");
        let example = "VAV-2-16 is the only corner office box: 450 cfm cooling maximum, 225 cfm heating maximum.";
        let zone =
            "The zone heating setpoint is 70 °F and the cooling setpoint 75 °F in cfm terms.";
        let sequence = "In Warm-up and Setback modes the box runs at Vheat-max while ZNT is below the active heating setpoint.";
        let texts = [(0, example, 1.0), (1, zone, 0.95), (2, sequence, 0.9)];
        let kinds = [mode];
        let focus = Focus {
            kinds: &kinds,
            ..Focus::plain(&f)
        };
        let picked: Vec<String> = pick_in(focus, &["VAV-2-16".into()], &texts, &[], &[], 2)
            .into_iter()
            .map(|p| p.text)
            .collect();
        assert_eq!(picked, [sequence, example]);
    }

    /// A table's caption is quoted once: with the row that carries it, not
    /// also as the sentence before the row.
    #[test]
    fn a_caption_is_not_quoted_again_before_its_row() {
        let f = focus(&["trim", "respond", "parameters"]);
        let text = "Static pressure setpoint shall be reset using trim-respond logic using following parameters:\n\
                    | Variable | Value |\n\
                    | SPtrim | -12 Pa |";
        let p = pick_in(Focus::plain(&f), &[], &[(0, text, 1.0)], &[], &[], 2);
        let quoted: Vec<&str> = p.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            quoted,
            [
                "Static pressure setpoint shall be reset using trim-respond logic using following parameters: Variable: SPtrim; Value: -12 Pa"
            ]
        );
    }

    /// An item of a list stands under its lead-in: the lead-in's words
    /// count for it, and it is quoted after the lead-in.
    #[test]
    fn a_list_item_stands_under_its_lead_in() {
        let f = focus(&[
            "suppression",
            "setpoint",
            "change",
            "cooling",
            "requests",
            "time",
        ]);
        let sequence = "Timers are reset daily. The time delay after a change in setpoint shall be as follows:\n\
                        For zone temperature alarms: 10 minutes per °F but no longer than 120 minutes.\n\
                        For zone temperature cooling requests: 5 minutes per °F but no longer than 30 minutes.";
        let requests = "If the zone temperature exceeds the cooling setpoint by 5 °F after the suppression period due to setpoint change, send 3 requests.";
        let texts = [(0, requests, 0.7), (1, sequence, 1.0)];
        let p = pick_in(Focus::plain(&f), &[], &texts, &[], &[], 1);
        let quoted: Vec<&str> = p.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            quoted,
            [
                "The time delay after a change in setpoint shall be as follows:",
                "For zone temperature cooling requests: 5 minutes per °F but no longer than 30 minutes.",
            ]
        );
        // Without its lead-in the item holds less than the other text's
        // sentence.
        let bare = sequence.lines().skip(1).collect::<Vec<_>>().join("\n");
        let texts = [(0, requests, 0.7), (1, bare.as_str(), 1.0)];
        let p = pick_in(Focus::plain(&f), &[], &texts, &[], &[], 1);
        assert_eq!(p[0].text, requests);
    }

    /// A lead-in that answers is quoted with its list's items after it,
    /// in their order: alone it says nothing, the items are what it
    /// announces. A bare phrase of the list ("Cooldown mode") is quoted
    /// with its lead-in and the whole list; the paragraph after the list
    /// is no item of it.
    #[test]
    fn a_lead_in_is_quoted_with_its_items() {
        let lead = "When zone groups served by an AHU are in different modes, \
                    the following hierarchy applies (highest one sets AHU mode):";
        let page = format!(
            "This sequence sets the operation mode of an AHU.\n{lead}\n\
             Occupied mode\nCooldown mode\nSetup mode\n\
             See the operation mode enumeration for the detailed description."
        );
        let list = [lead, "Occupied mode", "Cooldown mode", "Setup mode"];
        for q in [
            &["zone", "group", "different", "mode", "ahu", "priority"][..],
            &["cooldown", "mode", "rank", "ahu"][..],
        ] {
            let f = focus(q);
            let p = pick_in(
                Focus::plain(&f),
                &[],
                &[(0, page.as_str(), 1.0)],
                &[],
                &[],
                2,
            );
            let quoted: Vec<&str> = p.iter().map(|p| p.text.as_str()).collect();
            assert_eq!(quoted[..4], list, "{q:?}: {quoted:?}");
        }
        // An item that is a sentence is quoted under its lead-in alone
        // (a_list_item_stands_under_its_lead_in).
    }

    /// A log entry's later sentence stands under the entry's dated
    /// opening: "drain pH 6.8" of the October 2025 service holds the
    /// question's "2025-10" through its entry and outscores a manual's
    /// service instructions holding more of the other words; the opening
    /// is quoted before it. A sentence of another entry gains nothing.
    #[test]
    fn a_record_sentence_stands_under_its_dated_opening() {
        let f = focus(&["boiler", "service", "2025-10", "ph", "condensate", "drain"]);
        let manual = "Annual boiler service: replace the condensate neutralizer media and check that the drain pH is above 6.0.";
        let log = "2025-10-14 — B-1 and B-2: annual service. Flue gas at 9.1 % CO2. Condensate neutralizer media replaced, drain pH 6.8.\n\
                   2025-11-02 — AHU-1: condensate drain pan cleaned, pH of the water not taken.";
        let texts = [(0, manual, 1.0), (1, log, 0.9)];
        let p = pick_in(Focus::plain(&f), &[], &texts, &[], &[], 1);
        let quoted: Vec<&str> = p.iter().map(|p| p.text.as_str()).collect();
        // The next entry is another event: not quoted as the sentence after.
        assert_eq!(
            quoted,
            [
                "2025-10-14 — B-1 and B-2: annual service.",
                "Condensate neutralizer media replaced, drain pH 6.8.",
            ]
        );
        // Without its date the entry's sentence holds less than the manual's.
        let undated = log.replace("2025-10-14 — ", "");
        let texts = [(0, manual, 1.0), (1, undated.as_str(), 0.9)];
        let p = pick_in(Focus::plain(&f), &[], &texts, &[], &[], 1);
        assert_eq!(p[0].text, manual);
    }

    /// A sentence that repeats the label its paragraph opens with ("Stage
    /// 2 clears …" after "Stage 2: if SAT stays below …") is quoted after
    /// the labelled sentence, which says when the stage begins; read in a
    /// chunk it opens (chunks overlap), it is read where it stands in the
    /// chunk before.
    #[test]
    fn a_sentence_repeating_its_paragraphs_label_is_quoted_after_it() {
        let f = focus(&["stage", "2", "sat", "clear"]);
        let before = "Stage 1: if SAT is below 40 °F for 5 minutes, the economizer is disabled. Stage 1 clears when SAT has been above 45 °F for 15 minutes.\n\
                      Stage 2: if SAT stays below 40 °F while stage 1 is active, or falls below 35 °F, the dampers close. Stage 2 clears after one hour with SAT above 45 °F.";
        let after = "Stage 2 clears after one hour with SAT above 45 °F.\n\
                     Stage 3: if SAT falls below 33 °F for 5 minutes, the fans stop.";
        let quoted = |texts: &[(usize, &str, f32)]| -> Vec<String> {
            pick_in(Focus::plain(&f), &[], texts, &[], &[], 1)
                .into_iter()
                .map(|p| p.text)
                .collect()
        };
        let stage_2 = [
            "Stage 2: if SAT stays below 40 °F while stage 1 is active, or falls below 35 °F, the dampers close.",
            "Stage 2 clears after one hour with SAT above 45 °F.",
        ];
        assert_eq!(quoted(&[(0, before, 0.9)]), stage_2);
        // The chunk that opens with the sentence ranks first.
        assert_eq!(quoted(&[(1, after, 1.0), (0, before, 0.9)]), stage_2);
        // A paragraph that opens with no label: the sentence stands alone
        // (the sentence after it is quoted with it, as before).
        let unlabelled = before.replace("Stage 2: if", "If");
        assert_eq!(
            quoted(&[(0, unlabelled.as_str(), 0.9)])[0],
            "Stage 2 clears after one hour with SAT above 45 °F."
        );
    }

    /// The sentence before the best one in its paragraph is quoted first
    /// when it holds a term of the question the quoted ones do not: the
    /// answer spans the two. Not from the paragraph before, nor when it
    /// adds nothing.
    #[test]
    fn the_sentence_before_is_quoted_when_it_holds_more_of_the_question() {
        let one = |ws: &[&str], text: &str| -> Vec<String> {
            pick(Focus::plain(&focus(ws)), &[], &[(0, text, 1.0)], 1)
                .into_iter()
                .map(|p| p.text)
                .collect()
        };
        let asked = ["plant", "chiller", "minimum", "run", "time"];
        let text = "Stage down to one chiller when the plant load has been below 105 tons for 15 minutes. \
                    Each chiller has a minimum run time of 30 minutes and a minimum off time of 15 minutes.";
        let minimum = "Each chiller has a minimum run time of 30 minutes and a minimum off time of 15 minutes.";
        assert_eq!(
            one(&asked, text),
            [
                "Stage down to one chiller when the plant load has been below 105 tons for 15 minutes.",
                minimum,
            ]
        );
        // In another paragraph, it is another topic.
        let apart = text.replace("15 minutes. ", "15 minutes.\n");
        assert_eq!(one(&asked, &apart), [minimum]);
        // Holding nothing the best one does not, it is not quoted.
        assert_eq!(one(&["chiller", "minimum", "run", "time"], text), [minimum]);
        // Nor when it leaves out the mode the question and the best one
        // name: warm-up's airflow adds nothing to cool-down's.
        let f = focus(&["box", "cooldown", "max", "airflow"]);
        let mode = mode_named("cooldown", "cooldown");
        let kinds = [mode];
        let modes = "In Warm-up mode the box runs at its heating maximum airflow. \
                     In Cool-down mode the box runs at its cooling max.";
        let picked = |focus: Focus<'_>| -> Vec<String> {
            pick(focus, &[], &[(0, modes, 1.0)], 1)
                .into_iter()
                .map(|p| p.text)
                .collect()
        };
        assert_eq!(
            picked(Focus {
                kinds: &kinds,
                ..Focus::plain(&f)
            }),
            ["In Cool-down mode the box runs at its cooling max."]
        );
        // Without the mode, it holds "airflow", which the best one does not.
        assert_eq!(picked(Focus::plain(&f)).len(), 2);
    }

    /// The sentence after the best one is quoted with it, but not when it
    /// is a heading of the chunk's path (a topic, not what the best one
    /// announces) or a file citation.
    #[test]
    fn the_sentence_after_is_quoted_unless_it_answers_nothing() {
        let f = focus(&["low", "airflow", "alarm"]);
        let text = "If the airflow is below 50 % of setpoint for 5 minutes, generate a Level 2 low airflow alarm.\n\
                    Low-temperature alarm\n\
                    If the discharge air is 17 °C below setpoint, generate a Level 3 alarm.";
        let quoted = |heading: &str| -> Vec<String> {
            pick_in(Focus::plain(&f), &[], &[(0, text, 1.0)], &[], &[heading], 1)
                .into_iter()
                .map(|p| p.text)
                .collect()
        };
        assert_eq!(
            quoted("G36 TerminalUnits / Alarms > Low-temperature alarm"),
            [
                "If the airflow is below 50 % of setpoint for 5 minutes, generate a Level 2 low airflow alarm."
            ]
        );
        assert_eq!(
            quoted("G36 TerminalUnits / Alarms")[1],
            "Low-temperature alarm"
        );
    }

    /// A run-in heading is not picked on its own: the last cooling
    /// adjustment and the heating paragraph's heading after it, picked for
    /// the heading's word "heating", read as the heating adjustment.
    #[test]
    fn a_run_in_heading_is_not_picked_for_its_terms() {
        let f = focus(&["demand", "limit", "level", "3", "heating", "setpoint"]);
        let text = "Cooling demand limit setpoint adjustment. The active cooling setpoints shall be increased.\n\
                    At Demand Limit Level 3, increase setpoint by 2 °C (4 °F).\n\
                    Heating demand limit setpoint adjustment. The active heating setpoints shall be decreased.";
        let quoted: Vec<String> = pick_in(
            Focus::plain(&f),
            &[],
            &[(0, text, 1.0)],
            &[],
            &["Setpoints"],
            3,
        )
        .into_iter()
        .map(|p| p.text)
        .collect();
        assert!(!quoted.is_empty());
        assert!(
            !quoted.iter().any(|q| q.ends_with("setpoint adjustment.")),
            "{quoted:?}"
        );
    }

    /// A sentence that leans on one that leans back too is quoted after
    /// both, in the text's order, even when the first was picked on its
    /// own and ranked lower.
    #[test]
    fn a_chain_of_sentences_that_refer_back_is_quoted_from_its_start() {
        let text = "The hot-water plant is enabled below 60 °F outside air. \
                    It is also enabled below 38 °F. \
                    It is locked out above 80 °F outside air. \
                    Pumps start first.";
        assert_eq!(
            quoted(&["plant", "locked", "above", "outside"], text),
            [
                "The hot-water plant is enabled below 60 °F outside air.",
                "It is also enabled below 38 °F.",
                "It is locked out above 80 °F outside air.",
                "Pumps start first."
            ]
        );
    }

    /// A sentence stands under its heading path: "… / Alarms > Low
    /// airflow" holds "low" and "alarm" for the sentence that states the
    /// thresholds, which then outscores an overview sentence of a
    /// better-ranked chunk naming the same words; the chunk's rank weighs
    /// at most one term.
    #[test]
    fn a_sentence_holds_the_terms_of_its_heading() {
        let f = focus(&["reheat", "low", "airflow", "alarm"]);
        let overview = "It outputs the alarms about the low airflow yLowFloAla. \
                        The sequence consists of six subsequences. Each has its own block.";
        let alarms = "If the measured airflow is less than 70% of setpoint for 5 minutes, generate a Level 3 alarm. \
                      Zones with an importance multiplier of 0 are left out.";
        let texts = [(0, overview, 1.0), (1, alarms, 0.9)];
        let headings = [
            "G36 TerminalUnits / Controller",
            "G36 TerminalUnits / Reheat / Subsequences / Alarms > Low airflow",
        ];
        let best = |headings: &[&str]| {
            pick_in(Focus::plain(&f), &[], &texts, &[], headings, 1)[0]
                .text
                .clone()
        };
        assert!(best(&headings).starts_with("If the measured airflow"));
        assert!(
            best(&[]).starts_with("It outputs"),
            "without the headings the overview holds more"
        );
    }

    /// "VAV-2-14 is … It serves … Its cooling maximum is 350 cfm": the
    /// sentences that refer back name the box as the first does, and a
    /// named entity weighs as much as a focus term.
    #[test]
    fn a_sentence_that_refers_back_names_what_the_one_before_names() {
        let f = focus(&["cool", "max"]);
        let general = "Each box has a cooling maximum airflow. Boxes are balanced yearly.";
        let example =
            "VAV-2-14 is a reheat box. It serves office A-214. Its cooling maximum is 350 cfm.";
        let texts = [(0, general, 1.0), (1, example, 0.8)];
        let labels = vec!["VAV-2-14".to_owned()];
        let picked = pick_in(Focus::plain(&f), &labels, &texts, &[], &[], 1);
        // Quoted after the sentences it refers back to, up to the one that
        // names the box.
        let quoted: Vec<&str> = picked.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            quoted,
            [
                "VAV-2-14 is a reheat box.",
                "It serves office A-214.",
                "Its cooling maximum is 350 cfm."
            ]
        );
        let picked = pick_in(Focus::plain(&f), &[], &texts, &[], &[], 1);
        assert!(picked[0].text.starts_with("Each box"));
    }

    /// A term most candidate sentences hold tells them apart less than one
    /// few hold: "how fast may the fan change speed" is answered by the
    /// ramp sentence, not by one naming more of the unit's words.
    #[test]
    fn a_term_few_sentences_hold_counts_more() {
        let f = focus(&["fan", "change", "speed"]);
        let text = "The fan speed loop runs. The fan speed has a minimum. The fan speed is reset. \
                    Changes in speed are limited to 10% per minute.";
        // Quoted after the sentence before it, which names the fan.
        let quoted: Vec<String> = pick_in(Focus::plain(&f), &[], &[(0, text, 0.0)], &[], &[], 1)
            .into_iter()
            .map(|p| p.text)
            .collect();
        assert_eq!(
            quoted,
            [
                "The fan speed is reset.",
                "Changes in speed are limited to 10% per minute."
            ]
        );
        let held: Vec<Vec<String>> = crate::text::quotable(text)
            .iter()
            .map(|s| matched_terms(Focus::plain(&f), s))
            .collect();
        let r = Rarity::of(&[held]);
        assert!(r.weight("chang") > r.weight("fan"));
        assert!((r.weight("speed") - (1.0 - RARITY_SHARE)).abs() < 1e-6);
    }

    #[test]
    fn no_content_words_measure_the_names_not_nothing() {
        let text = "VAV-2-14 is a reheat box. Its heating maximum is 175 cfm.";
        let p = pick(
            Focus::plain(&[]),
            &["VAV-2-14".into()],
            &[(0, text, 0.0)],
            2,
        );
        assert!((coverage(Focus::plain(&[]), &["VAV-2-14".into()], &p, &[]) - 1.0).abs() < 1e-6);
        assert_eq!(
            coverage(Focus::plain(&[]), &["VAV-3-07".into()], &p, &[]),
            0.0
        );
        // A heading counts: the passage stands under it.
        let f = focus(&["reheat", "heating", "max"]);
        let p = pick(
            Focus::plain(&f),
            &[],
            &[(0, "The heating maximum is 175 cfm.", 0.0)],
            2,
        );
        assert!((coverage(Focus::plain(&f), &[], &p, &[]) - 2.0 / 3.0).abs() < 1e-6);
        assert!((coverage(Focus::plain(&f), &[], &p, &["4. Reheat boxes"]) - 1.0).abs() < 1e-6);
        // Neither content words nor names: nothing is measured, nothing passes.
        assert_eq!(coverage(Focus::plain(&[]), &[], &p, &[]), 0.0);
    }

    #[test]
    fn an_abbreviation_and_its_words_hold_each_other() {
        // The question says SAT; the passage spells it out.
        let terms = focus(&["sat", "warm-up"]);
        let eq = [Equivalent {
            terms: vec!["sat".into()],
            form: focus(&["supply", "air", "temperature"]),
        }];
        let f = Focus {
            terms: &terms,
            equivalents: &eq,
            units: &[],
            number: false,
            kinds: &[],
        };
        assert_eq!(
            matched_terms(
                f,
                "During warm-up the supply air temperature setpoint is 90 F."
            ),
            ["sat", "warm-up"]
        );
        assert_eq!(
            matched_terms(f, "During warm-up the air temperature is 90 F."),
            ["warm-up"]
        );
        // The question spells it out; the passage abbreviates.
        let terms = focus(&["supply", "air", "temperature", "reset"]);
        let eq = [Equivalent {
            terms: focus(&["supply", "air", "temperature"]),
            form: vec!["sat".into()],
        }];
        let f = Focus {
            terms: &terms,
            equivalents: &eq,
            units: &[],
            number: false,
            kinds: &[],
        };
        assert_eq!(matched_terms(f, "SAT reset runs in cooling."), terms);
        // Exactly, not by prefix: saturation is not SAT.
        assert_eq!(matched_terms(f, "Saturation reset."), ["reset"]);
    }
}
