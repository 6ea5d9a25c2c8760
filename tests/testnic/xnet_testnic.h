/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnet_testnic: the test header that the "wire" of the test NIC recognises.
 *
 * A packet carries the header right after the Ethernet header when its
 * EtherType is XNET_TN_ETH_P_SEQ (raw frames, e.g. from AF_PACKET), or as
 * the first bytes of a UDP payload (IPv4 or IPv6, any port). All fields
 * are big-endian. Flow ids are per device and independent of addresses and
 * ports; sequence numbers count up by one per packet of a flow (32-bit,
 * wrap-safe comparison).
 */
#ifndef XNET_TESTNIC_H
#define XNET_TESTNIC_H

#include <linux/types.h>

#define XNET_TN_ETH_P_SEQ	0x88B5	/* IEEE 802 local experimental 1 */
#define XNET_TN_SEQ_MAGIC	"XNETSEQ1"
#define XNET_TN_SEQ_MAGIC_LEN	8

struct xnet_tn_seqhdr {
	u8 magic[XNET_TN_SEQ_MAGIC_LEN];	/* XNET_TN_SEQ_MAGIC, no NUL */
	__be32 flow;
	__be32 seq;
} __packed;

#endif /* XNET_TESTNIC_H */
