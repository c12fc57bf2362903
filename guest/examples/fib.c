/* Iterative Fibonacci: reads n (decimal) from the input and prints F(n) mod
 * 2^32 (F(0) = 0, F(1) = 1). About 4 instructions per step: the zkVM's
 * benchmark program (bench/bench_zkvm_exec.c). */
#include "gstark_guest.h"

int main(void) {
    char buf[32];
    size_t len = gs_read_full(buf, sizeof buf);
    uint32_t n = 0;
    size_t i = 0, digits = 0;
    while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\t' || buf[i] == '\r')) i++;
    for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++, digits++) {
        uint32_t d = (uint32_t)(buf[i] - '0');
        if (n > (0xFFFFFFFFu - d) / 10) {
            gs_puts(2, "fib: n does not fit in 32 bits\n");
            return 2;
        }
        n = n * 10 + d;
    }
    if (!digits) {
        gs_puts(2, "fib: give n in decimal on the input\n");
        return 2;
    }
    uint32_t a = 0, b = 1;
    for (uint32_t k = n; k; k--) {
        uint32_t t = a + b;
        a = b;
        b = t;
    }
    gs_put_u64(1, a, '\n');
    return 0;
}
