// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg: the CRTC of the scanout: commits, vblank, gamma, cursor, CRCs
 * and the display interrupt.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/iopoll.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/pm_runtime.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_modeset_lock.h>
#include <drm/drm_print.h>
#include <drm/drm_vblank.h>

#include "wddmseg_bo.h"
#include "wddmseg_desc.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_irq.h"
#include "wddmseg_kms.h"
#include "wddmseg_kms_crtc.h"
#include "wddmseg_mgr.h"
#include "wddmseg_pm.h"
#include "wddmseg_hw.h"

/* The one CRC source: the frame as the device emits it. */
static const char *const wddmseg_crc_sources[] = {
	"auto",
};

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
	if (!wdev->kms.compose && cs->active &&
	    !(cs->plane_mask & drm_plane_mask(crtc->primary))) {
		kms_refuse(&wdev->drm, "primary-plane",
			   "an active scanout needs a framebuffer on the primary plane: the device (before 1.10) cannot show black");
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

/*
 * The cursor registers from the cursor plane's state (pinned, clipped),
 * pending until SCANOUT_COMMIT or CURSOR_COMMIT. Called with kms->lock
 * held: an async update may change the state.
 */
void wddmseg_cursor_program(struct wddmseg_device *wdev,
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
	u32 ctrl = WDDMSEG_SCANOUT_CTRL_ENABLE;
	struct ttm_resource *res;
	unsigned long flags;
	u64 offset;
	u32 cpp;

	crtc->state->event = NULL;
	/* Before 1.10 the checks keep a visible primary on an active CRTC. */
	if (WARN_ON(!kms->compose && !fb) || READ_ONCE(kms->gone)) {
		if (event)
			wddmseg_crtc_send_event(crtc, event);
		return;
	}

	if (fb && ps->visible) {
		/* Pinned by prepare_fb: the resource cannot change under us. */
		res = gem_to_wddmseg_bo(fb->obj[0])->tbo.resource;
		cpp = fb->format->cpp[0];
		offset = ((u64)res->start << PAGE_SHIFT) + fb->offsets[0] +
			 (u64)(ps->src.y1 >> 16) * fb->pitches[0] +
			 (u64)(ps->src.x1 >> 16) * cpp;

		writel(wddmseg_mem_type_segment(wdev, res->mem_type),
		       mmio + WDDMSEG_REG_SCANOUT_SEGMENT);
		writel(lower_32_bits(offset),
		       mmio + WDDMSEG_REG_SCANOUT_OFFSET_LO);
		writel(upper_32_bits(offset),
		       mmio + WDDMSEG_REG_SCANOUT_OFFSET_HI);
		writel(fb->pitches[0], mmio + WDDMSEG_REG_SCANOUT_PITCH);
		writel(wddmseg_format_bit(fb->format->format),
		       mmio + WDDMSEG_REG_SCANOUT_FORMAT);
		/* The visible part, clipped to the mode by the plane check. */
		if (kms->compose) {
			writel((u32)ps->dst.x1, mmio + WDDMSEG_REG_PLANE_X);
			writel((u32)ps->dst.y1, mmio + WDDMSEG_REG_PLANE_Y);
			writel(WDDMSEG_CURSOR_SIZE(drm_rect_width(&ps->dst),
						   drm_rect_height(&ps->dst)),
			       mmio + WDDMSEG_REG_PLANE_SIZE);
		}
	} else {
		/* No primary, or entirely off the mode: black (1.10). */
		ctrl |= WDDMSEG_SCANOUT_CTRL_NO_PRIMARY;
	}
	writel(mode->hdisplay, mmio + WDDMSEG_REG_SCANOUT_WIDTH);
	writel(mode->vdisplay, mmio + WDDMSEG_REG_SCANOUT_HEIGHT);
	writel(wddmseg_kms_refresh_mhz(mode),
	       mmio + WDDMSEG_REG_SCANOUT_REFRESH_MHZ);
	wddmseg_gamma_program(wdev, crtc->state);
	writel(ctrl, mmio + WDDMSEG_REG_SCANOUT_CTRL);

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
	if (crtc->cursor)
		wddmseg_cursor_program(wdev, crtc->cursor->state);
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

const struct drm_crtc_helper_funcs wddmseg_crtc_helper_funcs = {
	.mode_valid = wddmseg_crtc_mode_valid,
	.atomic_check = wddmseg_crtc_atomic_check,
	.atomic_flush = wddmseg_crtc_atomic_flush,
	.atomic_enable = wddmseg_crtc_atomic_enable,
	.atomic_disable = wddmseg_crtc_atomic_disable,
};

const struct drm_crtc_funcs wddmseg_crtc_funcs = {
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
