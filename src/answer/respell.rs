//! A question read once more as the engineer meant it: shorthand spelled
//! out ("htg vlv" → "heating valve", `dq:Shorthand` in
//! `ontology/core/cues.ttl`) and words the vocabulary does not know
//! corrected to the one known word they nearly spell ("downstram" →
//! "downstream", "equipmnt" → "equipment").
//!
//! The vocabulary is the grounder's (class labels, instance names, aliases,
//! Haystack markers of the loaded models) and the cue words; nothing here
//! lists domain words. The pipeline uses the respelled question only when
//! the graph query engine passes on the question as asked and composes the
//! respelled one; the trace says what was read.

use super::synthesize::{Equivalent, term_matches};
use crate::ground::Grounder;
use crate::ontology::Ontology;
use crate::store::{GraphStore, SolutionExt, StoreResult, select};
use crate::text::{Cue, Cues};
use crate::vocab::PREFIXES;
use std::collections::{HashMap, HashSet};

/// Shortest unknown word that is corrected: shorter words are too close
/// to too many others.
const MIN_CORRECTED: usize = 5;

/// From this length two edits are allowed, below it one.
const TWO_EDITS: usize = 8;

/// The shorthand and the vocabulary a question is respelled with.
#[derive(Debug, Clone, Default)]
pub struct Spelling {
    /// Shorthand → the words it stands for.
    spelled: HashMap<String, String>,
    /// Every word the grounder and the cues know.
    known: HashSet<String>,
    /// The grounder's words alone: names of the models and the ontology,
    /// not English cue words.
    domain: HashSet<String>,
    /// The same words stemmed ([`stem_root`]), as a question's focus
    /// terms are.
    domain_stems: HashSet<String>,
    /// Every abbreviation (`dq:Alias` and `dq:Shorthand`) with the words it
    /// stands for, both stemmed, sharing no word ("box" / "vav box" is a
    /// qualification, not another form).
    forms: Vec<(Vec<String>, Vec<String>)>,
    /// One-word abbreviations (`dq:Alias`, `dq:Shorthand`), lower case,
    /// with the words they stand for ("znt" → "zone temperature").
    abbreviations: HashMap<String, String>,
}

/// A question as respelled, with what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Respelled {
    /// The question with every change made.
    pub text: String,
    /// Each change: the word as typed → as read.
    pub changes: Vec<(String, String)>,
}

impl Spelling {
    /// Reads the shorthand from the store; the vocabulary from the grounder
    /// and the cues; the Haystack tag names from the ontology index.
    pub async fn load(
        store: &dyn GraphStore,
        grounder: &Grounder,
        cues: &Cues,
        ontology: &Ontology,
    ) -> StoreResult<Self> {
        // One read for both: the shorthand a question is respelled with,
        // and every abbreviation (shorthand and alias) with its words.
        let rows = select(
            store,
            format!(
                "{PREFIXES}SELECT ?kind ?short ?words WHERE {{ ?s dq:spelledOut ?words . \
                 {{ ?s a dq:Shorthand ; dq:shortText ?short . BIND(\"shorthand\" AS ?kind) }} \
                 UNION {{ ?s a dq:Alias ; dq:aliasText ?short . BIND(\"alias\" AS ?kind) }} \
                 UNION {{ ?s a dq:Paraphrase ; dq:phraseText ?short . BIND(\"paraphrase\" AS ?kind) }} \
                 }} ORDER BY ?short ?words"
            ),
        )
        .await?;
        let spelled = rows
            .iter()
            .filter(|r| r.str("kind") == Some("shorthand"))
            .map(|r| (r.string("short").to_lowercase(), r.string("words")))
            .collect();
        let mut spelling = Self::new(spelled, grounder.words(), cues);
        let (paraphrases, abbreviations): (Vec<_>, Vec<_>) = rows
            .iter()
            .partition(|r| r.str("kind") == Some("paraphrase"));
        spelling.set_forms(
            abbreviations
                .iter()
                .map(|r| (r.string("short"), r.string("words"))),
        );
        // A Haystack tag ("ahu", "vav", "co2") is the name documents write
        // too: it is not spelled out for the embedding.
        let tags: HashSet<String> = ontology.markers().map(|(n, _)| n.to_lowercase()).collect();
        spelling.set_abbreviations(
            abbreviations
                .iter()
                .map(|r| (r.string("short"), r.string("words")))
                .filter(|(short, _)| !tags.contains(&short.to_lowercase())),
        );
        spelling.add_paraphrases(
            paraphrases
                .iter()
                .map(|r| (r.string("short"), r.string("words"))),
        );
        tracing::info!(
            forms = spelling.forms.len(),
            "abbreviations and their words"
        );
        Ok(spelling)
    }

    /// Sets the abbreviations and the words they stand for; a pair that
    /// shares a word ("box" / "vav box") qualifies rather than abbreviates
    /// and is left out.
    /// Two abbreviations of the same words are forms of each other ("air
    /// handler" and "AHU" both stand for "air handling unit").
    pub fn set_forms(&mut self, pairs: impl IntoIterator<Item = (String, String)>) {
        let pairs: Vec<(Vec<String>, Vec<String>)> = pairs
            .into_iter()
            .map(|(short, long)| (stems(&short), stems(&long)))
            .collect();
        let siblings: Vec<(Vec<String>, Vec<String>)> = pairs
            .iter()
            .enumerate()
            .flat_map(|(i, (a, long))| {
                pairs[i + 1..]
                    .iter()
                    .filter(move |(b, other)| other == long && b != a)
                    .map(move |(b, _)| (a.clone(), b.clone()))
            })
            .collect();
        self.forms = pairs
            .into_iter()
            .chain(siblings)
            .filter(|(a, b)| other_forms(a, b))
            .collect();
    }

    /// Sets the one-word abbreviations a question is spelled out with for
    /// its embedding ([`Self::spelled_out`]). Left out: one that qualifies
    /// or names the same thing in other words rather than abbreviates
    /// ("box" → "vav box", "monitoring" → "sensor", "CFM" → "airflow"), a
    /// designation with a digit ("g36", which the G36 pages write as such),
    /// and one that stands for two sets of words.
    pub fn set_abbreviations(&mut self, pairs: impl IntoIterator<Item = (String, String)>) {
        let mut seen: HashMap<String, Option<String>> = HashMap::new();
        for (short, words) in pairs {
            let short = short.to_lowercase();
            let words = words.to_lowercase();
            if short.contains(' ')
                || short.chars().any(|c| c.is_ascii_digit())
                || words.split(' ').any(|w| w == short)
                || !letters_of(&short, &words)
            {
                continue;
            }
            seen.entry(short)
                .and_modify(|w| {
                    if w.as_deref() != Some(words.as_str()) {
                        *w = None;
                    }
                })
                .or_insert(Some(words));
        }
        self.abbreviations = seen
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
    }

    /// The question as the embedding model reads it best: each standalone
    /// abbreviation replaced by the words it stands for ("znt override btn
    /// duration" → "zone temperature override button duration"). A small
    /// sentence model has rarely met "znt" or "brgs"; it knows "zone
    /// temperature" and "bearings". An abbreviation inside a name or a
    /// compound ("AHU-1", "sat-sp", "vav2-16") is left as written; "min/max"
    /// are two words.
    pub fn spelled_out(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 32);
        let mut last = 0;
        for (start, end) in words(text) {
            // A compound ("sat-sp") and a word beside a full stop stay as
            // written.
            let word = &text[start..end];
            if word.contains('-') || text[..start].ends_with('.') || text[end..].starts_with('.') {
                continue;
            }
            if let Some(spelled) = self.abbreviations.get(&word.to_lowercase()) {
                out.push_str(&text[last..start]);
                out.push_str(spelled);
                last = end;
            }
        }
        out.push_str(&text[last..]);
        out
    }

    /// Adds everyday words and the words a sequence states the same thing
    /// in ("shortest" / "minimum", "empty" / "unoccupied"): forms of each
    /// other as an abbreviation and its words are, but two paraphrases of
    /// one word are not forms of each other ("shortest" and "lowest" both
    /// read "minimum"; a lowest temperature is no shortest time).
    pub fn add_paraphrases(&mut self, pairs: impl IntoIterator<Item = (String, String)>) {
        let more: Vec<(Vec<String>, Vec<String>)> = pairs
            .into_iter()
            .map(|(said, meant)| (stems(&said), stems(&meant)))
            .filter(|(a, b)| other_forms(a, b))
            .collect();
        self.forms.extend(more);
    }

    /// The other forms of a question's focus terms: for each abbreviation
    /// whose words (or whose spelled-out words) are all focus terms, the
    /// other form, standing for those terms ("SAT" in the question: a
    /// passage saying "supply air temperature" holds it; "supply air
    /// temperature" in the question: "SAT" holds all three).
    pub fn equivalents(&self, focus: &[String]) -> Vec<Equivalent> {
        let mut out: Vec<Equivalent> = Vec::new();
        for (short, long) in &self.forms {
            for (asked, other) in [(short, long), (long, short)] {
                // "temp" in the question is "temperature" of the form.
                let terms: Option<Vec<String>> = asked
                    .iter()
                    .map(|w| focus.iter().find(|t| term_matches(t, w)).cloned())
                    .collect();
                if let Some(terms) = terms {
                    let e = Equivalent {
                        terms,
                        form: other.clone(),
                    };
                    if !out.contains(&e) {
                        out.push(e);
                    }
                }
            }
        }
        out
    }

    /// Builds the spelling from its parts.
    pub fn new(spelled: HashMap<String, String>, words: HashSet<String>, cues: &Cues) -> Self {
        let domain = words.clone();
        let domain_stems = words.iter().map(|w| stem_root(w)).collect();
        let mut known = words;
        for cue in Cue::question_cues() {
            for text in cues.list(cue) {
                known.extend(
                    text.split(|c: char| !c.is_alphabetic())
                        .filter(|w| !w.is_empty())
                        .map(str::to_owned),
                );
            }
        }
        for words in spelled.values() {
            known.extend(words.split(' ').map(str::to_owned));
        }
        tracing::info!(
            shorthand = spelled.len(),
            words = known.len(),
            "spelling vocabulary built"
        );
        Self {
            spelled,
            known,
            domain,
            domain_stems,
            forms: Vec::new(),
            abbreviations: HashMap::new(),
        }
    }

    /// Whether `typed` is shorthand this spelling spells out ("htg"), not
    /// a near miss it corrects.
    pub fn is_shorthand(&self, typed: &str) -> bool {
        self.spelled.contains_key(&typed.to_lowercase())
    }

    /// The words a shorthand word stands for ("freq" → "frequency"), the
    /// word itself when it is none.
    pub fn spelled_word<'w>(&'w self, typed: &'w str) -> &'w str {
        self.spelled
            .get(&typed.to_lowercase())
            .map_or(typed, String::as_str)
    }

    /// Whether `typed` is an abbreviation this spelling spells out in other
    /// words ("stpt" → "setpoint", "sa" → "supply air"), not a word it
    /// qualifies ("box" → "vav box").
    pub fn abbreviates(&self, typed: &str) -> bool {
        let lower = typed.to_lowercase();
        self.spelled
            .get(&lower)
            .is_some_and(|w| !w.split(' ').any(|x| x == lower))
    }

    /// Whether `word` (or its singular) is a word of the models or the
    /// ontology ("condenser"), not only plain English ("fix", "june").
    pub fn is_domain(&self, word: &str) -> bool {
        holds(&self.domain, word)
    }

    /// Whether a focus term (stemmed) is a word of the models or the
    /// ontology, as written or stemmed ("temperatur" of "temperature").
    pub fn is_domain_term(&self, term: &str) -> bool {
        self.is_domain(term) || self.domain_stems.contains(&stem_root(term))
    }

    fn knows(&self, word: &str) -> bool {
        holds(&self.known, word)
    }

    /// The one known word `word` nearly spells, if there is exactly one at
    /// the least distance.
    fn nearest(&self, word: &str) -> Option<String> {
        let n = word.chars().count();
        // "counted" is "count" said in the past (a cue word), not a miss
        // of "mounted": a known word with a regular ending is known.
        let base = crate::text::stem(word);
        if n < MIN_CORRECTED
            || self.knows(word)
            || (base.len() < n && (self.knows(&base) || self.knows(&format!("{base}e"))))
        {
            return None;
        }
        let limit = if n >= TWO_EDITS { 2 } else { 1 };
        let mut best: Option<(usize, Vec<&str>)> = None;
        for k in &self.known {
            if k.chars().count().abs_diff(n) > limit {
                continue;
            }
            let d = strsim::damerau_levenshtein(word, k);
            if d > limit {
                continue;
            }
            match &mut best {
                Some((bd, ks)) if d == *bd => ks.push(k),
                Some((bd, _)) if d > *bd => {}
                _ => best = Some((d, vec![k])),
            }
        }
        let (_, ks) = best?;
        // "handelrs" is one edit from "handlers" and two from "handler":
        // a plural and its singular are one word.
        let mut roots: Vec<&str> = ks
            .iter()
            .map(|k| k.strip_suffix('s').filter(|r| ks.contains(r)).unwrap_or(k))
            .collect();
        roots.sort_unstable();
        roots.dedup();
        match roots.as_slice() {
            [one] if word.ends_with('s') && !one.ends_with('s') => Some(format!("{one}s")),
            [one] => Some((*one).to_owned()),
            _ => None,
        }
    }

    /// The question with its shorthand spelled out and its near misses
    /// corrected; `None` when nothing changes. Words joined to digits,
    /// underscores or other words by a hyphen ("hw_valve", "psz-ac-2") are
    /// names and are left as typed.
    pub fn respell(&self, text: &str) -> Option<Respelled> {
        self.respell_keeping(text, &[])
    }

    /// [`Self::respell`], with the words of `kept` (lower case) left as
    /// typed: words of the documents, not near misses ("stuffy").
    pub fn respell_keeping(&self, text: &str, kept: &[String]) -> Option<Respelled> {
        // Shorthand of several words first ("carbon dioxide" → "co2").
        let mut changes = Vec::new();
        let mut phrased = text.to_owned();
        let mut phrases: Vec<(&String, &String)> = self
            .spelled
            .iter()
            .filter(|(k, _)| k.contains(' '))
            .collect();
        phrases.sort();
        for (short, words) in phrases {
            let lower = phrased.to_lowercase();
            if lower.len() != phrased.len() {
                continue;
            }
            // Not inside an identifier either ("carbon_dioxide_ppm").
            let glued = |c: Option<char>| c == Some('_');
            let found = crate::text::phrase_at(&lower, short).find(|&at| {
                !glued(lower[..at].chars().next_back())
                    && !glued(lower[at + short.len()..].chars().next())
            });
            if let Some(at) = found {
                changes.push((phrased[at..at + short.len()].to_owned(), words.clone()));
                phrased.replace_range(at..at + short.len(), words);
            }
        }
        let text = phrased.as_str();
        let mut out = String::with_capacity(text.len() + 16);
        let mut last = 0;
        let mut prev_words: Vec<String> = Vec::new();
        for (start, end) in words(text) {
            let typed = &text[start..end];
            let lower = typed.to_lowercase();
            let read = if let Some(w) = self.spelled.get(&lower) {
                // "vav box" after "vav" stays "box".
                let lead: Vec<&str> = w.split(' ').collect();
                let said = lead.len() > 1
                    && prev_words.ends_with(
                        &lead[..lead.len() - 1]
                            .iter()
                            .map(|s| (*s).to_owned())
                            .collect::<Vec<_>>(),
                    );
                (!said).then(|| w.clone())
            } else if lower.contains('-') || kept.contains(&lower) {
                None
            } else {
                self.nearest(&lower)
            };
            prev_words.push(lower.clone());
            if let Some(read) = read {
                out.push_str(&text[last..start]);
                out.push_str(&read);
                last = end;
                changes.push((typed.to_owned(), read));
            }
        }
        if changes.is_empty() {
            return None;
        }
        out.push_str(&text[last..]);
        Some(Respelled { text: out, changes })
    }
}

/// Whether `short` is written with letters of `words`, in order and from
/// the first: an acronym ("sat" of "supply air temperature") or a
/// contraction ("stpt" of "setpoint", "brgs" of "bearings"), not a word
/// for the same thing ("cfm", cubic feet per minute, is no abbreviation of
/// "airflow").
fn letters_of(short: &str, words: &str) -> bool {
    let mut letters = words.chars().filter(|c| c.is_alphanumeric());
    let mut wanted = short.chars().filter(|c| c.is_alphanumeric());
    let first = wanted.next();
    first.is_some() && first == letters.next() && wanted.all(|c| letters.any(|l| l == c))
}

/// Whether two stemmed forms are other forms of each other: both say
/// something and share no word ("box" / "vav box" qualifies, it does not
/// abbreviate).
fn other_forms(a: &[String], b: &[String]) -> bool {
    !a.is_empty() && !b.is_empty() && !a.iter().any(|w| b.contains(w))
}

/// The words of a form, stemmed as focus terms are ("SAT-SP" is one
/// word).
fn stems(text: &str) -> Vec<String> {
    crate::text::words(text)
        .iter()
        .map(|w| crate::text::stem(w))
        .collect()
}

/// A word's stem without a final "e", so that a word and its plural meet
/// ("temperature" and "temperatures" are both "temperatur").
fn stem_root(word: &str) -> String {
    let s = crate::text::stem(word);
    s.strip_suffix('e').map(str::to_owned).unwrap_or(s)
}

/// Whether `words` holds `word` or, for a plural, its singular.
fn holds(words: &HashSet<String>, word: &str) -> bool {
    words.contains(word) || word.strip_suffix('s').is_some_and(|w| words.contains(w))
}

/// Byte spans of the whole words of `text`: letters with inner hyphens,
/// not touching a digit, an underscore or an apostrophe'd ending ("'s" is
/// left out of the word).
fn words(text: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].1.is_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (chars[i].1.is_alphabetic()
                || (chars[i].1 == '-' && chars.get(i + 1).is_some_and(|c| c.1.is_alphabetic())))
        {
            i += 1;
        }
        let glued = |c: Option<&(usize, char)>| {
            c.is_some_and(|&(_, c)| c.is_alphanumeric() || c == '_' || c == '-')
        };
        let before = start.checked_sub(1).and_then(|j| chars.get(j));
        if !glued(before) && !glued(chars.get(i)) {
            let end = chars.get(i).map_or(text.len(), |c| c.0);
            out.push((chars[start].0, end));
        }
        while i < chars.len() && (chars[i].1.is_alphanumeric() || chars[i].1 == '_') {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelling() -> Spelling {
        let spelled = [
            ("htg", "heating"),
            ("vlv", "valve"),
            ("rm", "room"),
            ("box", "vav box"),
            ("carbon dioxide", "co2"),
            ("terminal boxes", "terminal units"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .collect();
        let words = [
            "downstream",
            "equipment",
            "handler",
            "air",
            "chiller",
            "chillers",
            "feeds",
            "heating",
            "valve",
            "room",
            "plant",
            "planet",
            "count",
            "mounted",
            "raise",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect();
        Spelling::new(spelled, words, &Cues::default())
    }

    /// A question's focus terms are stems; a word of the models is a
    /// domain term in any of its forms ("heating" and "heat", "valve" and
    /// "valves"), a word they do not hold is not.
    #[test]
    fn focus_terms_are_domain_words_in_any_form() {
        let s = spelling();
        for term in ["heat", "valve", "valv", "chiller", "downstream"] {
            assert!(s.is_domain_term(term), "{term}");
        }
        for term in ["g36", "guidelin", "servic", "kick"] {
            assert!(!s.is_domain_term(term), "{term}");
        }
    }

    #[test]
    fn shorthand_is_spelled_out_and_near_misses_corrected() {
        let s = spelling();
        let r = s
            .respell("zones downstram of ahu 1, htg vlv in rm 306?")
            .unwrap();
        assert_eq!(
            r.text,
            "zones downstream of ahu 1, heating valve in room 306?"
        );
        assert_eq!(r.changes.len(), 4);
        assert_eq!(
            s.respell("which equipmnt feeds chiller 1").unwrap().text,
            "which equipment feeds chiller 1"
        );
        // A plural near miss keeps its plural.
        assert_eq!(
            s.respell("list the air handelrs").unwrap().text,
            "list the air handlers"
        );
        // One word at a time: shorthand is spelled out, any other word
        // stays as typed.
        assert_eq!(s.spelled_word("HTG"), "heating");
        assert_eq!(s.spelled_word("rm"), "room");
        assert_eq!(s.spelled_word("valve"), "valve");
    }

    /// A word kept (one the documents hold) stays as typed; the rest of
    /// the respelling stands.
    #[test]
    fn a_kept_word_is_left_as_typed_and_the_rest_respelled() {
        let s = spelling();
        let q = "zones downstram of ahu 1, htg vlv in rm 306?";
        let r = s.respell_keeping(q, &["downstram".to_owned()]).unwrap();
        assert_eq!(
            r.text,
            "zones downstram of ahu 1, heating valve in room 306?"
        );
        assert_eq!(r.changes.len(), 3);
        assert_eq!(
            s.respell_keeping("which equipmnt", &["equipmnt".to_owned()]),
            None
        );
    }

    #[test]
    fn names_short_words_and_ties_are_left_alone() {
        let s = spelling();
        // Joined to digits, underscores or hyphens: a name.
        assert_eq!(s.respell("hw_valve on vlv-2 and htg2"), None);
        // Short unknown words are not guessed.
        assert_eq!(s.respell("what is teh rtu"), None);
        // Known words, and a word as near to two known words, stay.
        assert_eq!(s.respell("which chillers feed the plant"), None);
        assert_eq!(s.respell("the planxt"), None);
        // A known word with a regular ending is no near miss of another
        // known word: "counted" is not "mounted".
        assert_eq!(s.respell("ahu-2 points counted by type"), None);
        assert_eq!(s.respell("how far is it raised"), None);
        // "vav box" stays "vav box".
        assert_eq!(s.respell("which vav box is on ahu-1"), None);
        assert_eq!(
            s.respell("which box is on ahu-1").unwrap().text,
            "which vav box is on ahu-1"
        );
    }

    #[test]
    fn shorthand_of_several_words_is_spelled_out_first() {
        let s = spelling();
        let r = s
            .respell("is there Carbon Dioxide sensing on vav 3-02")
            .unwrap();
        assert_eq!(r.text, "is there co2 sensing on vav 3-02");
        assert_eq!(
            r.changes[0],
            ("Carbon Dioxide".to_owned(), "co2".to_owned())
        );
        // The phrase before its words: "terminal boxes" is not "terminal vav boxes".
        assert_eq!(
            s.respell("how many terminal boxes on ahu 2").unwrap().text,
            "how many terminal units on ahu 2"
        );
        // Only on word boundaries.
        assert!(
            s.respell("carbon dioxides")
                .is_none_or(|r| !r.text.contains("co2"))
        );
    }

    #[test]
    fn focus_terms_meet_their_other_form_both_ways() {
        let mut s = spelling();
        s.set_forms([
            ("SAT".into(), "supply air temperature".into()),
            ("box".into(), "vav box".into()),
        ]);
        assert_eq!(s.forms.len(), 1, "a qualification is not another form");
        let focus = |ws: &[&str]| ws.iter().map(|w| crate::text::stem(w)).collect::<Vec<_>>();
        assert_eq!(
            s.equivalents(&focus(&["sat", "warm-up"])),
            [Equivalent {
                terms: vec!["sat".into()],
                form: stems("supply air temperature"),
            }]
        );
        // "temp" asks the form's "temperature".
        assert_eq!(
            s.equivalents(&focus(&["supply", "air", "temp", "reset"])),
            [Equivalent {
                terms: focus(&["supply", "air", "temp"]),
                form: vec!["sat".into()],
            }]
        );
        assert!(s.equivalents(&focus(&["supply", "fan"])).is_empty());
    }

    /// Abbreviations are spelled out for the embedding where they stand
    /// alone and abbreviate; the rest stays as typed.
    #[test]
    fn a_question_is_embedded_with_its_abbreviations_spelled_out() {
        let mut s = spelling();
        s.set_abbreviations(
            [
                ("ZNT", "zone temperature"),
                ("btn", "button"),
                ("SAT", "supply air temperature"),
                ("stpt", "setpoint"),
                ("sat-sp", "supply air temperature setpoint"),
                ("box", "vav box"),
                ("monitoring", "sensor"),
                ("cfm", "airflow"),
                ("g36", "guideline 36"),
                ("DA", "discharge air"),
                ("DA", "damper"),
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned())),
        );
        assert_eq!(
            s.spelled_out("ZNT override btn duration (yts-200)?"),
            "zone temperature override button duration (yts-200)?"
        );
        // Inside a name or a compound: as written; "min/max" are words.
        assert_eq!(
            s.spelled_out("sat-sp on AHU-1, SAT stpt min/stpt"),
            "sat-sp on AHU-1, supply air temperature setpoint min/setpoint"
        );
        // A qualifier, a normalisation, a designation with a digit and an
        // abbreviation of two meanings stay as typed.
        assert_eq!(
            s.spelled_out("box monitoring cfm per g36: da?"),
            "box monitoring cfm per g36: da?"
        );
        // A word is whole: "btné" is no "btn"; a unit beside it is no glue.
        assert_eq!(s.spelled_out("btné 70 °F btn"), "btné 70 °F button");
    }

    /// An everyday word and the sequence's word for it are forms of each
    /// other; two everyday words for one sequence word are not.
    #[test]
    fn a_paraphrase_is_a_form_but_not_of_its_siblings() {
        let mut s = spelling();
        s.add_paraphrases([
            ("shortest".into(), "minimum".into()),
            ("lowest".into(), "minimum".into()),
        ]);
        let focus = |ws: &[&str]| ws.iter().map(|w| crate::text::stem(w)).collect::<Vec<_>>();
        assert_eq!(
            s.equivalents(&focus(&["shortest", "run", "time"])),
            [Equivalent {
                terms: vec!["shortest".into()],
                form: vec!["minimum".into()],
            }]
        );
        assert_eq!(
            s.equivalents(&focus(&["minimum", "temperature"])),
            [
                Equivalent {
                    terms: vec!["minimum".into()],
                    form: vec!["shortest".into()],
                },
                Equivalent {
                    terms: vec!["minimum".into()],
                    form: vec!["lowest".into()],
                },
            ]
        );
        assert!(
            s.equivalents(&focus(&["lowest", "temperature"]))
                .iter()
                .all(|e| e.form != ["shortest"])
        );
    }

    #[test]
    fn two_abbreviations_of_the_same_words_are_forms_of_each_other() {
        let mut s = spelling();
        s.set_forms([
            ("AHU".into(), "air handling unit".into()),
            ("air handler".into(), "air handling unit".into()),
        ]);
        let focus: Vec<String> = ["air", "handlers", "return"]
            .iter()
            .map(|w| crate::text::stem(w))
            .collect();
        let eq = s.equivalents(&focus);
        assert!(
            eq.contains(&Equivalent {
                terms: stems("air handler"),
                form: vec!["ahu".into()],
            }),
            "{eq:?}"
        );
    }
}
