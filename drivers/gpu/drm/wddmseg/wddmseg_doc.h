/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the concepts, as DOC: blocks pulled into
 * Documentation/gpu/wddmseg.rst, so that prose and code cannot drift.
 * This header declares nothing.
 */
#ifndef WDDMSEG_DOC_H
#define WDDMSEG_DOC_H

/**
 * DOC: Overview
 *
 * The driver reads the device's WDDM segment table (``wddmseg_desc.c``),
 * refuses a table that breaks a WDDM rule, and turns each segment into a
 * TTM memory type with its own resource manager (``wddmseg_mgr.c``,
 * ``wddmseg_ttm.c``). Allocations are GEM objects backed by TTM buffer
 * objects (``wddmseg_bo.c``: creation, placement, pinning), placed by WDDM
 * allocation flags and segment sets (``wddmseg_alloc_rules.c`` checks a
 * request first); ``wddmseg_bo_residency.c`` accounts their placement
 * changes against the budget and reports them, ``wddmseg_bo_cpu.c`` serves
 * CPU access (faults, mmap, vmap), ``wddmseg_gem_ioctl.c`` the GEM ioctls,
 * ``wddmseg_file.c`` the per-file state and ``wddmseg_prime.c`` dma-buf
 * export and import. Content moves
 * as WDDM paging operations (``wddmseg_paging.c`` encodes them) on the
 * device's copy engine (``wddmseg_engine.c``: ring, fences, recovery),
 * and ``wddmseg_migrate.c`` is the one way into it, with the CPU fallback
 * (``wddmseg_vram.c``) behind the same calls. ``wddmseg_parked.c`` parks
 * the system pages of allocations in VRAM for their next eviction (and
 * the permanent copy of PermanentSysMem allocations),
 * ``wddmseg_protect.c`` decides where protected content may go,
 * ``wddmseg_blit.c`` serves SUBMIT_BLIT, ``wddmseg_query.c`` the query
 * ioctls and ``wddmseg_kms.c`` the display (its planes in
 * ``wddmseg_kms_plane.c``, its CRTC in ``wddmseg_kms_crtc.c``).
 * ``wddmseg_irq.c`` requests the device's interrupt and hands its causes
 * to the engine and the display. ``wddmseg_params.c`` holds
 * every module parameter.
 */

/**
 * DOC: Life of an allocation
 *
 * From DRM_IOCTL_WDDMSEG_GEM_CREATE to the interrupt that signals the
 * fence of its first move, function by function:
 *
 * 1. wddmseg_ioctl_gem_create() (``wddmseg_gem_ioctl.c``) checks the
 *    request with wddmseg_alloc_validate() (``wddmseg_alloc_rules.c``:
 *    every rule has a name, logged with drm_dbg).
 * 2. wddmseg_bo_create() makes the GEM object and the TTM buffer object in
 *    system memory (ttm_bo_init_reserved(), no content yet), then
 *    wddmseg_bo_placement() turns the preferred and supported segments into
 *    a ttm_placement and wddmseg_bo_validate() calls ttm_bo_validate().
 * 3. TTM asks the segment's manager for room (wddmseg_mgr_alloc() in
 *    ``wddmseg_mgr.c``, a drm_mm under CommitLimit), evicting least
 *    recently used allocations through wddmseg_evict_flags() and
 *    wddmseg_eviction_valuable() if needed, and calls the move callback.
 * 4. wddmseg_bo_move() (``wddmseg_ttm.c``) resolves the move once into a
 *    struct wddmseg_move (wddmseg_move_resolve(): source and destination
 *    segment and kind, eviction or discard, whether the source is known
 *    zero and the destination too, protection, and who copies, engine or
 *    CPU, with the reason). wddmseg_bo_move_engine() takes it, asks
 *    wddmseg_move_crypt() whether the content must travel encrypted,
 *    populates the ttm_tt, and passes the description to
 *    wddmseg_migrate_move() (``wddmseg_migrate.c``).
 * 5. wddmseg_migrate_move() takes the engine lock, reserves ring and arena
 *    space (wddmseg_engine_reserve()), describes system pages as page lists
 *    in the arena (WDDM's MDLs), encodes Fill (content that never existed),
 *    Transfer, TRANSFER_ENCRYPTED, MapApertureSegment or
 *    UnmapApertureSegment (wddmseg_encode_*() in ``wddmseg_paging.c``),
 *    copies them into the ring (wddmseg_engine_emit()) and ends the job
 *    with a FENCE command in wddmseg_engine_commit(), which writes the new
 *    tail to RING_TAIL: the doorbell.
 * 6. The device (``tools/qemu/``) runs the commands in a thread of its
 *    own, off the vCPU, writes the job's seqno to the writeback slot and
 *    raises IRQ_FENCE.
 * 7. Back in the move callback, TTM gets the job's fence
 *    (ttm_bo_move_accel_cleanup(), or wddmseg_bo_cleanup_from_pages() for
 *    moves out of pages) and the ioctl returns: the move is pipelined.
 * 8. The interrupt handler (``wddmseg_irq.c``) reads IRQ_STATUS and hands
 *    it to wddmseg_engine_irq(), whose wddmseg_engine_retire() signals
 *    every fence whose seqno the writeback has reached, freeing
 *    their ring and arena space.
 * 9. Waiters (GEM_WAIT's dma_resv_wait_timeout(), TTM's ttm_bo_wait_ctx(),
 *    a CPU fault) wake up, after polling the writeback for a moment in
 *    wddmseg_fence_wait(). A job that hangs or faults is the watchdog's:
 *    wddmseg_engine_recover() resets the engine and replays it once.
 */

/**
 * DOC: Locking
 *
 * Every lock, what it protects, and the order they nest in (outermost
 * first). Leaves take no other lock of the driver.
 *
 * ============================= ======================================
 * lock                          protects
 * ============================= ======================================
 * &wddmseg_pm.lock              the phases of a suspend or resume
 *                               (system or runtime) and their records;
 *                               outermost: taken by the PM callbacks
 *                               and the PM notifier, which reserve and
 *                               move allocations under it. A CPU fault
 *                               (under mmap_lock) and an atomic commit
 *                               (under the modeset locks) may take it
 *                               by resuming the device in
 *                               wddmseg_pm_get(), before any
 *                               reservation
 * allocation reservation        the allocation's placement, ttm_tt,
 * (dma_resv)                    @sealed, @parked pointer changes by the
 *                               move; several are taken with a ww
 *                               ticket (blits); under &wddmseg_pm.lock
 *                               or none
 * &wddmseg_device.access_lock   the ReadPhysical/WritePhysical bounce
 *                               buffer and @access_fence; under a
 *                               reservation, before the engine lock
 * &wddmseg_engine.lock          submissions (reserve, emit, commit)
 *                               and recovery; taken only in
 *                               ``wddmseg_engine.c`` and
 *                               ``wddmseg_migrate.c``, under a
 *                               reservation or none (the watchdog)
 * &wddmseg_engine.fence_lock    the pending list, the ring's and the
 *                               arena's free offsets, fence signalling;
 *                               irqsave (the interrupt handler); takes
 *                               only &wddmseg_device.irq_lock (FENCE
 *                               masked and unmasked)
 * &wddmseg_device.window_lock   the BAR4 window and its base; leaf
 * &wddmseg_device.apt_lock      select-then-access register sequences
 *                               (APT, PEEK); leaf
 * &wddmseg_device.parked_lock   the parked-pages list and count, every
 *                               allocation's @parked; leaf (the shrinker
 *                               takes it without a reservation)
 * &wddmseg_mgr.lock             a segment's drm_mm and committed
 *                               pages; leaf
 * &wddmseg_device.irq_lock      IRQ_MASK and the interrupt's handlers
 *                               (``wddmseg_irq.c``); leaf, irqsave
 * &wddmseg_kms.lock             the pending flip event and the COMMIT
 *                               write; leaf, irqsave
 * drm_device.event_lock         residency and flip events; leaf,
 *                               irqsave
 * ============================= ======================================
 *
 * So: pm.lock -> reservation -> access_lock -> engine lock -> fence_lock
 * -> irq_lock, and reservation -> window_lock / apt_lock / parked_lock / a
 * manager's lock; mmap_lock or the modeset locks -> pm.lock. Functions
 * whose comment says the caller holds a lock assert it with
 * lockdep_assert_held() or dma_resv_assert_held(); wddmseg_pm_get(),
 * which may resume the device, tells lockdep with might_lock() that it
 * may take &wddmseg_pm.lock even when the device is awake.
 */

#endif /* WDDMSEG_DOC_H */
