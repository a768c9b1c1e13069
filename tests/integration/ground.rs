//! The grounder and `POST /api/ground` on the demo campus.

use crate::common;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use daemoniq::ground::{EntityKind, Grounder, Grounding};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use std::time::Instant;
use tower::ServiceExt;

const NF: &str = "https://daemoniq.io/campus/northfield#";
const YK: &str = "https://daemoniq.io/ns/yorkland#";

async fn ground(text: &str) -> Grounding {
    common::campus_state().await.grounder().ground(text)
}

fn instances(g: &Grounding) -> Vec<&str> {
    g.entities
        .iter()
        .filter(|e| e.kind == EntityKind::Instance)
        .map(|e| e.label.as_str())
        .collect()
}

#[tokio::test]
async fn dat_setpoint_of_a_vav_grounds_the_box_and_the_point() {
    let g = ground("What is the DAT setpoint of VAV 2-14?").await;
    let vav = g
        .entities
        .iter()
        .find(|e| e.label == "VAV-2-14")
        .unwrap_or_else(|| panic!("no VAV-2-14 in {g:?}"));
    assert_eq!(vav.iri, format!("{NF}VAV-2-14"));
    assert_eq!(vav.kind, EntityKind::Instance);
    assert_eq!(vav.matched, "VAV 2-14");
    assert_eq!(
        vav.class.as_deref(),
        Some("Variable_Air_Volume_Box_With_Reheat")
    );
    assert!(
        g.equipment_types
            .iter()
            .any(|t| t.haystack_kind.as_deref() == Some("vav")
                && t.brick_class.as_deref() == Some("Variable_Air_Volume_Box_With_Reheat")),
        "{:?}",
        g.equipment_types
    );
    let point = g
        .point_types
        .iter()
        .find(|p| {
            ["discharge", "air", "temp"]
                .iter()
                .all(|t| p.haystack_tags.iter().any(|x| x == t))
        })
        .unwrap_or_else(|| panic!("no discharge air temp point in {:?}", g.point_types));
    assert_eq!(&point.haystack_tags[..3], ["discharge", "air", "temp"]);
    assert!(g.gconf >= 0.6, "{}", g.gconf);
    assert!(g.unresolved.is_empty());
    assert_eq!(g.links()[0], format!("{NF}VAV-2-14"));
    let f = g.payload_fields();
    assert!(f.equip.contains(&"vav".to_owned()));
    assert!(f.ptags.iter().any(|p| p.starts_with("discharge air temp")));
    let mut sorted = f.raw.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(f.raw, sorted);
}

#[tokio::test]
async fn spellings_of_a_label_all_find_it_and_near_misses_do_not() {
    for text in ["is vav-2-14 too warm", "VAV2-14", "status of Vav 2-14"] {
        let g = ground(text).await;
        assert_eq!(instances(&g), ["VAV-2-14"], "{text}: {g:?}");
    }
    let g = ground("VAV-21-4").await;
    assert!(instances(&g).is_empty(), "{g:?}");
    assert_eq!(g.unresolved, ["VAV-21-4"]);
    let g = ground("AHU-2-1 is not a unit").await;
    assert!(!instances(&g).contains(&"AHU-2"), "{g:?}");
}

/// A point's short name in capitals, as a manual writes it in the text of
/// its system, names the point when no other point ends so ("CWST-SP" is
/// `CW-SYS CWST-SP`); a short name several nodes end with ("SAT-SP" of
/// each air handler) names none, and words are no short name.
#[tokio::test]
async fn a_unique_short_name_in_capitals_names_its_point() {
    // Typed in lower case it is still the name; written as words it is
    // not ("fan spd" is the fan speed of any fan, not CT-1 FAN-SPD).
    let cases: [(&str, &[&str]); 5] = [
        ("The tower fan holds CWST at CWST-SP.", &["CW-SYS CWST-SP"]),
        ("HWST-SP is reset from the outside air", &["HW-SYS HWST-SP"]),
        ("SAT-SP is reset by trim and respond", &[]),
        ("cwst-sp reset off oat", &["CW-SYS CWST-SP"]),
        ("medium fan spd reset on oat", &[]),
    ];
    for (text, named) in cases {
        let g = ground(text).await;
        assert_eq!(instances(&g), named, "{text}: {g:?}");
    }
}

#[tokio::test]
async fn longest_label_wins() {
    let g = ground("Is the AHU-2 SF running?").await;
    assert_eq!(instances(&g), ["AHU-2 SF"], "{g:?}");
    let g = ground("AHU-2 supply fan").await;
    assert_eq!(instances(&g), ["AHU-2"], "{g:?}");
    assert!(
        g.equipment_types
            .iter()
            .any(|t| t.haystack_kind.as_deref() == Some("fan")),
        "{:?}",
        g.equipment_types
    );
}

#[tokio::test]
async fn yorkland_model_number_grounds_the_product() {
    let g = ground("yvr 3100 reheat valve").await;
    let product = g
        .entities
        .iter()
        .find(|e| e.kind == EntityKind::Product)
        .unwrap_or_else(|| panic!("no product in {g:?}"));
    assert_eq!(product.iri, format!("{YK}YVR-3100"));
    assert_eq!(product.label, "YVR-3100");
    assert!(
        g.equipment_types
            .iter()
            .any(|t| t.brick_class.as_deref() == Some("Variable_Air_Volume_Box_With_Reheat")),
        "{:?}",
        g.equipment_types
    );
    assert_eq!(g.links()[0], format!("{YK}YVR-3100"));
}

#[tokio::test]
async fn plural_lower_case_kinds_ground_equipment_types() {
    let g = ground("chillers in the plant").await;
    assert!(
        g.equipment_types
            .iter()
            .any(|t| t.haystack_kind.as_deref() == Some("chiller")
                && t.brick_class.as_deref() == Some("Chiller")),
        "{:?}",
        g.equipment_types
    );
    assert!(g.entities.iter().all(|e| e.kind != EntityKind::Instance));
    let g = ground("how many vavs does each ahu serve").await;
    let kinds: Vec<&str> = g
        .equipment_types
        .iter()
        .filter_map(|t| t.haystack_kind.as_deref())
        .collect();
    assert!(
        kinds.contains(&"vav") && kinds.contains(&"ahu"),
        "{kinds:?}"
    );
}

#[tokio::test]
async fn abbreviations_expand_through_aliases() {
    let g = ground("CHWST reset on CH-1").await;
    assert_eq!(instances(&g), ["CH-1"]);
    let p = g
        .point_types
        .iter()
        .find(|p| p.haystack_tags.iter().any(|t| t == "chilled"))
        .unwrap_or_else(|| panic!("{:?}", g.point_types));
    assert!(p.haystack_tags.contains(&"water".to_owned()));
    assert!(p.haystack_tags.contains(&"temp".to_owned()));
    let g = ground("ZNT too high").await;
    assert!(
        g.point_types
            .iter()
            .any(|p| p.haystack_tags == ["zone", "air", "temp", "sensor"]),
        "{:?}",
        g.point_types
    );
}

#[tokio::test]
async fn off_topic_text_grounds_nothing() {
    let g = ground("How many vacation days do employees get?").await;
    assert!(g.is_empty(), "{g:?}");
    assert!(g.raw_tags.is_empty(), "{g:?}");
    assert!(g.unresolved.is_empty());
    assert_eq!(g.gconf, 0.0);
    let f = g.payload_fields();
    assert!(f.equip.is_empty() && f.brick_equip.is_empty() && f.ptags.is_empty());
    assert!(g.links().is_empty());
}

#[tokio::test]
async fn a_passage_about_kinds_of_things_names_their_brick_classes() {
    let state = common::campus_state().await;
    let g = state.grounder();
    // The G36 warm-up mode paragraph names no node and no point type, but
    // zones and the window switch it is about.
    let warm_up = "Warm-up mode shall start based on the zone with the longest calculated \
                   warm-up time. Zones where the window switch indicates that a window is open \
                   shall be ignored.";
    assert!(g.ground(warm_up).links().is_empty());
    let classes = g
        .classes_named(warm_up)
        .unwrap_or_else(|| panic!("no classes in {warm_up:?}"));
    assert!(classes.iter().any(|c| c.ends_with("#Zone")), "{classes:?}");
    // Off-topic text, and a lone class word, link nothing; a room named
    // twice is what the text is about.
    assert!(
        g.classes_named("The cafeteria on the first floor serves soup.")
            .is_some_and(|c| c.iter().any(|c| c.ends_with("#Cafeteria")))
    );
    for text in [
        "How many vacation days do employees get?",
        "Vacation requests go to the HR office by Friday.",
        "Lunch menu. The cafeteria serves soup on Tuesdays and pasta on Fridays.",
    ] {
        assert_eq!(g.classes_named(text), None, "{text}");
    }
}

#[tokio::test]
async fn unknown_equipment_label_is_unresolved() {
    let g = ground("What feeds VAV-9-99?").await;
    assert!(g.unresolved.contains(&"VAV-9-99".to_owned()), "{g:?}");
    assert!(instances(&g).is_empty(), "{g:?}");
}

#[tokio::test]
async fn load_and_ground_timings() {
    let state = common::campus_state().await;
    let started = Instant::now();
    let grounder = Grounder::load(state.store.as_ref(), &state.ontology())
        .await
        .unwrap();
    let load = started.elapsed();
    let started = Instant::now();
    let g = grounder.ground("What is the DAT setpoint of VAV 2-14?");
    let one = started.elapsed();
    let long =
        "The AHU-2 SF speeds up when the DSP drops; VAV boxes on floor 2 report ZNT and DAT. "
            .repeat(50);
    let started = Instant::now();
    let gl = grounder.ground(&long);
    let long_time = started.elapsed();
    assert!(!g.is_empty() && !gl.is_empty());
    eprintln!(
        "TIMING Grounder::load {load:?}; ground(question) {one:?}; ground({} chars) {long_time:?}",
        long.len()
    );
}

async fn post(body: Body, content_type: &str) -> (StatusCode, Value) {
    let app = daemoniq::app(common::campus_state().await);
    let resp = app
        .oneshot(
            Request::post("/api/ground")
                .header(header::CONTENT_TYPE, content_type)
                .body(body)
                .unwrap(),
        )
        .await
        .unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap())
}

#[tokio::test]
async fn endpoint_returns_the_grounding_json() {
    let text = "What is the DAT setpoint of VAV 2-14?";
    let (status, body) = post(
        Body::from(json!({ "text": text }).to_string()),
        "application/json",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let direct = serde_json::to_value(ground(text).await).unwrap();
    assert_eq!(body, direct);
    assert_eq!(body["schema"], "grounding.v1");
}

#[tokio::test]
async fn endpoint_rejects_empty_long_and_non_json_bodies() {
    let (status, body) = post(
        Body::from(json!({ "text": "   " }).to_string()),
        "application/json",
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], "VALIDATION_FAILED");
    assert_eq!(body["details"]["field"], "text");
    common::assert_valid("error.schema.json", &body);

    let (status, body) = post(
        Body::from(json!({ "text": "x".repeat(5001) }).to_string()),
        "application/json",
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    let (status, body) = post(Body::from("{\"txt\": 1}"), "application/json").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["code"], "VALIDATION_FAILED");

    let (status, body) = post(Body::from("text=VAV-2-14"), "text/plain").await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{body}");
    assert_eq!(body["code"], "UNSUPPORTED_MEDIA_TYPE");
}
