/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg qtests: PCI identity and BARs, the registers of the default
 * layout, custom layouts (banks, the size properties, the limits),
 * malformed layout strings QEMU must refuse, the VRAM window (BAR4),
 * the aperture page tables, the GPU-view read port (PEEK) and STATUS.
 */

#include "qemu/osdep.h"

#include "wddmseg-qtest.h"

/* check_seg(): the descriptor of table entry i and its first free bank. */
static void check_seg(WDev *d, unsigned int i, uint64_t base, uint64_t cpu,
                      uint64_t size, uint64_t commit, uint32_t flags,
                      uint32_t nbanks, const uint64_t *banks, unsigned int nb)
{
    unsigned int id = i + 1, j;

    check_eq(seg_rd64(d, i, WDDMSEG_SEG_BASE_LO), base,
             "segment %u BASE = 0x%" PRIx64, id, base);
    check_eq(seg_rd64(d, i, WDDMSEG_SEG_CPU_LO), cpu,
             "segment %u CPU = 0x%" PRIx64, id, cpu);
    check_eq(seg_rd64(d, i, WDDMSEG_SEG_SIZE_LO), size,
             "segment %u SIZE = 0x%" PRIx64, id, size);
    check_eq(seg_rd64(d, i, WDDMSEG_SEG_COMMIT_LO), commit,
             "segment %u COMMIT = 0x%" PRIx64, id, commit);
    check_eq(seg_rd(d, i, WDDMSEG_SEG_FLAGS), flags,
             "segment %u FLAGS = 0x%x", id, flags);
    check_eq(seg_rd(d, i, WDDMSEG_SEG_NB_BANKS), nbanks,
             "segment %u NB_BANKS = %u", id, nbanks);
    for (j = 0; j < nb; j++) {
        check_eq(seg_rd64(d, i, WDDMSEG_SEG_BANK_LO(j)), banks[j],
                 "segment %u BANK[%u] = 0x%" PRIx64, id, j, banks[j]);
    }
    /* The first bank slot past the listed ones reads 0. */
    if (j < WDDMSEG_SEG_BANK_MAX) {
        check_eq(seg_rd64(d, i, WDDMSEG_SEG_BANK_LO(j)), 0,
                 "segment %u BANK[%u] (unlisted) = 0", id, j);
    }
}

/* The default layout: 64 MiB visible, 64 MiB invisible, a 256 MiB aperture. */
static void check_default_segs(WDev *d)
{
    check_seg(d, 0, 0, d->bar2.addr, 64 * MiB, 64 * MiB, 0x484, 0, NULL, 0);
    check_seg(d, 1, 64 * MiB, 0, 64 * MiB, 64 * MiB, 0, 0, NULL, 0);
    check_seg(d, 2, 4 * GiB, 0, 256 * MiB, 128 * MiB, 0x11, 0, NULL, 0);
}

static uint32_t cfg_probe(WDev *d, uint8_t off, uint32_t val)
{
    qpci_config_writel(d->dev, off, val);
    return qpci_config_readl(d->dev, off);
}

static void count_dev(QPCIDevice *dev, int devfn, void *data)
{
    int *found = data;

    found[0]++;
    found[1] = devfn;
    g_free(dev);
}

/* ---- PCI identity and BARs ----------------------------------------------- */

static void test_pci_bars(void)
{
    WDev *d = wdev_start("", WQ_NOMAP, NULL);
    int found[2] = { 0, -1 };

    qpci_device_foreach(d->bus, WDDMSEG_PCI_VENDOR_ID, WDDMSEG_PCI_DEVICE_ID,
                        count_dev, found);
    check_eq(found[0], 1, "one wddmseg device on bus 0");
    check_eq(found[1], QPCI_DEVFN(WQ_SLOT, 0), "... at 00:04.0");
    check_eq(qpci_config_readl(d->dev, PCI_VENDOR_ID), 0x01501b36,
             "PCI vendor 0x1b36, device 0x0150");
    check_eq(qpci_config_readl(d->dev, PCI_CLASS_REVISION), 0x03800001,
             "PCI class 0x0380 (display, other), revision 1");
    check_eq(cfg_probe(d, PCI_BASE_ADDRESS_0, 0xffffffff), 0xffffc000,
             "BAR0 is 16 KiB of 32-bit MMIO");
    check_eq(cfg_probe(d, PCI_BASE_ADDRESS_2, 0xffffffff), 0xfc00000c,
             "BAR2 is 64 MiB, 64-bit, prefetchable");
    check_eq(cfg_probe(d, PCI_BASE_ADDRESS_3, 0xffffffff), 0xffffffff,
             "BAR2 high half is writable (64-bit BAR)");
    check_eq(cfg_probe(d, PCI_BASE_ADDRESS_4, 0xffffffff), 0xfff00000,
             "BAR4 is 1 MiB of 32-bit non-prefetchable memory");
    check_eq(cfg_probe(d, PCI_BASE_ADDRESS_5, 0xffffffff), 0,
             "BAR5 is not implemented");
    check_eq(cfg_probe(d, PCI_ROM_ADDRESS, 0xfffff800), 0,
             "no expansion ROM");
    qpci_config_writel(d->dev, PCI_BASE_ADDRESS_3, 0);
    wdev_map(d);
    check_eq(qpci_io_readl(d->dev, d->bar0, WDDMSEG_REG_ID),
             WDDMSEG_ID_VALUE, "BAR0 maps the registers (ID)");
    wdev_stop(d);
}

/* ---- the default layout -------------------------------------------------- */

static void test_regs_default(void)
{
    WDev *d = wdev_start("", 0, NULL);
    uint32_t bar2_lo = d->bar2.addr;

    check_eq(rd(d, WDDMSEG_REG_ID), 0x57445347, "ID reads 'WDSG'");
    check_eq(rd(d, WDDMSEG_REG_VERSION), WDDMSEG_VERSION_CURRENT,
             "VERSION reads %u.%u (WDDMSEG_VERSION_CURRENT)",
             WDDMSEG_VERSION_MAJOR(WDDMSEG_VERSION_CURRENT),
             WDDMSEG_VERSION_MINOR(WDDMSEG_VERSION_CURRENT));
    check_eq(rd(d, WDDMSEG_REG_VERSION), 0x0001000a,
             "VERSION is 1.10 (composed planes, CURSOR_COMMIT)");
    check_eq(rd(d, WDDMSEG_REG_VIDMM_CAPS), 0, "VIDMM_CAPS = 0");
    check_eq(rd(d, WDDMSEG_REG_PAGING_NODE), 0, "PAGING_NODE = 0");
    check_eq(rd(d, WDDMSEG_REG_NUM_ENGINES), 1, "NUM_ENGINES = 1");
    check_eq(rd(d, WDDMSEG_REG_SEG_COUNT), 3, "SEG_COUNT = 3");
    check_eq(rd64(d, WDDMSEG_REG_VRAM_SIZE_LO), 128 * MiB,
             "VRAM_SIZE = vis-size + invis-size");
    check_default_segs(d);
    check_eq(seg_rd(d, 3, WDDMSEG_SEG_SIZE_LO), 0,
             "slot 4 (past SEG_COUNT) reads 0");
    check_eq(qpci_io_readq(d->dev, d->bar0,
                           WDDMSEG_SEG_REG(0, WDDMSEG_SEG_SIZE_LO)),
             64 * MiB, "64-bit read of SIZE_LO/HI");
    wr(d, WDDMSEG_REG_ID, 0);
    check_eq(rd(d, WDDMSEG_REG_ID), 0x57445347,
             "writes to read-only registers are ignored");
    check_eq(rd(d, 0x800), 0, "unknown register reads 0");
    vram_wr(d, 0x1000, 0xcafef00d);
    check_eq(vram_rd(d, 0x1000), 0xcafef00d, "BAR2 is backed by VRAM");
    vram_wr(d, 64 * MiB - 4, 0x600dd00d);
    check_eq(vram_rd(d, 64 * MiB - 4), 0x600dd00d,
             "last word of BAR2 is backed by VRAM");
    /* Move BAR2 above 4 GiB: the CPU translated address follows it. */
    qpci_config_writel(d->dev, PCI_BASE_ADDRESS_3, 0x9);
    check_eq(seg_rd64(d, 0, WDDMSEG_SEG_CPU_LO), 0x900000000ULL | bar2_lo,
             "segment 1 CPU follows BAR2 to 0x9%08x", bar2_lo);
    /* Unmap BAR2 (address 0): the register reads the bare offset. */
    qpci_config_writel(d->dev, PCI_BASE_ADDRESS_2, 0);
    qpci_config_writel(d->dev, PCI_BASE_ADDRESS_3, 0);
    check_eq(seg_rd64(d, 0, WDDMSEG_SEG_CPU_LO), 0,
             "segment 1 CPU is the offset (0) with BAR2 unmapped");
    wdev_stop(d);
}

/* The default layout written out (the rst's example). */
static void test_layout_rst_example(void)
{
    WDev *d = wdev_start(",layout=0:0|0:0:64M:64M:0x484|64M:-:64M:64M:0|"
                         "0x100000000:-:256M:128M:0x11", 0, NULL);

    check_eq(rd(d, WDDMSEG_REG_SEG_COUNT), 3, "SEG_COUNT = 3");
    check_default_segs(d);
    wdev_stop(d);
}

/* ---- custom layouts ------------------------------------------------------ */

static void test_layout_custom(void)
{
    WDev *d = wdev_start(",layout=0x10:0|0:0:1M:1M:0x0d:2:512K/1M|"
                         "1M:-:1M:1M:0|2M:0x100000:2M:3M:8:5:4K", 0, NULL);
    static const uint64_t banks1[] = { 512 << 10, MiB };
    static const uint64_t banks3[] = { 0x1000 };

    check_eq(rd(d, WDDMSEG_REG_VIDMM_CAPS), 0x10, "VIDMM_CAPS from the layout");
    check_eq(rd(d, WDDMSEG_REG_PAGING_NODE), 0, "PAGING_NODE from the layout");
    check_eq(rd(d, WDDMSEG_REG_SEG_COUNT), 3, "SEG_COUNT = 3");
    check_seg(d, 0, 0, d->bar2.addr, MiB, MiB, 0x0d, 2, banks1, 2);
    check_seg(d, 1, MiB, 0, MiB, MiB, 0, 0, NULL, 0);
    check_seg(d, 2, 2 * MiB, d->bar2.addr + 0x100000, 2 * MiB, 3 * MiB, 0x8,
              5, banks3, 1);
    qpci_config_writel(d->dev, PCI_BASE_ADDRESS_2, 0);
    qpci_config_writel(d->dev, PCI_BASE_ADDRESS_3, 0);
    check_eq(seg_rd64(d, 2, WDDMSEG_SEG_CPU_LO), 0x100000,
             "segment 3 CPU is the offset (0x100000) with BAR2 unmapped");
    wdev_stop(d);
}

/* No segment at all; VIDMM_CAPS and PAGING_NODE still come through. */
static void test_layout_empty(void)
{
    WDev *d = wdev_start(",layout=0x3ffff:7", 0, NULL);

    check_eq(rd(d, WDDMSEG_REG_SEG_COUNT), 0,
             "layout '0x3ffff:7' has SEG_COUNT 0");
    check_eq(rd(d, WDDMSEG_REG_VIDMM_CAPS), 0x3ffff, "VIDMM_CAPS 0x3ffff");
    check_eq(rd(d, WDDMSEG_REG_PAGING_NODE), 7, "PAGING_NODE 7");
    wdev_stop(d);
}

/* 8 segments, 16 banks, 32-bit maxima. */
static void test_layout_full(void)
{
    g_autoptr(GString) opts = g_string_new(",layout=0xffffffff:0");
    uint64_t banks[16];
    WDev *d;

    for (int i = 0; i < 8; i++) {
        g_string_append_printf(opts, "|%dG:-:4K:4K:%s", i,
                               i < 7 ? "0" : "0xffffffff:0xffffffff:");
    }
    for (int j = 0; j < 16; j++) {
        banks[j] = j + 1;
        g_string_append_printf(opts, "%s%d", j ? "/" : "", j + 1);
    }
    d = wdev_start(opts->str, 0, NULL);
    check_eq(rd(d, WDDMSEG_REG_SEG_COUNT), 8, "SEG_COUNT = 8");
    check_eq(rd(d, WDDMSEG_REG_VIDMM_CAPS), 0xffffffff,
             "VIDMM_CAPS 0xffffffff");
    check_seg(d, 7, 7 * GiB, 0, 4096, 4096, 0xffffffff, 0xffffffff, banks, 16);
    wdev_stop(d);
}

/* The size properties. */
static void test_layout_props(void)
{
    WDev *d = wdev_start(",vis-size=3M,invis-size=5G,aperture-size=8G,"
                         "aperture-commit=6G,vram-size=1M", WQ_NOMAP, NULL);

    check_eq(cfg_probe(d, PCI_BASE_ADDRESS_2, 0xffffffff), 0xffc0000c,
             "vis-size 3M gives a 4 MiB BAR2");
    wdev_map(d);
    check_eq(rd64(d, WDDMSEG_REG_VRAM_SIZE_LO), MiB,
             "VRAM_SIZE reports vram-size (1M)");
    check_seg(d, 0, 0, d->bar2.addr, 3 * MiB, 3 * MiB, 0x484, 0, NULL, 0);
    check_seg(d, 1, 3 * MiB, 0, 5 * GiB, 5 * GiB, 0, 0, NULL, 0);
    check_seg(d, 2, 4 * GiB, 0, 8 * GiB, 6 * GiB, 0x11, 0, NULL, 0);
    vram_wr(d, 4 * MiB - 4, 0x12345678);
    check_eq(vram_rd(d, 4 * MiB - 4), 0x12345678,
             "BAR2 beyond vram-size is still backed");
    /* The window must stay inside vram-size, even where BAR2 goes on. */
    window(d, 0);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), 0,
             "window base 0 accepted with 1 MiB of VRAM");
    window(d, MiB);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), 0,
             "window base 1 MiB refused: past vram-size (1M), though BAR2 "
             "is 4 MiB");
    /* aperture-size 8G: 2 Mi page table entries. */
    apt_set(d, 3, 2 * MiB - 1, 0x3000);
    check_eq(apt_get(d, 3, 2 * MiB - 1), 0x3000,
             "last entry of an 8 GiB aperture");
    apt_set(d, 3, 2 * MiB, 0x3000);
    check_eq(rd(d, WDDMSEG_REG_STATUS), WDDMSEG_STATUS_APT_ERROR,
             "page 2 Mi of an 8 GiB aperture is out of range");
    wdev_stop(d);
}

/* ---- malformed layout strings -------------------------------------------- */

typedef struct Malformed {
    const char *layout;
    const char *what;
} Malformed;

static const Malformed malformed[] = {
    { "", "empty string" },
    { "0", "NODE missing" },
    { "0:0|0:0:1M:1M", "FLAGS missing" },
    { "0:0|0:0:1M:1M:0|", "empty segment after '|'" },
    { "0:0|0:0:1Q:1M:0", "unknown suffix" },
    { "0:0|0:0:1m:1M:0", "lower-case suffix" },
    { "0:0|0:x:1M:1M:0", "CPU neither a number nor '-'" },
    { "0:0|0:-:1M:1M:0x100000000", "FLAGS above 32 bits" },
    { "0:0|0:-:1M:1M:0:1:1M/", "empty bank END" },
    { "0:0|0:-:1M:1M:0:17:1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17",
      "17 bank entries" },
    { "0:0|0:-:1M:1M:0:0:1M:5", "field after BANKS" },
    { "0:0|0:-:010:1M:0", "octal-looking number" },
    { "0:0|0:-:0x:1M:0", "0x without digits" },
    { "0:0|0:-:99999999999999999999:1M:0", "number above 64 bits" },
    { "0:0|0:-:0xffffffffffffffffG:1M:0", "suffix overflows 64 bits" },
    { "0:0|0:-: 1M:1M:0", "blank space" },
    { "0:0|0:-:-1:1M:0", "negative number" },
    { "0:0|0:-:4K:4K:0|0:-:4K:4K:0|0:-:4K:4K:0|0:-:4K:4K:0|0:-:4K:4K:0|"
      "0:-:4K:4K:0|0:-:4K:4K:0|0:-:4K:4K:0|0:-:4K:4K:0", "9 segments" },
};

/* QEMU must refuse to start, naming the layout and why. */
static void test_layout_malformed(const void *data)
{
    const Malformed *m = data;
    g_autofree char *dev = g_strdup_printf("wddmseg,addr=0x4,layout=%s",
                                           m->layout);
    g_autofree char *q = wq_quote(dev);
    g_autofree char *args = g_strdup_printf("-device %s", q);

    check_true(wq_refused(args, "wddmseg,addr=0x4,layout=.*: malformed "
                          "layout '.*': .* at offset [0-9]"),
               "malformed layout rejected (%s)", m->what);
}

/* ---- the VRAM window (BAR4) ---------------------------------------------- */

static void test_window(void)
{
    WDev *d = wdev_start("", WQ_LOG, NULL);
    const uint64_t last = 127 * MiB;

    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), 0,
             "WINDOW_BASE is 0 after reset");
    vram_wr(d, 0x1000, 0x0a0b0c0d);
    check_eq(win_rd(d, 0x1000), 0x0a0b0c0d,
             "BAR4 at base 0 shows the start of VRAM");
    vram_wr(d, 3 * MiB + 0x10, 0xa5a50003);
    window(d, 3 * MiB);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), 3 * MiB,
             "WINDOW_BASE moves to 3 MiB");
    check_eq(win_rd(d, 0x10), 0xa5a50003,
             "BAR4 shows VRAM at 3 MiB (written through BAR2)");
    win_wr(d, WDDMSEG_WINDOW_SIZE - 4, 0x5a5a0004);
    check_eq(vram_rd(d, 4 * MiB - 4), 0x5a5a0004,
             "a write through BAR4 lands in VRAM (read through BAR2)");
    wr(d, WDDMSEG_REG_WINDOW_BASE_LO, 5 * MiB);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), 3 * MiB,
             "WINDOW_BASE_LO alone neither moves the window nor reads back");
    check_eq(win_rd(d, 0x10), 0xa5a50003,
             "BAR4 still shows 3 MiB after a LO write");
    wr(d, WDDMSEG_REG_WINDOW_BASE_HI, 0);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), 5 * MiB,
             "writing WINDOW_BASE_HI applies LO|HI (5 MiB)");
    qpci_io_writeq(d->dev, d->bar0, WDDMSEG_REG_WINDOW_BASE_LO, 3 * MiB);
    check_eq(qpci_io_readq(d->dev, d->bar0, WDDMSEG_REG_WINDOW_BASE_LO),
             3 * MiB, "a 64-bit write of WINDOW_BASE applies it");
    check_eq(win_rd(d, 0x10), 0xa5a50003, "BAR4 follows the 64-bit write");
    /*
     * CPU-invisible VRAM, beyond BAR2: write it through BAR4, read it as
     * the GPU.
     */
    window(d, 100 * MiB);
    win_wr(d, 0x1230, 0xdeadbeef);
    check_eq(peek(d, 100 * MiB + 0x1230), 0xdeadbeef,
             "invisible VRAM written through BAR4 reads back through PEEK");
    window(d, last);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), last,
             "the last window (127 MiB) is accepted");
    win_wr(d, WDDMSEG_WINDOW_SIZE - 4, 0x1badb002);
    check_eq(peek(d, 128 * MiB - 4), 0x1badb002,
             "last word of VRAM written through BAR4 reads back through "
             "PEEK");
    check_eq(peek(d, 0x1000), 0x0a0b0c0d,
             "PEEK reads visible VRAM written through BAR2");
    check_eq(rd(d, WDDMSEG_REG_STATUS), 0,
             "no STATUS bit after valid window and PEEK accesses");
    /* Refused bases: the window stays at 127 MiB. */
    window(d, last + 512 * 1024);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), last,
             "misaligned window base refused");
    window(d, 128 * MiB);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), last,
             "window base past VRAM (128 MiB) refused");
    window(d, 1ULL << 32);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), last,
             "window base 4 GiB (HI set) refused");
    window(d, 0xfffffffffff00000ULL);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), last,
             "window base 2^64 - 1 MiB (base + size overflows) refused");
    check_eq(win_rd(d, WDDMSEG_WINDOW_SIZE - 4), 0x1badb002,
             "BAR4 still shows 127 MiB after refused bases");
    check_eq(rd(d, WDDMSEG_REG_STATUS), 0,
             "refused window bases set no STATUS bit");
    wdev_quit(d);
    check_eq(wdev_log_count(d, "window base 0x[0-9a-f]* is not a multiple"),
             4, "each refused base is logged as a guest error");
    wdev_stop(d);
}

/* Less VRAM than the window: no base is valid, BAR4 stays at 0, backed. */
static void test_window_tiny_vram(void)
{
    WDev *d = wdev_start(",vis-size=4K,invis-size=0", 0, NULL);

    window(d, 0);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), 0,
             "with 4 KiB of VRAM the window stays at 0");
    win_wr(d, WDDMSEG_WINDOW_SIZE - 4, 0x600d0001);
    check_eq(win_rd(d, WDDMSEG_WINDOW_SIZE - 4), 0x600d0001,
             "BAR4 past a 4 KiB VRAM is still backed");
    wdev_stop(d);
}

/* ---- aperture page tables, PEEK, STATUS ---------------------------------- */

#define APT (4 * GiB)       /* default layout: segment 3, 65536 pages */

static void check_status(WDev *d, uint32_t want, const char *what)
{
    check_eq(rd(d, WDDMSEG_REG_STATUS), want, "%s", what);
}

static void test_aperture(void)
{
    WDev *d = wdev_start("", WQ_LOG | WQ_STDERR, NULL);
    const uint32_t APT_ERROR = WDDMSEG_STATUS_APT_ERROR;
    const uint32_t PEEK_FAULT = WDDMSEG_STATUS_PEEK_FAULT;

    check_status(d, 0, "STATUS is 0 after reset");
    check_eq(apt_get(d, 3, 0), 0,
             "aperture entries are 0 (unmapped) after reset");
    apt_set(d, 3, 0, 0x12345000);
    check_eq(apt_get(d, 3, 0), 0x12345000, "APT entry write and read-back");
    apt_set(d, 3, 65535, 0x1fedcb000ULL);
    check_eq(apt_get(d, 3, 65535), 0x1fedcb000ULL,
             "last entry of the 256 MiB aperture, 64-bit address");
    check_eq(apt_get(d, 3, 0), 0x12345000, "first entry unchanged");
    check_eq(rd(d, WDDMSEG_REG_APT_SEGMENT), 3, "APT_SEGMENT reads back");
    check_eq(rd(d, WDDMSEG_REG_APT_PAGE), 0, "APT_PAGE reads back");
    check_eq(qpci_io_readq(d->dev, d->bar0, WDDMSEG_REG_APT_ADDR_LO),
             0x12345000, "64-bit read of APT_ADDR");
    check_status(d, 0, "valid APT writes set no STATUS bit");
    apt_set(d, 3, 65536, 0x1000);
    check_status(d, APT_ERROR,
                 "APT write past the segment's pages sets APT_ERROR");
    check_eq(apt_get(d, 3, 65536), 0,
             "APT_ADDR of an out-of-range page reads 0");
    clear_status(d);
    check_status(d, 0, "STATUS cleared by writing 1s");
    apt_set(d, 1, 0, 0x1000);
    check_status(d, APT_ERROR, "APT write to a memory segment sets APT_ERROR");
    check_eq(apt_get(d, 1, 0), 0, "APT_ADDR of a memory segment reads 0");
    clear_status(d);
    apt_set(d, 0, 0, 0x1000);
    check_status(d, APT_ERROR, "APT write to segment id 0 sets APT_ERROR");
    clear_status(d);
    apt_set(d, 4, 0, 0x1000);
    check_status(d, APT_ERROR,
                 "APT write to a segment id past SEG_COUNT sets APT_ERROR");
    clear_status(d);
    apt_set(d, 0xffffffff, 0, 0x1000);
    check_status(d, APT_ERROR,
                 "APT write to segment id 0xffffffff sets APT_ERROR");
    clear_status(d);
    apt_set(d, 3, 0, 0x12345800);
    check_status(d, APT_ERROR,
                 "APT write of a misaligned address sets APT_ERROR");
    check_eq(apt_get(d, 3, 0), 0x12345000, "... and is dropped");
    clear_status(d);
    apt_set(d, 3, 0, 0);
    check_eq(apt_get(d, 3, 0), 0, "APT address 0 unmaps the page");
    check_status(d, 0, "unmapping sets no STATUS bit");

    /* PEEK through the aperture into guest RAM written by qtest. */
    ram_wr(d, WQ_RAM, 0x11223344);
    ram_wr(d, WQ_RAM + 0xffc, 0x55667788);
    ram_wr(d, WQ_RAM + 0x1000, 0x99aabbcc);
    apt_set(d, 3, 1, WQ_RAM);
    apt_set(d, 3, 2, WQ_RAM + 0x1000);
    wdev_command(d, true);
    check_eq(peek(d, APT + 0x1000), 0x11223344,
             "PEEK through an aperture entry reads guest RAM");
    check_eq(peek(d, APT + 0x1ffc), 0x55667788,
             "PEEK of the last word of an aperture page");
    check_eq(peek(d, APT + 0x2000), 0x99aabbcc,
             "PEEK through the next aperture entry");
    ram_wr(d, WQ_RAM, 0xcafe0001);
    check_eq(peek(d, APT + 0x1000), 0xcafe0001,
             "PEEK sees guest RAM as it is now");
    check_status(d, 0, "mapped PEEKs set no STATUS bit");
    check_eq(peek(d, APT + 0x3000), 0xffffffff,
             "PEEK of an unmapped aperture page reads 0xffffffff");
    check_status(d, PEEK_FAULT, "... and sets PEEK_FAULT");
    clear_status(d);
    check_eq(peek(d, APT), 0xffffffff,
             "PEEK of an unmapped (cleared) page 0 faults");
    check_status(d, PEEK_FAULT, "... PEEK_FAULT");
    clear_status(d);
    check_eq(peek(d, 128 * MiB), 0xffffffff,
             "PEEK between VRAM and the aperture (no segment) faults");
    check_status(d, PEEK_FAULT, "... PEEK_FAULT");
    clear_status(d);
    check_eq(peek(d, APT + 256 * MiB), 0xffffffff,
             "PEEK just past the aperture faults");
    check_status(d, PEEK_FAULT, "... PEEK_FAULT");
    clear_status(d);
    check_eq(peek(d, 0x1002), 0xffffffff,
             "PEEK of a misaligned address faults");
    check_status(d, PEEK_FAULT, "... PEEK_FAULT");
    clear_status(d);
    apt_set(d, 3, 4, 0x7000000000ULL);
    check_eq(peek(d, APT + 0x4000), 0xffffffff,
             "PEEK through an entry at unassigned memory faults (DMA error)");
    check_status(d, PEEK_FAULT, "... PEEK_FAULT");
    clear_status(d);
    apt_set(d, 3, 5, d->bar0.addr);
    check_eq(peek(d, APT + 0x5000), 0xffffffff,
             "PEEK through an entry at the device's own BAR0 faults "
             "(re-entrancy guard)");
    clear_status(d);
    vram_wr(d, 0x2000, 0x0ddba110);
    apt_set(d, 3, 6, d->bar2.addr + 0x2000);
    check_eq(peek(d, APT + 0x6000), 0x0ddba110,
             "PEEK through an entry at the device's own BAR2 reads VRAM");
    wdev_command(d, false);
    check_eq(peek(d, APT + 0x1000), 0xffffffff,
             "PEEK through the aperture with bus mastering off faults");
    check_status(d, PEEK_FAULT, "... PEEK_FAULT");
    /* STATUS bits are sticky and cleared one by one. */
    apt_set(d, 0, 0, 0);
    check_status(d, APT_ERROR | PEEK_FAULT, "STATUS holds both sticky bits");
    wr(d, WDDMSEG_REG_STATUS, 0);
    check_status(d, APT_ERROR | PEEK_FAULT,
                 "writing 0 to STATUS clears nothing");
    wr(d, WDDMSEG_REG_STATUS, PEEK_FAULT);
    check_status(d, APT_ERROR,
                 "writing PEEK_FAULT to STATUS clears only PEEK_FAULT");
    wr(d, WDDMSEG_REG_STATUS, ~APT_ERROR);
    check_status(d, APT_ERROR, "writing other bits leaves APT_ERROR");
    wr(d, WDDMSEG_REG_STATUS, APT_ERROR);
    check_status(d, 0, "writing APT_ERROR clears it");
    wr64(d, WDDMSEG_REG_PEEK_ADDR_LO, 0x123456788ULL);
    check_eq(rd64(d, WDDMSEG_REG_PEEK_ADDR_LO), 0x123456788ULL,
             "PEEK_ADDR reads back");
    vram_wr(d, 0x1000, 0x0a0b0c0d);
    check_eq(peek(d, 0x1000), 0x0a0b0c0d,
             "PEEK of VRAM needs no bus mastering");
    wr(d, WDDMSEG_REG_PEEK_DATA, 0);
    check_eq(rd(d, WDDMSEG_REG_PEEK_DATA), 0x0a0b0c0d,
             "PEEK_DATA is read-only");
    wdev_quit(d);
    check_eq(wdev_log_count(d, "APT_ERROR|dropped"), 7,
             "each dropped APT write is logged as a guest error");
    check_eq(wdev_log_count(d, "DMA read failed"), 3,
             "unassigned memory, own BAR0 and bus mastering off are DMA "
             "failures");
    check_eq(wdev_err_count(d, "Blocked re-entrant IO"), 1,
             "the own-BAR0 DMA hit QEMU's re-entrancy guard");
    wdev_stop(d);
}

/*
 * Segment kinds on a 2 MiB VRAM: segment 3 is a memory segment past it,
 * 4 an Agp segment, 5 an aperture whose Size (6 KiB) is not a page
 * multiple (2 pages).
 */
static void test_aperture_kinds(void)
{
    WDev *d = wdev_start(",vis-size=1M,invis-size=1M,layout=0:0|"
                         "0:0:1M:1M:0x4|1M:-:1M:1M:0|2M:-:1M:1M:0|"
                         "0x100000000:-:16K:16K:0x2|"
                         "0x200000000:-:0x1800:4K:0x11", 0, NULL);

    wdev_command(d, true);
    window(d, MiB);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), MiB,
             "window base 1 MiB accepted with 2 MiB of VRAM");
    window(d, 2 * MiB);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), MiB,
             "window base 2 MiB refused with 2 MiB of VRAM");
    win_wr(d, 0x4, 0x00c0ffee);
    check_eq(peek(d, MiB + 0x4), 0x00c0ffee,
             "PEEK of the invisible segment reads VRAM");
    check_eq(peek(d, 2 * MiB), 0xffffffff,
             "PEEK of a memory segment past VRAM faults");
    check_status(d, WDDMSEG_STATUS_PEEK_FAULT, "... PEEK_FAULT");
    clear_status(d);
    check_eq(peek(d, 4 * GiB), 0xffffffff, "PEEK of an Agp segment faults");
    clear_status(d);
    apt_set(d, 4, 0, WQ_RAM);
    check_status(d, WDDMSEG_STATUS_APT_ERROR,
                 "APT write to an Agp segment sets APT_ERROR");
    clear_status(d);
    ram_wr(d, WQ_RAM + 0x7fc, 0x7e57da7a);
    apt_set(d, 5, 1, WQ_RAM);
    check_status(d, 0, "page 1 of a 6 KiB aperture exists");
    check_eq(peek(d, 8 * GiB + 0x17fc), 0x7e57da7a,
             "PEEK of the last word of a 6 KiB aperture");
    apt_set(d, 5, 2, WQ_RAM);
    check_status(d, WDDMSEG_STATUS_APT_ERROR,
                 "page 2 of a 6 KiB aperture does not");
    clear_status(d);
    check_eq(peek(d, 8 * GiB + 0x1800), 0xffffffff,
             "PEEK just past a 6 KiB aperture faults");
    wdev_stop(d);
}

/* The page table size cap: 16 Mi entries, all apertures together. */
static void test_aperture_cap(void)
{
    WDev *d = wdev_start(",vis-size=1M,invis-size=0,layout=0:0|"
                         "0:0:1M:1M:0x4|0x100000000:-:64G:4K:0x1", 0, NULL);

    apt_set(d, 2, 16 * MiB - 1, 0x5000);
    check_eq(apt_get(d, 2, 16 * MiB - 1), 0x5000,
             "a 64 GiB aperture (16 Mi entries, the cap) has a page table");
    check_status(d, 0, "... and no APT_ERROR");
    wdev_stop(d);

    d = wdev_start(",vis-size=1M,invis-size=0,layout=0:0|0:0:1M:1M:0x4|"
                   "0x100000000:-:0x1000000000000:4K:0x1", WQ_STDERR, NULL);
    wdev_command(d, true);
    apt_set(d, 2, 0, WQ_RAM);
    check_status(d, WDDMSEG_STATUS_APT_ERROR,
                 "a 256 TiB aperture realizes without a page table: "
                 "APT_ERROR");
    check_eq(peek(d, 4 * GiB), 0xffffffff, "... and PEEK into it faults");
    wdev_quit(d);
    check_eq(wdev_err_count(d, "no aperture page table"), 1,
             "realize warns that there is no page table");
    wdev_stop(d);

    d = wdev_start(",vis-size=1M,invis-size=0,layout=0:0|0:0:1M:1M:0x4|"
                   "0x100000000:-:32G:4K:0x1|"
                   "0x1000000000:-:0x800001000:4K:0x1", 0, NULL);
    apt_set(d, 2, 0, 0x1000);
    check_status(d, WDDMSEG_STATUS_APT_ERROR,
                 "apertures of 32 GiB + 32 GiB + 4 KiB together: no table "
                 "for the first either");
    wdev_stop(d);
}

int main(int argc, char **argv)
{
    wq_init(&argc, &argv);
    wq_add("pci/bars", test_pci_bars);
    wq_add("regs/default", test_regs_default);
    wq_add("layout/rst-example", test_layout_rst_example);
    wq_add("layout/custom", test_layout_custom);
    wq_add("layout/empty", test_layout_empty);
    wq_add("layout/full", test_layout_full);
    wq_add("layout/props", test_layout_props);
    for (size_t i = 0; i < G_N_ELEMENTS(malformed); i++) {
        g_autofree char *name = g_strdup_printf("layout/malformed/%zu", i);

        wq_add_data(name, &malformed[i], test_layout_malformed);
    }
    wq_add("window/moves", test_window);
    wq_add("window/tiny-vram", test_window_tiny_vram);
    wq_add("aperture/peek-status", test_aperture);
    wq_add("aperture/kinds", test_aperture_kinds);
    wq_add("aperture/table-cap", test_aperture_cap);
    return wq_run();
}
