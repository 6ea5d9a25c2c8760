# SPDX-License-Identifier: GPL-2.0
#
# Variables the top-level Makefile (and dkms.conf, through it) passes to the
# kernel's own make: what differs between target kernels and cannot be set
# from a Kbuild file (scripts/Makefile.modfinal reads none of ours).
# Needs KDIR.

xnet-kconf = $(shell sed -n 's/^$(1)=//p' $(KDIR)/include/config/auto.conf 2>/dev/null)

# Module BTF (CONFIG_DEBUG_INFO_BTF_MODULES with a vmlinux in KDIR: Debian's
# 6.12 headers ship one, 6.1's do not): pahole cannot encode C++ DWARF
# (reference types, template parameters) and fails the .ko. The C++ core's
# units are left out of the module's BTF, as the kernel does for Rust; the
# C glue, where every kernel type is, keeps its BTF. pahole 1.26 and later
# also get the kernel's own flag for external modules.
xnet-comma := ,
xnet-empty :=
xnet-space := $(xnet-empty) $(xnet-empty)
xnet-pahole-lang := rust c++ c++03 c++11 c++14
xnet-pahole-ver = $(call xnet-kconf,CONFIG_PAHOLE_VERSION)
XNET_PAHOLE_FLAGS = $(strip $(if $(filter y,$(call xnet-kconf,CONFIG_PAHOLE_HAS_LANG_EXCLUDE)),\
	--lang_exclude=$(subst $(xnet-space),$(xnet-comma),$(xnet-pahole-lang))$(if \
	$(shell [ "$(xnet-pahole-ver)" -ge 126 ] 2>/dev/null && echo y), --btf_features=distilled_base)))
XNET_KMAKE_FLAGS = $(if $(XNET_PAHOLE_FLAGS),MODULE_PAHOLE_FLAGS="$(XNET_PAHOLE_FLAGS)")
