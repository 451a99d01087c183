/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: GPU virtual address spaces (wddmseg_vm.c), built only where
 * the kernel has drm_gpuvm (WDDMSEG_HAVE_GPUVM in wddmseg_compat.h,
 * which also declares the ioctls).
 */
#ifndef WDDMSEG_VM_H
#define WDDMSEG_VM_H

#include <linux/types.h>

#include <drm/drm_gpuvm.h>

struct wddmseg_bo;

/**
 * struct wddmseg_vm - one GPU virtual address space of a client
 * @gpuvm: the kernel's VA manager of the space: its mappings, its
 *	reservation (the common dma_resv of its page tables), its refcount
 * @root: the root page table, an allocation of the driver pinned in the
 *	device's page-table segment (MMU_PT_SEGMENT)
 * @root_addr: GPU address of @root, what a hardware context is bound to
 *	and what FLUSH_TLB names
 * @id: its id in the file's &wddmseg_file.vms
 */
struct wddmseg_vm {
	struct drm_gpuvm gpuvm;
	struct wddmseg_bo *root;
	u64 root_addr;
	u32 id;
};

static inline struct wddmseg_vm *to_wddmseg_vm(struct drm_gpuvm *gpuvm)
{
	return container_of(gpuvm, struct wddmseg_vm, gpuvm);
}

#endif /* WDDMSEG_VM_H */
