/* gstark_guest.h: input and output for programs that run on the gstark zkVM
 * (docs/zkvm.md, "The ABI"). Three system calls, Linux's numbers, so the same
 * binary also runs under qemu-riscv32:
 *
 *   gs_read(buf, len)        ecall 63, fd 0: the next bytes of the input;
 *                            returns how many (0 at its end)
 *   gs_write(fd, buf, len)   ecall 64, fd 1 or 2: appends to the output
 *   gs_exit(code)            ecall 93: stops with that exit code
 *
 * Anything else (another ecall, ebreak, a CSR, a misaligned or out-of-range
 * access) stops the machine with a fault. Returning from main exits with its
 * return value (guest/crt0.S). */
#ifndef GSTARK_GUEST_H
#define GSTARK_GUEST_H

#include <stddef.h>
#include <stdint.h>

static inline long gs_ecall3(long num, long a0, long a1, long a2) {
    register long r_a0 __asm__("a0") = a0;
    register long r_a1 __asm__("a1") = a1;
    register long r_a2 __asm__("a2") = a2;
    register long r_a7 __asm__("a7") = num;
    __asm__ volatile("ecall" : "+r"(r_a0) : "r"(r_a1), "r"(r_a2), "r"(r_a7) : "memory");
    return r_a0;
}

/* Reads up to len bytes of the input; returns the count, 0 at the end. */
static inline size_t gs_read(void *buf, size_t len) {
    return (size_t)gs_ecall3(63, 0, (long)buf, (long)len);
}

/* Writes len bytes to fd 1 (the output) or 2 (the error stream). */
static inline void gs_write(int fd, const void *buf, size_t len) {
    gs_ecall3(64, fd, (long)buf, (long)len);
}

static inline __attribute__((noreturn)) void gs_exit(int code) {
    gs_ecall3(93, code, 0, 0);
    __builtin_unreachable();
}

/* Reads until buf holds len bytes or the input ends; returns the count. */
static inline size_t gs_read_full(void *buf, size_t len) {
    size_t got = 0;
    while (got < len) {
        size_t k = gs_read((char *)buf + got, len - got);
        if (k == 0) break;
        got += k;
    }
    return got;
}

static inline void gs_puts(int fd, const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    gs_write(fd, s, n);
}

/* Formats v in decimal into out (at least 21 bytes); returns the length. */
static inline size_t gs_fmt_u64(char *out, uint64_t v) {
    char t[20];
    size_t n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) out[i] = t[n - 1 - i];
    out[n] = 0;
    return n;
}

/* Writes v in decimal, then `end` (a newline, a space, or 0 for nothing). */
static inline void gs_put_u64(int fd, uint64_t v, char end) {
    char b[22];
    size_t n = gs_fmt_u64(b, v);
    if (end) b[n++] = end;
    gs_write(fd, b, n);
}

#endif
