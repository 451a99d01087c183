/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg qtests: the GPU MMU (device 1.9). The geometry registers, the
 * walker (multi-level translations into two memory segments and system
 * memory, tables read from VRAM), the TLB (stale until FLUSH_TLB, a range
 * flush limited to its range, a reset emptying it), each VA ring command
 * (UPDATE_PAGE_TABLE with Repeat and InitialUpdate, FLUSH_TLB,
 * TRANSFER_VIRTUAL, FILL_VIRTUAL, the refusal of COPY_PAGE_TABLE_ENTRIES)
 * and its faults, hardware contexts running copy and fill by VA, and GPU
 * page faults that stop the faulting context only.
 *
 * Default layout: segment 1 VRAM [0, 64 MiB), segment 2 VRAM [64 MiB,
 * 128 MiB): the page-table segment (MMU_PT_SEGMENT, the first memory
 * segment without CpuVisible), segment 3 an aperture. Page tables are
 * built with UPDATE_PAGE_TABLE on the ring, in segment 2 from its start;
 * BAR4's window shows them to the checks. What a VA reads is seen through
 * a "probe" address space whose one page is system memory at WQ_RES:
 * TRANSFER_VIRTUAL copies the VA's word there.
 */

#include "qemu/osdep.h"

#include "wddmseg-qtest.h"

#define SEG2 (64 * MiB)         /* GPU address of segment 2 (page tables) */
#define PTE_RAM 0x260000ULL     /* UPDATE_PAGE_TABLE entry arrays */
#define WQ_RES 0x270000ULL      /* the probe's system page */
#define CTXQ(i) (0x300000ULL + (i) * 0x10000ULL)   /* context queues */
#define CTXQ_SIZE 0x10000
#define PROBE_VA 0x7000ULL

#define ACC_R WDDMSEG_MMU_ACCESS_READ
#define ACC_W WDDMSEG_MMU_ACCESS_WRITE

/* ---- an address space, built with UPDATE_PAGE_TABLE ---------------------- */

typedef struct Space {
    uint64_t root;
    unsigned int n;             /* tables below the root */
    struct {
        uint64_t key;
        uint64_t table;
    } t[32];
} Space;

static uint64_t next_table;     /* next free table in segment 2 */
static uint64_t probe_root;
static uint32_t ctx_tail[WDDMSEG_CTX_MAX];

/* A command on the ring, after NOP padding if it would straddle its end. */
static void mmu_emit(WDev *d, const uint64_t *w, unsigned int n)
{
    if (d->rt + 8 * n > d->rs) {
        c_nop(d, (d->rs - d->rt) / 8);
    }
    emit(d, w, n);
}
#define MEMIT(d, ...) do {                                                  \
        const uint64_t w_[] = { __VA_ARGS__ };                              \
        mmu_emit((d), w_, G_N_ELEMENTS(w_));                                \
    } while (0)

/* Run the ring; it must end idle (one check line). */
static void run_ok(WDev *d, const char *what)
{
    run(d);
    check_idle(d, what);
}

/*
 * Run the ring of a setup step (building page tables): reported only if
 * it does not end idle, so that the steps do not drown the checks.
 */
static void run_setup(WDev *d, const char *what)
{
    uint32_t st = run(d);

    if (st != (WDDMSEG_RING_STATUS_ENABLED | WDDMSEG_RING_STATUS_IDLE) ||
        rd(d, WDDMSEG_REG_FAULT_CODE)) {
        check_idle(d, what);
    }
}

/* UPDATE_PAGE_TABLE of n entries from e (REPEAT: e has one), run. */
static void upt(WDev *d, uint64_t table, uint64_t first, uint64_t count,
                uint64_t flags, const uint64_t *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ram_wrq(d, PTE_RAM + 8 * i, e[i]);
    }
    MEMIT(d, hdr(WDDMSEG_OP_UPDATE_PAGE_TABLE, WDDMSEG_UPDATE_PT_QWORDS),
          table, first, count, flags, PTE_RAM);
    run_setup(d, "UPDATE_PAGE_TABLE");
}

static uint64_t new_table(WDev *d)
{
    uint64_t t = next_table;

    next_table += 4096;
    upt(d, t, 0, 0, WDDMSEG_UPDATE_PT_INITIAL, NULL, 0);
    return t;
}

static void sp_init(WDev *d, Space *sp)
{
    memset(sp, 0, sizeof(*sp));
    sp->root = new_table(d);
}

static unsigned int idx(int level, uint64_t va)
{
    return (va >> (12 + 9 * level)) & 511;
}

/* The table of level (0 the leaf) that holds va's entry, made if need be. */
static uint64_t sp_table(WDev *d, Space *sp, int level, uint64_t va)
{
    uint64_t key, table, pde;

    if (level == 2) {
        return sp->root;
    }
    key = (uint64_t)level << 60 | va >> (12 + 9 * (level + 1));
    for (unsigned int i = 0; i < sp->n; i++) {
        if (sp->t[i].key == key) {
            return sp->t[i].table;
        }
    }
    g_assert(sp->n < G_N_ELEMENTS(sp->t));
    table = new_table(d);
    pde = table | WDDMSEG_PTE_VALID;
    upt(d, sp_table(d, sp, level + 1, va), idx(level + 1, va), 1, 0, &pde, 1);
    sp->t[sp->n].key = key;
    sp->t[sp->n].table = table;
    sp->n++;
    return table;
}

/* Leaf entry of va (written with UPDATE_PAGE_TABLE, no flush). */
static void map(WDev *d, Space *sp, uint64_t va, uint64_t pte)
{
    upt(d, sp_table(d, sp, 0, va), idx(0, va), 1, 0, &pte, 1);
}

static uint64_t pte_seg(uint32_t seg, uint64_t off, uint64_t flags)
{
    return off | WDDMSEG_PTE_SEGMENT(seg) | WDDMSEG_PTE_VALID | flags;
}

static uint64_t pte_sys(uint64_t dma, uint64_t flags)
{
    return dma | WDDMSEG_PTE_VALID | flags;
}

/* The probe space: PROBE_VA is the system page WQ_RES. */
static void probe_init(WDev *d)
{
    Space sp;

    sp_init(d, &sp);
    map(d, &sp, PROBE_VA, pte_sys(WQ_RES, 0));
    probe_root = sp.root;
}

/* The 32-bit word the GPU reads at va of the space of root. */
static uint32_t va_rd(WDev *d, uint64_t root, uint64_t va)
{
    ram_wr(d, WQ_RES, 0xdeadbeef);
    MEMIT(d, hdr(WDDMSEG_OP_TRANSFER_VIRTUAL, WDDMSEG_TRANSFER_VIRTUAL_QWORDS),
          4, root, va, probe_root, PROBE_VA);
    run(d);
    return ram_rd(d, WQ_RES);
}

static void flush_space(WDev *d, uint64_t root, uint64_t start, uint64_t end)
{
    MEMIT(d, hdr(WDDMSEG_OP_FLUSH_TLB, WDDMSEG_FLUSH_TLB_QWORDS), root, start,
          end, 0);
    run_ok(d, "FLUSH_TLB");
}

static WDev *mmu_start(const char *devopts)
{
    WDev *d = wdev_start(devopts, WQ_LOG, NULL);

    wdev_command(d, true);
    ring_enable(d, WQ_RING, 64 << 10);
    next_table = SEG2;
    window(d, SEG2);
    probe_init(d);
    return d;
}

/* A word of segment 1, through BAR2. */
static void seg1_wr(WDev *d, uint64_t off, uint32_t v)
{
    vram_wr(d, off, v);
}

/* ---- contexts ------------------------------------------------------------ */

static void ctx_setup(WDev *d, unsigned int i, uint64_t root)
{
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_ROOT_LO), root);
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_ROOT_HI), root >> 32);
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_CTRL), WDDMSEG_CTX_CTRL_RESET);
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_QUEUE_BASE_LO), CTXQ(i));
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_QUEUE_BASE_HI), CTXQ(i) >> 32);
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_QUEUE_SIZE), CTXQ_SIZE);
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_CTRL), WDDMSEG_CTX_CTRL_ENABLE);
    ctx_tail[i] = 0;
}

static void ctx_emit(WDev *d, unsigned int i, const uint64_t *w,
                     unsigned int n)
{
    g_assert(ctx_tail[i] + 8 * n < CTXQ_SIZE);
    for (unsigned int k = 0; k < n; k++) {
        qtest_writeq(d->qts, CTXQ(i) + ctx_tail[i], w[k]);
        ctx_tail[i] += 8;
    }
}
#define CEMIT(d, i, ...) do {                                               \
        const uint64_t w_[] = { __VA_ARGS__ };                              \
        ctx_emit((d), (i), w_, G_N_ELEMENTS(w_));                           \
    } while (0)

static void cq_copy(WDev *d, unsigned int i, uint64_t size, uint64_t src,
                    uint64_t dst)
{
    CEMIT(d, i, hdr(WDDMSEG_CQ_COPY, WDDMSEG_CQ_COPY_QWORDS), size, src, dst);
}

static void cq_fill(WDev *d, unsigned int i, uint64_t size, uint64_t pattern,
                    uint64_t dst)
{
    CEMIT(d, i, hdr(WDDMSEG_CQ_FILL, WDDMSEG_CQ_FILL_QWORDS), size, pattern,
          dst);
}

static void cq_fence(WDev *d, unsigned int i, uint64_t value, uint64_t flags)
{
    CEMIT(d, i, hdr(WDDMSEG_CQ_FENCE, WDDMSEG_CQ_FENCE_QWORDS), value, flags);
}

static uint32_t ctx_rd(WDev *d, unsigned int i, uint32_t reg)
{
    return rd(d, WDDMSEG_CTX_REG(i, reg));
}

static uint64_t ctx_rd64(WDev *d, unsigned int i, uint32_t reg)
{
    return rd64(d, WDDMSEG_CTX_REG(i, reg));
}

static void ctx_doorbell(WDev *d, unsigned int i)
{
    wr(d, WDDMSEG_CTX_REG(i, WDDMSEG_CTX_QUEUE_TAIL), ctx_tail[i]);
}

/* Poll (bounded) until context i is idle or faulted; its STATUS. */
static uint32_t ctx_wait(WDev *d, unsigned int i)
{
    gint64 end = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
    uint32_t st;

    do {
        st = ctx_rd(d, i, WDDMSEG_CTX_STATUS);
        if (st & (WDDMSEG_CTX_STATUS_IDLE | WDDMSEG_CTX_STATUS_FAULTED)) {
            break;
        }
    } while (g_get_monotonic_time() < end);
    wdev_settle(d);
    return st;
}

static const uint32_t CTX_OK =
    WDDMSEG_CTX_STATUS_ENABLED | WDDMSEG_CTX_STATUS_IDLE;
static const uint32_t CTX_FAULTED =
    WDDMSEG_CTX_STATUS_ENABLED | WDDMSEG_CTX_STATUS_FAULTED;

/* ---- geometry ------------------------------------------------------------ */

static void test_geometry(void)
{
    WDev *d = wdev_start("", 0, NULL);

    check_true(WDDMSEG_VERSION_MINOR(rd(d, WDDMSEG_REG_VERSION)) >=
               WDDMSEG_VERSION_MINOR_GPUMMU, "VERSION is at least 1.9");
    check_eq(rd(d, WDDMSEG_REG_MMU_CAPS),
             WDDMSEG_MMU_CAPS_PRESENT | WDDMSEG_MMU_CAPS_GPU_PHYSICAL,
             "MMU_CAPS: PRESENT, page tables updated GPU_PHYSICAL");
    check_eq(rd(d, WDDMSEG_REG_MMU_VA_BITS), 39, "MMU_VA_BITS 39");
    check_eq(rd(d, WDDMSEG_REG_MMU_LEVELS), 3, "MMU_LEVELS 3");
    for (unsigned int l = 0; l < WDDMSEG_MMU_LEVEL_MAX; l++) {
        check_eq(rd(d, WDDMSEG_REG_MMU_LEVEL_BITS(l)), l < 3 ? 9 : 0,
                 "MMU_LEVEL_BITS(%u)", l);
    }
    check_eq(rd(d, WDDMSEG_REG_MMU_PT_SEGMENT), 2,
             "MMU_PT_SEGMENT 2: the first memory segment without CpuVisible");
    check_eq(rd(d, WDDMSEG_REG_MMU_PT_SIZE), 4096, "MMU_PT_SIZE 4 KiB");
    check_eq(rd(d, WDDMSEG_REG_MMU_PT_ALIGN), 4096, "MMU_PT_ALIGN 4 KiB");
    check_eq(rd(d, WDDMSEG_REG_MMU_CONTEXTS), WDDMSEG_CTX_MAX,
             "MMU_CONTEXTS %u", WDDMSEG_CTX_MAX);
    check_eq(rd(d, WDDMSEG_REG_MMU_TLB_ENTRIES), 64, "MMU_TLB_ENTRIES 64");
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_CTX), 0, "no fault after reset");
    check_eq(ctx_rd(d, 0, WDDMSEG_CTX_STATUS), WDDMSEG_CTX_STATUS_IDLE,
             "context 0 after reset: disabled, IDLE");
    wr(d, WDDMSEG_REG_MMU_VA_BITS, 48);
    check_eq(rd(d, WDDMSEG_REG_MMU_VA_BITS), 39,
             "the geometry is read-only");
    wdev_stop(d);

    d = wdev_start(",mmu-pt-segment=1", 0, NULL);
    check_eq(rd(d, WDDMSEG_REG_MMU_PT_SEGMENT), 1,
             "mmu-pt-segment=1: MMU_PT_SEGMENT 1");
    wdev_stop(d);

    d = wdev_start(",layout=0:0|0x100000000:-:16M:16M:0x1", 0, NULL);
    check_eq(rd(d, WDDMSEG_REG_MMU_CAPS), 0,
             "a layout without a memory segment: no MMU");
    check_eq(rd(d, WDDMSEG_REG_MMU_PT_SEGMENT), 0, "... MMU_PT_SEGMENT 0");
    wdev_stop(d);

    check_true(wq_refused("-device wddmseg,addr=0x4,mmu-pt-segment=3",
                          "mmu-pt-segment 3 is not a memory segment"),
               "mmu-pt-segment naming the aperture is refused");
}

/* ---- the walker ---------------------------------------------------------- */

static void test_walker(void)
{
    WDev *d = mmu_start("");
    /* VAs in different level-2, level-1 and level-0 slots. */
    static const uint64_t va[] = {
        0x0000001000ULL, 0x0000203000ULL, 0x0040000000ULL, 0x7fc0215000ULL,
    };
    Space sp;

    sp_init(d, &sp);
    seg1_wr(d, 0x30000, 0x11110000);
    seg1_wr(d, 0x30ffc, 0x11110ffc);
    window(d, SEG2 + 32 * MiB - MiB);
    win_wr(d, MiB - 0x8000, 0x22220000);    /* segment 2, offset 32M-32K */
    window(d, SEG2);
    ram_wr(d, WQ_SYS + 0x3000, 0x33330000);
    ram_wr(d, WQ_SYS + 0x5000, 0x44440000);
    map(d, &sp, va[0], pte_seg(1, 0x30000, 0));
    map(d, &sp, va[1], pte_seg(2, 32 * MiB - 0x8000, 0));
    map(d, &sp, va[2], pte_sys(WQ_SYS + 0x3000, 0));
    map(d, &sp, va[3], pte_sys(WQ_SYS + 0x5000, WDDMSEG_PTE_READ_ONLY));
    check_eq(sp.n, 7, "four VAs need 3 level-1 and 4 level-0 tables");

    check_eq(va_rd(d, sp.root, va[0]), 0x11110000,
             "VA 0x%" PRIx64 " -> segment 1 offset 0x30000", va[0]);
    check_eq(va_rd(d, sp.root, va[0] + 0xffc), 0x11110ffc,
             "VA 0x%" PRIx64 " -> last word of the page", va[0] + 0xffc);
    check_eq(va_rd(d, sp.root, va[1]), 0x22220000,
             "VA 0x%" PRIx64 " -> segment 2", va[1]);
    check_eq(va_rd(d, sp.root, va[2]), 0x33330000,
             "VA 0x%" PRIx64 " -> system memory (Segment 0)", va[2]);
    check_eq(va_rd(d, sp.root, va[3]), 0x44440000,
             "VA 0x%" PRIx64 " (ReadOnly) reads", va[3]);
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_CTX), 0, "no fault");

    /* FILL_VIRTUAL writes the physical pages behind the VAs. */
    MEMIT(d, hdr(WDDMSEG_OP_FILL_VIRTUAL, WDDMSEG_FILL_VIRTUAL_QWORDS),
          8, 0xa5a5a5a5, sp.root, va[0] + 0x100);
    MEMIT(d, hdr(WDDMSEG_OP_FILL_VIRTUAL, WDDMSEG_FILL_VIRTUAL_QWORDS),
          8, 0x5a5a5a5a, sp.root, va[2] + 0x100);
    run_ok(d, "FILL_VIRTUAL into segment 1 and system memory");
    check_eq(vram_rd(d, 0x30104), 0xa5a5a5a5,
             "FILL_VIRTUAL reached segment 1 offset 0x30104");
    check_eq(ram_rd(d, WQ_SYS + 0x3104), 0x5a5a5a5a,
             "FILL_VIRTUAL reached the system page");

    /*
     * The tables are read from VRAM: an entry the CPU writes into the
     * leaf table through BAR4 (a VA never translated before, so no TLB
     * entry) is what the walker uses.
     */
    {
        uint64_t l0 = sp_table(d, &sp, 0, va[0]);
        uint64_t pte = pte_seg(1, 0x31000, 0);

        vram_wr(d, 0x31000, 0xc0ffee00);
        win_wr(d, l0 - SEG2 + 8 * idx(0, va[0] + 0x1000), pte);
        win_wr(d, l0 - SEG2 + 8 * idx(0, va[0] + 0x1000) + 4, pte >> 32);
        check_eq(va_rd(d, sp.root, va[0] + 0x1000), 0xc0ffee00,
                 "an entry the CPU wrote into the leaf table in VRAM is used");
    }
    /* A level-1 entry cleared by the CPU: the walk faults there. */
    {
        uint64_t l1 = sp_table(d, &sp, 1, va[2]);

        win_wr(d, l1 - SEG2 + 8 * idx(1, va[2]), 0);
        flush_space(d, sp.root, 0, 0);
        va_rd(d, sp.root, va[2]);
        check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), WDDMSEG_FAULT_MMU,
                 "a level-1 entry cleared in VRAM: the walk faults");
        check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_INFO),
                 WDDMSEG_MMU_INFO(WDDMSEG_MMU_FAULT_INVALID, ACC_R, 1,
                                  WDDMSEG_MMU_CTX_PAGING),
                 "... INVALID at level 1, read, the paging engine");
    }
    wdev_stop(d);
}

/* ---- the TLB ------------------------------------------------------------- */

static void test_tlb(void)
{
    WDev *d = mmu_start("");
    const uint64_t x = 0x10000, y = 0x11000, z = 0x40000;
    Space sp, other;

    sp_init(d, &sp);
    sp_init(d, &other);
    for (unsigned int k = 0; k < 6; k++) {
        seg1_wr(d, 0x40000 + k * 0x1000, 0xaaaa0000 + k);
    }
    map(d, &sp, x, pte_seg(1, 0x40000, 0));
    map(d, &sp, y, pte_seg(1, 0x41000, 0));
    map(d, &sp, z, pte_seg(1, 0x42000, 0));
    map(d, &other, x, pte_seg(1, 0x45000, 0));
    check_eq(va_rd(d, sp.root, x), 0xaaaa0000, "x reads page 0 (cached)");
    check_eq(va_rd(d, sp.root, y), 0xaaaa0001, "y reads page 1 (cached)");
    check_eq(va_rd(d, sp.root, z), 0xaaaa0002, "z reads page 2 (cached)");
    check_eq(va_rd(d, other.root, x), 0xaaaa0005,
             "the same VA in another address space reads its own page");

    /* New entries, no flush: the TLB keeps the old translations. */
    map(d, &sp, x, pte_seg(1, 0x43000, 0));
    map(d, &sp, y, pte_seg(1, 0x44000, 0));
    map(d, &sp, z, pte_seg(1, 0x45000, 0));
    check_eq(va_rd(d, sp.root, x), 0xaaaa0000,
             "x remapped without FLUSH_TLB: still the old page (stale)");
    check_eq(va_rd(d, sp.root, y), 0xaaaa0001,
             "y remapped without FLUSH_TLB: still the old page (stale)");

    /* A flush of another address space changes nothing here. */
    flush_space(d, other.root, 0, 0);
    check_eq(va_rd(d, sp.root, x), 0xaaaa0000,
             "FLUSH_TLB of another root: x still stale");

    /* A range flush: x only. */
    flush_space(d, sp.root, x, x + 0x1000);
    check_eq(va_rd(d, sp.root, x), 0xaaaa0003,
             "after FLUSH_TLB of [x, x + 4K): x reads its new page");
    check_eq(va_rd(d, sp.root, y), 0xaaaa0001,
             "... y, outside the range, is still stale");
    check_eq(va_rd(d, sp.root, z), 0xaaaa0002,
             "... z, outside the range, is still stale");

    /* The whole address space. */
    flush_space(d, sp.root, 0, 0);
    check_eq(va_rd(d, sp.root, y), 0xaaaa0004,
             "after FLUSH_TLB of the address space: y reads its new page");
    check_eq(va_rd(d, sp.root, z), 0xaaaa0005,
             "... and z");

    /* FLUSH_TLB_ALL (other's TLB was flushed above: fill it again). */
    check_eq(va_rd(d, other.root, x), 0xaaaa0005, "other: x cached again");
    map(d, &other, x, pte_seg(1, 0x40000, 0));
    check_eq(va_rd(d, other.root, x), 0xaaaa0005,
             "other: x remapped, stale before the flush");
    MEMIT(d, hdr(WDDMSEG_OP_FLUSH_TLB, WDDMSEG_FLUSH_TLB_QWORDS), 0, 0, 0,
          WDDMSEG_FLUSH_TLB_ALL);
    run_ok(d, "FLUSH_TLB ALL");
    check_eq(va_rd(d, other.root, x), 0xaaaa0000,
             "after FLUSH_TLB ALL: other's x reads its new page");

    /* An unmapped entry is not cached: a flush-less unmap still reads. */
    {
        const uint64_t zero = 0;

        map(d, &sp, x, pte_seg(1, 0x40000, 0));
        flush_space(d, sp.root, 0, 0);
        check_eq(va_rd(d, sp.root, x), 0xaaaa0000, "x mapped and cached");
        upt(d, sp_table(d, &sp, 0, x), idx(0, x), 1, 0, &zero, 1);
        check_eq(va_rd(d, sp.root, x), 0xaaaa0000,
                 "x unmapped without FLUSH_TLB: the stale TLB still reads "
                 "it (use-after-unmap a driver must flush away)");
        flush_space(d, sp.root, x, x + 0x1000);
        va_rd(d, sp.root, x);
        check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), WDDMSEG_FAULT_MMU,
                 "x unmapped and flushed: a GPU page fault");
    }
    wdev_stop(d);
}

/* ---- UPDATE_PAGE_TABLE --------------------------------------------------- */

static void test_update_pt(void)
{
    WDev *d = mmu_start("");
    uint64_t t = next_table, off = t - SEG2;
    const uint64_t rep = pte_sys(0x123000, 0);
    const uint64_t e[3] = { 0x1001, 0x2001, 0x3001 };

    /* Garbage in the table first. */
    for (unsigned int k = 0; k < 512; k++) {
        win_wr(d, off + 8 * k, 0xeeee0000 + k);
    }
    upt(d, t, 10, 3, 0, e, 3);
    check_eq(win_rdq(d, off + 8 * 10), 0x1001, "entry 10 written");
    check_eq(win_rdq(d, off + 8 * 12), 0x3001, "entry 12 written");
    check_eq(win_rd(d, off + 8 * 9), 0xeeee0009,
             "without InitialUpdate entry 9 keeps what it had");
    check_eq(win_rd(d, off + 8 * 13), 0xeeee000d,
             "... and entry 13");

    upt(d, t, 100, 4, WDDMSEG_UPDATE_PT_REPEAT, &rep, 1);
    for (unsigned int k = 100; k < 104; k++) {
        check_eq(win_rdq(d, off + 8 * k), rep,
                 "Repeat: entry %u is the one entry given", k);
    }
    check_eq(win_rd(d, off + 8 * 104), 0xeeee0068,
             "Repeat: entry 104, past the range, untouched");

    upt(d, t, 200, 2, WDDMSEG_UPDATE_PT_INITIAL, e, 2);
    check_eq(win_rdq(d, off + 8 * 200), 0x1001, "InitialUpdate: entry 200");
    check_eq(win_rdq(d, off + 8 * 201), 0x2001, "InitialUpdate: entry 201");
    check_eq(win_rdq(d, off + 8 * 10), 0,
             "InitialUpdate: entry 10, outside the range, invalid (0)");
    check_eq(win_rdq(d, off + 8 * 511), 0,
             "InitialUpdate: entry 511 invalid (0)");
    check_eq(win_rdq(d, off), 0, "InitialUpdate: entry 0 invalid (0)");

    upt(d, t, 0, 512, WDDMSEG_UPDATE_PT_REPEAT | WDDMSEG_UPDATE_PT_INITIAL,
        &rep, 1);
    check_eq(win_rdq(d, off + 8 * 511), rep,
             "Repeat | InitialUpdate of the whole table");

    /* Faults: the engine stops at the command. */
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_UPDATE_PAGE_TABLE, WDDMSEG_UPDATE_PT_QWORDS),
         t, 0, 1, 4, PTE_RAM);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "UPDATE_PAGE_TABLE unknown flags");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_UPDATE_PAGE_TABLE, WDDMSEG_UPDATE_PT_QWORDS),
         0x10000, 0, 1, 0, PTE_RAM);
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "UPDATE_PAGE_TABLE of a table in segment 1");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_UPDATE_PAGE_TABLE, WDDMSEG_UPDATE_PT_QWORDS),
         t + 8, 0, 1, 0, PTE_RAM);
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "UPDATE_PAGE_TABLE of a table not 4 KiB aligned");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_UPDATE_PAGE_TABLE, WDDMSEG_UPDATE_PT_QWORDS),
         t, 510, 3, 0, PTE_RAM);
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "UPDATE_PAGE_TABLE past the end of the table");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_UPDATE_PAGE_TABLE, WDDMSEG_UPDATE_PT_QWORDS),
         t, 0, 1, 0, PTE_RAM + 4);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "UPDATE_PAGE_TABLE entry array not 8-byte aligned");
    check_eq(win_rdq(d, off + 8 * 511), rep,
             "no faulting UPDATE_PAGE_TABLE wrote anything");

    /* FLUSH_TLB faults. */
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FLUSH_TLB, WDDMSEG_FLUSH_TLB_QWORDS), t, 0, 0,
         WDDMSEG_FLUSH_TLB_ALL);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "FLUSH_TLB ALL with a root");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FLUSH_TLB, WDDMSEG_FLUSH_TLB_QWORDS), t, 0x800,
         0x2000, 0);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "FLUSH_TLB range not aligned");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FLUSH_TLB, WDDMSEG_FLUSH_TLB_QWORDS), t, 0x2000,
         0x1000, 0);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "FLUSH_TLB empty range");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FLUSH_TLB, WDDMSEG_FLUSH_TLB_QWORDS), t, 0, 0, 2);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "FLUSH_TLB unknown flags");
    check_eq(rd(d, WDDMSEG_REG_FAULT_DETAIL), 0,
             "FAULT_DETAIL is 0 for the faults before 1.9");
    wdev_stop(d);
}

/* ---- COPY_PAGE_TABLE_ENTRIES --------------------------------------------- */

static void test_copy_pte_refused(void)
{
    WDev *d = mmu_start("");

    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_COPY_PAGE_TABLE_ENTRIES, WDDMSEG_COPY_PTE_QWORDS),
         SEG2, SEG2 + 0x10000, 16);
    fault_end(d, WDDMSEG_FAULT_REFUSED, "COPY_PAGE_TABLE_ENTRIES");
    check_eq(rd(d, WDDMSEG_REG_FAULT_DETAIL), WDDMSEG_REFUSED_FIXED_DEPTH,
             "COPY_PAGE_TABLE_ENTRIES: FAULT_DETAIL FIXED_DEPTH (the root "
             "never grows)");
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_CTX), 0,
             "a refusal is no GPU page fault");
    ring_reset(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_DETAIL), 0,
             "RING_CTRL.RESET clears FAULT_DETAIL");
    wdev_quit(d);
    check_eq(wdev_log_count(d, "COPY_PAGE_TABLE_ENTRIES refused"), 1,
             "the refusal is logged with its reason");
    wdev_stop(d);
}

/* ---- TRANSFER_VIRTUAL and FILL_VIRTUAL ----------------------------------- */

static void test_virtual_ops(void)
{
    WDev *d = mmu_start("");
    const uint64_t a = 0x100000, b = 0x40200000;
    Space sp, dst;

    sp_init(d, &sp);
    sp_init(d, &dst);
    /* Source: 3 pages of segment 1, system memory, segment 1. */
    for (unsigned int k = 0; k < 0x400; k++) {
        seg1_wr(d, 0x50000 + 4 * k, 0x50000000 + k);
        ram_wr(d, WQ_SYS + 0x8000 + 4 * k, 0x60000000 + k);
        seg1_wr(d, 0x52000 + 4 * k, 0x70000000 + k);
    }
    map(d, &sp, a, pte_seg(1, 0x50000, 0));
    map(d, &sp, a + 0x1000, pte_sys(WQ_SYS + 0x8000, 0));
    map(d, &sp, a + 0x2000, pte_seg(1, 0x52000, WDDMSEG_PTE_READ_ONLY));
    /* Destination: segment 2, system memory, segment 2 (another space). */
    map(d, &dst, b, pte_seg(2, 0x200000, 0));
    map(d, &dst, b + 0x1000, pte_sys(WQ_SYS + 0xa000, 0));
    map(d, &dst, b + 0x2000, pte_seg(2, 0x100000, 0));
    map(d, &dst, b + 0x3000, pte_seg(2, 0x101000, WDDMSEG_PTE_READ_ONLY));

    MEMIT(d, hdr(WDDMSEG_OP_TRANSFER_VIRTUAL,
                 WDDMSEG_TRANSFER_VIRTUAL_QWORDS),
          0x2400, sp.root, a + 0x400, dst.root, b + 0x200);
    run_ok(d, "TRANSFER_VIRTUAL of 0x2400 bytes over three pages each");
    /*
     * Byte k of the transfer: source page 0 (segment 1) for k < 0xc00,
     * page 1 (system) below 0x1c00, page 2 (segment 1, read-only) after;
     * destination page 0 (segment 2) for k < 0xe00, page 1 (system) below
     * 0x1e00, page 2 (segment 2) after.
     */
    check_eq(peek(d, SEG2 + 0x200200), 0x50000100,
             "k 0: segment 1 -> segment 2");
    check_eq(peek(d, SEG2 + 0x200dfc), 0x500003ff,
             "k 0xbfc: the last word of the first source page");
    check_eq(peek(d, SEG2 + 0x200e00), 0x60000000,
             "k 0xc00: system -> segment 2");
    check_eq(peek(d, SEG2 + 0x200ffc), 0x6000007f,
             "k 0xdfc: the last word of the first destination page");
    check_eq(ram_rd(d, WQ_SYS + 0xa000), 0x60000080,
             "k 0xe00: system -> system");
    check_eq(ram_rd(d, WQ_SYS + 0xae00), 0x70000000,
             "k 0x1c00: read-only segment 1 page -> system");
    check_eq(peek(d, SEG2 + 0x100000), 0x70000080,
             "k 0x1e00: segment 1 -> segment 2");
    check_eq(peek(d, SEG2 + 0x1005fc), 0x700001ff, "k 0x23fc: the last word");
    check_eq(peek(d, SEG2 + 0x100600), 0, "... the byte after it untouched");
    check_eq(peek(d, SEG2 + 0x2001fc), 0, "... the byte before it untouched");

    MEMIT(d, hdr(WDDMSEG_OP_FILL_VIRTUAL, WDDMSEG_FILL_VIRTUAL_QWORDS),
          0x1003, 0x44332211, dst.root, b + 0xffd);
    run_ok(d, "FILL_VIRTUAL across a page boundary, odd size");
    check_eq(peek(d, SEG2 + 0x200ffc), 0x3322117f,
             "FILL_VIRTUAL: its first 3 bytes end the first page");
    check_eq(ram_rd(d, WQ_SYS + 0xa000), 0x33221144,
             "FILL_VIRTUAL: byte i is byte i %% 4 of the pattern");
    check_eq(ram_rd(d, WQ_SYS + 0xaffc), 0x33221144,
             "FILL_VIRTUAL: last word");
    check_eq(peek(d, SEG2 + 0x100000), 0x70000080,
             "FILL_VIRTUAL: the page after it untouched");

    /* Faults: MMU, the engine stops, MMU_FAULT_* says where. */
    wr(d, WDDMSEG_REG_IRQ_STATUS, 0xffffffff);
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_TRANSFER_VIRTUAL, WDDMSEG_TRANSFER_VIRTUAL_QWORDS),
         0x2000, sp.root, a + 0x2000, dst.root, b);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 0xbad, WQ_WB, 0);
    run(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), WDDMSEG_FAULT_MMU,
             "TRANSFER_VIRTUAL from an unmapped source page: FAULT_MMU");
    check_eq(rd(d, WDDMSEG_REG_FAULT_HEAD), 0x20, "... FAULT_HEAD at it");
    check_eq(rd(d, WDDMSEG_REG_FAULT_DETAIL), WDDMSEG_MMU_FAULT_INVALID,
             "... FAULT_DETAIL INVALID");
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_CTX), WDDMSEG_MMU_FAULT_CTX_PAGING,
             "... MMU_FAULT_CTX: the paging engine");
    check_eq(rd64(d, WDDMSEG_REG_MMU_FAULT_VA_LO), a + 0x3000,
             "... MMU_FAULT_VA: the first unmapped byte");
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_INFO),
             WDDMSEG_MMU_INFO(WDDMSEG_MMU_FAULT_INVALID, ACC_R, 0,
                              WDDMSEG_MMU_CTX_PAGING),
             "... MMU_FAULT_INFO: INVALID, read, level 0, paging engine");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS),
             WDDMSEG_IRQ_ERROR | WDDMSEG_IRQ_MMU_FAULT,
             "... IRQ_STATUS ERROR | MMU_FAULT");
    check_eq(peek(d, SEG2 + 0x200000), 0x70000000,
             "... the page before the fault was copied");
    ring_reset(d);
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_CTX), 0,
             "RING_CTRL.RESET clears MMU_FAULT_CTX's paging-engine bit");

    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FILL_VIRTUAL, WDDMSEG_FILL_VIRTUAL_QWORDS),
         0x10, 0, dst.root, b + 0x3000);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 0xbad, WQ_WB, 0);
    run(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), WDDMSEG_FAULT_MMU,
             "FILL_VIRTUAL into a read-only page: FAULT_MMU");
    check_eq(rd(d, WDDMSEG_REG_FAULT_DETAIL), WDDMSEG_MMU_FAULT_READ_ONLY,
             "... FAULT_DETAIL READ_ONLY");
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_INFO),
             WDDMSEG_MMU_INFO(WDDMSEG_MMU_FAULT_READ_ONLY, ACC_W, 0,
                              WDDMSEG_MMU_CTX_PAGING),
             "... MMU_FAULT_INFO: READ_ONLY, write");
    check_eq(peek(d, SEG2 + 0x101000), 0, "... nothing written");

    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_TRANSFER_VIRTUAL, WDDMSEG_TRANSFER_VIRTUAL_QWORDS),
         4, 0, a, dst.root, b);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 0xbad, WQ_WB, 0);
    run(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_DETAIL), WDDMSEG_MMU_FAULT_NO_ROOT,
             "TRANSFER_VIRTUAL with root 0: NO_ROOT");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_TRANSFER_VIRTUAL, WDDMSEG_TRANSFER_VIRTUAL_QWORDS),
         4, 0x10000, a, dst.root, b);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 0xbad, WQ_WB, 0);
    run(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_DETAIL), WDDMSEG_MMU_FAULT_PT_SEGMENT,
             "TRANSFER_VIRTUAL with a root in segment 1: PT_SEGMENT");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FILL_VIRTUAL, WDDMSEG_FILL_VIRTUAL_QWORDS),
         4, 0, dst.root, 1ULL << 39);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 0xbad, WQ_WB, 0);
    run(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_DETAIL), WDDMSEG_MMU_FAULT_RANGE,
             "FILL_VIRTUAL at VA 2^39: RANGE");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FILL_VIRTUAL, WDDMSEG_FILL_VIRTUAL_QWORDS),
         4, 1ULL << 32, dst.root, b);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "FILL_VIRTUAL pattern above 32 bits");
    wdev_stop(d);
}

/* ---- hardware contexts --------------------------------------------------- */

static void test_contexts(void)
{
    WDev *d = mmu_start("");
    const uint64_t va = 0x200000;
    Space s0, s1;

    sp_init(d, &s0);
    sp_init(d, &s1);
    /* The same VAs, different pages: isolated address spaces. */
    map(d, &s0, va, pte_seg(1, 0x60000, 0));
    map(d, &s0, va + 0x1000, pte_sys(WQ_SYS + 0x10000, 0));
    map(d, &s1, va, pte_seg(1, 0x62000, 0));
    map(d, &s1, va + 0x1000, pte_sys(WQ_SYS + 0x12000, 0));
    for (unsigned int k = 0; k < 0x400; k++) {
        seg1_wr(d, 0x60000 + 4 * k, 0x0a000000 + k);
        seg1_wr(d, 0x62000 + 4 * k, 0x1a000000 + k);
    }
    ctx_setup(d, 0, s0.root);
    ctx_setup(d, 1, s1.root);
    check_eq(ctx_rd64(d, 0, WDDMSEG_CTX_ROOT_LO), s0.root,
             "context 0 bound to its root (CTX_ROOT reads back)");
    check_eq(ctx_rd(d, 0, WDDMSEG_CTX_STATUS), CTX_OK,
             "context 0 enabled and idle");
    wr(d, WDDMSEG_REG_IRQ_STATUS, 0xffffffff);
    cq_copy(d, 0, 0x1000, va, va + 0x1000);
    cq_fill(d, 0, 8, 0xfeedf00d, va + 0x1ff8);
    cq_fence(d, 0, 0x100, WDDMSEG_CQ_FENCE_IRQ);
    cq_copy(d, 1, 0x1000, va, va + 0x1000);
    CEMIT(d, 1, hdr(WDDMSEG_CQ_NOP, 3), 0, 0);
    cq_fence(d, 1, 0x200, 0);
    ctx_doorbell(d, 0);
    ctx_doorbell(d, 1);
    check_eq(ctx_wait(d, 0), CTX_OK, "context 0 ran its queue");
    check_eq(ctx_wait(d, 1), CTX_OK, "context 1 ran its queue");
    check_eq(ctx_rd(d, 0, WDDMSEG_CTX_QUEUE_HEAD), ctx_tail[0],
             "context 0: QUEUE_HEAD reached the tail");
    check_eq(ctx_rd64(d, 0, WDDMSEG_CTX_FENCE_LO), 0x100,
             "context 0: CTX_FENCE 0x100");
    check_eq(ctx_rd64(d, 1, WDDMSEG_CTX_FENCE_LO), 0x200,
             "context 1: CTX_FENCE 0x200");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), WDDMSEG_IRQ_CTX_FENCE,
             "a context FENCE with FENCE_IRQ raised IRQ_CTX_FENCE");
    check_eq(ram_rd(d, WQ_SYS + 0x10000), 0x0a000000,
             "context 0 copied its own segment-1 page");
    check_eq(ram_rd(d, WQ_SYS + 0x10ff4), 0x0a0003fd,
             "... up to the fill");
    check_eq(ram_rd(d, WQ_SYS + 0x10ffc), 0xfeedf00d,
             "context 0 filled by VA");
    check_eq(ram_rd(d, WQ_SYS + 0x12000), 0x1a000000,
             "context 1, same VAs, copied its own page");
    check_eq(ram_rd(d, WQ_SYS + 0x12ffc), 0x1a0003ff,
             "context 1 did not see context 0's fill");

    /* Rebinding (SetRootPageTable): context 1 now in s0's space. */
    ctx_setup(d, 1, s0.root);
    cq_fill(d, 1, 4, 0x0badcafe, va + 0x1000);
    ctx_doorbell(d, 1);
    check_eq(ctx_wait(d, 1), CTX_OK, "context 1 rebound to s0 ran");
    check_eq(ram_rd(d, WQ_SYS + 0x10000), 0x0badcafe,
             "context 1 rebound to s0's root writes s0's page");
    wdev_stop(d);
}

static void test_faults(void)
{
    WDev *d = mmu_start("");
    const uint64_t va = 0x400000;
    Space s0, s1;

    sp_init(d, &s0);
    sp_init(d, &s1);
    map(d, &s0, va, pte_seg(1, 0x70000, 0));
    map(d, &s0, va + 0x1000, pte_seg(1, 0x71000, WDDMSEG_PTE_READ_ONLY));
    map(d, &s0, va + 0x3000, pte_seg(5, 0, 0));
    map(d, &s0, va + 0x4000, pte_seg(3, 0, 0));
    map(d, &s0, va + 0x5000, pte_seg(1, 64 * MiB, 0));
    map(d, &s0, va + 0x6000, pte_seg(1, 0x72000, WDDMSEG_PTE_LARGE_PAGE));
    map(d, &s1, va, pte_seg(1, 0x78000, 0));
    map(d, &s1, va + 0x1000, pte_sys(WQ_SYS + 0x20000, 0));
    seg1_wr(d, 0x70000, 0x70700000);
    seg1_wr(d, 0x71000, 0x71710000);
    seg1_wr(d, 0x78000, 0x78780000);
    ctx_setup(d, 0, s0.root);
    ctx_setup(d, 1, s1.root);

    const struct {
        uint64_t src, dst;
        uint32_t reason, access;
        uint64_t fault_va;
        const char *what;
    } cases[] = {
        { va + 0x2000, va, WDDMSEG_MMU_FAULT_INVALID, ACC_R, va + 0x2000,
          "a read of an unmapped page" },
        { va, va + 0x1000, WDDMSEG_MMU_FAULT_READ_ONLY, ACC_W, va + 0x1000,
          "a write into a read-only page" },
        { va + 0x3000, va, WDDMSEG_MMU_FAULT_SEGMENT, ACC_R, va + 0x3000,
          "a page of segment 5, which the device does not have" },
        { va + 0x4000, va, WDDMSEG_MMU_FAULT_SEGMENT, ACC_R, va + 0x4000,
          "a page of segment 3, an aperture" },
        { va + 0x5000, va, WDDMSEG_MMU_FAULT_RANGE, ACC_R, va + 0x5000,
          "a page past the end of segment 1" },
        { va + 0x6000, va, WDDMSEG_MMU_FAULT_RESERVED, ACC_R, va + 0x6000,
          "an entry with LargePage (not modelled)" },
    };

    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        uint32_t info = WDDMSEG_MMU_INFO(cases[k].reason, cases[k].access, 0,
                                         0);
        uint32_t head;

        ctx_setup(d, 0, s0.root);
        ctx_setup(d, 1, s1.root);
        wr(d, WDDMSEG_REG_IRQ_STATUS, 0xffffffff);
        cq_fence(d, 0, 1, 0);
        head = ctx_tail[0];
        cq_copy(d, 0, 4, cases[k].src, cases[k].dst);
        cq_fence(d, 0, 2, 0);
        /* Context 1 works before and after context 0's fault. */
        cq_copy(d, 1, 4, va, va + 0x1000);
        cq_fence(d, 1, 10 + k, 0);
        ram_wr(d, WQ_SYS + 0x20000, 0);
        ctx_doorbell(d, 0);
        ctx_doorbell(d, 1);
        check_eq(ctx_wait(d, 0), CTX_FAULTED, "%s: context 0 FAULTED",
                 cases[k].what);
        check_eq(ctx_rd(d, 0, WDDMSEG_CTX_FAULT_INFO), info,
                 "%s: CTX_FAULT_INFO (reason %u, access %u, context 0)",
                 cases[k].what, cases[k].reason, cases[k].access);
        check_eq(ctx_rd64(d, 0, WDDMSEG_CTX_FAULT_VA_LO), cases[k].fault_va,
                 "%s: CTX_FAULT_VA", cases[k].what);
        check_eq(ctx_rd(d, 0, WDDMSEG_CTX_FAULT_HEAD), head,
                 "%s: CTX_FAULT_HEAD at the command", cases[k].what);
        check_eq(ctx_rd(d, 0, WDDMSEG_CTX_QUEUE_HEAD), head,
                 "%s: QUEUE_HEAD stays at it", cases[k].what);
        check_eq(ctx_rd64(d, 0, WDDMSEG_CTX_FENCE_LO), 1,
                 "%s: the fence after it did not run", cases[k].what);
        check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_CTX), BIT(0),
                 "%s: MMU_FAULT_CTX bit 0 only", cases[k].what);
        check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_INFO) & ~0xff0000u,
                 info, "%s: MMU_FAULT_INFO", cases[k].what);
        check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS) & WDDMSEG_IRQ_MMU_FAULT,
                 WDDMSEG_IRQ_MMU_FAULT, "%s: IRQ_MMU_FAULT", cases[k].what);
        check_eq(rd(d, WDDMSEG_REG_RING_STATUS) &
                 WDDMSEG_RING_STATUS_FAULTED, 0,
                 "%s: the copy engine is not stopped", cases[k].what);
        check_eq(ctx_wait(d, 1), CTX_OK, "%s: context 1 still ran",
                 cases[k].what);
        check_eq(ctx_rd64(d, 1, WDDMSEG_CTX_FENCE_LO), 10 + k,
                 "%s: context 1 reached its fence", cases[k].what);
        check_eq(ram_rd(d, WQ_SYS + 0x20000), 0x78780000,
                 "%s: context 1's copy happened", cases[k].what);
    }

    /* RESUME after the driver fixed the mapping: the command completes. */
    ctx_setup(d, 0, s0.root);
    cq_copy(d, 0, 4, va + 0x2000, va);
    cq_fence(d, 0, 0x55, 0);
    ctx_doorbell(d, 0);
    check_eq(ctx_wait(d, 0), CTX_FAULTED, "unmapped read: FAULTED");
    map(d, &s0, va + 0x2000, pte_seg(1, 0x71000, 0));
    wr(d, WDDMSEG_CTX_REG(0, WDDMSEG_CTX_CTRL),
       WDDMSEG_CTX_CTRL_RESUME | WDDMSEG_CTX_CTRL_ENABLE);
    check_eq(ctx_wait(d, 0), CTX_OK, "after mapping and RESUME: idle");
    check_eq(ctx_rd64(d, 0, WDDMSEG_CTX_FENCE_LO), 0x55,
             "after RESUME the queue ran to its fence");
    check_eq(vram_rd(d, 0x70000), 0x71710000,
             "after RESUME the faulting copy was done");
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_CTX), 0,
             "after RESUME MMU_FAULT_CTX is 0");

    /* RESET of a faulted context. */
    cq_copy(d, 0, 4, va + 0x7000, va);
    ctx_doorbell(d, 0);
    check_eq(ctx_wait(d, 0), CTX_FAULTED, "another fault");
    wr(d, WDDMSEG_CTX_REG(0, WDDMSEG_CTX_CTRL), WDDMSEG_CTX_CTRL_RESET);
    check_eq(ctx_rd(d, 0, WDDMSEG_CTX_STATUS), WDDMSEG_CTX_STATUS_IDLE,
             "CTRL.RESET: disabled, IDLE, fault cleared");
    check_eq(ctx_rd(d, 0, WDDMSEG_CTX_QUEUE_HEAD), 0,
             "CTRL.RESET: QUEUE_HEAD 0");

    /* No root, a malformed command. */
    ctx_setup(d, 2, 0);
    cq_copy(d, 2, 4, va, va);
    ctx_doorbell(d, 2);
    check_eq(ctx_wait(d, 2), CTX_FAULTED, "context 2 without a root: FAULTED");
    check_eq(WDDMSEG_MMU_INFO_REASON(ctx_rd(d, 2, WDDMSEG_CTX_FAULT_INFO)),
             WDDMSEG_MMU_FAULT_NO_ROOT, "... reason NO_ROOT");
    check_eq(WDDMSEG_MMU_INFO_CTX(ctx_rd(d, 2, WDDMSEG_CTX_FAULT_INFO)), 2,
             "... context id 2 in CTX_FAULT_INFO");
    ctx_setup(d, 3, s1.root);
    CEMIT(d, 3, hdr(0x42, 1));
    ctx_doorbell(d, 3);
    check_eq(ctx_wait(d, 3), CTX_FAULTED, "context 3, unknown opcode: FAULTED");
    check_eq(WDDMSEG_MMU_INFO_REASON(ctx_rd(d, 3, WDDMSEG_CTX_FAULT_INFO)),
             WDDMSEG_MMU_FAULT_BAD_COMMAND, "... reason BAD_COMMAND");
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_CTX), BIT(2) | BIT(3),
             "MMU_FAULT_CTX: contexts 2 and 3");
    wdev_stop(d);
}

/* ---- reset --------------------------------------------------------------- */

static void test_reset(void)
{
    WDev *d = mmu_start("");
    const uint64_t x = 0x30000;
    Space sp;

    sp_init(d, &sp);
    seg1_wr(d, 0x80000, 0x80800000);
    seg1_wr(d, 0x81000, 0x81810000);
    map(d, &sp, x, pte_seg(1, 0x80000, 0));
    check_eq(va_rd(d, sp.root, x), 0x80800000, "x cached");
    map(d, &sp, x, pte_seg(1, 0x81000, 0));
    check_eq(va_rd(d, sp.root, x), 0x80800000, "x remapped: stale");
    ctx_setup(d, 0, sp.root);
    cq_copy(d, 0, 4, x + 0x1000, x);
    ctx_doorbell(d, 0);
    check_eq(ctx_wait(d, 0), CTX_FAULTED, "context 0 faulted");

    wdev_system_reset(d);
    wdev_map(d);
    wdev_command(d, true);
    check_eq(ctx_rd(d, 0, WDDMSEG_CTX_STATUS), WDDMSEG_CTX_STATUS_IDLE,
             "after a system reset: context 0 disabled, not faulted");
    check_eq(ctx_rd64(d, 0, WDDMSEG_CTX_ROOT_LO), 0,
             "after a system reset: context 0 unbound");
    check_eq(ctx_rd(d, 0, WDDMSEG_CTX_FAULT_INFO), 0,
             "after a system reset: CTX_FAULT_INFO 0");
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_CTX), 0,
             "after a system reset: MMU_FAULT_CTX 0");
    check_eq(rd(d, WDDMSEG_REG_MMU_FAULT_INFO), 0,
             "after a system reset: MMU_FAULT_INFO 0");
    check_eq(rd64(d, WDDMSEG_REG_MMU_FAULT_VA_LO), 0,
             "after a system reset: MMU_FAULT_VA 0");
    ring_enable(d, WQ_RING, 64 << 10);
    window(d, SEG2);
    check_eq(va_rd(d, sp.root, x), 0x81810000,
             "after a system reset the TLB is empty: x reads its new page "
             "(the tables in VRAM survived)");
    wdev_stop(d);
}

/* ---- long commands over several batches ---------------------------------- */

/*
 * With x-batch-bytes=4K a 16 KiB TRANSFER_VIRTUAL and a 16 KiB context
 * copy each span several batches of the engine's thread: both resume
 * where they stopped.
 */
static void test_batches(void)
{
    WDev *d = mmu_start(",x-batch-bytes=4096");
    const uint64_t src = 0x800000, dst = 0x900000, dst2 = 0xa00000;
    Space sp;

    sp_init(d, &sp);
    for (unsigned int p = 0; p < 4; p++) {
        map(d, &sp, src + p * 0x1000, pte_seg(1, 0x90000 + p * 0x2000, 0));
        map(d, &sp, dst + p * 0x1000, pte_sys(WQ_SYS + 0x30000 + p * 0x1000,
                                              0));
        map(d, &sp, dst2 + p * 0x1000, pte_seg(2, 0x300000 + p * 0x1000, 0));
        for (unsigned int k = 0; k < 0x400; k += 0xff) {
            seg1_wr(d, 0x90000 + p * 0x2000 + 4 * k, 0x90000000 | p << 16 | k);
        }
    }
    MEMIT(d, hdr(WDDMSEG_OP_TRANSFER_VIRTUAL,
                 WDDMSEG_TRANSFER_VIRTUAL_QWORDS),
          0x4000, sp.root, src, sp.root, dst);
    run_ok(d, "TRANSFER_VIRTUAL of 16 KiB in 4 KiB batches");
    ctx_setup(d, 0, sp.root);
    cq_copy(d, 0, 0x4000, src, dst2);
    cq_fence(d, 0, 7, 0);
    ctx_doorbell(d, 0);
    check_eq(ctx_wait(d, 0), CTX_OK, "a 16 KiB context copy in 4 KiB batches");
    check_eq(ctx_rd64(d, 0, WDDMSEG_CTX_FENCE_LO), 7,
             "... and the fence after it");
    for (unsigned int p = 0; p < 4; p++) {
        for (unsigned int k = 0; k < 0x400; k += 0xff) {
            uint32_t want = 0x90000000 | p << 16 | k;

            check_eq(ram_rd(d, WQ_SYS + 0x30000 + p * 0x1000 + 4 * k), want,
                     "TRANSFER_VIRTUAL in batches: page %u word 0x%x", p, k);
            check_eq(peek(d, SEG2 + 0x300000 + p * 0x1000 + 4 * k), want,
                     "context copy in batches: page %u word 0x%x", p, k);
        }
    }
    wdev_stop(d);
}

int main(int argc, char **argv)
{
    wq_init(&argc, &argv);
    wq_add("mmu/geometry", test_geometry);
    wq_add("mmu/walker", test_walker);
    wq_add("mmu/tlb", test_tlb);
    wq_add("mmu/update-page-table", test_update_pt);
    wq_add("mmu/copy-pte-refused", test_copy_pte_refused);
    wq_add("mmu/virtual-ops", test_virtual_ops);
    wq_add("mmu/contexts", test_contexts);
    wq_add("mmu/faults", test_faults);
    wq_add("mmu/batches", test_batches);
    wq_add("mmu/reset", test_reset);
    return wq_run();
}
