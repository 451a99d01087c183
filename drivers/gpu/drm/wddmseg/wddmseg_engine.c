// SPDX-License-Identifier: GPL-2.0-only
/*
 * The copy engine: WDDM's paging node as a ring of commands.
 *
 * A submission reserves room in the ring (commands) and in the page-list
 * arena (MDLs the commands point at), copies its commands in, and ends
 * with a FENCE that writes its seqno to a writeback slot and interrupts.
 * Both the ring and the arena are consumed in submission order, so each
 * fence records where its job ends in both; when it signals, that space is
 * free again. All fences share one context: the paging engine is one
 * timeline, which is what TTM's pipelined eviction expects.
 *
 * A watchdog notices a fence older than the timeout or a faulted engine,
 * resets the engine and replays the jobs that had not completed, once; a
 * job that fails again is signalled with -EIO. A GPU page fault in a job
 * that addresses memory by GPU virtual address is that job's own: it
 * alone is signalled with -EFAULT, and the jobs behind it run as if
 * nothing happened (they were not run yet, so this is not their replay).
 */

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_print.h>

#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_engine.h"
#include "wddmseg_irq.h"
#include "wddmseg_mgr.h"
#include "wddmseg_paging.h"
#include "wddmseg_params.h"
#include "wddmseg_vram.h"
#include "wddmseg_hw.h"
#include "wddmseg_trace.h"
#include "wddmseg_wrap.h"

/* The causes of the device's interrupt that are the engine's. */
#define WDDMSEG_ENGINE_IRQS	(WDDMSEG_IRQ_FENCE | WDDMSEG_IRQ_ERROR)

/**
 * struct wddmseg_fence - completion of one engine job
 * @base: the dma_fence
 * @eng: the engine that signals it
 * @link: in &wddmseg_engine.pending, submission order
 * @ring_start: ring offset of the job's first command
 * @ring_end: ring offset just past its FENCE
 * @arena_end: arena offset just past its page lists
 * @deadline: jiffies after which the job counts as hung
 * @replayed: the job was already replayed after a reset
 * @gpu_va: &wddmseg_job.gpu_va
 * @zero_segment: &wddmseg_job.zero_segment
 * @zero_addr: &wddmseg_job.zero_addr
 * @zero_len: &wddmseg_job.zero_len
 */
struct wddmseg_fence {
	struct dma_fence base;
	struct wddmseg_engine *eng;
	struct list_head link;
	u32 ring_start;
	u32 ring_end;
	u32 arena_end;
	unsigned long deadline;
	bool replayed;
	bool gpu_va;
	u32 zero_segment;
	u64 zero_addr;
	u64 zero_len;
};

static const char *wddmseg_fence_driver_name(struct dma_fence *f)
{
	return WDDMSEG_DRIVER_NAME;
}

static const char *wddmseg_fence_timeline_name(struct dma_fence *f)
{
	return "paging";
}

static u64 wddmseg_engine_done_seqno(struct wddmseg_engine *eng)
{
	u64 done = le64_to_cpu(READ_ONCE(*eng->writeback));

	dma_rmb();
	return done;
}

/*
 * The FENCE command wrote the seqno (the interrupt may still be on its
 * way). Only asked while the fence is unsignalled, so while the engine,
 * which signals every fence before it goes away, still has its writeback.
 */
static bool wddmseg_fence_signaled(struct dma_fence *f)
{
	struct wddmseg_engine *eng = container_of(f, struct wddmseg_fence, base)->eng;

	return wddmseg_engine_done_seqno(eng) >= f->seqno;
}

/*
 * Poll the writeback for up to the knob fence_spin_us before sleeping until the
 * interrupt: most paging jobs (a 1 MiB move) finish within that, and a
 * sleeping waiter pays for the interrupt, the wakeup and, on an idle
 * (virtual) CPU, its way out of HLT, which under TCG can cost more than
 * the copy. A wait with no time at all only looks; polling never outlasts
 * the caller's timeout.
 *
 * The deadline is local_clock() (the TSC), not ktime_get(): the guest's
 * clocksource may be the HPET, and every read of it is an MMIO exit that
 * takes QEMU's global lock, which the device model needs to run the very
 * copy being waited for.
 *
 * dma-fence.h deprecates .wait for new code. It stays here because the
 * waits that matter are not ours to change: TTM's (ttm_bo_wait_ctx() in
 * the move and fault paths, dma_resv_wait_timeout()) reach the fence only
 * through dma_fence_wait_timeout(), so a spin in our own callers would
 * miss them; and because of what it buys, which ``make bench`` measures
 * in every run (wddmseg-bench's "dma_fence wait" notes: 64 KiB and 1 MiB
 * moves with fence_spin_us as loaded against 0, i.e. this against the
 * default wait; on a quiet host, 6.12, two runs: 1.13 and 1.15 times the
 * default wait's throughput at 64 KiB, 1.75 and 1.78 at 1 MiB). It keeps
 * .wait's contract: the same
 * return values as dma_fence_default_wait(), which it ends in, never
 * longer than the timeout, interruptible when asked; and waits on several
 * fences (dma_fence_wait_any_timeout()), which bypass .wait, still work
 * through .signaled and the interrupt.
 */
static signed long wddmseg_fence_wait(struct dma_fence *f, bool intr,
				      signed long timeout)
{
	struct wddmseg_engine *eng = container_of(f, struct wddmseg_fence, base)->eng;
	u64 spin_ns = (u64)READ_ONCE(eng->wdev->knobs.fence_spin_us) *
		      NSEC_PER_USEC, end;
	unsigned long start = jiffies, spent;

	if (!timeout || !spin_ns)
		return dma_fence_default_wait(f, intr, timeout);
	if (timeout != MAX_SCHEDULE_TIMEOUT)
		spin_ns = min_t(u64, spin_ns, jiffies_to_nsecs(timeout));
	end = local_clock() + spin_ns;
	do {
		if (dma_fence_is_signaled(f))
			return timeout;
		if (need_resched() || (intr && signal_pending(current)))
			break;
		cpu_relax();
	} while (local_clock() < end);

	/* The caller's timeout includes the polling. */
	if (timeout != MAX_SCHEDULE_TIMEOUT) {
		spent = jiffies - start;
		timeout = spent < timeout ? timeout - spent : 0;
	}
	return dma_fence_default_wait(f, intr, timeout);
}

/*
 * The FENCE interrupt is unmasked only while somebody needs it: a fence
 * with signalling enabled (a callback, a sleeping waiter) or a submitter
 * sleeping until the ring has room. Everyone else polls the writeback
 * (wddmseg_fence_wait(), retire on submission and in the watchdog), and
 * under TCG the interrupt of every job (the MSI-X message, the handler's
 * two MMIO exits, the vCPU it interrupts) cost as much as a 1 MiB copy.
 * The device latches FENCE in IRQ_STATUS while it is masked and sends the
 * message when it is unmasked, so a job that ended just before is not
 * missed. Called with fence_lock held.
 */
static void wddmseg_engine_want_irq(struct wddmseg_engine *eng)
{
	lockdep_assert_held(&eng->fence_lock);
	if (eng->fence_irq)
		return;
	eng->fence_irq = true;
	wddmseg_irq_mask_update(eng->wdev, 0, WDDMSEG_IRQ_FENCE);
}

/* Mask FENCE again once nobody waits for it; fence_lock held. */
static void wddmseg_engine_drop_irq(struct wddmseg_engine *eng)
{
	struct wddmseg_fence *f;

	lockdep_assert_held(&eng->fence_lock);
	if (!eng->fence_irq || eng->irq_waiters)
		return;
	list_for_each_entry(f, &eng->pending, link)
		if (test_bit(DMA_FENCE_FLAG_ENABLE_SIGNAL_BIT, &f->base.flags))
			return;
	eng->fence_irq = false;
	wddmseg_irq_mask_update(eng->wdev, WDDMSEG_IRQ_FENCE, 0);
}

/*
 * Somebody needs @f to signal by itself: unmask FENCE, then look at the
 * writeback again (false: done already, the core signals it now).
 */
static bool wddmseg_fence_enable_signaling(struct dma_fence *f)
{
	struct wddmseg_engine *eng = container_of(f, struct wddmseg_fence, base)->eng;

	wddmseg_engine_want_irq(eng);
	return wddmseg_engine_done_seqno(eng) < f->seqno;
}

static const struct dma_fence_ops wddmseg_fence_ops = {
	.get_driver_name = wddmseg_fence_driver_name,
	.get_timeline_name = wddmseg_fence_timeline_name,
	.enable_signaling = wddmseg_fence_enable_signaling,
	.signaled = wddmseg_fence_signaled,
	.wait = wddmseg_fence_wait,
};

/* Around a sleep on space_wq, which only the interrupt (or retire) wakes. */
static void wddmseg_engine_irq_waiter(struct wddmseg_engine *eng, bool add)
{
	unsigned long flags;

	spin_lock_irqsave(&eng->fence_lock, flags);
	if (add) {
		eng->irq_waiters++;
		wddmseg_engine_want_irq(eng);
	} else {
		eng->irq_waiters--;
		wddmseg_engine_drop_irq(eng);
	}
	spin_unlock_irqrestore(&eng->fence_lock, flags);
}

/*
 * Runtime PM: while jobs are in flight the engine holds a reference on the
 * device, taken by the commit that makes @pending non-empty (the committer
 * holds one of its own, so the device is active) and dropped, with the
 * autosuspend timer restarted, when the last job signals. Under
 * @fence_lock; the put is asynchronous, safe in the interrupt handler.
 */
static void wddmseg_engine_pm_busy(struct wddmseg_engine *eng)
{
	lockdep_assert_held(&eng->fence_lock);
	if (eng->pm_busy)
		return;
	eng->pm_busy = true;
	pm_runtime_get_noresume(eng->wdev->drm.dev);
}

static void wddmseg_engine_pm_idle(struct wddmseg_engine *eng)
{
	struct device *dev = eng->wdev->drm.dev;

	lockdep_assert_held(&eng->fence_lock);
	if (!eng->pm_busy || !list_empty(&eng->pending))
		return;
	eng->pm_busy = false;
	pm_runtime_mark_last_busy(dev);
	pm_runtime_put_autosuspend(dev);
}

/* Signal finished fences and free their ring and arena space. */
static void wddmseg_engine_retire(struct wddmseg_engine *eng)
{
	struct wddmseg_fence *f, *tmp;
	unsigned long flags;
	u64 done = wddmseg_engine_done_seqno(eng);
	bool progress = false;

	spin_lock_irqsave(&eng->fence_lock, flags);
	list_for_each_entry_safe(f, tmp, &eng->pending, link) {
		if (f->base.seqno > done)
			break;
		eng->ring_free = f->ring_end;
		eng->arena_free = f->arena_end;
		list_del(&f->link);
		trace_wddmseg_fence_signal(f->base.seqno, 0);
		dma_fence_signal_locked(&f->base);
		dma_fence_put(&f->base);
		progress = true;
	}
	wddmseg_engine_drop_irq(eng);
	wddmseg_engine_pm_idle(eng);
	spin_unlock_irqrestore(&eng->fence_lock, flags);

	if (progress)
		wake_up_all(&eng->space_wq);
}

/* The engine's share of the device's interrupt (wddmseg_irq.c). */
static void wddmseg_engine_irq(struct wddmseg_device *wdev, u32 status)
{
	struct wddmseg_engine *eng = &wdev->engine;

	wddmseg_engine_retire(eng);
	if (status & WDDMSEG_IRQ_ERROR)
		mod_delayed_work(WDDMSEG_PERCPU_WQ, &eng->watchdog, 0);
}

static void wddmseg_engine_hw_start(struct wddmseg_engine *eng)
{
	writel(lower_32_bits(eng->ring_dma), eng->mmio + WDDMSEG_REG_RING_BASE_LO);
	writel(upper_32_bits(eng->ring_dma), eng->mmio + WDDMSEG_REG_RING_BASE_HI);
	writel(WDDMSEG_RING_BYTES, eng->mmio + WDDMSEG_REG_RING_SIZE);
	wddmseg_irq_mask_update(eng->wdev, 0, WDDMSEG_IRQ_ERROR |
				(READ_ONCE(eng->fence_irq) ?
				 WDDMSEG_IRQ_FENCE : 0));
	writel(WDDMSEG_RING_CTRL_ENABLE, eng->mmio + WDDMSEG_REG_RING_CTRL);
}

/*
 * Both the ring and the arena are wddmseg_wrap.h buffers: their tails
 * stay below their sizes, a piece that does not fit before the end goes
 * to the start.
 */
static bool wddmseg_ring_fits(struct wddmseg_engine *eng, u32 bytes)
{
	return wddmseg_wrap_fits(WDDMSEG_RING_BYTES, eng->ring_tail,
				 eng->ring_free, bytes);
}

static bool wddmseg_arena_fits(struct wddmseg_engine *eng, u32 bytes)
{
	if (!bytes)
		return true;
	/* An empty arena may restart anywhere. */
	if (list_empty(&eng->pending))
		return true;
	return wddmseg_wrap_fits(WDDMSEG_ARENA_BYTES, eng->arena_tail,
				 eng->arena_free, bytes);
}

static bool wddmseg_engine_has_room(struct wddmseg_engine *eng, u32 ring_bytes,
				    u32 arena_bytes)
{
	bool ok;
	unsigned long flags;

	wddmseg_engine_retire(eng);
	spin_lock_irqsave(&eng->fence_lock, flags);
	ok = wddmseg_ring_fits(eng, ring_bytes) &&
	     wddmseg_arena_fits(eng, arena_bytes);
	spin_unlock_irqrestore(&eng->fence_lock, flags);
	return ok;
}

static void wddmseg_engine_recover(struct wddmseg_engine *eng,
				   const char *why);

/**
 * wddmseg_engine_reserve - make room for a job
 * @eng: engine, whose lock the caller holds
 * @qwords: command words, not counting the FENCE added at commit
 * @arena_bytes: bytes of page lists
 * @job: filled in
 *
 * Waits for older jobs to complete if needed, recovering a hung engine.
 *
 * Return: 0, or -EINVAL if the job can never fit.
 */
int wddmseg_engine_reserve(struct wddmseg_engine *eng, u32 qwords,
			   u32 arena_bytes, struct wddmseg_job *job)
{
	u32 ring_bytes = (qwords + WDDMSEG_FENCE_QWORDS) * 8;
	unsigned long flags;
	u32 pad, arena_start;

	lockdep_assert_held(&eng->lock);
	arena_bytes = ALIGN(arena_bytes, 8);
	if (ring_bytes > WDDMSEG_RING_BYTES / 2 ||
	    arena_bytes > WDDMSEG_ARENA_BYTES / 2)
		return -EINVAL;

	while (!wddmseg_engine_has_room(eng, ring_bytes, arena_bytes)) {
		long left;

		wddmseg_engine_irq_waiter(eng, true);
		left = wait_event_timeout(eng->space_wq,
					  wddmseg_engine_has_room(eng, ring_bytes,
								  arena_bytes),
					  msecs_to_jiffies(wddmseg_fence_timeout_ms));
		wddmseg_engine_irq_waiter(eng, false);
		if (!left)
			wddmseg_engine_recover(eng, "ring full, no progress");
	}

	spin_lock_irqsave(&eng->fence_lock, flags);
	if (list_empty(&eng->pending)) {
		eng->arena_free = 0;
		eng->arena_tail = 0;
	}
	spin_unlock_irqrestore(&eng->fence_lock, flags);

	/* Pad the ring end with a NOP so the job is contiguous. */
	pad = wddmseg_wrap_pad(WDDMSEG_RING_BYTES, eng->ring_tail, ring_bytes);
	if (pad) {
		u64 nop = WDDMSEG_CMD_HDR(WDDMSEG_OP_NOP, pad / 8);

		eng->ring[eng->ring_tail / 8] = cpu_to_le64(nop);
	}
	eng->ring_tail = wddmseg_wrap_start(WDDMSEG_RING_BYTES, eng->ring_tail,
					    ring_bytes);
	arena_start = wddmseg_wrap_start(WDDMSEG_ARENA_BYTES, eng->arena_tail,
					 arena_bytes);

	job->zero_segment = 0;
	job->zero_addr = 0;
	job->zero_len = 0;
	job->gpu_va = false;
	job->ring_start = eng->ring_tail;
	job->ring_pos = eng->ring_tail;
	job->ring_limit = eng->ring_tail + ring_bytes - WDDMSEG_FENCE_QWORDS * 8;
	job->arena = eng->arena + arena_start;
	job->arena_dma = eng->arena_dma + arena_start;
	eng->arena_tail = wddmseg_wrap_end(WDDMSEG_ARENA_BYTES, arena_start,
					   arena_bytes);
	return 0;
}

/**
 * wddmseg_engine_emit - copy commands into a reserved job
 * @eng: engine, whose lock the caller holds
 * @job: from wddmseg_engine_reserve()
 * @cmd: words in CPU order
 * @qwords: how many
 */
void wddmseg_engine_emit(struct wddmseg_engine *eng, struct wddmseg_job *job,
			 const u64 *cmd, u32 qwords)
{
	u32 i;

	lockdep_assert_held(&eng->lock);
	if (WARN_ON(job->ring_pos + qwords * 8 > job->ring_limit))
		return;
	for (i = 0; i < qwords; i++)
		eng->ring[job->ring_pos / 8 + i] = cpu_to_le64(cmd[i]);
	job->ring_pos += qwords * 8;
}

static void wddmseg_engine_doorbell(struct wddmseg_engine *eng)
{
	/* Commands and page lists must be visible before the device looks. */
	wmb();
	writel(eng->ring_tail, eng->mmio + WDDMSEG_REG_RING_TAIL);
}

/**
 * wddmseg_engine_commit - end a job with a FENCE and start it
 * @eng: engine, whose lock the caller holds
 * @job: filled with commands
 *
 * Return: the job's fence (a reference for the caller), or an ERR_PTR.
 */
struct dma_fence *wddmseg_engine_commit(struct wddmseg_engine *eng,
					struct wddmseg_job *job)
{
	struct wddmseg_fence *f;
	unsigned long flags;
	u64 cmd[WDDMSEG_FENCE_QWORDS];

	lockdep_assert_held(&eng->lock);
	f = kzalloc_obj(*f, GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOMEM);

	f->eng = eng;
	dma_fence_init(&f->base, &wddmseg_fence_ops, &eng->fence_lock,
		       eng->fence_context, ++eng->seqno);
	wddmseg_encode_fence(cmd, eng->seqno, eng->writeback_dma,
			     WDDMSEG_FENCE_IRQ);
	job->ring_limit += WDDMSEG_FENCE_QWORDS * 8;
	wddmseg_engine_emit(eng, job, cmd, WDDMSEG_FENCE_QWORDS);

	f->ring_start = job->ring_start;
	f->ring_end = wddmseg_wrap_end(WDDMSEG_RING_BYTES, job->ring_pos, 0);
	f->arena_end = eng->arena_tail;
	f->deadline = jiffies + msecs_to_jiffies(wddmseg_fence_timeout_ms);
	f->zero_segment = job->zero_segment;
	f->zero_addr = job->zero_addr;
	f->zero_len = job->zero_len;
	f->gpu_va = job->gpu_va;

	spin_lock_irqsave(&eng->fence_lock, flags);
	dma_fence_get(&f->base);
	wddmseg_engine_pm_busy(eng);
	list_add_tail(&f->link, &eng->pending);
	eng->ring_tail = f->ring_end;
	spin_unlock_irqrestore(&eng->fence_lock, flags);

	wddmseg_engine_doorbell(eng);
	/* An armed watchdog is due no later than this job's deadline. */
	queue_delayed_work(WDDMSEG_PERCPU_WQ, &eng->watchdog,
			   msecs_to_jiffies(wddmseg_fence_timeout_ms));
	return &f->base;
}

/*
 * Zero what a failed zeroing job was to zero, with the CPU (BAR2 or the
 * BAR4 window), a page at a time.
 */
static void wddmseg_engine_cpu_zero(struct wddmseg_engine *eng,
				    const struct wddmseg_fence *f)
{
	struct wddmseg_device *wdev = eng->wdev;
	const struct wddmseg_segment_desc *seg =
		&wdev->desc.seg[f->zero_segment - 1];
	bool visible = seg->flags & DXGK_SEGFLAG_CPU_VISIBLE;
	void *zero = kzalloc(PAGE_SIZE, GFP_KERNEL);
	u64 off;

	if (!zero)
		return;
	for (off = 0; off < f->zero_len; off += PAGE_SIZE)
		wddmseg_vram_io(wdev, visible, seg->base_address + f->zero_addr + off, zero,
				min_t(u64, PAGE_SIZE, f->zero_len - off), true);
	kfree(zero);
}

/*
 * Fail every pending job: the engine cannot run them. With @cpu_zero, a
 * job that zeroes VRAM is done by the CPU instead and signals without an
 * error: allocations placed on that range since count on its zeroes.
 */
static void wddmseg_engine_fail_pending(struct wddmseg_engine *eng, int error,
					bool cpu_zero)
{
	struct wddmseg_fence *f, *tmp;
	unsigned long flags;
	LIST_HEAD(failed);

	spin_lock_irqsave(&eng->fence_lock, flags);
	list_splice_init(&eng->pending, &failed);
	eng->ring_free = 0;
	eng->ring_tail = 0;
	eng->arena_free = 0;
	eng->arena_tail = 0;
	wddmseg_engine_pm_idle(eng);
	spin_unlock_irqrestore(&eng->fence_lock, flags);

	list_for_each_entry_safe(f, tmp, &failed, link) {
		int err = error;

		list_del(&f->link);
		if (cpu_zero && f->zero_len) {
			wddmseg_engine_cpu_zero(eng, f);
			trace_wddmseg_paging_op("cpu fill", 0, f->zero_segment,
						f->zero_len, f->base.seqno);
			err = 0;
		}
		trace_wddmseg_fence_signal(f->base.seqno, err);
		if (err)
			dma_fence_set_error(&f->base, err);
		dma_fence_signal(&f->base);
		dma_fence_put(&f->base);
	}
	wake_up_all(&eng->space_wq);
}

/* Whether ring offset @pos is inside the commands of job @f. */
static bool wddmseg_ring_in_job(const struct wddmseg_fence *f, u32 pos)
{
	u32 len = (f->ring_end - f->ring_start) & (WDDMSEG_RING_BYTES - 1);

	return ((pos - f->ring_start) & (WDDMSEG_RING_BYTES - 1)) < len;
}

/*
 * Reset the engine and replay the jobs that had not completed, from the
 * first one on, at the start of the ring. Their page lists stay where they
 * are in the arena. A job that already was replayed fails with -EIO.
 */
static void wddmseg_engine_recover(struct wddmseg_engine *eng, const char *why)
{
	struct drm_device *drm = &eng->wdev->drm;
	struct wddmseg_fence *f, *first, *gpu_fault = NULL;
	u32 code, head, start, len, shift, again;
	unsigned long flags;
	bool replay = true;
	u8 *copy;

	lockdep_assert_held(&eng->lock);
	/* A queued wipe may not have run: VRAM is no longer known zero. */
	wddmseg_mgr_forget_zeroed(eng->wdev);
	code = readl(eng->mmio + WDDMSEG_REG_FAULT_CODE);
	head = readl(eng->mmio + WDDMSEG_REG_FAULT_HEAD);
	writel(WDDMSEG_RING_CTRL_RESET, eng->mmio + WDDMSEG_REG_RING_CTRL);
	eng->resets++;
	/* The test hook applies to this reset's replay only. */
	again = eng->inject_again;
	eng->inject_again = 0;

	wddmseg_engine_retire(eng);

	spin_lock_irqsave(&eng->fence_lock, flags);
	first = list_first_entry_or_null(&eng->pending, struct wddmseg_fence,
					 link);
	/*
	 * A GPU page fault of a job by GPU virtual address: the jobs before
	 * it completed, so it is the first pending one; it fails alone.
	 */
	if (code == WDDMSEG_FAULT_MMU && first && first->gpu_va &&
	    wddmseg_ring_in_job(first, head)) {
		gpu_fault = first;
		list_del(&gpu_fault->link);
		eng->ring_free = gpu_fault->ring_end;
		first = list_first_entry_or_null(&eng->pending,
						 struct wddmseg_fence, link);
	}
	list_for_each_entry(f, &eng->pending, link)
		if (f->replayed && !gpu_fault)
			replay = false;
	spin_unlock_irqrestore(&eng->fence_lock, flags);

	if (gpu_fault) {
		drm_dbg(drm, "GPU page fault at VA 0x%llx (MMU_FAULT_INFO 0x%x) in blit %llu: -EFAULT\n",
			((u64)readl(eng->mmio + WDDMSEG_REG_MMU_FAULT_VA_HI) << 32) |
			readl(eng->mmio + WDDMSEG_REG_MMU_FAULT_VA_LO),
			readl(eng->mmio + WDDMSEG_REG_MMU_FAULT_INFO),
			gpu_fault->base.seqno);
		trace_wddmseg_fence_signal(gpu_fault->base.seqno, -EFAULT);
		dma_fence_set_error(&gpu_fault->base, -EFAULT);
		dma_fence_signal(&gpu_fault->base);
		dma_fence_put(&gpu_fault->base);
	}

	/* The submitter's own fault is no error of the driver's. */
	if (gpu_fault)
		drm_dbg(drm, "paging engine restarted after a GPU page fault: %s\n",
			first ? "running the jobs behind it" : "nothing behind it");
	else
		drm_err(drm, "paging engine reset (%s; fault code %u at 0x%x): %s\n",
			why, code, head,
			!first ? "nothing pending" :
			replay ? "replaying pending jobs" :
			"failing pending jobs");

	if (!first) {
		eng->ring_free = 0;
		eng->ring_tail = 0;
		wddmseg_engine_hw_start(eng);
		return;
	}
	if (!replay)
		goto fail;

	start = first->ring_start;
	len = (eng->ring_tail - start) & (WDDMSEG_RING_BYTES - 1);
	copy = kvmalloc(len, GFP_KERNEL);
	if (!copy)
		goto fail;
	if (start + len <= WDDMSEG_RING_BYTES) {
		memcpy(copy, (u8 *)eng->ring + start, len);
	} else {
		u32 part = WDDMSEG_RING_BYTES - start;

		memcpy(copy, (u8 *)eng->ring + start, part);
		memcpy(copy + part, eng->ring, len - part);
	}
	memcpy(eng->ring, copy, len);
	kvfree(copy);

	spin_lock_irqsave(&eng->fence_lock, flags);
	list_for_each_entry(f, &eng->pending, link) {
		shift = (f->ring_start - start) & (WDDMSEG_RING_BYTES - 1);
		f->ring_end = (shift + ((f->ring_end - f->ring_start) &
					(WDDMSEG_RING_BYTES - 1))) &
			      (WDDMSEG_RING_BYTES - 1);
		f->ring_start = shift;
		/* Behind a GPU page fault nothing of them ran yet. */
		if (!gpu_fault)
			f->replayed = true;
		f->deadline = jiffies + msecs_to_jiffies(wddmseg_fence_timeout_ms);
	}
	eng->ring_free = 0;
	eng->ring_tail = len;
	spin_unlock_irqrestore(&eng->fence_lock, flags);

	wddmseg_engine_hw_start(eng);
	if (again)
		writel(again, eng->mmio + WDDMSEG_REG_INJECT);
	wddmseg_engine_doorbell(eng);
	mod_delayed_work(WDDMSEG_PERCPU_WQ, &eng->watchdog,
			 msecs_to_jiffies(wddmseg_fence_timeout_ms));
	return;

fail:
	wddmseg_engine_fail_pending(eng, -EIO, true);
	wddmseg_engine_hw_start(eng);
}

static void wddmseg_engine_watchdog(struct work_struct *work)
{
	struct wddmseg_engine *eng =
		container_of(work, struct wddmseg_engine, watchdog.work);
	struct wddmseg_fence *oldest;
	unsigned long flags, due = 0;
	bool hung, faulted;

	wddmseg_engine_retire(eng);

	if (!mutex_trylock(&eng->lock)) {
		/* A submitter holds it; it recovers itself if it waits. */
		mod_delayed_work(WDDMSEG_PERCPU_WQ, &eng->watchdog, HZ / 10);
		return;
	}

	faulted = readl(eng->mmio + WDDMSEG_REG_RING_STATUS) &
		  WDDMSEG_RING_STATUS_FAULTED;
	spin_lock_irqsave(&eng->fence_lock, flags);
	oldest = list_first_entry_or_null(&eng->pending, struct wddmseg_fence,
					  link);
	hung = oldest && time_after(jiffies, oldest->deadline);
	if (oldest && !hung)
		due = oldest->deadline - jiffies + 1;
	spin_unlock_irqrestore(&eng->fence_lock, flags);

	if (faulted || hung)
		wddmseg_engine_recover(eng, faulted ? "engine fault" :
					    "fence timeout");
	else if (oldest)
		/* Next look: when the oldest job's time is up. */
		mod_delayed_work(WDDMSEG_PERCPU_WQ, &eng->watchdog, due);
	mutex_unlock(&eng->lock);
}

/**
 * wddmseg_engine_inject - make the device hang or fault, for tests
 * @eng: engine
 * @what: WDDMSEG_INJECT_HANG or WDDMSEG_INJECT_FAULT
 * @again: inject @what once more right after the next reset, so that the
 *	replayed jobs fail too (and are signalled with -EIO)
 */
void wddmseg_engine_inject(struct wddmseg_engine *eng, u32 what, bool again)
{
	mutex_lock(&eng->lock);
	eng->inject_again = again ? what : 0;
	mutex_unlock(&eng->lock);
	writel(what, eng->mmio + WDDMSEG_REG_INJECT);
}

/**
 * wddmseg_engine_idle - wait until every submitted job has completed
 * @eng: engine
 * @timeout: jiffies
 *
 * Return: true if idle.
 */
bool wddmseg_engine_idle(struct wddmseg_engine *eng, unsigned long timeout)
{
	long left;

	wddmseg_engine_irq_waiter(eng, true);
	left = wait_event_timeout(eng->space_wq,
				  (wddmseg_engine_retire(eng),
				   list_empty(&eng->pending)), timeout);
	wddmseg_engine_irq_waiter(eng, false);
	return left;
}

/**
 * wddmseg_engine_suspend - let the engine finish its work and stop it
 * @eng: engine
 *
 * Jobs in flight complete (a hung one is recovered and replayed once, as
 * the watchdog would); then the ring stops and moves fall back to the CPU
 * until wddmseg_engine_resume(). The device may lose its registers after
 * this.
 *
 * Return: 0, or -ETIMEDOUT when the engine did not go idle (it still
 * runs then: the suspend is refused).
 */
int wddmseg_engine_suspend(struct wddmseg_engine *eng)
{
	unsigned long timeout = msecs_to_jiffies(wddmseg_fence_timeout_ms);

	if (!eng->ready)
		return 0;
	mutex_lock(&eng->lock);
	if (!wddmseg_engine_idle(eng, timeout)) {
		wddmseg_engine_recover(eng, "suspend");
		if (!wddmseg_engine_idle(eng, timeout)) {
			mutex_unlock(&eng->lock);
			return -ETIMEDOUT;
		}
	}
	WRITE_ONCE(eng->ready, false);
	eng->suspended = true;
	mutex_unlock(&eng->lock);
	cancel_delayed_work_sync(&eng->watchdog);
	writel(WDDMSEG_RING_CTRL_RESET, eng->mmio + WDDMSEG_REG_RING_CTRL);
	return 0;
}

/**
 * wddmseg_engine_resume - program the ring again after a power loss
 * @eng: engine stopped by wddmseg_engine_suspend()
 *
 * The device came back with every register at its reset value: ring base
 * and size, the interrupt mask (the display's bits too) and the ring are
 * programmed again, empty; the seqno timeline goes on.
 *
 * Return: 0, or -EIO when the device refuses the ring (moves keep using
 * the CPU then).
 */
int wddmseg_engine_resume(struct wddmseg_engine *eng)
{
	unsigned long flags;

	if (!eng->suspended)
		return 0;
	mutex_lock(&eng->lock);
	spin_lock_irqsave(&eng->fence_lock, flags);
	WARN_ON(!list_empty(&eng->pending));
	eng->ring_free = 0;
	eng->ring_tail = 0;
	eng->arena_free = 0;
	eng->arena_tail = 0;
	spin_unlock_irqrestore(&eng->fence_lock, flags);

	writel(WDDMSEG_RING_CTRL_RESET, eng->mmio + WDDMSEG_REG_RING_CTRL);
	writel(~0u, eng->mmio + WDDMSEG_REG_IRQ_STATUS);
	wddmseg_engine_hw_start(eng);
	eng->suspended = false;
	if (!(readl(eng->mmio + WDDMSEG_REG_RING_STATUS) &
	      WDDMSEG_RING_STATUS_ENABLED)) {
		mutex_unlock(&eng->lock);
		drm_err(&eng->wdev->drm, "paging engine refused the ring after resume\n");
		return -EIO;
	}
	WRITE_ONCE(eng->ready, true);
	mutex_unlock(&eng->lock);
	return 0;
}

/**
 * wddmseg_engine_init - allocate the ring and start the engine
 * @wdev: device
 * @eng: engine to set up
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_engine_init(struct wddmseg_device *wdev, struct wddmseg_engine *eng)
{
	struct device *dev = wdev->drm.dev;
	int ret;

	eng->wdev = wdev;
	eng->mmio = wdev->mmio;
	mutex_init(&eng->lock);
	spin_lock_init(&eng->fence_lock);
	INIT_LIST_HEAD(&eng->pending);
	init_waitqueue_head(&eng->space_wq);
	INIT_DELAYED_WORK(&eng->watchdog, wddmseg_engine_watchdog);
	eng->fence_context = dma_fence_context_alloc(1);

	/* Completions and faults come by interrupt (wddmseg_irq_init()). */
	if (!wdev->irq_ready)
		return -ENODEV;

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	eng->ring = dma_alloc_coherent(dev, WDDMSEG_RING_BYTES, &eng->ring_dma,
				       GFP_KERNEL);
	eng->arena = dma_alloc_coherent(dev, WDDMSEG_ARENA_BYTES,
					&eng->arena_dma, GFP_KERNEL);
	eng->writeback = dma_alloc_coherent(dev, PAGE_SIZE, &eng->writeback_dma,
					    GFP_KERNEL);
	/*
	 * The dummy page outlives the engine (devres): aperture entries
	 * point at it after every unmap, by the engine or the CPU
	 * (wddmseg_vram_apt_update()), until the device is gone.
	 */
	if (!eng->dummy)
		eng->dummy = dmam_alloc_coherent(dev, PAGE_SIZE,
						 &eng->dummy_dma, GFP_KERNEL);
	if (!eng->ring || !eng->arena || !eng->writeback || !eng->dummy) {
		ret = -ENOMEM;
		goto err_free;
	}

	wddmseg_irq_register(wdev, WDDMSEG_IRQ_ENGINE, WDDMSEG_ENGINE_IRQS,
			     wddmseg_engine_irq);
	writel(WDDMSEG_RING_CTRL_RESET, eng->mmio + WDDMSEG_REG_RING_CTRL);
	writel(~0u, eng->mmio + WDDMSEG_REG_IRQ_STATUS);
	wddmseg_engine_hw_start(eng);
	if (!(readl(eng->mmio + WDDMSEG_REG_RING_STATUS) &
	      WDDMSEG_RING_STATUS_ENABLED)) {
		drm_err(&wdev->drm, "paging engine refused the ring\n");
		ret = -EIO;
		goto err_irq;
	}
	eng->ready = true;
	return 0;

err_irq:
	wddmseg_irq_unregister(wdev, WDDMSEG_IRQ_ENGINE);
err_free:
	if (eng->writeback)
		dma_free_coherent(dev, PAGE_SIZE, eng->writeback,
				  eng->writeback_dma);
	if (eng->arena)
		dma_free_coherent(dev, WDDMSEG_ARENA_BYTES, eng->arena,
				  eng->arena_dma);
	if (eng->ring)
		dma_free_coherent(dev, WDDMSEG_RING_BYTES, eng->ring,
				  eng->ring_dma);
	return ret;
}

/**
 * wddmseg_engine_fini - wait for the engine, stop it, free its memory
 * @eng: engine set up by wddmseg_engine_init()
 */
void wddmseg_engine_fini(struct wddmseg_engine *eng)
{
	struct device *dev;

	if (!eng->ready && !eng->suspended)
		return;
	dev = eng->wdev->drm.dev;

	mutex_lock(&eng->lock);
	if (!wddmseg_engine_idle(eng, msecs_to_jiffies(wddmseg_fence_timeout_ms))) {
		wddmseg_engine_recover(eng, "teardown");
		if (!wddmseg_engine_idle(eng, msecs_to_jiffies(wddmseg_fence_timeout_ms)))
			wddmseg_engine_fail_pending(eng, -ENODEV, false);
	}
	/* From now on moves use the CPU. */
	WRITE_ONCE(eng->ready, false);
	mutex_unlock(&eng->lock);
	cancel_delayed_work_sync(&eng->watchdog);

	writel(WDDMSEG_RING_CTRL_RESET, eng->mmio + WDDMSEG_REG_RING_CTRL);
	wddmseg_irq_unregister(eng->wdev, WDDMSEG_IRQ_ENGINE);

	dma_free_coherent(dev, PAGE_SIZE, eng->writeback, eng->writeback_dma);
	dma_free_coherent(dev, WDDMSEG_ARENA_BYTES, eng->arena, eng->arena_dma);
	dma_free_coherent(dev, WDDMSEG_RING_BYTES, eng->ring, eng->ring_dma);
}
