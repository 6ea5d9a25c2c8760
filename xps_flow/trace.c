// SPDX-License-Identifier: GPL-2.0
/*
 * xps_flow's trace events, defined here (trace.h); the datapath fires
 * them. Compiled with -I of this directory (Kbuild): define_trace.h
 * includes the header again by TRACE_INCLUDE_PATH.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
