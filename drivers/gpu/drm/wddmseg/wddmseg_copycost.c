// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg: the adaptive engine-or-CPU choice of a move, measured by the
 * moves themselves.
 */

#include <linux/dma-fence.h>
#include <linux/ktime.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

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
 * signal of its paging fence (a fence callback), so it holds the ring
 * submission, the doorbell, the device's thread, the copy and the
 * completion interrupt, everything a caller waiting for the move waits
 * for. Only moves the CPU could have copied are measured. Binding system
 * pages to an aperture or unbinding them copies nothing and stays with
 * the fixed policy: the CPU's unbinding leaves the range unmapped where
 * the engine's UnmapApertureSegment points it at the dummy page
 * (kselftest alloc.gpu_view tells them apart), so the two ways are not
 * interchangeable there.
 *
 * A move takes the way with the lower estimate (wddmseg_copy_decide()).
 * Before a class was measured it takes the fixed policy's way (the
 * ``cpu_move_max_kb`` threshold), then the other way once. After that the
 * slower way runs again when its extra cost is at most 1/32 of the time
 * the faster way took since it last ran, and not within 8 moves: the
 * estimates follow the host's load (two vCPUs and the device's thread
 * share the host's cores with whatever else runs there), at a price of at
 * most about 3% of the class's time. The estimates are in debugfs
 * (``wddmseg/copy_costs``: path, class, each way's nanoseconds and
 * measurement count, the way the next decision prefers).
 *
 * The module parameter ``copy_policy`` (``adaptive``, the default, or
 * ``fixed``) pins the older choice for comparison: the CPU copies an idle
 * move up to ``cpu_move_max_kb`` of its path, the engine everything else.
 * Under either policy ``cpu_move_max_kb`` 0 keeps the CPU off a path.
 */

/**
 * wddmseg_copy_init - empty estimates
 * @wdev: new device
 */
void wddmseg_copy_init(struct wddmseg_device *wdev)
{
	spin_lock_init(&wdev->copy_lock);
	memset(wdev->copy_est, 0, sizeof(wdev->copy_est));
}

/**
 * wddmseg_copy_choose - engine or CPU for a move the CPU may copy
 * @wdev: device
 * @path: the move's path
 * @size: bytes moved
 * @fixed_cpu: the fixed policy's answer (size within cpu_move_max_kb)
 *
 * Return: %WDDMSEG_COPY_WAY_CPU or %WDDMSEG_COPY_WAY_ENGINE.
 */
enum wddmseg_copy_way wddmseg_copy_choose(struct wddmseg_device *wdev,
					  enum wddmseg_copy_path path,
					  u64 size, bool fixed_cpu)
{
	enum wddmseg_copy_way prior = fixed_cpu ? WDDMSEG_COPY_WAY_CPU :
					WDDMSEG_COPY_WAY_ENGINE;
	enum wddmseg_copy_way way;
	unsigned long flags;

	if (READ_ONCE(wddmseg_copy_fixed) || size > WDDMSEG_COPY_ADAPTIVE_MAX)
		return prior;
	spin_lock_irqsave(&wdev->copy_lock, flags);
	way = wddmseg_copy_decide(&wdev->copy_est[path][wddmseg_copy_class(size)],
				  prior);
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

/* An engine move being measured: until its fence signals. */
struct wddmseg_copy_watch {
	struct dma_fence_cb cb;
	struct wddmseg_device *wdev;
	enum wddmseg_copy_path path;
	u64 size;
	ktime_t start;
};

static void wddmseg_copy_fence_cb(struct dma_fence *fence,
				  struct dma_fence_cb *cb)
{
	struct wddmseg_copy_watch *w = container_of(cb, typeof(*w), cb);

	/* A failed job measured nothing a move costs. */
	if (!fence->error)
		wddmseg_copy_add(w->wdev, w->path, w->size,
				 WDDMSEG_COPY_WAY_ENGINE,
				 ktime_to_ns(ktime_sub(ktime_get(), w->start)));
	kfree(w);
}

/**
 * wddmseg_copy_engine_watch - measure an engine move until its fence signals
 * @wdev: device
 * @path: the move's path
 * @size: bytes moved
 * @start: ktime_get() when the move started
 * @fence: the move's paging fence
 *
 * Without memory for the watch the move is not measured.
 */
void wddmseg_copy_engine_watch(struct wddmseg_device *wdev,
			       enum wddmseg_copy_path path, u64 size,
			       ktime_t start, struct dma_fence *fence)
{
	struct wddmseg_copy_watch *w;

	if (size > WDDMSEG_COPY_ADAPTIVE_MAX)
		return;
	w = kmalloc_obj(*w, GFP_NOWAIT | __GFP_NOWARN);
	if (!w)
		return;
	w->wdev = wdev;
	w->path = path;
	w->size = size;
	w->start = start;
	if (dma_fence_add_callback(fence, &w->cb, wddmseg_copy_fence_cb))
		wddmseg_copy_fence_cb(fence, &w->cb);
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
