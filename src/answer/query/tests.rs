//! The composition rules on two small buildings (`tests/fixtures/answer/`):
//! `plant.ttl` (labelled) and `unlabelled.ttl` (named only by IRIs), over
//! Brick 1.4 (the asset `scripts/setup.sh` fetches) and the project's
//! ontology. Each question goes through the real grounder and cues; the
//! plan it reads becomes SPARQL, which runs on the same store, and the
//! result is checked against what the fixture holds.

use super::plan::Shape;
use super::read::{self, Reading};
use crate::answer::question::Question;
use crate::answer::view::GraphView;
use crate::ground::Grounder;
use crate::import::{self, SourceFile};
use crate::ontology::Ontology;
use crate::store::{EmbeddedStore, GraphKind, GraphStore, QueryOutput, SolutionExt, SparqlQuery};
use crate::text::Cues;
use crate::topology::Topology;
use std::collections::BTreeSet;
use std::path::PathBuf;

struct Building {
    store: EmbeddedStore,
    topo: Topology,
    onto: Ontology,
    grounder: Grounder,
    cues: Cues,
}

/// The building, or `None` (a SKIPPED line; a failure in CI) without Brick.
async fn building(model: &str) -> Option<Building> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    building_from(root.join("tests/fixtures/answer").join(model)).await
}

/// A real model of `../shared/data` (`rel` under it), or `None` (a SKIPPED
/// line; a failure in CI) without it or Brick.
async fn shared_building(rel: &str) -> Option<Building> {
    building_from(crate::test_data::shared_data(rel)?).await
}

/// The demo campus model (`graph/northfield_campus.ttl`).
async fn campus() -> Option<Building> {
    building_from(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("graph/northfield_campus.ttl"))
        .await
}

async fn building_from(model: PathBuf) -> Option<Building> {
    let brick = crate::assets::Assets::new(crate::config::default_assets_dir()).brick_ttl();
    let brick = crate::test_data::require(
        &brick,
        "Brick 1.4 (bash scripts/setup.sh)",
        crate::test_data::in_ci(),
    )?;
    let store = EmbeddedStore::in_memory().unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![SourceFile {
        rel_path: "assets/Brick.ttl".into(),
        path: brick,
        kind: GraphKind::Ontology,
    }];
    for f in crate::import::files_under(&root.join("ontology")).unwrap() {
        files.push(SourceFile::new(f, &root, GraphKind::Ontology));
    }
    for file in &files {
        import::import_file(&store, None, file).await.unwrap();
    }
    let onto = Ontology::load(&store).await.unwrap();
    let file = SourceFile::new(model, &root, GraphKind::Model);
    import::import_file(&store, Some(&onto), &file)
        .await
        .unwrap();
    Some(Building {
        topo: Topology::build(&store).await.unwrap(),
        grounder: Grounder::load(&store, &onto).await.unwrap(),
        cues: Cues::load(&store).await.unwrap(),
        store,
        onto,
    })
}

/// Asserts that each question is answered with the nodes `want` (local
/// names).
async fn all_answered(b: &Building, texts: &[&str], want: &[&str]) {
    for text in texts {
        let (_, got) = ask(b, text).await;
        assert_eq!(got, set(want), "{text}");
    }
}

/// Asserts that each question is read as one the building data cannot
/// answer.
fn all_unsupported(b: &Building, texts: &[&str]) {
    for text in texts {
        assert!(
            matches!(reading(b, text), Reading::Unsupported { .. }),
            "{text}"
        );
    }
}

/// What a question's plan returns: its shape and the local names of the
/// target's nodes (or "yes"/"no", or "group=n").
async fn ask(b: &Building, text: &str) -> (Shape, BTreeSet<String>) {
    let plan = match reading(b, text) {
        Reading::Plan(plan) => plan,
        other => panic!("{text:?} was not composed: {other:?}"),
    };
    let sparql = plan.sparql();
    let out = b.store.query(SparqlQuery::new(sparql.clone())).await;
    let out = out.unwrap_or_else(|e| panic!("{text:?}: {e}\n{sparql}"));
    let local = |s: &str| crate::vocab::local_name(s).to_owned();
    let got = match (out, &plan.shape) {
        (QueryOutput::Boolean(yes), _) => BTreeSet::from([if yes { "yes" } else { "no" }.into()]),
        (out, Shape::Yes) => BTreeSet::from([if out.into_rows().is_empty() {
            "no"
        } else {
            "yes"
        }
        .into()]),
        (out, Shape::PerGroup(g)) => out
            .into_rows()
            .iter()
            .map(|r| format!("{}={}", local(&r.string(g)), r.string("n")))
            .collect(),
        (out, _) => out
            .into_rows()
            .iter()
            .map(|r| local(&r.string(&plan.target)))
            .collect(),
    };
    (plan.shape.clone(), got)
}

/// A question read against the building.
fn question(b: &Building, text: &str) -> Question {
    Question::read(text, &b.grounder, &b.cues, GraphView::new(&b.topo, &b.onto))
}

/// What the reader makes of a question.
fn reading(b: &Building, text: &str) -> Reading {
    read::read(
        &question(b, text),
        &b.cues,
        GraphView::new(&b.topo, &b.onto),
    )
}

/// The engine's outcome for a question, with its trace.
async fn engine(b: &Building, text: &str) -> (super::Outcome, crate::answer::Trace) {
    let view = GraphView::new(&b.topo, &b.onto);
    let q = Question::read(text, &b.grounder, &b.cues, view);
    let mut trace = crate::answer::Trace::default();
    let outcome = super::answer(&b.store, view, &q, &b.cues, &mut trace)
        .await
        .unwrap();
    (outcome, trace)
}

/// What the engine answers (the plan, and what follows an empty result):
/// its answer kind and the local names of the answer's nodes.
async fn ask_answered(b: &Building, text: &str) -> (String, BTreeSet<String>) {
    let (outcome, trace) = engine(b, text).await;
    assert!(
        matches!(outcome, super::Outcome::Drafted { .. }),
        "{text:?} was not answered"
    );
    let answer = trace
        .graph
        .answer
        .unwrap_or_else(|| panic!("{text:?}: no graph answer"));
    let names = answer
        .items
        .iter()
        .map(|s| crate::vocab::local_name(s).to_owned())
        .collect();
    (answer.kind, names)
}

/// A word typed for a function word ("b4" for before) names nothing,
/// though beside the campus's boilers B-1 and B-2 it has the shape of a
/// name; written as a name ("B4", "b-4"), it names one the graph lacks.
#[tokio::test]
async fn a_word_typed_for_a_function_word_names_nothing() {
    let Some(b) = campus().await else {
        return;
    };
    let unresolved = |text: &str| question(&b, text).grounding.unresolved;
    assert!(unresolved("how long is the boiler warm-up b4 occupancy").is_empty());
    assert_eq!(unresolved("what is the flame signal of B4"), ["B-4"]);
    assert_eq!(unresolved("what is the flame signal of b-4"), ["B-4"]);
}

/// What the engine answers: its text, the graph result's items and the
/// local names of the nodes its evidence cites.
async fn said(b: &Building, text: &str) -> (String, Vec<String>, BTreeSet<String>) {
    match engine(b, text).await {
        (
            super::Outcome::Drafted {
                draft: crate::answer::compose::Draft::Answer(a, _),
                ..
            },
            trace,
        ) => {
            let items = trace.graph.answer.map(|g| g.items).unwrap_or_default();
            let cited: BTreeSet<String> = a
                .evidence
                .iter()
                .flat_map(|e| e.graph_ids.iter())
                .map(|i| crate::vocab::local_name(i).to_owned())
                .collect();
            (a.answer, items, cited)
        }
        _ => panic!("{text:?} was not answered"),
    }
}

/// The text of what the engine answers.
async fn answer_text(b: &Building, text: &str) -> String {
    said(b, text).await.0
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// A hop of supply guessed because equipment of the kind stands next to
/// the named node, found empty, is asked along the chain: CT-1 stands next
/// to CH-1 (CH-1 feeds it) and feeds CH-1 through CWP-1. Said "directly",
/// it is not.
#[tokio::test]
async fn a_guessed_hop_found_empty_is_asked_along_the_chain() {
    let Some(b) = building("coils.ttl").await else {
        return;
    };
    let (_, got) = ask_answered(&b, "which cooling tower serves ch-1").await;
    assert_eq!(got, set(&["CT-1"]));
    let (_, got) = ask_answered(&b, "which cooling tower does ch-1 feed").await;
    assert_eq!(got, set(&["CT-1"]));
    let (_, got) = ask_answered(&b, "which cooling tower feeds ch-1 directly").await;
    assert!(got.is_empty(), "{got:?}");
}

/// A room nothing feeds is served through the zones it is part of (Room 103
/// is part of Zone 2, which VAV-2 feeds, and of Floor 1, which nothing
/// feeds; Room 104 of both zones): "what serves room 103" is not "none".
/// Said "directly", it is.
#[tokio::test]
async fn a_space_nothing_feeds_is_served_through_its_zone() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    for q in [
        "what serves room 103",
        "what feeds room 103?",
        "what supplies air to room 103",
        "where does room 103 get its air from",
    ] {
        let (kind, got) = ask_answered(&b, q).await;
        assert_eq!(got, set(&["VAV-2"]), "{q} ({kind})");
    }
    // A room in two zones: what feeds either.
    let (_, got) = ask_answered(&b, "what serves room 104").await;
    assert_eq!(got, set(&["VAV-1", "VAV-2"]));
    let (_, got) = ask_answered(&b, "what directly feeds room 103").await;
    assert!(got.is_empty(), "{got:?}");
}

/// Of a class: "upstream of" the VAV boxes is what feeds them, "downstream
/// of" what they feed; "fed by a chiller" names the supplier (no count per
/// chiller); "what do the vav boxes feed" is what they feed.
#[tokio::test]
async fn the_side_of_a_class_comes_from_the_wording() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    for q in [
        "what is upstream of the vav boxes",
        "what's upstream of vav boxes?",
        "what are the feeders of the vav boxes",
    ] {
        assert_eq!(
            ask(&b, q).await,
            (Shape::List, set(&["AHU-1", "AHU-1_SF"])),
            "{q}"
        );
    }
    for q in [
        "what is downstream of the vav boxes",
        "what do the vav boxes feed",
        "what does a vav box serve",
    ] {
        assert_eq!(
            ask(&b, q).await,
            (Shape::List, set(&["Zone_1", "Zone_2"])),
            "{q}"
        );
    }
    assert_eq!(
        ask(&b, "which equipment is fed by a chiller").await,
        (Shape::List, set(&["AHU-1"]))
    );
    // Which ranks first is not every one of the kind: no list is composed.
    for text in [
        "which ahu feeds the most vav boxes",
        "which vav box has the fewest points",
        "which ahus feed at least 2 vav boxes",
    ] {
        assert!(
            matches!(reading(&b, text), Reading::Unread { .. }),
            "{text}"
        );
    }
}

/// A "no" between two named nodes says when the relation holds the other
/// way: "is vav-1 on ahu-1"'s reverse ("does vav-1 feed ahu-1") is no, and
/// AHU-1 feeds VAV-1.
#[tokio::test]
async fn a_no_says_when_the_supply_runs_the_other_way() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    let said = answer_text(&b, "does vav-1 feed ahu-1?").await;
    assert!(said.starts_with("No:"), "{said}");
    assert!(said.contains("the other way: AHU-1 feeds VAV-1"), "{said}");
    // No relation either way: no "other way".
    // Asked along the chain, the other way is a chain too.
    let said = answer_text(&b, "does vav-1 ultimately feed ch-1?").await;
    assert!(
        said.contains("the other way: CH-1 feeds VAV-1, through other equipment"),
        "{said}"
    );
    let said = answer_text(&b, "does vav-1 feed vav-2?").await;
    assert!(
        said.starts_with("No:") && !said.contains("other way"),
        "{said}"
    );
}

/// "Which fan is on AHU-1" asks for the fan that is part of it, not
/// equipment the AHU feeds; "which boxes are on AHU-1" still asks what it
/// feeds.
#[tokio::test]
async fn on_a_node_that_has_parts_of_the_kind() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    assert_eq!(ask(&b, "which fan is on AHU-1").await.1, set(&["AHU-1_SF"]));
    // A name of several words, then "got": asked yes or no.
    assert_eq!(
        ask(&b, "vav-1 got a zone air temperature sensor?").await.1,
        set(&["yes"])
    );
    assert_eq!(
        ask(&b, "which vav boxes are on AHU-1").await.1,
        set(&["VAV-1", "VAV-2"])
    );
    // Nothing of the kind downstream, some upstream: "on" the node is
    // upstream of it.
    assert_eq!(
        ask(&b, "which chillers are on VAV-1").await.1,
        set(&["CH-1"])
    );
    // A kind asked "on" a named point is the equipment that has it, not
    // what supplies the point (nothing does).
    for (q, owner) in [
        ("which vav is VAV-1 ZNT on", "VAV-1"),
        ("which air handler is AHU-1 SAT on?", "AHU-1"),
        ("which equipment is AHU-1 SAT on?", "AHU-1"),
        ("whose point is VAV-1 ZNT", "VAV-1"),
        ("VAV-1 ZNT belongs to what vav?", "VAV-1"),
        ("what does AHU-1 SAT belong to", "AHU-1"),
    ] {
        assert_eq!(ask(&b, q).await.1, set(&[owner]), "{q}");
    }
}

/// Equipment "in" a named place: where it is located, through the rooms
/// and floors the place holds; a "no" says where it is; a node the model
/// places nowhere is not answered no.
#[tokio::test]
async fn equipment_in_a_named_place() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    assert_eq!(ask(&b, "is VAV-1 in Room 102?").await.1, set(&["yes"]));
    assert_eq!(ask(&b, "is AHU-1 in building a").await.1, set(&["yes"]));
    assert_eq!(ask(&b, "is vav-1 on floor 1").await.1, set(&["yes"]));
    let said = answer_text(&b, "is VAV-1 in Room 101?").await;
    assert!(said.starts_with("No:"), "{said}");
    assert!(said.contains("Where VAV-1 is: Room 102"), "{said}");
    assert!(
        matches!(
            reading(&b, "is VAV-2 in Room 103"),
            Reading::Unsupported { .. }
        ),
        "VAV-2 has no location"
    );
    // A place and a kind of equipment: what is located in it or in its
    // rooms and floors, not its parts.
    assert_eq!(
        ask(&b, "are there any vav boxes in building a").await.1,
        set(&["yes"])
    );
    assert_eq!(ask(&b, "does room 102 have a vav").await.1, set(&["yes"]));
    assert_eq!(ask(&b, "does room 104 have a vav").await.1, set(&["no"]));
    assert_eq!(
        ask(&b, "does building a have a floor").await.1,
        set(&["yes"])
    );
}

#[tokio::test]
async fn direction_comes_from_the_wording() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    // Served by AHU-1: downstream, through any chain, only zones.
    let (_, got) = ask(&b, "Which zones are served by AHU-1?").await;
    assert_eq!(got, set(&["Zone_1", "Zone_2"]));
    let (_, got) = ask(&b, "which zones does AHU-1 serve").await;
    assert_eq!(got, set(&["Zone_1", "Zone_2"]));
    // What feeds a box: upstream, one hop.
    let (_, got) = ask(&b, "what feeds VAV-1").await;
    assert_eq!(got, set(&["AHU-1", "AHU-1_SF"]));
    let (_, got) = ask(&b, "VAV-1 is fed by what?").await;
    assert_eq!(got, set(&["AHU-1", "AHU-1_SF"]));
    // What a chiller feeds: downstream.
    let (_, got) = ask(&b, "what does CH-1 feed").await;
    assert_eq!(got, set(&["AHU-1"]));
    // Yes/no between two named nodes, both ways of saying it.
    assert_eq!(ask(&b, "does AHU-1 feed VAV-2?").await.1, set(&["yes"]));
    assert_eq!(ask(&b, "is VAV-2 fed by AHU-1?").await.1, set(&["yes"]));
    assert_eq!(ask(&b, "does VAV-2 feed AHU-1?").await.1, set(&["no"]));
    // "upstream of" / "downstream of" between two names say where the
    // first stands: "VAV-2 upstream of CH-1" is VAV-2 feeding CH-1 (no),
    // "VAV-2 downstream of CH-1" CH-1 feeding VAV-2 (yes).
    for (text, yes) in [
        ("is CH-1 upstream of VAV-2?", true),
        ("is VAV-2 upstream of CH-1?", false),
        ("is VAV-2 downstream of CH-1?", true),
        ("is CH-1 downstream of VAV-2?", false),
        ("is AHU-1 upstream of VAV-2", true),
    ] {
        let want = if yes { "yes" } else { "no" };
        assert_eq!(ask(&b, text).await.1, set(&[want]), "{text}");
    }
}

#[tokio::test]
async fn unlabelled_nodes_are_named_by_their_local_names() {
    let Some(b) = building("unlabelled.ttl").await else {
        return;
    };
    let (_, got) = ask(&b, "what feeds vav 2").await;
    assert_eq!(got, set(&["sf_1"]));
    // Rooms served: through the zone that contains them.
    let (_, got) = ask(&b, "which rooms does vav_1 serve").await;
    assert_eq!(got, set(&["room_101", "room_102"]));
    // And back up: the air handler of a room, through its fan.
    let (_, got) = ask(&b, "which air handling unit serves room 103").await;
    assert_eq!(got, set(&["ahu_1"]));
    // No relation word: a space is supplied through the zone holding it.
    let (_, got) = ask(&b, "room_103 - which air handling unit").await;
    assert_eq!(got, set(&["ahu_1"]));
}

#[tokio::test]
async fn absence_and_conjunction() {
    let Some(b) = building("unlabelled.ttl").await else {
        return;
    };
    let (_, got) = ask(&b, "which vavs have no CO2 sensor").await;
    assert_eq!(got, set(&["vav_2"]));
    let (_, got) = ask(&b, "vav boxes without a co2 sensor?").await;
    assert_eq!(got, set(&["vav_2"]));
    let (_, got) = ask(&b, "which vavs have a CO2 sensor").await;
    assert_eq!(got, set(&["vav_1"]));
    let Some(p) = building("plant.ttl").await else {
        return;
    };
    let (shape, got) = ask(
        &p,
        "does AHU-1 have both a supply fan and a supply air temperature sensor?",
    )
    .await;
    assert_eq!((shape, got), (Shape::Yes, set(&["yes"])));
    let (_, got) = ask(
        &p,
        "does AHU-1 have both a supply fan and a zone air temperature sensor?",
    )
    .await;
    assert_eq!(got, set(&["no"]));
}

#[tokio::test]
async fn counts_and_counts_per_group() {
    let Some(b) = building("unlabelled.ttl").await else {
        return;
    };
    let (shape, got) = ask(&b, "how many points does vav_1 have").await;
    assert_eq!(shape, Shape::Count);
    assert_eq!(got, set(&["vav_1_co2", "vav_1_znt"]));
    let (shape, got) = ask(&b, "how many rooms per zone").await;
    assert!(matches!(shape, Shape::PerGroup(_)));
    assert_eq!(got, set(&["zone_1=2", "zone_2=1"]));
    let (_, got) = ask(&b, "which vavs have more than 1 point").await;
    assert_eq!(got, set(&["vav_1"]));
}

#[tokio::test]
async fn classes_reach_their_equivalents_and_subclasses() {
    // The plant types its AHU brick:AHU; Air_Handling_Unit is equivalent.
    let Some(p) = building("plant.ttl").await else {
        return;
    };
    let (_, got) = ask(&p, "list the air handling units").await;
    assert_eq!(got, set(&["AHU-1"]));
    // The unlabelled building types it Air_Handling_Unit; "AHUs" is AHU.
    let Some(b) = building("unlabelled.ttl").await else {
        return;
    };
    let (_, got) = ask(&b, "what ahus are there").await;
    assert_eq!(got, set(&["ahu_1"]));
    // A class reaches its subclasses: sensors are every sensor kind.
    let (_, got) = ask(&b, "what sensors does vav_1 have").await;
    assert_eq!(got, set(&["vav_1_co2", "vav_1_znt"]));
}

#[tokio::test]
async fn what_the_data_cannot_say_or_the_query_cannot_hold_is_not_composed() {
    let Some(b) = building("unlabelled.ttl").await else {
        return;
    };
    let view = GraphView::new(&b.topo, &b.onto);
    let read = |text: &str| {
        let q = Question::read(text, &b.grounder, &b.cues, view);
        read::read(&q, &b.cues, view)
    };
    // No hasLocation edge at all: the engine abstains and says why.
    assert!(matches!(
        read("which room is vav 1 located in"),
        Reading::Unsupported { .. }
    ));
    // Words a query does not account for: left to the documents, and
    // named in the reading.
    assert_eq!(
        read("what is the firmware of vav 1"),
        Reading::Unread {
            words: vec!["firmware".into()],
            said_of: vec!["firmware".into()]
        }
    );
    assert_eq!(read("what does vav mean"), Reading::NotGraph);
    // "means" with the clause it implies asks no definition; a word that
    // asks for a product ("controller") in a question that asks more
    // leaves its words to the documents: the building's points, location
    // and products (the fact builders) answered both on real questions.
    assert!(matches!(
        read("how big a pressure drop across the vav 1 filter means it's dirty"),
        Reading::Unread { .. }
    ));
    assert!(matches!(
        read(
            "in november 2025 the controller of vav 1 got new software - what had been going wrong"
        ),
        Reading::Unread { .. }
    ));
    assert_eq!(read("which controller does vav 1 have"), Reading::NotGraph);
    // A class and a number that name no node: an abstention when the
    // question is all graph words, the documents' question when it asks
    // more ("demand limit level 3" is a sequence's level, not a floor).
    assert!(matches!(
        read("which vavs are on floor 4"),
        Reading::Unsupported { .. }
    ));
    assert!(matches!(
        read("demand limit level 3 - how much is the cooling setpoint raised"),
        Reading::Unread { words, .. } if words.contains(&"demand".to_owned())
    ));
    // An unread word said of a named node.
    assert!(matches!(
        read("which fan feeds the gizmo of vav_1"),
        Reading::Unread { said_of, .. } if said_of == ["gizmo"]
    ));
    // A name the building does not have: left to the abstention rules.
    assert_eq!(read("what feeds vav 9"), Reading::NotGraph);
}

#[tokio::test]
async fn words_narrow_name_and_scope() {
    let Some(b) = building("words.ttl").await else {
        return;
    };
    // A word of a subclass's label narrows the kind: "with reheat".
    let (_, got) = ask(&b, "which vavs on ahu_1 have reheat").await;
    assert_eq!(got, set(&["vav_2"]));
    let (_, got) = ask(&b, "reheat vav boxes on ahu_1?").await;
    assert_eq!(got, set(&["vav_2"]));
    // Words before a class that are in one node's name name that node.
    let (_, got) = ask(&b, "what feeds the core zone").await;
    assert_eq!(got, set(&["vav_1"]));
    let (_, got) = ask(&b, "which vav feeds perimeter zone 3").await;
    assert_eq!(got, set(&["vav_2"]));
    // The only site, or words for the whole building, narrow nothing.
    let (_, got) = ask(&b, "what vavs does site_1 have").await;
    assert_eq!(got, set(&["vav_1", "vav_2"]));
    let (_, got) = ask(&b, "which vavs are in this building").await;
    assert_eq!(got, set(&["vav_1", "vav_2"]));
}

#[tokio::test]
async fn possessives_paths_to_a_kind_and_contents_of_a_place() {
    let Some(p) = building("plant.ttl").await else {
        return;
    };
    // "AHU-1's supply fan" is the fan.
    let (_, got) = ask(&p, "which vavs does AHU-1's supply fan feed").await;
    assert_eq!(got, set(&["VAV-1", "VAV-2"]));
    // "trace … back to the chillers": the chillers upstream.
    let (_, got) = ask(&p, "trace VAV-1 back to the chillers").await;
    assert_eq!(got, set(&["CH-1"]));
    // A word inside a point's mention its label lacks narrows it to the
    // one subclass this building has ("discharge": air, not water).
    let (_, got) = ask(&p, "what is the discharge temp sensor of AHU-1").await;
    assert_eq!(got, set(&["AHU-1_SAT"]));
    // What is in a place, not where the place is.
    let (_, got) = ask(&p, "what equipment is located in room 101").await;
    assert_eq!(got, set(&["AHU-1"]));
}

#[tokio::test]
async fn everyday_wording_of_supply_and_place() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    // A medium after a verb of receiving, "from" after the node: upstream.
    let (_, got) = ask(&b, "where does vav-1 get its air from?").await;
    assert_eq!(got, set(&["AHU-1", "AHU-1_SF"]));
    // "supply" is a verb of supply; the medium after it names no kind.
    assert_eq!(
        ask(&b, "does ahu-1 supply air to vav-2?").await.1,
        set(&["yes"])
    );
    assert_eq!(
        ask(&b, "does ahu-1 supply air to ch-1?").await.1,
        set(&["no"])
    );
    // "hang off" like "on": the node after it supplies.
    let (_, got) = ask(&b, "what vavs hang off ahu-1").await;
    assert_eq!(got, set(&["VAV-1", "VAV-2"]));
    // Everyday verbs of supply.
    for q in [
        "what vavs does ahu-1 handle",
        "which vavs does ahu-1 condition",
    ] {
        assert_eq!(ask(&b, q).await.1, set(&["VAV-1", "VAV-2"]), "{q}");
    }
    // "on" after the node, its kind asked before it: the node is supplied.
    for q in [
        "which ahu is vav-1 on",
        "vav-1 hangs off which ahu",
        "vav-1 on which air handler?",
    ] {
        assert_eq!(ask(&b, q).await.1, set(&["AHU-1"]), "{q}");
    }
    // A verb of receiving before the medium, no "from": the node before
    // it is supplied ("where" asks the supplier, not a location).
    let (_, got) = ask(&b, "where does vav-1 get its air").await;
    assert_eq!(got, set(&["AHU-1", "AHU-1_SF"]));
    // "where does … feed" asks where the supply goes, not where it is.
    let (_, got) = ask(&b, "where does ch-1 feed").await;
    assert_eq!(got, set(&["AHU-1"]));
    // "what room and floor": every place the node is in, not a room on a
    // floor.
    let (_, got) = ask(&b, "what room and floor is vav-1 in").await;
    assert!(
        got.contains("Room_102") && got.contains("Floor_1"),
        "{got:?}"
    );
    // "where's the air handler": the one there is.
    let (_, got) = ask(&b, "where's the air handling unit").await;
    assert_eq!(got, set(&["Room_101"]));
    let (_, got) = ask(&b, "what does the chiller feed").await;
    assert_eq!(got, set(&["AHU-1"]));
    // An air path is not air supplied: "air" stays unread.
    let view = GraphView::new(&b.topo, &b.onto);
    let q = Question::read("air path from ch-1 to vav-1", &b.grounder, &b.cues, view);
    assert!(!matches!(read::read(&q, &b.cues, view), Reading::Plan(_)));
}

#[tokio::test]
async fn a_class_span_that_overlaps_the_next_word_reads_without_panicking() {
    let Some(b) = building("unlabelled.ttl").await else {
        return;
    };
    let view = GraphView::new(&b.topo, &b.onto);
    // A held-out question found it: the class read from "air handlers'"
    // reached past the start of the next word, and the gap between them
    // was sliced backwards.
    let text = "how often do the motors on the air handlers' return fans need their \
                bearings lubricated, and how much grease goes in each time?";
    let q = Question::read(text, &b.grounder, &b.cues, view);
    let reading = read::read(&q, &b.cues, view);
    assert!(!matches!(reading, Reading::Plan(_)), "{reading:?}");
}

/// What document evidence a question is about beyond its own words: the
/// classes above the equipment it names (a sequence for terminal units is
/// about a VAV box with reheat; no domain class such as HVAC equipment)
/// and the box a named point belongs to.
#[tokio::test]
async fn questions_read_broader_classes_and_point_owners() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    let view = GraphView::new(&b.topo, &b.onto);
    let q = Question::read(
        "low airflow alarm on a vav box with reheat?",
        &b.grounder,
        &b.cues,
        view,
    );
    assert!(
        q.broader.contains(&"Terminal_Unit".to_owned()),
        "{:?}",
        q.broader
    );
    assert!(
        !q.broader
            .iter()
            .any(|c| c == "HVAC_Equipment" || c == "Equipment")
    );
    let q = Question::read(
        "what is the setpoint of VAV-1 ZNT?",
        &b.grounder,
        &b.cues,
        view,
    );
    assert_eq!(q.owners, ["VAV-1"]);
}

#[tokio::test]
async fn one_hop_of_supply_enters_the_named_node_s_parts() {
    let Some(b) = building("coils.ttl").await else {
        return;
    };
    // The pumps feed the coils, parts of AHU-1; the coil feeding the fan
    // inside it is not what feeds AHU-1.
    all_answered(
        &b,
        &[
            "what feeds AHU-1",
            "what directly feeds ahu 1",
            "AHU-1 is fed by what?",
        ],
        &["CHWP-1", "HWP-1"],
    )
    .await;
    let (shape, got) = ask(&b, "how many things feed AHU-1").await;
    assert_eq!((shape, got), (Shape::Count, set(&["CHWP-1", "HWP-1"])));
    // Downstream from the node's parts, not to its own parts.
    let (_, got) = ask(&b, "what does AHU-1 feed").await;
    assert_eq!(got, set(&["VAV-1"]));
    let (_, got) = ask(&b, "does CHWP-1 feed AHU-1?").await;
    assert_eq!(got, set(&["yes"]));
    let (_, got) = ask(&b, "does HWP-1 feed VAV-1?").await;
    assert_eq!(got, set(&["yes"]));
    let (_, got) = ask(&b, "does CHWP-1 feed VAV-1?").await;
    assert_eq!(got, set(&["no"]));
    // A medium asked for keeps the parts that carry another out.
    let (_, got) = ask(&b, "where does AHU-1 get its chilled water from").await;
    assert_eq!(got, set(&["CHWP-1"]));
    let (_, got) = ask(&b, "what supplies hot water to ahu-1").await;
    assert_eq!(got, set(&["HWP-1"]));
    let (_, got) = ask(&b, "where does CH-1 get its condenser water from").await;
    assert_eq!(got, set(&["CWP-1"]));
    let (_, got) = ask(&b, "what feeds CH-1").await;
    assert_eq!(got, set(&["CHWP-1", "CWP-1"]));
    all_answered(
        &b,
        &[
            "where does VAV-1 get its air from",
            "what feeds VAV-1 its air",
        ],
        &["AHU-1", "AHU-1_SF"],
    )
    .await;
    // The box's hot water enters its reheat coil: the fan that supplies
    // its air is no supplier of water.
    all_answered(
        &b,
        &[
            "where does VAV-1 get its hot water from",
            "what supplies hot water to vav-1",
        ],
        &["HWP-1"],
    )
    .await;
    // No part of the box takes chilled water: its air does, at the air
    // handler it comes from, whose cooling coil the pump feeds.
    all_answered(
        &b,
        &[
            "where does VAV-1 get its chilled water from",
            "what supplies chilled water to vav-1",
        ],
        &["CHWP-1"],
    )
    .await;
    // What makes a medium is upstream, past what only carries it: the
    // boiler behind the hot-water pump, whichever way the node is said;
    // "make" before a medium is no product's make.
    all_answered(
        &b,
        &[
            "what makes the hot water for vav-1",
            "vav-1 - what makes its hot water",
            "what equipment produces the hot water that AHU-1 gets",
        ],
        &["B-1"],
    )
    .await;
    // Only a pump is upstream of the cooling coil: the data shows what
    // carries the chilled water, not what makes it.
    all_unsupported(
        &b,
        &[
            "what makes the chilled water for ahu-1",
            "what makes the chilled water for vav-1",
        ],
    );
    let (_, got) = ask(&b, "what feeds VAV-1").await;
    assert_eq!(got, set(&["AHU-1", "AHU-1_SF", "HWP-1"]));
    // A medium the named node does not carry: no list of suppliers
    // answers ("chilled water" into a hot-water coil).
    all_unsupported(
        &b,
        &[
            "what supplies chilled water to ahu-1 hc",
            "where does ahu-1 cc get its hot water from",
        ],
    );
    // The filter inside the air handler feeds its heating coil air: no
    // supplier of hot water, nor what makes it.
    let (_, got) = ask(&b, "where does ahu-1 hc get its hot water from").await;
    assert_eq!(got, set(&["HWP-1"]));
    let (_, got) = ask(&b, "what makes the hot water for ahu-1 hc").await;
    assert_eq!(got, set(&["B-1"]));
    // Asked whether a medium comes from a node: along the supply of that
    // medium, through the pumps between; a pump of another medium next to
    // the node is no yes (nor a "no" of one hop).
    all_answered(
        &b,
        &[
            "does the hot water for vav-1 come from b-1",
            "does the chilled water for ahu-1 come from chwp-1",
            "does vav-1 get its hot water from b-1",
            "does vav-1 get its air from ahu-1",
        ],
        &["yes"],
    )
    .await;
    all_unsupported(
        &b,
        &[
            "does the chilled water for vav-1 come from hwp-1",
            "does the hot water for ahu-1 come from chwp-1",
        ],
    );
    // The fan is fed by the cooling coil, whose kind names water, not
    // air: no "none" for what supplies it air.
    assert!(matches!(
        reading(&b, "what supplies air to ahu-1 sf"),
        Reading::Unsupported { .. }
    ));
    // An air handler carries air, its coil chilled water: asked for.
    let (_, got) = ask(&b, "where does ahu-2 get its chilled water from").await;
    assert_eq!(got, set(&["CHWP-1"]));
    // A system nothing outside feeds: the parts of it that supply.
    let (_, got) = ask_answered(&b, "which boilers feed the hot water system").await;
    assert_eq!(got, set(&["B-1"]));
    let (_, got) = ask_answered(&b, "what feeds HW-SYS").await;
    assert_eq!(got, set(&["B-1", "HWP-1"]));
}

#[tokio::test]
async fn names_joined_by_and_or_or_stand_on_one_side() {
    let Some(b) = building("coils.ttl").await else {
        return;
    };
    // "and": every pair must hold.
    let (_, got) = ask(&b, "does chwp-1 feed ahu-1 and ahu-2").await;
    assert_eq!(got, set(&["yes"]));
    all_answered(
        &b,
        &[
            "does hwp-1 feed ahu-1 and ahu-2",
            "does hwp-1 feed vav-1, ahu-1 and ahu-2",
        ],
        &["no"],
    )
    .await;
    let (_, got) = ask(&b, "are ahu-1 and vav-1 both fed by hwp-1").await;
    assert_eq!(got, set(&["yes"]));
    // "or": which of them.
    all_answered(
        &b,
        &[
            "is vav-1 fed by ahu-1 or ahu-2",
            "does ahu-1 or ahu-2 feed vav-1",
        ],
        &["AHU-1"],
    )
    .await;
    // Names on both sides, or all on one: not read as two of them.
    all_unsupported(
        &b,
        &[
            "does ahu-1 or ahu-2 feed vav-1 or ahu-1 hc",
            "are ahu-1 and ahu-2 fed",
        ],
    );
}

#[tokio::test]
async fn a_supply_word_inside_a_kind_s_name_is_no_relation() {
    let Some(b) = building("coils.ttl").await else {
        return;
    };
    // "supply" of "supply fan" asks for the fan, not what feeds it.
    let (_, got) = ask_answered(&b, "what is the supply fan of ahu-1").await;
    assert_eq!(got, set(&["AHU-1_SF"]));
    let (_, got) = ask_answered(&b, "which supply fan does AHU-1 have").await;
    assert_eq!(got, set(&["AHU-1_SF"]));
    // As a verb it is one.
    let (_, got) = ask(&b, "what does AHU-1 supply").await;
    assert_eq!(got, set(&["VAV-1"]));
    // "pump to" reaches past the kind "pump": a relation.
    let (_, got) = ask(&b, "where does chwp-1 pump to").await;
    assert_eq!(got, set(&["AHU-1_CC", "AHU-2_CC", "CH-1"]));
}

#[tokio::test]
async fn what_is_in_a_named_place_is_what_is_located_in_it() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    // Equipment of a kind located in a room of the floor is on the floor
    // (not "0 parts of the floor", not a feeds relation "on" a floor).
    for q in [
        "how many vav boxes are in floor 1",
        "how many vavs on floor 1",
    ] {
        assert_eq!(ask(&b, q).await, (Shape::Count, set(&["VAV-1"])), "{q}");
    }
    let (_, got) = ask(&b, "which ahus are on floor 1").await;
    assert_eq!(got, set(&["AHU-1"]));
    let (_, got) = ask(&b, "what is in room 102").await;
    assert_eq!(got, set(&["VAV-1"]));
    // A floor holds what is in its rooms.
    let (_, got) = ask(&b, "what's in floor 1").await;
    assert_eq!(got, set(&["AHU-1", "VAV-1"]));
    let (shape, got) = ask(&b, "how many things are in floor 1").await;
    assert_eq!((shape, got), (Shape::Count, set(&["AHU-1", "VAV-1"])));
}

#[tokio::test]
async fn what_kind_a_named_node_is_is_the_node_with_its_classes() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    let view = GraphView::new(&b.topo, &b.onto);
    for text in [
        "what kind of sensor is VAV-1 ZNT",
        "what class is the ahu-1 sat point",
        "what is the brick class of AHU-1 SAT",
        "which type of equipment is VAV-2",
    ] {
        let q = Question::read(text, &b.grounder, &b.cues, view);
        let Reading::Plan(plan) = read::read(&q, &b.cues, view) else {
            panic!("{text:?} was not composed");
        };
        assert!(plan.typed, "{text:?}: {}", plan.understood);
    }
    let (_, got) = ask(&b, "what kind of sensor is VAV-1 ZNT").await;
    assert_eq!(got, set(&["VAV-1_ZNT"]));
    // Kinds asked of a relation are no question for the node's kind.
    let q = Question::read(
        "what kind of boxes does AHU-1 feed",
        &b.grounder,
        &b.cues,
        view,
    );
    if let Reading::Plan(plan) = read::read(&q, &b.cues, view) {
        assert!(!plan.typed);
    }
}

#[tokio::test]
async fn a_kind_of_point_narrows_though_many_kinds_are_under_it() {
    let Some(b) = building("coils.ttl").await else {
        return;
    };
    let (_, got) = ask(&b, "what are the setpoints on ahu-1").await;
    assert_eq!(got, set(&["AHU-1_SAT-SP"]));
    let (_, got) = ask(&b, "which sensors does AHU-1 have").await;
    assert_eq!(got, set(&["AHU-1_SAT"]));
    let (_, got) = ask(&b, "list the points on ahu-1").await;
    assert_eq!(got, set(&["AHU-1_SAT", "AHU-1_SAT-SP", "AHU-1_SF-CMD"]));
}

#[tokio::test]
async fn a_point_function_after_a_named_point_asks_for_the_point_beside_it() {
    let Some(b) = building("coils.ttl").await else {
        return;
    };
    // "AHU-1 SAT" is the sensor; the setpoint said after it is the
    // setpoint of the same quantity on the same AHU, not "the setpoints
    // of the sensor" (none).
    for text in [
        "ahu-1 sat setpoint",
        "AHU-1 SAT setpoint?",
        "what is the setpoint for ahu-1 sat",
    ] {
        let (_, got) = ask(&b, text).await;
        assert_eq!(got, set(&["AHU-1_SAT-SP"]), "{text:?}");
    }
    // A function the equipment has no point of beside it: nothing composed.
    let view = GraphView::new(&b.topo, &b.onto);
    let q = Question::read("ahu-1 sat command", &b.grounder, &b.cues, view);
    assert!(!matches!(read::read(&q, &b.cues, view), Reading::Plan(_)));
}

#[tokio::test]
async fn a_yes_no_about_two_classes_asks_the_ontology() {
    use crate::answer::intent::ClassAsk;
    let Some(b) = building("coils.ttl").await else {
        return;
    };
    let asked = |text: &str| question(&b, text).reading.classes_asked;
    assert_eq!(
        asked("is a vav a kind of terminal unit"),
        Some(ClassAsk::KindOf)
    );
    // "box" is a word of the class the grounder read from "vav".
    assert_eq!(
        asked("is a terminal unit a sort of vav box?"),
        Some(ClassAsk::KindOf)
    );
    assert_eq!(
        asked("is an AHU the same as an air handling unit"),
        Some(ClassAsk::Same)
    );
    // A word beyond the two classes read ("with reheat" after "vav box"),
    // or a named node: not a question about two classes.
    assert_eq!(asked("is rvav the same as a vav box with reheat"), None);
    assert_eq!(asked("is ahu-1 a kind of terminal unit"), None);
    // The ontology named as the question's scope asks nothing more, before
    // the yes/no verb too.
    for text in [
        "Is a cooling tower a kind of heat exchanger in Brick?",
        "does brick treat a cooling tower as a type of heat exchanger",
        "is a vav a kind of terminal unit according to the ontology",
    ] {
        assert_eq!(asked(text), Some(ClassAsk::KindOf), "{text}");
    }
    assert_eq!(
        asked("in brick is an exhaust fan the same class as a return fan"),
        Some(ClassAsk::Same)
    );
    // A root class's one word, which the grounder reads as a Haystack
    // tag, is read by its label after the phrase that relates the two.
    for (text, class) in [
        (
            "Is a damper position command a kind of setpoint?",
            "Setpoint",
        ),
        (
            "does a damper position command count as a type of setpoint in brick?",
            "Setpoint",
        ),
        (
            "is a zone air temperature sensor a kind of sensor",
            "Sensor",
        ),
    ] {
        let q = question(&b, text);
        assert_eq!(q.reading.classes_asked, Some(ClassAsk::KindOf), "{text}");
        let classes = crate::answer::intent::class_mentions(&q.grounding);
        assert!(
            classes.contains(&crate::vocab::brick(class)),
            "{text}: {classes:?}"
        );
    }
    // Two names of one class, the grounder having read the second as the
    // first: the second is read after the phrase, past "as an", or between
    // "and" and "the same class".
    for text in [
        "Is a disconnect switch the same class as an isolation switch in Brick?",
        "disconnect switch = isolation switch? same class or different?",
        "In Brick, are a discharge fan and a supply fan the same class?",
    ] {
        assert_eq!(asked(text), Some(ClassAsk::Same), "{text}");
    }
    // Not when it says more than the two classes ("with a deadband").
    assert_eq!(
        asked("is a damper position command a kind of setpoint with a deadband"),
        None
    );
    // The building graph composes nothing for it ("the building graph
    // does not show that the Variable Air Volume Box with a Terminal Unit"
    // answered it, wrongly, no).
    assert!(!matches!(
        reading(&b, "is a vav a kind of terminal unit"),
        Reading::Plan(_)
    ));
}

#[tokio::test]
async fn the_building_said_as_a_subject_scopes_nothing() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    // "the building" is the whole of the data, not a Building node the
    // chiller must be linked to (the fixture links none to Building A).
    for text in [
        "does this building have a chiller",
        "does the building have any chillers?",
        "is there a chiller",
        // "anywhere" narrows nothing.
        "is there a chiller anywhere in the model",
    ] {
        let said = answer_text(&b, text).await;
        assert_eq!(said, "Yes: the Chiller (CH-1).", "{text:?}");
    }
}

#[tokio::test]
async fn equipment_holds_no_rooms() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    // Brick 1.4 replaces brick:Freezer (equipment) and brick:Room by
    // rec:Room: followed both ways anywhere along the class path, the
    // replacement made every room equipment.
    let (_, got) = ask(&b, "what equipment does the building have").await;
    assert_eq!(got, set(&["AHU-1", "AHU-1_SF", "CH-1", "VAV-1", "VAV-2"]));
    // The replacement of the asked class itself still counts: rooms typed
    // brick:Room are rooms.
    let (_, got) = ask(&b, "list the rooms").await;
    assert_eq!(got, set(&["Room_101", "Room_102", "Room_103", "Room_104"]));
}

#[tokio::test]
async fn the_kinds_of_what_is_listed_are_counted_per_class() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    for text in [
        "what kinds of equipment are there",
        "what type of equipment is in the building",
        "count the equipment by type",
        "how many of each equipment type are there",
        "the equipment, broken down by type",
    ] {
        let (outcome, trace) = engine(&b, text).await;
        assert!(
            matches!(outcome, super::Outcome::Drafted { .. }),
            "{text:?} was not answered"
        );
        let answer = trace.graph.answer.expect("a graph answer");
        assert_eq!(answer.kind, "grouped_count", "{text:?}");
        let groups: BTreeSet<String> = answer
            .groups
            .iter()
            .map(|g| format!("{}={}", crate::vocab::local_name(&g.group), g.count))
            .collect();
        assert_eq!(
            groups,
            set(&[
                "AHU=1",
                "Chiller=1",
                "Supply_Fan=1",
                "Variable_Air_Volume_Box=2"
            ]),
            "{text:?}"
        );
    }
    // A named node's kind is still its kind.
    let (shape, got) = ask(&b, "what type of equipment is AHU-1").await;
    assert_eq!((shape, got), (Shape::List, set(&["AHU-1"])));
    // The points of a named node, by kind.
    for text in [
        "what kinds of points does vav-1 have",
        "how many of each point type does vav-1 have",
        "how many sensors of each sensor kind are attached to vav-1",
    ] {
        let (_, trace) = engine(&b, text).await;
        let answer = trace.graph.answer.expect("a graph answer");
        let groups: Vec<(String, u64)> = answer
            .groups
            .iter()
            .map(|g| (crate::vocab::local_name(&g.group).to_owned(), g.count))
            .collect();
        assert_eq!(
            groups,
            [("Zone_Air_Temperature_Sensor".to_owned(), 1)],
            "{text:?}"
        );
    }
}

#[tokio::test]
async fn a_node_typed_twice_is_named_under_its_most_specific_kind() {
    let Some(b) = building("twice_typed.ttl").await else {
        return;
    };
    // VAV-1 is typed a VAV and a terminal unit: it is counted and named
    // once, as a VAV; the terminal units are TU-1 alone.
    let said = answer_text(&b, "what kinds of terminal units are there").await;
    assert!(said.contains(": 2 kinds, 2 nodes"), "{said}");
    assert!(
        said.contains("Terminal Unit (Terminal_Unit): 1 (TU-1)"),
        "{said}"
    );
    assert!(
        said.contains("(Variable_Air_Volume_Box): 1 (VAV-1)"),
        "{said}"
    );
}

#[tokio::test]
async fn a_haystack_point_is_no_equipment_by_its_markers() {
    let Some(b) = building("haystack_points.ttl").await else {
        return;
    };
    // The `damper` marker of a damper command point names the damper it
    // acts on: the point is no damper.
    let (_, got) = ask(&b, "which dampers are there").await;
    assert_eq!(got, set(&["AHU-1_OAD"]));
    // No valve as equipment, only a point that acts on one: the engine
    // abstains and names the point rather than say "none".
    let (outcome, _) = engine(&b, "list the valves").await;
    match outcome {
        super::Outcome::Drafted {
            draft: crate::answer::compose::Draft::Abstain(reason),
            ..
        } => {
            let said = format!("{reason:?}");
            assert!(
                said.contains("only points that act on one (AHU-1 CHW-VLV)"),
                "{said}"
            );
        }
        other => panic!("list the valves: {other:?}"),
    }
    // Asked as points, the markers count.
    let (_, got) = ask(&b, "which damper commands are there").await;
    assert_eq!(got, set(&["AHU-1_OAD-CMD"]));
}

#[tokio::test]
async fn a_place_has_what_the_spaces_it_is_made_of_have() {
    let Some(b) = building("spaces.ttl").await else {
        return;
    };
    // No zone has a CO2 sensor of its own; zone A's room has one: "none"
    // would deny what the model states.
    for text in [
        "which zones have co2 sensors",
        "which zones have a co2 sensor?",
    ] {
        let (kind, got) = ask_answered(&b, text).await;
        assert_eq!((kind.as_str(), got), ("set", set(&["Zone_A"])), "{text:?}");
    }
    // A zone with a point of its own answers as it did.
    let (_, got) = ask_answered(&b, "which zones have a temperature sensor").await;
    assert_eq!(got, set(&["Zone_C"]));
}

/// The only node of a kind the question names is implied, with its
/// equipment; a kind with two nodes implies neither.
#[tokio::test]
async fn the_only_node_of_a_kind_named_is_implied() {
    let Some(b) = building("coils.ttl").await else {
        return;
    };
    let view = GraphView::new(&b.topo, &b.onto);
    let question = |text: &str| Question::read(text, &b.grounder, &b.cues, view);
    let implied = |text: &str| -> BTreeSet<String> {
        question(text)
            .implied(view)
            .iter()
            .map(|i| crate::vocab::local_name(i).to_owned())
            .collect()
    };
    assert_eq!(
        implied("what is the supply air temperature setpoint reset range?"),
        set(&["AHU-1_SAT-SP", "AHU-1"])
    );
    assert_eq!(
        implied("when is the cooling tower enabled?"),
        set(&["CT-1"])
    );
    // Two hot-water coils (AHU-1 HC, VAV-1 RHC): neither is implied.
    let coil = question("what does a hot water coil do at night?");
    assert!(
        coil.grounding
            .payload_fields()
            .brick_equip
            .iter()
            .any(|c| c == "Hot_Water_Coil")
    );
    assert!(coil.implied(view).is_empty());
    // A node the question names is not implied again.
    assert_eq!(
        implied("AHU-1 supply air temperature setpoint?"),
        set(&["AHU-1_SAT-SP"])
    );
}

/// What stops with a named node: a word of stopping and a word of loss
/// ask what the node feeds through any chain of supply (Room 103 and Room
/// 104 are in the zones the boxes feed), of the kind asked, or whether it
/// feeds the other node named; a "no" says what feeds that node instead,
/// of the stopped node's kind. A word of stopping alone ("what do the
/// boxes do when AHU-1 shuts down") asks a sequence, not the graph.
#[tokio::test]
async fn what_stops_with_a_named_node_is_what_it_feeds_through_any_chain() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    for q in [
        "if we shut down ahu-1, which rooms lose air?",
        "which rooms lose air if ahu-1 trips",
        "ahu-1 goes offline - what rooms are affected?",
        "what rooms would be impacted by an ahu-1 outage",
    ] {
        let (_, got) = ask_answered(&b, q).await;
        assert_eq!(got, set(&["Room_103", "Room_104"]), "{q}");
    }
    let (_, got) = ask_answered(&b, "what is affected if ch-1 fails?").await;
    for fed in ["AHU-1", "VAV-1", "VAV-2", "Zone_1", "Zone_2", "Room_104"] {
        assert!(got.contains(fed), "{fed} not in {got:?}");
    }
    assert!(!got.contains("CH-1"), "{got:?}");
    let (_, got) = ask_answered(&b, "how many vav boxes lose air when ahu-1 is shut off").await;
    assert_eq!(got, set(&["VAV-1", "VAV-2"]));
    for (q, want) in [
        ("will room 104 lose air if ahu-1 trips?", "yes"),
        ("if vav-2 fails, is room 103 affected?", "yes"),
        ("does room 102 lose air if vav-2 is shut down?", "no"),
    ] {
        let (shape, got) = ask(&b, q).await;
        assert_eq!((shape, got), (Shape::Yes, set(&[want])), "{q}");
    }
    // "we're" is no "were": a list, not a yes.
    let q = "we're shutting ahu-1 off tonight - which rooms lose air?";
    let (_, got) = ask_answered(&b, q).await;
    assert_eq!(got, set(&["Room_103", "Room_104"]), "{q}");
    let text = answer_text(&b, q).await;
    assert!(text.starts_with("The Room"), "{text}");
    let text = answer_text(&b, "if vav-1 trips does zone 2 lose air").await;
    assert!(text.starts_with("No: "), "{text}");
    assert!(
        text.contains("What feeds Zone 2, through any chain of supply: VAV-2."),
        "{text}"
    );
    for q in [
        "when ahu-1 shuts down, what do the vav boxes do?",
        "what happens to vav-1 when ahu-1 trips",
        "how long can the rooms go without air if ahu-1 trips?",
        "why do the rooms lose air when ahu-1 is shut down",
    ] {
        assert!(!matches!(reading(&b, q), Reading::Plan(_)), "{q}");
    }
}

/// What an operator says beside an outage question is read for what it is:
/// what the stopped unit is down for ("for a filter change") names no kind
/// asked about; a word the model's own description of a named room says
/// ("the conference room 104") describes it; a statement after the
/// question ("the log says …") is what the asker was told, whose nodes the
/// reading leaves to the conflict scan. A word the description does not
/// say is still unread.
#[tokio::test]
async fn what_is_said_beside_an_outage_question_is_read_for_what_it_is() {
    let Some(b) = building("plant.ttl").await else {
        return;
    };
    let q = "if ahu-1 is down for a filter change, which rooms lose air?";
    let (_, got) = ask_answered(&b, q).await;
    assert_eq!(got, set(&["Room_103", "Room_104"]), "{q}");
    for (q, want) in [
        (
            "will the conference room 104 lose air if ahu-1 trips?",
            "yes",
        ),
        (
            "will room 104 lose air if vav-2 trips? the log says vav-1 is on ahu-1",
            "yes",
        ),
        (
            "if i shut vav-2 down for a filter change will the conference room 104 lose air? \
             the service log has room 104 on vav-1 only",
            "yes",
        ),
        (
            "does room 102 lose air if vav-2 is shut down? vav-1 is on ahu-1",
            "no",
        ),
    ] {
        let (shape, got) = ask(&b, q).await;
        assert_eq!((shape, got), (Shape::Yes, set(&[want])), "{q}");
    }
    let q = "will the corner room 104 lose air if ahu-1 trips?";
    assert!(matches!(reading(&b, q), Reading::Unread { .. }), "{q}");
}

/// A node a real model relates but never types is named by its local name:
/// Rice's AHU_5 … AHU_8 feed their boxes with no `rdf:type`. What stops
/// with AHU_7 is what the model's own query says it feeds, through the
/// zones to their rooms.
#[tokio::test]
async fn a_node_a_model_relates_but_never_types_is_named() {
    let Some(b) = shared_building("brick/rice_brick.ttl").await else {
        return;
    };
    let key = "PREFIX brick: <https://brickschema.org/schema/Brick#> \
        SELECT DISTINCT ?x WHERE { <http://virginia.edu/building/ontology/rice#AHU_7> \
        (brick:feeds|^brick:isFedBy)+/(brick:hasPart|^brick:isPartOf)* ?x . \
        ?x a brick:Room }";
    let rows = b.store.query(SparqlQuery::new(key)).await.unwrap();
    let want: BTreeSet<String> = rows
        .into_rows()
        .iter()
        .map(|r| crate::vocab::local_name(&r.string("x")).to_owned())
        .collect();
    assert!(!want.is_empty());
    for q in [
        "which rooms lose air if ahu 7 trips",
        "if AHU_7 is shut down, what rooms are affected?",
    ] {
        let (_, got) = ask_answered(&b, q).await;
        assert_eq!(got, want, "{q}");
    }
    let (_, got) = ask_answered(&b, "what does ahu7 feed").await;
    assert_eq!(got, set(&["VAV7"]));
}

/// A sentence that relates a node to equipment the campus graph does not
/// relate it to, of the kind of what feeds it there, is read as against
/// the graph ([`crate::answer::conflict::against_graph`]); one that says
/// what the graph says, names the node's own feeder beside others, or
/// states no relation is not.
#[tokio::test]
async fn a_sentence_is_read_against_the_graph_for_what_feeds_what_it_names() {
    let Some(b) = campus().await else {
        return;
    };
    let nf = |l: &str| format!("https://daemoniq.io/campus/northfield#{l}");
    let against = |s: &str| {
        crate::answer::conflict::against_graph(&b.cues, &b.grounder, &b.topo, s)
            .into_iter()
            .map(|a| (a.node, a.said, a.feeders))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        against(
            "2024-06-11 — VAV-3-02 (served by AHU-1): occupants of conference room A-302 \
             reported stuffiness."
        ),
        [(nf("VAV-3-02"), vec![nf("AHU-1")], vec![nf("AHU-2")])]
    );
    // A room is fed through the zone it is part of.
    assert_eq!(
        against("Room A-302 is served by VAV-1-01."),
        [(nf("Room_A-302"), vec![nf("VAV-1-01")], vec![nf("VAV-3-02")])]
    );
    for agrees in [
        "VAV-3-02 is fed by AHU-2.",
        // Each unit with its own boxes: AHU-2 is not said of VAV-1-01.
        "AHU-1 serves VAV-1-01 and AHU-2 serves VAV-3-02.",
        // No relation stated.
        "The firmware on VAV-3-02 and AHU-1 was updated.",
    ] {
        assert_eq!(against(agrees), [], "{agrees}");
    }
}

/// "which pumps serve the ahu cooling coils": read as the pumps feeding an
/// AHU and a cooling coil, nothing on the campus stands in both; the
/// model makes the coils parts of the air handlers, so the answer is the
/// pumps feeding a cooling coil that is part of one, as a SPARQL query of
/// that meaning finds them, never "None"; and a part asked the other way
/// round is read the way the model has it.
#[tokio::test]
async fn two_kinds_one_a_part_of_the_other_are_read_as_the_part_of_the_whole() {
    let Some(b) = campus().await else {
        return;
    };
    let key = |part: &str, whole: &str| {
        format!(
            "PREFIX brick: <https://brickschema.org/schema/Brick#> \
             PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> \
             SELECT DISTINCT ?x WHERE {{ ?x a/rdfs:subClassOf* brick:Pump ; brick:feeds ?c . \
             ?c a/rdfs:subClassOf* brick:{part} . ?w brick:hasPart+ ?c . \
             ?w a/rdfs:subClassOf* brick:{whole} }}"
        )
    };
    for (part, whole, questions) in [
        (
            "Cooling_Coil",
            "AHU",
            &[
                "which pumps serve the ahu cooling coils",
                "how many pumps feed the AHU cooling coils?",
                // "On" read as parts, which no pump is of a coil or an
                // AHU in the model: what feeds them.
                "which pumps are on the cooling coils of the air handlers?",
            ][..],
        ),
        (
            "Coil",
            "Variable_Air_Volume_Box",
            &[
                "which pumps feed the vav coils",
                "which pumps serve the coils of the vavs?",
            ][..],
        ),
    ] {
        let want = local_names(&b, &key(part, whole), "x").await;
        assert!(!want.is_empty(), "{part} of {whole}");
        for q in questions {
            let (_, got) = ask_answered(&b, q).await;
            assert_eq!(got, want, "{q}");
        }
    }
    // Asked the other way round, coils with a VAV box (the model has no
    // such coil): the coils that are part of one.
    let key = "PREFIX brick: <https://brickschema.org/schema/Brick#> \
        PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> \
        SELECT DISTINCT ?c WHERE { <https://daemoniq.io/campus/northfield#HWP-1> brick:feeds ?c . \
        ?c a/rdfs:subClassOf* brick:Coil . ?w brick:hasPart+ ?c . \
        ?w a/rdfs:subClassOf* brick:Variable_Air_Volume_Box }";
    let want = local_names(&b, key, "c").await;
    assert_eq!(want.len(), 40);
    let q = "which coils with a vav does hwp-1 feed";
    let (_, got) = ask_answered(&b, q).await;
    assert_eq!(got, want, "{q}");
    // Fans "with" an AHU: the fans that are part of one.
    let key = "PREFIX brick: <https://brickschema.org/schema/Brick#> \
        PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> \
        SELECT DISTINCT ?f WHERE { ?f a/rdfs:subClassOf* brick:Fan . ?w brick:hasPart+ ?f . \
        ?w a/rdfs:subClassOf* brick:AHU }";
    let want = local_names(&b, key, "f").await;
    assert_eq!(want.len(), 6);
    let q = "which fans are on the ahus";
    let (_, got) = ask_answered(&b, q).await;
    assert_eq!(got, want, "{q}");
}

/// The local names a SPARQL query's variable `var` takes on the building.
async fn local_names(b: &Building, key: &str, var: &str) -> BTreeSet<String> {
    let rows = b.store.query(SparqlQuery::new(key)).await.unwrap();
    rows.into_rows()
        .iter()
        .map(|r| crate::vocab::local_name(&r.string(var)).to_owned())
        .collect()
}

/// "which pumps serve the reheat coils?": the grounder reads any Coil, and
/// a list of every coil's pumps (the chilled-water pumps too) would answer
/// another question; "reheat", which no coil's tags say, stays unread and
/// the graph does not answer. Said of a named node ("the reheat coil of
/// vav-1-05") the kind is one of its parts, and a kind whose tags say the
/// word ("the heating coils") is read.
#[tokio::test]
async fn a_word_a_kind_is_read_without_stays_unread() {
    let Some(b) = campus().await else {
        return;
    };
    let view = GraphView::new(&b.topo, &b.onto);
    for text in [
        "which pumps serve the reheat coils?",
        "how many reheat coils are there",
    ] {
        let q = Question::read(text, &b.grounder, &b.cues, view);
        match read::read(&q, &b.cues, view) {
            Reading::Unread { words, .. } => assert_eq!(words, ["reheat"], "{text}"),
            other => panic!("{text}: {other:?}"),
        }
    }
    let key = "PREFIX brick: <https://brickschema.org/schema/Brick#> \
        PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> \
        SELECT DISTINCT ?x WHERE { ?x a/rdfs:subClassOf* brick:Pump ; brick:feeds ?c . \
        ?c a/rdfs:subClassOf* brick:Heating_Coil }";
    let want = local_names(&b, key, "x").await;
    assert!(!want.is_empty());
    let (_, got) = ask_answered(&b, "which pumps serve the heating coils").await;
    assert_eq!(got, want);
    let key = "PREFIX brick: <https://brickschema.org/schema/Brick#> \
        SELECT DISTINCT ?x WHERE { ?x brick:feeds <https://daemoniq.io/campus/northfield#VAV-1-05_RHC> }";
    let want = local_names(&b, key, "x").await;
    assert!(!want.is_empty());
    let (_, got) = ask_answered(&b, "what feeds the reheat coil of vav-1-05").await;
    assert_eq!(got, want);
}

/// "which dampers are on vav-1-05": the model makes dampers parts of the
/// air handlers and gives the box none; said "on" a unit (or "of" it, or
/// beside its name) the kind is the unit's own parts, found as a SPARQL
/// query of that meaning finds them (none for the box, the three of
/// AHU-1), not the air handler's dampers upstream of the box. A kind the
/// model never makes a part of equipment ("vavs on ahu-1") is still what
/// the unit feeds, and a kind of part found downstream of a unit ("hwp-1
/// coils") is what it serves.
#[tokio::test]
async fn a_kind_of_part_said_on_a_unit_is_its_own_parts() {
    let Some(b) = campus().await else {
        return;
    };
    let nf = "https://daemoniq.io/campus/northfield#";
    let parts = |unit: &str| {
        format!(
            "PREFIX brick: <https://brickschema.org/schema/Brick#> \
             PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> \
             SELECT DISTINCT ?x WHERE {{ ?x a/rdfs:subClassOf* brick:Damper . \
             <{nf}{unit}> brick:hasPart+ ?x }}"
        )
    };
    // Upstream of the box stand dampers: the reading, not the data, keeps
    // them out.
    let upstream = format!(
        "PREFIX brick: <https://brickschema.org/schema/Brick#> \
         PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> \
         SELECT DISTINCT ?x WHERE {{ ?x a/rdfs:subClassOf* brick:Damper ; brick:feeds+ <{nf}VAV-1-05> }}"
    );
    assert!(!local_names(&b, &upstream, "x").await.is_empty());
    for unit in ["VAV-1-05", "AHU-1"] {
        let want = local_names(&b, &parts(unit), "x").await;
        for q in [
            format!("which dampers are on {unit}"),
            format!("list the dampers of {}", unit.to_lowercase()),
            format!("{unit} dampers?"),
        ] {
            let (_, got) = ask_answered(&b, &q).await;
            assert_eq!(got, want, "{q}");
        }
    }
    // The unit's kind said before its name restates what it is: the
    // grounder reads the kind at the name and leaves "air handler".
    let want = local_names(&b, &parts("AHU-1"), "x").await;
    for q in [
        "which dampers are part of air handler AHU-1?",
        "which dampers are on the air handler ahu-1",
    ] {
        let (_, got) = ask_answered(&b, q).await;
        assert_eq!(got, want, "{q}");
    }
    // What a unit feeds directly, of a kind.
    let fed_by = |class: &str, unit: &str| {
        format!(
            "PREFIX brick: <https://brickschema.org/schema/Brick#> \
             PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> \
             SELECT DISTINCT ?x WHERE {{ ?x a/rdfs:subClassOf* brick:{class} . \
             <{nf}{unit}> brick:feeds ?x }}"
        )
    };
    let want = local_names(&b, &fed_by("Variable_Air_Volume_Box", "AHU-1"), "x").await;
    assert_eq!(want.len(), 12);
    let (_, got) = ask_answered(&b, "which vavs are on ahu-1").await;
    assert_eq!(got, want);
    // Coils are parts of equipment too, but found downstream of a pump
    // they are what it serves.
    let want = local_names(&b, &fed_by("Coil", "HWP-1"), "x").await;
    assert!(want.len() > 40, "{want:?}");
    for q in ["hwp-1 coils", "which coils are on hwp-1"] {
        let (_, got) = ask_answered(&b, q).await;
        assert_eq!(got, want, "{q}");
    }
}

/// "which dampers are on vav-1-05": the model gives the box no damper as a
/// part, so the list is empty, but the box has a point whose class names a
/// damper (its damper command). Those points, found as a SPARQL query of
/// that meaning finds them, are named beside the "None" and cited; the
/// result itself stays empty. A unit with no point of the kind ("how many
/// fans does vav-2-09 have") is answered as before, and a unit that has
/// parts of the kind lists them alone.
#[tokio::test]
async fn an_empty_list_of_parts_names_the_points_of_the_kind() {
    let Some(b) = campus().await else {
        return;
    };
    let nf = "https://daemoniq.io/campus/northfield#";
    let points = |unit: &str, word: &str| {
        format!(
            "PREFIX brick: <https://brickschema.org/schema/Brick#> \
             SELECT DISTINCT ?x WHERE {{ \
             {{ <{nf}{unit}> brick:hasPoint ?x }} UNION {{ ?x brick:isPointOf <{nf}{unit}> }} \
             ?x a ?c . FILTER(CONTAINS(LCASE(STR(?c)), \"{word}\")) }}"
        )
    };
    let want = local_names(&b, &points("VAV-1-05", "damper"), "x").await;
    assert!(!want.is_empty());
    for q in [
        "which dampers are on VAV-1-05",
        "vav-1-05 dampers?",
        "how many dampers does vav-1-05 have",
    ] {
        let (text, items, cited) = said(&b, q).await;
        assert!(items.is_empty(), "{q}: {items:?}");
        assert!(
            text.contains("has points that name a Damper"),
            "{q}: {text}"
        );
        assert!(want.is_subset(&cited), "{q}: {cited:?}");
    }
    assert!(
        local_names(&b, &points("VAV-2-09", "fan"), "x")
            .await
            .is_empty()
    );
    let (text, items, _) = said(&b, "How many fans does VAV-2-09 have?").await;
    assert!(items.is_empty());
    assert!(!text.contains("has points"), "{text}");
    let (text, items, _) = said(&b, "which dampers are on ahu-1").await;
    assert_eq!(items.len(), 3);
    assert!(!text.contains("has points"), "{text}");
}
