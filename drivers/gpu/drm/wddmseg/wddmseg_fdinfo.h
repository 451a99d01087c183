/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: fdinfo usage statistics (wddmseg_fdinfo.c).
 */
#ifndef WDDMSEG_FDINFO_H
#define WDDMSEG_FDINFO_H

#include <linux/types.h>

struct dma_fence;
struct file;
struct wddmseg_file;

u64 wddmseg_fdinfo_client_id(void);
void wddmseg_fdinfo_account_blit(struct wddmseg_file *wfile,
				 struct dma_fence *fence, ktime_t start);
void wddmseg_show_fdinfo(struct drm_printer *p, struct drm_file *file);
void wddmseg_show_fdinfo_fops(struct seq_file *m, struct file *f);

#endif /* WDDMSEG_FDINFO_H */
