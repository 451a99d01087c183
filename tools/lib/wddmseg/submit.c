// SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT
/*
 * libwddmseg: what runs on the paging engine (residency changes, blits),
 * waiting for it, and the residency events it sends back.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "wddmseg.h"

int wddmseg_make_resident(int fd, uint32_t handle, uint32_t segment_id)
{
	struct drm_wddmseg_gem_residency r = {
		.handle = handle, .segment_id = segment_id,
	};

	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_GEM_MAKE_RESIDENT, &r);
}

int wddmseg_evict(int fd, uint32_t handle, uint32_t flags)
{
	struct drm_wddmseg_gem_residency r = {
		.handle = handle, .flags = flags,
	};

	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_GEM_EVICT, &r);
}

int wddmseg_offer_allocations(int fd, const uint32_t *handles, uint32_t count,
			      uint32_t priority)
{
	struct drm_wddmseg_offer_allocations o = {
		.handles = (uintptr_t)handles, .count = count,
		.priority = priority,
	};

	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_OFFER_ALLOCATIONS, &o);
}

int wddmseg_reclaim_allocations(int fd, const uint32_t *handles,
				uint32_t count, uint32_t flags,
				uint32_t *results)
{
	struct drm_wddmseg_reclaim_allocations r = {
		.handles = (uintptr_t)handles, .results = (uintptr_t)results,
		.count = count, .flags = flags,
	};

	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_RECLAIM_ALLOCATIONS, &r);
}

static bool priority_known(uint32_t p)
{
	return p == WDDMSEG_ALLOCATION_PRIORITY_MINIMUM ||
	       p == WDDMSEG_ALLOCATION_PRIORITY_LOW ||
	       p == WDDMSEG_ALLOCATION_PRIORITY_NORMAL ||
	       p == WDDMSEG_ALLOCATION_PRIORITY_HIGH ||
	       p == WDDMSEG_ALLOCATION_PRIORITY_MAXIMUM;
}

static int set_priority(int fd, const uint32_t *handles, uint32_t count,
			uint32_t priority)
{
	struct drm_wddmseg_set_allocation_priority s = {
		.handles = (uintptr_t)handles, .count = count,
		.priority = priority,
	};

	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_SET_ALLOCATION_PRIORITY, &s);
}

int wddmseg_set_allocation_priority(int fd, const uint32_t *handles,
				    uint32_t count,
				    const uint32_t *priorities)
{
	struct drm_wddmseg_gem_info info;
	uint32_t i, j, n, *group;
	int ret = 0;

	if (!count || count > WDDMSEG_OFFER_MAX_HANDLES)
		return -EINVAL;
	for (i = 1; i < count && priorities[i] == priorities[0]; i++)
		;
	if (i == count)		/* one value: one call, all or nothing */
		return set_priority(fd, handles, count, priorities[0]);
	for (i = 0; i < count; i++) {
		if (!priority_known(priorities[i]))
			return -EINVAL;
		ret = wddmseg_query_allocation(fd, handles[i], &info);
		if (ret)
			return ret;
	}
	group = malloc(count * sizeof(*group));
	if (!group)
		return -ENOMEM;
	for (i = 0; i < count && !ret; i++) {
		/* Each value once, where it first appears. */
		for (j = 0; j < i && priorities[j] != priorities[i]; j++)
			;
		if (j < i)
			continue;
		for (n = 0, j = i; j < count; j++)
			if (priorities[j] == priorities[i])
				group[n++] = handles[j];
		ret = set_priority(fd, group, n, priorities[i]);
	}
	free(group);
	return ret;
}

int wddmseg_move(int fd, uint32_t handle, uint32_t segment_id)
{
	return segment_id ? wddmseg_make_resident(fd, handle, segment_id) :
			    wddmseg_evict(fd, handle, 0);
}

int wddmseg_wait(int fd, uint32_t handle, int64_t timeout_ns)
{
	struct drm_wddmseg_gem_wait w = {
		.handle = handle, .timeout_ns = timeout_ns,
	};

	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_GEM_WAIT, &w);
}

int wddmseg_read_residency_events(int fd,
				  struct drm_wddmseg_event_residency *events,
				  unsigned int max, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t len = (size_t)max * sizeof(*events);
	unsigned int n = 0;
	char buf[4096];
	ssize_t got, off;
	int ret;

	if (!max)
		return -EINVAL;
	if (len > sizeof(buf))
		len = sizeof(buf) / sizeof(*events) * sizeof(*events);
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return -errno;
	if (!ret)
		return -ETIME;
	got = read(fd, buf, len);
	if (got < 0)
		return errno == EAGAIN ? -ETIME : -errno;
	for (off = 0; off < got;) {
		struct drm_event e;

		if (got - off < (ssize_t)sizeof(e))
			return -EPROTO;
		memcpy(&e, buf + off, sizeof(e));
		if (e.length < sizeof(e) || e.length > got - off)
			return -EPROTO;
		if (e.type == DRM_WDDMSEG_EVENT_RESIDENCY) {
			if (e.length != sizeof(*events))
				return -EPROTO;
			memcpy(&events[n++], buf + off, sizeof(*events));
		}
		off += e.length;
	}
	return n;
}

int wddmseg_submit_blit(int fd, struct drm_wddmseg_submit_blit *blit)
{
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_SUBMIT_BLIT, blit);
}

int wddmseg_copy(int fd, uint32_t src, uint64_t src_offset, uint32_t dst,
		 uint64_t dst_offset, uint64_t size, int *fence_fd)
{
	struct drm_wddmseg_submit_blit b = {
		.op = WDDMSEG_BLIT_COPY,
		.flags = fence_fd ? WDDMSEG_BLIT_FENCE_OUT : 0,
		.src_handle = src, .src_offset = src_offset,
		.dst_handle = dst, .dst_offset = dst_offset,
		.size = size,
	};
	int ret = wddmseg_submit_blit(fd, &b);

	if (fence_fd)
		*fence_fd = ret ? -1 : b.fence_fd;
	return ret;
}

int wddmseg_fill(int fd, uint32_t dst, uint64_t dst_offset, uint64_t size,
		 uint32_t pattern, int *fence_fd)
{
	struct drm_wddmseg_submit_blit b = {
		.op = WDDMSEG_BLIT_FILL,
		.flags = fence_fd ? WDDMSEG_BLIT_FENCE_OUT : 0,
		.dst_handle = dst, .dst_offset = dst_offset,
		.size = size, .pattern = pattern,
	};
	int ret = wddmseg_submit_blit(fd, &b);

	if (fence_fd)
		*fence_fd = ret ? -1 : b.fence_fd;
	return ret;
}
