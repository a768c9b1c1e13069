//! Feeds facts: what feeds a node or what it feeds (transitively, through
//! [`Topology::walk`](crate::topology::Topology::walk)), filtered by the
//! classes the question names, and whether one named node feeds another.

use super::{GraphContext, MAX_HOPS, listing};
use crate::answer::Fact;
use crate::answer::intent::Intent;
use crate::store::StoreResult;
use crate::topology::{Walk, Way};

impl GraphContext<'_> {
    pub(super) async fn feeds(
        &mut self,
        intent: Intent,
        subjects: &[String],
        filters: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        let Some(subject) = subjects.first().cloned() else {
            return Ok(());
        };
        let topo = self.view.topo;
        let up = topo.walk(&subject, Way::Upstream, MAX_HOPS);
        let down = topo.walk(&subject, Way::Downstream, MAX_HOPS);
        let mut ids: Vec<String> = up.nodes().chain(down.nodes()).map(str::to_owned).collect();
        ids.push(subject.clone());
        self.load(&ids).await?;

        // A place named beside the equipment ("which boxes does AHU-2
        // serve on floor 3") narrows what is listed to what is in it: no
        // feeds path runs to a floor.
        let place = subjects
            .get(1)
            .filter(|o| self.view.is_location(o) && !self.view.is_location(&subject))
            .cloned();
        if let Some(other) = subjects.get(1)
            && place.is_none()
        {
            self.between(&subject, other, &up, &down, out);
            return Ok(());
        }
        let equipment = [crate::vocab::brick("Equipment")];
        let filters = match &place {
            Some(_) if filters.is_empty() => &equipment[..],
            _ => filters,
        };
        let matches = |walk: &Walk| -> Vec<String> {
            walk.nodes()
                .filter(|n| self.view.is_a_any(n, filters))
                .filter(|n| place.as_deref().is_none_or(|p| self.view.topo.is_in(n, p)))
                .map(str::to_owned)
                .collect()
        };
        let (dir_up, found) = match intent {
            Intent::Upstream => (true, matches(&up)),
            Intent::Downstream => (false, matches(&down)),
            _ => {
                let u = matches(&up);
                if !u.is_empty() || filters.is_empty() {
                    (true, u)
                } else {
                    (false, matches(&down))
                }
            }
        };
        let walk = if dir_up { &up } else { &down };
        let direct = walk.direct();
        let s_name = self.label(&subject);
        let count = self.question.reading.count;
        if !filters.is_empty() {
            let class = listing(&self.names(filters));
            let class = match &place {
                Some(p) => format!("{class} in {}", self.label(p)),
                None => class,
            };
            let mut ids = found.clone();
            for f in &found {
                ids.extend(walk.path_back(f));
            }
            let way = if dir_up { "upstream" } else { "downstream" };
            if found.is_empty() {
                let text = format!("No {class} is {way} of {s_name} in the graph.");
                out.extend(self.nothing(text, &subject, ids));
            } else {
                let names = listing(&self.names(&found));
                let text = if dir_up {
                    format!(
                        "{} {class} upstream of {s_name} (brick:feeds, transitively): {names}.",
                        found.len()
                    )
                } else {
                    format!(
                        "{s_name} feeds {} {class} (brick:feeds, transitively): {names}.",
                        found.len()
                    )
                };
                out.extend(self.fact(text, &subject, ids));
            }
        }
        if place.is_none()
            && !direct.is_empty()
            && (filters.is_empty() || found.iter().any(|f| !direct.contains(f)))
        {
            let names = listing(&self.names(&direct));
            let text = if dir_up {
                format!("{s_name} is fed directly by {names}.")
            } else {
                format!("{s_name} directly feeds {names}.")
            };
            out.extend(self.fact(text, &subject, direct.clone()));
        }
        if filters.is_empty() && direct.is_empty() {
            let text = format!(
                "The graph has no brick:feeds relation {} {s_name}.",
                if dir_up { "into" } else { "out of" }
            );
            out.extend(self.nothing(text, &subject, Vec::new()));
        }
        if count && filters.is_empty() {
            let text = format!(
                "{s_name} {} {} pieces of equipment directly.",
                if dir_up { "is fed by" } else { "feeds" },
                direct.len()
            );
            out.extend(self.fact(text, &subject, direct));
        }
        Ok(())
    }

    /// Two instances named: is one upstream of the other?
    fn between(&self, subject: &str, other: &str, up: &Walk, down: &Walk, out: &mut Vec<Fact>) {
        let (a, b, walk) = if up.reaches(other) {
            (other, subject, up)
        } else if down.reaches(other) {
            (subject, other, down)
        } else {
            let types = self.view.specific_types(other);
            let actual: Vec<String> = up
                .nodes()
                .filter(|n| self.view.is_a_any(n, &types))
                .map(str::to_owned)
                .collect();
            let text = if actual.is_empty() {
                format!(
                    "No: the graph has no brick:feeds path between {} and {}.",
                    self.label(subject),
                    self.label(other)
                )
            } else {
                format!(
                    "No: {} is not fed by {}; it is fed by {}.",
                    self.label(subject),
                    self.label(other),
                    listing(&self.names(&actual))
                )
            };
            let mut ids = actual;
            ids.push(other.to_owned());
            out.extend(self.fact(text, subject, ids));
            return;
        };
        let mut path = walk.path_back(other);
        path.push(other.to_owned());
        let text = format!(
            "Yes: {} feeds {} (brick:feeds{}).",
            self.label(a),
            self.label(b),
            if path.len() > 2 {
                ", through other equipment"
            } else {
                ""
            }
        );
        out.extend(self.fact(text, subject, path));
    }
}
