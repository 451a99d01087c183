// SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT
/*
 * libwddmseg: allocations (create, destroy, query) and their CPU
 * mappings (lock, unlock).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

#include <xf86drm.h>

#include "wddmseg.h"

/* GEM_CREATE of @desc, with @create_flags, @pitch and @height. */
static int create_allocation(int fd, const struct wddmseg_allocation_desc *desc,
			     uint32_t create_flags, uint32_t pitch,
			     uint32_t height, uint32_t *handle)
{
	struct drm_wddmseg_gem_create c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.create_flags = create_flags;
	c.pitch = pitch;
	c.height = height;
	c.size = desc->size;
	c.flags = desc->flags;
	c.supported_segments = desc->supported_segments;
	c.eviction_segments = desc->eviction_segments;
	memcpy(c.preferred, desc->preferred, sizeof(c.preferred));
	c.bank_hint = desc->bank_hint;
	c.alignment = desc->alignment;
	c.user_ptr = (uintptr_t)desc->user_ptr;
	ret = wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_GEM_CREATE, &c);
	*handle = ret ? 0 : c.handle;
	return ret;
}

int wddmseg_create_allocation(int fd,
			      const struct wddmseg_allocation_desc *desc,
			      uint32_t *handle)
{
	return create_allocation(fd, desc, 0, 0, 0, handle);
}

int wddmseg_create_cross_adapter_allocation(int fd,
					    const struct wddmseg_allocation_desc *desc,
					    uint32_t pitch, uint32_t height,
					    uint32_t *handle)
{
	return create_allocation(fd, desc, WDDMSEG_CREATE_CROSS_ADAPTER, pitch,
				 height, handle);
}

int wddmseg_create_allocation_in(int fd, uint64_t size, uint32_t flags,
				 uint32_t segment_id, uint32_t *handle)
{
	struct wddmseg_allocation_desc desc = { .size = size, .flags = flags };

	if (segment_id) {
		desc.supported_segments = WDDMSEG_SEGMENT_BIT(segment_id);
		desc.preferred[0] = segment_id;
	}
	return wddmseg_create_allocation(fd, &desc, handle);
}

int wddmseg_destroy_allocation(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return wddmseg_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

int wddmseg_export_allocation(int fd, uint32_t handle, int *dmabuf)
{
	struct drm_prime_handle p = {
		.handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR, .fd = -1,
	};
	int ret = wddmseg_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p);

	*dmabuf = ret ? -1 : p.fd;
	return ret;
}

int wddmseg_import_allocation(int fd, int dmabuf, uint32_t *handle)
{
	struct drm_prime_handle p = { .fd = dmabuf };
	int ret = wddmseg_ioctl(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);

	*handle = ret ? 0 : p.handle;
	return ret;
}

int wddmseg_query_allocation(int fd, uint32_t handle,
			     struct drm_wddmseg_gem_info *info)
{
	memset(info, 0, sizeof(*info));
	info->handle = handle;
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_GEM_INFO, info);
}

int wddmseg_allocation_segment(int fd, uint32_t handle)
{
	struct drm_wddmseg_gem_info info;
	int ret = wddmseg_query_allocation(fd, handle, &info);

	return ret ? ret : (int)info.segment_id;
}

int wddmseg_mmap_offset(int fd, uint32_t handle, uint64_t *offset)
{
	struct drm_wddmseg_gem_mmap_offset m = { .handle = handle };
	int ret = wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_GEM_MMAP_OFFSET, &m);

	*offset = ret ? 0 : m.offset;
	return ret;
}

int wddmseg_lock(int fd, uint32_t handle, uint64_t size, void **ptr)
{
	uint64_t offset;
	void *p;
	int ret;

	*ptr = NULL;
	if (!size) {
		struct drm_wddmseg_gem_info info;

		ret = wddmseg_query_allocation(fd, handle, &info);
		if (ret)
			return ret;
		size = info.size;
	}
	ret = wddmseg_mmap_offset(fd, handle, &offset);
	if (ret)
		return ret;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
	if (p == MAP_FAILED)
		return -errno;
	*ptr = p;
	return 0;
}

int wddmseg_unlock(void *ptr, uint64_t size)
{
	return munmap(ptr, size) ? -errno : 0;
}
