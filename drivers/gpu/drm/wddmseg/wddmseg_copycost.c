// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg: the adaptive engine-or-CPU choice of a move, measured by the
 * moves themselves.
 */

#include <linux/dma-fence.h>
#include <linux/ktime.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include <drm/drm_managed.h>

#include "wddmseg_copycost.h"
#include "wddmseg_drv.h"
#include "wddmseg_params.h"

/**
 * DOC: Copy cost model
 *
 * Which way copies a move that both could copy (an idle allocation whose
 * content the CPU may see, at most %WDDMSEG_COPY_ADAPTIVE_MAX bytes, on a
 * path whose ``cpu_move_max_kb`` is not 0) is chosen from what moves cost
 * on this host now, not from thresholds measured once elsewhere.
 *
 * The driver keeps, per path (VRAM<->system memory, VRAM<->an aperture,
 * VRAM<->VRAM) and per size class (up to
 * 4 KiB, 8 KiB, ... 1 MiB: one class per power of two), an estimate of
 * each way's time per move: an exponentially weighted moving average,
 * each measurement weighing a quarter and counting as at most eight
 * times the estimate. The CPU's measurement is the time of its copy
 * (ktime around it); the engine's runs from the start of the move to the
 * timestamp of its paging fence, set by whoever saw the job done first
 * (a waiter polling the writeback, retire, the interrupt), so it holds the
 * ring submission, the doorbell, the device's thread, the copy and the
 * completion as a caller waiting for the move sees it. The fence is read
 * at a later decision, never watched by a callback: that would unmask the
 * FENCE interrupt the engine keeps masked while nobody sleeps, and an
 * early version that did measured the engine several times too slow.
 * Only moves the CPU could have copied are measured. Binding system
 * pages to an aperture or unbinding them copies nothing, so a time per
 * copied size says nothing about it: it stays with the fixed policy
 * (both ways leave the same entries, the pages' or the dummy page's:
 * kselftest engine.aperture_unmap_either_way).
 *
 * A move takes the way with the lower estimate (wddmseg_copy_decide()).
 * Before a class was measured it takes the fixed policy's way (the
 * ``cpu_move_max_kb`` threshold), then the other way. After that the
 * slower way runs again when its extra cost is at most 1/32 of the time
 * the faster way took since it last ran, and not within 8 moves: the
 * estimates follow the host's load (two vCPUs and the device's thread
 * share the host's cores with whatever else runs there), at a price of at
 * most about 3% of the class's time. The engine runs so for three moves
 * in a row, and an engine move right after a CPU move of its class is
 * not measured: the device's thread polls for new work only while work
 * keeps coming (tools/qemu/docs-wddmseg.rst), so that move pays for
 * waking it, which a run of moves on the engine does not. Without this,
 * on a quiet guest the choice stayed on the CPU at 8-32 KiB where the
 * engine alone was up to 1.6 times faster (make bench). The estimates are in debugfs
 * (``wddmseg/copy_costs``: path, class, each way's nanoseconds and
 * measurement count, the way the next decision prefers).
 *
 * The module parameter ``copy_policy`` (``adaptive``, the default, or
 * ``fixed``) pins the older choice for comparison: the CPU copies an idle
 * move up to ``cpu_move_max_kb`` of its path, the engine everything else.
 * Under either policy ``cpu_move_max_kb`` 0 keeps the CPU off a path.
 */

/*
 * Fold in the engine moves whose fences signalled since the last look:
 * their time runs from the start of the move to the fence's own
 * timestamp, taken by whoever saw the job done first (a waiter polling the
 * writeback, retire, or the interrupt). A fence nobody has seen signalled
 * yet stays; one that failed measured nothing a move costs. copy_lock held.
 */
static void wddmseg_copy_harvest_locked(struct wddmseg_device *wdev)
{
	unsigned int i;

	lockdep_assert_held(&wdev->copy_lock);
	for (i = 0; i < ARRAY_SIZE(wdev->copy_watch); i++) {
		struct wddmseg_copy_watch *w = &wdev->copy_watch[i];
		struct dma_fence *f = w->fence;

		if (!f || !test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &f->flags))
			continue;
		/* The signaller sets the timestamp just after SIGNALED. */
		if (!f->error &&
		    !test_bit(DMA_FENCE_FLAG_TIMESTAMP_BIT, &f->flags))
			continue;
		smp_rmb();	/* the timestamp, after its bit */
		if (!f->error && ktime_after(f->timestamp, w->start))
			wddmseg_copy_record(&wdev->copy_est[w->path][wddmseg_copy_class(w->size)],
					    WDDMSEG_COPY_WAY_ENGINE,
					    ktime_to_ns(ktime_sub(f->timestamp,
								  w->start)));
		w->fence = NULL;
		dma_fence_put(f);
	}
}

/**
 * wddmseg_copy_engine_watch - measure an engine move once its fence signals
 * @wdev: device
 * @path: the move's path
 * @size: bytes moved
 * @start: ktime_get() when the move started
 * @fence: the move's paging fence
 *
 * The fence is kept in one of a few slots and read at a later decision,
 * not watched by a callback: a callback enables signalling, which unmasks
 * the FENCE interrupt that the engine keeps masked while nobody sleeps
 * (wddmseg_engine.c), so measuring would add the interrupt's cost to every
 * measured move. With every slot taken the move is not measured.
 */
void wddmseg_copy_engine_watch(struct wddmseg_device *wdev,
			       enum wddmseg_copy_path path, u64 size,
			       ktime_t start, struct dma_fence *fence)
{
	unsigned long flags;
	unsigned int i;

	if (size > WDDMSEG_COPY_ADAPTIVE_MAX)
		return;
	spin_lock_irqsave(&wdev->copy_lock, flags);
	wddmseg_copy_harvest_locked(wdev);
	for (i = 0; i < ARRAY_SIZE(wdev->copy_watch); i++) {
		struct wddmseg_copy_watch *w = &wdev->copy_watch[i];

		if (w->fence)
			continue;
		w->fence = dma_fence_get(fence);
		w->path = path;
		w->size = size;
		w->start = start;
		break;
	}
	spin_unlock_irqrestore(&wdev->copy_lock, flags);
}

/* Device teardown: drop the fences still watched. */
static void wddmseg_copy_fini(struct drm_device *drm, void *arg)
{
	struct wddmseg_device *wdev = arg;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wdev->copy_watch); i++) {
		dma_fence_put(wdev->copy_watch[i].fence);
		wdev->copy_watch[i].fence = NULL;
	}
}

/**
 * wddmseg_copy_init - empty estimates, no fence watched
 * @wdev: new device
 *
 * Return: 0, or a negative errno if the teardown action could not be added.
 */
int wddmseg_copy_init(struct wddmseg_device *wdev)
{
	spin_lock_init(&wdev->copy_lock);
	memset(wdev->copy_est, 0, sizeof(wdev->copy_est));
	memset(wdev->copy_watch, 0, sizeof(wdev->copy_watch));
	return drmm_add_action_or_reset(&wdev->drm, wddmseg_copy_fini, wdev);
}

/**
 * wddmseg_copy_choose - engine or CPU for a move the CPU may copy
 * @wdev: device
 * @path: the move's path
 * @size: bytes moved
 * @fixed_cpu: the fixed policy's answer (size within cpu_move_max_kb)
 * @measure: set to whether the move's time is to be measured (not above
 *	%WDDMSEG_COPY_ADAPTIVE_MAX, nor, under the adaptive policy, an engine
 *	move that wakes the device's thread: wddmseg_copy_decide())
 *
 * Return: %WDDMSEG_COPY_WAY_CPU or %WDDMSEG_COPY_WAY_ENGINE.
 */
enum wddmseg_copy_way wddmseg_copy_choose(struct wddmseg_device *wdev,
					  enum wddmseg_copy_path path,
					  u64 size, bool fixed_cpu,
					  bool *measure)
{
	enum wddmseg_copy_way prior = fixed_cpu ? WDDMSEG_COPY_WAY_CPU :
					WDDMSEG_COPY_WAY_ENGINE;
	enum wddmseg_copy_way way;
	unsigned long flags;

	*measure = size <= WDDMSEG_COPY_ADAPTIVE_MAX;
	if (READ_ONCE(wddmseg_copy_fixed) || size > WDDMSEG_COPY_ADAPTIVE_MAX)
		return prior;
	spin_lock_irqsave(&wdev->copy_lock, flags);
	wddmseg_copy_harvest_locked(wdev);
	way = wddmseg_copy_decide(&wdev->copy_est[path][wddmseg_copy_class(size)],
				  prior, measure);
	spin_unlock_irqrestore(&wdev->copy_lock, flags);
	return way;
}

static void wddmseg_copy_add(struct wddmseg_device *wdev,
			     enum wddmseg_copy_path path, u64 size,
			     enum wddmseg_copy_way way, u64 ns)
{
	unsigned long flags;

	if (size > WDDMSEG_COPY_ADAPTIVE_MAX)
		return;
	spin_lock_irqsave(&wdev->copy_lock, flags);
	wddmseg_copy_record(&wdev->copy_est[path][wddmseg_copy_class(size)],
			    way, ns);
	spin_unlock_irqrestore(&wdev->copy_lock, flags);
}

/**
 * wddmseg_copy_cpu_done - a CPU copy was measured
 * @wdev: device
 * @path: the move's path
 * @size: bytes moved
 * @start: ktime_get() when the copy started
 */
void wddmseg_copy_cpu_done(struct wddmseg_device *wdev,
			   enum wddmseg_copy_path path, u64 size, ktime_t start)
{
	wddmseg_copy_add(wdev, path, size, WDDMSEG_COPY_WAY_CPU,
			 ktime_to_ns(ktime_sub(ktime_get(), start)));
}

static const char *const wddmseg_copy_path_names[WDDMSEG_COPY_PATHS] = {
	[WDDMSEG_COPY_PATH_SYSTEM] = "system",
	[WDDMSEG_COPY_PATH_APERTURE] = "aperture",
	[WDDMSEG_COPY_PATH_VRAM] = "vram",
};

/**
 * wddmseg_copy_show - the estimates, for debugfs
 * @m: seq_file
 * @wdev: device
 *
 * One line per measured class: path, class (its largest size in KiB), the
 * CPU's and the engine's estimate in ns with their measurement counts,
 * and the way with the lower estimate.
 *
 * Return: 0.
 */
int wddmseg_copy_show(struct seq_file *m, struct wddmseg_device *wdev)
{
	struct wddmseg_copy_est e;
	unsigned long flags;
	int p, c;

	seq_printf(m, "policy %s\n",
		   READ_ONCE(wddmseg_copy_fixed) ? "fixed" : "adaptive");
	seq_puts(m, "path class_kb cpu_ns cpu_n engine_ns engine_n cheaper\n");
	spin_lock_irqsave(&wdev->copy_lock, flags);
	wddmseg_copy_harvest_locked(wdev);
	spin_unlock_irqrestore(&wdev->copy_lock, flags);
	for (p = 0; p < WDDMSEG_COPY_PATHS; p++) {
		for (c = 0; c < WDDMSEG_COPY_CLASSES; c++) {
			spin_lock_irqsave(&wdev->copy_lock, flags);
			e = wdev->copy_est[p][c];
			spin_unlock_irqrestore(&wdev->copy_lock, flags);
			if (!e.samples[0] && !e.samples[1])
				continue;
			seq_printf(m, "%s %u %llu %u %llu %u %s\n",
				   wddmseg_copy_path_names[p], 4u << c,
				   e.samples[0] ? e.ns[0] : 0, e.samples[0],
				   e.samples[1] ? e.ns[1] : 0, e.samples[1],
				   !e.samples[0] || !e.samples[1] ? "-" :
				   e.ns[0] <= e.ns[1] ? "cpu" : "engine");
		}
	}
	return 0;
}
