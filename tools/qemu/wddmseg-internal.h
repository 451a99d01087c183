/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg: the device state and what the parts of the model share
 *
 * wddmseg.c          QOM type, properties, realize/exit/reset, VMState,
 *                    BAR0 dispatch, interrupts, the VRAM window (BAR4),
 *                    the aperture page tables, PEEK
 * wddmseg-layout.c   the layout property parser, the default layout
 * wddmseg-engine.c   the copy engine: ring, command fetch and execution,
 *                    copy/fill/map, encrypted transfers, copies without
 *                    the BQL
 * wddmseg-display.c  the display controller: scanout, vblank, console
 * wddmseg-mmu.c      the GPU MMU: page-table walker, TLBs, hardware
 *                    contexts and their queues, the VA ring commands
 *
 * The register map is wddmseg_hw.h, the one header the device shares with
 * the Linux driver.
 */

#ifndef HW_DISPLAY_WDDMSEG_INTERNAL_H
#define HW_DISPLAY_WDDMSEG_INTERNAL_H

#include "qemu/thread.h"
#include "qemu/units.h"
#include "hw/pci/pci_device.h"
#include "qom/object.h"
#include "system/runstate.h"
#include "ui/console.h"

#include "wddmseg_hw.h"

#define TYPE_WDDMSEG "wddmseg"
OBJECT_DECLARE_SIMPLE_TYPE(WddmsegState, WDDMSEG)

/* Page size of the aperture page tables (and of WDDM). */
#define WDDMSEG_PAGE_SIZE       (4 * KiB)

/* The largest command, in qwords. */
#define WDDMSEG_CMD_MAX_QWORDS  WDDMSEG_TRANSFER_ENCRYPTED_QWORDS

/* The device's TRANSFER_ENCRYPTED key (SipHash-2-4 takes 128 bits). */
#define WDDMSEG_KEY_QWORDS      2

/* System-to-system copies and FILL patterns go through this buffer. */
#define WDDMSEG_BOUNCE_SIZE     (64 * KiB)

/* Page list entries read from guest memory at once. */
#define WDDMSEG_LIST_CACHE      512

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

/* GPU MMU geometry (hw.h, MMU_*): 3 levels of 512 entries, 39-bit VAs. */
#define WDDMSEG_MMU_LEVELS      3
#define WDDMSEG_MMU_LEVEL_BITS  9
#define WDDMSEG_MMU_VA_BITS     \
    (12 + WDDMSEG_MMU_LEVELS * WDDMSEG_MMU_LEVEL_BITS)
#define WDDMSEG_MMU_PT_SIZE     (4 * KiB)
#define WDDMSEG_MMU_PT_ENTRIES  (WDDMSEG_MMU_PT_SIZE / 8)
/* Address-space TLBs, and the entries of each (direct mapped by VPN). */
#define WDDMSEG_MMU_TLBS        8
#define WDDMSEG_TLB_ENTRIES     64
/* Context queue size limits (bytes). */
#define WDDMSEG_CTX_QUEUE_MIN   (4 * KiB)
#define WDDMSEG_CTX_QUEUE_MAX   (64 * KiB)
/* The longest context command, in qwords. */
#define WDDMSEG_CQ_MAX_QWORDS   4

/* One cached translation: a page's leaf entry, as read from its table. */
typedef struct WddmsegTlbEntry {
    uint64_t vpn;               /* VA >> 12 */
    uint64_t pte;               /* 0: empty slot */
} WddmsegTlbEntry;

/* The TLB of one address space, named by its root table's GPU address. */
typedef struct WddmsegTlb {
    bool used;
    uint64_t root;
    uint64_t stamp;             /* last use, for replacement */
    WddmsegTlbEntry e[WDDMSEG_TLB_ENTRIES];
} WddmsegTlb;

/* A hardware context: its root, its queue, its fault and its fence. */
typedef struct WddmsegCtx {
    uint64_t root;              /* bound root page table (0: none) */
    uint32_t root_lo;           /* ROOT_LO as written, until ROOT_HI */
    uint64_t q_base;
    uint32_t q_size;
    uint32_t q_head;
    uint32_t q_tail;
    uint32_t ctrl;              /* WDDMSEG_CTX_CTRL_ENABLE or 0 */
    bool faulted;
    uint32_t fault_info;        /* WDDMSEG_MMU_INFO() */
    uint64_t fault_va;
    uint32_t fault_head;
    uint64_t fence;             /* last CQ_FENCE value */
    bool cmd_active;            /* cmd fetched, cmd_done bytes done */
    uint64_t cmd[WDDMSEG_CQ_MAX_QWORDS];
    uint64_t cmd_done;
} WddmsegCtx;

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
    uint32_t ctrl;              /* WDDMSEG_SCANOUT_CTRL_* */
    uint32_t segment;           /* segment id */
    uint64_t offset;            /* byte offset inside the segment */
    uint32_t width;             /* pixels */
    uint32_t height;            /* lines */
    uint32_t pitch;             /* bytes per line */
    uint32_t format;            /* one WDDMSEG_SCANOUT_FMT_* bit */
    uint32_t refresh_mhz;       /* millihertz */
    /* Cursor (FEAT_CURSOR): CURSOR_CTRL .. CURSOR_Y */
    uint32_t cur_ctrl;          /* WDDMSEG_CURSOR_CTRL_ENABLE or 0 */
    uint32_t cur_segment;       /* segment id */
    uint64_t cur_offset;        /* byte offset inside the segment */
    uint32_t cur_size;          /* WDDMSEG_CURSOR_SIZE(width, height) */
    uint32_t cur_pitch;         /* bytes per line */
    int32_t cur_x;              /* top-left pixel, may be off screen */
    int32_t cur_y;
    /* Gamma LUT (FEAT_GAMMA): GAMMA_CTRL and the 256 entries */
    uint32_t gamma_ctrl;        /* WDDMSEG_GAMMA_CTRL_ENABLE or 0 */
    uint32_t gamma[WDDMSEG_GAMMA_SIZE]; /* 0x00RRGGBB per input level */
    /* Composition (1.10): the primary's rectangle, 0 size: whole mode */
    uint32_t plane_x;
    uint32_t plane_y;
    uint32_t plane_size;        /* 0 or WDDMSEG_CURSOR_SIZE(width, height) */
} WddmsegScanout;

/* What the graphic console shows (a function of the active scanout). */
typedef struct WddmsegView {
    bool enabled;               /* false: a black surface */
    uint64_t vram_off;          /* first pixel, as a VRAM offset */
    uint32_t width;
    uint32_t height;
    uint32_t pitch;
    uint32_t format;
    bool composed;              /* cursor or gamma: an XRGB8888 shadow */
} WddmsegView;

/* Where a command's bytes are, after validation. */
typedef enum WddmsegLocKind {
    WDDMSEG_LOC_VRAM,           /* contiguous VRAM from addr */
    WDDMSEG_LOC_APERTURE,       /* aperture segment seg from offset addr */
    WDDMSEG_LOC_PAGES,          /* page list at addr, from byte offset */
    WDDMSEG_LOC_DMA,            /* contiguous system memory from addr */
    WDDMSEG_LOC_VRAM_PAGES,     /* VRAM page list of segment seg at addr */
} WddmsegLocKind;

typedef struct WddmsegLoc {
    WddmsegLocKind kind;
    unsigned int seg;           /* APERTURE, VRAM_PAGES: index (id - 1) */
    uint64_t addr;              /* see WddmsegLocKind */
    uint64_t offset;            /* (VRAM_)PAGES: byte offset into memory */
    uint64_t size;              /* bytes the command covers */
    WddmsegListCache *cache;    /* (VRAM_)PAGES */
} WddmsegLoc;

/* A run of a location: contiguous VRAM, or contiguous system memory. */
typedef struct WddmsegSpan {
    bool vram;
    uint64_t addr;              /* VRAM offset or DMA address */
    uint64_t len;
    uint8_t *copy;              /* device copy of a non-coherent page */
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
    char *vram_file;            /* persistent VRAM (PM_HIB.PERSISTENT) */
    uint64_t hib_partial;       /* PM_HIB_PARTIAL, with vram_file */

    /* Fixed at realize */
    uint32_t pm_hib;            /* PM_HIB */
    uint8_t pm_cap;             /* config offset of the PM capability */
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
    /*
     * The device's copy of each page mapped CPU-cached into an aperture
     * without CacheCoherent (hw.h, non-coherent apertures), NULL for the
     * others; not migrated (the destination reads memory).
     */
    uint8_t **apt_copy;
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
    uint32_t fault_detail;      /* FAULT_DETAIL, latched with fault_code */
    uint32_t fault_detail_next; /* what the failing command said */
    bool hung;                  /* INJECT_HANG until RING_CTRL.RESET */
    bool inject_fault;          /* INJECT_FAULT pending */

    /* The command at ring_head, once fetched, and its progress */
    bool cmd_active;
    uint64_t cmd[WDDMSEG_CMD_MAX_QWORDS];
    uint64_t cmd_done;          /* bytes (MAP/UNMAP: entries) done */

    /* Copy engine, not migrated */
    uint8_t *vram_ptr;          /* host pointer of vram */
    QemuThread engine_thread;   /* wddmseg_engine_thread() */
    QemuEvent engine_event;     /* set by wddmseg_engine_kick() */
    uint32_t engine_kicks;      /* counts wddmseg_engine_kick() */
    bool engine_quit;           /* the thread ends (unrealize) */
    uint32_t engine_poll_us;    /* x-engine-poll-us: the longest window */
    int64_t engine_poll_ns;     /* the thread's current polling window */
    VMChangeStateEntry *vmstate_change;
    uint8_t *bounce;            /* WDDMSEG_BOUNCE_SIZE + 8 bytes */
    WddmsegListCache cache[2];  /* source and destination page lists */
    uint32_t engine_gen;        /* bumped by every engine reset */
    bool copy_unlocked;         /* a piece runs without the BQL */
    QemuCond copy_cond;         /* signalled when it is done */

    /* GPU MMU (wddmseg-mmu.c) */
    uint32_t mmu_pt_seg_prop;   /* mmu-pt-segment, 0: automatic */
    uint32_t mmu_pt_seg;        /* MMU_PT_SEGMENT, 0: no MMU */
    WddmsegCtx ctx[WDDMSEG_CTX_MAX];
    uint64_t mmu_fault_va;      /* MMU_FAULT_VA: the last fault */
    uint32_t mmu_fault_info;    /* MMU_FAULT_INFO */
    /* TLBs, not migrated (the destination's are empty) */
    WddmsegTlb tlb[WDDMSEG_MMU_TLBS];
    uint64_t tlb_clock;

    /* Display controller */
    WddmsegScanout sc_pending;  /* SCANOUT_CTRL .. REFRESH_MHZ as written */
    WddmsegScanout sc_active;   /* latched at a vblank */
    bool sc_armed;              /* SCANOUT_STATUS.PENDING */
    bool sc_refused;            /* SCANOUT_STATUS.REFUSED */
    uint32_t sc_error;          /* SCANOUT_ERROR */
    uint32_t vblank_count;      /* VBLANK_COUNT */
    int64_t vblank_epoch;       /* virtual ns where the active timing began */
    uint64_t vblank_frames;     /* vblanks counted since vblank_epoch */
    uint32_t gamma_index;       /* GAMMA_INDEX: next pending entry */
    uint32_t crc_ctrl;          /* CRC_CTRL */
    uint32_t crc_value;         /* CRC_VALUE */
    uint32_t crc_frame;         /* CRC_FRAME */

    /* Power, not migrated (PMCSR is in config space) */
    Notifier suspend_notifier;  /* the guest entered S3: power goes away */
    uint32_t power_losses;      /* S3 entries, D3hot exits (a trace count) */

    /* Display controller, not migrated */
    QEMUTimer *vblank_timer;    /* QEMU_CLOCK_VIRTUAL, runs while enabled */
    QemuConsole *con;
    WddmsegView view;           /* what the console's surface is */
    bool view_valid;            /* false: replace the surface at the update */
    uint8_t *shadow;            /* copy of a framebuffer pixman cannot use */
};

/* A 64-bit register's LO or HI half. */
static inline uint32_t wddmseg_lo_hi(uint64_t v, hwaddr reg, hwaddr lo)
{
    return reg == lo ? (uint32_t)v : (uint32_t)(v >> 32);
}

#define WDDMSEG_SCANOUT_CTRL_ALL \
    ((uint32_t)(WDDMSEG_SCANOUT_CTRL_ENABLE | WDDMSEG_SCANOUT_CTRL_NO_PRIMARY))

/* Whether an enabled configuration shows a primary plane (1.10). */
static inline bool wddmseg_scanout_primary(const WddmsegScanout *c)
{
    return !(c->ctrl & WDDMSEG_SCANOUT_CTRL_NO_PRIMARY);
}

/* The primary's width and height: PLANE_SIZE, or the mode when it is 0. */
static inline uint32_t wddmseg_plane_w(const WddmsegScanout *c)
{
    return c->plane_size ? WDDMSEG_CURSOR_SIZE_W(c->plane_size) : c->width;
}

static inline uint32_t wddmseg_plane_h(const WddmsegScanout *c)
{
    return c->plane_size ? WDDMSEG_CURSOR_SIZE_H(c->plane_size) : c->height;
}

/* Whether the primary covers the whole mode at (0, 0), as before 1.10. */
static inline bool wddmseg_plane_full(const WddmsegScanout *c)
{
    return wddmseg_scanout_primary(c) && !c->plane_x && !c->plane_y &&
           wddmseg_plane_w(c) == c->width && wddmseg_plane_h(c) == c->height;
}

static inline bool wddmseg_scanout_enabled(const WddmsegScanout *c)
{
    return c->ctrl & WDDMSEG_SCANOUT_CTRL_ENABLE;
}

/* wddmseg.c */
void wddmseg_irq_raise(WddmsegState *s, uint32_t bits);

/* wddmseg-layout.c */
bool wddmseg_parse_layout(const char *str, WddmsegLayout *layout,
                          Error **errp);
void wddmseg_default_layout(WddmsegState *s, WddmsegLayout *layout);

/* wddmseg-engine.c */
uint32_t wddmseg_gpu_loc(WddmsegState *s, uint64_t addr, uint64_t size,
                         WddmsegLoc *loc, const char **why);
uint32_t wddmseg_span(WddmsegState *s, const WddmsegLoc *loc, uint64_t pos,
                      uint64_t max, WddmsegSpan *sp, const char **why);
void wddmseg_engine_reset(WddmsegState *s);
void wddmseg_apt_drop_copy(WddmsegState *s, uint32_t entry);
void wddmseg_apt_drop_copies(WddmsegState *s);
void *wddmseg_engine_thread(void *opaque);
void wddmseg_engine_stop(WddmsegState *s);
void wddmseg_vm_state_change(void *opaque, bool running, RunState state);
bool wddmseg_ring_valid(WddmsegState *s, const char **why);
bool wddmseg_ring_read(WddmsegState *s, hwaddr addr, uint32_t *val);
bool wddmseg_ring_write(WddmsegState *s, hwaddr addr, uint32_t val);
void wddmseg_engine_wake(WddmsegState *s);

/* wddmseg-mmu.c */
bool wddmseg_mmu_realize(WddmsegState *s, Error **errp);
void wddmseg_mmu_reset(WddmsegState *s);
bool wddmseg_mmu_runnable(WddmsegState *s);
void wddmseg_mmu_batch(WddmsegState *s);
int wddmseg_mmu_cmd_qwords(unsigned int op);
const char *wddmseg_mmu_cmd_name(unsigned int op);
uint32_t wddmseg_mmu_exec(WddmsegState *s, uint64_t *budget, bool *done,
                          const char **why);
bool wddmseg_mmu_read(WddmsegState *s, hwaddr addr, uint32_t *val);
bool wddmseg_mmu_write(WddmsegState *s, hwaddr addr, uint32_t val);
extern const VMStateDescription vmstate_wddmseg_mmu;

/* wddmseg-display.c */
extern const GraphicHwOps wddmseg_gfx_ops;
uint32_t wddmseg_scanout_check(WddmsegState *s, const WddmsegScanout *c,
                               char *why, size_t len);
bool wddmseg_scanout_read(WddmsegState *s, hwaddr addr, uint32_t *val);
bool wddmseg_scanout_write(WddmsegState *s, hwaddr addr, uint32_t val);
void wddmseg_compose_line(WddmsegState *s, const WddmsegScanout *c,
                          uint32_t y, uint32_t *out);
uint32_t wddmseg_frame_crc(WddmsegState *s, const WddmsegScanout *c);
void wddmseg_scanout_reset(WddmsegState *s);
void wddmseg_vblank_arm(WddmsegState *s);
void wddmseg_vblank(void *opaque);

#endif /* HW_DISPLAY_WDDMSEG_INTERNAL_H */
