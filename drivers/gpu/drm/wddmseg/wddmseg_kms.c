// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg: kernel mode setting for the display controller (device 1.3).
 *
 * One scanout: a CRTC with one primary plane (XRGB8888, ARGB8888 shown as
 * XRGB8888, RGB565, as the device's SCANOUT_FORMATS allows), a cursor
 * plane (ARGB8888, premultiplied, when SCANOUT_FEATURES has CURSOR), a
 * 256-entry GAMMA_LUT (FEAT_GAMMA), CRTC CRCs of the composed frame
 * computed by the device (FEAT_CRC, debugfs crtc-0/crc), a virtual
 * encoder and an always
 * connected virtual connector offering the standard modes up to the
 * device's limits. Framebuffers are GEM framebuffers of wddmseg
 * allocations; the scanout reads them where they are, so prepare_fb
 * migrates an allocation into a memory segment whose flags have
 * DirectFlip (WDDM's rule for a primary that is flipped to directly) and
 * pins it there, and atomic_check refuses what could never be placed
 * there or that the device would refuse.
 *
 * The device double-buffers its scanout registers: the driver writes the
 * pending copy, then SCANOUT_COMMIT, and the device latches it at the next
 * vertical blank (at once while disabled). The flip event of a commit is
 * held until a vblank interrupt finds STATUS.PENDING clear, so each event
 * reports the vblank at which the new frame became visible.
 *
 * A device without a display (version below 1.3, zero limits, no known
 * format, no DirectFlip memory segment, or no interrupt because the copy
 * engine did not start) gets an empty mode configuration: the driver still
 * advertises DRIVER_MODESET, but there is no CRTC, plane or connector, as
 * for a headless variant of a GPU.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/iopoll.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/pm_runtime.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_damage_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_edid.h>
#include <drm/drm_fb_helper.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_modeset_lock.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_vblank.h>

#include "wddmseg_bo.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_kms.h"
#include "wddmseg_mgr.h"
#include "wddmseg_params.h"
#include "wddmseg_pm.h"
#include "wddmseg_hw.h"

#define WDDMSEG_KMS_IRQS	(WDDMSEG_IRQ_VBLANK | WDDMSEG_IRQ_SCANOUT_ERROR)

/* Largest framebuffer, each way (ADDFB2); modes stay within the scanout's. */
#define WDDMSEG_KMS_FB_MAX	8192
#define WDDMSEG_PREFERRED_W	1024
#define WDDMSEG_PREFERRED_H	768
/* A disabling commit latches at the next vblank: at most 1 s at 1 Hz. */
#define WDDMSEG_LATCH_TIMEOUT_US	2000000

/* Allocation flags whose content the scanout cannot read linearly. */
#define WDDMSEG_NO_SCANOUT_FLAGS	(WDDMSEG_ALLOC_EXISTING_SYSMEM | \
					 WDDMSEG_ALLOC_EXISTING_KERNEL_SYSMEM | \
					 WDDMSEG_ALLOC_SWIZZLED | \
					 WDDMSEG_ALLOC_CACHED | \
					 WDDMSEG_ALLOC_PERMANENT_SYSMEM)

/* Every refusal names its rule (Documentation/gpu/wddmseg.rst, KMS). */
#define kms_refuse(drm, rule, fmt, ...) \
	drm_dbg_kms(drm, "scanout: rule %s: " fmt "\n", rule, ##__VA_ARGS__)

static const u32 wddmseg_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_RGB565,
};

static const u32 wddmseg_cursor_formats[] = {
	DRM_FORMAT_ARGB8888,
};

/* The one CRC source: the frame as the device emits it. */
static const char *const wddmseg_crc_sources[] = {
	"auto",
};

/* The scanout format that shows @fourcc: the primary ignores alpha. */
static u32 wddmseg_format_bit(u32 fourcc)
{
	switch (fourcc) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
		return WDDMSEG_SCANOUT_FMT_XRGB8888;
	case DRM_FORMAT_RGB565:
		return WDDMSEG_SCANOUT_FMT_RGB565;
	default:
		return 0;
	}
}

static const char *wddmseg_scanout_error_name(u32 code)
{
	static const char * const names[] = {
		[WDDMSEG_SCANOUT_ERR_NONE] = "none",
		[WDDMSEG_SCANOUT_ERR_SEGMENT] = "SEGMENT",
		[WDDMSEG_SCANOUT_ERR_NOT_DIRECT_FLIP] = "NOT_DIRECT_FLIP",
		[WDDMSEG_SCANOUT_ERR_FORMAT] = "FORMAT",
		[WDDMSEG_SCANOUT_ERR_SIZE] = "SIZE",
		[WDDMSEG_SCANOUT_ERR_PITCH] = "PITCH",
		[WDDMSEG_SCANOUT_ERR_RANGE] = "RANGE",
		[WDDMSEG_SCANOUT_ERR_REFRESH] = "REFRESH",
	};

	return code < ARRAY_SIZE(names) ? names[code] : "unknown";
}

static struct wddmseg_device *crtc_to_wddmseg(struct drm_crtc *crtc)
{
	return container_of(crtc, struct wddmseg_device, kms.crtc);
}

/**
 * wddmseg_kms_refresh_mhz - refresh rate of a mode for REFRESH_MHZ
 * @mode: display mode
 *
 * Return: the rate in millihertz, exact from the pixel clock and the
 * totals (rounded to the nearest), or 0 for a mode without totals.
 */
u64 wddmseg_kms_refresh_mhz(const struct drm_display_mode *mode)
{
	u64 den = (u64)mode->htotal * mode->vtotal;

	if (!den)
		return 0;
	return DIV64_U64_ROUND_CLOSEST((u64)mode->clock * 1000000, den);
}

/**
 * wddmseg_kms_mode_rule - the rule a mode breaks for the scanout
 * @max_width: SCANOUT_MAX_WIDTH
 * @max_height: SCANOUT_MAX_HEIGHT
 * @mode: display mode
 *
 * Return: NULL if the scanout can show @mode, else the name of the rule
 * (Documentation/gpu/wddmseg.rst, KMS): mode-size, mode-flags or
 * mode-refresh.
 */
const char *wddmseg_kms_mode_rule(u32 max_width, u32 max_height,
				  const struct drm_display_mode *mode)
{
	u64 mhz = wddmseg_kms_refresh_mhz(mode);

	if (!mode->hdisplay || !mode->vdisplay ||
	    mode->hdisplay > max_width || mode->vdisplay > max_height)
		return "mode-size";
	if (mode->flags & (DRM_MODE_FLAG_INTERLACE | DRM_MODE_FLAG_DBLSCAN))
		return "mode-flags";
	if (mhz < WDDMSEG_SCANOUT_REFRESH_MIN || mhz > WDDMSEG_SCANOUT_REFRESH_MAX)
		return "mode-refresh";
	return NULL;
}

static int wddmseg_mode_check(struct wddmseg_device *wdev,
			      const struct drm_display_mode *mode)
{
	struct wddmseg_kms *kms = &wdev->kms;
	const char *rule;

	rule = wddmseg_kms_mode_rule(kms->max_width, kms->max_height, mode);
	if (!rule)
		return 0;
	kms_refuse(&wdev->drm, rule,
		   "mode %ux%u, flags 0x%x, %llu mHz; the scanout takes 1x1..%ux%u, progressive, %u..%u mHz",
		   mode->hdisplay, mode->vdisplay, mode->flags,
		   wddmseg_kms_refresh_mhz(mode), kms->max_width,
		   kms->max_height, WDDMSEG_SCANOUT_REFRESH_MIN,
		   WDDMSEG_SCANOUT_REFRESH_MAX);
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Primary plane */

static int wddmseg_plane_check_fb(struct wddmseg_device *wdev,
				  struct drm_framebuffer *fb)
{
	struct drm_device *drm = &wdev->drm;
	struct wddmseg_bo *bo = gem_to_wddmseg_bo(fb->obj[0]);
	u64 max_seg = 0;
	u32 mask, id;

	if (!(wddmseg_format_bit(fb->format->format) & wdev->kms.formats)) {
		kms_refuse(drm, "fb-format", "format %p4cc cannot be scanned out",
			   &fb->format->format);
		return -EINVAL;
	}
	if (fb->pitches[0] % 4) {
		kms_refuse(drm, "pitch-alignment",
			   "pitch %u is not a multiple of 4", fb->pitches[0]);
		return -EINVAL;
	}
	/*
	 * ADDFB2 already checked pitch >= width * cpp and that the layout
	 * fits the allocation, which lies inside its segment (ERR_RANGE).
	 */
	if (bo->flags & WDDMSEG_NO_SCANOUT_FLAGS) {
		kms_refuse(drm, "allocation-flags",
			   "allocation flags 0x%x (ExistingSysMem, ExistingKernelSysMem, Swizzled, Cached or PermanentSysMem) forbid scanout",
			   bo->flags);
		return -EINVAL;
	}
	if (wddmseg_bo_protected(bo)) {
		kms_refuse(drm, "protected-scanout",
			   "allocation flags 0x%x: WDDM forbids Protected on the primary surface, and the scanout is readable",
			   bo->flags);
		return -EINVAL;
	}
	mask = wddmseg_bo_direct_flip_segments(bo);
	if (!mask) {
		kms_refuse(drm, "direct-flip-segment",
			   "supported segments 0x%x include no memory segment with DirectFlip",
			   bo->supported);
		return -EINVAL;
	}
	for (id = 1; id <= wdev->desc.segment_count; id++)
		if (mask & WDDMSEG_SEGMENT_BIT(id))
			max_seg = max(max_seg, wdev->desc.seg[id - 1].size);
	if (bo->tbo.base.size > max_seg) {
		kms_refuse(drm, "direct-flip-size",
			   "%zu-byte allocation is larger than its DirectFlip segments",
			   bo->tbo.base.size);
		return -EINVAL;
	}
	return 0;
}

/*
 * What the primary and the cursor plane both need: a framebuffer the
 * device scans out, and a source of whole pixels the size of the
 * destination (no scaling). @what prefixes the refusal's message.
 */
static int wddmseg_plane_check_source(struct wddmseg_device *wdev,
				      const struct drm_plane_state *ps,
				      const char *what)
{
	int ret = wddmseg_plane_check_fb(wdev, ps->fb);

	if (ret)
		return ret;
	if ((ps->src_x | ps->src_y | ps->src_w | ps->src_h) & 0xffff ||
	    ps->src_w >> 16 != ps->crtc_w || ps->src_h >> 16 != ps->crtc_h) {
		kms_refuse(&wdev->drm, "plane-scaling",
			   "%ssource %ux%u must be whole pixels and equal the destination %ux%u",
			   what, ps->src_w >> 16, ps->src_h >> 16, ps->crtc_w,
			   ps->crtc_h);
		return -EINVAL;
	}
	return 0;
}

static int wddmseg_plane_atomic_check(struct drm_plane *plane,
				      struct wddmseg_atomic_state *state)
{
	struct wddmseg_device *wdev = to_wddmseg(plane->dev);
	struct drm_plane_state *ps = drm_atomic_get_new_plane_state(state, plane);
	struct drm_crtc_state *cs;
	int ret;

	if (!ps->fb || !ps->crtc)
		return 0;
	cs = drm_atomic_get_new_crtc_state(state, ps->crtc);
	if (!cs)
		return -EINVAL;

	ret = wddmseg_plane_check_source(wdev, ps, "");
	if (ret)
		return ret;
	if (cs->enable &&
	    (ps->crtc_x || ps->crtc_y || ps->crtc_w != cs->mode.hdisplay ||
	     ps->crtc_h != cs->mode.vdisplay)) {
		kms_refuse(&wdev->drm, "plane-position",
			   "the plane (%d,%d %ux%u) must cover the whole %ux%u mode",
			   ps->crtc_x, ps->crtc_y, ps->crtc_w, ps->crtc_h,
			   cs->mode.hdisplay, cs->mode.vdisplay);
		return -EINVAL;
	}

	/*
	 * Panning (src x/y) goes through SCANOUT_OFFSET. A plane may stay
	 * attached to a CRTC being disabled (generic clients' cleanup
	 * commits): it is then simply not visible.
	 */
	return drm_atomic_helper_check_plane_state(ps, cs,
						   DRM_PLANE_NO_SCALING,
						   DRM_PLANE_NO_SCALING,
						   false, true);
}

/*
 * The cursor: an ARGB8888 image (the plane's only format) of at most
 * CURSOR_MAX, anywhere on or partly off the mode (clipped here, so the
 * device gets the visible part), never scaled, read where it is pinned
 * like the primary's.
 */
static int wddmseg_cursor_atomic_check(struct drm_plane *plane,
				       struct wddmseg_atomic_state *state)
{
	struct wddmseg_device *wdev = to_wddmseg(plane->dev);
	struct drm_plane_state *ps = drm_atomic_get_new_plane_state(state, plane);
	struct wddmseg_kms *kms = &wdev->kms;
	struct drm_crtc_state *cs;
	int ret;

	if (!ps->fb || !ps->crtc)
		return 0;
	cs = drm_atomic_get_new_crtc_state(state, ps->crtc);
	if (!cs)
		return -EINVAL;

	ret = wddmseg_plane_check_source(wdev, ps, "cursor ");
	if (ret)
		return ret;
	if (ps->crtc_w > kms->cursor_w || ps->crtc_h > kms->cursor_h) {
		kms_refuse(&wdev->drm, "cursor-size",
			   "cursor %ux%u is larger than the device's %ux%u",
			   ps->crtc_w, ps->crtc_h, kms->cursor_w, kms->cursor_h);
		return -EINVAL;
	}
	return drm_atomic_helper_check_plane_state(ps, cs,
						   DRM_PLANE_NO_SCALING,
						   DRM_PLANE_NO_SCALING,
						   true, true);
}

static int wddmseg_plane_prepare_fb(struct drm_plane *plane,
				    struct drm_plane_state *ps)
{
	struct wddmseg_bo *bo;
	int ret;

	if (!ps->fb)
		return 0;
	bo = gem_to_wddmseg_bo(ps->fb->obj[0]);
	ret = wddmseg_bo_pin_scanout(bo);
	if (ret)
		return ret;
	/* Waits for the migration too: it is a kernel fence of the BO. */
	ret = drm_gem_plane_helper_prepare_fb(plane, ps);
	if (ret)
		wddmseg_bo_unpin_scanout(bo);
	return ret;
}

static void wddmseg_plane_cleanup_fb(struct drm_plane *plane,
				     struct drm_plane_state *ps)
{
	if (ps->fb)
		wddmseg_bo_unpin_scanout(gem_to_wddmseg_bo(ps->fb->obj[0]));
}

/* The CRTC's atomic_flush programs the scanout, plane and all at once. */
static void wddmseg_plane_atomic_update(struct drm_plane *plane,
					struct wddmseg_atomic_state *state)
{
}

static const struct drm_plane_helper_funcs wddmseg_plane_helper_funcs = {
	.prepare_fb = wddmseg_plane_prepare_fb,
	.cleanup_fb = wddmseg_plane_cleanup_fb,
	.atomic_check = wddmseg_plane_atomic_check,
	.atomic_update = wddmseg_plane_atomic_update,
};

static const struct drm_plane_helper_funcs wddmseg_cursor_helper_funcs = {
	.prepare_fb = wddmseg_plane_prepare_fb,
	.cleanup_fb = wddmseg_plane_cleanup_fb,
	.atomic_check = wddmseg_cursor_atomic_check,
	.atomic_update = wddmseg_plane_atomic_update,
};

static const struct drm_plane_funcs wddmseg_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.destroy = drm_plane_cleanup,
	.reset = drm_atomic_helper_plane_reset,
	.atomic_duplicate_state = drm_atomic_helper_plane_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_plane_destroy_state,
};

/* ------------------------------------------------------------------ */
/* CRTC */

static enum drm_mode_status
wddmseg_crtc_mode_valid(struct drm_crtc *crtc,
			const struct drm_display_mode *mode)
{
	return wddmseg_mode_check(crtc_to_wddmseg(crtc), mode) ?
	       MODE_BAD : MODE_OK;
}

static int wddmseg_crtc_atomic_check(struct drm_crtc *crtc,
				     struct wddmseg_atomic_state *state)
{
	struct drm_crtc_state *cs = drm_atomic_get_new_crtc_state(state, crtc);
	struct wddmseg_device *wdev = crtc_to_wddmseg(crtc);
	int ret;

	if (cs->gamma_lut &&
	    drm_color_lut_size(cs->gamma_lut) != WDDMSEG_GAMMA_SIZE) {
		kms_refuse(&wdev->drm, "gamma-size",
			   "GAMMA_LUT of %u entries; the device's LUT has %u",
			   drm_color_lut_size(cs->gamma_lut), WDDMSEG_GAMMA_SIZE);
		return -EINVAL;
	}
	if (!cs->enable)
		return 0;
	ret = wddmseg_mode_check(wdev, &cs->mode);
	if (ret)
		return ret;
	if (cs->active && !(cs->plane_mask & drm_plane_mask(crtc->primary))) {
		kms_refuse(&wdev->drm, "primary-plane",
			   "an active scanout needs a framebuffer on the primary plane");
		return -EINVAL;
	}
	return 0;
}

/* Send @event now (nothing to wait for). */
static void wddmseg_crtc_send_event(struct drm_crtc *crtc,
				    struct drm_pending_vblank_event *event)
{
	unsigned long flags;

	spin_lock_irqsave(&crtc->dev->event_lock, flags);
	drm_crtc_send_vblank_event(crtc, event);
	spin_unlock_irqrestore(&crtc->dev->event_lock, flags);
}

/*
 * Runtime PM: an enabled CRTC holds the device in D0 (it scans out of
 * VRAM). The commit that enables it holds a reference already (see
 * wddmseg_atomic_commit()), so the device is active here.
 */
static void wddmseg_crtc_atomic_enable(struct drm_crtc *crtc,
				       struct wddmseg_atomic_state *state)
{
	pm_runtime_get_noresume(crtc->dev->dev);
	/* The configuration goes out in atomic_flush, right after. */
	drm_crtc_vblank_on(crtc);
}

static void wddmseg_crtc_atomic_disable(struct drm_crtc *crtc,
					struct wddmseg_atomic_state *state)
{
	struct wddmseg_device *wdev = crtc_to_wddmseg(crtc);
	void __iomem *mmio = wdev->mmio;
	unsigned long flags;
	u32 status;

	if (READ_ONCE(wdev->kms.gone))
		goto off;
	spin_lock_irqsave(&wdev->kms.lock, flags);
	writel(0, mmio + WDDMSEG_REG_SCANOUT_CTRL);
	writel(1, mmio + WDDMSEG_REG_SCANOUT_COMMIT);
	spin_unlock_irqrestore(&wdev->kms.lock, flags);

	/* The old framebuffer may be unpinned only once the device let go. */
	if (readl_poll_timeout(mmio + WDDMSEG_REG_SCANOUT_STATUS, status,
			       !(status & WDDMSEG_SCANOUT_STATUS_PENDING),
			       1000, WDDMSEG_LATCH_TIMEOUT_US))
		drm_err(&wdev->drm, "scanout: the device did not latch the disable (status 0x%x)\n",
			status);
off:
	drm_crtc_vblank_off(crtc);

	if (crtc->state->event && !crtc->state->active) {
		wddmseg_crtc_send_event(crtc, crtc->state->event);
		crtc->state->event = NULL;
	}
	wddmseg_pm_put(wdev);
}

/* The cursor registers from the cursor plane's state (pinned, clipped). */
static void wddmseg_cursor_program(struct wddmseg_device *wdev,
				   struct drm_plane_state *ps)
{
	void __iomem *mmio = wdev->mmio;
	struct drm_framebuffer *fb = ps ? ps->fb : NULL;
	struct ttm_resource *res;
	u64 offset;

	if (!fb || !ps->visible) {
		writel(0, mmio + WDDMSEG_REG_CURSOR_CTRL);
		return;
	}
	res = gem_to_wddmseg_bo(fb->obj[0])->tbo.resource;
	offset = ((u64)res->start << PAGE_SHIFT) + fb->offsets[0] +
		 (u64)(ps->src.y1 >> 16) * fb->pitches[0] +
		 (u64)(ps->src.x1 >> 16) * fb->format->cpp[0];
	writel(wddmseg_mem_type_segment(wdev, res->mem_type),
	       mmio + WDDMSEG_REG_CURSOR_SEGMENT);
	writel(lower_32_bits(offset), mmio + WDDMSEG_REG_CURSOR_OFFSET_LO);
	writel(upper_32_bits(offset), mmio + WDDMSEG_REG_CURSOR_OFFSET_HI);
	writel(WDDMSEG_CURSOR_SIZE(drm_rect_width(&ps->dst),
				   drm_rect_height(&ps->dst)),
	       mmio + WDDMSEG_REG_CURSOR_SIZE);
	writel(fb->pitches[0], mmio + WDDMSEG_REG_CURSOR_PITCH);
	writel((u32)ps->dst.x1, mmio + WDDMSEG_REG_CURSOR_X);
	writel((u32)ps->dst.y1, mmio + WDDMSEG_REG_CURSOR_Y);
	writel(WDDMSEG_CURSOR_CTRL_ENABLE, mmio + WDDMSEG_REG_CURSOR_CTRL);
}

/*
 * A 16-bit LUT value in the device's 8 bits, v * 255 / 65535 rounded
 * (0x0101 * i is i): the OpenGL rule, which drm_color_lut_extract()
 * follows only since 6.3; 6.1's shifts and rounds, taking 0x8080 to 0x81.
 */
static u32 wddmseg_lut_8bit(u16 v)
{
	return DIV_ROUND_CLOSEST((u32)v * 255, 65535);
}

/*
 * The pending LUT, when the GAMMA_LUT blob changed or after a modeset
 * (the device forgets it on reset). No blob is the identity: the LUT is
 * bypassed.
 */
static void wddmseg_gamma_program(struct wddmseg_device *wdev,
				  struct drm_crtc_state *cs)
{
	void __iomem *mmio = wdev->mmio;
	const struct drm_color_lut *lut;
	unsigned int i;

	if (!(wdev->kms.features & WDDMSEG_SCANOUT_FEAT_GAMMA) ||
	    (!cs->color_mgmt_changed && !drm_atomic_crtc_needs_modeset(cs)))
		return;
	if (!cs->gamma_lut) {
		writel(0, mmio + WDDMSEG_REG_GAMMA_CTRL);
		return;
	}
	lut = cs->gamma_lut->data;
	writel(0, mmio + WDDMSEG_REG_GAMMA_INDEX);
	for (i = 0; i < WDDMSEG_GAMMA_SIZE; i++)
		writel(wddmseg_lut_8bit(lut[i].red) << 16 |
		       wddmseg_lut_8bit(lut[i].green) << 8 |
		       wddmseg_lut_8bit(lut[i].blue),
		       mmio + WDDMSEG_REG_GAMMA_DATA);
	writel(WDDMSEG_GAMMA_CTRL_ENABLE, mmio + WDDMSEG_REG_GAMMA_CTRL);
}

static void wddmseg_crtc_atomic_flush(struct drm_crtc *crtc,
				      struct wddmseg_atomic_state *state)
{
	struct wddmseg_device *wdev = crtc_to_wddmseg(crtc);
	struct wddmseg_kms *kms = &wdev->kms;
	struct drm_plane_state *ps = crtc->primary->state;
	struct drm_pending_vblank_event *event = crtc->state->event;
	struct drm_pending_vblank_event *stale = NULL;
	const struct drm_display_mode *mode = &crtc->state->adjusted_mode;
	void __iomem *mmio = wdev->mmio;
	struct drm_framebuffer *fb = ps->fb;
	struct ttm_resource *res;
	unsigned long flags;
	u64 offset;
	u32 cpp;

	crtc->state->event = NULL;
	if (WARN_ON(!fb) || READ_ONCE(kms->gone)) {
		if (event)
			wddmseg_crtc_send_event(crtc, event);
		return;
	}

	/* Pinned by prepare_fb: the resource cannot change under us. */
	res = gem_to_wddmseg_bo(fb->obj[0])->tbo.resource;
	cpp = fb->format->cpp[0];
	offset = ((u64)res->start << PAGE_SHIFT) + fb->offsets[0] +
		 (u64)(ps->src.y1 >> 16) * fb->pitches[0] +
		 (u64)(ps->src.x1 >> 16) * cpp;

	writel(wddmseg_mem_type_segment(wdev, res->mem_type),
	       mmio + WDDMSEG_REG_SCANOUT_SEGMENT);
	writel(lower_32_bits(offset), mmio + WDDMSEG_REG_SCANOUT_OFFSET_LO);
	writel(upper_32_bits(offset), mmio + WDDMSEG_REG_SCANOUT_OFFSET_HI);
	writel(mode->hdisplay, mmio + WDDMSEG_REG_SCANOUT_WIDTH);
	writel(mode->vdisplay, mmio + WDDMSEG_REG_SCANOUT_HEIGHT);
	writel(fb->pitches[0], mmio + WDDMSEG_REG_SCANOUT_PITCH);
	writel(wddmseg_format_bit(fb->format->format),
	       mmio + WDDMSEG_REG_SCANOUT_FORMAT);
	writel(wddmseg_kms_refresh_mhz(mode),
	       mmio + WDDMSEG_REG_SCANOUT_REFRESH_MHZ);
	if (crtc->cursor)
		wddmseg_cursor_program(wdev, crtc->cursor->state);
	wddmseg_gamma_program(wdev, crtc->state);
	writel(WDDMSEG_SCANOUT_CTRL_ENABLE, mmio + WDDMSEG_REG_SCANOUT_CTRL);

	/* The vblank reference keeps IRQ_VBLANK on until the event is sent. */
	if (event && drm_crtc_vblank_get(crtc)) {
		drm_dbg_kms(&wdev->drm, "scanout: no vblank interrupt, event sent at once\n");
		wddmseg_crtc_send_event(crtc, event);
		event = NULL;
	}

	/*
	 * Commit and hand the event to the interrupt handler atomically: a
	 * vblank handled in between would see PENDING clear from the
	 * previous commit and send the event a frame early.
	 */
	spin_lock_irqsave(&kms->lock, flags);
	writel(1, mmio + WDDMSEG_REG_SCANOUT_COMMIT);
	if (event) {
		stale = kms->event;
		kms->event = event;
	}
	spin_unlock_irqrestore(&kms->lock, flags);

	/* Cannot happen: the helpers wait for the previous flip_done. */
	if (stale) {
		drm_dbg_kms(&wdev->drm, "scanout: previous flip event still pending\n");
		wddmseg_crtc_send_event(crtc, stale);
		drm_crtc_vblank_put(crtc);
	}
}

static int wddmseg_enable_vblank(struct drm_crtc *crtc)
{
	if (READ_ONCE(crtc_to_wddmseg(crtc)->kms.gone))
		return -ENODEV;
	wddmseg_irq_mask_update(crtc_to_wddmseg(crtc), 0, WDDMSEG_IRQ_VBLANK);
	return 0;
}

static void wddmseg_disable_vblank(struct drm_crtc *crtc)
{
	if (READ_ONCE(crtc_to_wddmseg(crtc)->kms.gone))
		return;
	wddmseg_irq_mask_update(crtc_to_wddmseg(crtc), WDDMSEG_IRQ_VBLANK, 0);
}

static u32 wddmseg_get_vblank_counter(struct drm_crtc *crtc)
{
	return readl(crtc_to_wddmseg(crtc)->mmio + WDDMSEG_REG_VBLANK_COUNT);
}

/*
 * The time of the vblank VBLANK_COUNT counted last: now minus
 * VBLANK_AGE_NS, which the device reads at the moment of the read, so the
 * interrupt's latency (up to milliseconds under TCG) does not enter the
 * timestamp; the error is half the time the read took. The core reads
 * the counter and this around each other until they agree.
 */
static bool wddmseg_get_vblank_timestamp(struct drm_crtc *crtc, int *max_error,
					 ktime_t *vblank_time,
					 bool in_vblank_irq)
{
	struct wddmseg_device *wdev = to_wddmseg(crtc->dev);
	ktime_t t0, t1;
	u32 age;

	if (wdev->kms.gone)
		return false;
	t0 = ktime_get();
	age = readl(wdev->mmio + WDDMSEG_REG_VBLANK_AGE_NS);
	t1 = ktime_get();
	if (age == WDDMSEG_VBLANK_AGE_NONE)
		return false;	/* no timing: the core's estimate */
	*max_error = ktime_to_ns(ktime_sub(t1, t0)) / 2;
	*vblank_time = ktime_sub_ns(ktime_add_ns(t0, *max_error), age);
	return true;
}

/*
 * CRTC CRCs (debugfs crtc-0/crc): the device computes a CRC-32C of every
 * frame it starts to show, after the cursor and the gamma LUT, and latches
 * it with the vblank's VBLANK_COUNT; the vblank handler reports each new
 * one. A vblank reference keeps the interrupt on while CRCs are wanted.
 */
static int wddmseg_crc_parse(struct wddmseg_device *wdev, const char *source,
			     bool *on)
{
	if (!source) {
		*on = false;
		return 0;
	}
	if (!(wdev->kms.features & WDDMSEG_SCANOUT_FEAT_CRC)) {
		kms_refuse(&wdev->drm, "crc-source",
			   "CRC source \"%s\": the device computes no CRC",
			   source);
		return -EINVAL;
	}
	if (strcmp(source, wddmseg_crc_sources[0])) {
		kms_refuse(&wdev->drm, "crc-source",
			   "CRC source \"%s\": the device has only \"%s\", the composed frame",
			   source, wddmseg_crc_sources[0]);
		return -EINVAL;
	}
	*on = true;
	return 0;
}

static int wddmseg_verify_crc_source(struct drm_crtc *crtc,
				     const char *source, size_t *values_cnt)
{
	bool on;
	int ret;

	ret = wddmseg_crc_parse(crtc_to_wddmseg(crtc), source, &on);
	if (ret)
		return ret;
	*values_cnt = 1;
	return 0;
}

static const char *const *
wddmseg_get_crc_sources(struct drm_crtc *crtc, size_t *count)
{
	if (!(crtc_to_wddmseg(crtc)->kms.features & WDDMSEG_SCANOUT_FEAT_CRC)) {
		*count = 0;
		return NULL;
	}
	*count = ARRAY_SIZE(wddmseg_crc_sources);
	return wddmseg_crc_sources;
}

static int wddmseg_set_crc_source(struct drm_crtc *crtc, const char *source)
{
	struct wddmseg_device *wdev = crtc_to_wddmseg(crtc);
	struct wddmseg_kms *kms = &wdev->kms;
	unsigned long flags;
	bool on, was;
	int ret;

	ret = wddmseg_crc_parse(wdev, source, &on);
	if (ret)
		return ret;
	if (READ_ONCE(kms->gone) && on)
		return -ENODEV;
	if (on) {
		ret = drm_crtc_vblank_get(crtc);
		if (ret) {
			kms_refuse(&wdev->drm, "crc-active",
				   "CRCs need an active scanout (vblank: %d)",
				   ret);
			return ret;
		}
	}
	spin_lock_irqsave(&kms->lock, flags);
	was = kms->crc_on;
	kms->crc_on = on;
	kms->crc_frame = 0;
	if (!READ_ONCE(kms->gone))
		writel(on ? WDDMSEG_CRC_CTRL_ENABLE : 0,
		       wdev->mmio + WDDMSEG_REG_CRC_CTRL);
	spin_unlock_irqrestore(&kms->lock, flags);
	if (was)
		drm_crtc_vblank_put(crtc);
	return 0;
}

/*
 * The device's latest CRC if it is new; CRC_FRAME is read on both sides
 * of CRC_VALUE so that a vblank in between cannot pair them wrongly.
 * Called with kms->lock held.
 */
static bool wddmseg_crc_read(struct wddmseg_device *wdev, u32 *crc)
{
	void __iomem *mmio = wdev->mmio;
	unsigned int tries;
	u32 frame, again;

	for (tries = 0; tries < 3; tries++) {
		frame = readl(mmio + WDDMSEG_REG_CRC_FRAME);
		*crc = readl(mmio + WDDMSEG_REG_CRC_VALUE);
		again = readl(mmio + WDDMSEG_REG_CRC_FRAME);
		if (frame == again)
			break;
	}
	if (frame != again || !frame || frame == wdev->kms.crc_frame)
		return false;
	wdev->kms.crc_frame = frame;
	return true;
}

#ifdef CONFIG_DEBUG_FS
/*
 * debugfs crtc-0/wddmseg_inject_refusal: writing 1 while the scanout is
 * off commits a configuration the device refuses (FORMAT 0, ERR_FORMAT),
 * so that tests can see a device refusal reach the log. The driver never
 * sends one otherwise. The pending copy keeps ENABLE set, which is
 * harmless: every commit rewrites CTRL.
 */
static ssize_t wddmseg_inject_refusal_write(struct file *file,
					    const char __user *ubuf,
					    size_t len, loff_t *pos)
{
	struct wddmseg_device *wdev = file->private_data;
	struct drm_crtc *crtc = &wdev->kms.crtc;
	void __iomem *mmio = wdev->mmio;
	unsigned long flags;
	u32 val, id;
	int ret;

	ret = kstrtou32_from_user(ubuf, len, 0, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;
	/* a valid DirectFlip segment: the device checks FORMAT after it */
	for (id = 1; id <= wdev->desc.segment_count; id++)
		if ((wdev->desc.seg[id - 1].flags & DXGK_SEGFLAG_DIRECT_FLIP) &&
		    !wddmseg_segment_is_aperture(&wdev->desc.seg[id - 1]))
			break;

	/* Registers: the device in D0 (runtime PM). */
	ret = wddmseg_pm_get(wdev);
	if (ret)
		return ret;
	ret = drm_modeset_lock_single_interruptible(&crtc->mutex);
	if (ret) {
		wddmseg_pm_put(wdev);
		return ret;
	}
	spin_lock_irqsave(&wdev->kms.lock, flags);
	if (crtc->state->active ||
	    readl(mmio + WDDMSEG_REG_SCANOUT_STATUS) &
	    (WDDMSEG_SCANOUT_STATUS_ENABLED | WDDMSEG_SCANOUT_STATUS_PENDING)) {
		ret = -EBUSY;
	} else {
		writel(id, mmio + WDDMSEG_REG_SCANOUT_SEGMENT);
		writel(0, mmio + WDDMSEG_REG_SCANOUT_OFFSET_LO);
		writel(0, mmio + WDDMSEG_REG_SCANOUT_OFFSET_HI);
		writel(64, mmio + WDDMSEG_REG_SCANOUT_WIDTH);
		writel(64, mmio + WDDMSEG_REG_SCANOUT_HEIGHT);
		writel(256, mmio + WDDMSEG_REG_SCANOUT_PITCH);
		writel(0, mmio + WDDMSEG_REG_SCANOUT_FORMAT);
		writel(60000, mmio + WDDMSEG_REG_SCANOUT_REFRESH_MHZ);
		writel(WDDMSEG_SCANOUT_CTRL_ENABLE, mmio + WDDMSEG_REG_SCANOUT_CTRL);
		writel(1, mmio + WDDMSEG_REG_SCANOUT_COMMIT);
	}
	spin_unlock_irqrestore(&wdev->kms.lock, flags);
	drm_modeset_unlock(&crtc->mutex);
	wddmseg_pm_put(wdev);
	return ret ? ret : len;
}

static const struct file_operations wddmseg_inject_refusal_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = wddmseg_inject_refusal_write,
	.llseek = noop_llseek,
};

static int wddmseg_crtc_late_register(struct drm_crtc *crtc)
{
	debugfs_create_file("wddmseg_inject_refusal", 0200, crtc->debugfs_entry,
			    crtc_to_wddmseg(crtc), &wddmseg_inject_refusal_fops);
	return 0;
}
#else
static int wddmseg_crtc_late_register(struct drm_crtc *crtc)
{
	return 0;
}
#endif

static const struct drm_crtc_helper_funcs wddmseg_crtc_helper_funcs = {
	.mode_valid = wddmseg_crtc_mode_valid,
	.atomic_check = wddmseg_crtc_atomic_check,
	.atomic_flush = wddmseg_crtc_atomic_flush,
	.atomic_enable = wddmseg_crtc_atomic_enable,
	.atomic_disable = wddmseg_crtc_atomic_disable,
};

static const struct drm_crtc_funcs wddmseg_crtc_funcs = {
	.reset = drm_atomic_helper_crtc_reset,
	.set_config = drm_atomic_helper_set_config,
	.page_flip = drm_atomic_helper_page_flip,
	.atomic_duplicate_state = drm_atomic_helper_crtc_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_crtc_destroy_state,
	.enable_vblank = wddmseg_enable_vblank,
	.disable_vblank = wddmseg_disable_vblank,
	.get_vblank_counter = wddmseg_get_vblank_counter,
	.get_vblank_timestamp = wddmseg_get_vblank_timestamp,
	.late_register = wddmseg_crtc_late_register,
	.set_crc_source = wddmseg_set_crc_source,
	.verify_crc_source = wddmseg_verify_crc_source,
	.get_crc_sources = wddmseg_get_crc_sources,
};

/**
 * wddmseg_kms_irq - display interrupts, from the device's interrupt handler
 * @wdev: device
 * @status: IRQ_STATUS bits that were set
 */
void wddmseg_kms_irq(struct wddmseg_device *wdev, u32 status)
{
	struct wddmseg_kms *kms = &wdev->kms;
	struct drm_pending_vblank_event *event = NULL;
	unsigned long flags;
	bool have_crc = false;
	u32 crc;

	if (!kms->present)
		return;

	if (status & WDDMSEG_IRQ_SCANOUT_ERROR) {
		u32 code = readl(wdev->mmio + WDDMSEG_REG_SCANOUT_ERROR);

		drm_err(&wdev->drm, "scanout: the device refused a commit: error %u (%s)\n",
			code, wddmseg_scanout_error_name(code));
	}
	if (!(status & WDDMSEG_IRQ_VBLANK))
		return;

	drm_crtc_handle_vblank(&kms->crtc);

	spin_lock_irqsave(&kms->lock, flags);
	if (kms->event && !(readl(wdev->mmio + WDDMSEG_REG_SCANOUT_STATUS) &
			    WDDMSEG_SCANOUT_STATUS_PENDING)) {
		event = kms->event;
		kms->event = NULL;
	}
	if (kms->crc_on)
		have_crc = wddmseg_crc_read(wdev, &crc);
	spin_unlock_irqrestore(&kms->lock, flags);

	if (have_crc)
		drm_crtc_add_crc_entry(&kms->crtc, true,
				       drm_crtc_vblank_count(&kms->crtc), &crc);

	if (event) {
		wddmseg_crtc_send_event(&kms->crtc, event);
		drm_crtc_vblank_put(&kms->crtc);
	}
}

/* ------------------------------------------------------------------ */
/* Connector and encoder */

static int wddmseg_connector_get_modes(struct drm_connector *connector)
{
	struct wddmseg_device *wdev = to_wddmseg(connector->dev);
	int count;

	count = drm_add_modes_noedid(connector, wdev->kms.max_width,
				     wdev->kms.max_height);
	drm_set_preferred_mode(connector, WDDMSEG_PREFERRED_W,
			       WDDMSEG_PREFERRED_H);
	return count;
}

static const struct drm_connector_helper_funcs wddmseg_connector_helper_funcs = {
	.get_modes = wddmseg_connector_get_modes,
};

static const struct drm_connector_funcs wddmseg_connector_funcs = {
	.reset = drm_atomic_helper_connector_reset,
	.fill_modes = drm_helper_probe_single_connector_modes,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

/* ------------------------------------------------------------------ */
/* Mode configuration */

static struct drm_framebuffer *
wddmseg_fb_create(struct drm_device *drm, struct drm_file *file,
		  WDDMSEG_FB_CREATE_INFO
		  const struct drm_mode_fb_cmd2 *cmd)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);

	/* The core does not check that some plane takes the format. */
	if (!(wddmseg_format_bit(cmd->pixel_format) & wdev->kms.formats)) {
		kms_refuse(drm, "fb-format", "format %p4cc cannot be scanned out",
			   &cmd->pixel_format);
		return ERR_PTR(-EINVAL);
	}
	if (cmd->modifier[0] != DRM_FORMAT_MOD_LINEAR &&
	    (cmd->flags & DRM_MODE_FB_MODIFIERS)) {
		kms_refuse(drm, "fb-modifier", "only linear framebuffers");
		return ERR_PTR(-EINVAL);
	}
	return wddmseg_gem_fb_create(drm, file, cmd);
}

/*
 * Like drm_atomic_helper_commit_tail_rpm(), the scanout is programmed only
 * while enabled, but waiting for the flip events instead of one vblank:
 * an event is sent when the device has latched the commit, after which the
 * previous framebuffers may be unpinned. A legacy cursor update has no
 * event (its flip_done is complete at once): it waits for the latch
 * itself, or the old cursor buffer would be unpinned, and its VRAM reused,
 * while the device still shows it.
 */
static void wddmseg_commit_tail(struct wddmseg_atomic_state *old)
{
	struct drm_device *drm = old->dev;
	struct wddmseg_device *wdev = to_wddmseg(drm);
	u32 status;

	drm_atomic_helper_commit_modeset_disables(drm, old);
	drm_atomic_helper_commit_modeset_enables(drm, old);
	drm_atomic_helper_commit_planes(drm, old, DRM_PLANE_COMMIT_ACTIVE_ONLY);
	drm_atomic_helper_fake_vblank(old);
	drm_atomic_helper_commit_hw_done(old);
	drm_atomic_helper_wait_for_flip_done(drm, old);
	if (old->legacy_cursor_update && wdev->kms.present &&
	    !READ_ONCE(wdev->kms.gone) &&
	    readl_poll_timeout(wdev->mmio + WDDMSEG_REG_SCANOUT_STATUS, status,
			       !(status & WDDMSEG_SCANOUT_STATUS_PENDING),
			       1000, WDDMSEG_LATCH_TIMEOUT_US))
		drm_err(drm, "scanout: the device did not latch a cursor update (status 0x%x)\n",
			status);
	drm_atomic_helper_cleanup_planes(drm, old);
	/* The reference wddmseg_atomic_commit() took for this commit. */
	wddmseg_pm_put(wdev);
}

/*
 * Runtime PM: a commit (from an ioctl, the fbdev console, a blank or
 * unblank written to sysfs) resumes the device before it pins anything
 * and holds it in D0 until its tail ran, also when that tail runs later
 * in a worker (nonblocking).
 */
static int wddmseg_atomic_commit(struct drm_device *drm,
				 struct wddmseg_atomic_state *state, bool nonblock)
{
	struct wddmseg_device *wdev = to_wddmseg(drm);
	int ret;

	ret = wddmseg_pm_get(wdev);
	if (ret)
		return ret;
	ret = drm_atomic_helper_commit(drm, state, nonblock);
	if (ret)
		wddmseg_pm_put(wdev);
	return ret;
}

static const struct drm_mode_config_helper_funcs wddmseg_mode_config_helpers = {
	.atomic_commit_tail = wddmseg_commit_tail,
};

static const struct drm_mode_config_funcs wddmseg_mode_config_funcs = {
	.fb_create = wddmseg_fb_create,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = wddmseg_atomic_commit,
};

/* Whether the device has a display the driver can use; logs why not. */
static bool wddmseg_kms_probe_display(struct wddmseg_device *wdev)
{
	struct wddmseg_kms *kms = &wdev->kms;
	u32 version = wdev->desc.hw_version;
	u32 id, formats;

	if (WDDMSEG_VERSION_MINOR(version) < 3) {
		drm_info(&wdev->drm, "device %u.%u has no display controller: no KMS outputs\n",
			 WDDMSEG_VERSION_MAJOR(version),
			 WDDMSEG_VERSION_MINOR(version));
		return false;
	}
	kms->max_width = readl(wdev->mmio + WDDMSEG_REG_SCANOUT_MAX_WIDTH);
	kms->max_height = readl(wdev->mmio + WDDMSEG_REG_SCANOUT_MAX_HEIGHT);
	formats = readl(wdev->mmio + WDDMSEG_REG_SCANOUT_FORMATS);
	kms->formats = formats & (WDDMSEG_SCANOUT_FMT_XRGB8888 |
				  WDDMSEG_SCANOUT_FMT_RGB565);
	/* A device without them reads 0 (and logs the unknown register). */
	kms->features = readl(wdev->mmio + WDDMSEG_REG_SCANOUT_FEATURES) &
			(WDDMSEG_SCANOUT_FEAT_CURSOR | WDDMSEG_SCANOUT_FEAT_GAMMA |
			 WDDMSEG_SCANOUT_FEAT_CRC);
	if (kms->features & WDDMSEG_SCANOUT_FEAT_CURSOR) {
		u32 max = readl(wdev->mmio + WDDMSEG_REG_CURSOR_MAX);

		kms->cursor_w = WDDMSEG_CURSOR_SIZE_W(max);
		kms->cursor_h = WDDMSEG_CURSOR_SIZE_H(max);
		if (!kms->cursor_w || !kms->cursor_h)
			kms->features &= ~WDDMSEG_SCANOUT_FEAT_CURSOR;
	}
	if (!kms->max_width || !kms->max_height || !kms->formats) {
		drm_info(&wdev->drm, "display disabled (limits %ux%u, formats 0x%x): no KMS outputs\n",
			 kms->max_width, kms->max_height, formats);
		return false;
	}
	for (id = 1; id <= wdev->desc.segment_count; id++) {
		const struct wddmseg_segment_desc *seg = &wdev->desc.seg[id - 1];

		if ((seg->flags & DXGK_SEGFLAG_DIRECT_FLIP) &&
		    !wddmseg_segment_is_aperture(seg))
			break;
	}
	if (id > wdev->desc.segment_count) {
		drm_info(&wdev->drm, "no memory segment has DirectFlip, nothing can be scanned out: no KMS outputs\n");
		return false;
	}
	if (!wdev->engine.ready) {
		drm_info(&wdev->drm, "no device interrupt (copy engine down), no vblank: no KMS outputs\n");
		return false;
	}
	return true;
}

static int wddmseg_kms_init_pipeline(struct wddmseg_device *wdev)
{
	struct wddmseg_kms *kms = &wdev->kms;
	struct drm_device *drm = &wdev->drm;
	u32 formats[ARRAY_SIZE(wddmseg_formats)];
	unsigned int i, n = 0;
	int ret;

	for (i = 0; i < ARRAY_SIZE(wddmseg_formats); i++)
		if (wddmseg_format_bit(wddmseg_formats[i]) & kms->formats)
			formats[n++] = wddmseg_formats[i];

	ret = drm_universal_plane_init(drm, &kms->primary, 0,
				       &wddmseg_plane_funcs, formats, n, NULL,
				       DRM_PLANE_TYPE_PRIMARY, NULL);
	if (ret)
		return ret;
	drm_plane_helper_add(&kms->primary, &wddmseg_plane_helper_funcs);
	/*
	 * The "pixel blend mode" of the planes with alpha (7.3's DRM core
	 * warns at registration about a plane without it): the
	 * primary plane is alone over a black background, where "None" and
	 * "Pre-multiplied" give the same pixels; the cursor is blended
	 * premultiplied.
	 */
	ret = drm_plane_create_blend_mode_property(&kms->primary,
						   BIT(DRM_MODE_BLEND_PIXEL_NONE) |
						   BIT(DRM_MODE_BLEND_PREMULTI));
	if (ret)
		return ret;

	if (kms->features & WDDMSEG_SCANOUT_FEAT_CURSOR) {
		ret = drm_universal_plane_init(drm, &kms->cursor, 0,
					       &wddmseg_plane_funcs,
					       wddmseg_cursor_formats,
					       ARRAY_SIZE(wddmseg_cursor_formats),
					       NULL, DRM_PLANE_TYPE_CURSOR, NULL);
		if (ret)
			return ret;
		drm_plane_helper_add(&kms->cursor, &wddmseg_cursor_helper_funcs);
		ret = drm_plane_create_blend_mode_property(&kms->cursor,
							   BIT(DRM_MODE_BLEND_PREMULTI));
		if (ret)
			return ret;
		drm->mode_config.cursor_width = kms->cursor_w;
		drm->mode_config.cursor_height = kms->cursor_h;
	}

	ret = drmm_crtc_init_with_planes(drm, &kms->crtc, &kms->primary,
					 kms->features & WDDMSEG_SCANOUT_FEAT_CURSOR ?
					 &kms->cursor : NULL,
					 &wddmseg_crtc_funcs, NULL);
	if (ret)
		return ret;
	drm_crtc_helper_add(&kms->crtc, &wddmseg_crtc_helper_funcs);

	if (kms->features & WDDMSEG_SCANOUT_FEAT_GAMMA) {
		ret = drm_mode_crtc_set_gamma_size(&kms->crtc,
						   WDDMSEG_GAMMA_SIZE);
		if (ret)
			return ret;
		drm_crtc_enable_color_mgmt(&kms->crtc, 0, false,
					   WDDMSEG_GAMMA_SIZE);
	}

	ret = drmm_encoder_init(drm, &kms->encoder, NULL,
				DRM_MODE_ENCODER_VIRTUAL, NULL);
	if (ret)
		return ret;
	kms->encoder.possible_crtcs = drm_crtc_mask(&kms->crtc);

	ret = drmm_connector_init(drm, &kms->connector,
				  &wddmseg_connector_funcs,
				  DRM_MODE_CONNECTOR_VIRTUAL, NULL);
	if (ret)
		return ret;
	drm_connector_helper_add(&kms->connector,
				 &wddmseg_connector_helper_funcs);
	return drm_connector_attach_encoder(&kms->connector, &kms->encoder);
}

/**
 * wddmseg_kms_init - mode configuration and, with a display, the pipeline
 * @wdev: device with TTM and the engine initialized
 *
 * Return: 0 or a negative errno. A device without a usable display is not
 * an error: it gets an empty mode configuration.
 */
int wddmseg_kms_init(struct wddmseg_device *wdev)
{
	struct wddmseg_kms *kms = &wdev->kms;
	struct drm_device *drm = &wdev->drm;
	int ret;

	spin_lock_init(&kms->lock);
	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	drm->mode_config.funcs = &wddmseg_mode_config_funcs;
	drm->mode_config.helper_private = &wddmseg_mode_config_helpers;

	if (!wddmseg_kms_probe_display(wdev))
		return 0;

	drm->mode_config.min_width = 1;
	drm->mode_config.min_height = 1;
	/*
	 * Framebuffer limits, not scanout limits: a framebuffer may be larger
	 * than any mode (panning); modes are checked against the scanout's
	 * SCANOUT_MAX_WIDTH/HEIGHT (mode-size), and the plane's source equals
	 * the mode.
	 */
	drm->mode_config.max_width = WDDMSEG_KMS_FB_MAX;
	drm->mode_config.max_height = WDDMSEG_KMS_FB_MAX;
	drm->mode_config.preferred_depth = 24;

	ret = wddmseg_kms_init_pipeline(wdev);
	if (ret)
		return ret;

	drm->max_vblank_count = U32_MAX;	/* VBLANK_COUNT wraps at 2^32 */
	ret = drm_vblank_init(drm, 1);
	if (ret)
		return ret;

	drm_mode_config_reset(drm);
	kms->present = true;
	wddmseg_irq_mask_update(wdev, 0, WDDMSEG_IRQ_SCANOUT_ERROR);
	drm_dbg_kms(drm, "scanout: up to %ux%u, formats 0x%x, features 0x%x, cursor %ux%u\n",
		    kms->max_width, kms->max_height, kms->formats,
		    kms->features, kms->cursor_w, kms->cursor_h);
	return 0;
}

/**
 * wddmseg_kms_register - after drm_dev_register(): fbdev emulation
 * @wdev: device
 */
void wddmseg_kms_register(struct wddmseg_device *wdev)
{
	/* fbdev draws into a shadow buffer and maps the BO only to blit. */
	if (wdev->kms.present && wddmseg_fbdev)
		wddmseg_fbdev_setup(&wdev->drm);
}

/**
 * wddmseg_kms_fini - turn the scanout off (unbind, shutdown)
 * @wdev: device
 *
 * Unpins the framebuffers and masks the display interrupts, before the
 * engine (and with it the interrupt handler) goes.
 */
void wddmseg_kms_fini(struct wddmseg_device *wdev)
{
	if (!wdev->kms.present)
		return;
	drm_atomic_helper_shutdown(&wdev->drm);
	wddmseg_irq_mask_update(wdev, WDDMSEG_KMS_IRQS, 0);
	/* Commits from now on (closing files of an unbound device) skip it. */
	WRITE_ONCE(wdev->kms.gone, true);
}
