/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the kernel API differences between the kernels the driver
 * supports (Linux 7.3, built from Debian's linux-source-7.3, and Debian
 * 12's 6.12 and 6.1), in one place.
 *
 * Each shim tests for the feature, not for a version number: a header
 * (__has_include, in its quoted form, which checkpatch can parse), a
 * macro, or, for changes that left neither, a declaration the driver's
 * Makefile looks for in the kernel's headers (WDDMSEG_HAVE_*).
 * Distribution kernels backport DRM changes (Debian's 6.12 has 6.13's
 * drm_client_setup()), so a version number would lie. Each shim names
 * the mainline release and commit that made the change; for changes
 * after 6.12 whose release we could not pin down, it says "by 7.2" (in
 * Debian's linux-source-7.2, 7.2.13) or "by 7.3". The logic files include
 * this header through wddmseg_device_types.h and carry no #if of their own.
 * Documentation/gpu/wddmseg.rst lists the shims and the API changes the
 * driver absorbed without one.
 */
#ifndef WDDMSEG_COMPAT_H
#define WDDMSEG_COMPAT_H

#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/shrinker.h>
#include <linux/slab.h>

#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_tt.h>

/*
 * 6.4 ("drm/ttm: merge ttm_bo_api.h and ttm_bo_driver.h"): one header for
 * buffer objects, for users and drivers alike.
 */
#if __has_include("drm/ttm/ttm_bo.h")
#include <drm/ttm/ttm_bo.h>
#else
#include <drm/ttm/ttm_bo_api.h>
#include <drm/ttm/ttm_bo_driver.h>
#endif

/*
 * 6.9 ("drm/ttm: replace busy placement with flags"): ttm_placement lost
 * its second list (busy_placement, tried evicting other buffers); each
 * place says instead whether it is tried only without eviction
 * (TTM_PL_FLAG_DESIRED), only with it (TTM_PL_FLAG_FALLBACK) or both.
 * The driver only ever needs "places [0, n) without eviction, then the
 * tail [k, n) of the same list with eviction" (k = 0: everything both
 * ways; k = n: never evict), which both kernels express.
 */
#ifdef TTM_PL_FLAG_DESIRED
#define WDDMSEG_PL_EVICT_FLAGS	(TTM_PL_FLAG_DESIRED | TTM_PL_FLAG_FALLBACK)
#else
#define WDDMSEG_PL_EVICT_FLAGS	0
#endif

/**
 * wddmseg_placement_init - a placement over @places
 * @placement: filled in
 * @places: the places, in order of preference; their eviction flags are
 *	set here
 * @n: number of places, all tried first without evicting anything
 * @k: the places from @k on (@k <= @n) are then tried again, evicting
 *	other allocations to make room
 */
static inline void wddmseg_placement_init(struct ttm_placement *placement,
					  struct ttm_place *places,
					  unsigned int n, unsigned int k)
{
#ifdef TTM_PL_FLAG_DESIRED
	unsigned int i;

	for (i = 0; i < n; i++) {
		places[i].flags &= ~WDDMSEG_PL_EVICT_FLAGS;
		if (i < k)
			places[i].flags |= TTM_PL_FLAG_DESIRED;
	}
#else
	placement->busy_placement = places + k;
	placement->num_busy_placement = n - k;
#endif
	placement->placement = places;
	placement->num_placement = n;
}

/**
 * wddmseg_placement_evict_start - the k of wddmseg_placement_init()
 * @placement: a placement
 *
 * Return: the index of the first place tried with eviction (the number of
 * places when none is), or -1 when @placement is not of the form
 * wddmseg_placement_init() builds. For the KUnit tests.
 */
static inline int wddmseg_placement_evict_start(const struct ttm_placement *placement)
{
	unsigned int n = placement->num_placement, k = 0, i;

#ifdef TTM_PL_FLAG_DESIRED
	while (k < n && (placement->placement[k].flags & TTM_PL_FLAG_DESIRED))
		k++;
	for (i = k; i < n; i++)
		if (placement->placement[i].flags & WDDMSEG_PL_EVICT_FLAGS)
			return -1;
#else
	i = placement->num_busy_placement;
	if (i > n || (i && placement->busy_placement != placement->placement + n - i))
		return -1;
	k = n - i;
#endif
	return k;
}

/*
 * 6.2 ("drm/gem: Take reservation lock for vmap/vunmap operations"):
 * drm_gem_object_funcs.vmap and .vunmap run with the reservation held
 * (drm_gem_vmap() asserts it; dma_buf_vmap(), the fbdev damage worker
 * and drm_client take it); before, they ran without and the driver
 * reserved itself. The commit left no macro; it added
 * drm_gem_vmap_unlocked() for callers without the lock, which the
 * Makefile finds in drm_gem.h (by 7.2, drm_gem_vmap() for callers that
 * hold it: either name means the rule).
 */
#ifdef WDDMSEG_HAVE_GEM_VMAP_LOCKED
static inline int wddmseg_gem_vmap_lock(struct drm_gem_object *obj, bool intr)
{
	dma_resv_assert_held(obj->resv);
	return 0;
}

static inline void wddmseg_gem_vmap_unlock(struct drm_gem_object *obj)
{
}
#else
static inline int wddmseg_gem_vmap_lock(struct drm_gem_object *obj, bool intr)
{
	if (intr)
		return dma_resv_lock_interruptible(obj->resv, NULL);
	return dma_resv_lock(obj->resv, NULL);
}

static inline void wddmseg_gem_vmap_unlock(struct drm_gem_object *obj)
{
	dma_resv_unlock(obj->resv);
}
#endif

/*
 * fbdev emulation on a TTM driver, 32 bpp, drawn into a shadow buffer and
 * blitted into the framebuffer through vmap:
 *  - 6.15 ("drm/client: Move client setup to clients/"):
 *    drm_client_setup.h moved to drm/clients/; it declares a stub when
 *    CONFIG_DRM_CLIENT_SETUP is off, and drm_fbdev_ttm_setup() is gone,
 *    so this is the one way;
 *  - 6.13 ("drm/client: Add client-lib module", drm_client_setup()): the
 *    in-kernel clients are chosen by the DRM core and the driver gives its
 *    fbdev_probe (DRM_FBDEV_TTM_DRIVER_OPS); Debian backports it to 6.12.
 *    It is built only when a driver selects DRM_CLIENT_SELECTION (a stub
 *    otherwise), which an out-of-tree module cannot, so it is used only
 *    when the kernel has it (CONFIG_DRM_CLIENT_SETUP);
 *  - 6.11 ("drm/fbdev-generic: Convert to fbdev-ttm"):
 *    drm_fbdev_ttm_setup(), which always shadows;
 *  - 6.1: drm_fbdev_generic_setup(), which shadows only when the mode
 *    configuration asks (prefer_shadow_fbdev, gone since).
 * WDDMSEG_FBDEV_DRIVER_OPS goes into struct drm_driver; where it has
 * nothing to set it restates a field as NULL.
 */
#if __has_include("drm/clients/drm_client_setup.h")
#include <drm/clients/drm_client_setup.h>
#include <drm/drm_fbdev_ttm.h>
#define WDDMSEG_FBDEV_DRIVER_OPS DRM_FBDEV_TTM_DRIVER_OPS

static inline void wddmseg_fbdev_setup(struct drm_device *drm)
{
	drm_client_setup_with_color_mode(drm, 32);
}
#elif __has_include("drm/drm_client_setup.h") && IS_ENABLED(CONFIG_DRM_CLIENT_SETUP)
#include <drm/drm_client_setup.h>
#include <drm/drm_fbdev_ttm.h>
#define WDDMSEG_FBDEV_DRIVER_OPS DRM_FBDEV_TTM_DRIVER_OPS

static inline void wddmseg_fbdev_setup(struct drm_device *drm)
{
	drm_client_setup_with_color_mode(drm, 32);
}
#elif __has_include("drm/drm_fbdev_ttm.h")
#include <drm/drm_fbdev_ttm.h>
#define WDDMSEG_FBDEV_DRIVER_OPS .release = NULL

static inline void wddmseg_fbdev_setup(struct drm_device *drm)
{
	drm_fbdev_ttm_setup(drm, 32);
}
#else
#include <drm/drm_fb_helper.h>
#define WDDMSEG_FBDEV_DRIVER_OPS .release = NULL

static inline void wddmseg_fbdev_setup(struct drm_device *drm)
{
	drm->mode_config.prefer_shadow_fbdev = true;
	drm_fbdev_generic_setup(drm, 32);
}
#endif

/*
 * 6.5 ("drm: Add common fdinfo helper", 376c25f8ca47): the DRM core's
 * drm_show_fdinfo() (file_operations.show_fdinfo, which
 * DEFINE_DRM_GEM_FOPS() sets but DRM_GEM_FOPS does not) prints
 * drm-driver, drm-client-id and drm-pdev in /proc/PID/fdinfo and calls
 * drm_driver.show_fdinfo for the driver's keys.
 * Before it (6.1) DRM_GEM_FOPS has no show_fdinfo and drm_file no client
 * id: the driver's file_operations print all of it, with the driver's own
 * client ids (struct wddmseg_file.client_id). The Makefile defines
 * WDDMSEG_HAVE_SHOW_FDINFO where drm_file.h declares drm_show_fdinfo().
 */
#ifdef WDDMSEG_HAVE_SHOW_FDINFO
#define WDDMSEG_FDINFO_DRIVER_OPS .show_fdinfo = wddmseg_show_fdinfo,
#define WDDMSEG_FDINFO_FOPS .show_fdinfo = drm_show_fdinfo,
#else
#define WDDMSEG_FDINFO_DRIVER_OPS
#define WDDMSEG_FDINFO_FOPS .show_fdinfo = wddmseg_show_fdinfo_fops,
#endif

/*
 * 6.7 ("mm: shrinker: add infrastructure for dynamically allocating
 * shrinker"): shrinkers are allocated by shrinker_alloc(), carry a
 * private_data pointer and are released with shrinker_free();
 * register_shrinker() on an embedded shrinker is gone.
 */
#ifdef SHRINKER_ALLOCATED
static inline struct shrinker *
wddmseg_shrinker_create(unsigned long (*count)(struct shrinker *,
					       struct shrink_control *),
			unsigned long (*scan)(struct shrinker *,
					      struct shrink_control *),
			void *data, const char *name)
{
	struct shrinker *s = shrinker_alloc(0, "drm-wddmseg:%s", name);

	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
	s->private_data = data;
	shrinker_register(s);
	return s;
}

static inline void *wddmseg_shrinker_data(struct shrinker *s)
{
	return s->private_data;
}

static inline void wddmseg_shrinker_destroy(struct shrinker *s)
{
	shrinker_free(s);
}
#else
/* A shrinker of 6.1 and the private_data it does not have. */
struct wddmseg_shrinker {
	struct shrinker base;
	void *data;
};

static inline struct shrinker *
wddmseg_shrinker_create(unsigned long (*count)(struct shrinker *,
					       struct shrink_control *),
			unsigned long (*scan)(struct shrinker *,
					      struct shrink_control *),
			void *data, const char *name)
{
	struct wddmseg_shrinker *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->base.count_objects = count;
	s->base.scan_objects = scan;
	s->base.seeks = DEFAULT_SEEKS;
	s->data = data;
	if (register_shrinker(&s->base, "drm-wddmseg:%s", name)) {
		kfree(s);
		return NULL;
	}
	return &s->base;
}

static inline void *wddmseg_shrinker_data(struct shrinker *s)
{
	return container_of(s, struct wddmseg_shrinker, base)->data;
}

static inline void wddmseg_shrinker_destroy(struct shrinker *s)
{
	if (!s)
		return;
	unregister_shrinker(s);
	kfree(container_of(s, struct wddmseg_shrinker, base));
}
#endif

/*
 * 6.8 ("PCI: Add PCI_IRQ_INTX"): the INTx flag of pci_alloc_irq_vectors()
 * got its name; PCI_IRQ_LEGACY, the old one, is gone by 6.12.
 */
#ifndef PCI_IRQ_INTX
#define PCI_IRQ_INTX	PCI_IRQ_LEGACY
#endif

/*
 * By 7.3 ("PCI: Remove hybrid devres nature from request functions"):
 * pci_request_regions() is no longer released at unbind when the device
 * was enabled with pcim_enable_device(), so a reloaded driver found its
 * BARs still taken (-EBUSY). pcim_request_all_regions() (Debian's 6.12
 * has it, 6.1 not) is the managed request; the Makefile defines
 * WDDMSEG_HAVE_PCIM_REQUEST_ALL_REGIONS where pci.h declares it. Before
 * it, pci_request_regions() after pcim_enable_device() is managed.
 */
static inline int wddmseg_pcim_request_regions(struct pci_dev *pdev,
					       const char *name)
{
#ifdef WDDMSEG_HAVE_PCIM_REQUEST_ALL_REGIONS
	return pcim_request_all_regions(pdev, name);
#else
	return pci_request_regions(pdev, name);
#endif
}

/*
 * system_wq is deprecated by 7.3 ("workqueue: Add system_percpu_wq and
 * system_dfl_wq", then a warning at each use of the old name):
 * system_percpu_wq is the same workqueue under its new name (Debian's
 * 6.12 has it). The Makefile defines WDDMSEG_HAVE_SYSTEM_PERCPU_WQ where
 * workqueue.h declares it.
 */
#ifdef WDDMSEG_HAVE_SYSTEM_PERCPU_WQ
#define WDDMSEG_PERCPU_WQ	system_percpu_wq
#else
#define WDDMSEG_PERCPU_WQ	system_wq
#endif

/*
 * The same series renamed system_unbound_wq system_dfl_wq (7.3 warns at
 * each use of the old name; Debian's 6.12 has the new one, 6.1 only the
 * old). WDDMSEG_HAVE_SYSTEM_DFL_WQ where workqueue.h declares it.
 */
#ifdef WDDMSEG_HAVE_SYSTEM_DFL_WQ
#define WDDMSEG_UNBOUND_WQ	system_dfl_wq
#else
#define WDDMSEG_UNBOUND_WQ	system_unbound_wq
#endif

/*
 * 6.13 ("module: Convert symbol namespace to string literal"):
 * MODULE_IMPORT_NS() takes the namespace as a string, no longer as a
 * bare identifier it stringified. No macro tells the two apart; the
 * Makefile defines WDDMSEG_HAVE_IMPORT_NS_IDENT where module.h still
 * stringifies.
 */
#ifdef WDDMSEG_HAVE_IMPORT_NS_IDENT
#define WDDMSEG_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS(DMA_BUF)
#else
#define WDDMSEG_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS("DMA_BUF")
#endif

/*
 * By 7.3 ("slab: Introduce kmalloc_obj() and family"): typed allocation
 * of one object, kzalloc_obj(*p, gfp), which 7.3's checkpatch asks for
 * instead of kzalloc(sizeof(*p), gfp). The same, for the kernels before.
 */
#ifndef kzalloc_obj
#define kzalloc_obj(P, GFP)	kzalloc(sizeof(P), GFP)
#endif
#ifndef kmalloc_obj
#define kmalloc_obj(P, GFP)	kmalloc(sizeof(P), GFP)
#endif

/*
 * 6.14 ("drm: remove driver date from struct drm_driver and all
 * drivers"): drm_driver.date is gone (DRM_IOCTL_VERSION reports "0").
 * The Makefile defines WDDMSEG_HAVE_DRIVER_DATE where drm_drv.h still
 * has the field.
 */
#ifdef WDDMSEG_HAVE_DRIVER_DATE
#define WDDMSEG_DRIVER_DATE_OPS .date = "20261122",
#else
#define WDDMSEG_DRIVER_DATE_OPS
#endif

/*
 * 6.17 ("drm/ttm: rename ttm_bo_put to _fini"): a GEM-backed buffer
 * object's last reference is the GEM object's; its free callback ends the
 * TTM object with ttm_bo_fini(), and ttm_bo_put() is gone. The Makefile
 * defines WDDMSEG_HAVE_TTM_BO_FINI where ttm_bo.h declares it.
 */
static inline void wddmseg_ttm_bo_fini(struct ttm_buffer_object *tbo)
{
#ifdef WDDMSEG_HAVE_TTM_BO_FINI
	ttm_bo_fini(tbo);
#else
	ttm_bo_put(tbo);
#endif
}

/*
 * 6.13 ("drm/ttm: Add a ttm_bo_populate() helper"): a buffer object's
 * pages are populated through ttm_bo_populate(), which also puts a
 * swapped-in object back on its LRU; by 7.3 ttm_tt_populate() is
 * exported only for TTM's KUnit tests. The Makefile defines
 * WDDMSEG_HAVE_TTM_BO_POPULATE where ttm_bo.h declares it. The caller
 * holds the reservation and @tbo has its ttm_tt.
 */
static inline int wddmseg_bo_populate(struct ttm_buffer_object *tbo,
				      struct ttm_operation_ctx *ctx)
{
#ifdef WDDMSEG_HAVE_TTM_BO_POPULATE
	return ttm_bo_populate(tbo, ctx);
#else
	return ttm_tt_populate(tbo->bdev, tbo->ttm, ctx);
#endif
}

/*
 * After 6.12, by 7.2 ("drm/ttm: Replace multiple booleans with flags in
 * device init"): ttm_device_init() takes TTM_ALLOCATION_* flags
 * (drm/ttm/ttm_allocation.h, new with it) instead of the use_dma_alloc
 * and use_dma32 booleans. The driver wants neither. (@funcs is not
 * const: 6.1's ttm_device_init() takes it so.)
 */
static inline int wddmseg_ttm_device_init(struct ttm_device *bdev,
					  struct ttm_device_funcs *funcs,
					  struct device *dev,
					  struct address_space *mapping,
					  struct drm_vma_offset_manager *vma)
{
#if __has_include("drm/ttm/ttm_allocation.h")
	return ttm_device_init(bdev, funcs, dev, mapping, vma, 0);
#else
	return ttm_device_init(bdev, funcs, dev, mapping, vma, false, false);
#endif
}

/*
 * A resource manager's move fences, which TTM adds to every allocation
 * placed in it (the manager's pending wipes and clears):
 *  - after 6.12, by 7.2 ("drm/ttm: allow multiple move fences for a
 *    resource manager"): one fence per fence context, eviction_fences[]
 *    of TTM_NUM_MOVE_FENCES slots under eviction_lock;
 *  - before: one fence, move, under move_lock.
 * The driver's paging fences all share the engine's one context, so it
 * keeps at most one fence there either way: the latest.
 */
#ifdef TTM_NUM_MOVE_FENCES
/**
 * wddmseg_man_move_init - a manager's move fence bookkeeping, empty
 * @man: a resource manager not yet initialized by TTM (the KUnit tests')
 */
static inline void wddmseg_man_move_init(struct ttm_resource_manager *man)
{
	unsigned int i;

	spin_lock_init(&man->eviction_lock);
	for (i = 0; i < TTM_NUM_MOVE_FENCES; i++)
		man->eviction_fences[i] = NULL;
}

/**
 * wddmseg_man_move_set - make @fence the move fence of its context
 * @man: a resource manager
 * @fence: the paging fence of work queued on @man's ranges
 *
 * Nothing changes when a later fence of the same context is there. With
 * no slot of its own and none free, @fence is waited for (TTM does the
 * same in ttm_bo_move_pipeline_evict()); never the case for the driver's
 * one fence context.
 */
static inline void wddmseg_man_move_set(struct ttm_resource_manager *man,
					struct dma_fence *fence)
{
	struct dma_fence *old = NULL;
	int i, free = -1;

	spin_lock(&man->eviction_lock);
	for (i = 0; i < TTM_NUM_MOVE_FENCES; i++) {
		struct dma_fence *f = man->eviction_fences[i];

		if (!f) {
			if (free < 0)
				free = i;
			continue;
		}
		if (f->context != fence->context)
			continue;
		if (dma_fence_is_later(fence, f)) {
			old = f;
			man->eviction_fences[i] = dma_fence_get(fence);
		}
		spin_unlock(&man->eviction_lock);
		dma_fence_put(old);
		return;
	}
	if (free >= 0)
		man->eviction_fences[free] = dma_fence_get(fence);
	spin_unlock(&man->eviction_lock);
	if (free < 0)
		dma_fence_wait(fence, false);
}

/**
 * wddmseg_man_move_drop_signaled - forget the move fences that signaled
 * @man: a resource manager
 */
static inline void wddmseg_man_move_drop_signaled(struct ttm_resource_manager *man)
{
	struct dma_fence *done[TTM_NUM_MOVE_FENCES] = {};
	unsigned int i;

	spin_lock(&man->eviction_lock);
	for (i = 0; i < TTM_NUM_MOVE_FENCES; i++) {
		struct dma_fence *f = man->eviction_fences[i];

		if (f && dma_fence_is_signaled(f)) {
			done[i] = f;
			man->eviction_fences[i] = NULL;
		}
	}
	spin_unlock(&man->eviction_lock);
	for (i = 0; i < TTM_NUM_MOVE_FENCES; i++)
		dma_fence_put(done[i]);
}

/**
 * wddmseg_man_move_peek - the move fence of one fence context
 * @man: a resource manager
 * @context: a fence context
 *
 * Return: the fence (no reference taken) or NULL. For the KUnit tests.
 */
static inline struct dma_fence *
wddmseg_man_move_peek(struct ttm_resource_manager *man, u64 context)
{
	struct dma_fence *ret = NULL;
	unsigned int i;

	spin_lock(&man->eviction_lock);
	for (i = 0; i < TTM_NUM_MOVE_FENCES; i++)
		if (man->eviction_fences[i] &&
		    man->eviction_fences[i]->context == context)
			ret = man->eviction_fences[i];
	spin_unlock(&man->eviction_lock);
	return ret;
}
#else
static inline void wddmseg_man_move_init(struct ttm_resource_manager *man)
{
	spin_lock_init(&man->move_lock);
	man->move = NULL;
}

static inline void wddmseg_man_move_set(struct ttm_resource_manager *man,
					struct dma_fence *fence)
{
	struct dma_fence *old = NULL;

	spin_lock(&man->move_lock);
	if (!man->move || dma_fence_is_later(fence, man->move)) {
		old = man->move;
		man->move = dma_fence_get(fence);
	}
	spin_unlock(&man->move_lock);
	dma_fence_put(old);
}

static inline void wddmseg_man_move_drop_signaled(struct ttm_resource_manager *man)
{
	struct dma_fence *done = NULL;

	spin_lock(&man->move_lock);
	if (man->move && dma_fence_is_signaled(man->move)) {
		done = man->move;
		man->move = NULL;
	}
	spin_unlock(&man->move_lock);
	dma_fence_put(done);
}

static inline struct dma_fence *
wddmseg_man_move_peek(struct ttm_resource_manager *man, u64 context)
{
	struct dma_fence *ret;

	spin_lock(&man->move_lock);
	ret = man->move && man->move->context == context ? man->move : NULL;
	spin_unlock(&man->move_lock);
	return ret;
}
#endif

/*
 * After 6.12, by 7.2 (Debian's 7.2.13 has it): the
 * state of one atomic commit, which every atomic hook and helper takes,
 * is struct drm_atomic_commit. The driver names it struct
 * wddmseg_atomic_state; the Makefile defines WDDMSEG_HAVE_ATOMIC_COMMIT
 * where drm_atomic.h declares the new name.
 */
#ifdef WDDMSEG_HAVE_ATOMIC_COMMIT
#define wddmseg_atomic_state drm_atomic_commit
#else
#define wddmseg_atomic_state drm_atomic_state
#endif

/*
 * 6.14 ("drm/atomic: Let drivers decide which planes to async flip"):
 * drm_plane_helper_funcs.atomic_async_check takes a third parameter, true
 * for an async page flip of DRM_MODE_PAGE_FLIP_ASYNC. The hook is
 * declared with WDDMSEG_ASYNC_CHECK_PARAMS (plane, state and, where it
 * exists, flip) and reads WDDMSEG_ASYNC_CHECK_FLIP (flip, or false where
 * the kernel has no such flips). The Makefile defines
 * WDDMSEG_HAVE_ASYNC_CHECK_FLIP.
 */
#ifdef WDDMSEG_HAVE_ASYNC_CHECK_FLIP
#define WDDMSEG_ASYNC_CHECK_PARAMS \
	struct drm_plane *plane, struct wddmseg_atomic_state *state, bool flip
#define WDDMSEG_ASYNC_CHECK_FLIP	flip
#else
#define WDDMSEG_ASYNC_CHECK_PARAMS \
	struct drm_plane *plane, struct wddmseg_atomic_state *state
#define WDDMSEG_ASYNC_CHECK_FLIP	false
#endif

/*
 * 6.17 ("drm: Pass the format info to .fb_create()"):
 * the .fb_create hook and drm_gem_fb_create() take the format info the
 * core looked up. WDDMSEG_FB_CREATE_INFO is that parameter, named info,
 * in the hook's list (nothing before); wddmseg_gem_fb_create() passes it
 * on where it exists. The Makefile defines WDDMSEG_HAVE_FB_CREATE_INFO.
 */
#ifdef WDDMSEG_HAVE_FB_CREATE_INFO
#define WDDMSEG_FB_CREATE_INFO	const struct drm_format_info *info,
#define wddmseg_gem_fb_create(drm, file, cmd) \
	drm_gem_fb_create(drm, file, info, cmd)
#else
#define WDDMSEG_FB_CREATE_INFO
#define wddmseg_gem_fb_create(drm, file, cmd) \
	drm_gem_fb_create(drm, file, cmd)
#endif

/*
 * 6.6 ("drm: execution context for GEM buffers", DRM_EXEC; "drm: manager
 * to keep track of GPUs VA mappings", which became drm_gpuvm, by 6.12 a
 * module of its own, DRM_GPUVM): the kernel's GPU VA manager and its
 * locking helper, which GPU address spaces (wddmseg_vm.c) are built on.
 * Where the kernel has neither (6.1) the Makefile leaves wddmseg_vm.c out
 * and the address-space ioctls refuse here with rule vm-no-gpuvm: the
 * feature is compiled out, never rebuilt by hand.
 */
struct dma_fence;
struct drm_device;
struct drm_file;
struct drm_wddmseg_submit_blit;
struct wddmseg_file;

#if IS_REACHABLE(CONFIG_DRM_GPUVM) && IS_REACHABLE(CONFIG_DRM_EXEC)
#define WDDMSEG_HAVE_GPUVM	1
/*
 * A GEM object's list of its GPU mappings: up to 6.16 the driver
 * initialises it, since then drm_gem_private_object_init() does (doing it
 * again on an empty list is harmless). 6.18 renamed drm_gpuvm_bo_obtain()
 * drm_gpuvm_bo_obtain_locked() (the Makefile looks for the new name).
 */
#define wddmseg_gem_gpuva_init(obj)	drm_gem_gpuva_init(obj)
#ifndef WDDMSEG_HAVE_GPUVM_BO_OBTAIN_LOCKED
#define drm_gpuvm_bo_obtain_locked(gpuvm, obj) drm_gpuvm_bo_obtain(gpuvm, obj)
#endif
int wddmseg_ioctl_vm_create(struct drm_device *drm, void *data,
			    struct drm_file *file);
int wddmseg_ioctl_vm_destroy(struct drm_device *drm, void *data,
			     struct drm_file *file);
int wddmseg_ioctl_vm_bind(struct drm_device *drm, void *data,
			  struct drm_file *file);
void wddmseg_vm_file_fini(struct wddmseg_file *wfile);
struct dma_fence *wddmseg_vm_submit_blit(struct drm_device *drm,
					 struct drm_file *file,
					 const struct drm_wddmseg_submit_blit *a);
#else
#define WDDMSEG_HAVE_GPUVM	0
struct drm_gem_object;
static inline void wddmseg_gem_gpuva_init(struct drm_gem_object *obj)
{
}

static inline int wddmseg_vm_absent(struct drm_device *drm, const char *what)
{
	drm_dbg(drm, "%s: rule vm-no-gpuvm: this kernel has no drm_gpuvm\n",
		what);
	return -EOPNOTSUPP;
}

static inline int wddmseg_ioctl_vm_create(struct drm_device *drm, void *data,
					  struct drm_file *file)
{
	return wddmseg_vm_absent(drm, "vm_create");
}

static inline int wddmseg_ioctl_vm_destroy(struct drm_device *drm,
					   void *data, struct drm_file *file)
{
	return wddmseg_vm_absent(drm, "vm_destroy");
}

static inline int wddmseg_ioctl_vm_bind(struct drm_device *drm, void *data,
					struct drm_file *file)
{
	return wddmseg_vm_absent(drm, "vm_bind");
}

static inline struct dma_fence *
wddmseg_vm_submit_blit(struct drm_device *drm, struct drm_file *file,
		       const struct drm_wddmseg_submit_blit *a)
{
	return ERR_PTR(wddmseg_vm_absent(drm, "blit"));
}

static inline void wddmseg_vm_file_fini(struct wddmseg_file *wfile)
{
}
#endif

#endif /* WDDMSEG_COMPAT_H */
