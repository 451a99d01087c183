/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the WDDM rules of an allocation request (wddmseg_alloc_rules.c).
 */
#ifndef WDDMSEG_ALLOC_RULES_H
#define WDDMSEG_ALLOC_RULES_H

#include <linux/types.h>

struct drm_wddmseg_gem_create;
struct wddmseg_adapter_desc;
struct wddmseg_segment_desc;
struct wddmseg_violation;

int wddmseg_alloc_validate(const struct wddmseg_adapter_desc *desc,
			   const struct drm_wddmseg_gem_create *args,
			   u64 max_size, struct wddmseg_violation *v);
u64 wddmseg_evict_through_max(const struct wddmseg_segment_desc *seg);

#endif /* WDDMSEG_ALLOC_RULES_H */
