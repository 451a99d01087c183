// SPDX-License-Identifier: GPL-2.0-only
/*
 * The paging-buffer encoder: WDDM paging operations
 * (DXGKARG_BUILDPAGINGBUFFER) as copy-engine commands.
 *
 * Pure functions that write one command each into a buffer of 64-bit words
 * in CPU order and return its length in words; the engine converts to
 * little endian when it copies them into the ring. See wddmseg_hw.h for
 * the formats.
 */

#include <linux/kernel.h>

#include "wddmseg_paging.h"
#include "wddmseg_hw.h"

static void wddmseg_encode_loc(u64 *w, const struct wddmseg_loc *loc)
{
	w[0] = loc->segment_id | (loc->vram_list ? WDDMSEG_LOC_VRAM_LIST : 0);
	w[1] = loc->addr;
	w[2] = loc->segment_id && !loc->vram_list ? 0 : loc->offset;
}

/**
 * wddmseg_encode_transfer - Transfer: copy @size bytes from @src to @dst
 * @cmd: WDDMSEG_TRANSFER_QWORDS words
 * @size: bytes
 * @src: source location
 * @dst: destination location
 *
 * Return: words written.
 */
u32 wddmseg_encode_transfer(u64 *cmd, u64 size, const struct wddmseg_loc *src,
			    const struct wddmseg_loc *dst)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_TRANSFER, WDDMSEG_TRANSFER_QWORDS);
	cmd[1] = size;
	wddmseg_encode_loc(&cmd[2], src);
	wddmseg_encode_loc(&cmd[2 + WDDMSEG_LOC_QWORDS], dst);
	return WDDMSEG_TRANSFER_QWORDS;
}

/**
 * wddmseg_encode_transfer_encrypted - Transfer of HardwareProtected content
 *	through system memory, encrypted by the device (EncryptedPagingSupported)
 * @cmd: WDDMSEG_TRANSFER_ENCRYPTED_QWORDS words
 * @size: bytes, a multiple of 8
 * @src: source location: VRAM to encrypt, a page list to decrypt
 * @dst: destination location: a page list to encrypt, VRAM to decrypt
 * @mode: WDDMSEG_CRYPT_ENCRYPT or WDDMSEG_CRYPT_DECRYPT
 * @nonce: the encryption's nonce; decryption uses the same
 * @stream_offset: byte position of the first byte in the allocation, a
 *	multiple of 8, so that pieces of one allocation decrypt separately
 *
 * Return: words written.
 */
u32 wddmseg_encode_transfer_encrypted(u64 *cmd, u64 size,
				      const struct wddmseg_loc *src,
				      const struct wddmseg_loc *dst, u32 mode,
				      u64 nonce, u64 stream_offset)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_TRANSFER_ENCRYPTED,
				 WDDMSEG_TRANSFER_ENCRYPTED_QWORDS);
	cmd[1] = size;
	wddmseg_encode_loc(&cmd[2], src);
	wddmseg_encode_loc(&cmd[2 + WDDMSEG_LOC_QWORDS], dst);
	cmd[8] = mode;
	cmd[9] = nonce;
	cmd[10] = stream_offset;
	return WDDMSEG_TRANSFER_ENCRYPTED_QWORDS;
}

/**
 * wddmseg_encode_fill - Fill: write a 32-bit @pattern over @size bytes
 * @cmd: WDDMSEG_FILL_QWORDS words
 * @size: bytes, a multiple of 4
 * @pattern: repeated value
 * @dst: destination location
 *
 * Return: words written.
 */
u32 wddmseg_encode_fill(u64 *cmd, u64 size, u32 pattern,
			const struct wddmseg_loc *dst)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_FILL, WDDMSEG_FILL_QWORDS);
	cmd[1] = size;
	cmd[2] = pattern;
	wddmseg_encode_loc(&cmd[3], dst);
	return WDDMSEG_FILL_QWORDS;
}

/**
 * wddmseg_encode_discard - DiscardContent: @size bytes at @loc are dropped
 * @cmd: WDDMSEG_DISCARD_QWORDS words
 * @size: bytes
 * @loc: the range whose content the allocation gives up
 *
 * The device only checks the range; the driver frees the placement without
 * a Transfer afterwards.
 *
 * Return: words written.
 */
u32 wddmseg_encode_discard(u64 *cmd, u64 size, const struct wddmseg_loc *loc)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_DISCARD, WDDMSEG_DISCARD_QWORDS);
	cmd[1] = size;
	wddmseg_encode_loc(&cmd[2], loc);
	return WDDMSEG_DISCARD_QWORDS;
}

static u32 wddmseg_encode_physical(u64 *cmd, u32 op, u64 size, u64 gpu_addr,
				   u64 dma_addr)
{
	cmd[0] = WDDMSEG_CMD_HDR(op, WDDMSEG_PHYSICAL_QWORDS);
	cmd[1] = size;
	cmd[2] = gpu_addr;
	cmd[3] = dma_addr;
	return WDDMSEG_PHYSICAL_QWORDS;
}

/**
 * wddmseg_encode_read_physical - ReadPhysical: GPU address -> system memory
 * @cmd: WDDMSEG_PHYSICAL_QWORDS words
 * @size: bytes, any alignment
 * @gpu_addr: source in the GPU address space (BaseAddress + offset)
 * @dma_addr: DMA address of contiguous system memory receiving the bytes
 *
 * Return: words written.
 */
u32 wddmseg_encode_read_physical(u64 *cmd, u64 size, u64 gpu_addr,
				 u64 dma_addr)
{
	return wddmseg_encode_physical(cmd, WDDMSEG_OP_READ_PHYSICAL, size,
				       gpu_addr, dma_addr);
}

/**
 * wddmseg_encode_write_physical - WritePhysical: system memory -> GPU address
 * @cmd: WDDMSEG_PHYSICAL_QWORDS words
 * @size: bytes, any alignment
 * @gpu_addr: destination in the GPU address space (BaseAddress + offset)
 * @dma_addr: DMA address of contiguous system memory holding the bytes
 *
 * Return: words written.
 */
u32 wddmseg_encode_write_physical(u64 *cmd, u64 size, u64 gpu_addr,
				  u64 dma_addr)
{
	return wddmseg_encode_physical(cmd, WDDMSEG_OP_WRITE_PHYSICAL, size,
				       gpu_addr, dma_addr);
}

/**
 * wddmseg_encode_map_aperture - MapApertureSegment
 * @cmd: WDDMSEG_APERTURE_QWORDS words
 * @segment_id: aperture segment
 * @flags: WDDMSEG_MAP_CACHE_COHERENT (DXGK_MAPAPERTUREFLAGS.CacheCoherent)
 *	and WDDMSEG_MAP_CPU_CACHED (the pages' cache type), or 0
 * @first_page: OffsetInPages (4 KiB pages)
 * @count: NumberOfPages
 * @list: DMA address of the page list
 *
 * Return: words written.
 */
u32 wddmseg_encode_map_aperture(u64 *cmd, u32 segment_id, u64 flags,
				u64 first_page, u64 count, u64 list)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_MAP_APERTURE,
				 WDDMSEG_APERTURE_QWORDS);
	cmd[1] = segment_id | (flags & (WDDMSEG_MAP_CACHE_COHERENT |
					WDDMSEG_MAP_CPU_CACHED));
	cmd[2] = first_page;
	cmd[3] = count;
	cmd[4] = list;
	return WDDMSEG_APERTURE_QWORDS;
}

/**
 * wddmseg_encode_flush_aperture - FLUSH_APERTURE (device 1.7)
 * @cmd: WDDMSEG_FLUSH_QWORDS words
 * @segment_id: aperture segment
 * @first_page: OffsetInPages (4 KiB pages)
 * @count: NumberOfPages
 *
 * Return: words written.
 */
u32 wddmseg_encode_flush_aperture(u64 *cmd, u32 segment_id, u64 first_page,
				  u64 count)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_FLUSH_APERTURE,
				 WDDMSEG_FLUSH_QWORDS);
	cmd[1] = segment_id;
	cmd[2] = first_page;
	cmd[3] = count;
	return WDDMSEG_FLUSH_QWORDS;
}

/**
 * wddmseg_encode_unmap_aperture - UnmapApertureSegment
 * @cmd: WDDMSEG_APERTURE_QWORDS words
 * @segment_id: aperture segment
 * @first_page: OffsetInPages (4 KiB pages)
 * @count: NumberOfPages
 * @dummy: DMA address of the page unmapped entries point at
 *
 * Return: words written.
 */
u32 wddmseg_encode_unmap_aperture(u64 *cmd, u32 segment_id, u64 first_page,
				  u64 count, u64 dummy)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_UNMAP_APERTURE,
				 WDDMSEG_APERTURE_QWORDS);
	cmd[1] = segment_id;
	cmd[2] = first_page;
	cmd[3] = count;
	cmd[4] = dummy;
	return WDDMSEG_APERTURE_QWORDS;
}

/**
 * wddmseg_encode_fence - write @seqno to @writeback when all is done
 * @cmd: WDDMSEG_FENCE_QWORDS words
 * @seqno: value
 * @writeback: DMA address of an 8-byte slot
 * @flags: WDDMSEG_FENCE_*
 *
 * Return: words written.
 */
u32 wddmseg_encode_fence(u64 *cmd, u64 seqno, u64 writeback, u32 flags)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_FENCE, WDDMSEG_FENCE_QWORDS);
	cmd[1] = seqno;
	cmd[2] = writeback;
	cmd[3] = flags;
	return WDDMSEG_FENCE_QWORDS;
}

/**
 * wddmseg_encode_nop - padding
 * @cmd: @qwords words
 * @qwords: length, 1..0xffff
 *
 * Return: words written.
 */
u32 wddmseg_encode_nop(u64 *cmd, u32 qwords)
{
	u32 i;

	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_NOP, qwords);
	for (i = 1; i < qwords; i++)
		cmd[i] = 0;
	return qwords;
}
