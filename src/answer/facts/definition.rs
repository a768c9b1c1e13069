//! Definition facts: what a Brick class is (its `skos:definition`, parents
//! and equivalents; whether two classes are the same, whether one is a
//! kind of the other), what a node is
//! typed, what an abbreviation (`dq:Alias`) stands for, and which Haystack
//! tags a node carries or a marker maps to.

use super::{GraphContext, dq, local};
use crate::answer::Fact;
use crate::answer::intent::{ClassAsk, class_mentions};
use crate::ground::EntityKind;
use crate::store::{SolutionExt, StoreResult};
use crate::vocab::{self, PREFIXES};

const SKOS_DEFINITION: &str = "http://www.w3.org/2004/02/skos/core#definition";
const RDFS_COMMENT: &str = "http://www.w3.org/2000/01/rdf-schema#comment";
const RDFS_SUBCLASS: &str = "http://www.w3.org/2000/01/rdf-schema#subClassOf";
const OWL_EQUIVALENT: &str = "http://www.w3.org/2002/07/owl#equivalentClass";

/// Appends ` {s}` to `text` as a sentence: with a full stop.
fn sentence(text: &mut String, s: &str) {
    text.push(' ');
    text.push_str(s.trim());
    if !text.ends_with('.') {
        text.push('.');
    }
}

/// The local names of `iris`, joined by commas.
fn locals(iris: &[String]) -> String {
    iris.iter().map(|p| local(p)).collect::<Vec<_>>().join(", ")
}

impl GraphContext<'_> {
    /// Brick classes whose label is two or three consecutive words of the
    /// question ("hvac zone"), longest first.
    async fn classes_named_in_question(&mut self) -> StoreResult<Vec<String>> {
        let q = self.question;
        let ws = &q.words;
        let mut grams: Vec<String> = Vec::new();
        for n in [3, 2] {
            for w in ws.windows(n) {
                grams.push(crate::store::escape_literal(&w.join(" ")));
            }
        }
        if grams.is_empty() {
            return Ok(Vec::new());
        }
        let values: String = grams.iter().map(|g| format!(" \"{g}\"")).collect();
        let rows = self
            .run(format!(
                "{PREFIXES}SELECT DISTINCT ?c WHERE {{ VALUES ?l {{{values} }} \
                 ?c a owl:Class ; rdfs:label ?label . \
                 FILTER(STRSTARTS(STR(?c), \"{}\") && LCASE(STR(?label)) = ?l) }} ORDER BY ?c",
                vocab::BRICK
            ))
            .await?;
        Ok(rows.iter().map(|r| r.string("c")).collect())
    }

    fn definition_text(&self, class: &str) -> Option<String> {
        let card = self.card(class);
        card.first(SKOS_DEFINITION)
            .or_else(|| card.first(RDFS_COMMENT))
            .map(|d| d.trim().to_owned())
    }

    async fn define_class(
        &mut self,
        class: &str,
        out: &mut Vec<Fact>,
        about: Option<&str>,
    ) -> StoreResult<()> {
        self.load(&[class.to_owned()]).await?;
        let card = self.card(class);
        let parents: Vec<String> = card
            .iris(RDFS_SUBCLASS)
            .into_iter()
            .filter(|p| p.starts_with(vocab::BRICK) && p != class)
            .collect();
        let equivalents = card.iris(OWL_EQUIVALENT);
        let name = self.label(class);
        let mut text = match about {
            Some(a) => format!("{} is a {name} ({}).", self.label(a), local(class)),
            None => format!("{name} ({}).", local(class)),
        };
        if let Some(d) = self.definition_text(class) {
            sentence(&mut text, &format!("Brick defines it as: {d}"));
        }
        if !parents.is_empty() {
            text.push_str(&format!(
                " Parent class: {}.",
                parents
                    .iter()
                    .map(|p| format!("{} ({})", self.label(p), local(p)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        // Deprecated in this Brick version (the ontology's owl:deprecated):
        // say so, with Brick's message and replacement.
        let replaced_by = card.iris(&vocab::brick("isReplacedBy"));
        if self.view.onto.class(class).is_some_and(|c| c.deprecated) {
            text.push_str(" Deprecated in this Brick version (owl:deprecated)");
            if let Some(v) = card.first(&vocab::brick("deprecatedInVersion")) {
                text.push_str(&format!(" since {}", v.trim()));
            }
            text.push('.');
            if let Some(m) = card.first(&vocab::brick("deprecationMitigationMessage")) {
                sentence(&mut text, m);
            }
            if replaced_by.is_empty() {
                text.push_str(" Brick names no replacement class.");
            } else {
                text.push_str(&format!(" Replaced by: {}.", locals(&replaced_by)));
            }
        }
        if !equivalents.is_empty() {
            text.push_str(&format!(" Equivalent class: {}.", locals(&equivalents)));
        }
        let mut ids = parents;
        ids.extend(equivalents);
        ids.extend(replaced_by);
        if let Some(a) = about {
            ids.push(a.to_owned());
        }
        out.extend(self.fact(text, class, ids));
        Ok(())
    }

    /// The classes a definition question is about: those named, else the
    /// classes its equipment and point words ground to, else Brick labels
    /// written out (deprecated classes such as HVAC_Zone, which the
    /// grounder leaves out, keep their definitions).
    async fn classes_asked(&mut self, subjects: &[String]) -> StoreResult<Vec<String>> {
        let q = self.question;
        let g = &q.grounding;
        let root = vocab::brick("Class");
        let mut classes: Vec<String> = g
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Class && e.iri != root)
            .map(|e| e.iri.clone())
            .collect();
        if classes.is_empty() && subjects.is_empty() {
            for c in g
                .equipment_types
                .iter()
                .filter_map(|t| t.brick_class.as_deref())
                .chain(
                    g.point_types
                        .iter()
                        .filter_map(|p| p.brick_class.as_deref()),
                )
                .filter(|c| !c.contains(':'))
            {
                let iri = vocab::brick(c);
                if !classes.contains(&iri) {
                    classes.push(iri);
                }
            }
        }
        if classes.is_empty() && subjects.is_empty() {
            classes = self.classes_named_in_question().await?;
        }
        Ok(classes)
    }

    pub(super) async fn definition(
        &mut self,
        subjects: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        let classes = self.classes_asked(subjects).await?;
        // A yes/no question about two classes is answered yes or no first.
        let asked = self.question.reading.classes_asked;
        if let Some(ask) = asked
            && let [a, b, ..] = class_mentions(&self.question.grounding).as_slice()
        {
            self.load(&[a.clone(), b.clone()]).await?;
            let (yes, fact) = match ask {
                ClassAsk::Same => (self.same(a, b), self.same_class(a, b)),
                ClassAsk::KindOf => (self.view.onto.is_a(a, b), self.kind_of(a, b)),
            };
            self.says_yes_or_no(a, b, yes, fact, out);
        }
        for s in subjects {
            let types = self.view.specific_types(s);
            let text = format!(
                "{} is typed {} in the building model.",
                self.label(s),
                types
                    .iter()
                    .map(|t| local(t).to_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            out.extend(self.fact(text, s, types.clone()));
            for t in types {
                if !classes.contains(&t) {
                    self.define_class(&t, out, Some(s)).await?;
                }
            }
        }
        for c in &classes {
            let about = subjects
                .iter()
                .find(|s| self.view.topo.types(s).contains(c))
                .cloned();
            self.define_class(c, out, about.as_deref()).await?;
        }
        if let [a, b, ..] = classes.as_slice()
            && asked.is_none()
        {
            let fact = self.same_class(a, b);
            self.says_yes_or_no(a, b, self.same(a, b), fact, out);
        }
        self.aliases_and_markers(subjects, out, true).await
    }

    /// Whether two classes are the same (equivalent, or subclasses of each
    /// other), and if not how they relate.
    fn same_class(&self, a: &str, b: &str) -> Option<Fact> {
        let onto = self.view.onto;
        let same = self.same(a, b);
        let text = if a == b {
            format!("Yes: both name one class, {}.", local(a))
        } else if same {
            format!(
                "Yes: {} and {} are the same class (owl:equivalentClass).",
                local(a),
                local(b)
            )
        } else if onto.is_a(a, b) {
            format!(
                "No: {} is a subclass of {}, not the same class.",
                local(a),
                local(b)
            )
        } else if onto.is_a(b, a) {
            format!(
                "No: {} is a subclass of {}, not the same class.",
                local(b),
                local(a)
            )
        } else {
            format!("No: {} and {} are different classes.", local(a), local(b))
        };
        self.fact(text, a, vec![b.to_owned()])
    }

    /// Whether the loaded classes `a` and `b` are one class: the same IRI,
    /// subclasses of each other, or stated equivalent
    /// (`owl:equivalentClass`, either way).
    fn same(&self, a: &str, b: &str) -> bool {
        let onto = self.view.onto;
        a == b
            || (onto.is_a(a, b) && onto.is_a(b, a))
            || self.card(a).iris(OWL_EQUIVALENT).iter().any(|x| x == b)
            || self.card(b).iris(OWL_EQUIVALENT).iter().any(|x| x == a)
    }

    /// Adds `fact`, the yes (`yes`) or no about classes `a` and `b`, and
    /// keeps it as the graph's result for the trace, as a composed ASK
    /// would give it.
    fn says_yes_or_no(
        &mut self,
        a: &str,
        b: &str,
        yes: bool,
        fact: Option<Fact>,
        out: &mut Vec<Fact>,
    ) {
        if fact.is_some() {
            self.answer = Some(crate::answer::GraphAnswer {
                kind: "boolean".into(),
                items: vec![a.to_owned(), b.to_owned()],
                boolean: Some(yes),
                ..Default::default()
            });
        }
        out.extend(fact);
    }

    /// Whether class `a` is a kind of class `b` (one of its subclasses,
    /// through any chain, or the same class), and if not how they relate.
    fn kind_of(&self, a: &str, b: &str) -> Option<Fact> {
        let onto = self.view.onto;
        let chain = |from: &str, to: &str| {
            let mut up: Vec<String> = onto.path_from(to, from).unwrap_or_default();
            up.reverse();
            std::iter::once(from)
                .chain(up.iter().map(String::as_str))
                .map(local)
                .collect::<Vec<_>>()
                .join(" → ")
        };
        let text = if a == b {
            format!("Yes: both name one class, {}.", local(a))
        } else if self.same(a, b) {
            format!("Yes: {} and {} are the same class.", local(a), local(b))
        } else if onto.is_a(a, b) {
            format!(
                "Yes: {} is a kind of {} ({}).",
                local(a),
                local(b),
                chain(a, b)
            )
        } else if onto.is_a(b, a) {
            format!(
                "No: it is the other way: {} is a kind of {} ({}).",
                local(b),
                local(a),
                chain(b, a)
            )
        } else {
            let parents: Vec<&str> = onto
                .class(a)
                .map(|c| c.parents.iter().map(|p| local(p)).collect())
                .unwrap_or_default();
            format!(
                "No: {} is not a kind of {}{}.",
                local(a),
                local(b),
                if parents.is_empty() {
                    String::new()
                } else {
                    format!("; its parent classes: {}", parents.join(", "))
                }
            )
        };
        self.fact(text, a, vec![b.to_owned()])
    }

    async fn aliases_and_markers(
        &mut self,
        subjects: &[String],
        out: &mut Vec<Fact>,
        define: bool,
    ) -> StoreResult<()> {
        // Abbreviations written in the question.
        let rows = self
            .run(format!(
                "{PREFIXES}SELECT ?a ?t WHERE {{ ?a a dq:Alias ; dq:aliasText ?t }} ORDER BY ?a ?t"
            ))
            .await?;
        let q = self.question;
        let text_words = &q.words;
        let mut aliases = Vec::new();
        for r in rows {
            let t = r.string("t").to_lowercase();
            if text_words.contains(&t) {
                aliases.push(r.string("a"));
            }
        }
        self.load(&aliases).await?;
        for a in &aliases {
            let card = self.card(a);
            let mut text = format!(
                "{}: {}",
                card.first(vocab::RDFS_LABEL).unwrap_or(local(a)),
                card.first(RDFS_COMMENT).unwrap_or_default().trim()
            );
            let class = card.iris(&dq("brickClass"));
            let tags: Vec<String> = card
                .iris(&dq("aliasFor"))
                .iter()
                .map(|t| local(t).to_owned())
                .collect();
            if !tags.is_empty() {
                text.push_str(&format!(" Haystack tags: {}.", tags.join(" ")));
            }
            if !class.is_empty() {
                text.push_str(&format!(" Brick class: {}.", self.names(&class).join(", ")));
            }
            out.extend(self.fact(text, a, class));
        }
        if !subjects.is_empty() {
            return Ok(());
        }
        // Markers named outright ("the ahu marker", "heatPump"),
        // in the order the question names them (the marker table is a map).
        let q = self.question;
        let g = &q.grounding;
        let position = |n: &str| text_words.iter().position(|w| *w == n.to_lowercase());
        let mut names: Vec<(String, String)> = self
            .view
            .onto
            .markers()
            .filter(|(n, _)| position(n).is_some())
            .filter(|(n, _)| g.raw_tags.iter().any(|t| t.eq_ignore_ascii_case(n)) || n.len() > 3)
            .map(|(n, i)| (n.clone(), i.clone()))
            .collect();
        names.sort_by_key(|(n, _)| (position(n), n.clone()));
        let iris: Vec<String> = names.iter().map(|(_, i)| i.clone()).collect();
        self.load(&iris).await?;
        for (n, iri) in names {
            let card = self.card(&iri);
            let class = card.iris(&dq("brickClass"));
            let comment = card
                .first(RDFS_COMMENT)
                .map(|c| c.trim().replace('\n', " "));
            let mut text = format!("The Haystack {n} tag");
            let bare = text.clone();
            if (define || class.is_empty())
                && let Some(c) = &comment
            {
                text.push_str(&format!(" means: {c}"));
                if !text.ends_with('.') {
                    text.push('.');
                }
            }
            if !class.is_empty() {
                text.push_str(&format!(
                    " It maps to Brick class {}.",
                    self.names(&class).join(", ")
                ));
            }
            if text == bare {
                continue;
            }
            out.extend(self.fact(text, &iri, class));
        }
        Ok(())
    }

    pub(super) async fn tags(
        &mut self,
        subjects: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        for s in subjects {
            self.load(std::slice::from_ref(s)).await?;
            let tags = self.tag_names(s);
            if tags.is_empty() {
                continue;
            }
            let text = format!(
                "{} carries the Haystack tags: {}.",
                self.label(s),
                tags.join(", ")
            );
            out.extend(self.fact(text, s, Vec::new()));
        }
        if subjects.is_empty() {
            self.aliases_and_markers(subjects, out, false).await?;
        }
        Ok(())
    }
}
