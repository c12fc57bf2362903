/* Programs assembled in C for the zkVM benchmarks (bench_zkvm_exec,
 * bench_zkvm_prove): no cross toolchain needed. */
#ifndef GSTARK_BENCH_ZKVM_PROGRAMS_H
#define GSTARK_BENCH_ZKVM_PROGRAMS_H

#include <stdlib.h>

#include "../tests/zkvm_asm.h"
#include "gstark/zkvm.h"

#define TEXT 0x10000u
#define DATA 0x20000u

static inline gs_zkvm_program *from_words(const uint32_t *w, size_t n) {
    uint8_t *t = malloc(4 * n);
    if (!t) return NULL;
    for (size_t i = 0; i < 4 * n; i++) t[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
    gs_zkvm_segment s[2] = {
        {.vaddr = TEXT, .memsz = (uint32_t)(4 * n), .data = t, .filesz = (uint32_t)(4 * n), .flags = 5},
        {.vaddr = DATA, .memsz = 0x10000, .data = NULL, .filesz = 0, .flags = 6}};
    gs_zkvm_program *p = NULL;
    gs_zkvm_program_new(&p, NULL, 0, s, 2, TEXT);
    free(t);
    return p;
}

/* for (k = n; k; k--) { t = a + b; a = b; b = t; } exit(a) */
static inline gs_zkvm_program *fib_loop(uint32_t n) {
    uint32_t w[16];
    size_t i = 0;
    a_li(w + i, 5, n), i += 2;
    w[i++] = A_ADDI(10, 0, 0);
    w[i++] = A_ADDI(11, 0, 1);
    w[i++] = A_ADD(12, 10, 11); /* loop */
    w[i++] = A_ADDI(10, 11, 0);
    w[i++] = A_ADDI(11, 12, 0);
    w[i++] = A_ADDI(5, 5, -1);
    w[i++] = A_BNE(5, 0, -16);
    w[i++] = A_ADDI(17, 0, 93);
    w[i++] = A_ECALL;
    return from_words(w, i);
}

/* n times over a 4 KiB ring: x = load; acc = (acc + x) * x ^ acc; store;
 * advance the pointer (wrapping); a data-dependent branch. */
static inline gs_zkvm_program *mem_loop(uint32_t n) {
    uint32_t w[32];
    size_t i = 0;
    a_li(w + i, 5, n), i += 2;
    w[i++] = A_LUI(6, DATA >> 12);
    w[i++] = A_ADDI(8, 0, 1);
    w[i++] = A_LW(7, 0, 6);     /* loop */
    w[i++] = A_ADD(8, 8, 7);
    w[i++] = A_MUL(9, 8, 7);
    w[i++] = A_XOR(8, 8, 9);
    w[i++] = A_ADDI(8, 8, 7);
    w[i++] = A_SW(8, 0, 6);
    w[i++] = A_ADDI(6, 6, 4);
    w[i++] = A_ANDI(13, 6, 0x7FF);
    w[i++] = A_BNE(13, 0, 8);   /* every 2 KiB: back to the start */
    w[i++] = A_LUI(6, DATA >> 12);
    w[i++] = A_ADDI(5, 5, -1);
    w[i++] = A_BNE(5, 0, -44);
    w[i++] = A_ADDI(10, 8, 0);
    w[i++] = A_ADDI(17, 0, 93);
    w[i++] = A_ECALL;
    return from_words(w, i);
}

#endif
