//! Product facts: which Yorkland product a node (or one of its parts) is,
//! what a named product maps to (Brick class, Haystack kind, with the
//! mapping's confidence, source and date), and where it is installed.

use super::{GraphContext, listing, local};
use crate::answer::Fact;
use crate::store::{SolutionExt, StoreResult};
use crate::vocab::{self, PREFIXES};

/// A `yk:` property.
fn yk(local: &str) -> String {
    format!("{}{local}", vocab::YK)
}

impl GraphContext<'_> {
    pub(super) async fn product(
        &mut self,
        subjects: &[String],
        out: &mut Vec<Fact>,
    ) -> StoreResult<()> {
        for s in subjects {
            let mut nodes = vec![s.clone()];
            nodes.extend(self.view.topo.parts(s));
            self.load(&nodes).await?;
            for n in &nodes {
                let products = self.card(n).iris(&super::dq("product"));
                self.load(&products).await?;
                for p in products {
                    let model = self
                        .card(&p)
                        .first(&yk("modelNumber"))
                        .map_or_else(|| self.label(&p), str::to_owned);
                    let text = if n == s {
                        format!("{} is a {} ({}).", self.label(n), model, self.label(&p))
                    } else {
                        format!(
                            "{} ({}), part of {}, is a {} ({}).",
                            self.label(n),
                            self.class_phrase(n),
                            self.label(s),
                            model,
                            self.label(&p)
                        )
                    };
                    out.extend(self.fact(text, n, vec![p.clone(), s.clone()]));
                }
            }
        }
        let named: Vec<String> = self
            .question
            .grounding
            .entities
            .iter()
            .filter(|e| e.kind == crate::ground::EntityKind::Product)
            .map(|e| e.iri.clone())
            .collect();
        for p in named {
            self.product_entity(&p, out).await?;
        }
        Ok(())
    }

    async fn product_entity(&mut self, p: &str, out: &mut Vec<Fact>) -> StoreResult<()> {
        self.load(&[p.to_owned()]).await?;
        let card = self.card(p);
        let model = card
            .first(&yk("modelNumber"))
            .unwrap_or(local(p))
            .to_owned();
        let mappings = card.iris(&yk("mapping"));
        self.load(&mappings).await?;
        for m in &mappings {
            let text = self.mapping_text(p, &model, m);
            let mc = self.card(m);
            let mut ids = vec![m.clone()];
            ids.extend(mc.iris(&yk("brickClass")));
            ids.extend(mc.iris(&yk("haystackKind")));
            out.extend(self.fact(text, p, ids));
        }
        let rows = self
            .run(format!(
                "{PREFIXES}SELECT DISTINCT ?e WHERE {{ ?e dq:product <{p}> }} ORDER BY ?e"
            ))
            .await?;
        let installed: Vec<String> = rows.iter().map(|r| r.string("e")).collect();
        if let Some(first) = installed.first().cloned() {
            self.load(&installed).await?;
            let text = format!(
                "{} pieces of equipment in the building models are a {model}: {}.",
                installed.len(),
                listing(&self.names(&installed))
            );
            let mut ids = vec![p.to_owned()];
            ids.extend(installed.iter().cloned());
            out.extend(self.fact(text, &first, ids));
        } else if !self.question.reading.count {
            let text = format!("No equipment in the building models is a {model}.");
            out.extend(self.nothing(text, p, Vec::new()));
        }
        Ok(())
    }

    /// "The Yorkland YVR-3100 (…) maps to Brick class …; mapping confidence …".
    fn mapping_text(&self, p: &str, model: &str, m: &str) -> String {
        let mc = self.card(m);
        let class = mc.iris(&yk("brickClass"));
        let kind = mc.iris(&yk("haystackKind"));
        let mut text = format!("The Yorkland {model} ({}) maps to", self.label(p));
        if !class.is_empty() {
            text.push_str(&format!(" Brick class {}", self.names(&class).join(", ")));
        }
        if !kind.is_empty() {
            text.push_str(&format!(
                "{} Haystack kind {}",
                if class.is_empty() { "" } else { " and" },
                self.names(&kind).join(", ")
            ));
        }
        if let Some(tags) = mc.first(&yk("haystackTags")) {
            text.push_str(&format!(" (tags {tags})"));
        }
        let mut prov = Vec::new();
        if let Some(c) = mc.first(&yk("confidence")) {
            prov.push(format!("confidence {c}"));
        }
        if let Some(u) = mc.first(&yk("sourceUrl")) {
            prov.push(format!("source {u}"));
        }
        if let Some(d) = mc.first(&yk("extractionDate")) {
            prov.push(format!("extracted {d}"));
        }
        if !prov.is_empty() {
            text.push_str(&format!("; mapping {}", prov.join(", ")));
        }
        text.push('.');
        text
    }
}
