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
 * Copy engine (paging node 0): a ring of commands in guest memory. The
 * doorbell (RING_TAIL) only schedules a bottom half; the bottom half runs
 * a bounded batch (WDDMSEG_BATCH_CMDS commands or x-batch-bytes bytes
 * moved) and reschedules itself while work remains, so neither the vCPU
 * nor the main loop waits for a long copy. Each command is read once into
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
 *
 * Display controller (1.3): one scanout, double buffered. The guest writes
 * a pending configuration and commits it; a QEMU_CLOCK_VIRTUAL timer,
 * armed only while the scanout is enabled, makes the vblanks at exact
 * multiples of the refresh period from the moment the timing was latched,
 * counts them and latches a committed configuration at the next one (at
 * once when the scanout is disabled), validating it then. The graphic
 * console shows the active framebuffer straight out of VRAM (or a shadow
 * copy when pixman cannot use it in place), refreshed in full at every
 * update, so what the copy engine or the CPU wrote is always on screen.
 */

#include "qemu/osdep.h"
#include "qemu/ctype.h"
#include "qemu/cutils.h"
#include "qemu/error-report.h"
#include "qemu/guest-random.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "qom/object.h"
#include "sysemu/runstate.h"
#include "ui/console.h"

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

/* Copy engine: ring size limits (bytes), and the largest command. */
#define WDDMSEG_RING_MIN        (4 * KiB)
#define WDDMSEG_RING_MAX        (1 * MiB)
#define WDDMSEG_CMD_MAX_QWORDS  WDDMSEG_TRANSFER_ENCRYPTED_QWORDS
/* The words of s->cmd that VMState version 3 and 4 streams carry. */
#define WDDMSEG_CMD_V4_QWORDS   WDDMSEG_TRANSFER_QWORDS

/* One bottom-half run: at most this many commands, x-batch-bytes moved. */
#define WDDMSEG_BATCH_CMDS      64
#define WDDMSEG_DEFAULT_BATCH_BYTES (16 * MiB)
/*
 * Pieces of a copy between VRAM and RAM at least this long run without
 * the BQL (wddmseg_move_unlocked()).
 */
#define WDDMSEG_UNLOCKED_MIN    (64 * KiB)

/* wddmseg_copy(): the engine was reset while a piece ran without the BQL. */
#define WDDMSEG_COPY_STALE      UINT32_MAX

/* What one MAP/UNMAP page table entry counts against x-batch-bytes. */
#define WDDMSEG_APT_ENTRY_COST  64

/*
 * What one byte of TRANSFER_ENCRYPTED counts against x-batch-bytes: the
 * key stream (one SipHash-2-4 per 8 bytes) costs several times a copy, and
 * the whole piece runs under the BQL.
 */
#define WDDMSEG_CRYPT_COST      4

/* The device's TRANSFER_ENCRYPTED key (SipHash-2-4 takes 128 bits). */
#define WDDMSEG_KEY_QWORDS      2

/* System-to-system copies and FILL patterns go through this buffer. */
#define WDDMSEG_BOUNCE_SIZE     (64 * KiB)

/* Page list entries read from guest memory at once. */
#define WDDMSEG_LIST_CACHE      512

/* Defaults of the size properties (see the rst). */
#define WDDMSEG_DEFAULT_VIS_SIZE            (64 * MiB)
#define WDDMSEG_DEFAULT_INVIS_SIZE          (64 * MiB)
#define WDDMSEG_DEFAULT_APERTURE_SIZE       (256 * MiB)
#define WDDMSEG_DEFAULT_APERTURE_COMMIT     (128 * MiB)
#define WDDMSEG_DEFAULT_APERTURE_BASE       (4 * GiB)

/* Display controller: default and largest max-width / max-height. */
#define WDDMSEG_DEFAULT_MAX_WIDTH           1920
#define WDDMSEG_DEFAULT_MAX_HEIGHT          1200
#define WDDMSEG_SCANOUT_LIMIT               16384
/* What a disabled scanout shows before anything was ever shown. */
#define WDDMSEG_BLANK_WIDTH                 640
#define WDDMSEG_BLANK_HEIGHT                480
#define WDDMSEG_SCANOUT_FMT_ALL \
    ((uint32_t)(WDDMSEG_SCANOUT_FMT_XRGB8888 | WDDMSEG_SCANOUT_FMT_RGB565))
/* A vblank period is this many ns divided by REFRESH_MHZ. */
#define WDDMSEG_NS_PER_MILLIHERTZ           (NANOSECONDS_PER_SECOND * 1000ULL)

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

/*
 * Page list entries of the current command, read ahead from guest memory
 * (never past the last entry the command covers). Not migrated: emptied
 * when a command starts and after a migration.
 */
typedef struct WddmsegListCache {
    uint64_t list;              /* DMA address of the list */
    uint64_t first;             /* index of e[0] in the list */
    uint32_t count;             /* valid entries, 0: empty */
    uint64_t e[WDDMSEG_LIST_CACHE];
} WddmsegListCache;

/*
 * One scanout configuration, as the SCANOUT_CTRL .. SCANOUT_REFRESH_MHZ
 * registers hold it: the pending copy the guest writes, and the active
 * copy latched at a vblank.
 */
typedef struct WddmsegScanout {
    uint32_t ctrl;              /* WDDMSEG_SCANOUT_CTRL_ENABLE or 0 */
    uint32_t segment;           /* segment id */
    uint64_t offset;            /* byte offset inside the segment */
    uint32_t width;             /* pixels */
    uint32_t height;            /* lines */
    uint32_t pitch;             /* bytes per line */
    uint32_t format;            /* one WDDMSEG_SCANOUT_FMT_* bit */
    uint32_t refresh_mhz;       /* millihertz */
} WddmsegScanout;

/* What the graphic console shows (a function of the active scanout). */
typedef struct WddmsegView {
    bool enabled;               /* false: a black surface */
    uint64_t vram_off;          /* first pixel, as a VRAM offset */
    uint32_t width;
    uint32_t height;
    uint32_t pitch;
    uint32_t format;
} WddmsegView;

/* Where a command's bytes are, after validation. */
typedef enum WddmsegLocKind {
    WDDMSEG_LOC_VRAM,           /* contiguous VRAM from addr */
    WDDMSEG_LOC_APERTURE,       /* aperture segment seg from offset addr */
    WDDMSEG_LOC_PAGES,          /* page list at addr, from byte offset */
    WDDMSEG_LOC_DMA,            /* contiguous system memory from addr */
} WddmsegLocKind;

typedef struct WddmsegLoc {
    WddmsegLocKind kind;
    unsigned int seg;           /* APERTURE: segment index (id - 1) */
    uint64_t addr;              /* see WddmsegLocKind */
    uint64_t offset;            /* PAGES: byte offset into the memory */
    uint64_t size;              /* bytes the command covers */
    WddmsegListCache *cache;    /* PAGES */
} WddmsegLoc;

/* A run of a location: contiguous VRAM, or contiguous system memory. */
typedef struct WddmsegSpan {
    bool vram;
    uint64_t addr;              /* VRAM offset or DMA address */
    uint64_t len;
} WddmsegSpan;

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
    uint64_t batch_bytes;
    uint32_t max_width;         /* SCANOUT_MAX_WIDTH */
    uint32_t max_height;        /* SCANOUT_MAX_HEIGHT */

    /* Fixed at realize */
    uint64_t vram_size;         /* reported in VRAM_SIZE */
    uint64_t vram_alloc;        /* backing RAM: >= vram_size, BAR2, BAR4 */
    uint64_t bar_size;          /* BAR2 size */
    WddmsegLayout layout;
    /*
     * TRANSFER_ENCRYPTED key (SipHash k0, k1): random, drawn at realize,
     * never readable, kept across resets, migrated (a migrated key
     * replaces the destination's own).
     */
    uint64_t key[WDDMSEG_KEY_QWORDS];

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

    /* Interrupts */
    uint32_t irq_status;        /* IRQ_STATUS */
    uint32_t irq_mask;          /* IRQ_MASK */

    /* Copy engine registers */
    uint64_t ring_base;         /* RING_BASE_LO/HI as written */
    uint32_t ring_size;         /* RING_SIZE as written */
    uint32_t ring_head;         /* RING_HEAD */
    uint32_t ring_tail;         /* RING_TAIL */
    uint32_t ring_ctrl;         /* WDDMSEG_RING_CTRL_ENABLE or 0 */
    uint32_t fault_code;        /* FAULT_CODE; not NONE: the engine stops */
    uint32_t fault_head;        /* FAULT_HEAD */
    uint64_t last_seqno;        /* LAST_SEQNO */
    bool hung;                  /* INJECT_HANG until RING_CTRL.RESET */
    bool inject_fault;          /* INJECT_FAULT pending */

    /* The command at ring_head, once fetched, and its progress */
    bool cmd_active;
    uint64_t cmd[WDDMSEG_CMD_MAX_QWORDS];
    uint64_t cmd_done;          /* bytes (MAP/UNMAP: entries) done */

    /* Copy engine, not migrated */
    uint8_t *vram_ptr;          /* host pointer of vram */
    QEMUBH *bh;                 /* runs wddmseg_engine_run() */
    VMChangeStateEntry *vmstate_change;
    uint8_t *bounce;            /* WDDMSEG_BOUNCE_SIZE + 8 bytes */
    WddmsegListCache cache[2];  /* source and destination page lists */
    uint32_t engine_gen;        /* bumped by every engine reset */
    bool copy_unlocked;         /* a piece runs without the BQL */
    QemuCond copy_cond;         /* signalled when it is done */

    /* Display controller */
    WddmsegScanout sc_pending;  /* SCANOUT_CTRL .. REFRESH_MHZ as written */
    WddmsegScanout sc_active;   /* latched at a vblank */
    bool sc_armed;              /* SCANOUT_STATUS.PENDING */
    bool sc_refused;            /* SCANOUT_STATUS.REFUSED */
    uint32_t sc_error;          /* SCANOUT_ERROR */
    uint32_t vblank_count;      /* VBLANK_COUNT */
    int64_t vblank_epoch;       /* virtual ns where the active timing began */
    uint64_t vblank_frames;     /* vblanks counted since vblank_epoch */

    /* Display controller, not migrated */
    QEMUTimer *vblank_timer;    /* QEMU_CLOCK_VIRTUAL, runs while enabled */
    QemuConsole *con;
    WddmsegView view;           /* what the console's surface is */
    bool view_valid;            /* false: replace the surface at the update */
    uint8_t *shadow;            /* copy of a framebuffer pixman cannot use */
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
static uint32_t wddmseg_gpu_loc(WddmsegState *s, uint64_t addr, uint64_t size,
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
 * The run of loc that starts pos bytes in: at most max bytes (1 <= max <=
 * loc->size - pos) that are contiguous in VRAM or in system memory.
 * Physically contiguous aperture or page list pages are merged; the merge
 * loop is bounded by max / 4 KiB.
 */
static uint32_t wddmseg_span(WddmsegState *s, const WddmsegLoc *loc,
                             uint64_t pos, uint64_t max, WddmsegSpan *sp,
                             const char **why)
{
    const uint64_t *table;
    uint64_t off, page, last, entry, next;
    uint32_t code;

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
        while (sp->len < max && page + 1 < s->apt_pages[loc->seg] &&
               table[page + 1] == entry + WDDMSEG_PAGE_SIZE) {
            page++;
            entry += WDDMSEG_PAGE_SIZE;
            sp->len += WDDMSEG_PAGE_SIZE;
        }
        sp->len = MIN(sp->len, max);
        return WDDMSEG_FAULT_NONE;
    case WDDMSEG_LOC_PAGES:
        off = loc->offset + pos;
        page = off / WDDMSEG_PAGE_SIZE;
        last = (loc->offset + loc->size - 1) / WDDMSEG_PAGE_SIZE;
        code = wddmseg_list_entry(s, loc->cache, loc->addr, page, last,
                                  &entry, why);
        if (code) {
            return code;
        }
        sp->vram = false;
        sp->addr = entry + off % WDDMSEG_PAGE_SIZE;
        sp->len = WDDMSEG_PAGE_SIZE - off % WDDMSEG_PAGE_SIZE;
        while (sp->len < max && page < last) {
            /* A bad next entry ends the run; it faults when reached. */
            if (wddmseg_list_entry(s, loc->cache, loc->addr, page + 1, last,
                                   &next, why) ||
                next != entry + WDDMSEG_PAGE_SIZE) {
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
                                 WDDMSEG_IRQ_SCANOUT_ERROR))

/* INTx follows IRQ_STATUS & IRQ_MASK while MSI-X is off. */
static void wddmseg_irq_update(WddmsegState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    pci_set_irq(pdev, !msix_enabled(pdev) && (s->irq_status & s->irq_mask));
}

/*
 * Events: set their IRQ_STATUS bits; with MSI-X, every event whose bit is
 * in IRQ_MASK sends vector 0, whether or not the bit was already set.
 */
static void wddmseg_irq_raise(WddmsegState *s, uint32_t bits)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    s->irq_status |= bits;
    if (msix_enabled(pdev) && (bits & s->irq_mask)) {
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
/* Copy engine                                                              */
/* ------------------------------------------------------------------------ */

static bool wddmseg_engine_runnable(WddmsegState *s)
{
    return (s->ring_ctrl & WDDMSEG_RING_CTRL_ENABLE) &&
           s->fault_code == WDDMSEG_FAULT_NONE && !s->hung &&
           s->ring_head != s->ring_tail && runstate_is_running();
}

/* Run the engine soon (never inside the register write that asks). */
static void wddmseg_engine_kick(WddmsegState *s)
{
    if (wddmseg_engine_runnable(s)) {
        qemu_bh_schedule(s->bh);
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
    s->cmd_active = false;
    if (s->fault_code != WDDMSEG_FAULT_NONE) {
        return;
    }
    s->fault_code = code;
    s->fault_head = s->ring_head;
    wddmseg_irq_raise(s, WDDMSEG_IRQ_ERROR);
}

/* RING_CTRL.RESET, and part of device reset. */
static void wddmseg_engine_reset(WddmsegState *s)
{
    qemu_bh_cancel(s->bh);
    s->engine_gen++;
    s->ring_ctrl = 0;
    s->ring_head = 0;
    s->ring_tail = 0;
    s->fault_code = WDDMSEG_FAULT_NONE;
    s->fault_head = 0;
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
    }
    return -1;
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
    s->cache[0].count = 0;
    s->cache[1].count = 0;
    return WDDMSEG_FAULT_NONE;
}

/*
 * A "loc" of a command (3 words) covering size bytes: a segment id and a
 * byte offset, or (id 0) a page list and a byte offset into the memory it
 * describes.
 */
static uint32_t wddmseg_cmd_loc(WddmsegState *s, const uint64_t *w,
                                uint64_t size, WddmsegListCache *cache,
                                WddmsegLoc *loc, const char **why)
{
    uint64_t last;

    if (w[0] >> 32) {
        *why = "location: reserved bits of the segment id word set";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (w[0] == 0) {
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
        loc->kind = WDDMSEG_LOC_PAGES;
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

/* Move n bytes between two runs (n <= both lengths). */
static uint32_t wddmseg_move(WddmsegState *s, const WddmsegSpan *src,
                             const WddmsegSpan *dst, uint64_t n,
                             const char **why)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    MemTxResult r;

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
 * clocksource, its timers, a doorbell) waits for the whole piece, and the
 * mutex handoff at the end of a bottom half often goes back to the main
 * loop, so a vCPU could wait for a whole 64 MiB move (seen in the guest
 * as 1-11 ms doorbell writes). The caller mapped both sides (VRAM, or
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
    qemu_mutex_unlock_iothread();
    memcpy(to, from, n);
    qemu_mutex_lock_iothread();
    guard->engaged_in_io = engaged;
    s->copy_unlocked = false;
    qemu_cond_broadcast(&s->copy_cond);
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
            if (src->kind != WDDMSEG_LOC_VRAM &&
                dst->kind != WDDMSEG_LOC_VRAM) {
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
        p = wddmseg_may_unlock(n) ?
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
    if (vram->kind != WDDMSEG_LOC_VRAM) {
        *why = encrypt ? "ENCRYPT: the source is not VRAM of a segment" :
                         "DECRYPT: the destination is not VRAM of a segment";
        return WDDMSEG_FAULT_PROTECTION;
    }
    if ((s->layout.segs[vram_w[0] - 1].flags & need) != need) {
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

/*
 * MAP_APERTURE / UNMAP_APERTURE: entries [OffsetInPages, +NumberOfPages)
 * of an aperture segment's table, from a page list or all one dummy page.
 */
static uint32_t wddmseg_map(WddmsegState *s, bool map, uint64_t *budget,
                            bool *done, const char **why)
{
    uint64_t seg_word = s->cmd[1], first = s->cmd[2], count = s->cmd[3];
    uint64_t addr = s->cmd[4];
    uint64_t reserved = map ? ~(UINT32_MAX | WDDMSEG_MAP_CACHE_COHERENT) :
                              ~(uint64_t)UINT32_MAX;
    uint32_t id = seg_word, i, code;
    uint64_t entry, *table;

    if (seg_word & reserved) {
        *why = "reserved bits of the segment word set";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    if (id == 0 || id > s->layout.seg_count ||
        !(s->layout.segs[id - 1].flags & DXGK_SEGFLAG_APERTURE)) {
        *why = "segment is not an aperture";
        return WDDMSEG_FAULT_BAD_PACKET;
    }
    i = id - 1;
    if (first > s->apt_pages[i] || count > s->apt_pages[i] - first) {
        *why = "pages outside the aperture's page table";
        return WDDMSEG_FAULT_OUT_OF_RANGE;
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
    /* The cache-coherent bit is accepted; the model is always coherent. */
    table = &s->apt[s->apt_first[i] + first];
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
        table[s->cmd_done++] = entry;
        *budget -= MIN(*budget, WDDMSEG_APT_ENTRY_COST);
    }
    *done = true;
    return WDDMSEG_FAULT_NONE;
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
    default:
        /* Only a corrupt migration stream gets here. */
        *why = "unknown opcode";
        return WDDMSEG_FAULT_BAD_OPCODE;
    }
    *done = true;
    return WDDMSEG_FAULT_NONE;
}

/*
 * The bottom half: at most WDDMSEG_BATCH_CMDS commands and x-batch-bytes
 * moved, then reschedule while work remains.
 */
static void wddmseg_engine_batch(WddmsegState *s)
{
    uint64_t budget = s->batch_bytes;
    const char *why = NULL;
    unsigned int n;
    uint32_t code;
    bool done;

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
            break;
        }
        s->ring_head = (s->ring_head +
                        WDDMSEG_CMD_QWORDS(s->cmd[0]) * sizeof(uint64_t)) &
                       (s->ring_size - 1);
        s->cmd_active = false;
    }
    wddmseg_engine_kick(s);
}

static void wddmseg_engine_run(void *opaque)
{
    WddmsegState *s = opaque;

    /* The BQL may be dropped meanwhile: keep the device alive. */
    object_ref(OBJECT(s));
    wddmseg_engine_batch(s);
    object_unref(OBJECT(s));
}

static void wddmseg_vm_state_change(void *opaque, bool running,
                                    RunState state)
{
    WddmsegState *s = opaque;

    if (running) {
        wddmseg_engine_kick(s);
        return;
    }
    /* Stopped: let a piece running without the BQL finish first. */
    while (s->copy_unlocked) {
        qemu_cond_wait_iothread(&s->copy_cond);
    }
}

/* Base, size, head and tail the engine can run with. */
static bool wddmseg_ring_valid(WddmsegState *s, const char **why)
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
    wddmseg_engine_kick(s);
}

/* The doorbell. A tail the ring cannot have is a fault. */
static void wddmseg_ring_tail_write(WddmsegState *s, uint32_t val)
{
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

static bool wddmseg_ring_read(WddmsegState *s, hwaddr addr, uint32_t *val)
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

static bool wddmseg_ring_write(WddmsegState *s, hwaddr addr, uint32_t val)
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

/* ------------------------------------------------------------------------ */
/* Display controller                                                       */
/* ------------------------------------------------------------------------ */

static bool wddmseg_scanout_enabled(const WddmsegScanout *c)
{
    return c->ctrl & WDDMSEG_SCANOUT_CTRL_ENABLE;
}

static unsigned int wddmseg_scanout_cpp(uint32_t format)
{
    return format == WDDMSEG_SCANOUT_FMT_RGB565 ? 2 : 4;
}

/*
 * The rules a configuration must pass to be latched, checked in the order
 * of the WDDMSEG_SCANOUT_ERR_* codes: the first one broken decides, and
 * why says what it was. A disabled configuration always passes.
 */
static uint32_t wddmseg_scanout_check(WddmsegState *s,
                                      const WddmsegScanout *c,
                                      char *why, size_t len)
{
    const WddmsegSegment *seg;
    uint64_t line, need;

    if (!wddmseg_scanout_enabled(c)) {
        return WDDMSEG_SCANOUT_ERR_NONE;
    }
    if (c->segment == 0 || c->segment > s->layout.seg_count) {
        snprintf(why, len, "segment id %u is not in the table (SEG_COUNT "
                 "%u)", c->segment, s->layout.seg_count);
        return WDDMSEG_SCANOUT_ERR_SEGMENT;
    }
    seg = &s->layout.segs[c->segment - 1];
    if (seg->flags & (DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_AGP)) {
        snprintf(why, len, "segment %u is an %s segment, not a memory "
                 "segment", c->segment,
                 seg->flags & DXGK_SEGFLAG_APERTURE ? "Aperture" : "Agp");
        return WDDMSEG_SCANOUT_ERR_SEGMENT;
    }
    if (!(seg->flags & DXGK_SEGFLAG_DIRECT_FLIP)) {
        snprintf(why, len, "segment %u (flags 0x%x) lacks DirectFlip",
                 c->segment, seg->flags);
        return WDDMSEG_SCANOUT_ERR_NOT_DIRECT_FLIP;
    }
    if ((c->format & ~WDDMSEG_SCANOUT_FMT_ALL) || ctpop32(c->format) != 1) {
        snprintf(why, len, "FORMAT 0x%x is not exactly one bit of FORMATS "
                 "0x%x", c->format, WDDMSEG_SCANOUT_FMT_ALL);
        return WDDMSEG_SCANOUT_ERR_FORMAT;
    }
    if (!c->width || c->width > s->max_width ||
        !c->height || c->height > s->max_height) {
        snprintf(why, len, "size %ux%u outside 1x1..%ux%u", c->width,
                 c->height, s->max_width, s->max_height);
        return WDDMSEG_SCANOUT_ERR_SIZE;
    }
    line = (uint64_t)c->width * wddmseg_scanout_cpp(c->format);
    if (c->pitch < line || c->pitch % 4) {
        snprintf(why, len, "PITCH %u is below WIDTH * bytes per pixel = %"
                 PRIu64 " or not a multiple of 4", c->pitch, line);
        return WDDMSEG_SCANOUT_ERR_PITCH;
    }
    /* Both at most 2^32 * 2^14: no overflow. */
    need = (uint64_t)c->pitch * (c->height - 1) + line;
    if (c->offset > seg->size || need > seg->size - c->offset) {
        snprintf(why, len, "framebuffer [0x%" PRIx64 ", +0x%" PRIx64 ") "
                 "leaves segment %u of 0x%" PRIx64 " bytes", c->offset, need,
                 c->segment, seg->size);
        return WDDMSEG_SCANOUT_ERR_RANGE;
    }
    /* offset + need <= seg->size now, so no overflow either. */
    if (seg->base > s->vram_size ||
        c->offset + need > s->vram_size - seg->base) {
        snprintf(why, len, "framebuffer in segment %u (BaseAddress 0x%"
                 PRIx64 ") ends past the 0x%" PRIx64 " bytes of VRAM",
                 c->segment, seg->base, s->vram_size);
        return WDDMSEG_SCANOUT_ERR_RANGE;
    }
    if (c->refresh_mhz < WDDMSEG_SCANOUT_REFRESH_MIN ||
        c->refresh_mhz > WDDMSEG_SCANOUT_REFRESH_MAX) {
        snprintf(why, len, "REFRESH_MHZ %u outside %u..%u", c->refresh_mhz,
                 WDDMSEG_SCANOUT_REFRESH_MIN, WDDMSEG_SCANOUT_REFRESH_MAX);
        return WDDMSEG_SCANOUT_ERR_REFRESH;
    }
    return WDDMSEG_SCANOUT_ERR_NONE;
}

/*
 * Vblank n of the active timing is at vblank_epoch + n * period, computed
 * exactly (period = 10^12 / REFRESH_MHZ ns is rarely an integer), so the
 * vblanks do not drift however long the scanout runs: this is the first
 * nanosecond at or after that instant, so that wddmseg_vblanks_until()
 * counts vblank n at the returned time.
 */
static int64_t wddmseg_vblank_time(WddmsegState *s, uint64_t n)
{
    uint64_t lo, hi;

    mulu64(&lo, &hi, n, WDDMSEG_NS_PER_MILLIHERTZ);
    if (divu128(&lo, &hi, s->sc_active.refresh_mhz)) {
        lo++;
    }
    return s->vblank_epoch + lo;
}

/* Vblanks of the active timing at or before now (rounded down). */
static uint64_t wddmseg_vblanks_until(WddmsegState *s, int64_t now)
{
    uint64_t lo, hi;

    if (now <= s->vblank_epoch) {
        return 0;
    }
    mulu64(&lo, &hi, now - s->vblank_epoch, s->sc_active.refresh_mhz);
    divu128(&lo, &hi, WDDMSEG_NS_PER_MILLIHERTZ);
    return lo;
}

/* The timer runs while the active configuration is enabled, no longer. */
static void wddmseg_vblank_arm(WddmsegState *s)
{
    if (wddmseg_scanout_enabled(&s->sc_active)) {
        timer_mod(s->vblank_timer,
                  wddmseg_vblank_time(s, s->vblank_frames + 1));
    } else {
        timer_del(s->vblank_timer);
    }
}

/*
 * Latch the pending configuration, at the vblank at time when (or at once
 * when the scanout is disabled). A refused one leaves the active
 * configuration alone; either way PENDING clears and IRQ_VBLANK fires.
 */
static void wddmseg_scanout_latch(WddmsegState *s, int64_t when)
{
    char why[192];
    uint32_t err;

    s->sc_armed = false;
    err = wddmseg_scanout_check(s, &s->sc_pending, why, sizeof(why));
    if (err != WDDMSEG_SCANOUT_ERR_NONE) {
        qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: scanout commit refused "
                      "(SCANOUT_ERROR %u): %s\n", err, why);
        s->sc_refused = true;
        s->sc_error = err;
        wddmseg_irq_raise(s, WDDMSEG_IRQ_VBLANK | WDDMSEG_IRQ_SCANOUT_ERROR);
        return;
    }
    s->sc_refused = false;
    s->sc_active = s->sc_pending;
    /* A new timing starts at this vblank. */
    s->vblank_epoch = when;
    s->vblank_frames = 0;
    wddmseg_vblank_arm(s);
    wddmseg_irq_raise(s, WDDMSEG_IRQ_VBLANK);
}

/*
 * The vblank timer. Every vblank since the last one counts, in case the
 * timer ran late (one interrupt for all of them); a commit armed before
 * latches at the last one.
 */
static void wddmseg_vblank(void *opaque)
{
    WddmsegState *s = opaque;
    uint64_t n;

    if (!wddmseg_scanout_enabled(&s->sc_active)) {
        return;
    }
    n = wddmseg_vblanks_until(s, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    if (n <= s->vblank_frames) {
        /* Early (the clock moved under us): try again at the deadline. */
        wddmseg_vblank_arm(s);
        return;
    }
    s->vblank_count += n - s->vblank_frames;
    s->vblank_frames = n;
    if (s->sc_armed) {
        wddmseg_scanout_latch(s, wddmseg_vblank_time(s, n));
    } else {
        wddmseg_irq_raise(s, WDDMSEG_IRQ_VBLANK);
    }
    wddmseg_vblank_arm(s);
}

static void wddmseg_scanout_commit(WddmsegState *s, uint32_t val)
{
    if (val != 1) {
        qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: SCANOUT_COMMIT write of "
                      "0x%x: only 1 arms a commit%s\n", val,
                      (val & 1) ? " (other bits ignored)" : "");
    }
    if (!(val & 1)) {
        return;
    }
    if (wddmseg_scanout_enabled(&s->sc_active)) {
        /* The vblank timer runs: latch at the next vblank. */
        s->sc_armed = true;
        return;
    }
    wddmseg_scanout_latch(s, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
}

static bool wddmseg_scanout_read(WddmsegState *s, hwaddr addr, uint32_t *val)
{
    const WddmsegScanout *p = &s->sc_pending;

    switch (addr) {
    case WDDMSEG_REG_SCANOUT_MAX_WIDTH:
        *val = s->max_width;
        return true;
    case WDDMSEG_REG_SCANOUT_MAX_HEIGHT:
        *val = s->max_height;
        return true;
    case WDDMSEG_REG_SCANOUT_FORMATS:
        *val = WDDMSEG_SCANOUT_FMT_ALL;
        return true;
    case WDDMSEG_REG_SCANOUT_CTRL:
        *val = p->ctrl;
        return true;
    case WDDMSEG_REG_SCANOUT_SEGMENT:
        *val = p->segment;
        return true;
    case WDDMSEG_REG_SCANOUT_OFFSET_LO:
    case WDDMSEG_REG_SCANOUT_OFFSET_HI:
        *val = wddmseg_lo_hi(p->offset, addr, WDDMSEG_REG_SCANOUT_OFFSET_LO);
        return true;
    case WDDMSEG_REG_SCANOUT_WIDTH:
        *val = p->width;
        return true;
    case WDDMSEG_REG_SCANOUT_HEIGHT:
        *val = p->height;
        return true;
    case WDDMSEG_REG_SCANOUT_PITCH:
        *val = p->pitch;
        return true;
    case WDDMSEG_REG_SCANOUT_FORMAT:
        *val = p->format;
        return true;
    case WDDMSEG_REG_SCANOUT_REFRESH_MHZ:
        *val = p->refresh_mhz;
        return true;
    case WDDMSEG_REG_SCANOUT_COMMIT:
        *val = 0;
        return true;
    case WDDMSEG_REG_SCANOUT_STATUS:
        *val = (wddmseg_scanout_enabled(&s->sc_active) ?
                WDDMSEG_SCANOUT_STATUS_ENABLED : 0) |
               (s->sc_armed ? WDDMSEG_SCANOUT_STATUS_PENDING : 0) |
               (s->sc_refused ? WDDMSEG_SCANOUT_STATUS_REFUSED : 0);
        return true;
    case WDDMSEG_REG_SCANOUT_ERROR:
        *val = s->sc_error;
        return true;
    case WDDMSEG_REG_SCANOUT_ACTIVE_SEGMENT:
        *val = s->sc_active.segment;
        return true;
    case WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_LO:
    case WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_HI:
        *val = wddmseg_lo_hi(s->sc_active.offset, addr,
                             WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_LO);
        return true;
    case WDDMSEG_REG_VBLANK_COUNT:
        *val = s->vblank_count;
        return true;
    }
    return false;
}

/* False for registers that are not writable. */
static bool wddmseg_scanout_write(WddmsegState *s, hwaddr addr, uint32_t val)
{
    WddmsegScanout *p = &s->sc_pending;

    switch (addr) {
    case WDDMSEG_REG_SCANOUT_CTRL:
        if (val & ~(uint32_t)WDDMSEG_SCANOUT_CTRL_ENABLE) {
            qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: unknown SCANOUT_CTRL "
                          "bits 0x%x ignored\n",
                          val & ~(uint32_t)WDDMSEG_SCANOUT_CTRL_ENABLE);
        }
        p->ctrl = val & WDDMSEG_SCANOUT_CTRL_ENABLE;
        return true;
    case WDDMSEG_REG_SCANOUT_SEGMENT:
        p->segment = val;
        return true;
    case WDDMSEG_REG_SCANOUT_OFFSET_LO:
        p->offset = deposit64(p->offset, 0, 32, val);
        return true;
    case WDDMSEG_REG_SCANOUT_OFFSET_HI:
        p->offset = deposit64(p->offset, 32, 32, val);
        return true;
    case WDDMSEG_REG_SCANOUT_WIDTH:
        p->width = val;
        return true;
    case WDDMSEG_REG_SCANOUT_HEIGHT:
        p->height = val;
        return true;
    case WDDMSEG_REG_SCANOUT_PITCH:
        p->pitch = val;
        return true;
    case WDDMSEG_REG_SCANOUT_FORMAT:
        p->format = val;
        return true;
    case WDDMSEG_REG_SCANOUT_REFRESH_MHZ:
        p->refresh_mhz = val;
        return true;
    case WDDMSEG_REG_SCANOUT_COMMIT:
        wddmseg_scanout_commit(s, val);
        return true;
    }
    return false;
}

/* Device reset: disabled, nothing pending, counters 0, no timer. */
static void wddmseg_scanout_reset(WddmsegState *s)
{
    memset(&s->sc_pending, 0, sizeof(s->sc_pending));
    memset(&s->sc_active, 0, sizeof(s->sc_active));
    s->sc_armed = false;
    s->sc_refused = false;
    s->sc_error = WDDMSEG_SCANOUT_ERR_NONE;
    s->vblank_count = 0;
    s->vblank_epoch = 0;
    s->vblank_frames = 0;
    timer_del(s->vblank_timer);
}

/* ------------------------------------------------------------------------ */
/* Graphic console                                                          */
/* ------------------------------------------------------------------------ */

static bool wddmseg_view_equal(const WddmsegView *a, const WddmsegView *b)
{
    return a->enabled == b->enabled && a->vram_off == b->vram_off &&
           a->width == b->width && a->height == b->height &&
           a->pitch == b->pitch && a->format == b->format;
}

/*
 * Point the console at what the active configuration shows: a surface on
 * the framebuffer in VRAM itself when pixman can use it as it is (4-byte
 * aligned start, pitch fits an int), else a shadow copy refreshed at every
 * update; a disabled scanout shows a black surface of the last size.
 */
static void wddmseg_view_apply(WddmsegState *s, const WddmsegView *v)
{
    pixman_format_code_t fmt;
    DisplaySurface *ds;
    uint8_t *old_shadow = s->shadow;
    uint32_t stride;

    s->shadow = NULL;
    if (!v->enabled) {
        ds = qemu_create_displaysurface(v->width, v->height);
    } else {
        fmt = v->format == WDDMSEG_SCANOUT_FMT_RGB565 ? PIXMAN_r5g6b5 :
                                                        PIXMAN_x8r8g8b8;
        if (v->vram_off % 4 == 0 && v->pitch <= INT_MAX) {
            ds = qemu_create_displaysurface_from(v->width, v->height, fmt,
                                                 v->pitch,
                                                 s->vram_ptr + v->vram_off);
        } else {
            stride = ROUND_UP(v->width * wddmseg_scanout_cpp(v->format), 4);
            s->shadow = g_malloc0((size_t)stride * v->height);
            ds = qemu_create_displaysurface_from(v->width, v->height, fmt,
                                                 stride, s->shadow);
        }
    }
    dpy_gfx_replace_surface(s->con, ds);
    g_free(old_shadow);
    s->view = *v;
    s->view_valid = true;
}

/*
 * GraphicHwOps.gfx_update, also what a screendump runs first. The copy
 * engine and the CPU write VRAM behind the console's back, so every update
 * is a full one: the surface shows VRAM as it is now.
 */
static void wddmseg_gfx_update(void *opaque)
{
    WddmsegState *s = opaque;
    const WddmsegScanout *c = &s->sc_active;
    WddmsegView v = { 0 };
    uint32_t line, stride, y;

    if (wddmseg_scanout_enabled(c)) {
        v.enabled = true;
        v.vram_off = s->layout.segs[c->segment - 1].base + c->offset;
        v.width = c->width;
        v.height = c->height;
        v.pitch = c->pitch;
        v.format = c->format;
    } else {
        v.width = s->view_valid ? s->view.width : WDDMSEG_BLANK_WIDTH;
        v.height = s->view_valid ? s->view.height : WDDMSEG_BLANK_HEIGHT;
    }
    if (!s->view_valid || !wddmseg_view_equal(&v, &s->view)) {
        wddmseg_view_apply(s, &v);
    } else if (!v.enabled) {
        return;
    }
    if (s->shadow) {
        line = v.width * wddmseg_scanout_cpp(v.format);
        stride = ROUND_UP(line, 4);
        for (y = 0; y < v.height; y++) {
            memcpy(s->shadow + (size_t)y * stride,
                   s->vram_ptr + v.vram_off + (uint64_t)y * v.pitch, line);
        }
    }
    dpy_gfx_update_full(s->con);
}

static const GraphicHwOps wddmseg_gfx_ops = {
    .gfx_update = wddmseg_gfx_update,
};

/* ------------------------------------------------------------------------ */
/* BAR0 dispatch                                                            */
/* ------------------------------------------------------------------------ */

static uint64_t wddmseg_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    WddmsegState *s = opaque;
    uint32_t val = 0;
    bool known = false;

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
        /* Read-only: limits, STATUS, ERROR, ACTIVE_*, VBLANK_COUNT. */
        known = wddmseg_scanout_read(s, addr, &dummy);
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

    if (s->batch_bytes < WDDMSEG_PAGE_SIZE || s->batch_bytes > GiB) {
        error_setg(errp, "x-batch-bytes must be in [4 KiB, 1 GiB]");
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
    s->vram_ptr = memory_region_get_ram_ptr(&s->vram);

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
        s->apt = NULL;
        return;
    }
    msix_vector_use(pdev, 0);

    /* The TRANSFER_ENCRYPTED key, for the life of the device. */
    qemu_guest_getrandom_nofail(s->key, sizeof(s->key));

    s->bh = qemu_bh_new_guarded(wddmseg_engine_run, s,
                                &DEVICE(s)->mem_reentrancy_guard);
    s->bounce = g_malloc(WDDMSEG_BOUNCE_SIZE + 8);
    qemu_cond_init(&s->copy_cond);
    s->vmstate_change = qemu_add_vm_change_state_handler(
        wddmseg_vm_state_change, s);

    /* Display controller: disabled, the console black until enabled. */
    s->vblank_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, wddmseg_vblank, s);
    s->con = graphic_console_init(DEVICE(pdev), 0, &wddmseg_gfx_ops, s);
}

/* MSI-X enable and INTx disable change where the interrupt goes. */
static void wddmseg_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val,
                                 int len)
{
    pci_default_write_config(pdev, addr, val, len);
    wddmseg_irq_update(WDDMSEG(pdev));
}

static void wddmseg_exit(PCIDevice *pdev)
{
    WddmsegState *s = WDDMSEG(pdev);

    graphic_console_close(s->con);
    g_free(s->shadow);
    s->shadow = NULL;
    timer_free(s->vblank_timer);
    qemu_del_vm_change_state_handler(s->vmstate_change);
    while (s->copy_unlocked) {  /* a piece running without the BQL */
        qemu_cond_wait_iothread(&s->copy_cond);
    }
    qemu_bh_delete(s->bh);
    qemu_cond_destroy(&s->copy_cond);
    g_free(s->bounce);
    s->bounce = NULL;
    msix_uninit_exclusive_bar(pdev);
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

    /*
     * The TRANSFER_ENCRYPTED key stays: pages a driver encrypted out of a
     * protected segment before a reset (S3, a system reset) must still
     * decrypt after it.
     */
}

static int wddmseg_post_load(void *opaque, int version_id)
{
    WddmsegState *s = opaque;
    const char *why = NULL;
    char why_buf[192];
    uint32_t err;

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
        (s->sc_pending.ctrl & ~WDDMSEG_SCANOUT_CTRL_ENABLE) ||
        (s->sc_armed && !wddmseg_scanout_enabled(&s->sc_active))) {
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
    .fields = (VMStateField[]) {
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
    DEFINE_PROP_SIZE("x-batch-bytes", WddmsegState, batch_bytes,
                     WDDMSEG_DEFAULT_BATCH_BYTES),
    DEFINE_PROP_UINT32("max-width", WddmsegState, max_width,
                       WDDMSEG_DEFAULT_MAX_WIDTH),
    DEFINE_PROP_UINT32("max-height", WddmsegState, max_height,
                       WDDMSEG_DEFAULT_MAX_HEIGHT),
    DEFINE_PROP_END_OF_LIST(),
};

static void wddmseg_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
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
    object_class_property_set_description(klass, "x-batch-bytes",
        "Bytes the copy engine moves per bottom-half run, 4K..1G (a test "
        "hook: smaller runs make a long copy span several)");
    object_class_property_set_description(klass, "max-width",
        "Widest scanout in pixels, 1..16384 (SCANOUT_MAX_WIDTH)");
    object_class_property_set_description(klass, "max-height",
        "Tallest scanout in lines, 1..16384 (SCANOUT_MAX_HEIGHT)");
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
