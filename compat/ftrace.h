/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace handlers that change where a traced function resumes (IPMODIFY),
 * across 6.1 and 6.12: the argument registers and the instruction pointer
 * in struct ftrace_regs. With DYNAMIC_FTRACE_WITH_ARGS (x86 since 5.11)
 * the handler needs no full pt_regs (no FTRACE_OPS_FL_SAVE_REGS), as
 * livepatch does; with only WITH_REGS it asks for them. Neither (UML):
 * XNET_HAVE_FTRACE_IPMODIFY undefined, the caller does without.
 * Included by the files that hook, not by compat.h (every file).
 */
#ifndef XNET_COMPAT_FTRACE_H
#define XNET_COMPAT_FTRACE_H

#include <linux/ftrace.h>

#if defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#define XNET_HAVE_FTRACE_IPMODIFY 1
#define XNET_FTRACE_IPMODIFY_FLAGS	FTRACE_OPS_FL_IPMODIFY
#ifdef ftrace_regs_set_instruction_pointer	/* 6.12: opaque ftrace_regs */
#define xnet_fregs_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)
#define xnet_fregs_set_ip(fregs, ip)	ftrace_regs_set_instruction_pointer(fregs, ip)
#define xnet_fregs_pt(fregs)		(&arch_ftrace_regs(fregs)->regs)
#else						/* 6.1 */
#define xnet_fregs_arg(fregs, n)	regs_get_kernel_argument(&(fregs)->regs, n)
#define xnet_fregs_set_ip(fregs, ip)	ftrace_instruction_pointer_set(fregs, ip)
#define xnet_fregs_pt(fregs)		(&(fregs)->regs)
#endif
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define XNET_HAVE_FTRACE_IPMODIFY 1
#define XNET_FTRACE_IPMODIFY_FLAGS	(FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_SAVE_REGS)
#define xnet_fregs_arg(fregs, n)	regs_get_kernel_argument(ftrace_get_regs(fregs), n)
#define xnet_fregs_set_ip(fregs, ip)	instruction_pointer_set(ftrace_get_regs(fregs), ip)
#define xnet_fregs_pt(fregs)		ftrace_get_regs(fregs)
#endif

/*
 * x86-64: the trampolines (ftrace_caller, ftrace_regs_caller in
 * arch/x86/kernel/ftrace_64.S of 6.1 and 6.12) restore every argument
 * register from the saved frame, so a handler that resumes the call
 * elsewhere can give the new function a fourth argument (%rcx) when the
 * traced one has three.
 */
#if defined(XNET_HAVE_FTRACE_IPMODIFY) && defined(CONFIG_X86_64)
#define XNET_HAVE_FREGS_ARG3 1
#define xnet_fregs_set_arg3(fregs, v)	(xnet_fregs_pt(fregs)->cx = (v))
#endif

#endif /* XNET_COMPAT_FTRACE_H */
