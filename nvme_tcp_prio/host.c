// SPDX-License-Identifier: GPL-2.0
/*
 * How nvme_tcp_prio recognises the sockets of the NVMe/TCP host driver.
 *
 * nvme_tcp_alloc_queue() creates each queue's socket with sock_create() and,
 * before connecting, sets TCP_SYNCNT 1, TCP_NODELAY, SO_LINGER with a zero
 * timeout and SOCK_MEMALLOC (sk_set_memalloc(): the socket may carry
 * reclaim, which no user-space socket can ask for). A socket going
 * CLOSE->SYN_SENT with all four is taken for an NVMe/TCP queue. Whether the
 * socket has a file says nothing: since 6.7 the driver gives every queue
 * one (sock_alloc_file(), for the TLS handshake upcall), before 6.7 none.
 * At load, existing sockets are recognised by their data_ready callback
 * belonging to the nvme_tcp module (checked by the engine) or, before the
 * driver installs its callbacks (nvme_tcp_start_queue(), after connect and
 * the ICReq/ICResp exchange), by the same four settings.
 */
#include <net/inet_connection_sock.h>
#include <net/tcp.h>

#include "../nvprio/prio_sock.h"

/* SOCK_MEMALLOC, TCP_SYNCNT 1, SO_LINGER 0 and TCP_NODELAY: a host queue. */
static bool nvme_tcp_prio_looks_ours(const struct sock *sk)
{
	return sock_flag(sk, SOCK_MEMALLOC) &&
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

