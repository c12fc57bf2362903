"""Shared pieces of scripts/bench-compare and scripts/bench-plot: the suite
definitions, the ABBA run order, the JSON lines of the benchmark programs and
the paired statistics (SciPy: scipy.stats.ttest_rel and scipy.stats.wilcoxon).

Run with Debian's /usr/bin/python3 (python3-scipy, python3-matplotlib from
scripts/install-deps.sh): a pyenv or venv python3 first on PATH may lack them.
"""
import json
import math
import os
import statistics
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = os.path.join(HERE, "..", "bench", "suites", "suites.json")

NO_CHANGE = "no significant change"


def load_suites(path=SUITES):
    with open(path) as f:
        return json.load(f)


def abba_order(runs):
    """The side of each run, in order: A B B A, repeated `runs` times. Drift
    that is linear in time cancels within each A B B A block."""
    return ["A", "B", "B", "A"] * runs


def parse_json_lines(text):
    """The result rows in a benchmark's stdout; lines that are not JSON
    objects with a statement and metrics are skipped."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if isinstance(r, dict) and "statement" in r and isinstance(r.get("metrics"), dict):
            rows.append(r)
    return rows


def compare_samples(a, b, level=0.05, higher_better=False, time_or_rate=True, min_effect=1.0,
                    deterministic=False):
    """Paired comparison of side A's and side B's samples of one metric (the
    i-th of each taken next to each other in the ABBA order).

    Returns a dict: n, median_a, median_b, delta_pct (B against A), p_t
    (paired t-test), p_w (Wilcoxon signed-rank), verdict and note. A change
    is called when both p-values are below `level` and the medians differ by
    at least `min_effect` percent: "faster"/"slower" (for
    times and rates) or "better"/"worse" say which way B moved. The note
    says when only one test is below the level (and when that is because n
    pairs cannot give a signed-rank p below it), when the differences are
    all zero (p = 1 by definition) or constant (the t statistic is
    undefined; the signed-rank test decides alone), or when there are too
    few pairs.

    A deterministic metric (proof size, fft-cost, cycles: a function of the
    build and the statement, not of the machine's load) needs no test when
    each side gave one value throughout: equal values are no change, and any
    difference is a change, however small and at any n; p-values are then
    None. If such a metric varies within a side after all, the note says so
    and the tests decide as for any other metric."""
    from scipy import stats

    n = min(len(a), len(b))
    a, b = [float(x) for x in a[:n]], [float(x) for x in b[:n]]
    out = {"n": n, "median_a": None, "median_b": None, "delta_pct": None,
           "p_t": None, "p_w": None, "verdict": NO_CHANGE, "note": ""}
    if n == 0:
        out["note"] = "no samples"
        return out
    ma, mb = statistics.median(a), statistics.median(b)
    out["median_a"], out["median_b"] = ma, mb
    if ma != 0:
        out["delta_pct"] = 100.0 * (mb - ma) / abs(ma)
    elif mb == 0:
        out["delta_pct"] = 0.0
    d = [y - x for x, y in zip(a, b)]
    if deterministic and len(set(a)) == 1 and len(set(b)) == 1:
        if ma == mb:
            out["p_t"], out["p_w"] = (1.0, 1.0) if n >= 2 else (None, None)
            out["note"] = "identical samples"
            return out
        good = (mb > ma) == higher_better
        if time_or_rate:
            out["verdict"] = "faster" if good else "slower"
        else:
            out["verdict"] = "better" if good else "worse"
        out["note"] = "deterministic: every sample the same on each side"
        return out
    if n < 2:
        out["note"] = "too few pairs for a test"
        return out
    if all(x == 0 for x in d):
        out["p_t"], out["p_w"] = 1.0, 1.0
        out["note"] = "identical samples"
        return out
    varies = "varies within a side; " if deterministic else ""
    spread = max(d) - min(d)
    if spread == 0:
        # Every pair moved by the same amount: the t statistic is undefined
        # (zero variance); the signed-rank test still applies.
        p_t = None
    else:
        p_t = float(stats.ttest_rel(b, a).pvalue)
        if math.isnan(p_t):
            p_t = None
    nonzero = [x for x in d if x != 0]
    try:
        # zsplit: zero differences count half to each side instead of being
        # dropped, so ties weaken the evidence rather than vanish.
        # With zeros or few pairs SciPy falls back to the normal
        # approximation and says so; that is expected here.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            p_w = float(stats.wilcoxon(b, a, zero_method="zsplit").pvalue)
    except ValueError:
        p_w = None
    out["p_t"], out["p_w"] = p_t, p_w
    # A change is called only when both tests put it below the level (one
    # alone, at a few pairs and some thirty metrics, calls noise a change
    # several times per comparison); the t-test alone where the signed-rank
    # test failed, the signed-rank test alone where t is undefined.
    tests = [p for p in (p_t, p_w) if p is not None]
    small = out["delta_pct"] is not None and abs(out["delta_pct"]) < min_effect
    if tests and all(p < level for p in tests) and small:
        # Real, perhaps, but too small to matter (a tenth of a MiB of RSS).
        out["note"] = "below the %g%% effect threshold" % min_effect
    elif tests and all(p < level for p in tests):
        up = (mb > ma) if mb != ma else (sum(nonzero) > 0)
        good = up == higher_better
        if time_or_rate:
            out["verdict"] = "faster" if good else "slower"
        else:
            out["verdict"] = "better" if good else "worse"
        if p_t is None:
            out["note"] = "constant difference: t undefined"
    elif any(p < level for p in tests):
        floor = 2.0 ** (1 - n)  # the smallest two-sided signed-rank p with n pairs
        out["note"] = ("p(W) cannot go below %.3g with %d pairs" % (floor, n)
                       if p_w is not None and floor >= level else "the tests disagree")
    if varies:
        out["note"] = (varies + out["note"]).rstrip("; ")
    return out


def fmt_p(p):
    return "-" if p is None else ("%.3g" % p)


def fmt_num(x):
    if x is None:
        return "-"
    ax = abs(x)
    if ax != 0 and (ax >= 1e6 or ax < 1e-3):
        return "%.4g" % x
    return "%.4f" % x if ax < 10 else "%.2f" % x
