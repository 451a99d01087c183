/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: CPU access to allocations: faults, mmap, vmap
 * (wddmseg_bo_cpu.c).
 */
#ifndef WDDMSEG_BO_CPU_H
#define WDDMSEG_BO_CPU_H

#include <linux/mm_types.h>

struct drm_gem_object;
struct iosys_map;
struct wddmseg_bo;

extern const struct vm_operations_struct wddmseg_gem_vm_ops;
int wddmseg_gem_vmap(struct drm_gem_object *obj, struct iosys_map *map);
void wddmseg_gem_vunmap(struct drm_gem_object *obj,
			struct iosys_map *map);
int wddmseg_gem_mmap(struct drm_gem_object *obj,
		     struct vm_area_struct *vma);
int wddmseg_bo_check_lock(struct wddmseg_bo *bo, const struct mm_struct *mm,
			  const char *path);

#endif /* WDDMSEG_BO_CPU_H */
