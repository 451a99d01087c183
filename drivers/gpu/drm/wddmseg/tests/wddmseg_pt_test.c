// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the GPU MMU's pure logic (wddmseg_pt.c): page-table
 * entries checked bit by bit against the DXGK_PTE layout of wddmseg_hw.h,
 * the VA split per level against hand-computed indexes (with levels of
 * different widths, so that a split that takes the levels in the wrong
 * order fails), the runs a range is written in (each inside one table,
 * together exactly the range), and the UPDATE_PAGE_TABLE and FLUSH_TLB
 * commands word by word.
 */

#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/sizes.h>

#include "../wddmseg_device_types.h"
#include "../wddmseg_hw.h"
#include "../wddmseg_pt.h"

#define SENTINEL	0x5a5a5a5a5a5a5a5aULL
#define BUF_QWORDS	8

/* Three levels of 9 bits: a 39-bit VA of 512-entry, 4 KiB tables. */
static const struct wddmseg_mmu_desc geo_even = {
	.va_bits = 39, .levels = 3, .level_bits = { 9, 9, 9 },
};

/* Uneven: leaf 5 bits, middle 10, root 6 (33-bit VA). */
static const struct wddmseg_mmu_desc geo_uneven = {
	.va_bits = 33, .levels = 3, .level_bits = { 5, 10, 6 },
};

static void pt_pte_leaf(struct kunit *test)
{
	u64 pte = wddmseg_pte_leaf(3, 0x12345000ULL, false);

	KUNIT_EXPECT_EQ(test, pte, BIT_ULL(0) | (3ULL << 5) | 0x12345000ULL);
	KUNIT_EXPECT_EQ(test, wddmseg_pte_leaf(3, 0x12345000ULL, true),
			pte | BIT_ULL(3));
	/* A system page: Segment 0, its DMA address; low bits dropped. */
	KUNIT_EXPECT_EQ(test, wddmseg_pte_leaf(0, 0xfedcba987654fffULL, false),
			BIT_ULL(0) | 0xfedcba987654000ULL);
	/* Never Zero, LargePage or the reserved bit (they fault). */
	KUNIT_EXPECT_EQ(test, wddmseg_pte_leaf(31, ~0ULL, true) &
			(BIT_ULL(1) | BIT_ULL(10) | BIT_ULL(11)), 0ULL);
	KUNIT_EXPECT_EQ(test, (wddmseg_pte_leaf(31, 0, false) >> 5) & 0x1f,
			31ULL);
}

static void pt_pte_table(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, wddmseg_pte_table(0x40003000ULL),
			BIT_ULL(0) | 0x40003000ULL);
	/* Only Valid among the low bits. */
	KUNIT_EXPECT_EQ(test, wddmseg_pte_table(0x40003fffULL) & 0xfff,
			BIT_ULL(0));
}

static void pt_index_even(struct kunit *test)
{
	/* VA = root 5, middle 7, leaf 11, page offset 0x123 */
	u64 va = (5ULL << 30) | (7ULL << 21) | (11ULL << 12) | 0x123;

	KUNIT_EXPECT_EQ(test, wddmseg_pt_index(&geo_even, 0, va), 11U);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_index(&geo_even, 1, va), 7U);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_index(&geo_even, 2, va), 5U);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_index(&geo_even, 0, ~0ULL), 511U);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_span(&geo_even, 0), SZ_4K);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_span(&geo_even, 1), SZ_2M);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_span(&geo_even, 2), SZ_1G);
}

static void pt_index_uneven(struct kunit *test)
{
	/* root 33 (6 bits at 27), middle 700 (10 bits at 17), leaf 17 */
	u64 va = (33ULL << 27) | (700ULL << 17) | (17ULL << 12) | 0xfff;

	KUNIT_EXPECT_EQ(test, wddmseg_pt_shift(&geo_uneven, 0), 12U);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_shift(&geo_uneven, 1), 17U);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_shift(&geo_uneven, 2), 27U);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_index(&geo_uneven, 0, va), 17U);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_index(&geo_uneven, 1, va), 700U);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_index(&geo_uneven, 2, va), 33U);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_span(&geo_uneven, 1), BIT_ULL(17));
}

/* Every VA of the space is its indexes put back together. */
static void pt_index_recompose(struct kunit *test)
{
	const struct wddmseg_mmu_desc *m = &geo_uneven;
	u64 va, back;
	u32 l, i;

	for (i = 0; i < 4096; i++) {
		va = ((u64)i * 0x9e3779b97f4a7c15ULL) & (BIT_ULL(m->va_bits) - 1);
		back = va & (SZ_4K - 1);
		for (l = 0; l < m->levels; l++) {
			KUNIT_ASSERT_LT(test, wddmseg_pt_index(m, l, va),
					(u32)BIT(m->level_bits[l]));
			back |= (u64)wddmseg_pt_index(m, l, va) <<
				wddmseg_pt_shift(m, l);
		}
		KUNIT_ASSERT_EQ(test, back, va);
	}
}

/* A range over three leaf tables: the end of one, a whole one, a start. */
static void pt_run_tables(struct kunit *test)
{
	u64 va = SZ_2M - 3 * SZ_4K, end = 2 * SZ_2M + 5 * SZ_4K;
	struct wddmseg_pt_run r;

	KUNIT_EXPECT_EQ(test, wddmseg_pt_table_span(&geo_even, 0), SZ_2M);
	KUNIT_EXPECT_EQ(test, wddmseg_pt_table_span(&geo_even, 2),
			BIT_ULL(39));
	KUNIT_ASSERT_TRUE(test, wddmseg_pt_run(&geo_even, 0, va, end, &r));
	KUNIT_EXPECT_EQ(test, r.va, va);
	KUNIT_EXPECT_EQ(test, r.first, 509U);
	KUNIT_EXPECT_EQ(test, r.count, 3U);
	KUNIT_ASSERT_TRUE(test, wddmseg_pt_run(&geo_even, 0, SZ_2M, end, &r));
	KUNIT_EXPECT_EQ(test, r.first, 0U);
	KUNIT_EXPECT_EQ(test, r.count, 512U);
	KUNIT_ASSERT_TRUE(test, wddmseg_pt_run(&geo_even, 0, 2 * SZ_2M, end,
					       &r));
	KUNIT_EXPECT_EQ(test, r.first, 0U);
	KUNIT_EXPECT_EQ(test, r.count, 5U);
	KUNIT_EXPECT_FALSE(test, wddmseg_pt_run(&geo_even, 0, end, end, &r));
	/* The middle level: 1 GiB tables of 2 MiB entries. */
	KUNIT_ASSERT_TRUE(test, wddmseg_pt_run(&geo_even, 1, SZ_1G - SZ_2M,
					       SZ_1G + SZ_2M, &r));
	KUNIT_EXPECT_EQ(test, r.first, 511U);
	KUNIT_EXPECT_EQ(test, r.count, 1U);
}

/* Runs of any range tile it exactly, each inside one table. */
static void pt_run_tiles(struct kunit *test)
{
	const struct wddmseg_mmu_desc *m = &geo_uneven;
	u64 x = 0x243f6a8885a308d3ULL, va, end, at, span, tspan;
	struct wddmseg_pt_run r;
	u32 i, level, runs;

	for (i = 0; i < 2000; i++) {
		level = i % 2;
		span = wddmseg_pt_span(m, level);
		tspan = wddmseg_pt_table_span(m, level);
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		va = ((x >> 11) & (BIT_ULL(m->va_bits) - 1)) & ~(span - 1);
		end = va + span * (1 + ((x >> 3) % (3 * (tspan / span))));
		if (end > BIT_ULL(m->va_bits))
			end = BIT_ULL(m->va_bits);
		at = va;
		runs = 0;
		while (wddmseg_pt_run(m, level, at, end, &r)) {
			KUNIT_ASSERT_EQ(test, r.va, at);
			KUNIT_ASSERT_LE(test, (u64)r.first + r.count,
					BIT_ULL(m->level_bits[level]));
			/* first and last entry in the same table */
			KUNIT_ASSERT_EQ(test, at / tspan,
					(at + (u64)(r.count - 1) * span) / tspan);
			at += (u64)r.count * span;
			KUNIT_ASSERT_LT(test, ++runs, 100U);
		}
		KUNIT_ASSERT_EQ(test, at, end);
		KUNIT_ASSERT_GE(test, runs, 1U);
	}
}

static void fill_sentinel(u64 *cmd)
{
	unsigned int i;

	for (i = 0; i < BUF_QWORDS; i++)
		cmd[i] = SENTINEL;
}

static void pt_encode_update(struct kunit *test)
{
	u64 cmd[BUF_QWORDS];
	unsigned int i;
	u32 n;

	fill_sentinel(cmd);
	n = wddmseg_encode_update_pt(cmd, 0x40002000ULL, 17, 300,
				     WDDMSEG_UPDATE_PT_INITIAL, 0x7fff0000ULL);
	KUNIT_EXPECT_EQ(test, n, 6U);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x0bULL | (6ULL << 16));
	KUNIT_EXPECT_EQ(test, cmd[1], 0x40002000ULL);
	KUNIT_EXPECT_EQ(test, cmd[2], 17ULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 300ULL);
	KUNIT_EXPECT_EQ(test, cmd[4], (u64)BIT(1));
	KUNIT_EXPECT_EQ(test, cmd[5], 0x7fff0000ULL);
	for (i = n; i < BUF_QWORDS; i++)
		KUNIT_EXPECT_EQ(test, cmd[i], SENTINEL);
}

static void pt_encode_flush(struct kunit *test)
{
	u64 cmd[BUF_QWORDS];
	unsigned int i;
	u32 n;

	fill_sentinel(cmd);
	n = wddmseg_encode_flush_tlb(cmd, 0x40001000ULL, SZ_1M, SZ_2M, 0);
	KUNIT_EXPECT_EQ(test, n, 5U);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x0cULL | (5ULL << 16));
	KUNIT_EXPECT_EQ(test, cmd[1], 0x40001000ULL);
	KUNIT_EXPECT_EQ(test, cmd[2], (u64)SZ_1M);
	KUNIT_EXPECT_EQ(test, cmd[3], (u64)SZ_2M);
	KUNIT_EXPECT_EQ(test, cmd[4], 0ULL);
	for (i = n; i < BUF_QWORDS; i++)
		KUNIT_EXPECT_EQ(test, cmd[i], SENTINEL);
}

/* The word layout of docs-wddmseg.rst, "Ring commands": opcode 0x0d. */
static void pt_encode_transfer_virtual(struct kunit *test)
{
	u64 cmd[BUF_QWORDS];
	u32 i, n;

	fill_sentinel(cmd);
	n = wddmseg_encode_transfer_virtual(cmd, SZ_8M, 0x40001000ULL,
					    0x1000004ULL, 0x40002000ULL,
					    0x7fff000008ULL);
	KUNIT_EXPECT_EQ(test, n, 6U);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x0dULL | (6ULL << 16));
	KUNIT_EXPECT_EQ(test, cmd[1], (u64)SZ_8M);
	KUNIT_EXPECT_EQ(test, cmd[2], 0x40001000ULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 0x1000004ULL);
	KUNIT_EXPECT_EQ(test, cmd[4], 0x40002000ULL);
	KUNIT_EXPECT_EQ(test, cmd[5], 0x7fff000008ULL);
	for (i = n; i < BUF_QWORDS; i++)
		KUNIT_EXPECT_EQ(test, cmd[i], SENTINEL);
}

/* Opcode 0x0e: the pattern in its own word, bits 32..63 zero. */
static void pt_encode_fill_virtual(struct kunit *test)
{
	u64 cmd[BUF_QWORDS];
	u32 i, n;

	fill_sentinel(cmd);
	n = wddmseg_encode_fill_virtual(cmd, 4096, 0xdeadbeef, 0x40001000ULL,
					0x1000000ULL);
	KUNIT_EXPECT_EQ(test, n, 5U);
	KUNIT_EXPECT_EQ(test, cmd[0], 0x0eULL | (5ULL << 16));
	KUNIT_EXPECT_EQ(test, cmd[1], 4096ULL);
	KUNIT_EXPECT_EQ(test, cmd[2], 0xdeadbeefULL);
	KUNIT_EXPECT_EQ(test, cmd[3], 0x40001000ULL);
	KUNIT_EXPECT_EQ(test, cmd[4], 0x1000000ULL);
	for (i = n; i < BUF_QWORDS; i++)
		KUNIT_EXPECT_EQ(test, cmd[i], SENTINEL);
}

static struct kunit_case pt_test_cases[] = {
	KUNIT_CASE(pt_pte_leaf),
	KUNIT_CASE(pt_pte_table),
	KUNIT_CASE(pt_index_even),
	KUNIT_CASE(pt_index_uneven),
	KUNIT_CASE(pt_index_recompose),
	KUNIT_CASE(pt_run_tables),
	KUNIT_CASE(pt_run_tiles),
	KUNIT_CASE(pt_encode_update),
	KUNIT_CASE(pt_encode_flush),
	KUNIT_CASE(pt_encode_transfer_virtual),
	KUNIT_CASE(pt_encode_fill_virtual),
	{}
};

static struct kunit_suite pt_suite = {
	.name = "wddmseg_pt",
	.test_cases = pt_test_cases,
};

kunit_test_suite(pt_suite);
