// SPDX-License-Identifier: GPL-2.0
/*
 * How nvme_tcp_prio recognises the sockets of the NVMe/TCP host driver.
 *
 * nvme_tcp_alloc_queue() creates each queue's socket with sock_create()
 * (no file: held by the kernel) and, before connecting, sets TCP_SYNCNT 1,
 * TCP_NODELAY and SO_LINGER with a zero timeout. A kernel-held socket going
 * CLOSE->SYN_SENT with all three is taken for an NVMe/TCP queue. At load,
 * existing sockets are recognised by their data_ready callback belonging to
 * the nvme_tcp module (checked by the engine) or, before the driver installs
 * its callbacks (nvme_tcp_start_queue(), after connect and the ICReq/ICResp
 * exchange), by the same three options.
 */
#include <net/inet_connection_sock.h>
#include <net/tcp.h>

#include "prio_sock.h"

/* Kernel-held, TCP_SYNCNT 1, SO_LINGER 0 and TCP_NODELAY: a host queue. */
static bool nvme_tcp_prio_looks_ours(const struct sock *sk)
{
	return nvprio_kernel_held(sk) &&
	       inet_csk(sk)->icsk_syn_retries == 1 &&
	       sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime &&
	       (tcp_sk(sk)->nonagle & TCP_NAGLE_OFF);
}

/*
 * Birth (CLOSE->SYN_SENT), or ESTABLISHED for a socket whose SYN_SENT came
 * before the probe was attached and which the load-time scan did not find
 * yet (connect() sets the state before it hashes the socket).
 */
static enum nvprio_role nvme_tcp_prio_classify(const struct sock *sk,
					       int oldstate, int newstate)
{
	if (!(oldstate == TCP_CLOSE && newstate == TCP_SYN_SENT) &&
	    !(oldstate == TCP_SYN_SENT && newstate == TCP_ESTABLISHED))
		return NVPRIO_NONE;
	return nvme_tcp_prio_looks_ours(sk) ? NVPRIO_HOST : NVPRIO_NONE;
}

static enum nvprio_role nvme_tcp_prio_classify_existing(const struct sock *sk)
{
	return sk->sk_state == TCP_LISTEN ? NVPRIO_NONE : NVPRIO_HOST;
}

const struct nvprio_ops nvme_tcp_prio_ops = {
	.owner = "nvme_tcp",
	.classify = nvme_tcp_prio_classify,
	.looks_ours = nvme_tcp_prio_looks_ours,
	.classify_existing = nvme_tcp_prio_classify_existing,
};

