// SPDX-License-Identifier: GPL-2.0
/* nvme_tcp_prio: the C++ side (core ABI and kernel C++ runtime). */
#include <xnet/kernel/cxxrt.hpp>
#include <xnet/abi_impl.hpp>
