// SPDX-License-Identifier: GPL-2.0-only
/*
 * debugfs: the validated segment table, each segment's allocations, a
 * port to read memory as the GPU sees it, fault injection, and the
 * device's test knobs.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/pm_runtime.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "wddmseg_debugfs.h"
#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_engine.h"
#include "wddmseg_mgr.h"
#include "wddmseg_pm.h"
#include "wddmseg_hw.h"

static const char *wddmseg_segment_kind(const struct wddmseg_segment_desc *s)
{
	if (s->flags & DXGK_SEGFLAG_AGP)
		return "agp";
	if (s->flags & DXGK_SEGFLAG_APERTURE)
		return "aperture";
	return "memory";
}

static int wddmseg_segments_show(struct seq_file *m, void *unused)
{
	struct drm_info_node *node = m->private;
	const struct wddmseg_adapter_desc *d =
		&to_wddmseg(node->minor->dev)->desc;
	u32 i, j;

	seq_printf(m, "adapter: caps=0x%08x paging_node=%u engines=%u vram=0x%llx bar=0x%llx+0x%llx segments=%u\n",
		   d->vidmm_caps, d->paging_node, d->num_engines, d->vram_size,
		   d->bar_start, d->bar_size, d->segment_count);
	for (i = 0; i < d->segment_count; i++) {
		const struct wddmseg_segment_desc *s = &d->seg[i];

		seq_printf(m, "%u: kind=%s base=0x%llx cpu=0x%llx size=0x%llx commit=0x%llx flags=0x%08x banks=%u\n",
			   i + 1, wddmseg_segment_kind(s), s->base_address,
			   s->cpu_translated_address, s->size, s->commit_limit,
			   s->flags, s->nb_banks);
		for (j = 0; j < s->nb_banks; j++)
			seq_printf(m, "   bank %u: end=0x%llx\n", j,
				   s->bank_end[j]);
	}
	return 0;
}

/*
 * The ranges of pinned allocations in a segment, in address order. The
 * LRU lock keeps each resource's buffer object what it is (a pipelined
 * move hands a resource to a ghost under it); the segment's lock keeps
 * the ranges.
 */
static void wddmseg_print_pinned(struct wddmseg_device *wdev,
				 struct wddmseg_mgr *mgr, struct seq_file *m)
{
	struct drm_mm_node *node;

	spin_lock(&wdev->bdev.lru_lock);
	spin_lock(&mgr->lock);
	drm_mm_for_each_node(node, &mgr->mm) {
		struct ttm_resource *res = wddmseg_mgr_node_res(node);

		if (res->bo && READ_ONCE(res->bo->pin_count))
			seq_printf(m, "  pinned: 0x%llx-0x%llx\n",
				   node->start, node->start + node->size);
	}
	spin_unlock(&mgr->lock);
	spin_unlock(&wdev->bdev.lru_lock);
}

/* Per segment: counters, every allocation and hole, pinned page ranges. */
static int wddmseg_mm_show(struct seq_file *m, void *unused)
{
	struct drm_info_node *node = m->private;
	struct wddmseg_device *wdev = to_wddmseg(node->minor->dev);
	struct drm_printer p = drm_seq_file_printer(m);
	u32 i;

	for (i = 0; i < wdev->desc.segment_count; i++) {
		if (!wdev->mgr[i])
			continue;
		ttm_resource_manager_debug(&wdev->mgr[i]->manager, &p);
		wddmseg_print_pinned(wdev, wdev->mgr[i], m);
	}
	return 0;
}

/*
 * What the GPU sees: WDDMSEG_PEEK_WORDS words at the GPU address in
 * peek_addr, read through the device's PEEK port (VRAM directly, apertures
 * through their page table). "fault" marks words the device could not read.
 */
#define WDDMSEG_PEEK_WORDS	16

static int wddmseg_peek_show(struct seq_file *m, void *unused)
{
	struct drm_info_node *node = m->private;
	struct wddmseg_device *wdev = to_wddmseg(node->minor->dev);
	u64 addr = READ_ONCE(wdev->peek_addr);
	u32 i, word, status;
	int idx;

	if (!drm_dev_enter(&wdev->drm, &idx))
		return -ENODEV;
	/* Registers: the device in D0 (runtime PM). */
	if (wddmseg_pm_get(wdev)) {
		drm_dev_exit(idx);
		return -EIO;
	}
	mutex_lock(&wdev->apt_lock);
	seq_printf(m, "0x%llx:", addr);
	for (i = 0; i < WDDMSEG_PEEK_WORDS; i++, addr += 4) {
		writel(WDDMSEG_STATUS_PEEK_FAULT, wdev->mmio + WDDMSEG_REG_STATUS);
		writel(lower_32_bits(addr), wdev->mmio + WDDMSEG_REG_PEEK_ADDR_LO);
		writel(upper_32_bits(addr), wdev->mmio + WDDMSEG_REG_PEEK_ADDR_HI);
		word = readl(wdev->mmio + WDDMSEG_REG_PEEK_DATA);
		status = readl(wdev->mmio + WDDMSEG_REG_STATUS);
		if (status & WDDMSEG_STATUS_PEEK_FAULT)
			seq_puts(m, " fault");
		else
			seq_printf(m, " %08x", word);
	}
	seq_putc(m, '\n');
	mutex_unlock(&wdev->apt_lock);
	wddmseg_pm_put(wdev);
	drm_dev_exit(idx);
	return 0;
}

static int wddmseg_engine_show(struct seq_file *m, void *unused)
{
	struct drm_info_node *node = m->private;
	struct wddmseg_device *wdev = to_wddmseg(node->minor->dev);
	struct wddmseg_engine *eng = &wdev->engine;
	int idx;

	/* A runtime-suspended device is left alone: no registers to read. */
	seq_printf(m, "ready: %d\nsubmitted seqno: %llu\nresets: %llu\nruntime suspended: %d\n",
		   READ_ONCE(eng->ready), READ_ONCE(eng->seqno),
		   READ_ONCE(eng->resets),
		   pm_runtime_suspended(wdev->drm.dev));
	if (!drm_dev_enter(&wdev->drm, &idx))
		return 0;
	if (pm_runtime_get_if_in_use(wdev->drm.dev) <= 0) {
		drm_dev_exit(idx);
		return 0;
	}
	if (!eng->ready) {
		wddmseg_pm_put(wdev);
		drm_dev_exit(idx);
		return 0;
	}
	seq_printf(m, "completed seqno: %llu\n",
		   le64_to_cpu(READ_ONCE(*eng->writeback)));
	seq_printf(m, "head: 0x%x\ntail: 0x%x\nstatus: 0x%x\nfault code: %u at 0x%x\n",
		   readl(wdev->mmio + WDDMSEG_REG_RING_HEAD),
		   readl(wdev->mmio + WDDMSEG_REG_RING_TAIL),
		   readl(wdev->mmio + WDDMSEG_REG_RING_STATUS),
		   readl(wdev->mmio + WDDMSEG_REG_FAULT_CODE),
		   readl(wdev->mmio + WDDMSEG_REG_FAULT_HEAD));
	wddmseg_pm_put(wdev);
	drm_dev_exit(idx);
	return 0;
}

/*
 * Write "hang" or "fault" to make the engine misbehave once, or
 * "hang-replay" / "fault-replay" to make it hang or fault now and again on
 * the replay after the reset, so that the jobs fail with -EIO.
 */
static ssize_t wddmseg_inject_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *pos)
{
	struct wddmseg_device *wdev = file_inode(file)->i_private;
	bool again = false, ready;
	char buf[16] = {};
	u32 what;
	int idx;

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	if (sysfs_streq(buf, "hang")) {
		what = WDDMSEG_INJECT_HANG;
	} else if (sysfs_streq(buf, "fault")) {
		what = WDDMSEG_INJECT_FAULT;
	} else if (sysfs_streq(buf, "hang-replay")) {
		what = WDDMSEG_INJECT_HANG;
		again = true;
	} else if (sysfs_streq(buf, "fault-replay")) {
		what = WDDMSEG_INJECT_FAULT;
		again = true;
	} else {
		return -EINVAL;
	}
	if (!drm_dev_enter(&wdev->drm, &idx))
		return -ENODEV;
	/* The engine stops in runtime suspend: resume it first. */
	if (wddmseg_pm_get(wdev)) {
		drm_dev_exit(idx);
		return -EIO;
	}
	ready = wdev->engine.ready;
	if (ready)
		wddmseg_engine_inject(&wdev->engine, what, again);
	wddmseg_pm_put(wdev);
	drm_dev_exit(idx);
	return ready ? len : -ENODEV;
}

static const struct file_operations wddmseg_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = wddmseg_inject_write,
	.llseek = noop_llseek,
};

/**
 * DOC: Test knobs
 *
 * Knobs that tests and ``make bench`` turn, and that a user has no reason
 * to, are per device in debugfs, in the ``wddmseg`` directory of the DRM
 * device's debugfs directory (``/sys/kernel/debug/dri/N/wddmseg/``, N of
 * ``/dev/dri/cardN``); they may change at any time:
 *
 * - ``use_engine`` (Y): move memory with the copy engine; N: the CPU
 *   copies, as without an engine.
 * - ``cpu_move_max_kb`` (4,4,4): under the module parameter
 *   ``copy_policy=fixed``, the largest move in KiB the CPU copies
 *   although the engine runs, when the allocation is idle, per path:
 *   VRAM<->system memory, an aperture on either side, VRAM<->VRAM; under
 *   ``copy_policy=adaptive`` (the default) the CPU's way until a size
 *   class is measured (DOC: Copy cost model). Under either policy 0 turns
 *   the CPU off for a path (see "Engine or CPU"). Read and written as
 *   three numbers separated by commas.
 * - ``fence_spin_us`` (500): microseconds a waiter polls a paging fence's
 *   writeback before it sleeps until the interrupt; 0: sleeps at once.
 * - ``vram_blocks`` (Y): allocations that need no contiguous VRAM may be
 *   made of several ranges; N: one range each (DOC: VRAM made of blocks).
 *
 * - ``copy_costs`` (read only): the adaptive choice's current estimates
 *   (DOC: Copy cost model).
 *
 * Each file is read and written like a module parameter of its type
 * (``echo 0 > use_engine``). Without debugfs the defaults stay.
 */

/**
 * wddmseg_knobs_init - the test knobs' defaults
 * @wdev: new device
 */
void wddmseg_knobs_init(struct wddmseg_device *wdev)
{
	struct wddmseg_knobs *k = &wdev->knobs;
	int i;

	k->use_engine = true;
	for (i = 0; i < WDDMSEG_MOVE_PATHS; i++)
		k->cpu_move_max_kb[i] = 4;
	k->fence_spin_us = 500;
	k->vram_blocks = true;
}

static int wddmseg_cpu_move_max_kb_show(struct seq_file *m, void *unused)
{
	struct wddmseg_device *wdev = m->private;
	int i;

	for (i = 0; i < WDDMSEG_MOVE_PATHS; i++)
		seq_printf(m, "%s%u", i ? "," : "",
			   READ_ONCE(wdev->knobs.cpu_move_max_kb[i]));
	seq_putc(m, '\n');
	return 0;
}

static int wddmseg_cpu_move_max_kb_open(struct inode *inode, struct file *file)
{
	return single_open(file, wddmseg_cpu_move_max_kb_show, inode->i_private);
}

/* One number per path, separated by commas; all or nothing changes. */
static ssize_t wddmseg_cpu_move_max_kb_write(struct file *file,
					     const char __user *ubuf,
					     size_t len, loff_t *pos)
{
	struct wddmseg_device *wdev = file_inode(file)->i_private;
	u32 kb[WDDMSEG_MOVE_PATHS];
	char buf[48] = {}, *p = buf, *tok;
	int i, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	for (i = 0; i < WDDMSEG_MOVE_PATHS; i++) {
		tok = strsep(&p, ",");
		if (!tok)
			return -EINVAL;
		ret = kstrtou32(strim(tok), 0, &kb[i]);
		if (ret)
			return ret;
	}
	if (p)
		return -EINVAL;
	for (i = 0; i < WDDMSEG_MOVE_PATHS; i++)
		WRITE_ONCE(wdev->knobs.cpu_move_max_kb[i], kb[i]);
	return len;
}

static const struct file_operations wddmseg_cpu_move_max_kb_fops = {
	.owner = THIS_MODULE,
	.open = wddmseg_cpu_move_max_kb_open,
	.read = seq_read,
	.write = wddmseg_cpu_move_max_kb_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* DOC: Copy cost model: the adaptive choice's estimates (read only). */
static int wddmseg_copy_costs_show(struct seq_file *m, void *unused)
{
	return wddmseg_copy_show(m, m->private);
}

static int wddmseg_copy_costs_open(struct inode *inode, struct file *file)
{
	return single_open(file, wddmseg_copy_costs_show, inode->i_private);
}

static const struct file_operations wddmseg_copy_costs_fops = {
	.owner = THIS_MODULE,
	.open = wddmseg_copy_costs_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static void wddmseg_knobs_debugfs(struct wddmseg_device *wdev,
				  struct dentry *root)
{
	struct wddmseg_knobs *k = &wdev->knobs;
	struct dentry *dir = debugfs_create_dir("wddmseg", root);

	debugfs_create_bool("use_engine", 0600, dir, &k->use_engine);
	debugfs_create_file("cpu_move_max_kb", 0600, dir, wdev,
			    &wddmseg_cpu_move_max_kb_fops);
	debugfs_create_u32("fence_spin_us", 0600, dir, &k->fence_spin_us);
	debugfs_create_bool("vram_blocks", 0600, dir, &k->vram_blocks);
	debugfs_create_file("copy_costs", 0400, dir, wdev,
			    &wddmseg_copy_costs_fops);
}

static const struct drm_info_list wddmseg_debugfs_list[] = {
	{ "segments", wddmseg_segments_show, 0, NULL },
	{ "mm", wddmseg_mm_show, 0, NULL },
	{ "peek", wddmseg_peek_show, 0, NULL },
	{ "engine", wddmseg_engine_show, 0, NULL },
};

void wddmseg_debugfs_init(struct drm_minor *minor)
{
	struct wddmseg_device *wdev = to_wddmseg(minor->dev);

	drm_debugfs_create_files(wddmseg_debugfs_list,
				 ARRAY_SIZE(wddmseg_debugfs_list),
				 minor->debugfs_root, minor);
	debugfs_create_x64("peek_addr", 0600, minor->debugfs_root,
			   &wdev->peek_addr);
	debugfs_create_file("inject", 0200, minor->debugfs_root, wdev,
			    &wddmseg_inject_fops);
	wddmseg_knobs_debugfs(wdev, minor->debugfs_root);
}
