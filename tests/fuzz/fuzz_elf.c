/* libFuzzer target for the zkVM's ELF loader and, behind it, the executor:
 * the input is an ELF file. The loader must refuse it with
 * GS_ERR_INVALID_ARG and a message, or load it; a loaded program then runs
 * (a few thousand cycles, a small input) on the fast and the traced paths,
 * which must stop in the same state (results, registers, pc, memory). Nothing may crash, leak, read out of
 * bounds or hit undefined behaviour.
 *
 * Build and run: tests/fuzz/run.sh [seconds] (seeded with the programs
 * test_zkvm_exec --write-elf makes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gstark/zkvm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gs_zkvm_program *p = NULL;
    char msg[160] = "";
    gs_status s = gs_zkvm_load_elf(&p, msg, sizeof msg, data, size);
    if (s != GS_OK) {
        if (s != GS_ERR_INVALID_ARG || p != NULL || !msg[0]) abort();
        return 0;
    }
    static const uint8_t input[] = "fuzz input\n";
    gs_zkvm_vm *a = NULL, *b = NULL;
    gs_zkvm_trace *tr = NULL;
    if (gs_zkvm_vm_new(&a, p, input, sizeof input - 1) != GS_OK ||
        gs_zkvm_vm_new(&b, p, input, sizeof input - 1) != GS_OK || gs_zkvm_trace_new(&tr) != GS_OK)
        abort();
    gs_zkvm_result ra, rb;
    if (gs_zkvm_vm_run(a, &ra, 4000) != GS_OK || gs_zkvm_vm_run_traced(b, tr, &rb, 4000) != GS_OK)
        abort();
    if (ra.stop != rb.stop || ra.cycles != rb.cycles || ra.exit_code != rb.exit_code ||
        ra.fault != rb.fault || strcmp(ra.msg, rb.msg) || tr->n_steps != rb.cycles ||
        memcmp(gs_zkvm_vm_regs(a), gs_zkvm_vm_regs(b), 32 * sizeof(uint32_t)) ||
        gs_zkvm_vm_pc(a) != gs_zkvm_vm_pc(b))
        abort();
    /* The memory where a short run writes: the segments and the top 64 KiB
     * (comparing all 16 MiB would touch every page of both machines, twice
     * the time of the rest; test_zkvm_exec compares all of it). */
    const uint8_t *ma = gs_zkvm_vm_memory(a), *mb = gs_zkvm_vm_memory(b);
    size_t n;
    const gs_zkvm_segment *seg = gs_zkvm_program_segments(p, &n);
    for (size_t i = 0; i < n; i++)
        if (memcmp(ma + seg[i].vaddr - GS_ZKVM_MEM_LO, mb + seg[i].vaddr - GS_ZKVM_MEM_LO, seg[i].memsz))
            abort();
    size_t top = GS_ZKVM_MEM_TOP - GS_ZKVM_MEM_LO;
    if (memcmp(ma + top - 65536, mb + top - 65536, 65536)) abort();
    gs_zkvm_trace_free(tr);
    gs_zkvm_vm_free(a);
    gs_zkvm_vm_free(b);
    gs_zkvm_program_free(p);
    return 0;
}
