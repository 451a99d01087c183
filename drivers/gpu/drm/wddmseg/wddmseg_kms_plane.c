// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg: the primary and cursor planes of the scanout.
 */

#include <linux/dma-fence.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_print.h>

#include "wddmseg_bo.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_kms.h"
#include "wddmseg_kms_crtc.h"
#include "wddmseg_kms_plane.h"
#include "wddmseg_hw.h"

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
 * The prologue both planes' atomic checks share. A plane without a
 * framebuffer or a CRTC is off: nothing to check, *@csp is NULL. Else
 * *@csp is its CRTC's new state, and the framebuffer must be one the
 * device scans out, its source whole pixels the size of the destination
 * (no scaling). *@psp is the plane's new state either way; @what
 * prefixes a refusal's message.
 */
static int wddmseg_plane_check_common(struct drm_plane *plane,
				      struct wddmseg_atomic_state *state,
				      const char *what,
				      struct drm_plane_state **psp,
				      struct drm_crtc_state **csp)
{
	struct wddmseg_device *wdev = to_wddmseg(plane->dev);
	struct drm_plane_state *ps = drm_atomic_get_new_plane_state(state, plane);
	int ret;

	*psp = ps;
	*csp = NULL;
	if (!ps->fb || !ps->crtc)
		return 0;
	*csp = drm_atomic_get_new_crtc_state(state, ps->crtc);
	if (!*csp)
		return -EINVAL;

	ret = wddmseg_plane_check_fb(wdev, ps->fb);
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
	struct drm_plane_state *ps;
	struct drm_crtc_state *cs;
	int ret;

	ret = wddmseg_plane_check_common(plane, state, "", &ps, &cs);
	if (ret || !cs)
		return ret;
	/*
	 * A 1.10 device composes the primary at any size and position over
	 * black (PLANE_X/Y/SIZE), clipped here to the mode like the cursor;
	 * an older one scans out exactly the mode.
	 */
	if (!wdev->kms.compose && cs->enable &&
	    (ps->crtc_x || ps->crtc_y || ps->crtc_w != cs->mode.hdisplay ||
	     ps->crtc_h != cs->mode.vdisplay)) {
		kms_refuse(&wdev->drm, "plane-position",
			   "the plane (%d,%d %ux%u) must cover the whole %ux%u mode: the device (before 1.10) scans out the mode only",
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
						   wdev->kms.compose, true);
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
	struct wddmseg_kms *kms = &wdev->kms;
	struct drm_plane_state *ps;
	struct drm_crtc_state *cs;
	int ret;

	ret = wddmseg_plane_check_common(plane, state, "cursor ", &ps, &cs);
	if (ret || !cs)
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

/*
 * Async cursor updates (device 1.10): a move or a new image of the cursor
 * of an active CRTC, checked like any cursor commit by then (the helpers
 * call this last), goes to the device at once through CURSOR_COMMIT
 * instead of waiting for a vblank; a pending flip is not touched. Not
 * async flips: the primary flips at vblanks only.
 */
static int wddmseg_cursor_async_ok(struct drm_plane *plane,
				   struct wddmseg_atomic_state *state,
				   bool flip)
{
	struct wddmseg_device *wdev = to_wddmseg(plane->dev);
	struct drm_plane_state *ps = drm_atomic_get_new_plane_state(state, plane);
	struct drm_crtc_state *cs;

	if (!wdev->kms.compose || flip || !ps->crtc || !ps->fb)
		return -EINVAL;
	cs = drm_atomic_get_new_crtc_state(state, ps->crtc);
	if (!cs)
		cs = ps->crtc->state;
	if (!cs->active || drm_atomic_crtc_needs_modeset(cs))
		return -EINVAL;
	return 0;
}

static int wddmseg_cursor_async_check(WDDMSEG_ASYNC_CHECK_PARAMS)
{
	return wddmseg_cursor_async_ok(plane, state, WDDMSEG_ASYNC_CHECK_FLIP);
}

static void wddmseg_cursor_async_update(struct drm_plane *plane,
					struct wddmseg_atomic_state *state)
{
	struct wddmseg_device *wdev = to_wddmseg(plane->dev);
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct drm_plane_state *cur = plane->state;
	unsigned long flags;

	/* prepare_fb's fence: a migration into VRAM still copying. */
	if (new->fence)
		dma_fence_wait(new->fence, false);

	spin_lock_irqsave(&wdev->kms.lock, flags);
	swap(cur->fb, new->fb);
	cur->crtc_x = new->crtc_x;
	cur->crtc_y = new->crtc_y;
	cur->crtc_w = new->crtc_w;
	cur->crtc_h = new->crtc_h;
	cur->src_x = new->src_x;
	cur->src_y = new->src_y;
	cur->src_w = new->src_w;
	cur->src_h = new->src_h;
	cur->src = new->src;
	cur->dst = new->dst;
	cur->visible = new->visible;
	if (!READ_ONCE(wdev->kms.gone)) {
		wddmseg_cursor_program(wdev, cur);
		writel(1, wdev->mmio + WDDMSEG_REG_CURSOR_COMMIT);
	}
	spin_unlock_irqrestore(&wdev->kms.lock, flags);
}

/* The CRTC's atomic_flush programs the scanout, plane and all at once. */
static void wddmseg_plane_atomic_update(struct drm_plane *plane,
					struct wddmseg_atomic_state *state)
{
}

const struct drm_plane_helper_funcs wddmseg_plane_helper_funcs = {
	.prepare_fb = wddmseg_plane_prepare_fb,
	.cleanup_fb = wddmseg_plane_cleanup_fb,
	.atomic_check = wddmseg_plane_atomic_check,
	.atomic_update = wddmseg_plane_atomic_update,
};

const struct drm_plane_helper_funcs wddmseg_cursor_helper_funcs = {
	.prepare_fb = wddmseg_plane_prepare_fb,
	.cleanup_fb = wddmseg_plane_cleanup_fb,
	.atomic_check = wddmseg_cursor_atomic_check,
	.atomic_update = wddmseg_plane_atomic_update,
	.atomic_async_check = wddmseg_cursor_async_check,
	.atomic_async_update = wddmseg_cursor_async_update,
};

const struct drm_plane_funcs wddmseg_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.destroy = drm_plane_cleanup,
	.reset = drm_atomic_helper_plane_reset,
	.atomic_duplicate_state = drm_atomic_helper_plane_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_plane_destroy_state,
};
