# SPDX-License-Identifier: GPL-2.0
#
# Shared by every Kbuild file of the project (module directories and
# kunit/): locate the project root, add the core's include directory and the
# C++ rule. $(src) is absolute for M= builds and relative to $(srctree) for
# in-tree builds (the KUnit tier links the project into a kernel tree).
# A Kbuild file outside the project tree (the build guard tests) sets
# XNET_ROOT itself before including this file.
XNET_ROOT ?= $(abspath $(if $(filter /%,$(src)),$(src),$(srctree)/$(src))/..)

# The kernel series the modules are tested on (Documentation/kernels.md).
# Their hooks copy or replace kernel functions line for line and walk kernel
# structures; on another kernel that compiles and runs wrong, so the build
# stops unless asked: XNET_FORCE_UNSUPPORTED=1 (a forced build still stops
# on the layouts compat/Kbuild.include probes).
XNET_SERIES := 6.1 6.12
ifeq ($(filter $(XNET_SERIES),$(VERSION).$(PATCHLEVEL)),)
ifneq ($(XNET_FORCE_UNSUPPORTED),1)
$(error xnet: kernel $(KERNELRELEASE) (series $(VERSION).$(PATCHLEVEL)) is not of a supported series ($(XNET_SERIES)); to build anyway (untested): make XNET_FORCE_UNSUPPORTED=1)
endif
$(warning xnet: kernel $(KERNELRELEASE) (series $(VERSION).$(PATCHLEVEL)) is not of a supported series ($(XNET_SERIES)): built untested, as XNET_FORCE_UNSUPPORTED=1 asks)
endif
ccflags-y += -I$(XNET_ROOT)/include

# The version of every module (MODULE_VERSION, modinfo, /sys/module/*/version):
# dkms.conf's PACKAGE_VERSION, the one place it is written.
XNET_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\([0-9][0-9a-z.~+-]*\)"$$/\1/p' $(XNET_ROOT)/dkms.conf)
ifeq ($(XNET_VERSION),)
$(error no PACKAGE_VERSION="..." line in $(XNET_ROOT)/dkms.conf)
endif
ccflags-y += -DXNET_VERSION='"$(XNET_VERSION)"'
include $(XNET_ROOT)/compat/Kbuild.include
include $(XNET_ROOT)/scripts/cxx.mk

# The core every module links (common/): the kernel C++ runtime
# (cxxrt.cpp), its kernel side (cxxrt_glue.c) and the core's C ABI
# (core_abi.cpp, include/xnet/abi.h). Each module compiles its own copies in
# its own directory, as for the NVMe engine (nvprio/engine.mk): list
# $(XNET_CORE_OBJS) in the module's -y line.
XNET_CORE_OBJS := cxxrt.o cxxrt_glue.o core_abi.o

$(addprefix $(obj)/,cxxrt.o core_abi.o): $(obj)/%.o: $(XNET_ROOT)/common/%.cpp FORCE
	$(xnet-kbuild-check)$(call if_changed_dep,cxx_o_cpp)

$(obj)/cxxrt_glue.o: $(obj)/%.o: $(XNET_ROOT)/common/%.c $(recordmcount_source) FORCE
	$(call if_changed_rule,cc_o_c)
	$(call cmd,force_checksrc)
