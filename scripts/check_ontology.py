#!/usr/bin/env python3
"""Consistency checks for DaemonIQ's own Turtle: ontology/, graph/, tests/fixtures/.

Checks that every file parses, that every Brick class and tag it names exists in
Brick 1.4, that the demo campus is wired the way the design says (VAV counts,
one feeding AHU per VAV, one zone per VAV, unique labels, Haystack tags and
Yorkland products that resolve), and that the vocabularies are complete.

Needs rdflib (pip install rdflib) and Brick.ttl from scripts/setup.sh:

    python3 scripts/check_ontology.py [--brick PATH] [-v]

Exits non-zero when a check fails; prints warnings that do not fail.
"""

import argparse
import glob
import json
import os
import sys
from collections import Counter, defaultdict

try:
    from rdflib import BNode, Graph, Literal, Namespace, URIRef
    from rdflib.namespace import OWL, RDF, RDFS
except ImportError:  # pragma: no cover
    sys.exit("check_ontology: needs rdflib (pip install rdflib)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BRICK = Namespace("https://brickschema.org/schema/Brick#")
TAG = Namespace("https://brickschema.org/schema/BrickTag#")
DQ = Namespace("https://daemoniq.io/ns/core#")
YK = Namespace("https://daemoniq.io/ns/yorkland#")
UNIT = "http://qudt.org/vocab/unit/"
# QUDT unit names used by the project's models (checked against qudt.org).
KNOWN_UNITS = {"DEG_F", "DEG_C", "PERCENT", "IN_H2O", "FT3-PER-MIN", "GAL_US-PER-MIN", "PSI", "PPM", "HZ", "KiloW"}
# Brick 1.4 deprecates all location classes in favour of RealEstateCore; the
# project still uses these (the design asks for them), so they are allowed.
ALLOWED_DEPRECATED = {"Site", "Building", "Floor", "Room", "HVAC_Zone", "Mechanical_Room", "Space", "Zone", "Location"}
PROVENANCE = (DQ.sourceSha, DQ.sourcePath, DQ.updatedAt)

failures = []
warnings = []


def fail(msg):
    failures.append(msg)


def warn(msg):
    warnings.append(msg)


def rel(path):
    return os.path.relpath(path, ROOT)


def parse(path):
    g = Graph()
    try:
        g.parse(path, format="turtle")
    except Exception as e:  # noqa: BLE001
        fail(f"{rel(path)} does not parse: {e}")
    return g


class Brick:
    def __init__(self, path):
        self.g = Graph()
        self.g.parse(path, format="turtle")
        g = self.g
        self.classes = set(g.subjects(RDF.type, OWL.Class)) | set(g.subjects(RDFS.subClassOf, None))
        self.terms = set(s for s in g.subjects() if isinstance(s, URIRef))
        self.tags = set(s for s in g.subjects() if str(s).startswith(str(TAG)))
        self.tags |= set(o for o in g.objects(None, BRICK.hasAssociatedTag))
        self.deprecated = set(s for s, o in g.subject_objects(OWL.deprecated) if str(o) == "true")
        self.parents = defaultdict(set)
        for c, p in g.subject_objects(RDFS.subClassOf):
            if isinstance(p, URIRef):
                self.parents[c].add(p)
        for a, b in g.subject_objects(OWL.equivalentClass):
            self.parents[a].add(b)
            self.parents[b].add(a)
        self._anc = {}
        self.assoc = defaultdict(set)
        for c, t in g.subject_objects(BRICK.hasAssociatedTag):
            self.assoc[c].add(t)

    def ancestors(self, c):
        if c not in self._anc:
            seen, stack = set(), [c]
            while stack:
                for p in self.parents.get(stack.pop(), ()):
                    if p not in seen:
                        seen.add(p)
                        stack.append(p)
            self._anc[c] = seen
        return self._anc[c]

    def is_a(self, c, ancestor):
        return c == ancestor or ancestor in self.ancestors(c)


def brick_terms_used(g):
    used = set()
    for s, p, o in g:
        for t in (s, p, o):
            if isinstance(t, URIRef) and (str(t).startswith(str(BRICK)) or str(t).startswith(str(TAG))):
                used.add(t)
    return used


def check_brick_terms(name, g, brick, models=False):
    for t in sorted(brick_terms_used(g)):
        if str(t).startswith(str(TAG)):
            if t not in brick.tags:
                fail(f"{name}: {t} is not a Brick 1.4 tag")
        elif t not in brick.terms:
            fail(f"{name}: {t} does not exist in Brick 1.4")
    if models:
        for c in set(g.objects(None, RDF.type)):
            if c in brick.deprecated and str(c)[len(str(BRICK)):] not in ALLOWED_DEPRECATED:
                fail(f"{name}: uses deprecated Brick class {c}")
    for s, o in g.subject_objects(DQ.brickClass):
        if o in brick.deprecated and str(o)[len(str(BRICK)):] not in ALLOWED_DEPRECATED:
            warn(f"{name}: dq:brickClass {o} of {s} is deprecated in Brick 1.4")
        if str(o).startswith(str(BRICK)) and o not in brick.classes:
            fail(f"{name}: dq:brickClass {o} of {s} is not a Brick class")


def check_no_provenance(name, g):
    for p in PROVENANCE:
        if any(True for _ in g.triples((None, p, None))):
            fail(f"{name}: writes {p}, which only the importer may write")


def check_core(core):
    for t in set(core.subjects(RDF.type, OWL.Class)) | set(core.subjects(RDF.type, OWL.ObjectProperty)) | \
            set(core.subjects(RDF.type, OWL.DatatypeProperty)):
        if not str(t).startswith(str(DQ)):
            continue
        if (t, RDFS.label, None) not in core or (t, RDFS.comment, None) not in core:
            fail(f"core: {t} lacks rdfs:label or rdfs:comment")
    if not list(core.subjects(RDF.type, OWL.Ontology)) or not list(core.objects(None, OWL.versionInfo)):
        fail("core: no owl:Ontology header with owl:versionInfo")
    return set(core.subjects())


def check_haystack(hs, brick, core_terms):
    markers = {}
    for m in hs.subjects(RDF.type, DQ.HaystackMarker):
        names = list(hs.objects(m, DQ.tagName))
        if len(names) != 1:
            fail(f"haystack: {m} has {len(names)} dq:tagName")
            continue
        name = str(names[0])
        if name in markers:
            fail(f"haystack: tag name {name!r} used by {markers[name]} and {m}")
        markers[name] = m
        if (m, RDFS.label, None) not in hs:
            fail(f"haystack: {m} has no rdfs:label")
        for t in hs.objects(m, DQ.brickTag):
            if t not in brick.tags:
                fail(f"haystack: {name} → {t}, not a Brick tag")
    for m in hs.subjects(RDF.type, DQ.HaystackEquipKind):
        if (m, RDF.type, DQ.HaystackMarker) not in hs:
            fail(f"haystack: equip kind {m} is not typed dq:HaystackMarker")
        classes = list(hs.objects(m, DQ.brickClass))
        if len(classes) > 1:
            fail(f"haystack: equip kind {m} has {len(classes)} dq:brickClass (one expected)")
        for c in classes:
            if not brick.is_a(c, BRICK.Equipment) and not brick.is_a(c, BRICK.Collection):
                fail(f"haystack: equip kind {m} maps to {c}, not a Brick equipment class")
    aliases = list(hs.subjects(RDF.type, DQ.Alias))
    texts = Counter()
    for a in aliases:
        if (a, DQ.tagName, None) in hs:
            fail(f"haystack: alias {a} must not have dq:tagName (it would become a marker)")
        txt = list(hs.objects(a, DQ.aliasText))
        if len(txt) != 1:
            fail(f"haystack: alias {a} has {len(txt)} dq:aliasText")
        else:
            texts[str(txt[0]).lower()] += 1
        spelled = list(hs.objects(a, DQ.spelledOut))
        if len(spelled) != 1 or str(spelled[0]) != str(spelled[0]).lower():
            fail(f"haystack: alias {a} needs one lower-case dq:spelledOut")
        fors = list(hs.objects(a, DQ.aliasFor))
        if not fors:
            fail(f"haystack: alias {a} has no dq:aliasFor")
        for f in fors:
            if (f, RDF.type, DQ.HaystackMarker) not in hs:
                fail(f"haystack: alias {a} → {f}, not a marker")
        n_class = len(list(hs.objects(a, DQ.brickClass)))
        if n_class > 1 or (n_class == 0 and not list(hs.objects(a, DQ.brickSubstance))):
            fail(f"haystack: alias {a} needs one dq:brickClass (or a dq:brickSubstance for a medium)")
        for sub in hs.objects(a, DQ.brickSubstance):
            if (sub, RDF.type, BRICK.Substance) not in brick.g:
                fail(f"haystack: alias {a} substance {sub} is not a Brick substance")
    for t, n in texts.items():
        if n > 1:
            fail(f"haystack: alias text {t!r} defined {n} times")
    for p in set(hs.predicates()):
        if str(p).startswith(str(DQ)) and p not in core_terms:
            fail(f"haystack: uses {p}, not declared in the core vocabulary")
    return markers, len(aliases)


def check_yorkland(yk, brick, hs_markers_iris, tag_names, core_terms):
    if (None, OWL.versionInfo, Literal("1.0")) not in yk:
        fail("yorkland: owl:versionInfo \"1.0\" missing")
    if not list(yk.objects(None, OWL.versionIRI)):
        fail("yorkland: owl:versionIRI missing")
    declared = set(yk.subjects(RDF.type, OWL.ObjectProperty)) | set(yk.subjects(RDF.type, OWL.DatatypeProperty)) | \
        set(yk.subjects(RDF.type, OWL.Class))
    for t in declared:
        if (t, RDFS.label, None) not in yk or (t, RDFS.comment, None) not in yk:
            fail(f"yorkland: {t} lacks label or comment")
    for p in set(yk.predicates()):
        if str(p).startswith(str(YK)) and p not in declared:
            fail(f"yorkland: property {p} is not declared")
    products = {}
    kinds = set()
    for p in yk.subjects(RDF.type, YK.Product):
        model = list(yk.objects(p, YK.modelNumber))
        for prop in (RDFS.label, YK.modelNumber, YK.productLine, RDFS.comment):
            if len(list(yk.objects(p, prop))) != 1:
                fail(f"yorkland: {p} needs exactly one {prop}")
        maps = list(yk.objects(p, YK.mapping))
        if len(maps) != 1 or isinstance(maps[0], BNode):
            fail(f"yorkland: {p} needs exactly one yk:mapping IRI")
            continue
        m = maps[0]
        if (m, RDF.type, YK.OntologyMapping) not in yk:
            fail(f"yorkland: {m} is not a yk:OntologyMapping")
        for prop in (YK.haystackKind, YK.haystackTags, YK.brickClass, YK.sourceUrl, YK.extractionDate, YK.confidence):
            if len(list(yk.objects(m, prop))) != 1:
                fail(f"yorkland: {m} needs exactly one {prop}")
        for k in yk.objects(m, YK.haystackKind):
            if k not in hs_markers_iris:
                fail(f"yorkland: {m} haystackKind {k} is not a Haystack marker")
            kinds.add(k)
        for tags in yk.objects(m, YK.haystackTags):
            for w in str(tags).split():
                if w not in tag_names:
                    fail(f"yorkland: {m} tag {w!r} is not a Haystack marker")
        for c in yk.objects(m, YK.brickClass):
            if c not in brick.classes or c in brick.deprecated:
                fail(f"yorkland: {m} brickClass {c} missing or deprecated in Brick 1.4")
        for u in yk.objects(m, YK.sourceUrl):
            if not str(u).startswith("https://www.yorkland-controls.example/"):
                fail(f"yorkland: {m} sourceUrl {u} is not on the Yorkland site")
        for c in yk.objects(m, YK.confidence):
            if not (0 <= float(c) <= 1) or c.datatype != URIRef("http://www.w3.org/2001/XMLSchema#decimal"):
                fail(f"yorkland: {m} confidence {c} must be an xsd:decimal in [0, 1]")
        for d in yk.objects(m, YK.extractionDate):
            if d.datatype != URIRef("http://www.w3.org/2001/XMLSchema#date"):
                fail(f"yorkland: {m} extractionDate must be xsd:date")
        products[p] = str(model[0]) if model else "?"
    if len(products) < 14:
        fail(f"yorkland: {len(products)} products, at least 14 expected")
    if len(kinds) < 7:
        fail(f"yorkland: products span {len(kinds)} Haystack kinds, at least 7 expected")
    return products


def check_model(name, g, brick, hs_markers_iris, products, unique_labels=True):
    """The validator's rules plus the project's own."""
    types = defaultdict(set)
    for s, c in g.subject_objects(RDF.type):
        types[s].add(c)

    def is_a(node, local):
        return any(brick.is_a(c, BRICK[local]) for c in types.get(node, ()))

    for s, ts in types.items():
        for c in ts:
            if str(c).startswith(str(BRICK)) and c not in brick.classes:
                fail(f"{name}: {s} typed {c}, not a Brick class")
    for s, o in g.subject_objects(BRICK.hasPoint):
        if not is_a(o, "Point"):
            fail(f"{name}: hasPoint object {o} is not a Point")
        if not (is_a(s, "Equipment") or is_a(s, "Location") or is_a(s, "Collection")):
            fail(f"{name}: hasPoint subject {s} is not equipment/location/collection")
    for s, o in g.subject_objects(BRICK.feeds):
        for n in (s, o):
            if not (is_a(n, "Equipment") or is_a(n, "Location") or is_a(n, "Collection")):
                fail(f"{name}: feeds endpoint {n} is not equipment/location/collection")
    for s, o in g.subject_objects(DQ.hasHaystackTag):
        if o not in hs_markers_iris:
            fail(f"{name}: {s} has Haystack tag {o}, not a marker of haystack.ttl")
    for s, o in g.subject_objects(DQ.product):
        if o not in products:
            fail(f"{name}: {s} has product {o}, not a Yorkland product")
    for s, u in g.subject_objects(BRICK.hasUnit):
        if not str(u).startswith(UNIT) or str(u)[len(UNIT):] not in KNOWN_UNITS:
            fail(f"{name}: {s} has unit {u}, not one of the checked QUDT units")
    for s in types:
        if isinstance(s, URIRef) and not list(g.objects(s, RDFS.label)):
            fail(f"{name}: {s} has no rdfs:label")
    if unique_labels:
        seen = {}
        for s, l in g.subject_objects(RDFS.label):
            key = " ".join(str(l).split()).lower()
            if key in seen and seen[key] != s:
                fail(f"{name}: label {str(l)!r} on {seen[key]} and {s}")
            seen[key] = s
    return types, is_a


def check_campus(g, brick, hs_markers_iris, products, hs):
    name = "campus"
    types, is_a = check_model(name, g, brick, hs_markers_iris, products)
    vavs = [s for s in types if is_a(s, "Variable_Air_Volume_Box")]
    reheat = [s for s in vavs if is_a(s, "Variable_Air_Volume_Box_With_Reheat")]
    ahus = [s for s in types if is_a(s, "Air_Handling_Unit")]
    points = [s for s in types if is_a(s, "Point")]
    equipment = [s for s in types if is_a(s, "Equipment")]
    if len(vavs) < 36:
        fail(f"campus: {len(vavs)} VAVs, at least 36 expected")
    if len(ahus) != 3:
        fail(f"campus: {len(ahus)} AHUs, 3 expected")
    if len(points) < 350:
        fail(f"campus: {len(points)} points, at least 350 expected")
    label = {s: str(l) for s, l in g.subject_objects(RDFS.label)}
    by_label = {v: k for k, v in label.items()}
    for v in vavs:
        feeders = [s for s in g.subjects(BRICK.feeds, v)]
        ahu_feeders = [s for s in feeders if s in ahus]
        # besides its AHU, a VAV may be fed by that AHU's own parts (the supply fan)
        if len(ahu_feeders) != 1 or any(f not in ahu_feeders and (ahu_feeders[0], BRICK.hasPart, f) not in g
                                        for f in feeders):
            fail(f"campus: {label.get(v)} is fed by {[label.get(f) for f in feeders]}, expected one AHU")
        zones = [o for o in g.objects(v, BRICK.feeds)]
        if len(zones) != 1 or not is_a(zones[0], "HVAC_Zone"):
            fail(f"campus: {label.get(v)} feeds {zones}, expected one HVAC zone")
        else:
            rooms = [r for r in g.objects(zones[0], BRICK.hasPart) if is_a(r, "Room")]
            if len(rooms) != 1:
                fail(f"campus: zone of {label.get(v)} has {len(rooms)} rooms")
        if not list(g.objects(v, DQ.product)):
            fail(f"campus: {label.get(v)} has no dq:product")
        if not list(g.objects(v, BRICK.hasLocation)):
            fail(f"campus: {label.get(v)} has no location")
    for p in points:
        owners = list(g.subjects(BRICK.hasPoint, p))
        if len(owners) != 1:
            fail(f"campus: point {label.get(p)} has {len(owners)} owners")
        elif not label[p].startswith(label[owners[0]] + " "):
            fail(f"campus: point label {label[p]!r} does not start with its equipment's {label[owners[0]]!r}")
    for e in equipment + [s for s in types if is_a(s, "Location") or is_a(s, "Collection")] + points:
        if not list(g.objects(e, DQ.hasHaystackTag)):
            fail(f"campus: {label.get(e, e)} has no Haystack tags")
    for kind in ("Chiller", "Boiler", "Pump", "Cooling_Tower", "Air_Handling_Unit", "Variable_Air_Volume_Box"):
        for e in (s for s in types if is_a(s, kind)):
            if not list(g.objects(e, DQ.product)):
                fail(f"campus: {label.get(e)} ({kind}) has no dq:product")
    # brief: labels people type must exist
    for must in ("AHU-1", "AHU-2", "AHU-3", "VAV-2-14", "VAV-3-02", "CH-1", "CH-2", "B-1", "B-2", "CHWP-1", "CHWP-2",
                 "HWP-1", "HWP-2", "CWP-1", "CT-1", "VAV-2-14 ZNT", "VAV-2-14 DAT", "AHU-1 SAT", "AHU-1 SAT-SP",
                 "AHU-1 SF", "AHU-1 CC", "AHU-1 HC", "Building A", "Building B", "Northfield Campus"):
        if must not in by_label:
            fail(f"campus: no node labelled {must!r}")
    if "VAV-3-02" in by_label and "AHU-2" in by_label:
        if (by_label["AHU-2"], BRICK.feeds, by_label["VAV-3-02"]) not in g:
            fail("campus: AHU-2 does not feed VAV-3-02")
    # every AHU's coils are fed by the plant pumps
    for a in ahus:
        parts = list(g.objects(a, BRICK.hasPart))
        cc = [p for p in parts if is_a(p, "Cooling_Coil")]
        hc = [p for p in parts if is_a(p, "Heating_Coil")]
        if not cc or not any(is_a(s, "Chilled_Water_Pump") for s in g.subjects(BRICK.feeds, cc[0])):
            fail(f"campus: {label[a]} cooling coil not fed by a CHW pump")
        if not hc or not any(is_a(s, "Hot_Water_Pump") for s in g.subjects(BRICK.feeds, hc[0])):
            fail(f"campus: {label[a]} heating coil not fed by a HW pump")
    for v in reheat:
        coils = [p for p in g.objects(v, BRICK.hasPart) if is_a(p, "Hot_Water_Coil")]
        if not coils or not any(is_a(s, "Hot_Water_Pump") for s in g.subjects(BRICK.feeds, coils[0])):
            fail(f"campus: reheat VAV {label[v]} has no reheat coil fed by a HW pump")
    if list(g.triples((None, BRICK.isFedBy, None))):
        fail("campus: uses brick:isFedBy; only brick:feeds is written")
    # feeds must be acyclic
    succ = defaultdict(list)
    for s, o in g.subject_objects(BRICK.feeds):
        succ[s].append(o)
    state = {}

    def dfs(n, path):
        state[n] = 1
        for m in succ.get(n, ()):
            if state.get(m) == 1:
                fail(f"campus: feeds cycle through {label.get(m, m)}")
            elif m not in state:
                dfs(m, path)
        state[n] = 2
    for n in list(succ):
        if n not in state:
            dfs(n, [])
    return {
        "vavs": len(vavs), "reheat_vavs": len(reheat), "cooling_only_vavs": len(vavs) - len(reheat),
        "ahus": len(ahus), "points": len(points), "equipment": len(equipment),
        "locations": len([s for s in types if is_a(s, "Location")]),
        "triples": len(g),
    }, types


def inference_agreement(g, types, brick, hs):
    """Compare each campus node's class with what tag-set inference (the
    algorithm of src/ontology.rs: Haystack markers -> dq:brickTag -> the Brick
    class whose whole brick:hasAssociatedTag set is supplied, most tags wins;
    equipment kinds restrict the candidates of non-point records) makes of its
    Haystack tags. Deprecated classes are only a fallback."""
    tags_of = defaultdict(list)
    kind_class = {}
    name_of = {}
    for m, n in hs.subject_objects(DQ.tagName):
        name_of[m] = str(n)
        tags_of[str(n)] = list(hs.objects(m, DQ.brickTag))
        if (m, RDF.type, DQ.HaystackEquipKind) in hs:
            for c in hs.objects(m, DQ.brickClass):
                kind_class[str(n)] = c
    live = [(c, t) for c, t in brick.assoc.items() if c not in brick.deprecated and str(c).startswith(str(BRICK))]
    dead = [(c, t) for c, t in brick.assoc.items() if c in brick.deprecated and str(c).startswith(str(BRICK))]

    def infer(names):
        tags, kinds = set(), []
        for n in names:
            tags |= set(tags_of.get(n, ()))
            if "point" not in names and n in kind_class:
                kinds.append(kind_class[n])
        for candidates in (live, dead):
            best = None
            for c, t in candidates:
                if kinds and not any(brick.is_a(c, k) for k in kinds):
                    continue
                if t <= tags:
                    key = (len(t), len(brick.ancestors(c)), [-ord(ch) for ch in str(c)])
                    if best is None or key > best[0]:
                        best = (key, c)
            if best:
                return best[1]
        return kinds[0] if kinds else None

    agree = total = 0
    mismatches = []
    for s, ts in types.items():
        names = [name_of[m] for m in g.objects(s, DQ.hasHaystackTag)]
        got = infer(names)
        total += 1
        declared = sorted(ts)[0]
        if got and any(got == d or brick.is_a(d, got) for d in ts):
            agree += 1  # the same class, an equivalent, or a less specific superclass
        else:
            mismatches.append((str(g.value(s, RDFS.label)), str(declared)[len(str(BRICK)):],
                               str(got)[len(str(BRICK)):] if got else None))
    return agree, total, mismatches


def check_fixtures(brick, hs_iris, products):
    small = os.path.join(ROOT, "tests/fixtures/brick/small_building.ttl")
    if os.path.exists(small):
        g = parse(small)
        check_brick_terms("small_building", g, brick, models=True)
        check_no_provenance("small_building", g)
        check_model("small_building", g, brick, hs_iris, products)
    broken = os.path.join(ROOT, "tests/fixtures/brick/broken.ttl")
    expected = os.path.join(ROOT, "tests/fixtures/brick/broken.expected.json")
    if os.path.exists(broken):
        g = parse(broken)
        check_no_provenance("broken", g)
        exp = json.load(open(expected)) if os.path.exists(expected) else []
        got = set()
        types = defaultdict(set)
        for s, c in g.subject_objects(RDF.type):
            types[s].add(c)
        for s, ts in types.items():
            for c in ts:
                if str(c).startswith(str(BRICK)) and c not in brick.classes:
                    got.add(("unknown_class", str(s)))

        def known(n):
            return all(c in brick.classes for c in types[n])

        def is_a(n, local):
            return any(brick.is_a(c, BRICK[local]) for c in types[n])
        for p, point in ((BRICK.hasPoint, True), (BRICK.isPointOf, True), (BRICK.feeds, False), (BRICK.isFedBy, False)):
            for s, o in g.subject_objects(p):
                frm, to = (o, s) if str(p).split("#")[1].startswith("is") else (s, o)
                for n, allowed in ((frm, ("Equipment", "Location", "Collection")),
                                   (to, ("Point",) if point else ("Equipment", "Location", "Collection"))):
                    if not types[n]:
                        got.add(("untyped_node", str(n)))
                    elif known(n) and not any(is_a(n, a) for a in allowed):
                        got.add(("has_point_object_not_point" if allowed == ("Point",) else "feeds_endpoint_invalid", str(n)))
        want = {(e["rule"], e["node"]) for e in exp}
        if got != want:
            fail(f"broken.expected.json disagrees with the rules: missing {sorted(got - want)}, extra {sorted(want - got)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cache = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
    default_brick = os.path.join(os.environ.get("DAEMONIQ_ASSETS", os.path.join(cache, "daemoniq/assets")),
                                 "brick/1.4/Brick.ttl")
    ap.add_argument("--brick", default=default_brick, help="Brick 1.4 Turtle (default: the asset cache)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list inference disagreements")
    args = ap.parse_args()
    if not os.path.isfile(args.brick):
        sys.exit(f"check_ontology: {args.brick} is missing; run `bash scripts/setup.sh`")
    brick = Brick(args.brick)

    files = sorted(glob.glob(os.path.join(ROOT, "ontology/**/*.ttl"), recursive=True) +
                   glob.glob(os.path.join(ROOT, "graph/**/*.ttl"), recursive=True) +
                   glob.glob(os.path.join(ROOT, "tests/fixtures/**/*.ttl"), recursive=True))
    graphs = {}
    for f in files:
        graphs[rel(f)] = parse(f)
    for d in ("ontology", "graph"):
        for f in glob.glob(os.path.join(ROOT, d, "**/*.json"), recursive=True):
            fail(f"{rel(f)}: .json under {d}/ would be imported as a Haystack grid")

    core = graphs.get("ontology/core/daemoniq.ttl", Graph())
    hs = graphs.get("ontology/haystack/haystack.ttl", Graph())
    yk = graphs.get("ontology/yorkland/yorkland_ext_v1.0.ttl", Graph())
    campus = graphs.get("graph/northfield_campus.ttl", Graph())

    core_terms = check_core(core)
    for n in ("core", "haystack", "yorkland"):
        g = {"core": core, "haystack": hs, "yorkland": yk}[n]
        check_brick_terms(n, g, brick)
        check_no_provenance(n, g)
    markers, n_alias = check_haystack(hs, brick, core_terms)
    if n_alias < 25:
        fail(f"haystack: {n_alias} aliases, at least 25 expected")
    hs_iris = set(markers.values())
    products = check_yorkland(yk, brick, hs_iris, set(markers), core_terms)

    check_brick_terms("campus", campus, brick, models=True)
    check_no_provenance("campus", campus)
    for p in set(campus.predicates()):
        if str(p).startswith(str(DQ)) and p not in core_terms:
            fail(f"campus: uses {p}, not declared in the core vocabulary")
    stats, types = check_campus(campus, brick, hs_iris, products, hs)
    check_fixtures(brick, hs_iris, products)
    agree, total, mism = inference_agreement(campus, types, brick, hs)

    print(f"files parsed: {len(files)}")
    print(f"haystack: {len(markers)} markers, "
          f"{len(set(hs.subjects(RDF.type, DQ.HaystackEquipKind)))} equipment kinds, {n_alias} aliases")
    print(f"yorkland: {len(products)} products")
    print("campus: " + ", ".join(f"{k}={v}" for k, v in stats.items()))
    print(f"campus nodes whose Haystack tags infer their Brick class or a superclass of it: {agree}/{total}")
    if args.verbose:
        for row in sorted(set(mism)):
            print("   ", row)
    for w in warnings:
        print("warning:", w)
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
