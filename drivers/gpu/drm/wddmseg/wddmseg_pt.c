// SPDX-License-Identifier: GPL-2.0-only
/*
 * The GPU MMU's pure logic: page-table entries shaped like DXGK_PTE, the
 * split of a GPU virtual address into one table index per level, and the
 * ring commands that write page tables and flush TLBs
 * (DXGK_BUILDPAGINGBUFFER_UPDATEPAGETABLE and _FLUSHTLB). Pure functions,
 * tested by KUnit (tests/wddmseg_pt_test.c); see wddmseg_hw.h for the
 * formats.
 */

#include <linux/bits.h>
#include <linux/kernel.h>

#include "wddmseg_device_types.h"
#include "wddmseg_hw.h"
#include "wddmseg_pt.h"

/**
 * wddmseg_pte_leaf - a level-0 entry mapping one 4 KiB page
 * @segment_id: memory segment of the page, or 0 for a system page
 * @addr: byte offset in @segment_id, or the page's DMA address; 4 KiB
 *	aligned (the low bits are dropped)
 * @read_only: writes through the entry fault
 *
 * Return: the entry: Valid, Segment, the page address, ReadOnly if asked.
 */
u64 wddmseg_pte_leaf(u32 segment_id, u64 addr, bool read_only)
{
	return WDDMSEG_PTE_VALID | WDDMSEG_PTE_SEGMENT(segment_id) |
	       (addr & WDDMSEG_PTE_ADDR_MASK) |
	       (read_only ? WDDMSEG_PTE_READ_ONLY : 0);
}

/**
 * wddmseg_pte_table - an entry of a higher level pointing at a table
 * @table_addr: GPU address of the next level's table
 *
 * Return: Valid and the table's address; the other low bits zero.
 */
u64 wddmseg_pte_table(u64 table_addr)
{
	return WDDMSEG_PTE_VALID | (table_addr & WDDMSEG_PTE_ADDR_MASK);
}

/**
 * wddmseg_pt_shift - lowest VA bit the index of a level takes
 * @m: the MMU geometry
 * @level: 0 (the leaf) .. @m->levels - 1 (the root)
 *
 * Return: 12 plus the index bits of the levels below @level.
 */
u32 wddmseg_pt_shift(const struct wddmseg_mmu_desc *m, u32 level)
{
	u32 shift = WDDMSEG_HW_PAGE_SHIFT, l;

	for (l = 0; l < level && l < WDDMSEG_MMU_LEVEL_MAX; l++)
		shift += m->level_bits[l];
	return shift;
}

/**
 * wddmseg_pt_index - index of @va's entry in its table of @level
 * @m: the MMU geometry
 * @level: table level
 * @va: GPU virtual address
 *
 * Return: the @m->level_bits[@level] bits of @va above wddmseg_pt_shift().
 */
u32 wddmseg_pt_index(const struct wddmseg_mmu_desc *m, u32 level, u64 va)
{
	return (va >> wddmseg_pt_shift(m, level)) &
	       (BIT_ULL(m->level_bits[level]) - 1);
}

/**
 * wddmseg_pt_span - bytes of VA one entry of @level translates
 * @m: the MMU geometry
 * @level: table level
 *
 * Return: 4 KiB for a leaf entry, a whole table of the level below for
 * the others.
 */
u64 wddmseg_pt_span(const struct wddmseg_mmu_desc *m, u32 level)
{
	return BIT_ULL(wddmseg_pt_shift(m, level));
}

/**
 * wddmseg_pt_table_span - bytes of VA one whole table of @level translates
 * @m: the MMU geometry
 * @level: table level
 *
 * Return: wddmseg_pt_span() times the table's entries; for the root, the
 * whole address space.
 */
u64 wddmseg_pt_table_span(const struct wddmseg_mmu_desc *m, u32 level)
{
	return BIT_ULL(wddmseg_pt_shift(m, level) + m->level_bits[level]);
}

/**
 * wddmseg_pt_run - the entries of @level's table at @va that [@va, @end)
 *	covers
 * @m: the MMU geometry
 * @level: table level
 * @va: start, aligned to wddmseg_pt_span(@m, @level)
 * @end: end (exclusive), aligned as @va, within the address space
 * @run: filled in
 *
 * A range is written table by table: the first run ends at the end of
 * @va's table or at @end; the next starts at @run->va + @run->count *
 * wddmseg_pt_span().
 *
 * Return: false when the range is empty (nothing written to @run).
 */
bool wddmseg_pt_run(const struct wddmseg_mmu_desc *m, u32 level, u64 va,
		    u64 end, struct wddmseg_pt_run *run)
{
	u32 shift = wddmseg_pt_shift(m, level);
	u64 left, room;

	if (va >= end)
		return false;
	run->va = va;
	run->first = wddmseg_pt_index(m, level, va);
	room = BIT_ULL(m->level_bits[level]) - run->first;
	left = (end - va) >> shift;
	run->count = min(left, room);
	return run->count != 0;
}

/**
 * wddmseg_encode_update_pt - UpdatePageTable: write entries of one table
 * @cmd: WDDMSEG_UPDATE_PT_QWORDS words
 * @table: GPU address of the page table
 * @first: index of the first entry
 * @count: entries
 * @flags: WDDMSEG_UPDATE_PT_REPEAT, WDDMSEG_UPDATE_PT_INITIAL
 * @entries: DMA address of the 64-bit entries (one with REPEAT)
 *
 * Return: words written.
 */
u32 wddmseg_encode_update_pt(u64 *cmd, u64 table, u32 first, u32 count,
			     u32 flags, u64 entries)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_UPDATE_PAGE_TABLE,
				 WDDMSEG_UPDATE_PT_QWORDS);
	cmd[1] = table;
	cmd[2] = first;
	cmd[3] = count;
	cmd[4] = flags;
	cmd[5] = entries;
	return WDDMSEG_UPDATE_PT_QWORDS;
}

/**
 * wddmseg_encode_flush_tlb - FlushTlb: forget translations
 * @cmd: WDDMSEG_FLUSH_TLB_QWORDS words
 * @root: root page table of the address space (0 with FLUSH_TLB_ALL)
 * @start: first VA of the range, 0 with @end 0 for the whole space
 * @end: end (exclusive) of the range
 * @flags: WDDMSEG_FLUSH_TLB_ALL: every TLB (@root, @start, @end zero)
 *
 * Return: words written.
 */
u32 wddmseg_encode_flush_tlb(u64 *cmd, u64 root, u64 start, u64 end,
			     u32 flags)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_FLUSH_TLB, WDDMSEG_FLUSH_TLB_QWORDS);
	cmd[1] = root;
	cmd[2] = start;
	cmd[3] = end;
	cmd[4] = flags;
	return WDDMSEG_FLUSH_TLB_QWORDS;
}

/**
 * wddmseg_encode_transfer_virtual - a TRANSFER_VIRTUAL command
 * @cmd: receives WDDMSEG_TRANSFER_VIRTUAL_QWORDS words
 * @size: bytes, a multiple of 4
 * @src_root: root page table of the source's address space
 * @src_va: source GPU virtual address
 * @dst_root: root page table of the destination's address space
 * @dst_va: destination GPU virtual address
 *
 * Return: the words written.
 */
u32 wddmseg_encode_transfer_virtual(u64 *cmd, u64 size, u64 src_root,
				    u64 src_va, u64 dst_root, u64 dst_va)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_TRANSFER_VIRTUAL,
				 WDDMSEG_TRANSFER_VIRTUAL_QWORDS);
	cmd[1] = size;
	cmd[2] = src_root;
	cmd[3] = src_va;
	cmd[4] = dst_root;
	cmd[5] = dst_va;
	return WDDMSEG_TRANSFER_VIRTUAL_QWORDS;
}

/**
 * wddmseg_encode_fill_virtual - a FILL_VIRTUAL command
 * @cmd: receives WDDMSEG_FILL_VIRTUAL_QWORDS words
 * @size: bytes, a multiple of 4
 * @pattern: the 32-bit value repeated
 * @root: root page table of the address space
 * @va: first GPU virtual address
 *
 * Return: the words written.
 */
u32 wddmseg_encode_fill_virtual(u64 *cmd, u64 size, u32 pattern, u64 root,
				u64 va)
{
	cmd[0] = WDDMSEG_CMD_HDR(WDDMSEG_OP_FILL_VIRTUAL,
				 WDDMSEG_FILL_VIRTUAL_QWORDS);
	cmd[1] = size;
	cmd[2] = pattern;
	cmd[3] = root;
	cmd[4] = va;
	return WDDMSEG_FILL_VIRTUAL_QWORDS;
}
