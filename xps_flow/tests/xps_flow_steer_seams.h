/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit xps_flow_steer's seam in xps_flow's datapath: kunit/Kbuild
 * force-includes this into datapath.c of the KUnit kernel only (the
 * module is built without it). While xfl_test_race_left > 0, each of the
 * decision's writes (xfl_cas(): a claim, or a hold's stamp) finds that
 * "another CPU" wrote xfl_test_race_entry less the losses still to come (a
 * value new each time) into the slot after it was read, and loses. The
 * variables are the suite's (xps_flow_steer_test.c).
 */
#ifndef XPS_FLOW_STEER_SEAMS_H
#define XPS_FLOW_STEER_SEAMS_H

#include <linux/compiler.h>
#include <linux/types.h>

extern int xfl_test_race_left;
extern u64 xfl_test_race_entry;

#define XFL_TEST_CLAIM_RACE(slot)						\
	do {									\
		if (READ_ONCE(xfl_test_race_left) > 0) {			\
			WRITE_ONCE(xfl_test_race_left, xfl_test_race_left - 1);	\
			WRITE_ONCE(*(slot), xfl_test_race_entry - xfl_test_race_left); \
		}								\
	} while (0)

#endif /* XPS_FLOW_STEER_SEAMS_H */
