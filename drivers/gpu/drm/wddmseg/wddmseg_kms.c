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
 * format, no DirectFlip memory segment, or no interrupt) gets an empty
 * mode configuration: the driver still advertises DRIVER_MODESET, but
 * there is no CRTC, plane or connector, as for a headless variant of a
 * GPU.
 */

#include <linux/iopoll.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_edid.h>
#include <drm/drm_fb_helper.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_vblank.h>

#include "wddmseg_bo.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_irq.h"
#include "wddmseg_kms.h"
#include "wddmseg_kms_crtc.h"
#include "wddmseg_kms_plane.h"
#include "wddmseg_params.h"
#include "wddmseg_pm.h"
#include "wddmseg_hw.h"

static const u32 wddmseg_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_RGB565,
};

static const u32 wddmseg_cursor_formats[] = {
	DRM_FORMAT_ARGB8888,
};

/* The scanout format that shows @fourcc: the primary ignores alpha. */
u32 wddmseg_format_bit(u32 fourcc)
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

const char *wddmseg_scanout_error_name(u32 code)
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

int wddmseg_mode_check(struct wddmseg_device *wdev,
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
	bool async = state->async_update;
	int ret;

	ret = wddmseg_pm_get(wdev);
	if (ret)
		return ret;
	ret = drm_atomic_helper_commit(drm, state, nonblock);
	/* An async update has no tail: it is done when the helper returns. */
	if (ret || async)
		wddmseg_pm_put(wdev);
	return ret;
}

/*
 * Whether @state only moves or changes the cursor of an active CRTC and
 * asks for nothing to be signalled (no event, no out-fence): the commits
 * that may skip the vblank. The DRM core takes the async path only for
 * legacy cursor ioctls; an atomic commit of the same change is the same
 * update, and takes it too (the rst, "Cursor updates").
 */
static bool wddmseg_cursor_only(struct wddmseg_atomic_state *state)
{
	struct drm_crtc_state *cs;
	struct drm_plane_state *ps;
	struct drm_plane *plane;
	struct drm_crtc *crtc;
	int i, planes = 0;

	if (state->num_connector)
		return false;
	for_each_new_plane_in_state(state, plane, ps, i) {
		if (plane->type != DRM_PLANE_TYPE_CURSOR)
			return false;
		planes++;
	}
	for_each_new_crtc_in_state(state, crtc, cs, i)
		if (cs->event || drm_atomic_crtc_needs_modeset(cs) ||
		    cs->color_mgmt_changed || !cs->active)
			return false;
	return planes == 1;
}

/*
 * drm_atomic_helper_check(), then the async path for cursor-only atomic
 * commits on a device that updates the cursor at once (1.10).
 */
static int wddmseg_atomic_check(struct drm_device *drm,
				struct wddmseg_atomic_state *state)
{
	int ret;

	ret = drm_atomic_helper_check(drm, state);
	if (ret || state->async_update || !to_wddmseg(drm)->kms.compose ||
	    !wddmseg_cursor_only(state))
		return ret;
	state->async_update = !drm_atomic_helper_async_check(drm, state);
	return 0;
}

static const struct drm_mode_config_helper_funcs wddmseg_mode_config_helpers = {
	.atomic_commit_tail = wddmseg_commit_tail,
};

static const struct drm_mode_config_funcs wddmseg_mode_config_funcs = {
	.fb_create = wddmseg_fb_create,
	.atomic_check = wddmseg_atomic_check,
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
	if (!wdev->irq_ready) {
		drm_info(&wdev->drm, "no device interrupt, no vblank: no KMS outputs\n");
		return false;
	}
	kms->compose = WDDMSEG_VERSION_MINOR(version) >=
		       WDDMSEG_VERSION_MINOR_COMPOSE;
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
	wddmseg_irq_register(wdev, WDDMSEG_IRQ_DISPLAY, WDDMSEG_KMS_IRQS,
			     wddmseg_kms_irq);
	wddmseg_irq_mask_update(wdev, 0, WDDMSEG_IRQ_SCANOUT_ERROR);
	drm_dbg_kms(drm, "scanout: up to %ux%u, formats 0x%x, features 0x%x, cursor %ux%u, %s\n",
		    kms->max_width, kms->max_height, kms->formats,
		    kms->features, kms->cursor_w, kms->cursor_h,
		    kms->compose ? "composed planes, async cursor" :
		    "full-screen primary, cursor at vblanks");
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
 * Unpins the framebuffers and masks the display interrupts, while the
 * engine still runs and before the interrupt is freed (wddmseg_irq.c).
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
