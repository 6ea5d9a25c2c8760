// SPDX-License-Identifier: GPL-2.0
/*
 * How nvme_tcp_prio recognises the sockets of the NVMe/TCP host driver.
 *
 * nvme_tcp_alloc_queue() creates each queue's socket with sock_create()
 * (no file: held by the kernel) and, before connecting, sets TCP_SYNCNT 1,
 * TCP_NODELAY and SO_LINGER with a zero timeout. A kernel-held socket going
 * CLOSE->SYN_SENT with all three is taken for an NVMe/TCP queue. At load,
 * existing sockets are recognised by their data_ready callback belonging to
 * the nvme_tcp module (checked by the engine).
 */
#include <net/inet_connection_sock.h>
#include <net/tcp.h>

#include "prio_sock.h"

static enum nvprio_role nvme_tcp_prio_classify(const struct sock *sk,
					       int oldstate, int newstate)
{
	if (oldstate != TCP_CLOSE || newstate != TCP_SYN_SENT)
		return NVPRIO_NONE;
	if (!nvprio_kernel_held(sk))
		return NVPRIO_NONE;
	if (inet_csk(sk)->icsk_syn_retries != 1 ||
	    !sock_flag(sk, SOCK_LINGER) || sk->sk_lingertime ||
	    !(tcp_sk(sk)->nonagle & TCP_NAGLE_OFF))
		return NVPRIO_NONE;
	return NVPRIO_HOST;
}

static enum nvprio_role nvme_tcp_prio_classify_existing(const struct sock *sk)
{
	return sk->sk_state == TCP_LISTEN ? NVPRIO_NONE : NVPRIO_HOST;
}

const struct nvprio_ops nvme_tcp_prio_ops = {
	.owner = "nvme_tcp",
	.classify = nvme_tcp_prio_classify,
	.classify_existing = nvme_tcp_prio_classify_existing,
};

