/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg qtests: the copy engine. Ring setup, every opcode (FENCE,
 * TRANSFER, FILL, DISCARD, READ/WRITE_PHYSICAL, MAP/UNMAP_APERTURE,
 * FLUSH_APERTURE and non-coherent apertures, NOP padding and
 * wrap-around), VRAM page-list locations, every fault and the recovery
 * from it, injected faults and hangs, pausing, INTx and MSI-X, long
 * transfers over several batches.
 *
 * Rings, page lists and system pages live in guest RAM (wddmseg-qtest.h
 * has the map), written over qtest. The engine runs in its own thread
 * after the doorbell: the checks poll RING_STATUS until it is idle or
 * faulted (run()), never rely on timing. What must be seen before the
 * engine runs is seen with the VM stopped over QMP: the engine runs only
 * while the VM runs.
 *
 * Default layout: segment 1 is VRAM [0, 64 MiB) behind BAR2, segment 2
 * VRAM [64 MiB, 128 MiB), segment 3 an aperture at 4 GiB.
 */

#include "qemu/osdep.h"

#include "wddmseg-qtest.h"

#define SEG2 (64 * MiB)         /* GPU address of segment 2 */
#define APT (4 * GiB)           /* GPU address of segment 3 (aperture) */

static const uint64_t marks[] = {
    0, 0x4, 0x9fc, 0xa00, 0x1200, 0x1a00, 0x29fc, 0x2a00, 0x2ffc
};

static uint32_t mark(uint64_t k)
{
    return 0xa0000000 | k;
}

static const uint32_t ENABLED_IDLE =
    WDDMSEG_RING_STATUS_ENABLED | WDDMSEG_RING_STATUS_IDLE;

/* A device with memory decoding and bus mastering on. */
static WDev *engine_start(const char *devopts, unsigned int flags)
{
    WDev *d = wdev_start(devopts, flags, NULL);

    wdev_command(d, true);
    return d;
}

static uint64_t seqno(WDev *d)
{
    return rd64(d, WDDMSEG_REG_LAST_SEQNO_LO);
}

/* ---- ring setup ---------------------------------------------------------- */

static void test_ring_setup(void)
{
    WDev *d = engine_start("", WQ_LOG);
    static const uint32_t bad_sizes[] = { 0, 0x800, 0x1800, 2 * MiB };

    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), WDDMSEG_RING_STATUS_IDLE,
             "ring after reset: disabled and IDLE");
    check_eq(rd(d, WDDMSEG_REG_RING_CTRL), 0, "RING_CTRL is 0 after reset");
    check_eq(rd(d, WDDMSEG_REG_IRQ_MASK), 0, "IRQ_MASK is 0 after reset");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), 0, "IRQ_STATUS is 0 after reset");
    check_eq(seqno(d), 0, "LAST_SEQNO is 0 after reset");
    /* Enabling checks base and size. */
    wr64(d, WDDMSEG_REG_RING_BASE_LO, WQ_RING);
    for (size_t i = 0; i < G_N_ELEMENTS(bad_sizes); i++) {
        wr(d, WDDMSEG_REG_RING_SIZE, bad_sizes[i]);
        wr(d, WDDMSEG_REG_RING_CTRL, WDDMSEG_RING_CTRL_ENABLE);
        check_eq(rd(d, WDDMSEG_REG_RING_STATUS), WDDMSEG_RING_STATUS_IDLE,
                 "RING_SIZE 0x%x cannot be enabled", bad_sizes[i]);
    }
    wr(d, WDDMSEG_REG_RING_SIZE, 0x1000);
    wr64(d, WDDMSEG_REG_RING_BASE_LO, WQ_RING + 0x800);
    wr(d, WDDMSEG_REG_RING_CTRL, WDDMSEG_RING_CTRL_ENABLE);
    check_eq(rd(d, WDDMSEG_REG_RING_CTRL), 0,
             "a RING_BASE not 4 KiB aligned cannot be enabled");
    ring_enable(d, WQ_RING, 64 << 10);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), ENABLED_IDLE,
             "64 KiB ring at a 4 KiB boundary: ENABLED|IDLE");
    check_eq(rd(d, WDDMSEG_REG_RING_CTRL), WDDMSEG_RING_CTRL_ENABLE,
             "RING_CTRL reads ENABLE (RESET self-clears)");
    wr(d, WDDMSEG_REG_RING_SIZE, 0x1000);
    wr(d, WDDMSEG_REG_RING_BASE_LO, 0);
    check_eq(rd(d, WDDMSEG_REG_RING_SIZE), 64 << 10,
             "RING_SIZE writes are ignored while enabled");
    check_eq(rd64(d, WDDMSEG_REG_RING_BASE_LO), WQ_RING,
             "RING_BASE writes are ignored while enabled");
    wr(d, WDDMSEG_REG_IRQ_MASK, 0xffffffff);
    check_eq(rd(d, WDDMSEG_REG_IRQ_MASK),
             WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR | WDDMSEG_IRQ_VBLANK |
             WDDMSEG_IRQ_SCANOUT_ERROR | WDDMSEG_IRQ_MMU_FAULT |
             WDDMSEG_IRQ_CTX_FENCE,
             "IRQ_MASK keeps the six known bits only");
    wdev_quit(d);
    check_eq(wdev_log_count(d, "ring not enabled"), 5,
             "each refused enable is logged");
    check_eq(wdev_log_count(d, "while the ring is enabled"), 2,
             "ring config writes while enabled are logged");
    wdev_stop(d);
}

/* ---- FENCE --------------------------------------------------------------- */

static void test_fence(void)
{
    WDev *d = engine_start("", 0);

    ring_enable(d, WQ_RING, 64 << 10);
    ram_wrq(d, WQ_WB, ~0ULL);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 0x1122334455667788ULL,
         WQ_WB, WDDMSEG_FENCE_IRQ);
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), 0,
             "the doorbell has not run yet: RING_HEAD 0");
    /* The doorbell only schedules; with the VM stopped nothing runs. */
    vm_stop(d);
    doorbell(d);
    wdev_settle(d);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), WDDMSEG_RING_STATUS_ENABLED,
             "after the doorbell, VM stopped: busy (executes later)");
    check_eq(rd(d, WDDMSEG_REG_RING_TAIL), 0x20, "RING_TAIL reads back 0x20");
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), 0,
             "VM stopped: RING_HEAD still 0");
    vm_cont(d);
    wait_engine(d);
    check_idle(d, "FENCE");
    check_eq(ram_rdq(d, WQ_WB), 0x1122334455667788ULL,
             "FENCE wrote the 64-bit seqno back");
    check_eq(seqno(d), 0x1122334455667788ULL, "FENCE set LAST_SEQNO");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), WDDMSEG_IRQ_FENCE,
             "FENCE with FENCE_IRQ set IRQ_STATUS.FENCE");
    wr(d, WDDMSEG_REG_IRQ_STATUS, WDDMSEG_IRQ_FENCE);
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), 0,
             "IRQ_STATUS is write-1-to-clear");
    c_fence(d, 0);
    run(d);
    check_eq(ram_rdq(d, WQ_WB), d->seq,
             "a FENCE without FENCE_IRQ writes back");
    check_eq(seqno(d), d->seq, "... and sets LAST_SEQNO");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), 0, "... but raises no interrupt");
    wdev_stop(d);
}

/* ---- TRANSFER and the PHYSICAL opcodes ----------------------------------- */

static void test_transfer(void)
{
    WDev *d = engine_start("", 0);
    /* Non-contiguous pages (1 and 2 are contiguous, merged into one run). */
    const uint64_t pg[] = {
        WQ_SYS + 0x5000, WQ_SYS + 0x2000, WQ_SYS + 0x3000, WQ_SYS + 0x9000
    };
    const uint64_t pa[] = {
        WQ_SYS + 0xc000, WQ_SYS + 0xa000, WQ_SYS + 0xb000, WQ_SYS + 0xe000
    };
    const uint64_t two[] = { WQ_SYS + 0x10000, WQ_SYS + 0x12000 };
    static const uint64_t some[] = { 0, 0x9fc, 0xa00, 0x29fc, 0x2ffc };
    static const uint64_t ends[] = { 0, 0xa00, 0x2ffc };

    ring_enable(d, WQ_RING, 64 << 10);

    /* VRAM -> system through a page list, at byte offset 0x600. */
    qtest_memset(d->qts, WQ_SYS, 0x5a, 0x40000);
    for (size_t i = 0; i < G_N_ELEMENTS(marks); i++) {
        vram_wr(d, 0x10000 + marks[i], mark(marks[i]));
    }
    write_list(d, WQ_LIST, pg, 4);
    c_transfer(d, 0x3000, seg_loc(1, 0x10000), list_loc(WQ_LIST, 0x600));
    c_fence(d, 0);
    run(d);
    check_idle(d, "TRANSFER VRAM -> page list");
    for (size_t i = 0; i < G_N_ELEMENTS(marks); i++) {
        uint64_t a = pl_addr(pg, 0x600, marks[i]);

        check_eq(ram_rd(d, a), mark(marks[i]),
                 "TRANSFER VRAM -> page list: byte 0x%" PRIx64 " at 0x%"
                 PRIx64, marks[i], a);
    }
    check_eq(ram_rd(d, pg[0] + 0x5fc), 0x5a5a5a5a,
             "... bytes before the offset untouched");
    check_eq(ram_rd(d, pg[3] + 0x600), 0x5a5a5a5a,
             "... bytes after the end untouched");
    check_eq(ram_rd(d, WQ_SYS + 0x4000), 0x5a5a5a5a,
             "... pages not in the list untouched");

    /* ... and back: page list -> invisible VRAM (segment 2). */
    ram_wr(d, pl_addr(pg, 0x600, 0x1a00), 0xb0001a00);
    c_transfer(d, 0x3000, list_loc(WQ_LIST, 0x600), seg_loc(2, 0x100000));
    run(d);
    check_idle(d, "TRANSFER page list -> VRAM");
    for (size_t i = 0; i < G_N_ELEMENTS(some); i++) {
        check_eq(peek(d, SEG2 + 0x100000 + some[i]), mark(some[i]),
                 "TRANSFER page list -> segment 2: byte 0x%" PRIx64, some[i]);
    }
    check_eq(peek(d, SEG2 + 0x101a00), 0xb0001a00,
             "TRANSFER page list -> segment 2 reads system memory as it is "
             "now");

    /* VRAM -> VRAM. */
    c_transfer(d, 0x3000, seg_loc(1, 0x10000), seg_loc(2, 0x200000));
    run(d);
    for (size_t i = 0; i < G_N_ELEMENTS(ends); i++) {
        check_eq(peek(d, SEG2 + 0x200000 + ends[i]), mark(ends[i]),
                 "TRANSFER segment 1 -> segment 2: byte 0x%" PRIx64, ends[i]);
    }
    /* Overlapping, to a higher address: like memmove. */
    vram_wr(d, 0x20000, 0xc0000000);
    vram_wr(d, 0x21000, 0xc0001000);
    vram_wr(d, 0x21ffc, 0xc0001ffc);
    c_transfer(d, 0x2000, seg_loc(1, 0x20000), seg_loc(1, 0x20800));
    run(d);
    check_eq(vram_rd(d, 0x20800), 0xc0000000,
             "overlapping VRAM TRANSFER up: first word");
    check_eq(vram_rd(d, 0x21800), 0xc0001000,
             "overlapping VRAM TRANSFER up: middle word");
    check_eq(vram_rd(d, 0x227fc), 0xc0001ffc,
             "overlapping VRAM TRANSFER up: last word");

    /* Through the aperture (entries written by the CPU): VRAM -> it. */
    for (uint32_t i = 0; i < 4; i++) {
        apt_set(d, 3, i, pa[i]);
    }
    c_transfer(d, 0x3000, seg_loc(1, 0x10000), seg_loc(3, 0x600));
    run(d);
    check_idle(d, "TRANSFER VRAM -> aperture");
    for (size_t i = 0; i < G_N_ELEMENTS(marks); i++) {
        uint64_t k = marks[i];

        if (k != 0 && k != 0x9fc && k != 0xa00 && k != 0x1a00 && k != 0x2ffc) {
            continue;
        }
        check_eq(ram_rd(d, pl_addr(pa, 0x600, k)), mark(k),
                 "TRANSFER VRAM -> aperture: byte 0x%" PRIx64
                 " in the mapped page", k);
        check_eq(peek(d, APT + 0x600 + k), mark(k),
                 "... and PEEK sees it at 0x%" PRIx64, APT + 0x600 + k);
    }
    /* aperture -> VRAM and aperture -> page list (system to system). */
    c_transfer(d, 0x3000, seg_loc(3, 0x600), seg_loc(1, 0x40000));
    write_list(d, WQ_LIST + 0x1000, two, 2);
    /* segment 3 offset 0x1000 holds mark 0xa00 */
    c_transfer(d, 0x1000, seg_loc(3, 0x1000),
               list_loc(WQ_LIST + 0x1000, 0x800));
    run(d);
    check_idle(d, "TRANSFER from the aperture");
    for (size_t i = 0; i < G_N_ELEMENTS(ends); i++) {
        check_eq(vram_rd(d, 0x40000 + ends[i]), mark(ends[i]),
                 "TRANSFER aperture -> VRAM: byte 0x%" PRIx64, ends[i]);
    }
    check_eq(ram_rd(d, WQ_SYS + 0x10800), mark(0xa00),
             "TRANSFER aperture -> page list (system to system): first word");
    check_eq(ram_rd(d, WQ_SYS + 0x12000), mark(0x1200),
             "... and the first word of its second page");

    /* READ_PHYSICAL / WRITE_PHYSICAL: GPU address <-> contiguous memory. */
    ram_wr(d, WQ_PHYS, 0x11110000);
    ram_wr(d, WQ_PHYS + 0xffc, 0x11110ffc);
    ram_wr(d, WQ_PHYS + 0x1000, 0x11111000);
    c_phys(d, WDDMSEG_OP_WRITE_PHYSICAL, 0x1004, SEG2 + 0x300000, WQ_PHYS);
    c_phys(d, WDDMSEG_OP_READ_PHYSICAL, 0x3000, APT + 0x600, WQ_PHYS + 0x10000);
    c_phys(d, WDDMSEG_OP_READ_PHYSICAL, 0x3000, 0x10000, WQ_PHYS + 0x20000);
    run(d);
    check_idle(d, "READ/WRITE_PHYSICAL");
    check_eq(peek(d, SEG2 + 0x300000), 0x11110000,
             "WRITE_PHYSICAL to segment 2: first word");
    check_eq(peek(d, SEG2 + 0x300ffc), 0x11110ffc,
             "WRITE_PHYSICAL to segment 2: word at 0xffc");
    check_eq(peek(d, SEG2 + 0x301000), 0x11111000,
             "WRITE_PHYSICAL to segment 2: last word");
    check_eq(peek(d, SEG2 + 0x301004), 0,
             "WRITE_PHYSICAL to segment 2: nothing past its 0x1004 bytes");
    for (size_t i = 0; i < G_N_ELEMENTS(ends); i++) {
        check_eq(ram_rd(d, WQ_PHYS + 0x10000 + ends[i]), mark(ends[i]),
                 "READ_PHYSICAL from the aperture: byte 0x%" PRIx64, ends[i]);
        check_eq(ram_rd(d, WQ_PHYS + 0x20000 + ends[i]), mark(ends[i]),
                 "READ_PHYSICAL from VRAM: byte 0x%" PRIx64, ends[i]);
    }
    wdev_stop(d);
}

/* ---- FILL and DISCARD ---------------------------------------------------- */

static void test_fill(void)
{
    WDev *d = engine_start("", 0);
    const uint64_t pages[] = { WQ_SYS + 0x14000, WQ_SYS + 0x16000 };

    ring_enable(d, WQ_RING, 64 << 10);
    qtest_memset(d->qts, WQ_SYS, 0x5a, 0x40000);
    qtest_memset(d->qts, d->bar2.addr + 0x30000, 0xee, 16);
    /* VRAM at an odd offset, system pages through a page list. */
    c_fill(d, 10, 0x44332211, seg_loc(1, 0x30002));
    write_list(d, WQ_LIST + 0x2000, pages, 2);
    c_fill(d, 16, 0xdeadbeef, list_loc(WQ_LIST + 0x2000, 0xff8));
    c_fill(d, MiB, 0x01020304, seg_loc(2, 0x400000));
    run(d);
    check_idle(d, "FILL");
    check_eq(vram_rd(d, 0x30000), 0x2211eeee,
             "FILL VRAM: pattern byte 0 at the first byte of the range");
    check_eq(vram_rd(d, 0x30004), 0x22114433, "FILL VRAM: pattern continues");
    check_eq(vram_rd(d, 0x30008), 0x22114433, "FILL VRAM: last two bytes");
    check_eq(vram_rd(d, 0x3000c), 0xeeeeeeee,
             "FILL VRAM: bytes past the end untouched");
    check_eq(ram_rdq(d, WQ_SYS + 0x14ff8), 0xdeadbeefdeadbeefULL,
             "FILL page list: end of the first page");
    check_eq(ram_rdq(d, WQ_SYS + 0x16000), 0xdeadbeefdeadbeefULL,
             "FILL page list: start of the second page");
    check_eq(ram_rd(d, WQ_SYS + 0x16008), 0x5a5a5a5a,
             "FILL page list: bytes past the end untouched");
    check_eq(ram_rd(d, WQ_SYS + 0x14ff4), 0x5a5a5a5a,
             "FILL page list: bytes before the offset untouched");
    check_eq(peek(d, SEG2 + 0x400000), 0x01020304,
             "FILL 1 MiB of segment 2: first word");
    check_eq(peek(d, SEG2 + 0x4ffffc), 0x01020304,
             "FILL 1 MiB of segment 2: last word");
    check_eq(peek(d, SEG2 + 0x500000), 0,
             "FILL 1 MiB of segment 2: the word after it untouched");

    /* DISCARD only checks the range. */
    c_discard(d, 64 * MiB, seg_loc(2, 0));
    c_discard(d, 0x1000, list_loc(WQ_LIST, 0));
    c_discard(d, 0, seg_loc(1, 64 * MiB));
    run(d);
    check_idle(d, "DISCARD of a whole segment, of a page list, of 0 bytes at "
               "the end");
    check_eq(peek(d, SEG2 + 0x400000), 0x01020304,
             "DISCARD leaves the contents");
    wdev_stop(d);
}

/* ---- VRAM page lists ----------------------------------------------------- */

static WLoc vlist_loc(uint64_t id, uint64_t list, uint64_t off)
{
    return (WLoc){ { id | WDDMSEG_LOC_VRAM_LIST, list, off } };
}

/*
 * Device 1.6: VRAM of a memory segment through a list of its pages, for
 * every command that takes a loc. The pages are out of order, two of them
 * adjacent (merged into one run); offsets into the list start mid-page.
 */
static void test_vram_list(void)
{
    WDev *d = engine_start("", 0);
    /* Byte offsets in segment 2 and in segment 1. */
    const uint64_t v2[] = { 0x5000, 0x2000, 0x3000, 0x9000 };
    const uint64_t v1[] = { 0x48000, 0x41000, 0x47000 };
    const uint64_t sys[] = { WQ_SYS + 0x2000, WQ_SYS + 0x7000 };
    const uint64_t bad[] = { 0x1000, 64 * MiB };
    const uint64_t odd = 0x1800;

    check_true(WDDMSEG_VERSION_MINOR(rd(d, WDDMSEG_REG_VERSION)) >=
               WDDMSEG_VERSION_MINOR_VRAM_LIST,
               "VERSION: 1.%u or later, VRAM page lists",
               WDDMSEG_VERSION_MINOR_VRAM_LIST);
    ring_enable(d, WQ_RING, 64 << 10);
    qtest_memset(d->qts, WQ_SYS, 0x5a, 0x40000);
    write_list(d, WQ_LIST, v2, 4);
    write_list(d, WQ_LIST + 0x1000, v1, 3);
    write_list(d, WQ_LIST + 0x2000, sys, 2);

    /* FILL through the list, 0x600 into its memory. */
    c_fill(d, 0x3000, 0x0badf00d, vlist_loc(2, WQ_LIST, 0x600));
    run(d);
    check_idle(d, "FILL of a VRAM page list");
    check_eq(peek(d, SEG2 + 0x55fc), 0, "FILL: bytes before the offset");
    check_eq(peek(d, SEG2 + 0x5600), 0x0badf00d,
             "FILL: first word, in page 0 of the list (0x5000)");
    check_eq(peek(d, SEG2 + 0x2000), 0x0badf00d,
             "FILL: page 1 of the list (0x2000)");
    check_eq(peek(d, SEG2 + 0x3ffc), 0x0badf00d,
             "FILL: end of page 2 of the list (0x3000)");
    check_eq(peek(d, SEG2 + 0x95fc), 0x0badf00d,
             "FILL: last word, in page 3 of the list (0x9000)");
    check_eq(peek(d, SEG2 + 0x9600), 0, "FILL: bytes past the end");
    check_eq(peek(d, SEG2 + 0x4000), 0, "FILL: pages not in the list");

    /* TRANSFER: contiguous VRAM -> VRAM list -> page list. */
    for (size_t i = 0; i < G_N_ELEMENTS(marks); i++) {
        vram_wr(d, 0x10000 + marks[i], mark(marks[i]));
    }
    c_transfer(d, 0x3000, seg_loc(1, 0x10000), vlist_loc(1, WQ_LIST + 0x1000,
                                                         0));
    c_transfer(d, 0x2000, vlist_loc(1, WQ_LIST + 0x1000, 0x1000),
               list_loc(WQ_LIST + 0x2000, 0));
    run(d);
    check_idle(d, "TRANSFER into and out of a VRAM page list");
    for (size_t i = 0; i < G_N_ELEMENTS(marks); i++) {
        uint64_t a = pl_addr(v1, 0, marks[i]);

        check_eq(vram_rd(d, a), mark(marks[i]),
                 "TRANSFER VRAM -> VRAM list: byte 0x%" PRIx64
                 " at VRAM 0x%" PRIx64, marks[i], a);
    }
    check_eq(ram_rd(d, WQ_SYS + 0x2200), mark(0x1200),
             "TRANSFER VRAM list from byte 0x1000 -> page list: byte 0x1200");
    check_eq(ram_rd(d, WQ_SYS + 0x2a00), mark(0x1a00), "... byte 0x1a00");
    check_eq(ram_rd(d, WQ_SYS + 0x79fc), mark(0x29fc),
             "... byte 0x29fc, in the second system page");
    check_eq(ram_rd(d, WQ_SYS + 0x7ffc), mark(0x2ffc), "... byte 0x2ffc");
    check_eq(ram_rd(d, WQ_SYS + 0x3000), 0x5a5a5a5a,
             "... pages not in the lists untouched");

    /* DISCARD checks every page; a whole list of one page is fine. */
    c_discard(d, 0x4000, vlist_loc(2, WQ_LIST, 0));
    run(d);
    check_idle(d, "DISCARD of a VRAM page list");

    /* Faults. */
    write_list(d, WQ_LIST + 0x3000, bad, 2);
    fault_begin(d);
    c_fill(d, 0x2000, 0, vlist_loc(1, WQ_LIST + 0x3000, 0));
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "FILL reaching a VRAM list entry at the end of the segment");
    check_eq(vram_rd(d, 0x1000), 0, "... the page before it was filled");
    fault_begin(d);
    c_discard(d, 0x2000, vlist_loc(1, WQ_LIST + 0x3000, 0));
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "DISCARD of a VRAM list with an entry outside the segment");
    fault_begin(d);
    c_transfer(d, 0x10, vlist_loc(2, WQ_LIST + 0x3000, 0x1000),
               seg_loc(1, 0));
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "TRANSFER from a VRAM list entry outside the segment");
    write_list(d, WQ_LIST + 0x4000, &odd, 1);
    fault_begin(d);
    c_transfer(d, 0x10, seg_loc(1, 0), vlist_loc(2, WQ_LIST + 0x4000, 0));
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "VRAM list entry not 4 KiB aligned");
    fault_begin(d);
    c_transfer(d, 0x10, seg_loc(1, 0), vlist_loc(0, WQ_LIST, 0));
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "VRAM list of segment id 0");
    fault_begin(d);
    c_transfer(d, 0x10, seg_loc(1, 0), vlist_loc(3, WQ_LIST, 0));
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "VRAM list of an aperture");
    fault_begin(d);
    c_transfer(d, 0x10, seg_loc(1, 0), vlist_loc(4, WQ_LIST, 0));
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "VRAM list of no segment");
    fault_begin(d);
    c_transfer(d, 0x10, seg_loc(1, 0), vlist_loc(2, WQ_LIST + 4, 0));
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "VRAM list not 8-byte aligned");
    wdev_stop(d);
}

/* ---- MAP_APERTURE / UNMAP_APERTURE --------------------------------------- */

static void test_map_aperture(void)
{
    WDev *d = engine_start("", 0);
    const uint64_t qp[] = { WQ_SYS + 0x20000, WQ_SYS + 0x25000,
                            WQ_SYS + 0x21000 };

    ring_enable(d, WQ_RING, 64 << 10);
    ram_wr(d, qp[0] + 4, 0x0a0a0001);
    ram_wr(d, qp[1] + 8, 0x0a0a0002);
    ram_wr(d, qp[2] + 12, 0x0a0a0003);
    ram_wr(d, WQ_SYS + 0x30004, 0xd0d0d0d0);
    write_list(d, WQ_LIST + 0x3000, qp, 3);
    c_aperture(d, WDDMSEG_OP_MAP_APERTURE, 3 | WDDMSEG_MAP_CACHE_COHERENT, 10,
               3, WQ_LIST + 0x3000);
    run(d);
    check_idle(d, "MAP_APERTURE");
    for (uint32_t i = 0; i < 3; i++) {
        check_eq(apt_get(d, 3, 10 + i), qp[i],
                 "MAP_APERTURE wrote entry %u", 10 + i);
    }
    check_eq(apt_get(d, 3, 13), 0, "MAP_APERTURE left entry 13");
    check_eq(apt_get(d, 3, 9), 0, "MAP_APERTURE left entry 9");
    check_eq(peek(d, APT + 10 * 4096 + 4), 0x0a0a0001,
             "PEEK through a MAP_APERTURE entry (page 10)");
    check_eq(peek(d, APT + 11 * 4096 + 8), 0x0a0a0002,
             "PEEK through a MAP_APERTURE entry (page 11)");
    check_eq(peek(d, APT + 12 * 4096 + 12), 0x0a0a0003,
             "PEEK through a MAP_APERTURE entry (page 12)");
    c_aperture(d, WDDMSEG_OP_UNMAP_APERTURE, 3, 10, 2, WQ_SYS + 0x30000);
    c_aperture(d, WDDMSEG_OP_UNMAP_APERTURE, 3, 12, 1, 0);
    run(d);
    check_idle(d, "UNMAP_APERTURE");
    check_eq(apt_get(d, 3, 10), WQ_SYS + 0x30000,
             "UNMAP_APERTURE points entry 10 at the dummy page");
    check_eq(apt_get(d, 3, 11), WQ_SYS + 0x30000,
             "UNMAP_APERTURE points entry 11 at the dummy page");
    check_eq(peek(d, APT + 11 * 4096 + 4), 0xd0d0d0d0,
             "PEEK of an unmapped page reads the dummy page");
    check_eq(apt_get(d, 3, 12), 0,
             "UNMAP_APERTURE to dummy page 0 clears the entry");
    check_eq(peek(d, APT + 12 * 4096 + 12), 0xffffffff,
             "PEEK of that page faults");
    wdev_stop(d);
}

/* ---- non-coherent apertures (device 1.7) --------------------------------- */

/*
 * Segment 3 is an aperture without CacheCoherent. Pages mapped with
 * MAP_CPU_CACHED are read through the device's copy (PEEK, TRANSFER out
 * of the aperture), which misses CPU writes until FLUSH_APERTURE; a page
 * mapped without the bit is read from memory; engine writes through the
 * aperture reach memory and the copy; a CacheCoherent mapping there is a
 * bad packet, FLUSH_APERTURE of anything but an aperture range faults.
 */
static void test_noncoherent(void)
{
    WDev *d = engine_start(",vis-size=1M,invis-size=1M,layout=0:0|"
                           "0:0:1M:1M:0x484|1M:-:1M:1M:0|"
                           "0x100000000:-:1M:1M:0x1", WQ_LOG);
    const uint64_t qp[] = { WQ_SYS + 0x20000, WQ_SYS + 0x21000,
                            WQ_SYS + 0x22000 };

    ring_enable(d, WQ_RING, 64 << 10);
    ram_wr(d, qp[0] + 4, 0x0c0c0001);
    ram_wr(d, qp[2] + 8, 0x0c0c0003);
    write_list(d, WQ_LIST, qp, 2);
    write_list(d, WQ_LIST + 0x1000, &qp[2], 1);
    c_aperture(d, WDDMSEG_OP_MAP_APERTURE, 3 | WDDMSEG_MAP_CPU_CACHED, 0, 2,
               WQ_LIST);
    c_aperture(d, WDDMSEG_OP_MAP_APERTURE, 3, 2, 1, WQ_LIST + 0x1000);
    run(d);
    check_idle(d, "MAP_APERTURE of CPU-cached pages, non-coherent");
    check_eq(peek(d, APT + 4), 0x0c0c0001,
             "non-coherent: the device's copy is taken at MAP_APERTURE");

    /* CPU writes after the map: unseen in cached pages, seen in others */
    ram_wr(d, qp[0] + 4, 0x0c0c1001);
    ram_wr(d, qp[2] + 8, 0x0c0c1003);
    check_eq(peek(d, APT + 4), 0x0c0c0001,
             "non-coherent: a CPU write to a cached page is not snooped");
    check_eq(peek(d, APT + 2 * 4096 + 8), 0x0c0c1003,
             "non-coherent: a page mapped without MAP_CPU_CACHED is read "
             "from memory");
    c_transfer(d, 4096, seg_loc(3, 0), seg_loc(1, 0x10000));
    run(d);
    check_idle(d, "TRANSFER out of a non-coherent aperture");
    check_eq(vram_rd(d, 0x10004), 0x0c0c0001,
             "non-coherent: TRANSFER reads the device's stale copy");

    /* FLUSH_APERTURE: the device sees the CPU's writes */
    EMIT(d, hdr(WDDMSEG_OP_FLUSH_APERTURE, WDDMSEG_FLUSH_QWORDS), 3, 0, 2);
    c_transfer(d, 4096, seg_loc(3, 0), seg_loc(1, 0x10000));
    run(d);
    check_idle(d, "FLUSH_APERTURE");
    check_eq(peek(d, APT + 4), 0x0c0c1001,
             "non-coherent: FLUSH_APERTURE refreshes the device's copy");
    check_eq(vram_rd(d, 0x10004), 0x0c0c1001,
             "non-coherent: TRANSFER after FLUSH_APERTURE reads the CPU's "
             "write");

    /* engine writes through the aperture: memory and copy */
    c_fill(d, 4096, 0x0c0c2002, seg_loc(3, 4096));
    run(d);
    check_idle(d, "FILL into a non-coherent aperture");
    check_eq(ram_rd(d, qp[1] + 12), 0x0c0c2002,
             "non-coherent: FILL through the aperture reaches memory");
    check_eq(peek(d, APT + 4096 + 12), 0x0c0c2002,
             "non-coherent: the device sees its own FILL");

    /* a remap without the bit drops the copy */
    c_aperture(d, WDDMSEG_OP_MAP_APERTURE, 3, 0, 1, WQ_LIST);
    run(d);
    ram_wr(d, qp[0] + 4, 0x0c0c3001);
    check_eq(peek(d, APT + 4), 0x0c0c3001,
             "non-coherent: remapped without MAP_CPU_CACHED, read from "
             "memory");

    fault_begin(d);
    c_aperture(d, WDDMSEG_OP_MAP_APERTURE, 3 | WDDMSEG_MAP_CACHE_COHERENT, 0,
               1, WQ_LIST);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "MAP_APERTURE CacheCoherent in a segment without CacheCoherent");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FLUSH_APERTURE, WDDMSEG_FLUSH_QWORDS), 1, 0, 1);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "FLUSH_APERTURE of a memory segment");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FLUSH_APERTURE, WDDMSEG_FLUSH_QWORDS), 3, 255, 2);
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "FLUSH_APERTURE past the aperture's last page");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FLUSH_APERTURE, WDDMSEG_FLUSH_QWORDS),
         3 | BIT_ULL(32), 0, 1);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "FLUSH_APERTURE segment word bit 32 set");
    wdev_stop(d);
}

/* ---- ring wrap-around ---------------------------------------------------- */

static void test_wrap(void)
{
    WDev *d = engine_start("", 0);

    /* NOP padding to the end, then commands from offset 0. */
    ring_enable(d, WQ_RING, 0x1000);
    c_nop(d, 506);
    c_fence(d, 0);
    run(d);
    check_idle(d, "wrap: a 506-qword NOP and a FENCE");
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), 0xff0,
             "wrap: RING_HEAD 0xff0, 16 bytes before the end");
    check_eq(seqno(d), d->seq, "wrap: the FENCE before the wrap ran");
    c_nop(d, 2);
    c_fence(d, 0);
    run(d);
    check_idle(d, "wrap: NOP padding to the end, FENCE at offset 0");
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), 0x20, "wrap: RING_HEAD 0x20");
    check_eq(seqno(d), d->seq, "wrap: the FENCE after the wrap ran");
    wdev_stop(d);
}

/* ---- faults -------------------------------------------------------------- */

static void test_faults(void)
{
    WDev *d = engine_start("", 0);
    const uint64_t pa[] = {
        WQ_SYS + 0xc000, WQ_SYS + 0xa000, WQ_SYS + 0xb000, WQ_SYS + 0xe000
    };
    const uint64_t misaligned = WQ_SYS + 0x800;
    const uint64_t bar0 = d->bar0.addr;
    const uint64_t unassigned = 0x7000000000ULL;

    qtest_memset(d->qts, WQ_SYS, 0x5a, 0x40000);
    for (uint32_t i = 0; i < 4; i++) {
        apt_set(d, 3, i, pa[i]);
    }
    ring_enable(d, WQ_RING, 64 << 10);

    fault_begin(d);
    EMIT(d, hdr(0x42, 1));
    fault_end(d, WDDMSEG_FAULT_BAD_OPCODE, "unknown opcode");
    /* Recovery. */
    wr(d, WDDMSEG_REG_RING_CTRL, WDDMSEG_RING_CTRL_RESET);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), WDDMSEG_RING_STATUS_IDLE,
             "RING_CTRL.RESET: disabled, not faulted, IDLE");
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), 0,
             "RING_CTRL.RESET clears FAULT_CODE");
    check_eq(rd(d, WDDMSEG_REG_FAULT_HEAD), 0,
             "RING_CTRL.RESET clears FAULT_HEAD");
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), 0, "RING_CTRL.RESET: RING_HEAD 0");
    check_eq(rd(d, WDDMSEG_REG_RING_TAIL), 0, "RING_CTRL.RESET: RING_TAIL 0");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), WDDMSEG_IRQ_ERROR,
             "RING_CTRL.RESET leaves IRQ_STATUS to the driver");
    check_eq(rd64(d, WDDMSEG_REG_RING_BASE_LO), WQ_RING,
             "RING_CTRL.RESET keeps RING_BASE");
    check_eq(rd(d, WDDMSEG_REG_RING_SIZE), 64 << 10,
             "RING_CTRL.RESET keeps RING_SIZE");
    d->rt = 0;
    wr(d, WDDMSEG_REG_RING_CTRL, WDDMSEG_RING_CTRL_ENABLE);
    c_fence(d, 0);
    run(d);
    check_idle(d, "after RING_CTRL.RESET and ENABLE");
    check_eq(seqno(d), d->seq, "the engine runs again after RESET");

    /* Bad packets. */
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS) | 0x100, 1, WQ_WB, 0);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "header bit 8 set");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS) | BIT_ULL(40), 1, WQ_WB,
         0);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "header bit 40 set");
    fault_begin(d);
    EMIT(d, WDDMSEG_OP_FENCE);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "length 0");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_TRANSFER, 7), 0, 1, 0, 0, 1, 0);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "TRANSFER of 7 qwords");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_TRANSFER, WDDMSEG_TRANSFER_QWORDS), 0x10, 1, 0, 1,
         2, 0, 0);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "loc word 2 not zero");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_TRANSFER, WDDMSEG_TRANSFER_QWORDS), 0x10,
         BIT_ULL(33) | 1, 0, 0, 2, 0, 0);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "loc segment id word bits 33..63 not zero");
    fault_begin(d);
    c_transfer(d, 0x10, seg_loc(1, 0), list_loc(WQ_LIST + 4, 0));
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "page list not 8-byte aligned");
    fault_begin(d);
    write_list(d, WQ_LIST + 0x4000, &misaligned, 1);
    c_transfer(d, 0x10, seg_loc(1, 0), list_loc(WQ_LIST + 0x4000, 0));
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "page list entry not page aligned");
    fault_begin(d);
    c_fill(d, 4, BIT_ULL(32), seg_loc(1, 0));
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "FILL pattern bits 32..63 not zero");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 1, WQ_WB, 2);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "unknown FENCE flag");
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 1, WQ_WB + 4, 0);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "FENCE writeback not 8-byte aligned");
    fault_begin(d);
    c_aperture(d, WDDMSEG_OP_MAP_APERTURE, 1, 0, 1, WQ_LIST);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "MAP_APERTURE of a memory segment");
    fault_begin(d);
    c_aperture(d, WDDMSEG_OP_MAP_APERTURE, 0, 0, 1, WQ_LIST);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET, "MAP_APERTURE of segment id 0");
    fault_begin(d);
    c_aperture(d, WDDMSEG_OP_MAP_APERTURE, 3 | BIT_ULL(34), 0, 1, WQ_LIST);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "MAP_APERTURE segment word bit 34 set");
    fault_begin(d);
    c_aperture(d, WDDMSEG_OP_UNMAP_APERTURE, 3, 0, 1, WQ_SYS + 0x800);
    fault_end(d, WDDMSEG_FAULT_BAD_PACKET,
              "UNMAP_APERTURE dummy page not page aligned");

    /* Out of range. */
    fault_begin(d);
    c_transfer(d, 16, seg_loc(1, 0), seg_loc(1, 64 * MiB - 8));
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "TRANSFER past the end of segment 1");
    fault_begin(d);
    c_transfer(d, 16, seg_loc(4, 0), seg_loc(1, 0));
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE, "segment id 4 (no such segment)");
    fault_begin(d);
    c_discard(d, 1, seg_loc(2, 64 * MiB));
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "DISCARD past the end of segment 2");
    fault_begin(d);
    c_phys(d, WDDMSEG_OP_READ_PHYSICAL, 4, 128 * MiB, WQ_PHYS);
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "READ_PHYSICAL of a GPU address in no segment");
    fault_begin(d);
    c_phys(d, WDDMSEG_OP_WRITE_PHYSICAL, 8, APT + 256 * MiB - 4, WQ_PHYS);
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "WRITE_PHYSICAL across the end of the aperture");
    fault_begin(d);
    c_aperture(d, WDDMSEG_OP_MAP_APERTURE, 3, 65535, 2, WQ_LIST);
    fault_end(d, WDDMSEG_FAULT_OUT_OF_RANGE,
              "MAP_APERTURE past the aperture's last page");
    check_eq(apt_get(d, 3, 65535), 0, "... which mapped nothing");

    /* Unmapped aperture pages. */
    fault_begin(d);
    c_transfer(d, 4, seg_loc(3, 20 * 4096), seg_loc(1, 0));
    fault_end(d, WDDMSEG_FAULT_UNMAPPED,
              "TRANSFER from an unmapped aperture page");
    fault_begin(d);
    c_fill(d, 0x2000, 0, seg_loc(3, 0x3000));
    fault_end(d, WDDMSEG_FAULT_UNMAPPED,
              "FILL running into an unmapped aperture page");
    check_eq(ram_rd(d, pl_addr(pa, 0, 0x3ffc)), 0,
             "... the mapped page before it was filled");

    /* DMA errors. */
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 1, unassigned, 0);
    fault_end(d, WDDMSEG_FAULT_DMA, "FENCE writeback to unassigned memory");
    fault_begin(d);
    write_list(d, WQ_LIST + 0x4000, &bar0, 1);
    c_transfer(d, 4, seg_loc(1, 0), list_loc(WQ_LIST + 0x4000, 0));
    fault_end(d, WDDMSEG_FAULT_DMA,
              "TRANSFER into the device's own BAR0 (re-entrancy guard)");
    check_eq(rd(d, WDDMSEG_REG_ID), WDDMSEG_ID_VALUE,
             "... and the registers are intact");
    fault_begin(d);
    c_transfer(d, 4, seg_loc(1, 0), list_loc(unassigned, 0));
    fault_end(d, WDDMSEG_FAULT_DMA, "page list in unassigned memory");
    wdev_stop(d);
}

/* Tails the ring cannot have, commands the ring does not hold. */
static void test_faults_ring(void)
{
    WDev *d = engine_start("", 0);
    uint64_t before;

    ring_enable(d, WQ_RING, 64 << 10);
    fault_begin(d);
    run(d);
    wr(d, WDDMSEG_REG_RING_TAIL, 0x24);
    wdev_settle(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), WDDMSEG_FAULT_BAD_PACKET,
             "fault RING_TAIL not a multiple of 8: FAULT_CODE");
    check_eq(rd(d, WDDMSEG_REG_FAULT_HEAD), 0x20,
             "fault RING_TAIL not a multiple of 8: FAULT_HEAD is RING_HEAD");
    ring_reset(d);
    wr(d, WDDMSEG_REG_RING_TAIL, 64 << 10);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), WDDMSEG_FAULT_BAD_PACKET,
             "fault RING_TAIL = RING_SIZE: FAULT_CODE");
    check_eq(rd(d, WDDMSEG_REG_RING_TAIL), 0,
             "... and RING_TAIL keeps its value");

    /* A command that stops short of the tail. */
    fault_begin(d);
    EMIT(d, hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS), 0xbad, WQ_WB, 0);
    d->rt -= 16;
    run(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), WDDMSEG_FAULT_BAD_PACKET,
             "fault command extends past RING_TAIL: FAULT_CODE");
    check_eq(rd(d, WDDMSEG_REG_FAULT_HEAD), 0x20,
             "fault command extends past RING_TAIL: FAULT_HEAD");

    /* A command that straddles the end of the ring. */
    ring_enable(d, WQ_RING, 0x1000);
    wr(d, WDDMSEG_REG_IRQ_STATUS, 0xffffffff);
    c_nop(d, 509);
    run(d);
    qtest_writeq(d->qts, WQ_RING + 0xfe8,
                 hdr(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS));
    d->rt = 0x8;
    run(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), WDDMSEG_FAULT_BAD_PACKET,
             "fault command straddles the ring end: FAULT_CODE");
    check_eq(rd(d, WDDMSEG_REG_FAULT_HEAD), 0xfe8,
             "fault command straddles the ring end: FAULT_HEAD");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), WDDMSEG_IRQ_ERROR,
             "fault command straddles the ring end: IRQ_STATUS.ERROR");

    /* A ring in unassigned memory. */
    ring_enable(d, 0x7000000000ULL, 0x1000);
    c_nop(d, 1);
    run(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), WDDMSEG_FAULT_DMA,
             "fault ring in unassigned memory: FAULT_CODE DMA");
    check_eq(rd(d, WDDMSEG_REG_FAULT_HEAD), 0,
             "fault ring in unassigned memory: FAULT_HEAD 0");

    /* Bus mastering off. */
    ring_enable(d, WQ_RING, 64 << 10);
    wdev_command(d, false);
    before = seqno(d);
    c_fence(d, 0);
    run(d);
    check_eq(rd(d, WDDMSEG_REG_FAULT_CODE), WDDMSEG_FAULT_DMA,
             "fault with bus mastering off: FAULT_CODE DMA");
    check_eq(seqno(d), before, "... the FENCE did not run");
    wdev_stop(d);
}

/* ---- injected faults, hangs, pausing ------------------------------------- */

static void test_inject(void)
{
    WDev *d = engine_start("", 0);
    uint64_t before;

    ring_enable(d, WQ_RING, 64 << 10);
    /* INJECT_FAULT: the next command faults. */
    c_fence(d, 0);
    run(d);
    wr(d, WDDMSEG_REG_IRQ_STATUS, 0xffffffff);
    wr(d, WDDMSEG_REG_INJECT, WDDMSEG_INJECT_FAULT);
    check_eq(rd(d, WDDMSEG_REG_INJECT), WDDMSEG_INJECT_FAULT,
             "INJECT reads back a pending INJECT_FAULT");
    wdev_settle(d);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), ENABLED_IDLE,
             "a pending INJECT_FAULT on an empty ring: still IDLE");
    fault_end(d, WDDMSEG_FAULT_INJECTED, "INJECT_FAULT");
    check_eq(rd(d, WDDMSEG_REG_INJECT), 0,
             "INJECT_FAULT is consumed by the fault");

    /* INJECT_HANG: nothing runs until RESET. */
    ring_reset(d);
    wr(d, WDDMSEG_REG_INJECT, WDDMSEG_INJECT_HANG);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), WDDMSEG_RING_STATUS_ENABLED,
             "INJECT_HANG on an empty ring: not IDLE");
    before = d->seq;
    c_fence(d, 0);
    run_settle(d);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), WDDMSEG_RING_STATUS_ENABLED,
             "INJECT_HANG: not IDLE with work queued");
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), 0,
             "INJECT_HANG: RING_HEAD does not move");
    check_eq(seqno(d), before, "INJECT_HANG: the FENCE did not run");
    check_eq(rd(d, WDDMSEG_REG_INJECT), WDDMSEG_INJECT_HANG,
             "INJECT reads back INJECT_HANG");
    wr(d, WDDMSEG_REG_RING_CTRL, WDDMSEG_RING_CTRL_RESET);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), WDDMSEG_RING_STATUS_IDLE,
             "RESET ends the hang: IDLE, disabled");
    check_eq(rd(d, WDDMSEG_REG_INJECT), 0, "RESET clears INJECT");
    d->rt = 0;
    wr(d, WDDMSEG_REG_RING_CTRL, WDDMSEG_RING_CTRL_ENABLE);
    c_fence(d, 0);
    run(d);
    check_idle(d, "after INJECT_HANG and RESET");
    check_eq(seqno(d), d->seq, "the engine runs again after a hang and RESET");

    /* Disabling pauses the ring; enabling resumes it. */
    wr(d, WDDMSEG_REG_RING_CTRL, 0);
    before = d->seq;
    c_fence(d, 0);
    run_settle(d);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), 0,
             "a disabled ring with work: neither ENABLED nor IDLE");
    check_eq(seqno(d), before, "... and its FENCE has not run");
    wr(d, WDDMSEG_REG_RING_CTRL, WDDMSEG_RING_CTRL_ENABLE);
    wait_engine(d);
    check_idle(d, "re-enabled ring");
    check_eq(seqno(d), d->seq, "re-enabling runs the queued FENCE");
    wdev_stop(d);
}

/* ---- interrupts ---------------------------------------------------------- */

/* INTx (pin A, GSI 20 here): level = IRQ_STATUS & IRQ_MASK. */
static void test_intx(void)
{
    WDev *d = engine_start("", 0);

    check_eq(qpci_config_readl(d->dev, PCI_INTERRUPT_LINE), 0x00000100,
             "interrupt pin A");
    ring_enable(d, WQ_RING, 64 << 10);
    qtest_irq_intercept_in(d->qts, "ioapic");
    wr(d, WDDMSEG_REG_IRQ_STATUS, 0xffffffff);
    wr(d, WDDMSEG_REG_IRQ_MASK, 0);
    c_fence(d, WDDMSEG_FENCE_IRQ);
    run(d);
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), WDDMSEG_IRQ_FENCE,
             "a masked FENCE interrupt still sets IRQ_STATUS");
    check_true(!qtest_get_irq(d->qts, WQ_GSI), "... but not INTx");
    wr(d, WDDMSEG_REG_IRQ_MASK, WDDMSEG_IRQ_FENCE);
    check_eq(rd(d, WDDMSEG_REG_IRQ_MASK), WDDMSEG_IRQ_FENCE,
             "IRQ_MASK reads back FENCE");
    check_true(qtest_get_irq(d->qts, WQ_GSI), "unmasking raises INTx");
    wr(d, WDDMSEG_REG_IRQ_STATUS, WDDMSEG_IRQ_FENCE);
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), 0, "IRQ_STATUS cleared");
    check_true(!qtest_get_irq(d->qts, WQ_GSI),
               "clearing IRQ_STATUS lowers INTx");
    c_fence(d, WDDMSEG_FENCE_IRQ);
    run(d);
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS), WDDMSEG_IRQ_FENCE,
             "another FENCE sets IRQ_STATUS.FENCE");
    check_true(qtest_get_irq(d->qts, WQ_GSI), "a FENCE raises INTx again");
    wr(d, WDDMSEG_REG_IRQ_MASK, 0);
    check_eq(rd(d, WDDMSEG_REG_IRQ_MASK), 0, "IRQ_MASK reads back 0");
    check_true(!qtest_get_irq(d->qts, WQ_GSI), "masking lowers INTx");
    /* A fault raises INTx through IRQ_STATUS.ERROR. */
    wr(d, WDDMSEG_REG_IRQ_MASK, WDDMSEG_IRQ_ERROR);
    check_true(!qtest_get_irq(d->qts, WQ_GSI),
               "unmasking ERROR with no fault raises nothing");
    EMIT(d, hdr(0x42, 1));
    run(d);
    check_true(qtest_get_irq(d->qts, WQ_GSI), "a fault raises INTx");
    wdev_stop(d);
}

static void test_msix(void)
{
    WDev *d = wdev_start("", WQ_NOMAP, NULL);
    const uint32_t data = 0x4d5349;
    uint8_t cap;

    cap = qpci_config_readb(d->dev, PCI_CAPABILITY_LIST);
    check_eq(qpci_config_readb(d->dev, cap), PCI_CAP_ID_PM,
             "capability list starts with the PM capability (device 1.5)");
    check_eq(qpci_config_readb(d->dev, cap + PCI_CAP_LIST_NEXT), 0x40,
             "... followed by the capability at 0x40");
    qpci_config_writel(d->dev, PCI_BASE_ADDRESS_1, 0xffffffff);
    check_eq(qpci_config_readl(d->dev, PCI_BASE_ADDRESS_1), 0xfffff000,
             "BAR1 (MSI-X) is 4 KiB of 32-bit MMIO");
    check_eq(qpci_config_readw(d->dev, 0x40), 0x0011,
             "capability 0x40 is MSI-X, the last one");
    check_eq(qpci_config_readl(d->dev, 0x40), 0x00000011,
             "MSI-X table size 1, disabled");
    cap = qpci_find_capability(d->dev, PCI_CAP_ID_MSIX, 0);
    check_eq(cap, 0x40, "qpci_find_capability() finds MSI-X at 0x40");
    check_eq(qpci_msix_table_size(d->dev), WDDMSEG_MSIX_VECTORS,
             "the MSI-X table has WDDMSEG_MSIX_VECTORS (1) entries");
    wdev_map(d);
    wdev_map_msix(d);
    wdev_command(d, true);
    qtest_irq_intercept_in(d->qts, "ioapic");
    /* Vector 0 writes its data to guest RAM, where the checks read it. */
    qpci_io_writel(d->dev, d->bar1, PCI_MSIX_ENTRY_LOWER_ADDR, WQ_MSI_ADDR);
    qpci_io_writel(d->dev, d->bar1, PCI_MSIX_ENTRY_UPPER_ADDR, 0);
    qpci_io_writel(d->dev, d->bar1, PCI_MSIX_ENTRY_DATA, data);
    qpci_io_writel(d->dev, d->bar1, PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    qpci_config_writel(d->dev, 0x40, 0x80000000);
    check_eq(qpci_config_readw(d->dev, 0x42) & PCI_MSIX_FLAGS_ENABLE,
             PCI_MSIX_FLAGS_ENABLE, "MSI-X enabled");
    wr(d, WDDMSEG_REG_IRQ_MASK, WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR);
    ring_enable(d, WQ_RING, 0x1000);
    c_fence(d, WDDMSEG_FENCE_IRQ);
    run(d);
    check_eq(ram_rd(d, WQ_MSI_ADDR), data,
             "a FENCE with FENCE_IRQ sends MSI-X vector 0");
    ram_wr(d, WQ_MSI_ADDR, 0);
    c_fence(d, WDDMSEG_FENCE_IRQ);
    run(d);
    check_eq(ram_rd(d, WQ_MSI_ADDR), data,
             "another FENCE sends it again, IRQ_STATUS.FENCE still set");
    ram_wr(d, WQ_MSI_ADDR, 0);
    wr(d, WDDMSEG_REG_IRQ_STATUS, 0xffffffff);
    wr(d, WDDMSEG_REG_IRQ_MASK, WDDMSEG_IRQ_ERROR);
    c_fence(d, WDDMSEG_FENCE_IRQ);
    run(d);
    check_eq(ram_rd(d, WQ_MSI_ADDR), 0,
             "a FENCE masked in IRQ_MASK sends no message");
    wr(d, WDDMSEG_REG_IRQ_MASK, WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR);
    check_eq(ram_rd(d, WQ_MSI_ADDR), data,
             "unmasking the pending FENCE bit sends the message");
    ram_wr(d, WQ_MSI_ADDR, 0);
    EMIT(d, hdr(0x42, 1));
    run(d);
    check_eq(ram_rd(d, WQ_MSI_ADDR), data, "a fault sends MSI-X vector 0");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS),
             WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR,
             "IRQ_STATUS has FENCE and ERROR");
    ram_wr(d, WQ_MSI_ADDR, 0);
    wr(d, WDDMSEG_REG_IRQ_MASK, WDDMSEG_IRQ_VBLANK | WDDMSEG_IRQ_SCANOUT_ERROR);
    wr(d, WDDMSEG_REG_SCANOUT_SEGMENT, 1);
    wr(d, WDDMSEG_REG_SCANOUT_WIDTH, 64);
    wr(d, WDDMSEG_REG_SCANOUT_HEIGHT, 32);
    wr(d, WDDMSEG_REG_SCANOUT_PITCH, 256);
    wr(d, WDDMSEG_REG_SCANOUT_FORMAT, WDDMSEG_SCANOUT_FMT_XRGB8888);
    wr(d, WDDMSEG_REG_SCANOUT_REFRESH_MHZ, 50000);
    wr(d, WDDMSEG_REG_SCANOUT_CTRL, WDDMSEG_SCANOUT_CTRL_ENABLE);
    wr(d, WDDMSEG_REG_SCANOUT_COMMIT, 1);
    check_eq(ram_rd(d, WQ_MSI_ADDR), data,
             "a scanout latch sends MSI-X vector 0");
    ram_wr(d, WQ_MSI_ADDR, 0);
    qtest_clock_step(d->qts, 20000000);
    check_eq(ram_rd(d, WQ_MSI_ADDR), data, "a vblank sends MSI-X vector 0");
    ram_wr(d, WQ_MSI_ADDR, 0);
    wr(d, WDDMSEG_REG_SCANOUT_SEGMENT, 2);
    wr(d, WDDMSEG_REG_SCANOUT_COMMIT, 1);
    qtest_clock_step(d->qts, 20000000);
    check_eq(ram_rd(d, WQ_MSI_ADDR), data,
             "a refused commit sends MSI-X vector 0");
    check_eq(rd(d, WDDMSEG_REG_IRQ_STATUS),
             WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR | WDDMSEG_IRQ_VBLANK |
             WDDMSEG_IRQ_SCANOUT_ERROR,
             "IRQ_STATUS has VBLANK and SCANOUT_ERROR too");
    check_true(!qtest_get_irq(d->qts, WQ_GSI),
               "no INTx while MSI-X is enabled");
    wdev_stop(d);
}

/* ---- long transfers ------------------------------------------------------ */

/*
 * x-batch-bytes=1M: the engine moves at most 1 MiB per batch, so 8
 * MiB take 8 runs at least, while register reads keep answering.
 */
static void test_long(void)
{
    WDev *d = engine_start(",x-batch-bytes=1M", 0);
    g_autofree uint64_t *list = g_new(uint64_t, 2048);

    ring_enable(d, WQ_RING, 0x1000);
    for (uint32_t m = 0; m < 8; m++) {
        vram_wr(d, m * MiB, 0xf0000000 | m);
        vram_wr(d, m * MiB + MiB - 4, 0xf1000000 | m);
    }
    for (int i = 0; i < 2048; i++) {
        list[i] = WQ_LONG + i * 4096ULL;
    }
    write_list(d, WQ_LONGLIST, list, 2048);
    c_transfer(d, 8 * MiB, seg_loc(1, 0), list_loc(WQ_LONGLIST, 0));
    c_fence(d, 0);
    /* With the VM stopped the engine cannot start: see it queued. */
    vm_stop(d);
    doorbell(d);
    wdev_settle(d);
    check_eq(rd(d, WDDMSEG_REG_RING_STATUS), WDDMSEG_RING_STATUS_ENABLED,
             "8 MiB TRANSFER: busy until it has run");
    check_eq(rd(d, WDDMSEG_REG_RING_HEAD), 0,
             "8 MiB TRANSFER: RING_HEAD at the TRANSFER");
    check_eq(rd(d, WDDMSEG_REG_ID), WDDMSEG_ID_VALUE,
             "8 MiB TRANSFER: registers answer meanwhile");
    check_eq(seqno(d), 0, "8 MiB TRANSFER: the FENCE after it has not run");
    vm_cont(d);
    wait_engine(d);
    check_idle(d, "8 MiB TRANSFER");
    check_eq(seqno(d), d->seq, "8 MiB TRANSFER: the FENCE after it ran");
    for (uint32_t m = 0; m < 8; m++) {
        check_eq(ram_rd(d, WQ_LONG + m * MiB), 0xf0000000 | m,
                 "8 MiB TRANSFER: first word of MiB %u", m);
        check_eq(ram_rd(d, WQ_LONG + m * MiB + MiB - 4), 0xf1000000 | m,
                 "8 MiB TRANSFER: last word of MiB %u", m);
    }
    /* Overlapping VRAM -> VRAM over several runs: memmove semantics. */
    c_transfer(d, 3 * MiB, seg_loc(1, 0), seg_loc(1, MiB));
    run(d);
    check_idle(d, "overlapping 3 MiB VRAM TRANSFER");
    for (uint32_t m = 0; m < 3; m++) {
        check_eq(vram_rd(d, (m + 1) * MiB), 0xf0000000 | m,
                 "overlapping TRANSFER: MiB %u moved up, first word", m);
        check_eq(vram_rd(d, (m + 2) * MiB - 4), 0xf1000000 | m,
                 "overlapping TRANSFER: MiB %u moved up, last word", m);
    }
    wdev_stop(d);
}

/*
 * x-engine-poll-us: above 10000 QEMU refuses to start; with 0 the engine's
 * thread never polls and every doorbell must wake it, with 10000 it polls
 * its longest window. Either way each job runs: 32 doorbells, one FENCE
 * each, waited for one by one, then a burst of 32 FENCEs on one doorbell.
 */
static void test_poll(void)
{
    static const char *const ok[] = {
        ",x-engine-poll-us=0", ",x-engine-poll-us=10000",
    };

    check_true(wq_refused("-device wddmseg,addr=0x4,x-engine-poll-us=10001",
                          "x-engine-poll-us must be at most 10000"),
               "x-engine-poll-us=10001 rejected");
    for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
        WDev *d = engine_start(ok[i], 0);

        ring_enable(d, WQ_RING, 0x1000);
        for (int n = 0; n < 32; n++) {
            c_fence(d, 0);
            if (!(run(d) & WDDMSEG_RING_STATUS_IDLE)) {
                break;  /* the checks below say what is wrong */
            }
        }
        check_idle(d, ok[i]);
        check_eq(seqno(d), d->seq, "%s: 32 FENCEs, a doorbell each", ok[i]);
        for (int n = 0; n < 32; n++) {
            c_fence(d, 0);
        }
        run(d);
        check_idle(d, ok[i]);
        check_eq(seqno(d), d->seq, "%s: 32 FENCEs on one doorbell", ok[i]);
        wdev_stop(d);
    }
}

int main(int argc, char **argv)
{
    wq_init(&argc, &argv);
    wq_add("engine/ring-setup", test_ring_setup);
    wq_add("engine/fence", test_fence);
    wq_add("engine/transfer", test_transfer);
    wq_add("engine/fill-discard", test_fill);
    wq_add("engine/vram-list", test_vram_list);
    wq_add("engine/map-aperture", test_map_aperture);
    wq_add("engine/noncoherent", test_noncoherent);
    wq_add("engine/wrap", test_wrap);
    wq_add("engine/faults", test_faults);
    wq_add("engine/faults-ring", test_faults_ring);
    wq_add("engine/inject", test_inject);
    wq_add("engine/intx", test_intx);
    wq_add("engine/msix", test_msix);
    wq_add("engine/long", test_long);
    wq_add("engine/poll", test_poll);
    return wq_run();
}
