//! Point facts: the points of the named equipment (those of the point
//! type the question names, or all of them), or across the building the
//! points of a named type with the equipment that has them.

use super::{GraphContext, local};
use crate::answer::Fact;
use crate::answer::intent::point_tags;
use crate::store::{SolutionExt, StoreResult};
use crate::topology::Rel;
use crate::vocab::{self, PREFIXES};
use std::collections::{BTreeSet, HashMap};

/// The Haystack markers that say what a point does: a point is one of
/// them.
const POINT_FUNCTIONS: [&str; 3] = ["sensor", "sp", "cmd"];

impl GraphContext<'_> {
    /// "AHU-2 SAT (Supply Air Temperature Sensor, unit DEG_F)".
    fn point_line(&self, p: &str) -> String {
        let card = self.card(p);
        let unit = card
            .first(&vocab::brick("hasUnit"))
            .map(|u| format!(", unit {}", local(u)))
            .unwrap_or_default();
        format!("{} ({}{unit})", self.label(p), self.class_phrase(p))
    }

    /// The points beside the `named` point on its equipment that a point
    /// function said after its name asks for ("AHU-3 SAT setpoint", "sat
    /// stpt": the grounder reads the name and the function apart), as
    /// [`crate::answer::view::GraphView::points_beside`] finds them.
    /// `None` when no function is said apart or the named point has it.
    fn function_beside(&self, named: &str) -> Option<Vec<String>> {
        let said: Vec<String> = self
            .question
            .grounding
            .point_types
            .iter()
            .filter(|pt| {
                pt.brick_class.is_none()
                    && !pt.haystack_tags.is_empty()
                    && pt
                        .haystack_tags
                        .iter()
                        .all(|t| POINT_FUNCTIONS.contains(&t.as_str()))
            })
            .flat_map(|pt| pt.haystack_tags.iter())
            .flat_map(|t| self.view.onto.brick_tags_for(t))
            .collect();
        let has = self
            .view
            .specific_types(named)
            .iter()
            .filter_map(|c| self.view.onto.class(c))
            .any(|c| said.iter().all(|t| c.tags.contains(t)));
        if said.is_empty() || has {
            return None;
        }
        self.view.points_beside(named, &said)
    }

    /// Points that match the grounded point types: by class, else by the
    /// closest Haystack tag sets.
    fn matching_points(&self, points: &[String]) -> Vec<String> {
        let q = self.question;
        let g = &q.grounding;
        if g.point_types.is_empty() {
            let want = point_tags(g);
            if want.is_empty() {
                return Vec::new();
            }
            return points
                .iter()
                .filter(|p| {
                    let tags = self.tag_names(p);
                    want.iter()
                        .all(|w| tags.iter().any(|t| t.eq_ignore_ascii_case(w)))
                })
                .cloned()
                .collect();
        }
        let mut classes: Vec<String> = g
            .point_types
            .iter()
            .filter_map(|p| p.brick_class.as_deref())
            .filter(|c| !c.contains(':'))
            .map(vocab::brick)
            .collect();
        // A kind said by its function alone ("sensors of each sensor
        // kind"): the Brick class the ontology gives that function, so
        // that a Brick model with no Haystack tags is read as well ("no
        // point of the kind asked about" would be wrong).
        for pt in g.point_types.iter().filter(|p| p.brick_class.is_none()) {
            if let [tag] = pt.haystack_tags.as_slice()
                && let Some(class) = self.view.onto.function_class(tag)
            {
                classes.push(class.to_owned());
            }
        }
        let by_class: Vec<String> = points
            .iter()
            .filter(|p| self.view.is_a_any(p, &classes))
            .cloned()
            .collect();
        if !by_class.is_empty() {
            return by_class;
        }
        let mut best = 0usize;
        let mut out = Vec::new();
        for pt in &g.point_types {
            let want: BTreeSet<&str> = pt
                .haystack_tags
                .iter()
                .map(String::as_str)
                .filter(|t| !matches!(*t, "point" | "sensor" | "sp" | "cmd"))
                .collect();
            if want.is_empty() {
                continue;
            }
            for p in points {
                let tags = self.tag_names(p);
                let hit = want.iter().filter(|w| tags.iter().any(|t| t == *w)).count();
                let need = want.len().saturating_sub(1).max(1);
                if hit >= need && hit >= best {
                    if hit > best {
                        out.clear();
                        best = hit;
                    }
                    if !out.contains(p) {
                        out.push(p.clone());
                    }
                }
            }
        }
        out
    }

    pub(super) async fn points(
        &mut self,
        subjects: &[String],
        filters: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        if subjects.is_empty() {
            return self.points_anywhere(filters, out).await;
        }
        let q = self.question;
        let g = &q.grounding;
        let asked = !g.point_types.is_empty() || !point_tags(g).is_empty();
        for named in subjects {
            let mut s = named;
            let mut points = self.view.topo.out_of(s, Rel::HasPoint);
            self.load(&points).await?;
            let mut matched = self.matching_points(&points);
            // A named point has no points: the question asks about a point
            // beside it on its equipment ("AHU-3 SAT setpoint": the
            // setpoint beside the sensor "AHU-3 SAT"; "ahu-1 sat sensor
            // class": the sensor of the kind asked), else about the point
            // itself.
            let owner = self.view.topo.owner_of_point(s);
            if points.is_empty()
                && let Some(owner) = owner.as_ref()
            {
                let mut beside = self.view.topo.out_of(owner, Rel::HasPoint);
                beside.push(owner.clone());
                self.load(&beside).await?;
                beside.pop();
                let found = match self.function_beside(s) {
                    // A function the equipment has no point of: nothing
                    // the graph can say (the documents may).
                    Some(found) if found.is_empty() => continue,
                    Some(found) => found,
                    None if asked => self.matching_points(&beside),
                    None => Vec::new(),
                };
                if found.is_empty() {
                    let text = format!(
                        "{} is a point of {}: {}.",
                        self.label(s),
                        self.label(owner),
                        self.point_line(s)
                    );
                    out.extend(self.fact(text, s, vec![owner.clone()]));
                    continue;
                }
                s = owner;
                points = beside;
                matched = found;
            }
            let name = self.label(s);
            if points.is_empty() {
                out.extend(self.fact(format!("The graph lists no points on {name}."), s, vec![]));
                continue;
            }
            if asked && !matched.is_empty() {
                let mut ids = matched.clone();
                for m in &matched {
                    ids.extend(self.view.specific_types(m));
                }
                // A yes/no question ("does it have a CO2 sensor?") is
                // answered yes or no first.
                let yes = if q.reading.yes_no { "Yes: " } else { "" };
                let text = format!(
                    "{yes}{name} has {}: {}.",
                    if matched.len() == 1 {
                        "the point".to_owned()
                    } else {
                        format!("{} matching points", matched.len())
                    },
                    matched
                        .iter()
                        .map(|p| self.point_line(p))
                        .collect::<Vec<_>>()
                        .join("; ")
                );
                out.extend(self.fact(text, s, ids));
                continue;
            }
            let lines: Vec<String> = points.iter().map(|p| self.point_line(p)).collect();
            let text = if !asked {
                format!("{name} has {} points: {}.", points.len(), lines.join("; "))
            } else {
                format!(
                    "{}{name} has no point of the kind asked about; its {} points are: {}.",
                    if q.reading.yes_no { "No: " } else { "" },
                    points.len(),
                    lines.join("; ")
                )
            };
            out.extend(self.fact(text, s, points.clone()));
            if self.question.reading.count {
                out.extend(self.fact(format!("{name} has {} points.", points.len()), s, vec![]));
            }
        }
        Ok(())
    }

    /// No equipment named: the points of the named type anywhere (on the
    /// equipment classes named, if any).
    async fn points_anywhere(
        &mut self,
        filters: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        let q = self.question;
        let g = &q.grounding;
        if g.point_types.is_empty() && point_tags(g).is_empty() {
            return Ok(());
        }
        let rows = self
            .run(format!(
                "{PREFIXES}SELECT DISTINCT ?e ?p WHERE {{ ?e brick:hasPoint ?p }} ORDER BY ?e ?p"
            ))
            .await?;
        let mut owner: HashMap<String, String> = HashMap::new();
        let mut points = Vec::new();
        for r in rows {
            let (e, p) = (r.string("e"), r.string("p"));
            if filters.is_empty() || self.view.is_a_any(&e, filters) {
                owner.insert(p.clone(), e);
                points.push(p);
            }
        }
        points.sort();
        // Tags of every candidate are needed for the tag match.
        self.load(&points).await?;
        let matched = self.matching_points(&points);
        if matched.is_empty() {
            return Ok(());
        }
        let mut equips: Vec<String> = matched
            .iter()
            .filter_map(|p| owner.get(p).cloned())
            .collect();
        equips.sort();
        equips.dedup();
        self.load(&equips).await?;
        let mut ids = equips.clone();
        ids.extend(matched.iter().cloned());
        let text = format!(
            "{} points match, on {} pieces of equipment: {}.",
            matched.len(),
            equips.len(),
            matched
                .iter()
                .map(|p| format!(
                    "{} on {}",
                    self.point_line(p),
                    owner.get(p).map(|e| self.label(e)).unwrap_or_default()
                ))
                .collect::<Vec<_>>()
                .join("; ")
        );
        if let Some(first) = equips.first() {
            out.extend(self.fact(text, first, ids));
        }
        Ok(())
    }
}
