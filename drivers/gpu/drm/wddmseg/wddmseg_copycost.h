/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the adaptive engine-or-CPU choice of a move (DOC: Copy cost
 * model, wddmseg_copycost.c). The decision logic here is pure: no
 * device, no clock, no lock; tests/wddmseg_copycost_test.c drives it.
 */
#ifndef WDDMSEG_COPYCOST_H
#define WDDMSEG_COPYCOST_H

#include <linux/bitops.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/types.h>

/* Size classes: (2^(c-1) * 4 KiB, 2^c * 4 KiB], 4 KiB up to 1 MiB. */
#define WDDMSEG_COPY_CLASSES		9
/* The largest move the CPU may copy under the adaptive policy. */
#define WDDMSEG_COPY_ADAPTIVE_MAX	SZ_1M
/*
 * The slower way runs again once its extra cost is at most
 * 1/WDDMSEG_COPY_EXPLORE_SHARE of the time the faster way took since it
 * last ran, and never twice within WDDMSEG_COPY_EXPLORE_MIN decisions.
 */
#define WDDMSEG_COPY_EXPLORE_SHARE	32
#define WDDMSEG_COPY_EXPLORE_MIN	8
/*
 * The engine, when it is the slower way, runs again for this many moves in
 * a row: the first wakes the device's thread and is not measured, the
 * others measure the engine as a run of moves finds it.
 */
#define WDDMSEG_COPY_ENGINE_STREAK	3
/* A measurement counts for 1/WDDMSEG_COPY_EWMA_WEIGHT of the estimate. */
#define WDDMSEG_COPY_EWMA_WEIGHT	4
/* A measurement counts as at most this many times the estimate. */
#define WDDMSEG_COPY_OUTLIER		8

/* Estimator paths: those of enum wddmseg_move_path that copy. */
enum wddmseg_copy_path {
	WDDMSEG_COPY_PATH_SYSTEM,	/* VRAM <-> system memory */
	WDDMSEG_COPY_PATH_APERTURE,	/* VRAM <-> an aperture */
	WDDMSEG_COPY_PATH_VRAM,		/* VRAM <-> VRAM */
	WDDMSEG_COPY_PATHS,
};

enum wddmseg_copy_way {
	WDDMSEG_COPY_WAY_CPU,
	WDDMSEG_COPY_WAY_ENGINE,
	WDDMSEG_COPY_WAYS,
};

/**
 * struct wddmseg_copy_est - running cost estimate of one path and size class
 * @ns: exponentially weighted moving average of the nanoseconds a move
 *	took, per way (CPU: the copy; engine: from the start of the move to
 *	its fence's signal); meaningless while @samples of that way is 0
 * @samples: measurements folded into @ns, per way (saturates)
 * @since_slow: decisions since the way with the higher estimate last ran
 *	(saturates at U16_MAX)
 * @streak: engine decisions still due in the current exploration
 * @last: the way of the last decision (an &enum wddmseg_copy_way)
 */
struct wddmseg_copy_est {
	u64 ns[WDDMSEG_COPY_WAYS];
	u32 samples[WDDMSEG_COPY_WAYS];
	u16 since_slow;
	u8 streak;
	u8 last;
};

/**
 * wddmseg_copy_class - size class of a move
 * @size: bytes moved, at most %WDDMSEG_COPY_ADAPTIVE_MAX
 *
 * Return: 0 for up to 4 KiB, 1 for up to 8 KiB, ... 8 for up to 1 MiB.
 */
static inline unsigned int wddmseg_copy_class(u64 size)
{
	if (size <= SZ_4K)
		return 0;
	return min_t(unsigned int, fls64((size - 1) >> 12),
		     WDDMSEG_COPY_CLASSES - 1);
}

/**
 * wddmseg_copy_decide - which way the next move of a class takes
 * @e: the class's estimate; its @since_slow, @streak and @last advance
 * @prior: the way before anything was measured (the fixed policy's)
 * @measure: set to whether the move's time may be folded into @e
 *
 * Before either way was measured: @prior. Once one was: the other, so
 * that both have an estimate. Then the way with the lower estimate,
 * except that the other runs again when its extra cost is at most
 * 1/%WDDMSEG_COPY_EXPLORE_SHARE of what the faster way cost since it last
 * ran (so its estimate follows the host's load, at a bounded price); the
 * engine does so for %WDDMSEG_COPY_ENGINE_STREAK moves in a row. The
 * count of decisions saturates at U16_MAX: a way more than about 2,000
 * times slower is not tried again.
 *
 * An engine move right after a CPU move of the class is not measured:
 * the device's thread stops polling for work when none comes, so such a
 * move pays for waking it, which the next moves of a run on the engine
 * do not; counting it would keep the engine off a class where a run of
 * moves on it is the cheaper way.
 *
 * Return: the way.
 */
static inline enum wddmseg_copy_way
wddmseg_copy_decide(struct wddmseg_copy_est *e, enum wddmseg_copy_way prior,
		    bool *measure)
{
	const u64 *ns = e->ns;
	enum wddmseg_copy_way fast, slow, way;
	u64 gap, runs;

	if (e->streak) {
		e->streak--;
		way = WDDMSEG_COPY_WAY_ENGINE;
	} else if (!e->samples[WDDMSEG_COPY_WAY_CPU] &&
		   !e->samples[WDDMSEG_COPY_WAY_ENGINE]) {
		way = prior;
	} else if (!e->samples[WDDMSEG_COPY_WAY_CPU]) {
		way = WDDMSEG_COPY_WAY_CPU;
	} else if (!e->samples[WDDMSEG_COPY_WAY_ENGINE]) {
		way = WDDMSEG_COPY_WAY_ENGINE;
	} else {
		fast = ns[WDDMSEG_COPY_WAY_CPU] <= ns[WDDMSEG_COPY_WAY_ENGINE] ?
		       WDDMSEG_COPY_WAY_CPU : WDDMSEG_COPY_WAY_ENGINE;
		slow = fast == WDDMSEG_COPY_WAY_CPU ? WDDMSEG_COPY_WAY_ENGINE :
		       WDDMSEG_COPY_WAY_CPU;
		runs = slow == WDDMSEG_COPY_WAY_ENGINE ?
		       WDDMSEG_COPY_ENGINE_STREAK : 1;
		gap = ns[slow] - ns[fast];
		if (e->since_slow >= WDDMSEG_COPY_EXPLORE_MIN &&
		    gap * runs * WDDMSEG_COPY_EXPLORE_SHARE <=
		    (u64)e->since_slow * ns[fast]) {
			e->since_slow = 0;
			e->streak = runs - 1;
			way = slow;
		} else {
			if (e->since_slow < U16_MAX)
				e->since_slow++;
			way = fast;
		}
	}
	*measure = !(way == WDDMSEG_COPY_WAY_ENGINE &&
		     e->last == WDDMSEG_COPY_WAY_CPU);
	e->last = way;
	return way;
}

/**
 * wddmseg_copy_record - fold one measured move into a class's estimate
 * @e: the class's estimate
 * @way: the way that moved
 * @ns: nanoseconds it took
 *
 * The first measurement is the estimate; later ones move it by
 * 1/%WDDMSEG_COPY_EWMA_WEIGHT of the difference, a measurement counting
 * as at most %WDDMSEG_COPY_OUTLIER times the estimate (one preemption of
 * the copying thread does not flip a class for long).
 */
static inline void wddmseg_copy_record(struct wddmseg_copy_est *e,
				       enum wddmseg_copy_way way, u64 ns)
{
	u64 old = e->ns[way];

	ns = max_t(u64, ns, 1);
	if (!e->samples[way]) {
		e->ns[way] = ns;
	} else {
		ns = min_t(u64, ns, old * WDDMSEG_COPY_OUTLIER);
		if (ns >= old)
			e->ns[way] = old + (ns - old) / WDDMSEG_COPY_EWMA_WEIGHT;
		else
			e->ns[way] = old - (old - ns) / WDDMSEG_COPY_EWMA_WEIGHT;
		e->ns[way] = max_t(u64, e->ns[way], 1);
	}
	if (e->samples[way] < U32_MAX)
		e->samples[way]++;
}

struct dma_fence;
struct seq_file;
struct wddmseg_device;

/* Engine moves measured at once, at most (wddmseg_copy_engine_watch()). */
#define WDDMSEG_COPY_WATCHES	8

/**
 * struct wddmseg_copy_watch - an engine move measured once its fence signals
 * @fence: the move's paging fence, with a reference; NULL: a free slot
 * @start: ktime_get() when the move started
 * @size: bytes moved
 * @path: the move's path
 */
struct wddmseg_copy_watch {
	struct dma_fence *fence;
	ktime_t start;
	u64 size;
	enum wddmseg_copy_path path;
};

int wddmseg_copy_init(struct wddmseg_device *wdev);
enum wddmseg_copy_way wddmseg_copy_choose(struct wddmseg_device *wdev,
					  enum wddmseg_copy_path path,
					  u64 size, bool fixed_cpu,
					  bool *measure);
void wddmseg_copy_cpu_done(struct wddmseg_device *wdev,
			   enum wddmseg_copy_path path, u64 size, ktime_t start);
void wddmseg_copy_engine_watch(struct wddmseg_device *wdev,
			       enum wddmseg_copy_path path, u64 size,
			       ktime_t start, struct dma_fence *fence);
int wddmseg_copy_show(struct seq_file *m, struct wddmseg_device *wdev);

#endif /* WDDMSEG_COPYCOST_H */
