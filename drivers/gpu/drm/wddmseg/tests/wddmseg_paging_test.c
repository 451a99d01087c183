// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the paging-buffer encoder (wddmseg_paging.c): every WDDM
 * paging operation the driver emits, checked word by word against the
 * command formats written down in wddmseg_hw.h, not against the encoder's
 * own helpers. Each command is encoded into a buffer pre-filled with a
 * sentinel, so a command that writes past its length, or returns a length
 * different from its header, fails too.
 *
 * And where the engine writes them (DmaBufferWriteOffset: the offset of
 * the current operation from the start of the paging buffer, here the
 * command ring): wddmseg_engine_reserve() and wddmseg_engine_emit() on an
 * engine with a ring and an arena in memory and nothing in flight (no
 * device: a job is never committed).
 */

#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/wait.h>

#include "../wddmseg_device_types.h"
#include "../wddmseg_engine.h"
#include "../wddmseg_paging.h"
#include "../wddmseg_hw.h"

#define SENTINEL	0x5a5a5a5a5a5a5a5aULL
#define BUF_QWORDS	16

static void fill_sentinel(u64 *cmd)
{
	unsigned int i;

	for (i = 0; i < BUF_QWORDS; i++)
		cmd[i] = SENTINEL;
}

/* Header: opcode, length, nothing else; the rest of the buffer untouched. */
static void check_frame(struct kunit *test, const u64 *cmd, u32 ret,
			u32 opcode, u32 qwords)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, ret, qwords);
	KUNIT_EXPECT_EQ(test, WDDMSEG_CMD_OPCODE(cmd[0]), (u64)opcode);
	KUNIT_EXPECT_EQ(test, WDDMSEG_CMD_QWORDS(cmd[0]), (u64)qwords);
	/* bits 8..15 and 32..63 of the header are zero */
	KUNIT_EXPECT_EQ(test, cmd[0] & ~(GENMASK_ULL(7, 0) | GENMASK_ULL(31, 16)),
			0ULL);
	for (i = qwords; i < BUF_QWORDS; i++)
		KUNIT_EXPECT_EQ_MSG(test, cmd[i], SENTINEL,
				    "word %u past the command was written", i);
}

static const struct wddmseg_loc seg_loc = {
	.segment_id = 2,
	.addr = 0x123456789000ULL,
	.offset = 0xabc,	/* meaningless for a segment: must not leak */
};

static const struct wddmseg_loc list_loc = {
	.segment_id = 0,
	.addr = 0xfee1000ULL,	/* DMA address of the page list */
	.offset = 0x3010,
};

static void paging_transfer(struct kunit *test)
{
	u64 cmd[BUF_QWORDS];
	u32 ret;

	fill_sentinel(cmd);
	ret = wddmseg_encode_transfer(cmd, SZ_8M, &list_loc, &seg_loc);
	check_frame(test, cmd, ret, WDDMSEG_OP_TRANSFER, 8);
	KUNIT_EXPECT_EQ(test, cmd[1], (u64)SZ_8M);
	/* source: page list, its offset in word 2 */
	KUNIT_EXPECT_EQ(test, cmd[2], 0ULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 0xfee1000ULL);
	KUNIT_EXPECT_EQ(test, cmd[4], 0x3010ULL);
	/* destination: segment, word 2 must be zero */
	KUNIT_EXPECT_EQ(test, cmd[5], 2ULL);
	KUNIT_EXPECT_EQ(test, cmd[6], 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, cmd[7], 0ULL);
}

static void paging_fill(struct kunit *test)
{
	u64 cmd[BUF_QWORDS];
	u32 ret;

	fill_sentinel(cmd);
	ret = wddmseg_encode_fill(cmd, SZ_64K, 0xdeadbeef, &seg_loc);
	check_frame(test, cmd, ret, WDDMSEG_OP_FILL, 6);
	KUNIT_EXPECT_EQ(test, cmd[1], (u64)SZ_64K);
	KUNIT_EXPECT_EQ(test, cmd[2], 0xdeadbeefULL);	/* bits 32..63 zero */
	KUNIT_EXPECT_EQ(test, cmd[3], 2ULL);
	KUNIT_EXPECT_EQ(test, cmd[4], 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, cmd[5], 0ULL);
}

static void paging_discard(struct kunit *test)
{
	u64 cmd[BUF_QWORDS];
	u32 ret;

	fill_sentinel(cmd);
	ret = wddmseg_encode_discard(cmd, 3 * SZ_4K, &seg_loc);
	check_frame(test, cmd, ret, WDDMSEG_OP_DISCARD, 5);
	KUNIT_EXPECT_EQ(test, cmd[1], (u64)(3 * SZ_4K));
	KUNIT_EXPECT_EQ(test, cmd[2], 2ULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, cmd[4], 0ULL);
}

/* READ copies GPU -> system, WRITE system -> GPU: same words, own opcode. */
static void paging_physical(struct kunit *test)
{
	u64 cmd[BUF_QWORDS];
	u32 ret;

	fill_sentinel(cmd);
	ret = wddmseg_encode_read_physical(cmd, 13, 0x100000007ULL,
					   0x7654321ULL);
	check_frame(test, cmd, ret, WDDMSEG_OP_READ_PHYSICAL, 4);
	KUNIT_EXPECT_EQ(test, cmd[1], 13ULL);
	KUNIT_EXPECT_EQ(test, cmd[2], 0x100000007ULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 0x7654321ULL);

	fill_sentinel(cmd);
	ret = wddmseg_encode_write_physical(cmd, SZ_16K, 0x4000001ULL,
					    0x89abc000ULL);
	check_frame(test, cmd, ret, WDDMSEG_OP_WRITE_PHYSICAL, 4);
	KUNIT_EXPECT_EQ(test, cmd[1], (u64)SZ_16K);
	KUNIT_EXPECT_EQ(test, cmd[2], 0x4000001ULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 0x89abc000ULL);
	KUNIT_EXPECT_NE(test, (u64)WDDMSEG_OP_READ_PHYSICAL,
			(u64)WDDMSEG_OP_WRITE_PHYSICAL);
}

static void paging_aperture(struct kunit *test)
{
	u64 cmd[BUF_QWORDS];
	u32 ret;

	fill_sentinel(cmd);
	ret = wddmseg_encode_map_aperture(cmd, 3, WDDMSEG_MAP_CACHE_COHERENT,
					  0x10, 0x200, 0xc0de000ULL);
	check_frame(test, cmd, ret, WDDMSEG_OP_MAP_APERTURE, 5);
	KUNIT_EXPECT_EQ(test, cmd[1], 3ULL | BIT_ULL(32));
	KUNIT_EXPECT_EQ(test, cmd[2], 0x10ULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 0x200ULL);
	KUNIT_EXPECT_EQ(test, cmd[4], 0xc0de000ULL);

	fill_sentinel(cmd);
	wddmseg_encode_map_aperture(cmd, 3, 0, 0, 1, 0x1000);
	KUNIT_EXPECT_EQ(test, cmd[1], 3ULL);	/* no coherence bit */

	fill_sentinel(cmd);
	wddmseg_encode_map_aperture(cmd, 3, WDDMSEG_MAP_CPU_CACHED | BIT_ULL(40),
				    0, 1, 0x1000);
	KUNIT_EXPECT_EQ(test, cmd[1], 3ULL | BIT_ULL(33));	/* no stray bits */

	fill_sentinel(cmd);
	ret = wddmseg_encode_flush_aperture(cmd, 4, 0x30, 0x40);
	check_frame(test, cmd, ret, WDDMSEG_OP_FLUSH_APERTURE, 4);
	KUNIT_EXPECT_EQ(test, cmd[1], 4ULL);
	KUNIT_EXPECT_EQ(test, cmd[2], 0x30ULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 0x40ULL);

	fill_sentinel(cmd);
	ret = wddmseg_encode_unmap_aperture(cmd, 4, 0x30, 0x40, 0xd000ULL);
	check_frame(test, cmd, ret, WDDMSEG_OP_UNMAP_APERTURE, 5);
	KUNIT_EXPECT_EQ(test, cmd[1], 4ULL);
	KUNIT_EXPECT_EQ(test, cmd[2], 0x30ULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 0x40ULL);
	KUNIT_EXPECT_EQ(test, cmd[4], 0xd000ULL);
}

static void paging_fence_nop(struct kunit *test)
{
	u64 cmd[BUF_QWORDS];
	unsigned int i;
	u32 ret;

	fill_sentinel(cmd);
	ret = wddmseg_encode_fence(cmd, 0x100000002ULL, 0xf00d008ULL,
				   WDDMSEG_FENCE_IRQ);
	check_frame(test, cmd, ret, WDDMSEG_OP_FENCE, 4);
	KUNIT_EXPECT_EQ(test, cmd[1], 0x100000002ULL);
	KUNIT_EXPECT_EQ(test, cmd[2], 0xf00d008ULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 1ULL);

	fill_sentinel(cmd);
	ret = wddmseg_encode_nop(cmd, 7);
	check_frame(test, cmd, ret, WDDMSEG_OP_NOP, 7);
	for (i = 1; i < 7; i++)
		KUNIT_EXPECT_EQ(test, cmd[i], 0ULL);

	fill_sentinel(cmd);
	ret = wddmseg_encode_nop(cmd, 1);
	check_frame(test, cmd, ret, WDDMSEG_OP_NOP, 1);
}

/*
 * An engine with its ring and arena in memory, nothing in flight, of a
 * device that is all zeroes (runtime PM is never touched: no job).
 */
static struct wddmseg_engine *test_engine(struct kunit *test)
{
	struct wddmseg_device *wdev = kunit_kzalloc(test, sizeof(*wdev), GFP_KERNEL);
	struct wddmseg_engine *eng;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, wdev);
	eng = &wdev->engine;
	eng->wdev = wdev;
	eng->ring = kunit_kzalloc(test, WDDMSEG_RING_BYTES, GFP_KERNEL);
	eng->arena = kunit_kzalloc(test, WDDMSEG_ARENA_BYTES, GFP_KERNEL);
	eng->writeback = kunit_kzalloc(test, sizeof(*eng->writeback), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng->ring);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng->arena);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, eng->writeback);
	eng->ring_dma = 0x10000000;
	eng->arena_dma = 0x20000000;
	mutex_init(&eng->lock);
	spin_lock_init(&eng->fence_lock);
	INIT_LIST_HEAD(&eng->pending);
	init_waitqueue_head(&eng->space_wq);
	return eng;
}

/* The ring word at byte offset @off, in CPU order. */
static u64 ring_word(const struct wddmseg_engine *eng, u32 off)
{
	return le64_to_cpu(eng->ring[off / 8]);
}

/*
 * Commands go where the job is: the first at the ring's tail, each next
 * one right after the last (the page's packing: no gap), and the job's
 * page lists where its arena bytes are, at the matching DMA address.
 */
static void paging_write_offset(struct kunit *test)
{
	struct wddmseg_engine *eng = test_engine(test);
	struct wddmseg_loc src = { .segment_id = 1, .addr = 0x1000 };
	struct wddmseg_loc dst = { .segment_id = 2, .addr = 0x2000 };
	u64 cmd[BUF_QWORDS];
	struct wddmseg_job job;
	u32 n, at;

	eng->ring_tail = 0x1000;
	eng->ring_free = 0x1000;
	mutex_lock(&eng->lock);
	KUNIT_ASSERT_EQ(test, wddmseg_engine_reserve(eng, WDDMSEG_TRANSFER_QWORDS +
						     WDDMSEG_FILL_QWORDS, 64, &job), 0);
	KUNIT_EXPECT_EQ(test, job.ring_start, 0x1000U);
	KUNIT_EXPECT_EQ(test, job.ring_pos, 0x1000U);
	KUNIT_EXPECT_EQ(test, job.arena_dma - eng->arena_dma,
			(dma_addr_t)(job.arena - eng->arena));

	n = wddmseg_encode_transfer(cmd, SZ_4K, &src, &dst);
	wddmseg_engine_emit(eng, &job, cmd, n);
	at = 0x1000 + n * 8;
	KUNIT_EXPECT_EQ(test, job.ring_pos, at);
	n = wddmseg_encode_fill(cmd, SZ_4K, 0xabcd, &dst);
	wddmseg_engine_emit(eng, &job, cmd, n);
	KUNIT_EXPECT_EQ(test, job.ring_pos, at + n * 8);
	mutex_unlock(&eng->lock);

	/* the Transfer at the tail, the Fill right behind it */
	KUNIT_EXPECT_EQ(test, WDDMSEG_CMD_OPCODE(ring_word(eng, 0x1000)),
			(u64)WDDMSEG_OP_TRANSFER);
	KUNIT_EXPECT_EQ(test, ring_word(eng, 0x1008), (u64)SZ_4K);
	KUNIT_EXPECT_EQ(test, WDDMSEG_CMD_OPCODE(ring_word(eng, at)),
			(u64)WDDMSEG_OP_FILL);
	KUNIT_EXPECT_EQ(test, ring_word(eng, at + 8), (u64)SZ_4K);
	/* nothing before the job, nothing after it */
	KUNIT_EXPECT_EQ(test, ring_word(eng, 0x0ff8), 0ULL);
	KUNIT_EXPECT_EQ(test, ring_word(eng, at + n * 8), 0ULL);
}

/*
 * A job that does not fit before the end of the ring starts at offset 0;
 * a NOP at the old tail covers exactly the bytes skipped, so the device,
 * reading on from the tail, reaches the job's first command.
 */
static void paging_write_offset_wraps(struct kunit *test)
{
	struct wddmseg_engine *eng = test_engine(test);
	const u32 tail = WDDMSEG_RING_BYTES - 64;
	u64 cmd[BUF_QWORDS];
	struct wddmseg_job job;
	u64 nop;
	u32 n;

	eng->ring_tail = tail;
	eng->ring_free = tail;
	mutex_lock(&eng->lock);
	/* 8 + 4 (the FENCE) words: 96 bytes, 32 more than fit */
	KUNIT_ASSERT_EQ(test, wddmseg_engine_reserve(eng, WDDMSEG_TRANSFER_QWORDS,
						     0, &job), 0);
	KUNIT_EXPECT_EQ(test, job.ring_start, 0U);
	KUNIT_EXPECT_EQ(test, job.ring_pos, 0U);
	n = wddmseg_encode_fill(cmd, SZ_4K, 1, &(struct wddmseg_loc){ .segment_id = 1 });
	wddmseg_engine_emit(eng, &job, cmd, n);
	KUNIT_EXPECT_EQ(test, job.ring_pos, n * 8);
	mutex_unlock(&eng->lock);

	nop = ring_word(eng, tail);
	KUNIT_EXPECT_EQ(test, WDDMSEG_CMD_OPCODE(nop), (u64)WDDMSEG_OP_NOP);
	KUNIT_EXPECT_EQ(test, WDDMSEG_CMD_QWORDS(nop) * 8, (u64)64);
	KUNIT_EXPECT_EQ(test, WDDMSEG_CMD_OPCODE(ring_word(eng, 0)),
			(u64)WDDMSEG_OP_FILL);
}

static struct kunit_case wddmseg_paging_cases[] = {
	KUNIT_CASE(paging_transfer),
	KUNIT_CASE(paging_fill),
	KUNIT_CASE(paging_discard),
	KUNIT_CASE(paging_physical),
	KUNIT_CASE(paging_aperture),
	KUNIT_CASE(paging_fence_nop),
	KUNIT_CASE(paging_write_offset),
	KUNIT_CASE(paging_write_offset_wraps),
	{}
};

static struct kunit_suite wddmseg_paging_suite = {
	.name = "wddmseg_paging",
	.test_cases = wddmseg_paging_cases,
};

kunit_test_suite(wddmseg_paging_suite);
