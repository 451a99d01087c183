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
 * Linux driver; the contract is Documentation/gpu/wddmseg.rst of the
 * wddmseg project.
 *
 * The descriptor table comes either from the size properties (the default
 * layout) or verbatim from the "layout" property. The device never checks
 * WDDM rules: tests present invalid tables on purpose, and the driver is
 * the one that must refuse them. Only a syntactically malformed layout
 * string fails realize.
 *
 * Register decoding is split by BAR0 range (adapter block, segment table)
 * so that later blocks (copy-engine ring, interrupts, scanout) get their
 * own range and handler. Inside the adapter block, the read-only identity
 * registers and the read/write control registers (window, aperture page
 * tables, PEEK, STATUS) have their own functions. Every register access is
 * O(1): the PEEK lookup walks at most WDDMSEG_SEG_MAX descriptors.
 *
 * GPU address space: VRAM is linear from GPU address 0 (the VRAM offset of
 * a memory segment's byte is its GPU address); an Aperture segment maps
 * GPU page (address - BaseAddress) / 4 KiB through its page table to a
 * DMA address. Agp segments have no GPU view in this model.
 */

#include "qemu/osdep.h"
#include "qemu/ctype.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qom/object.h"

#include "wddmseg_hw.h"

#define TYPE_WDDMSEG "wddmseg"
OBJECT_DECLARE_SIMPLE_TYPE(WddmsegState, WDDMSEG)

/* Engines (WDDM nodes) the device implements. */
#define WDDMSEG_NUM_ENGINES     1

/* Smallest BAR2, whatever vis-size says. */
#define WDDMSEG_VRAM_BAR_MIN    (4 * KiB)

/* Page size of the aperture page tables (and of WDDM). */
#define WDDMSEG_PAGE_SIZE       (4 * KiB)

/*
 * Aperture page table entries the device holds at most, all aperture
 * segments together: 16 Mi entries map 64 GiB and take 128 MiB of host
 * memory. See wddmseg_apt_init() for layouts that need more.
 */
#define WDDMSEG_APT_MAX_ENTRIES (16 * 1024 * 1024)

/* Defaults of the size properties (see the rst). */
#define WDDMSEG_DEFAULT_VIS_SIZE            (64 * MiB)
#define WDDMSEG_DEFAULT_INVIS_SIZE          (64 * MiB)
#define WDDMSEG_DEFAULT_APERTURE_SIZE       (256 * MiB)
#define WDDMSEG_DEFAULT_APERTURE_COMMIT     (128 * MiB)
#define WDDMSEG_DEFAULT_APERTURE_BASE       (4 * GiB)

/* One DXGK_SEGMENTDESCRIPTOR, as the registers of its table slot show it. */
typedef struct WddmsegSegment {
    uint64_t base;              /* BaseAddress (GPU view) */
    bool has_cpu;               /* CpuTranslatedAddress configured */
    uint64_t cpu_offset;        /* ... as an offset into BAR2 */
    uint64_t size;              /* Size */
    uint64_t commit;            /* CommitLimit */
    uint32_t flags;             /* DXGK_SEGMENTFLAGS.Value */
    uint32_t nb_banks;          /* NbOfBanks, reported as configured */
    uint64_t banks[WDDMSEG_SEG_BANK_MAX];  /* pBankRangeTable, 0 if unlisted */
} WddmsegSegment;

/* What the layout property (or the default layout) describes. */
typedef struct WddmsegLayout {
    uint32_t caps;              /* DXGK_VIDMMCAPS.Value */
    uint32_t paging_node;       /* DXGK_VIDMMCAPS.PagingNode */
    uint32_t seg_count;
    WddmsegSegment segs[WDDMSEG_SEG_MAX];
} WddmsegLayout;

struct WddmsegState {
    PCIDevice parent_obj;

    /* BAR0: registers */
    MemoryRegion mmio;
    /* Device VRAM, and BAR2: an alias of its first bar_size bytes */
    MemoryRegion vram;
    MemoryRegion vram_bar;
    /* BAR4: an alias of WDDMSEG_WINDOW_SIZE bytes of VRAM at window_base */
    MemoryRegion window_bar;

    /* Properties */
    uint64_t vis_size;
    uint64_t invis_size;
    uint64_t aperture_size;
    uint64_t aperture_commit;
    uint64_t vram_size_prop;
    char *layout_str;

    /* Fixed at realize */
    uint64_t vram_size;         /* reported in VRAM_SIZE */
    uint64_t vram_alloc;        /* backing RAM: >= vram_size, BAR2, BAR4 */
    uint64_t bar_size;          /* BAR2 size */
    WddmsegLayout layout;

    /*
     * Aperture page tables, sized at realize: one array holding the table
     * of every Aperture segment, segment after segment. Entry 0 is an
     * unmapped page, anything else the DMA address of a 4 KiB page.
     */
    uint64_t *apt;
    uint32_t apt_total;                     /* entries in apt */
    uint32_t apt_first[WDDMSEG_SEG_MAX];    /* segment i's first entry */
    uint32_t apt_pages[WDDMSEG_SEG_MAX];    /* its entries, 0: no table */

    /* Control registers */
    uint64_t window_base;       /* WINDOW_BASE, applied to BAR4 */
    uint32_t window_lo;         /* WINDOW_BASE_LO as written, until HI */
    uint32_t apt_segment;       /* APT_SEGMENT: a segment id */
    uint32_t apt_page;          /* APT_PAGE */
    uint32_t apt_addr_lo;       /* APT_ADDR_LO as written, until HI */
    uint64_t peek_addr;         /* PEEK_ADDR_LO/HI */
    uint32_t status;            /* STATUS, sticky bits */
};

/* ------------------------------------------------------------------------ */
/* Layout string                                                            */
/* ------------------------------------------------------------------------ */

/*
 * layout := CAPS ":" NODE { "|" SEG }
 * SEG    := BASE ":" CPU ":" SIZE ":" COMMIT ":" FLAGS
 *           [ ":" NBANKS [ ":" BANKS ] ]
 * BANKS  := END { "/" END }
 *
 * Numbers are 0x-hexadecimal or decimal with an optional K, M or G binary
 * suffix; CPU is a number or "-".
 */

typedef struct WddmsegParser {
    const char *str;            /* the whole string, for error positions */
    const char *p;              /* cursor */
    char ctx[32];               /* "segment 2" or "adapter", for errors */
} WddmsegParser;

static void wddmseg_parse_error(WddmsegParser *ps, Error **errp,
                                const char *what)
{
    ptrdiff_t col = ps->p - ps->str;

    if (*ps->p) {
        error_setg(errp, "malformed layout '%s': %s: %s at "
                   "offset %td ('%s')", ps->str, ps->ctx, what, col, ps->p);
    } else {
        error_setg(errp, "malformed layout '%s': %s: %s at "
                   "offset %td (end of string)", ps->str, ps->ctx, what, col);
    }
}

static bool wddmseg_parse_number(WddmsegParser *ps, const char *name,
                                 uint64_t max, uint64_t *val, Error **errp)
{
    const char *start = ps->p;
    const char *end;
    uint64_t v;
    int shift = 0;
    char msg[128];

    if (!qemu_isdigit(*start)) {
        snprintf(msg, sizeof(msg), "expected a number for %s", name);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    if (start[0] == '0' && qemu_isdigit(start[1])) {
        snprintf(msg, sizeof(msg), "%s has a leading zero (numbers are "
                 "0x-hexadecimal or decimal, not octal)", name);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    if (qemu_strtou64(start, &end, 0, &v) < 0) {
        snprintf(msg, sizeof(msg), "%s does not fit in 64 bits", name);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    if (*end == 'x' || *end == 'X') {
        snprintf(msg, sizeof(msg), "%s has no hexadecimal digits after 0x",
                 name);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }

    switch (*end) {
    case 'K':
        shift = 10;
        break;
    case 'M':
        shift = 20;
        break;
    case 'G':
        shift = 30;
        break;
    }
    if (shift) {
        if (v > (UINT64_MAX >> shift)) {
            snprintf(msg, sizeof(msg), "%s does not fit in 64 bits", name);
            wddmseg_parse_error(ps, errp, msg);
            return false;
        }
        v <<= shift;
        end++;
    }
    if (qemu_isalnum(*end)) {
        snprintf(msg, sizeof(msg), "%s has an unknown suffix '%c' (K, M or "
                 "G)", name, *end);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    if (v > max) {
        snprintf(msg, sizeof(msg), "%s 0x%" PRIx64 " does not fit in its "
                 "32-bit register", name, v);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    ps->p = end;
    *val = v;
    return true;
}

static bool wddmseg_parse_u32(WddmsegParser *ps, const char *name,
                              uint32_t *val, Error **errp)
{
    uint64_t v;

    if (!wddmseg_parse_number(ps, name, UINT32_MAX, &v, errp)) {
        return false;
    }
    *val = v;
    return true;
}

static bool wddmseg_parse_u64(WddmsegParser *ps, const char *name,
                              uint64_t *val, Error **errp)
{
    return wddmseg_parse_number(ps, name, UINT64_MAX, val, errp);
}

/* Consume @sep, which must follow a field of the given name. */
static bool wddmseg_parse_sep(WddmsegParser *ps, char sep, const char *after,
                              Error **errp)
{
    char msg[64];

    if (*ps->p != sep) {
        snprintf(msg, sizeof(msg), "expected '%c' after %s", sep, after);
        wddmseg_parse_error(ps, errp, msg);
        return false;
    }
    ps->p++;
    return true;
}

static bool wddmseg_parse_segment(WddmsegParser *ps, WddmsegSegment *seg,
                                  Error **errp)
{
    unsigned int j;

    if (!wddmseg_parse_u64(ps, "BASE", &seg->base, errp) ||
        !wddmseg_parse_sep(ps, ':', "BASE", errp)) {
        return false;
    }
    if (*ps->p == '-') {
        seg->has_cpu = false;
        seg->cpu_offset = 0;
        ps->p++;
    } else {
        if (!wddmseg_parse_u64(ps, "CPU (or '-')", &seg->cpu_offset, errp)) {
            return false;
        }
        seg->has_cpu = true;
    }
    if (!wddmseg_parse_sep(ps, ':', "CPU", errp) ||
        !wddmseg_parse_u64(ps, "SIZE", &seg->size, errp) ||
        !wddmseg_parse_sep(ps, ':', "SIZE", errp) ||
        !wddmseg_parse_u64(ps, "COMMIT", &seg->commit, errp) ||
        !wddmseg_parse_sep(ps, ':', "COMMIT", errp) ||
        !wddmseg_parse_u32(ps, "FLAGS", &seg->flags, errp)) {
        return false;
    }

    if (*ps->p != ':') {
        return true;
    }
    ps->p++;
    if (!wddmseg_parse_u32(ps, "NBANKS", &seg->nb_banks, errp)) {
        return false;
    }

    if (*ps->p != ':') {
        return true;
    }
    ps->p++;
    for (j = 0;; j++) {
        if (j == WDDMSEG_SEG_BANK_MAX) {
            wddmseg_parse_error(ps, errp, "more than "
                                stringify(WDDMSEG_SEG_BANK_MAX)
                                " bank entries");
            return false;
        }
        if (!wddmseg_parse_u64(ps, "a bank END", &seg->banks[j], errp)) {
            return false;
        }
        if (*ps->p != '/') {
            return true;
        }
        ps->p++;
    }
}

static bool wddmseg_parse_layout(const char *str, WddmsegLayout *layout,
                                 Error **errp)
{
    WddmsegParser ps = { .str = str, .p = str };

    memset(layout, 0, sizeof(*layout));

    pstrcpy(ps.ctx, sizeof(ps.ctx), "adapter");
    if (!wddmseg_parse_u32(&ps, "CAPS", &layout->caps, errp) ||
        !wddmseg_parse_sep(&ps, ':', "CAPS", errp) ||
        !wddmseg_parse_u32(&ps, "NODE", &layout->paging_node, errp)) {
        return false;
    }

    while (*ps.p) {
        if (*ps.p != '|') {
            wddmseg_parse_error(&ps, errp, "expected '|' or the end of "
                                "the string");
            return false;
        }
        ps.p++;
        snprintf(ps.ctx, sizeof(ps.ctx), "segment %u",
                 layout->seg_count + 1);
        if (layout->seg_count == WDDMSEG_SEG_MAX) {
            wddmseg_parse_error(&ps, errp, "more than "
                                stringify(WDDMSEG_SEG_MAX) " segments");
            return false;
        }
        if (!wddmseg_parse_segment(&ps, &layout->segs[layout->seg_count],
                                   errp)) {
            return false;
        }
        layout->seg_count++;
    }
    return true;
}

/* The table of the rst, from the size properties. */
static void wddmseg_default_layout(WddmsegState *s, WddmsegLayout *layout)
{
    WddmsegSegment *seg;

    memset(layout, 0, sizeof(*layout));
    layout->caps = 0;
    layout->paging_node = 0;
    layout->seg_count = 3;

    /* 1: CPU-visible VRAM, seen through BAR2 */
    seg = &layout->segs[0];
    seg->base = 0;
    seg->has_cpu = true;
    seg->cpu_offset = 0;
    seg->size = s->vis_size;
    seg->commit = s->vis_size;
    seg->flags = DXGK_SEGFLAG_CPU_VISIBLE | DXGK_SEGFLAG_DIRECT_FLIP |
                 DXGK_SEGFLAG_PRESERVED_DURING_STANDBY;

    /* 2: CPU-invisible VRAM, right after it */
    seg = &layout->segs[1];
    seg->base = s->vis_size;
    seg->size = s->invis_size;
    seg->commit = s->invis_size;
    seg->flags = 0;

    /* 3: GART aperture */
    seg = &layout->segs[2];
    seg->base = WDDMSEG_DEFAULT_APERTURE_BASE;
    seg->size = s->aperture_size;
    seg->commit = s->aperture_commit;
    seg->flags = DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_CACHE_COHERENT;
}

/* ------------------------------------------------------------------------ */
/* BAR0 registers                                                           */
/* ------------------------------------------------------------------------ */

static uint32_t wddmseg_lo_hi(uint64_t v, hwaddr reg, hwaddr lo)
{
    return reg == lo ? (uint32_t)v : (uint32_t)(v >> 32);
}

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
        if (!s->apt) {
            error_setg(errp, "cannot allocate the aperture page tables "
                       "(%" PRIu64 " entries)", total);
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
    *slot = entry;
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
 * The word the GPU sees at peek_addr. The first segment in table order
 * whose [BaseAddress, +Size) holds the address decides (valid tables do
 * not overlap): a memory segment reads VRAM at that address, an Aperture
 * segment reads the system page its table maps, over DMA.
 */
static uint32_t wddmseg_peek(WddmsegState *s)
{
    uint64_t addr = s->peek_addr;
    const WddmsegSegment *seg = NULL;
    uint64_t off = 0;
    uint64_t entry;
    uint32_t word;
    unsigned int i;

    if (addr % sizeof(word)) {
        return wddmseg_peek_fault(s, "not 4-byte aligned");
    }
    for (i = 0; i < s->layout.seg_count; i++) {
        seg = &s->layout.segs[i];
        if (addr >= seg->base && addr - seg->base < seg->size) {
            off = addr - seg->base;
            break;
        }
    }
    if (i == s->layout.seg_count) {
        return wddmseg_peek_fault(s, "in no segment");
    }

    if (seg->flags & DXGK_SEGFLAG_APERTURE) {
        if (!s->apt_pages[i]) {
            return wddmseg_peek_fault(s, "aperture without a page table");
        }
        entry = s->apt[s->apt_first[i] + off / WDDMSEG_PAGE_SIZE];
        if (!entry) {
            return wddmseg_peek_fault(s, "unmapped aperture page");
        }
        if (pci_dma_read(PCI_DEVICE(s), entry + off % WDDMSEG_PAGE_SIZE,
                         &word, sizeof(word)) != MEMTX_OK) {
            return wddmseg_peek_fault(s, "DMA read failed");
        }
        return le32_to_cpu(word);
    }
    if (seg->flags & DXGK_SEGFLAG_AGP) {
        return wddmseg_peek_fault(s, "Agp segment (not modelled)");
    }
    if (s->vram_size < sizeof(word) || addr > s->vram_size - sizeof(word)) {
        return wddmseg_peek_fault(s, "memory segment past the end of VRAM");
    }
    return ldl_le_p((uint8_t *)memory_region_get_ram_ptr(&s->vram) + addr);
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
/* BAR0 dispatch                                                            */
/* ------------------------------------------------------------------------ */

static uint64_t wddmseg_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    WddmsegState *s = opaque;
    uint32_t val = 0;
    bool known = false;

    if (addr < WDDMSEG_SEG_TABLE) {
        known = wddmseg_adapter_read(s, addr, &val) ||
                wddmseg_ctrl_read(s, addr, &val);
    } else if (addr < WDDMSEG_SEG_REG(WDDMSEG_SEG_MAX, 0)) {
        known = wddmseg_segment_read(s, addr, &val);
    }
    if (!known) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: read of unknown register 0x%"
                      HWADDR_PRIx "\n", __func__, addr);
        return 0;
    }
    return val;
}

static void wddmseg_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                               unsigned size)
{
    WddmsegState *s = opaque;
    uint32_t dummy;
    bool known = false;

    if (addr < WDDMSEG_SEG_TABLE) {
        if (wddmseg_ctrl_write(s, addr, val)) {
            return;
        }
        /* Read-only: identity registers and PEEK_DATA. */
        known = wddmseg_adapter_read(s, addr, &dummy) ||
                addr == WDDMSEG_REG_PEEK_DATA;
    } else if (addr < WDDMSEG_SEG_REG(WDDMSEG_SEG_MAX, 0)) {
        known = wddmseg_segment_read(s, addr, &dummy);
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

static void wddmseg_realize(PCIDevice *pdev, Error **errp)
{
    ERRP_GUARD();
    WddmsegState *s = WDDMSEG(pdev);

    if (s->layout_str) {
        if (!wddmseg_parse_layout(s->layout_str, &s->layout, errp)) {
            return;
        }
    } else {
        wddmseg_default_layout(s, &s->layout);
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

    memory_region_init_ram(&s->vram, OBJECT(s), "wddmseg-vram", s->vram_alloc,
                           errp);
    if (*errp) {
        return;
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

    /* Last: nothing above needs undoing if this fails. */
    wddmseg_apt_init(s, errp);
}

static void wddmseg_exit(PCIDevice *pdev)
{
    WddmsegState *s = WDDMSEG(pdev);

    g_free(s->apt);
    s->apt = NULL;
}

static void wddmseg_reset(DeviceState *dev)
{
    WddmsegState *s = WDDMSEG(dev);

    /* Every aperture page unmapped, the window back at the start. */
    if (s->apt) {
        memset(s->apt, 0, s->apt_total * sizeof(*s->apt));
    }
    s->window_base = 0;
    s->window_lo = 0;
    s->apt_segment = 0;
    s->apt_page = 0;
    s->apt_addr_lo = 0;
    s->peek_addr = 0;
    s->status = 0;
    wddmseg_window_apply(s);
}

static int wddmseg_post_load(void *opaque, int version_id)
{
    WddmsegState *s = opaque;

    if (s->window_base && !wddmseg_window_valid(s, s->window_base)) {
        error_report("wddmseg: migrated window base 0x%" PRIx64 " is not "
                     "valid for 0x%" PRIx64 " bytes of VRAM", s->window_base,
                     s->vram_size);
        return -EINVAL;
    }
    wddmseg_window_apply(s);
    return 0;
}

/*
 * The layout and the sizes are properties, identical on both sides; the
 * aperture tables migrate as one array, whose size must match.
 */
static const VMStateDescription vmstate_wddmseg = {
    .name = "wddmseg",
    .version_id = 2,
    .minimum_version_id = 2,
    .post_load = wddmseg_post_load,
    .fields = (VMStateField[]) {
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
        VMSTATE_END_OF_LIST()
    },
};

static Property wddmseg_properties[] = {
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
    DEFINE_PROP_END_OF_LIST(),
};

static void wddmseg_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = wddmseg_realize;
    k->exit = wddmseg_exit;
    k->romfile = NULL;
    k->vendor_id = WDDMSEG_PCI_VENDOR_ID;
    k->device_id = WDDMSEG_PCI_DEVICE_ID;
    k->revision = WDDMSEG_PCI_REVISION;
    k->class_id = PCI_CLASS_DISPLAY_OTHER;

    dc->desc = "GPU with WDDM-style memory segments";
    dc->reset = wddmseg_reset;
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
