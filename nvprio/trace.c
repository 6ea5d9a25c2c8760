// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's trace events (trace.h), defined once per module: each NVMe
 * module compiles this file into its own trace.o (nvprio/engine.mk), with
 * its own NVPRIO_TRACE_SYSTEM. Compiled with -I of this directory:
 * define_trace.h includes trace.h again through TRACE_INCLUDE_PATH.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
