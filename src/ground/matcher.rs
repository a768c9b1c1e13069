//! Matching a text against the lexicon (see the module docs of `ground` for
//! the rules and confidences).

use super::infer::entity_tag;
use super::lexicon::{Category, Lexicon, Role, Sense, Via, class_name};
use super::text::{self, Gap, Token, tokenize};
use super::{Entity, EntityKind, EquipmentType, Grounding, PointType, Span};

const INSTANCE_EXACT: f64 = 0.95;
const INSTANCE_LOOSE: f64 = 0.90;
const ALIAS: f64 = 0.90;
const MARKER: f64 = 0.85;
const TAG_WORD: f64 = 0.80;
const PLURAL_PENALTY: f64 = 0.05;
const CLASS_PHRASE: f64 = 0.85;
const CLASS_WORD: f64 = 0.60;
const NO_FUNCTION_PENALTY: f64 = 0.10;
const NO_CLASS_PENALTY: f64 = 0.25;
/// Taken off a point whose class was found by covering its tags, not by
/// the tags naming the class whole.
const COVERING_PENALTY: f64 = 0.1;

/// A phrase of the text read as one lexicon entry.
#[derive(Debug, Clone, Copy)]
struct Hit {
    start: usize,
    end: usize,
    sense: Sense,
    plural: bool,
}

/// One concept word of a phrase.
#[derive(Debug, Clone)]
struct Item {
    span: Span,
    markers: Vec<usize>,
    class: Option<String>,
    role: Role,
    kind: Option<usize>,
    confidence: f64,
}

struct Builder<'a> {
    lex: &'a Lexicon,
    /// Where the concept being recorded was named.
    span: Span,
    g: Grounding,
    raw: Vec<String>,
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Whether the span `[start, end)` begins and ends on word boundaries.
fn on_word_boundaries(tokens: &[Token], start: usize, end: usize) -> bool {
    tokens[start].gap.is_word_boundary() && tokens.get(end).is_none_or(|t| t.gap.is_word_boundary())
}

fn acceptable(lex: &Lexicon, tokens: &[Token], h: &Hit) -> bool {
    let span = &tokens[h.start..h.end];
    let single = span.len() == 1;
    if single && (text::is_stop_word(&span[0].norm) || span[0].numeric) {
        return false;
    }
    match h.sense {
        Sense::Instance(_) | Sense::Product(_) => {
            !h.plural
                && on_word_boundaries(tokens, h.start, h.end)
                && (span[1..].iter().all(|t| t.gap != Gap::Space)
                    || !lex
                        .designations
                        .contains(&text::join(span.iter().map(|t| t.norm.as_str()))))
        }
        Sense::Alias(a) => {
            text::letter_count(&lex.aliases[a].text) > 3
                || span.iter().all(|t| t.upper || t.numeric)
        }
        Sense::Marker(m, _) => lex.markers[m].category != Category::Entity,
        Sense::Class(_) => true,
    }
}

/// The longest acceptable reading starting at token `i`.
fn longest_at(lex: &Lexicon, tokens: &[Token], i: usize) -> Option<Hit> {
    for (end, k, plural) in text::phrases_at(tokens, i, lex.max_len) {
        let Some(senses) = lex.phrases.get(&k) else {
            continue;
        };
        for &sense in senses {
            let hit = Hit {
                start: i,
                end,
                sense,
                plural,
            };
            if acceptable(lex, tokens, &hit) {
                return Some(hit);
            }
        }
    }
    None
}

/// A label-shaped name at token `i` ("VAV-9-99"): a label prefix followed by
/// numbers inside one word (or after one space), on word boundaries.
fn label_shape_at(lex: &Lexicon, tokens: &[Token], i: usize) -> Option<(usize, String)> {
    let first = &tokens[i];
    if first.numeric || !first.gap.is_word_boundary() || !lex.label_prefixes.contains(&first.norm) {
        return None;
    }
    let mut end = i + 1;
    while let Some(t) = tokens.get(end) {
        let joins = match t.gap {
            Gap::Joined | Gap::Hyphen => true,
            Gap::Space => end == i + 1,
            Gap::Start | Gap::Other => false,
        };
        if !(joins && t.numeric) {
            break;
        }
        end += 1;
    }
    if end == i + 1 || !tokens.get(end).is_none_or(|t| t.gap.is_word_boundary()) {
        return None;
    }
    let mut name = first.norm.to_uppercase();
    for t in &tokens[i + 1..end] {
        name.push('-');
        name.push_str(&t.norm);
    }
    Some((end, name))
}

/// "boiler 2", "chiller 1": an equipment kind's marker name and a number
/// name the one instance of that kind whose label ends in that number
/// (`B-2`, `CH-1`) when the building's labels do not start with the kind's
/// name. `None` when the first word names no kind, or no or several
/// instances of it end in the number.
fn kind_and_number(lex: &Lexicon, shape: &[Token]) -> Option<usize> {
    let (first, numbers) = shape.split_first()?;
    let kind = lex.markers[*lex.by_name.get(&first.norm)?].canonical;
    if lex.markers[kind].category != Category::Equip {
        return None;
    }
    // Labels that start with the word ("AHU-1") are matched as written: a
    // number none of them ends in names no instance.
    if lex
        .instances
        .iter()
        .any(|inst| inst.tokens.first().is_some_and(|t| t.norm == first.norm))
    {
        return None;
    }
    let asked: Vec<String> = numbers.iter().map(|t| number(&t.norm)).collect();
    let mut found = lex.instances.iter().enumerate().filter(|(_, inst)| {
        inst.kind.is_some_and(|k| lex.markers[k].canonical == kind)
            && trailing_numbers(&inst.tokens, asked.len()).is_some_and(|n| n == asked)
    });
    let (one, _) = found.next()?;
    found.next().is_none().then_some(one)
}

/// The last `n` numbers of a label (its `tokens`) without leading zeros
/// ("B-2" → ["2"], "VAV-2-07" → ["2", "7"] for n = 2), when its last `n`
/// tokens are numbers.
fn trailing_numbers(tokens: &[Token], n: usize) -> Option<Vec<String>> {
    if n == 0 || tokens.len() <= n {
        return None;
    }
    let tail = &tokens[tokens.len() - n..];
    tail.iter()
        .all(|t| t.numeric)
        .then(|| tail.iter().map(|t| number(&t.norm)).collect())
}

/// A number as compared: without leading zeros ("07" is "7").
fn number(digits: &str) -> String {
    let n = digits.trim_start_matches('0');
    if n.is_empty() {
        "0".into()
    } else {
        n.to_owned()
    }
}

/// Grounds `text` against `lex`.
pub(super) fn ground(lex: &Lexicon, text: &str) -> Grounding {
    let tokens = tokenize(text);
    let mut hits: Vec<Hit> = Vec::new();
    let mut unresolved: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let hit = longest_at(lex, &tokens, i);
        let named = hit.is_some_and(|h| matches!(h.sense, Sense::Instance(_) | Sense::Product(_)));
        if !named && let Some((end, name)) = label_shape_at(lex, &tokens, i) {
            if let Some(instance) = kind_and_number(lex, &tokens[i..end]) {
                hits.push(Hit {
                    start: i,
                    end,
                    sense: Sense::Instance(instance),
                    plural: false,
                });
                i = end;
                continue;
            }
            if !unresolved.contains(&name) {
                unresolved.push(name);
            }
            if let Some(h) = hit.filter(|h| h.end <= end) {
                hits.push(h);
            }
            i = end;
            continue;
        }
        match hit {
            Some(h) => {
                hits.push(h);
                i = h.end;
            }
            None => i += 1,
        }
    }
    let mut b = Builder {
        lex,
        span: Span::default(),
        g: Grounding {
            unresolved,
            ..Grounding::default()
        },
        raw: Vec::new(),
    };
    let mut phrase: Vec<Item> = Vec::new();
    let mut last_end: Option<usize> = None;
    for h in &hits {
        let span = Span {
            start: tokens[h.start].start,
            end: tokens[h.end - 1].end,
        };
        let matched = &text[span.start..span.end];
        let adjacent = last_end == Some(h.start) && tokens[h.start].gap != Gap::Other;
        if !adjacent {
            b.phrase(std::mem::take(&mut phrase));
        }
        last_end = Some(h.end);
        // After the flush above, which records the previous phrase's span.
        b.span = span;
        match b.item(h, matched) {
            Some(item) => phrase.push(item),
            None => {
                b.phrase(std::mem::take(&mut phrase));
                last_end = None;
            }
        }
    }
    b.phrase(phrase);
    b.finish()
}

impl Builder<'_> {
    fn name_confidence(label: &str, matched: &str) -> f64 {
        if label.eq_ignore_ascii_case(matched) {
            INSTANCE_EXACT
        } else {
            INSTANCE_LOOSE
        }
    }

    fn entity(&mut self, e: Entity) {
        match self.g.entities.iter_mut().find(|x| x.iri == e.iri) {
            Some(x) => x.confidence = x.confidence.max(e.confidence),
            None => self.g.entities.push(e),
        }
    }

    fn ordered(&self, markers: &[usize]) -> Vec<String> {
        let mut ms: Vec<usize> = markers
            .iter()
            .map(|&m| self.lex.markers[m].canonical)
            .filter(|&m| self.lex.markers[m].category != Category::Entity)
            .collect();
        ms.sort_by(|&a, &b| {
            let (ma, mb) = (&self.lex.markers[a], &self.lex.markers[b]);
            (ma.category, &ma.name).cmp(&(mb.category, &mb.name))
        });
        ms.dedup();
        ms.into_iter()
            .map(|m| self.lex.markers[m].name.clone())
            .collect()
    }

    fn equipment(&mut self, kind: Option<usize>, class: Option<&str>, confidence: f64) {
        let t = EquipmentType {
            haystack_kind: kind
                .map(|k| self.lex.markers[self.lex.markers[k].canonical].name.clone()),
            brick_class: class.map(class_name),
            confidence: round(confidence),
            span: self.span,
        };
        if t.haystack_kind.is_none() && t.brick_class.is_none() {
            return;
        }
        if let Some(k) = &t.haystack_kind {
            self.raw.push(k.to_lowercase());
        }
        match self
            .g
            .equipment_types
            .iter_mut()
            .find(|x| x.haystack_kind == t.haystack_kind && x.brick_class == t.brick_class)
        {
            Some(x) => x.confidence = x.confidence.max(t.confidence),
            None => self.g.equipment_types.push(t),
        }
    }

    fn point(&mut self, markers: &[usize], class: Option<&str>, confidence: f64) {
        let tags = self.ordered(markers);
        if tags.is_empty() {
            return;
        }
        self.raw.extend(tags.iter().map(|t| t.to_lowercase()));
        let p = PointType {
            haystack_tags: tags,
            brick_class: class.map(class_name),
            confidence: round(confidence),
            span: self.span,
        };
        match self
            .g
            .point_types
            .iter_mut()
            .find(|x| x.haystack_tags == p.haystack_tags && x.brick_class == p.brick_class)
        {
            Some(x) => x.confidence = x.confidence.max(p.confidence),
            None => self.g.point_types.push(p),
        }
    }

    /// Records instances and products at once; returns concept words, which
    /// wait for the rest of their phrase.
    fn item(&mut self, h: &Hit, matched: &str) -> Option<Item> {
        let lex = self.lex;
        let plural = if h.plural { PLURAL_PENALTY } else { 0.0 };
        match h.sense {
            Sense::Instance(i) => {
                let inst = &lex.instances[i];
                let confidence = Self::name_confidence(&inst.label, matched);
                self.entity(Entity {
                    iri: inst.iri.clone(),
                    label: inst.label.clone(),
                    kind: EntityKind::Instance,
                    class: inst.class.as_deref().map(class_name),
                    confidence,
                    matched: matched.to_owned(),
                    span: self.span,
                });
                match inst.role {
                    Role::Equipment => self.equipment(inst.kind, inst.class.as_deref(), confidence),
                    Role::Point => self.point(&inst.tags, inst.class.as_deref(), confidence),
                    Role::Other => {}
                }
                None
            }
            Sense::Product(p) => {
                let prod = &lex.products[p];
                let confidence = Self::name_confidence(&prod.model, matched);
                self.entity(Entity {
                    iri: prod.iri.clone(),
                    label: prod.model.clone(),
                    kind: EntityKind::Product,
                    class: prod.class.as_deref().map(class_name),
                    confidence,
                    matched: matched.to_owned(),
                    span: self.span,
                });
                let typed = confidence.min(prod.confidence);
                match prod.role {
                    Role::Equipment => self.equipment(prod.kind, prod.class.as_deref(), typed),
                    Role::Point => self.point(&prod.tags, prod.class.as_deref(), typed),
                    Role::Other => {}
                }
                None
            }
            Sense::Alias(a) => {
                let alias = &lex.aliases[a];
                Some(Item {
                    markers: alias.markers.clone(),
                    class: alias.class.clone(),
                    role: alias.role,
                    kind: alias.kind,
                    confidence: ALIAS - plural,
                    span: self.span,
                })
            }
            Sense::Marker(m, via) => {
                let marker = &lex.markers[m];
                let base = if via == Via::BrickTag {
                    TAG_WORD
                } else {
                    MARKER
                };
                let is_kind = marker.category == Category::Equip;
                Some(Item {
                    markers: vec![marker.canonical],
                    class: if is_kind {
                        marker.kind_class.clone()
                    } else {
                        None
                    },
                    role: if is_kind {
                        Role::Equipment
                    } else {
                        Role::Other
                    },
                    kind: is_kind.then_some(m),
                    confidence: base - plural,
                    span: self.span,
                })
            }
            Sense::Class(c) => {
                let class = &lex.classes[c];
                let words = h.end - h.start;
                let confidence = if words > 1 { CLASS_PHRASE } else { CLASS_WORD } - plural;
                self.entity(Entity {
                    iri: class.iri.clone(),
                    label: class.label.clone(),
                    kind: EntityKind::Class,
                    class: Some(class_name(&class.iri)),
                    confidence,
                    matched: matched.to_owned(),
                    span: self.span,
                });
                match class.role {
                    Role::Other => None,
                    role => Some(Item {
                        markers: class.markers.clone(),
                        class: Some(class.iri.clone()),
                        role,
                        kind: class.kind,
                        confidence,
                        span: self.span,
                    }),
                }
            }
        }
    }

    fn has(&self, markers: &[usize], cats: &[Category]) -> bool {
        markers
            .iter()
            .any(|&m| cats.contains(&self.lex.markers[m].category))
    }

    fn is_pointish(&self, item: &Item) -> bool {
        item.role == Role::Point || self.has(&item.markers, &[Category::Function])
    }

    /// Turns one phrase of adjacent concept words into types.
    fn phrase(&mut self, items: Vec<Item>) {
        let mut pending: Vec<Item> = Vec::new();
        for (n, item) in items.iter().enumerate() {
            let equipment = item.role == Role::Equipment;
            // A part kind right before a point function belongs to the
            // point ("valve cmd", "damper cmd").
            let part_of_point = equipment
                && item.class.as_deref()
                    == item
                        .kind
                        .and_then(|k| self.lex.markers[k].kind_class.as_deref())
                && items.get(n + 1).is_some_and(|next| self.is_pointish(next));
            if equipment && !part_of_point {
                if pending
                    .iter()
                    .any(|p| self.is_pointish(p) || self.has(&p.markers, &[Category::Quantity]))
                {
                    self.flush_point(std::mem::take(&mut pending));
                }
                self.flush_equipment(item, std::mem::take(&mut pending));
            } else {
                pending.push(Item {
                    role: if part_of_point {
                        Role::Other
                    } else {
                        item.role
                    },
                    ..item.clone()
                });
            }
        }
        if pending
            .iter()
            .any(|p| self.is_pointish(p) || self.has(&p.markers, &[Category::Quantity]))
        {
            self.flush_point(pending);
        } else if pending.iter().any(|p| {
            self.has(&p.markers, &[Category::Substance, Category::Quantity]) || p.class.is_some()
        }) {
            for p in &pending {
                for &m in &p.markers {
                    self.raw.push(self.lex.markers[m].name.to_lowercase());
                }
            }
        }
    }

    fn flush_equipment(&mut self, item: &Item, modifiers: Vec<Item>) {
        let mut class = item.class.clone();
        let kind_class = item
            .kind
            .and_then(|k| self.lex.markers[k].kind_class.clone());
        let from_kind = class.is_some() && class == kind_class;
        if !modifiers.is_empty() && (class.is_none() || from_kind) {
            let mut markers: Vec<usize> =
                modifiers.iter().flat_map(|p| p.markers.clone()).collect();
            markers.extend(item.markers.iter().copied());
            let within = kind_class.as_deref();
            if let Some((inferred, _)) =
                self.lex
                    .infer
                    .infer(&markers, &[entity_tag("Equipment")], within)
            {
                class = Some(inferred);
            }
        }
        for &m in modifiers
            .iter()
            .flat_map(|p| &p.markers)
            .chain(&item.markers)
        {
            if self.lex.markers[m].category != Category::Entity {
                self.raw.push(self.lex.markers[m].name.to_lowercase());
            }
        }
        self.span = Span {
            start: modifiers.first().map_or(item.span.start, |m| m.span.start),
            end: item.span.end,
        };
        self.equipment(item.kind, class.as_deref(), item.confidence);
    }

    fn flush_point(&mut self, items: Vec<Item>) {
        if items.is_empty() {
            return;
        }
        self.span = Span {
            start: items[0].span.start,
            end: items[items.len() - 1].span.end,
        };
        let confidence = items.iter().map(|i| i.confidence).fold(1.0, f64::min);
        if let [only] = items.as_slice()
            && only.role == Role::Point
            && only.class.is_some()
        {
            self.point(&only.markers, only.class.as_deref(), confidence);
            return;
        }
        let mut markers: Vec<usize> = Vec::new();
        for item in &items {
            if self.has(&item.markers, &[Category::Function]) {
                markers.retain(|&m| self.lex.markers[m].category != Category::Function);
            }
            for &m in &item.markers {
                if !markers.contains(&m) {
                    markers.push(m);
                }
            }
        }
        let mut confidence = confidence;
        if !self.has(&markers, &[Category::Function]) {
            confidence -= NO_FUNCTION_PENALTY;
        }
        let point = [entity_tag("Point")];
        let mut class = self
            .lex
            .infer
            .infer(&markers, &point, None)
            .filter(|(_, matched)| *matched > 2)
            .map(|(c, _)| c);
        if class.is_none() && markers.len() >= 2 {
            // Loosely named: the most general class that holds every tag.
            class = self.lex.infer.covering(&markers, &point);
            if class.is_some() {
                confidence -= COVERING_PENALTY;
            }
        }
        if class.is_none() {
            confidence -= NO_CLASS_PENALTY;
        }
        self.point(&markers, class.as_deref(), confidence.max(0.05));
    }

    fn finish(mut self) -> Grounding {
        let mut raw = std::mem::take(&mut self.raw);
        raw.sort();
        raw.dedup();
        self.g.raw_tags = raw;
        let confidences: Vec<f64> = self
            .g
            .equipment_types
            .iter()
            .map(|t| t.confidence)
            .chain(self.g.point_types.iter().map(|p| p.confidence))
            .chain(self.g.entities.iter().map(|e| e.confidence))
            .collect();
        self.g.gconf = if confidences.is_empty() {
            0.0
        } else {
            round(confidences.iter().sum::<f64>() / confidences.len() as f64)
        };
        self.g
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::lexicon::{Alias, Instance, Marker};

    /// A hand-made lexicon: no store, no Brick classes.
    fn lexicon() -> Lexicon {
        let mut lex = Lexicon::default();
        let markers = [
            ("vav", Category::Equip),
            ("ahu", Category::Equip),
            ("chiller", Category::Equip),
            ("discharge", Category::Section),
            ("zone", Category::Qualifier),
            ("on", Category::Qualifier),
            ("air", Category::Substance),
            ("temp", Category::Quantity),
            ("sensor", Category::Function),
            ("sp", Category::Function),
            ("point", Category::Entity),
        ];
        for (i, (name, category)) in markers.into_iter().enumerate() {
            lex.by_name.insert(name.to_owned(), i);
            lex.markers.push(Marker {
                name: name.to_owned(),
                category,
                kind_class: (category == Category::Equip).then(|| format!("urn:x:{name}")),
                canonical: i,
                haystack_def: true,
            });
        }
        let by_name = lex.by_name.clone();
        let m = |n: &str| by_name[n];
        lex.aliases.push(Alias {
            text: "DAT".into(),
            markers: vec![m("discharge"), m("air"), m("temp"), m("sensor")],
            class: None,
            role: Role::Other,
            kind: None,
        });
        for label in ["VAV-2-14", "VAV-21-4", "AHU-2", "AHU-2 SF"] {
            lex.instances.push(Instance {
                iri: format!("urn:x:{label}"),
                label: label.into(),
                tokens: tokenize(label),
                class: None,
                role: Role::Equipment,
                kind: Some(m(if label.starts_with("VAV") {
                    "vav"
                } else {
                    "ahu"
                })),
                tags: Vec::new(),
            });
            let i = lex.instances.len() - 1;
            lex.add(label, Sense::Instance(i));
        }
        lex.index();
        lex
    }

    fn labels(g: &Grounding) -> Vec<&str> {
        g.entities.iter().map(|e| e.label.as_str()).collect()
    }

    #[test]
    fn separators_and_case_do_not_matter_but_digits_do() {
        let lex = lexicon();
        for text in ["VAV 2-14", "vav-2-14", "VAV2-14", "(VAV_2_14)"] {
            assert_eq!(labels(&ground(&lex, text)), ["VAV-2-14"], "{text}");
        }
        assert_eq!(labels(&ground(&lex, "VAV-21-4")), ["VAV-21-4"]);
        assert!(labels(&ground(&lex, "VAV-2-140")).is_empty());
    }

    #[test]
    fn longest_label_wins_and_labels_end_on_word_boundaries() {
        let lex = lexicon();
        assert_eq!(labels(&ground(&lex, "is AHU-2 SF on?")), ["AHU-2 SF"]);
        assert_eq!(labels(&ground(&lex, "AHU-2, SF")), ["AHU-2"]);
        let g = ground(&lex, "AHU-2-1 alarms");
        assert!(labels(&g).is_empty(), "{g:?}");
        assert_eq!(g.unresolved, ["AHU-2-1"]);
    }

    #[test]
    fn unknown_label_shapes_are_unresolved() {
        let lex = lexicon();
        let g = ground(&lex, "What feeds VAV-9-99?");
        assert_eq!(g.unresolved, ["VAV-9-99"]);
        assert!(g.entities.is_empty());
        assert_eq!(g.equipment_types[0].haystack_kind.as_deref(), Some("vav"));
        assert!(ground(&lex, "3 vavs on floor 2").unresolved.is_empty());
    }

    /// "chiller 1" names the one chiller whose label ends in 1 when the
    /// labels do not say "chiller" ("CH-1"); a number no chiller ends in,
    /// or one two chillers end in, stays an unknown name.
    #[test]
    fn a_kind_and_a_number_name_the_one_instance_of_that_kind() {
        let mut lex = lexicon();
        let (chiller, ahu) = (lex.by_name["chiller"], lex.by_name["ahu"]);
        for label in ["CH-1", "CH-2", "CHWP-1", "RTU-4"] {
            let kind = match label {
                "RTU-4" => Some(ahu),
                l if l.starts_with("CH-") => Some(chiller),
                _ => None,
            };
            lex.instances.push(Instance {
                iri: format!("urn:x:{label}"),
                label: label.into(),
                tokens: tokenize(label),
                class: None,
                role: Role::Equipment,
                kind,
                tags: Vec::new(),
            });
            let i = lex.instances.len() - 1;
            lex.add(label, Sense::Instance(i));
        }
        let g = ground(&lex, "which pumps serve chiller 1?");
        assert!(g.unresolved.is_empty(), "{:?}", g.unresolved);
        assert_eq!(labels(&g), ["CH-1"]);
        assert_eq!(labels(&ground(&lex, "chiller 02 alarms")), ["CH-2"]);
        assert_eq!(
            ground(&lex, "what feeds chiller 7").unresolved,
            ["CHILLER-7"]
        );
        // Labels that say the kind are matched as written, not by number:
        // "ahu 4" is no AHU, though the rooftop unit RTU-4 is of that kind.
        assert_eq!(ground(&lex, "what feeds vav 9-14").unresolved, ["VAV-9-14"]);
        assert_eq!(ground(&lex, "where is ahu 4").unresolved, ["AHU-4"]);
    }

    #[test]
    fn short_aliases_need_capitals_and_plurals_find_kinds() {
        let lex = lexicon();
        assert_eq!(ground(&lex, "DAT high").point_types.len(), 1);
        assert!(ground(&lex, "dat high").point_types.is_empty());
        let g = ground(&lex, "all chillers");
        assert_eq!(
            g.equipment_types[0].haystack_kind.as_deref(),
            Some("chiller")
        );
        assert!((g.equipment_types[0].confidence - (MARKER - PLURAL_PENALTY)).abs() < 1e-9);
    }

    #[test]
    fn point_words_combine_in_canonical_order_and_functions_replace() {
        let lex = lexicon();
        let g = ground(&lex, "temp air discharge sensor");
        assert_eq!(
            g.point_types[0].haystack_tags,
            ["discharge", "air", "temp", "sensor"]
        );
        let g = ground(&lex, "DAT sp");
        assert_eq!(
            g.point_types[0].haystack_tags,
            ["discharge", "air", "temp", "sp"]
        );
        let g = ground(&lex, "VAV zone air temp");
        assert_eq!(g.equipment_types.len(), 1);
        assert_eq!(g.point_types[0].haystack_tags, ["zone", "air", "temp"]);
        assert_eq!(g.raw_tags, ["air", "temp", "vav", "zone"]);
    }

    #[test]
    fn lone_qualifiers_and_stop_words_ground_nothing() {
        let lex = lexicon();
        let g = ground(&lex, "turn it on");
        assert_eq!(g, Grounding::default());
        assert_eq!(ground(&lex, "").gconf, 0.0);
    }

    #[test]
    fn gconf_is_the_mean_of_concept_confidences() {
        let lex = lexicon();
        let g = ground(&lex, "DAT of VAV-2-14");
        let all: Vec<f64> = g
            .equipment_types
            .iter()
            .map(|t| t.confidence)
            .chain(g.point_types.iter().map(|p| p.confidence))
            .chain(g.entities.iter().map(|e| e.confidence))
            .collect();
        assert_eq!(all.len(), 3);
        assert!((g.gconf - round(all.iter().sum::<f64>() / 3.0)).abs() < 1e-9);
        assert_eq!(g.entities[0].confidence, INSTANCE_EXACT);
    }
}
