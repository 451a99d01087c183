// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of VRAM made of blocks and of known-zero tracking
 * (wddmseg_mgr.c, which includes this file): wddmseg_mgr_place() on a
 * manager with only its drm_mm, lock, commit limit and zero bitmap set,
 * no device and no TTM buffer object. Holes are made by reserving ranges.
 */

#include <kunit/test.h>

#define VRAM_TEST_PAGES	64

static struct wddmseg_mgr *vram_test_mgr(struct kunit *test, u64 limit)
{
	struct wddmseg_mgr *mgr;

	mgr = kunit_kzalloc(test, sizeof(*mgr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mgr);
	mgr->zeroed = kunit_kcalloc(test, BITS_TO_LONGS(VRAM_TEST_PAGES),
				    sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mgr->zeroed);
	spin_lock_init(&mgr->lock);
	drm_mm_init(&mgr->mm, 0, VRAM_TEST_PAGES);
	mgr->manager.size = VRAM_TEST_PAGES;
	mgr->commit_limit = limit;
	return mgr;
}

static struct drm_mm_node *vram_test_reserve(struct kunit *test,
					     struct wddmseg_mgr *mgr,
					     u64 start, u64 size)
{
	struct drm_mm_node *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	r->start = start;
	r->size = size;
	KUNIT_ASSERT_EQ(test, drm_mm_reserve_node(&mgr->mm, r), 0);
	return r;
}

static struct wddmseg_mgr_node *vram_test_node(struct kunit *test)
{
	struct wddmseg_mgr_node *node;

	node = kunit_kzalloc(test, sizeof(*node), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, node);
	return node;
}

static void vram_test_done(struct wddmseg_mgr *mgr)
{
	struct drm_mm_node *r, *next;

	drm_mm_for_each_node_safe(r, next, &mgr->mm)
		drm_mm_remove_node(r);
	drm_mm_takedown(&mgr->mm);
}

/* Holes [0, 6), [16, 28), [32, 40): 26 free pages, none 20 long. */
static void vram_test_split(struct kunit *test, struct wddmseg_mgr *mgr)
{
	vram_test_reserve(test, mgr, 6, 10);
	vram_test_reserve(test, mgr, 28, 4);
	vram_test_reserve(test, mgr, 40, 24);
}

static void vram_one_range_best_fit_topdown(struct kunit *test)
{
	struct wddmseg_mgr *mgr = vram_test_mgr(test, VRAM_TEST_PAGES);
	struct wddmseg_mgr_node *a = vram_test_node(test);
	struct wddmseg_mgr_node *b = vram_test_node(test);

	/* Holes [0, 4) and [8, 24). */
	vram_test_reserve(test, mgr, 4, 4);
	vram_test_reserve(test, mgr, 24, 40);
	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, a, 4, 1, 0,
						VRAM_TEST_PAGES, false, true), 0);
	KUNIT_EXPECT_EQ(test, a->mm.start, 0ULL);
	KUNIT_EXPECT_EQ(test, a->nr_blocks, 0U);
	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, b, 4, 1, 0,
						VRAM_TEST_PAGES, true, true), 0);
	KUNIT_EXPECT_EQ(test, b->mm.start, 20ULL);
	KUNIT_EXPECT_EQ(test, mgr->committed, 8ULL);
	wddmseg_mgr_put_ranges(mgr, a);
	wddmseg_mgr_put_ranges(mgr, b);
	KUNIT_EXPECT_EQ(test, mgr->committed, 0ULL);
	vram_test_done(mgr);
}

static void vram_blocks_when_split(struct kunit *test)
{
	struct wddmseg_mgr *mgr = vram_test_mgr(test, VRAM_TEST_PAGES);
	struct wddmseg_mgr_node *n = vram_test_node(test);
	u64 run, seg;

	vram_test_split(test, mgr);
	/* Contiguity required: no room. */
	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, n, 20, 1, 0,
						VRAM_TEST_PAGES, false, false),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, mgr->committed, 0ULL);
	/* 10 in the 12-page hole, 5 in the 6-page one, 5 in the 8-page one. */
	KUNIT_ASSERT_EQ(test, wddmseg_mgr_place(mgr, n, 20, 1, 0,
						VRAM_TEST_PAGES, false, true), 0);
	KUNIT_EXPECT_EQ(test, n->pages, 20ULL);
	KUNIT_ASSERT_EQ(test, n->nr_blocks, 2U);
	KUNIT_EXPECT_EQ(test, n->mm.start, 16ULL);
	KUNIT_EXPECT_EQ(test, n->mm.size, 10ULL);
	KUNIT_EXPECT_EQ(test, n->blocks[0]->mm.start, 0ULL);
	KUNIT_EXPECT_EQ(test, n->blocks[0]->mm.size, 5ULL);
	KUNIT_EXPECT_EQ(test, n->blocks[0]->pgoff, 10ULL);
	KUNIT_EXPECT_EQ(test, n->blocks[1]->mm.start, 32ULL);
	KUNIT_EXPECT_EQ(test, n->blocks[1]->mm.size, 5ULL);
	KUNIT_EXPECT_EQ(test, n->blocks[1]->pgoff, 15ULL);
	seg = wddmseg_mgr_res_run(&n->base, 3, &run);
	KUNIT_EXPECT_EQ(test, seg, 19ULL);
	KUNIT_EXPECT_EQ(test, run, 7ULL);
	seg = wddmseg_mgr_res_run(&n->base, 12, &run);
	KUNIT_EXPECT_EQ(test, seg, 2ULL);
	KUNIT_EXPECT_EQ(test, run, 3ULL);
	seg = wddmseg_mgr_res_run(&n->base, 19, &run);
	KUNIT_EXPECT_EQ(test, seg, 36ULL);
	KUNIT_EXPECT_EQ(test, run, 1ULL);
	KUNIT_EXPECT_EQ(test, mgr->committed, 20ULL);
	wddmseg_mgr_put_ranges(mgr, n);
	KUNIT_EXPECT_EQ(test, mgr->committed, 0ULL);
	KUNIT_EXPECT_EQ(test, n->nr_blocks, 0U);
	KUNIT_EXPECT_FALSE(test, drm_mm_node_allocated(&n->mm));
	vram_test_done(mgr);
}

static void vram_range_and_alignment(struct kunit *test)
{
	struct wddmseg_mgr *mgr = vram_test_mgr(test, VRAM_TEST_PAGES);
	struct wddmseg_mgr_node *a = vram_test_node(test);
	struct wddmseg_mgr_node *b = vram_test_node(test);
	struct wddmseg_mgr_node *c = vram_test_node(test);

	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, a, 4, 1, 10, 20,
						false, true), 0);
	KUNIT_EXPECT_EQ(test, a->mm.start, 10ULL);
	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, b, 4, 1, 10, 20,
						true, true), 0);
	KUNIT_EXPECT_EQ(test, b->mm.start, 16ULL);
	/* [14, 16) is left, too small, even in blocks of 4 aligned pages. */
	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, c, 4, 4, 10, 20,
						false, true), -ENOSPC);
	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, c, 6, 4, 0,
						VRAM_TEST_PAGES, false, true), 0);
	KUNIT_EXPECT_EQ(test, c->mm.start % 4, 0ULL);
	KUNIT_EXPECT_EQ(test, mgr->committed, 14ULL);
	wddmseg_mgr_put_ranges(mgr, a);
	wddmseg_mgr_put_ranges(mgr, b);
	wddmseg_mgr_put_ranges(mgr, c);
	vram_test_done(mgr);
}

static void vram_commit_limit(struct kunit *test)
{
	struct wddmseg_mgr *mgr = vram_test_mgr(test, 16);
	struct wddmseg_mgr_node *a = vram_test_node(test);
	struct wddmseg_mgr_node *b = vram_test_node(test);

	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, a, 8, 1, 0,
						VRAM_TEST_PAGES, false, true), 0);
	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, b, 12, 1, 0,
						VRAM_TEST_PAGES, false, true),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, mgr->committed, 8ULL);
	KUNIT_EXPECT_FALSE(test, drm_mm_node_allocated(&b->mm));
	wddmseg_mgr_put_ranges(mgr, a);
	KUNIT_EXPECT_EQ(test, mgr->committed, 0ULL);
	vram_test_done(mgr);
}

static void vram_scatter_failure_keeps_nothing(struct kunit *test)
{
	struct wddmseg_mgr *mgr = vram_test_mgr(test, VRAM_TEST_PAGES);
	struct wddmseg_mgr_node *n = vram_test_node(test);

	vram_test_split(test, mgr);
	wddmseg_mgr_set_zeroed(mgr, true);
	KUNIT_EXPECT_EQ(test, bitmap_weight(mgr->zeroed, VRAM_TEST_PAGES), 26U);
	/* 30 pages, 26 free: blocks are taken, then all given back. */
	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, n, 30, 1, 0,
						VRAM_TEST_PAGES, false, true),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, mgr->committed, 0ULL);
	KUNIT_EXPECT_EQ(test, n->nr_blocks, 0U);
	KUNIT_EXPECT_FALSE(test, n->wiped);
	KUNIT_EXPECT_EQ(test, bitmap_weight(mgr->zeroed, VRAM_TEST_PAGES), 26U);
	/* The same 20 pages are still placed, and still known zero. */
	KUNIT_EXPECT_EQ(test, wddmseg_mgr_place(mgr, n, 20, 1, 0,
						VRAM_TEST_PAGES, false, true), 0);
	KUNIT_EXPECT_TRUE(test, n->zeroed);
	wddmseg_mgr_put_ranges(mgr, n);
	vram_test_done(mgr);
}

static void vram_known_zero(struct kunit *test)
{
	struct wddmseg_mgr *mgr = vram_test_mgr(test, VRAM_TEST_PAGES);
	struct wddmseg_mgr_node *n = vram_test_node(test);

	wddmseg_mgr_set_zeroed(mgr, true);
	KUNIT_EXPECT_EQ(test, bitmap_weight(mgr->zeroed, VRAM_TEST_PAGES),
			(unsigned int)VRAM_TEST_PAGES);
	KUNIT_ASSERT_EQ(test, wddmseg_mgr_place(mgr, n, 8, 1, 0,
						VRAM_TEST_PAGES, false, true), 0);
	KUNIT_EXPECT_TRUE(test, n->zeroed);
	KUNIT_EXPECT_EQ(test, bitmap_weight(mgr->zeroed, VRAM_TEST_PAGES), 56U);
	/* Released without a wipe: its pages are not known zero. */
	wddmseg_mgr_put_ranges(mgr, n);
	KUNIT_EXPECT_EQ(test, bitmap_weight(mgr->zeroed, VRAM_TEST_PAGES), 56U);
	KUNIT_ASSERT_EQ(test, wddmseg_mgr_place(mgr, n, 8, 1, 0,
						VRAM_TEST_PAGES, false, true), 0);
	KUNIT_EXPECT_EQ(test, n->mm.start, 0ULL);
	KUNIT_EXPECT_FALSE(test, n->zeroed);
	/* Released wiped: known zero again. */
	n->wiped = true;
	wddmseg_mgr_put_ranges(mgr, n);
	n->wiped = false;
	KUNIT_EXPECT_EQ(test, bitmap_weight(mgr->zeroed, VRAM_TEST_PAGES),
			(unsigned int)VRAM_TEST_PAGES);
	KUNIT_ASSERT_EQ(test, wddmseg_mgr_place(mgr, n, 8, 1, 0,
						VRAM_TEST_PAGES, false, true), 0);
	KUNIT_EXPECT_TRUE(test, n->zeroed);
	/* Over a mix: [0, 8) released not wiped, [8, 16) zero. */
	wddmseg_mgr_put_ranges(mgr, n);
	KUNIT_ASSERT_EQ(test, wddmseg_mgr_place(mgr, n, 16, 1, 0,
						VRAM_TEST_PAGES, false, true), 0);
	KUNIT_EXPECT_EQ(test, n->mm.start, 0ULL);
	KUNIT_EXPECT_FALSE(test, n->zeroed);
	wddmseg_mgr_put_ranges(mgr, n);
	/* Forgotten: nothing is known zero. */
	wddmseg_mgr_set_zeroed(mgr, false);
	KUNIT_EXPECT_EQ(test, bitmap_weight(mgr->zeroed, VRAM_TEST_PAGES), 0U);
	KUNIT_ASSERT_EQ(test, wddmseg_mgr_place(mgr, n, 8, 1, 32,
						VRAM_TEST_PAGES, false, true), 0);
	KUNIT_EXPECT_FALSE(test, n->zeroed);
	wddmseg_mgr_put_ranges(mgr, n);
	vram_test_done(mgr);
}

static struct kunit_case vram_test_cases[] = {
	KUNIT_CASE(vram_one_range_best_fit_topdown),
	KUNIT_CASE(vram_blocks_when_split),
	KUNIT_CASE(vram_range_and_alignment),
	KUNIT_CASE(vram_commit_limit),
	KUNIT_CASE(vram_scatter_failure_keeps_nothing),
	KUNIT_CASE(vram_known_zero),
	{}
};

static struct kunit_suite vram_suite = {
	.name = "wddmseg_vram",
	.test_cases = vram_test_cases,
};

kunit_test_suite(vram_suite);
