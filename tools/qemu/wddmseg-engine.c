/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg: the copy engine (paging node 0)
 *
 * A ring of commands in guest memory, run by the device's own thread, as
 * a DMA engine runs beside the CPUs. The doorbell (RING_TAIL) only wakes
 * the thread; the thread runs bounded batches (WDDMSEG_BATCH_CMDS commands
 * or x-batch-bytes bytes moved) under the BQL, dropping it between them,
 * so neither the vCPU nor the main loop waits for a long copy
 * (wddmseg_engine_thread()). Each command is read once into
 * s->cmd, validated, and executed in pieces: a memory location resolves to
 * runs of contiguous VRAM (a host pointer) or contiguous system memory
 * (merged 4 KiB pages of an aperture table or a page list), and each piece
 * is one memmove or one pci_dma_read/write between VRAM and guest memory;
 * only system-to-system copies go through a bounce buffer. Pieces of 64
 * KiB and more between VRAM and plain RAM (and FILL pieces) run without
 * the BQL, so the vCPUs' MMIO, timers and interrupts never wait for a
 * copy (wddmseg_memcpy_unlocked()). Any error stops
 * the engine with a latched fault code and an ERROR interrupt. The engine
 * runs only while the VM runs, and resumes when it does (migration).
 *
 * Encrypted paging (1.4): TRANSFER_ENCRYPTED moves between VRAM of a
 * VprSupported + EncryptedPagingSupported segment and a page list, XORing
 * the bytes with a SipHash-2-4 key stream (wddmseg_crypt()), always
 * through the bounce buffer under the BQL. The 128-bit key is drawn at
 * realize, never readable, kept by reset and migrated.
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "hw/pci/pci.h"
#include "system/dma.h"
#include "system/runstate.h"

#include "wddmseg-internal.h"
#include "trace.h"

/* Ring size limits (bytes). */
#define WDDMSEG_RING_MIN        (4 * KiB)
#define WDDMSEG_RING_MAX        (1 * MiB)

/* One batch: at most this many commands, x-batch-bytes moved. */
#define WDDMSEG_BATCH_CMDS      64
/*
 * Pieces of a copy between VRAM and RAM at least this long run without
 * the BQL (wddmseg_move_unlocked()).
 */
#define WDDMSEG_UNLOCKED_MIN    (64 * KiB)

/* wddmseg_copy(): the engine was reset while a piece ran without the BQL. */
#define WDDMSEG_COPY_STALE      UINT32_MAX

/* The smallest polling window of the engine's thread that is not none. */
#define WDDMSEG_POLL_MIN_NS     (4 * SCALE_US)

/* What one MAP/UNMAP page table entry counts against x-batch-bytes. */
#define WDDMSEG_APT_ENTRY_COST  64

/*
 * What one byte of TRANSFER_ENCRYPTED counts against x-batch-bytes: the
 * key stream (one SipHash-2-4 per 8 bytes) costs several times a copy, and
 * the whole piece runs under the BQL.
 */
#define WDDMSEG_CRYPT_COST      4

/* ------------------------------------------------------------------------ */
/* GPU addresses and memory locations                                       */
/* ------------------------------------------------------------------------ */

/*
 * Bytes [off, off + size) of segment index i (id i + 1), as a location: a
 * memory segment is VRAM at BaseAddress + off and must lie inside VRAM,
 * an Aperture segment goes through its page table (checked page by page
 * when used), an Agp segment has no GPU view. Returns a WDDMSEG_FAULT_*
 * code, with *why saying what is wrong.
 */
static uint32_t wddmseg_seg_loc(WddmsegState *s, unsigned int i, uint64_t off,
                                uint64_t size, WddmsegLoc *loc,
                                const char **why)
{
    const WddmsegSegment *seg = &s->layout.segs[i];

    if (off > seg->size || size > seg->size - off) {
        *why = "range outside the segment";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    loc->size = size;
    if (seg->flags & DXGK_SEGFLAG_APERTURE) {
        loc->kind = WDDMSEG_LOC_APERTURE;
        loc->seg = i;
        loc->addr = off;
        return WDDMSEG_FAULT_NONE;
    }
    if (seg->flags & DXGK_SEGFLAG_AGP) {
        *why = "Agp segment (not modelled)";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    if (seg->base > s->vram_size || off > s->vram_size - seg->base ||
        size > s->vram_size - seg->base - off) {
        *why = "memory segment past the end of VRAM";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    loc->kind = WDDMSEG_LOC_VRAM;
    loc->addr = seg->base + off;
    return WDDMSEG_FAULT_NONE;
}

/*
 * GPU addresses [addr, addr + size): the first segment in table order
 * whose [BaseAddress, +Size) holds addr decides (valid tables do not
 * overlap), and the whole range must lie inside it.
 */
uint32_t wddmseg_gpu_loc(WddmsegState *s, uint64_t addr, uint64_t size,
                         WddmsegLoc *loc, const char **why)
{
    unsigned int i;

    for (i = 0; i < s->layout.seg_count; i++) {
        const WddmsegSegment *seg = &s->layout.segs[i];

        if (addr >= seg->base && addr - seg->base < seg->size) {
            return wddmseg_seg_loc(s, i, addr - seg->base, size, loc, why);
        }
    }
    *why = "in no segment";
    return WDDMSEG_FAULT_OUT_OF_RANGE;
}

/*
 * Page list entry idx of loc (a PAGES location), through its cache: a miss
 * reads the entries from idx on, up to the last one loc covers.
 */
static uint32_t wddmseg_list_entry(WddmsegState *s, WddmsegListCache *c,
                                   uint64_t list, uint64_t idx, uint64_t last,
                                   uint64_t *entry, const char **why)
{
    uint32_t n, j;

    if (!c->count || c->list != list || idx < c->first ||
        idx - c->first >= c->count) {
        n = MIN(last - idx + 1, WDDMSEG_LIST_CACHE);
        c->count = 0;
        if (pci_dma_read(PCI_DEVICE(s), list + idx * sizeof(uint64_t), c->e,
                         n * sizeof(uint64_t)) != MEMTX_OK) {
            *why = "page list read failed";
            return WDDMSEG_FAULT_DMA;
        }
        for (j = 0; j < n; j++) {
            c->e[j] = le64_to_cpu(c->e[j]);
        }
        c->list = list;
        c->first = idx;
        c->count = n;
    }
    *entry = c->e[idx - c->first];
    if (*entry % WDDMSEG_PAGE_SIZE) {
        *why = "page list entry not 4 KiB aligned";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    return WDDMSEG_FAULT_NONE;
}

/*
 * Entry off of a VRAM page list (a byte offset in segment index loc->seg,
 * 4 KiB aligned already): the whole page must lie inside the segment and
 * inside VRAM.
 */
static uint32_t wddmseg_vram_page(WddmsegState *s, const WddmsegLoc *loc,
                                  uint64_t off, const char **why)
{
    const WddmsegSegment *seg = &s->layout.segs[loc->seg];

    if (off >= seg->size || seg->size - off < WDDMSEG_PAGE_SIZE ||
        seg->base > s->vram_size || off > s->vram_size - seg->base ||
        s->vram_size - seg->base - off < WDDMSEG_PAGE_SIZE) {
        trace_wddmseg_vram_list_fault(loc->seg + 1, off);
        *why = "VRAM page list entry outside the segment or VRAM";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    return WDDMSEG_FAULT_NONE;
}

/*
 * The run of loc that starts pos bytes in: at most max bytes (1 <= max <=
 * loc->size - pos) that are contiguous in VRAM or in system memory.
 * Physically contiguous aperture or page list pages are merged; the merge
 * loop is bounded by max / 4 KiB.
 */
uint32_t wddmseg_span(WddmsegState *s, const WddmsegLoc *loc,
                      uint64_t pos, uint64_t max, WddmsegSpan *sp,
                      const char **why)
{
    const uint64_t *table;
    uint64_t off, page, last, entry, next;
    uint32_t code;

    sp->copy = NULL;
    switch (loc->kind) {
    case WDDMSEG_LOC_VRAM:
    case WDDMSEG_LOC_DMA:
        sp->vram = loc->kind == WDDMSEG_LOC_VRAM;
        sp->addr = loc->addr + pos;
        sp->len = max;
        return WDDMSEG_FAULT_NONE;
    case WDDMSEG_LOC_APERTURE:
        if (!s->apt_pages[loc->seg]) {
            *why = "aperture without a page table";
            return WDDMSEG_FAULT_UNMAPPED;
        }
        table = &s->apt[s->apt_first[loc->seg]];
        off = loc->addr + pos;
        page = off / WDDMSEG_PAGE_SIZE;
        /* The segment range check keeps page below apt_pages. */
        entry = table[page];
        if (!entry) {
            *why = "unmapped aperture page";
            return WDDMSEG_FAULT_UNMAPPED;
        }
        sp->vram = false;
        sp->addr = entry + off % WDDMSEG_PAGE_SIZE;
        sp->len = WDDMSEG_PAGE_SIZE - off % WDDMSEG_PAGE_SIZE;
        if (s->apt_copy[s->apt_first[loc->seg] + page]) {
            /* Not snooped: the device's copy, one page at a time. */
            sp->copy = s->apt_copy[s->apt_first[loc->seg] + page] +
                       off % WDDMSEG_PAGE_SIZE;
            sp->len = MIN(sp->len, max);
            return WDDMSEG_FAULT_NONE;
        }
        while (sp->len < max && page + 1 < s->apt_pages[loc->seg] &&
               !s->apt_copy[s->apt_first[loc->seg] + page + 1] &&
               table[page + 1] == entry + WDDMSEG_PAGE_SIZE) {
            page++;
            entry += WDDMSEG_PAGE_SIZE;
            sp->len += WDDMSEG_PAGE_SIZE;
        }
        sp->len = MIN(sp->len, max);
        return WDDMSEG_FAULT_NONE;
    case WDDMSEG_LOC_PAGES:
    case WDDMSEG_LOC_VRAM_PAGES:
        off = loc->offset + pos;
        page = off / WDDMSEG_PAGE_SIZE;
        last = (loc->offset + loc->size - 1) / WDDMSEG_PAGE_SIZE;
        code = wddmseg_list_entry(s, loc->cache, loc->addr, page, last,
                                  &entry, why);
        if (!code && loc->kind == WDDMSEG_LOC_VRAM_PAGES) {
            code = wddmseg_vram_page(s, loc, entry, why);
        }
        if (code) {
            return code;
        }
        sp->vram = loc->kind == WDDMSEG_LOC_VRAM_PAGES;
        sp->addr = entry + off % WDDMSEG_PAGE_SIZE;
        if (sp->vram) {
            sp->addr += s->layout.segs[loc->seg].base;
        }
        sp->len = WDDMSEG_PAGE_SIZE - off % WDDMSEG_PAGE_SIZE;
        while (sp->len < max && page < last) {
            /* A bad next entry ends the run; it faults when reached. */
            if (wddmseg_list_entry(s, loc->cache, loc->addr, page + 1, last,
                                   &next, why) ||
                next != entry + WDDMSEG_PAGE_SIZE ||
                (sp->vram && wddmseg_vram_page(s, loc, next, why))) {
                break;
            }
            page++;
            entry = next;
            sp->len += WDDMSEG_PAGE_SIZE;
        }
        sp->len = MIN(sp->len, max);
        return WDDMSEG_FAULT_NONE;
    }
    g_assert_not_reached();
}

/* ------------------------------------------------------------------------ */
/* Copy engine                                                              */
/* ------------------------------------------------------------------------ */

static bool wddmseg_engine_runnable(WddmsegState *s)
{
    return (s->ring_ctrl & WDDMSEG_RING_CTRL_ENABLE) &&
           s->fault_code == WDDMSEG_FAULT_NONE && !s->hung &&
           s->ring_head != s->ring_tail && runstate_is_running();
}

/* The ring or a hardware context (wddmseg-mmu.c) has work to run. */
static bool wddmseg_engine_busy(WddmsegState *s)
{
    return wddmseg_engine_runnable(s) || wddmseg_mmu_runnable(s);
}

/*
 * Run the engine soon (never inside the register write that asks): wake
 * its thread, or let its polling see the new work.
 */
static void wddmseg_engine_kick(WddmsegState *s)
{
    if (wddmseg_engine_busy(s)) {
        qatomic_inc(&s->engine_kicks);
        qemu_event_set(&s->engine_event);
    }
}

/*
 * Stop the engine on the command at ring_head. The first fault stays
 * latched until RING_CTRL.RESET; later ones are only logged.
 */
static void wddmseg_engine_fault(WddmsegState *s, uint32_t code,
                                 const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: copy engine fault %u at ring "
                  "offset 0x%x (command 0x%" PRIx64 "): %s\n", code,
                  s->ring_head, s->cmd_active ? s->cmd[0] : 0, why);
    trace_wddmseg_engine_fault(code, s->ring_head,
                               s->cmd_active ? s->cmd[0] : 0, why,
                               s->fault_code == WDDMSEG_FAULT_NONE);
    s->cmd_active = false;
    if (s->fault_code != WDDMSEG_FAULT_NONE) {
        return;
    }
    s->fault_code = code;
    s->fault_head = s->ring_head;
    s->fault_detail = s->fault_detail_next;
    s->fault_detail_next = 0;
    wddmseg_irq_raise(s, WDDMSEG_IRQ_ERROR);
}

/* A hardware context has new work (wddmseg-mmu.c): run it soon. */
void wddmseg_engine_wake(WddmsegState *s)
{
    wddmseg_engine_kick(s);
}

/* RING_CTRL.RESET, and part of device reset. */
void wddmseg_engine_reset(WddmsegState *s)
{
    s->engine_gen++;
    trace_wddmseg_engine_reset(s->engine_gen);
    s->ring_ctrl = 0;
    s->ring_head = 0;
    s->ring_tail = 0;
    s->fault_code = WDDMSEG_FAULT_NONE;
    s->fault_head = 0;
    s->fault_detail = 0;
    s->fault_detail_next = 0;
    s->hung = false;
    s->inject_fault = false;
    s->cmd_active = false;
    memset(s->cmd, 0, sizeof(s->cmd));
    s->cmd_done = 0;
    s->cache[0].count = 0;
    s->cache[1].count = 0;
}

/* Length in qwords of each opcode's command: 0 any (NOP), -1 unknown. */
static int wddmseg_cmd_qwords(unsigned int op)
{
    switch (op) {
    case WDDMSEG_OP_NOP:
        return 0;
    case WDDMSEG_OP_TRANSFER:
        return WDDMSEG_TRANSFER_QWORDS;
    case WDDMSEG_OP_FILL:
        return WDDMSEG_FILL_QWORDS;
    case WDDMSEG_OP_DISCARD:
        return WDDMSEG_DISCARD_QWORDS;
    case WDDMSEG_OP_READ_PHYSICAL:
    case WDDMSEG_OP_WRITE_PHYSICAL:
        return WDDMSEG_PHYSICAL_QWORDS;
    case WDDMSEG_OP_MAP_APERTURE:
    case WDDMSEG_OP_UNMAP_APERTURE:
        return WDDMSEG_APERTURE_QWORDS;
    case WDDMSEG_OP_FENCE:
        return WDDMSEG_FENCE_QWORDS;
    case WDDMSEG_OP_TRANSFER_ENCRYPTED:
        return WDDMSEG_TRANSFER_ENCRYPTED_QWORDS;
    case WDDMSEG_OP_FLUSH_APERTURE:
        return WDDMSEG_FLUSH_QWORDS;
    }
    return wddmseg_mmu_cmd_qwords(op);
}

/* Read and check the command at ring_head into s->cmd. */
static uint32_t wddmseg_engine_fetch(WddmsegState *s, const char **why)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint64_t at = s->ring_base + s->ring_head;
    uint64_t hdr;
    uint32_t qwords, queued, want, i;
    int len;

    if (pci_dma_read(pdev, at, &hdr, sizeof(hdr)) != MEMTX_OK) {
        *why = "ring read failed";
        return WDDMSEG_FAULT_DMA;
    }
    hdr = le64_to_cpu(hdr);
    qwords = WDDMSEG_CMD_QWORDS(hdr);
    if (hdr != WDDMSEG_CMD_HDR(WDDMSEG_CMD_OPCODE(hdr), (uint64_t)qwords)) {
        *why = "reserved header bits set";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (!qwords) {
        *why = "command length 0";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    len = wddmseg_cmd_qwords(WDDMSEG_CMD_OPCODE(hdr));
    if (len < 0) {
        *why = "unknown opcode";
        return WDDMSEG_FAULT_BAD_OPCODE;
    }
    want = len;
    if (want && qwords != want) {
        *why = "wrong command length for the opcode";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (qwords * sizeof(uint64_t) > s->ring_size - s->ring_head) {
        *why = "command straddles the end of the ring";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    queued = (s->ring_tail - s->ring_head) & (s->ring_size - 1);
    if (qwords * sizeof(uint64_t) > queued) {
        *why = "command extends past RING_TAIL";
        return WDDMSEG_FAULT_BAD_PACKET;
    }

    memset(s->cmd, 0, sizeof(s->cmd));
    s->cmd[0] = hdr;
    /* A NOP's body is padding: never read. */
    if (want > 1) {
        if (pci_dma_read(pdev, at + sizeof(uint64_t), &s->cmd[1],
                         (want - 1) * sizeof(uint64_t)) != MEMTX_OK) {
            *why = "ring read failed";
            return WDDMSEG_FAULT_DMA;
        }
        for (i = 1; i < want; i++) {
            s->cmd[i] = le64_to_cpu(s->cmd[i]);
        }
    }
    s->cmd_active = true;
    s->cmd_done = 0;
    s->fault_detail_next = 0;
    s->cache[0].count = 0;
    s->cache[1].count = 0;
    return WDDMSEG_FAULT_NONE;
}

/*
 * A "loc" of a command (3 words) covering size bytes: a segment id and a
 * byte offset, or (id 0) a page list and a byte offset into the memory it
 * describes, or (WDDMSEG_LOC_VRAM_LIST) a list of VRAM pages of a memory
 * segment and a byte offset into the memory it describes. The entries of
 * both kinds of list are checked when the engine reaches them.
 */
static uint32_t wddmseg_cmd_loc(WddmsegState *s, const uint64_t *w,
                                uint64_t size, WddmsegListCache *cache,
                                WddmsegLoc *loc, const char **why)
{
    uint64_t last, id = w[0] & ~WDDMSEG_LOC_VRAM_LIST;
    bool vlist = w[0] & WDDMSEG_LOC_VRAM_LIST;

    if (id >> 32) {
        *why = "location: reserved bits of the segment id word set";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (vlist && (id == 0 || id > s->layout.seg_count ||
                  (s->layout.segs[id - 1].flags &
                   (DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_AGP)))) {
        *why = "location: VRAM page list of no memory segment";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (id == 0 || vlist) {
        if (w[1] % sizeof(uint64_t)) {
            *why = "location: page list not 8-byte aligned";
            return WDDMSEG_FAULT_BAD_PACKET;
        }
        if (w[2] + size < w[2]) {
            *why = "location: page list offset + size overflows";
            return WDDMSEG_FAULT_OUT_OF_RANGE;
        }
        last = size ? (w[2] + size - 1) / WDDMSEG_PAGE_SIZE : 0;
        if (w[1] + (last + 1) * sizeof(uint64_t) < w[1]) {
            *why = "location: page list wraps around the address space";
            return WDDMSEG_FAULT_OUT_OF_RANGE;
        }
        loc->kind = vlist ? WDDMSEG_LOC_VRAM_PAGES : WDDMSEG_LOC_PAGES;
        loc->seg = vlist ? id - 1 : 0;
        loc->addr = w[1];
        loc->offset = w[2];
        loc->size = size;
        loc->cache = cache;
        return WDDMSEG_FAULT_NONE;
    }
    if (w[2]) {
        *why = "location: reserved word set";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (w[0] > s->layout.seg_count) {
        *why = "location: no such segment";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    return wddmseg_seg_loc(s, w[0] - 1, w[1], size, loc, why);
}

/* Contiguous system memory [addr, addr + size). */
static uint32_t wddmseg_dma_loc(uint64_t addr, uint64_t size,
                                WddmsegLoc *loc, const char **why)
{
    if (addr + size < addr) {
        *why = "system memory range wraps around the address space";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    loc->kind = WDDMSEG_LOC_DMA;
    loc->addr = addr;
    loc->size = size;
    return WDDMSEG_FAULT_NONE;
}

/*
 * wddmseg_move() where a side is a page of a non-coherent aperture: the
 * source is read from its copy, the destination written to memory and
 * to its copy (the device sees its own writes).
 */
static uint32_t wddmseg_move_copy(WddmsegState *s, const WddmsegSpan *src,
                                  const WddmsegSpan *dst, uint64_t n,
                                  const char **why)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    assert(n <= WDDMSEG_PAGE_SIZE);
    if (src->copy) {
        memcpy(s->bounce, src->copy, n);
    } else if (src->vram) {
        memcpy(s->bounce, s->vram_ptr + src->addr, n);
    } else if (pci_dma_read(pdev, src->addr, s->bounce, n) != MEMTX_OK) {
        *why = "system memory read failed";
        return WDDMSEG_FAULT_DMA;
    }
    if (dst->vram) {
        memcpy(s->vram_ptr + dst->addr, s->bounce, n);
        memory_region_set_dirty(&s->vram, dst->addr, n);
        return WDDMSEG_FAULT_NONE;
    }
    if (pci_dma_write(pdev, dst->addr, s->bounce, n) != MEMTX_OK) {
        *why = "system memory write failed";
        return WDDMSEG_FAULT_DMA;
    }
    if (dst->copy) {
        memcpy(dst->copy, s->bounce, n);
    }
    return WDDMSEG_FAULT_NONE;
}

/* Move n bytes between two runs (n <= both lengths). */
static uint32_t wddmseg_move(WddmsegState *s, const WddmsegSpan *src,
                             const WddmsegSpan *dst, uint64_t n,
                             const char **why)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    MemTxResult r;

    if (src->copy || dst->copy) {
        return wddmseg_move_copy(s, src, dst, n, why);
    }
    if (src->vram && dst->vram) {
        memmove(s->vram_ptr + dst->addr, s->vram_ptr + src->addr, n);
        memory_region_set_dirty(&s->vram, dst->addr, n);
        return WDDMSEG_FAULT_NONE;
    }
    if (src->vram) {
        r = pci_dma_write(pdev, dst->addr, s->vram_ptr + src->addr, n);
    } else if (dst->vram) {
        r = pci_dma_read(pdev, src->addr, s->vram_ptr + dst->addr, n);
        /* Even a failed read may have written part of the run. */
        memory_region_set_dirty(&s->vram, dst->addr, n);
    } else {
        assert(n <= WDDMSEG_BOUNCE_SIZE);
        r = pci_dma_read(pdev, src->addr, s->bounce, n);
        if (r == MEMTX_OK) {
            r = pci_dma_write(pdev, dst->addr, s->bounce, n);
        }
    }
    if (r != MEMTX_OK) {
        *why = "system memory access failed";
        return WDDMSEG_FAULT_DMA;
    }
    return WDDMSEG_FAULT_NONE;
}

/*
 * memcpy() without the BQL, as a DMA engine runs beside the CPUs: with
 * the lock held, every vCPU that touches MMIO (the guest's HPET
 * clocksource, its timers, a doorbell) waits for the whole piece, so a
 * vCPU could wait for a whole 64 MiB move (seen in the guest as 1-11 ms
 * doorbell writes). The caller mapped both sides (VRAM, or
 * plain RAM: wddmseg_span_map()), so the window touches no device and the
 * reentrancy guard can be lowered for it. A VM stop and unrealize wait
 * for the window (wddmseg_vm_state_change(), wddmseg_exit()), and no
 * window opens while the VM is stopped (callers check), so device state
 * and RAM are saved consistently. False: the engine was reset meanwhile,
 * the piece no longer matters.
 */
static bool wddmseg_memcpy_unlocked(WddmsegState *s, void *to,
                                    const void *from, uint64_t n)
{
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    uint32_t gen = s->engine_gen;
    bool engaged;

    s->copy_unlocked = true;
    engaged = guard->engaged_in_io;
    guard->engaged_in_io = false;
    bql_unlock();
    memcpy(to, from, n);
    bql_lock();
    guard->engaged_in_io = engaged;
    s->copy_unlocked = false;
    qemu_cond_broadcast(&s->copy_cond);
    trace_wddmseg_copy_unlocked(n, s->engine_gen != gen);
    return s->engine_gen == gen;
}

/* A piece of n bytes may run without the BQL. */
static bool wddmseg_may_unlock(uint64_t n)
{
    return n >= WDDMSEG_UNLOCKED_MIN && runstate_is_running();
}

/*
 * The host pointer of n bytes of a run, for a window without the BQL:
 * VRAM directly, system memory mapped if it is plain RAM (anything else,
 * e.g. a page list entry pointing at MMIO, returns NULL and takes the
 * locked path). dir: DMA_DIRECTION_FROM_DEVICE when the engine writes it.
 */
static void *wddmseg_span_map(WddmsegState *s, const WddmsegSpan *sp,
                              uint64_t n, DMADirection dir)
{
    dma_addr_t len = n;
    ram_addr_t off;
    void *p;

    if (sp->vram) {
        return s->vram_ptr + sp->addr;
    }
    p = pci_dma_map(PCI_DEVICE(s), sp->addr, &len, dir);
    if (p && (len < n || !memory_region_from_host(p, &off))) {
        pci_dma_unmap(PCI_DEVICE(s), p, len, dir, 0);
        p = NULL;
    }
    return p;
}

/* Undo wddmseg_span_map(); what the engine wrote is marked dirty. */
static void wddmseg_span_unmap(WddmsegState *s, const WddmsegSpan *sp,
                               void *p, uint64_t n, DMADirection dir)
{
    bool written = dir == DMA_DIRECTION_FROM_DEVICE;

    if (!sp->vram) {
        pci_dma_unmap(PCI_DEVICE(s), p, n, dir, written ? n : 0);
    } else if (written) {
        memory_region_set_dirty(&s->vram, sp->addr, n);
    }
}

/*
 * wddmseg_move() of a large piece with VRAM on one side, without the BQL
 * (wddmseg_memcpy_unlocked()); overlapping VRAM ranges and system runs
 * that are not plain RAM stay on the locked path. Returns 1 when moved,
 * 0 when the caller must use wddmseg_move(), -1 when the engine was reset
 * meanwhile.
 */
static int wddmseg_move_unlocked(WddmsegState *s, const WddmsegSpan *src,
                                 const WddmsegSpan *dst, uint64_t n)
{
    void *from, *to;
    bool fresh;

    if (!wddmseg_may_unlock(n) || (!src->vram && !dst->vram) ||
        src->copy || dst->copy ||
        (src->vram && dst->vram && src->addr < dst->addr + n &&
         dst->addr < src->addr + n)) {
        return 0;
    }
    from = wddmseg_span_map(s, src, n, DMA_DIRECTION_TO_DEVICE);
    if (!from) {
        return 0;
    }
    to = wddmseg_span_map(s, dst, n, DMA_DIRECTION_FROM_DEVICE);
    if (!to) {
        wddmseg_span_unmap(s, src, from, n, DMA_DIRECTION_TO_DEVICE);
        return 0;
    }
    fresh = wddmseg_memcpy_unlocked(s, to, from, n);
    wddmseg_span_unmap(s, src, from, n, DMA_DIRECTION_TO_DEVICE);
    wddmseg_span_unmap(s, dst, to, n, DMA_DIRECTION_FROM_DEVICE);
    return fresh ? 1 : -1;
}

/* Whether loc is VRAM (contiguous or a VRAM page list). */
static bool wddmseg_loc_vram(const WddmsegLoc *loc)
{
    return loc->kind == WDDMSEG_LOC_VRAM ||
           loc->kind == WDDMSEG_LOC_VRAM_PAGES;
}

/*
 * Copy size bytes from src to dst, resuming at cmd_done, within *budget.
 * VRAM to VRAM behaves like memmove: an overlapping copy to a higher
 * address runs backwards. Other overlaps copy forwards, run by run.
 */
static uint32_t wddmseg_copy(WddmsegState *s, const WddmsegLoc *src,
                             const WddmsegLoc *dst, uint64_t *budget,
                             bool *done, const char **why)
{
    uint64_t size = src->size;
    bool both_vram = src->kind == WDDMSEG_LOC_VRAM &&
                     dst->kind == WDDMSEG_LOC_VRAM;
    bool backward = both_vram && dst->addr > src->addr &&
                    dst->addr - src->addr < size;
    WddmsegSpan a, b;
    uint64_t n, pos;
    uint32_t code;

    while (s->cmd_done < size) {
        n = MIN(size - s->cmd_done, *budget);
        if (!n) {
            return WDDMSEG_FAULT_NONE;
        }
        if (backward) {
            pos = size - s->cmd_done - n;
            memmove(s->vram_ptr + dst->addr + pos,
                    s->vram_ptr + src->addr + pos, n);
            memory_region_set_dirty(&s->vram, dst->addr + pos, n);
        } else {
            pos = s->cmd_done;
            if (!wddmseg_loc_vram(src) && !wddmseg_loc_vram(dst)) {
                n = MIN(n, WDDMSEG_BOUNCE_SIZE);
            }
            code = wddmseg_span(s, src, pos, n, &a, why);
            if (code) {
                return code;
            }
            n = a.len;
            code = wddmseg_span(s, dst, pos, n, &b, why);
            if (code) {
                return code;
            }
            n = b.len;
            switch (wddmseg_move_unlocked(s, &a, &b, n)) {
            case 1:
                break;
            case -1:
                return WDDMSEG_COPY_STALE;
            default:
                code = wddmseg_move(s, &a, &b, n, why);
                if (code) {
                    return code;
                }
            }
        }
        s->cmd_done += n;
        *budget -= n;
    }
    *done = true;
    return WDDMSEG_FAULT_NONE;
}

/*
 * FILL: byte i of the range gets byte i % 4 of the little-endian pattern,
 * whatever the alignment of the range.
 */
static uint32_t wddmseg_fill(WddmsegState *s, const WddmsegLoc *dst,
                             uint32_t pattern, uint64_t *budget, bool *done,
                             const char **why)
{
    uint64_t size = dst->size;
    uint64_t fill = MIN(size, WDDMSEG_BOUNCE_SIZE) + sizeof(pattern);
    WddmsegSpan sp;
    uint64_t n, i;
    uint32_t code;
    bool fresh;
    void *p;

    /* The pattern from phase 0, for runs up to WDDMSEG_BOUNCE_SIZE. */
    for (i = 0; i < fill; i += sizeof(pattern)) {
        stl_le_p(s->bounce + i, pattern);
    }
    while (s->cmd_done < size) {
        n = MIN(MIN(size - s->cmd_done, *budget), WDDMSEG_BOUNCE_SIZE);
        if (!n) {
            return WDDMSEG_FAULT_NONE;
        }
        code = wddmseg_span(s, dst, s->cmd_done, n, &sp, why);
        if (code) {
            return code;
        }
        n = sp.len;
        p = wddmseg_may_unlock(n) && !sp.copy ?
            wddmseg_span_map(s, &sp, n, DMA_DIRECTION_FROM_DEVICE) : NULL;
        if (p) {
            /* Large pieces without the BQL, as in wddmseg_copy(). */
            fresh = wddmseg_memcpy_unlocked(s, p, s->bounce +
                                            s->cmd_done % 4, n);
            wddmseg_span_unmap(s, &sp, p, n, DMA_DIRECTION_FROM_DEVICE);
            if (!fresh) {
                return WDDMSEG_COPY_STALE;
            }
        } else if (sp.vram) {
            memcpy(s->vram_ptr + sp.addr, s->bounce + s->cmd_done % 4, n);
            memory_region_set_dirty(&s->vram, sp.addr, n);
        } else if (pci_dma_write(PCI_DEVICE(s), sp.addr,
                                 s->bounce + s->cmd_done % 4, n) !=
                   MEMTX_OK) {
            *why = "system memory write failed";
            return WDDMSEG_FAULT_DMA;
        } else if (sp.copy) {
            memcpy(sp.copy, s->bounce + s->cmd_done % 4, n);
        }
        s->cmd_done += n;
        *budget -= n;
    }
    *done = true;
    return WDDMSEG_FAULT_NONE;
}

/*
 * SipHash-2-4 (Aumasson and Bernstein) of a 16-byte message, the two
 * little-endian words m0 and m1, under the 128-bit key k0, k1.
 */
#define WDDMSEG_SIP_ROUND(v0, v1, v2, v3) do { \
        (v0) += (v1);                          \
        (v1) = rol64((v1), 13);                \
        (v1) ^= (v0);                          \
        (v0) = rol64((v0), 32);                \
        (v2) += (v3);                          \
        (v3) = rol64((v3), 16);                \
        (v3) ^= (v2);                          \
        (v0) += (v3);                          \
        (v3) = rol64((v3), 21);                \
        (v3) ^= (v0);                          \
        (v2) += (v1);                          \
        (v1) = rol64((v1), 17);                \
        (v1) ^= (v2);                          \
        (v2) = rol64((v2), 32);                \
    } while (0)

static uint64_t wddmseg_siphash16(const uint64_t *key, uint64_t m0,
                                  uint64_t m1)
{
    /* The initial state: "somepseudorandomlygeneratedbytes". */
    uint64_t v0 = key[0] ^ 0x736f6d6570736575ULL;
    uint64_t v1 = key[1] ^ 0x646f72616e646f6dULL;
    uint64_t v2 = key[0] ^ 0x6c7967656e657261ULL;
    uint64_t v3 = key[1] ^ 0x7465646279746573ULL;
    /* The last block: no bytes left over, the length (16) in the top byte. */
    const uint64_t m[3] = { m0, m1, (uint64_t)16 << 56 };
    unsigned int i, r;

    for (i = 0; i < ARRAY_SIZE(m); i++) {
        v3 ^= m[i];
        for (r = 0; r < 2; r++) {               /* c = 2 */
            WDDMSEG_SIP_ROUND(v0, v1, v2, v3);
        }
        v0 ^= m[i];
    }
    v2 ^= 0xff;
    for (r = 0; r < 4; r++) {                   /* d = 4 */
        WDDMSEG_SIP_ROUND(v0, v1, v2, v3);
    }
    return v0 ^ v1 ^ v2 ^ v3;
}

/*
 * XOR n bytes with the key stream of nonce from stream byte at on: word k
 * of the stream is SipHash-2-4(key, nonce || k), little endian. Any
 * alignment of at and n (a piece of a page list location that does not
 * start 8-byte aligned in its page ends mid-word).
 */
static void wddmseg_crypt_xor(WddmsegState *s, uint8_t *buf, uint64_t n,
                              uint64_t nonce, uint64_t at)
{
    uint64_t i = 0, ks;
    unsigned int b;

    while (i < n) {
        ks = wddmseg_siphash16(s->key, nonce, (at + i) / 8);
        b = (at + i) % 8;
        if (!b && n - i >= 8) {
            stq_le_p(buf + i, ldq_le_p(buf + i) ^ ks);
            i += 8;
            continue;
        }
        for (; b < 8 && i < n; b++, i++) {
            buf[i] ^= ks >> (8 * b);
        }
    }
}

/*
 * TRANSFER_ENCRYPTED: check the command, and which side is the protected
 * VRAM. The locations are parsed (and range-checked) as for TRANSFER
 * first; then ENCRYPT needs VRAM of a VprSupported and
 * EncryptedPagingSupported segment as the source and a page list as the
 * destination, DECRYPT the reverse.
 */
static uint32_t wddmseg_crypt_check(WddmsegState *s, WddmsegLoc *src,
                                    WddmsegLoc *dst, const char **why)
{
    const uint32_t need = DXGK_SEGFLAG_VPR_SUPPORTED |
                          DXGK_SEGFLAG_ENCRYPTED_PAGING_SUPPORTED;
    const uint64_t *c = s->cmd;
    uint64_t size = c[1], mode = c[8], stream = c[10];
    bool encrypt = mode == WDDMSEG_CRYPT_ENCRYPT;
    const uint64_t *vram_w = encrypt ? &c[2] : &c[5];
    const WddmsegLoc *vram = encrypt ? src : dst;
    const WddmsegLoc *pages = encrypt ? dst : src;
    uint32_t code;

    if (mode != WDDMSEG_CRYPT_ENCRYPT && mode != WDDMSEG_CRYPT_DECRYPT) {
        *why = "encrypted transfer: mode is not exactly ENCRYPT or DECRYPT";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (size % sizeof(uint64_t) || stream % sizeof(uint64_t)) {
        *why = "encrypted transfer: size or stream offset not a multiple "
               "of 8";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (stream + size < stream) {
        *why = "encrypted transfer: stream offset + size overflows";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    code = wddmseg_cmd_loc(s, &c[2], size, &s->cache[0], src, why);
    if (!code) {
        code = wddmseg_cmd_loc(s, &c[5], size, &s->cache[1], dst, why);
    }
    if (code) {
        return code;
    }
    /* A VRAM location has a valid segment id: wddmseg_cmd_loc() saw to it. */
    if (vram->kind != WDDMSEG_LOC_VRAM &&
        vram->kind != WDDMSEG_LOC_VRAM_PAGES) {
        *why = encrypt ? "ENCRYPT: the source is not VRAM of a segment" :
                         "DECRYPT: the destination is not VRAM of a segment";
        return WDDMSEG_FAULT_PROTECTION;
    }
    if ((s->layout.segs[(vram_w[0] & ~WDDMSEG_LOC_VRAM_LIST) - 1].flags &
         need) != need) {
        *why = encrypt ? "ENCRYPT: the source segment lacks VprSupported or "
                         "EncryptedPagingSupported" :
                         "DECRYPT: the destination segment lacks "
                         "VprSupported or EncryptedPagingSupported";
        return WDDMSEG_FAULT_PROTECTION;
    }
    if (pages->kind != WDDMSEG_LOC_PAGES) {
        *why = encrypt ? "ENCRYPT: the destination is not a page list" :
                         "DECRYPT: the source is not a page list";
        return WDDMSEG_FAULT_PROTECTION;
    }
    return WDDMSEG_FAULT_NONE;
}

/*
 * TRANSFER_ENCRYPTED: byte i of the range goes from src to dst XORed with
 * byte stream offset + i of the key stream, resuming at cmd_done, within
 * *budget (WDDMSEG_CRYPT_COST a byte). Every piece goes through the
 * bounce buffer under the BQL: the key stream is applied there.
 */
static uint32_t wddmseg_crypt(WddmsegState *s, const WddmsegLoc *src,
                              const WddmsegLoc *dst, uint64_t *budget,
                              bool *done, const char **why)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint64_t size = src->size, nonce = s->cmd[9], stream = s->cmd[10];
    WddmsegSpan a, b;
    uint64_t n, pos;
    uint32_t code;

    while (s->cmd_done < size) {
        pos = s->cmd_done;
        n = MIN(MIN(size - pos, *budget / WDDMSEG_CRYPT_COST),
                WDDMSEG_BOUNCE_SIZE);
        if (!n) {
            return WDDMSEG_FAULT_NONE;
        }
        code = wddmseg_span(s, src, pos, n, &a, why);
        if (code) {
            return code;
        }
        n = a.len;
        code = wddmseg_span(s, dst, pos, n, &b, why);
        if (code) {
            return code;
        }
        n = b.len;

        if (a.vram) {
            memcpy(s->bounce, s->vram_ptr + a.addr, n);
        } else if (pci_dma_read(pdev, a.addr, s->bounce, n) != MEMTX_OK) {
            *why = "encrypted transfer: system memory read failed";
            return WDDMSEG_FAULT_DMA;
        }
        wddmseg_crypt_xor(s, s->bounce, n, nonce, stream + pos);
        if (b.vram) {
            memcpy(s->vram_ptr + b.addr, s->bounce, n);
            memory_region_set_dirty(&s->vram, b.addr, n);
        } else if (pci_dma_write(pdev, b.addr, s->bounce, n) != MEMTX_OK) {
            *why = "encrypted transfer: system memory write failed";
            return WDDMSEG_FAULT_DMA;
        }
        s->cmd_done += n;
        *budget -= n * WDDMSEG_CRYPT_COST;
    }
    *done = true;
    return WDDMSEG_FAULT_NONE;
}

/* Segment id names an aperture whose table has [first, first + count). */
static uint32_t wddmseg_apt_range(WddmsegState *s, uint32_t id,
                                  uint64_t first, uint64_t count,
                                  const char **why)
{
    if (id == 0 || id > s->layout.seg_count ||
        !(s->layout.segs[id - 1].flags & DXGK_SEGFLAG_APERTURE)) {
        *why = "segment is not an aperture";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (first > s->apt_pages[id - 1] ||
        count > s->apt_pages[id - 1] - first) {
        *why = "pages outside the aperture's page table";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    return WDDMSEG_FAULT_NONE;
}

/*
 * MAP_APERTURE / UNMAP_APERTURE: entries [OffsetInPages, +NumberOfPages)
 * of an aperture segment's table, from a page list or all one dummy page.
 */
static uint32_t wddmseg_map(WddmsegState *s, bool map, uint64_t *budget,
                            bool *done, const char **why)
{
    uint64_t seg_word = s->cmd[1], first = s->cmd[2], count = s->cmd[3];
    uint64_t addr = s->cmd[4];
    uint64_t reserved = map ? ~(UINT32_MAX | WDDMSEG_MAP_CACHE_COHERENT |
                                WDDMSEG_MAP_CPU_CACHED) :
                              ~(uint64_t)UINT32_MAX;
    uint32_t id = seg_word, i, code;
    uint64_t entry, *table;
    uint8_t **copy;
    bool snooped;

    if (seg_word & reserved) {
        *why = "reserved bits of the segment word set";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    code = wddmseg_apt_range(s, id, first, count, why);
    if (code) {
        return code;
    }
    i = id - 1;
    snooped = s->layout.segs[i].flags & DXGK_SEGFLAG_CACHE_COHERENT;
    if ((seg_word & WDDMSEG_MAP_CACHE_COHERENT) && !snooped) {
        *why = "CacheCoherent mapping in a segment without CacheCoherent";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (map ? addr % sizeof(uint64_t) : addr % WDDMSEG_PAGE_SIZE) {
        *why = map ? "page list not 8-byte aligned" :
                     "dummy page not 4 KiB aligned";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (map && addr + count * sizeof(uint64_t) < addr) {
        *why = "page list wraps around the address space";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
    }
    table = &s->apt[s->apt_first[i] + first];
    copy = &s->apt_copy[s->apt_first[i] + first];
    while (s->cmd_done < count) {
        if (!*budget) {
            return WDDMSEG_FAULT_NONE;
        }
        entry = addr;
        if (map) {
            code = wddmseg_list_entry(s, &s->cache[0], addr, s->cmd_done,
                                      count - 1, &entry, why);
            if (code) {
                return code;
            }
        }
        /* CPU-cached pages the segment does not snoop: a device copy. */
        if (map && !snooped && (seg_word & WDDMSEG_MAP_CPU_CACHED)) {
            if (!copy[s->cmd_done]) {
                copy[s->cmd_done] = g_malloc(WDDMSEG_PAGE_SIZE);
            }
            if (pci_dma_read(PCI_DEVICE(s), entry, copy[s->cmd_done],
                             WDDMSEG_PAGE_SIZE) != MEMTX_OK) {
                *why = "aperture page read failed";
                return WDDMSEG_FAULT_DMA;
            }
            *budget -= MIN(*budget, WDDMSEG_PAGE_SIZE);
        } else {
            wddmseg_apt_drop_copy(s, s->apt_first[i] + first + s->cmd_done);
        }
        table[s->cmd_done++] = entry;
        *budget -= MIN(*budget, WDDMSEG_APT_ENTRY_COST);
    }
    *done = true;
    return WDDMSEG_FAULT_NONE;
}

/*
 * FLUSH_APERTURE: the device refreshes its copies of pages [OffsetInPages,
 * +NumberOfPages) of an aperture segment from memory.
 */
static uint32_t wddmseg_flush(WddmsegState *s, uint64_t *budget, bool *done,
                              const char **why)
{
    uint64_t seg_word = s->cmd[1], first = s->cmd[2], count = s->cmd[3];
    uint32_t id = seg_word, code;
    uint8_t **copy;

    if (seg_word >> 32) {
        *why = "reserved bits of the segment word set";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    code = wddmseg_apt_range(s, id, first, count, why);
    if (code) {
        return code;
    }
    copy = &s->apt_copy[s->apt_first[id - 1] + first];
    while (s->cmd_done < count) {
        if (!*budget) {
            return WDDMSEG_FAULT_NONE;
        }
        if (copy[s->cmd_done]) {
            if (pci_dma_read(PCI_DEVICE(s),
                             s->apt[s->apt_first[id - 1] + first +
                                    s->cmd_done],
                             copy[s->cmd_done], WDDMSEG_PAGE_SIZE) !=
                MEMTX_OK) {
                *why = "aperture page read failed";
                return WDDMSEG_FAULT_DMA;
            }
            *budget -= MIN(*budget, WDDMSEG_PAGE_SIZE);
        }
        s->cmd_done++;
        *budget -= MIN(*budget, WDDMSEG_APT_ENTRY_COST);
    }
    trace_wddmseg_flush_aperture(id, first, count);
    *done = true;
    return WDDMSEG_FAULT_NONE;
}

/* Drop the device's copy of aperture table entry entry, if it has one. */
void wddmseg_apt_drop_copy(WddmsegState *s, uint32_t entry)
{
    g_free(s->apt_copy[entry]);
    s->apt_copy[entry] = NULL;
}

/* Drop every copy: the table was cleared (reset) or goes away. */
void wddmseg_apt_drop_copies(WddmsegState *s)
{
    uint32_t i;

    for (i = 0; s->apt_copy && i < s->apt_total; i++) {
        wddmseg_apt_drop_copy(s, i);
    }
}

static uint32_t wddmseg_fence(WddmsegState *s, const char **why)
{
    uint64_t seqno = cpu_to_le64(s->cmd[1]);

    if (s->cmd[3] & ~(uint64_t)WDDMSEG_FENCE_IRQ) {
        *why = "unknown fence flags";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (s->cmd[2] % sizeof(seqno)) {
        *why = "writeback slot not 8-byte aligned";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (pci_dma_write(PCI_DEVICE(s), s->cmd[2], &seqno, sizeof(seqno)) !=
        MEMTX_OK) {
        *why = "fence writeback failed";
        return WDDMSEG_FAULT_DMA;
    }
    s->last_seqno = s->cmd[1];
    if (s->cmd[3] & WDDMSEG_FENCE_IRQ) {
        wddmseg_irq_raise(s, WDDMSEG_IRQ_FENCE);
    }
    return WDDMSEG_FAULT_NONE;
}

/*
 * Run (or resume) the fetched command within *budget. *done tells whether
 * it completed; it does not only when the budget ran out.
 */
/*
 * DISCARD of a VRAM page list: every page it covers must be a page of its
 * segment (the check the copy engine makes when it reaches a page).
 */
static uint32_t wddmseg_check_pages(WddmsegState *s, const WddmsegLoc *loc,
                                    const char **why)
{
    WddmsegSpan sp;
    uint64_t pos = 0;
    uint32_t code;

    while (pos < loc->size) {
        code = wddmseg_span(s, loc, pos, loc->size - pos, &sp, why);
        if (code) {
            return code;
        }
        pos += sp.len;
    }
    return WDDMSEG_FAULT_NONE;
}

static uint32_t wddmseg_exec(WddmsegState *s, uint64_t *budget, bool *done,
                             const char **why)
{
    const uint64_t *c = s->cmd;
    WddmsegLoc src, dst;
    uint32_t code;

    *done = false;
    switch (WDDMSEG_CMD_OPCODE(c[0])) {
    case WDDMSEG_OP_NOP:
        break;
    case WDDMSEG_OP_TRANSFER:
        code = wddmseg_cmd_loc(s, &c[2], c[1], &s->cache[0], &src, why);
        if (!code) {
            code = wddmseg_cmd_loc(s, &c[5], c[1], &s->cache[1], &dst, why);
        }
        return code ? code : wddmseg_copy(s, &src, &dst, budget, done, why);
    case WDDMSEG_OP_FILL:
        if (c[2] >> 32) {
            *why = "reserved bits of the pattern word set";
            return WDDMSEG_FAULT_BAD_PACKET;
        }
        code = wddmseg_cmd_loc(s, &c[3], c[1], &s->cache[1], &dst, why);
        return code ? code : wddmseg_fill(s, &dst, c[2], budget, done, why);
    case WDDMSEG_OP_DISCARD:
        code = wddmseg_cmd_loc(s, &c[2], c[1], &s->cache[1], &dst, why);
        if (!code && dst.kind == WDDMSEG_LOC_VRAM_PAGES) {
            code = wddmseg_check_pages(s, &dst, why);
        }
        if (code) {
            return code;
        }
        break;
    case WDDMSEG_OP_READ_PHYSICAL:
        code = wddmseg_gpu_loc(s, c[2], c[1], &src, why);
        if (!code) {
            code = wddmseg_dma_loc(c[3], c[1], &dst, why);
        }
        return code ? code : wddmseg_copy(s, &src, &dst, budget, done, why);
    case WDDMSEG_OP_WRITE_PHYSICAL:
        code = wddmseg_dma_loc(c[3], c[1], &src, why);
        if (!code) {
            code = wddmseg_gpu_loc(s, c[2], c[1], &dst, why);
        }
        return code ? code : wddmseg_copy(s, &src, &dst, budget, done, why);
    case WDDMSEG_OP_MAP_APERTURE:
    case WDDMSEG_OP_UNMAP_APERTURE:
        return wddmseg_map(s, WDDMSEG_CMD_OPCODE(c[0]) ==
                           WDDMSEG_OP_MAP_APERTURE, budget, done, why);
    case WDDMSEG_OP_FENCE:
        code = wddmseg_fence(s, why);
        if (code) {
            return code;
        }
        break;
    case WDDMSEG_OP_TRANSFER_ENCRYPTED:
        code = wddmseg_crypt_check(s, &src, &dst, why);
        return code ? code : wddmseg_crypt(s, &src, &dst, budget, done, why);
    case WDDMSEG_OP_FLUSH_APERTURE:
        return wddmseg_flush(s, budget, done, why);
    case WDDMSEG_OP_UPDATE_PAGE_TABLE:
    case WDDMSEG_OP_FLUSH_TLB:
    case WDDMSEG_OP_TRANSFER_VIRTUAL:
    case WDDMSEG_OP_FILL_VIRTUAL:
    case WDDMSEG_OP_COPY_PAGE_TABLE_ENTRIES:
        return wddmseg_mmu_exec(s, budget, done, why);
    default:
        /* Only a corrupt migration stream gets here. */
        *why = "unknown opcode";
        return WDDMSEG_FAULT_BAD_OPCODE;
    }
    *done = true;
    return WDDMSEG_FAULT_NONE;
}

/* The opcode of command header hdr, by name. */
static const char *wddmseg_cmd_name(uint64_t hdr)
{
    unsigned int op = WDDMSEG_CMD_OPCODE(hdr);
    static const char *const names[] = {
        [WDDMSEG_OP_NOP] = "NOP",
        [WDDMSEG_OP_TRANSFER] = "TRANSFER",
        [WDDMSEG_OP_FILL] = "FILL",
        [WDDMSEG_OP_DISCARD] = "DISCARD",
        [WDDMSEG_OP_READ_PHYSICAL] = "READ_PHYSICAL",
        [WDDMSEG_OP_WRITE_PHYSICAL] = "WRITE_PHYSICAL",
        [WDDMSEG_OP_MAP_APERTURE] = "MAP_APERTURE",
        [WDDMSEG_OP_UNMAP_APERTURE] = "UNMAP_APERTURE",
        [WDDMSEG_OP_FENCE] = "FENCE",
        [WDDMSEG_OP_TRANSFER_ENCRYPTED] = "TRANSFER_ENCRYPTED",
        [WDDMSEG_OP_FLUSH_APERTURE] = "FLUSH_APERTURE",
    };

    if (op < ARRAY_SIZE(names) && names[op]) {
        return names[op];
    }
    return wddmseg_mmu_cmd_name(op) ?: "unknown";
}

/* The command just fetched, its words decoded, for the trace. */
static void wddmseg_cmd_trace(WddmsegState *s)
{
    const uint64_t *c = s->cmd;
    unsigned int op = WDDMSEG_CMD_OPCODE(c[0]);
    const char *name = wddmseg_cmd_name(c[0]);

    trace_wddmseg_cmd_fetch(s->ring_head, name, WDDMSEG_CMD_QWORDS(c[0]));
    switch (op) {
    case WDDMSEG_OP_TRANSFER:
    case WDDMSEG_OP_TRANSFER_ENCRYPTED:
        trace_wddmseg_cmd_transfer(name, c[1], c[2], c[3], c[4], c[5], c[6],
                                   c[7]);
        if (op == WDDMSEG_OP_TRANSFER_ENCRYPTED) {
            trace_wddmseg_cmd_crypt(c[8], c[9], c[10]);
        }
        break;
    case WDDMSEG_OP_FILL:
        trace_wddmseg_cmd_fill(c[1], c[3], c[4], c[5], c[2]);
        break;
    case WDDMSEG_OP_DISCARD:
        trace_wddmseg_cmd_discard(c[1], c[2], c[3], c[4]);
        break;
    case WDDMSEG_OP_READ_PHYSICAL:
    case WDDMSEG_OP_WRITE_PHYSICAL:
        trace_wddmseg_cmd_physical(name, c[1], c[2], c[3]);
        break;
    case WDDMSEG_OP_MAP_APERTURE:
    case WDDMSEG_OP_UNMAP_APERTURE:
        trace_wddmseg_cmd_aperture(name, c[1], c[2], c[3], c[4]);
        break;
    case WDDMSEG_OP_FLUSH_APERTURE:
        trace_wddmseg_cmd_aperture(name, c[1], c[2], c[3], 0);
        break;
    case WDDMSEG_OP_FENCE:
        trace_wddmseg_cmd_fence(c[1], c[2], c[3]);
        break;
    case WDDMSEG_OP_UPDATE_PAGE_TABLE:
    case WDDMSEG_OP_FLUSH_TLB:
    case WDDMSEG_OP_TRANSFER_VIRTUAL:
    case WDDMSEG_OP_FILL_VIRTUAL:
    case WDDMSEG_OP_COPY_PAGE_TABLE_ENTRIES:
        trace_wddmseg_cmd_mmu(name, c[1], c[2], c[3], c[4], c[5]);
        break;
    }
}

/*
 * One batch, with the BQL: at most WDDMSEG_BATCH_CMDS commands and
 * x-batch-bytes moved; the thread runs the next one while work remains.
 */
static void wddmseg_engine_batch(WddmsegState *s)
{
    uint64_t budget = s->batch_bytes;
    const char *why = NULL;
    unsigned int n;
    uint32_t code;
    bool done;

    trace_wddmseg_engine_batch(s->ring_head, s->ring_tail, budget);
    for (n = 0; n < WDDMSEG_BATCH_CMDS && budget; n++) {
        if (!wddmseg_engine_runnable(s)) {
            return;
        }
        if (!s->cmd_active) {
            if (s->inject_fault) {
                s->inject_fault = false;
                wddmseg_engine_fault(s, WDDMSEG_FAULT_INJECTED,
                                     "injected fault");
                return;
            }
            code = wddmseg_engine_fetch(s, &why);
            if (code) {
                wddmseg_engine_fault(s, code, why);
                return;
            }
            wddmseg_cmd_trace(s);
        }
        code = wddmseg_exec(s, &budget, &done, &why);
        if (code == WDDMSEG_COPY_STALE) {
            /* Reset meanwhile: nothing left to run. */
            return;
        }
        if (code) {
            wddmseg_engine_fault(s, code, why);
            return;
        }
        if (!done) {
            trace_wddmseg_cmd_yield(s->ring_head, wddmseg_cmd_name(s->cmd[0]),
                                    s->cmd_done);
            break;
        }
        trace_wddmseg_cmd_done(s->ring_head, wddmseg_cmd_name(s->cmd[0]),
                               s->cmd_done);
        s->ring_head = (s->ring_head +
                        WDDMSEG_CMD_QWORDS(s->cmd[0]) * sizeof(uint64_t)) &
                       (s->ring_size - 1);
        s->cmd_active = false;
    }
}

/*
 * A batch as the device's own work: the reentrancy guard is raised, so
 * that a command whose DMA targets the device's own BARs is refused as it
 * would be from a bottom half created with qemu_bh_new_guarded().
 */
static void wddmseg_engine_batch_guarded(WddmsegState *s,
                                         void (*batch)(WddmsegState *s))
{
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;

    guard->engaged_in_io = true;
    batch(s);
    guard->engaged_in_io = engaged;
}

/*
 * Whether work was kicked since @seen, polling without the BQL for the
 * thread's current window: a driver that waits for a paging fence submits
 * its next job within tens of microseconds, and a thread still polling
 * takes it at once, where a sleeping one must be woken up first.
 */
static bool wddmseg_engine_poll(WddmsegState *s, uint32_t seen, int64_t t0)
{
    int64_t end = t0 + s->engine_poll_ns;

    while (qatomic_read(&s->engine_kicks) == seen) {
        if (qatomic_read(&s->engine_quit) ||
            qemu_clock_get_ns(QEMU_CLOCK_REALTIME) >= end) {
            return false;
        }
        cpu_relax();
    }
    return true;
}

/*
 * Adapt the polling window to the idle time @idle_ns that ended with the
 * last kick, as QEMU's AioContext polling does: a gap longer than the
 * window but within x-engine-poll-us grows it, a gap past x-engine-poll-us
 * (polling could not have caught it) shrinks it, so that a workload whose
 * doorbells do not come back to back costs no polling.
 */
static void wddmseg_engine_poll_adapt(WddmsegState *s, int64_t idle_ns)
{
    int64_t max = (int64_t)s->engine_poll_us * SCALE_US;

    if (idle_ns <= s->engine_poll_ns) {
        return;
    }
    if (idle_ns <= max) {
        s->engine_poll_ns = MIN(max, MAX(s->engine_poll_ns * 2,
                                         WDDMSEG_POLL_MIN_NS));
    } else {
        s->engine_poll_ns /= 2;
        if (s->engine_poll_ns < WDDMSEG_POLL_MIN_NS) {
            s->engine_poll_ns = 0;
        }
    }
}

/*
 * The engine's thread: runs batches under the BQL while the engine is
 * runnable, dropping the BQL between them so that vCPUs and the main loop
 * get it, then polls for new work for a while (wddmseg_engine_poll()) and
 * sleeps until wddmseg_engine_kick(). wddmseg_engine_stop() ends it.
 */
void *wddmseg_engine_thread(void *opaque)
{
    WddmsegState *s = opaque;
    uint32_t seen;
    int64_t idle_start;

    rcu_register_thread();
    while (!qatomic_read(&s->engine_quit)) {
        bool ran = false;

        qemu_event_reset(&s->engine_event);
        seen = qatomic_read(&s->engine_kicks);
        bql_lock();
        while (!qatomic_read(&s->engine_quit) && wddmseg_engine_busy(s)) {
            /* The ring, then a batch of every hardware context. */
            if (wddmseg_engine_runnable(s)) {
                wddmseg_engine_batch_guarded(s, wddmseg_engine_batch);
            }
            if (wddmseg_mmu_runnable(s)) {
                wddmseg_engine_batch_guarded(s, wddmseg_mmu_batch);
            }
            ran = true;
            bql_unlock();
            bql_lock();
        }
        bql_unlock();
        if (!ran) {
            /* Nothing ran (a stopped VM, a disabled ring): just sleep. */
            qemu_event_wait(&s->engine_event);
            continue;
        }
        idle_start = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
        if (!wddmseg_engine_poll(s, seen, idle_start)) {
            qemu_event_wait(&s->engine_event);
        }
        wddmseg_engine_poll_adapt(s,
            qemu_clock_get_ns(QEMU_CLOCK_REALTIME) - idle_start);
    }
    rcu_unregister_thread();
    return NULL;
}

/*
 * End the engine's thread (unrealize). The caller holds the BQL, which the
 * thread may be waiting for: it is dropped while the thread ends.
 */
void wddmseg_engine_stop(WddmsegState *s)
{
    qatomic_set(&s->engine_quit, true);
    qemu_event_set(&s->engine_event);
    bql_unlock();
    qemu_thread_join(&s->engine_thread);
    bql_lock();
}

void wddmseg_vm_state_change(void *opaque, bool running,
                             RunState state)
{
    WddmsegState *s = opaque;

    if (running) {
        wddmseg_engine_kick(s);
        return;
    }
    /* Stopped: let a piece running without the BQL finish first. */
    while (s->copy_unlocked) {
        qemu_cond_wait_bql(&s->copy_cond);
    }
}

/* Base, size, head and tail the engine can run with. */
bool wddmseg_ring_valid(WddmsegState *s, const char **why)
{
    if (s->ring_size < WDDMSEG_RING_MIN || s->ring_size > WDDMSEG_RING_MAX ||
        !is_power_of_2(s->ring_size)) {
        *why = "RING_SIZE is not a power of two in [4 KiB, 1 MiB]";
        return false;
    }
    if (s->ring_base % WDDMSEG_PAGE_SIZE) {
        *why = "RING_BASE is not 4 KiB aligned";
        return false;
    }
    if (s->ring_head >= s->ring_size || s->ring_tail >= s->ring_size) {
        *why = "RING_HEAD or RING_TAIL past RING_SIZE (reset the ring)";
        return false;
    }
    return true;
}

static void wddmseg_ring_ctrl_write(WddmsegState *s, uint32_t val)
{
    const char *why = NULL;

    if (val & ~(WDDMSEG_RING_CTRL_ENABLE | WDDMSEG_RING_CTRL_RESET)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: unknown RING_CTRL bits 0x%x "
                      "ignored\n", __func__, val);
    }
    if (val & WDDMSEG_RING_CTRL_RESET) {
        wddmseg_engine_reset(s);
    }
    if (!(val & WDDMSEG_RING_CTRL_ENABLE)) {
        if (s->ring_ctrl & WDDMSEG_RING_CTRL_ENABLE) {
            trace_wddmseg_ring_disable(s->ring_head, s->ring_tail);
        }
        s->ring_ctrl = 0;
        return;
    }
    if (s->ring_ctrl & WDDMSEG_RING_CTRL_ENABLE) {
        return;
    }
    if (!wddmseg_ring_valid(s, &why)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: ring not enabled: %s (base "
                      "0x%" PRIx64 ", size 0x%x)\n", __func__, why,
                      s->ring_base, s->ring_size);
        return;
    }
    s->ring_ctrl = WDDMSEG_RING_CTRL_ENABLE;
    trace_wddmseg_ring_enable(s->ring_base, s->ring_size, s->ring_head,
                              s->ring_tail);
    wddmseg_engine_kick(s);
}

/* The doorbell. A tail the ring cannot have is a fault. */
static void wddmseg_ring_tail_write(WddmsegState *s, uint32_t val)
{
    trace_wddmseg_doorbell(val, s->ring_head);
    if (val % sizeof(uint64_t) || val >= s->ring_size) {
        wddmseg_engine_fault(s, WDDMSEG_FAULT_BAD_PACKET, "RING_TAIL not a "
                             "multiple of 8 below RING_SIZE");
        return;
    }
    s->ring_tail = val;
    wddmseg_engine_kick(s);
}

static void wddmseg_inject_write(WddmsegState *s, uint32_t val)
{
    if (val & ~(WDDMSEG_INJECT_HANG | WDDMSEG_INJECT_FAULT)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: unknown INJECT bits 0x%x "
                      "ignored\n", __func__, val);
    }
    if (val & WDDMSEG_INJECT_HANG) {
        s->hung = true;
    }
    if (val & WDDMSEG_INJECT_FAULT) {
        s->inject_fault = true;
        wddmseg_engine_kick(s);
    }
}

static uint32_t wddmseg_ring_status(WddmsegState *s)
{
    uint32_t v = 0;

    if (s->ring_ctrl & WDDMSEG_RING_CTRL_ENABLE) {
        v |= WDDMSEG_RING_STATUS_ENABLED;
    }
    if (s->ring_head == s->ring_tail && !s->hung &&
        s->fault_code == WDDMSEG_FAULT_NONE) {
        v |= WDDMSEG_RING_STATUS_IDLE;
    }
    if (s->fault_code != WDDMSEG_FAULT_NONE) {
        v |= WDDMSEG_RING_STATUS_FAULTED;
    }
    return v;
}

bool wddmseg_ring_read(WddmsegState *s, hwaddr addr, uint32_t *val)
{
    switch (addr) {
    case WDDMSEG_REG_RING_BASE_LO:
    case WDDMSEG_REG_RING_BASE_HI:
        *val = wddmseg_lo_hi(s->ring_base, addr, WDDMSEG_REG_RING_BASE_LO);
        return true;
    case WDDMSEG_REG_RING_SIZE:
        *val = s->ring_size;
        return true;
    case WDDMSEG_REG_RING_HEAD:
        *val = s->ring_head;
        return true;
    case WDDMSEG_REG_RING_TAIL:
        *val = s->ring_tail;
        return true;
    case WDDMSEG_REG_RING_CTRL:
        *val = s->ring_ctrl;
        return true;
    case WDDMSEG_REG_RING_STATUS:
        *val = wddmseg_ring_status(s);
        return true;
    case WDDMSEG_REG_FAULT_CODE:
        *val = s->fault_code;
        return true;
    case WDDMSEG_REG_FAULT_HEAD:
        *val = s->fault_head;
        return true;
    case WDDMSEG_REG_LAST_SEQNO_LO:
    case WDDMSEG_REG_LAST_SEQNO_HI:
        *val = wddmseg_lo_hi(s->last_seqno, addr, WDDMSEG_REG_LAST_SEQNO_LO);
        return true;
    case WDDMSEG_REG_INJECT:
        *val = (s->hung ? WDDMSEG_INJECT_HANG : 0) |
               (s->inject_fault ? WDDMSEG_INJECT_FAULT : 0);
        return true;
    case WDDMSEG_REG_FAULT_DETAIL:
        *val = s->fault_detail;
        return true;
    }
    return false;
}

/* RING_BASE and RING_SIZE only change while the ring is disabled. */
static bool wddmseg_ring_config_writable(WddmsegState *s, const char *reg)
{
    if (s->ring_ctrl & WDDMSEG_RING_CTRL_ENABLE) {
        qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: write to %s while the ring "
                      "is enabled ignored\n", reg);
        return false;
    }
    return true;
}

bool wddmseg_ring_write(WddmsegState *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case WDDMSEG_REG_RING_BASE_LO:
        if (wddmseg_ring_config_writable(s, "RING_BASE_LO")) {
            s->ring_base = deposit64(s->ring_base, 0, 32, val);
        }
        return true;
    case WDDMSEG_REG_RING_BASE_HI:
        if (wddmseg_ring_config_writable(s, "RING_BASE_HI")) {
            s->ring_base = deposit64(s->ring_base, 32, 32, val);
        }
        return true;
    case WDDMSEG_REG_RING_SIZE:
        if (wddmseg_ring_config_writable(s, "RING_SIZE")) {
            s->ring_size = val;
        }
        return true;
    case WDDMSEG_REG_RING_TAIL:
        wddmseg_ring_tail_write(s, val);
        return true;
    case WDDMSEG_REG_RING_CTRL:
        wddmseg_ring_ctrl_write(s, val);
        return true;
    case WDDMSEG_REG_INJECT:
        wddmseg_inject_write(s, val);
        return true;
    }
    return false;
}
