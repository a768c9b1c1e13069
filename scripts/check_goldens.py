#!/usr/bin/env python3
"""Checks the golden question sets in golden/*.json.

For every golden file (every golden/*.json except gates.json):
  - validates it against schemas/golden.schema.json (JSON Schema 2020-12);
  - checks that question ids are unique across all files;
  - checks that every must/may graph id is a subject in the campus graph, the
    project ontology (ontology/**/*.ttl) or Brick 1.4, and that must and may do
    not overlap;
  - checks that every cited file exists under the file's files_root, that
    expected_pages name a cited PDF and only page labels that PDF has;
  - for document, conflict and selected_text questions, checks that every
    answer_contains phrase occurs in the cited sources (or the selected text),
    and, for a PDF with expected_pages, on those pages;
  - refuses an answer_contains phrase that occurs in the question itself (same
    normalisation as the eval, on word and number boundaries: "70" does not
    occur in "170"): an answer that only repeats the question would pass it;
  - refuses a question that reads as yes/no (starts with is, are, does, do, can,
    has, have, was, were, will or should) with expect = answer but no
    expect_polarity, and expect_polarity on an abstention;
  - with --require-held-out, requires per file that held-out questions
    (split = held_out) are at least a third of the questions (without it, a
    file below that share is reported: the held-out parts are written and
    scored on the `heldout` branch and land with the answers that pass them);
  - checks golden/gates.json;
and prints a table of questions per category (answer/abstain, tuned/held-out)
and how many meaning ids are shared by two or more questions (a warning, not a
failure, when questions of one meaning expect different outcomes).

Needs rdflib and jsonschema (pip install rdflib jsonschema); pypdf is used for
the PDF checks when installed (pip install pypdf), otherwise they are skipped
with a warning. Brick.ttl comes from scripts/setup.sh ($DAEMONIQ_ASSETS).

    python3 scripts/check_goldens.py [--brick PATH] [--no-external] [-v]

Exits non-zero when a check fails.
"""

import argparse
import glob
import html
import json
import os
import re
import sys
from collections import Counter, defaultdict
from html.parser import HTMLParser

try:
    from rdflib import Graph, URIRef
except ImportError:  # pragma: no cover
    sys.exit("check_goldens: needs rdflib (pip install rdflib)")
try:
    from jsonschema import Draft202012Validator
except ImportError:  # pragma: no cover
    sys.exit("check_goldens: needs jsonschema (pip install jsonschema)")
try:
    import pypdf
except ImportError:  # pragma: no cover
    pypdf = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "schemas", "golden.schema.json")
GATES = os.path.join(ROOT, "golden", "gates.json")
PASSING = os.path.join(ROOT, "golden", "passing.json")
TEXT_CATEGORIES = {"document", "conflict", "selected_text"}
GATE_METRICS = {
    "schema_compliance", "must_abstain_accuracy", "citation_validity", "evidence_recall",
    "file_citation_accuracy", "false_refusal_rate", "answer_contains_accuracy",
    "conflict_accuracy", "page_label_accuracy", "evidence_precision",
    "refusal_type_accuracy", "latency_p95_ms", "entity_f1", "wrong_results",
}

failures = []
warnings = []


def fail(msg):
    failures.append(msg)


def warn(msg):
    warnings.append(msg)


def rel(path):
    return os.path.relpath(path, ROOT)


def default_brick():
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    assets = os.environ.get("DAEMONIQ_ASSETS") or os.path.join(cache, "daemoniq", "assets")
    return os.path.join(assets, "brick", "1.4", "Brick.ttl")


def norm(text):
    """The answer_contains matching rule: case-insensitive, whitespace and '_' runs -> one space."""
    return re.sub(r"[\s_]+", " ", text).strip().lower()


def occurs_bounded(phrase, text):
    """Whether phrase occurs in text after norm(), not inside a longer word or number.

    The characters around the match must not be letters or digits, and a number
    must not continue across a decimal point: "70" is not in "170", "5" is not
    in "1.5", "vav" is not in "vavs", but "vav-2-14" contains "2-14" and "vav".
    """
    p, t = norm(phrase), norm(text)
    if not p:
        return False
    pat = r"(?<![a-z0-9])(?<![0-9]\.)" + re.escape(p) + r"(?![a-z0-9])(?!\.[0-9])"
    return re.search(pat, t) is not None


YES_NO = re.compile(r"^\s*(is|are|does|do|can|has|have|was|were|will|should)\b", re.IGNORECASE)
HELD_OUT_MIN = 1 / 3


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1
        self.parts.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


_pdf_cache = {}


def pdf_pages(path):
    """{page_label: text} of a PDF, or None without pypdf."""
    if pypdf is None:
        return None
    if path not in _pdf_cache:
        reader = pypdf.PdfReader(path)
        labels = list(reader.page_labels)
        _pdf_cache[path] = {labels[i]: (p.extract_text() or "") for i, p in enumerate(reader.pages)}
    return _pdf_cache[path]


def file_text(path):
    """Plain text of a cited file, or None when it cannot be read here."""
    if path.lower().endswith(".pdf"):
        pages = pdf_pages(path)
        return None if pages is None else "\n".join(pages.values())
    with open(path, encoding="utf-8", errors="replace") as f:
        data = f.read()
    if path.lower().endswith((".html", ".htm")):
        p = _Text()
        p.feed(data)
        return html.unescape("".join(p.parts))
    return data


def load_graph(brick_path, verbose):
    g = Graph()
    sources = [os.path.join(ROOT, "graph", "northfield_campus.ttl")]
    sources += sorted(glob.glob(os.path.join(ROOT, "ontology", "**", "*.ttl"), recursive=True))
    if os.path.exists(brick_path):
        sources.append(brick_path)
    else:
        fail(f"Brick 1.4 not found at {brick_path} (run scripts/setup.sh or pass --brick)")
    for s in sources:
        if verbose:
            print(f"loading {s}")
        g.parse(s, format="turtle")
    return set(s for s in g.subjects() if isinstance(s, URIRef))


def check_gates():
    try:
        with open(GATES, encoding="utf-8") as f:
            gates = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{rel(GATES)}: {e}")
        return
    if gates.get("version") != 1:
        fail(f"{rel(GATES)}: version must be 1")
    for gf in gates.get("golden_files", []):
        if not os.path.exists(os.path.join(ROOT, gf)):
            fail(f"{rel(GATES)}: golden file {gf} does not exist")
    seen = set()
    for gate in gates.get("gates", []):
        m = gate.get("metric")
        where = f"{rel(GATES)}: gate {m}"
        if m not in GATE_METRICS:
            fail(f"{where}: unknown metric")
        if m in seen:
            fail(f"{where}: listed twice")
        seen.add(m)
        if gate.get("op") not in (">=", "<="):
            fail(f"{where}: op must be >= or <=")
        if not isinstance(gate.get("threshold"), (int, float)):
            fail(f"{where}: threshold must be a number")
        if not isinstance(gate.get("enforced"), bool):
            fail(f"{where}: enforced must be true or false")
        if not gate.get("why"):
            fail(f"{where}: says nothing about why")
    required = {"schema_compliance": 1.0, "must_abstain_accuracy": 1.0, "evidence_recall": 0.9}
    by_metric = {g.get("metric"): g for g in gates.get("gates", [])}
    for m, t in required.items():
        g = by_metric.get(m)
        if not g or not g.get("enforced") or g.get("op") != ">=" or g.get("threshold", 0) < t:
            fail(f"{rel(GATES)}: {m} must be an enforced gate >= {t}")


def check_question(path, root_dir, q, ids, known, counts):
    qid = q["id"]
    where = f"{rel(path)}: {qid}"
    if qid in ids:
        fail(f"{where}: id also used in {ids[qid]}")
    ids[qid] = rel(path)
    counts[q["category"]][q["expect"]] += 1
    counts[q["category"]][q.get("split", "tuned")] += 1

    for p in q.get("answer_contains", []):
        if occurs_bounded(p, q["question"]):
            fail(f"{where}: answer_contains {p!r} occurs in the question, so an answer that only "
                 "repeats the question passes it; expect what the answer must add (the node that "
                 "is the answer, the number, the class) or drop the phrase")
    if "expect_polarity" in q and q["expect"] != "answer":
        fail(f"{where}: expect_polarity on an abstention (an abstention answers neither yes nor no)")
    elif q["expect"] == "answer" and "expect_polarity" not in q and YES_NO.match(q["question"]):
        fail(f"{where}: reads as a yes/no question ({YES_NO.match(q['question']).group(1)!r} ...) "
             "but has no expect_polarity; say which answer the graph or documents give")

    must, may = q["must_include_graph_ids"], q["may_include_graph_ids"]
    for iri in set(must) & set(may):
        fail(f"{where}: {iri} is in both must_include_graph_ids and may_include_graph_ids")
    if known is not None:
        for iri in must + may:
            if URIRef(iri) not in known:
                fail(f"{where}: graph id does not resolve in campus, ontology or Brick: {iri}")

    if root_dir is None:  # files_root absent: reported once per file
        return
    cited = list(q["must_cite_files"])
    for grp in q.get("must_cite_any_of", []):
        cited += grp
    for f in cited:
        if not os.path.isfile(os.path.join(root_dir, f)):
            fail(f"{where}: cited file does not exist: {f} (under {rel(root_dir)})")

    sources = {}
    for f in cited:
        full = os.path.join(root_dir, f)
        if os.path.isfile(full):
            t = file_text(full)
            if t is None:
                warn(f"{where}: cannot read {f} without pypdf; text checks skipped for it")
            else:
                sources[f] = norm(t)

    for f, labels in q.get("expected_pages", {}).items():
        if f not in cited:
            fail(f"{where}: expected_pages names {f}, which the question does not cite")
            continue
        if not f.lower().endswith(".pdf"):
            fail(f"{where}: expected_pages names {f}, which is not a PDF")
            continue
        full = os.path.join(root_dir, f)
        pages = pdf_pages(full) if os.path.isfile(full) else None
        if pages is None:
            continue
        for lab in labels:
            if lab not in pages:
                fail(f"{where}: {f} has no page labelled {lab!r} (labels {', '.join(pages)})")
        on_pages = norm(" ".join(pages.get(lab, "") for lab in labels))
        missing = [p for p in q.get("answer_contains", []) if norm(p) not in on_pages]
        if missing:
            fail(f"{where}: {missing} not found on {f} pages {labels}")

    phrases = q.get("answer_contains", [])
    if q["expect"] == "answer" and q["category"] in TEXT_CATEGORIES and phrases:
        if q.get("selected_text"):
            text = norm(q["selected_text"])
            missing = [p for p in phrases if norm(p) not in text]
            if missing:
                fail(f"{where}: answer_contains {missing} not in the selected text")
        elif q["category"] != "conflict" and sources:
            # Found in a must-cite file, or in every readable file of some any-of group
            # (any member of a group may be the one the answer cites).
            for p in phrases:
                n = norm(p)
                if any(n in sources[f] for f in q["must_cite_files"] if f in sources):
                    continue
                groups = [[f for f in grp if f in sources] for grp in q.get("must_cite_any_of", [])]
                if any(grp and all(n in sources[f] for f in grp) for grp in groups):
                    continue
                fail(f"{where}: answer_contains {p!r} not found in the cited files "
                     "(for a must_cite_any_of group: in every file of the group)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--brick", default=default_brick(), help="path to Brick 1.4 Brick.ttl (default: %(default)s)")
    ap.add_argument("--no-external", action="store_true",
                    help="only warn when a files_root outside the repository (../shared/data) is absent")
    ap.add_argument("--require-held-out", action="store_true",
                    help="fail when held-out questions are under a third of a file")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)

    known = load_graph(args.brick, args.verbose)
    files = sorted(p for p in glob.glob(os.path.join(ROOT, "golden", "*.json")) if os.path.abspath(p) not in (GATES, PASSING))
    if not files:
        fail("no golden files in golden/")
    ids = {}
    per_file = {}
    meanings = defaultdict(list)
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except ValueError as e:
            fail(f"{rel(path)}: not JSON: {e}")
            continue
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        for e in errors:
            loc = "/".join(str(x) for x in e.absolute_path) or "(top)"
            fail(f"{rel(path)}: schema: {loc}: {e.message}")
        if errors:
            continue
        counts = defaultdict(Counter)
        root = data.get("files_root", ".")
        root_dir = os.path.normpath(os.path.join(ROOT, root))
        if not os.path.isdir(root_dir):
            inside = root_dir == ROOT or root_dir.startswith(ROOT + os.sep)
            report = warn if (args.no_external and not inside) else fail
            report(f"{rel(path)}: files_root {root} ({root_dir}) does not exist; cited files not checked")
            root_dir = None
        if data.get("models"):
            # A set over named building models (golden/building_models.json): its graph ids
            # live in those models and its citations are relative to each model's root, so
            # scripts/golden_graph.py checks it (and runs its expected SPARQL); `daemoniq
            # eval` computes each expected result on the model's own store. Here: the
            # schema, id uniqueness, the yes/no rule and the counts.
            print(f"note: {rel(path)} asks over building models; its graph ids, files and "
                  "queries are checked by scripts/golden_graph.py")
            for q in data["questions"]:
                qid = q["id"]
                if qid in ids:
                    fail(f"{rel(path)}: {qid}: id also used in {ids[qid]}")
                ids[qid] = rel(path)
                counts[q["category"]][q["expect"]] += 1
                counts[q["category"]][q.get("split", "tuned")] += 1
                if q["expect"] == "answer" and not q.get("expected"):
                    fail(f"{rel(path)}: {qid}: an answer question over a model needs expected.sparql")
        else:
            for q in data["questions"]:
                check_question(path, root_dir, q, ids, known, counts)
                if q.get("meaning"):
                    meanings[q["meaning"]].append(q)
        # Every file, the model-based one too, keeps a third held out.
        n_all = len(data["questions"])
        n_held = sum(1 for q in data["questions"] if q.get("split", "tuned") == "held_out")
        if n_all and n_held < HELD_OUT_MIN * n_all:
            say = fail if args.require_held_out else warn
            say(f"{rel(path)}: {n_held} of {n_all} questions are held out; at least a third "
                f"({-(-n_all // 3)}) must be (split = held_out)")
        per_file[rel(path)] = counts
    check_gates()

    cats = json.load(open(SCHEMA))["$defs"]["question"]["properties"]["category"]["enum"]
    total = defaultdict(Counter)
    for counts in per_file.values():
        for c, n in counts.items():
            total[c].update(n)
    for name, counts in list(per_file.items()) + [("all golden files", total)]:
        print(f"\n{name}")
        print(f"  {'category':<18}{'answer':>8}{'abstain':>9}{'total':>7}{'tuned':>8}{'held-out':>10}")
        a_sum = b_sum = t_sum = h_sum = 0
        for c in cats:
            a, b = counts[c]["answer"], counts[c]["abstain"]
            t, h = counts[c]["tuned"], counts[c]["held_out"]
            if a or b:
                print(f"  {c:<18}{a:>8}{b:>9}{a + b:>7}{t:>8}{h:>10}")
            a_sum, b_sum, t_sum, h_sum = a_sum + a, b_sum + b, t_sum + t, h_sum + h
        print(f"  {'total':<18}{a_sum:>8}{b_sum:>9}{a_sum + b_sum:>7}{t_sum:>8}{h_sum:>10}")

    shared = {m: qs for m, qs in meanings.items() if len(qs) >= 2}
    for m, qs in shared.items():
        if len({(q["expect"], q.get("expect_polarity")) for q in qs}) > 1:
            warn(f"meaning {m}: {', '.join(q['id'] for q in qs)} ask the same thing but expect "
                 "different outcomes (expect / expect_polarity)")
    across = [m for m, qs in shared.items() if len({q.get("split", "tuned") for q in qs}) == 2]
    print(f"\nmeaning ids: {len(meanings)} ({sum(len(q) for q in meanings.values())} questions); "
          f"{len(shared)} shared by 2 or more questions ({sum(len(q) for q in shared.values())} questions, "
          f"{len(across)} of them across tuned and held-out), {len(meanings) - len(shared)} used once")

    # The ratchet's list (scripts/ratchet.py): every id is a question of its set.
    try:
        with open(PASSING, encoding="utf-8") as f:
            passing = json.load(f)
        for name, listed in passing["sets"].items():
            for qid in listed:
                if qid not in ids or os.path.splitext(os.path.basename(ids[qid]))[0] != name:
                    fail(f"golden/passing.json: {qid} is not a question of {name}")
    except (OSError, ValueError, KeyError) as e:
        fail(f"golden/passing.json: unreadable: {e}")

    for w in warnings:
        print(f"warning: {w}")
    for f_ in failures:
        print(f"FAIL: {f_}")
    if failures:
        print(f"\ncheck_goldens: {len(failures)} failure(s)")
        return 1
    print(f"\ncheck_goldens: OK ({len(ids)} questions in {len(per_file)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
