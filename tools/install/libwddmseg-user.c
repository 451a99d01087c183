// SPDX-License-Identifier: GPL-2.0-only
/*
 * A user of an installed libwddmseg, built by tools/install/check.sh with
 * nothing but `pkg-config --cflags --libs libwddmseg`: it includes the
 * installed headers (wddmseg.h and the uapi header it includes), calls
 * into the library and runs without a wddmseg device.
 *
 * Prints one line:
 *   libwddmseg MAJOR.MINOR uapi N flag0 NAME cap0 NAME find_node -ERRNO
 * find_node is that of a PCI address no machine has, -ENODEV (-19).
 */
#include <stdio.h>

#include <wddmseg.h>

int main(void)
{
	char path[64];
	const char *flag = wddmseg_segment_flag_name(0);
	const char *cap = wddmseg_vidmm_cap_name(0);
	int ret = wddmseg_find_node("ffff:ff:1f.7", WDDMSEG_NODE_RENDER,
				    path, sizeof(path));

	printf("libwddmseg %u.%u uapi %u flag0 %s cap0 %s find_node %d\n",
	       LIBWDDMSEG_VERSION >> 16, LIBWDDMSEG_VERSION & 0xffff,
	       WDDMSEG_UAPI_VERSION, flag ? flag : "(null)",
	       cap ? cap : "(null)", ret);
	return flag && cap && ret < 0 ? 0 : 1;
}
