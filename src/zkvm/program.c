/* A program: its segments checked against the machine's rules (zkvm.h,
 * gs_zkvm_program_new) and its text decoded once. The ELF loader (elf.c)
 * ends here too, so the rules live in one place. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "zkvm/zkvm_int.h"

gs_status gs_zkvm_refuse(char *msg, size_t cap, const char *fmt, ...) {
    if (msg && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return GS_ERR_INVALID_ARG;
}

static int seg_cmp(const void *a, const void *b) {
    const gs_zkvm_segment *x = a, *y = b;
    return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}


gs_status gs_zkvm_program_new(gs_zkvm_program **out, char *msg, size_t cap,
                              const gs_zkvm_segment *segs, size_t n, uint32_t entry) {
    if (msg && cap) msg[0] = 0;
    if (!out) return gs_zkvm_refuse(msg, cap, "no output pointer");
    *out = NULL;
    if (n == 0 || !segs) return gs_zkvm_refuse(msg, cap, "no loadable segment");
    if (n > GS_ZKVM_MAX_SEGMENTS)
        return gs_zkvm_refuse(msg, cap, "%zu loadable segments (at most %u)", n,
                              GS_ZKVM_MAX_SEGMENTS);
    gs_zkvm_segment s[GS_ZKVM_MAX_SEGMENTS];
    memcpy(s, segs, n * sizeof *s);
    qsort(s, n, sizeof *s, seg_cmp);
    uint64_t file_total = 0, image = 0;
    uint32_t text_lo = 0, text_hi = 0;
    int have_text = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t end = (uint64_t)s[i].vaddr + s[i].memsz;
        if (s[i].memsz == 0) return gs_zkvm_refuse(msg, cap, "segment at 0x%08x is empty", s[i].vaddr);
        if (s[i].filesz > s[i].memsz)
            return gs_zkvm_refuse(msg, cap, "segment at 0x%08x: %u file bytes exceed its %u bytes in memory",
                                  s[i].vaddr, s[i].filesz, s[i].memsz);
        if (s[i].filesz && !s[i].data)
            return gs_zkvm_refuse(msg, cap, "segment at 0x%08x has no data", s[i].vaddr);
        if (s[i].vaddr < GS_ZKVM_MEM_LO || end > GS_ZKVM_MEM_TOP)
            return gs_zkvm_refuse(msg, cap,
                                  "segment [0x%08x, 0x%09llx) is outside the memory image "
                                  "[0x%08x, 0x%08x)",
                                  s[i].vaddr, (unsigned long long)end, GS_ZKVM_MEM_LO, GS_ZKVM_MEM_TOP);
        if (i > 0 && (uint64_t)s[i - 1].vaddr + s[i - 1].memsz > s[i].vaddr)
            return gs_zkvm_refuse(msg, cap, "segments at 0x%08x and 0x%08x overlap", s[i - 1].vaddr,
                                  s[i].vaddr);
        if (s[i].flags & GS_ZKVM_SEG_X) {
            if (s[i].flags & GS_ZKVM_SEG_W)
                return gs_zkvm_refuse(msg, cap,
                                      "segment at 0x%08x is writable and executable: the text "
                                      "is read-only",
                                      s[i].vaddr);
            if (s[i].vaddr & 3)
                return gs_zkvm_refuse(msg, cap, "executable segment at 0x%08x is not 4-byte aligned",
                                      s[i].vaddr);
            if (!have_text) text_lo = s[i].vaddr;
            text_hi = (uint32_t)(end & ~(uint64_t)3);
            have_text = 1;
        }
        file_total += s[i].filesz;
        image += s[i].memsz;
    }
    if (!have_text) return gs_zkvm_refuse(msg, cap, "no executable segment");
    for (size_t i = 0; i < n; i++)
        if (!(s[i].flags & GS_ZKVM_SEG_X) && s[i].vaddr < text_hi &&
            (uint64_t)s[i].vaddr + s[i].memsz > text_lo)
            return gs_zkvm_refuse(msg, cap,
                                  "non-executable segment at 0x%08x lies inside the text "
                                  "[0x%08x, 0x%08x)",
                                  s[i].vaddr, text_lo, text_hi);
    /* The entry: an instruction word of an executable segment. */
    int entry_ok = 0;
    for (size_t i = 0; i < n; i++)
        if ((s[i].flags & GS_ZKVM_SEG_X) && entry >= s[i].vaddr &&
            (uint64_t)entry + 4 <= (uint64_t)s[i].vaddr + s[i].memsz)
            entry_ok = 1;
    if (entry & 3) return gs_zkvm_refuse(msg, cap, "entry 0x%08x is not 4-byte aligned", entry);
    if (!entry_ok)
        return gs_zkvm_refuse(msg, cap, "entry 0x%08x is not inside an executable segment", entry);

    gs_zkvm_program *p = calloc(1, sizeof *p);
    if (!p) return GS_ERR_NOMEM;
    p->n = (text_hi - text_lo) / 4;
    p->text_lo = text_lo;
    p->entry = entry;
    p->nseg = n;
    p->image_bytes = image;
    p->code = malloc((size_t)(p->n + 1) * sizeof *p->code);
    p->words = calloc((size_t)p->n + 1, sizeof *p->words);
    p->bytes = malloc(file_total ? (size_t)file_total : 1);
    if (!p->code || !p->words || !p->bytes) {
        gs_zkvm_program_free(p);
        return GS_ERR_NOMEM;
    }
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        p->seg[i] = s[i];
        if (s[i].filesz) memcpy(p->bytes + off, s[i].data, s[i].filesz);
        p->seg[i].data = p->bytes + off;
        off += s[i].filesz;
    }
    for (uint32_t k = 0; k <= p->n; k++) p->code[k] = (zk_insn){.op = ZK_NOTEXT, .rd = ZK_SINK};
    p->code[p->n].op = ZK_END;
    for (size_t i = 0; i < n; i++) {
        const gs_zkvm_segment *g = &p->seg[i];
        if (!(g->flags & GS_ZKVM_SEG_X)) continue;
        uint32_t words = g->memsz / 4, base = (g->vaddr - text_lo) / 4;
        for (uint32_t k = 0; k < words; k++) {
            uint32_t at = 4 * k, w = 0;
            /* Bytes past filesz are zero (a zero word is illegal). */
            for (uint32_t b = 0; b < 4; b++)
                if (at + b < g->filesz) w |= (uint32_t)g->data[at + b] << (8 * b);
            p->words[base + k] = w;
            p->code[base + k] = gs_zkvm_decode(w, g->vaddr + at);
        }
    }
    *out = p;
    return GS_OK;
}

void gs_zkvm_program_free(gs_zkvm_program *p) {
    if (!p) return;
    free(p->code);
    free(p->words);
    free(p->bytes);
    free(p);
}

void gs_zkvm_program_get_info(const gs_zkvm_program *p, gs_zkvm_program_info *out) {
    out->entry = p->entry;
    out->text_lo = p->text_lo;
    out->text_words = p->n;
    out->segments = (uint32_t)p->nseg;
    out->image_bytes = p->image_bytes;
}

const gs_zkvm_segment *gs_zkvm_program_segments(const gs_zkvm_program *p, size_t *n) {
    *n = p->nseg;
    return p->seg;
}
