/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the wddmseg kselftests share on top of libwddmseg
 * (tools/lib/wddmseg, linked statically): the devices of the expectation
 * file and their DRM nodes (one fixture setup for every test program),
 * the default layout's segment ids, files in sysfs, debugfs and tracefs,
 * the kernel log and drm.debug, the GPU's view through debugfs peek, and
 * content patterns checked byte by byte. Every ioctl goes through
 * libwddmseg.
 *
 * The expectation file ($WDDMSEG_EXPECT, default /etc/wddmseg/expect) is
 * parsed with wddmseg_layout.h; see wddmseg_query.c for its format.
 */
#ifndef WDDMSEG_GEM_H
#define WDDMSEG_GEM_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>
#include <wddmseg.h>

#include "kselftest_harness.h"
#include "wddmseg_harness.h"
#include "wddmseg_layout.h"

#define GEM_EXPECT_DEFAULT	"/etc/wddmseg/expect"
#define GEM_MAX_DEVS		8
#define GEM_NODE_LEN		32

#define SZ_4K			0x1000ULL
#define SZ_64K			0x10000ULL
#define SZ_1M			0x100000ULL

#define NSEC_PER_SEC		1000000000LL

/* The default layout (layout_is_default_shape()): segment ids. */
#define SEG_VIS			1	/* CPU-visible VRAM */
#define SEG_INV			2	/* invisible VRAM */
#define SEG_APT			3	/* aperture, CommitLimit < Size */
#define BIT(id)			WDDMSEG_SEGMENT_BIT(id)

/*
 * Module parameters the tests switch (and restore). The test knobs are per
 * device in debugfs: gem_knob_path().
 */
#define PARAM_DIR		"/sys/module/wddmseg/parameters"
#define PARAM_FENCE_TIMEOUT	PARAM_DIR "/fence_timeout_ms"

/* "system" for 0, "seg1".."seg9" for segment ids, for messages. */
static inline const char *seg_name(uint32_t id)
{
	static const char *const names[] = {
		"system", "seg1", "seg2", "seg3", "seg4", "seg5", "seg6",
		"seg7", "seg8", "seg9",
	};

	return id < sizeof(names) / sizeof(names[0]) ? names[id] : "seg?";
}

struct gem_dev {
	struct expect_dev exp;
	char card[GEM_NODE_LEN];	/* /dev/dri/cardN */
	char render[GEM_NODE_LEN];	/* /dev/dri/renderDN */
};

static inline const char *gem_expect_path(void)
{
	const char *p = getenv("WDDMSEG_EXPECT");

	return p && *p ? p : GEM_EXPECT_DEFAULT;
}

/*
 * Read the expectation file into @devs. Returns 0, -ENOENT when the file
 * does not exist, or another -errno with a message in @err
 * (EXPECT_ERR_LEN bytes).
 */
static inline int gem_load_expect(const char *path, struct gem_dev *devs,
				  unsigned int max, unsigned int *nr, char *err)
{
	unsigned int lineno = 0, n = 0;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		snprintf(err, EXPECT_ERR_LEN, "cannot open %s: %s", path,
			 strerror(errno));
		return ret;
	}
	while (getline(&line, &cap, f) != -1) {
		char lerr[EXPECT_ERR_LEN];
		struct expect_dev d;
		int r;

		lineno++;
		r = expect_parse_line(line, &d, lerr);
		if (r == 0)
			continue;
		if (r < 0) {
			snprintf(err, EXPECT_ERR_LEN, "%s:%u: %.200s", path,
				 lineno, lerr);
			ret = -EINVAL;
			break;
		}
		if (n == max) {
			snprintf(err, EXPECT_ERR_LEN, "%s:%u: more than %u devices",
				 path, lineno, max);
			ret = -E2BIG;
			break;
		}
		memset(&devs[n], 0, sizeof(devs[n]));
		devs[n++].exp = d;
	}
	free(line);
	fclose(f);
	*nr = n;
	return ret;
}

/* The PCI driver's sysfs directory: one link per bound device. */
#define GEM_DRIVER_DIR		"/sys/bus/pci/drivers/wddmseg"

static inline int gem_cmp_bdf(const void *a, const void *b)
{
	return strcmp(((const struct gem_dev *)a)->exp.bdf,
		      ((const struct gem_dev *)b)->exp.bdf);
}

/*
 * The PCI addresses of the devices bound to wddmseg, sorted, into
 * @devs[].exp.bdf (everything else zeroed). 0, with *@nr 0 when the
 * driver is not loaded, or -errno with a message in @err.
 */
static inline int gem_bound_devices(struct gem_dev *devs, unsigned int max,
				    unsigned int *nr, char *err)
{
	unsigned int n = 0, dom, bus, slot, fn;
	struct dirent *e;
	char c;
	DIR *dir;

	*nr = 0;
	dir = opendir(GEM_DRIVER_DIR);
	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		/* a link named by a PCI address, DDDD:BB:SS.F */
		if (sscanf(e->d_name, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn,
			   &c) != 4)
			continue;
		if (n == max) {
			snprintf(err, EXPECT_ERR_LEN,
				 "%s: more than %u devices", GEM_DRIVER_DIR,
				 max);
			closedir(dir);
			return -E2BIG;
		}
		memset(&devs[n], 0, sizeof(devs[n]));
		snprintf(devs[n].exp.bdf, sizeof(devs[n].exp.bdf), "%.31s",
			 e->d_name);
		n++;
	}
	closedir(dir);
	qsort(devs, n, sizeof(*devs), gem_cmp_bdf);
	*nr = n;
	return 0;
}

/*
 * Bus address and length of BAR @index of PCI device @bdf, from its
 * sysfs "resource" file (length 0 for an unassigned BAR). 0 or -errno.
 */
static inline int gem_pci_bar(const char *bdf, unsigned int index,
			      uint64_t *start, uint64_t *len)
{
	unsigned long long s, e, f;
	char path[128], line[256];
	unsigned int i = 0;
	int ret = -ENOENT;
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%.32s/resource",
		 bdf);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		if (i++ != index)
			continue;
		if (sscanf(line, "%llx %llx %llx", &s, &e, &f) == 3) {
			*start = s;
			*len = e > s ? e - s + 1 : 0;
			ret = 0;
		}
		break;
	}
	fclose(fp);
	return ret;
}

/*
 * What the expectation file would say about device @d (its bdf set), read
 * from the device itself: QUERY_ADAPTER (capabilities, paging node,
 * VRAM), QUERY_SEGMENT of every segment with its bank table, and BAR2
 * from sysfs (bar2=, and the CPU offsets of the segments). 0 or -1 with
 * the reason in @err.
 */
static inline int gem_query_layout(struct gem_dev *d, char *err);

/*
 * The devices when there is no expectation file: every device bound to
 * the driver, in PCI order, each described by gem_query_layout(). The
 * tests then check what the driver reports for what it found; only the
 * comparison with the tables the devices were configured with needs the
 * file. 0 (*@nr is 0 without a bound device) or -errno with @err.
 */
static inline int gem_discover(struct gem_dev *devs, unsigned int max,
			       unsigned int *nr, char *err)
{
	unsigned int i;
	int ret;

	ret = gem_bound_devices(devs, max, nr, err);
	if (ret)
		return ret;
	for (i = 0; i < *nr; i++)
		if (gem_query_layout(&devs[i], err))
			return -EIO;
	return 0;
}

/*
 * GEM_SKIP_WITHOUT_DEVICE() - skip the whole test program, before the
 * harness starts, when there is nothing to test: no expectation file and
 * no device bound to wddmseg, or an expectation file that lists no
 * device. Use once per program, after including kselftest_harness.h.
 */
#define GEM_SKIP_WITHOUT_DEVICE()					\
static void __attribute__((constructor)) gem_skip_without_device(void)	\
{									\
	static struct gem_dev devs[GEM_MAX_DEVS];			\
	char err[EXPECT_ERR_LEN] = "";					\
	unsigned int nr = 0;						\
	int ret;							\
									\
	ret = gem_load_expect(gem_expect_path(), devs, GEM_MAX_DEVS,	\
			      &nr, err);				\
	if (ret == -ENOENT) {						\
		gem_bound_devices(devs, GEM_MAX_DEVS, &nr, err);	\
		if (!nr) {						\
			ksft_print_header();				\
			ksft_exit_skip("no wddmseg device: none bound to the driver (%s) and no expectation file %s\n", \
				       GEM_DRIVER_DIR, gem_expect_path()); \
		}							\
	}								\
	if (!ret && !nr) {						\
		ksft_print_header();					\
		ksft_exit_skip("%s lists no device\n",			\
			       gem_expect_path());			\
	}								\
}

/*
 * The cardN and renderDN nodes of @d (libwddmseg's sysfs lookup).
 * Returns 0 or -1 with the reason in @err (EXPECT_ERR_LEN bytes).
 */
static inline int gem_find_nodes(struct gem_dev *d, char *err)
{
	static const char *const kind[] = { "primary", "render" };
	char *path[2] = { d->card, d->render };
	unsigned int t;
	int ret;

	d->card[0] = d->render[0] = '\0';
	for (t = 0; t < 2; t++) {
		ret = wddmseg_find_node(d->exp.bdf, t ? WDDMSEG_NODE_RENDER :
					WDDMSEG_NODE_PRIMARY, path[t],
					GEM_NODE_LEN);
		if (ret == -ENODEV)
			snprintf(err, EXPECT_ERR_LEN, "%.31s: no such PCI device",
				 d->exp.bdf);
		else if (ret == -ENXIO)
			snprintf(err, EXPECT_ERR_LEN,
				 "%.31s: no DRM node; the driver did not probe the device (see dmesg)",
				 d->exp.bdf);
		else if (ret)
			snprintf(err, EXPECT_ERR_LEN,
				 "%.31s: no %s node under /sys/bus/pci/devices/%.31s/drm: %s",
				 d->exp.bdf, kind[t], d->exp.bdf, strerror(-ret));
		if (ret)
			return -1;
	}
	return 0;
}

static inline int gem_query_layout(struct gem_dev *d, char *err)
{
	uint64_t banks[WDDMSEG_MAX_BANKS], bar2_start = 0, bar2_len = 0;
	struct drm_wddmseg_query_segment qs;
	struct drm_wddmseg_query_adapter qa;
	struct layout *l = &d->exp.layout;
	unsigned int i, j;
	int fd, ret;

	if (gem_find_nodes(d, err))
		return -1;
	ret = gem_pci_bar(d->exp.bdf, 2, &bar2_start, &bar2_len);
	if (ret) {
		snprintf(err, EXPECT_ERR_LEN, "%.31s: no BAR2 in sysfs: %s",
			 d->exp.bdf, strerror(-ret));
		return -1;
	}
	fd = wddmseg_open_adapter(d->render, 0);
	if (fd < 0) {
		snprintf(err, EXPECT_ERR_LEN, "open %.31s: %s", d->render,
			 strerror(-fd));
		return -1;
	}
	memset(&qa, 0, sizeof(qa));
	ret = wddmseg_query_adapter(fd, &qa);
	if (!ret && (!qa.segment_count || qa.segment_count > LAYOUT_MAX_SEGS))
		ret = -ERANGE;
	if (ret) {
		snprintf(err, EXPECT_ERR_LEN,
			 "%.31s: QUERY_ADAPTER: %s (segment_count %u, at most %u)",
			 d->exp.bdf, strerror(-ret), qa.segment_count,
			 LAYOUT_MAX_SEGS);
		wddmseg_close_adapter(fd);
		return -1;
	}
	d->exp.vram = qa.vram_size;
	d->exp.bar2 = bar2_len;
	l->caps = qa.device_vidmm_caps;
	l->node = qa.paging_node;
	l->nr_segs = qa.segment_count;
	for (i = 0; i < l->nr_segs; i++) {
		struct layout_seg *ls = &l->seg[i];

		ret = wddmseg_query_segment(fd, i + 1, banks,
					    WDDMSEG_MAX_BANKS, &qs);
		if (ret) {
			snprintf(err, EXPECT_ERR_LEN,
				 "%.31s: QUERY_SEGMENT %u: %s", d->exp.bdf,
				 i + 1, strerror(-ret));
			wddmseg_close_adapter(fd);
			return -1;
		}
		ls->base = qs.base_address;
		ls->has_cpu = qs.cpu_translated_address != 0;
		ls->cpu_offset = ls->has_cpu ?
				 qs.cpu_translated_address - bar2_start : 0;
		ls->size = qs.size;
		ls->commit = qs.commit_limit;
		ls->flags = qs.flags;
		ls->nb_banks = qs.nb_banks;
		ls->nr_bank_ends = qs.nb_banks < LAYOUT_MAX_BANK_ENDS ?
				   qs.nb_banks : LAYOUT_MAX_BANK_ENDS;
		for (j = 0; j < ls->nr_bank_ends; j++)
			ls->bank_end[j] = banks[j];
	}
	wddmseg_close_adapter(fd);
	return 0;
}

/*
 * The devices under test, each with its DRM nodes: those of the
 * expectation file, or, without one, those bound to the driver
 * (gem_discover(); @discovered is true then).
 */
struct gem_env {
	unsigned int nr_devs;
	bool discovered;
	struct gem_dev dev[GEM_MAX_DEVS];
};

/*
 * Where the devices under test come from, for messages: the expectation
 * file, or the driver's bound devices.
 */
static inline const char *gem_env_source(const struct gem_env *env)
{
	return env->discovered ? "the devices bound to wddmseg" :
				 gem_expect_path();
}

/*
 * The one fixture setup of the wddmseg tests: read the expectation file
 * into @env, or without one find the devices bound to the driver and
 * their layouts through the QUERY ioctls (gem_discover()); then find
 * every device's nodes. Without a device the test is skipped (with
 * WSKIP(): the caller checks SETUP_SKIPPED(), as the 6.1 harness runs the
 * body anyway); a bad file or a device without DRM nodes fails it.
 */
static inline void gem_env_load(struct __test_metadata *_metadata,
				struct gem_env *env)
{
	char err[EXPECT_ERR_LEN] = "";
	unsigned int i;
	int ret;

	env->discovered = false;
	ret = gem_load_expect(gem_expect_path(), env->dev, GEM_MAX_DEVS,
			      &env->nr_devs, err);
	if (ret == -ENOENT) {
		env->discovered = true;
		ret = gem_discover(env->dev, GEM_MAX_DEVS, &env->nr_devs,
				   err);
		ASSERT_EQ(0, ret) TH_LOG("%s", err);
		if (!env->nr_devs)
			WSKIP(return, "no wddmseg device: none bound to the driver and no expectation file %s",
			      gem_expect_path());
	}
	ASSERT_EQ(0, ret) TH_LOG("%s", err);
	if (!env->nr_devs)
		WSKIP(return, "%s lists no device", gem_expect_path());
	for (i = 0; i < env->nr_devs; i++)
		ASSERT_EQ(0, gem_find_nodes(&env->dev[i], err)) TH_LOG("%s", err);
}

/* Open @node with wddmseg_open_adapter(); the test fails if it cannot. */
static inline int gem_open(struct __test_metadata *_metadata,
			   const char *node)
{
	int fd = wddmseg_open_adapter(node, 0);

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", node, strerror(-fd));
	return fd;
}

/* /sys/kernel/debug/dri/N of @d, N of its primary node cardN. */
static inline void gem_debugfs_dir(const struct gem_dev *d, char *buf,
				   size_t len)
{
	const char *n = strrchr(d->card, 'd');	/* "...card<N>" */

	snprintf(buf, len, "/sys/kernel/debug/dri/%s", n ? n + 1 : "0");
}

/*
 * The test knob @name of @d (Documentation/gpu/wddmseg.rst, DOC: Test
 * knobs): /sys/kernel/debug/dri/N/wddmseg/@name.
 */
static inline void gem_knob_path(const struct gem_dev *d, const char *name,
				 char *buf, size_t len)
{
	char dir[64];

	gem_debugfs_dir(d, dir, sizeof(dir));
	snprintf(buf, len, "%s/wddmseg/%s", dir, name);
}

/*
 * The default layout of the device, whatever its sizes: segment 1
 * CPU-visible VRAM, segment 2 invisible VRAM, segment 3 an aperture whose
 * CommitLimit is below its Size; no banks.
 */
static inline bool layout_is_default_shape(const struct layout *l)
{
	const struct layout_seg *s = l->seg;

	return l->nr_segs == 3 &&
	       !wddmseg_segment_is_aperture(s[0].flags) &&
	       (s[0].flags & WDDMSEG_SEGMENT_FLAG_CPU_VISIBLE) &&
	       !(s[0].flags & WDDMSEG_SEGMENT_FLAG_USE_BANKING) &&
	       !wddmseg_segment_is_aperture(s[1].flags) &&
	       !(s[1].flags & WDDMSEG_SEGMENT_FLAG_CPU_VISIBLE) &&
	       !(s[1].flags & WDDMSEG_SEGMENT_FLAG_USE_BANKING) &&
	       !(s[2].flags & WDDMSEG_SEGMENT_FLAG_AGP) &&
	       (s[2].flags & WDDMSEG_SEGMENT_FLAG_APERTURE) &&
	       s[2].commit < s[2].size &&
	       !(s[0].flags & WDDMSEG_SEGMENT_FLAG_USE_64KB_PAGES) &&
	       !(s[1].flags & WDDMSEG_SEGMENT_FLAG_USE_64KB_PAGES);
}

static inline uint64_t layout_vram_bytes(const struct layout *l)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < l->nr_segs; i++)
		if (!wddmseg_segment_is_aperture(l->seg[i].flags))
			sum += l->seg[i].size;
	return sum;
}

/* Which device with the default layout a test program runs on. */
enum gem_pick {
	GEM_PICK_FIRST,			/* the first listed */
	GEM_PICK_LEAST_VRAM,		/* the least device VRAM (vram=) */
	GEM_PICK_LEAST_SEGMENT_VRAM,	/* the least VRAM in its segments */
	GEM_PICK_MOST_VISIBLE,		/* the largest segment 1 */
};

/* A device of @env with the default layout, chosen by @pick, or NULL. */
static inline struct gem_dev *gem_env_default(struct gem_env *env,
					      enum gem_pick pick)
{
	struct gem_dev *best = NULL, *d;

	for (d = env->dev; d < env->dev + env->nr_devs; d++) {
		const struct layout *l = &d->exp.layout;

		if (!layout_is_default_shape(l))
			continue;
		if (!best ||
		    (pick == GEM_PICK_LEAST_VRAM &&
		     d->exp.vram < best->exp.vram) ||
		    (pick == GEM_PICK_LEAST_SEGMENT_VRAM &&
		     layout_vram_bytes(l) <
		     layout_vram_bytes(&best->exp.layout)) ||
		    (pick == GEM_PICK_MOST_VISIBLE &&
		     l->seg[0].size > best->exp.layout.seg[0].size))
			best = d;
	}
	return best;
}

/*
 * The first listed device, which must have the default layout: `make
 * check` lists it first. Without an expectation file, the first device
 * found that has it; the test is skipped (NULL) when none has.
 */
static inline struct gem_dev *gem_env_first(struct __test_metadata *_metadata,
					    struct gem_env *env)
{
	struct gem_dev *d = &env->dev[0];

	if (env->discovered) {
		d = gem_env_default(env, GEM_PICK_FIRST);
		if (!d)
			WSKIP(return NULL, "no device with the default layout among %s",
			      gem_env_source(env));
		return d;
	}
	ASSERT_TRUE(layout_is_default_shape(&d->exp.layout))
		TH_LOG("%s: not the default layout", d->exp.bdf);
	return d;
}

/*
 * gem_env_load(), then the device with the default layout that @pick
 * chooses: its render node opened into *@fd and its segments queried into
 * @seg[1..3], each checked against the layout. NULL (and *@fd -1) without
 * such a device, or when gem_env_load() skipped.
 */
static inline struct gem_dev *
gem_env_open_default(struct __test_metadata *_metadata, struct gem_env *env,
		     enum gem_pick pick, int *fd,
		     struct drm_wddmseg_query_segment seg[4])
{
	struct gem_dev *d;
	unsigned int i;

	*fd = -1;
	gem_env_load(_metadata, env);
	if (SETUP_SKIPPED())
		return NULL;
	d = gem_env_default(env, pick);
	if (!d)
		return NULL;
	*fd = gem_open(_metadata, d->render);
	for (i = 1; i <= 3; i++) {
		ASSERT_EQ(0, wddmseg_query_segment(*fd, i, NULL, 0, &seg[i]));
		ASSERT_EQ(d->exp.layout.seg[i - 1].size, seg[i].size)
			TH_LOG("%s segment %u: size differs from the layout",
			       d->exp.bdf, i);
	}
	return d;
}

/* Whole small file (sysfs, debugfs, tracefs) into @buf, NUL-terminated. */
static inline int file_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Write @s to a sysfs/debugfs/tracefs file, as `echo s > path` does. */
static inline int file_write(const char *path, const char *s)
{
	ssize_t n;
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * Save a parameter file's value once in @saved (the caller restores it in
 * its teardown), then set it to @val.
 */
static inline int file_param_set(char *saved, size_t len, const char *path,
				 const char *val)
{
	int ret;

	if (!saved[0]) {
		ret = file_read(path, saved, len);
		if (ret)
			return ret;
		saved[strcspn(saved, "\n")] = '\0';
	}
	return file_write(path, val);
}

/* ---------------------------------------------------------------- */
/* Kernel log (/dev/kmsg) and drm.debug                              */

#define DRM_DEBUG_PARAM	"/sys/module/drm/parameters/debug"
#define DRM_UT_DRIVER	0x2
#define DRM_UT_KMS	0x4

/* /dev/kmsg positioned at its end (records from now on), or -1. */
static inline int kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * The next record of @fd into @rec (NUL-terminated): its length, or 0
 * when no record is waiting. Records overwritten before they were read
 * are skipped.
 */
static inline ssize_t kmsg_read(int fd, char *rec, size_t len)
{
	ssize_t n;

	do {
		n = read(fd, rec, len - 1);
	} while (n < 0 && errno == EPIPE);
	if (n <= 0)
		return 0;
	rec[n] = '\0';
	return n;
}

/*
 * If @rec holds "@key NAME" and @rule is still empty, copy NAME (up to
 * ':', a blank or the end of the line) to @rule.
 */
static inline void kmsg_rule(const char *rec, const char *key, char *rule,
			     size_t len)
{
	const char *p = strstr(rec, key);

	if (!p || rule[0])
		return;
	p += strlen(key);
	snprintf(rule, len, "%.*s", (int)strcspn(p, ": \n"), p);
}

/*
 * The rule of the first ": rule NAME:" record of @kmsg (kmsg_open_end())
 * since the last call into @rule; "?" when @kmsg is -1 (drm.debug could
 * not be raised: rules are not checked then).
 */
static inline void kmsg_next_rule(int kmsg, char *rule, size_t len)
{
	char rec[2048];

	if (kmsg < 0) {
		snprintf(rule, len, "?");
		return;
	}
	rule[0] = '\0';
	while (kmsg_read(kmsg, rec, sizeof(rec)))
		kmsg_rule(rec, ": rule ", rule, len);
}

/* Forget what @kmsg logged so far. */
static inline void kmsg_drain_rules(int kmsg)
{
	char rule[64];

	kmsg_next_rule(kmsg, rule, sizeof(rule));
}

/* The next rule logged on @kmsg is @want (unless rules are not checked). */
#define EXPECT_KMSG_RULE(kmsg, want) do {				\
	char _rule[64];							\
									\
	kmsg_next_rule(kmsg, _rule, sizeof(_rule));			\
	if (strcmp(_rule, "?"))						\
		EXPECT_STREQ(want, _rule);				\
} while (0)

/*
 * Add @bits to drm.debug. The value found first is kept in @saved (empty
 * until then) for drm_debug_restore(). -errno if it cannot be set.
 */
static inline int drm_debug_raise(unsigned long bits, char *saved,
				  size_t len)
{
	bool first = !saved[0];
	char buf[32];
	int ret;

	ret = file_read(DRM_DEBUG_PARAM, buf, sizeof(buf));
	if (ret)
		return ret;
	buf[strcspn(buf, "\n")] = '\0';
	if (first)
		snprintf(saved, len, "%s", buf);
	snprintf(buf, sizeof(buf), "%lu", strtoul(buf, NULL, 0) | bits);
	ret = file_write(DRM_DEBUG_PARAM, buf);
	if (ret && first)
		saved[0] = '\0';
	return ret;
}

/* Put drm.debug back as drm_debug_raise() found it (once). */
static inline void drm_debug_restore(char *saved)
{
	if (!saved[0])
		return;
	if (file_write(DRM_DEBUG_PARAM, saved))
		perror("restore " DRM_DEBUG_PARAM);
	saved[0] = '\0';
}

/*
 * A CpuVisibleOnDemand allocation that may live in any segment of the
 * default layout (1 visible VRAM, 2 invisible VRAM, 3 aperture), first
 * placed in @first.
 */
static inline int gem_create_any(int fd, uint64_t size, uint8_t first,
				 uint32_t *handle)
{
	struct wddmseg_allocation_desc a = {
		.size = size,
		.flags = WDDMSEG_ALLOC_CPU_VISIBLE_ON_DEMAND,
		.supported_segments = BIT(SEG_VIS) | BIT(SEG_INV) | BIT(SEG_APT),
		.preferred = { first },
	};

	return wddmseg_create_allocation(fd, &a, handle);
}

/*
 * Move to segment @to (0: evict), wait for the engine (20 s), and check
 * the placement. 0, -EXDEV if it landed elsewhere, or -errno.
 */
static inline int gem_move_wait(int fd, uint32_t handle, uint32_t to)
{
	int ret = wddmseg_move(fd, handle, to);

	if (ret)
		return ret;
	ret = wddmseg_wait(fd, handle, 20 * NSEC_PER_SEC);
	if (ret)
		return ret;
	ret = wddmseg_allocation_segment(fd, handle);
	if (ret < 0)
		return ret;
	return (uint32_t)ret == to ? 0 : -EXDEV;
}

#define GEM_PEEK_WORDS	16

/*
 * The GEM_PEEK_WORDS words the GPU sees at @addr, through the debugfs
 * files peek_addr and peek of the DRM debugfs directory @dir. A word the
 * device could not read counts in *@faults and reads as 0xffffffff.
 * 0 or -errno.
 */
static inline int gem_peek(const char *dir, uint64_t addr, uint32_t *words,
			   unsigned int *faults)
{
	char path[128], line[512], *p, *end;
	unsigned int i;
	int ret;

	snprintf(path, sizeof(path), "%s/peek_addr", dir);
	snprintf(line, sizeof(line), "0x%" PRIx64, addr);
	ret = file_write(path, line);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/peek", dir);
	ret = file_read(path, line, sizeof(line));
	if (ret)
		return ret;
	p = strchr(line, ':');
	if (!p || strtoull(line, NULL, 16) != addr)
		return -EPROTO;
	*faults = 0;
	for (p++, i = 0; i < GEM_PEEK_WORDS; i++) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, "fault", 5)) {
			words[i] = 0xffffffff;
			(*faults)++;
			p += 5;
			continue;
		}
		words[i] = strtoul(p, &end, 16);
		if (end == p)
			return -EPROTO;
		p = end;
	}
	return 0;
}

/*
 * Content patterns: word i of a buffer filled with seed s is
 * pattern_word(s, i), a 32-bit mix, so a word that lands at the wrong
 * offset or in the wrong allocation does not match by accident.
 */
static inline uint32_t pattern_mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

static inline uint32_t pattern_word(uint32_t seed, uint64_t i)
{
	return pattern_mix(seed * 0x9e3779b9U ^ pattern_mix((uint32_t)i) ^
			   (uint32_t)(i >> 32));
}

static inline void pattern_fill(volatile void *p, uint64_t size, uint32_t seed)
{
	volatile uint32_t *w = p;
	uint64_t i;

	for (i = 0; i < size / 4; i++)
		w[i] = pattern_word(seed, i);
}

/*
 * Bytes of @p that differ from the pattern; the offset of the first one in
 * *@first (unchanged when none).
 */
static inline uint64_t pattern_check(const volatile void *p, uint64_t size,
				     uint32_t seed, uint64_t *first)
{
	const volatile uint32_t *w = p;
	uint64_t i, bad = 0;
	unsigned int b;

	for (i = 0; i < size / 4; i++) {
		uint32_t got = w[i], want = pattern_word(seed, i);

		if (got == want)
			continue;
		for (b = 0; b < 4; b++) {
			if (((got ^ want) >> (8 * b)) & 0xff) {
				if (!bad && first)
					*first = i * 4 + b;
				bad++;
			}
		}
	}
	return bad;
}

/* Lock @h (@size bytes), fill it with pattern @seed, unlock. 0 or -errno. */
static inline int gem_write_pattern(int fd, uint32_t h, uint64_t size,
				    uint32_t seed)
{
	void *p;
	int ret = wddmseg_lock(fd, h, size, &p);

	if (ret)
		return ret;
	pattern_fill(p, size, seed);
	return wddmseg_unlock(p, size);
}

/* Copy @size bytes of @h out through a mapping. 0 or -errno. */
static inline int gem_read_back(int fd, uint32_t h, uint64_t size, void *out)
{
	void *p;
	int ret = wddmseg_lock(fd, h, size, &p);

	if (ret)
		return ret;
	memcpy(out, p, size);
	return wddmseg_unlock(p, size);
}

/* Bytes of @p that are not @byte; the first offset in *@first. */
static inline uint64_t bytes_check(const volatile void *p, uint64_t size,
				   uint8_t byte, uint64_t *first)
{
	const volatile uint64_t *q = p;
	uint64_t want = 0x0101010101010101ULL * byte, i, bad = 0;
	unsigned int b;

	for (i = 0; i < size / 8; i++) {
		uint64_t got = q[i];

		if (got == want)
			continue;
		for (b = 0; b < 8; b++) {
			if (((got ^ want) >> (8 * b)) & 0xff) {
				if (!bad && first)
					*first = i * 8 + b;
				bad++;
			}
		}
	}
	return bad;
}

static inline void bytes_fill(volatile void *p, uint64_t size, uint8_t byte)
{
	volatile uint64_t *q = p;
	uint64_t v = 0x0101010101010101ULL * byte, i;

	for (i = 0; i < size / 8; i++)
		q[i] = v;
}

static inline double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------- */
/*
 * Steps that must work: each fails the test (ASSERT) with the errno and
 * what it was doing. Then the GPU's view through debugfs peek, and
 * dumb-buffer mappings.
 */

/* GEM_INFO that must work. */
static inline void info_of(struct __test_metadata *_metadata, int fd, uint32_t h,
			   struct drm_wddmseg_gem_info *info)
{
	int ret = wddmseg_query_allocation(fd, h, info);

	ASSERT_EQ(0, ret) TH_LOG("GEM_INFO %u: %s", h, strerror(-ret));
}

static inline uint32_t seg_of(struct __test_metadata *_metadata, int fd, uint32_t h)
{
	struct drm_wddmseg_gem_info info;

	info_of(_metadata, fd, h, &info);
	return info.segment_id;
}

static inline void qseg(struct __test_metadata *_metadata, int fd, uint32_t id,
			struct drm_wddmseg_query_segment *qs)
{
	int ret = wddmseg_query_segment(fd, id, NULL, 0, qs);

	ASSERT_EQ(0, ret) TH_LOG("QUERY_SEGMENT %u: %s", id, strerror(-ret));
}

static inline uint32_t create_ok(struct __test_metadata *_metadata, int fd,
				 const struct wddmseg_allocation_desc *a)
{
	uint32_t h;
	int ret = wddmseg_create_allocation(fd, a, &h);

	ASSERT_EQ(0, ret)
		TH_LOG("GEM_CREATE size 0x%" PRIx64 " flags 0x%x supported 0x%x: %s",
		       a->size, a->flags, a->supported_segments, strerror(-ret));
	return h;
}

static inline void *map_ok(struct __test_metadata *_metadata, int fd, uint32_t h,
			   uint64_t size)
{
	void *p;
	int ret = wddmseg_lock(fd, h, size, &p);

	ASSERT_EQ(0, ret) TH_LOG("mmap of handle %u: %s", h, strerror(-ret));
	return p;
}

static inline void move_ok(struct __test_metadata *_metadata, int fd, uint32_t h,
			   uint32_t id)
{
	int ret = wddmseg_move(fd, h, id);

	ASSERT_EQ(0, ret) TH_LOG("%s of handle %u into %s: %s",
				 id ? "MAKE_RESIDENT" : "EVICT", h,
				 seg_name(id), strerror(-ret));
	/*
	 * The copy engine moves asynchronously: CPU mappings wait for it on
	 * their own, but the GPU view read through peek does not.
	 */
	ret = wddmseg_wait(fd, h, 10000000000LL);
	ASSERT_EQ(0, ret) TH_LOG("GEM_WAIT after moving handle %u: %s", h,
				 strerror(-ret));
}

/* Bytes of this file resident in any segment (QUERY_BUDGET, both groups). */
static inline uint64_t file_usage(int fd)
{
	struct drm_wddmseg_query_budget b;
	uint64_t sum = 0;

	if (!wddmseg_query_budget(fd, WDDMSEG_BUDGET_LOCAL, &b))
		sum += b.current_usage;
	if (!wddmseg_query_budget(fd, WDDMSEG_BUDGET_NON_LOCAL, &b))
		sum += b.current_usage;
	return sum;
}

/* Whether debugfs shows what the GPU sees (peek_addr/peek) for @d. */
static inline bool peek_available(const struct gem_dev *d)
{
	char dir[64], path[96];

	gem_debugfs_dir(d, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/peek", dir);
	return !access(path, R_OK);
}

/*
 * The GEM_PEEK_WORDS words the GPU sees at @addr; a word the device could
 * not read counts in *@faults and reads as 0xffffffff. 0 or -errno.
 */
static inline int gpu_peek(const struct gem_dev *d, uint64_t addr,
			   uint32_t *words, unsigned int *faults)
{
	char dir[64];

	gem_debugfs_dir(d, dir, sizeof(dir));
	return gem_peek(dir, addr, words, faults);
}

/*
 * Check what the GPU sees of an allocation at GPU address @gpu against
 * pattern @seed: a few 64-byte windows (start, across a page boundary,
 * every @stride bytes, end). Returns the number of wrong words.
 */
static inline unsigned int gpu_check(struct __test_metadata *_metadata,
				     const struct gem_dev *d, uint64_t gpu,
				     uint64_t size, uint32_t seed, uint64_t stride,
				     const char *what)
{
	uint32_t words[GEM_PEEK_WORDS];
	unsigned int bad = 0, faults, k;
	uint64_t off;
	int ret;

	for (off = 0; off < size; off += stride) {
		uint64_t at[3] = { off, off + SZ_4K - 32, size - 64 };

		for (k = 0; k < 3; k++) {
			unsigned int j;

			if (at[k] + 64 > size || (k == 2 && off))
				continue;
			ret = gpu_peek(d, gpu + at[k], words, &faults);
			ASSERT_EQ(0, ret) TH_LOG("peek at 0x%" PRIx64 ": %s",
						 gpu + at[k], strerror(-ret));
			for (j = 0; j < GEM_PEEK_WORDS; j++) {
				uint32_t want = pattern_word(seed, at[k] / 4 + j);

				if (words[j] == want)
					continue;
				if (!bad)
					TH_LOG("%s: GPU sees 0x%08x at offset 0x%" PRIx64 " (GPU 0x%" PRIx64 "), CPU wrote 0x%08x%s",
					       what, words[j], at[k] + 4 * j,
					       gpu + at[k] + 4 * j, want,
					       faults ? " (peek faults)" : "");
				bad++;
			}
		}
	}
	return bad;
}

/* Bytes of @p[off, off + len) that are not the 32-bit @word. */
static inline uint64_t words_check(const volatile void *p, uint64_t off,
				   uint64_t len, uint32_t word)
{
	const volatile uint32_t *w = (const volatile uint32_t *)p + off / 4;
	uint64_t i, bad = 0;

	for (i = 0; i < len / 4; i++)
		bad += w[i] != word;
	return bad * 4;
}

/*
 * The GEM_PEEK_WORDS words the GPU sees at @addr, where a word the device
 * could not read is an error: 0, -EPROTO after a fault, or -errno.
 */
static inline int gpu_peek_exact(const struct gem_dev *d, uint64_t addr,
				 uint32_t *words)
{
	unsigned int faults;
	int ret = gpu_peek(d, addr, words, &faults);

	return ret ? ret : faults ? -EPROTO : 0;
}

/*
 * MAP_DUMB: the offset to mmap dumb buffer @handle at, in *@offset (0 when
 * refused). 0 or -errno.
 */
static inline int gem_dumb_offset(int fd, uint32_t handle, uint64_t *offset)
{
	struct drm_mode_map_dumb m = { .handle = handle };
	int ret = wddmseg_ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m);

	*offset = ret ? 0 : m.offset;
	return ret;
}

/* A shared read-write mapping of dumb buffer @handle (@size bytes), or NULL. */
static inline void *gem_dumb_map(int fd, uint32_t handle, uint64_t size)
{
	uint64_t off;
	void *p;

	if (gem_dumb_offset(fd, handle, &off))
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	return p == MAP_FAILED ? NULL : p;
}

#endif /* WDDMSEG_GEM_H */
