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
 *
 * A latched configuration may add a hardware cursor (ARGB8888,
 * premultiplied, blended over the framebuffer) and a 256-entry gamma LUT
 * (applied after the blend). The console then shows a composed XRGB8888
 * copy, made by the same function that feeds the frame CRC, so a
 * screendump and CRC_VALUE describe the same pixels.
 */

#include "qemu/osdep.h"
#include "qemu/crc32c.h"
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
#define WDDMSEG_SCANOUT_FEATURES \
    ((uint32_t)(WDDMSEG_SCANOUT_FEAT_CURSOR | WDDMSEG_SCANOUT_FEAT_GAMMA | \
                WDDMSEG_SCANOUT_FEAT_CRC))
/* The largest cursor: what DRM_CAP_CURSOR_WIDTH/HEIGHT report. */
#define WDDMSEG_CURSOR_MAX_W                64
#define WDDMSEG_CURSOR_MAX_H                64
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
 * The cursor's rules (SCANOUT_ERR_CURSOR): a memory segment with
 * DirectFlip, a size within CURSOR_MAX, a 4-byte aligned pitch that holds
 * a line, and an image inside the segment and VRAM.
 */
static bool wddmseg_cursor_check(WddmsegState *s, const WddmsegScanout *c,
                                 char *why, size_t len)
{
    uint32_t w = WDDMSEG_CURSOR_SIZE_W(c->cur_size);
    uint32_t h = WDDMSEG_CURSOR_SIZE_H(c->cur_size);
    const WddmsegSegment *seg;
    uint64_t need;

    if (c->cur_ctrl & ~(uint32_t)WDDMSEG_CURSOR_CTRL_ENABLE) {
        snprintf(why, len, "CURSOR_CTRL 0x%x has unknown bits", c->cur_ctrl);
        return false;
    }
    if (!(c->cur_ctrl & WDDMSEG_CURSOR_CTRL_ENABLE)) {
        return true;
    }
    if (c->cur_segment == 0 || c->cur_segment > s->layout.seg_count) {
        snprintf(why, len, "cursor segment id %u is not in the table",
                 c->cur_segment);
        return false;
    }
    seg = &s->layout.segs[c->cur_segment - 1];
    if ((seg->flags & (DXGK_SEGFLAG_APERTURE | DXGK_SEGFLAG_AGP)) ||
        !(seg->flags & DXGK_SEGFLAG_DIRECT_FLIP)) {
        snprintf(why, len, "cursor segment %u (flags 0x%x) is not a memory "
                 "segment with DirectFlip", c->cur_segment, seg->flags);
        return false;
    }
    if (!w || w > WDDMSEG_CURSOR_MAX_W || !h || h > WDDMSEG_CURSOR_MAX_H) {
        snprintf(why, len, "cursor size %ux%u outside 1x1..%ux%u", w, h,
                 WDDMSEG_CURSOR_MAX_W, WDDMSEG_CURSOR_MAX_H);
        return false;
    }
    if (c->cur_pitch < w * 4 || c->cur_pitch % 4) {
        snprintf(why, len, "CURSOR_PITCH %u is below %u or not a multiple "
                 "of 4", c->cur_pitch, w * 4);
        return false;
    }
    need = (uint64_t)c->cur_pitch * (h - 1) + w * 4;
    if (c->cur_offset > seg->size || need > seg->size - c->cur_offset ||
        seg->base > s->vram_size ||
        c->cur_offset + need > s->vram_size - seg->base) {
        snprintf(why, len, "cursor [0x%" PRIx64 ", +0x%" PRIx64 ") leaves "
                 "segment %u or VRAM", c->cur_offset, need, c->cur_segment);
        return false;
    }
    return true;
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
    uint32_t pw, ph;

    if (!wddmseg_scanout_enabled(c)) {
        return WDDMSEG_SCANOUT_ERR_NONE;
    }
    if (!wddmseg_scanout_primary(c)) {
        /* Black (and the cursor): only the timing and the cursor count. */
        if (!c->width || c->width > s->max_width ||
            !c->height || c->height > s->max_height) {
            snprintf(why, len, "size %ux%u outside 1x1..%ux%u", c->width,
                     c->height, s->max_width, s->max_height);
            return WDDMSEG_SCANOUT_ERR_SIZE;
        }
        goto timing;
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
    pw = wddmseg_plane_w(c);
    ph = wddmseg_plane_h(c);
    if (!pw || !ph || c->plane_x >= c->width || pw > c->width - c->plane_x ||
        c->plane_y >= c->height || ph > c->height - c->plane_y) {
        snprintf(why, len, "primary %ux%u at %u,%u is not inside the %ux%u "
                 "mode", pw, ph, c->plane_x, c->plane_y, c->width,
                 c->height);
        return WDDMSEG_SCANOUT_ERR_SIZE;
    }
    line = (uint64_t)pw * wddmseg_scanout_cpp(c->format);
    if (c->pitch < line || c->pitch % 4) {
        snprintf(why, len, "PITCH %u is below the primary's width * bytes "
                 "per pixel = %" PRIu64 " or not a multiple of 4", c->pitch,
                 line);
        return WDDMSEG_SCANOUT_ERR_PITCH;
    }
    /* Both at most 2^32 * 2^14: no overflow. */
    need = (uint64_t)c->pitch * (ph - 1) + line;
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
timing:
    if (c->refresh_mhz < WDDMSEG_SCANOUT_REFRESH_MIN ||
        c->refresh_mhz > WDDMSEG_SCANOUT_REFRESH_MAX) {
        snprintf(why, len, "REFRESH_MHZ %u outside %u..%u", c->refresh_mhz,
                 WDDMSEG_SCANOUT_REFRESH_MIN, WDDMSEG_SCANOUT_REFRESH_MAX);
        return WDDMSEG_SCANOUT_ERR_REFRESH;
    }
    if (!wddmseg_cursor_check(s, c, why, len)) {
        return WDDMSEG_SCANOUT_ERR_CURSOR;
    }
    return WDDMSEG_SCANOUT_ERR_NONE;
}

/* ------------------------------------------------------------------------ */
/* Composition: framebuffer, cursor, gamma                                  */
/* ------------------------------------------------------------------------ */

/* RGB565 to 8 bits a channel by bit replication, as pixman expands it. */
static uint32_t wddmseg_rgb565_to_xrgb(uint16_t p)
{
    uint32_t r = (p >> 11) & 0x1f, g = (p >> 5) & 0x3f, b = p & 0x1f;

    r = (r << 3) | (r >> 2);
    g = (g << 2) | (g >> 4);
    b = (b << 3) | (b >> 2);
    return r << 16 | g << 8 | b;
}

/* dst * (255 - a) / 255, rounded, plus the premultiplied src; saturating. */
static uint32_t wddmseg_blend_channel(uint32_t src, uint32_t dst, uint32_t a)
{
    uint32_t v = src + (dst * (255 - a) + 127) / 255;

    return MIN(v, 255u);
}

/*
 * Line y of what the display shows for the enabled, validated
 * configuration c: width pixels 0x00RRGGBB into out.
 */
void wddmseg_compose_line(WddmsegState *s, const WddmsegScanout *c,
                          uint32_t y, uint32_t *out)
{
    const uint8_t *src;
    uint32_t x, pw = wddmseg_plane_w(c), ph = wddmseg_plane_h(c);
    uint32_t *dst = out + c->plane_x;

    /* Black, then the primary's line over it where it has one. */
    if (!wddmseg_plane_full(c)) {
        memset(out, 0, (size_t)c->width * 4);
    }
    if (wddmseg_scanout_primary(c) && y >= c->plane_y &&
        y - c->plane_y < ph) {
        src = s->vram_ptr + s->layout.segs[c->segment - 1].base +
              c->offset + (uint64_t)(y - c->plane_y) * c->pitch;
        if (c->format == WDDMSEG_SCANOUT_FMT_RGB565) {
            for (x = 0; x < pw; x++) {
                dst[x] = wddmseg_rgb565_to_xrgb(lduw_le_p(src + 2 * x));
            }
        } else {
            for (x = 0; x < pw; x++) {
                dst[x] = ldl_le_p(src + 4 * x) & 0xffffff;
            }
        }
    }

    if (c->cur_ctrl & WDDMSEG_CURSOR_CTRL_ENABLE) {
        int64_t cy = (int64_t)y - c->cur_y;
        int64_t w = WDDMSEG_CURSOR_SIZE_W(c->cur_size);
        int64_t h = WDDMSEG_CURSOR_SIZE_H(c->cur_size);
        int64_t x0 = MAX((int64_t)c->cur_x, 0);
        int64_t x1 = MIN((int64_t)c->cur_x + w, (int64_t)c->width);
        const uint8_t *cur;
        int64_t px;

        if (cy >= 0 && cy < h) {
            cur = s->vram_ptr + s->layout.segs[c->cur_segment - 1].base +
                  c->cur_offset + (uint64_t)cy * c->cur_pitch;
            for (px = x0; px < x1; px++) {
                uint32_t p = ldl_le_p(cur + 4 * (px - c->cur_x));
                uint32_t a = p >> 24, d = out[px];

                out[px] =
                    wddmseg_blend_channel((p >> 16) & 0xff,
                                          (d >> 16) & 0xff, a) << 16 |
                    wddmseg_blend_channel((p >> 8) & 0xff,
                                          (d >> 8) & 0xff, a) << 8 |
                    wddmseg_blend_channel(p & 0xff, d & 0xff, a);
            }
        }
    }

    if (c->gamma_ctrl & WDDMSEG_GAMMA_CTRL_ENABLE) {
        for (x = 0; x < c->width; x++) {
            uint32_t p = out[x];

            out[x] = (c->gamma[(p >> 16) & 0xff] & 0xff0000) |
                     (c->gamma[(p >> 8) & 0xff] & 0x00ff00) |
                     (c->gamma[p & 0xff] & 0x0000ff);
        }
    }
}

/* CRC_VALUE of the frame c shows: CRC-32C over its composed lines. */
uint32_t wddmseg_frame_crc(WddmsegState *s, const WddmsegScanout *c)
{
    g_autofree uint32_t *line = g_new(uint32_t, c->width);
    uint32_t crc = 0xffffffff, x, y;

    for (y = 0; y < c->height; y++) {
        wddmseg_compose_line(s, c, y, line);
        for (x = 0; x < c->width; x++) {
            line[x] = cpu_to_le32(line[x]);
        }
        /* QEMU's crc32c() applies the final XOR: undo it to chain. */
        crc = crc32c(crc, (const uint8_t *)line, c->width * 4) ^ 0xffffffff;
    }
    return crc ^ 0xffffffff;
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
    trace_wddmseg_scanout_latch_ext(s->sc_active.cur_ctrl,
                                    s->sc_active.cur_segment,
                                    s->sc_active.cur_offset,
                                    s->sc_active.cur_size,
                                    s->sc_active.cur_pitch,
                                    s->sc_active.cur_x, s->sc_active.cur_y,
                                    s->sc_active.gamma_ctrl);
    trace_wddmseg_scanout_plane(s->sc_active.ctrl, s->sc_active.plane_x,
                                s->sc_active.plane_y,
                                wddmseg_plane_w(&s->sc_active),
                                wddmseg_plane_h(&s->sc_active));
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
    /* The frame that starts now, latched before the guest's handler runs. */
    if ((s->crc_ctrl & WDDMSEG_CRC_CTRL_ENABLE) &&
        wddmseg_scanout_enabled(&s->sc_active)) {
        s->crc_value = wddmseg_frame_crc(s, &s->sc_active);
        s->crc_frame = s->vblank_count;
        trace_wddmseg_crc(s->crc_frame, s->crc_value);
    }
    wddmseg_vblank_arm(s);
}

/*
 * CURSOR_COMMIT (1.10): the pending cursor becomes the active one now,
 * leaving a pending commit (and the vblank it latches at) alone.
 */
static void wddmseg_cursor_commit(WddmsegState *s, uint32_t val)
{
    WddmsegScanout c;
    char why[192];

    if (val != 1) {
        qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: CURSOR_COMMIT write of "
                      "0x%x: only 1 updates the cursor%s\n", val,
                      (val & 1) ? " (other bits ignored)" : "");
    }
    if (!(val & 1) || !wddmseg_scanout_enabled(&s->sc_active)) {
        return;
    }
    c = s->sc_active;
    c.cur_ctrl = s->sc_pending.cur_ctrl;
    c.cur_segment = s->sc_pending.cur_segment;
    c.cur_offset = s->sc_pending.cur_offset;
    c.cur_size = s->sc_pending.cur_size;
    c.cur_pitch = s->sc_pending.cur_pitch;
    c.cur_x = s->sc_pending.cur_x;
    c.cur_y = s->sc_pending.cur_y;
    if (!wddmseg_cursor_check(s, &c, why, sizeof(why))) {
        qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: cursor update refused "
                      "(SCANOUT_ERROR %u): %s\n", WDDMSEG_SCANOUT_ERR_CURSOR,
                      why);
        trace_wddmseg_cursor_commit(c.cur_ctrl, c.cur_x, c.cur_y,
                                    WDDMSEG_SCANOUT_ERR_CURSOR);
        s->sc_error = WDDMSEG_SCANOUT_ERR_CURSOR;
        wddmseg_irq_raise(s, WDDMSEG_IRQ_SCANOUT_ERROR);
        return;
    }
    trace_wddmseg_cursor_commit(c.cur_ctrl, c.cur_x, c.cur_y,
                                WDDMSEG_SCANOUT_ERR_NONE);
    s->sc_active = c;
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
    case WDDMSEG_REG_SCANOUT_FEATURES:
        *val = WDDMSEG_SCANOUT_FEATURES;
        return true;
    case WDDMSEG_REG_CURSOR_MAX:
        *val = WDDMSEG_CURSOR_SIZE(WDDMSEG_CURSOR_MAX_W, WDDMSEG_CURSOR_MAX_H);
        return true;
    case WDDMSEG_REG_CURSOR_CTRL:
        *val = p->cur_ctrl;
        return true;
    case WDDMSEG_REG_CURSOR_SEGMENT:
        *val = p->cur_segment;
        return true;
    case WDDMSEG_REG_CURSOR_OFFSET_LO:
    case WDDMSEG_REG_CURSOR_OFFSET_HI:
        *val = wddmseg_lo_hi(p->cur_offset, addr,
                             WDDMSEG_REG_CURSOR_OFFSET_LO);
        return true;
    case WDDMSEG_REG_CURSOR_SIZE:
        *val = p->cur_size;
        return true;
    case WDDMSEG_REG_CURSOR_PITCH:
        *val = p->cur_pitch;
        return true;
    case WDDMSEG_REG_CURSOR_X:
        *val = (uint32_t)p->cur_x;
        return true;
    case WDDMSEG_REG_CURSOR_Y:
        *val = (uint32_t)p->cur_y;
        return true;
    case WDDMSEG_REG_GAMMA_CTRL:
        *val = p->gamma_ctrl;
        return true;
    case WDDMSEG_REG_GAMMA_INDEX:
        *val = s->gamma_index;
        return true;
    case WDDMSEG_REG_GAMMA_DATA:
        *val = p->gamma[s->gamma_index];
        return true;
    case WDDMSEG_REG_CRC_CTRL:
        *val = s->crc_ctrl;
        return true;
    case WDDMSEG_REG_CRC_VALUE:
        *val = s->crc_value;
        return true;
    case WDDMSEG_REG_CRC_FRAME:
        *val = s->crc_frame;
        return true;
    case WDDMSEG_REG_PLANE_X:
        *val = p->plane_x;
        return true;
    case WDDMSEG_REG_PLANE_Y:
        *val = p->plane_y;
        return true;
    case WDDMSEG_REG_PLANE_SIZE:
        *val = p->plane_size;
        return true;
    case WDDMSEG_REG_CURSOR_COMMIT:
        *val = 0;
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
        if (val & ~WDDMSEG_SCANOUT_CTRL_ALL) {
            qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: unknown SCANOUT_CTRL "
                          "bits 0x%x ignored\n",
                          val & ~WDDMSEG_SCANOUT_CTRL_ALL);
        }
        p->ctrl = val & WDDMSEG_SCANOUT_CTRL_ALL;
        return true;
    case WDDMSEG_REG_PLANE_X:
        p->plane_x = val;
        return true;
    case WDDMSEG_REG_PLANE_Y:
        p->plane_y = val;
        return true;
    case WDDMSEG_REG_PLANE_SIZE:
        p->plane_size = val;
        return true;
    case WDDMSEG_REG_CURSOR_COMMIT:
        wddmseg_cursor_commit(s, val);
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
    case WDDMSEG_REG_CURSOR_CTRL:
        /* Unknown bits are kept: the latch refuses them (ERR_CURSOR). */
        p->cur_ctrl = val;
        return true;
    case WDDMSEG_REG_CURSOR_SEGMENT:
        p->cur_segment = val;
        return true;
    case WDDMSEG_REG_CURSOR_OFFSET_LO:
        p->cur_offset = deposit64(p->cur_offset, 0, 32, val);
        return true;
    case WDDMSEG_REG_CURSOR_OFFSET_HI:
        p->cur_offset = deposit64(p->cur_offset, 32, 32, val);
        return true;
    case WDDMSEG_REG_CURSOR_SIZE:
        p->cur_size = val;
        return true;
    case WDDMSEG_REG_CURSOR_PITCH:
        p->cur_pitch = val;
        return true;
    case WDDMSEG_REG_CURSOR_X:
        p->cur_x = (int32_t)val;
        return true;
    case WDDMSEG_REG_CURSOR_Y:
        p->cur_y = (int32_t)val;
        return true;
    case WDDMSEG_REG_GAMMA_CTRL:
        if (val & ~(uint32_t)WDDMSEG_GAMMA_CTRL_ENABLE) {
            qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: unknown GAMMA_CTRL "
                          "bits 0x%x ignored\n",
                          val & ~(uint32_t)WDDMSEG_GAMMA_CTRL_ENABLE);
        }
        p->gamma_ctrl = val & WDDMSEG_GAMMA_CTRL_ENABLE;
        return true;
    case WDDMSEG_REG_GAMMA_INDEX:
        if (val >= WDDMSEG_GAMMA_SIZE) {
            qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: GAMMA_INDEX %u is past "
                          "the %u entries, taken modulo\n", val,
                          WDDMSEG_GAMMA_SIZE);
        }
        s->gamma_index = val % WDDMSEG_GAMMA_SIZE;
        return true;
    case WDDMSEG_REG_GAMMA_DATA:
        if (val & 0xff000000u) {
            qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: GAMMA_DATA 0x%x: bits "
                          "24..31 ignored\n", val);
        }
        p->gamma[s->gamma_index] = val & 0xffffff;
        s->gamma_index = (s->gamma_index + 1) % WDDMSEG_GAMMA_SIZE;
        return true;
    case WDDMSEG_REG_CRC_CTRL:
        if (val & ~(uint32_t)WDDMSEG_CRC_CTRL_ENABLE) {
            qemu_log_mask(LOG_GUEST_ERROR, "wddmseg: unknown CRC_CTRL "
                          "bits 0x%x ignored\n",
                          val & ~(uint32_t)WDDMSEG_CRC_CTRL_ENABLE);
        }
        val &= WDDMSEG_CRC_CTRL_ENABLE;
        trace_wddmseg_crc_ctrl(val);
        if (val && !s->crc_ctrl) {
            s->crc_value = 0;
            s->crc_frame = 0;
        }
        s->crc_ctrl = val;
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
    s->gamma_index = 0;
    s->crc_ctrl = 0;
    s->crc_value = 0;
    s->crc_frame = 0;
    timer_del(s->vblank_timer);
}

/* ------------------------------------------------------------------------ */
/* Graphic console                                                          */
/* ------------------------------------------------------------------------ */

static bool wddmseg_view_equal(const WddmsegView *a, const WddmsegView *b)
{
    return a->enabled == b->enabled && a->vram_off == b->vram_off &&
           a->width == b->width && a->height == b->height &&
           a->pitch == b->pitch && a->format == b->format &&
           a->composed == b->composed;
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
        if (v->composed) {
            s->shadow = g_malloc0((size_t)v->width * 4 * v->height);
            ds = qemu_create_displaysurface_from(v->width, v->height,
                                                 PIXMAN_x8r8g8b8,
                                                 v->width * 4, s->shadow);
        } else if (v->vram_off % 4 == 0 && v->pitch <= INT_MAX) {
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
        v.width = c->width;
        v.height = c->height;
        v.composed = (c->cur_ctrl & WDDMSEG_CURSOR_CTRL_ENABLE) ||
                     (c->gamma_ctrl & WDDMSEG_GAMMA_CTRL_ENABLE) ||
                     !wddmseg_plane_full(c);
        if (!v.composed) {
            v.vram_off = s->layout.segs[c->segment - 1].base + c->offset;
            v.pitch = c->pitch;
            v.format = c->format;
        }
    } else {
        v.width = s->view_valid ? s->view.width : WDDMSEG_BLANK_WIDTH;
        v.height = s->view_valid ? s->view.height : WDDMSEG_BLANK_HEIGHT;
    }
    if (!s->view_valid || !wddmseg_view_equal(&v, &s->view)) {
        wddmseg_view_apply(s, &v);
    } else if (!v.enabled) {
        return;
    }
    if (v.composed) {
        for (y = 0; y < v.height; y++) {
            uint32_t *dst = (uint32_t *)(s->shadow + (size_t)y * v.width * 4);
            uint32_t x;

            /* The surface is host-endian x8r8g8b8: words, not bytes. */
            wddmseg_compose_line(s, c, y, dst);
            for (x = 0; x < v.width; x++) {
                dst[x] &= 0xffffff;
            }
        }
    } else if (s->shadow) {
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
