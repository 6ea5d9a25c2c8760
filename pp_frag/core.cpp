// SPDX-License-Identifier: GPL-2.0
/* pp_frag: the C++ side (core ABIs and kernel C++ runtime). */
#include <xnet/kernel/cxxrt.hpp>
#include <xnet/abi_impl.hpp>
#include <xnet/frag_abi_impl.hpp>
