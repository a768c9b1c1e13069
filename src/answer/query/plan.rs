//! A composed question as a small query plan, and the SPARQL it becomes.
//!
//! A plan is a conjunction of typed slots and links over four Brick
//! relations (each read in both of the directions Brick states it, e.g.
//! `brick:feeds` or `^brick:isFedBy`), with blocks that must not hold
//! (absence), a count condition, and the shape of the answer. Rendering is
//! mechanical: the SPARQL in the trace is the query that ran.

use crate::vocab;
use std::collections::HashMap;
use std::fmt::Write as _;

/// What rendering carries: a counter for fresh variables, and the classes
/// under each asked class when they were looked up first.
struct Ctx<'a> {
    k: usize,
    classes: Option<&'a HashMap<String, Vec<String>>>,
    point_kinds: &'a [String],
}

/// A relation the engine composes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rel {
    /// `brick:feeds` / `brick:isFedBy`: `from` feeds `to`.
    Feeds,
    /// `brick:hasPart` / `brick:isPartOf`: `from` has part `to`.
    Part,
    /// `brick:hasPoint` / `brick:isPointOf`: `from` has point `to`.
    Point,
    /// `brick:hasLocation` / `brick:isLocationOf`: `from` is located in `to`.
    Location,
}

const FEEDS: &str = "(brick:feeds|^brick:isFedBy)";
const PART: &str = "(brick:hasPart|^brick:isPartOf)";
const POINT: &str = "(brick:hasPoint|^brick:isPointOf)";
const LOCATION: &str = "(brick:hasLocation|^brick:isLocationOf)";
/// The path from a class to one it is a kind of: under it, equivalent to
/// it, an alias of it, deprecated for it — or the class that replaces the
/// asked one (Brick 1.4 names `brick:Air_Handling_Unit` an alias of
/// `brick:AHU`, and replaces `brick:Room` by `rec:Room`). A replacement
/// is a kind of what it replaces only at the asked end: `brick:Freezer`
/// (equipment) is replaced by `rec:Room`, which makes no room equipment.
const SUBCLASS: &str = "(rdfs:subClassOf|owl:equivalentClass|^owl:equivalentClass|brick:aliasOf|^brick:aliasOf|brick:isReplacedBy)*/(^brick:isReplacedBy)?";

/// The Haystack marker of a point record.
pub fn point_marker() -> String {
    format!("{}point", vocab::PH_IOT)
}

/// The classes the type variable `c` takes for an asked `class`: those
/// listed under it when they were looked up first, else a subquery.
fn kinds_binding(c: &str, class: &str, classes: Option<&HashMap<String, Vec<String>>>) -> String {
    match classes.and_then(|m| m.get(class)) {
        Some(list) if !list.is_empty() => {
            let iris: Vec<String> = list.iter().map(|i| format!("<{i}>")).collect();
            format!("VALUES {c} {{ {} }}", iris.join(" "))
        }
        _ => format!("{{ SELECT DISTINCT {c} WHERE {{ {c} {SUBCLASS} <{class}> }} }}"),
    }
}

/// The pattern of a node `v` of a kind in `c`, where `kinds` binds `c`
/// (a VALUES or a subquery): typed so, or a Haystack record with a
/// marker that stands for one. A marker names a kind of equipment on an
/// equipment record; on a point ("damper cmd point") it names the
/// equipment the point acts on, and the point is no damper: a point
/// record counts by its markers only for a kind of point.
///
/// `kinds` is repeated inside each branch: joined with the union from
/// outside, Oxigraph's RocksDB store takes a minute for what each branch
/// answers in milliseconds (a class listing on the campus).
pub fn of_kind(v: &str, c: &str, kinds: &str, point_kind: bool) -> String {
    let not_point = if point_kind {
        String::new()
    } else {
        format!(
            " FILTER NOT EXISTS {{ {v} dq:hasHaystackTag <{}> }}",
            point_marker()
        )
    };
    format!(
        "{{ {kinds} {v} a {c} }} UNION {{ {kinds} {v} dq:hasHaystackTag/dq:brickClass {c} .{not_point} }}"
    )
}

impl Rel {
    /// Words for the trace and the answer.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Feeds => "feeds",
            Self::Part => "has part",
            Self::Point => "has point",
            Self::Location => "is located in",
        }
    }

    /// The property path from `from` to `to`.
    fn path(self, reach: Reach) -> String {
        match (self, reach) {
            (Self::Feeds, Reach::Direct) => FEEDS.to_owned(),
            // From a part of the supplier, through any chain of supply
            // (entering the parts of what is fed on the way), to what is
            // fed, to something it contains or something it is part of
            // (an AHU whose coil a chiller feeds; the rooms of a fed zone).
            (Self::Feeds, Reach::Transitive) => {
                format!("({PART}*/{FEEDS})+/({PART}*|(^{PART})*)")
            }
            (Self::Part, Reach::Direct) => PART.to_owned(),
            (Self::Part, Reach::Transitive) => format!("{PART}+"),
            (Self::Point, Reach::Direct) => POINT.to_owned(),
            (Self::Point, Reach::Transitive) => format!("{PART}*/{POINT}"),
            (Self::Location, Reach::Direct) => LOCATION.to_owned(),
            (Self::Location, Reach::Transitive) => format!("{LOCATION}/(^{PART})*"),
        }
    }
}

/// One hop, or any number of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// One hop.
    Direct,
    /// Any chain.
    Transitive,
}

/// A node or a variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// A named node (IRI).
    Node(String),
    /// A variable (name without `?`).
    Var(String),
}

impl Slot {
    /// A variable.
    pub fn var(name: &str) -> Self {
        Self::Var(name.to_owned())
    }

    fn sparql(&self) -> String {
        match self {
            Self::Node(iri) => format!("<{iri}>"),
            Self::Var(v) => format!("?{v}"),
        }
    }
}

/// `from rel to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The relation.
    pub rel: Rel,
    /// Its subject.
    pub from: Slot,
    /// Its object.
    pub to: Slot,
    /// One hop or a chain.
    pub reach: Reach,
    /// Parts of the named end the supply must not go through: those that
    /// carry another medium than the one asked ("its air": not the hot
    /// water into the box's reheat coil).
    pub not_through: Vec<String>,
}

impl Link {
    /// The property path of the link. One hop of supply at a named node
    /// enters its parts: models state supply where it arrives ("CHWP-1
    /// feeds AHU-2 CC", the coil of AHU-2; "cwp-1 feeds ch-1-cond"), and
    /// what feeds a part of equipment feeds the equipment. Only the named
    /// end's own parts are entered, never what it is part of (a system
    /// that has every pump and chiller as a part would make everything
    /// feed everything).
    fn path(&self) -> String {
        if self.rel != Rel::Feeds || self.reach != Reach::Direct {
            return self.rel.path(self.reach);
        }
        let from = if matches!(self.from, Slot::Node(_)) {
            format!("{PART}*/")
        } else {
            String::new()
        };
        let to = if matches!(self.to, Slot::Node(_)) {
            format!("/(^{PART})*")
        } else {
            String::new()
        };
        format!("{from}{FEEDS}{to}")
    }

    /// The link as a graph pattern. With parts to keep out of one hop of
    /// supply, the part the supply goes through is a variable of its own,
    /// filtered.
    fn pattern(&self, cx: &mut Ctx<'_>) -> String {
        let (from, to) = (self.from.sparql(), self.to.sparql());
        let node = |s: &Slot| matches!(s, Slot::Node(_));
        if self.not_through.is_empty()
            || self.rel != Rel::Feeds
            || self.reach != Reach::Direct
            || node(&self.from) == node(&self.to)
        {
            return format!("{from} {} {to}", self.path());
        }
        let via = format!("?via{}", cx.k);
        cx.k += 1;
        let list: Vec<String> = self.not_through.iter().map(|n| format!("<{n}>")).collect();
        let steps = if node(&self.to) {
            format!("{from} {FEEDS} {via} . {via} (^{PART})* {to}")
        } else {
            format!("{from} {PART}* {via} . {via} {FEEDS} {to}")
        };
        format!("{steps} . FILTER({via} NOT IN ({}))", list.join(", "))
    }
}

/// A conjunction: links, and slots typed with classes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    /// Links that must all hold.
    pub links: Vec<Link>,
    /// (slot, class IRI): the slot is an instance of the class.
    pub types: Vec<(Slot, String)>,
    /// Alternatives: each inner block is one way the condition holds
    /// (a location's points: its own, or those located in it).
    pub any_of: Vec<Vec<Link>>,
    /// (variable, IRI): the variable is that node (one of them, for a
    /// variable listed with several).
    pub values: Vec<(String, String)>,
}

impl Block {
    fn render(&self, out: &mut String, indent: &str, cx: &mut Ctx<'_>) {
        self.render_ordered(out, indent, false, cx);
    }

    /// Patterns in an order Oxigraph evaluates well: the values, then the
    /// links when one starts from a named node or a variable bound outside
    /// (`links_first`), else the types first.
    fn render_ordered(&self, out: &mut String, indent: &str, links_first: bool, cx: &mut Ctx<'_>) {
        // One VALUES per variable: several nodes of one are alternatives.
        let mut vars: Vec<&str> = self.values.iter().map(|(v, _)| v.as_str()).collect();
        vars.dedup();
        for v in vars {
            let nodes: Vec<String> = self
                .values
                .iter()
                .filter(|(w, _)| w == v)
                .map(|(_, iri)| format!("<{iri}>"))
                .collect();
            let _ = writeln!(out, "{indent}VALUES ?{v} {{ {} }}", nodes.join(" "));
        }
        let anchored = links_first
            || self
                .links
                .iter()
                .chain(self.any_of.iter().flatten())
                .any(|l| matches!(l.from, Slot::Node(_)) || matches!(l.to, Slot::Node(_)));
        // The classes under the one asked for are found first, from the
        // class (a subquery, so the store walks the hierarchy once, down
        // from it); then the nodes of those classes — typed so, or a
        // Haystack record with a marker that stands for one of them.
        let types = |out: &mut String, cx: &mut Ctx<'_>| {
            for (slot, class) in &self.types {
                let v = slot.sparql();
                let c = format!("?k{}", cx.k);
                cx.k += 1;
                // Links first (a block that must not hold, or is counted):
                // the listed classes as a filter on the node's own type,
                // which Oxigraph evaluates in milliseconds where a join
                // with a union takes seconds.
                if let Some(list) = cx
                    .classes
                    .and_then(|m| m.get(class))
                    .filter(|l| !l.is_empty() && links_first)
                {
                    let iris: Vec<String> = list.iter().map(|i| format!("<{i}>")).collect();
                    let _ = writeln!(
                        out,
                        "{indent}{v} a {c} . FILTER({c} IN ({}))",
                        iris.join(", ")
                    );
                    continue;
                }
                let kinds = kinds_binding(&c, class, cx.classes);
                let pattern = of_kind(&v, &c, &kinds, cx.point_kinds.contains(class));
                let _ = writeln!(out, "{indent}{pattern}");
            }
        };
        if !anchored {
            types(out, cx);
        }
        for l in &self.links {
            let _ = writeln!(out, "{indent}{} .", l.pattern(cx));
        }
        for alts in &self.any_of {
            let parts: Vec<String> = alts
                .iter()
                .map(|l| format!("{{ {} }}", l.pattern(cx)))
                .collect();
            let _ = writeln!(out, "{indent}{}", parts.join(" UNION "));
        }
        if anchored {
            types(out, cx);
        }
    }
}

/// What the answer is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// The nodes the target takes.
    List,
    /// How many nodes the target takes.
    Count,
    /// Whether the body holds.
    Yes,
    /// How many target nodes each node of the group variable has.
    PerGroup(String),
    /// The units of the target points.
    Unit,
    /// The target nodes with the classes of the asked kind they are
    /// typed ("what types of sensors are there"): counted per most
    /// specific class by the engine.
    PerKind,
}

/// Compare a count with a number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Having {
    /// What is counted: links from the target to `?n_y`, typed or not.
    pub counted: Block,
    /// The counted variable.
    pub var: String,
    /// More than (else fewer than).
    pub more: bool,
    /// The number.
    pub n: u64,
}

/// A composed question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The answer's shape.
    pub shape: Shape,
    /// The variable the answer is about.
    pub target: String,
    /// What must hold.
    pub body: Block,
    /// Blocks that must not hold.
    pub absent: Vec<Block>,
    /// A count condition on the target.
    pub having: Option<Having>,
    /// Nodes the target must not be, listed from the topology: a named
    /// node with its parts and what it is part of (what a chain of supply
    /// from equipment reaches inside itself), and the supply of another
    /// medium than the one asked.
    pub excluded: Vec<String>,
    /// What was understood, in words (the trace and `limitations`).
    pub understood: String,
    /// Named nodes the question went through to reach its subject ("the
    /// zone temp of Core_ZN": the zone), cited with the answer.
    pub cited: Vec<String>,
    /// A class was read loosely from the words: an empty result is not
    /// trusted as "none".
    pub loose: bool,
    /// The answer is the named node's kind ("what class is AHU-2 SAT"):
    /// said with the classes the node is typed.
    pub typed: bool,
    /// One hop of supply was read because equipment of the kind asked
    /// stands next to the named node, not because the question said
    /// "directly": an empty result may be retried along the chain.
    pub hop_guessed: bool,
    /// The question said "directly": an empty one-hop result is "none",
    /// never retried through anything else.
    pub direct_asked: bool,
    /// The asked classes that are kinds of point: a Haystack point record
    /// is of such a class by its markers, never of a kind of equipment.
    pub point_kinds: Vec<String>,
    /// Asked yes or no of several named nodes joined by "or" ("is vav 2-14
    /// on ahu 1 or ahu 2"): answered with those it holds for, no yes.
    pub choice: bool,
    /// What is listed loses its supply when this node stops ("if AHU-2
    /// trips, which rooms lose air"): the answer says what of it other
    /// equipment of the node's kind also feeds. Asked yes or no of another
    /// node ("will room a-302 lose air if ahu-1 trips"), that node's supply
    /// is what the documents are checked against.
    pub stopped: Option<String>,
}

/// Longest list of witnesses a yes/no query fetches.
const WITNESSES: usize = 20;

impl Plan {
    /// A plan of `body` about `target`, with no absence, count condition,
    /// exclusions or cited nodes yet.
    pub fn new(shape: Shape, target: impl Into<String>, body: Block, understood: String) -> Self {
        Self {
            shape,
            target: target.into(),
            body,
            absent: Vec::new(),
            having: None,
            excluded: Vec::new(),
            understood,
            cited: Vec::new(),
            loose: false,
            typed: false,
            hop_guessed: false,
            direct_asked: false,
            point_kinds: Vec::new(),
            choice: false,
            stopped: None,
        }
    }

    /// The variables of the body, in order of appearance.
    pub fn vars(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |s: &Slot| {
            if let Slot::Var(v) = s
                && !out.contains(v)
            {
                out.push(v.clone());
            }
        };
        for (s, _) in &self.body.types {
            add(s);
        }
        for l in self
            .body
            .links
            .iter()
            .chain(self.body.any_of.iter().flatten())
        {
            add(&l.from);
            add(&l.to);
        }
        out
    }

    /// The SPARQL of the plan, with the project's prefixes.
    /// Every class the plan asks about.
    pub fn classes(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let blocks = std::iter::once(&self.body)
            .chain(&self.absent)
            .chain(self.having.iter().map(|h| &h.counted));
        for (_, c) in blocks.flat_map(|b| &b.types) {
            if !out.contains(c) {
                out.push(c.clone());
            }
        }
        out
    }

    /// The query listing the classes under `class` (subclasses,
    /// equivalents, aliases, replacements): run first, its result goes into
    /// [`Plan::sparql_with`].
    pub fn class_query(class: &str) -> String {
        format!(
            "{}SELECT DISTINCT ?k WHERE {{ ?k {SUBCLASS} <{class}> }}",
            prefixes()
        )
    }

    /// The SPARQL of the plan, each class's subclasses found by a subquery.
    pub fn sparql(&self) -> String {
        self.render_sparql(None)
    }

    /// The SPARQL of the plan with each class's subclasses listed (from
    /// [`Plan::class_query`]).
    pub fn sparql_with(&self, classes: &HashMap<String, Vec<String>>) -> String {
        self.render_sparql(Some(classes))
    }

    fn render_sparql(&self, classes: Option<&HashMap<String, Vec<String>>>) -> String {
        let x = format!("?{}", self.target);
        let mut body = String::new();
        let mut cx = Ctx {
            k: 0,
            classes,
            point_kinds: &self.point_kinds,
        };
        self.body.render(&mut body, "  ", &mut cx);
        let target = Slot::var(&self.target);
        for a in &self.absent {
            // A block on the target is a MINUS: every row binds the target,
            // so it removes the rows FILTER NOT EXISTS would, and Oxigraph
            // evaluates it once where it evaluates the filter per row ("which
            // vavs on ahu-3 don't have a co2 sensor": 6 to 8 s as a filter).
            let on_target = a.links.iter().any(|l| l.from == target || l.to == target);
            body.push_str(if on_target {
                "  MINUS {\n"
            } else {
                "  FILTER NOT EXISTS {\n"
            });
            a.render_ordered(&mut body, "    ", true, &mut cx);
            body.push_str("  }\n");
        }
        if !self.excluded.is_empty() {
            let list: Vec<String> = self.excluded.iter().map(|n| format!("<{n}>")).collect();
            let _ = writeln!(body, "  FILTER({x} NOT IN ({}))", list.join(", "));
        }
        let head = prefixes();
        match (&self.shape, &self.having) {
            (_, Some(h)) => {
                let mut counted = String::new();
                h.counted.render_ordered(&mut counted, "  ", true, &mut cx);
                let op = if h.more { ">" } else { "<" };
                format!(
                    "{head}SELECT {x} (COUNT(DISTINCT ?{v}) AS ?n) WHERE {{\n{body}{counted}}}\nGROUP BY {x}\nHAVING (COUNT(DISTINCT ?{v}) {op} {n})\nORDER BY {x}",
                    v = h.var,
                    n = h.n
                )
            }
            (Shape::PerGroup(g), None) => format!(
                "{head}SELECT ?{g} (COUNT(DISTINCT {x}) AS ?n) WHERE {{\n{body}}}\nGROUP BY ?{g}\nORDER BY ?{g}"
            ),
            (Shape::Yes, None) => {
                let vars = self.vars();
                if vars.is_empty() {
                    format!("{head}ASK {{\n{body}}}")
                } else {
                    let vs: Vec<String> = vars.iter().map(|v| format!("?{v}")).collect();
                    format!(
                        "{head}SELECT DISTINCT {} WHERE {{\n{body}}}\nORDER BY {}\nLIMIT {WITNESSES}",
                        vs.join(" "),
                        vs.join(" ")
                    )
                }
            }
            (Shape::PerKind, None) => {
                let class = self
                    .body
                    .types
                    .iter()
                    .find(|(s, _)| *s == Slot::var(&self.target))
                    .map(|(_, c)| c.as_str())
                    .unwrap_or_default();
                let kinds = format!("  {}\n", kinds_binding("?kind", class, classes));
                format!(
                    "{head}SELECT DISTINCT {x} ?kind WHERE {{\n{body}{kinds}  {x} a ?kind .\n}}\nORDER BY {x} ?kind"
                )
            }
            (Shape::Unit, None) => format!(
                "{head}SELECT DISTINCT {x} ?unit WHERE {{\n{body}  {{ {x} brick:hasUnit ?unit }} UNION {{ {x} dq:unitSymbol ?unit }}\n}}\nORDER BY {x} ?unit"
            ),
            (Shape::List | Shape::Count, None) => {
                format!("{head}SELECT DISTINCT {x} WHERE {{\n{body}}}\nORDER BY {x}")
            }
        }
    }
}

fn prefixes() -> String {
    let mut out = String::new();
    for (p, ns) in [
        ("rdfs", vocab::RDFS),
        ("owl", vocab::OWL),
        ("brick", vocab::BRICK),
        ("dq", vocab::DQ),
    ] {
        let _ = writeln!(out, "PREFIX {p}: <{ns}>");
    }
    out
}
