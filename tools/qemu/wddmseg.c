/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg: a PCI GPU that describes its memory with WDDM segment descriptors
 *
 * The device presents, in BAR0, an adapter capability block
 * (DXGK_VIDMMCAPS) and a table of segment descriptors
 * (DXGK_SEGMENTDESCRIPTOR + DXGK_SEGMENTFLAGS), and exposes the start of
 * its VRAM as BAR2 and a movable 1 MiB window onto any part of it as BAR4.
 * Aperture segments have a page table the CPU writes through registers,
 * and a read port (PEEK) shows the word the GPU sees at any GPU address,
 * through those tables. The register map is wddmseg_hw.h, shared with the
 * Linux driver; the contract is the device's specification,
 * docs/specs/wddmseg.rst.
 *
 * The descriptor table comes either from the size properties (the default
 * layout) or verbatim from the "layout" property. The device never checks
 * WDDM rules: tests present invalid tables on purpose, and the driver is
 * the one that must refuse them. Only a syntactically malformed layout
 * string fails realize.
 *
 * Register decoding is split by BAR0 range (adapter block, interrupts,
 * copy-engine ring, display controller, segment table), each with its own
 * handler. Inside the adapter block, the
 * read-only identity registers and the read/write control registers
 * (window, aperture page tables, PEEK, STATUS) have their own functions.
 * Every register access is O(1): the PEEK lookup walks at most
 * WDDMSEG_SEG_MAX descriptors, and the doorbell only schedules work.
 * Interrupts: INTx pin A, or MSI-X vector 0 (BAR1).
 *
 * GPU address space: VRAM is linear from GPU address 0 (the VRAM offset of
 * a memory segment's byte is its GPU address); an Aperture segment maps
 * GPU page (address - BaseAddress) / 4 KiB through its page table to a
 * DMA address. Agp segments have no GPU view in this model.
 *
 * The model is split by concept, as hw/nvme and hw/display/ati are: this
 * file has the QOM type, realize/exit/reset, VMState, the BAR0 dispatch,
 * interrupts, the VRAM window, the aperture page tables and PEEK;
 * wddmseg-layout.c parses the layout property, wddmseg-engine.c is the
 * copy engine, wddmseg-display.c the display controller, wddmseg-mmu.c
 * the GPU MMU with its hardware contexts, and
 * wddmseg-internal.h the state they share.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/guest-random.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "system/runstate.h"
#include "ui/console.h"

#include "wddmseg-internal.h"
#include "trace.h"

/* Engines (WDDM nodes) the device implements. */
#define WDDMSEG_NUM_ENGINES     1

/* Smallest BAR2, whatever vis-size says. */
#define WDDMSEG_VRAM_BAR_MIN    (4 * KiB)

/*
 * Aperture page table entries the device holds at most, all aperture
 * segments together: 16 Mi entries map 64 GiB and take 128 MiB of host
 * memory. See wddmseg_apt_init() for layouts that need more.
 */
#define WDDMSEG_APT_MAX_ENTRIES (16 * 1024 * 1024)

/* The words of s->cmd that VMState version 3 and 4 streams carry. */
#define WDDMSEG_CMD_V4_QWORDS   WDDMSEG_TRANSFER_QWORDS

/* Default of x-batch-bytes. */
#define WDDMSEG_DEFAULT_BATCH_BYTES (16 * MiB)

/*
 * Default and limit of x-engine-poll-us: the longest the engine's thread
 * looks for new work before it sleeps (wddmseg_engine_poll_adapt()).
 */
#define WDDMSEG_DEFAULT_ENGINE_POLL_US 100
#define WDDMSEG_MAX_ENGINE_POLL_US     10000

/* Defaults of the size properties (see the rst). */
#define WDDMSEG_DEFAULT_VIS_SIZE            (64 * MiB)
#define WDDMSEG_DEFAULT_INVIS_SIZE          (64 * MiB)
#define WDDMSEG_DEFAULT_APERTURE_SIZE       (256 * MiB)
#define WDDMSEG_DEFAULT_APERTURE_COMMIT     (128 * MiB)

/* Display controller: default and largest max-width / max-height. */
#define WDDMSEG_DEFAULT_MAX_WIDTH           1920
#define WDDMSEG_DEFAULT_MAX_HEIGHT          1200
#define WDDMSEG_SCANOUT_LIMIT               16384

/* ------------------------------------------------------------------------ */
/* BAR0 registers                                                           */
/* ------------------------------------------------------------------------ */

/* CpuTranslatedAddress: BAR2's current bus address plus the offset. */
static uint64_t wddmseg_seg_cpu_addr(WddmsegState *s,
                                     const WddmsegSegment *seg)
{
    pcibus_t bar;

    if (!seg->has_cpu) {
        return 0;
    }
    bar = pci_get_bar_addr(PCI_DEVICE(s), WDDMSEG_BAR_VRAM);
    if (bar == PCI_BAR_UNMAPPED) {
        return seg->cpu_offset;
    }
    return bar + seg->cpu_offset;
}

/* Adapter block, 0 .. WDDMSEG_SEG_TABLE. */
static bool wddmseg_adapter_read(WddmsegState *s, hwaddr addr, uint32_t *val)
{
    switch (addr) {
    case WDDMSEG_REG_ID:
        *val = WDDMSEG_ID_VALUE;
        return true;
    case WDDMSEG_REG_VERSION:
        *val = WDDMSEG_VERSION_CURRENT;
        return true;
    case WDDMSEG_REG_VIDMM_CAPS:
        *val = s->layout.caps;
        return true;
    case WDDMSEG_REG_PAGING_NODE:
        *val = s->layout.paging_node;
        return true;
    case WDDMSEG_REG_NUM_ENGINES:
        *val = WDDMSEG_NUM_ENGINES;
        return true;
    case WDDMSEG_REG_SEG_COUNT:
        *val = s->layout.seg_count;
        return true;
    case WDDMSEG_REG_VRAM_SIZE_LO:
    case WDDMSEG_REG_VRAM_SIZE_HI:
        *val = wddmseg_lo_hi(s->vram_size, addr, WDDMSEG_REG_VRAM_SIZE_LO);
        return true;
    case WDDMSEG_REG_PM_HIB:
        *val = s->pm_hib;
        return true;
    case WDDMSEG_REG_PM_HIB_PARTIAL_LO:
    case WDDMSEG_REG_PM_HIB_PARTIAL_HI:
        *val = wddmseg_lo_hi(s->vram_file ? s->hib_partial : 0, addr,
                             WDDMSEG_REG_PM_HIB_PARTIAL_LO);
        return true;
    }
    return false;
}

/* Segment table, WDDMSEG_SEG_TABLE .. + WDDMSEG_SEG_MAX slots. */
static bool wddmseg_segment_read(WddmsegState *s, hwaddr addr, uint32_t *val)
{
    hwaddr off = addr - WDDMSEG_SEG_TABLE;
    unsigned int i = off / WDDMSEG_SEG_STRIDE;
    hwaddr reg = off % WDDMSEG_SEG_STRIDE;
    /* Slots past SEG_COUNT are all zero. */
    static const WddmsegSegment empty;
    const WddmsegSegment *seg =
        i < s->layout.seg_count ? &s->layout.segs[i] : &empty;

    switch (reg) {
    case WDDMSEG_SEG_BASE_LO:
    case WDDMSEG_SEG_BASE_HI:
        *val = wddmseg_lo_hi(seg->base, reg, WDDMSEG_SEG_BASE_LO);
        return true;
    case WDDMSEG_SEG_CPU_LO:
    case WDDMSEG_SEG_CPU_HI:
        *val = wddmseg_lo_hi(wddmseg_seg_cpu_addr(s, seg), reg,
                             WDDMSEG_SEG_CPU_LO);
        return true;
    case WDDMSEG_SEG_SIZE_LO:
    case WDDMSEG_SEG_SIZE_HI:
        *val = wddmseg_lo_hi(seg->size, reg, WDDMSEG_SEG_SIZE_LO);
        return true;
    case WDDMSEG_SEG_COMMIT_LO:
    case WDDMSEG_SEG_COMMIT_HI:
        *val = wddmseg_lo_hi(seg->commit, reg, WDDMSEG_SEG_COMMIT_LO);
        return true;
    case WDDMSEG_SEG_FLAGS:
        *val = seg->flags;
        return true;
    case WDDMSEG_SEG_NB_BANKS:
        *val = seg->nb_banks;
        return true;
    }
    if (reg >= WDDMSEG_SEG_BANK_LO(0) &&
        reg < WDDMSEG_SEG_BANK_LO(WDDMSEG_SEG_BANK_MAX)) {
        unsigned int j = (reg - WDDMSEG_SEG_BANK_LO(0)) /
                         (WDDMSEG_SEG_BANK_LO(1) - WDDMSEG_SEG_BANK_LO(0));

        *val = wddmseg_lo_hi(seg->banks[j], reg, WDDMSEG_SEG_BANK_LO(j));
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------------ */
/* VRAM window (BAR4)                                                       */
/* ------------------------------------------------------------------------ */

/*
 * A base the window may move to: a multiple of the window size with the
 * whole window inside the reported VRAM (vram-size, not the possibly
 * larger RAM behind BAR2). With less than WDDMSEG_WINDOW_SIZE of VRAM no
 * base is valid and the window stays at its reset base 0, whose tail is
 * RAM past vram-size (the backing is always at least the window size).
 */
static bool wddmseg_window_valid(WddmsegState *s, uint64_t base)
{
    return !(base % WDDMSEG_WINDOW_SIZE) &&
           s->vram_size >= WDDMSEG_WINDOW_SIZE &&
           base <= s->vram_size - WDDMSEG_WINDOW_SIZE;
}

/* Point BAR4 at window_base. */
static void wddmseg_window_apply(WddmsegState *s)
{
    trace_wddmseg_window(s->window_base);
    memory_region_transaction_begin();
    memory_region_set_alias_offset(&s->window_bar, s->window_base);
    memory_region_transaction_commit();
}

static void wddmseg_window_write(WddmsegState *s, uint64_t base)
{
    if (!wddmseg_window_valid(s, base)) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: window base 0x%" PRIx64 " is "
                      "not a multiple of 0x%x inside VRAM (0x%" PRIx64
                      " bytes); the window stays at 0x%" PRIx64 "\n",
                      __func__, base, WDDMSEG_WINDOW_SIZE, s->vram_size,
                      s->window_base);
        return;
    }
    s->window_base = base;
    wddmseg_window_apply(s);
}

/* ------------------------------------------------------------------------ */
/* Aperture page tables                                                     */
/* ------------------------------------------------------------------------ */

/*
 * Size the tables at realize: every segment whose flags have Aperture gets
 * one entry per 4 KiB page of its Size (rounded up: a Size that is not a
 * page multiple, which the driver refuses, still has a last partial page).
 * Agp segments get none.
 *
 * Tables whose apertures need more than WDDMSEG_APT_MAX_ENTRIES entries
 * together are not allocated at all, but the device still realizes: tests
 * present such tables only to see the driver refuse them. The device then
 * has no aperture page table: every APT_ADDR_HI write sets APT_ERROR and
 * every PEEK into an aperture faults. A warning says so at realize.
 */
static bool wddmseg_apt_init(WddmsegState *s, Error **errp)
{
    uint64_t total = 0;
    uint64_t pages;
    unsigned int i;

    for (i = 0; i < s->layout.seg_count; i++) {
        const WddmsegSegment *seg = &s->layout.segs[i];

        if (!(seg->flags & DXGK_SEGFLAG_APERTURE)) {
            continue;
        }
        pages = seg->size / WDDMSEG_PAGE_SIZE +
                !!(seg->size % WDDMSEG_PAGE_SIZE);
        if (pages > WDDMSEG_APT_MAX_ENTRIES - total) {
            warn_report("wddmseg: the aperture segments need more than %u "
                        "page table entries (segment %u: 0x%" PRIx64
                        " bytes); the device has no aperture page table",
                        WDDMSEG_APT_MAX_ENTRIES, i + 1, seg->size);
            memset(s->apt_first, 0, sizeof(s->apt_first));
            memset(s->apt_pages, 0, sizeof(s->apt_pages));
            s->apt_total = 0;
            return true;
        }
        s->apt_first[i] = total;
        s->apt_pages[i] = pages;
        total += pages;
    }

    s->apt_total = total;
    if (total) {
        s->apt = g_try_new0(uint64_t, total);
        s->apt_copy = g_try_new0(uint8_t *, total);
        if (!s->apt || !s->apt_copy) {
            error_setg(errp, "cannot allocate the aperture page tables "
                       "(%" PRIu64 " entries)", total);
            g_free(s->apt);
            g_free(s->apt_copy);
            s->apt = NULL;
            s->apt_copy = NULL;
            return false;
        }
    }
    return true;
}

/* The entry APT_SEGMENT and APT_PAGE select, NULL if there is none. */
static uint64_t *wddmseg_apt_selected(WddmsegState *s)
{
    unsigned int i;

    if (s->apt_segment == 0 || s->apt_segment > s->layout.seg_count) {
        return NULL;
    }
    i = s->apt_segment - 1;
    if (!(s->layout.segs[i].flags & DXGK_SEGFLAG_APERTURE) ||
        s->apt_page >= s->apt_pages[i]) {
        return NULL;
    }
    return &s->apt[s->apt_first[i] + s->apt_page];
}

static void wddmseg_apt_write(WddmsegState *s, uint64_t entry)
{
    uint64_t *slot = wddmseg_apt_selected(s);

    if (!slot) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: no page table entry for segment "
                      "%u page %u; write of 0x%" PRIx64 " dropped\n",
                      __func__, s->apt_segment, s->apt_page, entry);
        s->status |= WDDMSEG_STATUS_APT_ERROR;
        return;
    }
    if (entry % WDDMSEG_PAGE_SIZE) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: segment %u page %u: address "
                      "0x%" PRIx64 " is not page aligned; write dropped\n",
                      __func__, s->apt_segment, s->apt_page, entry);
        s->status |= WDDMSEG_STATUS_APT_ERROR;
        return;
    }
    trace_wddmseg_apt_write(s->apt_segment, s->apt_page, entry);
    *slot = entry;
    /* The CPU's own entries are snooped (hw.h, non-coherent apertures). */
    wddmseg_apt_drop_copy(s, slot - s->apt);
}

/* ------------------------------------------------------------------------ */
/* GPU-view read port (PEEK)                                                */
/* ------------------------------------------------------------------------ */

static uint32_t wddmseg_peek_fault(WddmsegState *s, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "%s: GPU address 0x%" PRIx64 ": %s\n",
                  __func__, s->peek_addr, why);
    s->status |= WDDMSEG_STATUS_PEEK_FAULT;
    return UINT32_MAX;
}

/*
 * The word the GPU sees at peek_addr, resolved as the copy engine resolves
 * a GPU address: VRAM directly, an aperture page over DMA.
 */
static uint32_t wddmseg_peek(WddmsegState *s)
{
    const char *why = NULL;
    WddmsegLoc loc;
    WddmsegSpan sp;
    uint32_t word;

    if (s->peek_addr % sizeof(word)) {
        return wddmseg_peek_fault(s, "not 4-byte aligned");
    }
    if (wddmseg_gpu_loc(s, s->peek_addr, sizeof(word), &loc, &why) ||
        wddmseg_span(s, &loc, 0, sizeof(word), &sp, &why)) {
        return wddmseg_peek_fault(s, why);
    }
    if (sp.vram) {
        return ldl_le_p(s->vram_ptr + sp.addr);
    }
    if (sp.copy) {
        return ldl_le_p(sp.copy);
    }
    if (pci_dma_read(PCI_DEVICE(s), sp.addr, &word, sizeof(word)) !=
        MEMTX_OK) {
        return wddmseg_peek_fault(s, "DMA read failed");
    }
    return le32_to_cpu(word);
}

/* ------------------------------------------------------------------------ */
/* Control registers (window, aperture tables, PEEK, STATUS)               */
/* ------------------------------------------------------------------------ */

static bool wddmseg_ctrl_read(WddmsegState *s, hwaddr addr, uint32_t *val)
{
    uint64_t *slot;

    switch (addr) {
    case WDDMSEG_REG_WINDOW_BASE_LO:
    case WDDMSEG_REG_WINDOW_BASE_HI:
        *val = wddmseg_lo_hi(s->window_base, addr,
                             WDDMSEG_REG_WINDOW_BASE_LO);
        return true;
    case WDDMSEG_REG_APT_SEGMENT:
        *val = s->apt_segment;
        return true;
    case WDDMSEG_REG_APT_PAGE:
        *val = s->apt_page;
        return true;
    case WDDMSEG_REG_APT_ADDR_LO:
    case WDDMSEG_REG_APT_ADDR_HI:
        slot = wddmseg_apt_selected(s);
        *val = wddmseg_lo_hi(slot ? *slot : 0, addr, WDDMSEG_REG_APT_ADDR_LO);
        return true;
    case WDDMSEG_REG_PEEK_ADDR_LO:
    case WDDMSEG_REG_PEEK_ADDR_HI:
        *val = wddmseg_lo_hi(s->peek_addr, addr, WDDMSEG_REG_PEEK_ADDR_LO);
        return true;
    case WDDMSEG_REG_PEEK_DATA:
        *val = wddmseg_peek(s);
        return true;
    case WDDMSEG_REG_STATUS:
        *val = s->status;
        return true;
    }
    return false;
}

/* False for registers that are not writable. */
static bool wddmseg_ctrl_write(WddmsegState *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case WDDMSEG_REG_WINDOW_BASE_LO:
        s->window_lo = val;
        return true;
    case WDDMSEG_REG_WINDOW_BASE_HI:
        wddmseg_window_write(s, (uint64_t)val << 32 | s->window_lo);
        return true;
    case WDDMSEG_REG_APT_SEGMENT:
        s->apt_segment = val;
        return true;
    case WDDMSEG_REG_APT_PAGE:
        s->apt_page = val;
        return true;
    case WDDMSEG_REG_APT_ADDR_LO:
        s->apt_addr_lo = val;
        return true;
    case WDDMSEG_REG_APT_ADDR_HI:
        wddmseg_apt_write(s, (uint64_t)val << 32 | s->apt_addr_lo);
        return true;
    case WDDMSEG_REG_PEEK_ADDR_LO:
        s->peek_addr = deposit64(s->peek_addr, 0, 32, val);
        return true;
    case WDDMSEG_REG_PEEK_ADDR_HI:
        s->peek_addr = deposit64(s->peek_addr, 32, 32, val);
        return true;
    case WDDMSEG_REG_STATUS:
        s->status &= ~val;
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------------ */
/* Interrupts                                                               */
/* ------------------------------------------------------------------------ */

#define WDDMSEG_IRQ_ALL ((uint32_t)(WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR | \
                                 WDDMSEG_IRQ_VBLANK | \
                                 WDDMSEG_IRQ_SCANOUT_ERROR | \
                                 WDDMSEG_IRQ_MMU_FAULT | \
                                 WDDMSEG_IRQ_CTX_FENCE))

/* INTx follows IRQ_STATUS & IRQ_MASK while MSI-X is off. */
static void wddmseg_irq_update(WddmsegState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    int level = !msix_enabled(pdev) && (s->irq_status & s->irq_mask);

    trace_wddmseg_irq_level(level);
    pci_set_irq(pdev, level);
}

/*
 * Events: set their IRQ_STATUS bits; with MSI-X, every event whose bit is
 * in IRQ_MASK sends vector 0, whether or not the bit was already set.
 */
void wddmseg_irq_raise(WddmsegState *s, uint32_t bits)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool msg = msix_enabled(pdev) && (bits & s->irq_mask);

    s->irq_status |= bits;
    trace_wddmseg_irq_raise(bits, s->irq_status, s->irq_mask, msg);
    if (msg) {
        msix_notify(pdev, 0);
    }
    wddmseg_irq_update(s);
}

/* Unmasking a pending bit sends an MSI-X message too. */
static void wddmseg_irq_set_mask(WddmsegState *s, uint32_t mask)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint32_t unmasked = s->irq_status & mask & ~s->irq_mask;

    if (mask & ~WDDMSEG_IRQ_ALL) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: unknown IRQ_MASK bits 0x%x "
                      "ignored\n", __func__, mask & ~WDDMSEG_IRQ_ALL);
    }
    s->irq_mask = mask & WDDMSEG_IRQ_ALL;
    if (msix_enabled(pdev) && unmasked) {
        msix_notify(pdev, 0);
    }
    wddmseg_irq_update(s);
}

static bool wddmseg_irq_read(WddmsegState *s, hwaddr addr, uint32_t *val)
{
    switch (addr) {
    case WDDMSEG_REG_IRQ_STATUS:
        *val = s->irq_status;
        return true;
    case WDDMSEG_REG_IRQ_MASK:
        *val = s->irq_mask;
        return true;
    }
    return false;
}

static bool wddmseg_irq_write(WddmsegState *s, hwaddr addr, uint32_t val)
{
    switch (addr) {
    case WDDMSEG_REG_IRQ_STATUS:
        s->irq_status &= ~val;
        wddmseg_irq_update(s);
        return true;
    case WDDMSEG_REG_IRQ_MASK:
        wddmseg_irq_set_mask(s, val);
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------------ */
/* BAR0 dispatch                                                            */
/* ------------------------------------------------------------------------ */

#define WDDMSEG_REG_NAME(reg) [WDDMSEG_REG_##reg / 4] = #reg

/* Register names, by offset / 4, for the MMIO trace. */
static const char *const wddmseg_reg_names[] = {
    WDDMSEG_REG_NAME(ID),
    WDDMSEG_REG_NAME(VERSION),
    WDDMSEG_REG_NAME(VIDMM_CAPS),
    WDDMSEG_REG_NAME(PAGING_NODE),
    WDDMSEG_REG_NAME(NUM_ENGINES),
    WDDMSEG_REG_NAME(SEG_COUNT),
    WDDMSEG_REG_NAME(VRAM_SIZE_LO),
    WDDMSEG_REG_NAME(VRAM_SIZE_HI),
    WDDMSEG_REG_NAME(WINDOW_BASE_LO),
    WDDMSEG_REG_NAME(WINDOW_BASE_HI),
    WDDMSEG_REG_NAME(APT_SEGMENT),
    WDDMSEG_REG_NAME(APT_PAGE),
    WDDMSEG_REG_NAME(APT_ADDR_LO),
    WDDMSEG_REG_NAME(APT_ADDR_HI),
    WDDMSEG_REG_NAME(PEEK_ADDR_LO),
    WDDMSEG_REG_NAME(PEEK_ADDR_HI),
    WDDMSEG_REG_NAME(PEEK_DATA),
    WDDMSEG_REG_NAME(STATUS),
    WDDMSEG_REG_NAME(PM_HIB),
    WDDMSEG_REG_NAME(PM_HIB_PARTIAL_LO),
    WDDMSEG_REG_NAME(PM_HIB_PARTIAL_HI),
    WDDMSEG_REG_NAME(IRQ_STATUS),
    WDDMSEG_REG_NAME(IRQ_MASK),
    WDDMSEG_REG_NAME(RING_BASE_LO),
    WDDMSEG_REG_NAME(RING_BASE_HI),
    WDDMSEG_REG_NAME(RING_SIZE),
    WDDMSEG_REG_NAME(RING_HEAD),
    WDDMSEG_REG_NAME(RING_TAIL),
    WDDMSEG_REG_NAME(RING_CTRL),
    WDDMSEG_REG_NAME(RING_STATUS),
    WDDMSEG_REG_NAME(FAULT_CODE),
    WDDMSEG_REG_NAME(FAULT_HEAD),
    WDDMSEG_REG_NAME(LAST_SEQNO_LO),
    WDDMSEG_REG_NAME(LAST_SEQNO_HI),
    WDDMSEG_REG_NAME(INJECT),
    WDDMSEG_REG_NAME(SCANOUT_MAX_WIDTH),
    WDDMSEG_REG_NAME(SCANOUT_MAX_HEIGHT),
    WDDMSEG_REG_NAME(SCANOUT_FORMATS),
    WDDMSEG_REG_NAME(SCANOUT_CTRL),
    WDDMSEG_REG_NAME(SCANOUT_SEGMENT),
    WDDMSEG_REG_NAME(SCANOUT_OFFSET_LO),
    WDDMSEG_REG_NAME(SCANOUT_OFFSET_HI),
    WDDMSEG_REG_NAME(SCANOUT_WIDTH),
    WDDMSEG_REG_NAME(SCANOUT_HEIGHT),
    WDDMSEG_REG_NAME(SCANOUT_PITCH),
    WDDMSEG_REG_NAME(SCANOUT_FORMAT),
    WDDMSEG_REG_NAME(SCANOUT_REFRESH_MHZ),
    WDDMSEG_REG_NAME(SCANOUT_COMMIT),
    WDDMSEG_REG_NAME(SCANOUT_STATUS),
    WDDMSEG_REG_NAME(SCANOUT_ERROR),
    WDDMSEG_REG_NAME(SCANOUT_ACTIVE_SEGMENT),
    WDDMSEG_REG_NAME(SCANOUT_ACTIVE_OFFSET_LO),
    WDDMSEG_REG_NAME(SCANOUT_ACTIVE_OFFSET_HI),
    WDDMSEG_REG_NAME(VBLANK_COUNT),
    WDDMSEG_REG_NAME(VBLANK_AGE_NS),
    WDDMSEG_REG_NAME(SCANOUT_FEATURES),
    WDDMSEG_REG_NAME(CURSOR_MAX),
    WDDMSEG_REG_NAME(CURSOR_CTRL),
    WDDMSEG_REG_NAME(CURSOR_SEGMENT),
    WDDMSEG_REG_NAME(CURSOR_OFFSET_LO),
    WDDMSEG_REG_NAME(CURSOR_OFFSET_HI),
    WDDMSEG_REG_NAME(CURSOR_SIZE),
    WDDMSEG_REG_NAME(CURSOR_PITCH),
    WDDMSEG_REG_NAME(CURSOR_X),
    WDDMSEG_REG_NAME(CURSOR_Y),
    WDDMSEG_REG_NAME(GAMMA_CTRL),
    WDDMSEG_REG_NAME(GAMMA_INDEX),
    WDDMSEG_REG_NAME(GAMMA_DATA),
    WDDMSEG_REG_NAME(CRC_CTRL),
    WDDMSEG_REG_NAME(CRC_VALUE),
    WDDMSEG_REG_NAME(CRC_FRAME),
    WDDMSEG_REG_NAME(PLANE_X),
    WDDMSEG_REG_NAME(PLANE_Y),
    WDDMSEG_REG_NAME(PLANE_SIZE),
    WDDMSEG_REG_NAME(CURSOR_COMMIT),
};

static const char *wddmseg_reg_name(hwaddr addr)
{
    if (addr >= WDDMSEG_SEG_TABLE &&
        addr < WDDMSEG_SEG_REG(WDDMSEG_SEG_MAX, 0)) {
        return "SEG_TABLE";
    }
    if (addr >= WDDMSEG_REG_MMU_CAPS && addr < WDDMSEG_CTX_TABLE) {
        return "MMU";
    }
    if (addr >= WDDMSEG_CTX_TABLE &&
        addr < WDDMSEG_CTX_REG(WDDMSEG_CTX_MAX, 0)) {
        return "CTX";
    }
    if (addr == WDDMSEG_REG_FAULT_DETAIL) {
        return "FAULT_DETAIL";
    }
    if (addr % 4 == 0 && addr / 4 < ARRAY_SIZE(wddmseg_reg_names) &&
        wddmseg_reg_names[addr / 4]) {
        return wddmseg_reg_names[addr / 4];
    }
    return "unknown";
}

static void wddmseg_regs_reset(WddmsegState *s);
static void wddmseg_power_loss(Notifier *n, void *data);
static void wddmseg_d3hot_exit(WddmsegState *s);

/* PMCSR's PowerState field: 0 (D0) or 3 (D3hot). */
static unsigned int wddmseg_pm_state(WddmsegState *s)
{
    return pci_get_word(PCI_DEVICE(s)->config + s->pm_cap + PCI_PM_CTRL) &
           PCI_PM_CTRL_STATE_MASK;
}

/* In D3hot the device does not decode BAR0. */
static bool wddmseg_pm_d3(WddmsegState *s)
{
    return wddmseg_pm_state(s) == 3;
}

static uint64_t wddmseg_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    WddmsegState *s = opaque;
    uint32_t val = 0;
    bool known = false;

    if (wddmseg_pm_d3(s)) {
        trace_wddmseg_pm_d3_access(addr, 0);
        return UINT32_MAX;
    }
    if (addr < WDDMSEG_REG_IRQ_STATUS) {
        known = wddmseg_adapter_read(s, addr, &val) ||
                wddmseg_ctrl_read(s, addr, &val);
    } else if (addr < WDDMSEG_REG_RING_BASE_LO) {
        known = wddmseg_irq_read(s, addr, &val);
    } else if (addr < WDDMSEG_REG_SCANOUT_MAX_WIDTH) {
        known = wddmseg_ring_read(s, addr, &val);
    } else if (addr < WDDMSEG_SEG_TABLE) {
        known = wddmseg_scanout_read(s, addr, &val);
    } else if (addr < WDDMSEG_SEG_REG(WDDMSEG_SEG_MAX, 0)) {
        known = wddmseg_segment_read(s, addr, &val);
    } else if (addr >= WDDMSEG_REG_MMU_CAPS) {
        known = wddmseg_mmu_read(s, addr, &val);
    }
    if (!known) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: read of unknown register 0x%"
                      HWADDR_PRIx "\n", __func__, addr);
        val = 0;
    }
    trace_wddmseg_mmio_read(addr, wddmseg_reg_name(addr), val);
    return val;
}

static void wddmseg_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                               unsigned size)
{
    WddmsegState *s = opaque;
    uint32_t dummy;
    bool known = false;

    if (wddmseg_pm_d3(s)) {
        trace_wddmseg_pm_d3_access(addr, 1);
        return;
    }
    trace_wddmseg_mmio_write(addr, wddmseg_reg_name(addr), val);
    if (addr < WDDMSEG_REG_IRQ_STATUS) {
        if (wddmseg_ctrl_write(s, addr, val)) {
            return;
        }
        /* Read-only: identity registers and PEEK_DATA. */
        known = wddmseg_adapter_read(s, addr, &dummy) ||
                addr == WDDMSEG_REG_PEEK_DATA;
    } else if (addr < WDDMSEG_REG_RING_BASE_LO) {
        if (wddmseg_irq_write(s, addr, val)) {
            return;
        }
    } else if (addr < WDDMSEG_REG_SCANOUT_MAX_WIDTH) {
        if (wddmseg_ring_write(s, addr, val)) {
            return;
        }
        /* Read-only: RING_HEAD, RING_STATUS, FAULT_*, LAST_SEQNO_*. */
        known = wddmseg_ring_read(s, addr, &dummy);
    } else if (addr < WDDMSEG_SEG_TABLE) {
        if (wddmseg_scanout_write(s, addr, val)) {
            return;
        }
        /* Read-only: limits, STATUS, ERROR, ACTIVE_*, VBLANK_*. */
        known = wddmseg_scanout_read(s, addr, &dummy);
    } else if (addr < WDDMSEG_SEG_REG(WDDMSEG_SEG_MAX, 0)) {
        known = wddmseg_segment_read(s, addr, &dummy);
    } else if (addr >= WDDMSEG_REG_MMU_CAPS) {
        if (wddmseg_mmu_write(s, addr, val)) {
            return;
        }
        /* Read-only: the MMU geometry, faults, context status. */
        known = wddmseg_mmu_read(s, addr, &dummy);
    }
    qemu_log_mask(LOG_GUEST_ERROR, "%s: write of 0x%" PRIx64 " to %s "
                  "register 0x%" HWADDR_PRIx " ignored\n", __func__, val,
                  known ? "read-only" : "unknown", addr);
}

static const MemoryRegionOps wddmseg_mmio_ops = {
    .read = wddmseg_mmio_read,
    .write = wddmseg_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* ------------------------------------------------------------------------ */
/* Device                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * VRAM in a file (vram-file): it outlives this QEMU process, like VRAM
 * that a device keeps powered (or saves) across a hibernation. A file
 * that exists must have the size of the VRAM: then it holds the VRAM of
 * an earlier power cycle (PM_HIB.RETAINED). A new one is created.
 */
static bool wddmseg_vram_file_init(WddmsegState *s, Error **errp)
{
    ERRP_GUARD();
    bool retained = false;
    struct stat st;

    if (s->hib_partial % (64 * KiB)) {
        error_setg(errp, "hib-partial must be a multiple of 64 KiB");
        return false;
    }
    if (!stat(s->vram_file, &st)) {
        if (!S_ISREG(st.st_mode) || st.st_size != s->vram_alloc) {
            error_setg(errp, "vram-file %s is not a file of 0x%" PRIx64
                       " bytes (the VRAM); remove it to start afresh",
                       s->vram_file, s->vram_alloc);
            return false;
        }
        retained = true;
    }
    memory_region_init_ram_from_file(&s->vram, OBJECT(s), "wddmseg-vram",
                                     s->vram_alloc, 0, RAM_SHARED,
                                     s->vram_file, false, errp);
    if (*errp) {
        return false;
    }
    vmstate_register_ram(&s->vram, DEVICE(s));
    s->pm_hib = WDDMSEG_PM_HIB_PERSISTENT |
                (retained ? WDDMSEG_PM_HIB_RETAINED : 0);
    return true;
}

/*
 * Power-on with a vram-file: what the file holds is what survived the
 * power cycle for the segments whose flags preserve it across a
 * hibernation (all of a PreservedDuringHibernate segment, the first
 * hib-partial bytes of a PartiallyPreservedDuringHibernate one). Every
 * other byte of every memory segment lost its power: WDDMSEG_PM_POISON.
 */
static void wddmseg_power_on(WddmsegState *s)
{
    bool retained = s->pm_hib & WDDMSEG_PM_HIB_RETAINED;
    uint64_t start, len, keep, off;
    unsigned int i;

    for (i = 0; i < s->layout.seg_count; i++) {
        const WddmsegSegment *seg = &s->layout.segs[i];

        if (seg->flags & (DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_AGP) ||
            seg->base >= s->vram_size) {
            continue;
        }
        start = seg->base;
        len = MIN(seg->size, s->vram_size - start);
        keep = 0;
        if (retained &&
            (seg->flags & DXGK_SEGFLAG_PRESERVED_DURING_HIBERNATE)) {
            keep = len;
        } else if (retained && (seg->flags &
                   DXGK_SEGFLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE)) {
            keep = MIN(s->hib_partial, len);
        }
        trace_wddmseg_pm_power_on(i + 1, keep, start, len);
        for (off = keep; off + 4 <= len; off += 4) {
            stl_le_p(s->vram_ptr + start + off, WDDMSEG_PM_POISON);
        }
    }
}

static void wddmseg_realize(PCIDevice *pdev, Error **errp)
{
    ERRP_GUARD();
    WddmsegState *s = WDDMSEG(pdev);
    int ret;

    if (s->batch_bytes < WDDMSEG_PAGE_SIZE || s->batch_bytes > GiB) {
        error_setg(errp, "x-batch-bytes must be in [4 KiB, 1 GiB]");
        return;
    }
    if (s->engine_poll_us > WDDMSEG_MAX_ENGINE_POLL_US) {
        error_setg(errp, "x-engine-poll-us must be at most %u",
                   WDDMSEG_MAX_ENGINE_POLL_US);
        return;
    }
    if (!s->max_width || s->max_width > WDDMSEG_SCANOUT_LIMIT ||
        !s->max_height || s->max_height > WDDMSEG_SCANOUT_LIMIT) {
        error_setg(errp, "max-width and max-height must be in [1, %u]",
                   WDDMSEG_SCANOUT_LIMIT);
        return;
    }
    if (s->layout_str) {
        if (!wddmseg_parse_layout(s->layout_str, &s->layout, errp)) {
            return;
        }
    } else {
        wddmseg_default_layout(s, &s->layout);
    }
    if (!wddmseg_mmu_realize(s, errp)) {
        return;
    }

    /* vram-size 0 (the default) means vis-size + invis-size. */
    s->vram_size = s->vram_size_prop;
    if (!s->vram_size) {
        if (s->vis_size > UINT64_MAX - s->invis_size) {
            error_setg(errp, "vis-size + invis-size overflows");
            return;
        }
        s->vram_size = s->vis_size + s->invis_size;
    }
    s->bar_size = pow2ceil(MAX(s->vis_size, WDDMSEG_VRAM_BAR_MIN));
    if (!s->bar_size) {
        error_setg(errp, "vis-size 0x%" PRIx64 " is too large for "
                   "a BAR", s->vis_size);
        return;
    }
    /* Neither BAR2 nor BAR4 ever reaches past the RAM behind them. */
    s->vram_alloc = MAX(MAX(s->vram_size, s->bar_size), WDDMSEG_WINDOW_SIZE);

    s->pm_hib = 0;
    if (s->vram_file) {
        if (!wddmseg_vram_file_init(s, errp)) {
            return;
        }
    } else {
        memory_region_init_ram(&s->vram, OBJECT(s), "wddmseg-vram",
                               s->vram_alloc, errp);
        if (*errp) {
            return;
        }
    }
    s->vram_ptr = memory_region_get_ram_ptr(&s->vram);
    if (s->vram_file) {
        wddmseg_power_on(s);
    }

    memory_region_init_io(&s->mmio, OBJECT(s), &wddmseg_mmio_ops, s,
                          "wddmseg-mmio", WDDMSEG_MMIO_SIZE);
    pci_register_bar(pdev, WDDMSEG_BAR_MMIO, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);

    memory_region_init_alias(&s->vram_bar, OBJECT(s), "wddmseg-vram-bar",
                             &s->vram, 0, s->bar_size);
    pci_register_bar(pdev, WDDMSEG_BAR_VRAM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH,
                     &s->vram_bar);

    /*
     * BAR4 is 32-bit and non-prefetchable: what it shows changes when
     * WINDOW_BASE moves, so reads may not be prefetched nor writes held
     * across that register write (a driver mapping it write-combined must
     * flush before moving the window). It also leaves BAR5 free.
     */
    memory_region_init_alias(&s->window_bar, OBJECT(s), "wddmseg-window",
                             &s->vram, 0, WDDMSEG_WINDOW_SIZE);
    pci_register_bar(pdev, WDDMSEG_BAR_WINDOW, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->window_bar);

    /* Nothing above needs undoing if this fails. */
    if (!wddmseg_apt_init(s, errp)) {
        return;
    }

    /* Interrupts: pin A, and one MSI-X vector with its own BAR1. */
    pci_config_set_interrupt_pin(pdev->config, 1);
    if (msix_init_exclusive_bar(pdev, WDDMSEG_MSIX_VECTORS, WDDMSEG_MSIX_BAR,
                                errp)) {
        g_free(s->apt);
        g_free(s->apt_copy);
        s->apt = NULL;
        s->apt_copy = NULL;
        return;
    }
    msix_vector_use(pdev, 0);

    /* Power management: D0 and D3hot, a soft reset on the way back. */
    ret = pci_add_capability(pdev, PCI_CAP_ID_PM, 0, PCI_PM_SIZEOF, errp);
    if (ret < 0) {
        msix_uninit_exclusive_bar(pdev);
        g_free(s->apt);
        g_free(s->apt_copy);
        s->apt = NULL;
        s->apt_copy = NULL;
        return;
    }
    s->pm_cap = ret;
    pci_set_word(pdev->config + s->pm_cap + PCI_PM_PMC, PCI_PM_CAP_VER_1_1);
    pci_set_word(pdev->wmask + s->pm_cap + PCI_PM_CTRL,
                 PCI_PM_CTRL_STATE_MASK);
    s->suspend_notifier.notify = wddmseg_power_loss;
    qemu_register_suspend_notifier(&s->suspend_notifier);

    /* The TRANSFER_ENCRYPTED key, for the life of the device. */
    qemu_guest_getrandom_nofail(s->key, sizeof(s->key));

    s->bounce = g_malloc(WDDMSEG_BOUNCE_SIZE + 8);
    qemu_cond_init(&s->copy_cond);
    qemu_event_init(&s->engine_event, false);
    s->engine_poll_ns = (int64_t)s->engine_poll_us * SCALE_US;
    qemu_thread_create(&s->engine_thread, "wddmseg-engine",
                       wddmseg_engine_thread, s, QEMU_THREAD_JOINABLE);
    s->vmstate_change = qemu_add_vm_change_state_handler(
        wddmseg_vm_state_change, s);

    /* Display controller: disabled, the console black until enabled. */
    s->vblank_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, wddmseg_vblank, s);
    s->con = graphic_console_init(DEVICE(pdev), 0, &wddmseg_gfx_ops, s);
    trace_wddmseg_realize(s->vram_size, s->bar_size, s->layout.seg_count,
                          s->apt_total);
}

/*
 * MSI-X enable and INTx disable change where the interrupt goes. PMCSR
 * writes change the power state: D1 and D2 are not supported (the write
 * leaves the state as it was), D3hot -> D0 is a soft reset.
 */
static void wddmseg_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val,
                                 int len)
{
    WddmsegState *s = WDDMSEG(pdev);
    uint8_t *pmcsr = pdev->config + s->pm_cap + PCI_PM_CTRL;
    unsigned int old = wddmseg_pm_state(s), new;

    pci_default_write_config(pdev, addr, val, len);
    new = wddmseg_pm_state(s);
    if (new != old) {
        if (new == 1 || new == 2) {
            pci_set_word(pmcsr, (pci_get_word(pmcsr) &
                                 ~PCI_PM_CTRL_STATE_MASK) | old);
            qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: D%u is not supported, "
                          "staying in D%u\n", new, old);
        } else {
            trace_wddmseg_pm_state(old, new);
            if (new == 0 && old == 3) {
                wddmseg_d3hot_exit(s);
            } else if (new == 0) {
                wddmseg_regs_reset(s);
            }
        }
    }
    wddmseg_irq_update(s);
}

static void wddmseg_exit(PCIDevice *pdev)
{
    WddmsegState *s = WDDMSEG(pdev);

    /* First: a batch may still be running (it ends before the thread). */
    wddmseg_engine_stop(s);
    notifier_remove(&s->suspend_notifier);
    graphic_console_close(s->con);
    g_free(s->shadow);
    s->shadow = NULL;
    timer_free(s->vblank_timer);
    qemu_del_vm_change_state_handler(s->vmstate_change);
    qemu_event_destroy(&s->engine_event);
    qemu_cond_destroy(&s->copy_cond);
    g_free(s->bounce);
    s->bounce = NULL;
    msix_uninit_exclusive_bar(pdev);
    wddmseg_apt_drop_copies(s);
    g_free(s->apt);
    g_free(s->apt_copy);
    s->apt = NULL;
    s->apt_copy = NULL;
}

/*
 * Every register back to its reset value: a device reset, the soft reset
 * of D3hot -> D0, and the power loss of S3 (before the reset of the
 * wake-up) share it. VRAM is not a register: wddmseg_power_loss() decides
 * what of it survives.
 */
static void wddmseg_regs_reset(WddmsegState *s)
{
    /* Every aperture page unmapped, the window back at the start. */
    if (s->apt) {
        memset(s->apt, 0, s->apt_total * sizeof(*s->apt));
    }
    wddmseg_apt_drop_copies(s);
    s->window_base = 0;
    s->window_lo = 0;
    s->apt_segment = 0;
    s->apt_page = 0;
    s->apt_addr_lo = 0;
    s->peek_addr = 0;
    s->status = 0;
    wddmseg_window_apply(s);

    /* The engine stopped and unconfigured, no interrupt. */
    wddmseg_engine_reset(s);
    s->ring_base = 0;
    s->ring_size = 0;
    s->last_seqno = 0;
    s->irq_status = 0;
    s->irq_mask = 0;
    wddmseg_irq_update(s);
    wddmseg_scanout_reset(s);
    msix_unuse_all_vectors(PCI_DEVICE(s));
    msix_vector_use(PCI_DEVICE(s), 0);

    /* No context bound or running, every TLB empty, no MMU fault. */
    wddmseg_mmu_reset(s);

    /*
     * The TRANSFER_ENCRYPTED key stays: pages a driver encrypted out of a
     * protected segment before a reset (S3, a system reset) must still
     * decrypt after it.
     */
}

/*
 * Resettable hold phase, where a device may drive its outputs (the
 * interrupt is lowered here): every kind of reset (cold, the wake-up from
 * S3, a snapshot load) brings the registers back. The enter and exit
 * phases have nothing of their own to do.
 */
static void wddmseg_reset_hold(Object *obj, ResetType type)
{
    WddmsegState *s = WDDMSEG(obj);
    PCIDevice *pdev = PCI_DEVICE(obj);

    trace_wddmseg_reset(type);
    /* D0 (the PCI core does not know our capability). */
    pci_word_test_and_clear_mask(pdev->config + s->pm_cap + PCI_PM_CTRL,
                                 PCI_PM_CTRL_STATE_MASK);
    wddmseg_regs_reset(s);
}

/*
 * Does memory segment seg keep its bytes while the system sleeps (S3)?
 * The adapter caps decide for every segment when they say anything:
 * DisableSelfRefreshVRAMInS3 turns the VRAM off, AlwaysPoweredVRAM keeps it
 * powered; otherwise the segment's PreservedDuringStandby does.
 */
static bool wddmseg_pm_preserved_s3(WddmsegState *s, const WddmsegSegment *seg)
{
    if (s->layout.caps & DXGK_VIDMMCAP_DISABLE_SELF_REFRESH_VRAM_IN_S3) {
        return false;
    }
    if (s->layout.caps & DXGK_VIDMMCAP_ALWAYS_POWERED_VRAM) {
        return true;
    }
    return seg->flags & DXGK_SEGFLAG_PRESERVED_DURING_STANDBY;
}

/*
 * The VRAM lost its power (S3, or a stay in D3hot): every register resets,
 * and the VRAM of each memory segment that is not preserved becomes
 * WDDMSEG_PM_POISON, so that a driver that forgot to save something reads
 * a pattern it cannot mistake for its data (zeroes could be). Work in
 * flight stops first. Returns the bytes poisoned.
 */
static uint64_t wddmseg_vram_power_loss(WddmsegState *s)
{
    uint64_t lost = 0, start, len, off;
    unsigned int i;

    while (s->copy_unlocked) {  /* a piece running without the BQL */
        qemu_cond_wait_bql(&s->copy_cond);
    }
    wddmseg_regs_reset(s);
    s->power_losses++;

    for (i = 0; i < s->layout.seg_count; i++) {
        const WddmsegSegment *seg = &s->layout.segs[i];
        bool keep = wddmseg_pm_preserved_s3(s, seg);

        if (seg->flags & (DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_AGP) ||
            seg->base >= s->vram_size) {
            continue;
        }
        start = seg->base;
        len = MIN(seg->size, s->vram_size - start);
        trace_wddmseg_pm_segment(i + 1, keep, start, len);
        if (keep) {
            continue;
        }
        for (off = 0; off + 4 <= len; off += 4) {
            stl_le_p(s->vram_ptr + start + off, WDDMSEG_PM_POISON);
        }
        memory_region_set_dirty(&s->vram, start, len);
        lost += len;
    }
    s->view_valid = false;
    return lost;
}

/*
 * The guest entered S3 (a suspend notifier: the vCPUs are stopped, the
 * BQL is held): the device loses its power. The reset of the wake-up
 * (pc_machine_wakeup) resets the registers again and keeps VRAM as it is
 * now.
 */
static void wddmseg_power_loss(Notifier *n, void *data)
{
    WddmsegState *s = container_of(n, WddmsegState, suspend_notifier);
    uint64_t lost = wddmseg_vram_power_loss(s);

    trace_wddmseg_pm_power_loss(s->power_losses, lost);
}

/*
 * D3hot -> D0 (runtime PM): D3hot is a power state of the VRAM too, with
 * the semantics of S3. The loss shows when the device comes back, as a
 * soft reset: what the flags do not preserve reads WDDMSEG_PM_POISON. It
 * is applied here rather than on the way into D3hot because hibernation's
 * poweroff also puts the device in D3hot, and there the power then goes
 * for good: what a vram-file keeps is the hibernate flags' business, not
 * the standby ones'. In D3hot BAR0 is not decoded (wddmseg_pm_d3()).
 */
static void wddmseg_d3hot_exit(WddmsegState *s)
{
    uint64_t lost = wddmseg_vram_power_loss(s);

    trace_wddmseg_pm_d3hot_exit(s->power_losses, lost);
}

static int wddmseg_post_load(void *opaque, int version_id)
{
    WddmsegState *s = opaque;
    const char *why = NULL;
    char why_buf[192];
    uint32_t err;

    trace_wddmseg_post_load(version_id, s->ring_head, s->ring_tail,
                            s->cmd_active);
    if (s->window_base && !wddmseg_window_valid(s, s->window_base)) {
        error_report("wddmseg: migrated window base 0x%" PRIx64 " is not "
                     "valid for 0x%" PRIx64 " bytes of VRAM", s->window_base,
                     s->vram_size);
        return -EINVAL;
    }
    wddmseg_window_apply(s);

    if ((s->ring_ctrl & ~WDDMSEG_RING_CTRL_ENABLE) ||
        ((s->ring_ctrl & WDDMSEG_RING_CTRL_ENABLE) &&
         !wddmseg_ring_valid(s, &why)) ||
        s->ring_head % sizeof(uint64_t) || s->ring_tail % sizeof(uint64_t)) {
        error_report("wddmseg: migrated copy engine state is not valid%s%s",
                     why ? ": " : "", why ? why : "");
        return -EINVAL;
    }
    /* A version 3 or 4 stream has no cmd tail (its command has none). */
    if (version_id < 5) {
        memset(&s->cmd[WDDMSEG_CMD_V4_QWORDS], 0,
               sizeof(s->cmd) - WDDMSEG_CMD_V4_QWORDS * sizeof(s->cmd[0]));
    }
    /* The engine runs again when the VM does (wddmseg_vm_state_change). */
    s->cache[0].count = 0;
    s->cache[1].count = 0;

    /* Display controller: an active configuration the device accepts. */
    if (version_id < 4) {
        wddmseg_scanout_reset(s);
    }
    err = wddmseg_scanout_check(s, &s->sc_active, why_buf, sizeof(why_buf));
    if (err != WDDMSEG_SCANOUT_ERR_NONE ||
        (s->sc_pending.ctrl & ~WDDMSEG_SCANOUT_CTRL_ALL) ||
        (s->sc_armed && !wddmseg_scanout_enabled(&s->sc_active)) ||
        s->gamma_index >= WDDMSEG_GAMMA_SIZE ||
        (s->crc_ctrl & ~(uint32_t)WDDMSEG_CRC_CTRL_ENABLE)) {
        error_report("wddmseg: migrated scanout state is not valid%s%s",
                     err ? ": " : "", err ? why_buf : "");
        return -EINVAL;
    }
    wddmseg_vblank_arm(s);
    s->view_valid = false;
    return 0;
}

/*
 * s->cmd past its first WDDMSEG_CMD_V4_QWORDS words, from VMState version
 * _v on: VMSTATE_SUB_ARRAY() would name it "cmd" a second time.
 */
#define WDDMSEG_VMSTATE_CMD_TAIL(_v) {                                  \
    .name = "cmd_tail",                                                 \
    .version_id = (_v),                                                 \
    .num = WDDMSEG_CMD_MAX_QWORDS - WDDMSEG_CMD_V4_QWORDS,              \
    .info = &vmstate_info_uint64,                                       \
    .size = sizeof(uint64_t),                                           \
    .flags = VMS_ARRAY,                                                 \
    .offset = vmstate_offset_sub_array(WddmsegState, cmd, uint64_t,     \
                                       WDDMSEG_CMD_V4_QWORDS),          \
}

static const VMStateDescription vmstate_wddmseg_scanout = {
    .name = "wddmseg/scanout",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(ctrl, WddmsegScanout),
        VMSTATE_UINT32(segment, WddmsegScanout),
        VMSTATE_UINT64(offset, WddmsegScanout),
        VMSTATE_UINT32(width, WddmsegScanout),
        VMSTATE_UINT32(height, WddmsegScanout),
        VMSTATE_UINT32(pitch, WddmsegScanout),
        VMSTATE_UINT32(format, WddmsegScanout),
        VMSTATE_UINT32(refresh_mhz, WddmsegScanout),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * The cursor, the gamma LUT and the frame CRC, in a subsection sent only
 * while one of them is in use, so that a stream without it still loads
 * (everything off, as after a reset) into a device that has them.
 */
static bool wddmseg_display_ext_needed(void *opaque)
{
    WddmsegState *s = opaque;

    return s->sc_pending.cur_ctrl || s->sc_active.cur_ctrl ||
           s->sc_pending.gamma_ctrl || s->sc_active.gamma_ctrl ||
           s->crc_ctrl || s->gamma_index;
}

/*
 * The cursor and gamma part of one scanout configuration; the pending and
 * the active copy are sent alike, one after the other.
 */
static const VMStateDescription vmstate_wddmseg_scanout_ext = {
    .name = "wddmseg/scanout-ext",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(cur_ctrl, WddmsegScanout),
        VMSTATE_UINT32(cur_segment, WddmsegScanout),
        VMSTATE_UINT64(cur_offset, WddmsegScanout),
        VMSTATE_UINT32(cur_size, WddmsegScanout),
        VMSTATE_UINT32(cur_pitch, WddmsegScanout),
        VMSTATE_INT32(cur_x, WddmsegScanout),
        VMSTATE_INT32(cur_y, WddmsegScanout),
        VMSTATE_UINT32(gamma_ctrl, WddmsegScanout),
        VMSTATE_UINT32_ARRAY(gamma, WddmsegScanout, WDDMSEG_GAMMA_SIZE),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_wddmseg_display_ext = {
    .name = "wddmseg/display-ext",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = wddmseg_display_ext_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(sc_pending, WddmsegState, 1,
                       vmstate_wddmseg_scanout_ext, WddmsegScanout),
        VMSTATE_STRUCT(sc_active, WddmsegState, 1,
                       vmstate_wddmseg_scanout_ext, WddmsegScanout),
        VMSTATE_UINT32(gamma_index, WddmsegState),
        VMSTATE_UINT32(crc_ctrl, WddmsegState),
        VMSTATE_UINT32(crc_value, WddmsegState),
        VMSTATE_UINT32(crc_frame, WddmsegState),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * The primary's rectangle (device 1.10), sent only while a configuration
 * uses it or NO_PRIMARY (carried in ctrl), so that a stream without it
 * loads as "the whole mode", what a 1.9 device showed.
 */
static bool wddmseg_display_plane_needed(void *opaque)
{
    WddmsegState *s = opaque;

    return s->sc_pending.plane_x || s->sc_pending.plane_y ||
           s->sc_pending.plane_size || s->sc_active.plane_x ||
           s->sc_active.plane_y || s->sc_active.plane_size;
}

/* The primary's rectangle of one scanout configuration. */
static const VMStateDescription vmstate_wddmseg_scanout_plane = {
    .name = "wddmseg/scanout-plane",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT32(plane_x, WddmsegScanout),
        VMSTATE_UINT32(plane_y, WddmsegScanout),
        VMSTATE_UINT32(plane_size, WddmsegScanout),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_wddmseg_display_plane = {
    .name = "wddmseg/display-plane",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = wddmseg_display_plane_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(sc_pending, WddmsegState, 1,
                       vmstate_wddmseg_scanout_plane, WddmsegScanout),
        VMSTATE_STRUCT(sc_active, WddmsegState, 1,
                       vmstate_wddmseg_scanout_plane, WddmsegScanout),
        VMSTATE_END_OF_LIST()
    },
};

/*
 * The layout and the sizes are properties, identical on both sides; the
 * aperture tables migrate as one array, whose size must match. A command
 * in progress migrates as its latched copy and its progress.
 *
 * Version 4 (device 1.3) adds the display controller: both scanout
 * configurations, the status, and the vblank timing as its epoch on the
 * (migrated) virtual clock, from which the destination re-arms its timer.
 * A version 3 stream loads with the scanout disabled, as after a reset.
 *
 * Version 5 (device 1.4) adds TRANSFER_ENCRYPTED: the key, which must
 * migrate (pages encrypted on the source decrypt only with it; it replaces
 * the key the destination drew at realize), and the last words of s->cmd,
 * which grew from WDDMSEG_CMD_V4_QWORDS to the 11 words of the new
 * command. Versioned fields rather than a subsection, as for version 4:
 * the first WDDMSEG_CMD_V4_QWORDS words stay where they were, so a version
 * 3 or 4 stream still loads (keeping the destination's own key: a 1.3
 * device encrypted nothing, and its command is at most 8 words), while an
 * older QEMU refuses a version 5 stream instead of dropping the key.
 */
static const VMStateDescription vmstate_wddmseg = {
    .name = "wddmseg",
    .version_id = 5,
    .minimum_version_id = 3,
    .post_load = wddmseg_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, WddmsegState),
        VMSTATE_UINT64(window_base, WddmsegState),
        VMSTATE_UINT32(window_lo, WddmsegState),
        VMSTATE_UINT32(apt_segment, WddmsegState),
        VMSTATE_UINT32(apt_page, WddmsegState),
        VMSTATE_UINT32(apt_addr_lo, WddmsegState),
        VMSTATE_UINT64(peek_addr, WddmsegState),
        VMSTATE_UINT32(status, WddmsegState),
        VMSTATE_UINT32_EQUAL(apt_total, WddmsegState,
                             "aperture page tables of another size: the "
                             "layout and sizes must match"),
        VMSTATE_VARRAY_UINT32(apt, WddmsegState, apt_total, 0,
                              vmstate_info_uint64, uint64_t),
        VMSTATE_MSIX(parent_obj, WddmsegState),
        VMSTATE_UINT32(irq_status, WddmsegState),
        VMSTATE_UINT32(irq_mask, WddmsegState),
        VMSTATE_UINT64(ring_base, WddmsegState),
        VMSTATE_UINT32(ring_size, WddmsegState),
        VMSTATE_UINT32(ring_head, WddmsegState),
        VMSTATE_UINT32(ring_tail, WddmsegState),
        VMSTATE_UINT32(ring_ctrl, WddmsegState),
        VMSTATE_UINT32(fault_code, WddmsegState),
        VMSTATE_UINT32(fault_head, WddmsegState),
        VMSTATE_UINT64(last_seqno, WddmsegState),
        VMSTATE_BOOL(hung, WddmsegState),
        VMSTATE_BOOL(inject_fault, WddmsegState),
        VMSTATE_BOOL(cmd_active, WddmsegState),
        VMSTATE_UINT64_SUB_ARRAY(cmd, WddmsegState, 0, WDDMSEG_CMD_V4_QWORDS),
        VMSTATE_UINT64(cmd_done, WddmsegState),
        VMSTATE_STRUCT(sc_pending, WddmsegState, 4,
                         vmstate_wddmseg_scanout, WddmsegScanout),
        VMSTATE_STRUCT(sc_active, WddmsegState, 4,
                         vmstate_wddmseg_scanout, WddmsegScanout),
        VMSTATE_BOOL_V(sc_armed, WddmsegState, 4),
        VMSTATE_BOOL_V(sc_refused, WddmsegState, 4),
        VMSTATE_UINT32_V(sc_error, WddmsegState, 4),
        VMSTATE_UINT32_V(vblank_count, WddmsegState, 4),
        VMSTATE_INT64_V(vblank_epoch, WddmsegState, 4),
        VMSTATE_UINT64_V(vblank_frames, WddmsegState, 4),
        VMSTATE_UINT64_ARRAY_V(key, WddmsegState, WDDMSEG_KEY_QWORDS, 5),
        WDDMSEG_VMSTATE_CMD_TAIL(5),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const [])  {
        &vmstate_wddmseg_display_ext,
        &vmstate_wddmseg_display_plane,
        &vmstate_wddmseg_mmu,
        NULL
    },
};

static const Property wddmseg_properties[] = {
    DEFINE_PROP_SIZE("vis-size", WddmsegState, vis_size,
                     WDDMSEG_DEFAULT_VIS_SIZE),
    DEFINE_PROP_SIZE("invis-size", WddmsegState, invis_size,
                     WDDMSEG_DEFAULT_INVIS_SIZE),
    DEFINE_PROP_SIZE("aperture-size", WddmsegState, aperture_size,
                     WDDMSEG_DEFAULT_APERTURE_SIZE),
    DEFINE_PROP_SIZE("aperture-commit", WddmsegState, aperture_commit,
                     WDDMSEG_DEFAULT_APERTURE_COMMIT),
    DEFINE_PROP_SIZE("vram-size", WddmsegState, vram_size_prop, 0),
    DEFINE_PROP_STRING("layout", WddmsegState, layout_str),
    DEFINE_PROP_SIZE("x-batch-bytes", WddmsegState, batch_bytes,
                     WDDMSEG_DEFAULT_BATCH_BYTES),
    DEFINE_PROP_UINT32("x-engine-poll-us", WddmsegState, engine_poll_us,
                       WDDMSEG_DEFAULT_ENGINE_POLL_US),
    DEFINE_PROP_UINT32("max-width", WddmsegState, max_width,
                       WDDMSEG_DEFAULT_MAX_WIDTH),
    DEFINE_PROP_UINT32("max-height", WddmsegState, max_height,
                       WDDMSEG_DEFAULT_MAX_HEIGHT),
    DEFINE_PROP_STRING("vram-file", WddmsegState, vram_file),
    DEFINE_PROP_SIZE("hib-partial", WddmsegState, hib_partial, 4 * MiB),
    DEFINE_PROP_UINT32("mmu-pt-segment", WddmsegState, mmu_pt_seg_prop, 0),
};

static void wddmseg_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = wddmseg_realize;
    k->exit = wddmseg_exit;
    k->config_write = wddmseg_config_write;
    k->romfile = NULL;
    k->vendor_id = WDDMSEG_PCI_VENDOR_ID;
    k->device_id = WDDMSEG_PCI_DEVICE_ID;
    k->revision = WDDMSEG_PCI_REVISION;
    k->class_id = PCI_CLASS_DISPLAY_OTHER;

    dc->desc = "GPU with WDDM-style memory segments";
    rc->phases.hold = wddmseg_reset_hold;
    dc->vmsd = &vmstate_wddmseg;
    device_class_set_props(dc, wddmseg_properties);
    object_class_property_set_description(klass, "vis-size",
        "CPU-visible VRAM (default layout segment 1); BAR2 is this size "
        "rounded up to a power of two");
    object_class_property_set_description(klass, "invis-size",
        "CPU-invisible VRAM (default layout segment 2)");
    object_class_property_set_description(klass, "aperture-size",
        "Size of the aperture segment 3 of the default layout");
    object_class_property_set_description(klass, "aperture-commit",
        "CommitLimit of the aperture segment 3 of the default layout");
    object_class_property_set_description(klass, "vram-size",
        "Bytes of device VRAM (0: vis-size + invis-size)");
    object_class_property_set_description(klass, "layout",
        "Descriptor table and caps, replacing the default layout: "
        "CAPS:NODE{|BASE:CPU:SIZE:COMMIT:FLAGS[:NBANKS[:END{/END}]]}");
    object_class_property_set_description(klass, "x-batch-bytes",
        "Bytes the copy engine moves per batch, 4K..1G (a test "
        "hook: smaller batches make a long copy span several)");
    object_class_property_set_description(klass, "x-engine-poll-us",
        "Longest time in microseconds the engine's thread looks for a new "
        "doorbell before it sleeps, 0..10000 (the window adapts below it)");
    object_class_property_set_description(klass, "max-width",
        "Widest scanout in pixels, 1..16384 (SCANOUT_MAX_WIDTH)");
    object_class_property_set_description(klass, "max-height",
        "Tallest scanout in lines, 1..16384 (SCANOUT_MAX_HEIGHT)");
    object_class_property_set_description(klass, "vram-file",
        "File that holds the VRAM across power cycles (a new QEMU "
        "process: hibernation); PreservedDuringHibernate segments keep it "
        "(PM_HIB.PERSISTENT)");
    object_class_property_set_description(klass, "hib-partial",
        "Bytes at the start of a PartiallyPreservedDuringHibernate "
        "segment that a vram-file keeps, a multiple of 64K "
        "(PM_HIB_PARTIAL)");
    object_class_property_set_description(klass, "mmu-pt-segment",
        "Memory segment id the GPU MMU's page tables live in "
        "(MMU_PT_SEGMENT); 0: the first memory segment without CpuVisible, "
        "else the first memory segment");
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
}

static const TypeInfo wddmseg_info = {
    .name = TYPE_WDDMSEG,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(WddmsegState),
    .class_init = wddmseg_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void wddmseg_register_types(void)
{
    type_register_static(&wddmseg_info);
}

type_init(wddmseg_register_types)
