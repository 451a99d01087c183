/* SPDX-License-Identifier: GPL-2.0-only */
/* Fixture for tools/lint/tests/run.sh: one flag and one device opcode. */
#define DXGK_SEGFLAG_APERTURE (1u << 0)
#define DXGK_SEGFLAG_KNOWN_MASK 0x1u
#define WDDMSEG_OP_NOP 0
