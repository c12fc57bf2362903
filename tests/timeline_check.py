#!/usr/bin/env python3
"""Checks a timeline written by `gstark prove --timeline` against the proof's
`--json` summary (tests/cli_timeline_test.sh; docs/gpu.md, "Reading a
timeline").

usage: timeline_check.py SUMMARY.json TIMELINE.json [--single] [--multi] [--device]

  --single  a single-table proof: check and commit are its own spans
  --multi   a multi-table proof: "main commits", "table chains" and a "chain"
            per table besides the phases
  --device  device tracks are required (a CUDA run)

Exits 1 with the reasons when a property does not hold."""
import json
import sys

TABLE_PHASES = ["commit", "quotient", "ood", "deep", "fri", "queries"]
SUMMED = ["quotient", "ood", "deep", "fri", "queries"]  # --json sums these over tables


def ns(x):
    """A timestamp or duration in microseconds (3 decimals) as integer ns."""
    return int(round(float(x) * 1000))


def main(argv):
    summary = json.load(open(argv[1]))
    trace = json.load(open(argv[2]))
    flags = set(argv[3:])
    errs = []

    def need(cond, what):
        if not cond:
            errs.append(what)
        return bool(cond)

    need(isinstance(trace, dict) and isinstance(trace.get("traceEvents"), list),
         "the file is an object with a traceEvents list")
    evs = trace.get("traceEvents", [])
    need(trace.get("displayTimeUnit") in ("ms", "ns"), "displayTimeUnit is set")

    procs, threads, xs = {}, {}, []
    for e in evs:
        ph = e.get("ph")
        if not need(ph in ("X", "M"), f"only X and M events: {e}"):
            continue
        if not need(isinstance(e.get("pid"), int) and isinstance(e.get("tid"), int),
                    f"integer pid and tid: {e}"):
            continue
        if ph == "M":
            if e.get("name") == "process_name":
                procs[e["pid"]] = e["args"]["name"]
            elif e.get("name") == "thread_name":
                threads[(e["pid"], e["tid"])] = e["args"]["name"]
            continue
        ok = need(isinstance(e.get("name"), str) and e["name"], f"a name: {e}")
        ok &= need(isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0, f"ts >= 0: {e}")
        ok &= need(isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0, f"dur >= 0: {e}")
        ok &= need(e.get("cat") in ("host", "device"), f"cat host or device: {e}")
        ok &= need(isinstance(e.get("args"), dict), f"args: {e}")
        if ok:
            xs.append(e)
    for e in xs:
        need(e["pid"] in procs, f"process {e['pid']} is named")
        need((e["pid"], e["tid"]) in threads, f"thread {e['pid']}/{e['tid']} is named")

    host = [e for e in xs if e["cat"] == "host"]
    dev = [e for e in xs if e["cat"] == "device"]
    need(all(e["pid"] == 1 for e in host), "host spans are on pid 1")
    need(procs.get(1) == "gstark host", "pid 1 is gstark host")
    need(all(e["pid"] >= 2 for e in dev), "device operations are on pids 2 and up")
    need(len(host) > 0, "there are host spans")

    # Nesting: on each host thread, spans are nested or disjoint.
    by_tid = {}
    for e in host:
        by_tid.setdefault(e["tid"], []).append(e)
    for tid, lst in by_tid.items():
        lst.sort(key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
        stack = []
        for e in lst:
            b, d = ns(e["ts"]), ns(e["dur"])
            while stack and stack[-1][1] <= b:
                stack.pop()
            if stack:
                need(b + d <= stack[-1][1],
                     f"thread {tid}: {e['name']} [{b}, {b + d}) overlaps {stack[-1][2]} "
                     f"ending at {stack[-1][1]} without nesting in it")
            stack.append((b, b + d, e["name"]))
    # Children inside their parents (when on the same thread).
    spans = {e["args"]["span"]: e for e in host}
    need(len(spans) == len(host), "span ids are unique")
    for e in host:
        p = e["args"].get("parent", -1)
        if p < 0:
            continue
        if not need(p in spans, f"span {e['args']['span']}'s parent {p} is in the trace"):
            continue
        q = spans[p]
        need(ns(q["ts"]) <= ns(e["ts"]), f"{e['name']} starts inside its parent {q['name']}")
        if q["tid"] == e["tid"]:
            need(ns(e["ts"]) + ns(e["dur"]) <= ns(q["ts"]) + ns(q["dur"]),
                 f"{e['name']} ends inside its parent {q['name']}")
        need(not e["args"].get("open") and not q["args"].get("open"), "no span left open")

    # Each table's phases, with its size in the args.
    tables = summary["tables"]
    for t, info in enumerate(tables):
        mine = [e for e in host if e["args"]["table"] == t]
        names = {e["name"] for e in mine}
        want = TABLE_PHASES + (["chain"] if "--multi" in flags else [])
        for ph in want:
            need(ph in names, f"table {t} has a {ph} span")
        for e in mine:
            need(e["args"]["rows"] == 1 << info["log_rows"] and e["args"]["cols"] == info["cols"],
                 f"table {t}'s {e['name']} span gives its rows and columns")
    top = {e["name"] for e in host if e["args"]["table"] == -1}
    need("check" in top, "a check span")
    if "--multi" in flags:
        need({"main commits", "table chains"} <= top, "main commits and table chains spans")
        for e in host:
            if e["name"] in ("commit", "chain") and e["args"]["parent"] >= 0:
                need(spans[e["args"]["parent"]]["name"] in ("main commits", "table chains", "chain"),
                     f"table {e['args']['table']}'s {e['name']} hangs under a phase")
    else:
        need(all(e["args"]["table"] in (-1, 0) for e in host), "one table")

    # The spans agree with the phase times --json reports (summed over tables).
    for ph in SUMMED:
        got = sum(ns(e["dur"]) for e in host if e["name"] == ph) / 1e9
        rep = summary["phases"][ph]
        need(abs(got - rep) <= 0.05 * rep + 0.002,
             f"{ph}: spans sum to {got:.6f} s, --json says {rep:.6f} s")

    # The host spans cover the prove time: from the first span's start to the
    # last one's end is most of it (setup before the first span and freeing
    # after the last are not spans), and no more than it.
    # A zkVM run's "trace" span (the run and its tables) comes before the
    # proving the prove time measures, as --air statements' trace time does,
    # and so does a one-shot run's "setup ahead" (its context made beside the
    # trace; the prove time counts only the wait for it). That one runs on a
    # thread of its own, inside the trace span's time. The trace span's own
    # parts (a zkVM run's execute, replay, ...) are not proving either.
    def in_trace(e):
        while True:
            if e["name"] in ("trace", "setup ahead"):
                return True
            p = e["args"].get("parent", -1)
            if p < 0 or p not in spans:
                return False
            e = spans[p]
    proving = [e for e in host if not in_trace(e)]
    for e in host:
        if e["name"] == "setup ahead":
            tr = [t for t in host if t["name"] == "trace"]
            need(len(tr) == 1 and ns(e["ts"]) >= ns(tr[0]["ts"]), "setup ahead starts inside the trace span")
    b = min(ns(e["ts"]) for e in proving) if proving else 0
    end = max(ns(e["ts"]) + ns(e["dur"]) for e in proving) if proving else 0
    extent = (end - b) / 1e9
    prove = summary["prove_seconds"]
    need(extent >= 0.75 * prove - 0.005,
         f"the spans cover {extent:.6f} s of the {prove:.6f} s prove time")
    need(extent <= prove + 0.001, f"the spans ({extent:.6f} s) lie within the prove time ({prove:.6f} s)")

    # Device tracks: none on the CPU; on CUDA, named operations on named lanes.
    if summary["backend"] == "cpu":
        need(not dev and all(p == 1 for p in procs), "a CPU run has host tracks only")
    if "--device" in flags:
        need(len(dev) > 0, "device operations are present")
        for e in dev:
            need(procs.get(e["pid"], "").startswith("gstark cuda:"), "device pids are named cuda")
            need(e["args"]["lane"] == e["tid"] - 1, "a device op's tid is its lane + 1")
            need(-1 <= e["args"]["table"] < len(tables), "a device op names a table of the proof")

    if errs:
        for m in errs[:40]:
            print("not so:", m)
        print(f"{len(errs)} failed")
        return 1
    print(f"{len(host)} host spans on {len(by_tid)} threads, {len(dev)} device operations, "
          f"{len(tables)} tables; spans cover {extent:.3f} of {prove:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
