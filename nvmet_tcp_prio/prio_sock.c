// SPDX-License-Identifier: GPL-2.0
/* The engine shared with the host module (one source, two modules). */
#include "../nvme_tcp_prio/prio_sock.c"
