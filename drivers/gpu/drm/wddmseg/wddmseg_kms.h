/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the display (wddmseg_kms.c: probing, mode configuration,
 * connector; the planes and the CRTC have their own files).
 */
#ifndef WDDMSEG_KMS_H
#define WDDMSEG_KMS_H

#include <linux/types.h>

#include <drm/drm_print.h>

#include "wddmseg_device_types.h"

struct drm_display_mode;

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

static inline struct wddmseg_device *crtc_to_wddmseg(struct drm_crtc *crtc)
{
	return container_of(crtc, struct wddmseg_device, kms.crtc);
}

int wddmseg_kms_init(struct wddmseg_device *wdev);
void wddmseg_kms_register(struct wddmseg_device *wdev);
void wddmseg_kms_fini(struct wddmseg_device *wdev);
u64 wddmseg_kms_refresh_mhz(const struct drm_display_mode *mode);
const char *wddmseg_kms_mode_rule(u32 max_width, u32 max_height,
				  const struct drm_display_mode *mode);
int wddmseg_mode_check(struct wddmseg_device *wdev,
		       const struct drm_display_mode *mode);
u32 wddmseg_format_bit(u32 fourcc);
const char *wddmseg_scanout_error_name(u32 code);

#endif /* WDDMSEG_KMS_H */
