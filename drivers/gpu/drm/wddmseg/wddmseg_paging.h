/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: encoding of the paging commands (wddmseg_paging.c).
 */
#ifndef WDDMSEG_PAGING_H
#define WDDMSEG_PAGING_H

#include <linux/types.h>

/**
 * struct wddmseg_loc - a memory location of a paging command
 * @segment_id: segment, or 0 for system memory through a page list
 * @vram_list: @segment_id's VRAM through a page list (device 1.6)
 * @addr: byte offset in the segment, or DMA address of the page list
 * @offset: with a page list, byte offset into the listed memory
 */
struct wddmseg_loc {
	u32 segment_id;
	bool vram_list;
	u64 addr;
	u64 offset;
};

u32 wddmseg_encode_transfer(u64 *cmd, u64 size, const struct wddmseg_loc *src,
			    const struct wddmseg_loc *dst);
u32 wddmseg_encode_fill(u64 *cmd, u64 size, u32 pattern,
			const struct wddmseg_loc *dst);
u32 wddmseg_encode_discard(u64 *cmd, u64 size, const struct wddmseg_loc *loc);
u32 wddmseg_encode_read_physical(u64 *cmd, u64 size, u64 gpu_addr,
				 u64 dma_addr);
u32 wddmseg_encode_write_physical(u64 *cmd, u64 size, u64 gpu_addr,
				  u64 dma_addr);
u32 wddmseg_encode_flush_aperture(u64 *cmd, u32 segment_id, u64 first_page,
				  u64 count);
u32 wddmseg_encode_map_aperture(u64 *cmd, u32 segment_id, u64 flags,
				u64 first_page, u64 count, u64 list);
u32 wddmseg_encode_unmap_aperture(u64 *cmd, u32 segment_id, u64 first_page,
				  u64 count, u64 dummy);
u32 wddmseg_encode_transfer_encrypted(u64 *cmd, u64 size,
				      const struct wddmseg_loc *src,
				      const struct wddmseg_loc *dst, u32 mode,
				      u64 nonce, u64 stream_offset);
u32 wddmseg_encode_fence(u64 *cmd, u64 seqno, u64 writeback, u32 flags);
u32 wddmseg_encode_nop(u64 *cmd, u32 qwords);

#endif /* WDDMSEG_PAGING_H */
