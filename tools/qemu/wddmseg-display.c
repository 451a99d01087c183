/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * wddmseg: the display controller (device 1.3) and its graphic console
 *
 * One scanout, double buffered. The guest writes a pending
 * configuration and commits it; a QEMU_CLOCK_VIRTUAL timer,
 * armed only while the scanout is enabled, makes the vblanks at exact
 * multiples of the refresh period from the moment the timing was latched,
 * counts them and latches a committed configuration at the next one (at
 * once when the scanout is disabled), validating it then. The graphic
 * console shows the active framebuffer straight out of VRAM (or a shadow
 * copy when pixman cannot use it in place), refreshed in full at every
 * update, so what the copy engine or the CPU wrote is always on screen.
 */

#include "qemu/osdep.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "ui/console.h"

#include "wddmseg-internal.h"
#include "trace.h"

/* What a disabled scanout shows before anything was ever shown. */
#define WDDMSEG_BLANK_WIDTH                 640
#define WDDMSEG_BLANK_HEIGHT                480
#define WDDMSEG_SCANOUT_FMT_ALL \
    ((uint32_t)(WDDMSEG_SCANOUT_FMT_XRGB8888 | WDDMSEG_SCANOUT_FMT_RGB565))
/* A vblank period is this many ns divided by REFRESH_MHZ. */
#define WDDMSEG_NS_PER_MILLIHERTZ           (NANOSECONDS_PER_SECOND * 1000ULL)

/* ------------------------------------------------------------------------ */
/* Display controller                                                       */
/* ------------------------------------------------------------------------ */

static unsigned int wddmseg_scanout_cpp(uint32_t format)
{
    return format == WDDMSEG_SCANOUT_FMT_RGB565 ? 2 : 4;
}

/*
 * The rules a configuration must pass to be latched, checked in the order
 * of the WDDMSEG_SCANOUT_ERR_* codes: the first one broken decides, and
 * why says what it was. A disabled configuration always passes.
 */
uint32_t wddmseg_scanout_check(WddmsegState *s,
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

/*
 * VBLANK_AGE_NS: the virtual time since the vblank VBLANK_COUNT counted
 * last (the latch of the active timing counts as its vblank 0).
 */
static uint32_t wddmseg_vblank_age(WddmsegState *s)
{
    int64_t age;

    if (!wddmseg_scanout_enabled(&s->sc_active)) {
        return WDDMSEG_VBLANK_AGE_NONE;
    }
    age = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) -
          wddmseg_vblank_time(s, s->vblank_frames);
    if (age < 0) {
        return 0;
    }
    return MIN(age, (int64_t)WDDMSEG_VBLANK_AGE_NONE - 1);
}

/* The timer runs while the active configuration is enabled, no longer. */
void wddmseg_vblank_arm(WddmsegState *s)
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
        trace_wddmseg_scanout_refused(err, why);
        s->sc_refused = true;
        s->sc_error = err;
        wddmseg_irq_raise(s, WDDMSEG_IRQ_VBLANK | WDDMSEG_IRQ_SCANOUT_ERROR);
        return;
    }
    s->sc_refused = false;
    s->sc_active = s->sc_pending;
    trace_wddmseg_scanout_latch(s->sc_active.ctrl, s->sc_active.segment,
                                s->sc_active.offset, s->sc_active.width,
                                s->sc_active.height, s->sc_active.pitch,
                                s->sc_active.format,
                                s->sc_active.refresh_mhz);
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
void wddmseg_vblank(void *opaque)
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
    trace_wddmseg_vblank(s->vblank_count, n, s->sc_armed);
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
    trace_wddmseg_scanout_commit(val, wddmseg_scanout_enabled(&s->sc_active));
    if (wddmseg_scanout_enabled(&s->sc_active)) {
        /* The vblank timer runs: latch at the next vblank. */
        s->sc_armed = true;
        return;
    }
    wddmseg_scanout_latch(s, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
}

bool wddmseg_scanout_read(WddmsegState *s, hwaddr addr, uint32_t *val)
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
    case WDDMSEG_REG_VBLANK_AGE_NS:
        *val = wddmseg_vblank_age(s);
        return true;
    }
    return false;
}

/* False for registers that are not writable. */
bool wddmseg_scanout_write(WddmsegState *s, hwaddr addr, uint32_t val)
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
void wddmseg_scanout_reset(WddmsegState *s)
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
    trace_wddmseg_view(v->enabled, v->vram_off, v->width, v->height,
                       v->pitch, v->format, s->shadow != NULL);
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

const GraphicHwOps wddmseg_gfx_ops = {
    .gfx_update = wddmseg_gfx_update,
};
