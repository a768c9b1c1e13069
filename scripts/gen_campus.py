#!/usr/bin/env python3
"""Generate graph/northfield_campus.ttl, the DaemonIQ demo campus.

Northfield Campus: two office buildings served by a central chilled-water /
hot-water plant in Building A.

  Building A (3 floors)  AHU-1 -> floor 1 VAVs, AHU-2 -> floors 2 and 3
  Building B (2 floors)  AHU-3 -> floors 1 and 2
  Central plant (Room A-190)
    CT-1 -> CWP-1 -> CH-1, CH-2 -> CHWP-1, CHWP-2 -> AHU cooling coils
    B-1, B-2 -> HWP-1, HWP-2 -> AHU heating coils and VAV reheat coils

Perimeter zones get VAV boxes with hot-water reheat (Yorkland YVR-3100);
interior zones get cooling-only boxes (YVC-3000). Every VAV feeds exactly one
HVAC zone, which contains one room. Points follow ASHRAE Guideline 36 point
lists, labelled "<equipment> <abbreviation>" as a BAS front end shows them.

Haystack marker IRIs are read from ontology/haystack/haystack.ttl so that every
dq:hasHaystackTag link resolves. Plain Python 3, no third-party imports, fully
deterministic: the same input always yields byte-identical output.

    python3 scripts/gen_campus.py            # writes graph/northfield_campus.ttl
    python3 scripts/gen_campus.py -o FILE    # writes elsewhere
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAYSTACK_TTL = os.path.join(ROOT, "ontology", "haystack", "haystack.ttl")
DEFAULT_OUT = os.path.join(ROOT, "graph", "northfield_campus.ttl")

PREFIXES = [
    ("rdfs", "http://www.w3.org/2000/01/rdf-schema#"),
    ("skos", "http://www.w3.org/2004/02/skos/core#"),
    ("brick", "https://brickschema.org/schema/Brick#"),
    ("unit", "http://qudt.org/vocab/unit/"),
    ("dq", "https://daemoniq.io/ns/core#"),
    ("yk", "https://daemoniq.io/ns/yorkland#"),
    ("ph", "https://project-haystack.org/def/ph/3.9.14#"),
    ("phIoT", "https://project-haystack.org/def/phIoT/3.9.14#"),
    ("phScience", "https://project-haystack.org/def/phScience/3.9.14#"),
    ("phIct", "https://project-haystack.org/def/phIct/3.9.14#"),
    ("phx", "https://daemoniq.io/ns/haystack-ext#"),
    ("nf", "https://daemoniq.io/campus/northfield#"),
]


# ---------------------------------------------------------------------------
# Haystack markers: tag name -> prefixed IRI, read from haystack.ttl
# ---------------------------------------------------------------------------

def load_markers(path):
    text = open(path, encoding="utf-8").read()
    markers = {}
    for m in re.finditer(r'^([A-Za-z]+:[A-Za-z0-9_]+) a [^;]*dq:HaystackMarker[^;]*;(.*?)\n\n', text, re.S | re.M):
        name = re.search(r'dq:tagName "([^"]+)"', m.group(2))
        if name:
            markers[name.group(1)] = m.group(1)
    if len(markers) < 300:
        sys.exit(f"gen_campus: only {len(markers)} markers read from {path}")
    return markers


# ---------------------------------------------------------------------------
# Point templates: suffix, Brick class, Haystack markers, unit, comment
# ---------------------------------------------------------------------------

VAV_POINTS = [
    ("ZNT", "Zone_Air_Temperature_Sensor", "zone air temp sensor", "DEG_F",
     "Zone air temperature from the wall sensor."),
    ("CLG-SP", "Occupied_Cooling_Zone_Air_Temperature_Setpoint", "zone air temp cooling occ sp", "DEG_F",
     "Occupied cooling setpoint (75 F default)."),
    ("HTG-SP", "Occupied_Heating_Zone_Air_Temperature_Setpoint", "zone air temp heating occ sp", "DEG_F",
     "Occupied heating setpoint (70 F default)."),
    ("DAT", "Supply_Air_Temperature_Sensor", "discharge air temp sensor", "DEG_F",
     "Discharge air temperature leaving the box{after_coil}."),
    ("AIRFLOW", "Supply_Air_Flow_Sensor", "discharge air flow sensor", "FT3-PER-MIN",
     "Primary airflow measured by the inlet velocity sensor."),
    ("AIRFLOW-SP", "Supply_Air_Flow_Setpoint", "discharge air flow sp", "FT3-PER-MIN",
     "Active airflow setpoint between the zone minimum and cooling maximum."),
    ("DPR-CMD", "Damper_Position_Command", "damper cmd", "PERCENT",
     "Damper position command to the box actuator, 0-100 %."),
    ("OCC", "Occupancy_Sensor", "occupied sensor", None,
     "Zone occupancy sensor (true = occupied); drives the G36 occupied-standby mode."),
]
VAV_REHEAT_POINTS = [
    ("RHT-VLV", "Valve_Position_Command", "hot water valve cmd", "PERCENT",
     "Reheat coil hot-water valve command, 0-100 %."),
]
VAV_CO2_POINT = ("CO2", "Zone_CO2_Level_Sensor", "zone air co2 sensor", "PPM",
                 "Zone CO2 concentration for demand controlled ventilation.")

AHU_POINTS = [
    ("SAT", "Supply_Air_Temperature_Sensor", "discharge air temp sensor", "DEG_F",
     "Supply (discharge) air temperature downstream of the supply fan."),
    ("SAT-SP", "Supply_Air_Temperature_Setpoint", "discharge air temp sp", "DEG_F",
     "Supply air temperature setpoint, reset 55-65 F by trim and respond."),
    ("RAT", "Return_Air_Temperature_Sensor", "return air temp sensor", "DEG_F",
     "Return air temperature."),
    ("RA-RH", "Return_Air_Humidity_Sensor", "return air humidity sensor", "PERCENT",
     "Return air relative humidity."),
    ("MAT", "Mixed_Air_Temperature_Sensor", "mixed air temp sensor", "DEG_F",
     "Mixed air temperature (averaging element after the dampers)."),
    ("OAT", "Outside_Air_Temperature_Sensor", "outside air temp sensor", "DEG_F",
     "Outside air temperature at the AHU intake."),
    ("OA-CFM", "Outside_Air_Flow_Sensor", "outside air flow sensor", "FT3-PER-MIN",
     "Outside airflow measuring station."),
    ("OA-CFM-SP", "Outside_Air_Flow_Setpoint", "outside air flow sp", "FT3-PER-MIN",
     "Minimum outside airflow setpoint."),
    ("DSP", "Supply_Air_Static_Pressure_Sensor", "discharge duct air pressure sensor", "IN_H2O",
     "Duct static pressure, two thirds down the main supply duct."),
    ("DSP-SP", "Supply_Air_Static_Pressure_Setpoint", "discharge duct air pressure sp", "IN_H2O",
     "Duct static pressure setpoint, reset 0.5-1.5 in. w.c. by trim and respond."),
    ("SF-SS", "Start_Stop_Command", "discharge fan run cmd", None,
     "Supply fan start/stop command."),
    ("SF-STS", "Fan_On_Off_Status", "discharge fan run sensor", None,
     "Supply fan status (VFD run feedback)."),
    ("SF-SPD", "Fan_Speed_Command", "discharge fan speed cmd", "PERCENT",
     "Supply fan VFD speed command."),
    ("RF-SS", "Start_Stop_Command", "return fan run cmd", None,
     "Return fan start/stop command."),
    ("RF-STS", "Fan_On_Off_Status", "return fan run sensor", None,
     "Return fan status (VFD run feedback)."),
    ("RF-SPD", "Fan_Speed_Command", "return fan speed cmd", "PERCENT",
     "Return fan VFD speed command."),
    ("OAD-CMD", "Damper_Position_Command", "outside air damper cmd", "PERCENT",
     "Outside air damper position command."),
    ("RAD-CMD", "Damper_Position_Command", "return air damper cmd", "PERCENT",
     "Return air damper position command."),
    ("EAD-CMD", "Damper_Position_Command", "exhaust air damper cmd", "PERCENT",
     "Exhaust (relief) air damper position command."),
    ("CHW-VLV", "Valve_Position_Command", "chilled water valve cmd", "PERCENT",
     "Cooling coil chilled-water valve command."),
    ("HW-VLV", "Valve_Position_Command", "hot water valve cmd", "PERCENT",
     "Heating coil hot-water valve command."),
    ("FLTR-DP", "Filter_Differential_Pressure_Sensor", "filter pressure delta sensor", "IN_H2O",
     "Final filter differential pressure."),
]

CHILLER_POINTS = [
    ("EN", "Enable_Command", "enable cmd", None, "Chiller enable command from the plant sequence."),
    ("STS", "Run_Status", "run sensor", None, "Chiller run status."),
    ("ALM", "Alarm", "alarm", None, "Chiller general alarm."),
    ("CHWS", "Leaving_Chilled_Water_Temperature_Sensor", "chilled water leaving temp sensor", "DEG_F",
     "Evaporator leaving (supply) chilled-water temperature."),
    ("CHWR", "Entering_Chilled_Water_Temperature_Sensor", "chilled water entering temp sensor", "DEG_F",
     "Evaporator entering (return) chilled-water temperature."),
]
BOILER_POINTS = [
    ("EN", "Enable_Command", "enable cmd", None, "Boiler enable command from the plant sequence."),
    ("STS", "Run_Status", "run sensor", None, "Boiler firing (run) status."),
    ("ALM", "Alarm", "alarm", None, "Boiler general alarm (flame failure, low water)."),
    ("HWS", "Leaving_Hot_Water_Temperature_Sensor", "hot water leaving temp sensor", "DEG_F",
     "Boiler leaving (supply) hot-water temperature."),
]
PUMP_POINTS = [
    ("SS", "Start_Stop_Command", "pump run cmd", None, "Pump start/stop command."),
    ("STS", "Pump_On_Off_Status", "pump run sensor", None, "Pump status (VFD run feedback)."),
    ("VFD-SPD", "Speed_Command", "speed cmd", "PERCENT", "Pump VFD speed command."),
]
TOWER_POINTS = [
    ("FAN-SS", "Start_Stop_Command", "fan run cmd", None, "Cooling tower fan start/stop command."),
    ("FAN-STS", "Fan_On_Off_Status", "fan run sensor", None, "Cooling tower fan status."),
    ("FAN-SPD", "Fan_Speed_Command", "fan speed cmd", "PERCENT", "Cooling tower fan VFD speed command."),
    ("BASIN-T", "Collection_Basin_Water_Temperature_Sensor", "condenser water basin temp sensor", "DEG_F",
     "Basin water temperature (basin heater control)."),
]
SYSTEM_POINTS = {
    "CHW-SYS": [
        ("CHWST", "Leaving_Chilled_Water_Temperature_Sensor", "chilled water leaving temp sensor", "DEG_F",
         "Chilled-water supply temperature in the common supply header."),
        ("CHWRT", "Entering_Chilled_Water_Temperature_Sensor", "chilled water entering temp sensor", "DEG_F",
         "Chilled-water return temperature in the common return header."),
        ("CHWST-SP", "Leaving_Chilled_Water_Temperature_Setpoint", "chilled water leaving temp sp", "DEG_F",
         "Chilled-water supply temperature setpoint, reset 42-50 F from cooling coil valve requests."),
        ("CHW-DP", "Chilled_Water_Differential_Pressure_Sensor", "chilled water pressure delta sensor", "PSI",
         "Remote loop differential pressure across the most remote coil."),
        ("CHW-DP-SP", "Chilled_Water_Differential_Pressure_Setpoint", "chilled water pressure delta sp", "PSI",
         "Loop differential pressure setpoint for the CHW pump VFDs."),
        ("CHW-FLOW", "Chilled_Water_Flow_Sensor", "chilled water flow sensor", "GAL_US-PER-MIN",
         "Chilled-water flow in the common supply header."),
    ],
    "HW-SYS": [
        ("HWST", "Leaving_Hot_Water_Temperature_Sensor", "hot water leaving temp sensor", "DEG_F",
         "Hot-water supply temperature in the common supply header."),
        ("HWRT", "Entering_Hot_Water_Temperature_Sensor", "hot water entering temp sensor", "DEG_F",
         "Hot-water return temperature in the common return header."),
        ("HWST-SP", "Leaving_Hot_Water_Temperature_Setpoint", "hot water leaving temp sp", "DEG_F",
         "Hot-water supply temperature setpoint, reset 120-160 F on outside air temperature."),
        ("HW-DP", "Hot_Water_Differential_Pressure_Sensor", "hot water pressure delta sensor", "PSI",
         "Remote loop differential pressure."),
        ("HW-DP-SP", "Hot_Water_Differential_Pressure_Setpoint", "hot water pressure delta sp", "PSI",
         "Loop differential pressure setpoint for the HW pump VFDs."),
    ],
    "CW-SYS": [
        ("CWST", "Leaving_Condenser_Water_Temperature_Sensor", "condenser water leaving temp sensor", "DEG_F",
         "Condenser-water supply temperature leaving the cooling tower toward the chiller condensers."),
        ("CWRT", "Entering_Condenser_Water_Temperature_Sensor", "condenser water entering temp sensor", "DEG_F",
         "Condenser-water return temperature entering the cooling tower."),
        ("CWST-SP", "Leaving_Condenser_Water_Temperature_Setpoint", "condenser water leaving temp sp", "DEG_F",
         "Condenser-water supply temperature setpoint (tower fan control)."),
    ],
}

# ---------------------------------------------------------------------------
# Floor layouts: each VAV serves one room. (exposure, room use, co2 sensor)
# Perimeter exposures (N/E/S/W) get reheat boxes; interior zones are cooling only.
# ---------------------------------------------------------------------------

def layout(interior, n_north, n_east, n_south, n_west):
    """Zones of one floor in VAV numbering order: the interior boxes on the
    first branch of the duct main, then the perimeter clockwise from north."""
    zones = [("interior", use, use in ("conference room", "training room", "break room")) for use in interior]
    for exposure, count, uses in (
        ("north", n_north, ["private office", "open office", "private office", "open office"]),
        ("east", n_east, ["open office", "private office", "huddle room"]),
        ("south", n_south, ["open office", "private office", "open office", "private office"]),
        ("west", n_west, ["private office", "open office", "corner office"]),
    ):
        for i in range(count):
            zones.append((exposure, uses[i % len(uses)], False))
    return zones


BUILDINGS = [
    {
        "key": "A", "label": "Building A", "short": "BLDG-A",
        "comment": "Three-storey office building with the central chilled-water and hot-water plant; AHU-1 and AHU-2 in the third-floor mechanical room, cooling tower CT-1 on the roof.",
        "floors": {
            1: layout(["lobby core", "conference room", "open office core", "copy room"], 2, 2, 2, 2),
            2: layout(["conference room", "open office core", "open office core", "break room", "copy room"], 3, 2, 3, 3),
            3: layout(["training room", "conference room", "open office core", "break room"], 2, 2, 2, 2),
        },
    },
    {
        "key": "B", "label": "Building B", "short": "BLDG-B",
        "comment": "Two-storey office and laboratory-support building connected to the central plant in Building A by a tunnel; AHU-3 in the second-floor mechanical room.",
        "floors": {
            1: layout(["conference room", "open office core", "copy room"], 2, 2, 2, 1),
            2: layout(["open office core", "conference room"], 2, 1, 2, 1),
        },
    },
]
AHUS = [
    # name, building, served floors, location room number
    ("AHU-1", "A", [1], "A-390"),
    ("AHU-2", "A", [2, 3], "A-390"),
    ("AHU-3", "B", [1, 2], "B-290"),
]
DIVERSITY = 0.85  # AHU design airflow = diversity x sum of the VAV cooling maxima
MAX_CFM = {"private office": 350, "open office": 1100, "corner office": 450, "huddle room": 400,
           "lobby core": 1400, "conference room": 900, "open office core": 1300, "training room": 1200,
           "break room": 700, "copy room": 300}
ROOM_CLASS = "Room"


class Writer:
    def __init__(self, markers):
        self.markers = markers
        self.blocks = []
        self.labels = {}
        self.counts = {"equipment": 0, "points": 0, "locations": 0, "systems": 0}

    def tags(self, words):
        out = []
        for w in words.split():
            if w not in self.markers:
                sys.exit(f"gen_campus: Haystack marker {w!r} not in {HAYSTACK_TTL}")
            iri = self.markers[w]
            if iri not in out:
                out.append(iri)
        return out

    def node(self, iri, cls, label, tags, props=(), comment=None, kind="equipment"):
        norm = " ".join(label.split()).lower()
        if norm in self.labels:
            sys.exit(f"gen_campus: duplicate label {label!r} ({self.labels[norm]} and {iri})")
        self.labels[norm] = iri
        lines = [f"{iri} a brick:{cls} ;", f'    rdfs:label "{label}" ;']
        if comment:
            lines.append(f'    rdfs:comment "{esc(comment)}"@en ;')
        for p, o in props:
            lines.append(f"    {p} {o} ;")
        lines.append("    dq:hasHaystackTag " + ", ".join(self.tags(tags)) + " .")
        self.blocks.append("\n".join(lines))
        self.counts[kind] += 1

    def point(self, equip_iri, equip_label, suffix, cls, tags, unit, comment):
        iri = f"{equip_iri}_{suffix}"
        props = [("brick:hasUnit", f"unit:{unit}")] if unit else []
        self.node(iri, cls, f"{equip_label} {suffix}", tags + " point", props, comment, kind="points")
        return iri

    def section(self, title):
        self.blocks.append(f"# {'-' * 74}\n# {title}\n# {'-' * 74}")


def esc(s):
    return s.replace("\\", "\\\\").replace('"', '\\"')


def objs(iris):
    return ", ".join(iris)


def generate(markers):
    w = Writer(markers)
    site = "nf:Northfield_Campus"
    bldg = {b["key"]: f"nf:{b['short']}" for b in BUILDINGS}

    # ---------------------------------------------------------------- locations
    w.section("Site, buildings, floors, rooms and HVAC zones")
    w.node(site, "Site", "Northfield Campus", "site",
           [("brick:hasPart", objs(bldg[b["key"]] for b in BUILDINGS))],
           "Demo campus of two office buildings on a shared central plant.", kind="locations")
    vav_specs = []  # (vav iri, label, building key, floor, nn, exposure, use, co2, room iri, zone iri)
    for b in BUILDINGS:
        k = b["key"]
        floors = [f"nf:{b['short']}_FL{f}" for f in b["floors"]]
        w.node(bldg[k], "Building", b["label"], "building",
               [("skos:altLabel", f'"{b["short"]}"'), ("brick:hasPart", objs(floors))],
               b["comment"], kind="locations")
        for f, zones in b["floors"].items():
            floor_iri = f"nf:{b['short']}_FL{f}"
            rooms = []
            for i, (exposure, use, co2) in enumerate(zones, start=1):
                rooms.append(f"nf:Room_{k}-{f}{i:02d}")
            mech = []
            if k == "A" and f == 1:
                mech.append("nf:Room_A-190")
            if (k, f) in (("A", 3), ("B", 2)):
                mech.append(f"nf:Room_{k}-{f}90")
            w.node(floor_iri, "Floor", f"{b['label']} Floor {f}", "floor space",
                   [("brick:hasPart", objs(rooms + mech))], kind="locations")
            for i, (exposure, use, co2) in enumerate(zones, start=1):
                num = f"{k}-{f}{i:02d}"
                room = f"nf:Room_{num}"
                zone = f"nf:Zone_{num}"
                vav_label = f"VAV-{f}-{i:02d}" if k == "A" else f"VAV-B{f}-{i:02d}"
                vav = f"nf:{vav_label}"
                where = "interior" if exposure == "interior" else f"{exposure} perimeter"
                w.node(room, ROOM_CLASS, f"Room {num}", "room space", [],
                       f"{use.capitalize()}, {where}, {b['label']} floor {f}.", kind="locations")
                w.node(zone, "HVAC_Zone", f"Zone {num}", "hvac zone space",
                       [("brick:hasPart", room)],
                       f"HVAC zone served by {vav_label}.", kind="locations")
                vav_specs.append((vav, vav_label, k, f, i, exposure, use, co2, room, zone))
        for num, use in (("A-190", "Central plant"), ("A-390", "AHU mechanical room"),
                         ("B-290", "AHU mechanical room")):
            if num.startswith(k):
                # The room number alone is how people name it ("room a-190").
                w.node(f"nf:Room_{num}", "Mechanical_Room", f"Room {num} {use}", "room space",
                       [("skos:altLabel", f'"Room {num}"')],
                       f"{use} of {b['label']}.", kind="locations")

    # ---------------------------------------------------------------- plant
    w.section("Central plant: condenser water, chilled water, hot water")
    ahu_iris = [f"nf:{a[0]}" for a in AHUS]
    cc = [f"{a}_CC" for a in ahu_iris]
    hc = [f"{a}_HC" for a in ahu_iris]
    reheat_coils = [f"{v[0]}_RHC" for v in vav_specs if v[5] != "interior"]
    plant_room = "nf:Room_A-190"

    w.node("nf:CW-SYS", "Condenser_Water_System", "CW-SYS", "condenser water plant system",
           [("brick:hasPart", "nf:CT-1, nf:CWP-1")],
           "Condenser water system: cooling tower CT-1 and condenser water pump CWP-1 serving the chiller condensers.",
           kind="systems")
    w.node("nf:CHW-SYS", "Chilled_Water_System", "CHW-SYS", "chilled water plant system",
           [("brick:hasPart", "nf:CH-1, nf:CH-2, nf:CHWP-1, nf:CHWP-2")],
           "Variable primary chilled-water plant: two water-cooled chillers and two headered variable-speed pumps.",
           kind="systems")
    w.node("nf:HW-SYS", "Hot_Water_System", "HW-SYS", "hot water plant system",
           [("brick:hasPart", "nf:B-1, nf:B-2, nf:HWP-1, nf:HWP-2")],
           "Heating hot-water plant: two condensing boilers and two headered variable-speed pumps.",
           kind="systems")
    for sysname, pts in SYSTEM_POINTS.items():
        for p in pts:
            iri = w.point(f"nf:{sysname}", sysname, *p)
        w.blocks.append(f"nf:{sysname} brick:hasPoint " + objs(f"nf:{sysname}_{p[0]}" for p in pts) + " .")

    def equipment(iri, label, cls, tags, product, location, feeds, comment, points, parts=()):
        props = [("dq:product", product), ("brick:hasLocation", location)]
        if parts:
            props.append(("brick:hasPart", objs(parts)))
        if feeds:
            props.append(("brick:feeds", objs(feeds)))
        props.append(("brick:hasPoint", objs(f"{iri}_{p[0]}" for p in points)))
        w.node(iri, cls, label, tags, props, comment)
        for p in points:
            w.point(iri, label, *p)

    equipment("nf:CT-1", "CT-1", "Cooling_Tower", "coolingTower equip", "yk:YCT-6000", bldg["A"],
              ["nf:CWP-1"], "Induced-draft cooling tower on the Building A roof, 300 nominal tons.", TOWER_POINTS)
    equipment("nf:CWP-1", "CWP-1", "Condenser_Water_Pump", "condenser water pump equip", "yk:YPK-1400",
              plant_room, ["nf:CH-1", "nf:CH-2"], "Condenser water pump, 900 gpm, 20 hp on VFD.", PUMP_POINTS)
    for n in (1, 2):
        equipment(f"nf:CH-{n}", f"CH-{n}", "Water_Cooled_Chiller", "chiller equip centrifugal waterCooling",
                  "yk:YCH-9000", plant_room, ["nf:CHWP-1", "nf:CHWP-2"],
                  f"Water-cooled magnetic-bearing centrifugal chiller, 150 tons, lead/lag with CH-{3 - n}.", CHILLER_POINTS)
    for n in (1, 2):
        equipment(f"nf:CHWP-{n}", f"CHWP-{n}", "Chilled_Water_Pump", "chilled water pump equip", "yk:YPC-1200",
                  plant_room, cc, f"Chilled-water pump, 360 gpm, 15 hp on VFD, {'lead' if n == 1 else 'standby'}.",
                  PUMP_POINTS)
    for n in (1, 2):
        equipment(f"nf:B-{n}", f"B-{n}", "Condensing_Natural_Gas_Boiler", "boiler equip hot water naturalGas condensing",
                  "yk:YBL-4000", plant_room, ["nf:HWP-1", "nf:HWP-2"],
                  f"Condensing natural-gas hot-water boiler, 1,500 MBH input, lead/lag with B-{3 - n}.", BOILER_POINTS)
    for n in (1, 2):
        equipment(f"nf:HWP-{n}", f"HWP-{n}", "Hot_Water_Pump", "hot water pump equip", "yk:YPH-1200",
                  plant_room, hc + reheat_coils,
                  f"Heating hot-water pump, 150 gpm, 5 hp on VFD, {'lead' if n == 1 else 'standby'}.", PUMP_POINTS)

    # ---------------------------------------------------------------- AHUs
    for name, k, served, room in AHUS:
        ahu = f"nf:{name}"
        vavs = [v for v in vav_specs if v[2] == k and v[3] in served]
        cfm = int(round(DIVERSITY * sum(MAX_CFM[v[6]] for v in vavs) / 500.0) * 500)
        where = f"{'Building A' if k == 'A' else 'Building B'} floor{'s' if len(served) > 1 else ''} " + \
            " and ".join(str(f) for f in served)
        w.section(f"{name}: {where}")
        parts = {
            "OAD": ("Outside_Damper", "outside air damper equip", "Outside air damper (minimum and economizer).", ["FLT"]),
            "RAD": ("Return_Damper", "return air damper equip", "Return air damper.", ["FLT"]),
            "EAD": ("Exhaust_Damper", "exhaust air damper equip", "Exhaust (relief) air damper.", []),
            "FLT": ("Final_Filter", "final filter equip", "MERV 14 final filter bank.", ["HC"]),
            "HC": ("Hot_Water_Coil", "heatingCoil coil hot water equip", "Hot-water heating (preheat) coil.", ["CC"]),
            "CC": ("Chilled_Water_Coil", "coolingCoil coil chilled water equip", "Chilled-water cooling coil.", ["SF"]),
            "SF": ("Supply_Fan", "discharge fan equip", "Supply fan array on VFD.", []),
            "RF": ("Return_Fan", "return fan equip", "Return fan on VFD.", ["RAD", "EAD"]),
        }
        part_iris = [f"{ahu}_{p}" for p in parts] + [f"{ahu}_DDC"]
        w.node(ahu, "Air_Handling_Unit, brick:AHU", name,
               "ahu equip vavZone variableAirVolume chilledWaterCooling hotWaterHeating",
               [("dq:product", "yk:YAH-7000"), ("brick:hasLocation", f"nf:Room_{room}"),
                ("brick:hasPart", objs(part_iris)),
                ("brick:feeds", objs(v[0] for v in vavs)),
                ("brick:hasPoint", objs(f"{ahu}_{p[0]}" for p in AHU_POINTS))],
               f"VAV air handler, {cfm:,} cfm design, serving {where} ({len(vavs)} VAV boxes). "
               "Airside economizer, supply and return fans on VFDs, Guideline 36 sequences.")
        for p in AHU_POINTS:
            w.point(ahu, name, *p)
        for p, (cls, tags, comment, feeds) in parts.items():
            props = []
            targets = [f"{ahu}_{f}" for f in feeds]
            if p == "SF":  # the supply fan discharges into the duct main: the air path to the boxes
                targets += [v[0] for v in vavs]
            if targets:
                props.append(("brick:feeds", objs(targets)))
            w.node(f"{ahu}_{p}", cls, f"{name} {p}", tags, props, f"{name} {comment[0].lower()}{comment[1:]}")
        w.node(f"{ahu}_DDC", "BACnet_Controller", f"{name} DDC", "controller bacnet equip",
               [("dq:product", "yk:YNX-520")], f"{name} BACnet/IP unit controller running the Guideline 36 AHU sequences.")

        # ------------------------------------------------------------ VAVs
        for vav, label, bk, f, i, exposure, use, co2, room, zone in vavs:
            reheat = exposure != "interior"
            points = list(VAV_POINTS) + (VAV_REHEAT_POINTS if reheat else []) + ([VAV_CO2_POINT] if co2 else [])
            max_cfm = MAX_CFM[use]
            min_cfm = max(100, round(max_cfm * 0.3 / 10) * 10)
            props = [("dq:product", "yk:YVR-3100" if reheat else "yk:YVC-3000"),
                     ("brick:hasLocation", room), ("brick:feeds", zone)]
            if reheat:
                props.append(("brick:hasPart", f"{vav}_RHC"))
            props.append(("brick:hasPoint", objs(f"{vav}_{p[0]}" for p in points)))
            if reheat:
                comment = (f"Pressure-independent VAV box with hot-water reheat, {max_cfm} cfm cooling maximum, "
                           f"{min_cfm} cfm minimum; serves the {exposure} perimeter {use} Room {room[8:]}.")
                w.node(vav, "Variable_Air_Volume_Box_With_Reheat, brick:RVAV", label,
                       "vav equip reheat hotWaterHeating singleDuct pressureIndependent", props, comment)
            else:
                comment = (f"Pressure-independent cooling-only VAV box, {max_cfm} cfm cooling maximum, "
                           f"{min_cfm} cfm minimum; serves the interior {use} Room {room[8:]}.")
                w.node(vav, "Variable_Air_Volume_Box, brick:VAV", label,
                       "vav equip coolingOnly singleDuct pressureIndependent", props, comment)
            for suffix, cls, tags, unit, pcomment in points:
                pcomment = pcomment.replace("{after_coil}", " after the reheat coil" if reheat else "")
                w.point(vav, label, suffix, cls, tags, unit, pcomment)
            if reheat:
                w.node(f"{vav}_RHC", "Hot_Water_Coil", f"{label} RHC", "heatingCoil coil hot water reheat equip", [],
                       f"Hot-water reheat coil of {label}, fed by HWP-1/HWP-2.")
    return w


HEADER = """# Northfield Campus: DaemonIQ demo building model (Brick 1.4 + Haystack tags).
#
# GENERATED by scripts/gen_campus.py -- do not edit; change the generator and re-run:
#     python3 scripts/gen_campus.py
#
# Two buildings on a central chilled-water / hot-water plant. Relationships go one
# way only (brick:feeds, brick:hasPart, brick:hasPoint, brick:hasLocation); the
# server derives the inverses. Each AHU feeds its VAV boxes, and inside the AHU the
# air path is explicit (dampers -> filter -> heating coil -> cooling coil -> supply
# fan -> VAV boxes), so upstream walks reach the plant through the coils. AHUs and
# VAV boxes carry Brick's canonical class and its alias (brick:AHU, brick:VAV,
# brick:RVAV) so that SPARQL without reasoning finds them under either name.
# dq:sourceSha, dq:sourcePath and dq:updatedAt are added by the importer, never
# written here.
#
# Counts: {counts}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", default=DEFAULT_OUT, help="output Turtle file (default: graph/northfield_campus.ttl)")
    args = ap.parse_args()
    w = generate(load_markers(HAYSTACK_TTL))
    counts = ", ".join(f"{v} {k}" for k, v in w.counts.items())
    text = HEADER.format(counts=counts) + "\n"
    text += "".join(f"@prefix {p}: <{ns}> .\n" for p, ns in PREFIXES) + "\n"
    text += "\n\n".join(w.blocks) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"gen_campus: wrote {os.path.relpath(args.output, ROOT)} ({counts})", file=sys.stderr)


if __name__ == "__main__":
    main()
