//! The graph query engine: a question becomes a query over this building's
//! graph ([`read`]), the query runs against the store as SPARQL
//! ([`plan::Plan::sparql`], the text in the trace is what ran), and the
//! answer is the result — a list with its count, a number, a yes/no, counts
//! per group, or units — with every result node in the evidence and the
//! file it came from.
//!
//! The engine needs neither documents nor vectors: a graph question is
//! answered when the index is empty or down. It answers only what it
//! composes; a question it does not read as a graph query goes on to the
//! rest of the pipeline, and one it reads but the data cannot support is
//! an abstention that says what was understood.

pub mod plan;
pub mod read;
#[cfg(test)]
mod tests;

use super::compose::{Draft, newest};
use super::refusal::Reason;
use super::view::GraphView;
use super::{Answer, EvidenceItem, Fault, GraphAnswer, GroupCount, Trace, ms};
use crate::store::{GraphKind, GraphStore, QueryOutput, SolutionExt, SparqlQuery, select};
use crate::topology::Rel as TopoRel;
use plan::{Plan, Shape};
use read::{Reading, name_of};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

/// Most names an answer sentence lists; the evidence and the trace have all.
const MAX_NAMED: usize = 25;

/// The engine's outcome for one question.
#[derive(Debug)]
pub enum Outcome {
    /// Answered (or abstained) from the graph; `about_supply` when the
    /// query follows supply from a named node (documents may contradict
    /// that: the pipeline checks them).
    Drafted {
        /// The answer or abstention.
        draft: Draft,
        /// Supply from or to a named node.
        about_supply: bool,
        /// The node whose supply a yes/no asks of when another stops, and
        /// the node that stops ("will room a-302 lose air if ahu-1 trips":
        /// Room A-302, AHU-1): the documents are checked about the first,
        /// not the first node named.
        supplied: Option<(String, String)>,
    },
    /// Not a question the engine composes.
    Pass,
}

/// The classes under `class` as looked up ([`Plan::class_query`]), or the
/// class alone, each as a SPARQL IRI.
fn kinds_listed(
    classes: &std::collections::HashMap<String, Vec<String>>,
    class: &str,
) -> Vec<String> {
    match classes.get(class) {
        Some(list) if !list.is_empty() => list.iter().map(|i| format!("<{i}>")).collect(),
        _ => vec![format!("<{class}>")],
    }
}

/// Whether any node is of `class` (or a class under it, or a Haystack
/// record with a marker that stands for one), as the plan's query counts
/// it ([`plan::of_kind`]).
async fn has_instances(
    store: &dyn GraphStore,
    plan: &Plan,
    classes: &std::collections::HashMap<String, Vec<String>>,
    class: &str,
    trace: &mut Trace,
) -> Result<bool, Fault> {
    let iris = kinds_listed(classes, class);
    let q = format!(
        "PREFIX dq: <{}>\nASK {{ {} }}",
        crate::vocab::DQ,
        plan::of_kind(
            "?x",
            "?k",
            &format!("VALUES ?k {{ {} }}", iris.join(" ")),
            plan.point_kinds.iter().any(|k| k == class)
        )
    );
    trace.graph.queries.push(q.clone());
    Ok(matches!(
        store.query(SparqlQuery::new(q)).await?,
        QueryOutput::Boolean(true)
    ))
}

/// An empty typed result whose relation does hold for nodes the model
/// gives no type ("which AHU serves VAV5" where AHU_5 is untyped): "none"
/// would be wrong, so these nodes are returned for an abstention.
async fn untyped_instead(
    store: &dyn GraphStore,
    view: GraphView<'_>,
    plan: &Plan,
    classes: &std::collections::HashMap<String, Vec<String>>,
    trace: &mut Trace,
) -> Result<Option<Vec<String>>, Fault> {
    let target = plan::Slot::var(&plan.target);
    if plan.body.links.is_empty() || !plan.body.types.iter().any(|(s, _)| *s == target) {
        return Ok(None);
    }
    let mut loose = plan.clone();
    loose.body.types.retain(|(s, _)| *s != target);
    loose.shape = Shape::List;
    loose.having = None;
    let q = loose.sparql_with(classes);
    trace.graph.queries.push(q.clone());
    let rows = store.query(SparqlQuery::new(q)).await?.into_rows();
    let untyped: Vec<String> = rows
        .iter()
        .filter_map(|r| r.str(&plan.target).map(str::to_owned))
        .filter(|n| view.topo.types(n).is_empty())
        .collect();
    Ok((!untyped.is_empty()).then_some(untyped))
}

/// The abstention for a plan the data cannot answer soundly: what was
/// understood, and why.
fn abstain(plan: &Plan, why: String, trace: &mut Trace, t: Instant) -> Outcome {
    trace.graph.answer = None;
    trace.stages_ms.insert("graph".into(), ms(t));
    Outcome::Drafted {
        draft: Draft::Abstain(Reason::Unsupported {
            understood: plan.understood.clone(),
            why,
        }),
        about_supply: false,
        supplied: None,
    }
}

/// The abstention for a kind the data has none of. A Haystack model may
/// state the kind only as the markers of points that act on one ("valve
/// cmd point"): the abstention names them.
async fn no_such_kind(
    store: &dyn GraphStore,
    view: GraphView<'_>,
    plan: &Plan,
    classes: &std::collections::HashMap<String, Vec<String>>,
    class: &str,
    trace: &mut Trace,
    t: Instant,
) -> Result<Outcome, Fault> {
    /// Points named in the abstention, at most.
    const SHOWN: usize = 5;
    let label = read::class_words(view, class);
    tracing::info!(class = %class, "the data has no instance of an asked kind; abstaining");
    let iris = kinds_listed(classes, class);
    let q = format!(
        "PREFIX dq: <{}>\nSELECT DISTINCT ?x WHERE {{ VALUES ?k {{ {} }} ?x dq:hasHaystackTag/dq:brickClass ?k ; dq:hasHaystackTag <{}> }} ORDER BY ?x LIMIT {}",
        crate::vocab::DQ,
        iris.join(" "),
        plan::point_marker(),
        SHOWN + 1
    );
    trace.graph.queries.push(q.clone());
    let points: Vec<String> = select(store, q)
        .await?
        .iter()
        .filter_map(|r| r.str("x").map(str::to_owned))
        .collect();
    let why = if points.is_empty() {
        format!("this building's data has no {label} at all")
    } else {
        let mut said: Vec<String> = points
            .iter()
            .take(SHOWN)
            .map(|p| name_of(view, p))
            .collect();
        if points.len() > SHOWN {
            said.push("…".into());
        }
        format!(
            "this building's data has no {label} as equipment, only points that act on one ({})",
            said.join(", ")
        )
    };
    Ok(abstain(plan, why, trace, t))
}

/// Reads, runs and answers a question; records the plan, the SPARQL and
/// the result in the trace.
pub async fn answer(
    store: &dyn GraphStore,
    view: GraphView<'_>,
    q: &super::question::Question,
    cues: &crate::text::Cues,
    trace: &mut Trace,
) -> Result<Outcome, Fault> {
    let t = Instant::now();
    let reading = read::read(q, cues, view);
    tracing::debug!(reading = ?reading, "question read");
    let plan = match reading {
        Reading::NotGraph => {
            tracing::debug!("not a composed graph question");
            return Ok(Outcome::Pass);
        }
        Reading::Unread { words, said_of } => {
            trace.graph.unread = words;
            trace.graph.unread_said_of = said_of;
            return Ok(Outcome::Pass);
        }
        Reading::Unsupported { understood, why } => {
            tracing::info!(understood = %understood, why = %why, "composed question unsupported by the data");
            trace.graph.intents = vec!["compose".into()];
            trace.graph.understood = Some(understood.clone());
            trace.stages_ms.insert("graph".into(), ms(t));
            return Ok(Outcome::Drafted {
                draft: Draft::Abstain(Reason::Unsupported { understood, why }),
                about_supply: false,
                supplied: None,
            });
        }
        Reading::Plan(plan) => plan,
    };
    trace.graph.intents = vec!["compose".into()];
    trace.graph.understood = Some(plan.understood.clone());
    // The classes under each asked class, looked up once, then listed in
    // the query.
    let mut classes = std::collections::HashMap::new();
    for c in plan.classes() {
        let q = Plan::class_query(&c);
        trace.graph.queries.push(q.clone());
        let rows = select(store, q).await?;
        let list: Vec<String> = rows
            .iter()
            .filter_map(|r| r.str("k").map(str::to_owned))
            .collect();
        classes.insert(c, list);
    }
    // A kind the data has no instance of: "none" (or "every VAV lacks
    // one") would be true of the model and say nothing of the building —
    // a Haystack model states its valves only as points.
    let absent_kinds: Vec<&String> = plan
        .absent
        .iter()
        .flat_map(|b| b.types.iter())
        .map(|(_, c)| c)
        .collect();
    for c in absent_kinds {
        if !has_instances(store, &plan, &classes, c, trace).await? {
            return no_such_kind(store, view, &plan, &classes, c, trace, t).await;
        }
    }
    let sparql = plan.sparql_with(&classes);
    trace.graph.queries.push(sparql.clone());
    tracing::debug!(sparql = %sparql, "composed query");
    let out = store.query(SparqlQuery::new(sparql)).await?;
    let mut result = GraphResult::read(&plan, out);
    if plan.shape == Shape::PerKind {
        result.group_by_kind(view);
    }
    if plan.shape == Shape::Unit && result.units.is_empty() {
        // No unit recorded: the documents may say it.
        tracing::info!("composed unit query found no unit; left to the documents");
        trace.graph.answer = None;
        return Ok(Outcome::Pass);
    }
    let empty = result.items.is_empty() && result.boolean != Some(true) && result.groups.is_empty();
    if plan.loose && empty {
        tracing::info!("empty result over a loosely read class; abstaining");
        let why =
            "the graph has none of the kind as read, and that kind was read loosely from the words";
        return Ok(abstain(&plan, why.into(), trace, t));
    }
    if empty {
        for (_, c) in &plan.body.types {
            if !has_instances(store, &plan, &classes, c, trace).await? {
                return no_such_kind(store, view, &plan, &classes, c, trace, t).await;
            }
        }
        if let Some(untyped) = untyped_instead(store, view, &plan, &classes, trace).await? {
            tracing::info!(
                nodes = untyped.len(),
                "empty result, but untyped nodes stand in the relation; abstaining"
            );
            let names: Vec<String> = untyped.iter().map(|n| name_of(view, n)).collect();
            let why = format!(
                "nothing of the kind asked stands in that relation; {} does, and the model gives it no type",
                names.join(", ")
            );
            return Ok(abstain(&plan, why, trace, t));
        }
    }
    // An empty list that "none" would make a denial of what the model
    // states is asked once more: "which boilers feed the hot water
    // system" (the boilers are part of the system, which nothing outside
    // it feeds) by the system's own parts of the kind asked that supply;
    // "which cooling tower serves ch-2" (one hop was read because towers
    // stand next to ch-2, which feeds them: the condenser loop) along the
    // chain, through the condenser pumps.
    let mut plan = plan;
    if empty {
        let follow_ups = [
            members_instead(view, &plan).map(|p| (p, "the named node's own parts that supply")),
            chain_instead(view, &plan).map(|p| (p, "along the chain of supply")),
            container_instead(view, &plan).map(|p| (p, "the space the named one is part of")),
            spaces_instead(view, &plan).map(|p| (p, "the spaces the places asked are made of")),
            part_of_instead(view, &plan).map(|p| (p, "one kind asked as a part of the other")),
            part_reversed_instead(view, &plan).map(|p| (p, "the part the other way round")),
            feeds_instead_of_parts(view, &plan).map(|p| (p, "what feeds them, as no part can be")),
        ];
        for (other, how) in follow_ups.into_iter().flatten() {
            let q2 = other.sparql_with(&classes);
            trace.graph.queries.push(q2.clone());
            let found = GraphResult::read(&other, store.query(SparqlQuery::new(q2)).await?);
            if !found.items.is_empty() {
                tracing::info!(
                    items = found.items.len(),
                    how,
                    "empty result answered by a follow-up query"
                );
                trace.graph.understood = Some(other.understood.clone());
                *plan = other;
                result = found;
                break;
            }
        }
    }
    if let Some(q2) = instead(view, &plan, &result) {
        trace.graph.queries.push(q2.clone());
        let rows = store.query(SparqlQuery::new(q2)).await?.into_rows();
        result.instead = rows
            .iter()
            .filter_map(|r| r.str("x").map(str::to_owned))
            .collect();
    }
    if let Some(q3) = the_other_way(&plan, &result) {
        trace.graph.queries.push(q3.clone());
        let out = store.query(SparqlQuery::new(q3)).await?;
        result.other_way = matches!(out, QueryOutput::Boolean(true));
    }
    tracing::info!(
        shape = ?plan.shape,
        items = result.items.len(),
        "composed query ran"
    );
    let ga = result.trace_answer(&plan);
    let draft = draft(store, view, &plan, &result, q).await?;
    trace.graph.graph_ids = result.items.clone();
    trace.graph.answer = Some(ga);
    trace.stages_ms.insert("graph".into(), ms(t));
    let about_supply = plan.body.links.iter().any(|l| {
        l.rel == plan::Rel::Feeds
            && (matches!(l.from, plan::Slot::Node(_)) || matches!(l.to, plan::Slot::Node(_)))
    });
    let supplied = match (&plan.stopped, plan.shape) {
        (Some(stopped), Shape::Yes) => plan.body.links.iter().find_map(|l| match &l.to {
            plan::Slot::Node(n) if l.rel == plan::Rel::Feeds => Some((n.clone(), stopped.clone())),
            _ => None,
        }),
        _ => None,
    };
    Ok(Outcome::Drafted {
        draft,
        about_supply,
        supplied,
    })
}

/// The rows of a composed query, read by its shape.
#[derive(Debug, Default)]
struct GraphResult {
    /// Result nodes, in query order (for groups: the groups).
    items: Vec<String>,
    /// Yes/no.
    boolean: Option<bool>,
    /// Group → count.
    groups: Vec<(String, u64)>,
    /// (point, unit).
    units: Vec<(String, String)>,
    /// For "does A feed B?" answered no: what does (directly) stand in that
    /// relation to B.
    instead: Vec<String>,
    /// For "is CWP-1 on CH-1?" answered no: the relation holds the other
    /// way (CWP-1 feeds CH-1).
    other_way: bool,
    /// For the kinds of what is listed: each node with the classes of the
    /// asked kind it is typed, in query order.
    typed_as: Vec<(String, String)>,
    /// For the kinds of what is listed: each most specific class with the
    /// nodes counted under it, in node order.
    under: BTreeMap<String, Vec<String>>,
}

impl GraphResult {
    /// "what types of sensors are there": each node counted once, under
    /// its most specific class of the asked kind (a node typed both
    /// `brick:VAV` and `brick:Terminal_Unit` is a VAV), most frequent
    /// class first; the nodes are the items.
    fn group_by_kind(&mut self, view: GraphView<'_>) {
        let mut of: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (node, class) in &self.typed_as {
            of.entry(node).or_default().push(class);
        }
        let mut under: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (node, classes) in &of {
            for c in classes {
                let broader = classes.iter().any(|o| o != c && view.onto.is_a(o, c));
                if !broader {
                    under
                        .entry((*c).to_owned())
                        .or_default()
                        .push((*node).to_owned());
                }
            }
        }
        let mut groups: Vec<(String, u64)> = under
            .iter()
            .map(|(c, n)| (c.clone(), n.len() as u64))
            .collect();
        groups.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        self.groups = groups;
        self.under = under;
        self.items = of.keys().map(|n| (*n).to_owned()).collect();
    }
}

/// For a list or count of what feeds a named node that has parts (a
/// system), found empty: its own parts of the kind asked that feed
/// something (the boilers and pumps of a hot-water system).
fn members_instead(view: GraphView<'_>, plan: &Plan) -> Option<Plan> {
    if !matches!(plan.shape, Shape::List | Shape::Count) || plan.having.is_some() {
        return None;
    }
    let [l] = plan.body.links.as_slice() else {
        return None;
    };
    let (plan::Rel::Feeds, plan::Slot::Var(x), plan::Slot::Node(anchor)) = (l.rel, &l.from, &l.to)
    else {
        return None;
    };
    if *x != plan.target || view.topo.parts(anchor).is_empty() {
        return None;
    }
    let var = plan::Slot::var(x);
    let link = read::link;
    let body = plan::Block {
        links: vec![
            link(
                plan::Rel::Part,
                plan::Slot::Node(anchor.clone()),
                var.clone(),
                plan::Reach::Transitive,
            ),
            link(
                plan::Rel::Feeds,
                var.clone(),
                plan::Slot::var("fed"),
                plan::Reach::Direct,
            ),
        ],
        types: plan.body.types.clone(),
        ..plan::Block::default()
    };
    let what = plan
        .body
        .types
        .iter()
        .find(|(s, _)| *s == var)
        .map_or_else(|| "part".to_owned(), |(_, c)| read::class_words(view, c));
    let name = name_of(view, anchor);
    let mut understood = format!(
        "each {what} of {name} that supplies (nothing outside {name} is stated to feed it)"
    );
    if plan.shape == Shape::Count {
        understood = format!("how many: {understood}");
    }
    Some(Plan::new(plan.shape.clone(), x.clone(), body, understood))
}

/// For a list or count of one hop of supply that was guessed (equipment
/// of the kind stands next to the named node; "directly" was not said),
/// found empty: the same question along any chain of supply, leaving out
/// what the named node is part of, as a chain read from the start does.
fn chain_instead(view: GraphView<'_>, plan: &Plan) -> Option<Plan> {
    if !plan.hop_guessed
        || !matches!(plan.shape, Shape::List | Shape::Count)
        || plan.having.is_some()
    {
        return None;
    }
    let [l] = plan.body.links.as_slice() else {
        return None;
    };
    let anchor = match (&l.from, &l.to) {
        (plan::Slot::Node(a), plan::Slot::Var(_)) | (plan::Slot::Var(_), plan::Slot::Node(a)) => a,
        _ => return None,
    };
    let mut chain = plan.clone();
    chain.hop_guessed = false;
    chain.body.links[0].reach = plan::Reach::Transitive;
    chain.excluded.extend(view.topo.containers(anchor));
    let said = plan.understood.strip_suffix(" directly")?;
    chain.understood = format!("{said}, through any chain of supply (none directly)");
    Some(chain)
}

/// For a list or count of what directly feeds a named space that nothing
/// feeds ("what serves room A-301"; "directly" not said), found empty: what
/// directly feeds the spaces it is part of that are fed (the zone the room
/// is in), with the named space cited. Rooms are served through their
/// zones; "None" would deny what the model states.
fn container_instead(view: GraphView<'_>, plan: &Plan) -> Option<Plan> {
    if plan.direct_asked
        || !matches!(plan.shape, Shape::List | Shape::Count)
        || plan.having.is_some()
    {
        return None;
    }
    let [l] = plan.body.links.as_slice() else {
        return None;
    };
    let (plan::Rel::Feeds, plan::Slot::Var(_), plan::Slot::Node(anchor), plan::Reach::Direct) =
        (l.rel, &l.from, &l.to, l.reach)
    else {
        return None;
    };
    let topo = view.topo;
    if !view.is_location(anchor) || !topo.into(anchor, TopoRel::Feeds).is_empty() {
        return None;
    }
    let fed: Vec<String> = topo
        .containers(anchor)
        .into_iter()
        .filter(|c| view.is_location(c) && !topo.into(c, TopoRel::Feeds).is_empty())
        .collect();
    if fed.is_empty() {
        return None;
    }
    let mut other = plan.clone();
    let link = other.body.links.remove(0);
    // One alternative per space (a room may be in several zones).
    other.body.any_of = vec![
        fed.iter()
            .map(|space| plan::Link {
                to: plan::Slot::Node(space.clone()),
                ..link.clone()
            })
            .collect(),
    ];
    other.excluded.extend(fed.iter().cloned());
    other.cited.push(anchor.clone());
    let name = name_of(view, anchor);
    let spaces: Vec<String> = fed.iter().map(|c| name_of(view, c)).collect();
    other.understood = plan.understood.replacen(
        &name,
        &format!("{} (which {name} is part of)", spaces.join(", ")),
        1,
    );
    Some(other)
}

/// For a list or count of what stands in one relation to nodes of two
/// kinds ("which pumps serve the ahu cooling coils": the pump feeding an
/// AHU and a cooling coil), found empty, when the model makes nodes of
/// one kind parts of nodes of the other: the relation to nodes of the one
/// kind that are part of nodes of the other (the pumps feeding a cooling
/// coil that is part of an AHU). The words name the coil by the unit it
/// belongs to; "None" would deny what the model states.
fn part_of_instead(view: GraphView<'_>, plan: &Plan) -> Option<Plan> {
    if !plain_list(plan) {
        return None;
    }
    let [l1, l2] = plan.body.links.as_slice() else {
        return None;
    };
    // The shared end and the two others: what feeds both, or what both
    // feed ("which boxes do the ahu supply fans feed").
    let (shared, a, b) = if l1.from == l2.from {
        (&l1.from, &l1.to, &l2.to)
    } else if l1.to == l2.to {
        (&l1.to, &l1.from, &l2.from)
    } else {
        return None;
    };
    let (plan::Slot::Var(x), plan::Slot::Var(a), plan::Slot::Var(b)) = (shared, a, b) else {
        return None;
    };
    if l1.rel != l2.rel || l1.reach != l2.reach || a == b || x == a || x == b {
        return None;
    }
    let (ca, cb) = (class_of(plan, a)?, class_of(plan, b)?);
    // Which kind is part of the other in the model, if either is.
    let within = |part: &str, whole: &str| parts_of_kind(view, part, whole);
    let (whole, whole_class, part, part_class) = if within(&cb, &ca) {
        (a, &ca, b, &cb)
    } else if within(&ca, &cb) {
        (b, &cb, a, &ca)
    } else {
        return None;
    };
    let mut other = plan.clone();
    let whole_slot = plan::Slot::Var(whole.clone());
    other
        .body
        .links
        .retain(|l| l.to != whole_slot && l.from != whole_slot);
    other.body.links.push(plan::Link {
        rel: plan::Rel::Part,
        from: plan::Slot::Var(whole.clone()),
        to: plan::Slot::Var(part.clone()),
        reach: plan::Reach::Transitive,
        not_through: Vec::new(),
    });
    let label = |c: &str| read::class_words(view, c);
    let (w, p) = (label(whole_class), label(part_class));
    let (p, w) = (read::indefinite(&p), read::indefinite(&w));
    let read_as = format!("{p} that is part of {w}");
    other.understood = [format!("{w} and {p}"), format!("{p} and {w}")]
        .iter()
        .find(|said| plan.understood.contains(said.as_str()))
        .map_or_else(
            || format!("{}, read as {read_as}", plan.understood),
            |said| plan.understood.replacen(said.as_str(), &read_as, 1),
        );
    Some(other)
}

/// For a list or count of a kind asked with nodes of other kinds as its
/// parts ("chw pumps on the ahu cooling coils" read as the pumps with an
/// AHU and a cooling coil), found empty, when the model never makes the
/// asked kind a part of any of those kinds nor any of them a part of it:
/// the part reading cannot hold in this model, and a kind said "on"
/// equipment it serves is what feeds it (the pumps feeding a cooling coil
/// that is part of an AHU, [`part_of_instead`] when both kinds are asked).
fn feeds_instead_of_parts(view: GraphView<'_>, plan: &Plan) -> Option<Plan> {
    if !plain_list(plan) || plan.body.links.is_empty() {
        return None;
    }
    let target = plan::Slot::Var(plan.target.clone());
    let asked = class_of(plan, &plan.target)?;
    let mut others: Vec<(String, String)> = Vec::new();
    for l in &plan.body.links {
        let other = match (&l.from, &l.to) {
            (f, plan::Slot::Var(o)) if l.rel == plan::Rel::Part && *f == target => o,
            _ => return None,
        };
        others.push((other.clone(), class_of(plan, other)?));
    }
    if others.iter().any(|(_, c)| {
        view.onto.is_a(c, &crate::vocab::brick("Point"))
            || parts_of_kind(view, c, &asked)
            || parts_of_kind(view, &asked, c)
    }) {
        return None;
    }
    let mut other = plan.clone();
    other.body.links = others
        .iter()
        .map(|(v, _)| plan::Link {
            rel: plan::Rel::Feeds,
            from: target.clone(),
            to: plan::Slot::Var(v.clone()),
            reach: plan::Reach::Direct,
            not_through: Vec::new(),
        })
        .collect();
    let label = |c: &str| read::class_words(view, c);
    let fed: Vec<String> = others
        .iter()
        .map(|(_, c)| read::indefinite(&label(c)))
        .collect();
    other.understood = format!("the {} feeding {}", label(&asked), fed.join(" and "));
    if other.shape == Shape::Count {
        other.understood = format!("how many: {}", other.understood);
    }
    Some(part_of_instead(view, &other).unwrap_or(other))
}

/// Whether a plan lists or counts what stands in its links alone: no
/// count condition, absence or alternatives.
fn plain_list(plan: &Plan) -> bool {
    matches!(plan.shape, Shape::List | Shape::Count)
        && plan.having.is_none()
        && plan.absent.is_empty()
        && plan.body.any_of.is_empty()
}

/// The one class a plan's variable `v` is asked to be, if one.
fn class_of(plan: &Plan, v: &str) -> Option<String> {
    let of: Vec<&String> = plan
        .body
        .types
        .iter()
        .filter(|(s, _)| *s == plan::Slot::Var(v.to_owned()))
        .map(|(_, c)| c)
        .collect();
    match of.as_slice() {
        [c] => Some((*c).clone()),
        _ => None,
    }
}

/// Whether the model makes a node of class `part` a part of a node of
/// class `whole` (through any chain of parts).
fn parts_of_kind(view: GraphView<'_>, part: &str, whole: &str) -> bool {
    let wholes: std::collections::HashSet<&str> = view.instances_of(whole).collect();
    view.instances_of(part).any(|n| {
        view.topo
            .containers(n)
            .iter()
            .any(|c| wholes.contains(c.as_str()))
    })
}

/// For a list or count with one kind asked to have another as a part
/// ("the reheat coils it supplies in the VAV boxes" read as coils with a
/// VAV box), found empty, when the model makes the second a part of the
/// first never, and the first a part of the second: the part the other way
/// round (the coils that are part of a VAV box). "None" would deny what the
/// model states.
fn part_reversed_instead(view: GraphView<'_>, plan: &Plan) -> Option<Plan> {
    if !plain_list(plan) {
        return None;
    }
    let var_part = |l: &plan::Link| {
        l.rel == plan::Rel::Part
            && matches!((&l.from, &l.to), (plan::Slot::Var(_), plan::Slot::Var(_)))
    };
    let at = {
        let mut parts = plan
            .body
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| var_part(l));
        let (at, _) = parts.next()?;
        if parts.next().is_some() {
            return None;
        }
        at
    };
    let l = &plan.body.links[at];
    let (plan::Slot::Var(a), plan::Slot::Var(b)) = (&l.from, &l.to) else {
        return None;
    };
    let (whole, part) = (class_of(plan, a)?, class_of(plan, b)?);
    if parts_of_kind(view, &part, &whole) || !parts_of_kind(view, &whole, &part) {
        return None;
    }
    let mut other = plan.clone();
    let link = &mut other.body.links[at];
    std::mem::swap(&mut link.from, &mut link.to);
    let label = |c: &str| read::class_words(view, c);
    let part = label(&part);
    let read_as = format!(", each part of {}", read::indefinite(&part));
    // The reader may have said the article before the class as typed.
    let said = [
        format!(" with {}", read::indefinite(&part)),
        format!(" with a {part}"),
    ]
    .into_iter()
    .find(|said| plan.understood.contains(said.as_str()));
    other.understood = if let Some(said) = said {
        plan.understood.replacen(&said, &read_as, 1)
    } else {
        format!(
            "{}, read as {}{read_as}",
            plan.understood,
            read::indefinite(&label(&whole))
        )
    };
    Some(other)
}

/// For a list or count of a unit's parts of one kind, found empty: the
/// unit's points whose class names the kind ("VAV-1-05 DPR-CMD", a Damper
/// Position Command, for "which dampers are on vav-1-05"). The model
/// states such a part only through its point; "None" alone hides it.
/// Returns the unit, the kind and the points.
fn points_naming_kind<'p>(
    view: GraphView<'_>,
    plan: &'p Plan,
) -> Option<(&'p str, &'p str, Vec<String>)> {
    if !matches!(plan.shape, Shape::List | Shape::Count)
        || plan.having.is_some()
        || !plan.absent.is_empty()
        || !plan.body.any_of.is_empty()
    {
        return None;
    }
    let target = plan::Slot::var(&plan.target);
    let [l] = plan.body.links.as_slice() else {
        return None;
    };
    let plan::Slot::Node(unit) = &l.from else {
        return None;
    };
    if l.rel != plan::Rel::Part || l.to != target {
        return None;
    }
    let [(slot, kind)] = plan.body.types.as_slice() else {
        return None;
    };
    if *slot != target {
        return None;
    }
    let asked = crate::vocab::name_words(kind);
    let points: Vec<String> = view
        .topo
        .out_of(unit, TopoRel::HasPoint)
        .iter()
        .filter(|p| {
            view.topo.types(p).iter().any(|t| {
                let said = crate::vocab::name_words(t);
                asked.iter().all(|w| said.contains(w))
            })
        })
        .cloned()
        .collect();
    (!points.is_empty()).then_some((unit.as_str(), kind.as_str(), points))
}

/// For a list or count of places that have a point of a kind ("which
/// zones have co2 sensors"), found empty: models hang a space's sensors on
/// its rooms (rice_brick.ttl: a zone's CO2 sensors are points of its
/// rooms), so a place has what the spaces it is made of have.
fn spaces_instead(view: GraphView<'_>, plan: &Plan) -> Option<Plan> {
    if !matches!(plan.shape, Shape::List | Shape::Count)
        || plan.having.is_some()
        || !plan.absent.is_empty()
    {
        return None;
    }
    let target = plan::Slot::var(&plan.target);
    let [l] = plan.body.links.as_slice() else {
        return None;
    };
    if l.rel != plan::Rel::Point || l.from != target || !matches!(l.to, plan::Slot::Var(_)) {
        return None;
    }
    let location = crate::vocab::brick("Location");
    let place = plan
        .body
        .types
        .iter()
        .any(|(s, c)| *s == target && view.onto.is_a(c, &location));
    if !place {
        return None;
    }
    let mut other = plan.clone();
    let space = plan::Slot::var("space");
    other.body.links = vec![
        plan::Link {
            rel: plan::Rel::Part,
            from: target,
            to: space.clone(),
            reach: plan::Reach::Transitive,
            not_through: Vec::new(),
        },
        plan::Link {
            from: space,
            ..l.clone()
        },
    ];
    other.understood = format!("{}, on a space it is made of", plan.understood);
    Some(other)
}

/// The one link of a yes/no between two named nodes that was answered no.
fn denied<'p>(plan: &'p Plan, r: &GraphResult) -> Option<&'p plan::Link> {
    if plan.shape != Shape::Yes || r.boolean != Some(false) {
        return None;
    }
    let [l] = plan.body.links.as_slice() else {
        return None;
    };
    matches!((&l.from, &l.to), (plan::Slot::Node(_), plan::Slot::Node(_))).then_some(l)
}

/// The second follow-up of a "no" between two named nodes: whether the
/// relation holds the other way ("is cwp-1 on ch-1": ch-1 does not feed
/// cwp-1, cwp-1 feeds ch-1), which a bare "no" would hide.
fn the_other_way(plan: &Plan, r: &GraphResult) -> Option<String> {
    if denied(plan, r)?.rel != plan::Rel::Feeds {
        return None;
    }
    let mut other = plan.clone();
    let link = &mut other.body.links[0];
    std::mem::swap(&mut link.from, &mut link.to);
    Some(other.sparql())
}

/// The follow-up of a "no" between two named nodes: what relates to the
/// second one instead ("No: … VAV-3-02 is fed by AHU-2"); for a place,
/// where the first one is ("No: … VAV-2-14 is located in Room A-214").
/// A chain of supply denied ("would Room A-302 lose its supply if AHU-1
/// stopped") is followed by what feeds the second one through any chain,
/// of the first one's kind (AHU-2): the whole chain up to the plant
/// answers nothing asked.
fn instead(view: GraphView<'_>, plan: &Plan, r: &GraphResult) -> Option<String> {
    let l = denied(plan, r)?;
    let x = plan::Slot::var("x");
    let (from, to) = if l.rel == plan::Rel::Location {
        (l.from.clone(), x.clone())
    } else {
        (x.clone(), l.to.clone())
    };
    let chain = l.rel == plan::Rel::Feeds && l.reach == plan::Reach::Transitive;
    let mut body = plan::Block {
        links: vec![read::link(l.rel, from, to, plan::Reach::Direct)],
        ..plan::Block::default()
    };
    if chain && let plan::Slot::Node(first) = &l.from {
        // Its most specific kind; of kinds said the same (brick:AHU and
        // brick:Air_Handling_Unit), any one.
        let mut kinds = view.specific_types(first);
        kinds.sort();
        body.links[0].reach = plan::Reach::Transitive;
        body.types.push((x, kinds.into_iter().next()?));
    }
    let follow = Plan::new(Shape::List, "x", body, String::new());
    Some(follow.sparql())
}

/// For a chain of supply denied and what feeds the second node instead
/// ([`instead`]): each feeder's path down to that node, through the space
/// it is part of when the node is a room ("AHU-2 (via VAV-3-02, Zone
/// A-302)"), the equipment a conflicting document may name.
fn instead_paths(
    view: GraphView<'_>,
    plan: &Plan,
    r: &GraphResult,
) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let Some(l) = denied(plan, r) else {
        return out;
    };
    let plan::Slot::Node(target) = &l.to else {
        return out;
    };
    if l.rel != plan::Rel::Feeds || l.reach != plan::Reach::Transitive {
        return out;
    }
    let supply = view.topo.supply_walk(target, 32);
    for i in &r.instead {
        let mut via = supply.path_back(i);
        via.retain(|n| n != target);
        if !via.is_empty() {
            out.insert(i.clone(), via);
        }
    }
    out
}

impl GraphResult {
    fn read(plan: &Plan, out: QueryOutput) -> Self {
        let mut r = Self::default();
        let rows = match out {
            QueryOutput::Boolean(b) => {
                r.boolean = Some(b);
                return r;
            }
            other => other.into_rows(),
        };
        let push = |items: &mut Vec<String>, v: Option<&str>| {
            if let Some(v) = v
                && !items.iter().any(|i| i == v)
            {
                items.push(v.to_owned());
            }
        };
        match &plan.shape {
            Shape::PerGroup(g) => {
                for row in &rows {
                    if let Some(group) = row.str(g) {
                        let n = row.str("n").and_then(|n| n.parse().ok()).unwrap_or(0);
                        r.groups.push((group.to_owned(), n));
                        push(&mut r.items, Some(group));
                    }
                }
            }
            Shape::Unit => {
                for row in &rows {
                    if let (Some(p), Some(u)) = (row.str(&plan.target), row.str("unit")) {
                        r.units.push((p.to_owned(), u.to_owned()));
                        push(&mut r.items, Some(p));
                    }
                }
            }
            Shape::Yes => {
                r.boolean = Some(!rows.is_empty());
                for row in &rows {
                    for v in plan.vars() {
                        push(&mut r.items, row.str(&v));
                    }
                }
            }
            Shape::List | Shape::Count => {
                for row in &rows {
                    push(&mut r.items, row.str(&plan.target));
                }
            }
            Shape::PerKind => {
                for row in &rows {
                    if let (Some(x), Some(k)) = (row.str(&plan.target), row.str("kind")) {
                        r.typed_as.push((x.to_owned(), k.to_owned()));
                    }
                }
            }
        }
        r
    }

    fn trace_answer(&self, plan: &Plan) -> GraphAnswer {
        let kind = match plan.shape {
            Shape::List => "set",
            Shape::Count => "count",
            Shape::Yes => "boolean",
            Shape::PerGroup(_) | Shape::PerKind => "grouped_count",
            Shape::Unit => "value",
        };
        GraphAnswer {
            kind: kind.to_owned(),
            items: self.items.clone(),
            count: match plan.shape {
                Shape::Count | Shape::List => Some(self.items.len() as u64),
                _ => None,
            },
            boolean: self.boolean,
            values: self.units.iter().map(|(_, u)| unit_name(u)).collect(),
            groups: self
                .groups
                .iter()
                .map(|(g, n)| GroupCount {
                    group: g.clone(),
                    count: *n,
                })
                .collect(),
        }
    }
}

/// A unit as people write it: a QUDT unit IRI by its local name, a symbol as is.
fn unit_name(unit: &str) -> String {
    if unit.contains("://") {
        crate::vocab::local_name(unit).to_owned()
    } else {
        unit.to_owned()
    }
}

/// The nodes by name, at most [`MAX_NAMED`] of them, each with the path
/// that reaches it when `via` has one ("CH-1 (via CHWP-1, AHU-2)").
fn names(view: GraphView<'_>, iris: &[String], via: &BTreeMap<String, Vec<String>>) -> String {
    let mut s: Vec<String> = iris
        .iter()
        .take(MAX_NAMED)
        .map(|i| match via.get(i) {
            Some(p) => format!(
                "{} (via {})",
                name_of(view, i),
                p.iter()
                    .map(|n| name_of(view, n))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => name_of(view, i),
        })
        .collect();
    if iris.len() > MAX_NAMED {
        s.push(format!("and {} more", iris.len() - MAX_NAMED));
    }
    s.join(", ")
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| {
        f.to_uppercase().collect::<String>() + c.as_str()
    })
}

/// The named nodes of a plan (its anchors).
fn anchors(plan: &Plan) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let slots = plan
        .body
        .links
        .iter()
        .chain(plan.body.any_of.iter().flatten())
        .flat_map(|l| [&l.from, &l.to]);
    for s in slots {
        if let plan::Slot::Node(iri) = s
            && !out.contains(iri)
        {
            out.push(iri.clone());
        }
    }
    for iri in plan.body.values.iter().map(|(_, i)| i).chain(&plan.cited) {
        if !out.contains(iri) {
            out.push(iri.clone());
        }
    }
    out
}

/// For supply from a named node: each result's path back to it (the
/// nodes between), from the topology's walk — the same walk as
/// `/api/topology/*`; for one hop, the part of the named node the result
/// feeds or is fed by when not the node itself ("CHWP-1 (via AHU-2 CC)").
fn paths(view: GraphView<'_>, plan: &Plan, items: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for l in &plan.body.links {
        if l.rel != plan::Rel::Feeds {
            continue;
        }
        let (anchor, way) = match (&l.from, &l.to) {
            (plan::Slot::Node(a), plan::Slot::Var(_)) => (a, crate::topology::Way::Downstream),
            (plan::Slot::Var(_), plan::Slot::Node(a)) => (a, crate::topology::Way::Upstream),
            (plan::Slot::Node(a), plan::Slot::Node(b)) if l.reach == plan::Reach::Direct => {
                let through = between_parts(view, a, b);
                if !through.is_empty() {
                    out.insert(b.clone(), through);
                }
                continue;
            }
            _ => continue,
        };
        if l.reach == plan::Reach::Direct {
            out.extend(through_parts(view, anchor, way, &l.not_through, items));
            continue;
        }
        // What feeds a room is found through the zone it is part of, as
        // the composed query finds it (the rooms of a fed zone).
        let walk = match way {
            crate::topology::Way::Upstream => view.topo.supply_walk(anchor, 32),
            crate::topology::Way::Downstream => view.topo.walk(anchor, way, 32),
        };
        for i in items {
            let mut via = walk.path_back(i);
            via.retain(|n| n != anchor);
            if !via.is_empty() {
                out.insert(i.clone(), via);
            }
        }
    }
    out
}

/// For one hop of supply at `anchor`: each result that feeds (upstream)
/// or is fed by (downstream) a part of the anchor and not the anchor
/// itself, with the nearest such part (never one of `skipped`).
fn through_parts(
    view: GraphView<'_>,
    anchor: &str,
    way: crate::topology::Way,
    skipped: &[String],
    items: &[String],
) -> BTreeMap<String, Vec<String>> {
    use crate::topology::{Rel as TopoRel, Way};
    let linked = |item: &str, node: &str| match way {
        Way::Upstream => view
            .topo
            .out_of(item, TopoRel::Feeds)
            .iter()
            .any(|n| n == node),
        Way::Downstream => view
            .topo
            .into(item, TopoRel::Feeds)
            .iter()
            .any(|n| n == node),
    };
    let mut parts = view.topo.parts(anchor);
    parts.retain(|p| !skipped.contains(p));
    items
        .iter()
        .filter(|i| !linked(i, anchor))
        .filter_map(|i| {
            parts
                .iter()
                .find(|p| linked(i, p))
                .map(|p| (i.clone(), vec![p.clone()]))
        })
        .collect()
}

/// For "does `from` feed `to`" answered through their parts: the parts
/// the supply goes from and to when it is not stated between the two
/// themselves ("CHWP-1 feeds AHU-2" through AHU-2 CC); empty when it is,
/// or when no part is fed.
fn between_parts(view: GraphView<'_>, from: &str, to: &str) -> Vec<String> {
    use crate::topology::Rel as TopoRel;
    let with_parts = |n: &str| {
        let mut v = vec![n.to_owned()];
        v.extend(view.topo.parts(n));
        v
    };
    for a in with_parts(from) {
        let fed = view.topo.out_of(&a, TopoRel::Feeds);
        if let Some(b) = with_parts(to).into_iter().find(|b| fed.contains(b)) {
            return [a, b]
                .into_iter()
                .filter(|n| n != from && n != to)
                .collect();
        }
    }
    Vec::new()
}

/// Of what a stopped node feeds, what equipment of the stopped node's kind
/// that does not stop with it (neither fed by it nor one of its parts) also
/// feeds, into the item or one of its parts: a lag pump beside the lead
/// one, a second air handler. Each item with those feeders.
fn also_fed(view: GraphView<'_>, stopped: &str, items: &[String]) -> Vec<(String, Vec<String>)> {
    let topo = view.topo;
    let kinds = view.specific_types(stopped);
    if kinds.is_empty() {
        return Vec::new();
    }
    let walk = topo.walk(stopped, crate::topology::Way::Downstream, usize::MAX);
    let down: BTreeSet<&str> = walk.nodes().collect();
    let own: Vec<String> = std::iter::once(stopped.to_owned())
        .chain(topo.parts(stopped))
        .collect();
    items
        .iter()
        .filter_map(|x| {
            let parts = topo.parts(x);
            let mut by: Vec<String> = std::iter::once(x.clone())
                .chain(parts.iter().cloned())
                .flat_map(|n| topo.into(&n, TopoRel::Feeds))
                .filter(|f| {
                    !own.contains(f)
                        && !parts.contains(f)
                        && !down.contains(f.as_str())
                        && !items.contains(f)
                        && view.is_a_any(f, &kinds)
                })
                .collect();
            by.sort();
            by.dedup();
            (!by.is_empty()).then(|| (x.clone(), by))
        })
        .collect()
}

/// A class as an answer says it: its words and its name ("Supply Air
/// Temperature Sensor (Supply_Air_Temperature_Sensor)").
fn class_said(view: GraphView<'_>, class: &str) -> String {
    format!(
        "{} ({})",
        read::class_words(view, class),
        crate::vocab::local_name(class)
    )
}

/// The answer from the result: text, evidence by source file, limitations.
async fn draft(
    store: &dyn GraphStore,
    view: GraphView<'_>,
    plan: &Plan,
    r: &GraphResult,
    q: &super::question::Question,
) -> Result<Draft, Fault> {
    let understood = &plan.understood;
    let n = r.items.len();
    let via = paths(view, plan, &r.items);
    let instead_via = instead_paths(view, plan, r);
    let no_path = BTreeMap::new();
    let text = match &plan.shape {
        // "is there a CO2 sensor on VAV-3-02": asked yes or no, answered
        // by what there is.
        Shape::List if n == 0 && q.reading.yes_no && !plan.choice => {
            format!("No: the building graph has nothing that matches ({understood}).")
        }
        Shape::List if n == 0 => {
            format!("None: the building graph has nothing that matches ({understood}).")
        }
        // "what class is AHU-2 SAT": the node and the classes it is typed.
        Shape::List if plan.typed && n > 0 => {
            let said: Vec<String> = r
                .items
                .iter()
                .take(MAX_NAMED)
                .map(|i| {
                    let kinds: Vec<String> = view
                        .topo
                        .types(i)
                        .iter()
                        .map(|t| class_said(view, t))
                        .collect();
                    if kinds.is_empty() {
                        format!("the model gives {} no type", name_of(view, i))
                    } else {
                        format!("{} is typed {}", name_of(view, i), kinds.join(", "))
                    }
                })
                .collect();
            // Names as the model writes them, never capitalised.
            format!("{}.", said.join("; "))
        }
        Shape::List if q.reading.yes_no && !plan.choice => {
            format!("Yes: {understood}: {n} — {}.", names(view, &r.items, &via))
        }
        Shape::List => format!(
            "{}: {n} — {}.",
            capitalised(understood),
            names(view, &r.items, &via)
        ),
        Shape::Count => {
            if n == 0 {
                format!("0 — {understood}.")
            } else {
                format!("{n} — {understood}: {}.", names(view, &r.items, &no_path))
            }
        }
        Shape::Yes => {
            let claim = understood.strip_prefix("whether ").unwrap_or(understood);
            if r.boolean == Some(true) {
                let through: Vec<&String> = via.values().flatten().collect();
                if r.items.is_empty() && !through.is_empty() {
                    let parts: Vec<String> = through.iter().map(|n| name_of(view, n)).collect();
                    format!("Yes: {claim}, through {}.", parts.join(" and "))
                } else if r.items.is_empty() {
                    format!("Yes: {claim}.")
                } else {
                    format!("Yes: {claim} ({}).", names(view, &r.items, &no_path))
                }
            } else if r.other_way {
                let named = |s: &plan::Slot| match s {
                    plan::Slot::Node(n) => name_of(view, n),
                    plan::Slot::Var(_) => String::new(),
                };
                let (from, to, how) = plan
                    .body
                    .links
                    .first()
                    .map(|l| {
                        let how = match l.reach {
                            plan::Reach::Direct => " (directly)",
                            plan::Reach::Transitive => ", through other equipment",
                        };
                        (named(&l.from), named(&l.to), how)
                    })
                    .unwrap_or_default();
                format!(
                    "No: the building graph does not show that {claim}; it shows the other way: {to} feeds {from}{how}."
                )
            } else if r.instead.is_empty() {
                format!("No: the building graph does not show that {claim}.")
            } else {
                let rel = plan.body.links.first().map(|l| l.rel);
                let asked = match rel {
                    Some(plan::Rel::Location) => format!(
                        "Where {} is",
                        name_of(view, anchors(plan).first().map_or("", String::as_str))
                    ),
                    Some(plan::Rel::Feeds) | None => format!(
                        "What feeds {}{}",
                        name_of(view, anchors(plan).last().map_or("", String::as_str)),
                        match plan.body.links.first().map(|l| l.reach) {
                            Some(plan::Reach::Transitive) => ", through any chain of supply",
                            _ => "",
                        }
                    ),
                    _ => format!(
                        "What relates to {}",
                        name_of(view, anchors(plan).last().map_or("", String::as_str))
                    ),
                };
                format!(
                    "No: the building graph does not show that {claim}. {asked}: {}.",
                    names(view, &r.instead, &instead_via)
                )
            }
        }
        Shape::PerKind => {
            if r.groups.is_empty() {
                format!("None: the building graph has nothing that matches ({understood}).")
            } else {
                let of = |class: &str| -> Vec<String> {
                    let nodes = r.under.get(class).map_or(&[][..], Vec::as_slice);
                    let mut said: Vec<String> =
                        nodes.iter().take(3).map(|n| name_of(view, n)).collect();
                    if nodes.len() > 3 {
                        said.push("…".into());
                    }
                    said
                };
                let per: Vec<String> = r
                    .groups
                    .iter()
                    .map(|(g, c)| format!("{}: {c} ({})", class_said(view, g), of(g).join(", ")))
                    .collect();
                format!(
                    "{}: {} kinds, {} nodes — {}.",
                    capitalised(understood),
                    r.groups.len(),
                    r.items.len(),
                    per.join("; ")
                )
            }
        }
        Shape::PerGroup(_) => {
            if r.groups.is_empty() {
                format!("None: the building graph has nothing that matches ({understood}).")
            } else {
                let per: Vec<String> = r
                    .groups
                    .iter()
                    .map(|(g, c)| format!("{} {c}", name_of(view, g)))
                    .collect();
                format!("{}: {}.", capitalised(understood), per.join(", "))
            }
        }
        Shape::Unit => {
            if r.units.is_empty() {
                return Ok(Draft::Abstain(Reason::Unsupported {
                    understood: understood.clone(),
                    why: "the graph records no unit for it".into(),
                }));
            }
            let per: Vec<String> = r
                .units
                .iter()
                .take(MAX_NAMED)
                .map(|(p, u)| format!("{} ({})", unit_name(u), name_of(view, p)))
                .collect();
            format!("{}: {}.", capitalised(understood), per.join(", "))
        }
    };
    // "… and what brick class is it": the classes the results are typed.
    let asks_class = q
        .grounding
        .entities
        .iter()
        .any(|e| e.iri == crate::vocab::brick("Class"));
    let mut typed: Vec<String> = Vec::new();
    let mut text = text;
    if (asks_class || plan.typed) && matches!(plan.shape, Shape::List) && n > 0 {
        for i in r.items.iter().take(MAX_NAMED) {
            for t in view.topo.types(i) {
                if !typed.contains(t) {
                    typed.push(t.clone());
                }
            }
        }
        // (A question for the kind says the classes in its sentence.)
        if !typed.is_empty() && !plan.typed {
            let said: Vec<String> = typed.iter().map(|t| class_said(view, t)).collect();
            text.push_str(&format!(" Typed: {}.", said.join(", ")));
        }
    }
    // "if CHWP-1 fails, which air handlers lose chilled water": what
    // CHWP-2, its lag pump, also feeds may keep its supply.
    let mut beside: Vec<String> = Vec::new();
    if let Some(stopped) = &plan.stopped
        && matches!(plan.shape, Shape::List | Shape::Count)
    {
        let also = also_fed(view, stopped, &r.items);
        if !also.is_empty() {
            let said: Vec<String> = also
                .iter()
                .take(MAX_NAMED)
                .map(|(x, by)| {
                    let by: Vec<String> = by.iter().map(|f| name_of(view, f)).collect();
                    format!("{} (by {})", name_of(view, x), by.join(", "))
                })
                .collect();
            let more = also.len().saturating_sub(MAX_NAMED);
            text.push_str(&format!(
                " Also fed by other equipment of {}'s kind, which does not stop with it, so they may keep that supply: {}{}.",
                name_of(view, stopped),
                said.join(", "),
                if more > 0 { format!(", and {more} more") } else { String::new() }
            ));
            beside.extend(also.into_iter().flat_map(|(_, by)| by));
        }
    }
    // "which dampers are on vav-1-05", none found: the points of the box
    // that name a damper (its damper command) are what the model states.
    if n == 0
        && let Some((unit, kind, points)) = points_naming_kind(view, plan)
    {
        let said: Vec<String> = points
            .iter()
            .take(MAX_NAMED)
            .map(|p| {
                let kinds: Vec<String> = view
                    .specific_types(p)
                    .iter()
                    .map(|t| class_said(view, t))
                    .collect();
                format!("{} ({})", name_of(view, p), kinds.join(", "))
            })
            .collect();
        text.push_str(&format!(
            " {} has points that name {}: {}.",
            name_of(view, unit),
            read::indefinite(&read::class_words(view, kind)),
            said.join("; ")
        ));
        beside.extend(points);
    }
    // Provenance: the graphs the anchors and the results are stated in.
    let anchors = anchors(plan);
    let mut cited: Vec<String> = anchors.clone();
    cited.extend(typed);
    for b in beside {
        if !cited.contains(&b) {
            cited.push(b);
        }
    }
    for i in r
        .items
        .iter()
        .chain(via.values().flatten())
        .chain(&r.instead)
        .chain(instead_via.values().flatten())
    {
        if !cited.contains(i) {
            cited.push(i.clone());
        }
    }
    if cited.is_empty() {
        // "None" about a class: cite the classes asked about.
        cited.extend(plan.body.types.iter().map(|(_, c)| c.clone()));
    }
    let by_file = files_stating(store, &cited).await?;
    if by_file.is_empty() {
        return Ok(Draft::Abstain(Reason::Unsupported {
            understood: understood.clone(),
            why: "no source file states the nodes of the answer".into(),
        }));
    }
    let mut evidence = Vec::new();
    let mut times = Vec::new();
    let mut files = Vec::new();
    for ((_, path), (ids, record)) in &by_file {
        let mut graph_ids: Vec<String> = anchors
            .iter()
            .filter(|a| ids.contains(a))
            .cloned()
            .collect();
        graph_ids.extend(ids.iter().filter(|i| !anchors.contains(i)).cloned());
        evidence.push(EvidenceItem {
            graph_ids,
            file_paths: vec![path.clone()],
            excerpt: Some(format!(
                "{} ({} node{} from this file)",
                capitalised(understood),
                ids.len(),
                if ids.len() == 1 { "" } else { "s" }
            )),
            source_sha: Some(record.sha256.clone()),
        });
        times.push(record.updated_at.to_rfc3339());
        files.push(path.clone());
    }
    let limitations = format!(
        "Answered from the building graph by a composed query: {understood}. \
         {} result{} from {}. The query reads only what the models state; \
         equipment or relations they leave out are not counted.",
        n,
        if n == 1 { "" } else { "s" },
        files.join(", ")
    );
    let next = q
        .labels
        .first()
        .map_or_else(|| "the node".to_owned(), Clone::clone);
    Ok(Draft::Answer(
        Answer {
            answer: text,
            evidence,
            timestamp: newest(times),
            limitations,
            next_step: format!(
                "Run the SPARQL in the trace against /sparql to see every row, or open the topology view of {next} (GET /api/topology/subgraph?id=…)."
            ),
        },
        Vec::new(),
    ))
}

/// The source file that states each of `iris` (a model file first; the
/// ontology only for what no model states), grouped by file, models
/// first: each file's nodes in the order given, with its record. A node no
/// file states is left out.
pub(crate) async fn files_stating(
    store: &dyn GraphStore,
    iris: &[String],
) -> Result<BTreeMap<(u8, String), (Vec<String>, crate::store::SourceRecord)>, Fault> {
    let graphs = graphs_of(store, iris).await?;
    let sources = store.sources().await?;
    let mut by_file: BTreeMap<(u8, String), (Vec<String>, crate::store::SourceRecord)> =
        BTreeMap::new();
    for iri in iris {
        let Some(gs) = graphs.get(iri) else { continue };
        let record = gs
            .iter()
            .filter_map(|g| sources.iter().find(|s| &s.graph == g))
            .min_by_key(|s| (s.kind != GraphKind::Model, s.path.clone()));
        if let Some(s) = record {
            let key = (u8::from(s.kind != GraphKind::Model), s.path.clone());
            let entry = by_file
                .entry(key)
                .or_insert_with(|| (Vec::new(), s.clone()));
            entry.0.push(iri.clone());
        }
    }
    Ok(by_file)
}

/// The named graphs (source files) that state each node.
async fn graphs_of(
    store: &dyn GraphStore,
    iris: &[String],
) -> Result<BTreeMap<String, BTreeSet<String>>, Fault> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for chunk in iris.chunks(200) {
        let values: Vec<String> = chunk
            .iter()
            .filter(|i| crate::eval::score::is_plain_iri(i))
            .map(|i| format!("<{i}>"))
            .collect();
        if values.is_empty() {
            continue;
        }
        let rows = select(
            store,
            format!(
                "SELECT DISTINCT ?n ?g WHERE {{ VALUES ?n {{ {} }} GRAPH ?g {{ ?n ?p ?o }} }}",
                values.join(" ")
            ),
        )
        .await?;
        for row in rows {
            if let (Some(n), Some(g)) = (row.str("n"), row.str("g")) {
                out.entry(n.to_owned()).or_default().insert(g.to_owned());
            }
        }
    }
    Ok(out)
}
