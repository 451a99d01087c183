/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg: the GPU MMU (device 1.9)
 *
 * GPU virtual addresses as WDDM's GpuMmu model has them: multi-level page
 * tables that live in a memory segment (MMU_PT_SEGMENT) and are read from
 * it, entry by entry, by the walker; a TLB per address space (named by
 * the GPU address of its root table) that keeps every translation it
 * caches until the driver flushes it; hardware contexts, each bound to a
 * root (the DxgkDdiSetRootPageTable analogue) and running a small queue of
 * copy and fill commands addressed by VA; GPU page faults that stop the
 * faulting context only. The copy engine gets the paging operations of
 * the VA family (UPDATE_PAGE_TABLE, FLUSH_TLB, TRANSFER_VIRTUAL,
 * FILL_VIRTUAL; COPY_PAGE_TABLE_ENTRIES is refused: the depth is fixed and
 * the root never grows), run through wddmseg_mmu_exec() from the engine.
 *
 * Geometry: 3 levels of 4 KiB tables of 512 64-bit entries, 4 KiB pages:
 * 39-bit VAs. The entry format is wddmseg_hw.h's WDDMSEG_PTE_*.
 *
 * Everything here runs with the BQL held: the registers in the vCPU, the
 * paging operations and the context queues in the engine's thread
 * (wddmseg_engine_thread() runs wddmseg_mmu_batch() beside the ring's
 * batches). Moves go through the engine's bounce buffer, a page piece at
 * a time.
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "migration/vmstate.h"
#include "system/dma.h"
#include "system/runstate.h"

#include "wddmseg-internal.h"
#include "trace.h"

/* Commands one context runs per batch at most. */
#define WDDMSEG_CTX_BATCH_CMDS  16

/* What an UPDATE_PAGE_TABLE entry counts against x-batch-bytes. */
#define WDDMSEG_PTE_COST        8

/* Where a translated VA is: VRAM (offset) or system memory (DMA). */
typedef struct WddmsegXlate {
    bool vram;
    uint64_t addr;              /* of the byte at the VA */
    uint64_t len;               /* bytes from there to the end of the page */
} WddmsegXlate;

/* A GPU page fault, before it is recorded. */
typedef struct WddmsegVaFault {
    uint32_t reason;            /* WDDMSEG_MMU_FAULT_* */
    uint32_t access;            /* WDDMSEG_MMU_ACCESS_* */
    uint32_t level;             /* level of the entry that faulted */
    uint64_t va;
} WddmsegVaFault;

/* A copy (src_root set) or a fill of size bytes, by VA. */
typedef struct WddmsegVaOp {
    uint64_t size;
    bool fill;
    uint32_t pattern;
    uint64_t src_root, src_va;
    uint64_t dst_root, dst_va;
} WddmsegVaOp;

static const char *const wddmseg_mmu_reasons[] = {
    [WDDMSEG_MMU_FAULT_NONE] = "none",
    [WDDMSEG_MMU_FAULT_INVALID] = "entry not valid",
    [WDDMSEG_MMU_FAULT_READ_ONLY] = "write through a read-only entry",
    [WDDMSEG_MMU_FAULT_SEGMENT] = "entry names no memory segment",
    [WDDMSEG_MMU_FAULT_RANGE] = "page or VA out of range",
    [WDDMSEG_MMU_FAULT_RESERVED] = "reserved entry bits set",
    [WDDMSEG_MMU_FAULT_PT_SEGMENT] = "page table outside the page-table "
                                     "segment",
    [WDDMSEG_MMU_FAULT_DMA] = "system memory access failed",
    [WDDMSEG_MMU_FAULT_NO_ROOT] = "no root page table",
    [WDDMSEG_MMU_FAULT_BAD_COMMAND] = "malformed context command",
};

static const char *wddmseg_mmu_reason(uint32_t reason)
{
    return reason < ARRAY_SIZE(wddmseg_mmu_reasons) ?
           wddmseg_mmu_reasons[reason] : "unknown";
}

/* ------------------------------------------------------------------------ */
/* Geometry                                                                 */
/* ------------------------------------------------------------------------ */

static bool wddmseg_mem_segment(const WddmsegSegment *seg)
{
    return !(seg->flags & (DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_AGP));
}

/*
 * MMU_PT_SEGMENT: the mmu-pt-segment property, or (0) the first memory
 * segment without CpuVisible, else the first memory segment; no memory
 * segment at all: no MMU (MMU_CAPS.PRESENT clear).
 */
bool wddmseg_mmu_realize(WddmsegState *s, Error **errp)
{
    unsigned int i;

    s->mmu_pt_seg = 0;
    if (s->mmu_pt_seg_prop) {
        i = s->mmu_pt_seg_prop - 1;
        if (s->mmu_pt_seg_prop > s->layout.seg_count ||
            !wddmseg_mem_segment(&s->layout.segs[i])) {
            error_setg(errp, "mmu-pt-segment %u is not a memory segment of "
                       "the layout", s->mmu_pt_seg_prop);
            return false;
        }
        s->mmu_pt_seg = s->mmu_pt_seg_prop;
        return true;
    }
    for (i = 0; i < s->layout.seg_count; i++) {
        if (wddmseg_mem_segment(&s->layout.segs[i]) &&
            !(s->layout.segs[i].flags & DXGK_SEGFLAG_CPU_VISIBLE)) {
            s->mmu_pt_seg = i + 1;
            return true;
        }
    }
    for (i = 0; i < s->layout.seg_count; i++) {
        if (wddmseg_mem_segment(&s->layout.segs[i])) {
            s->mmu_pt_seg = i + 1;
            return true;
        }
    }
    return true;
}

/* A whole aligned table at GPU address t, inside the PT segment and VRAM. */
static bool wddmseg_pt_ok(WddmsegState *s, uint64_t t)
{
    const WddmsegSegment *seg;

    if (!s->mmu_pt_seg || t % WDDMSEG_MMU_PT_SIZE) {
        return false;
    }
    seg = &s->layout.segs[s->mmu_pt_seg - 1];
    return seg->size >= WDDMSEG_MMU_PT_SIZE && t >= seg->base &&
           t - seg->base <= seg->size - WDDMSEG_MMU_PT_SIZE &&
           s->vram_size >= WDDMSEG_MMU_PT_SIZE &&
           t <= s->vram_size - WDDMSEG_MMU_PT_SIZE;
}

/* ------------------------------------------------------------------------ */
/* TLBs                                                                     */
/* ------------------------------------------------------------------------ */

/*
 * The TLB of the address space of root: found, or (alloc) a free one or
 * the least recently used one, emptied.
 */
static WddmsegTlb *wddmseg_tlb_get(WddmsegState *s, uint64_t root, bool alloc)
{
    WddmsegTlb *t, *victim = NULL;
    unsigned int i;

    for (i = 0; i < WDDMSEG_MMU_TLBS; i++) {
        t = &s->tlb[i];
        if (t->used && t->root == root) {
            t->stamp = ++s->tlb_clock;
            return t;
        }
    }
    if (!alloc) {
        return NULL;
    }
    for (i = 0; i < WDDMSEG_MMU_TLBS; i++) {
        t = &s->tlb[i];
        if (!t->used) {
            victim = t;
            break;
        }
        if (!victim || t->stamp < victim->stamp) {
            victim = t;
        }
    }
    if (victim->used) {
        trace_wddmseg_tlb_flush("replaced", victim->root, 0, 0,
                                WDDMSEG_TLB_ENTRIES);
    }
    memset(victim, 0, sizeof(*victim));
    victim->used = true;
    victim->root = root;
    victim->stamp = ++s->tlb_clock;
    return victim;
}

/*
 * Drop the cached translations of [start, end) (VAs, page aligned) of the
 * address space of root; start == end == 0: all of them.
 */
static void wddmseg_tlb_flush_space(WddmsegState *s, uint64_t root,
                                    uint64_t start, uint64_t end)
{
    WddmsegTlb *t = wddmseg_tlb_get(s, root, false);
    uint32_t dropped = 0;
    unsigned int i;

    if (t) {
        for (i = 0; i < WDDMSEG_TLB_ENTRIES; i++) {
            WddmsegTlbEntry *e = &t->e[i];

            if (e->pte && ((!start && !end) ||
                           (e->vpn >= start >> 12 && e->vpn < end >> 12))) {
                e->pte = 0;
                dropped++;
            }
        }
        if (!start && !end) {
            t->used = false;
        }
    }
    trace_wddmseg_tlb_flush(start || end ? "range" : "space", root, start,
                            end, dropped);
}

static void wddmseg_tlb_flush_all(WddmsegState *s)
{
    unsigned int i;

    for (i = 0; i < WDDMSEG_MMU_TLBS; i++) {
        s->tlb[i].used = false;
    }
    trace_wddmseg_tlb_flush("all", 0, 0, 0, 0);
}

/* ------------------------------------------------------------------------ */
/* The walker                                                               */
/* ------------------------------------------------------------------------ */

/*
 * The leaf entry of va in the address space of root, from the TLB or by
 * walking the tables in VRAM. Returns a WDDMSEG_MMU_FAULT_* reason,
 * *level the level of the entry that faulted; *slot is the TLB entry to
 * fill once the translation succeeds, NULL on a hit.
 */
static uint32_t wddmseg_mmu_pte(WddmsegState *s, uint64_t root, uint64_t va,
                                uint64_t *pte, uint32_t *level,
                                WddmsegTlbEntry **slot)
{
    uint64_t vpn = va >> 12, table = root, entry = 0;
    WddmsegTlb *t;
    WddmsegTlbEntry *e;
    int l;

    *level = WDDMSEG_MMU_LEVELS - 1;
    *slot = NULL;
    if (!root) {
        return WDDMSEG_MMU_FAULT_NO_ROOT;
    }
    if (va >> WDDMSEG_MMU_VA_BITS) {
        return WDDMSEG_MMU_FAULT_RANGE;
    }
    t = wddmseg_tlb_get(s, root, true);
    e = &t->e[vpn % WDDMSEG_TLB_ENTRIES];
    if (e->pte && e->vpn == vpn) {
        trace_wddmseg_tlb_hit(root, va, e->pte);
        *pte = e->pte;
        *level = 0;
        return WDDMSEG_MMU_FAULT_NONE;
    }
    trace_wddmseg_tlb_miss(root, va);
    for (l = WDDMSEG_MMU_LEVELS - 1; l >= 0; l--) {
        unsigned int idx = (va >> (12 + l * WDDMSEG_MMU_LEVEL_BITS)) &
                           (WDDMSEG_MMU_PT_ENTRIES - 1);

        *level = l;
        if (!wddmseg_pt_ok(s, table)) {
            trace_wddmseg_mmu_walk(root, va, l, table, 0);
            return WDDMSEG_MMU_FAULT_PT_SEGMENT;
        }
        entry = ldq_le_p(s->vram_ptr + table + idx * sizeof(uint64_t));
        trace_wddmseg_mmu_walk(root, va, l, table, entry);
        if (!(entry & WDDMSEG_PTE_VALID)) {
            return WDDMSEG_MMU_FAULT_INVALID;
        }
        if (l > 0) {
            if (entry & ~WDDMSEG_PTE_ADDR_MASK & ~WDDMSEG_PTE_VALID) {
                return WDDMSEG_MMU_FAULT_RESERVED;
            }
            table = entry & WDDMSEG_PTE_ADDR_MASK;
        }
    }
    if (entry & (WDDMSEG_PTE_ZERO | WDDMSEG_PTE_LARGE_PAGE |
                 WDDMSEG_PTE_RESERVED)) {
        return WDDMSEG_MMU_FAULT_RESERVED;
    }
    *slot = e;
    *pte = entry;
    return WDDMSEG_MMU_FAULT_NONE;
}

/*
 * Translate va for an access (WDDMSEG_MMU_ACCESS_*): where its byte is,
 * and how many bytes of the page follow it.
 */
static uint32_t wddmseg_mmu_xlate(WddmsegState *s, uint64_t root, uint64_t va,
                                  uint32_t access, WddmsegXlate *x,
                                  uint32_t *level)
{
    const WddmsegSegment *seg;
    WddmsegTlbEntry *slot;
    uint64_t pte, addr;
    uint32_t reason, id;

    reason = wddmseg_mmu_pte(s, root, va, &pte, level, &slot);
    if (reason) {
        return reason;
    }
    addr = pte & WDDMSEG_PTE_ADDR_MASK;
    id = WDDMSEG_PTE_SEGMENT_OF(pte);
    x->len = WDDMSEG_PAGE_SIZE - va % WDDMSEG_PAGE_SIZE;
    if (!id) {
        x->vram = false;
        x->addr = addr + va % WDDMSEG_PAGE_SIZE;
    } else {
        if (id > s->layout.seg_count ||
            !wddmseg_mem_segment(&s->layout.segs[id - 1])) {
            return WDDMSEG_MMU_FAULT_SEGMENT;
        }
        seg = &s->layout.segs[id - 1];
        if (seg->size < WDDMSEG_PAGE_SIZE ||
            addr > seg->size - WDDMSEG_PAGE_SIZE ||
            seg->base > s->vram_size ||
            s->vram_size - seg->base < WDDMSEG_PAGE_SIZE ||
            addr > s->vram_size - seg->base - WDDMSEG_PAGE_SIZE) {
            return WDDMSEG_MMU_FAULT_RANGE;
        }
        x->vram = true;
        x->addr = seg->base + addr + va % WDDMSEG_PAGE_SIZE;
    }
    /* A page the entry maps: cached until a flush or a replacement. */
    if (slot) {
        slot->vpn = va >> 12;
        slot->pte = pte;
        trace_wddmseg_tlb_fill(root, va, pte);
    }
    if (access == WDDMSEG_MMU_ACCESS_WRITE && (pte & WDDMSEG_PTE_READ_ONLY)) {
        return WDDMSEG_MMU_FAULT_READ_ONLY;
    }
    return WDDMSEG_MMU_FAULT_NONE;
}

/* n bytes (inside one translated page) between x and buf. */
static bool wddmseg_xlate_rw(WddmsegState *s, const WddmsegXlate *x,
                             void *buf, uint64_t n, bool write)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (x->vram) {
        if (write) {
            memcpy(s->vram_ptr + x->addr, buf, n);
            memory_region_set_dirty(&s->vram, x->addr, n);
        } else {
            memcpy(buf, s->vram_ptr + x->addr, n);
        }
        return true;
    }
    return (write ? pci_dma_write(pdev, x->addr, buf, n) :
                    pci_dma_read(pdev, x->addr, buf, n)) == MEMTX_OK;
}

/*
 * Run op from byte *done on, within *budget, a piece (at most a page of
 * each side) at a time through the bounce buffer. Returns a fault reason
 * with *f filled in, or NONE: *done == op->size when it completed.
 */
static uint32_t wddmseg_va_run(WddmsegState *s, const WddmsegVaOp *op,
                               uint64_t *done, uint64_t *budget,
                               WddmsegVaFault *f)
{
    WddmsegXlate a = { 0 }, b;
    uint64_t pos, n, i;
    uint32_t reason;

    if ((!op->fill && op->src_va + op->size < op->src_va) ||
        op->dst_va + op->size < op->dst_va) {
        f->reason = WDDMSEG_MMU_FAULT_RANGE;
        f->access = op->fill ? WDDMSEG_MMU_ACCESS_WRITE :
                               WDDMSEG_MMU_ACCESS_READ;
        f->level = WDDMSEG_MMU_LEVELS - 1;
        f->va = op->fill ? op->dst_va : op->src_va;
        return f->reason;
    }
    while (*done < op->size && *budget) {
        pos = *done;
        n = MIN(MIN(op->size - pos, *budget), WDDMSEG_BOUNCE_SIZE);
        if (!op->fill) {
            f->access = WDDMSEG_MMU_ACCESS_READ;
            f->va = op->src_va + pos;
            reason = wddmseg_mmu_xlate(s, op->src_root, f->va, f->access,
                                       &a, &f->level);
            if (reason) {
                return f->reason = reason;
            }
            n = MIN(n, a.len);
        }
        f->access = WDDMSEG_MMU_ACCESS_WRITE;
        f->va = op->dst_va + pos;
        reason = wddmseg_mmu_xlate(s, op->dst_root, f->va, f->access, &b,
                                   &f->level);
        if (reason) {
            return f->reason = reason;
        }
        n = MIN(n, b.len);
        if (op->fill) {
            for (i = 0; i < n; i++) {
                s->bounce[i] = op->pattern >> (8 * ((pos + i) % 4));
            }
        } else if (!wddmseg_xlate_rw(s, &a, s->bounce, n, false)) {
            f->access = WDDMSEG_MMU_ACCESS_READ;
            f->va = op->src_va + pos;
            f->level = 0;
            return f->reason = WDDMSEG_MMU_FAULT_DMA;
        }
        if (!wddmseg_xlate_rw(s, &b, s->bounce, n, true)) {
            f->level = 0;
            return f->reason = WDDMSEG_MMU_FAULT_DMA;
        }
        *done += n;
        *budget -= n;
    }
    return WDDMSEG_MMU_FAULT_NONE;
}

/* Latch a fault into MMU_FAULT_* and interrupt. */
static void wddmseg_mmu_fault_record(WddmsegState *s, uint32_t ctx,
                                     const WddmsegVaFault *f)
{
    s->mmu_fault_va = f->va;
    s->mmu_fault_info = WDDMSEG_MMU_INFO(f->reason, f->access, f->level, ctx);
    qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: GPU page fault, context %u, "
                  "VA 0x%" PRIx64 " (%s, level %u): %s\n", ctx, f->va,
                  f->access == WDDMSEG_MMU_ACCESS_WRITE ? "write" : "read",
                  f->level, wddmseg_mmu_reason(f->reason));
    trace_wddmseg_mmu_fault(ctx, f->va, f->reason, f->access, f->level);
    wddmseg_irq_raise(s, WDDMSEG_IRQ_MMU_FAULT);
}

/* ------------------------------------------------------------------------ */
/* Paging operations of the copy engine                                     */
/* ------------------------------------------------------------------------ */

int wddmseg_mmu_cmd_qwords(unsigned int op)
{
    switch (op) {
    case WDDMSEG_OP_UPDATE_PAGE_TABLE:
        return WDDMSEG_UPDATE_PT_QWORDS;
    case WDDMSEG_OP_FLUSH_TLB:
        return WDDMSEG_FLUSH_TLB_QWORDS;
    case WDDMSEG_OP_TRANSFER_VIRTUAL:
        return WDDMSEG_TRANSFER_VIRTUAL_QWORDS;
    case WDDMSEG_OP_FILL_VIRTUAL:
        return WDDMSEG_FILL_VIRTUAL_QWORDS;
    case WDDMSEG_OP_COPY_PAGE_TABLE_ENTRIES:
        return WDDMSEG_COPY_PTE_QWORDS;
    }
    return -1;
}

const char *wddmseg_mmu_cmd_name(unsigned int op)
{
    switch (op) {
    case WDDMSEG_OP_UPDATE_PAGE_TABLE:
        return "UPDATE_PAGE_TABLE";
    case WDDMSEG_OP_FLUSH_TLB:
        return "FLUSH_TLB";
    case WDDMSEG_OP_TRANSFER_VIRTUAL:
        return "TRANSFER_VIRTUAL";
    case WDDMSEG_OP_FILL_VIRTUAL:
        return "FILL_VIRTUAL";
    case WDDMSEG_OP_COPY_PAGE_TABLE_ENTRIES:
        return "COPY_PAGE_TABLE_ENTRIES";
    }
    return NULL;
}

/* UPDATE_PAGE_TABLE: entries [first, first + count) of a table. */
static uint32_t wddmseg_update_pt(WddmsegState *s, uint64_t *budget,
                                  const char **why)
{
    const uint64_t *c = s->cmd;
    uint64_t table = c[1], first = c[2], count = c[3], flags = c[4];
    uint64_t list = c[5], i, n, v;
    uint64_t *e = (uint64_t *)s->bounce;

    if (flags & ~(uint64_t)(WDDMSEG_UPDATE_PT_REPEAT |
                            WDDMSEG_UPDATE_PT_INITIAL)) {
        *why = "UPDATE_PAGE_TABLE: unknown flags";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (list % sizeof(uint64_t)) {
        *why = "UPDATE_PAGE_TABLE: entry array not 8-byte aligned";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (!wddmseg_pt_ok(s, table)) {
        *why = "UPDATE_PAGE_TABLE: not an aligned page table inside the "
               "page-table segment";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    if (first > WDDMSEG_MMU_PT_ENTRIES ||
        count > WDDMSEG_MMU_PT_ENTRIES - first) {
        *why = "UPDATE_PAGE_TABLE: entries past the end of the table";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    n = (flags & WDDMSEG_UPDATE_PT_REPEAT) ? MIN(count, 1) : count;
    if (n && pci_dma_read(PCI_DEVICE(s), list, e, n * sizeof(uint64_t)) !=
        MEMTX_OK) {
        *why = "UPDATE_PAGE_TABLE: entry array read failed";
        return WDDMSEG_FAULT_DMA;
    }
    for (i = 0; i < WDDMSEG_MMU_PT_ENTRIES; i++) {
        if (i >= first && i < first + count) {
            v = le64_to_cpu(e[n == 1 ? 0 : i - first]);
        } else if (flags & WDDMSEG_UPDATE_PT_INITIAL) {
            v = 0;
        } else {
            continue;
        }
        stq_le_p(s->vram_ptr + table + i * sizeof(uint64_t), v);
    }
    memory_region_set_dirty(&s->vram, table, WDDMSEG_MMU_PT_SIZE);
    trace_wddmseg_mmu_update_pt(table, first, count, flags);
    *budget -= MIN(*budget, (count + 1) * WDDMSEG_PTE_COST);
    return WDDMSEG_FAULT_NONE;
}

/* FLUSH_TLB: every TLB, an address space, or a range of one. */
static uint32_t wddmseg_flush_tlb(WddmsegState *s, const char **why)
{
    const uint64_t *c = s->cmd;
    uint64_t root = c[1], start = c[2], end = c[3], flags = c[4];

    if (flags & ~(uint64_t)WDDMSEG_FLUSH_TLB_ALL) {
        *why = "FLUSH_TLB: unknown flags";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (flags & WDDMSEG_FLUSH_TLB_ALL) {
        if (root || start || end) {
            *why = "FLUSH_TLB: ALL with a root or a range";
            return WDDMSEG_FAULT_BAD_PACKET;
        }
        wddmseg_tlb_flush_all(s);
        return WDDMSEG_FAULT_NONE;
    }
    if ((start || end) &&
        (start % WDDMSEG_PAGE_SIZE || end % WDDMSEG_PAGE_SIZE ||
         start >= end || end > (1ULL << WDDMSEG_MMU_VA_BITS))) {
        *why = "FLUSH_TLB: range not page aligned, empty or past the VA "
               "bits";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    wddmseg_tlb_flush_space(s, root, start, end);
    return WDDMSEG_FAULT_NONE;
}

/*
 * Run (or resume) a VA-family command of the copy engine; a GPU page
 * fault stops the engine with WDDMSEG_FAULT_MMU, the reason in
 * FAULT_DETAIL and the fault in MMU_FAULT_*.
 */
uint32_t wddmseg_mmu_exec(WddmsegState *s, uint64_t *budget, bool *done,
                          const char **why)
{
    const uint64_t *c = s->cmd;
    WddmsegVaFault f = { 0 };
    WddmsegVaOp op = { 0 };
    uint32_t code, reason;

    *done = false;
    switch (WDDMSEG_CMD_OPCODE(c[0])) {
    case WDDMSEG_OP_UPDATE_PAGE_TABLE:
        code = wddmseg_update_pt(s, budget, why);
        *done = !code;
        return code;
    case WDDMSEG_OP_FLUSH_TLB:
        code = wddmseg_flush_tlb(s, why);
        *done = !code;
        return code;
    case WDDMSEG_OP_TRANSFER_VIRTUAL:
        op.size = c[1];
        op.src_root = c[2];
        op.src_va = c[3];
        op.dst_root = c[4];
        op.dst_va = c[5];
        break;
    case WDDMSEG_OP_FILL_VIRTUAL:
        if (c[2] >> 32) {
            *why = "FILL_VIRTUAL: reserved bits of the pattern word set";
            return WDDMSEG_FAULT_BAD_PACKET;
        }
        op.size = c[1];
        op.fill = true;
        op.pattern = c[2];
        op.dst_root = c[3];
        op.dst_va = c[4];
        break;
    case WDDMSEG_OP_COPY_PAGE_TABLE_ENTRIES:
        s->fault_detail_next = WDDMSEG_REFUSED_FIXED_DEPTH;
        *why = "COPY_PAGE_TABLE_ENTRIES refused: fixed depth, the root page "
               "table never grows";
        return WDDMSEG_FAULT_REFUSED;
    default:
        *why = "unknown opcode";
        return WDDMSEG_FAULT_BAD_OPCODE;
    }
    reason = wddmseg_va_run(s, &op, &s->cmd_done, budget, &f);
    if (reason) {
        wddmseg_mmu_fault_record(s, WDDMSEG_MMU_CTX_PAGING, &f);
        s->fault_detail_next = reason;
        *why = wddmseg_mmu_reason(reason);
        return WDDMSEG_FAULT_MMU;
    }
    *done = s->cmd_done == op.size;
    return WDDMSEG_FAULT_NONE;
}

/* ------------------------------------------------------------------------ */
/* Hardware contexts                                                        */
/* ------------------------------------------------------------------------ */

static bool wddmseg_ctx_runnable(const WddmsegCtx *c)
{
    return (c->ctrl & WDDMSEG_CTX_CTRL_ENABLE) && !c->faulted &&
           c->q_head != c->q_tail;
}

bool wddmseg_mmu_runnable(WddmsegState *s)
{
    unsigned int i;

    if (!runstate_is_running()) {
        return false;
    }
    for (i = 0; i < WDDMSEG_CTX_MAX; i++) {
        if (wddmseg_ctx_runnable(&s->ctx[i])) {
            return true;
        }
    }
    return false;
}

/* Stop context i on the command at its head. */
static void wddmseg_ctx_fault(WddmsegState *s, unsigned int i,
                              const WddmsegVaFault *f)
{
    WddmsegCtx *c = &s->ctx[i];

    c->faulted = true;
    c->fault_info = WDDMSEG_MMU_INFO(f->reason, f->access, f->level, i);
    c->fault_va = f->va;
    c->fault_head = c->q_head;
    wddmseg_mmu_fault_record(s, i, f);
}

static void wddmseg_ctx_bad(WddmsegState *s, unsigned int i, const char *why)
{
    WddmsegVaFault f = { .reason = WDDMSEG_MMU_FAULT_BAD_COMMAND };

    qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: context %u, queue offset 0x%x: "
                  "%s\n", i, s->ctx[i].q_head, why);
    s->ctx[i].cmd_active = false;
    wddmseg_ctx_fault(s, i, &f);
}

static int wddmseg_cq_qwords(unsigned int op)
{
    switch (op) {
    case WDDMSEG_CQ_NOP:
        return 0;
    case WDDMSEG_CQ_COPY:
        return WDDMSEG_CQ_COPY_QWORDS;
    case WDDMSEG_CQ_FILL:
        return WDDMSEG_CQ_FILL_QWORDS;
    case WDDMSEG_CQ_FENCE:
        return WDDMSEG_CQ_FENCE_QWORDS;
    }
    return -1;
}

static const char *wddmseg_cq_name(unsigned int op)
{
    static const char *const names[] = {
        [WDDMSEG_CQ_NOP] = "NOP",
        [WDDMSEG_CQ_COPY] = "COPY",
        [WDDMSEG_CQ_FILL] = "FILL",
        [WDDMSEG_CQ_FENCE] = "FENCE",
    };

    return op < ARRAY_SIZE(names) && names[op] ? names[op] : "unknown";
}

/* Fetch the command at the head of context i's queue; NULL: it is fine. */
static const char *wddmseg_ctx_fetch(WddmsegState *s, unsigned int i)
{
    WddmsegCtx *c = &s->ctx[i];
    uint64_t at = c->q_base + c->q_head, hdr;
    uint32_t qwords, queued, j;
    int len;

    if (pci_dma_read(PCI_DEVICE(s), at, &hdr, sizeof(hdr)) != MEMTX_OK) {
        return "queue read failed";
    }
    hdr = le64_to_cpu(hdr);
    qwords = WDDMSEG_CMD_QWORDS(hdr);
    if (hdr != WDDMSEG_CMD_HDR(WDDMSEG_CMD_OPCODE(hdr), (uint64_t)qwords) ||
        !qwords) {
        return "reserved header bits set, or length 0";
    }
    len = wddmseg_cq_qwords(WDDMSEG_CMD_OPCODE(hdr));
    if (len < 0) {
        return "unknown context opcode";
    }
    if (len && qwords != (uint32_t)len) {
        return "wrong command length for the opcode";
    }
    queued = (c->q_tail - c->q_head) & (c->q_size - 1);
    if (qwords * sizeof(uint64_t) > c->q_size - c->q_head ||
        qwords * sizeof(uint64_t) > queued) {
        return "command straddles the end of the queue or its tail";
    }
    memset(c->cmd, 0, sizeof(c->cmd));
    c->cmd[0] = hdr;
    if (len > 1) {
        if (pci_dma_read(PCI_DEVICE(s), at + sizeof(uint64_t), &c->cmd[1],
                         (len - 1) * sizeof(uint64_t)) != MEMTX_OK) {
            return "queue read failed";
        }
        for (j = 1; j < (uint32_t)len; j++) {
            c->cmd[j] = le64_to_cpu(c->cmd[j]);
        }
    }
    c->cmd_active = true;
    c->cmd_done = 0;
    trace_wddmseg_ctx_cmd(i, c->q_head,
                          wddmseg_cq_name(WDDMSEG_CMD_OPCODE(hdr)),
                          c->cmd[1], c->cmd[2], c->cmd[3]);
    return NULL;
}

/*
 * Run context i's command within *budget. True when it completed; false
 * when the budget ran out or the context faulted.
 */
static bool wddmseg_ctx_exec(WddmsegState *s, unsigned int i,
                             uint64_t *budget)
{
    WddmsegCtx *c = &s->ctx[i];
    WddmsegVaFault f = { 0 };
    WddmsegVaOp op = { 0 };

    switch (WDDMSEG_CMD_OPCODE(c->cmd[0])) {
    case WDDMSEG_CQ_NOP:
        return true;
    case WDDMSEG_CQ_FENCE:
        if (c->cmd[2] & ~(uint64_t)WDDMSEG_CQ_FENCE_IRQ) {
            wddmseg_ctx_bad(s, i, "FENCE: unknown flags");
            return false;
        }
        c->fence = c->cmd[1];
        trace_wddmseg_ctx_fence(i, c->fence);
        if (c->cmd[2] & WDDMSEG_CQ_FENCE_IRQ) {
            wddmseg_irq_raise(s, WDDMSEG_IRQ_CTX_FENCE);
        }
        return true;
    case WDDMSEG_CQ_COPY:
        op.size = c->cmd[1];
        op.src_root = c->root;
        op.src_va = c->cmd[2];
        op.dst_root = c->root;
        op.dst_va = c->cmd[3];
        break;
    case WDDMSEG_CQ_FILL:
        if (c->cmd[2] >> 32) {
            wddmseg_ctx_bad(s, i, "FILL: reserved bits of the pattern set");
            return false;
        }
        op.size = c->cmd[1];
        op.fill = true;
        op.pattern = c->cmd[2];
        op.dst_root = c->root;
        op.dst_va = c->cmd[3];
        break;
    default:
        /* Only a corrupt migration stream gets here. */
        wddmseg_ctx_bad(s, i, "unknown context opcode");
        return false;
    }
    if (wddmseg_va_run(s, &op, &c->cmd_done, budget, &f)) {
        wddmseg_ctx_fault(s, i, &f);
        return false;
    }
    return c->cmd_done == op.size;
}

/* One batch of every runnable context, with the BQL. */
void wddmseg_mmu_batch(WddmsegState *s)
{
    unsigned int i, n;
    uint64_t budget;

    for (i = 0; i < WDDMSEG_CTX_MAX; i++) {
        WddmsegCtx *c = &s->ctx[i];
        const char *why;

        budget = s->batch_bytes;
        for (n = 0; n < WDDMSEG_CTX_BATCH_CMDS && budget; n++) {
            if (!wddmseg_ctx_runnable(c)) {
                break;
            }
            if (!c->cmd_active) {
                why = wddmseg_ctx_fetch(s, i);
                if (why) {
                    wddmseg_ctx_bad(s, i, why);
                    break;
                }
            }
            if (!wddmseg_ctx_exec(s, i, &budget)) {
                break;
            }
            c->q_head = (c->q_head + WDDMSEG_CMD_QWORDS(c->cmd[0]) *
                         sizeof(uint64_t)) & (c->q_size - 1);
            c->cmd_active = false;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Registers                                                                */
/* ------------------------------------------------------------------------ */

static uint32_t wddmseg_mmu_fault_ctx(WddmsegState *s)
{
    uint32_t v = s->fault_code == WDDMSEG_FAULT_MMU ?
                 WDDMSEG_MMU_FAULT_CTX_PAGING : 0;
    unsigned int i;

    for (i = 0; i < WDDMSEG_CTX_MAX; i++) {
        if (s->ctx[i].faulted) {
            v |= BIT(i);
        }
    }
    return v;
}

static uint32_t wddmseg_ctx_status(const WddmsegCtx *c)
{
    uint32_t v = 0;

    if (c->ctrl & WDDMSEG_CTX_CTRL_ENABLE) {
        v |= WDDMSEG_CTX_STATUS_ENABLED;
    }
    if (c->q_head == c->q_tail && !c->faulted) {
        v |= WDDMSEG_CTX_STATUS_IDLE;
    }
    if (c->faulted) {
        v |= WDDMSEG_CTX_STATUS_FAULTED;
    }
    return v;
}

bool wddmseg_mmu_read(WddmsegState *s, hwaddr addr, uint32_t *val)
{
    const WddmsegCtx *c;
    hwaddr reg;

    if (addr >= WDDMSEG_REG_MMU_LEVEL_BITS(0) &&
        addr < WDDMSEG_REG_MMU_LEVEL_BITS(WDDMSEG_MMU_LEVEL_MAX)) {
        *val = (addr - WDDMSEG_REG_MMU_LEVEL_BITS(0)) / 4 <
               WDDMSEG_MMU_LEVELS ? WDDMSEG_MMU_LEVEL_BITS : 0;
        return true;
    }
    switch (addr) {
    case WDDMSEG_REG_MMU_CAPS:
        *val = s->mmu_pt_seg ? WDDMSEG_MMU_CAPS_PRESENT |
                               WDDMSEG_MMU_CAPS_GPU_PHYSICAL : 0;
        return true;
    case WDDMSEG_REG_MMU_VA_BITS:
        *val = WDDMSEG_MMU_VA_BITS;
        return true;
    case WDDMSEG_REG_MMU_LEVELS:
        *val = WDDMSEG_MMU_LEVELS;
        return true;
    case WDDMSEG_REG_MMU_PT_SEGMENT:
        *val = s->mmu_pt_seg;
        return true;
    case WDDMSEG_REG_MMU_PT_SIZE:
    case WDDMSEG_REG_MMU_PT_ALIGN:
        *val = WDDMSEG_MMU_PT_SIZE;
        return true;
    case WDDMSEG_REG_MMU_CONTEXTS:
        *val = WDDMSEG_CTX_MAX;
        return true;
    case WDDMSEG_REG_MMU_TLB_ENTRIES:
        *val = WDDMSEG_TLB_ENTRIES;
        return true;
    case WDDMSEG_REG_MMU_FAULT_CTX:
        *val = wddmseg_mmu_fault_ctx(s);
        return true;
    case WDDMSEG_REG_MMU_FAULT_VA_LO:
    case WDDMSEG_REG_MMU_FAULT_VA_HI:
        *val = wddmseg_lo_hi(s->mmu_fault_va, addr,
                             WDDMSEG_REG_MMU_FAULT_VA_LO);
        return true;
    case WDDMSEG_REG_MMU_FAULT_INFO:
        *val = s->mmu_fault_info;
        return true;
    }
    if (addr < WDDMSEG_CTX_TABLE ||
        addr >= WDDMSEG_CTX_REG(WDDMSEG_CTX_MAX, 0)) {
        return false;
    }
    c = &s->ctx[(addr - WDDMSEG_CTX_TABLE) / WDDMSEG_CTX_STRIDE];
    reg = (addr - WDDMSEG_CTX_TABLE) % WDDMSEG_CTX_STRIDE;
    switch (reg) {
    case WDDMSEG_CTX_ROOT_LO:
    case WDDMSEG_CTX_ROOT_HI:
        *val = wddmseg_lo_hi(c->root, reg, WDDMSEG_CTX_ROOT_LO);
        return true;
    case WDDMSEG_CTX_QUEUE_BASE_LO:
    case WDDMSEG_CTX_QUEUE_BASE_HI:
        *val = wddmseg_lo_hi(c->q_base, reg, WDDMSEG_CTX_QUEUE_BASE_LO);
        return true;
    case WDDMSEG_CTX_QUEUE_SIZE:
        *val = c->q_size;
        return true;
    case WDDMSEG_CTX_QUEUE_HEAD:
        *val = c->q_head;
        return true;
    case WDDMSEG_CTX_QUEUE_TAIL:
        *val = c->q_tail;
        return true;
    case WDDMSEG_CTX_CTRL:
        *val = c->ctrl;
        return true;
    case WDDMSEG_CTX_STATUS:
        *val = wddmseg_ctx_status(c);
        return true;
    case WDDMSEG_CTX_FAULT_INFO:
        *val = c->fault_info;
        return true;
    case WDDMSEG_CTX_FAULT_VA_LO:
    case WDDMSEG_CTX_FAULT_VA_HI:
        *val = wddmseg_lo_hi(c->fault_va, reg, WDDMSEG_CTX_FAULT_VA_LO);
        return true;
    case WDDMSEG_CTX_FENCE_LO:
    case WDDMSEG_CTX_FENCE_HI:
        *val = wddmseg_lo_hi(c->fence, reg, WDDMSEG_CTX_FENCE_LO);
        return true;
    case WDDMSEG_CTX_FAULT_HEAD:
        *val = c->fault_head;
        return true;
    }
    return false;
}

/* The queue a context can be enabled with. */
static bool wddmseg_ctx_queue_valid(const WddmsegCtx *c, const char **why)
{
    if (c->q_size < WDDMSEG_CTX_QUEUE_MIN ||
        c->q_size > WDDMSEG_CTX_QUEUE_MAX || !is_power_of_2(c->q_size)) {
        *why = "QUEUE_SIZE is not a power of two in [4 KiB, 64 KiB]";
        return false;
    }
    if (c->q_base % WDDMSEG_PAGE_SIZE) {
        *why = "QUEUE_BASE is not 4 KiB aligned";
        return false;
    }
    if (c->q_head >= c->q_size || c->q_tail >= c->q_size ||
        c->q_head % sizeof(uint64_t) || c->q_tail % sizeof(uint64_t)) {
        *why = "QUEUE_HEAD or QUEUE_TAIL not inside the queue (reset it)";
        return false;
    }
    return true;
}

static void wddmseg_ctx_reset_one(WddmsegCtx *c)
{
    c->ctrl = 0;
    c->q_head = 0;
    c->q_tail = 0;
    c->faulted = false;
    c->cmd_active = false;
    c->cmd_done = 0;
    memset(c->cmd, 0, sizeof(c->cmd));
}

static void wddmseg_ctx_ctrl_write(WddmsegState *s, unsigned int i,
                                   uint32_t val)
{
    WddmsegCtx *c = &s->ctx[i];
    const char *why = NULL;

    if (val & ~(WDDMSEG_CTX_CTRL_ENABLE | WDDMSEG_CTX_CTRL_RESUME |
                WDDMSEG_CTX_CTRL_RESET)) {
        qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: context %u: unknown CTRL "
                      "bits 0x%x ignored\n", i, val);
    }
    if (val & WDDMSEG_CTX_CTRL_RESET) {
        wddmseg_ctx_reset_one(c);
    }
    if ((val & WDDMSEG_CTX_CTRL_RESUME) && c->faulted) {
        c->faulted = false;
    }
    if (!(val & WDDMSEG_CTX_CTRL_ENABLE)) {
        c->ctrl = 0;
    } else if (!(c->ctrl & WDDMSEG_CTX_CTRL_ENABLE)) {
        if (wddmseg_ctx_queue_valid(c, &why)) {
            c->ctrl = WDDMSEG_CTX_CTRL_ENABLE;
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: context %u not "
                          "enabled: %s\n", i, why);
        }
    }
    trace_wddmseg_ctx_ctrl(i, val, c->ctrl, c->faulted);
    wddmseg_engine_wake(s);
}

/* QUEUE_BASE and QUEUE_SIZE change only while the context is disabled. */
static bool wddmseg_ctx_config_writable(WddmsegCtx *c, unsigned int i)
{
    if (c->ctrl & WDDMSEG_CTX_CTRL_ENABLE) {
        qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: context %u: queue "
                      "configuration write while enabled ignored\n", i);
        return false;
    }
    return true;
}

bool wddmseg_mmu_write(WddmsegState *s, hwaddr addr, uint32_t val)
{
    unsigned int i;
    WddmsegCtx *c;
    hwaddr reg;

    if (addr < WDDMSEG_CTX_TABLE ||
        addr >= WDDMSEG_CTX_REG(WDDMSEG_CTX_MAX, 0)) {
        return false;
    }
    i = (addr - WDDMSEG_CTX_TABLE) / WDDMSEG_CTX_STRIDE;
    c = &s->ctx[i];
    reg = (addr - WDDMSEG_CTX_TABLE) % WDDMSEG_CTX_STRIDE;
    switch (reg) {
    case WDDMSEG_CTX_ROOT_LO:
        c->root_lo = val;
        return true;
    case WDDMSEG_CTX_ROOT_HI:
        c->root = (uint64_t)val << 32 | c->root_lo;
        trace_wddmseg_ctx_bind(i, c->root);
        wddmseg_engine_wake(s);
        return true;
    case WDDMSEG_CTX_QUEUE_BASE_LO:
        if (wddmseg_ctx_config_writable(c, i)) {
            c->q_base = deposit64(c->q_base, 0, 32, val);
        }
        return true;
    case WDDMSEG_CTX_QUEUE_BASE_HI:
        if (wddmseg_ctx_config_writable(c, i)) {
            c->q_base = deposit64(c->q_base, 32, 32, val);
        }
        return true;
    case WDDMSEG_CTX_QUEUE_SIZE:
        if (wddmseg_ctx_config_writable(c, i)) {
            c->q_size = val;
        }
        return true;
    case WDDMSEG_CTX_QUEUE_TAIL:
        trace_wddmseg_ctx_doorbell(i, val, c->q_head);
        if (val % sizeof(uint64_t) || val >= c->q_size) {
            qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: context %u: "
                          "QUEUE_TAIL 0x%x not a multiple of 8 below "
                          "QUEUE_SIZE ignored\n", i, val);
            return true;
        }
        c->q_tail = val;
        wddmseg_engine_wake(s);
        return true;
    case WDDMSEG_CTX_CTRL:
        wddmseg_ctx_ctrl_write(s, i, val);
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------------ */
/* Reset and migration                                                      */
/* ------------------------------------------------------------------------ */

/* Contexts unbound and stopped, TLBs empty, no fault. */
void wddmseg_mmu_reset(WddmsegState *s)
{
    memset(s->ctx, 0, sizeof(s->ctx));
    memset(s->tlb, 0, sizeof(s->tlb));
    s->tlb_clock = 0;
    s->mmu_fault_va = 0;
    s->mmu_fault_info = 0;
}

static bool wddmseg_mmu_needed(void *opaque)
{
    WddmsegState *s = opaque;

    return !buffer_is_zero(s->ctx, sizeof(s->ctx)) || s->mmu_fault_va ||
           s->mmu_fault_info || s->fault_detail;
}

static int wddmseg_mmu_post_load_vm(void *opaque, int version_id)
{
    WddmsegState *s = opaque;
    const char *why = NULL;
    unsigned int i;

    for (i = 0; i < WDDMSEG_CTX_MAX; i++) {
        const WddmsegCtx *c = &s->ctx[i];

        if ((c->ctrl & ~WDDMSEG_CTX_CTRL_ENABLE) ||
            ((c->ctrl & WDDMSEG_CTX_CTRL_ENABLE) &&
             !wddmseg_ctx_queue_valid(c, &why)) ||
            (c->cmd_active &&
             wddmseg_cq_qwords(WDDMSEG_CMD_OPCODE(c->cmd[0])) < 0)) {
            error_report("wddmseg: migrated context %u is not valid%s%s", i,
                         why ? ": " : "", why ? why : "");
            return -EINVAL;
        }
    }
    /* The TLBs start empty: translations are read again from the tables. */
    memset(s->tlb, 0, sizeof(s->tlb));
    return 0;
}

static const VMStateDescription vmstate_wddmseg_ctx = {
    .name = "wddmseg/ctx",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(root, WddmsegCtx),
        VMSTATE_UINT32(root_lo, WddmsegCtx),
        VMSTATE_UINT64(q_base, WddmsegCtx),
        VMSTATE_UINT32(q_size, WddmsegCtx),
        VMSTATE_UINT32(q_head, WddmsegCtx),
        VMSTATE_UINT32(q_tail, WddmsegCtx),
        VMSTATE_UINT32(ctrl, WddmsegCtx),
        VMSTATE_BOOL(faulted, WddmsegCtx),
        VMSTATE_UINT32(fault_info, WddmsegCtx),
        VMSTATE_UINT64(fault_va, WddmsegCtx),
        VMSTATE_UINT32(fault_head, WddmsegCtx),
        VMSTATE_UINT64(fence, WddmsegCtx),
        VMSTATE_BOOL(cmd_active, WddmsegCtx),
        VMSTATE_UINT64_ARRAY(cmd, WddmsegCtx, WDDMSEG_CQ_MAX_QWORDS),
        VMSTATE_UINT64(cmd_done, WddmsegCtx),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * The contexts, the last fault and FAULT_DETAIL, sent only while one of
 * them is not in its reset state (a stream without it loads as after a
 * reset). The TLBs are not sent: the destination's start empty.
 */
const VMStateDescription vmstate_wddmseg_mmu = {
    .name = "wddmseg/mmu",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = wddmseg_mmu_needed,
    .post_load = wddmseg_mmu_post_load_vm,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(ctx, WddmsegState, WDDMSEG_CTX_MAX, 1,
                             vmstate_wddmseg_ctx, WddmsegCtx),
        VMSTATE_UINT64(mmu_fault_va, WddmsegState),
        VMSTATE_UINT32(mmu_fault_info, WddmsegState),
        VMSTATE_UINT32(fault_detail, WddmsegState),
        VMSTATE_END_OF_LIST()
    },
};
