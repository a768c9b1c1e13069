#!/usr/bin/env python3
"""The per-question ratchet of a golden set that is below its gates.

While a golden set stands below the thresholds of golden/gates.json, CI
cannot gate it on them without staying red; it gates instead on what it
already answers right:

- every question listed for the set in golden/passing.json must pass
  (a question that passed and now fails is a regression and fails CI);
- the contract gates (schema_compliance, citation_validity) must hold on
  every scope, whatever the thresholds of the others;
- the threshold gates that fail are printed as NOT GATED, with their value.

Questions that pass and are not yet listed are printed; `--update` writes
them into golden/passing.json (never removes one: a listed question that
fails must be fixed, or its golden corrected, and the commit says why).

    python3 scripts/ratchet.py REPORT_JSON SET [--update]
"""

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PASSING = ROOT / "golden" / "passing.json"
CONTRACT = ("schema_compliance", "citation_validity")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report")
    ap.add_argument("set")
    ap.add_argument("--update", action="store_true", help="add newly passing questions")
    a = ap.parse_args()
    report = json.loads(pathlib.Path(a.report).read_text())
    passing = json.loads(PASSING.read_text())
    listed = set(passing["sets"].get(a.set, []))
    results = {q["id"]: q["pass"] for q in report["questions"] if q["file"] == a.set}
    if not results:
        print(f"FAILED: the report holds no question of {a.set}", file=sys.stderr)
        return 1
    problems = []
    unknown = sorted(listed - results.keys())
    if unknown:
        problems.append(f"golden/passing.json lists questions the set does not have: {', '.join(unknown)}")
    regressed = sorted(q for q in listed & results.keys() if not results[q])
    if regressed:
        problems.append(f"{len(regressed)} question(s) that passed now fail: {', '.join(regressed)}")
    contract = [g for g in report["failed_gates"] if g["metric"] in CONTRACT]
    for g in contract:
        problems.append(f"contract gate {g['metric']} fails on {g['scope']}: {g['value']}")
    for g in report["failed_gates"]:
        if g["metric"] not in CONTRACT:
            print(f"NOT GATED: {g['metric']} on {g['scope']}: {g['value']} (needs {g['op']} {g['threshold']})")
    new = sorted(q for q, ok in results.items() if ok and q not in listed)
    passed = sum(results.values())
    print(f"{a.set}: {passed}/{len(results)} pass; {len(listed & results.keys()) - len(regressed)}/{len(listed)} listed as passing still pass")
    if new:
        print(f"newly passing (not yet listed in golden/passing.json): {', '.join(new)}")
        if a.update:
            passing["sets"][a.set] = sorted(listed | set(new))
            PASSING.write_text(json.dumps(passing, indent=2) + "\n")
            print(f"golden/passing.json: {len(new)} added to {a.set}")
    if problems:
        print("FAILED: " + "; ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
