// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the wrap-around of the copy engine's command ring and
 * page-list arena (wddmseg_wrap.h, as wddmseg_engine_reserve() and
 * wddmseg_engine_commit() use it): a piece always lies inside the buffer
 * and away from the pieces not freed yet, whether it ends exactly at the
 * end, needs padding to go to the start, or fills the buffer up to the
 * word kept free.
 */

#include <kunit/test.h>
#include <linux/sizes.h>

#include "../wddmseg_wrap.h"

#define WRAP_SIZE	SZ_4K
#define WRAP_PIECES	64	/* at most in flight: WRAP_SIZE / 8 / 8 */

/**
 * struct wrap_sim - a producer and an in-order consumer of one buffer
 * @size: buffer bytes
 * @tail: next free offset
 * @free: where the oldest piece in flight starts (or @tail: none)
 * @start: start of each piece in flight, oldest first, from @first
 * @end: offset just past each of them (wddmseg_wrap_end())
 * @len: bytes of each of them
 * @first: index of the oldest piece in @start, @end and @len
 * @count: pieces in flight
 */
struct wrap_sim {
	u32 size;
	u32 tail;
	u32 free;
	u32 start[WRAP_PIECES];
	u32 end[WRAP_PIECES];
	u32 len[WRAP_PIECES];
	unsigned int first;
	unsigned int count;
};

/* The oldest piece is done: its space is free again, as on retire. */
static void wrap_retire(struct wrap_sim *w)
{
	w->free = w->end[w->first];
	w->first = (w->first + 1) % WRAP_PIECES;
	w->count--;
}

/* Whether [a, a + alen) and [b, b + blen) share a byte. */
static bool wrap_overlap(u32 a, u32 alen, u32 b, u32 blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * Place @bytes as the engine does, retiring the oldest pieces until they
 * fit, and check the piece and the padding before it against the buffer
 * and every piece still in flight. Returns the piece's start.
 */
static u32 wrap_place(struct kunit *test, struct wrap_sim *w, u32 bytes)
{
	u32 pad, start, i, k;

	while (!wddmseg_wrap_fits(w->size, w->tail, w->free, bytes)) {
		KUNIT_ASSERT_GT_MSG(test, w->count, 0U,
				    "%u bytes do not fit an empty buffer (tail %u)",
				    bytes, w->tail);
		wrap_retire(w);
	}
	KUNIT_ASSERT_LT_MSG(test, w->count, (unsigned int)WRAP_PIECES,
			    "more pieces in flight than the word kept free allows");
	pad = wddmseg_wrap_pad(w->size, w->tail, bytes);
	start = wddmseg_wrap_start(w->size, w->tail, bytes);
	KUNIT_EXPECT_LE_MSG(test, start + bytes, w->size,
			    "%u bytes placed at %u: past the end of %u",
			    bytes, start, w->size);
	KUNIT_EXPECT_TRUE(test, !pad || start == 0);
	for (i = 0; i < w->count; i++) {
		k = (w->first + i) % WRAP_PIECES;
		KUNIT_EXPECT_FALSE_MSG(test,
				       wrap_overlap(start, bytes, w->start[k],
						    w->len[k]),
				       "%u bytes at %u overlap the piece at %u (%u bytes) in flight",
				       bytes, start, w->start[k], w->len[k]);
		KUNIT_EXPECT_FALSE_MSG(test,
				       pad && wrap_overlap(w->tail, pad,
							   w->start[k],
							   w->len[k]),
				       "padding at %u (%u bytes) overlaps the piece at %u in flight",
				       w->tail, pad, w->start[k]);
	}
	k = (w->first + w->count) % WRAP_PIECES;
	w->start[k] = start;
	w->len[k] = bytes;
	w->end[k] = wddmseg_wrap_end(w->size, start, bytes);
	w->tail = w->end[k];
	KUNIT_EXPECT_LT(test, w->tail, w->size);
	if (!w->count)
		w->free = start;
	w->count++;
	return start;
}

static void wrap_init(struct wrap_sim *w)
{
	memset(w, 0, sizeof(*w));
	w->size = WRAP_SIZE;
}

/* A piece that ends exactly at the end leaves the tail at 0, not past it. */
static void wrap_piece_ends_at_end(struct kunit *test)
{
	struct wrap_sim *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	wrap_init(w);
	KUNIT_EXPECT_EQ(test, wrap_place(test, w, SZ_1K), 0U);
	KUNIT_EXPECT_EQ(test, wrap_place(test, w, SZ_1K), (u32)SZ_1K);
	KUNIT_EXPECT_EQ(test, wrap_place(test, w, SZ_1K), (u32)SZ_2K);
	wrap_retire(w);
	/* ends at 4 KiB, with the first piece freed and the others in flight */
	KUNIT_EXPECT_EQ(test, wrap_place(test, w, SZ_1K), (u32)(SZ_2K + SZ_1K));
	KUNIT_EXPECT_EQ(test, w->tail, 0U);
	/* the next one goes to the start, where the first piece was */
	KUNIT_EXPECT_EQ(test, wrap_place(test, w, 512), 0U);
	KUNIT_EXPECT_EQ(test, w->tail, 512U);
}

/* A piece that does not fit before the end goes to the start, padded. */
static void wrap_piece_padded_to_start(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, wddmseg_wrap_pad(WRAP_SIZE, WRAP_SIZE - 16, 64), 16U);
	KUNIT_EXPECT_EQ(test, wddmseg_wrap_start(WRAP_SIZE, WRAP_SIZE - 16, 64), 0U);
	KUNIT_EXPECT_EQ(test, wddmseg_wrap_end(WRAP_SIZE, 0, 64), 64U);
	/* an exact fit needs no padding */
	KUNIT_EXPECT_EQ(test, wddmseg_wrap_pad(WRAP_SIZE, WRAP_SIZE - 64, 64), 0U);
	KUNIT_EXPECT_EQ(test, wddmseg_wrap_start(WRAP_SIZE, WRAP_SIZE - 64, 64),
			(u32)(WRAP_SIZE - 64));
	/* the padding counts: 2032 used + 16 + 2048 + 8 > 4096 */
	KUNIT_EXPECT_FALSE(test, wddmseg_wrap_fits(WRAP_SIZE, WRAP_SIZE - 16,
						   WRAP_SIZE - 16 - 2032,
						   SZ_2K));
	KUNIT_EXPECT_TRUE(test, wddmseg_wrap_fits(WRAP_SIZE, WRAP_SIZE - 16,
						  WRAP_SIZE - 16 - 2032,
						  SZ_2K - 16));
}

/* Full up to one word: tail == free must keep meaning empty. */
static void wrap_full_keeps_a_word(struct kunit *test)
{
	/* empty, from the start and from the middle */
	KUNIT_EXPECT_TRUE(test, wddmseg_wrap_fits(WRAP_SIZE, 0, 0, WRAP_SIZE - 8));
	KUNIT_EXPECT_FALSE(test, wddmseg_wrap_fits(WRAP_SIZE, 0, 0, WRAP_SIZE));
	/* 8 bytes left in all: nothing fits, not even 8 */
	KUNIT_EXPECT_FALSE(test, wddmseg_wrap_fits(WRAP_SIZE, WRAP_SIZE - 8, 0, 8));
	KUNIT_EXPECT_FALSE(test, wddmseg_wrap_fits(WRAP_SIZE, 8, 16, 8));
	KUNIT_EXPECT_TRUE(test, wddmseg_wrap_fits(WRAP_SIZE, 8, 24, 8));
}

/*
 * Thousands of pieces of mixed sizes, multiples of 8 up to half the
 * buffer and sizes that divide it (so that pieces end exactly at the end
 * again and again), through many wraps.
 */
static void wrap_many_pieces(struct kunit *test)
{
	static const u32 even[] = { 8, 64, 512, SZ_1K, SZ_2K };
	struct wrap_sim *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	u32 x = 0x2545f491, bytes, wraps = 0, exact = 0, prev;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	wrap_init(w);
	for (i = 0; i < 20000; i++) {
		/* xorshift32: the same sequence on every run */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (x & 1)
			bytes = even[(x >> 1) % ARRAY_SIZE(even)];
		else
			bytes = 8 * (1 + (x >> 1) % (WRAP_SIZE / 2 / 8));
		prev = w->tail;
		wrap_place(test, w, bytes);
		if (w->tail < prev)
			wraps++;
		if (!w->tail)
			exact++;
		if (test->status == KUNIT_FAILURE)
			return;
		/* the consumer lags by a varying number of pieces */
		while (w->count > 1 + (x >> 8) % 8)
			wrap_retire(w);
	}
	KUNIT_EXPECT_GT(test, wraps, 100U);
	KUNIT_EXPECT_GT(test, exact, 10U);
}

static struct kunit_case wrap_test_cases[] = {
	KUNIT_CASE(wrap_piece_ends_at_end),
	KUNIT_CASE(wrap_piece_padded_to_start),
	KUNIT_CASE(wrap_full_keeps_a_word),
	KUNIT_CASE(wrap_many_pieces),
	{}
};

static struct kunit_suite wrap_suite = {
	.name = "wddmseg_wrap",
	.test_cases = wrap_test_cases,
};

kunit_test_suite(wrap_suite);
