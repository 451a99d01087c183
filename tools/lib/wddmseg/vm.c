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
