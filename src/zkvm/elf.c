/* The ELF32 loader: reads the file header and the program headers with
 * bounds checks on every field (the file is untrusted), turns the PT_LOAD
 * entries into segments and hands them to gs_zkvm_program_new, which holds
 * the machine's rules. Section headers are not read: loading needs none. */
#include "zkvm/zkvm_int.h"

#define EH_SIZE 52u
#define PH_SIZE 32u
#define ET_EXEC 2u
#define EM_RISCV 243u
#define EF_RISCV_RVC 0x1u
#define EF_RISCV_FLOAT_ABI 0x6u
#define PT_LOAD 1u
#define PT_DYNAMIC 2u
#define PT_INTERP 3u

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return zk_ld32(p); }

gs_status gs_zkvm_load_elf(gs_zkvm_program **out, char *msg, size_t cap, const uint8_t *elf,
                           size_t len) {
    if (msg && cap) msg[0] = 0;
    if (!out) return gs_zkvm_refuse(msg, cap, "no output pointer");
    *out = NULL;
    if (!elf && len) return gs_zkvm_refuse(msg, cap, "no file bytes");
    if (len > GS_ZKVM_MAX_ELF_BYTES)
        return gs_zkvm_refuse(msg, cap, "ELF file of %zu bytes is larger than %zu MiB, the most loaded",
                              len, GS_ZKVM_MAX_ELF_BYTES >> 20);
    if (len < 4 || elf[0] != 0x7F || elf[1] != 'E' || elf[2] != 'L' || elf[3] != 'F')
        return gs_zkvm_refuse(msg, cap, "not an ELF file (no \\x7fELF magic)");
    if (len < EH_SIZE)
        return gs_zkvm_refuse(msg, cap, "truncated ELF header (%zu of %u bytes)", len, EH_SIZE);
    if (elf[4] != 1)
        return gs_zkvm_refuse(msg, cap, "not a 32-bit ELF (class %u; the machine is RV32)", elf[4]);
    if (elf[5] != 1)
        return gs_zkvm_refuse(msg, cap, "not a little-endian ELF (data encoding %u)", elf[5]);
    if (elf[6] != 1) return gs_zkvm_refuse(msg, cap, "unknown ELF version %u", elf[6]);
    if (elf[7] != 0 && elf[7] != 3)
        return gs_zkvm_refuse(msg, cap, "unsupported OS ABI %u (System V or GNU only)", elf[7]);
    uint32_t type = rd16(elf + 16), machine = rd16(elf + 18), version = rd32(elf + 20);
    uint32_t entry = rd32(elf + 24), phoff = rd32(elf + 28), flags = rd32(elf + 36);
    uint32_t ehsize = rd16(elf + 40), phentsize = rd16(elf + 42), phnum = rd16(elf + 44);
    if (machine != EM_RISCV)
        return gs_zkvm_refuse(msg, cap, "not a RISC-V ELF (machine %u, RISC-V is %u)", machine,
                              EM_RISCV);
    if (type != ET_EXEC)
        return gs_zkvm_refuse(msg, cap,
                              "not an executable (ELF type %u%s; link a static executable)", type,
                              type == 1 ? ", relocatable" : type == 3 ? ", shared or PIE" : "");
    if (version != 1) return gs_zkvm_refuse(msg, cap, "unknown ELF version %u", version);
    if (flags & EF_RISCV_RVC)
        return gs_zkvm_refuse(msg, cap,
                              "compiled with compressed instructions (RVC flag): the machine is "
                              "RV32IM (build with -march=rv32im)");
    if (flags & EF_RISCV_FLOAT_ABI)
        return gs_zkvm_refuse(msg, cap,
                              "hard-float ABI (flags 0x%x): the machine is RV32IM (build with "
                              "-mabi=ilp32)",
                              flags);
    if (ehsize < EH_SIZE) return gs_zkvm_refuse(msg, cap, "ELF header size %u below %u", ehsize, EH_SIZE);
    if (phnum == 0) return gs_zkvm_refuse(msg, cap, "no program headers");
    if (phentsize != PH_SIZE)
        return gs_zkvm_refuse(msg, cap, "program header size %u (ELF32's is %u)", phentsize, PH_SIZE);
    if ((uint64_t)phoff + (uint64_t)phnum * PH_SIZE > len)
        return gs_zkvm_refuse(msg, cap,
                              "program headers [%u, %llu) run past the end of the file (%zu bytes)",
                              phoff, (unsigned long long)phoff + (unsigned long long)phnum * PH_SIZE,
                              len);

    gs_zkvm_segment segs[GS_ZKVM_MAX_SEGMENTS];
    size_t n = 0;
    for (uint32_t i = 0; i < phnum; i++) {
        const uint8_t *ph = elf + phoff + (size_t)i * PH_SIZE;
        uint32_t pt = rd32(ph), off = rd32(ph + 4), vaddr = rd32(ph + 8), filesz = rd32(ph + 16);
        uint32_t memsz = rd32(ph + 20), pflags = rd32(ph + 24), align = rd32(ph + 28);
        if (pt == PT_DYNAMIC || pt == PT_INTERP)
            return gs_zkvm_refuse(msg, cap,
                                  "program header %u: dynamically linked (%s); link statically",
                                  i, pt == PT_DYNAMIC ? "PT_DYNAMIC" : "PT_INTERP");
        if (pt != PT_LOAD) continue;
        if ((uint64_t)off + filesz > len)
            return gs_zkvm_refuse(msg, cap,
                                  "segment %u: file bytes [%u, %llu) run past the end of the file "
                                  "(%zu bytes)",
                                  i, off, (unsigned long long)off + filesz, len);
        if (filesz > memsz)
            return gs_zkvm_refuse(msg, cap, "segment %u: %u file bytes exceed its %u bytes in memory",
                                  i, filesz, memsz);
        if (memsz == 0) continue; /* loads nothing (ld emits one for an empty rodata) */
        if (align > 1 && (align & (align - 1)))
            return gs_zkvm_refuse(msg, cap, "segment %u: alignment %u is not a power of two", i, align);
        if (align > 1 && (vaddr & (align - 1)) != (off & (align - 1)))
            return gs_zkvm_refuse(msg, cap,
                                  "segment %u: address 0x%08x and file offset 0x%x differ modulo "
                                  "its alignment %u",
                                  i, vaddr, off, align);
        if (n == GS_ZKVM_MAX_SEGMENTS)
            return gs_zkvm_refuse(msg, cap, "more than %u loadable segments", GS_ZKVM_MAX_SEGMENTS);
        segs[n++] = (gs_zkvm_segment){.vaddr = vaddr,
                                      .memsz = memsz,
                                      .data = elf + off,
                                      .filesz = filesz,
                                      .flags = pflags & 7u};
    }
    return gs_zkvm_program_new(out, msg, cap, segs, n, entry);
}
