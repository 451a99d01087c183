/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg qtests: power. The PCI power-management capability (D0 and
 * D3hot, BAR0 not decoded in D3hot, the soft reset of D3hot -> D0; the
 * VRAM keeps in D3hot what it keeps in S3: the pm/d3hot cases) and
 * system sleep: the guest enters S3 through q35's ACPI PM1 control
 * register, QMP system_wakeup wakes it. Every register resets; each
 * memory segment keeps its VRAM only if PreservedDuringStandby (or the
 * adapter's AlwaysPoweredVRAM) says so, the others read
 * WDDMSEG_PM_POISON; DisableSelfRefreshVRAMInS3 keeps none.
 *
 * Hibernation: a new QEMU process with the same vram-file. A segment
 * with PreservedDuringHibernate keeps its bytes, a
 * PartiallyPreservedDuringHibernate one its first hib-partial bytes, the
 * others (PreservedDuringStandby alone included) read the poison; PM_HIB
 * says PERSISTENT, and RETAINED only when the file already existed.
 */
#include "qemu/osdep.h"
#include "qobject/qdict.h"

#include "wddmseg-qtest.h"

/* q35's LPC bridge (00:1f.0): where the ACPI PM I/O block is enabled. */
#define LPC_DEVFN       QPCI_DEVFN(0x1f, 0)
#define LPC_PMBASE      0x40
#define LPC_ACPI_CTRL   0x44
#define LPC_ACPI_EN     0x80
#define PM_IO           0x600
#define PM1_CNT         (PM_IO + 4)
#define SLP_TYP_S3      (1 << 10)   /* QEMU's _S3 sleep type */
#define SLP_EN          (1 << 13)

/* Offset of the PM capability in config space, 0 if there is none. */
static uint8_t pm_cap(WDev *d)
{
    uint8_t off;
    int n;

    if (!(qpci_config_readw(d->dev, PCI_STATUS) & PCI_STATUS_CAP_LIST)) {
        return 0;
    }
    off = qpci_config_readb(d->dev, PCI_CAPABILITY_LIST);
    for (n = 0; off && n < 48; n++) {
        if (qpci_config_readb(d->dev, off) == PCI_CAP_ID_PM) {
            return off;
        }
        off = qpci_config_readb(d->dev, off + PCI_CAP_LIST_NEXT);
    }
    return 0;
}

static void set_power(WDev *d, uint8_t cap, uint16_t state)
{
    uint16_t v = qpci_config_readw(d->dev, cap + PCI_PM_CTRL);

    qpci_config_writew(d->dev, cap + PCI_PM_CTRL,
                       (v & ~PCI_PM_CTRL_STATE_MASK) | state);
}

static uint16_t power(WDev *d, uint8_t cap)
{
    return qpci_config_readw(d->dev, cap + PCI_PM_CTRL) &
           PCI_PM_CTRL_STATE_MASK;
}

/* Registers a driver programs, set to non-reset values. */
static void program_regs(WDev *d)
{
    wr(d, WDDMSEG_REG_IRQ_MASK, WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR);
    ring_enable(d, WQ_RING, 64 << 10);
    apt_set(d, 3, 5, WQ_SYS);
    window(d, MiB);
}

/* ... and what a reset makes of them. */
static void check_regs_reset(WDev *d, const char *when)
{
    check_eq(rd(d, WDDMSEG_REG_ID), WDDMSEG_ID_VALUE, "%s: ID reads", when);
    check_eq(rd(d, WDDMSEG_REG_IRQ_MASK), 0, "%s: IRQ_MASK is 0", when);
    check_eq(rd(d, WDDMSEG_REG_RING_CTRL), 0, "%s: the ring is disabled",
             when);
    check_eq(rd64(d, WDDMSEG_REG_RING_BASE_LO), 0, "%s: RING_BASE is 0",
             when);
    check_eq(rd(d, WDDMSEG_REG_RING_SIZE), 0, "%s: RING_SIZE is 0", when);
    check_eq(rd64(d, WDDMSEG_REG_LAST_SEQNO_LO), 0, "%s: LAST_SEQNO is 0",
             when);
    check_eq(apt_get(d, 3, 5), 0, "%s: the aperture entry is unmapped", when);
    check_eq(rd64(d, WDDMSEG_REG_WINDOW_BASE_LO), 0, "%s: WINDOW_BASE is 0",
             when);
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_CTRL), 0, "%s: the scanout is off",
             when);
}

static void test_pm_capability(void)
{
    WDev *d = wdev_start("", 0, NULL);
    uint8_t cap = pm_cap(d);

    check_ne(cap, 0, "config space lists a PM capability");
    check_eq(qpci_config_readw(d->dev, cap + PCI_PM_PMC) & PCI_PM_CAP_VER_MASK,
             PCI_PM_CAP_VER_1_1, "PMC: version 1.1");
    check_eq(power(d, cap), 0, "PMCSR: D0 after reset");

    wdev_command(d, true);
    vram_wr(d, 0x1000, 0x5a5a1234);
    program_regs(d);
    c_fence(d, 0);
    run(d);
    check_eq(rd64(d, WDDMSEG_REG_LAST_SEQNO_LO), 1, "a FENCE ran in D0");

    set_power(d, cap, 3);
    check_eq(power(d, cap), 3, "PMCSR: D3hot");
    check_eq(rd(d, WDDMSEG_REG_ID), 0xffffffff,
             "D3hot: BAR0 is not decoded (ID reads all ones)");
    wr(d, WDDMSEG_REG_IRQ_MASK, 0);
    set_power(d, cap, 1);
    check_eq(power(d, cap), 3, "D1 is not supported: the state stays D3hot");
    set_power(d, cap, 2);
    check_eq(power(d, cap), 3, "D2 is not supported: the state stays D3hot");

    set_power(d, cap, 0);
    check_eq(power(d, cap), 0, "PMCSR: back in D0");
    check_regs_reset(d, "D3hot -> D0 (soft reset)");
    check_eq(vram_rd(d, 0x1000), 0x5a5a1234, "D3hot -> D0: VRAM is kept");
    check_eq(qpci_config_readw(d->dev, PCI_COMMAND) & PCI_COMMAND_MASTER,
             PCI_COMMAND_MASTER, "D3hot -> D0: config space is kept");

    /* D0 -> D0 and D3hot -> D3hot change nothing. */
    program_regs(d);
    set_power(d, cap, 0);
    check_eq(rd(d, WDDMSEG_REG_IRQ_MASK), WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR,
             "D0 -> D0: no reset");
    wdev_stop(d);
}

/* The guest enters S3 (ACPI PM1_CNT), QEMU suspends; then QMP wakes it. */
static void s3_cycle(WDev *d)
{
    QPCIDevice *lpc = qpci_device_find(d->bus, LPC_DEVFN);
    QDict *rsp, *ret;
    const char *status = "";
    int i;

    g_assert(lpc);
    qpci_config_writel(lpc, LPC_PMBASE, PM_IO | 1);
    qpci_config_writeb(lpc, LPC_ACPI_CTRL, LPC_ACPI_EN);
    qtest_outw(d->qts, PM1_CNT, SLP_TYP_S3 | SLP_EN);
    for (i = 0; i < 2000; i++) {
        rsp = qtest_qmp(d->qts, "{'execute': 'query-status'}");
        ret = qdict_get_qdict(rsp, "return");
        status = ret ? qdict_get_str(ret, "status") : "";
        if (!strcmp(status, "suspended")) {
            qobject_unref(rsp);
            break;
        }
        qobject_unref(rsp);
        g_usleep(1000);
    }
    check_true(i < 2000, "the VM is suspended (S3)");
    qtest_qmp_assert_success(d->qts, "{'execute': 'system_wakeup'}");
    for (i = 0; i < 2000; i++) {
        if (!qpci_config_readw(d->dev, PCI_COMMAND)) {
            break;
        }
        g_usleep(1000);
    }
    check_eq(qpci_config_readw(d->dev, PCI_COMMAND), 0,
             "the wake-up reset the device (PCI command register cleared)");
    g_free(lpc);
    wdev_map(d);
    wdev_command(d, true);
}

/* Words at a few offsets of a segment, through BAR2 or the window. */
#define PATTERN(seg, k) (0x51000000u | ((seg) << 16) | (k))
static const uint64_t offs[] = { 0, 0x40, 0xfff8, 0x7fffc };

static void fill(WDev *d, unsigned int seg, uint64_t vram_base, bool visible)
{
    for (size_t k = 0; k < G_N_ELEMENTS(offs); k++) {
        if (visible) {
            vram_wr(d, vram_base + offs[k], PATTERN(seg, k));
        } else {
            window(d, vram_base);
            win_wr(d, offs[k], PATTERN(seg, k));
        }
    }
}

/* Each word is the pattern (kept) or the poison, and which one. */
static void check_seg(WDev *d, unsigned int seg, uint64_t vram_base,
                      bool visible, bool kept, const char *when)
{
    for (size_t k = 0; k < G_N_ELEMENTS(offs); k++) {
        uint32_t v;

        if (visible) {
            v = vram_rd(d, vram_base + offs[k]);
        } else {
            window(d, vram_base);
            v = win_rd(d, offs[k]);
        }
        check_eq(v, kept ? PATTERN(seg, k) : WDDMSEG_PM_POISON,
                 "%s: segment %u word at 0x%" PRIx64 " %s", when, seg,
                 offs[k], kept ? "kept" : "is the poison pattern");
    }
}

typedef struct PmCase {
    const char *name;
    const char *devopts;
    bool keep1, keep2;  /* segment 1 (visible), segment 2 (window) */
} PmCase;

/* Segment 1: 1 MiB visible at VRAM 0; segment 2: 1 MiB invisible at 1 MiB. */
#define TWO_SEGS(caps, f1, f2) \
    ",vis-size=1M,invis-size=1M,layout=" caps ":0|0:0:1M:1M:" f1 \
    "|0x100000:-:1M:1M:" f2 "|0x100000000:-:1M:1M:0x11"

static const PmCase pm_cases[] = {
    { "default", ",vis-size=1M,invis-size=1M", true, false },
    { "none-preserved", TWO_SEGS("0", "0x4", "0x0"), false, false },
    { "both-preserved", TWO_SEGS("0", "0x84", "0x80"), true, true },
    { "always-powered", TWO_SEGS("0x20000", "0x4", "0x0"), true, true },
    { "self-refresh-off", TWO_SEGS("0x1000", "0x84", "0x80"), false, false },
    { "self-refresh-off-always-powered", TWO_SEGS("0x21000", "0x84", "0x0"),
      false, false },
};

/*
 * A power cycle of case c: S3, or (d3hot) D0 -> D3hot -> D0 through
 * PMCSR, which runtime PM uses and which keeps what S3 keeps.
 */
static void pm_cycle_case(const PmCase *c, bool d3hot)
{
    WDev *d = wdev_start(c->devopts, 0, NULL);
    const char *what = d3hot ? "D3hot" : "S3";
    g_autofree char *when = g_strdup_printf("after %s (%s)", what, c->name);
    uint64_t vis = MiB;
    uint8_t cap = pm_cap(d);

    fill(d, 1, 0, true);
    fill(d, 2, vis, false);
    program_regs(d);
    check_seg(d, 1, 0, true, true, "before the power cycle");
    check_seg(d, 2, vis, false, true, "before the power cycle");

    if (d3hot) {
        set_power(d, cap, 3);
        check_eq(rd(d, WDDMSEG_REG_ID), 0xffffffff,
                 "%s: BAR0 not decoded in D3hot", c->name);
        set_power(d, cap, 0);
        wdev_command(d, true);  /* as s3_cycle() leaves it: bus master */
    } else {
        s3_cycle(d);
    }
    check_eq(power(d, cap), 0, "%s: PMCSR is D0", when);
    check_regs_reset(d, when);
    check_seg(d, 1, 0, true, c->keep1, when);
    check_seg(d, 2, vis, false, c->keep2, when);

    /* The engine works again once the driver programs it. */
    ring_enable(d, WQ_RING, 64 << 10);
    c_fill(d, 0x1000, 0x77777777, seg_loc(2, 0x2000));
    c_fence(d, 0);
    run(d);
    window(d, vis);
    check_eq(win_rd(d, 0x2ffc), 0x77777777, "%s: a FILL after the wake-up ran",
             when);
    wdev_stop(d);
}

static void test_pm_s3(const void *data)
{
    pm_cycle_case(data, false);
}

static void test_pm_d3hot(const void *data)
{
    pm_cycle_case(data, true);
}

/* A system reset is not a power loss: VRAM survives it (as RAM does). */
static void test_pm_reset_keeps_vram(void)
{
    WDev *d = wdev_start(",vis-size=1M,invis-size=1M", 0, NULL);

    fill(d, 2, MiB, false);
    wdev_system_reset(d);
    wdev_map(d);
    check_seg(d, 2, MiB, false, true, "after a system reset");
    wdev_stop(d);
}

/* Word k (offset hib_offs[k]) of segment seg after a power cycle. */
#define HPATTERN(seg, k) (0x48000000u | ((seg) << 16) | (k))
static const uint64_t hib_offs[] = { 0, 0x40, 0x7fffc, 0x80000, 0xffffc };

static void hib_fill(WDev *d, unsigned int seg, uint64_t vram_base)
{
    window(d, vram_base);
    for (size_t k = 0; k < G_N_ELEMENTS(hib_offs); k++) {
        win_wr(d, hib_offs[k], HPATTERN(seg, k));
    }
}

/* Bytes below @kept keep the pattern, the rest is poison. */
static void hib_check(WDev *d, unsigned int seg, uint64_t vram_base,
                      uint64_t kept, const char *when)
{
    window(d, vram_base);
    for (size_t k = 0; k < G_N_ELEMENTS(hib_offs); k++) {
        uint32_t want = hib_offs[k] >= kept ? WDDMSEG_PM_POISON :
                        HPATTERN(seg, k);

        check_eq(win_rd(d, hib_offs[k]), want,
                 "%s: segment %u word at 0x%" PRIx64 " reads 0x%08x", when,
                 seg, hib_offs[k], want);
    }
}

/*
 * Three memory segments of 1 MiB: 110 (PreservedDuringHibernate), 101
 * (PartiallyPreservedDuringHibernate, hib-partial 512K), 100 (standby
 * only); two power cycles (two QEMU processes) on one vram-file.
 */
static void test_pm_hibernate(void)
{
    g_autofree char *dir = g_dir_make_tmp("wddmseg-pm-XXXXXX", NULL);
    g_autofree char *file = g_build_filename(dir, "vram", NULL);
    g_autofree char *opts = g_strdup_printf(
        ",vis-size=1M,invis-size=2M,vram-file=%s,hib-partial=512K,"
        "layout=0:0|0:0:1M:1M:0x184|0x100000:-:1M:1M:0x280"
        "|0x200000:-:1M:1M:0x80", file);
    WDev *d;

    g_assert(dir);
    d = wdev_start(opts, 0, NULL);
    check_eq(rd(d, WDDMSEG_REG_PM_HIB), WDDMSEG_PM_HIB_PERSISTENT,
             "a new vram-file: PM_HIB is PERSISTENT, not RETAINED");
    check_eq(rd64(d, WDDMSEG_REG_PM_HIB_PARTIAL_LO), 0x80000,
             "PM_HIB_PARTIAL is hib-partial");
    /* Nothing was kept: every segment reads the poison. */
    hib_check(d, 1, 0, 0, "first power-on");
    hib_check(d, 2, MiB, 0, "first power-on");
    hib_check(d, 3, 2 * MiB, 0, "first power-on");
    for (unsigned int seg = 1; seg <= 3; seg++) {
        hib_fill(d, seg, (seg - 1) * MiB);
    }
    wdev_stop(d);

    d = wdev_start(opts, 0, NULL);
    check_eq(rd(d, WDDMSEG_REG_PM_HIB),
             WDDMSEG_PM_HIB_PERSISTENT | WDDMSEG_PM_HIB_RETAINED,
             "the vram-file again: PM_HIB is PERSISTENT and RETAINED");
    hib_check(d, 1, 0, MiB, "a new process");
    hib_check(d, 2, MiB, 0x80000, "a new process");
    hib_check(d, 3, 2 * MiB, 0, "a new process");
    wdev_stop(d);
    unlink(file);
    rmdir(dir);

    d = wdev_start(",vis-size=1M,invis-size=1M,layout=0:0|0:0:1M:1M:0x184",
                   0, NULL);
    check_eq(rd(d, WDDMSEG_REG_PM_HIB), 0,
             "no vram-file: PM_HIB is 0, nothing persists");
    check_eq(rd64(d, WDDMSEG_REG_PM_HIB_PARTIAL_LO), 0,
             "no vram-file: PM_HIB_PARTIAL is 0");
    wdev_stop(d);
}

int main(int argc, char **argv)
{
    wq_init(&argc, &argv);
    wq_add("pm/capability", test_pm_capability);
    for (size_t i = 0; i < G_N_ELEMENTS(pm_cases); i++) {
        g_autofree char *name = g_strdup_printf("pm/s3/%s", pm_cases[i].name);

        g_autofree char *d3 = g_strdup_printf("pm/d3hot/%s",
                                              pm_cases[i].name);

        wq_add_data(name, &pm_cases[i], test_pm_s3);
        wq_add_data(d3, &pm_cases[i], test_pm_d3hot);
    }
    wq_add("pm/system-reset", test_pm_reset_keeps_vram);
    wq_add("pm/hibernate/vram-file", test_pm_hibernate);
    return wq_run();
}
