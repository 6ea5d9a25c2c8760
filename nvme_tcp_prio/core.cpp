// SPDX-License-Identifier: GPL-2.0
/* nvme_tcp_prio: the C++ side (core ABIs and kernel C++ runtime). */
#include <xnet/kernel/cxxrt.hpp>
#include <xnet/abi_impl.hpp>
#include <xnet/prio_abi_impl.hpp>
