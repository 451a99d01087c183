// SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT
/*
 * libwddmseg: adapters (open by node or PCI address, query the adapter,
 * its segments and budgets) and the names and kinds of segment flags.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xf86drm.h>

#include "wddmseg.h"

#define DRIVER_NAME	"wddmseg"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

int wddmseg_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? -errno : 0;
}

bool wddmseg_is_adapter(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	bool ours = v && v->name && !strcmp(v->name, DRIVER_NAME);

	if (v)
		drmFreeVersion(v);
	return ours;
}

int wddmseg_open_adapter(const char *path, int flags)
{
	int fd = open(path, O_RDWR | O_CLOEXEC | flags);

	if (fd < 0)
		return -errno;
	if (!wddmseg_is_adapter(fd)) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

/* @name is @prefix followed by decimal digits only ("card0", not "card0-DP-1"). */
static bool node_name(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	const char *p = name + len;

	if (strncmp(name, prefix, len) || !*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

int wddmseg_find_node(const char *bdf, enum wddmseg_node_type type,
		      char *path, size_t len)
{
	const char *prefix = type == WDDMSEG_NODE_RENDER ? "renderD" : "card";
	char dir[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int ret = -ENOENT;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s/drm", bdf);
	d = opendir(dir);
	if (!d) {
		/* no such device, or a device without DRM nodes */
		dir[strlen(dir) - strlen("/drm")] = '\0';
		return stat(dir, &st) ? -ENODEV : -ENXIO;
	}
	while ((de = readdir(d))) {
		if (!node_name(de->d_name, prefix))
			continue;
		if ((size_t)snprintf(path, len, "/dev/dri/%s", de->d_name) >= len)
			ret = -ENAMETOOLONG;
		else
			ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

int wddmseg_open_adapter_pci(const char *bdf, enum wddmseg_node_type type,
			     int flags)
{
	char path[PATH_MAX];
	int ret = wddmseg_find_node(bdf, type, path, sizeof(path));

	return ret ? ret : wddmseg_open_adapter(path, flags);
}

int wddmseg_close_adapter(int fd)
{
	return close(fd) ? -errno : 0;
}

int wddmseg_query_adapter(int fd, struct drm_wddmseg_query_adapter *info)
{
	memset(info, 0, sizeof(*info));
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_QUERY_ADAPTER, info);
}

int wddmseg_query_mmu(int fd, struct drm_wddmseg_query_mmu *info)
{
	memset(info, 0, sizeof(*info));
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_QUERY_MMU, info);
}

int wddmseg_query_segment(int fd, uint32_t segment_id, uint64_t *banks,
			  uint32_t bank_capacity,
			  struct drm_wddmseg_query_segment *info)
{
	memset(info, 0, sizeof(*info));
	info->segment_id = segment_id;
	info->bank_capacity = bank_capacity;
	info->banks_ptr = (uintptr_t)banks;
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_QUERY_SEGMENT, info);
}

int wddmseg_query_budget(int fd, uint32_t group,
			 struct drm_wddmseg_query_budget *info)
{
	memset(info, 0, sizeof(*info));
	info->group = group;
	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_QUERY_BUDGET, info);
}

int wddmseg_set_video_memory_reservation(int fd, uint32_t group,
					 uint64_t bytes)
{
	struct drm_wddmseg_set_reservation args = {
		.group = group,
		.reservation = bytes,
	};

	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_SET_RESERVATION, &args);
}

int wddmseg_register_trim_notification(int fd, bool enable)
{
	struct drm_wddmseg_register_trim args = {
		.flags = enable ? WDDMSEG_TRIM_NOTIFY_ENABLE : 0,
	};

	return wddmseg_ioctl(fd, DRM_IOCTL_WDDMSEG_REGISTER_TRIM_NOTIFICATION,
			     &args);
}

bool wddmseg_segment_is_aperture(uint32_t flags)
{
	return flags & (WDDMSEG_SEGMENT_FLAG_APERTURE | WDDMSEG_SEGMENT_FLAG_AGP);
}

bool wddmseg_segment_cpu_visible(uint32_t flags)
{
	if (flags & WDDMSEG_SEGMENT_FLAG_APERTURE)
		return true;
	return !wddmseg_segment_is_aperture(flags) &&
	       (flags & WDDMSEG_SEGMENT_FLAG_CPU_VISIBLE);
}

uint32_t wddmseg_segment_budget_group(uint32_t flags)
{
	if (flags & WDDMSEG_SEGMENT_FLAG_LOCAL_BUDGET_GROUP)
		return WDDMSEG_BUDGET_LOCAL;
	if (flags & WDDMSEG_SEGMENT_FLAG_NON_LOCAL_BUDGET_GROUP)
		return WDDMSEG_BUDGET_NON_LOCAL;
	return wddmseg_segment_is_aperture(flags) ? WDDMSEG_BUDGET_NON_LOCAL :
						    WDDMSEG_BUDGET_LOCAL;
}

/* DXGK_SEGMENTFLAGS members, by bit (WDDMSEG_SEGMENT_FLAG_*). */
static const char *const segment_flag_names[] = {
	"Aperture",
	"Agp",
	"CpuVisible",
	"UseBanking",
	"CacheCoherent",
	"PitchAlignment",
	"PopulatedFromSystemMemory",
	"PreservedDuringStandby",
	"PreservedDuringHibernate",
	"PartiallyPreservedDuringHibernate",
	"DirectFlip",
	"Use64KBPages",
	"ReservedSysMem",
	"SupportsCpuHostAperture",
	"SupportsCachedCpuHostAperture",
	"ApplicationTarget",
	"VprSupported",
	"VprPreservedDuringStandby",
	"EncryptedPagingSupported",
	"LocalBudgetGroup",
	"NonLocalBudgetGroup",
	"PopulatedByReservedDDRByFirmware",
};

/* DXGK_VIDMMCAPS members, by bit (WDDMSEG_VIDMM_CAP_*). */
static const char *const vidmm_cap_names[] = {
	"OutOfOrderLock",
	"DedicatedPagingEngine",
	"PagingEngineCanSwizzle",
	"SectionBackedPrimary",
	"CrossAdapterResource",
	"VirtualAddressingSupported",
	"GpuMmuSupported",
	"IoMmuSupported",
	"ReplicateGdiContent",
	"NonCpuVisiblePrimary",
	"ParavirtualizationSupported",
	"IoMmuSecureModeSupported",
	"DisableSelfRefreshVRAMInS3",
	"IoMmuSecureModeRequired",
	"MapAperture2Supported",
	"CrossAdapterResourceTexture",
	"CrossAdapterResourceScanout",
	"AlwaysPoweredVRAM",
};

_Static_assert((1ull << ARRAY_SIZE(segment_flag_names)) - 1 ==
	       WDDMSEG_SEGMENT_FLAG_KNOWN_MASK,
	       "a name for every DXGK_SEGMENTFLAGS member");
_Static_assert((1ull << ARRAY_SIZE(vidmm_cap_names)) - 1 ==
	       WDDMSEG_VIDMM_CAP_KNOWN_MASK,
	       "a name for every DXGK_VIDMMCAPS member");

const char *wddmseg_segment_flag_name(unsigned int bit)
{
	return bit < ARRAY_SIZE(segment_flag_names) ?
	       segment_flag_names[bit] : NULL;
}

const char *wddmseg_vidmm_cap_name(unsigned int bit)
{
	return bit < ARRAY_SIZE(vidmm_cap_names) ? vidmm_cap_names[bit] : NULL;
}

int wddmseg_fdinfo(int fd, const char *key, uint64_t *value, char *text,
		   size_t len)
{
	size_t klen = strlen(key);
	char path[64], line[256];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *v = line + klen, *end;

		if (strncmp(line, key, klen) || *v != ':')
			continue;
		v += strspn(v + 1, " \t") + 1;
		v[strcspn(v, "\n")] = '\0';
		if (text && len) {
			strncpy(text, v, len - 1);
			text[len - 1] = '\0';
		}
		ret = 0;
		if (value) {
			errno = 0;
			*value = strtoull(v, &end, 10);
			if (end == v || errno)
				ret = -EINVAL;
		}
		break;
	}
	fclose(f);
	return ret;
}
