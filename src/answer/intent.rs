//! What a question asks of the graph, read from its wording and its
//! grounding: which relations to follow (feeds up or down, parts, points,
//! location, product, definitions, Haystack tags), whether it counts, and
//! whether it asks for live data the graph does not hold.
//!
//! The cue words come from the store ([`Cues`], `ontology/core/cues.ttl`);
//! which equipment, classes and tags exist always comes from the grounder.

use crate::ground::{EntityKind, Grounding};
use crate::text::{Cue, Cues, dated, phrase_at, stem, words};
use crate::vocab;
use serde::Serialize;

/// One thing a question asks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Intent {
    /// What feeds X (transitively).
    Upstream,
    /// What X feeds or serves (transitively).
    Downstream,
    /// A feeds relation whose direction the wording leaves open ("is X on Y").
    Relation,
    /// What X is made of, and how its parts feed each other.
    Parts,
    /// Which points X has, or which equipment has a kind of point.
    Points,
    /// Where X is, or what is in a location.
    Location,
    /// What product X is, what a product maps to, where it is installed.
    Product,
    /// What a class, abbreviation or tag means.
    Definition,
    /// Which Haystack tags X carries, what a tag maps to.
    Tags,
}

impl Intent {
    /// Name in traces.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The reading of a question.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Reading {
    /// What it asks of the graph, in detection order, no duplicates.
    pub intents: Vec<Intent>,
    /// "how many".
    pub count: bool,
    /// Asks for a live value ("right now").
    pub telemetry: bool,
    /// Asks yes or no: it opens with an auxiliary verb ("does …", "is …").
    pub yes_no: bool,
    /// Asks for a value: a setpoint, a limit, a time ("how long",
    /// "thresholds", "temperature"; `dq:cue_number` or `dq:cue_quantity`).
    pub quantity: bool,
    /// Asks for a number by itself ("at what", "trigger";
    /// `dq:cue_number`): a passage that states no quantity does not answer.
    pub number: bool,
    /// The content words left once question words, stop words and the
    /// names the grounder matched are taken out; lower case, stemmed.
    pub focus: Vec<String>,
    /// Its topics: the focus terms it says more than once that are words
    /// of the models or the ontology ("holiday sched … on holidays … a
    /// holiday mode"; set by the pipeline, which knows the vocabulary).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub topics: Vec<String>,
    /// Asks, yes or no, how two classes it names relate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classes_asked: Option<ClassAsk>,
}

/// What a yes/no question about two classes asks of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassAsk {
    /// Whether the first is a kind of the second ("is a VAV a kind of
    /// terminal unit").
    KindOf,
    /// Whether they are the same class ("is RVAV the same as …").
    Same,
}

impl Reading {
    /// Whether the question asks about a feeds relation (up, down or
    /// either way).
    pub fn asks_feeds(&self) -> bool {
        self.intents
            .iter()
            .any(|i| matches!(i, Intent::Upstream | Intent::Downstream | Intent::Relation))
    }

    /// Whether the question asks how equipment relates in the graph
    /// (feeds, parts, points, location), not what a product, class or tag
    /// is.
    pub fn asks_relation(&self) -> bool {
        self.intents.iter().any(|i| {
            matches!(
                i,
                Intent::Upstream
                    | Intent::Downstream
                    | Intent::Relation
                    | Intent::Parts
                    | Intent::Points
                    | Intent::Location
            )
        })
    }

    /// Whether the question asks `intent`.
    pub fn has(&self, intent: Intent) -> bool {
        self.intents.contains(&intent)
    }

    pub(crate) fn push(&mut self, intent: Intent) {
        if !self.intents.contains(&intent) {
            self.intents.push(intent);
        }
    }
}

/// Haystack tags grounded outside any equipment kind or point type ("humidity"
/// in "which boxes carry humidity sensing"): a point asked about loosely.
pub fn point_tags(g: &Grounding) -> Vec<String> {
    if !g.point_types.is_empty() {
        return Vec::new();
    }
    g.raw_tags
        .iter()
        .filter(|t| {
            !g.equipment_types.iter().any(|e| {
                e.haystack_kind
                    .as_deref()
                    .is_some_and(|k| k.eq_ignore_ascii_case(t))
            })
        })
        .cloned()
        .collect()
}

/// A question that is one term and nothing else ("ZNT?", "DAT = ?",
/// "vavZone"): it asks what the term is. A plural ("vavs?") asks for the
/// things, a name for the node, and so does a term with a word that asks
/// for a list or what there is ("show me all the equipment", "what
/// equipment is there": dq:cue_things).
fn bare_term(cues: &Cues, w: &[String], g: &Grounding) -> bool {
    let content: Vec<&String> = w
        .iter()
        .filter(|x| !cues.is(Cue::FunctionWord, x) && x.chars().any(char::is_alphabetic))
        .collect();
    let [term] = content.as_slice() else {
        return false;
    };
    if cues.any(Cue::Things, w) {
        return false;
    }
    let kinds = g.equipment_types.len() + g.point_types.len();
    !term.ends_with('s')
        && g.entities.iter().all(|e| e.kind != EntityKind::Instance)
        && (kinds == 1 || (kinds == 0 && !g.raw_tags.is_empty()))
}

/// The content words of a question: its words without function words,
/// stop words and the names the grounder matched, stemmed, no duplicates;
/// a date is one word, as dated records write it ([`dated`]).
pub fn focus(cues: &Cues, w: &[String], g: &Grounding) -> Vec<String> {
    let named: Vec<String> = g.entities.iter().flat_map(|e| words(&e.matched)).collect();
    dated(&only_compounds(cues, w))
        .iter()
        .filter(|x| {
            ![Cue::FunctionWord, Cue::StopWord, Cue::FrameWord]
                .iter()
                .any(|c| cues.is(*c, x))
                && !named.contains(x)
        })
        .map(|x| stem(x))
        .fold(Vec::new(), |mut acc, x| {
            if !acc.contains(&x) {
                acc.push(x);
            }
            acc
        })
}

/// The words with "… only" before a noun written as the compound it is
/// ("clg only vav box", "cooling only box": `cooling-only`, the kind of
/// terminal unit, which "cooling" or the reheat box's "Cooldown" does not
/// hold); "looking only at the thermometer" is no compound.
fn only_compounds(cues: &Cues, w: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(w.len());
    let mut i = 0;
    while i < w.len() {
        let before_noun = w.get(i + 2).is_some_and(|next| {
            ![Cue::FunctionWord, Cue::StopWord, Cue::FrameWord]
                .iter()
                .any(|c| cues.is(*c, next))
        });
        if w[i].len() > 3
            && w[i].ends_with("ing")
            && w.get(i + 1).is_some_and(|o| o == "only")
            && before_noun
        {
            out.push(format!("{}-only", w[i]));
            i += 2;
        } else {
            out.push(w[i].clone());
            i += 1;
        }
    }
    out
}

/// Whether the question says a phrase of `cue` ("kind of", "same as") and,
/// besides it and the classes it names, only function, stop and frame
/// words: "is rvav the same as a vav box with reheat" says "reheat" beyond
/// the two classes the grounder read ("vav box"), and is not asked.
fn only_classes_said(cues: &Cues, lower: &str, g: &Grounding, cue: Cue) -> bool {
    let mut said: Vec<(usize, usize)> = cues
        .list(cue)
        .iter()
        .flat_map(|p| phrase_at(lower, p).map(move |at| (at, at + p.len())))
        .collect();
    if said.is_empty() {
        return false;
    }
    said.extend(class_spans(lower, g));
    words(&crate::text::masked(lower, said, false))
        .iter()
        .all(|x| {
            [
                Cue::FunctionWord,
                Cue::StopWord,
                Cue::FrameWord,
                Cue::YesNo,
                Cue::ClassScope,
            ]
            .iter()
            .any(|c| cues.is(*c, x))
        })
}

/// Whether a word may open a question before its yes/no verb by putting
/// it in the ontology's terms: "in Brick, is an exhaust fan the same
/// class as a return fan", "according to the ontology is …".
fn opens_in_scope(cues: &Cues, word: &str) -> bool {
    cues.is(Cue::ClassScope, word) || ["in", "to", "the", "per"].contains(&word)
}

/// Where the question names a kind, each mention run on over the words of
/// its class's own name that follow it ("vav box": the grounder reads
/// "vav") and that go before it ("isolation switch": the grounder reads
/// "switch").
fn class_spans(lower: &str, g: &Grounding) -> Vec<(usize, usize)> {
    let mut said = Vec::new();
    for (span, class) in g.kind_mentions() {
        let name = class.map(|c| vocab::name_words(&c)).unwrap_or_default();
        let mut start = span.start;
        while let Some(at) = lower.get(..start).and_then(|head| {
            let head = head.trim_end();
            let word = head.split_whitespace().next_back()?;
            (head.len() < start && name.iter().any(|n| n == word)).then(|| head.len() - word.len())
        }) {
            start = at;
        }
        let mut end = span.end;
        while let Some(next) = lower.get(end..).and_then(|rest| {
            let word = rest.split_whitespace().next()?;
            let at = end + rest.find(word)?;
            let bare = word.trim_end_matches(|c: char| !c.is_alphanumeric());
            (!bare.is_empty() && name.iter().any(|n| n == bare)).then_some(at + bare.len())
        }) {
            end = next;
        }
        said.push((start, end));
    }
    said
}

/// Whether a question that says a word or phrase asking what something
/// means asks it of what it names, when it names something the grounder
/// reads: a word of `dq:cue_define` not said of a pronoun ("what does it
/// mean if the purge unit runs a lot" asks what a symptom means), or a
/// phrase of `dq:cue_define_phrase`, where one that ends in an article
/// ("what's a") is followed by what it names, not by words of its own:
/// "what's a normal flame signal on the boilers" asks a boiler's flame
/// signal, not what a boiler is; "what is a brick VAV …" asks the class.
fn asks_definition_of_named(cues: &Cues, lower: &str, w: &[String], g: &Grounding) -> bool {
    let mut named = class_spans(lower, g);
    named.extend(g.entities.iter().map(|e| (e.span.start, e.span.end)));
    let defines = |i: usize| cues.is(Cue::Define, &w[i]) && !crate::text::means_a_clause(w, i);
    if named.is_empty() {
        return (0..w.len()).any(defines) || cues.asks_definition(lower);
    }
    let by_word = (0..w.len()).any(|i| {
        defines(i)
            && !i
                .checked_sub(1)
                .is_some_and(|j| crate::text::PRONOUNS.contains(&w[j].as_str()))
    });
    let content = |x: &String| {
        !(cues.is_cue_word(x)
            || [Cue::FunctionWord, Cue::StopWord, Cue::FrameWord]
                .iter()
                .any(|c| cues.is(*c, x)))
    };
    let by_phrase = cues
        .definition_phrases(lower)
        .into_iter()
        .any(|(start, end)| {
            let said = &lower[start..end];
            let article = [" a", " an"].iter().any(|a| said.trim_end().ends_with(a));
            if !article {
                return true;
            }
            // The words between the phrase and the first name after it.
            let next = named
                .iter()
                .filter(|(s, _)| *s >= end)
                .map(|(s, _)| *s)
                .min()
                .unwrap_or(lower.len());
            words(lower.get(end..next).unwrap_or_default())
                .iter()
                .filter(|x| content(x))
                .count()
                < 2
        });
    by_word || by_phrase
}

/// The Brick classes a grounding names, as classes, kinds of equipment or
/// kinds of point, in the order the question says them (one per place
/// in the text; not the root `brick:Class`, which the word "class" names).
pub fn class_mentions(g: &Grounding) -> Vec<String> {
    let root = vocab::brick("Class");
    let mut at: Vec<(usize, String)> = g
        .kind_mentions()
        .filter_map(|(span, class)| Some((span.start, class?)))
        .filter(|(_, c)| *c != root)
        .collect();
    at.sort();
    at.dedup_by(|a, b| a.0 == b.0);
    at.into_iter().map(|(_, c)| c).collect()
}

/// Reads a question (`lower`: its text in lower case, `w`: its words).
/// `is_location` tells whether an IRI names a location; `filter_class`
/// whether the question names an equipment class other than those of the
/// instances it names ("which *chillers* feed VAV-3-07").
pub fn read(
    cues: &Cues,
    lower: &str,
    w: &[String],
    g: &Grounding,
    is_location: impl Fn(&str) -> bool,
    filter_class: bool,
) -> Reading {
    let mut r = Reading {
        count: cues.asks_count(lower),
        telemetry: cues.in_text(Cue::Live, lower),
        yes_no: w
            .iter()
            .find(|x| !opens_in_scope(cues, x))
            .is_some_and(|x| cues.opens_yes_no(x, lower)),
        // How often is asked for a frequency, which a passage states or not.
        number: cues.says(Cue::Number, lower) || cues.says(Cue::Frequency, lower),
        ..Reading::default()
    };
    r.quantity = r.number || cues.says(Cue::Quantity, lower);
    let instances: Vec<&crate::ground::Entity> = g
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Instance)
        .collect();
    let products = g.entities.iter().any(|e| e.kind == EntityKind::Product);

    let parts = cues.any(Cue::Parts, w);
    if parts {
        r.push(Intent::Parts);
    }
    // "how long does the override on the zone sensor last", "at what error
    // is a sensor replaced": a question that asks for a value by its
    // phrase asks what a sequence or a manual says about the sensor, which
    // a list of points does not answer.
    let asks_value = cues
        .asking_value()
        .any(|p| p.contains(' ') && phrase_at(lower, p).next().is_some());
    // "what temp do the zones have to get back to": "have to" is "must",
    // not "has points".
    let have = w
        .iter()
        .enumerate()
        .any(|(i, x)| cues.is(Cue::Have, x) && w.get(i + 1).is_none_or(|n| n != "to"));
    if !asks_value
        && (cues.any(Cue::Points, w)
            || ((!g.point_types.is_empty() || !point_tags(g).is_empty()) && have))
    {
        r.push(Intent::Points);
    }
    let place_question = w
        .windows(2)
        .any(|p| cues.is(Cue::Which, &p[0]) && cues.is(Cue::Place, &p[1]));
    let location_subject = instances.iter().any(|e| is_location(&e.iri));
    // "where does VAV-2-03 get its chw from" asks a supplier, not a place.
    let source_asked = w
        .iter()
        .skip_while(|x| !cues.is(Cue::Location, x))
        .any(|x| x == "from");
    if (cues.any(Cue::Location, w) && !source_asked)
        || place_question
        || (location_subject && cues.any(Cue::Contents, w))
    {
        r.push(Intent::Location);
    }
    // "does the model have": the building's model, no product's.
    if cues.any(
        Cue::Product,
        &crate::text::words(&cues.without_scope(lower)),
    ) || (products && (cues.in_text(Cue::ProductPhrase, lower) || r.count))
    {
        r.push(Intent::Product);
    }
    if cues.any(Cue::Tags, w) {
        r.push(Intent::Tags);
    }
    // "is there a boiler" asks whether the building has one; "boiler?"
    // asks what one is.
    if asks_definition_of_named(cues, lower, w, g) || (!r.yes_no && bare_term(cues, w, g)) {
        r.push(Intent::Definition);
    }
    // Two classes and a phrase that relates them, asked without a yes/no
    // verb ("fume hood a kind of fan?"), ask the same, unless a question
    // word asks for something else ("what kind of fan …").
    const WH: &[&str] = &[
        "what", "which", "how", "where", "when", "who", "why", "whose",
    ];
    let no_wh = !w.iter().any(|x| WH.contains(&x.as_str()));
    if (r.yes_no || no_wh) && instances.is_empty() && class_mentions(g).len() == 2 {
        r.classes_asked = [
            (Cue::SameClass, ClassAsk::Same),
            (Cue::KindOf, ClassAsk::KindOf),
        ]
        .into_iter()
        .find(|(cue, _)| only_classes_said(cues, lower, g, *cue))
        .map(|(_, ask)| ask);
    }
    // A question about two classes asks the ontology, not the building.
    if r.classes_asked.is_some() {
        r.intents.clear();
        r.push(Intent::Definition);
        r.focus = focus(cues, w, g);
        return r;
    }
    // Feeds: explicit words first, then the order of verb and entity.
    if cues.any(Cue::Upstream, w) {
        r.push(Intent::Upstream);
    }
    if cues.any(Cue::Downstream, w) {
        r.push(Intent::Downstream);
    }
    // A verb of supply inside a named kind ("supply air temp setpoint") is
    // part of its name.
    let free_verb = cues.position(Cue::FeedVerb, w).filter(|_| {
        let spans: Vec<crate::ground::Span> = g
            .equipment_types
            .iter()
            .map(|e| e.span)
            .chain(g.point_types.iter().map(|p| p.span))
            .chain(g.entities.iter().map(|e| e.span))
            .collect();
        cues.list(Cue::FeedVerb).iter().any(|verb| {
            phrase_at(lower, verb).any(|at| {
                let said = crate::ground::Span {
                    start: at,
                    end: at + verb.len(),
                };
                !spans.iter().any(|s| s.covers(said))
            })
        })
    });
    if let Some(v) = free_verb {
        let entity_at = instances.first().and_then(|e| {
            let m = e.matched.to_lowercase();
            let at = lower.find(&m)?;
            Some(words(&lower[..at]).len())
        });
        match entity_at {
            Some(e) if e < v => r.push(Intent::Downstream),
            Some(_) => r.push(Intent::Upstream),
            None => r.push(Intent::Relation),
        }
    }
    // "on AHU-2": a feeds relation only when nothing else was asked and
    // the question names two instances or a class to look for.
    let on_at = w.iter().position(|x| cues.is(Cue::On, x));
    let on_entity = on_at.is_some_and(|i| {
        i + 1 == w.len()
            || instances.iter().any(|e| {
                words(&e.matched)
                    .first()
                    .is_some_and(|first| w.get(i + 1) == Some(first))
            })
    });
    let on_relation = on_entity && r.intents.is_empty() && (instances.len() >= 2 || filter_class);
    let path = cues.any(Cue::Path, w) && !parts;
    if (on_relation || path)
        && !r.has(Intent::Upstream)
        && !r.has(Intent::Downstream)
        && (r.intents.is_empty() || path)
    {
        r.push(Intent::Relation);
    }
    if r.count && r.intents.is_empty() && !instances.is_empty() {
        r.push(Intent::Relation);
    }
    r.focus = focus(cues, w, g);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::Entity;
    use crate::text::tests::cues;

    fn entity(label: &str, matched: &str) -> Entity {
        Entity {
            iri: format!("urn:x:{label}"),
            label: label.into(),
            kind: EntityKind::Instance,
            class: None,
            confidence: 0.95,
            matched: matched.into(),
            span: Default::default(),
        }
    }

    fn g(entities: Vec<Entity>) -> Grounding {
        Grounding {
            entities,
            ..Grounding::default()
        }
    }

    fn read_q(cues: &Cues, q: &str, g: &Grounding, loc: bool, filter: bool) -> Reading {
        read(cues, &q.to_lowercase(), &words(q), g, |_| loc, filter)
    }

    #[tokio::test]
    async fn direction_follows_the_order_of_verb_and_entity() {
        let c = cues().await;
        let up = read_q(
            &c,
            "what ahu feeds vav-2-14?",
            &g(vec![entity("VAV-2-14", "vav-2-14")]),
            false,
            false,
        );
        assert_eq!(up.intents, [Intent::Upstream]);
        let down = read_q(
            &c,
            "which vav boxes does AHU-1 serve",
            &g(vec![entity("AHU-1", "AHU-1")]),
            false,
            false,
        );
        assert_eq!(down.intents, [Intent::Downstream]);
        let explicit = read_q(
            &c,
            "which chillers are upstream of VAV-3-07",
            &g(vec![entity("VAV-3-07", "VAV-3-07")]),
            false,
            false,
        );
        assert!(explicit.has(Intent::Upstream));
    }

    /// "What's a …" asks what a kind is only when the kind follows it, and
    /// "mean" only when said of something other than "it": "what's a
    /// normal flame signal on the boilers" asks a boiler's flame signal,
    /// and "what does it mean if a boiler short cycles" what a symptom
    /// means. Both were answered with Brick's definition of a boiler.
    #[tokio::test]
    async fn a_definition_is_asked_of_a_kind_said_alone() {
        let c = cues().await;
        let boiler = |text: &str| {
            let start = text.find("boiler").unwrap();
            let end = start
                + text[start..]
                    .find(|c: char| !c.is_alphanumeric())
                    .unwrap_or(text.len() - start);
            g(vec![Entity {
                iri: vocab::brick("Boiler"),
                kind: EntityKind::Class,
                span: crate::ground::Span { start, end },
                ..entity("Boiler", &text[start..end])
            }])
        };
        let asks =
            |text: &str| read_q(&c, text, &boiler(text), false, false).has(Intent::Definition);
        assert!(asks("what is a boiler"));
        assert!(asks("what's a boiler?"));
        assert!(asks("what does boiler mean"));
        assert!(!asks("what's a normal flame signal on the boilers"));
        assert!(!asks("what does it mean if a boiler short cycles"));
        // "means" said of a sign, with the clause of what it implies: on
        // a real question, Brick's definition of a water pump answered how
        // big a strainer's pressure drop means it is clogged.
        assert!(!asks(
            "on our boiler there's a screen - how big a pressure drop across it means it's clogged?"
        ));
        assert!(!asks("a boiler alarm that flashes means the flame failed"));
        assert!(asks("what does boiler lockout mean?"));
    }

    #[tokio::test]
    async fn wording_picks_points_location_product_definition_tags() {
        let c = cues().await;
        let e = || g(vec![entity("VAV-2-14", "VAV-2-14")]);
        assert!(read_q(&c, "list the points on VAV-2-14", &e(), false, false).has(Intent::Points));
        assert!(read_q(&c, "where is VAV-2-14 located", &e(), false, false).has(Intent::Location));
        // "where … from" asks a supplier, not a place.
        let source = "vav-2-14 is cooling only, so where does it get its chw from";
        assert!(!read_q(&c, source, &e(), false, false).has(Intent::Location));
        assert!(read_q(&c, "what model is VAV-2-14", &e(), false, false).has(Intent::Product));
        assert!(read_q(&c, "haystack tags on VAV-2-14?", &e(), false, false).has(Intent::Tags));
        assert!(
            read_q(&c, "what does DAT stand for", &g(vec![]), false, false).has(Intent::Definition)
        );
        let room = g(vec![entity("Room A-190", "room a-190")]);
        assert!(
            read_q(&c, "what equipment is in room a-190?", &room, true, false)
                .has(Intent::Location)
        );
        let none = read_q(
            &c,
            "sat-sp reset range on ahu-1",
            &g(vec![entity("AHU-1", "ahu-1")]),
            false,
            false,
        );
        assert!(none.intents.is_empty(), "{:?}", none.intents);
    }

    #[tokio::test]
    async fn counting_live_values_and_focus_words() {
        let c = cues().await;
        let r = read_q(
            &c,
            "how many vavs on ahu2",
            &g(vec![entity("AHU-2", "ahu2")]),
            false,
            true,
        );
        assert_eq!(r.intents, [Intent::Relation]);
        assert!(r.count);
        let live = read_q(
            &c,
            "what is the zone temp in room A-214 right now?",
            &g(vec![]),
            false,
            false,
        );
        assert!(live.telemetry);
        let f = read_q(
            &c,
            "when does the warranty on CH-2 expire",
            &g(vec![entity("CH-2", "CH-2")]),
            false,
            false,
        );
        assert_eq!(f.focus, ["warranty", "expire"]);
        // A date is one term, as dated records write it.
        let f = read_q(
            &c,
            "what fixed the reheat valve in jan 2026",
            &g(vec![]),
            false,
            false,
        );
        assert!(f.focus.contains(&"2026-01".to_owned()), "{:?}", f.focus);
        assert!(!f.focus.contains(&"jan".to_owned()), "{:?}", f.focus);
        // Contractions, pronouns and discourse adverbs are not terms a
        // passage must hold; the nouns and verbs of the question are.
        let f = read_q(
            &c,
            "why isn't the damper closing while someone is still in the room, even though it's unoccupied?",
            &g(vec![]),
            false,
            false,
        );
        assert_eq!(f.focus, ["damper", "clos", "room", "though", "unoccupi"]);
        // Light verbs frame an everyday question; what the system does
        // ("start", "shut") and the idioms that qualify it are terms.
        let f = read_q(
            &c,
            "what has to happen before the relief fan starts, and what kicks it off straight away?",
            &g(vec![]),
            false,
            false,
        );
        assert_eq!(f.focus, ["relief", "fan", "start", "straight", "away"]);
        // So do the words that ask for a fault: the record that answers
        // says what was found ("tubing cracked"), not that it was wrong.
        let f = read_q(
            &c,
            "what was wrong with the boiler in june 2025, and what was the root cause of the problem?",
            &g(vec![]),
            false,
            false,
        );
        assert_eq!(f.focus, ["boiler", "2025-06"]);
    }

    fn point(class: &str, span: crate::ground::Span) -> crate::ground::PointType {
        crate::ground::PointType {
            haystack_tags: Vec::new(),
            brick_class: Some(class.into()),
            confidence: 0.9,
            span,
        }
    }

    #[tokio::test]
    async fn a_verb_inside_a_named_kind_asks_no_supply() {
        let c = cues().await;
        let q = "ahu1 supply air temp setpoint - lowest and highest?";
        let mut grounding = g(vec![entity("AHU-1", "ahu1")]);
        let at = q.find("supply").unwrap();
        let end = q.find(" -").unwrap();
        grounding.point_types = vec![point(
            "Supply_Air_Temperature_Setpoint",
            crate::ground::Span { start: at, end },
        )];
        let r = read_q(&c, q, &grounding, false, false);
        assert!(!r.asks_feeds(), "{:?}", r.intents);
        // The same verb outside the name asks about supply.
        let r = read_q(
            &c,
            "what does ahu1 supply",
            &g(vec![entity("AHU-1", "ahu1")]),
            false,
            false,
        );
        assert!(r.has(Intent::Downstream), "{:?}", r.intents);
    }

    #[tokio::test]
    async fn one_term_alone_asks_what_it_is() {
        let c = cues().await;
        let mut grounding = g(Vec::new());
        grounding.point_types = vec![point("Zone_Air_Temperature_Sensor", Default::default())];
        assert!(read_q(&c, "ZNT = ?", &grounding, false, false).has(Intent::Definition));
        assert!(read_q(&c, "ZNT?", &grounding, false, false).has(Intent::Definition));
        // Plural: the things, not the word.
        assert!(!read_q(&c, "ZNTs?", &grounding, false, false).has(Intent::Definition));
        // More than the term: not a definition by default.
        assert!(!read_q(&c, "ZNT on vav-1?", &grounding, false, false).has(Intent::Definition));
        // Asked whether there is one, or for a list of them: the things.
        assert!(!read_q(&c, "is there a ZNT", &grounding, false, false).has(Intent::Definition));
        assert!(!read_q(&c, "show me all ZNT", &grounding, false, false).has(Intent::Definition));
        assert!(!read_q(&c, "what ZNT is there", &grounding, false, false).has(Intent::Definition));
        assert!(
            !read_q(&c, "what ZNT do we have", &grounding, false, false).has(Intent::Definition)
        );
        assert!(read_q(&c, "what is ZNT", &grounding, false, false).has(Intent::Definition));
    }

    #[tokio::test]
    async fn the_model_of_the_building_is_no_product() {
        let c = cues().await;
        let e = || g(vec![entity("CH-1", "CH-1")]);
        assert!(read_q(&c, "what is the model of CH-1", &e(), false, false).has(Intent::Product));
        assert!(
            !read_q(
                &c,
                "what sensor types does the model have",
                &g(vec![]),
                false,
                false
            )
            .has(Intent::Product)
        );
        assert!(
            !read_q(
                &c,
                "is there a chiller in this model",
                &g(vec![]),
                false,
                false
            )
            .has(Intent::Product)
        );
    }

    #[tokio::test]
    async fn a_sensor_in_a_question_for_a_value_asks_for_no_points() {
        let c = cues().await;
        let mut grounding = g(Vec::new());
        grounding.point_types = vec![point("Zone_Air_Temperature_Sensor", Default::default())];
        let points = |q: &str| read_q(&c, q, &grounding, false, false).has(Intent::Points);
        assert!(points("which zone temp sensors does the building have"));
        assert!(points("list the zone sensors"));
        // A value asked for by its phrase: what a document says.
        assert!(!points(
            "override button on the zone sensor, how long does it last"
        ));
        assert!(!points(
            "zone sensor reads off - at what error do i replace it?"
        ));
        // "Have to" is "must", not "has points".
        assert!(
            !read_q(
                &c,
                "what temp do the zones have to get back to",
                &grounding,
                false,
                false
            )
            .has(Intent::Points)
        );
    }
}
