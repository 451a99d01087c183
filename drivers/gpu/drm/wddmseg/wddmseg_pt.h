/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: page-table entries, the VA split per level, and the ring
 * commands of the GPU MMU (wddmseg_pt.c).
 */
#ifndef WDDMSEG_PT_H
#define WDDMSEG_PT_H

#include <linux/types.h>

struct wddmseg_mmu_desc;

/**
 * struct wddmseg_pt_run - consecutive entries of one page table
 * @va: first GPU virtual address the run translates
 * @first: index of its first entry in the table
 * @count: entries, at least 1
 */
struct wddmseg_pt_run {
	u64 va;
	u32 first;
	u32 count;
};

u64 wddmseg_pte_leaf(u32 segment_id, u64 addr, bool read_only);
u64 wddmseg_pte_table(u64 table_addr);
u32 wddmseg_pt_shift(const struct wddmseg_mmu_desc *m, u32 level);
u32 wddmseg_pt_index(const struct wddmseg_mmu_desc *m, u32 level, u64 va);
u64 wddmseg_pt_span(const struct wddmseg_mmu_desc *m, u32 level);
u64 wddmseg_pt_table_span(const struct wddmseg_mmu_desc *m, u32 level);
bool wddmseg_pt_run(const struct wddmseg_mmu_desc *m, u32 level, u64 va,
		    u64 end, struct wddmseg_pt_run *run);
u32 wddmseg_encode_update_pt(u64 *cmd, u64 table, u32 first, u32 count,
			     u32 flags, u64 entries);
u32 wddmseg_encode_flush_tlb(u64 *cmd, u64 root, u64 start, u64 end,
			     u32 flags);
u32 wddmseg_encode_transfer_virtual(u64 *cmd, u64 size, u64 src_root,
				    u64 src_va, u64 dst_root, u64 dst_va);
u32 wddmseg_encode_fill_virtual(u64 *cmd, u64 size, u32 pattern, u64 root,
				u64 va);

#endif /* WDDMSEG_PT_H */
