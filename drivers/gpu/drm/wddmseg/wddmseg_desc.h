/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the segment table: reading and validating it (wddmseg_desc.c).
 */
#ifndef WDDMSEG_DESC_H
#define WDDMSEG_DESC_H

#include <linux/types.h>

struct wddmseg_adapter_desc;
struct wddmseg_device;
struct wddmseg_segment_desc;

/**
 * struct wddmseg_violation - the first broken rule found by validation
 * @segment_id: offending segment, or 0 for an adapter-wide rule
 * @rule: short stable name of the rule, as listed in the documentation
 * @detail: human-readable explanation with the offending values
 */
struct wddmseg_violation {
	u32 segment_id;
	const char *rule;
	char detail[160];
};

void wddmseg_desc_read(void __iomem *mmio, struct wddmseg_adapter_desc *desc);
int wddmseg_desc_validate(const struct wddmseg_adapter_desc *desc,
			  struct wddmseg_violation *v);
bool wddmseg_segment_is_aperture(const struct wddmseg_segment_desc *seg);
u32 wddmseg_segflags_effective(u32 flags);
bool wddmseg_segment_cpu_visible(struct wddmseg_device *wdev, u32 segment_id);
int wddmseg_segment_budget_group(const struct wddmseg_segment_desc *seg);
bool wddmseg_segment_budget_target(const struct wddmseg_adapter_desc *desc,
				   const struct wddmseg_segment_desc *seg);
bool wddmseg_segment_seals(struct wddmseg_device *wdev, u32 segment_id);
u64 wddmseg_bank_end(const struct wddmseg_segment_desc *seg, u32 j);
bool wddmseg_mmu_usable(const struct wddmseg_adapter_desc *d);
u32 wddmseg_caps_honoured(u32 caps, bool isolated, bool gpuvm);

#endif /* WDDMSEG_DESC_H */
