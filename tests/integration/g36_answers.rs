//! Document answers on real Guideline 36 pages nobody here wrote
//! (`../shared/data/docs/g36`): table lookups asked in several wordings,
//! each answer checked against the values read from the page's own table
//! (parsed here with `scraper`, not typed), and questions the pages do not
//! answer, which must abstain.

use crate::chat::{boosted, ingest};
use crate::common;
use crate::ingest::docs_state;
use daemoniq::AppState;
use scraper::{ElementRef, Html, Selector};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// The pages ingested: the two with the tables asked about and three
/// others about zones, terminal units and relief dampers.
const PAGES: &[&str] = &[
    "ThermalZones_Setpoints.html",
    "Generic_AirEconomizerHighLimits.html",
    "ZoneGroups_OperationMode.html",
    "TerminalUnits_Reheat_Subsequences_Alarms.html",
    "AHUs_MultiZone_VAV_SetPoints_ReliefDamper.html",
];

/// A state with `pages` of `docs/g36` ingested.
async fn g36_state(data: &Path, pages: &[&str]) -> (Arc<AppState>, tempfile::TempDir) {
    let (state, _docs, reports) = docs_state(data, |_| {}).await;
    let files: Vec<_> = pages
        .iter()
        .map(|p| data.join("docs/g36").join(p))
        .collect();
    ingest(&state, &files).await;
    (state, reports)
}

async fn ask(state: &Arc<AppState>, query: &str) -> Value {
    let reply = common::http::call(
        &daemoniq::app(Arc::clone(state)),
        common::http::post_json("/chat", &json!({ "query": query })),
    )
    .await;
    let v = reply.json();
    common::assert_valid("answer_contract.schema.json", &v["answer"]);
    v
}

fn text(e: ElementRef<'_>) -> String {
    e.text()
        .collect::<Vec<_>>()
        .join("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The cells of every row of the page's tables, in order.
fn table_rows(page: &Path) -> Vec<Vec<String>> {
    let html = Html::parse_document(&std::fs::read_to_string(page).unwrap());
    let tr = Selector::parse("tr").unwrap();
    let cell = Selector::parse("td, th").unwrap();
    html.select(&tr)
        .map(|row| row.select(&cell).map(text).collect())
        .collect()
}

/// The first "N °C" of a cell.
fn celsius(cell: &str) -> String {
    let words: Vec<&str> = cell.split_whitespace().collect();
    let at = words
        .windows(2)
        .position(|w| w[1].starts_with("°C") && w[0].chars().all(|c| c.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no °C value in {cell:?}"));
    format!("{} °C", words[at])
}

fn answered(v: &Value, query: &str, file: &str) -> String {
    assert_eq!(v["status"], "success", "{query}: {v}");
    let answer = v["answer"]["answer"].as_str().unwrap().to_owned();
    let cited: Vec<&str> = v["answer"]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["file_paths"].as_array().unwrap())
        .filter_map(Value::as_str)
        .collect();
    assert!(
        cited.iter().any(|c| c.ends_with(file)),
        "{query}: cites {cited:?}, not {file}"
    );
    answer
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn g36_table_lookups_answer_in_several_wordings_and_the_rest_abstains() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (state, _reports) = g36_state(&data, PAGES).await;

    // The VAV row of the zone setpoint table (a header spanning two rows
    // and two columns): its four setpoints.
    let rows = table_rows(&data.join("docs/g36/ThermalZones_Setpoints.html"));
    let vav = rows
        .iter()
        .find(|r| r.first().is_some_and(|c| c == "VAV"))
        .expect("the VAV row");
    assert_eq!(vav.len(), 5, "{vav:?}");
    for query in [
        "default occupied and unoccupied setpoints for a VAV zone per g36?",
        "What heating and cooling setpoints does Guideline 36 give a VAV zone when occupied and when unoccupied?",
        "g36 vav zone heating/cooling setpoints, occupied vs unoccupied",
    ] {
        let v = ask(&state, query).await;
        let answer = answered(&v, query, "ThermalZones_Setpoints.html");
        for value in &vav[1..] {
            assert!(
                answer.contains(value.as_str()),
                "{query}: {value:?} not in {answer}"
            );
        }
    }

    // The 90.1 high-limit table: "Fixed dry bulb" spans three rows; the
    // row of climate zone 3a gives its own limit.
    let rows = table_rows(&data.join("docs/g36/Generic_AirEconomizerHighLimits.html"));
    let zone = rows
        .iter()
        .find_map(|r| {
            let at = r.iter().position(|c| c.split(", ").any(|z| z == "3a"))?;
            r.get(at + 1).cloned()
        })
        .expect("the row of climate zone 3a");
    let limit = celsius(&zone);
    for query in [
        "fixed dry bulb economizer high limit in ASHRAE climate zone 3a?",
        "Under 90.1, above what outdoor air temperature is a fixed dry bulb economizer off in climate zone 3a?",
        "climate zone 3a: economizer OFF when the outdoor air is warmer than what, with a fixed dry bulb high limit?",
    ] {
        let v = ask(&state, query).await;
        let answer = answered(&v, query, "Generic_AirEconomizerHighLimits.html");
        assert!(answer.contains(&limit), "{query}: {limit} not in {answer}");
        assert!(answer.contains("Fixed dry bulb"), "{query}: {answer}");
    }

    // Asked in everyday verbs the page does not use ("what has to
    // happen", "kick in", "brings it back out"): its own sentences answer.
    let page = Html::parse_document(
        &std::fs::read_to_string(data.join("docs/g36/ZoneGroups_OperationMode.html")).unwrap(),
    );
    let words = text(page.root_element());
    let sentence = |marker: &str| {
        words
            .split(". ")
            .find(|s| s.contains(marker))
            .unwrap_or_else(|| panic!("no sentence with {marker:?}"))
            .to_owned()
    };
    let warm_up = sentence("no earlier than");
    let earliest = warm_up
        .split("no earlier than ")
        .nth(1)
        .and_then(|rest| rest.split(" (").next())
        .unwrap()
        .to_owned();
    for query in [
        "g36: how early is warm-up allowed to kick in before the occupied period?",
        "in g36, how early can warm-up mode kick in before occupancy starts?",
    ] {
        let v = ask(&state, query).await;
        let answer = answered(&v, query, "ZoneGroups_OperationMode.html");
        assert!(
            answer.contains(&earliest),
            "{query}: {earliest} not in {answer}"
        );
    }
    let setback = sentence("setback mode until");
    // Its first clause, without the heading the page's text runs into.
    let clause: Vec<&str> = setback
        .split(" (")
        .next()
        .unwrap()
        .split_whitespace()
        .collect();
    let opening = clause[clause.len().saturating_sub(6)..].join(" ");
    for query in [
        "what has to happen before a g36 zone group goes into setback, and what brings it back out?",
        "what keeps a g36 zone group in setback and what takes it back out?",
    ] {
        let v = ask(&state, query).await;
        let answer = answered(&v, query, "ZoneGroups_OperationMode.html");
        assert!(
            answer.contains(&opening),
            "{query}: {opening:?} not in {answer}"
        );
    }

    // Asked what the pages do not say: abstain, in every wording.
    for query in [
        "g36 default humidity setpoint for a VAV zone?",
        "What relative humidity does Guideline 36 hold an occupied zone at?",
        "per g36, how often must the economizer dampers be lubricated?",
    ] {
        let v = ask(&state, query).await;
        assert_eq!(v["status"], "refused", "{query}: {v}");
    }
}

/// A question that names Guideline 36 is answered from Guideline 36 or
/// not at all: with the campus plant manual ingested beside G36 pages, the
/// boiler rotation the manual states answers the question asked of the
/// plant, and the same question asked of Guideline 36 (whose pages do not
/// cover boiler plants) abstains, whichever way it names the guideline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_that_names_g36_is_answered_from_g36_or_abstains() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let pages = [
        "ThermalZones_Setpoints.html",
        "AHUs_MultiZone_VAV_SetPoints_PlantRequests.html",
    ];
    std::fs::create_dir_all(root.path().join("g36")).unwrap();
    for p in pages {
        std::fs::copy(
            data.join("docs/g36").join(p),
            root.path().join("g36").join(p),
        )
        .unwrap();
    }
    let manual = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("golden/corpus/northfield_chiller_plant_manual.md");
    std::fs::copy(
        &manual,
        root.path().join("northfield_chiller_plant_manual.md"),
    )
    .unwrap();
    let (state, _docs, _reports) = docs_state(root.path(), |_| {}).await;
    let mut files: Vec<_> = pages
        .iter()
        .map(|p| root.path().join("g36").join(p))
        .collect();
    files.push(root.path().join("northfield_chiller_plant_manual.md"));
    ingest(&state, &files).await;

    // The manual's own sentence on boiler rotation, read from the file.
    let text = std::fs::read_to_string(&manual).unwrap();
    let rotation = text
        .lines()
        .find(|l| l.contains("swap lead and lag") && l.contains("boiler"))
        .and_then(|l| l.split(". ").next())
        .expect("the manual's boiler rotation sentence")
        .to_owned();
    for query in [
        "when do the lead and lag boilers swap?",
        "lead/lag rotation of B-1 and B-2?",
    ] {
        let v = ask(&state, query).await;
        let answer = answered(&v, query, "northfield_chiller_plant_manual.md");
        assert!(
            answer.contains(&rotation),
            "{query}: {rotation:?} not in {answer}"
        );
    }
    for query in [
        "per g36, when do the lead and lag boilers swap?",
        "What does Guideline 36 say about how often the lead boiler rotates?",
    ] {
        let v = ask(&state, query).await;
        assert_eq!(v["status"], "refused", "{query}: {v}");
        assert!(
            v["answer"]["limitations"]
                .as_str()
                .unwrap()
                .contains("documents say"),
            "{query}: {v}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_air_handler_page_is_about_the_air_handler() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (state, _reports) = g36_state(
        &data,
        &[
            "AHUs_MultiZone_VAV_SetPoints_PlantRequests.html",
            "AHUs_MultiZone_VAV_SetPoints_FreezeProtection.html",
            "AHUs_MultiZone_VAV_SetPoints_SupplyTemperature.html",
            "TerminalUnits_Reheat_Subsequences_SystemRequests.html",
        ],
    )
    .await;

    // Every chunk of the page is about the air handler its heading path
    // names in the plural ("G36 AHUs / MultiZone / VAV / …"), whatever
    // its text names ("the chilled water valve position").
    let reply = common::http::call(
        &daemoniq::app(Arc::clone(&state)),
        common::http::post_json(
            "/retrieve",
            &json!({ "query": "chilled water reset requests of the supply air temperature", "top_k": 20 }),
        ),
    )
    .await;
    let v = reply.json();
    let plant: Vec<&Value> = v["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            c["payload"]["source_ref"]
                .as_str()
                .unwrap()
                .ends_with("PlantRequests.html")
        })
        .collect();
    assert!(!plant.is_empty(), "{v}");
    for c in plant {
        assert!(
            c["payload"]["equip"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e == "ahu"),
            "{}",
            c["payload"]
        );
    }

    // The page's own sentence on three chilled-water reset requests.
    let page = data
        .join("docs/g36")
        .join("AHUs_MultiZone_VAV_SetPoints_PlantRequests.html");
    let html = Html::parse_document(&std::fs::read_to_string(&page).unwrap());
    let li = Selector::parse("li, p").unwrap();
    let sentence = html
        .select(&li)
        .map(text)
        .find(|t| t.contains("send 3 requests") && t.contains("exceeds"))
        .expect("the page's three-request sentence");
    let threshold: String = sentence
        .split(" for ")
        .next()
        .and_then(|s| s.rsplit(" by ").next())
        .expect("the sentence's threshold")
        .to_owned();
    for query in [
        "how far above setpoint does the supply air have to be before the AHU sends 3 chilled water reset requests",
        "when does an air handler send three chilled water reset requests?",
    ] {
        let v = ask(&state, query).await;
        let answer = answered(&v, query, "AHUs_MultiZone_VAV_SetPoints_PlantRequests.html");
        assert!(
            answer.contains(&threshold) && answer.contains("send 3 requests"),
            "{query}: {threshold:?} not in {answer}"
        );
    }
}

/// The sentence of `page` right under its heading that names `mode`: the
/// page's own statement of what happens in that mode.
fn under_mode_heading(page: &Path, mode: &str) -> String {
    let html = Html::parse_document(&std::fs::read_to_string(page).unwrap());
    let any = Selector::parse("h1, h2, h3, h4, h5, p, li").unwrap();
    let mut under = false;
    for e in html.select(&any) {
        let name = e.value().name();
        if name.starts_with('h') {
            under = text(e).contains(mode);
        } else if under && !text(e).is_empty() {
            return text(e);
        }
    }
    panic!(
        "no paragraph under a heading naming {mode} in {}",
        page.display()
    );
}

/// A server with every G36 HTML page ingested: a passage must win over
/// all the others.
async fn every_page_state(data: &Path) -> (Arc<AppState>, tempfile::TempDir) {
    let mut pages: Vec<String> = std::fs::read_dir(data.join("docs/g36"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".html"))
        .collect();
    pages.sort();
    let pages: Vec<&str> = pages.iter().map(String::as_str).collect();
    g36_state(data, &pages).await
}

/// A question that names an operating mode is answered from the passage
/// under the heading that names it ("During Cool-down modes"), not from a
/// page that lists the modes (the zone group's mode hierarchy) nor from
/// the occupied-mode reset of the same setpoint, however the mode is
/// spelled ("cooldown", "cool-down", "cool down"; the question's
/// "warm-up" is the page's "Warmup").
#[tokio::test]
async fn a_question_in_a_mode_is_answered_under_the_mode_heading() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let page = "AHUs_MultiZone_VAV_SetPoints_SupplyTemperature.html";
    // Every page: the mode's passage must win over all the others that
    // name the setpoint or the mode.
    let (state, _reports) = every_page_state(&data).await;
    // Each mode with questions in several spellings: "warm-up" is held by
    // the page's "Setback and Warmup modes".
    let asked = [
        (
            "Cool-down",
            vec![
                "mz ahu in cool-down mode - sat setpoint?",
                "sat stpt for a multizone ahu in cooldown mode",
                "multizone ahu supply air temp setpoint during cool down",
            ],
        ),
        ("Warmup", vec!["sat setpoint of a multizone ahu in warm-up"]),
    ];
    for (mode, queries) in asked {
        let sentence = under_mode_heading(&data.join("docs/g36").join(page), mode);
        // "Supply air temperature setpoint TSupSet shall be TSupCoo_min."
        let value = sentence
            .split("shall be")
            .nth(1)
            .map(|v| v.trim().trim_end_matches('.').to_owned())
            .expect("the sentence's value");
        for query in queries {
            let v = ask(&state, query).await;
            let answer = answered(&v, query, page);
            assert!(answer.contains(&value), "{query}: {answer}");
            let used = v["trace"]["chunks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["used"] == true)
                .expect("a chunk used");
            assert!(boosted(used, "mode (heading)"), "{query}: {used}");
        }
    }
}

#[tokio::test]
async fn a_setpoint_given_by_its_parameter_answers_a_question_for_a_value() {
    let Some(data) = common::shared_data() else {
        return;
    };
    // Guideline 36 gives a box's active airflow limits by parameter
    // ("Occupied: max(VHeaMin_flow,VOccMin_flow)"), not by a number: a
    // question for a value ("= ?", "minimum") was refused, the table row
    // "stating no quantity".
    let page = "TerminalUnits_Reheat_Subsequences_ActiveAirFlow.html";
    let (state, _reports) = every_page_state(&data).await;
    let rows = table_rows(&data.join("docs/g36").join(page));
    let header = rows.first().expect("the table's header");
    let occupied = header
        .iter()
        .position(|c| c == "Occupied")
        .expect("an Occupied column");
    let minimum = rows
        .iter()
        .find(|r| r.first().is_some_and(|c| c.starts_with("Heating minimum")))
        .expect("the heating minimum row");
    let value = &minimum[occupied];
    assert!(value.contains("VOccMin_flow"), "{value}");
    for query in [
        "what is the active heating minimum airflow of a g36 reheat box when its zone group is occupied?",
        "reheat terminal per g36: active htg min airflow in occupied mode?",
    ] {
        let v = ask(&state, query).await;
        let answer = answered(&v, query, page);
        assert!(
            answer.contains(value.as_str()),
            "{query}: {value} not in {answer}"
        );
    }
}

/// A question about a kind of equipment no page covers, named by a
/// compound ("fan-powered box", "water-cooled chiller"), abstains: the
/// supply fans of an air handler and its freeze protection answered it
/// before. A kind of room the pages name ("Mechanical/electrical rooms")
/// is still answered from its row.
/// Asks `query`, asserts it is refused with `term` among the words the
/// quoted passage lacks, and gives the response.
async fn refused_for(state: &Arc<AppState>, query: &str, term: &str) -> Value {
    let v = ask(state, query).await;
    assert_eq!(v["status"], "refused", "{query}: {v}");
    let missing = &v["trace"]["answerability"]["missing"];
    assert!(
        missing
            .as_array()
            .is_some_and(|m| m.iter().any(|t| t == term)),
        "{query}: {term} not missing in {missing}"
    );
    v
}

#[tokio::test]
async fn a_kind_no_page_covers_is_not_answered_by_another() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (state, _reports) = every_page_state(&data).await;
    for (query, kind) in [
        (
            "g36 fan-powered box: when does its little fan start and stop?",
            "fan-powered",
        ),
        (
            "For a water-cooled chiller, when does g36 stage the condenser pumps?",
            "water-cooled",
        ),
        // Named by its Haystack tag, a kind no page is about: the pages on
        // other units' fans and coils do not answer for it.
        (
            "g36 fcu with a 2-pipe changeover coil: how is the fan speed reset?",
            "fcu",
        ),
        (
            "per guideline 36, what does a doas do in unoccupied mode?",
            "doas",
        ),
    ] {
        refused_for(&state, query, kind).await;
    }
    let page = "ThermalZones_Setpoints.html";
    let rows = table_rows(&data.join("docs/g36").join(page));
    let rooms = rows
        .iter()
        .find(|r| {
            r.first()
                .is_some_and(|c| c.to_lowercase().contains("electrical rooms"))
        })
        .expect("the electrical rooms row");
    let query = "g36 default heating and cooling temps for an electrical room?";
    let v = ask(&state, query).await;
    let answer = answered(&v, query, page);
    assert!(
        answer.contains(&celsius(&rooms[1])),
        "{query}: {rooms:?} not in {answer}"
    );
}

/// A kind of terminal unit asked by its compound ("cooling-only") is
/// answered from that kind's page, not from the reheat unit's page with
/// the same table row: "cooling" of the reheat page does not hold
/// "cooling-only" by prefix, and the cooling-only page's "cooling only
/// terminal unit" and heading ("CoolingOnly") do. The row read from the
/// page's own table; each wording asked several ways.
#[tokio::test]
async fn a_compound_kind_is_answered_from_its_own_page() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let page = "TerminalUnits_CoolingOnly_Subsequences_ActiveAirFlow.html";
    let other = "TerminalUnits_Reheat_Subsequences_ActiveAirFlow.html";
    let (state, _reports) = every_page_state(&data).await;
    let rows = table_rows(&data.join("docs/g36").join(page));
    // The cooling maximum row (its parameter, "VActCooMax_flow"); the
    // reheat page has the same row, so the page cited tells them apart.
    let own: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| r.first().is_some_and(|c| c.starts_with("Cooling maximum")))
        .collect();
    let [cooling_max] = own.as_slice() else {
        panic!("one cooling maximum row in {page}: {rows:?}");
    };
    let parameter = cooling_max[0]
        .split(['(', ')'])
        .nth(1)
        .map(str::trim)
        .expect("the row's parameter");
    let cites_other = |v: &Value| v["answer"]["evidence"].to_string().contains(other);
    for query in [
        "g36 cooling-only box: active cooling max airflow in cooldown?",
        "active clg max flow stpt for a cooling-only vav terminal in cooldown mode (g36)",
        "cooling-only terminal unit per g36 - active cooling max flow during cooldown",
    ] {
        let v = ask(&state, query).await;
        let answer = answered(&v, query, page);
        assert!(
            answer.contains(parameter),
            "{query}: {parameter} not in {answer}"
        );
        assert!(!cites_other(&v), "{query}: cites {other}: {v}");
    }
    // Wordings the reader does not hold to the cooling-only page (its
    // words apart, "only" read as a function word; a "vav box", which the
    // reheat page names) may abstain, but never answer from the reheat
    // page.
    for query in [
        "what cooling maximum airflow does a cooling only terminal unit hold during cool-down per guideline 36?",
        "cooling-only terminal unit, g36: max cooling airflow setpoint when the zone group is cooling down?",
        "under g36, a cooling-only vav box in cooldown mode: what's its active cooling maximum?",
    ] {
        let v = ask(&state, query).await;
        assert!(!cites_other(&v), "{query}: cites {other}: {v}");
    }
}

/// A word a question comes back to is what it asks about: a passage that
/// does not hold it answers something else, however much of the rest of
/// the question it holds. No page says what a steam coil or a holiday
/// does; the freeze-protection and warm-up passages answered such
/// questions before.
#[tokio::test]
async fn a_word_the_question_comes_back_to_must_be_quoted() {
    let Some(data) = common::shared_data() else {
        return;
    };
    let (state, _reports) = every_page_state(&data).await;
    for (query, topic) in [
        (
            "g36 multizone ahu w/ a steam preheat coil - at what sat does the steam coil valve open for freeze protection?",
            "steam",
        ),
        (
            "single zone ahu with steam heat: how many steam plant requests does g36 send when the sat drops?",
            "steam",
        ),
    ] {
        let v = refused_for(&state, query, topic).await;
        // Refused for that word, not for another rule.
        let limitations = v["answer"]["limitations"].as_str().unwrap_or_default();
        assert!(
            limitations.contains(&format!("comes back to {topic}")),
            "{query}: {limitations}"
        );
    }
}
