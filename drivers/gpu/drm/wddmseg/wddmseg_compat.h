/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the kernel API differences between the kernels the driver
 * supports (Debian 12's 6.1 and 6.12), in one place.
 *
 * Each shim tests for the feature, never for a version number: a header
 * (__has_include, in its quoted form, which checkpatch can parse), a
 * macro, or, for the one change that left neither, a declaration the
 * driver's Makefile looks for in the kernel's headers
 * (WDDMSEG_HAVE_GEM_VMAP_LOCKED). Distribution kernels backport DRM
 * changes (Debian's 6.12 has 6.13's drm_client_setup()), so a version
 * number would lie. Each shim names the mainline release and commit that
 * made the change. The logic files include this header through
 * wddmseg_drv.h and carry no #if of their own.
 * Documentation/gpu/wddmseg.rst lists the shims and the API changes the
 * driver absorbed without one.
 */
#ifndef WDDMSEG_COMPAT_H
#define WDDMSEG_COMPAT_H

#include <linux/dma-resv.h>
#include <linux/pci.h>
#include <linux/shrinker.h>
#include <linux/slab.h>

#include <drm/drm_gem.h>
#include <drm/ttm/ttm_placement.h>

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
 * Makefile finds in drm_gem.h.
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
#if __has_include("drm/drm_client_setup.h") && IS_ENABLED(CONFIG_DRM_CLIENT_SETUP)
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

#endif /* WDDMSEG_COMPAT_H */
