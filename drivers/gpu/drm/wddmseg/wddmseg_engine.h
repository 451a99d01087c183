/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the copy engine: ring, fences, recovery (wddmseg_engine.c).
 */
#ifndef WDDMSEG_ENGINE_H
#define WDDMSEG_ENGINE_H

#include <linux/sizes.h>
#include <linux/types.h>

/* The command ring (the paging buffer) and the page-list arena. */
#define WDDMSEG_RING_BYTES	SZ_256K
#define WDDMSEG_ARENA_BYTES	SZ_1M

struct dma_fence;
struct wddmseg_device;
struct wddmseg_engine;

/**
 * struct wddmseg_job - room reserved in the ring and the arena
 * @ring_start: ring offset of the first command
 * @ring_pos: where the next command goes
 * @ring_limit: end of the reserved commands (the FENCE goes after)
 * @arena: CPU address of the reserved page-list bytes
 * @arena_dma: their DMA address
 * @zero_segment: for a job that zeroes VRAM (wipe, clear, discard), its
 *	segment; 0 otherwise
 * @zero_addr: byte offset of the zeroed range in @zero_segment
 * @zero_len: its length in bytes
 * @gpu_va: the job addresses memory by GPU virtual address (a blit of
 *	WDDMSEG_BLIT_VIRTUAL): a GPU page fault in it is the submitter's,
 *	and fails this job alone with -EFAULT
 *
 * VRAM a zeroing job was queued for counts as zero from then on (a new
 * placement there skips its Fill): if the engine fails the job, the CPU
 * zeroes the range before the job's fence signals
 * (wddmseg_engine_fail_pending()).
 */
struct wddmseg_job {
	u32 ring_start;
	u32 ring_pos;
	u32 ring_limit;
	u8 *arena;
	dma_addr_t arena_dma;
	u32 zero_segment;
	u64 zero_addr;
	u64 zero_len;
	bool gpu_va;
};

int wddmseg_engine_init(struct wddmseg_device *wdev, struct wddmseg_engine *eng);
void wddmseg_engine_fini(struct wddmseg_engine *eng);
int wddmseg_engine_reserve(struct wddmseg_engine *eng, u32 qwords,
			   u32 arena_bytes, struct wddmseg_job *job);
void wddmseg_engine_emit(struct wddmseg_engine *eng, struct wddmseg_job *job,
			 const u64 *cmd, u32 qwords);
struct dma_fence *wddmseg_engine_commit(struct wddmseg_engine *eng,
					struct wddmseg_job *job);
bool wddmseg_engine_idle(struct wddmseg_engine *eng, unsigned long timeout);
int wddmseg_engine_suspend(struct wddmseg_engine *eng);
int wddmseg_engine_resume(struct wddmseg_engine *eng);
void wddmseg_engine_inject(struct wddmseg_engine *eng, u32 what, bool again);

#endif /* WDDMSEG_ENGINE_H */
