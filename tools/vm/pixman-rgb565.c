// SPDX-License-Identifier: GPL-2.0-only
/*
 * Print how pixman converts every RGB565 pixel to the 24-bit RGB that a
 * QEMU screendump (PPM) contains. QEMU's ppm_save() composites each line
 * of the display surface (PIXMAN_r5g6b5 for a 16 bpp scanout) with
 * PIXMAN_OP_SRC into a one-line PIXMAN_b8g8r8 buffer on a little-endian
 * host (bytes R, G, B in memory); this does the same with a 256 x 256
 * surface holding all 65536 values. Same output format as
 * `tools/vm/screendump.py rgb565-table`; tools/check.sh compares the two.
 *
 * Build: gcc pixman-rgb565.c $(pkg-config --cflags --libs pixman-1)
 */
#include <stdint.h>
#include <stdio.h>
#include <pixman.h>

int main(void)
{
	static uint16_t src[256 * 256];
	static uint8_t line[256 * 3];
	pixman_image_t *s, *d;
	unsigned int v, y, x;

	for (v = 0; v < 65536; v++)
		src[v] = v;
	s = pixman_image_create_bits(PIXMAN_r5g6b5, 256, 256,
				     (uint32_t *)src, 256 * 2);
	d = pixman_image_create_bits(PIXMAN_b8g8r8, 256, 1,
				     (uint32_t *)line, sizeof(line));
	if (!s || !d)
		return 1;
	for (y = 0; y < 256; y++) {
		pixman_image_composite(PIXMAN_OP_SRC, s, NULL, d, 0, y, 0, 0,
				       0, 0, 256, 1);
		for (x = 0; x < 256; x++)
			printf("%04x %02x%02x%02x\n", y * 256 + x,
			       line[3 * x], line[3 * x + 1], line[3 * x + 2]);
	}
	pixman_image_unref(s);
	pixman_image_unref(d);
	return 0;
}
