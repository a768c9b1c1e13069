#!/usr/bin/env python3
"""Checks the building-model question set golden/building_models.json.

The set asks graph questions about real building models (Brick Turtle files
and Haystack JSON from ../shared/data) and the demo campus. Each question is
answered over a store that holds only Brick 1.4, ontology/ and the question's
model; its `expected.sparql` is the answer key. This checker:

  - validates the file against schemas/golden.schema.json;
  - checks that question ids are unique (in this file and across golden/*.json),
    that every question names a model of `models`, that each `meaning` has at
    least 2 wordings (and reports how many have 3+), that at least a third of
    the questions are `split: "held_out"`, and that at least 20 questions are
    on models without rdfs:label (chiller_plant, g36_ahu_vav, rice; the
    checker also confirms those files carry no labels);
  - checks the shape of each question: answers have `expected`, abstentions
    have none; boolean questions have `expect_polarity`, others do not;
    answer questions cite the model's files; answer_contains phrases do not
    occur in the question; queries declare full-IRI prefixes and use no SERVICE;
  - EXECUTES every expected.sparql with pyoxigraph over Brick 1.4 + every
    ontology/**/*.ttl + the model's files (all in the default graph), and checks
    that it parses and that the result has the shape of its kind and is not
    empty (a set: >= 1 IRI in the first variable; a count: one numeric value,
    non-zero; a value: >= 1 literal; a grouped_count: >= 1 (group, number) row;
    a boolean: the ASK result equals expect_polarity), unless the notes say the
    expected answer is "genuinely empty" / "genuinely zero";
  - checks that every IRI of must_include_graph_ids / may_include_graph_ids
    occurs in that store.

Haystack JSON models are checked on DaemonIQ's own conversion: with
`--daemoniq PATH` the checker imports each Haystack file with that binary into
a scratch data directory and dumps the source's named graph
(urn:daemoniq:source:<path relative to the root>). Without the binary those
models are SKIPPED with a loud message (and the exit status does not hide it:
the summary says how many questions were not executed).

    /work/pyenv/bin/python scripts/golden_graph.py [--golden golden/building_models.json]
        [--daemoniq /tmp/dq-bin] [--brick PATH] [--keep-dumps DIR] [-v]

Needs pyoxigraph (0.5), jsonschema. Exits non-zero on any failure.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

try:
    import pyoxigraph as ox
except ImportError:  # pragma: no cover
    sys.exit("golden_graph: needs pyoxigraph (pip install pyoxigraph)")
try:
    from jsonschema import Draft202012Validator
except ImportError:  # pragma: no cover
    sys.exit("golden_graph: needs jsonschema (pip install jsonschema)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "schemas", "golden.schema.json")
DEFAULT_GOLDEN = os.path.join(ROOT, "golden", "building_models.json")
GATES = os.path.join(ROOT, "golden", "gates.json")
UNLABELLED_MODELS = ("chiller_plant", "g36_ahu_vav", "rice")
MIN_UNLABELLED = 20
MIN_HELD_OUT_FRACTION = 1 / 3
RDFS_LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
EMPTY_OK = re.compile(r"genuinely (empty|zero)", re.I)
NUMERIC = {
    "http://www.w3.org/2001/XMLSchema#" + t
    for t in ("integer", "decimal", "double", "float", "long", "int", "short", "byte",
              "nonNegativeInteger", "positiveInteger", "unsignedLong", "unsignedInt")
}

failures = []
warnings = []


def fail(msg):
    failures.append(msg)


def warn(msg):
    warnings.append(msg)


def rel(path):
    return os.path.relpath(path, ROOT)


def norm(text):
    """The answer_contains matching rule: case-insensitive, whitespace and '_' runs -> one space."""
    return re.sub(r"[\s_]+", " ", text).strip().lower()


def default_brick():
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    assets = os.environ.get("DAEMONIQ_ASSETS") or os.path.join(cache, "daemoniq", "assets")
    return os.path.join(assets, "brick", "1.4", "Brick.ttl")


def rdf_format(path):
    low = path.lower()
    if low.endswith(".ttl"):
        return ox.RdfFormat.TURTLE
    if low.endswith(".nt"):
        return ox.RdfFormat.N_TRIPLES
    if low.endswith(".nq"):
        return ox.RdfFormat.N_QUADS
    if low.endswith(".trig"):
        return ox.RdfFormat.TRIG
    if low.endswith((".rdf", ".owl", ".xml")):
        return ox.RdfFormat.RDF_XML
    return None


# ---------------------------------------------------------------------------
# Haystack conversion through the DaemonIQ binary
# ---------------------------------------------------------------------------

class Converter:
    """Imports Haystack JSON with `daemoniq import` and dumps the source graph as N-Triples."""

    def __init__(self, binary, keep_dir, verbose):
        self.binary = binary
        self.keep_dir = keep_dir
        self.verbose = verbose
        self.tmp = tempfile.mkdtemp(prefix="golden-graph-")
        self.data_dir = os.path.join(self.tmp, "data")
        self.graph_dir = os.path.join(self.tmp, "empty-graph-dir")
        os.makedirs(self.graph_dir)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run(self, *args):
        cmd = [self.binary, "--data-dir", self.data_dir, "--graph-dir", self.graph_dir,
               "--ontology-dir", os.path.join(ROOT, "ontology"), "--log", "warn", *args]
        if self.verbose:
            print("  $ " + " ".join(cmd))
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()[-2000:]}")
        return p.stdout

    def convert(self, full_path, root_dir):
        """N-Triples of DaemonIQ's graph for one Haystack file."""
        relp = os.path.relpath(full_path, root_dir).replace(os.sep, "/")
        self.run("import", full_path, "--root", root_dir)
        graph = f"urn:daemoniq:source:{relp}"
        out = self.run("sparql", f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}",
                       "--format", "nt")
        if not out.strip():
            graphs = self.run("sparql", "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", "--format", "csv")
            raise RuntimeError(f"graph <{graph}> is empty after import; graphs in the store:\n{graphs}")
        if self.keep_dir:
            os.makedirs(self.keep_dir, exist_ok=True)
            dump = os.path.join(self.keep_dir, os.path.basename(full_path) + ".nt")
            with open(dump, "w", encoding="utf-8") as f:
                f.write(out)
            print(f"  conversion of {relp} written to {dump}")
        return out


# ---------------------------------------------------------------------------
# Stores
# ---------------------------------------------------------------------------

def base_store(brick_path):
    st = ox.Store()
    st.bulk_load(path=brick_path, format=ox.RdfFormat.TURTLE)
    for f in sorted(glob.glob(os.path.join(ROOT, "ontology", "**", "*.ttl"), recursive=True)):
        st.bulk_load(path=f, format=ox.RdfFormat.TURTLE)
    return st


def model_store(brick_path, files, converter):
    """(store, model triple count, has rdfs:label) or raises."""
    st = base_store(brick_path)
    before = len(st)
    model_graph = ox.Store()
    for full, root_dir in files:
        if full.lower().endswith(".json"):
            nt = converter.convert(full, root_dir)
            model_graph.bulk_load(input=nt.encode("utf-8"), format=ox.RdfFormat.N_TRIPLES)
        else:
            fmt = rdf_format(full)
            if fmt is None:
                raise RuntimeError(f"unknown model file type: {full}")
            model_graph.bulk_load(path=full, format=fmt)
    labelled = any(True for _ in model_graph.quads_for_pattern(None, RDFS_LABEL, None))
    st.bulk_extend(ox.Quad(q.subject, q.predicate, q.object) for q in model_graph)
    return st, len(st) - before, labelled, model_graph


def occurs(st, iri):
    node = ox.NamedNode(iri)
    for _ in st.quads_for_pattern(node, None, None):
        return True
    for _ in st.quads_for_pattern(None, None, node):
        return True
    for _ in st.quads_for_pattern(None, node, None):
        return True
    return False


# ---------------------------------------------------------------------------
# Question checks
# ---------------------------------------------------------------------------

PREFIX_RE = re.compile(r"PREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>", re.I)
PNAME_RE = re.compile(r"(?<![<\w\"'#/:.-])([A-Za-z][\w-]*):(?=[A-Za-z_0-9])")


def check_query_text(where, sparql):
    if re.search(r"\bSERVICE\b", sparql, re.I):
        fail(f"{where}: SERVICE is not allowed")
    declared = {}
    for p, iri in PREFIX_RE.findall(sparql):
        if not re.match(r"^(https?|urn):", iri):
            fail(f"{where}: PREFIX {p}: is not a full IRI: <{iri}>")
        declared[p] = iri
    body = PREFIX_RE.sub(" ", sparql)
    body = re.sub(r"<[^<>\s]*>", " ", body)          # IRIs
    body = re.sub(r"\"(?:[^\"\\]|\\.)*\"", " ", body)  # string literals
    for p in set(PNAME_RE.findall(body)):
        if p not in declared and p.lower() not in ("http", "https", "urn"):
            fail(f"{where}: prefix {p}: used without a PREFIX declaration")


def term_kind(t):
    if isinstance(t, ox.NamedNode):
        return "iri"
    if isinstance(t, ox.Literal):
        return "literal"
    if isinstance(t, ox.BlankNode):
        return "bnode"
    return "none" if t is None else "other"


def is_number(t):
    if not isinstance(t, ox.Literal):
        return False
    if t.datatype.value in NUMERIC:
        try:
            float(t.value)
            return True
        except ValueError:
            return False
    return False


def run_expected(where, st, q, results):
    """Runs expected.sparql and checks the shape of its result for the kind."""
    exp = q["expected"]
    kind, sparql = exp["kind"], exp["sparql"]
    check_query_text(where, sparql)
    empty_ok = bool(EMPTY_OK.search(q.get("notes", "")))
    try:
        res = st.query(sparql)
    except (SyntaxError, ValueError, OSError) as e:
        fail(f"{where}: expected.sparql does not run: {e}")
        return
    if kind == "boolean":
        if not isinstance(res, ox.QueryBoolean) and not isinstance(res, bool):
            fail(f"{where}: kind boolean needs an ASK query")
            return
        value = bool(res)
        pol = q.get("expect_polarity")
        got = "yes" if value else "no"
        results[q["id"]] = got
        if pol != got:
            fail(f"{where}: ASK answers {got}, expect_polarity is {pol}")
        return
    if not isinstance(res, ox.QuerySolutions):
        fail(f"{where}: kind {kind} needs a SELECT query")
        return
    variables = [v.value for v in res.variables]
    rows = [[sol[v] for v in res.variables] for sol in res]
    results[q["id"]] = rows
    if not variables:
        fail(f"{where}: SELECT without variables")
        return
    if kind == "set":
        firsts = [r[0] for r in rows if r[0] is not None]
        bad = [t for t in firsts if term_kind(t) != "iri"]
        if bad:
            fail(f"{where}: kind set: first variable ?{variables[0]} binds non-IRIs, e.g. {bad[0]}")
        if not firsts and not empty_ok:
            fail(f"{where}: kind set: no answer entity (notes do not say the answer is genuinely empty)")
        if firsts and empty_ok:
            warn(f"{where}: notes say genuinely empty but the query returns {len(firsts)} entities")
    elif kind == "count":
        vals = [r[0] for r in rows]
        if len(rows) != 1 or not is_number(vals[0]):
            fail(f"{where}: kind count: needs exactly one row with a number in ?{variables[0]}, got {rows}")
        elif float(vals[0].value) == 0 and not empty_ok:
            fail(f"{where}: kind count: the count is 0 (notes do not say it is genuinely zero)")
    elif kind == "value":
        firsts = [r[0] for r in rows if r[0] is not None]
        bad = [t for t in firsts if term_kind(t) != "literal"]
        if bad:
            fail(f"{where}: kind value: first variable binds non-literals, e.g. {bad[0]}")
        if not firsts and not empty_ok:
            fail(f"{where}: kind value: no value")
    elif kind == "grouped_count":
        if len(variables) < 2:
            fail(f"{where}: kind grouped_count needs SELECT ?group ?n")
            return
        if not rows and not empty_ok:
            fail(f"{where}: kind grouped_count: no groups")
        for r in rows:
            if r[0] is None or not is_number(r[1]):
                fail(f"{where}: kind grouped_count: bad row {r}")
                break
        groups = [r[0] for r in rows]
        if len(groups) != len(set(groups)):
            fail(f"{where}: kind grouped_count: a group occurs twice (missing GROUP BY?)")


def shape_checks(where, q, model, models):
    exp = q.get("expected")
    if q["category"] != "graph_query":
        fail(f"{where}: category must be graph_query in this file")
    if q["expect"] == "answer":
        if not exp:
            fail(f"{where}: an answer question needs expected")
        files = models[model]["files"] if model in models else []
        if not q["must_cite_files"]:
            fail(f"{where}: an answer question must cite its model's file(s)")
        for f in q["must_cite_files"]:
            if f not in files:
                fail(f"{where}: cites {f}, which is not a file of model {model} ({files})")
        if exp and exp["kind"] == "boolean" and "expect_polarity" not in q:
            fail(f"{where}: a boolean question needs expect_polarity")
        if exp and exp["kind"] != "boolean" and "expect_polarity" in q:
            fail(f"{where}: expect_polarity only goes with kind boolean")
    else:
        if exp:
            fail(f"{where}: an abstention has no expected")
        if "expect_polarity" in q:
            fail(f"{where}: an abstention has no expect_polarity")
        if q.get("refusal_type") != "insufficient_grounding":
            warn(f"{where}: abstention refusal_type is {q.get('refusal_type')}")
    qn = norm(q["question"])
    for p in q.get("answer_contains", []):
        if norm(p) in qn:
            fail(f"{where}: answer_contains {p!r} occurs in the question itself")
    must, may = q["must_include_graph_ids"], q["may_include_graph_ids"]
    for iri in set(must) & set(may):
        fail(f"{where}: {iri} is in both must_include_graph_ids and may_include_graph_ids")
    if not q.get("notes"):
        fail(f"{where}: notes are empty (say which triples make the answer true)")
    if not q.get("meaning"):
        fail(f"{where}: no meaning")
    if "split" not in q:
        fail(f"{where}: no split (tuned or held_out)")


def other_golden_ids(golden_path):
    ids = {}
    for p in sorted(glob.glob(os.path.join(ROOT, "golden", "*.json"))):
        if os.path.abspath(p) in (os.path.abspath(golden_path), GATES):
            continue
        try:
            with open(p, encoding="utf-8") as f:
                for q in json.load(f).get("questions", []):
                    ids[q.get("id")] = rel(p)
        except (OSError, ValueError):
            continue
    return ids


def table(title, rows, cols):
    print(f"\n{title}")
    w = max([len(title)] + [len(str(r)) for r in rows]) + 2
    print("  " + f"{'':<{w}}" + "".join(f"{c:>10}" for c in cols) + f"{'total':>8}")
    return w


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--golden", default=DEFAULT_GOLDEN, help="question file (default: %(default)s)")
    ap.add_argument("--daemoniq", help="DaemonIQ binary used to convert Haystack JSON models")
    ap.add_argument("--brick", default=default_brick(), help="Brick 1.4 Brick.ttl (default: %(default)s)")
    ap.add_argument("--keep-dumps", metavar="DIR", help="write each Haystack conversion (N-Triples) there")
    ap.add_argument("--only-model", action="append", help="execute the queries of these models only")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every query result")
    args = ap.parse_args()

    golden = os.path.abspath(args.golden)
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    with open(golden, encoding="utf-8") as f:
        data = json.load(f)
    errors = sorted(Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.absolute_path))
    for e in errors:
        loc = "/".join(str(x) for x in e.absolute_path) or "(top)"
        fail(f"schema: {loc}: {e.message}")
    if errors:
        return report(None)

    models = data.get("models") or {}
    if not models:
        fail("the file declares no models")
    # files_root is relative to the repository root (schemas/golden.schema.json).
    files_root = os.path.normpath(os.path.join(ROOT, data.get("files_root", ".")))
    model_files = {}
    for name, m in models.items():
        root_dir = ROOT if m.get("root") == "repo" else files_root
        paths = []
        for f in m["files"]:
            full = os.path.join(root_dir, f)
            if not os.path.isfile(full):
                fail(f"model {name}: file {f} does not exist under {rel(root_dir) if root_dir.startswith(ROOT) else root_dir}")
            paths.append((full, root_dir))
        model_files[name] = paths

    questions = data["questions"]
    ids = {}
    elsewhere = other_golden_ids(golden)
    by_model = defaultdict(list)
    meanings = defaultdict(list)
    for q in questions:
        qid = q["id"]
        where = qid
        if qid in ids:
            fail(f"{where}: duplicate id")
        ids[qid] = q
        if qid in elsewhere:
            fail(f"{where}: id also used in {elsewhere[qid]}")
        model = q.get("model")
        if model not in models:
            fail(f"{where}: model {model!r} is not one of {sorted(models)}")
        shape_checks(where, q, model, models)
        by_model[model].append(q)
        if q.get("meaning"):
            meanings[q["meaning"]].append(q)

    # meanings: >= 2 wordings each, one model each; most with 3+
    for m, qs in meanings.items():
        if len(qs) < 2:
            fail(f"meaning {m}: only one wording ({qs[0]['id']})")
        if len({q.get('model') for q in qs}) > 1:
            fail(f"meaning {m}: wordings on different models")
        if len({(q['expect'], (q.get('expected') or {}).get('kind'), q.get('expect_polarity')) for q in qs}) > 1:
            fail(f"meaning {m}: wordings expect different kinds of answer")
        sparqls = {(q.get('expected') or {}).get('sparql') for q in qs}
        if len(sparqls) > 1:
            fail(f"meaning {m}: wordings have different expected.sparql")
    three = sum(1 for qs in meanings.values() if len(qs) >= 3)
    if meanings and three * 2 < len(meanings):
        fail(f"only {three} of {len(meanings)} meanings have 3+ wordings (most should)")

    held = sum(1 for q in questions if q.get("split") == "held_out")
    if held < MIN_HELD_OUT_FRACTION * len(questions):
        fail(f"only {held} of {len(questions)} questions are held_out (need >= 1/3)")
    unl = sum(len(by_model.get(m, [])) for m in UNLABELLED_MODELS)
    if unl < MIN_UNLABELLED:
        fail(f"only {unl} questions on the unlabelled models {UNLABELLED_MODELS} (need >= {MIN_UNLABELLED})")

    # execute
    converter = Converter(args.daemoniq, args.keep_dumps, args.verbose) if args.daemoniq else None
    if args.daemoniq and not os.access(args.daemoniq, os.X_OK):
        fail(f"--daemoniq {args.daemoniq} is not an executable file")
        converter = None
    if not os.path.isfile(args.brick):
        fail(f"Brick 1.4 not found at {args.brick} (run scripts/setup.sh or pass --brick)")
        return report(data)
    executed, skipped = Counter(), Counter()
    results = {}
    try:
        for name in models:
            qs = by_model.get(name, [])
            if args.only_model and name not in args.only_model:
                skipped[name] = len(qs)
                continue
            haystack = any(full.lower().endswith(".json") for full, _ in model_files[name])
            if haystack and converter is None:
                print(f"\n!!!! SKIPPED model {name}: Haystack JSON needs DaemonIQ's conversion; "
                      f"pass --daemoniq PATH_TO_BINARY. {len(qs)} questions NOT executed. !!!!")
                warn(f"model {name}: SKIPPED ({len(qs)} questions not executed; no --daemoniq)")
                skipped[name] = len(qs)
                continue
            try:
                st, n_model, labelled, _ = model_store(args.brick, model_files[name], converter)
            except (RuntimeError, OSError, SyntaxError, ValueError) as e:
                fail(f"model {name}: cannot build its store: {e}")
                skipped[name] = len(qs)
                continue
            print(f"model {name}: {n_model} model triples, {len(qs)} questions"
                  + ("" if labelled else ", no rdfs:label"))
            if name in UNLABELLED_MODELS and labelled:
                fail(f"model {name} is counted as unlabelled but carries rdfs:label")
            if n_model == 0:
                fail(f"model {name}: no triples")
            for q in qs:
                where = f"{q['id']} ({name})"
                for iri in q["must_include_graph_ids"] + q["may_include_graph_ids"]:
                    if not occurs(st, iri):
                        fail(f"{where}: graph id does not occur in the model's store: {iri}")
                if q["expect"] == "answer" and q.get("expected"):
                    run_expected(where, st, q, results)
                    executed[name] += 1
                    if args.verbose:
                        print(f"  {q['id']}: {summarize(results.get(q['id']))}")
    finally:
        if converter:
            converter.close()

    # meanings whose wordings share a query share a result; nothing more to compare.
    return report(data, by_model, executed, skipped)


def summarize(res):
    if isinstance(res, str):
        return res
    if res is None:
        return "-"
    out = []
    for r in res[:12]:
        out.append(" | ".join("-" if t is None else (t.value if hasattr(t, "value") else str(t)) for t in r))
    more = f" (+{len(res) - 12} more)" if len(res) > 12 else ""
    return f"{len(res)} rows: " + "; ".join(out) + more


def report(data, by_model=None, executed=None, skipped=None):
    if data and by_model is not None:
        questions = data["questions"]
        kinds = ["set", "count", "boolean", "value", "grouped_count", "abstain"]

        def kind_of(q):
            return "abstain" if q["expect"] == "abstain" else q["expected"]["kind"]

        print(f"\n{'model':<16}" + "".join(f"{k:>15}" for k in kinds)
              + f"{'tuned':>8}{'held_out':>10}{'total':>7}{'executed':>10}")
        tot = Counter()
        for name in list(data["models"]) + sorted(set(by_model) - set(data["models"])):
            qs = by_model.get(name, [])
            c = Counter(kind_of(q) for q in qs)
            s = Counter(q.get("split", "tuned") for q in qs)
            tot.update(c)
            tot.update({"_" + k: v for k, v in s.items()})
            ex = executed.get(name, 0)
            note = " SKIPPED" if skipped.get(name) else ""
            print(f"{name:<16}" + "".join(f"{c[k]:>15}" for k in kinds)
                  + f"{s['tuned']:>8}{s['held_out']:>10}{len(qs):>7}{ex:>10}{note}")
        print(f"{'total':<16}" + "".join(f"{tot[k]:>15}" for k in kinds)
              + f"{tot['_tuned']:>8}{tot['_held_out']:>10}{len(questions):>7}{sum(executed.values()):>10}")
        m = Counter(q.get("meaning") for q in questions)
        print(f"\nmeanings: {len(m)} ({sum(1 for v in m.values() if v >= 3)} with 3+ wordings); "
              f"held_out: {tot['_held_out']}/{len(questions)}; "
              f"on unlabelled models: {sum(len(by_model.get(x, [])) for x in UNLABELLED_MODELS)}; "
              f"abstentions: {tot['abstain']}")
        if skipped and any(skipped.values()):
            print(f"NOT EXECUTED: {sum(skipped.values())} questions of "
                  f"{', '.join(k for k, v in skipped.items() if v)}")
    for w in warnings:
        print(f"warning: {w}")
    for f_ in failures:
        print(f"FAIL: {f_}")
    if failures:
        print(f"\ngolden_graph: {len(failures)} failure(s)")
        return 1
    print("\ngolden_graph: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
