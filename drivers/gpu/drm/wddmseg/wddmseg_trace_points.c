// SPDX-License-Identifier: GPL-2.0-only
/*
 * Instantiates the tracepoints declared in wddmseg_trace.h.
 */

#define CREATE_TRACE_POINTS
#include "wddmseg_trace.h"
