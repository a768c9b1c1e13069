//! Each fact builder on a small building (`tests/fixtures/answer/`): a
//! chiller feeding an AHU whose supply fan and the AHU itself feed two VAV
//! boxes, each feeding a zone; points, rooms, a product, an alias. The
//! questions are grounded by hand, so these tests are about the builders,
//! not the grounder.

use super::*;
use crate::answer::question::Question;
use crate::ground::{Entity, EquipmentType, Grounding, PointType};
use crate::import::{self, SourceFile};
use crate::ontology::Ontology;
use crate::store::EmbeddedStore;
use crate::text::Cues;
use crate::topology::Topology;
use std::path::PathBuf;

const EX: &str = "urn:ex#";
const PLANT: &str = "tests/fixtures/answer/plant.ttl";

struct Fixture {
    store: EmbeddedStore,
    topo: Topology,
    onto: Ontology,
    cues: Cues,
}

async fn fixture() -> Fixture {
    let store = EmbeddedStore::in_memory().unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for f in [
        "tests/fixtures/answer/brick_subset.ttl",
        "tests/fixtures/answer/haystack_functions.ttl",
        "ontology/core/cues.ttl",
    ] {
        let file = SourceFile::new(root.join(f), &root, GraphKind::Ontology);
        import::import_file(&store, None, &file).await.unwrap();
    }
    let onto = Ontology::load(&store).await.unwrap();
    let model = SourceFile::new(root.join(PLANT), &root, GraphKind::Model);
    import::import_file(&store, Some(&onto), &model)
        .await
        .unwrap();
    Fixture {
        topo: Topology::build(&store).await.unwrap(),
        cues: Cues::load(&store).await.unwrap(),
        store,
        onto,
    }
}

fn ex(local: &str) -> String {
    format!("{EX}{local}")
}

/// An instance named in the question as its label.
fn named(local: &str, label: &str) -> Entity {
    Entity {
        iri: ex(local),
        label: label.into(),
        kind: EntityKind::Instance,
        class: None,
        confidence: 0.95,
        matched: label.into(),
        span: Default::default(),
    }
}

fn class(local: &str, label: &str) -> Entity {
    Entity {
        iri: vocab::brick(local),
        kind: EntityKind::Class,
        ..named(local, label)
    }
}

fn equipment(class: &str) -> EquipmentType {
    EquipmentType {
        haystack_kind: None,
        brick_class: Some(class.into()),
        confidence: 0.85,
        span: Default::default(),
    }
}

impl Fixture {
    fn view(&self) -> GraphView<'_> {
        GraphView::new(&self.topo, &self.onto)
    }

    fn question(&self, text: &str, g: Grounding) -> Question {
        Question::grounded(text, g, &self.cues, self.view())
    }

    async fn facts(&self, text: &str, g: Grounding) -> Vec<Fact> {
        let q = self.question(text, g);
        let mut ctx = GraphContext::new(&self.store, self.view(), &q)
            .await
            .unwrap();
        let facts = ctx.facts().await.unwrap();
        assert!(
            !ctx.queries.is_empty(),
            "the SPARQL run is kept for the trace"
        );
        facts
    }
}

fn entities(list: Vec<Entity>) -> Grounding {
    Grounding {
        entities: list,
        ..Grounding::default()
    }
}

fn texts(facts: &[Fact]) -> Vec<&str> {
    facts.iter().map(|f| f.text.as_str()).collect()
}

#[tokio::test]
async fn feeds_upstream_direct_and_by_class_with_the_path() {
    let f = fixture().await;
    let facts = f
        .facts("what feeds VAV-1?", entities(vec![named("VAV-1", "VAV-1")]))
        .await;
    assert_eq!(texts(&facts), ["VAV-1 is fed directly by AHU-1, AHU-1 SF."]);
    assert_eq!(
        facts[0].graph_ids,
        [ex("VAV-1"), ex("AHU-1"), ex("AHU-1_SF")]
    );
    assert_eq!(facts[0].file_path, PLANT);
    assert_eq!(facts[0].source_sha.len(), 64);
    assert!(!facts[0].negative);

    let mut g = entities(vec![named("VAV-1", "VAV-1")]);
    g.equipment_types = vec![equipment("Chiller")];
    let facts = f.facts("which chillers feed VAV-1", g).await;
    assert_eq!(
        texts(&facts),
        [
            "1 Chiller upstream of VAV-1 (brick:feeds, transitively): CH-1.",
            "VAV-1 is fed directly by AHU-1, AHU-1 SF."
        ]
    );
    // The chiller, and the path from it back to the box.
    assert_eq!(facts[0].graph_ids, [ex("VAV-1"), ex("CH-1"), ex("AHU-1")]);

    let mut g = entities(vec![named("VAV-1", "VAV-1")]);
    g.equipment_types = vec![equipment("Pump")];
    let facts = f.facts("which pumps feed VAV-1", g).await;
    assert_eq!(
        texts(&facts),
        ["No Pump is upstream of VAV-1 in the graph."]
    );
    assert!(facts[0].negative, "a finding of nothing does not answer");

    let facts = f
        .facts("what feeds CH-1", entities(vec![named("CH-1", "CH-1")]))
        .await;
    assert_eq!(
        texts(&facts),
        ["The graph has no brick:feeds relation into CH-1."]
    );
    assert!(facts[0].negative);
}

#[tokio::test]
async fn feeds_downstream_counts_and_between_two_nodes() {
    let f = fixture().await;
    let facts = f
        .facts(
            "which boxes does AHU-1 serve",
            entities(vec![named("AHU-1", "AHU-1")]),
        )
        .await;
    assert_eq!(texts(&facts), ["AHU-1 directly feeds VAV-1, VAV-2."]);

    let facts = f
        .facts(
            "how many boxes does AHU-1 feed",
            entities(vec![named("AHU-1", "AHU-1")]),
        )
        .await;
    assert_eq!(
        texts(&facts)[1],
        "AHU-1 feeds 2 pieces of equipment directly."
    );

    let two = entities(vec![named("AHU-1", "AHU-1"), named("VAV-2", "VAV-2")]);
    let facts = f.facts("does AHU-1 feed VAV-2?", two).await;
    assert_eq!(texts(&facts), ["Yes: AHU-1 feeds VAV-2 (brick:feeds)."]);
    assert_eq!(facts[0].graph_ids, [ex("AHU-1"), ex("VAV-2")]);

    let two = entities(vec![named("CH-1", "CH-1"), named("VAV-2", "VAV-2")]);
    let facts = f.facts("does CH-1 feed VAV-2?", two).await;
    assert_eq!(
        texts(&facts),
        ["Yes: CH-1 feeds VAV-2 (brick:feeds, through other equipment)."]
    );

    let two = entities(vec![named("VAV-2", "VAV-2"), named("VAV-1", "VAV-1")]);
    let facts = f.facts("does VAV-2 feed VAV-1?", two).await;
    assert_eq!(
        texts(&facts),
        ["No: the graph has no brick:feeds path between VAV-2 and VAV-1."]
    );
    assert!(!facts[0].negative, "a yes/no answer answers");

    // A place named beside the equipment narrows the list to what is in
    // it (VAV-1 is in Room 102 on Floor 1; VAV-2 is nowhere): no feeds
    // path is looked for between AHU-1 and a floor.
    let mut g = entities(vec![named("AHU-1", "AHU-1"), named("Floor_1", "Floor 1")]);
    g.equipment_types = vec![equipment("Variable_Air_Volume_Box")];
    let facts = f.facts("which VAVs does AHU-1 serve on Floor 1", g).await;
    assert_eq!(
        texts(&facts),
        ["AHU-1 feeds 1 Variable Air Volume Box in Floor 1 (brick:feeds, transitively): VAV-1."]
    );
}

#[tokio::test]
async fn the_chat_walk_is_the_topology_walk() {
    let f = fixture().await;
    let q = "what is downstream of AHU-1";
    let facts = f.facts(q, entities(vec![named("AHU-1", "AHU-1")])).await;
    let api: Vec<String> = f
        .topo
        .downstream(&ex("AHU-1"), usize::MAX)
        .into_iter()
        .filter(|r| r.distance == 1)
        .map(|r| r.node.id)
        .collect();
    assert_eq!(facts[0].graph_ids[1..], api[..]);
}

#[tokio::test]
async fn points_with_classes_and_units() {
    let f = fixture().await;
    let facts = f
        .facts(
            "list the points on AHU-1",
            entities(vec![named("AHU-1", "AHU-1")]),
        )
        .await;
    assert_eq!(
        texts(&facts),
        ["AHU-1 has 1 points: AHU-1 SAT (Supply Air Temperature Sensor, unit DEG_F)."]
    );
    assert_eq!(facts[0].graph_ids, [ex("AHU-1"), ex("AHU-1_SAT")]);
    let facts = f
        .facts(
            "list the points on CH-1",
            entities(vec![named("CH-1", "CH-1")]),
        )
        .await;
    assert_eq!(texts(&facts), ["The graph lists no points on CH-1."]);
    // A named point has no points: the question is about the point.
    let facts = f
        .facts(
            "list the points on AHU-1 SAT",
            entities(vec![named("AHU-1_SAT", "AHU-1 SAT")]),
        )
        .await;
    assert_eq!(
        texts(&facts),
        ["AHU-1 SAT is a point of AHU-1: AHU-1 SAT (Supply Air Temperature Sensor, unit DEG_F)."]
    );
}

#[tokio::test]
async fn a_yes_no_point_question_is_answered_yes_or_no_first() {
    let f = fixture().await;
    let asking = |class: &str, label: &str| Grounding {
        entities: vec![named(label, label)],
        point_types: vec![PointType {
            haystack_tags: Vec::new(),
            brick_class: Some(class.into()),
            confidence: 0.9,
            span: Default::default(),
        }],
        ..Grounding::default()
    };
    let znt = "Zone_Air_Temperature_Sensor";
    let facts = f
        .facts("does VAV-1 have a zone temp sensor?", asking(znt, "VAV-1"))
        .await;
    assert_eq!(
        texts(&facts),
        ["Yes: VAV-1 has the point: VAV-1 ZNT (Zone Air Temperature Sensor)."]
    );
    let facts = f
        .facts("does AHU-1 have a zone temp sensor?", asking(znt, "AHU-1"))
        .await;
    assert!(texts(&facts)[0].starts_with("No: AHU-1 has no point of the kind asked about"));
    // The same wording as a request is not answered yes or no.
    let facts = f
        .facts("list the zone temp sensor of VAV-1", asking(znt, "VAV-1"))
        .await;
    assert!(
        texts(&facts)[0].starts_with("VAV-1 has the point"),
        "{facts:?}"
    );
}

#[tokio::test]
async fn a_kind_said_by_its_function_alone_matches_by_brick_class() {
    let f = fixture().await;
    // "sensors" grounds to the Haystack `sensor` marker alone, no Brick
    // class; the fixture's points carry no such tag, but are Brick sensors.
    let g = Grounding {
        entities: vec![named("VAV-1", "VAV-1")],
        point_types: vec![PointType {
            haystack_tags: vec!["sensor".into()],
            brick_class: None,
            confidence: 0.6,
            span: Default::default(),
        }],
        ..Grounding::default()
    };
    let facts = f.facts("which sensors are attached to VAV-1", g).await;
    assert_eq!(
        texts(&facts),
        ["VAV-1 has the point: VAV-1 ZNT (Zone Air Temperature Sensor)."]
    );
}

#[tokio::test]
async fn locations_up_the_hierarchy_and_what_a_room_holds() {
    let f = fixture().await;
    let facts = f
        .facts("where is VAV-1", entities(vec![named("VAV-1", "VAV-1")]))
        .await;
    assert_eq!(
        texts(&facts),
        ["VAV-1 is located in Room 102 (part of Floor 1, Building A)."]
    );
    // A part is where its container is.
    let facts = f
        .facts(
            "where is AHU-1 SF",
            entities(vec![named("AHU-1_SF", "AHU-1 SF")]),
        )
        .await;
    assert_eq!(
        texts(&facts),
        ["AHU-1 is located in Room 101 (part of Floor 1, Building A)."]
    );
    assert!(facts[0].graph_ids.contains(&ex("AHU-1")));
    let facts = f
        .facts(
            "what equipment is in Room 101",
            entities(vec![named("Room_101", "Room 101")]),
        )
        .await;
    assert_eq!(
        texts(&facts),
        [
            "Room 101 is part of Floor 1, part of Building A.",
            "1 items are located in Room 101: AHU-1 (AHU)."
        ]
    );
}

#[tokio::test]
async fn products_installed_and_their_mappings() {
    let f = fixture().await;
    let facts = f
        .facts(
            "what model is AHU-1",
            entities(vec![named("AHU-1", "AHU-1")]),
        )
        .await;
    assert_eq!(
        texts(&facts),
        ["AHU-1 is a YX-100 (Yorkland YX-100 air handler)."]
    );
    let product = Entity {
        iri: format!("{}YX-100", vocab::YK),
        kind: EntityKind::Product,
        ..named("YX-100", "YX-100")
    };
    let facts = f
        .facts("what is the mapping of the YX-100", entities(vec![product]))
        .await;
    assert_eq!(
        texts(&facts),
        [
            "The Yorkland YX-100 (Yorkland YX-100 air handler) maps to Brick class AHU; mapping confidence 0.9, extracted 2025-01-02.",
            "1 pieces of equipment in the building models are a YX-100: AHU-1."
        ]
    );
    assert_eq!(facts[0].file_path, "tests/fixtures/answer/brick_subset.ttl");
}

#[tokio::test]
async fn definitions_equivalence_and_aliases() {
    let f = fixture().await;
    let facts = f
        .facts(
            "define variable air volume box",
            entities(vec![class(
                "Variable_Air_Volume_Box",
                "Variable Air Volume Box",
            )]),
        )
        .await;
    assert_eq!(
        texts(&facts),
        [
            "Variable Air Volume Box (Variable_Air_Volume_Box). Brick defines it as: A device that regulates the volume and temperature of air delivered to a zone by opening or closing a damper. Parent class: Terminal Unit (Terminal_Unit)."
        ]
    );
    let facts = f
        .facts(
            "is an AHU the same as an Air Handling Unit",
            entities(vec![
                class("AHU", "AHU"),
                class("Air_Handling_Unit", "Air Handling Unit"),
            ]),
        )
        .await;
    assert_eq!(
        texts(&facts).last(),
        Some(&"Yes: AHU and Air_Handling_Unit are the same class (owl:equivalentClass).")
    );
    // Said at two places, the two classes are asked, yes or no: the
    // answer opens with it.
    let at = |e: Entity, text: &str, said: &str| {
        let start = text.find(said).unwrap();
        Entity {
            span: crate::ground::Span {
                start,
                end: start + said.len(),
            },
            ..e
        }
    };
    let facts = f
        .facts(
            "is an AHU the same as an Air Handling Unit",
            entities(vec![
                at(
                    class("AHU", "AHU"),
                    "is an AHU the same as an Air Handling Unit",
                    "AHU",
                ),
                at(
                    class("Air_Handling_Unit", "Air Handling Unit"),
                    "is an AHU the same as an Air Handling Unit",
                    "Air Handling Unit",
                ),
            ]),
        )
        .await;
    assert_eq!(
        texts(&facts).first(),
        Some(&"Yes: AHU and Air_Handling_Unit are the same class (owl:equivalentClass).")
    );
    // Two names of one class: it is a kind of itself, said so.
    let t0 = "is an air handling unit a kind of Air_Handling_Unit";
    let ahu = || class("Air_Handling_Unit", "Air Handling Unit");
    let facts = f
        .facts(
            t0,
            entities(vec![
                at(ahu(), t0, "air handling unit"),
                at(ahu(), t0, "Air_Handling_Unit"),
            ]),
        )
        .await;
    assert_eq!(
        texts(&facts).first(),
        Some(&"Yes: both name one class, Air_Handling_Unit.")
    );
    let vav = || class("Variable_Air_Volume_Box", "Variable Air Volume Box");
    let terminal = || class("Terminal_Unit", "Terminal Unit");
    let facts = f
        .facts(
            "is a variable air volume box a kind of terminal unit",
            entities(vec![
                at(
                    vav(),
                    "is a variable air volume box a kind of terminal unit",
                    "variable air volume box",
                ),
                at(
                    terminal(),
                    "is a variable air volume box a kind of terminal unit",
                    "terminal unit",
                ),
            ]),
        )
        .await;
    assert_eq!(
        texts(&facts).first(),
        Some(
            &"Yes: Variable_Air_Volume_Box is a kind of Terminal_Unit (Variable_Air_Volume_Box → Terminal_Unit)."
        )
    );
    let facts = f
        .facts(
            "is a terminal unit a type of variable air volume box",
            entities(vec![
                at(
                    terminal(),
                    "is a terminal unit a type of variable air volume box",
                    "terminal unit",
                ),
                at(
                    vav(),
                    "is a terminal unit a type of variable air volume box",
                    "variable air volume box",
                ),
            ]),
        )
        .await;
    assert_eq!(
        texts(&facts).first(),
        Some(
            &"No: it is the other way: Variable_Air_Volume_Box is a kind of Terminal_Unit (Variable_Air_Volume_Box → Terminal_Unit)."
        )
    );
    let facts = f
        .facts("what does SAT stand for", Grounding::default())
        .await;
    assert_eq!(
        texts(&facts),
        ["SAT: Supply air temperature. Brick class: Supply Air Temperature Sensor."]
    );
}
