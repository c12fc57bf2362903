#!/usr/bin/env python3
"""An independent computation of gstark's provable security level.

Reads the grid `test_security --dump` prints (log_blowup, queries, grinding,
log_n, batched polynomials, log_final, log_arity, the C code's log2 error, its bits;
and rows starting "S" for shared-FRI proofs of several tables) and recomputes
the soundness error from the terms in docs/protocol.md ("Security") with
Python's Decimal at 40 digits, summing the probabilities directly (no log
domain) and taking the best proximity parameter m in 3..4096. Fails unless
every log2 error agrees within 1e-6 bits and every level is the floor of it,
capped at 128 bits.
"""
import subprocess
import sys
from decimal import Decimal, getcontext

getcontext().prec = 40
P = 2**64 - 2**32 + 1
FIELD = Decimal(P) ** 3
LN2 = Decimal(2).ln()
HASH_CAP = 128


def log2(x):
    return x.ln() / LN2


def error(log_blowup, queries, grinding, log_n, polys, log_final, log_arity, m):
    rho = Decimal(2) ** -log_blowup
    sr = rho.sqrt()
    n_lde = Decimal(2) ** (log_n + log_blowup)
    folds = max(log_n - log_final, 0)
    arities = [min(log_arity, folds - i) for i in range(0, folds, log_arity)]
    drawn = min(queries, 2 ** (log_n + log_blowup))
    mh = Decimal(m) + Decimal("0.5")
    alpha = (1 + Decimal(1) / (2 * m)) * sr
    lst = mh / sr
    ca = mh**7 / (3 * rho * sr) * n_lde**2 / FIELD
    e = (polys - 1) * ca
    for a in arities:  # per FRI layer folding 2^a words by powers of gamma
        e += (2**a - 1) * ca + (2 * m + 1) * (n_lde + 1) * 2**a / (sr * FIELD)
    e += lst * Decimal(2) ** 33 / FIELD
    e += lst * 128 * Decimal(2) ** log_n / FIELD
    e += 2 * Decimal(2) ** 37 * Decimal(2) ** log_n / FIELD
    e += alpha**drawn / Decimal(2) ** grinding
    return e


def shared_error(log_blowup, queries, grinding, log_final, log_arity, tables, m):
    """A shared-FRI proof (docs/protocol.md, "One FRI for many tables"): every
    table's chain up to its DEEP word, a line per table joining after the
    first, the plan's layers and one query phase, FRI terms on the largest
    LDE domain."""
    rho = Decimal(2) ** -log_blowup
    sr = rho.sqrt()
    mh = Decimal(m) + Decimal("0.5")
    alpha = (1 + Decimal(1) / (2 * m)) * sr
    lst = mh / sr

    def ca(log_size):
        return mh**7 / (3 * rho * sr) * Decimal(2) ** (2 * log_size) / FIELD

    sizes = [log_n + log_blowup for log_n, _ in tables]
    top, final = max(sizes), min(log_final, min(t[0] for t in tables)) + log_blowup
    arities, ls = [], top  # the plan: fold by the arity, stopping at every table's LDE size
    while ls > final:
        nxt = max([final] + [t for t in sizes if t < ls])
        arities.append(min(log_arity, ls - nxt))
        ls -= arities[-1]
    e = Decimal(0)
    for (log_n, polys), size in zip(tables, sizes):
        e += (polys - 1) * ca(size)
        e += lst * Decimal(2) ** 33 / FIELD + lst * 128 * Decimal(2) ** log_n / FIELD
        e += 2 * Decimal(2) ** 37 * Decimal(2) ** log_n / FIELD
    e += (len(tables) - 1) * ca(top)
    for a in arities:
        e += (2**a - 1) * ca(top) + (2 * m + 1) * (Decimal(2) ** top + 1) * 2**a / (sr * FIELD)
    e += alpha ** min(queries, 2**top) / Decimal(2) ** grinding
    return e


def best_log2(lb, q, g, log_n, polys, lf, la):
    errs = [error(lb, q, g, log_n, polys, lf, la, m) for m in range(3, 4097)]
    return log2(min(errs))


def main():
    out = subprocess.run([sys.argv[1], "--dump"], check=True, capture_output=True, text=True).stdout
    rows = [line.split() for line in out.splitlines() if line.strip()]
    bad = 0
    for r in rows:
        if r[0] == "S":  # S lb q g lf la n (log_n polys)*n log2 bits
            lb, q, g, lf, la, n = (int(x) for x in r[1:7])
            tables = [(int(r[7 + 2 * i]), int(r[8 + 2 * i])) for i in range(n)]
            c_log2, c_bits = Decimal(r[7 + 2 * n]), int(r[8 + 2 * n])
            want = log2(min(shared_error(lb, q, g, lf, la, tables, m) for m in range(3, 4097)))
            log_n, polys = tables, "shared"
        else:
            lb, q, g, log_n, polys, lf, la = (int(x) for x in r[:7])
            c_log2, c_bits = Decimal(r[7]), int(r[8])
            want = best_log2(lb, q, g, log_n, polys, lf, la)
        bits = max(0, min(HASH_CAP, int((-want).to_integral_value(rounding="ROUND_FLOOR"))))
        if abs(want - c_log2) > Decimal("1e-6") or bits != c_bits:
            bad += 1
            print(f"MISMATCH lb={lb} q={q} g={g} log_n={log_n} polys={polys} final={lf} arity={la}: "
                  f"C {c_log2} ({c_bits} bits), reference {want:.9f} ({bits} bits)")
    print(f"{len(rows)} grid points, {bad} mismatches")
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
