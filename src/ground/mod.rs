//! The grounder: text → ontology concepts and graph entities.
//!
//! [`Grounder::load`] builds a lexicon from the store only — instance labels
//! of the building models (and the unique tail of a long one: "VAV_1" of
//! "Charlie Floor-4 VAV_1", a point's short name in capitals, "CWST-SP" of
//! "CW-SYS CWST-SP"), Yorkland model numbers, Haystack marker names,
//! equipment kinds, `dq:Alias` abbreviations and Brick class labels — and
//! [`Grounder::ground`] matches a text against it without I/O. The result is
//! the `grounding.v1` shape (equipment types, point types, raw tags) plus the
//! graph entities named, label-shaped names that are not in the graph, and
//! `gconf`. The same grounder serves ingest and query.
//!
//! # Matching
//! Text and lexicon entries are tokenised alike (case folded, letters and
//! digits split, separators remembered), so "VAV 2-14", "vav-2-14" and
//! "VAV2-14" all name `VAV-2-14` while "VAV-21-4" does not. At each position
//! the longest phrase wins ("AHU-2 SF" over "AHU-2"); among readings of one
//! phrase, instance > product > alias > marker > Brick tag word > Brick class.
//! Instance and product names must start and end on word boundaries.
//! Abbreviations of three letters or fewer (SAT, SA, CH) only match when
//! written in capitals, since "sat", "ch" and "st" are ordinary words;
//! markers match in any case and in the plural ("vavs", "chillers").
//! Adjacent concept words form a phrase: equipment kinds in it are
//! equipment (refined by the qualifiers before them: "chilled water pump"),
//! the rest is a point whose tags are combined, a later point function
//! replacing an earlier one ("DAT setpoint" → discharge air temp sp). A
//! phrase of qualifiers alone ("on", "current") grounds nothing.
//!
//! # Confidence
//! | concept | confidence |
//! | --- | --- |
//! | instance or product, text equal to the label ignoring case | 0.95 |
//! | instance or product, separators differ ("VAV 2-14") | 0.90 |
//! | equipment type of a named instance | the entity's confidence |
//! | equipment type of a named product | min(entity, `yk:confidence`) |
//! | alias (DAT, CHWP …) | 0.90 |
//! | marker by its name / its words / a Brick tag word | 0.85 / 0.85 / 0.80 |
//! | a plural form | 0.05 less |
//! | Brick class label, several words / one word | 0.85 / 0.60 |
//! | point of combined words | the lowest of its words; 0.10 less without a point function; 0.10 less when the class is only the most general one holding all its tags; 0.25 less when no Brick class fits |
//!
//! `gconf` is the mean confidence of all equipment types, point types and
//! entities, 0.0 when nothing was grounded.
//!
//! # Canonical tag order
//! Point tags are sorted by category, then by name: section (under
//! `ductSection`/`pipeSection`), other qualifiers, substance (under
//! `substance`), quantity (under `quantity`), equipment kind, point function
//! (`dq:HaystackPointKind` or under `pointFunction`). Categories come from
//! each marker's `skos:broader` chain in `haystack.ttl`; entity markers
//! (`point`, `equip`) are left out.

mod infer;
mod lexicon;
mod matcher;
mod text;
pub(crate) use text::is_stop_word;

use crate::ontology::Ontology;
use crate::store::{GraphStore, StoreResult};
use crate::vocab;
use lexicon::Lexicon;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The version tag of the grounding shape.
pub const SCHEMA: &str = "grounding.v1";

/// Where in the text a concept was named: byte offsets `[start, end)`.
/// A span says where, not what: it is not serialised (the `grounding.v1`
/// shape has no spans) and two spans always compare equal, so groundings
/// that differ only in where they were read are the same grounding.
#[derive(Debug, Clone, Copy, Default, Eq)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl PartialEq for Span {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Span {
    /// Whether `other` lies inside this span.
    pub fn covers(&self, other: Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// An equipment type named in the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EquipmentType {
    /// Haystack equipment kind (`vav`, `ahu`, `chiller` …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub haystack_kind: Option<String>,
    /// Brick class, local name (`Variable_Air_Volume_Box`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brick_class: Option<String>,
    /// 0.0–1.0.
    pub confidence: f64,
    /// Where the text first names it.
    #[serde(skip)]
    pub span: Span,
}

/// A point type named in the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PointType {
    /// Haystack tags in canonical order (`discharge air temp sensor`).
    pub haystack_tags: Vec<String>,
    /// Brick class, local name, when one fits the tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brick_class: Option<String>,
    /// 0.0–1.0.
    pub confidence: f64,
    /// Where the text first names it.
    #[serde(skip)]
    pub span: Span,
}

/// What an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntityKind {
    /// A node of a building model.
    Instance,
    /// A Yorkland product.
    Product,
    /// A Brick class named by its label.
    Class,
}

/// A graph node named in the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Entity {
    /// Its IRI.
    pub iri: String,
    /// Its label (model number for products).
    pub label: String,
    /// Instance, product or class.
    pub kind: EntityKind,
    /// Its (most specific) class: a Brick local name, else a compact IRI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// 0.0–1.0.
    pub confidence: f64,
    /// The text as written.
    pub matched: String,
    /// Where the text first names it.
    #[serde(skip)]
    pub span: Span,
}

impl Entity {
    /// Whether the text names this instance by a shorter name of it than
    /// its label (a unique tail or short name: "CWST-SP" of "CW-SYS
    /// CWST-SP"), written as documents write it.
    pub fn by_short_name(&self) -> bool {
        self.kind == EntityKind::Instance
            && crate::text::squash(&self.matched) != crate::text::squash(&self.label)
    }
}

/// The grounding of one text: `grounding.v1` plus entities, unresolved
/// names and `gconf`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Grounding {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// Equipment types, in text order.
    #[serde(default)]
    pub equipment_types: Vec<EquipmentType>,
    /// Point types, in text order.
    #[serde(default)]
    pub point_types: Vec<PointType>,
    /// Haystack tags grounded, lower case, sorted, deduplicated.
    #[serde(default)]
    pub raw_tags: Vec<String>,
    /// Graph nodes named, in text order.
    #[serde(default)]
    pub entities: Vec<Entity>,
    /// Names shaped like equipment labels ("VAV-9-99") that are not in the
    /// graph: a known kind or abbreviation followed by numbers.
    #[serde(default)]
    pub unresolved: Vec<String>,
    /// Mean of all concept confidences; 0.0 when nothing was grounded.
    #[serde(default)]
    pub gconf: f64,
}

impl Default for Grounding {
    fn default() -> Self {
        Self {
            schema: SCHEMA.to_owned(),
            equipment_types: Vec::new(),
            point_types: Vec::new(),
            raw_tags: Vec::new(),
            entities: Vec::new(),
            unresolved: Vec::new(),
            gconf: 0.0,
        }
    }
}

/// The grounding fields of a chunk payload, normalised as the chunk contract
/// says: arrays never null, `equip` lower case, `ptags` space-joined tags,
/// `raw` sorted lower case, `gconf` 0.0 when nothing was grounded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PayloadFields {
    /// Haystack equipment kinds, lower case, no spaces.
    pub equip: Vec<String>,
    /// Brick equipment classes (`Variable_Air_Volume_Box_With_Reheat`).
    pub brick_equip: Vec<String>,
    /// Point tag combinations, space-joined in canonical order.
    pub ptags: Vec<String>,
    /// Raw tags, lower case, sorted, deduplicated.
    pub raw: Vec<String>,
    /// Average grounding confidence.
    pub gconf: f64,
}

fn push_unique(list: &mut Vec<String>, value: String) {
    if !list.contains(&value) {
        list.push(value);
    }
}

impl Grounding {
    /// Whether nothing was grounded.
    pub fn is_empty(&self) -> bool {
        self.equipment_types.is_empty() && self.point_types.is_empty() && self.entities.is_empty()
    }

    /// Graph IRIs to link a chunk or question to, in order: instances named,
    /// then Yorkland products, then Brick classes (of entities, equipment
    /// types and point types). No duplicates.
    pub fn links(&self) -> Vec<String> {
        let mut out = Vec::new();
        for kind in [EntityKind::Instance, EntityKind::Product] {
            for e in self.entities.iter().filter(|e| e.kind == kind) {
                push_unique(&mut out, e.iri.clone());
            }
        }
        for (_, class) in self.kind_mentions() {
            if let Some(c) = class {
                push_unique(&mut out, c);
            }
        }
        out
    }

    /// Where the text names a kind — a class, an equipment type or a
    /// point type — with the Brick class IRI it reads (none for a type no
    /// Brick class fits or one named outside Brick), classes first, then
    /// equipment types, then point types.
    pub fn kind_mentions(&self) -> impl Iterator<Item = (Span, Option<String>)> + '_ {
        let typed = |span: Span, class: Option<&str>| {
            (span, class.filter(|c| !c.contains(':')).map(vocab::brick))
        };
        self.entities
            .iter()
            .filter(|e| e.kind == EntityKind::Class)
            .map(|e| (e.span, Some(e.iri.clone())))
            .chain(
                self.equipment_types
                    .iter()
                    .map(move |t| typed(t.span, t.brick_class.as_deref())),
            )
            .chain(
                self.point_types
                    .iter()
                    .map(move |t| typed(t.span, t.brick_class.as_deref())),
            )
    }

    /// The payload fields of the chunk contract.
    pub fn payload_fields(&self) -> PayloadFields {
        let mut f = PayloadFields {
            raw: self.raw_tags.clone(),
            gconf: self.gconf,
            ..PayloadFields::default()
        };
        for t in &self.equipment_types {
            if let Some(k) = &t.haystack_kind {
                push_unique(&mut f.equip, k.to_lowercase().replace(' ', ""));
            }
            if let Some(c) = &t.brick_class {
                push_unique(&mut f.brick_equip, c.clone());
            }
        }
        for p in &self.point_types {
            if !p.haystack_tags.is_empty() {
                push_unique(&mut f.ptags, p.haystack_tags.join(" "));
            }
        }
        f
    }
}

/// Text → concepts, over a lexicon read from the store.
#[derive(Debug)]
pub struct Grounder {
    lexicon: Lexicon,
}

impl Grounder {
    /// Builds the lexicon from the store and the ontology index.
    pub async fn load(store: &dyn GraphStore, ontology: &Ontology) -> StoreResult<Self> {
        let started = Instant::now();
        let lexicon = Lexicon::load(store, ontology).await?;
        tracing::info!(
            phrases = lexicon.phrases.len(),
            instances = lexicon.instances.len(),
            products = lexicon.products.len(),
            aliases = lexicon.aliases.len(),
            markers = lexicon.markers.len(),
            classes = lexicon.classes.len(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "grounder lexicon built"
        );
        Ok(Self { lexicon })
    }

    /// Grounds a text. Fast and free of I/O; never fails.
    pub fn ground(&self, text: &str) -> Grounding {
        let g = matcher::ground(&self.lexicon, text);
        tracing::debug!(
            equipment_types = g.equipment_types.len(),
            point_types = g.point_types.len(),
            entities = g.entities.len(),
            unresolved = g.unresolved.len(),
            gconf = g.gconf,
            "text grounded"
        );
        g
    }

    /// Brick equipment, point and location classes whose label (or its
    /// plural) is a phrase of `text` (read as [`Self::ground`] reads
    /// phrases), longest phrase first, in text order,
    /// whatever other reading the phrase has: "zone" is a Haystack
    /// qualifier to [`Self::ground`] and `brick:Zone` here. What a passage
    /// about a kind of thing rather than a named one links to; `None`
    /// unless class names occur twice or one is a phrase of several words
    /// (a lone "floor" does not make a lunch menu a building document).
    pub fn classes_named(&self, text: &str) -> Option<Vec<String>> {
        let lex = &self.lexicon;
        let tokens = text::tokenize(text);
        let mut found: Vec<String> = Vec::new();
        let mut occurrences = 0;
        let mut phrase_of_words = false;
        let mut i = 0;
        while i < tokens.len() {
            let class = text::phrases_at(&tokens, i, lex.max_len)
                .find_map(|(end, k, _)| lex.link_phrases.get(&k).map(|c| (end, c)));
            match class {
                Some((end, c)) => {
                    push_unique(&mut found, c.clone());
                    occurrences += 1;
                    phrase_of_words |= end - i > 1;
                    i = end;
                }
                None => i += 1,
            }
        }
        (occurrences >= 2 || phrase_of_words).then_some(found)
    }

    /// The model numbers of the products whose mapping puts them in
    /// `class` or a subclass of it, with every one of `tags` (canonical
    /// Haystack tag names) among their own: "YTS-200" for a zone
    /// temperature sensor (`brick:Temperature_Sensor` with `zone temp
    /// sensor`), the name a manual gives the kind ("YTS-200 zone sensors. …
    /// replace the sensor"), and not for an outdoor one.
    pub fn models_of(&self, class: &str, tags: &[String], ontology: &Ontology) -> Vec<String> {
        let lex = &self.lexicon;
        lex.products
            .iter()
            .filter(|p| p.class.as_deref().is_some_and(|c| ontology.is_a(c, class)))
            .filter(|p| {
                tags.iter()
                    .all(|t| lex.marker(t).is_some_and(|m| p.tags.contains(&m)))
            })
            .map(|p| p.model.clone())
            .collect()
    }

    /// Every word of the lexicon's phrases (labels, names, aliases,
    /// markers), in the grounder's lower-case token form.
    pub fn words(&self) -> std::collections::HashSet<String> {
        self.lexicon
            .phrases
            .keys()
            .flat_map(|k| k.split(' '))
            .filter(|w| w.chars().all(char::is_alphabetic))
            .map(str::to_owned)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Grounding {
        Grounding {
            equipment_types: vec![
                EquipmentType {
                    haystack_kind: Some("coolingTower".into()),
                    brick_class: Some("Cooling_Tower".into()),
                    confidence: 0.9,
                    span: Default::default(),
                },
                EquipmentType {
                    haystack_kind: Some("coolingTower".into()),
                    brick_class: Some("Open_Cooling_Tower".into()),
                    confidence: 0.8,
                    span: Default::default(),
                },
            ],
            point_types: vec![PointType {
                haystack_tags: vec!["discharge".into(), "air".into(), "temp".into()],
                brick_class: None,
                confidence: 0.6,
                span: Default::default(),
            }],
            raw_tags: vec!["air".into(), "coolingtower".into()],
            entities: vec![
                Entity {
                    iri: vocab::brick("Cooling_Tower"),
                    label: "Cooling Tower".into(),
                    kind: EntityKind::Class,
                    class: Some("Cooling_Tower".into()),
                    confidence: 0.85,
                    matched: "cooling tower".into(),
                    span: Default::default(),
                },
                Entity {
                    iri: format!("{}YCT-6000", vocab::YK),
                    label: "YCT-6000".into(),
                    kind: EntityKind::Product,
                    class: None,
                    confidence: 0.95,
                    matched: "YCT-6000".into(),
                    span: Default::default(),
                },
                Entity {
                    iri: "https://example.com/b#CT-1".into(),
                    label: "CT-1".into(),
                    kind: EntityKind::Instance,
                    class: None,
                    confidence: 0.95,
                    matched: "ct-1".into(),
                    span: Default::default(),
                },
            ],
            unresolved: Vec::new(),
            gconf: 0.8,
            ..Grounding::default()
        }
    }

    #[test]
    fn links_put_instances_then_products_then_classes() {
        let links = sample().links();
        assert_eq!(
            links,
            vec![
                "https://example.com/b#CT-1".to_owned(),
                format!("{}YCT-6000", vocab::YK),
                vocab::brick("Cooling_Tower"),
                vocab::brick("Open_Cooling_Tower"),
            ]
        );
    }

    #[test]
    fn payload_fields_follow_the_chunk_contract() {
        let f = sample().payload_fields();
        assert_eq!(f.equip, vec!["coolingtower".to_owned()]);
        assert_eq!(f.brick_equip, vec!["Cooling_Tower", "Open_Cooling_Tower"]);
        assert_eq!(f.ptags, vec!["discharge air temp".to_owned()]);
        assert_eq!(f.raw, vec!["air", "coolingtower"]);
        let empty = Grounding::default().payload_fields();
        assert_eq!(empty, PayloadFields::default());
        let v = serde_json::to_value(&empty).unwrap_or_default();
        assert_eq!(v["equip"], serde_json::json!([]));
        assert_eq!(v["gconf"], serde_json::json!(0.0));
    }

    #[test]
    fn grounding_serialises_the_v1_shape_and_reads_partial_input() {
        let v = serde_json::to_value(Grounding::default()).unwrap_or_default();
        assert_eq!(v["schema"], "grounding.v1");
        assert_eq!(v["raw_tags"], serde_json::json!([]));
        let partial: Grounding = serde_json::from_str(
            r#"{"schema":"grounding.v1","equipment_types":[{"haystack_kind":"vav","confidence":0.9}],"extra":1}"#,
        )
        .unwrap_or_default();
        assert_eq!(partial.equipment_types.len(), 1);
        assert!(partial.point_types.is_empty());
    }
}
