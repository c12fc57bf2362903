/* The NTT group operations, written once over a small vector interface and
 * compiled twice: ntt_portable.c (8 scalar lanes) and ntt_avx512.c (one
 * __m512i). The includer defines, before including this file:
 *
 *   KFN(name)            the function name with the implementation's suffix
 *   vec                  8 field elements
 *   v_load(p), v_store(p, v), v_bcast(x)
 *   v_mul                canonical field product, lane by lane
 *   v_transpose8(vec r[8])   8x8 transpose: r[i] lane j <-> r[j] lane i
 *   v_revlanes(v)        lane j <- lane rev3(j)
 *   bfly_dif1(a, b)      rows a, b (8 values each): (a + b, a - b)
 *   bfly_dit(a, b, w)    (a + w b, a - w b)
 *   bfly_dit1(a, b)      the same with w = 1
 *   row_mul(d, s, w)     d = s * w (8 values)
 *   bfly4_dif(r, q, W, W2, W3, Wq, inv), bfly4_dit(...): the radix-4
 *                        steps below on rows r, r+q, r+2q, r+3q; Wq = W w_4
 *                        (an implementation may use W3 or Wq)
 *   bfly4_dif0(r, q, Wq, inv), bfly4_dit0(r, q, Wq, inv): W = 1, Wq = w_4
 *
 * Every value stays canonical (< p) between operations, so both
 * implementations produce identical bits. */

/* ---- lane kernels: sub-transforms of m = 2^logm rows x 8 lanes ----
 * Radix-4 steps: with W = the step's root power, the four outputs of rows
 * a, b, c, d (q rows apart) are, for decimation in frequency,
 *   (a+c) + (b+d), ((a+c) - (b+d)) W^2, (e + f) W, (e - f) W^3,
 *   e = a - c, f = (b - d) w_4,
 * and for decimation in time (B = b W^2, C = c W, D = d W^3)
 *   (a+B) + (C+D), (a-B) + (C-D) w_4, (a+B) - (C+D), (a-B) - (C-D) w_4.
 * w_4 = 2^48 (inverse: -2^48), a multiplication by shifts; so three general
 * products per four outputs (none where W = 1). That is how the AVX-512
 * kernels compute; the portable ones keep two radix-2 stages (four general
 * products, with Wq = W w_4), which is faster for scalar code where a shift
 * multiplication costs about what a product does. Same values either way. */

#define GS_ALWAYS_INLINE static inline __attribute__((always_inline))

/* Decimation in frequency (natural order in, bit-reversed out). With logz >
 * 0 only the first m >> logz rows are meaningful (the rest are zero and are
 * never read): the first logz stages then reduce to b = a * w. */
GS_ALWAYS_INLINE void KFN(dif_lanes_)(gs_fp *S, unsigned logm, unsigned logz,
                                      const ntt_plan *p, const int inv) {
    const size_t m = (size_t)1 << logm, nz = m >> logz;
    int s = (int)logm - 1;
    for (unsigned z = 0; z < logz; z++, s--) {
        const size_t h = (size_t)1 << s;
        const gs_fp *w = p->tw[s];
        for (size_t blk = 0; blk < m; blk += 2 * h) {
            gs_fp *a = S + blk * NTT_LANES, *b = a + h * NTT_LANES;
            for (size_t j = 0; j < nz; j++) row_mul(b + j * NTT_LANES, a + j * NTT_LANES, w[j]);
        }
    }
    for (; s >= 1; s -= 2) { /* stages s and s-1 */
        const size_t h = (size_t)1 << s, q = h >> 1;
        const gs_fp *w1 = p->tw[s], *w2 = p->tw[s - 1], *w3 = p->tw3[s];
        for (size_t blk = 0; blk < m; blk += 2 * h) {
            gs_fp *r = S + blk * NTT_LANES;
            bfly4_dif0(r, q, w1[q], inv);
            for (size_t j = 1; j < q; j++)
                bfly4_dif(r + j * NTT_LANES, q, w1[j], w2[j], w3[j], w1[j + q], inv);
        }
    }
    if (s == 0) {
        for (size_t blk = 0; blk < m; blk += 2)
            bfly_dif1(S + blk * NTT_LANES, S + (blk + 1) * NTT_LANES);
    }
}

static void KFN(dif_lanes)(gs_fp *S, unsigned logm, unsigned logz, const ntt_plan *p) {
    if (p->inv)
        KFN(dif_lanes_)(S, logm, logz, p, 1);
    else
        KFN(dif_lanes_)(S, logm, logz, p, 0);
}

/* Decimation in time (bit-reversed in, natural out). */
GS_ALWAYS_INLINE void KFN(dit_lanes_)(gs_fp *S, unsigned logm, const ntt_plan *p,
                                      const int inv) {
    const size_t m = (size_t)1 << logm;
    unsigned s = 0;
    if (logm & 1) {
        const size_t h = (size_t)1 << s;
        const gs_fp *w = p->tw[s];
        for (size_t blk = 0; blk < m; blk += 2 * h) {
            gs_fp *a = S + blk * NTT_LANES, *b = a + h * NTT_LANES;
            bfly_dit1(a, b);
            for (size_t j = 1; j < h; j++) bfly_dit(a + j * NTT_LANES, b + j * NTT_LANES, w[j]);
        }
        s++;
    }
    for (; s < logm; s += 2) { /* stages s (half q) and s+1 */
        const size_t q = (size_t)1 << s, h = q << 1;
        const gs_fp *w = p->tw[s + 1], *w2 = p->tw[s], *w3 = p->tw3[s + 1];
        for (size_t blk = 0; blk < m; blk += 2 * h) {
            gs_fp *r = S + blk * NTT_LANES;
            bfly4_dit0(r, q, w[q], inv);
            for (size_t j = 1; j < q; j++)
                bfly4_dit(r + j * NTT_LANES, q, w[j], w2[j], w3[j], w[j + q], inv);
        }
    }
}

static void KFN(dit_lanes)(gs_fp *S, unsigned logm, const ntt_plan *p) {
    if (p->inv)
        KFN(dit_lanes_)(S, logm, p, 1);
    else
        KFN(dit_lanes_)(S, logm, p, 0);
}

/* The geometric twiddle lanes: V[u] = cv0 * cb^u for u < 4, and cb^4. */
static inline void KFN(chain_init)(const gs_fp *cv0, const gs_fp *cb, vec V[4], vec *b4) {
    vec b = v_load(cb), b2 = v_mul(b, b);
    V[0] = v_load(cv0);
    V[1] = v_mul(V[0], b);
    V[2] = v_mul(V[0], b2);
    V[3] = v_mul(V[1], b2);
    *b4 = v_mul(b2, b2);
}

/* ---- decimation-in-frequency four-step ---- */

static void KFN(dif_cols)(const ntt_plan *p, gs_fp *dst, const gs_fp *src, size_t g0, size_t g1,
                          gs_fp *S) {
    const size_t N1 = p->N1, N2 = p->N2, rows = N1 >> p->logB;
    const unsigned K1 = p->K1;
    for (size_t g = g0; g < g1; g++) {
        const gs_fp *sp = src + NTT_LANES * g;
        if (p->rowf) {
            gs_fp f = p->rho0;
            for (size_t i = 0; i < rows; i++) {
                v_store(S + i * NTT_LANES, v_mul(v_load(sp + i * N2), v_bcast(f)));
                f = gs_fp_mul(f, p->rho);
            }
        } else {
            for (size_t i = 0; i < rows; i++) v_store(S + i * NTT_LANES, v_load(sp + i * N2));
        }
        KFN(dif_lanes)(S, K1, p->logB, p);
        /* Scratch row r holds k1 = rev(r); it is scaled by w_N^(k1 j2) (times
         * any folded diagonal) and stored back to matrix row r. */
        vec V[4], b4;
        KFN(chain_init)(p->cv0 + NTT_LANES * g, p->cb + NTT_LANES * g, V, &b4);
        gs_fp *dp = dst + NTT_LANES * g;
        /* the next group's rows, one group ahead (the column passes stride
         * over the whole matrix: hardware prefetchers do not follow) */
        const int pf = g + 1 < g1;
        for (size_t k = 0; k < N1; k += 4) {
            if (pf) {
                if (k < rows) __builtin_prefetch(sp + NTT_LANES + k * N2);
                __builtin_prefetch(dp + NTT_LANES + k * N2, 1);
                __builtin_prefetch(dp + NTT_LANES + (k + 1) * N2, 1);
                __builtin_prefetch(dp + NTT_LANES + (k + 2) * N2, 1);
                __builtin_prefetch(dp + NTT_LANES + (k + 3) * N2, 1);
                if (k + 1 < rows) __builtin_prefetch(sp + NTT_LANES + (k + 1) * N2);
                if (k + 2 < rows) __builtin_prefetch(sp + NTT_LANES + (k + 2) * N2);
                if (k + 3 < rows) __builtin_prefetch(sp + NTT_LANES + (k + 3) * N2);
            }
            for (unsigned u = 0; u < 4; u++) {
                size_t r = gs_ntt_rev(k + u, K1);
                v_store(dp + r * N2, v_mul(v_load(S + r * NTT_LANES), V[u]));
                V[u] = v_mul(V[u], b4);
            }
        }
    }
}

static void KFN(dif_rows)(const ntt_plan *p, gs_fp *x, size_t g0, size_t g1, gs_fp *S) {
    const size_t N2 = p->N2;
    for (size_t g = g0; g < g1; g++) {
        gs_fp *rp = x + NTT_LANES * g * N2;
        for (size_t t = 0; t < N2; t += 8) {
            vec r[8];
            for (unsigned i = 0; i < 8; i++) r[i] = v_load(rp + i * N2 + t);
            v_transpose8(r);
            for (unsigned i = 0; i < 8; i++) v_store(S + (t + i) * NTT_LANES, r[i]);
        }
        KFN(dif_lanes)(S, p->K2, 0, p);
        for (size_t t = 0; t < N2; t += 8) {
            vec r[8];
            for (unsigned i = 0; i < 8; i++) r[i] = v_load(S + (t + i) * NTT_LANES);
            if (p->ftab)
                for (unsigned i = 0; i < 8; i++) r[i] = v_mul(r[i], v_bcast(p->ftab[t + i]));
            v_transpose8(r);
            for (unsigned i = 0; i < 8; i++) v_store(rp + i * N2 + t, r[i]);
        }
    }
}

/* ---- decimation-in-time four-step, natural order source ----
 * Group c is matrix rows r_l = rev(8c + l), l < 8. Row r_l at position t
 * holds (bit-reversed input) the source value of index rev_K(r_l N2 + t) =
 * rev(t) N1 + 8c + l: for a fixed t the 8 lanes are 8 adjacent source
 * values, a plain load, so the bit reversal costs nothing. */
static void KFN(dit_rows)(const ntt_plan *p, gs_fp *dst, const gs_fp *src, size_t g0, size_t g1,
                          gs_fp *S) {
    const size_t N1 = p->N1, N2 = p->N2;
    const unsigned K1 = p->K1, K2 = p->K2;
    for (size_t c = g0; c < g1; c++) {
        const gs_fp *sp = src + NTT_LANES * c;
        for (size_t t = 0; t < N2; t++)
            v_store(S + t * NTT_LANES, v_load(sp + gs_ntt_rev(t, K2) * N1));
        KFN(dit_lanes)(S, K2, p);
        /* Position t of row r_l is scaled by w_N^(rev(r_l) t) = w_N^((8c+l) t)
         * (times any folded diagonal), then rows are transposed back. */
        vec V[4], b4;
        KFN(chain_init)(p->cv0 + NTT_LANES * c, p->cb + NTT_LANES * c, V, &b4);
        gs_fp *rows[8];
        for (unsigned l = 0; l < 8; l++) rows[l] = dst + gs_ntt_rev(NTT_LANES * c + l, K1) * N2;
        const int pf = c + 1 < g1;
        for (size_t t = 0; t < N2; t += 8) {
            vec r[8];
            if (pf)
                for (size_t u = t; u < t + 8; u++)
                    __builtin_prefetch(sp + NTT_LANES + gs_ntt_rev(u, K2) * N1);
            for (unsigned i = 0; i < 8; i++) {
                r[i] = v_mul(v_load(S + (t + i) * NTT_LANES), V[i & 3]);
                V[i & 3] = v_mul(V[i & 3], b4);
            }
            v_transpose8(r);
            for (unsigned l = 0; l < 8; l++) v_store(rows[l] + t, r[l]);
        }
    }
}

static void KFN(dit_cols)(const ntt_plan *p, gs_fp *dst, const gs_fp *src, size_t g0, size_t g1,
                          gs_fp *S) {
    const size_t N1 = p->N1, N2 = p->N2;
    for (size_t g = g0; g < g1; g++) {
        const gs_fp *sp = src + NTT_LANES * g;
        gs_fp *dp = dst + NTT_LANES * g;
        for (size_t i = 0; i < N1; i++) v_store(S + i * NTT_LANES, v_load(sp + i * N2));
        KFN(dit_lanes)(S, p->K1, p);
        const int pf = g + 1 < g1;
        gs_fp f = p->rho0;
        for (size_t k = 0; k < N1; k++) {
            if (pf) {
                __builtin_prefetch(sp + NTT_LANES + k * N2);
                if (dp != sp) __builtin_prefetch(dp + NTT_LANES + k * N2, 1);
            }
            vec v = v_load(S + k * NTT_LANES);
            if (p->rowf) {
                v = v_mul(v, v_bcast(f));
                f = gs_fp_mul(f, p->rho);
            }
            v_store(dp + k * N2, v);
        }
    }
}

/* ---- in-place bit reversal, K >= 6 ----
 * Index i = (a, m, c) with a, c of 3 bits: rev(i) = (rev c, rev m, rev a).
 * Tile m (rows a, lanes c) trades places with tile rev(m), transposed and
 * with both 3-bit indices reversed. */
static inline void KFN(bitrev_tile)(vec t[8], vec out[8]) {
    static const unsigned char r3[8] = {0, 4, 2, 6, 1, 5, 3, 7};
    v_transpose8(t);
    for (unsigned a = 0; a < 8; a++) out[a] = v_revlanes(t[r3[a]]);
}

static void KFN(bitrev)(gs_fp *x, unsigned K, size_t g0, size_t g1, size_t step) {
    const unsigned M = K - 6;
    const size_t rs = (size_t)1 << (K - 3);
    for (size_t m = g0; m < g1; m += step) {
        /* The tiles rev(m) are scattered: fetch them a few tiles ahead (the
         * tiles m are 8 sequential streams the hardware follows). */
        if (m + 4 * step < g1) {
            size_t pm = gs_ntt_rev(m + 4 * step, M);
            if (pm > m + 4 * step)
                for (unsigned a = 0; a < 8; a++) __builtin_prefetch(x + a * rs + 8 * pm, 1);
        }
        size_t rm = gs_ntt_rev(m, M);
        if (rm < m) continue;
        vec A[8], B[8], NA[8], NB[8];
        for (unsigned a = 0; a < 8; a++) A[a] = v_load(x + a * rs + 8 * m);
        if (rm == m) {
            KFN(bitrev_tile)(A, NA);
            for (unsigned a = 0; a < 8; a++) v_store(x + a * rs + 8 * m, NA[a]);
        } else {
            for (unsigned a = 0; a < 8; a++) B[a] = v_load(x + a * rs + 8 * rm);
            KFN(bitrev_tile)(B, NA); /* new tile m comes from tile rev(m) */
            KFN(bitrev_tile)(A, NB);
            for (unsigned a = 0; a < 8; a++) {
                v_store(x + a * rs + 8 * m, NA[a]);
                v_store(x + a * rs + 8 * rm, NB[a]);
            }
        }
    }
}

const ntt_kernels KFN(gs_ntt_kernels) = {
    KFN_NAME,        KFN(dif_cols), KFN(dif_rows), KFN(dit_rows),
    KFN(dit_cols), KFN(bitrev),
};
