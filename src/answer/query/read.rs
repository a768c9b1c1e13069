//! From a question to a [`Plan`]: the parts the grounder found (named
//! nodes, classes, point types, each where the text names it), the cue
//! words that compose them (`ontology/core/cues.ttl`), and this building's
//! own data (which relations its nodes actually have) choose the query.
//!
//! The rules, in order:
//! 1. two named nodes asked yes/no → whether one feeds (or contains, or
//!    holds) the other; "X fed by Y", "X on Y" put Y first;
//! 2. one named node asked yes/no with classes → whether it has parts or
//!    points of every class named (conjunction);
//! 3. a class after "per"/"each"/"by" → a count of the other class per
//!    node of that class, over the relation the data has between them;
//! 4. one named node → what stands in the asked relation to it: feeds
//!    (direction from the wording), parts, points, location, or, with no
//!    relation word, the relation the data has between the node and the
//!    class asked for; a unit of a point; counted when asked "how many";
//! 5. no named node, a class → its instances, narrowed by what they have,
//!    lack ("without", "no"), are fed by, or have more/fewer than N of.
//!
//! A relation asked of no node → none; a class asked of the data that has
//! no edge of the relation at all → unsupported (the engine abstains and
//! says what it understood).

use super::plan::{Block, Having, Link, Plan, Reach, Rel, Shape, Slot};
use crate::answer::question::Question;
use crate::answer::view::GraphView;
use crate::ground::{EntityKind, Span};
use crate::text::{Cue, Cues};
use crate::topology::Rel as TopoRel;
use crate::vocab;

/// What the engine makes of a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// A composed query.
    Plan(Box<Plan>),
    /// A graph question this building's data cannot answer: what was
    /// understood, and why it cannot be answered.
    Unsupported {
        /// What the question asks, as understood.
        understood: String,
        /// What the data lacks.
        why: String,
    },
    /// Not a question the engine composes (definitions, documents …).
    NotGraph,
    /// A question with words the engine does not account for.
    Unread {
        /// The words.
        words: Vec<String>,
        /// Those of them said of a named node or kind ("the condenser of
        /// ch-2").
        said_of: Vec<String>,
    },
}

/// A word of the question with its byte span.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    span: Span,
}

fn words_of(lower: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut text = String::new();
    let chars: Vec<(usize, char)> = lower.char_indices().collect();
    let mut skip = false;
    for (n, &(i, c)) in chars.iter().enumerate() {
        if std::mem::take(&mut skip) {
            continue;
        }
        // "ahu 2's coil": the possessive is not part of the word.
        let possessive = (c == '\'' || c == '\u{2019}')
            && chars.get(n + 1).is_some_and(|&(_, s)| s == 's')
            && !chars.get(n + 2).is_some_and(|&(_, c)| c.is_alphanumeric());
        if possessive {
            if let Some(s) = start.take() {
                out.push(Word {
                    text: std::mem::take(&mut text),
                    span: Span { start: s, end: i },
                });
            }
            skip = true;
            continue;
        }
        if c.is_alphanumeric() {
            if start.is_none() {
                start = Some(i);
            }
            text.push(c);
        } else if c == '\'' || c == '\u{2019}' {
            // "don't" is one word
        } else {
            if let Some(s) = start.take() {
                out.push(Word {
                    text: std::mem::take(&mut text),
                    span: Span { start: s, end: i },
                });
            }
            if matches!(c, '>' | '<' | '#') {
                out.push(Word {
                    text: c.to_string(),
                    span: Span {
                        start: i,
                        end: i + c.len_utf8(),
                    },
                });
            }
        }
    }
    if let Some(s) = start {
        out.push(Word {
            text,
            span: Span {
                start: s,
                end: lower.len(),
            },
        });
    }
    out
}

/// Words that ask for a kind ("what kind of ...", "what type of ..."),
/// for one node's kind and for the kinds of what is listed alike.
const KIND_WORDS: [&str; 3] = ["kind", "type", "sort"];

/// English number words (general English, like the cue words).
const NUMBER_WORDS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

fn number(word: &str) -> Option<u64> {
    word.parse().ok().or_else(|| {
        NUMBER_WORDS
            .iter()
            .position(|w| *w == word)
            .map(|n| n as u64)
    })
}

/// A class named in the question.
#[derive(Debug, Clone)]
struct ClassMention {
    iri: String,
    span: Span,
    /// Under `brick:Point`.
    point: bool,
    /// Under `brick:Location`.
    location: bool,
    /// Said with a generic word ("points", "equipment"): no narrowing.
    generic: bool,
}

/// A named node in the question.
#[derive(Debug, Clone)]
struct NodeMention {
    iri: String,
    span: Span,
}

/// The question's parts, in text order.
struct Parts<'a> {
    view: GraphView<'a>,
    cues: &'a Cues,
    lower: &'a str,
    words: Vec<Word>,
    nodes: Vec<NodeMention>,
    classes: Vec<ClassMention>,
    /// Text of names this reading resolved beyond the grounder.
    resolved: Vec<String>,
    /// Named nodes replaced by one of their parts or points.
    context: Vec<String>,
    /// A class and a number that name no one node ("floor 4").
    unknown: Vec<String>,
    /// A point type was inferred loosely ([`LOOSE`]).
    loose: bool,
    /// A point word said of an equipment class ("reheat valve point"):
    /// which point of it is meant is not read.
    unsure: bool,
    /// Words a rule accounted for beyond the nodes and classes: a kind
    /// narrowed by a word of its subclass's label ("reheat"), a word of a
    /// named node's name said beside it, a whole-building scope.
    explained: Vec<Span>,
    /// Where the grounder found kinds, before any rule dropped one: a
    /// relation word inside one ("supply" of "supply fan") is no relation.
    kind_spans: Vec<Span>,
    /// Words inside a kind's span that the kind does not read
    /// ([`Parts::modifiers_unread`]): "reheat" of "the reheat coils",
    /// grounded as any coil.
    unread_modifiers: Vec<Span>,
    /// The named node a word of stopping is said of, in a question that
    /// asks what is lost with it ([`Parts::stopped_node`]).
    stopped: Option<String>,
}

/// A point type grounded below this confidence was inferred loosely from
/// its words ("discharge air temp" without "sensor"): an empty result of a
/// query over it is not trusted.
const LOOSE: f64 = 0.8;

/// A class with at least this many subclasses is a generic word.
const GENERIC_KINDS: usize = 150;

impl<'a> Parts<'a> {
    fn new(q: &'a Question, cues: &'a Cues, view: GraphView<'a>) -> Self {
        let words = words_of(&q.lower);
        let nodes: Vec<NodeMention> = q
            .grounding
            .entities
            .iter()
            .filter(|e| e.kind == EntityKind::Instance)
            .map(|e| NodeMention {
                iri: e.iri.clone(),
                span: e.span,
            })
            .collect();
        let mut p = Self {
            view,
            cues,
            lower: &q.lower,
            words,
            nodes,
            classes: Vec::new(),
            resolved: Vec::new(),
            context: Vec::new(),
            unknown: Vec::new(),
            loose: false,
            unsure: false,
            explained: Vec::new(),
            kind_spans: Vec::new(),
            unread_modifiers: Vec::new(),
            stopped: None,
        };
        // "will conf rm a-302 lose air? the service log has vav 3-02 on
        // ahu-1": a statement after the question that says something of
        // named nodes is what the asker was told, not what is asked. Its
        // nodes are no part of the reading; the conflict scan reads it
        // with the documents. Words after the question that name nothing
        // ("trace the chw path", "room + floor") or only a name ("… it?
        // vav 2-14") are still the question's.
        let told = q
            .lower
            .rfind('?')
            .map(|at| Span {
                start: at + 1,
                end: q.lower.len(),
            })
            .filter(|tail| {
                let named: Vec<Span> = p
                    .nodes
                    .iter()
                    .map(|n| n.span)
                    .filter(|s| tail.covers(*s))
                    .collect();
                let said = p
                    .words
                    .iter()
                    .any(|w| tail.covers(w.span) && !named.iter().any(|s| s.covers(w.span)));
                !named.is_empty() && said
            });
        if let Some(told) = told {
            p.explained.push(told);
        }
        let g = &q.grounding;
        p.unread_modifiers = p.modifiers_unread(g);
        let mut found: Vec<(String, Span)> = Vec::new();
        for t in &g.equipment_types {
            if let Some(c) = &t.brick_class {
                found.push((vocab::class_iri(c), t.span));
            }
        }
        for t in &g.point_types {
            if let Some(c) = &t.brick_class {
                found.push((vocab::class_iri(c), t.span));
                p.loose |= t.confidence < LOOSE;
            }
        }
        for e in g.entities.iter().filter(|e| e.kind == EntityKind::Class) {
            found.push((e.iri.clone(), e.span));
        }
        found.retain(|(_, s)| told.is_none_or(|t| !t.covers(*s)));
        p.kind_spans = found.iter().map(|(_, s)| *s).collect();
        for (iri, span) in found {
            if p.nodes.iter().any(|n| n.span.covers(span)) {
                continue;
            }
            p.add_class(iri, span, false);
        }
        // Generic words: "points", "sensors", "equipment".
        let generic: Vec<(String, Span)> = p
            .words
            .iter()
            .filter_map(|w| {
                let class = if p.cues.is(Cue::Points, &w.text) {
                    if w.text.starts_with("sensor") {
                        "Sensor"
                    } else {
                        "Point"
                    }
                } else if p.cues.is(Cue::Contents, &w.text) {
                    "Equipment"
                } else {
                    return None;
                };
                Some((vocab::brick(class), w.span))
            })
            .collect();
        for (iri, span) in generic {
            // "reheat valve point": the word only says what the class is.
            let said_of = p.classes.iter().find(|c| {
                c.span.end <= span.start && p.lower[c.span.end..span.start].trim().is_empty()
            });
            if said_of.is_some_and(|c| !c.point) && iri != vocab::brick("Equipment") {
                p.unsure = true;
            }
            let said_of_class = said_of.is_some();
            let covered = said_of_class
                || p.classes
                    .iter()
                    .any(|c| c.span.covers(span) || span.covers(c.span))
                || p.nodes.iter().any(|n| n.span.covers(span));
            if !covered {
                p.add_class(iri, span, true);
            }
        }
        p.classes.sort_by_key(|c| c.span.start);
        p.partial_names();
        p.classes_by_label();
        p.class_then_number();
        p.class_with_name_words();
        p.the_only_one();
        p.part_of_node();
        p.restatements();
        p.explained.extend(q.restated.iter().copied());
        p.name_words();
        p.subclass_words();
        p.scope();
        if let Some(told) = told {
            p.nodes.retain(|n| !told.covers(n.span));
            p.classes.retain(|c| !told.covers(c.span));
        }
        p.stopped = p.stopped_node();
        p
    }

    /// "if we shut down AHU-2, which rooms lose air", "will room A-302
    /// lose air if AHU-1 trips", "what is affected when CH-1 fails": a
    /// word of stopping (dq:cue_outage) and a word of loss (dq:cue_loss),
    /// neither inside a name or kind, ask what loses its supply when a
    /// named node stops: the node the nearest word of stopping is said of.
    /// Both words, and what is lost after the word of loss ("lose chilled
    /// water", dq:cue_lost), are then read. A word of stopping alone asks
    /// something else ("what do the boxes do when AHU-1 shuts down" asks
    /// the sequence) and is left unread.
    fn stopped_node(&mut self) -> Option<String> {
        // "how long can the rooms go without air if AHU-2 trips", "why do
        // the rooms lose air when it stops": a time, a way or a reason is
        // asked, not what it feeds ("how many" is a count of it).
        let counts = self.cue_spans(Cue::CountPhrase);
        let manner = self.words.iter().any(|w| {
            self.cues.is(Cue::Reason, &w.text) && !counts.iter().any(|c| c.start == w.span.start)
        });
        if manner {
            return None;
        }
        let outside = |p: &Self, s: &Span| {
            !p.kind_spans.iter().any(|k| k.covers(*s)) && !p.nodes.iter().any(|n| n.span.covers(*s))
        };
        let stops: Vec<Span> = self
            .cue_spans(Cue::Outage)
            .into_iter()
            .filter(|s| outside(self, s))
            .collect();
        let losses: Vec<Span> = self
            .cue_spans(Cue::Loss)
            .into_iter()
            .filter(|s| outside(self, s))
            .collect();
        if stops.is_empty() || losses.is_empty() {
            return None;
        }
        let gap = |a: Span, b: Span| {
            if a.end <= b.start {
                b.start - a.end
            } else {
                a.start.saturating_sub(b.end)
            }
        };
        let node = self
            .nodes
            .iter()
            .min_by_key(|n| stops.iter().map(|s| gap(n.span, *s)).min())?
            .iri
            .clone();
        for loss in &losses {
            // "lose chilled water", "lose their cooling": what is lost.
            let after = self
                .words
                .iter()
                .skip_while(|w| w.span.start < loss.end)
                .take_while(|w| {
                    self.cues.is(Cue::Lost, &w.text) || self.cues.is(Cue::FunctionWord, &w.text)
                })
                .map(|w| w.span);
            let lost: Vec<Span> = after.collect();
            self.explained.extend(lost);
        }
        // "shut off for maintenance", "going down tonight": why or when.
        // "for a filter change": what it is stopped for, from "for" to the
        // word of occasion, names no kind asked about.
        let occasion = self.cue_spans(Cue::Occasion);
        for o in &occasion {
            let before: Vec<&Word> = self
                .words
                .iter()
                .filter(|w| w.span.end <= o.start)
                .collect();
            let opening = before
                .iter()
                .rev()
                .take(4)
                .find(|w| w.text == "for")
                .map(|w| w.span.start);
            if let Some(start) = opening {
                let span = Span { start, end: o.end };
                self.classes.retain(|c| !span.covers(c.span));
                self.explained.push(span);
            }
        }
        self.explained.extend(occasion);
        self.explained.extend(stops);
        self.explained.extend(losses);
        Some(node)
    }

    /// A node the grounder did not find, named by the text at `span`:
    /// recorded as resolved and put among the nodes in text order.
    fn name_node(&mut self, iri: &str, span: Span) {
        self.resolved
            .push(self.lower[span.start..span.end].to_owned());
        self.nodes.push(NodeMention {
            iri: iri.to_owned(),
            span,
        });
        self.nodes.sort_by_key(|m| m.span.start);
    }

    /// Words no node, class, cue or earlier rule accounts for, with their
    /// positions in `words`.
    fn free_words(&self) -> Vec<usize> {
        (0..self.words.len())
            .filter(|&i| {
                let w = &self.words[i];
                !self.classes.iter().any(|c| c.span.covers(w.span))
                    && !self.nodes.iter().any(|n| n.span.covers(w.span))
                    && !self.explained.iter().any(|e| e.covers(w.span))
                    && number(&w.text).is_none()
                    && !Cue::question_cues().any(|c| self.cues.is(c, &w.text))
            })
            .collect()
    }

    /// "the core zone", "perimeter zone 3": words said right before a
    /// class (and a number after it) that are all in the name of exactly
    /// one node of that class name that node.
    fn class_with_name_words(&mut self) {
        let mut i = 0;
        while i < self.classes.len() {
            let c = self.classes[i].clone();
            let free = self.free_words();
            // The free words right before the class, nearest first.
            let mut before: Vec<usize> = Vec::new();
            let mut end = c.span.start;
            for &k in free.iter().rev() {
                let w = &self.words[k];
                if w.span.end <= end && self.lower[w.span.end..end].trim().is_empty() {
                    before.push(k);
                    end = w.span.start;
                }
            }
            if before.is_empty() || c.generic {
                i += 1;
                continue;
            }
            let after = self
                .words
                .iter()
                .find(|w| w.span.start >= c.span.end)
                .filter(|w| self.lower[c.span.end..w.span.start].trim().is_empty())
                .and_then(|w| number(&w.text).map(|n| (w.span, n)));
            let wanted: Vec<&str> = before
                .iter()
                .map(|&k| self.words[k].text.as_str())
                .collect();
            let topo = self.view.topo;
            let mut found: Vec<&str> = topo
                .nodes()
                .filter(|n| topo.types(n).iter().any(|t| self.view.onto.is_a(t, &c.iri)))
                .filter(|n| {
                    let name = name_of(self.view, n);
                    let tokens = name_tokens(&name);
                    wanted.iter().all(|w| tokens.iter().any(|t| t == w))
                        && after.is_none_or(|(_, num)| last_number(&name) == Some(num))
                })
                .collect();
            found.sort_unstable();
            if let [one] = found.as_slice() {
                let span = Span {
                    start: end,
                    end: after.map_or(c.span.end, |(s, _)| s.end),
                };
                self.name_node(one, span);
                self.classes.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// "the core zone AHU (Core_ZN-ZN-PSZ-AC-1-Unitary-HP)": a word in the
    /// name of a node the question names restates that name.
    fn name_words(&mut self) {
        // "rtu-1 ZoneTemp", "the supply fan of ahu-1": a node said right
        // before one of its points or parts, or after it with "of", only
        // says whose it is.
        let topo = self.view.topo;
        let owns = |a: &str, b: &str| {
            topo.out_of(a, TopoRel::HasPoint).iter().any(|n| n == b)
                || topo.parts(a).iter().any(|n| n == b)
        };
        let mut k = 0;
        while k + 1 < self.nodes.len() {
            let (a, b) = (&self.nodes[k], &self.nodes[k + 1]);
            let gap = if a.span.end <= b.span.start {
                self.lower[a.span.end..b.span.start].trim()
            } else {
                "-"
            };
            let owner = if gap.is_empty() && owns(&a.iri, &b.iri) {
                Some(k)
            } else if matches!(gap, "of" | "of the" | "on" | "on the") && owns(&b.iri, &a.iri) {
                Some(k + 1)
            } else {
                None
            };
            if let Some(at) = owner {
                let owner = self.nodes.remove(at);
                self.explained.push(owner.span);
                self.context.push(owner.iri);
            } else {
                k += 1;
            }
        }
        // The same node said twice ("the core zone AHU (Core_ZN-…-HP)").
        let mut k = 0;
        while k < self.nodes.len() {
            if self.nodes[..k].iter().any(|n| n.iri == self.nodes[k].iri) {
                let again = self.nodes.remove(k);
                self.explained.push(again.span);
            } else {
                k += 1;
            }
        }
        let names: Vec<Vec<String>> = self
            .nodes
            .iter()
            .map(|n| name_tokens(&name_of(self.view, &n.iri)))
            .collect();
        for k in self.free_words() {
            let w = &self.words[k];
            if w.text.len() >= 2 && names.iter().any(|n| n.contains(&w.text)) {
                self.explained.push(w.span);
            }
        }
        // "the cooling tower CT-1": words of the node's kind said right
        // before or after it.
        for n in self.nodes.clone() {
            let kinds: Vec<String> = self
                .view
                .topo
                .types(&n.iri)
                .iter()
                .flat_map(|t| {
                    class_words(self.view, t)
                        .to_lowercase()
                        .split_whitespace()
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .collect();
            let of_kind = |w: &Word| {
                kinds.contains(&w.text)
                    || w.text
                        .strip_suffix('s')
                        .is_some_and(|s| kinds.iter().any(|k| k == s))
            };
            // "the conference room A-302", "corner office box 2-16": words
            // said right before it, and before its kind's words, that the
            // model's own description of the node says ("Conference room,
            // interior, …") describe it.
            let described: Vec<String> = self
                .view
                .topo
                .comment(&n.iri)
                .map(crate::text::words)
                .unwrap_or_default();
            let says = |w: &Word| {
                w.text.len() > 2
                    && (described.contains(&w.text)
                        || w.text
                            .strip_suffix('s')
                            .is_some_and(|s| described.iter().any(|d| d == s)))
            };
            let free = self.free_words();
            let mut edge = n.span.start;
            let mut kind_said = true;
            for &k in free.iter().rev() {
                let w = &self.words[k];
                if w.span.end <= edge
                    && self.lower[w.span.end..edge].trim().is_empty()
                    && ((kind_said && of_kind(w)) || says(w))
                {
                    kind_said &= of_kind(w);
                    self.explained.push(w.span);
                    edge = w.span.start;
                }
            }
            let mut edge = n.span.end;
            for &k in &free {
                let w = &self.words[k];
                if w.span.start >= edge
                    && self.lower[edge..w.span.start].trim().is_empty()
                    && of_kind(w)
                {
                    self.explained.push(w.span);
                    edge = w.span.end;
                }
            }
        }
    }

    /// "VAVs with reheat", "reheat boxes": a word that, added to a kind
    /// asked about, spells the label of exactly one of its subclasses
    /// narrows the kind to that subclass.
    fn subclass_words(&mut self) {
        let onto = self.view.onto;
        // Free words may narrow any kind asked; a word inside a kind's own
        // mention that its label lacks ("discharge" in "discharge temp
        // sensor", read as Temperature Sensor) only that kind.
        let label_of = |p: &Self, iri: &str| -> Vec<String> {
            class_words(p.view, iri)
                .to_lowercase()
                .split_whitespace()
                .map(str::to_owned)
                .collect()
        };
        let mut tries: Vec<(usize, Option<usize>)> =
            self.free_words().into_iter().map(|k| (k, None)).collect();
        for (i, c) in self.classes.iter().enumerate() {
            let label = label_of(self, &c.iri);
            for (k, w) in self.words.iter().enumerate() {
                if c.span.covers(w.span) && !label.contains(&w.text) {
                    tries.push((k, Some(i)));
                }
            }
        }
        for (k, only) in tries {
            let w = self.words[k].clone();
            if w.text.len() < 4 || self.cues.is(Cue::FunctionWord, &w.text) {
                continue;
            }
            for i in 0..self.classes.len() {
                if only.is_some_and(|o| o != i) {
                    continue;
                }
                let c = &self.classes[i];
                if c.generic {
                    continue;
                }
                let label = label_of(self, &c.iri);
                // (extra words, class): of several, the fewest words
                // unsaid ("discharge temp sensor": the discharge air one).
                let mut found: Vec<(usize, String)> = Vec::new();
                let mut stack: Vec<&str> = vec![c.iri.as_str()];
                let mut seen = std::collections::HashSet::new();
                while let Some(x) = stack.pop() {
                    for child in onto.children(x) {
                        if !seen.insert(child.as_str()) {
                            continue;
                        }
                        stack.push(child);
                        let sub = class_words(self.view, child).to_lowercase();
                        let sub: Vec<&str> = sub.split_whitespace().collect();
                        let extra: Vec<&&str> = sub
                            .iter()
                            .filter(|x| !label.iter().any(|l| l == **x))
                            .collect();
                        if extra.iter().any(|x| **x == w.text) {
                            let unsaid = extra
                                .iter()
                                .filter(|x| {
                                    ***x != w.text
                                        && !self.cues.is(Cue::FunctionWord, x)
                                        && !self.words.iter().any(|q| q.text == ***x)
                                })
                                .count();
                            // One word unsaid at most ("air" of "discharge
                            // air temperature sensor").
                            if unsaid <= 1 {
                                found.push((unsaid, child.clone()));
                            }
                        }
                    }
                }
                found.sort();
                found.dedup();
                let least = found.first().map(|(n, _)| *n);
                let mut best: Vec<String> = found
                    .into_iter()
                    .filter(|(n, _)| Some(*n) == least)
                    .map(|(_, c)| c)
                    .collect();
                // Still several: those this building has ("discharge" of a
                // VAV's sensor is air, not water).
                if best.len() > 1 {
                    let topo = self.view.topo;
                    best.retain(|b| {
                        topo.nodes()
                            .any(|n| topo.types(n).iter().any(|t| onto.is_a(t, b)))
                    });
                }
                if let [one] = best.as_slice() {
                    tracing::debug!(word = %w.text, class = %one, "kind narrowed by a word of its subclass");
                    self.classes[i].iri = one.clone();
                    self.explained.push(w.span);
                    break;
                }
            }
        }
    }

    /// "chillers in this plant", "what VAVs does Charlie have": the one
    /// site or building of the data, or words that say the whole of it,
    /// scope nothing.
    fn scope(&mut self) {
        let topo = self.view.topo;
        let onto = self.view.onto;
        let whole = |iri: &str| {
            topo.types(iri).iter().any(|t| {
                onto.is_a(t, &vocab::brick("Site")) || onto.is_a(t, &vocab::brick("Building"))
            })
        };
        if !self.classes.is_empty() && self.nodes.len() == 1 && whole(&self.nodes[0].iri) {
            let kind: Vec<&str> = topo.nodes().filter(|n| whole(n)).collect();
            if kind.len() == 1 {
                tracing::debug!(node = %self.nodes[0].iri, "the only site scopes nothing");
                let n = self.nodes.remove(0);
                self.explained.push(n.span);
            }
        }
        for at in self.cue_at(Cue::Scope) {
            if let Some(entry) = self
                .cues
                .list(Cue::Scope)
                .iter()
                .find(|e| self.lower[at..].starts_with(e.as_str()))
            {
                let span = Span {
                    start: at,
                    end: at + entry.len(),
                };
                // "building" in "in this building" is no kind asked about.
                self.classes.retain(|c| !span.covers(c.span));
                self.explained.push(span);
            }
        }
    }

    /// "the AHU-3 cooling coil (CC)": a class said right after a named node
    /// that is of that class only restates what the node is.
    fn restatements(&mut self) {
        let view = self.view;
        let lower = self.lower;
        let nodes = &self.nodes;
        let between = |a: usize, b: usize| {
            lower[a..b]
                .chars()
                .all(|ch| ch.is_whitespace() || "()[],-:".contains(ch))
        };
        let mut restated: Vec<Span> = Vec::new();
        self.classes.retain(|c| {
            let restates = nodes.iter().any(|n| {
                // "AHU-3 cooling coil (CC)", "the cooling tower CT-1".
                let beside = (n.span.end <= c.span.start && between(n.span.end, c.span.start))
                    || (c.span.end <= n.span.start && between(c.span.end, n.span.start));
                beside
                    && view
                        .topo
                        .types(&n.iri)
                        .iter()
                        .any(|t| view.onto.is_a(t, &c.iri))
            });
            if restates {
                restated.push(c.span);
            }
            !restates
        });
        // Its words are read with the name ("part of air handler ahu1"),
        // not left for the documents.
        self.explained.extend(restated);
    }

    /// "components of psz-ac-2": words the grounder left alone that spell
    /// a run of letters and digits inside node names ("PSZ-AC-2" in
    /// "Perimeter_ZN_1-ZN-PSZ-AC-2-Unitary-HP", its fan, its coils …) name
    /// the one such node that holds the others.
    fn partial_names(&mut self) {
        let covered = |p: &Self, w: &Word| {
            p.classes.iter().any(|c| c.span.covers(w.span))
                || p.nodes.iter().any(|n| n.span.covers(w.span))
        };
        let mut runs: Vec<Vec<Word>> = Vec::new();
        let mut run: Vec<Word> = Vec::new();
        for w in &self.words {
            let joined = run.last().is_some_and(|l| {
                self.lower[l.span.end..w.span.start]
                    .chars()
                    .all(|c| "-_ ".contains(c))
                    && w.span.start - l.span.end <= 1
            });
            let free = !covered(self, w) && !Cue::question_cues().any(|c| self.cues.is(c, &w.text));
            if free && (joined || run.is_empty()) {
                run.push(w.clone());
            } else {
                if !run.is_empty() {
                    runs.push(std::mem::take(&mut run));
                }
                if free {
                    run.push(w.clone());
                }
            }
        }
        if !run.is_empty() {
            runs.push(run);
        }
        let topo = self.view.topo;
        for run in runs {
            let tokens: Vec<String> = run.iter().flat_map(|w| name_tokens(&w.text)).collect();
            let letters = tokens.iter().any(|t| t.chars().all(char::is_alphabetic));
            let digits = tokens.iter().any(|t| t.chars().all(|c| c.is_ascii_digit()));
            if !(letters && digits) || tokens.len() < 2 {
                continue;
            }
            let found: Vec<&str> = topo
                .nodes()
                .filter(|n| {
                    let name = name_tokens(&name_of(self.view, n).to_lowercase());
                    name.windows(tokens.len()).any(|w| w == tokens.as_slice())
                })
                .collect();
            let roots: Vec<&str> = found
                .iter()
                .copied()
                .filter(|n| {
                    !found.iter().any(|m| {
                        m != n
                            && (topo.parts(m).iter().any(|x| x == n)
                                || topo.out_of(m, TopoRel::HasPoint).iter().any(|x| x == n))
                    })
                })
                .collect();
            // Of several, the one whose name the question spells whole but
            // for one word ("perimeter zn 1" is Perimeter_ZN_1-ZN, not the
            // Perimeter_ZN_1-ZN-PSZ-AC-2-Unitary-HP that serves it); else
            // the one that supplies the others (a unit and the diffuser it
            // feeds).
            let whole: Vec<&str> = roots
                .iter()
                .copied()
                .filter(|n| {
                    name_tokens(&name_of(self.view, n).to_lowercase()).len() <= tokens.len() + 1
                })
                .collect();
            let one = if let [one] = whole.as_slice() {
                Some(*one)
            } else {
                let supplied: Vec<&str> = roots
                    .iter()
                    .copied()
                    .filter(|n| {
                        roots.iter().any(|m| {
                            m != n && topo.walk(m, crate::topology::Way::Downstream, 8).reaches(n)
                        })
                    })
                    .collect();
                match roots
                    .iter()
                    .filter(|n| !supplied.contains(n))
                    .collect::<Vec<_>>()
                    .as_slice()
                {
                    [one] => Some(**one),
                    _ => None,
                }
            };
            if let Some(one) = one {
                let span = Span {
                    start: run[0].span.start,
                    end: run[run.len() - 1].span.end,
                };
                self.name_node(one, span);
            }
        }
    }

    /// Words the grounder left alone that name a Brick class by its label
    /// ("rooms", "zones", "floors"), and words after a class that belong to
    /// its label ("vav boxes").
    fn classes_by_label(&mut self) {
        let onto = self.view.onto;
        let covered = |p: &Self, w: &Word| {
            p.classes.iter().any(|c| c.span.covers(w.span))
                || p.nodes.iter().any(|n| n.span.covers(w.span))
        };
        let singulars = |w: &str| -> Vec<String> {
            let mut out = vec![w.to_owned()];
            if let Some(s) = w.strip_suffix("es") {
                out.push(s.to_owned());
            }
            if let Some(s) = w.strip_suffix('s') {
                out.push(s.to_owned());
            }
            out
        };
        let words = self.words.clone();
        let mut prev_class: Option<usize> = None;
        for w in &words {
            if covered(self, w) {
                prev_class = self.classes.iter().position(|c| c.span.covers(w.span));
                continue;
            }
            let forms = singulars(&w.text);
            // A word of the previous class's label: "vav boxes".
            if let Some(i) = prev_class {
                let c = &self.classes[i];
                let label = class_words(self.view, &c.iri).to_lowercase();
                // Nothing but spaces between the class and this word (a
                // word that overlaps the class's span is no next word).
                let gap = self
                    .lower
                    .get(c.span.end..w.span.start)
                    .is_some_and(|g| g.trim().is_empty());
                if gap
                    && label
                        .split_whitespace()
                        .any(|l| forms.iter().any(|f| f == l))
                {
                    self.classes[i].span.end = w.span.end;
                    continue;
                }
            }
            prev_class = None;
            if self.cues.is(Cue::FunctionWord, &w.text) || w.text.len() < 3 {
                continue;
            }
            // Brick's own class first (models type their rooms brick:Room,
            // which Brick 1.4 deprecates for rec:Room; the type path
            // follows brick:isReplacedBy both ways).
            let by_label = |brick: bool| -> Vec<String> {
                onto.labelled(&forms)
                    .filter(|c| c.starts_with(vocab::BRICK) == brick)
                    .map(str::to_owned)
                    .collect()
            };
            let mut found = by_label(true);
            if found.is_empty() {
                found = by_label(false);
            }
            if let [one] = found.as_slice() {
                self.add_class(one.clone(), w.span, false);
                self.classes.sort_by_key(|c| c.span.start);
                prev_class = self.classes.iter().position(|c| c.span.covers(w.span));
            }
        }
    }

    /// "the condenser of ch-2", "ch-2's condenser", "AHU-2 cooling coil":
    /// a class said of a named node names the one part or point of that
    /// node of that class.
    fn part_of_node(&mut self) {
        let mut i = 0;
        while i < self.classes.len() {
            let c = self.classes[i].clone();
            let joined = |a: usize, b: usize| {
                let between = self.lower[a..b].trim();
                matches!(between, "" | "of" | "of the" | "s" | "'s" | "\u{2019}s")
            };
            let node = self.nodes.iter().position(|n| {
                (n.span.end <= c.span.start && joined(n.span.end, c.span.start))
                    || (c.span.end <= n.span.start && {
                        let between = self.lower[c.span.end..n.span.start].trim();
                        matches!(between, "of" | "of the" | "on" | "in" | "on the" | "in the")
                    })
            });
            let Some(k) = node else {
                i += 1;
                continue;
            };
            let n = &self.nodes[k];
            let topo = self.view.topo;
            let mut found: Vec<String> = topo
                .parts(&n.iri)
                .into_iter()
                .chain(topo.out_of(&n.iri, TopoRel::HasPoint))
                .filter(|m| topo.types(m).iter().any(|t| self.view.onto.is_a(t, &c.iri)))
                .collect();
            found.sort();
            found.dedup();
            if let [one] = found.as_slice() {
                let span = Span {
                    start: n.span.start.min(c.span.start),
                    end: n.span.end.max(c.span.end),
                };
                self.resolved
                    .push(self.lower[span.start..span.end].to_owned());
                self.context.push(n.iri.clone());
                self.nodes[k] = NodeMention {
                    iri: one.clone(),
                    span,
                };
                self.classes.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// "the chilled water coil": a class said with "the", of which the
    /// building has exactly one, names that one — when the question already
    /// names another node or asks yes/no.
    fn the_only_one(&mut self) {
        let mut i = 0;
        while i < self.classes.len() {
            let c = &self.classes[i];
            let the = self.lower[..c.span.start].trim_end().ends_with(" the")
                || self.lower[..c.span.start].trim_end() == "the";
            // The focus of a list ("the VAVs") stays a class.
            // "where's the condenser water pump" asks about the one there is.
            let focus = i == 0
                && self.nodes.is_empty()
                && !self.cues.is(Cue::YesNo, self.first_word())
                && self.relation().is_none();
            // "the chillers" asks for the set, however many there are.
            let said = &self.lower[c.span.start..c.span.end];
            let plural = said.ends_with('s') && !said.ends_with("ss");
            if !the || c.generic || focus || plural {
                i += 1;
                continue;
            }
            let topo = self.view.topo;
            let found: Vec<&str> = topo
                .nodes()
                .filter(|m| topo.types(m).iter().any(|t| self.view.onto.is_a(t, &c.iri)))
                .collect();
            if let [one] = found.as_slice() {
                self.nodes.push(NodeMention {
                    iri: (*one).to_owned(),
                    span: c.span,
                });
                self.nodes.sort_by_key(|m| m.span.start);
                self.classes.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Label-shaped names the grounder did not find that this reading
    /// resolved ("chiller 1" is ch-1); any other leaves the question to the
    /// abstention rules.
    fn unresolved<'q>(&self, q: &'q Question) -> Vec<&'q String> {
        let mut resolved: Vec<String> = self
            .resolved
            .iter()
            .map(|r| crate::text::squash(r))
            .collect();
        // A label shape inside a name the grounder found ("PSZ-AC-5" in
        // "Perimeter_ZN_4-ZN-PSZ-AC-5-Unitary-HP") is part of that name.
        resolved.extend(
            self.nodes
                .iter()
                .map(|n| crate::text::squash(&self.lower[n.span.start..n.span.end])),
        );
        q.grounding
            .unresolved
            .iter()
            .filter(|u| {
                let u = crate::text::squash(u);
                !resolved.iter().any(|r| r.contains(&u))
            })
            .collect()
    }

    fn add_class(&mut self, iri: String, span: Span, generic: bool) {
        // One class per place in the text: the longer reading wins, then
        // the more specific class.
        if let Some(i) = self
            .classes
            .iter()
            .position(|c| c.span.start < span.end && span.start < c.span.end)
        {
            let old = &self.classes[i];
            let longer = span.end - span.start > old.span.end - old.span.start;
            let same = span.end - span.start == old.span.end - old.span.start;
            if longer || (same && self.view.onto.is_a(&iri, &old.iri)) {
                self.classes.remove(i);
            } else {
                return;
            }
        }
        let onto = self.view.onto;
        // A class with a great many kinds under it (Equipment, Point,
        // Location) narrows nothing.
        let root = onto.descendants(&iri, GENERIC_KINDS + 1).len() > GENERIC_KINDS;
        self.classes.push(ClassMention {
            point: onto.is_a(&iri, &vocab::brick("Point")),
            location: onto.is_a(&iri, &vocab::brick("Location")),
            iri,
            span,
            generic: generic || root,
        });
    }

    /// "chiller 1", "condenser water pump 1": a class followed by a number
    /// names the one instance of that class whose name ends in that number.
    fn class_then_number(&mut self) {
        let mut i = 0;
        while i < self.classes.len() {
            let c = &self.classes[i];
            let next = self
                .words
                .iter()
                .find(|w| w.span.start >= c.span.end)
                .filter(|w| self.lower[c.span.end..w.span.start].trim().is_empty());
            let Some((w, n)) = next.and_then(|w| number(&w.text).map(|n| (w, n))) else {
                i += 1;
                continue;
            };
            let span = Span {
                start: c.span.start,
                end: w.span.end,
            };
            if self.nodes.iter().any(|m| m.span.covers(span)) {
                i += 1;
                continue;
            }
            let topo = self.view.topo;
            let mut found: Vec<&str> = topo
                .nodes()
                .filter(|iri| {
                    topo.types(iri)
                        .iter()
                        .any(|t| self.view.onto.is_a(t, &c.iri))
                })
                .filter(|iri| last_number(&name_of(self.view, iri)) == Some(n))
                .collect();
            found.sort_unstable();
            if let [one] = found.as_slice() {
                self.name_node(one, span);
                self.classes.remove(i);
            } else {
                // "floor 4" where the building has no (or several) floor 4.
                self.unknown
                    .push(self.lower[span.start..span.end].to_owned());
                i += 1;
            }
        }
    }

    /// In a question that names no node, the Haystack marker words before
    /// the last word of a kind of equipment's span that no Brick tag of the
    /// kind or of a kind under it stands for, and no node's name holds:
    /// "reheat" of "the reheat coils", which the grounder reads as any Coil
    /// (Brick has no reheat coil, and a coil's tags say nothing of
    /// reheat). The kind is less than the words; a list of every coil's
    /// pumps would answer another question, so the word stays unread.
    fn modifiers_unread(&self, g: &crate::ground::Grounding) -> Vec<Span> {
        let onto = self.view.onto;
        let mut out = Vec::new();
        // Said of a named node ("the reheat coil of vav-1-05"), the kind
        // is one of its parts, which the name places.
        if !self.nodes.is_empty() {
            return out;
        }
        for t in &g.equipment_types {
            let Some(c) = &t.brick_class else { continue };
            let class = vocab::class_iri(c);
            let inside: Vec<&Word> = self
                .words
                .iter()
                .filter(|w| t.span.covers(w.span))
                .collect();
            let Some((_, modifiers)) = inside.split_last() else {
                continue;
            };
            // The tags of the kind and every kind under it, gathered once
            // a marker word is found (most questions have none).
            let mut tags: Option<std::collections::HashSet<String>> = None;
            for w in modifiers {
                if !g.raw_tags.contains(&w.text) {
                    continue;
                }
                let said = onto.brick_tags_for(&w.text);
                if said.is_empty() {
                    continue;
                }
                let tags = tags.get_or_insert_with(|| {
                    onto.descendants(&class, 2000)
                        .iter()
                        .filter_map(|k| onto.class(k))
                        .flat_map(|info| info.tags.iter().cloned())
                        .collect()
                });
                if said.iter().all(|x| !tags.contains(x)) && !self.names_a_node(&w.text) {
                    out.push(w.span);
                }
            }
        }
        out
    }

    /// Whether a word is in a node's name ("main" of Carytown's
    /// "ElecMeter-Main"): a word of a name is read with the name.
    fn names_a_node(&self, word: &str) -> bool {
        let topo = self.view.topo;
        topo.nodes().any(|n| {
            topo.label(n)
                .unwrap_or_else(|| vocab::local_name(n))
                .to_lowercase()
                .contains(word)
        })
    }

    /// Words the reading does not account for: not a function word, not
    /// a cue word, not a number, not inside a named node or class (or, in
    /// one, a word the class is read without: [`Parts::modifiers_unread`]).
    /// A question with such words asks more than a composed query answers
    /// ("reset range", "firmware", "brick class"), so it is left to the
    /// rest of the pipeline.
    fn unexplained(&self) -> Vec<String> {
        let mut covered: Vec<Span> = self
            .nodes
            .iter()
            .map(|n| n.span)
            .chain(self.classes.iter().map(|c| c.span))
            .chain(self.explained.iter().copied())
            .collect();
        for cue in Cue::question_cues() {
            for entry in self.cues.list(cue) {
                if entry.contains(' ') {
                    for (at, _) in self.lower.match_indices(entry.as_str()) {
                        covered.push(Span {
                            start: at,
                            end: at + entry.len(),
                        });
                    }
                }
            }
        }
        // The verb of making before a medium is read (found once).
        let made = self.made_at();
        self.words
            .iter()
            .filter(|w| {
                // Spans compare equal whatever they cover: by their ends.
                self.unread_modifiers
                    .iter()
                    .any(|m| (m.start, m.end) == (w.span.start, w.span.end))
                    || !covered.iter().any(|c| c.covers(w.span))
            })
            .filter(|w| number(&w.text).is_none() && w.text.len() > 1)
            .filter(|w| {
                !Cue::question_cues()
                    .filter(|&c| c != Cue::Medium && c != Cue::Making)
                    .any(|c| self.cues.is(c, &w.text))
            })
            .filter(|w| !self.medium_word(w) && !self.medium_kind(w))
            .filter(|w| made.is_none_or(|m| m.start != w.span.start))
            .map(|w| w.text.clone())
            .collect()
    }

    /// Whether the word says which kind of medium the next word is
    /// ("chilled" in "its chilled water from").
    fn medium_kind(&self, w: &Word) -> bool {
        MEDIUM_KINDS.contains(&w.text.as_str())
            && self
                .words
                .iter()
                .position(|x| x.span.start == w.span.start)
                .and_then(|at| self.words.get(at + 1))
                .is_some_and(|next| self.medium_word(next))
    }

    /// The unread words said of a named node or kind ("the condenser of
    /// ch-2", "ch-2 condenser", "chw valve") or inside an identifier
    /// ("hw_valve"): the question is about something the reading did not
    /// place.
    fn unread_said_of(&self, left: &[String]) -> Vec<String> {
        let glue = |gap: &str| matches!(gap.trim(), "" | "of" | "of the" | "the" | "'s" | "s");
        // A word joined to another by "_" is part of an identifier
        // ("hw_valve"): a name the reading did not place.
        let in_identifier = |w: &Word| {
            self.lower[..w.span.start].ends_with('_') || self.lower[w.span.end..].starts_with('_')
        };
        self.words
            .iter()
            .filter(|w| left.contains(&w.text))
            .filter(|w| {
                if in_identifier(w) {
                    return true;
                }
                let spans = self
                    .nodes
                    .iter()
                    .map(|n| n.span)
                    .chain(self.classes.iter().map(|c| c.span));
                spans.into_iter().any(|n| {
                    (n.end <= w.span.start && glue(&self.lower[n.end..w.span.start]))
                        || (w.span.end <= n.start && glue(&self.lower[w.span.end..n.start]))
                })
            })
            .map(|w| w.text.clone())
            .collect()
    }

    /// Whether the word is what a supply relation carries: a medium word
    /// ("air", "water") after a verb of supply or before "from"/"to"
    /// ("supply air to", "get its air from", "make that chilled water"),
    /// not one naming something ("air path", "water pump").
    fn medium_word(&self, w: &Word) -> bool {
        // "the chilled water system": part of a name, no medium.
        let named = self
            .nodes
            .iter()
            .map(|n| n.span)
            .chain(self.classes.iter().map(|c| c.span))
            .any(|s| s.covers(w.span));
        if named || !self.cues.is(Cue::Medium, &w.text) {
            return false;
        }
        let at = self.words.iter().position(|x| x.span.start == w.span.start);
        let Some(at) = at else { return false };
        let verb = |t: &str| {
            [Cue::FeedVerb, Cue::Upstream, Cue::Downstream]
                .iter()
                .any(|&c| self.cues.is(c, t))
                || RECEIVING.contains(&t)
                || self.cues.is(Cue::Making, t)
        };
        let last = self.words[..at]
            .iter()
            .rev()
            .find(|x| !medium_filler(&x.text));
        // "what feeds vav 3-07 its air": the node stands between the verb
        // and the medium it is given.
        let given = |x: &Word| {
            self.nodes
                .iter()
                .find(|n| n.span.covers(x.span))
                .and_then(|n| self.words.iter().rev().find(|y| y.span.end <= n.span.start))
                .is_some_and(|y| verb(&y.text))
        };
        let before = last.is_some_and(|x| verb(&x.text) || given(x));
        // "the chilled water for AHU-2 come from": "for" the node, then
        // where it comes from.
        let after = self.words.get(at + 1).is_some_and(|x| {
            matches!(x.text.as_str(), "from" | "to")
                || (matches!(x.text.as_str(), "for" | "come" | "comes" | "coming")
                    && self.words[at + 1..].iter().any(|w| w.text == "from"))
        });
        before || after
    }

    /// The word before the medium word of a supply relation, fillers
    /// aside ("get" of "get its hot water"), if a medium word is said.
    fn before_medium(&self) -> Option<&Word> {
        let at = self.words.iter().position(|w| self.medium_word(w))?;
        self.words[..at]
            .iter()
            .rev()
            .find(|x| !medium_filler(&x.text))
    }

    /// Where a verb of receiving stands before a medium word in a supply
    /// relation ("get" of "get its hot water"), if one does.
    fn received_at(&self) -> Option<usize> {
        self.before_medium()
            .filter(|x| RECEIVING.contains(&x.text.as_str()))
            .map(|x| x.span.start)
    }

    /// Where a verb of making stands before a medium word in a supply
    /// relation ("make" of "what machines make that chilled water"), if
    /// one does: the question asks for what produces the medium, not for a
    /// product's make.
    fn made_at(&self) -> Option<Span> {
        self.before_medium()
            .filter(|x| self.cues.is(Cue::Making, &x.text))
            .map(|x| x.span)
    }

    /// Whether a medium word stands in a supply relation.
    fn medium_said(&self) -> bool {
        self.words.iter().any(|w| self.medium_word(w))
    }

    /// The medium a supply relation is asked of: the medium word and the
    /// kind written before it ("chilled water" → water, chilled; "its air"
    /// → air).
    fn medium(&self) -> Option<(&str, Option<&str>)> {
        let at = self.words.iter().position(|w| self.medium_word(w))?;
        let kind = at
            .checked_sub(1)
            .map(|i| self.words[i].text.as_str())
            .filter(|t| MEDIUM_KINDS.contains(t));
        Some((self.words[at].text.as_str(), kind))
    }

    /// Of `nodes`, those whose kind carries another medium than `medium`
    /// (from [`Self::medium`]), by their classes' Brick tags (the words
    /// read as Brick tags as Haystack markers are): asked for air, a
    /// hot-water reheat coil (tags Hot, Water); asked for condenser water,
    /// a chilled water pump. A node whose tags name no medium (a supply
    /// fan, a chiller) is kept.
    fn other_medium(&self, medium: (&str, Option<&str>), nodes: Vec<String>) -> Vec<String> {
        let (medium, kind) = medium;
        nodes
            .into_iter()
            .filter(|node| {
                let (carried, kinds) = self.media_of(node);
                (!carried.is_empty() && !carried.contains(&medium))
                    || kind.is_some_and(|k| !kinds.is_empty() && !kinds.contains(&k))
            })
            .collect()
    }

    /// The media a node's kind carries and the kinds of medium it names,
    /// by its classes' Brick tags and their equivalents' (a hot-water coil:
    /// water, hot; an air handler: air; a supply fan or a plain chiller:
    /// none).
    fn media_of(&self, node: &str) -> (Vec<&'a str>, Vec<&'a str>) {
        let onto = self.view.onto;
        // A class and its equivalents carry the same tags (`brick:AHU`,
        // which real models use, is Air_Handling_Unit, whose tags say Air).
        let mut tags = std::collections::BTreeSet::new();
        for t in self.view.topo.types(node) {
            if let Some(c) = onto.class(t) {
                tags.extend(c.tags.iter().cloned());
                for e in &c.equivalent {
                    if let Some(e) = onto.class(e) {
                        tags.extend(e.tags.iter().cloned());
                    }
                }
            }
        }
        let named = |words: &[&'a str]| -> Vec<&'a str> {
            words
                .iter()
                .copied()
                .filter(|w| onto.brick_tags_for(w).iter().any(|t| tags.contains(t)))
                .collect()
        };
        let media: Vec<&'a str> = self
            .cues
            .list(Cue::Medium)
            .iter()
            .map(String::as_str)
            .collect();
        (named(&media), named(MEDIUM_KINDS))
    }

    /// Whether a node's own kind carries the medium asked: its tags name
    /// the medium, and the kind asked when they name a kind.
    fn carries(&self, medium: (&str, Option<&str>), node: &str) -> bool {
        let (carried, kinds) = self.media_of(node);
        carried.contains(&medium.0)
            && medium
                .1
                .is_none_or(|k| kinds.is_empty() || kinds.contains(&k))
    }

    /// Byte offsets where a cue's words or phrases occur.
    fn cue_at(&self, cue: Cue) -> Vec<usize> {
        let mut out: Vec<usize> = self.cue_spans(cue).into_iter().map(|s| s.start).collect();
        out.dedup();
        out
    }

    /// Where a cue's words or phrases occur, in text order.
    fn cue_spans(&self, cue: Cue) -> Vec<Span> {
        let mut out = Vec::new();
        for entry in self.cues.list(cue) {
            if entry.chars().all(char::is_alphanumeric) {
                out.extend(
                    self.words
                        .iter()
                        .filter(|w| w.text == *entry)
                        .map(|w| w.span),
                );
            } else {
                out.extend(crate::text::phrase_at(self.lower, entry).map(|start| Span {
                    start,
                    end: start + entry.len(),
                }));
            }
        }
        out.sort_unstable_by_key(|s| (s.start, s.end));
        out
    }

    /// Whether a word of the cue stands outside every named node and class
    /// ("units", not "rooftop units").
    fn free_cue(&self, cue: Cue) -> bool {
        self.cue_at(cue).into_iter().any(|at| {
            !self
                .classes
                .iter()
                .map(|c| c.span)
                .chain(self.nodes.iter().map(|n| n.span))
                .any(|s| s.start <= at && at < s.end)
        })
    }

    /// Whether a word of the cue stands right after a named node ("the
    /// PSZ-AC-2 unit"), where it may restate the name.
    fn cue_after_name(&self, cue: Cue) -> bool {
        self.cue_at(cue).into_iter().any(|at| {
            self.nodes
                .iter()
                .any(|n| n.span.end <= at && self.lower[n.span.end..at].trim().is_empty())
        })
    }

    fn has(&self, cue: Cue) -> bool {
        !self.cue_at(cue).is_empty()
    }

    fn first(&self, cue: Cue) -> Option<usize> {
        self.cue_at(cue).first().copied()
    }

    fn first_word(&self) -> &str {
        self.words.first().map_or("", |w| w.text.as_str())
    }

    /// Asks what kind a named thing is: "what/which" with "kind", "type",
    /// "sort" or "class" (as a word, or Brick's `Class` grounded), no
    /// relation word, and no kind named but generic ones ("point",
    /// "equipment": what the thing is said to be).
    fn asks_kind(&self) -> bool {
        let wh = matches!(self.first_word(), "what" | "which" | "whats");
        let kind_word = self
            .words
            .iter()
            .any(|w| w.text == "class" || KIND_WORDS.contains(&w.text.as_str()));
        wh && kind_word
            && self.relation().is_none()
            && !self.has(Cue::On)
            && self
                .classes
                .iter()
                .all(|c| c.generic || c.iri == vocab::brick("Class"))
    }

    /// Asks for the kinds of what it lists: "what types of sensors are
    /// there", "count the equipment by type" (dq:cue_kinds), "how many of
    /// each point type" (a kinds phrase around a kind), or, with no
    /// named node, "what type of equipment is in the building" ("what
    /// type of equipment is AHU-1" asks AHU-1's kind).
    fn asks_kinds(&self) -> bool {
        let wh = matches!(self.first_word(), "what" | "which" | "whats");
        // "how many of each point type", "count by equipment type", "the
        // number of points in each point class": a kinds phrase with the
        // kind of what is counted inside it.
        let each_named_kind = self.words.windows(3).any(|w| {
            matches!(w[0].text.as_str(), "each" | "every" | "per" | "by")
                && (KIND_WORDS.contains(&w[2].text.as_str()) || w[2].text == "class")
        });
        self.has(Cue::Kinds)
            || each_named_kind
            || (wh
                && self.nodes.is_empty()
                && self
                    .words
                    .iter()
                    .any(|w| KIND_WORDS.contains(&w.text.as_str())))
    }

    /// Asked yes or no.
    fn yes_no(&self) -> bool {
        let first = self.first_word();
        let wh = self.cues.is(Cue::Which, first)
            || self.words.iter().any(|w| {
                matches!(
                    w.text.as_str(),
                    "what" | "which" | "how" | "where" | "list" | "show" | "whats"
                )
            });
        (self.cues.opens_yes_no(first, self.lower) && !wh)
            || self.lower.contains("yes or no")
            || (!wh && self.nodes.len() >= 2 && self.feeds_words())
            || (!wh && self.nodes.len() == 1 && first == "got")
            || (!wh && self.nodes.len() == 1 && self.got_after_node())
    }

    /// "VAV-2-14 got a CO2 sensor?", "psz-ac-3 got a clg coil?": the
    /// first word after the one named node is "got" (the name may be
    /// several words: "psz-ac-3" is three).
    fn got_after_node(&self) -> bool {
        let end = self.nodes[0].span.end;
        self.words
            .iter()
            .find(|w| w.span.start >= end)
            .is_some_and(|w| w.text == "got")
    }

    /// Where a word of supply stands as a relation, not inside the name
    /// of a kind ("supply fan", "supply air temperature sensor").
    fn supply_cue_at(&self, cue: Cue) -> Vec<usize> {
        let mut at: Vec<usize> = self
            .cue_spans(cue)
            .into_iter()
            .filter(|c| !self.kind_spans.iter().any(|s| s.covers(*c)))
            .map(|c| c.start)
            .collect();
        at.dedup();
        at
    }

    fn feeds_words(&self) -> bool {
        [Cue::FeedVerb, Cue::Upstream, Cue::Downstream]
            .iter()
            .any(|&c| !self.supply_cue_at(c).is_empty())
            || self.lower.contains("->")
            || self.has(Cue::On)
    }

    fn count_asked(&self) -> bool {
        self.cues.asks_count(self.lower) || self.first_word() == "#"
    }

    /// Where a relation word is, if any, and which relation.
    fn relation(&self) -> Option<(Rel, usize)> {
        let mut found: Vec<(usize, Rel)> = Vec::new();
        for cue in [Cue::FeedVerb, Cue::Upstream, Cue::Downstream] {
            found.extend(self.supply_cue_at(cue).into_iter().map(|p| (p, Rel::Feeds)));
        }
        if let Some(p) = self.lower.find("->") {
            found.push((p, Rel::Feeds));
        }
        // "where does VAV-2-14 get its air from": the supplier of a medium;
        // "where does VAV-2-14 get its hot water": a medium received;
        // "what makes its chilled water": a medium made.
        if self.medium_said() {
            found.extend(
                self.cue_at(Cue::Source)
                    .into_iter()
                    .chain(self.received_at())
                    .chain(self.made_at().map(|s| s.start))
                    .map(|p| (p, Rel::Feeds)),
            );
        }
        for cue in [Cue::Parts, Cue::PartOf] {
            found.extend(self.cue_at(cue).into_iter().map(|p| (p, Rel::Part)));
        }
        found.extend(
            self.cue_at(Cue::Location)
                .into_iter()
                .map(|p| (p, Rel::Location)),
        );
        found.sort_by_key(|(p, _)| *p);
        // "where does CHWP-2 pump to", "where does it get its air from":
        // "where" asks the place a supply relation ends at, not a location.
        if found.len() > 1
            && found[0].1 == Rel::Location
            && self.words.iter().any(|w| {
                w.span.start == found[0].0 && matches!(w.text.as_str(), "where" | "wheres")
            })
            && let Some(&(p, r)) = found.iter().find(|(_, r)| *r == Rel::Feeds)
        {
            return Some((r, p));
        }
        found.first().map(|(p, r)| (*r, *p))
    }

    fn specific(&self) -> Vec<&ClassMention> {
        self.classes.iter().filter(|c| !c.generic).collect()
    }

    fn is_location(&self, iri: &str) -> bool {
        self.view.is_location(iri)
    }

    fn has_edges(&self, rel: Rel) -> bool {
        self.view.topo.edges(topo_rel(rel)).next().is_some()
    }

    fn name(&self, iri: &str) -> String {
        name_of(self.view, iri)
    }

    fn class_name(&self, c: &ClassMention) -> String {
        class_words(self.view, &c.iri)
    }
}

fn topo_rel(rel: Rel) -> TopoRel {
    match rel {
        Rel::Feeds => TopoRel::Feeds,
        Rel::Part => TopoRel::HasPart,
        Rel::Point => TopoRel::HasPoint,
        Rel::Location => TopoRel::HasLocation,
    }
}

/// A node's name: its label, else its IRI's local name.
pub fn name_of(view: GraphView<'_>, iri: &str) -> String {
    view.topo
        .label(iri)
        .map_or_else(|| vocab::local_name(iri).to_owned(), str::to_owned)
}

/// A class in words: its label, else its local name with spaces.
pub fn class_words(view: GraphView<'_>, iri: &str) -> String {
    view.onto
        .class(iri)
        .and_then(|c| c.label.clone())
        .unwrap_or_else(|| vocab::local_name(iri).replace('_', " "))
}

/// A name as lower-case tokens, letters and digits apart: "PSZ-AC-2" and
/// "psz ac2" are both `psz ac 2`.
fn name_tokens(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut digit = false;
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            let d = c.is_ascii_digit();
            if !cur.is_empty() && d != digit {
                out.push(std::mem::take(&mut cur));
            }
            digit = d;
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn last_number(name: &str) -> Option<u64> {
    name.split(|c: char| !c.is_ascii_digit())
        .rfind(|s| !s.is_empty())
        .and_then(|s| s.parse().ok())
}

pub(super) fn link(rel: Rel, from: Slot, to: Slot, reach: Reach) -> Link {
    Link {
        rel,
        from,
        to,
        reach,
        not_through: Vec::new(),
    }
}

const X: &str = "x";

/// Words that, before a medium, say which kind of it ("chilled water").
const MEDIUM_KINDS: &[&str] = &["chilled", "hot", "condenser"];

/// Verbs of receiving: before a medium, the node they are said of is
/// supplied ("where does VAV-2-14 get its air").
const RECEIVING: &[&str] = &["get", "gets", "getting", "receive", "receives"];

/// Words that may stand between a verb of supply and its medium ("its
/// chilled water").
fn medium_filler(t: &str) -> bool {
    matches!(t, "its" | "their" | "the" | "that" | "this") || MEDIUM_KINDS.contains(&t)
}

/// Reads a question into a plan.
pub fn read(q: &Question, cues: &Cues, view: GraphView<'_>) -> Reading {
    let p = Parts::new(q, cues, view);
    match compose(&p, q) {
        // "what unit feeds zone 3": "unit" read as a unit of measure by
        // nothing.
        Reading::Plan(plan)
            if plan.shape != Shape::Unit
                && p.free_cue(Cue::Unit)
                && !p.cue_after_name(Cue::Unit) =>
        {
            Reading::Unread {
                words: vec!["unit".into()],
                said_of: Vec::new(),
            }
        }
        // "which ahu feeds the most boxes": every AHU that feeds one is no
        // answer to which feeds the most.
        Reading::Plan(_) if p.has(Cue::Superlative) => Reading::Unread {
            words: p
                .words
                .iter()
                .filter(|w| p.cues.is(Cue::Superlative, &w.text))
                .map(|w| w.text.clone())
                .collect(),
            said_of: Vec::new(),
        },
        Reading::Plan(mut plan) => {
            plan.cited.extend(p.context.iter().cloned());
            plan.loose = p.loose;
            let point = vocab::brick("Point");
            let target = Slot::var(&plan.target);
            if matches!(plan.shape, Shape::List | Shape::Count)
                && !plan.typed
                && plan.having.is_none()
                && !p.yes_no()
                && p.asks_kinds()
            {
                // "what types of points does ahu-1 have": the points of a
                // named node are of the kind Point.
                let untyped = !plan.body.types.iter().any(|(s, _)| *s == target);
                let points_of = plan
                    .body
                    .links
                    .iter()
                    .any(|l| l.rel == Rel::Point && l.to == target);
                if untyped && points_of {
                    plan.body.types.push((target.clone(), point.clone()));
                }
                if plan.body.types.iter().any(|(s, _)| *s == target) {
                    tracing::debug!("the kinds of what is listed asked: counted per class");
                    plan.shape = Shape::PerKind;
                    let what = plan.understood.trim_start_matches("how many: ").to_owned();
                    plan.understood = format!("{what} by kind");
                }
            }
            plan.point_kinds = plan
                .classes()
                .into_iter()
                .filter(|c| view.onto.is_a(c, &point))
                .collect();
            Reading::Plan(plan)
        }
        other => other,
    }
}

fn compose(p: &Parts<'_>, q: &Question) -> Reading {
    if !p.unresolved(q).is_empty() || p.unsure {
        return Reading::NotGraph;
    }
    if let Some(name) = p.unknown.first() {
        // "demand limit level 3", "climate zone 8": a class and a number
        // in a question that asks more than the graph holds name a
        // document's level or zone, not a node of this building; the
        // documents may answer it.
        let left = p.unexplained();
        if !left.is_empty() {
            tracing::debug!(?left, name = %name, "a class and number named no node; words left for the documents");
            let said_of = p.unread_said_of(&left);
            return Reading::Unread {
                words: left,
                said_of,
            };
        }
        return Reading::Unsupported {
            understood: format!("a question about {name}"),
            why: format!("the building graph has no one node named {name}"),
        };
    }
    // Definitions, products (the catalogue, not the building), tags and
    // paths are answered elsewhere.
    let elsewhere = [Cue::Product, Cue::Tags, Cue::Path];
    let product = q
        .grounding
        .entities
        .iter()
        .any(|e| e.kind == EntityKind::Product);
    // "trace vav-1-05 back to the chillers" asks for the chillers
    // upstream; a path between two named nodes is answered elsewhere.
    let path_to_kind = p.has(Cue::Path) && p.nodes.len() == 1 && !p.specific().is_empty();
    // "does the model have": the building's model, no product's.
    let unscoped = p.cues.without_scope(p.lower);
    // "what machines make that chilled water": a verb of making, no
    // product's make.
    let made = p.made_at();
    // "what is a chiller's min run time": no definition asked, as the
    // intent reader reads it.
    let said = |c: Cue| match c {
        Cue::DefinePhrase => p.cues.asks_definition(p.lower),
        Cue::Define => {
            let texts: Vec<String> = p.words.iter().map(|w| w.text.clone()).collect();
            p.cue_spans(c).iter().any(|s| {
                !p.words
                    .iter()
                    .position(|w| w.span.start == s.start)
                    .is_some_and(|i| crate::text::means_a_clause(&texts, i))
            })
        }
        _ => p.cue_spans(c).iter().any(|s| {
            c != Cue::Product
                || (!unscoped[s.start..s.end].trim().is_empty()
                    && made.is_none_or(|m| m.start != s.start))
        }),
    };
    // "is a damper position command a kind of setpoint": how kinds relate
    // is the ontology's to say, whatever the building has.
    let kinds_related = q.reading.yes_no
        && p.nodes.is_empty()
        && (p.cues.in_text(Cue::KindOf, p.lower) || p.cues.in_text(Cue::SameClass, p.lower));
    let defining = product
        || kinds_related
        || q.reading.has(crate::answer::intent::Intent::Definition)
        || said(Cue::Define)
        || said(Cue::DefinePhrase);
    if defining
        || elsewhere
            .iter()
            .any(|&c| said(c) && !(c == Cue::Path && path_to_kind))
    {
        // The fact builders answer these. A question that asks no
        // definition and names no product still says, in the words the
        // reading leaves, what it asks beyond them ("in November 2025
        // every controller on the boxes of Building A got new software:
        // what had been going wrong" is not answered by the building's
        // points, location and products).
        let left = p.unexplained();
        if defining || left.is_empty() {
            return Reading::NotGraph;
        }
        let said_of = p.unread_said_of(&left);
        return Reading::Unread {
            words: left,
            said_of,
        };
    }
    let left = p.unexplained();
    if !left.is_empty() {
        tracing::debug!(?left, "words a composed query does not account for");
        let said_of = p.unread_said_of(&left);
        return Reading::Unread {
            words: left,
            said_of,
        };
    }
    if p.nodes.is_empty() && p.specific().is_empty() && p.classes.is_empty() {
        return Reading::NotGraph;
    }
    if let Some(node) = &p.stopped {
        return stopped(p, node);
    }
    if p.yes_no() {
        if p.nodes.len() >= 2 {
            return between(p);
        }
        if p.nodes.len() == 1 && !p.classes.is_empty() {
            return has_all(p);
        }
    }
    if let Some(r) = per_group(p) {
        return r;
    }
    match p.nodes.len() {
        1 => anchored(p),
        0 => by_class(p),
        _ => Reading::NotGraph,
    }
}

/// Rule 0: what loses its supply when a named node stops ("if we shut
/// down AHU-2, which rooms lose air"): what the node feeds, through any
/// chain of supply, of the kind asked, or, with one other node named
/// ("will room A-302 lose air if AHU-1 trips"), whether the node feeds it
/// through any chain.
fn stopped(p: &Parts<'_>, node: &str) -> Reading {
    let others: Vec<&NodeMention> = p.nodes.iter().filter(|n| n.iri != node).collect();
    if !p.has_edges(Rel::Feeds) {
        return unsupported(p, Rel::Feeds);
    }
    let name = p.name(node);
    match others.as_slice() {
        [] => anchored(p),
        [other] => {
            let to = p.name(&other.iri);
            let understood = format!(
                "whether {name} feeds {to}, through any chain of supply (what {to} would lose if {name} stopped)"
            );
            let body = Block {
                links: vec![link(
                    Rel::Feeds,
                    Slot::Node(node.to_owned()),
                    Slot::Node(other.iri.clone()),
                    Reach::Transitive,
                )],
                ..Block::default()
            };
            let mut plan = Plan::new(Shape::Yes, X, body, understood);
            plan.stopped = Some(node.to_owned());
            Reading::Plan(Box::new(plan))
        }
        _ => Reading::Unsupported {
            understood: format!("what loses its supply when {name} stops"),
            why: format!(
                "{} other nodes are named beside it; only one is read",
                others.len()
            ),
        },
    }
}

/// Rule 1: does one named node feed (contain, hold) the other?
fn between(p: &Parts<'_>) -> Reading {
    // "is vav 2-14 on ahu 1 or ahu 2", "does ahu 1 feed vav 1-01 and vav
    // 2-14": names joined by "and" / "or" stand on one side of the
    // relation. Two sides, one of them a single node, are read; anything
    // else would be answered of two names only.
    let groups = node_groups(p);
    let [first, second] = groups.as_slice() else {
        return Reading::Unsupported {
            understood: format!("a yes/no question naming {} nodes", p.nodes.len()),
            why: "only a relation between two named nodes, or between one and names joined by 'and' or 'or', is read".to_owned(),
        };
    };
    let (a, b) = (first.nodes[first.nodes.len() - 1], second.nodes[0]);
    // "is VAV-2-14 in Room A-214", "is AHU-3 in building b": equipment,
    // then a place after "in" (or "inside", "at", "on"): where it is.
    let placed = p.view.is_location(&b.iri)
        && !p.view.is_location(&a.iri)
        && p.words.iter().any(|w| {
            w.span.start >= a.span.end
                && w.span.start < b.span.start
                && matches!(w.text.as_str(), "in" | "inside" | "within" | "at" | "on")
        });
    let rel = match p.relation() {
        Some((r, _)) => r,
        None if placed => Rel::Location,
        None if p.has(Cue::On) => Rel::Feeds,
        None => return Reading::NotGraph,
    };
    // "X fed by Y", "X downstream of Y", "X on Y": Y comes first in the
    // relation. "X upstream of Y" says X feeds Y: the word names where X
    // stands, not what is asked of it.
    let inside = |u: &usize| *u > a.span.start && *u < b.span.start;
    let said = |u: usize, w: &str| p.words.iter().any(|x| x.span.start == u && x.text == w);
    let passive = p
        .cue_at(Cue::Upstream)
        .into_iter()
        .filter(inside)
        .any(|u| !said(u, "upstream"))
        || p.cue_at(Cue::Downstream)
            .into_iter()
            .filter(inside)
            .any(|u| said(u, "downstream"))
        || p.cue_at(Cue::On).iter().any(inside)
        // "does VAV-3-07 get its air from AHU-2": what is received comes
        // from the second.
        || p.received_at().is_some_and(|u| inside(&u))
        || (p.medium_said() && p.cue_at(Cue::Source).iter().any(inside));
    let swapped = passive && rel != Rel::Location;
    let (from, to) = if swapped { (b, a) } else { (a, b) };
    let (froms, tos) = if swapped {
        (second, first)
    } else {
        (first, second)
    };
    // One hop unless the chain is asked for: in a plant loop everything
    // reaches everything, so "does CWP-1 feed CH-2" means directly.
    // A place holds what is in its rooms and floors: "in building b" is
    // along the parts, as "ultimately" is along the supply chain.
    let chain = rel == Rel::Location
        || p.has(Cue::Transitive)
        || p.words
            .iter()
            .any(|w| w.text == "upstream" || w.text == "downstream");
    let reach = if chain && !p.has(Cue::Direct) {
        Reach::Transitive
    } else {
        Reach::Direct
    };
    if !p.has_edges(rel) {
        return unsupported(p, rel);
    }
    if froms.nodes.len() > 1 || tos.nodes.len() > 1 {
        return listed(p, rel, reach, froms, tos);
    }
    // "does the chilled water for ahu-3 come from ch-2": a medium asked of
    // the supply follows it through any chain (the pumps between) when the
    // supplier stands upstream on it; one that stands next to the node on
    // another ("… for vav 3-07 come from hwp-1", whose pump feeds the
    // box's hot-water coil) is no yes, and no "no" of one hop answers.
    let medium = p
        .medium()
        .filter(|_| rel == Rel::Feeds && reach == Reach::Direct && !p.has(Cue::Direct));
    let mut along = false;
    if let Some(m) = medium {
        let topo = p.view.topo;
        let up = |n: &str| topo.into(n, TopoRel::Feeds);
        if let Ok((node, _)) = medium_node(p, &to.iri, &p.name(&to.iri), m, &up) {
            along = medium_upstream(p, &node, m).1.contains(&from.iri);
        }
        let next = std::iter::once(to.iri.clone())
            .chain(topo.parts(&to.iri))
            .flat_map(|n| up(&n))
            .any(|n| n == from.iri);
        if !along && next {
            let asked = medium_words(m);
            return Reading::Unsupported {
                understood: format!(
                    "whether {} supplies {} with {asked}",
                    p.name(&from.iri),
                    p.name(&to.iri)
                ),
                why: format!(
                    "the building data shows {} feeding {}, not as a supply of {asked}",
                    p.name(&from.iri),
                    p.name(&to.iri)
                ),
            };
        }
    }
    if let Some(m) = medium.filter(|_| along) {
        let understood = format!(
            "whether {} supplies {} with {}, through any chain",
            p.name(&from.iri),
            p.name(&to.iri),
            medium_words(m)
        );
        let body = Block {
            links: vec![link(
                rel,
                Slot::Node(from.iri.clone()),
                Slot::Node(to.iri.clone()),
                Reach::Transitive,
            )],
            ..Block::default()
        };
        return Reading::Plan(Box::new(Plan::new(Shape::Yes, X, body, understood)));
    }
    // A node the model places nowhere (nor its parts, nor what it is part
    // of): "no, not in Room 7" would claim what the data does not know.
    if rel == Rel::Location && !p.view.topo.is_placed(&from.iri) {
        let name = p.name(&from.iri);
        return Reading::Unsupported {
            understood: format!("whether {name} is located in {}", p.name(&to.iri)),
            why: format!("the building data records no location for {name}"),
        };
    }
    let understood = format!(
        "whether {} {}{} {}",
        p.name(&from.iri),
        rel.as_str(),
        if reach == Reach::Direct {
            " (directly)"
        } else {
            ""
        },
        p.name(&to.iri)
    );
    Reading::Plan(Box::new(Plan::new(
        Shape::Yes,
        X,
        Block {
            links: vec![link(
                rel,
                Slot::Node(from.iri.clone()),
                Slot::Node(to.iri.clone()),
                reach,
            )],
            ..Block::default()
        },
        understood,
    )))
}

/// Named nodes side by side in a question, joined by "and" or "or" (or
/// a comma): one side of a relation.
struct NodeGroup<'n> {
    nodes: Vec<&'n NodeMention>,
    /// Joined by "or": a choice among them.
    or: bool,
}

/// The question's named nodes grouped by what joins them: "and", "or",
/// "and/or" or a comma between two names puts them in one group.
fn node_groups<'n>(p: &'n Parts<'_>) -> Vec<NodeGroup<'n>> {
    let mut groups: Vec<NodeGroup<'n>> = Vec::new();
    let mut last_end = None;
    for n in &p.nodes {
        let gap = last_end.and_then(|end| p.lower.get(end..n.span.start));
        last_end = Some(n.span.end);
        let joint = gap.map(|g| (g.contains(','), g.replace(',', " ")));
        let joined = joint.as_ref().and_then(|(comma, words)| {
            match words.split_whitespace().collect::<Vec<_>>().as_slice() {
                ["and"] | ["and/or"] => Some(false),
                ["or"] => Some(true),
                [] if *comma => Some(false),
                _ => None,
            }
        });
        match (joined, groups.last_mut()) {
            (Some(or), Some(last)) => {
                last.or |= or;
                last.nodes.push(n);
            }
            _ => groups.push(NodeGroup {
                nodes: vec![n],
                or: false,
            }),
        }
    }
    groups
}

/// A yes/no question relating one named node to several ("does ahu 1 feed
/// vav 1-01 and vav 2-14": every pair must hold) or asking which of
/// several ("is vav 2-14 on ahu 1 or ahu 2": the list of those that are).
/// A medium asked is not read over several nodes.
fn listed(
    p: &Parts<'_>,
    rel: Rel,
    reach: Reach,
    froms: &NodeGroup<'_>,
    tos: &NodeGroup<'_>,
) -> Reading {
    let names = |g: &NodeGroup<'_>, joint: &str| {
        let said: Vec<String> = g.nodes.iter().map(|n| p.name(&n.iri)).collect();
        said.join(joint)
    };
    let how = if reach == Reach::Direct {
        " (directly)"
    } else {
        ""
    };
    if p.medium_said() || (froms.nodes.len() > 1 && tos.nodes.len() > 1) {
        return Reading::Unsupported {
            understood: format!(
                "whether {} {}{how} {}",
                names(froms, ", "),
                rel.as_str(),
                names(tos, ", ")
            ),
            why: "a medium asked of several named nodes, or names on both sides of the relation, is not read".to_owned(),
        };
    }
    let (many, one, many_first) = if froms.nodes.len() > 1 {
        (froms, tos.nodes[0], true)
    } else {
        (tos, froms.nodes[0], false)
    };
    // The relation said with the several names where they stand: "AHU-1,
    // AHU-2 feeds (directly) VAV-2-14", "HWP-1 feeds (directly) AHU-1 and
    // AHU-2".
    let one_name = p.name(&one.iri);
    let claim = |said: String| {
        if many_first {
            format!("{said} {}{how} {one_name}", rel.as_str())
        } else {
            format!("{one_name} {}{how} {said}", rel.as_str())
        }
    };
    let single = Slot::Node(one.iri.clone());
    let pair = |other: Slot| {
        if many_first {
            link(rel, other, single.clone(), reach)
        } else {
            link(rel, single.clone(), other, reach)
        }
    };
    if many.or {
        // Which of them: the list of those the relation holds for.
        let body = Block {
            links: vec![pair(Slot::var(X))],
            values: many
                .nodes
                .iter()
                .map(|n| (X.to_owned(), n.iri.clone()))
                .collect(),
            ..Block::default()
        };
        let list = names(many, ", ");
        let understood = if many_first {
            format!("which of {}", claim(list))
        } else {
            format!("which of {list} {one_name} {}{how}", rel.as_str())
        };
        let mut plan = Plan::new(Shape::List, X, body, understood);
        plan.cited.push(one.iri.clone());
        plan.choice = true;
        return Reading::Plan(Box::new(plan));
    }
    let body = Block {
        links: many
            .nodes
            .iter()
            .map(|n| pair(Slot::Node(n.iri.clone())))
            .collect(),
        ..Block::default()
    };
    let all = names(many, " and ");
    let understood = format!(
        "whether {}",
        claim(if many_first {
            format!("{all} each")
        } else {
            all
        })
    );
    Reading::Plan(Box::new(Plan::new(Shape::Yes, X, body, understood)))
}

/// Rule 2: does the named node have parts or points of every class named?
fn has_all(p: &Parts<'_>) -> Reading {
    let a = &p.nodes[0];
    let mut body = Block::default();
    let mut said = Vec::new();
    // "are there any VAVs in building b", "does room a-214 have a vav": a
    // place holds equipment by where the equipment is located (in it or
    // in its rooms and floors), not as a part.
    let place = p.view.is_location(&a.iri);
    for (i, c) in p.classes.iter().enumerate() {
        let v = format!("c{i}");
        let (node, var) = (Slot::Node(a.iri.clone()), Slot::var(&v));
        let (l, what) = if c.point {
            let l = link(Rel::Point, node, var, Reach::Direct);
            (l, indefinite(&p.class_name(c)))
        } else if place && !c.location {
            // A model that places no equipment of the kind anywhere
            // ("does room7 have a vav" where no VAV has a location) cannot
            // say no.
            let topo = p.view.topo;
            let placed = p.view.instances_of(&c.iri).any(|n| topo.is_placed(n));
            if !placed {
                let kind = p.class_name(c);
                return Reading::Unsupported {
                    understood: format!(
                        "whether {} has {} located in it",
                        p.name(&a.iri),
                        indefinite(&kind)
                    ),
                    why: format!("the building data records no location for any {kind}"),
                };
            }
            let l = link(Rel::Location, var, node, Reach::Transitive);
            (l, format!("{} located in it", indefinite(&p.class_name(c))))
        } else {
            let l = link(Rel::Part, node, var, Reach::Transitive);
            (l, indefinite(&p.class_name(c)))
        };
        body.links.push(l);
        body.types.push((Slot::var(&v), c.iri.clone()));
        said.push(what);
    }
    Reading::Plan(Box::new(Plan::new(
        Shape::Yes,
        "c0",
        body,
        format!("whether {} has {}", p.name(&a.iri), said.join(" and ")),
    )))
}

/// A class's name with its indefinite article: "a Chiller", "an AHU".
pub(super) fn indefinite(name: &str) -> String {
    let vowel = name
        .chars()
        .next()
        .is_some_and(|c| "AEIOUaeiou".contains(c));
    format!("{} {name}", if vowel { "an" } else { "a" })
}

/// Rule 3: a count of one class per node of another.
fn per_group(p: &Parts<'_>) -> Option<Reading> {
    // "fed by a chiller": "by" after a verb of supply names the supplier,
    // no grouping.
    let agent = |g: usize| {
        let i = p.words.iter().position(|w| w.span.start == g);
        i.is_some_and(|i| {
            p.words[i].text == "by"
                && i > 0
                && [Cue::FeedVerb, Cue::Upstream, Cue::Downstream]
                    .iter()
                    .any(|&c| p.cues.is(c, &p.words[i - 1].text))
        })
    };
    let at: Vec<usize> = p
        .cue_at(Cue::Group)
        .into_iter()
        .filter(|&g| !agent(g))
        .collect();
    let group = p.classes.iter().find(|c| {
        at.iter().any(|&g| {
            g < c.span.start
                && p.words
                    .iter()
                    .filter(|w| w.span.start > g && w.span.end <= c.span.start)
                    .all(|w| p.cues.is(Cue::FunctionWord, &w.text))
        })
    })?;
    let counted = p
        .classes
        .iter()
        .find(|c| c.span.start != group.span.start)?;
    if !p.nodes.is_empty() {
        return None;
    }
    // The relation the data has between the two classes, one hop.
    let view = p.view;
    let is = |iri: &str, class: &str| {
        view.topo
            .types(iri)
            .iter()
            .any(|t| view.onto.is_a(t, class))
    };
    let wanted = p.relation().map(|(r, _)| r);
    let mut choice: Option<(Rel, bool)> = None;
    for rel in [Rel::Feeds, Rel::Part, Rel::Point, Rel::Location] {
        if wanted.is_some_and(|w| w != rel) {
            continue;
        }
        for (s, t) in view.topo.edges(topo_rel(rel)) {
            if is(s, &group.iri) && is(t, &counted.iri) {
                choice = Some((rel, true));
            } else if is(t, &group.iri) && is(s, &counted.iri) {
                choice = Some((rel, false));
            }
            if choice.is_some() {
                break;
            }
        }
        if choice.is_some() {
            break;
        }
    }
    let understood = format!(
        "the number of {} per {}",
        p.class_name(counted),
        p.class_name(group)
    );
    let Some((rel, group_first)) = choice else {
        return Some(Reading::Unsupported {
            understood,
            why: format!(
                "the building data links no {} to a {} directly",
                p.class_name(counted),
                p.class_name(group)
            ),
        });
    };
    let (from, to) = if group_first {
        (Slot::var("g"), Slot::var(X))
    } else {
        (Slot::var(X), Slot::var("g"))
    };
    Some(Reading::Plan(Box::new(Plan::new(
        Shape::PerGroup("g".into()),
        X,
        Block {
            links: vec![link(rel, from, to, Reach::Direct)],
            types: vec![
                (Slot::var("g"), group.iri.clone()),
                (Slot::var(X), counted.iri.clone()),
            ],
            ..Block::default()
        },
        understood,
    ))))
}

fn unsupported(p: &Parts<'_>, rel: Rel) -> Reading {
    Reading::Unsupported {
        understood: format!("a '{}' question", rel.as_str()),
        why: format!(
            "the loaded building data has no '{}' relation at all{}",
            rel.as_str(),
            if p.nodes.is_empty() {
                String::new()
            } else {
                format!(" (asked about {})", p.name(&p.nodes[0].iri))
            }
        ),
    }
}

/// Absence ("without a CO2 sensor") and "more than N points" on the target.
fn narrowing(p: &Parts<'_>, target: &ClassMention, plan: &mut Plan) {
    let x = Slot::var(X);
    let neg = p.cue_at(Cue::Absent);
    for (i, c) in p
        .classes
        .iter()
        .filter(|c| c.span.start > target.span.end)
        .enumerate()
    {
        let v = format!("h{i}");
        let (rel, reach) = if c.point {
            (Rel::Point, Reach::Direct)
        } else if c.location {
            (Rel::Location, Reach::Transitive)
        } else {
            (Rel::Part, Reach::Transitive)
        };
        let mut b = Block {
            links: vec![link(rel, x.clone(), Slot::var(&v), reach)],
            ..Block::default()
        };
        if !c.generic {
            b.types.push((Slot::var(&v), c.iri.clone()));
        }
        // "which equipment is a rooftop unit": the class is what it is.
        let between = p.lower[target.span.end..c.span.start].trim();
        if !c.generic && matches!(between, "is a" | "is an" | "are" | "that is a" | "that are") {
            plan.body.types.push((x.clone(), c.iri.clone()));
            plan.understood = format!("the {}", p.class_name(c));
            continue;
        }
        let negated = neg.iter().any(|&n| n > target.span.end && n < c.span.start);
        let more = p.first(Cue::More);
        let fewer = p.first(Cue::Fewer);
        let cmp = more.map(|m| (m, true)).or(fewer.map(|f| (f, false)));
        if let Some((at, is_more)) = cmp.filter(|(at, _)| *at < c.span.start)
            && let Some(n) = p
                .words
                .iter()
                .filter(|w| w.span.start > at && w.span.end <= c.span.start)
                .find_map(|w| number(&w.text))
        {
            b.links[0].to = Slot::var("y");
            if let Some(t) = b.types.first_mut() {
                t.0 = Slot::var("y");
            }
            plan.having = Some(Having {
                counted: b,
                var: "y".into(),
                more: is_more,
                n,
            });
            plan.understood.push_str(&format!(
                " with {} than {n} {}",
                if is_more { "more" } else { "fewer" },
                p.class_name(c)
            ));
        } else if negated {
            plan.absent.push(b);
            plan.understood
                .push_str(&format!(" without a {}", p.class_name(c)));
        } else if !c.generic {
            for l in b.links {
                plan.body.links.push(l);
            }
            plan.body.types.extend(b.types);
            plan.understood
                .push_str(&format!(" with a {}", p.class_name(c)));
        }
    }
}

/// Rule 4: what stands in the asked relation to one named node.
fn anchored(p: &Parts<'_>) -> Reading {
    let a = &p.nodes[0];
    let anchor = Slot::Node(a.iri.clone());
    let x = Slot::var(X);
    let name = p.name(&a.iri);
    let count = p.count_asked();
    let shape = if count { Shape::Count } else { Shape::List };
    let focus = p.classes.first().cloned();
    let specific = focus.as_ref().filter(|c| !c.generic);
    // A unit of a point of the node.
    if p.free_cue(Cue::Unit) && !p.has(Cue::FeedVerb) {
        let point = p.classes.iter().find(|c| c.point && !c.generic);
        let mut body = Block::default();
        let understood;
        if let Some(c) = point {
            body.links
                .push(link(Rel::Point, anchor.clone(), x.clone(), Reach::Direct));
            body.types.push((x.clone(), c.iri.clone()));
            understood = format!("the unit of the {} of {name}", p.class_name(c));
        } else if p.view.is_point(&a.iri) {
            body.values.push((X.to_owned(), a.iri.clone()));
            understood = format!("the unit of {name}");
        } else {
            return Reading::NotGraph;
        }
        return Reading::Plan(Box::new(Plan::new(Shape::Unit, X, body, understood)));
    }
    // "what class is the ahu-2 sat point", "what kind of equipment is
    // CHWP-2": the node's kind, not its points or parts.
    if p.asks_kind() {
        let mut plan = Plan::new(
            shape,
            X,
            Block {
                values: vec![(X.to_owned(), a.iri.clone())],
                ..Block::default()
            },
            format!("the kind of {name}"),
        );
        plan.typed = true;
        return Reading::Plan(Box::new(plan));
    }
    // "whose point is BASIN-T": what has the named point.
    if p.view.is_point(&a.iri) && p.words.iter().any(|w| w.text == "whose") {
        let body = Block {
            links: vec![link(Rel::Point, x, anchor, Reach::Direct)],
            ..Block::default()
        };
        return Reading::Plan(Box::new(Plan::new(
            shape,
            X,
            body,
            format!("what has {name}"),
        )));
    }
    // "which sensor measures discharge air temp on vav1": the node named
    // through another is the answer; the generic word only says what it is.
    // ("… and its brick class" asks more: left to the rest.)
    if !p.context.is_empty()
        && !p.classes.is_empty()
        && p.classes.iter().all(|c| c.generic)
        && p.relation().is_none()
        && !p.has(Cue::ProductPhrase)
    {
        return named_through(p, a, shape);
    }
    // The relation the data has between the node and the kind asked, read
    // once (up to three rules below ask for it).
    let in_data =
        std::cell::LazyCell::new(|| specific.and_then(|c| relation_in_data(p, &a.iri, c)));
    let rel = match p.relation() {
        // "which rooms lose air if AHU-2 trips": what it feeds.
        _ if p.stopped.is_some() => Some((Rel::Feeds, usize::MAX)),
        // "CHWST-SP belongs to what system": a point is no part; what it
        // belongs to is what has it.
        Some((Rel::Part, at))
            if p.view.is_point(&a.iri) && focus.as_ref().is_none_or(|c| !c.point) =>
        {
            Some((Rel::Point, at))
        }
        Some((r, at)) => Some((r, at)),
        // "which dampers are on vav-1-05": a kind the model makes a part of
        // equipment (the air handlers' dampers) said "on" a unit asks for
        // the unit's own parts of the kind, read as such when the model
        // gives it none (the box's damper is not modelled); not what feeds
        // it, the dampers of the air handler upstream. Found only
        // downstream, it is what the unit serves ("which coils are on
        // hwp-1").
        None if p.has(Cue::On)
            && !p.view.is_point(&a.iri)
            && !p.is_location(&a.iri)
            && specific.is_some_and(|c| {
                !c.point
                    && !c.location
                    && matches!(*in_data, None | Some((Rel::Feeds, false)))
                    && super::parts_of_kind(p.view, &c.iri, &vocab::brick("Equipment"))
            }) =>
        {
            Some((Rel::Part, usize::MAX))
        }
        // "VAVs on AHU-1" (not "points on VAV-2").
        // ("VAVs on floor 3" asks what is in the place, "which damper is on
        // the ahu" its parts of that kind, "which system is HW-DP-SP on"
        // the equipment that has the point: read from the data.)
        None if p.has(Cue::On)
            && !p.view.is_point(&a.iri)
            && specific.is_some_and(|c| {
                !c.point && !c.location && !matches!(*in_data, Some((Rel::Part | Rel::Point, true)))
            })
            && !p.is_location(&a.iri) =>
        {
            p.first(Cue::On).map(|at| (Rel::Feeds, at))
        }
        // "which equipment is AHU-1 SAT-SP on": a kind, however general,
        // asked before a named point with "on" after it is what has the
        // point ("the DAT point on vav 1-07 and its brick class" is not).
        None if p.view.is_point(&a.iri)
            && p.first(Cue::On).is_some_and(|at| at >= a.span.end)
            && focus
                .as_ref()
                .is_some_and(|c| !c.point && c.span.end <= a.span.start) =>
        {
            p.first(Cue::On).map(|at| (Rel::Point, at))
        }
        None => None,
    };
    let points_asked = p.classes.iter().any(|c| c.point) && rel.is_none();
    // A point has no points: "AHU-1 SAT setpoint" asks for the point
    // beside it on its equipment.
    if points_asked
        && p.view.is_point(&a.iri)
        && p.view.topo.out_of(&a.iri, TopoRel::HasPoint).is_empty()
    {
        return beside_point(p, a, shape);
    }
    let mut data_whole = false;
    let (rel, at) = match rel {
        Some(r) => r,
        None if points_asked => (Rel::Point, 0),
        None => match (specific, focus.as_ref()) {
            // No relation word: the direction is the one the data has
            // ("ahu1 rvavs": the boxes AHU-1 feeds); a position past the
            // node reads as "the node is the subject".
            (Some(c), _) => match *in_data {
                // "the dampers of VAV-1-05", "vav-1-05 dampers": a kind the
                // model makes a part of equipment, found upstream of a unit,
                // is the unit's own, as after "on" above ("hwp-1 coils" are
                // the coils it serves).
                Some((Rel::Feeds, false))
                    if !p.is_location(&a.iri)
                        && super::parts_of_kind(p.view, &c.iri, &vocab::brick("Equipment")) =>
                {
                    (Rel::Part, usize::MAX)
                }
                Some((r, subject)) => {
                    data_whole = r == Rel::Part && !subject;
                    (r, if subject { usize::MAX } else { 0 })
                }
                // "How many rooms does Floor 4 have" where the model puts no
                // room in it: the count is 0 (read from the parts).
                None if count => (Rel::Part, usize::MAX),
                None => {
                    return Reading::Unsupported {
                        understood: format!("the {} related to {name}", p.class_name(c)),
                        why: format!(
                            "the building data links no {} to {name} by feeds, parts, points or location",
                            p.class_name(c)
                        ),
                    };
                }
            },
            // "vav1 DAT sensor?": the question names one node through
            // another; the answer is that node.
            _ if !p.context.is_empty() && p.classes.is_empty() => {
                return named_through(p, a, shape);
            }
            // "what's in room a-390": what is located in the named place.
            _ if p.classes.is_empty()
                && p.is_location(&a.iri)
                && p.lower[..a.span.start].trim_end().ends_with(" in") =>
            {
                if !p.has_edges(Rel::Location) {
                    return unsupported(p, Rel::Location);
                }
                let body = Block {
                    links: vec![link(Rel::Location, x, anchor, Reach::Transitive)],
                    ..Block::default()
                };
                let understood =
                    format!("{}what is in {name}", if count { "how many: " } else { "" });
                return Reading::Plan(Box::new(Plan::new(shape, X, body, understood)));
            }
            _ => return Reading::NotGraph,
        },
    };
    if !p.has_edges(rel) {
        return unsupported(p, rel);
    }
    // The model records nothing of this relation for this node (nor its
    // parts, nor the spaces it is in): "none" would claim what it does
    // not know.
    if !touches(p, &a.iri, rel) {
        return Reading::Unsupported {
            understood: format!("'{}' about {name}", rel.as_str()),
            why: format!(
                "the building data records no '{}' relation for {name}",
                rel.as_str()
            ),
        };
    }
    let mut plan = Plan::new(shape, X, Block::default(), String::new());
    let direct_asked = p.has(Cue::Direct);
    let chain_asked = p.has(Cue::Transitive)
        || p.stopped.is_some()
        || p.has(Cue::Upstream) && p.words.iter().any(|w| w.text == "upstream")
        || p.words.iter().any(|w| w.text == "downstream");
    // With a class asked for: one hop when a neighbour of that class is
    // there ("which pumps feed the AHU-2 cooling coil"), the chain when
    // not ("which zones does AHU-1 serve").
    let near = specific.is_some_and(|c| {
        let topo = p.view.topo;
        let tr = topo_rel(rel);
        topo.out_of(&a.iri, tr)
            .into_iter()
            .chain(topo.into(&a.iri, tr))
            .any(|n| p.view.is_a_any(&n, std::slice::from_ref(&c.iri)))
    });
    let reach = if direct_asked || (near && !chain_asked) {
        Reach::Direct
    } else if specific.is_some() || chain_asked {
        Reach::Transitive
    } else {
        Reach::Direct
    };
    let what = specific.map_or_else(|| "what".to_owned(), |c| p.class_name(c));
    match rel {
        Rel::Feeds => {
            // What makes a node's medium stands upstream of it, wherever
            // the node is said ("vav 3-07 - what makes its chilled water").
            let made = p.made_at().is_some();
            let downstream = p.stopped.is_some() || !made && feeds_down(p, a, at);
            let topo = p.view.topo;
            let hop = |n: &str| {
                if downstream {
                    topo.out_of(n, TopoRel::Feeds)
                } else {
                    topo.into(n, TopoRel::Feeds)
                }
            };
            // "what machines make that chilled water": what produces the
            // medium, wherever upstream it stands (a kind asked, "which
            // chillers make …", is the chain of supply typed).
            let making = made && specific.is_none();
            let medium = p.medium().filter(|_| reach == Reach::Direct || making);
            // "what does the reheat coil get hot water from" where the one
            // coil is a chilled-water coil: the node and each of its parts
            // carry another medium than the one asked (an air handler's
            // coils carry water though it carries air), and no list of its
            // suppliers answers.
            let group: Vec<String> = std::iter::once(a.iri.clone())
                .chain(topo.parts(&a.iri))
                .collect();
            let members = group.len();
            if let Some((said, kind)) = medium
                && p.other_medium((said, kind), group).len() == members
            {
                let asked = medium_words((said, kind));
                return Reading::Unsupported {
                    understood: format!("what supplies {name} with {asked}"),
                    why: format!("{name} is of a kind that carries another medium than {asked}"),
                };
            }
            // The node the medium is asked of: the named one, or, when it
            // takes none of it itself, the equipment its air comes from.
            let (node, through) = match medium.filter(|_| !downstream) {
                Some(m) => match medium_node(p, &a.iri, &name, m, &hop) {
                    Ok(found) => found,
                    Err(reading) => return reading,
                },
                None => (a.iri.clone(), Vec::new()),
            };
            if making && let Some(m) = medium {
                let asked = MadeBy {
                    named: &a.iri,
                    name: &name,
                    node: &node,
                    medium: m,
                    through,
                };
                return made_by(p, plan, asked);
            }
            let anchor = Slot::Node(node.clone());
            let (from, to) = if downstream {
                (anchor.clone(), x.clone())
            } else {
                (x.clone(), anchor.clone())
            };
            let mut l = link(Rel::Feeds, from, to, reach);
            let parts = topo.parts(&node);
            if let Some(medium) = medium {
                // A medium asked: neither through the node's parts that
                // carry another, nor from or to equipment that does, nor
                // what feeds the node itself when the medium enters it
                // through its parts (a box's fan supplies air, its reheat
                // coil's pump the hot water).
                let neighbours: Vec<String> = std::iter::once(node.clone())
                    .chain(parts.iter().cloned())
                    .flat_map(|n| hop(&n))
                    .collect();
                l.not_through = p.other_medium(medium, parts.clone());
                plan.excluded
                    .extend(p.other_medium(medium, neighbours.clone()));
                plan.excluded.extend(air_side(p, &node, medium));
                if medium_from_parts(p, &node, medium) {
                    let by_parts = medium_feeders(p, &node, medium, &hop);
                    plan.excluded
                        .extend(hop(&node).into_iter().filter(|f| !by_parts.contains(f)));
                }
                // Equipment stands next to the node, none of it known to
                // carry the medium asked: "none" would deny what the data
                // does not say ("what supplies air to ahu-2 sf", fed by
                // the cooling coil, whose kind names water).
                let outside = |n: &String| *n != node && !parts.contains(n);
                let next: Vec<String> = neighbours.into_iter().filter(outside).collect();
                let left = std::iter::once(&node)
                    .chain(parts.iter().filter(|x| !l.not_through.contains(x)))
                    .flat_map(|n| hop(n))
                    .filter(outside)
                    .any(|n| !plan.excluded.contains(&n));
                if !next.is_empty() && !left {
                    let (said, kind) = medium;
                    let asked = medium_words((said, kind));
                    let name = p.name(&node);
                    return Reading::Unsupported {
                        understood: format!("what supplies {name} with {asked}"),
                        why: format!(
                            "the building data records what {} {name}, none of it as carrying {asked}",
                            if downstream { "is fed by" } else { "feeds" }
                        ),
                    };
                }
            }
            plan.hop_guessed = reach == Reach::Direct && near && !direct_asked && medium.is_none();
            plan.direct_asked = direct_asked;
            plan.body.links.push(l);
            // The supply inside the node (its damper feeding its coil) is
            // not what feeds it or what it feeds; a chain may also come
            // back to what the node is part of.
            plan.excluded.push(node.clone());
            plan.excluded.extend(parts);
            plan.excluded.extend(through.iter().cloned());
            if reach == Reach::Transitive {
                plan.excluded.extend(p.view.topo.containers(&node));
            }
            let node_name = p.name(&node);
            plan.understood = format!(
                "{what} {} {node_name}{}",
                if downstream { "is fed by" } else { "feeds" },
                match (reach, medium) {
                    (Reach::Direct, Some((medium, kind))) =>
                        format!(" directly ({})", medium_words((medium, kind))),
                    (Reach::Direct, None) => " directly".to_owned(),
                    _ => ", through any chain of supply".to_owned(),
                }
            );
            if p.stopped.is_some() {
                plan.stopped = Some(node.clone());
                plan.understood = match specific {
                    Some(_) => format!(
                        "the {what} that would lose their supply if {node_name} stopped (fed by it, through any chain of supply)"
                    ),
                    None => format!(
                        "what would lose its supply if {node_name} stopped (what it feeds, through any chain of supply)"
                    ),
                };
            }
            if let Some((medium, kind)) = medium.filter(|_| !through.is_empty()) {
                let asked = medium_words((medium, kind));
                plan.understood = format!(
                    "{name} takes no {asked} itself: it gets its air from {node_name}; {}",
                    plan.understood
                );
                plan.cited.extend(through);
            }
        }
        Rel::Part => {
            let part_of = p.first(Cue::PartOf);
            let whole_asked = data_whole
                || part_of
                    .is_some_and(|at| at > a.span.end && p.lower[at..].starts_with("part of"));
            let (from, to) = if whole_asked {
                (x.clone(), anchor.clone())
            } else {
                (anchor.clone(), x.clone())
            };
            plan.body.links.push(link(Rel::Part, from, to, reach));
            plan.understood = match (whole_asked, specific.is_some()) {
                (true, true) => format!("the {what} that {name} is part of"),
                (true, false) => format!("what {name} is part of"),
                (false, true) => format!("the {what} that are part of {name}"),
                (false, false) => format!("the parts of {name}"),
            };
        }
        // "which system is HW-DP-SP on": the equipment of the kind asked
        // that has the named point.
        // (A general word, "equipment", narrows nothing: a system has
        // points too.)
        Rel::Point if p.view.is_point(&a.iri) && focus.as_ref().is_none_or(|c| !c.point) => {
            plan.body
                .links
                .push(link(Rel::Point, x.clone(), anchor.clone(), Reach::Direct));
            plan.understood = match focus.as_ref() {
                Some(c) => {
                    if !c.generic {
                        plan.body.types.push((x.clone(), c.iri.clone()));
                    }
                    format!("the {} that has {name}", p.class_name(c))
                }
                None => format!("what has {name}"),
            };
        }
        Rel::Point => {
            if p.is_location(&a.iri) {
                plan.body.any_of.push(vec![
                    link(Rel::Point, anchor.clone(), x.clone(), Reach::Direct),
                    link(Rel::Location, x.clone(), anchor.clone(), Reach::Direct),
                ]);
            } else {
                plan.body
                    .links
                    .push(link(Rel::Point, anchor.clone(), x.clone(), Reach::Direct));
            }
            // A kind of point narrows even when it has many kinds under it
            // ("the setpoints on AHU-1", "the sensors on VAV-3-02"); only
            // "points" itself asks for them all.
            let point = p
                .classes
                .iter()
                .rfind(|c| c.point && c.iri != vocab::brick("Point"));
            let what = point.map_or_else(|| "points".to_owned(), |c| p.class_name(c));
            if let Some(c) = point {
                plan.body.types.push((x.clone(), c.iri.clone()));
            }
            plan.understood = format!("the {what} of {name}");
        }
        // "sensors located in room 306": what is in the named place.
        Rel::Location
            if p.is_location(&a.iri)
                && focus.as_ref().is_some_and(|c| c.span.end <= a.span.start) =>
        {
            let Some(c) = focus.as_ref() else {
                return Reading::NotGraph;
            };
            if c.point {
                plan.body.any_of.push(vec![
                    link(Rel::Point, anchor.clone(), x.clone(), Reach::Direct),
                    link(Rel::Location, x.clone(), anchor.clone(), Reach::Direct),
                ]);
            } else {
                plan.body.links.push(link(
                    Rel::Location,
                    x.clone(),
                    anchor.clone(),
                    Reach::Transitive,
                ));
            }
            plan.body.types.push((x.clone(), c.iri.clone()));
            plan.understood = format!(
                "{}the {} in {name}",
                if count { "how many: " } else { "" },
                p.class_name(c)
            );
            return Reading::Plan(Box::new(plan));
        }
        Rel::Location => {
            // "what room and floor is VAV-2-16 in": every place it is in,
            // not a room that is on a floor.
            let places: Vec<&ClassMention> = p
                .classes
                .iter()
                .filter(|c| c.location && !c.generic)
                .collect();
            let several = places.windows(2).any(|w| {
                w[0].span.end <= w[1].span.start
                    && matches!(
                        p.lower[w[0].span.end..w[1].span.start].trim(),
                        "and" | "&" | "+" | "plus" | "/" | "," | "or" | "and which" | "and what"
                    )
            });
            let reach = if specific.is_some() {
                Reach::Transitive
            } else {
                Reach::Direct
            };
            plan.body
                .links
                .push(link(Rel::Location, anchor.clone(), x.clone(), reach));
            plan.understood = format!("where {name} is");
            if several {
                let kinds: Vec<String> = places.iter().map(|c| p.class_name(c)).collect();
                plan.understood = format!("where {name} is ({})", kinds.join(", "));
                if count {
                    plan.understood = format!("how many: {}", plan.understood);
                }
                return Reading::Plan(Box::new(plan));
            }
        }
    }
    if rel != Rel::Point
        && let Some(c) = specific
    {
        plan.body.types.push((x.clone(), c.iri.clone()));
        if let Some(focus) = &focus {
            narrowing(p, focus, &mut plan);
        }
    }
    if count {
        plan.understood = format!("how many: {}", plan.understood);
    }
    Reading::Plan(Box::new(plan))
}

/// "AHU-1 SAT setpoint", "vav-1-01 dat sp": a kind of point asked after a
/// named point (which has no points of its own) is the point beside it on
/// its equipment that is what the named one is but for its function — the
/// Brick tags of the named point's class with its function tags replaced
/// by the asked kind's ("VAV-2-14 ZNT setpoint": its heating and cooling
/// setpoints). None: the graph facts and documents may say.
fn beside_point(p: &Parts<'_>, a: &NodeMention, shape: Shape) -> Reading {
    let Some(owner) = p.view.topo.owner_of_point(&a.iri) else {
        return Reading::NotGraph;
    };
    let asked: Vec<String> = p
        .classes
        .iter()
        .filter(|c| c.point)
        .filter_map(|c| p.view.onto.class(&c.iri))
        .flat_map(|c| c.tags.iter().cloned())
        .collect();
    let found = p.view.points_beside(&a.iri, &asked).unwrap_or_default();
    if found.is_empty() {
        return Reading::NotGraph;
    }
    let kind = p
        .classes
        .iter()
        .find(|c| c.point)
        .map_or_else(|| "point".to_owned(), |c| p.class_name(c));
    let mut plan = Plan::new(
        shape,
        X,
        Block {
            values: found.into_iter().map(|n| (X.to_owned(), n)).collect(),
            ..Block::default()
        },
        format!("the {kind} beside {} on {}", p.name(&a.iri), p.name(&owner)),
    );
    plan.cited = vec![a.iri.clone(), owner];
    Reading::Plan(Box::new(plan))
}

/// The node the question names through another ("vav1 DAT sensor" is the
/// box's DAT point): the answer is that node.
fn named_through(p: &Parts<'_>, a: &NodeMention, shape: Shape) -> Reading {
    Reading::Plan(Box::new(Plan::new(
        shape,
        X,
        Block {
            values: vec![(X.to_owned(), a.iri.clone())],
            ..Block::default()
        },
        format!("the point or part of {} asked about", p.name(&p.context[0])),
    )))
}

/// Whether the node, one of its parts or a space it is in has an edge of
/// the relation.
/// Where a medium enters `node` (its parts that carry it, or the node)
/// and what stands upstream of there along the supply of that medium:
/// past nothing that carries another, nor the node's own parts, nor the
/// other parts of an air handler it is part of (they feed it air).
fn medium_upstream(
    p: &Parts<'_>,
    node: &str,
    medium: (&str, Option<&str>),
) -> (Vec<String>, Vec<String>) {
    let topo = p.view.topo;
    let parts = topo.parts(node);
    let mut entries: Vec<String> = parts
        .iter()
        .filter(|x| p.carries(medium, x))
        .cloned()
        .collect();
    if entries.is_empty() {
        entries.push(node.to_owned());
    }
    let mut seen: Vec<String> = std::iter::once(node.to_owned())
        .chain(parts.iter().cloned())
        .chain(air_side(p, node, medium))
        .collect();
    let mut frontier = entries.clone();
    let mut upstream: Vec<String> = Vec::new();
    while let Some(n) = frontier.pop() {
        for f in topo.into(&n, TopoRel::Feeds) {
            if seen.contains(&f) {
                continue;
            }
            seen.push(f.clone());
            if p.other_medium(medium, vec![f.clone()]).is_empty() {
                upstream.push(f.clone());
                frontier.push(f);
            }
        }
    }
    (entries, upstream)
}

/// The node a medium asked of `node` (said `name`) is supplied through,
/// with the nodes passed on the way: `node` itself; or, when the medium
/// enters it through its parts and none of them takes it ("where does vav
/// 3-07 get its chilled water from": the box's one coil takes hot water),
/// the one unit its air comes from whose parts take it (AHU-2, whose
/// cooling coil the chilled water enters), passing the node and its
/// feeders of that unit. No one such unit: the reading that abstains.
fn medium_node(
    p: &Parts<'_>,
    node: &str,
    name: &str,
    medium: (&str, Option<&str>),
    hop: &dyn Fn(&str) -> Vec<String>,
) -> Result<(String, Vec<String>), Reading> {
    if !medium_from_parts(p, node, medium) || !medium_feeders(p, node, medium, hop).is_empty() {
        return Ok((node.to_owned(), Vec::new()));
    }
    let topo = p.view.topo;
    let fans = hop(node);
    let mut wholes: Vec<String> = fans
        .iter()
        .flat_map(|f| std::iter::once(f.clone()).chain(topo.containers(f)))
        .filter(|w| w != node)
        .filter(|w| p.carries(medium, w) || topo.parts(w).iter().any(|x| p.carries(medium, x)))
        .collect();
    wholes.sort();
    wholes.dedup();
    let [whole] = wholes.as_slice() else {
        let asked = medium_words(medium);
        return Err(Reading::Unsupported {
            understood: format!("what supplies {name} with {asked}"),
            why: format!(
                "none of {name}'s parts takes {asked}, and the building data names no one unit it gets air from whose parts do"
            ),
        });
    };
    let through = std::iter::once(node.to_owned())
        .chain(
            fans.iter()
                .filter(|f| *f == whole || topo.containers(f).contains(whole))
                .cloned(),
        )
        .collect();
    Ok((whole.clone(), through))
}

/// What a production question is asked of: the node named (`named`, said
/// `name`), the
/// node the medium is asked of (`node`: the named one, or the equipment its
/// air comes from), the medium, and the nodes the question went through to
/// reach `node`.
struct MadeBy<'s> {
    named: &'s str,
    name: &'s str,
    node: &'s str,
    medium: (&'s str, Option<&'s str>),
    through: Vec<String>,
}

/// "What machines make the chilled water for AHU-2": the equipment
/// upstream of where the medium enters the node (its parts that carry it,
/// or the node) along the supply of that medium — past what carries
/// another medium, and past the node's own parts (its filter and coils
/// feed each other with air) — that does not carry the medium under its
/// kind's name: the chiller that makes chilled water, not the chilled
/// water pumps that carry it. The graph checks each: it feeds, through
/// any chain, where the medium enters.
fn made_by(p: &Parts<'_>, mut plan: Plan, asked: MadeBy<'_>) -> Reading {
    let MadeBy {
        named,
        name,
        node,
        medium,
        through,
    } = asked;
    let topo = p.view.topo;
    let parts = topo.parts(node);
    let said = medium_words(medium);
    let (entries, upstream) = medium_upstream(p, node, medium);
    // What carries the medium says so in its kind: a chilled water pump
    // names chilled water, the chiller does not.
    let carrier = |n: &String| {
        let (media, kinds) = p.media_of(n);
        match medium.1 {
            Some(k) => kinds.contains(&k),
            None => media.contains(&medium.0),
        }
    };
    let makers: Vec<String> = upstream.iter().filter(|n| !carrier(n)).cloned().collect();
    let node_name = p.name(node);
    if makers.is_empty() {
        return Reading::Unsupported {
            understood: format!("what makes the {said} {node_name} gets"),
            why: if upstream.is_empty() {
                format!("the building data records nothing that supplies {node_name} with {said}")
            } else {
                format!(
                    "the building data shows what carries {said} to {node_name}, not equipment that makes it"
                )
            },
        };
    }
    let x = Slot::var(X);
    plan.body.values = makers.iter().map(|m| (X.to_owned(), m.clone())).collect();
    plan.body.any_of = vec![
        entries
            .iter()
            .map(|e| {
                link(
                    Rel::Feeds,
                    x.clone(),
                    Slot::Node(e.clone()),
                    Reach::Transitive,
                )
            })
            .collect(),
    ];
    plan.excluded.push(node.to_owned());
    plan.excluded.extend(parts);
    plan.excluded.extend(through.iter().cloned());
    let entered: Vec<String> = entries.iter().map(|e| p.name(e)).collect();
    plan.understood = format!(
        "what makes the {said} {node_name} gets, upstream of {} (past what only carries it)",
        entered.join(", ")
    );
    if !through.is_empty() {
        plan.understood = format!(
            "{name} takes no {said} itself: it gets its air from {node_name}; {}",
            plan.understood
        );
        plan.cited.extend(through);
    }
    if !plan.cited.iter().any(|c| c == named) {
        plan.cited.push(named.to_owned());
    }
    Reading::Plan(Box::new(plan))
}

/// A medium as the question said it, with its kind ("chilled water").
fn medium_words((medium, kind): (&str, Option<&str>)) -> String {
    kind.map_or(medium.to_owned(), |k| format!("{k} {medium}"))
}

/// The other parts of the equipment `node` is part of, when that
/// equipment's kind carries another medium altogether (air, asked water):
/// an air handler's filter, dampers and fans feed its hot-water coil air,
/// not hot water. (A chilled-water system asked for condenser water is no
/// such equipment: its pumps carry water, the condenser's among them.)
fn air_side(p: &Parts<'_>, node: &str, medium: (&str, Option<&str>)) -> Vec<String> {
    let topo = p.view.topo;
    topo.containers(node)
        .into_iter()
        .filter(|c| {
            let (media, _) = p.media_of(c);
            !media.is_empty() && !media.contains(&medium.0)
        })
        .flat_map(|c| topo.parts(&c))
        .filter(|x| x != node)
        .collect()
}

/// Whether a medium asked of `node` enters it through its parts: the node's
/// own kind does not carry it, and its kind carries another medium or one
/// of its parts carries the medium asked (of whatever kind: a box whose
/// reheat coil takes hot water takes no water itself).
fn medium_from_parts(p: &Parts<'_>, node: &str, medium: (&str, Option<&str>)) -> bool {
    if p.carries(medium, node) {
        return false;
    }
    let (own, _) = p.media_of(node);
    (!own.is_empty() && !own.contains(&medium.0))
        || p.view
            .topo
            .parts(node)
            .iter()
            .any(|x| p.media_of(x).0.contains(&medium.0))
}

/// What supplies `node` with a medium through its parts: the neighbours
/// (`hop`) of its parts that carry no other medium, themselves carrying no
/// other, and not the node or its parts.
fn medium_feeders(
    p: &Parts<'_>,
    node: &str,
    medium: (&str, Option<&str>),
    hop: &dyn Fn(&str) -> Vec<String>,
) -> Vec<String> {
    let parts = p.view.topo.parts(node);
    let other_parts = p.other_medium(medium, parts.clone());
    let found: Vec<String> = parts
        .iter()
        .filter(|x| !other_parts.contains(x))
        .flat_map(|x| hop(x))
        .filter(|f| f != node && !parts.contains(f))
        .collect();
    let other = p.other_medium(medium, found.clone());
    found.into_iter().filter(|f| !other.contains(f)).collect()
}

fn touches(p: &Parts<'_>, node: &str, rel: Rel) -> bool {
    let topo = p.view.topo;
    let tr = topo_rel(rel);
    let mut group = vec![node.to_owned()];
    group.extend(topo.parts(node));
    group.extend(topo.containers(node));
    group.extend(topo.out_of(node, TopoRel::HasLocation));
    group
        .iter()
        .any(|n| !topo.out_of(n, tr).is_empty() || !topo.into(n, tr).is_empty())
}

/// Whether a feeds question about the named node asks downstream.
fn feeds_down(p: &Parts<'_>, a: &NodeMention, verb: usize) -> bool {
    if p.words.iter().any(|w| w.text == "downstream") {
        return true;
    }
    if p.words.iter().any(|w| w.text == "upstream") {
        return false;
    }
    let before = |at: usize| at < a.span.start;
    // "served by AHU-1" (the node is the supplier), "VAV5 fed by?" (the
    // node is supplied).
    if let Some(&u) = p.cue_at(Cue::Upstream).first() {
        return before(u);
    }
    // "which VAVs on AHU-1": the node after "on" supplies; "which AHU is
    // VAV-2-14 on", "VAV-2-14 hangs off which AHU": the node before it is
    // supplied.
    // "which pumps are on AHU-2", "which chillers are on AHU-1": nothing of
    // the kind is downstream of the node and the data has it upstream (the
    // pumps feed its coils): the kind is what the node hangs on.
    if p.relation().is_none()
        && let Some(on) = p.first(Cue::On)
    {
        let only_upstream = p
            .specific()
            .first()
            .is_some_and(|c| matches!(relation_in_data(p, &a.iri, c), Some((Rel::Feeds, false))));
        return before(on) && !only_upstream;
    }
    // "boxes that get air from AHU-1" (the node supplies), "where does
    // VAV-2-14 get its air from" (the node is supplied).
    if p.medium_said()
        && let Some(from) = p.first(Cue::Source)
    {
        return before(from);
    }
    if p.first(Cue::Source).is_some_and(before) {
        return true;
    }
    // "where does VAV-2-14 get its hot water": the node before a verb of
    // receiving is supplied.
    if let Some(get) = p.received_at() {
        return before(get);
    }
    // "… which CWP feeds it": the node stands for the object.
    if p.words
        .iter()
        .any(|w| w.span.start > verb && (w.text == "it" || w.text == "them"))
    {
        return false;
    }
    // An active verb: the node before it is its subject.
    verb > a.span.start
}

/// The relation this building's data has between a node and a class,
/// nearest first: points, parts, location, then feeds.
/// The bool: the node is the relation's subject (it feeds, or has as part,
/// what is asked); false for what contains the node or feeds it.
fn relation_in_data(p: &Parts<'_>, node: &str, class: &ClassMention) -> Option<(Rel, bool)> {
    let view = p.view;
    let is = |iri: &str| {
        view.topo
            .types(iri)
            .iter()
            .any(|t| view.onto.is_a(t, &class.iri))
    };
    let topo = view.topo;
    if topo.out_of(node, TopoRel::HasPoint).iter().any(|n| is(n)) {
        return Some((Rel::Point, true));
    }
    // "which system is HW-DP-SP on": the equipment that has the point.
    if topo.owner_of_point(node).is_some_and(|o| is(&o)) {
        return Some((Rel::Point, false));
    }
    if topo.parts(node).iter().any(|n| is(n)) {
        return Some((Rel::Part, true));
    }
    // "what floor is room A-214 on": the floor contains the room.
    if topo.containers(node).iter().any(|n| is(n)) {
        return Some((Rel::Part, false));
    }
    if topo
        .out_of(node, TopoRel::HasLocation)
        .iter()
        .any(|n| is(n))
        || topo
            .out_of(node, TopoRel::HasLocation)
            .iter()
            .any(|l| topo.containers(l).iter().any(|n| is(n)))
    {
        return Some((Rel::Location, true));
    }
    // "how many vav boxes are in building a floor 3": what of the class is
    // located in the named place or in a part of it (a room of the floor;
    // its parts of the class were found above).
    if view.is_location(node) && topo.nodes().any(|n| is(n) && topo.is_in(n, node)) {
        return Some((Rel::Location, false));
    }
    let down = topo.walk(node, crate::topology::Way::Downstream, 32);
    if down.nodes().any(is) {
        return Some((Rel::Feeds, true));
    }
    let up = topo.walk(node, crate::topology::Way::Upstream, 32);
    if up.nodes().any(is) {
        return Some((Rel::Feeds, false));
    }
    // "room306 - which AHU": a space is supplied through the zone that
    // holds it (the chain of supply ends in the parts of what is fed).
    // (A supplier may be a part: the supply fan of the AHU asked for.)
    let through_zone = topo.containers(node).iter().any(|z| {
        topo.walk(z, crate::topology::Way::Upstream, 32)
            .nodes()
            .any(|n| is(n) || topo.containers(n).iter().any(|c| is(c)))
    });
    if through_zone {
        return Some((Rel::Feeds, false));
    }
    None
}

/// Rule 5: the instances of a class, narrowed.
fn by_class(p: &Parts<'_>) -> Reading {
    let Some(target) = p.classes.first().cloned() else {
        return Reading::NotGraph;
    };
    let x = Slot::var(X);
    let count = p.count_asked();
    let yes =
        p.yes_no() || p.first_word() == "any" && !p.words.iter().any(|w| w.text == "anything");
    let shape = if count {
        Shape::Count
    } else if yes {
        Shape::Yes
    } else {
        Shape::List
    };
    let mut plan = Plan::new(
        shape,
        X,
        Block::default(),
        format!("the {}", p.class_name(&target)),
    );
    plan.body.types.push((x.clone(), target.iri.clone()));
    // Fed by (or feeding) other classes: "which equipment is fed by both a
    // chiller and a condensing unit".
    if let Some((Rel::Feeds, at)) = p.relation() {
        // "what is upstream of the cooling towers" asks what feeds them,
        // "what is downstream of …" what they feed: the word of a side
        // says where the target stands, a passive verb ("fed by a
        // chiller") what the class after it does.
        let side =
            p.words
                .iter()
                .find(|w| w.span.start == at)
                .and_then(|w| match w.text.as_str() {
                    "upstream" | "feeders" => Some(false),
                    "downstream" => Some(true),
                    _ => None,
                });
        let passive = side.unwrap_or_else(|| {
            p.cue_at(Cue::Upstream).first().is_some_and(|&u| u == at)
                || p.words
                    .iter()
                    .any(|w| w.span.start > at && (w.text == "it" || w.text == "them"))
        });
        // "what gets fed by a chiller": every class names a supplier, the
        // target is anything.
        let generic_target = target.span.start > at;
        if generic_target {
            plan.body.types.clear();
            plan.understood = "what".into();
        }
        let others: Vec<&ClassMention> = p.classes.iter().filter(|c| c.span.start > at).collect();
        let cmp = p
            .first(Cue::More)
            .map(|m| (m, true))
            .or(p.first(Cue::Fewer).map(|f| (f, false)));
        if let Some((at_cmp, more)) = cmp
            && let Some(n) = p
                .words
                .iter()
                .filter(|w| w.span.start > at_cmp)
                .find_map(|w| number(&w.text))
        {
            let y = Slot::var("y");
            let l = if passive {
                link(Rel::Feeds, y.clone(), x.clone(), Reach::Direct)
            } else {
                link(Rel::Feeds, x.clone(), y.clone(), Reach::Direct)
            };
            plan.having = Some(Having {
                counted: Block {
                    links: vec![l],
                    ..Block::default()
                },
                var: "y".into(),
                more,
                n,
            });
            plan.understood = format!(
                "what is {} {} than {n} things",
                if passive { "fed by" } else { "feeding" },
                if more { "more" } else { "fewer" }
            );
            if target.generic {
                plan.body.types.clear();
            }
            return Reading::Plan(Box::new(plan));
        }
        // "what do the cooling towers feed": the one class is the verb's
        // subject, the target anything it supplies. Not with a medium said
        // ("what does the reheat coil get hot water from"): a class is not
        // narrowed by the medium its members carry.
        let subject = others.is_empty()
            && !passive
            && !p.medium_said()
            && !generic_target
            && p.classes.len() == 1
            && matches!(p.first_word(), "what" | "whats")
            && p.words
                .get(1)
                .is_some_and(|w| matches!(w.text.as_str(), "do" | "does" | "did"));
        if subject {
            let o = Slot::var("o0");
            plan.body.types.clear();
            plan.body
                .links
                .push(link(Rel::Feeds, o.clone(), x.clone(), Reach::Direct));
            plan.body.types.push((o, target.iri.clone()));
            plan.understood = format!("what is fed by {}", indefinite(&p.class_name(&target)));
            return Reading::Plan(Box::new(plan));
        }
        if others.is_empty() {
            return Reading::NotGraph;
        }
        let mut said = Vec::new();
        for (i, c) in others.iter().enumerate() {
            let v = format!("o{i}");
            let l = if passive {
                link(Rel::Feeds, Slot::var(&v), x.clone(), Reach::Direct)
            } else {
                link(Rel::Feeds, x.clone(), Slot::var(&v), Reach::Direct)
            };
            plan.body.links.push(l);
            plan.body.types.push((Slot::var(&v), c.iri.clone()));
            said.push(indefinite(&p.class_name(c)));
        }
        plan.understood = format!(
            "{} {} {}",
            if generic_target {
                "what is".to_owned()
            } else {
                format!("the {}", p.class_name(&target))
            },
            if passive { "fed by" } else { "feeding" },
            said.join(" and ")
        );
        return Reading::Plan(Box::new(plan));
    }
    if let Some((rel, _)) = p.relation()
        && !p.has_edges(rel)
    {
        return unsupported(p, rel);
    }
    narrowing(p, &target, &mut plan);
    if target.generic && plan.body.types.is_empty() {
        return Reading::NotGraph;
    }
    if count {
        plan.understood = format!("how many: {}", plan.understood);
    }
    Reading::Plan(Box::new(plan))
}
