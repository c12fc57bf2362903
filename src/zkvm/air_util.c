/* Helpers shared by the zkVM's tables (src/zkvm/zk_air.h). */
#include <stdlib.h>

#include "zkvm/zk_air.h"
#include "zkvm/zkvm_int.h"

gs_status zk_table_alloc(zk_table *t, uint32_t cols, uint64_t rows) {
    unsigned log_n = ZK_MIN_LOG_N;
    while (log_n < 40 && ((uint64_t)1 << log_n) < rows) log_n++;
    if (((uint64_t)1 << log_n) < rows || cols == 0) return GS_ERR_INVALID_ARG;
    t->cols = calloc((size_t)cols << log_n, sizeof(gs_fp));
    if (!t->cols) return GS_ERR_NOMEM;
    t->num_cols = cols, t->log_n = log_n;
    return GS_OK;
}

uint32_t zk_alu_ref(uint32_t op, uint32_t a, uint32_t b) {
    switch (op) {
    case ZK_ALU_ADD: return a + b;
    case ZK_ALU_SUB: return a - b;
    case ZK_ALU_XOR: return a ^ b;
    case ZK_ALU_OR: return a | b;
    case ZK_ALU_AND: return a & b;
    case ZK_ALU_SLT: return zk_i32(a) < zk_i32(b);
    case ZK_ALU_SLTU: return a < b;
    case ZK_ALU_EQ: return a == b;
    case ZK_ALU_SLL: return a << (b & 31);
    case ZK_ALU_SRL: return a >> (b & 31);
    case ZK_ALU_SRA: return zk_sra(a, b);
    case ZK_ALU_MUL: return a * b;
    case ZK_ALU_MULH: return zk_mulh(a, b);
    case ZK_ALU_MULHSU: return zk_mulhsu(a, b);
    case ZK_ALU_MULHU: return zk_mulhu(a, b);
    case ZK_ALU_DIV: return zk_div(a, b);
    case ZK_ALU_DIVU: return zk_divu(a, b);
    case ZK_ALU_REM: return zk_rem(a, b);
    default: return zk_remu(a, b);
    }
}
