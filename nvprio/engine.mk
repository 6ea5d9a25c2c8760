# SPDX-License-Identifier: GPL-2.0
#
# The socket-priority engine shared by nvme_tcp_prio (host) and
# nvmet_tcp_prio (target): nvprio/prio_sock.c and the rules behind it
# (nvprio/rules.cpp), listed as prio_sock.o and rules.o in the -y line of
# both modules. Include from the module's
# Kbuild after scripts/common.mk.
#
# Each module compiles its own prio_sock.o from the shared source, in its
# own directory, with kbuild's rule for C objects: the object then has the
# module's KBUILD_MODNAME (pr_fmt, the module_param prefix, the debugfs
# directory). One object linked into both modules would get the names of
# both (scripts/Makefile.lib, modname-multi) and could not be built from
# two directories without both writing it.
NVPRIO_DIR := $(XNET_ROOT)/nvprio

$(obj)/prio_sock.o: $(obj)/%.o: $(NVPRIO_DIR)/%.c $(recordmcount_source) FORCE
	$(call if_changed_rule,cc_o_c)
	$(call cmd,force_checksrc)

# The engine's trace events (nvprio/trace.h), defined in the module's own
# trace.o, compiled the same way; list trace.o in the -y line too. The
# events' system is the module's name: its Kbuild sets NVPRIO_TRACE_SYSTEM.
# define_trace.h includes trace.h again through TRACE_INCLUDE_PATH (.).
$(obj)/trace.o: $(obj)/%.o: $(NVPRIO_DIR)/%.c $(recordmcount_source) FORCE
	$(call if_changed_rule,cc_o_c)
	$(call cmd,force_checksrc)
CFLAGS_trace.o := -I$(NVPRIO_DIR)

# The priority rules (C++ core, rules.h), compiled the same way.
$(obj)/rules.o: $(obj)/%.o: $(NVPRIO_DIR)/%.cpp FORCE
	$(xnet-kbuild-check)$(call if_changed_dep,cxx_o_cpp)
