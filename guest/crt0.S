/* The gstark zkVM's start file: _start sets up gp, tp and sp, zeroes .bss
 * (the loader already gives zeroed memory; this makes no loader's habit a
 * requirement), calls main(0, 0) and exits with its return value through
 * ecall 93. Nothing else: no constructors, no argv, no environment. */
    .section .text.init.enter, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la tp, __tls_base
    la sp, __stack
    la t0, __bss_start
    la t1, __bss_end
1:  bgeu t0, t1, 2f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 1b
2:  li a0, 0
    li a1, 0
    call main
    li a7, 93
    ecall
3:  j 3b
    .size _start, . - _start
