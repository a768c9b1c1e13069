//! PDF extraction on the real G36 PDFs and on PDFs built here with lopdf.

use crate::ingest::extract::{BlockKind, ExtractError, Extracted, extract};
use lopdf::{
    Document, EncryptionState, EncryptionVersion, Object, Permissions, Stream, dictionary,
};
use std::path::Path;

/// Per page, as pypdf reads it: the first line, the first words after it,
/// and the last words of the page.
const VAV_PAGES: [(&str, &str, &str); 6] = [
    (
        "G36 TerminalUnits / Reheat / Controller",
        "Source: Modelica Buildings Library, Buildings/Controls/OBC/ASHRAE/G36/TerminalUnits/Reheat/Controller.mo",
        "valve position setpoints. See Buildings.Controls.OBC.ASHRAE.G36.TerminalUnits.Reheat.Subsequences.Overrides.",
    ),
    (
        "G36 TerminalUnits / Reheat / Subsequences / ActiveAirFlow",
        "Source: Modelica Buildings Library, Buildings/Controls/OBC/ASHRAE/G36/TerminalUnits/Reheat/Subsequences/ActiveAirFlow.mo",
        "VHeaMax_flow 0 VCooMax_flow VCooMax_flow 0",
    ),
    (
        "G36 TerminalUnits / Reheat / Subsequences / Alarms",
        "Source: Modelica Buildings Library, Buildings/Controls/OBC/ASHRAE/G36/TerminalUnits/Reheat/Subsequences/Alarms.mo",
        "gemerate a Level 4 alarm.",
    ),
    (
        "G36 TerminalUnits / Reheat / Subsequences / DamperValves",
        "Source: Modelica Buildings Library, Buildings/Controls/OBC/ASHRAE/G36/TerminalUnits/Reheat/Subsequences/DamperValves.mo",
        "heating maximum airflow setpoint VHeaMax_flow.",
    ),
    (
        "G36 TerminalUnits / Reheat / Subsequences / Overrides",
        "Source: Modelica Buildings Library, Buildings/Controls/OBC/ASHRAE/G36/TerminalUnits/Reheat/Subsequences/Overrides.mo",
        "by setting yVal to 0.",
    ),
    (
        "G36 TerminalUnits / Reheat / Subsequences / SystemRequests",
        "Source: Modelica Buildings Library, Buildings/Controls/OBC/ASHRAE/G36/TerminalUnits/Reheat/Subsequences/SystemRequests.mo",
        "than 95%, send 0 requests.",
    ),
];

const AHU_PAGES: [(&str, &str); 16] = [
    ("FreezeProtection", "be no software reset switch.)"),
    (
        "OutdoorAirFlow / ASHRAE62_1 / AHU",
        "VEffOutAir_flow = min(VUncOutAir_flow/sysVenEff, VDesTotOutAir_flow)",
    ),
    (
        "OutdoorAirFlow / ASHRAE62_1 / SumZone",
        "inputs VAdjPopBreZon_flow, VAdjAreBreZon_flow and VMinOA_flow.",
    ),
    (
        "OutdoorAirFlow / ASHRAE62_1 / package",
        "inputs of AHU level calculation.",
    ),
    (
        "OutdoorAirFlow / Title24 / AHU",
        "be equal to the VEffDesOutAir_flow.",
    ),
    (
        "OutdoorAirFlow / Title24 / SumZone",
        "Buildings.Controls.OBC.ASHRAE.G36.VentilationZones.Title24.Setpoints for the detailed description.",
    ),
    (
        "OutdoorAirFlow / Title24 / package",
        "inputs of AHU level calculation.",
    ),
    ("PlantRequests", "than 95%, send 0 requests."),
    ("ReliefDamper", "inchWC). Close damper when disabled."),
    ("ReliefFan", "shut off the relief fan."),
    ("ReliefFanGroup", "when is above Stage 0."),
    (
        "ReturnFanAirflowTracking",
        "This is implemented in Buildings.Controls.OBC.ASHRAE.G36.AHUs.MultiZone.VAV.Economizers.Subsequences.Modulations.ReturnFan",
    ),
    (
        "ReturnFanDirectPressure",
        "are specified in Section 3.2.1.4.",
    ),
    ("SupplyFan", "groups that are occupied, etc.)."),
    ("SupplySignals", "a controller for the economizer."),
    (
        "SupplyTemperature",
        "setpoint TSupSet shall be TSupWarUpSetBac.",
    ),
];

/// The extracted PDF, or `None` when the shared data is absent outside CI
/// (in CI the test fails).
fn load(name: &str) -> Option<Extracted> {
    let path = crate::test_data::shared_data(&format!("docs/pdf/{name}"))?;
    let bytes = std::fs::read(&path).unwrap();
    Some(extract(&path, &bytes).unwrap())
}

/// All text of a page, whitespace-normalised, with table-cell separators
/// removed so it compares with pypdf's text.
fn page_text(doc: &Extracted, page: usize) -> String {
    let text: Vec<&str> = doc.pages[page]
        .blocks
        .iter()
        .map(|b| b.text.as_str())
        .collect();
    text.join(" ")
        .replace(" | ", " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn check_pages(doc: &Extracted, expected: &[(String, String, String)]) {
    assert_eq!(
        doc.pages.len(),
        expected.len(),
        "page count as pypdf reports"
    );
    for (i, (page, (first_line, first_words, last_words))) in
        doc.pages.iter().zip(expected).enumerate()
    {
        assert_eq!(page.label, (i + 1).to_string());
        let text = page_text(doc, i);
        assert!(
            text.starts_with(first_line.as_str()),
            "page {}: {text}",
            i + 1
        );
        assert!(
            text.contains(first_words.as_str()),
            "page {}: {text}",
            i + 1
        );
        assert!(
            text.ends_with(last_words.as_str()),
            "page {}: {text}",
            i + 1
        );
        let first = &page.blocks[0];
        assert_eq!(
            first.kind,
            BlockKind::Heading { level: 1 },
            "page {}",
            i + 1
        );
        assert_eq!(&first.text, first_line, "page {}", i + 1);
    }
}

#[test]
fn vav_pdf_pages_match_pypdf() {
    let Some(doc) = load("G36-VAV-terminal-unit-with-reheat.pdf") else {
        return;
    };
    let expected: Vec<_> = VAV_PAGES
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    check_pages(&doc, &expected);
    assert_eq!(doc.title.as_deref(), Some(VAV_PAGES[0].0));
    // Sections (h4 in the source HTML) come out as lower-level headings.
    let headings: Vec<_> = doc.pages[0]
        .blocks
        .iter()
        .filter(|b| matches!(b.kind, BlockKind::Heading { level } if level > 1))
        .map(|b| b.text.as_str())
        .collect();
    assert!(
        headings.contains(&"a. Heating and cooling control loop"),
        "{headings:?}"
    );
    assert!(headings.contains(&"f. Testing and commissioning overrides"));
    // Lines broken at font changes are joined back into one paragraph.
    assert!(doc.pages[0].blocks.iter().any(|b| {
        b.kind == BlockKind::Paragraph
            && b.text
                .starts_with("Controller for terminal box of VAV system")
            && b.text
                .ends_with("airflow sensor calibration alarm yFloSenAla.")
    }));
    // The setpoint table of page 2 comes out as rows.
    let rows = doc.pages[1]
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::TableRow)
        .count();
    assert!(rows >= 4, "{:#?}", doc.pages[1].blocks);
}

#[test]
fn ahu_pdf_pages_match_pypdf() {
    let Some(doc) = load("G36-multizone-AHU-setpoints.pdf") else {
        return;
    };
    let expected: Vec<_> = AHU_PAGES
        .iter()
        .map(|(name, last)| {
            let name_path = name.replace(" / ", "/");
            (
                format!("G36 AHUs / MultiZone / VAV / SetPoints / {name}"),
                format!(
                    "Source: Modelica Buildings Library, Buildings/Controls/OBC/ASHRAE/G36/AHUs/MultiZone/VAV/SetPoints/{name_path}.mo"
                ),
                last.to_string(),
            )
        })
        .collect();
    check_pages(&doc, &expected);
}

// ---------------------------------------------------------------------------
// PDFs built here.

/// A PDF whose pages each show `lines` of (font, size, y, text); `F1` is
/// Helvetica and `F2` Helvetica-Bold. `labels` becomes `/PageLabels`.
fn build_pdf(pages: &[Vec<(&str, i64, i64, &str)>], labels: Option<Object>) -> Document {
    let placed: Vec<Vec<Placed<'_>>> = pages
        .iter()
        .map(|lines| {
            lines
                .iter()
                .map(|&(font, size, y, text)| (font, size, 72, y, text))
                .collect()
        })
        .collect();
    build_pdf_at(&placed, labels)
}

/// A line of text placed on a page: (font, size, x, y, text).
type Placed<'a> = (&'a str, i64, i64, i64, &'a str);

/// [`build_pdf`] with each line's left edge.
fn build_pdf_at(pages: &[Vec<Placed<'_>>], labels: Option<Object>) -> Document {
    let mut doc = Document::with_version("1.5");
    doc.trailer.set(
        "ID",
        Object::Array(vec![
            Object::string_literal(b"0123456789abcdef"),
            Object::string_literal(b"fedcba9876543210"),
        ]),
    );
    let pages_id = doc.new_object_id();
    let regular = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let bold = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica-Bold",
    });
    let resources = doc.add_object(dictionary! {
        "Font" => dictionary! { "F1" => regular, "F2" => bold },
    });
    let mut kids = Vec::new();
    for lines in pages {
        let mut content = String::new();
        for (font, size, x, y, text) in lines {
            content.push_str(&format!("BT /{font} {size} Tf {x} {y} Td ({text}) Tj ET\n"));
        }
        let content_id = doc.add_object(Stream::new(dictionary! {}, content.into_bytes()));
        let page = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            "Contents" => content_id,
            "Resources" => resources,
        });
        kids.push(Object::from(page));
    }
    let count = i64::try_from(kids.len()).unwrap();
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
    );
    let mut catalog = dictionary! { "Type" => "Catalog", "Pages" => pages_id };
    if let Some(labels) = labels {
        catalog.set("PageLabels", labels);
    }
    let catalog_id = doc.add_object(catalog);
    doc.trailer.set("Root", catalog_id);
    doc
}

fn save(mut doc: Document) -> Vec<u8> {
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

fn one_page(text: &str) -> Vec<Vec<(&str, i64, i64, &str)>> {
    vec![vec![("F1", 11, 700, text)]]
}

#[test]
fn page_labels_follow_the_number_tree() {
    let labels = dictionary! {
        "Nums" => vec![
            0.into(), Object::Dictionary(dictionary! { "S" => "r" }),
            2.into(), Object::Dictionary(dictionary! {
                "S" => "D", "St" => 7, "P" => Object::string_literal("A-"),
            }),
            4.into(), Object::Dictionary(dictionary! { "S" => "A" }),
        ],
    };
    let page = vec![("F1", 11, 700, "Text")];
    let pdf = save(build_pdf(&vec![page; 5], Some(Object::Dictionary(labels))));
    let doc = extract(Path::new("labels.pdf"), &pdf).unwrap();
    let labels: Vec<_> = doc.pages.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["i", "ii", "A-7", "A-8", "A"]);
    assert_eq!(super::roman(1994), "MCMXCIV");
    assert_eq!(super::letters(28), "BB");
}

#[test]
fn headings_paragraphs_and_lists_from_positions() {
    let wrapped = "The supply fan shall run whenever the zone group is in any mode";
    let page = vec![
        ("F2", 20, 740, "Supply Fan Control"),
        ("F1", 11, 700, wrapped),
        ("F1", 11, 687, wrapped),
        ("F1", 11, 674, "other than unoccupied."),
        ("F2", 11, 640, "Static pressure reset"),
        ("F1", 11, 610, "1. Trim the setpoint"),
        ("F1", 11, 597, "2. Respond to requests"),
    ];
    let pdf = save(build_pdf(&[page], None));
    let doc = extract(Path::new("manual.pdf"), &pdf).unwrap();
    let blocks = &doc.pages[0].blocks;
    let kinds: Vec<_> = blocks.iter().map(|b| b.kind).collect();
    assert_eq!(
        kinds,
        [
            BlockKind::Heading { level: 1 },
            BlockKind::Paragraph,
            BlockKind::Heading { level: 2 },
            BlockKind::ListItem,
            BlockKind::ListItem,
        ],
        "{blocks:#?}"
    );
    assert_eq!(
        blocks[1].text,
        format!("{wrapped} {wrapped} other than unoccupied.")
    );
    assert_eq!(blocks[4].text, "2. Respond to requests");
    assert_eq!(doc.title.as_deref(), Some("Supply Fan Control"));
}

#[test]
fn a_list_item_indented_past_the_one_above_is_nested_in_it() {
    let page = vec![
        ("F2", 20, 72, 740, "Demand limits"),
        (
            "F1",
            11,
            72,
            700,
            "1. Heating demand limit setpoint adjustment.",
        ),
        (
            "F1",
            11,
            90,
            687,
            "a. At Level 1, decrease setpoint by 1 F.",
        ),
        ("F1", 11, 108, 674, "i. Deeper still."),
        (
            "F1",
            11,
            90,
            661,
            "b. At Level 3, decrease setpoint by 4 F.",
        ),
        ("F1", 11, 72, 648, "2. Window switches."),
        (
            "F1",
            11,
            72,
            620,
            "A paragraph after the list, at the left margin.",
        ),
        ("F1", 11, 90, 590, "- Alone"),
    ];
    let pdf = save(build_pdf_at(&[page], None));
    let doc = extract(Path::new("limits.pdf"), &pdf).unwrap();
    let read: Vec<(BlockKind, u8)> = doc.pages[0]
        .blocks
        .iter()
        .map(|b| (b.kind, b.depth))
        .collect();
    assert_eq!(
        read,
        [
            (BlockKind::Heading { level: 1 }, 0),
            (BlockKind::ListItem, 0),
            (BlockKind::ListItem, 1),
            (BlockKind::ListItem, 2),
            (BlockKind::ListItem, 1),
            (BlockKind::ListItem, 0),
            (BlockKind::Paragraph, 0),
            (BlockKind::ListItem, 0),
        ],
        "{:#?}",
        doc.pages[0].blocks
    );
}

#[test]
fn encrypted_pdf_is_refused() {
    let mut doc = build_pdf(&one_page("Yorkland YK-AHU service notes"), None);
    let state = EncryptionState::try_from(EncryptionVersion::V2 {
        document: &doc,
        owner_password: "owner",
        user_password: "user",
        key_length: 128,
        permissions: Permissions::all(),
    })
    .unwrap();
    doc.encrypt(&state).unwrap();
    let pdf = save(doc);
    let err = extract(Path::new("docs/locked.pdf"), &pdf).unwrap_err();
    assert!(matches!(err, ExtractError::Encrypted { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("docs/locked.pdf") && msg.contains("password"),
        "{msg}"
    );
}

#[test]
fn pdf_encrypted_with_an_empty_user_password_is_read() {
    let mut doc = build_pdf(&one_page("Chilled water valve"), None);
    let state = EncryptionState::try_from(EncryptionVersion::V2 {
        document: &doc,
        owner_password: "owner",
        user_password: "",
        key_length: 128,
        permissions: Permissions::all(),
    })
    .unwrap();
    doc.encrypt(&state).unwrap();
    let doc = extract(Path::new("open.pdf"), &save(doc)).unwrap();
    assert_eq!(doc.pages[0].blocks[0].text, "Chilled water valve");
}

#[test]
fn garbage_and_truncated_pdfs_are_corrupt() {
    for bytes in [
        b"this is not a PDF at all".to_vec(),
        b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\ngarbage \xff\xfe".to_vec(),
        (0..5000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect(),
    ] {
        let err = extract(Path::new("scan.pdf"), &bytes).unwrap_err();
        assert!(matches!(err, ExtractError::Corrupt { .. }), "{err}");
        assert!(err.to_string().contains("scan.pdf"), "{err}");
    }
    // Cut-off copies of a real file fail cleanly, whatever the cut.
    let pdf = save(build_pdf(&one_page("Discharge air temperature"), None));
    for cut in [0, 9, pdf.len() / 3, pdf.len() / 2, pdf.len() - 40] {
        match extract(Path::new("cut.pdf"), &pdf[..cut]) {
            Err(ExtractError::Corrupt { .. } | ExtractError::Empty { .. }) | Ok(_) => {}
            Err(other) => panic!("cut at {cut}: {other}"),
        }
    }
}

#[test]
fn pdf_without_text_is_empty() {
    let mut doc = build_pdf(&[vec![]], None);
    let pages = doc.get_pages();
    let page = *pages.values().next().unwrap();
    let drawing = doc.add_object(Stream::new(dictionary! {}, b"0 0 100 100 re f".to_vec()));
    doc.get_object_mut(page)
        .unwrap()
        .as_dict_mut()
        .unwrap()
        .set("Contents", drawing);
    let err = extract(Path::new("drawing.pdf"), &save(doc)).unwrap_err();
    assert!(matches!(err, ExtractError::Empty { .. }), "{err}");
}
