// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-open-file state: the usage and budget accounting of one client,
 * referenced by the file and by every allocation it created.
 */

#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <drm/drm_file.h>

#include "wddmseg_budget.h"
#include "wddmseg_compat.h"
#include "wddmseg_drv.h"
#include "wddmseg_fdinfo.h"
#include "wddmseg_file.h"

static void wddmseg_file_release(struct kref *ref)
{
	struct wddmseg_file *wfile = container_of(ref, struct wddmseg_file,
						  refcount);

	put_pid(wfile->tgid);
	kfree(wfile);
}

int wddmseg_open(struct drm_device *drm, struct drm_file *file)
{
	struct wddmseg_file *wfile = kzalloc_obj(*wfile, GFP_KERNEL);

	if (!wfile)
		return -ENOMEM;
	kref_init(&wfile->refcount);
	wfile->tgid = get_pid(task_tgid(current));
	wfile->trim_next[0] = jiffies;
	wfile->trim_next[1] = jiffies;
	wfile->client_id = wddmseg_fdinfo_client_id();
	xa_init_flags(&wfile->vms, XA_FLAGS_ALLOC1);
	file->driver_priv = wfile;
	return 0;
}

void wddmseg_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct wddmseg_file *wfile = file->driver_priv;

	/* Address spaces hold allocations, which hold @wfile: drop them. */
	wddmseg_vm_file_fini(wfile);
	wddmseg_budget_file_fini(to_wddmseg(drm), wfile);
	kref_put(&wfile->refcount, wddmseg_file_release);
}

/**
 * wddmseg_file_get - a reference to a client's state past its file
 * @wfile: client
 *
 * Return: @wfile.
 */
struct wddmseg_file *wddmseg_file_get(struct wddmseg_file *wfile)
{
	kref_get(&wfile->refcount);
	return wfile;
}

/**
 * wddmseg_file_put - drop a wddmseg_file_get() reference (any context)
 * @wfile: client
 */
void wddmseg_file_put(struct wddmseg_file *wfile)
{
	kref_put(&wfile->refcount, wddmseg_file_release);
}
