# SPDX-License-Identifier: GPL-2.0
#
# Shared by every Kbuild file of the project (module directories and
# kunit/): locate the project root, add the core's include directory and the
# C++ rule. $(src) is absolute for M= builds and relative to $(srctree) for
# in-tree builds (the KUnit tier links the project into a kernel tree).
# A Kbuild file outside the project tree (the build guard tests) sets
# XNET_ROOT itself before including this file.
XNET_ROOT ?= $(abspath $(if $(filter /%,$(src)),$(src),$(srctree)/$(src))/..)
ccflags-y += -I$(XNET_ROOT)/include
include $(XNET_ROOT)/compat/Kbuild.include
include $(XNET_ROOT)/scripts/cxx.mk
