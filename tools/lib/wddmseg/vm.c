// SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT
/*
 * libwddmseg: GPU virtual address spaces (the GpuMmu model).
 */
#include <string.h>

#include "wddmseg.h"

int wddmseg_create_gpu_va_space(int fd, struct drm_wddmseg_vm_create *info)
{
	memset(info, 0, sizeof(*info));
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_VM_CREATE, info);
}

int wddmseg_destroy_gpu_va_space(int fd, uint32_t vm_id)
{
	struct drm_wddmseg_vm_destroy args;

	memset(&args, 0, sizeof(args));
	args.vm_id = vm_id;
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_VM_DESTROY, &args);
}

static int wddmseg_vm_bind(int fd, struct drm_wddmseg_vm_bind *args)
{
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_VM_BIND, args);
}

int wddmseg_map_gpu_va(int fd, uint32_t vm_id, uint64_t va, uint32_t handle,
		       uint64_t bo_offset, uint64_t size, uint32_t flags)
{
	struct drm_wddmseg_vm_bind args;

	memset(&args, 0, sizeof(args));
	args.vm_id = vm_id;
	args.op = WDDMSEG_VM_BIND_OP_MAP;
	args.flags = flags;
	args.handle = handle;
	args.bo_offset = bo_offset;
	args.va = va;
	args.range = size;
	return wddmseg_vm_bind(fd, &args);
}

int wddmseg_unmap_gpu_va(int fd, uint32_t vm_id, uint64_t va, uint64_t size)
{
	struct drm_wddmseg_vm_bind args;

	memset(&args, 0, sizeof(args));
	args.vm_id = vm_id;
	args.op = WDDMSEG_VM_BIND_OP_UNMAP;
	args.va = va;
	args.range = size;
	return wddmseg_vm_bind(fd, &args);
}

static int wddmseg_blit_gpu_va(int fd, struct drm_wddmseg_submit_blit *b,
			       int *fence_fd)
{
	int ret;

	b->flags |= WDDMSEG_BLIT_VIRTUAL |
		    (fence_fd ? WDDMSEG_BLIT_FENCE_OUT : 0);
	ret = wddmseg_submit_blit(fd, b);
	if (fence_fd)
		*fence_fd = ret ? -1 : b->fence_fd;
	return ret;
}

int wddmseg_copy_gpu_va(int fd, uint32_t vm_id, uint64_t src_va,
			uint64_t dst_va, uint64_t size, int *fence_fd)
{
	struct drm_wddmseg_submit_blit b;

	memset(&b, 0, sizeof(b));
	b.op = WDDMSEG_BLIT_COPY;
	b.vm_id = vm_id;
	b.src_offset = src_va;
	b.dst_offset = dst_va;
	b.size = size;
	return wddmseg_blit_gpu_va(fd, &b, fence_fd);
}

int wddmseg_fill_gpu_va(int fd, uint32_t vm_id, uint64_t dst_va,
			uint64_t size, uint32_t pattern, int *fence_fd)
{
	struct drm_wddmseg_submit_blit b;

	memset(&b, 0, sizeof(b));
	b.op = WDDMSEG_BLIT_FILL;
	b.vm_id = vm_id;
	b.dst_offset = dst_va;
	b.size = size;
	b.pattern = pattern;
	return wddmseg_blit_gpu_va(fd, &b, fence_fd);
}
