#!/usr/bin/env python3
"""Load test of a running DaemonIQ server (loopback only, bounded in time).

    python3 scripts/load.py --base http://127.0.0.1:PORT [--clients 200]
        [--seconds 60] [--key KEY] [--pid SERVER_PID]
    python3 scripts/load.py --base ... --runaway 20 --pid SERVER_PID

The first form runs CLIENTS threads for SECONDS, each sending a mix of
`POST /chat` (graph questions), `POST /sparql` and `GET /api/topology/node`,
and reports per route: requests, statuses, p50 / p99 latency; transport
errors; 5xx other than deliberate 503 sheds (OVERLOADED, QUERY_TIMEOUT);
and the server's RSS before and after (with --pid).

The second form submits RUNAWAY expensive SPARQL queries at once (half of
them shapes the server refuses, half connected queries that run to their
time limit), then times `/health` and a `/chat` question while they run,
and samples the server's CPU until it is idle again.

Standard library only. Refuses any address outside 127.0.0.0/8 and ::1.
"""

import argparse
import http.client
import ipaddress
import json
import os
import random
import socket
import statistics
import sys
import threading
import time
import urllib.parse

QUESTIONS = [
    "what ahu feeds vav-2-14?",
    "which vav boxes does ahu-1 serve",
    "what points does vav-1-03 have",
    "where is vav-2-05",
    "how many vav boxes does ahu-2 serve",
]
SPARQL = [
    "SELECT ?s WHERE { ?s a <https://brickschema.org/schema/Brick#AHU> }",
    "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
    "SELECT ?a ?b WHERE { ?a <https://brickschema.org/schema/Brick#feeds> ?b } LIMIT 50",
]
NODES = ["AHU-1", "AHU-2", "VAV-2-14", "CH-1"]
# Expensive queries: refused shapes, and connected ones that run to the limit.
RUNAWAY = [
    "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
    "SELECT (COUNT(*) AS ?n) WHERE { ?a (<urn:p>|!<urn:p>)* ?b }",
    "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?c ?d ?e . ?e ?f ?g }",
    "SELECT ?b (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?c ?d ?e . ?e ?f ?g } GROUP BY ?b",
]
SHEDS = {"OVERLOADED", "QUERY_TIMEOUT"}


def loopback(base):
    host = urllib.parse.urlsplit(base).hostname or ""
    try:
        addrs = {ai[4][0] for ai in socket.getaddrinfo(host, None)}
    except socket.gaierror:
        return False
    return all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addrs)


class Client:
    def __init__(self, base, key):
        u = urllib.parse.urlsplit(base)
        self.host, self.port = u.hostname, u.port or 80
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.conn = None

    def request(self, method, path, body=None, ctype=None):
        headers = dict(self.headers)
        if ctype:
            headers["Content-Type"] = ctype
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            self.conn.request(method, path, body=body, headers=headers)
            resp = self.conn.getresponse()
            data = resp.read()
            return resp.status, data
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            raise


def one(client, rnd):
    r = rnd.random()
    if r < 0.4:
        body = json.dumps({"query": rnd.choice(QUESTIONS)})
        return "/chat", client.request("POST", "/chat", body, "application/json")
    if r < 0.7:
        q = urllib.parse.quote(rnd.choice(SPARQL))
        return "/sparql", client.request("GET", f"/sparql?query={q}")
    node = urllib.parse.quote(rnd.choice(NODES))
    return "/api/topology/node", client.request("GET", f"/api/topology/node?id={node}")


def rss_kib(pid):
    if not pid:
        return None
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def load(args):
    deadline = time.monotonic() + args.seconds
    lock = threading.Lock()
    lat, statuses, codes = {}, {}, {}
    errors = [0]

    def worker(i):
        rnd = random.Random(i)
        client = Client(args.base, args.key)
        while time.monotonic() < deadline:
            t0 = time.monotonic()
            try:
                route, (status, data) = one(client, rnd)
            except (OSError, http.client.HTTPException):
                with lock:
                    errors[0] += 1
                continue
            ms = (time.monotonic() - t0) * 1000
            code = None
            if status >= 400:
                try:
                    code = json.loads(data).get("code") or json.loads(data)["error"]["code"]
                except (ValueError, KeyError, TypeError, AttributeError):
                    code = "?"
            with lock:
                lat.setdefault(route, []).append(ms)
                statuses.setdefault(route, {}).setdefault(status, 0)
                statuses[route][status] += 1
                if code:
                    codes[code] = codes.get(code, 0) + 1
            if status == 429:
                time.sleep(0.2)

    before = rss_kib(args.pid)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    after = rss_kib(args.pid)
    bad_5xx = sum(
        n
        for route in statuses.values()
        for status, n in route.items()
        if status >= 500
    ) - sum(n for c, n in codes.items() if c in SHEDS)
    print(f"{args.clients} clients, {args.seconds} s")
    for route in sorted(lat):
        xs = lat[route]
        print(
            f"  {route:22} {len(xs):6} requests  p50 {pct(xs, 50):7.0f} ms  "
            f"p99 {pct(xs, 99):7.0f} ms  statuses {dict(sorted(statuses[route].items()))}"
        )
    print(f"  error codes {dict(sorted(codes.items()))}")
    print(f"  transport errors {errors[0]}, 5xx other than 503 sheds {bad_5xx}")
    if before is not None:
        print(f"  server RSS before {before / 1024:.0f} MiB, after {after / 1024:.0f} MiB")
    return 0 if errors[0] == 0 and bad_5xx == 0 else 1


def runaway(args):
    if not args.pid:
        sys.exit("--runaway needs --pid")
    results = []

    def fire(q):
        c = Client(args.base, args.key)
        t0 = time.monotonic()
        try:
            status, data = c.request("GET", "/sparql?query=" + urllib.parse.quote(q))
            code = json.loads(data).get("code") if status >= 400 else "ok"
        except (OSError, http.client.HTTPException, ValueError):
            status, code = 0, "transport"
        results.append((status, code, time.monotonic() - t0))

    start = time.monotonic()
    ticks0 = cpu_ticks(args.pid)
    threads = [
        threading.Thread(target=fire, args=(RUNAWAY[i % len(RUNAWAY)],))
        for i in range(args.runaway)
    ]
    for t in threads:
        t.start()
    time.sleep(0.3)
    c = Client(args.base, args.key)
    t0 = time.monotonic()
    status, _ = c.request("GET", "/health")
    health_ms = (time.monotonic() - t0) * 1000
    t0 = time.monotonic()
    chat_status, _ = c.request(
        "POST", "/chat", json.dumps({"query": QUESTIONS[0]}), "application/json"
    )
    chat_ms = (time.monotonic() - t0) * 1000
    print(f"{args.runaway} expensive SPARQL queries at once")
    print(f"  while they run: /health {status} in {health_ms:.0f} ms, /chat {chat_status} in {chat_ms:.0f} ms")
    # Idle: under 5 % of one core over a 0.5 s window.
    hz = os.sysconf("SC_CLK_TCK")
    idle_at = None
    last = cpu_ticks(args.pid)
    while time.monotonic() - start < 60:
        time.sleep(0.5)
        now = cpu_ticks(args.pid)
        if (now - last) / hz < 0.025 and all(not t.is_alive() for t in threads):
            idle_at = time.monotonic() - start
            break
        last = now
    for t in threads:
        t.join()
    summary = {}
    for status, code, _ in results:
        summary[(status, code)] = summary.get((status, code), 0) + 1
    print(f"  answers {dict(sorted(summary.items()))}")
    print(f"  slowest answer {max(r[2] for r in results):.1f} s")
    print(
        f"  server CPU {(cpu_ticks(args.pid) - ticks0) / hz:.1f} core-s; "
        + (f"idle {idle_at:.1f} s after submission" if idle_at else "NOT idle within 60 s")
    )
    return 0 if idle_at else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", required=True)
    p.add_argument("--clients", type=int, default=200)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--key")
    p.add_argument("--pid", type=int)
    p.add_argument("--runaway", type=int, default=0)
    args = p.parse_args()
    if not loopback(args.base):
        sys.exit(f"load.py: {args.base} is not a loopback address; this script only loads this machine")
    if args.seconds > 300 or args.clients > 500:
        sys.exit("load.py: at most 500 clients for 300 s")
    sys.exit(runaway(args) if args.runaway else load(args))


if __name__ == "__main__":
    main()
