/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the one way into the copy engine, with the CPU fallback
 * (wddmseg_migrate.c).
 */
#ifndef WDDMSEG_MIGRATE_H
#define WDDMSEG_MIGRATE_H

#include <linux/types.h>

#include "wddmseg_copycost.h"

struct dma_fence;
struct drm_gem_object;
struct drm_wddmseg_submit_blit;
struct ttm_buffer_object;
struct ttm_operation_ctx;
struct ttm_resource;
struct ttm_resource_manager;
struct ttm_tt;
struct wddmseg_bo;
struct wddmseg_device;
struct wddmseg_mgr;

/**
 * enum wddmseg_mem_kind - what memory one end of a move is
 * @WDDMSEG_MEM_NONE: no resource at all (since 6.3 a new allocation, or
 *	one whose content was discarded): content that never existed, which
 *	reads as zeroes like unpopulated system pages
 * @WDDMSEG_MEM_SYSTEM: system pages (TTM_PL_SYSTEM) no aperture maps
 * @WDDMSEG_MEM_APERTURE: system pages mapped by an aperture segment
 * @WDDMSEG_MEM_VRAM: a range of a memory segment
 */
enum wddmseg_mem_kind {
	WDDMSEG_MEM_NONE,
	WDDMSEG_MEM_SYSTEM,
	WDDMSEG_MEM_APERTURE,
	WDDMSEG_MEM_VRAM,
};

/**
 * struct wddmseg_move_end - one end of a move (or of any paging
 *	operation), resolved once from its TTM resource
 * @res: the resource, NULL for %WDDMSEG_MEM_NONE
 * @man: its TTM manager (TTM_PL_SYSTEM's for %WDDMSEG_MEM_NONE)
 * @mgr: its segment's manager, NULL for system memory and none
 * @segment_id: WDDM segment id, 0 for system memory and none
 * @kind: what memory it is
 * @contiguous: %WDDMSEG_MEM_VRAM in one range from @res->start (a segment
 *	offset for the engine); otherwise made of blocks, reached page by
 *	page through wddmseg_mgr_res_run() (a VRAM page list)
 *
 * Page locations: VRAM is a segment offset or a VRAM page list; system
 * pages (system memory or an aperture) are the buffer object's ttm_tt
 * (&wddmseg_move.ttm), described to the engine by a page list of their
 * DMA addresses.
 */
struct wddmseg_move_end {
	struct ttm_resource *res;
	struct ttm_resource_manager *man;
	struct wddmseg_mgr *mgr;
	u32 segment_id;
	enum wddmseg_mem_kind kind;
	bool contiguous;
};

/* Whether an end of a move is system pages (or none), not VRAM. */
static inline bool wddmseg_end_in_pages(const struct wddmseg_move_end *end)
{
	return end->kind != WDDMSEG_MEM_VRAM;
}

/**
 * enum wddmseg_copier - who moves the content of a move
 * @WDDMSEG_COPY_ENGINE: the copy engine (wddmseg_migrate_move(),
 *	wddmseg_migrate_discard())
 * @WDDMSEG_COPY_CPU: the CPU (wddmseg_migrate_cpu_copy(), or a drop once
 *	idle)
 */
enum wddmseg_copier {
	WDDMSEG_COPY_ENGINE,
	WDDMSEG_COPY_CPU,
};

/**
 * struct wddmseg_move - one TTM move, resolved once by the move callback
 *	(wddmseg_bo_move()) and passed down to whoever carries it out
 * @tbo: the buffer object
 * @bo: the allocation
 * @ttm: its ttm_tt: the system pages of whichever end is in pages, or NULL
 *	(may be unpopulated when the move is resolved)
 * @src: where the content is, the buffer object's current resource
 * @dst: where it goes, the resource TTM allocated
 * @evict: the move is an eviction: TTM's own, or one the caller of
 *	ttm_bo_validate() asked for (&wddmseg_move_request.evict)
 * @discard: GEM_EVICT with WDDMSEG_EVICT_DISCARD out of a memory segment
 *	into system memory: the content is dropped (DiscardContent), not
 *	copied
 * @permanent: a PermanentSysMem allocation leaving a memory segment for
 *	system memory (without @discard): the segment's copy is dropped,
 *	the permanent copy becomes its pages (DOC: PermanentSysMem)
 * @placement_only: both ends are system pages and no aperture maps
 *	either: nothing to copy, map or unmap, only the placement changes
 * @clear: known zero: the source never had content (none, or system pages
 *	nobody populated): a Fill of zeroes instead of a Transfer
 * @skip_fill: @clear into VRAM that was known zero when it was allocated
 *	(wddmseg_mgr_res_zeroed()): not even the Fill, only the placement
 * @user_pages: the ttm_tt holds ExistingSysMem pages, which belong to the
 *	user and are never parked
 * @sync: SynchronousPaging: page only when idle and finish before
 *	returning
 * @hw_protected: HardwareProtected content: never read or decrypted by the
 *	CPU
 * @sealed: the allocation's system pages hold its content encrypted
 *	(&wddmseg_bo.sealed when the move started)
 * @crypt: 0, %WDDMSEG_CRYPT_ENCRYPT (HardwareProtected content out of VRAM
 *	into system pages) or %WDDMSEG_CRYPT_DECRYPT (sealed content back);
 *	resolved for @copier %WDDMSEG_COPY_ENGINE only, which alone seals
 * @nonce: the nonce of @crypt: a fresh one to encrypt, the allocation's
 *	&wddmseg_bo.seal_nonce to decrypt
 * @copier: who moves the content, decided once, at the start
 * @why: why @copier, for the reader and a debugger: "no engine",
 *	"small and idle" (policy fixed: the knob cpu_move_max_kb), "CPU
 *	cheaper" (policy adaptive), "engine"; set to
 *	"engine stopped" when the engine stops between the decision and the
 *	job and the move falls back to the CPU, the one change of @copier
 * @measure: a Transfer either way could copy: its time feeds the
 *	adaptive choice's estimate of @cost_path (DOC: Copy cost model)
 * @cost_path: the estimator's path of the move, with @measure
 * @start: ktime_get() when the copy started, with @measure
 * @idle: the allocation was found idle when @copier was chosen, under
 *	the reservation: the CPU need not wait for it again
 */
struct wddmseg_move {
	struct ttm_buffer_object *tbo;
	struct wddmseg_bo *bo;
	struct ttm_tt *ttm;
	struct wddmseg_move_end src;
	struct wddmseg_move_end dst;
	bool evict;
	bool discard;
	bool permanent;
	bool placement_only;
	bool clear;
	bool skip_fill;
	bool user_pages;
	bool sync;
	bool hw_protected;
	bool sealed;
	u32 crypt;
	u64 nonce;
	enum wddmseg_copier copier;
	const char *why;
	bool measure;
	enum wddmseg_copy_path cost_path;
	ktime_t start;
	bool idle;
};

/**
 * struct wddmseg_move_request - what a caller of ttm_bo_validate() asks
 *	of the move it causes (wddmseg_bo_validate_as())
 * @ctx: the operation context passed to ttm_bo_validate(): the move
 *	callback honours the request only for a move of the requesting
 *	allocation under this context
 * @evict: count the move as an eviction (GEM_EVICT, power management,
 *	the PermanentSysMem vmap, a pin for another device)
 * @discard: drop the content of a memory segment rather than copy it out
 *	(GEM_EVICT with WDDMSEG_EVICT_DISCARD)
 */
struct wddmseg_move_request {
	const struct ttm_operation_ctx *ctx;
	bool evict;
	bool discard;
};

void wddmseg_move_end_init(struct wddmseg_device *wdev,
			   struct ttm_resource *res,
			   struct wddmseg_move_end *end);
bool wddmseg_migrate_uses_engine(struct wddmseg_device *wdev);
int wddmseg_migrate_move(struct wddmseg_device *wdev,
			 const struct wddmseg_move *mv,
			 struct dma_fence **fence);
struct dma_fence *wddmseg_migrate_discard(struct wddmseg_device *wdev,
					  const struct wddmseg_move_end *src);
struct dma_fence *wddmseg_migrate_clear(struct wddmseg_device *wdev,
					struct wddmseg_mgr *mgr,
					struct ttm_resource *res,
					const char *what);
struct dma_fence *wddmseg_migrate_clear_segment(struct wddmseg_device *wdev,
						struct wddmseg_mgr *mgr);
int wddmseg_migrate_access(struct wddmseg_device *wdev,
			   struct ttm_buffer_object *tbo,
			   struct wddmseg_mgr *mgr, u64 gpu_addr, void *buf,
			   int len, bool write);
struct dma_fence *wddmseg_migrate_blit(struct wddmseg_device *wdev,
				       const struct drm_wddmseg_submit_blit *a,
				       struct drm_gem_object *src,
				       struct drm_gem_object *dst);
struct dma_fence *wddmseg_migrate_flush_aperture(struct wddmseg_device *wdev,
						 struct ttm_buffer_object *tbo);
struct dma_fence *wddmseg_migrate_perm_sync(struct wddmseg_device *wdev,
					    struct ttm_buffer_object *tbo,
					    const dma_addr_t *dma_address,
					    u64 off, u64 len, bool to_vram);
int wddmseg_migrate_cpu_copy(struct wddmseg_device *wdev,
			     const struct wddmseg_move *mv,
			     struct ttm_operation_ctx *ctx);

#endif /* WDDMSEG_MIGRATE_H */
