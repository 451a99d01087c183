// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host-side unit check of the parsers in wddmseg_layout.h. Built and run
 * on the build machine by "make host-check"; not a kselftest and not
 * installed.
 */
#include <inttypes.h>
#include <stdio.h>

#include "wddmseg_layout.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define K (1ULL << 10)
#define M (1ULL << 20)
#define G (1ULL << 30)

static unsigned int passed, failed;

#define CHECK(cond, ...) do { \
	if (cond) { \
		passed++; \
	} else { \
		failed++; \
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); \
		printf("\n"); \
	} \
} while (0)

static void check_seg(const char *what, const struct layout_seg *s,
		      uint64_t base, int has_cpu, uint64_t cpu, uint64_t size,
		      uint64_t commit, uint32_t flags, uint32_t nb_banks,
		      unsigned int nr_bank_ends)
{
	CHECK(s->base == base, "%s base 0x%" PRIx64, what, s->base);
	CHECK(s->has_cpu == !!has_cpu, "%s has_cpu %d", what, s->has_cpu);
	CHECK(s->cpu_offset == cpu, "%s cpu 0x%" PRIx64, what, s->cpu_offset);
	CHECK(s->size == size, "%s size 0x%" PRIx64, what, s->size);
	CHECK(s->commit == commit, "%s commit 0x%" PRIx64, what, s->commit);
	CHECK(s->flags == flags, "%s flags 0x%x", what, s->flags);
	CHECK(s->nb_banks == nb_banks, "%s nb_banks %u", what, s->nb_banks);
	CHECK(s->nr_bank_ends == nr_bank_ends, "%s bank ends %u", what,
	      s->nr_bank_ends);
}

static void test_numbers(void)
{
	static const struct {
		const char *in;
		int ret;
		uint64_t val;
		const char *rest;
	} cases[] = {
		{ "0", 0, 0, "" },
		{ "4096", 0, 4096, "" },
		{ "0x1000", 0, 0x1000, "" },
		{ "0X1000", 0, 0x1000, "" },
		{ "0xabcDEF", 0, 0xabcdef, "" },
		{ "4K", 0, 4 * K, "" },
		{ "64M", 0, 64 * M, "" },
		{ "2G", 0, 2 * G, "" },
		{ "0x10M", 0, 16 * M, "" },
		{ "0K", 0, 0, "" },
		{ "64M:", 0, 64 * M, ":" },
		{ "12abc", 0, 12, "abc" },
		{ "18446744073709551615", 0, UINT64_MAX, "" },
		{ "0xffffffffffffffff", 0, UINT64_MAX, "" },
		{ "17179869183G", 0, 17179869183ULL * G, "" },
		{ "", -1, 0, NULL },
		{ "-1", -1, 0, NULL },
		{ "0x", -1, 0, NULL },
		{ "K", -1, 0, NULL },
		{ "010", -1, 0, NULL },
		{ "18446744073709551616", -1, 0, NULL },
		{ "0x10000000000000000", -1, 0, NULL },
		{ "17179869184G", -1, 0, NULL },
		{ " 1", -1, 0, NULL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *p = cases[i].in;
		uint64_t v = 0xdead;
		int ret = layout_parse_number(&p, &v);

		CHECK(ret == cases[i].ret, "number '%s' returned %d",
		      cases[i].in, ret);
		if (ret || cases[i].ret)
			continue;
		CHECK(v == cases[i].val, "number '%s' = 0x%" PRIx64,
		      cases[i].in, v);
		CHECK(!strcmp(p, cases[i].rest), "number '%s' left '%s'",
		      cases[i].in, p);
	}
}

static void test_layout_valid(void)
{
	char err[LAYOUT_ERR_LEN] = "";
	struct layout l;
	int ret;

	/* The default layout written out, from tools/qemu/docs-wddmseg.rst */
	ret = layout_parse("0:0|0:0:64M:64M:0x484|64M:-:64M:64M:0|0x100000000:-:256M:128M:0x11",
			   &l, err);
	CHECK(ret == 0, "default layout: %s", err);
	CHECK(l.caps == 0 && l.node == 0, "default caps/node");
	CHECK(l.nr_segs == 3, "default nr_segs %u", l.nr_segs);
	check_seg("default 1", &l.seg[0], 0, 1, 0, 64 * M, 64 * M, 0x484, 0, 0);
	check_seg("default 2", &l.seg[1], 64 * M, 0, 0, 64 * M, 64 * M, 0, 0, 0);
	check_seg("default 3", &l.seg[2], 0x100000000ULL, 0, 0, 256 * M,
		  128 * M, 0x11, 0, 0);

	/* Banks, CPU offset, caps and paging node. */
	ret = layout_parse("0x40:0|0:0x1000:16M:16M:0xc:4:4M/8M/12M/16M|16M:-:32K:32K:8:2:16K/32K",
			   &l, err);
	CHECK(ret == 0, "banked layout: %s", err);
	CHECK(l.caps == 0x40 && l.node == 0, "banked caps 0x%x node %u",
	      l.caps, l.node);
	CHECK(l.nr_segs == 2, "banked nr_segs %u", l.nr_segs);
	check_seg("banked 1", &l.seg[0], 0, 1, 0x1000, 16 * M, 16 * M, 0xc, 4, 4);
	CHECK(l.seg[0].bank_end[0] == 4 * M && l.seg[0].bank_end[3] == 16 * M,
	      "banked 1 ends");
	check_seg("banked 2", &l.seg[1], 16 * M, 0, 0, 32 * K, 32 * K, 8, 2, 2);
	CHECK(l.seg[1].bank_end[0] == 16 * K && l.seg[1].bank_end[1] == 32 * K,
	      "banked 2 ends");

	/* NBANKS above the listed count, and NBANKS alone. */
	ret = layout_parse("0:0|0:-:4M:4M:8:5:1M/2M|4M:-:4K:4K:8:3", &l, err);
	CHECK(ret == 0, "nbanks > listed: %s", err);
	CHECK(l.nr_segs == 2, "nbanks nr_segs");
	check_seg("nbanks 1", &l.seg[0], 0, 0, 0, 4 * M, 4 * M, 8, 5, 2);
	CHECK(layout_bank_end(&l.seg[0], 1) == 2 * M, "listed bank end");
	CHECK(layout_bank_end(&l.seg[0], 4) == 0, "unlisted bank reads 0");
	check_seg("nbanks 2", &l.seg[1], 4 * M, 0, 0, 4 * K, 4 * K, 8, 3, 0);

	/* No segment at all is a valid string (the driver refuses it). */
	ret = layout_parse("0:0", &l, err);
	CHECK(ret == 0 && l.nr_segs == 0, "no segment: %s", err);

	/* Limits: 8 segments, 16 bank ends, 32-bit fields. */
	ret = layout_parse("0x3ffff:4294967295|0:-:4K:4K:0|4K:-:4K:4K:0|8K:-:4K:4K:0|12K:-:4K:4K:0|16K:-:4K:4K:0|20K:-:4K:4K:0|24K:-:4K:4K:0|28K:-:4K:4K:0xffffffff",
			   &l, err);
	CHECK(ret == 0, "8 segments: %s", err);
	CHECK(l.nr_segs == 8 && l.caps == 0x3ffff && l.node == UINT32_MAX,
	      "8 segments fields");
	CHECK(l.seg[7].base == 28 * K && l.seg[7].flags == UINT32_MAX,
	      "8th segment");
	ret = layout_parse("0:0|0:0:64K:64K:8:16:4K/8K/12K/16K/20K/24K/28K/32K/36K/40K/44K/48K/52K/56K/60K/64K",
			   &l, err);
	CHECK(ret == 0, "16 banks: %s", err);
	CHECK(l.seg[0].nr_bank_ends == 16 &&
	      l.seg[0].bank_end[15] == 64 * K, "16 banks ends");
}

static void test_layout_garbage(void)
{
	static const char * const bad[] = {
		"",
		"0",
		"0:",
		":0",
		"0;0",
		"0:0|",
		"0:0||0:-:4K:4K:0",
		"0:0|0:0:64M:64M",
		"0:0|0:0:64M:64M:",
		"0:0|0:0:64M:64M:0:",
		"0:0|0:0:64M:64M:0:2:",
		"0:0|0:0:64M:64M:0:2:1M/",
		"0:0|0:0:64M:64M:0:2:1M//2M",
		"0:0|0:0:64M:64M:0:2:1M:2M",
		"0:0|0:0:64M:64M:0:4294967296",
		"0:0|0:x:64M:64M:0",
		"0:0|0:--:64M:64M:0",
		"0:0|-:0:64M:64M:0",
		"0:0|0:0:-:64M:0",
		"0:0|0:0:64Q:64M:0",
		"0:0|0:0:64m:64M:0",
		"0:0|0:0:64M:64M:0 ",
		" 0:0",
		"0:0|0:0:64M:64M:0x484,foo",
		"0:0|0:0:64M:64M:0x484=1",
		"010:0",
		"0x100000000:0",
		"0:4294967296",
		"0:0|0:0:64M:64M:0x100000000",
		"0:0|18446744073709551616:0:64M:64M:0",
		"0:0|0:0:17179869184G:64M:0",
		"0:0|0:-:4K:4K:0|4K:-:4K:4K:0|8K:-:4K:4K:0|12K:-:4K:4K:0|16K:-:4K:4K:0|20K:-:4K:4K:0|24K:-:4K:4K:0|28K:-:4K:4K:0|32K:-:4K:4K:0",
		"0:0|0:0:68K:68K:8:17:4K/8K/12K/16K/20K/24K/28K/32K/36K/40K/44K/48K/52K/56K/60K/64K/68K",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char err[LAYOUT_ERR_LEN] = "";
		struct layout l;
		int ret = layout_parse(bad[i], &l, err);

		CHECK(ret == -1 && err[0], "garbage '%s' accepted", bad[i]);
	}
}

static void test_expect(void)
{
	char err[EXPECT_ERR_LEN] = "";
	struct expect_dev d;
	int ret;

	ret = expect_parse_line("0000:00:04.0 vram=128M bar2=64M layout=0:0|0:0:64M:64M:0x484|64M:-:64M:64M:0|0x100000000:-:256M:128M:0x11\n",
				&d, err);
	CHECK(ret == 1, "expect line: %s", err);
	CHECK(!strcmp(d.bdf, "0000:00:04.0"), "bdf '%s'", d.bdf);
	CHECK(d.vram == 128 * M && d.bar2 == 64 * M, "vram/bar2");
	CHECK(d.layout.nr_segs == 3 && d.layout.seg[2].commit == 128 * M,
	      "expect layout");

	/* Key order free, tabs, unknown keys ignored. */
	ret = expect_parse_line("  0000:01:00.0\tlayout=1:0|0:-:4K:4K:0 note=x bar2=0x1000 vram=4K",
				&d, err);
	CHECK(ret == 1, "reordered line: %s", err);
	CHECK(!strcmp(d.bdf, "0000:01:00.0") && d.vram == 4 * K &&
	      d.bar2 == 4 * K && d.layout.caps == 1, "reordered fields");

	CHECK(expect_parse_line("\n", &d, err) == 0, "blank line");
	CHECK(expect_parse_line("", &d, err) == 0, "empty line");
	CHECK(expect_parse_line("# comment", &d, err) == 0, "comment");
	CHECK(expect_parse_line("0000:00:04.0 vram=128M bar2=64M", &d, err) == -1,
	      "missing layout");
	CHECK(expect_parse_line("0000:00:04.0 vram=128M layout=0:0", &d, err) == -1,
	      "missing bar2");
	CHECK(expect_parse_line("0000:00:04.0 vram=12X bar2=64M layout=0:0",
				&d, err) == -1, "bad vram");
	CHECK(expect_parse_line("0000:00:04.0 vram=128M bar2=64M layout=0:0|zz",
				&d, err) == -1, "bad layout");
	CHECK(strstr(err, "0000:00:04.0") != NULL, "error names device: %s", err);
	CHECK(expect_parse_line("0000:00:04.0 vram=128M bar2=64M junk layout=0:0",
				&d, err) == -1, "token without '='");
}

static void test_debugfs(void)
{
	unsigned int id = 0;
	uint64_t size = 0;

	CHECK(debugfs_parse_segment_line("1: base=0x0 cpu=0xfd000000 size=0x4000000 commit=0x4000000 flags=0x484\n",
					 &id, &size) == 1 && id == 1 &&
	      size == 0x4000000, "segment line id %u size 0x%" PRIx64, id, size);
	CHECK(debugfs_parse_segment_line("12:size=0xABC", &id, &size) == 1 &&
	      id == 12 && size == 0xabc, "compact line");
	CHECK(debugfs_parse_segment_line("  0: end=0x1000 size=0x1000", &id,
					 &size) == 0, "indented line");
	CHECK(debugfs_parse_segment_line("3: commit_size=0x10 size=0x20 (32 B)",
					 &id, &size) == 1 && id == 3 &&
	      size == 0x20, "size= as its own word");
	CHECK(debugfs_parse_segment_line("id base size\n", &id, &size) == 0,
	      "header line");
	CHECK(debugfs_parse_segment_line("\n", &id, &size) == 0, "blank line");
	CHECK(debugfs_parse_segment_line("  bank 0: end=0x1000", &id, &size) == 0,
	      "indented sub-line");
	CHECK(debugfs_parse_segment_line("2 size=0x1000", &id, &size) == 0,
	      "no colon");
	CHECK(debugfs_parse_segment_line("2: base=0x0", &id, &size) == -1,
	      "segment line without size");
	CHECK(debugfs_parse_segment_line("2: size=0xzz", &id, &size) == -1,
	      "segment line with bad size");
}

int main(void)
{
	test_numbers();
	test_layout_valid();
	test_layout_garbage();
	test_expect();
	test_debugfs();

	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
