// SPDX-License-Identifier: GPL-2.0
/*
 * Host side of make bench-scale's xps_flow part: how the flows of
 * tests/bench/scale-xps-guest.sh spread over a table of 2^20 entries with
 * xps_flow's own tuple key (xnet_xps_key_v4() of xps_flow/decide.h) under
 * many seeds. The guest measures one seed (drawn at module load); the key
 * is linear in the tuple's words, and the guest's flows form a grid of
 * ports, so how many slots they occupy depends on the seed far more than
 * for a random hash. Prints the raw counts on stdout, from which
 * scripts/bench-tables.py makes the table: "params entries=M seeds=S",
 * then per N "flows=N occupied=O,O,..." (the slots occupied, a count per
 * seed, in the order the seeds were drawn).
 *
 * Usage: scale-xps-seeds SEEDS N...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../xps_flow/decide.h"

/* The guest script's tuple: 10.99.0.1 -> 10.99.0.2, UDP, ports below. */
#define SRC_PORT	1000
#define DST_PORT	20000

static unsigned long long rs;

/* xorshift64*, seeded from /dev/urandom: the seeds' distribution only. */
static unsigned long long rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545f4914f6cdd1dull;
}

/* A word as the kernel reads it from the packet: 4 bytes in wire order. */
static unsigned int word(const unsigned char b[4])
{
	unsigned int w;

	memcpy(&w, b, sizeof(w));
	return w;
}

int main(int argc, char **argv)
{
	static unsigned char seen[XNET_XPS_MAX_ENTRIES];
	const unsigned char sa[4] = { 10, 99, 0, 1 }, da[4] = { 10, 99, 0, 2 };
	const unsigned int M = XNET_XPS_MAX_ENTRIES;
	int seeds = argc > 2 ? atoi(argv[1]) : 0;
	FILE *f = fopen("/dev/urandom", "r");
	long *occ;

	if (seeds < 1 || !f || fread(&rs, sizeof(rs), 1, f) != 1) {
		fprintf(stderr, "usage: scale-xps-seeds SEEDS N... (and /dev/urandom)\n");
		return 2;
	}
	fclose(f);
	rs |= 1;
	occ = calloc(seeds, sizeof(*occ));
	if (!occ)
		return 1;
	printf("params entries=%u seeds=%d\n", M, seeds);
	for (int i = 2; i < argc; i++) {
		long n = atol(argv[i]), a, p;

		if (n < 1)
			return 2;
		a = n & -n;	/* destination ports, as the guest's split() */
		p = n / a;	/* source ports */
		for (int s = 0; s < seeds; s++) {
			struct xnet_xps_key_seed seed;

			for (int j = 0; j < 10; j++)
				seed.mul[j] = rnd();
			seed.add4 = rnd();
			seed.add6 = rnd();
			memset(seen, 0, sizeof(seen));
			occ[s] = 0;
			/* pktgen steps both ports before its first packet. */
			for (long k = 1; k <= n; k++) {
				unsigned int sp = SRC_PORT + k % p;
				unsigned int dp = DST_PORT + k % a;
				const unsigned char pb[4] = {
					sp >> 8, sp & 255, dp >> 8, dp & 255
				};
				unsigned int key = xnet_xps_key_v4(&seed, word(sa), word(da),
								   word(pb), 17);
				unsigned int slot = key & (M - 1);

				occ[s] += !seen[slot];
				seen[slot] = 1;
			}
		}
		printf("flows=%ld occupied=", n);
		for (int s = 0; s < seeds; s++)
			printf("%s%ld", s ? "," : "", occ[s]);
		printf("\n");
	}
	free(occ);
	return 0;
}
