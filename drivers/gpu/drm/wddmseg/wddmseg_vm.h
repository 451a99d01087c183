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

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/xarray.h>

struct dma_fence;
struct drm_wddmseg_submit_blit;
struct wddmseg_bo;
struct wddmseg_device;
struct wddmseg_file;

/* A mapping's &drm_gpuva.flags bit: WDDMSEG_VM_BIND_READ_ONLY. */
#define WDDMSEG_GPUVA_READ_ONLY	DRM_GPUVA_USERBITS

/**
 * struct wddmseg_vm_table - one page table of an address space
 * @bo: the table, an allocation of the driver pinned in the device's
 *	page-table segment (MMU_PT_SEGMENT)
 * @addr: its GPU address, what the entry of its parent (or a context's
 *	root register, for the root) holds
 * @used: its valid entries; a table other than the root that has none
 *	left is unlinked from its parent and freed
 * @link: on the list of tables a bind frees once its TLB flush completed
 */
struct wddmseg_vm_table {
	struct wddmseg_bo *bo;
	u64 addr;
	u32 used;
	struct list_head link;
};

/**
 * struct wddmseg_vm - one GPU virtual address space of a client
 * @gpuvm: the kernel's VA manager of the space: its mappings, its
 *	reservation (the common dma_resv of its page tables), its refcount
 * @wdev: the device
 * @wfile: the client it belongs to (its page tables are charged to it)
 * @lock: serialises binds and blits by GPU virtual address: the
 *	mappings of @gpuvm and the page tables do not change under a blit
 *	being queued, and the page tables are written by one bind at a time
 * @root: the root page table (level MMU_LEVELS - 1)
 * @root_addr: GPU address of @root, what a hardware context is bound to
 *	and what FLUSH_TLB names (@root.addr)
 * @tables: the other page tables (&struct wddmseg_vm_table), indexed by
 *	wddmseg_vm_table_key()
 * @id: its id in the file's &wddmseg_file.vms
 */
struct wddmseg_vm {
	struct drm_gpuvm gpuvm;
	struct wddmseg_device *wdev;
	struct wddmseg_file *wfile;
	struct mutex lock;	/* binds and blits by VA; see @lock above */
	struct wddmseg_vm_table root;
	u64 root_addr;
	struct xarray tables;
	u32 id;
};

static inline struct wddmseg_vm *to_wddmseg_vm(struct drm_gpuvm *gpuvm)
{
	return container_of(gpuvm, struct wddmseg_vm, gpuvm);
}

/* wddmseg_vm_pt.c: the page tables of a space, written by the engine */
int wddmseg_vm_table_new(struct wddmseg_vm *vm, struct wddmseg_vm_table *t);
int wddmseg_vm_pt_map(struct wddmseg_vm *vm, u64 va, u64 range,
		      struct wddmseg_bo *bo, u64 bo_offset, bool read_only,
		      struct dma_fence **last);
int wddmseg_vm_pt_prepare(struct wddmseg_vm *vm, u64 va, u64 range,
			  struct list_head *freed, struct dma_fence **last);
void wddmseg_vm_pt_unprepare(struct wddmseg_vm *vm, u64 va, u64 range,
			     struct list_head *freed, struct dma_fence **last);
int wddmseg_vm_pt_clear(struct wddmseg_vm *vm, u64 va, u64 range,
			struct list_head *freed, struct dma_fence **last);
int wddmseg_vm_pt_flush(struct wddmseg_vm *vm, u64 va, u64 range,
			struct dma_fence **last);
void wddmseg_vm_pt_free(struct list_head *freed);
void wddmseg_vm_pt_fini(struct wddmseg_vm *vm);

/* wddmseg_vm.c */
struct wddmseg_vm *wddmseg_vm_lookup(struct wddmseg_file *wfile, u32 id);
void wddmseg_vm_put(struct wddmseg_vm *vm);
struct dma_fence *wddmseg_vm_blit(struct wddmseg_vm *vm,
				  const struct drm_wddmseg_submit_blit *a);

#endif /* WDDMSEG_VM_H */
