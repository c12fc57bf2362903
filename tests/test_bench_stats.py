#!/usr/bin/python3
"""The benchmark comparison's own tests (scripts/benchlib.py, bench-compare,
bench-plot): the statistics on fixed samples against known results, the ABBA
order, a plot from fixed data, and a suite run end to end with A and B the
same build directory (the report's completeness and form are checked, never
a timing). Exit 77 (skip) when SciPy or matplotlib is missing.

  /usr/bin/python3 tests/test_bench_stats.py BUILD_DIR
"""
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
try:
    import scipy  # noqa: F401
    import matplotlib  # noqa: F401
except ImportError:
    print("test_bench_stats: SciPy or matplotlib missing (scripts/install-deps.sh); skipped")
    sys.exit(77)
import benchlib  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what)


def close(x, y, tol):
    return x is not None and abs(x - y) <= tol


def test_known_values():
    # d = b - a = 1, 2, 3, 4, 5: t = 3 / (sqrt(2.5) / sqrt(5)) = 4.2426, df 4,
    # two-sided p = 0.013241; Wilcoxon, all 5 ranks positive, exact p = 2/32.
    a = [10.0, 11.0, 12.0, 13.0, 14.0]
    b = [11.0, 13.0, 15.0, 17.0, 19.0]
    r = benchlib.compare_samples(a, b)
    check(close(r["p_t"], 0.013241, 5e-5), "t-test p on d=1..5: %s" % r["p_t"])
    check(close(r["p_w"], 0.0625, 1e-9), "Wilcoxon p on d=1..5: %s" % r["p_w"])
    check(r["median_a"] == 12.0 and r["median_b"] == 15.0, "medians")
    check(close(r["delta_pct"], 25.0, 1e-9), "delta %%: %s" % r["delta_pct"])
    # p(t) < 0.05 but 5 pairs cannot give p(W) below 2/32: no verdict, and
    # the note says why.
    check(r["verdict"] == "no significant change", "one test below the level is no verdict: %s" % r["verdict"])
    check(r["note"] == "p(W) cannot go below 0.0625 with 5 pairs", "the note: %r" % r["note"])
    r = benchlib.compare_samples(a, b, level=0.1)
    check(r["verdict"] == "slower", "both below 0.1: a time that grew is slower: %s" % r["verdict"])


def test_clear_shift():
    noise = [0.013, -0.021, 0.008, 0.017, -0.004, -0.011, 0.022, -0.016, 0.005, -0.009, 0.014, -0.002]
    a = [1.0 + e for e in noise]
    b = [1.10 + e + 0.3 * noise[(i + 5) % len(noise)] for i, e in enumerate(noise)]
    r = benchlib.compare_samples(a, b)
    check(r["p_t"] < 0.01 and r["p_w"] < 0.01, "a 10%% shift: p %s %s" % (r["p_t"], r["p_w"]))
    check(r["verdict"] == "slower", "10%% more time is slower: %s" % r["verdict"])
    r = benchlib.compare_samples(b, a)
    check(r["verdict"] == "faster", "10%% less time is faster: %s" % r["verdict"])
    r = benchlib.compare_samples(a, b, higher_better=True)
    check(r["verdict"] == "faster", "10%% more throughput is faster: %s" % r["verdict"])
    r = benchlib.compare_samples(a, b, time_or_rate=False)
    check(r["verdict"] == "worse", "10%% more memory is worse: %s" % r["verdict"])


def test_small_effect():
    # A consistent 0.2% shift: both tests far below 0.05, but under the 1%
    # effect threshold, so no verdict; with the threshold at 0.1% a verdict.
    a = [100.0, 101.0, 99.5, 100.5, 100.2, 99.8, 100.1, 99.9]
    b = [x * 1.002 + 0.001 * i for i, x in enumerate(a)]
    r = benchlib.compare_samples(a, b, time_or_rate=False)
    check(r["p_t"] < 0.01 and r["p_w"] < 0.01, "0.2%% shift is significant: %s %s" % (r["p_t"], r["p_w"]))
    check(r["verdict"] == benchlib.NO_CHANGE and "effect threshold" in r["note"], "below 1%%: %s" % r)
    r = benchlib.compare_samples(a, b, time_or_rate=False, min_effect=0.1)
    check(r["verdict"] == "worse", "0.2%% more memory at threshold 0.1%%: %s" % r["verdict"])


def test_no_shift():
    a = [1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.00]
    b = [1.01, 1.00, 0.99, 1.02, 0.98, 1.01, 0.99, 0.99]
    r = benchlib.compare_samples(a, b)
    check(r["p_t"] > 0.5 and r["p_w"] > 0.5, "no shift: p %s %s" % (r["p_t"], r["p_w"]))
    check(r["verdict"] == benchlib.NO_CHANGE, "no shift: %s" % r["verdict"])


def test_ties():
    r = benchlib.compare_samples([5, 5, 5, 5], [5, 5, 5, 5])
    check(r["p_t"] == 1.0 and r["p_w"] == 1.0 and r["verdict"] == benchlib.NO_CHANGE, "all ties: %s" % r)
    check(r["note"] == "identical samples", "all ties note: %r" % r["note"])
    # The same difference in every pair: t undefined, the signed-rank test
    # decides (8 positive ranks, tied: p well under 0.05).
    a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    r = benchlib.compare_samples(a, [x + 0.5 for x in a])
    check(r["p_t"] is None and r["p_w"] is not None and r["p_w"] < 0.05, "constant shift: %s" % r)
    check(r["verdict"] == "slower", "constant shift verdict: %s" % r["verdict"])
    # Some zero differences among others: no crash, p in [0, 1].
    r = benchlib.compare_samples([1, 2, 3, 4, 5, 6], [1, 2, 3.5, 4, 4.5, 6])
    for p in (r["p_t"], r["p_w"]):
        check(p is not None and 0 <= p <= 1 and not math.isnan(p), "partial ties p: %s" % p)
    check(r["verdict"] == benchlib.NO_CHANGE, "partial ties verdict: %s" % r["verdict"])
    # One pair: no test, said so.
    r = benchlib.compare_samples([1.0], [2.0])
    check(r["p_t"] is None and r["verdict"] == benchlib.NO_CHANGE and r["note"], "one pair: %s" % r)


def test_deterministic():
    # A deterministic metric (proof size, fft-cost) with one value per side:
    # equal is no change with p = 1; a difference is called at any n and
    # any size, without a test, in the direction of the metric.
    r = benchlib.compare_samples([2097152.0] * 2, [2097152.0] * 2, time_or_rate=False, deterministic=True)
    check(r["verdict"] == benchlib.NO_CHANGE and r["note"] == "identical samples" and r["p_t"] == 1.0,
          "deterministic, equal: %s" % r)
    r = benchlib.compare_samples([100000.0] * 2, [100200.0] * 2, time_or_rate=False, deterministic=True)
    check(r["verdict"] == "worse" and r["p_t"] is None and r["p_w"] is None and close(r["delta_pct"], 0.2, 1e-9),
          "deterministic, 0.2%% larger at 2 pairs, under the effect threshold, is worse: %s" % r)
    check(r["note"].startswith("deterministic"), "deterministic note: %r" % r["note"])
    r = benchlib.compare_samples([100200.0] * 4, [100000.0] * 4, time_or_rate=False, deterministic=True)
    check(r["verdict"] == "better", "deterministic, smaller is better: %s" % r["verdict"])
    # The same samples without the flag: 2 pairs cannot decide, so no verdict.
    r = benchlib.compare_samples([100000.0] * 2, [100200.0] * 2, time_or_rate=False)
    check(r["verdict"] == benchlib.NO_CHANGE, "not deterministic, 2 pairs: %s" % r["verdict"])
    # Varying within a side: the tests decide, and the note says it varied.
    a = [10.0, 11.0, 12.0, 13.0, 14.0]
    r = benchlib.compare_samples(a, [11.0, 13.0, 15.0, 17.0, 19.0], time_or_rate=False, deterministic=True)
    check(r["verdict"] == benchlib.NO_CHANGE and r["p_t"] is not None and r["note"].startswith("varies within a side"),
          "deterministic metric that varies: %s" % r)


def fft_of(cols, lg):
    return cols * 2 ** lg * lg


def test_fft_cost(build):
    # bench_prove's fft_cost is width * height * log2(height) of the main
    # trace, summed over the tables of a multi-table proof.
    exe = os.path.join(build, "bench_prove")
    if not os.path.exists(exe):
        print("test_bench_stats: no bench_prove in %s; the fft-cost check is skipped" % build)
        return
    p = subprocess.run([exe, "--air", "mix", "--max-log", "14", "--json"], capture_output=True, text=True)
    rows = benchlib.parse_json_lines(p.stdout)
    check(p.returncode == 0 and len(rows) == 2, "bench_prove mix: exit %d, %d rows" % (p.returncode, len(rows)))
    for r in rows:
        m = r["metrics"]
        check(r["statement"].endswith("lg=14 cpu") and m["cols"] in (64, 256), "mix row %s" % r["statement"])
        check(m["fft_cost"] == fft_of(m["cols"], 14) and r["units"]["fft_cost"],
              "%s: fft_cost %s, want %d" % (r["statement"], m["fft_cost"], fft_of(m["cols"], 14)))
    # Multi-table: the summary's fft_cost against its per-table rows (name,
    # log rows, main columns) in the table on stderr.
    p = subprocess.run([exe, "--air", "synth", "--vm-shrink", "8", "--skew-shrink", "8", "--json"],
                       capture_output=True, text=True)
    rows = benchlib.parse_json_lines(p.stdout)
    check(p.returncode == 0 and len(rows) == 2, "bench_prove synth: exit %d, %d rows" % (p.returncode, len(rows)))
    sums, cur = {}, None
    for line in p.stderr.splitlines():
        f = line.split()
        if line.startswith("synth "):
            cur = " ".join(f[:3])
            sums[cur] = [0, 0]
        elif cur and line.startswith("  table ") and len(f) > 4:
            sums[cur][0] += fft_of(int(f[3]), int(f[2]))
            sums[cur][1] += 1
    for r in rows:
        key = r["statement"].split(" lg=")[0]
        want = sums.get(key, [None, 0])
        check(want[1] == r["metrics"]["cols"] and r["metrics"]["fft_cost"] == want[0],
              "%s: fft_cost %s, the sum over its %d tables %s" % (key, r["metrics"]["fft_cost"], want[1], want[0]))


def json_only(out):
    """Every non-empty stdout line of a --json run is a result row."""
    lines = [x for x in out.splitlines() if x.strip()]
    return len(benchlib.parse_json_lines(out)) == len(lines)


def test_json_programs(build):
    # bench_keccak and bench_resident on the CPU: JSON rows only on stdout,
    # with the statements and metrics their comments promise.
    exe = os.path.join(build, "bench_keccak")
    if os.path.exists(exe):
        p = subprocess.run([exe, "--samples", "1", "--json"], capture_output=True, text=True)
        rows = {r["statement"]: r for r in benchlib.parse_json_lines(p.stdout)}
        check(p.returncode == 0 and json_only(p.stdout), "bench_keccak --json: exit %d" % p.returncode)
        for st, ms in (("perm portable", ("mperm_s", "ns_per_perm")),
                       ("keccak256 1 KiB portable", ("mb_s", "openssl_mb_s", "ratio_to_openssl")),
                       ("hash_many 64B portable", ("mb_s", "mhashes_s"))):
            r = rows.get(st)
            check(r is not None and r["bench"] == "bench_keccak" and all(r["metrics"].get(m, 0) > 0 for m in ms),
                  "bench_keccak row %s: %s" % (st, r))
        p = subprocess.run([exe, "--json", "--no-such-option"], capture_output=True, text=True)
        check(p.returncode == 2 and "usage" in p.stderr, "bench_keccak refuses an unknown option")
    exe = os.path.join(build, "bench_resident")
    if os.path.exists(exe):
        p = subprocess.run([exe, "--n", "2", "--log", "8", "--grinding", "0", "--json"], capture_output=True, text=True)
        rows = benchlib.parse_json_lines(p.stdout)
        check(p.returncode == 0 and json_only(p.stdout) and [r["statement"] for r in rows] == ["fib lg=8 cpu"],
              "bench_resident --json: exit %d, %s" % (p.returncode, p.stdout[:300]))
        if rows:
            m = rows[0]["metrics"]
            check(all(m.get(k, 0) > 0 for k in ("oneshot_ms", "resident_ms", "ctx_ms", "resident_speedup")) and
                  close(m["resident_speedup"], m["oneshot_mean_ms"] / m["resident_mean_ms"], 1e-6 * m["resident_speedup"]),
                  "bench_resident metrics: %s" % m)


def test_gpu_suite_without_gpu(build):
    # Without a device, every command of the gpu suite whose program is here
    # accepts its arguments (no usage error) and prints no line on stdout
    # that is not a JSON row; the GPU benchmarks say why they measure nothing.
    if os.path.exists("/dev/nvidia0"):
        print("test_bench_stats: a GPU is here; the gpu suite's no-device check is skipped")
        return
    for cmd in benchlib.load_suites()["suites"]["gpu"]["commands"]:
        exe = os.path.join(build, cmd["run"][0])
        if not os.path.exists(exe):
            continue
        p = subprocess.run([exe] + cmd["run"][1:], capture_output=True, text=True, timeout=120)
        what = " ".join(cmd["run"])
        check(p.returncode in (0, 1) and "usage" not in p.stderr, "%s: exit %d, %s" % (what, p.returncode, p.stderr[-200:]))
        check(benchlib.parse_json_lines(p.stdout) == [] and json_only(p.stdout), "%s: no rows without a GPU" % what)
        if cmd["run"][0] in ("./bench_gpu", "./bench_gpu_merkle"):
            check(p.returncode == 0 and "no CUDA device" in p.stderr, "%s says there is no device" % what)


def test_abba():
    check(benchlib.abba_order(2) == ["A", "B", "B", "A", "A", "B", "B", "A"], "ABBA for N=2")
    check(benchlib.abba_order(1) == ["A", "B", "B", "A"], "ABBA for N=1")


def row(stmt, lg, cols, prove, phases, be="cpu", busy=0.0, dev_mb=0.0):
    m = {"device_busy_pct": busy, "device_peak_mb": dev_mb, "cols": cols, "cells": cols * 2 ** lg, "prove_s": prove, "throughput_mcells_s": cols * 2 ** lg / prove / 1e6}
    m.update(dict(zip(["check_s", "commit_s", "quotient_s", "ood_s", "deep_s", "fri_s", "queries_s", "other_s"],
                      phases)))
    return json.dumps({"bench": "bench_prove", "statement": "%s lg=%d %s" % (stmt, lg, be), "metrics": m, "units": {}})


def test_plot(tmp):
    data = os.path.join(tmp, "prove.jsonl")
    with open(data, "w") as f:
        f.write("bench_prove: the table went to stderr; this line is not JSON\n")
        for lg, t in ((16, 0.25), (18, 0.9), (20, 3.7)):
            f.write(row("fib", lg, 2, t, [t / 8] * 8) + "\n")
            f.write(row("mix c=64 d=3", lg - 2, 64, 2 * t, [t / 4] * 8) + "\n")
    nocuda = os.path.join(tmp, "img-cpu")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "bench-plot"), "prove", data, "--out", nocuda],
                       capture_output=True, text=True)
    check(p.returncode == 0 and not os.path.exists(os.path.join(nocuda, "prove_device.svg")),
          "no device chart without GPU rows")
    with open(data, "a") as f:
        for lg, t, busy, mb in ((20, 0.034, 51.0, 1200.0), (22, 0.083, 71.0, 4900.0)):
            f.write(row("fib", lg, 2, t, [t / 8] * 8, "cuda", busy, mb) + "\n")
    out = os.path.join(tmp, "img")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "bench-plot"), "prove", data, "--out", out,
                        "--title", "fixed data"], capture_output=True, text=True)
    check(p.returncode == 0, "bench-plot prove: %s" % p.stderr[-300:])
    for name in ("prove_time.svg", "prove_throughput.svg", "prove_phases.svg"):
        path = os.path.join(out, name)
        check(os.path.exists(path), "%s written" % name)
        if os.path.exists(path):
            svg = open(path).read()
            check(svg.lstrip().startswith("<?xml") and "<svg" in svg, "%s is an SVG" % name)
            for title in ("fib (cpu)", "mix c=64 d=3 (cpu)"):
                check(title in svg, "%s names the series %s" % (name, title))
    check("quotient" in open(os.path.join(out, "prove_phases.svg")).read(), "phases legend")
    dev = os.path.join(out, "prove_device.svg")
    check(os.path.exists(dev), "a device chart from the cuda rows")
    if os.path.exists(dev):
        svg = open(dev).read()
        check("fib (cuda) lg=22" in svg and "4900 MiB" in svg and "fib (cpu)" not in svg,
              "the device chart has the cuda rows only, with their peak memory")
    check("fib (cuda)" in open(os.path.join(out, "prove_time.svg")).read(), "the cuda series drawn")


def test_suite_end_to_end(build, tmp):
    exe = os.path.join(build, "bench_prove")
    if not os.path.exists(exe) or not os.path.exists(os.path.join(build, "bench_zkvm_exec")):
        print("test_bench_stats: no benchmarks in %s; the end-to-end run is skipped" % build)
        return
    suites = benchlib.load_suites()
    suites["suites"] = {"tiny": {"build": "cpu", "targets": [], "runs": 1, "commands": [
        {"run": ["./bench_prove", "--air", "fib", "--max-log", "16", "--json"],
         "metrics": ["prove_s", "throughput_mcells_s", "proof_bytes", "fft_cost"]},
        {"run": ["./bench_zkvm_exec", "--scale", "10000", "--asm-only", "--json"],
         "metrics": ["exec_s", "cycles"]}]}}
    sfile = os.path.join(tmp, "suites.json")
    with open(sfile, "w") as f:
        json.dump(suites, f)
    rep = os.path.join(tmp, "report.json")
    env = dict(os.environ)
    # Leak checking of the benchmark programs is not this test's concern.
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "bench-compare"), build, build,
                        "--suite", "tiny", "--suites", sfile, "--runs", "1", "--out", rep],
                       capture_output=True, text=True, env=env)
    check(p.returncode == 0, "bench-compare exit %d: %s" % (p.returncode, p.stderr[-500:]))
    if p.returncode != 0:
        return
    with open(rep) as f:
        report = json.load(f)
    check(report["runs"] == 1 and report["failures"] == [], "report header: %s" % report["failures"])
    got = {(r["statement"], r["metric"]): r for r in report["results"]}
    want = [("fib lg=16 cpu", m) for m in ("prove_s", "throughput_mcells_s", "proof_bytes", "fft_cost")]
    want += [(s, m) for s in ("fib (asm) n=20000", "mem (asm) n=2000") for m in ("exec_s", "cycles")]
    for k in want:
        check(k in got, "the report has %s %s" % k)
    check(len(got) == len(want), "no extra metrics: %s" % sorted(got))
    for k, r in got.items():
        check(r["n"] == 2 and len(r["a"]) == 2 and len(r["b"]) == 2, "%s: two pairs (ABBA x 1)" % (k,))
        check(r["median_a"] is not None and r["median_b"] is not None and r["delta_pct"] is not None, "%s medians" % (k,))
        for p_ in (r["p_t"], r["p_w"]):
            check(p_ is None or 0 <= p_ <= 1, "%s p in [0, 1]: %s" % (k, p_))
        check(r["verdict"] in ("faster", "slower", benchlib.NO_CHANGE), "%s verdict %s" % (k, r["verdict"]))
        check(r["higher_better"] == (k[1] == "throughput_mcells_s"), "%s direction" % (k,))
        check(r["deterministic"] == (k[1] in ("proof_bytes", "fft_cost", "cycles")), "%s deterministic" % (k,))
    # Deterministic metrics of one binary are the same on both sides.
    fft = got.get(("fib lg=16 cpu", "fft_cost"))
    check(fft is not None and fft["a"] == [fft_of(2, 16)] * 2, "fib 2^16 (2 columns) fft_cost: %s" % fft)
    for k in (("fib lg=16 cpu", "proof_bytes"), ("fib lg=16 cpu", "fft_cost"), ("fib (asm) n=20000", "cycles")):
        if k in got:
            r = got[k]
            check(r["a"] == r["b"] and r["verdict"] == benchlib.NO_CHANGE and r["note"] == "identical samples",
                  "%s identical on both sides: %s" % (k, r))
    for line in ("median A", "p(t)", "p(W)", "verdict", "fib lg=16 cpu"):
        check(line in p.stdout, "the printed table has %r" % line)
    # And the comparison chart from this report.
    out = os.path.join(tmp, "cmp")
    q = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "bench-plot"), "compare", rep, "--out", out,
                        "--metric", "exec_s"], capture_output=True, text=True)
    check(q.returncode == 0 and os.path.exists(os.path.join(out, "compare.svg")), "compare chart: %s" % q.stderr[-300:])
    if q.returncode == 0:
        svg = open(os.path.join(out, "compare.svg")).read()
        check("fib (asm) n=20000" in svg and "A: dir " in svg, "the compare chart names its rows and sides")


def main():
    build = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    test_known_values()
    test_clear_shift()
    test_small_effect()
    test_no_shift()
    test_ties()
    test_deterministic()
    test_abba()
    test_fft_cost(build)
    test_json_programs(build)
    test_gpu_suite_without_gpu(build)
    with tempfile.TemporaryDirectory() as tmp:
        test_plot(tmp)
        test_suite_end_to_end(build, tmp)
    print("test_bench_stats: %s" % ("%d failure(s)" % failures if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
