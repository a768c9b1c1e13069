//! The question, read once: its words, its grounding and what it asks.
//! Every later stage reads this value instead of the raw text.

use super::intent::{self, Reading};
use super::synthesize::{Equivalent, Focus};
use super::view::GraphView;
use crate::ground::{EntityKind, Grounder, Grounding};
use crate::text::{self, Cue, Cues, squash};
use crate::vocab;

/// A question and what it asks.
#[derive(Debug, Clone)]
pub struct Question {
    /// The query, trimmed.
    pub text: String,
    /// The query as it is embedded: its abbreviations replaced by the
    /// words they stand for ([`super::respell::Spelling::spelled_out`]);
    /// set by the pipeline, the query until then.
    pub embedded: String,
    /// The query in lower case.
    pub lower: String,
    /// Its words ([`text::words`]).
    pub words: Vec<String>,
    /// Its grounding; names shaped like model numbers that the grounder
    /// did not resolve are added to `unresolved`.
    pub grounding: Grounding,
    /// What it asks of the graph.
    pub reading: Reading,
    /// The instances and products it names, in text order.
    pub named: Vec<String>,
    /// Equipment classes it names beyond the types of the instances it
    /// names ("which *chillers* feed VAV-3-07").
    pub classes: Vec<String>,
    /// Labels of the entities it names.
    pub labels: Vec<String>,
    /// What document evidence is about: the instances and products named,
    /// and the equipment of any point named ("vav-2-14 airflow" is about
    /// VAV-2-14).
    pub about: Vec<String>,
    /// Other forms of its focus terms (abbreviations, spelled-out words)
    /// a passage may use; set by the pipeline from the spelling
    /// ([`super::respell::Spelling::equivalents`]), none until then.
    pub equivalents: Vec<Equivalent>,
    /// The units by which a passage states a quantity, when the question
    /// asks for one (`dq:cue_quantity_unit`); empty otherwise.
    pub units: Vec<String>,
    /// The units it names as the ones it asks a value in ("what hp is
    /// the CT-1 fan motor", [`Cues::units_asked`]) and every other unit of
    /// their kinds: a passage that states no quantity in one of them does
    /// not answer it. Empty when it names none.
    pub units_asked: Vec<String>,
    /// The kinds (Brick classes) it names by name, and the noun it asks for
    /// ([`asked_for`]: "what *chemicals* get added"): what it asks about,
    /// which a passage that answers must name too.
    pub kinds: Vec<NamedKind>,
    /// The equipment kinds it names by their Haystack tag where the tag
    /// abbreviates the Brick class ("fcu", "ahu", "rtu"), not in
    /// [`Self::kinds`]: what it asks about when no retrieved passage is
    /// linked to the class (a fan coil unit asked of the G36 pages, which
    /// cover none).
    pub tag_kinds: Vec<NamedKind>,
    /// Labels of the equipment that has a point it names ("VAV-2-14" for
    /// "vav-2-14 airflow"): a passage naming the box is about the point.
    pub owners: Vec<String>,
    /// The Brick equipment classes above those it names, below the domain
    /// classes (`HVAC_Equipment` and its siblings): a sequence for
    /// terminal units applies to a VAV box with reheat. Local names.
    pub broader: Vec<String>,
    /// Where the question says a named node's kind right before its name
    /// ("part of *air handler* ahu1"), which the grounder reads with the
    /// name: the words restate what the node is and ask nothing else.
    pub restated: Vec<crate::ground::Span>,
}

/// A kind of point or equipment a question names ("humidity setpoint").
#[derive(Debug, Clone)]
pub struct NamedKind {
    /// The question's words for it, as asked.
    pub said: String,
    /// Those words, stemmed.
    pub words: Vec<String>,
    /// The words of the class's label, stemmed; for the noun a question
    /// asks for that is a word of a kind of equipment, that kind's
    /// Haystack tag ("ahu" for "which air handler").
    pub label: Vec<String>,
    /// Other forms of its words (abbreviations, spelled-out words); set by
    /// the pipeline from the spelling, none until then.
    pub equivalents: Vec<Equivalent>,
    /// For an operating mode, its letters ("cooldown"): a text names it
    /// only by them, as one word or one compound ("Cool-down", "cool
    /// down"), not by a word of the same root ("cooling").
    pub form: Option<String>,
    /// The Brick class it reads as, when the grounder found one.
    pub class: Option<String>,
    /// The model numbers of the products of the class, squashed
    /// ([`text::squash`]: "yts200"); set by the pipeline from the
    /// grounder's products, none until then. A text names the kind by one
    /// of them as by its words ("YTS-200 zone sensors." names the zone
    /// temperature sensor).
    pub models: Vec<String>,
    /// Whether a text names it only by its words side by side, each the
    /// same word (a plural counted), not by a longer word that begins
    /// with one: "server room", not "serves … room".
    pub phrase: bool,
}

impl NamedKind {
    /// Whether `text` names the kind: all its words as asked (or in another
    /// form), all the words of its label, or one of its products' model
    /// numbers.
    pub fn named_in(&self, text: &str) -> bool {
        self.named_by_words_in(text) || self.named_by_model_in(text)
    }

    /// Whether `text` names the kind by one of its products' model numbers.
    pub fn named_by_model_in(&self, text: &str) -> bool {
        !self.models.is_empty() && {
            let said = text::squash(text);
            self.models.iter().any(|m| said.contains(m.as_str()))
        }
    }

    /// [`Self::named_in`] by words alone, not by a model number: a heading
    /// that lists a section's products ("6. Sensors (YTS-200, YDT-210,
    /// YDP-400, YCO-300)") names none of their kinds over another.
    pub fn named_by_words_in(&self, text: &str) -> bool {
        if let Some(form) = &self.form {
            let runs: Vec<String> = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|r| !r.is_empty())
                .map(str::to_lowercase)
                .collect();
            return runs.iter().enumerate().any(|(i, r)| {
                r == form
                    || form
                        .strip_prefix(r.as_str())
                        .is_some_and(|rest| runs.get(i + 1).is_some_and(|n| n == rest))
            });
        }
        if self.phrase {
            return says_phrase(text, &self.words);
        }
        let all = |terms: &[String], equivalents: &[Equivalent]| {
            !terms.is_empty()
                && super::synthesize::matched_terms(
                    Focus {
                        terms,
                        equivalents,
                        units: &[],
                        number: false,
                        kinds: &[],
                    },
                    text,
                )
                .len()
                    == terms.len()
        };
        all(&self.words, &self.equivalents) || says_phrase(text, &self.label)
    }
}

/// Whether `text` says `phrase` (stemmed words) with its words side by
/// side, each the same word (a plural counted; a hyphenated word read as
/// its parts): "water-cooled chillers" says "water cool chiller", a
/// passage with "hot-water", "cooling coil" and "chiller" here and there
/// does not.
fn says_phrase(text: &str, phrase: &[String]) -> bool {
    let ws: Vec<String> = text::words(text)
        .iter()
        .flat_map(|w| w.split('-').map(str::to_owned).collect::<Vec<_>>())
        .filter(|w| !w.is_empty())
        .collect();
    super::synthesize::says(&ws, phrase, super::synthesize::same_word)
}

impl Question {
    /// Reads `text` with the grounder, the cues and the graph.
    pub fn read(text: &str, grounder: &Grounder, cues: &Cues, view: GraphView<'_>) -> Self {
        let mut grounding = grounder.ground(text);
        for name in unknown_models(text, &grounding) {
            grounding.unresolved.push(name);
        }
        // A name the question writes as one word in lower case typed for a
        // function word ("b4" for before, dq:cue_stop_word) names nothing:
        // "the warm-up time b4 occupancy" asks about no B-4. Written as a
        // name ("B4", "b-4"), it is one.
        grounding.unresolved.retain(|name| {
            !text.split(|c: char| !c.is_alphanumeric()).any(|w| {
                squash(w) == squash(name)
                    && !w.chars().any(char::is_uppercase)
                    && cues.is(text::Cue::StopWord, w)
            })
        });
        if let Some(class) = class_after_kind_of(text, &grounding, cues, view) {
            tracing::info!(class = %class.iri, "the class a question relates a kind to, read by its label");
            grounding.entities.push(class);
        }
        let restated = kinds_before_names(text, &grounding, grounder, view);
        if !restated.is_empty() {
            tracing::debug!(
                spans = restated.len(),
                "a named node's kind said before its name is read with the name"
            );
        }
        let mut q = Self::grounded(text, grounding, cues, view);
        q.restated = restated;
        q
    }

    /// Reads `text` whose grounding is known.
    pub fn grounded(text: &str, grounding: Grounding, cues: &Cues, view: GraphView<'_>) -> Self {
        let lower = text.to_lowercase();
        let words = text::words(text);
        let classes = view.classes_beyond(&grounding);
        let reading = intent::read(
            cues,
            &lower,
            &words,
            &grounding,
            |i| view.is_location(i),
            !classes.is_empty(),
        );
        let named: Vec<String> = grounding
            .entities
            .iter()
            .filter(|e| matches!(e.kind, EntityKind::Instance | EntityKind::Product))
            .map(|e| e.iri.clone())
            .collect();
        let mut about = named.clone();
        let mut owners = Vec::new();
        for owner in named.iter().filter_map(|i| view.topo.owner_of_point(i)) {
            if !about.contains(&owner) {
                let label = view.topo.label(&owner).unwrap_or(vocab::local_name(&owner));
                owners.push(label.to_owned());
                about.push(owner);
            }
        }
        let labels = grounding.entities.iter().map(|e| e.label.clone()).collect();
        let stems = |t: &str| text::words(t).iter().map(|w| text::stem(w)).collect();
        let mut kinds: Vec<NamedKind> = Vec::new();
        for e in grounding
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Class)
        {
            if !kinds.iter().any(|k| k.said == e.matched) {
                kinds.push(NamedKind {
                    said: e.matched.clone(),
                    words: stems(&e.matched),
                    label: stems(&e.label),
                    equivalents: Vec::new(),
                    form: None,
                    class: Some(e.iri.clone()),
                    models: Vec::new(),
                    phrase: false,
                });
            }
        }
        // An equipment kind named by its Haystack tag where the tag is
        // its abbreviation ("4-pipe fcu per g36", "ahu", "rtu"); a text
        // names it by the tag or by the class's words.
        // The question's words for a kind of equipment the grounder read.
        let said_of = |t: &crate::ground::EquipmentType| {
            text::words(text.get(t.span.start..t.span.end).unwrap_or_default())
        };
        let mut tag_kinds: Vec<NamedKind> = Vec::new();
        for t in &grounding.equipment_types {
            let (Some(tag), Some(class)) = (&t.haystack_kind, &t.brick_class) else {
                continue;
            };
            let label = class.replace('_', " ");
            let label_words = text::words(&label);
            let said = said_of(t).join(" ");
            let iri = vocab::brick(class);
            if said != *tag
                || label_words.iter().any(|w| w.eq_ignore_ascii_case(tag))
                || kinds
                    .iter()
                    .any(|k| k.class.as_deref() == Some(iri.as_str()))
                || tag_kinds.iter().any(|k| k.said == said)
            {
                continue;
            }
            tag_kinds.push(NamedKind {
                words: stems(&said),
                label: stems(&label),
                said,
                equivalents: Vec::new(),
                form: None,
                class: Some(iri),
                models: Vec::new(),
                phrase: false,
            });
        }
        if let Some(mut asked) = asked_for(cues, &words, &reading.focus, &kinds) {
            // A word of a kind of equipment the grounder read by its name
            // ("which air *handler* is that box fed from") is named by the
            // kind's Haystack tag too: "(served by AHU-1)" answers it.
            if let Some(tag) = grounding.equipment_types.iter().find_map(|t| {
                let tag = t.haystack_kind.as_deref()?;
                said_of(t)
                    .iter()
                    .any(|w| asked.words.contains(&text::stem(w)))
                    .then(|| stems(&text::camel_spaced(tag)))
            }) {
                asked.label = tag;
            }
            kinds.push(asked);
        }
        for mode in modes_named(cues, &lower) {
            if !kinds.iter().any(|k| k.words == mode.words) {
                kinds.push(mode);
            }
        }
        for kind in rooms_named(view, &words)
            .into_iter()
            .chain(qualifiers_named(&words))
        {
            if !kinds.iter().any(|k| k.words == kind.words) {
                kinds.push(kind);
            }
        }
        let broader = broader_classes(view, &grounding.payload_fields().brick_equip);
        // A question that names the unit it asks a value in ("what hp is
        // the CT-1 fan motor", "flame signal ua", "in seconds") asks for a
        // number in that unit or another of its kind: "The CT-1 fan …
        // between 20 % and 100 % speed" gives no horsepower. A unit word
        // inside a name the grounder read ("Unitary-HP") is the name's.
        let in_name = |at: usize| {
            grounding
                .entities
                .iter()
                .map(|e| e.span)
                .chain(grounding.kind_mentions().map(|(span, _)| span))
                .any(|span| span.start <= at && at < span.end)
        };
        let units_asked = cues.units_asked(&lower, in_name);
        // A question for a length of time ("how long does a chiller have
        // to run") is answered by a time ("a minimum run time of 30
        // minutes"), not by any quantity ("62 % (450 gpm)").
        let units = if cues.says(text::Cue::Duration, &lower) {
            cues.list(text::Cue::DurationUnit).to_vec()
        } else if cues.says(text::Cue::Frequency, &lower) {
            // How often: "every 6 months", "weekly", "each Monday".
            let mut units = cues.list(text::Cue::DurationUnit).to_vec();
            units.extend(cues.list(text::Cue::FrequencyWord).iter().cloned());
            units
        } else if reading.quantity {
            cues.list(text::Cue::QuantityUnit).to_vec()
        } else {
            Vec::new()
        };
        Self {
            text: text.to_owned(),
            embedded: text.to_owned(),
            lower,
            words,
            grounding,
            reading,
            named,
            classes,
            labels,
            about,
            equivalents: Vec::new(),
            units,
            units_asked,
            kinds,
            tag_kinds,
            owners,
            broader,
            restated: Vec::new(),
        }
    }

    /// The only node of a kind the question names (its Brick classes,
    /// subclasses counted), each with the equipment that has it, leaving
    /// out what [`Self::about`] holds: in a building with one hot-water
    /// supply setpoint, "hwst setpoint" is HW-SYS's. A document answer
    /// cites it for a passage whose document mentions it, as a named node;
    /// retrieval does not read it, so only a document answer computes it.
    pub fn implied(&self, view: GraphView<'_>) -> Vec<String> {
        let fields = self.grounding.payload_fields();
        let classes = self
            .grounding
            .point_types
            .iter()
            .filter_map(|p| p.brick_class.as_deref())
            .chain(fields.brick_equip.iter().map(String::as_str));
        let mut out: Vec<String> = Vec::new();
        for class in classes {
            let class = vocab::brick(class);
            let mut of_kind = view.instances_of(&class);
            let (Some(only), None) = (of_kind.next(), of_kind.next()) else {
                continue;
            };
            let owner = view.topo.owner_of_point(only);
            for node in std::iter::once(only.to_owned()).chain(owner) {
                if !self.about.contains(&node) && !out.contains(&node) {
                    out.push(node);
                }
            }
        }
        out
    }

    /// Its focus terms with their other forms, as passages are measured.
    pub fn focus(&self) -> Focus<'_> {
        Focus {
            terms: &self.reading.focus,
            equivalents: &self.equivalents,
            units: &self.units,
            number: self.reading.number,
            kinds: &self.kinds,
        }
    }

    /// The equipment a feeds question is about: the first instance or
    /// product named, a named point standing for the equipment that has it.
    pub fn subject(&self, view: GraphView<'_>) -> Option<String> {
        let first = self.named.first()?;
        Some(
            view.topo
                .owner_of_point(first)
                .unwrap_or_else(|| first.clone()),
        )
    }
}

/// The noun a question asks for, between its question word and an
/// auxiliary ("what *chemicals* get added", "what *airflow* do the boxes
/// get", "which *input* should …"): a passage that does not name it (in
/// any of its forms) answers another question, as one that does not name
/// a kind the question names. None when the question has no such noun
/// phrase (one to three words), or when the noun names only the kind of
/// answer ("what part got swapped"), a value ("what temperature does"),
/// a word with no content or a name the grounder matched (neither is in
/// the reading's `focus`), or a kind the question names already.
fn asked_for(
    cues: &Cues,
    words: &[String],
    focus: &[String],
    kinds: &[NamedKind],
) -> Option<NamedKind> {
    use text::Cue;
    let at = words.iter().position(|w| cues.is(Cue::Which, w))?;
    let aux = (at + 1..words.len().min(at + 5)).find(|&i| cues.is(Cue::Auxiliary, &words[i]))?;
    let head = words.get(aux.checked_sub(1).filter(|&h| h > at)?)?;
    let stemmed = text::stem(head);
    let value = [
        Cue::Which,
        Cue::Quantity,
        Cue::Number,
        Cue::QuantityUnit,
        Cue::AnswerKind,
    ];
    if head.chars().any(|c| !c.is_alphabetic())
        || value.iter().any(|&c| cues.is(c, head))
        || !focus.contains(&stemmed)
        || kinds.iter().any(|k| k.words.contains(&stemmed))
    {
        return None;
    }
    Some(NamedKind {
        said: head.clone(),
        words: vec![stemmed],
        label: Vec::new(),
        equivalents: Vec::new(),
        form: None,
        class: None,
        models: Vec::new(),
        phrase: false,
    })
}

/// The operating modes `lower` (a question in lower case) names
/// (`dq:cue_mode`): each a kind a passage that answers must name, once
/// however it is spelled ("warm up", "warm-up" and "warmup" are one mode,
/// which a passage's "Warm-up" names and its "warm" does not).
fn modes_named(cues: &Cues, lower: &str) -> Vec<NamedKind> {
    let mut out: Vec<NamedKind> = Vec::new();
    for said in cues.list(text::Cue::Mode) {
        if text::phrase_at(lower, said).next().is_none() {
            continue;
        }
        let form = squash(said);
        if !out.iter().any(|k| k.form.as_ref() == Some(&form)) {
            out.push(NamedKind {
                said: said.clone(),
                words: vec![text::stem(&form)],
                label: Vec::new(),
                equivalents: Vec::new(),
                form: Some(form),
                class: None,
                models: Vec::new(),
                phrase: false,
            });
        }
    }
    out
}

/// The kinds of room `words` (a question's) name by a Brick room class's
/// label of two words or more ("server room", "copy room", "mechanical
/// room"), the last one plural or not: a passage about the supply air
/// temperature of the air handlers does not say what a server room is
/// kept at. Each is a kind a passage that answers must name, as a
/// Brick class the grounder types is.
fn rooms_named(view: GraphView<'_>, words: &[String]) -> Vec<NamedKind> {
    let stems: Vec<String> = words.iter().map(|w| text::stem(w)).collect();
    let mut out: Vec<NamedKind> = Vec::new();
    for class in view
        .onto
        .descendants(&vocab::brick("Room"), MAX_ROOM_CLASSES)
    {
        let Some(label) = view.onto.class(&class).and_then(|c| c.label.as_deref()) else {
            continue;
        };
        let label: Vec<String> = text::words(label).iter().map(|w| text::stem(w)).collect();
        if label.len() < 2 {
            continue;
        }
        let Some(at) = stems
            .windows(label.len())
            .position(|w| w == label.as_slice())
        else {
            continue;
        };
        out.push(NamedKind {
            said: words[at..at + label.len()].join(" "),
            words: label.clone(),
            label,
            equivalents: Vec::new(),
            form: None,
            class: Some(class),
            models: Vec::new(),
            phrase: true,
        });
    }
    out
}

/// The most room classes [`rooms_named`] reads (Brick 1.4 has about 70).
const MAX_ROOM_CLASSES: usize = 400;

/// First parts of a hyphenated word that are prefixes, not nouns:
/// "re-zeroed", "pre-heated" are verbs, not kinds.
const PREFIXES: &[&str] = &["re", "pre", "non", "co", "un", "sub", "mis", "well"];

/// The compound qualifiers `words` (a question's) name: a noun and a past
/// participle joined by a hyphen ("fan-powered", "air-cooled",
/// "gas-fired"), which says which kind of box, chiller or boiler is
/// meant. A passage that does not say it is about another kind: the
/// supply fans of an air handler do not answer for the fan of a
/// fan-powered box.
fn qualifiers_named(words: &[String]) -> Vec<NamedKind> {
    let mut out: Vec<NamedKind> = Vec::new();
    for w in words {
        let Some((first, second)) = w.split_once('-') else {
            continue;
        };
        let alphabetic = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic());
        if !alphabetic(first)
            || !alphabetic(second)
            || first.len() < 2
            || PREFIXES.contains(&first)
            || second.len() < 4
            || !second.ends_with("ed")
        {
            continue;
        }
        // Said as its two words side by side: "water" of "hot-water" is
        // not "water-cooled".
        let parts = vec![text::stem(first), text::stem(second)];
        if !out.iter().any(|k| k.words == parts) {
            out.push(NamedKind {
                said: w.clone(),
                words: parts,
                label: Vec::new(),
                equivalents: Vec::new(),
                form: None,
                class: None,
                models: Vec::new(),
                phrase: true,
            });
        }
    }
    out
}

/// Words shaped like a product model number ("YRT-5000") that the grounder
/// did not resolve: equipment the sources do not know.
fn unknown_models(query: &str, g: &Grounding) -> Vec<String> {
    let known: Vec<String> = g.entities.iter().map(|e| squash(&e.matched)).collect();
    query
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| {
            let (letters, rest) = w.split_at(
                w.find(|c: char| !c.is_ascii_alphabetic())
                    .unwrap_or(w.len()),
            );
            let digits = rest.strip_prefix('-').unwrap_or(rest);
            (2..=5).contains(&letters.len())
                && (3..=5).contains(&digits.len())
                && digits.chars().all(|c| c.is_ascii_digit())
        })
        .filter(|w| !known.iter().any(|k| k.contains(&squash(w))))
        .filter(|w| !g.unresolved.iter().any(|u| squash(u) == squash(w)))
        .map(|w| w.to_uppercase())
        .collect()
}

/// The class a yes/no question about two classes relates the one it names
/// to, read by its Brick label after the phrase that asks how they relate
/// ("is a damper position command a kind of *setpoint*", "… a type of
/// *sensor* in Brick"), or, for two names asked to be one class, between
/// "and" and that phrase ("are a discharge fan and *a supply fan* the same
/// class"). The grounder reads a root class's one word ("setpoint",
/// "sensor", "command") as a Haystack tag, which names no class, and a
/// second name of a class it read once as nothing. `None` unless the
/// question names exactly one class besides.
fn class_after_kind_of(
    text: &str,
    g: &Grounding,
    cues: &Cues,
    view: GraphView<'_>,
) -> Option<crate::ground::Entity> {
    let lower = text.to_lowercase();
    if lower.len() != text.len() || super::intent::class_mentions(g).len() != 1 {
        return None;
    }
    // Where each phrase that relates two classes is said (start, end).
    let said_at = |cue: Cue| -> Vec<(usize, usize)> {
        cues.list(cue)
            .iter()
            .flat_map(|p| text::phrase_at(&lower, p).map(move |at| (at, at + p.len())))
            .collect()
    };
    let same = said_at(Cue::SameClass);
    let mut ends: Vec<usize> = said_at(Cue::KindOf)
        .into_iter()
        .chain(same.iter().copied())
        .map(|(_, e)| e)
        .collect();
    ends.sort_unstable();
    ends.dedup();
    // The words of `lower[from..to]` with their offsets.
    let words_in = |from: usize, to: usize| -> Vec<(usize, &str)> {
        let mut at = from;
        let mut out = Vec::new();
        for w in lower[from..to].split(' ') {
            if !w.is_empty() {
                out.push((at, w));
            }
            at += w.len() + 1;
        }
        out
    };
    // The words after a phrase that ends at `end`, up to a mark or a word
    // of scope ("in Brick"), without the function words before them ("the
    // same class *as an* isolation switch").
    let after = |end: usize| -> Vec<(usize, &str)> {
        let rest = &lower[end..];
        let stop = end
            + rest
                .find(['?', ',', ';', '.', '!', '(', ')'])
                .unwrap_or(rest.len());
        let mut out: Vec<(usize, &str)> = Vec::new();
        for (at, w) in words_in(end, stop) {
            if out.is_empty() && cues.is(Cue::FunctionWord, w) {
                continue;
            }
            if cues.is(Cue::ClassScope, w) || (!out.is_empty() && ["in", "per", "by"].contains(&w))
            {
                break;
            }
            out.push((at, w));
        }
        out
    };
    // The class a run of words names by its label, whole or (`prefix`) by
    // its first words.
    let class_of = |run: &[(usize, &str)], prefix: bool| {
        let shortest = if prefix { 1 } else { run.len().max(1) };
        (shortest..=run.len().min(5)).rev().find_map(|n| {
            let phrase = run[..n]
                .iter()
                .map(|(_, w)| *w)
                .collect::<Vec<_>>()
                .join(" ");
            let singular = phrase.strip_suffix('s').unwrap_or(&phrase).to_owned();
            let forms = [phrase.clone(), singular];
            let iri = view
                .onto
                .labelled(&forms)
                .find(|iri| view.onto.class(iri).is_some_and(|info| !info.deprecated))?;
            let start = run[0].0;
            let stop = run[n - 1].0 + run[n - 1].1.len();
            // A mention the grounder read already is not a second one.
            if g.kind_mentions()
                .any(|(span, class)| class.is_some() && span.start <= start && start < span.end)
            {
                return None;
            }
            Some(crate::ground::Entity {
                iri: iri.to_owned(),
                label: view.onto.class(iri)?.label.clone()?,
                kind: EntityKind::Class,
                class: Some(vocab::local_name(iri).to_owned()),
                confidence: 0.85,
                matched: text[start..stop].to_owned(),
                span: crate::ground::Span { start, end: stop },
            })
        })
    };
    ends.iter()
        .find_map(|e| class_of(&after(*e), true))
        .or_else(|| {
            // "A and B the same class": B, whole, between "and" and the phrase.
            let (cue_at, _) = same.iter().max_by_key(|(_, e)| *e).copied()?;
            let and = lower[..cue_at].rfind(" and ")? + " and ".len();
            let article = |w: &(usize, &str)| ["a", "an", "the"].contains(&w.1);
            let mut between = words_in(and, cue_at);
            while between.first().is_some_and(article) {
                between.remove(0);
            }
            while between.last().is_some_and(article) {
                between.pop();
            }
            class_of(&between, false)
        })
}

/// Where the words right before a named node's name (up to three) are,
/// read alone by the grounder, one kind of equipment or point that the
/// node is ("the fans of *air handler* ahu1", "*chiller* CH-2"): the
/// grounder reads the kind once, at the name, and leaves the words.
fn kinds_before_names(
    text: &str,
    g: &Grounding,
    grounder: &Grounder,
    view: GraphView<'_>,
) -> Vec<crate::ground::Span> {
    let mut out = Vec::new();
    for e in g.entities.iter().filter(|e| e.kind == EntityKind::Instance) {
        let Some(class) = e.class.as_deref().map(vocab::class_iri) else {
            continue;
        };
        let head = text.get(..e.span.start).unwrap_or_default();
        // The words before the name, nearest last, with where each starts.
        let mut words: Vec<(usize, &str)> = Vec::new();
        let mut rest = head.trim_end();
        while words.len() < 3 {
            let Some(word) = rest.split_whitespace().next_back() else {
                break;
            };
            if !word.chars().all(char::is_alphabetic) {
                break;
            }
            let at = rest.len() - word.len();
            words.push((at, word));
            rest = rest[..at].trim_end();
        }
        words.reverse();
        let found = (0..words.len()).find_map(|i| {
            let start = words[i].0;
            let said = &head[start..head.trim_end().len()];
            let alone = grounder.ground(said);
            let kinds: Vec<String> = alone.kind_mentions().filter_map(|(_, c)| c).collect();
            (alone.entities.iter().all(|x| x.kind == EntityKind::Class)
                && !kinds.is_empty()
                && kinds.iter().all(|k| view.onto.is_a(&class, k)))
            .then_some(crate::ground::Span {
                start,
                end: head.trim_end().len(),
            })
        });
        out.extend(found);
    }
    out
}

/// The Brick equipment classes above `classes` (local names), below the
/// domain classes under `brick:Equipment` (`HVAC_Equipment`, …), which
/// name no topic a passage is about; none of `classes` themselves.
fn broader_classes(view: GraphView<'_>, classes: &[String]) -> Vec<String> {
    let root = vocab::brick("Equipment");
    let mut out: Vec<String> = Vec::new();
    for c in classes {
        let Some(path) = view.onto.path_from(&root, &vocab::brick(c)) else {
            continue;
        };
        for iri in path.iter().skip(2) {
            let local = vocab::local_name(iri).to_owned();
            if !classes.contains(&local) && !out.contains(&local) {
                out.push(local);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_numbers_the_grounder_did_not_resolve_are_unknown() {
        let g = Grounding::default();
        assert_eq!(
            unknown_models("what is a YRT-5000 and a ynx520?", &g),
            ["YRT-5000", "YNX520"]
        );
        assert!(unknown_models("vav 2-14 and ahu-2 at 55 deg", &g).is_empty());
    }

    /// `q` read with the cues alone: no grounding, an empty graph.
    fn plain(q: &str, cues: &Cues) -> Question {
        let (topo, onto) = (
            crate::topology::Topology::default(),
            crate::ontology::Ontology::default(),
        );
        Question::grounded(q, Grounding::default(), cues, GraphView::new(&topo, &onto))
    }

    /// "… only" before a noun is the compound it names: "cooling only
    /// box" asks for `cooling-only`, which "cooling" does not hold;
    /// "looking only at" is no compound.
    #[tokio::test]
    async fn a_kind_said_with_only_is_one_term() {
        let cues = crate::text::tests::cues().await;
        let focus = |q: &str| plain(q, &cues).reading.focus;
        assert!(
            focus("cooling only box in cooldown - max airflow sp?")
                .contains(&"cooling-only".to_owned())
        );
        assert!(
            !focus("decides by looking only at the outdoor thermometer")
                .iter()
                .any(|t| t.contains("only"))
        );
    }

    /// A question for a length of time is answered by a time: its units
    /// are the units of time, not every unit ("62 % (450 gpm)" states no
    /// time); any other question for a value keeps every unit.
    #[tokio::test]
    async fn a_question_for_a_length_of_time_is_answered_by_a_time() {
        let cues = crate::text::tests::cues().await;
        let units = |q: &str| plain(q, &cues).units;
        for q in [
            "how long does a chiller have to run before it can stop",
            "for how many minutes is the alarm delayed",
        ] {
            let u = units(q);
            assert!(u.iter().any(|u| u == "minutes"), "{q}: {u:?}");
            assert!(!u.iter().any(|u| u == "%" || u == "gpm"), "{q}: {u:?}");
        }
        let u = units("how far above setpoint before the alarm");
        assert!(u.iter().any(|u| u == "%") && u.iter().any(|u| u == "minutes"));
        assert!(units("which pump serves the coil").is_empty());
        // How often: a frequency, asked for as a number is.
        let often = plain(
            "how often do the duct static transmitters need zeroing",
            &cues,
        );
        assert!(often.reading.number);
        assert!(
            often.units.iter().any(|u| u == "weekly") && often.units.iter().any(|u| u == "months")
        );
        assert!(!often.units.iter().any(|u| u == "%"));
    }

    /// A question that names the unit it asks a value in asks for a number
    /// in a unit of that kind ("hp": horsepower or kilowatts); a unit after
    /// a number or a vague count is a condition, a unit of time is asked
    /// only after "in", and a one-letter unit never is.
    #[tokio::test]
    async fn a_unit_the_question_names_is_asked() {
        let cues = crate::text::tests::cues().await;
        let asked = |q: &str| {
            let q = plain(q, &cues);
            (!q.units_asked.is_empty()).then_some(q.units_asked)
        };
        let hp = asked("what hp is the ct-1 tower fan motor?").unwrap();
        assert!(
            hp.iter().any(|u| u == "kw") && !hp.iter().any(|u| u == "%"),
            "{hp:?}"
        );
        let ua = asked("b-1 flame signal ua at the oct 25 annual svc?").unwrap();
        assert!(ua.iter().any(|u| u == "µa"), "{ua:?}");
        let s = asked("what's the default sample period, in seconds?").unwrap();
        assert!(
            s.iter().any(|u| u == "minutes") && !s.iter().any(|u| u == "%"),
            "{s:?}"
        );
        let both = asked("wat kW or % of peak demand puts the zone grp into each level?").unwrap();
        assert!(both.iter().any(|u| u == "kw") && both.iter().any(|u| u == "%"));
        assert!(!both.iter().any(|u| u == "°f"), "{both:?}");
        for condition in [
            "what does the box do when the SAT is above 55 °F",
            "zone temp was reading a few deg high - what was causing it",
            "how is the damper moved after hours",
            "what is adjusted per deg F of the setpoint change",
            "what does the ahu do at 100 % load",
            "what happens at 2 A on the motor",
        ] {
            assert_eq!(asked(condition), None, "{condition}");
        }
    }

    /// A kind of room named by a Brick room class's label ("server room")
    /// and a compound qualifier ("fan-powered", "water-cooled") are kinds
    /// a passage must name with their words side by side: "serves …
    /// room" is not a server room, "hot-water … cooled" not water-cooled.
    #[tokio::test]
    async fn rooms_and_compound_qualifiers_are_kinds_named_as_phrases() {
        use crate::import::{self, SourceFile};
        let store = crate::store::EmbeddedStore::in_memory().unwrap();
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let file = SourceFile::new(
            root.join("tests/fixtures/answer/brick_subset.ttl"),
            &root,
            crate::store::GraphKind::Ontology,
        );
        import::import_file(&store, None, &file).await.unwrap();
        let onto = crate::ontology::Ontology::load(&store).await.unwrap();
        let topo = crate::topology::Topology::default();
        let cues = crate::text::tests::cues().await;
        let kinds = |q: &str| {
            Question::grounded(q, Grounding::default(), &cues, GraphView::new(&topo, &onto)).kinds
        };
        let kind = |q: &str, said: &str| {
            kinds(q)
                .into_iter()
                .find(|k| k.said == said)
                .unwrap_or_else(|| panic!("{q}: no kind {said}"))
        };
        let room = kind(
            "What temperature are our server rooms kept at?",
            "server rooms",
        );
        assert_eq!(
            room.class.as_deref(),
            Some(vocab::brick("Server_Room").as_str())
        );
        assert!(room.named_in("Server rooms are kept at 75 °F."));
        assert!(room.named_in("The UPS in the server room A-010."));
        assert!(!room.named_in("Every box serves exactly one room."));
        assert!(!room.named_in("The copy room B-103 box."));
        // A room with a one-word label ("Room") is not a kind of room.
        assert!(kinds("what is room 101 kept at").is_empty());

        let powered = kind(
            "g36 fan-powered box: when does its little fan start?",
            "fan-powered",
        );
        assert!(powered.named_in("For parallel fan-powered terminal units: …"));
        assert!(powered.named_in("a fan powered box"));
        assert!(!powered.named_in("shut down supply and return fan(s), powered off"));
        let cooled = kind(
            "for a water-cooled chiller, when are the pumps staged?",
            "water-cooled",
        );
        assert!(cooled.named_in("Water-cooled chillers CH-1 and CH-2"));
        assert!(!cooled.named_in("the hot-water coil; cooled air leaves the coil"));
        // A prefix makes a verb, not a kind; a number is not a qualifier.
        for q in [
            "the sensor was re-zeroed when?",
            "was vav-2-14 re-tested",
            "ahu-3 occ sched mon-fri?",
        ] {
            assert!(kinds(q).iter().all(|k| !k.phrase), "{q}");
        }
    }

    /// A kind's label is named by its words side by side, not here and
    /// there in a passage: "Water Cooled Chiller" is not named by a freeze
    /// sequence's "hot-water", "cooling coil" and "chilled water".
    #[test]
    fn a_label_is_named_as_a_phrase() {
        let label: Vec<String> = ["water", "cool", "chiller"].map(String::from).to_vec();
        assert!(says_phrase(
            "Two water-cooled chillers, CH-1 and CH-2.",
            &label
        ));
        assert!(says_phrase("a Water Cooled Chiller", &label));
        assert!(!says_phrase(
            "open the hot-water valve, cooling coil to 100 %, start the chiller",
            &label
        ));
        assert!(!says_phrase("anything", &[]));
    }

    /// The noun a question asks for that is a word of a kind of equipment
    /// the grounder read by its name is named by the kind's Haystack tag
    /// too: "which air handler is that box fed from" is answered by a log
    /// entry that says "(served by AHU-1)"; a passage that names neither
    /// does not answer it, and a noun the grounder did not read as
    /// equipment keeps its own words only.
    #[tokio::test]
    async fn the_noun_asked_for_is_named_by_the_tag_of_the_equipment_it_names() {
        let onto = crate::ontology::Ontology::default();
        let topo = crate::topology::Topology::default();
        let cues = crate::text::tests::cues().await;
        let q = "which air handler is that box fed from";
        let asked = |grounding: Grounding| {
            let kinds = Question::grounded(q, grounding, &cues, GraphView::new(&topo, &onto)).kinds;
            assert_eq!(kinds.len(), 1, "{kinds:?}");
            kinds.into_iter().next().unwrap()
        };
        let log = "2024-06-11 — VAV-3-02 (served by AHU-1): occupants reported stuffiness.";
        let plain = asked(Grounding::default());
        assert_eq!(plain.said, "handler");
        assert!(!plain.named_in(log));
        let start = q.find("air handler").unwrap();
        let read = asked(Grounding {
            equipment_types: vec![crate::ground::EquipmentType {
                haystack_kind: Some("ahu".into()),
                brick_class: Some("Air_Handling_Unit".into()),
                confidence: 0.85,
                span: crate::ground::Span {
                    start,
                    end: start + "air handler".len(),
                },
            }],
            ..Grounding::default()
        });
        assert_eq!(read.said, "handler");
        assert!(read.named_in(log));
        assert!(read.named_in("Each air handler has a return fan."));
        assert!(!read.named_in("VAV-3-02 serves conference room A-302."));
    }

    #[tokio::test]
    async fn the_noun_a_question_asks_for_is_read_before_its_auxiliary() {
        let cues = crate::text::tests::cues().await;
        let asked = |q: &str| {
            let words = text::words(q);
            let focus = intent::focus(&cues, &words, &Grounding::default());
            asked_for(&cues, &words, &focus, &[]).map(|k| k.said)
        };
        assert_eq!(
            asked("What chemicals get added to the cooling tower water?").as_deref(),
            Some("chemicals")
        );
        assert_eq!(
            asked("wat airflow do the interior boxes get in setback").as_deref(),
            None,
            "no question word"
        );
        assert_eq!(
            asked("which firmware version should the controllers run").as_deref(),
            Some("version")
        );
        // The kind of answer, a value, a verb after the question word, or
        // no auxiliary within three words: nothing a passage must name.
        for q in [
            "what part got swapped on ch-2",
            "what type was installed on ahu-1",
            "what temperature does the tower send back",
            "what time does ahu-3 start on weekdays",
            "what trips the boiler on low water",
            "which input counts the requests",
            "what is the sat setpoint",
        ] {
            assert_eq!(asked(q), None, "{q}");
        }
    }

    /// A mode is read however it is spelled, once, and named only by its
    /// own letters: "Cool-down" names the mode, "cooling" does not.
    #[tokio::test]
    async fn the_modes_a_question_names_are_kinds_a_passage_names_by_their_letters() {
        let cues = crate::text::tests::cues().await;
        let modes = |q: &str| -> Vec<String> {
            modes_named(&cues, &q.to_lowercase())
                .into_iter()
                .map(|k| k.form.unwrap_or_default())
                .collect()
        };
        assert_eq!(
            modes("wat airflow do the interior boxes get in setback overnite"),
            ["setback"]
        );
        for q in [
            "ahu sat stpt during warm up",
            "AHU SAT setpoint during Warm-up?",
            "sat in warmup",
        ] {
            assert_eq!(modes(q), ["warmup"], "{q}");
        }
        assert_eq!(
            modes("cooling-only boxes in cool-down and setup modes").len(),
            2
        );
        // No mode: the words of a mode's root, or none at all.
        for q in [
            "what is the cooling setpoint",
            "how warm does the supply air get",
            "who set up the controller",
        ] {
            assert!(modes(q).is_empty(), "{q}");
        }
        let [cooldown] = modes_named(&cues, "sat setpoint during cooldown")
            .try_into()
            .unwrap();
        assert!(cooldown.named_in("In Cool-down mode SAT-SP is fixed at 55 °F."));
        assert!(cooldown.named_in("during cool down the fans run"));
        assert!(cooldown.named_in("Cooldown | VCooMax_flow"));
        assert!(!cooldown.named_in("the cooling SAT requests of the boxes"));
        assert!(!cooldown.named_in("cool, then down to 55 °F"));
    }

    /// A kind is named by its words, by its class's label, or by the model
    /// number of one of its products, but a heading is read by words
    /// alone: one listing a section's products names none of their kinds.
    #[test]
    fn a_kind_is_named_by_its_products_model_in_a_sentence_not_a_heading() {
        let stems =
            |t: &str| -> Vec<String> { text::words(t).iter().map(|w| text::stem(w)).collect() };
        let kind = NamedKind {
            said: "zone temperature sensor".into(),
            words: stems("zone temperature sensor"),
            label: stems("Temperature Sensor"),
            equivalents: Vec::new(),
            form: None,
            class: Some(vocab::brick("Temperature_Sensor")),
            models: vec![text::squash("YTS-200")],
            phrase: false,
        };
        assert!(kind.named_in("YTS-200 zone sensors."));
        assert!(kind.named_in("Check each yts 200 annually."));
        assert!(kind.named_in("The zone temperature sensor is a wall module."));
        assert!(kind.named_in("Each temperature sensor is checked."));
        assert!(!kind.named_in("YDP-400 static pressure transmitters."));
        assert!(!kind.named_in("replace the sensor if it reads 75 ppm off"));
        let heading = "6. Sensors (YTS-200, YDT-210, YDP-400, YCO-300)";
        assert!(kind.named_in(heading));
        assert!(!kind.named_by_words_in(heading));
    }
}
