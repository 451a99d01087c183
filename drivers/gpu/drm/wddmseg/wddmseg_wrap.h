/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Room in a circular buffer handed out in contiguous pieces, in order:
 * the copy engine's command ring and its page-list arena
 * (wddmseg_engine.c). A producer places each piece at the tail, skipping
 * what is left at the end when the piece does not fit there; the consumer
 * frees pieces in the same order, which moves the free offset. Pure
 * arithmetic, tested by tests/wddmseg_wrap_test.c.
 */

#ifndef WDDMSEG_WRAP_H
#define WDDMSEG_WRAP_H

#include <linux/types.h>

/* One word stays free, so that tail == free means empty. */
#define WDDMSEG_WRAP_GAP	8

/**
 * wddmseg_wrap_pad - bytes skipped at the end of the buffer before a piece
 * @size: buffer size in bytes, a power of two
 * @tail: next free offset, below @size
 * @bytes: size of the piece
 *
 * Return: what is left after @tail if @bytes do not fit there, else 0.
 */
static inline u32 wddmseg_wrap_pad(u32 size, u32 tail, u32 bytes)
{
	u32 left = size - tail;

	return left < bytes ? left : 0;
}

/**
 * wddmseg_wrap_fits - whether a piece fits now
 * @size: buffer size in bytes, a power of two
 * @tail: next free offset, below @size
 * @free: offset up to which the consumer freed the buffer, below @size
 * @bytes: size of the piece
 *
 * Return: true if @bytes fit contiguously, with the padding their
 * placement needs, and one word still free.
 */
static inline bool wddmseg_wrap_fits(u32 size, u32 tail, u32 free, u32 bytes)
{
	u32 used = (tail - free) & (size - 1);
	u32 need = wddmseg_wrap_pad(size, tail, bytes) + bytes +
		   WDDMSEG_WRAP_GAP;

	return used + need <= size;
}

/**
 * wddmseg_wrap_start - where a piece goes
 * @size: buffer size in bytes, a power of two
 * @tail: next free offset, below @size
 * @bytes: size of the piece, at most @size
 *
 * Return: @tail, or 0 when the piece does not fit before the end.
 */
static inline u32 wddmseg_wrap_start(u32 size, u32 tail, u32 bytes)
{
	return wddmseg_wrap_pad(size, tail, bytes) ? 0 : tail;
}

/**
 * wddmseg_wrap_end - the tail after a piece
 * @size: buffer size in bytes, a power of two
 * @start: where the piece went (wddmseg_wrap_start())
 * @bytes: its size
 *
 * Return: the offset just past the piece, 0 when it ends at the end of
 * the buffer: the tail stays below @size.
 */
static inline u32 wddmseg_wrap_end(u32 size, u32 start, u32 bytes)
{
	return (start + bytes) & (size - 1);
}

#endif
