/* One Keccak-f[1600] round, fully unrolled, written once for every lane type.
 *
 * The includer defines, before using KECCAK_ROUND:
 *   KT             the lane type (uint64_t, or a vector holding one lane of several states)
 *   KXOR(a, b)     a ^ b
 *   KXOR3(a, b, c) a ^ b ^ c
 *   KROL(a, n)     rotate each 64-bit lane left by n, 1 <= n <= 63
 *   KCHI(a, b, c)  a ^ (~b & c)
 *   KTHETA_D(l, r) l ^ rotl(r, 1)
 *   KIOTA(a, i)    a ^ round constant i (gs_keccak_rc[i])
 *
 * Lanes are local variables named P##xy: the row y in b g k m s (y = 0..4), the column x in
 * a e i o u (x = 0..4), so lane x + 5y of the FIPS 202 state array is P##ba ... P##su.
 * KECCAK_ROUND(A, E, i) reads round i's input from the A lanes and writes its output to the
 * E lanes; two calls with A and E swapped make a double round with no copies.
 *
 * theta: C[x] = xor of column x; D[x] = C[x-1] ^ rotl(C[x+1], 1); every lane ^= D[x].
 * rho+pi: B[y][2x+3y] = rotl(A[x][y], r[x][y]). Output row Y therefore takes, for X = 0..4,
 * input lane (x, y) = ((3 (Y - 3X)) mod 5, X) -- the lists below spell that out.
 * chi: E[x][y] = B[x][y] ^ (~B[x+1][y] & B[x+2][y]); iota: E[0][0] ^= RC[i]. */
#ifndef GS_KECCAK_ROUND_H
#define GS_KECCAK_ROUND_H

#define KECCAK_LANES(T, P)                                                                   \
    T P##ba, P##be, P##bi, P##bo, P##bu, P##ga, P##ge, P##gi, P##go, P##gu, P##ka, P##ke,  \
        P##ki, P##ko, P##ku, P##ma, P##me, P##mi, P##mo, P##mu, P##sa, P##se, P##si, P##so, \
        P##su

/* P##xy = LOAD(i) for lane index i = x + 5y. */
#define KECCAK_LOAD_LANES(P, LOAD)                                                          \
    do {                                                                                   \
        P##ba = LOAD(0); P##be = LOAD(1); P##bi = LOAD(2); P##bo = LOAD(3); P##bu = LOAD(4);       \
        P##ga = LOAD(5); P##ge = LOAD(6); P##gi = LOAD(7); P##go = LOAD(8); P##gu = LOAD(9);       \
        P##ka = LOAD(10); P##ke = LOAD(11); P##ki = LOAD(12); P##ko = LOAD(13); P##ku = LOAD(14);  \
        P##ma = LOAD(15); P##me = LOAD(16); P##mi = LOAD(17); P##mo = LOAD(18); P##mu = LOAD(19);  \
        P##sa = LOAD(20); P##se = LOAD(21); P##si = LOAD(22); P##so = LOAD(23); P##su = LOAD(24);  \
    } while (0)

/* STORE(i, P##xy) for lane index i = x + 5y. */
#define KECCAK_STORE_LANES(P, STORE)                                                        \
    do {                                                                                   \
        STORE(0, P##ba); STORE(1, P##be); STORE(2, P##bi); STORE(3, P##bo); STORE(4, P##bu);       \
        STORE(5, P##ga); STORE(6, P##ge); STORE(7, P##gi); STORE(8, P##go); STORE(9, P##gu);       \
        STORE(10, P##ka); STORE(11, P##ke); STORE(12, P##ki); STORE(13, P##ko); STORE(14, P##ku);  \
        STORE(15, P##ma); STORE(16, P##me); STORE(17, P##mi); STORE(18, P##mo); STORE(19, P##mu);  \
        STORE(20, P##sa); STORE(21, P##se); STORE(22, P##si); STORE(23, P##so); STORE(24, P##su);  \
    } while (0)

/* Output row from the five rotated lanes b0..b4 (chi). */
#define KECCAK_CHI_ROW_(E, y, b0, b1, b2, b3, b4) \
    E##y##a = KCHI(b0, b1, b2);                  \
    E##y##e = KCHI(b1, b2, b3);                  \
    E##y##i = KCHI(b2, b3, b4);                  \
    E##y##o = KCHI(b3, b4, b0);                  \
    E##y##u = KCHI(b4, b0, b1)

#define KECCAK_ROUND(A, E, i)                                                        \
    do {                                                                             \
        KT c0_ = KXOR3(KXOR3(A##ba, A##ga, A##ka), A##ma, A##sa);                    \
        KT c1_ = KXOR3(KXOR3(A##be, A##ge, A##ke), A##me, A##se);                    \
        KT c2_ = KXOR3(KXOR3(A##bi, A##gi, A##ki), A##mi, A##si);                    \
        KT c3_ = KXOR3(KXOR3(A##bo, A##go, A##ko), A##mo, A##so);                    \
        KT c4_ = KXOR3(KXOR3(A##bu, A##gu, A##ku), A##mu, A##su);                    \
        KT d0_ = KTHETA_D(c4_, c1_);                                                 \
        KT d1_ = KTHETA_D(c0_, c2_);                                                 \
        KT d2_ = KTHETA_D(c1_, c3_);                                                 \
        KT d3_ = KTHETA_D(c2_, c4_);                                                 \
        KT d4_ = KTHETA_D(c3_, c0_);                                                 \
        KT b0_, b1_, b2_, b3_, b4_;                                                  \
        /* row b: lanes (0,0) (1,1) (2,2) (3,3) (4,4) */                             \
        b0_ = KXOR(A##ba, d0_);                                                      \
        b1_ = KROL(KXOR(A##ge, d1_), 44);                                            \
        b2_ = KROL(KXOR(A##ki, d2_), 43);                                            \
        b3_ = KROL(KXOR(A##mo, d3_), 21);                                            \
        b4_ = KROL(KXOR(A##su, d4_), 14);                                            \
        KECCAK_CHI_ROW_(E, b, b0_, b1_, b2_, b3_, b4_);                              \
        E##ba = KIOTA(E##ba, i);                                                     \
        /* row g: lanes (3,0) (4,1) (0,2) (1,3) (2,4) */                             \
        b0_ = KROL(KXOR(A##bo, d3_), 28);                                            \
        b1_ = KROL(KXOR(A##gu, d4_), 20);                                            \
        b2_ = KROL(KXOR(A##ka, d0_), 3);                                             \
        b3_ = KROL(KXOR(A##me, d1_), 45);                                            \
        b4_ = KROL(KXOR(A##si, d2_), 61);                                            \
        KECCAK_CHI_ROW_(E, g, b0_, b1_, b2_, b3_, b4_);                              \
        /* row k: lanes (1,0) (2,1) (3,2) (4,3) (0,4) */                             \
        b0_ = KROL(KXOR(A##be, d1_), 1);                                             \
        b1_ = KROL(KXOR(A##gi, d2_), 6);                                             \
        b2_ = KROL(KXOR(A##ko, d3_), 25);                                            \
        b3_ = KROL(KXOR(A##mu, d4_), 8);                                             \
        b4_ = KROL(KXOR(A##sa, d0_), 18);                                            \
        KECCAK_CHI_ROW_(E, k, b0_, b1_, b2_, b3_, b4_);                              \
        /* row m: lanes (4,0) (0,1) (1,2) (2,3) (3,4) */                             \
        b0_ = KROL(KXOR(A##bu, d4_), 27);                                            \
        b1_ = KROL(KXOR(A##ga, d0_), 36);                                            \
        b2_ = KROL(KXOR(A##ke, d1_), 10);                                            \
        b3_ = KROL(KXOR(A##mi, d2_), 15);                                            \
        b4_ = KROL(KXOR(A##so, d3_), 56);                                            \
        KECCAK_CHI_ROW_(E, m, b0_, b1_, b2_, b3_, b4_);                              \
        /* row s: lanes (2,0) (3,1) (4,2) (0,3) (1,4) */                             \
        b0_ = KROL(KXOR(A##bi, d2_), 62);                                            \
        b1_ = KROL(KXOR(A##go, d3_), 55);                                            \
        b2_ = KROL(KXOR(A##ku, d4_), 39);                                            \
        b3_ = KROL(KXOR(A##ma, d0_), 41);                                            \
        b4_ = KROL(KXOR(A##se, d1_), 2);                                             \
        KECCAK_CHI_ROW_(E, s, b0_, b1_, b2_, b3_, b4_);                              \
    } while (0)

/* All 24 rounds, two per iteration, on lanes A (E is scratch); the result is back in A. */
#define KECCAK_PERMUTE(A, E)                      \
    do {                                          \
        for (int r_ = 0; r_ < 24; r_ += 2) {      \
            KECCAK_ROUND(A, E, r_);               \
            KECCAK_ROUND(E, A, r_ + 1);           \
        }                                         \
    } while (0)

#endif
