// SPDX-License-Identifier: GPL-2.0
/* xps_flow: the C++ side (core ABIs and kernel C++ runtime). */
#include <xnet/kernel/cxxrt.hpp>
#include <xnet/abi_impl.hpp>
#include <xnet/xps_abi_impl.hpp>
