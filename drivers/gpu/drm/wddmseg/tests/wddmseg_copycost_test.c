// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the adaptive engine-or-CPU choice's decision logic
 * (wddmseg_copycost.h, DOC: Copy cost model): size classes, the prior
 * before anything was measured, measuring the other way once, the cheaper
 * way afterwards, exploration of the slower way bounded in price yet
 * never stopping, an engine move that wakes the device's thread left
 * unmeasured, and the moving average following a change of load.
 */

#include <kunit/test.h>
#include <linux/sizes.h>

#include "../wddmseg_copycost.h"

#define CPU	WDDMSEG_COPY_WAY_CPU
#define ENGINE	WDDMSEG_COPY_WAY_ENGINE

/* An estimate with @n measurements of @cpu_ns and @engine_ns each. */
static void est_set(struct wddmseg_copy_est *e, u64 cpu_ns, u64 engine_ns,
		    u32 n)
{
	memset(e, 0, sizeof(*e));
	e->ns[CPU] = cpu_ns;
	e->ns[ENGINE] = engine_ns;
	e->samples[CPU] = n;
	e->samples[ENGINE] = n;
}

/* A decision whose measurement flag the test does not look at. */
static enum wddmseg_copy_way decide(struct wddmseg_copy_est *e,
				    enum wddmseg_copy_way prior)
{
	bool measure;

	return wddmseg_copy_decide(e, prior, &measure);
}

static void copycost_classes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 0u, wddmseg_copy_class(1));
	KUNIT_EXPECT_EQ(test, 0u, wddmseg_copy_class(SZ_4K));
	KUNIT_EXPECT_EQ(test, 1u, wddmseg_copy_class(SZ_4K + 1));
	KUNIT_EXPECT_EQ(test, 1u, wddmseg_copy_class(SZ_8K));
	KUNIT_EXPECT_EQ(test, 2u, wddmseg_copy_class(SZ_16K));
	KUNIT_EXPECT_EQ(test, 3u, wddmseg_copy_class(SZ_32K));
	KUNIT_EXPECT_EQ(test, 4u, wddmseg_copy_class(SZ_64K));
	KUNIT_EXPECT_EQ(test, 7u, wddmseg_copy_class(SZ_512K));
	KUNIT_EXPECT_EQ(test, 8u, wddmseg_copy_class(SZ_512K + SZ_4K));
	KUNIT_EXPECT_EQ(test, 8u, wddmseg_copy_class(SZ_1M));
	KUNIT_EXPECT_EQ(test, (unsigned int)WDDMSEG_COPY_CLASSES - 1,
			wddmseg_copy_class(WDDMSEG_COPY_ADAPTIVE_MAX));
}

/* Nothing measured: the fixed policy's way, whichever it is. */
static void copycost_prior_first(struct kunit *test)
{
	struct wddmseg_copy_est e = {};

	KUNIT_EXPECT_EQ(test, CPU, decide(&e, CPU));
	KUNIT_EXPECT_EQ(test, ENGINE, decide(&e, ENGINE));
}

/* One way measured: the other runs next, whatever the prior says. */
static void copycost_measures_other_way(struct kunit *test)
{
	struct wddmseg_copy_est e = {};

	wddmseg_copy_record(&e, ENGINE, 5000);
	KUNIT_EXPECT_EQ(test, CPU, decide(&e, ENGINE));

	memset(&e, 0, sizeof(e));
	wddmseg_copy_record(&e, CPU, 5000);
	KUNIT_EXPECT_EQ(test, ENGINE, decide(&e, CPU));
}

/* Both measured: the lower estimate wins, either way round. */
static void copycost_cheaper_wins(struct kunit *test)
{
	struct wddmseg_copy_est e;

	est_set(&e, 1000, 3000, 4);
	KUNIT_EXPECT_EQ(test, CPU, decide(&e, ENGINE));
	est_set(&e, 3000, 1000, 4);
	KUNIT_EXPECT_EQ(test, ENGINE, decide(&e, CPU));
	/* a tie goes to the CPU (no job, no interrupt) */
	est_set(&e, 2000, 2000, 4);
	KUNIT_EXPECT_EQ(test, CPU, decide(&e, ENGINE));
}

/*
 * Over many decisions with fixed estimates the slower way runs again
 * (its estimate would go stale otherwise), but what it costs beyond the
 * faster way stays within 1/WDDMSEG_COPY_EXPLORE_SHARE of their time, and
 * an exploration (one CPU move, or WDDMSEG_COPY_ENGINE_STREAK engine moves)
 * comes after at least WDDMSEG_COPY_EXPLORE_MIN decisions of the faster way.
 */
static void copycost_explore_bounded(struct kunit *test)
{
	static const u64 ratios[][2] = {
		{ 1000, 1010 }, { 1000, 2000 }, { 1000, 10000 },
		{ 10000, 1000 }, { 100, 20000 },
	};
	unsigned int r, i, n = 20000;

	for (r = 0; r < ARRAY_SIZE(ratios); r++) {
		u64 cpu = ratios[r][0], eng = ratios[r][1];
		u64 fast = min(cpu, eng), slow = max(cpu, eng);
		enum wddmseg_copy_way fast_way = cpu <= eng ? CPU : ENGINE;
		unsigned int slow_runs = 0, last = 0, fast_runs = 0;
		struct wddmseg_copy_est e;
		u64 spent = 0;

		est_set(&e, cpu, eng, 4);
		for (i = 1; i <= n; i++) {
			enum wddmseg_copy_way w = decide(&e, CPU);

			if (w == fast_way) {
				spent += fast;
				fast_runs++;
				continue;
			}
			spent += slow;
			slow_runs++;
			if (i == last + 1) {	/* the same exploration */
				last = i;
				continue;
			}
			KUNIT_EXPECT_GE_MSG(test, fast_runs,
					    (unsigned int)WDDMSEG_COPY_EXPLORE_MIN,
					    "ratio %llu/%llu: explored after %u",
					    cpu, eng, fast_runs);
			fast_runs = 0;
			last = i;
		}
		KUNIT_EXPECT_GE_MSG(test, slow_runs, 1u,
				    "ratio %llu/%llu: the slower way never ran",
				    cpu, eng);
		/* price: at most 1/SHARE over always the faster way (+ rounding) */
		KUNIT_EXPECT_LE_MSG(test,
				    (spent - n * fast) * WDDMSEG_COPY_EXPLORE_SHARE,
				    n * fast + slow * WDDMSEG_COPY_EXPLORE_SHARE,
				    "ratio %llu/%llu: %u explorations cost %llu ns",
				    cpu, eng, slow_runs, spent - n * fast);
	}
}

/*
 * Close estimates: after every WDDMSEG_COPY_EXPLORE_MIN decisions of the
 * faster way the slower runs, the CPU once, the engine
 * WDDMSEG_COPY_ENGINE_STREAK times in a row.
 */
static void copycost_explore_close(struct kunit *test)
{
	const unsigned int streak = WDDMSEG_COPY_ENGINE_STREAK;
	const unsigned int min = WDDMSEG_COPY_EXPLORE_MIN;
	unsigned int i, slow_runs = 0;
	struct wddmseg_copy_est e;

	est_set(&e, 1000, 1001, 4);
	for (i = 0; i < 10 * (min + streak); i++)
		slow_runs += decide(&e, CPU) == ENGINE;
	KUNIT_EXPECT_EQ(test, 10 * streak, slow_runs);

	est_set(&e, 1001, 1000, 4);
	slow_runs = 0;
	for (i = 0; i < 10 * (min + 1); i++)
		slow_runs += decide(&e, CPU) == CPU;
	KUNIT_EXPECT_EQ(test, 10u, slow_runs);
}

/*
 * An engine move right after a CPU move of the class pays for waking the
 * device's thread: not measured. The engine moves after it are, and so is
 * every CPU move.
 */
static void copycost_engine_wakeup_unmeasured(struct kunit *test)
{
	struct wddmseg_copy_est e = {};
	bool measure;
	unsigned int i;

	/* prior CPU: measured; then the engine, first unmeasured */
	KUNIT_EXPECT_EQ(test, CPU, wddmseg_copy_decide(&e, CPU, &measure));
	KUNIT_EXPECT_TRUE(test, measure);
	wddmseg_copy_record(&e, CPU, 1000);
	KUNIT_EXPECT_EQ(test, ENGINE, wddmseg_copy_decide(&e, CPU, &measure));
	KUNIT_EXPECT_FALSE(test, measure);
	/* not recorded: the engine is still unmeasured, so it runs again */
	KUNIT_EXPECT_EQ(test, ENGINE, wddmseg_copy_decide(&e, CPU, &measure));
	KUNIT_EXPECT_TRUE(test, measure);

	/* an exploration of the engine: a streak, its first unmeasured */
	est_set(&e, 1000, 2000, 4);
	for (i = 0; i < 1000; i++)
		if (wddmseg_copy_decide(&e, CPU, &measure) == ENGINE)
			break;
	KUNIT_ASSERT_LT(test, i, 1000u);
	KUNIT_EXPECT_FALSE(test, measure);
	for (i = 1; i < WDDMSEG_COPY_ENGINE_STREAK; i++) {
		KUNIT_EXPECT_EQ(test, ENGINE,
				wddmseg_copy_decide(&e, CPU, &measure));
		KUNIT_EXPECT_TRUE(test, measure);
	}
	KUNIT_EXPECT_EQ(test, CPU, wddmseg_copy_decide(&e, CPU, &measure));
	KUNIT_EXPECT_TRUE(test, measure);
}

/*
 * A quiet guest: the engine is cheaper in a run of moves, but its first
 * move after the CPU costs a wake-up several times a copy. The choice
 * still ends on the engine (without the unmeasured wake-up it would read
 * the wake-up as the engine's cost and stay on the CPU).
 */
static void copycost_engine_run_wins(struct kunit *test)
{
	enum wddmseg_copy_way prev = CPU;
	struct wddmseg_copy_est e;
	unsigned int i, engine = 0;
	bool measure;

	est_set(&e, 1000, 2000, 4);
	for (i = 0; i < 2000; i++) {
		enum wddmseg_copy_way w = wddmseg_copy_decide(&e, CPU,
							      &measure);
		/* the CPU: 1000 ns; the engine after it: 8000; then 600 */
		u64 ns = w == CPU ? 1000 : prev == CPU ? 8000 : 600;

		if (measure)
			wddmseg_copy_record(&e, w, ns);
		engine += i >= 1000 && w == ENGINE;
		prev = w;
	}
	KUNIT_EXPECT_GE(test, engine, 900u);
}

/* The moving average: first value, a quarter of the way, outliers capped. */
static void copycost_ewma(struct kunit *test)
{
	struct wddmseg_copy_est e = {};

	wddmseg_copy_record(&e, CPU, 1000);
	KUNIT_EXPECT_EQ(test, 1000ull, e.ns[CPU]);
	KUNIT_EXPECT_EQ(test, 1u, e.samples[CPU]);
	KUNIT_EXPECT_EQ(test, 0u, e.samples[ENGINE]);
	wddmseg_copy_record(&e, CPU, 2000);
	KUNIT_EXPECT_EQ(test, 1250ull, e.ns[CPU]);
	wddmseg_copy_record(&e, CPU, 250);
	KUNIT_EXPECT_EQ(test, 1000ull, e.ns[CPU]);
	/* one preemption of a second counts as 8 times the estimate */
	wddmseg_copy_record(&e, CPU, 1000000000ull);
	KUNIT_EXPECT_EQ(test, 1000ull + 7000 / 4, e.ns[CPU]);
	KUNIT_EXPECT_EQ(test, 4u, e.samples[CPU]);
	/* a zero-time measurement keeps the estimate above zero */
	memset(&e, 0, sizeof(e));
	wddmseg_copy_record(&e, ENGINE, 0);
	KUNIT_EXPECT_EQ(test, 1ull, e.ns[ENGINE]);
}

/*
 * The host gets busy: CPU copies that were twice as fast as the engine
 * now take ten times as long. The choice turns to the engine within a few
 * measurements, and back when the load goes, the CPU being measured again
 * by exploration alone.
 */
static void copycost_follows_load(struct kunit *test)
{
	struct wddmseg_copy_est e;
	unsigned int i, moves;

	est_set(&e, 1000, 2000, 16);
	KUNIT_ASSERT_EQ(test, CPU, decide(&e, ENGINE));
	for (i = 0; i < 3; i++)
		wddmseg_copy_record(&e, CPU, 20000);
	KUNIT_EXPECT_EQ(test, ENGINE, decide(&e, CPU));

	/* quiet again: only the moves the decisions give the CPU measure it */
	for (moves = 0; moves < 5000; moves++) {
		bool measure;
		enum wddmseg_copy_way w = wddmseg_copy_decide(&e, CPU,
							      &measure);

		if (measure)
			wddmseg_copy_record(&e, w, w == CPU ? 1000 : 2000);
		if (w == CPU && e.ns[CPU] < e.ns[ENGINE])
			break;
	}
	KUNIT_EXPECT_LT_MSG(test, moves, 5000u,
			    "the CPU's estimate never recovered: %llu ns",
			    e.ns[CPU]);
	KUNIT_EXPECT_EQ(test, CPU, decide(&e, ENGINE));
}

static struct kunit_case wddmseg_copycost_cases[] = {
	KUNIT_CASE(copycost_classes),
	KUNIT_CASE(copycost_prior_first),
	KUNIT_CASE(copycost_measures_other_way),
	KUNIT_CASE(copycost_cheaper_wins),
	KUNIT_CASE(copycost_explore_bounded),
	KUNIT_CASE(copycost_explore_close),
	KUNIT_CASE(copycost_engine_wakeup_unmeasured),
	KUNIT_CASE(copycost_engine_run_wins),
	KUNIT_CASE(copycost_ewma),
	KUNIT_CASE(copycost_follows_load),
	{}
};

static struct kunit_suite wddmseg_copycost_suite = {
	.name = "wddmseg_copycost",
	.test_cases = wddmseg_copycost_cases,
};

kunit_test_suite(wddmseg_copycost_suite);
