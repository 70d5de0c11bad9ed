// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * deny-uring - run a program with io_uring_setup() refused (EPERM) by a
 * seccomp filter, as container runtimes' default profiles refuse it.
 *
 * Usage: deny-uring PROG [ARGS...]
 *
 * Exit 127 if the filter cannot be installed or PROG cannot be run, else
 * PROG's exit status (it replaces this process).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define THIS_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH	AUDIT_ARCH_AARCH64
#endif

int main(int argc, char **argv)
{
#ifdef THIS_ARCH
	struct sock_filter insns[] = {
		/* Another architecture's system call: allow (not ours to judge). */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.filter = insns,
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s PROG [ARGS...]\n", argv[0]);
		return 127;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("deny-uring: seccomp");
		return 127;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
#else
	(void)argc;
	fprintf(stderr, "%s: no seccomp filter for this architecture\n", argv[0]);
	return 127;
#endif
}
