// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of a segment manager's move fence bookkeeping
 * (wddmseg_mgr_drop_signaled_move()): TTM adds the manager's move fence to
 * every allocation placed there, so a fence that has signaled is dropped,
 * and one that has not is kept, whatever else happens.
 *
 * Only the manager's move fence bookkeeping is used (move_lock and move,
 * or eviction_lock and eviction_fences[] since they became one fence per
 * context; wddmseg_compat.h): a zeroed manager with that initialized, and
 * a fence of a context of its own.
 */

#include <kunit/test.h>
#include <linux/dma-fence.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include <drm/ttm/ttm_resource.h>

#include "../wddmseg_device_types.h"
#include "../wddmseg_mgr.h"

static DEFINE_SPINLOCK(mgr_test_fence_lock);

static const char *mgr_test_fence_name(struct dma_fence *fence)
{
	return "wddmseg-mgr-test";
}

static const struct dma_fence_ops mgr_test_fence_ops = {
	.get_driver_name = mgr_test_fence_name,
	.get_timeline_name = mgr_test_fence_name,
};

static void mgr_move_fence_dropped_once_signaled(struct kunit *test)
{
	struct ttm_resource_manager *man;
	struct dma_fence *fence;

	man = kunit_kzalloc(test, sizeof(*man), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, man);
	wddmseg_man_move_init(man);

	/* No move fence: nothing happens. */
	wddmseg_mgr_drop_signaled_move(man);
	KUNIT_EXPECT_TRUE(test, !wddmseg_man_move_peek(man, 0));

	/* Freed by its last dma_fence_put(), not by KUnit. */
	fence = kzalloc_obj(*fence, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fence);
	dma_fence_init(fence, &mgr_test_fence_ops, &mgr_test_fence_lock,
		       dma_fence_context_alloc(1), 1);
	wddmseg_man_move_set(man, fence);

	/* Still queued: new allocations must wait for it. */
	wddmseg_mgr_drop_signaled_move(man);
	KUNIT_EXPECT_PTR_EQ(test, wddmseg_man_move_peek(man, fence->context), fence);
	KUNIT_EXPECT_EQ(test, kref_read(&fence->refcount), 2U);

	/* Done: dropped, and the manager's reference with it. */
	dma_fence_signal(fence);
	wddmseg_mgr_drop_signaled_move(man);
	KUNIT_EXPECT_PTR_EQ(test, wddmseg_man_move_peek(man, fence->context),
			    (struct dma_fence *)NULL);
	KUNIT_EXPECT_EQ(test, kref_read(&fence->refcount), 1U);
	dma_fence_put(fence);
}

static struct kunit_case mgr_test_cases[] = {
	KUNIT_CASE(mgr_move_fence_dropped_once_signaled),
	{}
};

static struct kunit_suite mgr_suite = {
	.name = "wddmseg_mgr",
	.test_cases = mgr_test_cases,
};

kunit_test_suite(mgr_suite);
