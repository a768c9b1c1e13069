//! What a question asks of the graph, read from its wording and its
//! grounding: which relations to follow (feeds up or down, parts, points,
//! location, product, definitions, Haystack tags), whether it counts, and
//! whether it asks for live data the graph does not hold.
//!
//! The cue words are English, not domain knowledge: which equipment,
//! classes and tags exist always comes from the store through the grounder.

use crate::ground::{EntityKind, Grounding};
use serde::Serialize;

/// One thing a question asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
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
        match self {
            Self::Upstream => "upstream",
            Self::Downstream => "downstream",
            Self::Relation => "relation",
            Self::Parts => "parts",
            Self::Points => "points",
            Self::Location => "location",
            Self::Product => "product",
            Self::Definition => "definition",
            Self::Tags => "tags",
        }
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
    /// The content words left once question words, stop words and the
    /// names the grounder matched are taken out; lower case, stemmed.
    pub focus: Vec<String>,
}

impl Reading {
    /// Whether the question asks about a feeds relation (up, down or
    /// either way).
    pub fn asks_feeds(&self) -> bool {
        self.intents
            .iter()
            .any(|i| matches!(i, Intent::Upstream | Intent::Downstream | Intent::Relation))
    }

    /// Whether the question asks `intent`.
    pub fn has(&self, intent: Intent) -> bool {
        self.intents.contains(&intent)
    }
}

const FEED_VERBS: &[&str] = &[
    "feed",
    "feeds",
    "feeding",
    "serve",
    "serves",
    "serving",
    "supplies",
    "supplying",
];
const UP_WORDS: &[&str] = &["upstream", "fed", "served", "supplied", "feeders"];
const DOWN_WORDS: &[&str] = &["downstream", "reach", "reaches"];
const PATH_WORDS: &[&str] = &["path", "trace"];
const PART_WORDS: &[&str] = &["inside", "parts", "components", "consist", "consists"];
// "setpoint" is left out: "the max setpoint" asks a sequence for a value.
const POINT_WORDS: &[&str] = &["point", "points", "sensor", "sensors"];
const HAVE_WORDS: &[&str] = &["have", "has", "list"];
const LOCATION_WORDS: &[&str] = &["where", "located", "location", "wheres"];
const PLACE_WORDS: &[&str] = &["room", "floor", "building", "space"];
const PRODUCT_WORDS: &[&str] = &[
    "model",
    "product",
    "make",
    "manufacturer",
    "controller",
    "mapping",
    "installed",
    "datasheet",
];
const DEFINE_WORDS: &[&str] = &[
    "define",
    "definition",
    "definiton",
    "defintion",
    "meaning",
    "mean",
    "means",
    "equivalent",
    "parent",
    "subclass",
];
const TAG_WORDS: &[&str] = &["tag", "tags", "haystack", "marker", "markers"];
const LIVE_PHRASES: &[&str] = &[
    "right now",
    "currently",
    "current value",
    "current reading",
    "live value",
    "at the moment",
    "real time",
    "realtime",
    "present value",
];
/// Words that carry no content of their own in a question.
const QUESTION_WORDS: &[&str] = &[
    "a", "an", "the", "of", "in", "on", "at", "to", "is", "are", "was", "were", "be", "and", "or",
    "for", "by", "with", "from", "it", "its", "this", "that", "these", "those", "do", "does",
    "did", "what", "whats", "wat", "which", "how", "who", "when", "where", "wheres", "why", "not",
    "no", "as", "if", "than", "there", "any", "all", "me", "my", "i", "we", "our", "you", "your",
    "can", "could", "would", "should", "will", "s", "w", "per", "about", "tell", "give", "list",
    "show", "say", "says", "said", "here", "get", "got", "have", "has", "had", "after", "before",
    "then", "so", "up", "out", "into", "over", "under", "between", "vs", "whose", "whom", "much",
    "many", "other", "same", "kind", "type", "one", "ones", "some", "their", "they", "them", "he",
    "she", "his", "her", "need", "needs", "like", "also", "just", "only", "yes",
];

/// Lower-case words of a text: letters, digits and inner hyphens.
pub fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .map(|w| w.trim_matches(|c| c == '-' || c == '\''))
        .filter(|w| !w.is_empty())
        .map(|w| w.replace('\'', ""))
        .collect()
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

fn any(words: &[String], list: &[&str]) -> bool {
    words.iter().any(|w| list.contains(&w.as_str()))
}

/// Where the first word of `list` stands, as a word index.
fn position(words: &[String], list: &[&str]) -> Option<usize> {
    words.iter().position(|w| list.contains(&w.as_str()))
}

/// Haystack tags grounded outside any equipment kind or point type ("co2"
/// in "which boxes have co2 sesnors"): a point asked about loosely.
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

/// Reads a question. `is_location` tells whether an IRI names a location;
/// `filter_class` whether the question names an equipment class other than
/// those of the instances it names ("which *chillers* feed VAV-3-07").
pub fn read(
    query: &str,
    g: &Grounding,
    is_location: impl Fn(&str) -> bool,
    filter_class: bool,
) -> Reading {
    let lower = query.to_lowercase();
    let w = words(query);
    let mut r = Reading {
        count: lower.contains("how many") || lower.contains("number of") || any(&w, &["count"]),
        telemetry: LIVE_PHRASES.iter().any(|p| lower.contains(p)),
        ..Reading::default()
    };
    fn push_to(list: &mut Vec<Intent>, i: Intent) {
        if !list.contains(&i) {
            list.push(i);
        }
    }
    let instances: Vec<&crate::ground::Entity> = g
        .entities
        .iter()
        .filter(|e| e.kind == EntityKind::Instance)
        .collect();
    let products = g.entities.iter().any(|e| e.kind == EntityKind::Product);

    let defines = any(&w, DEFINE_WORDS)
        || lower.contains("stand for")
        || lower.contains("stands for")
        || lower.contains("what is a ")
        || lower.contains("what's a ")
        || lower.contains("whats a ")
        || lower.contains("what is an ")
        || lower.contains("same class")
        || lower.contains("same as")
        || lower.contains("brick say")
        || lower.contains('=');
    let parts = any(&w, PART_WORDS);
    if parts {
        push_to(&mut r.intents, Intent::Parts);
    }
    if any(&w, POINT_WORDS)
        || ((!g.point_types.is_empty() || !point_tags(g).is_empty()) && any(&w, HAVE_WORDS))
    {
        push_to(&mut r.intents, Intent::Points);
    }
    let place_question = w
        .windows(2)
        .any(|p| matches!(p[0].as_str(), "which" | "what") && PLACE_WORDS.contains(&p[1].as_str()));
    let location_subject = instances.iter().any(|e| is_location(&e.iri));
    if any(&w, LOCATION_WORDS)
        || place_question
        || (location_subject && any(&w, &["equipment", "contains"]))
    {
        push_to(&mut r.intents, Intent::Location);
    }
    if any(&w, PRODUCT_WORDS)
        || (products
            && (lower.contains("brick class")
                || lower.contains("haystack kind")
                || lower.contains("which equipment")
                || r.count))
    {
        push_to(&mut r.intents, Intent::Product);
    }
    if any(&w, TAG_WORDS) {
        push_to(&mut r.intents, Intent::Tags);
    }
    if defines {
        push_to(&mut r.intents, Intent::Definition);
    }
    // Feeds: explicit words first, then the order of verb and entity.
    let lower_words = &w;
    let up = any(lower_words, UP_WORDS);
    let down = any(lower_words, DOWN_WORDS);
    let verb = position(lower_words, FEED_VERBS);
    if up {
        push_to(&mut r.intents, Intent::Upstream);
    }
    if down {
        push_to(&mut r.intents, Intent::Downstream);
    }
    if let Some(v) = verb {
        let entity_at = instances.first().and_then(|e| {
            let m = e.matched.to_lowercase();
            let at = lower.find(&m)?;
            Some(words(&lower[..at]).len())
        });
        match entity_at {
            Some(e) if e < v => push_to(&mut r.intents, Intent::Downstream),
            Some(_) => push_to(&mut r.intents, Intent::Upstream),
            None => push_to(&mut r.intents, Intent::Relation),
        }
    }
    // "on AHU-2" / "... is that box on?": a feeds relation only when
    // nothing else was asked and the question names two instances or a
    // class to look for.
    let on_at = w.iter().position(|x| x == "on");
    let on_entity = on_at.is_some_and(|i| {
        i + 1 == w.len()
            || instances.iter().any(|e| {
                words(&e.matched)
                    .first()
                    .is_some_and(|first| w.get(i + 1) == Some(first))
            })
    });
    let on_relation = on_entity && r.intents.is_empty() && (instances.len() >= 2 || filter_class);
    let path = any(&w, PATH_WORDS) && !parts;
    if (on_relation || path)
        && !r.has(Intent::Upstream)
        && !r.has(Intent::Downstream)
        && (r.intents.is_empty() || path)
    {
        push_to(&mut r.intents, Intent::Relation);
    }
    if r.count && r.intents.is_empty() && !instances.is_empty() {
        push_to(&mut r.intents, Intent::Relation);
    }

    let named: Vec<String> = g.entities.iter().flat_map(|e| words(&e.matched)).collect();
    r.focus = w
        .iter()
        .filter(|x| !QUESTION_WORDS.contains(&x.as_str()) && !named.contains(x))
        .map(|x| stem(x))
        .fold(Vec::new(), |mut acc, x| {
            if !acc.contains(&x) {
                acc.push(x);
            }
            acc
        });
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::Entity;

    fn entity(label: &str, matched: &str) -> Entity {
        Entity {
            iri: format!("urn:x:{label}"),
            label: label.into(),
            kind: EntityKind::Instance,
            class: None,
            confidence: 0.95,
            matched: matched.into(),
        }
    }

    fn g(entities: Vec<Entity>) -> Grounding {
        Grounding {
            entities,
            ..Grounding::default()
        }
    }

    #[test]
    fn direction_follows_the_order_of_verb_and_entity() {
        let up = read(
            "what ahu feeds vav-2-14?",
            &g(vec![entity("VAV-2-14", "vav-2-14")]),
            |_| false,
            false,
        );
        assert_eq!(up.intents, [Intent::Upstream]);
        let down = read(
            "which vav boxes does AHU-1 serve",
            &g(vec![entity("AHU-1", "AHU-1")]),
            |_| false,
            false,
        );
        assert_eq!(down.intents, [Intent::Downstream]);
        let explicit = read(
            "which chillers are upstream of VAV-3-07",
            &g(vec![entity("VAV-3-07", "VAV-3-07")]),
            |_| false,
            false,
        );
        assert!(explicit.has(Intent::Upstream));
    }

    #[test]
    fn wording_picks_points_location_product_definition_tags() {
        let e = || g(vec![entity("VAV-2-14", "VAV-2-14")]);
        assert!(read("list the points on VAV-2-14", &e(), |_| false, false).has(Intent::Points));
        assert!(read("where is VAV-2-14 located", &e(), |_| false, false).has(Intent::Location));
        assert!(read("what model is VAV-2-14", &e(), |_| false, false).has(Intent::Product));
        assert!(read("haystack tags on VAV-2-14?", &e(), |_| false, false).has(Intent::Tags));
        assert!(
            read("what does DAT stand for", &g(vec![]), |_| false, false).has(Intent::Definition)
        );
        let room = g(vec![entity("Room A-190", "room a-190")]);
        assert!(
            read("what equipment is in room a-190?", &room, |_| true, false).has(Intent::Location)
        );
        let none = read(
            "sat-sp reset range on ahu-1",
            &g(vec![entity("AHU-1", "ahu-1")]),
            |_| false,
            false,
        );
        assert!(none.intents.is_empty(), "{:?}", none.intents);
    }

    #[test]
    fn counting_live_values_and_focus_words() {
        let r = read(
            "how many vavs on ahu2",
            &g(vec![entity("AHU-2", "ahu2")]),
            |_| false,
            true,
        );
        assert_eq!(r.intents, [Intent::Relation]);
        assert!(r.count);
        let live = read(
            "what is the zone temp in room A-214 right now?",
            &g(vec![]),
            |_| false,
            false,
        );
        assert!(live.telemetry);
        let f = read(
            "when does the warranty on CH-2 expire",
            &g(vec![entity("CH-2", "CH-2")]),
            |_| false,
            false,
        );
        assert_eq!(f.focus, ["warranty", "expire"]);
        assert_eq!(stem("restarts"), "restart");
        assert_eq!(stem("gas"), "gas");
    }
}
