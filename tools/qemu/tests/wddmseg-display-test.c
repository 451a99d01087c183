/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg qtests: the display controller. Limits, pending registers,
 * latching at once (disabled) or at the next vblank (enabled), vblank
 * timing on the virtual clock, every refusal, segment kinds and size
 * properties, INTx on vblank, what the console shows (the monitor's
 * screendump over QMP), vblanks in real time under TCG, the cursor,
 * gamma LUT and frame CRC over the composed image, and (1.10) a primary
 * rectangle over black, no primary, and CURSOR_COMMIT.
 *
 * Vblank timing runs on QEMU_CLOCK_VIRTUAL, which only qtest_clock_step()
 * moves under the qtest accelerator: every check knows exactly how many
 * vblanks must have passed. Default layout: segment 1 (CPU-visible VRAM)
 * has DirectFlip, segment 2 (invisible VRAM) does not, segment 3 is the
 * aperture.
 */

#include "qemu/osdep.h"

#include "wddmseg-qtest.h"

#define P50 20000000            /* ns per vblank at 50 Hz (50000 mHz) */
#define FB_OFF 0x20000          /* where the checks put the framebuffer */
#define XRGB WDDMSEG_SCANOUT_FMT_XRGB8888
#define RGB565 WDDMSEG_SCANOUT_FMT_RGB565
#define EN WDDMSEG_SCANOUT_STATUS_ENABLED
#define PENDING WDDMSEG_SCANOUT_STATUS_PENDING
#define REFUSED WDDMSEG_SCANOUT_STATUS_REFUSED
#define VBLANK WDDMSEG_IRQ_VBLANK
#define SC_ERR WDDMSEG_IRQ_SCANOUT_ERROR

static void step(WDev *d, int64_t ns)
{
    qtest_clock_step(d->qts, ns);
}

static void sc_cfg(WDev *d, uint32_t seg, uint64_t off, uint32_t w,
                   uint32_t h, uint32_t pitch, uint32_t fmt, uint32_t mhz,
                   uint32_t ctrl)
{
    wr(d, WDDMSEG_REG_SCANOUT_SEGMENT, seg);
    wr64(d, WDDMSEG_REG_SCANOUT_OFFSET_LO, off);
    wr(d, WDDMSEG_REG_SCANOUT_WIDTH, w);
    wr(d, WDDMSEG_REG_SCANOUT_HEIGHT, h);
    wr(d, WDDMSEG_REG_SCANOUT_PITCH, pitch);
    wr(d, WDDMSEG_REG_SCANOUT_FORMAT, fmt);
    wr(d, WDDMSEG_REG_SCANOUT_REFRESH_MHZ, mhz);
    wr(d, WDDMSEG_REG_SCANOUT_CTRL, ctrl);
}

static void sc_good(WDev *d)
{
    sc_cfg(d, 1, FB_OFF, 64, 32, 256, XRGB, 50000, WDDMSEG_SCANOUT_CTRL_ENABLE);
}

static void sc_commit(WDev *d)
{
    wr(d, WDDMSEG_REG_SCANOUT_COMMIT, 1);
}

static uint32_t sc_status(WDev *d)
{
    return rd(d, WDDMSEG_REG_SCANOUT_STATUS);
}

static uint32_t sc_count(WDev *d)
{
    return rd(d, WDDMSEG_REG_VBLANK_COUNT);
}

static uint32_t irq(WDev *d)
{
    return rd(d, WDDMSEG_REG_IRQ_STATUS);
}

static void irq_clear(WDev *d)
{
    wr(d, WDDMSEG_REG_IRQ_STATUS, 0xffffffff);
}

static void check_active(WDev *d, uint32_t seg, uint64_t off, const char *what)
{
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_ACTIVE_SEGMENT), seg,
             "%s: ACTIVE_SEGMENT = %u", what, seg);
    check_eq(rd64(d, WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_LO), off,
             "%s: ACTIVE_OFFSET = 0x%" PRIx64, what, off);
}

/*
 * With the scanout enabled at 50 Hz and the clock on a vblank, a commit
 * of the good configuration with reg = val is PENDING until the next
 * vblank, which refuses it with code; the active configuration stays.
 */
static void refuse(WDev *d, uint32_t reg, uint64_t val, uint32_t code,
                   uint32_t was_refused, const char *what)
{
    g_autofree char *unchanged = g_strdup_printf("%s: active configuration "
                                                 "unchanged", what);

    sc_good(d);
    if (reg == WDDMSEG_REG_SCANOUT_OFFSET_LO) {
        wr64(d, reg, val);
    } else {
        wr(d, reg, val);
    }
    sc_commit(d);
    /* REFUSED stays from the previous refusal until a commit is accepted. */
    check_eq(sc_status(d), EN | PENDING | was_refused,
             "%s: PENDING until the vblank", what);
    step(d, P50);
    check_eq(sc_status(d), EN | REFUSED,
             "%s: refused at the vblank (REFUSED, still ENABLED)", what);
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_ERROR), code,
             "%s: SCANOUT_ERROR = %u", what, code);
    check_eq(irq(d), VBLANK | SC_ERR, "%s: IRQ_VBLANK and IRQ_SCANOUT_ERROR",
             what);
    check_active(d, 1, FB_OFF, unchanged);
    irq_clear(d);
}

static void test_scanout(void)
{
    WDev *d = wdev_start("", WQ_LOG, NULL);
    struct {
        uint32_t reg;
        uint64_t val;
        uint32_t code;
        const char *what;
    } refusals[] = {
        { WDDMSEG_REG_SCANOUT_SEGMENT, 0, WDDMSEG_SCANOUT_ERR_SEGMENT,
          "segment id 0" },
        { WDDMSEG_REG_SCANOUT_SEGMENT, 4, WDDMSEG_SCANOUT_ERR_SEGMENT,
          "segment id past SEG_COUNT" },
        { WDDMSEG_REG_SCANOUT_SEGMENT, 3, WDDMSEG_SCANOUT_ERR_SEGMENT,
          "aperture segment" },
        { WDDMSEG_REG_SCANOUT_SEGMENT, 2, WDDMSEG_SCANOUT_ERR_NOT_DIRECT_FLIP,
          "segment without DirectFlip" },
        { WDDMSEG_REG_SCANOUT_FORMAT, 0, WDDMSEG_SCANOUT_ERR_FORMAT,
          "no format bit" },
        { WDDMSEG_REG_SCANOUT_FORMAT, XRGB | RGB565, WDDMSEG_SCANOUT_ERR_FORMAT,
          "two format bits" },
        { WDDMSEG_REG_SCANOUT_FORMAT, 4, WDDMSEG_SCANOUT_ERR_FORMAT,
          "unknown format bit" },
        { WDDMSEG_REG_SCANOUT_WIDTH, 0, WDDMSEG_SCANOUT_ERR_SIZE, "width 0" },
        { WDDMSEG_REG_SCANOUT_WIDTH, 1921, WDDMSEG_SCANOUT_ERR_SIZE,
          "width above SCANOUT_MAX_WIDTH" },
        { WDDMSEG_REG_SCANOUT_HEIGHT, 0, WDDMSEG_SCANOUT_ERR_SIZE, "height 0" },
        { WDDMSEG_REG_SCANOUT_HEIGHT, 1201, WDDMSEG_SCANOUT_ERR_SIZE,
          "height above SCANOUT_MAX_HEIGHT" },
        { WDDMSEG_REG_SCANOUT_PITCH, 252, WDDMSEG_SCANOUT_ERR_PITCH,
          "pitch below width * 4" },
        { WDDMSEG_REG_SCANOUT_PITCH, 258, WDDMSEG_SCANOUT_ERR_PITCH,
          "pitch not a multiple of 4" },
        { WDDMSEG_REG_SCANOUT_OFFSET_LO, 64 * MiB - 256 * 31 - 256 + 4,
          WDDMSEG_SCANOUT_ERR_RANGE, "framebuffer 4 bytes past the segment "
          "end" },
        { WDDMSEG_REG_SCANOUT_OFFSET_LO, 1ULL << 40, WDDMSEG_SCANOUT_ERR_RANGE,
          "offset far past the segment" },
        { WDDMSEG_REG_SCANOUT_REFRESH_MHZ, 999, WDDMSEG_SCANOUT_ERR_REFRESH,
          "refresh below 1 Hz" },
        { WDDMSEG_REG_SCANOUT_REFRESH_MHZ, 240001, WDDMSEG_SCANOUT_ERR_REFRESH,
          "refresh above 240 Hz" },
    };

    check_eq(rd(d, WDDMSEG_REG_SCANOUT_MAX_WIDTH), 1920,
             "SCANOUT_MAX_WIDTH = 1920 (default max-width)");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_MAX_HEIGHT), 1200,
             "SCANOUT_MAX_HEIGHT = 1200 (default max-height)");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_FORMATS), XRGB | RGB565,
             "SCANOUT_FORMATS = XRGB8888 | RGB565");
    check_eq(sc_status(d), 0, "SCANOUT_STATUS is 0 after reset");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_ERROR), 0,
             "SCANOUT_ERROR is 0 after reset");
    check_eq(sc_count(d), 0, "VBLANK_COUNT is 0 after reset");
    check_eq(rd(d, WDDMSEG_REG_VBLANK_AGE_NS), WDDMSEG_VBLANK_AGE_NONE,
             "VBLANK_AGE_NS is 'none' while the scanout is off");
    step(d, 10 * P50);
    check_eq(sc_count(d), 0, "no vblank while disabled");
    check_eq(irq(d), 0, "no interrupt while disabled");
    sc_good(d);
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_SEGMENT), 1,
             "pending SEGMENT reads back");
    check_eq(rd64(d, WDDMSEG_REG_SCANOUT_OFFSET_LO), FB_OFF,
             "pending OFFSET reads back");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_WIDTH), 64, "pending WIDTH reads back");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_HEIGHT), 32,
             "pending HEIGHT reads back");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_PITCH), 256, "pending PITCH reads back");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_FORMAT), XRGB,
             "pending FORMAT reads back");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_REFRESH_MHZ), 50000,
             "pending REFRESH_MHZ reads back");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_CTRL), WDDMSEG_SCANOUT_CTRL_ENABLE,
             "pending CTRL reads back");
    check_eq(sc_status(d), 0, "pending writes alone change nothing");
    check_active(d, 0, 0, "before the first commit");
    wr(d, WDDMSEG_REG_SCANOUT_MAX_WIDTH, 0x10);
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_MAX_WIDTH), 1920,
             "SCANOUT_MAX_WIDTH is read-only");
    wr(d, WDDMSEG_REG_VBLANK_COUNT, 0x10);
    check_eq(sc_count(d), 0, "VBLANK_COUNT is read-only");

    /* Disabled: a commit latches at once. */
    sc_commit(d);
    check_eq(sc_status(d), EN, "a commit while disabled latches at once");
    check_active(d, 1, FB_OFF, "latched at once");
    check_eq(irq(d), VBLANK, "the latch raises IRQ_VBLANK");
    check_eq(sc_count(d), 0, "... without counting a vblank");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_COMMIT), 0, "SCANOUT_COMMIT reads 0");
    check_eq(rd(d, WDDMSEG_REG_VBLANK_AGE_NS), 0,
             "VBLANK_AGE_NS is 0 at the latch (the timing's vblank 0)");
    step(d, 1234567);
    check_eq(rd(d, WDDMSEG_REG_VBLANK_AGE_NS), 1234567,
             "VBLANK_AGE_NS counts the virtual ns since the latch");
    irq_clear(d);
    step(d, P50 - 1 - 1234567);
    check_eq(rd(d, WDDMSEG_REG_VBLANK_AGE_NS), P50 - 1,
             "VBLANK_AGE_NS 1 ns before the first vblank");
    check_eq(sc_count(d), 0,
             "no vblank 1 ns before one period (20 ms at 50 Hz)");
    check_eq(irq(d), 0, "no IRQ_VBLANK 1 ns before one period");
    step(d, 1);
    check_eq(sc_count(d), 1,
             "the first vblank comes one period after the latch");
    check_eq(rd(d, WDDMSEG_REG_VBLANK_AGE_NS), 0,
             "VBLANK_AGE_NS is 0 at the vblank it dates");
    check_eq(irq(d), VBLANK, "a vblank raises IRQ_VBLANK");
    irq_clear(d);
    step(d, 10 * P50 - 1);
    check_eq(sc_count(d), 10, "9 more vblanks 1 ns before 10 more periods");
    step(d, 1);
    check_eq(sc_count(d), 11, "10 more vblanks in 10 periods");

    /* Enabled: a commit waits for the next vblank. */
    wr64(d, WDDMSEG_REG_SCANOUT_OFFSET_LO, 0x40000);
    sc_commit(d);
    check_eq(sc_status(d), EN | PENDING, "a commit while enabled is PENDING");
    check_active(d, 1, FB_OFF, "while PENDING");
    step(d, P50 - 1);
    check_eq(sc_status(d), EN | PENDING,
             "still PENDING 1 ns before the vblank");
    check_active(d, 1, FB_OFF, "1 ns before the vblank");
    irq_clear(d);
    step(d, 1);
    check_eq(sc_status(d), EN, "latched at the vblank, PENDING clear");
    check_active(d, 1, 0x40000, "latched at the vblank");
    check_eq(sc_count(d), 12, "the latching vblank counts");
    check_eq(irq(d), VBLANK, "the latching vblank raises IRQ_VBLANK");

    /*
     * 60 Hz: the period is 16666666.67 ns; vblanks land on the exact
     * multiples (rounded up to the ns), with no drift: the third is at
     * exactly 50 ms.
     */
    wr(d, WDDMSEG_REG_SCANOUT_REFRESH_MHZ, 60000);
    sc_commit(d);
    step(d, P50);
    check_eq(sc_count(d), 13, "60 Hz latched at a 50 Hz vblank");
    step(d, 16666666);
    check_eq(sc_count(d), 13, "60 Hz: no vblank at 16666666 ns");
    check_eq(rd(d, WDDMSEG_REG_VBLANK_AGE_NS), 16666666,
             "60 Hz: VBLANK_AGE_NS just before the first vblank");
    step(d, 1);
    check_eq(sc_count(d), 14, "60 Hz: first vblank at 16666667 ns");
    step(d, 5000);
    check_eq(rd(d, WDDMSEG_REG_VBLANK_AGE_NS), 5000,
             "60 Hz: VBLANK_AGE_NS dates the vblank VBLANK_COUNT counted");
    step(d, 33333332 - 5000);
    check_eq(sc_count(d), 15,
             "60 Hz: second vblank by 49999999 ns, not the third");
    step(d, 1);
    check_eq(sc_count(d), 16,
             "60 Hz: third vblank at exactly 50 ms (no drift)");
    step(d, 60 * 50000000LL / 3);
    check_eq(sc_count(d), 76, "60 Hz: 60 more vblanks in one second");

    /* Back to 50 Hz for the refusals (the clock stays on 50 Hz vblanks). */
    sc_good(d);
    sc_commit(d);
    step(d, 16666667);
    check_eq(sc_status(d), EN, "back to 50 Hz");
    irq_clear(d);
    for (size_t i = 0; i < G_N_ELEMENTS(refusals); i++) {
        refuse(d, refusals[i].reg, refusals[i].val, refusals[i].code,
               i ? REFUSED : 0, refusals[i].what);
    }
    /* RGB565: 2 bytes per pixel. */
    sc_cfg(d, 1, FB_OFF, 64, 32, 124, RGB565, 50000,
           WDDMSEG_SCANOUT_CTRL_ENABLE);
    sc_commit(d);
    step(d, P50);
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_ERROR), WDDMSEG_SCANOUT_ERR_PITCH,
             "RGB565: pitch below width * 2 refused");
    /* Accepted: RGB565, the framebuffer's last byte the segment's last. */
    sc_cfg(d, 1, 64 * MiB - 128 * 32, 64, 32, 128, RGB565, 50000,
           WDDMSEG_SCANOUT_CTRL_ENABLE);
    sc_commit(d);
    irq_clear(d);
    step(d, P50);
    check_eq(sc_status(d), EN, "an accepted commit clears REFUSED");
    check_active(d, 1, 64 * MiB - 128 * 32, "RGB565 ending at the segment end");
    check_eq(irq(d), VBLANK, "an accepted commit raises IRQ_VBLANK only");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_ERROR), WDDMSEG_SCANOUT_ERR_PITCH,
             "SCANOUT_ERROR keeps the last refusal");

    /* Disable: at the next vblank; then no more vblanks. */
    wr(d, WDDMSEG_REG_SCANOUT_CTRL, 0);
    sc_commit(d);
    check_eq(sc_status(d), EN | PENDING,
             "disabling is PENDING until the vblank");
    step(d, P50);
    check_eq(sc_status(d), 0, "disabled at the vblank");
    /*
     * 76 at 60 Hz, one back to 50 Hz, 17 refusals, RGB565's, the
     * accepted one, this one.
     */
    check_eq(sc_count(d), 97, "every vblank so far counted");
    irq_clear(d);
    step(d, 10 * P50);
    check_eq(sc_count(d), 97, "VBLANK_COUNT stops once disabled");
    check_eq(irq(d), 0, "no IRQ_VBLANK once disabled");

    /* Disabled: a refused commit is refused at once, the scanout stays off. */
    sc_cfg(d, 2, 0, 64, 32, 256, XRGB, 50000, WDDMSEG_SCANOUT_CTRL_ENABLE);
    sc_commit(d);
    check_eq(sc_status(d), REFUSED,
             "a bad commit while disabled is refused at once");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_ERROR),
             WDDMSEG_SCANOUT_ERR_NOT_DIRECT_FLIP,
             "refused at once: SCANOUT_ERROR");
    check_eq(irq(d), VBLANK | SC_ERR,
             "refused at once: IRQ_VBLANK and IRQ_SCANOUT_ERROR");
    irq_clear(d);
    step(d, 10 * P50);
    check_eq(irq(d), 0, "refused while disabled: still no vblank");
    /* The refresh limits themselves are accepted. */
    sc_cfg(d, 1, 0, 64, 32, 256, XRGB, 1000, WDDMSEG_SCANOUT_CTRL_ENABLE);
    sc_commit(d);
    check_eq(sc_status(d), EN, "REFRESH_MHZ 1000 (1 Hz) accepted");
    step(d, 999999999);
    irq_clear(d);
    step(d, 1);
    check_eq(irq(d), VBLANK, "1 Hz: the vblank comes after 1 s");
    wr(d, WDDMSEG_REG_SCANOUT_REFRESH_MHZ, 240000);
    sc_commit(d);
    step(d, 1000000000);
    check_eq(sc_status(d), EN, "REFRESH_MHZ 240000 (240 Hz) accepted");
    check_eq(sc_count(d), 99, "the 1 Hz vblanks count too (98, 99), the "
             "second latched 240 Hz");
    step(d, 4166667);
    check_eq(sc_count(d), 100, "240 Hz: the next vblank 1/240 s later");
    wdev_quit(d);
    check_eq(wdev_log_count(d, "scanout commit refused \\(SCANOUT_ERROR "
                            "[0-9]*\\): "), 19,
             "every refusal logged as a guest error");
    check_eq(wdev_log_count(d, "scanout commit refused \\(SCANOUT_ERROR 1\\): "
                            "segment 3 is an Aperture segment"), 1,
             "the log names the rule");
    wdev_stop(d);
}

/*
 * Segment kinds and the size limits, on a 2 MiB VRAM with max-width=100
 * and max-height=50: 1 DirectFlip VRAM, 2 Agp with DirectFlip, 3 a
 * DirectFlip memory segment past the end of VRAM, 4 one that straddles it.
 * Disabled, so every commit latches (or is refused) at once.
 */
static void at_once(WDev *d, uint32_t seg, uint64_t off, uint32_t w, uint32_t h,
                    uint32_t pitch, uint32_t code, const char *what)
{
    sc_cfg(d, seg, off, w, h, pitch, XRGB, 60000, WDDMSEG_SCANOUT_CTRL_ENABLE);
    sc_commit(d);
    if (!code) {
        check_eq(sc_status(d), EN, "%s: accepted", what);
        check_active(d, seg, off, what);
        wr(d, WDDMSEG_REG_SCANOUT_CTRL, 0);
        sc_commit(d);
        step(d, 16666667);
        check_eq(sc_status(d), 0, "%s: disabled again at the vblank", what);
    } else {
        check_eq(sc_status(d), REFUSED, "%s: refused", what);
        check_eq(rd(d, WDDMSEG_REG_SCANOUT_ERROR), code,
                 "%s: SCANOUT_ERROR = %u", what, code);
    }
}

static void test_scanout_layout(void)
{
    WDev *d = wdev_start(",vis-size=1M,invis-size=1M,max-width=100,"
                         "max-height=50,layout=0:0|0:0:1M:1M:0x404|"
                         "1M:-:1M:1M:0x402|0x100000000:-:1M:1M:0x400|"
                         "0x180000:-:1M:1M:0x400", 0, NULL);

    check_eq(rd(d, WDDMSEG_REG_SCANOUT_MAX_WIDTH), 100,
             "SCANOUT_MAX_WIDTH = max-width");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_MAX_HEIGHT), 50,
             "SCANOUT_MAX_HEIGHT = max-height");
    at_once(d, 2, 0, 64, 32, 256, WDDMSEG_SCANOUT_ERR_SEGMENT,
            "Agp segment (even with DirectFlip)");
    at_once(d, 3, 0, 64, 32, 256, WDDMSEG_SCANOUT_ERR_RANGE,
            "memory segment past the end of VRAM");
    at_once(d, 4, 512 << 10, 64, 32, 256, WDDMSEG_SCANOUT_ERR_RANGE,
            "framebuffer past the end of VRAM");
    at_once(d, 4, (512 << 10) - 256 * 32, 64, 32, 256, 0,
            "framebuffer ending at the end of VRAM");
    at_once(d, 1, 0, 101, 32, 404, WDDMSEG_SCANOUT_ERR_SIZE,
            "width above max-width");
    at_once(d, 1, 0, 64, 51, 256, WDDMSEG_SCANOUT_ERR_SIZE,
            "height above max-height");
    at_once(d, 1, 0, 100, 50, 400, 0, "max-width x max-height");
    at_once(d, 1, 0, 1, 1, 4, 0, "1x1");
    wdev_stop(d);
}

/* max-width and max-height out of [1, 16384]: QEMU must refuse to start. */
static void test_scanout_bad_props(void)
{
    static const char *const props[] = {
        "max-width=0", "max-width=16385", "max-height=0", "max-height=16385",
    };
    WDev *d;

    for (size_t i = 0; i < G_N_ELEMENTS(props); i++) {
        g_autofree char *args = g_strdup_printf("-device wddmseg,addr=0x4,%s",
                                                props[i]);

        check_true(wq_refused(args, "max-width and max-height must be in "
                              "\\[1, 16384\\]"),
                   "property rejected (%s)", props[i]);
    }
    d = wdev_start(",max-width=16384,max-height=16384", 0, NULL);
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_MAX_WIDTH), 16384,
             "max-width=16384 accepted");
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_MAX_HEIGHT), 16384,
             "max-height=16384 accepted");
    wdev_stop(d);
}

/* INTx: IRQ_VBLANK in IRQ_MASK asserts pin A (GSI 20 here) until cleared. */
static void test_scanout_intx(void)
{
    WDev *d = wdev_start("", 0, NULL);

    qtest_irq_intercept_in(d->qts, "ioapic");
    wr(d, WDDMSEG_REG_IRQ_MASK, VBLANK);
    sc_good(d);
    sc_commit(d);
    check_true(qtest_get_irq(d->qts, WQ_GSI), "the latch raises INTx");
    step(d, 3 * P50);
    check_eq(sc_count(d), 3, "three vblanks");
    irq_clear(d);
    check_true(!qtest_get_irq(d->qts, WQ_GSI),
               "clearing IRQ_STATUS lowers INTx");
    step(d, P50 - 1);
    check_true(!qtest_get_irq(d->qts, WQ_GSI),
               "still low 1 ns before the vblank");
    step(d, 1);
    check_eq(irq(d), VBLANK, "IRQ_VBLANK set again at the next vblank");
    check_true(qtest_get_irq(d->qts, WQ_GSI), "... which raises INTx again");
    wr(d, WDDMSEG_REG_IRQ_MASK, 0);
    check_true(!qtest_get_irq(d->qts, WQ_GSI), "masking lowers INTx");
    irq_clear(d);
    step(d, P50);
    check_eq(irq(d), VBLANK, "IRQ_STATUS.VBLANK is set even when masked");
    check_true(!qtest_get_irq(d->qts, WQ_GSI),
               "... a masked vblank raises nothing");
    wdev_stop(d);
}

/* ---- the console (screendump) -------------------------------------------- */

typedef struct Shot {
    int w, h;
    GByteArray *rgb;    /* w * h * 3 bytes, no padding */
} Shot;

static void shot_free(Shot *s)
{
    if (s->rgb) {
        g_byte_array_unref(s->rgb);
    }
    s->rgb = NULL;
}

/*
 * The monitor's screendump runs the console's update first, then writes
 * what the console shows as a binary PPM. QEMU pads each line to a
 * multiple of 4 bytes (its pixman line buffer's stride): drop that.
 */
static Shot dump(WDev *d, const char *tag)
{
    g_autofree char *path = g_strdup_printf("%s/%s.ppm", d->dir, tag);
    g_autofree char *data = NULL;
    QDict *resp;
    Shot s = { 0, 0, NULL };
    size_t len;
    int w, h, depth, n = 0, stride;

    resp = qtest_qmp(d->qts, "{'execute': 'screendump', "
                     "'arguments': {'filename': %s}}", path);
    g_assert(resp);
    if (qdict_haskey(resp, "error") ||
        !g_file_get_contents(path, &data, &len, NULL)) {
        qobject_unref(resp);
        return s;
    }
    qobject_unref(resp);
    if (sscanf(data, "P6\n%d %d\n%d\n%n", &w, &h, &depth, &n) != 3 || !n ||
        depth != 255) {
        return s;
    }
    stride = (w * 3 + 3) & ~3;
    if (len - n != (size_t)stride * h) {
        return s;
    }
    s.w = w;
    s.h = h;
    s.rgb = g_byte_array_new();
    for (int y = 0; y < h; y++) {
        g_byte_array_append(s.rgb, (uint8_t *)data + n + y * stride, w * 3);
    }
    return s;
}

static bool all_black(const Shot *s)
{
    if (!s->rgb) {
        return false;
    }
    for (guint i = 0; i < s->rgb->len; i++) {
        if (s->rgb->data[i]) {
            return false;
        }
    }
    return true;
}

static bool same(const Shot *s, const uint8_t *rgb, size_t len)
{
    return s->rgb && s->rgb->len == len && !memcmp(s->rgb->data, rgb, len);
}

/* Segment 1, 50 Hz; then COMMIT. */
static void scanout(WDev *d, uint64_t off, uint32_t w, uint32_t h,
                    uint32_t pitch, uint32_t fmt, uint32_t ctrl)
{
    sc_cfg(d, 1, off, w, h, pitch, fmt, 50000, ctrl);
    sc_commit(d);
}

/* An XRGB8888 test pixel. The X byte is junk on purpose. */
static uint32_t xrgb(int x, int y, int salt)
{
    return 0xa5u << 24 | ((x * 31 + salt) & 0xff) << 16 |
           ((y * 67 + 3) & 0xff) << 8 | ((x * 13 + y * 29 + salt) & 0xff);
}

static void put_rgb(uint8_t *p, uint32_t v)
{
    p[0] = v >> 16;
    p[1] = v >> 8;
    p[2] = v;
}

static void put_rgb565(uint8_t *p, uint16_t v)
{
    unsigned int r = v >> 11, g = (v >> 5) & 0x3f, b = v & 0x1f;

    p[0] = r << 3 | r >> 2;
    p[1] = g << 2 | g >> 4;
    p[2] = b << 3 | b >> 2;
}

static void test_screendump(void)
{
    WDev *d = wdev_start("", 0, NULL);
    enum { W = 8, H = 4, PITCH = 64, OFF = 0x20000, OFF2 = 0x30000 };
    uint8_t want[W * H * 3], want2[W * H * 3];
    static const uint16_t vals[] = {
        0xf800, 0x07e0, 0x001f, 0xffff, 0x0000, 0x8410, 0x1234, 0xabcd,
        0x4321, 0x7bef, 0x0841, 0xf81f, 0x07ff, 0xffe0, 0x5555,
    };
    uint8_t want565[15 * 3];
    static const uint8_t magenta[3] = { 0xff, 0, 0xff };
    static const uint8_t blue[3] = { 0, 0, 0xff };
    static const uint8_t odd[6] = { 0x11, 0x22, 0x33, 0x55, 0x66, 0x77 };
    g_autoptr(GByteArray) before = NULL;
    Shot s;
    bool ok;

    wdev_command(d, true);
    s = dump(d, "blank");
    check_true(s.w == 640 && s.h == 480 && all_black(&s),
               "a disabled scanout shows a black 640x480 screen");
    shot_free(&s);

    /* XRGB8888, 8x4, pitch 64 (padding between lines), at 0x20000. */
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            vram_wr(d, OFF + y * PITCH + x * 4, xrgb(x, y, 0));
            vram_wr(d, OFF2 + y * PITCH + x * 4, xrgb(x, y, 100));
            put_rgb(want + (y * W + x) * 3, xrgb(x, y, 0));
            put_rgb(want2 + (y * W + x) * 3, xrgb(x, y, 100));
        }
        vram_wr(d, OFF + y * PITCH + W * 4, 0xffffffff);     /* padding */
    }
    scanout(d, OFF, W, H, PITCH, XRGB, 1);
    s = dump(d, "xrgb");
    check_true(s.w == W && s.h == H,
               "the screen takes the framebuffer size (8x4)");
    check_true(same(&s, want, sizeof(want)),
               "XRGB8888 pixels on screen, X byte and pitch padding ignored");
    shot_free(&s);

    vram_wr(d, OFF + 1 * PITCH + 3 * 4, 0x00123456);
    s = dump(d, "cpu");
    check_true(s.rgb && s.rgb->len == sizeof(want) &&
               !memcmp(s.rgb->data + (W + 3) * 3, "\x12\x34\x56", 3),
               "a CPU write through BAR2 is on screen at the next screendump");
    shot_free(&s);

    /* Copy engine: FILL line 2 with magenta. */
    ring_enable(d, WQ_RING, 0x1000);
    c_fill(d, W * 4, 0x00ff00ff, seg_loc(1, OFF + 2 * PITCH));
    ok = run(d) & WDDMSEG_RING_STATUS_IDLE;
    s = dump(d, "fill");
    ok = ok && s.rgb && s.rgb->len == sizeof(want);
    for (int x = 0; ok && x < W; x++) {
        ok = !memcmp(s.rgb->data + (2 * W + x) * 3, magenta, 3);
    }
    check_true(ok, "a copy-engine FILL is on screen at the next screendump");
    before = s.rgb ? g_byte_array_ref(s.rgb) : NULL;
    shot_free(&s);

    /* A flip is seen at the vblank, not before. */
    scanout(d, OFF2, W, H, PITCH, XRGB, 1);
    s = dump(d, "pending");
    check_true(sc_status(d) == (EN | PENDING) && before &&
               same(&s, before->data, before->len),
               "a pending flip leaves the screen alone until the vblank");
    shot_free(&s);
    step(d, P50);
    s = dump(d, "flipped");
    check_true(sc_status(d) == EN && same(&s, want2, sizeof(want2)),
               "the flipped framebuffer is on screen after the vblank");
    shot_free(&s);

    /*
     * RGB565, 5x3, pitch 12, at an offset 2 mod 4: pixman cannot use it
     * in place, so the console shows a shadow copy.
     */
    for (size_t i = 0; i < G_N_ELEMENTS(vals); i++) {
        qpci_io_writew(d->dev, d->bar2, 0x40002 + (i / 5) * 12 + (i % 5) * 2,
                       vals[i]);
        put_rgb565(want565 + i * 3, vals[i]);
    }
    scanout(d, 0x40002, 5, 3, 12, RGB565, 1);
    step(d, P50);
    s = dump(d, "rgb565");
    check_true(s.w == 5 && s.h == 3 && sc_status(d) == EN,
               "RGB565 at an unaligned offset: the screen is 5x3");
    check_true(same(&s, want565, sizeof(want565)),
               "RGB565 pixels on screen (shadow copy)");
    shot_free(&s);
    qpci_io_writew(d->dev, d->bar2, 0x40002 + 2 * 12 + 4 * 2, 0x001f);
    s = dump(d, "rgb565b");
    check_true(s.rgb && s.rgb->len == 45 &&
               !memcmp(s.rgb->data + 14 * 3, blue, 3),
               "the shadow copy follows a later CPU write");
    shot_free(&s);

    /* XRGB8888 at an odd offset: a shadow copy too. */
    vram_wr(d, 0x50000, 0x11223344);
    vram_wr(d, 0x50004, 0x55667788);
    vram_wr(d, 0x50008, 0x99aabbcc);
    scanout(d, 0x50001, 2, 1, 8, XRGB, 1);
    step(d, P50);
    s = dump(d, "odd");
    /* Pixel 0 is the bytes at 0x50001..4 (33 22 11 88), 1 at 0x50005. */
    check_true(s.w == 2 && s.h == 1 && same(&s, odd, sizeof(odd)),
               "XRGB8888 at an odd offset (shadow copy)");
    shot_free(&s);

    /* Disabled: black, at the last size. */
    scanout(d, 0, 0, 0, 0, 0, 0);
    step(d, P50);
    s = dump(d, "off");
    check_true(sc_status(d) == 0 && s.w == 2 && s.h == 1 && all_black(&s),
               "a disabled scanout shows black at the last size");
    shot_free(&s);

    /* A refused flip leaves the screen as it was. */
    scanout(d, 0x40002, 5, 3, 12, RGB565, 1);
    step(d, P50);
    wr(d, WDDMSEG_REG_SCANOUT_OFFSET_LO, 0x4000000);    /* past segment 1 */
    sc_commit(d);
    step(d, P50);
    s = dump(d, "refused");
    check_true(rd(d, WDDMSEG_REG_SCANOUT_ERROR) == WDDMSEG_SCANOUT_ERR_RANGE &&
               s.w == 5 && s.h == 3 && s.rgb &&
               !memcmp(s.rgb->data + 14 * 3, blue, 3),
               "a refused flip leaves the screen as it was");
    shot_free(&s);

    /* Reset: the scanout is off, the screen black. */
    qtest_qmp_assert_success(d->qts, "{'execute': 'system_reset'}");
    for (int i = 0; i < 1000 && qpci_config_readw(d->dev, PCI_COMMAND); i++) {
        g_usleep(1000);
    }
    wdev_map(d);
    s = dump(d, "reset");
    check_true(sc_status(d) == 0 && sc_count(d) == 0 && all_black(&s),
               "after a system reset the scanout is off and the screen black");
    shot_free(&s);
    wdev_stop(d);
}

/*
 * Vblanks in real time: under TCG (not the qtest accelerator) the virtual
 * clock follows the host clock while the VM runs, so at 60 Hz
 * VBLANK_COUNT must advance by about 60 a second. SeaBIOS assigns the
 * BARs; the check uses its BAR0.
 */
static void test_realtime(void)
{
    WDev *d = wdev_start("", WQ_NOMAP, "-accel tcg");
    uint64_t bar0 = 0;
    uint32_t c0, c1;
    gint64 ta0, tb0, ta1, tb1;
    double lo, hi;

    for (int i = 0; i < 600 && !bar0; i++) {
        if (qpci_config_readw(d->dev, PCI_COMMAND) & PCI_COMMAND_MEMORY) {
            bar0 = qpci_config_readl(d->dev, PCI_BASE_ADDRESS_0) & ~0xfULL;
        }
        if (!bar0) {
            g_usleep(50 * 1000);
        }
    }
    d->bar0.addr = bar0;
    d->bar0.is_io = false;
    sc_cfg(d, 1, 0, 64, 32, 256, XRGB, 60000, WDDMSEG_SCANOUT_CTRL_ENABLE);
    sc_commit(d);
    /*
     * Each read of VBLANK_COUNT happens somewhere between the timestamps
     * taken around it; on a loaded host a qtest round trip can take a good
     * part of a second, so the rate is only known within [lo, hi]. 60 Hz
     * must be possible (within 10%), and the bracket tight enough to mean
     * it.
     */
    ta0 = g_get_monotonic_time();
    c0 = sc_count(d);
    tb0 = g_get_monotonic_time();
    g_usleep(3 * G_USEC_PER_SEC);
    ta1 = g_get_monotonic_time();
    c1 = sc_count(d);
    tb1 = g_get_monotonic_time();
    lo = (c1 - c0) / ((tb1 - ta0) / 1e6);
    hi = (c1 - c0) / (MAX(ta1 - tb0, 1000) / 1e6);
    check_true(bar0 && sc_status(d) == EN,
               "the firmware mapped BAR0, the scanout is on");
    check_true(lo <= 66 && hi >= 54 && hi - lo < 30,
               "about 60 vblanks a second at 60 Hz (between %.1f and %.1f)",
               lo, hi);
    wdev_stop(d);
}

/* ---- cursor, gamma LUT, frame CRC ---------------------------------------- */

/* CRC-32C, bitwise: independent of the device's table-driven one. */
static uint32_t crc32c_bits(uint32_t crc, const uint8_t *p, size_t len)
{
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) {
            crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78 : crc >> 1;
        }
    }
    return crc;
}

/* CRC_VALUE of an image of 0x00RRGGBB pixels, as the device defines it. */
static uint32_t frame_crc(const uint32_t *px, size_t n)
{
    uint32_t crc = 0xffffffff;

    for (size_t i = 0; i < n; i++) {
        uint8_t le[4] = { px[i], px[i] >> 8, px[i] >> 16, 0 };

        crc = crc32c_bits(crc, le, 4);
    }
    return crc ^ 0xffffffff;
}

/* Premultiplied "over", rounded as the device documents it. */
static uint32_t over(uint32_t cur, uint32_t fb)
{
    uint32_t a = cur >> 24, out = 0;

    for (int sh = 0; sh <= 16; sh += 8) {
        uint32_t v = ((cur >> sh) & 0xff) +
                     (((fb >> sh) & 0xff) * (255 - a) + 127) / 255;

        out |= MIN(v, 255u) << sh;
    }
    return out;
}

static void cur_cfg(WDev *d, uint32_t seg, uint64_t off, uint32_t w,
                    uint32_t h, uint32_t pitch, int32_t x, int32_t y,
                    uint32_t ctrl)
{
    wr(d, WDDMSEG_REG_CURSOR_SEGMENT, seg);
    wr64(d, WDDMSEG_REG_CURSOR_OFFSET_LO, off);
    wr(d, WDDMSEG_REG_CURSOR_SIZE, WDDMSEG_CURSOR_SIZE(w, h));
    wr(d, WDDMSEG_REG_CURSOR_PITCH, pitch);
    wr(d, WDDMSEG_REG_CURSOR_X, (uint32_t)x);
    wr(d, WDDMSEG_REG_CURSOR_Y, (uint32_t)y);
    wr(d, WDDMSEG_REG_CURSOR_CTRL, ctrl);
}

static bool shot_is(const Shot *s, const uint32_t *px, int w, int h)
{
    g_autofree uint8_t *rgb = g_malloc(w * h * 3);

    for (int i = 0; i < w * h; i++) {
        put_rgb(rgb + i * 3, px[i]);
    }
    return s->w == w && s->h == h && same(s, rgb, w * h * 3);
}

/* The screen, dumped as @tag, shows exactly @px (@w x @h, XRGB). */
static bool screen_is(WDev *d, const char *tag, const uint32_t *px, int w,
                      int h)
{
    Shot s = dump(d, tag);
    bool ok = shot_is(&s, px, w, h);

    shot_free(&s);
    return ok;
}

static void test_cursor_gamma_crc(void)
{
    WDev *d = wdev_start("", WQ_LOG, NULL);
    enum { W = 8, H = 4, PITCH = 64, OFF = 0x20000, OFF2 = 0x30000,
           CUR = 0x60000, CPITCH = 16 };
    static const uint32_t cur[2][2] = {
        { 0xffffffff, 0x80402010 },     /* opaque white, half, premult. */
        { 0x00000000, 0xffff0000 },     /* transparent, opaque red */
    };
    uint32_t fb[W * H], want[W * H], lut[256];
    uint32_t frame, crc;

    wdev_command(d, true);
    check_eq(rd(d, WDDMSEG_REG_SCANOUT_FEATURES),
             WDDMSEG_SCANOUT_FEAT_CURSOR | WDDMSEG_SCANOUT_FEAT_GAMMA |
             WDDMSEG_SCANOUT_FEAT_CRC,
             "SCANOUT_FEATURES: cursor, gamma and CRC");
    check_eq(rd(d, WDDMSEG_REG_CURSOR_MAX), WDDMSEG_CURSOR_SIZE(64, 64),
             "CURSOR_MAX is 64x64");

    for (int i = 0; i < W * H; i++) {
        fb[i] = xrgb(i % W, i / W, 7);
        vram_wr(d, OFF + (i / W) * PITCH + (i % W) * 4, fb[i]);
        vram_wr(d, OFF2 + (i / W) * PITCH + (i % W) * 4, fb[i]);
        fb[i] &= 0xffffff;
    }
    for (int y = 0; y < 2; y++) {
        for (int x = 0; x < 2; x++) {
            vram_wr(d, CUR + y * CPITCH + x * 4, cur[y][x]);
        }
    }

    /* Pending cursor registers read back; nothing latched yet. */
    scanout(d, OFF, W, H, PITCH, XRGB, 1);
    cur_cfg(d, 1, CUR, 2, 2, CPITCH, 3, 1, WDDMSEG_CURSOR_CTRL_ENABLE);
    check_true(rd(d, WDDMSEG_REG_CURSOR_X) == 3 &&
               rd(d, WDDMSEG_REG_CURSOR_Y) == 1 &&
               rd(d, WDDMSEG_REG_CURSOR_PITCH) == CPITCH &&
               rd64(d, WDDMSEG_REG_CURSOR_OFFSET_LO) == CUR &&
               rd(d, WDDMSEG_REG_CURSOR_SIZE) == WDDMSEG_CURSOR_SIZE(2, 2),
               "the pending cursor registers read back");
    check_true(screen_is(d, "nocursor", fb, W, H),
               "a cursor written but not committed is not on screen");

    sc_commit(d);
    step(d, P50);
    memcpy(want, fb, sizeof(want));
    want[1 * W + 3] = over(cur[0][0], fb[1 * W + 3]);
    want[1 * W + 4] = over(cur[0][1], fb[1 * W + 4]);
    want[2 * W + 3] = over(cur[1][0], fb[2 * W + 3]);
    want[2 * W + 4] = over(cur[1][1], fb[2 * W + 4]);
    check_true(sc_status(d) == EN && screen_is(d, "cursor", want, W, H),
               "the committed cursor is blended (premultiplied) at (3,1)");

    /* Partly off the top-left corner: only its bottom-right pixel shows. */
    cur_cfg(d, 1, CUR, 2, 2, CPITCH, -1, -1, WDDMSEG_CURSOR_CTRL_ENABLE);
    sc_commit(d);
    step(d, P50);
    memcpy(want, fb, sizeof(want));
    want[0] = over(cur[1][1], fb[0]);
    check_true(screen_is(d, "clipped", want, W, H),
               "a cursor at (-1,-1) is clipped to the screen");

    /* Frame CRC of exactly this image, latched at the next vblank. */
    check_eq(rd(d, WDDMSEG_REG_CRC_FRAME), 0, "CRC_FRAME 0 while CRCs are off");
    wr(d, WDDMSEG_REG_CRC_CTRL, WDDMSEG_CRC_CTRL_ENABLE);
    step(d, P50);
    frame = rd(d, WDDMSEG_REG_CRC_FRAME);
    crc = rd(d, WDDMSEG_REG_CRC_VALUE);
    check_true(frame == sc_count(d) && frame != 0,
               "CRC_FRAME is the VBLANK_COUNT of the vblank (%u)", frame);
    check_eq(crc, frame_crc(want, W * H),
             "CRC_VALUE is the CRC-32C of the composed frame");
    step(d, P50);
    check_true(rd(d, WDDMSEG_REG_CRC_FRAME) == frame + 1 &&
               rd(d, WDDMSEG_REG_CRC_VALUE) == crc,
               "the same image gives the same CRC at the next vblank");
    vram_wr(d, OFF + 3 * PITCH + 7 * 4, fb[3 * W + 7] ^ 0x000100);
    step(d, P50);
    check_true(rd(d, WDDMSEG_REG_CRC_VALUE) != crc,
               "one changed pixel changes the CRC");
    vram_wr(d, OFF + 3 * PITCH + 7 * 4, fb[3 * W + 7]);
    scanout(d, OFF2, W, H, PITCH, XRGB, 1);
    step(d, P50);
    check_eq(rd(d, WDDMSEG_REG_CRC_VALUE), crc,
             "an identical image elsewhere in VRAM has the same CRC");

    /* Gamma: an inverting LUT, written through the auto-increment. */
    wr(d, WDDMSEG_REG_GAMMA_INDEX, 0);
    for (int i = 0; i < 256; i++) {
        lut[i] = (255 - i) * 0x010101u;
        wr(d, WDDMSEG_REG_GAMMA_DATA, lut[i]);
    }
    wr(d, WDDMSEG_REG_GAMMA_INDEX, 17);
    check_true(rd(d, WDDMSEG_REG_GAMMA_DATA) == lut[17] &&
               rd(d, WDDMSEG_REG_GAMMA_INDEX) == 17,
               "GAMMA_DATA writes auto-increment; a read returns the entry");
    wr(d, WDDMSEG_REG_GAMMA_CTRL, WDDMSEG_GAMMA_CTRL_ENABLE);
    sc_commit(d);
    step(d, P50);
    for (int i = 0; i < W * H; i++) {
        want[i] ^= 0xffffff;
    }
    check_true(screen_is(d, "gamma", want, W, H),
               "the gamma LUT applies after the cursor blend on screen");
    check_eq(rd(d, WDDMSEG_REG_CRC_VALUE), frame_crc(want, W * H),
             "and in the CRC");

    /* Cursor refusals: the whole commit is refused with ERR_CURSOR. */
    irq_clear(d);
    cur_cfg(d, 2, 0, 2, 2, CPITCH, 0, 0, WDDMSEG_CURSOR_CTRL_ENABLE);
    sc_commit(d);
    step(d, P50);
    check_true(rd(d, WDDMSEG_REG_SCANOUT_ERROR) == WDDMSEG_SCANOUT_ERR_CURSOR &&
               (sc_status(d) & REFUSED) && (irq(d) & SC_ERR),
               "a cursor in a segment without DirectFlip: ERR_CURSOR");
    irq_clear(d);
    cur_cfg(d, 1, CUR, 65, 1, 65 * 4, 0, 0, WDDMSEG_CURSOR_CTRL_ENABLE);
    sc_commit(d);
    step(d, P50);
    check_true(rd(d, WDDMSEG_REG_SCANOUT_ERROR) == WDDMSEG_SCANOUT_ERR_CURSOR &&
               (sc_status(d) & REFUSED),
               "a 65-pixel-wide cursor: ERR_CURSOR");
    cur_cfg(d, 1, CUR, 2, 2, 4, 0, 0, WDDMSEG_CURSOR_CTRL_ENABLE);
    sc_commit(d);
    step(d, P50);
    check_true(rd(d, WDDMSEG_REG_SCANOUT_ERROR) == WDDMSEG_SCANOUT_ERR_CURSOR &&
               (sc_status(d) & REFUSED),
               "a cursor pitch below its width: ERR_CURSOR");
    cur_cfg(d, 1, CUR, 2, 2, CPITCH, 0, 0, 0);
    wr(d, WDDMSEG_REG_GAMMA_CTRL, 0);
    sc_commit(d);
    step(d, P50);
    check_true(!(sc_status(d) & REFUSED), "cursor and gamma off: accepted");
    check_eq(rd(d, WDDMSEG_REG_CRC_VALUE), frame_crc(fb, W * H),
             "the CRC is the plain framebuffer's again");

    wr(d, WDDMSEG_REG_CRC_CTRL, 0);
    frame = rd(d, WDDMSEG_REG_CRC_FRAME);
    step(d, P50);
    check_eq(rd(d, WDDMSEG_REG_CRC_FRAME), frame,
             "no new CRC once CRC_CTRL is off");
    wdev_stop(d);
}

/*
 * Device 1.10: the primary as a rectangle of the mode over black
 * (PLANE_X/Y/SIZE), no primary at all (NO_PRIMARY: black and the cursor),
 * their refusal, and CURSOR_COMMIT, which changes the active cursor at
 * once and leaves a pending commit pending until its own vblank.
 */
static void test_compose(void)
{
    WDev *d = wdev_start("", WQ_LOG, NULL);
    enum { W = 8, H = 4, PW = 3, PH = 2, PITCH = 64, OFF = 0x20000,
           OFF2 = 0x28000, CUR = 0x60000, CPITCH = 16 };
    uint32_t fb[PW * PH], want[W * H], count;

    wdev_command(d, true);
    for (int i = 0; i < PW * PH; i++) {
        fb[i] = xrgb(i % PW, i / PW, 11);
        vram_wr(d, OFF + (i / PW) * PITCH + (i % PW) * 4, fb[i]);
        vram_wr(d, OFF2 + (i / PW) * PITCH + (i % PW) * 4, fb[i] ^ 0xffff);
        fb[i] &= 0xffffff;
    }
    vram_wr(d, CUR, 0xffffffff);

    /* A 3x2 primary at (4,1) of an 8x4 mode: the rest is black. */
    wr(d, WDDMSEG_REG_PLANE_X, 4);
    wr(d, WDDMSEG_REG_PLANE_Y, 1);
    wr(d, WDDMSEG_REG_PLANE_SIZE, WDDMSEG_CURSOR_SIZE(PW, PH));
    check_true(rd(d, WDDMSEG_REG_PLANE_X) == 4 &&
               rd(d, WDDMSEG_REG_PLANE_Y) == 1 &&
               rd(d, WDDMSEG_REG_PLANE_SIZE) == WDDMSEG_CURSOR_SIZE(PW, PH),
               "the pending plane registers read back");
    wr(d, WDDMSEG_REG_CRC_CTRL, WDDMSEG_CRC_CTRL_ENABLE);
    scanout(d, OFF, W, H, PITCH, XRGB, WDDMSEG_SCANOUT_CTRL_ENABLE);
    step(d, P50);
    memset(want, 0, sizeof(want));
    for (int i = 0; i < PW * PH; i++) {
        want[(1 + i / PW) * W + 4 + i % PW] = fb[i];
    }
    check_true(sc_status(d) == EN && screen_is(d, "plane", want, W, H),
               "a 3x2 primary at (4,1) is shown over black");
    check_eq(rd(d, WDDMSEG_REG_CRC_VALUE), frame_crc(want, W * H),
             "the CRC covers the whole mode, black border included");

    /* Outside the mode: ERR_SIZE, the active configuration stays. */
    irq_clear(d);
    wr(d, WDDMSEG_REG_PLANE_X, 6);
    sc_commit(d);
    step(d, P50);
    check_true(rd(d, WDDMSEG_REG_SCANOUT_ERROR) == WDDMSEG_SCANOUT_ERR_SIZE &&
               (sc_status(d) & REFUSED) && (irq(d) & SC_ERR),
               "a primary reaching past the mode's right edge: ERR_SIZE");
    wr(d, WDDMSEG_REG_PLANE_X, 4);
    wr(d, WDDMSEG_REG_PLANE_SIZE, WDDMSEG_CURSOR_SIZE(0, PH));
    sc_commit(d);
    step(d, P50);
    check_true(rd(d, WDDMSEG_REG_SCANOUT_ERROR) == WDDMSEG_SCANOUT_ERR_SIZE &&
               (sc_status(d) & REFUSED),
               "a primary 0 pixels wide: ERR_SIZE");
    wr(d, WDDMSEG_REG_PLANE_SIZE, WDDMSEG_CURSOR_SIZE(PW, PH));
    wr(d, WDDMSEG_REG_SCANOUT_PITCH, PW * 4 - 4);
    sc_commit(d);
    step(d, P50);
    check_true(rd(d, WDDMSEG_REG_SCANOUT_ERROR) == WDDMSEG_SCANOUT_ERR_PITCH,
               "PITCH below the primary's width: ERR_PITCH");
    wr(d, WDDMSEG_REG_SCANOUT_PITCH, PITCH);

    /* No primary: black, then the cursor; SEGMENT etc. are not checked. */
    irq_clear(d);
    wr(d, WDDMSEG_REG_SCANOUT_SEGMENT, 99);
    wr(d, WDDMSEG_REG_SCANOUT_FORMAT, 0);
    cur_cfg(d, 1, CUR, 1, 1, CPITCH, 2, 3, WDDMSEG_CURSOR_CTRL_ENABLE);
    wr(d, WDDMSEG_REG_SCANOUT_CTRL, WDDMSEG_SCANOUT_CTRL_ENABLE |
       WDDMSEG_SCANOUT_CTRL_NO_PRIMARY);
    sc_commit(d);
    step(d, P50);
    memset(want, 0, sizeof(want));
    want[3 * W + 2] = 0xffffff;
    check_true(sc_status(d) == EN && screen_is(d, "noprimary", want, W, H),
               "NO_PRIMARY shows black and the cursor");
    check_eq(rd(d, WDDMSEG_REG_CRC_VALUE), frame_crc(want, W * H),
             "and its CRC is that of black and the cursor");

    /*
     * CURSOR_COMMIT: the cursor moves at once, while a flip armed before
     * stays PENDING and latches at its vblank, not later.
     */
    scanout(d, OFF, W, H, PITCH, XRGB, WDDMSEG_SCANOUT_CTRL_ENABLE);
    step(d, P50);
    sc_cfg(d, 1, OFF2, W, H, PITCH, XRGB, 50000, WDDMSEG_SCANOUT_CTRL_ENABLE);
    sc_commit(d);
    count = sc_count(d);
    irq_clear(d);
    wr(d, WDDMSEG_REG_CURSOR_X, 0);
    wr(d, WDDMSEG_REG_CURSOR_Y, 0);
    wr(d, WDDMSEG_REG_CURSOR_COMMIT, 1);
    memset(want, 0, sizeof(want));
    for (int i = 0; i < PW * PH; i++) {
        want[(1 + i / PW) * W + 4 + i % PW] = fb[i];
    }
    want[0] = 0xffffff;
    check_true(screen_is(d, "cursor-now", want, W, H),
               "CURSOR_COMMIT moves the cursor at once, over the old frame");
    check_true((sc_status(d) & PENDING) && irq(d) == 0 &&
               rd64(d, WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_LO) == OFF,
               "the armed flip is still pending, no interrupt");
    step(d, P50);
    check_true(!(sc_status(d) & PENDING) && sc_count(d) == count + 1 &&
               rd64(d, WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_LO) == OFF2,
               "the flip latched at the next vblank, as armed");
    check_eq(rd(d, WDDMSEG_REG_CURSOR_X), 0,
             "the latch kept the cursor CURSOR_COMMIT set");

    /* A cursor CURSOR_COMMIT refuses: ERR_CURSOR, the old one stays. */
    irq_clear(d);
    wr(d, WDDMSEG_REG_CURSOR_SEGMENT, 2);
    wr(d, WDDMSEG_REG_CURSOR_X, 5);
    wr(d, WDDMSEG_REG_CURSOR_COMMIT, 1);
    check_true(rd(d, WDDMSEG_REG_SCANOUT_ERROR) == WDDMSEG_SCANOUT_ERR_CURSOR &&
               irq(d) == SC_ERR,
               "CURSOR_COMMIT of a cursor without DirectFlip: ERR_CURSOR");
    wr(d, WDDMSEG_REG_CRC_CTRL, 0);
    wdev_stop(d);
}

int main(int argc, char **argv)
{
    wq_init(&argc, &argv);
    wq_add("display/scanout", test_scanout);
    wq_add("display/layout", test_scanout_layout);
    wq_add("display/bad-props", test_scanout_bad_props);
    wq_add("display/intx", test_scanout_intx);
    wq_add("display/screendump", test_screendump);
    wq_add("display/realtime", test_realtime);
    wq_add("display/cursor-gamma-crc", test_cursor_gamma_crc);
    wq_add("display/compose", test_compose);
    return wq_run();
}
