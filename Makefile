# SPDX-License-Identifier: GPL-2.0
#
# xnet out-of-tree modules: nvme_tcp_prio, nvmet_tcp_prio, xps_flow, pp_frag.
#
#   make                 build the modules (KDIR=... to choose the kernel)
#   make install         modules_install into /lib/modules/<kver>/extra + depmod
#   make demo            boot a guest, load the modules, show what they do
#   make check           every test tier; last line "N passed, N failed"
#   make test-user       C++ core in userspace (GoogleTest, ASan+UBSan)
#   make kunit           KUnit suites on UML via the kernel's kunit.py, from
#                        linux-source-$(SERIES) (6.1; SERIES=6.12)
#   make vmtest          the .ko files in a QEMU guest booting Debian's kernel
#   make testnic         the BQL test NIC (tests/testnic), used by the tests only
#   make hookcost        empty hooks for the cost bench (tests/hookcost)
#   make vmtest-selftest prove the guest harness catches what it must
#   make vmtest-debug    the guest tests on the debug kernel (KASAN, lockdep,
#                        kmemleak, UBSAN, ...: scripts/vm/debug-kernel.sh)
#   make check-debug     vmtest-selftest and vmtest on the debug kernel
#   make vmtest-series   the guest tests on Debian's kernel of SERIES (6.1,
#                        6.12), modules built in build/<release>/src
#   make vmtest-rt       the same on its PREEMPT_RT flavour (a subset)
#   make check-build     W=1, sparse, checkpatch and C++ object guards
#   make regress         failing-before proofs: tests/regress/*.patch bring a
#                        fixed defect back; its test must fail (scripts/regress.sh)
#   make fuzz            libFuzzer (clang, ASan+UBSan) on the core's parsers,
#                        FUZZ_SECONDS (300) per target, corpus kept in build/fuzz
#   make fuzz-quick      the same, 20 s per target from the seeds (make check's run)
#   make style           checkpatch.pl on the C sources
#   make sparse          make C=2 (sparse on every C file)
#   make bench-nvme      NVMe/TCP priority off vs on, tables in build/bench/nvme.md
#   make bench-xps       xps_flow off vs on, tables in build/bench/xps.md
#   make bench-xps-tcp   forwarded TCP, the sender moving: stock XPS vs steering (issue 27), build/bench/xps-tcp.md
#   make bench-pp        pp_frag off vs on (and MSG_ZEROCOPY), tables in build/bench/pp.md
#   make bench-scale     cost vs number of sockets and flows (NVMe, pp_frag, xps_flow), tables in build/bench/scale.md
#   make bench-quick     every bench's --quick form (make check's bench tier): proves each runs
#   make setup           install the Debian packages all of this needs

SHELL := /bin/bash
ROOT := $(CURDIR)
BUILD := $(ROOT)/build

ifeq ($(origin KDIR), undefined)
KDIR = $(eval KDIR := $(shell $(ROOT)/scripts/kdir.sh))$(KDIR)
endif
# The release the headers were built for (Debian's kernel.release holds the
# upstream version, the vermagic comes from UTS_RELEASE).
KVER = $(eval KVER := $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null))$(KVER)

MODULES := nvme_tcp_prio nvmet_tcp_prio xps_flow pp_frag
include $(ROOT)/compat/kmake.mk
KMAKE = $(MAKE) -C $(KDIR) M=$(ROOT) $(XNET_KMAKE_FLAGS)

# make deb: build/deb/xnet-dkms_<version>_all.deb (scripts/make-deb.sh)
.PHONY: deb all modules install clean setup check demo test-user kunit vmtest testnic faults hookcost kmake-flags \
	vmtest-series \
	check-build style sparse vmtest-selftest bench-nvme bench-xps bench-xps-tcp bench-pp bench-scale bench-quick \
	debug-kernel vmtest-debug vmtest-selftest-debug check-debug vmtest-rt regress

all: modules

modules:
	$(KMAKE) modules

deb:
	$(ROOT)/scripts/make-deb.sh

install: modules
	$(KMAKE) INSTALL_MOD_DIR=extra KERNELRELEASE=$(KVER) modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KVER)

# The BQL test NIC (tests/testnic) and the checkers' deliberate bugs
# (tests/faults): built for the tests, never installed.
testnic:
	$(MAKE) -C $(KDIR) M=$(ROOT)/tests/testnic $(XNET_KMAKE_FLAGS) modules

faults:
	$(MAKE) -C $(KDIR) M=$(ROOT)/tests/faults $(XNET_KMAKE_FLAGS) modules

# Empty hooks where xps_flow hooks, for the cost bench (tests/hookcost).
hookcost:
	$(MAKE) -C $(KDIR) M=$(ROOT)/tests/hookcost $(XNET_KMAKE_FLAGS) modules

# What the kernel's make gets from compat/kmake.mk for this KDIR, one
# VAR=value a line (for scripts that call it directly).
kmake-flags:
	@$(if $(XNET_PAHOLE_FLAGS),echo 'MODULE_PAHOLE_FLAGS=$(XNET_PAHOLE_FLAGS)',true)

clean:
	$(KMAKE) clean 2>/dev/null || true
	$(MAKE) -C $(KDIR) M=$(ROOT)/tests/testnic clean 2>/dev/null || true
	$(MAKE) -C $(KDIR) M=$(ROOT)/tests/faults clean 2>/dev/null || true
	$(MAKE) -C $(KDIR) M=$(ROOT)/tests/hookcost clean 2>/dev/null || true
	rm -rf $(BUILD)

setup:
	$(ROOT)/scripts/setup.sh

# ---- test tiers -----------------------------------------------------------

USER_CXXFLAGS := -std=gnu++17 -g -O1 -Wall -Wextra -Werror \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -I$(ROOT)/include -I$(ROOT)
# The pure C++ logic: the shared core's tests (tests/user/) and each
# feature's (<feature>/tests/*_test.cpp), linked with the C ABI definitions
# the modules compile (common/core_abi.cpp and each feature's .cpp).
USER_SRCS := $(wildcard $(ROOT)/tests/user/*_test.cpp $(ROOT)/*/tests/*_test.cpp) \
	$(addprefix $(ROOT)/,common/core_abi.cpp nvprio/rules.cpp \
		xps_flow/decide.cpp pp_frag/frag_pool.cpp)
USER_OBJS := $(patsubst $(ROOT)/%.cpp,$(BUILD)/user/%.o,$(USER_SRCS))

$(BUILD)/user/%.o: $(ROOT)/%.cpp
	@mkdir -p $(@D)
	@echo "  CXX     $(patsubst $(ROOT)/%,%,$<)"; g++ $(USER_CXXFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/user/xnet_user_tests: $(USER_OBJS)
	g++ $(USER_CXXFLAGS) -o $@ $^ -lgtest -lgtest_main -pthread

-include $(USER_OBJS:.o=.d)

test-user: $(BUILD)/user/xnet_user_tests
	$(ROOT)/scripts/run-user-tests.sh $<

kunit:
	$(ROOT)/scripts/kunit.sh --series $(SERIES)

vmtest: modules testnic
	$(ROOT)/scripts/vmtest.sh --kernel /boot/vmlinuz-$(KVER)

# The guest suite on Debian's kernel of series SERIES (6.1, 6.12:
# scripts/kernels.sh), modules built against its headers in
# build/<release>/src; make check runs it for every series of XNET_KERNELS.
# --suite: what this kernel runs by the rule of Documentation/testing.md
# ("What runs where"; on 6.1, the tests the debug kernel does not run).
SERIES ?= 6.1
vmtest-series:
	$(ROOT)/scripts/vmtest.sh --series $(SERIES) --suite

# Proves the guest harness catches failures, console warnings, bad taint,
# hangs and crashes (boots with deliberately broken tests from a temp dir).
vmtest-selftest:
	$(ROOT)/scripts/vmtest.sh --selftest --kernel /boot/vmlinuz-$(KVER)

# The debug kernel (built once from linux-source-6.1, cached) and the
# guest tiers on it; the modules are built against it in build/debug/src.
debug-kernel:
	$(ROOT)/scripts/vm/debug-kernel.sh >/dev/null

vmtest-debug:
	$(ROOT)/scripts/vmtest.sh --debug

vmtest-selftest-debug:
	$(ROOT)/scripts/vmtest.sh --selftest --debug

check-debug:
	XNET_TIERS="dbgself debug" $(ROOT)/scripts/check.sh

# Debian's PREEMPT_RT kernel: the tests whose header says rt="why" (one per
# path whose locks and allocations RT changes; Documentation/testing.md,
# "What runs where"). VMTEST_RT_TESTS="01 23 ..." runs those instead.
VMTEST_RT_TESTS ?=
vmtest-rt:
	$(ROOT)/scripts/vmtest.sh --rt --series $(SERIES) $(or $(VMTEST_RT_TESTS),--suite)

# Not in `make check`: the PREEMPT_RT debug kernel it needs is a second
# cold kernel build (tests/regress, Documentation/testing.md).
regress:
	$(ROOT)/scripts/regress.sh

# Every kernel of XNET_KERNELS (default: 6.1 and 6.12), unless KDIR is given.
check-build:
	$(if $(filter command line environment,$(origin KDIR)),KDIR=$(KDIR)) \
		$(ROOT)/scripts/check-build.sh

# libFuzzer targets of tests/fuzz (scripts/fuzz.sh; crashes in build/fuzz/crashes).
FUZZ_SECONDS ?= 300
.PHONY: fuzz fuzz-quick
fuzz:
	$(ROOT)/scripts/fuzz.sh --seconds $(FUZZ_SECONDS) --keep-corpus

fuzz-quick:
	$(ROOT)/scripts/fuzz.sh --seconds 20

style:
	$(ROOT)/scripts/style.sh

sparse:
	$(KMAKE) C=2 modules

check:
	$(ROOT)/scripts/check.sh

# Two boots of series it picks (vmtest.sh --series builds the modules).
bench-nvme:
	$(ROOT)/scripts/bench-nvme.sh

bench-xps: modules testnic hookcost
	$(ROOT)/scripts/bench-xps.sh --kernel /boot/vmlinuz-$(KVER)

# One boot of BENCH_TCP_SERIES (default 6.1; vmtest.sh --series builds the
# modules for it): nothing to build here first.
bench-xps-tcp:
	$(ROOT)/scripts/bench-xps-tcp.sh

bench-pp: modules testnic
	$(ROOT)/scripts/bench-pp.sh --kernel /boot/vmlinuz-$(KVER)

# KUnit (UML), then a guest of SCALE_SERIES (vmtest.sh --series builds the
# modules for it): nothing to build here first.
bench-scale:
	$(ROOT)/scripts/bench-scale.sh

bench-quick: modules testnic hookcost
	$(ROOT)/scripts/bench-quick.sh --kernel /boot/vmlinuz-$(KVER)

# One guest per kernel series of XNET_KERNELS (default 6.1 6.12), each with
# the modules built against that kernel's headers.
XNET_KERNELS ?= $(shell $(ROOT)/scripts/kernels.sh list)
demo:
	$(ROOT)/scripts/setup.sh
	@for s in $(XNET_KERNELS); do \
		echo "=== demo on Debian's $$s kernel"; \
		$(ROOT)/scripts/demo.sh --series $$s || exit 1; \
	done
