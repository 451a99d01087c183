/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Register interface of the wddmseg PCI device.
 *
 * This header is the single description of the hardware contract. It is
 * included by the kernel driver and by the QEMU device model, so it holds
 * only preprocessor constants: no types, no inline code. BIT() comes from
 * <linux/bits.h> in the kernel and from "qemu/bitops.h" in QEMU.
 *
 * BAR0: 16 KiB of 32-bit little-endian registers. 64-bit values are split
 *       into a _LO register and a _HI register at _LO + 4.
 * BAR2: 64-bit prefetchable window onto the start of device VRAM
 *       (CPU-visible VRAM).
 * BAR1: MSI-X table and PBA.
 * BAR4: VRAM access window, see WDDMSEG_REG_WINDOW_BASE_LO.
 *
 * The segment descriptor table mirrors DXGK_SEGMENTDESCRIPTOR: entry i
 * (0-based) describes WDDM segment id i + 1. Segment id 0 is reserved for
 * "system memory described by a page list" in paging operations.
 */
#ifndef WDDMSEG_HW_H
#define WDDMSEG_HW_H

#define WDDMSEG_PCI_VENDOR_ID		0x1b36	/* Red Hat, QEMU devices */
#define WDDMSEG_PCI_DEVICE_ID		0x0150
#define WDDMSEG_PCI_REVISION		0x01

#define WDDMSEG_BAR_MMIO		0
#define WDDMSEG_BAR_VRAM		2
#define WDDMSEG_MMIO_SIZE		0x4000

/* Identification, read-only. */
#define WDDMSEG_REG_ID			0x0000
#define   WDDMSEG_ID_VALUE		0x57445347	/* "WDSG" */
#define WDDMSEG_REG_VERSION		0x0004
#define   WDDMSEG_VERSION_MAJOR(v)	(((v) >> 16) & 0xffff)
#define   WDDMSEG_VERSION_MINOR(v)	((v) & 0xffff)
#define   WDDMSEG_VERSION_CURRENT	0x0001000a	/* 1.10 */
/* Minor version from which TRANSFER_ENCRYPTED exists. */
#define   WDDMSEG_VERSION_MINOR_ENCRYPTED	4
/* Minor version from which the power model below exists. */
#define   WDDMSEG_VERSION_MINOR_PM	5
/* Minor version from which VRAM page-list locations exist. */
#define   WDDMSEG_VERSION_MINOR_VRAM_LIST	6
/* Minor version since which apertures without CacheCoherent do not snoop. */
#define   WDDMSEG_VERSION_MINOR_NONCOHERENT	7
/* Minor version from which WDDMSEG_REG_PM_HIB exists. */
#define   WDDMSEG_VERSION_MINOR_PM_HIB	8
/* Minor version from which the GPU MMU (WDDMSEG_REG_MMU_*) exists. */
#define   WDDMSEG_VERSION_MINOR_GPUMMU	9
/*
 * Minor version from which the scanout composes (SCANOUT_CTRL.NO_PRIMARY,
 * PLANE_X/Y/SIZE) and CURSOR_COMMIT updates the cursor at once.
 */
#define   WDDMSEG_VERSION_MINOR_COMPOSE	10

/*
 * Power (device 1.5). PCI config space has a power-management capability
 * (version 1.2, D0 and D3hot; writes of D1 or D2 are ignored). In D3hot
 * BAR0 reads return all ones and writes are dropped. D3hot -> D0 is a soft
 * reset (No_Soft_Reset is clear): every register below returns to its reset
 * value, VRAM is kept. A system sleep (ACPI S3) takes the power away: every
 * register resets, and the content of each memory segment that is not
 * preserved is replaced by WDDMSEG_PM_POISON (little-endian 32-bit words)
 * when the device powers off. A segment is preserved across S3 when its
 * flags have PreservedDuringStandby, or when DXGK_VIDMMCAPS has
 * AlwaysPoweredVRAM; DisableSelfRefreshVRAMInS3 preserves none. Aperture
 * segments hold no content (their page tables are registers).
 */
#define WDDMSEG_PM_POISON		0xd3adb0a7u

/*
 * Hibernation (device 1.8). Hibernation turns the power off; with QEMU,
 * the resume is a new process. VRAM survives that only when it is stored
 * somewhere that outlives the device: PM_HIB.PERSISTENT says the device's
 * VRAM has such a store (QEMU: the vram-file property). Then, at each
 * power-on, a memory segment whose flags have PreservedDuringHibernate
 * keeps what the store holds, one with PartiallyPreservedDuringHibernate
 * keeps its first PM_HIB_PARTIAL bytes (a multiple of 64 KiB, the whole
 * segment if it is smaller), and every other memory segment reads
 * WDDMSEG_PM_POISON. PM_HIB.RETAINED says the store held VRAM of an
 * earlier power cycle at this power-on (else it was new: nothing was kept).
 * Without PERSISTENT, no segment keeps anything across a power cycle,
 * whatever its flags say. Read-only; reads 0 on devices before 1.8.
 */
#define WDDMSEG_REG_PM_HIB		0x0070
#define   WDDMSEG_PM_HIB_PERSISTENT	BIT(0)
#define   WDDMSEG_PM_HIB_RETAINED	BIT(1)
#define WDDMSEG_REG_PM_HIB_PARTIAL_LO	0x0078
#define WDDMSEG_REG_PM_HIB_PARTIAL_HI	0x007c

/* Adapter capabilities: DXGK_VIDMMCAPS. */
#define WDDMSEG_REG_VIDMM_CAPS		0x0008	/* DXGK_VIDMMCAPS.Value */
#define WDDMSEG_REG_PAGING_NODE		0x000c	/* DXGK_VIDMMCAPS.PagingNode */
#define WDDMSEG_REG_NUM_ENGINES		0x0010	/* engines (nodes) present */
#define WDDMSEG_REG_SEG_COUNT		0x0014	/* descriptors in the table */
#define WDDMSEG_REG_VRAM_SIZE_LO	0x0018	/* bytes of device VRAM */
#define WDDMSEG_REG_VRAM_SIZE_HI	0x001c

/*
 * VRAM access window (BAR4): a WDDMSEG_WINDOW_SIZE view of device VRAM at
 * a movable offset, so that the CPU can reach VRAM that BAR2 does not
 * cover (CPU-invisible segments), e.g. for CPU-copy moves and debug
 * access. The base must be a multiple of WDDMSEG_WINDOW_SIZE and the whole
 * window inside VRAM; other values are ignored (logged as guest errors)
 * and the window keeps its previous base. Writing WINDOW_BASE_HI applies
 * the new base, so write LO first.
 */
#define WDDMSEG_BAR_WINDOW		4
#define WDDMSEG_WINDOW_SIZE		0x100000	/* 1 MiB */
#define WDDMSEG_REG_WINDOW_BASE_LO	0x0020
#define WDDMSEG_REG_WINDOW_BASE_HI	0x0024

/*
 * Aperture page tables, written by the CPU (MapApertureSegment and
 * UnmapApertureSegment without a copy engine). Select an entry with
 * APT_SEGMENT (a segment id whose flags have Aperture) and APT_PAGE (page
 * index inside that segment, in 4 KiB pages), then write the 4 KiB-aligned
 * DMA address of a system page to APT_ADDR_LO and APT_ADDR_HI; writing HI
 * stores the entry, with the last value written to APT_ADDR_LO (which
 * stays latched: entries with the same low half need only HI). Address 0
 * unmaps the page. Reading APT_ADDR_* returns
 * the selected entry. An out-of-range selection sets
 * WDDMSEG_STATUS_APT_ERROR and the write is dropped.
 */
#define WDDMSEG_REG_APT_SEGMENT		0x0040
#define WDDMSEG_REG_APT_PAGE		0x0044
#define WDDMSEG_REG_APT_ADDR_LO		0x0048
#define WDDMSEG_REG_APT_ADDR_HI		0x004c

/*
 * GPU-view read port: reading PEEK_DATA returns the 32-bit word the GPU
 * sees at GPU address PEEK_ADDR (VRAM directly, an aperture segment
 * through its page table). Unmapped or out-of-range addresses read
 * 0xffffffff and set WDDMSEG_STATUS_PEEK_FAULT. Lets the driver and tests
 * check what the device sees, independently of the CPU's view.
 */
#define WDDMSEG_REG_PEEK_ADDR_LO	0x0050
#define WDDMSEG_REG_PEEK_ADDR_HI	0x0054
#define WDDMSEG_REG_PEEK_DATA		0x0058

/* Sticky error bits; write 1 to clear. */
#define WDDMSEG_REG_STATUS		0x0060
#define   WDDMSEG_STATUS_APT_ERROR	BIT(0)
#define   WDDMSEG_STATUS_PEEK_FAULT	BIT(1)

/*
 * Interrupts. One MSI-X vector (0) when MSI-X is enabled, else INTx pin A,
 * asserted while IRQ_STATUS & IRQ_MASK is non-zero.
 */
#define WDDMSEG_REG_IRQ_STATUS		0x0100	/* write 1 to clear */
#define WDDMSEG_REG_IRQ_MASK		0x0104
#define   WDDMSEG_IRQ_FENCE		BIT(0)	/* a FENCE asked for it */
#define   WDDMSEG_IRQ_ERROR		BIT(1)	/* the engine faulted */
#define   WDDMSEG_IRQ_VBLANK		BIT(2)	/* scanout vertical blank */
#define   WDDMSEG_IRQ_SCANOUT_ERROR	BIT(3)	/* a commit was refused */
#define   WDDMSEG_IRQ_MMU_FAULT		BIT(4)	/* a GPU page fault (1.9) */
#define   WDDMSEG_IRQ_CTX_FENCE		BIT(5)	/* a context FENCE asked (1.9) */
#define WDDMSEG_MSIX_BAR		1
#define WDDMSEG_MSIX_VECTORS		1

/*
 * Copy engine (paging node 0): a ring of commands in guest memory.
 *
 * The driver writes commands at RING_TAIL and then writes the new tail
 * (the doorbell); the device executes them asynchronously, advancing
 * RING_HEAD, and never inside the register write. Offsets are bytes into
 * the ring and wrap at RING_SIZE; commands never straddle the end of the
 * ring (the driver pads with NOPs). Head == tail means empty.
 *
 * On a bad command the engine stops: RING_STATUS.FAULTED, FAULT_CODE and
 * FAULT_HEAD (offset of the command) are set, IRQ_ERROR is raised, and
 * nothing runs until RING_CTRL.RESET. Reset stops the engine, clears the
 * fault, and sets head = tail = 0; the ring must be re-enabled.
 */
#define WDDMSEG_REG_RING_BASE_LO	0x0200	/* DMA address, 4 KiB aligned */
#define WDDMSEG_REG_RING_BASE_HI	0x0204
#define WDDMSEG_REG_RING_SIZE		0x0208	/* power of two, 4 KiB..1 MiB */
#define WDDMSEG_REG_RING_HEAD		0x020c	/* read-only */
#define WDDMSEG_REG_RING_TAIL		0x0210	/* doorbell */
#define WDDMSEG_REG_RING_CTRL		0x0214
#define   WDDMSEG_RING_CTRL_ENABLE	BIT(0)
#define   WDDMSEG_RING_CTRL_RESET	BIT(1)	/* self-clearing */
#define WDDMSEG_REG_RING_STATUS		0x0218	/* read-only */
#define   WDDMSEG_RING_STATUS_ENABLED	BIT(0)
#define   WDDMSEG_RING_STATUS_IDLE	BIT(1)	/* head == tail, not hung */
#define   WDDMSEG_RING_STATUS_FAULTED	BIT(2)
#define WDDMSEG_REG_FAULT_CODE		0x021c
#define   WDDMSEG_FAULT_NONE		0
#define   WDDMSEG_FAULT_BAD_OPCODE	1
#define   WDDMSEG_FAULT_BAD_PACKET	2	/* length or reserved fields */
#define   WDDMSEG_FAULT_OUT_OF_RANGE	3	/* address outside a segment */
#define   WDDMSEG_FAULT_UNMAPPED	4	/* aperture page not mapped */
#define   WDDMSEG_FAULT_DMA		5	/* system memory access failed */
#define   WDDMSEG_FAULT_INJECTED	6
#define   WDDMSEG_FAULT_PROTECTION	7	/* encrypted paging misused */
#define   WDDMSEG_FAULT_REFUSED		8	/* valid, but refused (1.9) */
#define   WDDMSEG_FAULT_MMU		9	/* GPU page fault (1.9) */
#define WDDMSEG_REG_FAULT_HEAD		0x0220
#define WDDMSEG_REG_LAST_SEQNO_LO	0x0228	/* last FENCE seqno executed */
#define WDDMSEG_REG_LAST_SEQNO_HI	0x022c
/* Test hooks: make the engine misbehave on purpose. */
#define WDDMSEG_REG_INJECT		0x0230
#define   WDDMSEG_INJECT_HANG		1	/* stop making progress */
#define   WDDMSEG_INJECT_FAULT		2	/* fault on the next command */
/*
 * Read-only (1.9): what the latched fault was about, 0 for the codes
 * before 1.9. FAULT_REFUSED: a WDDMSEG_REFUSED_* reason; FAULT_MMU: the
 * WDDMSEG_MMU_FAULT_* reason (the MMU_FAULT_* registers have the rest).
 */
#define WDDMSEG_REG_FAULT_DETAIL	0x0234
#define   WDDMSEG_REFUSED_FIXED_DEPTH	1	/* the root table never grows */

/*
 * Display controller (since 1.3): one scanout (CRTC) reading a
 * framebuffer out of a memory segment whose flags have DirectFlip.
 *
 * Limits (read-only): SCANOUT_MAX_WIDTH/HEIGHT in pixels, SCANOUT_FORMATS
 * a mask of WDDMSEG_SCANOUT_FMT_*.
 *
 * The configuration registers (SEGMENT .. REFRESH and CTRL.ENABLE) are
 * double buffered: writes go to a pending copy, writing 1 to
 * SCANOUT_COMMIT arms it (STATUS.PENDING), and the device latches the
 * whole pending copy at the next vertical blank, as a page flip on real
 * hardware. With the scanout disabled, a commit latches at once. On
 * latching, the device validates the configuration: a refused commit
 * leaves the active configuration unchanged, sets STATUS.REFUSED and
 * SCANOUT_ERROR and raises IRQ_SCANOUT_ERROR; an accepted one clears
 * STATUS.REFUSED. Either way PENDING clears and IRQ_VBLANK fires.
 *
 * While ENABLED, vertical blanks happen every 1000000000000 / REFRESH_MHZ
 * ns of virtual time: each increments VBLANK_COUNT and raises IRQ_VBLANK.
 * The display shows the active framebuffer; a disabled scanout shows
 * black.
 */
#define WDDMSEG_REG_SCANOUT_MAX_WIDTH	0x0300	/* read-only */
#define WDDMSEG_REG_SCANOUT_MAX_HEIGHT	0x0304	/* read-only */
#define WDDMSEG_REG_SCANOUT_FORMATS	0x0308	/* read-only */
#define   WDDMSEG_SCANOUT_FMT_XRGB8888	BIT(0)	/* DRM_FORMAT_XRGB8888 */
#define   WDDMSEG_SCANOUT_FMT_RGB565	BIT(1)	/* DRM_FORMAT_RGB565 */
#define WDDMSEG_REG_SCANOUT_CTRL	0x0310	/* pending */
#define   WDDMSEG_SCANOUT_CTRL_ENABLE	BIT(0)
/* 1.10: no primary plane: black (plus the cursor); see PLANE_X below. */
#define   WDDMSEG_SCANOUT_CTRL_NO_PRIMARY	BIT(1)
#define WDDMSEG_REG_SCANOUT_SEGMENT	0x0314	/* pending: segment id */
#define WDDMSEG_REG_SCANOUT_OFFSET_LO	0x0318	/* pending: byte offset */
#define WDDMSEG_REG_SCANOUT_OFFSET_HI	0x031c
#define WDDMSEG_REG_SCANOUT_WIDTH	0x0320	/* pending: pixels */
#define WDDMSEG_REG_SCANOUT_HEIGHT	0x0324	/* pending: lines */
#define WDDMSEG_REG_SCANOUT_PITCH	0x0328	/* pending: bytes per line */
#define WDDMSEG_REG_SCANOUT_FORMAT	0x032c	/* pending: one FMT bit */
#define WDDMSEG_REG_SCANOUT_REFRESH_MHZ	0x0330	/* pending: millihertz */
#define   WDDMSEG_SCANOUT_REFRESH_MIN	1000	/* 1 Hz */
#define   WDDMSEG_SCANOUT_REFRESH_MAX	240000	/* 240 Hz */
#define WDDMSEG_REG_SCANOUT_COMMIT	0x0334	/* write 1: latch at vblank */
#define WDDMSEG_REG_SCANOUT_STATUS	0x0338	/* read-only */
#define   WDDMSEG_SCANOUT_STATUS_ENABLED	BIT(0)	/* active config */
#define   WDDMSEG_SCANOUT_STATUS_PENDING	BIT(1)	/* commit armed */
#define   WDDMSEG_SCANOUT_STATUS_REFUSED	BIT(2)	/* last commit refused */
#define WDDMSEG_REG_SCANOUT_ERROR	0x033c	/* read-only, last refusal */
#define   WDDMSEG_SCANOUT_ERR_NONE		0
#define   WDDMSEG_SCANOUT_ERR_SEGMENT		1	/* no such memory segment */
#define   WDDMSEG_SCANOUT_ERR_NOT_DIRECT_FLIP	2	/* segment lacks DirectFlip */
#define   WDDMSEG_SCANOUT_ERR_FORMAT		3	/* not exactly one FMT bit */
#define   WDDMSEG_SCANOUT_ERR_SIZE		4	/* 0 or above the limits */
#define   WDDMSEG_SCANOUT_ERR_PITCH		5	/* < width * cpp or not 4-aligned */
#define   WDDMSEG_SCANOUT_ERR_RANGE		6	/* framebuffer leaves the segment */
#define   WDDMSEG_SCANOUT_ERR_REFRESH		7	/* outside REFRESH_MIN..MAX */
#define   WDDMSEG_SCANOUT_ERR_CURSOR		8	/* cursor breaks a rule */
#define WDDMSEG_REG_SCANOUT_ACTIVE_SEGMENT 0x0340	/* read-only: latched */
#define WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_LO 0x0344	/* read-only: latched */
#define WDDMSEG_REG_SCANOUT_ACTIVE_OFFSET_HI 0x0348
#define WDDMSEG_REG_VBLANK_COUNT	0x034c	/* read-only, wraps at 2^32 */
/*
 * Read-only: nanoseconds (of the device's clock) since the vblank that
 * VBLANK_COUNT last counted, read at the moment of the read, saturating at
 * 0xfffffffe; 0xffffffff while no timing runs (scanout disabled, or no
 * vblank yet). Read beside VBLANK_COUNT it dates that vblank exactly,
 * whatever the interrupt latency.
 */
#define WDDMSEG_REG_VBLANK_AGE_NS	0x0350
#define   WDDMSEG_VBLANK_AGE_NONE	0xffffffffu

/*
 * Display features (read-only; a device without them reads 0): which of
 * the cursor, the gamma LUT and the frame CRC below it has.
 */
#define WDDMSEG_REG_SCANOUT_FEATURES	0x0354
#define   WDDMSEG_SCANOUT_FEAT_CURSOR	BIT(0)
#define   WDDMSEG_SCANOUT_FEAT_GAMMA	BIT(1)
#define   WDDMSEG_SCANOUT_FEAT_CRC	BIT(2)
/* Read-only: largest cursor, width in bits 0..15, height in 16..31. */
#define WDDMSEG_REG_CURSOR_MAX		0x0358
#define   WDDMSEG_CURSOR_SIZE_W(v)	((v) & 0xffff)
#define   WDDMSEG_CURSOR_SIZE_H(v)	(((v) >> 16) & 0xffff)
#define   WDDMSEG_CURSOR_SIZE(w, h)	(((w) & 0xffff) | ((h) & 0xffff) << 16)

/*
 * Hardware cursor (FEAT_CURSOR), part of the pending configuration and
 * latched with it by SCANOUT_COMMIT: an ARGB8888 image with premultiplied
 * alpha, CURSOR_SIZE pixels (1x1 up to CURSOR_MAX), CURSOR_PITCH bytes per
 * line (a multiple of 4), at CURSOR_OFFSET in memory segment
 * CURSOR_SEGMENT (which must have DirectFlip, as the primary's), blended
 * over the framebuffer with its top-left pixel at (CURSOR_X, CURSOR_Y),
 * signed, clipped to the scanout. With CURSOR_CTRL.ENABLE set the latch
 * validates it too: a broken rule refuses the whole commit with
 * SCANOUT_ERR_CURSOR.
 */
#define WDDMSEG_REG_CURSOR_CTRL		0x0360	/* pending */
#define   WDDMSEG_CURSOR_CTRL_ENABLE	BIT(0)
#define WDDMSEG_REG_CURSOR_SEGMENT	0x0364	/* pending: segment id */
#define WDDMSEG_REG_CURSOR_OFFSET_LO	0x0368	/* pending: byte offset */
#define WDDMSEG_REG_CURSOR_OFFSET_HI	0x036c
#define WDDMSEG_REG_CURSOR_SIZE		0x0370	/* pending: WDDMSEG_CURSOR_SIZE */
#define WDDMSEG_REG_CURSOR_PITCH	0x0374	/* pending: bytes per line */
#define WDDMSEG_REG_CURSOR_X		0x0378	/* pending: s32 pixels */
#define WDDMSEG_REG_CURSOR_Y		0x037c	/* pending: s32 lines */

/*
 * Gamma LUT (FEAT_GAMMA): 256 entries 0x00RRGGBB, one per 8-bit input
 * level of each channel, applied after the cursor is blended. Writing
 * GAMMA_INDEX selects an entry of the pending LUT; each GAMMA_DATA write
 * stores one and moves to the next (wrapping at 256), a read returns the
 * selected pending entry. The LUT and GAMMA_CTRL.ENABLE are pending state
 * like the rest, latched by SCANOUT_COMMIT.
 */
#define WDDMSEG_REG_GAMMA_CTRL		0x0380	/* pending */
#define   WDDMSEG_GAMMA_CTRL_ENABLE	BIT(0)
#define WDDMSEG_REG_GAMMA_INDEX		0x0384
#define WDDMSEG_REG_GAMMA_DATA		0x0388
#define   WDDMSEG_GAMMA_SIZE		256

/*
 * Frame CRC (FEAT_CRC), not double buffered: while CRC_CTRL.ENABLE is set
 * and the scanout is enabled, at every vblank the device computes the
 * CRC-32C (Castagnoli, initial value and final XOR 0xffffffff) of the
 * frame it starts to show: the visible pixels, line by line, each as the
 * little-endian 32-bit 0x00RRGGBB the display emits (RGB565 expanded by
 * bit replication, cursor blended, gamma applied), and latches it into
 * CRC_VALUE with VBLANK_COUNT into CRC_FRAME. CRC_FRAME reads 0 and
 * CRC_VALUE 0 until the first CRC after enabling.
 */
#define WDDMSEG_REG_CRC_CTRL		0x0390
#define   WDDMSEG_CRC_CTRL_ENABLE	BIT(0)
#define WDDMSEG_REG_CRC_VALUE		0x0394	/* read-only */
#define WDDMSEG_REG_CRC_FRAME		0x0398	/* read-only */

/*
 * Composition (device 1.10). SCANOUT_WIDTH x HEIGHT is the mode, the
 * frame the display shows; the primary plane is a rectangle of it,
 * composed over black: PLANE_SIZE pixels (WDDMSEG_CURSOR_SIZE packing)
 * with the top-left one at (PLANE_X, PLANE_Y). PLANE_SIZE 0 (the reset
 * value, what a 1.9 driver leaves) is the whole mode at (0, 0), as before.
 * The rectangle must lie inside the mode (else SCANOUT_ERR_SIZE); PITCH
 * and the range rules apply to its width and height. With
 * SCANOUT_CTRL.NO_PRIMARY the frame is black (then the cursor and the
 * gamma LUT): SEGMENT, OFFSET, PITCH, FORMAT and PLANE_* are not used and
 * not checked. All of them are pending state, latched by SCANOUT_COMMIT.
 *
 * Writing 1 to CURSOR_COMMIT copies the pending cursor registers
 * (CURSOR_CTRL .. CURSOR_Y) into the active configuration at once, shown
 * from the next frame on, without arming or disturbing a pending commit
 * (STATUS.PENDING and the vblank at which that latches do not change): an
 * asynchronous cursor update. The device checks the cursor's rules first;
 * a broken one leaves the active cursor alone, sets SCANOUT_ERROR to
 * SCANOUT_ERR_CURSOR and raises IRQ_SCANOUT_ERROR. With the scanout
 * disabled the write does nothing (a commit latches at once anyway).
 */
#define WDDMSEG_REG_PLANE_X		0x03a0	/* pending: pixels */
#define WDDMSEG_REG_PLANE_Y		0x03a4	/* pending: lines */
#define WDDMSEG_REG_PLANE_SIZE		0x03a8	/* pending: 0 or CURSOR_SIZE() */
#define WDDMSEG_REG_CURSOR_COMMIT	0x03ac	/* write 1: cursor now */

/*
 * Ring commands: a sequence of little-endian 64-bit words. Word 0 is the
 * header: opcode in bits 0..7, length of the command in 64-bit words
 * (header included) in bits 16..31, other bits zero. Fields marked "mbz"
 * must be zero.
 *
 * A memory location ("loc", 3 words) is either
 *   word 0: segment id (bits 0..31), mbz (32..63)
 *   word 1: byte offset inside the segment
 *   word 2: mbz
 * or, with segment id 0, system memory described by a page list (WDDM's
 * MDL):
 *   word 1: DMA address of an array of 64-bit DMA page addresses
 *           (4 KiB pages)
 *   word 2: byte offset into the memory that list describes
 * or (device 1.6) VRAM of a memory segment described by a page list, the
 * VRAM counterpart of an MDL, for allocations made of blocks:
 *   word 0: segment id (bits 0..31), WDDMSEG_LOC_VRAM_LIST (bit 32),
 *           mbz (33..63)
 *   word 1: DMA address of an array of 64-bit byte offsets inside the
 *           segment, each of a 4 KiB page (4 KiB aligned)
 *   word 2: byte offset into the memory that list describes
 * Each page of a VRAM list is range-checked when the engine reaches it
 * (WDDMSEG_FAULT_OUT_OF_RANGE); the list of an aperture or an Agp
 * segment, or of segment 0, faults with WDDMSEG_FAULT_BAD_PACKET.
 */
#define WDDMSEG_CMD_HDR(op, qwords)	((op) | ((qwords) << 16))
#define WDDMSEG_CMD_OPCODE(hdr)		((hdr) & 0xff)
#define WDDMSEG_CMD_QWORDS(hdr)		(((hdr) >> 16) & 0xffff)
#define WDDMSEG_LOC_QWORDS		3
#define WDDMSEG_LOC_VRAM_LIST		BIT_ULL(32)
#define WDDMSEG_HW_PAGE_SHIFT		12

/* NOP: header only (any length, for padding). */
#define WDDMSEG_OP_NOP			0x00
/* TRANSFER: hdr, size in bytes, src loc, dst loc (8 words). */
#define WDDMSEG_OP_TRANSFER		0x01
#define   WDDMSEG_TRANSFER_QWORDS	8
/* FILL: hdr, size in bytes, pattern (bits 0..31), dst loc (6 words). */
#define WDDMSEG_OP_FILL			0x02
#define   WDDMSEG_FILL_QWORDS		6
/* DISCARD_CONTENT: hdr, size, loc (5 words); checks the range only. */
#define WDDMSEG_OP_DISCARD		0x03
#define   WDDMSEG_DISCARD_QWORDS	5
/*
 * READ_PHYSICAL / WRITE_PHYSICAL: hdr, size, GPU address, DMA address of
 * contiguous system memory (4 words). READ copies GPU -> system, WRITE
 * system -> GPU.
 */
#define WDDMSEG_OP_READ_PHYSICAL	0x04
#define WDDMSEG_OP_WRITE_PHYSICAL	0x05
#define   WDDMSEG_PHYSICAL_QWORDS	4
/*
 * MAP_APERTURE_SEGMENT: hdr, segment id (bits 0..31) | mapping flags (bits
 * 32..63), OffsetInPages, NumberOfPages, DMA address of the page list
 * (5 words). Flags: bit 32 is DXGK_MAPAPERTUREFLAGS.CacheCoherent (only
 * in a segment whose flags have CacheCoherent, else FAULT_BAD_PACKET);
 * bit 33 (since 1.7) says the pages are CPU-cached (the allocation's cache
 * type: write-back); other bits mbz.
 * UNMAP_APERTURE_SEGMENT: hdr, segment id, OffsetInPages, NumberOfPages,
 * DMA address of the dummy page every entry is pointed at (5 words).
 *
 * Non-coherent apertures (since 1.7): a segment without CacheCoherent does
 * not snoop the CPU's caches. For the pages mapped there with
 * WDDMSEG_MAP_CPU_CACHED the device models it: every access through the
 * aperture (TRANSFER and FILL locations in the segment, READ/WRITE_PHYSICAL,
 * PEEK) reads the device's own copy of the page, taken when the page is
 * mapped and refreshed only by FLUSH_APERTURE, so what the CPU wrote since
 * stays unseen until the driver flushes; engine writes reach memory and
 * the copy. Pages mapped without the bit (write-combined or uncached, or
 * entries written through APT_ADDR) and page lists (segment id 0) are
 * read from memory. Remapping, unmapping, an APT_ADDR write and a reset
 * drop a page's copy.
 */
#define WDDMSEG_OP_MAP_APERTURE		0x06
#define WDDMSEG_OP_UNMAP_APERTURE	0x07
#define   WDDMSEG_APERTURE_QWORDS	5
#define   WDDMSEG_MAP_CACHE_COHERENT	BIT_ULL(32)
#define   WDDMSEG_MAP_CPU_CACHED	BIT_ULL(33)
/*
 * FENCE: hdr, seqno, DMA address of an 8-byte writeback slot, flags
 * (4 words). The device writes seqno there once every earlier command has
 * completed, updates LAST_SEQNO, and with WDDMSEG_FENCE_IRQ raises
 * IRQ_FENCE.
 */
#define WDDMSEG_OP_FENCE		0x08
#define   WDDMSEG_FENCE_QWORDS		4
#define   WDDMSEG_FENCE_IRQ		BIT(0)
/*
 * TRANSFER_ENCRYPTED (device 1.4; EncryptedPagingSupported): hdr, size,
 * src loc, dst loc, mode, nonce, stream offset (11 words). The paging
 * transfer of a HardwareProtected allocation out of and back into a
 * protected segment:
 *   WDDMSEG_CRYPT_ENCRYPT: src is VRAM of a segment whose flags have both
 *	VprSupported and EncryptedPagingSupported, dst is system memory (a
 *	page list); the device writes ciphertext.
 *   WDDMSEG_CRYPT_DECRYPT: src is a page list, dst VRAM of such a segment.
 * Byte i of the command is XORed with byte (stream offset + i) of a key
 * stream that depends on a 128-bit key the device draws when it is
 * created (never readable, kept across resets and migrated) and on the
 * nonce: 64-bit word k of the stream is SipHash-2-4 under that key of the
 * 16 bytes (nonce, k), both little endian. Decrypting with the nonce and
 * stream offset of the encryption gives the plaintext back. Size and
 * stream offset are multiples of 8; other mode bits mbz. Anything else
 * faults with WDDMSEG_FAULT_PROTECTION (wrong kind of location or segment)
 * or WDDMSEG_FAULT_BAD_PACKET.
 */
#define WDDMSEG_OP_TRANSFER_ENCRYPTED	0x09
#define   WDDMSEG_TRANSFER_ENCRYPTED_QWORDS 11
#define   WDDMSEG_CRYPT_ENCRYPT		BIT(0)
#define   WDDMSEG_CRYPT_DECRYPT		BIT(1)
/*
 * FLUSH_APERTURE (since 1.7): hdr, segment id, OffsetInPages, NumberOfPages
 * (4 words). The CPU wrote its caches back for these pages of an aperture
 * segment: the device refreshes its copies of them (pages without one are
 * skipped). A segment that is not an aperture or a range outside its page
 * table faults as for MAP_APERTURE.
 */
#define WDDMSEG_OP_FLUSH_APERTURE	0x0a
#define   WDDMSEG_FLUSH_QWORDS		4

/*
 * Ring commands of the GPU MMU (device 1.9; the MMU_* registers below).
 * Page tables are written by the copy engine (DXGK_GPUMMUCAPS
 * PageTableUpdateMode GPU_PHYSICAL) and addressed by GPU address.
 *
 * UPDATE_PAGE_TABLE: hdr, GPU address of a page table, index of the first
 * entry, number of entries, flags, DMA address of the 64-bit entries to
 * write (6 words); DXGK_BUILDPAGINGBUFFER_UPDATEPAGETABLE. REPEAT: the
 * array has one entry, written to every entry of the range. INITIAL:
 * the table's first update: every entry of the table outside the range is
 * written 0 (invalid). The TLBs are not flushed.
 * FLUSH_TLB: hdr, root page table address, start VA, end VA (exclusive),
 * flags (5 words). With FLUSH_TLB_ALL every TLB is emptied (root and
 * range mbz); else the TLB of the address space of that root: the whole
 * of it when start and end are 0, else the pages of [start, end).
 * TRANSFER_VIRTUAL: hdr, size, source root, source VA, destination root,
 * destination VA (6 words). FILL_VIRTUAL: hdr, size, pattern (bits
 * 0..31), root, destination VA (5 words). Addresses are translated by
 * the MMU in the address space of the root; a GPU page fault stops the
 * engine with WDDMSEG_FAULT_MMU.
 * COPY_PAGE_TABLE_ENTRIES: hdr, source table, destination table, count
 * (4 words). Refused: this MMU has a fixed depth and the root table never
 * grows; the engine stops with WDDMSEG_FAULT_REFUSED, FAULT_DETAIL
 * WDDMSEG_REFUSED_FIXED_DEPTH.
 */
#define WDDMSEG_OP_UPDATE_PAGE_TABLE	0x0b
#define   WDDMSEG_UPDATE_PT_QWORDS	6
#define   WDDMSEG_UPDATE_PT_REPEAT	BIT(0)
#define   WDDMSEG_UPDATE_PT_INITIAL	BIT(1)
#define WDDMSEG_OP_FLUSH_TLB		0x0c
#define   WDDMSEG_FLUSH_TLB_QWORDS	5
#define   WDDMSEG_FLUSH_TLB_ALL		BIT(0)
#define WDDMSEG_OP_TRANSFER_VIRTUAL	0x0d
#define   WDDMSEG_TRANSFER_VIRTUAL_QWORDS 6
#define WDDMSEG_OP_FILL_VIRTUAL		0x0e
#define   WDDMSEG_FILL_VIRTUAL_QWORDS	5
#define WDDMSEG_OP_COPY_PAGE_TABLE_ENTRIES 0x0f
#define   WDDMSEG_COPY_PTE_QWORDS	4

/*
 * GPU MMU (device 1.9): the DXGK_GPUMMUCAPS and DXGK_PAGE_TABLE_LEVEL_DESC
 * of the device, read-only. MMU_CAPS.PRESENT is clear when the layout has
 * no memory segment for the page tables (then every walk faults).
 * MMU_LEVELS levels of page tables, level 0 the leaf; level l indexes
 * with MMU_LEVEL_BITS(l) bits of the VA above those of the levels below
 * it and of the 4 KiB page. Every table, of every level, is MMU_PT_SIZE
 * bytes aligned to MMU_PT_ALIGN, inside memory segment MMU_PT_SEGMENT,
 * addressed by its GPU address. Fixed depth: no root resize.
 */
#define WDDMSEG_REG_MMU_CAPS		0x2000
#define   WDDMSEG_MMU_CAPS_PRESENT	BIT(0)
#define   WDDMSEG_MMU_CAPS_GPU_PHYSICAL	BIT(1)	/* PageTableUpdateMode */
#define WDDMSEG_REG_MMU_VA_BITS		0x2004	/* VirtualAddressBitCount */
#define WDDMSEG_REG_MMU_LEVELS		0x2008	/* PageTableLevelCount */
#define WDDMSEG_REG_MMU_PT_SEGMENT	0x200c	/* PageTableSegmentId */
#define WDDMSEG_REG_MMU_PT_SIZE		0x2010	/* PageTableSizeInBytes */
#define WDDMSEG_REG_MMU_PT_ALIGN	0x2014
#define WDDMSEG_REG_MMU_CONTEXTS	0x2018	/* hardware contexts */
#define WDDMSEG_REG_MMU_TLB_ENTRIES	0x201c	/* per address space */
#define WDDMSEG_REG_MMU_LEVEL_BITS(l)	(0x2020 + (l) * 4)
#define   WDDMSEG_MMU_LEVEL_MAX		8	/* LEVEL_BITS slots */
/*
 * Faults: MMU_FAULT_CTX has bit i set while context i is faulted and bit
 * 31 while the copy engine is stopped by a GPU page fault. MMU_FAULT_VA
 * and MMU_FAULT_INFO describe the last fault of any of them; each
 * context's own CTX_FAULT_* registers describe its fault.
 */
#define WDDMSEG_REG_MMU_FAULT_CTX	0x2040
#define   WDDMSEG_MMU_FAULT_CTX_PAGING	BIT(31)
#define WDDMSEG_REG_MMU_FAULT_VA_LO	0x2044
#define WDDMSEG_REG_MMU_FAULT_VA_HI	0x2048
#define WDDMSEG_REG_MMU_FAULT_INFO	0x204c
#define   WDDMSEG_MMU_INFO_REASON(v)	((v) & 0xff)
#define   WDDMSEG_MMU_INFO_ACCESS(v)	(((v) >> 8) & 0x3)
#define   WDDMSEG_MMU_INFO_LEVEL(v)	(((v) >> 12) & 0xf)
#define   WDDMSEG_MMU_INFO_CTX(v)	(((v) >> 16) & 0xff)
#define   WDDMSEG_MMU_INFO(reason, access, level, ctx) \
	((reason) | (access) << 8 | (level) << 12 | (ctx) << 16)
#define   WDDMSEG_MMU_CTX_PAGING	0xff	/* INFO_CTX of the copy engine */
#define   WDDMSEG_MMU_ACCESS_READ	1
#define   WDDMSEG_MMU_ACCESS_WRITE	2
#define   WDDMSEG_MMU_FAULT_NONE	0
#define   WDDMSEG_MMU_FAULT_INVALID	1	/* an entry without Valid */
#define   WDDMSEG_MMU_FAULT_READ_ONLY	2	/* a write through ReadOnly */
#define   WDDMSEG_MMU_FAULT_SEGMENT	3	/* Segment: no memory segment */
#define   WDDMSEG_MMU_FAULT_RANGE	4	/* page or VA out of range */
#define   WDDMSEG_MMU_FAULT_RESERVED	5	/* reserved entry bits set */
#define   WDDMSEG_MMU_FAULT_PT_SEGMENT	6	/* table not in MMU_PT_SEGMENT */
#define   WDDMSEG_MMU_FAULT_DMA		7	/* system memory access failed */
#define   WDDMSEG_MMU_FAULT_NO_ROOT	8	/* context without a root */
#define   WDDMSEG_MMU_FAULT_BAD_COMMAND	9	/* malformed context command */

/*
 * Page table entries, one little-endian 64-bit word, shaped like DXGK_PTE.
 * A leaf (level 0) entry maps one 4 KiB page: Valid; Zero and LargePage
 * are not modelled and fault (MMU_FAULT_RESERVED) like bit 11; ReadOnly
 * faults writes; CacheCoherent and NoExecute are kept (the device snoops,
 * and executes nothing by VA); Segment is a memory segment id, the page
 * address then a byte offset inside it, or 0: the page address is the
 * DMA address of a system page. An entry of a higher level has Valid and
 * the GPU address of the next table; its other low bits mbz.
 */
#define WDDMSEG_PTE_VALID		BIT_ULL(0)
#define WDDMSEG_PTE_ZERO		BIT_ULL(1)
#define WDDMSEG_PTE_CACHE_COHERENT	BIT_ULL(2)
#define WDDMSEG_PTE_READ_ONLY		BIT_ULL(3)
#define WDDMSEG_PTE_NO_EXECUTE		BIT_ULL(4)
#define WDDMSEG_PTE_SEGMENT(id)		(((id) & 0x1fULL) << 5)
#define WDDMSEG_PTE_SEGMENT_OF(pte)	(((pte) >> 5) & 0x1f)
#define WDDMSEG_PTE_LARGE_PAGE		BIT_ULL(10)
#define WDDMSEG_PTE_RESERVED		BIT_ULL(11)
#define WDDMSEG_PTE_ADDR_MASK		(~0xfffULL)

/*
 * Hardware contexts (MMU_CONTEXTS of them), each with its registers at
 * WDDMSEG_CTX_REG(i, reg). CTX_ROOT binds the context to the address space
 * of a root page table (DxgkDdiSetRootPageTable): writing ROOT_HI applies
 * LO and HI, for the next access. Each context runs a ring of context
 * commands (QUEUE_*, as the copy engine's: power-of-two size 4..64 KiB,
 * 4 KiB aligned, QUEUE_TAIL the doorbell) addressed by VA. A GPU page
 * fault or a malformed command stops that context only: STATUS.FAULTED,
 * CTX_FAULT_*, MMU_FAULT_*, IRQ_MMU_FAULT. CTRL.RESUME runs the faulting
 * command again from where it stopped; CTRL.RESET stops the context,
 * clears the fault and sets head = tail = 0 (ENABLE clears too).
 */
#define WDDMSEG_CTX_TABLE		0x2100
#define WDDMSEG_CTX_STRIDE		0x40
#define WDDMSEG_CTX_MAX			4
#define WDDMSEG_CTX_REG(i, reg)		(WDDMSEG_CTX_TABLE + \
					 (i) * WDDMSEG_CTX_STRIDE + (reg))
#define WDDMSEG_CTX_ROOT_LO		0x00
#define WDDMSEG_CTX_ROOT_HI		0x04
#define WDDMSEG_CTX_QUEUE_BASE_LO	0x08
#define WDDMSEG_CTX_QUEUE_BASE_HI	0x0c
#define WDDMSEG_CTX_QUEUE_SIZE		0x10
#define WDDMSEG_CTX_QUEUE_HEAD		0x14	/* read-only */
#define WDDMSEG_CTX_QUEUE_TAIL		0x18	/* doorbell */
#define WDDMSEG_CTX_CTRL		0x1c
#define   WDDMSEG_CTX_CTRL_ENABLE	BIT(0)
#define   WDDMSEG_CTX_CTRL_RESUME	BIT(1)	/* self-clearing */
#define   WDDMSEG_CTX_CTRL_RESET	BIT(2)	/* self-clearing */
#define WDDMSEG_CTX_STATUS		0x20	/* read-only */
#define   WDDMSEG_CTX_STATUS_ENABLED	BIT(0)
#define   WDDMSEG_CTX_STATUS_IDLE	BIT(1)	/* head == tail, not faulted */
#define   WDDMSEG_CTX_STATUS_FAULTED	BIT(2)
#define WDDMSEG_CTX_FAULT_INFO		0x24	/* WDDMSEG_MMU_INFO() */
#define WDDMSEG_CTX_FAULT_VA_LO		0x28
#define WDDMSEG_CTX_FAULT_VA_HI		0x2c
#define WDDMSEG_CTX_FENCE_LO		0x30	/* last context FENCE value */
#define WDDMSEG_CTX_FENCE_HI		0x34
#define WDDMSEG_CTX_FAULT_HEAD		0x38	/* queue offset of the command */

/*
 * Context commands (header as for ring commands):
 * CQ_NOP: header only, any length. CQ_COPY: hdr, size, source VA,
 * destination VA (4 words). CQ_FILL: hdr, size, pattern (bits 0..31),
 * destination VA (4 words). CQ_FENCE: hdr, value, flags (3 words): sets
 * CTX_FENCE once every earlier command completed; CQ_FENCE_IRQ raises
 * IRQ_CTX_FENCE.
 */
#define WDDMSEG_CQ_NOP			0x00
#define WDDMSEG_CQ_COPY			0x01
#define   WDDMSEG_CQ_COPY_QWORDS	4
#define WDDMSEG_CQ_FILL			0x02
#define   WDDMSEG_CQ_FILL_QWORDS	4
#define WDDMSEG_CQ_FENCE		0x03
#define   WDDMSEG_CQ_FENCE_QWORDS	3
#define   WDDMSEG_CQ_FENCE_IRQ		BIT(0)

/* Segment descriptor table. */
#define WDDMSEG_SEG_TABLE		0x1000
#define WDDMSEG_SEG_STRIDE		0x0100
#define WDDMSEG_SEG_MAX			8	/* table slots in the device */
#define WDDMSEG_SEG_REG(i, reg)		(WDDMSEG_SEG_TABLE + \
					 (i) * WDDMSEG_SEG_STRIDE + (reg))

#define WDDMSEG_SEG_BASE_LO		0x00	/* BaseAddress (GPU view) */
#define WDDMSEG_SEG_BASE_HI		0x04
#define WDDMSEG_SEG_CPU_LO		0x08	/* CpuTranslatedAddress (bus) */
#define WDDMSEG_SEG_CPU_HI		0x0c
#define WDDMSEG_SEG_SIZE_LO		0x10	/* Size */
#define WDDMSEG_SEG_SIZE_HI		0x14
#define WDDMSEG_SEG_COMMIT_LO		0x18	/* CommitLimit */
#define WDDMSEG_SEG_COMMIT_HI		0x1c
#define WDDMSEG_SEG_FLAGS		0x20	/* DXGK_SEGMENTFLAGS.Value */
#define WDDMSEG_SEG_NB_BANKS		0x24	/* NbOfBanks */
#define WDDMSEG_SEG_BANK_LO(j)		(0x40 + (j) * 8)	/* end offset */
#define WDDMSEG_SEG_BANK_HI(j)		(0x44 + (j) * 8)
#define WDDMSEG_SEG_BANK_MAX		16	/* bank table slots */

/* DXGK_SEGMENTFLAGS: bit n of Value is member n. */
#define DXGK_SEGFLAG_APERTURE				BIT(0)
#define DXGK_SEGFLAG_AGP				BIT(1)
#define DXGK_SEGFLAG_CPU_VISIBLE			BIT(2)
#define DXGK_SEGFLAG_USE_BANKING			BIT(3)
#define DXGK_SEGFLAG_CACHE_COHERENT			BIT(4)
#define DXGK_SEGFLAG_PITCH_ALIGNMENT			BIT(5)
#define DXGK_SEGFLAG_POPULATED_FROM_SYSTEM_MEMORY	BIT(6)
#define DXGK_SEGFLAG_PRESERVED_DURING_STANDBY		BIT(7)
#define DXGK_SEGFLAG_PRESERVED_DURING_HIBERNATE		BIT(8)
#define DXGK_SEGFLAG_PARTIALLY_PRESERVED_DURING_HIBERNATE BIT(9)
#define DXGK_SEGFLAG_DIRECT_FLIP			BIT(10)
#define DXGK_SEGFLAG_USE_64KB_PAGES			BIT(11)
#define DXGK_SEGFLAG_RESERVED_SYSMEM			BIT(12)
#define DXGK_SEGFLAG_SUPPORTS_CPU_HOST_APERTURE		BIT(13)
#define DXGK_SEGFLAG_SUPPORTS_CACHED_CPU_HOST_APERTURE	BIT(14)
#define DXGK_SEGFLAG_APPLICATION_TARGET			BIT(15)
#define DXGK_SEGFLAG_VPR_SUPPORTED			BIT(16)
#define DXGK_SEGFLAG_VPR_PRESERVED_DURING_STANDBY	BIT(17)
#define DXGK_SEGFLAG_ENCRYPTED_PAGING_SUPPORTED		BIT(18)
#define DXGK_SEGFLAG_LOCAL_BUDGET_GROUP			BIT(19)
#define DXGK_SEGFLAG_NON_LOCAL_BUDGET_GROUP		BIT(20)
#define DXGK_SEGFLAG_POPULATED_BY_RESERVED_DDR_BY_FIRMWARE BIT(21)
#define DXGK_SEGFLAG_KNOWN_MASK				0x003fffffu

/* DXGK_VIDMMCAPS: bit n of Value is member n. */
#define DXGK_VIDMMCAP_OUT_OF_ORDER_LOCK			BIT(0)
#define DXGK_VIDMMCAP_DEDICATED_PAGING_ENGINE		BIT(1)
#define DXGK_VIDMMCAP_PAGING_ENGINE_CAN_SWIZZLE		BIT(2)
#define DXGK_VIDMMCAP_SECTION_BACKED_PRIMARY		BIT(3)
#define DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE		BIT(4)
#define DXGK_VIDMMCAP_VIRTUAL_ADDRESSING_SUPPORTED	BIT(5)
#define DXGK_VIDMMCAP_GPU_MMU_SUPPORTED			BIT(6)
#define DXGK_VIDMMCAP_IO_MMU_SUPPORTED			BIT(7)
#define DXGK_VIDMMCAP_REPLICATE_GDI_CONTENT		BIT(8)
#define DXGK_VIDMMCAP_NON_CPU_VISIBLE_PRIMARY		BIT(9)
#define DXGK_VIDMMCAP_PARAVIRTUALIZATION_SUPPORTED	BIT(10)
#define DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_SUPPORTED	BIT(11)
#define DXGK_VIDMMCAP_DISABLE_SELF_REFRESH_VRAM_IN_S3	BIT(12)
#define DXGK_VIDMMCAP_IO_MMU_SECURE_MODE_REQUIRED	BIT(13)
#define DXGK_VIDMMCAP_MAP_APERTURE2_SUPPORTED		BIT(14)
#define DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_TEXTURE	BIT(15)
#define DXGK_VIDMMCAP_CROSS_ADAPTER_RESOURCE_SCANOUT	BIT(16)
#define DXGK_VIDMMCAP_ALWAYS_POWERED_VRAM		BIT(17)
#define DXGK_VIDMMCAP_KNOWN_MASK			0x0003ffffu

#endif /* WDDMSEG_HW_H */
