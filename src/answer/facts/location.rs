//! Location facts: where a node is (a part without a location of its own
//! is where its container is), with the containing locations; or, for a
//! location, what it is part of and what is located in it.

use super::{GraphContext, listing};
use crate::answer::Fact;
use crate::store::StoreResult;
use crate::topology::Rel;

impl GraphContext<'_> {
    pub(super) async fn location(&mut self, subject: &str, out: &mut Vec<Fact>) -> StoreResult<()> {
        let topo = self.view.topo;
        let name = self.label(subject);
        if self.view.is_location(subject) {
            let up = topo.containers(subject);
            let inside: Vec<String> = topo.into(subject, Rel::HasLocation);
            self.load(&inside).await?;
            if !up.is_empty() {
                let text = format!(
                    "{name} is part of {}.",
                    up.iter()
                        .map(|c| self.label(c))
                        .collect::<Vec<_>>()
                        .join(", part of ")
                );
                out.extend(self.fact(text, subject, up.clone()));
            }
            if !inside.is_empty() {
                let text = format!(
                    "{} items are located in {name}: {}.",
                    inside.len(),
                    listing(
                        &inside
                            .iter()
                            .map(|i| format!("{} ({})", self.label(i), self.class_phrase(i)))
                            .collect::<Vec<_>>()
                    )
                );
                out.extend(self.fact(text, subject, inside));
            }
            return Ok(());
        }
        let mut node = subject.to_owned();
        let mut locs = topo.out_of(&node, Rel::HasLocation);
        for c in topo.containers(subject) {
            if !locs.is_empty() {
                break;
            }
            locs = topo.out_of(&c, Rel::HasLocation);
            node = c;
        }
        for l in locs {
            let up = topo.containers(&l);
            let mut text = format!("{} is located in {}", self.label(&node), self.label(&l));
            if !up.is_empty() {
                text.push_str(&format!(
                    " (part of {})",
                    up.iter()
                        .map(|c| self.label(c))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            text.push('.');
            let mut ids = vec![l.clone()];
            ids.extend(up);
            if node != subject {
                ids.push(node.clone());
            }
            out.extend(self.fact(text, subject, ids));
        }
        Ok(())
    }
}
