/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: where protected content may go (wddmseg_protect.c).
 */
#ifndef WDDMSEG_PROTECT_H
#define WDDMSEG_PROTECT_H

#include <linux/types.h>

struct wddmseg_bo;
struct wddmseg_device;

int wddmseg_protect_check_cpu(struct wddmseg_bo *bo, const char *path);
int wddmseg_protect_check_export(struct wddmseg_bo *bo);
int wddmseg_protect_check_copy(struct wddmseg_bo *src, struct wddmseg_bo *dst);
bool wddmseg_protect_may_seal(struct wddmseg_bo *bo, u32 from);
int wddmseg_protect_check_evict(struct wddmseg_bo *bo);
bool wddmseg_protect_evictable(struct wddmseg_bo *bo);
u64 wddmseg_protect_nonce(struct wddmseg_device *wdev);
void wddmseg_protect_init(struct wddmseg_device *wdev);

#endif /* WDDMSEG_PROTECT_H */
