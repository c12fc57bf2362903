/* The zkVM's ELF loader and program rules: a valid file loads and runs;
 * every malformed one (each rule of gs_zkvm_load_elf and
 * gs_zkvm_program_new broken on its own, every truncation, random byte
 * mutations) is GS_ERR_INVALID_ARG with a message, never a crash (the ASan
 * build runs this too). The files are made in C (tests/zkvm_asm.h). */
#include "test_util.h"
#include "zkvm_asm.h"
#include "gstark/zkvm.h"

#define TEXT 0x10000u
#define DATA 0x20000u

static uint8_t text[12], data[16] = "zkvm data bytes";

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}
static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }

/* The valid file: text (r-x) at TEXT, data (rw-) at DATA with a bss tail. */
static uint8_t *valid(size_t *len) {
    const uint32_t words[3] = {A_ADDI(10, 0, 42), A_ADDI(17, 0, 93), A_ECALL};
    for (int i = 0; i < 12; i++) text[i] = (uint8_t)(words[i / 4] >> (8 * (i % 4)));
    zk_elf_seg s[2] = {{.vaddr = TEXT, .memsz = 12, .flags = 5, .data = text, .filesz = 12},
                       {.vaddr = DATA, .memsz = 0x1000, .flags = 6, .data = data, .filesz = 16}};
    uint8_t *e = zk_elf_write(len, s, 2, TEXT);
    if (!e) exit(1);
    return e;
}

/* Loads e (len bytes); returns the status, the message in msg. */
static gs_status load(const uint8_t *e, size_t len, char *msg, size_t cap) {
    gs_zkvm_program *p = (gs_zkvm_program *)1;
    gs_status s = gs_zkvm_load_elf(&p, msg, cap, e, len);
    if (s == GS_OK) {
        gs_zkvm_program_free(p);
    } else {
        CHECK(p == NULL);
    }
    return s;
}

static void test_valid(void) {
    size_t len;
    uint8_t *e = valid(&len);
    gs_zkvm_program *p = NULL;
    char msg[160];
    CHECK(gs_zkvm_load_elf(&p, msg, sizeof msg, e, len) == GS_OK);
    gs_zkvm_program_info info;
    gs_zkvm_program_get_info(p, &info);
    CHECK(info.entry == TEXT && info.text_lo == TEXT && info.text_words == 3 && info.segments == 2 &&
          info.image_bytes == 12 + 0x1000);
    size_t n;
    const gs_zkvm_segment *seg = gs_zkvm_program_segments(p, &n);
    CHECK(n == 2 && seg[1].vaddr == DATA && seg[1].filesz == 16 && memcmp(seg[1].data, data, 16) == 0);
    gs_zkvm_vm *vm;
    gs_zkvm_result r;
    CHECK(gs_zkvm_vm_new(&vm, p, NULL, 0) == GS_OK);
    CHECK(gs_zkvm_vm_run(vm, &r, 100) == GS_OK && r.stop == GS_ZKVM_EXITED && r.exit_code == 42 &&
          r.cycles == 3);
    const uint8_t *m = gs_zkvm_vm_memory(vm);
    CHECK(memcmp(m + DATA - GS_ZKVM_MEM_LO, data, 16) == 0);
    CHECK(m[DATA + 16 - GS_ZKVM_MEM_LO] == 0 && m[DATA + 0xFFF - GS_ZKVM_MEM_LO] == 0);
    /* tools may not write into the text */
    CHECK(gs_zkvm_vm_write(vm, TEXT + 4, "x", 1) == GS_ERR_INVALID_ARG);
    CHECK(gs_zkvm_vm_write(vm, DATA, "x", 1) == GS_OK);
    CHECK(gs_zkvm_vm_write(vm, GS_ZKVM_MEM_TOP - 1, "xy", 2) == GS_ERR_INVALID_ARG);
    CHECK(gs_zkvm_vm_set_reg(vm, 0, 1) == GS_ERR_INVALID_ARG);
    gs_zkvm_vm_free(vm);
    gs_zkvm_program_free(p);
    gs_zkvm_program_free(NULL);
    gs_zkvm_vm_free(NULL);
    gs_zkvm_trace_free(NULL);
    free(e);
}

typedef struct refusal {
    const char *name;
    size_t at;      /* byte offset to patch (SIZE_MAX: none) */
    int width;      /* 1, 2 or 4 */
    uint32_t value;
    const char *msg; /* expected in the message */
} refusal;

#define PH(i, field) (52 + 32 * (i) + (field)) /* program header i's field offset */

static void test_refusals(void) {
    size_t len;
    uint8_t *base = valid(&len);
    const refusal r[] = {
        {"bad magic", 1, 1, 'X', "not an ELF"},
        {"ELF64", 4, 1, 2, "32-bit"},
        {"big-endian", 5, 1, 2, "little-endian"},
        {"ident version", 6, 1, 0, "version"},
        {"OS ABI", 7, 1, 97, "OS ABI"},
        {"relocatable", 16, 2, 1, "relocatable"},
        {"shared / PIE", 16, 2, 3, "shared or PIE"},
        {"x86-64", 18, 2, 62, "not a RISC-V"},
        {"e_version", 20, 4, 2, "version"},
        {"RVC flag", 36, 4, 1, "compressed"},
        {"double-float ABI", 36, 4, 4, "hard-float"},
        {"single-float ABI", 36, 4, 2, "hard-float"},
        {"ehsize", 40, 2, 20, "header size"},
        {"phentsize 56", 42, 2, 56, "program header size"},
        {"no program headers", 44, 2, 0, "no program headers"},
        {"phoff past the end", 28, 4, 0x7FFFFFF0, "past the end"},
        {"phoff overflows", 28, 4, 0xFFFFFFF0, "past the end"},
        {"phnum past the end", 44, 2, 0xFFFF, "past the end"},
        {"segment bytes past the end", PH(1, 16), 4, 0x100000, "past the end"},
        {"segment offset overflows", PH(1, 4), 4, 0xFFFFFFF8, "past the end"},
        {"filesz > memsz", PH(1, 20), 4, 8, "exceed"},
        {"align not a power of two", PH(0, 28), 4, 3, "power of two"},
        {"align mismatch", PH(1, 8), 4, DATA + 0x10, "modulo"},
        {"below the image", PH(1, 8), 4, 0x1000, "outside the memory image"},
        {"null page", PH(0, 8), 4, 0, "outside the memory image"},
        {"past the top", PH(1, 20), 4, 0x01000000, "outside the memory image"},
        {"address wraps", PH(1, 8), 4, 0xFFFFF000, "outside the memory image"},
        {"overlap", PH(1, 8), 4, TEXT, "overlap"},
        {"writable text", PH(0, 24), 4, 7, "writable and executable"},
        {"no executable segment", PH(0, 24), 4, 4, "no executable segment"},
        {"entry in data", 24, 4, DATA, "not inside an executable segment"},
        {"entry past the text", 24, 4, TEXT + 12, "not inside an executable segment"},
        {"entry misaligned", 24, 4, TEXT + 2, "not 4-byte aligned"},
        {"dynamic", PH(1, 0), 4, 2, "dynamically linked"},
        {"interpreter", PH(1, 0), 4, 3, "dynamically linked"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        uint8_t *e = malloc(len);
        memcpy(e, base, len);
        if (r[i].width == 1) e[r[i].at] = (uint8_t)r[i].value;
        else if (r[i].width == 2) put16(e + r[i].at, r[i].value);
        else put32(e + r[i].at, r[i].value);
        char msg[160] = "";
        gs_status s = load(e, len, msg, sizeof msg);
        int ok = s == GS_ERR_INVALID_ARG && strstr(msg, r[i].msg) != NULL;
        if (!ok) fprintf(stderr, "%s: status %d, message '%s' (want '%s')\n", r[i].name, s, msg, r[i].msg);
        CHECK(ok);
        free(e);
    }
    char msg[160];
    /* A misaligned executable segment (and its entry). */
    {
        uint8_t *e = malloc(len);
        memcpy(e, base, len);
        put32(e + PH(0, 8), TEXT + 2), put32(e + PH(0, 28), 0), put32(e + 24, TEXT + 2);
        CHECK(load(e, len, msg, sizeof msg) == GS_ERR_INVALID_ARG && strstr(msg, "not 4-byte aligned"));
        free(e);
    }
    /* Too large a file: refused from its length, before reading. */
    CHECK(load(base, GS_ZKVM_MAX_ELF_BYTES + 1, msg, sizeof msg) == GS_ERR_INVALID_ARG &&
          strstr(msg, "larger than"));
    /* No bytes at all; a NULL message buffer. */
    CHECK(load(NULL, 0, msg, sizeof msg) == GS_ERR_INVALID_ARG);
    CHECK(load(base, 10, NULL, 0) == GS_ERR_INVALID_ARG);
    CHECK(gs_zkvm_load_elf(NULL, NULL, 0, base, len) == GS_ERR_INVALID_ARG);
    /* Every truncation (the segments' bytes end the file). */
    int all = 1;
    for (size_t k = 0; k < len; k++) {
        uint8_t *e = malloc(k ? k : 1);
        memcpy(e, base, k);
        if (load(e, k, msg, sizeof msg) != GS_ERR_INVALID_ARG || !msg[0]) {
            fprintf(stderr, "truncation to %zu bytes was not refused\n", k);
            all = 0;
        }
        free(e);
    }
    CHECK(all);
    free(base);

    /* More segments than the machine takes; an empty PT_LOAD is skipped. */
    static uint8_t page[4];
    zk_elf_seg many[GS_ZKVM_MAX_SEGMENTS + 1];
    for (size_t k = 0; k <= GS_ZKVM_MAX_SEGMENTS; k++)
        many[k] = (zk_elf_seg){.vaddr = TEXT + 0x1000 * (uint32_t)k, .memsz = k ? 4 : 12,
                               .flags = k ? 6 : 5, .data = k ? page : text, .filesz = k ? 4 : 12};
    uint8_t *e = zk_elf_write(&len, many, GS_ZKVM_MAX_SEGMENTS + 1, TEXT);
    CHECK(load(e, len, msg, sizeof msg) == GS_ERR_INVALID_ARG && strstr(msg, "more than 64"));
    free(e);
    e = zk_elf_write(&len, many, GS_ZKVM_MAX_SEGMENTS, TEXT);
    CHECK(load(e, len, msg, sizeof msg) == GS_OK);
    free(e);
    /* an empty one at address 0, as ld emits for an empty rodata: skipped */
    many[1].memsz = many[1].filesz = 0, many[1].vaddr = 0;
    e = zk_elf_write(&len, many, 3, TEXT);
    gs_zkvm_program *p = NULL;
    CHECK(gs_zkvm_load_elf(&p, msg, sizeof msg, e, len) == GS_OK);
    size_t nseg = 0;
    if (p) gs_zkvm_program_segments(p, &nseg);
    CHECK(nseg == 2);
    gs_zkvm_program_free(p);
    free(e);
    /* A non-executable segment inside the text span. */
    zk_elf_seg gap[3] = {{.vaddr = TEXT, .memsz = 12, .flags = 5, .data = text, .filesz = 12},
                         {.vaddr = TEXT + 0x1000, .memsz = 4, .flags = 6, .data = page, .filesz = 4},
                         {.vaddr = TEXT + 0x2000, .memsz = 12, .flags = 5, .data = text, .filesz = 12}};
    e = zk_elf_write(&len, gap, 3, TEXT);
    CHECK(load(e, len, msg, sizeof msg) == GS_ERR_INVALID_ARG && strstr(msg, "inside the text"));
    free(e);
    /* Two executable segments with a gap: a jump into the gap faults. */
    gap[1].flags = 4, gap[1].vaddr = TEXT + 0x3000;
    uint32_t jw[3] = {A_JAL(0, 0x1000), A_ADDI(17, 0, 93), A_ECALL};
    uint8_t jt[12];
    for (int i = 0; i < 12; i++) jt[i] = (uint8_t)(jw[i / 4] >> (8 * (i % 4)));
    gap[0].data = jt;
    e = zk_elf_write(&len, gap, 3, TEXT);
    p = NULL;
    CHECK(gs_zkvm_load_elf(&p, msg, sizeof msg, e, len) == GS_OK);
    if (p) {
        gs_zkvm_vm *vm;
        gs_zkvm_result res;
        CHECK(gs_zkvm_vm_new(&vm, p, NULL, 0) == GS_OK);
        CHECK(gs_zkvm_vm_run(vm, &res, 10) == GS_OK && res.stop == GS_ZKVM_FAULT &&
              res.fault == GS_ZKVM_FAULT_FETCH && res.fault_pc == TEXT + 0x1000 && res.cycles == 1);
        gs_zkvm_vm_free(vm);
    }
    gs_zkvm_program_free(p);
    free(e);
}

/* gs_zkvm_program_new's own argument checks. */
static void test_program_new(void) {
    gs_zkvm_program *p = NULL;
    char msg[160];
    gs_zkvm_segment s = {.vaddr = TEXT, .memsz = 12, .data = text, .filesz = 12, .flags = 5};
    CHECK(gs_zkvm_program_new(&p, msg, sizeof msg, &s, 0, TEXT) == GS_ERR_INVALID_ARG);
    CHECK(gs_zkvm_program_new(&p, msg, sizeof msg, NULL, 1, TEXT) == GS_ERR_INVALID_ARG);
    s.memsz = 0, s.filesz = 0;
    CHECK(gs_zkvm_program_new(&p, msg, sizeof msg, &s, 1, TEXT) == GS_ERR_INVALID_ARG && strstr(msg, "empty"));
    s.memsz = 12, s.filesz = 12, s.data = NULL;
    CHECK(gs_zkvm_program_new(&p, msg, sizeof msg, &s, 1, TEXT) == GS_ERR_INVALID_ARG && strstr(msg, "no data"));
    s.data = text;
    CHECK(gs_zkvm_program_new(&p, msg, sizeof msg, &s, 1, TEXT) == GS_OK && p);
    gs_zkvm_program_free(p);
    /* A text whose size is not a whole number of words: the tail is no instruction. */
    uint8_t text14[14] = {0};
    memcpy(text14, text, 12);
    s.data = text14, s.memsz = s.filesz = 14;
    CHECK(gs_zkvm_program_new(&p, msg, sizeof msg, &s, 1, TEXT) == GS_OK && p);
    gs_zkvm_program_info info;
    if (p) gs_zkvm_program_get_info(p, &info);
    CHECK(p && info.text_words == 3);
    gs_zkvm_program_free(p);
}

/* Random byte changes in the headers: loaded or refused, never a crash; a
 * program that loads runs a few cycles. */
static void test_mutations(void) {
    size_t len;
    uint8_t *base = valid(&len);
    int loaded = 0, refused = 0;
    for (int t = 0; t < 20000; t++) {
        uint8_t *e = malloc(len);
        memcpy(e, base, len);
        int flips = 1 + (int)gs_test_below(4);
        for (int k = 0; k < flips; k++) {
            size_t at = gs_test_below(4) ? gs_test_below(52 + 64) : gs_test_below(len);
            e[at] = gs_test_below(2) ? (uint8_t)gs_test_u64() : (uint8_t)(e[at] ^ (1u << gs_test_below(8)));
        }
        size_t l = gs_test_below(8) ? len : gs_test_below(len + 1);
        gs_zkvm_program *p = NULL;
        char msg[160] = "";
        gs_status s = gs_zkvm_load_elf(&p, msg, sizeof msg, e, l);
        if (s == GS_OK) {
            gs_zkvm_vm *vm = NULL;
            gs_zkvm_result r;
            CHECK(gs_zkvm_vm_new(&vm, p, NULL, 0) == GS_OK);
            CHECK(gs_zkvm_vm_run(vm, &r, 1000) == GS_OK && r.stop != GS_ZKVM_READY);
            gs_zkvm_vm_free(vm);
            gs_zkvm_program_free(p);
            loaded++;
        } else {
            CHECK(s == GS_ERR_INVALID_ARG && p == NULL && msg[0]);
            refused++;
        }
        free(e);
    }
    printf("mutations: %d loaded, %d refused\n", loaded, refused);
    CHECK(loaded > 0 && refused > 0);
    free(base);
}

int main(int argc, char **argv) {
    gs_test_init(argc, argv);
    test_valid();
    test_refusals();
    test_program_new();
    test_mutations();
    return gs_test_done();
}
