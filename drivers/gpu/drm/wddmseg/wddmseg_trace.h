/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of the wddmseg driver: allocation lifetime, placement
 * changes, paging operations on the copy engine and fence signals
 * (events/wddmseg/ in tracefs).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wddmseg

#if !defined(WDDMSEG_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define WDDMSEG_TRACE_H

#include <linux/string.h>
#include <linux/tracepoint.h>

/*
 * Paging operation names ("transfer-decrypt", "write_physical", ...) fit
 * a fixed array: unlike __string(), whose __assign_str() changed its
 * arguments in 6.10, it needs no compatibility shim.
 */
#define WDDMSEG_TRACE_OP_LEN	24

TRACE_EVENT(wddmseg_bo_create,
	    TP_PROTO(const void *bo, u64 size, u32 flags, u32 supported,
		     u32 segment),
	    TP_ARGS(bo, size, flags, supported, segment),
	    TP_STRUCT__entry(__field(const void *, bo)
			     __field(u64, size)
			     __field(u32, flags)
			     __field(u32, supported)
			     __field(u32, segment)),
	    TP_fast_assign(__entry->bo = bo;
			   __entry->size = size;
			   __entry->flags = flags;
			   __entry->supported = supported;
			   __entry->segment = segment;),
	    TP_printk("bo=%p size=%llu flags=0x%x supported=0x%x segment=%u",
		      __entry->bo, __entry->size, __entry->flags,
		      __entry->supported, __entry->segment)
);

TRACE_EVENT(wddmseg_bo_move,
	    TP_PROTO(const void *bo, u64 size, u32 from, u64 from_offset,
		     u32 to, u64 to_offset, bool evict),
	    TP_ARGS(bo, size, from, from_offset, to, to_offset, evict),
	    TP_STRUCT__entry(__field(const void *, bo)
			     __field(u64, size)
			     __field(u32, from)
			     __field(u64, from_offset)
			     __field(u32, to)
			     __field(u64, to_offset)
			     __field(bool, evict)),
	    TP_fast_assign(__entry->bo = bo;
			   __entry->size = size;
			   __entry->from = from;
			   __entry->from_offset = from_offset;
			   __entry->to = to;
			   __entry->to_offset = to_offset;
			   __entry->evict = evict;),
	    TP_printk("bo=%p size=%llu %s segment %u+0x%llx -> segment %u+0x%llx",
		      __entry->bo, __entry->size,
		      __entry->evict ? "evict" : "move",
		      __entry->from, __entry->from_offset,
		      __entry->to, __entry->to_offset)
);

TRACE_EVENT(wddmseg_bo_destroy,
	    TP_PROTO(const void *bo, u64 size),
	    TP_ARGS(bo, size),
	    TP_STRUCT__entry(__field(const void *, bo)
			     __field(u64, size)),
	    TP_fast_assign(__entry->bo = bo;
			   __entry->size = size;),
	    TP_printk("bo=%p size=%llu", __entry->bo, __entry->size)
);

TRACE_EVENT(wddmseg_paging_op,
	    TP_PROTO(const char *op, u32 src, u32 dst, u64 size, u64 seqno),
	    TP_ARGS(op, src, dst, size, seqno),
	    TP_STRUCT__entry(__array(char, op, WDDMSEG_TRACE_OP_LEN)
			     __field(u32, src)
			     __field(u32, dst)
			     __field(u64, size)
			     __field(u64, seqno)),
	    TP_fast_assign(strscpy(__entry->op, op, sizeof(__entry->op));
			   __entry->src = src;
			   __entry->dst = dst;
			   __entry->size = size;
			   __entry->seqno = seqno;),
	    TP_printk("%s segment %u -> segment %u size=%llu seqno=%llu",
		      __entry->op, __entry->src, __entry->dst,
		      __entry->size, __entry->seqno)
);

TRACE_EVENT(wddmseg_fence_signal,
	    TP_PROTO(u64 seqno, int error),
	    TP_ARGS(seqno, error),
	    TP_STRUCT__entry(__field(u64, seqno)
			     __field(int, error)),
	    TP_fast_assign(__entry->seqno = seqno;
			   __entry->error = error;),
	    TP_printk("seqno=%llu error=%d", __entry->seqno, __entry->error)
);

#endif /* WDDMSEG_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE wddmseg_trace
#include <trace/define_trace.h>
