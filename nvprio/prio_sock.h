/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The socket-priority engine shared by nvme_tcp_prio (host) and
 * nvmet_tcp_prio (target), compiled into each of them (nvprio/engine.mk).
 * Each module supplies how its NVMe/TCP sockets are recognised (host.c,
 * target.c); the engine does the rest: parameters, the tracepoint
 * hook, the table of managed sockets, re-apply, restore and debugfs.
 */
#ifndef NVPRIO_PRIO_SOCK_H
#define NVPRIO_PRIO_SOCK_H

#include <net/sock.h>

enum nvprio_role {
	NVPRIO_NONE = 0,
	NVPRIO_HOST,		/* host: connecting socket (admin or I/O queue) */
	NVPRIO_LISTEN,		/* target: listener of an nvmet TCP port */
	NVPRIO_ACCEPT,		/* target: accepted connection */
};

struct nvprio_ops {
	/* Module whose socket callbacks mark its sockets ("nvme_tcp"). */
	const char *owner;
	/*
	 * A state change of a socket that is not managed yet: the role if
	 * it is the birth of one of our sockets. Called from the tracepoint
	 * (process or softirq context, socket locked by the caller).
	 */
	enum nvprio_role (*classify)(const struct sock *sk, int oldstate,
				     int newstate);
	/*
	 * Optional: is @sk, found at load time without @owner's callbacks,
	 * one of the driver's sockets all the same (set up by the driver, its
	 * callbacks not installed yet)? Called under a hash bucket lock.
	 */
	bool (*looks_ours)(const struct sock *sk);
	/* A socket found at load time that is the driver's (see above). */
	enum nvprio_role (*classify_existing)(const struct sock *sk);
};

/* How each module recognises its sockets. */
extern const struct nvprio_ops nvme_tcp_prio_ops;	/* nvme_tcp_prio/host.c */
extern const struct nvprio_ops nvmet_tcp_prio_ops;	/* nvmet_tcp_prio/target.c */

/* nvmet_tcp_prio/target.c: forgets nvmet_tcp's listeners when it unloads. */
int nvmet_tcp_prio_target_init(void);
void nvmet_tcp_prio_target_exit(void);

int nvprio_init(const struct nvprio_ops *ops);
void nvprio_exit(void);

/* Is @fn (a socket callback) a function of module @owner? Any context. */
bool nvprio_fn_owned_by(const void *fn, const char *owner);

#endif /* NVPRIO_PRIO_SOCK_H */
