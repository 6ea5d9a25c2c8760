// SPDX-License-Identifier: GPL-2.0
/* xps_flow: the C++ side (core ABI and kernel C++ runtime). */
#include <xnet/kernel/cxxrt.hpp>
#include <xnet/abi_impl.hpp>
