# SPDX-License-Identifier: GPL-2.0
#
# Freestanding C++ for kbuild: compile $(src)/%.cpp into $(obj)/%.o with the
# kernel's own code-generation flags, so C++ objects link into modules (and
# into the UML kernel that kunit.py builds) exactly like C objects.
#
# Include from a Kbuild file after setting XNET_ROOT (the project root):
#   include $(XNET_ROOT)/scripts/cxx.mk
#
# Nothing here is architecture specific: the flags are the kernel's
# KBUILD_CPPFLAGS/KBUILD_CFLAGS/KBUILD_CFLAGS_MODULE (or _KERNEL for built-in
# objects) minus the options that the C++ compiler itself reports as valid
# for C only. Every C++ object is then checked: no global constructors, no
# unwind tables, no C++ runtime symbols (scripts/check-cxx-obj.sh).

# The kbuild internals used below (scripts/Makefile.lib and Kbuild.include,
# the same in 6.1 and 6.12; none is a documented interface):
#   _c_flags        the flags kbuild gives this object's C compile (per-dir
#                   and per-object options, sanitizers, compat's -include):
#                   the C++ flags start from them
#   modkern_cflags  KBUILD_CFLAGS_MODULE or _KERNEL, for a module or not
#   basename_flags, modname_flags   -DKBUILD_BASENAME, -DKBUILD_MODNAME
#   target-stem     the object's name without .o (for CXXFLAGS_<stem>.o)
#   depfile         the -MMD output that fixdep turns into .cmd
#   if_changed_dep  rebuild when the command line or a dependency changed
#   cmd_objtool     objtool on the object, as for C; defined only with
#                   CONFIG_OBJTOOL (x86: yes; UML, for KUnit: no)
#   quiet_modtag    the "[M]" of the quiet build line
# A kernel that renamed one would compile C++ with wrong or no flags and say
# nothing: every C++ compile first checks that each is still defined.
XNET_KBUILD_INTERNALS := _c_flags modkern_cflags basename_flags \
	modname_flags target-stem depfile if_changed_dep quiet_modtag \
	$(if $(CONFIG_OBJTOOL),cmd_objtool)
xnet-kbuild-check = $(foreach v,$(XNET_KBUILD_INTERNALS),$(if \
	$(filter undefined,$(origin $(v))),$(error scripts/cxx.mk: this \
	kernel's kbuild has no '$(v)', which compiling C++ relies on)))

# Kbuild clears make's built-in CXX: derive the C++ driver from $(CC).
ifneq ($(findstring clang,$(CC)),)
XNET_CXX := $(subst clang,clang++,$(CC))
else
XNET_CXX := $(subst gcc,g++,$(CC))
endif

xnet-cxx-probe-flags := $(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) \
	$(KBUILD_CFLAGS_MODULE) $(KBUILD_CFLAGS_KERNEL) $(ccflags-y)

# Ask the C++ compiler once which of these it rejects as C-only. It names
# them in two ways: "command-line option 'X' is valid for C/ObjC but not for
# C++" and "'-Werror=' argument 'X' is not valid for C++".
xnet-cxx-c-only := $(shell LC_ALL=C $(XNET_CXX) $(xnet-cxx-probe-flags) \
	-x c++ -fsyntax-only /dev/null 2>&1 | sed -n \
	-e "s/.*command-line option '\([^']*\)' is valid for C\/ObjC but not for C++.*/\1/p" \
	-e "s/.*'-Werror=' argument '\([^']*\)' is not valid for C++.*/\1/p" | \
	sort -u)
# -Werror=<w> is reported as -W<w>; -std=gnu11 is not reported at all.
xnet-cxx-c-only += $(patsubst -W%,-Werror=%,$(filter -W%,$(xnet-cxx-c-only))) \
	$(filter -std=%,$(xnet-cxx-probe-flags))

XNET_CXXFLAGS := -std=gnu++17 -nostdinc \
	-isystem $(shell $(XNET_CXX) -print-file-name=include) \
	-ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics \
	-fno-use-cxa-atexit -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fcheck-new -fno-common \
	-Wno-missing-field-initializers -D__XNET_KERNEL__

# Generic KASAN (asan-globals=1) registers instrumented globals from a
# compiler-made constructor (.init_array/.fini_array): that is the one
# constructor the object check would reject, so C++ objects keep global
# instrumentation off (their globals lose redzones, nothing else).
xnet-cxx-kasan = $(if $(filter -fsanitize=kernel-address,$(_c_flags)),--param asan-globals=0)

# CXXFLAGS_<file>.o adds per-object options after ours (tests use it to
# prove that the object checks catch what the defaults prevent).
cxx_flags = -Wp,-MMD,$(depfile) \
	$(filter-out $(xnet-cxx-c-only),$(subst $(XNET_COMPAT_INCLUDE),,$(_c_flags)) $(modkern_cflags)) \
	$(basename_flags) $(modname_flags) $(XNET_CXXFLAGS) $(xnet-cxx-kasan) \
	$(CXXFLAGS_$(target-stem).o)

quiet_cmd_cxx_o_cpp = CXX $(quiet_modtag) $@
      cmd_cxx_o_cpp = $(XNET_CXX) $(cxx_flags) -c -o $@ $< \
		$(cmd_objtool) ; \
		$(CONFIG_SHELL) $(XNET_ROOT)/scripts/check-cxx-obj.sh \
			'$(OBJDUMP)' '$(NM)' $@ || { rm -f $@; false; }

$(obj)/%.o: $(src)/%.cpp FORCE
	$(xnet-kbuild-check)$(call if_changed_dep,cxx_o_cpp)
