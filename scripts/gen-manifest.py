#!/usr/bin/env python3
"""Writes a batch manifest of many small mixed claims (docs/batch.md).

examples/batch_large.json is its output with the defaults:
    python3 scripts/gen-manifest.py -o examples/batch_large.json
The claims: about 70% fib (log_rows 12..18 uniformly, one in five of them
given as a step count instead, random start values), 20% synth presets at
small sizes (vm shrink 6..10, skew shrink 6..10, uniform shrink 4..8) and 10%
mix (8..64 columns, log_rows 10..14, degree 2..5), with a few claims at 100
bits or blowup 8. No joins: the default balanced tree over all claims. The
same arguments always give the same file (Python's seeded random.Random)."""
import argparse
import json
import random
import sys


def claim(rng, i):
    r = rng.random()
    if r < 0.7:
        k = rng.randint(12, 18)
        w = {"air": "fib"}
        if rng.random() < 0.2:
            w["steps"] = rng.randint(2 ** (k - 1), 2**k - 1)
        else:
            w["log_rows"] = k
        w["start"] = [rng.randrange(2**32), rng.randrange(2**32)]
    elif r < 0.9:
        preset = rng.choice(["vm", "skew", "uniform"])
        lo = 4 if preset == "uniform" else 6
        w = {"air": "synth", "preset": preset, "shrink": rng.randint(lo, lo + 4), "seed": rng.randrange(2**32)}
    else:
        w = {"air": "mix", "cols": rng.choice([8, 16, 32, 64]), "log_rows": rng.randint(10, 14),
             "degree": rng.randint(2, 5), "seed": rng.randrange(2**32)}
    c = {"id": "c%04d" % i, "workload": w}
    p = rng.random()
    if p < 0.05:
        c["params"] = {"security": 100}
    elif p < 0.1:
        c["params"] = {"blowup": 8}
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--claims", type=int, default=1000, help="how many claims (default 1000)")
    ap.add_argument("--seed", type=int, default=13, help="the generator's seed (default 13)")
    ap.add_argument("-o", "--output", help="the file to write (default: standard output)")
    a = ap.parse_args()
    if not 1 <= a.claims <= 1000000:
        ap.error("--claims must be 1..1000000")
    rng = random.Random(a.seed)
    lines = [json.dumps(claim(rng, i), separators=(", ", ": ")) for i in range(a.claims)]
    text = '{"claims": [\n' + ",\n".join(lines) + "\n]}\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
