//! Haystack markers → Brick class, for tag combinations met at grounding time.
//!
//! This is the rule of [`Ontology::infer_class`] (the class whose whole
//! `brick:hasAssociatedTag` set the markers supply, the largest such set
//! winning, the more specific class on ties) over a compact snapshot: the
//! grounder answers without I/O and without holding the ontology index,
//! which the application state swaps on refresh.

use super::lexicon::Marker;
use crate::ontology::Ontology;
use crate::store::{GraphStore, SolutionExt, StoreResult, select};
use crate::vocab::{self, BRICK, PREFIXES};
use std::collections::{HashMap, HashSet};

#[derive(Debug, Default)]
struct Candidate {
    iri: String,
    tags: Vec<u16>,
    depth: u32,
}

/// Brick classes with their tag sets, and the Haystack ↔ Brick tag maps.
#[derive(Debug, Default)]
pub(crate) struct Inferrer {
    tag_ids: HashMap<String, u16>,
    marker_tags: Vec<Vec<u16>>,
    classes: Vec<Candidate>,
    depth: HashMap<String, u32>,
    within: HashMap<String, HashSet<usize>>,
    tag_marker: HashMap<String, usize>,
}

/// Longest `rdfs:subClassOf` chain above a class.
fn depth_of(ontology: &Ontology, class: &str, memo: &mut HashMap<String, u32>, guard: u32) -> u32 {
    if let Some(&d) = memo.get(class) {
        return d;
    }
    if guard > 64 {
        return 0;
    }
    let parents: Vec<String> = ontology
        .class(class)
        .map(|i| i.parents.iter().cloned().collect())
        .unwrap_or_default();
    let d = parents
        .iter()
        .map(|p| depth_of(ontology, p, memo, guard + 1) + 1)
        .max()
        .unwrap_or(0);
    memo.insert(class.to_owned(), d);
    d
}

impl Inferrer {
    /// Snapshots the Brick classes that carry tags (aliases and deprecated
    /// classes left out) and the tags of each marker.
    pub(crate) async fn load(
        store: &dyn GraphStore,
        ontology: &Ontology,
        markers: &[Marker],
        aliases_of: &HashMap<String, String>,
    ) -> StoreResult<Self> {
        let rows = select(
            store,
            format!(
                "{PREFIXES}SELECT DISTINCT ?c WHERE {{
                   ?c brick:hasAssociatedTag ?t . FILTER(STRSTARTS(STR(?c), \"{BRICK}\"))
                 }} ORDER BY ?c"
            ),
        )
        .await?;
        let mut inf = Self::default();
        let mut memo = HashMap::new();
        for row in &rows {
            let Some(c) = row.str("c") else { continue };
            let Some(info) = ontology.class(c) else {
                continue;
            };
            if aliases_of.contains_key(c) || info.deprecated || info.tags.is_empty() {
                continue;
            }
            let tags = info.tags.iter().map(|t| inf.intern(t)).collect();
            let depth = depth_of(ontology, c, &mut memo, 0);
            inf.classes.push(Candidate {
                iri: c.to_owned(),
                tags,
                depth,
            });
        }
        inf.marker_tags = markers
            .iter()
            .map(|m| {
                ontology
                    .brick_tags_for(&m.name)
                    .iter()
                    .map(|t| inf.intern(t))
                    .collect()
            })
            .collect();
        for m in markers {
            if let Some(k) = &m.kind_class {
                depth_of(ontology, k, &mut memo, 0);
                if !inf.within.contains_key(k) {
                    let members = (0..inf.classes.len())
                        .filter(|&i| ontology.is_a(&inf.classes[i].iri, k))
                        .collect();
                    inf.within.insert(k.clone(), members);
                }
            }
        }
        inf.depth = memo;
        // Each Brick tag's word names the marker that stands for it: a
        // Haystack def before an extension marker, then the narrowest
        // ("temperature" → temp, "setpoint" → sp, "static" → pressure).
        let rank = |i: usize, n: usize| (!markers[i].haystack_def, n, markers[i].name.len());
        let mut best: HashMap<String, (usize, usize)> = HashMap::new();
        for (i, m) in markers.iter().enumerate() {
            if m.canonical != i {
                continue;
            }
            let tags = ontology.brick_tags_for(&m.name);
            for t in &tags {
                let better = best.get(t).is_none_or(|&(n, j)| {
                    (rank(i, tags.len()), &markers[i].name) < (rank(j, n), &markers[j].name)
                });
                if better {
                    best.insert(t.clone(), (tags.len(), i));
                }
            }
        }
        inf.tag_marker = best.into_iter().map(|(t, (_, m))| (t, m)).collect();
        Ok(inf)
    }

    fn intern(&mut self, tag: &str) -> u16 {
        let next = u16::try_from(self.tag_ids.len()).unwrap_or(u16::MAX);
        *self.tag_ids.entry(tag.to_owned()).or_insert(next)
    }

    /// Depth of a class in the hierarchy (0 when unknown).
    pub(crate) fn depth(&self, class: &str) -> u32 {
        self.depth.get(class).copied().unwrap_or(0)
    }

    /// The marker standing for a Brick tag IRI.
    pub(crate) fn marker_for_tag(&self, tag: &str) -> Option<usize> {
        self.tag_marker.get(tag).copied()
    }

    /// Brick tag words that name a marker narrowly (the marker stands for at
    /// most two Brick tags), as (word, marker).
    pub(crate) fn tag_words(&self) -> Vec<(String, usize)> {
        self.tag_marker
            .iter()
            .filter_map(|(tag, &m)| {
                let word = tag.strip_prefix(vocab::TAG)?;
                let narrow = self.marker_tags.get(m).is_some_and(|t| t.len() <= 2);
                narrow.then(|| (word.replace('_', " "), m))
            })
            .collect()
    }

    /// The most specific Brick class whose whole tag set `markers` (plus
    /// `extra` Brick tag IRIs) supply, restricted to subclasses of `within`;
    /// with the number of tags it matched.
    pub(crate) fn infer(
        &self,
        markers: &[usize],
        extra: &[String],
        within: Option<&str>,
    ) -> Option<(String, usize)> {
        let mut tags: HashSet<u16> = markers
            .iter()
            .filter_map(|&m| self.marker_tags.get(m))
            .flatten()
            .copied()
            .collect();
        tags.extend(extra.iter().filter_map(|t| self.tag_ids.get(t)));
        let allowed = within.and_then(|k| self.within.get(k));
        let mut best: Option<&Candidate> = None;
        for (i, c) in self.classes.iter().enumerate() {
            if allowed.is_some_and(|a| !a.contains(&i)) || !c.tags.iter().all(|t| tags.contains(t))
            {
                continue;
            }
            let better = best.is_none_or(|b| {
                (c.tags.len(), c.depth, std::cmp::Reverse(&c.iri))
                    > (b.tags.len(), b.depth, std::cmp::Reverse(&b.iri))
            });
            if better {
                best = Some(c);
            }
        }
        best.map(|c| (c.iri.clone(), c.tags.len()))
    }

    /// The most general Brick class whose tag set holds every tag of
    /// `markers` (plus `extra`): text names a point loosely ("zone occupied
    /// heating setpoint"), the class spells out what it leaves implicit
    /// (air, temperature). Fewest tags win, then the shallower class, then
    /// a sensor before any other point function, then the IRI. `None` when
    /// no class holds them all or `markers` is empty.
    pub(crate) fn covering(&self, markers: &[usize], extra: &[String]) -> Option<String> {
        // A marker may stand for several Brick tags (heating → Heat,
        // Heating); one of them in the class is enough.
        let wanted: Vec<&Vec<u16>> = markers
            .iter()
            .filter_map(|&m| self.marker_tags.get(m))
            .filter(|t| !t.is_empty())
            .collect();
        if wanted.is_empty() {
            return None;
        }
        let extra: Vec<u16> = extra
            .iter()
            .filter_map(|t| self.tag_ids.get(t).copied())
            .collect();
        let sensor = self.tag_ids.get(&entity_tag("Sensor")).copied();
        self.classes
            .iter()
            .filter(|c| {
                wanted
                    .iter()
                    .all(|alts| alts.iter().any(|t| c.tags.contains(t)))
                    && extra.iter().all(|t| c.tags.contains(t))
            })
            // Of equally general classes, the measurement: "the supply air
            // temp point" is the sensor before the alarm or the setpoint.
            .min_by_key(|c| {
                let measured = sensor.is_some_and(|t| c.tags.contains(&t));
                (c.tags.len(), !measured, c.depth, &c.iri)
            })
            .map(|c| c.iri.clone())
    }
}

/// `tag:Point` and `tag:Equipment`, added so inference lands on a point or
/// an equipment class.
pub(crate) fn entity_tag(local: &str) -> String {
    format!("{}{local}", vocab::TAG)
}
